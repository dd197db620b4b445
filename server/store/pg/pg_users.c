/*
 * pg_users: the PostgreSQL backend's users and tokens (store_users.h).
 * The same queries as sqlite_users.c in PostgreSQL's dialect: names are
 * compared and ordered by lower(username) (schema-pg.sql keeps them unique
 * that way, as SQLite's COLLATE NOCASE does), a taken name is an
 * `ON CONFLICT DO NOTHING` that returns no row (pg_base.h "Constraints").
 */
#include "store/pg/pg_areas.h"

#define USERS_STATEMENTS(X)                                                                        \
    X(USER_BY_NAME, "SELECT id, username, bot, pwhash, created FROM users "                        \
                    "WHERE lower(username) = lower($1)")                                           \
    X(USER_BY_ID, "SELECT id, username, bot, pwhash, created FROM users WHERE id = $1")            \
    X(USER_INSERT, "INSERT INTO users (username, bot, pwhash, created) VALUES ($1, $2, $3, $4) "   \
                   "ON CONFLICT DO NOTHING RETURNING id")                                          \
    X(USERS_LIST,                                                                                  \
      "SELECT id, username, bot, '', created FROM users WHERE ($1::bigint IS NULL OR bot = $1) "   \
      "AND ($2::text IS NULL OR lower(username) > lower($2)) ORDER BY lower(username) LIMIT $3")   \
    X(PWHASH_SET, "UPDATE users SET pwhash = $2 WHERE id = $1")                                    \
    X(TOKEN_INSERT, "INSERT INTO tokens (hash, user_id, created, last_used) "                      \
                    "VALUES ($1, $2, $3, $4)")                                                     \
    X(TOKEN_USE, "UPDATE tokens SET last_used = $2 WHERE hash = $1 AND last_used > $2::bigint - $3::bigint "       \
                 "RETURNING user_id")                                                              \
    X(TOKEN_DELETE, "DELETE FROM tokens WHERE hash = $1")

enum { PG_AREA_FIRST(USERS), USERS_STATEMENTS(PG_STMT_ENUM) ST_USERS__END };
static const pg_stmt_def users_defs[] = {USERS_STATEMENTS(PG_STMT_DEF)};
PG_AREA_CHECK(USERS);
const pg_area_stmts pg_users_stmts = {PG_AREA_USERS, users_defs, PG_AREA_COUNT(USERS)};

static void read_user(const PGresult *r, int i, store_user *u)
{
    u->id = pg_col_int(r, i, 0);
    pg_col_text(r, i, 1, u->username, sizeof u->username);
    u->bot = pg_col_int(r, i, 2) != 0;
    pg_col_text(r, i, 3, u->pwhash, sizeof u->pwhash);
    u->created = pg_col_int(r, i, 4);
}

static int user_one(PGresult *r, int rc, store_user *out)
{
    if (rc)
        return rc;
    read_user(r, 0, out);
    PQclear(r);
    return STORE_OK;
}

static int pg_user_by_name(store *base, const char *name, store_user *out)
{
    PGresult *r;
    int rc = pg_one_row(pg_of(base), ST_USER_BY_NAME, &r, "t", name);
    return user_one(r, rc, out);
}

static int pg_user_by_id(store *base, int64_t id, store_user *out)
{
    PGresult *r;
    int rc = pg_one_row(pg_of(base), ST_USER_BY_ID, &r, "i", id);
    return user_one(r, rc, out);
}

static int pg_user_insert(store *base, const char *name, bool bot, const char *pwhash, int64_t now,
                          int64_t *id)
{
    PGresult *r;
    int rc = pg_one_row(pg_of(base), ST_USER_INSERT, &r, "titi", name, (int64_t)bot, pwhash, now);
    if (rc)
        return rc == STORE_NOTFOUND ? STORE_CONFLICT : rc;
    *id = pg_col_int(r, 0, 0);
    PQclear(r);
    return STORE_OK;
}

typedef struct user_walk {
    store_user_cb cb;
    void *arg;
} user_walk;

static int user_row(const PGresult *r, int i, void *ctx)
{
    user_walk *w = ctx;
    store_user u;
    read_user(r, i, &u);
    return w->cb(w->arg, &u);
}

static int pg_users_list(store *base, int bot, const char *after, int64_t limit, store_user_cb cb,
                         void *arg)
{
    return pg_each(pg_of(base), ST_USERS_LIST, user_row, &(user_walk){cb, arg}, "OTi", (int64_t)bot,
                   after, limit);
}

static int pg_user_pwhash_set(store *base, int64_t user_id, const char *pwhash)
{
    return pg_run_one(pg_of(base), ST_PWHASH_SET, "it", user_id, pwhash);
}

static int pg_token_insert(store *base, const uint8_t hash[STORE_TOKEN_HASH], int64_t user_id,
                           int64_t now)
{
    return pg_run(pg_of(base), ST_TOKEN_INSERT, "hiii", hash, user_id, now, now);
}

static int pg_token_user(store *base, const uint8_t hash[STORE_TOKEN_HASH], int64_t now,
                         int64_t *user_id)
{
    PGresult *r;
    int rc = pg_one_row(pg_of(base), ST_TOKEN_USE, &r, "hii", hash, now, (int64_t)STORE_TOKEN_IDLE_MS);
    if (rc)
        return rc;
    *user_id = pg_col_int(r, 0, 0);
    PQclear(r);
    return STORE_OK;
}

static int pg_token_delete(store *base, const uint8_t hash[STORE_TOKEN_HASH])
{
    return pg_run(pg_of(base), ST_TOKEN_DELETE, "h", hash);
}

const store_users_ops pg_users_ops = {
    .user_by_name = pg_user_by_name,
    .user_by_id = pg_user_by_id,
    .user_insert = pg_user_insert,
    .users_list = pg_users_list,
    .user_pwhash_set = pg_user_pwhash_set,
    .token_insert = pg_token_insert,
    .token_user = pg_token_user,
    .token_delete = pg_token_delete,
};
