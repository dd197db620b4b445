/*
 * sq_base: the SQLite backend's statement registry and helpers (sq_base.h):
 * preparing an area's statements, binding by a format, stepping for no
 * row, one row or every row (sq_each()), and the one place a failing call
 * becomes a logged STORE_EIO or a quiet STORE_BUSY.
 */
#include "store/sqlite/sq_base.h"

#include <stdarg.h>
#include <stdio.h>

#include "util/log.h"

int sq_prepare(sq_store *s, const sq_area_stmts *a)
{
    for (int i = 0; i < a->n; i++) {
        sq_stmt id = a->area * SQ_AREA_STMTS + i;
        s->st_name[id] = a->defs[i].name;
        int rc = sqlite3_prepare_v3(s->db, a->defs[i].sql, -1, SQLITE_PREPARE_PERSISTENT,
                                    &s->st[id], NULL);
        if (rc != SQLITE_OK) {
            sq_fail(s, id, rc);
            return STORE_EIO;
        }
    }
    return STORE_OK;
}

int sq_exec(sq_store *s, const char *sql, const char *what)
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

int sq_fail(sq_store *s, sq_stmt which, int rc)
{
    /* A lock held by another connection is not our failure: the loop never
     * waits for it (busy_timeout 0 after open), the client is told to retry. */
    if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED) {
        log_debug("sqlite %s: database busy", s->st_name[which]);
        return STORE_BUSY;
    }
    log_error("sqlite %s: %s (%d): %s", s->st_name[which], sqlite3_errstr(rc), rc,
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

int sq_each(sq_store *s, sq_stmt which, sq_row_fn row, void *ctx)
{
    sqlite3_stmt *st = s->st[which];
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        int stop = row(st, ctx);
        if (stop) {
            (void)sqlite3_reset(st);
            return stop;
        }
    }
    (void)sqlite3_reset(st);
    return step == SQLITE_DONE ? STORE_OK : sq_fail(s, which, step);
}

int sq_row_id(sqlite3_stmt *st, void *ctx)
{
    sq_ids *w = ctx;
    if (*w->n >= w->max)
        return 1;
    w->ids[(*w->n)++] = sqlite3_column_int64(st, 0);
    return *w->n >= w->max;
}

void sq_col_text(sqlite3_stmt *st, int i, char *buf, size_t n)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    snprintf(buf, n, "%s", t ? (const char *)t : "");
}
