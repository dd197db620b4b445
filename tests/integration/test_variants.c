/*
 * One recorded game of every variant file in ../shared/data/games, played
 * to its end through the real server and client. Nothing is guarded: a
 * variant that is not implemented yet fails its test.
 *
 * The game chosen is the shortest recording with at least 20 plies (or the
 * longest if none is that long), so each variant reaches a real ending
 * (Sultans, BrainKing memory, forced continuations) in few processes.
 */
#include <criterion/criterion.h>

#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "play.h"

TestSuite(variants, .init = h_setup, .fini = h_teardown, .timeout = 300);

static void play_variant(const char *file)
{
    hgame *games;
    int n = hgames_load(file, &games);
    int best = -1;
    for (int i = 0; i < n; i++)
        if (games[i].nmoves >= 20 && (best < 0 || games[i].nmoves < games[best].nmoves))
            best = i;
    if (best < 0)
        for (int i = 0; i < n; i++)
            if (best < 0 || games[i].nmoves > games[best].nmoves)
                best = i;
    const hgame *g = &games[best];

    hsrv srv;
    hsrv_start(&srv);
    hplayers p;
    hplay_setup(&p, &srv, "alice", "bob");
    long long id = hplay_open(&p, g);
    hplay_moves(&p, g, id, 0, g->nmoves, true);
    hplay_check_show(&p, g, id, g->nmoves);
    hsrv_stop(&srv);
    hgames_free(games, n);
    h_pass();
}

#define VARIANT_TEST(name, file)                                                                   \
    Test(variants, name)                                                                           \
    {                                                                                              \
        play_variant(file);                                                                        \
    }

VARIANT_TEST(alquerque, "alquerque")
VARIANT_TEST(alquerque_traditional, "alquerque-traditional")
VARIANT_TEST(alquerque_brainking, "alquerque-brainking")
VARIANT_TEST(alquerque_stoep_short, "alquerque-stoep-short")
VARIANT_TEST(alquerque_stoep_long, "alquerque-stoep-long")
VARIANT_TEST(alquerkonane_8x8, "alquerkonane-8x8")
VARIANT_TEST(alquerkonane_6x4, "alquerkonane-6x4")
VARIANT_TEST(alquerkonane_5x5, "alquerkonane-5x5")

/* Every file in data/games has a test above: a new recording fails here
 * until it gets one. */
Test(variants, every_recording_has_a_test)
{
    static const char *known[] = {"alquerque",
                                  "alquerque-traditional",
                                  "alquerque-brainking",
                                  "alquerque-stoep-short",
                                  "alquerque-stoep-long",
                                  "alquerkonane-8x8",
                                  "alquerkonane-6x4",
                                  "alquerkonane-5x5"};
    char path[H_PATH];
    snprintf(path, sizeof path, "%s/data/games", h_shared());
    DIR *d = opendir(path);
    cr_assert_not_null(d, "%s", path);
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 7 || strcmp(e->d_name + len - 6, ".jsonl") != 0)
            continue;
        bool found = false;
        for (size_t i = 0; i < sizeof known / sizeof *known; i++)
            if (strlen(known[i]) == len - 6 && !strncmp(known[i], e->d_name, len - 6))
                found = true;
        cr_assert(found, "%s has no test in tests/integration/test_variants.c", e->d_name);
    }
    closedir(d);
    h_pass();
}
