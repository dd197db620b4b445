/*
 * sqlite: the SQLite backend's opening (sqlite.h): the connection and its
 * settings, the migrations of schema.sql, and the assembly of the store
 * object from the area files (sqlite_areas.h): one table per area, every
 * area's statements prepared once. The one file of the backend that knows
 * every area; the rest of the backend is the core area (sqlite_core.c:
 * transactions, durability, bounded storage) and one file per area over
 * the helpers of sq_base.h. See store_core.h for the group-commit contract
 * that sqlite_core.c implements, sqlite.h for the connection settings.
 */
#include "store/sqlite.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/sqlite/sqlite_areas.h"
#include "util/log.h"

#define MIGRATION_MARK "-- migration "

/* Every area's statements, prepared at open in this order. */
static const sq_area_stmts *const areas[] = {
    &sq_core_stmts, &sq_users_stmts,   &sq_challenges_stmts, &sq_games_stmts,
    &sq_corr_stmts, &sq_ratings_stmts, &sq_tourney_stmts,    &sq_records_stmts,
    &sq_admin_stmts,
};

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

static int migrate(sq_store *s)
{
    int have, want = store_schema_version();
    if (sq_core_ops.user_version(&s->base, &have))
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
        int rc = sq_exec(s, sql, "migration");
        free(sql);
        if (rc) {
            if (!sqlite3_get_autocommit(s->db))
                sq_exec(s, "ROLLBACK", "rollback");
            return rc;
        }
        log_info("database migrated to schema version %d", n);
    }
    return STORE_OK;
}

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
    s->base.core = &sq_core_ops;
    s->base.users = &sq_users_ops;
    s->base.challenges = &sq_challenges_ops;
    s->base.games = &sq_games_ops;
    s->base.corr = &sq_corr_ops;
    s->base.ratings = &sq_ratings_ops;
    s->base.tourney = &sq_tourney_ops;
    s->base.records = &sq_records_ops;
    s->base.admin = &sq_admin_ops;
    s->wal_fd = -1;
    s->restart_frames = s->restart_above = STORE_WAL_RESTART_FRAMES;
    atomic_store(&s->ckpt_frames, STORE_WAL_RESTART_FRAMES);
    s->jobs[0].s = s->jobs[1].s = s;
    s->jobs[0].fsync_s = s->jobs[1].fsync_s = -1; /* not timed yet */
    s->path = strdup(path);
    if (!s->path) {
        free(s);
        return STORE_EIO;
    }
    int rc = sqlite3_open_v2(
        path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
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
    bool wal =
        rc == SQLITE_ROW && sqlite3_stricmp((const char *)sqlite3_column_text(st, 0), "wal") == 0;
    sqlite3_finalize(st);
    if (!wal) {
        log_error("database %s: cannot switch to WAL mode", path);
        goto fail;
    }
    if (sq_exec(s, "PRAGMA foreign_keys = ON; PRAGMA synchronous = FULL;", "pragmas"))
        goto fail;
    if (migrate(s))
        goto fail;
    /* From here on the loop never waits for another process's lock: a busy
     * database is STORE_BUSY at once (issue 9 item 8). Opening and
     * migrating above may wait up to 2 s: nothing is served yet. */
    rc = sqlite3_busy_timeout(s->db, 0);
    if (rc != SQLITE_OK)
        goto fail_log;
    if (sq_core_ops.journal_limit(&s->base, STORE_JOURNAL_LIMIT))
        goto fail;
    for (size_t i = 0; i < sizeof areas / sizeof *areas; i++)
        if (sq_prepare(s, areas[i]))
            goto fail;
    *out = &s->base;
    return STORE_OK;
fail_log:
    log_error("database %s: %s", path, sqlite3_errmsg(s->db));
fail:
    sq_core_ops.close(&s->base);
    return STORE_EIO;
}
