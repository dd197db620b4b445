/* The exact Alquerkonane solver (qk_solve.h; RULES.md section 7) against
 * data/solved.tsv, a 6x4 value checked by a table-free search, and a plain
 * negamax (no table, no pruning) on small boards and random positions. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

static qk_solver S;

static void setup(void)
{
    cr_assert_eq(qk_solver_init(&S, 16u << 20), QK_OK);
}

static void teardown(void)
{
    qk_solver_free(&S);
}

TestSuite(solve, .init = setup, .fini = teardown);

Test(solve, every_row_of_solved_tsv)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/data/solved.tsv", tshared());
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open %s (set QK_SHARED)", path);
    char line[1024];
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        line[strcspn(line, "\r\n")] = '\0';
        char *name = strtok(line, "\t"), *pos = strtok(NULL, "\t"), *winner = strtok(NULL, "\t");
        cr_assert(name && pos && winner, "malformed row %d", rows + 1);
        qk_variant v = tv(name);
        qk_pos p = tp(&v, pos);
        qk_solve_result r;
        cr_assert_eq(qk_solve(&S, &v, &p, NULL, &r), QK_OK);
        cr_assert(r.solved, "%s %s", name, pos);
        cr_assert_str_eq(qk_result_name(r.winner), winner, "%s %s", name, pos);
        cr_assert(r.has_move);
        cr_assert(tlegal(&v, &p, &r.best));
        /* Consistency of the parts: the winner is the mover iff mover_wins. */
        cr_assert_eq(r.mover_wins, (r.winner == QK_RESULT_WHITE) == (p.side == QK_WHITE));
        cr_assert_eq(r.score,
                     r.mover_wins ? QK_SCORE_WIN - r.distance : -(QK_SCORE_WIN - r.distance));
        cr_assert(r.exact);

        /* Winner only, from an empty table: the same winner, and the move
         * it gives the winner keeps the win (the opponent, to move, loses). */
        qk_solver_clear(&S);
        qk_solve_limits wo = {.winner_only = true};
        qk_solve_result w;
        cr_assert_eq(qk_solve(&S, &v, &p, &wo, &w), QK_OK);
        cr_assert(w.solved);
        cr_assert_not(w.exact);
        cr_assert_eq(w.distance, -1);
        cr_assert_eq(w.winner, r.winner, "%s %s: winner_only disagrees", name, pos);
        cr_assert_eq(w.score, r.mover_wins ? 1 : -1);
        cr_assert(tlegal(&v, &p, &w.best));
        if (w.mover_wins) {
            qk_pos c = p;
            qk_undo u;
            qk_pos_make(&v, &c, &w.best, &u);
            qk_solve_result after;
            cr_assert_eq(qk_solve(&S, &v, &c, NULL, &after), QK_OK);
            cr_assert(after.solved && !after.mover_wins);
        }
        rows++;
    }
    fclose(f);
    cr_assert_geq(rows, 10, "only %d rows read", rows);
}

/* 6x4 from its start: Black moves first and loses in 22 plies. The value
 * is confirmed by an alpha-beta with no table (about 1.6 M positions). */
Test(solve, alquerkonane_6x4_start)
{
    qk_variant v = tv("alquerkonane-6x4");
    qk_pos p;
    qk_variant_start(&v, &p);
    cr_assert_eq(p.side, QK_BLACK);
    qk_solve_result r;
    cr_assert_eq(qk_solve(&S, &v, &p, NULL, &r), QK_OK);
    cr_assert(r.solved);
    cr_assert_eq(r.winner, QK_RESULT_WHITE);
    cr_assert_not(r.mover_wins);
    cr_assert_eq(r.distance, 22);
    cr_assert_eq(r.score, -(QK_SCORE_WIN - 22));
    cr_assert_gt(r.expanded, 1000);
    cr_assert_geq(r.nodes, r.expanded);

    uint64_t nodes = 0;
    qk_pos q = p;
    int plain = plain_alphabeta(&v, &q, -QK_SCORE_INF, QK_SCORE_INF, 0, &nodes);
    cr_assert_eq(plain, r.score, "table-free search says %d", plain);
    cr_assert_eq(memcmp(&q, &p, sizeof p), 0);

    /* The principal variation is legal and ends the game on time. */
    qk_move pv[64];
    int n = qk_solve_pv(&S, &v, &p, pv, 64);
    cr_assert_geq(n, 1);
    cr_assert(tpv_legal(&v, &p, pv, n));
}

/* Full minimax where the tree is small, else alpha-beta without table. */
static void check_plain(const qk_variant *v, const qk_pos *p0)
{
    qk_pos p = *p0;
    uint64_t nodes = 0;
    int plain = plain_negamax(v, &p, &nodes, 2000000);
    if (plain == QK_SCORE_INF) {
        p = *p0;
        nodes = 0;
        plain = plain_alphabeta(v, &p, -QK_SCORE_INF, QK_SCORE_INF, 0, &nodes);
    }
    qk_solve_result r;
    cr_assert_eq(qk_solve(&S, v, p0, NULL, &r), QK_OK);
    cr_assert(r.solved);
    cr_assert_eq(r.score, plain, "solver %d, plain negamax %d", r.score, plain);
}

Test(solve, plain_negamax_agrees_on_small_boards)
{
    const char *rows[][2] = {
        {"alquerkonane-3x3", ".w./wbw/b.b b 0 -"},
        {"alquerkonane-3x3", ".w./wbw/b.b w 0 -"},
        {"alquerkonane-4x4", "w.w./..../..../b.b. b 0 -"},
        {"alquerkonane-4x4", "w.w./..../..../b.b. w 0 -"},
        {"alquerkonane-4x4", "w.w./.w.w/.b.b/b.b. b 0 -"},
        {"alquerkonane-4x4", "w.w./.w.w/.b.b/b.b. w 0 -"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        qk_variant v = tv(rows[i][0]);
        qk_pos p = tp(&v, rows[i][1]);
        check_plain(&v, &p);
    }
}

/* Positions from seeded random playouts on several small boards: wherever
 * the full minimax tree is small enough, the solver gives exactly its
 * value (winner and distance), and its best move keeps that value. */
Test(solve, random_positions_match_plain_negamax)
{
    const char *names[] = {"alquerkonane-4x4", "alquerkonane-5x4", "alquerkonane-4x5",
                           "alquerkonane-6x4", "alquerkonane-5x5", "alquerkonane-3x6"};
    uint64_t seed = 12345;
    int checked = 0;
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        qk_variant v = tv(names[k]);
        for (int game = 0; game < 16; game++) {
            qk_pos p;
            qk_variant_start(&v, &p);
            int plies = 2 + (int)(trand(&seed) % 14);
            for (int i = 0; i < plies && !qk_pos_status(&v, &p, NULL, NULL); i++) {
                qk_move m[64];
                int n = qk_movegen(&v, &p, m, 64);
                qk_undo u;
                qk_pos_make(&v, &p, &m[trand(&seed) % (uint64_t)n], &u);
            }
            qk_pos q = p;
            uint64_t nodes = 0;
            int plain = plain_negamax(&v, &q, &nodes, 400000);
            if (plain == QK_SCORE_INF)
                continue;
            qk_solver_clear(&S);
            qk_solve_result r;
            cr_assert_eq(qk_solve(&S, &v, &p, NULL, &r), QK_OK);
            cr_assert(r.solved);
            cr_assert_eq(r.score, plain, "%s game %d: solver %d, plain %d", names[k], game, r.score,
                         plain);
            if (r.has_move) {
                qk_undo u;
                qk_pos c = p;
                qk_pos_make(&v, &c, &r.best, &u);
                nodes = 0;
                int child = plain_negamax(&v, &c, &nodes, 1000000);
                cr_assert_neq(child, QK_SCORE_INF);
                /* The best move's child is one ply nearer the end. */
                int back = -child > 0 ? -child - 1 : -child + 1;
                cr_assert_eq(back, plain, "best move %s loses value", tmove(&v, &r.best));
            }
            checked++;
        }
    }
    cr_log_info("%d random positions checked", checked);
    cr_assert_geq(checked, 30, "only %d positions were small enough", checked);
}

Test(solve, finished_position)
{
    qk_variant v = tv("alquerkonane-4x4");
    /* Black to move with no pawn: lost, section 7. */
    qk_pos p = tp(&v, "w.w./..../..../.... b 0 -");
    qk_solve_result r;
    cr_assert_eq(qk_solve(&S, &v, &p, NULL, &r), QK_OK);
    cr_assert(r.solved);
    cr_assert_not(r.has_move);
    cr_assert_not(r.mover_wins);
    cr_assert_eq(r.winner, QK_RESULT_WHITE);
    cr_assert_eq(r.distance, 0);
}

Test(solve, limits_stop_and_keep_the_table_correct)
{
    qk_variant v = tv("alquerkonane-5x5");
    qk_pos p = tp(&v, ".w.w./w.w.w/...../.b.b./b.b.b b 0 -");
    qk_solve_result r;
    qk_solve_limits lim = {.nodes = 1000};
    cr_assert_eq(qk_solve(&S, &v, &p, &lim, &r), QK_OK);
    cr_assert_not(r.solved);
    cr_assert_not(r.has_move);
    cr_assert_leq(r.nodes, 1001);

    atomic_int stop = 1;
    qk_solve_limits halt = {.stop = &stop};
    cr_assert_eq(qk_solve(&S, &v, &p, &halt, &r), QK_OK);
    cr_assert_not(r.solved); /* the flag is polled every 1024 positions */

    /* What the interrupted searches stored is still exact. */
    cr_assert_eq(qk_solve(&S, &v, &p, NULL, &r), QK_OK);
    cr_assert(r.solved);
    cr_assert_eq(r.winner, QK_RESULT_BLACK);
    cr_assert_eq(r.distance, 21);
}

Test(solve, tiny_table_is_slower_but_exact)
{
    qk_solver small;
    cr_assert_eq(qk_solver_init(&small, QK_SOLVE_MIN_BYTES), QK_OK);
    qk_variant v = tv("alquerkonane-5x5");
    qk_pos p = tp(&v, ".w.w./w.w.w/...../.b.b./b.b.b w 0 -");
    qk_solve_result a, b;
    cr_assert_eq(qk_solve(&small, &v, &p, NULL, &a), QK_OK);
    cr_assert_eq(qk_solve(&S, &v, &p, NULL, &b), QK_OK);
    cr_assert(a.solved && b.solved);
    cr_assert_eq(a.score, b.score);
    cr_assert_eq(a.winner, QK_RESULT_BLACK);
    qk_solver_free(&small);
    qk_solver_free(&small); /* idempotent */
}

Test(solve, caller_buffer)
{
    static uint64_t buf[(QK_SOLVE_MIN_BYTES * 4) / 8];
    qk_solver s;
    cr_assert_eq(qk_solver_init_buffer(&s, buf, sizeof buf), QK_OK);
    qk_variant v = tv("alquerkonane-4x4");
    qk_pos p = tp(&v, "w.w./..../..../b.b. b 0 -");
    qk_solve_result r;
    cr_assert_eq(qk_solve(&s, &v, &p, NULL, &r), QK_OK);
    cr_assert_eq(r.winner, QK_RESULT_WHITE);
    qk_solver_free(&s); /* does not free the caller's buffer */
}

Test(solve, bad_arguments)
{
    qk_variant v = tv("alquerque");
    qk_pos p;
    qk_variant_start(&v, &p);
    qk_solve_result r;
    cr_assert_eq(qk_solve(&S, &v, &p, NULL, &r), QK_EINVAL); /* draws exist there */
    cr_assert_eq(qk_solve(NULL, &v, &p, NULL, &r), QK_EINVAL);
    qk_variant k = tv("alquerkonane-4x4");
    qk_variant_start(&k, &p);
    cr_assert_eq(qk_solve(&S, &k, &p, NULL, NULL), QK_EINVAL);
    qk_solver none = {0};
    cr_assert_eq(qk_solve(&none, &k, &p, NULL, &r), QK_EINVAL);
    qk_solver s;
    cr_assert_eq(qk_solver_init(&s, 100), QK_EINVAL);
    cr_assert_eq(qk_solver_init(NULL, 1u << 20), QK_EINVAL);
    cr_assert_not(qk_solve_feasible(&v, &p));
    cr_assert(qk_solve_feasible(&k, &p));
    qk_variant big = tv("alquerkonane-8x8");
    qk_variant_start(&big, &p);
    cr_assert_not(qk_solve_feasible(&big, &p)); /* 16 pawns on 64 squares */
    p = tp(&big, "w.w.w.w./......../......../......../......../......../......../b.b.b.b. b 0 -");
    cr_assert(qk_solve_feasible(&big, &p)); /* 8 pawns */
}

/* df-pn (qk_solve_dfpn) decides what alpha-beta decides: every board of
 * at most 25 squares (R, C <= 8: the bit boards), each side first, from the start and from positions
 * of seeded random games; its winning move keeps the win. */
Test(solve, dfpn_agrees_with_alpha_beta_up_to_25_squares, .timeout = 300)
{
    qk_solver d;
    cr_assert_eq(qk_solver_init(&d, 64u << 20), QK_OK);
    uint64_t seed = 99;
    int checked = 0, wins = 0;
    for (int R = 2; R <= 8; R++)
        for (int C = 2; C <= 8 && R * C <= 25; C++) {
            char name[48];
            snprintf(name, sizeof name, "alquerkonane-%dx%d", R, C);
            qk_variant v = tv(name);
            for (int game = 0; game < 6; game++) {
                qk_pos p;
                qk_variant_start(&v, &p);
                p.side = (uint8_t)(game & 1);
                int plies = (game / 2) * 3;
                for (int i = 0; i < plies; i++) {
                    qk_move m[QK_MAX_MOVES];
                    int n = qk_movegen(&v, &p, m, QK_MAX_MOVES);
                    if (n <= 0)
                        break;
                    qk_undo u;
                    qk_pos_make(&v, &p, &m[trand(&seed) % (uint64_t)n], &u);
                }
                qk_solve_result a, b;
                qk_solve_limits wo = {.winner_only = true};
                qk_solver_clear(&S);
                cr_assert_eq(qk_solve(&S, &v, &p, &wo, &a), QK_OK);
                cr_assert_eq(qk_solve_dfpn(&d, &v, &p, NULL, &b), QK_OK);
                char fen[QK_POS_STRLEN];
                qk_pos_format(&v, &p, fen, sizeof fen);
                cr_assert(a.solved && b.solved, "%s %s", name, fen);
                cr_assert_eq(b.winner, a.winner, "%s %s: df-pn %s, alpha-beta %s", name, fen,
                             qk_result_name(b.winner), qk_result_name(a.winner));
                cr_assert_eq(b.mover_wins, a.mover_wins);
                cr_assert_not(b.exact);
                cr_assert_eq(b.has_move, a.has_move);
                if (b.has_move && b.mover_wins) {
                    cr_assert(tlegal(&v, &p, &b.best));
                    qk_pos q = p;
                    qk_undo u;
                    qk_pos_make(&v, &q, &b.best, &u);
                    qk_solve_result c;
                    cr_assert_eq(qk_solve(&S, &v, &q, &wo, &c), QK_OK);
                    cr_assert(!c.has_move || !c.mover_wins, "%s %s: df-pn's %s lets the win go",
                              name, fen, tmove(&v, &b.best));
                    wins++;
                }
                checked++;
            }
        }
    qk_solve_result r;
    qk_variant big = tv("alquerkonane-9x9");
    qk_pos bp;
    qk_variant_start(&big, &bp);
    cr_assert_eq(qk_solve_dfpn(&d, &big, &bp, NULL, &r), QK_EINVAL);
    big = tv("alquerkonane-2x9"); /* 18 squares but 9 files: not on bit boards */
    qk_variant_start(&big, &bp);
    cr_assert_eq(qk_solve_dfpn(&d, &big, &bp, NULL, &r), QK_EINVAL);
    /* A node budget stops it: unsolved. */
    qk_variant v66 = tv("alquerkonane-6x6");
    qk_variant_start(&v66, &bp);
    qk_solve_limits lim = {.nodes = 1000};
    cr_assert_eq(qk_solve_dfpn(&d, &v66, &bp, &lim, &r), QK_OK);
    cr_assert_not(r.solved);
    qk_solver_free(&d);
    printf("df-pn against alpha-beta: %d positions, %d won with df-pn's move checked\n", checked,
           wins);
    cr_assert_geq(checked, 150);
    cr_assert_geq(wins, 40);
}

/* Boards of more than 8 files take the generic path even under 64
 * squares (qk_bb_supported): 2x9..2x12 are full, the mover loses at once;
 * 3x9 from the start agrees with df-pn refusing it and with a budget. */
Test(solve, boards_wider_than_8_files_use_the_generic_path)
{
    for (int C = 9; C <= 12; C++) {
        char name[48];
        snprintf(name, sizeof name, "alquerkonane-2x%d", C);
        qk_variant v = tv(name);
        qk_pos p;
        qk_variant_start(&v, &p);
        qk_solve_result r;
        cr_assert_eq(qk_solve(&S, &v, &p, NULL, &r), QK_OK);
        cr_assert(r.solved && !r.has_move && !r.mover_wins, "%s", name);
        cr_assert_eq(r.distance, 0);
    }
    qk_variant v = tv("alquerkonane-3x9");
    qk_pos p;
    qk_variant_start(&v, &p);
    qk_solve_limits lim = {.winner_only = true, .nodes = 20000};
    qk_solve_result r;
    cr_assert_eq(qk_solve(&S, &v, &p, &lim, &r), QK_OK);
    cr_assert_not(r.solved);
    cr_assert_eq(qk_solve_dfpn(&S, &v, &p, NULL, &r), QK_EINVAL);
}
