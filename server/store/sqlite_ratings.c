/*
 * sqlite_ratings: the SQLite backend's rating rows (issue 12, schema
 * migration 7): a player's Glicko-2 values per family, a rated game's
 * ratings at its start and around its counted end, an open seek's rating
 * range. Same pattern as sqlite_rows.c, with one difference: ratings are
 * REAL, which sq_bind() has no letter for, so the doubles are bound here
 * with sqlite3_bind_double() after sq_bind() has bound the rest.
 */
#include "store/sqlite_int.h"

#include <stdio.h>
#include <string.h>

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

int sq_rating_get(store *base, int64_t user_id, const char *family, store_rating *out)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_RATING_GET, "it", user_id, family);
    if (rc || (rc = sq_one_row(s, ST_RATING_GET)))
        return rc;
    read_rating(s->st[ST_RATING_GET], out);
    (void)sqlite3_reset(s->st[ST_RATING_GET]);
    return STORE_OK;
}

int sq_rating_put(store *base, const store_rating *r)
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

/* Step which (bound) and call cb for each row; with_user: columns 7 and 8
 * are the username and bot flag. */
static int each_rating(sq_store *s, sq_stmt which, bool with_user, store_rating_cb cb, void *arg)
{
    sqlite3_stmt *st = s->st[which];
    int rc;
    while (sq_next_row(s, which, &rc)) {
        store_rating r;
        read_rating(st, &r);
        if (with_user) {
            sq_col_text(st, 7, r.username, sizeof r.username);
            r.bot = sqlite3_column_int(st, 8) != 0;
        }
        int stop = cb(arg, &r);
        if (stop)
            return sq_stop(s, which, stop);
    }
    return rc;
}

int sq_ratings_of(store *base, int64_t user_id, store_rating_cb cb, void *arg)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_RATINGS_OF, "i", user_id);
    return rc ? rc : each_rating(s, ST_RATINGS_OF, false, cb, arg);
}

int sq_ratings_board(store *base, const char *family, double max_rd, store_rating_cb cb, void *arg)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_RATINGS_BOARD, "t", family);
    if (rc || (rc = bind_doubles(s, ST_RATINGS_BOARD, 2, &max_rd, 1)))
        return rc;
    return each_rating(s, ST_RATINGS_BOARD, true, cb, arg);
}

int sq_game_rating_get(store *base, int64_t game_id, store_game_rating *out)
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

int sq_game_rating_put(store *base, const store_game_rating *gr)
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

int sq_challenge_range_put(store *base, int64_t id, int64_t min, int64_t max)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_CRANGE_PUT, "iOO", id, min, max);
    return rc ? rc : sq_run(s, ST_CRANGE_PUT);
}

int sq_challenge_range_get(store *base, int64_t id, int64_t *min, int64_t *max)
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
