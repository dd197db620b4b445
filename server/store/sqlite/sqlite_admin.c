/*
 * sqlite_admin: the SQLite backend's administrators and moderation
 * (store_admin.h; migration 13's columns and tables): the admin flag and
 * bans of users, the audit admin_log, the password-reset codes. An area
 * like the others (sq_base.h): its own statements, numbered from
 * SQ_AREA_ADMIN, prepared at open by sqlite.c. The admin flag is never
 * written here: only the operator's offline command sets it
 * (sqlite_offline.c offline_admin_set()).
 */
#include <string.h>

#include "store/sqlite/sqlite_areas.h"

#define ADMIN_STATEMENTS(X)                                                                        \
    X(ADMIN_USER_GET, "SELECT id, username, admin, banned FROM users WHERE id = ?1")               \
    X(ADMIN_BAN_SET, "UPDATE users SET banned = ?2 WHERE id = ?1")                                 \
    X(ADMIN_TOKENS_DELETE, "DELETE FROM tokens WHERE user_id = ?1")                                \
    X(ADMIN_TEACHES,                                                                               \
      "SELECT 1 FROM class_members m JOIN classes c ON c.id = m.class_id "                         \
      "WHERE c.teacher_id = ?1 AND m.user_id = ?2 LIMIT 1")                                        \
    X(ADMIN_LOG_INSERT,                                                                            \
      "INSERT INTO admin_log (at, admin_id, admin_name, action, target_user_id, target, reason) "  \
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")                                                       \
    X(ADMIN_LOG_LIST,                                                                              \
      "SELECT l.id, l.at, coalesce(l.admin_id, 0), l.admin_name, l.action, "                       \
      "coalesce(l.target_user_id, 0), coalesce(u.username, ''), l.target, "                        \
      "coalesce(l.reason, '') FROM admin_log l LEFT JOIN users u ON u.id = l.target_user_id "      \
      "WHERE (?1 IS NULL OR l.id < ?1) ORDER BY l.id DESC LIMIT ?2")                               \
    X(ADMIN_RESET_CLEAR, "DELETE FROM reset_codes WHERE user_id = ?1")                             \
    X(ADMIN_RESET_INSERT,                                                                          \
      "INSERT INTO reset_codes (hash, user_id, created, expires) VALUES (?1, ?2, ?3, ?4)")         \
    X(ADMIN_RESET_VALID,                                                                           \
      "SELECT 1 FROM reset_codes WHERE hash = ?1 AND user_id = ?2 AND expires > ?3")               \
    X(ADMIN_RESET_TAKE,                                                                            \
      "DELETE FROM reset_codes WHERE hash = ?1 AND user_id = ?2 AND expires > ?3")

enum { SQ_AREA_FIRST(ADMIN), ADMIN_STATEMENTS(SQ_STMT_ENUM) ST_ADMIN__END };
static const sq_stmt_def admin_defs[] = {ADMIN_STATEMENTS(SQ_STMT_DEF)};
SQ_AREA_CHECK(ADMIN);
const sq_area_stmts sq_admin_stmts = {SQ_AREA_ADMIN, admin_defs, SQ_AREA_COUNT(ADMIN)};

static int sq_admin_user_get(store *base, int64_t user_id, store_admin_user *out)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_ADMIN_USER_GET, "i", user_id);
    if (rc || (rc = sq_one_row(s, ST_ADMIN_USER_GET)))
        return rc;
    sqlite3_stmt *st = s->st[ST_ADMIN_USER_GET];
    memset(out, 0, sizeof *out);
    out->id = sqlite3_column_int64(st, 0);
    sq_col_text(st, 1, out->username, sizeof out->username);
    out->admin = sqlite3_column_int(st, 2) != 0;
    out->banned = sqlite3_column_type(st, 3) != SQLITE_NULL;
    sq_col_text(st, 3, out->ban_reason, sizeof out->ban_reason);
    (void)sqlite3_reset(st);
    return STORE_OK;
}

static int sq_admin_ban_set(store *base, int64_t user_id, const char *reason)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_ADMIN_BAN_SET, "it", user_id, reason);
    return rc ? rc : sq_run_one(s, ST_ADMIN_BAN_SET);
}

static int sq_admin_tokens_delete(store *base, int64_t user_id, int64_t *n)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_ADMIN_TOKENS_DELETE, "i", user_id);
    if (rc || (rc = sq_run(s, ST_ADMIN_TOKENS_DELETE)))
        return rc;
    if (n)
        *n = sqlite3_changes(s->db);
    return STORE_OK;
}

static int sq_admin_teaches(store *base, int64_t teacher_id, int64_t user_id, bool *yes)
{
    sq_store *s = sq_of(base);
    *yes = false;
    int rc = sq_bind(s, ST_ADMIN_TEACHES, "ii", teacher_id, user_id);
    if (!rc)
        rc = sq_one_row(s, ST_ADMIN_TEACHES);
    if (rc == STORE_NOTFOUND)
        return STORE_OK;
    if (rc)
        return rc;
    (void)sqlite3_reset(s->st[ST_ADMIN_TEACHES]);
    *yes = true;
    return STORE_OK;
}

static int sq_admin_log_insert(store *base, store_admin_entry *e)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_ADMIN_LOG_INSERT, "iottotT", e->at, e->admin_id, e->admin_name,
                     e->action, e->target_user_id, e->target, e->reason);
    if (rc || (rc = sq_run(s, ST_ADMIN_LOG_INSERT)))
        return rc;
    e->id = sqlite3_last_insert_rowid(s->db);
    return STORE_OK;
}

typedef struct entry_walk {
    store_admin_entry_cb cb;
    void *arg;
} entry_walk;

static int entry_row(sqlite3_stmt *st, void *ctx)
{
    entry_walk *w = ctx;
    store_admin_entry e;
    memset(&e, 0, sizeof e);
    e.id = sqlite3_column_int64(st, 0);
    e.at = sqlite3_column_int64(st, 1);
    e.admin_id = sqlite3_column_int64(st, 2);
    sq_col_text(st, 3, e.admin_name, sizeof e.admin_name);
    sq_col_text(st, 4, e.action, sizeof e.action);
    e.target_user_id = sqlite3_column_int64(st, 5);
    sq_col_text(st, 6, e.target_user, sizeof e.target_user);
    sq_col_text(st, 7, e.target, sizeof e.target);
    sq_col_text(st, 8, e.reason, sizeof e.reason);
    return w->cb(w->arg, &e);
}

static int sq_admin_log_list(store *base, int64_t before, int64_t limit, store_admin_entry_cb cb,
                             void *arg)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_ADMIN_LOG_LIST, "oi", before, limit);
    return rc ? rc : sq_each(s, ST_ADMIN_LOG_LIST, entry_row, &(entry_walk){cb, arg});
}

static int sq_admin_reset_put(store *base, const uint8_t hash[STORE_TOKEN_HASH], int64_t user_id,
                              int64_t now, int64_t expires)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_ADMIN_RESET_CLEAR, "i", user_id);
    if (rc || (rc = sq_run(s, ST_ADMIN_RESET_CLEAR)))
        return rc;
    rc = sq_bind(s, ST_ADMIN_RESET_INSERT, "hiii", hash, user_id, now, expires);
    return rc ? rc : sq_run(s, ST_ADMIN_RESET_INSERT);
}

static int sq_admin_reset_valid(store *base, const uint8_t hash[STORE_TOKEN_HASH],
                                int64_t user_id, int64_t now)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_ADMIN_RESET_VALID, "hii", hash, user_id, now);
    if (rc || (rc = sq_one_row(s, ST_ADMIN_RESET_VALID)))
        return rc;
    (void)sqlite3_reset(s->st[ST_ADMIN_RESET_VALID]);
    return STORE_OK;
}

static int sq_admin_reset_take(store *base, const uint8_t hash[STORE_TOKEN_HASH],
                               int64_t user_id, int64_t now)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_ADMIN_RESET_TAKE, "hii", hash, user_id, now);
    if (rc || (rc = sq_run_one(s, ST_ADMIN_RESET_TAKE)))
        return rc;
    /* The user's other (expired) codes go with it. */
    rc = sq_bind(s, ST_ADMIN_RESET_CLEAR, "i", user_id);
    return rc ? rc : sq_run(s, ST_ADMIN_RESET_CLEAR);
}

const store_admin_ops sq_admin_ops = {
    .user_get = sq_admin_user_get,
    .ban_set = sq_admin_ban_set,
    .tokens_delete = sq_admin_tokens_delete,
    .teaches = sq_admin_teaches,
    .log_insert = sq_admin_log_insert,
    .log_list = sq_admin_log_list,
    .reset_put = sq_admin_reset_put,
    .reset_valid = sq_admin_reset_valid,
    .reset_take = sq_admin_reset_take,
};
