/*
 * Protocol version 2 (issue 21, docs/protocol.md `hello`): a `move` with
 * "Ply": 5 instead of "ply" was played with no ply check, since unknown
 * fields are ignored (PROTOCOL.md "Framing"). A connection that declares
 * version 2 in `hello` must give `ply` on `move`, and a top-level name
 * that differs from a field of the op only in letter case is refused,
 * named; a version 1 connection (or one that sent no hello) keeps the
 * old rules.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helper.h"

static tsrv S;
static tconn *A, *B;
static long long G;

static void setup(void)
{
    tsrv_start(&S, "QK_RATE_LIMIT=off");
    A = tc_open(S.port);
    B = tc_open(S.port);
    t_register(A, "alice");
    t_register(B, "bob");
    G = t_new_game(A, B, "bob", "alquerque");
    tc_sync(A);
}

static void teardown(void)
{
    tc_close(A);
    tc_close(B);
    tsrv_stop(&S);
    tsrv_cleanup(&S);
}

TestSuite(version, .init = setup, .fini = teardown, .timeout = 60);

static long long hello(tconn *c, const char *version)
{
    cJSON *r = version ? tc_rpc(c, "{\"type\":\"hello\",\"version\":%s}", version)
                       : tc_rpc(c, "{\"type\":\"hello\"}");
    t_ok(r, "hello");
    long long v = t_int(r, "version");
    cJSON_Delete(r);
    return v;
}

/* The first legal move of G for the side to move. */
static char *first_legal(void)
{
    cJSON *g = t_game(A, G);
    const cJSON *legal = t_obj(g, "legal_moves");
    char *m = strdup(cJSON_GetArrayItem(legal, 0)->valuestring);
    cJSON_Delete(g);
    return m;
}

Test(version, hello_negotiates_the_version)
{
    cr_assert_eq(hello(A, NULL), 1, "no version: 1");
    cr_assert_eq(hello(A, "0"), 1);
    cr_assert_eq(hello(A, "1"), 1);
    cr_assert_eq(hello(A, "2"), 2);
    cr_assert_eq(hello(A, "7"), 2, "a newer client gets the newest we speak");
    cr_assert_eq(hello(A, "1"), 1, "and may go back");
}

Test(version, version_1_ignores_a_case_variant_as_before)
{
    hello(A, "1");
    char *m = first_legal();
    /* "Ply" is an unknown field in version 1: ignored, the move is played
     * without a ply check (the documented old rule). */
    cJSON *r = tc_rpc(A, "{\"type\":\"move\",\"game\":%lld,\"Ply\":5,\"move\":\"%s\"}", G, m);
    t_ok(r, "version 1 move without ply");
    cr_assert_eq(t_int(t_obj(r, "game"), "ply"), 1);
    cJSON_Delete(r);
    free(m);
}

Test(version, version_2_refuses_a_case_variant_and_needs_the_ply)
{
    cr_assert_eq(hello(A, "2"), 2);
    char *m = first_legal();
    char *before = t_db_dump(S.db);
    cJSON *r = tc_rpc(A, "{\"type\":\"move\",\"game\":%lld,\"Ply\":5,\"move\":\"%s\"}", G, m);
    t_err(r, "bad_request", "Ply");
    cr_assert_str_eq(t_str(r, "message"),
                     "unknown field \"Ply\": names are case-sensitive (\"ply\")");
    cJSON_Delete(r);
    r = tc_rpc(A, "{\"type\":\"move\",\"game\":%lld,\"move\":\"%s\"}", G, m);
    t_err(r, "bad_request", "no ply");
    cr_assert_str_eq(t_str(r, "message"), "\"ply\" is required (protocol version 2)");
    cJSON_Delete(r);
    r = tc_rpc(A, "{\"type\":\"move\",\"GAME\":%lld,\"game\":%lld,\"ply\":0,\"move\":\"%s\"}", G, G,
               m);
    t_err(r, "bad_request", "GAME beside game");
    cJSON_Delete(r);
    r = tc_rpc(A, "{\"type\":\"ping\",\"Type\":\"x\"}");
    t_err(r, "bad_request", "Type");
    cJSON_Delete(r);
    t_db_unchanged(S.db, before, "refused version 2 moves");
    /* Unknown names that are not case variants are still ignored. */
    r = tc_rpc(A, "{\"type\":\"move\",\"game\":%lld,\"ply\":0,\"move\":\"%s\",\"note\":1}", G, m);
    t_ok(r, "version 2 move with its ply");
    cJSON_Delete(r);
    /* The other connection never said hello: version 1, no ply needed. */
    cJSON *g = t_game(B, G);
    char *reply = strdup(cJSON_GetArrayItem(t_obj(g, "legal_moves"), 0)->valuestring);
    cJSON_Delete(g);
    r = tc_rpc(B, "{\"type\":\"move\",\"game\":%lld,\"move\":\"%s\"}", G, reply);
    t_ok(r, "version 1 connection");
    cJSON_Delete(r);
    free(reply);
    free(m);
}
