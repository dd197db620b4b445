/*
 * Administrators and moderation (issue 23 item 4) through the real server
 * and the real `qirkatd admin` command beside it: an account made an
 * administrator offline (grant and revoke count at the next request,
 * without a new login); every admin op allowed for an administrator and
 * refused `forbidden` for a player and for a teacher outside their class
 * (nothing written); a teacher resetting their own student's password; a
 * ban ending the account's sessions at once, refusing its logins and
 * withdrawing its challenges; a reset code that works once, expires after
 * 24 hours (test clock) and ends the old sessions; adjudicate seen in
 * `game` and the PDN of `export`; abort_tournament; the audit rows of
 * every action, field by field.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "helper.h"

#define T0 1764478800000LL /* the test clock's start */

static tsrv S;
static tconn *A, *B, *C, *T; /* alice (to be admin), bob, carol, tina (a teacher) */

static void setup(void)
{
    tsrv_start(&S, "QK_TEST_CLOCK=1764478800000");
    A = tc_open(S.port);
    B = tc_open(S.port);
    C = tc_open(S.port);
    T = tc_open(S.port);
    t_register(A, "alice");
    t_register(B, "bob");
    t_register(C, "carol");
    t_register(T, "tina");
}

static void teardown(void)
{
    tconn *all[] = {A, B, C, T};
    for (int i = 0; i < 4; i++)
        if (all[i])
            tc_close(all[i]);
    A = B = C = T = NULL;
    tsrv_stop(&S);
    tsrv_cleanup(&S);
}

TestSuite(admin, .init = setup, .fini = teardown, .timeout = 60);

/* Run `qirkatd admin ARGS --db S.db`; its exit status, stdout into out. */
static int admin_cmd(const char *args, char *out, size_t n)
{
    const char *bin = getenv("QK_BIN") ? getenv("QK_BIN") : "build";
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s/qirkatd admin %s --db %s 2>&1", bin, args, S.db);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t got = fread(out, 1, n - 1, p);
    out[got] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void grant(const char *name)
{
    char out[512], args[64];
    snprintf(args, sizeof args, "grant %s", name);
    cr_assert_eq(admin_cmd(args, out, sizeof out), 0, "%s", out);
}

static void expect(cJSON *r, const char *code, const char *what)
{
    t_err(r, code, what);
    cJSON_Delete(r);
}

static void ok(cJSON *r, const char *what)
{
    t_ok(r, what);
    cJSON_Delete(r);
}

/* The newest audit row, as alice (an administrator) reads it. */
static cJSON *newest_entry(void)
{
    cJSON *r = tc_rpc(A, "{\"type\":\"admin_log\",\"limit\":1}");
    t_ok(r, "admin_log");
    cJSON *e = cJSON_DetachItemFromArray(cJSON_GetObjectItem(r, "entries"), 0);
    cr_assert_not_null(e, "no audit row");
    cJSON_Delete(r);
    return e;
}

static void check_entry(const char *admin, const char *action, const char *user,
                        const char *target, const char *reason)
{
    cJSON *e = newest_entry();
    cr_assert_str_eq(t_str(e, "admin"), admin);
    cr_assert_str_eq(t_str(e, "action"), action);
    const cJSON *u = cJSON_GetObjectItem(e, "user"), *why = cJSON_GetObjectItem(e, "reason");
    if (user)
        cr_assert_str_eq(cJSON_GetStringValue(u), user);
    else
        cr_assert(cJSON_IsNull(u), "user: %s", t_text(e));
    cr_assert_str_eq(t_str(e, "target"), target);
    if (reason)
        cr_assert_str_eq(cJSON_GetStringValue(why), reason);
    else
        cr_assert(cJSON_IsNull(why), "reason: %s", t_text(e));
    cr_assert_gt(t_int(e, "id"), 0);
    cr_assert_gt(t_int(e, "at"), 0);
    cJSON_Delete(e);
}

/* tina's class with bob in it (joined by the code); its id. */
static long long tinas_class_with_bob(void)
{
    cJSON *r = tc_rpc(T, "{\"type\":\"class_create\",\"name\":\"4B\"}");
    t_ok(r, "class_create");
    long long cid = t_int(t_obj(r, "class"), "id");
    char code[16];
    snprintf(code, sizeof code, "%s", t_str(t_obj(r, "class"), "code"));
    cJSON_Delete(r);
    ok(tc_rpc(B, "{\"type\":\"class_join\",\"code\":\"%s\"}", code), "class_join");
    return cid;
}

/* A round robin of tina's with bob and carol; its id (not started). */
static long long tinas_tournament(void)
{
    cJSON *r = tc_rpc(T, "{\"type\":\"tournament_create\",\"name\":\"Club\",\"system\":"
                         "\"round_robin\"}");
    t_ok(r, "tournament_create");
    long long tid = t_int(t_obj(r, "tournament"), "id");
    cJSON_Delete(r);
    ok(tc_rpc(B, "{\"type\":\"tournament_join\",\"tournament\":%lld}", tid), "join bob");
    ok(tc_rpc(C, "{\"type\":\"tournament_join\",\"tournament\":%lld}", tid), "join carol");
    return tid;
}

/* Every admin op, sent by c, is answered forbidden and changes nothing. */
static void all_forbidden(tconn *c, long long gid, long long tid, const char *who)
{
    char *before = t_db_dump(S.db);
    const char *reqs[] = {
        "{\"type\":\"ban\",\"username\":\"carol\",\"reason\":\"spam\"}",
        "{\"type\":\"unban\",\"username\":\"carol\"}",
        "{\"type\":\"reset_password\",\"username\":\"carol\"}",
        "{\"type\":\"reset_password\",\"username\":\"nobody\"}",
        "{\"type\":\"admin_log\"}",
    };
    for (size_t i = 0; i < sizeof reqs / sizeof reqs[0]; i++) {
        cJSON *r = tc_rpc(c, "%s", reqs[i]);
        t_err(r, "forbidden", reqs[i]);
        cr_assert_neq(strstr(t_str(r, "message"), "administrator"), NULL, "%s", who);
        cJSON_Delete(r);
    }
    expect(tc_rpc(c, "{\"type\":\"adjudicate\",\"game\":%lld,\"result\":\"white\",\"reason\":"
                     "\"x\"}",
                  gid),
           "forbidden", who);
    expect(tc_rpc(c, "{\"type\":\"abort_tournament\",\"tournament\":%lld,\"reason\":\"x\"}", tid),
           "forbidden", who);
    t_db_unchanged(S.db, before, who);
}

Test(admin, forbidden_for_player_and_teacher_outside_class)
{
    long long gid = t_new_game(B, C, "carol", "alquerque");
    long long tid = tinas_tournament();
    tinas_class_with_bob();
    all_forbidden(B, gid, tid, "a player");
    /* tina teaches bob, not carol: nothing of carol's is hers. */
    all_forbidden(T, gid, tid, "a teacher outside her class");
    /* alice before her grant is a player like the others. */
    all_forbidden(A, gid, tid, "alice before the grant");
    grant("alice");
    ok(tc_rpc(A, "{\"type\":\"admin_log\"}"), "admin_log after the grant");
}

Test(admin, grant_and_revoke_count_without_a_new_login)
{
    expect(tc_rpc(A, "{\"type\":\"admin_log\"}"), "forbidden", "before");
    char out[512];
    cr_assert_eq(admin_cmd("grant Alice", out, sizeof out), 0, "%s", out);
    cr_assert_str_eq(out, "alice is now an administrator (logged as operator)\n");
    cr_assert_eq(admin_cmd("grant alice", out, sizeof out), 0, "%s", out);
    cr_assert_str_eq(out, "alice is already an administrator: nothing changed\n");
    /* The same connection, no new login. */
    cJSON *r = tc_rpc(A, "{\"type\":\"admin_log\"}");
    t_ok(r, "admin_log");
    const cJSON *list = cJSON_GetObjectItem(r, "entries");
    cr_assert_eq(cJSON_GetArraySize(list), 1, "%s", t_text(r));
    cJSON_Delete(r);
    check_entry("operator", "grant", "alice", "user alice", NULL);
    cr_assert_eq(admin_cmd("revoke alice", out, sizeof out), 0, "%s", out);
    cr_assert_str_eq(out, "alice is no longer an administrator (logged as operator)\n");
    expect(tc_rpc(A, "{\"type\":\"admin_log\"}"), "forbidden", "after the revoke");
    cr_assert_eq(admin_cmd("grant nobody", out, sizeof out), 1, "%s", out);
    cr_assert(strncmp(out, "qirkatd admin grant: no user \"nobody\" in ", 39) == 0, "%s", out);
}

Test(admin, offline_log_lists_the_audit)
{
    char out[2048];
    grant("alice");
    grant("bob");
    cr_assert_eq(admin_cmd("revoke bob", out, sizeof out), 0, "%s", out);
    cr_assert_eq(admin_cmd("log", out, sizeof out), 0, "%s", out);
    /* Newest first: id, time, who, action, target. */
    char *l1 = out, *l2 = strchr(l1, '\n') + 1, *l3 = strchr(l2, '\n') + 1;
    cr_assert(strncmp(l1, "3  ", 3) == 0 && strstr(l1, "UTC  operator  revoke  user bob\n") &&
                  strncmp(l2, "2  ", 3) == 0 && strstr(l2, "UTC  operator  grant  user bob\n") &&
                  strncmp(l3, "1  ", 3) == 0 && strstr(l3, "UTC  operator  grant  user alice\n"),
              "%s", out);
    cr_assert_eq(admin_cmd("log --limit 1", out, sizeof out), 0, "%s", out);
    cr_assert_eq(strchr(out, '\n'), out + strlen(out) - 1, "%s", out);
    cr_assert_eq(admin_cmd("frob", out, sizeof out), 2, "%s", out);
}

Test(admin, ban_ends_sessions_refuses_logins_withdraws_challenges)
{
    grant("alice");
    /* bob: a second connection, a challenge to carol, an open seek; carol
     * has challenged bob; bob and carol play a game. */
    tconn *B2 = tc_open(S.port);
    cJSON *r = tc_rpc(B2, "{\"type\":\"login\",\"username\":\"bob\",\"password\":\"" T_PW "\"}");
    t_ok(r, "login bob");
    char token[80];
    snprintf(token, sizeof token, "%s", t_str(r, "token"));
    cJSON_Delete(r);
    long long gid = t_new_game(B, C, "carol", "alquerque");
    ok(tc_rpc(B, "{\"type\":\"challenge\",\"to\":\"carol\"}"), "bob challenges carol");
    ok(tc_rpc(B, "{\"type\":\"challenge\"}"), "bob's seek");
    ok(tc_rpc(C, "{\"type\":\"challenge\",\"to\":\"bob\"}"), "carol challenges bob");
    cr_assert_eq(t_count_kind(C, "challenge"), 2); /* the game's and the open one */
    tc_sync(B);
    tc_sync(B2);
    tc_sync(C);

    r = tc_rpc(A, "{\"type\":\"ban\",\"username\":\"BOB\",\"reason\":\"spamming the lobby\"}");
    t_ok(r, "ban");
    cr_assert_str_eq(t_str(t_obj(r, "user"), "username"), "bob");
    cr_assert_str_eq(t_str(r, "reason"), "spamming the lobby");
    cr_assert_eq(t_int(r, "sessions_ended"), 2);
    cr_assert_eq(t_int(r, "challenges_canceled"), 3);
    cJSON_Delete(r);
    /* Both of bob's connections are told at once and are anonymous. */
    tconn *bs[] = {B, B2};
    for (int i = 0; i < 2; i++) {
        cJSON *ev = tc_event(bs[i], "logged_out", T_TIMEOUT_MS);
        cr_assert_not_null(ev, "connection %d got no logged_out", i + 1);
        cr_assert_str_eq(t_str(ev, "reason"), "banned");
        cJSON_Delete(ev);
        expect(tc_rpc(bs[i], "{\"type\":\"challenges\"}"), "unauthenticated", "after the ban");
    }
    /* carol: both challenges between them canceled; bob's notice withdrawn. */
    for (int i = 0; i < 2; i++) {
        cJSON *ev = tc_event(C, "challenge_canceled", T_TIMEOUT_MS);
        cr_assert_not_null(ev, "carol's challenge_canceled %d", i + 1);
        cr_assert_str_eq(t_str(t_obj(ev, "challenge"), "status"), "canceled");
        cJSON_Delete(ev);
    }
    r = tc_rpc(C, "{\"type\":\"challenges\"}");
    t_ok(r, "challenges");
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(r, "challenges")), 0, "%s", t_text(r));
    cJSON_Delete(r);
    cr_assert_eq(t_count_kind(C, "challenge"), 1); /* only the accepted one's, read */
    /* The running game is left to its clock. */
    cJSON *g = t_game(C, gid);
    cr_assert_str_eq(t_str(g, "status"), "active");
    cJSON_Delete(g);
    /* Logins: the password is refused forbidden with the reason; the
     * token was deleted. */
    r = tc_rpc(B, "{\"type\":\"login\",\"username\":\"bob\",\"password\":\"" T_PW "\"}");
    t_err(r, "forbidden", "password login of a banned account");
    cr_assert_str_eq(t_str(r, "message"), "this account is banned: spamming the lobby");
    cJSON_Delete(r);
    r = tc_rpc(B, "{\"type\":\"login\",\"token\":\"%s\"}", token);
    t_err(r, "unauthenticated", "the banned account's old token");
    cr_assert_str_eq(t_str(r, "message"), "unknown token");
    cJSON_Delete(r);
    /* A wrong password says nothing of the ban. */
    r = tc_rpc(B, "{\"type\":\"login\",\"username\":\"bob\",\"password\":\"wrong\"}");
    t_err(r, "unauthenticated", "wrong password");
    cJSON_Delete(r);
    check_entry("alice", "ban", "bob", "user bob", "spamming the lobby");
    /* Checks: already banned, yourself, an administrator, nobody. */
    char *before = t_db_dump(S.db);
    expect(tc_rpc(A, "{\"type\":\"ban\",\"username\":\"bob\",\"reason\":\"again\"}"), "conflict",
           "twice");
    expect(tc_rpc(A, "{\"type\":\"ban\",\"username\":\"alice\",\"reason\":\"me\"}"),
           "bad_request", "yourself");
    expect(tc_rpc(A, "{\"type\":\"ban\",\"username\":\"nobody\",\"reason\":\"x\"}"), "not_found",
           "nobody");
    expect(tc_rpc(A, "{\"type\":\"ban\",\"username\":\"carol\",\"reason\":\"\"}"), "bad_request",
           "empty reason");
    expect(tc_rpc(A, "{\"type\":\"ban\",\"username\":\"carol\"}"), "bad_request", "no reason");
    expect(tc_rpc(A, "{\"type\":\"unban\",\"username\":\"carol\"}"), "conflict", "not banned");
    t_db_unchanged(S.db, before, "refused bans");
    grant("carol");
    expect(tc_rpc(A, "{\"type\":\"ban\",\"username\":\"carol\",\"reason\":\"x\"}"), "forbidden",
           "an administrator");
    /* Unban: the password works again. */
    r = tc_rpc(A, "{\"type\":\"unban\",\"username\":\"bob\",\"reason\":\"appealed\"}");
    t_ok(r, "unban");
    cr_assert_str_eq(t_str(t_obj(r, "user"), "username"), "bob");
    cJSON_Delete(r);
    check_entry("alice", "unban", "bob", "user bob", "appealed");
    ok(tc_rpc(B, "{\"type\":\"login\",\"username\":\"bob\",\"password\":\"" T_PW "\"}"),
       "login after the unban");
    tc_close(B2);
}

/* bob's reset code from alice (an administrator); into code. */
static void reset_code(tconn *by, const char *admin, char code[32])
{
    cJSON *r = tc_rpc(by, "{\"type\":\"reset_password\",\"username\":\"bob\"}");
    t_ok(r, "reset_password");
    cr_assert_str_eq(t_str(t_obj(r, "user"), "username"), "bob");
    snprintf(code, 32, "%s", t_str(r, "code"));
    cr_assert_eq(strlen(code), 19, "%s", code);
    cr_assert(code[4] == '-' && code[9] == '-' && code[14] == '-', "%s", code);
    cJSON *now = tc_rpc(by, "{\"type\":\"ping\"}");
    cr_assert_eq(t_int(r, "expires"), t_int(now, "server_ts") + 86400000LL);
    cJSON_Delete(now);
    cJSON_Delete(r);
    check_entry(admin, "reset_password", "bob", "user bob", NULL);
}

Test(admin, reset_code_works_once_expires_and_ends_old_sessions)
{
    grant("alice");
    char code[32];
    reset_code(A, "alice", code);
    tconn *X = tc_open(S.port); /* anonymous: bob on a new device */
    /* Wrong code, wrong user, bad password: nothing changes. */
    char *before = t_db_dump(S.db);
    expect(tc_rpc(X, "{\"type\":\"redeem_reset\",\"username\":\"bob\",\"code\":"
                     "\"AAAA-AAAA-AAAA-AAAA\",\"password\":\"new-pw-1\"}"),
           "unauthenticated", "wrong code");
    expect(tc_rpc(X, "{\"type\":\"redeem_reset\",\"username\":\"carol\",\"code\":\"%s\","
                     "\"password\":\"new-pw-1\"}",
                  code),
           "unauthenticated", "another user's code");
    expect(tc_rpc(X, "{\"type\":\"redeem_reset\",\"username\":\"bob\",\"code\":\"%s\","
                     "\"password\":\"\"}",
                  code),
           "bad_request", "empty password");
    t_db_unchanged(S.db, before, "refused redeems");
    /* Typed in lower case without dashes, it works. */
    char typed[32];
    size_t k = 0;
    for (const char *p = code; *p; p++)
        if (*p != '-')
            typed[k++] = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
    typed[k] = '\0';
    cJSON *r = tc_rpc(X, "{\"type\":\"redeem_reset\",\"username\":\"bob\",\"code\":\"%s\","
                         "\"password\":\"new-pw-1\"}",
                      typed);
    t_ok(r, "redeem_reset");
    cr_assert_str_eq(t_str(t_obj(r, "user"), "username"), "bob");
    cr_assert_eq(strlen(t_str(r, "token")), 64);
    cr_assert_not_null(cJSON_GetObjectItem(r, "games"));
    cJSON_Delete(r);
    ok(tc_rpc(X, "{\"type\":\"challenges\"}"), "X is logged in as bob");
    /* bob's old session ended at once. */
    cJSON *ev = tc_event(B, "logged_out", T_TIMEOUT_MS);
    cr_assert_not_null(ev);
    cr_assert_str_eq(t_str(ev, "reason"), "password_reset");
    cJSON_Delete(ev);
    expect(tc_rpc(B, "{\"type\":\"challenges\"}"), "unauthenticated", "old session");
    /* The code works once; the old password is gone, the new one works. */
    expect(tc_rpc(C, "{\"type\":\"redeem_reset\",\"username\":\"bob\",\"code\":\"%s\","
                     "\"password\":\"new-pw-2\"}",
                  code),
           "unauthenticated", "the code a second time");
    expect(tc_rpc(C, "{\"type\":\"login\",\"username\":\"bob\",\"password\":\"" T_PW "\"}"),
           "unauthenticated", "the old password");
    ok(tc_rpc(C, "{\"type\":\"login\",\"username\":\"bob\",\"password\":\"new-pw-1\"}"),
       "the new password");
    /* A code is valid 24 hours. */
    reset_code(A, "alice", code);
    t_advance(A, 86400000LL, true);
    r = tc_rpc(X, "{\"type\":\"redeem_reset\",\"username\":\"bob\",\"code\":\"%s\","
                  "\"password\":\"new-pw-3\"}",
               code);
    t_err(r, "unauthenticated", "an expired code");
    cr_assert_str_eq(t_str(r, "message"), "wrong or expired code");
    cJSON_Delete(r);
    /* A newer code replaces an older one. */
    char first[32];
    reset_code(A, "alice", first);
    reset_code(A, "alice", code);
    expect(tc_rpc(X, "{\"type\":\"redeem_reset\",\"username\":\"bob\",\"code\":\"%s\","
                     "\"password\":\"new-pw-3\"}",
                  first),
           "unauthenticated", "a replaced code");
    ok(tc_rpc(X, "{\"type\":\"redeem_reset\",\"username\":\"bob\",\"code\":\"%s\","
                 "\"password\":\"new-pw-3\"}",
              code),
       "the newest code");
    tc_close(X);
}

Test(admin, teacher_resets_own_students_password_only)
{
    grant("alice"); /* to read the audit */
    tinas_class_with_bob();
    char code[32];
    reset_code(T, "tina", code);
    char *before = t_db_dump(S.db);
    expect(tc_rpc(T, "{\"type\":\"reset_password\",\"username\":\"carol\"}"), "forbidden",
           "not her student");
    expect(tc_rpc(T, "{\"type\":\"reset_password\",\"username\":\"nobody\"}"), "forbidden",
           "nobody");
    /* Nothing else of her student's. */
    expect(tc_rpc(T, "{\"type\":\"ban\",\"username\":\"bob\",\"reason\":\"x\"}"), "forbidden",
           "ban her student");
    t_db_unchanged(S.db, before, "the teacher's refused requests");
    /* Not an administrator's password, even one in her class. */
    grant("bob");
    expect(tc_rpc(T, "{\"type\":\"reset_password\",\"username\":\"bob\"}"), "forbidden",
           "an administrator student");
    ok(tc_rpc(C, "{\"type\":\"redeem_reset\",\"username\":\"bob\",\"code\":\"%s\","
                 "\"password\":\"kid-pw-99\"}",
              code),
       "the student redeems the teacher's code");
}

Test(admin, adjudicate_ends_a_game_seen_in_game_and_pdn)
{
    grant("alice");
    long long gid = t_new_game(B, C, "carol", "alquerque");
    t_play_first(B, gid);
    char *before = t_db_dump(S.db);
    expect(tc_rpc(A, "{\"type\":\"adjudicate\",\"game\":%lld,\"result\":\"nobody\",\"reason\":"
                     "\"x\"}",
                  gid),
           "bad_request", "result word");
    expect(tc_rpc(A, "{\"type\":\"adjudicate\",\"game\":%lld,\"result\":\"white\",\"reason\":"
                     "\"\"}",
                  gid),
           "bad_request", "empty reason");
    expect(tc_rpc(A, "{\"type\":\"adjudicate\",\"game\":999,\"result\":\"white\",\"reason\":"
                     "\"x\"}"),
           "not_found", "no such game");
    t_db_unchanged(S.db, before, "refused adjudications");
    tc_sync(B);
    cJSON *r = tc_rpc(A, "{\"type\":\"adjudicate\",\"game\":%lld,\"result\":\"black\",\"reason\":"
                         "\"white left the hall\"}",
                      gid);
    t_ok(r, "adjudicate");
    const cJSON *g = t_obj(r, "game");
    cr_assert_str_eq(t_str(g, "status"), "finished");
    cr_assert_str_eq(t_str(g, "result"), "black");
    cr_assert_str_eq(t_str(g, "reason"), "adjudicated");
    cJSON_Delete(r);
    cJSON *ev = tc_event(B, "game_end", T_TIMEOUT_MS);
    cr_assert_not_null(ev);
    cr_assert_str_eq(t_str(ev, "result"), "black");
    cr_assert_str_eq(t_str(ev, "reason"), "adjudicated");
    cJSON_Delete(ev);
    cJSON *gg = t_game(C, gid);
    cr_assert_str_eq(t_str(gg, "reason"), "adjudicated");
    cr_assert_str_eq(t_str(gg, "result"), "black");
    cJSON_Delete(gg);
    /* bob was online: the game_end event told him, no notice stored. */
    cr_assert_eq(t_count_kind(B, "game_end"), 0);
    r = tc_rpc(C, "{\"type\":\"export\",\"game\":%lld}", gid);
    t_ok(r, "export");
    const char *pdn = cJSON_GetArrayItem(cJSON_GetObjectItem(r, "records"), 0)->valuestring;
    cr_assert_not_null(strstr(pdn, "[Termination \"adjudicated\"]"), "%s", pdn);
    cr_assert_not_null(strstr(pdn, "[Result \"0-1\"]"), "%s", pdn);
    cJSON_Delete(r);
    char target[64];
    snprintf(target, sizeof target, "game %lld (bob-carol)", gid);
    check_entry("alice", "adjudicate", NULL, target, "white left the hall");
    expect(tc_rpc(A, "{\"type\":\"adjudicate\",\"game\":%lld,\"result\":\"white\",\"reason\":"
                     "\"again\"}",
                  gid),
           "game_over", "a finished game");
    /* A draw where the variant has none. */
    long long bk = t_new_game(B, C, "carol", "alquerque-brainking");
    expect(tc_rpc(A, "{\"type\":\"adjudicate\",\"game\":%lld,\"result\":\"draw\",\"reason\":"
                     "\"x\"}",
                  bk),
           "bad_request", "no draws in brainking");
    ok(tc_rpc(A, "{\"type\":\"adjudicate\",\"game\":%lld,\"result\":\"white\",\"reason\":"
                 "\"x\"}",
              bk),
       "brainking, white");
}

Test(admin, adjudicate_gives_a_tournament_game_its_result)
{
    grant("alice");
    long long tid = tinas_tournament();
    cJSON *r = tc_rpc(T, "{\"type\":\"tournament_start\",\"tournament\":%lld}", tid);
    t_ok(r, "tournament_start");
    const cJSON *p = cJSON_GetArrayItem(
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(t_obj(r, "tournament"),
                                                                   "rounds"),
                                               0),
                            "pairings"),
        0);
    long long gid = t_int(p, "game");
    cJSON_Delete(r);
    tc_sync(T);
    ok(tc_rpc(A, "{\"type\":\"adjudicate\",\"game\":%lld,\"result\":\"draw\",\"reason\":"
                 "\"both asleep\"}",
              gid),
       "adjudicate");
    cJSON *ev = tc_event(T, "tournament_result", T_TIMEOUT_MS);
    cr_assert_not_null(ev);
    cr_assert_str_eq(t_str(ev, "result"), "draw");
    cr_assert_str_eq(t_str(ev, "reason"), "adjudicated");
    cJSON_Delete(ev);
    /* A two-player round robin has one round: it is over. */
    ev = tc_event(T, "tournament_end", T_TIMEOUT_MS);
    cr_assert_not_null(ev);
    cJSON_Delete(ev);
}

Test(admin, abort_tournament_ends_it_with_the_reason)
{
    grant("alice");
    long long tid = tinas_tournament();
    ok(tc_rpc(T, "{\"type\":\"tournament_start\",\"tournament\":%lld}", tid), "start");
    tc_sync(T);
    tc_sync(B);
    char *before = t_db_dump(S.db);
    expect(tc_rpc(A, "{\"type\":\"abort_tournament\",\"tournament\":999,\"reason\":\"x\"}"),
           "not_found", "no such tournament");
    expect(tc_rpc(A, "{\"type\":\"abort_tournament\",\"tournament\":%lld,\"reason\":\"\"}", tid),
           "bad_request", "empty reason");
    t_db_unchanged(S.db, before, "refused aborts");
    cJSON *r = tc_rpc(A, "{\"type\":\"abort_tournament\",\"tournament\":%lld,\"reason\":"
                         "\"the hall is closed\"}",
                      tid);
    t_ok(r, "abort_tournament");
    cr_assert_str_eq(t_str(t_obj(r, "tournament"), "status"), "finished");
    cr_assert_str_eq(t_str(t_obj(r, "tournament"), "end_reason"), "the hall is closed");
    cJSON_Delete(r);
    tconn *to[] = {T, B};
    for (int i = 0; i < 2; i++) {
        cJSON *ev = tc_event(to[i], "tournament_end", T_TIMEOUT_MS);
        cr_assert_not_null(ev, "tournament_end %d", i);
        cr_assert_str_eq(t_str(ev, "reason"), "the hall is closed");
        cJSON_Delete(ev);
    }
    cr_assert_eq(t_count_kind(B, "tournament_end"), 1);
    char target[64];
    snprintf(target, sizeof target, "tournament %lld", tid);
    check_entry("alice", "abort_tournament", NULL, target, "the hall is closed");
    expect(tc_rpc(A, "{\"type\":\"abort_tournament\",\"tournament\":%lld,\"reason\":\"x\"}", tid),
           "conflict", "finished already");
}

Test(admin, admin_log_pages_newest_first)
{
    grant("alice");
    ok(tc_rpc(A, "{\"type\":\"ban\",\"username\":\"bob\",\"reason\":\"r1\"}"), "ban");
    ok(tc_rpc(A, "{\"type\":\"unban\",\"username\":\"bob\"}"), "unban");
    ok(tc_rpc(A, "{\"type\":\"reset_password\",\"username\":\"carol\",\"reason\":\"forgot\"}"),
       "reset");
    /* 4 rows: grant (operator), ban, unban, reset_password. */
    cJSON *r = tc_rpc(A, "{\"type\":\"admin_log\",\"limit\":2}");
    t_ok(r, "admin_log");
    const cJSON *l = cJSON_GetObjectItem(r, "entries");
    cr_assert_eq(cJSON_GetArraySize(l), 2);
    const cJSON *e0 = cJSON_GetArrayItem(l, 0), *e1 = cJSON_GetArrayItem(l, 1);
    cr_assert_str_eq(t_str(e0, "action"), "reset_password");
    cr_assert_str_eq(t_str(e0, "user"), "carol");
    cr_assert_str_eq(t_str(e0, "reason"), "forgot");
    cr_assert_eq(t_int(e0, "at"), T0);
    cr_assert_str_eq(t_str(e1, "action"), "unban");
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(e1, "reason")));
    long long next = t_int(r, "next");
    cr_assert_eq(next, t_int(e1, "id"));
    cJSON_Delete(r);
    r = tc_rpc(A, "{\"type\":\"admin_log\",\"limit\":2,\"before\":%lld}", next);
    t_ok(r, "admin_log page 2");
    l = cJSON_GetObjectItem(r, "entries");
    cr_assert_eq(cJSON_GetArraySize(l), 2);
    cr_assert_str_eq(t_str(cJSON_GetArrayItem(l, 0), "action"), "ban");
    cr_assert_str_eq(t_str(cJSON_GetArrayItem(l, 0), "reason"), "r1");
    cr_assert_str_eq(t_str(cJSON_GetArrayItem(l, 1), "action"), "grant");
    cr_assert_str_eq(t_str(cJSON_GetArrayItem(l, 1), "admin"), "operator");
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(r, "next")), "%s", t_text(r));
    cJSON_Delete(r);
    expect(tc_rpc(A, "{\"type\":\"admin_log\",\"limit\":0}"), "bad_request", "limit 0");
    expect(tc_rpc(A, "{\"type\":\"admin_log\",\"limit\":201}"), "bad_request", "limit 201");
    cr_assert_eq(t_db_count(S.db, "admin_log"), 4);
}
