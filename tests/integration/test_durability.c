/*
 * Durability and races. An acknowledged move is committed: after a SIGKILL
 * straight after the reply, a restarted server (same database) has it. Two
 * connections of one player racing at the same ply get exactly one move
 * applied (PROTOCOL.md `move`: duplicate / stale_ply).
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "harness.h"

TestSuite(durability, .init = h_setup, .fini = h_teardown, .timeout = 300);

#define PW "durable-pw"

typedef struct duo {
    hconn *w, *b;
} duo;

static void duo_connect(duo *d, const hsrv *s, bool fresh)
{
    d->w = hconn_open(s->port);
    d->b = hconn_open(s->port);
    hconn_hello(d->w);
    hconn_hello(d->b);
    if (fresh) {
        hconn_register(d->w, "alice", PW);
        hconn_register(d->b, "bob", PW);
    } else {
        hconn_login(d->w, "alice", PW);
        hconn_login(d->b, "bob", PW);
    }
}

static void duo_close(duo *d)
{
    hconn_close(d->w);
    hconn_close(d->b);
}

static long long open_game(duo *d)
{
    cJSON *r = hconn_rpc(d->w, "{\"type\":\"challenge\",\"to\":\"bob\",\"variant\":\"alquerque\","
                               "\"color\":\"white\"}");
    hj_assert_ok(r, "challenge");
    long long cid = hj_int(cJSON_GetObjectItemCaseSensitive(r, "challenge"), "id");
    cJSON_Delete(r);
    r = hconn_rpc(d->b, "{\"type\":\"accept\",\"challenge\":%lld}", cid);
    hj_assert_ok(r, "accept");
    long long gid = hj_int(hj_game(r), "id");
    cJSON_Delete(r);
    return gid;
}

static void play(duo *d, long long gid, const hgame *g, int from, int to)
{
    for (int i = from; i < to; i++) {
        hconn *c = i % 2 == 0 ? d->w : d->b; /* kawu: White first */
        cJSON *r = hconn_rpc(c, "{\"type\":\"move\",\"game\":%lld,\"ply\":%d,\"move\":\"%s\"}", gid,
                             i, g->moves[i]);
        hj_assert_ok(r, "move");
        cJSON_Delete(r);
        hconn_drop_events(c);
    }
}

static void expect_moves(duo *d, long long gid, const hgame *g, int plies)
{
    cJSON *r = hconn_rpc(d->w, "{\"type\":\"game\",\"game\":%lld}", gid);
    hj_assert_ok(r, "game");
    const cJSON *game = hj_game(r);
    cr_assert_eq(hj_int(game, "ply"), plies, "after restart: %s", hj_text(r));
    const cJSON *mv = cJSON_GetObjectItemCaseSensitive(game, "moves");
    cr_assert_eq(cJSON_GetArraySize(mv), plies, "after restart: %s", hj_text(r));
    for (int i = 0; i < plies; i++)
        cr_assert_str_eq(cJSON_GetArrayItem(mv, i)->valuestring, g->moves[i], "ply %d", i);
    cJSON_Delete(r);
}

Test(durability, acknowledged_moves_survive_sigkill)
{
    hgame *games;
    int n = hgames_load("alquerque", &games);
    const hgame *g = &games[0];
    for (int i = 1; i < n; i++)
        if (games[i].nmoves > g->nmoves)
            g = &games[i];
    hsrv srv;
    hsrv_start(&srv);
    duo d;
    duo_connect(&d, &srv, true);
    long long gid = open_game(&d);
    int cuts[] = {1, g->nmoves / 3, g->nmoves / 2, g->nmoves - 1};
    int at = 0;
    for (size_t k = 0; k < sizeof cuts / sizeof *cuts; k++) {
        /* Moves as fast as the replies come, then SIGKILL at once. */
        play(&d, gid, g, at, cuts[k]);
        at = cuts[k];
        hsrv_kill(&srv);
        duo_close(&d);
        hsrv_restart(&srv);
        duo_connect(&d, &srv, false);
        expect_moves(&d, gid, g, at);
    }
    play(&d, gid, g, at, g->nmoves);
    cJSON *r = hconn_rpc(d.b, "{\"type\":\"game\",\"game\":%lld}", gid);
    const cJSON *game = hj_game(r);
    cr_assert_str_eq(hj_str(game, "status"), "finished", "%s", hj_text(r));
    cr_assert_str_eq(hj_str(game, "result"), g->result, "%s", hj_text(r));
    cr_assert_str_eq(hj_str(game, "position"), g->final, "%s", hj_text(r));
    cJSON_Delete(r);
    duo_close(&d);
    hsrv_stop(&srv);
    hgames_free(games, n);
    h_pass();
}

/* Send req on both connections before reading either reply. */
static void race(hconn *c1, hconn *c2, const char *req1, const char *req2, cJSON **r1, cJSON **r2)
{
    cr_assert_eq(hconn_send_raw(c1, req1, strlen(req1)), 0);
    cr_assert_eq(hconn_send_raw(c2, req2, strlen(req2)), 0);
    *r1 = hconn_reply(c1, H_READ_TIMEOUT_MS);
    *r2 = hconn_reply(c2, H_READ_TIMEOUT_MS);
    cr_assert_not_null(*r1, "no reply to %s", req1);
    cr_assert_not_null(*r2, "no reply to %s", req2);
}

static bool is_ok(const cJSON *r)
{
    const char *t = hj_str(r, "type");
    return t && !strcmp(t, "ok");
}

static bool is_dup(const cJSON *r)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "duplicate"));
}

Test(durability, one_player_racing_on_two_connections)
{
    hgame *games;
    int n = hgames_load("alquerque", &games);
    const hgame *g = &games[0];
    hsrv srv;
    hsrv_start(&srv);
    duo d;
    duo_connect(&d, &srv, true);
    hconn *b2 = hconn_open(srv.port);
    hconn_hello(b2);
    hconn_login(b2, "bob", PW);
    long long gid = open_game(&d);
    play(&d, gid, g, 0, 1);

    /* The same move at ply 1 from both of bob's connections: one applies
     * it, the other is told it is a duplicate. */
    hcounts before, after;
    hdb_counts(srv.db, &before);
    char req1[256], req2[256];
    snprintf(req1, sizeof req1,
             "{\"type\":\"move\",\"id\":1,\"game\":%lld,\"ply\":1,\"move\":\"%s\"}\n", gid,
             g->moves[1]);
    snprintf(req2, sizeof req2,
             "{\"type\":\"move\",\"id\":2,\"game\":%lld,\"ply\":1,\"move\":\"%s\"}\n", gid,
             g->moves[1]);
    cJSON *r1, *r2;
    race(d.b, b2, req1, req2, &r1, &r2);
    cr_assert(is_ok(r1) && is_ok(r2), "same move raced: %s / %s", hj_text(r1), hj_text(r2));
    cr_assert(is_dup(r1) != is_dup(r2), "exactly one reply must be a duplicate: %s / %s",
              hj_text(r1), hj_text(r2));
    cJSON_Delete(r1);
    cJSON_Delete(r2);
    hdb_counts(srv.db, &after);
    cr_assert_eq(after.moves, before.moves + 1, "moves rows %lld -> %lld", before.moves,
                 after.moves);

    /* Two different legal moves at bob's next ply with a choice: one wins,
     * the other is stale. */
    int k = 3;
    while (k < g->nmoves && cJSON_GetArraySize(cJSON_GetArrayItem(g->legal, k)) < 2)
        k += 2;
    cr_assert_lt(k, g->nmoves, "test bug: bob never has a choice");
    play(&d, gid, g, 2, k);
    const char *other = NULL;
    const cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetArrayItem(g->legal, k))
    {
        if (strcmp(m->valuestring, g->moves[k]) != 0)
            other = m->valuestring;
    }
    hdb_counts(srv.db, &before);
    snprintf(req1, sizeof req1,
             "{\"type\":\"move\",\"id\":3,\"game\":%lld,\"ply\":%d,\"move\":\"%s\"}\n", gid, k,
             g->moves[k]);
    snprintf(req2, sizeof req2,
             "{\"type\":\"move\",\"id\":4,\"game\":%lld,\"ply\":%d,\"move\":\"%s\"}\n", gid, k,
             other);
    race(d.b, b2, req1, req2, &r1, &r2);
    cr_assert(is_ok(r1) != is_ok(r2), "exactly one of two different moves applies: %s / %s",
              hj_text(r1), hj_text(r2));
    cJSON *loser = is_ok(r1) ? r2 : r1;
    hj_assert_error(loser, "stale_ply", "the losing racer");
    cr_assert_eq(hj_int(loser, "ply"), k + 1, "%s", hj_text(loser));
    cJSON_Delete(r1);
    cJSON_Delete(r2);
    hdb_counts(srv.db, &after);
    cr_assert_eq(after.moves, before.moves + 1, "moves rows %lld -> %lld", before.moves,
                 after.moves);
    hconn_close(b2);
    duo_close(&d);
    hsrv_stop(&srv);
    hgames_free(games, n);
    h_pass();
}
