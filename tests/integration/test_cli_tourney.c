/*
 * `qirkat tournament show` in people's terms (issue 24), the real qirkat
 * against the real qirkatd: a new tournament is "not started" (not "round 0
 * of 0"), the pairings have WHITE, BLACK and RESULT heads, and when every
 * player ties the standings say they share first place.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "harness.h"

TestSuite(cli_tourney, .init = h_setup, .fini = h_teardown, .timeout = 180);

static void ok(hrun *r)
{
    cr_assert_eq(r->code, 0, "%s: exit %d\nstdout: %s\nstderr: %s", r->cmd, r->code, r->out,
                 r->err);
}

/* The organiser sets every game of round `round` of tournament tid to a
 * draw by hand. */
static void draw_round(const char *od, const char *addr, const char *tid, int round)
{
    hrun r;
    hcli_run(&r, od, addr, NULL, "--json", "tournament", "show", tid, NULL);
    const cJSON *t = cJSON_GetObjectItem(hrun_ok_json(&r), "tournament");
    const cJSON *rd = cJSON_GetArrayItem(cJSON_GetObjectItem(t, "rounds"), round - 1), *p;
    cr_assert_not_null(rd, "%s", r.out);
    cJSON *pairings = cJSON_Duplicate(cJSON_GetObjectItem(rd, "pairings"), true);
    hrun_free(&r);
    cr_assert_eq(cJSON_GetArraySize(pairings), 2);
    cJSON_ArrayForEach(p, pairings)
    {
        char gid[32];
        snprintf(gid, sizeof gid, "%lld", hj_int(p, "game"));
        hcli_run(&r, od, addr, NULL, "tournament", "result", tid, gid, "draw", NULL);
        ok(&r);
        hrun_free(&r);
    }
    cJSON_Delete(pairings);
}

Test(cli_tourney, not_started_pairing_heads_and_a_shared_first_place)
{
    hsrv srv;
    hsrv_start(&srv);
    const char *names[] = {"anna", "ben", "cleo", "dan"};
    char od[H_PATH], dirs[4][H_PATH];
    hrun r;
    hsrv_userdir(&srv, "org", od);
    hcli_run(&r, od, srv.addr, "organiser pw\n", "register", "org", "--password-stdin", NULL);
    ok(&r);
    hrun_free(&r);
    hcli_run(&r, od, srv.addr, NULL, "tournament", "create", "Cup", "--system", "round_robin",
             NULL);
    ok(&r);
    cr_assert_str_eq(r.out, "Tournament 1: Cup, round_robin alquerque, not started (organiser org)\n"
                            "Players:\n");
    hrun_free(&r);
    for (int i = 0; i < 4; i++) {
        hsrv_userdir(&srv, names[i], dirs[i]);
        hcli_run(&r, dirs[i], srv.addr, "a long password\n", "register", names[i],
                 "--password-stdin", NULL);
        ok(&r);
        hrun_free(&r);
        hcli_run(&r, dirs[i], srv.addr, NULL, "tournament", "join", "1", NULL);
        ok(&r);
        hrun_free(&r);
    }
    hcli_run(&r, od, srv.addr, NULL, "tournament", "show", "1", NULL);
    ok(&r);
    cr_assert_str_eq(r.out, "Tournament 1: Cup, round_robin alquerque, not started (organiser org)\n"
                            "Players: anna ben cleo dan\n");
    hrun_free(&r);
    hcli_run(&r, od, srv.addr, NULL, "tournament", "start", "1", NULL);
    ok(&r);
    hrun_free(&r);
    hcli_run(&r, od, srv.addr, NULL, "tournament", "show", "1", NULL);
    ok(&r);
    cr_assert(strstr(r.out, "Tournament 1: Cup, round_robin alquerque, running, round 1 of 3 "
                            "(organiser org)\n"),
              "%s", r.out);
    cr_assert(strstr(r.out, "Round 1\n  WHITE            BLACK            RESULT\n  "), "%s",
              r.out);
    cr_assert(strstr(r.out, " ...    game "), "%s", r.out);
    hrun_free(&r);
    for (int round = 1; round <= 3; round++) {
        draw_round(od, srv.addr, "1", round);
        if (round < 3) {
            hcli_run(&r, od, srv.addr, NULL, "tournament", "pair", "1", NULL);
            ok(&r);
            hrun_free(&r);
        }
    }
    hcli_run(&r, od, srv.addr, NULL, "tournament", "standings", "1", NULL);
    ok(&r);
    cr_assert_str_eq(r.out,
                     "RANK PLAYER               POINTS     SB     BH     DE  WIN\n"
                     "1    anna                    1.5   2.25    4.5    1.5    0\n"
                     "1    ben                     1.5   2.25    4.5    1.5    0\n"
                     "1    cleo                    1.5   2.25    4.5    1.5    0\n"
                     "1    dan                     1.5   2.25    4.5    1.5    0\n"
                     "All 4 players share first place\n"
                     "Tie-breaks in this order: Sonneborn-Berger, Buchholz, direct encounter, wins "
                     "(FIDE C.07)\n");
    hrun_free(&r);
    hcli_run(&r, od, srv.addr, NULL, "tournament", "show", "1", NULL);
    ok(&r);
    cr_assert(strstr(r.out, "Round 3\n  WHITE            BLACK            RESULT\n  "), "%s",
              r.out);
    cr_assert(strstr(r.out, " 1/2    game "), "%s", r.out);
    cr_assert(strstr(r.out, "All 4 players share first place\n"), "%s", r.out);
    hrun_free(&r);
    setenv("LANGUAGE", "fr", 1);
    setenv("LC_ALL", "C.UTF-8", 1);
    hcli_run(&r, od, srv.addr, NULL, "tournament", "show", "1", NULL);
    unsetenv("LANGUAGE");
    unsetenv("LC_ALL");
    ok(&r);
    cr_assert(strstr(r.out, "Les 4 joueurs partagent la première place\n"), "%s", r.out);
    cr_assert(strstr(r.out, "  BLANCS           NOIRS            RÉSULTAT\n"), "%s", r.out);
    hrun_free(&r);
    hsrv_stop(&srv);
    h_pass();
}
