/*
 * ops_class: class_create, class_join, class_add_students,
 * class_reset_password, class, classes (docs/protocol.md "Classes and
 * tournaments"); the game layer's classes.h decides and writes.
 *
 * class_add_students and class_reset_password hash the generated
 * passwords on the thread pool (auth.h: auth_hash is asynchronous), so
 * they defer the request (req_defer, as register does). Everything is
 * validated before the first hash; the accounts are written together in
 * the last hash's callback, in one batch: a class's list is all made or
 * none of it. Names taken in the meantime (a register between the check
 * and the write) make the whole request a conflict, nothing written. The
 * passwords are in the answer only, once; the store keeps their hashes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <sodium.h>

#include "api/ops.h"
#include "game/auth.h"
#include "game/classes.h"
#include "util/log.h"

static void reply_class(req *r, int64_t id, const char *key)
{
    qk_err e;
    cJSON *c = classes_json(r->api->svc, id, r->sess->user_id, &e), *res = c ? req_ok(r) : NULL;
    if (!c) {
        req_error(r, e, e == QK_ERR_NOT_FOUND ? "no such class" : NULL);
        return;
    }
    if (!res || !cJSON_AddItemToObject(res, key, c)) {
        cJSON_Delete(c);
        cJSON_Delete(res);
        res = NULL;
    }
    req_reply(r, res);
}

void op_class_create(req *r)
{
    const char *name = req_str(r, "name");
    size_t n = strlen(name);
    if (n == 0 || n > STORE_TNAME_MAX) {
        req_error(r, QK_ERR_BAD_REQUEST, "a name is 1-64 bytes");
        return;
    }
    store_class c;
    qk_err e = classes_create(r->api->svc, name, r->sess->user_id, &c);
    if (e) {
        req_error(r, e, NULL);
        return;
    }
    reply_class(r, c.id, "class");
}

void op_class_join(req *r)
{
    store_class c;
    const char *why = NULL;
    char code[CLASSES_CODE_LEN + 1];
    const char *given = req_str(r, "code");
    /* Codes are typed by children: case and spaces do not matter. */
    size_t k = 0;
    for (const char *p = given; *p; p++) {
        if (*p == ' ' || *p == '-')
            continue;
        if (k == CLASSES_CODE_LEN) {
            k++; /* too long */
            break;
        }
        code[k++] = (char)(*p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p);
    }
    if (k != CLASSES_CODE_LEN) {
        req_error(r, QK_ERR_NOT_FOUND, "no class has that code");
        return;
    }
    code[k] = '\0';
    qk_err e = classes_join(r->api->svc, code, r->sess->user_id, &c, &why);
    if (e) {
        req_error(r, e, why);
        return;
    }
    reply_class(r, c.id, "class");
}

void op_class(req *r)
{
    uint64_t id;
    req_uint(r, "class", &id);
    reply_class(r, (int64_t)id, "class");
}

void op_classes(req *r)
{
    cJSON *a = classes_list(r->api->svc, r->sess->user_id), *res = a ? req_ok(r) : NULL;
    if (!res || !cJSON_AddItemToObject(res, "classes", a)) {
        cJSON_Delete(a);
        cJSON_Delete(res);
        res = NULL;
    }
    req_reply(r, res);
}

/* ---- accounts made by the teacher ---------------------------------------- */

typedef struct student {
    char username[STORE_NAME_MAX + 1];
    char name[STORE_DNAME_MAX + 1];
    char password[CLASSES_PASSWORD_LEN + 1];
    char hash[STORE_PWHASH_MAX];
    int64_t user_id; /* reset: the account */
} student;

typedef struct students_job {
    deferred d;
    int64_t class_id;
    bool reset;
    size_t n, done;
    student st[];
} students_job;

static void job_free(students_job *j)
{
    sodium_memzero(j->st, j->n * sizeof j->st[0]);
    free(j);
}

static cJSON *write_students(students_job *j)
{
    api *s = j->d.api;
    gsvc *g = s->svc;
    if (svc_write_begin(g) != 0)
        return deferred_error(&j->d, QK_ERR_INTERNAL, NULL);
    /* A username taken while the passwords were hashed (off the loop) is
     * refused here, before the first insert, not by undoing inserts:
     * undoing means losing the batch, and with it every other request
     * of the turns it was kept open for (batch.h batch_end_or_keep).
     * Nothing can take a name between this check and the inserts: both
     * run in this one callback on the loop thread. */
    for (size_t i = 0; i < j->n && !j->reset; i++) {
        store_user u;
        int rc = store_user_by_name(g->store, j->st[i].username, &u);
        if (rc == STORE_OK)
            return deferred_error(&j->d, QK_ERR_CONFLICT, "a username was taken meanwhile");
        if (rc != STORE_NOTFOUND)
            return deferred_error(&j->d, QK_ERR_INTERNAL, NULL);
    }
    int64_t now = svc_now(g);
    for (size_t i = 0; i < j->n; i++) {
        student *st = &j->st[i];
        int rc = j->reset ? store_user_pwhash_set(g->store, st->user_id, st->hash)
                          : store_user_insert(g->store, st->username, false, st->hash, now,
                                              &st->user_id);
        if (rc == STORE_OK && !j->reset)
            rc = store_member_add(g->store, j->class_id, st->user_id, st->name, now);
        if (rc != STORE_OK) {
            /* Undo the accounts already written in this request with the
             * batch: the class's list is made whole or not at all. */
            svc_poison(g);
            if (rc == STORE_CONFLICT)
                return deferred_error(&j->d, QK_ERR_CONFLICT, "a username was taken meanwhile");
            return deferred_error(&j->d, QK_ERR_INTERNAL, NULL);
        }
    }
    cJSON *res = deferred_ok(&j->d);
    if (!res)
        return NULL;
    if (j->reset) {
        if (!cJSON_AddStringToObject(res, "password", j->st[0].password)) {
            cJSON_Delete(res);
            return NULL;
        }
        log_info("class %lld: password of %s reset", (long long)j->class_id, j->st[0].username);
        return res;
    }
    cJSON *a = cJSON_AddArrayToObject(res, "students");
    for (size_t i = 0; a && i < j->n; i++) {
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddItemToArray(a, o) ||
            !cJSON_AddStringToObject(o, "username", j->st[i].username) ||
            !cJSON_AddStringToObject(o, "name", j->st[i].name) ||
            !cJSON_AddStringToObject(o, "password", j->st[i].password)) {
            if (o && cJSON_GetArraySize(a) == 0)
                cJSON_Delete(o);
            a = NULL;
        }
    }
    if (!a) {
        cJSON_Delete(res);
        return NULL;
    }
    log_info("class %lld: %zu student accounts made", (long long)j->class_id, j->n);
    return res;
}

static void hash_done(void *arg, int rc, const char *hash)
{
    students_job *j = arg;
    if (rc != 0) {
        deferred_reply(&j->d, deferred_error(&j->d, QK_ERR_INTERNAL, NULL));
        job_free(j);
        return;
    }
    snprintf(j->st[j->done].hash, sizeof j->st[j->done].hash, "%s", hash);
    j->done++;
    if (j->done < j->n) {
        /* One hash at a time: a class of 30 does not fill the pool that
         * every login shares. */
        student *st = &j->st[j->done];
        if (auth_hash(j->d.api->svc, st->password, strlen(st->password), hash_done, j) != 0) {
            deferred_reply(&j->d, deferred_error(&j->d, QK_ERR_SERVER_BUSY, NULL));
            job_free(j);
        }
        return;
    }
    cJSON *res = deferred_alive(&j->d) ? write_students(j) : NULL;
    deferred_reply(&j->d, res);
    job_free(j);
}

static void start_job(req *r, students_job *j)
{
    if (auth_busy(r->api->svc)) {
        req_error(r, QK_ERR_SERVER_BUSY, NULL);
        job_free(j);
        return;
    }
    for (size_t i = 0; i < j->n; i++)
        classes_random_text(j->st[i].password, CLASSES_PASSWORD_LEN);
    if (req_defer(r, &j->d) != 0) {
        job_free(j);
        return;
    }
    if (auth_hash(r->api->svc, j->st[0].password, CLASSES_PASSWORD_LEN, hash_done, j) != 0) {
        deferred_reply(&j->d, deferred_error(&j->d, QK_ERR_SERVER_BUSY, NULL));
        job_free(j);
    }
}

/* The class id of r, taught by the caller: false when answered. */
static bool own_class(req *r, int64_t *id)
{
    uint64_t v;
    store_class c;
    req_uint(r, "class", &v);
    int rc = store_class_get(r->api->svc->store, (int64_t)v, &c);
    if (rc == STORE_NOTFOUND || (rc == STORE_OK && c.teacher_id != r->sess->user_id)) {
        req_error(r, QK_ERR_NOT_FOUND, "no such class of yours");
        return false;
    }
    if (rc) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        return false;
    }
    *id = c.id;
    return true;
}

void op_class_add_students(req *r)
{
    int64_t cid;
    const cJSON *list = req_field(r, "students");
    char buf[160];
    if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) < 1 ||
        cJSON_GetArraySize(list) > CLASSES_MAX_STUDENTS) {
        req_error(r, QK_ERR_BAD_REQUEST, "students is a list of 1 to 100 {username, name}");
        return;
    }
    if (!own_class(r, &cid))
        return;
    size_t n = (size_t)cJSON_GetArraySize(list);
    students_job *j = calloc(1, sizeof *j + n * sizeof j->st[0]);
    if (!j) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    j->class_id = cid;
    j->n = n;
    size_t i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, list)
    {
        const cJSON *u = cJSON_GetObjectItemCaseSensitive(it, "username");
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(it, "name");
        store_user x;
        const char *err = NULL;
        qk_err code = QK_ERR_BAD_REQUEST;
        if (!cJSON_IsString(u) || !auth_username_valid(u->valuestring))
            err = "a username is 1-32 characters of A-Z a-z 0-9 _ -";
        else if (nm && !cJSON_IsNull(nm) &&
                 (!cJSON_IsString(nm) || strlen(nm->valuestring) > STORE_DNAME_MAX))
            err = "a name is a string of at most 64 bytes";
        for (size_t k = 0; !err && k < i; k++)
            if (strcasecmp(j->st[k].username, u->valuestring) == 0)
                err = "a username is listed twice";
        if (!err) {
            int rc = store_user_by_name(r->api->svc->store, u->valuestring, &x);
            if (rc == STORE_OK) {
                code = QK_ERR_CONFLICT;
                err = "that username is taken";
            } else if (rc != STORE_NOTFOUND) {
                code = QK_ERR_INTERNAL;
                err = "";
            }
        }
        if (err) {
            snprintf(buf, sizeof buf, "students[%zu]: %s", i, err);
            req_error(r, code, code == QK_ERR_INTERNAL ? NULL : buf);
            job_free(j);
            return;
        }
        snprintf(j->st[i].username, sizeof j->st[i].username, "%s", u->valuestring);
        snprintf(j->st[i].name, sizeof j->st[i].name, "%s",
                 cJSON_IsString(nm) ? nm->valuestring : "");
        i++;
    }
    start_job(r, j);
}

void op_class_reset_password(req *r)
{
    int64_t cid;
    const char *name = req_str(r, "username");
    store_user u;
    bool yes = false;
    if (!own_class(r, &cid))
        return;
    int rc = auth_username_valid(name) ? store_user_by_name(r->api->svc->store, name, &u)
                                       : STORE_NOTFOUND;
    if (rc == STORE_OK && classes_teaches(r->api->svc, r->sess->user_id, cid, u.id, &yes) != 0)
        rc = STORE_EIO;
    if (rc == STORE_NOTFOUND || (rc == STORE_OK && !yes)) {
        req_error(r, QK_ERR_NOT_FOUND, "no such student in this class");
        return;
    }
    if (rc) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    students_job *j = calloc(1, sizeof *j + sizeof j->st[0]);
    if (!j) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    j->class_id = cid;
    j->reset = true;
    j->n = 1;
    j->st[0].user_id = u.id;
    snprintf(j->st[0].username, sizeof j->st[0].username, "%s", u.username);
    start_job(r, j);
}
