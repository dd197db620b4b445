/*
 * sqlite_users: the SQLite backend's users and tokens (store_users.h).
 * Each function binds, steps, reads the columns it promised, and resets;
 * a failing step is logged with the statement's name (sq_fail) and
 * returned as STORE_EIO.
 */
#include "store/sqlite/sqlite_areas.h"

#define USERS_STATEMENTS(X)                                                                        \
    X(USER_BY_NAME, "SELECT id, username, bot, pwhash, created FROM users WHERE username = ?")     \
    X(USER_BY_ID, "SELECT id, username, bot, pwhash, created FROM users WHERE id = ?")             \
    X(USER_INSERT, "INSERT INTO users (username, bot, pwhash, created) VALUES (?, ?, ?, ?)")       \
    X(USERS_LIST,                                                                                  \
      "SELECT id, username, bot, '', created FROM users WHERE (?1 IS NULL OR bot = ?1) "           \
      "AND (?2 IS NULL OR username > ?2) ORDER BY username LIMIT ?3")                              \
    X(PWHASH_SET, "UPDATE users SET pwhash = ?2 WHERE id = ?1")                                    \
    X(TOKEN_INSERT, "INSERT INTO tokens (hash, user_id, created, last_used) VALUES (?, ?, ?, ?)")  \
    X(TOKEN_USE, "UPDATE tokens SET last_used = ?2 WHERE hash = ?1 AND last_used > ?2 - ?3 "       \
                 "RETURNING user_id")                                                              \
    X(TOKEN_DELETE, "DELETE FROM tokens WHERE hash = ?")

enum { SQ_AREA_FIRST(USERS), USERS_STATEMENTS(SQ_STMT_ENUM) ST_USERS__END };
static const sq_stmt_def users_defs[] = {USERS_STATEMENTS(SQ_STMT_DEF)};
SQ_AREA_CHECK(USERS);
const sq_area_stmts sq_users_stmts = {SQ_AREA_USERS, users_defs, SQ_AREA_COUNT(USERS)};

static void read_user(sqlite3_stmt *st, store_user *u)
{
    u->id = sqlite3_column_int64(st, 0);
    sq_col_text(st, 1, u->username, sizeof u->username);
    u->bot = sqlite3_column_int(st, 2) != 0;
    sq_col_text(st, 3, u->pwhash, sizeof u->pwhash);
    u->created = sqlite3_column_int64(st, 4);
}

static int sq_user_by_name(store *base, const char *name, store_user *out)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_USER_BY_NAME, "t", name);
    if (rc || (rc = sq_one_row(s, ST_USER_BY_NAME)))
        return rc;
    read_user(s->st[ST_USER_BY_NAME], out);
    (void)sqlite3_reset(s->st[ST_USER_BY_NAME]);
    return STORE_OK;
}

static int sq_user_by_id(store *base, int64_t id, store_user *out)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_USER_BY_ID, "i", id);
    if (rc || (rc = sq_one_row(s, ST_USER_BY_ID)))
        return rc;
    read_user(s->st[ST_USER_BY_ID], out);
    (void)sqlite3_reset(s->st[ST_USER_BY_ID]);
    return STORE_OK;
}

static int sq_user_insert(store *base, const char *name, bool bot, const char *pwhash, int64_t now,
                          int64_t *id)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_USER_INSERT, "titi", name, (int64_t)bot, pwhash, now);
    if (rc || (rc = sq_run(s, ST_USER_INSERT)))
        return rc;
    *id = sqlite3_last_insert_rowid(s->db);
    return STORE_OK;
}

typedef struct user_walk {
    store_user_cb cb;
    void *arg;
} user_walk;

static int user_row(sqlite3_stmt *st, void *ctx)
{
    user_walk *w = ctx;
    store_user u;
    read_user(st, &u);
    return w->cb(w->arg, &u);
}

static int sq_users_list(store *base, int bot, const char *after, int64_t limit, store_user_cb cb,
                         void *arg)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_USERS_LIST, "OTi", (int64_t)bot, after, limit);
    return rc ? rc : sq_each(s, ST_USERS_LIST, user_row, &(user_walk){cb, arg});
}

static int sq_user_pwhash_set(store *base, int64_t user_id, const char *pwhash)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_PWHASH_SET, "it", user_id, pwhash);
    return rc ? rc : sq_run_one(s, ST_PWHASH_SET);
}

static int sq_token_insert(store *base, const uint8_t hash[STORE_TOKEN_HASH], int64_t user_id,
                           int64_t now)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_TOKEN_INSERT, "hiii", hash, user_id, now, now);
    return rc ? rc : sq_run(s, ST_TOKEN_INSERT);
}

static int sq_token_user(store *base, const uint8_t hash[STORE_TOKEN_HASH], int64_t now,
                         int64_t *user_id)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_TOKEN_USE, "hii", hash, now, (int64_t)STORE_TOKEN_IDLE_MS);
    if (rc || (rc = sq_one_row(s, ST_TOKEN_USE)))
        return rc;
    *user_id = sqlite3_column_int64(s->st[ST_TOKEN_USE], 0);
    /* RETURNING: the update is complete only once stepped to the end. */
    rc = sqlite3_step(s->st[ST_TOKEN_USE]);
    (void)sqlite3_reset(s->st[ST_TOKEN_USE]);
    return rc == SQLITE_DONE ? STORE_OK : sq_fail(s, ST_TOKEN_USE, rc);
}

static int sq_token_delete(store *base, const uint8_t hash[STORE_TOKEN_HASH])
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_TOKEN_DELETE, "h", hash);
    return rc ? rc : sq_run(s, ST_TOKEN_DELETE);
}

const store_users_ops sq_users_ops = {
    .user_by_name = sq_user_by_name,
    .user_by_id = sq_user_by_id,
    .user_insert = sq_user_insert,
    .users_list = sq_users_list,
    .user_pwhash_set = sq_user_pwhash_set,
    .token_insert = sq_token_insert,
    .token_user = sq_token_user,
    .token_delete = sq_token_delete,
};
