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
 * pairing; so does a student; someone outside the class gets forbidden.
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
    hconn_close(tc);
    hsrv_stop(&s);
    h_pass();
}
