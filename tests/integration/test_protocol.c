/*
 * Bad input against the real server (PROTOCOL.md "Framing", "Error codes",
 * "Validation rules"). Each case asserts the exact error code and that the
 * stored rows (users, games, moves) did not change.
 *
 * Fixture: alice (White), bob (Black) and carol registered on raw
 * connections; alice has challenged bob, bob accepted, and the first
 * `plies` moves of a short recorded alquerque game have been played.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

TestSuite(protocol, .init = h_setup, .fini = h_teardown, .timeout = 120);

#define PW "pw-for-tests"

typedef struct fx {
    hsrv srv;
    hconn *a, *b, *c; /* alice (White), bob (Black), carol (no part in the game) */
    hgame *games;
    int ngames;
    const hgame *g;
    long long gid;
    int ply;
} fx;

static hconn *mover(fx *f)
{
    char side = h_pos_side(f->g->start);
    return (f->ply % 2 == 0) == (side == 'w') ? f->a : f->b;
}

static hconn *waiter(fx *f)
{
    return mover(f) == f->a ? f->b : f->a;
}

static void fx_play(fx *f, int upto)
{
    while (f->ply < upto) {
        cJSON *r =
            hconn_rpc(mover(f), "{\"type\":\"move\",\"game\":%lld,\"ply\":%d,\"move\":\"%s\"}",
                      f->gid, f->ply, f->g->moves[f->ply]);
        hj_assert_ok(r, "fixture move");
        cJSON_Delete(r);
        f->ply++;
    }
    hconn_drop_events(f->a);
    hconn_drop_events(f->b);
}

static void fx_start(fx *f, int plies)
{
    memset(f, 0, sizeof *f);
    f->ngames = hgames_load("alquerque", &f->games);
    f->g = &f->games[0];
    for (int i = 1; i < f->ngames; i++) /* the shortest recording */
        if (f->games[i].nmoves < f->g->nmoves)
            f->g = &f->games[i];
    hsrv_start(&f->srv);
    f->a = hconn_open(f->srv.port);
    f->b = hconn_open(f->srv.port);
    f->c = hconn_open(f->srv.port);
    hconn_hello(f->a);
    hconn_hello(f->b);
    hconn_hello(f->c);
    hconn_register(f->a, "alice", PW);
    hconn_register(f->b, "bob", PW);
    hconn_register(f->c, "carol", PW);
    cJSON *r = hconn_rpc(f->a, "{\"type\":\"challenge\",\"to\":\"bob\",\"variant\":\"alquerque\","
                               "\"color\":\"white\"}");
    hj_assert_ok(r, "challenge");
    const cJSON *ch = cJSON_GetObjectItemCaseSensitive(r, "challenge");
    cr_assert(cJSON_IsObject(ch), "challenge result: %s", hj_text(r));
    long long cid = hj_int(ch, "id");
    cJSON_Delete(r);
    r = hconn_rpc(f->b, "{\"type\":\"accept\",\"challenge\":%lld}", cid);
    hj_assert_ok(r, "accept");
    f->gid = hj_int(hj_game(r), "id");
    cJSON_Delete(r);
    fx_play(f, plies);
}

static void fx_end(fx *f)
{
    hconn_close(f->a);
    hconn_close(f->b);
    hconn_close(f->c);
    hsrv_stop(&f->srv);
    hgames_free(f->games, f->ngames);
    h_pass();
}

/* The server's view of the game: ply and move count. */
static void expect_game_at(fx *f, int ply)
{
    cJSON *r = hconn_rpc(f->a, "{\"type\":\"game\",\"game\":%lld}", f->gid);
    hj_assert_ok(r, "game");
    const cJSON *g = hj_game(r);
    cr_assert_eq(hj_int(g, "ply"), ply, "game: %s", hj_text(r));
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(g, "moves")), ply);
    cJSON_Delete(r);
}

static void ping_ok(hconn *c, const char *after)
{
    cJSON *r = hconn_rpc(c, "{\"type\":\"ping\",\"ts\":1}");
    cr_assert_not_null(r);
    const char *t = hj_str(r, "type");
    cr_assert(t && !strcmp(t, "ok"), "ping after %s: %s", after, hj_text(r));
    cJSON_Delete(r);
}

/* ---- framing and parsing ------------------------------------------------ */

Test(protocol, bad_json_keeps_the_connection_open)
{
    fx f;
    fx_start(&f, 2);
    hcounts before, after;
    hdb_counts(f.srv.db, &before);
    static const char *lines[] = {
        "{\"type\":\"ping\",",                               /* truncated */
        "not json at all",                                   /* garbage */
        "[1,2,3]",                                           /* not an object */
        "\"ping\"",                                          /* a string */
        "{\"type\":\"ping\",\"id\":7} trailing",             /* bytes after the object */
        "{\"type\":\"ping\",\"id\":8}{\"type\":\"ping\"}",   /* two objects */
        "{\"type\":\"ping\",\"id\":9,\"x\":\"\xff\xfe\"}",   /* invalid UTF-8 */
        "{\"type\":\"ping\",\"id\":10,\"x\":\"a\\u0000b\"}", /* \u0000 */
    };
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
        cJSON *r = hconn_raw_reply(f.a, lines[i], H_READ_TIMEOUT_MS);
        cr_assert_not_null(r, "no reply to line %zu (%s); eof=%d", i, lines[i], hconn_eof(f.a));
        hj_assert_error(r, "bad_json", lines[i]);
        cJSON_Delete(r);
        ping_ok(f.a, lines[i]);
    }
    /* A NUL byte inside the line. */
    static const char nul[] = "{\"type\":\"ping\",\"id\":11}\0\n";
    cr_assert_eq(hconn_send_raw(f.a, nul, sizeof nul - 1), 0);
    cJSON *r = hconn_reply(f.a, H_READ_TIMEOUT_MS);
    hj_assert_error(r, "bad_json", "a NUL byte after the object");
    cJSON_Delete(r);
    ping_ok(f.a, "a NUL byte");
    /* Empty lines are keepalives: no reply at all. */
    cr_assert_eq(hconn_send_raw(f.a, "\n\n\r\n", 4), 0);
    ping_ok(f.a, "empty lines");
    hdb_counts(f.srv.db, &after);
    hdb_assert_counts_eq(&before, &after, "bad_json lines");
    fx_end(&f);
}

/* Issue 9 item 6 over TCP: JSON that RFC 8259 rejects is bad_json from the
 * server (the strict parser of common/qk_proto.c), the connection stays
 * open and nothing is stored: a \u escape with a non-hex digit used to cut
 * "frank\uX000" to "frank" and create that account. */
Test(protocol, rfc8259_rejects_are_bad_json)
{
    fx f;
    fx_start(&f, 0);
    hcounts before, after;
    hdb_counts(f.srv.db, &before);
    hconn *c = hconn_open(f.srv.port);
    hconn_hello(c);
    static const char *lines[] = {
        "{\"type\":\"register\",\"id\":1,\"username\":\"frank\\uX000\",\"password\":\"pw-frank\"}",
        "{\"type\":\"register\",\"id\":2,\"username\":\"dave\\uD800\",\"password\":\"pw-dave\"}",
        "{\"type\":\"ping\",\"id\":3,\v\"x\":1}",
        "\f{\"type\":\"ping\",\"id\":4}",
        "{\"type\":\"ping\",\"id\":5}\x1f",
        "[[[[[[[[[[[[[[[[[[[[{\"type\":\"ping\",\"id\":6}]]]]]]]]]]]]]]]]]]]]",
    };
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
        cJSON *r = hconn_raw_reply(c, lines[i], H_READ_TIMEOUT_MS);
        cr_assert_not_null(r, "no reply to line %zu; eof=%d", i, hconn_eof(c));
        hj_assert_error(r, "bad_json", lines[i]);
        cJSON_Delete(r);
        ping_ok(c, lines[i]);
    }
    /* A top-level array far deeper than cJSON's limit: bad_json too. */
    static char deep[20001];
    memset(deep, '[', 10000);
    memset(deep + 10000, ']', 10000);
    cJSON *r = hconn_raw_reply(c, deep, H_READ_TIMEOUT_MS);
    hj_assert_error(r, "bad_json", "10,000-level top-level array");
    cJSON_Delete(r);
    ping_ok(c, "deep array");
    hdb_counts(f.srv.db, &after);
    hdb_assert_counts_eq(&before, &after, "RFC 8259 rejects");
    /* The valid spellings still work: an escaped name is the name. */
    r = hconn_rpc(c, "{\"type\":\"register\",\"username\":\"\\u0066rank\",\"password\":\"pw-f\"}");
    hj_assert_ok(r, "register \\u0066rank");
    cr_assert_str_eq(hj_str(cJSON_GetObjectItemCaseSensitive(r, "user"), "username"), "frank", "%s",
                     hj_text(r));
    cJSON_Delete(r);
    hconn_close(c);
    fx_end(&f);
}

/* Issue 9 item 7 over TCP: the 65,536-byte limit counts the line without
 * its CR LF; one byte more is line_too_long and the connection closes. */
static char *padded_ping(size_t content)
{
    const char *head = "{\"type\":\"ping\",\"id\":77,\"pad\":\"";
    char *line = malloc(content + 3);
    cr_assert_not_null(line);
    memset(line, 'x', content);
    memcpy(line, head, strlen(head));
    memcpy(line + content - 2, "\"}\r\n", 4);
    return line;
}

Test(protocol, crlf_line_of_exactly_the_limit_is_served)
{
    fx f;
    fx_start(&f, 0);
    char *line = padded_ping(65536);
    cr_assert_eq(hconn_send_raw(f.a, line, 65538), 0);
    free(line);
    cJSON *r = hconn_reply(f.a, H_READ_TIMEOUT_MS);
    cr_assert_not_null(r, "no reply to a 65,536-byte CR LF line (eof=%d)", hconn_eof(f.a));
    hj_assert_ok(r, "65,536 bytes + CR LF");
    cr_assert_eq(hj_int(r, "id"), 77, "%s", hj_text(r));
    cJSON_Delete(r);
    ping_ok(f.a, "the 65,536-byte line");

    line = padded_ping(65537);
    cr_assert_eq(hconn_send_raw(f.b, line, 65539), 0);
    free(line);
    r = hconn_reply(f.b, H_READ_TIMEOUT_MS);
    cr_assert_not_null(r, "no reply to a 65,537-byte CR LF line (eof=%d)", hconn_eof(f.b));
    hj_assert_error(r, "line_too_long", "65,537 bytes + CR LF");
    cJSON_Delete(r);
    cr_assert(hconn_wait_eof(f.b, H_READ_TIMEOUT_MS), "connection left open after line_too_long");
    ping_ok(f.a, "another connection's line_too_long");
    fx_end(&f);
}

Test(protocol, unknown_op)
{
    fx f;
    fx_start(&f, 0);
    hcounts before, after;
    hdb_counts(f.srv.db, &before);
    cJSON *r = hconn_rpc(f.a, "{\"type\":\"frobnicate\",\"game\":%lld}", f.gid);
    hj_assert_error(r, "unknown_op", "op frobnicate");
    cJSON_Delete(r);
    r = hconn_rpc(f.a, "{\"type\":\"Move\",\"game\":%lld,\"ply\":0,\"move\":\"%s\"}", f.gid,
                  f.g->moves[0]);
    hj_assert_error(r, "unknown_op", "op Move (case-sensitive)");
    cJSON_Delete(r);
    ping_ok(f.a, "unknown_op");
    hdb_counts(f.srv.db, &after);
    hdb_assert_counts_eq(&before, &after, "unknown_op");
    expect_game_at(&f, 0);
    fx_end(&f);
}

Test(protocol, missing_or_ill_typed_fields)
{
    fx f;
    fx_start(&f, 0);
    hcounts before, after;
    hdb_counts(f.srv.db, &before);
    const char *mv = f.g->moves[0];
    char req[12][256];
    int n = 0;
    long long g = f.gid;
    snprintf(req[n++], 256, "{\"type\":\"move\",\"game\":%lld,\"ply\":0}", g);
    snprintf(req[n++], 256, "{\"type\":\"move\",\"ply\":0,\"move\":\"%s\"}", mv);
    snprintf(req[n++], 256, "{\"type\":\"move\",\"game\":\"%lld\",\"ply\":0,\"move\":\"%s\"}", g,
             mv);
    snprintf(req[n++], 256, "{\"type\":\"move\",\"game\":%lld,\"ply\":-1,\"move\":\"%s\"}", g, mv);
    snprintf(req[n++], 256, "{\"type\":\"move\",\"game\":%lld,\"ply\":0.5,\"move\":\"%s\"}", g, mv);
    snprintf(req[n++], 256,
             "{\"type\":\"move\",\"game\":%lld,\"ply\":9007199254740992,\"move\":\"%s\"}", g, mv);
    snprintf(req[n++], 256, "{\"type\":\"move\",\"game\":%lld,\"ply\":0,\"move\":42}", g);
    snprintf(req[n++], 256, "{\"type\":\"move\",\"Game\":%lld,\"ply\":0,\"move\":\"%s\"}", g, mv);
    snprintf(req[n++], 256, "{\"type\":\"register\",\"username\":7,\"password\":\"x\"}");
    snprintf(req[n++], 256, "{\"type\":\"accept\",\"challenge\":true}");
    for (int i = 0; i < n; i++) {
        cJSON *r = hconn_rpc(f.a, "%s", req[i]);
        hj_assert_error(r, "bad_request", req[i]);
        cJSON_Delete(r);
    }
    ping_ok(f.a, "bad_request");
    hdb_counts(f.srv.db, &after);
    hdb_assert_counts_eq(&before, &after, "bad_request");
    expect_game_at(&f, 0);
    fx_end(&f);
}

/* A field given twice is bad_request (PROTOCOL.md "Validation rules"), and
 * the reply still carries the request's id ("Exactly one response per
 * request, with the same id"): the id is readable, only another field is
 * repeated. */
Test(protocol, duplicate_field_is_bad_request_with_the_id)
{
    fx f;
    fx_start(&f, 0);
    hcounts before, after;
    hdb_counts(f.srv.db, &before);
    char line[256];
    snprintf(line, sizeof line,
             "{\"id\":77,\"type\":\"move\",\"game\":%lld,\"game\":%lld,\"ply\":0,\"move\":\"%s\"}",
             f.gid, f.gid, f.g->moves[0]);
    cJSON *r = hconn_raw_reply(f.a, line, H_READ_TIMEOUT_MS);
    hj_assert_error(r, "bad_request", line);
    hdb_counts(f.srv.db, &after);
    hdb_assert_counts_eq(&before, &after, "duplicate field");
    expect_game_at(&f, 0);
    long long id = -1;
    cr_assert(hj_has_int(r, "id", &id) && id == 77, "reply to %s lacks \"id\": 77: %s", line,
              hj_text(r));
    cJSON_Delete(r);
    fx_end(&f);
}

Test(protocol, line_too_long_closes_the_connection)
{
    fx f;
    fx_start(&f, 0);
    hcounts before, after;
    hdb_counts(f.srv.db, &before);
    hconn *c = hconn_open(f.srv.port);
    hconn_hello(c);
    size_t n = 100 * 1024;
    char *line = malloc(n + 1);
    cr_assert_not_null(line);
    const char *head = "{\"type\":\"ping\",\"id\":1,\"pad\":\"";
    memset(line, 'x', n);
    memcpy(line, head, strlen(head));
    memcpy(line + n - 3, "\"}\n", 3);
    /* Send in pieces and stop once the server has answered: what it has not
     * read when it closes must not reset the connection before its reply
     * reaches us. A failed send means the server closed: fine. */
    cJSON *r = NULL;
    for (size_t off = 0; off < n && !r; off += 4096) {
        size_t k = n - off < 4096 ? n - off : 4096;
        if (hconn_send_raw(c, line + off, k) != 0)
            break;
        r = hconn_reply(c, 0);
    }
    free(line);
    if (!r)
        r = hconn_reply(c, H_READ_TIMEOUT_MS);
    cr_assert_not_null(r, "no reply to a 100 KiB line (eof=%d)", hconn_eof(c));
    hj_assert_error(r, "line_too_long", "100 KiB line");
    cJSON_Delete(r);
    cr_assert(hconn_wait_eof(c, H_READ_TIMEOUT_MS),
              "the server did not close the connection after line_too_long");
    hconn_close(c);
    /* Other connections are unaffected. */
    ping_ok(f.a, "another connection's line_too_long");
    hdb_counts(f.srv.db, &after);
    hdb_assert_counts_eq(&before, &after, "line_too_long");
    fx_end(&f);
}

/* ---- authentication -------------------------------------------------------- */

Test(protocol, game_ops_before_login_are_unauthenticated)
{
    fx f;
    fx_start(&f, 1);
    hcounts before, after;
    hdb_counts(f.srv.db, &before);
    hconn *c = hconn_open(f.srv.port);
    hconn_hello(c);
    const char *mv = f.g->moves[1];
    char req[6][256];
    int n = 0;
    snprintf(req[n++], 256, "{\"type\":\"move\",\"game\":%lld,\"ply\":1,\"move\":\"%s\"}", f.gid,
             mv);
    /* unauthenticated is checked before the fields (PROTOCOL.md order). */
    snprintf(req[n++], 256, "{\"type\":\"move\",\"game\":\"x\"}");
    snprintf(req[n++], 256, "{\"type\":\"game\",\"game\":%lld}", f.gid);
    snprintf(req[n++], 256,
             "{\"type\":\"challenge\",\"to\":\"bob\",\"variant\":\"alquerque\","
             "\"color\":\"white\"}");
    snprintf(req[n++], 256, "{\"type\":\"challenges\"}");
    snprintf(req[n++], 256, "{\"type\":\"resign\",\"game\":%lld}", f.gid);
    for (int i = 0; i < n; i++) {
        cJSON *r = hconn_rpc(c, "%s", req[i]);
        hj_assert_error(r, "unauthenticated", req[i]);
        cJSON_Delete(r);
    }
    hconn_close(c);
    hdb_counts(f.srv.db, &after);
    hdb_assert_counts_eq(&before, &after, "requests before login");
    expect_game_at(&f, 1);
    fx_end(&f);
}

Test(protocol, taken_username_is_a_conflict)
{
    fx f;
    fx_start(&f, 0);
    hcounts before, after;
    hdb_counts(f.srv.db, &before);
    hconn *c = hconn_open(f.srv.port);
    hconn_hello(c);
    cJSON *r =
        hconn_rpc(c, "{\"type\":\"register\",\"username\":\"alice\",\"password\":\"other\"}");
    hj_assert_error(r, "conflict", "register alice again");
    cJSON_Delete(r);
    /* schema.sql: names are unique without regard to case. */
    r = hconn_rpc(c, "{\"type\":\"register\",\"username\":\"ALICE\",\"password\":\"other\"}");
    hj_assert_error(r, "conflict", "register ALICE when alice exists");
    cJSON_Delete(r);
    hconn_close(c);
    hdb_counts(f.srv.db, &after);
    hdb_assert_counts_eq(&before, &after, "register of a taken name");
    /* The original account still logs in with its own password. */
    c = hconn_open(f.srv.port);
    hconn_hello(c);
    hconn_login(c, "alice", PW);
    hconn_close(c);
    fx_end(&f);
}

Test(protocol, wrong_password_and_unknown_user_look_the_same)
{
    fx f;
    fx_start(&f, 0);
    hcounts before, after;
    hdb_counts(f.srv.db, &before);
    hconn *c = hconn_open(f.srv.port);
    hconn_hello(c);
    cJSON *r1 = hconn_rpc(c, "{\"type\":\"login\",\"username\":\"alice\",\"password\":\"nope\"}");
    hj_assert_error(r1, "unauthenticated", "wrong password");
    cJSON *r2 =
        hconn_rpc(c, "{\"type\":\"login\",\"username\":\"nosuchuser\",\"password\":\"nope\"}");
    hj_assert_error(r2, "unauthenticated", "unknown user");
    cr_assert_str_eq(hj_str(r1, "message"), hj_str(r2, "message"),
                     "wrong password and unknown user must not be told apart");
    cJSON_Delete(r1);
    cJSON_Delete(r2);
    r1 = hconn_rpc(c, "{\"type\":\"login\",\"token\":\"%s\"}",
                   "0000000000000000000000000000000000000000000000000000000000000000");
    hj_assert_error(r1, "unauthenticated", "unknown token");
    cJSON_Delete(r1);
    /* Still not logged in. */
    r1 = hconn_rpc(c, "{\"type\":\"game\",\"game\":%lld}", f.gid);
    hj_assert_error(r1, "unauthenticated", "game after failed logins");
    cJSON_Delete(r1);
    hconn_close(c);
    hdb_counts(f.srv.db, &after);
    hdb_assert_counts_eq(&before, &after, "failed logins");
    fx_end(&f);
}

/* ---- the move checks, in PROTOCOL.md order ---------------------------------- */

Test(protocol, move_in_a_missing_game_is_not_found)
{
    fx f;
    fx_start(&f, 0);
    hcounts before, after;
    hdb_counts(f.srv.db, &before);
    cJSON *r = hconn_rpc(f.a, "{\"type\":\"move\",\"game\":%lld,\"ply\":0,\"move\":\"%s\"}",
                         f.gid + 1000, f.g->moves[0]);
    hj_assert_error(r, "not_found", "move in a missing game");
    cJSON_Delete(r);
    hdb_counts(f.srv.db, &after);
    hdb_assert_counts_eq(&before, &after, "not_found");
    fx_end(&f);
}

Test(protocol, move_in_someone_elses_game_is_forbidden)
{
    fx f;
    fx_start(&f, 2);
    hcounts before, after;
    hdb_counts(f.srv.db, &before);
    cJSON *r = hconn_rpc(f.c, "{\"type\":\"move\",\"game\":%lld,\"ply\":2,\"move\":\"%s\"}", f.gid,
                         f.g->moves[2]);
    hj_assert_error(r, "forbidden", "carol moves in alice v bob");
    cJSON_Delete(r);
    hdb_counts(f.srv.db, &after);
    hdb_assert_counts_eq(&before, &after, "forbidden");
    expect_game_at(&f, 2);
    fx_end(&f);
}

Test(protocol, move_out_of_turn)
{
    fx f;
    fx_start(&f, 2);
    hcounts before, after;
    hdb_counts(f.srv.db, &before);
    /* White to move at ply 2; bob (Black) tries the recorded move. */
    cJSON *r = hconn_rpc(waiter(&f), "{\"type\":\"move\",\"game\":%lld,\"ply\":2,\"move\":\"%s\"}",
                         f.gid, f.g->moves[2]);
    hj_assert_error(r, "not_your_turn", "move out of turn");
    cJSON_Delete(r);
    hdb_counts(f.srv.db, &after);
    hdb_assert_counts_eq(&before, &after, "not_your_turn");
    expect_game_at(&f, 2);
    fx_end(&f);
}

static bool legal_has(const cJSON *list, const char *mv)
{
    const cJSON *m;
    cJSON_ArrayForEach(m, list) if (cJSON_IsString(m) && !strcmp(m->valuestring, mv)) return true;
    return false;
}

Test(protocol, illegal_move_lists_the_legal_moves)
{
    fx f;
    fx_start(&f, 0);
    hcounts before, after;
    hdb_counts(f.srv.db, &before);
    /* Well-formed, but c3 is empty at the start (and a4-a5 is blocked). */
    static const char *bad[] = {"c3-c4", "a4-a5", "a1xa5"};
    const cJSON *want = cJSON_GetArrayItem(f.g->legal, 0);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cJSON *r = hconn_rpc(f.a, "{\"type\":\"move\",\"game\":%lld,\"ply\":0,\"move\":\"%s\"}",
                             f.gid, bad[i]);
        hj_assert_error(r, "illegal_move", bad[i]);
        const cJSON *lm = cJSON_GetObjectItemCaseSensitive(r, "legal_moves");
        cr_assert(cJSON_IsArray(lm), "illegal_move without legal_moves: %s", hj_text(r));
        cr_assert_eq(cJSON_GetArraySize(lm), cJSON_GetArraySize(want),
                     "legal_moves %s, recorded %s", hj_text(lm), hj_text(want));
        const cJSON *m;
        cJSON_ArrayForEach(m, want)
        {
            cr_assert(legal_has(lm, m->valuestring), "legal_moves %s lacks %s", hj_text(lm),
                      m->valuestring);
        }
        cJSON_Delete(r);
    }
    /* The same in the JSON path form. */
    cJSON *r = hconn_rpc(
        f.a, "{\"type\":\"move\",\"game\":%lld,\"ply\":0,\"move\":{\"path\":[\"c3\",\"c4\"]}}",
        f.gid);
    hj_assert_error(r, "illegal_move", "path c3 c4");
    cJSON_Delete(r);
    hdb_counts(f.srv.db, &after);
    hdb_assert_counts_eq(&before, &after, "illegal_move");
    expect_game_at(&f, 0);
    fx_end(&f);
}

Test(protocol, path_form_move_is_accepted)
{
    fx f;
    fx_start(&f, 0);
    /* The recorded first move as {"path": [from, to]}. */
    const char *mv = f.g->moves[0];
    char from[8], to[8];
    cr_assert_eq(sscanf(mv, "%7[a-z0-9]-%7[a-z0-9]", from, to), 2, "first move %s", mv);
    cJSON *r = hconn_rpc(
        f.a, "{\"type\":\"move\",\"game\":%lld,\"ply\":0,\"move\":{\"path\":[\"%s\",\"%s\"]}}",
        f.gid, from, to);
    hj_assert_ok(r, "path form move");
    const cJSON *mvs = cJSON_GetObjectItemCaseSensitive(hj_game(r), "moves");
    cr_assert_str_eq(cJSON_GetArrayItem(mvs, 0)->valuestring, mv, "stored as text: %s", hj_text(r));
    cJSON_Delete(r);
    fx_end(&f);
}

Test(protocol, stale_ply_reports_the_current_ply)
{
    fx f;
    fx_start(&f, 3);
    hcounts before, after;
    hdb_counts(f.srv.db, &before);
    int plies[] = {0, 1, 4, 40};
    for (size_t i = 0; i < sizeof plies / sizeof *plies; i++) {
        cJSON *r =
            hconn_rpc(mover(&f), "{\"type\":\"move\",\"game\":%lld,\"ply\":%d,\"move\":\"%s\"}",
                      f.gid, plies[i], f.g->moves[3]);
        char what[64];
        snprintf(what, sizeof what, "move at ply %d when the game is at 3", plies[i]);
        hj_assert_error(r, "stale_ply", what);
        cr_assert_eq(hj_int(r, "ply"), 3, "%s: %s", what, hj_text(r));
        cJSON_Delete(r);
    }
    /* The player who just moved, at the ply just played, with another move:
     * not a resend, so stale. */
    cJSON *r = hconn_rpc(waiter(&f), "{\"type\":\"move\",\"game\":%lld,\"ply\":2,\"move\":\"%s\"}",
                         f.gid, "a1-a2");
    hj_assert_error(r, "stale_ply", "another move at the ply just played");
    cr_assert_eq(hj_int(r, "ply"), 3, "%s", hj_text(r));
    cJSON_Delete(r);
    hdb_counts(f.srv.db, &after);
    hdb_assert_counts_eq(&before, &after, "stale_ply");
    expect_game_at(&f, 3);
    fx_end(&f);
}

Test(protocol, resent_move_is_a_duplicate_applied_once)
{
    fx f;
    fx_start(&f, 3);
    hcounts before, after;
    hdb_counts(f.srv.db, &before);
    hconn *last = waiter(&f); /* played ply 2 */
    hconn *other = mover(&f);
    /* Every event of the fixture's moves precedes this ping's reply. */
    ping_ok(other, "the fixture");
    hconn_drop_events(other);
    cJSON *r = hconn_rpc(last, "{\"type\":\"move\",\"game\":%lld,\"ply\":2,\"move\":\"%s\"}", f.gid,
                         f.g->moves[2]);
    hj_assert_ok(r, "resend of ply 2");
    const cJSON *dup = cJSON_GetObjectItemCaseSensitive(r, "duplicate");
    cr_assert(cJSON_IsTrue(dup), "resend without \"duplicate\": true: %s", hj_text(r));
    cr_assert_eq(hj_int(hj_game(r), "ply"), 3, "%s", hj_text(r));
    cJSON_Delete(r);
    /* Anything the resend pushed to the opponent precedes this reply. */
    ping_ok(other, "duplicate");
    cJSON *ev = hconn_event(other, "move", NULL, NULL, 0);
    cr_assert_null(ev, "the opponent got a second move event for a duplicate: %s", hj_text(ev));
    hdb_counts(f.srv.db, &after);
    hdb_assert_counts_eq(&before, &after, "duplicate move");
    expect_game_at(&f, 3);
    /* And the game goes on from ply 3. */
    fx_play(&f, 4);
    expect_game_at(&f, 4);
    fx_end(&f);
}

Test(protocol, move_in_a_finished_game_is_game_over)
{
    fx f;
    fx_start(&f, 0);
    fx_play(&f, f.g->nmoves);
    hcounts before, after;
    hdb_counts(f.srv.db, &before);
    int n = f.g->nmoves;
    cJSON *r = hconn_rpc(mover(&f), "{\"type\":\"move\",\"game\":%lld,\"ply\":%d,\"move\":\"%s\"}",
                         f.gid, n, "a1-a2");
    hj_assert_error(r, "game_over", "move after the end");
    cJSON_Delete(r);
    /* game_over is checked before the ply (PROTOCOL.md order), even for a
     * resend of the final move. */
    r = hconn_rpc(waiter(&f), "{\"type\":\"move\",\"game\":%lld,\"ply\":%d,\"move\":\"%s\"}", f.gid,
                  n - 1, f.g->moves[n - 1]);
    hj_assert_error(r, "game_over", "resend of the final move");
    cJSON_Delete(r);
    hdb_counts(f.srv.db, &after);
    hdb_assert_counts_eq(&before, &after, "game_over");
    expect_game_at(&f, n);
    fx_end(&f);
}

/* ---- adversarial framing (STYLE.md "Tests") -------------------------------- */

Test(protocol, request_sent_one_byte_at_a_time)
{
    fx f;
    fx_start(&f, 0);
    char line[256];
    int n =
        snprintf(line, sizeof line,
                 "{\"type\":\"move\",\"id\":\"split\",\"game\":%lld,\"ply\":0,\"move\":\"%s\"}\n",
                 f.gid, f.g->moves[0]);
    for (int i = 0; i < n; i++) {
        cr_assert_eq(hconn_send_raw(f.a, line + i, 1), 0, "closed after %d bytes", i);
        /* Nothing may be answered before the newline. */
        if (i + 1 < n) {
            cJSON *early = hconn_reply(f.a, 0);
            cr_assert_null(early, "reply after %d of %d bytes: %s", i + 1, n, hj_text(early));
        }
    }
    cJSON *r = hconn_reply(f.a, H_READ_TIMEOUT_MS);
    cr_assert_not_null(r, "no reply to a request sent byte by byte");
    hj_assert_ok(r, "move sent byte by byte");
    cr_assert_str_eq(hj_str(r, "id"), "split", "%s", hj_text(r));
    cJSON_Delete(r);
    expect_game_at(&f, 1);
    fx_end(&f);
}

Test(protocol, pipelined_requests_are_answered_in_order)
{
    fx f;
    fx_start(&f, 0);
    /* Twenty pings, an unknown op and a bad line in one write. */
    char buf[4096];
    size_t len = 0;
    for (int i = 0; i < 20; i++)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "{\"type\":\"ping\",\"id\":%d}\n",
                                1000 + i);
    len += (size_t)snprintf(buf + len, sizeof buf - len, "{\"type\":\"nope\",\"id\":2000}\n");
    len += (size_t)snprintf(buf + len, sizeof buf - len, "{bad\n{\"type\":\"ping\",\"id\":3000}\n");
    cr_assert_eq(hconn_send_raw(f.a, buf, len), 0);
    for (int i = 0; i < 20; i++) {
        cJSON *r = hconn_reply(f.a, H_READ_TIMEOUT_MS);
        hj_assert_ok(r, "pipelined ping");
        cr_assert_eq(hj_int(r, "id"), 1000 + i, "replies out of order: %s", hj_text(r));
        cJSON_Delete(r);
    }
    cJSON *r = hconn_reply(f.a, H_READ_TIMEOUT_MS);
    hj_assert_error(r, "unknown_op", "pipelined unknown op");
    cr_assert_eq(hj_int(r, "id"), 2000);
    cJSON_Delete(r);
    r = hconn_reply(f.a, H_READ_TIMEOUT_MS);
    hj_assert_error(r, "bad_json", "pipelined bad line");
    cJSON_Delete(r);
    r = hconn_reply(f.a, H_READ_TIMEOUT_MS);
    hj_assert_ok(r, "ping after a bad line");
    cr_assert_eq(hj_int(r, "id"), 3000);
    cJSON_Delete(r);
    fx_end(&f);
}

Test(protocol, one_mib_line_closes_only_that_connection)
{
    fx f;
    fx_start(&f, 0);
    hconn *c = hconn_open(f.srv.port);
    size_t n = 1024 * 1024;
    char *chunk = malloc(65536);
    cr_assert_not_null(chunk);
    memset(chunk, 'a', 65536);
    cJSON *r = NULL;
    for (size_t off = 0; off < n && !r; off += 65536) {
        if (hconn_send_raw(c, chunk, 65536) != 0)
            break;
        r = hconn_reply(c, 0);
    }
    free(chunk);
    if (!r)
        r = hconn_reply(c, H_READ_TIMEOUT_MS);
    hj_assert_error(r, "line_too_long", "1 MiB without a newline");
    cJSON_Delete(r);
    cr_assert(hconn_wait_eof(c, H_READ_TIMEOUT_MS), "connection left open after line_too_long");
    hconn_close(c);
    ping_ok(f.a, "another connection's 1 MiB line");
    ping_ok(f.b, "another connection's 1 MiB line");
    fx_end(&f);
}

Test(protocol, nesting_deeper_than_16_is_bad_request)
{
    fx f;
    fx_start(&f, 0);
    char line[512];
    /* 16 levels in all (the request object is level 1): accepted. */
    int k = snprintf(line, sizeof line, "{\"type\":\"ping\",\"id\":5,\"x\":");
    for (int i = 0; i < 15; i++)
        line[k++] = '[';
    for (int i = 0; i < 15; i++)
        line[k++] = ']';
    snprintf(line + k, sizeof line - (size_t)k, "}");
    cJSON *r = hconn_raw_reply(f.a, line, H_READ_TIMEOUT_MS);
    hj_assert_ok(r, "16 levels of nesting");
    cJSON_Delete(r);
    /* 17 levels. */
    k = snprintf(line, sizeof line, "{\"type\":\"ping\",\"id\":6,\"x\":");
    for (int i = 0; i < 16; i++)
        line[k++] = '[';
    for (int i = 0; i < 16; i++)
        line[k++] = ']';
    snprintf(line + k, sizeof line - (size_t)k, "}");
    r = hconn_raw_reply(f.a, line, H_READ_TIMEOUT_MS);
    hj_assert_error(r, "bad_request", "17 levels of nesting");
    cJSON_Delete(r);
    /* 10,000 levels: an error, not a crash. */
    size_t big = 20000 + 64;
    char *deep = malloc(big);
    cr_assert_not_null(deep);
    k = snprintf(deep, big, "{\"type\":\"ping\",\"id\":7,\"x\":");
    for (int i = 0; i < 10000; i++)
        deep[k++] = '[';
    for (int i = 0; i < 10000; i++)
        deep[k++] = ']';
    snprintf(deep + k, big - (size_t)k, "}");
    r = hconn_raw_reply(f.a, deep, H_READ_TIMEOUT_MS);
    free(deep);
    cr_assert_not_null(r, "no reply to 10,000 levels of nesting");
    const char *code = hj_str(r, "code");
    cr_assert(code && (!strcmp(code, "bad_request") || !strcmp(code, "bad_json")),
              "10,000 levels: %s", hj_text(r));
    cJSON_Delete(r);
    ping_ok(f.a, "deep nesting");
    fx_end(&f);
}

Test(protocol, hello_lists_the_variants_and_limits)
{
    hsrv srv;
    hsrv_start(&srv);
    hconn *c = hconn_open(srv.port);
    cJSON *r = hconn_rpc(c, "{\"type\":\"hello\",\"version\":1,\"client\":\"qk-integration\"}");
    hj_assert_ok(r, "hello");
    cr_assert_not_null(hj_str(r, "server"), "%s", hj_text(r));
    hj_int(r, "version");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, "variants");
    cr_assert(cJSON_IsArray(v), "%s", hj_text(r));
    static const char *names[] = {"alquerque",
                                  "alquerque-traditional",
                                  "alquerque-brainking",
                                  "alquerque-stoep-short",
                                  "alquerque-stoep-long",
                                  "alquerkonane-8x8",
                                  "alquerkonane-6x4"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        bool found = false;
        const cJSON *e;
        cJSON_ArrayForEach(e, v) if (cJSON_IsString(e) && !strcmp(e->valuestring, names[i])) found =
            true;
        cr_assert(found, "hello variants lack %s: %s", names[i], hj_text(v));
    }
    cr_assert(cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(r, "limits")), "%s", hj_text(r));
    cJSON_Delete(r);
    hconn_close(c);
    hsrv_stop(&srv);
    h_pass();
}

/* PROTOCOL.md: conflict for "challenge already accepted". */
Test(protocol, accepting_twice_is_a_conflict)
{
    fx f;
    fx_start(&f, 0);
    cJSON *r = hconn_rpc(f.a, "{\"type\":\"challenge\",\"to\":\"bob\",\"variant\":\"alquerque\","
                              "\"color\":\"white\"}");
    hj_assert_ok(r, "challenge");
    long long cid = hj_int(cJSON_GetObjectItemCaseSensitive(r, "challenge"), "id");
    cJSON_Delete(r);
    r = hconn_rpc(f.b, "{\"type\":\"accept\",\"challenge\":%lld}", cid);
    hj_assert_ok(r, "accept");
    cJSON_Delete(r);
    hcounts before, after;
    hdb_counts(f.srv.db, &before);
    r = hconn_rpc(f.b, "{\"type\":\"accept\",\"challenge\":%lld}", cid);
    hj_assert_error(r, "conflict", "second accept");
    cJSON_Delete(r);
    hdb_counts(f.srv.db, &after);
    hdb_assert_counts_eq(&before, &after, "second accept");
    fx_end(&f);
}
