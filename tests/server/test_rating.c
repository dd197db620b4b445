/*
 * rating: Glicko-2 against Glickman's worked example ("Example of the
 * Glicko-2 system", 2022 revision) and PROTOCOL.md's example; draws
 * between equals; the inactivity step (step 6) against hand-computed
 * values and its cap; bad input. Pure functions: no server is started.
 *
 * The paper's printed results are computed from intermediates it rounds
 * to four digits (mu' = -0.2069, phi' = 0.8722); in full double precision
 * the same steps give r' = 1464.0507, RD' = 151.5165, sigma' = 0.0599960
 * (checked with an independent Python transcription of steps 1-8). The
 * tests pin both: the paper's figures to within one unit of its last
 * printed digit, and the full-precision values tightly.
 */
#include <criterion/criterion.h>
#include <math.h>

#include "game/rating.h"

static void near(double got, double want, double tol, const char *what)
{
    cr_assert(fabs(got - want) <= tol, "%s: got %.7f, want %.7f (+-%g)", what, got, want, tol);
}

Test(rating, init_is_protocol_start)
{
    rating r;
    rating_init(&r);
    cr_assert_eq(r.rating, 1500.0);
    cr_assert_eq(r.rd, 350.0);
    cr_assert_eq(r.volatility, 0.06);
    cr_assert_eq(r.games, 0);
    cr_assert(rating_provisional(&r));
}

/* Paper, "Example calculation": 1500 / RD 200 / sigma 0.06 beats 1400/30,
 * loses to 1550/100 and to 1700/300; tau 0.5 -> 1464.06 / 151.52 /
 * 0.05999. */
Test(rating, paper_worked_example)
{
    rating before = {1500, 200, 0.06, 7}, after;
    rating_game games[] = {{1400, 30, 1}, {1550, 100, 0}, {1700, 300, 0}};
    cr_assert_eq(rating_update(&before, games, 3, &after), 0);
    near(after.rating, 1464.06, 0.01, "r' (paper)");
    near(after.rd, 151.52, 0.005, "RD' (paper, 2 decimals)");
    near(after.volatility, 0.05999, 0.00001, "sigma' (paper)");
    near(after.rating, 1464.0507, 0.0001, "r' (full precision)");
    near(after.rd, 151.5165, 0.0001, "RD' (full precision)");
    near(after.volatility, 0.0599960, 0.0000001, "sigma' (full precision)");
    cr_assert_eq(after.games, 10);
    /* The input is untouched; the output may alias it. */
    cr_assert_eq(before.rating, 1500);
    cr_assert_eq(rating_update(&before, games, 3, &before), 0);
    cr_assert_eq(before.rating, after.rating);
    cr_assert_eq(before.rd, after.rd);
    cr_assert_eq(before.volatility, after.volatility);
}

/* Order of the games within a period does not matter (a sum). */
Test(rating, period_games_commute)
{
    rating before = {1500, 200, 0.06, 0}, a, b;
    rating_game g1[] = {{1400, 30, 1}, {1550, 100, 0}, {1700, 300, 0}};
    rating_game g2[] = {{1700, 300, 0}, {1400, 30, 1}, {1550, 100, 0}};
    cr_assert_eq(rating_update(&before, g1, 3, &a), 0);
    cr_assert_eq(rating_update(&before, g2, 3, &b), 0);
    near(a.rating, b.rating, 1e-9, "r'");
    near(a.rd, b.rd, 1e-9, "RD'");
}

/* PROTOCOL.md "Ratings": two new players, White wins: White 1662.31
 * (RD 290.32), Black 1337.69 (RD 290.32). */
Test(rating, protocol_example_white_wins)
{
    rating w, b, w2, b2;
    rating_init(&w);
    rating_init(&b);
    cr_assert_eq(rating_game_update(&w, &b, 1.0, &w2, &b2), 0);
    near(w2.rating, 1662.31, 0.005, "White r'");
    near(w2.rd, 290.32, 0.005, "White RD'");
    near(b2.rating, 1337.69, 0.005, "Black r'");
    near(b2.rd, 290.32, 0.005, "Black RD'");
    cr_assert_eq(w2.games, 1);
    cr_assert_eq(b2.games, 1);
    /* Symmetric: the gains and losses mirror each other around 1500. */
    near(w2.rating - 1500, 1500 - b2.rating, 1e-9, "symmetry");
    cr_assert(rating_provisional(&w2));
    /* The volatility barely moves on one expected-ish result. */
    near(w2.volatility, 0.06, 0.0001, "White sigma'");
}

/* Black wins is the mirror image; both sides come from the pre-game
 * values even when the outputs alias the inputs. */
Test(rating, black_wins_in_place)
{
    rating w, b;
    rating_init(&w);
    rating_init(&b);
    cr_assert_eq(rating_game_update(&w, &b, 0.0, &w, &b), 0);
    near(w.rating, 1337.69, 0.005, "White r'");
    near(b.rating, 1662.31, 0.005, "Black r'");
    near(w.rd, 290.32, 0.005, "White RD'");
    near(b.rd, 290.32, 0.005, "Black RD'");
}

/* A draw between equals: both ratings stay 1500 and stay equal; both RDs
 * shrink alike (350 -> 290.32: with E = 0.5 the RD drop does not depend
 * on the result). */
Test(rating, draw_between_equals)
{
    rating w = {1500, 350, 0.06, 0}, b = w, w2, b2;
    cr_assert_eq(rating_game_update(&w, &b, 0.5, &w2, &b2), 0);
    near(w2.rating, 1500.0, 1e-9, "White r'");
    near(b2.rating, 1500.0, 1e-9, "Black r'");
    cr_assert_eq(w2.rating, b2.rating);
    cr_assert_eq(w2.rd, b2.rd);
    near(w2.rd, 290.32, 0.005, "RD'");

    /* Established equals too: 1800/60 vs 1800/60. One game tells less
     * than step 6's growth adds here: RD 60 -> 60.0153 (Python
     * transcription of steps 1-8). */
    rating x = {1800, 60, 0.06, 40}, y = x, x2, y2;
    cr_assert_eq(rating_game_update(&x, &y, 0.5, &x2, &y2), 0);
    near(x2.rating, 1800.0, 1e-9, "x r'");
    cr_assert_eq(x2.rating, y2.rating);
    cr_assert_eq(x2.rd, y2.rd);
    near(x2.rd, 60.0153, 0.0001, "x RD'");
}

/* A draw against a weaker opponent costs rating; the stronger player's
 * RD drops little, the new player's a lot (Python transcription of steps
 * 1-8: 1700/80 vs 1500/350 draw -> 1695.49 RD 79.85; the new player
 * -> 1601.33 RD 267.81). */
Test(rating, draw_unequal)
{
    rating s = {1700, 80, 0.06, 30}, n, s2, n2;
    rating_init(&n);
    cr_assert_eq(rating_game_update(&s, &n, 0.5, &s2, &n2), 0);
    near(s2.rating, 1695.49, 0.005, "strong r'");
    near(s2.rd, 79.85, 0.005, "strong RD'");
    near(n2.rating, 1601.33, 0.005, "new r'");
    near(n2.rd, 267.81, 0.005, "new RD'");
    cr_assert_not(rating_provisional(&s2));
    cr_assert(rating_provisional(&n2));
}

/* Step 6 alone, one period per day: RD 50, sigma 0.06, 10 days.
 *   phi   = 50 / 173.7178              = 0.2878235
 *   phi^2                              = 0.0828424
 *   + 10 * 0.06^2 = + 0.036            = 0.1188424
 *   phi'  = sqrt(0.1188424)            = 0.3447353
 *   RD'   = 0.3447353 * 173.7178       = 59.8866
 * One day: sqrt(0.0828424 + 0.0036) * 173.7178 = 51.0749. */
Test(rating, inactivity_grows_rd)
{
    rating r = {1620, 50, 0.06, 12}, out;
    cr_assert_eq(rating_inactivity(&r, 10, &out), 0);
    near(out.rd, 59.8866, 0.0001, "RD' after 10 days");
    cr_assert_eq(out.rating, 1620);
    cr_assert_eq(out.volatility, 0.06);
    cr_assert_eq(out.games, 12);

    cr_assert_eq(rating_inactivity(&r, 1, &out), 0);
    near(out.rd, 51.0749, 0.0001, "RD' after 1 day");

    /* Ten one-day steps are the same as one ten-day step. */
    rating step = r;
    for (int i = 0; i < 10; i++)
        cr_assert_eq(rating_inactivity(&step, 1, &step), 0);
    near(step.rd, 59.8866, 0.0001, "RD' after 10 x 1 day");

    /* Zero days: nothing changes. */
    cr_assert_eq(rating_inactivity(&r, 0, &out), 0);
    cr_assert_eq(out.rd, 50);
}

/* The cap: from RD 50 at sigma 0.06, RD reaches 350 after
 * (350^2 - 50^2) / (0.06 * 173.7178)^2 = 120000 / 108.6416 = 1104.5 days:
 * 1104 days give 349.913, 1105 days would give 350.03 and are capped. */
Test(rating, inactivity_caps_at_350)
{
    rating r = {1500, 50, 0.06, 3}, out;
    cr_assert_eq(rating_inactivity(&r, 1104, &out), 0);
    near(out.rd, 349.9128, 0.0001, "RD' after 1104 days");
    cr_assert_eq(rating_inactivity(&r, 1105, &out), 0);
    cr_assert_eq(out.rd, 350.0);
    cr_assert_eq(rating_inactivity(&r, 1000000000, &out), 0);
    cr_assert_eq(out.rd, 350.0);
    rating fresh, f2;
    rating_init(&fresh);
    cr_assert_eq(rating_inactivity(&fresh, 30, &f2), 0);
    cr_assert_eq(f2.rd, 350.0);
}

/* Paper: "if a player does not compete during the rating period, then
 * only Step 6 applies": an update with no games is one day's step 6. */
Test(rating, empty_period_is_step6)
{
    rating r = {1620, 50, 0.06, 12}, out;
    cr_assert_eq(rating_update(&r, NULL, 0, &out), 0);
    near(out.rd, 51.0749, 0.0001, "RD'");
    cr_assert_eq(out.rating, 1620);
    cr_assert_eq(out.games, 12);
}

/* An upset moves the volatility up, a long run of expected results down
 * (step 5's direction; no exact figure claimed). */
Test(rating, volatility_direction)
{
    rating low = {1200, 50, 0.06, 100}, out;
    rating_game upset[] = {{2000, 50, 1}, {2000, 50, 1}, {2000, 50, 1}};
    cr_assert_eq(rating_update(&low, upset, 3, &out), 0);
    cr_assert(out.volatility > 0.06, "sigma' %.6f", out.volatility);
    cr_assert(out.rating > 1200);

    rating mid = {1500, 50, 0.06, 100};
    rating_game dull[] = {{1500, 50, 0.5}, {1500, 50, 0.5}, {1500, 50, 0.5}};
    cr_assert_eq(rating_update(&mid, dull, 3, &out), 0);
    cr_assert(out.volatility < 0.06, "sigma' %.6f", out.volatility);
}

Test(rating, provisional_threshold)
{
    rating r = {1500, 110.0, 0.06, 9};
    cr_assert_not(rating_provisional(&r));
    r.rd = 110.01;
    cr_assert(rating_provisional(&r));
}

Test(rating, bad_input_writes_nothing)
{
    rating ok = {1500, 200, 0.06, 0};
    rating out = {1, 2, 3, 4};
    rating_game bad_score = {1500, 100, 0.7};
    rating_game bad_rd = {1500, 0, 1};
    rating_game bad_r = {NAN, 100, 1};
    cr_assert_eq(rating_update(&ok, &bad_score, 1, &out), RATING_EINVAL);
    cr_assert_eq(rating_update(&ok, &bad_rd, 1, &out), RATING_EINVAL);
    cr_assert_eq(rating_update(&ok, &bad_r, 1, &out), RATING_EINVAL);
    cr_assert_eq(rating_update(&ok, NULL, 2, &out), RATING_EINVAL);
    rating neg = {1500, -5, 0.06, 0}, zvol = {1500, 100, 0, 0}, inf = {INFINITY, 100, 0.06, 0};
    rating_game g = {1500, 100, 1};
    cr_assert_eq(rating_update(&neg, &g, 1, &out), RATING_EINVAL);
    cr_assert_eq(rating_update(&zvol, &g, 1, &out), RATING_EINVAL);
    cr_assert_eq(rating_update(&inf, &g, 1, &out), RATING_EINVAL);
    cr_assert_eq(rating_game_update(&ok, &ok, 2.0, &out, &out), RATING_EINVAL);
    cr_assert_eq(rating_game_update(&ok, &neg, 1.0, &out, &out), RATING_EINVAL);
    cr_assert_eq(rating_inactivity(&ok, -1, &out), RATING_EINVAL);
    cr_assert_eq(rating_inactivity(&neg, 3, &out), RATING_EINVAL);
    cr_assert_eq(out.rating, 1);
    cr_assert_eq(out.rd, 2);
    cr_assert_eq(out.volatility, 3);
    cr_assert_eq(out.games, 4);
}
