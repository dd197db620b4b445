/*
 * `qirkat tournament export ID` against the scripted fake (fake.h): the
 * games as PDN through every page of `export` with the `tournament`
 * filter (docs/protocol.md `export`), to stdout or -o FILE; --csv the
 * standings (`tournament_standings` with format csv); --csv with --pdn a
 * usage error before any request; a server error passed on.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake.h"
#include "util.h"

static char cfg[64];
static fake srv;

static void setup(void)
{
    fresh_config(cfg);
}

static void teardown(void)
{
    fake_teardown(&srv, cfg);
}

TestSuite(tourney_export, .init = setup, .fini = teardown, .timeout = 30);

#define REC1 "[Event \"Cup\"]\n[Round \"1\"]\n\n1. b2-c3 *\n\n"
#define REC2 "[Event \"Cup\"]\n[Round \"2\"]\n\n*\n\n"

/* export of tournament 4: two pages (the first ends with next 7), then
 * tournament 9: forbidden; the standings of 4 as CSV. */
static bool script(fake *f, int conn, const cJSON *req, char *buf, size_t n)
{
    (void)f;
    (void)conn;
    if (fake_basic(req, buf, n))
        return true;
    int id = req_id(req);
    const cJSON *t = cJSON_GetObjectItem(req, "tournament");
    long long tid = cJSON_IsNumber(t) ? (long long)t->valuedouble : 0;
    if (is(req, "export") && tid == 9) {
        snprintf(buf, n,
                 "{\"type\":\"error\",\"id\":%d,\"code\":\"forbidden\",\"message\":\"this "
                 "tournament is for its class only\"}\n",
                 id);
    } else if (is(req, "export")) {
        bool second = cJSON_GetObjectItem(req, "after") != NULL;
        snprintf(buf, n, "{\"type\":\"ok\",\"id\":%d,\"records\":[\"%s\"],\"next\":%s}\n", id,
                 second ? "[Event \\\"Cup\\\"]\\n[Round \\\"2\\\"]\\n\\n*\\n\\n"
                        : "[Event \\\"Cup\\\"]\\n[Round \\\"1\\\"]\\n\\n1. b2-c3 *\\n\\n",
                 second ? "null" : "7");
    } else if (is(req, "tournament_standings")) {
        snprintf(buf, n,
                 "{\"type\":\"ok\",\"id\":%d,\"csv\":\"rank,username\\r\\n1,bob\\r\\n\","
                 "\"csv_lines\":[\"rank,username\",\"1,bob\"]}\n",
                 id);
    } else {
        snprintf(buf, n, "{\"type\":\"error\",\"id\":%d,\"code\":\"unknown_op\"}\n", id);
    }
    return true;
}

Test(tourney_export, every_page_of_the_games_as_pdn)
{
    fake_start(&srv, script, NULL);
    save_login("alice", srv.addr);
    crun r;
    crun_do(&r, NULL, "--server", srv.addr, "tournament", "export", "4", NULL);
    crun_expect(&r, 0);
    cr_assert_str_eq(r.out, REC1 REC2);
    crun_free(&r);
    cr_assert_eq(fake_count(&srv, "export"), 2);
    cJSON *q = fake_request(&srv, "export", 0);
    cr_assert_eq(cJSON_GetObjectItem(q, "tournament")->valueint, 4);
    cr_assert_null(cJSON_GetObjectItem(q, "user"), "no user: every player's games");
    cr_assert_null(cJSON_GetObjectItem(q, "after"));
    cr_assert_null(cJSON_GetObjectItem(q, "format"), "PDN, the server's default");
    cJSON_Delete(q);
    q = fake_request(&srv, "export", 1);
    cr_assert_eq(cJSON_GetObjectItem(q, "tournament")->valueint, 4);
    cr_assert_eq(cJSON_GetObjectItem(q, "after")->valueint, 7);
    cJSON_Delete(q);

    /* --pdn says the same; -o writes a file and counts the games. */
    char file[128];
    snprintf(file, sizeof file, "%s/cup.pdn", cfg);
    crun_do(&r, NULL, "--server", srv.addr, "tournament", "export", "4", "--pdn", "-o", file, NULL);
    crun_expect(&r, 0);
    cr_assert_str_eq(r.out, "");
    cr_assert(strstr(r.err, "2 games written to "), "%s", r.err);
    crun_free(&r);
    FILE *fp = fopen(file, "r");
    cr_assert_not_null(fp);
    char text[256] = "";
    size_t got = fread(text, 1, sizeof text - 1, fp);
    fclose(fp);
    text[got] = '\0';
    cr_assert_str_eq(text, REC1 REC2);

    /* --user narrows it to one player's games. */
    crun_do(&r, NULL, "--server", srv.addr, "tournament", "export", "4", "--user", "bob", NULL);
    crun_expect(&r, 0);
    crun_free(&r);
    q = fake_request(&srv, "export", 4);
    cr_assert_str_eq(cJSON_GetObjectItem(q, "user")->valuestring, "bob");
    cJSON_Delete(q);
}

Test(tourney_export, csv_standings_usage_and_errors)
{
    fake_start(&srv, script, NULL);
    save_login("alice", srv.addr);
    crun r;
    crun_do(&r, NULL, "--server", srv.addr, "tournament", "export", "4", "--csv", NULL);
    crun_expect(&r, 0);
    cr_assert_str_eq(r.out, "rank,username\r\n1,bob\r\n");
    crun_free(&r);
    cJSON *q = fake_request(&srv, "tournament_standings", 0);
    cr_assert_eq(cJSON_GetObjectItem(q, "tournament")->valueint, 4);
    cr_assert_str_eq(cJSON_GetObjectItem(q, "format")->valuestring, "csv");
    cJSON_Delete(q);
    cr_assert_eq(fake_count(&srv, "export"), 0);

    crun_do(&r, NULL, "--server", srv.addr, "tournament", "export", "4", "--csv", "--pdn", NULL);
    crun_expect(&r, 2);
    cr_assert(strstr(r.err, "not both"), "%s", r.err);
    crun_free(&r);
    crun_do(&r, NULL, "--server", srv.addr, "tournament", "export", NULL);
    crun_expect(&r, 2);
    crun_free(&r);
    cr_assert_eq(fake_count(&srv, "export"), 0);
    cr_assert_eq(fake_count(&srv, "tournament_standings"), 1);

    crun_do(&r, NULL, "--server", srv.addr, "tournament", "export", "9", NULL);
    crun_expect(&r, 1);
    cr_assert(strstr(r.err, "class only"), "%s", r.err);
    cr_assert_str_eq(r.out, "");
    crun_free(&r);
}
