/*
 * The headline test: recorded alquerque games played to their end through
 * the real qirkat CLI against the real qirkatd, with a server crash
 * (SIGKILL) and restart on the same database in the middle of one game.
 * Afterwards the database file itself is read: every move row and every
 * game result must be the recorded ones.
 */
#include <criterion/criterion.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "play.h"

TestSuite(cli_games, .init = h_setup, .fini = h_teardown, .timeout = 600);

#define NGAMES 5

/* Indices of the four shortest recorded games plus the longest one. */
static void pick_games(const hgame *g, int n, int out[NGAMES])
{
    int *idx = malloc((size_t)n * sizeof *idx);
    cr_assert_not_null(idx);
    for (int i = 0; i < n; i++)
        idx[i] = i;
    for (int i = 1; i < n; i++) /* stable insertion sort by plies */
        for (int j = i; j > 0 && g[idx[j - 1]].nmoves > g[idx[j]].nmoves; j--) {
            int t = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = t;
        }
    for (int i = 0; i < NGAMES - 1; i++)
        out[i] = idx[i];
    out[NGAMES - 1] = idx[n - 1];
    free(idx);
}

/* Read the stored moves and result of one game from the database. */
static void check_db_game(sqlite3 *db, long long gid, const hgame *g)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT ply, move FROM moves WHERE game_id = ?1 ORDER BY ply",
                                -1, &st, NULL);
    cr_assert_eq(rc, SQLITE_OK, "moves query: %s", sqlite3_errmsg(db));
    sqlite3_bind_int64(st, 1, gid);
    int n = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        cr_assert_lt(n, g->nmoves, "game %lld: more than %d move rows", gid, g->nmoves);
        long long ply = sqlite3_column_int64(st, 0);
        const char *mv = (const char *)sqlite3_column_text(st, 1);
        cr_assert_eq(ply, n, "game %lld: row %d has ply %lld", gid, n, ply);
        cr_assert(mv && strcmp(mv, g->moves[n]) == 0, "game %lld ply %d: stored %s, recorded %s",
                  gid, n, mv ? mv : "NULL", g->moves[n]);
        n++;
    }
    cr_assert_eq(rc, SQLITE_DONE, "moves query: %s", sqlite3_errmsg(db));
    cr_assert_eq(n, g->nmoves, "game %lld: %d move rows, recorded %d", gid, n, g->nmoves);
    sqlite3_finalize(st);

    rc = sqlite3_prepare_v2(db, "SELECT status, result, reason FROM games WHERE id = ?1", -1, &st,
                            NULL);
    cr_assert_eq(rc, SQLITE_OK, "games query: %s", sqlite3_errmsg(db));
    sqlite3_bind_int64(st, 1, gid);
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "game %lld not in table games", gid);
    const char *status = (const char *)sqlite3_column_text(st, 0);
    const char *result = (const char *)sqlite3_column_text(st, 1);
    const char *reason = (const char *)sqlite3_column_text(st, 2);
    cr_assert(status && strcmp(status, "finished") == 0, "game %lld stored status %s", gid,
              status ? status : "NULL");
    cr_assert(result && strcmp(result, g->result) == 0, "game %lld stored result %s, recorded %s",
              gid, result ? result : "NULL", g->result);
    cr_assert(reason && strcmp(reason, g->reason) == 0, "game %lld stored reason %s, recorded %s",
              gid, reason ? reason : "NULL", g->reason);
    sqlite3_finalize(st);
}

Test(cli_games, recorded_alquerque_games_survive_a_crash)
{
    hgame *games;
    int n = hgames_load("alquerque", &games);
    int pick[NGAMES];
    pick_games(games, n, pick);
    char std[128];
    cr_assert(h_std_start("alquerque", std, sizeof std));

    hsrv srv;
    hsrv_start(&srv);
    hplayers p;
    hplay_setup(&p, &srv, "alice", "bob");

    long long ids[NGAMES];
    for (int k = 0; k < NGAMES; k++) {
        const hgame *g = &games[pick[k]];
        cr_assert_str_eq(g->start, std, "recorded game %d does not start from the standard start",
                         g->index);
        ids[k] = hplay_open(&p, g);
        bool with_ply = k % 2 == 1;
        if (k == NGAMES - 1) {
            /* The long game: crash the server half-way, restart it on the
             * same database (new port), check nothing acknowledged was
             * lost, and carry on with the same session tokens. */
            int half = g->nmoves / 2;
            hplay_moves(&p, g, ids[k], 0, half, with_ply);
            char wtok[128], btok[128];
            snprintf(wtok, sizeof wtok, "%s", p.wtoken);
            snprintf(btok, sizeof btok, "%s", p.btoken);
            hsrv_kill(&srv);
            hsrv_restart(&srv);
            /* The tokens issued before the crash still log in. */
            hconn *c = hconn_open(srv.port);
            hconn_hello(c);
            cJSON *r = hconn_rpc(c, "{\"type\":\"login\",\"token\":\"%s\"}", btok);
            hj_assert_ok(r, "login with bob's token after the restart");
            cJSON_Delete(r);
            hconn_close(c);
            c = hconn_open(srv.port);
            hconn_hello(c);
            r = hconn_rpc(c, "{\"type\":\"login\",\"token\":\"%s\"}", wtok);
            hj_assert_ok(r, "login with alice's token after the restart");
            cJSON_Delete(r);
            hconn_close(c);
            /* The CLI keeps a session per server address: log in again on
             * the new port. */
            hplay_relogin(&p);
            hplay_check_show(&p, g, ids[k], half);
            hplay_moves(&p, g, ids[k], half, g->nmoves, with_ply);
        } else {
            hplay_moves(&p, g, ids[k], 0, g->nmoves, with_ply);
        }
        hplay_check_show(&p, g, ids[k], g->nmoves);
    }

    /* Every earlier game is still complete after the crash, also through a
     * raw `game` request. */
    hconn *c = hconn_open(srv.port);
    hconn_hello(c);
    hconn_login(c, "alice", HPLAY_PASSWORD);
    for (int k = 0; k < NGAMES; k++) {
        cJSON *r = hconn_rpc(c, "{\"type\":\"game\",\"game\":%lld}", ids[k]);
        hj_assert_ok(r, "game");
        char what[64];
        snprintf(what, sizeof what, "raw game %lld", ids[k]);
        hplay_check_game(hj_game(r), &games[pick[k]], games[pick[k]].nmoves, what);
        cJSON_Delete(r);
    }
    hconn_close(c);

    /* `games --mine --status finished` lists all five. */
    hrun r;
    hcli_run(&r, p.bdir, srv.addr, NULL, "--json", "games", "--mine", "--status", "finished", NULL);
    const cJSON *j = hrun_ok_json(&r);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(j, "games");
    cr_assert(cJSON_IsArray(list), "games: %s", r.out);
    for (int k = 0; k < NGAMES; k++) {
        bool found = false;
        const cJSON *e;
        cJSON_ArrayForEach(e, list)
        {
            long long id;
            if (hj_has_int(e, "id", &id) && id == ids[k])
                found = true;
        }
        cr_assert(found, "`%s` lacks game %lld: %.2000s", r.cmd, ids[k], r.out);
    }
    hrun_free(&r);

    hsrv_stop(&srv);

    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(srv.db, &db, SQLITE_OPEN_READONLY, NULL);
    cr_assert_eq(rc, SQLITE_OK, "open %s", srv.db);
    for (int k = 0; k < NGAMES; k++)
        check_db_game(db, ids[k], &games[pick[k]]);
    sqlite3_close(db);
    hgames_free(games, n);
    h_pass();
}
