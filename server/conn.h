/*
 * conn: TCP connections on one libuv loop, JSON-lines framing, and the
 * held-output queue that makes group commit possible.
 *
 * Design. The network layer knows nothing of ops, sessions or rules. A
 * `net` owns the listener and every `conn`; each read is appended to the
 * connection's qk_frame and every complete non-empty line goes to
 * hooks.line_cb. A line over the limit gets `line_too_long`, then the
 * connection is closed once that error is written.
 *
 * Output is never written from inside a request: conn_send() appends a
 * shared, reference-counted `outbuf` to the connection's held queue and
 * marks it dirty; net_flush() (called by the server once per loop
 * iteration, after the store has committed) writes every dirty
 * connection's queue with one uv_try_write/uv_write. Messages sent while a
 * transaction is open carry CONN_MSG_TXN; if that commit fails,
 * net_fail_txn() turns such responses into `internal` errors (same id) and
 * drops such events, so nothing uncommitted ever reaches a socket.
 *
 * Pending output (held + handed to libuv) is capped per connection: a
 * client that does not read is disconnected, never buffered without
 * bound. A single message larger than the cap is let through when nothing
 * else is pending (a login result listing many games). conn_close() is idempotent; the conn is freed only when its
 * handle's close callback has run and every conn_ref() was released, so
 * work on the thread pool may hold a reference across a close.
 */
#ifndef QK_CONN_H
#define QK_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <uv.h>

#include "qk_frame.h"

#define NET_DEFAULT_OUT_LIMIT (1024 * 1024) /* bytes of pending output per conn */
#define NET_DEFAULT_MAX_CONNS 4096

/* Bytes of one serialized message ('\n' included), shared by every
 * connection it is sent to. */
typedef struct outbuf {
    int refs;
    size_t len;
    char data[];
} outbuf;

/* Serialize msg (qk_proto_print) into a new outbuf with one reference the
 * caller owns (outbuf_unref). NULL on allocation failure. */
outbuf *outbuf_from_json(const cJSON *msg);
outbuf *outbuf_ref(outbuf *ob);
void outbuf_unref(outbuf *ob);

enum { CONN_MSG_TXN = 1 }; /* depends on the open transaction */

typedef struct outmsg {
    struct outmsg *next;
    outbuf *ob;
    cJSON *txn_id; /* copy of the request id, for responses under CONN_MSG_TXN */
    unsigned flags;
} outmsg;

typedef struct conn conn;
typedef struct net net;

typedef struct net_hooks {
    /* A connection was accepted: set c->data. Return 0, or -1 to refuse
     * it (it is closed at once). */
    int (*open_cb)(conn *c);
    /* One complete, non-empty line (NUL-terminated at line[len]; valid
     * only during the call). */
    void (*line_cb)(conn *c, char *line, size_t len);
    /* conn_close() was called: the upper layer drops its references to c
     * (registries) but may keep conn_ref()s. Called exactly once. */
    void (*close_cb)(conn *c);
    /* The conn is about to be freed: release c->data. */
    void (*free_cb)(conn *c);
} net_hooks;

struct conn {
    uv_tcp_t tcp;
    net *net;
    void *data; /* the upper layer's session; see hooks */
    uint64_t serial;
    int refs;
    int paused; /* conn_pause() depth; reading is stopped while > 0 */
    bool closing, reading, eof, close_after_write;
    bool processing; /* inside the line loop (conn_resume must not nest it) */
    char peer[64];
    qk_frame frame;
    outmsg *held, **held_tail;
    size_t held_bytes, held_count;
    size_t inflight_bytes; /* handed to libuv, not yet completed */
    uint64_t last_out;     /* uv_now() of the last write (or the accept); heartbeat */
    conn *dirty_next, *dirty_prev;
    bool dirty;
    conn *next, *prev; /* every open connection of the net */
};

struct net {
    uv_loop_t *loop;
    uv_tcp_t listener;
    bool listening;
    net_hooks hooks;
    void *data; /* the upper layer's */
    size_t line_limit, out_limit, max_conns;
    size_t nconns;
    uint64_t next_serial;
    conn *all;
    conn *dirty;
    char readbuf[64 * 1024];
};

/* Prepare net on loop (no handle is created yet). line_limit/out_limit 0
 * mean the defaults. */
void net_init(net *n, uv_loop_t *loop, const net_hooks *hooks, size_t line_limit,
              size_t out_limit);

/* Bind host:port (numeric or resolvable host; port 0 = ephemeral) and
 * listen. On success returns 0 and sets *bound_port. Returns a negative
 * libuv error code otherwise (no handle left open). */
int net_listen(net *n, const char *host, int port, int *bound_port);

/* Close the listener (idempotent). Accepted connections stay. */
void net_stop_listening(net *n);
/* conn_close() every connection. */
void net_close_all(net *n);

/* Write the held output of every dirty connection. */
void net_flush(net *n);
/* The open transaction failed: replace held CONN_MSG_TXN responses by an
 * `internal` error with the same id and the given message; drop held
 * CONN_MSG_TXN events. Call before net_flush(). */
void net_fail_txn(net *n, const char *message);

/* Queue ob (a reference is taken) for c. flags: CONN_MSG_TXN; id: the
 * request id when ob is a response (copied when CONN_MSG_TXN), else NULL.
 * Returns 0; -1 when c is closing (dropped) or when the pending-output cap
 * is exceeded (c is closed) or on allocation failure (c is closed). */
int conn_send(conn *c, outbuf *ob, unsigned flags, const cJSON *id);

/* Serialize and queue msg (borrowed). Same results as conn_send(). */
int conn_send_json(conn *c, const cJSON *msg, unsigned flags, const cJSON *id);

/* Start closing (idempotent): stop reading, drop held output, call
 * hooks.close_cb, uv_close the handle. */
void conn_close(conn *c);

/* Stop taking lines from c (and reading from its socket) until the
 * matching conn_resume(). Nested calls count. Lines already buffered are
 * kept in order and processed on resume. */
void conn_pause(conn *c);
void conn_resume(conn *c);

/* References keep the struct (not the socket) alive across a close. */
void conn_ref(conn *c);
void conn_unref(conn *c);

#endif
