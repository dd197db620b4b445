/*
 * Ratings (issue 12) through the real qirkat CLI against the real
 * qirkatd: a rated challenge shows both ratings, a resigned rated game
 * moves them by PROTOCOL.md's example (`qirkat user`), `show` and `games`
 * show the ratings at the start and the change, `leaderboard` has nobody
 * established after one game and says so, a seek's rating range refuses
 * a player outside it (exit 1, the sentence), and usage errors exit 2.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "harness.h"

TestSuite(cli_ratings, .init = h_setup, .fini = h_teardown, .timeout = 120);

static void ok(const hrun *r)
{
    cr_assert_eq(r->code, 0, "%s: exit %d\nstdout: %s\nstderr: %s", r->cmd, r->code, r->out,
                 r->err);
}

Test(cli_ratings, user_show_games_leaderboard_and_seek_range)
{
    hsrv srv;
    hsrv_start(&srv);
    char ad[H_PATH], bd[H_PATH];
    hcli_register_pair(&srv, ad, bd);
    hrun r;
    hcli_run(&r, ad, srv.addr, NULL, "user", "bob", NULL);
    ok(&r);
    cr_assert_str_eq(r.out, "bob\nNo rated games yet\n");
    hrun_free(&r);

    hcli_run(&r, ad, srv.addr, NULL, "challenge", "bob", "--color", "white", "--rated", NULL);
    ok(&r);
    cr_assert_str_eq(r.out, "Challenge 1: alice (1500) -> bob (1500), alquerque, challenger "
                            "plays white, unlimited, rated\n");
    hrun_free(&r);
    hcli_run(&r, bd, srv.addr, NULL, "accept", "1", NULL);
    ok(&r);
    hrun_free(&r);
    hcli_run(&r, bd, srv.addr, NULL, "resign", "1", "--yes", NULL);
    ok(&r);
    hrun_free(&r);

    hcli_run(&r, bd, srv.addr, NULL, "user", "alice", NULL);
    ok(&r);
    cr_assert_str_eq(r.out, "alice\n"
                            "FAMILY     RATING    RD      VOLATILITY  GAMES\n"
                            "alquerque  1662.31?  290.32  0.060000    1\n"
                            "? provisional (RD above 110)\n");
    hrun_free(&r);
    hcli_run(&r, bd, srv.addr, NULL, "show", "1", NULL);
    ok(&r);
    cr_assert(strstr(r.out, "White: alice (1500)  Black: bob (1500)\n"
                            "Ratings: White 1500.00 -> 1662.31 (+162.31), Black 1500.00 -> "
                            "1337.69 (-162.31)\n"),
              "%s", r.out);
    hrun_free(&r);
    hcli_run(&r, bd, srv.addr, NULL, "games", NULL);
    ok(&r);
    cr_assert(strstr(r.out, "alice (1500)  bob (1500)  alquerque"), "%s", r.out);
    hrun_free(&r);
    hcli_run(&r, bd, srv.addr, NULL, "leaderboard", "alquerkonane-6x4", "--limit", "5", NULL);
    ok(&r);
    cr_assert_str_eq(r.out, "No established players in alquerkonane yet (a rating is provisional "
                            "while its RD is above 110)\n");
    hrun_free(&r);

    /* A seek for 1600..1800: bob (1337.69) may not accept it. */
    hcli_run(&r, ad, srv.addr, NULL, "challenge", "--rated", "--rating-min", "1600", "--rating-max",
             "1800", NULL);
    ok(&r);
    cr_assert(strstr(r.out, "Challenge 2: alice (1662) -> anyone") &&
                  strstr(r.out, "\nRating range: 1600-1800\n"),
              "%s", r.out);
    hrun_free(&r);
    hcli_run(&r, bd, srv.addr, NULL, "accept", "2", NULL);
    cr_assert_eq(r.code, 1, "%s", r.err);
    cr_assert(strstr(r.err, "your alquerque rating 1337.69 is outside this seek's range 1600-1800"),
              "%s", r.err);
    hrun_free(&r);
    hcli_run(&r, bd, srv.addr, NULL, "leaderboard", NULL);
    cr_assert_eq(r.code, 2, "no variant: usage error");
    hrun_free(&r);
    hcli_run(&r, bd, srv.addr, NULL, "leaderboard", "chess", NULL);
    cr_assert_eq(r.code, 1);
    cr_assert(strstr(r.err, "unknown variant"), "%s", r.err);
    hrun_free(&r);
    hsrv_stop(&srv);
}
