/*
 * ws: see ws.h. libwebsockets 4.1 drives the sockets on our libuv loop;
 * this file turns its callbacks into the transport vtable (transport.h)
 * and serves the embedded web files (web_files.h).
 */
#include "net/ws.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <libwebsockets.h>

#include "net/web_files.h"
#include "qk_proto.h"
#include "util/log.h"

/* One complete (or, as ws_conn.part, growing) incoming message. */
typedef struct wsmsg {
    struct wsmsg *next;
    size_t len, cap;
    char data[]; /* NUL-terminated at data[len] once complete */
} wsmsg;

typedef struct ws_conn {
    conn base;                    /* first: a conn * is a ws_conn * */
    struct lws *wsi;              /* NULL once libwebsockets closed it */
    wsmsg *part;                  /* the message being reassembled (RFC 6455 5.4) */
    wsmsg *in_head, **in_tail;    /* complete messages not taken yet */
    wsmsg *cur;                   /* the one next() returned last (valid until the next call) */
    bool too_long;                /* a message passed the limit: nothing more is taken */
    bool refused;                 /* a binary message: answered, closing */
    outmsg *out_head, **out_tail; /* handed over by write(), not sent yet */
    bool shutting;        /* shutdown(): close frame after the last message */
    bool close_requested; /* close() was called */
    bool close_reported;  /* conn_closed() was called */
    uint16_t close_code;  /* RFC 6455 7.4.1 status of our close frame; 0 = 1000 */
} ws_conn;

/* libwebsockets' per-connection user space (HTTP and WebSocket alike). */
typedef struct pss {
    ws_conn *w;           /* after the upgrade */
    const web_file *file; /* HTTP: the file being sent */
    size_t sent;          /* HTTP: bytes of it written */
} pss;

static ws_conn *ws_of(conn *c)
{
    return (ws_conn *)c;
}

static void free_msgs(wsmsg *m)
{
    while (m) {
        wsmsg *next = m->next;
        free(m);
        m = next;
    }
}

/* ---- the transport ---------------------------------------------------- */

static int t_next(conn *c, char **msg, size_t *len)
{
    ws_conn *w = ws_of(c);
    free(w->cur);
    w->cur = NULL;
    if (w->in_head) {
        wsmsg *m = w->in_head;
        w->in_head = m->next;
        if (!w->in_head)
            w->in_tail = &w->in_head;
        m->next = NULL;
        w->cur = m;
        *msg = m->data;
        *len = m->len;
        return 1;
    }
    return w->too_long ? -1 : 0;
}

static int t_read_start(conn *c)
{
    ws_conn *w = ws_of(c);
    if (w->wsi)
        lws_rx_flow_control(w->wsi, 1);
    return 0;
}

static void t_read_stop(conn *c)
{
    ws_conn *w = ws_of(c);
    if (w->wsi)
        lws_rx_flow_control(w->wsi, 0);
}

/* Complete messages not taken, or bytes the kernel holds for the socket. */
static bool t_unread(conn *c)
{
    ws_conn *w = ws_of(c);
    if (w->in_head)
        return true;
    if (!w->wsi)
        return false;
    int n = 0;
    int fd = (int)lws_get_socket_fd(w->wsi);
    if (fd < 0 || ioctl(fd, FIONREAD, &n) != 0)
        return false;
    return n > 0;
}

static ssize_t t_write(conn *c, outmsg *msgs, size_t count, size_t bytes)
{
    (void)count;
    ws_conn *w = ws_of(c);
    if (!w->wsi || w->close_requested) {
        outmsg_free_list(msgs);
        return UV_EPIPE;
    }
    *w->out_tail = msgs;
    outmsg *last = msgs;
    while (last->next)
        last = last->next;
    w->out_tail = &last->next;
    lws_callback_on_writable(w->wsi);
    return (ssize_t)bytes;
}

static int t_shutdown(conn *c)
{
    ws_conn *w = ws_of(c);
    if (!w->wsi)
        return UV_ENOTCONN;
    w->shutting = true;
    lws_callback_on_writable(w->wsi);
    return 0;
}

/* conn_closed() once: close() was called and the wsi is gone. */
static void report_closed(ws_conn *w)
{
    if (w->close_requested && !w->wsi && !w->close_reported) {
        w->close_reported = true;
        conn_closed(&w->base);
    }
}

static void t_close(conn *c)
{
    ws_conn *w = ws_of(c);
    w->close_requested = true;
    if (!w->wsi) {
        report_closed(w);
        return;
    }
    if (w->out_head) {
        /* Output is waiting, so the peer does not read (the output cap):
         * a close frame would only wait behind it. Drop the socket. */
        lws_set_timeout(w->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
        return;
    }
    /* A close frame on the next writable callback; dropped in 5 s if the
     * socket never gets writable. */
    lws_set_timeout(w->wsi, PENDING_TIMEOUT_USER_OK, 5);
    lws_callback_on_writable(w->wsi);
}

static void t_free(conn *c)
{
    ws_conn *w = ws_of(c);
    free_msgs(w->part);
    free_msgs(w->in_head);
    free(w->cur);
    outmsg_free_list(w->out_head);
    free(w);
}

static void t_peer_name(conn *c, char *buf, size_t size)
{
    ws_conn *w = ws_of(c);
    snprintf(buf, size, "?");
    if (!w->wsi)
        return;
    int fd = (int)lws_get_socket_fd(w->wsi);
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    if (fd < 0 || getpeername(fd, (struct sockaddr *)&ss, &len) != 0)
        return;
    char host[INET6_ADDRSTRLEN] = "?";
    int port = 0;
    if (ss.ss_family == AF_INET) {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
        port = ntohs(a->sin_port);
    } else if (ss.ss_family == AF_INET6) {
        /* lws listens on a dual-stack socket: an IPv4 peer is named as
         * over TCP (a.b.c.d), so the per-address cap counts it once. */
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        if (IN6_IS_ADDR_V4MAPPED(&a->sin6_addr))
            inet_ntop(AF_INET, &a->sin6_addr.s6_addr[12], host, sizeof host);
        else
            inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
        port = ntohs(a->sin6_port);
    }
    snprintf(buf, size, "%s:%d", host, port);
}

static const transport ws_transport = {
    .name = "ws",
    .next = t_next,
    .read_start = t_read_start,
    .read_stop = t_read_stop,
    .unread = t_unread,
    .write = t_write,
    .shutdown = t_shutdown,
    .close = t_close,
    .free_conn = t_free,
    .peer_name = t_peer_name,
};

/* ---- WebSocket callbacks ---------------------------------------------- */

static int on_established(ws_server *srv, struct lws *wsi, pss *p)
{
    ws_conn *w = calloc(1, sizeof *w);
    if (!w) {
        log_error("ws: out of memory accepting a connection");
        return -1;
    }
    w->wsi = wsi;
    w->in_tail = &w->in_head;
    w->out_tail = &w->out_head;
    p->w = w;
    conn_init(&w->base, srv->net, &ws_transport);
    conn_accepted(&w->base);
    return 0;
}

/* A binary message (RFC 6455 5.6): refused with an error, then closed. */
static void refuse_binary(ws_conn *w)
{
    conn *c = &w->base;
    w->refused = true;
    w->close_code = LWS_CLOSE_STATUS_UNACCEPTABLE_OPCODE; /* 1003 */
    log_info("conn %llu (%s): binary WebSocket frame, closing", (unsigned long long)c->serial,
             c->peer);
    cJSON *err = qk_proto_error(NULL, QK_ERR_BAD_REQUEST,
                                "binary frames are not supported: send each message as one "
                                "text frame");
    if (err)
        conn_send_json(c, err, CONN_MSG_REPLY, NULL);
    cJSON_Delete(err);
    conn_close_after_write(c);
}

static void on_receive(ws_conn *w, struct lws *wsi, const char *in, size_t len)
{
    conn *c = &w->base;
    if (c->closing || w->too_long || w->refused)
        return;
    if (lws_is_first_fragment(wsi) && lws_frame_is_binary(wsi)) {
        free_msgs(w->part);
        w->part = NULL;
        refuse_binary(w);
        return;
    }
    size_t have = w->part ? w->part->len : 0;
    if (have + len > c->net->line_limit) {
        free_msgs(w->part);
        w->part = NULL;
        w->too_long = true;
        w->close_code = LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE; /* 1009 */
        conn_input(c); /* the messages before it, then line_too_long */
        return;
    }
    if (!w->part || w->part->cap < have + len + 1) {
        size_t cap = w->part ? w->part->cap * 2 : 256;
        while (cap < have + len + 1)
            cap *= 2;
        wsmsg *m = realloc(w->part, sizeof *m + cap);
        if (!m) {
            log_error("conn %llu: out of memory buffering input", (unsigned long long)c->serial);
            conn_close(c);
            return;
        }
        if (!w->part) {
            m->next = NULL;
            m->len = 0;
        }
        m->cap = cap;
        w->part = m;
    }
    memcpy(w->part->data + have, in, len);
    w->part->len = have + len;
    if (!lws_is_final_fragment(wsi))
        return;
    wsmsg *m = w->part;
    w->part = NULL;
    m->data[m->len] = '\0';
    *w->in_tail = m;
    w->in_tail = &m->next;
    conn_input(c);
}

/* Write our close frame (RFC 6455 5.5.1: a 2-byte status, then a UTF-8
 * reason) and have lws drop the socket (the callback returns -1). The
 * frame is written here rather than through lws_close_reason(): with rx
 * flow control off (the core stops reading a closing connection) lws 4.1
 * dropped the socket without sending it. */
static int send_close(struct lws *wsi, unsigned status, const char *why)
{
    unsigned char buf[LWS_PRE + 125];
    size_t n = strlen(why);
    if (n > 123)
        n = 123;
    buf[LWS_PRE] = (unsigned char)(status >> 8);
    buf[LWS_PRE + 1] = (unsigned char)status;
    memcpy(buf + LWS_PRE + 2, why, n);
    /* 4 is LWS_WRITE_CLOSE, which lws-write.h leaves out of its enum. */
    lws_write(wsi, buf + LWS_PRE, n + 2, (enum lws_write_protocol)4);
    return -1;
}

/* Send the next queued message, or the close frame when it is time. The
 * frame is built in the server's one buffer (srv.txbuf): lws_write() keeps
 * a copy of whatever the socket did not take, so no connection needs a
 * buffer of its own between writes. */
static int on_writeable(ws_server *srv, ws_conn *w, struct lws *wsi)
{
    conn *c = &w->base;
    if (w->close_requested) {
        return send_close(wsi, w->close_code ? w->close_code : LWS_CLOSE_STATUS_NORMAL, "");
    }
    outmsg *m = w->out_head;
    if (m) {
        w->out_head = m->next;
        if (!w->out_head)
            w->out_tail = &w->out_head;
        m->next = NULL;
        outbuf *ob = m->ob;
        size_t len = ob->len;
        if (len > 0 && ob->data[len - 1] == '\n')
            len--; /* the newline is the line transport's frame, not the message's */
        if (srv->txcap < LWS_PRE + len + 1) {
            unsigned char *b = realloc(srv->txbuf, LWS_PRE + len + 1);
            if (!b) {
                outmsg_free_list(m);
                conn_write_done(c, ob->len, UV_ENOMEM);
                return -1;
            }
            srv->txbuf = b;
            srv->txcap = LWS_PRE + len + 1;
        }
        memcpy(srv->txbuf + LWS_PRE, ob->data, len);
        /* An empty line is the heartbeat: a ping frame (RFC 6455 5.5.2). */
        enum lws_write_protocol kind = len ? LWS_WRITE_TEXT : LWS_WRITE_PING;
        int n = lws_write(wsi, srv->txbuf + LWS_PRE, len, kind);
        size_t bytes = ob->len;
        outmsg_free_list(m);
        if (n < (int)len) {
            conn_write_done(c, bytes, UV_EPIPE);
            return -1;
        }
        conn_write_done(c, bytes, 0); /* may close c or start its shutdown */
        if (w->close_requested || w->out_head || w->shutting)
            lws_callback_on_writable(wsi);
        return 0;
    }
    if (w->shutting) {
        return send_close(wsi, LWS_CLOSE_STATUS_GOINGAWAY, "server shutting down");
    }
    return 0;
}

static void on_closed(ws_conn *w)
{
    conn *c = &w->base;
    w->wsi = NULL;
    conn_ref(c);
    if (w->shutting) {
        w->shutting = false;
        conn_shutdown_done(c, 0); /* closes c and drops the shutdown's reference */
    } else if (!c->closing) {
        conn_close(c);
    }
    report_closed(w);
    conn_unref(c);
}

/* ---- HTTP ------------------------------------------------------------- */

static int http_done(struct lws *wsi)
{
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

static int on_http(struct lws *wsi, pss *p, const char *uri)
{
    const web_file *f = web_file_find(uri);
    if (!f) {
        if (lws_return_http_status(wsi, HTTP_STATUS_NOT_FOUND, NULL))
            return -1;
        return http_done(wsi);
    }
    unsigned char buf[LWS_PRE + 512], *start = buf + LWS_PRE, *q = start,
                                      *end = buf + sizeof buf - 1;
    if (lws_add_http_common_headers(wsi, HTTP_STATUS_OK, f->mime, (lws_filepos_t)f->len, &q, end) ||
        lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CACHE_CONTROL,
                                     (const unsigned char *)"no-cache", 8, &q, end) ||
        lws_finalize_write_http_header(wsi, start, &q, end))
        return -1;
    p->file = f;
    p->sent = 0;
    lws_callback_on_writable(wsi);
    return 0;
}

static int on_http_writeable(struct lws *wsi, pss *p)
{
    const web_file *f = p->file;
    if (!f)
        return 0;
    unsigned char buf[LWS_PRE + 8192];
    size_t left = f->len - p->sent;
    size_t n = left < 8192 ? left : 8192;
    memcpy(buf + LWS_PRE, f->data + p->sent, n);
    bool last = n == left;
    if (lws_write(wsi, buf + LWS_PRE, n, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) < (int)n)
        return -1;
    p->sent += n;
    if (last) {
        p->file = NULL;
        return http_done(wsi);
    }
    lws_callback_on_writable(wsi);
    return 0;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    ws_server *srv = lws_context_user(lws_get_context(wsi));
    pss *p = user;
    switch (reason) {
    case LWS_CALLBACK_HTTP:
        return p ? on_http(wsi, p, in) : -1;
    case LWS_CALLBACK_HTTP_WRITEABLE:
        return p ? on_http_writeable(wsi, p) : -1;
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION: {
        /* The protocol is at /ws only; nothing new once stopping. */
        char uri[64];
        if (lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) < 0 || strcmp(uri, "/ws") != 0)
            return 1;
        return srv->net->stopping ? 1 : 0;
    }
    case LWS_CALLBACK_ESTABLISHED:
        return on_established(srv, wsi, p);
    case LWS_CALLBACK_RECEIVE:
        if (p && p->w)
            on_receive(p->w, wsi, in, len);
        return 0;
    case LWS_CALLBACK_SERVER_WRITEABLE:
        return p && p->w ? on_writeable(srv, p->w, wsi) : 0;
    case LWS_CALLBACK_CLOSED:
        if (p && p->w) {
            ws_conn *w = p->w;
            p->w = NULL;
            on_closed(w);
        }
        return 0;
    default:
        break;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

static const struct lws_protocols protocols[] = {
    {"qirkat", callback, sizeof(pss), 16 * 1024, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

/* ---- the server ------------------------------------------------------- */

static void lws_log(int level, const char *line)
{
    size_t n = strlen(line);
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        n--;
    if (level & LLL_ERR)
        log_warn("lws: %.*s", (int)n, line);
    else
        log_debug("lws: %.*s", (int)n, line);
}

int ws_listen(ws_server *w, net *n, const char *host, int port, int *bound_port)
{
    memset(w, 0, sizeof *w);
    w->net = n;
    lws_set_log_level(LLL_ERR | LLL_WARN, lws_log);
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    void *loops[1] = {n->loop};
    info.options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_EXPLICIT_VHOSTS |
                   LWS_SERVER_OPTION_UV_NO_SIGSEGV_SIGFPE_SPIN;
    info.foreign_loops = loops; /* read during lws_create_context() only */
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.user = w;
    w->ctx = lws_create_context(&info);
    if (!w->ctx) {
        log_error("cannot create the libwebsockets context (libuv support missing?)");
        return -1;
    }
    info.port = port;
    info.iface = host;
    info.protocols = protocols;
    info.vhost_name = "qirkat";
    w->vhost = lws_create_vhost(w->ctx, &info);
    if (!w->vhost) {
        log_error("cannot listen for HTTP on %s:%d", host, port);
        ws_stop(w);
        return -1;
    }
    w->port = lws_get_vhost_listen_port(w->vhost);
    *bound_port = w->port;
    return 0;
}

void ws_stop(ws_server *w)
{
    if (!w->ctx || w->destroying)
        return;
    w->destroying = true;
    lws_context_destroy(w->ctx);
}

void ws_free(ws_server *w)
{
    if (!w->ctx)
        return;
    if (!w->destroying)
        ws_stop(w);
    lws_context_destroy(w->ctx);
    w->ctx = NULL;
    w->vhost = NULL;
    free(w->txbuf);
    w->txbuf = NULL;
    w->txcap = 0;
}
