/*
 * pg_ratings: the PostgreSQL backend's rating rows (store_ratings.h;
 * schema-pg.sql migration 7): a player's Glicko-2 values per family, the
 * leaderboard, a rated game's ratings at its start and around its counted
 * end. The same queries as sqlite_ratings.c in PostgreSQL's dialect:
 *  - SQLite's INSERT OR REPLACE is an upsert on the primary key
 *    (`ON CONFLICT (...) DO UPDATE SET every column = EXCLUDED`): the
 *    tables have no other column, so the row ends the same;
 *  - `white_before IS NOT NULL` is selected as `(...)::int`, so it reads
 *    0/1 (a boolean would come back as 't'/'f');
 *  - orderings by text name their collation: family `COLLATE "C"` is
 *    SQLite's BINARY (byte order), the board's tie-break
 *    `lower(u.username) COLLATE "C"` is the column's NOCASE (usernames are
 *    ASCII), whatever locale the database was made with.
 * Ratings are DOUBLE PRECISION, which pg_base's bind formats have no
 * letter for: they are bound as text printed with %.17g (every double
 * round-trips through 17 significant digits) and read with strtod() from
 * PostgreSQL's output, which is the shortest exact form while
 * extra_float_digits > 0 (the default, 1, since PostgreSQL 12).
 */
#include "store/pg/pg_areas.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RATINGS_STATEMENTS(X)                                                                      \
    X(RATING_GET, "SELECT user_id, family, rating, rd, volatility, games, last_game FROM ratings " \
                  "WHERE user_id = $1 AND family = $2")                                            \
    X(RATING_PUT,                                                                                  \
      "INSERT INTO ratings (user_id, family, rating, rd, volatility, games, last_game) "           \
      "VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (user_id, family) DO UPDATE SET "           \
      "rating = EXCLUDED.rating, rd = EXCLUDED.rd, volatility = EXCLUDED.volatility, "             \
      "games = EXCLUDED.games, last_game = EXCLUDED.last_game")                                    \
    X(RATINGS_OF, "SELECT user_id, family, rating, rd, volatility, games, last_game FROM ratings " \
                  "WHERE user_id = $1 ORDER BY family COLLATE \"C\"")                              \
    X(RATINGS_BOARD,                                                                               \
      "SELECT r.user_id, r.family, r.rating, r.rd, r.volatility, r.games, r.last_game, "           \
      "u.username, u.bot FROM ratings r JOIN users u ON u.id = r.user_id "                         \
      "WHERE r.family = $1 AND r.rd <= $2 "                                                        \
      "ORDER BY r.rating DESC, r.rd, lower(u.username) COLLATE \"C\"")                             \
    X(GAME_RATING_GET,                                                                             \
      "SELECT white_start, black_start, (white_before IS NOT NULL)::int, "                         \
      "coalesce(white_before, 0), coalesce(white_after, 0), coalesce(black_before, 0), "           \
      "coalesce(black_after, 0) FROM game_ratings WHERE game_id = $1")                             \
    X(GAME_RATING_PUT,                                                                             \
      "INSERT INTO game_ratings (game_id, white_start, black_start, white_before, white_after, "   \
      "black_before, black_after) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (game_id) "      \
      "DO UPDATE SET white_start = EXCLUDED.white_start, black_start = EXCLUDED.black_start, "     \
      "white_before = EXCLUDED.white_before, white_after = EXCLUDED.white_after, "                 \
      "black_before = EXCLUDED.black_before, black_after = EXCLUDED.black_after")

enum { PG_AREA_FIRST(RATINGS), RATINGS_STATEMENTS(PG_STMT_ENUM) ST_RATINGS__END };
static const pg_stmt_def ratings_defs[] = {RATINGS_STATEMENTS(PG_STMT_DEF)};
PG_AREA_CHECK(RATINGS);
const pg_area_stmts pg_ratings_stmts = {PG_AREA_RATINGS, ratings_defs, PG_AREA_COUNT(RATINGS)};

/* A double as a text parameter (bound with 't'). */
typedef struct dtext {
    char s[32];
} dtext;

static dtext dbl(double v)
{
    dtext t;
    snprintf(t.s, sizeof t.s, "%.17g", v);
    return t;
}

/* A DOUBLE PRECISION column; NULL reads as 0, as pg_col_int(). */
static double col_double(const PGresult *r, int row, int col)
{
    return PQgetisnull(r, row, col) ? 0 : strtod(PQgetvalue(r, row, col), NULL);
}

/* The first seven columns of a ratings select, row i, into *out. */
static void read_rating(const PGresult *r, int i, store_rating *out)
{
    memset(out, 0, sizeof *out);
    out->user_id = pg_col_int(r, i, 0);
    pg_col_text(r, i, 1, out->family, sizeof out->family);
    out->rating = col_double(r, i, 2);
    out->rd = col_double(r, i, 3);
    out->volatility = col_double(r, i, 4);
    out->games = pg_col_int(r, i, 5);
    out->last_game = pg_col_int(r, i, 6);
}

static int pg_rating_get(store *base, int64_t user_id, const char *family, store_rating *out)
{
    PGresult *r;
    int rc = pg_one_row(pg_of(base), ST_RATING_GET, &r, "it", user_id, family);
    if (rc)
        return rc;
    read_rating(r, 0, out);
    PQclear(r);
    return STORE_OK;
}

static int pg_rating_put(store *base, const store_rating *r)
{
    dtext rating = dbl(r->rating), rd = dbl(r->rd), vol = dbl(r->volatility);
    return pg_run(pg_of(base), ST_RATING_PUT, "ittttii", r->user_id, r->family, rating.s, rd.s,
                  vol.s, r->games, r->last_game);
}

typedef struct rating_walk {
    store_rating_cb cb;
    void *arg;
    bool with_user; /* columns 7 and 8 are the username and bot flag */
} rating_walk;

static int rating_row(const PGresult *res, int i, void *ctx)
{
    rating_walk *w = ctx;
    store_rating r;
    read_rating(res, i, &r);
    if (w->with_user) {
        pg_col_text(res, i, 7, r.username, sizeof r.username);
        r.bot = pg_col_int(res, i, 8) != 0;
    }
    return w->cb(w->arg, &r);
}

static int pg_ratings_of(store *base, int64_t user_id, store_rating_cb cb, void *arg)
{
    return pg_each(pg_of(base), ST_RATINGS_OF, rating_row, &(rating_walk){cb, arg, false}, "i",
                   user_id);
}

static int pg_ratings_board(store *base, const char *family, double max_rd, store_rating_cb cb,
                            void *arg)
{
    dtext rd = dbl(max_rd);
    return pg_each(pg_of(base), ST_RATINGS_BOARD, rating_row, &(rating_walk){cb, arg, true}, "tt",
                   family, rd.s);
}

static int pg_game_rating_get(store *base, int64_t game_id, store_game_rating *out)
{
    PGresult *r;
    int rc = pg_one_row(pg_of(base), ST_GAME_RATING_GET, &r, "i", game_id);
    if (rc)
        return rc;
    out->game_id = game_id;
    out->white_start = col_double(r, 0, 0);
    out->black_start = col_double(r, 0, 1);
    out->ended = pg_col_int(r, 0, 2) != 0;
    out->white_before = col_double(r, 0, 3);
    out->white_after = col_double(r, 0, 4);
    out->black_before = col_double(r, 0, 5);
    out->black_after = col_double(r, 0, 6);
    PQclear(r);
    return STORE_OK;
}

static int pg_game_rating_put(store *base, const store_game_rating *gr)
{
    dtext ws = dbl(gr->white_start), bs = dbl(gr->black_start);
    dtext wb = dbl(gr->white_before), wa = dbl(gr->white_after);
    dtext bb = dbl(gr->black_before), ba = dbl(gr->black_after);
    /* Before the end counted, before/after stay NULL. */
    bool e = gr->ended;
    return pg_run(pg_of(base), ST_GAME_RATING_PUT, "itttttt", gr->game_id, ws.s, bs.s,
                  e ? wb.s : NULL, e ? wa.s : NULL, e ? bb.s : NULL, e ? ba.s : NULL);
}

const store_ratings_ops pg_ratings_ops = {
    .rating_get = pg_rating_get,
    .rating_put = pg_rating_put,
    .ratings_of = pg_ratings_of,
    .ratings_board = pg_ratings_board,
    .game_rating_get = pg_game_rating_get,
    .game_rating_put = pg_game_rating_put,
};
