/*
 * Class privacy (issue 21): a class-only tournament's games are seen only
 * by the class (its teacher, who organises the tournament, and its
 * members) and the game's players; anyone else is answered as for the
 * tournament itself (`forbidden`, docs/protocol.md section 6 "Who sees a
 * tournament") by every read of one game, and finds them left out of every
 * list, with the paging of the lists still right (the store filters in
 * its query, not after the LIMIT).
 *
 * One scene for every test, over real TCP against a real qirkatd: tina
 * teaches 6A (alice, bob, carol); dave and eve are in no class. Games by
 * id (ids count up from 1):
 *   1 c1  alice-dave, casual, resigned by dave (finished)
 *   2 g1  alice-bob, tournament k (6A only), resigned by bob (finished)
 *   3 p   alice-dave, casual and private (active)
 *   4 c2  alice-dave, casual (active)
 *   5 g2  tournament k2 (6A only) of alice and carol (active)
 *   6 c3  alice-dave, casual (active)
 * eve is the outsider (logged in, plays none of them), dave one who plays
 * casual games with a student; N an anonymous connection (every read op
 * needs a login: `unauthenticated`).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helper.h"
#include "qk_pdn.h"

static tsrv S;
static tconn *T, *A, *B, *C, *D, *E, *N; /* tina, alice, bob, carol, dave, eve, anonymous */
static long long c1, g1, p, c2, g2, c3, k, k2;

#define CLASS_ONLY_GAME "this game is for its tournament's class only"

/* A class-only round robin of tina's for class cid with x and y; started:
 * its one game's id. *tid: the tournament. */
static long long class_game(long long cid, tconn *x, tconn *y, long long *tid)
{
    cJSON *r = tc_rpc(T,
                      "{\"type\":\"tournament_create\",\"name\":\"6A cup\",\"system\":"
                      "\"round_robin\",\"class\":%lld}",
                      cid);
    t_ok(r, "tournament_create");
    *tid = t_int(t_obj(r, "tournament"), "id");
    cJSON_Delete(r);
    tconn *pl[] = {x, y};
    for (int i = 0; i < 2; i++) {
        r = tc_rpc(pl[i], "{\"type\":\"tournament_join\",\"tournament\":%lld}", *tid);
        t_ok(r, "tournament_join");
        cJSON_Delete(r);
    }
    r = tc_rpc(T, "{\"type\":\"tournament_start\",\"tournament\":%lld}", *tid);
    t_ok(r, "tournament_start");
    const cJSON *ro = cJSON_GetArrayItem(cJSON_GetObjectItem(t_obj(r, "tournament"), "rounds"), 0);
    long long gid = t_int(cJSON_GetArrayItem(cJSON_GetObjectItem(ro, "pairings"), 0), "game");
    cJSON_Delete(r);
    return gid;
}

static void resign(tconn *c, long long gid)
{
    cJSON *r = tc_rpc(c, "{\"type\":\"resign\",\"game\":%lld}", gid);
    t_ok(r, "resign");
    cJSON_Delete(r);
}

static long long casual(const char *extra)
{
    return t_new_game_tc(A, D, "dave", "alquerque", "{\"kind\":\"unlimited\"}", extra);
}

static void setup(void)
{
    tsrv_start(&S, NULL);
    tconn **all[] = {&T, &A, &B, &C, &D, &E, &N};
    const char *names[] = {"tina", "alice", "bob", "carol", "dave", "eve"};
    for (int i = 0; i < 7; i++) {
        *all[i] = tc_open(S.port);
        if (i < 6)
            t_register(*all[i], names[i]);
    }
    cJSON *r = tc_rpc(T, "{\"type\":\"class_create\",\"name\":\"6A\"}");
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
    c1 = casual(NULL);
    g1 = class_game(cid, A, B, &k);
    p = casual(",\"private\":true");
    c2 = casual(NULL);
    g2 = class_game(cid, A, C, &k2);
    c3 = casual(NULL);
    cr_assert(c1 == 1 && g1 == 2 && p == 3 && c2 == 4 && g2 == 5 && c3 == 6, "ids 1..6");
    resign(D, c1);
    resign(B, g1);
    tconn *every[] = {T, A, B, C, D, E};
    for (int i = 0; i < 6; i++)
        tc_sync(every[i]);
}

static void teardown(void)
{
    tconn **all[] = {&T, &A, &B, &C, &D, &E, &N};
    for (int i = 0; i < 7; i++) {
        if (*all[i])
            tc_close(*all[i]);
        *all[i] = NULL;
    }
    tsrv_stop(&S);
    tsrv_cleanup(&S);
}

TestSuite(class_privacy, .init = setup, .fini = teardown, .timeout = 60);

/* The ids of the objects of r's list `name` ("games", or "records" of a
 * JSON export) are exactly want[0..n), in order, and r's `next` is next
 * (0: null). The caller deletes r. */
static void ids_are(const cJSON *r, const char *name, const long long *want, int n, long long next,
                    const char *what)
{
    t_ok(r, what);
    const cJSON *list = cJSON_GetObjectItem(r, name), *it;
    cr_assert(cJSON_IsArray(list), "%s: %s", what, t_text(r));
    char got[256] = "", exp[256] = "";
    cJSON_ArrayForEach(it, list)
    {
        size_t len = strlen(got);
        snprintf(got + len, sizeof got - len, " %lld", t_int(it, "id"));
    }
    for (int i = 0; i < n; i++) {
        size_t len = strlen(exp);
        snprintf(exp + len, sizeof exp - len, " %lld", want[i]);
    }
    cr_assert_str_eq(got, exp, "%s: games [%s ] expected [%s ]", what, got, exp);
    const cJSON *nx = cJSON_GetObjectItem(r, "next");
    if (next)
        cr_assert(cJSON_IsNumber(nx) && (long long)nx->valuedouble == next, "%s: next %s, not %lld",
                  what, t_text(r), next);
    else
        cr_assert(cJSON_IsNull(nx), "%s: next should be null: %s", what, t_text(r));
}

/* c's `games` with fields extra (",..." or "") is exactly want, then next. */
static void games_are(tconn *c, const char *extra, const long long *want, int n, long long next,
                      const char *what)
{
    cJSON *r = tc_rpc(c, "{\"type\":\"games\"%s}", extra);
    ids_are(r, "games", want, n, next, what);
    cJSON_Delete(r);
}

/* c's `export` with format json and fields extra: exactly want, then next. */
static void export_is(tconn *c, const char *extra, const long long *want, int n, long long next,
                      const char *what)
{
    cJSON *r = tc_rpc(c, "{\"type\":\"export\",\"format\":\"json\"%s}", extra);
    ids_are(r, "records", want, n, next, what);
    cJSON_Delete(r);
}

/* r is `forbidden` with the class-only game message and holds no game,
 * no record and no name of a player. Deletes r. */
static void hidden(cJSON *r, const char *what)
{
    t_err(r, "forbidden", what);
    cr_assert_str_eq(t_str(r, "message"), CLASS_ONLY_GAME, "%s", what);
    cr_assert_null(cJSON_GetObjectItem(r, "game"), "%s", what);
    cr_assert_null(cJSON_GetObjectItem(r, "records"), "%s", what);
    char *text = cJSON_PrintUnformatted(r);
    cr_assert_null(strstr(text, "alice"), "%s: %s", what, text);
    cr_assert_null(strstr(text, "bob"), "%s: %s", what, text);
    cr_assert_null(strstr(text, "carol"), "%s: %s", what, text);
    free(text);
    cJSON_Delete(r);
}

/* ---- one game: `game`, `subscribe`, `export` with `game` ---------------- */

/* The class sees both games through every one-game read. */
static void class_sees_one_game(void)
{
    /* g1 is alice-bob's: tina teaches, carol is a member who does not
     * play it; g2 is alice-carol's: bob is the member who does not. */
    struct {
        tconn *c;
        long long g;
        const char *who;
    } see[] = {{T, g1, "tina (teacher, organiser)"},
               {A, g1, "alice (player)"},
               {B, g1, "bob (player)"},
               {C, g1, "carol (member)"},
               {T, g2, "tina, g2"},
               {B, g2, "bob (member), g2"},
               {C, g2, "carol (player), g2"}};
    for (size_t i = 0; i < sizeof see / sizeof see[0]; i++) {
        cJSON *r = tc_rpc(see[i].c, "{\"type\":\"game\",\"game\":%lld}", see[i].g);
        t_ok(r, see[i].who);
        cr_assert_eq(t_int(t_obj(r, "game"), "id"), see[i].g, "%s", see[i].who);
        cr_assert_eq(t_int(t_obj(r, "game"), "tournament"), see[i].g == g1 ? k : k2);
        cJSON_Delete(r);
        r = tc_rpc(see[i].c, "{\"type\":\"export\",\"game\":%lld}", see[i].g);
        t_ok(r, see[i].who);
        const cJSON *recs = t_obj(r, "records");
        cr_assert_eq(cJSON_GetArraySize(recs), 1, "%s", see[i].who);
        const char *text = cJSON_GetArrayItem(recs, 0)->valuestring;
        cr_assert(strstr(text, " \"alice\"]\n") && strstr(text, "[Event \"6A cup\"]\n"), "%s: %s",
                  see[i].who, text);
        cJSON_Delete(r);
        r = tc_rpc(see[i].c, "{\"type\":\"subscribe\",\"game\":%lld}", see[i].g);
        t_ok(r, see[i].who);
        cr_assert_eq(t_int(t_obj(r, "game"), "id"), see[i].g);
        cJSON_Delete(r);
    }
}

/* `game`, `subscribe` and `export` with `game`: forbidden to dave and eve,
 * unauthenticated anonymously, answered to the class; other games as
 * before. */
Test(class_privacy, one_game_reads_for_the_class_only)
{
    long long gs[] = {g1, g2};
    tconn *out[] = {E, D};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            hidden(tc_rpc(out[j], "{\"type\":\"game\",\"game\":%lld}", gs[i]), "game");
            hidden(tc_rpc(out[j], "{\"type\":\"export\",\"game\":%lld}", gs[i]), "export game");
            hidden(tc_rpc(out[j], "{\"type\":\"export\",\"game\":%lld,\"format\":\"json\"}", gs[i]),
                   "export game json");
            hidden(tc_rpc(out[j], "{\"type\":\"subscribe\",\"game\":%lld}", gs[i]), "subscribe");
        }
    /* Anonymous: every one of them needs a login. */
    const char *ops[] = {"game", "subscribe", "export"};
    for (int i = 0; i < 3; i++) {
        cJSON *r = tc_rpc(N, "{\"type\":\"%s\",\"game\":%lld}", ops[i], g1);
        t_err(r, "unauthenticated", ops[i]);
        cJSON_Delete(r);
    }
    /* What stays as it was: a casual game for anyone, a private one for
     * its players only (its own message), a game that does not exist. */
    cJSON *r = tc_rpc(E, "{\"type\":\"game\",\"game\":%lld}", c2);
    t_ok(r, "eve: a casual game");
    cr_assert_str_eq(t_str(t_obj(r, "game"), "white"), "alice");
    cJSON_Delete(r);
    r = tc_rpc(E, "{\"type\":\"game\",\"game\":%lld}", p);
    t_err(r, "forbidden", "eve: a private game");
    cr_assert_str_eq(t_str(r, "message"), "the game is private: only its players may watch it");
    cJSON_Delete(r);
    r = tc_rpc(E, "{\"type\":\"game\",\"game\":99}");
    t_err(r, "not_found", "eve: no such game");
    cJSON_Delete(r);
    class_sees_one_game();
}

/* ---- `games`: every filter, and the paging ----------------------------- */

Test(class_privacy, games_lists_leave_them_out_for_outsiders)
{
    const long long all[] = {c3, c2, c1};
    char f[160];
    games_are(E, ",\"user\":\"alice\"", all, 3, 0, "eve: alice's games");
    /* Paging: a full page of what eve may see (not cut short by the games
     * left out), and the next page after it. */
    games_are(E, ",\"user\":\"alice\",\"limit\":2", (long long[]){c3, c2}, 2, c2,
              "eve: page 1 of 2");
    snprintf(f, sizeof f, ",\"user\":\"alice\",\"limit\":2,\"after\":%lld", c2);
    games_are(E, f, (long long[]){c1}, 1, 0, "eve: page 2 (after)");
    snprintf(f, sizeof f, ",\"user\":\"alice\",\"limit\":2,\"before\":%lld", c2);
    games_are(E, f, (long long[]){c1}, 1, 0, "eve: page 2 (before)");
    games_are(E, ",\"user\":\"alice\",\"limit\":1", (long long[]){c3}, 1, c3, "eve: limit 1");
    snprintf(f, sizeof f, ",\"user\":\"alice\",\"limit\":1,\"after\":%lld", c3);
    games_are(E, f, (long long[]){c2}, 1, c2, "eve: limit 1, page 2 (g2 and p left out)");
    /* Each filter: status, opponent, tournament, variant, result, since. */
    games_are(E, ",\"user\":\"alice\",\"status\":\"finished\"", (long long[]){c1}, 1, 0,
              "eve: finished");
    games_are(E, ",\"user\":\"alice\",\"status\":\"active\"", (long long[]){c3, c2}, 2, 0,
              "eve: active");
    games_are(E, ",\"user\":\"alice\",\"opponent\":\"bob\"", NULL, 0, 0, "eve: alice vs bob");
    games_are(E, ",\"user\":\"carol\",\"opponent\":\"alice\"", NULL, 0, 0, "eve: carol vs alice");
    games_are(E, ",\"user\":\"bob\"", NULL, 0, 0, "eve: bob's games");
    games_are(E, ",\"user\":\"alice\",\"opponent\":\"dave\",\"status\":\"active\"",
              (long long[]){c3, c2}, 2, 0, "eve: alice vs dave, active");
    snprintf(f, sizeof f, ",\"user\":\"alice\",\"tournament\":%lld", k);
    games_are(E, f, NULL, 0, 0, "eve: alice's games of k");
    snprintf(f, sizeof f, ",\"tournament\":%lld", k2);
    games_are(E, f, NULL, 0, 0, "eve: her games of k2");
    snprintf(f, sizeof f, ",\"user\":\"carol\",\"tournament\":%lld,\"status\":\"active\"", k2);
    games_are(E, f, NULL, 0, 0, "eve: carol's active games of k2");
    games_are(E, ",\"user\":\"alice\",\"result\":\"white\"", (long long[]){c1}, 1, 0,
              "eve: alice won (c1; g1 left out)");
    games_are(E, ",\"user\":\"alice\",\"variant\":\"alquerque\",\"since\":1,\"limit\":2",
              (long long[]){c3, c2}, 2, c2, "eve: variant and since, paged");
    games_are(E, ",\"user\":\"alice\",\"imported\":false", all, 3, 0, "eve: played games");
    /* dave plays c1..c3 and p with alice, not the class's games. */
    games_are(D, ",\"user\":\"alice\"", (long long[]){c3, c2, p, c1}, 4, 0, "dave: alice's");
    games_are(D, ",\"user\":\"alice\",\"limit\":3", (long long[]){c3, c2, p}, 3, p,
              "dave: page 1 of 3");
    games_are(D, "", (long long[]){c3, c2, p, c1}, 4, 0, "dave: his own");
    /* Anonymous: a login first. */
    cJSON *r = tc_rpc(N, "{\"type\":\"games\",\"user\":\"alice\"}");
    t_err(r, "unauthenticated", "anonymous games");
    cJSON_Delete(r);
}

Test(class_privacy, games_lists_show_them_to_the_class)
{
    const long long seen[] = {c3, g2, c2, g1, c1}; /* p is private */
    char f[160];
    tconn *cl[] = {T, B, C};
    const char *who[] = {"tina", "bob", "carol"};
    for (int i = 0; i < 3; i++) {
        games_are(cl[i], ",\"user\":\"alice\"", seen, 5, 0, who[i]);
        games_are(cl[i], ",\"user\":\"alice\",\"limit\":2", seen, 2, g2, who[i]);
        snprintf(f, sizeof f, ",\"user\":\"alice\",\"limit\":2,\"after\":%lld", g2);
        games_are(cl[i], f, seen + 2, 2, g1, who[i]);
        games_are(cl[i], ",\"user\":\"alice\",\"opponent\":\"bob\"", (long long[]){g1}, 1, 0,
                  who[i]);
        games_are(cl[i], ",\"user\":\"alice\",\"status\":\"finished\"", (long long[]){g1, c1}, 2, 0,
                  who[i]);
        snprintf(f, sizeof f, ",\"user\":\"alice\",\"tournament\":%lld", k2);
        games_are(cl[i], f, (long long[]){g2}, 1, 0, who[i]);
    }
    games_are(A, "", (long long[]){c3, g2, c2, p, g1, c1}, 6, 0, "alice: her own");
    games_are(B, "", (long long[]){g1}, 1, 0, "bob: his own");
    games_are(C, ",\"status\":\"active\"", (long long[]){g2}, 1, 0, "carol: her active");
}

/* ---- `export`: filtered and paged -------------------------------------- */

Test(class_privacy, export_leaves_them_out_for_outsiders)
{
    char f[160];
    const long long all[] = {c1, c2, c3}; /* oldest first */
    export_is(E, ",\"user\":\"alice\"", all, 3, 0, "eve: alice's records");
    export_is(E, ",\"user\":\"alice\",\"limit\":2", all, 2, c2, "eve: page 1");
    snprintf(f, sizeof f, ",\"user\":\"alice\",\"limit\":2,\"after\":%lld", c2);
    export_is(E, f, all + 2, 1, 0, "eve: page 2 (next)");
    export_is(E, ",\"user\":\"alice\",\"limit\":1", all, 1, c1, "eve: limit 1");
    snprintf(f, sizeof f, ",\"user\":\"alice\",\"limit\":1,\"after\":%lld", c1);
    export_is(E, f, all + 1, 1, c2, "eve: limit 1 after c1 (g1 and p left out)");
    export_is(E, ",\"user\":\"alice\",\"opponent\":\"bob\"", NULL, 0, 0, "eve: vs bob");
    export_is(E, ",\"user\":\"carol\"", NULL, 0, 0, "eve: carol's");
    export_is(E, ",\"user\":\"alice\",\"result\":\"white\"", all, 1, 0, "eve: won by white");
    /* The PDN text too: three records, none of them the class's. */
    cJSON *r = tc_rpc(E, "{\"type\":\"export\",\"user\":\"alice\"}");
    t_ok(r, "eve: pdn");
    const cJSON *recs = t_obj(r, "records"), *it;
    cr_assert_eq(cJSON_GetArraySize(recs), 3);
    cJSON_ArrayForEach(it, recs)
    {
        cr_assert(strstr(it->valuestring, "[Black \"dave\"]\n"), "%s", it->valuestring);
        cr_assert_null(strstr(it->valuestring, "6A cup"), "%s", it->valuestring);
    }
    cJSON_Delete(r);
    /* With the tournament filter: forbidden, as the tournament is. */
    r = tc_rpc(E, "{\"type\":\"export\",\"tournament\":%lld,\"user\":\"alice\"}", k);
    t_err(r, "forbidden", "eve: export of k");
    cr_assert_str_eq(t_str(r, "message"), "this tournament is for its class only");
    cJSON_Delete(r);
    export_is(D, ",\"user\":\"alice\"", (long long[]){c1, p, c2, c3}, 4, 0, "dave: alice's");
    r = tc_rpc(N, "{\"type\":\"export\",\"user\":\"alice\"}");
    t_err(r, "unauthenticated", "anonymous export");
    cJSON_Delete(r);
}

Test(class_privacy, export_shows_them_to_the_class)
{
    char f[160];
    const long long seen[] = {c1, g1, c2, g2, c3};
    tconn *cl[] = {T, B, C};
    for (int i = 0; i < 3; i++) {
        export_is(cl[i], ",\"user\":\"alice\"", seen, 5, 0, "class: alice's");
        export_is(cl[i], ",\"user\":\"alice\",\"limit\":2", seen, 2, g1, "class: page 1");
        snprintf(f, sizeof f, ",\"user\":\"alice\",\"limit\":2,\"after\":%lld", g1);
        export_is(cl[i], f, seen + 2, 2, g2, "class: page 2");
        snprintf(f, sizeof f, ",\"tournament\":%lld", k2);
        export_is(cl[i], f, (long long[]){g2}, 1, 0, "class: k2");
    }
    export_is(A, "", (long long[]){c1, g1, p, c2, g2, c3}, 6, 0, "alice: her own");
}

/* ---- watching: `subscribe`, and a subscription kept across a login ----- */

/* The connection whose player is to move in gid plays its first legal
 * move; every connection in watchers gets the move event. */
static void move_seen_by(long long gid, tconn **watchers, int n)
{
    cJSON *g = t_game(A, gid);
    const char *side = t_str(g, "turn");
    const char *name = t_str(g, side);
    tconn *mover = strcmp(name, "alice") == 0 ? A : C;
    cJSON_Delete(g);
    t_play_first(mover, gid);
    for (int i = 0; i < n; i++) {
        cJSON *ev = tc_event(watchers[i], "move", T_TIMEOUT_MS);
        cr_assert_not_null(ev, "watcher %d: no move event", i);
        cr_assert_eq(t_int(ev, "game"), gid);
        cJSON_Delete(ev);
    }
}

/* c got no move event of gid: everything sent before a ping is read. */
static void no_move(tconn *c, long long gid, const char *what)
{
    cJSON *r = tc_rpc(c, "{\"type\":\"ping\"}");
    cJSON_Delete(r);
    cJSON *ev;
    while ((ev = tc_event(c, "move", 0))) {
        cr_assert_neq(t_int(ev, "game"), gid, "%s: a move event of game %lld", what, gid);
        cJSON_Delete(ev);
    }
}

Test(class_privacy, watching_is_the_class_s)
{
    /* eve cannot subscribe (forbidden, above) and so gets no move; tina
     * and bob, who do not play g2, watch it. */
    hidden(tc_rpc(E, "{\"type\":\"subscribe\",\"game\":%lld}", g2), "eve subscribes");
    tconn *X = tc_open(S.port);
    cJSON *r = tc_rpc(X, "{\"type\":\"login\",\"username\":\"bob\",\"password\":\"%s\"}", T_PW);
    t_ok(r, "X: login bob");
    cJSON_Delete(r);
    tconn *w[] = {T, B, X};
    for (int i = 0; i < 3; i++) {
        r = tc_rpc(w[i], "{\"type\":\"subscribe\",\"game\":%lld}", g2);
        t_ok(r, "subscribe g2");
        cJSON_Delete(r);
    }
    move_seen_by(g2, w, 3);
    no_move(E, g2, "eve");
    /* X logs in as eve: the subscription bob made is not eve's. */
    r = tc_rpc(X, "{\"type\":\"login\",\"username\":\"eve\",\"password\":\"%s\"}", T_PW);
    t_ok(r, "X: login eve");
    cJSON_Delete(r);
    tc_drop_events(X);
    move_seen_by(g2, w, 2);
    no_move(X, g2, "X, now eve");
    no_move(E, g2, "eve");
    r = tc_rpc(X, "{\"type\":\"subscribe\",\"game\":%lld}", c2);
    t_ok(r, "eve may still watch a casual game");
    cJSON_Delete(r);
    tc_close(X);
}
