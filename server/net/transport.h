/*
 * transport: how bytes reach and leave one connection, as a small vtable
 * (conn.tp). The connection core (conn.h) calls these; a transport calls
 * back the conn_* functions of conn.h's "for transports" part.
 *
 * Framing belongs to the transport: a byte stream (TCP) cuts lines
 * (qk_frame), a message transport (WebSocket) delivers each message
 * whole; the core asks next() for the next complete message either way.
 * Output is the core's held queue of outbufs, each one protocol message
 * ending in '\n': a line transport writes the bytes as they are, a message
 * transport frames each one without its newline.
 *
 * Every function runs on the loop thread.
 */
#ifndef QK_TRANSPORT_H
#define QK_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct conn conn;
typedef struct net net;
typedef struct outmsg outmsg;
typedef struct conn_addr conn_addr;

typedef struct transport {
    const char *name; /* "tcp", "ws": for logs */
    /* The next complete message buffered for c: 1 and *msg / *len (the
     * message is NUL-terminated at msg[len] and valid until the next
     * call), 0 when none is complete, -1 when the next one is over the
     * limit (the core answers line_too_long and closes). */
    int (*next)(conn *c, char **msg, size_t *len);
    /* Start / stop taking input; while started, input is buffered and
     * conn_input() (or conn_input_end() at the peer's end) called. start
     * returns 0 or a negative libuv error (the core closes c). */
    int (*read_start)(conn *c);
    void (*read_stop)(conn *c);
    /* Whether the peer sent input that was not taken yet (the stop waits
     * for it to be read and answered before ending the connection). */
    bool (*unread)(conn *c);
    /* Write the list msgs (count messages, bytes in all, in order; the
     * transport owns the list from now and frees it with
     * outmsg_free_list()). Returns the bytes still in flight (0: all
     * written), whose completion the transport reports with
     * conn_write_done(); or a negative libuv error (c is closed). */
    ssize_t (*write)(conn *c, outmsg *msgs, size_t count, size_t bytes);
    /* End the output after what was written (TCP: FIN); completion is
     * reported by conn_shutdown_done(). 0 or a negative libuv error. */
    int (*shutdown)(conn *c);
    /* Close the transport; once its handles are released it calls
     * conn_closed(). Called once. */
    void (*close)(conn *c);
    /* Free c's memory (the transport allocated it); the core calls this
     * when the last reference goes. */
    void (*free_conn)(conn *c);
    /* The peer's address into *out (conn_addr_set; family
     * CONN_ADDR_NONE when unknown). */
    void (*peer_addr)(conn *c, conn_addr *out);
    /* sizeof the transport's struct, whose first member is the conn: the
     * upper layer's data (net_hooks.data_size) follows it (conn_alloc_size). */
    size_t size;
} transport;

#endif
