/*
 * pg_base: see pg_base.h. The FIFO of queries, the socket's callback, the
 * two ways of waiting (a task, or poll() before the loop runs) and the
 * helpers every area file uses.
 */
#include "store/pg/pg_base.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/pg/pg_migrate.h"
#include "util/log.h"
#include "util/metrics.h"

static const char *stmt_name(const pg_store *s, const pg_req *r)
{
    if (r->which == PG_TEXT)
        return r->text;
    return r->which >= 0 && r->which < PG_STMTS_MAX && s->st_name[r->which] ? s->st_name[r->which]
                                                                            : "?";
}

/* ---- connection ------------------------------------------------------- */

/* The URL without a password, for logs. */
static void safe_url(const char *url, char *buf, size_t n)
{
    const char *at = strchr(url, '@');
    const char *scheme = strstr(url, "://");
    if (at && scheme && scheme < at) {
        const char *colon = memchr(scheme + 3, ':', (size_t)(at - scheme - 3));
        if (colon) {
            snprintf(buf, n, "%.*s:***%s", (int)(colon - url), url, at);
            return;
        }
    }
    snprintf(buf, n, "%s", url);
}

int pg_connect(pg_store *s, const char *url)
{
    char shown[512];
    safe_url(url, shown, sizeof shown);
    s->tail = &s->head;
    /* Named from its first moment, before it migrates: a node of this
     * release migrating at the same time must not count it as an older
     * node in the way (pg_migrate.h "Stopping nodes"). A later keyword
     * overrides what the expanded URL gives. */
    char name[48];
    snprintf(name, sizeof name, PG_NODE_APPNAME "%d", pg_schema_last());
    const char *kw[] = {"dbname", "application_name", NULL};
    const char *val[] = {url, name, NULL};
    s->conn = PQconnectdbParams(kw, val, 1);
    if (!s->conn || PQstatus(s->conn) != CONNECTION_OK) {
        log_error("postgresql: cannot connect to %s: %s", shown,
                  s->conn ? PQerrorMessage(s->conn) : "out of memory");
        return STORE_EIO;
    }
    /* Every acknowledged move must survive a crash of the database
     * server: the commit returns only once its WAL record is flushed. */
    PGresult *r = PQexec(s->conn, "SET synchronous_commit = on; SET client_min_messages = warning");
    bool ok = r && PQresultStatus(r) == PGRES_COMMAND_OK;
    PQclear(r);
    if (!ok || PQsetnonblocking(s->conn, 1) != 0) {
        log_error("postgresql: session settings: %s", PQerrorMessage(s->conn));
        return STORE_EIO;
    }
    log_info("postgresql: connected to %s (server %d)", shown, PQserverVersion(s->conn));
    return STORE_OK;
}

int pg_prepare(pg_store *s, const pg_area_stmts *a)
{
    for (int i = 0; i < a->n; i++) {
        int which = (int)a->area * PG_AREA_STMTS + i;
        char name[16];
        snprintf(name, sizeof name, "s%d", which);
        /* Prepared before the loop runs: blocking is allowed here. The
         * connection is non-blocking, so wait for the answer by hand. */
        if (!PQsendPrepare(s->conn, name, a->defs[i].sql, 0, NULL)) {
            log_error("postgresql: prepare %s: %s", a->defs[i].name, PQerrorMessage(s->conn));
            return STORE_EIO;
        }
        while (PQflush(s->conn) == 1) {
            struct pollfd p = {.fd = PQsocket(s->conn), .events = POLLOUT | POLLIN};
            (void)poll(&p, 1, -1);
            (void)PQconsumeInput(s->conn);
        }
        PGresult *r, *last = NULL;
        for (;;) {
            while (PQisBusy(s->conn)) {
                struct pollfd p = {.fd = PQsocket(s->conn), .events = POLLIN};
                (void)poll(&p, 1, -1);
                if (!PQconsumeInput(s->conn))
                    break;
            }
            r = PQgetResult(s->conn);
            if (!r)
                break;
            PQclear(last);
            last = r;
        }
        bool ok = last && PQresultStatus(last) == PGRES_COMMAND_OK;
        if (!ok)
            log_error("postgresql: prepare %s: %s", a->defs[i].name,
                      last ? PQresultErrorMessage(last) : PQerrorMessage(s->conn));
        PQclear(last);
        if (!ok)
            return STORE_EIO;
        s->st_name[which] = a->defs[i].name;
    }
    return STORE_OK;
}

/* ---- the FIFO ----------------------------------------------------------- */

static void set_poll(pg_store *s, int events)
{
    if (!s->poll_on || events == s->poll_events)
        return;
    s->poll_events = events;
    extern void pg_poll_cb(uv_poll_t * h, int status, int events);
    int rc = uv_poll_start(&s->poll, events, pg_poll_cb);
    if (rc < 0)
        log_error("postgresql: uv_poll_start: %s", uv_strerror(rc));
}

/* Flush what libpq buffered; watch for writability while some is left. */
static void flush(pg_store *s)
{
    s->unflushed = 0;
    int f = PQflush(s->conn);
    if (f < 0)
        return; /* the read side reports the broken connection */
    set_poll(s, UV_READABLE | (f == 1 ? UV_WRITABLE : 0));
}

static void req_free(pg_req *r)
{
    PQclear(r->res);
    free(r->buf);
    free(r);
}

static void lose(pg_store *s, const char *why);

/* Pipeline mode (pg_base.h "The connection"): output is flushed once a
 * loop turn, before the loop sleeps, by this prepare handle. */
static void flush_cb(uv_prepare_t *h)
{
    pg_store *s = h->data;
    uv_prepare_stop(h);
    s->flush_due = false;
    if (!s->lost)
        flush(s);
}

/* In pipeline mode output is flushed once a loop turn, and also after
 * every PG_FLUSH_EVERY statements: a turn that reads the moves of many
 * connections (50 in the benchmark, about 40 us each) would otherwise
 * leave PostgreSQL idle until the turn's last move is handled, and the
 * server idle while PostgreSQL then runs them all; flushed every few, they
 * run while the server reads the rest (docs/perf.md "Issue 22, fifth
 * session"). */
#define PG_FLUSH_EVERY 8

static void flush_later(pg_store *s)
{
    if (++s->unflushed >= PG_FLUSH_EVERY)
        flush(s);
    if (s->flush_due)
        return;
    s->flush_due = true;
    uv_prepare_start(&s->flusher, flush_cb);
}

static bool is_text(const pg_req *r, const char *sql)
{
    return r->which == PG_TEXT && strcmp(r->text, sql) == 0;
}

/* Put r on the wire. Without pipeline mode each query carries its own
 * Sync (libpq's PQsendQuery*) and is flushed at once. In pipeline mode a
 * query of an open transaction block that someone waits for is followed
 * by a Flush request only, so that its result comes back at once while
 * the block stays one pipeline segment; one nobody waits for (a write of
 * the batch, a NOTIFY, the BEGIN) by nothing: PostgreSQL keeps its result
 * until the next Flush or Sync, so that it costs the server no send of
 * its own (24% of the backend's time went to sends, one per statement:
 * docs/perf.md). The block's COMMIT or ROLLBACK and every query outside
 * a block are followed by a Sync, which ends the segment. A failure inside
 * the block aborts the rest of the segment (PGRES_PIPELINE_ABORTED), the
 * COMMIT with it: process() then rolls the block back. */
static void send_one(pg_store *s, pg_req *r)
{
    int ok;
    if (r->which == PG_TEXT)
        ok = PQsendQueryParams(s->conn, r->text, 0, NULL, NULL, NULL, NULL, 0);
    else {
        char name[16];
        snprintf(name, sizeof name, "s%d", r->which);
        ok = PQsendQueryPrepared(s->conn, name, r->n, (const char *const *)r->val, r->len, r->fmt,
                                 0);
    }
    r->sent = true;
    bool starts = is_text(r, "BEGIN"), ends = is_text(r, "COMMIT") || is_text(r, "ROLLBACK");
    if (!ok) {
        /* Could not even be sent: answered as a failure by the next
         * processing pass (a broken connection is noticed there). */
        r->status = PGRES_FATAL_ERROR;
        r->send_failed = true;
        snprintf(r->sqlstate, sizeof r->sqlstate, "08006");
        log_error("postgresql: send %s: %s", stmt_name(s, r), PQerrorMessage(s->conn));
    }
    if (ok && s->pipeline) {
        bool in_block = (s->in_block || starts) && !ends;
        if (in_block)
            ok = r->unwaited || PQsendFlushRequest(s->conn);
        else {
            ok = PQpipelineSync(s->conn);
            r->synced = true;
            if (ends)
                s->gate = r; /* nothing more until its Sync is back */
        }
        if (!ok) {
            lose(s, PQerrorMessage(s->conn));
            return;
        }
    }
    if (starts)
        s->in_block = true;
    if (ends)
        s->in_block = false;
    if (s->pipeline)
        flush_later(s);
    else
        flush(s);
}

/* Send what is queued and may go: without pipeline mode the head only,
 * once the query before it is answered; in pipeline mode everything,
 * except behind a block's COMMIT or ROLLBACK still in flight (a failed
 * block must be rolled back before anything else runs, process()). */
static void send_pending(pg_store *s)
{
    while (s->unsent && !s->lost) {
        if (s->pipeline ? s->gate != NULL : s->unsent != s->head)
            return;
        pg_req *r = s->unsent;
        s->unsent = r->next;
        send_one(s, r);
    }
}

static void complete(pg_store *s, pg_req *r);

/* Read r's results: 1 when r is answered (and its Sync, if it has one,
 * is read), 0 when more must arrive first, -1 when the connection was
 * lost meanwhile (r is completed by lose()). */
static int take_results(pg_store *s, pg_req *r)
{
    while (!r->results_done) {
        if (PQisBusy(s->conn))
            return 0;
        PGresult *res = PQgetResult(s->conn);
        if (!res) {
            r->results_done = true;
            break;
        }
        if (PQresultStatus(res) == PGRES_PIPELINE_SYNC) {
            PQclear(res);
            lose(s, "pipeline out of step: a Sync where a result was due");
            return -1;
        }
        PQclear(r->res);
        r->res = res;
        r->status = PQresultStatus(res);
        const char *st = PQresultErrorField(res, PG_DIAG_SQLSTATE);
        snprintf(r->sqlstate, sizeof r->sqlstate, "%s", st ? st : "");
    }
    if (r->synced) {
        if (PQisBusy(s->conn))
            return 0;
        PGresult *res = PQgetResult(s->conn);
        if (!res)
            return 0;
        ExecStatusType st = PQresultStatus(res);
        PQclear(res);
        if (st != PGRES_PIPELINE_SYNC) {
            lose(s, "pipeline out of step: a result where a Sync was due");
            return -1;
        }
        r->synced = false;
    }
    return 1;
}

/* A ROLLBACK right after r (a block's COMMIT or ROLLBACK that did not
 * run because a statement before it failed): the block is still open on
 * the server, in its failed state, and must end before the next query. */
static void rollback_after(pg_store *s, pg_req *r)
{
    pg_req *rb = calloc(1, sizeof *rb);
    if (!rb) {
        lose(s, "out of memory for the ROLLBACK of a failed transaction");
        return;
    }
    rb->which = PG_TEXT;
    rb->text = "ROLLBACK";
    rb->next = r->next;
    r->next = rb;
    if (s->tail == &r->next)
        s->tail = &rb->next;
    if (s->unsent == rb->next)
        s->unsent = rb;
    s->queued++;
    log_error("postgresql: transaction %" PRIu64 " failed: rolled back", r->txn);
}

/* Take the answered queries off the head, in order, and send what may go.
 * Completions may resume tasks, which queue more: the loop re-reads the
 * head each time. */
static void process(pg_store *s)
{
    while (s->head && s->head->sent) {
        pg_req *r = s->head;
        if (!r->send_failed) {
            int t = take_results(s, r);
            if (t < 0)
                return;
            if (t == 0)
                break;
        }
        if (s->gate == r) {
            s->gate = NULL;
            if (r->status == PGRES_PIPELINE_ABORTED) {
                rollback_after(s, r);
                if (s->lost)
                    return;
            }
        }
        s->head = r->next;
        if (!s->head)
            s->tail = &s->head;
        s->queued--;
        complete(s, r);
        send_pending(s);
    }
    send_pending(s);
}

static void lose(pg_store *s, const char *why)
{
    if (s->lost)
        return;
    s->lost = true;
    log_error("postgresql: connection lost: %s", why);
    /* The server is told first (pg_core.c "Lost connection"): a node exits
     * there, before a COMMIT in flight could be reported as failed, since
     * its outcome is unknown, not "committed but not durable". */
    if (s->on_lost)
        s->on_lost(s->lost_arg);
    /* Without such a callback (tools, tests) every query in the FIFO
     * fails: tasks waiting on them resume with STORE_EIO; commits in
     * flight report EIO, so nothing of theirs is acknowledged. */
    while (s->head) {
        pg_req *r = s->head;
        s->head = r->next;
        s->queued--;
        r->sent = true;
        r->status = PGRES_FATAL_ERROR;
        snprintf(r->sqlstate, sizeof r->sqlstate, "08006");
        complete(s, r);
    }
    s->tail = &s->head;
    s->unsent = NULL;
    s->gate = NULL;
}

/* Read what arrived; deliver notifications; complete what is answered. */
static void pump(pg_store *s)
{
    if (s->lost)
        return;
    if (!PQconsumeInput(s->conn) || PQstatus(s->conn) == CONNECTION_BAD) {
        lose(s, PQerrorMessage(s->conn));
        return;
    }
    process(s);
    PGnotify *n;
    while (!s->lost && (n = PQnotifies(s->conn))) {
        if (s->on_notify)
            s->on_notify(s->notify_arg, n->relname, n->extra);
        PQfreemem(n);
    }
    if (!s->lost)
        flush(s);
}

void pg_poll_cb(uv_poll_t *h, int status, int events)
{
    pg_store *s = h->data;
    if (status < 0) {
        lose(s, uv_strerror(status));
        return;
    }
    if (events & UV_WRITABLE)
        flush(s);
    pump(s);
}

int pg_watch(pg_store *s, uv_loop_t *loop)
{
    /* Pipeline mode needs an idle connection: a write sent without
     * waiting before the loop ran is answered first (blocking is still
     * allowed here). */
    if (s->head && s->head->sent)
        pg_drain(s);
    if (s->lost)
        return STORE_EIO;
    if (!PQenterPipelineMode(s->conn)) {
        log_error("postgresql: pipeline mode: %s", PQerrorMessage(s->conn));
        return STORE_EIO;
    }
    int rc = uv_poll_init_socket(loop, &s->poll, PQsocket(s->conn));
    if (rc < 0) {
        log_error("postgresql: uv_poll_init: %s", uv_strerror(rc));
        /* Nothing was sent in pipeline mode yet: the blocking path stays. */
        if (!PQexitPipelineMode(s->conn))
            lose(s, PQerrorMessage(s->conn));
        return STORE_EIO;
    }
    s->pipeline = true;
    uv_prepare_init(loop, &s->flusher);
    s->flusher.data = s;
    s->flusher_on = true;
    s->poll.data = s;
    s->poll_on = true;
    s->poll_events = 0;
    s->loop = loop;
    set_poll(s, UV_READABLE);
    /* Anything queued before the loop ran is sent now. */
    send_pending(s);
    return STORE_OK;
}

/* poll() until r is answered: before the loop runs, or (a bug, logged)
 * outside a task once it runs. */
static void wait_blocking(pg_store *s, pg_req *r)
{
    while (!r->done && !s->lost) {
        send_pending(s);
        int f = PQflush(s->conn);
        struct pollfd p = {.fd = PQsocket(s->conn), .events = POLLIN | (f == 1 ? POLLOUT : 0)};
        if (poll(&p, 1, -1) < 0 && errno != EINTR) {
            lose(s, strerror(errno));
            break;
        }
        pump(s);
    }
}

static void enqueue(pg_store *s, pg_req *r)
{
    r->txn = s->txn;
    if (s->lost) {
        /* Failed at once, through the same completion as any failure. */
        r->sent = true;
        r->status = PGRES_FATAL_ERROR;
        snprintf(r->sqlstate, sizeof r->sqlstate, "08006");
        complete(s, r);
        return;
    }
    *s->tail = r;
    s->tail = &r->next;
    s->queued++;
    if (!s->unsent)
        s->unsent = r;
    send_pending(s);
}

static void wait_for(pg_store *s, pg_req *r)
{
    task *t = task_current();
    if (t && s->loop) {
        r->waiter = t;
        while (!r->done)
            task_wait();
        return;
    }
    if (s->loop) {
        s->blocking_waits++;
        log_error("postgresql: %s waited outside a task: the loop was blocked", stmt_name(s, r));
    }
    wait_blocking(s, r);
}

/* ---- building a query ----------------------------------------------------- */

static pg_req *build(pg_store *s, pg_stmt which, const char *fmt, va_list ap)
{
    pg_req *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->which = which;
    size_t n = strlen(fmt);
    if (n > PG_PARAMS_MAX) {
        log_error("postgresql: %s: %zu parameters", stmt_name(s, r), n);
        free(r);
        return NULL;
    }
    /* Two passes: the sizes, then the bytes. */
    char nums[PG_PARAMS_MAX][32];
    const char *src[PG_PARAMS_MAX];
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t v;
        const char *t;
        src[i] = NULL;
        r->fmt[i] = 0;
        switch (fmt[i]) {
        case 'i':
        case 'o':
        case 'O':
            v = va_arg(ap, int64_t);
            if ((fmt[i] == 'o' && v <= 0) || (fmt[i] == 'O' && v < 0))
                break;
            snprintf(nums[i], sizeof nums[i], "%" PRId64, v);
            src[i] = nums[i];
            r->len[i] = (int)strlen(nums[i]);
            break;
        case 't':
        case 'T':
            t = va_arg(ap, const char *);
            if (!t || (fmt[i] == 'T' && !*t))
                break;
            src[i] = t;
            r->len[i] = (int)strlen(t);
            break;
        case 'd':
            /* 17 significant digits read back as the same double. */
            snprintf(nums[i], sizeof nums[i], "%.17g", va_arg(ap, double));
            src[i] = nums[i];
            r->len[i] = (int)strlen(nums[i]);
            break;
        case 'h':
            src[i] = (const char *)va_arg(ap, const uint8_t *);
            if (src[i]) {
                r->len[i] = STORE_TOKEN_HASH;
                r->fmt[i] = 1; /* binary bytea */
            }
            break;
        default:
            log_error("postgresql: %s: bad format '%c'", stmt_name(s, r), fmt[i]);
            free(r);
            return NULL;
        }
        if (src[i])
            total += (size_t)r->len[i] + 1;
    }
    r->n = (int)n;
    r->buf = malloc(total ? total : 1);
    if (!r->buf) {
        free(r);
        return NULL;
    }
    char *p = r->buf;
    for (size_t i = 0; i < n; i++) {
        if (!src[i]) {
            r->val[i] = NULL;
            r->len[i] = 0;
            continue;
        }
        memcpy(p, src[i], (size_t)r->len[i]);
        p[r->len[i]] = '\0';
        r->val[i] = p;
        p += r->len[i] + 1;
    }
    return r;
}

/* ---- completion ---------------------------------------------------------- */

/* Why r failed, for the log. */
static const char *why_failed(const pg_req *r, const char *none)
{
    if (r->status == PGRES_PIPELINE_ABORTED)
        return "not run: a statement before it in the transaction failed";
    return r->res ? PQresultErrorMessage(r->res) : none;
}

static bool failed(const pg_req *r)
{
    return r->status != PGRES_COMMAND_OK && r->status != PGRES_TUPLES_OK;
}

static void complete(pg_store *s, pg_req *r)
{
    r->done = true;
    bool bad = failed(r);
    if (bad && r->txn && r->txn > s->failed_txn)
        s->failed_txn = r->txn;
    if (r->is_commit) {
        s->commits_inflight--;
        s->commits_done++;
        /* The flush of the commit's WAL record happens in PostgreSQL; what
         * a node sees of it is the COMMIT's round trip. */
        if (s->commit_h && !bad)
            metric_observe(s->commit_h, (double)(uv_hrtime() - r->sent_ns) / 1e9);
        bool ok =
            !bad && r->txn != s->failed_txn && r->res && strcmp(PQcmdStatus(r->res), "COMMIT") == 0;
        if (!ok && !bad)
            log_error("postgresql: transaction %" PRIu64 " failed; its COMMIT rolled back", r->txn);
        if (bad)
            log_error("postgresql: COMMIT: %s", why_failed(r, "lost"));
        store_done_cb cb = r->on_done;
        void *arg = r->on_done_arg;
        req_free(r);
        if (cb)
            cb(arg, ok ? STORE_OK : STORE_EIO);
        return;
    }
    if (!r->waiter && !r->keep_result) {
        /* Nobody reads it: a queued write or BEGIN/ROLLBACK. */
        if (bad && !s->lost)
            log_error("postgresql: %s: %s", stmt_name(s, r), why_failed(r, "not sent"));
        store_done_cb cb = r->on_done;
        void *arg = r->on_done_arg;
        req_free(r);
        if (cb)
            cb(arg, bad ? STORE_EIO : STORE_OK);
        return;
    }
    if (r->waiter) {
        task *t = r->waiter;
        r->waiter = NULL;
        /* Resume only from the loop's stack: a completion found while the
         * task itself pumps (blocking fallback) is seen by its loop. */
        if (!task_current())
            task_wake(t);
    }
}

/* Queue and wait; returns the answered request (the caller frees it with
 * req_free) or NULL when it could not be built. */
static pg_req *run_v(pg_store *s, pg_stmt which, const char *fmt, va_list ap)
{
    pg_req *r = build(s, which, fmt, ap);
    if (!r) {
        if (s->txn)
            s->failed_txn = s->txn;
        return NULL;
    }
    r->keep_result = true;
    enqueue(s, r);
    wait_for(s, r);
    if (failed(r) && !s->lost)
        log_error("postgresql: %s: %s", stmt_name(s, r), why_failed(r, "not sent"));
    return r;
}

static long affected(const pg_req *r)
{
    const char *t = r->res ? PQcmdTuples(r->res) : "";
    return *t ? strtol(t, NULL, 10) : 0;
}

/* Build and queue without waiting (pg_send, and pg_run inside a batch). */
static int send_v(pg_store *s, pg_stmt which, const char *fmt, va_list ap)
{
    pg_req *r = build(s, which, fmt, ap);
    if (!r) {
        if (s->txn)
            s->failed_txn = s->txn;
        return STORE_EIO;
    }
    r->unwaited = true;
    enqueue(s, r);
    return STORE_OK;
}

/* Run and wait; none is the answer when no row changed (STORE_OK: the
 * count does not matter). */
static int run_counted(pg_store *s, pg_stmt which, int none, const char *fmt, va_list ap)
{
    pg_req *r = run_v(s, which, fmt, ap);
    int rc = !r || failed(r) ? STORE_EIO : affected(r) == 0 ? none : STORE_OK;
    if (r)
        req_free(r);
    return rc;
}

int pg_run(pg_store *s, pg_stmt which, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    /* Inside the batch on a running server its only possible answers are
     * OK or a failure that fails the whole batch (the commit reports
     * it): nothing to wait for (pg_base.h "Waiting"). */
    int rc =
        s->txn && s->loop ? send_v(s, which, fmt, ap) : run_counted(s, which, STORE_OK, fmt, ap);
    va_end(ap);
    return rc;
}

int pg_run_one(pg_store *s, pg_stmt which, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = run_counted(s, which, STORE_NOTFOUND, fmt, ap);
    va_end(ap);
    return rc;
}

int pg_run_conflict(pg_store *s, pg_stmt which, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = run_counted(s, which, STORE_CONFLICT, fmt, ap);
    va_end(ap);
    return rc;
}

int pg_send(pg_store *s, pg_stmt which, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = send_v(s, which, fmt, ap);
    va_end(ap);
    return rc;
}

int pg_next_id(pg_store *s, pg_stmt reserve, pg_ids_of which, int64_t *out)
{
    pg_id_pool *p = &s->ids[which];
    if (p->next == p->n) {
        PGresult *r;
        int rc = pg_query(s, reserve, &r, "i", (int64_t)PG_ID_POOL);
        if (rc)
            return rc;
        int rows = PQntuples(r);
        p->next = p->n = 0;
        for (int i = 0; i < rows && i < PG_ID_POOL; i++)
            p->id[p->n++] = pg_col_int(r, i, 0);
        PQclear(r);
        if (p->n == 0) {
            log_error("postgresql: %s reserved no id", stmt_name(s, &(pg_req){.which = reserve}));
            return STORE_EIO;
        }
    }
    *out = p->id[p->next++];
    return STORE_OK;
}

void pg_drop_ids(pg_store *s)
{
    for (int i = 0; i < PG_IDS__COUNT; i++)
        s->ids[i].next = s->ids[i].n = 0;
}

static int query_v(pg_store *s, pg_stmt which, PGresult **res, bool one, const char *fmt,
                   va_list ap)
{
    *res = NULL;
    pg_req *r = run_v(s, which, fmt, ap);
    if (!r || failed(r) || !r->res) {
        if (r)
            req_free(r);
        return STORE_EIO;
    }
    if (one && PQntuples(r->res) == 0) {
        req_free(r);
        return STORE_NOTFOUND;
    }
    *res = r->res;
    r->res = NULL;
    req_free(r);
    return STORE_OK;
}

int pg_one_row(pg_store *s, pg_stmt which, PGresult **res, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = query_v(s, which, res, true, fmt, ap);
    va_end(ap);
    return rc;
}

int pg_query(pg_store *s, pg_stmt which, PGresult **res, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = query_v(s, which, res, false, fmt, ap);
    va_end(ap);
    return rc;
}

int pg_each(pg_store *s, pg_stmt which, pg_row_fn row, void *ctx, const char *fmt, ...)
{
    PGresult *res;
    va_list ap;
    va_start(ap, fmt);
    int rc = query_v(s, which, &res, false, fmt, ap);
    va_end(ap);
    if (rc)
        return rc;
    int n = PQntuples(res);
    for (int i = 0; i < n && rc == 0; i++)
        rc = row(res, i, ctx);
    PQclear(res);
    return rc;
}

int pg_exec_text(pg_store *s, const char *sql, const char *what)
{
    pg_req *r = calloc(1, sizeof *r);
    if (!r)
        return STORE_EIO;
    r->which = PG_TEXT;
    r->text = sql;
    r->keep_result = true;
    enqueue(s, r);
    wait_for(s, r);
    int rc = failed(r) ? STORE_EIO : STORE_OK;
    if (rc && !s->lost)
        log_error("postgresql: %s: %s", what, why_failed(r, "not sent"));
    req_free(r);
    return rc;
}

int pg_send_text(pg_store *s, const char *sql, bool is_commit, uint64_t txn, store_done_cb on_done,
                 void *arg)
{
    pg_req *r = calloc(1, sizeof *r);
    if (!r)
        return STORE_EIO;
    r->which = PG_TEXT;
    r->text = sql;
    r->is_commit = is_commit;
    r->unwaited = !is_commit; /* BEGIN, ROLLBACK: nobody reads their result */
    r->on_done = on_done;
    r->on_done_arg = arg;
    if (is_commit) {
        s->commits_inflight++;
        r->sent_ns = uv_hrtime();
    }
    uint64_t keep = s->txn;
    s->txn = txn;
    enqueue(s, r);
    s->txn = keep;
    return STORE_OK;
}

void pg_drain(pg_store *s)
{
    if (!s->head || s->lost)
        return;
    /* A marker at the tail: the FIFO answers everything before it first. */
    pg_req *m = calloc(1, sizeof *m);
    if (!m)
        return;
    m->which = PG_TEXT;
    m->text = "SELECT 1";
    m->keep_result = true;
    enqueue(s, m);
    wait_blocking(s, m);
    req_free(m);
}

void pg_unwatch(pg_store *s)
{
    if (s->pipeline) {
        /* Callers drain first; an idle connection leaves pipeline mode. */
        if (!s->lost && s->head)
            pg_drain(s);
        /* A connection still in pipeline mode cannot take the blocking
         * calls that follow (libpq refuses PQexec there): it counts as
         * lost, and those calls fail with STORE_EIO. The server is not
         * told: this is its stop (pg_async_stop, pg_disconnect), after the
         * drain, and its on_lost exits 75 as after a crash. */
        if (!s->lost && !PQexitPipelineMode(s->conn)) {
            void (*told)(void *) = s->on_lost;
            s->on_lost = NULL;
            lose(s, PQerrorMessage(s->conn));
            s->on_lost = told;
        }
        s->pipeline = false;
    }
    if (s->flusher_on) {
        uv_prepare_stop(&s->flusher);
        uv_close((uv_handle_t *)&s->flusher, NULL);
        s->flusher_on = false;
        s->flush_due = false;
    }
    if (s->poll_on) {
        uv_poll_stop(&s->poll);
        uv_close((uv_handle_t *)&s->poll, NULL);
        s->poll_on = false;
    }
    s->loop = NULL;
}

void pg_disconnect(pg_store *s)
{
    if (s->conn && !s->lost)
        pg_drain(s);
    pg_unwatch(s);
    if (s->conn)
        PQfinish(s->conn);
    s->conn = NULL;
}

/* ---- columns ------------------------------------------------------------- */

int64_t pg_col_int(const PGresult *r, int row, int col)
{
    if (PQgetisnull(r, row, col))
        return 0;
    return strtoll(PQgetvalue(r, row, col), NULL, 10);
}

double pg_col_double(const PGresult *r, int row, int col)
{
    if (PQgetisnull(r, row, col))
        return 0;
    return strtod(PQgetvalue(r, row, col), NULL);
}

bool pg_col_null(const PGresult *r, int row, int col)
{
    return PQgetisnull(r, row, col) != 0;
}

void pg_col_text(const PGresult *r, int row, int col, char *buf, size_t n)
{
    if (n == 0)
        return;
    const char *v = PQgetisnull(r, row, col) ? "" : PQgetvalue(r, row, col);
    snprintf(buf, n, "%s", v);
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int pg_col_blob(const PGresult *r, int row, int col, uint8_t *out, size_t n)
{
    if (PQgetisnull(r, row, col))
        return -1;
    const char *v = PQgetvalue(r, row, col);
    /* bytea's text output (bytea_output = hex): "\x" then two digits a byte. */
    if (v[0] != '\\' || v[1] != 'x' || strlen(v + 2) != 2 * n)
        return -1;
    for (size_t i = 0; i < n; i++) {
        int hi = hexval(v[2 + 2 * i]), lo = hexval(v[3 + 2 * i]);
        if (hi < 0 || lo < 0)
            return -1;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return 0;
}

int pg_row_id(const PGresult *r, int i, void *ctx)
{
    pg_ids *w = ctx;
    if (*w->n >= w->max)
        return 1;
    w->ids[(*w->n)++] = pg_col_int(r, i, 0);
    return 0;
}
