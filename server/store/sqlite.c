/*
 * sqlite: the SQLite backend's opening, migrations, transactions, the
 * statement table and its helpers, and the store_ops table; the row-level
 * queries are in sqlite_rows.c and sqlite_corr.c. See store.h for the
 * group-commit contract that sq_begin()/sq_commit() implement, sqlite.h
 * for the connection settings.
 */
#include "store/sqlite_int.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store/store_bound.h"
#include "util/log.h"

static const char *const stmt_sql[] = {
#define SQ_X_SQL(name, sql) sql,
    SQ_STATEMENTS(SQ_X_SQL)
#undef SQ_X_SQL
};
static const char *const stmt_name[] = {
#define SQ_X_NAME(name, sql) #name,
    SQ_STATEMENTS(SQ_X_NAME)
#undef SQ_X_NAME
};

#define MIGRATION_MARK "-- migration "

int sq_fail(sq_store *s, sq_stmt which, int rc)
{
    /* A lock held by another connection is not our failure: the loop never
     * waits for it (busy_timeout 0 after open), the client is told to retry. */
    if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED) {
        log_debug("sqlite %s: database busy", stmt_name[which]);
        return STORE_BUSY;
    }
    log_error("sqlite %s: %s (%d): %s", stmt_name[which], sqlite3_errstr(rc), rc,
              sqlite3_errmsg(s->db));
    return STORE_EIO;
}

sqlite3_stmt *sq_stmt_get(sq_store *s, sq_stmt which)
{
    sqlite3_stmt *st = s->st[which];
    /* Errors of the previous step were already reported; reset returns
     * them again, so its result is not an error of this use. */
    (void)sqlite3_reset(st);
    (void)sqlite3_clear_bindings(st);
    return st;
}

int sq_bind(sq_store *s, sq_stmt which, const char *fmt, ...)
{
    sqlite3_stmt *st = sq_stmt_get(s, which);
    va_list ap;
    int rc = SQLITE_OK;
    va_start(ap, fmt);
    for (int i = 1; *fmt && rc == SQLITE_OK; fmt++, i++) {
        switch (*fmt) {
        case 'i':
            rc = sqlite3_bind_int64(st, i, va_arg(ap, int64_t));
            break;
        case 'o': {
            int64_t v = va_arg(ap, int64_t);
            rc = v > 0 ? sqlite3_bind_int64(st, i, v) : sqlite3_bind_null(st, i);
            break;
        }
        case 'O': {
            int64_t v = va_arg(ap, int64_t);
            rc = v >= 0 ? sqlite3_bind_int64(st, i, v) : sqlite3_bind_null(st, i);
            break;
        }
        case 't':
        case 'T': {
            const char *v = va_arg(ap, const char *);
            if (!v || (*fmt == 'T' && !*v))
                rc = sqlite3_bind_null(st, i);
            else
                rc = sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
            break;
        }
        case 'h':
            rc = sqlite3_bind_blob(st, i, va_arg(ap, const uint8_t *), STORE_TOKEN_HASH,
                                   SQLITE_TRANSIENT);
            break;
        default:
            rc = SQLITE_MISUSE;
        }
    }
    va_end(ap);
    return rc == SQLITE_OK ? STORE_OK : sq_fail(s, which, rc);
}

int sq_run(sq_store *s, sq_stmt which)
{
    sqlite3_stmt *st = s->st[which];
    int rc = sqlite3_step(st);
    (void)sqlite3_reset(st);
    if (rc == SQLITE_DONE)
        return STORE_OK;
    if (rc == SQLITE_CONSTRAINT_UNIQUE || rc == SQLITE_CONSTRAINT_PRIMARYKEY)
        return STORE_CONFLICT;
    /* Any other constraint (CHECK, FOREIGN KEY) is a bug of ours: logged. */
    return sq_fail(s, which, rc);
}

int sq_run_one(sq_store *s, sq_stmt which)
{
    int rc = sq_run(s, which);
    if (rc)
        return rc;
    return sqlite3_changes(s->db) == 1 ? STORE_OK : STORE_NOTFOUND;
}

int sq_one_row(sq_store *s, sq_stmt which)
{
    int rc = sqlite3_step(s->st[which]);
    if (rc == SQLITE_ROW)
        return STORE_OK;
    (void)sqlite3_reset(s->st[which]);
    return rc == SQLITE_DONE ? STORE_NOTFOUND : sq_fail(s, which, rc);
}

bool sq_next_row(sq_store *s, sq_stmt which, int *rc)
{
    int step = sqlite3_step(s->st[which]);
    if (step == SQLITE_ROW)
        return true;
    (void)sqlite3_reset(s->st[which]);
    *rc = step == SQLITE_DONE ? STORE_OK : sq_fail(s, which, step);
    return false;
}

int sq_stop(sq_store *s, sq_stmt which, int stop)
{
    (void)sqlite3_reset(s->st[which]);
    return stop;
}

void sq_col_text(sqlite3_stmt *st, int i, char *buf, size_t n)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    snprintf(buf, n, "%s", t ? (const char *)t : "");
}

/* ---- migrations ------------------------------------------------------ */

/* Find migration n in the schema text: *start and *len cover its SQL,
 * up to the mark of migration n + 1 exactly, so a comment line that
 * happens to begin "-- migration " (a reference to an earlier one) cannot
 * end a migration early and drop the statements after it. */
static bool migration_find(int n, const char **start, size_t *len)
{
    char mark[32], next[32];
    snprintf(mark, sizeof mark, "\n" MIGRATION_MARK "%d\n", n);
    snprintf(next, sizeof next, "\n" MIGRATION_MARK "%d\n", n + 1);
    const char *p = strstr(store_schema_sql, mark);
    if (!p)
        return false;
    p += strlen(mark);
    const char *end = strstr(p, next);
    *start = p;
    *len = end ? (size_t)(end - p) + 1 : strlen(p);
    return true;
}

/* Migrations are numbered 1, 2, ... without gaps: a missing number would
 * leave a database that reached a higher one without it for ever. */
int store_schema_version(void)
{
    int n = 0;
    const char *p;
    size_t len;
    while (migration_find(n + 1, &p, &len))
        n++;
    return n;
}

static int exec_sql(sq_store *s, const char *sql, const char *what)
{
    char *err = NULL;
    int rc = sqlite3_exec(s->db, sql, NULL, NULL, &err);
    if (rc != SQLITE_OK) {
        log_error("sqlite %s: %s", what, err ? err : sqlite3_errstr(rc));
        sqlite3_free(err);
        return STORE_EIO;
    }
    return STORE_OK;
}

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

static int migrate(sq_store *s)
{
    int have, want = store_schema_version();
    if (sq_user_version(&s->base, &have))
        return STORE_EIO;
    if (have > want) {
        log_error("database schema version %d is newer than this qirkatd (%d)", have, want);
        return STORE_EIO;
    }
    for (int n = have + 1; n <= want; n++) {
        const char *p;
        size_t len;
        migration_find(n, &p, &len);
        char *sql = malloc(len + 64);
        if (!sql)
            return STORE_EIO;
        /* PRAGMA takes no bound parameter; n is our own loop counter. */
        int off = snprintf(sql, 48, "BEGIN IMMEDIATE;\n");
        memcpy(sql + off, p, len);
        snprintf(sql + off + len, 48, "\nPRAGMA user_version = %d;\nCOMMIT;", n);
        int rc = exec_sql(s, sql, "migration");
        free(sql);
        if (rc) {
            if (!sqlite3_get_autocommit(s->db))
                exec_sql(s, "ROLLBACK", "rollback");
            return rc;
        }
        log_info("database migrated to schema version %d", n);
    }
    return STORE_OK;
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
    int rc = step_done(s, ST_COMMIT);
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
    if (s->fsync_delay_ms > 0) {
        struct timespec ts = {s->fsync_delay_ms / 1000, (long)(s->fsync_delay_ms % 1000) * 1000000L};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
    }
    j->rc = fdatasync(s->wal_fd) == 0 ? STORE_OK : STORE_EIO;
    j->error = errno;
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
}

/* The fsync on the loop thread: no writer (stopping, or refused). */
static void sync_here(sq_sync_job *j)
{
    j->rc = fdatasync(j->s->wal_fd) == 0 ? STORE_OK : STORE_EIO;
    j->error = errno;
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
    if (rc < 0 || exec_sql(s, s->ckpt_db ? "PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 0;"
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
    exec_sql(s, "PRAGMA synchronous = FULL; PRAGMA wal_autocheckpoint = 1000;", "pragmas");
    sqlite3_close(s->ckpt_db);
    s->ckpt_db = NULL;
    close(s->wal_fd);
    s->wal_fd = -1;
}

static uint64_t sq_fsyncs(store *base)
{
    return atomic_load(&sq_of(base)->fsyncs);
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

/* ---- open / close ---------------------------------------------------- */

static void sq_close(store *base)
{
    sq_store *s = sq_of(base);
    sq_async_stop(base);
    if (s->in_txn)
        sq_rollback(base);
    for (int i = 0; i < ST__COUNT; i++)
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

static const store_ops sq_ops = {
    .name = "sqlite",
    .close = sq_close,
    .user_version = sq_user_version,
    .begin = sq_begin,
    .in_txn = sq_in_txn,
    .commit = sq_commit,
    .async_start = sq_async_start,
    .async_stop = sq_async_stop,
    .fsyncs = sq_fsyncs,
    .durability_busy = sq_durability_busy,
    .wal_restart = sq_wal_restart,
    .wal_restart_at = sq_wal_restart_at,
    .wal_restarts = sq_wal_restarts,
    .rollback = sq_rollback,
    .fail_commit_at = sq_fail_commit_at,
    .user_by_name = sq_user_by_name,
    .user_by_id = sq_user_by_id,
    .user_insert = sq_user_insert,
    .users_list = sq_users_list,
    .token_insert = sq_token_insert,
    .token_user = sq_token_user,
    .token_delete = sq_token_delete,
    .challenge_insert = sq_challenge_insert,
    .challenge_get = sq_challenge_get,
    .challenge_close = sq_challenge_close,
    .challenges_for = sq_challenges_for,
    .challenges_open_from = sq_challenges_open_from,
    .challenge_x_put = sq_challenge_x_put,
    .challenge_x_get = sq_challenge_x_get,
    .game_insert = sq_game_insert,
    .game_get = sq_game_get,
    .game_update = sq_game_update,
    .games_query = sq_games_query,
    .move_insert = sq_move_insert,
    .moves_each = sq_moves_each,
    .game_x_get = sq_game_x_get,
    .game_x_put = sq_game_x_put,
    .move_played = sq_move_played,
    .wake_next = sq_wake_next,
    .wake_due = sq_wake_due,
    .extend_downtime = sq_extend_downtime,
    .extension_insert = sq_extension_insert,
    .extensions_each = sq_extensions_each,
    .state_get = sq_state_get,
    .state_set = sq_state_set,
    .vacation_get = sq_vacation_get,
    .vacation_put = sq_vacation_put,
    .note_insert = sq_note_insert,
    .notes_list = sq_notes_list,
    .note_owner = sq_note_owner,
    .note_mark = sq_note_mark,
    .note_mark_all = sq_note_mark_all,
    .note_unread = sq_note_unread,
    .game_challenge_put = sq_game_challenge_put,
    .game_challenge_get = sq_game_challenge_get,
    .challenges_expiring = sq_challenges_expiring,
    .journal_limit = sq_journal_limit,
    .checkpoint = sq_checkpoint,
    .prune = sq_prune,
    .notes_drop_unread = sq_notes_drop_unread,
    .notes_cap_sender = sq_notes_cap_sender,
    .notes_settle = sq_notes_settle,
    .challenges_since = sq_challenges_since,
    .seeks_page = sq_seeks_page,
    .draw_ply_get = sq_draw_ply_get,
    .draw_ply_put = sq_draw_ply_put,
    .game_damaged_get = sq_game_damaged_get,
    .game_damaged_set = sq_game_damaged_set,
    .rating_get = sq_rating_get,
    .rating_put = sq_rating_put,
    .ratings_of = sq_ratings_of,
    .ratings_board = sq_ratings_board,
    .game_rating_get = sq_game_rating_get,
    .game_rating_put = sq_game_rating_put,
    .challenge_range_put = sq_challenge_range_put,
    .challenge_range_get = sq_challenge_range_get,
    SQ_TOURNEY_OPS_INIT,
    .move_clock_set = sq_move_clock_set,
    .move_clocks_each = sq_move_clocks_each,
    .game_mark_imported = sq_game_mark_imported,
};

/* SQLite's memory statistics take a global mutex around every allocation
 * of every connection (sqlite3Malloc: ~38 per move); nothing here reads
 * them (sqlite3_memory_used). sqlite3_config must precede the library's
 * initialisation, so this runs once, before the first open; a process that
 * used SQLite first (a test opening a file itself) keeps the default: the
 * call then fails with SQLITE_MISUSE and changes nothing. */
static void sq_config_once(void)
{
    (void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

int store_sqlite_open(const char *path, store **out)
{
    static pthread_once_t config = PTHREAD_ONCE_INIT;
    pthread_once(&config, sq_config_once);
    *out = NULL;
    sq_store *s = calloc(1, sizeof *s);
    if (!s)
        return STORE_EIO;
    s->base.ops = &sq_ops;
    s->wal_fd = -1;
    s->restart_frames = s->restart_above = STORE_WAL_RESTART_FRAMES;
    atomic_store(&s->ckpt_frames, STORE_WAL_RESTART_FRAMES);
    s->jobs[0].s = s->jobs[1].s = s;
    s->path = strdup(path);
    if (!s->path) {
        free(s);
        return STORE_EIO;
    }
    int rc = sqlite3_open_v2(path, &s->db,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                             NULL);
    if (rc != SQLITE_OK) {
        log_error("cannot open database %s: %s", path,
                  s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
        goto fail;
    }
    rc = sqlite3_extended_result_codes(s->db, 1);
    if (rc != SQLITE_OK)
        goto fail_log;
    rc = sqlite3_busy_timeout(s->db, 2000);
    if (rc != SQLITE_OK)
        goto fail_log;
    /* journal_mode answers the mode it ended in; anything but wal means
     * the file system refused it. */
    sqlite3_stmt *st = NULL;
    rc = sqlite3_prepare_v2(s->db, "PRAGMA journal_mode = WAL", -1, &st, NULL);
    if (rc != SQLITE_OK)
        goto fail_log;
    rc = sqlite3_step(st);
    bool wal = rc == SQLITE_ROW &&
               sqlite3_stricmp((const char *)sqlite3_column_text(st, 0), "wal") == 0;
    sqlite3_finalize(st);
    if (!wal) {
        log_error("database %s: cannot switch to WAL mode", path);
        goto fail;
    }
    if (exec_sql(s, "PRAGMA foreign_keys = ON; PRAGMA synchronous = FULL;", "pragmas"))
        goto fail;
    if (migrate(s))
        goto fail;
    /* From here on the loop never waits for another process's lock: a busy
     * database is STORE_BUSY at once (issue 9 item 8). Opening and
     * migrating above may wait up to 2 s: nothing is served yet. */
    rc = sqlite3_busy_timeout(s->db, 0);
    if (rc != SQLITE_OK)
        goto fail_log;
    if (sq_journal_limit(&s->base, STORE_JOURNAL_LIMIT))
        goto fail;
    for (int i = 0; i < ST__COUNT; i++) {
        rc = sqlite3_prepare_v3(s->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &s->st[i],
                                NULL);
        if (rc != SQLITE_OK) {
            sq_fail(s, (sq_stmt)i, rc);
            goto fail;
        }
    }
    *out = &s->base;
    return STORE_OK;
fail_log:
    log_error("database %s: %s", path, sqlite3_errmsg(s->db));
fail:
    sq_close(&s->base);
    return STORE_EIO;
}
