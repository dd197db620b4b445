/*
 * store: opening, migrations, transactions and the statement table; the
 * row-level queries are in store_rows.c. See store.h for the group-commit
 * contract this file's store_begin()/store_commit() implement.
 */
#include "store/store_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"

static const char *const stmt_sql[] = {
#define STORE_X_SQL(name, sql) sql,
    STORE_STATEMENTS(STORE_X_SQL)
#undef STORE_X_SQL
};
static const char *const stmt_name[] = {
#define STORE_X_NAME(name, sql) #name,
    STORE_STATEMENTS(STORE_X_NAME)
#undef STORE_X_NAME
};

#define MIGRATION_MARK "-- migration "

int store_fail(store *s, store_stmt which, int rc)
{
    log_error("sqlite %s: %s (%d): %s", stmt_name[which], sqlite3_errstr(rc), rc,
              sqlite3_errmsg(s->db));
    return STORE_EIO;
}

sqlite3_stmt *store_stmt_get(store *s, store_stmt which)
{
    sqlite3_stmt *st = s->st[which];
    /* Errors of the previous step were already reported; reset returns
     * them again, so its result is not an error of this use. */
    (void)sqlite3_reset(st);
    (void)sqlite3_clear_bindings(st);
    return st;
}

int store_bind(store *s, store_stmt which, const char *fmt, ...)
{
    sqlite3_stmt *st = store_stmt_get(s, which);
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
    return rc == SQLITE_OK ? STORE_OK : store_fail(s, which, rc);
}

int store_run(store *s, store_stmt which)
{
    sqlite3_stmt *st = s->st[which];
    int rc = sqlite3_step(st);
    (void)sqlite3_reset(st);
    if (rc == SQLITE_DONE)
        return STORE_OK;
    if (rc == SQLITE_CONSTRAINT_UNIQUE || rc == SQLITE_CONSTRAINT_PRIMARYKEY)
        return STORE_CONFLICT;
    /* Any other constraint (CHECK, FOREIGN KEY) is a bug of ours: logged. */
    return store_fail(s, which, rc);
}

int store_one_row(store *s, store_stmt which)
{
    int rc = sqlite3_step(s->st[which]);
    if (rc == SQLITE_ROW)
        return STORE_OK;
    (void)sqlite3_reset(s->st[which]);
    return rc == SQLITE_DONE ? STORE_NOTFOUND : store_fail(s, which, rc);
}

void store_col_text(sqlite3_stmt *st, int i, char *buf, size_t n)
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

static int exec_sql(store *s, const char *sql, const char *what)
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

int store_user_version(store *s, int *out)
{
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

static int migrate(store *s)
{
    int have, want = store_schema_version();
    if (store_user_version(s, &have))
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

/* ---- open / close ---------------------------------------------------- */

int store_open(const char *path, store **out)
{
    *out = NULL;
    store *s = calloc(1, sizeof *s);
    if (!s)
        return STORE_EIO;
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
            store_fail(s, (store_stmt)i, rc);
            goto fail;
        }
    }
    *out = s;
    return STORE_OK;
fail_log:
    log_error("database %s: %s", path, sqlite3_errmsg(s->db));
fail:
    store_close(s);
    return STORE_EIO;
}

void store_close(store *s)
{
    if (!s)
        return;
    if (s->in_txn)
        store_rollback(s);
    for (int i = 0; i < ST__COUNT; i++)
        sqlite3_finalize(s->st[i]);
    if (s->db) {
        int rc = sqlite3_close(s->db);
        if (rc != SQLITE_OK)
            log_error("sqlite close: %s", sqlite3_errstr(rc));
    }
    free(s);
}

/* ---- transactions ---------------------------------------------------- */

static int step_done(store *s, store_stmt which)
{
    sqlite3_stmt *st = store_stmt_get(s, which);
    int rc = sqlite3_step(st);
    (void)sqlite3_reset(st);
    return rc == SQLITE_DONE ? STORE_OK : store_fail(s, which, rc);
}

int store_begin(store *s)
{
    if (s->in_txn)
        return STORE_OK;
    int rc = step_done(s, ST_BEGIN);
    if (rc == STORE_OK)
        s->in_txn = true;
    return rc;
}

bool store_in_txn(const store *s)
{
    return s->in_txn;
}

void store_rollback(store *s)
{
    if (!s->in_txn)
        return;
    s->in_txn = false;
    /* A failed COMMIT may already have rolled back. */
    if (!sqlite3_get_autocommit(s->db))
        step_done(s, ST_ROLLBACK);
}

void store_fail_commit_at(store *s, int n)
{
    s->fail_commit_at = n;
}

int store_commit(store *s)
{
    if (!s->in_txn)
        return STORE_OK;
    if (s->fail_commit_at > 0 && --s->fail_commit_at == 0) {
        log_error("sqlite COMMIT: injected failure");
        store_rollback(s);
        return STORE_EIO;
    }
    int rc = step_done(s, ST_COMMIT);
    if (rc != STORE_OK) {
        store_rollback(s);
        return rc;
    }
    s->in_txn = false;
    return STORE_OK;
}
