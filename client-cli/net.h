/*
 * net: the client's side of one JSON-lines TCP connection (PROTOCOL.md
 * "Framing", "Requests and responses").
 *
 * Design. The client is single-threaded and mostly synchronous: a command
 * sends one request and waits for its answer. The server may push events at
 * any time, so a reply is never "the next line": net_request() reads lines
 * until the response carrying its id arrives and queues every event it meets
 * on the way, to be taken later with net_next_event(); complete lines that
 * arrived in the same read as the response are queued too, because they are
 * off the socket and poll() will never report them. The interactive loop
 * polls net_fd() itself and calls net_pump() to consume whatever arrived.
 * Bytes go through qk_frame, so a read never has to be one message. The
 * socket is non-blocking and every wait is a poll() with a deadline, so a
 * silent server costs a timeout, never a hang. Lines from the server are
 * parsed with qk_proto_parse_line(): a malformed line is dropped, not
 * trusted.
 */
#ifndef QC_NET_H
#define QC_NET_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "qk_frame.h"

/* Errors (negative) of this module. */
enum {
    NET_OK = 0,
    NET_ECONNECT = -1,  /* could not resolve or connect */
    NET_ECLOSED = -2,   /* the peer closed or the socket failed */
    NET_ETIMEDOUT = -3, /* no answer before the deadline */
    NET_EPROTO = -4,    /* the server broke the framing (line over our limit) */
    NET_ENOMEM = -5,
};

/* Longest line we accept from the server. Larger than the server's own
 * request limit because results (game lists) are bigger than requests. */
#define NET_LINE_LIMIT (16u * 1024 * 1024)

typedef struct net_conn {
    int fd;           /* -1 when closed */
    qk_frame frame;   /* bytes received and not yet consumed */
    uint64_t next_id; /* last request id used; ids are 1, 2, ... */
    cJSON *events;    /* array of queued events, oldest first */
} net_conn;

/* Split "HOST:PORT" ("[v6]:PORT" for IPv6 literals) into host (size hn) and
 * port (size pn). Returns 0, or -1 when the text is not of that shape or the
 * port is not 1..65535. */
int net_split_hostport(const char *hostport, char *host, size_t hn, char *port, size_t pn);

/* Initialise c as closed. Safe to net_close() afterwards. */
void net_init(net_conn *c);

/* Connect to hostport ("HOST:PORT"), waiting at most timeout_ms per
 * address. Returns NET_OK, NET_ECONNECT (also for a malformed hostport) or
 * NET_ENOMEM. c must be closed (net_init or net_close) before. */
int net_connect(net_conn *c, const char *hostport, int timeout_ms);

/* Close the socket and drop buffered bytes and queued events. Idempotent. */
void net_close(net_conn *c);

/* Whether c has a socket. */
bool net_is_open(const net_conn *c);

/* The socket, for poll(); -1 when closed. */
int net_fd(const net_conn *c);

/* Send msg as one line. Blocks (with timeout_ms) until every byte is
 * written. Returns NET_OK, NET_ECLOSED, NET_ETIMEDOUT or NET_ENOMEM; on
 * any error the connection should be closed. msg stays the caller's. */
int net_send(net_conn *c, const cJSON *msg, int timeout_ms);

/* Send req with a fresh integer id (set or replaced in req, which stays
 * the caller's) and wait at most timeout_ms for the response with that id.
 * Events read meanwhile are queued; responses to other (abandoned) ids are
 * dropped. An error without an id (the server could not read our line) is
 * taken as the answer. On NET_OK *resp is the response ("ok" or "error"),
 * owned by the caller (cJSON_Delete). Otherwise *resp is NULL and the
 * error is NET_ECLOSED, NET_ETIMEDOUT, NET_EPROTO or NET_ENOMEM. */
int net_request(net_conn *c, cJSON *req, int timeout_ms, cJSON **resp);

/* Read whatever the socket holds without blocking and queue the events in
 * it (responses are dropped: nobody waits for them). Returns NET_OK, or
 * NET_ECLOSED / NET_EPROTO / NET_ENOMEM when the connection is unusable. */
int net_pump(net_conn *c);

/* The oldest queued event, detached: the caller owns it (cJSON_Delete).
 * NULL when the queue is empty. */
cJSON *net_next_event(net_conn *c);

/* Milliseconds on a monotonic clock, for deadlines. */
int64_t net_now_ms(void);

#endif
