/*
 * Moderation through the real qirkat CLI against the real qirkatd, with
 * the operator's `qirkatd admin grant` run beside it (issue 23 items 4
 * and 5): `qirkat admin` refused "Not allowed" to a player, then, once
 * granted, ban (the banned user's stored session and password no longer
 * work, the reason shown), unban, reset-password and `qirkat redeem-reset`
 * with the code on stdin (a new session stored), adjudicate (seen by
 * `show`), abort-tournament and the audit `admin log`; usage errors exit 2
 * before any connection.
 */
#include <criterion/criterion.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "harness.h"

TestSuite(cli_admin, .init = h_setup, .fini = h_teardown, .timeout = 120);

static void ok(const hrun *r)
{
    cr_assert_eq(r->code, 0, "%s: exit %d\nstdout: %s\nstderr: %s", r->cmd, r->code, r->out,
                 r->err);
}

static void run_ok(const char *dir, const hsrv *srv, const char *in, const char *want, ...)
    __attribute__((sentinel));

/* qirkat with the arguments after want (NULL-ended) exits 0 and prints
 * exactly want (NULL: anything). */
static void run_ok(const char *dir, const hsrv *srv, const char *in, const char *want, ...)
{
    const char *argv[16];
    int n = 0;
    va_list ap;
    va_start(ap, want);
    const char *s;
    while ((s = va_arg(ap, const char *)) != NULL && n < 15)
        argv[n++] = s;
    va_end(ap);
    argv[n] = NULL;
    hrun r;
    hcli_runv(&r, dir, srv->addr, in, argv);
    ok(&r);
    if (want)
        cr_assert_str_eq(r.out, want, "%s", r.cmd);
    hrun_free(&r);
}

static void operator_grant(const hsrv *srv, const char *name)
{
    char cmd[2 * H_PATH];
    snprintf(cmd, sizeof cmd, "%s/qirkatd admin grant %s --db %s >/dev/null", h_bin(), name,
             srv->db);
    int st = system(cmd);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s", cmd);
}

Test(cli_admin, ban_reset_adjudicate_abort_and_log)
{
    hsrv srv;
    hsrv_start(&srv);
    char ad[H_PATH], bd[H_PATH], cd[H_PATH], bd2[H_PATH];
    hsrv_userdir(&srv, "alice", ad);
    hsrv_userdir(&srv, "bob", bd);
    hsrv_userdir(&srv, "carol", cd);
    hsrv_userdir(&srv, "bob-phone", bd2);
    run_ok(ad, &srv, "pw-alice-1\n", NULL, "register", "alice", "--password-stdin", NULL);
    run_ok(bd, &srv, "pw-bob-123\n", NULL, "register", "bob", "--password-stdin", NULL);
    run_ok(cd, &srv, "pw-carol-1\n", NULL, "register", "carol", "--password-stdin", NULL);

    /* Not yet an administrator: refused by the server, exit 1. */
    hrun r;
    hcli_run(&r, ad, srv.addr, NULL, "admin", "log", NULL);
    cr_assert_eq(r.code, 1, "%s", r.err);
    cr_assert(strstr(r.err, "Not allowed: only an administrator may do this"), "%s", r.err);
    hrun_free(&r);
    /* Usage errors: exit 2 before connecting. */
    const char *bad[][6] = {{"admin", "ban", "bob", NULL},
                            {"admin", "adjudicate", "1", "purple", "--reason", "x"},
                            {"admin", "frob", NULL},
                            {"admin", "unban", NULL}};
    for (int i = 0; i < 4; i++) {
        hcli_runv(&r, ad, "127.0.0.1:1", NULL, bad[i]);
        cr_assert_eq(r.code, 2, "%s: %s", r.cmd, r.err);
        hrun_free(&r);
    }
    hcli_run(&r, ad, srv.addr, NULL, "admin", "ban", "bob", NULL);
    cr_assert(strstr(r.err, "admin ban needs --reason TEXT"), "%s", r.err);
    hrun_free(&r);

    operator_grant(&srv, "alice");
    hcli_run(&r, ad, srv.addr, NULL, "admin", "log", NULL);
    ok(&r);
    cr_assert(strstr(r.out, "ID  TIME") && strstr(r.out, "  operator  grant   user alice  -\n"),
              "%s", r.out);
    hrun_free(&r);

    /* Ban: bob's challenge to carol goes, his stored session and his
     * password stop working, with the reason. */
    run_ok(bd, &srv, NULL, NULL, "challenge", "carol", NULL);
    run_ok(ad, &srv, NULL, "Banned bob: spam in the lobby (0 sessions ended, 1 challenge canceled)\n",
           "admin", "ban", "bob", "--reason", "spam in the lobby", NULL);
    run_ok(cd, &srv, NULL, "No open challenges\n", "challenges", NULL);
    hcli_run(&r, bd, srv.addr, NULL, "challenges", NULL);
    cr_assert_eq(r.code, 1, "%s", r.err);
    hrun_free(&r);
    hcli_run(&r, bd, srv.addr, "pw-bob-123\n", "login", "bob", "--password-stdin", NULL);
    cr_assert_eq(r.code, 1, "%s", r.err);
    cr_assert(strstr(r.err, "Not allowed: this account is banned: spam in the lobby"), "%s",
              r.err);
    hrun_free(&r);
    run_ok(ad, &srv, NULL, "Unbanned bob: they may log in again\n", "admin", "unban", "bob", NULL);

    /* A reset code, redeemed on another device with the code on stdin. */
    hcli_run(&r, ad, srv.addr, NULL, "admin", "reset-password", "bob", NULL);
    ok(&r);
    char code[32] = "";
    const char *at = strstr(r.out, "Reset code for bob: ");
    cr_assert_not_null(at, "%s", r.out);
    snprintf(code, sizeof code, "%.19s", at + strlen("Reset code for bob: "));
    cr_assert(strstr(r.out, "  qirkat redeem-reset bob\n"), "%s", r.out);
    hrun_free(&r);
    char in[96];
    snprintf(in, sizeof in, "%s\nshort\n", code);
    hcli_run(&r, bd2, srv.addr, in, "redeem-reset", "bob", "--password-stdin", NULL);
    cr_assert_eq(r.code, 2, "%s", r.err); /* the rules of register: 8 characters */
    hrun_free(&r);
    snprintf(in, sizeof in, "%s\nnew-bob-pw-1\n", code);
    char want[128];
    snprintf(want, sizeof want, "Password changed; logged in as bob on %s\n", srv.addr);
    run_ok(bd2, &srv, in, want, "redeem-reset", "bob", "--password-stdin", NULL);
    run_ok(bd2, &srv, NULL, "No open challenges\n", "challenges", NULL);
    hcli_run(&r, bd2, srv.addr, in, "redeem-reset", "bob", "--password-stdin", NULL);
    cr_assert_eq(r.code, 1, "%s", r.err);
    cr_assert(strstr(r.err, "wrong or expired code"), "%s", r.err);
    hrun_free(&r);

    /* Adjudicate a game of bob and carol. */
    run_ok(bd2, &srv, NULL, NULL, "challenge", "carol", "--color", "white", NULL);
    run_ok(cd, &srv, NULL, NULL, "accept", "2", NULL);
    run_ok(ad, &srv, NULL, "Game 1 adjudicated: Black wins (white never came back)\n", "admin",
           "adjudicate", "1", "black", "--reason", "white never came back", NULL);
    hcli_run(&r, cd, srv.addr, NULL, "show", "1", NULL);
    ok(&r);
    cr_assert(strstr(r.out, "adjudicated by an administrator"), "%s", r.out);
    hrun_free(&r);

    /* A tournament of carol's, ended by alice. */
    run_ok(cd, &srv, NULL, NULL, "tournament", "create", "Club", "--system", "round_robin", NULL);
    run_ok(ad, &srv, NULL, "Tournament 1 ended: the club is closed\n", "admin",
           "abort-tournament", "1", "--reason", "the club is closed", NULL);

    /* A player may not. */
    hcli_run(&r, cd, srv.addr, NULL, "admin", "unban", "bob", NULL);
    cr_assert_eq(r.code, 1, "%s", r.err);
    cr_assert(strstr(r.err, "Not allowed"), "%s", r.err);
    hrun_free(&r);

    hcli_run(&r, ad, srv.addr, NULL, "admin", "log", "--limit", "2", NULL);
    ok(&r);
    cr_assert(strstr(r.out, "  alice  abort_tournament  tournament 1") &&
                  strstr(r.out, "  the club is closed\n"),
              "%s", r.out);
    cr_assert(strstr(r.out, "adjudicate") && !strstr(r.out, "reset_password") &&
                  strstr(r.out, "(older entries left out: raise --limit)\n"),
              "%s", r.out);
    hrun_free(&r);
    h_pass();
}
