/*
 * migrate: `qirkatd migrate --from FILE.db --db postgresql://...` (issue
 * 22 item 5, server/store/migrate.h). A real server on SQLite makes the
 * data through the protocol (accounts and their tokens, a rated game
 * played to its end, a game still being played, an open challenge,
 * notifications, a class, a tournament that has started), stops; the
 * migrate copies it into a fresh PostgreSQL database: exit 0, every
 * table's row count the file's, a second migrate into the now non-empty
 * database refused; then a server on PostgreSQL serves the old accounts
 * (password and token) and the game goes on at its next ply.
 *
 * The PostgreSQL parts need a cluster (make test-pg sets QK_TEST_PG_URL;
 * they skip without it). The source server runs on SQLite whatever
 * QK_TEST_PG_URL says: tsrv_start() would put it on PostgreSQL, so the
 * variable is set aside around its start.
 */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "helper.h"

static tsrv S, P; /* the SQLite source's server, then PostgreSQL's */
static tconn *A, *B, *C, *T;

/* Every table of schema.sql. */
static const char *const TABLES[] = {
    "users",
    "tokens",
    "games",
    "moves",
    "challenges",
    "game_extensions",
    "notifications",
    "server_state",
    "draw_offers",
    "ratings",
    "game_ratings",
    "classes",
    "class_members",
    "tournaments",
    "tournament_players",
    "tournament_pairings",
    "tournament_forbidden",
    "admin_log",
    "reset_codes",
};
#define NTABLES (sizeof TABLES / sizeof TABLES[0])

static void close_all(void)
{
    tconn **all[] = {&A, &B, &C, &T};
    for (size_t i = 0; i < 4; i++)
        if (*all[i]) {
            tc_close(*all[i]);
            *all[i] = NULL;
        }
}

static void teardown(void)
{
    close_all();
    tsrv *both[] = {&S, &P};
    for (int i = 0; i < 2; i++) {
        if (both[i]->pid && tsrv_alive(both[i]))
            tsrv_stop(both[i]);
        if (both[i]->dir[0])
            tsrv_cleanup(both[i]);
    }
}

TestSuite(migrate, .fini = teardown, .timeout = 180);

/* A server on a SQLite file in S, QK_TEST_PG_URL or not. */
static void start_sqlite(void)
{
    const char *pg = getenv("QK_TEST_PG_URL");
    char *saved = pg ? strdup(pg) : NULL;
    unsetenv("QK_TEST_PG_URL");
    tsrv_start(&S, NULL);
    if (saved) {
        setenv("QK_TEST_PG_URL", saved, 1);
        free(saved);
    }
    cr_assert_null(strstr(S.db, "://"), "the source must be a SQLite file: %s", S.db);
}

/* Run a command line (sh -c); its exit status, stdout and stderr into out. */
static int run(const char *cmd, char *out, size_t n)
{
    char full[1024];
    snprintf(full, sizeof full, "%s 2>&1", cmd);
    FILE *p = popen(full, "r");
    cr_assert_not_null(p);
    size_t got = fread(out, 1, n - 1, p);
    out[got] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int migrate(const char *from, const char *url, char *out, size_t n)
{
    const char *b = getenv("QK_BIN");
    char cmd[768];
    snprintf(cmd, sizeof cmd, "%s/qirkatd migrate --from %s --db %s", b && *b ? b : "build", from,
             url);
    return run(cmd, out, n);
}

static void ok(cJSON *r, const char *what)
{
    t_ok(r, what);
    cJSON_Delete(r);
}

/* The connection of the side to move in gid: white or black. */
static tconn *mover(tconn *white, tconn *black, long long gid)
{
    cJSON *g = t_game(white, gid);
    bool w = strcmp(t_str(g, "turn"), "white") == 0;
    cJSON_Delete(g);
    return w ? white : black;
}

static void play(tconn *white, tconn *black, long long gid, int plies)
{
    for (int i = 0; i < plies; i++)
        t_play_first(mover(white, black, gid), gid);
}

static tconn *login(int port, const char *user, char *token, size_t n)
{
    tconn *c = tc_open(port);
    cJSON *r =
        tc_rpc(c, "{\"type\":\"login\",\"username\":\"%s\",\"password\":\"" T_PW "\"}", user);
    t_ok(r, "login with the old password");
    if (token)
        snprintf(token, n, "%s", t_str(r, "token"));
    cJSON_Delete(r);
    return c;
}

/* The data of every area, made through the protocol on S. The active
 * game's id into *active, its ply into *ply, a token of alice's into
 * token (size n). */
static void make_data(long long *active, long long *ply, char *token, size_t n)
{
    A = tc_open(S.port);
    B = tc_open(S.port);
    C = tc_open(S.port);
    T = tc_open(S.port);
    t_register(A, "alice");
    t_register(B, "bob");
    t_register(C, "carol");
    t_register(T, "tina");
    tconn *again = login(S.port, "alice", token, n);
    tc_close(again);

    /* A rated game played and resigned: ratings and game_ratings rows. */
    long long done =
        t_new_game_tc(A, B, "bob", "alquerque", "{\"kind\":\"unlimited\"}", ",\"rated\":true");
    play(A, B, done, 4);
    ok(tc_rpc(B, "{\"type\":\"resign\",\"game\":%lld}", done), "resign");

    /* A game still being played, with a draw offer declined on the way. */
    *active = t_new_game(A, C, "carol", "alquerque");
    play(A, C, *active, 5);
    tconn *side = mover(A, C, *active);
    ok(tc_rpc(side, "{\"type\":\"draw\",\"game\":%lld,\"action\":\"offer\"}", *active),
       "draw offer");
    ok(tc_rpc(side == A ? C : A, "{\"type\":\"draw\",\"game\":%lld,\"action\":\"decline\"}",
              *active),
       "draw decline");
    play(A, C, *active, 1);
    cJSON *g = t_game(A, *active);
    *ply = t_int(g, "ply");
    cJSON_Delete(g);

    /* A challenge left open. */
    ok(tc_rpc(B, "{\"type\":\"challenge\",\"to\":\"carol\",\"variant\":\"alquerque\"}"),
       "challenge");

    /* A class of tina's that alice and bob join. */
    cJSON *r = tc_rpc(T, "{\"type\":\"class_create\",\"name\":\"4B\"}");
    t_ok(r, "class_create");
    char code[32];
    snprintf(code, sizeof code, "%s", t_str(t_obj(r, "class"), "code"));
    cJSON_Delete(r);
    ok(tc_rpc(A, "{\"type\":\"class_join\",\"code\":\"%s\"}", code), "class_join alice");
    ok(tc_rpc(B, "{\"type\":\"class_join\",\"code\":\"%s\"}", code), "class_join bob");

    /* A round robin of three, started: players, pairings and its games. */
    r = tc_rpc(T, "{\"type\":\"tournament_create\",\"name\":\"Club\",\"system\":\"round_robin\","
                  "\"variant\":\"alquerque\"}");
    t_ok(r, "tournament_create");
    long long tid = t_int(t_obj(r, "tournament"), "id");
    cJSON_Delete(r);
    tconn *players[] = {A, B, C};
    for (int i = 0; i < 3; i++)
        ok(tc_rpc(players[i], "{\"type\":\"tournament_join\",\"tournament\":%lld}", tid),
           "tournament_join");
    ok(tc_rpc(T, "{\"type\":\"tournament_start\",\"tournament\":%lld}", tid), "tournament_start");
    tc_sync(A);
    tc_sync(B);
    tc_sync(C);
    tc_sync(T);
}

Test(migrate, sqlite_to_postgresql)
{
    if (!getenv("QK_TEST_PG_URL") || !*getenv("QK_TEST_PG_URL"))
        cr_skip_test("QK_TEST_PG_URL is not set (make test-pg sets it)");
    start_sqlite();
    long long active, ply;
    char token[80];
    make_data(&active, &ply, token, sizeof token);
    close_all();
    tsrv_stop(&S); /* a clean stop: server_state's last_alive too */

    /* Every area has rows to copy. */
    const char *const full[] = {"users",
                                "tokens",
                                "games",
                                "moves",
                                "challenges",
                                "notifications",
                                "server_state",
                                "draw_offers",
                                "ratings",
                                "game_ratings",
                                "classes",
                                "class_members",
                                "tournaments",
                                "tournament_players",
                                "tournament_pairings"};
    for (size_t i = 0; i < sizeof full / sizeof full[0]; i++)
        cr_assert_gt(t_db_count(S.db, full[i]), 0, "the source has no %s", full[i]);

    char url[192], out[16384];
    t_pg_new_db(url, sizeof url);
    int rc = migrate(S.db, url, out, sizeof out);
    cr_assert_eq(rc, 0, "migrate exited %d:\n%s", rc, out);
    cr_assert(strstr(out, "0 do not"), "every game replays:\n%s", out);
    for (size_t i = 0; i < NTABLES; i++) {
        char sql[128];
        snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", TABLES[i]);
        long long want = t_db_count(S.db, TABLES[i]), got = t_pg_count(url, sql);
        cr_assert_eq(got, want, "%s: %lld rows in PostgreSQL, %lld in the file", TABLES[i], got,
                     want);
        cr_assert(strstr(out, TABLES[i]), "migrate prints %s's counts:\n%s", TABLES[i], out);
    }
    long long games = t_db_count(S.db, "games");
    char replayed[64];
    snprintf(replayed, sizeof replayed, "%lld games (", games);
    cr_assert(strstr(out, replayed), "all %lld games replayed:\n%s", games, out);

    /* Into the same database again: refused, nothing written. */
    rc = migrate(S.db, url, out, sizeof out);
    cr_assert_eq(rc, 1, "a second migrate exited %d:\n%s", rc, out);
    cr_assert(strstr(out, "not empty"), "the refusal says why:\n%s", out);
    cr_assert_eq(t_pg_count(url, "SELECT count(*) FROM users"), t_db_count(S.db, "users"));
    cr_assert_eq(t_pg_count(url, "SELECT count(*) FROM moves"), t_db_count(S.db, "moves"));

    /* A server on the copy: the old password and the old token log in,
     * the game goes on at its next ply, a new account gets a fresh id. */
    tsrv_start_on(&P, url, false, NULL);
    A = login(P.port, "alice", NULL, 0);
    C = login(P.port, "carol", NULL, 0);
    B = tc_open(P.port);
    cJSON *r = tc_rpc(B, "{\"type\":\"login\",\"token\":\"%s\"}", token);
    t_ok(r, "login with alice's token from SQLite");
    cr_assert_str_eq(t_str(t_obj(r, "user"), "username"), "alice");
    cJSON_Delete(r);
    cJSON *g = t_game(A, active);
    cr_assert_eq(t_int(g, "ply"), ply, "the game is at its stored ply");
    cr_assert_str_eq(t_str(g, "status"), "active");
    cJSON_Delete(g);
    t_play_first(mover(A, C, active), active);
    g = t_game(C, active);
    cr_assert_eq(t_int(g, "ply"), ply + 1, "the next move was accepted");
    cJSON_Delete(g);
    T = tc_open(P.port);
    t_register(T, "dave");
    cr_assert_eq(t_pg_count(url, "SELECT max(id) FROM users"), t_db_count(S.db, "users") + 1,
                 "the new account's id follows the copied ones");
}

/* What needs no PostgreSQL: a file at an older schema version is refused
 * before any connection, and so are bad arguments. */
Test(migrate, refuses_old_file_and_bad_arguments)
{
    start_sqlite();
    tsrv_stop(&S);
    sqlite3 *db = NULL;
    cr_assert_eq(sqlite3_open(S.db, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db, "PRAGMA user_version = 12", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    char out[4096];
    int rc = migrate(S.db, "postgresql://nobody@127.0.0.1:1/none", out, sizeof out);
    cr_assert_eq(rc, 1, "exit %d:\n%s", rc, out);
    cr_assert(strstr(out, "start qirkatd on it once first"), "%s", out);
    rc = migrate(S.db, "/tmp/not-a-url.db", out, sizeof out);
    cr_assert_eq(rc, 1, "exit %d:\n%s", rc, out);
    cr_assert(strstr(out, "PostgreSQL URL"), "%s", out);
    const char *b = getenv("QK_BIN");
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s/qirkatd migrate --from %s", b && *b ? b : "build", S.db);
    rc = run(cmd, out, sizeof out);
    cr_assert_eq(rc, 2, "no --db: exit %d:\n%s", rc, out);
    cr_assert(strstr(out, "qirkatd migrate --from FILE.db --db postgresql://"), "%s", out);
}
