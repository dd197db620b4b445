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

Test(durable, a_stalled_fsync_holds_only_the_answers_that_depend_on_it, .timeout = 60)
{
    /* A 1 s stall: far longer than anything else here takes, so the order
     * of the answers proves what waited for what. */
    tsrv_start(&S, "QK_FAULT_FSYNC_MS=1000");
    tconn *a = tc_open(S.port), *b = tc_open(S.port), *p = tc_open(S.port);
    t_register(a, "alice");
    t_register(b, "bob");
    long long gid = t_new_game(a, b, "bob", "alquerque");
    cJSON *g = tc_rpc(a, "{\"type\":\"game\",\"game\":%lld}", gid);
    char move[32];
    snprintf(move, sizeof move, "%s",
             cJSON_GetArrayItem(t_obj(t_obj(g, "game"), "legal_moves"), 0)->valuestring);
    cJSON_Delete(g);
    tc_drop_events(b);
    cr_assert(tc_sendf(a, "{\"type\":\"move\",\"id\":77,\"game\":%lld,\"ply\":0,\"move\":\"%s\"}\n",
                       gid, move));
    /* The move is staged and committed in the loop turn that reads it;
     * its answer now waits for the writer's fsync. A ping elsewhere: */
    cJSON *r = tc_rpc(p, "{\"type\":\"ping\"}");
    t_ok(r, "ping during the stalled fsync");
    cJSON_Delete(r);
    cr_assert_null(tc_reply(a, 0), "the move's answer must wait for its fsync");
    cr_assert_null(tc_event(b, "move", 0), "so must the opponent's move event");
    /* Other fsyncs (1 s each) may be queued in front of the move's. */
    r = tc_reply(a, 4 * T_TIMEOUT_MS);
    t_ok(r, "the move, once durable");
    cr_assert_eq(t_int(r, "id"), 77);
    cJSON_Delete(r);
    cJSON *ev = tc_event(b, "move", 4 * T_TIMEOUT_MS);
    cr_assert_not_null(ev, "bob sees the move once it is durable");
    cJSON_Delete(ev);
    tc_close(a);
    tc_close(b);
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
