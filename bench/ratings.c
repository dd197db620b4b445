/*
 * bench-ratings: the cost of ratings (issue 12), in process, on a real
 * SQLite store made by store_open() (the server's own migrations):
 *   - rating_game_update(): one rated game's Glicko-2 update of both
 *     players (the arithmetic alone), per call;
 *   - ratings_board_json(): the `leaderboard` op's work (limit 50) on a
 *     family of NPLAYERS rows, a third of them established, with the
 *     inactivity step applied to every row it reads;
 *   - ratings_user_json(): a user object's ratings (8 families).
 * Prints medians and 99th percentiles; timings never fail anything.
 * Exit status 0, or 1 when a call failed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "game/rating.h"
#include "game/ratings_svc.h"
#include "game/svc.h"
#include "store/store.h"
#include "util/log.h"

#define NPLAYERS 100000
#define REPS 200
#define T0 1700000000000LL

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void report(const char *what, double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp);
    printf("bench-ratings: %-44s median %8.3f ms  p99 %8.3f ms\n", what, t[n / 2],
           t[(n * 99) / 100]);
}

int main(void)
{
    char dir[] = "/tmp/qk-bench-ratings-XXXXXX", path[64];
    if (!mkdtemp(dir))
        return 1;
    snprintf(path, sizeof path, "%s/b.db", dir);
    log_set_level(LOG_ERROR);
    store *st = NULL;
    if (store_open(path, &st) != STORE_OK)
        return 1;
    int rc = 1;

    /* The arithmetic alone. */
    rating w, b, w2, b2;
    rating_init(&w);
    rating_init(&b);
    int n = 1000000;
    double t0 = now_ms();
    for (int i = 0; i < n; i++) {
        if (rating_game_update(&w, &b, (i & 1) ? 1.0 : 0.5, &w2, &b2) != 0)
            goto out;
        w = w2;
        b = b2;
    }
    printf("bench-ratings: rating_game_update                           %8.3f us per game\n",
           (now_ms() - t0) * 1e3 / n);

    /* A family of NPLAYERS rows: ratings spread over 1000..2000, RD over
     * 45..350 (one in three <= 110), last games over the past 30 days. */
    srand(12345);
    t0 = now_ms();
    if (store_begin(st) != STORE_OK)
        goto out;
    for (int i = 0; i < NPLAYERS; i++) {
        char name[16];
        int64_t id;
        snprintf(name, sizeof name, "p%d", i);
        if (store_user_insert(st, name, false, "$argon2id$x", T0, &id) != STORE_OK)
            goto out;
        store_rating r = {.user_id = id,
                          .rating = 1000 + (rand() % 100000) / 100.0,
                          .rd = i % 3 == 0 ? 45 + (rand() % 6500) / 100.0
                                           : 110.5 + (rand() % 23950) / 100.0,
                          .volatility = 0.06,
                          .games = 20,
                          .last_game = T0 - (int64_t)(rand() % 30) * RATINGS_PERIOD_MS};
        snprintf(r.family, sizeof r.family, "alquerque");
        if (store_rating_put(st, &r) != STORE_OK)
            goto out;
        if (i == 0) /* p0 plays every family */
            for (int f = 0; f < 7; f++) {
                snprintf(r.family, sizeof r.family, "family-%d", f);
                if (store_rating_put(st, &r) != STORE_OK)
                    goto out;
            }
    }
    if (store_commit(st) != STORE_OK)
        goto out;
    printf("bench-ratings: %d players stored in                      %8.1f ms\n", NPLAYERS,
           now_ms() - t0);

    gsvc s = {.store = st, .test_clock = true, .test_now = T0};
    double t[REPS];
    for (int i = 0; i < REPS; i++) {
        t0 = now_ms();
        cJSON *list = ratings_board_json(&s, "alquerque", 50);
        t[i] = now_ms() - t0;
        if (cJSON_GetArraySize(list) != 50) {
            cJSON_Delete(list);
            goto out;
        }
        cJSON_Delete(list);
    }
    report("leaderboard (limit 50, 100,000 rows)", t, REPS);
    for (int i = 0; i < REPS; i++) {
        t0 = now_ms();
        cJSON *u = ratings_user_json(&s, 1);
        t[i] = now_ms() - t0;
        if (cJSON_GetArraySize(u) != 8) {
            cJSON_Delete(u);
            goto out;
        }
        cJSON_Delete(u);
    }
    report("user ratings (8 families)", t, REPS);
    rc = 0;
out:
    if (rc)
        fprintf(stderr, "bench-ratings: a call failed\n");
    store_close(st);
    char cmd[96];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench-ratings: cannot remove %s\n", dir);
    return rc;
}
