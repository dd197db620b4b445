/* qk_engine: tactics per variant family, exact mate scores, the 40-ply
 * rule through the transposition table, the solver hand-off, limits and
 * arguments. Every search here is bounded by depth or nodes, never by
 * time, so results do not depend on the machine. Positions are built from
 * RULES.md; each comment says why the expected move is the only right one. */
#include <criterion/criterion.h>
#include <string.h>

#include "helpers.h"

static qk_engine E;

static void setup(void)
{
    cr_assert_eq(qk_engine_init(&E, 4u << 20), QK_OK);
}

static void teardown(void)
{
    qk_engine_free(&E);
}

TestSuite(engine, .init = setup, .fini = teardown);

static qk_search_result run(const char *variant, const char *pos, int depth, bool no_solver)
{
    qk_variant v = tv(variant);
    qk_pos p = tp(&v, pos);
    qk_limits lim = {.depth = depth, .no_solver = no_solver};
    qk_search_result r;
    cr_assert_eq(qk_engine_search(&E, &v, &p, &lim, &r), QK_OK);
    cr_assert(r.has_move);
    cr_assert(tlegal(&v, &p, &r.best), "illegal best move %s", tmove(&v, &r.best));
    cr_assert(tpv_legal(&v, &p, r.pv, r.pv_len));
    cr_assert_geq(r.pv_len, 1);
    cr_assert(tsame(&r.pv[0], &r.best));
    return r;
}

static void expect_move(const char *variant, const char *pos, int depth, const char *move,
                        int score)
{
    qk_variant v = tv(variant);
    qk_search_result r = run(variant, pos, depth, true);
    cr_assert_str_eq(tmove(&v, &r.best), move, "%s %s", variant, pos);
    if (score != QK_SCORE_INF)
        cr_assert_eq(r.score, score, "%s %s: score %d", variant, pos, r.score);
}

/* ---- mates: the side to move leaves the opponent no legal move ---- */

/* Kawu (section 3) and traditional (section 4): Black's last man on a5 has
 * a4, b5, b4 as neighbours and could jump to a3, c5 or c3. White fills b4
 * from c4, the only piece whose departure opens nothing; Black has no move
 * and loses (section 8.1). White has no capture, so the step is legal. */
Test(engine, mate_in_one_kawu_and_traditional)
{
    const char *pos = "bww../w.w../w.w../...../..... w 0 -";
    expect_move("alquerque", pos, 6, "c4-b4", QK_SCORE_WIN - 1);
    expect_move("alquerque-traditional", pos, 6, "c4-b4", QK_SCORE_WIN - 1);
    qk_variant v = tv("alquerque");
    qk_pos p = tp(&v, pos);
    cr_assert(forced_win(&v, &p, 1));
}

/* BrainKing and Stoep (sections 5, 6): Black's man on a2 moves down or
 * sideways only: a1 and b2 are White, and the jump over b2 needs c2 empty.
 * d2-c2 (sideways) closes it; White's a3 man stops a1xa3. */
Test(engine, mate_in_one_forward_variants)
{
    const char *pos = "...../...../w..../bw.w./w.... w 0 -";
    expect_move("alquerque-brainking", pos, 6, "d2-c2", QK_SCORE_WIN - 1);
    expect_move("alquerque-stoep-short", pos, 6, "d2-c2", QK_SCORE_WIN - 1);
    expect_move("alquerque-stoep-long", pos, 6, "d2-c2", QK_SCORE_WIN - 1);
}

/* Alquerkonane (section 7): Black's d4 jumps d5 (orthogonal) and White's
 * only other pawn, b1, stands on its last rank with no black neighbour:
 * White has no move and loses. Found by search alone and by the solver. */
Test(engine, konane_capture_leaves_no_move)
{
    const char *v = "alquerkonane-8x8";
    const char *pos =
        "......../......../......../...w..../...b..../......../.......b/.w...... b 0 -";
    expect_move(v, pos, 4, "d4xd6", QK_SCORE_WIN - 1);
    qk_search_result r = run(v, pos, 4, false);
    cr_assert(r.solved);
    cr_assert_eq(r.score, QK_SCORE_WIN - 1);
}

/* ---- material: the capture that takes most ---- */

Test(engine, kawu_takes_the_double_capture)
{
    /* e1xe3 (over e2) may stop or go on over d4 to c5 (section 3:
     * continuing is optional). Two men for none. */
    expect_move("alquerque", "b..../...b./...../....b/w...w w 0 -", 6, "e1xe3xc5", QK_SCORE_INF);
}

Test(engine, brainking_takes_the_longer_chain)
{
    /* Compulsory capture and continuation (section 5): a1xa3 takes one,
     * c1xc3xe5 two (the second jump diagonal from c3). */
    expect_move("alquerque-brainking", "b..../...b./...../b.b../w.w.. w 0 -", 6, "c1xc3xe5",
                QK_SCORE_INF);
}

Test(engine, stoep_sultans_capture)
{
    /* Short Sultan a1 jumps b2 to c3 and may go on over c2 or d4 (section
     * 6: any direction): two men either way. */
    qk_variant v = tv("alquerque-stoep-short");
    qk_search_result r = run(v.name, "b..../...b./...../.bb../W...w w 0 -", 6, true);
    cr_assert_eq(r.best.ncap, 2, "played %s", tmove(&v, &r.best));
    /* Long Sultan a1 flies over b2, c3 to take d4 and land on e5; the last
     * black man on a5 is then lost: a forced win. */
    qk_variant l = tv("alquerque-stoep-long");
    r = run(l.name, "b..../...b./...../...../W...w w 0 -", 8, true);
    cr_assert_str_eq(tmove(&l, &r.best), "a1xe5");
    cr_assert_geq(r.score, QK_SCORE_MATE);
    /* Without a5 the capture ends the game at once (no pieces). */
    expect_move(l.name, "...../...b./...../...../W...w w 0 -", 4, "a1xe5", QK_SCORE_WIN - 1);
}

/* ---- the 40-ply rule (sections 3, 4, 8) ---- */

Test(engine, traditional_move_limit_decides)
{
    /* Quiet count 39: any step ends the game. White has 4 pieces to 2 and
     * wins by the count (section 4). */
    qk_search_result r =
        run("alquerque-traditional", "w.w../...b./...../..b../w...w w 39 -", 4, true);
    cr_assert_eq(r.score, QK_SCORE_WIN - 1);
    /* Two to four: every step loses; the capture a1xc3 (optional in this
     * variant) resets the count, so the engine must capture. */
    r = run("alquerque-traditional", "b.b../...b./...../.b.../w...w w 39 -", 4, true);
    cr_assert_gt(r.best.ncap, 0);
    cr_assert_gt(r.score, -QK_SCORE_MATE);
}

/* White wins this kawu ending from a quiet count of 0, but at 39 every
 * move draws (section 3). The table must not carry one into the other,
 * in either order. */
Test(engine, quiet_count_never_leaks_through_the_table)
{
    const char *fresh = "ww.../w..../...../...../....b w 0 -";
    const char *late = "ww.../w..../...../...../....b w 39 -";
    qk_search_result r = run("alquerque", fresh, 12, true);
    cr_assert_eq(r.score, QK_SCORE_WIN - 11);
    r = run("alquerque", late, 12, true);
    cr_assert_eq(r.score, 0);

    qk_engine_clear(&E);
    r = run("alquerque", late, 12, true);
    cr_assert_eq(r.score, 0);
    r = run("alquerque", fresh, 12, true);
    cr_assert_eq(r.score, QK_SCORE_WIN - 11);
}

/* ---- exact mate scores, checked by brute force ---- */

/* Positions near the end of seeded random games: whenever the engine
 * claims a win in d <= 5 plies, a plain minimax proves a forced win within
 * d plies and none within d - 1. */
Test(engine, claimed_mates_are_exact)
{
    const char *names[] = {"alquerque", "alquerque-traditional", "alquerque-brainking",
                           "alquerque-stoep-short", "alquerque-stoep-long"};
    uint64_t seed = 99;
    int claims = 0;
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        qk_variant v = tv(names[k]);
        for (int game = 0; game < 8; game++) {
            qk_pos p;
            qk_variant_start(&v, &p);
            static qk_move m[TMOVES];
            for (int ply = 0; ply < 200 && !qk_pos_status(&v, &p, NULL, NULL); ply++) {
                if (ply >= 12 && ply % 3 == 0) {
                    qk_limits lim = {.depth = 6, .nodes = 200000};
                    qk_search_result r;
                    cr_assert_eq(qk_engine_search(&E, &v, &p, &lim, &r), QK_OK);
                    int d = QK_SCORE_WIN - r.score;
                    if (r.score >= QK_SCORE_MATE && d <= 5) {
                        qk_pos q = p;
                        cr_assert(forced_win(&v, &q, d), "%s: no win in %d", names[k], d);
                        cr_assert_not(forced_win(&v, &q, d - 1), "%s: faster than %d", names[k], d);
                        claims++;
                    }
                }
                int n = qk_movegen(&v, &p, m, TMOVES);
                qk_undo u;
                qk_pos_make(&v, &p, &m[trand(&seed) % (uint64_t)n], &u);
            }
        }
    }
    cr_log_info("%d mate claims verified", claims);
    cr_assert_geq(claims, 10);
}

/* ---- Alquerkonane: the solver hand-off ---- */

Test(engine, konane_6x4_uses_the_solver_and_plays_perfectly)
{
    qk_variant v = tv("alquerkonane-6x4");
    qk_pos p;
    qk_variant_start(&v, &p);
    qk_limits lim = {.depth = 4};
    qk_search_result r;
    cr_assert_eq(qk_engine_search(&E, &v, &p, &lim, &r), QK_OK);
    cr_assert(r.solved);
    cr_assert_eq(r.score, -(QK_SCORE_WIN - 22));
    cr_assert_eq(r.depth, 22);
    cr_assert(tlegal(&v, &p, &r.best));
    /* Both sides perfect: the loser holds out exactly 22 plies. */
    int plies;
    qk_result res = tplay(&v, p, &E, &lim, &E, &lim, 100, &plies, NULL, 0);
    cr_assert_eq(res, QK_RESULT_WHITE);
    cr_assert_eq(plies, 22);
}

/* When exact distances are out of budget, the engine still takes a move the
 * solver proves winning (5x5 row of solved.tsv: exact needs about 150 000
 * positions, the winner alone about 22 000; each attempt gets 50 000). */
Test(engine, konane_winner_only_fallback)
{
    qk_variant v = tv("alquerkonane-5x5");
    qk_pos p = tp(&v, ".w.w./w.w.w/...../.b.b./b.b.b b 0 -");
    qk_limits lim = {.depth = 2, .solver_nodes = 60000};
    qk_search_result r;
    cr_assert_eq(qk_engine_search(&E, &v, &p, &lim, &r), QK_OK);
    cr_assert(r.solved);
    cr_assert_eq(r.score, QK_SCORE_MATE);
    cr_assert_eq(r.depth, 0);
    cr_assert(tlegal(&v, &p, &r.best));
    qk_undo u;
    qk_pos_make(&v, &p, &r.best, &u);
    qk_solver s;
    cr_assert_eq(qk_solver_init(&s, 16u << 20), QK_OK);
    qk_solve_result after;
    cr_assert_eq(qk_solve(&s, &v, &p, NULL, &after), QK_OK);
    cr_assert(after.solved);
    cr_assert_not(after.mover_wins, "%s lets the win slip", tmove(&v, &r.best));
    qk_solver_free(&s);

    /* White to move loses this row (solved.tsv); neither attempt gives a
     * move to play, so the search decides. */
    qk_pos q = tp(&v, ".w.w./w.w.w/...../.b.b./b.b.b w 0 -");
    cr_assert_eq(qk_engine_search(&E, &v, &q, &lim, &r), QK_OK);
    cr_assert_not(r.solved);
    cr_assert(tlegal(&v, &q, &r.best));
}

Test(engine, konane_search_alone_finds_the_solved_values)
{
    /* Without the solver, the search still reaches the exact distances of
     * these 4x4 rows (solved.tsv: Black wins in 11, loses in 10). */
    qk_search_result r = run("alquerkonane-4x4", "w.w./.w.w/.b.b/b.b. b 0 -", 14, true);
    cr_assert_eq(r.score, QK_SCORE_WIN - 11);
    r = run("alquerkonane-4x4", "w.w./..../..../b.b. b 0 -", 14, true);
    cr_assert_eq(r.score, -(QK_SCORE_WIN - 10));
}

/* ---- limits and arguments ---- */

Test(engine, tiny_limits_still_give_a_legal_move)
{
    qk_variant v = tv("alquerque");
    qk_pos p;
    qk_variant_start(&v, &p);
    qk_limits one = {.nodes = 1};
    qk_search_result r;
    cr_assert_eq(qk_engine_search(&E, &v, &p, &one, &r), QK_OK);
    cr_assert(r.has_move);
    cr_assert(tlegal(&v, &p, &r.best));
    cr_assert_leq(r.nodes, 2);

    atomic_int stop = 1;
    qk_limits halt = {.stop = &stop};
    cr_assert_eq(qk_engine_search(&E, &v, &p, &halt, &r), QK_OK);
    cr_assert(r.has_move);
    cr_assert(tlegal(&v, &p, &r.best));
}

Test(engine, depth_and_node_limits_hold)
{
    qk_variant v = tv("alquerque-traditional");
    qk_pos p;
    qk_variant_start(&v, &p);
    qk_limits lim = {.depth = 5};
    qk_search_result r;
    cr_assert_eq(qk_engine_search(&E, &v, &p, &lim, &r), QK_OK);
    cr_assert_eq(r.depth, 5);
    qk_limits nodes = {.nodes = 5000};
    cr_assert_eq(qk_engine_search(&E, &v, &p, &nodes, &r), QK_OK);
    cr_assert_leq(r.nodes, 5000);
    cr_assert_geq(r.depth, 1);
}

/* A traditional position with 1285 legal moves (capture paths: optional
 * continuation and immediate removal, sections 2 and 4), more than
 * QK_MAX_MOVES; and its grandparent, where a level-3 search met it. */
Test(engine, positions_with_more_than_qk_max_moves)
{
    qk_variant v = tv("alquerque-traditional");
    qk_pos p = tp(&v, "bbbbb/.wbbb/.w.w./wwwww/.w.w. b 8 -");
    static qk_move all[TMOVES];
    cr_assert_eq(qk_movegen(&v, &p, all, TMOVES), 1285);
    qk_search_result r = run(v.name, "bbbbb/.wbbb/.w.w./wwwww/.w.w. b 8 -", 3, true);
    cr_assert_gt(r.best.ncap, 0);
    qk_limits lim = {.nodes = 10000};
    p = tp(&v, "bbbbb/.bb.b/ww..w/wwwww/.w..w w 3 -");
    cr_assert_eq(qk_engine_search(&E, &v, &p, &lim, &r), QK_OK);
    cr_assert(tlegal(&v, &p, &r.best));
}

Test(engine, finished_game_has_no_move)
{
    qk_variant v = tv("alquerkonane-4x4");
    qk_pos p = tp(&v, "w.w./..../..../.... b 0 -");
    qk_search_result r;
    cr_assert_eq(qk_engine_search(&E, &v, &p, NULL, &r), QK_OK);
    cr_assert_not(r.has_move);
    qk_variant a = tv("alquerque");
    qk_pos q = tp(&a, "ww.../w..../...../...../....b b 40 -"); /* drawn by the count */
    cr_assert_eq(qk_engine_search(&E, &a, &q, NULL, &r), QK_OK);
    cr_assert_not(r.has_move);
}

Test(engine, bad_arguments)
{
    qk_variant v = tv("alquerque");
    qk_pos p;
    qk_variant_start(&v, &p);
    qk_search_result r;
    cr_assert_eq(qk_engine_search(NULL, &v, &p, NULL, &r), QK_EINVAL);
    cr_assert_eq(qk_engine_search(&E, NULL, &p, NULL, &r), QK_EINVAL);
    cr_assert_eq(qk_engine_search(&E, &v, NULL, NULL, &r), QK_EINVAL);
    cr_assert_eq(qk_engine_search(&E, &v, &p, NULL, NULL), QK_EINVAL);
    qk_engine none = {0};
    cr_assert_eq(qk_engine_search(&none, &v, &p, NULL, &r), QK_EINVAL);
    cr_assert_eq(qk_engine_init(NULL, 0), QK_EINVAL);
    qk_engine_free(&none); /* safe on a zeroed context */
    qk_limits lim;
    cr_assert_eq(qk_engine_level_limits(0, 1000, &lim), QK_EINVAL);
    cr_assert_eq(qk_engine_level_limits(5, 1000, &lim), QK_EINVAL);
    cr_assert_eq(qk_engine_level_limits(1, 1000, NULL), QK_EINVAL);
}

Test(engine, level_limits)
{
    qk_limits l;
    cr_assert_eq(qk_engine_level_limits(1, 0, &l), QK_OK);
    cr_assert_eq(l.depth, 2);
    cr_assert_eq(l.time_ms, QK_ENGINE_DEFAULT_MS / 4);
    cr_assert_eq(l.mistake_pct, 30);
    cr_assert(l.no_solver);
    cr_assert_eq(qk_engine_level_limits(2, 2000, &l), QK_OK);
    cr_assert_eq(l.depth, 6);
    cr_assert_eq(l.time_ms, 1000);
    cr_assert_eq(l.mistake_pct, 0);
    cr_assert_eq(qk_engine_level_limits(3, 5000, &l), QK_OK);
    cr_assert_eq(l.depth, 0);
    cr_assert_eq(l.time_ms, 5000);
    cr_assert_not(l.no_solver);
}

Test(engine, score_text)
{
    char buf[32];
    cr_assert_eq(qk_engine_score_format(125, buf, sizeof buf), 5);
    cr_assert_str_eq(buf, "+1.25");
    qk_engine_score_format(-50, buf, sizeof buf);
    cr_assert_str_eq(buf, "-0.50");
    qk_engine_score_format(0, buf, sizeof buf);
    cr_assert_str_eq(buf, "+0.00");
    qk_engine_score_format(QK_SCORE_WIN - 7, buf, sizeof buf);
    cr_assert_str_eq(buf, "win in 7");
    qk_engine_score_format(-(QK_SCORE_WIN - 6), buf, sizeof buf);
    cr_assert_str_eq(buf, "loss in 6");
    cr_assert_eq(qk_engine_score_format(QK_SCORE_WIN - 7, buf, 4), QK_ENOSPC);
    qk_engine_score_format(QK_SCORE_MATE, buf, sizeof buf);
    cr_assert_str_eq(buf, "win");
    qk_engine_score_format(-QK_SCORE_MATE, buf, sizeof buf);
    cr_assert_str_eq(buf, "loss");
}

Test(engine, keys)
{
    qk_variant v = tv("alquerque-brainking");
    qk_pos a = tp(&v, "bbbbb/bbbbb/bb.ww/wwwww/wwwww w 0 -");
    qk_pos b = tp(&v, "bbbbb/bbbbb/bb.ww/wwwww/wwwww w 17 -");
    qk_pos c = tp(&v, "bbbbb/bbbbb/bb.ww/wwwww/wwwww b 0 -");
    cr_assert_eq(qk_engine_key(&v, &a), qk_engine_key(&v, &b)); /* quiet count not hashed */
    cr_assert_neq(qk_engine_key(&v, &a), qk_engine_key(&v, &c));
    /* The no-return memory changes which steps are legal (section 5): the
     * man on c3 came from b3 and may not step back there. It is hashed. */
    qk_pos free_man = tp(&v, "b..../...../..w../...../..... w 0 -");
    qk_pos bound_man = tp(&v, "b..../...../..w../...../..... w 0 c3:b3");
    qk_move all[QK_MAX_MOVES];
    cr_assert_eq(qk_movegen(&v, &bound_man, all, QK_MAX_MOVES) + 1,
                 qk_movegen(&v, &free_man, all, QK_MAX_MOVES));
    cr_assert_neq(qk_engine_key(&v, &free_man), qk_engine_key(&v, &bound_man));
    /* Variants never share keys. */
    qk_variant t = tv("alquerque-traditional");
    qk_pos d = tp(&t, "bbbbb/bbbbb/bb.ww/wwwww/wwwww w 0 -");
    cr_assert_neq(qk_engine_key(&v, &a), qk_engine_key(&t, &d));
}

Test(engine, evaluation_is_symmetric_at_the_starts)
{
    /* Every start position is its own mirror image (180-degree turn with
     * colours swapped, sections 2 and 7), so a fair evaluation is 0. */
    const char *names[] = {"alquerque",
                           "alquerque-traditional",
                           "alquerque-brainking",
                           "alquerque-stoep-short",
                           "alquerque-stoep-long",
                           "alquerkonane-8x8",
                           "alquerkonane-6x4"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        qk_variant v = tv(names[i]);
        qk_pos p;
        qk_variant_start(&v, &p);
        cr_assert_eq(qk_engine_evaluate(&v, &p), 0, "%s", names[i]);
    }
    /* A man up is worth about a man. */
    qk_variant v = tv("alquerque-traditional");
    qk_pos p = tp(&v, "bbbbb/bbbb./bb.ww/wwwww/wwwww w 0 -");
    int e = qk_engine_evaluate(&v, &p);
    cr_assert(e > 60 && e < 160, "eval %d", e);
}

/* Issue 9 item 13: a 12x12 Alquerkonane board half full (each square
 * taken with probability 1/2, Black on dark squares, White on light ones,
 * section 7) has ~50 optional captures at every node and captures all the
 * way down, so an unbounded quiescence search never ended at depth 1. The
 * analyse command's limits (level 3, then --depth N, no time limit) must
 * finish with a completed iteration and a legal move; the node count is
 * the bound that makes it finish (the solver's probe of 200,000 nodes plus
 * at most 2,048 quiescence nodes per leaf), not a timing. The timeout only
 * turns the old hang into a failure. */
#define DENSE_12X12                                                                                \
    "w..bwb..wb.b/.wb.b..wb..w/wbwbwbwbwbwb/...w..bw...w/..w.....wb.b/b...bw...wbw/"               \
    "w...wb.....b/...wb..w..../...bw..b.bwb/...wbwb...../w..bwb.bw.wb/b.bw.wbwbwbw"

Test(engine, dense_konane_12x12_depth_search_ends, .timeout = 120)
{
    qk_variant v = tv("alquerkonane-12x12");
    const char *sides[] = {DENSE_12X12 " b 0 -", DENSE_12X12 " w 0 -"};
    for (int s = 0; s < 2; s++) {
        qk_pos p = tp(&v, sides[s]);
        static qk_move all[TMOVES];
        int n = qk_movegen(&v, &p, all, TMOVES);
        cr_assert_gt(n, 30, "test bug: the board is not dense (%d moves)", n);
        int ncap = 0;
        for (int i = 0; i < n; i++)
            ncap += all[i].ncap > 0;
        cr_assert_gt(ncap, 20, "test bug: few captures (%d)", ncap);
        for (int depth = 1; depth <= 2; depth++) {
            qk_limits lim;
            cr_assert_eq(qk_engine_level_limits(3, 1000, &lim), QK_OK);
            lim.depth = depth;
            lim.time_ms = 0; /* as `qirkat analyse --depth N` */
            qk_search_result r;
            cr_assert_eq(qk_engine_search(&E, &v, &p, &lim, &r), QK_OK);
            cr_assert(r.has_move);
            cr_assert(tlegal(&v, &p, &r.best), "illegal %s", tmove(&v, &r.best));
            cr_assert(tpv_legal(&v, &p, r.pv, r.pv_len));
            cr_assert_not(r.solved);
            cr_assert_eq(r.depth, depth, "side %d: iteration %d not completed", s, r.depth);
            cr_assert_lt(r.nodes, (uint64_t)200000 + (uint64_t)(depth == 1 ? 1 : n) * n * 2100,
                         "side %d depth %d: %llu nodes", s, depth, (unsigned long long)r.nodes);
        }
    }
}
