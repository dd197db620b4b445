/*
 * Ratings (issue 12) through the real server with a test clock: the
 * PROTOCOL.md example read back with `user`; a resign, a draw and a
 * timeout each moving both ratings by exactly what the pure module
 * (game/rating.h) computes, the timeout one day later with the inactivity
 * step first; aborted and unrated games moving nothing; RD growing with
 * days of inactivity; one family for every Alquerkonane board; the
 * leaderboard's order and its provisional rule; rating ranges on open
 * seeks; the ratings in challenge and game objects and game_end events;
 * the migration runner recording the migration numbers it skipped.
 *
 * Expected values are computed here with rating.h and rounded as the wire
 * rounds them (2 decimals; volatility 6), then compared exactly.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game/rating.h"
#include "helper.h"
#include "store/sqlite.h"
#include "store/store.h"
#include "util/log.h"

#define T0 1700000000000LL
#define DAY (24 * 3600000LL)

static tsrv S;
static tconn *A, *B, *C, *D; /* alice, bob, carol, dave */

static void setup(void)
{
    tsrv_start(&S, "QK_TEST_CLOCK=1700000000000");
    A = tc_open(S.port);
    B = tc_open(S.port);
    C = tc_open(S.port);
    D = tc_open(S.port);
    t_register(A, "alice");
    t_register(B, "bob");
    t_register(C, "carol");
    t_register(D, "dave");
}

static void teardown(void)
{
    tconn **all[] = {&A, &B, &C, &D};
    for (int i = 0; i < 4; i++) {
        if (*all[i])
            tc_close(*all[i]);
        *all[i] = NULL;
    }
    tsrv_stop(&S);
    tsrv_cleanup(&S);
}

TestSuite(ratings, .init = setup, .fini = teardown, .timeout = 120);

static double r2(double x)
{
    return round(x * 100.0) / 100.0;
}

static double r6(double x)
{
    return round(x * 1e6) / 1e6;
}

static double t_num(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    cr_assert(cJSON_IsNumber(v), "%s is not a number in %s", name, t_text(o));
    return v->valuedouble;
}

static void advance(long long ms)
{
    cJSON *r = tc_rpc(A, "{\"type\":\"debug_clock\",\"advance_ms\":%lld}", ms);
    t_ok(r, "debug_clock");
    cJSON_Delete(r);
}

/* w (White) challenges black_name (rated) in variant with time control
 * tc (JSON text); b accepts. The game id. */
static long long rated_game(tconn *w, tconn *b, const char *black_name, const char *variant,
                            const char *tc, bool rated)
{
    cJSON *r = tc_rpc(w,
                      "{\"type\":\"challenge\",\"to\":\"%s\",\"variant\":\"%s\","
                      "\"color\":\"white\",\"rated\":%s,\"time_control\":%s}",
                      black_name, variant, rated ? "true" : "false", tc);
    t_ok(r, "challenge");
    long long cid = t_int(t_obj(r, "challenge"), "id");
    cJSON_Delete(r);
    r = tc_rpc(b, "{\"type\":\"accept\",\"challenge\":%lld}", cid);
    t_ok(r, "accept");
    long long gid = t_int(t_obj(r, "game"), "id");
    cJSON_Delete(r);
    return gid;
}

#define UNLIMITED "{\"kind\":\"unlimited\"}"

static void resign(tconn *c, long long gid)
{
    cJSON *r = tc_rpc(c, "{\"type\":\"resign\",\"game\":%lld}", gid);
    t_ok(r, "resign");
    cJSON_Delete(r);
}

static cJSON *game_of(long long gid)
{
    cJSON *r = tc_rpc(A, "{\"type\":\"game\",\"game\":%lld}", gid);
    t_ok(r, "game");
    cJSON *g = cJSON_DetachItemFromObject(r, "game");
    cJSON_Delete(r);
    return g;
}

/* The `user` answer's ratings object of name (caller deletes). */
static cJSON *ratings_of(const char *name)
{
    cJSON *r = tc_rpc(A, "{\"type\":\"user\",\"username\":\"%s\"}", name);
    t_ok(r, "user");
    cJSON *u = cJSON_DetachItemFromObject(r, "user");
    cJSON_Delete(r);
    cr_assert_str_eq(t_str(u, "username"), name);
    cJSON *ra = cJSON_DetachItemFromObject(u, "ratings");
    cJSON_Delete(u);
    cr_assert(cJSON_IsObject(ra), "ratings is not an object");
    return ra;
}

/* name's values in family equal want (rounded as on the wire). */
static void expect_rating(const char *name, const char *family, const rating *want)
{
    cJSON *ra = ratings_of(name);
    const cJSON *f = t_obj(ra, family);
    cr_assert_eq(t_num(f, "rating"), r2(want->rating), "%s rating: %s", name, t_text(f));
    cr_assert_eq(t_num(f, "rd"), r2(want->rd), "%s rd: %s", name, t_text(f));
    cr_assert_eq(t_num(f, "volatility"), r6(want->volatility), "%s volatility", name);
    cr_assert_eq(t_int(f, "games"), want->games);
    cr_assert_eq(cJSON_IsTrue(t_obj(f, "provisional")), want->rd > 110.0, "%s provisional", name);
    cr_assert_eq(cJSON_GetArraySize(ra), 1, "one family only: %s", t_text(ra));
    cJSON_Delete(ra);
}

static void expect_unrated(const char *name)
{
    cJSON *ra = ratings_of(name);
    cr_assert_eq(cJSON_GetArraySize(ra), 0, "%s has ratings: %s", name, t_text(ra));
    cJSON_Delete(ra);
}

/* g's rating_change is before -> after for both sides. */
static void expect_change(const cJSON *change, const rating *wb, const rating *wa, const rating *bb,
                          const rating *ba)
{
    cr_assert(cJSON_IsObject(change), "no rating_change");
    const cJSON *w = t_obj(change, "white"), *b = t_obj(change, "black");
    cr_assert_eq(t_num(w, "before"), r2(wb->rating));
    cr_assert_eq(t_num(w, "after"), r2(wa->rating));
    cr_assert_eq(t_num(b, "before"), r2(bb->rating));
    cr_assert_eq(t_num(b, "after"), r2(ba->rating));
}

Test(ratings, protocol_example_through_the_server)
{
    long long gid = rated_game(A, B, "bob", "alquerque", UNLIMITED, true);
    cJSON *g = game_of(gid);
    cr_assert_eq(t_num(g, "white_rating"), 1500.0);
    cr_assert_eq(t_num(g, "black_rating"), 1500.0);
    cr_assert(cJSON_IsNull(t_obj(g, "rating_change")), "active: no change yet");
    cJSON_Delete(g);
    tc_sync(A);
    resign(B, gid); /* White wins */
    cJSON *ev = tc_event(A, "game_end", T_TIMEOUT_MS);
    cr_assert_not_null(ev);
    const cJSON *ch = t_obj(ev, "rating_change");
    cr_assert_eq(t_num(t_obj(ch, "white"), "before"), 1500.0);
    cr_assert_eq(t_num(t_obj(ch, "white"), "after"), 1662.31);
    cr_assert_eq(t_num(t_obj(ch, "black"), "before"), 1500.0);
    cr_assert_eq(t_num(t_obj(ch, "black"), "after"), 1337.69);
    cJSON_Delete(ev);
    cJSON *ra = ratings_of("alice");
    const cJSON *w = t_obj(ra, "alquerque");
    cr_assert_eq(t_num(w, "rating"), 1662.31);
    cr_assert_eq(t_num(w, "rd"), 290.32);
    cr_assert_eq(t_int(w, "games"), 1);
    cr_assert(cJSON_IsTrue(t_obj(w, "provisional")));
    cJSON_Delete(ra);
    ra = ratings_of("bob");
    cr_assert_eq(t_num(t_obj(ra, "alquerque"), "rating"), 1337.69);
    cr_assert_eq(t_num(t_obj(ra, "alquerque"), "rd"), 290.32);
    cJSON_Delete(ra);
    g = game_of(gid);
    cr_assert_eq(t_num(g, "white_rating"), 1500.0, "the rating at the start stays");
    cr_assert_eq(t_num(t_obj(t_obj(g, "rating_change"), "white"), "after"), 1662.31);
    cJSON_Delete(g);
    /* The login result's user object carries them too. */
    cJSON *r = tc_rpc(C, "{\"type\":\"login\",\"username\":\"alice\",\"password\":\"" T_PW "\"}");
    t_ok(r, "login");
    cr_assert_eq(t_num(t_obj(t_obj(t_obj(r, "user"), "ratings"), "alquerque"), "rating"), 1662.31);
    cJSON_Delete(r);
}

/* A resign, a draw by agreement and a timeout (one day later: one period
 * of inactivity first), each with the module's exact values. */
Test(ratings, resign_draw_and_timeout_move_ratings_exactly)
{
    rating w0, b0, w1, b1, w2, b2, w3, b3, wi, bi;
    rating_init(&w0);
    rating_init(&b0);
    long long g1 = rated_game(A, B, "bob", "alquerque", UNLIMITED, true);
    resign(B, g1);
    cr_assert_eq(rating_game_update(&w0, &b0, 1.0, &w1, &b1), 0);
    expect_rating("alice", "alquerque", &w1);
    expect_rating("bob", "alquerque", &b1);

    long long g2 = rated_game(A, B, "bob", "alquerque", UNLIMITED, true);
    cJSON *r = tc_rpc(A, "{\"type\":\"draw\",\"game\":%lld,\"action\":\"offer\"}", g2);
    t_ok(r, "draw offer");
    cJSON_Delete(r);
    r = tc_rpc(B, "{\"type\":\"draw\",\"game\":%lld,\"action\":\"accept\"}", g2);
    t_ok(r, "draw accept");
    cr_assert_eq(rating_game_update(&w1, &b1, 0.5, &w2, &b2), 0);
    expect_change(t_obj(t_obj(r, "game"), "rating_change"), &w1, &w2, &b1, &b2);
    cJSON_Delete(r);
    expect_rating("alice", "alquerque", &w2);
    expect_rating("bob", "alquerque", &b2);
    cr_assert_neq(r2(w2.rating), r2(w1.rating), "a draw between unequals moves the rating");

    long long g3 = rated_game(A, B, "bob", "alquerque",
                              "{\"kind\":\"correspondence\",\"days_per_move\":1}", true);
    cJSON *g = game_of(g3);
    cr_assert_eq(t_num(g, "white_rating"), r2(w2.rating));
    cr_assert_eq(t_num(g, "black_rating"), r2(b2.rating));
    const char *first = cJSON_GetArrayItem(t_obj(g, "legal_moves"), 0)->valuestring;
    r = tc_rpc(A, "{\"type\":\"move\",\"game\":%lld,\"ply\":0,\"move\":\"%s\"}", g3, first);
    t_ok(r, "move");
    cJSON_Delete(r);
    cJSON_Delete(g);
    tc_sync(B);
    advance(DAY); /* bob's deadline: White wins on time, a day after the draw */
    cJSON *ev = tc_event(B, "game_end", T_TIMEOUT_MS);
    cr_assert_not_null(ev);
    cr_assert_str_eq(t_str(ev, "reason"), "timeout");
    cr_assert_eq(rating_inactivity(&w2, 1, &wi), 0);
    cr_assert_eq(rating_inactivity(&b2, 1, &bi), 0);
    cr_assert_eq(rating_game_update(&wi, &bi, 1.0, &w3, &b3), 0);
    expect_change(t_obj(ev, "rating_change"), &wi, &w3, &bi, &b3);
    cJSON_Delete(ev);
    expect_rating("alice", "alquerque", &w3);
    expect_rating("bob", "alquerque", &b3);
    cr_assert_eq(w3.games, 3);
    /* Earlier games keep their own change. */
    g = game_of(g1);
    expect_change(t_obj(g, "rating_change"), &w0, &w1, &b0, &b1);
    cJSON_Delete(g);
}

Test(ratings, abort_and_unrated_games_do_not_count)
{
    long long g = rated_game(A, B, "bob", "alquerque", UNLIMITED, true);
    tc_sync(A);
    cJSON *r = tc_rpc(A, "{\"type\":\"abort\",\"game\":%lld}", g);
    t_ok(r, "abort");
    cr_assert(cJSON_IsNull(t_obj(t_obj(r, "game"), "rating_change")));
    cJSON_Delete(r);
    cJSON *ev = tc_event(A, "game_end", T_TIMEOUT_MS);
    cr_assert_not_null(ev);
    cr_assert(cJSON_IsNull(t_obj(ev, "rating_change")));
    cJSON_Delete(ev);
    expect_unrated("alice");
    expect_unrated("bob");
    long long u = rated_game(A, B, "bob", "alquerque", UNLIMITED, false);
    cJSON *gj = game_of(u);
    cr_assert(cJSON_IsNull(t_obj(gj, "white_rating")), "unrated: no rating at the start");
    cr_assert(cJSON_IsNull(t_obj(gj, "black_rating")));
    cJSON_Delete(gj);
    resign(B, u);
    gj = game_of(u);
    cr_assert(cJSON_IsNull(t_obj(gj, "rating_change")));
    cJSON_Delete(gj);
    expect_unrated("alice");
    expect_unrated("bob");
    cr_assert_eq(t_db_count(S.db, "ratings"), 0);
}

Test(ratings, inactivity_grows_rd_by_day)
{
    rating w0, b0, w1, b1, wi, bi, w2, b2;
    rating_init(&w0);
    rating_init(&b0);
    resign(B, rated_game(A, B, "bob", "alquerque", UNLIMITED, true));
    cr_assert_eq(rating_game_update(&w0, &b0, 1.0, &w1, &b1), 0);
    advance(10 * DAY - 1); /* 9 whole days */
    cr_assert_eq(rating_inactivity(&w1, 9, &wi), 0);
    expect_rating("alice", "alquerque", &wi);
    advance(1); /* 10 */
    cr_assert_eq(rating_inactivity(&w1, 10, &wi), 0);
    cr_assert_gt(wi.rd, w1.rd);
    expect_rating("alice", "alquerque", &wi);
    /* The next game starts from the grown RD. */
    cr_assert_eq(rating_inactivity(&b1, 10, &bi), 0);
    resign(A, rated_game(A, B, "bob", "alquerque", UNLIMITED, true));
    cr_assert_eq(rating_game_update(&wi, &bi, 0.0, &w2, &b2), 0);
    expect_rating("alice", "alquerque", &w2);
    expect_rating("bob", "alquerque", &b2);
    /* A long absence: RD back to a new player's, never above. */
    advance(5000 * DAY);
    cJSON *ra = ratings_of("alice");
    cr_assert_eq(t_num(t_obj(ra, "alquerque"), "rd"), 350.0);
    cJSON_Delete(ra);
}

Test(ratings, alquerkonane_boards_share_one_family)
{
    resign(B, rated_game(A, B, "bob", "alquerkonane-6x4", UNLIMITED, true));
    resign(B, rated_game(A, B, "bob", "alquerkonane-8x8", UNLIMITED, true));
    cJSON *ra = ratings_of("alice");
    cr_assert_eq(cJSON_GetArraySize(ra), 1, "%s", t_text(ra));
    cr_assert_eq(t_int(t_obj(ra, "alquerkonane"), "games"), 2);
    cJSON_Delete(ra);
    cr_assert_eq(t_db_count(S.db, "ratings"), 2);
}

/* alice and bob play 15 games, alternately won (alice wins the odd ones)
 * until both are established; carol beats dave once (provisional). */
Test(ratings, leaderboard_lists_established_players_by_rating)
{
    rating a, b, a2, b2, c, d, c2, d2;
    rating_init(&a);
    rating_init(&b);
    for (int i = 1; i <= 15; i++) {
        long long g = rated_game(A, B, "bob", "alquerque", UNLIMITED, true);
        resign(i % 2 ? B : A, g);
        cr_assert_eq(rating_game_update(&a, &b, i % 2 ? 1.0 : 0.0, &a2, &b2), 0);
        a = a2;
        b = b2;
    }
    cr_assert_leq(a.rd, 110.0, "the test needs established players");
    rating_init(&c);
    rating_init(&d);
    resign(D, rated_game(C, D, "dave", "alquerque", UNLIMITED, true));
    cr_assert_eq(rating_game_update(&c, &d, 1.0, &c2, &d2), 0);
    cr_assert_gt(c2.rating, a.rating, "carol is above alice but provisional");
    cJSON *r = tc_rpc(A, "{\"type\":\"leaderboard\",\"variant\":\"alquerque\"}");
    t_ok(r, "leaderboard");
    const cJSON *p = t_obj(r, "players");
    cr_assert_eq(cJSON_GetArraySize(p), 2, "%s", t_text(p));
    const cJSON *p0 = cJSON_GetArrayItem(p, 0), *p1 = cJSON_GetArrayItem(p, 1);
    cr_assert_str_eq(t_str(p0, "username"), "alice");
    cr_assert_eq(t_int(p0, "rank"), 1);
    cr_assert_eq(t_num(p0, "rating"), r2(a.rating));
    cr_assert_eq(t_num(p0, "rd"), r2(a.rd));
    cr_assert(cJSON_IsFalse(t_obj(p0, "provisional")));
    cr_assert_str_eq(t_str(p1, "username"), "bob");
    cr_assert_eq(t_int(p1, "rank"), 2);
    cr_assert_eq(t_num(p1, "rating"), r2(b.rating));
    cr_assert_eq(t_int(p1, "games"), 15);
    cJSON_Delete(r);
    r = tc_rpc(A, "{\"type\":\"leaderboard\",\"variant\":\"alquerque\",\"limit\":1}");
    cr_assert_eq(cJSON_GetArraySize(t_obj(r, "players")), 1);
    cJSON_Delete(r);
    r = tc_rpc(A, "{\"type\":\"leaderboard\",\"variant\":\"alquerkonane-5x5\"}");
    t_ok(r, "another family");
    cr_assert_str_eq(t_str(r, "family"), "alquerkonane");
    cr_assert_eq(cJSON_GetArraySize(t_obj(r, "players")), 0);
    cJSON_Delete(r);
    /* Inactive long enough, both are provisional again and leave it. */
    int days = 0;
    rating ai = a;
    while (ai.rd <= 110.0)
        cr_assert_eq(rating_inactivity(&a, ++days, &ai), 0);
    advance((long long)(days - 1) * DAY);
    r = tc_rpc(A, "{\"type\":\"leaderboard\",\"variant\":\"alquerque\"}");
    cr_assert_eq(cJSON_GetArraySize(t_obj(r, "players")), 2, "one day short: still listed");
    cJSON_Delete(r);
    advance(DAY);
    r = tc_rpc(A, "{\"type\":\"leaderboard\",\"variant\":\"alquerque\"}");
    cr_assert_eq(cJSON_GetArraySize(t_obj(r, "players")), 0, "%s", t_text(r));
    cJSON_Delete(r);
    r = tc_rpc(A, "{\"type\":\"leaderboard\",\"variant\":\"chess\"}");
    t_err(r, "bad_request", "unknown variant");
    cJSON_Delete(r);
    r = tc_rpc(A, "{\"type\":\"leaderboard\",\"variant\":\"alquerque\",\"limit\":0}");
    t_err(r, "bad_request", "limit 0");
    cJSON_Delete(r);
    r = tc_rpc(A, "{\"type\":\"user\",\"username\":\"nobody\"}");
    t_err(r, "not_found", "no such user");
    cJSON_Delete(r);
}

Test(ratings, seek_rating_range_refuses_outside_it)
{
    /* carol 1662.31 after beating dave; bob stays at 1500. */
    resign(D, rated_game(C, D, "dave", "alquerque", UNLIMITED, true));
    cJSON *r = tc_rpc(A, "{\"type\":\"challenge\",\"rated\":true,\"rating_min\":1600,"
                         "\"rating_max\":1700}");
    t_ok(r, "seek");
    const cJSON *c = t_obj(r, "challenge");
    long long seek = t_int(c, "id");
    cr_assert_eq(t_num(c, "rating_min"), 1600.0);
    cr_assert_eq(t_num(c, "rating_max"), 1700.0);
    cr_assert_eq(t_num(c, "from_rating"), 1500.0);
    cr_assert(cJSON_IsNull(t_obj(c, "to_rating")));
    cJSON_Delete(r);
    long long games = t_db_count(S.db, "games");
    r = tc_rpc(B, "{\"type\":\"accept\",\"challenge\":%lld}", seek);
    t_err(r, "forbidden", "bob is below the range");
    cr_assert_str_eq(t_str(r, "message"),
                     "your alquerque rating 1500.00 is outside this seek's range 1600-1700");
    cJSON_Delete(r);
    cr_assert_eq(t_db_count(S.db, "games"), games, "a refused accept made no game");
    r = tc_rpc(C, "{\"type\":\"accept\",\"challenge\":%lld}", seek);
    t_ok(r, "carol is inside");
    cr_assert_eq(t_num(t_obj(r, "game"), "black_rating") + t_num(t_obj(r, "game"), "white_rating"),
                 1500.0 + 1662.31);
    cJSON_Delete(r);
    r = tc_rpc(A, "{\"type\":\"challenge\",\"rating_max\":1600}");
    t_ok(r, "seek with a maximum only");
    seek = t_int(t_obj(r, "challenge"), "id");
    cr_assert(cJSON_IsNull(t_obj(t_obj(r, "challenge"), "rating_min")));
    cr_assert(cJSON_IsNull(t_obj(t_obj(r, "challenge"), "from_rating")), "unrated");
    cJSON_Delete(r);
    r = tc_rpc(C, "{\"type\":\"accept\",\"challenge\":%lld}", seek);
    t_err(r, "forbidden", "carol is above the maximum");
    cr_assert_str_eq(t_str(r, "message"),
                     "your alquerque rating 1662.31 is outside this seek's range any-1600");
    cJSON_Delete(r);
    r = tc_rpc(B, "{\"type\":\"accept\",\"challenge\":%lld}", seek);
    t_ok(r, "bob is under the maximum");
    cJSON_Delete(r);
    /* Bad ranges change nothing. The last is a challenge to an account
     * that does not exist: the request is checked in full before the
     * account is read (store_challenge_checks), so a bad range still
     * answers bad_request; without one, not_found. */
    static const struct {
        const char *req, *why;
    } bad[] = {
        {"{\"type\":\"challenge\",\"to\":\"bob\",\"rating_min\":1000}",
         "range on a direct challenge"},
        {"{\"type\":\"challenge\",\"rating_min\":1700,\"rating_max\":1600}", "min above max"},
        {"{\"type\":\"challenge\",\"rating_max\":10001}", "max too large"},
        {"{\"type\":\"challenge\",\"rating_min\":-5}", "negative"},
        {"{\"type\":\"challenge\",\"to\":\"nobody\",\"rating_min\":1000}",
         "range on a direct challenge to nobody"},
    };
    long long challenges = t_db_count(S.db, "challenges");
    long long notices = t_db_count(S.db, "notifications");
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        r = tc_rpc(A, "%s", bad[i].req);
        t_err(r, "bad_request", bad[i].why);
        cJSON_Delete(r);
    }
    r = tc_rpc(A, "{\"type\":\"challenge\",\"to\":\"nobody\"}");
    t_err(r, "not_found", "no such user");
    cr_assert_str_eq(t_str(r, "message"), "no such user");
    cJSON_Delete(r);
    cr_assert_eq(t_db_count(S.db, "challenges"), challenges);
    cr_assert_eq(t_db_count(S.db, "notifications"), notices);
    /* A direct rated challenge shows both sides' ratings. */
    r = tc_rpc(A, "{\"type\":\"challenge\",\"to\":\"carol\",\"rated\":true}");
    t_ok(r, "direct");
    cr_assert_eq(t_num(t_obj(r, "challenge"), "from_rating"), 1500.0);
    cr_assert_eq(t_num(t_obj(r, "challenge"), "to_rating"), 1662.31);
    cJSON_Delete(r);
}

/* ---- the migration runner ---------------------------------------------- */

static char mdir[64], mpath[128];

static void msetup(void)
{
    snprintf(mdir, sizeof mdir, "/tmp/qk-mig-test-XXXXXX");
    cr_assert_not_null(mkdtemp(mdir));
    snprintf(mpath, sizeof mpath, "%s/t.db", mdir);
    log_set_level(LOG_ERROR);
}

static void mteardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", mdir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", mdir);
}

TestSuite(migrations, .init = msetup, .fini = mteardown, .timeout = 30);

/* Migrations are contiguous (sqlite.c) and a new database runs them
 * all: user_version is the newest, and the ratings table is there. */
Test(migrations, a_new_database_has_every_migration)
{
    store *s = NULL;
    cr_assert_eq(store_open(mpath, &s), STORE_OK);
    int v = -1;
    cr_assert_eq(store_user_version(s, &v), STORE_OK);
    store_close(s);
    int newest = store_schema_version();
    cr_assert_geq(newest, 7);
    cr_assert_eq(v, newest);
    for (int n = 1; n <= newest; n++) {
        char mark[40];
        snprintf(mark, sizeof mark, "\n-- migration %d\n", n);
        cr_assert_not_null(strstr(store_schema_sql, mark), "migration %d is missing", n);
    }
    sqlite3 *h;
    cr_assert_eq(sqlite3_open_v2(mpath, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(h, "SELECT count(*) FROM ratings", -1, &st, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
    sqlite3_finalize(st);
    sqlite3_close(h);
}

/* ---- a lost commit loses the rating update with the game's end -------- */

static void fault_setup(void)
{
    /* Commits: 1-2 the registrations, 3 the challenge, 4 the accept, 5
     * the resign. */
    tsrv_start(&S, "QK_FAULT_COMMIT=5");
    A = tc_open(S.port);
    B = tc_open(S.port);
    t_register(A, "alice");
    t_register(B, "bob");
}

static void fault_teardown(void)
{
    tc_close(A);
    tc_close(B);
    A = B = NULL;
    tsrv_stop(&S);
    tsrv_cleanup(&S);
}

TestSuite(ratings_fault, .init = fault_setup, .fini = fault_teardown, .timeout = 60);

Test(ratings_fault, lost_end_changes_no_rating)
{
    long long gid = rated_game(A, B, "bob", "alquerque", UNLIMITED, true);
    cJSON *r = tc_rpc(B, "{\"type\":\"resign\",\"game\":%lld}", gid);
    t_err(r, "internal", "the commit of the resign fails");
    cJSON_Delete(r);
    cr_assert_eq(t_db_count(S.db, "ratings"), 0);
    expect_unrated("alice");
    expect_unrated("bob");
    cJSON *g = game_of(gid);
    cr_assert_str_eq(t_str(g, "status"), "active");
    cr_assert(cJSON_IsNull(t_obj(g, "rating_change")));
    cr_assert_eq(t_num(g, "white_rating"), 1500.0, "the start's ratings were committed before");
    cJSON_Delete(g);
    resign(B, gid); /* now it commits, and counts once */
    cJSON *ra = ratings_of("alice");
    cr_assert_eq(t_num(t_obj(ra, "alquerque"), "rating"), 1662.31);
    cr_assert_eq(t_int(t_obj(ra, "alquerque"), "games"), 1);
    cJSON_Delete(ra);
}
