/*
 * Class privacy (issue 21) through the `qirkat` CLI, real processes only:
 * the PDN download (`qirkat export`, one game or the filtered pages),
 * `search`, `show` and `replay` of a stored game by id. tina teaches 6A
 * (alice, bob, carol); alice and bob play game 2 in a class-only
 * tournament, alice plays dave casual games 1 and 3. eve, in no class,
 * gets `forbidden` for game 2 (exit status 1) and never finds it in a
 * list or a record; carol, a member who does not play it, gets all three.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

TestSuite(class_privacy, .init = h_setup, .fini = h_teardown, .timeout = 120);

#define PW "secret-password"

/* rpc c {fmt}, asserted ok; the answer (caller deletes). */
static cJSON *ok_rpc(hconn *c, const char *what, const char *req)
{
    cJSON *r = hconn_rpc(c, "%s", req);
    hj_assert_ok(r, what);
    return r;
}

static long long casual(hconn *a, hconn *d)
{
    cJSON *r =
        ok_rpc(a, "challenge", "{\"type\":\"challenge\",\"to\":\"dave\",\"color\":\"white\"}");
    long long ch = hj_int(cJSON_GetObjectItem(r, "challenge"), "id");
    cJSON_Delete(r);
    r = hconn_rpc(d, "{\"type\":\"accept\",\"challenge\":%lld}", ch);
    hj_assert_ok(r, "accept");
    long long g = hj_int(hj_game(r), "id");
    cJSON_Delete(r);
    return g;
}

/* The ids of `qirkat --json search ARGS...` as user dir, "1 2 3". */
static void search_ids(const char *dir, const char *addr, const char *user, const char *opp,
                       const char *want)
{
    hrun r;
    if (opp)
        hcli_run(&r, dir, addr, NULL, "--json", "search", "--user", user, "--opponent", opp, NULL);
    else
        hcli_run(&r, dir, addr, NULL, "--json", "search", "--user", user, NULL);
    const cJSON *list = cJSON_GetObjectItem(hrun_ok_json(&r), "games"), *g;
    cr_assert(cJSON_IsArray(list), "%s: %s", r.cmd, r.out);
    char got[128] = "";
    cJSON_ArrayForEach(g, list)
    {
        size_t n = strlen(got);
        snprintf(got + n, sizeof got - n, "%s%lld", n ? " " : "", hj_int(g, "id"));
    }
    cr_assert_str_eq(got, want, "%s", r.cmd);
    hrun_free(&r);
}

/* The whole text of file (caller frees). */
static char *slurp(const char *file)
{
    FILE *f = fopen(file, "rb");
    cr_assert_not_null(f, "%s", file);
    char *buf = calloc(1, 1 << 16);
    size_t n = fread(buf, 1, (1 << 16) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

Test(class_privacy, cli_reads_of_a_class_game)
{
    hsrv s;
    hsrv_start(&s);
    const char *names[] = {"tina", "alice", "bob", "carol", "dave"};
    hconn *c[5];
    for (int i = 0; i < 5; i++) {
        c[i] = hconn_open(s.port);
        hconn_register(c[i], names[i], PW);
    }
    hconn *T = c[0], *A = c[1], *B = c[2], *D = c[4];
    cJSON *r = ok_rpc(T, "class_create", "{\"type\":\"class_create\",\"name\":\"6A\"}");
    char req[160];
    snprintf(req, sizeof req, "{\"type\":\"class_join\",\"code\":\"%s\"}",
             hj_str(cJSON_GetObjectItem(r, "class"), "code"));
    long long cid = hj_int(cJSON_GetObjectItem(r, "class"), "id");
    cJSON_Delete(r);
    for (int i = 1; i < 4; i++)
        cJSON_Delete(ok_rpc(c[i], "class_join", req));

    long long c1 = casual(A, D);
    snprintf(req, sizeof req,
             "{\"type\":\"tournament_create\",\"name\":\"6A cup\",\"system\":\"round_robin\","
             "\"class\":%lld}",
             cid);
    r = ok_rpc(T, "tournament_create", req);
    long long tid = hj_int(cJSON_GetObjectItem(r, "tournament"), "id");
    cJSON_Delete(r);
    snprintf(req, sizeof req, "{\"type\":\"tournament_join\",\"tournament\":%lld}", tid);
    cJSON_Delete(ok_rpc(A, "join", req));
    cJSON_Delete(ok_rpc(B, "join", req));
    snprintf(req, sizeof req, "{\"type\":\"tournament_start\",\"tournament\":%lld}", tid);
    cJSON_Delete(ok_rpc(T, "start", req));
    long long c2 = casual(A, D);
    cr_assert(c1 == 1 && c2 == 3, "games 1 and 3 casual, 2 the tournament's");
    cJSON_Delete(ok_rpc(B, "resign", "{\"type\":\"resign\",\"game\":2}"));

    char edir[H_PATH], cdir[H_PATH], file[H_PATH + 16];
    hsrv_userdir(&s, "eve", edir);
    hsrv_userdir(&s, "carol", cdir);
    hrun h;
    hcli_run(&h, edir, s.addr, PW "\n", "register", "eve", "--password-stdin", NULL);
    cr_assert_eq(h.code, 0, "%s", h.err);
    hrun_free(&h);
    hcli_run(&h, cdir, s.addr, PW "\n", "login", "carol", "--password-stdin", NULL);
    cr_assert_eq(h.code, 0, "%s", h.err);
    hrun_free(&h);

    /* eve: one game is forbidden, in words and in --json. */
    const char *one[][4] = {
        {"export", "2", NULL, NULL}, {"show", "2", NULL, NULL}, {"replay", "2", "--to-ply", "0"}};
    for (int i = 0; i < 3; i++) {
        hcli_run(&h, edir, s.addr, NULL, one[i][0], one[i][1], one[i][2], one[i][3], NULL);
        cr_assert_eq(h.code, 1, "%s: exit %d, %s", h.cmd, h.code, h.out);
        cr_assert_not_null(strstr(h.err, "this game is for its tournament's class only"), "%s: %s",
                           h.cmd, h.err);
        cr_assert_null(strstr(h.out, "bob"), "%s: %s", h.cmd, h.out);
        hrun_free(&h);
        hcli_run(&h, edir, s.addr, NULL, "--json", one[i][0], one[i][1], one[i][2], one[i][3],
                 NULL);
        cr_assert_eq(h.code, 1, "%s", h.cmd);
        cr_assert_not_null(h.json, "%s: %s", h.cmd, h.out);
        cr_assert_str_eq(hj_str(h.json, "code"), "forbidden", "%s", h.cmd);
        hrun_free(&h);
    }
    /* eve: the lists and the PDN download leave it out. */
    search_ids(edir, s.addr, "alice", NULL, "3 1");
    search_ids(edir, s.addr, "alice", "bob", "");
    search_ids(edir, s.addr, "bob", NULL, "");
    snprintf(file, sizeof file, "%s/eve.pdn", s.dir);
    hcli_run(&h, edir, s.addr, NULL, "export", "--user", "alice", "-o", file, NULL);
    cr_assert_eq(h.code, 0, "%s", h.err);
    cr_assert_not_null(strstr(h.err, "2 games written"), "%s", h.err);
    hrun_free(&h);
    char *text = slurp(file);
    cr_assert_null(strstr(text, "bob"), "%s", text);
    cr_assert_null(strstr(text, "6A cup"), "%s", text);
    free(text);
    snprintf(req, sizeof req, "%lld", tid);
    hcli_run(&h, edir, s.addr, NULL, "--json", "tournament", "export", req, NULL);
    cr_assert_eq(h.code, 1, "%s", h.cmd);
    cr_assert_str_eq(hj_str(h.json, "code"), "forbidden");
    hrun_free(&h);

    /* carol, a member who does not play it: all of it. */
    search_ids(cdir, s.addr, "alice", NULL, "3 2 1");
    search_ids(cdir, s.addr, "alice", "bob", "2");
    hcli_run(&h, cdir, s.addr, NULL, "replay", "2", "--to-ply", "0", NULL);
    cr_assert_eq(h.code, 0, "%s", h.err);
    hrun_free(&h);
    snprintf(file, sizeof file, "%s/carol.pdn", s.dir);
    hcli_run(&h, cdir, s.addr, NULL, "export", "--user", "alice", "-o", file, NULL);
    cr_assert_eq(h.code, 0, "%s", h.err);
    cr_assert_not_null(strstr(h.err, "3 games written"), "%s", h.err);
    hrun_free(&h);
    text = slurp(file);
    cr_assert_not_null(strstr(text, "[Event \"6A cup\"]"), "%s", text);
    free(text);
    for (int i = 0; i < 5; i++)
        hconn_close(c[i]);
    hsrv_stop(&s);
    h_pass();
}
