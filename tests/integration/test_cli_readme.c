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
