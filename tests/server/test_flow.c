/*
 * Whole flows through the real server: a recorded game played to its end
 * with every event checked, logins that bring back open challenges and
 * active games, the challenge life cycle and its events, game listings,
 * durability across a crash, and the group commit's failure path (an
 * injected commit failure answers `internal` and leaves memory as the
 * database is).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helper.h"

static tsrv S;

static void teardown(void)
{
    tsrv_stop(&S);
    tsrv_cleanup(&S);
}

static void setup(void)
{
    tsrv_start(&S, NULL);
}

TestSuite(flow, .init = setup, .fini = teardown, .timeout = 120);

/* Game n (0-based) of data/games/VARIANT.jsonl; caller cJSON_Deletes. */
static cJSON *recorded(const char *variant, int n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/data/games/%s.jsonl", t_shared(), variant);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open %s (QK_SHARED)", path);
    static char line[1 << 20];
    cJSON *g = NULL;
    for (int i = 0; i <= n && fgets(line, sizeof line, f); i++)
        if (i == n)
            g = cJSON_Parse(line);
    fclose(f);
    cr_assert_not_null(g, "%s: no game %d", path, n);
    return g;
}

/* Play game 0 of the variant's recorded games move by move. compact: every
 * move asks for the compact answer (docs/protocol.md `move`), which must
 * carry the move event's fields and the recorded legal moves of the next
 * ply, and no game object. */
static void play_recorded_as(const char *variant, bool compact)
{
    cJSON *rec = recorded(variant, 0);
    const char *start = t_str(rec, "start");
    const cJSON *moves = t_obj(rec, "moves"), *legal = t_obj(rec, "legal");
    tconn *w = tc_open(S.port), *b = tc_open(S.port), *watch = tc_open(S.port);
    t_register(w, "white1");
    t_register(b, "black1");
    t_register(watch, "watcher");
    cJSON *r = tc_rpc(w,
                      "{\"type\":\"challenge\",\"to\":\"black1\",\"variant\":\"%s\","
                      "\"color\":\"white\",\"position\":\"%s\"}",
                      variant, start);
    t_ok(r, "challenge with the recorded start");
    long long cid = t_int(t_obj(r, "challenge"), "id");
    cJSON_Delete(r);
    r = tc_rpc(b, "{\"type\":\"accept\",\"challenge\":%lld}", cid);
    t_ok(r, "accept");
    long long gid = t_int(t_obj(r, "game"), "id");
    cJSON_Delete(r);
    r = tc_rpc(watch, "{\"type\":\"subscribe\",\"game\":%lld}", gid);
    t_ok(r, "subscribe");
    cJSON_Delete(r);
    int n = cJSON_GetArraySize(moves);
    bool white_moves = strstr(start, " w ") != NULL;
    for (int i = 0; i < n; i++) {
        tconn *mover = white_moves ? w : b, *other = white_moves ? b : w;
        const char *mv = cJSON_GetArrayItem(moves, i)->valuestring;
        /* Before the move, the server's legal moves are the recorded ones. */
        r = tc_rpc(other, "{\"type\":\"game\",\"game\":%lld}", gid);
        const cJSON *lm = t_obj(t_obj(r, "game"), "legal_moves");
        const cJSON *want = cJSON_GetArrayItem(legal, i);
        char *a = cJSON_PrintUnformatted(lm), *e = cJSON_PrintUnformatted(want);
        cr_assert_str_eq(a, e, "legal moves at ply %d", i);
        free(a);
        free(e);
        cJSON_Delete(r);
        r = tc_rpc(mover, "{\"type\":\"move\",\"game\":%lld,\"ply\":%d,\"move\":\"%s\"%s}", gid,
                   i, mv, compact ? ",\"compact\":true" : "");
        t_ok(r, mv);
        const cJSON *g = r;
        if (compact) {
            cr_assert(!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(r, "game")),
                      "a compact answer has no game object: %s", t_text(r));
            cr_assert_eq(t_int(r, "game"), gid);
            cr_assert_eq(t_int(r, "ply"), i);
            cr_assert_str_eq(t_str(r, "move"), mv);
            const cJSON *next = cJSON_GetArrayItem(legal, i + 1);
            char *got = cJSON_PrintUnformatted(t_obj(r, "legal_moves"));
            char *exp = next ? cJSON_PrintUnformatted(next) : strdup("[]");
            cr_assert_str_eq(got, exp, "compact answer's legal moves after ply %d", i);
            free(got);
            free(exp);
        } else {
            g = t_obj(r, "game");
            cr_assert_eq(t_int(g, "ply"), i + 1);
        }
        /* Both players (the mover too) and the watcher get the event. */
        tconn *seen[3] = {other, watch, mover};
        for (int k = 0; k < 3; k++) {
            cJSON *ev = tc_event(seen[k], "move", T_TIMEOUT_MS);
            cr_assert_not_null(ev, "no move event for ply %d", i);
            cr_assert_eq(t_int(ev, "game"), gid);
            cr_assert_eq(t_int(ev, "ply"), i);
            cr_assert_str_eq(t_str(ev, "move"), mv);
            cr_assert_str_eq(t_str(ev, "position"), t_str(g, "position"));
            cr_assert_str_eq(t_str(ev, "turn"), t_str(g, "turn"));
            cr_assert_str_eq(t_str(ev, "status"), t_str(g, "status"));
            cJSON_Delete(ev);
        }
        if (compact && i == 0) {
            /* A resend of the move just played: the same compact fields. */
            cJSON *d = tc_rpc(mover,
                              "{\"type\":\"move\",\"game\":%lld,\"ply\":0,\"move\":\"%s\","
                              "\"compact\":true}",
                              gid, mv);
            t_ok(d, "resend");
            cr_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(d, "duplicate")), "%s",
                      t_text(d));
            cr_assert_eq(t_int(d, "ply"), 0);
            cr_assert_str_eq(t_str(d, "position"), t_str(r, "position"));
            cJSON_Delete(d);
        }
        cJSON_Delete(r);
        white_moves = !white_moves;
    }
    tconn *all[3] = {w, b, watch};
    for (int k = 0; k < 3; k++) {
        cJSON *ev = tc_event(all[k], "game_end", T_TIMEOUT_MS);
        cr_assert_not_null(ev, "no game_end");
        cr_assert_str_eq(t_str(ev, "result"), t_str(rec, "result"));
        cr_assert_str_eq(t_str(ev, "reason"), t_str(rec, "reason"));
        cJSON_Delete(ev);
    }
    r = tc_rpc(watch, "{\"type\":\"game\",\"game\":%lld}", gid);
    const cJSON *g = t_obj(r, "game");
    cr_assert_str_eq(t_str(g, "status"), "finished");
    cr_assert_str_eq(t_str(g, "position"), t_str(rec, "final"));
    cr_assert_eq(cJSON_GetArraySize(t_obj(g, "moves")), n);
    cJSON_Delete(r);
    cr_assert_eq(t_db_count(S.db, "moves"), n);
    tc_close(w);
    tc_close(b);
    tc_close(watch);
    cJSON_Delete(rec);
}

static void play_recorded(const char *variant)
{
    play_recorded_as(variant, false);
}

Test(flow, recorded_alquerque_game_with_compact_answers)
{
    play_recorded_as("alquerque", true);
}

Test(flow, recorded_alquerque_game)
{
    play_recorded("alquerque");
}

Test(flow, recorded_konane_game_black_first)
{
    play_recorded("alquerkonane-6x4");
}

Test(flow, recorded_stoep_long_game)
{
    play_recorded("alquerque-stoep-long");
}

Test(flow, login_brings_back_challenges_and_games)
{
    tconn *a = tc_open(S.port), *b = tc_open(S.port);
    t_register(a, "ann");
    cJSON *r = tc_rpc(b, "{\"type\":\"register\",\"username\":\"ben\",\"password\":\"pw\","
                         "\"bot\":true}");
    t_ok(r, "register a bot");
    cr_assert(cJSON_IsTrue(t_obj(t_obj(r, "user"), "bot")));
    char token[80];
    snprintf(token, sizeof token, "%s", t_str(r, "token"));
    cr_assert_eq(strlen(token), 64);
    cJSON_Delete(r);
    long long gid = t_new_game(a, b, "ben", "alquerque");
    r = tc_rpc(a, "{\"type\":\"challenge\",\"to\":\"ben\",\"color\":\"black\","
                  "\"time_control\":{\"kind\":\"correspondence\",\"days_per_move\":3}}");
    t_ok(r, "a second challenge");
    const cJSON *tcj = t_obj(t_obj(r, "challenge"), "time_control");
    cr_assert_eq(t_int(tcj, "days_per_move"), 3);
    cJSON_Delete(r);
    tc_close(b);

    /* Log in again with the token: the open challenge and the game. */
    tconn *b2 = tc_open(S.port);
    r = tc_rpc(b2, "{\"type\":\"login\",\"token\":\"%s\"}", token);
    t_ok(r, "token login");
    cr_assert_str_eq(t_str(t_obj(r, "user"), "username"), "ben");
    cr_assert_eq(cJSON_GetArraySize(t_obj(r, "challenges")), 1, "%s", t_text(r));
    const cJSON *games = t_obj(r, "games");
    cr_assert_eq(cJSON_GetArraySize(games), 1);
    cr_assert_eq(t_int(cJSON_GetArrayItem(games, 0), "id"), gid);
    cr_assert_not_null(t_obj(cJSON_GetArrayItem(games, 0), "legal_moves"));
    cJSON_Delete(r);
    /* Password login answers the same, with a new token. */
    tconn *b3 = tc_open(S.port);
    r = tc_rpc(b3, "{\"type\":\"login\",\"username\":\"BEN\",\"password\":\"pw\"}");
    t_ok(r, "password login, name in another case");
    cr_assert_str_neq(t_str(r, "token"), token);
    cr_assert_eq(cJSON_GetArraySize(t_obj(r, "games")), 1);
    cJSON_Delete(r);
    /* Logout forgets the token used by that connection. */
    r = tc_rpc(b2, "{\"type\":\"logout\"}");
    t_ok(r, "logout");
    cJSON_Delete(r);
    r = tc_rpc(b2, "{\"type\":\"games\"}");
    t_err(r, "unauthenticated", "after logout");
    cJSON_Delete(r);
    r = tc_rpc(b2, "{\"type\":\"login\",\"token\":\"%s\"}", token);
    t_err(r, "unauthenticated", "token after logout");
    cJSON_Delete(r);
    tc_close(a);
    tc_close(b2);
    tc_close(b3);
}

Test(flow, challenge_events_and_open_seeks)
{
    tconn *a = tc_open(S.port), *b = tc_open(S.port), *c = tc_open(S.port);
    tconn *anon = tc_open(S.port);
    t_register(a, "amy");
    t_register(b, "bo");
    t_register(c, "cy");
    /* Directed: only the target (and the challenger) hear of it. */
    cJSON *r = tc_rpc(a, "{\"type\":\"challenge\",\"to\":\"bo\"}");
    long long c1 = t_int(t_obj(r, "challenge"), "id");
    cr_assert_str_eq(t_str(t_obj(r, "challenge"), "color"), "random");
    cr_assert_str_eq(t_str(t_obj(r, "challenge"), "variant"), "alquerque");
    cJSON_Delete(r);
    cJSON *ev = tc_event(b, "challenge", T_TIMEOUT_MS);
    cr_assert_not_null(ev);
    cr_assert_eq(t_int(t_obj(ev, "challenge"), "id"), c1);
    cJSON_Delete(ev);
    r = tc_rpc(b, "{\"type\":\"decline\",\"challenge\":%lld,\"reason\":\"later\"}", c1);
    t_ok(r, "decline");
    cJSON_Delete(r);
    ev = tc_event(a, "challenge_declined", T_TIMEOUT_MS);
    cr_assert_not_null(ev);
    cr_assert_str_eq(t_str(t_obj(ev, "challenge"), "reason"), "later");
    cJSON_Delete(ev);
    tc_sync(c);
    cr_assert_null(tc_event(c, "challenge", 0), "cy heard of a challenge to bo");
    /* An open seek: every logged-in connection in the lobby hears of it,
     * not anon (issue 9: seeks go only to the lobby's subscribers). */
    tconn *lobby[2] = {b, c};
    for (int k = 0; k < 2; k++) {
        r = tc_rpc(lobby[k], "{\"type\":\"lobby\",\"action\":\"subscribe\"}");
        t_ok(r, "lobby");
        cJSON_Delete(r);
    }
    r = tc_rpc(a, "{\"type\":\"challenge\",\"variant\":\"alquerkonane-5x5\"}");
    t_ok(r, "open seek");
    long long c2 = t_int(t_obj(r, "challenge"), "id");
    cr_assert(cJSON_IsNull(t_obj(t_obj(r, "challenge"), "to")));
    cJSON_Delete(r);
    tconn *hear[2] = {b, c};
    for (int k = 0; k < 2; k++) {
        ev = tc_event(hear[k], "challenge", T_TIMEOUT_MS);
        cr_assert_not_null(ev);
        cr_assert_eq(t_int(t_obj(ev, "challenge"), "id"), c2);
        cJSON_Delete(ev);
    }
    r = tc_rpc(anon, "{\"type\":\"ping\"}");
    cJSON_Delete(r);
    cr_assert_null(tc_event(anon, "challenge", 0), "an anonymous connection got an event");
    r = tc_rpc(c, "{\"type\":\"challenges\"}");
    cr_assert_eq(cJSON_GetArraySize(t_obj(r, "challenges")), 1);
    cJSON_Delete(r);
    r = tc_rpc(b, "{\"type\":\"decline\",\"challenge\":%lld}", c2);
    t_err(r, "forbidden", "an open seek cannot be declined");
    cJSON_Delete(r);
    r = tc_rpc(c, "{\"type\":\"accept\",\"challenge\":%lld}", c2);
    t_ok(r, "cy takes the seek");
    const cJSON *g = t_obj(r, "game");
    cr_assert_str_eq(t_str(g, "variant"), "alquerkonane-5x5");
    long long gid = t_int(g, "id");
    cJSON_Delete(r);
    ev = tc_event(a, "game_start", T_TIMEOUT_MS);
    cr_assert_not_null(ev);
    cr_assert_eq(t_int(t_obj(ev, "game"), "id"), gid);
    cJSON_Delete(ev);
    r = tc_rpc(b, "{\"type\":\"accept\",\"challenge\":%lld}", c2);
    t_err(r, "conflict", "the seek is taken");
    cJSON_Delete(r);
    /* Cancel: the target hears. */
    r = tc_rpc(a, "{\"type\":\"challenge\",\"to\":\"cy\"}");
    long long c3 = t_int(t_obj(r, "challenge"), "id");
    cJSON_Delete(r);
    r = tc_rpc(a, "{\"type\":\"cancel\",\"challenge\":%lld}", c3);
    t_ok(r, "cancel");
    cr_assert_str_eq(t_str(t_obj(r, "challenge"), "status"), "canceled");
    cJSON_Delete(r);
    ev = tc_event(c, "challenge_canceled", T_TIMEOUT_MS);
    cr_assert_not_null(ev);
    cr_assert_eq(t_int(t_obj(ev, "challenge"), "id"), c3);
    cJSON_Delete(ev);
    tc_close(a);
    tc_close(b);
    tc_close(c);
    tc_close(anon);
}

Test(flow, games_listing)
{
    tconn *a = tc_open(S.port), *b = tc_open(S.port), *c = tc_open(S.port);
    t_register(a, "al");
    t_register(b, "bu");
    t_register(c, "ci");
    long long g1 = t_new_game(a, b, "bu", "alquerque");
    long long g2 = t_new_game(b, c, "ci", "alquerque-traditional");
    long long g3 = t_new_game(c, a, "al", "alquerque");
    cJSON *r = tc_rpc(a, "{\"type\":\"games\"}");
    const cJSON *l = t_obj(r, "games");
    cr_assert_eq(cJSON_GetArraySize(l), 2);
    cr_assert_eq(t_int(cJSON_GetArrayItem(l, 0), "id"), g3);
    cr_assert_eq(t_int(cJSON_GetArrayItem(l, 1), "id"), g1);
    cJSON_Delete(r);
    r = tc_rpc(a, "{\"type\":\"games\",\"turn\":\"mine\"}");
    l = t_obj(r, "games");
    cr_assert_eq(cJSON_GetArraySize(l), 1, "al is White only in g1: %s", t_text(r));
    cr_assert_eq(t_int(cJSON_GetArrayItem(l, 0), "id"), g1);
    cJSON_Delete(r);
    r = tc_rpc(a, "{\"type\":\"games\",\"user\":\"BU\",\"variant\":\"alquerque-traditional\"}");
    l = t_obj(r, "games");
    cr_assert_eq(cJSON_GetArraySize(l), 1);
    cr_assert_eq(t_int(cJSON_GetArrayItem(l, 0), "id"), g2);
    cJSON_Delete(r);
    r = tc_rpc(a, "{\"type\":\"games\",\"limit\":1,\"before\":%lld}", g3);
    l = t_obj(r, "games");
    cr_assert_eq(cJSON_GetArraySize(l), 1);
    cr_assert_eq(t_int(cJSON_GetArrayItem(l, 0), "id"), g1);
    cJSON_Delete(r);
    r = tc_rpc(a, "{\"type\":\"resign\",\"game\":%lld}", g1);
    cJSON_Delete(r);
    r = tc_rpc(a, "{\"type\":\"games\",\"status\":\"finished\"}");
    l = t_obj(r, "games");
    cr_assert_eq(cJSON_GetArraySize(l), 1);
    cr_assert_str_eq(t_str(cJSON_GetArrayItem(l, 0), "reason"), "resign");
    cr_assert_str_eq(t_str(cJSON_GetArrayItem(l, 0), "result"), "black");
    cJSON_Delete(r);
    r = tc_rpc(a, "{\"type\":\"games\",\"user\":\"nobody\"}");
    t_err(r, "not_found", "games of an unknown user");
    cJSON_Delete(r);
    tc_close(a);
    tc_close(b);
    tc_close(c);
}

Test(flow, acknowledged_moves_survive_a_crash)
{
    tconn *a = tc_open(S.port), *b = tc_open(S.port);
    t_register(a, "dura");
    t_register(b, "ble");
    long long gid = t_new_game(a, b, "ble", "alquerque");
    cJSON *r = tc_rpc(a, "{\"type\":\"move\",\"game\":%lld,\"ply\":0,\"move\":\"b2-c3\"}", gid);
    t_ok(r, "move");
    cJSON_Delete(r);
    r = tc_rpc(b, "{\"type\":\"move\",\"game\":%lld,\"ply\":1,\"move\":\"b4xb2\"}", gid);
    t_ok(r, "capture");
    cJSON_Delete(r);
    tc_close(a);
    tc_close(b);
    tsrv_kill(&S); /* SIGKILL right after the acknowledgement */
    tsrv_restart(&S, NULL);
    a = tc_open(S.port);
    r = tc_rpc(a, "{\"type\":\"login\",\"username\":\"dura\",\"password\":\"" T_PW "\"}");
    t_ok(r, "login after the crash");
    const cJSON *g = cJSON_GetArrayItem(t_obj(r, "games"), 0);
    cr_assert_eq(t_int(g, "ply"), 2, "%s", t_text(r));
    cr_assert_str_eq(cJSON_GetArrayItem(t_obj(g, "moves"), 1)->valuestring, "b4xb2");
    cr_assert_str_eq(t_str(g, "turn"), "white");
    cJSON_Delete(r);
    tc_close(a);
}

static void setup_fault(void);
TestSuite(flow_fault, .init = setup_fault, .fini = teardown, .timeout = 60);

static void setup_fault(void)
{
    /* Commits (one per loop iteration with writes): 1-2 the registrations,
     * 3 the challenge, 4 the accept, 5 the first move. */
    tsrv_start(&S, "QK_FAULT_COMMIT=5");
}

Test(flow_fault, failed_commit_answers_internal_and_reloads)
{
    tconn *a = tc_open(S.port), *b = tc_open(S.port);
    t_register(a, "fa");
    t_register(b, "fb");
    long long gid = t_new_game(a, b, "fb", "alquerque");
    tc_sync(a);
    tc_sync(b);
    cJSON *r = tc_rpc(a, "{\"type\":\"move\",\"game\":%lld,\"ply\":0,\"move\":\"b2-c3\"}", gid);
    t_err(r, "internal", "the commit of this move fails");
    cJSON_Delete(r);
    tc_sync(a);
    cr_assert_null(tc_event(b, "move", 200), "an event of a lost move was sent");
    cr_assert_eq(t_db_count(S.db, "moves"), 0);
    /* Memory was reloaded from the database: still ply 0, White to move. */
    r = tc_rpc(b, "{\"type\":\"game\",\"game\":%lld}", gid);
    const cJSON *g = t_obj(r, "game");
    cr_assert_eq(t_int(g, "ply"), 0, "%s", t_text(r));
    cr_assert_str_eq(t_str(g, "turn"), "white");
    cr_assert_eq(cJSON_GetArraySize(t_obj(g, "legal_moves")), 4);
    cJSON_Delete(r);
    /* The same move again now commits. */
    r = tc_rpc(a, "{\"type\":\"move\",\"game\":%lld,\"ply\":0,\"move\":\"b2-c3\"}", gid);
    t_ok(r, "the move again");
    cr_assert(!cJSON_GetObjectItemCaseSensitive(r, "duplicate"), "%s", t_text(r));
    cJSON_Delete(r);
    cr_assert_eq(t_db_count(S.db, "moves"), 1);
    tc_close(a);
    tc_close(b);
}

/* Many clients' moves in one batch: every answer and event after one
 * commit, every game consistent. */
/* The "N batches committed" count qirkatd logs at a clean stop (srv.c),
 * from t's log; t must be stopped. */
static long long batches_committed(const tsrv *t)
{
    FILE *f = fopen(t->log, "r");
    cr_assert_not_null(f, "open %s", t->log);
    char line[1024];
    long long n = -1;
    while (fgets(line, sizeof line, f)) {
        const char *p = strstr(line, " batches committed");
        if (!p)
            continue;
        while (p > line && p[-1] >= '0' && p[-1] <= '9')
            p--;
        n = strtoll(p, NULL, 10);
    }
    fclose(f);
    cr_assert_geq(n, 0, "no \"batches committed\" line in %s", t->log);
    return n;
}

/* One white ("w") against N blacks; the game ids into gid. */
static void concurrent_setup(int port, int n, tconn **w, tconn **b, long long *gid)
{
    char name[32];
    *w = tc_open(port);
    t_register(*w, "w");
    for (int i = 0; i < n; i++) {
        b[i] = tc_open(port);
        snprintf(name, sizeof name, "b%d", i);
        t_register(b[i], name);
        gid[i] = t_new_game(*w, b[i], name, "alquerque");
    }
}

/* Moves in N games that arrive together are handled in one loop
 * iteration and share ONE commit (store.h "Group commit"). The moves are
 * pipelined in one write so they arrive together; a control server runs
 * the same set-up without the moves, and the batch counts both log at
 * stop differ by exactly the moves' one batch. */
Test(flow, concurrent_games_in_one_batch)
{
    enum { N = 8 };
    tconn *w, *b[N];
    long long gid[N];

    tsrv ctl;
    tsrv_start(&ctl, NULL);
    concurrent_setup(ctl.port, N, &w, b, gid);
    tc_close(w);
    for (int i = 0; i < N; i++)
        tc_close(b[i]);
    tsrv_stop(&ctl);
    long long setup_batches = batches_committed(&ctl);
    tsrv_cleanup(&ctl);

    concurrent_setup(S.port, N, &w, b, gid);
    /* Every game's first move in one write, before reading any answer. */
    char buf[N * 128];
    size_t len = 0;
    for (int i = 0; i < N; i++)
        len += (size_t)snprintf(buf + len, sizeof buf - len,
                                "{\"type\":\"move\",\"id\":%d,\"game\":%lld,\"ply\":0,"
                                "\"move\":\"d2-c3\"}\n",
                                i, gid[i]);
    cr_assert(tc_send(w, buf, len));
    for (int i = 0; i < N; i++) {
        cJSON *r = tc_reply(w, T_TIMEOUT_MS);
        t_ok(r, "batched move");
        cr_assert_eq(t_int(r, "id"), i);
        cr_assert_eq(t_int(t_obj(r, "game"), "id"), gid[i]);
        cJSON_Delete(r);
        cJSON *ev = tc_event(b[i], "move", T_TIMEOUT_MS);
        cr_assert_not_null(ev);
        cr_assert_eq(t_int(ev, "game"), gid[i]);
        cJSON_Delete(ev);
    }
    cr_assert_eq(t_db_count(S.db, "moves"), N);
    tc_close(w);
    for (int i = 0; i < N; i++)
        tc_close(b[i]);
    tsrv_stop(&S);
    long long batches = batches_committed(&S);
    cr_assert_eq(batches - setup_batches, 1,
                 "%d moves took %lld commits (%lld in all, %lld for the set-up); see %s", N,
                 batches - setup_batches, batches, setup_batches, S.log);
}

Test(flow, a_new_account_sees_open_seeks)
{
    tconn *a = tc_open(S.port), *n = tc_open(S.port);
    t_register(a, "seeker");
    cJSON *r = tc_rpc(a, "{\"type\":\"challenge\",\"variant\":\"alquerque-brainking\"}");
    t_ok(r, "open seek");
    cJSON_Delete(r);
    r = tc_rpc(n, "{\"type\":\"register\",\"username\":\"newbie\",\"password\":\"pw\"}");
    t_ok(r, "register");
    const cJSON *ch = t_obj(r, "challenges");
    cr_assert_eq(cJSON_GetArraySize(ch), 1, "%s", t_text(r));
    cr_assert_str_eq(t_str(cJSON_GetArrayItem(ch, 0), "variant"), "alquerque-brainking");
    cr_assert_eq(cJSON_GetArraySize(t_obj(r, "games")), 0);
    cJSON_Delete(r);
    tc_close(a);
    tc_close(n);
}
