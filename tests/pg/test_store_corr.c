/*
 * The corr area (store_corr.h: a game's correspondence fields, deadline
 * wake-ups and extensions, server state, vacations, the notification
 * inbox and its bounds) on both backends: one sequence of operations runs
 * on a fresh PostgreSQL database and on a fresh SQLite file, each call's
 * code and every field of every row it returns is written as one line of
 * a trace, and the two traces must be equal line for line (storecmp.h).
 * The sequence asserts exact values too (ids, orders, counts, codes), so
 * both backends being wrong alike fails as well.
 *
 * The games are written through the games area (store_game_insert()),
 * the one other area besides users this test leans on.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "pgtest.h"
#include "storecmp.h"

TestSuite(pg_corr, .init = cmp_init, .fini = cmp_fini, .timeout = 60);

static int64_t add_game(store *s, int64_t w, int64_t b, const char *tc, const char *status,
                        int64_t deadline)
{
    store_game g = cmp_a_game(w, b, tc, 2000);
    snprintf(g.status, sizeof g.status, "%s", status);
    if (strcmp(status, "active") != 0)
        snprintf(g.result, sizeof g.result, "draw");
    g.deadline = deadline;
    cr_assert_eq(store_game_insert(s, &g), STORE_OK);
    return g.id;
}

/* ---- this area's rows in the trace ------------------------------------ */

static int on_extension(void *arg, const char *kind, int64_t ms, int64_t created)
{
    cmp_seen *w = arg;
    cmp_tr(w->t, "  extension kind=%s ms=%lld created=%lld\n", kind, (long long)ms,
           (long long)created);
    return cmp_keep(w, ms);
}

static int on_note(void *arg, const store_note *n)
{
    cmp_seen *w = arg;
    cmp_tr(w->t,
           "  note id=%lld user_id=%lld kind=%s game_id=%lld data=%s read=%d created=%lld "
           "sender_id=%lld ref_id=%lld\n",
           (long long)n->id, (long long)n->user_id, n->kind, (long long)n->game_id, n->data,
           n->read, (long long)n->created, (long long)n->sender_id, (long long)n->ref_id);
    return cmp_keep(w, n->id);
}

static void tr_x(cmp_trace *t, const char *what, store *s, int64_t id, store_game_x *x)
{
    if (cmp_rc(t, what, store_game_x_get(s, id, x)) == STORE_OK)
        cmp_tr(t,
               "  x extended_ms=%lld vacation=%d priv=%d draw_offer=%s warned=%lld wake_at=%lld\n",
               (long long)x->extended_ms, x->vacation, x->priv, x->draw_offer,
               (long long)x->warned_deadline, (long long)x->wake_at);
}

/* ---- games, deadlines, state, vacations ------------------------------- */

static void deadlines_sequence(cmp_side *b, cmp_trace *t)
{
    store *s = b->s;
    int64_t alice = cmp_user(s, "alice", false), bob = cmp_user(s, "bob", false),
            carol = cmp_user(s, "carol", false);
    cr_assert_eq(store_begin(s), STORE_OK);
    int64_t g1 = add_game(s, alice, bob, CMP_TC_CORR, "active", 100000);
    int64_t g2 = add_game(s, bob, carol, CMP_TC_CORR, "active", 200000);
    int64_t g3 = add_game(s, alice, carol, CMP_TC_LIVE, "active", 50000); /* not correspondence */
    int64_t g4 = add_game(s, carol, alice, CMP_TC_CORR, "finished", 10);  /* not active */
    cr_assert(g1 == 1 && g4 == 4);
    cr_assert_eq(store_commit(s), STORE_OK);

    /* A game's correspondence fields: the defaults, then written back. */
    store_game_x x;
    tr_x(t, "game_x_get 1", s, g1, &x);
    cr_assert(x.extended_ms == 0 && x.vacation && !x.priv && x.draw_offer[0] == '\0' &&
              x.warned_deadline == -1 && x.wake_at == -1);
    tr_x(t, "game_x_get 99", s, 99, &x);
    int64_t at = -5;
    cr_assert_eq(cmp_rc(t, "wake_next none", store_wake_next(s, &at)), STORE_NOTFOUND);
    cr_assert_eq(store_begin(s), STORE_OK);
    x = (store_game_x){.vacation = false, .priv = true, .warned_deadline = -1, .wake_at = 90000};
    snprintf(x.draw_offer, sizeof x.draw_offer, "white");
    cr_assert_eq(cmp_rc(t, "game_x_put 1", store_game_x_put(s, g1, &x)), STORE_OK);
    x = (store_game_x){.vacation = true, .warned_deadline = 150000, .wake_at = 180000};
    cr_assert_eq(cmp_rc(t, "game_x_put 2", store_game_x_put(s, g2, &x)), STORE_OK);
    x = (store_game_x){.vacation = true, .warned_deadline = -1, .wake_at = 40000};
    cr_assert_eq(cmp_rc(t, "game_x_put 3", store_game_x_put(s, g3, &x)), STORE_OK);
    x.wake_at = 5;
    cr_assert_eq(cmp_rc(t, "game_x_put 4", store_game_x_put(s, g4, &x)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "game_x_put 99", store_game_x_put(s, 99, &x)), STORE_NOTFOUND);
    tr_x(t, "game_x_get 1 in the transaction", s, g1, &x);
    cr_assert(!x.vacation && x.priv && x.wake_at == 90000);
    cr_assert_str_eq(x.draw_offer, "white");
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);
    tr_x(t, "game_x_get 2", s, g2, &x);
    cr_assert(x.warned_deadline == 150000 && x.draw_offer[0] == '\0');

    /* Wake-ups: active, not damaged, earliest first. */
    cr_assert_eq(cmp_rc(t, "wake_next", store_wake_next(s, &at)), STORE_OK);
    cmp_tr(t, "  at=%lld\n", (long long)at);
    cr_assert_eq(at, 40000); /* g3; g4's 5 is finished */
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(store_game_damaged_set(s, g3), STORE_OK);
    cr_assert_eq(store_commit(s), STORE_OK);
    cr_assert_eq(cmp_rc(t, "wake_next without damaged", store_wake_next(s, &at)), STORE_OK);
    cmp_tr(t, "  at=%lld\n", (long long)at);
    cr_assert_eq(at, 90000);
    int64_t ids[4] = {0};
    int n = -1;
    cr_assert_eq(cmp_rc(t, "wake_due 100000", store_wake_due(s, 100000, ids, 4, &n)), STORE_OK);
    cmp_tr(t, "  n=%d first=%lld\n", n, (long long)ids[0]);
    cr_assert(n == 1 && ids[0] == g1);
    cr_assert_eq(cmp_rc(t, "wake_due 200000", store_wake_due(s, 200000, ids, 4, &n)), STORE_OK);
    cmp_tr(t, "  n=%d %lld %lld\n", n, (long long)ids[0], (long long)ids[1]);
    cr_assert(n == 2 && ids[0] == g1 && ids[1] == g2);
    cr_assert_eq(cmp_rc(t, "wake_due 200000 max 1", store_wake_due(s, 200000, ids, 1, &n)),
                 STORE_OK);
    cr_assert(n == 1 && ids[0] == g1);
    cr_assert_eq(cmp_rc(t, "wake_due 10", store_wake_due(s, 10, ids, 4, &n)), STORE_OK);
    cr_assert_eq(n, 0);

    /* Downtime moves the running correspondence deadlines only. */
    int64_t moved = -1;
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(cmp_rc(t, "extend_downtime", store_extend_downtime(s, 1000, 7000, &moved)),
                 STORE_OK);
    cmp_tr(t, "  games=%lld\n", (long long)moved);
    cr_assert_eq(moved, 2);
    cr_assert_eq(store_commit(s), STORE_OK);
    store_game g;
    cr_assert_eq(store_game_get(s, g1, &g), STORE_OK);
    cmp_tr(t, "  deadline 1=%lld\n", (long long)g.deadline);
    cr_assert_eq(g.deadline, 101000);
    cr_assert_eq(store_game_get(s, g3, &g), STORE_OK);
    cr_assert_eq(g.deadline, 50000);
    cr_assert_eq(store_game_get(s, g4, &g), STORE_OK);
    cr_assert_eq(g.deadline, 10);
    tr_x(t, "game_x_get 1 after downtime", s, g1, &x);
    cr_assert(x.extended_ms == 1000 && x.wake_at == 91000 && x.warned_deadline == -1);
    tr_x(t, "game_x_get 2 after downtime", s, g2, &x);
    cr_assert(x.extended_ms == 1000 && x.wake_at == 181000 && x.warned_deadline == 151000);

    /* Extensions, oldest first. */
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(
        cmp_rc(t, "extension_insert", store_extension_insert(s, g1, "vacation", 5000, 8000)),
        STORE_OK);
    cr_assert_eq(store_commit(s), STORE_OK);
    cmp_seen w = cmp_fresh(t);
    cr_assert_eq(cmp_rc(t, "extensions 1", store_extensions_each(s, g1, on_extension, &w)), 0);
    CMP_IDS(w, 1000, 5000);
    w = cmp_fresh(t);
    w.stop_after = 1;
    cr_assert_eq(cmp_rc(t, "extensions 1 stopped", store_extensions_each(s, g1, on_extension, &w)),
                 7);
    CMP_IDS(w, 1000);
    w = cmp_fresh(t);
    cr_assert_eq(cmp_rc(t, "extensions 3", store_extensions_each(s, g3, on_extension, &w)), 0);
    CMP_IDS(w);

    /* Server state: unset, set, replaced; a rolled-back set leaves none. */
    int64_t v = -1;
    cr_assert_eq(cmp_rc(t, "state_get", store_state_get(s, "last_alive", &v)), STORE_NOTFOUND);
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(cmp_rc(t, "state_set 123", store_state_set(s, "last_alive", 123)), STORE_OK);
    cr_assert_eq(store_state_get(s, "last_alive", &v), STORE_OK);
    cr_assert_eq(v, 123);
    cr_assert_eq(cmp_rc(t, "state_set 456", store_state_set(s, "last_alive", 456)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);
    cr_assert_eq(store_state_get(s, "last_alive", &v), STORE_OK);
    cmp_tr(t, "  value=%lld\n", (long long)v);
    cr_assert_eq(v, 456);
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(store_state_set(s, "other", 1), STORE_OK);
    store_rollback(s);
    cr_assert_eq(cmp_rc(t, "state_get rolled back", store_state_get(s, "other", &v)),
                 STORE_NOTFOUND);

    /* Vacations. */
    store_vacation vac;
    cr_assert_eq(cmp_rc(t, "vacation_get", store_vacation_get(s, alice, &vac)), STORE_OK);
    cmp_tr(t, "  vacation left_h=%lld year=%lld start=%lld until=%lld\n", (long long)vac.left_h,
           (long long)vac.year, (long long)vac.start, (long long)vac.until);
    cr_assert(vac.left_h == 720 && vac.year == 0 && vac.start == -1 && vac.until == -1);
    cr_assert_eq(store_begin(s), STORE_OK);
    vac = (store_vacation){.left_h = 700, .year = 2024, .start = 1000, .until = 2000};
    cr_assert_eq(cmp_rc(t, "vacation_put", store_vacation_put(s, alice, &vac)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "vacation_put 99", store_vacation_put(s, 99, &vac)), STORE_OK);
    cr_assert_eq(store_commit(s), STORE_OK);
    cr_assert_eq(store_vacation_get(s, alice, &vac), STORE_OK);
    cmp_tr(t, "  vacation left_h=%lld year=%lld start=%lld until=%lld\n", (long long)vac.left_h,
           (long long)vac.year, (long long)vac.start, (long long)vac.until);
    cr_assert(vac.left_h == 700 && vac.year == 2024 && vac.start == 1000 && vac.until == 2000);
    cr_assert_eq(store_begin(s), STORE_OK);
    vac.start = vac.until = -1;
    cr_assert_eq(store_vacation_put(s, alice, &vac), STORE_OK);
    cr_assert_eq(store_commit(s), STORE_OK);
    cr_assert_eq(store_vacation_get(s, alice, &vac), STORE_OK);
    cr_assert(vac.left_h == 700 && vac.start == -1 && vac.until == -1);
    cr_assert_eq(cmp_rc(t, "vacation_get 99", store_vacation_get(s, 99, &vac)), STORE_NOTFOUND);
}

Test(pg_corr, deadlines_alike)
{
    CMP_RUN(deadlines_sequence);
}

/* ---- notifications ---------------------------------------------------- */

static int64_t note(cmp_trace *t, store *s, int64_t user, const char *kind, int64_t game,
                    int64_t sender, int64_t ref, int64_t created)
{
    store_note n = {.user_id = user,
                    .game_id = game,
                    .created = created,
                    .sender_id = sender,
                    .ref_id = ref,
                    .read = true};
    snprintf(n.kind, sizeof n.kind, "%s", kind);
    snprintf(n.data, sizeof n.data, "{\"game\":%lld,\"challenge\":%lld}", (long long)game,
             (long long)ref);
    cr_assert_eq(cmp_rc(t, "note_insert", store_note_insert(s, &n)), STORE_OK);
    cmp_tr(t, "  id=%lld read=%d\n", (long long)n.id, n.read);
    cr_assert(!n.read);
    return n.id;
}

static int list(cmp_trace *t, store *s, const char *what, int64_t user, bool unread_only,
                int64_t limit, int64_t offset, cmp_seen *w)
{
    *w = cmp_fresh(t);
    return cmp_rc(t, what, store_notes_list(s, user, unread_only, limit, offset, on_note, w));
}

static int64_t unread(cmp_trace *t, store *s, int64_t user)
{
    int64_t n = -1;
    cr_assert_eq(cmp_rc(t, "note_unread", store_note_unread(s, user, &n)), STORE_OK);
    cmp_tr(t, "  unread=%lld\n", (long long)n);
    return n;
}

static void notes_sequence(cmp_side *b, cmp_trace *t)
{
    store *s = b->s;
    int64_t alice = cmp_user(s, "alice", false), bob = cmp_user(s, "bob", false),
            carol = cmp_user(s, "carol", false);
    cr_assert_eq(store_begin(s), STORE_OK);
    int64_t g1 = add_game(s, alice, bob, CMP_TC_CORR, "active", 100000);
    int64_t g2 = add_game(s, bob, carol, CMP_TC_CORR, "active", 200000);
    cr_assert_eq(note(t, s, alice, "your_turn", g1, bob, 0, 100), 1);
    cr_assert_eq(note(t, s, alice, "challenge", 0, bob, 77, 110), 2);
    cr_assert_eq(note(t, s, alice, "draw_offer", g1, bob, 0, 120), 3);
    cr_assert_eq(note(t, s, alice, "challenge", 0, carol, 78, 130), 4);
    cr_assert_eq(note(t, s, bob, "game_end", g2, 0, 0, 140), 5);
    cr_assert_eq(note(t, s, alice, "challenge", 0, bob, 79, 150), 6);
    cr_assert_eq(unread(t, s, alice), 5); /* inside the transaction */
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);

    int64_t owner = -1, n = 0;
    cr_assert_eq(cmp_rc(t, "note_owner 5", store_note_owner(s, 5, &owner)), STORE_OK);
    cr_assert_eq(owner, bob);
    cr_assert_eq(cmp_rc(t, "note_owner 99", store_note_owner(s, 99, &owner)), STORE_NOTFOUND);
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(cmp_rc(t, "note_mark not owner", store_note_mark(s, alice, 5, &n)), STORE_OK);
    cr_assert_eq(n, 0);
    cr_assert_eq(cmp_rc(t, "note_mark 1", store_note_mark(s, alice, 1, &n)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "note_mark 1 again", store_note_mark(s, alice, 1, &n)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "note_mark 3", store_note_mark(s, alice, 3, &n)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "note_mark 99", store_note_mark(s, alice, 99, &n)), STORE_OK);
    cmp_tr(t, "  marked=%lld\n", (long long)n);
    cr_assert_eq(n, 2);
    cr_assert_eq(store_commit(s), STORE_OK);
    cr_assert_eq(unread(t, s, alice), 3);
    cr_assert_eq(unread(t, s, bob), 1);

    /* Unread oldest first, then read newest first; pages across the two. */
    cmp_seen w;
    cr_assert_eq(list(t, s, "all", alice, false, 10, 0, &w), 0);
    CMP_IDS(w, 2, 4, 6, 3, 1);
    cr_assert_eq(list(t, s, "page 1", alice, false, 2, 0, &w), 0);
    CMP_IDS(w, 2, 4);
    cr_assert_eq(list(t, s, "page 2", alice, false, 2, 2, &w), 0);
    CMP_IDS(w, 6, 3);
    cr_assert_eq(list(t, s, "page 3", alice, false, 2, 4, &w), 0);
    CMP_IDS(w, 1);
    cr_assert_eq(list(t, s, "offset 3", alice, false, 5, 3, &w), 0);
    CMP_IDS(w, 3, 1);
    cr_assert_eq(list(t, s, "offset 1", alice, false, 10, 1, &w), 0);
    CMP_IDS(w, 4, 6, 3, 1);
    cr_assert_eq(list(t, s, "past the end", alice, false, 10, 9, &w), 0);
    CMP_IDS(w);
    cr_assert_eq(list(t, s, "unread only", alice, true, 10, 0, &w), 0);
    CMP_IDS(w, 2, 4, 6);
    cr_assert_eq(list(t, s, "unread only offset 1", alice, true, 1, 1, &w), 0);
    CMP_IDS(w, 4);
    cr_assert_eq(list(t, s, "carol's", carol, false, 10, 0, &w), 0);
    CMP_IDS(w);
    w = cmp_fresh(t);
    w.stop_after = 1;
    cr_assert_eq(cmp_rc(t, "stopped", store_notes_list(s, alice, false, 10, 0, on_note, &w)), 7);
    CMP_IDS(w, 2);
    w = cmp_fresh(t);
    w.stop_after = 4;
    cr_assert_eq(cmp_rc(t, "stopped in the read ones",
                        store_notes_list(s, alice, false, 10, 0, on_note, &w)),
                 7);
    CMP_IDS(w, 2, 4, 6, 3);

    /* The bounds: at most keep unread per sender and kind, a challenge's
     * notices settled with it, one unread notice per game and kind. */
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(cmp_rc(t, "cap bob's challenges to 1",
                        store_notes_cap_sender(s, alice, "challenge", bob, 1)),
                 STORE_OK);
    cr_assert_eq(cmp_rc(t, "cap carol's challenges to 1",
                        store_notes_cap_sender(s, alice, "challenge", carol, 1)),
                 STORE_OK);
    cr_assert_eq(list(t, s, "after the caps", alice, true, 10, 0, &w), 0);
    CMP_IDS(w, 4, 6); /* bob's older challenge went */
    cr_assert_eq(cmp_rc(t, "settle 79", store_notes_settle(s, alice, "challenge", 79, false)),
                 STORE_OK);
    cr_assert_eq(cmp_rc(t, "settle 78 drop", store_notes_settle(s, alice, "challenge", 78, true)),
                 STORE_OK);
    cr_assert_eq(cmp_rc(t, "settle 80 drop", store_notes_settle(s, alice, "challenge", 80, true)),
                 STORE_OK);
    cr_assert_eq(store_commit(s), STORE_OK);
    cr_assert_eq(unread(t, s, alice), 0);
    cr_assert_eq(list(t, s, "after settling", alice, false, 10, 0, &w), 0);
    CMP_IDS(w, 6, 3, 1);

    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(note(t, s, alice, "your_turn", g1, bob, 0, 200), 7);
    cr_assert_eq(note(t, s, alice, "your_turn", g2, bob, 0, 210), 8);
    cr_assert_eq(
        cmp_rc(t, "drop unread your_turn 1", store_notes_drop_unread(s, alice, "your_turn", g1)),
        STORE_OK);
    cr_assert_eq(cmp_rc(t, "drop unread none", store_notes_drop_unread(s, carol, "your_turn", g1)),
                 STORE_OK);
    cr_assert_eq(store_commit(s), STORE_OK);
    cr_assert_eq(list(t, s, "after the drop", alice, false, 10, 0, &w), 0);
    CMP_IDS(w, 8, 6, 3, 1); /* 1 is read: it stays */

    cr_assert_eq(store_begin(s), STORE_OK);
    n = -1;
    cr_assert_eq(cmp_rc(t, "mark_all", store_note_mark_all(s, alice, &n)), STORE_OK);
    cmp_tr(t, "  marked=%lld\n", (long long)n);
    cr_assert_eq(n, 1);
    cr_assert_eq(cmp_rc(t, "mark_all again", store_note_mark_all(s, alice, &n)), STORE_OK);
    cr_assert_eq(n, 0);
    cr_assert_eq(store_commit(s), STORE_OK);
    cr_assert_eq(unread(t, s, alice), 0);
    cr_assert_eq(unread(t, s, bob), 1);
    cr_assert_eq(list(t, s, "all read", alice, false, 10, 0, &w), 0);
    CMP_IDS(w, 8, 6, 3, 1);
}

Test(pg_corr, notes_alike)
{
    CMP_RUN(notes_sequence);
}
