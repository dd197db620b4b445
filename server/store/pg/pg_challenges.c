/*
 * pg_challenges: the PostgreSQL backend's challenges and open seeks
 * (store_challenges.h). The same queries as sqlite_challenges.c in
 * PostgreSQL's dialect:
 *  - the new row's id comes back with `RETURNING id` (SQLite:
 *    last_insert_rowid);
 *  - closing a challenge that is no longer open changes no row:
 *    pg_run_conflict() answers STORE_CONFLICT, as sqlite3_changes() != 1;
 *  - the 0/1 flags (rated, bot, vacation, private) are SMALLINT
 *    (schema-pg.sql) and read back as 0/1 text; `coalesce(t.bot, 0)` is an
 *    integer for a seek (no opponent);
 *  - the options' and range's puts on an absent id are plain UPDATEs of no
 *    row (pg_run): not an error, as on SQLite.
 * No parameter is used only in an IS NULL test here, so none needs a cast.
 */
#include "store/pg/pg_areas.h"

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

#define CHALLENGE_CLOSE_SQL                                                                        \
    "UPDATE challenges SET status = $2, decline_reason = $3, game_id = $4, updated = $5 "          \
    "WHERE id = $1 AND status = 'open'"

#define CHALLENGES_STATEMENTS(X)                                                                   \
    X(CHALLENGE_INSERT,                                                                            \
      "INSERT INTO challenges (from_user, to_user, variant, color, time_control, position, "       \
      "status, created, updated, rated) VALUES ($1, $2, $3, $4, $5, $6, 'open', $7, $8, $9) "      \
      "RETURNING id")                                                                              \
    /* CHALLENGE_INSERT with the id taken ahead (pg_next_id()), unwaited. */                       \
    X(CHALLENGE_INSERT_ID,                                                                         \
      "INSERT INTO challenges (id, from_user, to_user, variant, color, time_control, position, "   \
      "status, created, updated, rated) VALUES ($1, $2, $3, $4, $5, $6, $7, 'open', $8, $9, $10)") \
    X(CHALLENGE_IDS, "SELECT nextval(pg_get_serial_sequence('challenges', 'id')) "                 \
                     "FROM generate_series(1, $1::int)")                                           \
    X(CHALLENGE_GET, CHALLENGE_SELECT "WHERE c.id = $1")                                           \
    X(CHALLENGE_CLOSE, CHALLENGE_CLOSE_SQL)                                                        \
    X(CHALLENGE_CLOSE_X, PG_ONE_ROW_OR_FAIL(CHALLENGE_CLOSE_SQL))                                  \
    X(CHALLENGES_FOR,                                                                              \
      CHALLENGE_SELECT "WHERE c.status = 'open' AND (c.from_user = $1 OR c.to_user = $1 OR "       \
                       "c.id IN (SELECT id FROM challenges WHERE status = 'open' AND "             \
                       "to_user IS NULL AND from_user <> $1 ORDER BY id LIMIT $2)) "               \
                       "ORDER BY c.id")                                                            \
    X(CHALLENGES_OPEN_FROM,                                                                        \
      "SELECT count(*) FROM challenges WHERE from_user = $1 AND status = 'open'")                  \
    X(CX_PUT, "UPDATE challenges SET vacation = $2, private = $3 WHERE id = $1")                   \
    X(CX_GET, "SELECT vacation, private FROM challenges WHERE id = $1")                            \
    X(CH_EXPIRING,                                                                                 \
      "SELECT id FROM challenges WHERE status = 'open' AND ((to_user IS NOT NULL AND "             \
      "created < $1) OR (to_user IS NULL AND created < $2)) ORDER BY created, id LIMIT $3")        \
    X(CRANGE_PUT, "UPDATE challenges SET rating_min = $2, rating_max = $3 WHERE id = $1")          \
    X(CRANGE_GET,                                                                                  \
      "SELECT coalesce(rating_min, -1), coalesce(rating_max, -1) FROM challenges WHERE id = $1")   \
    X(CHALLENGES_SINCE,                                                                            \
      "SELECT count(*), coalesce(min(created), 0) FROM challenges WHERE from_user = $1 AND "       \
      "created >= $2")                                                                             \
    /* A NULL $2 counts no rate; a NULL $3 finds no target. */                                     \
    X(CHALLENGE_CHECKS,                                                                            \
      "SELECT (SELECT count(*) FROM challenges WHERE from_user = $1 AND status = 'open'), "        \
      "w.n, w.oldest, u.id, u.username, u.bot, u.created FROM (SELECT count(*) AS n, "             \
      "coalesce(min(created), 0) AS oldest FROM challenges WHERE $2::bigint IS NOT NULL AND "      \
      "from_user = $1 AND created >= $2) w "                                                       \
      "LEFT JOIN users u ON lower(u.username) = lower($3::text)")                                  \
    X(SEEKS_PAGE,                                                                                  \
      CHALLENGE_SELECT "WHERE c.status = 'open' AND c.to_user IS NULL AND c.from_user <> $1 "      \
                       "AND c.id > $2 ORDER BY c.id LIMIT $3")

enum { PG_AREA_FIRST(CHALLENGES), CHALLENGES_STATEMENTS(PG_STMT_ENUM) ST_CHALLENGES__END };
static const pg_stmt_def challenges_defs[] = {CHALLENGES_STATEMENTS(PG_STMT_DEF)};
PG_AREA_CHECK(CHALLENGES);
const pg_area_stmts pg_challenges_stmts = {PG_AREA_CHALLENGES, challenges_defs,
                                           PG_AREA_COUNT(CHALLENGES)};

/* A CHALLENGE_SELECT row i of r into *c. */
static void read_challenge(const PGresult *r, int i, store_challenge *c)
{
    c->id = pg_col_int(r, i, 0);
    c->from_id = pg_col_int(r, i, 1);
    c->to_id = pg_col_int(r, i, 2);
    pg_col_text(r, i, 3, c->from, sizeof c->from);
    pg_col_text(r, i, 4, c->to, sizeof c->to);
    pg_col_text(r, i, 5, c->variant, sizeof c->variant);
    pg_col_text(r, i, 6, c->color, sizeof c->color);
    pg_col_text(r, i, 7, c->time_control, sizeof c->time_control);
    pg_col_text(r, i, 8, c->position, sizeof c->position);
    pg_col_text(r, i, 9, c->status, sizeof c->status);
    pg_col_text(r, i, 10, c->decline_reason, sizeof c->decline_reason);
    c->game_id = pg_col_int(r, i, 11);
    c->created = pg_col_int(r, i, 12);
    c->updated = pg_col_int(r, i, 13);
    c->rated = pg_col_int(r, i, 14) != 0;
    c->from_bot = pg_col_int(r, i, 15) != 0;
    c->to_bot = pg_col_int(r, i, 16) != 0;
    c->vacation = pg_col_int(r, i, 17) != 0;
    c->priv = pg_col_int(r, i, 18) != 0;
    c->from_vacation_until = pg_col_int(r, i, 19);
    c->to_vacation_until = pg_col_int(r, i, 20);
}

typedef struct challenge_walk {
    store_challenge_cb cb;
    void *arg;
} challenge_walk;

static int challenge_row(const PGresult *r, int i, void *ctx)
{
    challenge_walk *w = ctx;
    store_challenge c;
    read_challenge(r, i, &c);
    return w->cb(w->arg, &c);
}

static int pg_challenge_insert(store *base, store_challenge *c, int64_t now)
{
    pg_store *s = pg_of(base);
    if (pg_alone_in_batch(s)) {
        int64_t id;
        if (pg_next_id(s, ST_CHALLENGE_IDS, PG_IDS_CHALLENGES, &id) != STORE_OK ||
            pg_send(s, ST_CHALLENGE_INSERT_ID, "iiotttTiii", id, c->from_id, c->to_id, c->variant,
                    c->color, c->time_control, c->position, now, now,
                    (int64_t)c->rated) != STORE_OK)
            return STORE_EIO;
        c->id = id;
    } else {
        PGresult *r;
        int rc =
            pg_one_row(s, ST_CHALLENGE_INSERT, &r, "iotttTiii", c->from_id, c->to_id, c->variant,
                       c->color, c->time_control, c->position, now, now, (int64_t)c->rated);
        if (rc)
            return rc == STORE_NOTFOUND ? STORE_EIO : rc; /* RETURNING always has the row */
        c->id = pg_col_int(r, 0, 0);
        PQclear(r);
    }
    snprintf(c->status, sizeof c->status, "open");
    c->decline_reason[0] = '\0';
    c->game_id = 0;
    c->created = c->updated = now;
    return STORE_OK;
}

static int pg_challenge_get(store *base, int64_t id, store_challenge *out)
{
    PGresult *r;
    int rc = pg_one_row(pg_of(base), ST_CHALLENGE_GET, &r, "i", id);
    if (rc)
        return rc;
    read_challenge(r, 0, out);
    PQclear(r);
    return STORE_OK;
}

static int pg_challenge_close(store *base, int64_t id, const char *status, const char *reason,
                              int64_t game_id, int64_t now)
{
    pg_store *s = pg_of(base);
    if (pg_alone_in_batch(s))
        return pg_send(s, ST_CHALLENGE_CLOSE_X, "ittoi", id, status, reason, game_id, now);
    return pg_run_conflict(s, ST_CHALLENGE_CLOSE, "ittoi", id, status, reason, game_id, now);
}

static int pg_challenges_for(store *base, int64_t user_id, store_challenge_cb cb, void *arg)
{
    return pg_each(pg_of(base), ST_CHALLENGES_FOR, challenge_row, &(challenge_walk){cb, arg}, "ii",
                   user_id, (int64_t)STORE_SEEKS_PAGE);
}

static int pg_challenges_open_from(store *base, int64_t user_id, int64_t *n)
{
    PGresult *r;
    int rc = pg_one_row(pg_of(base), ST_CHALLENGES_OPEN_FROM, &r, "i", user_id);
    if (rc)
        return rc == STORE_NOTFOUND ? STORE_EIO : rc; /* count(*) always has its row */
    *n = pg_col_int(r, 0, 0);
    PQclear(r);
    return STORE_OK;
}

static int pg_challenge_x_put(store *base, int64_t id, bool vacation, bool priv)
{
    return pg_run(pg_of(base), ST_CX_PUT, "iii", id, (int64_t)vacation, (int64_t)priv);
}

static int pg_challenge_x_get(store *base, int64_t id, bool *vacation, bool *priv)
{
    PGresult *r;
    int rc = pg_one_row(pg_of(base), ST_CX_GET, &r, "i", id);
    if (rc)
        return rc;
    *vacation = pg_col_int(r, 0, 0) != 0;
    *priv = pg_col_int(r, 0, 1) != 0;
    PQclear(r);
    return STORE_OK;
}

static int pg_challenges_expiring(store *base, int64_t direct_before, int64_t seek_before,
                                  int64_t *ids, int max, int *n)
{
    *n = 0;
    int rc = pg_each(pg_of(base), ST_CH_EXPIRING, pg_row_id, &(pg_ids){ids, max, n}, "iii",
                     direct_before, seek_before, (int64_t)max);
    return rc > 0 ? STORE_OK : rc;
}

static int pg_challenge_range_put(store *base, int64_t id, int64_t min, int64_t max)
{
    return pg_run(pg_of(base), ST_CRANGE_PUT, "iOO", id, min, max);
}

static int pg_challenge_range_get(store *base, int64_t id, int64_t *min, int64_t *max)
{
    PGresult *r;
    int rc = pg_one_row(pg_of(base), ST_CRANGE_GET, &r, "i", id);
    if (rc)
        return rc;
    *min = pg_col_int(r, 0, 0);
    *max = pg_col_int(r, 0, 1);
    PQclear(r);
    return STORE_OK;
}

static int pg_challenges_since(store *base, int64_t user_id, int64_t since, int64_t *n,
                               int64_t *oldest)
{
    PGresult *r;
    int rc = pg_one_row(pg_of(base), ST_CHALLENGES_SINCE, &r, "ii", user_id, since);
    if (rc)
        return rc;
    *n = pg_col_int(r, 0, 0);
    *oldest = pg_col_int(r, 0, 1);
    PQclear(r);
    return STORE_OK;
}

static int pg_challenge_checks(store *base, int64_t user_id, int64_t since, const char *to_name,
                               store_challenge_facts *out)
{
    PGresult *r;
    memset(out, 0, sizeof *out);
    int rc = pg_one_row(pg_of(base), ST_CHALLENGE_CHECKS, &r, "iot", user_id, since, to_name);
    if (rc)
        return rc == STORE_NOTFOUND ? STORE_EIO : rc; /* the counts always make a row */
    out->open = pg_col_int(r, 0, 0);
    out->made = pg_col_int(r, 0, 1);
    out->oldest = pg_col_int(r, 0, 2);
    out->to_found = !pg_col_null(r, 0, 3);
    if (out->to_found) {
        out->to.id = pg_col_int(r, 0, 3);
        pg_col_text(r, 0, 4, out->to.username, sizeof out->to.username);
        out->to.bot = pg_col_int(r, 0, 5) != 0;
        out->to.created = pg_col_int(r, 0, 6);
    }
    PQclear(r);
    return STORE_OK;
}

static int pg_seeks_page(store *base, int64_t user_id, int64_t after, int64_t limit,
                         store_challenge_cb cb, void *arg)
{
    return pg_each(pg_of(base), ST_SEEKS_PAGE, challenge_row, &(challenge_walk){cb, arg}, "iii",
                   user_id, after, limit);
}

const store_challenges_ops pg_challenges_ops = {
    .challenge_insert = pg_challenge_insert,
    .challenge_get = pg_challenge_get,
    .challenge_close = pg_challenge_close,
    .challenges_for = pg_challenges_for,
    .challenges_open_from = pg_challenges_open_from,
    .challenge_x_put = pg_challenge_x_put,
    .challenge_x_get = pg_challenge_x_get,
    .challenges_expiring = pg_challenges_expiring,
    .challenge_range_put = pg_challenge_range_put,
    .challenge_range_get = pg_challenge_range_get,
    .challenges_since = pg_challenges_since,
    .challenge_checks = pg_challenge_checks,
    .seeks_page = pg_seeks_page,
};
