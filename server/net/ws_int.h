/*
 * ws_int: what ws.c (listener, sockets, HTTP, deadlines) and ws_conn.c
 * (the WebSocket transport) share. Private to net/ws*.c.
 *
 * One ws_sock per accepted socket, for its whole life: the HTTP phase
 * (req set), then after an upgrade the WebSocket one (upgraded: base is a
 * connection of the core), then possibly a lingering close. Its memory is
 * freed by the socket's close callback (HTTP) or, once upgraded, by the
 * core's last reference (transport.free_conn).
 */
#ifndef QK_WS_INT_H
#define QK_WS_INT_H

#include "net/http.h"
#include "net/ws.h"

/* A complete incoming text message (RFC 6455 5.6), NUL-terminated. */
typedef struct wsmsg {
    struct wsmsg *next;
    size_t len;
    char data[];
} wsmsg;

typedef struct ws_rx ws_rx; /* ws_conn.c: wslay's context and the frame under way */

typedef enum { WS_PHASE_HTTP = 0, WS_PHASE_OPEN, WS_PHASE_LINGER } ws_phase;

struct ws_sock {
    conn base; /* first: a conn * is a ws_sock * (set up at the upgrade) */
    uv_tcp_t tcp;
    ws_server *srv;
    ws_sock *next, *prev; /* srv->socks */
    ws_deadlines *dl;     /* the list w is on, NULL when none */
    ws_sock *dl_next, *dl_prev;
    uint64_t dl_at;           /* uv_now() when it expires */
    http_req *req;            /* the HTTP phase's request */
    ws_rx *rx;                /* only while a frame or message is under way */
    wsmsg *in_head, *in_tail; /* complete messages not taken yet */
    wsmsg *cur;               /* the one next() returned last (valid until the next call) */
    char *pend;               /* bytes read and not handed to a parser yet (exact size) */
    char *body;               /* a generated answer's body being written (GET /metrics), owned */
    size_t pend_len;
    const char *rd; /* inside a read callback: its bytes not handed over yet */
    size_t rd_len;
    size_t wq_seen;    /* HTTP: the write queue when the deadline was set (stall check) */
    uint8_t phase;     /* ws_phase */
    bool upgraded;     /* base is a core connection */
    bool responding;   /* HTTP: an answer is being written */
    bool keep_alive;   /* HTTP: the connection stays open after this answer */
    bool too_long;     /* a frame or message over the limit: answered, then 1009 */
    bool refused;      /* a binary message: answered bad_request, then 1003 */
    bool refusal_sent; /* the bad_request of `refused` was queued */
    bool ended;        /* wslay refused the input or the peer closed: no more */
    bool close_sent;   /* a close frame went out (ours or wslay's) */
    bool handle_closing;
    bool linger_eof;     /* lingering with the peer's EOF in: close once the FIN is out */
    uint16_t close_code; /* of our close frame (RFC 6455 7.4.1); 0 = 1000 */
};

/* One write on a socket: the head and body of an HTTP answer, a control
 * frame, or (ws_conn.c) messages of the core. */
typedef struct ws_wreq {
    uv_write_t req;
    ws_sock *w;
    void (*done)(ws_sock *w, int status); /* may be NULL */
    outmsg *msgs;                         /* the core's messages (freed after the write) */
    size_t bytes;                         /* of msgs, reported by conn_write_done() */
    char data[];                          /* copied bytes (heads, control frames) */
} ws_wreq;

/* ---- ws.c ---- */

/* Put w on list dl with a deadline of now + dl->bound_ms (off any list
 * it was on first); ws_dl_cancel takes it off. */
void ws_dl_arm(ws_deadlines *dl, ws_sock *w);
void ws_dl_cancel(ws_sock *w);

/* Write n bytes, copied (what the socket does not take at once is
 * written by uv_write); done(w, status) after the last byte left, or at
 * once when everything was taken and done is NULL... see ws.c. Returns 0
 * or a negative libuv error (nothing was written; done is not called). */
int ws_sock_write_copy(ws_sock *w, const void *data, size_t n, void (*done)(ws_sock *, int));

/* The lingering close: FIN after what is written, then read and discard
 * until the peer's EOF or WS_LINGER_MS, then close the handle. */
void ws_sock_linger(ws_sock *w);
/* Close the handle now (idempotent). */
void ws_sock_close(ws_sock *w);
/* Start or stop reading the socket (the one read callback of ws.c hands
 * the bytes to the phase's reader). 0 or a negative libuv error. */
int ws_sock_read_start(ws_sock *w);
void ws_sock_read_stop(ws_sock *w);
/* Free what a socket holds besides the transport's parts (req, pend). */
void ws_sock_free_bufs(ws_sock *w);

/* ---- ws_conn.c ---- */

/* Bytes to allocate (zeroed) for one ws_sock on n: the struct and the
 * upper layer's data of the connection it may become (conn_alloc_size). */
size_t ws_sock_alloc_size(const net *n);

/* The handshake succeeded and its 101 is written (or queued): w becomes a
 * connection of the core (conn_init, conn_accepted); w->pend holds what
 * the client sent behind its handshake. */
void ws_conn_open(ws_sock *w);
/* Bytes read on an open WebSocket (nread as libuv's read callback). */
void ws_conn_read(ws_sock *w, ssize_t nread, const char *data);
/* The frame deadline of w passed (w is off the list). */
void ws_conn_frame_expired(ws_sock *w);
/* Build the server's shared framer (ws_server.tx). 0 or -1. */
int ws_tx_init(ws_server *s);
void ws_tx_free(ws_server *s);

#endif
