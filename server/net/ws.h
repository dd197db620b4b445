/*
 * ws: the HTTP listener of `qirkatd --http HOST:PORT` and the WebSocket
 * transport (transport.h), on the server's own libuv loop. HTTP/1.1
 * requests are read with http-parser (net/http.h), WebSocket frames with
 * wslay (Debian libwslay 1.1, a server context); the sockets, the route
 * table, the timers and the policy are here (ws.c: the listener and HTTP;
 * ws_conn.c: the WebSocket transport; ws_int.h between them).
 *
 * HTTP (RFC 9112). A small route table (ws.c `routes`): each entry a path
 * (or the fallback), the methods it takes and its handler, so another
 * route (GET /metrics, GET /healthz) is one entry and one function.
 *   - GET or HEAD of a file of web/ (built into the binary, net/web_files.h;
 *     "/" is index.html) answers 200 with its Content-Type (text/html,
 *     text/css, text/javascript: ES modules need a JavaScript type) and
 *     Cache-Control: no-cache; any other path 404; another method 405.
 *   - "/ws" is the WebSocket opening handshake (RFC 6455 4.2.1, 4.2.2):
 *     101 with Sec-WebSocket-Accept (SHA-1 from nettle, base64 from
 *     libsodium); a request that is not a valid handshake gets 400 (426
 *     without an Upgrade, or for another Sec-WebSocket-Version, naming 13:
 *     RFC 6455 4.4); once the server is stopping, 503. An upgrade asked for
 *     at any other path gets that path's answer (404) and the connection is
 *     closed. No subprotocol or extension is negotiated.
 *   - Connections are persistent (keep-alive) unless the request says
 *     otherwise; requests are answered one at a time, in order (a
 *     pipelined one waits for the previous answer to be written).
 *   - Bounds, as a server on the Internet needs them (nginx's
 *     client_header_timeout, large_client_header_buffers): a request head
 *     over HTTP_HEAD_MAX (16 KiB) is answered 431, a path over
 *     HTTP_PATH_MAX 414, a body 413, a malformed request 400, each then
 *     closed. A request head must arrive whole within head_ms
 *     (WS_HEAD_MS, 10 s; --http-head-ms, QK_HTTP_HEAD_MS) of the connection's start or of
 *     the previous answer: a started one is then answered 408 and closed,
 *     an idle keep-alive connection closed quietly. An answer the peer
 *     takes nothing of for head_ms closes the connection.
 *
 * WebSocket transport (../shared/PROTOCOL.md "WebSocket transport"). Each
 * text message (RFC 6455 5.6), fragmented or not (5.4, reassembled here),
 * is one protocol message: the core gets it from next() exactly as a line
 * of the TCP transport, so ops, events, errors, rate limits and caps are
 * the same. Limits and refusals:
 *   - a frame whose declared length, or a message whose running total of
 *     declared lengths, is over net.line_limit (64 KiB, like a line without
 *     its '\n') is answered `line_too_long` and closed with 1009 (7.4.1)
 *     as soon as the frame's header is in, whatever follows it (nothing
 *     more of it is read, nor buffered);
 *   - a binary message (opcode 0x2) is answered `bad_request` ("binary
 *     frames are not supported") and closed with 1003;
 *   - an unmasked client frame (5.1), reserved bits, an unknown opcode, a
 *     bad fragment sequence or control frame (5.4, 5.5) close the
 *     connection with 1002, invalid UTF-8 in a text message (8.1) with
 *     1007, with no error message (wslay's refusals, and ours for a mask
 *     bit missing from a header not yet followed by payload);
 *   - a frame or message that has started must be complete within
 *     frame_ms (WS_FRAME_MS, 10 s; --ws-frame-ms, QK_WS_FRAME_MS) of its first byte (or
 *     of the end of the message before it): else the connection is closed
 *     with 1008 (policy violation). Time the server itself does not read
 *     (backpressure, a deferred request) does not count.
 * Ping frames are answered with pong by wslay (5.5.2, 5.5.3); a close
 * frame is echoed and the connection closed. Output: each held outbuf
 * (one message ending in '\n') is sent as one text frame without the
 * newline (header from wslay's framer, payload straight from the shared
 * outbuf: no copy); an empty line (the core's heartbeat) is sent as a ping
 * frame instead, which browsers answer on their own.
 *
 * Flow control is the core's (conn.h "Backpressure"): read_stop is
 * uv_read_stop, so the kernel's buffers and TCP hold a fast sender;
 * frames are handed to wslay only as the core takes messages (next()), and
 * bytes read and not handed over yet are kept in a buffer of their exact
 * size. Writes are uv_try_write then uv_write, as over TCP, each reported
 * with conn_write_done() when libuv took the bytes, so a client that does
 * not read reaches the output cap exactly as over TCP.
 *
 * Closing. conn_close sends a close frame (1000, or the code of the
 * refusal) when nothing is waiting to be written, else drops the socket
 * (the peer does not read). The shutdown of a stop (net_shutdown) is a
 * close frame (1001 "going away") after the last message. After a close
 * frame (ours or an echo) or an HTTP answer with Connection: close, the
 * socket is half-closed (FIN) and read and discarded until the peer's EOF,
 * at most WS_LINGER_MS (2 s): closing with unread input would send a
 * reset that can destroy the close frame or the answer in flight (the
 * lingering close of nginx and Apache).
 *
 * Memory. An idle WebSocket connection (no frame under way, nothing
 * buffered) holds its ws_sock alone: the conn (128 bytes), libuv's
 * uv_tcp_t (248) and 160 of ours, 536 bytes on x86-64 (ws_sock_size()),
 * and behind it, in the same allocation, the session of the layer above
 * (net_hooks.data_size; 600 bytes in all). Reading uses one 64 KiB buffer of
 * the server. wslay's receive context (about 8.5 KiB: its 4 KiB input and
 * 4 KiB output buffers) exists only while a frame or message is under way
 * and is freed as soon as the connection is at rest again; the message
 * being reassembled is allocated at its declared length. An HTTP
 * connection adds its http_req (752 bytes) until the upgrade.
 *
 * The peer name is the socket's address (getpeername); proxies' headers
 * such as X-Forwarded-For are not trusted.
 *
 * Every function runs on the loop thread.
 */
#ifndef QK_WS_H
#define QK_WS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "net/conn.h"

#define WS_FRAME_MS 10000 /* a started frame or message, to its end */
#define WS_HEAD_MS 10000  /* an HTTP request head; an idle keep-alive connection */
#define WS_LINGER_MS 2000 /* after our close frame or last answer, to the peer's EOF */

typedef struct ws_sock ws_sock;
struct wslay_frame_context;

/* Sockets waiting for one kind of deadline, all with the same bound, so
 * the list is in deadline order by appending (one timer per list). */
typedef struct ws_deadlines {
    uv_timer_t timer;
    uint64_t bound_ms;
    ws_sock *head, *tail;
    void (*expired)(ws_sock *w); /* w was taken off the list first */
} ws_deadlines;

typedef struct ws_opts {
    int frame_ms; /* 0 = WS_FRAME_MS */
    int head_ms;  /* 0 = WS_HEAD_MS */
    /* GET /metrics: the exposition text, malloc'd (freed here once
     * written), its length in *len; NULL = 500 (NULL callback: 404).
     * GET /healthz: 200 "ok" while healthy(arg) and the net is not
     * stopping, else 503 "stopping". Both from the upper layer (srv.c),
     * which the network layer may not include. */
    char *(*metrics)(void *arg, size_t *len);
    bool (*healthy)(void *arg);
    void *arg;
} ws_opts;

typedef struct ws_server {
    net *net; /* borrowed: upgraded connections join it */
    uv_tcp_t listener;
    bool listening, timers_open, stopped;
    int port; /* bound */
    ws_deadlines heads, frames, lingers;
    ws_opts opts; /* as given to ws_listen */
    ws_sock *socks; /* every socket whose handle is open (HTTP, WebSocket, lingering) */
    size_t nsocks;
    /* wslay's framer for everything sent: each frame is built whole in one
     * call (the send callback takes every byte), so it never holds state
     * between frames and every connection shares it. */
    struct wslay_frame_context *tx;
    struct ws_gather *gather; /* the frame being built (ws_conn.c) */
    char readbuf[64 * 1024];  /* every socket reads here, one at a time */
} ws_server;

/* Listen on host:port (numeric or resolvable; port 0 = ephemeral) on n's
 * loop; upgraded connections join n. opts may be NULL (the defaults). On
 * success returns 0 and sets *bound_port; -1 otherwise (logged; handles
 * already made are closed by ws_stop). */
int ws_listen(ws_server *w, net *n, const char *host, int port, const ws_opts *opts,
              int *bound_port);

/* Close the listener, every socket still open (HTTP connections, sockets
 * lingering after their close; a WebSocket connection still open is
 * conn_close()d first) and the timers; their handles close as the loop
 * runs on. Call once no net connection of w is left (the graceful stop
 * ended them: srv.h "Stopping"). Idempotent; nothing when never started. */
void ws_stop(ws_server *w);

/* After uv_run() returned: free what ws_listen() allocated. Idempotent. */
void ws_free(ws_server *w);

/* sizeof(ws_sock), the memory of an idle WebSocket connection here. */
size_t ws_sock_size(void);

#endif
