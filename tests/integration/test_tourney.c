/*
 * A classroom round robin end to end, real processes only: a teacher
 * (the `qirkat` CLI) creates a class and six student accounts from a
 * file, each student logs in with the generated password (already in the
 * class: its code answers conflict), joins the class-only tournament, and is then played by a
 * `qirkat bot` process. The tournament runs in auto mode (each round is
 * paired when the last game of the one before ends) to its
 * tournament_end. The final standings are checked for consistency: 15
 * points in all (6 players, 15 games), every pair met exactly once, the
 * colours of the FIDE Berger table for 6 (C.05 Annex 1), each game
 * carrying its tournament and round and ending with its pairing's result,
 * and the CSV export agreeing with the JSON standings. The teacher, who
 * plays no game, got one tournament_result per game and exports all 15
 * games as PDN (`qirkat tournament export`), each with the Round of its
 * pairing; so does a student; someone outside the class gets forbidden for
 * the export, the tournament and its standings, and an empty list, where a
 * student gets all of them.
 */
#include <criterion/criterion.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "qk_pdn.h"

TestSuite(tourney, .init = h_setup, .fini = h_teardown, .timeout = 400);

#define PW "teacher-password"
#define N 6

/* Berger table for 6 (FIDE C.05 Annex 1): [round][board] = {white, black}. */
static const int berger6[5][3][2] = {
    {{1, 6}, {2, 5}, {3, 4}}, {{6, 4}, {5, 3}, {1, 2}}, {{2, 6}, {3, 1}, {4, 5}},
    {{6, 5}, {1, 4}, {2, 3}}, {{3, 6}, {4, 2}, {5, 1}},
};

static int number_of(const char *name)
{
    /* kid1 .. kid6 joined in that order: pairing numbers 1..6. */
    return name && strncmp(name, "kid", 3) == 0 ? atoi(name + 3) : -1;
}

Test(tourney, class_round_robin_played_by_bots)
{
    hsrv s;
    hsrv_start(&s);
    char tdir[H_PATH], file[H_PATH + 16];
    hsrv_userdir(&s, "tina", tdir);
    hrun r;
    hcli_run(&r, tdir, s.addr, PW "\n", "--json", "register", "tina", "--password-stdin", NULL);
    hrun_ok_json(&r);
    hrun_free(&r);

    hcli_run(&r, tdir, s.addr, NULL, "--json", "class", "create", "Class 6", NULL);
    const cJSON *cl = cJSON_GetObjectItemCaseSensitive(hrun_ok_json(&r), "class");
    char code[16], cid[24];
    snprintf(code, sizeof code, "%s", hj_str(cl, "code"));
    snprintf(cid, sizeof cid, "%lld", hj_int(cl, "id"));
    hrun_free(&r);

    snprintf(file, sizeof file, "%s/students.txt", s.dir);
    FILE *f = fopen(file, "w");
    cr_assert_not_null(f);
    fprintf(f, "# the class list\n");
    for (int i = 1; i <= N; i++)
        fprintf(f, "kid%d, Student %d\n", i, i);
    fclose(f);
    hcli_run(&r, tdir, s.addr, NULL, "--json", "class", "add-students", cid, file, NULL);
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(hrun_ok_json(&r), "students");
    cr_assert_eq(cJSON_GetArraySize(st), N, "%s", r.out);
    char pw[N][32];
    for (int i = 0; i < N; i++) {
        const cJSON *x = cJSON_GetArrayItem(st, i);
        char want[16];
        snprintf(want, sizeof want, "kid%d", i + 1);
        cr_assert_str_eq(hj_str(x, "username"), want);
        snprintf(pw[i], sizeof pw[i], "%s", hj_str(x, "password"));
    }
    hrun_free(&r);

    hcli_run(&r, tdir, s.addr, NULL, "--json", "tournament", "create", "Spring cup", "--system",
             "round_robin", "--variant", "alquerkonane-6x4", "--class", cid, "--auto", NULL);
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(hrun_ok_json(&r), "tournament");
    char tid[24];
    long long tidn = hj_int(t, "id");
    snprintf(tid, sizeof tid, "%lld", tidn);
    hrun_free(&r);

    /* Each student: log in with the generated password, join the class
     * by code and the tournament, then a bot plays for them. */
    char dirs[N][H_PATH];
    for (int i = 0; i < N; i++) {
        char user[16], in[48], log[H_PATH + 32];
        snprintf(user, sizeof user, "kid%d", i + 1);
        snprintf(in, sizeof in, "%.31s\n", pw[i]);
        hsrv_userdir(&s, user, dirs[i]);
        hcli_run(&r, dirs[i], s.addr, in, "--json", "login", user, "--password-stdin", NULL);
        hrun_ok_json(&r);
        hrun_free(&r);
        /* The teacher's accounts are in the class already: the code
         * says so rather than adding them twice. */
        hcli_run(&r, dirs[i], s.addr, NULL, "--json", "class", "join", code, NULL);
        cr_assert_eq(r.code, 1, "%s", r.out);
        cr_assert_str_eq(hj_str(r.json, "code"), "conflict", "%s", r.out);
        hrun_free(&r);
        hcli_run(&r, dirs[i], s.addr, NULL, "--json", "tournament", "join", tid, NULL);
        hrun_ok_json(&r);
        hrun_free(&r);
        snprintf(log, sizeof log, "%s/bot%d.log", s.dir, i + 1);
        const char *argv[] = {"bot",        "--level",          "1", "--move-ms", "20",
                              "--variants", "alquerkonane-6x4", NULL};
        hcli_spawn(dirs[i], s.addr, log, argv);
    }

    /* The teacher listens for the end on a connection of her own. */
    hconn *tc = hconn_open(s.port);
    hconn_hello(tc);
    hconn_login(tc, "tina", PW);
    hcli_run(&r, tdir, s.addr, NULL, "--json", "tournament", "start", tid, NULL);
    t = cJSON_GetObjectItemCaseSensitive(hrun_ok_json(&r), "tournament");
    cr_assert_str_eq(hj_str(t, "status"), "running", "%s", r.out);
    cr_assert_eq(hj_int(t, "rounds_total"), 5);
    hrun_free(&r);
    cJSON *ev = hconn_event(tc, "tournament_end", NULL, NULL, 300000);
    cr_assert_not_null(ev, "the tournament did not end");
    cr_assert_eq(hj_int(ev, "tournament"), tidn);
    cJSON_Delete(ev);

    hcli_run(&r, tdir, s.addr, NULL, "--json", "tournament", "show", tid, NULL);
    t = cJSON_GetObjectItemCaseSensitive(hrun_ok_json(&r), "tournament");
    cr_assert_str_eq(hj_str(t, "status"), "finished");
    const cJSON *rounds = cJSON_GetObjectItemCaseSensitive(t, "rounds");
    cr_assert_eq(cJSON_GetArraySize(rounds), 5);
    int met[N + 1][N + 1] = {{0}};
    double points[N + 1] = {0};
    long long gids[5][3];
    char gres[5][3][8];
    for (int ri = 0; ri < 5; ri++) {
        const cJSON *ro = cJSON_GetArrayItem(rounds, ri);
        const cJSON *ps = cJSON_GetObjectItemCaseSensitive(ro, "pairings");
        cr_assert_eq(cJSON_GetArraySize(ps), 3);
        cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(ro, "bye")));
        for (int b = 0; b < 3; b++) {
            const cJSON *p = cJSON_GetArrayItem(ps, b);
            int w = number_of(hj_str(p, "white")), k = number_of(hj_str(p, "black"));
            cr_assert_eq(w, berger6[ri][b][0], "round %d board %d white", ri + 1, b + 1);
            cr_assert_eq(k, berger6[ri][b][1], "round %d board %d black", ri + 1, b + 1);
            met[w][k]++;
            met[k][w]++;
            const char *res = hj_str(p, "result");
            cr_assert_not_null(res, "round %d board %d has no result", ri + 1, b + 1);
            gids[ri][b] = hj_int(p, "game");
            snprintf(gres[ri][b], sizeof gres[ri][b], "%s", res);
            points[w] += strcmp(res, "white") == 0 ? 1 : strcmp(res, "draw") == 0 ? 0.5 : 0;
            points[k] += strcmp(res, "black") == 0 ? 1 : strcmp(res, "draw") == 0 ? 0.5 : 0;
            /* The game says the same, and where it belongs. */
            char gid[24];
            snprintf(gid, sizeof gid, "%lld", hj_int(p, "game"));
            hrun gr;
            hcli_run(&gr, dirs[0], s.addr, NULL, "--json", "show", gid, NULL);
            const cJSON *g = hj_game(hrun_ok_json(&gr));
            cr_assert_eq(hj_int(g, "tournament"), tidn);
            cr_assert_eq(hj_int(g, "round"), ri + 1);
            cr_assert_str_eq(hj_str(g, "status"), "finished");
            cr_assert_str_eq(hj_str(g, "result"), res);
            hrun_free(&gr);
        }
    }
    for (int a = 1; a <= N; a++)
        for (int b = 1; b <= N; b++)
            cr_assert_eq(met[a][b], a == b ? 0 : 1, "%d and %d met %d times", a, b, met[a][b]);
    const cJSON *sd = cJSON_GetObjectItemCaseSensitive(t, "standings");
    cr_assert_eq(cJSON_GetArraySize(sd), N);
    double sum = 0, last = 1e9;
    const cJSON *row;
    cJSON_ArrayForEach(row, sd)
    {
        const cJSON *pts = cJSON_GetObjectItemCaseSensitive(row, "points");
        int n = number_of(hj_str(row, "username"));
        cr_assert(n >= 1 && n <= N);
        cr_assert_eq(pts->valuedouble, points[n], "%s's points", hj_str(row, "username"));
        cr_assert(pts->valuedouble <= last, "standings not ordered by points");
        last = pts->valuedouble;
        sum += pts->valuedouble;
    }
    cr_assert_eq(sum, 15.0, "points sum to %g", sum);
    hrun_free(&r);

    hcli_run(&r, tdir, s.addr, NULL, "tournament", "standings", tid, "--csv", NULL);
    cr_assert_eq(r.code, 0, "%s", r.err);
    cr_assert(strncmp(r.out, "rank,username,points,SB,BH,DE,WIN\r\n", 35) == 0, "%s", r.out);
    int lines = 0;
    for (const char *p = r.out; *p; p++)
        lines += *p == '\n';
    cr_assert_eq(lines, N + 1);
    char *csv = strdup(r.out);
    hrun_free(&r);
    /* `tournament export --csv` is the same file. */
    hcli_run(&r, tdir, s.addr, NULL, "tournament", "export", tid, "--csv", NULL);
    cr_assert_eq(r.code, 0, "%s", r.err);
    cr_assert_str_eq(r.out, csv);
    hrun_free(&r);
    free(csv);

    /* The teacher, who played no game, was told every result as it came
     * in: one tournament_result per game, before the tournament_end. */
    int nres = 0;
    while ((ev = hconn_event(tc, "tournament_result", NULL, NULL, 0))) {
        long long gid = hj_int(ev, "game");
        int ri = -1, b = -1;
        for (int i = 0; i < 5 && ri < 0; i++)
            for (int k = 0; k < 3; k++)
                if (gids[i][k] == gid) {
                    ri = i;
                    b = k;
                }
        cr_assert(ri >= 0, "tournament_result for game %lld, not one of the tournament", gid);
        cr_assert_eq(hj_int(ev, "tournament"), tidn);
        cr_assert_eq(hj_int(ev, "round"), ri + 1, "game %lld", gid);
        cr_assert_eq(number_of(hj_str(ev, "white")), berger6[ri][b][0]);
        cr_assert_eq(number_of(hj_str(ev, "black")), berger6[ri][b][1]);
        cr_assert_str_eq(hj_str(ev, "result"), gres[ri][b], "game %lld", gid);
        cr_assert_str_eq(hj_str(ev, "kind"), "game");
        cr_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(ev, "by_hand")));
        cJSON_Delete(ev);
        nres++;
    }
    cr_assert_eq(nres, 15, "%d tournament_result events for 15 games", nres);

    /* ... and exports all 15 games as PDN, each with its round. A student
     * (a member who plays) gets the same 15. */
    const char *dirs_of[2] = {tdir, dirs[0]};
    for (int w = 0; w < 2; w++) {
        hcli_run(&r, dirs_of[w], s.addr, NULL, "tournament", "export", tid, NULL);
        cr_assert_eq(r.code, 0, "%s", r.err);
        qk_pdn_record *recs = NULL;
        size_t nrec = 0;
        qk_pdn_error pe;
        cr_assert_eq(qk_pdn_read(r.out, strlen(r.out), &recs, &nrec, &pe), QK_PDN_OK, "%s",
                     pe.message);
        cr_assert_eq(nrec, 15, "%zu records", nrec);
        int per_round[5] = {0};
        for (size_t i = 0; i < nrec; i++) {
            int w1 = number_of(recs[i].white), b1 = number_of(recs[i].black), ri = -1, b = -1;
            for (int x = 0; x < 5; x++)
                for (int k = 0; k < 3; k++)
                    if (berger6[x][k][0] == w1 && berger6[x][k][1] == b1) {
                        ri = x;
                        b = k;
                    }
            cr_assert(ri >= 0, "record %zu: %s-%s is no pairing", i, recs[i].white, recs[i].black);
            char round[12];
            snprintf(round, sizeof round, "%d", ri + 1);
            cr_assert_str_eq(recs[i].round, round, "record %zu (%s-%s)", i, recs[i].white,
                             recs[i].black);
            cr_assert_str_eq(recs[i].event, "Spring cup");
            cr_assert_eq(recs[i].result, qk_result_parse(gres[ri][b]), "record %zu", i);
            per_round[ri]++;
        }
        for (int x = 0; x < 5; x++)
            cr_assert_eq(per_round[x], 3, "round %d: %d records", x + 1, per_round[x]);
        qk_pdn_free_all(recs, nrec);
        hrun_free(&r);
    }

    /* Someone outside the class: forbidden, and no games. */
    char edir[H_PATH];
    hsrv_userdir(&s, "eve", edir);
    hcli_run(&r, edir, s.addr, "eve-password\n", "--json", "register", "eve", "--password-stdin",
             NULL);
    hrun_ok_json(&r);
    hrun_free(&r);
    hcli_run(&r, edir, s.addr, NULL, "--json", "tournament", "export", tid, NULL);
    cr_assert_eq(r.code, 1, "%s", r.out);
    cr_assert_str_eq(hj_str(r.json, "code"), "forbidden", "%s", r.out);
    cr_assert_null(strstr(r.out, "[Event"), "%s", r.out);
    hrun_free(&r);
    /* ... nor the tournament, its standings (JSON or CSV), nor it in the
     * list; a student (a member) gets all three. */
    const char *shows[][5] = {{"--json", "tournament", "show", tid, NULL},
                              {"--json", "tournament", "standings", tid, NULL},
                              {"tournament", "standings", tid, "--csv", NULL}};
    for (int i = 0; i < 3; i++) {
        hcli_runv(&r, edir, s.addr, NULL, shows[i]);
        cr_assert_eq(r.code, 1, "eve, case %d: %s", i, r.out);
        if (i < 2)
            cr_assert_str_eq(hj_str(r.json, "code"), "forbidden", "%s", r.out);
        else
            cr_assert(strstr(r.err, "class only"), "%s", r.err);
        cr_assert_null(strstr(r.out, "kid1"), "%s", r.out);
        hrun_free(&r);
        hcli_runv(&r, dirs[1], s.addr, NULL, shows[i]);
        cr_assert_eq(r.code, 0, "kid2, case %d: %s", i, r.err);
        cr_assert(strstr(r.out, "kid1"), "%s", r.out);
        hrun_free(&r);
    }
    for (int w = 0; w < 2; w++) {
        hcli_run(&r, w ? edir : dirs[1], s.addr, NULL, "--json", "tournament", "show", NULL);
        const cJSON *list = cJSON_GetObjectItemCaseSensitive(hrun_ok_json(&r), "tournaments");
        cr_assert_eq(cJSON_GetArraySize(list), w ? 0 : 1, "%s", r.out);
        if (!w)
            cr_assert_eq(hj_int(cJSON_GetArrayItem(list, 0), "id"), tidn);
        hrun_free(&r);
    }
    hconn_close(tc);
    hsrv_stop(&s);
    h_pass();
}

/* ---- a Swiss paired by an external program ------------------------------
 * qirkatd --pairing-program tests/pairers/dutch.sh (the stand-in for
 * bbpPairings: points, then pairing number, top down, first opponent not
 * met; the lowest eligible player has the bye). Five players p1..p5 join
 * a three-round Swiss created by `qirkat tournament create ... --pairer
 * external`; in every game the lower pairing number wins (the other one
 * resigns, so each result comes in through the end of a real game).
 *   round 1 (all 0):     1-2 3-4, bye 5           -> 1:1 3:1 5:1 2:0 4:0
 *   round 2: bye 4 (5 had one), 1-3 (equal colours: the higher rank
 *            White), 2-5 (2 was Black)            -> 1:2 2:1 3:1 4:1 5:1
 *   round 3: byes 5, 4 taken: bye 3; 1 met 2, 2 met 5: 5-1, 4-2 (fewer
 *            Whites play White)                   -> 1:3 2:2 3:2 4:1 5:1
 * The built-in pairer would pair round 1 as 1-3 2-4 (bye 5): the rounds
 * below are the program's. 6 games and 3 byes: 9 points in all.
 */
static const char *swiss_rounds[3][3][2] = {
    {{"p1", "p2"}, {"p3", "p4"}, {"p5", NULL}},
    {{"p1", "p3"}, {"p2", "p5"}, {"p4", NULL}},
    {{"p5", "p1"}, {"p4", "p2"}, {"p3", NULL}},
};

Test(tourney, swiss_paired_by_an_external_program)
{
    char program[H_PATH];
    cr_assert_not_null(realpath("tests/pairers/dutch.sh", program));
    const char *args[] = {"--pairing-program", program, NULL};
    hsrv s;
    hsrv_start_args(&s, args);
    char tdir[H_PATH];
    hsrv_userdir(&s, "tina", tdir);
    hrun r;
    hcli_run(&r, tdir, s.addr, PW "\n", "--json", "register", "tina", "--password-stdin", NULL);
    hrun_ok_json(&r);
    hrun_free(&r);
    hcli_run(&r, tdir, s.addr, NULL, "--json", "tournament", "create", "Open", "--system", "swiss",
             "--rounds", "3", "--pairer", "external", NULL);
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(hrun_ok_json(&r), "tournament");
    cr_assert_str_eq(hj_str(t, "pairer"), "external");
    long long tid = hj_int(t, "id");
    hrun_free(&r);

    hconn *p[5];
    for (int i = 0; i < 5; i++) {
        char name[8];
        snprintf(name, sizeof name, "p%c", (char)('1' + i));
        p[i] = hconn_open(s.port);
        hconn_hello(p[i]);
        hconn_register(p[i], name, "player-password");
        cJSON *j = hconn_rpc(p[i], "{\"type\":\"tournament_join\",\"tournament\":%lld}", tid);
        hj_assert_ok(j, "join");
        cJSON_Delete(j);
    }
    hconn *org = hconn_open(s.port);
    hconn_hello(org);
    hconn_login(org, "tina", PW);

    for (int round = 1; round <= 3; round++) {
        cJSON *resp = hconn_rpc(org, "{\"type\":\"%s\",\"tournament\":%lld}",
                                round == 1 ? "tournament_start" : "tournament_pair", tid);
        hj_assert_ok(resp, "start / pair");
        t = cJSON_GetObjectItemCaseSensitive(resp, "tournament");
        cr_assert_eq(hj_int(t, "current_round"), round);
        const cJSON *ro =
            cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(t, "rounds"), round - 1);
        const cJSON *prs = cJSON_GetObjectItemCaseSensitive(ro, "pairings");
        cr_assert_eq(cJSON_GetArraySize(prs), 2, "round %d: two boards", round);
        cr_assert_str_eq(hj_str(ro, "bye"), swiss_rounds[round - 1][2][0], "round %d bye", round);
        for (int b = 0; b < 2; b++) {
            const cJSON *pr = cJSON_GetArrayItem(prs, b);
            const char *w = hj_str(pr, "white"), *bl = hj_str(pr, "black");
            cr_assert_str_eq(w, swiss_rounds[round - 1][b][0], "round %d board %d", round, b + 1);
            cr_assert_str_eq(bl, swiss_rounds[round - 1][b][1], "round %d board %d", round, b + 1);
            /* The higher pairing number resigns. */
            int loser = atoi((strcmp(w, bl) > 0 ? w : bl) + 1) - 1;
            cJSON *g = hconn_rpc(p[loser], "{\"type\":\"resign\",\"game\":%lld}", hj_int(pr, "game"));
            hj_assert_ok(g, "resign");
            cJSON_Delete(g);
        }
        cJSON_Delete(resp);
    }

    cJSON *resp = hconn_rpc(org, "{\"type\":\"tournament\",\"tournament\":%lld}", tid);
    hj_assert_ok(resp, "tournament");
    t = cJSON_GetObjectItemCaseSensitive(resp, "tournament");
    cr_assert_str_eq(hj_str(t, "status"), "finished");
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(t, "standings");
    cr_assert_eq(cJSON_GetArraySize(st), 5);
    static const double want[5] = {3, 2, 2, 1, 1};
    double sum = 0;
    for (int i = 0; i < 5; i++) {
        const cJSON *row = cJSON_GetArrayItem(st, i);
        double pts = cJSON_GetObjectItemCaseSensitive(row, "points")->valuedouble;
        cr_assert_eq(pts, want[i], "row %d: %s has %g", i + 1, hj_str(row, "username"), pts);
        sum += pts;
    }
    cr_assert_eq(sum, 9);
    cr_assert_str_eq(hj_str(cJSON_GetArrayItem(st, 0), "username"), "p1");
    cr_assert_eq(hj_int(cJSON_GetArrayItem(st, 0), "rank"), 1);
    cJSON_Delete(resp);
    for (int i = 0; i < 5; i++)
        hconn_close(p[i]);
    hconn_close(org);
    hsrv_stop(&s);
}
