/*
 * classes: see classes.h.
 */
#include "game/classes.h"

#include <stdio.h>
#include <string.h>

#include <sodium.h>

#include "util/log.h"

/* No 0/O, 1/I/L: a code is read aloud or off a board. */
static const char alphabet[] = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

void classes_random_text(char *buf, size_t n)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = alphabet[randombytes_uniform((uint32_t)(sizeof alphabet - 1))];
    buf[n] = '\0';
}

qk_err classes_create(gsvc *s, const char *name, int64_t teacher_id, store_class *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", name);
    out->teacher_id = teacher_id;
    out->created = svc_now(s);
    if (svc_write_begin(s) != 0)
        return QK_ERR_INTERNAL;
    /* 31^8 codes: a clash is rare; a few draws make it vanishingly so. A
     * UNIQUE failure fails only its statement, not the transaction. */
    for (int tries = 0; tries < 8; tries++) {
        classes_random_text(out->code, CLASSES_CODE_LEN);
        int rc = store_class_insert(s->store, out);
        if (rc == STORE_OK)
            return QK_ERR_NONE;
        if (rc != STORE_CONFLICT)
            break;
    }
    svc_poison(s);
    return QK_ERR_INTERNAL;
}

qk_err classes_join(gsvc *s, const char *code, int64_t user_id, store_class *out, const char **why)
{
    *why = NULL;
    int rc = store_class_by_code(s->store, code, out);
    bool member = false;
    if (rc == STORE_NOTFOUND) {
        *why = "no class has that code";
        return QK_ERR_NOT_FOUND;
    }
    if (rc || store_member_is(s->store, out->id, user_id, &member) != STORE_OK)
        return QK_ERR_INTERNAL;
    if (member || out->teacher_id == user_id) {
        *why = member ? "already in this class" : "the teacher of this class";
        return QK_ERR_CONFLICT;
    }
    if (svc_write_begin(s) != 0 ||
        store_member_add(s->store, out->id, user_id, "", svc_now(s)) != STORE_OK) {
        svc_poison(s);
        return QK_ERR_INTERNAL;
    }
    return QK_ERR_NONE;
}

static cJSON *head(const store_class *c, bool with_code)
{
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddNumberToObject(o, "id", (double)c->id) ||
        !cJSON_AddStringToObject(o, "name", c->name) ||
        !(with_code ? cJSON_AddStringToObject(o, "code", c->code) != NULL : true) ||
        !cJSON_AddStringToObject(o, "teacher", c->teacher)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static int member_cb(void *arg, const store_member *m)
{
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddItemToArray(arg, o)) {
        cJSON_Delete(o);
        return 1;
    }
    return !cJSON_AddStringToObject(o, "username", m->username) ||
           !cJSON_AddStringToObject(o, "name", m->name[0] ? m->name : m->username) ||
           !cJSON_AddBoolToObject(o, "bot", m->bot);
}

cJSON *classes_json(gsvc *s, int64_t class_id, int64_t viewer, qk_err *err)
{
    store_class c;
    bool member = false;
    int rc = store_class_get(s->store, class_id, &c);
    *err = QK_ERR_INTERNAL;
    if (rc == STORE_NOTFOUND) {
        *err = QK_ERR_NOT_FOUND;
        return NULL;
    }
    if (rc || store_member_is(s->store, class_id, viewer, &member) != STORE_OK)
        return NULL;
    bool teacher = c.teacher_id == viewer;
    if (!teacher && !member) {
        /* Not found rather than forbidden: a class's existence is its
         * teacher's and members' business. */
        *err = QK_ERR_NOT_FOUND;
        return NULL;
    }
    cJSON *o = head(&c, true), *st;
    if (!o)
        return NULL;
    if (teacher && (!(st = cJSON_AddArrayToObject(o, "students")) ||
                    store_members_each(s->store, class_id, member_cb, st) != STORE_OK)) {
        cJSON_Delete(o);
        return NULL;
    }
    *err = QK_ERR_NONE;
    return o;
}

static int class_cb(void *arg, const store_class *c)
{
    cJSON *o = head(c, true);
    if (!o || !cJSON_AddItemToArray(arg, o)) {
        cJSON_Delete(o);
        return 1;
    }
    return 0;
}

cJSON *classes_list(gsvc *s, int64_t viewer)
{
    cJSON *a = cJSON_CreateArray();
    if (!a || store_classes_of(s->store, viewer, class_cb, a) != STORE_OK) {
        cJSON_Delete(a);
        return NULL;
    }
    return a;
}

qk_err classes_teaches(gsvc *s, int64_t teacher_id, int64_t class_id, int64_t user_id, bool *yes)
{
    store_class c;
    *yes = false;
    int rc = store_class_get(s->store, class_id, &c);
    if (rc == STORE_NOTFOUND)
        return QK_ERR_NONE;
    if (rc)
        return QK_ERR_INTERNAL;
    bool member = false;
    if (store_member_is(s->store, class_id, user_id, &member) != STORE_OK)
        return QK_ERR_INTERNAL;
    *yes = member && c.teacher_id == teacher_id;
    return QK_ERR_NONE;
}
