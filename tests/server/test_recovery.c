/*
 * test_recovery: what the server does with a database it cannot fully
 * trust (rows edited behind its back between runs). The rules, not the
 * stored strings, decide a game's position; a login whose answer cannot
 * be built (a store read error) leaves nothing behind: the client is not
 * logged in and no token is kept.
 */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "helper.h"

static tsrv S;
static tconn *A, *B;

static void setup(void)
{
    tsrv_start(&S, NULL);
    A = tc_open(S.port);
    B = tc_open(S.port);
    t_register(A, "alice");
    t_register(B, "bob");
}

static void teardown(void)
{
    if (A)
        tc_close(A);
    if (B)
        tc_close(B);
    A = B = NULL;
    tsrv_stop(&S);
    tsrv_cleanup(&S);
}

TestSuite(recovery, .init = setup, .fini = teardown, .timeout = 60);

/* Stop the server, run sql on its database, start it again; A and B are
 * fresh anonymous connections. */
static void edit_db(const char *sql)
{
    tc_close(A);
    tc_close(B);
    tsrv_stop(&S);
    sqlite3 *db = NULL;
    cr_assert_eq(sqlite3_open(S.db, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
    sqlite3_close(db);
    tsrv_restart(&S, NULL);
    A = tc_open(S.port);
    B = tc_open(S.port);
}

Test(recovery, a_stored_position_that_disagrees_with_the_replay_is_replaced)
{
    long long gid = t_new_game(A, B, "bob", "alquerque");
    cJSON *r = tc_rpc(A, "{\"type\":\"game\",\"game\":%lld}", gid);
    t_ok(r, "game");
    char start[256];
    snprintf(start, sizeof start, "%s", t_str(t_obj(r, "game"), "position"));
    cJSON_Delete(r);
    char sql[256];
    snprintf(sql, sizeof sql, "UPDATE games SET position = 'bogus', turn = 'black' WHERE id = %lld",
             gid);
    edit_db(sql);
    r = tc_rpc(A, "{\"type\":\"login\",\"username\":\"alice\",\"password\":\"" T_PW "\"}");
    t_ok(r, "login");
    cJSON_Delete(r);
    r = tc_rpc(A, "{\"type\":\"game\",\"game\":%lld}", gid);
    t_ok(r, "game after the edit");
    const cJSON *g = t_obj(r, "game");
    cr_assert_str_eq(t_str(g, "position"), start, "%s", t_text(r));
    cr_assert_str_eq(t_str(g, "turn"), "white", "%s", t_text(r));
    cJSON_Delete(r);
}

/* A game that cannot be loaded makes the login result fail (it lists the
 * active games): `internal`, and the connection stays anonymous. */
static void login_fails_and_stays_anonymous(tconn *c, const char *login)
{
    long long tokens = t_db_count(S.db, "tokens");
    cJSON *r = tc_rpc(c, "%s", login);
    t_err(r, "internal", "login with an unloadable game");
    cJSON_Delete(r);
    r = tc_rpc(c, "{\"type\":\"challenges\"}");
    t_err(r, "unauthenticated", "after a failed login");
    cJSON_Delete(r);
    cr_assert_eq(t_db_count(S.db, "tokens"), tokens, "a failed login kept a token");
}

Test(recovery, a_login_answered_internal_leaves_the_client_logged_out)
{
    cJSON *r = tc_rpc(A, "{\"type\":\"login\",\"username\":\"alice\",\"password\":\"" T_PW "\"}");
    t_ok(r, "login");
    char token[128];
    snprintf(token, sizeof token, "%s", t_str(r, "token"));
    cJSON_Delete(r);
    long long gid = t_new_game(A, B, "bob", "alquerque");
    char sql[128];
    snprintf(sql, sizeof sql, "UPDATE games SET start = 'not a position' WHERE id = %lld", gid);
    edit_db(sql);
    login_fails_and_stays_anonymous(
        A, "{\"type\":\"login\",\"username\":\"alice\",\"password\":\"" T_PW "\"}");
    char login[256];
    snprintf(login, sizeof login, "{\"type\":\"login\",\"token\":\"%s\"}", token);
    login_fails_and_stays_anonymous(B, login);
}
