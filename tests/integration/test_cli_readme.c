/*
 * The README's shell lines run as they are written (issue 24): registering
 * and logging in without a terminal (`printf '%s\n' "$PW" | qirkat register
 * carol --password-stdin`), through /bin/sh, against the real qirkatd.
 */
#include <criterion/criterion.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "harness.h"

TestSuite(cli_readme, .init = h_setup, .fini = h_teardown, .timeout = 120);

/* The first line of README.md that starts with prefix, without its
 * newline, into buf (size n). Fails the test when there is none. */
static void readme_line(const char *prefix, char *buf, size_t n)
{
    FILE *f = fopen("README.md", "r");
    cr_assert_not_null(f, "README.md (tests run from the project root)");
    bool found = false;
    while (!found && fgets(buf, (int)n, f))
        found = strncmp(buf, prefix, strlen(prefix)) == 0;
    fclose(f);
    cr_assert(found, "README.md has no line starting %s", prefix);
    buf[strcspn(buf, "\n")] = '\0';
}

/* Run line with /bin/sh in confdir's environment (XDG_CONFIG_HOME, HOME,
 * QIRKAT_SERVER=addr, PW=pw, $QK_BIN first on PATH); its stdout and stderr
 * into out and err (size n each); returns the exit status. The line goes
 * through a script file, so it is run exactly as written. */
static int run_sh(const char *confdir, const char *addr, const char *pw, const char *line,
                  char *out, char *err, size_t n)
{
    char bin[PATH_MAX], cmd[PATH_MAX + 3 * H_PATH + 96], of[H_PATH + 8], ef[H_PATH + 8], sf[H_PATH + 8];
    cr_assert_not_null(realpath(h_bin(), bin));
    snprintf(of, sizeof of, "%s/out", confdir);
    snprintf(ef, sizeof ef, "%s/err", confdir);
    snprintf(sf, sizeof sf, "%s/line.sh", confdir);
    FILE *script = fopen(sf, "w");
    cr_assert_not_null(script);
    fprintf(script, "%s\n", line);
    fclose(script);
    setenv("XDG_CONFIG_HOME", confdir, 1);
    setenv("HOME", confdir, 1);
    setenv("QIRKAT_SERVER", addr, 1);
    setenv("PW", pw, 1);
    snprintf(cmd, sizeof cmd, "PATH='%s':\"$PATH\" /bin/sh '%s' </dev/null >'%s' 2>'%s'", bin, sf,
             of, ef);
    int st = system(cmd);
    unsetenv("PW");
    unsetenv("QIRKAT_SERVER");
    const char *files[2] = {of, ef};
    char *bufs[2] = {out, err};
    for (int i = 0; i < 2; i++) {
        FILE *f = fopen(files[i], "r");
        cr_assert_not_null(f);
        size_t k = fread(bufs[i], 1, n - 1, f);
        bufs[i][k] = '\0';
        fclose(f);
    }
    cr_assert(WIFEXITED(st), "%s", cmd);
    return WEXITSTATUS(st);
}

Test(cli_readme, register_and_login_without_a_terminal)
{
    hsrv srv;
    hsrv_start(&srv);
    char dir[H_PATH], line[512], out[4096], err[4096], want[256];
    hsrv_userdir(&srv, "carol", dir);
    readme_line("printf '%s\\n' \"$PW\" | qirkat register carol --password-stdin", line,
                sizeof line);
    cr_assert_eq(run_sh(dir, srv.addr, "carol's long password", line, out, err, sizeof out), 0,
                 "%s", err);
    snprintf(want, sizeof want, "Registered and logged in as carol on %s\n", srv.addr);
    cr_assert_str_eq(out, want);
    readme_line("printf '%s\\n' \"$PW\" | qirkat login carol --password-stdin", line, sizeof line);
    cr_assert_eq(run_sh(dir, srv.addr, "carol's long password", line, out, err, sizeof out), 0,
                 "%s", err);
    snprintf(want, sizeof want, "Logged in as carol on %s\n", srv.addr);
    cr_assert_str_eq(out, want);
    /* Without the flag: the sentence and the exit status the README gives. */
    cr_assert_eq(run_sh(dir, srv.addr, "carol's long password",
                        "printf \"%s\\n\" \"$PW\" | qirkat login carol", out, err, sizeof out),
                 2);
    cr_assert(strstr(err, "stdin is not a terminal: pipe the password in with --password-stdin\n"),
              "%s", err);
    hsrv_stop(&srv);
    h_pass();
}

/* Issue 24: the join code in one format. `class create` prints it as
 * "ABCD 2345"; a student types it back in small letters as two words (the
 * README's `qirkat class join 9vwh v6qv`) and joins. */
Test(cli_readme, class_join_code_shown_as_two_groups_and_typed_back_as_two_words)
{
    hsrv srv;
    hsrv_start(&srv);
    char td[H_PATH], sd[H_PATH];
    hsrv_userdir(&srv, "teacher", td);
    hsrv_userdir(&srv, "kid", sd);
    hrun r;
    hcli_run(&r, td, srv.addr, "teacher password\n", "register", "mme_ali", "--password-stdin",
             NULL);
    cr_assert_eq(r.code, 0, "%s", r.err);
    hrun_free(&r);
    hcli_run(&r, sd, srv.addr, "kid's password\n", "register", "chloe", "--password-stdin", NULL);
    cr_assert_eq(r.code, 0, "%s", r.err);
    hrun_free(&r);
    hcli_run(&r, td, srv.addr, NULL, "class", "create", "5B", NULL);
    cr_assert_eq(r.code, 0, "%s", r.err);
    const char *at = strstr(r.out, ", join code ");
    cr_assert_not_null(at, "%s", r.out);
    at += strlen(", join code ");
    /* ABCD 2345: 4 of the alphabet, a space, 4 more, the end of the line. */
    const char *alphabet = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";
    for (int i = 0; i < 9; i++)
        cr_assert(i == 4 ? at[i] == ' ' : strchr(alphabet, at[i]) != NULL, "%s", r.out);
    cr_assert_eq(at[9], '\n', "%s", r.out);
    cr_assert_eq(strncmp(r.out, "Class 1: 5B (teacher mme_ali), join code ", 41), 0, "%s", r.out);
    char first[5], second[5];
    for (int i = 0; i < 4; i++) {
        first[i] = (char)(at[i] >= 'A' && at[i] <= 'Z' ? at[i] - 'A' + 'a' : at[i]);
        second[i] = (char)(at[5 + i] >= 'A' && at[5 + i] <= 'Z' ? at[5 + i] - 'A' + 'a' : at[5 + i]);
    }
    first[4] = second[4] = '\0';
    char shown[10];
    memcpy(shown, at, 9);
    shown[9] = '\0';
    hrun_free(&r);
    hcli_run(&r, sd, srv.addr, NULL, "class", "join", first, second, NULL);
    cr_assert_eq(r.code, 0, "%s", r.err);
    cr_assert_str_eq(r.out, "Joined 5B (class 1, teacher mme_ali)\n");
    hrun_free(&r);
    hcli_run(&r, td, srv.addr, NULL, "class", "show", "1", NULL);
    cr_assert_eq(r.code, 0, "%s", r.err);
    char want[128];
    snprintf(want, sizeof want, "Class 1: 5B (teacher mme_ali), join code %s\n  chloe", shown);
    cr_assert_eq(strncmp(r.out, want, strlen(want)), 0, "%s", r.out);
    hrun_free(&r);
    hsrv_stop(&srv);
    h_pass();
}

/* Issue 24: the README's example record ("Game record files", its
 * ```pdn block, [Result "2-0"]) is imported by `qirkat import` into the
 * real qirkatd and exported back with 1-0; a record in numbered-square
 * notation is refused, nothing sent, with the message naming the notation
 * to use and the README's section. */
Test(cli_readme, the_example_record_imports_and_numbered_squares_are_refused)
{
    hsrv srv;
    hsrv_start(&srv);
    char dir[H_PATH], file[H_PATH + 16], line[512];
    hsrv_userdir(&srv, "alice", dir);
    hrun r;
    hcli_run(&r, dir, srv.addr, "a long password\n", "register", "alice", "--password-stdin",
             NULL);
    cr_assert_eq(r.code, 0, "%s", r.err);
    hrun_free(&r);
    snprintf(file, sizeof file, "%s/club.pdn", dir);
    FILE *in = fopen("README.md", "r"), *out = fopen(file, "w");
    cr_assert(in && out);
    bool section = false, inside = false, done = false;
    while (!done && fgets(line, sizeof line, in)) {
        if (strcmp(line, "## Game record files\n") == 0)
            section = true;
        else if (section && !inside && strcmp(line, "```pdn\n") == 0)
            inside = true;
        else if (inside && strcmp(line, "```\n") == 0)
            done = true;
        else if (inside)
            fputs(line, out);
    }
    fclose(in);
    fclose(out);
    cr_assert(done, "no ```pdn block in the README's \"Game record files\"");
    hcli_run(&r, dir, srv.addr, NULL, "import", file, NULL);
    cr_assert_eq(r.code, 0, "%s", r.err);
    cr_assert_str_eq(r.out, "Imported game 1 as game 1\n");
    hrun_free(&r);
    hcli_run(&r, dir, srv.addr, NULL, "export", "1", NULL);
    cr_assert_eq(r.code, 0, "%s", r.err);
    cr_assert(strstr(r.out, "[White \"alice\"]\n[Black \"bob\"]\n[Result \"1-0\"]\n"), "%s", r.out);
    cr_assert(strstr(r.out, "1. d2-c3 b4xd2 2. e1xc3 1-0\n"), "%s", r.out);
    hrun_free(&r);

    snprintf(file, sizeof file, "%s/intl.pdn", dir);
    out = fopen(file, "w");
    cr_assert_not_null(out);
    fputs("[Event \"Dutch open\"]\n[GameType \"20\"]\n\n1. 32-28 19-23 2. 28x19 14x23 *\n", out);
    fclose(out);
    hcli_run(&r, dir, srv.addr, NULL, "import", file, NULL);
    cr_assert_eq(r.code, 1, "%s", r.out);
    char want[1024];
    snprintf(want, sizeof want,
             "%s: game 1 of the file: line 4: '32-28' is numbered-square notation (other draughts "
             "programs); a move names RULES.md's points, like b2-c3 or b4xd2 (README: \"Game "
             "record files\")\n",
             file);
    cr_assert(strstr(r.err, want), "%s", r.err);
    hrun_free(&r);
    hcli_run(&r, dir, srv.addr, NULL, "export", "2", NULL); /* nothing was stored */
    cr_assert_eq(r.code, 1, "%s", r.out);
    hrun_free(&r);
    hsrv_stop(&srv);
    h_pass();
}
