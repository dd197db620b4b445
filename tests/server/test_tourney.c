/*
 * Classes and tournaments (issue 13) through the real server: classes
 * with join codes and teacher-made accounts; a 3-player round robin
 * played out with a bye every round, a result set by hand and a
 * withdrawal's forfeit, its standings and tie-breaks against values
 * computed by hand (below); games carrying tournament and round; pairing
 * that cannot happen twice; bad input answered with exact codes and no
 * change to the database; the export of a tournament's games (to its
 * organiser, to the class of a class-only one) with their Round and Event
 * tags, and the organiser's tournament_result events; who sees a class-only
 * tournament through `tournament`, `tournament_standings` and
 * `tournaments` (its class, teacher and players; forbidden or left out
 * for anyone else).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helper.h"
#include "qk_pdn.h"

static tsrv S;
static tconn *T, *A, *B, *C; /* tina (organiser), alice, bob, carol */

static void setup(void)
{
    tsrv_start(&S, NULL);
    T = tc_open(S.port);
    A = tc_open(S.port);
    B = tc_open(S.port);
    C = tc_open(S.port);
    t_register(T, "tina");
    t_register(A, "alice");
    t_register(B, "bob");
    t_register(C, "carol");
}

static void teardown(void)
{
    tconn *all[] = {T, A, B, C};
    for (int i = 0; i < 4; i++)
        if (all[i])
            tc_close(all[i]);
    T = A = B = C = NULL;
    tsrv_stop(&S);
    tsrv_cleanup(&S);
}

TestSuite(tourney, .init = setup, .fini = teardown, .timeout = 60);

/* r's code is `code` and the database is as it was (before, freed). */
static void err_unchanged(cJSON *r, const char *code, char *before, const char *what)
{
    t_err(r, code, what);
    cJSON_Delete(r);
    t_db_unchanged(S.db, before, what);
}

static long long create_rr(const char *extra)
{
    cJSON *r = tc_rpc(T,
                      "{\"type\":\"tournament_create\",\"name\":\"Club\",\"system\":"
                      "\"round_robin\",\"variant\":\"alquerque\"%s}",
                      extra);
    t_ok(r, "tournament_create");
    const cJSON *t = t_obj(r, "tournament");
    long long id = t_int(t, "id");
    cr_assert_str_eq(t_str(t, "status"), "open");
    cr_assert_str_eq(t_str(t, "organiser"), "tina");
    cJSON_Delete(r);
    return id;
}

static void join(tconn *c, long long tid)
{
    cJSON *r = tc_rpc(c, "{\"type\":\"tournament_join\",\"tournament\":%lld}", tid);
    t_ok(r, "tournament_join");
    cJSON_Delete(r);
}

/* Round `round`'s pairing on board `board` (0-based, byes left out) of
 * tournament object t. */
static const cJSON *pairing(const cJSON *t, int round, int board)
{
    const cJSON *rounds = cJSON_GetObjectItem(t, "rounds");
    const cJSON *ro = cJSON_GetArrayItem(rounds, round - 1);
    cr_assert_not_null(ro, "round %d", round);
    cr_assert_eq(t_int(ro, "round"), round);
    const cJSON *p = cJSON_GetArrayItem(cJSON_GetObjectItem(ro, "pairings"), board);
    cr_assert_not_null(p, "round %d board %d", round, board + 1);
    return p;
}

/* The two boards of round `round` of tournament object t are want[b]
 * (white, black); their games go to g. */
static void check_boards(const cJSON *t, int round, const char *const want[2][2], long long g[2])
{
    for (int b = 0; b < 2; b++) {
        const cJSON *p = pairing(t, round, b);
        cr_assert_str_eq(t_str(p, "white"), want[b][0], "round %d board %d", round, b + 1);
        cr_assert_str_eq(t_str(p, "black"), want[b][1], "round %d board %d", round, b + 1);
        g[b] = t_int(p, "game");
    }
}

/* A class of tina's named name, which alice, bob and carol join by its
 * code; its id. */
static long long class_of_abc(const char *name)
{
    cJSON *r = tc_rpc(T, "{\"type\":\"class_create\",\"name\":\"%s\"}", name);
    t_ok(r, "class_create");
    long long cid = t_int(t_obj(r, "class"), "id");
    char code[16];
    snprintf(code, sizeof code, "%s", t_str(t_obj(r, "class"), "code"));
    cJSON_Delete(r);
    tconn *members[] = {A, B, C};
    for (int i = 0; i < 3; i++) {
        r = tc_rpc(members[i], "{\"type\":\"class_join\",\"code\":\"%s\"}", code);
        t_ok(r, "class_join");
        cJSON_Delete(r);
    }
    return cid;
}

/* c resigns game gid; what names the step in a failure. */
static void resign(tconn *c, long long gid, const char *what)
{
    cJSON *r = tc_rpc(c, "{\"type\":\"resign\",\"game\":%lld}", gid);
    t_ok(r, what);
    cJSON_Delete(r);
}

static const char *bye_of(const cJSON *t, int round)
{
    const cJSON *ro = cJSON_GetArrayItem(cJSON_GetObjectItem(t, "rounds"), round - 1);
    const cJSON *b = cJSON_GetObjectItem(ro, "bye");
    return cJSON_IsString(b) ? b->valuestring : NULL;
}

static cJSON *get_t(long long tid)
{
    cJSON *r = tc_rpc(T, "{\"type\":\"tournament\",\"tournament\":%lld}", tid);
    t_ok(r, "tournament");
    return r;
}

static void check_row(const cJSON *row, int rank, const char *user, double pts, double sb,
                      double bh, double de, double win)
{
    cr_assert_eq(t_int(row, "rank"), rank, "%s rank", user);
    cr_assert_str_eq(t_str(row, "username"), user);
    const cJSON *tb = t_obj(row, "tiebreaks");
    cr_assert_eq(cJSON_GetObjectItem(row, "points")->valuedouble, pts, "%s points", user);
    cr_assert_eq(cJSON_GetObjectItem(tb, "SB")->valuedouble, sb, "%s SB", user);
    cr_assert_eq(cJSON_GetObjectItem(tb, "BH")->valuedouble, bh, "%s BH", user);
    cr_assert_eq(cJSON_GetObjectItem(tb, "DE")->valuedouble, de, "%s DE", user);
    cr_assert_eq(cJSON_GetObjectItem(tb, "WIN")->valuedouble, win, "%s WIN", user);
    /* The tie-breaks in the order applied. */
    cr_assert_str_eq(tb->child->string, "SB");
    cr_assert_str_eq(tb->child->next->string, "BH");
    cr_assert_str_eq(tb->child->next->next->string, "DE");
    cr_assert_str_eq(tb->child->next->next->next->string, "WIN");
}

/*
 * alice (1), bob (2), carol (3): Berger for 4 with number 4 the dummy.
 *   round 1: 1-4 (alice's bye), 2-3: bob (White) beats carol (resigns)
 *   round 2: 4-3 (carol's bye), 1-2: alice-bob, a draw set by hand
 *   round 3: 2-4 (bob's bye),   3-1: carol withdraws: alice wins by forfeit
 * Points: alice 1 + 1/2 + 1 = 2.5, bob 1 + 1/2 + 1 = 2.5, carol 0 + 1 + 0 = 1.
 * Round robin: byes add nothing to SB/BH; the forfeit counts as a game
 * against its real opponent.
 *   alice: SB = 2.5 x 1/2 (bob) + 1 x 1 (carol) = 2.25; BH = 2.5 + 1 = 3.5
 *   bob:   SB = 1 x 1 (carol) + 2.5 x 1/2 (alice) = 2.25; BH = 3.5
 *   carol: SB = 0;  BH = 2.5 + 2.5 = 5
 * alice and bob stay tied: DE 1/2 each (their draw), WIN 2 each (a win and
 * a bye; alice's forfeit win counts): rank 1 both, then carol 3 (DE 0, WIN
 * 1: her bye).
 */
Test(tourney, round_robin_bye_forfeit_by_hand)
{
    long long tid = create_rr("");
    join(A, tid);
    join(B, tid);
    join(C, tid);
    cJSON *r = tc_rpc(T, "{\"type\":\"tournament_start\",\"tournament\":%lld}", tid);
    t_ok(r, "start");
    const cJSON *t = t_obj(r, "tournament");
    cr_assert_str_eq(t_str(t, "status"), "running");
    cr_assert_eq(t_int(t, "rounds_total"), 3);
    cr_assert_eq(t_int(t, "current_round"), 1);
    cr_assert_str_eq(bye_of(t, 1), "alice");
    const cJSON *p = pairing(t, 1, 0);
    cr_assert_str_eq(t_str(p, "white"), "bob");
    cr_assert_str_eq(t_str(p, "black"), "carol");
    long long g1 = t_int(p, "game");
    cJSON_Delete(r);
    cr_assert_eq(t_db_count(S.db, "games"), 1);

    /* The players hear of the round and of their game. */
    cJSON *ev = tc_event(B, "tournament_round", T_TIMEOUT_MS);
    cr_assert_not_null(ev);
    cr_assert_eq(t_int(ev, "tournament"), tid);
    cr_assert_eq(t_int(ev, "round"), 1);
    cr_assert_str_eq(t_str(ev, "bye"), "alice");
    cJSON_Delete(ev);
    ev = tc_event(C, "game_start", T_TIMEOUT_MS);
    cr_assert_not_null(ev);
    const cJSON *gj = t_obj(ev, "game");
    cr_assert_eq(t_int(gj, "id"), g1);
    cr_assert_eq(t_int(gj, "tournament"), tid);
    cr_assert_eq(t_int(gj, "round"), 1);
    cJSON_Delete(ev);

    /* Pairing again while round 1 runs: refused, nothing made. */
    char *before = t_db_dump(S.db);
    err_unchanged(tc_rpc(T, "{\"type\":\"tournament_pair\",\"tournament\":%lld}", tid), "conflict",
                  before, "pair during an unfinished round");
    before = t_db_dump(S.db);
    err_unchanged(tc_rpc(T, "{\"type\":\"tournament_pair\",\"tournament\":%lld,\"round\":1}", tid),
                  "conflict", before, "pair round 1 again");
    before = t_db_dump(S.db);
    err_unchanged(tc_rpc(A, "{\"type\":\"tournament_pair\",\"tournament\":%lld}", tid), "forbidden",
                  before, "a player pairing");
    /* Joining a running round robin. */
    tconn *D = tc_open(S.port);
    t_register(D, "dave");
    before = t_db_dump(S.db);
    err_unchanged(tc_rpc(D, "{\"type\":\"tournament_join\",\"tournament\":%lld}", tid), "conflict",
                  before, "join a running round robin");
    /* A result for a game outside the tournament. */
    long long other = t_new_game(A, D, "dave", "alquerque");
    before = t_db_dump(S.db);
    err_unchanged(tc_rpc(T,
                         "{\"type\":\"tournament_result\",\"tournament\":%lld,\"game\":%lld,"
                         "\"result\":\"white\"}",
                         tid, other),
                  "not_found", before, "result outside the tournament");
    before = t_db_dump(S.db);
    err_unchanged(tc_rpc(T,
                         "{\"type\":\"tournament_result\",\"tournament\":%lld,\"game\":%lld,"
                         "\"result\":\"1-0\"}",
                         tid, g1),
                  "bad_request", before, "a result word that is none");
    tc_close(D);

    resign(C, g1, "resign");
    r = get_t(tid);
    t = t_obj(r, "tournament");
    cr_assert_str_eq(t_str(pairing(t, 1, 0), "result"), "white");
    cr_assert_eq(t_int(t, "current_round"), 1, "organiser mode: round 2 waits for tina");
    cJSON_Delete(r);

    /* Two pair requests in one write: one round 2, one conflict. */
    tc_drop_events(T);
    char two[256];
    int n = snprintf(two, sizeof two,
                     "{\"type\":\"tournament_pair\",\"id\":901,\"tournament\":%lld}\n"
                     "{\"type\":\"tournament_pair\",\"id\":902,\"tournament\":%lld}\n",
                     tid, tid);
    cr_assert(tc_send(T, two, (size_t)n));
    cJSON *r1 = tc_reply(T, T_TIMEOUT_MS), *r2 = tc_reply(T, T_TIMEOUT_MS);
    cr_assert_not_null(r1);
    cr_assert_not_null(r2);
    t_ok(r1, "first pair");
    t_err(r2, "conflict", "second pair");
    t = t_obj(r1, "tournament");
    cr_assert_eq(t_int(t, "current_round"), 2);
    cr_assert_str_eq(bye_of(t, 2), "carol");
    p = pairing(t, 2, 0);
    cr_assert_str_eq(t_str(p, "white"), "alice");
    cr_assert_str_eq(t_str(p, "black"), "bob");
    long long g2 = t_int(p, "game");
    cJSON_Delete(r1);
    cJSON_Delete(r2);
    cr_assert_eq(t_db_count(S.db, "games"), 3, "round 2 made exactly one game");

    r = tc_rpc(T,
               "{\"type\":\"tournament_result\",\"tournament\":%lld,\"game\":%lld,"
               "\"result\":\"draw\"}",
               tid, g2);
    t_ok(r, "result by hand");
    p = pairing(t_obj(r, "tournament"), 2, 0);
    cr_assert_str_eq(t_str(p, "result"), "draw");
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(p, "by_hand")));
    cJSON_Delete(r);
    r = tc_rpc(A, "{\"type\":\"game\",\"game\":%lld}", g2);
    t_ok(r, "game");
    cr_assert_str_eq(t_str(t_obj(r, "game"), "status"), "finished");
    cr_assert_str_eq(t_str(t_obj(r, "game"), "result"), "draw");
    cJSON_Delete(r);

    r = tc_rpc(T, "{\"type\":\"tournament_pair\",\"tournament\":%lld,\"round\":3}", tid);
    t_ok(r, "pair 3");
    t = t_obj(r, "tournament");
    cr_assert_str_eq(bye_of(t, 3), "bob");
    p = pairing(t, 3, 0);
    cr_assert_str_eq(t_str(p, "white"), "carol");
    cr_assert_str_eq(t_str(p, "black"), "alice");
    long long g3 = t_int(p, "game");
    cJSON_Delete(r);

    r = tc_rpc(C, "{\"type\":\"tournament_withdraw\",\"tournament\":%lld}", tid);
    t_ok(r, "withdraw");
    cJSON_Delete(r);
    /* The withdrawn player's game is over: a move is refused. */
    before = t_db_dump(S.db);
    err_unchanged(tc_rpc(C, "{\"type\":\"move\",\"game\":%lld,\"move\":\"c2-c3\"}", g3),
                  "game_over", before, "a withdrawn player moving");
    before = t_db_dump(S.db);
    err_unchanged(tc_rpc(C, "{\"type\":\"tournament_withdraw\",\"tournament\":%lld}", tid),
                  "conflict", before, "withdrawing twice");

    ev = tc_event(A, "tournament_end", T_TIMEOUT_MS);
    cr_assert_not_null(ev, "tournament_end after the last round");
    cr_assert_eq(t_int(ev, "tournament"), tid);
    cJSON_Delete(ev);

    r = get_t(tid);
    t = t_obj(r, "tournament");
    cr_assert_str_eq(t_str(t, "status"), "finished");
    p = pairing(t, 3, 0);
    cr_assert_str_eq(t_str(p, "kind"), "forfeit");
    cr_assert_str_eq(t_str(p, "result"), "black");
    const cJSON *st = cJSON_GetObjectItem(t, "standings");
    cr_assert_eq(cJSON_GetArraySize(st), 3);
    check_row(cJSON_GetArrayItem(st, 0), 1, "alice", 2.5, 2.25, 3.5, 0.5, 2);
    check_row(cJSON_GetArrayItem(st, 1), 1, "bob", 2.5, 2.25, 3.5, 0.5, 2);
    check_row(cJSON_GetArrayItem(st, 2), 3, "carol", 1, 0, 5, 0, 1);
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(st, 2), "withdrawn")));
    cJSON_Delete(r);

    r = tc_rpc(B, "{\"type\":\"tournament_standings\",\"tournament\":%lld,\"format\":\"csv\"}",
               tid);
    t_ok(r, "csv");
    cr_assert_str_eq(t_str(r, "csv"), "rank,username,points,SB,BH,DE,WIN\r\n"
                                      "1,alice,2.5,2.25,3.5,0.5,2\r\n"
                                      "1,bob,2.5,2.25,3.5,0.5,2\r\n"
                                      "3,carol,1,0,5,0,1\r\n");
    cJSON_Delete(r);

    /* Finished: nothing more. */
    before = t_db_dump(S.db);
    err_unchanged(tc_rpc(T, "{\"type\":\"tournament_pair\",\"tournament\":%lld}", tid), "conflict",
                  before, "pair a finished tournament");
}

Test(tourney, join_and_start_errors)
{
    long long tid = create_rr(",\"start_mode\":\"auto\"");
    join(A, tid);
    char *before = t_db_dump(S.db);
    err_unchanged(tc_rpc(A, "{\"type\":\"tournament_join\",\"tournament\":%lld}", tid), "conflict",
                  before, "joining twice");
    before = t_db_dump(S.db);
    err_unchanged(tc_rpc(A, "{\"type\":\"tournament_join\",\"tournament\":999}"), "not_found",
                  before, "no such tournament");
    before = t_db_dump(S.db);
    err_unchanged(tc_rpc(T, "{\"type\":\"tournament_start\",\"tournament\":%lld}", tid), "conflict",
                  before, "start with one player");
    join(B, tid);
    before = t_db_dump(S.db);
    err_unchanged(tc_rpc(B, "{\"type\":\"tournament_start\",\"tournament\":%lld}", tid),
                  "forbidden", before, "a player starting");
    before = t_db_dump(S.db);
    err_unchanged(tc_rpc(A,
                         "{\"type\":\"tournament_join\",\"tournament\":%lld,\"username\":"
                         "\"carol\"}",
                         tid),
                  "forbidden", before, "a player adding another");
    before = t_db_dump(S.db);
    err_unchanged(tc_rpc(T, "{\"type\":\"tournament_create\",\"name\":\"X\",\"system\":\"swiss\"}"),
                  "bad_request", before, "swiss without rounds");
    before = t_db_dump(S.db);
    err_unchanged(
        tc_rpc(T, "{\"type\":\"tournament_create\",\"name\":\"X\",\"system\":\"knockout\"}"),
        "bad_request", before, "unknown system");
    before = t_db_dump(S.db);
    err_unchanged(tc_rpc(T, "{\"type\":\"tournament_create\",\"name\":\"X\",\"system\":"
                            "\"round_robin\",\"variant\":\"chess\"}"),
                  "bad_request", before, "unknown variant");

    /* A player who leaves before the start is gone; the organiser adds one. */
    cJSON *r = tc_rpc(B, "{\"type\":\"tournament_withdraw\",\"tournament\":%lld}", tid);
    t_ok(r, "leave before start");
    cJSON_Delete(r);
    r = tc_rpc(T, "{\"type\":\"tournament_join\",\"tournament\":%lld,\"username\":\"carol\"}", tid);
    t_ok(r, "organiser adds carol");
    const cJSON *pl = cJSON_GetObjectItem(t_obj(r, "tournament"), "players");
    cr_assert_eq(cJSON_GetArraySize(pl), 2);
    cr_assert_str_eq(cJSON_GetArrayItem(pl, 0)->valuestring, "alice");
    cr_assert_str_eq(cJSON_GetArrayItem(pl, 1)->valuestring, "carol");
    cJSON_Delete(r);

    /* Bots only where allowed. */
    tconn *X = tc_open(S.port);
    cJSON *rr = tc_rpc(X, "{\"type\":\"register\",\"username\":\"robo\",\"password\":\"" T_PW
                          "\",\"bot\":true}");
    t_ok(rr, "register bot");
    cJSON_Delete(rr);
    before = t_db_dump(S.db);
    err_unchanged(tc_rpc(X, "{\"type\":\"tournament_join\",\"tournament\":%lld}", tid), "forbidden",
                  before, "a bot where bots are not allowed");
    tc_close(X);

    /* Auto mode: 2 players, one round; its end ends the tournament. */
    r = tc_rpc(T, "{\"type\":\"tournament_start\",\"tournament\":%lld}", tid);
    t_ok(r, "start");
    long long g = t_int(pairing(t_obj(r, "tournament"), 1, 0), "game");
    cJSON_Delete(r);
    resign(A, g, "resign");
    r = get_t(tid);
    cr_assert_str_eq(t_str(t_obj(r, "tournament"), "status"), "finished");
    cJSON_Delete(r);
}

Test(tourney, classes)
{
    cJSON *r = tc_rpc(T, "{\"type\":\"class_create\",\"name\":\"5B\"}");
    t_ok(r, "class_create");
    const cJSON *c = t_obj(r, "class");
    long long cid = t_int(c, "id");
    char code[16];
    snprintf(code, sizeof code, "%s", t_str(c, "code"));
    cr_assert_eq(strlen(code), 8);
    cr_assert_eq(strpbrk(code, "01OIL"), NULL, "no look-alike characters: %s", code);
    cr_assert_str_eq(t_str(c, "teacher"), "tina");
    cJSON_Delete(r);

    char *before = t_db_dump(S.db);
    err_unchanged(tc_rpc(A, "{\"type\":\"class_join\",\"code\":\"ZZZZZZZZ\"}"), "not_found", before,
                  "a wrong code");
    /* Lower case is the same code. */
    char lower[16];
    for (int i = 0; i < 9; i++)
        lower[i] = (char)(code[i] >= 'A' && code[i] <= 'Z' ? code[i] + 32 : code[i]);
    r = tc_rpc(A, "{\"type\":\"class_join\",\"code\":\"%s\"}", lower);
    t_ok(r, "class_join");
    cr_assert_null(cJSON_GetObjectItem(t_obj(r, "class"), "students"), "students: teacher only");
    cJSON_Delete(r);
    before = t_db_dump(S.db);
    err_unchanged(tc_rpc(A, "{\"type\":\"class_join\",\"code\":\"%s\"}", code), "conflict", before,
                  "joining a class twice");
    before = t_db_dump(S.db);
    err_unchanged(tc_rpc(B, "{\"type\":\"class\",\"class\":%lld}", cid), "not_found", before,
                  "a stranger looking at the class");

    r = tc_rpc(T,
               "{\"type\":\"class_add_students\",\"class\":%lld,\"students\":["
               "{\"username\":\"kid1\",\"name\":\"Ada L.\"},{\"username\":\"kid2\",\"name\":"
               "\"Ben K.\"}]}",
               cid);
    t_ok(r, "class_add_students");
    const cJSON *st = cJSON_GetObjectItem(r, "students");
    cr_assert_eq(cJSON_GetArraySize(st), 2);
    char pw1[32];
    snprintf(pw1, sizeof pw1, "%s", t_str(cJSON_GetArrayItem(st, 0), "password"));
    cr_assert_eq(strlen(pw1), 12);
    cJSON_Delete(r);
    /* Taken names: the whole list is refused. */
    before = t_db_dump(S.db);
    err_unchanged(tc_rpc(T,
                         "{\"type\":\"class_add_students\",\"class\":%lld,\"students\":["
                         "{\"username\":\"kid3\"},{\"username\":\"bob\"}]}",
                         cid),
                  "conflict", before, "a taken username");
    before = t_db_dump(S.db);
    err_unchanged(tc_rpc(A,
                         "{\"type\":\"class_add_students\",\"class\":%lld,\"students\":["
                         "{\"username\":\"kid4\"}]}",
                         cid),
                  "not_found", before, "a student adding students");

    tconn *K = tc_open(S.port);
    r = tc_rpc(K, "{\"type\":\"login\",\"username\":\"kid1\",\"password\":\"%s\"}", pw1);
    t_ok(r, "student login");
    cJSON_Delete(r);
    r = tc_rpc(T, "{\"type\":\"class\",\"class\":%lld}", cid);
    t_ok(r, "class (teacher)");
    st = cJSON_GetObjectItem(t_obj(r, "class"), "students");
    cr_assert_eq(cJSON_GetArraySize(st), 3);
    cr_assert_str_eq(t_str(cJSON_GetArrayItem(st, 0), "username"), "alice");
    cr_assert_str_eq(t_str(cJSON_GetArrayItem(st, 1), "name"), "Ada L.");
    cJSON_Delete(r);

    r = tc_rpc(T, "{\"type\":\"class_reset_password\",\"class\":%lld,\"username\":\"kid1\"}", cid);
    t_ok(r, "reset");
    char pw2[32];
    snprintf(pw2, sizeof pw2, "%s", t_str(r, "password"));
    cJSON_Delete(r);
    cr_assert_str_neq(pw1, pw2);
    tconn *K2 = tc_open(S.port);
    r = tc_rpc(K2, "{\"type\":\"login\",\"username\":\"kid1\",\"password\":\"%s\"}", pw1);
    t_err(r, "unauthenticated", "old password");
    cJSON_Delete(r);
    r = tc_rpc(K2, "{\"type\":\"login\",\"username\":\"kid1\",\"password\":\"%s\"}", pw2);
    t_ok(r, "new password");
    cJSON_Delete(r);
    before = t_db_dump(S.db);
    err_unchanged(
        tc_rpc(T, "{\"type\":\"class_reset_password\",\"class\":%lld,\"username\":\"bob\"}", cid),
        "not_found", before, "reset of someone outside the class");

    /* A class-only tournament: members only. */
    long long tid = create_rr(",\"class\":1");
    r = tc_rpc(K, "{\"type\":\"tournament_join\",\"tournament\":%lld}", tid);
    t_ok(r, "a member joins");
    cJSON_Delete(r);
    before = t_db_dump(S.db);
    err_unchanged(tc_rpc(B, "{\"type\":\"tournament_join\",\"tournament\":%lld}", tid), "forbidden",
                  before, "an outsider joins a class tournament");
    r = tc_rpc(A, "{\"type\":\"classes\"}");
    t_ok(r, "classes");
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(r, "classes")), 1);
    cJSON_Delete(r);
    tc_close(K);
    tc_close(K2);
}

Test(tourney, swiss_late_join_and_forbidden)
{
    cJSON *r = tc_rpc(T, "{\"type\":\"tournament_create\",\"name\":\"Sw\",\"system\":\"swiss\","
                         "\"rounds\":2}");
    t_ok(r, "create swiss");
    long long tid = t_int(t_obj(r, "tournament"), "id");
    cJSON_Delete(r);
    join(A, tid);
    join(B, tid);
    join(C, tid);
    r = tc_rpc(T,
               "{\"type\":\"tournament_forbid\",\"tournament\":%lld,\"a\":\"alice\",\"b\":"
               "\"bob\"}",
               tid);
    t_ok(r, "forbid");
    cJSON_Delete(r);
    r = tc_rpc(T, "{\"type\":\"tournament_start\",\"tournament\":%lld}", tid);
    t_ok(r, "start");
    const cJSON *t = t_obj(r, "tournament");
    const cJSON *p = pairing(t, 1, 0);
    /* Forbidden: alice and bob are never paired; 3 players, one bye. */
    cr_assert(
        !((strcmp(t_str(p, "white"), "alice") == 0 && strcmp(t_str(p, "black"), "bob") == 0) ||
          (strcmp(t_str(p, "white"), "bob") == 0 && strcmp(t_str(p, "black"), "alice") == 0)));
    cr_assert_not_null(bye_of(t, 1));
    long long g = t_int(p, "game");
    cJSON_Delete(r);
    /* A late join in a running Swiss is allowed. */
    tconn *D = tc_open(S.port);
    t_register(D, "dave");
    r = tc_rpc(D, "{\"type\":\"tournament_join\",\"tournament\":%lld}", tid);
    t_ok(r, "late join");
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(t_obj(r, "tournament"), "players")), 4);
    cJSON_Delete(r);
    r = tc_rpc(T,
               "{\"type\":\"tournament_result\",\"tournament\":%lld,\"game\":%lld,"
               "\"result\":\"black\"}",
               tid, g);
    t_ok(r, "result");
    cJSON_Delete(r);
    r = tc_rpc(T, "{\"type\":\"tournament_pair\",\"tournament\":%lld}", tid);
    t_ok(r, "pair 2");
    t = t_obj(r, "tournament");
    const cJSON *ro = cJSON_GetArrayItem(cJSON_GetObjectItem(t, "rounds"), 1);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(ro, "pairings")), 2, "4 players: 2 boards");
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(ro, "bye")));
    cJSON_Delete(r);
    tc_close(D);
}

/* The notification of kind in c's list whose field `key` is value (a
 * number), or NULL; the list is c's (the latest 200), the caller deletes
 * *list. */
static const cJSON *note_of(tconn *c, const char *kind, const char *key, long long value,
                            cJSON **list)
{
    *list = tc_rpc(c, "{\"type\":\"notifications\",\"limit\":200}");
    t_ok(*list, "notifications");
    const cJSON *n;
    cJSON_ArrayForEach(n, cJSON_GetObjectItem(*list, "notifications"))
    {
        if (strcmp(t_str(n, "kind"), kind) == 0 && t_int(n, key) == value)
            return n;
    }
    return NULL;
}

/* Games of a rated tournament record what a rated challenge's games do at
 * their start (the players' ratings then) and update the ratings at the
 * end: game_end carries rating_change (PROTOCOL.md "Ratings": two new
 * players, White wins: 1662.31 / 1337.69). */
Test(tourney, rated_games_update_ratings)
{
    long long tid = create_rr(",\"rated\":true");
    join(A, tid);
    join(B, tid);
    cJSON *r = tc_rpc(T, "{\"type\":\"tournament_start\",\"tournament\":%lld}", tid);
    t_ok(r, "start");
    long long g = t_int(pairing(t_obj(r, "tournament"), 1, 0), "game");
    cJSON_Delete(r);
    cJSON *ev = tc_event(B, "game_start", T_TIMEOUT_MS);
    cr_assert_not_null(ev);
    const cJSON *gj = t_obj(ev, "game");
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(gj, "rated")));
    cr_assert_eq(cJSON_GetObjectItem(gj, "white_rating")->valuedouble, 1500, "start rating");
    cr_assert_eq(cJSON_GetObjectItem(gj, "black_rating")->valuedouble, 1500, "start rating");
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(gj, "rating_change")));
    cJSON_Delete(ev);
    /* alice is White (Berger for 2: 1-2) */
    resign(B, g, "resign");
    ev = tc_event(A, "game_end", T_TIMEOUT_MS);
    cr_assert_not_null(ev);
    const cJSON *ch = t_obj(ev, "rating_change");
    cr_assert(cJSON_IsObject(ch), "a rated tournament game counts");
    cr_assert_eq(cJSON_GetObjectItem(t_obj(ch, "white"), "before")->valuedouble, 1500);
    cr_assert_eq(cJSON_GetObjectItem(t_obj(ch, "white"), "after")->valuedouble, 1662.31);
    cr_assert_eq(cJSON_GetObjectItem(t_obj(ch, "black"), "after")->valuedouble, 1337.69);
    cJSON_Delete(ev);
    r = tc_rpc(A, "{\"type\":\"user\",\"username\":\"alice\"}");
    t_ok(r, "user");
    const cJSON *fam = t_obj(t_obj(t_obj(r, "user"), "ratings"), "alquerque");
    cr_assert_eq(cJSON_GetObjectItem(fam, "rating")->valuedouble, 1662.31);
    cJSON_Delete(r);
}

/* A player who is offline when a round pairs them finds it stored: a
 * tournament_round notification (their game, opponent and colour, or
 * their bye), and at the end a tournament_end one (rank, points). The
 * round robin of the first test: carol is away from the start. */
Test(tourney, offline_players_find_rounds_and_end)
{
    long long tid = create_rr("");
    join(A, tid);
    join(B, tid);
    join(C, tid);
    tc_close(C);
    C = NULL;
    cJSON *r = tc_rpc(T, "{\"type\":\"tournament_start\",\"tournament\":%lld}", tid);
    t_ok(r, "start");
    long long g1 = t_int(pairing(t_obj(r, "tournament"), 1, 0), "game");
    cJSON_Delete(r);

    C = tc_open(S.port);
    r = tc_rpc(C, "{\"type\":\"login\",\"username\":\"carol\",\"password\":\"" T_PW "\"}");
    t_ok(r, "carol is back");
    cJSON_Delete(r);
    cJSON *list;
    const cJSON *n = note_of(C, "tournament_round", "tournament", tid, &list);
    cr_assert_not_null(n, "carol's round 1 notice");
    cr_assert_eq(t_int(n, "round"), 1);
    cr_assert_eq(t_int(n, "game"), g1);
    cr_assert_str_eq(t_str(n, "opponent"), "bob");
    cr_assert_str_eq(t_str(n, "color"), "black");
    cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(n, "bye")));
    cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(n, "read")));
    cr_assert_str_eq(t_str(n, "name"), "Club");
    cJSON_Delete(list);
    n = note_of(A, "tournament_round", "tournament", tid, &list);
    cr_assert_not_null(n, "alice's bye notice");
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(n, "bye")));
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(n, "game")));
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(n, "opponent")));
    cJSON_Delete(list);
    cr_assert_eq(t_count_kind(B, "tournament_round"), 1, "bob: one notice for round 1");

    /* The rounds of the first test, by hand: alice 2.5, bob 2.5, carol 1. */
    const char *res[3] = {"white", "draw", "black"};
    for (int round = 1; round <= 3; round++) {
        r = get_t(tid);
        long long g = t_int(pairing(t_obj(r, "tournament"), round, 0), "game");
        cJSON_Delete(r);
        r = tc_rpc(T,
                   "{\"type\":\"tournament_result\",\"tournament\":%lld,\"game\":%lld,"
                   "\"result\":\"%s\"}",
                   tid, g, res[round - 1]);
        t_ok(r, "result");
        cJSON_Delete(r);
        if (round < 3) {
            r = tc_rpc(T, "{\"type\":\"tournament_pair\",\"tournament\":%lld}", tid);
            t_ok(r, "pair");
            cJSON_Delete(r);
        }
    }
    cr_assert_eq(t_count_kind(C, "tournament_round"), 3, "carol: a notice per round");
    n = note_of(C, "tournament_end", "tournament", tid, &list);
    cr_assert_not_null(n, "carol's end notice");
    cr_assert_eq(t_int(n, "rank"), 3);
    cr_assert_eq(cJSON_GetObjectItem(n, "points")->valuedouble, 1);
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(n, "reason")));
    cJSON_Delete(list);
    n = note_of(A, "tournament_end", "tournament", tid, &list);
    cr_assert_not_null(n);
    cr_assert_eq(t_int(n, "rank"), 1);
    cr_assert_eq(cJSON_GetObjectItem(n, "points")->valuedouble, 2.5);
    cJSON_Delete(list);
}

/* ---- the games of a tournament: export, Round and Event, the organiser's
 * tournament_result events (docs/protocol.md `export`, "Events") -------- */

/* The answer to `export` of tid's games by c (extra: more fields, each
 * starting with ","); the caller deletes it. */
static cJSON *export_t(tconn *c, long long tid, const char *extra)
{
    return tc_rpc(c, "{\"type\":\"export\",\"tournament\":%lld%s}", tid, extra ? extra : "");
}

/* The records of an ok export answer r, parsed (every one valid): *n of
 * them; free with qk_pdn_free_all(). */
static qk_pdn_record *records_of(const cJSON *r, size_t *n)
{
    t_ok(r, "export");
    const cJSON *recs = t_obj(r, "records"), *it;
    size_t len = 0;
    cJSON_ArrayForEach(it, recs) len += strlen(it->valuestring);
    char *text = calloc(len + 1, 1), *p = text;
    cJSON_ArrayForEach(it, recs) p = stpcpy(p, it->valuestring);
    qk_pdn_record *out = NULL;
    qk_pdn_error e;
    cr_assert_eq(qk_pdn_read(text, len, &out, n, &e), QK_PDN_OK, "%s", e.message);
    cr_assert_eq(*n, (size_t)cJSON_GetArraySize(recs));
    free(text);
    return out;
}

/* The next tournament_result event at c, checked field by field. */
static void check_result_event(tconn *c, long long tid, int round, long long game,
                               const char *white, const char *black, const char *result,
                               const char *reason, const char *kind, bool by_hand)
{
    cJSON *ev = tc_event(c, "tournament_result", T_TIMEOUT_MS);
    cr_assert_not_null(ev, "no tournament_result for game %lld", game);
    cr_assert_eq(t_int(ev, "tournament"), tid);
    cr_assert_eq(t_int(ev, "round"), round, "game %lld round", game);
    cr_assert_eq(t_int(ev, "game"), game);
    cr_assert_str_eq(t_str(ev, "white"), white);
    cr_assert_str_eq(t_str(ev, "black"), black);
    if (result)
        cr_assert_str_eq(t_str(ev, "result"), result, "game %lld result", game);
    else
        cr_assert(cJSON_IsNull(cJSON_GetObjectItem(ev, "result")), "game %lld: result", game);
    cr_assert_str_eq(t_str(ev, "reason"), reason, "game %lld reason", game);
    cr_assert_str_eq(t_str(ev, "kind"), kind, "game %lld kind", game);
    cr_assert_eq(cJSON_IsTrue(cJSON_GetObjectItem(ev, "by_hand")), by_hand, "game %lld", game);
    cJSON_Delete(ev);
}

/* No tournament_result reached c (a ping first, so all that was sent to c
 * before its answer is read). */
static void no_result_event(tconn *c, const char *who)
{
    cJSON *r = tc_rpc(c, "{\"type\":\"ping\"}");
    t_ok(r, "ping");
    cJSON_Delete(r);
    cJSON *ev = tc_event(c, "tournament_result", 0);
    cr_assert_null(ev, "%s got a tournament_result", who);
}

/*
 * A round robin of 4 organised by tina, who does not play: alice (1), bob
 * (2), carol (3), dave (4); the Berger table for 4:
 *   round 1: alice-dave (dave resigns: 1-0), bob-carol (carol resigns: 1-0)
 *   round 2: dave-carol (a draw set by hand), alice-bob (alice resigns: 0-1)
 *   round 3: bob-dave (aborted at ply 0: a double forfeit, "*"),
 *            carol-alice (carol withdraws: alice wins by forfeit, 0-1)
 * tina gets one tournament_result per game end with its exact fields; the
 * players get none. tina exports all 6 games, each with the Round of its
 * pairing and the tournament's name as Event; so does an outsider (an
 * open tournament); paging with limit and after; the export imports back.
 */
Test(tourney, organiser_exports_every_game_with_its_round)
{
    tconn *D = tc_open(S.port), *E = tc_open(S.port);
    t_register(D, "dave");
    t_register(E, "eve");
    cJSON *r = tc_rpc(T, "{\"type\":\"tournament_create\",\"name\":\"Club \\\"A\\\" cup\","
                         "\"system\":\"round_robin\"}");
    t_ok(r, "create");
    long long tid = t_int(t_obj(r, "tournament"), "id");
    cJSON_Delete(r);
    join(A, tid);
    join(B, tid);
    join(C, tid);
    join(D, tid);
    /* Before the start: no games, but the export answers. */
    r = export_t(T, tid, NULL);
    t_ok(r, "export before the start");
    cr_assert_eq(cJSON_GetArraySize(t_obj(r, "records")), 0);
    cJSON_Delete(r);

    r = tc_rpc(T, "{\"type\":\"tournament_start\",\"tournament\":%lld}", tid);
    t_ok(r, "start");
    const cJSON *t = t_obj(r, "tournament");
    cr_assert_eq(t_int(t, "rounds_total"), 3);
    long long g[3][2];
    static const char *const want[3][2][2] = {
        {{"alice", "dave"}, {"bob", "carol"}},
        {{"dave", "carol"}, {"alice", "bob"}},
        {{"bob", "dave"}, {"carol", "alice"}},
    };
    check_boards(t, 1, want[0], g[0]);
    cJSON_Delete(r);

    resign(D, g[0][0], "dave resigns");
    check_result_event(T, tid, 1, g[0][0], "alice", "dave", "white", "resign", "game", false);
    resign(C, g[0][1], "carol resigns");
    check_result_event(T, tid, 1, g[0][1], "bob", "carol", "white", "resign", "game", false);

    r = tc_rpc(T, "{\"type\":\"tournament_pair\",\"tournament\":%lld}", tid);
    t_ok(r, "pair 2");
    check_boards(t_obj(r, "tournament"), 2, want[1], g[1]);
    cJSON_Delete(r);
    r = tc_rpc(T,
               "{\"type\":\"tournament_result\",\"tournament\":%lld,\"game\":%lld,"
               "\"result\":\"draw\"}",
               tid, g[1][0]);
    t_ok(r, "draw by hand");
    cJSON_Delete(r);
    check_result_event(T, tid, 2, g[1][0], "dave", "carol", "draw", "agreement", "game", true);
    resign(A, g[1][1], "alice resigns");
    check_result_event(T, tid, 2, g[1][1], "alice", "bob", "black", "resign", "game", false);

    r = tc_rpc(T, "{\"type\":\"tournament_pair\",\"tournament\":%lld}", tid);
    t_ok(r, "pair 3");
    check_boards(t_obj(r, "tournament"), 3, want[2], g[2]);
    cJSON_Delete(r);
    r = tc_rpc(D, "{\"type\":\"abort\",\"game\":%lld}", g[2][0]);
    t_ok(r, "dave aborts");
    cJSON_Delete(r);
    check_result_event(T, tid, 3, g[2][0], "bob", "dave", NULL, "aborted", "forfeit", false);
    r = tc_rpc(C, "{\"type\":\"tournament_withdraw\",\"tournament\":%lld}", tid);
    t_ok(r, "carol withdraws");
    cJSON_Delete(r);
    check_result_event(T, tid, 3, g[2][1], "carol", "alice", "black", "resign", "forfeit", false);
    cJSON *ev = tc_event(T, "tournament_end", T_TIMEOUT_MS);
    cr_assert_not_null(ev);
    cJSON_Delete(ev);
    /* Only the organiser is told; and once per game. */
    no_result_event(T, "tina (a seventh)");
    no_result_event(A, "alice");
    no_result_event(B, "bob");
    no_result_event(D, "dave");

    /* tina, who plays no game, exports all six, oldest first. */
    static const char *const pdn_result[3][2] = {{"1-0", "1-0"}, {"1/2-1/2", "0-1"}, {"*", "0-1"}};
    tconn *who[] = {T, E, A};
    for (int w = 0; w < 3; w++) {
        r = export_t(who[w], tid, NULL);
        size_t n;
        qk_pdn_record *recs = records_of(r, &n);
        cr_assert_eq(n, 6, "export by %d: %zu records", w, n);
        cr_assert(cJSON_IsNull(cJSON_GetObjectItem(r, "next")));
        for (int k = 0; k < 6; k++) {
            int ro = k / 2, b = k % 2;
            char round[12];
            snprintf(round, sizeof round, "%d", ro + 1);
            cr_assert_str_eq(recs[k].round, round, "record %d", k);
            cr_assert_str_eq(recs[k].event, "Club \"A\" cup");
            cr_assert_str_eq(recs[k].site, "Qirkat");
            cr_assert_str_eq(recs[k].white, want[ro][b][0], "record %d", k);
            cr_assert_str_eq(recs[k].black, want[ro][b][1], "record %d", k);
            cr_assert_str_eq(qk_pdn_result_text(recs[k].result), pdn_result[ro][b], "record %d", k);
        }
        qk_pdn_free_all(recs, n);
        cJSON_Delete(r);
    }
    /* The text itself: the tags as written. */
    r = export_t(T, tid, ",\"limit\":1");
    t_ok(r, "export limit 1");
    const char *first = cJSON_GetArrayItem(t_obj(r, "records"), 0)->valuestring;
    cr_assert(strstr(first, "[Event \"Club \\\"A\\\" cup\"]\n"), "%s", first);
    cr_assert(strstr(first, "[Round \"1\"]\n"), "%s", first);
    cr_assert_eq(t_int(r, "next"), g[0][0]);
    cJSON_Delete(r);
    /* Pages of 4: four, then the last two. */
    r = export_t(T, tid, ",\"limit\":4");
    t_ok(r, "page 1");
    cr_assert_eq(cJSON_GetArraySize(t_obj(r, "records")), 4);
    long long next = t_int(r, "next");
    cr_assert_eq(next, g[1][1]);
    cJSON_Delete(r);
    char after[64];
    snprintf(after, sizeof after, ",\"limit\":4,\"after\":%lld", next);
    r = export_t(T, tid, after);
    size_t n;
    qk_pdn_record *recs = records_of(r, &n);
    cr_assert_eq(n, 2);
    cr_assert_str_eq(recs[0].round, "3");
    cr_assert_str_eq(recs[1].round, "3");
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(r, "next")));
    qk_pdn_free_all(recs, n);
    cJSON_Delete(r);
    /* user still narrows it: bob's three games. */
    r = export_t(E, tid, ",\"user\":\"bob\",\"format\":\"json\"");
    t_ok(r, "bob's games");
    const cJSON *gs = t_obj(r, "records");
    cr_assert_eq(cJSON_GetArraySize(gs), 3);
    cr_assert_eq(t_int(cJSON_GetArrayItem(gs, 0), "id"), g[0][1]);
    cr_assert_eq(t_int(cJSON_GetArrayItem(gs, 0), "round"), 1);
    cr_assert_eq(t_int(cJSON_GetArrayItem(gs, 2), "id"), g[2][0]);
    cr_assert_eq(t_int(cJSON_GetArrayItem(gs, 2), "round"), 3);
    cJSON_Delete(r);
    /* A game outside tournaments keeps Round "-". */
    long long other = t_new_game(A, B, "bob", "alquerque");
    r = tc_rpc(A, "{\"type\":\"export\",\"game\":%lld}", other);
    t_ok(r, "export a casual game");
    first = cJSON_GetArrayItem(t_obj(r, "records"), 0)->valuestring;
    cr_assert(strstr(first, "[Round \"-\"]\n"), "%s", first);
    cr_assert(strstr(first, "[Event \"Qirkat casual game\"]\n"), "%s", first);
    cJSON_Delete(r);

    /* The whole export imports back: the same moves and results. */
    r = export_t(T, tid, NULL);
    const cJSON *it;
    size_t len = 0;
    cJSON_ArrayForEach(it, t_obj(r, "records")) len += strlen(it->valuestring);
    char *text = calloc(len + 1, 1), *p = text;
    cJSON_ArrayForEach(it, t_obj(r, "records")) p = stpcpy(p, it->valuestring);
    cJSON_Delete(r);
    cJSON *q = cJSON_CreateObject();
    cJSON_AddStringToObject(q, "type", "import");
    cJSON_AddStringToObject(q, "pdn", text);
    char *qs = cJSON_PrintUnformatted(q);
    cJSON_Delete(q);
    free(text);
    r = tc_rpc(T, "%s", qs);
    free(qs);
    t_ok(r, "import the tournament's games");
    const cJSON *ids = t_obj(r, "games");
    cr_assert_eq(cJSON_GetArraySize(ids), 6);
    for (int k = 0; k < 6; k++) {
        long long imp = (long long)cJSON_GetArrayItem(ids, k)->valuedouble;
        cJSON *a = tc_rpc(T, "{\"type\":\"game\",\"game\":%lld}", g[k / 2][k % 2]);
        cJSON *b = tc_rpc(T, "{\"type\":\"game\",\"game\":%lld}", imp);
        t_ok(a, "game");
        t_ok(b, "imported game");
        const cJSON *ga = t_obj(a, "game"), *gb = t_obj(b, "game");
        char *ma = cJSON_PrintUnformatted(cJSON_GetObjectItem(ga, "moves"));
        char *mb = cJSON_PrintUnformatted(cJSON_GetObjectItem(gb, "moves"));
        cr_assert_str_eq(ma, mb, "record %d: moves", k);
        free(ma);
        free(mb);
        cr_assert_str_eq(t_text(cJSON_GetObjectItem(gb, "result")),
                         t_text(cJSON_GetObjectItem(ga, "result")));
        cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(gb, "imported")));
        /* An imported record is no tournament game. */
        cr_assert(cJSON_IsNull(cJSON_GetObjectItem(gb, "tournament")));
        cr_assert(cJSON_IsNull(cJSON_GetObjectItem(gb, "round")));
        cJSON_Delete(a);
        cJSON_Delete(b);
    }
    cJSON_Delete(r);
    /* ... and is not in the tournament's export. */
    r = export_t(T, tid, NULL);
    cr_assert_eq(cJSON_GetArraySize(t_obj(r, "records")), 6);
    cJSON_Delete(r);

    char *before = t_db_dump(S.db);
    err_unchanged(export_t(E, 999, NULL), "not_found", before, "export of no tournament");
    tc_close(D);
    tc_close(E);
}

/*
 * A class-only tournament's games: its organiser (the teacher), its
 * players and the class's other members export them all; an outsider
 * gets forbidden and no games, with or without a user filter. The
 * tournament's name has a tab: the Event tag has a space there.
 */
Test(tourney, class_tournament_games_for_the_class_only)
{
    long long cid = class_of_abc("6A");
    cJSON *r;
    tconn *E = tc_open(S.port);
    t_register(E, "eve");
    r = tc_rpc(T,
               "{\"type\":\"tournament_create\",\"name\":\"6A\\tfinals\",\"system\":"
               "\"round_robin\",\"class\":%lld}",
               cid);
    t_ok(r, "create");
    long long tid = t_int(t_obj(r, "tournament"), "id");
    cJSON_Delete(r);
    join(A, tid);
    join(B, tid);
    r = tc_rpc(T, "{\"type\":\"tournament_start\",\"tournament\":%lld}", tid);
    t_ok(r, "start");
    long long g = t_int(pairing(t_obj(r, "tournament"), 1, 0), "game");
    cJSON_Delete(r);
    resign(B, g, "resign");
    check_result_event(T, tid, 1, g, "alice", "bob", "white", "resign", "game", false);

    tconn *see[] = {T, A, B, C}; /* teacher-organiser, the players, a member */
    for (int i = 0; i < 4; i++) {
        r = export_t(see[i], tid, NULL);
        size_t n;
        qk_pdn_record *recs = records_of(r, &n);
        cr_assert_eq(n, 1, "viewer %d", i);
        cr_assert_str_eq(recs[0].round, "1");
        cr_assert_str_eq(recs[0].event, "6A finals");
        cr_assert_str_eq(recs[0].white, "alice");
        cr_assert_str_eq(qk_pdn_result_text(recs[0].result), "1-0");
        qk_pdn_free_all(recs, n);
        cJSON_Delete(r);
    }
    char *before = t_db_dump(S.db);
    r = export_t(E, tid, NULL);
    cr_assert_null(cJSON_GetObjectItem(r, "records"));
    err_unchanged(r, "forbidden", before, "an outsider exports a class tournament");
    before = t_db_dump(S.db);
    err_unchanged(export_t(E, tid, ",\"user\":\"alice\""), "forbidden", before,
                  "an outsider exports a player's games of a class tournament");
    before = t_db_dump(S.db);
    err_unchanged(export_t(E, tid, ",\"format\":\"json\""), "forbidden", before,
                  "an outsider exports a class tournament as JSON");
    tc_close(E);
}

/* ---- who sees a tournament: `tournament`, `tournaments`,
 * `tournament_standings` (docs/protocol.md "Classes and tournaments") --- */

/* The ids of c's `tournaments` (extra: more fields), newest first, into
 * ids (at most max); returns how many. Every item is checked to be an
 * object with an id and players. */
static int list_ids(tconn *c, const char *extra, long long *ids, int max)
{
    cJSON *r = tc_rpc(c, "{\"type\":\"tournaments\"%s}", extra ? extra : "");
    t_ok(r, "tournaments");
    const cJSON *a = cJSON_GetObjectItem(r, "tournaments"), *t;
    cr_assert(cJSON_IsArray(a), "%s", t_text(r));
    int n = 0;
    cJSON_ArrayForEach(t, a)
    {
        cr_assert_lt(n, max, "%s", t_text(r));
        cr_assert(cJSON_IsArray(cJSON_GetObjectItem(t, "players")));
        ids[n++] = t_int(t, "id");
    }
    cJSON_Delete(r);
    return n;
}

/* c's `tournaments` (extra: more fields) are exactly want[0..n), in order. */
static void list_is(tconn *c, const char *extra, const long long *want, int n, const char *who)
{
    long long got[8];
    int k = list_ids(c, extra, got, 8);
    cr_assert_eq(k, n, "%s%s: %d tournaments listed, expected %d", who, extra ? extra : "", k, n);
    for (int i = 0; i < n; i++)
        cr_assert_eq(got[i], want[i], "%s%s: item %d is %lld, expected %lld", who,
                     extra ? extra : "", i, got[i], want[i]);
}

/* r: forbidden with the class-only message and nothing of the tournament;
 * the database is as before (freed). */
static void class_only(cJSON *r, char *before, const char *what)
{
    cr_assert_str_eq(t_str(r, "message"), "this tournament is for its class only", "%s: %s", what,
                     t_text(r));
    cr_assert_null(cJSON_GetObjectItem(r, "tournament"), "%s", what);
    cr_assert_null(cJSON_GetObjectItem(r, "standings"), "%s", what);
    cr_assert_null(cJSON_GetObjectItem(r, "csv"), "%s", what);
    err_unchanged(r, "forbidden", before, what);
}

/*
 * tina teaches 6B (alice, bob, carol); dave teaches 7C (nobody); eve is in
 * no class. Tournaments, oldest first: o (tina's, open to all), k (tina's
 * for 6B: alice and bob play, running), d (dave's for 7C). A class-only
 * tournament is seen by its class's teacher, its members (carol, who does
 * not play, too) and its players: `tournament` and `tournament_standings`
 * (JSON and CSV) answer anyone else forbidden (as `export` and
 * `tournament_join` do), and `tournaments` leaves it out.
 */
Test(tourney, class_tournament_seen_by_its_class_only)
{
    long long cid = class_of_abc("6B");
    cJSON *r;
    tconn *D = tc_open(S.port), *E = tc_open(S.port);
    t_register(D, "dave");
    t_register(E, "eve");
    r = tc_rpc(D, "{\"type\":\"class_create\",\"name\":\"7C\"}");
    t_ok(r, "class_create 7C");
    long long cid7 = t_int(t_obj(r, "class"), "id");
    cJSON_Delete(r);

    long long o = create_rr("");
    char extra[48];
    snprintf(extra, sizeof extra, ",\"class\":%lld", cid);
    long long k = create_rr(extra);
    join(A, k);
    join(B, k);
    r = tc_rpc(T, "{\"type\":\"tournament_start\",\"tournament\":%lld}", k);
    t_ok(r, "start");
    long long g = t_int(pairing(t_obj(r, "tournament"), 1, 0), "game");
    cJSON_Delete(r);
    r = tc_rpc(D,
               "{\"type\":\"tournament_create\",\"name\":\"7C cup\",\"system\":\"round_robin\","
               "\"class\":%lld}",
               cid7);
    t_ok(r, "create 7C cup");
    long long d = t_int(t_obj(r, "tournament"), "id");
    cJSON_Delete(r);

    /* `tournament`: the whole object for the teacher, the players and a
     * member who does not play. */
    tconn *see[] = {T, A, B, C};
    const char *names[] = {"tina (teacher)", "alice (player)", "bob (player)", "carol (member)"};
    for (int i = 0; i < 4; i++) {
        r = tc_rpc(see[i], "{\"type\":\"tournament\",\"tournament\":%lld}", k);
        t_ok(r, names[i]);
        const cJSON *t = t_obj(r, "tournament");
        cr_assert_eq(t_int(t, "id"), k);
        cr_assert_eq(t_int(t, "class"), cid);
        const cJSON *pl = cJSON_GetObjectItem(t, "players");
        cr_assert_eq(cJSON_GetArraySize(pl), 2, "%s", names[i]);
        cr_assert_str_eq(cJSON_GetArrayItem(pl, 0)->valuestring, "alice");
        cr_assert_str_eq(cJSON_GetArrayItem(pl, 1)->valuestring, "bob");
        cr_assert_eq(t_int(pairing(t, 1, 0), "game"), g, "%s", names[i]);
        cJSON_Delete(r);
    }
    /* ... and nothing for an outsider, nor for another class's teacher. */
    char *before = t_db_dump(S.db);
    class_only(tc_rpc(E, "{\"type\":\"tournament\",\"tournament\":%lld}", k), before,
               "an outsider asks for a class tournament");
    before = t_db_dump(S.db);
    class_only(tc_rpc(D, "{\"type\":\"tournament\",\"tournament\":%lld}", k), before,
               "another class's teacher asks for it");
    before = t_db_dump(S.db);
    class_only(tc_rpc(T, "{\"type\":\"tournament\",\"tournament\":%lld}", d), before,
               "tina asks for dave's class tournament");
    before = t_db_dump(S.db);
    class_only(tc_rpc(A, "{\"type\":\"tournament\",\"tournament\":%lld}", d), before,
               "a member of another class asks for it");
    before = t_db_dump(S.db);
    r = tc_rpc(E, "{\"type\":\"tournament\",\"tournament\":999}");
    cr_assert_str_eq(t_str(r, "message"), "no such tournament");
    err_unchanged(r, "not_found", before, "no such tournament");
    r = tc_rpc(E, "{\"type\":\"tournament\",\"tournament\":%lld}", o);
    t_ok(r, "an outsider asks for an open tournament");
    cr_assert_eq(t_int(t_obj(r, "tournament"), "id"), o);
    cJSON_Delete(r);
    r = tc_rpc(D, "{\"type\":\"tournament\",\"tournament\":%lld}", d);
    t_ok(r, "dave asks for his own");
    cJSON_Delete(r);

    /* `tournament_standings`, JSON and CSV: the same rule. */
    r = tc_rpc(C, "{\"type\":\"tournament_standings\",\"tournament\":%lld}", k);
    t_ok(r, "standings (member)");
    const cJSON *st = cJSON_GetObjectItem(r, "standings");
    cr_assert_eq(cJSON_GetArraySize(st), 2);
    cr_assert_str_eq(t_str(cJSON_GetArrayItem(st, 0), "username"), "alice");
    cJSON_Delete(r);
    /* carol's CSV is tina's file. */
    cJSON *mine =
        tc_rpc(T, "{\"type\":\"tournament_standings\",\"tournament\":%lld,\"format\":\"csv\"}", k);
    t_ok(mine, "CSV standings (teacher)");
    r = tc_rpc(C, "{\"type\":\"tournament_standings\",\"tournament\":%lld,\"format\":\"csv\"}", k);
    t_ok(r, "CSV standings (member)");
    cr_assert_str_eq(t_str(r, "csv"), t_str(mine, "csv"));
    cr_assert_eq(strncmp(t_str(r, "csv"), "rank,username,points,SB,BH,DE,WIN\r\n", 35), 0, "%s",
                 t_str(r, "csv"));
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(r, "csv_lines")), 3);
    cJSON_Delete(r);
    cJSON_Delete(mine);
    before = t_db_dump(S.db);
    class_only(tc_rpc(E, "{\"type\":\"tournament_standings\",\"tournament\":%lld}", k), before,
               "an outsider's standings of a class tournament");
    before = t_db_dump(S.db);
    class_only(
        tc_rpc(E, "{\"type\":\"tournament_standings\",\"tournament\":%lld,\"format\":\"csv\"}", k),
        before, "an outsider's CSV standings of a class tournament");
    before = t_db_dump(S.db);
    class_only(tc_rpc(T,
                      "{\"type\":\"tournament_standings\",\"tournament\":%lld,\"format\":"
                      "\"json\"}",
                      d),
               before, "tina's standings of dave's class tournament");
    /* The format is checked first; no such tournament stays not_found. */
    before = t_db_dump(S.db);
    err_unchanged(tc_rpc(E,
                         "{\"type\":\"tournament_standings\",\"tournament\":%lld,\"format\":"
                         "\"xml\"}",
                         k),
                  "bad_request", before, "a bad format");
    before = t_db_dump(S.db);
    err_unchanged(tc_rpc(E, "{\"type\":\"tournament_standings\",\"tournament\":999,\"format\":"
                            "\"csv\"}"),
                  "not_found", before, "CSV standings of no tournament");
    r = tc_rpc(E, "{\"type\":\"tournament_standings\",\"tournament\":%lld,\"format\":\"csv\"}", o);
    t_ok(r, "an outsider's CSV standings of an open tournament");
    cJSON_Delete(r);

    /* `tournaments`: newest first, without those one may not see. */
    long long all_tina[] = {k, o}, all_d[] = {d, o}, only_o[] = {o}, only_k[] = {k};
    list_is(T, NULL, all_tina, 2, "tina (teacher)");
    list_is(A, NULL, all_tina, 2, "alice (player)");
    list_is(C, NULL, all_tina, 2, "carol (member)");
    list_is(E, NULL, only_o, 1, "eve (outsider)");
    list_is(D, NULL, all_d, 2, "dave (7C's teacher)");
    list_is(A, ",\"status\":\"running\"", only_k, 1, "alice");
    list_is(E, ",\"status\":\"running\"", NULL, 0, "eve");
    list_is(E, ",\"status\":\"open\"", only_o, 1, "eve");
    list_is(T, ",\"status\":\"open\"", only_o, 1, "tina");
    list_is(D, ",\"status\":\"open\"", all_d, 2, "dave");
    list_is(D, ",\"status\":\"running\"", NULL, 0, "dave");

    /* Joining one (open: k runs, and a running round robin is conflict
     * for anyone) is still refused, and changes nothing. */
    before = t_db_dump(S.db);
    err_unchanged(tc_rpc(E, "{\"type\":\"tournament_join\",\"tournament\":%lld}", d), "forbidden",
                  before, "an outsider joins a class tournament");
    before = t_db_dump(S.db);
    err_unchanged(tc_rpc(T, "{\"type\":\"tournament_join\",\"tournament\":%lld}", d), "forbidden",
                  before, "tina joins dave's class tournament");
    tc_close(D);
    tc_close(E);
}

/*
 * The list is at most 100, newest first, of those one may see: hidden
 * ones are skipped, not counted. tina makes 100 open tournaments, then 3
 * for her class (the newest): eve gets the 100 open ones all the same,
 * tina the 3 and the 97 newest open ones.
 */
Test(tourney, tournaments_list_skips_hidden_without_counting, .timeout = 120)
{
    cJSON *r = tc_rpc(T, "{\"type\":\"class_create\",\"name\":\"8D\"}");
    t_ok(r, "class_create");
    long long cid = t_int(t_obj(r, "class"), "id");
    cJSON_Delete(r);
    long long open[100], cls[3];
    for (int i = 0; i < 100; i++)
        open[i] = create_rr("");
    char extra[48];
    snprintf(extra, sizeof extra, ",\"class\":%lld", cid);
    for (int i = 0; i < 3; i++)
        cls[i] = create_rr(extra);
    tconn *E = tc_open(S.port);
    t_register(E, "eve");
    long long got[101];
    int n = list_ids(E, NULL, got, 101);
    cr_assert_eq(n, 100, "eve: %d", n);
    for (int i = 0; i < 100; i++)
        cr_assert_eq(got[i], open[99 - i], "eve: item %d", i);
    n = list_ids(E, ",\"status\":\"open\"", got, 101);
    cr_assert_eq(n, 100, "eve, open: %d", n);
    cr_assert_eq(got[99], open[0]);
    n = list_ids(T, NULL, got, 101);
    cr_assert_eq(n, 100, "tina: %d", n);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(got[i], cls[2 - i], "tina: item %d", i);
    for (int i = 3; i < 100; i++)
        cr_assert_eq(got[i], open[102 - i], "tina: item %d", i);
    tc_close(E);
}

/* A username taken by someone else while the teacher's passwords were
 * being hashed (off the loop): the list is refused with `conflict` before
 * anything is written. It used to be undone by losing the batch, which
 * answered `internal` and took every other request of that batch with it
 * (batch.h batch_end_or_keep keeps a batch over several loop turns). The
 * 1.5 s hash delay and the 0.4 s gap only order the two hashes: the
 * register's ends first. */
Test(classes_race, a_username_taken_while_hashing_is_a_conflict, .timeout = 90)
{
    tsrv s;
    tsrv_start(&s, "QK_TEST_HASH_DELAY_MS=1500");
    tconn *Tc = tc_open(s.port), *M = tc_open(s.port);
    t_register(Tc, "teach");
    cJSON *r = tc_rpc(Tc, "{\"type\":\"class_create\",\"name\":\"5B\"}");
    t_ok(r, "class_create");
    long long cid = t_int(t_obj(r, "class"), "id");
    cJSON_Delete(r);
    cr_assert(tc_sendf(M, "{\"type\":\"register\",\"id\":\"m\",\"username\":\"zed\","
                          "\"password\":\"zed-secret-1\"}\n"));
    usleep(400 * 1000);
    r = tc_rpc(Tc,
               "{\"type\":\"class_add_students\",\"class\":%lld,\"students\":["
               "{\"username\":\"yod\"},{\"username\":\"zed\"}]}",
               cid);
    t_err(r, "conflict", "a name taken while hashing");
    cr_assert_str_eq(t_str(r, "message"), "a username was taken meanwhile");
    cJSON_Delete(r);
    r = tc_reply(M, 10000);
    t_ok(r, "the other register");
    cJSON_Delete(r);
    cr_assert_eq(t_db_count(s.db, "users"), 2, "teach and zed; yod was not made");
    cr_assert_eq(t_db_count(s.db, "class_members"), 0);
    tc_close(Tc);
    tc_close(M);
    tsrv_cleanup(&s);
}
