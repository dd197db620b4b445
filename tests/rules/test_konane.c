/* Hand-made positions for Alquerkonane, RULES.md section 7. Boards read
 * the highest rank first; Black sits at rank 1 and moves up. Dark squares
 * are those with file + rank (0-based) even. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "util.h"

/* Section 7: one orthogonal capture per move, never a chain: b2 jumps b3
 * to b4 but may not go on over b5 to b6. Capture is optional and steps go
 * diagonally forward. */
Test(section7, single_capture_no_chain)
{
    expect_legal("alquerkonane-6x4", "..../.w../..../.w../.b../.... b 0 -", "b2-a3 b2-c3 b2xb4");
}

/* Section 7: captures go up, down, left or right, backward included. */
Test(section7, captures_in_all_four_orthogonal_directions)
{
    expect_legal("alquerkonane-6x6", "....../....../..w.../.wbw../..w.../...... b 0 -",
                 "c3-b4 c3-d4 c3xa3 c3xc1 c3xc5 c3xe3");
}

/* Section 7: White moves down the board; the same rules mirrored. */
Test(section7, white_moves_down)
{
    expect_legal("alquerkonane-6x4", "..../..w./..b./..../..../b... w 0 -", "c5-b4 c5-d4 c5xc3");
}

/* Section 7 [decision]: a pawn on the last rank cannot step but can still
 * capture; without a capture it has no move and its side loses. */
Test(section7, last_rank_pawn_captures_but_does_not_step)
{
    qk_variant v;
    qk_pos p;
    qk_result r;
    qk_reason w;
    expect_legal("alquerkonane-6x4", ".bw./..../..../..../..../w... b 0 -", "b6xd6");
    must_variant("alquerkonane-6x4", &v);
    must_pos(&v, ".b../..../..../..../..../w... b 0 -", &p);
    cr_assert_str_eq(legal_str(&v, &p), "");
    cr_assert(qk_pos_status(&v, &p, &r, &w));
    cr_assert_eq(r, QK_RESULT_WHITE);
    cr_assert_eq(w, QK_REASON_NO_MOVES);
}

/* Section 7: no pawn left loses; there are no draws whatever the count. */
Test(section7, no_pawns_loses_and_no_draws)
{
    qk_variant v;
    qk_pos p;
    qk_result r;
    qk_reason w;
    must_variant("alquerkonane-6x4", &v);
    cr_assert_not(qk_variant_has_draws(&v));
    cr_assert_not(qk_variant_has_sultans(&v));
    cr_assert(qk_variant_is_konane(&v));
    must_pos(&v, "..../..../..../..../..../w... b 0 -", &p);
    cr_assert(qk_pos_status(&v, &p, &r, &w));
    cr_assert_eq(r, QK_RESULT_WHITE);
    cr_assert_eq(w, QK_REASON_NO_PIECES);
    must_pos(&v, "..w./..../..../..../..../..b. w 500 -", &p);
    cr_assert_not(qk_pos_status(&v, &p, &r, &w));
}

/* Section 7: the named start positions, and Black moves first. */
Test(section7, start_positions_black_first)
{
    qk_variant v;
    qk_pos p;
    must_variant("alquerkonane-8x8", &v);
    qk_variant_start(&v, &p);
    cr_assert_eq(p.side, QK_BLACK);
    cr_assert_str_eq(
        pos_str(&v, &p),
        "w.w.w.w./.w.w.w.w/......../......../......../......../.b.b.b.b/b.b.b.b. b 0 -");
    cr_assert_str_eq(legal_str(&v, &p), "b2-a3 b2-c3 d2-c3 d2-e3 f2-e3 f2-g3 h2-g3");
    must_variant("alquerkonane-6x4", &v);
    qk_variant_start(&v, &p);
    cr_assert_str_eq(pos_str(&v, &p), "w.w./.w.w/..../..../.b.b/b.b. b 0 -");
    /* Three ranks: the middle rank holds both sides, apart by colour. */
    must_variant("alquerkonane-3x3", &v);
    qk_variant_start(&v, &p);
    cr_assert_str_eq(pos_str(&v, &p), ".w./wbw/b.b b 0 -");
}

/* Section 7: every RxC with 2 <= R, C <= 12 exists, with its canonical
 * name, its size, and Black on the dark squares of ranks 1-2. */
Test(section7, every_size_from_2_to_12)
{
    for (int r = 2; r <= 12; r++) {
        for (int c = 2; c <= 12; c++) {
            char name[64];
            qk_variant v;
            qk_pos p;
            snprintf(name, sizeof name, "alquerkonane-%dx%d", r, c);
            must_variant(name, &v);
            cr_assert_str_eq(v.name, name);
            cr_assert_eq(v.ranks, r);
            cr_assert_eq(v.files, c);
            qk_variant_start(&v, &p);
            int black = 0, white = 0, want_black = 0, want_white = 0;
            for (int i = 0; i < r * c; i++) {
                int rk = i / c, f = i % c;
                bool dark = (rk + f) % 2 == 0;
                black += p.sq[i] == QK_BMAN;
                white += p.sq[i] == QK_WMAN;
                want_black += dark && rk <= 1;
                want_white += !dark && rk >= r - 2;
                if (p.sq[i] == QK_BMAN)
                    cr_assert(dark && rk <= 1, "%s black on %d", name, i);
                if (p.sq[i] == QK_WMAN)
                    cr_assert(!dark && rk >= r - 2, "%s white on %d", name, i);
            }
            cr_assert_eq(black, want_black, "%s", name);
            cr_assert_eq(white, want_white, "%s", name);
            /* The start string parses back to itself. */
            qk_pos q;
            must_pos(&v, pos_str(&v, &p), &q);
            cr_assert_str_eq(pos_str(&v, &q), pos_str(&v, &p));
        }
    }
}

/* Section 1/7: only 2..12 by 2..12, canonical spelling. */
Test(section7, rejects_bad_sizes_and_names)
{
    static const char *const bad[] = {
        "alquerkonane-1x5",    "alquerkonane-13x2",
        "alquerkonane-5x1",    "alquerkonane-2x13",
        "alquerkonane-0x5",    "alquerkonane-08x8",
        "alquerkonane-8x08",   "alquerkonane-8X8",
        "alquerkonane-8x",     "alquerkonane-x8",
        "alquerkonane-8x8 ",   " alquerkonane-8x8",
        "alquerkonane-RxC",    "alquerkonane-",
        "alquerkonane",        "alquerkonane-100x2",
        "alquerkonane-+8x8",   "alquerkonane-8x8x8",
        "alquerkonane-12x123", "Alquerque",
        "alquerque-",          "",
        "alquerque\n",         "alquerque-stoep",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        qk_variant v;
        cr_assert_eq(qk_variant_parse(bad[i], &v), QK_EINVAL, "'%s'", bad[i]);
    }
    qk_variant v;
    cr_assert_eq(qk_variant_parse(NULL, &v), QK_EINVAL);
}

/* Section 1: ranks above 9 take two digits (a10); files stop at the
 * board's last letter. */
Test(section7, two_digit_ranks)
{
    qk_variant v;
    qk_pos p;
    int pt;
    char buf[8];
    must_variant("alquerkonane-12x12", &v);
    qk_variant_start(&v, &p);
    play(&v, &p, "b2-a3");
    cr_assert_str_eq(legal_str(&v, &p), "b11-a10 b11-c10 d11-c10 d11-e10 f11-e10 f11-g10 "
                                        "h11-g10 h11-i10 j11-i10 j11-k10 l11-k10");
    qk_move m;
    cr_assert_eq(qk_move_parse(&v, &p, "l11-k10", &m), QK_OK);
    cr_assert_eq(m.path[0], 10 * 12 + 11);
    cr_assert_eq(m.path[1], 9 * 12 + 10);
    cr_assert_eq(qk_move_parse(&v, &p, "b11-a1", &m), QK_EILLEGAL);
    cr_assert_eq(qk_move_parse(&v, &p, "b11-a13", &m), QK_EINVAL);
    cr_assert_eq(qk_move_parse(&v, &p, "b11-m10", &m), QK_EINVAL);
    cr_assert_eq(qk_move_parse(&v, &p, "b011-a10", &m), QK_EINVAL);
    cr_assert_eq(qk_point_parse(&v, "l12", &pt), QK_OK);
    cr_assert_eq(pt, 143);
    cr_assert_eq(qk_point_format(&v, 9 * 12, buf, sizeof buf), 3);
    cr_assert_str_eq(buf, "a10");
    cr_assert_eq(qk_point_parse(&v, "a0", &pt), QK_EINVAL);
    cr_assert_eq(qk_point_parse(&v, "a13", &pt), QK_EINVAL);
    cr_assert_eq(qk_point_parse(&v, "m1", &pt), QK_EINVAL);
    cr_assert_eq(qk_point_parse(&v, "a1 ", &pt), QK_EINVAL);
}
