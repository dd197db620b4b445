/*
 * The challenges area (store_challenges.h: challenges and open seeks, the
 * lobby's listings, the options and rating range, expiry, the counts of
 * the limits) on both backends: one sequence runs on a fresh PostgreSQL
 * database and on a fresh SQLite file and the two traces must be equal
 * line for line (storecmp.h); exact ids, orders and codes are asserted
 * too. The game an accepted challenge points at is a plain SQL row (the
 * same text on both), so the test needs no other area than users.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "pgtest.h"
#include "storecmp.h"

TestSuite(pg_challenges, .init = cmp_init, .fini = cmp_fini, .timeout = 60);

static void tr_challenge(cmp_trace *t, const store_challenge *c)
{
    cmp_tr(t,
           "  challenge id=%lld from=%lld/%s/%d to=%lld/%s/%d variant=%s color=%s tc=%s "
           "position=%s status=%s reason=%s game=%lld created=%lld updated=%lld rated=%d "
           "away_until=%lld/%lld\n",
           (long long)c->id, (long long)c->from_id, c->from, c->from_bot, (long long)c->to_id,
           c->to, c->to_bot, c->variant, c->color, c->time_control, c->position, c->status,
           c->decline_reason, (long long)c->game_id, (long long)c->created, (long long)c->updated,
           c->rated, (long long)c->from_vacation_until, (long long)c->to_vacation_until);
}

static int on_challenge(void *arg, const store_challenge *c)
{
    cmp_seen *w = arg;
    tr_challenge(w->t, c);
    return cmp_keep(w, c->id);
}

static store_challenge a_challenge(int64_t from, int64_t to, const char *position, bool rated)
{
    store_challenge c = {.from_id = from, .to_id = to, .rated = rated};
    snprintf(c.variant, sizeof c.variant, "alquerque");
    snprintf(c.color, sizeof c.color, "random");
    snprintf(c.time_control, sizeof c.time_control, "{\"kind\":\"unlimited\"}");
    snprintf(c.position, sizeof c.position, "%s", position);
    /* Ignored by the insert: filled from now and the defaults. */
    c.id = 77;
    c.game_id = 88;
    c.created = c.updated = 99;
    snprintf(c.status, sizeof c.status, "declined");
    snprintf(c.decline_reason, sizeof c.decline_reason, "junk");
    return c;
}

static int64_t insert(cmp_trace *t, store *s, store_challenge *c, int64_t now)
{
    cr_assert_eq(cmp_rc(t, "challenge_insert", store_challenge_insert(s, c, now)), STORE_OK);
    tr_challenge(t, c);
    cr_assert_str_eq(c->status, "open");
    cr_assert_str_eq(c->decline_reason, "");
    cr_assert_eq(c->game_id, 0);
    cr_assert_eq(c->created, now);
    cr_assert_eq(c->updated, now);
    return c->id;
}

static void get(cmp_trace *t, store *s, int64_t id, store_challenge *c, int want)
{
    char what[48];
    snprintf(what, sizeof what, "challenge_get %lld", (long long)id);
    memset(c, 0, sizeof *c);
    cr_assert_eq(cmp_rc(t, what, store_challenge_get(s, id, c)), want);
    if (want == STORE_OK)
        tr_challenge(t, c);
}

static int listing_for(cmp_trace *t, store *s, int64_t user, cmp_seen *w)
{
    char what[48];
    snprintf(what, sizeof what, "challenges_for %lld", (long long)user);
    return cmp_rc(t, what, store_challenges_for(s, user, on_challenge, w));
}

static int page(cmp_trace *t, store *s, int64_t user, int64_t after, int64_t limit, cmp_seen *w)
{
    char what[64];
    snprintf(what, sizeof what, "seeks_page %lld after %lld limit %lld", (long long)user,
             (long long)after, (long long)limit);
    return cmp_rc(t, what, store_seeks_page(s, user, after, limit, on_challenge, w));
}

static int64_t open_from(cmp_trace *t, store *s, int64_t user)
{
    int64_t n = -1;
    cr_assert_eq(cmp_rc(t, "challenges_open_from", store_challenges_open_from(s, user, &n)),
                 STORE_OK);
    cmp_tr(t, "  n=%lld\n", (long long)n);
    return n;
}

static void since(cmp_trace *t, store *s, int64_t user, int64_t when, int64_t want_n,
                  int64_t want_oldest)
{
    int64_t n = -1, oldest = -1;
    cr_assert_eq(cmp_rc(t, "challenges_since", store_challenges_since(s, user, when, &n, &oldest)),
                 STORE_OK);
    cmp_tr(t, "  user=%lld since=%lld n=%lld oldest=%lld\n", (long long)user, (long long)when,
           (long long)n, (long long)oldest);
    cr_assert_eq(n, want_n);
    cr_assert_eq(oldest, want_oldest);
}

/* want_to: the target's id, 0 when it must not be found; returns the
 * target as read. */
static store_user checks(cmp_trace *t, store *s, int64_t user, int64_t when, const char *to,
                         int64_t want_made, int64_t want_oldest, int64_t want_open, int64_t want_to)
{
    store_challenge_facts f;
    memset(&f, 0x55, sizeof f);
    cr_assert_eq(cmp_rc(t, "challenge_checks", store_challenge_checks(s, user, when, to, &f)),
                 STORE_OK);
    cmp_tr(t, "  user=%lld since=%lld to=%s made=%lld oldest=%lld open=%lld found=%d %lld/%s/%d\n",
           (long long)user, (long long)when, to ? to : "-", (long long)f.made, (long long)f.oldest,
           (long long)f.open, f.to_found, f.to_found ? (long long)f.to.id : 0,
           f.to_found ? f.to.username : "", f.to_found && f.to.bot);
    cr_assert_eq(f.made, want_made);
    cr_assert_eq(f.oldest, want_oldest);
    cr_assert_eq(f.open, want_open);
    cr_assert_eq(f.to_found, want_to != 0);
    if (want_to) {
        cr_assert_eq(f.to.id, want_to);
        cr_assert_str_eq(f.to.pwhash, "");
    }
    return f.to;
}

static void challenges_sequence(cmp_side *b, cmp_trace *t)
{
    store *s = b->s;
    int64_t alice = cmp_user(s, "alice", false);
    int64_t bob = cmp_user(s, "bob", true);
    int64_t carl = cmp_user(s, "carl", false);
    int64_t dave = cmp_user(s, "dave", false);
    int64_t eve = cmp_user(s, "eve", false);
    cr_assert_eq(alice, 1);
    cr_assert_eq(eve, 5);
    cmp_game(b, alice, bob, 1500); /* game 1: what challenge 1 becomes */

    /* Inserts in one transaction, read back before the commit. */
    store_challenge c1 = a_challenge(alice, bob, "", true);
    store_challenge c2 = a_challenge(alice, 0, "bbbbb/bbbbb/ww.bb/wwwww/wwwww b 0 -", false);
    store_challenge c3 = a_challenge(carl, 0, "", false);
    store_challenge c4 = a_challenge(dave, alice, "", false);
    store_challenge c5 = a_challenge(bob, 0, "", true);
    snprintf(c1.color, sizeof c1.color, "white");
    snprintf(c4.color, sizeof c4.color, "black");
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(insert(t, s, &c1, 1000), 1);
    cr_assert_eq(insert(t, s, &c2, 1100), 2);
    cr_assert_eq(insert(t, s, &c3, 1200), 3);
    cr_assert_eq(insert(t, s, &c4, 1300), 4);
    cr_assert_eq(insert(t, s, &c5, 1400), 5);
    store_challenge got;
    get(t, s, 4, &got, STORE_OK);
    cr_assert_str_eq(got.to, "alice");
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);

    /* One row with both names and bot flags; a seek has no opponent. */
    get(t, s, 1, &got, STORE_OK);
    cr_assert_str_eq(got.from, "alice");
    cr_assert_str_eq(got.to, "bob");
    cr_assert(!got.from_bot && got.to_bot && got.rated);
    cr_assert_str_eq(got.color, "white");
    cr_assert_str_eq(got.position, "");
    cr_assert_str_eq(got.time_control, "{\"kind\":\"unlimited\"}");
    get(t, s, 2, &got, STORE_OK);
    cr_assert_eq(got.to_id, 0);
    cr_assert_str_eq(got.to, "");
    cr_assert(!got.to_bot && !got.rated);
    cr_assert_str_eq(got.position, "bbbbb/bbbbb/ww.bb/wwwww/wwwww b 0 -");
    get(t, s, 5, &got, STORE_OK);
    cr_assert(got.from_bot);
    get(t, s, 99, &got, STORE_NOTFOUND);

    /* The lobby: one's own, those to one, others' seeks; by id. */
    cmp_seen w = cmp_fresh(t);
    cr_assert_eq(listing_for(t, s, alice, &w), 0);
    CMP_IDS(w, 1, 2, 3, 4, 5);
    w = cmp_fresh(t);
    cr_assert_eq(listing_for(t, s, bob, &w), 0);
    CMP_IDS(w, 1, 2, 3, 5);
    w = cmp_fresh(t);
    cr_assert_eq(listing_for(t, s, eve, &w), 0);
    CMP_IDS(w, 2, 3, 5);
    w = cmp_fresh(t);
    w.stop_after = 2;
    cr_assert_eq(listing_for(t, s, alice, &w), 7);
    CMP_IDS(w, 1, 2);

    cr_assert_eq(open_from(t, s, alice), 2);
    cr_assert_eq(open_from(t, s, bob), 1);
    cr_assert_eq(open_from(t, s, 99), 0);

    /* Options: defaults (vacation on, not private), put, absent. */
    bool vac = false, priv = true;
    cr_assert_eq(cmp_rc(t, "x_get 2", store_challenge_x_get(s, 2, &vac, &priv)), STORE_OK);
    cmp_tr(t, "  vacation=%d private=%d\n", vac, priv);
    cr_assert(vac && !priv);
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(cmp_rc(t, "x_put 1", store_challenge_x_put(s, 1, false, true)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "x_put 99", store_challenge_x_put(s, 99, true, true)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "x_get 1", store_challenge_x_get(s, 1, &vac, &priv)), STORE_OK);
    cmp_tr(t, "  vacation=%d private=%d\n", vac, priv);
    cr_assert(!vac && priv);
    /* The row as read carries them too (the accept reads no more). */
    store_challenge o1, o2;
    get(t, s, 1, &o1, STORE_OK);
    get(t, s, 2, &o2, STORE_OK);
    cmp_tr(t, "  get: 1 vacation=%d private=%d, 2 vacation=%d private=%d\n", o1.vacation, o1.priv,
           o2.vacation, o2.priv);
    cr_assert(!o1.vacation && o1.priv && o2.vacation && !o2.priv);
    cr_assert_eq(cmp_rc(t, "x_get 99", store_challenge_x_get(s, 99, &vac, &priv)), STORE_NOTFOUND);

    /* Rating ranges: -1 is no bound, both ways. */
    int64_t lo = 0, hi = 0;
    cr_assert_eq(cmp_rc(t, "range_get 2", store_challenge_range_get(s, 2, &lo, &hi)), STORE_OK);
    cmp_tr(t, "  min=%lld max=%lld\n", (long long)lo, (long long)hi);
    cr_assert(lo == -1 && hi == -1);
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(cmp_rc(t, "range_put 2", store_challenge_range_put(s, 2, 1400, -1)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "range_put 3", store_challenge_range_put(s, 3, -1, 1800)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "range_put 5", store_challenge_range_put(s, 5, 0, 2000)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "range_put 99", store_challenge_range_put(s, 99, 1, 2)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "range_get 2 in txn", store_challenge_range_get(s, 2, &lo, &hi)),
                 STORE_OK);
    cmp_tr(t, "  min=%lld max=%lld\n", (long long)lo, (long long)hi);
    cr_assert(lo == 1400 && hi == -1);
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "range_get 3", store_challenge_range_get(s, 3, &lo, &hi)), STORE_OK);
    cmp_tr(t, "  min=%lld max=%lld\n", (long long)lo, (long long)hi);
    cr_assert(lo == -1 && hi == 1800);
    cr_assert_eq(cmp_rc(t, "range_get 5", store_challenge_range_get(s, 5, &lo, &hi)), STORE_OK);
    cmp_tr(t, "  min=%lld max=%lld\n", (long long)lo, (long long)hi);
    cr_assert(lo == 0 && hi == 2000);
    cr_assert_eq(cmp_rc(t, "range_get 99", store_challenge_range_get(s, 99, &lo, &hi)),
                 STORE_NOTFOUND);

    /* The challenge rate: at or after `since`, any status. */
    since(t, s, alice, 1000, 2, 1000);
    since(t, s, alice, 1001, 1, 1100);
    since(t, s, carl, 5000, 0, 0);
    since(t, s, 99, 0, 0, 0);

    /* All of a new challenge's checks in one read: the rate (when asked),
     * the open ones, the target by name (any case, no password hash). */
    store_user to = checks(t, s, alice, 1001, "BOB", 1, 1100, 2, bob);
    cr_assert_str_eq(to.username, "bob");
    cr_assert(to.bot);
    checks(t, s, alice, 0, NULL, 0, 0, 2, 0);
    checks(t, s, carl, 5000, "nobody", 0, 0, 1, 0);
    checks(t, s, 99, 1000, "carl", 0, 0, 0, carl);

    /* The players' vacations come with the row: until when, -1 when not
     * away (never, ended by "off", or no target: a seek). */
    store_vacation away = {.left_h = 100, .year = 2026, .start = 1000, .until = 5000};
    store_vacation back = {.left_h = 90, .year = 2026, .start = -1, .until = -1};
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(store_vacation_put(s, dave, &away), STORE_OK);
    cr_assert_eq(store_vacation_put(s, alice, &back), STORE_OK);
    cr_assert_eq(store_vacation_put(s, carl, &away), STORE_OK);
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);
    get(t, s, 4, &got, STORE_OK); /* dave to alice */
    cr_assert(got.from_vacation_until == 5000 && got.to_vacation_until == -1);
    get(t, s, 3, &got, STORE_OK); /* carl's seek */
    cr_assert(got.from_vacation_until == 5000 && got.to_vacation_until == -1);
    get(t, s, 1, &got, STORE_OK); /* alice to bob: neither */
    cr_assert(got.from_vacation_until == -1 && got.to_vacation_until == -1);

    /* Expiry: direct ones and seeks by their own times, oldest first. */
    int64_t ids[8] = {0};
    int n = -1;
    cr_assert_eq(cmp_rc(t, "expiring", store_challenges_expiring(s, 1350, 1150, ids, 8, &n)),
                 STORE_OK);
    cmp_tr(t, "  n=%d %lld %lld %lld\n", n, (long long)ids[0], (long long)ids[1],
           (long long)ids[2]);
    cr_assert(n == 3 && ids[0] == 1 && ids[1] == 2 && ids[2] == 4);
    n = -1;
    cr_assert_eq(cmp_rc(t, "expiring max 2", store_challenges_expiring(s, 1350, 1150, ids, 2, &n)),
                 STORE_OK);
    cmp_tr(t, "  n=%d %lld %lld\n", n, (long long)ids[0], (long long)ids[1]);
    cr_assert(n == 2 && ids[0] == 1 && ids[1] == 2);
    cr_assert_eq(cmp_rc(t, "expiring none", store_challenges_expiring(s, 1000, 1100, ids, 8, &n)),
                 STORE_OK);
    cmp_tr(t, "  n=%d\n", n);
    cr_assert_eq(n, 0);

    /* Seeks, paged. */
    w = cmp_fresh(t);
    cr_assert_eq(page(t, s, alice, 0, 10, &w), 0);
    CMP_IDS(w, 3, 5);
    w = cmp_fresh(t);
    cr_assert_eq(page(t, s, alice, 3, 10, &w), 0);
    CMP_IDS(w, 5);
    w = cmp_fresh(t);
    cr_assert_eq(page(t, s, carl, 0, 1, &w), 0);
    CMP_IDS(w, 2);
    w = cmp_fresh(t);
    cr_assert_eq(page(t, s, carl, 5, 10, &w), 0);
    cr_assert_eq(w.n, 0);
    w = cmp_fresh(t);
    w.stop_after = 1;
    cr_assert_eq(page(t, s, dave, 0, 10, &w), 7);
    CMP_IDS(w, 2);

    /* Closing: once only; with or without a reason and a game. */
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(
        cmp_rc(t, "close 1 accepted", store_challenge_close(s, 1, "accepted", NULL, 1, 2000)),
        STORE_OK);
    cr_assert_eq(cmp_rc(t, "close 1 again", store_challenge_close(s, 1, "canceled", NULL, 0, 2001)),
                 STORE_CONFLICT);
    cr_assert_eq(cmp_rc(t, "close 99", store_challenge_close(s, 99, "canceled", NULL, 0, 2001)),
                 STORE_CONFLICT);
    cr_assert_eq(
        cmp_rc(t, "close 4 declined", store_challenge_close(s, 4, "declined", "not now", 0, 2002)),
        STORE_OK);
    cr_assert_eq(
        cmp_rc(t, "close 2 expired", store_challenge_close(s, 2, "expired", NULL, 0, 2003)),
        STORE_OK);
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);
    get(t, s, 1, &got, STORE_OK);
    cr_assert_str_eq(got.status, "accepted");
    cr_assert_eq(got.game_id, 1);
    cr_assert_eq(got.updated, 2000);
    cr_assert_eq(got.created, 1000);
    get(t, s, 4, &got, STORE_OK);
    cr_assert_str_eq(got.status, "declined");
    cr_assert_str_eq(got.decline_reason, "not now");
    cr_assert_eq(got.game_id, 0);
    get(t, s, 2, &got, STORE_OK);
    cr_assert_str_eq(got.status, "expired");

    /* A close rolled back leaves the challenge open. */
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(
        cmp_rc(t, "close 5 canceled", store_challenge_close(s, 5, "canceled", NULL, 0, 2100)),
        STORE_OK);
    store_rollback(s);
    get(t, s, 5, &got, STORE_OK);
    cr_assert_str_eq(got.status, "open");

    /* Closed ones leave the lobby and the open count, not the rate. */
    w = cmp_fresh(t);
    cr_assert_eq(listing_for(t, s, alice, &w), 0);
    CMP_IDS(w, 3, 5);
    cr_assert_eq(open_from(t, s, alice), 0);
    since(t, s, alice, 0, 2, 1000);
    cr_assert_eq(
        cmp_rc(t, "expiring after closes", store_challenges_expiring(s, 5000, 5000, ids, 8, &n)),
        STORE_OK);
    cmp_tr(t, "  n=%d %lld %lld\n", n, (long long)ids[0], (long long)ids[1]);
    cr_assert(n == 2 && ids[0] == 3 && ids[1] == 5);

    /* More seeks than a page: challenges_for shows the oldest
     * STORE_SEEKS_PAGE of others', seeks_page the rest. */
    cr_assert_eq(store_begin(s), STORE_OK);
    for (int i = 0; i < 52; i++) {
        store_challenge c = a_challenge(eve, 0, "", i % 2 == 0);
        cr_assert_eq(store_challenge_insert(s, &c, 3000 + i), STORE_OK);
        cr_assert_eq(c.id, 6 + i);
    }
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);
    w = cmp_fresh(t);
    cr_assert_eq(listing_for(t, s, alice, &w), 0);
    cr_assert_eq(w.n, STORE_SEEKS_PAGE);
    cr_assert_eq(w.id[0], 3);
    cr_assert_eq(w.id[1], 5);
    cr_assert_eq(w.id[STORE_SEEKS_PAGE - 1], 53);
    /* Eve's own seeks are all hers; others' seeks: only bob's and carl's. */
    w = cmp_fresh(t);
    cr_assert_eq(listing_for(t, s, eve, &w), 0);
    cr_assert_eq(w.n, 54);
    cr_assert_eq(w.id[0], 3);
    w = cmp_fresh(t);
    cr_assert_eq(page(t, s, alice, 53, STORE_SEEKS_PAGE, &w), 0);
    CMP_IDS(w, 54, 55, 56, 57);
    w = cmp_fresh(t);
    cr_assert_eq(page(t, s, alice, 0, STORE_SEEKS_PAGE, &w), 0);
    cr_assert_eq(w.n, STORE_SEEKS_PAGE);
    cr_assert_eq(w.id[STORE_SEEKS_PAGE - 1], 53);
    cr_assert_eq(open_from(t, s, eve), 52);
    since(t, s, eve, 3050, 2, 3050);
}

Test(pg_challenges, alike)
{
    CMP_RUN(challenges_sequence);
}
