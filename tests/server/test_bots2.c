/*
 * Bots, second step (issue 15) through the real server: `move` events
 * carry `legal_moves`; game objects carry `challenge` (also after a
 * restart); the challenger is told which game its challenge became (a
 * `challenge` event, status accepted, with `game`); the ten Lichess
 * decline reasons; challenge expiry on the test clock (direct 7 days,
 * seeks 24 h, exact to the millisecond); `rematch`; `users` with
 * `online`; the `server_stopping` event, also to a connection that never
 * logged in.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helper.h"

#define T0 1764478800000LL /* 2025-11-30 05:00 UTC: the test clock's start */
#define DAY (24LL * 3600 * 1000)

static tsrv S;

static void setup(void)
{
    char env[64];
    snprintf(env, sizeof env, "QK_TEST_CLOCK=%lld", T0);
    tsrv_start(&S, env);
}

static void teardown(void)
{
    tsrv_stop(&S);
    tsrv_cleanup(&S);
}

TestSuite(bots2, .init = setup, .fini = teardown, .timeout = 120);

/* The strings of array a joined by ",". */
static const char *joined(const cJSON *a)
{
    static char buf[1024];
    size_t n = 0;
    buf[0] = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, a)
    {
        cr_assert(cJSON_IsString(e));
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", n ? "," : "", e->valuestring);
    }
    return buf;
}

static long long challenge(tconn *from, const char *fields)
{
    cJSON *r = tc_rpc(from, "{\"type\":\"challenge\"%s}", fields);
    t_ok(r, "challenge");
    long long id = t_int(t_obj(r, "challenge"), "id");
    cJSON_Delete(r);
    return id;
}

Test(bots2, move_event_carries_legal_moves)
{
    tconn *a = tc_open(S.port), *b = tc_open(S.port);
    t_register(a, "ann");
    t_register(b, "bob");
    long long g = t_new_game(a, b, "bob", "alquerque");
    tc_drop_events(b);
    cJSON *r = tc_rpc(a, "{\"type\":\"move\",\"game\":%lld,\"ply\":0,\"move\":\"b2-c3\"}", g);
    t_ok(r, "move");
    cJSON_Delete(r);
    cJSON *ev = tc_event(b, "move", T_TIMEOUT_MS);
    cr_assert_not_null(ev);
    cr_assert_str_eq(t_str(ev, "turn"), "black");
    cr_assert_str_eq(joined(t_obj(ev, "legal_moves")), "b4xb2,d4xb2");
    cJSON_Delete(ev);
    /* The game over: the last move's event lists none. */
    r = tc_rpc(b, "{\"type\":\"resign\",\"game\":%lld}", g);
    t_ok(r, "resign");
    cr_assert_str_eq(joined(t_obj(t_obj(r, "game"), "legal_moves")), "");
    cJSON_Delete(r);
    tc_close(a);
    tc_close(b);
}

Test(bots2, game_names_its_challenge_and_the_challenger_learns_the_game)
{
    tconn *a = tc_open(S.port), *b = tc_open(S.port);
    t_register(a, "ann");
    t_register(b, "bob");
    long long cid = challenge(a, ",\"to\":\"bob\",\"color\":\"white\"");
    tc_drop_events(a);
    cJSON *r = tc_rpc(b, "{\"type\":\"accept\",\"challenge\":%lld}", cid);
    t_ok(r, "accept");
    long long g = t_int(t_obj(r, "game"), "id");
    cr_assert_eq(t_int(t_obj(r, "game"), "challenge"), cid);
    cJSON_Delete(r);
    cJSON *ev = tc_event(a, "challenge", T_TIMEOUT_MS);
    cr_assert_not_null(ev, "the challenger gets a challenge event");
    cr_assert_eq(t_int(t_obj(ev, "challenge"), "id"), cid);
    cr_assert_str_eq(t_str(t_obj(ev, "challenge"), "status"), "accepted");
    cr_assert_eq(t_int(t_obj(ev, "challenge"), "game"), g);
    cJSON_Delete(ev);
    ev = tc_event(a, "game_start", T_TIMEOUT_MS);
    cr_assert_not_null(ev);
    cr_assert_eq(t_int(t_obj(ev, "game"), "challenge"), cid);
    cJSON_Delete(ev);
    tc_close(a);
    tc_close(b);
    /* Stored: the column survives a restart (the game is reloaded). */
    tsrv_stop(&S);
    char env[64];
    snprintf(env, sizeof env, "QK_TEST_CLOCK=%lld", T0);
    tsrv_restart(&S, env);
    a = tc_open(S.port);
    r = tc_rpc(a, "{\"type\":\"login\",\"username\":\"ann\",\"password\":\"" T_PW "\"}");
    t_ok(r, "login");
    cJSON_Delete(r);
    r = tc_rpc(a, "{\"type\":\"game\",\"game\":%lld}", g);
    t_ok(r, "game");
    cr_assert_eq(t_int(t_obj(r, "game"), "challenge"), cid);
    cJSON_Delete(r);
    tc_close(a);
}

Test(bots2, lichess_decline_reasons)
{
    tconn *a = tc_open(S.port), *b = tc_open(S.port);
    t_register(a, "ann");
    t_register(b, "bob");
    const char *ok[] = {"generic", "later",  "too_fast", "too_slow", "time_control",
                        "rated",   "casual", "variant",  "no_bot",   "only_bot"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        long long cid = challenge(a, ",\"to\":\"bob\"");
        cJSON *r =
            tc_rpc(b, "{\"type\":\"decline\",\"challenge\":%lld,\"reason\":\"%s\"}", cid, ok[i]);
        t_ok(r, ok[i]);
        cr_assert_str_eq(t_str(t_obj(r, "challenge"), "reason"), ok[i]);
        cr_assert_str_eq(t_str(t_obj(r, "challenge"), "status"), "declined");
        cJSON_Delete(r);
    }
    long long cid = challenge(a, ",\"to\":\"bob\"");
    const char *bad[] = {"busy", "Later", "tooFast", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cJSON *r =
            tc_rpc(b, "{\"type\":\"decline\",\"challenge\":%lld,\"reason\":\"%s\"}", cid, bad[i]);
        t_err(r, "bad_request", bad[i]);
        cJSON_Delete(r);
    }
    cJSON *r = tc_rpc(b, "{\"type\":\"accept\",\"challenge\":%lld}", cid);
    t_ok(r, "still open after the refused declines");
    cJSON_Delete(r);
    tc_close(a);
    tc_close(b);
}

Test(bots2, challenges_expire_on_time)
{
    tconn *a = tc_open(S.port), *b = tc_open(S.port), *c = tc_open(S.port);
    t_register(a, "ann");
    t_register(b, "bob");
    t_register(c, "cat");
    /* Open seeks reach others through the lobby (issue 9). */
    for (int i = 0; i < 2; i++) {
        cJSON *l = tc_rpc(i ? c : b, "{\"type\":\"lobby\",\"action\":\"subscribe\"}");
        t_ok(l, "lobby");
        cJSON_Delete(l);
    }
    long long direct = challenge(a, ",\"to\":\"bob\"");
    long long seek = challenge(a, "");
    tc_sync(a);
    tc_sync(b);
    tc_sync(c);
    /* 24 h exactly: the seek is still open; one ms later it expires. */
    t_advance(a, DAY, true);
    cJSON *r = tc_rpc(c, "{\"type\":\"challenges\"}");
    cr_assert_eq(cJSON_GetArraySize(t_obj(r, "challenges")), 1, "%s", t_text(r));
    cJSON_Delete(r);
    t_advance(a, 1, true);
    tconn *who[] = {a, b, c};
    for (int i = 0; i < 3; i++) {
        cJSON *ev = tc_event(who[i], "challenge", T_TIMEOUT_MS);
        cr_assert_not_null(ev, "connection %d: the seek's expiry", i);
        cr_assert_eq(t_int(t_obj(ev, "challenge"), "id"), seek);
        cr_assert_str_eq(t_str(t_obj(ev, "challenge"), "status"), "expired");
        cJSON_Delete(ev);
    }
    r = tc_rpc(c, "{\"type\":\"accept\",\"challenge\":%lld}", seek);
    t_err(r, "conflict", "accept an expired seek");
    cr_assert_str_eq(t_str(r, "message"), "the challenge is already expired");
    cJSON_Delete(r);
    /* 7 days: the direct challenge; both sides are told, the third not. */
    t_advance(a, 6 * DAY - 1, true);
    r = tc_rpc(b, "{\"type\":\"challenges\"}");
    cr_assert_eq(cJSON_GetArraySize(t_obj(r, "challenges")), 1, "%s", t_text(r));
    cJSON_Delete(r);
    t_advance(a, 1, true);
    for (int i = 0; i < 2; i++) {
        cJSON *ev = tc_event(who[i], "challenge", T_TIMEOUT_MS);
        cr_assert_not_null(ev, "side %d: the direct challenge's expiry", i);
        cr_assert_eq(t_int(t_obj(ev, "challenge"), "id"), direct);
        cr_assert_str_eq(t_str(t_obj(ev, "challenge"), "status"), "expired");
        cJSON_Delete(ev);
    }
    r = tc_rpc(b, "{\"type\":\"challenges\"}");
    cr_assert_eq(cJSON_GetArraySize(t_obj(r, "challenges")), 0, "%s", t_text(r));
    cJSON_Delete(r);
    cJSON *none = tc_event(c, "challenge", 300);
    cr_assert_null(none, "a third user is not told of a direct challenge");
    cr_assert_eq(t_db_count(S.db, "challenges"), 2);
    tc_close(a);
    tc_close(b);
    tc_close(c);
}

Test(bots2, rematch_swaps_colours)
{
    tconn *a = tc_open(S.port), *b = tc_open(S.port), *c = tc_open(S.port);
    t_register(a, "ann");
    t_register(b, "bob");
    t_register(c, "cat");
    long long cid = challenge(a, ",\"to\":\"bob\",\"color\":\"white\",\"variant\":\"alquerque-"
                                 "brainking\",\"time_control\":{\"kind\":\"correspondence\","
                                 "\"days_per_move\":3},\"rated\":true");
    cJSON *r = tc_rpc(b, "{\"type\":\"accept\",\"challenge\":%lld}", cid);
    long long g = t_int(t_obj(r, "game"), "id");
    cJSON_Delete(r);
    r = tc_rpc(a, "{\"type\":\"rematch\",\"game\":%lld}", g);
    t_err(r, "conflict", "rematch of an active game");
    cJSON_Delete(r);
    r = tc_rpc(a, "{\"type\":\"resign\",\"game\":%lld}", g);
    cJSON_Delete(r);
    r = tc_rpc(c, "{\"type\":\"rematch\",\"game\":%lld}", g);
    t_err(r, "forbidden", "a non-player");
    cJSON_Delete(r);
    r = tc_rpc(a, "{\"type\":\"rematch\",\"game\":999}");
    t_err(r, "not_found", "no game");
    cJSON_Delete(r);
    char *before = t_db_dump(S.db);
    r = tc_rpc(a, "{\"type\":\"rematch\",\"game\":\"1\"}");
    t_err(r, "bad_request", "a string id");
    cJSON_Delete(r);
    char *after = t_db_dump(S.db);
    cr_assert_str_eq(before, after, "bad input changed a row");
    free(before);
    free(after);
    tc_drop_events(b);
    r = tc_rpc(a, "{\"type\":\"rematch\",\"game\":%lld}", g);
    t_ok(r, "rematch");
    const cJSON *ch = t_obj(r, "challenge");
    cr_assert_str_eq(t_str(ch, "from"), "ann");
    cr_assert_str_eq(t_str(ch, "to"), "bob");
    cr_assert_str_eq(t_str(ch, "color"), "black");
    cr_assert_str_eq(t_str(ch, "variant"), "alquerque-brainking");
    cr_assert_str_eq(t_text(t_obj(ch, "time_control")),
                     "{\"kind\":\"correspondence\",\"days_per_move\":3}");
    cr_assert(cJSON_IsNull(t_obj(ch, "position")));
    cr_assert(cJSON_IsTrue(t_obj(ch, "rated")));
    long long rid = t_int(ch, "id");
    cJSON_Delete(r);
    cJSON *ev = tc_event(b, "challenge", T_TIMEOUT_MS);
    cr_assert_not_null(ev);
    cr_assert_eq(t_int(t_obj(ev, "challenge"), "id"), rid);
    cJSON_Delete(ev);
    /* The loser may ask too, and gets the other colour of its own game. */
    r = tc_rpc(b, "{\"type\":\"rematch\",\"game\":%lld}", g);
    t_ok(r, "rematch by black");
    cr_assert_str_eq(t_str(t_obj(r, "challenge"), "color"), "white");
    cJSON_Delete(r);
    tc_close(a);
    tc_close(b);
    tc_close(c);
}

Test(bots2, rematch_keeps_a_custom_start)
{
    tconn *a = tc_open(S.port), *b = tc_open(S.port);
    t_register(a, "ann");
    t_register(b, "bob");
    const char *pos = "b..../...../...../...../....w w 0 -";
    char fields[160];
    snprintf(fields, sizeof fields, ",\"to\":\"bob\",\"color\":\"black\",\"position\":\"%s\"", pos);
    long long cid = challenge(a, fields);
    cJSON *r = tc_rpc(b, "{\"type\":\"accept\",\"challenge\":%lld}", cid);
    long long g = t_int(t_obj(r, "game"), "id");
    cJSON_Delete(r);
    r = tc_rpc(a, "{\"type\":\"abort\",\"game\":%lld}", g);
    t_ok(r, "abort");
    cJSON_Delete(r);
    r = tc_rpc(b, "{\"type\":\"rematch\",\"game\":%lld}", g);
    t_ok(r, "rematch of an aborted game");
    cr_assert_str_eq(t_str(t_obj(r, "challenge"), "position"), pos);
    cr_assert_str_eq(t_str(t_obj(r, "challenge"), "color"), "black", "bob was White");
    cr_assert_str_eq(t_str(t_obj(r, "challenge"), "to"), "ann");
    cJSON_Delete(r);
    tc_close(a);
    tc_close(b);
}

Test(bots2, users_online_lists_connected_bots)
{
    tconn *p = tc_open(S.port), *r1 = tc_open(S.port), *r2 = tc_open(S.port);
    t_register(p, "ann");
    cJSON *r = tc_rpc(r1, "{\"type\":\"register\",\"username\":\"robo-1\",\"password\":\"" T_PW
                          "\",\"bot\":true}");
    t_ok(r, "register robo-1");
    cJSON_Delete(r);
    r = tc_rpc(r2, "{\"type\":\"register\",\"username\":\"robo-2\",\"password\":\"" T_PW
                   "\",\"bot\":true}");
    t_ok(r, "register robo-2");
    cJSON_Delete(r);
    tc_close(r2); /* robo-2 goes offline */
    tc_sync(p);
    r = tc_rpc(p, "{\"type\":\"users\",\"bot\":true,\"online\":true}");
    t_ok(r, "users online");
    cr_assert_str_eq(t_text(t_obj(r, "users")), "[{\"username\":\"robo-1\",\"bot\":true,\"ratings\":{}}]");
    cJSON_Delete(r);
    r = tc_rpc(p, "{\"type\":\"users\",\"bot\":true,\"online\":false}");
    cr_assert_str_eq(t_text(t_obj(r, "users")), "[{\"username\":\"robo-2\",\"bot\":true,\"ratings\":{}}]");
    cJSON_Delete(r);
    r = tc_rpc(p, "{\"type\":\"users\",\"online\":true,\"limit\":1}");
    cr_assert_str_eq(t_text(t_obj(r, "users")), "[{\"username\":\"ann\",\"bot\":false,\"ratings\":{}}]");
    cJSON_Delete(r);
    r = tc_rpc(p, "{\"type\":\"users\",\"online\":\"yes\"}");
    t_err(r, "bad_request", "online must be a bool");
    cJSON_Delete(r);
    tc_close(p);
    tc_close(r1);
}

Test(stopping, server_stopping_reaches_every_connection)
{
    tsrv s;
    tsrv_start(&s, NULL);
    tconn *anon = tc_open(s.port), *user = tc_open(s.port);
    t_register(user, "ann");
    cJSON *r = tc_rpc(anon, "{\"type\":\"ping\"}");
    t_ok(r, "ping");
    cJSON_Delete(r);
    tsrv_stop(&s);
    tconn *both[] = {anon, user};
    for (int i = 0; i < 2; i++) {
        cJSON *ev = tc_event(both[i], "server_stopping", T_TIMEOUT_MS);
        cr_assert_not_null(ev, "connection %d got no server_stopping", i);
        cr_assert_str_eq(t_text(ev), "{\"type\":\"event\",\"event\":\"server_stopping\"}");
        cJSON_Delete(ev);
        cr_assert(tc_wait_eof(both[i], T_TIMEOUT_MS));
    }
    tc_close(anon);
    tc_close(user);
    tsrv_cleanup(&s);
}

Test(bots2, draw_and_abort_answers_carry_legal_moves)
{
    tconn *a = tc_open(S.port), *b = tc_open(S.port);
    t_register(a, "ann");
    t_register(b, "bob");
    long long g = t_new_game(a, b, "bob", "alquerque");
    cJSON *r = tc_rpc(a, "{\"type\":\"draw\",\"game\":%lld,\"action\":\"offer\"}", g);
    t_ok(r, "draw offer");
    cr_assert_str_eq(joined(t_obj(t_obj(r, "game"), "legal_moves")), "b2-c3,b3-c3,c2-c3,d2-c3");
    cJSON_Delete(r);
    r = tc_rpc(b, "{\"type\":\"draw\",\"game\":%lld,\"action\":\"decline\"}", g);
    t_ok(r, "draw decline");
    cr_assert_str_eq(joined(t_obj(t_obj(r, "game"), "legal_moves")), "b2-c3,b3-c3,c2-c3,d2-c3");
    cJSON_Delete(r);
    r = tc_rpc(a, "{\"type\":\"abort\",\"game\":%lld}", g);
    t_ok(r, "abort");
    const cJSON *lm = t_obj(t_obj(r, "game"), "legal_moves");
    cr_assert(cJSON_IsArray(lm) && cJSON_GetArraySize(lm) == 0, "%s", t_text(r));
    cJSON_Delete(r);
    tc_close(a);
    tc_close(b);
}
