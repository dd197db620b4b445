/*
 * pg_base: what every file of the PostgreSQL backend shares, and nothing
 * of any area: the backend's object (pg_store, first member struct store),
 * the connection driven by libpq's asynchronous API on the server's loop,
 * the statement lists, the query helpers and the backend's one way to walk
 * rows (pg_each()). Private to store/pg/; no store_*.h names a libpq type.
 *
 * The connection. One libpq connection per node, non-blocking
 * (PQsetnonblocking), its socket watched with uv_poll once the server's
 * loop runs (store_async_start()). Queries are queued in arrival order (a
 * FIFO of pg_req) and reach the server in that order, so a transaction's
 * statements, the COMMIT and the reads after it run in the order the game
 * service made them, as on SQLite's single connection: a read sees the
 * open transaction's writes.
 *
 * Pipeline mode (libpq >= 14), while the loop runs: a query is sent
 * without waiting for the answer of the one before, and a block's
 * statements leave in one write before the loop sleeps (libpq 15's
 * PQpipelineSync flushes at once, so a COMMIT or a query outside a block
 * is written when it is sent), so a batch's
 * statements (the move, its pg_notify, its notification rows) cost one
 * round trip, not one each (docs/perf.md "PostgreSQL"). Results are read
 * back in FIFO order. Inside a transaction block the statements form one
 * pipeline segment (no Sync; a Flush request after each query a task
 * waits for, none after the others, whose results ride with the next
 * Flush or Sync); the COMMIT or ROLLBACK
 * carries the Sync, and nothing is sent behind it until that Sync is
 * back. A statement that fails in the block aborts the rest of the
 * segment, the COMMIT included (PGRES_PIPELINE_ABORTED, reported as
 * failures: the commit's done gets STORE_EIO, as before), and a ROLLBACK
 * is sent before anything else. Outside a block every query has its own
 * Sync, so one failure fails only itself. Before the loop runs (open,
 * migrations, tools, tests) and after it stops, queries go one at a
 * time, each with its own Sync.
 *
 * Waiting. A helper that needs its result (pg_run, pg_one_row, pg_each,
 * ...) queues the query and waits for it:
 *  - inside a task (util/task.h): task_wait(); the loop runs on, and the
 *    socket's callback resumes the task with the result: nothing blocks;
 *  - before the loop runs (open, migrations, tests, `qirkatd migrate`):
 *    poll() on the socket until the result is in. Once the loop runs, a
 *    wait outside a task would block it: it is logged as an error naming
 *    the statement (the tests fail on that line) and done anyway, so the
 *    request is still answered right.
 * pg_send() queues a write of the open transaction without waiting: its
 * failure fails the transaction (the commit reports STORE_EIO), which is
 * what a failed write of the batch means on SQLite too.
 *
 * Constraints inside a transaction. A failed statement aborts a PostgreSQL
 * transaction (on SQLite only the statement fails), so a write that may
 * meet a UNIQUE constraint is written `INSERT ... ON CONFLICT DO NOTHING`
 * (or a conditional UPDATE) and run with pg_run_conflict(): no row changed
 * is STORE_CONFLICT and the transaction goes on. Any other failure of a
 * statement in a transaction is logged, fails the transaction and is
 * STORE_EIO.
 *
 * Statements are prepared once on the connection at open (PQprepare),
 * from each area file's X-macro list X(NAME, "SQL with $1..$n"), numbered
 * from the area's base as in the SQLite backend (sq_base.h); parameters
 * are always bound, never SQL built from strings. Results are text
 * (bytea as \x hex, read back with pg_col_blob()).
 *
 * Loop thread only.
 */
#ifndef QK_STORE_PG_BASE_H
#define QK_STORE_PG_BASE_H

#include <libpq-fe.h>
#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

#include "store/store_core.h"
#include "util/task.h"

typedef enum {
    PG_AREA_CORE,
    PG_AREA_USERS,
    PG_AREA_CHALLENGES,
    PG_AREA_GAMES,
    PG_AREA_CORR,
    PG_AREA_RATINGS,
    PG_AREA_TOURNEY,
    PG_AREA_RECORDS,
    PG_AREA_ADMIN,
    PG_AREA__COUNT
} pg_area;

#define PG_AREA_STMTS 64
#define PG_STMTS_MAX (PG_AREA__COUNT * PG_AREA_STMTS)
#define PG_PARAMS_MAX 32

typedef int pg_stmt;

typedef struct pg_stmt_def {
    const char *name, *sql;
} pg_stmt_def;

typedef struct pg_area_stmts {
    pg_area area;
    const pg_stmt_def *defs;
    int n;
} pg_area_stmts;

/* In an area file, with GAMES_STATEMENTS(X) its list (as sq_base.h):
 *     enum { PG_AREA_FIRST(GAMES), GAMES_STATEMENTS(PG_STMT_ENUM) ST_GAMES__END };
 *     static const pg_stmt_def games_defs[] = {GAMES_STATEMENTS(PG_STMT_DEF)};
 *     PG_AREA_CHECK(GAMES);
 *     const pg_area_stmts pg_games_stmts = {PG_AREA_GAMES, games_defs, PG_AREA_COUNT(GAMES)};
 */
#define PG_AREA_FIRST(AREA) ST_##AREA##__BASE = PG_AREA_##AREA * PG_AREA_STMTS - 1
#define PG_STMT_ENUM(name, sql) ST_##name,
#define PG_STMT_DEF(name, sql) {#name, sql},
#define PG_AREA_CHECK(AREA)                                                                        \
    _Static_assert(ST_##AREA##__END - ST_##AREA##__BASE - 1 <= PG_AREA_STMTS,                      \
                   "too many statements in area " #AREA)
#define PG_AREA_COUNT(AREA) (ST_##AREA##__END - ST_##AREA##__BASE - 1)

/* A statement number for SQL text that is not a prepared statement
 * (BEGIN, COMMIT, LISTEN): pg_req.text holds the text. */
#define PG_TEXT (-1)

/* One query in the connection's FIFO. */
typedef struct pg_req {
    struct pg_req *next;
    pg_stmt which;    /* or PG_TEXT */
    const char *text; /* PG_TEXT: static SQL */
    int n;
    char *val[PG_PARAMS_MAX]; /* into buf; NULL = SQL NULL */
    int len[PG_PARAMS_MAX], fmt[PG_PARAMS_MAX];
    char *buf; /* owned: every parameter's bytes */
    task *waiter;          /* resumed when done (NULL: nobody waits in a task) */
    bool unwaited;         /* sent without anyone waiting for it (pg_send, BEGIN): no Flush */
    bool done, sent;
    bool send_failed;      /* never reached the server: no result to read */
    bool results_done;     /* its results are read (the Sync may be due) */
    bool synced;           /* pipeline mode: a Sync follows it, not read yet */
    bool keep_result;      /* the waiter reads res (else it is cleared) */
    PGresult *res;         /* the last result; owned by the waiter when keep_result */
    ExecStatusType status; /* of res */
    char sqlstate[6];
    uint64_t txn;          /* the transaction it belongs to (0 = none) */
    store_done_cb on_done; /* COMMIT: the durability callback */
    void *on_done_arg;
    bool is_commit;
    uint64_t sent_ns; /* COMMIT: uv_hrtime() when queued */
} pg_req;

/* Ids of a table's identity column taken ahead (pg_next_id()). */
#define PG_ID_POOL 16
typedef struct pg_id_pool {
    int64_t id[PG_ID_POOL];
    int next, n; /* id[next..n-1] are unused */
} pg_id_pool;
typedef enum { PG_IDS_GAMES, PG_IDS_CHALLENGES, PG_IDS_NOTES, PG_IDS__COUNT } pg_ids_of;

/* Delivered notifications (LISTEN): channel and payload are valid during
 * the call only. */
typedef void (*pg_notify_cb)(void *arg, const char *channel, const char *payload);

typedef struct pg_store {
    store base;
    PGconn *conn;
    char *url;
    const char *st_name[PG_STMTS_MAX]; /* by pg_stmt; NULL = none */
    int st_nparams[PG_STMTS_MAX];
    /* The FIFO: head is sent (or about to be) and answered first; unsent
     * the first not sent yet (NULL: all are). */
    pg_req *head, **tail, *unsent;
    size_t queued;
    /* Pipeline mode (from pg_watch to pg_unwatch): in_block, a BEGIN was
     * sent and its COMMIT or ROLLBACK not yet; gate, that COMMIT or
     * ROLLBACK while its Sync is not back (nothing is sent behind it);
     * flusher flushes the turn's output before the loop sleeps. */
    bool pipeline, in_block, flush_due, flusher_on;
    int unflushed; /* statements sent since the last flush (pg_base.c PG_FLUSH_EVERY) */
    pg_req *gate;
    uv_prepare_t flusher;
    uv_loop_t *loop; /* set by async_start: from then on nothing may block */
    uv_poll_t poll;
    bool poll_on;
    int poll_events;
    bool exclusive; /* store_pg_exclusive(): moves' writes are not waited for */
    bool lost; /* the connection broke: every query fails (pg_core.c "Lost connection") */
    void (*on_lost)(void *arg);
    void *lost_arg;
    /* Transactions: txn is the serial of the open one (0 = none); the
     * highest serial a statement failed in; commits in flight. */
    uint64_t txn, txn_serial, failed_txn;
    int commits_inflight;
    uint64_t commits_done;
    int fail_commit_at;
    pg_notify_cb on_notify;
    void *notify_arg;
    /* store_pg_listen()'s callback: the payloads of STORE_PG_CHANNEL
     * (pg.c filters the channel; NULL = none) */
    void (*listen_cb)(void *arg, const char *payload);
    void *listen_arg;
    uint64_t blocking_waits; /* waits that blocked a running loop (a bug: logged) */
    struct metric *commit_h; /* qirkat_fsync_seconds: COMMIT to its answer (NULL = none) */
    /* pg_next_id(), by pg_ids_of */
    pg_id_pool ids[PG_IDS__COUNT];
} pg_store;

static inline pg_store *pg_of(store *s)
{
    return (pg_store *)s;
}

/* Open a connection to url (libpq URI or key=value string), blocking:
 * at open only, before the loop runs. Non-blocking mode is set after.
 * STORE_OK or STORE_EIO (logged, without the password). */
int pg_connect(pg_store *s, const char *url);
/* Prepare an area's statements on the connection (blocking, at open).
 * STORE_OK or STORE_EIO naming the statement. */
int pg_prepare(pg_store *s, const pg_area_stmts *a);
/* Start watching the socket on loop: from now on waits happen in tasks.
 * STORE_OK or STORE_EIO. */
int pg_watch(pg_store *s, uv_loop_t *loop);
/* Stop watching the socket (the loop is stopping): later waits poll()
 * as before the loop ran. */
void pg_unwatch(pg_store *s);
/* Stop watching, finish what is queued (blocking), close the connection. */
void pg_disconnect(pg_store *s);

/* Bind by a format, one char per parameter from $1 (as sq_bind(),
 * sq_base.h): 'i' int64_t, 'o' int64_t bound as NULL when <= 0 (optional
 * ids), 'O' int64_t bound as NULL when < 0 (optional times), 't' const
 * char * (NULL binds NULL), 'T' const char * bound as NULL when "" or
 * NULL, 'h' const uint8_t[32] (bytea), 'd' double (as "%.17g": read back
 * exactly). */

/* Run a statement that returns no row: STORE_OK; STORE_EIO on any
 * failure (logged; inside a transaction it also fails the transaction).
 * Inside a transaction once the loop runs it does not wait, as pg_send():
 * its answer could only be OK or the failure of the whole batch, which
 * the commit reports; so a handler's plain writes cost no round trip. */
int pg_run(pg_store *s, pg_stmt which, const char *fmt, ...);
/* pg_run() for a write of exactly one row: STORE_NOTFOUND when it changed
 * none. */
int pg_run_one(pg_store *s, pg_stmt which, const char *fmt, ...);
/* pg_run() for `INSERT ... ON CONFLICT DO NOTHING` or a conditional
 * UPDATE: STORE_CONFLICT when it changed no row. */
int pg_run_conflict(pg_store *s, pg_stmt which, const char *fmt, ...);
/* Queue a write of the open transaction and do not wait: STORE_OK, or
 * STORE_EIO when it could not be queued (then the transaction fails too).
 * Its failure later fails the transaction. */
int pg_send(pg_store *s, pg_stmt which, const char *fmt, ...);
/* Whether a write of the open transaction goes unwaited (pg_send()),
 * though SQLite's would answer STORE_NOTFOUND or STORE_CONFLICT: inside
 * the batch on a running server, on a node alone (pg.h
 * store_pg_exclusive()), where the node's memory decides the outcome (a
 * one-row update of a row it holds, a conditional UPDATE or a claim that
 * only another writer could make fail). The area files then use
 * statements that fail, and fail the batch, when they change no row (the
 * "_X" ones: a division by zero, PG_ONE_ROW_OR_FAIL() around a write,
 * PG_A_ROW_OR_FAIL() around a query), and the node exits 75 at its COMMIT
 * (srv.c on_durable). With other nodes these writes are waited for: a
 * failure there (a deadlock between nodes, a lock timeout) is the
 * caller's to answer, and the node goes on. */
#define PG_ONE_ROW_OR_FAIL(write)                                                                  \
    "WITH u AS (" write " RETURNING 1) SELECT 1 / (SELECT count(*) FROM u)::int"
#define PG_A_ROW_OR_FAIL(query) "SELECT 1 / (SELECT count(*) FROM (" query ") c)::int"
static inline bool pg_alone_in_batch(const pg_store *s)
{
    return s->exclusive && s->txn && s->loop;
}
/* The next id of a table's identity column, into *out: from pool which,
 * refilled with the statement reserve (one bigint column, a row per id;
 * $1 the count, PG_ID_POOL) when empty. STORE_OK or STORE_EIO. Why: an
 * INSERT ... RETURNING id waits for its answer, a round trip behind every
 * statement queued before it (a COMMIT in flight among them), and the
 * batch, so every other client, waits with it; with the id taken ahead
 * the INSERT goes unwaited. Only a refill waits, once per PG_ID_POOL ids.
 * Used on a node alone only (pg_alone_in_batch()), so ids stay in
 * creation order (docs/protocol.md lists by id); store_pg_exclusive(false)
 * drops what is left (pg_drop_ids()), and so does a node that stops:
 * gaps. Calling nextval() needs USAGE on the sequences, which the role
 * that ran the migrations has (docs/scale.md). */
int pg_next_id(pg_store *s, pg_stmt reserve, pg_ids_of which, int64_t *out);
/* Forget the ids taken ahead (another node may write now). */
void pg_drop_ids(pg_store *s);
/* Run a query expected to return at most one row: STORE_OK with *res
 * holding it (row 0; the caller PQclear()s it), STORE_NOTFOUND (no row,
 * *res NULL) or STORE_EIO (*res NULL). */
int pg_one_row(pg_store *s, pg_stmt which, PGresult **res, const char *fmt, ...);
/* Run a query and keep every row: STORE_OK with *res (caller clears), or
 * STORE_EIO with *res NULL. */
int pg_query(pg_store *s, pg_stmt which, PGresult **res, const char *fmt, ...);

/* The rows of a query, the one way for every listing: row(res, i, ctx)
 * for i = 0.. returns 0 to go on or non-zero to stop. Returns 0 at the
 * end, row's non-zero value when it stopped, or STORE_EIO. The whole
 * result is fetched before the first call, so row may call other store
 * functions (unlike SQLite's cursor). */
typedef int (*pg_row_fn)(const PGresult *res, int i, void *ctx);
int pg_each(pg_store *s, pg_stmt which, pg_row_fn row, void *ctx, const char *fmt, ...);

/* Run SQL text without parameters (BEGIN, LISTEN, ...) and wait:
 * STORE_OK or STORE_EIO (logged with what). */
int pg_exec_text(pg_store *s, const char *sql, const char *what);
/* Queue SQL text without waiting (BEGIN, ROLLBACK, COMMIT): on_done (may
 * be NULL) is called with STORE_OK or STORE_EIO when the server answered.
 * is_commit: its result ends transaction txn (see pg_core.c). */
int pg_send_text(pg_store *s, const char *sql, bool is_commit, uint64_t txn, store_done_cb on_done,
                 void *arg);
/* Wait until every queued query is answered (blocking; close, tests). */
void pg_drain(pg_store *s);

/* Columns of a result row (text format). NULL reads as 0 / "". */
int64_t pg_col_int(const PGresult *r, int row, int col);
bool pg_col_null(const PGresult *r, int row, int col);
double pg_col_double(const PGresult *r, int row, int col);
/* Copy text into buf (size n), truncating. */
void pg_col_text(const PGresult *r, int row, int col, char *buf, size_t n);
/* A bytea column of exactly n bytes into out: 0, or -1 (NULL or another
 * length). */
int pg_col_blob(const PGresult *r, int row, int col, uint8_t *out, size_t n);

/* A row function for pg_each(): column 0 of each row (an id) into
 * ids[*n], *n growing, at most max: then it stops the walk (returns 1). */
typedef struct pg_ids {
    int64_t *ids;
    int max;
    int *n;
} pg_ids;
int pg_row_id(const PGresult *r, int i, void *ctx);

#endif
