/*
 * qk_pdn_int: what qk_pdn.c and qk_pdn_read.c share and nobody else reads.
 */
#ifndef QK_PDN_INT_H
#define QK_PDN_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "qk_pdn.h"

/* A growable string: buf is malloc'd (NULL while empty) and NUL-terminated
 * once anything was put; failed sticks after an allocation failure. */
typedef struct qk_sb {
    char *buf;
    size_t len, cap;
    bool failed;
} qk_sb;

/* Append s[0..n). Returns 0, or -1 (and sets failed) when out of memory. */
int qk_sb_put(qk_sb *b, const char *s, size_t n);

/* Marks a string for the client's catalogues (xgettext --keyword=QK_N_)
 * and leaves it as it is: common/ stays English. */
#ifndef QK_N_
#define QK_N_(s) s
#endif

/* Fill *err (when not NULL) with code, line, ply, message id msg and its
 * arguments (as many const char * as qk_pdn_msg_format(msg) has "%s"), and
 * the English message, prefixed "line N: " when line > 0. err->record is
 * left alone. */
void qk_pdn_fail(qk_pdn_error *err, int code, int line, long ply, int msg, ...);

/* A PDN result word (with the draughts aliases) as a qk_result, or -1. */
int qk_pdn_result_parse(const char *s);

/* Whether name is a tag name: a letter, then letters, digits, '_'. */
bool qk_pdn_name_ok(const char *name);

#endif
