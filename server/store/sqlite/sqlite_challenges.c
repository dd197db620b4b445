/*
 * sqlite_challenges: the SQLite backend's challenges and open seeks
 * (store_challenges.h): the row with both accounts' names and bot flags
 * (CHALLENGE_SELECT), the lobby's listings, the options a challenge
 * carries (vacation, private: migration 2; rating range: migration 7),
 * expiry (migration 5) and the counts of the challenge limits. Same
 * pattern as every area: bind, step, read the promised columns, reset.
 */
#include "store/sqlite/sqlite_areas.h"

#include <stdio.h>
#include <string.h>

#define CHALLENGE_SELECT                                                                           \
    "SELECT c.id, c.from_user, coalesce(c.to_user, 0), f.username, coalesce(t.username, ''), "     \
    "c.variant, c.color, c.time_control, coalesce(c.position, ''), c.status, "                     \
    "coalesce(c.decline_reason, ''), coalesce(c.game_id, 0), c.created, c.updated, c.rated, "      \
    "f.bot, coalesce(t.bot, 0), c.vacation, c.private, "                                           \
    "CASE WHEN coalesce(f.vacation_start, -1) >= 0 THEN coalesce(f.vacation_until, -1) ELSE -1 "   \
    "END, "                                                                                        \
    "CASE WHEN coalesce(t.vacation_start, -1) >= 0 THEN coalesce(t.vacation_until, -1) ELSE -1 "   \
    "END "                                                                                         \
    "FROM challenges c JOIN users f ON f.id = c.from_user LEFT JOIN users t ON t.id = c.to_user "

#define CHALLENGES_STATEMENTS(X)                                                                   \
    X(CHALLENGE_INSERT,                                                                            \
      "INSERT INTO challenges (from_user, to_user, variant, color, time_control, position, "       \
      "status, created, updated, rated) VALUES (?, ?, ?, ?, ?, ?, 'open', ?, ?, ?)")               \
    X(CHALLENGE_GET, CHALLENGE_SELECT "WHERE c.id = ?")                                            \
    X(CHALLENGE_CLOSE,                                                                             \
      "UPDATE challenges SET status = ?2, decline_reason = ?3, game_id = ?4, updated = ?5 "        \
      "WHERE id = ?1 AND status = 'open'")                                                         \
    X(CHALLENGES_FOR,                                                                              \
      CHALLENGE_SELECT "WHERE c.status = 'open' AND (c.from_user = ?1 OR c.to_user = ?1 OR "       \
                       "c.id IN (SELECT id FROM challenges WHERE status = 'open' AND "             \
                       "to_user IS NULL AND from_user <> ?1 ORDER BY id LIMIT ?2)) "               \
                       "ORDER BY c.id")                                                            \
    X(CHALLENGES_OPEN_FROM,                                                                        \
      "SELECT count(*) FROM challenges WHERE from_user = ? AND status = 'open'")                   \
    X(CX_PUT, "UPDATE challenges SET vacation = ?2, private = ?3 WHERE id = ?1")                   \
    X(CX_GET, "SELECT vacation, private FROM challenges WHERE id = ?")                             \
    X(CH_EXPIRING,                                                                                 \
      "SELECT id FROM challenges WHERE status = 'open' AND ((to_user IS NOT NULL AND "             \
      "created < ?1) OR (to_user IS NULL AND created < ?2)) ORDER BY created, id LIMIT ?3")        \
    X(CRANGE_PUT, "UPDATE challenges SET rating_min = ?2, rating_max = ?3 WHERE id = ?1")          \
    X(CRANGE_GET,                                                                                  \
      "SELECT coalesce(rating_min, -1), coalesce(rating_max, -1) FROM challenges WHERE id = ?")    \
    X(CHALLENGES_SINCE,                                                                            \
      "SELECT count(*), coalesce(min(created), 0) FROM challenges WHERE from_user = ?1 AND "       \
      "created >= ?2")                                                                             \
    X(SEEKS_PAGE,                                                                                  \
      CHALLENGE_SELECT "WHERE c.status = 'open' AND c.to_user IS NULL AND c.from_user <> ?1 "      \
                       "AND c.id > ?2 ORDER BY c.id LIMIT ?3")

enum { SQ_AREA_FIRST(CHALLENGES), CHALLENGES_STATEMENTS(SQ_STMT_ENUM) ST_CHALLENGES__END };
static const sq_stmt_def challenges_defs[] = {CHALLENGES_STATEMENTS(SQ_STMT_DEF)};
SQ_AREA_CHECK(CHALLENGES);
const sq_area_stmts sq_challenges_stmts = {SQ_AREA_CHALLENGES, challenges_defs,
                                           SQ_AREA_COUNT(CHALLENGES)};

/* A CHALLENGE_SELECT row of st into *c. */
static void read_challenge(sqlite3_stmt *st, store_challenge *c)
{
    c->id = sqlite3_column_int64(st, 0);
    c->from_id = sqlite3_column_int64(st, 1);
    c->to_id = sqlite3_column_int64(st, 2);
    sq_col_text(st, 3, c->from, sizeof c->from);
    sq_col_text(st, 4, c->to, sizeof c->to);
    sq_col_text(st, 5, c->variant, sizeof c->variant);
    sq_col_text(st, 6, c->color, sizeof c->color);
    sq_col_text(st, 7, c->time_control, sizeof c->time_control);
    sq_col_text(st, 8, c->position, sizeof c->position);
    sq_col_text(st, 9, c->status, sizeof c->status);
    sq_col_text(st, 10, c->decline_reason, sizeof c->decline_reason);
    c->game_id = sqlite3_column_int64(st, 11);
    c->created = sqlite3_column_int64(st, 12);
    c->updated = sqlite3_column_int64(st, 13);
    c->rated = sqlite3_column_int(st, 14) != 0;
    c->from_bot = sqlite3_column_int(st, 15) != 0;
    c->to_bot = sqlite3_column_int(st, 16) != 0;
    c->vacation = sqlite3_column_int(st, 17) != 0;
    c->priv = sqlite3_column_int(st, 18) != 0;
    c->from_vacation_until = sqlite3_column_int64(st, 19);
    c->to_vacation_until = sqlite3_column_int64(st, 20);
}

typedef struct challenge_walk {
    store_challenge_cb cb;
    void *arg;
} challenge_walk;

static int challenge_row(sqlite3_stmt *st, void *ctx)
{
    challenge_walk *w = ctx;
    store_challenge c;
    read_challenge(st, &c);
    return w->cb(w->arg, &c);
}

static int sq_challenge_insert(store *base, store_challenge *c, int64_t now)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_CHALLENGE_INSERT, "iotttTiii", c->from_id, c->to_id, c->variant,
                     c->color, c->time_control, c->position, now, now, (int64_t)c->rated);
    if (rc || (rc = sq_run(s, ST_CHALLENGE_INSERT)))
        return rc;
    c->id = sqlite3_last_insert_rowid(s->db);
    snprintf(c->status, sizeof c->status, "open");
    c->decline_reason[0] = '\0';
    c->game_id = 0;
    c->created = c->updated = now;
    return STORE_OK;
}

static int sq_challenge_get(store *base, int64_t id, store_challenge *out)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_CHALLENGE_GET, "i", id);
    if (rc || (rc = sq_one_row(s, ST_CHALLENGE_GET)))
        return rc;
    read_challenge(s->st[ST_CHALLENGE_GET], out);
    (void)sqlite3_reset(s->st[ST_CHALLENGE_GET]);
    return STORE_OK;
}

static int sq_challenge_close(store *base, int64_t id, const char *status, const char *reason,
                              int64_t game_id, int64_t now)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_CHALLENGE_CLOSE, "ittoi", id, status, reason, game_id, now);
    if (rc || (rc = sq_run(s, ST_CHALLENGE_CLOSE)))
        return rc;
    return sqlite3_changes(s->db) == 1 ? STORE_OK : STORE_CONFLICT;
}

static int sq_challenges_for(store *base, int64_t user_id, store_challenge_cb cb, void *arg)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_CHALLENGES_FOR, "ii", user_id, (int64_t)STORE_SEEKS_PAGE);
    return rc ? rc : sq_each(s, ST_CHALLENGES_FOR, challenge_row, &(challenge_walk){cb, arg});
}

static int sq_challenges_open_from(store *base, int64_t user_id, int64_t *n)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_CHALLENGES_OPEN_FROM, "i", user_id);
    if (rc)
        return rc;
    sqlite3_stmt *st = s->st[ST_CHALLENGES_OPEN_FROM];
    rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        (void)sqlite3_reset(st);
        return sq_fail(s, ST_CHALLENGES_OPEN_FROM, rc);
    }
    *n = sqlite3_column_int64(st, 0);
    (void)sqlite3_reset(st);
    return STORE_OK;
}

static int sq_challenge_x_put(store *base, int64_t id, bool vacation, bool priv)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_CX_PUT, "iii", id, (int64_t)vacation, (int64_t)priv);
    return rc ? rc : sq_run(s, ST_CX_PUT);
}

static int sq_challenge_x_get(store *base, int64_t id, bool *vacation, bool *priv)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_CX_GET, "i", id);
    if (rc || (rc = sq_one_row(s, ST_CX_GET)))
        return rc;
    *vacation = sqlite3_column_int(s->st[ST_CX_GET], 0) != 0;
    *priv = sqlite3_column_int(s->st[ST_CX_GET], 1) != 0;
    (void)sqlite3_reset(s->st[ST_CX_GET]);
    return STORE_OK;
}

static int sq_challenges_expiring(store *base, int64_t direct_before, int64_t seek_before,
                                  int64_t *ids, int max, int *n)
{
    sq_store *s = sq_of(base);
    *n = 0;
    int rc = sq_bind(s, ST_CH_EXPIRING, "iii", direct_before, seek_before, (int64_t)max);
    if (rc)
        return rc;
    rc = sq_each(s, ST_CH_EXPIRING, sq_row_id, &(sq_ids){ids, max, n});
    return rc > 0 ? STORE_OK : rc;
}

static int sq_challenge_range_put(store *base, int64_t id, int64_t min, int64_t max)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_CRANGE_PUT, "iOO", id, min, max);
    return rc ? rc : sq_run(s, ST_CRANGE_PUT);
}

static int sq_challenge_range_get(store *base, int64_t id, int64_t *min, int64_t *max)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_CRANGE_GET, "i", id);
    if (rc || (rc = sq_one_row(s, ST_CRANGE_GET)))
        return rc;
    *min = sqlite3_column_int64(s->st[ST_CRANGE_GET], 0);
    *max = sqlite3_column_int64(s->st[ST_CRANGE_GET], 1);
    (void)sqlite3_reset(s->st[ST_CRANGE_GET]);
    return STORE_OK;
}

static int sq_challenges_since(store *base, int64_t user_id, int64_t since, int64_t *n,
                               int64_t *oldest)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_CHALLENGES_SINCE, "ii", user_id, since);
    if (rc || (rc = sq_one_row(s, ST_CHALLENGES_SINCE)))
        return rc;
    *n = sqlite3_column_int64(s->st[ST_CHALLENGES_SINCE], 0);
    *oldest = sqlite3_column_int64(s->st[ST_CHALLENGES_SINCE], 1);
    (void)sqlite3_reset(s->st[ST_CHALLENGES_SINCE]);
    return STORE_OK;
}

/* SQLite answers from the page cache, so the three reads stay three. */
static int sq_challenge_checks(store *base, int64_t user_id, int64_t since, const char *to_name,
                               store_challenge_facts *out)
{
    memset(out, 0, sizeof *out);
    int rc =
        since > 0 ? sq_challenges_since(base, user_id, since, &out->made, &out->oldest) : STORE_OK;
    if (rc == STORE_OK)
        rc = sq_challenges_open_from(base, user_id, &out->open);
    if (rc == STORE_OK && to_name) {
        rc = store_user_by_name(base, to_name, &out->to);
        out->to_found = rc == STORE_OK;
        out->to.pwhash[0] = '\0';
        if (rc == STORE_NOTFOUND)
            rc = STORE_OK;
    }
    return rc;
}

static int sq_seeks_page(store *base, int64_t user_id, int64_t after, int64_t limit,
                         store_challenge_cb cb, void *arg)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_SEEKS_PAGE, "iii", user_id, after, limit);
    return rc ? rc : sq_each(s, ST_SEEKS_PAGE, challenge_row, &(challenge_walk){cb, arg});
}

const store_challenges_ops sq_challenges_ops = {
    .challenge_insert = sq_challenge_insert,
    .challenge_get = sq_challenge_get,
    .challenge_close = sq_challenge_close,
    .challenges_for = sq_challenges_for,
    .challenges_open_from = sq_challenges_open_from,
    .challenge_x_put = sq_challenge_x_put,
    .challenge_x_get = sq_challenge_x_get,
    .challenges_expiring = sq_challenges_expiring,
    .challenge_range_put = sq_challenge_range_put,
    .challenge_range_get = sq_challenge_range_get,
    .challenges_since = sq_challenges_since,
    .challenge_checks = sq_challenge_checks,
    .seeks_page = sq_seeks_page,
};
