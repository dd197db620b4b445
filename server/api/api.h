/*
 * api: the protocol layer's context: ops over the game service, on the
 * connections of the network layer. One per server; srv.c fills it in and
 * owns it.
 *
 * Design. The api layer is the only one that knows both sides: it turns
 * a request line (net) into a call of the game service (game) and the
 * service's events into output on the right connections. It
 * holds the registries that map users and watched games to connections
 * (their entries are the sessions of session.h) and the request rate
 * limit; fanout.h delivers the game service's events through them and
 * heartbeat.h keeps quiet connections alive.
 *
 * Requests are rate-limited per connection (util/ratelimit.h): a token
 * bucket of rate, one token per request line; a request without a token is
 * answered `rate_limited` with `retry_after_ms` and not run.
 *
 * Output. api_reply() queues a response to its connection; it depends on
 * the batch when one is open (net/conn.h CONN_MSG_TXN), so nothing
 * uncommitted reaches a client.
 */
#ifndef QK_API_H
#define QK_API_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <uv.h>

#include "game/svc.h"
#include "net/conn.h"
#include "util/metrics.h"
#include "util/ratelimit.h"
#include "util/registry.h"
#include "util/workers.h"

#define API_BUSY_RETRY_MS 250      /* retry_after_ms when the hash cap is reached */
#define API_MAX_CONNS_PER_ACCOUNT 8 /* connections logged in as one user at once */

typedef struct api {
    uv_loop_t *loop;
    net *net;  /* borrowed */
    gsvc *svc; /* borrowed */
    registry users; /* user id -> conn logged in as that user */
    registry subs;  /* game id -> conn subscribed to it */
    uint64_t event_seq; /* one per fan-out: a connection gets an event once */
    rate_cfg rate;      /* per-connection request limit */
    rate_window challenge_rate; /* challenges per account (ops_challenge.c); set after api_init */
    /* Figures (util/metrics.h; srv.c makes them, NULL = not counted):
     * requests by op (the row's index in the op table from op0, + 1; 0 =
     * a line refused before its op was known) and result (0 = ok, else the
     * qk_err), logins by result (0 ok, 1 refused), request lines held. */
    metric *m_requests, *m_logins, *m_held;
    const struct op_def *op0;
    bool stopping;      /* every request is answered server_shutdown */
    int max_per_account; /* connections logged in as one user (API_MAX_CONNS_PER_ACCOUNT) */
    workers *hints;      /* borrowed: the engine's pool (hint.c); NULL = hints refused */
    /* Request lines held while the store holds writes (dispatch.h
     * dispatch_release), oldest first; owned. */
    struct held_line *held, **held_tail;
    /* Told when a user's first connection here logs in (true) and when the
     * last one logs out or closes (false): api/cluster.c tells the other
     * nodes. NULL = nobody. */
    void (*presence)(void *ctx, int64_t user_id, bool online);
    void *presence_ctx;
} api;

/* Set a up over net and svc (both borrowed). rate all zero = the
 * defaults of ratelimit.h; max_per_account 0 = API_MAX_CONNS_PER_ACCOUNT.
 * Cannot fail. */
void api_init(api *a, uv_loop_t *loop, net *n, gsvc *svc, rate_cfg rate, int max_per_account);
/* From now on every request is answered server_shutdown. Idempotent. */
void api_stop(api *a);
/* After uv_run returned: free the registries. */
void api_free(api *a);

/* Send a response (msg borrowed; its "id" must be id) to c; it depends on
 * the batch when one is open. */
void api_reply(api *a, conn *c, const cJSON *id, const cJSON *msg);
/* The same for an answer that reveals nothing of the open batch (hello,
 * ping): it waits for no fsync, only for what is queued before it on c. */
void api_reply_now(api *a, conn *c, const cJSON *id, const cJSON *msg);

#endif
