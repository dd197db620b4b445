/*
 * Items from user testing: illegal_move says why (not move text, capture
 * compulsory, not legal here); declined challenges and draw offers reach
 * the other side as notifications; challenge objects mark bots; an idle
 * connection that never logs in is closed. Refused input changes no row.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helper.h"

static tsrv S;
static tconn *A, *B; /* alice, bob: logged in */

static void setup(void)
{
    tsrv_start(&S, NULL);
    A = tc_open(S.port);
    B = tc_open(S.port);
    t_register(A, "alice");
    t_register(B, "bob");
}

static void teardown(void)
{
    if (A)
        tc_close(A);
    if (B)
        tc_close(B);
    A = B = NULL;
    tsrv_stop(&S);
    tsrv_cleanup(&S);
}

TestSuite(feedback, .init = setup, .fini = teardown, .timeout = 60);

/* alice (white) v bob from position pos; the game id. */
static long long game_from(const char *variant, const char *pos)
{
    cJSON *r = tc_rpc(A,
                      "{\"type\":\"challenge\",\"to\":\"bob\",\"variant\":\"%s\","
                      "\"color\":\"white\",\"position\":\"%s\"}",
                      variant, pos);
    t_ok(r, "challenge");
    long long cid = t_int(t_obj(r, "challenge"), "id");
    cJSON_Delete(r);
    r = tc_rpc(B, "{\"type\":\"accept\",\"challenge\":%lld}", cid);
    t_ok(r, "accept");
    long long gid = t_int(t_obj(r, "game"), "id");
    cJSON_Delete(r);
    tc_sync(A);
    tc_sync(B);
    return gid;
}

/* Play move (a JSON value) in gid as alice: illegal_move with message
 * want and legal moves nlegal; the database is unchanged. */
static void refused(long long gid, const char *move, const char *want, int nlegal)
{
    char *before = t_db_dump(S.db);
    cJSON *r = tc_rpc(A, "{\"type\":\"move\",\"game\":%lld,\"ply\":0,\"move\":%s}", gid, move);
    t_err(r, "illegal_move", move);
    cr_assert_str_eq(t_str(r, "message"), want, "%s: %s", move, t_text(r));
    cr_assert_eq(cJSON_GetArraySize(t_obj(r, "legal_moves")), nlegal, "%s", t_text(r));
    cJSON_Delete(r);
    char *after = t_db_dump(S.db);
    cr_assert_str_eq(after, before, "a refused move changed the database");
    free(before);
    free(after);
}

/* White c3 facing black c4 with c5 empty: c3xc5 is the only capture;
 * a1 and e1 can step. */
#define CAPTURE_POS "...../..b../..w../...../w...w w 0 -"

Test(feedback, illegal_move_says_why)
{
    long long g = game_from("alquerque", CAPTURE_POS);
    const char *comp = "capture is compulsory in this variant (RULES.md section 3)";
    refused(g, "\"a1-a2\"", comp, 1);
    refused(g, "{\"path\":[\"e1\",\"d2\"]}", comp, 1);
    refused(g, "\"c3-c4\"", comp, 1); /* any step: c4 being taken does not matter */
    refused(g, "\"a1-a3\"", "not a legal move here", 1); /* two points apart: no step */
    refused(g, "\"c3xe5\"", "not a legal move here", 1);
    refused(g, "\"zz\"", "not move text for this board: \"zz\"", 1);
    refused(g, "\"\"", "not move text for this board: \"\"", 1);
    refused(g, "\"a1-a2-a3\"", "not move text for this board: \"a1-a2-a3\"", 1);
    refused(g, "{\"path\":[\"z9\",\"c4\"]}", "not move text for this board: \"z9\" is not a point",
            1);
    /* A long text is cut, never split inside a character. */
    char longtext[300], want[200];
    memset(longtext, 0, sizeof longtext);
    strcpy(longtext, "\"");
    for (int i = 0; i < 40; i++)
        strcat(longtext, "\xc3\xa9"); /* é */
    strcat(longtext, "\"");
    snprintf(want, sizeof want, "not move text for this board: \"");
    for (int i = 0; i < 34; i++)
        strcat(want, "\xc3\xa9");
    strcat(want, "...\"");
    refused(g, longtext, want, 1);

    /* BrainKing: compulsory too, section 5. */
    long long gb = game_from("alquerque-brainking", CAPTURE_POS);
    refused(gb, "\"a1-a2\"", "capture is compulsory in this variant (RULES.md section 5)", 1);

    /* Traditional: capture is optional, so the same step is legal; an
     * impossible step is just not legal. */
    long long gt = game_from("alquerque-traditional", CAPTURE_POS);
    refused(gt, "\"a2-a3\"", "not a legal move here", 14); /* no piece on a2 */
    cJSON *r = tc_rpc(A, "{\"type\":\"move\",\"game\":%lld,\"ply\":0,\"move\":\"a1-a2\"}", gt);
    t_ok(r, "a step where capture is optional");
    cJSON_Delete(r);

    /* Kawu start: no capture at all, so a wrong step is not legal here. */
    long long gk = t_new_game(A, B, "bob", "alquerque");
    tc_sync(A);
    refused(gk, "\"c3-c4\"", "not a legal move here", 4);
}

/* The notification of kind in an object's "notifications" list, or NULL. */
static const cJSON *note_of(const cJSON *res, const char *kind)
{
    const cJSON *n;
    cJSON_ArrayForEach(n, t_obj(res, "notifications"))
    {
        if (strcmp(t_str(n, "kind"), kind) == 0)
            return n;
    }
    return NULL;
}

Test(feedback, a_declined_challenge_notifies_the_challenger_also_offline)
{
    cJSON *r = tc_rpc(A, "{\"type\":\"challenge\",\"to\":\"bob\",\"variant\":\"alquerque\"}");
    t_ok(r, "challenge");
    long long cid = t_int(t_obj(r, "challenge"), "id");
    cJSON_Delete(r);
    /* Online: pushed at once. */
    r = tc_rpc(B, "{\"type\":\"decline\",\"challenge\":%lld}", cid);
    t_ok(r, "decline");
    cJSON_Delete(r);
    cJSON *ev = tc_event(A, "notification", T_TIMEOUT_MS);
    cr_assert_not_null(ev);
    const cJSON *n = t_obj(ev, "notification");
    cr_assert_str_eq(t_str(n, "kind"), "challenge_declined", "%s", t_text(ev));
    cr_assert_eq(t_int(n, "challenge"), cid);
    cr_assert_str_eq(t_str(n, "by"), "bob");
    cr_assert_str_eq(t_str(n, "reason"), "generic");
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(n, "game")));
    cr_assert_null(cJSON_GetObjectItem(n, "message"));
    cJSON_Delete(ev);

    /* Offline: waits for the next login, with the reason and message. */
    r = tc_rpc(A, "{\"type\":\"challenge\",\"to\":\"bob\",\"variant\":\"alquerque\"}");
    t_ok(r, "challenge");
    cid = t_int(t_obj(r, "challenge"), "id");
    cJSON_Delete(r);
    tc_close(A);
    A = NULL;
    r = tc_rpc(B,
               "{\"type\":\"decline\",\"challenge\":%lld,\"reason\":\"variant\","
               "\"message\":\"kawu only\"}",
               cid);
    t_ok(r, "decline");
    cJSON_Delete(r);
    /* Nothing of the decline goes to bob as a notification. */
    r = tc_rpc(B, "{\"type\":\"notifications\",\"unread\":true}");
    t_ok(r, "bob's notifications");
    cr_assert_null(note_of(r, "challenge_declined"), "%s", t_text(r));
    cJSON_Delete(r);
    A = tc_open(S.port);
    r = tc_rpc(A, "{\"type\":\"login\",\"username\":\"alice\",\"password\":\"" T_PW "\"}");
    t_ok(r, "login");
    n = note_of(r, "challenge_declined");
    cr_assert_not_null(n, "%s", t_text(r));
    /* The online one was pushed but not read: both are listed, the newer last. */
    const cJSON *last = NULL, *k;
    int count = 0;
    cJSON_ArrayForEach(k, t_obj(r, "notifications"))
    {
        if (strcmp(t_str(k, "kind"), "challenge_declined") == 0) {
            last = k;
            count++;
        }
    }
    cr_assert_eq(count, 2, "%s", t_text(r));
    cr_assert_eq(t_int(last, "challenge"), cid);
    cr_assert_str_eq(t_str(last, "by"), "bob");
    cr_assert_str_eq(t_str(last, "reason"), "variant");
    cr_assert_str_eq(t_str(last, "message"), "kawu only");
    cJSON_Delete(r);

    /* A cancel notifies nobody; a refused decline stores nothing. */
    r = tc_rpc(A, "{\"type\":\"challenge\",\"to\":\"bob\",\"variant\":\"alquerque\"}");
    t_ok(r, "challenge");
    cid = t_int(t_obj(r, "challenge"), "id");
    cJSON_Delete(r);
    long long notes = t_db_count(S.db, "notifications");
    char *before = t_db_dump(S.db);
    r = tc_rpc(B, "{\"type\":\"decline\",\"challenge\":%lld,\"reason\":\"nope\"}", cid);
    t_err(r, "bad_request", "unknown reason");
    cJSON_Delete(r);
    r = tc_rpc(A, "{\"type\":\"decline\",\"challenge\":%lld}", cid);
    t_err(r, "forbidden", "declining one's own challenge");
    cJSON_Delete(r);
    char *after = t_db_dump(S.db);
    cr_assert_str_eq(after, before, "a refused decline changed the database");
    free(before);
    free(after);
    cr_assert_eq(t_db_count(S.db, "notifications"), notes);
    r = tc_rpc(A, "{\"type\":\"cancel\",\"challenge\":%lld}", cid);
    t_ok(r, "cancel");
    cJSON_Delete(r);
    /* ... and withdraws bob's unread notice of it (issue 21). */
    cr_assert_eq(t_db_count(S.db, "notifications"), notes - 1);
}

Test(feedback, a_declined_draw_offer_notifies_the_offerer)
{
    long long gid = t_new_game(A, B, "bob", "alquerque");
    tc_sync(A);
    cJSON *r = tc_rpc(A, "{\"type\":\"draw\",\"game\":%lld,\"action\":\"offer\"}", gid);
    t_ok(r, "offer");
    cJSON_Delete(r);
    tc_sync(A);
    r = tc_rpc(B, "{\"type\":\"draw\",\"game\":%lld,\"action\":\"decline\"}", gid);
    t_ok(r, "decline");
    cJSON_Delete(r);
    cJSON *ev = tc_event(A, "notification", T_TIMEOUT_MS);
    cr_assert_not_null(ev);
    const cJSON *n = t_obj(ev, "notification");
    cr_assert_str_eq(t_str(n, "kind"), "draw_declined", "%s", t_text(ev));
    cr_assert_eq(t_int(n, "game"), gid);
    cr_assert_str_eq(t_str(n, "opponent"), "bob");
    cJSON_Delete(ev);
    /* Stored for alice only. */
    r = tc_rpc(B, "{\"type\":\"notifications\"}");
    t_ok(r, "bob's notifications");
    cr_assert_null(note_of(r, "draw_declined"));
    cJSON_Delete(r);
    r = tc_rpc(A, "{\"type\":\"notifications\",\"unread\":true}");
    t_ok(r, "alice's notifications");
    cr_assert_not_null(note_of(r, "draw_declined"), "%s", t_text(r));
    cJSON_Delete(r);
    /* A decline with no offer standing is refused and stores nothing. */
    long long notes = t_db_count(S.db, "notifications");
    char *before = t_db_dump(S.db);
    r = tc_rpc(A, "{\"type\":\"draw\",\"game\":%lld,\"action\":\"decline\"}", gid);
    t_err(r, "conflict", "no offer");
    cJSON_Delete(r);
    char *after = t_db_dump(S.db);
    cr_assert_str_eq(after, before, "a refused decline changed the database");
    cr_assert_eq(t_db_count(S.db, "notifications"), notes);
    free(before);
    free(after);
}

Test(feedback, challenge_objects_mark_bots)
{
    tconn *bot = tc_open(S.port);
    cJSON *r = tc_rpc(bot, "{\"type\":\"register\",\"username\":\"robo\",\"password\":\"" T_PW
                           "\",\"bot\":true}");
    t_ok(r, "register bot");
    cJSON_Delete(r);
    r = tc_rpc(A, "{\"type\":\"challenge\",\"to\":\"robo\"}");
    t_ok(r, "challenge to a bot");
    const cJSON *c = t_obj(r, "challenge");
    cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(c, "from_bot")), "%s", t_text(r));
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(c, "to_bot")), "%s", t_text(r));
    cJSON_Delete(r);
    r = tc_rpc(bot, "{\"type\":\"challenge\",\"to\":\"bob\"}");
    t_ok(r, "challenge from a bot");
    c = t_obj(r, "challenge");
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(c, "from_bot")), "%s", t_text(r));
    cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(c, "to_bot")), "%s", t_text(r));
    cJSON_Delete(r);
    r = tc_rpc(bot, "{\"type\":\"challenge\"}");
    t_ok(r, "open seek from a bot");
    c = t_obj(r, "challenge");
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(c, "from_bot")), "%s", t_text(r));
    cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(c, "to_bot")), "%s", t_text(r));
    cJSON_Delete(r);
    /* Read back from the database: the listing says the same. */
    r = tc_rpc(B, "{\"type\":\"challenges\"}");
    t_ok(r, "challenges");
    int bots = 0;
    const cJSON *k;
    cJSON_ArrayForEach(k, t_obj(r, "challenges"))
    {
        cr_assert_not_null(cJSON_GetObjectItem(k, "from_bot"), "%s", t_text(r));
        cr_assert_not_null(cJSON_GetObjectItem(k, "to_bot"), "%s", t_text(r));
        bots += cJSON_IsTrue(cJSON_GetObjectItem(k, "from_bot"));
    }
    cr_assert_eq(bots, 2, "%s", t_text(r));
    cJSON_Delete(r);
    tc_close(bot);
}

Test(feedback, a_connection_that_does_not_log_in_is_closed)
{
    tsrv lt;
    tsrv_start(&lt, "QK_LOGIN_TIMEOUT_MS=300");
    tconn *idle = tc_open(lt.port), *user = tc_open(lt.port);
    t_register(user, "carol");
    cJSON *r = tc_read(idle, 3000);
    cr_assert_not_null(r, "an error before the close");
    cr_assert_str_eq(t_text(r), "{\"type\":\"error\",\"code\":\"unauthenticated\","
                                "\"message\":\"log in within 300 ms\"}");
    cJSON_Delete(r);
    cr_assert(tc_wait_eof(idle, 3000), "closed");
    /* The one that logged in stays, also after logging out. */
    r = tc_rpc(user, "{\"type\":\"logout\"}");
    t_ok(r, "logout");
    cJSON_Delete(r);
    cr_assert_null(tc_read(user, 800), "nothing but heartbeats");
    r = tc_rpc(user, "{\"type\":\"ping\"}");
    t_ok(r, "still open");
    cJSON_Delete(r);
    tc_close(idle);
    tc_close(user);
    tsrv_stop(&lt);
    tsrv_cleanup(&lt);
}
