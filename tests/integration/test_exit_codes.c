/*
 * Exit status of the qirkat CLI (docs/design.md, "qirkat command line"):
 * 0 success, 1 server error (code and message on stderr), 2 usage error,
 * 3 cannot connect.
 */
#include <criterion/criterion.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness.h"
#include "play.h"

TestSuite(exit_codes, .init = h_setup, .fini = h_teardown, .timeout = 120);

static void expect_code(hrun *r, int code)
{
    cr_assert(!r->timed_out, "`%s` timed out", r->cmd);
    cr_assert_eq(r->code, code,
                 "`%s`: exit %d (signal %d), expected %d\nstdout: %.1000s\n"
                 "stderr: %.1000s",
                 r->cmd, r->code, r->signal, code, r->out, r->err);
}

Test(exit_codes, usage_errors_exit_2)
{
    hsrv srv;
    hsrv_start(&srv);
    hplayers p;
    hplay_setup(&p, &srv, "alice", "bob");
    hrun r;
    hcli_run(&r, p.wdir, srv.addr, NULL, "frobnicate", NULL);
    expect_code(&r, 2);
    hrun_free(&r);
    hcli_run(&r, p.wdir, srv.addr, NULL, "move", NULL);
    expect_code(&r, 2);
    hrun_free(&r);
    hcli_run(&r, p.wdir, srv.addr, NULL, "challenge", "bob", "--color", "purple", NULL);
    expect_code(&r, 2);
    hrun_free(&r);
    hcli_run(&r, p.wdir, srv.addr, NULL, "--no-such-flag", "challenges", NULL);
    expect_code(&r, 2);
    hrun_free(&r);
    hsrv_stop(&srv);
    h_pass();
}

Test(exit_codes, server_error_exits_1_in_words_on_stderr)
{
    hsrv srv;
    hsrv_start(&srv);
    hplayers p;
    hplay_setup(&p, &srv, "alice", "bob");
    hrun r;
    hcli_run(&r, p.bdir, srv.addr, NULL, "accept", "4242", NULL);
    expect_code(&r, 1);
    /* Words for people (issue 10); the code is in the exit status. */
    cr_assert_not_null(strstr(r.err, "Not found"), "`%s`: stderr lacks the words: %s", r.cmd,
                       r.err);
    cr_assert_null(strstr(r.err, "not_found"), "`%s`: stderr shows the code: %s", r.cmd, r.err);
    hrun_free(&r);
    /* With --json, the code for programs (stdout's object and stderr). */
    hcli_run(&r, p.bdir, srv.addr, NULL, "--json", "accept", "4242", NULL);
    expect_code(&r, 1);
    cr_assert_not_null(strstr(r.err, "not_found"), "`%s`: stderr: %s", r.cmd, r.err);
    hrun_free(&r);
    /* A taken name (--yes: bob's directory holds bob's session). */
    hcli_run(&r, p.bdir, srv.addr, "long enough\n", "register", "alice", "--password-stdin",
             "--yes", NULL);
    expect_code(&r, 1);
    cr_assert_not_null(strstr(r.err, "Not possible in the current state"), "`%s`: stderr: %s",
                       r.cmd, r.err);
    hrun_free(&r);
    hsrv_stop(&srv);
    h_pass();
}

/* A port on which nothing listens: bound, never listened on, so a connect
 * is refused for as long as we hold it. */
static int refused_port(int *fd)
{
    *fd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert_geq(*fd, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(bind(*fd, (struct sockaddr *)&a, sizeof a), 0);
    socklen_t len = sizeof a;
    cr_assert_eq(getsockname(*fd, (struct sockaddr *)&a, &len), 0);
    return ntohs(a.sin_port);
}

Test(exit_codes, server_down_exits_3)
{
    hsrv srv;
    hsrv_start(&srv);
    hplayers p;
    hplay_setup(&p, &srv, "alice", "bob");
    hsrv_stop(&srv);
    hrun r;
    /* The stopped server's own address. */
    hcli_run(&r, p.wdir, srv.addr, NULL, "challenges", NULL);
    expect_code(&r, 3);
    hrun_free(&r);
    int fd;
    char addr[64];
    snprintf(addr, sizeof addr, "127.0.0.1:%d", refused_port(&fd));
    /* (Not `show` there: the session belongs to the stopped server's
     * address, and the CLI reports "not logged in" for another one.) */
    hcli_run(&r, p.wdir, addr, "long enough\n", "register", "carol", "--password-stdin", "--yes",
             NULL);
    expect_code(&r, 3);
    hrun_free(&r);
    close(fd);
    h_pass();
}

Test(exit_codes, success_exits_0)
{
    hsrv srv;
    hsrv_start(&srv);
    hplayers p;
    hplay_setup(&p, &srv, "alice", "bob");
    hrun r;
    hcli_run(&r, p.wdir, srv.addr, NULL, "challenges", NULL);
    expect_code(&r, 0);
    hrun_free(&r);
    /* --server wins over QIRKAT_SERVER. */
    int fd;
    char addr[64];
    snprintf(addr, sizeof addr, "127.0.0.1:%d", refused_port(&fd));
    hcli_run(&r, p.wdir, addr, NULL, "--server", srv.addr, "challenges", NULL);
    expect_code(&r, 0);
    hrun_free(&r);
    close(fd);
    /* Offline subcommands need no server. */
    hcli_run(&r, p.wdir, "127.0.0.1:1", NULL, "rules", "alquerque", NULL);
    expect_code(&r, 0);
    hrun_free(&r);
    hsrv_stop(&srv);
    h_pass();
}
