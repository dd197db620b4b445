/*
 * Custom start positions (`challenge --position`, PROTOCOL.md `challenge`;
 * design.md: validated with qk_pos_parse, must not be a finished game).
 *
 * The position comes from the server itself: a first game plays k recorded
 * plies over a raw connection and its `position` is taken; a second game is
 * challenged with that position through the CLI and the rest of the
 * recording is played there. It must end exactly as recorded, which also
 * checks that the position string carries everything (side to move, the
 * no-capture count, BrainKing's memory).
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "play.h"

TestSuite(positions, .init = h_setup, .fini = h_teardown, .timeout = 300);

/* Play g's first k plies on a fresh game over raw connections; returns the
 * position string after them (heap). */
static char *position_after(hsrv *s, const hgame *g, int k)
{
    hconn *w = hconn_open(s->port), *b = hconn_open(s->port);
    hconn_hello(w);
    hconn_hello(b);
    hconn_login(w, "alice", HPLAY_PASSWORD);
    hconn_login(b, "bob", HPLAY_PASSWORD);
    cJSON *r = hconn_rpc(w,
                         "{\"type\":\"challenge\",\"to\":\"bob\",\"variant\":\"%s\","
                         "\"color\":\"white\"}",
                         g->variant);
    hj_assert_ok(r, "challenge");
    long long cid = hj_int(cJSON_GetObjectItemCaseSensitive(r, "challenge"), "id");
    cJSON_Delete(r);
    r = hconn_rpc(b, "{\"type\":\"accept\",\"challenge\":%lld}", cid);
    hj_assert_ok(r, "accept");
    long long gid = hj_int(hj_game(r), "id");
    cJSON_Delete(r);
    char side = h_pos_side(g->start);
    char *pos = strdup(g->start);
    for (int i = 0; i < k; i++) {
        r = hconn_rpc(side == 'w' ? w : b,
                      "{\"type\":\"move\",\"game\":%lld,\"ply\":%d,\"move\":\"%s\"}", gid, i,
                      g->moves[i]);
        hj_assert_ok(r, "move");
        free(pos);
        pos = strdup(hj_str(hj_game(r), "position"));
        cJSON_Delete(r);
        side = side == 'w' ? 'b' : 'w';
    }
    hconn_close(w);
    hconn_close(b);
    return pos;
}

static void play_from_middle(const char *file, int index, int k)
{
    hgame *games;
    int n = hgames_load(file, &games);
    cr_assert_lt(index, n);
    const hgame *full = &games[index];
    cr_assert_lt(k, full->nmoves);

    hsrv srv;
    hsrv_start(&srv);
    hplayers p;
    hplay_setup(&p, &srv, "alice", "bob");
    char *pos = position_after(&srv, full, k);
    char std[1024];
    cr_assert(h_std_start(full->variant, std, sizeof std));
    cr_assert_str_neq(pos, std, "test bug: position after %d plies is the start", k);

    /* The tail of the recording, as a game of its own. */
    hgame tail = *full;
    tail.start = pos;
    tail.moves = full->moves + k;
    tail.nmoves = full->nmoves - k;
    long long id = hplay_open(&p, &tail); /* passes --position, checks start */
    hplay_moves(&p, &tail, id, 0, tail.nmoves, k % 2 == 0);
    hplay_check_show(&p, &tail, id, tail.nmoves);
    free(pos);
    hsrv_stop(&srv);
    hgames_free(games, n);
    h_pass();
}

Test(positions, alquerque_from_ply_10)
{
    play_from_middle("alquerque", 0, 10);
}

/* An odd ply: Black to move first in the custom game. */
Test(positions, alquerque_traditional_from_ply_31)
{
    play_from_middle("alquerque-traditional", 21, 31);
}

/* The no-return memory (field 4: "c1:b1,c5:b5" after ply 19) must survive
 * the round trip. */
Test(positions, alquerque_brainking_from_ply_19)
{
    play_from_middle("alquerque-brainking", 0, 19);
}

/* Sultans on the board at the custom start (a white one on c2). */
Test(positions, alquerque_stoep_long_from_ply_40)
{
    play_from_middle("alquerque-stoep-long", 0, 40);
}

Test(positions, alquerkonane_8x8_from_ply_20)
{
    play_from_middle("alquerkonane-8x8", 0, 20);
}

/* A finished position or a malformed one is refused with an error (exit 1)
 * and creates no challenge. */
Test(positions, finished_or_malformed_positions_are_refused)
{
    hgame *games;
    int n = hgames_load("alquerque", &games);
    hsrv srv;
    hsrv_start(&srv);
    hplayers p;
    hplay_setup(&p, &srv, "alice", "bob");
    const char *bad[] = {games[0].final, "bbbbb/bbbbb/ww.bb/wwwww w 0 -",
                         "bbbbb/bbbbb/ww.bb/wwwww/wwwwx w 0 -", "nonsense"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        hrun r;
        hcli_run(&r, p.wdir, srv.addr, NULL, "--json", "challenge", "bob", "--variant", "alquerque",
                 "--position", bad[i], NULL);
        cr_assert(!r.timed_out);
        cr_assert(r.code == 1 || r.code == 2, "`%s`: exit %d, expected a refusal\nstdout: %s",
                  r.cmd, r.code, r.out);
        hrun_free(&r);
    }
    hrun r;
    hcli_run(&r, p.bdir, srv.addr, NULL, "--json", "challenges", NULL);
    const cJSON *j = hrun_ok_json(&r);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(j, "challenges");
    cr_assert(cJSON_IsArray(list) && cJSON_GetArraySize(list) == 0,
              "refused challenges were stored: %s", r.out);
    hrun_free(&r);
    hsrv_stop(&srv);
    hgames_free(games, n);
    h_pass();
}
