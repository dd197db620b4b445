/*
 * qirkatd's command line (docs/design.md "qirkatd command line"): bad
 * flags print the usage and exit 2, --help exits 0, a port in use or an
 * unusable database exits 1, SIGINT stops it cleanly with exit 0.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helper.h"

/* Run qirkatd with args (NULL-terminated) and stderr to /dev/null; its
 * exit status, or -1 if it was still running after 5 s. */
static int run(const char *const *args)
{
    const char *bin = getenv("QK_BIN");
    char path[256];
    snprintf(path, sizeof path, "%s/qirkatd", bin && *bin ? bin : "build");
    const char *argv[16] = {"qirkatd"};
    int n = 1;
    for (; args[n - 1] && n < 15; n++)
        argv[n] = args[n - 1];
    argv[n] = NULL;
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        freopen("/dev/null", "w", stderr);
        freopen("/dev/null", "w", stdout);
        execv(path, (char *const *)argv);
        _exit(127);
    }
    for (int i = 0; i < 500; i++) {
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        usleep(10000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return -1;
}

Test(cmdline, bad_flags_exit_2)
{
    static const char *const cases[][4] = {
        {"--bogus", NULL},
        {"--listen", NULL},
        {"--listen", "nocolon", NULL},
        {"--listen", "127.0.0.1:70000", NULL},
        {"--listen", "127.0.0.1:-1", NULL},
        {"--log-level", "loud", NULL},
        {"--pwhash", "fast", NULL},
        {"--ready-fd", "x", NULL},
        {"--db", NULL},
        {"--rate-limit", "5", NULL},
        {"--rate-limit", "0/1", NULL},
        {"--rate-limit", "5/", NULL},
        {"--rate-limit", "5/x", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        cr_assert_eq(run(cases[i]), 2, "qirkatd %s %s", cases[i][0],
                     cases[i][1] ? cases[i][1] : "");
}

Test(cmdline, help_exits_0)
{
    static const char *const args[] = {"--help", NULL};
    cr_assert_eq(run(args), 0);
}

Test(cmdline, unusable_database_exits_1)
{
    static const char *const args[] = {"--listen", "127.0.0.1:0", "--db",
                                       "/nonexistent-dir/x/q.db", NULL};
    cr_assert_eq(run(args), 1);
}

Test(cmdline, port_in_use_exits_1)
{
    tsrv s;
    tsrv_start(&s, NULL);
    char listen[64], db[256];
    snprintf(listen, sizeof listen, "127.0.0.1:%d", s.port);
    snprintf(db, sizeof db, "%s/other.db", s.dir);
    const char *const args[] = {"--listen", listen, "--db", db, NULL};
    cr_assert_eq(run(args), 1);
    tsrv_stop(&s);
    tsrv_cleanup(&s);
}

Test(cmdline, sigint_stops_cleanly)
{
    tsrv s;
    tsrv_start(&s, NULL);
    tconn *c = tc_open(s.port);
    t_register(c, "sig");
    kill(s.pid, SIGINT);
    int st = 0;
    cr_assert_eq(waitpid(s.pid, &st, 0), s.pid);
    s.pid = 0;
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
    cr_assert(tc_wait_eof(c, T_TIMEOUT_MS), "the connection was not closed");
    tc_close(c);
    cr_assert_eq(t_db_count(s.db, "users"), 1);
    tsrv_cleanup(&s);
}
