/*
 * store_core: the store object, its results, and what every area shares:
 * opening and closing, the iteration's transaction (group commit), its
 * durability off the loop, the write-ahead log's restarts, and what keeps
 * storage bounded (the journal limit, the idle checkpoint, pruning). Loop
 * thread only. The rows live in the area headers (store.h lists them).
 *
 * Areas and backends. A store is a backend's object whose first member is
 * struct store: one pointer per area to the backend's table of that area's
 * functions (store_core_ops here, store_users_ops in store_users.h, ...).
 * Callers call the static inline functions of the area headers
 * (store_user_by_name(), store_commit(), ...), each one indirect call
 * s->AREA->x(s, ...) compiled into the caller: there is no .c layer that
 * only forwards. A table entry has the contract of the function of the
 * same name (store_x -> x); the contracts are written once, on the inline
 * functions. Rows cross the interface only as the store-neutral structs of
 * the area headers, filled and read by value; no backend type (no SQLite
 * handle, statement or column index) appears in them. The one backend
 * today is SQLite (sqlite.h: store_sqlite_open(), implemented in
 * store/sqlite/; its schema, migrations and connection settings are
 * documented there); store_open() picks the backend for a path (today
 * always SQLite). Every entry of every table is required.
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
 * Reads that wait. The SQLite backend completes every call before it
 * returns. The PostgreSQL backend (pg.h) must wait for its server: once
 * the loop runs it suspends the running task (util/task.h) and resumes
 * it with the answer, so every call still returns its result to its
 * caller and the game service has one code path for both backends; no
 * backend returns STORE_PENDING from a row operation.
 */
#ifndef QK_STORE_CORE_H
#define QK_STORE_CORE_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

struct metric; /* util/metrics.h */

enum {
    STORE_OK = 0,
    STORE_NOTFOUND = -1, /* no such row */
    STORE_CONFLICT = -2, /* a UNIQUE constraint, or a row not in the expected state */
    STORE_EIO = -3,      /* any other failure of the backend (logged) */
    /* Reserved: no backend returns it from a row operation (see "Reads
     * that wait" above: PostgreSQL waits in a task instead). */
    STORE_PENDING = -4,
    /* The database is locked by another writer (SQLite: another process
     * holds the write lock). Nothing changed; the caller answers
     * `server_busy` with `retry_after_ms` (api: req.c) instead of waiting on
     * the loop. Returned by store_begin() and by any row operation whose
     * statement found the database locked; never logged as a failure. */
    STORE_BUSY = -5,
};

/* Sizes shared by the rows of several areas. */
#define STORE_NAME_MAX 32   /* username characters */
#define STORE_TC_MAX 128    /* normalized time_control JSON text */
#define STORE_TOKEN_HASH 32 /* BLAKE2b-256 (store_users.h) */

#define STORE_JOURNAL_LIMIT (64LL * 1024 * 1024) /* bytes the journal is cut to */
#define STORE_PRUNE_BATCH 1000                   /* rows of one kind per store_prune() */

typedef struct store store;

/* What store_prune() deletes: rows older than each time (UTC ms; <= 0 =
 * that kind is kept). */
typedef struct store_prune_spec {
    int64_t notes_read_before;        /* read notifications created before */
    int64_t challenges_closed_before; /* accepted/declined/canceled, last changed before */
    int64_t tokens_used_before;       /* tokens last used before (expired) */
} store_prune_spec;

/* Completion of an asynchronous operation: rc is STORE_OK or STORE_EIO. */
typedef void (*store_done_cb)(void *arg, int rc);

/* The core's table: each entry has the contract of the function of the
 * same name below (store_x -> x), with one difference: commit is both
 * store_commit() (done NULL: complete before returning and return the
 * result) and store_commit_async() (done non-NULL: see there). */
typedef struct store_core_ops {
    const char *name; /* the backend, for logs: "sqlite" */
    void (*close)(store *s);
    int (*user_version)(store *s, int *out);

    int (*begin)(store *s);
    bool (*in_txn)(const store *s);
    int (*commit)(store *s, store_done_cb done, void *arg);
    int (*async_start)(store *s, uv_loop_t *loop, int fsync_delay_ms);
    void (*async_stop)(store *s);
    uint64_t (*fsyncs)(store *s);
    void (*time_fsyncs)(store *s, struct metric *h);
    bool (*durability_busy)(store *s);
    int (*wal_restart)(store *s);
    void (*wal_restart_at)(store *s, int64_t frames);
    uint64_t (*wal_restarts)(store *s);
    void (*rollback)(store *s);
    void (*fail_commit_at)(store *s, int n);

    /* bounded storage (issue 9) */
    int (*journal_limit)(store *s, int64_t bytes);
    int (*checkpoint)(store *s);
    int (*prune)(store *s, const store_prune_spec *p, int64_t *rows);
} store_core_ops;

/* The base of every backend's object, embedded as its first member (so a
 * backend casts store * to its own type): one table per area, set by the
 * backend's open and never changed. Only the area headers' inline
 * functions look inside. */
struct store {
    const struct store_core_ops *core;
    const struct store_users_ops *users;           /* store_users.h */
    const struct store_challenges_ops *challenges; /* store_challenges.h */
    const struct store_games_ops *games;           /* store_games.h */
    const struct store_corr_ops *corr;             /* store_corr.h */
    const struct store_ratings_ops *ratings;       /* store_ratings.h */
    const struct store_tourney_ops *tourney;       /* store_tourney.h */
    const struct store_records_ops *records;       /* store_records.h */
    const struct store_admin_ops *admin;           /* store_admin.h */
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
static inline void store_close(store *s)
{
    if (s)
        s->core->close(s);
}

/* The schema version of the open store (SQLite: PRAGMA user_version) into
 * *out: STORE_OK or STORE_EIO. */
static inline int store_user_version(store *s, int *out)
{
    return s->core->user_version(s, out);
}

/* ---- transactions (group commit, see above) -------------------------- */

/* Open the iteration's transaction if none is open. 0, STORE_BUSY (another
 * writer holds the database; no transaction is open) or STORE_EIO. */
static inline int store_begin(store *s)
{
    return s->core->begin(s);
}

/* Whether a transaction is open (begun, not yet committed or rolled back). */
static inline bool store_in_txn(const store *s)
{
    return s->core->in_txn(s);
}

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
static inline int store_commit_async(store *s, store_done_cb done, void *arg)
{
    assert(done);
    return s->core->commit(s, done, arg);
}

/* Start completing durability off the loop thread: a writer thread makes
 * each asynchronous commit durable (SQLite: synchronous=NORMAL, the
 * write-ahead log fsync'd by the writer before done runs; WAL checkpoints
 * run there too) and posts done to loop. fsync_delay_ms (tests and
 * benchmarks only, 0 = none) makes every such fsync take that much
 * longer. 0, or STORE_EIO (the backend stays synchronous; logged). */
static inline int store_async_start(store *s, uv_loop_t *loop, int fsync_delay_ms)
{
    return s->core->async_start(s, loop, fsync_delay_ms);
}

/* Wait for every durability in flight (their dones run) and stop the
 * writer thread. Idempotent; store_close() calls it too. Loop thread. */
static inline void store_async_stop(store *s)
{
    s->core->async_stop(s);
}

/* How many fsyncs asynchronous durability has made since the store was
 * opened (SQLite: of the write-ahead log, by the writer or, stopping, on
 * the loop). Commits made while an fsync runs share the next one, so
 * under load this grows slower than the commits (sqlite/sqlite_core.c
 * "Group fsync"); tests and benchmarks read it. Loop thread. */
static inline uint64_t store_fsyncs(store *s)
{
    return s->core->fsyncs(s);
}

/* From now on, record in histogram h (util/metrics.h; borrowed, it must
 * outlive the store or be replaced; NULL: record nothing) the duration in
 * seconds of each durability flush, the operator's "fsync time" (metric
 * qirkat_fsync_seconds). SQLite: under asynchronous durability, each fsync
 * of the write-ahead log, timed around the fdatasync by the thread that
 * makes it (the writer, or the loop while stopping; fsync_delay_ms's stall
 * included, since it stands for a slow disk) and recorded on the loop
 * thread with the job's completion, after its commits' dones: one flush
 * serves every commit gathered behind it, so the count never passes the
 * commits made durable. Synchronous (no writer): each COMMIT of an open
 * transaction, which syncs the log itself. Loop thread. */
static inline void store_time_fsyncs(store *s, struct metric *h)
{
    s->core->time_fsyncs(s, h);
}

/* Whether a commit's durability is being completed off the loop right now
 * (SQLite: an fsync is with the writer thread). A commit made meanwhile
 * waits for that fsync and the next one. Loop thread. */
static inline bool store_durability_busy(store *s)
{
    return s->core->durability_busy(s);
}

/* The write-ahead log under sustained load (sqlite/sqlite_core.c
 * "Restarting the WAL"). SQLite starts the log over from its beginning only when a write
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
static inline int store_wal_restart(store *s)
{
    return s->core->wal_restart(s);
}

/* The restart length in frames (default STORE_WAL_RESTART_FRAMES; tests
 * set less); 0 turns restarts off. Loop thread. */
#define STORE_WAL_RESTART_FRAMES 4096 /* 16 MiB of 4 KiB pages */
static inline void store_wal_restart_at(store *s, int64_t frames)
{
    s->core->wal_restart_at(s, frames);
}

/* How many times the log started over since the store was opened. */
static inline uint64_t store_wal_restarts(store *s)
{
    return s->core->wal_restarts(s);
}

/* The blocking commit, for start-up and shut-down code and tools:
 * commits the open transaction (no-op when none) and returns STORE_OK, or
 * STORE_EIO after rolling it back (logged). Never STORE_PENDING. */
static inline int store_commit(store *s)
{
    return s->core->commit(s, NULL, NULL);
}

/* Roll back the open transaction (no-op when none). */
static inline void store_rollback(store *s)
{
    s->core->rollback(s);
}

/* Fault injection for tests: make the n-th commit from now (1 = the next;
 * sync or async) fail as if the disk had; 0 disables. */
static inline void store_fail_commit_at(store *s, int n)
{
    s->core->fail_commit_at(s, n);
}

/* ---- bounded storage (issue 9) ---------------------------------------
 *
 * Bookkeeping of the server's own limits, not game data: the journal's
 * size, the idle checkpoint, the pruning of old rows. The other bounds of
 * issue 9 are rows of their areas: one unread notice per game and kind
 * and the per-sender cap (store_corr.h), the paged lobby and the
 * challenge rate (store_challenges.h), the draw-offer throttle and the
 * mark on a game that no longer loads (store_games.h). Results as above
 * ("Results"): 0 or a negative STORE_E* code, STORE_BUSY included. */

/* The size (bytes, > 0) the journal (SQLite: the -wal file) is cut back to
 * whenever a checkpoint resets it (SQLite: PRAGMA journal_size_limit).
 * store_open() sets STORE_JOURNAL_LIMIT; tests set less. 0 or STORE_EIO. */
static inline int store_journal_limit(store *s, int64_t bytes)
{
    return s->core->journal_limit(s, bytes);
}

/* Copy the journal into the database and truncate it to 0 bytes (SQLite:
 * wal_checkpoint(TRUNCATE)); call it only with no transaction open.
 * Never waits: STORE_BUSY when a reader or writer (another process)
 * keeps it from completing; 0 or STORE_EIO. */
static inline int store_checkpoint(store *s)
{
    return s->core->checkpoint(s);
}

/* Delete, inside the open transaction, at most STORE_PRUNE_BATCH rows of
 * each kind p names (store_prune_spec); *rows receives how many went. A
 * caller repeats it (next sweep) while *rows is STORE_PRUNE_BATCH or more. */
static inline int store_prune(store *s, const store_prune_spec *p, int64_t *rows)
{
    return s->core->prune(s, p, rows);
}

#endif
