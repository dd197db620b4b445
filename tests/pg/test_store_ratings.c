/*
 * The ratings area (store_ratings.h: a player's Glicko-2 row per family,
 * the leaderboard, a rated game's ratings) on both backends: one sequence
 * runs on a fresh PostgreSQL database and on a fresh SQLite file and the
 * two traces must be equal line for line (storecmp.h). Doubles are traced
 * in hexadecimal (%a), so a rating that does not come back bit for bit
 * fails; exact values and orders are asserted too. The games a rating
 * row points at are plain SQL rows (the same text on both).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "pgtest.h"
#include "storecmp.h"

TestSuite(pg_ratings, .init = cmp_init, .fini = cmp_fini, .timeout = 60);

static void tr_rating(cmp_trace *t, const store_rating *r)
{
    cmp_tr(t,
           "  rating user=%lld family=%s rating=%a rd=%a vol=%a games=%lld last=%lld "
           "username=%s bot=%d\n",
           (long long)r->user_id, r->family, r->rating, r->rd, r->volatility, (long long)r->games,
           (long long)r->last_game, r->username, r->bot);
}

static void tr_game_rating(cmp_trace *t, const store_game_rating *g)
{
    cmp_tr(t, "  game_rating game=%lld start=%a/%a ended=%d white=%a->%a black=%a->%a\n",
           (long long)g->game_id, g->white_start, g->black_start, g->ended, g->white_before,
           g->white_after, g->black_before, g->black_after);
}

static int on_rating(void *arg, const store_rating *r)
{
    cmp_seen *w = arg;
    tr_rating(w->t, r);
    return cmp_keep(w, r->user_id * 100 + (int64_t)strlen(r->family));
}

/* The first row of a listing, whole. */
typedef struct first {
    store_rating r;
    int n;
} first;

static int on_first(void *arg, const store_rating *r)
{
    first *f = arg;
    if (f->n++ == 0)
        f->r = *r;
    return 0;
}

static store_rating a_rating(int64_t user, const char *family, double rating, double rd, double vol,
                             int64_t games, int64_t last)
{
    store_rating r = {.user_id = user,
                      .rating = rating,
                      .rd = rd,
                      .volatility = vol,
                      .games = games,
                      .last_game = last,
                      .bot = true};
    snprintf(r.family, sizeof r.family, "%s", family);
    snprintf(r.username, sizeof r.username, "not stored");
    return r;
}

static void put(cmp_trace *t, store *s, store_rating r)
{
    char what[64];
    snprintf(what, sizeof what, "rating_put %lld %s", (long long)r.user_id, r.family);
    cr_assert_eq(cmp_rc(t, what, store_rating_put(s, &r)), STORE_OK);
}

static int get(cmp_trace *t, store *s, int64_t user, const char *family, store_rating *out)
{
    char what[64];
    snprintf(what, sizeof what, "rating_get %lld %s", (long long)user, family);
    memset(out, 0x55, sizeof *out);
    int rc = cmp_rc(t, what, store_rating_get(s, user, family, out));
    if (rc == STORE_OK)
        tr_rating(t, out);
    return rc;
}

static int board(cmp_trace *t, store *s, const char *family, double max_rd, cmp_seen *w)
{
    char what[64];
    snprintf(what, sizeof what, "ratings_board %s %a", family, max_rd);
    return cmp_rc(t, what, store_ratings_board(s, family, max_rd, on_rating, w));
}

static int game_get(cmp_trace *t, store *s, int64_t id, store_game_rating *g)
{
    char what[48];
    snprintf(what, sizeof what, "game_rating_get %lld", (long long)id);
    memset(g, 0x55, sizeof *g);
    int rc = cmp_rc(t, what, store_game_rating_get(s, id, g));
    if (rc == STORE_OK)
        tr_game_rating(t, g);
    return rc;
}

static void game_put(cmp_trace *t, store *s, store_game_rating g)
{
    char what[48];
    snprintf(what, sizeof what, "game_rating_put %lld ended=%d", (long long)g.game_id, g.ended);
    cr_assert_eq(cmp_rc(t, what, store_game_rating_put(s, &g)), STORE_OK);
}

static void ratings_sequence(cmp_side *b, cmp_trace *t)
{
    store *s = b->s;
    /* alice < Bob case-insensitively, Bob < alice by bytes. */
    int64_t alice = cmp_user(s, "alice", false);
    int64_t bob = cmp_user(s, "Bob", false);
    int64_t carl = cmp_user(s, "carl", true);
    int64_t dave = cmp_user(s, "dave", false);
    cr_assert_eq(alice, 1);
    cr_assert_eq(dave, 4);
    /* Values that need all 17 digits to come back. */
    const double R = 1500.0 + 1.0 / 3.0, V = 0.06 + 1e-12, X = 0.1 + 0.2;

    store_rating r;
    cr_assert_eq(get(t, s, alice, "alquerque", &r), STORE_NOTFOUND);
    cr_assert_eq(store_begin(s), STORE_OK);
    put(t, s, a_rating(alice, "alquerque", R, 70.0, V, 3, 5000));
    put(t, s, a_rating(alice, "alquerkonane", 1400.25, 300.0, 0.06, 1, 5100));
    put(t, s, a_rating(alice, "alquer_x", X, 350.0, 0.06, 0, 0));
    put(t, s, a_rating(alice, "Zamma", 1600.0, 120.0, 0.06, 9, 5200));
    put(t, s, a_rating(bob, "alquerque", R, 70.0, 0.06, 4, 5300));
    put(t, s, a_rating(carl, "alquerque", 1700.0, 200.0, 0.06, 2, 5400));
    put(t, s, a_rating(dave, "alquerque", R, 60.5, 0.06, 7, 5500));
    cr_assert_eq(get(t, s, carl, "alquerque", &r), STORE_OK);
    cr_assert_eq(r.rating, 1700.0);
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);

    /* Bit for bit; username and bot are left empty. */
    cr_assert_eq(get(t, s, alice, "alquerque", &r), STORE_OK);
    cr_assert(memcmp(&r.rating, &R, sizeof R) == 0, "rating %a, want %a", r.rating, R);
    cr_assert(memcmp(&r.volatility, &V, sizeof V) == 0, "volatility %a, want %a", r.volatility, V);
    cr_assert_eq(r.rd, 70.0);
    cr_assert_eq(r.games, 3);
    cr_assert_eq(r.last_game, 5000);
    cr_assert_str_eq(r.username, "");
    cr_assert(!r.bot);
    cr_assert_eq(get(t, s, alice, "alquer_x", &r), STORE_OK);
    cr_assert(memcmp(&r.rating, &X, sizeof X) == 0, "rating %a, want %a", r.rating, X);
    cr_assert_eq(get(t, s, alice, "ALQUERQUE", &r), STORE_NOTFOUND);
    cr_assert_eq(get(t, s, 99, "alquerque", &r), STORE_NOTFOUND);
    cr_assert_eq(get(t, s, bob, "Zamma", &r), STORE_NOTFOUND);

    /* One row per player and family: a put replaces it. */
    cr_assert_eq(store_begin(s), STORE_OK);
    put(t, s, a_rating(alice, "Zamma", 1611.5, 110.0, 0.0601, 10, 6000));
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);
    cr_assert_eq(get(t, s, alice, "Zamma", &r), STORE_OK);
    cr_assert(r.rating == 1611.5 && r.rd == 110.0 && r.games == 10 && r.last_game == 6000);
    cr_assert_eq(cmp_int(b, "SELECT count(*) FROM ratings WHERE user_id = 1"), 4);
    cr_assert_eq(store_begin(s), STORE_OK);
    put(t, s, a_rating(alice, "Zamma", 1.0, 1.0, 1.0, 1, 1));
    store_rollback(s);
    cr_assert_eq(get(t, s, alice, "Zamma", &r), STORE_OK);
    cr_assert_eq(r.rating, 1611.5);

    /* A player's rows by family name, byte order (SQLite's BINARY). */
    cmp_seen w = cmp_fresh(t);
    cr_assert_eq(cmp_rc(t, "ratings_of alice", store_ratings_of(s, alice, on_rating, &w)), 0);
    CMP_IDS(w, 105, 108, 112, 109); /* Zamma, alquer_x, alquerkonane, alquerque */
    w = cmp_fresh(t);
    cr_assert_eq(cmp_rc(t, "ratings_of bob", store_ratings_of(s, bob, on_rating, &w)), 0);
    CMP_IDS(w, 209);
    w = cmp_fresh(t);
    cr_assert_eq(cmp_rc(t, "ratings_of 99", store_ratings_of(s, 99, on_rating, &w)), 0);
    cr_assert_eq(w.n, 0);
    w = cmp_fresh(t);
    w.stop_after = 2;
    cr_assert_eq(cmp_rc(t, "ratings_of alice stopped", store_ratings_of(s, alice, on_rating, &w)),
                 7);
    CMP_IDS(w, 105, 108);

    /* The board: rd <= max_rd; rating down, rd up, username without case. */
    w = cmp_fresh(t);
    cr_assert_eq(board(t, s, "alquerque", 350.0, &w), 0);
    CMP_IDS(w, 309, 409, 109, 209);
    cr_assert_eq(w.n, 4);
    w = cmp_fresh(t);
    cr_assert_eq(board(t, s, "alquerque", 100.0, &w), 0);
    CMP_IDS(w, 409, 109, 209);
    w = cmp_fresh(t);
    cr_assert_eq(board(t, s, "alquerque", 70.0, &w), 0);
    CMP_IDS(w, 409, 109, 209);
    w = cmp_fresh(t);
    cr_assert_eq(board(t, s, "alquerque", 69.999, &w), 0);
    CMP_IDS(w, 409);
    w = cmp_fresh(t);
    cr_assert_eq(board(t, s, "alquerque", 60.49, &w), 0);
    cr_assert_eq(w.n, 0);
    w = cmp_fresh(t);
    cr_assert_eq(board(t, s, "nothing", 350.0, &w), 0);
    cr_assert_eq(w.n, 0);
    w = cmp_fresh(t);
    w.stop_after = 1;
    cr_assert_eq(board(t, s, "alquerque", 350.0, &w), 7);
    CMP_IDS(w, 309);

    /* A board row carries the username and bot flag. */
    first f = {0};
    cr_assert_eq(store_ratings_board(s, "alquerque", 350.0, on_first, &f), 0);
    cr_assert_eq(f.n, 4);
    cr_assert_str_eq(f.r.username, "carl");
    cr_assert(f.r.bot);

    /* A rated game's ratings. */
    cmp_game(b, alice, bob, 7000);
    cmp_game(b, alice, bob, 7001);
    cmp_game(b, dave, carl, 7002);
    store_game_rating g;
    cr_assert_eq(game_get(t, s, 1, &g), STORE_NOTFOUND);
    const double WA = 1512.0625 + 1.0 / 7.0;
    store_game_rating start = {.game_id = 1,
                               .white_start = 1500.5,
                               .black_start = R,
                               .ended = false,
                               .white_before = 9,
                               .white_after = 9,
                               .black_before = 9,
                               .black_after = 9};
    cr_assert_eq(store_begin(s), STORE_OK);
    game_put(t, s, start);
    cr_assert_eq(game_get(t, s, 1, &g), STORE_OK);
    cr_assert(!g.ended && g.white_before == 0 && g.black_after == 0);
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);
    cr_assert_eq(game_get(t, s, 1, &g), STORE_OK);
    cr_assert(!g.ended);
    cr_assert_eq(g.game_id, 1);
    cr_assert_eq(g.white_start, 1500.5);
    cr_assert(memcmp(&g.black_start, &R, sizeof R) == 0);
    cr_assert(g.white_before == 0 && g.white_after == 0 && g.black_before == 0 &&
              g.black_after == 0);

    store_game_rating end = start;
    end.ended = true;
    end.white_before = 1500.5;
    end.white_after = WA;
    end.black_before = R;
    end.black_after = R - 10;
    cr_assert_eq(store_begin(s), STORE_OK);
    game_put(t, s, end);
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);
    cr_assert_eq(game_get(t, s, 1, &g), STORE_OK);
    cr_assert(g.ended);
    cr_assert(memcmp(&g.white_after, &WA, sizeof WA) == 0, "%a, want %a", g.white_after, WA);
    cr_assert_eq(g.black_after, R - 10);

    /* Back to not ended: before/after are NULL again, not kept. */
    cr_assert_eq(store_begin(s), STORE_OK);
    game_put(t, s, start);
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);
    cr_assert_eq(game_get(t, s, 1, &g), STORE_OK);
    cr_assert(!g.ended && g.white_after == 0);
    long long nulls = cmp_int(b, "SELECT count(*) FROM game_ratings WHERE white_before IS NULL "
                                 "AND white_after IS NULL AND black_before IS NULL AND "
                                 "black_after IS NULL");
    cmp_tr(t, "  null rows=%lld\n", nulls);
    cr_assert_eq(nulls, 1);

    /* Ended with zero ratings is still ended (NULL, not 0, is the mark). */
    store_game_rating zero = {.game_id = 3, .ended = true};
    cr_assert_eq(store_begin(s), STORE_OK);
    game_put(t, s, zero);
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);
    cr_assert_eq(game_get(t, s, 3, &g), STORE_OK);
    cr_assert(g.ended && g.white_start == 0 && g.white_before == 0);

    /* Rolled back: absent. */
    store_game_rating two = end;
    two.game_id = 2;
    cr_assert_eq(store_begin(s), STORE_OK);
    game_put(t, s, two);
    store_rollback(s);
    cr_assert_eq(game_get(t, s, 2, &g), STORE_NOTFOUND);
    cr_assert_eq(game_get(t, s, 99, &g), STORE_NOTFOUND);
}

Test(pg_ratings, alike)
{
    CMP_RUN(ratings_sequence);
}
