/*
 * The deadline timer after a lost kept batch (issue 16). While an fsync
 * is in flight the iteration's batch is kept open into the next loop
 * turns (batch_end_or_keep), and the server's flush re-arms the deadline
 * timer (corr_after_flush) from the store's rows of that kept batch before
 * it commits. When its commit then fails, those rows are rolled back and
 * the timer must look at the store again (srv_flush sets svc.wake_dirty on
 * a failed commit): else it stays armed, or stopped, for rows that never
 * were.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "helper.h"

#define T0 1700000000000LL

static tsrv S;

static void teardown(void)
{
    tsrv_stop(&S);
    tsrv_cleanup(&S);
}

TestSuite(kept_loss, .fini = teardown, .timeout = 120);

/* What it proves: a game whose abort was lost with a kept batch is still
 * aborted by the timer, at once, with its game_end to the players.
 *
 * How. A test clock, a 1 s stall per fsync (QK_FAULT_FSYNC_MS) and the 7th
 * commit failing (QK_FAULT_COMMIT; 1-2 the registrations, 3-4 the
 * challenge and accept of game G, 5-6 those of game H, 7 the sweep). G's
 * first-move window passes with "sweep": false (a late loop: no timer is
 * armed under the test clock, nothing is swept). The accept of H re-arms
 * the timer (a new wake_at): G is due, so the timer fires in the next
 * loop turn, while H's commit is still being fsync'd. That sweep aborts G
 * in a kept batch, and the re-arm after it reads G's uncommitted row (no
 * wake_at any more): the timer stops. Once H's fsync is done the kept
 * batch commits, fails, and G is active and due again. With the fix in
 * srv_flush (wake_dirty on a failed commit) the timer is re-armed from the
 * store, fires, and aborts G in a batch that commits: G's players get
 * game_end. Without it the timer stays as the rolled-back rows left it
 * (stopped: nothing else due) and G is not aborted until some request
 * touches it; on a real clock it would be aborted only at the next wake-up
 * those rows had (H's first-move window, 30 s on) instead of at once.
 * QK_UPKEEP_MS keeps the upkeep sweep (a commit of its own) out of the
 * count.
 *
 * With the fix the outcome is ordered by the server's loop, not by time:
 * the only waits are for answers and events, with generous timeouts. The
 * one timing it relies on is the batch being kept (the loop turn after
 * H's commit comes within the 1 s stall, by far); if the loop ever stalled
 * longer, the sweep's lost commit would re-arm from the store anyway (the
 * sweep itself sets wake_dirty), so the test would pass without proving
 * the fix, never fail with it. */
Test(kept_loss, a_lost_kept_sweep_leaves_the_timer_looking_at_the_store)
{
    char env[128];
    snprintf(env, sizeof env,
             "QK_TEST_CLOCK=%lld QK_FAULT_FSYNC_MS=1000 QK_FAULT_COMMIT=7 "
             "QK_UPKEEP_MS=600000",
             T0);
    tsrv_start(&S, env);
    tconn *a = tc_open(S.port), *b = tc_open(S.port);
    t_register(a, "alice");
    t_register(b, "bob");
    const char *tc = "{\"kind\":\"live\",\"initial_s\":60}";
    long long g = t_new_game_tc(a, b, "bob", "alquerque", tc, NULL);
    /* H's challenge now; its accept, after the clock moved, is the commit
     * whose fsync is in flight when the timer fires. */
    cJSON *r = tc_rpc(a,
                      "{\"type\":\"challenge\",\"to\":\"bob\",\"variant\":\"alquerque\","
                      "\"color\":\"white\",\"time_control\":%s}",
                      tc);
    t_ok(r, "H's challenge");
    long long cid = t_int(t_obj(r, "challenge"), "id");
    cJSON_Delete(r);
    /* G's first-move window (30 s for 1+0) has passed; nothing swept. */
    t_advance(a, 30001, false);
    cJSON *gg = t_game(a, g);
    cr_assert_str_eq(t_str(gg, "status"), "active", "no request ended G yet: %s", t_text(gg));
    cJSON_Delete(gg);
    tc_sync(a);
    tc_sync(b);
    r = tc_rpc(b, "{\"type\":\"accept\",\"challenge\":%lld}", cid);
    t_ok(r, "H's accept (commit 6, which commits)");
    long long h = t_int(t_obj(r, "game"), "id");
    cJSON_Delete(r);
    /* The timer's sweep (commit 7) is lost: its game_end never comes; the
     * sweep that follows, from the store again, sends one. */
    cJSON *ev = tc_event(a, "game_end", 3 * T_TIMEOUT_MS);
    cr_assert_not_null(ev, "no game_end for G after the kept batch that aborted it was lost: the "
                           "deadline timer kept what the rolled-back rows said (nothing due) "
                           "instead of looking at the store again");
    cr_assert_eq(t_int(ev, "game"), g, "%s", t_text(ev));
    cr_assert_str_eq(t_str(ev, "reason"), "aborted", "%s", t_text(ev));
    cJSON_Delete(ev);
    ev = tc_event(b, "game_end", 3 * T_TIMEOUT_MS);
    cr_assert_not_null(ev, "no game_end to bob");
    cr_assert_eq(t_int(ev, "game"), g, "%s", t_text(ev));
    cJSON_Delete(ev);
    /* The loss did happen (the 7th commit was the sweep's), and the test
     * clock never moved after it: the abort is the timer's, at once. */
    FILE *f = fopen(S.log, "r");
    cr_assert_not_null(f);
    char line[1024];
    bool injected = false;
    while (fgets(line, sizeof line, f))
        injected = injected || strstr(line, "sqlite COMMIT: injected failure");
    fclose(f);
    cr_assert(injected, "the 7th commit did not fail; see %s", S.log);
    gg = t_game(a, g);
    cr_assert_str_eq(t_str(gg, "status"), "aborted", "%s", t_text(gg));
    cr_assert_str_eq(t_str(gg, "reason"), "aborted", "%s", t_text(gg));
    cJSON_Delete(gg);
    gg = t_game(a, h);
    cr_assert_str_eq(t_str(gg, "status"), "active", "H goes on: %s", t_text(gg));
    cJSON_Delete(gg);
    tc_close(a);
    tc_close(b);
}
