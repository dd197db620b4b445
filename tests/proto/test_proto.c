/* The validation rules of PROTOCOL.md, applied by qk_proto_parse_line()
 * before any op runs: each hostile line ends in one exact error code. */
#include <criterion/criterion.h>
#include <math.h>
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

/* qk_proto_top_id(): the top-level id of a refused line, at any depth.
 * Expected: the id's JSON text, or NULL for none. */
static char *top_id_text(const char *line, size_t len)
{
    cJSON *id = qk_proto_top_id(line, len);
    char *t = id ? cJSON_PrintUnformatted(id) : NULL;
    cJSON_Delete(id);
    return t;
}

static void expect_top_id(const char *line, const char *want)
{
    char *got = top_id_text(line, strlen(line));
    if (!want)
        cr_assert_null(got, "%s: got %s", line, got);
    else
        cr_assert(got && strcmp(got, want) == 0, "%s: got %s, want %s", line, got ? got : "none",
                  want);
    free(got);
}

Test(proto, top_id_of_refused_lines)
{
    expect_top_id("{\"id\":7,\"a\":1,\"a\":2}", "7");
    expect_top_id(" {\"a\":{\"id\":1},\"id\":\"x\"} ", "\"x\"");
    expect_top_id("{\"\\u0069d\":9}", "9");  /* the key after unescaping */
    expect_top_id("{\"i\\\"d\":9}", NULL); /* i"d is another key */
    expect_top_id("{\"a\":\"},\\\"id\\\":3\",\"id\":4}", "4"); /* brackets in strings */
    expect_top_id("{\"id\":1,\"id\":1}", NULL);      /* twice */
    expect_top_id("{\"id\":-1}", NULL);                /* not a valid id */
    expect_top_id("{\"id\":1.5}", NULL);
    expect_top_id("{\"id\":[1]}", NULL);
    expect_top_id("{\"id\":1,}", NULL);                /* not an object's grammar */
    expect_top_id("{\"id\":1 \"a\":2}", NULL);
    expect_top_id("{\"id\":tru}", NULL);
    expect_top_id("{\"id\":1,\"a\":[}", NULL);        /* unbalanced */
    expect_top_id("{\"id\":1} x", NULL);
    expect_top_id("[{\"id\":1}]", NULL);
    expect_top_id("{}", NULL);
    /* 100,000 levels after and before the id: one pass, no recursion. */
    static char deep[200100];
    for (int before = 0; before <= 1; before++) {
        size_t n = 0;
        if (!before)
            n += (size_t)sprintf(deep, "{\"id\":42,\"x\":");
        else
            n += (size_t)sprintf(deep, "{\"x\":");
        memset(deep + n, '[', 100000);
        memset(deep + n + 100000, ']', 100000);
        n += 200000;
        n += (size_t)sprintf(deep + n, before ? ",\"id\":42}" : "}");
        char *got = top_id_text(deep, n);
        cr_assert(got && strcmp(got, "42") == 0, "deep, id %s", before ? "after" : "before");
        free(got);
        cr_assert_null(qk_proto_top_id(deep, n - 1), "cut short");
    }
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

/* ---- issue 9 item 6: what RFC 8259 rejects is bad_json ---------------- */

/* The value of string field "s" after a successful parse, copied into a
 * static buffer (tests only); NULL when the parse failed. */
static const char *parsed_s(const char *line, size_t n)
{
    static char buf[256];
    cJSON *o = NULL;
    const char *why = NULL;
    if (qk_proto_parse_line(line, n, &o, &why) != QK_ERR_NONE)
        return NULL;
    const char *v = NULL;
    cr_assert(qk_json_get_str(o, "s", &v), "no string s in %s", line);
    cr_assert_lt(strlen(v), sizeof buf);
    strcpy(buf, v);
    cJSON_Delete(o);
    return buf;
}
#define S(lit) parsed_s((lit), strlen(lit))

Test(proto, control_bytes_between_tokens_are_bad_json)
{
    /* RFC 8259 section 2: whitespace is space, tab, LF and CR only; cJSON
     * skips every byte <= 0x20. Each control byte at each place a token
     * boundary allows whitespace. */
    const char *shapes[] = {"%c{\"a\":1}", "{%c\"a\":1}", "{\"a\"%c:1}",     "{\"a\":%c1}",
                            "{\"a\":1%c}", "{\"a\":1}%c", "{\"a\":[1%c,2]}", "{\"a\":1,%c\"b\":2}"};
    char buf[64];
    for (int c = 1; c < 0x20; c++) {
        for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
            int n = snprintf(buf, sizeof buf, shapes[k], c);
            qk_err want = c == '\t' || c == '\n' || c == '\r' ? QK_ERR_NONE : QK_ERR_BAD_JSON;
            cr_assert_eq(parse(buf, (size_t)n), want, "byte 0x%02x in shape %zu", c, k);
        }
    }
    /* The two cJSON let through most often in practice. */
    cr_assert_eq(P("{\"a\":\v1}"), QK_ERR_BAD_JSON);
    cr_assert_eq(P("\f{\"a\":1}"), QK_ERR_BAD_JSON);
    /* Space, tab, CR, LF everywhere still pass. */
    cr_assert_eq(P(" \t\r\n{ \t\r\n\"a\" \t\r\n: \t\r\n1 \t\r\n} \t\r\n"), QK_ERR_NONE);
    /* The same bytes inside a string stay refused (section 7). */
    cr_assert_eq(P("{\"a\":\"x\ty\"}"), QK_ERR_BAD_JSON);
    cr_assert_eq(P("{\"a\":\"x\x1fy\"}"), QK_ERR_BAD_JSON);
    /* DEL (0x7f) is not a control character to JSON. */
    cr_assert_str_eq(S("{\"s\":\"x\x7fy\"}"), "x\x7fy");
}

Test(proto, invalid_u_escapes_are_bad_json)
{
    /* cJSON's parse_hex4 reads a non-hex digit as 0: "carol\uX000" used
     * to arrive as "carol". Section 7: \u and exactly four hex digits. */
    cr_assert_eq(P("{\"type\":\"register\",\"username\":\"carol\\uX000\",\"password\":\"p\"}"),
                 QK_ERR_BAD_JSON);
    const char *bad[] = {"\\uX000", "\\u000X", "\\u12",   "\\u12G4", "\\u",
                         "\\u 123", "\\u-123", "\\u+123", "\\U0041", "\\x41",
                         "\\a",     "\\'",     "\\0",     "\\v",     "\\e"};
    char buf[64];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(buf, sizeof buf, "{\"s\":\"a%sb\"}", bad[i]);
        cr_assert_eq(P(buf), QK_ERR_BAD_JSON, "%s", buf);
        snprintf(buf, sizeof buf, "{\"a%sb\":1}", bad[i]); /* in a name too */
        cr_assert_eq(P(buf), QK_ERR_BAD_JSON, "%s", buf);
    }
    /* An escape cut by the end of the line. */
    cr_assert_eq(P("{\"s\":\"\\u00"), QK_ERR_BAD_JSON);
    cr_assert_eq(P("{\"s\":\"\\"), QK_ERR_BAD_JSON);
    /* \u0000 in any spelling of the hex digits is refused. */
    cr_assert_eq(P("{\"s\":\"x\\u0000\"}"), QK_ERR_BAD_JSON);
}

Test(proto, valid_escapes_decode_exactly)
{
    cr_assert_str_eq(S("{\"s\":\"caf\\u00e9\"}"), "caf\xc3\xa9");
    cr_assert_str_eq(S("{\"s\":\"caf\\u00E9\"}"), "caf\xc3\xa9");
    cr_assert_str_eq(S("{\"s\":\"\\u0041\\u007a\"}"), "Az");
    cr_assert_str_eq(S("{\"s\":\"\\u20ac\"}"), "\xe2\x82\xac");
    cr_assert_str_eq(S("{\"s\":\"\\uFFFF\"}"), "\xef\xbf\xbf");
    cr_assert_str_eq(S("{\"s\":\"\\u0001\"}"), "\x01"); /* escaped, so allowed */
    cr_assert_str_eq(S("{\"s\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"}"), "\"\\/\b\f\n\r\t");
    /* An escaped backslash then "u0000" is text, not an escape. */
    cr_assert_str_eq(S("{\"s\":\"\\\\u0000\"}"), "\\u0000");
    cr_assert_str_eq(S("{\"s\":\"\\\\uX000\"}"), "\\uX000");
    cr_assert_str_eq(S("{\"s\":\"carol\"}"), "carol");
}

Test(proto, surrogate_pairs_pass_lone_surrogates_are_bad_json)
{
    /* A pair is one code point beyond the BMP (RFC 8259 section 7). */
    cr_assert_str_eq(S("{\"s\":\"\\uD83D\\uDE00\"}"), "\xf0\x9f\x98\x80"); /* U+1F600 */
    cr_assert_str_eq(S("{\"s\":\"\\ud834\\udd1e\"}"), "\xf0\x9d\x84\x9e"); /* U+1D11E */
    cr_assert_str_eq(S("{\"s\":\"\\uD800\\uDC00\"}"), "\xf0\x90\x80\x80"); /* U+10000 */
    cr_assert_str_eq(S("{\"s\":\"\\uDBFF\\uDFFF\"}"), "\xf4\x8f\xbf\xbf"); /* U+10FFFF */
    cr_assert_str_eq(S("{\"s\":\"a\\uD83D\\uDE00b\"}"), "a\xf0\x9f\x98\x80"
                                                        "b");
    /* Decision (qk_proto.h): anything else with a surrogate is bad_json. */
    const char *bad[] = {"\\uD800",         "\\uDBFF",        "\\uDC00",        "\\uDFFF",
                         "\\uD800x",        "\\uD800\\u0041", "\\uD800\\uD800", "\\uD800\\n",
                         "\\uDC00\\uD800",  "\\uD800\\uDX00", "\\uD800\\",      "\\uD800\\uDC0",
                         "\\uD800 \\uDC00", "\\uDE00\\uD83D"};
    char buf[64];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(buf, sizeof buf, "{\"s\":\"%s\"}", bad[i]);
        cr_assert_eq(P(buf), QK_ERR_BAD_JSON, "%s", buf);
    }
    /* The pair's halves as raw UTF-8 stay invalid UTF-8 (RFC 3629). */
    cr_assert_eq(P("{\"s\":\"\xed\xa0\xbd\xed\xb8\x80\"}"), QK_ERR_BAD_JSON);
}

Test(proto, top_level_arrays_of_any_depth_are_bad_json)
{
    cr_assert_eq(P("[]"), QK_ERR_BAD_JSON);
    cr_assert_eq(P(" [ ] "), QK_ERR_BAD_JSON);
    cr_assert_eq(P("[{\"type\":\"ping\"}]"), QK_ERR_BAD_JSON);
    cr_assert_eq(P("[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]"), QK_ERR_BAD_JSON); /* 20 */
    cr_assert_eq(P("\"s\""), QK_ERR_BAD_JSON);
    cr_assert_eq(P("true"), QK_ERR_BAD_JSON);
    cr_assert_eq(P("null"), QK_ERR_BAD_JSON);
    cr_assert_eq(P("-1"), QK_ERR_BAD_JSON);
    cr_assert_eq(P("   "), QK_ERR_BAD_JSON);
    /* Deeper than cJSON's limit: balanced arrays were "too deep"
     * (bad_request) before; an array is never an object. */
    static char deep[200001];
    for (size_t levels = 999; levels <= 100000; levels = levels * 10 + 1) {
        memset(deep, '[', levels);
        memset(deep + levels, ']', levels);
        cr_assert_eq(parse(deep, 2 * levels), QK_ERR_BAD_JSON, "%zu levels", levels);
        cr_assert_eq(parse(deep, levels), QK_ERR_BAD_JSON, "%zu levels unbalanced", levels);
    }
    /* An object stays bad_request when too deep (unchanged). */
    cr_assert_eq(P("{\"a\":[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]}"), QK_ERR_BAD_REQUEST);
}

Test(proto, byte_order_mark_and_empty_are_bad_json)
{
    cr_assert_eq(P("\xef\xbb\xbf{\"a\":1}"), QK_ERR_BAD_JSON);
    cr_assert_eq(P(""), QK_ERR_BAD_JSON);
    cr_assert_eq(P("{\"a\":1,}"), QK_ERR_BAD_JSON);
    cr_assert_eq(P("{\"a\":01}"), QK_ERR_BAD_JSON);
    cr_assert_eq(P("{\"a\":+1}"), QK_ERR_BAD_JSON);
    cr_assert_eq(P("{\"a\":.5}"), QK_ERR_BAD_JSON);
    cr_assert_eq(P("{\"a\":1.}"), QK_ERR_BAD_JSON);
    cr_assert_eq(P("{'a':1}"), QK_ERR_BAD_JSON);
    cr_assert_eq(P("{a:1}"), QK_ERR_BAD_JSON);
    cr_assert_eq(P("{\"a\":NaN}"), QK_ERR_BAD_JSON);
    cr_assert_eq(P("{\"a\":tru}"), QK_ERR_BAD_JSON);
}

/* Found by tests/fuzz/fuzz_proto.c: numbers that need 16 or 17 digits
 * were printed with cJSON's 15 and so changed when echoed (ping's ts):
 * 9007199254740992 came back as 9007199254740990. Printing is now exact
 * and stable: print(parse(print(x))) == print(x). */
static const char *print_line(const char *line)
{
    static char out[512];
    cJSON *o = NULL;
    const char *why;
    cr_assert_eq(qk_proto_parse_line(line, strlen(line), &o, &why), QK_ERR_NONE, "%s", line);
    size_t n;
    char *s = qk_proto_print(o, &n);
    cJSON_Delete(o);
    cr_assert_not_null(s);
    cr_assert(n > 0 && n < sizeof out && s[n - 1] == '\n');
    memcpy(out, s, n - 1);
    out[n - 1] = '\0';
    free(s);
    return out;
}

Test(proto, printed_numbers_read_back_exactly)
{
    struct {
        const char *in, *out;
    } cases[] = {
        {"{\"n\":9007199254740992}", "{\"n\":9007199254740992}"},           /* 2^53 */
        {"{\"n\":9007199254740993}", "{\"n\":9007199254740992}"},           /* nearest double */
        {"{\"n\":18446744073709551616}", "{\"n\":1.8446744073709552e+19}"}, /* 2^64 */
        {"{\"n\":0.1}", "{\"n\":0.1}"},
        {"{\"n\":0.30000000000000004}", "{\"n\":0.30000000000000004}"},
        {"{\"n\":1.2345678901234567}", "{\"n\":1.2345678901234567}"},
        {"{\"n\":-1.7976931348623157e308}", "{\"n\":-1.7976931348623157e+308}"},
        {"{\"n\":5e-324}", "{\"n\":4.94065645841247e-324}"}, /* 15 digits are exact here */
        {"{\"n\":9007199254740991}", "{\"n\":9007199254740991}"},
        {"{\"n\":1000000000000000}", "{\"n\":1000000000000000}"},
        {"{\"n\":123456789012345}", "{\"n\":123456789012345}"},
        {"{\"n\":1.5}", "{\"n\":1.5}"},
        {"{\"n\":-0}", "{\"n\":-0}"},
        {"{\"n\":1e400}", "{\"n\":null}"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *once = print_line(cases[i].in);
        cr_assert_str_eq(once, cases[i].out, "%s", cases[i].in);
        char again[512];
        strcpy(again, once);
        cr_assert_str_eq(print_line(again), cases[i].out, "%s printed twice", cases[i].in);
        /* The value itself survives. */
        cJSON *a = cJSON_Parse(cases[i].in), *b = cJSON_Parse(once);
        cr_assert(a && b);
        double x = cJSON_GetObjectItemCaseSensitive(a, "n")->valuedouble;
        const cJSON *bn = cJSON_GetObjectItemCaseSensitive(b, "n");
        if (isfinite(x))
            cr_assert(bn->valuedouble == x, "%s: %.17g vs %.17g", cases[i].in, x, bn->valuedouble);
        cJSON_Delete(a);
        cJSON_Delete(b);
    }
}

/* qk_json_add_int prints what cJSON prints for the protocol's integers
 * (ids, plies, millisecond timestamps: below 10^15) and reads back as the
 * same number; larger ones (cJSON: 15 digits, exponent form) print
 * exactly. */
Test(proto, integers_print_as_cjson_prints_them)
{
    const int64_t vals[] = {0, 7, -1, 42, 1000, 2147483647, 2147483648LL, 1764737999000LL,
                            -1764737999000LL, 999999999999999LL};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        cJSON *a = cJSON_CreateObject(), *b = cJSON_CreateObject();
        cr_assert_not_null(qk_json_add_int(a, "n", vals[i]));
        cr_assert_not_null(cJSON_AddNumberToObject(b, "n", (double)vals[i]));
        char *pa = cJSON_PrintUnformatted(a), *pb = cJSON_PrintUnformatted(b);
        cr_assert_str_eq(pa, pb, "%lld", (long long)vals[i]);
        cJSON *back = cJSON_Parse(pa);
        cr_assert_eq((int64_t)cJSON_GetObjectItem(back, "n")->valuedouble, vals[i]);
        cJSON_Delete(back);
        free(pa);
        free(pb);
        cJSON_Delete(a);
        cJSON_Delete(b);
    }
    cJSON *o = cJSON_CreateObject();
    qk_json_add_int(o, "big", 9007199254740991LL);
    qk_json_add_int(o, "min", INT64_MIN);
    qk_json_add_int(o, "max", INT64_MAX);
    char *p = cJSON_PrintUnformatted(o);
    cr_assert_str_eq(p, "{\"big\":9007199254740991,\"min\":-9223372036854775808,"
                        "\"max\":9223372036854775807}");
    free(p);
    cJSON_Delete(o);
}

/* qk_proto_print_into gives qk_proto_print's text, and false (the caller
 * falls back) for a message too long for the buffer. */
Test(proto, print_into_is_the_same_text)
{
    cJSON *m = qk_proto_event("move");
    cJSON_AddStringToObject(m, "move", "a1xc3");
    qk_json_add_int(m, "deadline", 1764737999000LL);
    cJSON_AddNumberToObject(m, "rating", 1662.31);
    size_t n1, n2;
    char *a = qk_proto_print(m, &n1);
    static char b[4096];
    cr_assert(qk_proto_print_into(m, b, sizeof b, &n2));
    cr_assert_eq(n1, n2);
    cr_assert_str_eq(a, b);
    cr_assert_eq(b[n2 - 1], '\n');
    free(a);
    static char big[sizeof b];
    memset(big, 'x', sizeof big - 1);
    cJSON_AddStringToObject(m, "big", big);
    cr_assert_not(qk_proto_print_into(m, b, sizeof b, &n2), "too long for the buffer");
    a = qk_proto_print(m, &n1);
    cr_assert_gt(n1, sizeof big);
    free(a);
    cJSON_Delete(m);
}

/* qk_proto_splice (docs/perf.md "Third round"): one printed set of fields
 * under two heads gives exactly the text of each message built whole. */
Test(proto, splice_is_the_text_of_the_whole_message)
{
    cJSON *f = cJSON_CreateObject();
    qk_json_add_int(f, "game", 7);
    cJSON_AddStringToObject(f, "move", "c3-c4");
    cJSON_AddItemToObject(f, "legal", cJSON_CreateRaw("[\"a1-b2\"]"));
    size_t n;
    char *fields = qk_proto_print(f, &n);

    cJSON *id = cJSON_CreateNumber(9007199254740991.0); /* exact only as digits */
    cJSON *ok = qk_proto_ok(id);
    cJSON_AddTrueToObject(ok, "duplicate");
    cJSON *ev = qk_proto_event("move");
    cJSON *ans = qk_proto_splice(ok, fields), *evt = qk_proto_splice(ev, fields);
    cr_assert(ans && evt);
    char *a = qk_proto_print(ans, &n), *e = qk_proto_print(evt, &n);
    cr_assert_str_eq(a, "{\"type\":\"ok\",\"id\":9007199254740991,\"duplicate\":true,"
                        "\"game\":7,\"move\":\"c3-c4\",\"legal\":[\"a1-b2\"]}\n");
    cr_assert_str_eq(e, "{\"type\":\"event\",\"event\":\"move\",\"game\":7,\"move\":\"c3-c4\","
                        "\"legal\":[\"a1-b2\"]}\n");
    static char buf[512];
    cr_assert(qk_proto_print_into(evt, buf, sizeof buf, &n));
    cr_assert_str_eq(buf, e);
    /* The head is unchanged and can be printed again. */
    char *h = qk_proto_print(ok, &n);
    cr_assert_str_eq(h, "{\"type\":\"ok\",\"id\":9007199254740991,\"duplicate\":true}\n");
    free(a);
    free(e);
    free(h);
    cJSON_Delete(ans);
    cJSON_Delete(evt);

    /* Empty sides add no comma; what is not an object's text is refused. */
    cJSON *empty = cJSON_CreateObject();
    cJSON *x = qk_proto_splice(ev, "{}");
    a = qk_proto_print(x, &n);
    cr_assert_str_eq(a, "{\"type\":\"event\",\"event\":\"move\"}\n");
    free(a);
    cJSON_Delete(x);
    x = qk_proto_splice(empty, "{\"a\":1}\n");
    a = qk_proto_print(x, &n);
    cr_assert_str_eq(a, "{\"a\":1}\n");
    free(a);
    cJSON_Delete(x);
    cr_assert_null(qk_proto_splice(ev, "[1]"));
    cr_assert_null(qk_proto_splice(ev, "{"));
    cr_assert_null(qk_proto_splice(ev, NULL));
    cr_assert_null(qk_proto_splice(id, fields), "a head that is not an object");

    cJSON_Delete(empty);
    cJSON_Delete(ok);
    cJSON_Delete(ev);
    cJSON_Delete(id);
    cJSON_Delete(f);
    free(fields);
}
