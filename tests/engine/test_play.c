/* Whole games with the engine: reproducibility with a fixed seed, legality
 * of every move and PV from random positions of every variant, converting
 * a won ending, and level 3 against level 1. Node and depth limits only
 * (levels' time budgets are removed), so results are machine-independent. */
#include <criterion/criterion.h>
#include <string.h>

#include "helpers.h"

static const char *VARIANTS[] = {"alquerque",
                                 "alquerque-traditional",
                                 "alquerque-brainking",
                                 "alquerque-stoep-short",
                                 "alquerque-stoep-long",
                                 "alquerkonane-8x8",
                                 "alquerkonane-6x4"};
#define NVARIANTS (sizeof VARIANTS / sizeof VARIANTS[0])

/* Level limits without the wall clock. */
static qk_limits level(int n, uint64_t nodes)
{
    qk_limits l;
    cr_assert_eq(qk_engine_level_limits(n, 1000, &l), QK_OK);
    l.time_ms = 0;
    l.nodes = nodes;
    return l;
}

static void game_text(const char *variant, uint64_t seed, char *out, size_t cap, qk_result *res)
{
    qk_engine a, b;
    cr_assert_eq(qk_engine_init(&a, 1u << 20), QK_OK);
    cr_assert_eq(qk_engine_init(&b, 1u << 20), QK_OK);
    qk_engine_seed(&a, seed);
    qk_engine_seed(&b, seed + 1);
    qk_variant v = tv(variant);
    qk_pos p;
    qk_variant_start(&v, &p);
    qk_limits strong = level(3, 3000), weak = level(1, 3000);
    int plies;
    *res = tplay(&v, p, &a, &strong, &b, &weak, 300, &plies, out, cap);
    qk_engine_free(&a);
    qk_engine_free(&b);
}

Test(play, same_seed_same_game)
{
    static char g1[16384], g2[16384], g3[16384];
    const char *names[] = {"alquerque", "alquerkonane-8x8"};
    for (int i = 0; i < 2; i++) {
        qk_result r1, r2, r3;
        game_text(names[i], 7, g1, sizeof g1, &r1);
        game_text(names[i], 7, g2, sizeof g2, &r2);
        cr_assert_str_eq(g1, g2, "%s: two games with seed 7 differ", names[i]);
        cr_assert_eq(r1, r2);
        cr_assert_gt(strlen(g1), 20);
        /* The seed matters: level 1's random moves change the game. */
        game_text(names[i], 8, g3, sizeof g3, &r3);
        cr_assert_str_neq(g1, g3, "%s: seeds 7 and 8 played the same game", names[i]);
    }
}

/* Random playouts of every variant; at every third position the engine,
 * at a random level with a small node budget, must return a legal move
 * (and a legal PV), and report no move exactly when the game is over. */
Test(play, never_an_illegal_move)
{
    qk_engine e;
    cr_assert_eq(qk_engine_init(&e, 1u << 20), QK_OK);
    uint64_t seed = 2024;
    int searched = 0;
    for (size_t k = 0; k < NVARIANTS; k++) {
        qk_variant v = tv(VARIANTS[k]);
        for (int game = 0; game < 6; game++) {
            qk_pos p;
            qk_variant_start(&v, &p);
            static qk_move m[TMOVES];
            for (int ply = 0; ply < 300; ply++) {
                bool over = qk_pos_status(&v, &p, NULL, NULL);
                if (ply % 3 == 0 || over) {
                    qk_limits lim = level(1 + (int)(trand(&seed) % 3), 200 + trand(&seed) % 2000);
                    qk_search_result r;
                    qk_pos before = p;
                    cr_assert_eq(qk_engine_search(&e, &v, &p, &lim, &r), QK_OK);
                    cr_assert_eq(memcmp(&before, &p, sizeof p), 0, "search changed the position");
                    cr_assert_eq(r.has_move, !over);
                    if (r.has_move) {
                        cr_assert(tlegal(&v, &p, &r.best), "%s: illegal %s", VARIANTS[k],
                                  tmove(&v, &r.best));
                        cr_assert(tpv_legal(&v, &p, r.pv, r.pv_len), "%s: illegal PV", VARIANTS[k]);
                    }
                    searched++;
                }
                if (over)
                    break;
                int n = qk_movegen(&v, &p, m, TMOVES);
                cr_assert_gt(n, 0);
                qk_undo u;
                qk_pos_make(&v, &p, &m[trand(&seed) % (uint64_t)n], &u);
            }
        }
    }
    cr_log_info("%d searches checked", searched);
    cr_assert_gt(searched, 300);
    qk_engine_free(&e);
}

/* Four white men against one black man (kawu, section 3): level 3 wins
 * against level 1 within the 40 quiet plies, whichever random moves
 * level 1 makes. */
Test(play, converts_a_won_ending)
{
    qk_engine a, b;
    cr_assert_eq(qk_engine_init(&a, 1u << 20), QK_OK);
    cr_assert_eq(qk_engine_init(&b, 1u << 20), QK_OK);
    qk_variant v = tv("alquerque");
    const char *starts[] = {"....b/...../...../.www./..w.. w 0 -",
                            "b..../...../...../ww.../ww... w 0 -",
                            "...../..b../...../w.w.w/....w b 0 -"};
    for (int i = 0; i < 3; i++) {
        for (uint64_t seed = 1; seed <= 3; seed++) {
            qk_engine_seed(&b, seed);
            qk_pos p = tp(&v, starts[i]);
            qk_limits strong = level(3, 20000), weak = level(1, 2000);
            int plies;
            qk_result r = tplay(&v, p, &a, &strong, &b, &weak, 40, &plies, NULL, 0);
            cr_assert_eq(r, QK_RESULT_WHITE, "%s seed %d: result %d after %d plies", starts[i],
                         (int)seed, r, plies);
        }
    }
    qk_engine_free(&a);
    qk_engine_free(&b);
}

/* Level 3 (20 000 nodes a move) against level 1, two games per variant
 * family with colours swapped: level 3 loses none. */
Test(play, level_3_beats_level_1)
{
    const char *names[] = {"alquerque", "alquerque-traditional", "alquerque-brainking",
                           "alquerque-stoep-short", "alquerkonane-8x8"};
    qk_engine s, w;
    cr_assert_eq(qk_engine_init(&s, 1u << 20), QK_OK);
    cr_assert_eq(qk_engine_init(&w, 1u << 20), QK_OK);
    int wins = 0, games = 0;
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        qk_variant v = tv(names[k]);
        for (int colour = 0; colour < 2; colour++) {
            qk_engine_seed(&w, 100 + (uint64_t)colour);
            qk_engine_clear(&s);
            qk_pos p;
            qk_variant_start(&v, &p);
            qk_limits strong = level(3, 20000), weak = level(1, 2000);
            int plies;
            qk_result r = colour == 0 ? tplay(&v, p, &s, &strong, &w, &weak, 400, &plies, NULL, 0)
                                      : tplay(&v, p, &w, &weak, &s, &strong, 400, &plies, NULL, 0);
            qk_result mine = colour == 0 ? QK_RESULT_WHITE : QK_RESULT_BLACK;
            qk_result theirs = colour == 0 ? QK_RESULT_BLACK : QK_RESULT_WHITE;
            cr_assert_neq(r, theirs, "%s: level 3 lost as %s", names[k],
                          colour ? "black" : "white");
            wins += r == mine;
            games++;
        }
    }
    cr_log_info("level 3 won %d of %d", wins, games);
    cr_assert_geq(wins, games - 2);
    qk_engine_free(&s);
    qk_engine_free(&w);
}
