/*
 * Bounded storage and storage faults (issue 9, items 2, 5, 8-11), against
 * the real server:
 *   - a database write-locked by another process answers server_busy with
 *     retry_after_ms at once (never internal, never a stall of the loop);
 *   - the WAL returns under the journal limit once a long reader ends,
 *     with no write after it (the idle TRUNCATE checkpoint);
 *   - old rows are swept, tokens expire after 30 idle days, logout
 *     revokes the token on every connection; one unread your_turn /
 *     draw notification per game; one draw offer per side per move;
 *   - the lobby: login lists one page of others' seeks, `seeks` pages
 *     the rest, seek events go only to lobby subscribers;
 *   - a game whose stored moves do not replay is quarantined;
 *   - listings build finished games from rows, identical to `game`.
 */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "helper.h"

static tsrv S;

static void stop(void)
{
    tsrv_stop(&S);
    tsrv_cleanup(&S);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* A read-write handle of the server's database, as another process would
 * hold it. */
static sqlite3 *db_rw(const char *path)
{
    sqlite3 *h = NULL;
    cr_assert_eq(sqlite3_open_v2(path, &h, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    sqlite3_busy_timeout(h, 5000);
    return h;
}

static void db_exec(sqlite3 *h, const char *sql)
{
    char *err = NULL;
    int rc = sqlite3_exec(h, sql, NULL, NULL, &err);
    cr_assert_eq(rc, SQLITE_OK, "%s: %s", sql, err ? err : "?");
}

static long long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : 0;
}

Test(bounded, a_database_locked_elsewhere_is_server_busy, .timeout = 60)
{
    tsrv_start(&S, NULL);
    tconn *a = tc_open(S.port), *b = tc_open(S.port), *p = tc_open(S.port);
    t_register(a, "alice");
    t_register(b, "bob");
    tc_sync(a);
    sqlite3 *h = db_rw(S.db);
    db_exec(h, "BEGIN IMMEDIATE; INSERT INTO server_state (key, value) VALUES ('lock', 1)");
    /* Writes are refused at once with server_busy; pings on another
     * connection keep being answered meanwhile (measured, not asserted). */
    double worst = 0;
    for (int i = 0; i < 20; i++) {
        cJSON *r = tc_rpc(a, "{\"type\":\"challenge\",\"to\":\"bob\"}");
        t_err(r, "server_busy", "a write while another process holds the lock");
        cr_assert_eq(t_int(r, "retry_after_ms"), 100);
        cJSON_Delete(r);
        double t0 = now_ms();
        r = tc_rpc(p, "{\"type\":\"ping\"}");
        double dt = now_ms() - t0;
        worst = dt > worst ? dt : worst;
        t_ok(r, "ping while the database is locked");
        cJSON_Delete(r);
    }
    fprintf(stderr, "bounded: worst ping round trip under a foreign write lock: %.1f ms\n", worst);
    /* Reads still work: the lock is only a writer's. */
    cJSON *r = tc_rpc(b, "{\"type\":\"challenges\"}");
    t_ok(r, "a read while the database is locked");
    cr_assert_eq(cJSON_GetArraySize(t_obj(r, "challenges")), 0, "nothing was written");
    cJSON_Delete(r);
    db_exec(h, "ROLLBACK");
    sqlite3_close(h);
    r = tc_rpc(a, "{\"type\":\"challenge\",\"to\":\"bob\"}");
    t_ok(r, "the same write once the lock is gone");
    cJSON_Delete(r);
    tc_close(a);
    tc_close(b);
    tc_close(p);
    stop();
}

Test(bounded, the_wal_shrinks_after_a_long_reader_ends, .timeout = 120)
{
    tsrv_start(&S, "QK_UPKEEP_MS=100 QK_JOURNAL_LIMIT=65536 QK_RATE_LIMIT=off QK_CHALLENGE_RATE=off");
    tconn *a = tc_open(S.port), *b = tc_open(S.port);
    t_register(a, "alice");
    t_register(b, "bob");
    char wal[256];
    snprintf(wal, sizeof wal, "%s-wal", S.db);
    /* A reader that keeps its snapshot: no checkpoint can reset the WAL. */
    sqlite3 *h = db_rw(S.db);
    db_exec(h, "BEGIN; SELECT count(*) FROM users;");
    for (int i = 0; i < 300; i++) {
        cJSON *r = tc_rpc(a, "{\"type\":\"challenge\",\"to\":\"bob\"}");
        t_ok(r, "challenge");
        long long id = t_int(t_obj(r, "challenge"), "id");
        cJSON_Delete(r);
        r = tc_rpc(a, "{\"type\":\"cancel\",\"challenge\":%lld}", id);
        t_ok(r, "cancel");
        cJSON_Delete(r);
    }
    long long big = file_size(wal);
    cr_assert_gt(big, 4 * 65536, "the WAL must have grown past the limit to prove anything");
    db_exec(h, "COMMIT");
    sqlite3_close(h);
    /* No write follows: only the idle checkpoint can shrink it. */
    long long size = big;
    for (int i = 0; i < 100 && size > 65536; i++) {
        usleep(100 * 1000);
        size = file_size(wal);
    }
    cr_assert_leq(size, 65536, "the WAL stayed at %lld bytes (was %lld)", size, big);
    tc_close(a);
    tc_close(b);
    stop();
}

#define DAY (86400000LL)
#define T0 1764547200000LL /* 2025-12-01 00:00 UTC */

static void start_clocked(const char *extra)
{
    char env[160];
    snprintf(env, sizeof env, "QK_TEST_CLOCK=%lld QK_UPKEEP_MS=50 %s", T0, extra ? extra : "");
    tsrv_start(&S, env);
}

/* Rows of sql's single count. */
static long long db_count_where(const char *sql)
{
    sqlite3 *h = NULL;
    cr_assert_eq(sqlite3_open_v2(S.db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st = NULL;
    cr_assert_eq(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
    long long n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(h);
    return n;
}

/* Poll (the sweep runs on the upkeep timer) until sql counts want. */
static long long wait_count(const char *sql, long long want)
{
    long long n = db_count_where(sql);
    for (int i = 0; i < 100 && n != want; i++) {
        usleep(50 * 1000);
        n = db_count_where(sql);
    }
    return n;
}

/* Start the server with alice and bob registered, each on a connection
 * of its own (*a, *b: the caller closes them), in a new alquerque game,
 * alice white; the game id. */
static long long start_with_game(tconn **a, tconn **b, const char *tc)
{
    tsrv_start(&S, NULL);
    *a = tc_open(S.port);
    *b = tc_open(S.port);
    t_register(*a, "alice");
    t_register(*b, "bob");
    return t_new_game_tc(*a, *b, "bob", "alquerque", tc, NULL);
}

Test(bounded, a_your_turn_notice_per_game_not_per_move, .timeout = 60)
{
    tconn *a, *b;
    /* A correspondence game: it keeps a your_turn notice per move for a
     * player who is online (other games send the move event only). */
    long long gid =
        start_with_game(&a, &b, "{\"kind\":\"correspondence\",\"days_per_move\":3}");
    /* Twelve moves: bob gets six your_turn notices, alice seven (the
     * start's), none read. */
    for (int i = 0; i < 12; i++)
        t_play_first(i % 2 ? b : a, gid);
    cr_assert_eq(db_count_where("SELECT count(*) FROM notifications WHERE kind = 'your_turn'"), 2,
                 "one unread your_turn per player and game");
    cJSON *r = tc_rpc(a, "{\"type\":\"notifications\"}");
    t_ok(r, "notifications");
    cr_assert_eq(t_int(r, "unread"), 1);
    const cJSON *n = cJSON_GetArrayItem(t_obj(r, "notifications"), 0);
    cr_assert_str_eq(t_str(n, "kind"), "your_turn");
    cr_assert_eq(t_int(n, "ply"), 12, "the newest one is kept");
    cJSON_Delete(r);
    tc_close(a);
    tc_close(b);
    stop();
}

Test(bounded, a_draw_offer_loop_writes_no_row_per_cycle, .timeout = 60)
{
    tconn *a, *b;
    long long gid = start_with_game(&a, &b, "{\"kind\":\"unlimited\"}");
    cJSON *r = tc_rpc(a, "{\"type\":\"draw\",\"game\":%lld,\"action\":\"offer\"}", gid);
    t_ok(r, "first offer");
    cJSON_Delete(r);
    r = tc_rpc(b, "{\"type\":\"draw\",\"game\":%lld,\"action\":\"decline\"}", gid);
    t_ok(r, "decline");
    cJSON_Delete(r);
    long long rows = t_db_count(S.db, "notifications");
    for (int i = 0; i < 10; i++) {
        r = tc_rpc(a, "{\"type\":\"draw\",\"game\":%lld,\"action\":\"offer\"}", gid);
        t_err(r, "conflict", "a second offer at the same move");
        cr_assert_str_eq(t_str(r, "message"),
                         "you have already offered a draw at this move: offer again after a move");
        cJSON_Delete(r);
    }
    cr_assert_eq(t_db_count(S.db, "notifications"), rows, "refused offers wrote rows");
    /* The other side may still offer once. */
    r = tc_rpc(b, "{\"type\":\"draw\",\"game\":%lld,\"action\":\"offer\"}", gid);
    t_ok(r, "bob's offer");
    cJSON_Delete(r);
    r = tc_rpc(a, "{\"type\":\"draw\",\"game\":%lld,\"action\":\"decline\"}", gid);
    t_ok(r, "alice declines");
    cJSON_Delete(r);
    r = tc_rpc(b, "{\"type\":\"draw\",\"game\":%lld,\"action\":\"offer\"}", gid);
    t_err(r, "conflict", "bob's second offer at the same move");
    cJSON_Delete(r);
    /* After a move, alice may offer again; the unread draw notices of the
     * game are one per kind and player. */
    t_play_first(a, gid);
    r = tc_rpc(a, "{\"type\":\"draw\",\"game\":%lld,\"action\":\"offer\"}", gid);
    t_ok(r, "an offer after a move");
    cJSON_Delete(r);
    cr_assert_eq(db_count_where("SELECT count(*) FROM notifications WHERE kind = 'draw_offer' "
                                "AND user_id = (SELECT id FROM users WHERE username = 'bob')"),
                 1, "one unread draw_offer notice per game");
    tc_close(a);
    tc_close(b);
    stop();
}

Test(bounded, tokens_expire_after_30_idle_days, .timeout = 60)
{
    start_clocked(NULL);
    tconn *a = tc_open(S.port);
    cJSON *r =
        tc_rpc(a, "{\"type\":\"register\",\"username\":\"alice\",\"password\":\"" T_PW "\"}");
    t_ok(r, "register");
    char token[80];
    snprintf(token, sizeof token, "%s", t_str(r, "token"));
    cJSON_Delete(r);
    /* Used on day 29: still valid, and the idle time counts from then. */
    t_advance(a, 29 * DAY, true);
    tconn *b = tc_open(S.port);
    r = tc_rpc(b, "{\"type\":\"login\",\"token\":\"%s\"}", token);
    t_ok(r, "a token used within 30 days");
    cJSON_Delete(r);
    t_advance(a, 29 * DAY, true);
    tconn *c = tc_open(S.port);
    r = tc_rpc(c, "{\"type\":\"login\",\"token\":\"%s\"}", token);
    t_ok(r, "29 days after its last use");
    cJSON_Delete(r);
    t_advance(a, 30 * DAY, true);
    tconn *d = tc_open(S.port);
    r = tc_rpc(d, "{\"type\":\"login\",\"token\":\"%s\"}", token);
    t_err(r, "unauthenticated", "30 idle days");
    cr_assert_str_eq(t_str(r, "message"), "unknown token");
    cJSON_Delete(r);
    /* The sweep deletes it. */
    cr_assert_eq(wait_count("SELECT count(*) FROM tokens", 0), 0, "the expired token was kept");
    tc_close(a);
    tc_close(b);
    tc_close(c);
    tc_close(d);
    stop();
}

Test(bounded, logout_revokes_the_token_on_every_connection, .timeout = 60)
{
    tsrv_start(&S, NULL);
    tconn *a = tc_open(S.port), *b = tc_open(S.port), *c = tc_open(S.port);
    cJSON *r =
        tc_rpc(a, "{\"type\":\"register\",\"username\":\"alice\",\"password\":\"" T_PW "\"}");
    t_ok(r, "register");
    char token[80];
    snprintf(token, sizeof token, "%s", t_str(r, "token"));
    cJSON_Delete(r);
    r = tc_rpc(b, "{\"type\":\"login\",\"token\":\"%s\"}", token);
    t_ok(r, "b shares the token");
    cJSON_Delete(r);
    r = tc_rpc(c, "{\"type\":\"login\",\"username\":\"alice\",\"password\":\"" T_PW "\"}");
    t_ok(r, "c has a token of its own");
    cJSON_Delete(r);
    r = tc_rpc(a, "{\"type\":\"logout\"}");
    t_ok(r, "logout");
    cJSON_Delete(r);
    cJSON *ev = tc_event(b, "logged_out", T_TIMEOUT_MS);
    cr_assert_not_null(ev, "b is told");
    cr_assert_str_eq(t_str(ev, "reason"), "logout");
    cJSON_Delete(ev);
    r = tc_rpc(b, "{\"type\":\"challenges\"}");
    t_err(r, "unauthenticated", "b after the token's logout");
    cJSON_Delete(r);
    r = tc_rpc(c, "{\"type\":\"challenges\"}");
    t_ok(r, "c's own token stays");
    cJSON_Delete(r);
    tc_sync(c);
    cr_assert_null(tc_event(c, "logged_out", 0));
    r = tc_rpc(b, "{\"type\":\"login\",\"token\":\"%s\"}", token);
    t_err(r, "unauthenticated", "the revoked token");
    cJSON_Delete(r);
    tc_close(a);
    tc_close(b);
    tc_close(c);
    stop();
}

Test(bounded, old_read_notifications_and_closed_challenges_are_swept, .timeout = 60)
{
    start_clocked(NULL);
    tconn *a = tc_open(S.port), *b = tc_open(S.port);
    t_register(a, "alice");
    t_register(b, "bob");
    for (int i = 0; i < 3; i++) {
        cJSON *r = tc_rpc(a, "{\"type\":\"challenge\",\"to\":\"bob\"}");
        long long id = t_int(t_obj(r, "challenge"), "id");
        cJSON_Delete(r);
        r = tc_rpc(b, "{\"type\":\"decline\",\"challenge\":%lld}", id);
        t_ok(r, "decline");
        cJSON_Delete(r);
    }
    cJSON *r = tc_rpc(a, "{\"type\":\"challenge\",\"to\":\"bob\"}");
    t_ok(r, "an open challenge stays");
    cJSON_Delete(r);
    r = tc_rpc(a, "{\"type\":\"read\",\"all\":true}");
    t_ok(r, "read");
    cr_assert_eq(t_int(r, "count"), 3);
    cJSON_Delete(r);
    /* bob's notices of the three he declined were marked read by his
     * declines, and the open one's is withdrawn when it expires after 7
     * days (issue 21, game/notify.h): six read rows, swept at 30 days. */
    cr_assert_eq(db_count_where("SELECT count(*) FROM notifications WHERE read = 0"), 1);
    t_advance(a, 29 * DAY, true);
    usleep(300 * 1000);
    cr_assert_eq(db_count_where("SELECT count(*) FROM notifications"), 6, "swept too early");
    cr_assert_eq(db_count_where("SELECT count(*) FROM challenges"), 4, "swept too early");
    t_advance(a, 2 * DAY, true);
    cr_assert_eq(wait_count("SELECT count(*) FROM notifications", 0), 0,
                 "read notifications over 30 days old");
    cr_assert_eq(wait_count("SELECT count(*) FROM challenges", 1), 1,
                 "closed challenges over 30 days old");
    /* The challenge left open expired after 7 days (issue 15) and has been
     * closed for less than 30: it stays. */
    cr_assert_eq(db_count_where("SELECT count(*) FROM challenges WHERE status = 'expired'"), 1);
    tc_close(a);
    tc_close(b);
    stop();
}

Test(bounded, the_lobby_is_paged_and_subscribed, .timeout = 120)
{
    tsrv_start(&S, "QK_RATE_LIMIT=off");
    /* Three seekers with 40 open seeks each: 120 by others for dave. */
    const char *names[3] = {"ann", "ben", "cat"};
    tconn *s[3];
    for (int k = 0; k < 3; k++) {
        s[k] = tc_open(S.port);
        t_register(s[k], names[k]);
        for (int i = 0; i < 40; i++) {
            cJSON *r = tc_rpc(s[k], "{\"type\":\"challenge\"}");
            t_ok(r, "seek");
            cJSON_Delete(r);
        }
    }
    tconn *d = tc_open(S.port), *e = tc_open(S.port), *lob = tc_open(S.port);
    t_register(d, "dave");
    t_register(e, "eve");
    cJSON *r = tc_rpc(e, "{\"type\":\"challenge\",\"to\":\"dave\"}");
    t_ok(r, "a challenge to dave");
    cJSON_Delete(r);
    r = tc_rpc(d, "{\"type\":\"challenge\"}");
    t_ok(r, "dave's own seek");
    cJSON_Delete(r);
    r = tc_rpc(lob, "{\"type\":\"login\",\"username\":\"dave\",\"password\":\"" T_PW "\"}");
    t_ok(r, "login");
    /* One page of others' seeks (50), plus dave's own and the one to him. */
    const cJSON *list = t_obj(r, "challenges");
    cr_assert_eq(cJSON_GetArraySize(list), 52, "%d", cJSON_GetArraySize(list));
    long long next = t_int(r, "seeks_next");
    cr_assert_eq(next, 50, "the 50th seek's id");
    cJSON_Delete(r);
    /* The rest by pages: 50, then 20 and no next. */
    long long seen = 50, after = next;
    for (int page = 0; after; page++) {
        r = tc_rpc(d, "{\"type\":\"seeks\",\"after\":%lld,\"limit\":50}", after);
        t_ok(r, "seeks");
        int n = cJSON_GetArraySize(t_obj(r, "seeks"));
        cr_assert_eq(n, page == 0 ? 50 : 20);
        cr_assert_eq(t_int(cJSON_GetArrayItem(t_obj(r, "seeks"), 0), "id"), after + 1);
        seen += n;
        const cJSON *nx = t_obj(r, "next");
        after = cJSON_IsNull(nx) ? 0 : (long long)nx->valuedouble;
        cJSON_Delete(r);
    }
    cr_assert_eq(seen, 120);
    r = tc_rpc(d, "{\"type\":\"seeks\",\"limit\":201}");
    t_err(r, "bad_request", "limit over 200");
    cJSON_Delete(r);
    r = tc_rpc(d, "{\"type\":\"lobby\",\"action\":\"join\"}");
    t_err(r, "bad_request", "an unknown lobby action");
    cJSON_Delete(r);
    /* Seek events only reach the lobby's subscribers. */
    r = tc_rpc(lob, "{\"type\":\"lobby\",\"action\":\"subscribe\"}");
    t_ok(r, "subscribe");
    cr_assert(cJSON_IsTrue(t_obj(r, "lobby")));
    cJSON_Delete(r);
    tc_sync(e);
    r = tc_rpc(s[0], "{\"type\":\"challenge\",\"to\":\"eve\"}");
    t_ok(r, "a directed challenge");
    cJSON_Delete(r);
    r = tc_rpc(s[1], "{\"type\":\"cancel\",\"challenge\":41}");
    t_ok(r, "cancel a seek");
    cJSON_Delete(r);
    cJSON *ev = tc_event(lob, "challenge_canceled", T_TIMEOUT_MS);
    cr_assert_not_null(ev, "the lobby hears of a canceled seek");
    cr_assert_eq(t_int(t_obj(ev, "challenge"), "id"), 41);
    cJSON_Delete(ev);
    tc_sync(lob);
    cr_assert_null(tc_event(lob, "challenge", 0), "a directed challenge reached the lobby");
    tc_sync(e);
    tc_drop_events(e);
    tc_sync(d);
    cr_assert_null(tc_event(d, "challenge_canceled", 0),
                   "dave's other connection is not in the lobby");
    r = tc_rpc(lob, "{\"type\":\"lobby\",\"action\":\"unsubscribe\"}");
    t_ok(r, "unsubscribe");
    cJSON_Delete(r);
    r = tc_rpc(s[2], "{\"type\":\"cancel\",\"challenge\":81}");
    t_ok(r, "cancel another seek");
    cJSON_Delete(r);
    tc_sync(lob);
    cr_assert_null(tc_event(lob, "challenge_canceled", 0), "an unsubscribed connection");
    for (int k = 0; k < 3; k++)
        tc_close(s[k]);
    tc_close(d);
    tc_close(e);
    tc_close(lob);
    stop();
}

/* Issue 9, item 11: a finished game in a listing (built from its rows)
 * is the object `game` gives (replayed), but for legal_moves. */
Test(bounded, a_listed_finished_game_is_the_game_object, .timeout = 60)
{
    tconn *a, *b;
    long long gid = start_with_game(&a, &b, "{\"kind\":\"unlimited\"}");
    for (int i = 0; i < 6; i++)
        t_play_first(i % 2 ? b : a, gid);
    cJSON *r = tc_rpc(b, "{\"type\":\"resign\",\"game\":%lld}", gid);
    t_ok(r, "resign");
    cJSON_Delete(r);
    tc_sync(a);
    cJSON *one = tc_rpc(a, "{\"type\":\"game\",\"game\":%lld}", gid);
    cJSON *list = tc_rpc(a, "{\"type\":\"games\",\"status\":\"finished\"}");
    t_ok(one, "game");
    t_ok(list, "games");
    cJSON *g1 = cJSON_DetachItemFromObject(one, "game");
    cJSON_DeleteItemFromObject(g1, "legal_moves");
    cJSON *g2 = cJSON_GetArrayItem(t_obj(list, "games"), 0);
    cr_assert_not_null(g2);
    char *t1 = cJSON_PrintUnformatted(g1), *t2 = cJSON_PrintUnformatted(g2);
    cr_assert_str_eq(t2, t1);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(g2, "moves")), 6);
    free(t1);
    free(t2);
    cJSON_Delete(g1);
    cJSON_Delete(one);
    cJSON_Delete(list);
    /* Built from rows, not replayed: a move text the rules would refuse
     * does not stop the listing (the replay of `game` quarantines it). */
    tsrv_stop(&S);
    sqlite3 *h = db_rw(S.db);
    char sql[128];
    snprintf(sql, sizeof sql, "UPDATE moves SET move = 'zz' WHERE game_id = %lld AND ply = 5", gid);
    db_exec(h, sql);
    sqlite3_close(h);
    tsrv_restart(&S, NULL);
    tc_close(a);
    tc_close(b);
    a = tc_open(S.port);
    r = tc_rpc(a, "{\"type\":\"login\",\"username\":\"alice\",\"password\":\"" T_PW "\"}");
    t_ok(r, "login");
    cJSON_Delete(r);
    list = tc_rpc(a, "{\"type\":\"games\",\"status\":\"finished\"}");
    t_ok(list, "games after the edit");
    cr_assert_str_eq(
        cJSON_GetArrayItem(
            cJSON_GetObjectItem(cJSON_GetArrayItem(t_obj(list, "games"), 0), "moves"), 5)
            ->valuestring,
        "zz");
    cJSON_Delete(list);
    tc_close(a);
    stop();
}
