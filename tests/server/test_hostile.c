/*
 * Hostile load (issue 9): what one account or one address can do to the
 * others, reproduced against the real server.
 *   - a request's own answer is never dropped for the output cap (conn.h
 *     "Backpressure"): the cap is for events;
 *   - connections are capped per address (QK_MAX_CONNS_PER_ADDRESS) and
 *     per account (QK_MAX_CONNS_PER_ACCOUNT), answered server_busy;
 *   - a connection that logs out or in as someone else no longer gets the
 *     events of a private game it watched (fanout.h re-checks at delivery).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helper.h"

static tsrv S;

static void stop(void)
{
    tsrv_stop(&S);
    tsrv_cleanup(&S);
}

Test(hostile, an_answer_over_the_output_cap_is_still_delivered, .timeout = 60)
{
    /* A 4 KiB cap: one game object with its legal moves is about 500 bytes, so
     * a listing of sixteen games is over the cap on its own. */
    tsrv_start(&S, "QK_OUT_LIMIT=4096");
    tconn *a = tc_open(S.port), *b = tc_open(S.port);
    t_register(a, "alice");
    t_register(b, "bob");
    for (int i = 0; i < 16; i++)
        t_new_game(a, b, "bob", "alquerque");
    tc_sync(a);
    /* Pipelined in one write: the ping's answer is pending when the big
     * listing is queued behind it. Before the fix the connection was
     * closed and both answers lost. */
    const char *two = "{\"type\":\"ping\",\"id\":1}\n{\"type\":\"games\",\"id\":2,\"limit\":200}\n";
    cr_assert(tc_send(a, two, strlen(two)));
    cJSON *r1 = tc_reply(a, T_TIMEOUT_MS), *r2 = tc_reply(a, T_TIMEOUT_MS);
    t_ok(r1, "ping");
    t_ok(r2, "games");
    cr_assert_eq(t_int(r1, "id"), 1);
    cr_assert_eq(cJSON_GetArraySize(t_obj(r2, "games")), 16);
    char *text = cJSON_PrintUnformatted(r2);
    cr_assert_gt(strlen(text), 4096, "the listing must be over the cap to prove anything");
    free(text);
    cJSON_Delete(r1);
    cJSON_Delete(r2);
    /* The connection is still usable. */
    cJSON *r = tc_rpc(a, "{\"type\":\"ping\"}");
    t_ok(r, "ping after the big answer");
    cJSON_Delete(r);
    tc_close(a);
    tc_close(b);
    stop();
}

Test(hostile, connections_per_address_are_capped, .timeout = 60)
{
    tsrv_start(&S, "QK_MAX_CONNS_PER_ADDRESS=3");
    tconn *c[3];
    for (int i = 0; i < 3; i++) {
        c[i] = tc_open(S.port);
        cJSON *r = tc_rpc(c[i], "{\"type\":\"hello\"}");
        t_ok(r, "hello within the cap");
        cJSON_Delete(r);
    }
    tconn *extra = tc_open(S.port);
    cJSON *e = tc_read(extra, T_TIMEOUT_MS);
    t_err(e, "server_busy", "the fourth connection from 127.0.0.1");
    cr_assert_str_eq(t_str(e, "message"), "too many connections from your address");
    cJSON_Delete(e);
    cr_assert(tc_wait_eof(extra, T_TIMEOUT_MS));
    tc_close(extra);
    /* A closed connection frees its place. */
    tc_close(c[0]);
    tconn *again = NULL;
    for (int tries = 0; tries < 50 && !again; tries++) {
        tconn *t = tc_open(S.port);
        cr_assert(tc_sendf(t, "{\"type\":\"hello\",\"id\":1}\n"));
        cJSON *r = tc_read(t, T_TIMEOUT_MS);
        bool ok = r && strcmp(t_str(r, "type"), "ok") == 0;
        cJSON_Delete(r);
        if (ok) {
            again = t;
        } else {
            tc_close(t); /* the close of c[0] was not seen yet */
            usleep(20000);
        }
    }
    cr_assert_not_null(again, "a place freed by a close is given again");
    tc_close(again);
    tc_close(c[1]);
    tc_close(c[2]);
    stop();
}

Test(hostile, connections_per_account_are_capped, .timeout = 60)
{
    tsrv_start(&S, "QK_MAX_CONNS_PER_ACCOUNT=2");
    tconn *a = tc_open(S.port);
    cJSON *r = tc_rpc(a, "{\"type\":\"register\",\"username\":\"alice\",\"password\":\"" T_PW "\"}");
    t_ok(r, "register");
    char token[80];
    snprintf(token, sizeof token, "%s", t_str(r, "token"));
    cJSON_Delete(r);
    tconn *b = tc_open(S.port), *c = tc_open(S.port);
    r = tc_rpc(b, "{\"type\":\"login\",\"token\":\"%s\"}", token);
    t_ok(r, "second connection of alice");
    cJSON_Delete(r);
    long long tokens = t_db_count(S.db, "tokens");
    r = tc_rpc(c, "{\"type\":\"login\",\"token\":\"%s\"}", token);
    t_err(r, "server_busy", "third connection of alice by token");
    cr_assert_str_eq(t_str(r, "message"),
                     "this account already has 2 connections: close one first");
    cJSON_Delete(r);
    r = tc_rpc(c, "{\"type\":\"login\",\"username\":\"alice\",\"password\":\"" T_PW "\"}");
    t_err(r, "server_busy", "third connection of alice by password");
    cJSON_Delete(r);
    cr_assert_eq(t_db_count(S.db, "tokens"), tokens, "a refused login stores no token");
    /* Logging in again on a connection that already is alice is fine. */
    r = tc_rpc(b, "{\"type\":\"login\",\"token\":\"%s\"}", token);
    t_ok(r, "alice again on her own connection");
    cJSON_Delete(r);
    /* Another account is not affected. */
    t_register(c, "bob");
    tc_close(a);
    tconn *d = tc_open(S.port);
    bool in = false;
    for (int tries = 0; tries < 50 && !in; tries++) {
        r = tc_rpc(d, "{\"type\":\"login\",\"token\":\"%s\"}", token);
        in = strcmp(t_str(r, "type"), "ok") == 0;
        cJSON_Delete(r);
    }
    cr_assert(in, "a closed connection frees the account's place");
    tc_close(b);
    tc_close(c);
    tc_close(d);
    stop();
}

/* alice (white) and bob play a private game; connection w logged in as
 * alice watches it; then w becomes someone else. */
static void private_watch(bool logout)
{
    tsrv_start(&S, NULL);
    tconn *a = tc_open(S.port), *b = tc_open(S.port), *w = tc_open(S.port);
    cJSON *r = tc_rpc(a, "{\"type\":\"register\",\"username\":\"alice\",\"password\":\"" T_PW "\"}");
    t_ok(r, "register");
    char token[80];
    snprintf(token, sizeof token, "%s", t_str(r, "token"));
    cJSON_Delete(r);
    t_register(b, "bob");
    r = tc_rpc(a, "{\"type\":\"challenge\",\"to\":\"bob\",\"color\":\"white\",\"private\":true}");
    t_ok(r, "challenge");
    long long cid = t_int(t_obj(r, "challenge"), "id");
    cJSON_Delete(r);
    r = tc_rpc(b, "{\"type\":\"accept\",\"challenge\":%lld}", cid);
    t_ok(r, "accept");
    long long gid = t_int(t_obj(r, "game"), "id");
    const char *first = cJSON_GetArrayItem(t_obj(t_obj(r, "game"), "legal_moves"), 0)->valuestring;
    char move[32];
    snprintf(move, sizeof move, "%s", first);
    cJSON_Delete(r);
    r = tc_rpc(w, "{\"type\":\"login\",\"token\":\"%s\"}", token);
    t_ok(r, "w is alice");
    cJSON_Delete(r);
    r = tc_rpc(w, "{\"type\":\"subscribe\",\"game\":%lld}", gid);
    t_ok(r, "alice watches her private game");
    cJSON_Delete(r);
    if (logout) {
        r = tc_rpc(w, "{\"type\":\"logout\"}");
        t_ok(r, "logout");
    } else {
        r = tc_rpc(w, "{\"type\":\"register\",\"username\":\"carol\",\"password\":\"" T_PW "\"}");
        t_ok(r, "w is carol now");
    }
    cJSON_Delete(r);
    tc_sync(w);
    r = tc_rpc(a, "{\"type\":\"move\",\"game\":%lld,\"ply\":0,\"move\":\"%s\"}", gid, move);
    t_ok(r, "alice moves");
    cJSON_Delete(r);
    cJSON *seen = tc_event(b, "move", T_TIMEOUT_MS);
    cr_assert_not_null(seen, "bob, a player, sees the move");
    cJSON_Delete(seen);
    cr_assert_null(tc_event(w, "move", 500), "w is no longer a player: no move event");
    cJSON_Delete(tc_event(w, "game_end", 1));
    tc_close(a);
    tc_close(b);
    tc_close(w);
    stop();
}

Test(hostile, a_watcher_that_logs_in_as_another_user_loses_a_private_game, .timeout = 60)
{
    private_watch(false);
}

Test(hostile, a_watcher_that_logs_out_loses_a_private_game, .timeout = 60)
{
    private_watch(true);
}
