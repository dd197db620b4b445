/*
 * Inbox floods (issue 21): what one account can put in another's inbox,
 * against the real server.
 *   - a cancelled (or expired) challenge's unread notice is withdrawn; an
 *     accepted or declined one is marked read (game/notify.h);
 *   - at most NOTIFY_PER_SENDER (3) unread notices of one repeatable kind
 *     from one sender are kept, the newest;
 *   - challenges are limited per account (QK_CHALLENGE_RATE, default
 *     60/600), whichever connection sends them, with retry_after_ms.
 * Each of these failed on the binary before the issue: 1,000 challenge
 * and cancel pairs left 1,000 unread rows, and a second connection had a
 * fresh per-connection bucket.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helper.h"

static tsrv S;

static void stop(void)
{
    tsrv_stop(&S);
    tsrv_cleanup(&S);
}

/* Unread notifications of kind in c's inbox, their `challenge` fields into
 * ids (up to max), oldest first as the server lists unread ones. */
static int unread_challenges(tconn *c, const char *kind, long long *ids, int max)
{
    cJSON *r = tc_rpc(c, "{\"type\":\"notifications\",\"unread\":true,\"limit\":200}");
    t_ok(r, "notifications");
    int n = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, t_obj(r, "notifications"))
    {
        if (strcmp(t_str(it, "kind"), kind) != 0)
            continue;
        if (n < max)
            ids[n] = t_int(it, "challenge");
        n++;
    }
    cJSON_Delete(r);
    return n;
}

static long long challenge_to(tconn *c, const char *to)
{
    cJSON *r = tc_rpc(c, "{\"type\":\"challenge\",\"to\":\"%s\"}", to);
    t_ok(r, "challenge");
    long long id = t_int(t_obj(r, "challenge"), "id");
    cJSON_Delete(r);
    return id;
}

static void cancel(tconn *c, long long id)
{
    cJSON *r = tc_rpc(c, "{\"type\":\"cancel\",\"challenge\":%lld}", id);
    t_ok(r, "cancel");
    cJSON_Delete(r);
}

Test(inbox, a_cancelled_challenge_leaves_no_unread_notice, .timeout = 60)
{
    tsrv_start(&S, "QK_RATE_LIMIT=off");
    tconn *a = tc_open(S.port), *b = tc_open(S.port);
    t_register(a, "alice");
    t_register(b, "bob");
    /* The report's loop, 40 times (1,000 left 1,000 unread rows). */
    for (int i = 0; i < 40; i++)
        cancel(a, challenge_to(a, "bob"));
    long long ids[8];
    cr_assert_eq(unread_challenges(b, "challenge", ids, 8), 0, "withdrawn on cancel");
    cr_assert_eq(t_db_count(S.db, "notifications"), 0, "no rows left behind either");
    /* One still open keeps its notice; accepting marks it read. */
    long long open = challenge_to(a, "bob");
    cr_assert_eq(unread_challenges(b, "challenge", ids, 8), 1);
    cr_assert_eq(ids[0], open);
    cJSON *r = tc_rpc(b, "{\"type\":\"accept\",\"challenge\":%lld}", open);
    t_ok(r, "accept");
    cJSON_Delete(r);
    cr_assert_eq(unread_challenges(b, "challenge", ids, 8), 0, "read once accepted");
    cr_assert_eq(t_count_kind(b, "challenge"), 1, "kept, as read");
    tc_close(a);
    tc_close(b);
    stop();
}

Test(inbox, an_expired_challenge_is_withdrawn, .timeout = 60)
{
    tsrv_start(&S, "QK_TEST_CLOCK=1764478800000 QK_RATE_LIMIT=off");
    tconn *a = tc_open(S.port), *b = tc_open(S.port);
    t_register(a, "alice");
    t_register(b, "bob");
    challenge_to(a, "bob");
    long long ids[4];
    cr_assert_eq(unread_challenges(b, "challenge", ids, 4), 1);
    /* A direct challenge expires after 7 days (challenges.h). */
    t_advance(a, 7LL * 24 * 3600 * 1000 + 60 * 1000, true);
    cr_assert_eq(unread_challenges(b, "challenge", ids, 4), 0, "withdrawn on expiry");
    tc_close(a);
    tc_close(b);
    stop();
}

Test(inbox, three_unread_of_a_kind_per_sender, .timeout = 60)
{
    tsrv_start(&S, "QK_RATE_LIMIT=off");
    tconn *a = tc_open(S.port), *b = tc_open(S.port), *c = tc_open(S.port);
    t_register(a, "alice");
    t_register(b, "bob");
    t_register(c, "carol");
    long long made[6];
    for (int i = 0; i < 6; i++)
        made[i] = challenge_to(a, "bob");
    long long carols = challenge_to(c, "bob");
    long long ids[16];
    int n = unread_challenges(b, "challenge", ids, 16);
    cr_assert_eq(n, 4, "three of alice's and carol's one, not seven");
    cr_assert_eq(ids[0], made[3], "alice's newest three are kept");
    cr_assert_eq(ids[1], made[4]);
    cr_assert_eq(ids[2], made[5]);
    cr_assert_eq(ids[3], carols, "another sender's are not touched");
    /* The challenges themselves stay open: only the inbox is bounded. */
    cJSON *r = tc_rpc(b, "{\"type\":\"challenges\"}");
    t_ok(r, "challenges");
    cr_assert_eq(cJSON_GetArraySize(t_obj(r, "challenges")), 7);
    cJSON_Delete(r);
    /* Declines: bob declines each, alice gets at most three unread. */
    for (int i = 0; i < 6; i++) {
        r = tc_rpc(b, "{\"type\":\"decline\",\"challenge\":%lld}", made[i]);
        t_ok(r, "decline");
        cJSON_Delete(r);
    }
    n = unread_challenges(a, "challenge_declined", ids, 16);
    cr_assert_eq(n, 3, "three unread declines from bob, not six");
    cr_assert_eq(ids[0], made[3]);
    cr_assert_eq(ids[2], made[5]);
    tc_close(a);
    tc_close(b);
    tc_close(c);
    stop();
}

Test(inbox, challenges_are_limited_per_account, .timeout = 60)
{
    tsrv_start(&S, "QK_TEST_CLOCK=1764478800000 QK_RATE_LIMIT=off QK_CHALLENGE_RATE=5/60");
    tconn *a1 = tc_open(S.port), *a2 = tc_open(S.port), *b = tc_open(S.port);
    t_register(a1, "alice");
    t_register(b, "bob");
    cJSON *r = tc_rpc(a2, "{\"type\":\"login\",\"username\":\"alice\",\"password\":\"" T_PW "\"}");
    t_ok(r, "second login");
    cJSON_Delete(r);
    /* Five from two connections, each cancelled (the open-challenge cap
     * is not what stops them). */
    for (int i = 0; i < 5; i++) {
        tconn *c = i % 2 ? a2 : a1;
        cancel(c, challenge_to(c, "bob"));
        t_advance(a1, 1000, false);
    }
    /* The sixth, from either connection, an open seek too. */
    r = tc_rpc(a2, "{\"type\":\"challenge\",\"to\":\"bob\"}");
    t_err(r, "rate_limited", "sixth challenge");
    long long retry = t_int(r, "retry_after_ms");
    /* The first was made 5 s ago on the test clock: it leaves the 60 s
     * window 55 s from now. */
    cr_assert_eq(retry, 55000, "%s", t_text(r));
    cJSON_Delete(r);
    r = tc_rpc(a1, "{\"type\":\"challenge\"}");
    t_err(r, "rate_limited", "an open seek counts too");
    cJSON_Delete(r);
    /* Another account is not limited by alice's challenges. */
    long long bobs = challenge_to(b, "alice");
    cr_assert_gt(bobs, 0);
    /* When the first leaves the window, one more is allowed. */
    t_advance(a1, 55000, false);
    long long again = challenge_to(a2, "bob");
    cr_assert_gt(again, 0);
    r = tc_rpc(a1, "{\"type\":\"challenge\",\"to\":\"bob\"}");
    t_err(r, "rate_limited", "and only one");
    cJSON_Delete(r);
    tc_close(a1);
    tc_close(a2);
    tc_close(b);
    stop();
}

Test(inbox, the_default_challenge_rate_is_sixty_in_ten_minutes, .timeout = 60)
{
    tsrv_start(&S, "QK_TEST_CLOCK=1764478800000 QK_RATE_LIMIT=off");
    tconn *a = tc_open(S.port), *b = tc_open(S.port);
    t_register(a, "alice");
    t_register(b, "bob");
    for (int i = 0; i < 60; i++)
        cancel(a, challenge_to(a, "bob"));
    cJSON *r = tc_rpc(a, "{\"type\":\"challenge\",\"to\":\"bob\"}");
    t_err(r, "rate_limited", "the 61st");
    cr_assert_eq(t_int(r, "retry_after_ms"), 600000, "%s", t_text(r));
    cJSON_Delete(r);
    tc_close(a);
    tc_close(b);
    stop();
}
