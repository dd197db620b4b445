/*
 * The admin area (store_admin.h: the admin flag and bans, an account's
 * tokens, "teaches", the audit admin_log, password-reset codes) on both
 * backends: one sequence runs on a fresh PostgreSQL database and on a
 * fresh SQLite file and the two traces must be equal line for line
 * (storecmp.h); exact values are asserted too. The admin flag, a class
 * and its members are plain SQL rows (the same text on both): the flag is
 * only ever set by the operator's offline command, and the class is the
 * tourney area's.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "pgtest.h"
#include "storecmp.h"

TestSuite(pg_admin, .init = cmp_init, .fini = cmp_fini, .timeout = 60);

static void user_get(cmp_trace *t, store *s, int64_t id, store_admin_user *u, int want)
{
    char what[48];
    snprintf(what, sizeof what, "admin_user_get %lld", (long long)id);
    memset(u, 0x55, sizeof *u);
    cr_assert_eq(cmp_rc(t, what, store_admin_user_get(s, id, u)), want);
    if (want == STORE_OK)
        cmp_tr(t, "  user id=%lld username=%s admin=%d banned=%d reason=%s\n", (long long)u->id,
               u->username, u->admin, u->banned, u->ban_reason);
}

static int on_entry(void *arg, const store_admin_entry *e)
{
    cmp_seen *w = arg;
    cmp_tr(w->t,
           "  entry id=%lld at=%lld admin=%lld/%s action=%s target_user=%lld/%s target=%s "
           "reason=%s\n",
           (long long)e->id, (long long)e->at, (long long)e->admin_id, e->admin_name, e->action,
           (long long)e->target_user_id, e->target_user, e->target, e->reason);
    return cmp_keep(w, e->id);
}

static int log_list(cmp_trace *t, store *s, int64_t before, int64_t limit, cmp_seen *w)
{
    char what[64];
    snprintf(what, sizeof what, "log_list before %lld limit %lld", (long long)before,
             (long long)limit);
    return cmp_rc(t, what, store_admin_log_list(s, before, limit, on_entry, w));
}

static store_admin_entry an_entry(int64_t at, int64_t admin_id, const char *admin_name,
                                  const char *action, int64_t target_user_id, const char *target,
                                  const char *reason)
{
    store_admin_entry e = {
        .id = 77, .at = at, .admin_id = admin_id, .target_user_id = target_user_id};
    snprintf(e.admin_name, sizeof e.admin_name, "%s", admin_name);
    snprintf(e.action, sizeof e.action, "%s", action);
    snprintf(e.target, sizeof e.target, "%s", target);
    snprintf(e.reason, sizeof e.reason, "%s", reason);
    snprintf(e.target_user, sizeof e.target_user, "ignored");
    return e;
}

static void fill(uint8_t h[STORE_TOKEN_HASH], uint8_t v)
{
    for (int i = 0; i < STORE_TOKEN_HASH; i++)
        h[i] = (uint8_t)(v + i * 7); /* a zero byte and bytes above 0x7f among them */
}

static bool teaches(cmp_trace *t, store *s, int64_t teacher, int64_t user)
{
    bool yes = true;
    char what[48];
    snprintf(what, sizeof what, "teaches %lld %lld", (long long)teacher, (long long)user);
    cr_assert_eq(cmp_rc(t, what, store_admin_teaches(s, teacher, user, &yes)), STORE_OK);
    cmp_tr(t, "  yes=%d\n", yes);
    return yes;
}

static void admin_sequence(cmp_side *b, cmp_trace *t)
{
    store *s = b->s;
    int64_t root = cmp_user(s, "root", false);
    int64_t ann = cmp_user(s, "Ann", false);
    int64_t ben = cmp_user(s, "ben", true);
    int64_t tea = cmp_user(s, "teacher", false);
    cr_assert_eq(root, 1);
    cr_assert_eq(tea, 4);
    cmp_exec(b, "UPDATE users SET admin = 1 WHERE id = 1");
    cmp_exec(b, "INSERT INTO classes (name, code, teacher_id, created) VALUES ('5B', 'ABC123', 4, "
                "1000)");
    cmp_exec(b, "INSERT INTO class_members (class_id, user_id, name, created) VALUES (1, 2, '', "
                "1001)");

    /* The flag and the ban. */
    store_admin_user u;
    user_get(t, s, root, &u, STORE_OK);
    cr_assert(u.admin && !u.banned);
    cr_assert_str_eq(u.username, "root");
    cr_assert_str_eq(u.ban_reason, "");
    user_get(t, s, ann, &u, STORE_OK);
    cr_assert(!u.admin && !u.banned);
    user_get(t, s, 99, &u, STORE_NOTFOUND);
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(cmp_rc(t, "ban_set ann", store_admin_ban_set(s, ann, "spam, twice")), STORE_OK);
    cr_assert_eq(cmp_rc(t, "ban_set 99", store_admin_ban_set(s, 99, "x")), STORE_NOTFOUND);
    user_get(t, s, ann, &u, STORE_OK);
    cr_assert(u.banned);
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);
    user_get(t, s, ann, &u, STORE_OK);
    cr_assert(u.banned);
    cr_assert_str_eq(u.ban_reason, "spam, twice");
    cr_assert_str_eq(u.username, "Ann");
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(cmp_rc(t, "ban_set ben", store_admin_ban_set(s, ben, "rolled back")), STORE_OK);
    store_rollback(s);
    user_get(t, s, ben, &u, STORE_OK);
    cr_assert(!u.banned);
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(cmp_rc(t, "ban_set ann lift", store_admin_ban_set(s, ann, NULL)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);
    user_get(t, s, ann, &u, STORE_OK);
    cr_assert(!u.banned);
    cr_assert_str_eq(u.ban_reason, "");

    /* Tokens: every one of the account, counted. */
    uint8_t h[4][STORE_TOKEN_HASH];
    for (int i = 0; i < 4; i++)
        fill(h[i], (uint8_t)(0x10 * i + 0xf0));
    cr_assert_eq(store_begin(s), STORE_OK);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(store_token_insert(s, h[i], ann, 5000), STORE_OK);
    cr_assert_eq(store_token_insert(s, h[3], ben, 5000), STORE_OK);
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);
    int64_t n = -1, who = 0;
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(cmp_rc(t, "tokens_delete ann", store_admin_tokens_delete(s, ann, &n)), STORE_OK);
    cmp_tr(t, "  n=%lld\n", (long long)n);
    cr_assert_eq(n, 3);
    cr_assert_eq(cmp_rc(t, "tokens_delete ann again", store_admin_tokens_delete(s, ann, &n)),
                 STORE_OK);
    cmp_tr(t, "  n=%lld\n", (long long)n);
    cr_assert_eq(n, 0);
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "token_user ann", store_token_user(s, h[0], 5001, &who)),
                 STORE_NOTFOUND);
    cr_assert_eq(cmp_rc(t, "token_user ben", store_token_user(s, h[3], 5001, &who)), STORE_OK);
    cr_assert_eq(who, ben);
    cr_assert_eq(cmp_rc(t, "tokens_delete ben NULL", store_admin_tokens_delete(s, ben, NULL)),
                 STORE_OK);
    cr_assert_eq(cmp_rc(t, "token_user ben gone", store_token_user(s, h[3], 5002, &who)),
                 STORE_NOTFOUND);
    cr_assert_eq(cmp_rc(t, "tokens_delete 99", store_admin_tokens_delete(s, 99, &n)), STORE_OK);
    cr_assert_eq(n, 0);

    /* Teaches: a member of a class the teacher teaches. */
    cr_assert(teaches(t, s, tea, ann));
    cr_assert(!teaches(t, s, tea, ben));
    cr_assert(!teaches(t, s, ann, tea));
    cr_assert(!teaches(t, s, tea, tea));
    cr_assert(!teaches(t, s, 99, ann));

    /* The audit: optional admin, target user and reason. */
    store_admin_entry e1 = an_entry(7000, root, "root", "ban", ann, "user Ann", "spam");
    store_admin_entry e2 = an_entry(7001, 0, STORE_ADMIN_OPERATOR, "grant", root, "user root", "");
    store_admin_entry e3 = an_entry(7002, root, "root", "adjudicate", 0, "game 7", "");
    store_admin_entry e4 = an_entry(7003, root, "root", "unban", ann, "user Ann", "appeal");
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(cmp_rc(t, "log_insert e1", store_admin_log_insert(s, &e1)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "log_insert e2", store_admin_log_insert(s, &e2)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "log_insert e3", store_admin_log_insert(s, &e3)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "log_insert e4", store_admin_log_insert(s, &e4)), STORE_OK);
    cmp_tr(t, "  ids %lld %lld %lld %lld\n", (long long)e1.id, (long long)e2.id, (long long)e3.id,
           (long long)e4.id);
    cr_assert(e1.id == 1 && e2.id == 2 && e3.id == 3 && e4.id == 4);
    cmp_seen w = cmp_fresh(t);
    cr_assert_eq(log_list(t, s, 0, 1, &w), 0);
    CMP_IDS(w, 4);
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);
    /* NULL columns are stored as NULL, not as 0 or "". */
    long long nulls = cmp_int(b, "SELECT count(*) FROM admin_log WHERE (admin_id IS NULL AND "
                                 "id = 2) OR (target_user_id IS NULL AND id = 3) OR (reason IS "
                                 "NULL AND id IN (2, 3))");
    cmp_tr(t, "  nulls %lld\n", nulls);
    cr_assert_eq(nulls, 2);

    w = cmp_fresh(t);
    cr_assert_eq(log_list(t, s, 0, 10, &w), 0);
    CMP_IDS(w, 4, 3, 2, 1);
    w = cmp_fresh(t);
    cr_assert_eq(log_list(t, s, 3, 10, &w), 0);
    CMP_IDS(w, 2, 1);
    w = cmp_fresh(t);
    cr_assert_eq(log_list(t, s, 4, 2, &w), 0);
    CMP_IDS(w, 3, 2);
    w = cmp_fresh(t);
    cr_assert_eq(log_list(t, s, 1, 10, &w), 0);
    cr_assert_eq(w.n, 0);
    w = cmp_fresh(t);
    w.stop_after = 1;
    cr_assert_eq(log_list(t, s, 0, 10, &w), 7);
    CMP_IDS(w, 4);

    /* Reset codes: one at a time, valid before its expiry, used once. */
    uint8_t c1[STORE_TOKEN_HASH], c2[STORE_TOKEN_HASH], c3[STORE_TOKEN_HASH];
    fill(c1, 1);
    fill(c2, 2);
    fill(c3, 3);
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(cmp_rc(t, "reset_put c1 ann", store_admin_reset_put(s, c1, ann, 1000, 2000)),
                 STORE_OK);
    cr_assert_eq(cmp_rc(t, "reset_valid c1 in txn", store_admin_reset_valid(s, c1, ann, 1500)),
                 STORE_OK);
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "reset_valid c1", store_admin_reset_valid(s, c1, ann, 1999)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "reset_valid c1 at expiry", store_admin_reset_valid(s, c1, ann, 2000)),
                 STORE_NOTFOUND);
    cr_assert_eq(cmp_rc(t, "reset_valid c1 ben", store_admin_reset_valid(s, c1, ben, 1500)),
                 STORE_NOTFOUND);
    cr_assert_eq(cmp_rc(t, "reset_valid c2", store_admin_reset_valid(s, c2, ann, 1500)),
                 STORE_NOTFOUND);
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(cmp_rc(t, "reset_put c2 ann", store_admin_reset_put(s, c2, ann, 1100, 3000)),
                 STORE_OK);
    /* A hash another user holds: refused, and the transaction goes on. */
    cr_assert_eq(cmp_rc(t, "reset_put c2 ben", store_admin_reset_put(s, c2, ben, 1100, 3000)),
                 STORE_CONFLICT);
    cr_assert_eq(cmp_rc(t, "reset_put c3 ben", store_admin_reset_put(s, c3, ben, 1100, 1200)),
                 STORE_OK);
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "reset_valid c1 replaced", store_admin_reset_valid(s, c1, ann, 1500)),
                 STORE_NOTFOUND);
    cr_assert_eq(cmp_rc(t, "reset_valid c2 ann", store_admin_reset_valid(s, c2, ann, 1500)),
                 STORE_OK);
    cr_assert_eq(cmp_rc(t, "reset_valid c3 ben", store_admin_reset_valid(s, c3, ben, 1150)),
                 STORE_OK);

    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(cmp_rc(t, "reset_take c2 ben", store_admin_reset_take(s, c2, ben, 1500)),
                 STORE_NOTFOUND);
    cr_assert_eq(cmp_rc(t, "reset_take c3 expired", store_admin_reset_take(s, c3, ben, 1200)),
                 STORE_NOTFOUND);
    cr_assert_eq(cmp_rc(t, "reset_take c2 ann", store_admin_reset_take(s, c2, ann, 1500)),
                 STORE_OK);
    cr_assert_eq(cmp_rc(t, "reset_take c2 again", store_admin_reset_take(s, c2, ann, 1500)),
                 STORE_NOTFOUND);
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "reset_valid c2 used", store_admin_reset_valid(s, c2, ann, 1500)),
                 STORE_NOTFOUND);
    /* The expired code that was not taken is still there; ann has none. */
    long long left = cmp_int(b, "SELECT count(*) FROM reset_codes WHERE user_id = 3");
    long long left_ann = cmp_int(b, "SELECT count(*) FROM reset_codes WHERE user_id = 2");
    cmp_tr(t, "  codes ben=%lld ann=%lld\n", left, left_ann);
    cr_assert(left == 1 && left_ann == 0);

    /* A take rolled back: the code is still valid. */
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(cmp_rc(t, "reset_put c1 root", store_admin_reset_put(s, c1, root, 8000, 9000)),
                 STORE_OK);
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(cmp_rc(t, "reset_take c1 root", store_admin_reset_take(s, c1, root, 8500)),
                 STORE_OK);
    store_rollback(s);
    cr_assert_eq(cmp_rc(t, "reset_valid c1 root", store_admin_reset_valid(s, c1, root, 8500)),
                 STORE_OK);

    /* An audit row rolled back is not listed (last: a PostgreSQL
     * identity does not roll back, SQLite's rowid would be reused). */
    store_admin_entry e5 = an_entry(7004, root, "root", "revoke", ben, "user ben", "");
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(cmp_rc(t, "log_insert e5", store_admin_log_insert(s, &e5)), STORE_OK);
    store_rollback(s);
    w = cmp_fresh(t);
    cr_assert_eq(log_list(t, s, 0, 10, &w), 0);
    CMP_IDS(w, 4, 3, 2, 1);
}

Test(pg_admin, alike)
{
    CMP_RUN(admin_sequence);
}
