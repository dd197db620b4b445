/*
 * Commits made durable off the loop (issue 16; store.h store_async_start,
 * net/conn.h "Durability epochs"): while the writer thread's fsync stalls
 * (QK_FAULT_FSYNC_MS), the answer that depends on it waits, and a request
 * on another connection that depends on no write is answered at once; the
 * acknowledgement still comes only after the fsync.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "helper.h"

static tsrv S;

/* Log c in by token; the answer may wait for a stalled fsync. */
static void login_slow(tconn *c, const char *token)
{
    cr_assert(tc_sendf(c, "{\"type\":\"login\",\"id\":1,\"token\":\"%s\"}\n", token));
    cJSON *r = tc_reply(c, 6 * T_TIMEOUT_MS);
    t_ok(r, "login");
    cJSON_Delete(r);
}

static void token_of(tconn *c, const char *user, char out[80])
{
    cJSON *r = tc_rpc(c, "{\"type\":\"register\",\"username\":\"%s\",\"password\":\"" T_PW "\"}",
                      user);
    t_ok(r, "register");
    snprintf(out, 80, "%s", t_str(r, "token"));
    cJSON_Delete(r);
}

Test(durable, a_stalled_fsync_holds_only_the_answers_that_depend_on_it, .timeout = 120)
{
    /* The game is set up at full speed, then the server restarts with a
     * 3 s stall per fsync: far longer than anything else here takes, so
     * the order of the answers proves what waited for what. */
    tsrv_start(&S, NULL);
    tconn *a = tc_open(S.port), *b = tc_open(S.port), *c = tc_open(S.port);
    char ta[80], tb[80], tcar[80];
    token_of(a, "alice", ta);
    token_of(b, "bob", tb);
    token_of(c, "carol", tcar);
    tc_close(c);
    long long gid = t_new_game(a, b, "bob", "alquerque");
    cJSON *g = tc_rpc(a, "{\"type\":\"game\",\"game\":%lld}", gid);
    char move[32];
    snprintf(move, sizeof move, "%s",
             cJSON_GetArrayItem(t_obj(t_obj(g, "game"), "legal_moves"), 0)->valuestring);
    cJSON_Delete(g);
    tc_close(a);
    tc_close(b);
    tsrv_stop(&S);
    tsrv_restart(&S, "QK_FAULT_FSYNC_MS=3000");
    a = tc_open(S.port);
    b = tc_open(S.port);
    tconn *p = tc_open(S.port);
    c = tc_open(S.port);
    login_slow(a, ta);
    login_slow(b, tb);
    login_slow(c, tcar);
    tc_drop_events(a);
    tc_drop_events(b);
    cr_assert(tc_sendf(a, "{\"type\":\"move\",\"id\":77,\"game\":%lld,\"ply\":0,\"move\":\"%s\"}\n",
                       gid, move));
    /* The move is staged and committed in the loop turn that reads it;
     * its answer and its event now wait for the writer's fsync. A ping
     * elsewhere is answered at once: */
    cJSON *r = tc_rpc(p, "{\"type\":\"ping\"}");
    t_ok(r, "ping during the stalled fsync");
    cJSON_Delete(r);
    cr_assert_null(tc_event(b, "move", 0), "the opponent's move event must wait for its fsync");
    cr_assert_null(tc_reply(a, 0), "the move's answer must wait for its fsync");
    /* A third party reading the game after the commit, with no write of
     * its own: it must not see the move before it is on disk either. */
    cr_assert(tc_sendf(c, "{\"type\":\"game\",\"id\":5,\"game\":%lld}\n", gid));
    cr_assert_null(tc_reply(c, 500), "a read must not show the move before its fsync");
    r = tc_reply(a, 6 * T_TIMEOUT_MS);
    t_ok(r, "the move, once durable");
    cr_assert_eq(t_int(r, "id"), 77);
    cJSON_Delete(r);
    cJSON *ev = tc_event(b, "move", 6 * T_TIMEOUT_MS);
    cr_assert_not_null(ev, "bob sees the move once it is durable");
    cJSON_Delete(ev);
    r = tc_reply(c, 6 * T_TIMEOUT_MS);
    t_ok(r, "carol's read, once the move is durable");
    cr_assert_eq(t_int(t_obj(r, "game"), "ply"), 1);
    cJSON_Delete(r);
    tc_close(a);
    tc_close(b);
    tc_close(c);
    tc_close(p);
    tsrv_stop(&S);
    tsrv_cleanup(&S);
}

Test(durable, a_stop_waits_for_the_last_fsync, .timeout = 60)
{
    tsrv_start(&S, "QK_FAULT_FSYNC_MS=500");
    tconn *a = tc_open(S.port);
    t_register(a, "alice");
    tc_close(a);
    /* SIGTERM right after: the stop commits last_alive and exits 0 only
     * once the writer has made it durable (tsrv_stop asserts exit 0). */
    tsrv_stop(&S);
    tsrv_restart(&S, NULL);
    a = tc_open(S.port);
    cJSON *r = tc_rpc(a, "{\"type\":\"login\",\"username\":\"alice\",\"password\":\"" T_PW "\"}");
    t_ok(r, "the account registered before the stop is there");
    cJSON_Delete(r);
    tc_close(a);
    tsrv_stop(&S);
    tsrv_cleanup(&S);
}
