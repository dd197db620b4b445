/*
 * Correspondence play (issue 4) through the real server with a test
 * clock (QK_TEST_CLOCK: time moves only by the debug_clock op): timeouts
 * and their winner, the 24-hour warning sent once, deadlines extended
 * after a long stop and the extension recorded, vacation moving a
 * deadline and spending the allowance, notifications delivered at login in
 * order exactly once and read marks kept across a restart, a resent move
 * after a dropped connection, the `games` listing of your turn, draw,
 * abort, private games, the heartbeat, and bad input that changes nothing.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helper.h"

#define T0 1700000000000LL /* 2023-11-14 */
#define HOUR 3600000LL
#define DAY (24 * HOUR)

static tsrv S;
static tconn *A, *B; /* alice, bob: logged in */
static char env[64];

static void start_at(long long ms)
{
    snprintf(env, sizeof env, "QK_TEST_CLOCK=%lld", ms);
    tsrv_start(&S, env);
}

static void setup(void)
{
    start_at(T0);
    A = tc_open(S.port);
    B = tc_open(S.port);
    t_register(A, "alice");
    t_register(B, "bob");
}

static void teardown(void)
{
    if (A)
        tc_close(A);
    if (B)
        tc_close(B);
    A = B = NULL;
    tsrv_stop(&S);
    tsrv_cleanup(&S);
}

TestSuite(corr, .init = setup, .fini = teardown, .timeout = 60);

static void advance(tconn *c, long long ms)
{
    t_advance(c, ms, true);
}

/* alice (white) challenges bob with tc (JSON text) and extra fields; bob
 * accepts; the game id. */
static long long new_game(const char *variant, const char *tc, const char *extra)
{
    return t_new_game_tc(A, B, "bob", variant, tc, extra);
}

Test(corr, timeout_gives_the_win_to_the_other_side_and_warns_once)
{
    long long gid = new_game("alquerque", "{\"kind\":\"correspondence\",\"days_per_move\":3}", NULL);
    t_play_first(A, gid); /* bob to move, deadline T0 + 3 days */
    cJSON *g = t_game(B, gid);
    cr_assert_eq(t_int(g, "deadline"), T0 + 3 * DAY);
    cr_assert_eq(t_int(g, "time_left_ms"), 3 * DAY);
    cJSON_Delete(g);
    advance(A, 2 * DAY - HOUR); /* 25 h left: no warning yet */
    cr_assert_eq(t_count_kind(B, "deadline_soon"), 0);
    tc_sync(B);
    advance(A, 2 * HOUR); /* 23 h left */
    cr_assert_eq(t_count_kind(B, "deadline_soon"), 1);
    cJSON *ev = tc_event(B, "notification", T_TIMEOUT_MS);
    cr_assert_not_null(ev);
    cr_assert_str_eq(t_str(t_obj(ev, "notification"), "kind"), "deadline_soon");
    cr_assert_eq(t_int(t_obj(ev, "notification"), "deadline"), T0 + 3 * DAY);
    cJSON_Delete(ev);
    advance(A, 10 * HOUR); /* still before the deadline: no second warning */
    cr_assert_eq(t_count_kind(B, "deadline_soon"), 1);
    tc_sync(A);
    advance(A, 13 * HOUR); /* exactly the deadline */
    ev = tc_event(A, "game_end", T_TIMEOUT_MS);
    cr_assert_not_null(ev, "no game_end at the deadline");
    cr_assert_str_eq(t_str(ev, "reason"), "timeout");
    cr_assert_str_eq(t_str(ev, "result"), "white");
    cJSON_Delete(ev);
    g = t_game(A, gid);
    cr_assert_str_eq(t_str(g, "status"), "finished");
    cr_assert_str_eq(t_str(g, "result"), "white");
    cJSON_Delete(g);
    cr_assert_eq(t_count_kind(B, "game_end"), 1);
    cr_assert_eq(t_count_kind(B, "deadline_soon"), 1);
    /* Each player's game_end notification names their own side. */
    cJSON *r = tc_rpc(B, "{\"type\":\"notifications\"}");
    t_ok(r, "notifications");
    const cJSON *n, *end = NULL;
    cJSON_ArrayForEach(n, t_obj(r, "notifications")) if (strcmp(t_str(n, "kind"), "game_end") == 0) end = n;
    cr_assert_not_null(end);
    cr_assert_str_eq(t_str(end, "color"), "black");
    cr_assert_str_eq(t_str(end, "result"), "white");
    cJSON_Delete(r);
}

Test(corr, live_clock_runs_out_for_white)
{
    long long gid =
        new_game("alquerque", "{\"kind\":\"live\",\"initial_s\":60,\"increment_s\":2}", NULL);
    t_play_first(A, gid); /* the first move of each side is free, and earns 2 s */
    t_play_first(B, gid);
    advance(B, 30000);
    cJSON *g = t_game(A, gid);
    cr_assert_eq(t_int(t_obj(g, "clock"), "white"), 32000);
    cr_assert_eq(t_int(t_obj(g, "clock"), "black"), 62000);
    cJSON_Delete(g);
    advance(B, 32000);
    g = t_game(A, gid);
    cr_assert_str_eq(t_str(g, "reason"), "timeout");
    cr_assert_str_eq(t_str(g, "result"), "black");
    cr_assert_eq(t_int(t_obj(g, "clock"), "white"), 0);
    cr_assert_eq(t_int(t_obj(g, "clock"), "black"), 62000);
    cJSON_Delete(g);
}

Test(corr, restart_after_a_long_stop_extends_deadlines_and_records_it)
{
    long long gid = new_game("alquerque", "{\"kind\":\"correspondence\",\"days_per_move\":2}", NULL);
    long long live = new_game("alquerque", "{\"kind\":\"unlimited\"}", NULL);
    t_play_first(A, gid);
    tc_close(A);
    tc_close(B);
    A = B = NULL;
    tsrv_stop(&S); /* last_alive = T0 */
    snprintf(env, sizeof env, "QK_TEST_CLOCK=%lld", T0 + 5 * HOUR);
    tsrv_restart(&S, env);
    A = tc_open(S.port);
    cJSON *r = tc_rpc(A, "{\"type\":\"login\",\"username\":\"alice\",\"password\":\"" T_PW "\"}");
    t_ok(r, "login");
    cJSON_Delete(r);
    cJSON *g = t_game(A, gid);
    cr_assert_eq(t_int(g, "deadline"), T0 + 2 * DAY + 5 * HOUR);
    cr_assert_eq(t_int(g, "extended_ms"), 5 * HOUR);
    const cJSON *ext = t_obj(g, "extensions");
    cr_assert_eq(cJSON_GetArraySize(ext), 1);
    cr_assert_str_eq(t_str(cJSON_GetArrayItem(ext, 0), "kind"), "downtime");
    cr_assert_eq(t_int(cJSON_GetArrayItem(ext, 0), "ms"), 5 * HOUR);
    cJSON_Delete(g);
    g = t_game(A, live); /* no deadline: nothing to extend */
    cr_assert_eq(t_int(g, "extended_ms"), 0);
    cJSON_Delete(g);
    /* A short stop (30 min) extends nothing. */
    tc_close(A);
    A = NULL;
    tsrv_stop(&S);
    snprintf(env, sizeof env, "QK_TEST_CLOCK=%lld", T0 + 5 * HOUR + 30 * 60000);
    tsrv_restart(&S, env);
    A = tc_open(S.port);
    r = tc_rpc(A, "{\"type\":\"login\",\"username\":\"alice\",\"password\":\"" T_PW "\"}");
    t_ok(r, "login");
    cJSON_Delete(r);
    g = t_game(A, gid);
    cr_assert_eq(t_int(g, "deadline"), T0 + 2 * DAY + 5 * HOUR);
    cJSON_Delete(g);
    /* And the deadline still ends the game, from the reloaded timer. */
    advance(A, 2 * DAY);
    g = t_game(A, gid);
    cr_assert_str_eq(t_str(g, "reason"), "timeout");
    cJSON_Delete(g);
}

Test(corr, vacation_moves_the_deadline_and_spends_the_allowance)
{
    cJSON *r = tc_rpc(B, "{\"type\":\"vacation\",\"action\":\"status\"}");
    t_ok(r, "status");
    cr_assert_eq(t_int(t_obj(r, "vacation"), "left_h"), 720);
    cJSON_Delete(r);
    long long gid = new_game("alquerque", "{\"kind\":\"correspondence\",\"days_per_move\":1}", NULL);
    long long strict = new_game("alquerque", "{\"kind\":\"correspondence\",\"days_per_move\":1}",
                                ",\"vacation\":false");
    r = tc_rpc(B, "{\"type\":\"vacation\",\"action\":\"on\",\"hours\":48}");
    t_ok(r, "vacation on");
    cr_assert(cJSON_IsTrue(t_obj(t_obj(r, "vacation"), "on")));
    cr_assert_eq(t_int(t_obj(r, "vacation"), "until"), T0 + 48 * HOUR);
    cJSON_Delete(r);
    t_play_first(A, gid);
    t_play_first(A, strict);
    advance(A, DAY + 1);
    cJSON *g = t_game(A, gid);
    cr_assert_str_eq(t_str(g, "status"), "active");
    /* The day that was left when the vacation began, from its end. */
    cr_assert_eq(t_int(g, "deadline"), T0 + 48 * HOUR + DAY);
    cr_assert_eq(t_int(g, "extended_ms"), 48 * HOUR);
    cr_assert_str_eq(t_str(cJSON_GetArrayItem(t_obj(g, "extensions"), 0), "kind"), "vacation");
    cJSON_Delete(g);
    g = t_game(A, strict); /* vacation: false in the challenge */
    cr_assert_str_eq(t_str(g, "reason"), "timeout");
    cJSON_Delete(g);
    r = tc_rpc(B, "{\"type\":\"vacation\",\"action\":\"off\"}");
    t_ok(r, "vacation off");
    cr_assert_eq(t_int(t_obj(r, "vacation"), "left_h"), 720 - 25); /* 24 h + 1 ms used */
    cJSON_Delete(r);
    r = tc_rpc(B, "{\"type\":\"vacation\",\"action\":\"status\"}");
    cr_assert_eq(t_int(t_obj(r, "vacation"), "left_h"), 695);
    cr_assert(cJSON_IsFalse(t_obj(t_obj(r, "vacation"), "on")));
    cJSON_Delete(r);
}

Test(corr, offline_user_gets_every_notification_at_login_once_and_read_marks_survive)
{
    long long gid = new_game("alquerque", "{\"kind\":\"correspondence\",\"days_per_move\":5}", NULL);
    cJSON *r = tc_rpc(A, "{\"type\":\"read\",\"all\":true}");
    t_ok(r, "read all");
    cr_assert_eq(t_int(r, "unread"), 0);
    cJSON_Delete(r);
    t_play_first(A, gid);
    tc_close(A); /* alice goes offline for the rest of the game */
    A = NULL;
    t_play_first(B, gid);
    r = tc_rpc(B, "{\"type\":\"draw\",\"game\":%lld,\"action\":\"offer\"}", gid);
    t_ok(r, "draw offer");
    cJSON_Delete(r);
    r = tc_rpc(B, "{\"type\":\"resign\",\"game\":%lld}", gid);
    t_ok(r, "resign");
    cJSON_Delete(r);
    A = tc_open(S.port);
    r = tc_rpc(A, "{\"type\":\"login\",\"username\":\"alice\",\"password\":\"" T_PW "\"}");
    t_ok(r, "login");
    const cJSON *notes = t_obj(r, "notifications");
    const char *want[] = {"your_turn", "draw_offer", "game_end"};
    cr_assert_eq(cJSON_GetArraySize(notes), 3, "%s", t_text(notes));
    long long last = 0;
    for (int i = 0; i < 3; i++) {
        const cJSON *n = cJSON_GetArrayItem(notes, i);
        cr_assert_str_eq(t_str(n, "kind"), want[i]);
        cr_assert_eq(t_int(n, "game"), gid);
        cr_assert_gt(t_int(n, "id"), last, "in order, each once");
        last = t_int(n, "id");
        cr_assert_str_eq(t_str(n, "opponent"), "bob");
    }
    cr_assert_str_neq(t_str(cJSON_GetArrayItem(notes, 0), "move"), "");
    cr_assert_str_eq(t_str(cJSON_GetArrayItem(notes, 2), "result"), "white");
    cr_assert_str_eq(t_str(cJSON_GetArrayItem(notes, 2), "reason"), "resign");
    cr_assert_str_eq(t_str(cJSON_GetArrayItem(notes, 2), "color"), "white", "the recipient's side");
    cJSON_Delete(r);
    r = tc_rpc(A, "{\"type\":\"read\",\"all\":true}");
    t_ok(r, "read");
    cJSON_Delete(r);
    tc_close(A);
    tc_close(B);
    A = B = NULL;
    tsrv_kill(&S); /* even a crash keeps committed read marks */
    tsrv_restart(&S, env);
    A = tc_open(S.port);
    r = tc_rpc(A, "{\"type\":\"login\",\"username\":\"alice\",\"password\":\"" T_PW "\"}");
    t_ok(r, "login again");
    cr_assert_eq(cJSON_GetArraySize(t_obj(r, "notifications")), 0);
    cJSON_Delete(r);
    r = tc_rpc(A, "{\"type\":\"notifications\"}");
    cr_assert_eq(t_int(r, "unread"), 0);
    cr_assert_geq(cJSON_GetArraySize(t_obj(r, "notifications")), 4);
    cJSON_Delete(r);
}

Test(corr, notifications_are_pushed_to_every_connection_and_listed_unread_first)
{
    tconn *b2 = tc_open(S.port);
    cJSON *r = tc_rpc(b2, "{\"type\":\"login\",\"username\":\"bob\",\"password\":\"" T_PW "\"}");
    t_ok(r, "second login");
    cJSON_Delete(r);
    r = tc_rpc(A, "{\"type\":\"challenge\",\"to\":\"bob\"}");
    t_ok(r, "challenge");
    cJSON_Delete(r);
    tconn *both[2] = {B, b2};
    for (int i = 0; i < 2; i++) {
        cJSON *ev = tc_event(both[i], "notification", T_TIMEOUT_MS);
        cr_assert_not_null(ev, "connection %d got no notification", i);
        cr_assert_str_eq(t_str(t_obj(ev, "notification"), "kind"), "challenge");
        cr_assert_str_eq(t_str(t_obj(ev, "notification"), "from"), "alice");
        cJSON_Delete(ev);
    }
    tc_close(b2);
    r = tc_rpc(A, "{\"type\":\"challenge\",\"to\":\"bob\"}");
    cJSON_Delete(r);
    r = tc_rpc(B, "{\"type\":\"notifications\"}");
    const cJSON *l = t_obj(r, "notifications");
    cr_assert_eq(cJSON_GetArraySize(l), 2);
    long long first = t_int(cJSON_GetArrayItem(l, 0), "id");
    cJSON_Delete(r);
    r = tc_rpc(B, "{\"type\":\"read\",\"ids\":[%lld]}", first);
    t_ok(r, "read one");
    cr_assert_eq(t_int(r, "count"), 1);
    cr_assert_eq(t_int(r, "unread"), 1);
    cJSON_Delete(r);
    r = tc_rpc(B, "{\"type\":\"notifications\"}");
    l = t_obj(r, "notifications");
    cr_assert(cJSON_IsFalse(t_obj(cJSON_GetArrayItem(l, 0), "read")), "unread first");
    cr_assert_eq(t_int(cJSON_GetArrayItem(l, 1), "id"), first);
    cJSON_Delete(r);
    r = tc_rpc(B, "{\"type\":\"notifications\",\"unread\":true}");
    cr_assert_eq(cJSON_GetArraySize(t_obj(r, "notifications")), 1);
    cJSON_Delete(r);
}

Test(corr, resent_move_after_a_dropped_connection_is_a_duplicate_applied_once)
{
    long long gid = new_game("alquerque", "{\"kind\":\"correspondence\",\"days_per_move\":2}", NULL);
    cJSON *g = t_game(A, gid);
    const char *mv = cJSON_GetArrayItem(t_obj(g, "legal_moves"), 0)->valuestring;
    char move[32];
    snprintf(move, sizeof move, "%s", mv);
    cJSON_Delete(g);
    /* Sent, and the connection dropped before the answer is read. */
    tc_sendf(A, "{\"type\":\"move\",\"id\":900,\"game\":%lld,\"ply\":0,\"move\":\"%s\"}\n", gid,
             move);
    cJSON *ans = tc_reply(A, T_TIMEOUT_MS); /* wait until the server has it */
    cJSON_Delete(ans);
    tc_close(A);
    A = tc_open(S.port);
    cJSON *r = tc_rpc(A, "{\"type\":\"login\",\"username\":\"alice\",\"password\":\"" T_PW "\"}");
    t_ok(r, "login");
    cJSON_Delete(r);
    r = tc_rpc(A, "{\"type\":\"move\",\"game\":%lld,\"ply\":0,\"move\":\"%s\"}", gid, move);
    t_ok(r, "resent move");
    cr_assert(cJSON_IsTrue(t_obj(r, "duplicate")));
    cr_assert_eq(t_int(t_obj(r, "game"), "ply"), 1);
    cJSON_Delete(r);
    cr_assert_eq(t_db_count(S.db, "moves"), 1);
}

Test(corr, games_of_my_turn_sorted_by_deadline_with_time_left_and_filters)
{
    tconn *c = tc_open(S.port);
    t_register(c, "carol");
    long long g3 = new_game("alquerque", "{\"kind\":\"correspondence\",\"days_per_move\":3}", NULL);
    long long gu = new_game("alquerque", "{\"kind\":\"unlimited\"}", NULL);
    long long g1 = new_game("alquerque-brainking",
                            "{\"kind\":\"correspondence\",\"days_per_move\":1}", NULL);
    long long gl =
        new_game("alquerque", "{\"kind\":\"live\",\"initial_s\":600,\"increment_s\":0}", NULL);
    long long gc = t_new_game(A, c, "carol", "alquerque");
    long long gb = new_game("alquerque", "{\"kind\":\"unlimited\"}", NULL);
    t_play_first(A, gb); /* bob's turn there */
    advance(A, 1000);
    cJSON *r = tc_rpc(A, "{\"type\":\"games\",\"turn\":\"mine\"}");
    t_ok(r, "games mine");
    const cJSON *l = t_obj(r, "games");
    long long want[] = {gl, g1, g3, gu, gc}; /* no deadline: by id */
    cr_assert_eq(cJSON_GetArraySize(l), 5, "%s", t_text(l));
    for (int i = 0; i < 5; i++)
        cr_assert_eq(t_int(cJSON_GetArrayItem(l, i), "id"), want[i], "position %d", i);
    const cJSON *live = cJSON_GetArrayItem(l, 0);
    /* No clock runs before a side's first move (issue 10). */
    cr_assert_eq(t_int(t_obj(live, "clock"), "white"), 600000);
    cr_assert_eq(t_int(t_obj(live, "clock"), "black"), 600000);
    cr_assert_eq(t_int(cJSON_GetArrayItem(l, 1), "time_left_ms"), DAY - 1000);
    cr_assert(cJSON_IsNull(t_obj(cJSON_GetArrayItem(l, 4), "time_left_ms")));
    cJSON_Delete(r);
    r = tc_rpc(A, "{\"type\":\"games\",\"turn\":\"mine\",\"opponent\":\"carol\"}");
    cr_assert_eq(cJSON_GetArraySize(t_obj(r, "games")), 1);
    cJSON_Delete(r);
    r = tc_rpc(A, "{\"type\":\"games\",\"opponent\":\"bob\"}");
    cr_assert_eq(cJSON_GetArraySize(t_obj(r, "games")), 5);
    cJSON_Delete(r);
    r = tc_rpc(A, "{\"type\":\"games\",\"turn\":\"mine\",\"variant\":\"alquerque-brainking\"}");
    cr_assert_eq(cJSON_GetArraySize(t_obj(r, "games")), 1);
    cJSON_Delete(r);
    r = tc_rpc(A, "{\"type\":\"games\",\"turn\":\"mine\",\"before\":%lld}", gc);
    cr_assert_eq(cJSON_GetArraySize(t_obj(r, "games")), 4);
    cJSON_Delete(r);
    tc_close(c);
}

Test(corr, draw_by_agreement_and_abort)
{
    long long gid = new_game("alquerque", "{\"kind\":\"correspondence\",\"days_per_move\":2}", NULL);
    cJSON *r = tc_rpc(A, "{\"type\":\"draw\",\"game\":%lld,\"action\":\"offer\"}", gid);
    t_ok(r, "offer");
    cr_assert_str_eq(t_str(t_obj(r, "game"), "draw_offer"), "white");
    cJSON_Delete(r);
    cJSON *ev = tc_event(B, "draw_offer", T_TIMEOUT_MS);
    cr_assert_not_null(ev);
    cr_assert_str_eq(t_str(ev, "action"), "offer");
    cJSON_Delete(ev);
    r = tc_rpc(A, "{\"type\":\"draw\",\"game\":%lld,\"action\":\"accept\"}", gid);
    t_err(r, "conflict", "accepting one's own offer");
    cJSON_Delete(r);
    r = tc_rpc(B, "{\"type\":\"draw\",\"game\":%lld,\"action\":\"accept\"}", gid);
    t_ok(r, "accept");
    cr_assert_str_eq(t_str(t_obj(r, "game"), "result"), "draw");
    cr_assert_str_eq(t_str(t_obj(r, "game"), "reason"), "agreement");
    cJSON_Delete(r);
    long long g2 = new_game("alquerque", "{\"kind\":\"unlimited\"}", NULL);
    t_play_first(A, g2);
    r = tc_rpc(B, "{\"type\":\"abort\",\"game\":%lld}", g2);
    t_ok(r, "abort before both moved");
    cr_assert_str_eq(t_str(t_obj(r, "game"), "status"), "aborted");
    cr_assert_str_eq(t_str(t_obj(r, "game"), "reason"), "aborted");
    cJSON_Delete(r);
}

Test(corr, bad_input_is_refused_and_changes_nothing)
{
    tconn *c = tc_open(S.port);
    t_register(c, "carol");
    long long pub = new_game("alquerque", "{\"kind\":\"unlimited\"}", NULL);
    long long priv = new_game("alquerque", "{\"kind\":\"unlimited\"}", ",\"private\":true");
    long long bk = new_game("alquerque-brainking", "{\"kind\":\"unlimited\"}", NULL);
    long long kon = new_game("alquerkonane-6x4", "{\"kind\":\"unlimited\"}", NULL);
    t_play_first(A, pub);
    t_play_first(B, pub);
    cJSON *r = tc_rpc(B, "{\"type\":\"notifications\"}");
    long long bobs = t_int(cJSON_GetArrayItem(t_obj(r, "notifications"), 0), "id");
    cJSON_Delete(r);
    char *before = t_db_dump(S.db);
    static const struct {
        const char *code, *what;
    } bad[] = {
        {"bad_request", "{\"type\":\"challenge\",\"to\":\"bob\",\"time_control\":"
                        "{\"kind\":\"correspondence\",\"days_per_move\":15}}"},
        {"bad_request", "{\"type\":\"challenge\",\"to\":\"bob\",\"time_control\":"
                        "{\"kind\":\"correspondence\",\"days_per_move\":0}}"},
        {"bad_request", "{\"type\":\"challenge\",\"to\":\"bob\",\"time_control\":"
                        "{\"kind\":\"live\",\"initial_s\":10801}}"},
        {"bad_request", "{\"type\":\"vacation\",\"action\":\"on\",\"hours\":721}"},
        {"bad_request", "{\"type\":\"vacation\",\"action\":\"sometimes\"}"},
        {"conflict", "{\"type\":\"vacation\",\"action\":\"off\"}"},
        {"bad_request", "{\"type\":\"draw\",\"game\":BK,\"action\":\"offer\"}"},
        {"bad_request", "{\"type\":\"draw\",\"game\":KON,\"action\":\"offer\"}"},
        {"conflict", "{\"type\":\"abort\",\"game\":PUB}"},
        {"forbidden", "{\"type\":\"read\",\"ids\":[BOBS]}"},
        {"not_found", "{\"type\":\"read\",\"ids\":[999999]}"},
        {"bad_request", "{\"type\":\"read\",\"ids\":[1.5]}"},
        {"bad_request", "{\"type\":\"read\"}"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char line[512], num[32];
        snprintf(line, sizeof line, "%s", bad[i].what);
        const char *keys[] = {"BK", "KON", "PUB", "BOBS"};
        long long vals[] = {bk, kon, pub, bobs};
        for (int k = 0; k < 4; k++) {
            char *p = strstr(line, keys[k]);
            if (p) {
                char rest[512];
                snprintf(rest, sizeof rest, "%s", p + strlen(keys[k]));
                snprintf(num, sizeof num, "%lld", vals[k]);
                snprintf(p, sizeof line - (size_t)(p - line), "%s%s", num, rest);
            }
        }
        r = tc_rpc(A, "%s", line);
        t_err(r, bad[i].code, line);
        cr_assert_gt(strlen(t_str(r, "message")), 10, "a clear message for %s", line);
        cJSON_Delete(r);
    }
    r = tc_rpc(c, "{\"type\":\"subscribe\",\"game\":%lld}", priv);
    t_err(r, "forbidden", "watching a private game");
    cJSON_Delete(r);
    r = tc_rpc(c, "{\"type\":\"subscribe\",\"game\":%lld}", pub);
    t_ok(r, "watching a public game");
    cJSON_Delete(r);
    r = tc_rpc(c, "{\"type\":\"game\",\"game\":%lld}", priv);
    t_err(r, "forbidden", "reading a private game");
    cJSON_Delete(r);
    /* A listing shows no more than `game` does: the private game is left
     * out for carol, listed for its players. */
    for (int who = 0; who < 2; who++) {
        r = tc_rpc(who ? A : c, "{\"type\":\"games\",\"user\":\"alice\",\"limit\":200}");
        t_ok(r, "games of alice");
        bool seen_pub = false, seen_priv = false;
        const cJSON *g;
        cJSON_ArrayForEach(g, t_obj(r, "games"))
        {
            seen_pub |= t_int(g, "id") == pub;
            seen_priv |= t_int(g, "id") == priv;
        }
        cr_assert(seen_pub, "the public game is listed");
        cr_assert_eq(seen_priv, who == 1, "private game listed for %s", who ? "alice" : "carol");
        cJSON_Delete(r);
    }
    char *after = t_db_dump(S.db);
    cr_assert_str_eq(before, after, "bad input changed the database");
    free(before);
    free(after);
    tc_close(c);
}

Test(corr, debug_clock_needs_a_login_and_stays_in_range)
{
    tconn *c = tc_open(S.port);
    cJSON *r = tc_rpc(c, "{\"type\":\"debug_clock\",\"advance_ms\":1000}");
    t_err(r, "unauthenticated", "debug_clock anonymously");
    cJSON_Delete(r);
    tc_close(c);
    /* 2^53 - 1 is the last ms; nothing passes it, however it is reached. */
    r = tc_rpc(A, "{\"type\":\"debug_clock\",\"set_ms\":9007199254740992}");
    t_err(r, "bad_request", "set_ms past 2^53-1");
    cJSON_Delete(r);
    r = tc_rpc(A, "{\"type\":\"debug_clock\",\"set_ms\":9007199254740000}");
    t_ok(r, "set_ms near the end");
    cJSON_Delete(r);
    r = tc_rpc(A, "{\"type\":\"debug_clock\",\"advance_ms\":991}");
    t_ok(r, "advance to exactly 2^53-1");
    cr_assert_eq(t_int(r, "now"), 9007199254740991LL);
    cJSON_Delete(r);
    for (int i = 0; i < 3; i++) {
        r = tc_rpc(A, "{\"type\":\"debug_clock\",\"advance_ms\":1}");
        t_err(r, "bad_request", "advance past 2^53-1");
        cJSON_Delete(r);
    }
}

Test(corr, debug_clock_is_unknown_without_the_test_clock)
{
    tsrv plain;
    tsrv_start(&plain, NULL);
    tconn *c = tc_open(plain.port);
    cJSON *r = tc_rpc(c, "{\"type\":\"debug_clock\",\"advance_ms\":1000}");
    t_err(r, "unknown_op", "debug_clock without --test-clock");
    cJSON_Delete(r);
    tc_close(c);
    tsrv_stop(&plain);
    tsrv_cleanup(&plain);
}

Test(corr, heartbeat_empty_line_after_silence)
{
    tsrv hb;
    tsrv_start(&hb, "QK_HEARTBEAT_MS=150");
    tconn *c = tc_open(hb.port);
    cr_assert_null(tc_read(c, 700), "only empty lines come");
    cr_assert_geq(c->blanks, 2, "heartbeats: %d", c->blanks);
    tc_close(c);
    tsrv_stop(&hb);
    tsrv_cleanup(&hb);
}
