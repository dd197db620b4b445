/*
 * sqlite_offline: the SQLite side of store/offline.h (qirkatd backup and
 * check): its own read-only connection, apart from the store object and
 * the loop. See offline.h.
 */
#define _GNU_SOURCE /* sync_file_range(): Linux */
#include "store/offline.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#define OFFLINE_BUSY_MS 5000 /* waits for the server's lock (a checkpoint) at most this */
#define OFFLINE_NICE 19      /* a backup's CPU priority (offline.h) */

static void say(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
}

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int open_ro(const char *path, sqlite3 **db, char *err, size_t n)
{
    /* Read-only, but not immutable: the -wal and -shm of the running
     * server are read so the snapshot includes what it committed. */
    int rc = sqlite3_open_v2(path, db, SQLITE_OPEN_READONLY, NULL);
    if (rc != SQLITE_OK) {
        say(err, n, "%s: %s", path, *db ? sqlite3_errmsg(*db) : sqlite3_errstr(rc));
        sqlite3_close(*db);
        *db = NULL;
        return -1;
    }
    sqlite3_busy_timeout(*db, OFFLINE_BUSY_MS);
    return 0;
}

/* Start writing path's dirty pages to disk, without waiting. Why: the
 * copy is written with no sync of its own, so all of it (200 MB for a
 * 200 MB database) would be dirty in the page cache until the fsync
 * before the rename, one burst of writeback at the end; started before
 * the quick_check, it goes to disk while the check reads (measured on a
 * 200 MB copy: the final fsync ~170 ms -> ~2 ms, and the server's ping
 * round trips no longer peak during it). */
static void start_writeback(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    (void)sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
    close(fd);
}

/* fsync path (a file or the directory that holds it). */
static int sync_path(const char *path, bool dir)
{
    int fd = open(path, dir ? O_RDONLY | O_DIRECTORY : O_RDONLY);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

/* The backup is a background job on the server's own machine. It never
 * makes the server wait on a lock (WAL: a reader does not block the
 * writer; the loop's connection has no busy timeout and the writer
 * thread's checkpoints are PASSIVE), but the copy and then the check each
 * keep a core busy for seconds on a large file, and on a small machine
 * the server's loop then waits for a core when a request wakes it.
 * Measured on 2 cores under ~1,700 moves/s, a 200 MB backup: the loop's
 * ping round trip at p99 went from 0.7 ms to 1.5-2.3 ms at nice 0, to
 * 0.75-0.9 ms at nice 19; on a machine busy with other work too, maxima
 * of 9-27 ms at nice 0 (docs/operations.md section 4,
 * tools/backup-stall.py). Lowered only, never raised. */
static void lower_priority(void)
{
    errno = 0;
    int now = getpriority(PRIO_PROCESS, 0);
    if ((now != -1 || errno == 0) && now < OFFLINE_NICE)
        (void)setpriority(PRIO_PROCESS, 0, OFFLINE_NICE);
}

int offline_backup(const char *src, const char *out, int64_t *pages, int64_t *ms, char *err,
                   size_t n)
{
    struct stat st;
    if (stat(out, &st) == 0) {
        say(err, n, "%s exists: a backup never overwrites a file", out);
        return -1;
    }
    if (stat(src, &st) != 0) {
        say(err, n, "%s: %s", src, strerror(errno));
        return -1;
    }
    char tmp[4200];
    if (snprintf(tmp, sizeof tmp, "%s.partial", out) >= (int)sizeof tmp) {
        say(err, n, "%s: path too long", out);
        return -1;
    }
    (void)unlink(tmp); /* a crashed backup's leftover */
    lower_priority();
    sqlite3 *from = NULL, *to = NULL;
    if (open_ro(src, &from, err, n) != 0)
        return -1;
    int rc = sqlite3_open_v2(tmp, &to, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (rc != SQLITE_OK) {
        say(err, n, "%s: %s", tmp, to ? sqlite3_errmsg(to) : sqlite3_errstr(rc));
        goto fail;
    }
    /* The copy needs no journal and no sync of its own while it is made:
     * a copy that fails is deleted (and a crashed one's .partial at the
     * next run), and the whole file is fsync'd once before the rename.
     * So the snapshot is not held through the copy's own fdatasyncs
     * (measured: ~150 ms of a 200 MB copy's ~600 ms). */
    if (sqlite3_exec(to, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF", NULL, NULL,
                     NULL) != SQLITE_OK) {
        say(err, n, "%s: %s", tmp, sqlite3_errmsg(to));
        goto fail;
    }
    sqlite3_backup *b = sqlite3_backup_init(to, "main", from, "main");
    if (!b) {
        say(err, n, "backup: %s", sqlite3_errmsg(to));
        goto fail;
    }
    int64_t t0 = mono_ms();
    /* All pages in one step: one read transaction, one snapshot. A busy
     * source (the server's checkpoint holds its lock a moment) is retried
     * by the busy timeout; BUSY/LOCKED left over are retried here. */
    do {
        rc = sqlite3_backup_step(b, -1);
        if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
            sqlite3_sleep(10);
    } while (rc == SQLITE_BUSY || rc == SQLITE_LOCKED);
    int64_t took = mono_ms() - t0;
    int total = sqlite3_backup_pagecount(b);
    sqlite3_backup_finish(b);
    if (rc != SQLITE_DONE) {
        say(err, n, "backup: %s", sqlite3_errstr(rc));
        goto fail;
    }
    /* The copy is an ordinary database file: no -wal of its own. */
    sqlite3_stmt *q = NULL;
    bool ok = sqlite3_exec(to, "PRAGMA journal_mode = DELETE", NULL, NULL, NULL) == SQLITE_OK;
    start_writeback(tmp); /* while the check runs */
    ok = ok && sqlite3_prepare_v2(to, "PRAGMA quick_check", -1, &q, NULL) == SQLITE_OK &&
              sqlite3_step(q) == SQLITE_ROW &&
              strcmp((const char *)sqlite3_column_text(q, 0), "ok") == 0;
    sqlite3_finalize(q);
    if (!ok) {
        say(err, n, "the copy fails quick_check: %s", sqlite3_errmsg(to));
        goto fail;
    }
    sqlite3_close(to);
    to = NULL;
    sqlite3_close(from);
    from = NULL;
    char dir[4200];
    snprintf(dir, sizeof dir, "%s", out);
    char *slash = strrchr(dir, '/');
    if (slash)
        *(slash == dir ? slash + 1 : slash) = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    if (sync_path(tmp, false) != 0 || rename(tmp, out) != 0 || sync_path(dir, true) != 0) {
        say(err, n, "%s: %s", out, strerror(errno));
        (void)unlink(tmp);
        return -1;
    }
    if (pages)
        *pages = total;
    if (ms)
        *ms = took;
    return 0;
fail:
    sqlite3_close(to);
    sqlite3_close(from);
    (void)unlink(tmp);
    return -1;
}

/* Each row of a one-column PRAGMA other than "ok" as a problem. */
static int pragma_lines(sqlite3 *db, const char *sql, const char *what, FILE *report,
                        int64_t *problems)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int cols = sqlite3_column_count(st);
        const char *first = (const char *)sqlite3_column_text(st, 0);
        if (cols == 1 && first && strcmp(first, "ok") == 0)
            continue;
        (*problems)++;
        fprintf(report, "%s:", what);
        for (int i = 0; i < cols; i++) {
            const char *v = (const char *)sqlite3_column_text(st, i);
            fprintf(report, " %s", v ? v : "NULL");
        }
        fputc('\n', report);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

static const char *text_or(sqlite3_stmt *st, int col, const char *dflt)
{
    const char *v = (const char *)sqlite3_column_text(st, col);
    return v ? v : dflt;
}

int offline_check(const char *src, FILE *report, int64_t *problems,
                  int (*cb)(void *arg, const offline_game *g), void *arg, char *err, size_t n)
{
    sqlite3 *db = NULL;
    *problems = 0;
    if (open_ro(src, &db, err, n) != 0)
        return -1;
    /* One read transaction: the checks and the games see one snapshot. */
    if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK ||
        pragma_lines(db, "PRAGMA integrity_check", "integrity", report, problems) != 0 ||
        pragma_lines(db, "PRAGMA foreign_key_check", "foreign key", report, problems) != 0) {
        say(err, n, "%s: %s", src, sqlite3_errmsg(db));
        sqlite3_close(db);
        return -1;
    }
    sqlite3_stmt *gs = NULL, *ms = NULL;
    int rc = sqlite3_prepare_v2(db,
                                "SELECT id, variant, start, position, ply, status, result, reason "
                                "FROM games ORDER BY id",
                                -1, &gs, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db, "SELECT ply, move FROM moves WHERE game_id = ? ORDER BY ply",
                                -1, &ms, NULL);
    if (rc != SQLITE_OK) {
        say(err, n, "%s: %s", src, sqlite3_errmsg(db));
        goto done;
    }
    char **texts = NULL;
    int64_t *plies = NULL;
    size_t cap = 0;
    int stop = 0;
    while (!stop && (rc = sqlite3_step(gs)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(gs, 0);
        sqlite3_reset(ms);
        sqlite3_bind_int64(ms, 1, id);
        size_t k = 0;
        while ((rc = sqlite3_step(ms)) == SQLITE_ROW) {
            if (k == cap) {
                size_t nc = cap ? cap * 2 : 256;
                char **t2 = realloc(texts, nc * sizeof *t2);
                if (t2)
                    texts = t2;
                int64_t *p2 = t2 ? realloc(plies, nc * sizeof *p2) : NULL;
                if (!t2 || !p2) {
                    rc = SQLITE_NOMEM;
                    break;
                }
                plies = p2;
                cap = nc;
            }
            plies[k] = sqlite3_column_int64(ms, 0);
            texts[k] = strdup(text_or(ms, 1, ""));
            if (!texts[k]) {
                rc = SQLITE_NOMEM;
                break;
            }
            k++;
        }
        if (rc == SQLITE_DONE) {
            offline_game g = {.id = id,
                              .variant = text_or(gs, 1, ""),
                              .start = text_or(gs, 2, ""),
                              .position = text_or(gs, 3, ""),
                              .ply = sqlite3_column_int64(gs, 4),
                              .status = text_or(gs, 5, ""),
                              .result = text_or(gs, 6, ""),
                              .reason = text_or(gs, 7, ""),
                              .nmoves = (int64_t)k,
                              .moves = (const char *const *)texts,
                              .plies = plies};
            stop = cb(arg, &g);
            rc = SQLITE_ROW;
        }
        for (size_t i = 0; i < k; i++)
            free(texts[i]);
        if (rc != SQLITE_ROW)
            break;
    }
    free(texts);
    free(plies);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
        if (rc == SQLITE_NOMEM)
            say(err, n, "out of memory");
        else
            say(err, n, "%s: %s", src, sqlite3_errmsg(db));
        rc = -1;
    } else {
        rc = 0;
    }
done:
    sqlite3_finalize(ms);
    sqlite3_finalize(gs);
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    sqlite3_close(db);
    return rc == 0 ? 0 : -1;
}

/* ---- administrators (qirkatd admin) ------------------------------------ */

#define ADMIN_SCHEMA 13 /* the migration that brought users.admin and admin_log */

static int schema_at_least(sqlite3 *db, int want, const char *path, char *err, size_t n)
{
    sqlite3_stmt *st = NULL;
    int v = -1;
    if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    if (v < 0) {
        say(err, n, "%s: %s", path, sqlite3_errmsg(db));
        return -1;
    }
    if (v < want) {
        say(err, n,
            "%s is at schema version %d: start this qirkatd on it once to migrate it to %d", path,
            v, want);
        return -1;
    }
    return 0;
}

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int offline_admin_set(const char *path, const char *name, bool grant, bool *changed,
                      char *username, char *err, size_t n)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *q = NULL, *up = NULL, *log = NULL;
    *changed = false;
    username[0] = '\0';
    struct stat sb;
    if (stat(path, &sb) != 0) {
        say(err, n, "%s: %s", path, strerror(errno));
        return -1;
    }
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL);
    if (rc != SQLITE_OK) {
        say(err, n, "%s: %s", path, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        sqlite3_close(db);
        return -1;
    }
    /* Beside a running server: wait for its write lock (one batch, a
     * checkpoint) rather than fail; the server never waits for ours. */
    sqlite3_busy_timeout(db, OFFLINE_BUSY_MS);
    if (sqlite3_exec(db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL) != SQLITE_OK ||
        schema_at_least(db, ADMIN_SCHEMA, path, err, n) != 0)
        goto fail_quiet;
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        goto fail;
    if (sqlite3_prepare_v2(db, "SELECT id, username, admin FROM users WHERE username = ?", -1,
                           &q, NULL) != SQLITE_OK ||
        sqlite3_bind_text(q, 1, name, -1, SQLITE_TRANSIENT) != SQLITE_OK)
        goto fail;
    rc = sqlite3_step(q);
    if (rc == SQLITE_DONE) {
        say(err, n, "no user \"%s\" in %s", name, path);
        goto fail_quiet;
    }
    if (rc != SQLITE_ROW)
        goto fail;
    int64_t id = sqlite3_column_int64(q, 0);
    snprintf(username, OFFLINE_NAME_MAX + 1, "%s", text_or(q, 1, ""));
    bool was = sqlite3_column_int(q, 2) != 0;
    if (was != grant) {
        char target[64];
        snprintf(target, sizeof target, "user %s", username);
        if (sqlite3_prepare_v2(db, "UPDATE users SET admin = ?2 WHERE id = ?1", -1, &up, NULL) !=
                SQLITE_OK ||
            sqlite3_bind_int64(up, 1, id) != SQLITE_OK ||
            sqlite3_bind_int(up, 2, grant ? 1 : 0) != SQLITE_OK || sqlite3_step(up) != SQLITE_DONE)
            goto fail;
        if (sqlite3_prepare_v2(db,
                               "INSERT INTO admin_log (at, admin_id, admin_name, action, "
                               "target_user_id, target, reason) VALUES (?1, NULL, 'operator', ?2, "
                               "?3, ?4, NULL)",
                               -1, &log, NULL) != SQLITE_OK ||
            sqlite3_bind_int64(log, 1, wall_ms()) != SQLITE_OK ||
            sqlite3_bind_text(log, 2, grant ? "grant" : "revoke", -1, SQLITE_STATIC) !=
                SQLITE_OK ||
            sqlite3_bind_int64(log, 3, id) != SQLITE_OK ||
            sqlite3_bind_text(log, 4, target, -1, SQLITE_TRANSIENT) != SQLITE_OK ||
            sqlite3_step(log) != SQLITE_DONE)
            goto fail;
        *changed = true;
    }
    if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        goto fail;
    sqlite3_finalize(q);
    sqlite3_finalize(up);
    sqlite3_finalize(log);
    sqlite3_close(db);
    return 0;
fail:
    say(err, n, "%s: %s", path, sqlite3_errmsg(db));
fail_quiet:
    sqlite3_finalize(q);
    sqlite3_finalize(up);
    sqlite3_finalize(log);
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(db);
    *changed = false;
    return -1;
}

int offline_admin_log(const char *path, int64_t limit,
                      void (*cb)(void *arg, const offline_admin_entry *e), void *arg, char *err,
                      size_t n)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    if (open_ro(path, &db, err, n) != 0)
        return -1;
    if (schema_at_least(db, ADMIN_SCHEMA, path, err, n) != 0) {
        sqlite3_close(db);
        return -1;
    }
    int rc = sqlite3_prepare_v2(db,
                                "SELECT l.id, l.at, l.admin_name, l.action, l.target, "
                                "coalesce(u.username, ''), coalesce(l.reason, '') "
                                "FROM admin_log l LEFT JOIN users u ON u.id = l.target_user_id "
                                "ORDER BY l.id DESC LIMIT ?",
                                -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 1, limit);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        offline_admin_entry e = {.id = sqlite3_column_int64(st, 0),
                                 .at = sqlite3_column_int64(st, 1),
                                 .admin = text_or(st, 2, ""),
                                 .action = text_or(st, 3, ""),
                                 .target = text_or(st, 4, ""),
                                 .user = text_or(st, 5, ""),
                                 .reason = text_or(st, 6, "")};
        cb(arg, &e);
        rc = SQLITE_OK;
    }
    if (rc != SQLITE_DONE)
        say(err, n, "%s: %s", path, sqlite3_errmsg(db));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return rc == SQLITE_DONE ? 0 : -1;
}
