/*
 * tcp: see tcp.h.
 */
#include "net/tcp.h"

#include <netdb.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "qk_frame.h"
#include "util/log.h"

/* Laid out for an idle connection's memory (docs/perf.md "Idle connection
 * memory"): the handle's data names the listener, and the frame exists
 * only while bytes of this connection are held. */
typedef struct tcp_conn {
    conn base;       /* first: a conn * is a tcp_conn * */
    uv_tcp_t tcp;    /* tcp.data: the tcp_listener */
    qk_frame *frame; /* the listener's during a read; between reads one of its
                      * own (allocated) while it holds bytes, else NULL */
} tcp_conn;

typedef struct write_req {
    uv_write_t req;
    tcp_conn *t;
    outmsg *msgs;
    size_t bytes;
} write_req;

static tcp_conn *tcp_of(conn *c)
{
    return (tcp_conn *)c;
}

static tcp_conn *tcp_of_handle(void *h)
{
    return (tcp_conn *)((char *)h - offsetof(tcp_conn, tcp));
}

static tcp_listener *listener_of(const tcp_conn *t)
{
    return t->tcp.data;
}

/* ---- the frame, only while it holds bytes ----------------------------- */

/* Whether f must outlive the read: bytes not taken yet, or a line over
 * the limit seen (reported again by the next qk_frame_next()). */
static bool frame_holds(const qk_frame *f)
{
    return qk_frame_pending(f) > 0 || f->poisoned;
}

/* Drop t's frame and what it holds. */
static void frame_drop(tcp_conn *t)
{
    if (!t->frame)
        return;
    qk_frame_free(t->frame);
    if (t->frame != &listener_of(t)->frame)
        free(t->frame);
    t->frame = NULL;
}

/* After a read (settled): the listener's frame goes back to it, and
 * what it still holds moves into a frame of t's own (its buffer is
 * already t's: the settle copied the bytes); an own frame that holds
 * nothing goes. -1 on allocation failure (the bytes are dropped). */
static int frame_keep(tcp_conn *t)
{
    qk_frame *shared = &listener_of(t)->frame;
    if (t->frame == shared) {
        if (!frame_holds(shared)) {
            t->frame = NULL;
            return 0;
        }
        qk_frame *own = malloc(sizeof *own);
        if (!own) {
            frame_drop(t);
            return -1;
        }
        *own = *shared;
        qk_frame_init(shared, 0); /* forget the moved buffer */
        t->frame = own;
        return 0;
    }
    if (t->frame && !frame_holds(t->frame))
        frame_drop(t);
    return 0;
}

/* ---- the transport ---------------------------------------------------- */

static int t_next(conn *c, char **msg, size_t *len)
{
    tcp_conn *t = tcp_of(c);
    if (!t->frame)
        return 0;
    int rc = qk_frame_next(t->frame, msg, len);
    /* Lines left for a later turn were taken (net_run_ready): the own
     * frame goes with its last byte. Not the listener's, which read_cb
     * settles. */
    if (rc == 0 && t->frame != &listener_of(t)->frame && !frame_holds(t->frame))
        frame_drop(t);
    return rc;
}

static void alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)suggested;
    tcp_listener *l = h->data;
    *buf = uv_buf_init(l->readbuf, sizeof l->readbuf);
}

static void read_cb(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    tcp_conn *t = tcp_of_handle(s);
    conn *c = &t->base;
    if (c->closing)
        return;
    if (nread == UV_EOF) {
        conn_input_end(c);
        return;
    }
    if (nread < 0) {
        log_debug("conn %llu: read: %s", (unsigned long long)c->serial, uv_strerror((int)nread));
        conn_close(c);
        return;
    }
    if (nread == 0)
        return;
    /* Lines are cut in the listener's buffer itself; what the core did
     * not take (an incomplete last line, or lines left for the next turn)
     * is copied into the connection's frame before the buffer is read
     * into again. */
    tcp_listener *l = s->data;
    if (!t->frame) {
        /* The listener's frame serves this read (a connection holds one
         * of its own only while bytes of it wait). */
        qk_frame_init(&l->frame, c->net->line_limit);
        t->frame = &l->frame;
    }
    int rc = qk_frame_lend(t->frame, buf->base, (size_t)nread);
    if (rc == QK_FRAME_ENOMEM)
        goto nomem;
    /* QK_FRAME_TOOLONG is reported again by qk_frame_next(). */
    conn_input(c);
    if (c->closing) {
        frame_drop(t); /* nothing is taken from a closing connection */
        return;
    }
    if (!t->frame)
        return; /* an own frame, emptied by the lines taken (t_next) */
    if (qk_frame_settle(t->frame) == QK_FRAME_ENOMEM || frame_keep(t) != 0)
        goto nomem;
    return;
nomem:
    log_error("conn %llu: out of memory buffering input", (unsigned long long)c->serial);
    frame_drop(t);
    conn_close(c);
}

static int t_read_start(conn *c)
{
    return uv_read_start((uv_stream_t *)&tcp_of(c)->tcp, alloc_cb, read_cb);
}

/* uv_read_stop() cannot fail on a TCP handle in libuv 1.x (it returns 0);
 * the result is still checked so a future error is seen. */
static void t_read_stop(conn *c)
{
    int rc = uv_read_stop((uv_stream_t *)&tcp_of(c)->tcp);
    if (rc < 0)
        log_warn("conn %llu: read stop: %s", (unsigned long long)c->serial, uv_strerror(rc));
}

/* Bytes the kernel holds for c that were not read yet (none when unknown). */
static bool t_unread(conn *c)
{
    uv_os_fd_t fd;
    int n = 0;
    if (uv_fileno((uv_handle_t *)&tcp_of(c)->tcp, &fd) != 0 || ioctl(fd, FIONREAD, &n) != 0)
        return false;
    return n > 0;
}

static void write_cb(uv_write_t *req, int status)
{
    write_req *w = (write_req *)req;
    conn *c = &w->t->base;
    size_t bytes = w->bytes;
    outmsg_free_list(w->msgs);
    free(w);
    conn_write_done(c, bytes, status);
}

static ssize_t t_write(conn *c, outmsg *msgs, size_t count, size_t bytes)
{
    tcp_conn *t = tcp_of(c);
    uv_buf_t stackbufs[64];
    uv_buf_t *bufs = count <= 64 ? stackbufs : malloc(count * sizeof *bufs);
    ssize_t rc = UV_ENOMEM;
    if (!bufs)
        goto fail;
    size_t i = 0;
    for (outmsg *m = msgs; m; m = m->next, i++)
        bufs[i] = uv_buf_init(m->ob->data, (unsigned)m->ob->len);
    size_t skip = 0; /* bytes already written by the try */
    if (conn_inflight(c) == 0) {
        int w = uv_try_write((uv_stream_t *)&t->tcp, bufs, (unsigned)count);
        if (w < 0 && w != UV_EAGAIN) {
            rc = w;
            goto fail;
        }
        skip = w > 0 ? (size_t)w : 0;
    }
    if (skip == bytes) {
        outmsg_free_list(msgs);
        if (bufs != stackbufs)
            free(bufs);
        return 0;
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
    write_req *w = malloc(sizeof *w);
    if (!w)
        goto fail;
    w->t = t;
    w->msgs = msgs;
    w->bytes = left;
    int wrc = uv_write(&w->req, (uv_stream_t *)&t->tcp, bufs + first, (unsigned)(count - first),
                       write_cb);
    if (bufs != stackbufs)
        free(bufs);
    if (wrc < 0) {
        free(w);
        outmsg_free_list(msgs);
        return wrc;
    }
    return (ssize_t)left;
fail:
    if (bufs != stackbufs)
        free(bufs);
    outmsg_free_list(msgs);
    return rc;
}

static void shutdown_cb(uv_shutdown_t *req, int status)
{
    conn *c = req->data;
    free(req);
    conn_shutdown_done(c, status);
}

/* The request is allocated here, not kept in every tcp_conn: only a
 * stopping server shuts connections down. */
static int t_shutdown(conn *c)
{
    tcp_conn *t = tcp_of(c);
    uv_shutdown_t *req = malloc(sizeof *req);
    if (!req)
        return UV_ENOMEM;
    req->data = c;
    int rc = uv_shutdown(req, (uv_stream_t *)&t->tcp, shutdown_cb);
    if (rc < 0)
        free(req);
    return rc;
}

static void close_cb(uv_handle_t *h)
{
    conn_closed(&tcp_of_handle(h)->base);
}

static void t_close(conn *c)
{
    uv_close((uv_handle_t *)&tcp_of(c)->tcp, close_cb);
}

static void t_free(conn *c)
{
    tcp_conn *t = tcp_of(c);
    frame_drop(t);
    free(t);
}

/* An IPv4-mapped peer of a dual-stack listener keeps its IPv6 form, as
 * its name always had over TCP. */
static void t_peer_addr(conn *c, conn_addr *out)
{
    struct sockaddr_storage ss;
    int len = sizeof ss;
    bool ok = uv_tcp_getpeername(&tcp_of(c)->tcp, (struct sockaddr *)&ss, &len) == 0;
    conn_addr_set(out, ok ? (struct sockaddr *)&ss : NULL, false);
}

static const transport tcp_transport = {
    .name = "tcp",
    .next = t_next,
    .read_start = t_read_start,
    .read_stop = t_read_stop,
    .unread = t_unread,
    .write = t_write,
    .shutdown = t_shutdown,
    .close = t_close,
    .free_conn = t_free,
    .peer_addr = t_peer_addr,
    .size = sizeof(tcp_conn),
};

size_t tcp_input_pending(const conn *c)
{
    const tcp_conn *t = (const tcp_conn *)c;
    return c->tp == &tcp_transport && t->frame ? qk_frame_pending(t->frame) : 0;
}

size_t tcp_input_heap(const conn *c)
{
    const tcp_conn *t = (const tcp_conn *)c;
    return c->tp == &tcp_transport && t->frame ? qk_frame_heap(t->frame) : 0;
}

bool tcp_input_holds_frame(const conn *c)
{
    return c->tp == &tcp_transport && ((const tcp_conn *)c)->frame != NULL;
}

/* ---- the listener ----------------------------------------------------- */

static void refuse_close_cb(uv_handle_t *h)
{
    free(h);
}

static void connection_cb(uv_stream_t *server, int status)
{
    tcp_listener *l = server->data;
    net *n = l->net;
    if (status < 0) {
        log_warn("accept: %s", uv_strerror(status));
        return;
    }
    tcp_conn *t = calloc(1, conn_alloc_size(n, &tcp_transport));
    if (!t) {
        /* Take the connection off the backlog anyway so the loop does not
         * spin on it. */
        uv_tcp_t *h = malloc(sizeof *h);
        if (h && uv_tcp_init(n->loop, h) == 0) {
            uv_accept(server, (uv_stream_t *)h);
            uv_close((uv_handle_t *)h, refuse_close_cb);
        } else {
            free(h);
        }
        return;
    }
    int rc = uv_tcp_init(n->loop, &t->tcp);
    if (rc < 0) {
        log_error("tcp init: %s", uv_strerror(rc));
        free(t);
        return;
    }
    t->tcp.data = l;
    conn *c = &t->base;
    conn_init(c, n, &tcp_transport);
    rc = uv_accept(server, (uv_stream_t *)&t->tcp);
    if (rc < 0) {
        log_warn("accept: %s", uv_strerror(rc));
        conn_close(c);
        return;
    }
    rc = uv_tcp_nodelay(&t->tcp, 1);
    if (rc < 0)
        log_debug("conn %llu: nodelay: %s", (unsigned long long)c->serial, uv_strerror(rc));
    conn_accepted(c);
}

int tcp_listen(tcp_listener *l, net *n, const char *host, int port, int *bound_port)
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
    l->net = n;
    int rc = uv_tcp_init(n->loop, &l->handle);
    if (rc < 0)
        goto out_ai;
    l->handle.data = l;
    rc = uv_tcp_bind(&l->handle, ai->ai_addr, 0);
    if (rc < 0)
        goto out_close;
    rc = uv_listen((uv_stream_t *)&l->handle, 511, connection_cb);
    if (rc < 0)
        goto out_close;
    struct sockaddr_storage ss;
    int len = sizeof ss;
    rc = uv_tcp_getsockname(&l->handle, (struct sockaddr *)&ss, &len);
    if (rc < 0)
        goto out_close;
    *bound_port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                                 : ((struct sockaddr_in *)&ss)->sin_port);
    l->listening = true;
    freeaddrinfo(ai);
    return 0;
out_close:
    uv_close((uv_handle_t *)&l->handle, NULL);
out_ai:
    freeaddrinfo(ai);
    log_error("cannot listen on %s:%d: %s", host, port, uv_strerror(rc));
    return rc;
}

void tcp_stop_listening(tcp_listener *l)
{
    if (!l->listening)
        return;
    l->listening = false;
    uv_close((uv_handle_t *)&l->handle, NULL);
}
