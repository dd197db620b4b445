/*
 * rating: Glicko-2, exactly as in Mark E. Glickman, "Example of the
 * Glicko-2 system" (Boston University, revision of March 22, 2022),
 * steps 1 to 8, with the Illinois algorithm of step 5 for the volatility.
 * Parameters are those of ../shared/PROTOCOL.md "Ratings": a new player
 * starts at 1500, RD 350, volatility 0.06; tau = 0.5; every rated game is
 * its own rating period, applied when the game ends; RD grows with
 * inactivity by step 6 once per day.
 *
 * Units. Everything in and out of this module is on the Glicko scale
 * (the one users see: rating ~1500, RD in rating points). Internally the
 * paper's step 2 converts to the Glicko-2 scale, mu = (r - 1500) /
 * 173.7178 and phi = RD / 173.7178, and step 8 converts back. The
 * volatility sigma is the same number on both scales.
 *
 * Pure computation: no I/O, no allocation, no global mutable state; every
 * function may be called from any thread. Results go to out-parameters,
 * which may alias the inputs (each function reads all of its inputs
 * before it writes an output).
 */
#ifndef QK_GAME_RATING_H
#define QK_GAME_RATING_H

#include <stdbool.h>
#include <stddef.h>

/* Step 1 (a) and PROTOCOL.md: a player's values before any rated game. */
#define RATING_START 1500.0
#define RATING_START_RD 350.0
#define RATING_START_VOLATILITY 0.06
/* Step 1: the system constant tau, which constrains volatility change. */
#define RATING_TAU 0.5
/* Step 5: the convergence tolerance epsilon of the Illinois algorithm. */
#define RATING_EPSILON 0.000001
/* Step 2 and 8: Glicko-2 scale = Glicko scale / RATING_SCALE. */
#define RATING_SCALE 173.7178
/* PROTOCOL.md: provisional while RD > 110 (Glicko scale). */
#define RATING_PROVISIONAL_RD 110.0
/* The inactivity step never takes RD above a new player's RD. */
#define RATING_MAX_RD RATING_START_RD

/* Errors (negative, as every server function returns them). */
#define RATING_EINVAL (-22)

/* A player's rating in one variant. rating and rd on the Glicko scale;
 * volatility sigma (scale-free, > 0); games: rated games counted so far
 * (a count kept for the user object, not used by the formulas). */
typedef struct rating {
    double rating;
    double rd;
    double volatility;
    int games;
} rating;

/* One game of a rating period, as the player being updated saw it: the
 * opponent's pre-period rating and RD (Glicko scale) and the player's
 * score s_j: 0 loss, 0.5 draw, 1 win (paper step 2). The opponent's
 * volatility is not used (paper step 2). */
typedef struct rating_game {
    double opp_rating;
    double opp_rd;
    double score;
} rating_game;

/* Step 1 (a): *r = 1500 / 350 / 0.06, games 0. */
void rating_init(rating *r);

/* One rating period for one player (steps 2 to 8). before: the player's
 * pre-period values; games[0..n-1]: the period's games (NULL allowed when
 * n is 0). Writes the post-period values to *after, with after->games =
 * before->games + n. With n == 0 only step 6 applies, as the paper says
 * of a player who does not compete: RD grows by one period (with the
 * RATING_MAX_RD cap of rating_inactivity()), rating and volatility stay.
 * Returns 0, or RATING_EINVAL (nothing written) when a value is not
 * finite, an RD is not > 0, the volatility is not > 0, a score is not 0,
 * 0.5 or 1, or n is above INT_MAX - before->games. */
int rating_update(const rating *before, const rating_game *games, size_t n, rating *after);

/* One rated game between two players as its own rating period
 * (PROTOCOL.md): both sides are updated from their pre-game values, so
 * the order of the two updates does not matter. white_score: White's
 * score, 1 (White won), 0.5 (draw) or 0 (Black won); Black scores
 * 1 - white_score. Writes *white_after and *black_after (each may alias
 * either input). Returns 0 or RATING_EINVAL (nothing written) as
 * rating_update(). Example (PROTOCOL.md): two new players, White wins:
 * White 1662.31 RD 290.32, Black 1337.69 RD 290.32. */
int rating_game_update(const rating *white, const rating *black, double white_score,
                       rating *white_after, rating *black_after);

/* Inactivity: step 6 alone, phi' = sqrt(phi^2 + sigma^2), applied once
 * per elapsed rating period with no game; one period is one day, so days
 * is the number of whole days elapsed (the caller decides from which
 * timestamp; e.g. floor((now_ms - last_ms) / 86400000)). Applied days
 * times, this is phi' = sqrt(phi^2 + days * sigma^2); RD is then capped
 * at RATING_MAX_RD (350); an RD already above 350 (never produced here)
 * is left as it is. Rating, volatility and games are unchanged.
 * Returns 0, or RATING_EINVAL (nothing written) when days < 0 or a value
 * is invalid as in rating_update(). */
int rating_inactivity(const rating *before, int days, rating *after);

/* PROTOCOL.md: true while RD > 110 (Glicko scale). */
bool rating_provisional(const rating *r);

#endif
