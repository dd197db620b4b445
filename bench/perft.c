/*
 * bench-perft: speed of the rules module (common/qk_rules*.c).
 *
 * For every named variant plus alquerkonane-8x8 and -6x4 it prints
 *   - perft from the start position at a fixed depth (about 0.5-1 s here),
 *     with the node count, which is deterministic and so doubles as a
 *     regression check (as Ethereal's "Bench" line does);
 *   - random playouts: a fixed number of games from the start, each move
 *     drawn uniformly from qk_movegen() with a fixed-seed generator, until
 *     qk_pos_status() ends the game; the total plies are deterministic.
 * Playouts go through the public API only (movegen, make, status), the way
 * the server and engine use it; perft uses the module's internal path.
 *
 * Usage: bench-perft [SCALE]  (SCALE multiplies the playout count; depth
 * is fixed so node counts stay comparable between runs and machines).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "qk_rules.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;

static uint64_t rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}

/* Plays one random game from the start; returns its plies. */
static long playout(const qk_variant *v)
{
    static qk_move moves[QK_MAX_MOVES];
    qk_pos p;
    long plies = 0;
    qk_variant_start(v, &p);
    while (!qk_pos_status(v, &p, NULL, NULL)) {
        int n = qk_movegen(v, &p, moves, QK_MAX_MOVES);
        if (n <= 0)
            break;
        qk_undo u;
        qk_pos_make(v, &p, &moves[rng() % (uint64_t)n], &u);
        plies++;
    }
    return plies;
}

static const struct {
    const char *variant;
    int depth;
    int games;
} rows[] = {
    {"alquerque", 13, 20000},           {"alquerque-traditional", 10, 6000},
    {"alquerque-brainking", 14, 40000}, {"alquerque-stoep-short", 10, 5000},
    {"alquerque-stoep-long", 10, 4000}, {"alquerkonane-8x8", 9, 12000},
    {"alquerkonane-6x4", 12, 30000},
};

int main(int argc, char **argv)
{
    double scale = argc > 1 ? atof(argv[1]) : 1.0;
    if (scale <= 0)
        scale = 1.0;
    printf("%-24s %5s %14s %8s %12s | %7s %10s %8s %12s\n", "variant", "depth", "perft nodes",
           "secs", "nodes/s", "games", "plies", "secs", "playouts/s");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        qk_variant v;
        qk_pos p;
        if (qk_variant_parse(rows[i].variant, &v) != QK_OK) {
            fprintf(stderr, "unknown variant %s\n", rows[i].variant);
            return 1;
        }
        qk_variant_start(&v, &p);
        double t0 = now();
        uint64_t nodes = qk_perft(&v, &p, rows[i].depth);
        double t1 = now();
        int games = (int)(rows[i].games * scale);
        long plies = 0;
        for (int g = 0; g < games; g++)
            plies += playout(&v);
        double t2 = now();
        printf("%-24s %5d %14llu %8.3f %12.0f | %7d %10ld %8.3f %12.0f\n", rows[i].variant,
               rows[i].depth, (unsigned long long)nodes, t1 - t0, (double)nodes / (t1 - t0), games,
               plies, t2 - t1, games / (t2 - t1));
        fflush(stdout);
    }
    return 0;
}
