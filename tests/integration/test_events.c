/*
 * Events over raw connections: two players (and a watcher) on their own
 * TCP connections play a recorded game with `move` at the given ply; the
 * opponent sees every move as a `move` event (PROTOCOL.md "Events";
 * docs/design.md: `game`, `ply`, `move`, `position`, `turn`, `status`) and
 * both see `game_end` with the recorded result.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "harness.h"

TestSuite(events, .init = h_setup, .fini = h_teardown, .timeout = 300);

#define PW "s3cret-pass"

struct want_move {
    long long game;
    int ply;
};

static bool match_move(const cJSON *ev, const void *arg)
{
    const struct want_move *w = arg;
    long long g, ply;
    return hj_has_int(ev, "game", &g) && g == w->game && hj_has_int(ev, "ply", &ply) &&
           ply == w->ply;
}

static bool match_game(const cJSON *ev, const void *arg)
{
    long long g;
    return hj_has_int(ev, "game", &g) && g == *(const long long *)arg;
}

static bool match_game_obj(const cJSON *ev, const void *arg)
{
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(ev, "game");
    long long id;
    return cJSON_IsObject(g) && hj_has_int(g, "id", &id) && id == *(const long long *)arg;
}

static bool match_challenge(const cJSON *ev, const void *arg)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(ev, "challenge");
    long long id;
    return cJSON_IsObject(c) && hj_has_int(c, "id", &id) && id == *(const long long *)arg;
}

/* alice (White) challenges bob over raw connections; bob accepts. Checks
 * the `challenge` and `game_start` events. Returns the game id. */
static long long open_game(hconn *alice, hconn *bob, const hgame *g)
{
    cJSON *r = hconn_rpc(alice,
                         "{\"type\":\"challenge\",\"to\":\"bob\",\"variant\":\"%s\","
                         "\"color\":\"white\"}",
                         g->variant);
    hj_assert_ok(r, "challenge");
    const cJSON *ch = cJSON_GetObjectItemCaseSensitive(r, "challenge");
    cr_assert(cJSON_IsObject(ch), "challenge result: %s", hj_text(r));
    long long cid = hj_int(ch, "id");
    cJSON_Delete(r);

    cJSON *ev = hconn_event(bob, "challenge", match_challenge, &cid, H_READ_TIMEOUT_MS);
    cr_assert_not_null(ev, "bob got no `challenge` event for challenge %lld", cid);
    cJSON_Delete(ev);

    r = hconn_rpc(bob, "{\"type\":\"accept\",\"challenge\":%lld}", cid);
    hj_assert_ok(r, "accept");
    const cJSON *game = hj_game(r);
    long long gid = hj_int(game, "id");
    cr_assert_str_eq(hj_str(game, "white"), "alice", "%s", hj_text(r));
    cr_assert_str_eq(hj_str(game, "black"), "bob", "%s", hj_text(r));
    cr_assert_str_eq(hj_str(game, "position"), g->start, "%s", hj_text(r));
    cJSON_Delete(r);

    ev = hconn_event(alice, "game_start", match_game_obj, &gid, H_READ_TIMEOUT_MS);
    cr_assert_not_null(ev, "alice got no `game_start` event for game %lld", gid);
    cJSON_Delete(ev);
    return gid;
}

/* Check the `move` event of ply i on conn c. */
static void expect_move_event(hconn *c, const char *who, long long gid, int i, const hgame *g,
                              const char *position, const char *turn, const char *status)
{
    struct want_move w = {gid, i};
    cJSON *ev = hconn_event(c, "move", match_move, &w, H_READ_TIMEOUT_MS);
    cr_assert_not_null(ev, "%s got no `move` event for game %lld ply %d", who, gid, i);
    cr_assert_str_eq(hj_str(ev, "move"), g->moves[i], "%s: %s", who, hj_text(ev));
    cr_assert_str_eq(hj_str(ev, "position"), position, "%s: %s", who, hj_text(ev));
    if (turn)
        cr_assert_str_eq(hj_str(ev, "turn"), turn, "%s: %s", who, hj_text(ev));
    if (status)
        cr_assert_str_eq(hj_str(ev, "status"), status, "%s: %s", who, hj_text(ev));
    cJSON_Delete(ev);
}

static void expect_game_end(hconn *c, const char *who, long long gid, const hgame *g)
{
    cJSON *ev = hconn_event(c, "game_end", match_game, &gid, H_READ_TIMEOUT_MS);
    cr_assert_not_null(ev, "%s got no `game_end` event for game %lld", who, gid);
    cr_assert_str_eq(hj_str(ev, "result"), g->result, "%s: %s", who, hj_text(ev));
    cr_assert_str_eq(hj_str(ev, "reason"), g->reason, "%s: %s", who, hj_text(ev));
    cJSON_Delete(ev);
}

/* Play g on (alice = White, bob = Black); watcher, when not NULL, must see
 * every move too. */
static void play_raw(hconn *alice, hconn *bob, hconn *watcher, long long gid, const hgame *g)
{
    char side = h_pos_side(g->start);
    for (int i = 0; i < g->nmoves; i++) {
        hconn *mover = side == 'w' ? alice : bob;
        hconn *other = side == 'w' ? bob : alice;
        cJSON *r = hconn_rpc(mover, "{\"type\":\"move\",\"game\":%lld,\"ply\":%d,\"move\":\"%s\"}",
                             gid, i, g->moves[i]);
        hj_assert_ok(r, "move");
        const cJSON *game = hj_game(r);
        cr_assert_eq(hj_int(game, "ply"), i + 1, "ply %d: %s", i, hj_text(r));
        const char *pos = hj_str(game, "position");
        cr_assert_not_null(pos, "%s", hj_text(r));
        bool last = i + 1 == g->nmoves;
        if (last)
            cr_assert_str_eq(pos, g->final, "final position: %s", hj_text(r));
        const char *turn = last ? NULL : side == 'w' ? "black" : "white";
        const char *status = last ? "finished" : "active";
        expect_move_event(other, side == 'w' ? "bob" : "alice", gid, i, g, pos, turn, status);
        if (watcher)
            expect_move_event(watcher, "watcher", gid, i, g, pos, turn, status);
        cJSON_Delete(r);
        side = side == 'w' ? 'b' : 'w';
        /* The mover may get its own move as an event; keep queues short
         * (but keep the game_end that may follow the last move). */
        if (!last)
            hconn_drop_events(mover);
    }
    expect_game_end(alice, "alice", gid, g);
    expect_game_end(bob, "bob", gid, g);
    if (watcher)
        expect_game_end(watcher, "watcher", gid, g);
}

Test(events, opponent_sees_every_move_and_the_end)
{
    hgame *games;
    int n = hgames_load("alquerque", &games);
    const hgame *g = &games[0];
    hsrv srv;
    hsrv_start(&srv);
    hconn *alice = hconn_open(srv.port);
    hconn *bob = hconn_open(srv.port);
    hconn_hello(alice);
    hconn_hello(bob);
    hconn_register(alice, "alice", PW);
    hconn_register(bob, "bob", PW);
    long long gid = open_game(alice, bob, g);
    play_raw(alice, bob, NULL, gid, g);

    cJSON *r = hconn_rpc(alice, "{\"type\":\"game\",\"game\":%lld}", gid);
    hj_assert_ok(r, "game");
    const cJSON *game = hj_game(r);
    cr_assert_str_eq(hj_str(game, "status"), "finished");
    cr_assert_str_eq(hj_str(game, "result"), g->result);
    cr_assert_str_eq(hj_str(game, "reason"), g->reason);
    cr_assert_str_eq(hj_str(game, "position"), g->final);
    cJSON_Delete(r);
    hconn_close(alice);
    hconn_close(bob);
    hsrv_stop(&srv);
    hgames_free(games, n);
    h_pass();
}

/* A second connection of the same user gets the events too, and a third
 * user who subscribes as a watcher sees the whole game (design.md: "Every
 * connection of a user gets events ...; subscribe adds any game"). */
Test(events, watcher_and_second_connection_see_the_game)
{
    hgame *games;
    int n = hgames_load("alquerque", &games);
    const hgame *g = &games[4]; /* 22 plies */
    hsrv srv;
    hsrv_start(&srv);
    hconn *alice = hconn_open(srv.port);
    hconn *bob = hconn_open(srv.port);
    hconn *carol = hconn_open(srv.port);
    hconn_hello(alice);
    hconn_hello(bob);
    hconn_hello(carol);
    hconn_register(alice, "alice", PW);
    hconn_register(bob, "bob", PW);
    hconn_register(carol, "carol", PW);
    long long gid = open_game(alice, bob, g);

    cJSON *r = hconn_rpc(carol, "{\"type\":\"subscribe\",\"game\":%lld}", gid);
    hj_assert_ok(r, "subscribe");
    cJSON_Delete(r);

    hconn *bob2 = hconn_open(srv.port);
    hconn_hello(bob2);
    hconn_login(bob2, "bob", PW);

    play_raw(alice, bob, carol, gid, g);
    /* bob's second connection saw White's moves and the end as well. */
    char side = h_pos_side(g->start);
    for (int i = 0; i < g->nmoves; i++, side = side == 'w' ? 'b' : 'w') {
        if (side != 'w')
            continue;
        struct want_move w = {gid, i};
        cJSON *ev = hconn_event(bob2, "move", match_move, &w, H_READ_TIMEOUT_MS);
        cr_assert_not_null(ev, "bob's second connection missed ply %d", i);
        cJSON_Delete(ev);
    }
    expect_game_end(bob2, "bob (second connection)", gid, g);
    hsrv_stop(&srv);
    hgames_free(games, n);
    h_pass();
}

static bool list_has_id(const cJSON *list, long long id)
{
    const cJSON *e;
    long long v;
    cJSON_ArrayForEach(e, list) if (hj_has_int(e, "id", &v) && v == id) return true;
    return false;
}

/* design.md: the login result carries the user's open challenges and
 * active games (full objects), so a reconnecting client misses nothing. */
Test(events, login_returns_open_challenges_and_active_games)
{
    hgame *games;
    int n = hgames_load("alquerque", &games);
    const hgame *g = &games[0];
    hsrv srv;
    hsrv_start(&srv);
    hconn *alice = hconn_open(srv.port);
    hconn *bob = hconn_open(srv.port);
    hconn_hello(alice);
    hconn_hello(bob);
    hconn_register(alice, "alice", PW);
    hconn_register(bob, "bob", PW);
    long long gid = open_game(alice, bob, g);
    cJSON *r = hconn_rpc(alice, "{\"type\":\"move\",\"game\":%lld,\"ply\":0,\"move\":\"%s\"}", gid,
                         g->moves[0]);
    hj_assert_ok(r, "move");
    cJSON_Delete(r);
    r = hconn_rpc(alice, "{\"type\":\"challenge\",\"to\":\"bob\",\"variant\":\"alquerque\","
                         "\"color\":\"black\"}");
    hj_assert_ok(r, "second challenge");
    long long cid = hj_int(cJSON_GetObjectItemCaseSensitive(r, "challenge"), "id");
    cJSON_Delete(r);
    hconn_close(bob);

    bob = hconn_open(srv.port);
    hconn_hello(bob);
    r = hconn_rpc(bob, "{\"type\":\"login\",\"username\":\"bob\",\"password\":\"%s\"}", PW);
    hj_assert_ok(r, "login");
    const cJSON *chs = cJSON_GetObjectItemCaseSensitive(r, "challenges");
    const cJSON *gms = cJSON_GetObjectItemCaseSensitive(r, "games");
    cr_assert(cJSON_IsArray(chs) && list_has_id(chs, cid), "login lacks challenge %lld: %s", cid,
              hj_text(r));
    cr_assert(cJSON_IsArray(gms) && list_has_id(gms, gid), "login lacks game %lld: %s", gid,
              hj_text(r));
    const cJSON *e;
    cJSON_ArrayForEach(e, gms)
    {
        long long id;
        if (hj_has_int(e, "id", &id) && id == gid) {
            cr_assert_eq(hj_int(e, "ply"), 1, "%s", hj_text(e));
            cr_assert_str_eq(hj_str(e, "turn"), "black", "%s", hj_text(e));
            const cJSON *lm = cJSON_GetObjectItemCaseSensitive(e, "legal_moves");
            cr_assert(cJSON_IsArray(lm) && cJSON_GetArraySize(lm) ==
                                               cJSON_GetArraySize(cJSON_GetArrayItem(g->legal, 1)),
                      "legal_moves %s, recorded %s", hj_text(lm),
                      hj_text(cJSON_GetArrayItem(g->legal, 1)));
        }
    }
    cJSON_Delete(r);
    hsrv_stop(&srv);
    hgames_free(games, n);
    h_pass();
}

/* challenge_declined / challenge_canceled reach the other side; resign
 * ends the game with game_end to both. */
Test(events, decline_cancel_and_resign)
{
    hgame *games;
    int n = hgames_load("alquerque", &games);
    hsrv srv;
    hsrv_start(&srv);
    hconn *alice = hconn_open(srv.port);
    hconn *bob = hconn_open(srv.port);
    hconn_hello(alice);
    hconn_hello(bob);
    hconn_register(alice, "alice", PW);
    hconn_register(bob, "bob", PW);

    cJSON *r = hconn_rpc(alice, "{\"type\":\"challenge\",\"to\":\"bob\",\"variant\":\"alquerque\","
                                "\"color\":\"white\"}");
    hj_assert_ok(r, "challenge");
    long long cid = hj_int(cJSON_GetObjectItemCaseSensitive(r, "challenge"), "id");
    cJSON_Delete(r);
    r = hconn_rpc(bob, "{\"type\":\"decline\",\"challenge\":%lld,\"reason\":\"later\"}", cid);
    hj_assert_ok(r, "decline");
    cJSON_Delete(r);
    cJSON *ev = hconn_event(alice, "challenge_declined", NULL, NULL, H_READ_TIMEOUT_MS);
    cr_assert_not_null(ev, "alice got no challenge_declined");
    cJSON_Delete(ev);
    r = hconn_rpc(bob, "{\"type\":\"accept\",\"challenge\":%lld}", cid);
    cr_assert_str_neq(hj_str(r, "type"), "ok", "accept of a declined challenge: %s", hj_text(r));
    cJSON_Delete(r);

    r = hconn_rpc(alice, "{\"type\":\"challenge\",\"to\":\"bob\",\"variant\":\"alquerque\","
                         "\"color\":\"white\"}");
    hj_assert_ok(r, "challenge");
    cid = hj_int(cJSON_GetObjectItemCaseSensitive(r, "challenge"), "id");
    cJSON_Delete(r);
    r = hconn_rpc(alice, "{\"type\":\"cancel\",\"challenge\":%lld}", cid);
    hj_assert_ok(r, "cancel");
    cJSON_Delete(r);
    ev = hconn_event(bob, "challenge_canceled", NULL, NULL, H_READ_TIMEOUT_MS);
    cr_assert_not_null(ev, "bob got no challenge_canceled");
    cJSON_Delete(ev);

    long long gid = open_game(alice, bob, &games[0]);
    r = hconn_rpc(bob, "{\"type\":\"resign\",\"game\":%lld}", gid);
    hj_assert_ok(r, "resign");
    const cJSON *game = hj_game(r);
    cr_assert_str_eq(hj_str(game, "status"), "finished", "%s", hj_text(r));
    cr_assert_str_eq(hj_str(game, "result"), "white", "%s", hj_text(r));
    cr_assert_str_eq(hj_str(game, "reason"), "resign", "%s", hj_text(r));
    cJSON_Delete(r);
    ev = hconn_event(alice, "game_end", match_game, &gid, H_READ_TIMEOUT_MS);
    cr_assert_not_null(ev, "alice got no game_end after bob resigned");
    cr_assert_str_eq(hj_str(ev, "result"), "white", "%s", hj_text(ev));
    cr_assert_str_eq(hj_str(ev, "reason"), "resign", "%s", hj_text(ev));
    cJSON_Delete(ev);
    hsrv_stop(&srv);
    hgames_free(games, n);
    h_pass();
}
