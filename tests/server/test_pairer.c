/*
 * The external Swiss pairer through the real server (issue 13;
 * game/tourney.h "External pairing"): qirkatd started with
 * QK_PAIRING_PROGRAM (the env form of --pairing-program) runs one of the
 * stand-in programs of tests/pairers/ for tournaments created with
 * "pairer": "external". The stand-in dutch.sh pairs differently from the
 * built-in pairer (round 1 of four players: 1-2 3-4, where the built-in
 * gives 1-3 2-4), so the pairings below prove whose they are. Broken
 * programs (garbage, a rematch, a hang past the timeout, exit status 2,
 * a false "no pairing") answer `internal` and change nothing; a gated
 * stand-in (it waits for a file) holds a pairing back while the server
 * answers a ping, refuses a second pair request, and sees the tournament
 * change under it (a late join: `conflict`, nothing written). Ordering
 * only, no timings: the gate opens when the test says so.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helper.h"

static tsrv S;
static tconn *T, *A, *B, *C, *D; /* tina (organiser), alice, bob, carol, dave */
static char gate_dir[64], gate[96];

/* The absolute path of tests/pairers/NAME (tests run from the root). */
static const char *pairer(const char *name)
{
    static char path[PATH_MAX];
    char rel[128];
    snprintf(rel, sizeof rel, "tests/pairers/%s", name);
    cr_assert_not_null(realpath(rel, path), "%s", rel);
    return path;
}

/* Start qirkatd with program (NULL = none) and extra env, log in the
 * five users. */
static void start(const char *program, const char *extra)
{
    char env[PATH_MAX + 256];
    snprintf(env, sizeof env, "%s%s%s%s", program ? "QK_PAIRING_PROGRAM=" : "",
             program ? pairer(program) : "", extra ? " " : "", extra ? extra : "");
    tsrv_start(&S, env[0] ? env : NULL);
    tconn **all[] = {&T, &A, &B, &C, &D};
    const char *names[] = {"tina", "alice", "bob", "carol", "dave"};
    for (int i = 0; i < 5; i++) {
        *all[i] = tc_open(S.port);
        t_register(*all[i], names[i]);
    }
}

static void stop(void)
{
    tconn **all[] = {&T, &A, &B, &C, &D};
    for (int i = 0; i < 5; i++)
        if (*all[i]) {
            tc_close(*all[i]);
            *all[i] = NULL;
        }
    tsrv_stop(&S);
    tsrv_cleanup(&S);
}

static void teardown(void)
{
    if (S.pid)
        stop();
    if (gate_dir[0]) {
        unlink(gate);
        rmdir(gate_dir);
        gate_dir[0] = '\0';
    }
}

TestSuite(pairer, .fini = teardown, .timeout = 120);

/* A Swiss tournament of `rounds` with the external pairer (extra: more
 * fields) that alice, bob, carol and (with four) dave join. */
static long long swiss(int rounds, int players, const char *extra)
{
    cJSON *r = tc_rpc(T,
                      "{\"type\":\"tournament_create\",\"name\":\"Ext\",\"system\":\"swiss\","
                      "\"rounds\":%d,\"pairer\":\"external\"%s}",
                      rounds, extra ? extra : "");
    t_ok(r, "create");
    const cJSON *t = t_obj(r, "tournament");
    cr_assert_str_eq(t_str(t, "pairer"), "external");
    long long tid = t_int(t, "id");
    cJSON_Delete(r);
    tconn *who[] = {A, B, C, D};
    for (int i = 0; i < players; i++) {
        r = tc_rpc(who[i], "{\"type\":\"tournament_join\",\"tournament\":%lld}", tid);
        t_ok(r, "join");
        cJSON_Delete(r);
    }
    return tid;
}

/* Board `board` (0-based) of round `round` of tournament object t. */
static const cJSON *board_of(const cJSON *t, int round, int board)
{
    const cJSON *ro = cJSON_GetArrayItem(cJSON_GetObjectItem(t, "rounds"), round - 1);
    cr_assert_not_null(ro, "round %d", round);
    const cJSON *p = cJSON_GetArrayItem(cJSON_GetObjectItem(ro, "pairings"), board);
    cr_assert_not_null(p, "round %d board %d", round, board + 1);
    return p;
}

static void expect_board(const cJSON *t, int round, int board, const char *white,
                         const char *black)
{
    const cJSON *p = board_of(t, round, board);
    cr_assert_str_eq(t_str(p, "white"), white, "round %d board %d white", round, board + 1);
    cr_assert_str_eq(t_str(p, "black"), black, "round %d board %d black", round, board + 1);
}

/* The organiser sets board's game result by hand. */
static void result(long long tid, const cJSON *t, int round, int board, const char *res)
{
    cJSON *r = tc_rpc(T,
                      "{\"type\":\"tournament_result\",\"tournament\":%lld,\"game\":%lld,"
                      "\"result\":\"%s\"}",
                      tid, t_int(board_of(t, round, board), "game"), res);
    t_ok(r, "result");
    cJSON_Delete(r);
}

static cJSON *get_t(long long tid)
{
    cJSON *r = tc_rpc(T, "{\"type\":\"tournament\",\"tournament\":%lld}", tid);
    t_ok(r, "tournament");
    return r;
}

Test(pairer, create_checks)
{
    start(NULL, NULL);
    char *before = t_db_dump(S.db);
    cJSON *r = tc_rpc(T, "{\"type\":\"tournament_create\",\"name\":\"X\",\"system\":\"swiss\","
                         "\"rounds\":3,\"pairer\":\"external\"}");
    t_err(r, "bad_request", "external without a program");
    cr_assert(strstr(t_str(r, "message"), "--pairing-program") != NULL, "%s", t_str(r, "message"));
    cJSON_Delete(r);
    t_db_unchanged(S.db, before, "an external pairer without a program");
    stop();

    start("dutch.sh", NULL);
    before = t_db_dump(S.db);
    r = tc_rpc(T, "{\"type\":\"tournament_create\",\"name\":\"X\",\"system\":\"round_robin\","
                  "\"pairer\":\"external\"}");
    t_err(r, "bad_request", "a round robin with the external pairer");
    cJSON_Delete(r);
    r = tc_rpc(T, "{\"type\":\"tournament_create\",\"name\":\"X\",\"system\":\"swiss\","
                  "\"rounds\":3,\"pairer\":\"javafo\"}");
    t_err(r, "bad_request", "an unknown pairer");
    cJSON_Delete(r);
    t_db_unchanged(S.db, before, "a refused create");
    r = tc_rpc(T, "{\"type\":\"tournament_create\",\"name\":\"X\",\"system\":\"swiss\","
                  "\"rounds\":3}");
    t_ok(r, "default pairer");
    cr_assert_str_eq(t_str(t_obj(r, "tournament"), "pairer"), "builtin");
    cJSON_Delete(r);
    swiss(3, 0, NULL);
}

/*
 * Four players, three rounds, every round by dutch.sh:
 *   round 1 (all 0): 1-2, 3-4: alice-bob 1-0, carol-dave 1-0
 *   round 2: alice 1, carol 1, bob 0, dave 0: alice-carol, bob-dave;
 *            carol wins (black), bob-dave drawn
 *   round 3: carol 2, alice 1, bob 1/2, dave 1/2: carol-bob (carol was
 *            Black last: White), alice-dave (alice had two Whites: dave
 *            White)
 */
static const char *const every_round[3][2][3] = {
    {{"alice", "bob", "white"}, {"carol", "dave", "white"}},
    {{"alice", "carol", "black"}, {"bob", "dave", "draw"}},
    {{"carol", "bob", NULL}, {"dave", "alice", NULL}},
};

Test(pairer, every_round_by_the_program)
{
    start("dutch.sh", NULL);
    long long tid = swiss(3, 4, NULL);
    for (int round = 1; round <= 3; round++) {
        cJSON *r = tc_rpc(T, "{\"type\":\"%s\",\"tournament\":%lld}",
                          round == 1 ? "tournament_start" : "tournament_pair", tid);
        t_ok(r, "start / pair");
        const cJSON *t = t_obj(r, "tournament");
        cr_assert_str_eq(t_str(t, "status"), "running");
        cr_assert_eq(t_int(t, "current_round"), round);
        for (int b = 0; b < 2; b++) {
            const char *const *want = every_round[round - 1][b];
            expect_board(t, round, b, want[0], want[1]);
            if (want[2])
                result(tid, t, round, b, want[2]);
        }
        cJSON_Delete(r);
    }
    cr_assert_eq(t_db_count(S.db, "games"), 6);
    cr_assert_eq(t_db_count(S.db, "tournament_pairings"), 6);
}

/* Start a 3-player tournament (round 1 needs a bye) under a broken
 * program: internal, the message says so, nothing is written. */
static void start_refused(const char *program, const char *words)
{
    start(program, "QK_PAIRING_TIMEOUT_MS=1000");
    long long tid = swiss(3, 3, NULL);
    char *before = t_db_dump(S.db);
    cJSON *r = tc_rpc(T, "{\"type\":\"tournament_start\",\"tournament\":%lld}", tid);
    t_err(r, "internal", program);
    cr_assert(strstr(t_str(r, "message"), words) != NULL, "%s: %s", program,
              t_str(r, "message"));
    cr_assert(strstr(t_str(r, "message"), "nothing was changed") != NULL);
    cJSON_Delete(r);
    t_db_unchanged(S.db, before, program);
    r = get_t(tid);
    cr_assert_str_eq(t_str(t_obj(r, "tournament"), "status"), "open");
    cJSON_Delete(r);
    /* The server goes on: another request is answered. */
    r = tc_rpc(A, "{\"type\":\"ping\"}");
    t_ok(r, "ping after a broken program");
    cJSON_Delete(r);
    stop();
}

Test(pairer, broken_programs_change_nothing)
{
    start_refused("garbage.sh", "malformed pairer output");
    start_refused("fail.sh", "external pairer failed");
    start_refused("hang.sh", "external pairer failed"); /* killed at the timeout */
    start_refused("nopairing.sh", "found no pairing for round 1, but a valid one exists");
}

Test(pairer, a_rematch_is_refused)
{
    start("rematch.sh", NULL);
    long long tid = swiss(3, 4, NULL);
    cJSON *r = tc_rpc(T, "{\"type\":\"tournament_start\",\"tournament\":%lld}", tid);
    t_ok(r, "round 1 has nobody to meet again");
    const cJSON *t = t_obj(r, "tournament");
    expect_board(t, 1, 0, "alice", "bob");
    result(tid, t, 1, 0, "white");
    result(tid, t, 1, 1, "black");
    cJSON_Delete(r);
    char *before = t_db_dump(S.db);
    r = tc_rpc(T, "{\"type\":\"tournament_pair\",\"tournament\":%lld}", tid);
    t_err(r, "internal", "a rematch");
    /* bob (no White yet) is White against alice: "2 1" */
    cr_assert(strstr(t_str(r, "message"), "players 2 and 1 have met before") != NULL, "%s",
              t_str(r, "message"));
    cJSON_Delete(r);
    t_db_unchanged(S.db, before, "a refused rematch");
    r = get_t(tid);
    t = t_obj(r, "tournament");
    cr_assert_str_eq(t_str(t, "status"), "running", "a broken program does not end it");
    cr_assert_eq(t_int(t, "current_round"), 1);
    cJSON_Delete(r);
}

Test(pairer, the_loop_answers_while_the_program_runs)
{
    snprintf(gate_dir, sizeof gate_dir, "/tmp/qk-gate-XXXXXX");
    cr_assert_not_null(mkdtemp(gate_dir));
    snprintf(gate, sizeof gate, "%s/open", gate_dir);
    char env[160];
    snprintf(env, sizeof env, "QK_STANDIN_GATE=%s", gate);
    start("dutch.sh", env);
    tconn *T2 = tc_open(S.port);
    cJSON *r = tc_rpc(T2, "{\"type\":\"login\",\"username\":\"tina\",\"password\":\"" T_PW "\"}");
    t_ok(r, "tina's second connection");
    cJSON_Delete(r);
    long long tid = swiss(3, 4, NULL);

    /* Round 1 waits for the gate; meanwhile the loop answers a ping on
     * another connection and refuses a second start. */
    cr_assert(tc_sendf(T, "{\"type\":\"tournament_start\",\"id\":\"s1\",\"tournament\":%lld}\n",
                       tid));
    r = tc_rpc(T2, "{\"type\":\"tournament_start\",\"tournament\":%lld}", tid);
    t_err(r, "conflict", "a second start while the program runs");
    cr_assert(strstr(t_str(r, "message"), "pairing program is running") != NULL, "%s",
              t_str(r, "message"));
    cJSON_Delete(r);
    r = tc_rpc(A, "{\"type\":\"ping\"}");
    t_ok(r, "ping while the program runs");
    cJSON_Delete(r);
    cr_assert_null(tc_reply(T, 0), "no answer to the start before the gate opens");
    FILE *f = fopen(gate, "w");
    cr_assert_not_null(f);
    fclose(f);
    r = tc_reply(T, T_TIMEOUT_MS * 4);
    cr_assert_not_null(r, "the start's answer after the gate");
    t_ok(r, "start");
    const cJSON *t = t_obj(r, "tournament");
    result(tid, t, 1, 0, "white");
    result(tid, t, 1, 1, "white");
    cJSON_Delete(r);
    cr_assert_eq(unlink(gate), 0);

    /* Two pair requests racing on two connections: one round. */
    cr_assert(
        tc_sendf(T, "{\"type\":\"tournament_pair\",\"id\":\"p1\",\"tournament\":%lld}\n", tid));
    r = tc_rpc(A, "{\"type\":\"ping\"}"); /* the first is on the pool once A is answered */
    cJSON_Delete(r);
    r = tc_rpc(T2, "{\"type\":\"tournament_pair\",\"tournament\":%lld}", tid);
    t_err(r, "conflict", "a second pair while the program runs");
    cJSON_Delete(r);
    f = fopen(gate, "w");
    cr_assert_not_null(f);
    fclose(f);
    r = tc_reply(T, T_TIMEOUT_MS * 4);
    cr_assert_not_null(r);
    t_ok(r, "pair 2");
    t = t_obj(r, "tournament");
    cr_assert_eq(t_int(t, "current_round"), 2);
    expect_board(t, 2, 0, "alice", "carol");
    result(tid, t, 2, 0, "draw");
    result(tid, t, 2, 1, "draw");
    cJSON_Delete(r);
    cr_assert_eq(t_db_count(S.db, "games"), 4, "two rounds, two games each");
    cr_assert_eq(unlink(gate), 0);

    /* The tournament changes while round 3 is being paired (a late
     * join): conflict, nothing written; paired again, the newcomer is in. */
    cr_assert(
        tc_sendf(T, "{\"type\":\"tournament_pair\",\"id\":\"p2\",\"tournament\":%lld}\n", tid));
    r = tc_rpc(A, "{\"type\":\"ping\"}");
    cJSON_Delete(r);
    tconn *E = tc_open(S.port);
    t_register(E, "erin");
    r = tc_rpc(E, "{\"type\":\"tournament_join\",\"tournament\":%lld}", tid);
    t_ok(r, "a late join while the program runs");
    cJSON_Delete(r);
    char *before = t_db_dump(S.db);
    f = fopen(gate, "w");
    cr_assert_not_null(f);
    fclose(f);
    r = tc_reply(T, T_TIMEOUT_MS * 4);
    cr_assert_not_null(r);
    t_err(r, "conflict", "the tournament changed under the program");
    cr_assert(strstr(t_str(r, "message"), "changed while the pairing program ran") != NULL, "%s",
              t_str(r, "message"));
    cJSON_Delete(r);
    t_db_unchanged(S.db, before, "a discarded pairing");
    r = tc_rpc(T, "{\"type\":\"tournament_pair\",\"tournament\":%lld}", tid);
    t_ok(r, "pair 3 again");
    t = t_obj(r, "tournament");
    cr_assert_eq(t_int(t, "current_round"), 3);
    const cJSON *ro = cJSON_GetArrayItem(cJSON_GetObjectItem(t, "rounds"), 2);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(ro, "pairings")), 2);
    cr_assert_str_eq(t_str(ro, "bye"), "erin", "five players: the newcomer, lowest, has the bye");
    cJSON_Delete(r);
    tc_close(E);
    tc_close(T2);
}

/* start_mode auto: the next round is paired by the program when the last
 * result of a round comes in, with nobody waiting for it. */
Test(pairer, automatic_rounds)
{
    start("dutch.sh", NULL);
    long long tid = swiss(2, 4, ",\"start_mode\":\"auto\"");
    cJSON *r = tc_rpc(T, "{\"type\":\"tournament_start\",\"tournament\":%lld}", tid);
    t_ok(r, "start");
    const cJSON *t = t_obj(r, "tournament");
    result(tid, t, 1, 0, "white");
    result(tid, t, 1, 1, "white");
    cJSON_Delete(r);
    cJSON *ev = tc_event(A, "tournament_round", T_TIMEOUT_MS * 4); /* round 1's */
    cr_assert_not_null(ev);
    cr_assert_eq(t_int(ev, "round"), 1);
    cJSON_Delete(ev);
    ev = tc_event(A, "tournament_round", T_TIMEOUT_MS * 4);
    cr_assert_not_null(ev, "round 2 paired by itself");
    cr_assert_eq(t_int(ev, "round"), 2);
    const cJSON *p = cJSON_GetArrayItem(cJSON_GetObjectItem(ev, "pairings"), 0);
    cr_assert_str_eq(t_str(p, "white"), "alice");
    cr_assert_str_eq(t_str(p, "black"), "carol");
    cJSON_Delete(ev);
    r = get_t(tid);
    t = t_obj(r, "tournament");
    result(tid, t, 2, 0, "draw");
    result(tid, t, 2, 1, "black");
    cJSON_Delete(r);
    r = get_t(tid);
    t = t_obj(r, "tournament");
    cr_assert_str_eq(t_str(t, "status"), "finished");
    const cJSON *st = cJSON_GetObjectItem(t, "standings");
    /* alice 1.5, carol 1.5, dave 1, bob 0 */
    cr_assert_str_eq(t_str(cJSON_GetArrayItem(st, 3), "username"), "bob");
    cr_assert_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(st, 3), "points")->valuedouble, 0);
    cJSON_Delete(r);
}
