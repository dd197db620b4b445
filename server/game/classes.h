/*
 * classes: a teacher's classes (PROTOCOL.md "Classes and tournaments"):
 * a class has a join code, its members a display name beside their
 * username. A class's student list is shown to its teacher only; a
 * member sees the class without it.
 *
 * Join codes and generated passwords are drawn with libsodium's
 * randombytes_uniform() from an alphabet without look-alikes (no 0 O 1 I
 * L), so a code read off a board is typed right. Errors: qk_err and a
 * static message in *why. Writes need nothing beforehand (each function
 * calls svc_write_begin()); a store failure poisons the batch.
 */
#ifndef QK_CLASSES_H
#define QK_CLASSES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "game/svc.h"
#include "qk_proto.h"
#include "store/store.h"

#define CLASSES_CODE_LEN 8       /* join code characters */
#define CLASSES_PASSWORD_LEN 12  /* generated password characters */
#define CLASSES_MAX_STUDENTS 100 /* per class_add_students request */

/* n random characters of the unambiguous alphabet into buf (n + 1 bytes,
 * NUL-terminated). */
void classes_random_text(char *buf, size_t n);

/* A new class name (1..64 bytes) taught by teacher_id: *out filled (id,
 * code). QK_ERR_NONE or INTERNAL. */
qk_err classes_create(gsvc *s, const char *name, int64_t teacher_id, store_class *out);
/* user_id joins the class of code (display name "" = none). NOT_FOUND (no
 * class has that code), CONFLICT (already a member, or the teacher). */
qk_err classes_join(gsvc *s, const char *code, int64_t user_id, store_class *out, const char **why);
/* The class object for viewer: id, name, code and teacher; with the
 * students (username, name, bot) when viewer is the teacher. NULL and
 * *err: NOT_FOUND (absent, or the viewer neither teacher nor member),
 * INTERNAL. */
cJSON *classes_json(gsvc *s, int64_t class_id, int64_t viewer, qk_err *err);
/* The classes viewer teaches or belongs to, without students. */
cJSON *classes_list(gsvc *s, int64_t viewer);
/* Whether user_id is in a class that teacher_id teaches (the teacher's
 * right to reset the password): QK_ERR_NONE and *yes, or INTERNAL. */
qk_err classes_teaches(gsvc *s, int64_t teacher_id, int64_t class_id, int64_t user_id, bool *yes);

#endif
