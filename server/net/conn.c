/*
 * conn: see conn.h. Everything here goes through the transport's vtable
 * (transport.h) for I/O; a flush hands each dirty connection's whole held
 * queue to one transport write.
 */
#include "net/conn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qk_frame.h"
#include "qk_proto.h"
#include "util/log.h"
#include "util/metrics.h"

outbuf *outbuf_from_json(const cJSON *msg)
{
    /* Loop thread only (net.h), so one buffer serves every message; a
     * longer one (a long game's full object) takes the allocating path. */
    static char text[16384];
    size_t len;
    if (qk_proto_print_into(msg, text, sizeof text, &len)) {
        /* The common case: one allocation, the outbuf. */
        outbuf *ob = malloc(sizeof *ob + len);
        if (ob) {
            ob->refs = 1;
            ob->len = len;
            memcpy(ob->data, text, len);
        }
        return ob;
    }
    char *s = qk_proto_print(msg, &len);
    if (!s)
        return NULL;
    outbuf *ob = malloc(sizeof *ob + len);
    if (ob) {
        ob->refs = 1;
        ob->len = len;
        memcpy(ob->data, s, len);
    }
    free(s);
    return ob;
}

outbuf *outbuf_ref(outbuf *ob)
{
    ob->refs++;
    return ob;
}

void outbuf_unref(outbuf *ob)
{
    if (ob && --ob->refs == 0)
        free(ob);
}

void outmsg_free_list(outmsg *m)
{
    while (m) {
        outmsg *next = m->next;
        outbuf_unref(m->ob);
        cJSON_Delete(m->txn_id);
        free(m);
        m = next;
    }
}

void net_init(net *n, uv_loop_t *loop, const net_hooks *hooks, size_t line_limit, size_t out_limit)
{
    memset(n, 0, sizeof *n);
    n->loop = loop;
    n->hooks = *hooks;
    n->line_limit = line_limit ? line_limit : QK_FRAME_DEFAULT_LIMIT;
    n->out_limit = out_limit ? out_limit : NET_DEFAULT_OUT_LIMIT;
    n->max_conns = NET_DEFAULT_MAX_CONNS;
    n->max_per_addr = NET_DEFAULT_MAX_PER_ADDR;
    reg_init(&n->by_addr);
    n->out_soft = n->out_limit / 4;
    n->lines_per_turn = NET_LINES_PER_TURN;
    n->next_serial = 1;
}

/* ---- lifetime --------------------------------------------------------- */

void conn_ref(conn *c)
{
    c->refs++;
}

void conn_unref(conn *c)
{
    if (--c->refs > 0)
        return;
    if (c->net->hooks.free_cb)
        c->net->hooks.free_cb(c);
    outmsg_free_list(c->held);
    c->tp->free_conn(c);
}

static void dirty_unlink(conn *c)
{
    if (!c->dirty)
        return;
    if (c->dirty_prev)
        c->dirty_prev->dirty_next = c->dirty_next;
    else
        c->net->dirty = c->dirty_next;
    if (c->dirty_next)
        c->dirty_next->dirty_prev = c->dirty_prev;
    c->dirty_next = c->dirty_prev = NULL;
    c->dirty = false;
}

static void dirty_link(conn *c)
{
    if (c->dirty)
        return;
    c->dirty_prev = NULL;
    c->dirty_next = c->net->dirty;
    if (c->dirty_next)
        c->dirty_next->dirty_prev = c;
    c->net->dirty = c;
    c->dirty = true;
}

static void ready_unlink(conn *c)
{
    if (!c->ready)
        return;
    if (c->ready_prev)
        c->ready_prev->ready_next = c->ready_next;
    else
        c->net->ready_head = c->ready_next;
    if (c->ready_next)
        c->ready_next->ready_prev = c->ready_prev;
    else
        c->net->ready_tail = c->ready_prev;
    c->ready_next = c->ready_prev = NULL;
    c->ready = false;
}

/* To the back of the list: connections take turns in the order they ran
 * out of budget, so none waits more than one pass. */
static void ready_add(conn *c)
{
    if (c->ready || c->closing)
        return;
    net *n = c->net;
    c->ready = true;
    c->ready_seq = n->ready_seq;
    c->ready_next = NULL;
    c->ready_prev = n->ready_tail;
    if (n->ready_tail)
        n->ready_tail->ready_next = c;
    else
        n->ready_head = c;
    n->ready_tail = c;
}

static size_t out_pending(const conn *c)
{
    return c->held_bytes + c->inflight_bytes;
}

static void stop_reading(conn *c)
{
    if (!c->reading)
        return;
    c->reading = false;
    c->tp->read_stop(c);
}

void conn_closed(conn *c)
{
    conn_unref(c);
}

void conn_close(conn *c)
{
    if (c->closing)
        return;
    c->closing = true;
    net *n = c->net;
    stop_reading(c);
    dirty_unlink(c);
    ready_unlink(c);
    outmsg_free_list(c->held);
    c->held = NULL;
    c->held_tail = &c->held;
    c->held_bytes = c->held_count = 0;
    if (c->prev)
        c->prev->next = c->next;
    else
        n->all = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->next = c->prev = NULL;
    n->nconns--;
    if (c->addr_node) {
        reg_remove(&n->by_addr, c->addr_node);
        c->addr_node = NULL;
    }
    log_debug("conn %llu (%s) closed", (unsigned long long)c->serial, c->peer);
    if (n->hooks.close_cb)
        n->hooks.close_cb(c);
    c->tp->close(c);
}

void net_close_all(net *n)
{
    while (n->all)
        conn_close(n->all);
}

void net_free(net *n)
{
    reg_free(&n->by_addr);
}

/* ---- ending connections on stop --------------------------------------- */

void conn_shutdown_done(conn *c, int status)
{
    if (status < 0 && status != UV_ECANCELED)
        log_debug("conn %llu: shutdown: %s", (unsigned long long)c->serial, uv_strerror(status));
    conn_close(c);
    conn_unref(c);
}

/* While stopping: end c once it is quiet (net_shutdown). Unread input
 * keeps it open: it is read, and answered, first. */
static void drain_check(conn *c)
{
    if (!c->net->stopping || c->closing || c->shutting || c->processing || c->paused > 0 ||
        c->ready || c->out_blocked || c->dirty || c->held_count > 0 || c->inflight_bytes > 0)
        return;
    if (!c->eof && c->reading && c->tp->unread(c))
        return;
    c->shutting = true;
    stop_reading(c);
    conn_ref(c); /* released by conn_shutdown_done() */
    int rc = c->tp->shutdown(c);
    if (rc < 0) {
        log_debug("conn %llu: shutdown: %s", (unsigned long long)c->serial, uv_strerror(rc));
        conn_close(c);
        conn_unref(c);
    }
}

void net_shutdown(net *n)
{
    if (n->stopping)
        return;
    n->stopping = true;
    conn *c = n->all;
    while (c) {
        /* drain_check() may close c, which unlinks it. */
        conn *next = c->next;
        drain_check(c);
        c = next;
    }
}

/* ---- writing ---------------------------------------------------------- */

/* Output of a blocked connection drained to half the soft limit (the gap
 * keeps it from flapping every message): its waiting lines run on the
 * next turn, and reading resumes after them. */
static void out_unblock(conn *c)
{
    if (!c->out_blocked || c->closing || out_pending(c) > c->net->out_soft / 2)
        return;
    c->out_blocked = false;
    ready_add(c);
}

/* Close a connection whose input is finished once its output is out. */
static void maybe_finish(conn *c)
{
    if (!c->closing && c->close_after_write && c->held_count == 0 && c->inflight_bytes == 0)
        conn_close(c);
}

int conn_send(conn *c, outbuf *ob, unsigned flags, const cJSON *id)
{
    if (c->closing || c->shutting)
        return -1;
    /* One message bigger than the cap may go out alone; an event queued
     * behind others counts against the cap; an answer never does. */
    size_t pending = c->held_bytes + c->inflight_bytes;
    if (!(flags & CONN_MSG_REPLY) && pending > 0 && pending + ob->len > c->net->out_limit) {
        log_warn("conn %llu (%s): %zu bytes of output pending, disconnecting",
                 (unsigned long long)c->serial, c->peer, pending);
        conn_close(c);
        return -1;
    }
    outmsg *m = calloc(1, sizeof *m);
    if (!m)
        goto fail;
    if ((flags & CONN_MSG_TXN) && id) {
        m->txn_id = cJSON_Duplicate(id, true);
        if (!m->txn_id)
            goto fail_msg;
    }
    m->ob = outbuf_ref(ob);
    m->flags = flags;
    uint64_t txn = c->net->txn_epoch;
    m->epoch = (flags & CONN_MSG_TXN) ? txn : (flags & CONN_MSG_AFTER) && txn > 0 ? txn - 1 : 0;
    *c->held_tail = m;
    c->held_tail = &m->next;
    c->held_bytes += ob->len;
    c->held_count++;
    dirty_link(c);
    return 0;
fail_msg:
    free(m);
fail:
    log_error("conn %llu: out of memory queueing output", (unsigned long long)c->serial);
    conn_close(c);
    return -1;
}

int conn_send_json(conn *c, const cJSON *msg, unsigned flags, const cJSON *id)
{
    outbuf *ob = outbuf_from_json(msg);
    if (!ob) {
        conn_close(c);
        return -1;
    }
    int rc = conn_send(c, ob, flags, id);
    outbuf_unref(ob);
    return rc;
}

void conn_write_done(conn *c, size_t bytes, int status)
{
    c->inflight_bytes -= bytes;
    if (status < 0) {
        if (status != UV_ECANCELED)
            log_debug("conn %llu: write: %s", (unsigned long long)c->serial, uv_strerror(status));
        conn_close(c);
        return;
    }
    out_unblock(c);
    maybe_finish(c);
    drain_check(c);
}

/* Hand the durable prefix of c's held queue to the transport; what waits
 * for a later epoch stays held (and c dirty). */
static void conn_write(conn *c)
{
    uint64_t durable = c->net->durable_epoch;
    outmsg *msgs = c->held, **cut = &c->held;
    size_t count = 0, bytes = 0;
    while (*cut && (*cut)->epoch <= durable) {
        count++;
        bytes += (*cut)->ob->len;
        cut = &(*cut)->next;
    }
    outmsg *rest = *cut;
    *cut = NULL; /* ends the prefix (clears c->held when the prefix is empty) */
    c->held = rest;
    if (!c->held)
        c->held_tail = &c->held;
    c->held_count -= count;
    c->held_bytes -= bytes;
    if (c->held)
        dirty_link(c); /* the rest waits for its epoch */
    if (count == 0) {
        maybe_finish(c);
        drain_check(c);
        return;
    }
    c->last_out = uv_now(c->net->loop);
    ssize_t left = c->tp->write(c, msgs, count, bytes);
    if (left < 0) {
        log_debug("conn %llu: write: %s", (unsigned long long)c->serial, uv_strerror((int)left));
        conn_close(c);
        return;
    }
    c->inflight_bytes += (size_t)left;
    out_unblock(c);
    if (left == 0) {
        maybe_finish(c);
        drain_check(c);
    }
}

/* Write every dirty connection once; those left with output waiting for
 * an epoch link themselves onto the dirty list again. The list is taken
 * whole first (into an array: a connection may link itself again, or
 * close, while the others are written), so each is written once. */
static void write_dirty(net *n)
{
    conn *stackv[256], **v = stackv;
    size_t count = 0;
    for (conn *c = n->dirty; c; c = c->dirty_next)
        count++;
    if (count > 256 && !(v = malloc(count * sizeof *v))) {
        /* No memory for the array: one at a time, as before epochs. */
        conn *c;
        size_t guard = count;
        while ((c = n->dirty) && guard-- > 0) {
            dirty_unlink(c);
            conn_write(c);
        }
        return;
    }
    size_t i = 0;
    for (conn *c = n->dirty; c; c = c->dirty_next)
        v[i++] = c;
    for (i = 0; i < count; i++)
        dirty_unlink(v[i]);
    for (i = 0; i < count; i++)
        conn_write(v[i]);
    if (v != stackv)
        free(v);
}

void net_flush(net *n)
{
    write_dirty(n);
    n->turn++;
}

void net_durable(net *n, uint64_t epoch)
{
    if (epoch > n->durable_epoch)
        n->durable_epoch = epoch;
    write_dirty(n);
}

bool net_has_ready(const net *n)
{
    return n->ready_head != NULL;
}

static void conn_process(conn *c);

void net_run_ready(net *n)
{
    /* A connection that runs out of budget again is appended with the new
     * sequence number: the pass stops when it reaches the first of those,
     * so each connection gets one batch per pass. */
    uint64_t seq = ++n->ready_seq;
    conn *c;
    while ((c = n->ready_head) && c->ready_seq != seq) {
        ready_unlink(c);
        conn_process(c);
    }
}

void net_fail_txn(net *n, const char *message)
{
    for (conn *c = n->dirty; c; c = c->dirty_next) {
        outmsg **pp = &c->held;
        while (*pp) {
            outmsg *m = *pp;
            if (!(m->flags & CONN_MSG_TXN) || m->epoch != n->txn_epoch) {
                pp = &m->next;
                continue;
            }
            outbuf *repl = NULL;
            if (m->txn_id) {
                cJSON *err = qk_proto_error(m->txn_id, QK_ERR_INTERNAL, message);
                repl = err ? outbuf_from_json(err) : NULL;
                cJSON_Delete(err);
            }
            c->held_bytes -= m->ob->len;
            outbuf_unref(m->ob);
            cJSON_Delete(m->txn_id);
            m->txn_id = NULL;
            m->flags = CONN_MSG_REPLY;
            m->epoch = 0;
            if (repl) {
                m->ob = repl;
                c->held_bytes += repl->len;
                pp = &m->next;
            } else {
                /* An event, or no memory for the error: drop it. */
                *pp = m->next;
                c->held_count--;
                free(m);
            }
        }
        c->held_tail = pp;
    }
}

/* ---- reading ---------------------------------------------------------- */

static void send_error(conn *c, qk_err e, const char *why)
{
    cJSON *err = qk_proto_error(NULL, e, why);
    if (err)
        conn_send_json(c, err, CONN_MSG_REPLY, NULL);
    cJSON_Delete(err);
}

static int start_reading(conn *c);

/* Read from the socket only while lines can be handled at once: not
 * while a request is deferred, the turn's budget is spent (ready), the
 * output is over the soft limit, or the input has ended. */
static void update_reading(conn *c)
{
    if (!c->closing && !c->shutting && !c->eof && !c->close_after_write && c->paused == 0 &&
        !c->ready && !c->out_blocked)
        start_reading(c);
    else
        stop_reading(c);
}

/* Hand buffered complete lines to the upper layer until it pauses or
 * closes us, the turn's budget is spent or the output is over the soft
 * limit. */
static void conn_process(conn *c)
{
    net *n = c->net;
    if (c->turn_seen != n->turn) {
        c->turn_seen = n->turn;
        c->turn_lines = 0;
    }
    bool more = false; /* the budget ran out: the rest on the next turn */
    c->processing = true;
    while (!c->closing && c->paused == 0 && !c->close_after_write) {
        if (out_pending(c) >= n->out_soft) {
            c->out_blocked = true;
            break;
        }
        if (c->turn_lines >= n->lines_per_turn) {
            more = true;
            break;
        }
        char *line;
        size_t len;
        int rc = c->tp->next(c, &line, &len);
        if (rc == 0)
            break;
        if (rc < 0) {
            log_info("conn %llu (%s): line too long, closing", (unsigned long long)c->serial,
                     c->peer);
            send_error(c, QK_ERR_LINE_TOO_LONG, NULL);
            c->close_after_write = true;
            break;
        }
        if (len == 0)
            continue; /* keepalive: no work, no answer, not counted */
        c->turn_lines++;
        n->hooks.line_cb(c, line, len);
    }
    c->processing = false;
    if (c->closing)
        return;
    if (more)
        ready_add(c);
    /* After EOF or an over-long line nothing more is read: answer what
     * was complete, then close once the output is out. */
    if (c->eof && c->paused == 0 && !c->ready && !c->out_blocked)
        c->close_after_write = true;
    if (c->close_after_write) {
        stop_reading(c);
        if (!c->dirty)
            maybe_finish(c);
        return;
    }
    update_reading(c);
    drain_check(c);
}

void conn_close_after_write(conn *c)
{
    if (c->closing)
        return;
    c->close_after_write = true;
    stop_reading(c);
    if (!c->dirty)
        maybe_finish(c);
}

void conn_input(conn *c)
{
    if (!c->closing)
        conn_process(c);
}

void conn_input_end(conn *c)
{
    if (c->closing)
        return;
    c->eof = true;
    stop_reading(c);
    conn_process(c);
}

static int start_reading(conn *c)
{
    if (c->reading || c->closing)
        return 0;
    int rc = c->tp->read_start(c);
    if (rc < 0) {
        log_warn("conn %llu: read start: %s", (unsigned long long)c->serial, uv_strerror(rc));
        conn_close(c);
        return rc;
    }
    c->reading = true;
    return 0;
}

void conn_pause(conn *c)
{
    c->paused++;
    stop_reading(c);
}

void conn_resume(conn *c)
{
    if (c->paused > 0)
        c->paused--;
    /* Inside the line loop (a handler answered its own deferral at once)
     * the loop itself goes on with the next line. */
    if (c->paused > 0 || c->closing || c->processing)
        return;
    conn_process(c);
}

/* ---- accepting -------------------------------------------------------- */

void conn_init(conn *c, net *n, const transport *tp)
{
    c->tp = tp;
    c->net = n;
    c->refs = 1; /* released by conn_closed() */
    c->serial = n->next_serial++;
    c->last_out = uv_now(n->loop);
    c->held_tail = &c->held;
    snprintf(c->peer, sizeof c->peer, "?");
    c->next = n->all;
    if (n->all)
        n->all->prev = c;
    n->all = c;
    n->nconns++;
}

/* The host part of a "host:port" peer name (IPv6 hosts have colons). */
static size_t host_len(const char *peer)
{
    const char *colon = strrchr(peer, ':');
    return colon ? (size_t)(colon - peer) : strlen(peer);
}

/* FNV-1a: the registry key of an address; equal hosts are then compared
 * as text, so a collision only costs a comparison. */
static int64_t host_key(const char *peer, size_t len)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)peer[i]) * 1099511628211ULL;
    return (int64_t)(h >> 1);
}

/* Connections open from the same address as c (c not counted). */
static size_t same_host(const conn *c, int64_t key, size_t len)
{
    size_t n = 0;
    for (reg_node *k = reg_first(&c->net->by_addr, key); k; k = reg_next(k)) {
        const conn *o = k->val;
        if (host_len(o->peer) == len && memcmp(o->peer, c->peer, len) == 0)
            n++;
    }
    return n;
}

void conn_accepted(conn *c)
{
    net *n = c->net;
    metric_inc(n->m_accepted, strcmp(c->tp->name, "tcp") != 0, 0);
    c->tp->peer_name(c, c->peer, sizeof c->peer);
    if (n->hooks.open_cb(c) != 0) {
        conn_close(c);
        return;
    }
    if (n->nconns > n->max_conns) {
        log_warn("refusing %s: %zu connections", c->peer, n->nconns);
        send_error(c, QK_ERR_SERVER_BUSY, "too many connections");
        c->close_after_write = true;
        return;
    }
    size_t len = host_len(c->peer);
    int64_t key = host_key(c->peer, len);
    if (same_host(c, key, len) >= n->max_per_addr) {
        log_warn("refusing %s: %zu connections from that address", c->peer, n->max_per_addr);
        send_error(c, QK_ERR_SERVER_BUSY, "too many connections from your address");
        c->close_after_write = true;
        return;
    }
    c->addr_node = reg_add(&n->by_addr, key, c);
    if (!c->addr_node) {
        log_error("conn %llu: out of memory", (unsigned long long)c->serial);
        conn_close(c);
        return;
    }
    log_debug("conn %llu (%s, %s) accepted", (unsigned long long)c->serial, c->peer, c->tp->name);
    start_reading(c);
}
