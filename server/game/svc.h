/*
 * svc: the game service's context, what every module of the game layer
 * (games, corr, notify, events, auth) works with: the store, the
 * iteration's batch, the one clock, the event sink, and the service's
 * own modules. The server (srv.c) fills it in and owns it; the layers
 * above reach the game layer only through it.
 *
 * Events leave the game layer through the sink: the game layer decides
 * what happened and to whom it goes (two users, a game's watchers, every
 * logged-in user: events_to), never how it reaches them. The server wires
 * the sink to the connections (api/fanout.h). An event handed to the sink
 * while a batch is open depends on it: the sink must not let it reach a
 * client unless the batch commits.
 *
 * Time: two clocks. svc_now() is UTC ms: what is stored and shown
 * (deadlines, created, updated). svc_mono() is monotonic ms, for elapsed
 * time that must not jump with the wall clock (a live game's clocks,
 * games.h "Clocks"): only differences of it mean anything. With
 * test_clock both are the one number test_now that only svc_clock_set()
 * moves (the `debug_clock` op of tests), so a test that moves it moves
 * both and drives deadlines and live clocks without sleeping.
 */
#ifndef QK_SVC_H
#define QK_SVC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <uv.h>

#include "store/batch.h"
#include "store/store.h"

struct games;
struct corr;
struct workers;
struct tourney_job;

/* The recipients of one event: the connections of up to two users (0 =
 * none), the watchers of a game (0 = none), and, with all, the lobby:
 * every logged-in connection that asked for open seeks (api: `lobby`). A connection that is several of these gets the
 * event once. players_only: the game is private, so its watchers get the
 * event only while logged in as one of users (visibility is checked at
 * delivery, not only when they subscribed: a connection may have logged
 * out or in as someone else since). */
typedef struct events_to {
    int64_t users[2];
    int64_t game_id;
    bool all;
    bool players_only;
} events_to;

/* Where events go. deliver(ctx, name, ev, to): ev is borrowed (valid
 * during the call); name is its type, for logs. Best effort: a sink that
 * cannot deliver (out of memory) logs and drops. online(ctx, user_id):
 * whether a connection is logged in as user_id now, so it will see the
 * events sent to that user (NULL: nobody is ever online). */
typedef struct event_sink {
    void (*deliver)(void *ctx, const char *name, const cJSON *ev, const events_to *to);
    void *ctx;
    bool (*online)(void *ctx, int64_t user_id);
} event_sink;

/* Password hashing (auth.h): Argon2id limits and the cap on jobs. */
typedef struct svc_auth {
    unsigned long long opslimit;
    size_t memlimit;
    int jobs;          /* queued or running (loop thread only) */
    int max_jobs;      /* cap: more are refused (server_busy) */
    int delay_ms;      /* tests only: each job sleeps this long first */
    char dummy_hash[128]; /* verified against for unknown users (>= crypto_pwhash_STRBYTES) */
} svc_auth;

struct game;

typedef struct gsvc {
    uv_loop_t *loop;
    store *store;  /* borrowed */
    batch *batch;  /* borrowed: the iteration's transaction */
    event_sink sink;
    struct games *games;
    struct corr *corr;
    svc_auth auth;
    bool test_clock;
    int64_t test_now;
    bool wake_dirty; /* a game's wake_at changed: the deadline timer re-arms (corr.h) */
    /* When the deadline timer fires next (corr.c, in svc_now() ms);
     * INT64_MAX while it is not armed. A game whose new wake_at is not
     * earlier needs no re-arm (games.c set_wake): the timer fires first,
     * and its sweep re-arms from the store. */
    int64_t wake_armed_at;
    bool stopping;   /* the server is stopping: no timer is re-armed */
    /* Called by notify_game_over() for every game that ends, after it is
     * written (the one end-of-game path; NULL = none). The server sets it
     * to tourney_game_over() (tourney.h): a function pointer, because
     * notify must not include tourney, which uses notify. */
    void (*game_over_hook)(struct gsvc *s, const struct game *g);
    /* The external Swiss pairer (tourney.h "External pairing"): the
     * program (--pairing-program; NULL = none, so no tournament may ask
     * for it), how long one run may take (ms), and the thread pool it
     * runs on (util/workers.h; borrowed from the server, set to NULL
     * when it closes: a pairing that comes back then is discarded).
     * pairing_jobs: the pairings on the pool, loop thread only. */
    const char *pairing_program;
    int pairing_timeout_ms;
    struct workers *pairing_pool;
    struct tourney_job *pairing_jobs;
    /* qirkat_moves_total (util/metrics.h; srv.c makes it, NULL = not
     * counted): moves played, those of a batch lost later included. */
    struct metric *m_moves;
} gsvc;

/* UTC ms now (qk_now_ms(), or the test clock). */
int64_t svc_now(const gsvc *s);
/* Monotonic ms now: uv_hrtime() / 1e6 (not the loop's cached uv_now(),
 * so a request read after a stall sees the stall), or the test clock.
 * Its origin is arbitrary: use differences only. */
int64_t svc_mono(const gsvc *s);
/* Test clock only: set it to ms (UTC; svc_mono() moves with it). No-op
 * without test_clock. */
void svc_clock_set(gsvc *s, int64_t ms);

/* Open the batch's transaction before a first write: 0, or -1 (answer
 * `internal`; the batch is poisoned). */
int svc_write_begin(gsvc *s);
/* Whether requests that may write must wait now: the store is starting
 * its write-ahead log over and needs one fsync and checkpoint with no
 * transaction open (store_core.h store_wal_restart; about one fsync's time per
 * STORE_WAL_RESTART_FRAMES of log under sustained load). */
bool svc_writes_held(const gsvc *s);
/* A write failed half-way: the whole batch will be lost. */
void svc_poison(gsvc *s);
/* Whether the current batch is poisoned (stop further writes). */
bool svc_poisoned(const gsvc *s);

#endif
