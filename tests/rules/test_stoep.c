/* Hand-made positions for the Stoep variants, RULES.md section 6 (and the
 * section 8 checks they add). Expected lists are derived by hand in the
 * comments. Boards read rank 5 first; W/B are Sultans. */
#include <criterion/criterion.h>

#include "util.h"

static void expect_status(const char *variant, const char *pos, qk_result res, qk_reason why)
{
    qk_variant v;
    qk_pos p;
    qk_result r;
    qk_reason w;
    must_variant(variant, &v);
    must_pos(&v, pos, &p);
    cr_assert_eq(qk_pos_status(&v, &p, &r, &w), res != QK_RESULT_NONE, "%s", pos);
    cr_assert_eq(r, res, "%s", pos);
    cr_assert_eq(w, why, "%s", pos);
}

/* Section 6: men step and jump forward, diagonally forward or sideways in
 * every jump: c2 behind c3 cannot be jumped, d3 beside it can, and after
 * landing on e3 the man may not go on backward over e2 (BrainKing would,
 * see section5::later_jump_backward_and_compulsory). Capture is optional,
 * so the steps stay. */
Test(section6, men_never_backward)
{
    const char *pos = "...../...../..wb./..b.b/..... w 0 -";
    expect_legal("alquerque-stoep-short", pos, "c3-b3 c3-b4 c3-c4 c3-d4 c3xe3");
    expect_legal("alquerque-stoep-long", pos, "c3-b3 c3-b4 c3-c4 c3-d4 c3xe3");
}

/* Section 6: a man crossing the back rank mid-capture stays a man: from c5
 * it may go on sideways over d5 but not down over c4 as a Sultan could.
 * Both the stop on c5 and the longer capture are moves. */
Test(section6, promotion_only_at_end_of_move)
{
    qk_variant v;
    qk_pos p;
    const char *pos = "...b./.bb../w..../...../..... w 0 -";
    expect_legal("alquerque-stoep-short", pos, "a3-a4 a3-b3 a3xc5 a3xc5xe5");
    must_variant("alquerque-stoep-short", &v);
    must_pos(&v, pos, &p);
    play(&v, &p, "a3xc5xe5");
    /* b4 and d5 leave the board when the move ends; the man is a Sultan. */
    cr_assert_str_eq(pos_str(&v, &p), "....W/..b../...../...../..... b 0 -");
    must_pos(&v, pos, &p);
    play(&v, &p, "a3xc5");
    cr_assert_str_eq(pos_str(&v, &p), "..Wb./..b../...../...../..... b 0 -");
}

/* Section 6: a step that ends on the back rank promotes too; Black's back
 * rank is rank 1. */
Test(section6, step_onto_back_rank_promotes)
{
    qk_variant v;
    qk_pos p;
    must_variant("alquerque-stoep-long", &v);
    must_pos(&v, "w..../...../...../..b../..... b 5 -", &p);
    play(&v, &p, "c2-c1");
    cr_assert_str_eq(pos_str(&v, &p), "w..../...../...../...../..B.. w 6 -");
}

/* Section 6: a short Sultan steps one point in any direction and jumps in
 * any direction, backward included (over c2 to c1). */
Test(section6, short_sultan_moves)
{
    expect_legal("alquerque-stoep-short", "....b/...../..W../..b../..... w 0 -",
                 "c3-b2 c3-b3 c3-b4 c3-c4 c3-d2 c3-d3 c3-d4 c3xc1");
}

/* Section 6: no piece is jumped twice: after a1xc1 the Sultan could
 * otherwise jump b1 again back to a1 (its lifted start is empty). */
Test(section6, no_piece_jumped_twice)
{
    expect_legal("alquerque-stoep-short", "....b/...../...../...../Wb... w 0 -",
                 "a1-a2 a1-b2 a1xc1");
}

/* Section 6: the long Sultan slides any distance, and captures over one
 * enemy at range landing on any empty point beyond it (d4 or e5). The short
 * Sultan only steps here: c3 is not adjacent. */
Test(section6, long_sultan_slides_and_landing_choices)
{
    const char *pos = "...../...../..b../...../W.... w 0 -";
    expect_legal("alquerque-stoep-long", pos,
                 "a1-a2 a1-a3 a1-a4 a1-a5 a1-b1 a1-b2 a1-c1 a1-d1 a1-e1 a1xd4 a1xe5");
    expect_legal("alquerque-stoep-short", pos, "a1-a2 a1-b1 a1-b2");
}

/* Section 6: jumped pieces keep blocking slides until the move ends. c2
 * (no diagonals) jumps d2 to e2 or b2 to a2; from e2 the way back west is
 * closed by d2 itself, so c2xe2xa2 does not exist (it would with
 * immediate removal: d2 and the lifted c2 would be empty). */
Test(section6, jumped_pieces_block_slides)
{
    expect_legal("alquerque-stoep-long", "...../...../...../.bWb./..... w 0 -",
                 "c2-c1 c2-c3 c2-c4 c2-c5 c2xa2 c2xe2");
}

/* Section 6: jumped pieces also cut landing ranges. The Sultan on a1
 * jumps b2 to c3 (d4 stops the landing range). From c3 it may jump d4 to
 * e5 or d3 to e3 (b2, already jumped, closes the way back). Following
 * a1xc3xe3xe5, the jump back over d4 may land only on c3: b2 still stands
 * and blocks b2 and a1 (immediate removal would also allow xb2 and xa1).
 * After a1xc3xe5 the Sultan can go down over e4 to e3, e2 or e1, and from
 * e3 west over d3 to c3, b3 or a3. Capture is optional, so the slides of
 * a1 along rank 1 and file a are moves too. */
Test(section6, jumped_pieces_block_landing)
{
    expect_legal("alquerque-stoep-long", "...../...bb/...b./.b.../W.... w 0 -",
                 "a1-a2 a1-a3 a1-a4 a1-a5 a1-b1 a1-c1 a1-d1 a1-e1 "
                 "a1xc3 a1xc3xe3 a1xc3xe3xc5 a1xc3xe3xe5 a1xc3xe3xe5xc3 "
                 "a1xc3xe5 a1xc3xe5xe1 a1xc3xe5xe2 a1xc3xe5xe3 "
                 "a1xc3xe5xe3xa3 a1xc3xe5xe3xb3 a1xc3xe5xe3xc3");
}

/* Section 6 and 8.2: with no man on the board, Sultan counts that differ
 * by less than two draw at once; a difference of two plays on, and so does
 * any position with a man. */
Test(section6, sultan_majority_draw)
{
    static const char *const drawn[] = {
        "W..../...../...../...../....B w 0 -",
        "WW.../...../...../...../....B b 0 -",
        "W...W/...../...../...../B...B w 0 -",
    };
    static const char *const live[] = {
        "WWW../...../...../...../....B w 0 -",
        "WW.../...../...../...../...bB w 0 -",
        "W..../...../...w./...../....B b 0 -",
    };
    for (int i = 0; i < 3; i++) {
        expect_status("alquerque-stoep-short", drawn[i], QK_RESULT_DRAW, QK_REASON_SULTAN_MAJORITY);
        expect_status("alquerque-stoep-long", drawn[i], QK_RESULT_DRAW, QK_REASON_SULTAN_MAJORITY);
        expect_status("alquerque-stoep-long", live[i], QK_RESULT_NONE, QK_REASON_NONE);
    }
}

/* Section 6: a capture that takes the last man can end the game by the
 * Sultan majority rule; perft counts no children there. */
Test(section6, capture_of_last_man_draws)
{
    qk_variant v;
    qk_pos p;
    qk_result r;
    qk_reason w;
    must_variant("alquerque-stoep-short", &v);
    must_pos(&v, "B..../...../...../.b.../W.... w 12 -", &p);
    play(&v, &p, "a1xc3");
    cr_assert_str_eq(pos_str(&v, &p), "B..../...../..W../...../..... b 0 -");
    cr_assert(qk_pos_status(&v, &p, &r, &w));
    cr_assert_eq(r, QK_RESULT_DRAW);
    cr_assert_eq(w, QK_REASON_SULTAN_MAJORITY);
    cr_assert_eq(qk_perft(&v, &p, 2), 0);
}

/* Section 6 and 8.3: 40 quiet plies draw in both Stoep variants. */
Test(section6, forty_quiet_plies_draw)
{
    expect_status("alquerque-stoep-short", "....b/...../...../...../w.... w 40 -", QK_RESULT_DRAW,
                  QK_REASON_MOVE_LIMIT);
    expect_status("alquerque-stoep-long", "....b/...../...../...../W.... b 40 -", QK_RESULT_DRAW,
                  QK_REASON_MOVE_LIMIT);
    expect_status("alquerque-stoep-long", "....b/...../...../...../W.... b 39 -", QK_RESULT_NONE,
                  QK_REASON_NONE);
}
