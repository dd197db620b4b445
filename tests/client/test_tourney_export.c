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
    } else if (is(req, "tournament_standings") && tid == 5) {
        snprintf(buf, n,
                 "{\"type\":\"ok\",\"id\":%d,\"standings\":["
                 "{\"rank\":1,\"username\":\"ann\",\"points\":1.5,\"tiebreaks\":{\"SB\":1,\"BH\":2,"
                 "\"DE\":0.5,\"WIN\":1}},"
                 "{\"rank\":1,\"username\":\"bo\",\"points\":1.5,\"tiebreaks\":{\"SB\":1,\"BH\":2,"
                 "\"DE\":0.5,\"WIN\":1}},"
                 "{\"rank\":3,\"username\":\"cy\",\"points\":0,\"tiebreaks\":{\"SB\":0,\"BH\":3,"
                 "\"DE\":0,\"WIN\":0}}]}\n",
                 id);
    } else if (is(req, "tournament") && tid == 6) {
        snprintf(buf, n,
                 "{\"type\":\"ok\",\"id\":%d,\"tournament\":{\"id\":6,\"name\":\"Open\","
                 "\"system\":\"swiss\",\"variant\":\"alquerque\",\"status\":\"open\","
                 "\"organiser\":\"alice\",\"rounds_total\":5,\"current_round\":0,"
                 "\"players\":[\"ann\"],\"rounds\":[],\"standings\":[]}}\n",
                 id);
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

/* Issue 24: a shared first place said in words (plural forms), and a
 * Swiss not started yet says so with its rounds, not "round 0 of 5". */
Test(tourney_export, shared_first_place_and_not_started)
{
    fake_start(&srv, script, NULL);
    save_login("alice", srv.addr);
    crun r;
    crun_do(&r, NULL, "--server", srv.addr, "tournament", "standings", "5", NULL);
    crun_expect(&r, 0);
    cr_assert_str_eq(r.out, "RANK PLAYER               POINTS     SB     BH     DE  WIN\n"
                            "1    ann                     1.5      1      2    0.5    1\n"
                            "1    bo                      1.5      1      2    0.5    1\n"
                            "3    cy                        0      0      3      0    0\n"
                            "2 players share first place\n"
                            "Tie-breaks in this order: Sonneborn-Berger, Buchholz, direct "
                            "encounter, wins (FIDE C.07)\n");
    crun_free(&r);
    crun_do(&r, NULL, "--server", srv.addr, "tournament", "show", "6", NULL);
    crun_expect(&r, 0);
    cr_assert_str_eq(r.out, "Tournament 6: Open, swiss alquerque, not started, 5 rounds (organiser "
                            "alice)\nPlayers: ann\n");
    crun_free(&r);
}
