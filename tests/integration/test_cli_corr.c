/*
 * The correspondence subcommands of the real qirkat against the real
 * qirkatd: `games --mine` with your time left, `games --my-turn`, `inbox`
 * (lists, then marks read), `vacation on|status|off`, `draw` refused in a
 * variant without draws, `abort`, and usage errors.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "harness.h"

TestSuite(cli_corr, .init = h_setup, .fini = h_teardown, .timeout = 120);

static void ok(hrun *r)
{
    cr_assert_eq(r->code, 0, "%s: exit %d\nstdout: %s\nstderr: %s", r->cmd, r->code, r->out,
                 r->err);
}

Test(cli_corr, games_inbox_vacation_draw_abort)
{
    hsrv srv;
    hsrv_start(&srv);
    char ad[H_PATH], bd[H_PATH];
    hcli_register_pair(&srv, ad, bd);
    hrun r;
    hcli_run(&r, ad, srv.addr, NULL, "--json", "challenge", "bob", "--color", "white", "--time",
             "corr:2", NULL);
    long long cid = hj_int(cJSON_GetObjectItem(hrun_ok_json(&r), "challenge"), "id");
    hrun_free(&r);

    /* bob's inbox: the challenge, marked read by being shown. */
    hcli_run(&r, bd, srv.addr, NULL, "inbox", NULL);
    ok(&r);
    cr_assert(strncmp(r.out, "New (1):\n  ", 11) == 0 && strstr(r.out, " UTC  challenge ") &&
                  strstr(r.out, " from alice: alquerque, corr:2 (qirkat accept "),
              "%s", r.out);
    cr_assert_null(strstr(r.out, "Read before:"), "%s", r.out);
    hrun_free(&r);
    hcli_run(&r, bd, srv.addr, NULL, "inbox", NULL);
    ok(&r);
    cr_assert(strncmp(r.out, "Read before:\n  ", 15) == 0 && strstr(r.out, "from alice") &&
                  !strstr(r.out, "New ("),
              "read now: %s", r.out);
    hrun_free(&r);

    char id[32];
    snprintf(id, sizeof id, "%lld", cid);
    hcli_run(&r, bd, srv.addr, NULL, "--json", "accept", id, NULL);
    long long gid = hj_int(cJSON_GetObjectItem(hrun_ok_json(&r), "game"), "id");
    hrun_free(&r);
    char gs[32];
    snprintf(gs, sizeof gs, "%lld", gid);

    hcli_run(&r, ad, srv.addr, NULL, "games", "--mine", NULL);
    ok(&r);
    cr_assert(strstr(r.out, "TIME") && strstr(r.out, "YOU LEFT  OPP LEFT") &&
                  strstr(r.out, "corr:2") && strstr(r.out, "1d 23h"),
              "%s", r.out);
    hrun_free(&r);
    hcli_run(&r, ad, srv.addr, NULL, "games", "--my-turn", NULL);
    ok(&r);
    cr_assert(strstr(r.out, "bob"), "%s", r.out);
    hrun_free(&r);
    hcli_run(&r, bd, srv.addr, NULL, "games", "--my-turn", NULL);
    ok(&r);
    cr_assert(strstr(r.out, "No games"), "%s", r.out);
    hrun_free(&r);

    hcli_run(&r, bd, srv.addr, NULL, "vacation", "on", "--hours", "48", NULL);
    ok(&r);
    cr_assert(strstr(r.out, "On vacation"), "%s", r.out);
    hrun_free(&r);
    hcli_run(&r, bd, srv.addr, NULL, "vacation", "on", NULL);
    cr_assert_eq(r.code, 1, "%s", r.err);
    cr_assert(strstr(r.err, "Not possible in the current state"), "%s", r.err);
    hrun_free(&r);
    hcli_run(&r, bd, srv.addr, NULL, "vacation", "off", NULL);
    ok(&r);
    cr_assert(strstr(r.out, "Not on vacation"), "%s", r.out);
    hrun_free(&r);
    hcli_run(&r, bd, srv.addr, NULL, "vacation", "sometimes", NULL);
    cr_assert_eq(r.code, 2);
    hrun_free(&r);

    hcli_run(&r, ad, srv.addr, NULL, "draw", "offer", gs, NULL);
    ok(&r);
    cr_assert(strstr(r.out, "draw offered"), "%s", r.out);
    hrun_free(&r);
    hcli_run(&r, bd, srv.addr, NULL, "draw", "decline", gs, NULL);
    ok(&r);
    hrun_free(&r);
    hcli_run(&r, ad, srv.addr, NULL, "abort", gs, NULL);
    ok(&r);
    cr_assert(strstr(r.out, "aborted"), "%s", r.out);
    hrun_free(&r);
    hcli_run(&r, ad, srv.addr, NULL, "abort", gs, NULL);
    cr_assert_eq(r.code, 1);
    cr_assert(strstr(r.err, "The game is over"), "%s", r.err);
    hrun_free(&r);

    /* A variant without draws. */
    hcli_run(&r, ad, srv.addr, NULL, "--json", "challenge", "bob", "--variant",
             "alquerque-brainking", NULL);
    cid = hj_int(cJSON_GetObjectItem(hrun_ok_json(&r), "challenge"), "id");
    hrun_free(&r);
    snprintf(id, sizeof id, "%lld", cid);
    hcli_run(&r, bd, srv.addr, NULL, "--json", "accept", id, NULL);
    gid = hj_int(cJSON_GetObjectItem(hrun_ok_json(&r), "game"), "id");
    hrun_free(&r);
    snprintf(gs, sizeof gs, "%lld", gid);
    hcli_run(&r, bd, srv.addr, NULL, "draw", "offer", gs, NULL);
    cr_assert_eq(r.code, 1);
    cr_assert(strstr(r.err, "The server refused the request") && strstr(r.err, "no draws"), "%s",
              r.err);
    hrun_free(&r);
    hcli_run(&r, bd, srv.addr, NULL, "draw", "maybe", gs, NULL);
    cr_assert_eq(r.code, 2);
    hrun_free(&r);
    hsrv_stop(&srv);
    h_pass();
}

/* Issue 24: a game's end in the reader's terms. alice resigns: `resign`
 * says "you lost (resignation)"; bob's inbox (the game_end notification,
 * which carries his colour) says "you won (resignation)"; in French too. */
Test(cli_corr, resign_and_inbox_say_who_won_in_the_readers_terms)
{
    hsrv srv;
    hsrv_start(&srv);
    char ad[H_PATH], bd[H_PATH];
    hcli_register_pair(&srv, ad, bd);
    hrun r;
    /* Correspondence: alice, online when she resigns, gets her game_end
     * notice too (in a live or unlimited game the answer would be her only
     * news of it, game/notify.h). */
    hcli_run(&r, ad, srv.addr, NULL, "--json", "challenge", "bob", "--color", "white", "--time",
             "corr:3", NULL);
    long long cid = hj_int(cJSON_GetObjectItem(hrun_ok_json(&r), "challenge"), "id");
    hrun_free(&r);
    char id[32];
    snprintf(id, sizeof id, "%lld", cid);
    hcli_run(&r, bd, srv.addr, NULL, "--json", "accept", id, NULL);
    long long gid = hj_int(cJSON_GetObjectItem(hrun_ok_json(&r), "game"), "id");
    hrun_free(&r);
    char gs[32], want[128];
    snprintf(gs, sizeof gs, "%lld", gid);
    hcli_run(&r, bd, srv.addr, NULL, "inbox", NULL); /* bob reads the challenge */
    ok(&r);
    hrun_free(&r);
    hcli_run(&r, ad, srv.addr, NULL, "resign", gs, NULL);
    ok(&r);
    snprintf(want, sizeof want, "Resigned game %lld: you lost (resignation)\n", gid);
    cr_assert_str_eq(r.out, want);
    hrun_free(&r);
    setenv("LANGUAGE", "fr", 1);
    setenv("LC_ALL", "C.UTF-8", 1);
    hcli_run(&r, bd, srv.addr, NULL, "inbox", NULL);
    unsetenv("LANGUAGE");
    unsetenv("LC_ALL");
    ok(&r);
    snprintf(want, sizeof want,
             "la partie %lld contre alice est terminée\xc2\xa0: vous avez gagné (abandon)\n", gid);
    cr_assert(strstr(r.out, want), "%s", r.out);
    hrun_free(&r);
    hcli_run(&r, ad, srv.addr, NULL, "inbox", NULL);
    ok(&r);
    snprintf(want, sizeof want, "game %lld against bob is over: you lost (resignation)\n", gid);
    cr_assert(strstr(r.out, want), "%s", r.out);
    hrun_free(&r);
    hsrv_stop(&srv);
    h_pass();
}
