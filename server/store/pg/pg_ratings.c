/*
 * pg_ratings: the PostgreSQL backend's rating rows (store_ratings.h, as
 * sqlite_ratings.c): a player's Glicko-2 values per family, the
 * leaderboard, a rated game's ratings at its start and around its end.
 * Ratings are DOUBLE PRECISION (schema-pg.sql), bound as 17 significant
 * digits ('d', pg_base.h) so they read back exactly; SQLite's INSERT OR
 * REPLACE is an upsert on the primary key here; the board's tie-break on
 * the name is lower(username), as SQLite's NOCASE column orders it.
 */
#include "store/pg/pg_areas.h"

#include <string.h>

#define RATING_COLS "user_id, family, rating, rd, volatility, games, last_game"
#define RATINGS_STATEMENTS(X)                                                                      \
    X(RATING_GET, "SELECT " RATING_COLS " FROM ratings WHERE user_id = $1 AND family = $2")        \
    X(RATING_PUT, "INSERT INTO ratings (" RATING_COLS ") VALUES ($1, $2, $3, $4, $5, $6, $7) "     \
                  "ON CONFLICT (user_id, family) DO UPDATE SET rating = EXCLUDED.rating, "         \
                  "rd = EXCLUDED.rd, volatility = EXCLUDED.volatility, games = EXCLUDED.games, "   \
                  "last_game = EXCLUDED.last_game")                                                \
    X(RATINGS_OF, "SELECT " RATING_COLS " FROM ratings WHERE user_id = $1 ORDER BY family")        \
    X(RATINGS_BOARD,                                                                               \
      "SELECT r.user_id, r.family, r.rating, r.rd, r.volatility, r.games, r.last_game, "           \
      "u.username, u.bot FROM ratings r JOIN users u ON u.id = r.user_id "                         \
      "WHERE r.family = $1 AND r.rd <= $2 ORDER BY r.rating DESC, r.rd, lower(u.username)")        \
    X(GAME_RATING_GET,                                                                             \
      "SELECT white_start, black_start, (white_before IS NOT NULL)::int, "                         \
      "coalesce(white_before, 0), coalesce(white_after, 0), coalesce(black_before, 0), "           \
      "coalesce(black_after, 0) FROM game_ratings WHERE game_id = $1")                             \
    X(GAME_RATING_PUT,                                                                             \
      "INSERT INTO game_ratings (game_id, white_start, black_start, white_before, white_after, "   \
      "black_before, black_after) VALUES ($1, $2, $3, $4::double precision, "                      \
      "$5::double precision, $6::double precision, $7::double precision) "                         \
      "ON CONFLICT (game_id) DO UPDATE SET white_start = EXCLUDED.white_start, "                   \
      "black_start = EXCLUDED.black_start, white_before = EXCLUDED.white_before, "                 \
      "white_after = EXCLUDED.white_after, black_before = EXCLUDED.black_before, "                 \
      "black_after = EXCLUDED.black_after")

enum { PG_AREA_FIRST(RATINGS), RATINGS_STATEMENTS(PG_STMT_ENUM) ST_RATINGS__END };
static const pg_stmt_def ratings_defs[] = {RATINGS_STATEMENTS(PG_STMT_DEF)};
PG_AREA_CHECK(RATINGS);
const pg_area_stmts pg_ratings_stmts = {PG_AREA_RATINGS, ratings_defs, PG_AREA_COUNT(RATINGS)};

/* The first seven columns of a ratings select, row i, into *out. */
static void read_rating(const PGresult *r, int i, store_rating *out)
{
    memset(out, 0, sizeof *out);
    out->user_id = pg_col_int(r, i, 0);
    pg_col_text(r, i, 1, out->family, sizeof out->family);
    out->rating = pg_col_double(r, i, 2);
    out->rd = pg_col_double(r, i, 3);
    out->volatility = pg_col_double(r, i, 4);
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
    return pg_run(pg_of(base), ST_RATING_PUT, "itdddii", r->user_id, r->family, r->rating, r->rd,
                  r->volatility, r->games, r->last_game);
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
    return pg_each(pg_of(base), ST_RATINGS_BOARD, rating_row, &(rating_walk){cb, arg, true}, "td",
                   family, max_rd);
}

static int pg_game_rating_get(store *base, int64_t game_id, store_game_rating *out)
{
    PGresult *r;
    int rc = pg_one_row(pg_of(base), ST_GAME_RATING_GET, &r, "i", game_id);
    if (rc)
        return rc;
    out->game_id = game_id;
    out->white_start = pg_col_double(r, 0, 0);
    out->black_start = pg_col_double(r, 0, 1);
    out->ended = pg_col_int(r, 0, 2) != 0;
    out->white_before = pg_col_double(r, 0, 3);
    out->white_after = pg_col_double(r, 0, 4);
    out->black_before = pg_col_double(r, 0, 5);
    out->black_after = pg_col_double(r, 0, 6);
    PQclear(r);
    return STORE_OK;
}

static int pg_game_rating_put(store *base, const store_game_rating *gr)
{
    pg_store *s = pg_of(base);
    /* Before the end counted, before/after stay NULL. */
    if (!gr->ended)
        return pg_run(s, ST_GAME_RATING_PUT, "iddtttt", gr->game_id, gr->white_start,
                      gr->black_start, (const char *)NULL, (const char *)NULL, (const char *)NULL,
                      (const char *)NULL);
    return pg_run(s, ST_GAME_RATING_PUT, "idddddd", gr->game_id, gr->white_start,
                  gr->black_start, gr->white_before, gr->white_after, gr->black_before,
                  gr->black_after);
}

const store_ratings_ops pg_ratings_ops = {
    .rating_get = pg_rating_get,
    .rating_put = pg_rating_put,
    .ratings_of = pg_ratings_of,
    .ratings_board = pg_ratings_board,
    .game_rating_get = pg_game_rating_get,
    .game_rating_put = pg_game_rating_put,
};
