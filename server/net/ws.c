/*
 * ws: see ws.h. This file: the listener, each socket's life (accept, the
 * one read callback, deadlines, the lingering close), the HTTP phase over
 * net/http.h with its route table, and the WebSocket opening handshake.
 * The WebSocket transport itself is ws_conn.c.
 */
#include "net/ws.h"

#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <nettle/sha1.h>
#include <sodium.h>

#include "net/web_files.h"
#include "net/ws_int.h"
#include "util/log.h"

size_t ws_sock_size(void)
{
    return sizeof(ws_sock);
}

/* ---- deadlines ---------------------------------------------------------- */

static void dl_timer_cb(uv_timer_t *t);

static void dl_start_timer(ws_deadlines *dl)
{
    if (!dl->head)
        return;
    uint64_t now = uv_now(dl->timer.loop);
    uint64_t in = dl->head->dl_at > now ? dl->head->dl_at - now : 0;
    int rc = uv_timer_start(&dl->timer, dl_timer_cb, in, 0);
    if (rc < 0)
        log_error("ws timer: %s", uv_strerror(rc));
}

void ws_dl_cancel(ws_sock *w)
{
    ws_deadlines *dl = w->dl;
    if (!dl)
        return;
    if (w->dl_prev)
        w->dl_prev->dl_next = w->dl_next;
    else
        dl->head = w->dl_next;
    if (w->dl_next)
        w->dl_next->dl_prev = w->dl_prev;
    else
        dl->tail = w->dl_prev;
    w->dl = NULL;
    w->dl_next = w->dl_prev = NULL;
    /* The timer may fire for a head that left: it then finds nothing due
     * and starts again for the new head. */
}

void ws_dl_arm(ws_deadlines *dl, ws_sock *w)
{
    ws_dl_cancel(w);
    if (w->srv->stopped || w->handle_closing)
        return;
    bool was_empty = !dl->head;
    w->dl = dl;
    w->dl_at = uv_now(dl->timer.loop) + dl->bound_ms;
    w->dl_next = NULL;
    w->dl_prev = dl->tail;
    if (dl->tail)
        dl->tail->dl_next = w;
    else
        dl->head = w;
    dl->tail = w;
    if (was_empty)
        dl_start_timer(dl);
}

static void dl_timer_cb(uv_timer_t *t)
{
    ws_deadlines *dl = t->data;
    uint64_t now = uv_now(t->loop);
    /* Each socket due is taken off first; expired() may put it back (at
     * the tail, with a later deadline), so the walk stops at the first
     * socket not due. */
    ws_sock *w;
    while ((w = dl->head) && w->dl_at <= now) {
        ws_dl_cancel(w);
        dl->expired(w);
    }
    dl_start_timer(dl);
}

/* ---- sockets ------------------------------------------------------------- */

void ws_sock_free_bufs(ws_sock *w)
{
    free(w->req);
    w->req = NULL;
    free(w->pend);
    w->pend = NULL;
    w->pend_len = 0;
    free(w->body);
    w->body = NULL;
}

static void sock_close_cb(uv_handle_t *h)
{
    ws_sock *w = h->data;
    ws_server *s = w->srv;
    ws_dl_cancel(w);
    if (w->prev)
        w->prev->next = w->next;
    else
        s->socks = w->next;
    if (w->next)
        w->next->prev = w->prev;
    s->nsocks--;
    if (w->upgraded) {
        conn_closed(&w->base); /* the core frees w with its last reference */
        return;
    }
    ws_sock_free_bufs(w);
    free(w);
}

void ws_sock_close(ws_sock *w)
{
    if (w->handle_closing)
        return;
    w->handle_closing = true;
    ws_dl_cancel(w);
    uv_close((uv_handle_t *)&w->tcp, sock_close_cb);
}

static void alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)suggested;
    ws_sock *w = h->data;
    *buf = uv_buf_init(w->srv->readbuf, sizeof w->srv->readbuf);
}

static void http_read(ws_sock *w, ssize_t nread, const char *data);

static void read_cb(uv_stream_t *st, ssize_t nread, const uv_buf_t *buf)
{
    ws_sock *w = st->data;
    if (w->handle_closing || nread == 0)
        return;
    switch (w->phase) {
    case WS_PHASE_HTTP:
        http_read(w, nread, buf->base);
        break;
    case WS_PHASE_OPEN:
        ws_conn_read(w, nread, buf->base);
        break;
    default:
        /* Lingering: what comes is dropped; the peer's EOF ends it. */
        if (nread < 0) {
            w->linger_eof = true;
            ws_sock_close(w);
        }
        break;
    }
}

int ws_sock_read_start(ws_sock *w)
{
    if (w->handle_closing)
        return UV_EINVAL;
    int rc = uv_read_start((uv_stream_t *)&w->tcp, alloc_cb, read_cb);
    return rc == UV_EALREADY ? 0 : rc;
}

/* uv_read_stop() cannot fail on a TCP handle in libuv 1.x; checked anyway. */
void ws_sock_read_stop(ws_sock *w)
{
    if (w->handle_closing)
        return;
    int rc = uv_read_stop((uv_stream_t *)&w->tcp);
    if (rc < 0)
        log_warn("ws: read stop: %s", uv_strerror(rc));
}

static void write_cb(uv_write_t *req, int status)
{
    ws_wreq *r = (ws_wreq *)req;
    ws_sock *w = r->w;
    void (*done)(ws_sock *, int) = r->done;
    free(r);
    if (done)
        done(w, status);
}

/* Write bufs (n of them, in order after everything written before). The
 * first `copy` bufs are copied into the request when they cannot be
 * written at once; the others must outlive the write (static data). With
 * try_first, uv_try_write takes what it can and *sync says whether that
 * was everything (then done is not called); otherwise, or for the rest,
 * uv_write, and done(w, status) once it is written. 0 or a negative libuv
 * error (then nothing is queued and done is not called). */
static int sock_write(ws_sock *w, uv_buf_t *bufs, unsigned n, unsigned copy,
                      void (*done)(ws_sock *, int), bool try_first, bool *sync)
{
    *sync = false;
    size_t skip = 0;
    if (try_first) {
        int t = uv_try_write((uv_stream_t *)&w->tcp, bufs, n);
        if (t < 0 && t != UV_EAGAIN)
            return t;
        skip = t > 0 ? (size_t)t : 0;
    }
    unsigned first = 0;
    while (first < n && skip >= bufs[first].len) {
        skip -= bufs[first].len;
        first++;
    }
    if (first == n) {
        *sync = true;
        return 0;
    }
    bufs[first].base += skip;
    bufs[first].len -= skip;
    size_t ncopy = 0;
    for (unsigned i = first; i < copy; i++)
        ncopy += bufs[i].len;
    ws_wreq *r = malloc(sizeof *r + ncopy);
    if (!r)
        return UV_ENOMEM;
    memset(r, 0, sizeof *r);
    r->w = w;
    r->done = done;
    size_t off = 0;
    for (unsigned i = first; i < copy; i++) {
        memcpy(r->data + off, bufs[i].base, bufs[i].len);
        bufs[i].base = r->data + off;
        off += bufs[i].len;
    }
    int rc = uv_write(&r->req, (uv_stream_t *)&w->tcp, bufs + first, n - first, write_cb);
    if (rc < 0) {
        free(r);
        return rc;
    }
    return 0;
}

int ws_sock_write_copy(ws_sock *w, const void *data, size_t n, void (*done)(ws_sock *, int))
{
    if (w->handle_closing)
        return UV_EPIPE;
    uv_buf_t b = uv_buf_init((char *)data, (unsigned)n);
    bool sync;
    return sock_write(w, &b, 1, 1, done, done == NULL, &sync);
}

static void linger_shutdown_cb(uv_shutdown_t *req, int status)
{
    ws_sock *w = req->data;
    free(req);
    /* The FIN is out: with the peer's EOF already in (nothing left to
     * read), or no FIN possible, that is the end. */
    if (status < 0 || w->linger_eof)
        ws_sock_close(w);
}

void ws_sock_linger(ws_sock *w)
{
    if (w->handle_closing || w->phase == WS_PHASE_LINGER)
        return;
    w->phase = WS_PHASE_LINGER;
    uv_shutdown_t *req = malloc(sizeof *req);
    if (req)
        req->data = w;
    if (!req || uv_shutdown(req, (uv_stream_t *)&w->tcp, linger_shutdown_cb) < 0) {
        free(req);
        ws_sock_close(w);
        return;
    }
    ws_sock_read_stop(w);
    /* Not readable: the peer's EOF came already; the shutdown's callback
     * closes once what was written is out. */
    if (ws_sock_read_start(w) < 0)
        w->linger_eof = true;
    ws_dl_arm(&w->srv->lingers, w);
}

static void linger_expired(ws_sock *w)
{
    ws_sock_close(w);
}

/* ---- HTTP answers --------------------------------------------------------- */

static void http_next(ws_sock *w);

/* The answer is written: ready for the next request, or the end
 * (keep_alive off: the lingering close). */
static void http_finish(ws_sock *w, int status)
{
    w->responding = false;
    free(w->body); /* written (or never to be) */
    w->body = NULL;
    if (w->handle_closing)
        return;
    if (status < 0) {
        ws_sock_close(w);
    } else if (!w->keep_alive) {
        ws_sock_linger(w);
    } else {
        http_req_init(w->req);
        ws_dl_arm(&w->srv->heads, w);
    }
}

/* An answer that had to wait for the socket is out: the requests kept
 * behind it, then reading again (http_next). */
static void http_written(ws_sock *w, int status)
{
    http_finish(w, status);
    http_next(w);
}

/* Answer the current request: the head (status, Content-Type, length,
 * extra lines) and body (borrowed: static, outliving the write); the
 * connection stays open when keep_alive and the request allowed it. */
static void http_reply(ws_sock *w, int status, const char *ctype, const char *body, size_t len,
                       const char *extra, bool keep_alive)
{
    http_req *rq = w->req;
    bool head_only = rq && rq->method == HTTP_HEAD;
    w->keep_alive = keep_alive && rq && rq->keep_alive && !rq->upgrade;
    char head[1024];
    int hn = http_head(head, sizeof head, status, ctype, (long long)len, w->keep_alive, extra);
    if (hn < 0) {
        ws_sock_close(w);
        return;
    }
    uv_buf_t bufs[2] = {uv_buf_init(head, (unsigned)hn), uv_buf_init((char *)body, (unsigned)len)};
    bool sync;
    w->responding = true;
    int rc = sock_write(w, bufs, head_only || !len ? 1 : 2, 1, http_written, true, &sync);
    if (rc < 0) {
        log_debug("ws: write: %s", uv_strerror(rc));
        w->responding = false;
        ws_sock_close(w);
        return;
    }
    if (sync) {
        http_finish(w, 0); /* http_next's loop goes on with the next request */
        return;
    }
    /* The rest waits for the socket: no more requests are read meanwhile
     * (head_expired watches that the peer takes it). */
    ws_sock_read_stop(w);
    w->wq_seen = uv_stream_get_write_queue_size((uv_stream_t *)&w->tcp);
}

/* An error answer (its reason phrase as the body, static), then the end. */
static void http_error(ws_sock *w, int status, const char *extra)
{
    const char *reason = http_reason(status);
    http_reply(w, status, "text/plain; charset=utf-8", reason, strlen(reason), extra, false);
}

/* ---- routes --------------------------------------------------------------- */

typedef struct route {
    const char *path;  /* exact path; NULL: the fallback, any path */
    unsigned methods;  /* bits (1u << HTTP_GET) ... */
    const char *allow; /* the Allow header's value for a 405 */
    void (*handler)(ws_sock *w, const http_req *rq);
} route;

#define M(m) (1u << (m))

static void route_file(ws_sock *w, const http_req *rq)
{
    const web_file *f = rq->upgrade ? NULL : web_file_find(rq->path);
    if (!f) {
        http_error(w, 404, NULL);
        return;
    }
    http_reply(w, 200, f->mime, f->data, f->len, "Cache-Control: no-cache\r\n", true);
}

/* The RFC 6455 4.2.2 accept value: base64(SHA-1(key + GUID)). */
static int ws_accept_value(const char *key, char *out, size_t size)
{
    static const char guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
    struct sha1_ctx h;
    uint8_t digest[SHA1_DIGEST_SIZE];
    sha1_init(&h);
    sha1_update(&h, strlen(key), (const uint8_t *)key);
    sha1_update(&h, sizeof guid - 1, (const uint8_t *)guid);
    sha1_digest(&h, sizeof digest, digest);
    if (size < sodium_base64_ENCODED_LEN(sizeof digest, sodium_base64_VARIANT_ORIGINAL))
        return -1;
    sodium_bin2base64(out, size, digest, sizeof digest, sodium_base64_VARIANT_ORIGINAL);
    return 0;
}

/* Sec-WebSocket-Key must be base64 of 16 bytes (RFC 6455 4.1 item 7). */
static bool ws_key_valid(const char *key)
{
    unsigned char bin[32];
    size_t n = 0;
    return key[0] &&
           sodium_base642bin(bin, sizeof bin, key, strlen(key), NULL, &n, NULL,
                             sodium_base64_VARIANT_ORIGINAL) == 0 &&
           n == 16;
}

static void route_ws(ws_sock *w, const http_req *rq)
{
    if (!rq->upgrade || !rq->upgrade_websocket) {
        http_error(w, 426, "Upgrade: websocket\r\nConnection: Upgrade\r\n");
        return;
    }
    if (rq->method != HTTP_GET || rq->p.http_major < 1 ||
        (rq->p.http_major == 1 && rq->p.http_minor < 1) || !rq->has_host ||
        !ws_key_valid(rq->ws_key)) {
        http_error(w, 400, NULL);
        return;
    }
    if (strcmp(rq->ws_version, "13") != 0) {
        http_error(w, 426, "Sec-WebSocket-Version: 13\r\n");
        return;
    }
    if (w->srv->net->stopping) {
        http_error(w, 503, NULL);
        return;
    }
    char accept[64], head[256];
    if (ws_accept_value(rq->ws_key, accept, sizeof accept) != 0)
        goto fail;
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                     "Connection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n",
                     accept);
    if (n < 0 || (size_t)n >= sizeof head || ws_sock_write_copy(w, head, (size_t)n, NULL) < 0)
        goto fail;
    /* What the client sent behind its handshake is the WebSocket's. */
    if (w->rd_len > 0) {
        char *p = realloc(w->pend, w->pend_len + w->rd_len);
        if (!p)
            goto fail;
        memcpy(p + w->pend_len, w->rd, w->rd_len);
        w->pend = p;
        w->pend_len += w->rd_len;
        w->rd_len = 0;
    }
    ws_dl_cancel(w);
    free(w->req);
    w->req = NULL;
    w->phase = WS_PHASE_OPEN;
    ws_conn_open(w);
    return;
fail:
    log_error("ws: cannot answer a handshake (out of memory?)");
    ws_sock_close(w);
}

/* GET /metrics: the server's figures in the Prometheus text format 0.0.4
 * (util/metrics.h), made by the upper layer's callback (ws_opts). */
static void route_metrics(ws_sock *w, const http_req *rq)
{
    (void)rq;
    const ws_opts *o = &w->srv->opts;
    size_t len = 0;
    char *text = o->metrics ? o->metrics(o->arg, &len) : NULL;
    if (!text) {
        http_error(w, o->metrics ? 500 : 404, NULL);
        return;
    }
    w->body = text; /* freed by http_finish once written */
    http_reply(w, 200, "text/plain; version=0.0.4; charset=utf-8", text, len,
               "Cache-Control: no-store\r\n", true);
}

/* GET /healthz: 200 while the server accepts work, 503 from the moment a
 * stop begins (so a load balancer such as haproxy drains the node first). */
static void route_healthz(ws_sock *w, const http_req *rq)
{
    (void)rq;
    const ws_opts *o = &w->srv->opts;
    bool ok = !w->srv->net->stopping && (!o->healthy || o->healthy(o->arg));
    static const char up[] = "ok\n", down[] = "stopping\n";
    http_reply(w, ok ? 200 : 503, "text/plain; charset=utf-8", ok ? up : down,
               ok ? sizeof up - 1 : sizeof down - 1, "Cache-Control: no-store\r\n", true);
}

/* The route table: the first entry whose path matches. */
static const route routes[] = {
    {"/ws", M(HTTP_GET), "GET", route_ws},
    {"/metrics", M(HTTP_GET) | M(HTTP_HEAD), "GET, HEAD", route_metrics},
    {"/healthz", M(HTTP_GET) | M(HTTP_HEAD), "GET, HEAD", route_healthz},
    {NULL, M(HTTP_GET) | M(HTTP_HEAD), "GET, HEAD", route_file},
};

static void http_dispatch(ws_sock *w)
{
    const http_req *rq = w->req;
    const route *r = routes;
    while (r->path && strcmp(r->path, rq->path) != 0)
        r++;
    if (!(r->methods & M(rq->method))) {
        char allow[64];
        snprintf(allow, sizeof allow, "Allow: %s\r\n", r->allow);
        http_error(w, 405, allow);
        return;
    }
    r->handler(w, rq);
}

/* ---- the HTTP phase ----------------------------------------------------------- */

/* Take the bytes kept or just read, request by request, until one is
 * being answered (the rest waits for it) or they run out. */
static void http_next(ws_sock *w)
{
    while (w->phase == WS_PHASE_HTTP && !w->handle_closing && !w->responding) {
        const char *src;
        size_t len;
        if (w->pend_len) {
            src = w->pend;
            len = w->pend_len;
        } else if (w->rd_len) {
            src = w->rd;
            len = w->rd_len;
        } else {
            break;
        }
        size_t used = 0;
        http_req_state st = http_req_feed(w->req, src, len, &used);
        if (w->pend_len) {
            memmove(w->pend, w->pend + used, w->pend_len - used);
            w->pend_len -= used;
            if (!w->pend_len) {
                free(w->pend);
                w->pend = NULL;
            }
        } else {
            w->rd += used;
            w->rd_len -= used;
        }
        if (st == HTTP_REQ_MORE)
            continue;
        if (st == HTTP_REQ_ERROR) {
            log_debug("ws: HTTP request refused with %d", w->req->error);
            http_error(w, w->req->error, NULL);
            break;
        }
        http_dispatch(w);
    }
    if (w->phase == WS_PHASE_HTTP && !w->handle_closing && !w->responding && !w->pend_len &&
        !w->rd_len && ws_sock_read_start(w) < 0)
        ws_sock_close(w);
}

static void http_read(ws_sock *w, ssize_t nread, const char *data)
{
    if (nread < 0) {
        if (nread == UV_EOF && w->responding) {
            /* The peer has sent all it will: the answer goes out, then the end. */
            w->keep_alive = false;
            ws_sock_read_stop(w);
            return;
        }
        ws_sock_close(w); /* nothing (more) to answer */
        return;
    }
    w->rd = data;
    w->rd_len = (size_t)nread;
    http_next(w);
    /* Bytes behind a request still being answered: kept (reading stops
     * until the answer is out). */
    if (w->rd_len && !w->handle_closing && w->phase == WS_PHASE_HTTP) {
        char *p = realloc(w->pend, w->pend_len + w->rd_len);
        if (!p) {
            ws_sock_close(w);
        } else {
            memcpy(p + w->pend_len, w->rd, w->rd_len);
            w->pend = p;
            w->pend_len += w->rd_len;
            ws_sock_read_stop(w);
        }
    }
    w->rd = NULL;
    w->rd_len = 0;
}

static void head_expired(ws_sock *w)
{
    if (w->phase != WS_PHASE_HTTP || w->handle_closing)
        return;
    if (w->responding) {
        /* An answer being written: its reader has head_ms between two
         * bytes taken (nginx's send_timeout). */
        size_t q = uv_stream_get_write_queue_size((uv_stream_t *)&w->tcp);
        if (q < w->wq_seen) {
            w->wq_seen = q;
            ws_dl_arm(&w->srv->heads, w);
            return;
        }
        ws_sock_close(w);
        return;
    }
    if (w->req->head_bytes == 0 && !w->pend_len) {
        ws_sock_close(w); /* an idle keep-alive connection */
        return;
    }
    log_debug("ws: HTTP request head not complete in %llu ms",
              (unsigned long long)w->srv->heads.bound_ms);
    http_error(w, 408, NULL);
}

/* ---- the listener ------------------------------------------------------------ */

static void refuse_close_cb(uv_handle_t *h)
{
    free(h);
}

static void connection_cb(uv_stream_t *server, int status)
{
    ws_server *s = server->data;
    if (status < 0) {
        log_warn("ws accept: %s", uv_strerror(status));
        return;
    }
    ws_sock *w = calloc(1, ws_sock_alloc_size(s->net));
    http_req *rq = malloc(sizeof *rq);
    if (!w || !rq || uv_tcp_init(s->net->loop, &w->tcp) < 0) {
        free(w);
        free(rq);
        /* Take the connection off the backlog anyway so the loop does not
         * spin on it. */
        uv_tcp_t *h = malloc(sizeof *h);
        if (h && uv_tcp_init(s->net->loop, h) == 0) {
            if (uv_accept(server, (uv_stream_t *)h) < 0)
                log_debug("ws accept: refused");
            uv_close((uv_handle_t *)h, refuse_close_cb);
        } else {
            free(h);
        }
        return;
    }
    w->tcp.data = w;
    w->srv = s;
    w->req = rq;
    http_req_init(rq);
    w->next = s->socks;
    if (s->socks)
        s->socks->prev = w;
    s->socks = w;
    s->nsocks++;
    int rc = uv_accept(server, (uv_stream_t *)&w->tcp);
    if (rc < 0) {
        log_warn("ws accept: %s", uv_strerror(rc));
        ws_sock_close(w);
        return;
    }
    if ((rc = uv_tcp_nodelay(&w->tcp, 1)) < 0)
        log_debug("ws: nodelay: %s", uv_strerror(rc));
    ws_dl_arm(&s->heads, w);
    if ((rc = ws_sock_read_start(w)) < 0) {
        log_warn("ws: read start: %s", uv_strerror(rc));
        ws_sock_close(w);
    }
}

static int timers_init(ws_server *s, const ws_opts *o)
{
    ws_deadlines *lists[3] = {&s->heads, &s->frames, &s->lingers};
    s->heads.bound_ms = o && o->head_ms > 0 ? (uint64_t)o->head_ms : WS_HEAD_MS;
    s->heads.expired = head_expired;
    s->frames.bound_ms = o && o->frame_ms > 0 ? (uint64_t)o->frame_ms : WS_FRAME_MS;
    s->frames.expired = ws_conn_frame_expired;
    s->lingers.bound_ms = WS_LINGER_MS;
    s->lingers.expired = linger_expired;
    for (int i = 0; i < 3; i++) {
        int rc = uv_timer_init(s->net->loop, &lists[i]->timer);
        if (rc < 0) {
            while (i-- > 0)
                uv_close((uv_handle_t *)&lists[i]->timer, NULL);
            return rc;
        }
        lists[i]->timer.data = lists[i];
        /* The timers alone never keep the loop running. */
        uv_unref((uv_handle_t *)&lists[i]->timer);
    }
    s->timers_open = true;
    return 0;
}

int ws_listen(ws_server *s, net *n, const char *host, int port, const ws_opts *opts,
              int *bound_port)
{
    memset(s, 0, sizeof *s);
    s->net = n;
    if (opts)
        s->opts = *opts;
    struct addrinfo hints = {0}, *ai = NULL;
    char portstr[16];
    snprintf(portstr, sizeof portstr, "%d", port);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    int grc = getaddrinfo(host, portstr, &hints, &ai);
    if (grc != 0) {
        log_error("cannot resolve %s: %s", host, gai_strerror(grc));
        return -1;
    }
    int rc = ws_tx_init(s) == 0 ? 0 : UV_ENOMEM;
    if (rc < 0)
        goto out_ai;
    if ((rc = timers_init(s, opts)) < 0)
        goto out_ai;
    if ((rc = uv_tcp_init(n->loop, &s->listener)) < 0)
        goto out_ai;
    s->listener.data = s;
    s->listening = true; /* from here ws_stop closes it */
    if ((rc = uv_tcp_bind(&s->listener, ai->ai_addr, 0)) < 0 ||
        (rc = uv_listen((uv_stream_t *)&s->listener, 511, connection_cb)) < 0)
        goto out_ai;
    struct sockaddr_storage ss;
    int len = sizeof ss;
    if ((rc = uv_tcp_getsockname(&s->listener, (struct sockaddr *)&ss, &len)) < 0)
        goto out_ai;
    s->port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                             : ((struct sockaddr_in *)&ss)->sin_port);
    *bound_port = s->port;
    freeaddrinfo(ai);
    return 0;
out_ai:
    freeaddrinfo(ai);
    log_error("cannot listen for HTTP on %s:%d: %s", host, port, uv_strerror(rc));
    return -1;
}

void ws_stop(ws_server *s)
{
    if (s->stopped)
        return;
    s->stopped = true;
    if (s->listening) {
        s->listening = false;
        uv_close((uv_handle_t *)&s->listener, NULL);
    }
    /* A socket's close callback unlinks it, later: walk a snapshot. */
    for (ws_sock *w = s->socks; w; w = w->next) {
        if (w->upgraded && !w->base.closing)
            conn_close(&w->base);
        ws_sock_close(w);
    }
    if (s->timers_open) {
        s->timers_open = false;
        uv_close((uv_handle_t *)&s->heads.timer, NULL);
        uv_close((uv_handle_t *)&s->frames.timer, NULL);
        uv_close((uv_handle_t *)&s->lingers.timer, NULL);
    }
}

void ws_free(ws_server *s)
{
    ws_tx_free(s);
}
