/*
 * sqlite_ratings: the SQLite backend's rating rows (store_ratings.h; issue
 * 12, schema migration 7): a player's Glicko-2 values per family, the
 * leaderboard, a rated game's ratings at its start and around its counted
 * end. Same pattern as every area, with one difference: ratings are REAL,
 * which sq_bind() has no letter for, so the doubles are bound here with
 * sqlite3_bind_double() after sq_bind() has bound the rest.
 */
#include "store/sqlite/sqlite_areas.h"

#include <stdio.h>
#include <string.h>

#define RATINGS_STATEMENTS(X)                                                                      \
    X(RATING_GET, "SELECT user_id, family, rating, rd, volatility, games, last_game FROM ratings " \
                  "WHERE user_id = ? AND family = ?")                                              \
    X(RATING_PUT,                                                                                  \
      "INSERT OR REPLACE INTO ratings (user_id, family, rating, rd, volatility, games, "           \
      "last_game) VALUES (?, ?, ?, ?, ?, ?, ?)")                                                   \
    X(RATINGS_OF, "SELECT user_id, family, rating, rd, volatility, games, last_game FROM ratings " \
                  "WHERE user_id = ? ORDER BY family")                                             \
    X(RATINGS_BOARD,                                                                               \
      "SELECT r.user_id, r.family, r.rating, r.rd, r.volatility, r.games, r.last_game, "           \
      "u.username, u.bot FROM ratings r JOIN users u ON u.id = r.user_id "                         \
      "WHERE r.family = ?1 AND r.rd <= ?2 ORDER BY r.rating DESC, r.rd, u.username")               \
    X(GAME_RATING_GET,                                                                             \
      "SELECT white_start, black_start, white_before IS NOT NULL, coalesce(white_before, 0), "     \
      "coalesce(white_after, 0), coalesce(black_before, 0), coalesce(black_after, 0) "             \
      "FROM game_ratings WHERE game_id = ?")                                                       \
    X(GAME_RATING_PUT,                                                                             \
      "INSERT OR REPLACE INTO game_ratings (game_id, white_start, black_start, white_before, "     \
      "white_after, black_before, black_after) VALUES (?, ?, ?, ?, ?, ?, ?)")

enum { SQ_AREA_FIRST(RATINGS), RATINGS_STATEMENTS(SQ_STMT_ENUM) ST_RATINGS__END };
static const sq_stmt_def ratings_defs[] = {RATINGS_STATEMENTS(SQ_STMT_DEF)};
SQ_AREA_CHECK(RATINGS);
const sq_area_stmts sq_ratings_stmts = {SQ_AREA_RATINGS, ratings_defs, SQ_AREA_COUNT(RATINGS)};

/* Bind doubles v[0..n-1] to parameters first..first+n-1 of which (already
 * reset by sq_bind()). */
static int bind_doubles(sq_store *s, sq_stmt which, int first, const double *v, int n)
{
    for (int i = 0; i < n; i++) {
        int rc = sqlite3_bind_double(s->st[which], first + i, v[i]);
        if (rc != SQLITE_OK)
            return sq_fail(s, which, rc);
    }
    return STORE_OK;
}

/* The first seven columns of a ratings select into *out. */
static void read_rating(sqlite3_stmt *st, store_rating *out)
{
    memset(out, 0, sizeof *out);
    out->user_id = sqlite3_column_int64(st, 0);
    sq_col_text(st, 1, out->family, sizeof out->family);
    out->rating = sqlite3_column_double(st, 2);
    out->rd = sqlite3_column_double(st, 3);
    out->volatility = sqlite3_column_double(st, 4);
    out->games = sqlite3_column_int64(st, 5);
    out->last_game = sqlite3_column_int64(st, 6);
}

static int sq_rating_get(store *base, int64_t user_id, const char *family, store_rating *out)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_RATING_GET, "it", user_id, family);
    if (rc || (rc = sq_one_row(s, ST_RATING_GET)))
        return rc;
    read_rating(s->st[ST_RATING_GET], out);
    (void)sqlite3_reset(s->st[ST_RATING_GET]);
    return STORE_OK;
}

static int sq_rating_put(store *base, const store_rating *r)
{
    sq_store *s = sq_of(base);
    double v[3] = {r->rating, r->rd, r->volatility};
    int rc = sq_bind(s, ST_RATING_PUT, "it", r->user_id, r->family);
    if (rc || (rc = bind_doubles(s, ST_RATING_PUT, 3, v, 3)))
        return rc;
    sqlite3_stmt *st = s->st[ST_RATING_PUT];
    if ((rc = sqlite3_bind_int64(st, 6, r->games)) != SQLITE_OK ||
        (rc = sqlite3_bind_int64(st, 7, r->last_game)) != SQLITE_OK)
        return sq_fail(s, ST_RATING_PUT, rc);
    return sq_run(s, ST_RATING_PUT);
}

typedef struct rating_walk {
    store_rating_cb cb;
    void *arg;
    bool with_user; /* columns 7 and 8 are the username and bot flag */
} rating_walk;

static int rating_row(sqlite3_stmt *st, void *ctx)
{
    rating_walk *w = ctx;
    store_rating r;
    read_rating(st, &r);
    if (w->with_user) {
        sq_col_text(st, 7, r.username, sizeof r.username);
        r.bot = sqlite3_column_int(st, 8) != 0;
    }
    return w->cb(w->arg, &r);
}

static int sq_ratings_of(store *base, int64_t user_id, store_rating_cb cb, void *arg)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_RATINGS_OF, "i", user_id);
    return rc ? rc : sq_each(s, ST_RATINGS_OF, rating_row, &(rating_walk){cb, arg, false});
}

static int sq_ratings_board(store *base, const char *family, double max_rd, store_rating_cb cb,
                            void *arg)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_RATINGS_BOARD, "t", family);
    if (rc || (rc = bind_doubles(s, ST_RATINGS_BOARD, 2, &max_rd, 1)))
        return rc;
    return sq_each(s, ST_RATINGS_BOARD, rating_row, &(rating_walk){cb, arg, true});
}

static int sq_game_rating_get(store *base, int64_t game_id, store_game_rating *out)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_GAME_RATING_GET, "i", game_id);
    if (rc || (rc = sq_one_row(s, ST_GAME_RATING_GET)))
        return rc;
    sqlite3_stmt *st = s->st[ST_GAME_RATING_GET];
    out->game_id = game_id;
    out->white_start = sqlite3_column_double(st, 0);
    out->black_start = sqlite3_column_double(st, 1);
    out->ended = sqlite3_column_int(st, 2) != 0;
    out->white_before = sqlite3_column_double(st, 3);
    out->white_after = sqlite3_column_double(st, 4);
    out->black_before = sqlite3_column_double(st, 5);
    out->black_after = sqlite3_column_double(st, 6);
    (void)sqlite3_reset(st);
    return STORE_OK;
}

static int sq_game_rating_put(store *base, const store_game_rating *gr)
{
    sq_store *s = sq_of(base);
    double v[6] = {gr->white_start, gr->black_start,  gr->white_before,
                   gr->white_after, gr->black_before, gr->black_after};
    int rc = sq_bind(s, ST_GAME_RATING_PUT, "i", gr->game_id);
    /* Before the end counted, before/after stay NULL (unbound). */
    if (rc || (rc = bind_doubles(s, ST_GAME_RATING_PUT, 2, v, gr->ended ? 6 : 2)))
        return rc;
    return sq_run(s, ST_GAME_RATING_PUT);
}

const store_ratings_ops sq_ratings_ops = {
    .rating_get = sq_rating_get,
    .rating_put = sq_rating_put,
    .ratings_of = sq_ratings_of,
    .ratings_board = sq_ratings_board,
    .game_rating_get = sq_game_rating_get,
    .game_rating_put = sq_game_rating_put,
};
