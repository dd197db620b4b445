/*
 * The tourney area (store_tourney.h: classes and tournaments) on both
 * backends: one sequence of operations runs on a fresh PostgreSQL database
 * and on a fresh SQLite file, each call's code and every field of every
 * row it returns is written as one line of a trace, and the two traces
 * must be equal line for line (storecmp.h). The sequence also asserts
 * exact values (ids, orders, codes), so both backends being wrong alike
 * fails too.
 *
 * Games are rows of the games area; the few this area points at are
 * inserted with plain SQL on each database (the same text on both), so
 * this test depends on no other area than users.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "pgtest.h"
#include "storecmp.h"

TestSuite(pg_tourney, .init = cmp_init, .fini = cmp_fini, .timeout = 60);

/* ---- this area's rows in the trace ------------------------------------ */

static void tr_class(cmp_trace *t, const store_class *c)
{
    cmp_tr(t, "  class id=%lld name=%s code=%s teacher_id=%lld teacher=%s created=%lld\n",
           (long long)c->id, c->name, c->code, (long long)c->teacher_id, c->teacher,
           (long long)c->created);
}

static void tr_tourney(cmp_trace *t, const store_tourney *x)
{
    cmp_tr(t,
           "  tourney id=%lld name=%s system=%s variant=%s tc=%s position=%s rounds=%lld dbl=%d "
           "rated=%d bots=%d class_id=%lld start_mode=%s status=%s organiser_id=%lld organiser=%s "
           "current_round=%lld end_reason=%s created=%lld updated=%lld pairer=%s\n",
           (long long)x->id, x->name, x->system, x->variant, x->time_control, x->position,
           (long long)x->rounds, x->dbl, x->rated, x->bots, (long long)x->class_id, x->start_mode,
           x->status, (long long)x->organiser_id, x->organiser, (long long)x->current_round,
           x->end_reason, (long long)x->created, (long long)x->updated, x->pairer);
}

static void tr_pairing(cmp_trace *t, const store_pairing *p)
{
    cmp_tr(t,
           "  pairing t=%lld round=%lld board=%lld white=%lld black=%lld game=%lld kind=%s "
           "result=%s by_hand=%d\n",
           (long long)p->tournament_id, (long long)p->round, (long long)p->board,
           (long long)p->white_id, (long long)p->black_id, (long long)p->game_id, p->kind,
           p->result, p->by_hand);
}

static int on_class(void *arg, const store_class *c)
{
    cmp_seen *w = arg;
    tr_class(w->t, c);
    return cmp_keep(w, c->id);
}

static int on_member(void *arg, const store_member *m)
{
    cmp_seen *w = arg;
    cmp_tr(w->t, "  member user_id=%lld username=%s name=%s bot=%d\n", (long long)m->user_id,
           m->username, m->name, m->bot);
    return cmp_keep(w, m->user_id);
}

static int on_tourney(void *arg, const store_tourney *x)
{
    cmp_seen *w = arg;
    tr_tourney(w->t, x);
    return cmp_keep(w, x->id);
}

static int on_tplayer(void *arg, const store_tplayer *p)
{
    cmp_seen *w = arg;
    cmp_tr(w->t,
           "  tplayer user_id=%lld username=%s bot=%d number=%lld withdrawn=%d late_round=%lld\n",
           (long long)p->user_id, p->username, p->bot, (long long)p->number, p->withdrawn,
           (long long)p->late_round);
    return cmp_keep(w, p->user_id);
}

static int on_pairing(void *arg, const store_pairing *p)
{
    cmp_seen *w = arg;
    tr_pairing(w->t, p);
    return cmp_keep(w, p->round * 100 + p->board);
}

static int on_forbid(void *arg, int64_t a, int64_t b)
{
    cmp_seen *w = arg;
    cmp_tr(w->t, "  forbid a=%lld b=%lld\n", (long long)a, (long long)b);
    return cmp_keep(w, a * 100 + b);
}

/* ---- classes ---------------------------------------------------------- */

static void classes_sequence(cmp_side *b, cmp_trace *t)
{
    store *s = b->s;
    /* Usernames in mixed case: members are listed case-insensitively. */
    int64_t tea = cmp_user(s, "Teacher", false);
    int64_t bob = cmp_user(s, "bob", false);
    int64_t alice = cmp_user(s, "Alice", false);
    int64_t carl = cmp_user(s, "Carl", true);
    int64_t under = cmp_user(s, "b_z", false); /* lower-cased, '_' (0x5f) sorts before letters */
    cr_assert_eq(tea, 1);
    cr_assert_eq(under, 5);

    /* Inserts in one transaction, a taken code in the middle: the
     * transaction goes on and the next class still gets id 2. */
    store_class c1 = {.teacher_id = tea, .created = 2000}, c2 = c1, dup = c1, c3 = c1;
    snprintf(c1.name, sizeof c1.name, "5B");
    snprintf(c1.code, sizeof c1.code, "ABC123");
    snprintf(dup.name, sizeof dup.name, "other");
    snprintf(dup.code, sizeof dup.code, "ABC123");
    snprintf(c2.name, sizeof c2.name, "Chess club");
    snprintf(c2.code, sizeof c2.code, "XYZ789");
    c2.created = 2500;
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(cmp_rc(t, "class_insert c1", store_class_insert(s, &c1)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "class_insert dup", store_class_insert(s, &dup)), STORE_CONFLICT);
    cr_assert_eq(cmp_rc(t, "class_insert c2", store_class_insert(s, &c2)), STORE_OK);
    cmp_tr(t, "ids %lld %lld\n", (long long)c1.id, (long long)c2.id);
    cr_assert_eq(c1.id, 1);
    cr_assert_eq(c2.id, 2);
    cr_assert_eq(cmp_rc(t, "member_add bob", store_member_add(s, 1, bob, "Bobby", 3000)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "member_add alice", store_member_add(s, 1, alice, "", 3001)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "member_add bob again", store_member_add(s, 1, bob, "B", 3002)),
                 STORE_CONFLICT);
    cr_assert_eq(cmp_rc(t, "member_add carl", store_member_add(s, 1, carl, "C.", 3003)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "member_add under", store_member_add(s, 1, under, "U", 3004)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "member_add alice 2", store_member_add(s, 2, alice, "Al", 3005)),
                 STORE_OK);
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);

    /* A class rolled back is not there (its id is not reused below: a
     * PostgreSQL sequence does not roll back, SQLite's rowid would). */
    snprintf(c3.name, sizeof c3.name, "gone");
    snprintf(c3.code, sizeof c3.code, "GONE00");
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(cmp_rc(t, "class_insert c3", store_class_insert(s, &c3)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "member_add in c3", store_member_add(s, c3.id, bob, "", 3006)),
                 STORE_OK);
    store_rollback(s);
    store_class got;
    cr_assert_eq(cmp_rc(t, "class_by_code GONE00", store_class_by_code(s, "GONE00", &got)),
                 STORE_NOTFOUND);

    /* Reads. */
    cr_assert_eq(cmp_rc(t, "class_get 1", store_class_get(s, 1, &got)), STORE_OK);
    tr_class(t, &got);
    cr_assert_str_eq(got.name, "5B");
    cr_assert_str_eq(got.teacher, "Teacher");
    cr_assert_eq(got.created, 2000);
    cr_assert_eq(cmp_rc(t, "class_get 99", store_class_get(s, 99, &got)), STORE_NOTFOUND);
    cr_assert_eq(cmp_rc(t, "class_by_code XYZ789", store_class_by_code(s, "XYZ789", &got)),
                 STORE_OK);
    tr_class(t, &got);
    cr_assert_eq(got.id, 2);
    cr_assert_str_eq(got.name, "Chess club");
    /* Exact: another case is another code. */
    cr_assert_eq(cmp_rc(t, "class_by_code xyz789", store_class_by_code(s, "xyz789", &got)),
                 STORE_NOTFOUND);
    cr_assert_eq(cmp_rc(t, "class_by_code empty", store_class_by_code(s, "", &got)),
                 STORE_NOTFOUND);

    cmp_seen w = cmp_fresh(t);
    cr_assert_eq(cmp_rc(t, "members_each 1", store_members_each(s, 1, on_member, &w)), 0);
    CMP_IDS(w, alice, under, bob, carl); /* alice, b_z, bob, carl */
    w = cmp_fresh(t);
    cr_assert_eq(cmp_rc(t, "members_each 2", store_members_each(s, 2, on_member, &w)), 0);
    CMP_IDS(w, alice);
    w = cmp_fresh(t);
    cr_assert_eq(cmp_rc(t, "members_each 99", store_members_each(s, 99, on_member, &w)), 0);
    cr_assert_eq(w.n, 0);
    w = cmp_fresh(t);
    w.stop_after = 2;
    cr_assert_eq(cmp_rc(t, "members_each 1 stopped", store_members_each(s, 1, on_member, &w)), 7);
    cr_assert_eq(w.n, 2);

    bool yes = true;
    cr_assert_eq(cmp_rc(t, "member_is 1 bob", store_member_is(s, 1, bob, &yes)), STORE_OK);
    cmp_tr(t, "  yes=%d\n", yes);
    cr_assert(yes);
    cr_assert_eq(cmp_rc(t, "member_is 2 bob", store_member_is(s, 2, bob, &yes)), STORE_OK);
    cmp_tr(t, "  yes=%d\n", yes);
    cr_assert(!yes);
    yes = true;
    cr_assert_eq(cmp_rc(t, "member_is 99 bob", store_member_is(s, 99, bob, &yes)), STORE_OK);
    cmp_tr(t, "  yes=%d\n", yes);
    cr_assert(!yes);
    cr_assert_eq(cmp_rc(t, "member_is 1 teacher", store_member_is(s, 1, tea, &yes)), STORE_OK);
    cmp_tr(t, "  yes=%d\n", yes);
    cr_assert(!yes);

    /* Taught or joined, by id. */
    w = cmp_fresh(t);
    cr_assert_eq(cmp_rc(t, "classes_of teacher", store_classes_of(s, tea, on_class, &w)), 0);
    CMP_IDS(w, 1, 2);
    w = cmp_fresh(t);
    cr_assert_eq(cmp_rc(t, "classes_of alice", store_classes_of(s, alice, on_class, &w)), 0);
    CMP_IDS(w, 1, 2);
    w = cmp_fresh(t);
    cr_assert_eq(cmp_rc(t, "classes_of bob", store_classes_of(s, bob, on_class, &w)), 0);
    CMP_IDS(w, 1);
    w = cmp_fresh(t);
    cr_assert_eq(cmp_rc(t, "classes_of 99", store_classes_of(s, 99, on_class, &w)), 0);
    cr_assert_eq(w.n, 0);
    w = cmp_fresh(t);
    w.stop_after = 1;
    cr_assert_eq(cmp_rc(t, "classes_of teacher stopped", store_classes_of(s, tea, on_class, &w)),
                 7);
    CMP_IDS(w, 1);
}

Test(pg_tourney, classes_alike)
{
    CMP_RUN(classes_sequence);
}

/* ---- tournaments ------------------------------------------------------ */

static store_tourney a_tourney(int64_t organiser, const char *name)
{
    store_tourney x = {.rounds = 3, .organiser_id = organiser, .created = 5000, .updated = 5000};
    snprintf(x.name, sizeof x.name, "%s", name);
    snprintf(x.system, sizeof x.system, "swiss");
    snprintf(x.variant, sizeof x.variant, "alquerque");
    snprintf(x.time_control, sizeof x.time_control, "{\"kind\":\"unlimited\"}");
    snprintf(x.start_mode, sizeof x.start_mode, "organiser");
    snprintf(x.status, sizeof x.status, "open");
    return x;
}

static void tourney_sequence(cmp_side *b, cmp_trace *t)
{
    store *s = b->s;
    int64_t org = cmp_user(s, "Org", false);
    int64_t p1 = cmp_user(s, "p1", false);
    int64_t p2 = cmp_user(s, "P2", true);
    int64_t p3 = cmp_user(s, "p3", false);
    int64_t p4 = cmp_user(s, "p4", false);
    cr_assert_eq(p4, 5);
    cmp_game(b, p1, p2, 2000);
    cmp_game(b, p3, p4, 2000);
    cmp_game(b, p2, p1, 2000);

    store_class cl = {.teacher_id = org, .created = 4000};
    snprintf(cl.name, sizeof cl.name, "club");
    snprintf(cl.code, sizeof cl.code, "CLUB01");

    /* a: every optional empty (position NULL, no class, pairer builtin);
     * b: a position, a class, the external pairer, running, double and
     * rated; c: finished, with bots. */
    store_tourney ta = a_tourney(org, "Alpha"), tb = a_tourney(org, "Beta"),
                  tc = a_tourney(org, "Gamma");
    snprintf(tb.position, sizeof tb.position, "bbbbb/bbbbb/ww.bb/wwwww/wwwww w 0 -");
    snprintf(tb.pairer, sizeof tb.pairer, "external");
    snprintf(tb.status, sizeof tb.status, "running");
    snprintf(tb.system, sizeof tb.system, "round_robin");
    snprintf(tb.start_mode, sizeof tb.start_mode, "auto");
    tb.dbl = tb.rated = true;
    tb.created = tb.updated = 5100;
    snprintf(tc.status, sizeof tc.status, "finished");
    tc.bots = true;
    tc.created = tc.updated = 5200;
    /* Ignored on insert. */
    ta.current_round = 9;
    snprintf(ta.end_reason, sizeof ta.end_reason, "ignored");
    snprintf(ta.organiser, sizeof ta.organiser, "ignored");

    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(cmp_rc(t, "class_insert", store_class_insert(s, &cl)), STORE_OK);
    tb.class_id = cl.id;
    cr_assert_eq(cmp_rc(t, "tourney_insert a", store_tourney_insert(s, &ta)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "tourney_insert b", store_tourney_insert(s, &tb)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "tourney_insert c", store_tourney_insert(s, &tc)), STORE_OK);
    cmp_tr(t, "ids %lld %lld %lld\n", (long long)ta.id, (long long)tb.id, (long long)tc.id);
    cr_assert_eq(ta.id, 1);
    cr_assert_eq(tc.id, 3);
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);

    store_tourney got;
    cr_assert_eq(cmp_rc(t, "tourney_get a", store_tourney_get(s, ta.id, &got)), STORE_OK);
    tr_tourney(t, &got);
    cr_assert_str_eq(got.position, "");
    cr_assert_eq(got.class_id, 0);
    cr_assert_str_eq(got.pairer, "builtin");
    cr_assert_eq(got.current_round, 0);
    cr_assert_str_eq(got.end_reason, "");
    cr_assert_str_eq(got.organiser, "Org");
    cr_assert(!got.dbl && !got.rated && !got.bots);
    cr_assert_eq(cmp_rc(t, "tourney_get b", store_tourney_get(s, tb.id, &got)), STORE_OK);
    tr_tourney(t, &got);
    cr_assert_str_eq(got.pairer, "external");
    cr_assert_eq(got.class_id, cl.id);
    cr_assert(got.dbl && got.rated && !got.bots);
    cr_assert_str_eq(got.system, "round_robin");
    cr_assert_str_eq(got.position, "bbbbb/bbbbb/ww.bb/wwwww/wwwww w 0 -");
    cr_assert_eq(cmp_rc(t, "tourney_get c", store_tourney_get(s, tc.id, &got)), STORE_OK);
    tr_tourney(t, &got);
    cr_assert(got.bots);
    cr_assert_eq(cmp_rc(t, "tourney_get 99", store_tourney_get(s, 99, &got)), STORE_NOTFOUND);

    /* Listings: newest first, a status, a limit. */
    cmp_seen w = cmp_fresh(t);
    cr_assert_eq(cmp_rc(t, "list all", store_tourneys_list(s, NULL, 10, on_tourney, &w)), 0);
    CMP_IDS(w, 3, 2, 1);
    w = cmp_fresh(t);
    cr_assert_eq(cmp_rc(t, "list all 2", store_tourneys_list(s, NULL, 2, on_tourney, &w)), 0);
    CMP_IDS(w, 3, 2);
    w = cmp_fresh(t);
    cr_assert_eq(cmp_rc(t, "list open", store_tourneys_list(s, "open", 10, on_tourney, &w)), 0);
    CMP_IDS(w, 1);
    w = cmp_fresh(t);
    cr_assert_eq(cmp_rc(t, "list running", store_tourneys_list(s, "running", 1, on_tourney, &w)),
                 0);
    CMP_IDS(w, 2);
    w = cmp_fresh(t);
    cr_assert_eq(cmp_rc(t, "list none", store_tourneys_list(s, "nosuch", 10, on_tourney, &w)), 0);
    cr_assert_eq(w.n, 0);
    w = cmp_fresh(t);
    w.stop_after = 1;
    cr_assert_eq(cmp_rc(t, "list stopped", store_tourneys_list(s, NULL, 10, on_tourney, &w)), 7);
    CMP_IDS(w, 3);

    /* Players, in a transaction with conflicts in the middle: it goes on. */
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(cmp_rc(t, "tplayer_add p3", store_tplayer_add(s, 1, p3, 3, 2, 6000)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "tplayer_add p1", store_tplayer_add(s, 1, p1, 1, 0, 6001)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "tplayer_add p1 again", store_tplayer_add(s, 1, p1, 4, 0, 6002)),
                 STORE_CONFLICT);
    cr_assert_eq(cmp_rc(t, "tplayer_add number taken", store_tplayer_add(s, 1, p4, 3, 0, 6003)),
                 STORE_CONFLICT);
    cr_assert_eq(cmp_rc(t, "tplayer_add p2", store_tplayer_add(s, 1, p2, 2, 0, 6004)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "tplayer_add p4", store_tplayer_add(s, 1, p4, 4, 0, 6005)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "tplayer_add p1 in b", store_tplayer_add(s, 2, p1, 1, 0, 6006)),
                 STORE_OK);
    cr_assert_eq(cmp_rc(t, "tplayer_withdraw p2", store_tplayer_withdraw(s, 1, p2)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "tplayer_withdraw p2 again", store_tplayer_withdraw(s, 1, p2)),
                 STORE_OK);
    cr_assert_eq(cmp_rc(t, "tplayer_withdraw org", store_tplayer_withdraw(s, 1, org)),
                 STORE_NOTFOUND);
    cr_assert_eq(cmp_rc(t, "tplayer_remove p4", store_tplayer_remove(s, 1, p4)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "tplayer_remove p4 again", store_tplayer_remove(s, 1, p4)),
                 STORE_NOTFOUND);
    cr_assert_eq(cmp_rc(t, "tplayer_remove in 99", store_tplayer_remove(s, 99, p1)),
                 STORE_NOTFOUND);
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);

    w = cmp_fresh(t);
    cr_assert_eq(cmp_rc(t, "tplayers_each 1", store_tplayers_each(s, 1, on_tplayer, &w)), 0);
    CMP_IDS(w, p1, p2, p3);
    w = cmp_fresh(t);
    cr_assert_eq(cmp_rc(t, "tplayers_each 2", store_tplayers_each(s, 2, on_tplayer, &w)), 0);
    CMP_IDS(w, p1);
    w = cmp_fresh(t);
    cr_assert_eq(cmp_rc(t, "tplayers_each 3", store_tplayers_each(s, 3, on_tplayer, &w)), 0);
    cr_assert_eq(w.n, 0);
    w = cmp_fresh(t);
    w.stop_after = 2;
    cr_assert_eq(cmp_rc(t, "tplayers_each 1 stopped", store_tplayers_each(s, 1, on_tplayer, &w)),
                 7);
    CMP_IDS(w, p1, p2);

    /* Pairings: round 2 inserted before round 1's second board, so the
     * listing's order is the store's, not the insertion's. */
    store_pairing g11 = {
        .tournament_id = 1, .round = 1, .board = 1, .white_id = p1, .black_id = p2, .game_id = 1};
    snprintf(g11.kind, sizeof g11.kind, "game");
    store_pairing g21 = {
        .tournament_id = 1, .round = 2, .board = 1, .white_id = p3, .black_id = p4, .game_id = 2};
    snprintf(g21.kind, sizeof g21.kind, "game");
    snprintf(g21.result, sizeof g21.result, "draw");
    store_pairing bye12 = {.tournament_id = 1, .round = 1, .board = 2, .white_id = p3};
    snprintf(bye12.kind, sizeof bye12.kind, "bye");
    snprintf(bye12.result, sizeof bye12.result, "white");
    bye12.by_hand = true;
    store_pairing same_key = g11, same_game = g11;
    same_key.game_id = 3;
    same_game.round = 3;

    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(cmp_rc(t, "pairing_insert 1.1", store_pairing_insert(s, &g11)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "pairing_insert 2.1", store_pairing_insert(s, &g21)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "pairing_insert same key", store_pairing_insert(s, &same_key)),
                 STORE_CONFLICT);
    cr_assert_eq(cmp_rc(t, "pairing_insert same game", store_pairing_insert(s, &same_game)),
                 STORE_CONFLICT);
    cr_assert_eq(cmp_rc(t, "pairing_insert bye 1.2", store_pairing_insert(s, &bye12)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "game_tourney_set 1", store_game_tourney_set(s, 1, 1, 1)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "game_tourney_set 2", store_game_tourney_set(s, 2, 1, 2)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "game_tourney_set 3 none", store_game_tourney_set(s, 3, 0, 0)),
                 STORE_OK);
    cr_assert_eq(cmp_rc(t, "game_tourney_set 99", store_game_tourney_set(s, 99, 1, 1)),
                 STORE_NOTFOUND);
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);

    w = cmp_fresh(t);
    cr_assert_eq(cmp_rc(t, "pairings_each 1", store_pairings_each(s, 1, on_pairing, &w)), 0);
    CMP_IDS(w, 101, 102, 201);
    w = cmp_fresh(t);
    cr_assert_eq(cmp_rc(t, "pairings_each 2", store_pairings_each(s, 2, on_pairing, &w)), 0);
    cr_assert_eq(w.n, 0);

    store_pairing pg;
    cr_assert_eq(cmp_rc(t, "pairing_by_game 2", store_pairing_by_game(s, 2, &pg)), STORE_OK);
    tr_pairing(t, &pg);
    cr_assert_eq(pg.round, 2);
    cr_assert_str_eq(pg.result, "draw");
    cr_assert_str_eq(pg.kind, "game");
    cr_assert_eq(cmp_rc(t, "pairing_by_game 3", store_pairing_by_game(s, 3, &pg)), STORE_NOTFOUND);
    cr_assert_eq(cmp_rc(t, "pairing_by_game 0", store_pairing_by_game(s, 0, &pg)), STORE_NOTFOUND);

    /* A result set by hand, then cleared; a forfeit; an absent key. */
    store_pairing set = g11;
    snprintf(set.result, sizeof set.result, "black");
    set.by_hand = true;
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(cmp_rc(t, "pairing_set 1.1 black", store_pairing_set(s, &set)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "pairing_by_game 1", store_pairing_by_game(s, 1, &pg)), STORE_OK);
    tr_pairing(t, &pg);
    cr_assert_str_eq(pg.result, "black");
    cr_assert(pg.by_hand);
    cr_assert_eq(pg.black_id, p2);
    set.result[0] = '\0';
    set.by_hand = false;
    snprintf(set.kind, sizeof set.kind, "forfeit");
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(cmp_rc(t, "pairing_set 1.1 cleared", store_pairing_set(s, &set)), STORE_OK);
    set.board = 9;
    cr_assert_eq(cmp_rc(t, "pairing_set 1.9", store_pairing_set(s, &set)), STORE_NOTFOUND);
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "pairing_by_game 1", store_pairing_by_game(s, 1, &pg)), STORE_OK);
    tr_pairing(t, &pg);
    cr_assert_str_eq(pg.result, "");
    cr_assert_str_eq(pg.kind, "forfeit");
    cr_assert(!pg.by_hand);
    w = cmp_fresh(t);
    cr_assert_eq(cmp_rc(t, "pairings_each 1 after", store_pairings_each(s, 1, on_pairing, &w)), 0);
    CMP_IDS(w, 101, 102, 201);

    /* Forbidden pairs: as given, listed by (a, b); a repeat conflicts. */
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(cmp_rc(t, "forbid_add p3 p1", store_forbid_add(s, 1, p3, p1)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "forbid_add p1 p3", store_forbid_add(s, 1, p1, p3)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "forbid_add p3 p1 again", store_forbid_add(s, 1, p3, p1)),
                 STORE_CONFLICT);
    cr_assert_eq(cmp_rc(t, "forbid_add p2 p1", store_forbid_add(s, 1, p2, p1)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "forbid_add in 2", store_forbid_add(s, 2, p3, p1)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);
    w = cmp_fresh(t);
    cr_assert_eq(cmp_rc(t, "forbids_each 1", store_forbids_each(s, 1, on_forbid, &w)), 0);
    CMP_IDS(w, p1 * 100 + p3, p2 * 100 + p1, p3 * 100 + p1);
    w = cmp_fresh(t);
    cr_assert_eq(cmp_rc(t, "forbids_each 3", store_forbids_each(s, 3, on_forbid, &w)), 0);
    cr_assert_eq(w.n, 0);
    w = cmp_fresh(t);
    w.stop_after = 1;
    cr_assert_eq(cmp_rc(t, "forbids_each 1 stopped", store_forbids_each(s, 1, on_forbid, &w)), 7);

    /* A game's tournament. */
    int64_t tid = -1, round = -1;
    cr_assert_eq(cmp_rc(t, "game_tourney_get 2", store_game_tourney_get(s, 2, &tid, &round)),
                 STORE_OK);
    cmp_tr(t, "  tid=%lld round=%lld\n", (long long)tid, (long long)round);
    cr_assert_eq(tid, 1);
    cr_assert_eq(round, 2);
    cr_assert_eq(cmp_rc(t, "game_tourney_get 3", store_game_tourney_get(s, 3, &tid, &round)),
                 STORE_OK);
    cmp_tr(t, "  tid=%lld round=%lld\n", (long long)tid, (long long)round);
    cr_assert_eq(tid, 0);
    cr_assert_eq(round, 0);
    cr_assert_eq(cmp_rc(t, "game_tourney_get 99", store_game_tourney_get(s, 99, &tid, &round)),
                 STORE_NOTFOUND);

    /* The mutable fields; end_reason "" is none again. */
    store_tourney up = ta;
    up.rounds = 5;
    up.current_round = 2;
    up.updated = 7000;
    snprintf(up.status, sizeof up.status, "finished");
    snprintf(up.end_reason, sizeof up.end_reason, "organiser ended it");
    up.dbl = true; /* not a mutable field: stays */
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(cmp_rc(t, "tourney_update a", store_tourney_update(s, &up)), STORE_OK);
    up.id = 99;
    cr_assert_eq(cmp_rc(t, "tourney_update 99", store_tourney_update(s, &up)), STORE_NOTFOUND);
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "tourney_get a updated", store_tourney_get(s, ta.id, &got)), STORE_OK);
    tr_tourney(t, &got);
    cr_assert_eq(got.rounds, 5);
    cr_assert_eq(got.current_round, 2);
    cr_assert_eq(got.updated, 7000);
    cr_assert_eq(got.created, 5000);
    cr_assert_str_eq(got.status, "finished");
    cr_assert_str_eq(got.end_reason, "organiser ended it");
    cr_assert(!got.dbl);
    up.id = ta.id;
    up.end_reason[0] = '\0';
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(cmp_rc(t, "tourney_update a again", store_tourney_update(s, &up)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "tourney_get a again", store_tourney_get(s, ta.id, &got)), STORE_OK);
    tr_tourney(t, &got);
    cr_assert_str_eq(got.end_reason, "");
    w = cmp_fresh(t);
    cr_assert_eq(cmp_rc(t, "list finished", store_tourneys_list(s, "finished", 10, on_tourney, &w)),
                 0);
    CMP_IDS(w, 3, 1);

    /* Rolled back: the player added is not there. */
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(cmp_rc(t, "tplayer_add p4 rolled back", store_tplayer_add(s, 2, p4, 2, 0, 8000)),
                 STORE_OK);
    store_rollback(s);
    w = cmp_fresh(t);
    cr_assert_eq(
        cmp_rc(t, "tplayers_each 2 after rollback", store_tplayers_each(s, 2, on_tplayer, &w)), 0);
    CMP_IDS(w, p1);
}

Test(pg_tourney, tournaments_alike)
{
    CMP_RUN(tourney_sequence);
}
