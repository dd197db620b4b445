/* Hand-made positions for the Alquerque variants without Sultans:
 * RULES.md section 2 (board, lines, removal), 3 (kawu), 4 (traditional)
 * and 5 (BrainKing). Every expected list is worked out by hand from
 * RULES.md in the comment above it. Boards read rank 5 first. */
#include <criterion/criterion.h>

#include "util.h"

/* Section 2: b1 (0-based 1+0 odd) has no diagonals, so only orthogonal
 * steps: a1, c1, b2. */
Test(section2, odd_point_has_no_diagonals)
{
    expect_legal("alquerque", "....b/...../...../...../.w... w 0 -", "b1-a1 b1-b2 b1-c1");
}

/* Section 2: c3 (2+2 even) carries an X: eight neighbours. */
Test(section2, even_point_has_eight_lines)
{
    expect_legal("alquerque", "b..../...../..w../...../..... w 0 -",
                 "c3-b2 c3-b3 c3-b4 c3-c2 c3-c4 c3-d2 c3-d3 c3-d4");
}

/* Section 2: a2 is odd, so the black man on b3 (diagonally adjacent)
 * cannot be jumped: there is no line a2-b3-c4. Only steps remain. */
Test(section2, no_jump_without_a_line)
{
    expect_legal("alquerque", "...../...../.b.../w..../..... w 0 -", "a2-a1 a2-a3 a2-b2");
}

/* Section 2 (immediate removal) and section 3 (optional continuation):
 * the white man on a1 can go round the square a1-c1-c3-a3 either way,
 * capturing b1, c2, b3, a2. Each captured piece is gone at once, so the
 * man lands back on its own (lifted) start and cannot jump any of them a
 * second time; every prefix is a move of its own. */
Test(section2, immediate_removal_loop_back_to_start)
{
    expect_legal("alquerque", "...../...../.b.../b.b../wb... w 0 -",
                 "a1xa3 a1xa3xc3 a1xa3xc3xc1 a1xa3xc3xc1xa1 "
                 "a1xc1 a1xc1xc3 a1xc1xc3xa3 a1xc1xc3xa3xa1");
}

/* Sections 2 and 8: pieces are gone from the position once the move is
 * made, and the capture resets the no-capture count. */
Test(section2, captured_pieces_leave_the_board)
{
    qk_variant v;
    qk_pos p;
    must_variant("alquerque", &v);
    must_pos(&v, "....b/...../.b.../b.b../wb... w 7 -", &p);
    play(&v, &p, "a1xc1xc3xa3xa1");
    cr_assert_str_eq(pos_str(&v, &p), "....b/...../...../...../w.... b 0 -");
}

/* Section 3: capture is compulsory, the player picks which one. a1 jumps
 * b2 to c3 and c1 jumps b2 to a3; no step is legal. */
Test(section3, capture_is_compulsory)
{
    expect_legal("alquerque", "....b/...../...../.b.../w.w.. w 0 -", "a1xc3 c1xa3");
}

/* Section 3: continuing is optional, so a1xc3 and a1xc3xe5 are both
 * moves (a1 jumps b2, then c3 jumps d4). */
Test(section3, every_prefix_is_a_move)
{
    expect_legal("alquerque", "...../...b./...../.b.../w.... w 0 -", "a1xc3 a1xc3xe5");
}

/* Section 3: later jumps go in any direction, backward included (black
 * moves down the board, so jumping up is backward for it): e5 jumps d4 to
 * c3, then c2 to c1 or b3 to a3; every prefix counts. */
Test(section3, later_jumps_any_direction)
{
    expect_legal("alquerque", "....b/...w./.w.../..w../..... b 0 -", "e5xc3 e5xc3xa3 e5xc3xc1");
}

/* Section 3 and 8: 40 plies without a capture is a draw; at 39 the game
 * goes on and one more quiet step ends it. */
Test(section3, forty_quiet_plies_draw)
{
    qk_variant v;
    qk_pos p;
    qk_result res;
    qk_reason why;
    must_variant("alquerque", &v);
    must_pos(&v, "....b/...../...../...../w.... w 39 -", &p);
    cr_assert_not(qk_pos_status(&v, &p, &res, &why));
    cr_assert_eq(res, QK_RESULT_NONE);
    cr_assert_eq(why, QK_REASON_NONE);
    play(&v, &p, "a1-b2");
    cr_assert_str_eq(pos_str(&v, &p), "....b/...../...../.w.../..... b 40 -");
    cr_assert(qk_pos_status(&v, &p, &res, &why));
    cr_assert_eq(res, QK_RESULT_DRAW);
    cr_assert_eq(why, QK_REASON_MOVE_LIMIT);
    /* Finished positions have no children in perft. */
    cr_assert_eq(qk_perft(&v, &p, 1), 0);
}

/* Section 3 exception, section 8 order: at count 40 a side with no legal
 * move has lost. White's a1 is walled in by men it cannot jump (a3, c1,
 * c3 are occupied behind a2, b1, b2). */
Test(section3, no_moves_at_forty_is_a_loss)
{
    qk_variant v;
    qk_pos p;
    qk_result res;
    qk_reason why;
    must_variant("alquerque", &v);
    must_pos(&v, "...../...../b.b../bb.../wbb.. w 40 -", &p);
    cr_assert_str_eq(legal_str(&v, &p), "");
    cr_assert(qk_pos_status(&v, &p, &res, &why));
    cr_assert_eq(res, QK_RESULT_BLACK);
    cr_assert_eq(why, QK_REASON_NO_MOVES);
}

/* Section 3: no piece left loses (checked for the side to move). */
Test(section3, no_pieces_loses)
{
    qk_variant v;
    qk_pos p;
    qk_result res;
    qk_reason why;
    must_variant("alquerque", &v);
    must_pos(&v, "...../...../...../...../w.... b 3 -", &p);
    cr_assert(qk_pos_status(&v, &p, &res, &why));
    cr_assert_eq(res, QK_RESULT_WHITE);
    cr_assert_eq(why, QK_REASON_NO_PIECES);
}

/* Section 2: the two start positions and White first. */
Test(section2, start_positions)
{
    qk_variant v;
    qk_pos p;
    must_variant("alquerque", &v);
    qk_variant_start(&v, &p);
    cr_assert_str_eq(pos_str(&v, &p), "bbbbb/bbbbb/ww.bb/wwwww/wwwww w 0 -");
    const char *trad[] = {"alquerque-traditional", "alquerque-brainking", "alquerque-stoep-short",
                          "alquerque-stoep-long"};
    for (int i = 0; i < 4; i++) {
        must_variant(trad[i], &v);
        qk_variant_start(&v, &p);
        cr_assert_str_eq(pos_str(&v, &p), "bbbbb/bbbbb/bb.ww/wwwww/wwwww w 0 -", "%s", trad[i]);
    }
}

/* Section 4: capture is optional in the traditional rules: the same
 * position as capture_is_compulsory also allows every step. */
Test(section4, capture_is_optional)
{
    expect_legal("alquerque-traditional", "....b/...../...../.b.../w.w.. w 0 -",
                 "a1-a2 a1-b1 a1xc3 c1-b1 c1-c2 c1-d1 c1-d2 c1xa3");
}

/* Section 4: continuing is optional too. */
Test(section4, continuation_is_optional)
{
    expect_legal("alquerque-traditional", "...../...b./...../.b.../w.... w 0 -",
                 "a1-a2 a1-b1 a1xc3 a1xc3xe5");
}

/* Section 4 and 8: at 40 quiet plies the side with more pieces wins,
 * equal counts draw. */
Test(section4, move_limit_counts_pieces)
{
    static const struct {
        const char *pos;
        qk_result res;
    } cases[] = {
        {"....b/...../...../...../ww... w 40 -", QK_RESULT_WHITE},
        {"...bb/...../...../...../w.... w 40 -", QK_RESULT_BLACK},
        {"...bb/...../...../...../ww... b 40 -", QK_RESULT_DRAW},
    };
    qk_variant v;
    must_variant("alquerque-traditional", &v);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        qk_pos p;
        qk_result res;
        qk_reason why;
        must_pos(&v, cases[i].pos, &p);
        cr_assert(qk_pos_status(&v, &p, &res, &why), "%s", cases[i].pos);
        cr_assert_eq(res, cases[i].res, "%s", cases[i].pos);
        cr_assert_eq(why, QK_REASON_MOVE_LIMIT);
    }
}

/* Section 5: a man steps forward, diagonally forward or sideways, never
 * backward. */
Test(section5, steps_never_backward)
{
    expect_legal("alquerque-brainking", "b..../...../..w../...../..... w 0 -",
                 "c3-b3 c3-b4 c3-c4 c3-d3 c3-d4");
}

/* Section 5: the first jump goes like a step: the black man behind c3 (on
 * c2, c1 empty) cannot be jumped, the one beside it (d3) can. */
Test(section5, first_jump_not_backward)
{
    expect_legal("alquerque-brainking", "...../...../..wb./..b../..... w 0 -", "c3xe3");
}

/* Section 5: later jumps may go backward, and continuing is compulsory:
 * after c3xe3 the man must go on over e2 to e1. */
Test(section5, later_jump_backward_and_compulsory)
{
    expect_legal("alquerque-brainking", "...../...../..wb./..b.b/..... w 0 -", "c3xe3xe1");
}

/* Section 5: on the opponent's back rank a man cannot step at all. */
Test(section5, back_rank_man_cannot_step)
{
    qk_variant v;
    qk_pos p;
    qk_result res;
    qk_reason why;
    must_variant("alquerque-brainking", &v);
    must_pos(&v, "..w../...../...../...../b.... w 0 -", &p);
    cr_assert_str_eq(legal_str(&v, &p), "");
    cr_assert(qk_pos_status(&v, &p, &res, &why));
    cr_assert_eq(res, QK_RESULT_BLACK);
    cr_assert_eq(why, QK_REASON_NO_MOVES);
}

/* Section 5: from the back rank the first jump is sideways only (c4 and b4
 * below c5 cannot be jumped first), later jumps go anywhere: over d5 to e5,
 * then back down over e4 to e3. */
Test(section5, back_rank_first_jump_sideways_then_any)
{
    expect_legal("alquerque-brainking", "..wb./.bb.b/...../...../..... w 0 -", "c5xe5xe3");
}

/* Section 5: the no-return memory is written to field 4 after a sideways
 * step, forbids the step back, does not restrict other steps, and is
 * dropped when the piece moves on. Forward steps leave nothing to record
 * (the start is behind the piece). */
Test(section5, no_return_memory_in_field_4)
{
    qk_variant v;
    qk_pos p;
    must_variant("alquerque-brainking", &v);
    must_pos(&v, "....b/...../...../...../.w... w 0 -", &p);
    play(&v, &p, "b1-c1");
    cr_assert_str_eq(pos_str(&v, &p), "....b/...../...../...../..w.. b 1 c1:b1");
    play(&v, &p, "e5-d5");
    cr_assert_str_eq(pos_str(&v, &p), "...b./...../...../...../..w.. w 2 c1:b1,d5:e5");
    cr_assert_str_eq(legal_str(&v, &p), "c1-b2 c1-c2 c1-d1 c1-d2");
    play(&v, &p, "c1-c2");
    cr_assert_str_eq(pos_str(&v, &p), "...b./...../...../..w../..... b 3 d5:e5");
    /* Black's d5 may not go back to e5 but may go on to c5. */
    cr_assert_str_eq(legal_str(&v, &p), "d5-c5 d5-d4");
}

/* Section 5: the memory restricts steps only, never captures, and a
 * captured piece's memory goes with it. */
Test(section5, memory_does_not_restrict_captures)
{
    qk_variant v;
    qk_pos p;
    must_variant("alquerque-brainking", &v);
    /* White c1 came from b1; black b1 stands there now. The jump west
     * c1xa1 over b1 is legal even though it passes its old point. */
    must_pos(&v, "....b/...../...../...../.bw.. w 1 c1:b1", &p);
    cr_assert_str_eq(legal_str(&v, &p), "c1xa1");
    play(&v, &p, "c1xa1");
    cr_assert_str_eq(pos_str(&v, &p), "....b/...../...../...../w.... b 0 -");
}

/* Section 5: memory of a captured piece is removed with it and restored by
 * unmake. */
Test(section5, unmake_restores_memory)
{
    qk_variant v;
    qk_pos p;
    qk_move m;
    qk_undo u;
    const char *s = "..b../.bw../...../...../..... w 0 b4:a4";
    must_variant("alquerque-brainking", &v);
    must_pos(&v, s, &p);
    cr_assert_str_eq(legal_str(&v, &p), "c4xa4");
    cr_assert_eq(qk_move_parse(&v, &p, "c4xa4", &m), QK_OK);
    qk_pos_make(&v, &p, &m, &u);
    cr_assert_str_eq(pos_str(&v, &p), "..b../w..../...../...../..... b 0 -");
    qk_pos_unmake(&v, &p, &m, &u);
    cr_assert_str_eq(pos_str(&v, &p), s);
}
