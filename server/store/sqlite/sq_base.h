/*
 * sq_base: what every file of the SQLite backend shares, and nothing of
 * any area: the backend's object (sq_store, whose first member is struct
 * store), the statement registry, the binding and stepping helpers, and
 * the backend's one way to walk the rows of a statement (sq_each()).
 * Private to store/sqlite/; nothing here leaves the backend: no store_*.h
 * names a sqlite3 type.
 *
 * Statements. Each area file keeps its own SQL texts in an X-macro list
 * X(NAME, "SQL") and numbers them from its area's base (SQ_AREA_FIRST),
 * so ST_NAME indexes sq_store.st directly and no central list names every
 * statement. store_sqlite_open() prepares every area's list once
 * (sq_prepare(): persistent, bound parameters only, never SQL built from
 * strings); a failure to prepare fails the open.
 *
 * Errors: a failing SQLite call is logged with the statement's name
 * (sq_fail) and reported as STORE_EIO; a locked database is STORE_BUSY
 * (logged at debug only); a UNIQUE or PRIMARY KEY violation is
 * STORE_CONFLICT (not logged).
 */
#ifndef QK_STORE_SQ_BASE_H
#define QK_STORE_SQ_BASE_H

#include <sqlite3.h>
#include <stdatomic.h>

#include "util/workers.h"

#include "store/store_core.h"

/* The areas, each with a range of SQ_AREA_STMTS statement numbers. */
typedef enum {
    SQ_AREA_CORE,
    SQ_AREA_USERS,
    SQ_AREA_CHALLENGES,
    SQ_AREA_GAMES,
    SQ_AREA_CORR,
    SQ_AREA_RATINGS,
    SQ_AREA_TOURNEY,
    SQ_AREA_RECORDS,
    SQ_AREA_ADMIN,
    SQ_AREA__COUNT
} sq_area;

#define SQ_AREA_STMTS 64
#define SQ_STMTS_MAX (SQ_AREA__COUNT * SQ_AREA_STMTS)

/* A statement number: ST_NAME of an area file's list. */
typedef int sq_stmt;

typedef struct sq_stmt_def {
    const char *name, *sql;
} sq_stmt_def;

/* An area's statements, for sq_prepare(). */
typedef struct sq_area_stmts {
    sq_area area;
    const sq_stmt_def *defs;
    int n;
} sq_area_stmts;

/* In an area file, with GAMES_STATEMENTS(X) its list:
 *     enum { SQ_AREA_FIRST(GAMES), GAMES_STATEMENTS(SQ_STMT_ENUM) ST_GAMES__END };
 *     static const sq_stmt_def games_defs[] = {GAMES_STATEMENTS(SQ_STMT_DEF)};
 *     SQ_AREA_CHECK(GAMES);
 *     const sq_area_stmts sq_games_stmts = {SQ_AREA_GAMES, games_defs, SQ_AREA_COUNT(GAMES)};
 */
#define SQ_AREA_FIRST(AREA) ST_##AREA##__BASE = SQ_AREA_##AREA * SQ_AREA_STMTS - 1
#define SQ_STMT_ENUM(name, sql) ST_##name,
#define SQ_STMT_DEF(name, sql) {#name, sql},
#define SQ_AREA_CHECK(AREA)                                                                        \
    _Static_assert(ST_##AREA##__END - ST_##AREA##__BASE - 1 <= SQ_AREA_STMTS,                      \
                   "too many statements in area " #AREA)
#define SQ_AREA_COUNT(AREA) (ST_##AREA##__END - ST_##AREA##__BASE - 1)

/* One fsync of the write-ahead log and the commits it makes durable
 * (sqlite_core.c "Durability"): runs of equal (done, arg), in commit order. */
typedef struct sq_waiter {
    store_done_cb done;
    void *arg;
    uint64_t count;
} sq_waiter;

typedef struct sq_sync_job {
    workers_job job; /* first */
    struct sq_store *s;
    sq_waiter *w; /* w[n], malloc()ed; grows only when callers interleave */
    size_t n, cap;
    int rc;       /* STORE_OK or STORE_EIO; SQ_SYNC_NOT_RUN until the writer ran it */
    int error;    /* errno of a failed fsync */
    /* The fsync's duration (seconds; < 0: not timed), written by the thread
     * that made it and read on the loop in sync_finish(): the writer's
     * write happens before its completion runs on the loop (libuv's work
     * queue hands the job over under its mutex), so no atomic is needed. */
    double fsync_s;
    uint64_t seq; /* 1, 2, ...: the order jobs go to the writer (set before) */
} sq_sync_job;

/* The backend's store: struct store first, so store * and sq_store *
 * convert into each other (sq_of()). */
typedef struct sq_store {
    store base;
    sqlite3 *db;
    sqlite3_stmt *st[SQ_STMTS_MAX];    /* by sq_stmt; NULL where no statement */
    const char *st_name[SQ_STMTS_MAX]; /* for logs */
    bool in_txn;
    int fail_commit_at; /* fault injection countdown; 0 = off */
    char *path;         /* the database file (the writer opens its own connection) */
    /* Asynchronous durability (store_async_start, sqlite_core.c "Durability"). */
    bool async;
    workers writer;         /* one thread: fsyncs and checkpoints, in commit order */
    int wal_fd;             /* the -wal file, for fsync; -1 = none */
    int fsync_delay_ms;     /* tests and benchmarks: stall each fsync */
    sqlite3 *ckpt_db;       /* the writer thread's own connection, for checkpoints */
    atomic_int wal_frames;  /* frames not yet checkpointed after the last commit (wal hook) */
    atomic_int ckpt_frames; /* the writer checkpoints when wal_frames is above */
    atomic_int ckpt_logged; /* the log length the last complete checkpoint copied */
    atomic_uint_least64_t ckpt_job; /* a job from this seq on checkpoints anyway; 0 = none */
    /* Group fsync: at most one job with the writer (inflight); commits made
     * meanwhile gather in the other (jobs[!cur]) and share the next fsync. */
    sq_sync_job jobs[2];
    int cur;                      /* jobs[cur] is gathering */
    atomic_uint_least64_t fsyncs; /* store_fsyncs() */
    struct metric *fsync_hist;    /* store_time_fsyncs(); loop thread; NULL = none */
    bool inflight;                /* jobs[!cur] is with the writer */
    /* WAL restart under sustained load (sqlite_core.c "Restarting the WAL"),
     * loop thread only: the WAL's length in frames after the last commit,
     * the length above which a restart is wanted (restart_frames, raised
     * after an attempt that did not restart), and the restarts seen. */
    int64_t wal_size, restart_above, restart_frames;
    uint64_t wal_restarts;
    uint32_t wal_ckpt_seq;        /* the log header's checkpoint count: changes at a restart */
    uint64_t submitted, finished; /* jobs handed to the writer / whose dones ran */
    uint64_t hold_job;            /* the job a hold waits for; 0 = no hold */
} sq_store;

static inline sq_store *sq_of(store *s)
{
    return (sq_store *)s;
}

/* Prepare the statements of one area into s->st (persistent). STORE_OK,
 * or STORE_EIO after logging the statement that failed; the ones prepared
 * before stay in s->st for store_close() to finalize. */
int sq_prepare(sq_store *s, const sq_area_stmts *a);
/* Run SQL text without parameters (pragmas, migrations); what names it in
 * the log. STORE_OK or STORE_EIO (logged). */
int sq_exec(sq_store *s, const char *sql, const char *what);

/* The statement, reset and with bindings cleared, ready to bind. */
sqlite3_stmt *sq_stmt_get(sq_store *s, sq_stmt which);
/* Bind by a format, one char per parameter from ?1: 'i' int64_t, 'o'
 * int64_t bound as NULL when <= 0 (optional ids), 'O' int64_t bound as NULL
 * when < 0 (optional times), 't' const char * (NULL binds NULL), 'T' const
 * char * bound as NULL when "" or NULL, 'h' const uint8_t[32] blob. Returns
 * STORE_OK or STORE_EIO (logged). */
int sq_bind(sq_store *s, sq_stmt which, const char *fmt, ...);
/* Log the statement's failure and return STORE_EIO (STORE_BUSY, logged at
 * debug only, when another connection holds the lock). */
int sq_fail(sq_store *s, sq_stmt which, int rc);
/* Step a statement that returns no row, and reset it: STORE_OK; a UNIQUE
 * or PRIMARY KEY violation is STORE_CONFLICT (not logged: callers such as
 * register expect it); any other failure, including other constraints
 * (a bug of ours), is logged and STORE_EIO. */
int sq_run(sq_store *s, sq_stmt which);
/* sq_run() for a write of exactly one row (an UPDATE or DELETE by key):
 * STORE_NOTFOUND when it changed none. */
int sq_run_one(sq_store *s, sq_stmt which);
/* Step a statement expected to return at most one row: STORE_OK with the
 * row current (the caller reads it, then resets), STORE_NOTFOUND or
 * STORE_EIO (logged), both after a reset. */
int sq_one_row(sq_store *s, sq_stmt which);

/* The rows of a statement, one way for every listing of every area: row
 * is called with each row current (its columns readable from st) and
 * returns 0 to go on or a non-zero value that stops the walk. sq_each()
 * steps which (bound already) to its end and resets it in every case;
 * it returns 0 at the end, row's non-zero value when row stopped it, or
 * the failed step's STORE_EIO / STORE_BUSY (sq_fail). An area's row
 * function reads the row into its struct and hands it to the caller's
 * callback, whose non-zero value is returned as is. */
typedef int (*sq_row_fn)(sqlite3_stmt *st, void *ctx);
int sq_each(sq_store *s, sq_stmt which, sq_row_fn row, void *ctx);

/* A row function for sq_each(): column 0 of each row (an id) into
 * ids[*n], *n growing, at most max: then it stops the walk (returns 1,
 * which the caller reads as STORE_OK). */
typedef struct sq_ids {
    int64_t *ids;
    int max;
    int *n;
} sq_ids;
int sq_row_id(sqlite3_stmt *st, void *ctx);

/* Copy text column i of st into buf (size n), truncating; NULL -> "". */
void sq_col_text(sqlite3_stmt *st, int i, char *buf, size_t n);

#endif
