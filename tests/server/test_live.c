/*
 * Live play (issue 10) through the real server with a test clock
 * (QK_TEST_CLOCK: both of the server's clocks, wall and monotonic, move
 * only by debug_clock). The flag is a rule: a late move, resign, draw or
 * abort after the deadline ends the game on time whether the timer
 * (debug_clock's sweep) or the request comes first (debug_clock with
 * "sweep": false stands for a late loop), with the same game, events and
 * notifications. No clock runs before each side's first move; a side that
 * lets its first-move window pass gets the game aborted; 0+5 plays; the
 * one `clock` field {"white", "black"} at given test-clock times in game
 * objects and `move` events; 0 for the loser on time; the draw offer and
 * each player's vacation in the game object.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helper.h"

#define T0 1700000000000LL
#define HOUR 3600000LL

static tsrv S;
static tconn *A, *B; /* alice (white), bob (black): logged in */
static char env[64];

static void setup(void)
{
    snprintf(env, sizeof env, "QK_TEST_CLOCK=%lld", T0);
    tsrv_start(&S, env);
    A = tc_open(S.port);
    B = tc_open(S.port);
    t_register(A, "alice");
    t_register(B, "bob");
}

static void teardown(void)
{
    tc_close(A);
    tc_close(B);
    A = B = NULL;
    tsrv_stop(&S);
    tsrv_cleanup(&S);
}

TestSuite(live, .init = setup, .fini = teardown, .timeout = 60);

/* Move the test clock by ms; with sweep false the deadlines due are left
 * to the next request (a loop that is late). */
static void advance(long long ms, bool sweep)
{
    t_advance(A, ms, sweep);
}

/* alice (white) challenges bob with tc (JSON text) and extra fields; bob
 * accepts; the game id. */
static long long new_game(const char *tc, const char *extra)
{
    return t_new_game_tc(A, B, "bob", "alquerque", tc, extra);
}

static long long clock_of(const cJSON *o, const char *side)
{
    return t_int(t_obj(o, "clock"), side);
}

static void assert_game_over_timeout(const cJSON *r, const char *winner)
{
    t_err(r, "game_over", "late request");
    cr_assert_str_eq(t_str(r, "reason"), "timeout", "%s", t_text(r));
    cr_assert_str_eq(t_str(r, "result"), winner, "%s", t_text(r));
}

/* A 1+0 game where both have made their first move and white's clock
 * has run out by 1 ms; timer_first: the sweep sees it first. Then white's
 * late move. Returns the game object after. */
static cJSON *late_move(bool timer_first, long long *gid_out)
{
    long long gid = new_game("{\"kind\":\"live\",\"initial_s\":60}", NULL);
    t_play_first(A, gid);
    t_play_first(B, gid);
    tc_sync(A);
    tc_sync(B);
    advance(60001, timer_first);
    cJSON *r = t_try_first(A, gid);
    assert_game_over_timeout(r, "black");
    cJSON_Delete(r);
    cJSON *ev = tc_event(B, "game_end", T_TIMEOUT_MS);
    cr_assert_not_null(ev, "no game_end to bob");
    cr_assert_str_eq(t_str(ev, "reason"), "timeout");
    cr_assert_str_eq(t_str(ev, "result"), "black");
    cJSON_Delete(ev);
    cr_assert_null(tc_event(B, "move", 200), "the late move was played");
    *gid_out = gid;
    return t_game(B, gid);
}

static void assert_same_end(const cJSON *g)
{
    cr_assert_str_eq(t_str(g, "status"), "finished");
    cr_assert_str_eq(t_str(g, "result"), "black");
    cr_assert_str_eq(t_str(g, "reason"), "timeout");
    cr_assert_eq(t_int(g, "ply"), 2, "the late move was stored");
    cr_assert_eq(clock_of(g, "white"), 0, "the loser on time shows 0");
    cr_assert_eq(clock_of(g, "black"), 60000);
    cr_assert(cJSON_IsNull(t_obj(g, "deadline")));
    /* Both were online: the game_end event told them, no notice is stored
     * (notify.h notify_game_end; a second end would not store one either,
     * so the single end is the event's count, above). */
    cr_assert_eq(t_count_kind(A, "game_end"), 0);
    cr_assert_eq(t_count_kind(B, "game_end"), 0);
}

Test(live, late_move_after_the_timer_is_game_over_timeout)
{
    long long gid;
    cJSON *g = late_move(true, &gid);
    assert_same_end(g);
    cJSON_Delete(g);
}

Test(live, late_move_before_the_timer_is_game_over_timeout)
{
    long long gid;
    cJSON *g = late_move(false, &gid);
    assert_same_end(g);
    cJSON_Delete(g);
    /* The sweep that comes after finds nothing more to do. */
    advance(1000, true);
    cr_assert_null(tc_event(B, "game_end", 200), "the game ended a second time");
    cr_assert_eq(t_count_kind(B, "game_end"), 0);
}

Test(live, a_move_just_in_time_is_played)
{
    long long gid = new_game("{\"kind\":\"live\",\"initial_s\":60}", NULL);
    t_play_first(A, gid);
    t_play_first(B, gid);
    advance(59999, false);
    t_play_first(A, gid);
    cJSON *g = t_game(A, gid);
    cr_assert_str_eq(t_str(g, "status"), "active");
    cr_assert_eq(clock_of(g, "white"), 1);
    cJSON_Delete(g);
}

Test(live, resign_draw_and_abort_after_the_deadline_are_game_over_timeout)
{
    const char *ops[] = {
        "{\"type\":\"resign\",\"game\":%lld}",
        "{\"type\":\"draw\",\"game\":%lld,\"action\":\"offer\"}",
        "{\"type\":\"abort\",\"game\":%lld}",
    };
    for (int i = 0; i < 3; i++) {
        long long gid = new_game("{\"kind\":\"live\",\"initial_s\":60}", NULL);
        t_play_first(A, gid);
        t_play_first(B, gid);
        advance(60000, false); /* exactly out of time */
        /* bob, who is not to move, asks: white lost on time all the same. */
        cJSON *r = tc_rpc(B, ops[i], gid);
        assert_game_over_timeout(r, "black");
        cJSON_Delete(r);
        cJSON *g = t_game(A, gid);
        cr_assert_str_eq(t_str(g, "reason"), "timeout", "op %d", i);
        cr_assert_eq(clock_of(g, "white"), 0);
        cJSON_Delete(g);
    }
}

Test(live, no_clock_runs_before_each_sides_first_move)
{
    long long gid = new_game("{\"kind\":\"live\",\"initial_s\":60,\"increment_s\":0}", NULL);
    advance(20000, true);
    cJSON *g = t_game(A, gid);
    cr_assert_eq(clock_of(g, "white"), 60000);
    cr_assert_eq(clock_of(g, "black"), 60000);
    cr_assert_eq(t_int(g, "time_left_ms"), 10000, "the 30 s first-move window");
    cr_assert_eq(t_int(g, "deadline"), T0 + 30000);
    cr_assert_null(cJSON_GetObjectItem(g, "clocks"), "the old field is gone");
    cJSON_Delete(g);
    t_play_first(A, gid);
    advance(25000, true);
    g = t_game(B, gid);
    cr_assert_eq(clock_of(g, "white"), 60000);
    cr_assert_eq(clock_of(g, "black"), 60000);
    cJSON_Delete(g);
    tc_sync(A);
    t_play_first(B, gid);
    cJSON *ev = tc_event(A, "move", T_TIMEOUT_MS);
    cr_assert_not_null(ev);
    cr_assert_eq(clock_of(ev, "white"), 60000);
    cr_assert_eq(clock_of(ev, "black"), 60000);
    cr_assert_eq(t_int(ev, "deadline"), T0 + 45000 + 60000);
    cJSON_Delete(ev);
    /* Now white's clock runs. */
    advance(7000, true);
    g = t_game(B, gid);
    cr_assert_eq(clock_of(g, "white"), 53000);
    cr_assert_eq(clock_of(g, "black"), 60000);
    cr_assert_eq(t_int(g, "time_left_ms"), 53000);
    cJSON_Delete(g);
    tc_sync(B);
    t_play_first(A, gid);
    ev = tc_event(B, "move", T_TIMEOUT_MS);
    cr_assert_not_null(ev);
    cr_assert_eq(clock_of(ev, "white"), 53000);
    cr_assert_eq(clock_of(ev, "black"), 60000);
    cJSON_Delete(ev);
    advance(1500, true);
    g = t_game(A, gid);
    cr_assert_eq(clock_of(g, "white"), 53000);
    cr_assert_eq(clock_of(g, "black"), 58500);
    cJSON_Delete(g);
}

Test(live, the_first_move_window_passing_aborts_the_game)
{
    long long gid = new_game("{\"kind\":\"live\",\"initial_s\":60}", NULL);
    advance(30000, true);
    cJSON *ev = tc_event(B, "game_end", T_TIMEOUT_MS);
    cr_assert_not_null(ev, "no game_end after the first-move window");
    cr_assert_str_eq(t_str(ev, "reason"), "aborted");
    cr_assert(cJSON_IsNull(t_obj(ev, "result")));
    cJSON_Delete(ev);
    cJSON *g = t_game(A, gid);
    cr_assert_str_eq(t_str(g, "status"), "aborted");
    cJSON_Delete(g);

    /* The same for black's first move, the request coming first. */
    gid = new_game("{\"kind\":\"live\",\"initial_s\":60}", NULL);
    t_play_first(A, gid);
    advance(31000, false);
    cJSON *r = t_try_first(B, gid);
    t_err(r, "game_over", "black's late first move");
    cr_assert_str_eq(t_str(r, "reason"), "aborted");
    cJSON_Delete(r);
    g = t_game(A, gid);
    cr_assert_str_eq(t_str(g, "status"), "aborted");
    cr_assert_eq(t_int(g, "ply"), 1);
    cJSON_Delete(g);
}

Test(live, zero_plus_five_plays)
{
    long long gid = new_game("{\"kind\":\"live\",\"initial_s\":0,\"increment_s\":5}", NULL);
    cJSON *g = t_game(A, gid);
    cr_assert_eq(clock_of(g, "white"), 0);
    cr_assert_str_eq(t_str(g, "status"), "active");
    cJSON_Delete(g);
    advance(2000, true);
    t_play_first(A, gid); /* free, +5 s */
    advance(2000, true);
    t_play_first(B, gid); /* free, +5 s */
    long long want_w = 5000, want_b = 5000;
    for (int i = 0; i < 6; i++) {
        tconn *c = i % 2 == 0 ? A : B;
        advance(1000, true);
        t_play_first(c, gid);
        if (i % 2 == 0)
            want_w += 4000;
        else
            want_b += 4000;
        g = t_game(A, gid);
        cr_assert_str_eq(t_str(g, "status"), "active", "move %d: %s", i, t_text(g));
        cr_assert_eq(clock_of(g, "white"), want_w, "move %d", i);
        cr_assert_eq(clock_of(g, "black"), want_b, "move %d", i);
        cJSON_Delete(g);
    }
    cr_assert_eq(want_w, 17000);
    /* White now has 17 s; it runs out. */
    advance(17000, true);
    g = t_game(B, gid);
    cr_assert_str_eq(t_str(g, "reason"), "timeout");
    cr_assert_eq(clock_of(g, "white"), 0);
    cr_assert_eq(clock_of(g, "black"), want_b);
    cJSON_Delete(g);
}

/* The accept's game object (its answer and both players' game_start)
 * says who is on vacation: a direct challenge brings both players' states
 * with its row (store_challenge from/to_vacation_until), an open seek's
 * accepter is read; a vacation that has ended is not shown. */
static void accept_shows(tconn *from, const char *to, const char *color, tconn *by, bool white_away,
                         bool black_away)
{
    cJSON *r = tc_rpc(from,
                      "{\"type\":\"challenge\"%s%s%s,\"color\":\"%s\",\"time_control\":"
                      "{\"kind\":\"correspondence\",\"days_per_move\":3}}",
                      to ? ",\"to\":\"" : "", to ? to : "", to ? "\"" : "", color);
    t_ok(r, "challenge");
    long long cid = t_int(t_obj(r, "challenge"), "id");
    cJSON_Delete(r);
    r = tc_rpc(by, "{\"type\":\"accept\",\"challenge\":%lld}", cid);
    t_ok(r, "accept");
    long long gid = t_int(t_obj(r, "game"), "id");
    cJSON *ev = tc_event(from, "game_start", T_TIMEOUT_MS);
    cJSON *ev2 = tc_event(by, "game_start", T_TIMEOUT_MS);
    cr_assert(ev && ev2, "no game_start to both players");
    const cJSON *objs[3] = {t_obj(r, "game"), t_obj(ev, "game"), t_obj(ev2, "game")};
    for (int i = 0; i < 3; i++) {
        const cJSON *v = t_obj(objs[i], "vacation");
        cr_assert_eq(t_int(objs[i], "id"), gid, "%s", t_text(objs[i]));
        cr_assert_eq(cJSON_IsTrue(t_obj(v, "white")), white_away, "%s", t_text(objs[i]));
        cr_assert_eq(cJSON_IsTrue(t_obj(v, "black")), black_away, "%s", t_text(objs[i]));
    }
    cJSON_Delete(ev2);
    cJSON_Delete(ev);
    cJSON_Delete(r);
}

Test(live, the_accepts_game_object_shows_the_players_vacations)
{
    cJSON *r = tc_rpc(A, "{\"type\":\"vacation\",\"action\":\"on\",\"hours\":24}");
    t_ok(r, "vacation on");
    cJSON_Delete(r);
    accept_shows(A, "bob", "black", B, false, true); /* the challenger away, as black */
    r = tc_rpc(B, "{\"type\":\"vacation\",\"action\":\"on\",\"hours\":48}");
    t_ok(r, "vacation on");
    cJSON_Delete(r);
    accept_shows(B, "alice", "white", A, true, true); /* both away */
    accept_shows(A, NULL, "white", B, true, true);    /* an open seek */
    advance(25 * HOUR, true);                         /* alice is back */
    accept_shows(B, "alice", "black", A, false, true);
    advance(24 * HOUR, true); /* bob too */
    accept_shows(A, "bob", "white", B, false, false);
}

Test(live, draw_offer_and_vacation_are_in_the_game_object)
{
    long long gid = new_game("{\"kind\":\"correspondence\",\"days_per_move\":3}", NULL);
    cJSON *g = t_game(A, gid);
    cr_assert(cJSON_IsNull(t_obj(g, "draw_offer")));
    cr_assert(cJSON_IsTrue(t_obj(g, "vacation_allowed")));
    cr_assert(cJSON_IsFalse(t_obj(t_obj(g, "vacation"), "white")));
    cr_assert(cJSON_IsFalse(t_obj(t_obj(g, "vacation"), "black")));
    cr_assert_null(cJSON_GetObjectItem(g, "clock"), "no live clock in a correspondence game");
    cJSON_Delete(g);
    cJSON *r = tc_rpc(A, "{\"type\":\"draw\",\"game\":%lld,\"action\":\"offer\"}", gid);
    t_ok(r, "draw offer");
    cJSON_Delete(r);
    r = tc_rpc(B, "{\"type\":\"vacation\",\"action\":\"on\",\"hours\":24}");
    t_ok(r, "vacation on");
    cJSON_Delete(r);
    g = t_game(B, gid);
    cr_assert_str_eq(t_str(g, "draw_offer"), "white");
    cr_assert(cJSON_IsFalse(t_obj(t_obj(g, "vacation"), "white")));
    cr_assert(cJSON_IsTrue(t_obj(t_obj(g, "vacation"), "black")));
    cJSON_Delete(g);
    advance(25 * HOUR, true); /* the vacation is over */
    g = t_game(A, gid);
    cr_assert(cJSON_IsFalse(t_obj(t_obj(g, "vacation"), "black")));
    cJSON_Delete(g);

    long long g2 =
        new_game("{\"kind\":\"correspondence\",\"days_per_move\":3}", ",\"vacation\":false");
    g = t_game(A, g2);
    cr_assert(cJSON_IsFalse(t_obj(g, "vacation_allowed")));
    cr_assert(cJSON_IsObject(t_obj(g, "vacation")));
    cJSON_Delete(g);
}

/* Until c's server counts name as offline (its connections' ends are
 * read): `users` with online false and the username. */
static void wait_offline(tconn *c, const char *name)
{
    for (int i = 0; i < 200; i++) {
        cJSON *r = tc_rpc(c, "{\"type\":\"users\",\"username\":\"%s\",\"online\":false}", name);
        t_ok(r, "users");
        int n = cJSON_GetArraySize(t_obj(r, "users"));
        cJSON_Delete(r);
        if (n == 1)
            return;
        usleep(10000);
    }
    cr_assert_fail("%s still counts as online", name);
}

/* docs/protocol.md "Notifications": in a game that is not correspondence a
 * player online when it starts or ends learns it from the event, and only a
 * player away gets the stored your_turn or game_end; a correspondence
 * player gets both whether online or not (test_corr.c). */
Test(live, a_live_games_notices_go_only_to_a_player_who_is_away)
{
    const char *tcs[] = {"{\"kind\":\"live\",\"initial_s\":300}", "{\"kind\":\"unlimited\"}"};
    for (int i = 0; i < 2; i++) {
        long long gid = new_game(tcs[i], NULL);
        cr_assert_eq(t_count_kind(A, "your_turn"), 0, "%s: alice was online at the start", tcs[i]);
        t_play_first(A, gid);
        cr_assert_eq(t_count_kind(B, "your_turn"), 0, "%s: bob was online at his turn", tcs[i]);
        tc_close(B);
        wait_offline(A, "bob");
        cJSON *r = tc_rpc(A, "{\"type\":\"resign\",\"game\":%lld}", gid);
        t_ok(r, "resign");
        cJSON_Delete(r);
        cr_assert_eq(t_count_kind(A, "game_end"), 0, "%s: alice was online at the end", tcs[i]);
        B = tc_open(S.port);
        r = tc_rpc(B, "{\"type\":\"login\",\"username\":\"bob\",\"password\":\"" T_PW "\"}");
        t_ok(r, "login");
        const cJSON *notes = t_obj(r, "notifications");
        cr_assert_eq(cJSON_GetArraySize(notes), 1, "%s: %s", tcs[i], t_text(notes));
        const cJSON *n = cJSON_GetArrayItem(notes, 0);
        cr_assert_str_eq(t_str(n, "kind"), "game_end");
        cr_assert_eq(t_int(n, "game"), gid);
        cr_assert_str_eq(t_str(n, "result"), "black", "bob, away, won by alice's resignation");
        cr_assert_str_eq(t_str(n, "color"), "black");
        cJSON_Delete(r);
        r = tc_rpc(B, "{\"type\":\"read\",\"all\":true}");
        t_ok(r, "read");
        cJSON_Delete(r);
    }
}
