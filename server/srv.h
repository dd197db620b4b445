/*
 * srv: the server object that ties the loop, the network layer, the store
 * and the game service together, and the session of each connection.
 *
 * Design. One srv per process, on one libuv loop; nothing here is shared
 * with another thread (the thread pool hashes passwords, auth.h, and
 * computes hints, hint.c; its workers touch only their own job).
 * Requests run to completion on the loop thread; their writes go into the
 * iteration's transaction and their output into the connections' held
 * queues. A uv_prepare and a uv_check handle call srv_flush() once per
 * iteration: commit first, then write. The prepare handle covers output
 * made by timers and deferred callbacks before the loop blocks; the check
 * handle covers everything read in the poll phase (store.h, "Group
 * commit"). A connection handles a bounded batch of lines per iteration
 * (conn.h, "Backpressure"); while some have lines waiting, a uv_idle
 * handle runs and keeps the loop from blocking, and its callback hands
 * each of them its next batch, which the prepare handle then commits and
 * writes.
 *
 * Requests are rate-limited per connection (ratelimit.h): a token bucket
 * of cfg.rate, one token per request line; a request without a token is
 * answered `rate_limited` with `retry_after_ms` and not run.
 *
 * Events go to connections through two registries: user id -> the
 * connections logged in as that user, game id -> the connections
 * subscribed to it. One event is serialized once (an outbuf) and queued to
 * each recipient once, even if a connection is both a player and a
 * subscriber (a per-event stamp on the session).
 *
 * Time comes from srv_now(), the one clock of the server: deadlines
 * (corr.h) and every stored time read it, and tests drive it through
 * --test-clock and the debug_clock op.
 *
 * Stopping (SIGINT/SIGTERM, srv_stop). Nothing a client was told is lost
 * and every request gets its one answer:
 *   1. the listener closes and the correspondence timers stop (last_alive
 *      is staged); what is staged is committed and written;
 *   2. from then on every request line, buffered or arriving, is answered
 *      `server_shutdown` (with its id when the line parses and has a valid
 *      one) instead of being run (dispatch.c);
 *   3. work already on the thread pool (a password hash, a hint) finishes
 *      and is answered normally, a register or login committing as usual;
 *      its connection's waiting lines then get `server_shutdown`;
 *   4. each connection is ended once it is quiet (conn.h net_shutdown):
 *      nothing deferred or buffered or unread, all its output written;
 *      then FIN (uv_shutdown) and close;
 *   5. SRV_STOP_GRACE_MS after the signal whatever is still open (a client
 *      that does not read, or never stops sending) is closed;
 *   6. when the last connection is closed the server's handles close,
 *      uv_run() returns after the pool's last completions, and main()
 *      closes the database (srv_close) and exits 0.
 *
 * Password hashes are capped: at most cfg.max_hash_jobs (default
 * SRV_MAX_HASH_JOBS) queued or running at once; beyond that register and
 * login with a password are answered `server_busy` with `retry_after_ms`
 * (dispatch.c) so logins cannot fill libuv's small thread pool.
 */
#ifndef QK_SRV_H
#define QK_SRV_H

#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

#include "net/conn.h"
#include "util/ratelimit.h"
#include "util/registry.h"
#include "store/store.h"

struct games;

#define SESSION_MAX_SUBS 64    /* subscriptions per connection */
#define SRV_STOP_GRACE_MS 5000 /* from the stop signal to closing what is left */
#define SRV_MAX_HASH_JOBS 16   /* password hashes queued or running */
#define SRV_BUSY_RETRY_MS 250  /* retry_after_ms when the hash cap is reached */

/* Per-connection state of the upper layer (conn->data). */
typedef struct session {
    int64_t user_id; /* 0: anonymous */
    char username[STORE_NAME_MAX + 1];
    bool bot;
    bool has_token; /* token_hash is the one this connection logged in with */
    uint8_t token_hash[STORE_TOKEN_HASH];
    reg_node *user_node; /* in srv->users while logged in */
    reg_node *subs[SESSION_MAX_SUBS];
    int nsubs;
    uint64_t event_stamp; /* last event queued here (dedup) */
    rate_bucket rate;     /* requests of this connection (srv.cfg.rate) */
    uint64_t opened_at;   /* uv_now() at accept: the login deadline counts from it */
    bool logged_in_once;  /* a login succeeded: never closed for idling anonymously */
} session;

typedef struct srv_config {
    const char *host;    /* listen address */
    int port;            /* 0 = ephemeral */
    const char *db_path; /* SQLite file */
    int ready_fd;        /* -1 = none */
    bool pwhash_min;     /* libsodium MIN limits instead of INTERACTIVE */
    size_t line_limit;   /* 0 = QK_FRAME_DEFAULT_LIMIT */
    size_t out_limit;    /* 0 = NET_DEFAULT_OUT_LIMIT */
    int fail_commit_at;  /* fault injection (store_fail_commit_at), 0 = off */
    bool test_clock;     /* time is test_clock_ms, moved only by debug_clock (corr.h) */
    int64_t test_clock_ms;
    int heartbeat_ms;     /* empty line after this much output silence; 0 = 20000 */
    int login_timeout_ms; /* close a connection not logged in by then; 0 = 60000 */
    rate_cfg rate;        /* per-connection request limit; all zero = the defaults */
    int max_hash_jobs;    /* password hashes at once; 0 = SRV_MAX_HASH_JOBS */
    int hash_delay_ms;    /* tests only: each hash job sleeps this long first */
} srv_config;

/* A change to undo in memory if the iteration's transaction is lost. */
typedef struct srv_undo {
    enum { UNDO_GAME, UNDO_SESSION } kind;
    int64_t game_id;
    conn *conn;    /* referenced */
    session saved; /* user fields only */
} srv_undo;

typedef struct srv {
    uv_loop_t *loop;
    srv_config cfg;
    net net;
    store *store;
    struct games *games;
    struct corr *corr; /* deadlines, heartbeats (corr.h) */
    registry users;    /* user id -> conn */
    registry subs;     /* game id -> conn */
    uv_prepare_t prep;
    uv_check_t check;
    uv_idle_t idle; /* runs while connections have lines waiting (net_run_ready) */
    uv_signal_t sigint, sigterm;
    uv_timer_t stop_timer; /* the grace period of a stop */
    bool handles_open, signals_open, stopping, poisoned, stop_timer_open;
    int hash_jobs;      /* password hashes queued or running (auth.c) */
    bool undo_overflow; /* an undo could not be recorded: reload all games */
    srv_undo *undo;
    size_t nundo, capundo;
    int64_t (*clock)(void *arg);
    void *clock_arg;
    uint64_t event_seq;
    uint64_t commits, commit_failures; /* batches, for the log at stop */
    unsigned long long opslimit;       /* Argon2id */
    size_t memlimit;
    char dummy_hash[STORE_PWHASH_MAX]; /* verified against for unknown users */
    int port;                          /* bound */
} srv;

/* Open the store (migrating it), create the game service and the flush
 * handles on loop. sodium_init() must have succeeded. Returns 0, or -1
 * after logging why (everything acquired is released). */
int srv_init(srv *s, uv_loop_t *loop, const srv_config *cfg);
/* Listen (cfg host/port), report the port on cfg.ready_fd, install the
 * SIGINT/SIGTERM handlers. 0 or -1 (logged). */
int srv_start(srv *s);
/* Graceful stop (the signal handlers call it): see "Stopping" above.
 * Returns at once; uv_run() returns when it is over. Idempotent. */
void srv_stop(srv *s);
/* After uv_run() returned: free everything and close the database. */
void srv_close(srv *s);

/* UTC milliseconds from the server's clock (qk_now_ms unless replaced). */
int64_t srv_now(srv *s);

/* Commit the iteration's writes, then write held output (see above). */
void srv_flush(srv *s);

/* Before a handler's first write: opens the iteration's transaction.
 * Returns 0, or -1 (answer `internal`). */
int srv_write_begin(srv *s);
/* A write failed half-way: the whole iteration's transaction will be
 * rolled back at flush and its responses turned into `internal`. */
void srv_poison(srv *s);
/* Record that the cached game id is being changed (forgotten on loss). */
void srv_touch_game(srv *s, int64_t game_id);
/* Record c's session before a login/logout changes it (restored on loss). */
void srv_touch_session(srv *s, conn *c);

/* Send a response (msg borrowed; its "id" must be id) to c; it depends
 * on the transaction when one is open. */
void srv_reply(srv *s, conn *c, const cJSON *id, const cJSON *msg);

/* Events: srv_event_begin() starts one fan-out (dedup scope), then queue
 * ob to the connections of a user, the subscribers of a game, or every
 * logged-in connection. */
void srv_event_begin(srv *s);
void srv_event_user(srv *s, outbuf *ob, int64_t user_id);
void srv_event_game(srv *s, outbuf *ob, int64_t game_id);
void srv_event_all(srv *s, outbuf *ob);

/* ---- sessions (session.c) --------------------------------------------- */

/* The session of c (never NULL after accept). */
session *session_of(conn *c);
/* Log c in as user (token_hash may be NULL). Replaces a previous login.
 * Returns 0, or -1 on allocation failure (c stays anonymous). */
int session_login(srv *s, conn *c, int64_t user_id, const char *username, bool bot,
                  const uint8_t *token_hash);
/* Back to anonymous; subscriptions are kept. */
void session_logout(srv *s, conn *c);
/* Subscribe c to a game's events: 0, 1 when already subscribed, -1 when
 * the per-connection limit is reached or on allocation failure. */
int session_subscribe(srv *s, conn *c, int64_t game_id);
/* 0, or 1 when c was not subscribed. */
int session_unsubscribe(srv *s, conn *c, int64_t game_id);
/* net hooks. */
int session_open_cb(conn *c);
void session_close_cb(conn *c);
void session_free_cb(conn *c);

#endif
