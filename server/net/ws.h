/*
 * ws: the HTTP listener of `qirkatd --http HOST:PORT` (libwebsockets on
 * the server's own libuv loop) and the WebSocket transport (transport.h).
 *
 * HTTP. GET of a file of web/ (built into the binary, net/web_files.h;
 * "/" is index.html) answers 200 with its Content-Type (text/html,
 * text/css, text/javascript: ES modules need a JavaScript type) and
 * Cache-Control: no-cache; any other path 404. Upgrading is allowed at
 * "/ws" only (RFC 6455 section 4.2.1): elsewhere, and once the server is
 * stopping, the handshake is refused (the socket is closed).
 *
 * WebSocket transport (../shared/PROTOCOL.md "WebSocket transport"). Each
 * text message (RFC 6455 section 5.6), fragmented or not (section 5.4, the
 * fragments reassembled here), is one protocol message: the core gets it
 * from next() exactly as a line of the TCP transport, so ops, events,
 * errors, rate limits and caps are the same. Limits: a message longer
 * than net.line_limit (64 KiB, like a line without its '\n') is answered
 * `line_too_long` and the connection closed (close code 1009, section
 * 7.4.1); a binary message (opcode 0x2) is answered `bad_request` ("binary
 * frames are not supported") and closed (close code 1003). Ping frames are
 * answered with pong by libwebsockets (section 5.5.2/5.5.3). Output: each
 * held outbuf (one message ending in '\n') is sent as one text frame
 * without the newline; an empty line (the core's heartbeat) is sent as a
 * ping frame instead, which browsers answer on their own.
 *
 * Flow control is the core's (conn.h "Backpressure"): read_stop is
 * lws_rx_flow_control(0), so the kernel's buffers and TCP hold a fast
 * sender; written messages are queued in the transport and sent one per
 * LWS_CALLBACK_SERVER_WRITEABLE, each reported with conn_write_done() once
 * libwebsockets took it, so a client that does not read leaves its
 * messages in flight and reaches the output cap exactly as over TCP. The
 * shutdown of a stop (net_shutdown) is a close frame (1001 "going away")
 * after the last message; conn_close is a close frame (1000) when nothing
 * is waiting, else the socket is dropped at once (the peer does not read).
 *
 * The peer name is the socket's address (getpeername); proxies' headers
 * such as X-Forwarded-For are not trusted.
 *
 * Every function runs on the loop thread.
 */
#ifndef QK_WS_H
#define QK_WS_H

#include <stdbool.h>

#include <uv.h>

#include "net/conn.h"

struct lws_context;
struct lws_vhost;

typedef struct ws_server {
    net *net; /* borrowed: upgraded connections join it */
    struct lws_context *ctx;
    struct lws_vhost *vhost;
    bool destroying; /* lws_context_destroy() called once (step 1) */
    int port;        /* bound */
    unsigned char *txbuf; /* LWS_PRE + the message being written, any connection's */
    size_t txcap;
} ws_server;

/* Create the libwebsockets context on n's loop (LWS_SERVER_OPTION_LIBUV
 * with n->loop as its foreign loop) and listen on host:port (a numeric
 * address or interface name; port 0 = ephemeral). On success returns 0
 * and sets *bound_port. -1 otherwise (logged; nothing left open, though
 * the loop must still run for lws's handles to close: see ws_free). */
int ws_listen(ws_server *w, net *n, const char *host, int port, int *bound_port);

/* Step one of lws's teardown on a foreign loop: lws_context_destroy()
 * closes its listener and every connection it still has and starts closing
 * its libuv handles; the loop must then run until they are closed (uv_run
 * returns). Call once no net connection of w is left (the graceful stop
 * ended them: srv.h "Stopping"). Idempotent; nothing when never started. */
void ws_stop(ws_server *w);

/* Step two, after uv_run() returned: lws_context_destroy() again frees
 * what is left of the context. Idempotent. */
void ws_free(ws_server *w);

#endif
