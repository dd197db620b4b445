/*
 * conn: connections on one libuv loop, whatever carries them, and the
 * held-output queue that makes group commit possible.
 *
 * Design. The network layer knows nothing of ops, sessions or rules. A
 * `net` owns every `conn`; how bytes reach and leave a connection is its
 * transport (transport.h: a small vtable; TCP with JSON-lines is
 * net/tcp.h; WebSocket, one message per text frame instead of a line, is
 * net/ws.h). What is here does not depend on the transport: the life cycle,
 * the per-turn budget and backpressure, the held output queue, and the
 * graceful end. Each complete non-empty message the transport has framed
 * goes to hooks.line_cb; a message over the limit gets `line_too_long`,
 * then the connection is closed once that error is written.
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
 * Durability epochs. The store makes a batch durable after it committed
 * (store/batch.h: the fsync runs on a writer thread while the loop goes
 * on), so output under CONN_MSG_TXN carries the epoch of the batch it
 * depends on (net.txn_epoch when queued) and is written only once
 * net_durable() reported that epoch. A connection's queue stays in order:
 * a flush writes the prefix of messages whose epochs are durable (a
 * message of no batch, epoch 0, is never held back except by what is in
 * front of it), and the rest waits for the next net_durable(). A ping on
 * a connection with nothing pending is answered at once, whatever fsync is
 * in flight.
 *
 * Backpressure. Because output waits for the commit at the end of the
 * loop turn, the work done per connection per turn must be bounded, or a
 * fast writer (or a few of them aimed at one victim) piles up more output
 * in one turn than any reader could take. So (Redis processes a bounded
 * batch per client per event-loop pass for the same reason):
 *   - at most net.lines_per_turn (NET_LINES_PER_TURN) lines of one
 *     connection are handled per turn. The rest stays in its qk_frame,
 *     reading from that socket stops (the kernel's buffers and then TCP
 *     flow control hold the sender), and the connection goes on the
 *     `ready` list; net_run_ready() (the server calls it from a uv_idle
 *     handle, i.e. on the next turn, after the commit and the flush)
 *     handles its next batch;
 *   - a connection whose pending output is at or above net.out_soft
 *     (a quarter of the cap) gets no more lines handled and is not read
 *     until its output drains to half of that (write callbacks): a client
 *     that pipelines requests but reads slowly is slowed down, not cut.
 * Pending output (held + handed to the transport) is capped per
 * connection (out_limit) for unrequested output only: an event that would
 * pass the cap closes a connection that does not read what other users'
 * actions send it. A request's own answer (CONN_MSG_REPLY) is always
 * queued: the budget and the soft limit above already bound how many
 * answers one connection can have pending, and answers are bounded in size
 * (listings are paged), so dropping one would only hide a bug from the
 * client that asked. conn_close() is idempotent; the conn is freed only when
 * its handle's close callback has run and every conn_ref() was released,
 * so work on the thread pool may hold a reference across a close.
 *
 * Memory (docs/perf.md "Idle connection memory"). Tens of thousands of
 * connections sit idle, so an idle one is kept to one allocation: the
 * transport's struct with the conn first (128 bytes), the upper layer's
 * per-connection data behind it (net_hooks.data_size), nothing else. What
 * only a busy connection needs (the held queue, the dirty and ready lists'
 * links) is a conn_out allocated with its first output or waiting line
 * and freed once it is drained; the peer is kept as a binary address,
 * named on demand (conn_peer); the per-address cap chains connections
 * through links of their own (no registry node).
 */
#ifndef QK_CONN_H
#define QK_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <uv.h>

#include "net/transport.h"

#define NET_DEFAULT_OUT_LIMIT (1024 * 1024) /* bytes of pending output per conn */
#define NET_DEFAULT_MAX_CONNS 4096
/* Connections from one address at once: a classroom behind one NAT
 * address fits. */
#define NET_DEFAULT_MAX_PER_ADDR 200
/* Lines of one connection handled per loop turn (between two commits):
 * enough that a client playing fast is never held back (the server bench
 * sends one move at a time), small enough that a turn's output of one
 * connection stays far below the output cap. */
#define NET_LINES_PER_TURN 100

/* Bytes of one serialized message, shared by every connection it is sent
 * to. It ends with '\n': a line transport writes it as it is, a message
 * transport leaves the newline out. */
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

enum {
    CONN_MSG_TXN = 1,   /* depends on the open transaction */
    CONN_MSG_REPLY = 2, /* the answer to a request: never dropped for the output cap */
    /* Depends on committed state but on no open transaction (a read, an
     * event of a timer): waits for the last committed epoch, so nobody is
     * shown a change before it is on disk. */
    CONN_MSG_AFTER = 4,
};

typedef struct outmsg {
    struct outmsg *next;
    outbuf *ob;
    cJSON *txn_id; /* copy of the request id, for responses under CONN_MSG_TXN */
    unsigned flags;
    uint64_t epoch; /* CONN_MSG_TXN: the batch's epoch; CONN_MSG_AFTER: the last committed
                     * one (each waits for its durability); else 0 */
} outmsg;


typedef struct net_hooks {
    /* A connection was accepted: set up c->data (when data_size is not 0
     * it points at data_size zeroed bytes that come with the connection;
     * else it is NULL and the hook may set it). Return 0, or -1 to refuse
     * it (it is closed at once). */
    int (*open_cb)(conn *c);
    /* One complete, non-empty line (NUL-terminated at line[len]; valid
     * only during the call). */
    void (*line_cb)(conn *c, char *line, size_t len);
    /* conn_close() was called: the upper layer drops its references to c
     * (registries) but may keep conn_ref()s. Called exactly once. */
    void (*close_cb)(conn *c);
    /* The conn is about to be freed: release what c->data holds (and
     * c->data itself unless it came with the connection). */
    void (*free_cb)(conn *c);
    /* Bytes of the upper layer's per-connection data, allocated in the
     * transport's block behind its struct (one allocation per connection
     * instead of two; docs/perf.md "Idle connection memory"), aligned to
     * CONN_DATA_ALIGN. 0: none. */
    size_t data_size;
} net_hooks;

/* The alignment of the bytes hooks.data_size asks for. */
#define CONN_DATA_ALIGN 8

/* A peer's address in binary (its text, "host:port", is made on demand:
 * conn_peer). */
enum { CONN_ADDR_NONE = 0, CONN_ADDR_V4 = 4, CONN_ADDR_V6 = 6 };
typedef struct conn_addr {
    uint8_t bytes[16]; /* network order; IPv4: the first 4 */
    uint16_t port;     /* host order */
    uint8_t family;    /* CONN_ADDR_*; NONE: unknown, named "?" */
} conn_addr;

/* Room for conn_peer()'s text: an IPv6 host (at most 45 characters),
 * ':', a port and the NUL. */
#define CONN_PEER_MAX 64

/* The output side of a connection: allocated when it has something to
 * write or lines waiting for a later turn, freed as soon as it has
 * neither (an idle connection does not carry it). */
typedef struct conn_out {
    outmsg *held, **held_tail;
    size_t held_bytes, held_count;
    size_t inflight_bytes; /* handed to the transport, not yet written */
    conn *dirty_next, *dirty_prev;
    conn *ready_next, *ready_prev;
    uint64_t ready_seq; /* net.ready_seq when put on the list */
} conn_out;

/* One connection. The transport allocates it as the first member of its
 * own struct (conn_alloc_size, conn_init) and frees it
 * (transport.free_conn). Laid out for an idle connection's memory: what
 * only a connection with output or waiting lines needs is in `out`. */
struct conn {
    const transport *tp;
    net *net;
    void *data; /* the upper layer's session; see hooks */
    uint64_t serial;
    conn_out *out;     /* NULL while there is no output and no waiting line */
    conn *next, *prev; /* every open connection of the net */
    conn *addr_next, *addr_prev; /* net.addr_buckets' chain of peer's hash */
    uint64_t turn_seen;          /* net.turn of the last line counted */
    uint64_t last_out;           /* uv_now() of the last write (or the accept); heartbeat */
    int refs;
    unsigned turn_lines; /* lines handled in turn turn_seen */
    int paused;          /* conn_pause() depth; reading is stopped while > 0 */
    conn_addr peer;      /* transport.peer_addr(); conn_peer() names it */
    bool closing : 1, reading : 1, eof : 1, close_after_write : 1;
    bool shutting : 1;    /* the transport's shutdown was started after the stop drained it */
    bool processing : 1;  /* inside the line loop (conn_resume must not nest it) */
    bool out_blocked : 1; /* pending output >= out_soft: no lines until it drains */
    bool ready : 1;       /* on net.ready: lines wait for the next turn */
    bool dirty : 1;       /* on net.dirty: held output to write at the flush */
    bool in_addr : 1;     /* on the chain of net.addr_buckets */
};

struct net {
    uv_loop_t *loop;
    bool stopping; /* net_shutdown() was called */
    net_hooks hooks;
    void *data; /* the upper layer's */
    size_t line_limit, out_limit, max_conns;
    size_t max_per_addr;     /* NET_DEFAULT_MAX_PER_ADDR */
    /* Connections by their peer's address (the host part): a hash table
     * chained through conn.addr_next, doubling when the load passes 2;
     * NULL before the first connection. */
    conn **addr_buckets;
    size_t addr_nbuckets, addr_count;
    size_t out_soft;         /* pending output that pauses a connection */
    unsigned lines_per_turn; /* NET_LINES_PER_TURN */
    uint64_t turn;           /* net_flush() calls so far: budgets reset */
    uint64_t ready_seq;      /* net_run_ready() calls so far */
    size_t nconns;
    struct metric *m_accepted; /* qirkat_connections_accepted_total{transport} (srv.c; NULL = none) */
    uint64_t next_serial;
    conn *all;
    conn *dirty;
    conn *ready_head, *ready_tail; /* FIFO of connections with lines waiting */
    uint64_t txn_epoch;     /* the open batch's epoch: CONN_MSG_TXN output is tagged with it */
    uint64_t durable_epoch; /* every epoch up to this one is on disk */
};

/* Prepare net on loop (no handle is created yet). line_limit/out_limit 0
 * mean the defaults; the soft output limit is out_limit / 4. */
void net_init(net *n, uv_loop_t *loop, const net_hooks *hooks, size_t line_limit, size_t out_limit);

/* conn_close() every connection. */
void net_close_all(net *n);
/* After every connection is gone: free what net_init() set up. */
void net_free(net *n);
/* The server is stopping (call after net_stop_listening): connections go
 * on being read and their lines handed to line_cb as before (the upper
 * layer answers them `server_shutdown`), and each one is ended as soon as
 * it is quiet: no request deferred (paused), no complete line buffered,
 * nothing unread (transport.unread), and all of its output written. Then
 * the transport's shutdown ends the stream after the last byte (TCP: FIN)
 * and its completion closes the connection, so no answer is cut and no
 * unread input turns the close into a reset. A connection that never gets quiet (a client that does not
 * read, or never stops sending) is the caller's to net_close_all() after a
 * grace period. Idempotent. */
void net_shutdown(net *n);

/* Write the held output of every dirty connection, up to the first
 * message whose epoch is not durable yet. Ends the loop turn: every
 * connection may handle lines_per_turn more lines. */
void net_flush(net *n);
/* Every epoch up to epoch is durable: write what waited for it (does not
 * end the loop turn). */
void net_durable(net *n, uint64_t epoch);
/* Whether some connection has lines waiting for the next turn (or output
 * that drained and lines to go on with): the caller must then not let the
 * loop block, and call net_run_ready() on its next turn. */
bool net_has_ready(const net *n);
/* Give each waiting connection its next batch of lines (up to
 * lines_per_turn each; one that still has more goes to the back of the
 * list for the turn after). Call once per turn, after the flush of the
 * previous one, so every batch's answers are committed and written before
 * the next batch runs. */
void net_run_ready(net *n);
/* The open batch (epoch net.txn_epoch) was lost: replace its held
 * CONN_MSG_TXN responses by an `internal` error with the same id and the
 * given message (no longer waiting for any epoch); drop its held events.
 * Output of earlier epochs still waiting for their durability is kept.
 * Call before net_flush(). */
void net_fail_txn(net *n, const char *message);

/* Queue ob (a reference is taken) for c. flags: CONN_MSG_TXN,
 * CONN_MSG_REPLY; id: the request id when ob is a response (copied when
 * CONN_MSG_TXN), else NULL. Returns 0; -1 when c is closing or shut down
 * for writing (dropped), when an unrequested message would pass the
 * pending-output cap (c is closed), or on allocation failure (c is
 * closed). */
int conn_send(conn *c, outbuf *ob, unsigned flags, const cJSON *id);

/* Serialize and queue msg (borrowed). Same results as conn_send(). */
int conn_send_json(conn *c, const cJSON *msg, unsigned flags, const cJSON *id);

/* c's peer as text into buf, which is returned: "a.b.c.d:port" or
 * "host:port" for IPv6 (no brackets), "?" when unknown; for logs. */
const char *conn_peer(const conn *c, char buf[CONN_PEER_MAX]);
/* Whether c has output queued or handed to the transport and not yet
 * written. */
bool conn_output_pending(const conn *c);

/* Start closing (idempotent): stop reading, drop held output, call
 * hooks.close_cb, close the transport. */
void conn_close(conn *c);
/* Read no more from c and close it once its queued output is written
 * (an error sent just before, e.g. the login timeout). */
void conn_close_after_write(conn *c);

/* Stop taking lines from c (and reading from its socket) until the
 * matching conn_resume(). Nested calls count. Lines already buffered are
 * kept in order and processed on resume. */
void conn_pause(conn *c);
void conn_resume(conn *c);

/* References keep the struct (not the socket) alive across a close. */
void conn_ref(conn *c);
void conn_unref(conn *c);

/* ---- for transports (transport.h) ------------------------------------ */

/* Bytes to allocate (zeroed) for one connection of transport tp on n:
 * tp->size and the upper layer's data behind it (net_hooks.data_size). */
size_t conn_alloc_size(const net *n, const transport *tp);
/* Set up c (the first member of the transport's struct, allocated zeroed
 * with conn_alloc_size() bytes) on n with transport tp; c->data points at
 * the upper layer's bytes when it asked for some. One reference, released
 * when the transport reports conn_closed(). */
void conn_init(conn *c, net *n, const transport *tp);
/* Fill *a from a socket address (AF_INET or AF_INET6; any other family,
 * or sa NULL, gives CONN_ADDR_NONE). unmap_v4: an IPv4-mapped IPv6
 * address is kept as IPv4. */
void conn_addr_set(conn_addr *a, const struct sockaddr *sa, bool unmap_v4);
/* Bytes handed to the transport and not yet reported written. */
size_t conn_inflight(const conn *c);
/* c is connected: it joins n, gets its peer name and open_cb, and starts
 * reading; or it is answered server_busy and closed past n.max_conns
 * connections, or past n.max_per_addr from the same address (the host
 * part of its peer name). */
void conn_accepted(conn *c);
/* New input is buffered in the transport: hand out what can be handled. */
void conn_input(conn *c);
/* The peer ended its input (after what was buffered). */
void conn_input_end(conn *c);
/* A write the transport reported in flight completed: bytes of it, status
 * 0 or a negative libuv error (c is then closed). */
void conn_write_done(conn *c, size_t bytes, int status);
/* The transport's shutdown completed (status as for writes): c closes. */
void conn_shutdown_done(conn *c, int status);
/* The transport released its handle after close(): drops the reference
 * conn_init() took. */
void conn_closed(conn *c);
/* Free a list of outmsgs (the transport's, after a write). */
void outmsg_free_list(outmsg *m);

#endif
