/*
 * conn: see conn.h. Everything here goes through the transport's vtable
 * (transport.h) for I/O; a flush hands each dirty connection's whole held
 * queue to one transport write.
 */
#include "net/conn.h"

#include <netinet/in.h>
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
    if (c->out) {
        outmsg_free_list(c->out->held);
        free(c->out);
    }
    c->tp->free_conn(c);
}

/* ---- the output side -------------------------------------------------- */

/* c's output side, allocated when first needed; NULL on allocation
 * failure. */
static conn_out *out_get(conn *c)
{
    if (!c->out) {
        c->out = calloc(1, sizeof *c->out);
        if (c->out)
            c->out->held_tail = &c->out->held;
    }
    return c->out;
}

/* Free c's output side once it holds nothing: an idle connection costs
 * only its struct. Called where output or waiting lines may have ended. */
static void out_release(conn *c)
{
    conn_out *o = c->out;
    if (o && !o->held && o->inflight_bytes == 0 && !c->dirty && !c->ready) {
        free(o);
        c->out = NULL;
    }
}

bool conn_output_pending(const conn *c)
{
    return c->out && (c->out->held || c->out->inflight_bytes > 0);
}

size_t conn_inflight(const conn *c)
{
    return c->out ? c->out->inflight_bytes : 0;
}

static void dirty_unlink(conn *c)
{
    if (!c->dirty)
        return;
    conn_out *o = c->out;
    if (o->dirty_prev)
        o->dirty_prev->out->dirty_next = o->dirty_next;
    else
        c->net->dirty = o->dirty_next;
    if (o->dirty_next)
        o->dirty_next->out->dirty_prev = o->dirty_prev;
    o->dirty_next = o->dirty_prev = NULL;
    c->dirty = false;
}

/* c->out exists (it holds output). */
static void dirty_link(conn *c)
{
    if (c->dirty)
        return;
    conn_out *o = c->out;
    o->dirty_prev = NULL;
    o->dirty_next = c->net->dirty;
    if (o->dirty_next)
        o->dirty_next->out->dirty_prev = c;
    c->net->dirty = c;
    c->dirty = true;
}

static void ready_unlink(conn *c)
{
    if (!c->ready)
        return;
    conn_out *o = c->out;
    if (o->ready_prev)
        o->ready_prev->out->ready_next = o->ready_next;
    else
        c->net->ready_head = o->ready_next;
    if (o->ready_next)
        o->ready_next->out->ready_prev = o->ready_prev;
    else
        c->net->ready_tail = o->ready_prev;
    o->ready_next = o->ready_prev = NULL;
    c->ready = false;
}

/* To the back of the list: connections take turns in the order they ran
 * out of budget, so none waits more than one pass. With no memory for
 * the list's links c is closed. */
static void ready_add(conn *c)
{
    if (c->ready || c->closing)
        return;
    net *n = c->net;
    conn_out *o = out_get(c);
    if (!o) {
        log_error("conn %llu: out of memory", (unsigned long long)c->serial);
        conn_close(c);
        return;
    }
    c->ready = true;
    o->ready_seq = n->ready_seq;
    o->ready_next = NULL;
    o->ready_prev = n->ready_tail;
    if (n->ready_tail)
        n->ready_tail->out->ready_next = c;
    else
        n->ready_head = c;
    n->ready_tail = c;
}

static size_t out_pending(const conn *c)
{
    return c->out ? c->out->held_bytes + c->out->inflight_bytes : 0;
}

/* ---- addresses -------------------------------------------------------- */

/* FNV-1a over the family and the address bytes (not the port). */
static uint64_t addr_hash(const conn_addr *a)
{
    uint64_t h = 1469598103934665603ULL;
    h = (h ^ a->family) * 1099511628211ULL;
    for (size_t i = 0; i < sizeof a->bytes; i++)
        h = (h ^ a->bytes[i]) * 1099511628211ULL;
    return h;
}

/* The same host (conn_addr_set zeroes what a family does not use). */
static bool addr_same(const conn_addr *a, const conn_addr *b)
{
    return a->family == b->family && memcmp(a->bytes, b->bytes, sizeof a->bytes) == 0;
}

static conn **addr_bucket(const net *n, const conn_addr *a)
{
    return &n->addr_buckets[addr_hash(a) & (n->addr_nbuckets - 1)];
}

/* Double the table (16 buckets at first). On allocation failure the old
 * one stays, longer chains; -1 only when there is none at all. */
static int addr_grow(net *n)
{
    size_t nb = n->addr_nbuckets ? n->addr_nbuckets * 2 : 16;
    conn **v = calloc(nb, sizeof *v);
    if (!v)
        return n->addr_nbuckets ? 0 : -1;
    conn **old = n->addr_buckets;
    size_t oldn = n->addr_nbuckets;
    n->addr_buckets = v;
    n->addr_nbuckets = nb;
    for (size_t i = 0; i < oldn; i++)
        for (conn *c = old[i], *next; c; c = next) {
            next = c->addr_next;
            conn **b = addr_bucket(n, &c->peer);
            c->addr_prev = NULL;
            c->addr_next = *b;
            if (*b)
                (*b)->addr_prev = c;
            *b = c;
        }
    free(old);
    return 0;
}

/* Put c on the chain of its peer's address: 0, or -1 on allocation
 * failure. */
static int addr_link(conn *c)
{
    net *n = c->net;
    if (n->addr_count >= 2 * n->addr_nbuckets && addr_grow(n) != 0)
        return -1;
    conn **b = addr_bucket(n, &c->peer);
    c->addr_prev = NULL;
    c->addr_next = *b;
    if (*b)
        (*b)->addr_prev = c;
    *b = c;
    c->in_addr = true;
    n->addr_count++;
    return 0;
}

static void addr_unlink(conn *c)
{
    if (!c->in_addr)
        return;
    net *n = c->net;
    if (c->addr_prev)
        c->addr_prev->addr_next = c->addr_next;
    else
        *addr_bucket(n, &c->peer) = c->addr_next;
    if (c->addr_next)
        c->addr_next->addr_prev = c->addr_prev;
    c->addr_next = c->addr_prev = NULL;
    c->in_addr = false;
    n->addr_count--;
}

/* Connections open from the same host as c (c, not linked yet, not
 * counted). */
static size_t same_host(const conn *c)
{
    const net *n = c->net;
    if (!n->addr_nbuckets)
        return 0;
    size_t count = 0;
    for (const conn *o = *addr_bucket(n, &c->peer); o; o = o->addr_next)
        count += addr_same(&o->peer, &c->peer);
    return count;
}

void conn_addr_set(conn_addr *a, const struct sockaddr *sa, bool unmap_v4)
{
    memset(a, 0, sizeof *a);
    if (sa && sa->sa_family == AF_INET) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)sa;
        memcpy(a->bytes, &v4->sin_addr, 4);
        a->port = ntohs(v4->sin_port);
        a->family = CONN_ADDR_V4;
    } else if (sa && sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)sa;
        a->port = ntohs(v6->sin6_port);
        if (unmap_v4 && IN6_IS_ADDR_V4MAPPED(&v6->sin6_addr)) {
            memcpy(a->bytes, &v6->sin6_addr.s6_addr[12], 4);
            a->family = CONN_ADDR_V4;
        } else {
            memcpy(a->bytes, &v6->sin6_addr, 16);
            a->family = CONN_ADDR_V6;
        }
    }
}

/* The text the transports made before the address was kept in binary
 * (uv_ip4_name / uv_ip6_name, then ":port"), so logs read the same. */
const char *conn_peer(const conn *c, char buf[CONN_PEER_MAX])
{
    char host[48] = "?";
    const conn_addr *a = &c->peer;
    if (a->family == CONN_ADDR_V4) {
        struct sockaddr_in sa = {.sin_family = AF_INET};
        memcpy(&sa.sin_addr, a->bytes, 4);
        uv_ip4_name(&sa, host, sizeof host);
    } else if (a->family == CONN_ADDR_V6) {
        struct sockaddr_in6 sa = {.sin6_family = AF_INET6};
        memcpy(&sa.sin6_addr, a->bytes, 16);
        uv_ip6_name(&sa, host, sizeof host);
    } else {
        snprintf(buf, CONN_PEER_MAX, "?");
        return buf;
    }
    snprintf(buf, CONN_PEER_MAX, "%s:%u", host, (unsigned)a->port);
    return buf;
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
    if (c->out) {
        conn_out *o = c->out;
        outmsg_free_list(o->held);
        o->held = NULL;
        o->held_tail = &o->held;
        o->held_bytes = o->held_count = 0;
        out_release(c); /* kept while bytes are in flight (conn_write_done) */
    }
    if (c->prev)
        c->prev->next = c->next;
    else
        n->all = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->next = c->prev = NULL;
    n->nconns--;
    addr_unlink(c);
    char peer[CONN_PEER_MAX];
    if (log_enabled(LOG_DEBUG)) /* the name is made only for the line */
        log_debug("conn %llu (%s) closed", (unsigned long long)c->serial, conn_peer(c, peer));
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
    free(n->addr_buckets);
    n->addr_buckets = NULL;
    n->addr_nbuckets = n->addr_count = 0;
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
        c->ready || c->out_blocked || c->dirty || conn_output_pending(c))
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
    if (!c->closing && c->close_after_write && !conn_output_pending(c))
        conn_close(c);
}

int conn_send(conn *c, outbuf *ob, unsigned flags, const cJSON *id)
{
    if (c->closing || c->shutting)
        return -1;
    /* One message bigger than the cap may go out alone; an event queued
     * behind others counts against the cap; an answer never does. */
    size_t pending = out_pending(c);
    if (!(flags & CONN_MSG_REPLY) && pending > 0 && pending + ob->len > c->net->out_limit) {
        char peer[CONN_PEER_MAX];
        log_warn("conn %llu (%s): %zu bytes of output pending, disconnecting",
                 (unsigned long long)c->serial, conn_peer(c, peer), pending);
        conn_close(c);
        return -1;
    }
    conn_out *o = out_get(c);
    if (!o)
        goto fail;
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
    *o->held_tail = m;
    o->held_tail = &m->next;
    o->held_bytes += ob->len;
    o->held_count++;
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
    if (c->out) /* kept while bytes are in flight */
        c->out->inflight_bytes -= bytes;
    if (status < 0) {
        if (status != UV_ECANCELED)
            log_debug("conn %llu: write: %s", (unsigned long long)c->serial, uv_strerror(status));
        conn_close(c);
        out_release(c);
        return;
    }
    out_unblock(c);
    maybe_finish(c);
    drain_check(c);
    out_release(c);
}

/* Hand the durable prefix of c's held queue to the transport; what waits
 * for a later epoch stays held (and c dirty). */
static void conn_write_out(conn *c);

/* c was dirty, so it has its output side unless it was closed since. */
static void conn_write(conn *c)
{
    if (!c->out)
        return; /* closed by another connection's write in the same flush */
    conn_write_out(c);
    out_release(c);
}

static void conn_write_out(conn *c)
{
    conn_out *o = c->out;
    uint64_t durable = c->net->durable_epoch;
    outmsg *msgs = o->held, **cut = &o->held;
    size_t count = 0, bytes = 0;
    while (*cut && (*cut)->epoch <= durable) {
        count++;
        bytes += (*cut)->ob->len;
        cut = &(*cut)->next;
    }
    outmsg *rest = *cut;
    *cut = NULL; /* ends the prefix (clears o->held when the prefix is empty) */
    o->held = rest;
    if (!o->held)
        o->held_tail = &o->held;
    o->held_count -= count;
    o->held_bytes -= bytes;
    if (o->held)
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
    o->inflight_bytes += (size_t)left;
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
    for (conn *c = n->dirty; c; c = c->out->dirty_next)
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
    for (conn *c = n->dirty; c; c = c->out->dirty_next)
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
    while ((c = n->ready_head) && c->out->ready_seq != seq) {
        ready_unlink(c);
        conn_process(c);
    }
}

void net_fail_txn(net *n, const char *message)
{
    for (conn *c = n->dirty; c; c = c->out->dirty_next) {
        conn_out *o = c->out;
        outmsg **pp = &o->held;
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
            o->held_bytes -= m->ob->len;
            outbuf_unref(m->ob);
            cJSON_Delete(m->txn_id);
            m->txn_id = NULL;
            m->flags = CONN_MSG_REPLY;
            m->epoch = 0;
            if (repl) {
                m->ob = repl;
                o->held_bytes += repl->len;
                pp = &m->next;
            } else {
                /* An event, or no memory for the error: drop it. */
                *pp = m->next;
                o->held_count--;
                free(m);
            }
        }
        o->held_tail = pp;
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

static void process_lines(conn *c);

/* Hand buffered complete lines to the upper layer until it pauses or
 * closes us, the turn's budget is spent or the output is over the soft
 * limit; the output side goes if that left it empty. */
static void conn_process(conn *c)
{
    process_lines(c);
    out_release(c);
}

static void process_lines(conn *c)
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
            char peer[CONN_PEER_MAX];
            log_info("conn %llu (%s): line too long, closing", (unsigned long long)c->serial,
                     conn_peer(c, peer));
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

/* Where the upper layer's bytes start behind the transport's struct. */
static size_t data_offset(const transport *tp)
{
    return (tp->size + CONN_DATA_ALIGN - 1) / CONN_DATA_ALIGN * CONN_DATA_ALIGN;
}

size_t conn_alloc_size(const net *n, const transport *tp)
{
    return data_offset(tp) + n->hooks.data_size;
}

void conn_init(conn *c, net *n, const transport *tp)
{
    c->tp = tp;
    c->net = n;
    c->refs = 1; /* released by conn_closed() */
    c->serial = n->next_serial++;
    c->last_out = uv_now(n->loop);
    if (n->hooks.data_size)
        c->data = (char *)c + data_offset(tp);
    c->next = n->all;
    if (n->all)
        n->all->prev = c;
    n->all = c;
    n->nconns++;
}

void conn_accepted(conn *c)
{
    net *n = c->net;
    metric_inc(n->m_accepted, strcmp(c->tp->name, "tcp") != 0, 0);
    c->tp->peer_addr(c, &c->peer);
    char peer[CONN_PEER_MAX];
    if (n->hooks.open_cb(c) != 0) {
        conn_close(c);
        return;
    }
    if (n->nconns > n->max_conns) {
        log_warn("refusing %s: %zu connections", conn_peer(c, peer), n->nconns);
        send_error(c, QK_ERR_SERVER_BUSY, "too many connections");
        c->close_after_write = true;
        return;
    }
    if (same_host(c) >= n->max_per_addr) {
        log_warn("refusing %s: %zu connections from that address", conn_peer(c, peer),
                 n->max_per_addr);
        send_error(c, QK_ERR_SERVER_BUSY, "too many connections from your address");
        c->close_after_write = true;
        return;
    }
    if (addr_link(c) != 0) {
        log_error("conn %llu: out of memory", (unsigned long long)c->serial);
        conn_close(c);
        return;
    }
    if (log_enabled(LOG_DEBUG))
        log_debug("conn %llu (%s, %s) accepted", (unsigned long long)c->serial, conn_peer(c, peer),
                  c->tp->name);
    start_reading(c);
}
