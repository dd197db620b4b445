/*
 * The qirkat command line in-process (cli_run): exit statuses of
 * docs/design.md (0 ok, 1 server error, 2 usage, 3 cannot connect), the
 * offline subcommands, and the server conversations against a scripted fake
 * server (fake.h) so the exact requests can be checked.
 */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fake.h"
#include "session.h"
#include "util.h"

static char cfg[64];

static void setup(void)
{
    fresh_config(cfg);
}

static void teardown(void)
{
    drop_config(cfg);
}

TestSuite(cli, .init = setup, .fini = teardown);

static void expect(crun *r, int code)
{
    cr_assert_eq(r->code, code, "exit %d, expected %d\nstdout: %s\nstderr: %s", r->code, code,
                 r->out, r->err);
}

/* Run with empty stdin and check the exit status only. */
#define EXPECT(code, ...)                                                                          \
    do {                                                                                           \
        crun r_;                                                                                   \
        crun_do(&r_, NULL, __VA_ARGS__, NULL);                                                     \
        expect(&r_, code);                                                                         \
        crun_free(&r_);                                                                            \
    } while (0)

Test(cli, usage_errors_exit_2)
{
    crun r;
    crun_do(&r, NULL, NULL);
    expect(&r, 2);
    cr_assert(strstr(r.err, "no subcommand"), "%s", r.err);
    crun_free(&r);

    crun_do(&r, NULL, "frobnicate", NULL);
    expect(&r, 2);
    cr_assert(strstr(r.err, "unknown subcommand 'frobnicate'"), "%s", r.err);
    crun_free(&r);

    crun_do(&r, NULL, "move", NULL);
    expect(&r, 2);
    cr_assert(strstr(r.err, "usage: qirkat move GAME MOVE [--ply N]"), "%s", r.err);
    crun_free(&r);

    EXPECT(2, "move", "1");
    EXPECT(2, "show", "1", "2");
    EXPECT(2, "show", "one");
    EXPECT(2, "accept", "-");
    EXPECT(2, "move", "1", "b2-c3", "--ply");
    EXPECT(2, "move", "1", "b2-c3", "--ply", "x");
    EXPECT(2, "move", "1", "b2-c3", "--ply=-1");
    EXPECT(2, "move", "1", "b2-c3", "--plies", "3");
    EXPECT(2, "--no-such-flag", "challenges");
    EXPECT(2, "-x", "challenges");
    EXPECT(2, "--server");
    EXPECT(2, "--json=yes", "challenges");
    EXPECT(2, "challenges", "--json=yes");
    EXPECT(2, "challenge", "bob", "--color", "purple");
    EXPECT(2, "challenge", "bob", "--time", "corr:0");
    EXPECT(2, "challenge", "bob", "--time", "corr:15");
    EXPECT(2, "challenge", "bob", "--time", "live:300");
    EXPECT(2, "challenge", "bob", "--time", "live:0+0");
    EXPECT(2, "challenge", "bob", "--time", "live:10801+0");
    EXPECT(2, "challenge", "bob", "--time", "live:60+181");
    EXPECT(2, "challenge", "bob", "--time", "blitz");
    EXPECT(2, "challenge", "bob", "carol");
    EXPECT(2, "register");
    EXPECT(2, "logout", "now");
    EXPECT(2, "rules", "a", "b");
    EXPECT(2, "rules", "chess");
    EXPECT(2, "perft", "alquerque");
    EXPECT(2, "perft", "alquerque", "0");
    EXPECT(2, "perft", "alquerque", "65");
    EXPECT(2, "perft", "alquerque", "three");
    EXPECT(2, "perft", "alquerque", "bbbbb/bbbbb w 0 -", "2");
    EXPECT(2, "help", "frobnicate");
    EXPECT(2, "--server", "localhost", "show", "1");
    EXPECT(2, "--server", "localhost:99999", "show", "1");
}

Test(cli, usage_errors_beat_a_missing_server)
{
    /* Checked before connecting: exit 2 even with nothing listening. */
    EXPECT(2, "--server", "127.0.0.1:1", "challenge", "bob", "--color", "purple");
    EXPECT(2, "--server", "127.0.0.1:1", "move", "x", "b2-c3");
}

Test(cli, password_needs_a_terminal_or_password_stdin)
{
    crun r;
    crun_do(&r, "secret\n", "--server", "127.0.0.1:1", "register", "alice", NULL);
    expect(&r, 2);
    cr_assert(strstr(r.err, "--password-stdin"), "%s", r.err);
    crun_free(&r);
    /* An empty stdin with --password-stdin: no password. */
    EXPECT(2, "--server", "127.0.0.1:1", "login", "alice", "--password-stdin");
}

Test(cli, help_exits_0)
{
    crun r;
    crun_do(&r, NULL, "--help", NULL);
    expect(&r, 0);
    cr_assert(strstr(r.out, "usage: qirkat [--server HOST:PORT] [--json] SUBCOMMAND [ARGS]"));
    cr_assert(strstr(r.out, "  perft       count move sequences"), "%s", r.out);
    crun_free(&r);
    crun_do(&r, NULL, "move", "--help", NULL);
    expect(&r, 0);
    cr_assert(strstr(r.out, "usage: qirkat move GAME MOVE [--ply N]"), "%s", r.out);
    cr_assert(strstr(r.out, "  --ply N "), "%s", r.out);
    crun_free(&r);
    EXPECT(0, "help");
    EXPECT(0, "help", "games");
    EXPECT(0, "-h", "play");
}

Test(cli, not_logged_in_is_unauthenticated)
{
    crun r;
    crun_do(&r, NULL, "--server", "127.0.0.1:1", "challenges", NULL);
    expect(&r, 1);
    cr_assert_str_eq(r.err, "Not logged in: qirkat login USER (or qirkat register USER)\n");
    crun_free(&r);
}

/* A bound, never listening port: connects are refused while fd is open. */
static int refused_port(int *fd)
{
    *fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(bind(*fd, (struct sockaddr *)&a, sizeof a), 0);
    socklen_t len = sizeof a;
    cr_assert_eq(getsockname(*fd, (struct sockaddr *)&a, &len), 0);
    return ntohs(a.sin_port);
}

static void save_session(const char *server)
{
    session s = {0};
    strcpy(s.username, "alice");
    strcpy(s.token, "tok");
    snprintf(s.server, sizeof s.server, "%s", server);
    cr_assert_eq(session_save(&s), SESSION_OK);
}

Test(cli, cannot_connect_exits_3)
{
    int fd;
    char addr[64];
    snprintf(addr, sizeof addr, "127.0.0.1:%d", refused_port(&fd));
    save_session(addr);
    crun r;
    crun_do(&r, NULL, "--server", addr, "challenges", NULL);
    expect(&r, 3);
    cr_assert(strstr(r.err, "cannot connect to 127.0.0.1:"), "%s", r.err);
    crun_free(&r);
    /* QIRKAT_SERVER when there is no --server. */
    setenv("QIRKAT_SERVER", addr, 1);
    EXPECT(3, "--json", "show", "1");
    EXPECT(3, "games");
    crun_do(&r, "long enough\n", "register", "carol", "--password-stdin", "--yes", NULL);
    expect(&r, 3);
    /* The message says how to choose another server. */
    cr_assert(strstr(r.err, "(from QIRKAT_SERVER): is qirkatd running there? Choose the server "
                            "with --server HOST:PORT or QIRKAT_SERVER=HOST:PORT\n"),
              "%s", r.err);
    crun_free(&r);
    close(fd);
}

Test(cli, server_flag_beats_the_environment)
{
    setenv("QIRKAT_SERVER", "127.0.0.1:1", 1);
    crun r;
    crun_do(&r, "pw\n", "--server", "127.0.0.1:2", "login", "x", "--password-stdin", NULL);
    expect(&r, 3);
    cr_assert(strstr(r.err, "127.0.0.1:2"), "%s", r.err);
    crun_free(&r);
    /* Global options may follow the subcommand too. */
    crun_do(&r, "pw\n", "login", "x", "--password-stdin", "--server=127.0.0.1:3", NULL);
    expect(&r, 3);
    cr_assert(strstr(r.err, "127.0.0.1:3"), "%s", r.err);
    crun_free(&r);
}

Test(cli, session_for_another_server_is_not_used)
{
    save_session("127.0.0.1:9");
    crun r;
    crun_do(&r, NULL, "--server", "127.0.0.1:1", "challenges", NULL);
    expect(&r, 1);
    cr_assert(strstr(r.err, "Not logged in here: you are logged in on 127.0.0.1:9 (as alice), not "
                            "on 127.0.0.1:1 (from --server); log in there (qirkat --server "
                            "127.0.0.1:1 login alice) or use --server 127.0.0.1:9\n"),
              "%s", r.err);
    crun_free(&r);
}

Test(cli, logout)
{
    crun r;
    crun_do(&r, NULL, "logout", NULL);
    expect(&r, 0);
    cr_assert_str_eq(r.out, "Not logged in\n");
    crun_free(&r);
    save_session("127.0.0.1:9");
    crun_do(&r, NULL, "logout", NULL);
    expect(&r, 0);
    cr_assert_str_eq(r.out, "Logged out\n");
    crun_free(&r);
    session s;
    cr_assert_eq(session_load(&s), SESSION_NONE);
}

/* ---- offline ---------------------------------------------------------- */

Test(cli, rules_prints_summary_start_and_board)
{
    crun r;
    crun_do(&r, NULL, "--server", "127.0.0.1:1", "rules", "alquerque", NULL);
    expect(&r, 0);
    qk_variant v;
    cr_assert_eq(qk_variant_parse("alquerque", &v), QK_OK);
    cr_assert(strncmp(r.out, "Variant: alquerque — Alquerque (kawu)\n\n", 41) == 0, "%s", r.out);
    cr_assert(strstr(r.out, qk_variant_summary(&v)), "summary missing: %s", r.out);
    cr_assert(strstr(r.out, "\nStart position: bbbbb/bbbbb/ww.bb/wwwww/wwwww w 0 -\n\n"
                            "5  b---b---b---b---b\n"),
              "%s", r.out);
    cr_assert(strstr(r.out, "\n   a   b   c   d   e\n"), "%s", r.out);
    crun_free(&r);

    crun_do(&r, NULL, "rules", "alquerkonane-6x4", NULL);
    expect(&r, 0);
    cr_assert(strstr(r.out, "Start position: w.w./.w.w/..../..../.b.b/b.b. b 0 -\n"), "%s", r.out);
    cr_assert(strstr(r.out, "1  |:b:   :b:   |\n"), "%s", r.out);
    crun_free(&r);

    crun_do(&r, NULL, "--json", "rules", "alquerque-stoep-long", NULL);
    expect(&r, 0);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert_not_null(j, "%s", r.out);
    cr_assert_str_eq(cJSON_GetObjectItem(j, "variant")->valuestring, "alquerque-stoep-long");
    cr_assert_str_eq(cJSON_GetObjectItem(j, "start")->valuestring,
                     "bbbbb/bbbbb/bb.ww/wwwww/wwwww w 0 -");
    cJSON_Delete(j);
    crun_free(&r);
}

Test(cli, perft_alquerque_start_depth_3)
{
    /* ../shared/data/perft.tsv: 4, 5, 6 for depths 1, 2, 3. */
    crun r;
    crun_do(&r, NULL, "perft", "alquerque", "3", NULL);
    expect(&r, 0);
    cr_assert_str_eq(r.out, "variant:  alquerque\n"
                            "position: bbbbb/bbbbb/ww.bb/wwwww/wwwww w 0 -\n"
                            "depth  nodes\n"
                            "    1  4\n"
                            "    2  5\n"
                            "    3  6\n");
    crun_free(&r);
}

Test(cli, perft_position_quoted_or_in_words)
{
    const char *want = "variant:  alquerque-traditional\n"
                       "position: bb.bb/b...b/.bw.b/w.ww./wwwww w 1 -\n"
                       "depth  nodes\n"
                       "    1  15\n"
                       "    2  228\n";
    crun r;
    crun_do(&r, NULL, "perft", "alquerque-traditional", "bb.bb/b...b/.bw.b/w.ww./wwwww w 1 -", "2",
            NULL);
    expect(&r, 0);
    cr_assert_str_eq(r.out, want);
    crun_free(&r);
    crun_do(&r, NULL, "perft", "alquerque-traditional", "bb.bb/b...b/.bw.b/w.ww./wwwww", "w", "1",
            "-", "2", NULL);
    expect(&r, 0);
    cr_assert_str_eq(r.out, want);
    crun_free(&r);
    crun_do(&r, NULL, "--json", "perft", "alquerque", "2", NULL);
    expect(&r, 0);
    cr_assert_str_eq(r.out, "{\"variant\":\"alquerque\",\"position\":\"bbbbb/bbbbb/ww.bb/wwwww/"
                            "wwwww w 0 -\",\"perft\":[{\"depth\":1,\"nodes\":4},{\"depth\":2,"
                            "\"nodes\":5}]}\n");
    crun_free(&r);
}

/* Every row of the shared perft data small enough to be quick goes
 * through `qirkat perft` and must print the recorded count. */
Test(cli, perft_matches_shared_data)
{
    const char *shared = getenv("QK_SHARED");
    char path[512];
    snprintf(path, sizeof path, "%s/data/perft.tsv", shared && *shared ? shared : "../shared");
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open %s", path);
    char line[2048];
    int checked = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        line[strcspn(line, "\n")] = '\0';
        char *variant = strtok(line, "\t"), *pos = strtok(NULL, "\t");
        char *depth = strtok(NULL, "\t"), *nodes = strtok(NULL, "\t");
        cr_assert(variant && pos && depth && nodes);
        if (strtoull(nodes, NULL, 10) > 50000)
            continue;
        crun r;
        crun_do(&r, NULL, "perft", variant, pos, depth, NULL);
        expect(&r, 0);
        char want[128];
        snprintf(want, sizeof want, "%5s  %s\n", depth, nodes);
        size_t ol = strlen(r.out), wl = strlen(want);
        cr_assert(ol >= wl && strcmp(r.out + ol - wl, want) == 0,
                  "perft %s '%s' %s: want last line %s got:\n%s", variant, pos, depth, want, r.out);
        crun_free(&r);
        checked++;
    }
    fclose(f);
    cr_assert_gt(checked, 20);
}
