/*
 * dispatch: see dispatch.h.
 */
#include "api/dispatch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/optable.h"
#include "api/req.h"
#include "game/auth.h"
#include "util/log.h"
#include "util/task.h"

/* ---- the dispatcher --------------------------------------------------- */

static void answer_bare(api *s, conn *c, const cJSON *id, qk_err e, const char *why)
{
    metric_inc(s->m_requests, 0, (int)e);
    cJSON *err = qk_proto_error(id, e, why);
    if (!err) {
        conn_close(c);
        return;
    }
    api_reply(s, c, id, err);
    cJSON_Delete(err);
}

/* Answer a request the connection's rate limit refused, with the time
 * until it may send the next one. */
static void answer_limited(api *s, conn *c, const cJSON *id, uint64_t retry_ms)
{
    metric_inc(s->m_requests, 0, QK_ERR_RATE_LIMITED);
    cJSON *err = qk_proto_error(id, QK_ERR_RATE_LIMITED, "too many requests on this connection");
    if (err && !cJSON_AddNumberToObject(err, "retry_after_ms", (double)retry_ms)) {
        cJSON_Delete(err);
        err = NULL;
    }
    if (!err) {
        conn_close(c);
        return;
    }
    api_reply(s, c, id, err);
    cJSON_Delete(err);
}

/* The server is stopping: the line is not run, only answered. */
static void answer_shutdown(api *s, conn *c, const char *line, size_t len)
{
    cJSON *msg = NULL;
    cJSON *loose = NULL;
    const cJSON *id = NULL;
    if (qk_proto_parse_line(line, len, &msg, NULL) == QK_ERR_NONE) {
        id = cJSON_GetObjectItemCaseSensitive(msg, "id");
        if (!qk_json_is_id(id))
            id = NULL;
    } else {
        id = loose = qk_proto_top_id(line, len);
    }
    answer_bare(s, c, id, QK_ERR_SERVER_SHUTDOWN, NULL);
    cJSON_Delete(loose);
    cJSON_Delete(msg);
}

/* ---- held requests (dispatch.h) --------------------------------------- */

typedef struct held_line {
    struct held_line *next;
    conn *c; /* a reference */
    uint64_t at; /* uv_now() when held */
    size_t len;
    char line[];
} held_line;

/* Keep line (len bytes) of c for dispatch_release(); false when there is
 * no memory for it (the caller then runs it now: a write that waits for
 * nothing is better than an answer lost). */
static bool hold(api *s, conn *c, const char *line, size_t len)
{
    held_line *h = malloc(sizeof *h + len + 1);
    if (!h)
        return false;
    h->next = NULL;
    h->c = c;
    h->at = uv_now(s->loop);
    h->len = len;
    memcpy(h->line, line, len);
    h->line[len] = '\0';
    conn_ref(c);
    conn_pause(c);
    metric_inc(s->m_held, 0, 0);
    *s->held_tail = h;
    s->held_tail = &h->next;
    return true;
}

static void dispatch(conn *c, char *line, size_t len, bool again);

/* Free the list h; with resume, each connection is resumed first (its
 * later lines run now, and may be held again). */
static void free_held(held_line *h, bool resume)
{
    while (h) {
        held_line *next = h->next;
        if (resume)
            conn_resume(h->c);
        conn_unref(h->c);
        free(h);
        h = next;
    }
}

void dispatch_release(api *a, bool now)
{
    if (!a->held || (!now && svc_writes_held(a->svc)))
        return;
    held_line *first = a->held;
    a->held = NULL;
    a->held_tail = &a->held;
    size_t n = 0;
    for (held_line *h = first; h; h = h->next)
        n++;
    /* One line per restart of the log (every 16 MiB of it under load), as
     * a database logs its checkpoints: the pause is visible to clients. */
    log_info("running %zu request%s held %llu ms while the write-ahead log started over", n,
             n == 1 ? "" : "s", (unsigned long long)(uv_now(a->loop) - first->at));
    /* Every held line first, in arrival order; only then the lines that
     * came after them on their connections. */
    for (held_line *h = first; h; h = h->next)
        if (!h->c->closing)
            dispatch(h->c, h->line, h->len, true);
    free_held(first, true);
}

void dispatch_line_cb(conn *c, char *line, size_t len)
{
    dispatch(c, line, len, false);
}

int dispatch_held_count(const api *a)
{
    int n = 0;
    for (const held_line *h = a->held; h; h = h->next)
        n++;
    return n;
}

void dispatch_drop_held(api *a)
{
    held_line *h = a->held;
    a->held = NULL;
    a->held_tail = &a->held;
    free_held(h, false);
}

/* The handler, and the dispatcher's guarantee of one answer. */
static void run_handler(req *r)
{
    r->op->handler(r);
    if (!r->answered && !r->deferred) {
        log_error("op %s returned without an answer", r->op->name);
        req_error(r, QK_ERR_INTERNAL, NULL);
    }
}

/* A request run as a task (util/task.h: the store may make it wait for
 * the database): it owns its message, holds its connection, and keeps the
 * connection's later lines waiting, in order, until it has answered, as
 * a deferred request does (req.h). */
typedef struct task_req {
    req r;
    cJSON *msg;
} task_req;

static void task_req_fn(void *arg)
{
    task_req *t = arg;
    conn *c = t->r.conn;
    if (!c->closing)
        run_handler(&t->r);
    cJSON_Delete(t->msg);
    free(t);
    conn_resume(c);
    conn_unref(c);
}

static void run_as_task(req *r, cJSON *msg)
{
    task_req *t = malloc(sizeof *t);
    if (!t) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        cJSON_Delete(msg);
        return;
    }
    t->r = *r;
    t->msg = msg;
    conn_ref(r->conn);
    conn_pause(r->conn);
    if (task_run(task_req_fn, t) != 0) {
        conn_resume(r->conn);
        conn_unref(r->conn);
        req_error(r, QK_ERR_INTERNAL, NULL);
        cJSON_Delete(msg);
        free(t);
    }
}

/* One line of c; again: a held line run by dispatch_release(), whose rate
 * token was taken when it came. */
static void dispatch(conn *c, char *line, size_t len, bool again)
{
    api *s = api_of(c);
    const char *why = NULL;
    cJSON *msg = NULL;
    if (s->stopping) {
        answer_shutdown(s, c, line, len);
        return;
    }
    /* Every line costs a token, a malformed one too: parsing is the work. */
    uint64_t retry_ms = 0;
    bool limited =
        !again && !rate_take(&session_of(c)->rate, &s->rate, uv_now(s->loop), &retry_ms);
    qk_err e = qk_proto_parse_line(line, len, &msg, &why);
    if (e != QK_ERR_NONE) {
        /* A well-formed object with a repeated field or too deep (any
         * depth, past cJSON's own limit too): answer with its id when the
         * id itself is readable and unique. */
        cJSON *loose = e == QK_ERR_BAD_REQUEST ? qk_proto_top_id(line, len) : NULL;
        answer_bare(s, c, loose, e, why);
        cJSON_Delete(loose);
        return;
    }
    req r = {.api = s, .conn = c, .sess = session_of(c), .msg = msg, .busy0 = s->svc->batch->busy};
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
    r.op = optable_find(type->valuestring);
    if (!r.op) {
        snprintf(buf, sizeof buf, "unknown op \"%.64s\"", type->valuestring);
        req_error(&r, QK_ERR_UNKNOWN_OP, buf);
        goto done;
    }
    /* Behind held lines too, so lines that come after the hold ended but
     * before the release (the same loop turn) do not overtake them. */
    if (!r.op->stateless && !again && (s->held || svc_writes_held(s->svc)) && hold(s, c, line, len))
        goto done;
    if (r.op->login && r.sess->user_id == 0) {
        req_error(&r, QK_ERR_UNAUTHENTICATED, NULL);
        goto done;
    }
    if (!req_check_fields(&r))
        goto done;
    if (r.op->pwhash_field && req_str(&r, r.op->pwhash_field) && auth_busy(s->svc)) {
        req_error_hash_busy(&r);
        goto done;
    }
    log_debug("conn %llu: %s", (unsigned long long)c->serial, r.op->name);
    if (task_enabled()) {
        run_as_task(&r, msg);
        return;
    }
    run_handler(&r);
done:
    cJSON_Delete(msg);
}
