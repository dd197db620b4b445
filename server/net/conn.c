/*
 * conn: see conn.h. Reading uses one 64 KiB buffer per net (the loop
 * thread reads one socket at a time) and copies into the connection's
 * frame, so an idle connection costs no read buffer. Writing gathers the
 * held messages into one iovec: uv_try_write first (usually everything
 * goes out at once), uv_write for what is left, which keeps the order
 * because a try is only made when nothing is in flight.
 */
#include "net/conn.h"

#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "util/log.h"
#include "qk_proto.h"

typedef struct write_req {
    uv_write_t req;
    conn *c;
    outmsg *msgs;
    size_t bytes;
} write_req;

outbuf *outbuf_from_json(const cJSON *msg)
{
    size_t len;
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

static void msgs_free(outmsg *m)
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
    msgs_free(c->held);
    qk_frame_free(&c->frame);
    free(c);
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

/* uv_read_stop() cannot fail on a TCP handle in libuv 1.x (it returns 0);
 * the result is still checked so a future error is seen. */
static void stop_reading(conn *c)
{
    if (!c->reading)
        return;
    c->reading = false;
    int rc = uv_read_stop((uv_stream_t *)&c->tcp);
    if (rc < 0)
        log_warn("conn %llu: read stop: %s", (unsigned long long)c->serial, uv_strerror(rc));
}

static void close_cb(uv_handle_t *h)
{
    conn_unref(h->data);
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
    msgs_free(c->held);
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
    log_debug("conn %llu (%s) closed", (unsigned long long)c->serial, c->peer);
    if (n->hooks.close_cb)
        n->hooks.close_cb(c);
    uv_close((uv_handle_t *)&c->tcp, close_cb);
}

void net_close_all(net *n)
{
    while (n->all)
        conn_close(n->all);
}

/* ---- ending connections on stop --------------------------------------- */

static void shutdown_cb(uv_shutdown_t *req, int status)
{
    conn *c = req->data;
    if (status < 0 && status != UV_ECANCELED)
        log_debug("conn %llu: shutdown: %s", (unsigned long long)c->serial, uv_strerror(status));
    conn_close(c);
    conn_unref(c);
}

/* Bytes the kernel holds for c that were not read yet (0 when unknown). */
static int unread_bytes(conn *c)
{
    uv_os_fd_t fd;
    int n = 0;
    if (uv_fileno((uv_handle_t *)&c->tcp, &fd) != 0 || ioctl(fd, FIONREAD, &n) != 0)
        return 0;
    return n;
}

/* While stopping: end c once it is quiet (net_shutdown). Unread input
 * keeps it open: it is read, and answered, first. */
static void drain_check(conn *c)
{
    if (!c->net->stopping || c->closing || c->shutting || c->processing || c->paused > 0 ||
        c->ready || c->out_blocked || c->dirty || c->held_count > 0 || c->inflight_bytes > 0)
        return;
    if (!c->eof && c->reading && unread_bytes(c) > 0)
        return;
    c->shutting = true;
    stop_reading(c);
    c->shut.data = c;
    conn_ref(c);
    int rc = uv_shutdown(&c->shut, (uv_stream_t *)&c->tcp, shutdown_cb);
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
    /* One message bigger than the cap (a long login result) may go out
     * alone; anything queued behind others counts against the cap. */
    size_t pending = c->held_bytes + c->inflight_bytes;
    if (pending > 0 && pending + ob->len > c->net->out_limit) {
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

static void write_cb(uv_write_t *req, int status)
{
    write_req *w = (write_req *)req;
    conn *c = w->c;
    c->inflight_bytes -= w->bytes;
    msgs_free(w->msgs);
    free(w);
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

/* Hand c's held queue to the socket. */
static void conn_write(conn *c)
{
    outmsg *msgs = c->held;
    size_t count = c->held_count, bytes = c->held_bytes;
    c->held = NULL;
    c->held_tail = &c->held;
    c->held_count = c->held_bytes = 0;
    if (count == 0) {
        maybe_finish(c);
        drain_check(c);
        return;
    }
    c->last_out = uv_now(c->net->loop);
    uv_buf_t stackbufs[64];
    uv_buf_t *bufs = count <= 64 ? stackbufs : malloc(count * sizeof *bufs);
    write_req *w = NULL;
    if (!bufs)
        goto fail;
    size_t i = 0;
    for (outmsg *m = msgs; m; m = m->next, i++)
        bufs[i] = uv_buf_init(m->ob->data, (unsigned)m->ob->len);
    size_t skip = 0; /* bytes already written by the try */
    if (c->inflight_bytes == 0) {
        int rc = uv_try_write((uv_stream_t *)&c->tcp, bufs, (unsigned)count);
        if (rc < 0 && rc != UV_EAGAIN) {
            log_debug("conn %llu: write: %s", (unsigned long long)c->serial, uv_strerror(rc));
            goto fail;
        }
        skip = rc > 0 ? (size_t)rc : 0;
    }
    if (skip == bytes) {
        msgs_free(msgs);
        if (bufs != stackbufs)
            free(bufs);
        out_unblock(c);
        maybe_finish(c);
        drain_check(c);
        return;
    }
    /* Trim what the try wrote; uv_write copies the iovec array. */
    size_t first = 0;
    while (skip >= bufs[first].len) {
        skip -= bufs[first].len;
        first++;
    }
    bufs[first].base += skip;
    bufs[first].len -= skip;
    size_t left = 0;
    for (size_t k = first; k < count; k++)
        left += bufs[k].len;
    w = malloc(sizeof *w);
    if (!w)
        goto fail;
    w->c = c;
    w->msgs = msgs;
    w->bytes = left;
    int rc = uv_write(&w->req, (uv_stream_t *)&c->tcp, bufs + first, (unsigned)(count - first),
                      write_cb);
    if (bufs != stackbufs)
        free(bufs);
    if (rc < 0) {
        log_debug("conn %llu: write: %s", (unsigned long long)c->serial, uv_strerror(rc));
        free(w);
        msgs_free(msgs);
        conn_close(c);
        return;
    }
    c->inflight_bytes += left;
    out_unblock(c);
    return;
fail:
    if (bufs != stackbufs)
        free(bufs);
    msgs_free(msgs);
    conn_close(c);
}

void net_flush(net *n)
{
    while (n->dirty) {
        conn *c = n->dirty;
        dirty_unlink(c);
        conn_write(c);
    }
    n->turn++;
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
            if (!(m->flags & CONN_MSG_TXN)) {
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
            m->flags = 0;
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
        conn_send_json(c, err, 0, NULL);
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
        int rc = qk_frame_next(&c->frame, &line, &len);
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

static void alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)suggested;
    conn *c = h->data;
    *buf = uv_buf_init(c->net->readbuf, sizeof c->net->readbuf);
}

static void read_cb(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    conn *c = s->data;
    (void)buf;
    if (c->closing)
        return;
    if (nread == UV_EOF) {
        c->eof = true;
        stop_reading(c);
        conn_process(c);
        return;
    }
    if (nread < 0) {
        log_debug("conn %llu: read: %s", (unsigned long long)c->serial, uv_strerror((int)nread));
        conn_close(c);
        return;
    }
    if (nread == 0)
        return;
    int rc = qk_frame_push(&c->frame, buf->base, (size_t)nread);
    if (rc == QK_FRAME_ENOMEM) {
        log_error("conn %llu: out of memory buffering input", (unsigned long long)c->serial);
        conn_close(c);
        return;
    }
    /* QK_FRAME_TOOLONG is reported again by qk_frame_next(). */
    conn_process(c);
}

static int start_reading(conn *c)
{
    if (c->reading || c->closing)
        return 0;
    int rc = uv_read_start((uv_stream_t *)&c->tcp, alloc_cb, read_cb);
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

static void peer_name(conn *c)
{
    struct sockaddr_storage ss;
    int len = sizeof ss;
    snprintf(c->peer, sizeof c->peer, "?");
    if (uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&ss, &len) != 0)
        return;
    char host[48] = "?";
    int port = 0;
    if (ss.ss_family == AF_INET) {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        uv_ip4_name(a, host, sizeof host);
        port = ntohs(a->sin_port);
    } else if (ss.ss_family == AF_INET6) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        uv_ip6_name(a, host, sizeof host);
        port = ntohs(a->sin6_port);
    }
    snprintf(c->peer, sizeof c->peer, "%s:%d", host, port);
}

static void refuse_close_cb(uv_handle_t *h)
{
    free(h);
}

static void connection_cb(uv_stream_t *server, int status)
{
    net *n = server->data;
    if (status < 0) {
        log_warn("accept: %s", uv_strerror(status));
        return;
    }
    conn *c = calloc(1, sizeof *c);
    if (!c) {
        /* Take the connection off the backlog anyway so the loop does not
         * spin on it. */
        uv_tcp_t *t = malloc(sizeof *t);
        if (t && uv_tcp_init(n->loop, t) == 0) {
            uv_accept(server, (uv_stream_t *)t);
            uv_close((uv_handle_t *)t, refuse_close_cb);
        } else {
            free(t);
        }
        return;
    }
    int rc = uv_tcp_init(n->loop, &c->tcp);
    if (rc < 0) {
        log_error("tcp init: %s", uv_strerror(rc));
        free(c);
        return;
    }
    c->tcp.data = c;
    c->net = n;
    c->refs = 1; /* released by close_cb */
    c->serial = n->next_serial++;
    c->last_out = uv_now(n->loop);
    c->held_tail = &c->held;
    qk_frame_init(&c->frame, n->line_limit);
    c->next = n->all;
    if (n->all)
        n->all->prev = c;
    n->all = c;
    n->nconns++;
    rc = uv_accept(server, (uv_stream_t *)&c->tcp);
    if (rc < 0) {
        log_warn("accept: %s", uv_strerror(rc));
        conn_close(c);
        return;
    }
    /* Answers are whole lines written at once: no reason to delay them. */
    rc = uv_tcp_nodelay(&c->tcp, 1);
    if (rc < 0)
        log_debug("conn %llu: nodelay: %s", (unsigned long long)c->serial, uv_strerror(rc));
    peer_name(c);
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
    log_debug("conn %llu (%s) accepted", (unsigned long long)c->serial, c->peer);
    start_reading(c);
}

int net_listen(net *n, const char *host, int port, int *bound_port)
{
    struct addrinfo hints = {0}, *ai = NULL;
    char portstr[16];
    snprintf(portstr, sizeof portstr, "%d", port);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    int grc = getaddrinfo(host, portstr, &hints, &ai);
    if (grc != 0) {
        log_error("cannot resolve %s: %s", host, gai_strerror(grc));
        return UV_EINVAL;
    }
    int rc = uv_tcp_init(n->loop, &n->listener);
    if (rc < 0)
        goto out_ai;
    n->listener.data = n;
    rc = uv_tcp_bind(&n->listener, ai->ai_addr, 0);
    if (rc < 0)
        goto out_close;
    rc = uv_listen((uv_stream_t *)&n->listener, 511, connection_cb);
    if (rc < 0)
        goto out_close;
    struct sockaddr_storage ss;
    int len = sizeof ss;
    rc = uv_tcp_getsockname(&n->listener, (struct sockaddr *)&ss, &len);
    if (rc < 0)
        goto out_close;
    *bound_port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                                 : ((struct sockaddr_in *)&ss)->sin_port);
    n->listening = true;
    freeaddrinfo(ai);
    return 0;
out_close:
    uv_close((uv_handle_t *)&n->listener, NULL);
out_ai:
    freeaddrinfo(ai);
    log_error("cannot listen on %s:%d: %s", host, port, uv_strerror(rc));
    return rc;
}

void net_stop_listening(net *n)
{
    if (!n->listening)
        return;
    n->listening = false;
    uv_close((uv_handle_t *)&n->listener, NULL);
}
