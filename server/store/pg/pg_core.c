/*
 * pg_core: the PostgreSQL backend's core (store_core.h): transactions,
 * group commit, durability, bounded storage.
 *
 * Group commit. store_begin() queues BEGIN without waiting; the batch's
 * writes follow it on the connection; store_commit_async() queues COMMIT
 * and returns at once: the COMMIT's answer comes when PostgreSQL has
 * flushed the transaction's WAL record (synchronous_commit = on, set by
 * pg_connect), and only then does done run, so no answer of the batch
 * leaves the server before it is durable (net/conn.h "Durability epochs").
 * A statement of the transaction that failed (pg_base.h "Constraints")
 * makes PostgreSQL roll the transaction back at COMMIT: done then gets
 * STORE_EIO. While a COMMIT is in flight store_durability_busy() is true,
 * so the server keeps the next batch open (batch_end_or_keep) and the
 * commits that arrive meanwhile share the next flush, as they share an
 * fsync on SQLite.
 *
 * What SQLite needs and PostgreSQL does not: the write-ahead log's restart
 * and its checkpoints, the journal limit (PostgreSQL's own checkpointer
 * and max_wal_size bound its WAL): those entries are no-ops here.
 *
 * Lost connection. If the connection breaks, the server is told first
 * (pg_store.on_lost, set by pg.c) and exits at once with status 75, to be
 * restarted by its supervisor (deploy/qirkatd.service Restart=on-failure),
 * while haproxy sends its clients to the other nodes (docs/scale.md "What
 * fails how"): a COMMIT in flight has an unknown outcome, and nothing of
 * its batch was answered. Without that callback (tools, tests) every query
 * in flight fails with STORE_EIO and commits in flight report EIO.
 */
#include "store/pg/pg_areas.h"

#include <stdlib.h>
#include <string.h>

#include "store/pg.h"
#include "util/log.h"

#define CORE_STATEMENTS(X)                                                                         \
    X(PRUNE_NOTES,                                                                                 \
      "DELETE FROM notifications WHERE id IN (SELECT id FROM notifications WHERE read = 1 "        \
      "AND created < $1 LIMIT $2)")                                                                \
    X(PRUNE_CHALLENGES,                                                                            \
      "DELETE FROM challenges WHERE id IN (SELECT id FROM challenges WHERE status <> 'open' "      \
      "AND updated < $1 LIMIT $2)")                                                                \
    X(PRUNE_TOKENS,                                                                                \
      "DELETE FROM tokens WHERE hash IN (SELECT hash FROM tokens WHERE last_used < $1 "            \
      "LIMIT $2)")                                                                                 \
    X(USER_VERSION, "SELECT version FROM qirkat_schema")                                           \
    X(NOTIFY, "SELECT pg_notify('" STORE_PG_CHANNEL "', $1)")

enum { PG_AREA_FIRST(CORE), CORE_STATEMENTS(PG_STMT_ENUM) ST_CORE__END };
static const pg_stmt_def core_defs[] = {CORE_STATEMENTS(PG_STMT_DEF)};
PG_AREA_CHECK(CORE);
const pg_area_stmts pg_core_stmts = {PG_AREA_CORE, core_defs, PG_AREA_COUNT(CORE)};

static int pg_user_version(store *base, int *out)
{
    PGresult *r;
    int rc = pg_one_row(pg_of(base), ST_USER_VERSION, &r, "");
    if (rc)
        return rc == STORE_NOTFOUND ? STORE_EIO : rc;
    *out = (int)pg_col_int(r, 0, 0);
    PQclear(r);
    return STORE_OK;
}

static int pg_begin(store *base)
{
    pg_store *s = pg_of(base);
    if (s->txn)
        return STORE_OK;
    if (s->lost)
        return STORE_EIO;
    uint64_t txn = ++s->txn_serial;
    if (pg_send_text(s, "BEGIN", false, txn, NULL, NULL) != STORE_OK)
        return STORE_EIO;
    s->txn = txn;
    return STORE_OK;
}

static bool pg_in_txn(const store *base)
{
    return ((const pg_store *)base)->txn != 0;
}

static void pg_rollback(store *base)
{
    pg_store *s = pg_of(base);
    if (!s->txn)
        return;
    uint64_t txn = s->txn;
    s->txn = 0;
    (void)pg_send_text(s, "ROLLBACK", false, txn, NULL, NULL);
    if (!s->loop)
        pg_drain(s);
}

static void pg_fail_commit_at(store *base, int n)
{
    pg_of(base)->fail_commit_at = n;
}

/* The blocking commit's done: records the result for commit(). */
static void sync_done(void *arg, int rc)
{
    *(int *)arg = rc;
}

static int pg_commit(store *base, store_done_cb done, void *arg)
{
    pg_store *s = pg_of(base);
    if (!s->txn) {
        if (done)
            done(arg, STORE_OK);
        return STORE_OK;
    }
    uint64_t txn = s->txn;
    if (s->fail_commit_at > 0 && --s->fail_commit_at == 0) {
        log_error("postgresql COMMIT: injected failure");
        pg_rollback(base);
        return STORE_EIO;
    }
    s->txn = 0;
    if (!done || !s->loop) {
        /* Start-up, shut-down, tools and tests: wait for it here. */
        int rc = STORE_EIO;
        if (pg_send_text(s, "COMMIT", true, txn, sync_done, &rc) != STORE_OK)
            return STORE_EIO;
        pg_drain(s);
        if (done)
            done(arg, rc);
        return done ? STORE_OK : rc;
    }
    return pg_send_text(s, "COMMIT", true, txn, done, arg);
}

static int pg_async_start(store *base, uv_loop_t *loop, int fsync_delay_ms)
{
    (void)fsync_delay_ms; /* the database's own flush: nothing to stall here */
    pg_store *s = pg_of(base);
    return s->loop ? STORE_OK : pg_watch(s, loop);
}

static void pg_async_stop(store *base)
{
    pg_store *s = pg_of(base);
    /* Every commit in flight reports before the loop stops; then the
     * socket's watcher goes, or it would keep uv_run() from returning.
     * From here calls wait with poll() again, as before the loop ran. */
    pg_drain(s);
    pg_unwatch(s);
}

static uint64_t pg_fsyncs(store *base)
{
    return pg_of(base)->commits_done;
}

static bool pg_durability_busy(store *base)
{
    return pg_of(base)->commits_inflight > 0;
}

static int pg_wal_restart(store *base)
{
    (void)base;
    return STORE_WAL_OK;
}

static void pg_wal_restart_at(store *base, int64_t frames)
{
    (void)base;
    (void)frames;
}

static uint64_t pg_wal_restarts(store *base)
{
    (void)base;
    return 0;
}

static int pg_journal_limit(store *base, int64_t bytes)
{
    (void)base;
    (void)bytes;
    return STORE_OK;
}

static int pg_checkpoint(store *base)
{
    (void)base;
    return STORE_OK;
}

static int prune_one(pg_store *s, pg_stmt which, int64_t before, int64_t *rows)
{
    if (before <= 0)
        return STORE_OK;
    PGresult *r = NULL;
    int rc = pg_query(s, which, &r, "ii", before, (int64_t)STORE_PRUNE_BATCH);
    if (rc)
        return rc;
    const char *n = PQcmdTuples(r);
    *rows += *n ? strtoll(n, NULL, 10) : 0;
    PQclear(r);
    return STORE_OK;
}

static int pg_prune(store *base, const store_prune_spec *p, int64_t *rows)
{
    pg_store *s = pg_of(base);
    *rows = 0;
    int rc = prune_one(s, ST_PRUNE_NOTES, p->notes_read_before, rows);
    if (!rc)
        rc = prune_one(s, ST_PRUNE_CHALLENGES, p->challenges_closed_before, rows);
    if (!rc)
        rc = prune_one(s, ST_PRUNE_TOKENS, p->tokens_used_before, rows);
    return rc;
}

int pg_core_notify(pg_store *s, const char *payload)
{
    return pg_send(s, ST_NOTIFY, "t", payload);
}

static void pg_time_fsyncs(store *base, struct metric *h)
{
    pg_of(base)->commit_h = h;
}

static void pg_close(store *base)
{
    pg_store *s = pg_of(base);
    if (s->txn)
        pg_rollback(base);
    pg_disconnect(s);
    free(s->url);
    free(s);
}

const store_core_ops pg_core_ops = {
    .name = "postgresql",
    .close = pg_close,
    .user_version = pg_user_version,
    .begin = pg_begin,
    .in_txn = pg_in_txn,
    .commit = pg_commit,
    .async_start = pg_async_start,
    .async_stop = pg_async_stop,
    .fsyncs = pg_fsyncs,
    .durability_busy = pg_durability_busy,
    .wal_restart = pg_wal_restart,
    .wal_restart_at = pg_wal_restart_at,
    .wal_restarts = pg_wal_restarts,
    .rollback = pg_rollback,
    .fail_commit_at = pg_fail_commit_at,
    .journal_limit = pg_journal_limit,
    .checkpoint = pg_checkpoint,
    .prune = pg_prune,
    .time_fsyncs = pg_time_fsyncs,
};
