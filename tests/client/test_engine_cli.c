/*
 * The engine's subcommands in-process: solve and analyse (offline, exact
 * values: the 6x4 start is lost in 22 plies by Black, who moves first;
 * 5x5 is won by Black in 21), and the argument checks of solve, analyse,
 * hint and bot (exit 2 before any connection).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util.h"

static char cfg[64];

static void setup(void)
{
    fresh_config(cfg);
}

static void teardown(void)
{
    drop_config(cfg);
}

TestSuite(engine_cli, .init = setup, .fini = teardown, .timeout = 120);

#define EXPECT(want, ...)                                                                          \
    do {                                                                                           \
        crun r_;                                                                                   \
        crun_do(&r_, NULL, __VA_ARGS__, NULL);                                                     \
        cr_assert_eq(r_.code, want, "exit %d, want %d\nout: %s\nerr: %s", r_.code, want, r_.out,   \
                     r_.err);                                                                      \
        crun_free(&r_);                                                                            \
    } while (0)

Test(engine_cli, solve_6x4_white_wins)
{
    crun r;
    crun_do(&r, NULL, "solve", "alquerkonane-6x4", NULL);
    cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
    cr_assert(strstr(r.out, "result:   White wins with perfect play (Black to move loses in 22 "
                            "plies)\n"),
              "%s", r.out);
    cr_assert(strstr(r.out, "searched: 15446 positions"), "%s", r.out);
    cr_assert(strstr(r.out, "\nline:     "), "%s", r.out);
    crun_free(&r);
}

Test(engine_cli, solve_json_and_positions)
{
    crun r;
    crun_do(&r, NULL, "--json", "solve", "alquerkonane-5x5", NULL);
    cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert_not_null(j, "%s", r.out);
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(j, "solved")));
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(j, "exact")));
    cr_assert_str_eq(cJSON_GetObjectItem(j, "winner")->valuestring, "black");
    cr_assert_eq(cJSON_GetObjectItem(j, "distance")->valueint, 21);
    cr_assert_gt(cJSON_GetObjectItem(j, "positions")->valuedouble, 0);
    cJSON_Delete(j);
    crun_free(&r);
    /* A position given in words: the start with one Black step played;
     * White, to move, wins in 21 more plies (22 from the start). */
    crun_do(&r, NULL, "solve", "alquerkonane-6x4", "w.w./.w.w/..../..b./.b../b.b.", "w", "1", "-",
            NULL);
    cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
    cr_assert(strstr(r.out, "White wins with perfect play (White to move wins in 21 plies)"), "%s",
              r.out);
    crun_free(&r);
}

Test(engine_cli, analyse_values)
{
    crun r;
    /* A depth limit, not a time limit: the solver finishes within it
     * whatever the machine's load (with --ms 500 a loaded machine did not). */
    crun_do(&r, NULL, "analyse", "alquerkonane-6x4", "--depth", "24", NULL);
    cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
    cr_assert(
        strstr(r.out, "eval:     loss in 22 (Black to move): White wins with best play [solved]\n"),
        "%s", r.out);
    crun_free(&r);
    /* A depth limit and no time limit: deterministic. */
    crun_do(&r, NULL, "analyse", "alquerque", "--depth", "6", NULL);
    cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
    cr_assert(
        strstr(r.out,
               "variant:  alquerque\nposition: bbbbb/bbbbb/ww.bb/wwwww/wwwww w 0 -\n"
               "eval:     +1.03 (White to move): favours White\nbest:     c2-c3\nline:     c2-c3 "),
        "%s", r.out);
    cr_assert(strstr(r.out, "depth 6, "), "%s", r.out);
    crun_free(&r);
    /* A forced capture: Black must take (b4xb2 or d4xb2). */
    crun_do(&r, NULL, "--json", "analyse", "alquerque", "bbbbb/bbbbb/wwwbb/w.www/wwwww", "b", "1",
            "-", "--depth", "4", NULL);
    cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert_not_null(j, "%s", r.out);
    const char *best = cJSON_GetObjectItem(j, "best")->valuestring;
    cr_assert(strcmp(best, "b4xb2") == 0 || strcmp(best, "d4xb2") == 0, "%s", r.out);
    cr_assert_eq(cJSON_GetObjectItem(j, "depth")->valueint, 4);
    cJSON_Delete(j);
    crun_free(&r);
}

Test(engine_cli, argument_checks)
{
    EXPECT(2, "solve", "alquerque");
    EXPECT(2, "solve", "alquerkonane-6x4", "not-a-position");
    EXPECT(2, "solve");
    EXPECT(2, "analyse", "chess");
    EXPECT(2, "analyse", "alquerque", "--depth", "3", "--ms", "100");
    EXPECT(2, "analyse", "alquerque", "--depth", "0");
    EXPECT(2, "hint");
    EXPECT(2, "hint", "x");
    EXPECT(2, "bot");
    EXPECT(2, "bot", "--level", "5");
    EXPECT(2, "bot", "--level", "2", "--variants", "chess");
    EXPECT(2, "bot", "--level", "2", "--time-controls", "blitz");
    EXPECT(2, "bot", "--level", "2", "--move-ms", "0");
    EXPECT(2, "decline", "1", "--reason");
    /* No session: the bot cannot start (status 1, nothing to retry). */
    EXPECT(1, "--server", "127.0.0.1:1", "bot", "--level", "1");
}
