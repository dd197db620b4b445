/*
 * sqlite: the SQLite backend's opening, migrations, transactions, the
 * statement table and its helpers, and the store_ops table; the row-level
 * queries are in sqlite_rows.c and sqlite_corr.c. See store.h for the
 * group-commit contract that sq_begin()/sq_commit() implement, sqlite.h
 * for the connection settings.
 */
#include "store/sqlite_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int sq_one_row(sq_store *s, sq_stmt which)
{
    int rc = sqlite3_step(s->st[which]);
    if (rc == SQLITE_ROW)
        return STORE_OK;
    (void)sqlite3_reset(s->st[which]);
    return rc == SQLITE_DONE ? STORE_NOTFOUND : sq_fail(s, which, rc);
}

void sq_col_text(sqlite3_stmt *st, int i, char *buf, size_t n)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    snprintf(buf, n, "%s", t ? (const char *)t : "");
}

/* ---- migrations ------------------------------------------------------ */

/* Find migration n in the schema text: *start and *len cover its SQL. */
static bool migration_find(int n, const char **start, size_t *len)
{
    char mark[32];
    snprintf(mark, sizeof mark, "\n" MIGRATION_MARK "%d\n", n);
    const char *p = strstr(store_schema_sql, mark);
    if (!p)
        return false;
    p += strlen(mark);
    const char *end = strstr(p, "\n" MIGRATION_MARK);
    *start = p;
    *len = end ? (size_t)(end - p) + 1 : strlen(p);
    return true;
}

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

/* COMMIT is synchronous (synchronous=FULL: durable when it returns), so
 * the asynchronous form calls done at once and answers STORE_OK. */
static int sq_commit(store *base, store_done_cb done, void *arg)
{
    int rc = commit_now(sq_of(base));
    if (!done)
        return rc;
    done(arg, rc);
    return STORE_OK;
}

/* ---- open / close ---------------------------------------------------- */

static void sq_close(store *base)
{
    sq_store *s = sq_of(base);
    if (s->in_txn)
        sq_rollback(base);
    for (int i = 0; i < ST__COUNT; i++)
        sqlite3_finalize(s->st[i]);
    if (s->db) {
        int rc = sqlite3_close(s->db);
        if (rc != SQLITE_OK)
            log_error("sqlite close: %s", sqlite3_errstr(rc));
    }
    free(s);
}

static const store_ops sq_ops = {
    .name = "sqlite",
    .close = sq_close,
    .user_version = sq_user_version,
    .begin = sq_begin,
    .in_txn = sq_in_txn,
    .commit = sq_commit,
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
    .move_clock_set = sq_move_clock_set,
    .move_clocks_each = sq_move_clocks_each,
    .game_mark_imported = sq_game_mark_imported,
};

int store_sqlite_open(const char *path, store **out)
{
    *out = NULL;
    sq_store *s = calloc(1, sizeof *s);
    if (!s)
        return STORE_EIO;
    s->base.ops = &sq_ops;
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
