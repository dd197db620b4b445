/* The validation rules of PROTOCOL.md, applied by qk_proto_parse_line()
 * before any op runs: each hostile line ends in one exact error code. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qk_proto.h"

static qk_err parse(const char *s, size_t n)
{
    cJSON *o = NULL;
    const char *why = NULL;
    qk_err e = qk_proto_parse_line(s, n, &o, &why);
    if (e == QK_ERR_NONE) {
        cr_assert_not_null(o);
        cJSON_Delete(o);
    } else {
        cr_assert_null(o);
        cr_assert_not_null(why);
    }
    return e;
}
#define P(s) parse((s), strlen(s))

Test(proto, error_table_matches_wire_codes)
{
    /* PROTOCOL.md "Error codes", in its order. */
    const char *codes[] = {"bad_json",      "bad_request",     "unknown_op",    "line_too_long",
                           "unauthenticated", "forbidden",     "not_found",     "conflict",
                           "not_your_turn", "illegal_move",    "stale_ply",     "game_over",
                           "rate_limited",  "server_busy",     "server_shutdown", "internal"};
    for (size_t i = 0; i < sizeof codes / sizeof *codes; i++) {
        qk_err e = qk_err_parse(codes[i]);
        cr_assert_neq(e, QK_ERR_NONE, "%s missing", codes[i]);
        cr_assert_str_eq(qk_err_code(e), codes[i]);
    }
    cr_assert_eq(qk_err_parse("nope"), QK_ERR_NONE);
    cr_assert_str_eq(qk_err_code((qk_err)9999), "internal");
}

Test(proto, valid_objects)
{
    cr_assert_eq(P("{\"type\":\"ping\",\"id\":1}"), QK_ERR_NONE);
    cr_assert_eq(P("  {\"type\":\"ping\"}  "), QK_ERR_NONE);
    cr_assert_eq(P("{\"s\":\"caf\xc3\xa9 \\u00e9 \\\\u0000\"}"), QK_ERR_NONE);
}

Test(proto, not_one_object_is_bad_json)
{
    cr_assert_eq(P("{"), QK_ERR_BAD_JSON);
    cr_assert_eq(P("[1,2]"), QK_ERR_BAD_JSON);
    cr_assert_eq(P("42"), QK_ERR_BAD_JSON);
    cr_assert_eq(P(""), QK_ERR_BAD_JSON);
    cr_assert_eq(P("{\"a\":1}{\"b\":2}"), QK_ERR_BAD_JSON);
    cr_assert_eq(P("{\"a\":1} x"), QK_ERR_BAD_JSON);
    cr_assert_eq(parse("{\"a\":1}\0", 8), QK_ERR_BAD_JSON);
    cr_assert_eq(parse("{\"a\":\"x\0y\"}", 11), QK_ERR_BAD_JSON);
}

Test(proto, invalid_utf8_and_nul_escape_are_bad_json)
{
    cr_assert_eq(P("{\"a\":\"\xff\"}"), QK_ERR_BAD_JSON);
    cr_assert_eq(P("{\"a\":\"\xc0\xaf\"}"), QK_ERR_BAD_JSON);         /* overlong '/' */
    cr_assert_eq(P("{\"a\":\"\xed\xa0\x80\"}"), QK_ERR_BAD_JSON);     /* surrogate */
    cr_assert_eq(P("{\"a\":\"\xe2\x82\"}"), QK_ERR_BAD_JSON);         /* truncated */
    cr_assert_eq(P("{\"a\":\"\xf4\x90\x80\x80\"}"), QK_ERR_BAD_JSON); /* > U+10FFFF */
    cr_assert_eq(P("{\"a\":\"x\\u0000y\"}"), QK_ERR_BAD_JSON);
}

Test(proto, duplicate_field_is_bad_request_case_matters)
{
    cr_assert_eq(P("{\"game\":1,\"game\":2}"), QK_ERR_BAD_REQUEST);
    cr_assert_eq(P("{\"o\":{\"a\":1,\"a\":1}}"), QK_ERR_BAD_REQUEST);
    cr_assert_eq(P("{\"game\":1,\"Game\":2}"), QK_ERR_NONE);
}

Test(proto, nesting_limit_is_sixteen)
{
    char buf[256];
    /* 16 levels (the top object counts as one) pass, 17 fail. */
    for (int levels = 15; levels <= 17; levels++) {
        size_t n = 0;
        n += (size_t)sprintf(buf + n, "{\"a\":");
        for (int i = 1; i < levels; i++)
            buf[n++] = '[';
        buf[n++] = '1';
        for (int i = 1; i < levels; i++)
            buf[n++] = ']';
        buf[n++] = '}';
        buf[n] = '\0';
        cr_assert_eq(P(buf), levels <= 16 ? QK_ERR_NONE : QK_ERR_BAD_REQUEST, "%d levels", levels);
    }
    /* Far deeper than cJSON's own limit: refused without deep recursion;
     * balanced, so "too deep" (bad_request); unbalanced is bad_json. */
    static char deep[200002];
    deep[0] = '{';
    memcpy(deep + 1, "\"a\":", 4);
    memset(deep + 5, '[', 99995);
    memset(deep + 100000, ']', 99995);
    deep[199995] = '}';
    cr_assert_eq(parse(deep, 199996), QK_ERR_BAD_REQUEST);
    cr_assert_eq(parse(deep, 199995), QK_ERR_BAD_JSON);
    /* Malformed and deep is bad_json, not bad_request. */
    cr_assert_eq(P("{\"a\":[[[[[[[[[[[[[[[[[[1}"), QK_ERR_BAD_JSON);
}

Test(proto, integers_are_whole_and_in_range)
{
    cJSON *o = NULL;
    const char *why;
    const char *line = "{\"a\":0,\"b\":9007199254740991,\"c\":9007199254740992,\"d\":-1,"
                       "\"e\":1.5,\"f\":\"3\",\"g\":1e3,\"h\":true}";
    cr_assert_eq(qk_proto_parse_line(line, strlen(line), &o, &why), QK_ERR_NONE);
    uint64_t u;
    bool b;
    cr_assert(qk_json_get_uint(o, "a", &u) && u == 0);
    cr_assert(qk_json_get_uint(o, "b", &u) && u == 9007199254740991ull);
    cr_assert_not(qk_json_get_uint(o, "c", &u));
    cr_assert_not(qk_json_get_uint(o, "d", &u));
    cr_assert_not(qk_json_get_uint(o, "e", &u));
    cr_assert_not(qk_json_get_uint(o, "f", &u));
    cr_assert(qk_json_get_uint(o, "g", &u) && u == 1000);
    cr_assert_not(qk_json_get_uint(o, "missing", &u));
    cr_assert(qk_json_get_bool(o, "h", &b) && b);
    cr_assert_not(qk_json_is_id(cJSON_GetObjectItemCaseSensitive(o, "d")));
    cr_assert(qk_json_is_id(cJSON_GetObjectItemCaseSensitive(o, "f")));
    cJSON_Delete(o);
}

Test(proto, builders_print_one_line)
{
    cJSON *id = cJSON_CreateNumber(7);
    cJSON *e = qk_proto_error(id, QK_ERR_STALE_PLY, NULL);
    size_t n;
    char *s = qk_proto_print(e, &n);
    cr_assert_str_eq(s, "{\"type\":\"error\",\"id\":7,\"code\":\"stale_ply\","
                        "\"message\":\"the ply is not the game's current ply\"}\n");
    cr_assert_eq(n, strlen(s));
    free(s);
    cJSON_Delete(e);
    cJSON *ok = qk_proto_ok(NULL);
    s = qk_proto_print(ok, &n);
    cr_assert_str_eq(s, "{\"type\":\"ok\"}\n");
    free(s);
    cJSON_Delete(ok);
    cJSON_Delete(id);
}

/* RFC 8259 strictness that cJSON leaves out. */
Test(proto, strict_json_lexing)
{
    cr_assert_eq(P("{\"id\":01}"), QK_ERR_BAD_JSON);
    cr_assert_eq(P("{\"id\":-01}"), QK_ERR_BAD_JSON);
    cr_assert_eq(P("{\"id\":1.}"), QK_ERR_BAD_JSON);
    cr_assert_eq(P("{\"id\":.5}"), QK_ERR_BAD_JSON);
    cr_assert_eq(P("{\"id\":1e}"), QK_ERR_BAD_JSON);
    cr_assert_eq(P("{\"id\":-}"), QK_ERR_BAD_JSON);
    cr_assert_eq(P("{\"s\":\"a\tb\"}"), QK_ERR_BAD_JSON);
    cr_assert_eq(P("{\"s\":\"a\nb\"}"), QK_ERR_BAD_JSON);
    cr_assert_eq(P("\xEF\xBB\xBF{\"a\":1}"), QK_ERR_BAD_JSON);
    cr_assert_eq(P("{\"id\":0,\"b\":-0.5e+3,\"c\":10E2,\"s\":\"a\\tb \\\" 01\"}"), QK_ERR_NONE);
}

/* A 64 KiB line of thousands of keys: the duplicate is still found (and
 * found in n log n; the time itself belongs in a benchmark). */
Test(proto, many_keys_duplicate_found)
{
    static char buf[70000];
    size_t n = 0;
    buf[n++] = '{';
    for (int i = 0; i < 5000; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "\"k%d\":1,", i);
    n += (size_t)snprintf(buf + n, sizeof buf - n, "\"k17\":2}");
    cr_assert_eq(parse(buf, n), QK_ERR_BAD_REQUEST);
    n -= strlen("\"k17\":2}"); /* drop the repeat: 5000 distinct keys */
    buf[n - 1] = '}';
    cr_assert_eq(parse(buf, n), QK_ERR_NONE);
}

/* PROTOCOL.md: a response carries the request's id unchanged; ids go to
 * 2^53 - 1, which cJSON alone would print as 9.00719925474099e+15. */
Test(proto, big_ids_echo_exactly)
{
    const char *line = "{\"type\":\"ping\",\"id\":9007199254740991,\"ts\":5000000000000001}";
    cJSON *req = NULL;
    const char *why;
    cr_assert_eq(qk_proto_parse_line(line, strlen(line), &req, &why), QK_ERR_NONE);
    cJSON *ok = qk_proto_ok(cJSON_GetObjectItemCaseSensitive(req, "id"));
    cJSON_AddItemToObject(ok, "ts", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(req, "ts"), 1));
    cJSON_AddNumberToObject(ok, "small", 1764474000123.0);
    size_t n;
    char *s = qk_proto_print(ok, &n);
    cr_assert_str_eq(s, "{\"type\":\"ok\",\"id\":9007199254740991,\"ts\":5000000000000001,"
                        "\"small\":1764474000123}\n");
    free(s);
    /* The message itself is untouched: still numbers. */
    cr_assert(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(ok, "id")));
    cJSON_Delete(ok);
    cJSON_Delete(req);
}
