/*
 * standings: hand-computed tournaments (the arithmetic is in the comment
 * above each test): a tie broken by SB, by BH, by DE and by WIN, ties
 * that stay ties, a pairing-allocated bye, a forfeit, a withdrawal in a
 * round robin (remaining games forfeited) and in a Swiss (no longer
 * paired: art. 16.3), half- and zero-point byes, pending games; the CSV
 * writer; bad input. Every figure was also re-derived with a separate
 * Python transcription of the rules in standings.h.
 *
 * Notation: pN is player N's final score; in Swiss, "dummy" is a
 * player's own final score standing in for the opponent of an unplayed
 * round (C.07 art. 16.4).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "game/standings.h"

#define W SR_WHITE_WIN
#define B SR_BLACK_WIN
#define D SR_DRAW
#define NP(a) (sizeof(a) / sizeof(a)[0])
#define ROUND(a) ((standings_round){a, NP(a)})

static const standings_player P6[] = {{1, "ann"}, {2, "bob"}, {3, "cat"},
                                      {4, "dan"}, {5, "eve"}, {6, "fay"}};

/* Expected line: id, rank, points, SB, BH, DE, WIN. */
typedef struct want {
    int id, rank;
    double pts, sb, bh, de, win;
} want;

static void check(const standings_row *got, const want *w, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        const standings_row *g = &got[k];
        cr_expect_eq(g->id, w[k].id, "line %zu: id %d, want %d", k + 1, g->id, w[k].id);
        cr_expect_eq(g->rank, w[k].rank, "id %d: rank %d, want %d", g->id, g->rank, w[k].rank);
        cr_expect_eq(g->points, w[k].pts, "id %d: points %g, want %g", g->id, g->points, w[k].pts);
        cr_expect_eq(g->tiebreak[ST_TB_SB], w[k].sb, "id %d: SB %g, want %g", g->id,
                     g->tiebreak[ST_TB_SB], w[k].sb);
        cr_expect_eq(g->tiebreak[ST_TB_BH], w[k].bh, "id %d: BH %g, want %g", g->id,
                     g->tiebreak[ST_TB_BH], w[k].bh);
        cr_expect_eq(g->tiebreak[ST_TB_DE], w[k].de, "id %d: DE %g, want %g", g->id,
                     g->tiebreak[ST_TB_DE], w[k].de);
        cr_expect_eq(g->tiebreak[ST_TB_WIN], w[k].win, "id %d: WIN %g, want %g", g->id,
                     g->tiebreak[ST_TB_WIN], w[k].win);
    }
}

Test(standings, tiebreak_names_in_order)
{
    cr_assert_str_eq(standings_tiebreak_names[0], "SB");
    cr_assert_str_eq(standings_tiebreak_names[1], "BH");
    cr_assert_str_eq(standings_tiebreak_names[2], "DE");
    cr_assert_str_eq(standings_tiebreak_names[3], "WIN");
}

/* Round robin, 4 players (Berger rounds 1-4 2-3 / 4-3 1-2 / 2-4 3-1):
 *   R1 1-4 1-0, 2-3 1/2   R2 4-3 0-1, 1-2 0-1   R3 2-4 1/2, 3-1 0-1
 * p1 = 1+0+1 = 2, p2 = 1/2+1+1/2 = 2, p3 = 1/2+1+0 = 1.5, p4 = 0+0+1/2 = .5
 * SB1 = p4 + p3 = .5 + 1.5 = 2
 * SB2 = 1/2 p3 + p1 + 1/2 p4 = .75 + 2 + .25 = 3      -> 2 ahead of 1 on SB
 * SB3 = 1/2 p2 + p4 = 1 + .5 = 1.5;  SB4 = 1/2 p2 = 1
 * BH (total 6 - own): 1: 4, 2: 4, 3: 4.5, 4: 5.5. WIN: 2, 1, 1, 0. */
Test(standings, round_robin_sb_decides)
{
    const standings_pairing r1[] = {{1, 4, W}, {2, 3, D}};
    const standings_pairing r2[] = {{4, 3, B}, {1, 2, B}};
    const standings_pairing r3[] = {{2, 4, D}, {3, 1, B}};
    const standings_round rs[] = {ROUND(r1), ROUND(r2), ROUND(r3)};
    standings_row out[4];
    cr_assert_eq(standings_compute(STANDINGS_ROUND_ROBIN, P6, 4, rs, 3, out), 0);
    const want w[] = {{2, 1, 2, 3, 4, 0, 1},
                      {1, 2, 2, 2, 4, 0, 2},
                      {3, 3, 1.5, 1.5, 4.5, 0, 1},
                      {4, 4, .5, 1, 5.5, 0, 0}};
    check(out, w, 4);
}

/* Round robin, 5 players; Berger rounds with the free round left out:
 *   R1 2-5 0-1, 3-4 1/2    (1 free)     R2 5-3 1-0, 1-2 1-0 (4 free)
 *   R3 3-1 1-0, 4-5 1-0    (2 free)     R4 1-4 0-1, 2-3 1-0 (5 free)
 *   R5 4-2 0-1, 5-1 0-1    (3 free)
 * p1 = W2 L3 L4 W5 = 2; p2 = L1 W3 W4 L5 = 2; p3 = W1 L2 =4 L5 = 1.5;
 * p4 = W1 L2 =3 W5 = 2.5; p5 = L1 W2 W3 L4 = 2.
 * SB1 = p2 + p5 = 4; SB2 = p3 + p4 = 4; SB5 = p2 + p3 = 3.5;
 * SB3 = p1 + 1/2 p4 = 3.25; SB4 = p1 + 1/2 p3 + p5 = 4.75.
 * BH = 10 - own: 8, 8, 8.5, 7.5, 8.
 * 5 is tied with 1 and 2 on points but behind on SB (3.5 < 4); 1 and 2
 * are equal on points, SB and BH: DE, 1 beat 2 -> DE1 = 1, DE2 = 0. */
Test(standings, round_robin_de_decides)
{
    const standings_pairing r1[] = {{2, 5, B}, {3, 4, D}};
    const standings_pairing r2[] = {{5, 3, W}, {1, 2, W}};
    const standings_pairing r3[] = {{3, 1, W}, {4, 5, W}};
    const standings_pairing r4[] = {{1, 4, B}, {2, 3, W}};
    const standings_pairing r5[] = {{4, 2, B}, {5, 1, B}};
    const standings_round rs[] = {ROUND(r1), ROUND(r2), ROUND(r3), ROUND(r4), ROUND(r5)};
    standings_row out[5];
    cr_assert_eq(standings_compute(STANDINGS_ROUND_ROBIN, P6, 5, rs, 5, out), 0);
    const want w[] = {{4, 1, 2.5, 4.75, 7.5, 0, 2},
                      {1, 2, 2, 4, 8, 1, 2},
                      {2, 3, 2, 4, 8, 0, 2},
                      {5, 4, 2, 3.5, 8, 0, 2},
                      {3, 5, 1.5, 3.25, 8.5, 0, 1}};
    check(out, w, 5);
}

/* The free round recorded as a pairing-allocated bye instead: every
 * player gets it once, +1 point each. In a round robin a round without an
 * opponent adds nothing to BH or SB, so BH = total 15 - own score, and
 * the order and the DE values do not change. */
Test(standings, round_robin_free_round_as_bye)
{
    const standings_pairing r1[] = {{2, 5, B}, {3, 4, D}, {1, 0, SR_BYE}};
    const standings_pairing r2[] = {{5, 3, W}, {1, 2, W}, {4, 0, SR_BYE}};
    const standings_pairing r3[] = {{3, 1, W}, {4, 5, W}, {2, 0, SR_BYE}};
    const standings_pairing r4[] = {{1, 4, B}, {2, 3, W}, {5, 0, SR_BYE}};
    const standings_pairing r5[] = {{4, 2, B}, {5, 1, B}, {3, 0, SR_BYE}};
    const standings_round rs[] = {ROUND(r1), ROUND(r2), ROUND(r3), ROUND(r4), ROUND(r5)};
    standings_row out[5];
    cr_assert_eq(standings_compute(STANDINGS_ROUND_ROBIN, P6, 5, rs, 5, out), 0);
    /* SB now uses the +1 scores: SB1 = p2 + p5 = 3 + 3 = 6;
     * SB2 = p3 + p4 = 2.5 + 3.5 = 6; SB5 = p2 + p3 = 5.5;
     * SB3 = p1 + 1/2 p4 = 3 + 1.75 = 4.75; SB4 = 3 + 1.25 + 3 = 7.25.
     * WIN counts the bye: 3, 3, 3, 3, 2. */
    const want w[] = {{4, 1, 3.5, 7.25, 11.5, 0, 3},
                      {1, 2, 3, 6, 12, 1, 3},
                      {2, 3, 3, 6, 12, 0, 3},
                      {5, 4, 3, 5.5, 12, 0, 3},
                      {3, 5, 2.5, 4.75, 12.5, 0, 2}};
    check(out, w, 5);
}

/* Round robin, 4 players, a cycle: 1 beats 2, 2 beats 3, 3 beats 1, all
 * beat 4. R1 1-2 1-0, 3-4 1-0; R2 2-3 1-0, 1-4 1-0; R3 3-1 1-0, 2-4 1-0.
 * p1 = p2 = p3 = 2, p4 = 0. SB1 = p2 + p4 = 2, SB2 = p3 = 2, SB3 = p1 = 2.
 * BH = 6 - own = 4 each. DE among 1, 2, 3 (all met): 1 each. WIN 2 each.
 * Everything equal: ranks 1, 1, 1, then 4; listed by pairing number. */
Test(standings, round_robin_tie_stays)
{
    const standings_pairing r1[] = {{1, 2, W}, {3, 4, W}};
    const standings_pairing r2[] = {{2, 3, W}, {1, 4, W}};
    const standings_pairing r3[] = {{3, 1, W}, {2, 4, W}};
    const standings_round rs[] = {ROUND(r1), ROUND(r2), ROUND(r3)};
    standings_row out[4];
    cr_assert_eq(standings_compute(STANDINGS_ROUND_ROBIN, P6, 4, rs, 3, out), 0);
    const want w[] = {
        {1, 1, 2, 2, 4, 1, 2}, {2, 1, 2, 2, 4, 1, 2}, {3, 1, 2, 2, 4, 1, 2}, {4, 4, 0, 0, 6, 0, 0}};
    check(out, w, 4);
}

/* Round robin, 4 players, all on 1.5:
 *   R1 1-2 1/2, 3-4 1-0   R2 1-3 1-0, 2-4 1/2   R3 4-1 1-0, 2-3 1/2
 * p1 = 1/2+1+0, p2 = 1/2+1/2+1/2, p3 = 1+0+1/2, p4 = 0+1/2+1: 1.5 each.
 * SB1 = 1/2 p2 + p3 = .75 + 1.5 = 2.25; SB2 = 1/2 (p1+p4+p3) = 2.25;
 * SB3 = p4 + 1/2 p2 = 2.25; SB4 = 1/2 p2 + p1 = 2.25. BH = 4.5 each.
 * DE among all four (all met) = own points = 1.5 each: still tied.
 * WIN: 1, 0, 1, 1 -> 1, 3, 4 share rank 1; 2 (no win) is 4th. */
Test(standings, round_robin_win_decides)
{
    const standings_pairing r1[] = {{1, 2, D}, {3, 4, W}};
    const standings_pairing r2[] = {{1, 3, W}, {2, 4, D}};
    const standings_pairing r3[] = {{4, 1, W}, {2, 3, D}};
    const standings_round rs[] = {ROUND(r1), ROUND(r2), ROUND(r3)};
    standings_row out[4];
    cr_assert_eq(standings_compute(STANDINGS_ROUND_ROBIN, P6, 4, rs, 3, out), 0);
    const want w[] = {{1, 1, 1.5, 2.25, 4.5, 1.5, 1},
                      {3, 1, 1.5, 2.25, 4.5, 1.5, 1},
                      {4, 1, 1.5, 2.25, 4.5, 1.5, 1},
                      {2, 4, 1.5, 2.25, 4.5, 1.5, 0}};
    check(out, w, 4);
}

/* Round robin withdrawal: 4 leaves after round 1; the remaining games
 * are forfeited, and in a round robin they count as results against 4.
 *   R1 1-4 1/2, 2-3 1-0   R2 4-3 -/+, 1-2 1/2   R3 2-4 +/-, 3-1 0-1
 * p1 = 1/2+1/2+1 = 2, p2 = 1+1/2+1 = 2.5, p3 = 0+1+0 = 1, p4 = 1/2.
 * SB1 = 1/2 p4 + 1/2 p2 + p3 = .25 + 1.25 + 1 = 2.5
 * SB2 = p3 + 1/2 p1 + p4 = 1 + 1 + .5 = 2.5
 * SB3 = p4 (forfeit win) = .5;  SB4 = 1/2 p1 = 1
 * BH = 6 - own: 4, 3.5, 5, 5.5. WIN (forfeit wins count): 1, 2, 1, 0. */
Test(standings, round_robin_withdrawal_forfeits)
{
    const standings_pairing r1[] = {{1, 4, D}, {2, 3, W}};
    const standings_pairing r2[] = {{4, 3, SR_FORFEIT_BLACK}, {1, 2, D}};
    const standings_pairing r3[] = {{2, 4, SR_FORFEIT_WHITE}, {3, 1, B}};
    const standings_round rs[] = {ROUND(r1), ROUND(r2), ROUND(r3)};
    standings_row out[4];
    cr_assert_eq(standings_compute(STANDINGS_ROUND_ROBIN, P6, 4, rs, 3, out), 0);
    const want w[] = {{2, 1, 2.5, 2.5, 3.5, 0, 2},
                      {1, 2, 2, 2.5, 4, 0, 1},
                      {3, 3, 1, .5, 5, 0, 1},
                      {4, 4, .5, 1, 5.5, 0, 0}};
    check(out, w, 4);
}

/* Swiss, 5 players, 3 rounds, a pairing-allocated bye each round and a
 * forfeit:
 *   R1 1 bye, 2-3 1-0, 4-5 0-1
 *   R2 2 bye, 4-3 0-1, 5-1 1-0
 *   R3 4 bye, 5-2 0-1, 1-3 -/+ (1 did not come: 3 wins by forfeit)
 * p1 = 1+0+0 = 1, p2 = 1+1+1 = 3, p3 = 0+1+1 = 2, p4 = 0+0+1 = 1,
 * p5 = 1+1+0 = 2. No one has an unplayed round after their last available
 * one with no opponent (1's forfeit loss has an opponent), so opponents
 * see everyone's real score.
 *   1: R1 bye dummy 1, R2 vs 5 (2), R3 forfeit dummy 1: BH 4; SB 1*1 = 1
 *   4: R1 vs 5 (2), R2 vs 3 (2), R3 bye dummy 1:        BH 5; SB 1*1 = 1
 *      -> 4 and 1 equal on points and SB: BH puts 4 ahead
 *   3: vs 2 (3) lost, vs 4 (1) won, forfeit win dummy 2: BH 6; SB 1 + 2 = 3
 *   5: vs 4 (1) won, vs 1 (1) won, vs 2 (3) lost:        BH 5; SB 1 + 1 = 2
 *      -> 3 ahead of 5 on SB
 *   2: vs 3 (2) won, bye dummy 3, vs 5 (2) won:          BH 7; SB 7
 * WIN (byes and forfeit wins count): 1, 3, 2, 1, 2. */
Test(standings, swiss_bye_forfeit_bh_decides)
{
    const standings_pairing r1[] = {{1, 0, SR_BYE}, {2, 3, W}, {4, 5, B}};
    const standings_pairing r2[] = {{2, 0, SR_BYE}, {4, 3, B}, {5, 1, W}};
    const standings_pairing r3[] = {{4, 0, SR_BYE}, {5, 2, B}, {1, 3, SR_FORFEIT_BLACK}};
    const standings_round rs[] = {ROUND(r1), ROUND(r2), ROUND(r3)};
    standings_row out[5];
    cr_assert_eq(standings_compute(STANDINGS_SWISS, P6, 5, rs, 3, out), 0);
    const want w[] = {{2, 1, 3, 7, 7, 0, 3},
                      {3, 2, 2, 3, 6, 0, 2},
                      {5, 3, 2, 2, 5, 0, 2},
                      {4, 4, 1, 1, 5, 0, 1},
                      {1, 5, 1, 1, 4, 0, 1}};
    check(out, w, 5);
}

/* Swiss withdrawal: 4 plays round 1 and is no longer paired (no entry in
 * rounds 2 and 3).
 *   R1 1-2 1-0, 3-4 1/2   R2 3-1 1-0, 2 bye   R3 1 bye, 2-3 1/2
 * p1 = 1+0+1 = 2, p2 = 0+1+1/2 = 1.5, p3 = 1/2+1+1/2 = 2, p4 = 1/2.
 * Art. 16.3: 4's last available round is 1; rounds 2 and 3 (no opponent)
 * count 1/2 each for 4's opponents: 4 is worth 1/2 + 1/2 + 1/2 = 1.5.
 *   1: vs 2 (1.5) won, vs 3 (2) lost, bye dummy 2: BH 5.5; SB 1.5 + 2 = 3.5
 *   3: vs 4 (1.5) drew, vs 1 (2) won, vs 2 (1.5) drew:
 *      BH 5; SB .75 + 2 + .75 = 3.5
 *      -> 1 and 3 equal on points and SB (without art. 16.3, 3 would have
 *         SB .25 + 2 + .75 = 3); BH puts 1 ahead although 3 beat 1.
 *   2: vs 1 (2) lost, bye dummy 1.5, vs 3 (2) drew: BH 5.5; SB 1.5 + 1 = 2.5
 *   4: vs 3 (2) drew, absent twice, dummy 1/2 each:  BH 3; SB 1
 * WIN: 1: 2 (a win and the bye), 2: 1 (bye), 3: 1, 4: 0. */
Test(standings, swiss_withdrawal_art16_3)
{
    const standings_pairing r1[] = {{1, 2, W}, {3, 4, D}};
    const standings_pairing r2[] = {{3, 1, W}, {2, 0, SR_BYE}};
    const standings_pairing r3[] = {{1, 0, SR_BYE}, {2, 3, D}};
    const standings_round rs[] = {ROUND(r1), ROUND(r2), ROUND(r3)};
    standings_row out[4];
    cr_assert_eq(standings_compute(STANDINGS_SWISS, P6, 4, rs, 3, out), 0);
    const want w[] = {{1, 1, 2, 3.5, 5.5, 0, 2},
                      {3, 2, 2, 3.5, 5, 0, 1},
                      {2, 3, 1.5, 2.5, 5.5, 0, 1},
                      {4, 4, .5, 1, 3, 0, 0}};
    check(out, w, 4);
}

/* Swiss half- and zero-point byes, requested, and art. 16.3 on a
 * trailing zero-point bye:
 *   R1 1-2 1-0, 3 half-point bye, 4-5 1/2   R2 1-4 1/2, 2-3 0-1, 5 bye
 *   R3 3-1 1/2, 4-2 1-0, 5 zero-point bye
 * p1 = 1 + 1/2 + 1/2 = 2, p2 = 0, p3 = 1/2 + 1 + 1/2 = 2,
 * p4 = 1/2 + 1/2 + 1 = 2, p5 = 1/2 + 1 + 0 = 1.5.
 * 5's last available round is 2 (the bye); round 3's zero-point bye counts
 * 1/2 for 5's opponents: 5 is worth 2. 3's half-point bye in round 1 is
 * followed by available rounds, so 3 is worth its 2.
 *   1: vs 2 (0) won, vs 4 (2) drew, vs 3 (2) drew:  BH 4; SB 0 + 1 + 1 = 2
 *   3: half bye dummy 2, vs 2 (0) won, vs 1 (2) drew:
 *      BH 4; SB 1/2*2 + 0 + 1 = 2
 *   4: vs 5 (worth 2) drew, vs 1 (2) drew, vs 2 (0) won:
 *      BH 4; SB 1 + 1 + 0 = 2
 *   -> 1, 3, 4 equal on points, SB and BH. DE: 1 drew 3 and 4, 3 and 4
 *      never met: 1 has 1 (reach 1), 3 has 1/2 (reach 1/2 + 1 = 1.5),
 *      4 has 1/2 (reach 1.5): 1's 1 does not exceed 1.5, so all three stay
 *      tied on DE (art. 6.2); WIN: 1 has 1, 3 has 1, 4 has 1: shared 1st.
 *   5: vs 4 (2) drew, bye dummy 1.5, zero bye dummy 1.5:
 *      BH 5; SB 1 + 1.5 + 0 = 2.5
 *   2: vs 1, vs 3, vs 4 (2 each) lost: BH 6, SB 0. */
Test(standings, swiss_half_zero_byes_de_partial)
{
    const standings_pairing r1[] = {{1, 2, W}, {3, 0, SR_HALF_BYE}, {4, 5, D}};
    const standings_pairing r2[] = {{1, 4, D}, {2, 3, B}, {5, 0, SR_BYE}};
    const standings_pairing r3[] = {{3, 1, D}, {4, 2, W}, {5, 0, SR_ZERO_BYE}};
    const standings_round rs[] = {ROUND(r1), ROUND(r2), ROUND(r3)};
    standings_row out[5];
    cr_assert_eq(standings_compute(STANDINGS_SWISS, P6, 5, rs, 3, out), 0);
    const want w[] = {{1, 1, 2, 2, 4, 1, 1},
                      {3, 1, 2, 2, 4, .5, 1},
                      {4, 1, 2, 2, 4, .5, 1},
                      {5, 4, 1.5, 2.5, 5, 0, 1},
                      {2, 5, 0, 0, 6, 0, 0}};
    check(out, w, 5);
}

/* Swiss, 7 players, 3 rounds; DE separates a leader among players who
 * have not all met (art. 6.2), the rest stay tied:
 *   R1 6 bye, 5-3 +/- (forfeit), 7-4 0-1, 1-2 0-1
 *   R2 7 bye, 1-6 0-1, 2-3 0-1, 5-4 0-1
 *   R3 5 bye, 2-4 1-0, 7-1 +/- (forfeit), 6-3 1/2
 * p1 = 0, p2 = 1+0+1 = 2, p3 = 0+1+1/2 = 1.5, p4 = 1+1+0 = 2,
 * p5 = 1+0+1 = 2, p6 = 1+1+1/2 = 2.5, p7 = 0+1+1 = 2. No art. 16.3
 * adjustment (the only trailing VUR, 1's forfeit loss, has an opponent).
 *   4: vs 7 (2) W, vs 5 (2) W, vs 2 (2) L:          BH 6, SB 4
 *   5: forfeit W dummy 2, vs 4 (2) L, bye dummy 2:  BH 6, SB 2 + 2 = 4
 *   7: vs 4 (2) L, bye dummy 2, forfeit W dummy 2:  BH 6, SB 4
 *   2: vs 1 (0) W, vs 3 (1.5) L, vs 4 (2) W:        BH 3.5, SB 2
 *   3: forfeit L dummy 1.5, vs 2 (2) W, vs 6 (2.5) D: BH 6, SB 2 + 1.25
 *   6: bye dummy 2.5, vs 1 (0) W, vs 3 (1.5) D:     BH 4, SB 2.5 + .75
 *   1: vs 2 (2), vs 6 (2.5), forfeit L dummy 0:     BH 4.5, SB 0
 * 4, 5, 7 tie on 2 / SB 4 / BH 6. DE: 4 beat both (2, all met); 5 and 7
 * met only 4 (0 each, could reach 0 + 1 = 1): 2 > 1, so 4 is ahead. DE
 * again on {5, 7}: never met, 0 each, reach 1: tied; WIN 2 each (a
 * forfeit win and a bye): shared 3rd. */
Test(standings, swiss_de_separates_leader)
{
    const standings_pairing r1[] = {{6, 0, SR_BYE}, {5, 3, SR_FORFEIT_WHITE}, {7, 4, B}, {1, 2, B}};
    const standings_pairing r2[] = {{7, 0, SR_BYE}, {1, 6, B}, {2, 3, B}, {5, 4, B}};
    const standings_pairing r3[] = {{5, 0, SR_BYE}, {2, 4, W}, {7, 1, SR_FORFEIT_WHITE}, {6, 3, D}};
    const standings_round rs[] = {ROUND(r1), ROUND(r2), ROUND(r3)};
    const standings_player pl[] = {{1, "a"}, {2, "b"}, {3, "c"}, {4, "d"},
                                   {5, "e"}, {6, "f"}, {7, "g"}};
    standings_row out[7];
    cr_assert_eq(standings_compute(STANDINGS_SWISS, pl, 7, rs, 3, out), 0);
    const want w[] = {{6, 1, 2.5, 3.25, 4, 0, 2}, {4, 2, 2, 4, 6, 2, 2},
                      {5, 3, 2, 4, 6, 0, 2},      {7, 3, 2, 4, 6, 0, 2},
                      {2, 5, 2, 2, 3.5, 0, 2},    {3, 6, 1.5, 3.25, 6, 0, 1},
                      {1, 7, 0, 0, 4.5, 0, 0}};
    check(out, w, 7);
}

/* Round robin, 6 players (Berger): DE splits a group of four into two
 * pairs and is applied again inside each pair.
 *   R1 1-6 0-1, 2-5 0-1, 3-4 1/2    R2 6-4 1/2, 5-3 1-0, 1-2 1/2
 *   R3 2-6 1-0, 3-1 1/2, 4-5 1/2    R4 6-5 1/2, 1-4 0-1, 2-3 0-1
 *   R5 3-6 1/2, 4-2 0-1, 5-1 0-1
 * p1 = 1/2 (2) + 1/2 (3) + 0 (4) + 1 (5) + 0 (6) = 2
 * p2 = 1/2 + 0 (3) + 1 (4) + 0 (5) + 1 (6) = 2.5
 * p3 = 1/2 + 1 (2) + 1/2 + 0 (5) + 1/2 = 2.5
 * p4 = 1 (1) + 0 (2) + 1/2 + 1/2 + 1/2 = 2.5
 * p5 = 0 (1) + 1 (2) + 1 (3) + 1/2 + 1/2 = 3
 * p6 = 1 (1) + 0 (2) + 1/2 + 1/2 + 1/2 = 2.5;   BH = 15 - own.
 * SB2 = 1/2 p1 + p4 + p6 = 1 + 2.5 + 2.5 = 6
 * SB3 = 1/2 p1 + p2 + 1/2 p4 + 1/2 p6 = 1 + 2.5 + 1.25 + 1.25 = 6
 * SB4 = p1 + 1/2 (p3 + p5 + p6) = 2 + 1.25 + 1.5 + 1.25 = 6
 * SB6 = p1 + 1/2 (p3 + p4 + p5) = 6;  SB1 = 1/2 (p2 + p3) + p5 = 5.5;
 * SB5 = p2 + p3 + 1/2 (p4 + p6) = 7.5.
 * 2, 3, 4, 6 tie on 2.5 / 6 / 12.5. DE among them: 2: 0 + 1 + 1 = 2,
 * 3: 1 + 1/2 + 1/2 = 2, 4: 0 + 1/2 + 1/2 = 1, 6: 0 + 1/2 + 1/2 = 1.
 * Again on {2, 3}: 3 beat 2, so 3 is ahead (although 2 has more wins);
 * again on {4, 6}: drew, tied; WIN 1 each: shared 4th. */
Test(standings, round_robin_de_applied_again)
{
    const standings_pairing r1[] = {{1, 6, B}, {2, 5, B}, {3, 4, D}};
    const standings_pairing r2[] = {{6, 4, D}, {5, 3, W}, {1, 2, D}};
    const standings_pairing r3[] = {{2, 6, W}, {3, 1, D}, {4, 5, D}};
    const standings_pairing r4[] = {{6, 5, D}, {1, 4, B}, {2, 3, B}};
    const standings_pairing r5[] = {{3, 6, D}, {4, 2, B}, {5, 1, B}};
    const standings_round rs[] = {ROUND(r1), ROUND(r2), ROUND(r3), ROUND(r4), ROUND(r5)};
    standings_row out[6];
    cr_assert_eq(standings_compute(STANDINGS_ROUND_ROBIN, P6, 6, rs, 5, out), 0);
    const want w[] = {{5, 1, 3, 7.5, 12, 0, 2},   {3, 2, 2.5, 6, 12.5, 2, 1},
                      {2, 3, 2.5, 6, 12.5, 2, 2}, {4, 4, 2.5, 6, 12.5, 1, 1},
                      {6, 4, 2.5, 6, 12.5, 1, 1}, {1, 6, 2, 5.5, 13, 0, 1}};
    check(out, w, 6);
}

/* Swiss, 6 players, round 1 only: 1-2 1-0, 3-4 1-0, 5-6 1/2.
 * SB: 1: 1*p2 = 0, 3: 0; BH: 1: p2 = 0, 3: p4 = 0. 1 and 3 never met:
 * DE 0 each, reach 1 each: tied; WIN 1 each: shared rank 1.
 * 5 and 6: SB 1/2*1/2 = .25, BH .5, DE (met, drew) 1/2 each, WIN 0:
 * shared rank 3. 2 and 4: 0 everywhere except BH 1: shared rank 5. */
Test(standings, swiss_tie_stays_unmet)
{
    const standings_pairing r1[] = {{1, 2, W}, {3, 4, W}, {5, 6, D}};
    const standings_round rs[] = {ROUND(r1)};
    standings_row out[6];
    cr_assert_eq(standings_compute(STANDINGS_SWISS, P6, 6, rs, 1, out), 0);
    const want w[] = {{1, 1, 1, 0, 0, 0, 1},      {3, 1, 1, 0, 0, 0, 1}, {5, 3, .5, .25, .5, .5, 0},
                      {6, 3, .5, .25, .5, .5, 0}, {2, 5, 0, 0, 1, 0, 0}, {4, 5, 0, 0, 1, 0, 0}};
    check(out, w, 6);
}

/* A result set by hand is given as the ordinary result and counts as
 * played; a pending game counts for nothing yet. Swiss, round 1
 * 1-2 1-0 (set by hand), round 2 1-3 pending, 2 bye:
 * p1 = 1, p2 = 1, p3 = 0. 1: vs 2 (1): BH 1, SB 1; round 2 pending:
 * nothing. 2: vs 1 (1) lost, bye dummy 1: BH 2, SB 1. 3: round 1 no
 * entry (joined late): dummy 0; BH 0, SB 0. Rank: 2 (BH 2), 1, 3. */
Test(standings, swiss_pending_and_late_join)
{
    const standings_pairing r1[] = {{1, 2, W}};
    const standings_pairing r2[] = {{1, 3, SR_PENDING}, {2, 0, SR_BYE}};
    const standings_round rs[] = {ROUND(r1), ROUND(r2)};
    standings_row out[3];
    cr_assert_eq(standings_compute(STANDINGS_SWISS, P6, 3, rs, 2, out), 0);
    const want w[] = {{2, 1, 1, 1, 2, 0, 1}, {1, 2, 1, 1, 1, 0, 1}, {3, 3, 0, 0, 0, 0, 0}};
    check(out, w, 3);
}

/* Double forfeit: both lose, neither played. Swiss, 2 players, 1 round:
 * p1 = p2 = 0; each has a dummy of 0: everything 0, shared rank 1. */
Test(standings, double_forfeit)
{
    const standings_pairing r1[] = {{1, 2, SR_DOUBLE_FORFEIT}};
    const standings_round rs[] = {ROUND(r1)};
    standings_row out[2];
    cr_assert_eq(standings_compute(STANDINGS_SWISS, P6, 2, rs, 1, out), 0);
    const want w[] = {{1, 1, 0, 0, 0, 0, 0}, {2, 1, 0, 0, 0, 0, 0}};
    check(out, w, 2);
}

Test(standings, empty_inputs)
{
    standings_row out[2];
    cr_assert_eq(standings_compute(STANDINGS_SWISS, NULL, 0, NULL, 0, NULL), 0);
    /* Players, no rounds yet: all 0, all share rank 1, by pairing number. */
    const standings_player pl[] = {{7, "x"}, {3, "y"}};
    cr_assert_eq(standings_compute(STANDINGS_ROUND_ROBIN, pl, 2, NULL, 0, out), 0);
    const want w[] = {{3, 1, 0, 0, 0, 0, 0}, {7, 1, 0, 0, 0, 0, 0}};
    check(out, w, 2);
}

Test(standings, bad_input)
{
    standings_row out[3] = {{.id = 99}};
    const standings_pairing ok[] = {{1, 2, W}};
    const standings_round rs_ok[] = {ROUND(ok)};
    const standings_player dup[] = {{1, "a"}, {1, "b"}};
    const standings_player zero[] = {{0, "a"}, {1, "b"}};
    cr_assert_eq(standings_compute(STANDINGS_SWISS, dup, 2, rs_ok, 1, out), STANDINGS_EINVAL);
    cr_assert_eq(standings_compute(STANDINGS_SWISS, zero, 2, rs_ok, 1, out), STANDINGS_EINVAL);
    cr_assert_eq(standings_compute((standings_system)7, P6, 3, rs_ok, 1, out), STANDINGS_EINVAL);
    cr_assert_eq(standings_compute(STANDINGS_SWISS, P6, 3, NULL, 1, out), STANDINGS_EINVAL);

    const standings_pairing unknown[] = {{1, 9, W}};
    const standings_pairing twice[] = {{1, 2, W}, {3, 1, D}};
    const standings_pairing self[] = {{1, 1, W}};
    const standings_pairing bye_black[] = {{1, 2, SR_BYE}};
    const standings_pairing game_no_black[] = {{1, 0, W}};
    const standings_pairing bad_result[] = {{1, 2, (standings_result)42}};
    const standings_pairing bye_and_game[] = {{3, 0, SR_BYE}, {3, 2, D}};
    const standings_pairing *bad[] = {unknown,       twice,      self,        bye_black,
                                      game_no_black, bad_result, bye_and_game};
    const size_t badn[] = {1, 2, 1, 1, 1, 1, 2};
    for (size_t k = 0; k < NP(bad); k++) {
        const standings_round rs[] = {{bad[k], badn[k]}};
        cr_expect_eq(standings_compute(STANDINGS_SWISS, P6, 3, rs, 1, out), STANDINGS_EINVAL,
                     "case %zu", k);
    }
    const standings_round null_pairings[] = {{NULL, 1}};
    cr_assert_eq(standings_compute(STANDINGS_SWISS, P6, 3, null_pairings, 1, out),
                 STANDINGS_EINVAL);
    cr_assert_eq(out[0].id, 99, "out untouched on error");
}

/* CSV of round_robin_sb_decides (values above). */
static const char SB_CSV[] = "rank,username,points,SB,BH,DE,WIN\r\n"
                             "1,bob,2,3,4,0,1\r\n"
                             "2,ann,2,2,4,0,2\r\n"
                             "3,cat,1.5,1.5,4.5,0,1\r\n"
                             "4,dan,0.5,1,5.5,0,0\r\n";

static void sb_rows(standings_row *out)
{
    const standings_pairing r1[] = {{1, 4, W}, {2, 3, D}};
    const standings_pairing r2[] = {{4, 3, B}, {1, 2, B}};
    const standings_pairing r3[] = {{2, 4, D}, {3, 1, B}};
    const standings_round rs[] = {ROUND(r1), ROUND(r2), ROUND(r3)};
    cr_assert_eq(standings_compute(STANDINGS_ROUND_ROBIN, P6, 4, rs, 3, out), 0);
}

Test(standings, csv_into_buffer)
{
    standings_row rows[4];
    sb_rows(rows);
    char buf[256];
    size_t len = 0;
    cr_assert_eq(standings_csv(rows, 4, P6, 6, buf, sizeof buf, &len), 0);
    cr_assert_str_eq(buf, SB_CSV);
    cr_assert_eq(len, strlen(SB_CSV));

    /* Measuring, then an exact fit (len + 1 for the NUL). */
    size_t need = 0;
    cr_assert_eq(standings_csv(rows, 4, P6, 6, NULL, 0, &need), STANDINGS_ENOSPC);
    cr_assert_eq(need, strlen(SB_CSV));
    char *exact = malloc(need + 1);
    cr_assert_eq(standings_csv(rows, 4, P6, 6, exact, need + 1, &len), 0);
    cr_assert_str_eq(exact, SB_CSV);
    /* One byte short: truncated, NUL-terminated, ENOSPC with the need. */
    cr_assert_eq(standings_csv(rows, 4, P6, 6, exact, need, &len), STANDINGS_ENOSPC);
    cr_assert_eq(len, need);
    cr_assert_eq(strlen(exact), need - 1);
    cr_assert_eq(strncmp(exact, SB_CSV, need - 1), 0);
    free(exact);
}

Test(standings, csv_alloc)
{
    standings_row rows[4];
    sb_rows(rows);
    char *s = NULL;
    size_t len = 0;
    cr_assert_eq(standings_csv_alloc(rows, 4, P6, 6, &s, &len), 0);
    cr_assert_str_eq(s, SB_CSV);
    cr_assert_eq(len, strlen(SB_CSV));
    free(s);
}

/* Quoting: comma, quote and newline quoted (quotes doubled); a leading
 * - = + @ is neutralised with ' inside quotes; NULL or unknown username
 * is an empty field; quarter points print with two decimals. */
Test(standings, csv_quoting)
{
    const standings_player pl[] = {{1, "a,b"},  {2, "say \"hi\""}, {3, "-x"},
                                   {4, "=1+1"}, {5, NULL},         {6, "li\nne"}};
    standings_row rows[7] = {0};
    for (int k = 0; k < 7; k++) {
        rows[k].id = k + 1;
        rows[k].rank = k + 1;
    }
    rows[0].tiebreak[ST_TB_SB] = 6.25;
    rows[0].points = 3.5;
    char *s = NULL;
    cr_assert_eq(standings_csv_alloc(rows, 7, pl, 6, &s, NULL), 0);
    cr_assert_str_eq(s, "rank,username,points,SB,BH,DE,WIN\r\n"
                        "1,\"a,b\",3.5,6.25,0,0,0\r\n"
                        "2,\"say \"\"hi\"\"\",0,0,0,0,0\r\n"
                        "3,\"'-x\",0,0,0,0,0\r\n"
                        "4,\"'=1+1\",0,0,0,0,0\r\n"
                        "5,,0,0,0,0,0\r\n"
                        "6,\"li\nne\",0,0,0,0,0\r\n"
                        "7,,0,0,0,0,0\r\n");
    free(s);
}

/* Random tournaments of every entry kind (fixed-seed LCG): no crash
 * under ASan/UBSan, every player once, best first, ranks consistent with
 * the values, points adding up to what the entries hand out. */
static unsigned lcg(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 16) & 0x7fff;
}

Test(standings, random_tournaments_are_consistent)
{
    unsigned seed = 20261201;
    for (int t = 0; t < 300; t++) {
        size_t np = 1 + lcg(&seed) % 12, nr = lcg(&seed) % 8;
        standings_player pl[12];
        for (size_t i = 0; i < np; i++)
            pl[i] = (standings_player){(int)(100 - 7 * i), "p"};
        standings_pairing pr[8][12];
        standings_round rs[8];
        double total = 0;
        for (size_t r = 0; r < nr; r++) {
            int perm[12];
            for (size_t i = 0; i < np; i++)
                perm[i] = pl[i].id;
            for (size_t i = np; i > 1; i--) {
                size_t j = lcg(&seed) % i;
                int x = perm[i - 1];
                perm[i - 1] = perm[j];
                perm[j] = x;
            }
            size_t n = 0, i = 0;
            while (i < np) {
                unsigned roll = lcg(&seed) % 16;
                if (roll == 0) { /* absent this round */
                    i++;
                    continue;
                }
                if (i + 1 == np || roll < 3) {
                    standings_result k = roll % 3 == 0   ? SR_BYE
                                         : roll % 3 == 1 ? SR_HALF_BYE
                                                         : SR_ZERO_BYE;
                    pr[r][n++] = (standings_pairing){perm[i++], 0, k};
                    total += k == SR_BYE ? 1 : k == SR_HALF_BYE ? 0.5 : 0;
                    continue;
                }
                standings_result k = (standings_result)(lcg(&seed) % 7);
                if (k == SR_BYE) /* 6: reuse as pending */
                    k = SR_PENDING;
                pr[r][n++] = (standings_pairing){perm[i], perm[i + 1], k};
                total += k <= SR_DRAW ? 1 : k == SR_DOUBLE_FORFEIT || k == SR_PENDING ? 0 : 1;
                i += 2;
            }
            rs[r] = (standings_round){pr[r], n};
        }
        standings_system sys = t % 2 ? STANDINGS_SWISS : STANDINGS_ROUND_ROBIN;
        standings_row out[12];
        cr_assert_eq(standings_compute(sys, pl, np, rs, nr, out), 0, "tournament %d", t);
        double sum = 0;
        bool seen[101] = {false};
        for (size_t k = 0; k < np; k++) {
            cr_assert(out[k].id > 0 && out[k].id <= 100 && !seen[out[k].id]);
            seen[out[k].id] = true;
            sum += out[k].points;
            if (k == 0) {
                cr_assert_eq(out[k].rank, 1);
                continue;
            }
            const standings_row *a = &out[k - 1], *b = &out[k];
            cr_assert(a->points >= b->points, "tournament %d: not best first", t);
            bool same = a->points == b->points;
            for (int x = 0; x < STANDINGS_NTIEBREAKS; x++)
                if (x != ST_TB_DE && a->tiebreak[x] != b->tiebreak[x])
                    same = false;
            if (b->rank == a->rank) {
                cr_assert(same, "tournament %d: shared rank with different values", t);
                cr_assert(a->id < b->id, "tournament %d: shared rank not by number", t);
            } else {
                cr_assert_eq(b->rank, (int)k + 1, "tournament %d", t);
            }
        }
        cr_assert_eq(sum, total, "tournament %d: points %g, handed out %g", t, sum, total);
        char *csv = NULL;
        cr_assert_eq(standings_csv_alloc(out, np, pl, np, &csv, NULL), 0);
        free(csv);
    }
}
