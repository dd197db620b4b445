/*
 * req: see req.h.
 */
#include "api/req.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "api/session.h"
#include "util/log.h"

static const char *type_name(field_type t)
{
    switch (t) {
    case FT_STR:
        return "a string";
    case FT_UINT:
        return "an integer from 0 to 2^53-1";
    case FT_ID:
        return "an id (a positive integer)";
    case FT_BOOL:
        return "true or false";
    case FT_OBJ:
        return "an object";
    case FT_MOVE:
        return "a move text or {\"path\": [...]}";
    case FT_ANY:
        break;
    }
    return "a value";
}

static bool type_ok(const cJSON *msg, const field_spec *f)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(msg, f->name);
    uint64_t u;
    switch (f->type) {
    case FT_STR:
        return cJSON_IsString(v);
    case FT_UINT:
    case FT_ID:
        return qk_json_get_uint(msg, f->name, &u);
    case FT_BOOL:
        return cJSON_IsBool(v);
    case FT_OBJ:
        return cJSON_IsObject(v);
    case FT_MOVE:
        return cJSON_IsString(v) || cJSON_IsObject(v);
    case FT_ANY:
        return true;
    }
    return false;
}

/* ---- answering -------------------------------------------------------- */

static bool first_answer(req *r)
{
    if (r->answered || r->deferred) {
        log_error("op %s answered twice", r->op ? r->op->name : "?");
        return false;
    }
    r->answered = true;
    return true;
}

cJSON *req_ok(req *r)
{
    return qk_proto_ok(r->id);
}

cJSON *req_error_new(req *r, qk_err e, const char *message)
{
    return qk_proto_error(r->id, e, message);
}

/* The store was busy during this request (batch.h): its `internal` is
 * server_busy with retry_after_ms. NULL on allocation failure. */
static cJSON *busy_error(const cJSON *id)
{
    cJSON *err = qk_proto_error(id, QK_ERR_SERVER_BUSY, "the database is busy: retry shortly");
    if (err && !cJSON_AddNumberToObject(err, "retry_after_ms", REQ_BUSY_RETRY_MS)) {
        cJSON_Delete(err);
        err = NULL;
    }
    return err;
}

static bool req_saw_busy(const req *r)
{
    return r->api && r->api->svc->batch->busy != r->busy0;
}

/* Whether msg is an `internal` error object. */
static bool is_internal(const cJSON *msg)
{
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(msg, "code");
    return cJSON_IsString(code) && strcmp(code->valuestring, "internal") == 0;
}

/* msg (owned), or server_busy in its place when it is `internal` and the
 * store was found busy (see req_error()). */
static cJSON *busy_instead(cJSON *msg, const cJSON *id, bool busy)
{
    if (!busy || (msg && !is_internal(msg)))
        return msg;
    cJSON *err = busy_error(id);
    if (!err)
        return msg;
    cJSON_Delete(msg);
    return err;
}

/* qirkat_requests_total and qirkat_logins_total (api.h) for an answer
 * res to a request of op (NULL: refused before its op was known). */
static void count_answer(api *a, const op_def *opd, const cJSON *res)
{
    if (!a || !a->m_requests)
        return;
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(res, "code");
    int e = cJSON_IsString(code) ? (int)qk_err_parse(code->valuestring) : 0;
    int op = opd && a->op0 ? (int)(opd - a->op0) + 1 : 0;
    metric_inc(a->m_requests, op, e);
    if (opd && strcmp(opd->name, "login") == 0)
        metric_inc(a->m_logins, e ? 1 : 0, 0);
}

void req_reply(req *r, cJSON *res)
{
    if (!first_answer(r)) {
        cJSON_Delete(res);
        return;
    }
    res = busy_instead(res, r->id, req_saw_busy(r));
    if (!res) {
        log_error("op %s: out of memory building the answer", r->op ? r->op->name : "?");
        res = qk_proto_error(r->id, QK_ERR_INTERNAL, NULL);
        if (!res) {
            conn_close(r->conn);
            return;
        }
    }
    count_answer(r->api, r->op, res);
    if (r->op && r->op->stateless)
        api_reply_now(r->api, r->conn, r->id, res);
    else
        api_reply(r->api, r->conn, r->id, res);
    cJSON_Delete(res);
}

void req_reply_error(req *r, cJSON *err)
{
    req_reply(r, err);
}

void req_error(req *r, qk_err e, const char *message)
{
    req_reply(r, qk_proto_error(r->id, e, message));
}

void req_error_hash_busy(req *r)
{
    cJSON *err = req_error_new(r, QK_ERR_SERVER_BUSY, "too many password checks at once");
    if (err && !cJSON_AddNumberToObject(err, "retry_after_ms", API_BUSY_RETRY_MS)) {
        cJSON_Delete(err);
        err = NULL;
    }
    req_reply_error(r, err);
}

const cJSON *req_field(req *r, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r->msg, name);
    return cJSON_IsNull(v) ? NULL : v;
}

const char *req_str(req *r, const char *name)
{
    const cJSON *v = req_field(r, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

bool req_uint(req *r, const char *name, uint64_t *out)
{
    return req_field(r, name) && qk_json_get_uint(r->msg, name, out);
}

bool req_bool(req *r, const char *name, bool dflt)
{
    const cJSON *v = req_field(r, name);
    return cJSON_IsBool(v) ? cJSON_IsTrue(v) : dflt;
}

/* ---- deferred answers ------------------------------------------------- */

int req_defer(req *r, deferred *d)
{
    if (r->answered || r->deferred)
        return -1;
    d->id = cJSON_Duplicate(r->id, true);
    if (!d->id) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        return -1;
    }
    d->api = r->api;
    d->conn = r->conn;
    d->op = r->op;
    conn_ref(r->conn);
    conn_pause(r->conn);
    r->deferred = true;
    return 0;
}

bool deferred_alive(const deferred *d)
{
    return !d->conn->closing;
}

cJSON *deferred_ok(deferred *d)
{
    return qk_proto_ok(d->id);
}

cJSON *deferred_error(deferred *d, qk_err e, const char *message)
{
    return qk_proto_error(d->id, e, message);
}

void deferred_reply(deferred *d, cJSON *msg)
{
    if (deferred_alive(d)) {
        /* A deferred answer is built in the turn of its write: busy in
         * this turn (since the last batch end) is what refused it. */
        const batch *b = d->api->svc->batch;
        msg = busy_instead(msg, d->id, b->busy != b->busy_at_end);
        if (!msg)
            msg = qk_proto_error(d->id, QK_ERR_INTERNAL, NULL);
        if (msg) {
            count_answer(d->api, d->op, msg);
            api_reply(d->api, d->conn, d->id, msg);
        }
        else
            conn_close(d->conn);
    }
    cJSON_Delete(msg);
    cJSON_Delete(d->id);
    d->id = NULL;
    conn *c = d->conn;
    d->conn = NULL;
    /* Resuming processes lines that waited; it may defer again. */
    conn_resume(c);
    conn_unref(c);
}

/* Protocol version 2: a top-level name that differs from one of the op's
 * fields (or "type", "id") only in letter case is refused, naming it. In
 * version 1 unknown fields are ignored (PROTOCOL.md "Framing"), which
 * let {"Ply": 5} play a move with no ply check at all (issue 21). */
static bool case_variants_ok(req *r)
{
    char buf[160];
    const cJSON *item;
    cJSON_ArrayForEach(item, r->msg)
    {
        const char *k = item->string;
        if (!k || strcmp(k, "type") == 0 || strcmp(k, "id") == 0)
            continue;
        const char *near = strcasecmp(k, "type") == 0 ? "type" : strcasecmp(k, "id") == 0 ? "id" : NULL;
        bool exact = false;
        for (const field_spec *f = r->op->fields; f->name && !exact; f++) {
            exact = strcmp(k, f->name) == 0;
            if (!exact && strcasecmp(k, f->name) == 0)
                near = f->name;
        }
        if (!exact && near) {
            snprintf(buf, sizeof buf, "unknown field \"%.40s\": names are case-sensitive (\"%s\")", k,
                     near);
            req_error(r, QK_ERR_BAD_REQUEST, buf);
            return false;
        }
    }
    return true;
}

bool req_check_fields(req *r)
{
    char buf[160];
    bool v2 = r->sess->proto >= 2;
    if (v2 && !case_variants_ok(r))
        return false;
    for (const field_spec *f = r->op->fields; f->name; f++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(r->msg, f->name);
        bool required = f->required || (v2 && f->required_v2);
        if (!v || (!required && cJSON_IsNull(v))) {
            if (required) {
                snprintf(buf, sizeof buf,
                         f->required ? "\"%s\" is required" : "\"%s\" is required (protocol version 2)",
                         f->name);
                req_error(r, QK_ERR_BAD_REQUEST, buf);
                return false;
            }
            continue;
        }
        if (!type_ok(r->msg, f)) {
            snprintf(buf, sizeof buf, "\"%s\" must be %s", f->name, type_name(f->type));
            req_error(r, QK_ERR_BAD_REQUEST, buf);
            return false;
        }
    }
    return true;
}
