/*
 * dispatch: see dispatch.h. The table below is the whole list of ops the
 * server understands; docs/protocol.md documents each row.
 */
#include "api/dispatch.h"

#include <string.h>

#include "game/auth.h"
#include "util/log.h"
#include "api/ops.h"

#define REQ(n, t)                                                                                  \
    {                                                                                              \
        n, t, true                                                                                 \
    }
#define OPT(n, t)                                                                                  \
    {                                                                                              \
        n, t, false                                                                                \
    }

static const op_def ops[] = {
    {"hello", op_hello, false, {OPT("version", FT_UINT), OPT("client", FT_STR)}},
    {"ping", op_ping, false, {OPT("ts", FT_ANY)}},
    {"register",
     op_register,
     false,
     {REQ("username", FT_STR), REQ("password", FT_STR), OPT("bot", FT_BOOL)},
     "password"},
    {"login",
     op_login,
     false,
     {OPT("username", FT_STR), OPT("password", FT_STR), OPT("token", FT_STR)},
     "password"},
    {"logout", op_logout, true, {{0}}},
    {"challenge",
     op_challenge,
     true,
     {OPT("to", FT_STR), OPT("variant", FT_STR), OPT("color", FT_STR), OPT("time_control", FT_OBJ),
      OPT("position", FT_STR), OPT("rated", FT_BOOL), OPT("vacation", FT_BOOL),
      OPT("private", FT_BOOL)}},
    {"accept", op_accept, true, {REQ("challenge", FT_ID)}},
    {"decline",
     op_decline,
     true,
     {REQ("challenge", FT_ID), OPT("reason", FT_STR), OPT("message", FT_STR)}},
    {"cancel", op_cancel, true, {REQ("challenge", FT_ID)}},
    {"challenges", op_challenges, true, {{0}}},
    {"games",
     op_games,
     true,
     {OPT("status", FT_STR), OPT("turn", FT_STR), OPT("user", FT_STR), OPT("variant", FT_STR),
      OPT("limit", FT_UINT), OPT("before", FT_ID), OPT("opponent", FT_STR)}},
    {"game", op_game, true, {REQ("game", FT_ID)}},
    {"move", op_move, true, {REQ("game", FT_ID), OPT("ply", FT_UINT), REQ("move", FT_MOVE)}},
    {"resign", op_resign, true, {REQ("game", FT_ID)}},
    {"subscribe", op_subscribe, true, {REQ("game", FT_ID)}},
    {"unsubscribe", op_unsubscribe, true, {REQ("game", FT_ID)}},
    /* correspondence play (ops_corr.c) */
    {"notifications",
     op_notifications,
     true,
     {OPT("unread", FT_BOOL), OPT("limit", FT_UINT), OPT("offset", FT_UINT)}},
    {"read", op_read, true, {OPT("ids", FT_ANY), OPT("all", FT_BOOL)}},
    {"vacation", op_vacation, true, {REQ("action", FT_STR), OPT("hours", FT_UINT)}},
    {"draw", op_draw, true, {REQ("game", FT_ID), REQ("action", FT_STR)}},
    {"abort", op_abort, true, {REQ("game", FT_ID)}},
    {"debug_clock", op_debug_clock, false, {OPT("set_ms", FT_ANY), OPT("advance_ms", FT_ANY)}},
    {"users",
     op_users,
     true,
     {OPT("username", FT_STR), OPT("bot", FT_BOOL), OPT("after", FT_STR), OPT("limit", FT_UINT)}},
    {"hint", op_hint, true, {REQ("game", FT_ID)}},
};

const op_def *dispatch_op(size_t i)
{
    return i < sizeof ops / sizeof ops[0] ? &ops[i] : NULL;
}

static const op_def *op_find(const char *name)
{
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(ops[i].name, name) == 0)
            return &ops[i];
    return NULL;
}

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

void req_reply(req *r, cJSON *res)
{
    if (!first_answer(r)) {
        cJSON_Delete(res);
        return;
    }
    if (!res) {
        log_error("op %s: out of memory building the answer", r->op ? r->op->name : "?");
        res = qk_proto_error(r->id, QK_ERR_INTERNAL, NULL);
        if (!res) {
            conn_close(r->conn);
            return;
        }
    }
    srv_reply(r->srv, r->conn, r->id, res);
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
    d->srv = r->srv;
    d->conn = r->conn;
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
        if (!msg)
            msg = qk_proto_error(d->id, QK_ERR_INTERNAL, NULL);
        if (msg)
            srv_reply(d->srv, d->conn, d->id, msg);
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

/* ---- the dispatcher --------------------------------------------------- */

static void answer_bare(srv *s, conn *c, const cJSON *id, qk_err e, const char *why)
{
    cJSON *err = qk_proto_error(id, e, why);
    if (!err) {
        conn_close(c);
        return;
    }
    srv_reply(s, c, id, err);
    cJSON_Delete(err);
}

/* The top-level "id" of obj if it occurs once and is a valid id. */
static const cJSON *loose_id(const cJSON *obj)
{
    const cJSON *id = NULL, *v;
    if (!cJSON_IsObject(obj))
        return NULL;
    cJSON_ArrayForEach(v, obj)
    {
        if (v->string && strcmp(v->string, "id") == 0) {
            if (id)
                return NULL;
            id = v;
        }
    }
    return qk_json_is_id(id) ? id : NULL;
}

/* Answer a request the connection's rate limit refused, with the time
 * until it may send the next one. */
static void answer_limited(srv *s, conn *c, const cJSON *id, uint64_t retry_ms)
{
    cJSON *err = qk_proto_error(id, QK_ERR_RATE_LIMITED, "too many requests on this connection");
    if (err && !cJSON_AddNumberToObject(err, "retry_after_ms", (double)retry_ms)) {
        cJSON_Delete(err);
        err = NULL;
    }
    if (!err) {
        conn_close(c);
        return;
    }
    srv_reply(s, c, id, err);
    cJSON_Delete(err);
}

/* The server is stopping: the line is not run, only answered. */
static void answer_shutdown(srv *s, conn *c, const char *line, size_t len)
{
    cJSON *msg = NULL;
    const char *why = NULL;
    const cJSON *id = NULL;
    if (qk_proto_parse_line(line, len, &msg, &why) == QK_ERR_NONE) {
        id = cJSON_GetObjectItemCaseSensitive(msg, "id");
        if (!qk_json_is_id(id))
            id = NULL;
    }
    answer_bare(s, c, id, QK_ERR_SERVER_SHUTDOWN, NULL);
    cJSON_Delete(msg);
}

/* Answer server_busy: the cap on password hashes is reached. */
static void answer_busy(req *r)
{
    cJSON *err = req_error_new(r, QK_ERR_SERVER_BUSY, "too many password checks at once");
    if (err && !cJSON_AddNumberToObject(err, "retry_after_ms", SRV_BUSY_RETRY_MS)) {
        cJSON_Delete(err);
        err = NULL;
    }
    req_reply_error(r, err);
}

void dispatch_line_cb(conn *c, char *line, size_t len)
{
    srv *s = c->net->data;
    const char *why = NULL;
    cJSON *msg = NULL;
    if (s->stopping) {
        answer_shutdown(s, c, line, len);
        return;
    }
    /* Every line costs a token, a malformed one too: parsing is the work. */
    uint64_t retry_ms = 0;
    bool limited = !rate_take(&session_of(c)->rate, &s->cfg.rate, uv_now(s->loop), &retry_ms);
    qk_err e = qk_proto_parse_line(line, len, &msg, &why);
    if (e != QK_ERR_NONE) {
        /* A well-formed object with a repeated field or too deep: answer
         * with its id when the id itself is readable and unique. */
        cJSON *loose = e == QK_ERR_BAD_REQUEST ? cJSON_ParseWithLength(line, len) : NULL;
        answer_bare(s, c, loose_id(loose), e, why);
        cJSON_Delete(loose);
        return;
    }
    req r = {.srv = s, .conn = c, .sess = session_of(c), .msg = msg};
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(msg, "type");
    char buf[160];
    if (!qk_json_is_id(id)) {
        answer_bare(s, c, NULL, QK_ERR_BAD_REQUEST,
                    id ? "\"id\" must be a string or an integer from 0 to 2^53-1"
                       : "a request needs an \"id\"");
        goto done;
    }
    r.id = id;
    if (limited) {
        answer_limited(s, c, id, retry_ms);
        goto done;
    }
    if (!cJSON_IsString(type)) {
        req_error(&r, QK_ERR_BAD_REQUEST,
                  type ? "\"type\" must be a string" : "a request needs a \"type\"");
        goto done;
    }
    r.op = op_find(type->valuestring);
    if (!r.op) {
        snprintf(buf, sizeof buf, "unknown op \"%.64s\"", type->valuestring);
        req_error(&r, QK_ERR_UNKNOWN_OP, buf);
        goto done;
    }
    if (r.op->login && r.sess->user_id == 0) {
        req_error(&r, QK_ERR_UNAUTHENTICATED, NULL);
        goto done;
    }
    for (const field_spec *f = r.op->fields; f->name; f++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(msg, f->name);
        if (!v || (!f->required && cJSON_IsNull(v))) {
            if (f->required) {
                snprintf(buf, sizeof buf, "\"%s\" is required", f->name);
                req_error(&r, QK_ERR_BAD_REQUEST, buf);
                goto done;
            }
            continue;
        }
        if (!type_ok(msg, f)) {
            snprintf(buf, sizeof buf, "\"%s\" must be %s", f->name, type_name(f->type));
            req_error(&r, QK_ERR_BAD_REQUEST, buf);
            goto done;
        }
    }
    if (r.op->pwhash_field && req_str(&r, r.op->pwhash_field) && auth_busy(s)) {
        answer_busy(&r);
        goto done;
    }
    log_debug("conn %llu: %s", (unsigned long long)c->serial, r.op->name);
    r.op->handler(&r);
    if (!r.answered && !r.deferred) {
        log_error("op %s returned without an answer", r.op->name);
        req_error(&r, QK_ERR_INTERNAL, NULL);
    }
done:
    cJSON_Delete(msg);
}
