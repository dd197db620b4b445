/*
 * rating: Glicko-2 (Glickman, "Example of the Glicko-2 system", 2022
 * revision). The functions below follow the paper's steps one by one and
 * keep its names (mu, phi, sigma, v, Delta, f, A, B, C); the comments
 * give the step each piece implements. See rating.h for units.
 */
#include "game/rating.h"

#include <limits.h>
#include <math.h>

/* The largest number of tau steps step 5.2 tries when bracketing; the
 * paper reports k is almost always 1. f(a - k tau) grows without bound as
 * k grows (its (x - a)/tau^2 term), so this is reached only on NaN. */
#define MAX_BRACKET_STEPS 1000
/* A cap on Illinois iterations; the paper saw at most 19 in 10000 runs. */
#define MAX_ILLINOIS_STEPS 200

static bool valid_player(const rating *r)
{
    return isfinite(r->rating) && isfinite(r->rd) && r->rd > 0 && isfinite(r->volatility) &&
           r->volatility > 0 && r->games >= 0;
}

static bool valid_game(const rating_game *g)
{
    return isfinite(g->opp_rating) && isfinite(g->opp_rd) && g->opp_rd > 0 &&
           (g->score == 0.0 || g->score == 0.5 || g->score == 1.0);
}

/* Step 3: g(phi) = 1 / sqrt(1 + 3 phi^2 / pi^2). */
static double g_of(double phi)
{
    return 1.0 / sqrt(1.0 + 3.0 * phi * phi / (M_PI * M_PI));
}

/* Step 3: E(mu, mu_j, phi_j) = 1 / (1 + exp(-g(phi_j) (mu - mu_j))). */
static double expect(double mu, double mu_j, double g_j)
{
    return 1.0 / (1.0 + exp(-g_j * (mu - mu_j)));
}

/* Step 5.1: f(x) = e^x (Delta^2 - phi^2 - v - e^x) / (2 (phi^2 + v + e^x)^2)
 *                  - (x - a) / tau^2. */
typedef struct vol_fn {
    double delta2, phi2, v, a;
} vol_fn;

static double vol_f(const vol_fn *p, double x)
{
    double ex = exp(x);
    double den = p->phi2 + p->v + ex;
    return ex * (p->delta2 - p->phi2 - p->v - ex) / (2.0 * den * den) -
           (x - p->a) / (RATING_TAU * RATING_TAU);
}

/* Step 5: the new volatility sigma' by the Illinois algorithm. */
static double new_volatility(double sigma, double phi, double v, double delta)
{
    vol_fn p = {delta * delta, phi * phi, v, log(sigma * sigma)};
    /* 5.2: A = a; B = ln(Delta^2 - phi^2 - v) when that is defined, else
     * the first a - k tau (k = 1, 2, ...) with f(a - k tau) >= 0. */
    double A = p.a, B;
    if (p.delta2 > p.phi2 + p.v) {
        B = log(p.delta2 - p.phi2 - p.v);
    } else {
        int k = 1;
        while (vol_f(&p, p.a - k * RATING_TAU) < 0 && k < MAX_BRACKET_STEPS)
            k++;
        B = p.a - k * RATING_TAU;
    }
    /* 5.3 */
    double fA = vol_f(&p, A), fB = vol_f(&p, B);
    /* 5.4: narrow [A, B] until |B - A| <= epsilon. */
    for (int i = 0; fabs(B - A) > RATING_EPSILON && i < MAX_ILLINOIS_STEPS; i++) {
        double C = A + (A - B) * fA / (fB - fA); /* (a) */
        double fC = vol_f(&p, C);
        if (fC * fB <= 0) { /* (b): the 2022 text has <= */
            A = B;
            fA = fB;
        } else {
            fA /= 2;
        }
        B = C; /* (c) */
        fB = fC;
    }
    /* 5.5: sigma' = e^(A/2). */
    return exp(A / 2);
}

void rating_init(rating *r)
{
    r->rating = RATING_START;
    r->rd = RATING_START_RD;
    r->volatility = RATING_START_VOLATILITY;
    r->games = 0;
}

int rating_update(const rating *before, const rating_game *games, size_t n, rating *after)
{
    if (!valid_player(before) || (n > 0 && !games) || n > (size_t)(INT_MAX - before->games))
        return RATING_EINVAL;
    for (size_t j = 0; j < n; j++)
        if (!valid_game(&games[j]))
            return RATING_EINVAL;
    if (n == 0) {
        /* "If a player does not compete during the rating period, then
         * only Step 6 applies." */
        return rating_inactivity(before, 1, after);
    }

    /* Step 2: to the Glicko-2 scale. */
    double mu = (before->rating - RATING_START) / RATING_SCALE;
    double phi = before->rd / RATING_SCALE;
    double sigma = before->volatility;

    /* Steps 3 and 4: v = [sum g_j^2 E_j (1 - E_j)]^-1 and the sum
     * sum g_j (s_j - E_j), of which Delta = v * sum and step 7 reuses. */
    double inv_v = 0, sum = 0;
    for (size_t j = 0; j < n; j++) {
        double mu_j = (games[j].opp_rating - RATING_START) / RATING_SCALE;
        double g_j = g_of(games[j].opp_rd / RATING_SCALE);
        double e_j = expect(mu, mu_j, g_j);
        inv_v += g_j * g_j * e_j * (1.0 - e_j);
        sum += g_j * (games[j].score - e_j);
    }
    if (!(inv_v > 0)) /* E_j rounded to 0 or 1: opponents absurdly far apart */
        return RATING_EINVAL;
    double v = 1.0 / inv_v;
    double delta = v * sum;

    /* Step 5 */
    double sigma2 = new_volatility(sigma, phi, v, delta);
    /* Step 6: phi* = sqrt(phi^2 + sigma'^2). */
    double phi_star = sqrt(phi * phi + sigma2 * sigma2);
    /* Step 7: phi' = 1 / sqrt(1/phi*^2 + 1/v); mu' = mu + phi'^2 sum. */
    double phi2 = 1.0 / sqrt(1.0 / (phi_star * phi_star) + 1.0 / v);
    double mu2 = mu + phi2 * phi2 * sum;
    /* Step 8: back to the Glicko scale. */
    double r = RATING_SCALE * mu2 + RATING_START;
    double rd = RATING_SCALE * phi2;
    if (!isfinite(r) || !isfinite(rd) || !isfinite(sigma2) || !(sigma2 > 0))
        return RATING_EINVAL;
    int count = before->games + (int)n;
    after->rating = r;
    after->rd = rd;
    after->volatility = sigma2;
    after->games = count;
    return 0;
}

int rating_game_update(const rating *white, const rating *black, double white_score,
                       rating *white_after, rating *black_after)
{
    if (!valid_player(white) || !valid_player(black))
        return RATING_EINVAL;
    rating_game gw = {black->rating, black->rd, white_score};
    rating_game gb = {white->rating, white->rd, 1.0 - white_score};
    rating w, b;
    /* Both from the pre-game values, into locals: the outputs may alias
     * the inputs, and nothing is written unless both succeed. */
    int rc = rating_update(white, &gw, 1, &w);
    if (rc == 0)
        rc = rating_update(black, &gb, 1, &b);
    if (rc != 0)
        return rc;
    *white_after = w;
    *black_after = b;
    return 0;
}

int rating_inactivity(const rating *before, int days, rating *after)
{
    if (!valid_player(before) || days < 0)
        return RATING_EINVAL;
    /* Step 6 applied days times: phi^2 grows by sigma^2 per period. */
    double phi = before->rd / RATING_SCALE;
    double sigma = before->volatility;
    double rd = RATING_SCALE * sqrt(phi * phi + (double)days * sigma * sigma);
    if (rd > RATING_MAX_RD)
        rd = RATING_MAX_RD;
    /* A player already above the cap (never made here) is not lowered. */
    if (rd < before->rd)
        rd = before->rd;
    *after = *before;
    after->rd = rd;
    return 0;
}

bool rating_provisional(const rating *r)
{
    return r->rd > RATING_PROVISIONAL_RD;
}
