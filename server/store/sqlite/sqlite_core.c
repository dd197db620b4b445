/*
 * sqlite_core: the SQLite backend's core area (store_core.h): the
 * iteration's transaction (BEGIN IMMEDIATE ... COMMIT, group commit), its
 * durability off the loop (the writer thread's fsync of the write-ahead
 * log, group fsync, checkpoints), the WAL's restarts under sustained load,
 * the bounded-storage calls (journal_size_limit, the idle TRUNCATE
 * checkpoint, pruning), the schema version, and close. Opening and
 * migrating are sqlite.c's.
 *
 * Bounded storage (issue 9). The journal is the -wal file:
 * journal_size_limit cuts it back after each checkpoint reset, and an idle
 * TRUNCATE checkpoint empties it once no long reader holds it. Pruning
 * deletes through "id IN (SELECT ... LIMIT n)" so one sweep's transaction
 * stays short however much has piled up.
 */
#include "store/sqlite/sqlite_areas.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/log.h"
#include "util/metrics.h"

/* Monotonic seconds, for timing a flush on whichever thread makes it. */
static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#define CORE_STATEMENTS(X)                                                                         \
    X(BEGIN, "BEGIN IMMEDIATE")                                                                    \
    X(COMMIT, "COMMIT")                                                                            \
    X(ROLLBACK, "ROLLBACK")                                                                        \
    X(PRUNE_NOTES,                                                                                 \
      "DELETE FROM notifications WHERE id IN (SELECT id FROM notifications WHERE read = 1 "        \
      "AND created < ?1 LIMIT ?2)")                                                                \
    X(PRUNE_CHALLENGES,                                                                            \
      "DELETE FROM challenges WHERE id IN (SELECT id FROM challenges WHERE status <> 'open' "      \
      "AND updated < ?1 LIMIT ?2)")                                                                \
    X(PRUNE_TOKENS,                                                                                \
      "DELETE FROM tokens WHERE hash IN (SELECT hash FROM tokens WHERE last_used < ?1 "            \
      "LIMIT ?2)")

enum { SQ_AREA_FIRST(CORE), CORE_STATEMENTS(SQ_STMT_ENUM) ST_CORE__END };
static const sq_stmt_def core_defs[] = {CORE_STATEMENTS(SQ_STMT_DEF)};
SQ_AREA_CHECK(CORE);
const sq_area_stmts sq_core_stmts = {SQ_AREA_CORE, core_defs, SQ_AREA_COUNT(CORE)};

/* ---- schema version -------------------------------------------------- */

static int sq_user_version(store *base, int *out)
{
    sq_store *s = sq_of(base);
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL);
    if (rc != SQLITE_OK)
        goto fail;
    rc = sqlite3_step(st);
    if (rc != SQLITE_ROW)
        goto fail;
    *out = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return STORE_OK;
fail:
    log_error("sqlite user_version: %s", sqlite3_errmsg(s->db));
    sqlite3_finalize(st);
    return STORE_EIO;
}

/* ---- transactions ---------------------------------------------------- */

static int step_done(sq_store *s, sq_stmt which)
{
    sqlite3_stmt *st = sq_stmt_get(s, which);
    int rc = sqlite3_step(st);
    (void)sqlite3_reset(st);
    return rc == SQLITE_DONE ? STORE_OK : sq_fail(s, which, rc);
}

static int sq_begin(store *base)
{
    sq_store *s = sq_of(base);
    if (s->in_txn)
        return STORE_OK;
    int rc = step_done(s, ST_BEGIN);
    if (rc == STORE_OK)
        s->in_txn = true;
    return rc;
}

static bool sq_in_txn(const store *base)
{
    return ((const sq_store *)base)->in_txn;
}

static void sq_rollback(store *base)
{
    sq_store *s = sq_of(base);
    if (!s->in_txn)
        return;
    s->in_txn = false;
    /* A failed COMMIT may already have rolled back. */
    if (!sqlite3_get_autocommit(s->db))
        step_done(s, ST_ROLLBACK);
}

static void sq_fail_commit_at(store *base, int n)
{
    sq_of(base)->fail_commit_at = n;
}

static int commit_now(sq_store *s)
{
    if (!s->in_txn)
        return STORE_OK;
    if (s->fail_commit_at > 0 && --s->fail_commit_at == 0) {
        log_error("sqlite COMMIT: injected failure");
        sq_rollback(&s->base);
        return STORE_EIO;
    }
    /* Synchronous mode: synchronous=FULL makes this COMMIT the flush. */
    bool timed = !s->async && s->fsync_hist;
    double t0 = timed ? mono_s() : 0;
    int rc = step_done(s, ST_COMMIT);
    if (timed && rc == STORE_OK)
        metric_observe(s->fsync_hist, mono_s() - t0);
    if (rc != STORE_OK) {
        sq_rollback(&s->base);
        return rc;
    }
    s->in_txn = false;
    return STORE_OK;
}

/* ---- durability ------------------------------------------------------
 *
 * Synchronous mode (the default, and start-up): synchronous=FULL, so
 * COMMIT returns once the write-ahead log is fsync'd; the asynchronous form
 * calls done at once.
 *
 * Asynchronous mode (store_async_start): synchronous=NORMAL, under which a
 * WAL COMMIT appends its frames to the -wal file without an fsync (SQLite
 * still syncs the WAL before a checkpoint copies it and the database after,
 * so checkpoints stay safe). The commit's durability is then the fsync of
 * the -wal file, done by the writer thread on a file descriptor of its own:
 * an fsync covers every frame written before it began, so when it returns
 * every transaction committed before the job was queued is on disk, and
 * only then does done run (on the loop thread, in commit order: one
 * thread, jobs in submission order). The loop meanwhile runs and commits
 * the next batch; its output waits for its own fsync.
 *
 * Group fsync: at most one fsync is with the writer at a time. Commits made
 * while it runs gather in the other job and share the next fsync, which
 * starts when the first returns. One job per commit would cap the server at
 * one batch per fsync latency however many games are in flight (measured:
 * 2.1k moves/s at 50 games against the baseline's 34k); gathered, a slow
 * fsync makes the next group larger instead of the queue longer, as a
 * database's group commit does.
 *
 * Checkpoints move off the loop too: wal_autocheckpoint is 0 on the loop's
 * connection, a wal hook counts the frames, and the writer thread runs a
 * PASSIVE checkpoint on its own connection when a job sees more than
 * SQ_CKPT_FRAMES (a passive checkpoint never blocks the loop's writers).
 */

#define SQ_CKPT_FRAMES 1000 /* SQLite's own wal_autocheckpoint default */

/* Restarting the WAL. SQLite writes the log from its start again (and
 * cuts the file to journal_size_limit) when a write transaction begins
 * while every committed frame has been checkpointed: that transaction's
 * read lock is then on the database alone (WAL_READ_LOCK(0)). Under
 * sustained load the loop's next transaction always begins before the
 * writer's checkpoint of the last commit is done, so the log only grows.
 * Once it is longer than restart_above frames (store_wal_restart): no
 * batch is kept, and until the fsync job of the commit that made it so
 * (hold_job; that job checkpoints right after its fsync, sync_work) is
 * done, the server begins no transaction of its requests. Then the
 * checkpoint has copied every frame, no reader was left behind, and the
 * next transaction restarts the log (the wal hook sees the header's
 * checkpoint count change). The hold ends with that job whatever else
 * committed meanwhile (a timer, a password check finishing): such a
 * commit's frames are not copied, that attempt fails, and restart_above,
 * raised when the hold ends, puts the next one restart_frames of log
 * later. So a hold lasts one fsync and one checkpoint, a reader in
 * another process pinning an old snapshot costs one hold per
 * restart_frames of log, and the writer checkpoints once per ckpt_frames
 * of log not yet copied (counted from the last complete checkpoint). */

#define SQ_SYNC_NOT_RUN 1

static bool restart_wanted(const sq_store *s)
{
    return s->async && s->ckpt_db && s->restart_frames > 0 && s->wal_size > s->restart_above;
}

/* The log header's checkpoint count (bytes 12-15, big-endian; sqlite.org
 * fileformat "WAL header"): a restart rewrites the header with the next
 * one. false when the header cannot be read (an empty file). */
static bool wal_header_seq(const sq_store *s, uint32_t *seq)
{
    unsigned char h[4];
    if (pread(s->wal_fd, h, 4, 12) != 4)
        return false;
    *seq = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
    return true;
}

static void sync_work(workers_job *w)
{
    sq_sync_job *j = (sq_sync_job *)w;
    sq_store *s = j->s;
    double t0 = mono_s();
    if (s->fsync_delay_ms > 0) {
        struct timespec ts = {s->fsync_delay_ms / 1000,
                              (long)(s->fsync_delay_ms % 1000) * 1000000L};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
    }
    j->rc = fdatasync(s->wal_fd) == 0 ? STORE_OK : STORE_EIO;
    j->error = errno;
    /* The fsync alone: the checkpoint below is not part of the flush. */
    j->fsync_s = mono_s() - t0;
    atomic_fetch_add(&s->fsyncs, 1);
    int seen = atomic_load(&s->wal_frames);
    uint64_t force = atomic_load(&s->ckpt_job);
    if ((seen > atomic_load(&s->ckpt_frames) || (force && j->seq >= force)) && s->ckpt_db) {
        int logged = 0, done = 0;
        /* "Nothing left to checkpoint" only if no commit came since this
         * count was read: a commit made while the checkpoint ran has
         * frames it did not copy, and the next job must copy them (a
         * restart waits for that, "Restarting the WAL" above). */
        if (sqlite3_wal_checkpoint_v2(s->ckpt_db, NULL, SQLITE_CHECKPOINT_PASSIVE, &logged,
                                      &done) == SQLITE_OK &&
            logged == done && done >= seen) {
            atomic_store(&s->ckpt_logged, logged);
            atomic_compare_exchange_strong(&s->wal_frames, &seen, 0);
        }
    }
}

/* Every commit of j is durable (or not: rc): its dones, in commit order. */
static void sync_finish(sq_sync_job *j)
{
    if (j->rc != STORE_OK)
        log_error("sqlite: fsync of the write-ahead log failed: %s", strerror(j->error));
    size_t n = j->n;
    j->n = 0; /* a done may commit again: that commit gathers in the other job */
    for (size_t i = 0; i < n; i++)
        for (uint64_t k = 0; k < j->w[i].count; k++)
            j->w[i].done(j->w[i].arg, j->rc);
    /* After the dones, so a scrape never sees more flushes than commits
     * made durable (store_time_fsyncs()). */
    if (j->fsync_s >= 0)
        metric_observe(j->s->fsync_hist, j->fsync_s);
    j->fsync_s = -1;
}

/* The fsync on the loop thread: no writer (stopping, or refused). */
static void sync_here(sq_sync_job *j)
{
    double t0 = mono_s();
    j->rc = fdatasync(j->s->wal_fd) == 0 ? STORE_OK : STORE_EIO;
    j->error = errno;
    j->fsync_s = mono_s() - t0;
    atomic_fetch_add(&j->s->fsyncs, 1);
    sync_finish(j);
}

static void sync_done(workers_job *w);

/* Hand the gathering job to the writer; the other one becomes the
 * gathering job. Only when nothing is in flight, so fsyncs (and dones)
 * stay in commit order. */
static void sync_submit(sq_store *s)
{
    sq_sync_job *j = &s->jobs[s->cur];
    if (s->inflight || j->n == 0)
        return;
    j->rc = SQ_SYNC_NOT_RUN;
    j->fsync_s = -1;
    j->job.work = sync_work;
    j->job.done = sync_done;
    j->seq = ++s->submitted;
    s->cur = !s->cur;
    s->inflight = true;
    if (workers_submit(&s->writer, &j->job) != 0) {
        s->inflight = false;
        sync_here(j);
    }
}

static void sync_done(workers_job *w)
{
    sq_sync_job *j = (sq_sync_job *)w;
    sq_store *s = j->s;
    /* Still in flight while the dones run: a commit made by a done
     * gathers into the other job (never into j, being read), and goes to
     * the writer below, after them. */
    if (j->rc == SQ_SYNC_NOT_RUN) {
        /* The writer is stopping and never got to this job: the fsync is
         * made here, on the loop thread, before the file is closed. */
        sync_here(j);
    } else {
        sync_finish(j);
    }
    s->inflight = false;
    s->finished = j->seq;
    /* A hold for a restart ends with its job: the next transaction
     * restarts the log, and the wal hook puts restart_above back; if it
     * does not, the next attempt waits for restart_frames more of log. */
    if (s->hold_job && s->finished >= s->hold_job) {
        s->hold_job = 0;
        atomic_store(&s->ckpt_job, 0);
        if (restart_wanted(s))
            s->restart_above = s->wal_size + s->restart_frames;
    }
    /* The commits made while this fsync ran share the next one. */
    if (s->async)
        sync_submit(s);
}

static int wal_hook(void *arg, sqlite3 *db, const char *name, int frames)
{
    (void)db;
    (void)name;
    sq_store *s = arg;
    /* A restart shows in the header; a shorter log says so too, when the
     * header cannot be read. */
    uint32_t seq;
    bool restarted = frames < s->wal_size;
    if (wal_header_seq(s, &seq)) {
        restarted = seq != s->wal_ckpt_seq;
        s->wal_ckpt_seq = seq;
    }
    if (restarted) {
        s->wal_restarts++;
        s->restart_above = s->restart_frames;
        atomic_store(&s->ckpt_logged, 0);
    }
    s->wal_size = frames;
    int copied = atomic_load(&s->ckpt_logged);
    atomic_store(&s->wal_frames, frames > copied ? frames - copied : frames);
    /* This commit goes with the next job handed to the writer (sq_commit
     * joins the gathering job, submitted next): the hold waits for it. */
    if (!s->hold_job && restart_wanted(s)) {
        s->hold_job = s->submitted + 1;
        atomic_store(&s->ckpt_job, s->hold_job);
    }
    return SQLITE_OK;
}

static int sq_wal_restart(store *base)
{
    sq_store *s = sq_of(base);
    if (s->hold_job && s->finished < s->hold_job)
        return STORE_WAL_HOLD;
    return restart_wanted(s) ? STORE_WAL_WANTED : STORE_WAL_OK;
}

static void sq_wal_restart_at(store *base, int64_t frames)
{
    sq_store *s = sq_of(base);
    s->restart_frames = s->restart_above = frames > 0 ? frames : 0;
    /* The writer checkpoints once the log is as long as a restart wants
     * (so the hold's job does): a checkpoint copies each page changed
     * since the last one once, so fewer of them copy less, and every one
     * delays the fsyncs queued behind it on the writer. */
    atomic_store(&s->ckpt_frames, s->restart_frames > 0 ? (int)s->restart_frames : SQ_CKPT_FRAMES);
}

static uint64_t sq_wal_restarts(store *base)
{
    return sq_of(base)->wal_restarts;
}

static int sq_async_start(store *base, uv_loop_t *loop, int fsync_delay_ms)
{
    sq_store *s = sq_of(base);
    if (s->async)
        return STORE_OK;
    char wal[4096];
    if (snprintf(wal, sizeof wal, "%s-wal", s->path) >= (int)sizeof wal)
        return STORE_EIO;
    /* The WAL exists while the loop's connection is open in WAL mode (the
     * migration step wrote to it); O_RDONLY is enough for fsync on Linux. */
    s->wal_fd = open(wal, O_RDONLY | O_CLOEXEC);
    if (s->wal_fd < 0) {
        log_error("sqlite: cannot open %s for fsync: %s; commits stay synchronous", wal,
                  strerror(errno));
        return STORE_EIO;
    }
    /* The connection must have read the database once: until then it does
     * not know the file is in WAL mode, and sqlite3_wal_checkpoint_v2()
     * returns SQLITE_OK having done nothing (*pnLog = -1). So it did here
     * until issue 16's third round: the writer never checkpointed, and
     * under sustained load the log grew without bound (40 MB/s at 50
     * games). The read below opens its view of the log. */
    if (sqlite3_open_v2(s->path, &s->ckpt_db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
            SQLITE_OK ||
        sqlite3_exec(s->ckpt_db, "PRAGMA synchronous = NORMAL; SELECT count(*) FROM sqlite_schema;",
                     NULL, NULL, NULL) != SQLITE_OK) {
        log_warn("sqlite: no checkpoint connection (%s): checkpoints stay on the loop",
                 s->ckpt_db ? sqlite3_errmsg(s->ckpt_db) : "?");
        sqlite3_close(s->ckpt_db);
        s->ckpt_db = NULL;
    }
    int rc = workers_init(&s->writer, loop, 1, 0);
    if (rc < 0 || sq_exec(s,
                          s->ckpt_db ? "PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 0;"
                                     : "PRAGMA synchronous = NORMAL;",
                          "pragmas")) {
        if (rc == 0)
            workers_close(&s->writer);
        close(s->wal_fd);
        s->wal_fd = -1;
        sqlite3_close(s->ckpt_db);
        s->ckpt_db = NULL;
        log_error("sqlite: no writer thread; commits stay synchronous");
        return STORE_EIO;
    }
    /* Without the checkpoint connection SQLite's own hook checkpoints on
     * the loop (every SQ_CKPT_FRAMES): a wal hook of ours would replace it
     * and nothing would checkpoint at all. */
    if (s->ckpt_db) {
        (void)wal_header_seq(s, &s->wal_ckpt_seq);
        sqlite3_wal_hook(s->db, wal_hook, s);
    }
    s->fsync_delay_ms = fsync_delay_ms;
    s->async = true;
    return STORE_OK;
}

static void sq_async_stop(store *base)
{
    sq_store *s = sq_of(base);
    if (!s->async)
        return;
    s->async = false;
    /* Joins the writer; the jobs it never started make their fsync in
     * sync_done, so every done still reports real durability. */
    workers_close(&s->writer);
    /* Commits that gathered behind the last fsync: made durable here. */
    if (s->jobs[s->cur].n > 0)
        sync_here(&s->jobs[s->cur]);
    /* That job never got a number: no hold may wait for it. */
    s->hold_job = 0;
    atomic_store(&s->ckpt_job, 0);
    sqlite3_wal_hook(s->db, NULL, NULL);
    sq_exec(s, "PRAGMA synchronous = FULL; PRAGMA wal_autocheckpoint = 1000;", "pragmas");
    sqlite3_close(s->ckpt_db);
    s->ckpt_db = NULL;
    close(s->wal_fd);
    s->wal_fd = -1;
}

static uint64_t sq_fsyncs(store *base)
{
    return atomic_load(&sq_of(base)->fsyncs);
}

static void sq_time_fsyncs(store *base, struct metric *h)
{
    sq_of(base)->fsync_hist = h;
}

static bool sq_durability_busy(store *base)
{
    return sq_of(base)->inflight;
}

static int sq_commit(store *base, store_done_cb done, void *arg)
{
    sq_store *s = sq_of(base);
    bool was_open = s->in_txn;
    int rc = commit_now(s);
    if (!done)
        return rc;
    if (rc != STORE_OK)
        return rc;
    if (!s->async || !was_open) {
        done(arg, STORE_OK);
        return STORE_OK;
    }
    /* Join the gathering job: a run of the same (done, arg) grows by one. */
    sq_sync_job *j = &s->jobs[s->cur];
    if (j->n > 0 && j->w[j->n - 1].done == done && j->w[j->n - 1].arg == arg) {
        j->w[j->n - 1].count++;
    } else {
        if (j->n == j->cap) {
            size_t cap = j->cap ? 2 * j->cap : 4;
            sq_waiter *w = realloc(j->w, cap * sizeof *w);
            if (!w) {
                /* The commit is in the WAL; with no memory to remember its
                 * done it can neither be acknowledged nor forgotten. */
                log_error("sqlite: out of memory queueing a commit's fsync");
                abort();
            }
            j->w = w;
            j->cap = cap;
        }
        j->w[j->n++] = (sq_waiter){done, arg, 1};
    }
    sync_submit(s);
    return STORE_OK;
}

/* ---- bounded storage (issue 9) ------------------------------------- */

static int sq_journal_limit(store *base, int64_t bytes)
{
    sq_store *s = sq_of(base);
    char sql[64];
    /* PRAGMA takes no bound parameter; bytes is a number of ours. */
    snprintf(sql, sizeof sql, "PRAGMA journal_size_limit = %lld", (long long)bytes);
    char *err = NULL;
    int rc = sqlite3_exec(s->db, sql, NULL, NULL, &err);
    if (rc != SQLITE_OK) {
        log_error("sqlite journal_size_limit: %s", err ? err : sqlite3_errstr(rc));
        sqlite3_free(err);
        return STORE_EIO;
    }
    return STORE_OK;
}

static int sq_checkpoint(store *base)
{
    sq_store *s = sq_of(base);
    int logged = 0, done = 0;
    int rc = sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, &logged, &done);
    if (rc == SQLITE_OK)
        return STORE_OK;
    if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED)
        return STORE_BUSY; /* a reader still needs the journal: next time */
    log_error("sqlite checkpoint: %s (%d): %s", sqlite3_errstr(rc), rc, sqlite3_errmsg(s->db));
    return STORE_EIO;
}

static int prune_one(sq_store *s, sq_stmt which, int64_t before, int64_t *rows)
{
    if (before <= 0)
        return STORE_OK;
    int rc = sq_bind(s, which, "ii", before, (int64_t)STORE_PRUNE_BATCH);
    if (rc || (rc = sq_run(s, which)))
        return rc;
    *rows += sqlite3_changes(s->db);
    return STORE_OK;
}

static int sq_prune(store *base, const store_prune_spec *p, int64_t *rows)
{
    sq_store *s = sq_of(base);
    *rows = 0;
    int rc = prune_one(s, ST_PRUNE_NOTES, p->notes_read_before, rows);
    if (!rc)
        rc = prune_one(s, ST_PRUNE_CHALLENGES, p->challenges_closed_before, rows);
    if (!rc)
        rc = prune_one(s, ST_PRUNE_TOKENS, p->tokens_used_before, rows);
    return rc;
}

/* ---- close ---------------------------------------------------------- */

static void sq_close(store *base)
{
    sq_store *s = sq_of(base);
    sq_async_stop(base);
    if (s->in_txn)
        sq_rollback(base);
    for (int i = 0; i < SQ_STMTS_MAX; i++)
        sqlite3_finalize(s->st[i]);
    if (s->db) {
        int rc = sqlite3_close(s->db);
        if (rc != SQLITE_OK)
            log_error("sqlite close: %s", sqlite3_errstr(rc));
    }
    free(s->jobs[0].w);
    free(s->jobs[1].w);
    free(s->path);
    free(s);
}

const store_core_ops sq_core_ops = {
    .name = "sqlite",
    .close = sq_close,
    .user_version = sq_user_version,
    .begin = sq_begin,
    .in_txn = sq_in_txn,
    .commit = sq_commit,
    .async_start = sq_async_start,
    .async_stop = sq_async_stop,
    .fsyncs = sq_fsyncs,
    .time_fsyncs = sq_time_fsyncs,
    .durability_busy = sq_durability_busy,
    .wal_restart = sq_wal_restart,
    .wal_restart_at = sq_wal_restart_at,
    .wal_restarts = sq_wal_restarts,
    .rollback = sq_rollback,
    .fail_commit_at = sq_fail_commit_at,
    .journal_limit = sq_journal_limit,
    .checkpoint = sq_checkpoint,
    .prune = sq_prune,
};
