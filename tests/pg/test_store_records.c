/*
 * The records area (store_records.h: the clock of each move, the mark of
 * an imported game) on both backends: one sequence runs on a fresh
 * PostgreSQL database and on a fresh SQLite file and the two traces must
 * be equal line for line (storecmp.h); exact values are asserted too.
 * Games and moves are plain SQL rows (the same text on both); the mark is
 * read back as the contract shows it, in the game row (store_game_get()),
 * and in the columns themselves.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "pgtest.h"
#include "storecmp.h"

TestSuite(pg_records, .init = cmp_init, .fini = cmp_fini, .timeout = 60);

static int on_clock(void *arg, int64_t ply, int64_t clock_ms)
{
    cmp_seen *w = arg;
    cmp_tr(w->t, "  clock ply=%lld ms=%lld\n", (long long)ply, (long long)clock_ms);
    /* ply * 1000000 + clock: both checked by CMP_IDS */
    return cmp_keep(w, ply * 1000000 + clock_ms);
}

static int clocks(cmp_trace *t, store *s, int64_t game, cmp_seen *w)
{
    char what[48];
    snprintf(what, sizeof what, "move_clocks_each %lld", (long long)game);
    return cmp_rc(t, what, store_move_clocks_each(s, game, on_clock, w));
}

static int clock_set(cmp_trace *t, store *s, int64_t game, int64_t ply, int64_t ms)
{
    char what[64];
    snprintf(what, sizeof what, "move_clock_set %lld %lld %lld", (long long)game, (long long)ply,
             (long long)ms);
    return cmp_rc(t, what, store_move_clock_set(s, game, ply, ms));
}

static void game(cmp_trace *t, store *s, int64_t id, store_game *g)
{
    char what[48];
    snprintf(what, sizeof what, "game_get %lld", (long long)id);
    cr_assert_eq(cmp_rc(t, what, store_game_get(s, id, g)), STORE_OK);
    cmp_tr(t, "  game id=%lld white=%lld/%s black=%lld/%s imported=%d\n", (long long)g->id,
           (long long)g->white_id, g->white, (long long)g->black_id, g->black, g->imported);
}

static void records_sequence(cmp_side *b, cmp_trace *t)
{
    store *s = b->s;
    int64_t w = cmp_user(s, "wanda", false);
    int64_t k = cmp_user(s, "kim", false);
    cr_assert_eq(k, 2);
    cmp_game(b, w, k, 1000); /* 1: played */
    cmp_game(b, w, k, 1001); /* 2: to be marked imported */
    cmp_game(b, k, w, 1002); /* 3: no moves */
    /* Out of ply order on purpose: the walk orders them. */
    cmp_exec(b, "INSERT INTO moves (game_id, ply, move, user_id, created) VALUES "
                "(1, 2, 'c3-c4', 1, 1102), (1, 0, 'c2-c3', 1, 1100), (1, 1, 'c4-c3', 2, 1101), "
                "(2, 0, 'c2-c3', 1, 1200)");

    /* No clock yet: -1 for each move. */
    cmp_seen seen = cmp_fresh(t);
    cr_assert_eq(clocks(t, s, 1, &seen), 0);
    CMP_IDS(seen, -1, 1000000 - 1, 2000000 - 1);

    /* Set inside a transaction, read back inside and after it. */
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(clock_set(t, s, 1, 0, 59000), STORE_OK);
    cr_assert_eq(clock_set(t, s, 1, 1, 58500), STORE_OK);
    cr_assert_eq(clock_set(t, s, 1, 5, 1), STORE_NOTFOUND);
    cr_assert_eq(clock_set(t, s, 99, 0, 1), STORE_NOTFOUND);
    cr_assert_eq(clock_set(t, s, 3, 0, 1), STORE_NOTFOUND);
    seen = cmp_fresh(t);
    cr_assert_eq(clocks(t, s, 1, &seen), 0);
    CMP_IDS(seen, 59000, 1058500, 2000000 - 1);
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);
    seen = cmp_fresh(t);
    cr_assert_eq(clocks(t, s, 1, &seen), 0);
    CMP_IDS(seen, 59000, 1058500, 2000000 - 1);

    /* A clock of 0 is a clock; setting again replaces it. */
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(clock_set(t, s, 1, 2, 0), STORE_OK);
    cr_assert_eq(clock_set(t, s, 1, 0, 60000), STORE_OK);
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);
    seen = cmp_fresh(t);
    cr_assert_eq(clocks(t, s, 1, &seen), 0);
    CMP_IDS(seen, 60000, 1058500, 2000000);

    /* Rolled back: unchanged. */
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(clock_set(t, s, 1, 1, 1), STORE_OK);
    store_rollback(s);
    seen = cmp_fresh(t);
    cr_assert_eq(clocks(t, s, 1, &seen), 0);
    CMP_IDS(seen, 60000, 1058500, 2000000);

    seen = cmp_fresh(t);
    cr_assert_eq(clocks(t, s, 3, &seen), 0);
    cr_assert_eq(seen.n, 0);
    seen = cmp_fresh(t);
    cr_assert_eq(clocks(t, s, 99, &seen), 0);
    cr_assert_eq(seen.n, 0);
    seen = cmp_fresh(t);
    seen.stop_after = 2;
    cr_assert_eq(clocks(t, s, 1, &seen), 7);
    CMP_IDS(seen, 60000, 1058500);

    /* The mark of an imported game, a name unknown. */
    store_game g;
    game(t, s, 2, &g);
    cr_assert(!g.imported);
    cr_assert_str_eq(g.white, "wanda");
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(
        cmp_rc(t, "mark_imported 2", store_game_mark_imported(s, 2, "Kasparov, Garry", NULL)),
        STORE_OK);
    cr_assert_eq(cmp_rc(t, "mark_imported 99", store_game_mark_imported(s, 99, "a", "b")),
                 STORE_NOTFOUND);
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);
    game(t, s, 2, &g);
    cr_assert(g.imported);
    cr_assert_str_eq(g.white, "Kasparov, Garry");
    cr_assert_eq(g.white_id, w); /* the importer's ids stay */
    long long cols = cmp_int(b, "SELECT count(*) FROM games WHERE id = 2 AND imported = 1 AND "
                                "imported_white = 'Kasparov, Garry' AND imported_black IS NULL");
    cmp_tr(t, "  marked rows=%lld\n", cols);
    cr_assert_eq(cols, 1);

    /* Both names, then rolled back. */
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(cmp_rc(t, "mark_imported 3", store_game_mark_imported(s, 3, "X", "Y")), STORE_OK);
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);
    game(t, s, 3, &g);
    cr_assert(g.imported);
    cr_assert_str_eq(g.white, "X");
    cr_assert_str_eq(g.black, "Y");
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(cmp_rc(t, "mark_imported 1", store_game_mark_imported(s, 1, "P", "Q")), STORE_OK);
    store_rollback(s);
    game(t, s, 1, &g);
    cr_assert(!g.imported);
    cr_assert_str_eq(g.black, "kim");
}

Test(pg_records, alike)
{
    CMP_RUN(records_sequence);
}
