/*
 * heartbeat: keeps quiet connections alive and closes idle anonymous
 * ones. One timer sweeps every connection every quarter of the shorter of
 * the two periods:
 *   - a connection with no output for heartbeat_ms (20 s by default) gets
 *     an empty line (a client sees the server is alive; NAT entries stay);
 *   - a connection not logged in login_timeout_ms (60 s by default) after
 *     it was accepted gets an `unauthenticated` error without id ("log in
 *     within 60 s") and is closed once it is written; one with a request
 *     deferred (a login being hashed) is left alone.
 */
#ifndef QK_HEARTBEAT_H
#define QK_HEARTBEAT_H

#include <stdbool.h>

#include <uv.h>

#include "api/api.h"
#include "net/conn.h"

#define HEARTBEAT_MS 20000     /* empty line after this much output silence */
#define LOGIN_TIMEOUT_MS 60000 /* anonymous connections closed after */

typedef struct heartbeat {
    api *api; /* borrowed */
    int heartbeat_ms, login_timeout_ms;
    uv_timer_t timer;
    bool open;
    outbuf *empty_line;
} heartbeat;

/* Prepare h over a's connections (timer created, not started);
 * heartbeat_ms / login_timeout_ms 0 = the defaults. 0, or -1 (logged). */
int heartbeat_init(heartbeat *h, api *a, int heartbeat_ms, int login_timeout_ms);
/* Start sweeping. 0 or -1 (logged). */
int heartbeat_start(heartbeat *h);
/* Close the timer (at the stop). Idempotent. */
void heartbeat_stop(heartbeat *h);
/* After uv_run returned. */
void heartbeat_free(heartbeat *h);

#endif
