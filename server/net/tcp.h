/*
 * tcp: the TCP transport (transport.h) and its listener: JSON lines over a
 * byte stream.
 *
 * Reading uses one 64 KiB buffer per listener (the loop thread reads one
 * socket at a time), lent to the connection's line frame (qk_frame_lend:
 * the line limit, CR LF) so lines are cut in it without a copy; after the
 * read only what was not taken, an incomplete last line or lines left for
 * the next turn (backpressure), is copied into a buffer of the
 * connection's own, of just that size, which is freed once taken. The
 * frame's state itself is the listener's during a read and the
 * connection's (allocated) only while such bytes wait: an idle connection
 * with no partial line holds neither a read buffer nor a frame.
 *
 * Writing gathers the held messages into one iovec: uv_try_write first
 * (usually everything goes out at once), uv_write for what is left, which
 * keeps the order because a try is only made when nothing is in flight.
 * Answers are whole lines written at once, so Nagle's delay is off
 * (TCP_NODELAY).
 */
#ifndef QK_TCP_H
#define QK_TCP_H

#include <stdbool.h>
#include <stddef.h>

#include <uv.h>

#include "net/conn.h"
#include "qk_frame.h"

typedef struct tcp_listener {
    net *net; /* borrowed: accepted connections join it */
    uv_tcp_t handle;
    bool listening;
    char readbuf[64 * 1024];
    /* The frame of the connection being read, lent readbuf: a connection
     * gets a frame of its own only for the bytes left after a read. */
    qk_frame frame;
} tcp_listener;

/* Bind host:port (numeric or resolvable host; port 0 = ephemeral) and
 * listen; accepted connections join n. On success returns 0 and sets
 * *bound_port. Returns a negative libuv error code otherwise (no handle
 * left open; logged). */
int tcp_listen(tcp_listener *l, net *n, const char *host, int port, int *bound_port);

/* Close the listener (idempotent). Accepted connections stay. */
void tcp_stop_listening(tcp_listener *l);

/* Input of one connection held between reads (tests, diagnostics): the
 * bytes received and not taken yet (an incomplete line, or complete lines
 * left for a later turn), and the heap bytes of the buffer the connection
 * holds for them (0 when it holds none: the read buffer is the
 * listener's; the frame's own struct, sizeof(qk_frame), comes on top
 * while the connection holds bytes). Both 0 for a connection of another
 * transport. */
size_t tcp_input_pending(const conn *c);
size_t tcp_input_heap(const conn *c);

/* Whether tcp connection c holds a frame of its own (a qk_frame: only
 * while bytes wait); false for another transport. For tests. */
bool tcp_input_holds_frame(const conn *c);

#endif
