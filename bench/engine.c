/*
 * bench-engine: speed and strength of qk_engine and qk_solve.
 *
 * 1. Search speed: one second of search from each variant's start (the
 *    Alquerkonane rows with the solver off, to measure the search): depth
 *    completed, nodes, nodes per second.
 * 2. The exact solver: alquerkonane-6x4 and 6x5 from their starts (exact
 *    distances), and 6x6 winner only; time and positions searched.
 * 3. Level table: level 3 against level 1, QK_BENCH_GAMES games (default
 *    100) per variant family, colours alternating, game i seeded with i.
 *    To keep the whole benchmark within a few minutes both levels play on
 *    node budgets instead of the wall clock: level 3 gets
 *    QK_BENCH_NODES nodes a move (default 10000, no depth limit), level 1
 *    its usual depth 2 and 30% random moves. Results are reproducible.
 *
 * Timings depend on the machine; node counts and the level table do not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "qk_engine.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static unsigned long env_ulong(const char *name, unsigned long def)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return def;
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    return *end || v == 0 ? def : v;
}

static int parse(const char *name, qk_variant *v)
{
    if (qk_variant_parse(name, v) != QK_OK) {
        fprintf(stderr, "bench-engine: unknown variant %s\n", name);
        return -1;
    }
    return 0;
}

static int bench_speed(qk_engine *e)
{
    const char *names[] = {"alquerque",
                           "alquerque-traditional",
                           "alquerque-brainking",
                           "alquerque-stoep-short",
                           "alquerque-stoep-long",
                           "alquerkonane-8x8",
                           "alquerkonane-6x4"};
    printf("== search speed: 1 s from each start (Alquerkonane without the solver)\n");
    printf("%-24s %6s %12s %12s  %-10s %s\n", "variant", "depth", "nodes", "nodes/s", "best",
           "score");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        qk_variant v;
        qk_pos p;
        if (parse(names[i], &v))
            return -1;
        qk_variant_start(&v, &p);
        qk_engine_clear(e);
        /* Only the deadline stops it: the iteration in progress at 1 s is
         * cut, so "depth" is the last one completed within the second. */
        qk_limits lim = {.time_ms = 1000, .no_solver = true};
        qk_search_result r;
        double t0 = now();
        if (qk_engine_search(e, &v, &p, &lim, &r) != QK_OK)
            return -1;
        double dt = now() - t0;
        char mv[QK_MOVE_STRLEN], sc[32];
        qk_move_format(&v, &r.best, mv, sizeof mv);
        qk_engine_score_format(r.score, sc, sizeof sc);
        printf("%-24s %6d %12llu %12.0f  %-10s %s\n", names[i], r.depth,
               (unsigned long long)r.nodes, (double)r.nodes / dt, mv, sc);
    }
    return 0;
}

static int bench_solve(void)
{
    struct {
        const char *name;
        bool winner_only;
    } rows[] = {{"alquerkonane-6x4", false},
                {"alquerkonane-6x4", true},
                {"alquerkonane-6x5", false},
                {"alquerkonane-6x6", true}};
    qk_solver s;
    if (qk_solver_init(&s, 256u << 20) != QK_OK) {
        fprintf(stderr, "bench-engine: no memory for the solver\n");
        return -1;
    }
    printf("\n== exact solver from the start (table 256 MiB, cleared before each)\n");
    printf("%-18s %-8s %-8s %9s %12s %12s %9s\n", "variant", "mode", "winner", "distance",
           "positions", "nodes", "seconds");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        qk_variant v;
        qk_pos p;
        if (parse(rows[i].name, &v))
            goto fail;
        qk_variant_start(&v, &p);
        qk_solver_clear(&s);
        qk_solve_limits lim = {.time_ms = 60000, .winner_only = rows[i].winner_only};
        qk_solve_result r;
        double t0 = now();
        if (qk_solve(&s, &v, &p, &lim, &r) != QK_OK)
            goto fail;
        double dt = now() - t0;
        printf("%-18s %-8s %-8s %9d %12llu %12llu %9.3f\n", rows[i].name,
               rows[i].winner_only ? "winner" : "exact",
               r.solved ? qk_result_name(r.winner) : "(60 s)", r.distance,
               (unsigned long long)r.expanded, (unsigned long long)r.nodes, dt);
    }
    qk_solver_free(&s);
    return 0;
fail:
    qk_solver_free(&s);
    return -1;
}

static int bench_levels(unsigned long games, unsigned long nodes)
{
    const char *names[] = {"alquerque",
                           "alquerque-traditional",
                           "alquerque-brainking",
                           "alquerque-stoep-short",
                           "alquerque-stoep-long",
                           "alquerkonane-8x8",
                           "alquerkonane-6x4"};
    qk_engine strong, weak;
    if (qk_engine_init(&strong, 4u << 20) != QK_OK)
        return -1;
    if (qk_engine_init(&weak, 4u << 20) != QK_OK) {
        qk_engine_free(&strong);
        return -1;
    }
    printf("\n== level 3 (%lu nodes/move) vs level 1 (depth 2, 30%% random): %lu games per "
           "variant, colours alternating, game i seeded with i\n",
           nodes, games);
    printf("%-24s %6s %6s %6s %10s %9s\n", "variant", "wins", "draws", "losses", "avg plies",
           "seconds");
    qk_limits l3, l1;
    qk_engine_level_limits(3, 0, &l3);
    qk_engine_level_limits(1, 0, &l1);
    l3.time_ms = l1.time_ms = 0;
    l3.nodes = l1.nodes = nodes;
    int rc = 0;
    for (size_t k = 0; k < sizeof names / sizeof names[0] && rc == 0; k++) {
        qk_variant v;
        if (parse(names[k], &v)) {
            rc = -1;
            break;
        }
        unsigned long w = 0, d = 0, l = 0, plies = 0;
        double t0 = now();
        for (unsigned long g = 0; g < games; g++) {
            qk_engine_clear(&strong);
            qk_engine_clear(&weak);
            qk_engine_seed(&weak, g);
            int strong_side = g % 2 == 0 ? QK_WHITE : QK_BLACK;
            qk_pos p;
            qk_variant_start(&v, &p);
            qk_result res = QK_RESULT_NONE;
            for (int ply = 0; ply < 1000; ply++) {
                if (qk_pos_status(&v, &p, &res, NULL))
                    break;
                bool mine = p.side == strong_side;
                qk_search_result r;
                if (qk_engine_search(mine ? &strong : &weak, &v, &p, mine ? &l3 : &l1, &r) !=
                        QK_OK ||
                    !r.has_move) {
                    fprintf(stderr, "bench-engine: search failed in %s\n", names[k]);
                    rc = -1;
                    break;
                }
                qk_undo u;
                qk_pos_make(&v, &p, &r.best, &u);
                plies++;
            }
            if (rc)
                break;
            if (res == QK_RESULT_DRAW || res == QK_RESULT_NONE)
                d++;
            else if ((res == QK_RESULT_WHITE) == (strong_side == QK_WHITE))
                w++;
            else
                l++;
        }
        printf("%-24s %6lu %6lu %6lu %10.1f %9.1f\n", names[k], w, d, l,
               games ? (double)plies / (double)games : 0.0, now() - t0);
        fflush(stdout);
    }
    qk_engine_free(&strong);
    qk_engine_free(&weak);
    return rc;
}

int main(void)
{
    unsigned long games = env_ulong("QK_BENCH_GAMES", 100);
    unsigned long nodes = env_ulong("QK_BENCH_NODES", 10000);
    qk_engine e;
    if (qk_engine_init(&e, QK_ENGINE_DEFAULT_TT) != QK_OK) {
        fprintf(stderr, "bench-engine: no memory for the engine\n");
        return 1;
    }
    double t0 = now();
    int rc = bench_speed(&e);
    qk_engine_free(&e);
    if (rc == 0)
        rc = bench_solve();
    if (rc == 0)
        rc = bench_levels(games, nodes);
    printf("\nbench-engine: %.1f s in all\n", now() - t0);
    return rc == 0 ? 0 : 1;
}
