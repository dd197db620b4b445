/*
 * pg_admin: the PostgreSQL backend's administrators and moderation
 * (store_admin.h; schema-pg.sql migration 13): the admin flag and bans of
 * users, the audit admin_log, the password-reset codes. The same queries
 * as sqlite_admin.c in PostgreSQL's dialect:
 *  - the audit row's id comes back with `RETURNING id`;
 *  - the listing's optional `before` is cast where it is tested for NULL
 *    (`$1::bigint IS NULL`): the statement is prepared without types;
 *  - how many tokens went is the DELETE's PQcmdTuples (sqlite3_changes);
 *  - a reset code whose hash is taken (by another user: the user's own
 *    codes are deleted first) is `ON CONFLICT DO NOTHING`, STORE_CONFLICT
 *    with the transaction going on, as SQLite's failed primary key
 *    (pg_base.h "Constraints inside a transaction").
 * The admin flag is never written here: only the operator's offline
 * command sets it (store/offline.h).
 */
#include "store/pg/pg_areas.h"

#include <stdlib.h>
#include <string.h>

#define ADMIN_STATEMENTS(X)                                                                        \
    X(ADMIN_USER_GET, "SELECT id, username, admin, banned FROM users WHERE id = $1")               \
    X(ADMIN_BAN_SET, "UPDATE users SET banned = $2 WHERE id = $1")                                 \
    X(ADMIN_TOKENS_DELETE, "DELETE FROM tokens WHERE user_id = $1")                                \
    X(ADMIN_TEACHES, "SELECT 1 FROM class_members m JOIN classes c ON c.id = m.class_id "          \
                     "WHERE c.teacher_id = $1 AND m.user_id = $2 LIMIT 1")                         \
    X(ADMIN_LOG_INSERT,                                                                            \
      "INSERT INTO admin_log (at, admin_id, admin_name, action, target_user_id, target, reason) "  \
      "VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id")                                          \
    X(ADMIN_LOG_LIST,                                                                              \
      "SELECT l.id, l.at, coalesce(l.admin_id, 0), l.admin_name, l.action, "                       \
      "coalesce(l.target_user_id, 0), coalesce(u.username, ''), l.target, "                        \
      "coalesce(l.reason, '') FROM admin_log l LEFT JOIN users u ON u.id = l.target_user_id "      \
      "WHERE ($1::bigint IS NULL OR l.id < $1) ORDER BY l.id DESC LIMIT $2")                       \
    X(ADMIN_RESET_CLEAR, "DELETE FROM reset_codes WHERE user_id = $1")                             \
    X(ADMIN_RESET_INSERT,                                                                          \
      "INSERT INTO reset_codes (hash, user_id, created, expires) VALUES ($1, $2, $3, $4) "         \
      "ON CONFLICT DO NOTHING")                                                                    \
    X(ADMIN_RESET_VALID,                                                                           \
      "SELECT 1 FROM reset_codes WHERE hash = $1 AND user_id = $2 AND expires > $3")               \
    X(ADMIN_RESET_TAKE, "DELETE FROM reset_codes "                                                 \
                        "WHERE hash = $1 AND user_id = $2 AND expires > $3")

enum { PG_AREA_FIRST(ADMIN), ADMIN_STATEMENTS(PG_STMT_ENUM) ST_ADMIN__END };
static const pg_stmt_def admin_defs[] = {ADMIN_STATEMENTS(PG_STMT_DEF)};
PG_AREA_CHECK(ADMIN);
const pg_area_stmts pg_admin_stmts = {PG_AREA_ADMIN, admin_defs, PG_AREA_COUNT(ADMIN)};

static int pg_admin_user_get(store *base, int64_t user_id, store_admin_user *out)
{
    PGresult *r;
    int rc = pg_one_row(pg_of(base), ST_ADMIN_USER_GET, &r, "i", user_id);
    if (rc)
        return rc;
    memset(out, 0, sizeof *out);
    out->id = pg_col_int(r, 0, 0);
    pg_col_text(r, 0, 1, out->username, sizeof out->username);
    out->admin = pg_col_int(r, 0, 2) != 0;
    out->banned = !pg_col_null(r, 0, 3);
    pg_col_text(r, 0, 3, out->ban_reason, sizeof out->ban_reason);
    PQclear(r);
    return STORE_OK;
}

static int pg_admin_ban_set(store *base, int64_t user_id, const char *reason)
{
    return pg_run_one(pg_of(base), ST_ADMIN_BAN_SET, "it", user_id, reason);
}

static int pg_admin_tokens_delete(store *base, int64_t user_id, int64_t *n)
{
    PGresult *r;
    int rc = pg_query(pg_of(base), ST_ADMIN_TOKENS_DELETE, &r, "i", user_id);
    if (rc)
        return rc;
    if (n) {
        const char *t = PQcmdTuples(r);
        *n = *t ? strtoll(t, NULL, 10) : 0;
    }
    PQclear(r);
    return STORE_OK;
}

static int pg_admin_teaches(store *base, int64_t teacher_id, int64_t user_id, bool *yes)
{
    PGresult *r;
    *yes = false;
    int rc = pg_one_row(pg_of(base), ST_ADMIN_TEACHES, &r, "ii", teacher_id, user_id);
    if (rc == STORE_NOTFOUND)
        return STORE_OK;
    if (rc)
        return rc;
    PQclear(r);
    *yes = true;
    return STORE_OK;
}

static int pg_admin_log_insert(store *base, store_admin_entry *e)
{
    PGresult *r;
    int rc = pg_one_row(pg_of(base), ST_ADMIN_LOG_INSERT, &r, "iottotT", e->at, e->admin_id,
                        e->admin_name, e->action, e->target_user_id, e->target, e->reason);
    if (rc)
        return rc == STORE_NOTFOUND ? STORE_EIO : rc; /* RETURNING always has the row */
    e->id = pg_col_int(r, 0, 0);
    PQclear(r);
    return STORE_OK;
}

typedef struct entry_walk {
    store_admin_entry_cb cb;
    void *arg;
} entry_walk;

static int entry_row(const PGresult *r, int i, void *ctx)
{
    entry_walk *w = ctx;
    store_admin_entry e;
    memset(&e, 0, sizeof e);
    e.id = pg_col_int(r, i, 0);
    e.at = pg_col_int(r, i, 1);
    e.admin_id = pg_col_int(r, i, 2);
    pg_col_text(r, i, 3, e.admin_name, sizeof e.admin_name);
    pg_col_text(r, i, 4, e.action, sizeof e.action);
    e.target_user_id = pg_col_int(r, i, 5);
    pg_col_text(r, i, 6, e.target_user, sizeof e.target_user);
    pg_col_text(r, i, 7, e.target, sizeof e.target);
    pg_col_text(r, i, 8, e.reason, sizeof e.reason);
    return w->cb(w->arg, &e);
}

static int pg_admin_log_list(store *base, int64_t before, int64_t limit, store_admin_entry_cb cb,
                             void *arg)
{
    return pg_each(pg_of(base), ST_ADMIN_LOG_LIST, entry_row, &(entry_walk){cb, arg}, "oi", before,
                   limit);
}

static int pg_admin_reset_put(store *base, const uint8_t hash[STORE_TOKEN_HASH], int64_t user_id,
                              int64_t now, int64_t expires)
{
    pg_store *s = pg_of(base);
    int rc = pg_run(s, ST_ADMIN_RESET_CLEAR, "i", user_id);
    return rc ? rc : pg_run_conflict(s, ST_ADMIN_RESET_INSERT, "hiii", hash, user_id, now, expires);
}

static int pg_admin_reset_valid(store *base, const uint8_t hash[STORE_TOKEN_HASH], int64_t user_id,
                                int64_t now)
{
    PGresult *r;
    int rc = pg_one_row(pg_of(base), ST_ADMIN_RESET_VALID, &r, "hii", hash, user_id, now);
    if (rc)
        return rc;
    PQclear(r);
    return STORE_OK;
}

static int pg_admin_reset_take(store *base, const uint8_t hash[STORE_TOKEN_HASH], int64_t user_id,
                               int64_t now)
{
    pg_store *s = pg_of(base);
    int rc = pg_run_one(s, ST_ADMIN_RESET_TAKE, "hii", hash, user_id, now);
    if (rc)
        return rc;
    /* The user's other (expired) codes go with it. */
    return pg_run(s, ST_ADMIN_RESET_CLEAR, "i", user_id);
}

const store_admin_ops pg_admin_ops = {
    .user_get = pg_admin_user_get,
    .ban_set = pg_admin_ban_set,
    .tokens_delete = pg_admin_tokens_delete,
    .teaches = pg_admin_teaches,
    .log_insert = pg_admin_log_insert,
    .log_list = pg_admin_log_list,
    .reset_put = pg_admin_reset_put,
    .reset_valid = pg_admin_reset_valid,
    .reset_take = pg_admin_reset_take,
};
