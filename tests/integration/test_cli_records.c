/*
 * Records through the real qirkat CLI and qirkatd (issue 11): `replay
 * GAME --to-ply N` on a finished and an active stored game, boards at
 * hand-picked plies (the start and the final position are the recorded
 * ones of ../shared/data/games; the plies between are replayed here with
 * the rules module, a path apart from the server's export and the CLI's
 * reader); `export -o FILE` then `import FILE` by another user; `search`.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "qk_rules.h"

TestSuite(cli_records, .init = h_setup, .fini = h_teardown, .timeout = 120);

static void ok(const hrun *r)
{
    cr_assert_eq(r->code, 0, "%s: exit %d\nstdout: %s\nstderr: %s", r->cmd, r->code, r->out,
                 r->err);
}

/* The position after n moves of g, by the rules. */
static void position_at(const hgame *g, int n, char *buf, size_t len)
{
    qk_variant v;
    qk_pos p;
    const char *why;
    cr_assert_eq(qk_variant_parse(g->variant, &v), QK_OK);
    cr_assert_eq(qk_pos_parse(&v, g->start, &p, &why), QK_OK);
    for (int i = 0; i < n; i++) {
        qk_move m;
        qk_undo u;
        cr_assert_eq(qk_move_parse(&v, &p, g->moves[i], &m), QK_OK);
        qk_pos_make(&v, &p, &m, &u);
    }
    cr_assert_geq(qk_pos_format(&v, &p, buf, len), 0);
}

/* Play g's first n moves through the raw protocol; the game id. */
static long long play(hconn *w, hconn *b, const hgame *g, int n)
{
    cJSON *r = hconn_rpc(w,
                         "{\"type\":\"challenge\",\"to\":\"bob\",\"variant\":\"%s\","
                         "\"color\":\"white\",\"position\":\"%s\"}",
                         g->variant, g->start);
    hj_assert_ok(r, "challenge");
    long long cid = hj_int(cJSON_GetObjectItem(r, "challenge"), "id");
    cJSON_Delete(r);
    r = hconn_rpc(b, "{\"type\":\"accept\",\"challenge\":%lld}", cid);
    hj_assert_ok(r, "accept");
    long long gid = hj_int(hj_game(r), "id");
    bool white = h_pos_side(g->start) == 'w';
    cJSON_Delete(r);
    for (int i = 0; i < n; i++) {
        r = hconn_rpc(white ? w : b, "{\"type\":\"move\",\"game\":%lld,\"ply\":%d,\"move\":\"%s\"}",
                      gid, i, g->moves[i]);
        hj_assert_ok(r, g->moves[i]);
        white = strcmp(hj_str(hj_game(r), "turn"), "white") == 0;
        cJSON_Delete(r);
    }
    hconn_drop_events(w);
    hconn_drop_events(b);
    return gid;
}

Test(cli_records, replay_export_import_search)
{
    hsrv srv;
    hsrv_start(&srv);
    char ad[H_PATH], bd[H_PATH], gidtext[32], plytext[32], file[H_PATH + 16];
    hcli_register_pair(&srv, ad, bd);
    hrun r;
    hconn *w = hconn_open(srv.port), *b = hconn_open(srv.port);
    hconn_login(w, "alice", "pw-alice-1");
    hconn_login(b, "bob", "pw-bob-12");
    hgame *games;
    int ng = hgames_load("alquerque", &games);
    cr_assert_gt(ng, 1);
    const hgame *g = &games[0];
    long long done = play(w, b, g, g->nmoves), active = play(w, b, &games[1], 3);

    /* Hand-picked plies of the finished game. */
    int plies[] = {0, 1, 2, 17, g->nmoves - 1, g->nmoves};
    snprintf(gidtext, sizeof gidtext, "%lld", done);
    for (size_t i = 0; i < sizeof plies / sizeof plies[0]; i++) {
        char want[QK_POS_STRLEN];
        position_at(g, plies[i], want, sizeof want);
        if (plies[i] == 0)
            cr_assert_str_eq(want, g->start);
        if (plies[i] == g->nmoves)
            cr_assert_str_eq(want, g->final, "the rules agree with the recorded final");
        snprintf(plytext, sizeof plytext, "%d", plies[i]);
        hcli_run(&r, ad, srv.addr, NULL, "--json", "replay", gidtext, "--to-ply", plytext, NULL);
        const cJSON *j = hrun_ok_json(&r);
        cr_assert_str_eq(hj_str(j, "position"), want, "ply %d", plies[i]);
        cr_assert_eq(hj_int(j, "ply"), plies[i]);
        cr_assert_eq(hj_int(j, "plies"), g->nmoves);
        if (plies[i] > 0)
            cr_assert_str_eq(hj_str(j, "last_move"), g->moves[plies[i] - 1]);
        else
            cr_assert(cJSON_IsNull(cJSON_GetObjectItem(j, "last_move")));
        if (plies[i] == g->nmoves) {
            cr_assert_str_eq(hj_str(j, "result"), g->result);
            cr_assert_str_eq(hj_str(j, "reason"), g->reason);
        }
        hrun_free(&r);
    }
    /* The board in words at ply 1. */
    hcli_run(&r, bd, srv.addr, NULL, "replay", gidtext, "--to-ply", "1", NULL);
    ok(&r);
    char line[128];
    snprintf(line, sizeof line, "Last move: 1. %s (White)", g->moves[0]);
    cr_assert_not_null(strstr(r.out, line), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "White: alice  Black: bob"), "%s", r.out);
    hrun_free(&r);

    /* An active game replays too: no result yet. */
    snprintf(gidtext, sizeof gidtext, "%lld", active);
    hcli_run(&r, ad, srv.addr, NULL, "--json", "replay", gidtext, "--to-ply", "3", NULL);
    const cJSON *j = hrun_ok_json(&r);
    char want[QK_POS_STRLEN];
    position_at(&games[1], 3, want, sizeof want);
    cr_assert_str_eq(hj_str(j, "position"), want);
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(j, "result")));
    hrun_free(&r);
    hcli_run(&r, ad, srv.addr, NULL, "replay", "999", "--to-ply", "0", NULL);
    cr_assert_eq(r.code, 1, "no such game: a server error, %s", r.err);
    cr_assert_not_null(strstr(r.err, "no such game"), "%s", r.err);
    hrun_free(&r);

    /* export to a file, import by bob: two games, in order. */
    snprintf(file, sizeof file, "%s/all.pdn", srv.dir);
    hcli_run(&r, ad, srv.addr, NULL, "export", "-o", file, NULL);
    ok(&r);
    cr_assert_not_null(strstr(r.err, "2 games written"), "%s", r.err);
    hrun_free(&r);
    hcli_run(&r, bd, srv.addr, NULL, "import", file, NULL);
    ok(&r);
    cr_assert_str_eq(r.out, "Imported game 1 as game 3\nImported game 2 as game 4\n");
    hrun_free(&r);
    hcli_run(&r, bd, srv.addr, NULL, "--json", "search", "--imported", NULL);
    j = hrun_ok_json(&r);
    const cJSON *list = cJSON_GetObjectItem(j, "games");
    cr_assert_eq(cJSON_GetArraySize(list), 2);
    cr_assert_eq(hj_int(cJSON_GetArrayItem(list, 0), "id"), 4);
    cr_assert_str_eq(hj_str(cJSON_GetArrayItem(list, 1), "result"), g->result);
    hrun_free(&r);
    hcli_run(&r, bd, srv.addr, NULL, "search", "--result", g->result, NULL);
    ok(&r);
    cr_assert_not_null(strstr(r.out, "3 (imported)"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "\n1 "), "the played game: %s", r.out);
    hrun_free(&r);
    hcli_run(&r, bd, srv.addr, NULL, "export", "--since", "tomorrow", NULL);
    cr_assert_eq(r.code, 2, "a bad date is a usage error");
    hrun_free(&r);
    hgames_free(games, ng);
    hconn_close(w);
    hconn_close(b);
    hsrv_stop(&srv);
}
