/*
 * The dispatcher and the op table against the real server: every error
 * code of PROTOCOL.md that a client can provoke, exactly, and the
 * database unchanged by every piece of bad input (a full dump of its rows
 * compared before and after).
 *
 * Fixture: alice (White) v bob (Black) in an alquerque game at ply 0,
 * carol on the side.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helper.h"

typedef struct fx {
    tsrv srv;
    tconn *a, *b, *c;
    long long gid;
    char *dump;
} fx;

static fx F;

static void setup(void)
{
    tsrv_start(&F.srv, NULL);
    F.a = tc_open(F.srv.port);
    F.b = tc_open(F.srv.port);
    F.c = tc_open(F.srv.port);
    t_register(F.a, "alice");
    t_register(F.b, "bob");
    t_register(F.c, "carol");
    F.gid = t_new_game(F.a, F.b, "bob", "alquerque");
    tc_sync(F.a);
    tc_sync(F.b);
}

static void teardown(void)
{
    tc_close(F.a);
    tc_close(F.b);
    tc_close(F.c);
    free(F.dump);
    tsrv_stop(&F.srv);
    tsrv_cleanup(&F.srv);
}

TestSuite(errors, .init = setup, .fini = teardown, .timeout = 60);

static void snap(void)
{
    free(F.dump);
    F.dump = t_db_dump(F.srv.db);
}

static void unchanged(const char *what)
{
    char *now = t_db_dump(F.srv.db);
    cr_assert_str_eq(now, F.dump, "%s changed the database", what);
    free(now);
}

static void ping_ok(tconn *c, const char *after)
{
    cJSON *r = tc_rpc(c, "{\"type\":\"ping\",\"ts\":42}");
    t_ok(r, after);
    cr_assert_eq(t_int(r, "ts"), 42);
    cJSON_Delete(r);
}

/* A raw line and its error, which must come without an id. */
static void raw_error(tconn *c, const char *line, size_t n, const char *code)
{
    cr_assert(tc_send(c, line, n));
    cJSON *r = tc_reply(c, T_TIMEOUT_MS);
    t_err(r, code, line);
    cr_assert_null(cJSON_GetObjectItemCaseSensitive(r, "id"), "%s: %s", line, t_text(r));
    cJSON_Delete(r);
}

static void play(tconn *c, int ply, const char *move)
{
    cJSON *r = tc_rpc(c, "{\"type\":\"move\",\"game\":%lld,\"ply\":%d,\"move\":\"%s\"}", F.gid,
                      ply, move);
    t_ok(r, move);
    cJSON_Delete(r);
}

Test(errors, bad_json_keeps_the_connection_open)
{
    snap();
    static const char *lines[] = {
        "{\"type\":\"ping\",\n",
        "garbage\n",
        "[1,2]\n",
        "42\n",
        "{\"type\":\"ping\",\"id\":1} x\n",
        "{\"type\":\"ping\",\"id\":1}{\"type\":\"ping\",\"id\":2}\n",
        "{\"type\":\"ping\",\"id\":1,\"s\":\"\\u0000\"}\n",
        "{'type':'ping'}\n",
    };
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
        raw_error(F.a, lines[i], strlen(lines[i]), "bad_json");
        ping_ok(F.a, lines[i]);
    }
    unchanged("bad_json");
}

Test(errors, requests_need_an_id_and_a_type)
{
    snap();
    const char *no_id = "{\"type\":\"ping\"}\n";
    raw_error(F.a, no_id, strlen(no_id), "bad_request");
    static const char *bad_ids[] = {
        "{\"type\":\"ping\",\"id\":-1}\n",        "{\"type\":\"ping\",\"id\":1.5}\n",
        "{\"type\":\"ping\",\"id\":{}}\n",        "{\"type\":\"ping\",\"id\":null}\n",
        "{\"type\":\"ping\",\"id\":1e300}\n",     "{\"type\":\"ping\",\"id\":[1]}\n",
    };
    for (size_t i = 0; i < sizeof bad_ids / sizeof *bad_ids; i++)
        raw_error(F.a, bad_ids[i], strlen(bad_ids[i]), "bad_request");
    /* A string id is fine, and comes back as it was. */
    cr_assert(tc_sendf(F.a, "{\"type\":\"ping\",\"id\":\"abc\"}\n"));
    cJSON *r = tc_reply(F.a, T_TIMEOUT_MS);
    t_ok(r, "string id");
    cr_assert_str_eq(t_str(r, "id"), "abc");
    cJSON_Delete(r);
    r = tc_rpc(F.a, "{\"kind\":\"ping\"}");
    t_err(r, "bad_request", "no type");
    cJSON_Delete(r);
    r = tc_rpc(F.a, "{\"type\":7}");
    t_err(r, "bad_request", "numeric type");
    cJSON_Delete(r);
    unchanged("missing id or type");
}

Test(errors, unknown_op)
{
    snap();
    cJSON *r = tc_rpc(F.a, "{\"type\":\"frobnicate\"}");
    t_err(r, "unknown_op", "frobnicate");
    cr_assert_eq(t_int(r, "id"), F.a->next_id - 1, "the answer carries the id");
    cJSON_Delete(r);
    r = tc_rpc(F.a, "{\"type\":\"Ping\"}");
    t_err(r, "unknown_op", "ops are case-sensitive");
    cJSON_Delete(r);
    r = tc_rpc(F.a, "{\"type\":\"ok\"}");
    t_err(r, "unknown_op", "a response is not an op");
    cJSON_Delete(r);
    unchanged("unknown_op");
}

Test(errors, bad_request_fields)
{
    snap();
    long long g = F.gid;
    char req[32][256];
    int n = 0;
    snprintf(req[n++], 256, "{\"type\":\"move\",\"game\":%lld,\"ply\":0}", g);
    snprintf(req[n++], 256, "{\"type\":\"move\",\"ply\":0,\"move\":\"b2-c3\"}");
    snprintf(req[n++], 256, "{\"type\":\"move\",\"game\":\"%lld\",\"ply\":0,\"move\":\"b2-c3\"}",
             g);
    snprintf(req[n++], 256, "{\"type\":\"move\",\"game\":%lld,\"ply\":-1,\"move\":\"b2-c3\"}", g);
    snprintf(req[n++], 256, "{\"type\":\"move\",\"game\":%lld,\"ply\":0.5,\"move\":\"b2-c3\"}", g);
    snprintf(req[n++], 256, "{\"type\":\"move\",\"game\":%lld,\"ply\":1e1000,\"move\":\"b2-c3\"}",
             g);
    snprintf(req[n++], 256,
             "{\"type\":\"move\",\"game\":%lld,\"ply\":9007199254740992,\"move\":\"b2-c3\"}", g);
    snprintf(req[n++], 256, "{\"type\":\"move\",\"game\":%lld,\"ply\":\"0\",\"move\":\"b2-c3\"}",
             g);
    snprintf(req[n++], 256, "{\"type\":\"move\",\"game\":%lld,\"ply\":0,\"move\":42}", g);
    snprintf(req[n++], 256, "{\"type\":\"move\",\"game\":%lld,\"ply\":0,\"move\":{\"path\":7}}",
             g);
    snprintf(req[n++], 256,
             "{\"type\":\"move\",\"game\":%lld,\"ply\":0,\"move\":{\"path\":[\"b2\"]}}", g);
    snprintf(req[n++], 256,
             "{\"type\":\"move\",\"game\":%lld,\"ply\":0,\"move\":{\"path\":[\"b2\",3]}}", g);
    snprintf(req[n++], 256, "{\"type\":\"move\",\"Game\":%lld,\"ply\":0,\"move\":\"b2-c3\"}", g);
    snprintf(req[n++], 256, "{\"type\":\"game\",\"game\":true}");
    snprintf(req[n++], 256, "{\"type\":\"accept\",\"challenge\":null}");
    snprintf(req[n++], 256, "{\"type\":\"challenge\",\"to\":5}");
    snprintf(req[n++], 256, "{\"type\":\"challenge\",\"to\":\"bob\",\"color\":\"green\"}");
    snprintf(req[n++], 256, "{\"type\":\"challenge\",\"to\":\"bob\",\"variant\":\"chess\"}");
    snprintf(req[n++], 256, "{\"type\":\"challenge\",\"to\":\"bob\",\"time_control\":\"fast\"}");
    snprintf(req[n++], 256,
             "{\"type\":\"challenge\",\"to\":\"bob\",\"time_control\":{\"kind\":\"blitz\"}}");
    snprintf(req[n++], 256,
             "{\"type\":\"challenge\",\"to\":\"bob\",\"time_control\":{\"kind\":"
             "\"correspondence\",\"days_per_move\":15}}");
    snprintf(req[n++], 256,
             "{\"type\":\"challenge\",\"to\":\"bob\",\"time_control\":{\"kind\":"
             "\"correspondence\",\"days_per_move\":0}}");
    snprintf(req[n++], 256,
             "{\"type\":\"challenge\",\"to\":\"bob\",\"time_control\":{\"kind\":\"live\","
             "\"initial_s\":-5}}");
    snprintf(req[n++], 256,
             "{\"type\":\"challenge\",\"to\":\"bob\",\"time_control\":{\"kind\":\"live\","
             "\"initial_s\":0,\"increment_s\":0}}");
    snprintf(req[n++], 256, "{\"type\":\"challenge\",\"to\":\"alice\"}");
    snprintf(req[n++], 256, "{\"type\":\"challenge\",\"to\":\"bob\",\"position\":\"xyz\"}");
    /* A finished position: White has no piece. */
    snprintf(req[n++], 256,
             "{\"type\":\"challenge\",\"to\":\"bob\",\"position\":\"bbbbb/...../...../...../..... "
             "w 0 -\"}");
    snprintf(req[n++], 256, "{\"type\":\"games\",\"limit\":0}");
    snprintf(req[n++], 256, "{\"type\":\"games\",\"limit\":201}");
    snprintf(req[n++], 256, "{\"type\":\"games\",\"status\":\"paused\"}");
    snprintf(req[n++], 256, "{\"type\":\"register\",\"username\":\"no spaces\",\"password\":\"x\"}");
    snprintf(req[n++], 256, "{\"type\":\"register\",\"username\":\"x\",\"password\":\"\"}");
    for (int i = 0; i < n; i++) {
        cJSON *r = tc_rpc(F.a, "%s", req[i]);
        t_err(r, "bad_request", req[i]);
        cJSON_Delete(r);
    }
    ping_ok(F.a, "bad_request");
    unchanged("bad_request");
}

Test(errors, repeated_field_and_deep_nesting)
{
    snap();
    cr_assert(tc_sendf(F.a, "{\"id\":5,\"type\":\"move\",\"game\":%lld,\"game\":%lld,\"ply\":0,"
                            "\"move\":\"b2-c3\"}\n",
                       F.gid, F.gid));
    cJSON *r = tc_reply(F.a, T_TIMEOUT_MS);
    t_err(r, "bad_request", "repeated field");
    cr_assert_eq(t_int(r, "id"), 5, "the id is readable: %s", t_text(r));
    cJSON_Delete(r);
    /* 16 levels is the limit (the request object is level 1). */
    char line[512];
    for (int depth = 16; depth <= 17; depth++) {
        int n = snprintf(line, sizeof line, "{\"type\":\"ping\",\"id\":%d,\"x\":", depth);
        for (int i = 1; i < depth; i++)
            line[n++] = '[';
        for (int i = 1; i < depth; i++)
            line[n++] = ']';
        n += snprintf(line + n, sizeof line - (size_t)n, "}\n");
        cr_assert(tc_send(F.a, line, (size_t)n));
        r = tc_reply(F.a, T_TIMEOUT_MS);
        if (depth == 16)
            t_ok(r, "16 levels");
        else
            t_err(r, "bad_request", "17 levels");
        cJSON_Delete(r);
    }
    ping_ok(F.a, "deep nesting");
    unchanged("repeated field / nesting");
}

/* Issue 21: the line of the report, {"id":1000,"type":"ping","ts":
 * + 1,000 '[' + 1,000 ']' + }, was answered without its id (with 999
 * levels it had it): cJSON's own limit is 1,000 levels. Every depth
 * around that limit, and an id after the deep member, keeps the id. */
Test(errors, deep_nesting_keeps_the_id)
{
    snap();
    static char line[8192];
    const int depths[] = {998, 999, 1000, 1001, 3000};
    for (size_t k = 0; k < sizeof depths / sizeof depths[0]; k++) {
        int depth = depths[k];
        int id = 1000 + (int)k;
        bool id_last = k == 4;
        int n = id_last ? snprintf(line, sizeof line, "{\"type\":\"ping\",\"ts\":")
                        : snprintf(line, sizeof line, "{\"id\":%d,\"type\":\"ping\",\"ts\":", id);
        memset(line + n, '[', (size_t)depth);
        memset(line + n + depth, ']', (size_t)depth);
        n += 2 * depth;
        n += id_last ? snprintf(line + n, sizeof line - (size_t)n, ",\"id\":%d}\n", id)
                     : snprintf(line + n, sizeof line - (size_t)n, "}\n");
        cr_assert(tc_send(F.a, line, (size_t)n));
        cJSON *r = tc_reply(F.a, T_TIMEOUT_MS);
        t_err(r, "bad_request", "deep nesting");
        cr_assert_eq(t_int(r, "id"), id, "%d levels: %s", depth, t_text(r));
        cJSON_Delete(r);
    }
    /* An id given twice is not "given once": no id, as section 3 says. */
    int n = snprintf(line, sizeof line, "{\"id\":1,\"type\":\"ping\",\"id\":2,\"ts\":");
    memset(line + n, '[', 1200);
    memset(line + n + 1200, ']', 1200);
    n += 2400;
    n += snprintf(line + n, sizeof line - (size_t)n, "}\n");
    cr_assert(tc_send(F.a, line, (size_t)n));
    cJSON *r = tc_reply(F.a, T_TIMEOUT_MS);
    t_err(r, "bad_request", "two ids");
    cr_assert_null(cJSON_GetObjectItemCaseSensitive(r, "id"), "%s", t_text(r));
    cJSON_Delete(r);
    ping_ok(F.a, "deep nesting");
    unchanged("deep nesting");
}

Test(errors, unauthenticated_before_login)
{
    snap();
    tconn *x = tc_open(F.srv.port);
    char req[8][160];
    int n = 0;
    snprintf(req[n++], 160, "{\"type\":\"move\",\"game\":%lld,\"ply\":0,\"move\":\"b2-c3\"}", F.gid);
    snprintf(req[n++], 160, "{\"type\":\"move\",\"game\":\"not even an id\"}");
    snprintf(req[n++], 160, "{\"type\":\"game\",\"game\":%lld}", F.gid);
    snprintf(req[n++], 160, "{\"type\":\"games\"}");
    snprintf(req[n++], 160, "{\"type\":\"challenge\",\"to\":\"bob\"}");
    snprintf(req[n++], 160, "{\"type\":\"challenges\"}");
    snprintf(req[n++], 160, "{\"type\":\"resign\",\"game\":%lld}", F.gid);
    snprintf(req[n++], 160, "{\"type\":\"subscribe\",\"game\":%lld}", F.gid);
    for (int i = 0; i < n; i++) {
        cJSON *r = tc_rpc(x, "%s", req[i]);
        t_err(r, "unauthenticated", req[i]);
        cJSON_Delete(r);
    }
    /* hello and ping need no login. */
    cJSON *r = tc_rpc(x, "{\"type\":\"hello\",\"version\":1,\"client\":\"test\"}");
    t_ok(r, "hello");
    cr_assert_eq(t_int(r, "version"), 1);
    cr_assert_eq(t_int(t_obj(r, "limits"), "line_bytes"), 65536);
    const cJSON *v = t_obj(r, "variants");
    cr_assert(cJSON_IsArray(v) && cJSON_GetArraySize(v) >= 7, "%s", t_text(r));
    cr_assert_str_eq(cJSON_GetArrayItem(v, 0)->valuestring, "alquerque");
    cJSON_Delete(r);
    ping_ok(x, "before login");
    tc_close(x);
    unchanged("requests before login");
}

Test(errors, wrong_password_and_unknown_user_look_the_same)
{
    snap();
    tconn *x = tc_open(F.srv.port);
    cJSON *r1 = tc_rpc(x, "{\"type\":\"login\",\"username\":\"alice\",\"password\":\"nope\"}");
    cJSON *r2 = tc_rpc(x, "{\"type\":\"login\",\"username\":\"zed\",\"password\":\"nope\"}");
    cJSON *r3 = tc_rpc(x, "{\"type\":\"login\",\"username\":\"bad name!\",\"password\":\"x\"}");
    t_err(r1, "unauthenticated", "wrong password");
    t_err(r2, "unauthenticated", "unknown user");
    t_err(r3, "unauthenticated", "impossible name");
    cr_assert_str_eq(t_str(r1, "message"), t_str(r2, "message"));
    cr_assert_str_eq(t_str(r1, "message"), t_str(r3, "message"));
    cJSON_Delete(r1);
    cJSON_Delete(r2);
    cJSON_Delete(r3);
    r1 = tc_rpc(x, "{\"type\":\"login\",\"token\":\"%064d\"}", 0);
    t_err(r1, "unauthenticated", "unknown token");
    cJSON_Delete(r1);
    r1 = tc_rpc(x, "{\"type\":\"login\",\"token\":\"short\"}");
    t_err(r1, "unauthenticated", "malformed token");
    cJSON_Delete(r1);
    r1 = tc_rpc(x, "{\"type\":\"login\",\"username\":\"alice\"}");
    t_err(r1, "bad_request", "no password");
    cJSON_Delete(r1);
    r1 = tc_rpc(x, "{\"type\":\"games\"}");
    t_err(r1, "unauthenticated", "still anonymous");
    cJSON_Delete(r1);
    tc_close(x);
    unchanged("failed logins");
}

Test(errors, taken_username_is_a_conflict)
{
    snap();
    tconn *x = tc_open(F.srv.port);
    cJSON *r = tc_rpc(x, "{\"type\":\"register\",\"username\":\"alice\",\"password\":\"z\"}");
    t_err(r, "conflict", "alice again");
    cJSON_Delete(r);
    r = tc_rpc(x, "{\"type\":\"register\",\"username\":\"ALICE\",\"password\":\"z\"}");
    t_err(r, "conflict", "ALICE");
    cJSON_Delete(r);
    tc_close(x);
    unchanged("taken username");
}

Test(errors, move_checks_in_protocol_order)
{
    snap();
    cJSON *r = tc_rpc(F.a, "{\"type\":\"move\",\"game\":%lld,\"ply\":0,\"move\":\"b2-c3\"}",
                      F.gid + 100);
    t_err(r, "not_found", "missing game");
    cJSON_Delete(r);
    r = tc_rpc(F.c, "{\"type\":\"move\",\"game\":%lld,\"ply\":0,\"move\":\"b2-c3\"}", F.gid);
    t_err(r, "forbidden", "carol in alice v bob");
    cJSON_Delete(r);
    r = tc_rpc(F.b, "{\"type\":\"move\",\"game\":%lld,\"ply\":0,\"move\":\"b4-c3\"}", F.gid);
    t_err(r, "not_your_turn", "black at ply 0");
    cJSON_Delete(r);
    r = tc_rpc(F.a, "{\"type\":\"move\",\"game\":%lld,\"ply\":3,\"move\":\"b2-c3\"}", F.gid);
    t_err(r, "stale_ply", "ply 3 at 0");
    cr_assert_eq(t_int(r, "ply"), 0);
    cJSON_Delete(r);
    /* stale_ply comes before not_your_turn. */
    r = tc_rpc(F.b, "{\"type\":\"move\",\"game\":%lld,\"ply\":1,\"move\":\"b4-c3\"}", F.gid);
    t_err(r, "stale_ply", "black, ply 1 at 0");
    cJSON_Delete(r);
    static const char *bad[] = {"c3-c4", "a1-a5", "zz", "b2-c3-d4", "a1xa5", ""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        r = tc_rpc(F.a, "{\"type\":\"move\",\"game\":%lld,\"ply\":0,\"move\":\"%s\"}", F.gid,
                   bad[i]);
        t_err(r, "illegal_move", bad[i]);
        const cJSON *lm = t_obj(r, "legal_moves");
        cr_assert_eq(cJSON_GetArraySize(lm), 4, "%s", t_text(r));
        static const char *want[] = {"b2-c3", "b3-c3", "c2-c3", "d2-c3"};
        for (int k = 0; k < 4; k++)
            cr_assert_str_eq(cJSON_GetArrayItem(lm, k)->valuestring, want[k]);
        cJSON_Delete(r);
    }
    r = tc_rpc(F.a, "{\"type\":\"move\",\"game\":%lld,\"move\":{\"path\":[\"c3\",\"c4\"]}}",
               F.gid);
    t_err(r, "illegal_move", "path c3 c4");
    cJSON_Delete(r);
    r = tc_rpc(F.a, "{\"type\":\"move\",\"game\":%lld,\"move\":{\"path\":[\"z9\",\"c4\"]}}",
               F.gid);
    t_err(r, "illegal_move", "path off the board");
    cJSON_Delete(r);
    unchanged("refused moves");
}

Test(errors, duplicate_and_stale_after_a_move)
{
    play(F.a, 0, "b2-c3");
    tc_sync(F.b);
    snap();
    /* The same move, same player, ply just played: ok, applied once. */
    cJSON *r = tc_rpc(F.a, "{\"type\":\"move\",\"game\":%lld,\"ply\":0,\"move\":\"b2-c3\"}", F.gid);
    t_ok(r, "resend");
    cr_assert(cJSON_IsTrue(t_obj(r, "duplicate")), "%s", t_text(r));
    cr_assert_eq(t_int(t_obj(r, "game"), "ply"), 1);
    cJSON_Delete(r);
    r = tc_rpc(F.a, "{\"type\":\"move\",\"game\":%lld,\"ply\":0,\"move\":{\"path\":[\"b2\",\"c3\"]}}",
               F.gid);
    t_ok(r, "resend in the path form");
    cr_assert(cJSON_IsTrue(t_obj(r, "duplicate")), "%s", t_text(r));
    cJSON_Delete(r);
    /* Another move at the ply just played: stale. */
    r = tc_rpc(F.a, "{\"type\":\"move\",\"game\":%lld,\"ply\":0,\"move\":\"b3-c3\"}", F.gid);
    t_err(r, "stale_ply", "other move at ply 0");
    cr_assert_eq(t_int(r, "ply"), 1);
    cJSON_Delete(r);
    /* The same text by the other player: stale too. */
    r = tc_rpc(F.b, "{\"type\":\"move\",\"game\":%lld,\"ply\":0,\"move\":\"b2-c3\"}", F.gid);
    t_err(r, "stale_ply", "bob resends alice's move");
    cJSON_Delete(r);
    /* No second move event reached bob. */
    r = tc_rpc(F.b, "{\"type\":\"ping\"}");
    cJSON_Delete(r);
    cr_assert_null(tc_event(F.b, "move", 0), "a duplicate produced an event");
    unchanged("duplicate and stale moves");
}

Test(errors, game_over_and_resign)
{
    play(F.a, 0, "b2-c3");
    cJSON *r = tc_rpc(F.c, "{\"type\":\"resign\",\"game\":%lld}", F.gid);
    t_err(r, "forbidden", "carol resigns");
    cJSON_Delete(r);
    r = tc_rpc(F.b, "{\"type\":\"resign\",\"game\":%lld}", F.gid);
    t_ok(r, "bob resigns");
    const cJSON *g = t_obj(r, "game");
    cr_assert_str_eq(t_str(g, "status"), "finished");
    cr_assert_str_eq(t_str(g, "result"), "white");
    cr_assert_str_eq(t_str(g, "reason"), "resign");
    cr_assert_eq(cJSON_GetArraySize(t_obj(g, "legal_moves")), 0);
    cJSON_Delete(r);
    cJSON *ev = tc_event(F.a, "game_end", T_TIMEOUT_MS);
    cr_assert_not_null(ev);
    cr_assert_eq(t_int(ev, "game"), F.gid);
    cr_assert_str_eq(t_str(ev, "result"), "white");
    cJSON_Delete(ev);
    snap();
    r = tc_rpc(F.b, "{\"type\":\"move\",\"game\":%lld,\"ply\":1,\"move\":\"b4xb2\"}", F.gid);
    t_err(r, "game_over", "move after resign");
    cJSON_Delete(r);
    /* game_over comes before the duplicate check. */
    r = tc_rpc(F.a, "{\"type\":\"move\",\"game\":%lld,\"ply\":0,\"move\":\"b2-c3\"}", F.gid);
    t_err(r, "game_over", "resend after the end");
    cJSON_Delete(r);
    r = tc_rpc(F.a, "{\"type\":\"resign\",\"game\":%lld}", F.gid);
    t_err(r, "game_over", "resign twice");
    cJSON_Delete(r);
    unchanged("moves in a finished game");
}

Test(errors, challenge_state_errors)
{
    cJSON *r = tc_rpc(F.a, "{\"type\":\"challenge\",\"to\":\"nobody\"}");
    t_err(r, "not_found", "unknown user");
    cJSON_Delete(r);
    r = tc_rpc(F.a, "{\"type\":\"challenge\",\"to\":\"Carol\",\"variant\":\"alquerkonane-6x4\"}");
    t_ok(r, "challenge carol");
    long long cid = t_int(t_obj(r, "challenge"), "id");
    cr_assert_str_eq(t_str(t_obj(r, "challenge"), "to"), "carol");
    cJSON_Delete(r);
    snap();
    r = tc_rpc(F.b, "{\"type\":\"accept\",\"challenge\":%lld}", cid);
    t_err(r, "forbidden", "bob accepts carol's challenge");
    cJSON_Delete(r);
    r = tc_rpc(F.a, "{\"type\":\"accept\",\"challenge\":%lld}", cid);
    t_err(r, "forbidden", "alice accepts her own");
    cJSON_Delete(r);
    r = tc_rpc(F.a, "{\"type\":\"decline\",\"challenge\":%lld}", cid);
    t_err(r, "forbidden", "the challenger declines");
    cJSON_Delete(r);
    r = tc_rpc(F.c, "{\"type\":\"cancel\",\"challenge\":%lld}", cid);
    t_err(r, "forbidden", "the target cancels");
    cJSON_Delete(r);
    r = tc_rpc(F.c, "{\"type\":\"accept\",\"challenge\":%lld}", cid + 50);
    t_err(r, "not_found", "no such challenge");
    cJSON_Delete(r);
    unchanged("refused challenge ops");
    r = tc_rpc(F.c, "{\"type\":\"accept\",\"challenge\":%lld}", cid);
    t_ok(r, "carol accepts");
    cJSON_Delete(r);
    snap();
    r = tc_rpc(F.c, "{\"type\":\"accept\",\"challenge\":%lld}", cid);
    t_err(r, "conflict", "accepted twice");
    cJSON_Delete(r);
    r = tc_rpc(F.a, "{\"type\":\"cancel\",\"challenge\":%lld}", cid);
    t_err(r, "conflict", "cancel after accept");
    cJSON_Delete(r);
    unchanged("ops on an accepted challenge");
}

Test(errors, line_too_long_then_close)
{
    snap();
    tconn *x = tc_open(F.srv.port);
    size_t n = 70 * 1024;
    char *line = malloc(n);
    cr_assert_not_null(line);
    memset(line, 'x', n);
    memcpy(line, "{\"type\":\"ping\",\"id\":1,\"p\":\"", 27);
    memcpy(line + n - 3, "\"}\n", 3);
    tc_send(x, line, n); /* may fail part-way once the server has closed */
    free(line);
    cJSON *r = tc_read(x, T_TIMEOUT_MS);
    t_err(r, "line_too_long", "70 KiB line");
    cJSON_Delete(r);
    cr_assert(tc_wait_eof(x, T_TIMEOUT_MS), "not closed after line_too_long");
    tc_close(x);
    ping_ok(F.a, "another connection's long line");
    unchanged("line_too_long");
}
