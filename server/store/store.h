/*
 * store: the storage interface of qirkatd (users, tokens, challenges,
 * games, moves, and the rows of correspondence play: a game's extra
 * fields, deadline extensions, the server's heartbeat, vacations,
 * notifications). Loop thread only.
 *
 * Interface and backends. A store is a backend's object whose first
 * member is struct store, i.e. a pointer to its table of operations
 * (store_ops, one entry per function below). The functions callers use
 * (store_user_by_name(), store_commit(), ...) are thin dispatchers in
 * store.c: s->ops->x(s, ...). Rows cross the interface only as the
 * store-neutral structs below, filled and read by value; no backend type
 * (no SQLite handle, statement or column index) appears here. The one
 * backend today is SQLite (sqlite.h: store_sqlite_open(); its schema,
 * migrations and connection settings are documented there); store_open()
 * picks the backend for a path (today always SQLite).
 *
 * Group commit. Writers never commit on their own: the first write of a
 * loop iteration calls store_begin() (idempotent), every later write of
 * that iteration joins the same transaction, and the server commits once
 * per iteration (batch.h: batch_end()), from its prepare/check handles,
 * BEFORE it writes any response or event produced in that iteration to a
 * socket (net/conn.h: held output). So N moves arriving together cost one durable commit (SQLite:
 * one fsync), and nothing a client is told can be lost. The commit's
 * durability may complete later (store_commit_async(): a writer thread, a network
 * database); the held output then waits for its done callback, while the
 * loop goes on with the next batch (net/conn.h "Durability epochs"). While
 * such a completion is still running, the server keeps the iteration's
 * transaction open into the next iterations instead of committing
 * (batch.h batch_end_or_keep()): they commit together when it is done.
 * The in-memory
 * game state is advanced when a move is staged, so a second move in the
 * same batch validates against it; if the commit fails the transaction is
 * rolled back, the server forgets the touched games (they are reloaded
 * from the store on next use) and every response of the batch becomes
 * `internal`. A handler that makes several writes must validate first:
 * bad input never reaches a write, so it never changes a stored row.
 *
 * Results: 0 (STORE_OK) or a negative STORE_E* code. A backend's own
 * failures are logged by the backend (SQLite: with the statement's name)
 * and reported as STORE_EIO. Iterating functions (cb) return 0, cb's
 * non-zero value when it stopped, or a STORE_E* code; cb must not call
 * the same iterating function again (a backend may hold one cursor per
 * query).
 *
 * Asynchronous reads (a contract for future backends; the SQLite backend
 * completes every call before returning and never returns STORE_PENDING).
 * A backend that must fetch from elsewhere may answer a row operation
 * (users ... notifications below; never store_begin(), store_commit*(),
 * store_user_version() or the void and bool functions) with STORE_PENDING:
 *  - it does so before writing any out-parameter, calling any cb or
 *    changing any row: the call had no effect;
 *  - the caller stops the request there and defers it (api: req_defer);
 *    since handlers validate (read) before they write, a request is
 *    deferred before its first write, and nothing of it needs undoing;
 *  - the backend starts the fetch and, on the loop thread, tells the
 *    server when the answer is ready (a wake-up the server hands the
 *    backend when opening it; to be added with the first such backend);
 *    the server re-runs the deferred request from the start, and the
 *    repeated call is answered from what was fetched;
 *  - a write that returns STORE_PENDING changed nothing, like a read;
 *    writes that are accepted but not yet durable report their failure
 *    through the commit's done callback, never later than that.
 * Callers do not handle STORE_PENDING yet (today it would be answered as
 * `internal`, like any unexpected code): the first backend that returns
 * it brings the caller side (req_defer where a handler can see it).
 */
#ifndef QK_STORE_H
#define QK_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "qk_rules.h"
#include "store/store_tourney.h"

enum {
    STORE_OK = 0,
    STORE_NOTFOUND = -1, /* no such row */
    STORE_CONFLICT = -2, /* a UNIQUE constraint, or a row not in the expected state */
    STORE_EIO = -3,      /* any other failure of the backend (logged) */
    /* The backend will complete later; the caller defers the request
     * (api: req_defer) and re-runs it when told. See "Asynchronous reads"
     * above; the SQLite backend never returns it, and store_commit_async()
     * returns it only to say that done will be called later. */
    STORE_PENDING = -4,
    /* The database is locked by another writer (SQLite: another process
     * holds the write lock). Nothing changed; the caller answers
     * `server_busy` with `retry_after_ms` (api: req.c) instead of waiting on
     * the loop. Returned by store_begin() and by any row operation whose
     * statement found the database locked; never logged as a failure. */
    STORE_BUSY = -5,
};

#define STORE_NAME_MAX 32       /* username characters */
#define STORE_PWHASH_MAX 128    /* >= crypto_pwhash_STRBYTES */
#define STORE_TC_MAX 128        /* normalized time_control JSON text */
#define STORE_REASON_MAX 200    /* decline reason bytes */
#define STORE_TOKEN_HASH 32     /* BLAKE2b-256 */
#define STORE_NOTE_DATA_MAX 512 /* bytes of a notification's JSON data */
#define STORE_TOKEN_IDLE_MS (30LL * 86400000) /* a token unused this long is unknown */
#define STORE_SEEKS_PAGE 50     /* others' open seeks in store_challenges_for() */

/* ---- rows ------------------------------------------------------------ */

typedef struct store_user {
    int64_t id;
    char username[STORE_NAME_MAX + 1]; /* as registered */
    bool bot;
    char pwhash[STORE_PWHASH_MAX];
    int64_t created; /* UTC ms */
} store_user;

typedef struct store_challenge {
    int64_t id;
    int64_t from_id, to_id;                                /* to_id 0: an open seek */
    char from[STORE_NAME_MAX + 1], to[STORE_NAME_MAX + 1]; /* usernames ("" if open) */
    char variant[QK_VARIANT_NAMELEN];
    char color[8];                   /* white, black, random */
    char time_control[STORE_TC_MAX]; /* JSON text */
    char position[QK_POS_STRLEN];    /* "" = the variant's start */
    char status[12];                 /* open, accepted, declined, canceled */
    char decline_reason[STORE_REASON_MAX + 1];
    int64_t game_id; /* 0 = none */
    int64_t created, updated;
    bool rated;            /* the game will be rated (no hints) */
    bool from_bot, to_bot; /* the accounts' bot flags (to_bot false for a seek) */
} store_challenge;

typedef struct store_game {
    int64_t id;
    char variant[QK_VARIANT_NAMELEN];
    int64_t white_id, black_id;
    char white[STORE_NAME_MAX + 1], black[STORE_NAME_MAX + 1];
    char start[QK_POS_STRLEN];
    char position[QK_POS_STRLEN];
    int64_t ply;
    char turn[6];    /* white, black */
    char status[10]; /* active, finished, aborted */
    char result[6];  /* white, black, draw, "" = none */
    char reason[20]; /* PROTOCOL.md reason words, "" = none */
    char time_control[STORE_TC_MAX];
    int64_t deadline;           /* -1 = none */
    int64_t white_ms, black_ms; /* -1 = none */
    int64_t created, updated;
    bool white_bot, black_bot; /* the players' users.bot (read, never written) */
    bool rated;                /* rated game: the engine's hint is refused */
    /* Records (migration 9): an imported game's white/black above are the
     * record's names (imported_white/black), its ids the importer's. */
    bool imported;
    int64_t tournament; /* 0 = none */
} store_game;

/* Game listing filter; zero/NULL fields do not filter. */
typedef struct store_game_filter {
    int64_t user_id;      /* games where this user plays */
    const char *status;   /* active, finished, aborted */
    const char *variant;  /* canonical variant name */
    int64_t turn_user_id; /* active games where it is this user's turn */
    int64_t opponent_id;  /* games where this user plays too */
    int64_t before;       /* ids below this (paging) */
    int64_t limit;        /* rows; must be > 0 */
    /* Search filters (records, migration 9); zero does not filter. */
    const char *result; /* white, black, draw */
    int64_t since, until; /* created within [since, until] (UTC ms; until 0 = none) */
    int64_t tournament;   /* games of this tournament */
    int imported;         /* 1: only imported games; -1: only played ones; 0: both */
    int64_t after;        /* ids above this (paging) */
    bool ascending;       /* oldest (lowest id) first instead of newest */
    /* Only the games this user may see (0 = every game): the rule of
     * game/tourney.h tourney_game_may_see(), in the query itself so that
     * LIMIT and paging count only the games shown. Those this user plays;
     * others' that are neither private nor of a class-only tournament
     * whose organiser, class teacher, class member or player this user is
     * not. */
    int64_t viewer_id;
} store_game_filter;

/* The correspondence fields of a game (SQLite: migration 2's columns). */
typedef struct store_game_x {
    int64_t extended_ms;     /* sum of every extension of this game's deadlines */
    bool vacation;           /* a player's vacation may move its deadlines */
    bool priv;               /* private: only the players may watch */
    char draw_offer[6];      /* side with a standing draw offer: white, black, "" */
    int64_t warned_deadline; /* deadline_soon was sent for this deadline; -1 none */
    int64_t wake_at;         /* when the deadline timer must look at it; -1 none */
} store_game_x;

/* One move of a game that goes on after it (game/games.h games_play):
 * the move's row and all that the move changes in the game's row. The
 * strings are the caller's, read during the call only. */
typedef struct store_played {
    int64_t game_id;
    int64_t ply;          /* the ply the move is played at (0-based): the game's ply before it */
    const char *move;     /* RULES.md text */
    int64_t user_id;      /* the mover */
    int64_t created;      /* UTC ms */
    int64_t clock_ms;     /* the mover's time left after the move; -1 = no clock */
    const char *position; /* the game's position string after the move */
    const char *turn;     /* side to move after it: "white" or "black" */
    int64_t deadline;     /* -1 = none; likewise the three below */
    int64_t white_ms, black_ms;
    int64_t wake_at;
    bool times_changed;   /* false: deadline, clocks and wake_at are as stored (an unlimited
                           * game): the four above are not written */
} store_played;

/* A user's vacation account. */
typedef struct store_vacation {
    int64_t left_h; /* allowance left this year, hours */
    int64_t year;   /* UTC year left_h belongs to; 0 = never used */
    int64_t start;  /* current vacation started (UTC ms); -1 = not on vacation */
    int64_t until;  /* and ends; -1 = not on vacation */
} store_vacation;

/* One notification row. */
typedef struct store_note {
    int64_t id, user_id;
    char kind[24];                  /* your_turn, challenge, draw_offer, game_end, deadline_soon,
                                       challenge_declined, draw_declined,
                                       tournament_round, tournament_end (migration 10) */
    int64_t game_id;                /* 0 = none */
    char data[STORE_NOTE_DATA_MAX]; /* JSON object text */
    bool read;
    int64_t created;
    int64_t sender_id; /* the user whose act it reports, 0 = none (migration 12) */
    int64_t ref_id;    /* the challenge of a challenge/challenge_declined notice, 0 = none */
} store_note;

/* A player's rating in one family (issue 12; SQLite: table ratings).
 * rating and rd on the Glicko scale, rd as of last_game (UTC ms of the
 * end of the player's last rated game there); games: rated games counted.
 * username and bot are filled by store_ratings_board() only. */
typedef struct store_rating {
    int64_t user_id;
    char family[QK_VARIANT_NAMELEN];
    double rating, rd, volatility;
    int64_t games;
    int64_t last_game;
    char username[STORE_NAME_MAX + 1];
    bool bot;
} store_rating;

/* A rated game's ratings (SQLite: table game_ratings): each side's rating
 * at the start, and once the game's end counted (ended), the ratings just
 * before and after the update. */
typedef struct store_game_rating {
    int64_t game_id;
    double white_start, black_start;
    bool ended;
    double white_before, white_after, black_before, black_after;
} store_game_rating;

/* ---- the interface --------------------------------------------------- */

typedef struct store store;
struct store_prune_spec; /* store_bound.h */

/* Completion of an asynchronous operation: rc is STORE_OK or STORE_EIO. */
typedef void (*store_done_cb)(void *arg, int rc);

/* Iteration callbacks: return 0 to go on, non-zero to stop (see Results). */
typedef int (*store_user_cb)(void *arg, const store_user *u);
typedef int (*store_challenge_cb)(void *arg, const store_challenge *c);
typedef int (*store_game_cb)(void *arg, const store_game *g);
typedef int (*store_move_cb)(void *arg, int64_t ply, const char *move, int64_t user_id);
typedef int (*store_extension_cb)(void *arg, const char *kind, int64_t ms, int64_t created);
typedef int (*store_note_cb)(void *arg, const store_note *n);
typedef int (*store_rating_cb)(void *arg, const store_rating *r);
typedef int (*store_clock_cb)(void *arg, int64_t ply, int64_t clock_ms);

/* A backend's operations: each entry has the contract of the public
 * function of the same name below (store_x -> x), with one difference:
 * commit is both store_commit() (done NULL: complete before returning and
 * return the result) and store_commit_async() (done non-NULL: see there).
 * Every entry is required. */
typedef struct store_ops {
    const char *name; /* the backend, for logs: "sqlite" */
    void (*close)(store *s);
    int (*user_version)(store *s, int *out);

    int (*begin)(store *s);
    bool (*in_txn)(const store *s);
    int (*commit)(store *s, store_done_cb done, void *arg);
    int (*async_start)(store *s, uv_loop_t *loop, int fsync_delay_ms);
    void (*async_stop)(store *s);
    uint64_t (*fsyncs)(store *s);
    bool (*durability_busy)(store *s);
    int (*wal_restart)(store *s);
    void (*wal_restart_at)(store *s, int64_t frames);
    uint64_t (*wal_restarts)(store *s);
    void (*rollback)(store *s);
    void (*fail_commit_at)(store *s, int n);

    int (*user_by_name)(store *s, const char *name, store_user *out);
    int (*user_by_id)(store *s, int64_t id, store_user *out);
    int (*user_insert)(store *s, const char *name, bool bot, const char *pwhash, int64_t now,
                       int64_t *id);
    int (*users_list)(store *s, int bot, const char *after, int64_t limit, store_user_cb cb,
                      void *arg);
    int (*token_insert)(store *s, const uint8_t hash[STORE_TOKEN_HASH], int64_t user_id,
                        int64_t now);
    int (*token_user)(store *s, const uint8_t hash[STORE_TOKEN_HASH], int64_t now,
                      int64_t *user_id);
    int (*token_delete)(store *s, const uint8_t hash[STORE_TOKEN_HASH]);

    int (*challenge_insert)(store *s, store_challenge *c, int64_t now);
    int (*challenge_get)(store *s, int64_t id, store_challenge *out);
    int (*challenge_close)(store *s, int64_t id, const char *status, const char *reason,
                           int64_t game_id, int64_t now);
    int (*challenges_for)(store *s, int64_t user_id, store_challenge_cb cb, void *arg);
    int (*challenges_open_from)(store *s, int64_t user_id, int64_t *n);
    int (*challenge_x_put)(store *s, int64_t id, bool vacation, bool priv);
    int (*challenge_x_get)(store *s, int64_t id, bool *vacation, bool *priv);

    int (*game_insert)(store *s, store_game *g);
    int (*game_get)(store *s, int64_t id, store_game *out);
    int (*game_update)(store *s, const store_game *g);
    int (*games_query)(store *s, const store_game_filter *f, store_game_cb cb, void *arg);
    int (*move_insert)(store *s, int64_t game_id, int64_t ply, const char *move, int64_t user_id,
                       int64_t now);
    int (*moves_each)(store *s, int64_t game_id, store_move_cb cb, void *arg);
    int (*game_x_get)(store *s, int64_t id, store_game_x *out);
    int (*game_x_put)(store *s, int64_t id, const store_game_x *x);
    int (*move_played)(store *s, const store_played *p);

    int (*wake_next)(store *s, int64_t *at);
    int (*wake_due)(store *s, int64_t now, int64_t *ids, int max, int *n);
    int (*extend_downtime)(store *s, int64_t ms, int64_t now, int64_t *games);
    int (*extension_insert)(store *s, int64_t game, const char *kind, int64_t ms, int64_t now);
    int (*extensions_each)(store *s, int64_t game, store_extension_cb cb, void *arg);

    int (*state_get)(store *s, const char *key, int64_t *value);
    int (*state_set)(store *s, const char *key, int64_t value);
    int (*vacation_get)(store *s, int64_t user_id, store_vacation *out);
    int (*vacation_put)(store *s, int64_t user_id, const store_vacation *v);

    int (*note_insert)(store *s, store_note *n);
    int (*notes_list)(store *s, int64_t user_id, bool unread_only, int64_t limit, int64_t offset,
                      store_note_cb cb, void *arg);
    int (*note_owner)(store *s, int64_t id, int64_t *user_id);
    int (*note_mark)(store *s, int64_t user_id, int64_t id, int64_t *n);
    int (*note_mark_all)(store *s, int64_t user_id, int64_t *n);
    int (*note_unread)(store *s, int64_t user_id, int64_t *n);

    int (*game_challenge_put)(store *s, int64_t game_id, int64_t challenge_id);
    int (*game_challenge_get)(store *s, int64_t game_id, int64_t *challenge_id);
    int (*challenges_expiring)(store *s, int64_t direct_before, int64_t seek_before, int64_t *ids,
                               int max, int *n);
    /* store_bound.h: bounded storage, the journal, damaged games (issue 9) */
    int (*journal_limit)(store *s, int64_t bytes);
    int (*checkpoint)(store *s);
    int (*prune)(store *s, const struct store_prune_spec *p, int64_t *rows);
    int (*notes_drop_unread)(store *s, int64_t user_id, const char *kind, int64_t game_id);
    int (*notes_cap_sender)(store *s, int64_t user_id, const char *kind, int64_t sender_id,
                            int64_t keep);
    int (*notes_settle)(store *s, int64_t user_id, const char *kind, int64_t ref_id, bool drop);
    int (*challenges_since)(store *s, int64_t user_id, int64_t since, int64_t *n,
                            int64_t *oldest);
    int (*seeks_page)(store *s, int64_t user_id, int64_t after, int64_t limit,
                      store_challenge_cb cb, void *arg);
    int (*draw_ply_get)(store *s, int64_t game_id, const char *side, int64_t *ply);
    int (*draw_ply_put)(store *s, int64_t game_id, const char *side, int64_t ply);
    int (*game_damaged_get)(store *s, int64_t game_id, bool *damaged);
    int (*game_damaged_set)(store *s, int64_t game_id);
    int (*rating_get)(store *s, int64_t user_id, const char *family, store_rating *out);
    int (*rating_put)(store *s, const store_rating *r);
    int (*ratings_of)(store *s, int64_t user_id, store_rating_cb cb, void *arg);
    int (*ratings_board)(store *s, const char *family, double max_rd, store_rating_cb cb,
                         void *arg);
    int (*game_rating_get)(store *s, int64_t game_id, store_game_rating *out);
    int (*game_rating_put)(store *s, const store_game_rating *gr);
    int (*challenge_range_put)(store *s, int64_t id, int64_t min, int64_t max);
    int (*challenge_range_get)(store *s, int64_t id, int64_t *min, int64_t *max);
    /* classes and tournaments (store_tourney.h) */
    STORE_TOURNEY_OPS
    /* records (sqlite_records.c) */
    int (*move_clock_set)(store *s, int64_t game_id, int64_t ply, int64_t clock_ms);
    int (*move_clocks_each)(store *s, int64_t game_id, store_clock_cb cb, void *arg);
    int (*game_mark_imported)(store *s, int64_t id, const char *white, const char *black);
} store_ops;

/* The base of every backend's object, embedded as its first member (so a
 * backend casts store * to its own type). Callers never look inside. */
struct store {
    const store_ops *ops;
};

/* ---- open and close -------------------------------------------------- */

/* Open the store at path with the SQLite backend (store_sqlite_open(),
 * sqlite.h: the file is created if needed, configured and migrated to the
 * newest schema). A second backend (PostgreSQL) will be chosen by a URL
 * scheme in path; a plain path stays SQLite. On success *out owns the
 * store (store_close); on failure *out is NULL and STORE_EIO is returned,
 * including a database whose schema is newer than this binary knows.
 * Defined in store_open.c, the one place that knows every backend. */
int store_open(const char *path, store **out);
/* Roll back an open transaction, release everything, free s. NULL ok. */
void store_close(store *s);
/* The schema version of the open store (SQLite: PRAGMA user_version) into
 * *out: STORE_OK or STORE_EIO. */
int store_user_version(store *s, int *out);

/* ---- transactions (group commit, see above) -------------------------- */

/* Open the iteration's transaction if none is open. 0, STORE_BUSY (another
 * writer holds the database; no transaction is open) or STORE_EIO. */
int store_begin(store *s);
/* Whether a transaction is open (begun, not yet committed or rolled back). */
bool store_in_txn(const store *s);
/* Commit the open transaction (no-op when none), with its durability
 * completed later, off the loop thread, when the backend can (after
 * store_async_start(); otherwise at once). Returns STORE_EIO when the
 * commit itself failed: the transaction was rolled back (logged) and done
 * is never called. Returns STORE_OK when it committed: its changes are
 * visible and ordered, a new transaction may begin at once, and done(arg,
 * rc) runs exactly once on the loop thread when they are durable (rc
 * STORE_OK) or could not be made durable (rc STORE_EIO: they may or may
 * not survive a crash; the server treats that as fatal). Dones run in
 * commit order; a backend without asynchronous durability calls done
 * before returning. With no transaction open, done is called at once with
 * STORE_OK. done must not be NULL. */
int store_commit_async(store *s, store_done_cb done, void *arg);
/* Start completing durability off the loop thread: a writer thread makes
 * each asynchronous commit durable (SQLite: synchronous=NORMAL, the
 * write-ahead log fsync'd by the writer before done runs; WAL checkpoints
 * run there too) and posts done to loop. fsync_delay_ms (tests and
 * benchmarks only, 0 = none) makes every such fsync take that much
 * longer. 0, or STORE_EIO (the backend stays synchronous; logged). */
int store_async_start(store *s, uv_loop_t *loop, int fsync_delay_ms);
/* Wait for every durability in flight (their dones run) and stop the
 * writer thread. Idempotent; store_close() calls it too. Loop thread. */
void store_async_stop(store *s);
/* How many fsyncs asynchronous durability has made since the store was
 * opened (SQLite: of the write-ahead log, by the writer or, stopping, on
 * the loop). Commits made while an fsync runs share the next one, so
 * under load this grows slower than the commits (sqlite.c "Group fsync");
 * tests and benchmarks read it. Loop thread. */
uint64_t store_fsyncs(store *s);
/* Whether a commit's durability is being completed off the loop right now
 * (SQLite: an fsync is with the writer thread). A commit made meanwhile
 * waits for that fsync and the next one. Loop thread. */
bool store_durability_busy(store *s);
/* The write-ahead log under sustained load (sqlite.c "Restarting the
 * WAL"). SQLite starts the log over from its beginning only when a write
 * transaction begins while every committed frame is checkpointed; with a
 * transaction open at every moment (a batch kept behind each fsync) that
 * never happens and the -wal file grows without bound (measured: 40 MB/s
 * at 50 games, 240 MB after 6 s). Once the log is longer than the
 * restart length, STORE_WAL_WANTED: end each batch at once (no keeping);
 * STORE_WAL_HOLD until the fsync of the commit that crossed the length,
 * and the checkpoint after it, are done: begin no transaction until then
 * (the server holds its requests, api/dispatch.c), so the next one
 * restarts the log. STORE_WAL_OK otherwise, and always for a synchronous
 * store or one without the writer's checkpoint connection. Loop thread. */
enum { STORE_WAL_OK, STORE_WAL_WANTED, STORE_WAL_HOLD };
int store_wal_restart(store *s);
/* The restart length in frames (default STORE_WAL_RESTART_FRAMES; tests
 * set less); 0 turns restarts off. Loop thread. */
#define STORE_WAL_RESTART_FRAMES 4096 /* 16 MiB of 4 KiB pages */
void store_wal_restart_at(store *s, int64_t frames);
/* How many times the log started over since the store was opened. */
uint64_t store_wal_restarts(store *s);
/* The blocking commit, for start-up and shut-down code and tools:
 * commits the open transaction (no-op when none) and returns STORE_OK, or
 * STORE_EIO after rolling it back (logged). Never STORE_PENDING. */
int store_commit(store *s);
/* Roll back the open transaction (no-op when none). */
void store_rollback(store *s);
/* Fault injection for tests: make the n-th commit from now (1 = the next;
 * sync or async) fail as if the disk had; 0 disables. */
void store_fail_commit_at(store *s, int n);

/* ---- users and tokens ------------------------------------------------ */

/* Look a user up by name (case-insensitive) or id into *out.
 * STORE_NOTFOUND when absent. */
int store_user_by_name(store *s, const char *name, store_user *out);
int store_user_by_id(store *s, int64_t id, store_user *out);
/* Insert a user (name and pwhash copied); *id receives the new id.
 * STORE_CONFLICT when the name is taken (in any case). */
int store_user_insert(store *s, const char *name, bool bot, const char *pwhash, int64_t now,
                      int64_t *id);

/* Call cb for users in name order (case-insensitive), at most limit (> 0)
 * of them: only bots when bot is 1, only people when 0, everyone when -1;
 * only names after `after` (NULL or "": from the start; paging). pwhash is
 * left empty; *u is valid during the call only. Returns 0, cb's non-zero
 * value when it stopped, or STORE_EIO. cb must not call store_users_list()
 * again. */
int store_users_list(store *s, int bot, const char *after, int64_t limit,
                     int (*cb)(void *arg, const store_user *u), void *arg);

/* Tokens are stored as their BLAKE2b-256 hash (32 bytes). */
int store_token_insert(store *s, const uint8_t hash[STORE_TOKEN_HASH], int64_t user_id,
                       int64_t now);
/* The user of a token hash into *user_id (and mark it used at now):
 * STORE_NOTFOUND when unknown, or when it was last used
 * STORE_TOKEN_IDLE_MS or more before now (expired; the upkeep sweep
 * deletes it, store_bound.h). */
int store_token_user(store *s, const uint8_t hash[STORE_TOKEN_HASH], int64_t now, int64_t *user_id);
/* Delete a token (absent is not an error). */
int store_token_delete(store *s, const uint8_t hash[STORE_TOKEN_HASH]);

/* ---- challenges ------------------------------------------------------ */

/* Insert c (status "open"; id, from, to, status, decline_reason, game_id,
 * created/updated as given are ignored); fills c->id, c->status "open",
 * c->decline_reason "", c->game_id 0, c->created = c->updated = now. */
int store_challenge_insert(store *s, store_challenge *c, int64_t now);
/* Read one challenge (with usernames) into *out. STORE_NOTFOUND when
 * absent. */
int store_challenge_get(store *s, int64_t id, store_challenge *out);
/* Move an open challenge to status (accepted, declined, canceled) with an
 * optional decline reason (NULL) and game id (0 = none). STORE_CONFLICT
 * when it is no longer open (or absent). */
int store_challenge_close(store *s, int64_t id, const char *status, const char *reason,
                          int64_t game_id, int64_t now);
/* Call cb for every open challenge from user, to user, and the oldest
 * STORE_SEEKS_PAGE open seeks by anyone else (the rest: store_seeks_page(),
 * store_bound.h), oldest first (*c valid during the call only). cb returns 0
 * to go on, non-zero to stop (that value is returned). cb must not call
 * store_challenges_for() again. */
int store_challenges_for(store *s, int64_t user_id, int (*cb)(void *arg, const store_challenge *c),
                         void *arg);
/* *n = the number of open challenges user_id has made (seeks included).
 * STORE_OK or STORE_EIO. */
int store_challenges_open_from(store *s, int64_t user_id, int64_t *n);
/* The vacation/private options of a challenge. put on an absent id is not
 * an error (nothing changes); get: STORE_NOTFOUND when absent. */
int store_challenge_x_put(store *s, int64_t id, bool vacation, bool priv);
int store_challenge_x_get(store *s, int64_t id, bool *vacation, bool *priv);

/* ---- games and moves ------------------------------------------------- */

/* Insert g (all fields but id, white, black, white_bot, black_bot); fills
 * g->id. */
int store_game_insert(store *s, store_game *g);
/* Read one game (with usernames) into *out. STORE_NOTFOUND when absent. */
int store_game_get(store *s, int64_t id, store_game *out);
/* Write g's mutable fields (position, ply, turn, status, result, reason,
 * deadline, clocks, updated). STORE_NOTFOUND when the row is absent. */
int store_game_update(store *s, const store_game *g);

/* Insert the move (text, copied) played at ply. STORE_CONFLICT when that
 * ply exists. */
int store_move_insert(store *s, int64_t game_id, int64_t ply, const char *move, int64_t user_id,
                      int64_t now);
/* Call cb for each move of the game in ply order (move valid during the
 * call only); stop on non-zero (returned). cb must not call
 * store_moves_each() again. */
int store_moves_each(store *s, int64_t game_id,
                     int (*cb)(void *arg, int64_t ply, const char *move, int64_t user_id),
                     void *arg);

/* Call cb for matching games, newest (highest id) first; with
 * turn_user_id, soonest deadline first (games without one last, then by
 * id). Same return and re-entrancy rules as store_challenges_for(). */
int store_games_query(store *s, const store_game_filter *f,
                      int (*cb)(void *arg, const store_game *g), void *arg);

/* Read / write the correspondence fields of game id. STORE_NOTFOUND when
 * absent. */
int store_game_x_get(store *s, int64_t id, store_game_x *out);
int store_game_x_put(store *s, int64_t id, const store_game_x *x);

/* Write a move that leaves its game active, in two statements: the move's
 * row (with its clock) and one UPDATE of only the game columns a move
 * changes (ply, position, turn, deadline, clocks, updated, wake_at; the
 * standing draw offer cleared). It is the per-move path: status, result,
 * reason and the other correspondence fields are left alone, so neither
 * their CHECK constraints nor the indexes on them are touched (docs/perf.md).
 * A move that ends the game is written with store_move_insert() and
 * store_game_update(). STORE_NOTFOUND (the game is absent) and
 * STORE_CONFLICT (the stored game is not at p->ply) write nothing;
 * STORE_CONFLICT after the game row was written (a row for that ply
 * exists already: only a store changed behind the server's back) leaves
 * a transaction the caller must lose, as after any failed write. */
int store_move_played(store *s, const store_played *p);

/* ---- deadlines and extensions ---------------------------------------- */

/* The earliest wake_at of an active game: STORE_OK and *at, or
 * STORE_NOTFOUND when no game has one. */
int store_wake_next(store *s, int64_t *at);
/* Ids of active games with wake_at <= now, earliest first, at most max,
 * into ids (the caller's array of max); *n their count. */
int store_wake_due(store *s, int64_t now, int64_t *ids, int max, int *n);
/* Extend every running correspondence deadline by ms (> 0): the deadline,
 * wake-up and warning move, extended_ms grows, and one 'downtime' row per
 * game is logged with time now. *games receives how many moved. */
int store_extend_downtime(store *s, int64_t ms, int64_t now, int64_t *games);
/* Log one extension of game (kind "downtime" or "vacation", ms >= 0). */
int store_extension_insert(store *s, int64_t game, const char *kind, int64_t ms, int64_t now);
/* cb for each extension of game, oldest first (kind valid during the call
 * only); stop on non-zero (returned). cb must not call
 * store_extensions_each() again. */
int store_extensions_each(store *s, int64_t game,
                          int (*cb)(void *arg, const char *kind, int64_t ms, int64_t created),
                          void *arg);

/* ---- server state and vacations -------------------------------------- */

/* server_state key/value (key borrowed). get: STORE_NOTFOUND when unset. */
int store_state_get(store *s, const char *key, int64_t *value);
int store_state_set(store *s, const char *key, int64_t value);

/* A user's vacation account. get: STORE_NOTFOUND when the user is
 * absent; put on an absent user is not an error (nothing changes). */
int store_vacation_get(store *s, int64_t user_id, store_vacation *out);
int store_vacation_put(store *s, int64_t user_id, const store_vacation *v);

/* ---- notifications --------------------------------------------------- */

/* Insert n (unread; id ignored) and fill n->id, n->read false. */
int store_note_insert(store *s, store_note *n);
/* cb for user's notifications: unread ones oldest first, then (unless
 * unread_only) read ones newest first; rows [offset, offset + limit) of
 * that order (limit > 0). Same return/re-entrancy rules as
 * store_extensions_each(). */
int store_notes_list(store *s, int64_t user_id, bool unread_only, int64_t limit, int64_t offset,
                     int (*cb)(void *arg, const store_note *n), void *arg);
/* The owner of notification id into *user_id; STORE_NOTFOUND when
 * absent. */
int store_note_owner(store *s, int64_t id, int64_t *user_id);
/* Mark notification id read if user_id owns it (no error otherwise); *n
 * grows by 1 when it was unread. */
int store_note_mark(store *s, int64_t user_id, int64_t id, int64_t *n);
/* Mark all of user's notifications read; *n how many changed. */
int store_note_mark_all(store *s, int64_t user_id, int64_t *n);
/* How many unread notifications user has, into *n. */
int store_note_unread(store *s, int64_t user_id, int64_t *n);

/* ---- bots, second step (issue 15; SQLite: migration 5) ---------------- */

/* Record that game_id was made by challenge challenge_id (games.challenge_id).
 * STORE_NOTFOUND when the game is absent. */
int store_game_challenge_put(store *s, int64_t game_id, int64_t challenge_id);
/* The challenge that made game_id into *challenge_id, 0 when none (a game
 * not made by a challenge, or stored before migration 5 without one).
 * STORE_NOTFOUND when the game is absent. */
int store_game_challenge_get(store *s, int64_t game_id, int64_t *challenge_id);
/* The ids of open challenges that are due to expire, oldest first, at most
 * max into ids (*n of them): direct ones created before direct_before, open
 * seeks created before seek_before (UTC ms). The caller closes each with
 * store_challenge_close(..., "expired", ...). */
int store_challenges_expiring(store *s, int64_t direct_before, int64_t seek_before, int64_t *ids,
                              int max, int *n);

/* ---- ratings (issue 12; SQLite: migration 7) -------------------------- */

/* user_id's row in family (a family name, game/ratings_svc.h) into *out
 * (username and bot left empty); STORE_NOTFOUND when the user has no
 * rated game there. */
int store_rating_get(store *s, int64_t user_id, const char *family, store_rating *out);
/* Insert or replace the row (r->user_id, r->family); username and bot are
 * not stored. */
int store_rating_put(store *s, const store_rating *r);
/* cb for each of user_id's rows, by family name (username and bot left
 * empty). Same return and re-entrancy rules as store_extensions_each(). */
int store_ratings_of(store *s, int64_t user_id, int (*cb)(void *arg, const store_rating *r),
                     void *arg);
/* cb for the rows of family whose stored rd <= max_rd, with username and
 * bot, highest rating first (then lowest rd, then username); the caller
 * stops when it has enough (cb non-zero). Same rules as above. */
int store_ratings_board(store *s, const char *family, double max_rd,
                        int (*cb)(void *arg, const store_rating *r), void *arg);
/* A rated game's ratings: get (STORE_NOTFOUND when the game has none) and
 * insert-or-replace (ended false stores before/after as NULL). */
int store_game_rating_get(store *s, int64_t game_id, store_game_rating *out);
int store_game_rating_put(store *s, const store_game_rating *gr);
/* An open seek's rating range, inclusive; -1 = no bound. put on an absent
 * id is not an error (nothing changes); get: STORE_NOTFOUND when absent. */
int store_challenge_range_put(store *s, int64_t id, int64_t min, int64_t max);
int store_challenge_range_get(store *s, int64_t id, int64_t *min, int64_t *max);

/* ---- records (issue 11; SQLite: migration 9) ------------------------- */

/* Set the clock of the move at (game_id, ply): clock_ms is what the mover
 * has left right after it (ms, increment included). STORE_NOTFOUND when
 * there is no such move. */
int store_move_clock_set(store *s, int64_t game_id, int64_t ply, int64_t clock_ms);
/* cb(arg, ply, clock_ms) for each move of game_id in ply order, clock_ms
 * -1 when the move has none (not a live game, or stored before migration
 * 6). Same return and re-entrancy rules as store_extensions_each(). */
int store_move_clocks_each(store *s, int64_t game_id, store_clock_cb cb, void *arg);
/* Mark game id (just inserted) as imported, with the record's player
 * names white and black (copied; NULL = unknown, shown as "?"). From then
 * on its store_game rows carry imported = true and these names. */
int store_game_mark_imported(store *s, int64_t id, const char *white, const char *black);

#endif
