/*
 * Board and game rendering (client-cli/render.h): exact text for given
 * positions, without colour. The Alquerque diagonals follow RULES.md
 * section 2 (an X on points whose 0-based file + rank is even, so the unit
 * square a1-b2 holds '/'), the Alquerkonane squares section 7 (a1 dark).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "util.h"

#define KAWU_START "bbbbb/bbbbb/ww.bb/wwwww/wwwww w 0 -"

Test(render, kawu_start)
{
    char *s = board_text("alquerque", NULL, NULL, 0);
    cr_assert_str_eq(s, "5  b---b---b---b---b\n"
                        "   | \\ | / | \\ | / |\n"
                        "4  b---b---b---b---b\n"
                        "   | / | \\ | / | \\ |\n"
                        "3  w---w---.---b---b\n"
                        "   | \\ | / | \\ | / |\n"
                        "2  w---w---w---w---w\n"
                        "   | / | \\ | / | \\ |\n"
                        "1  w---w---w---w---w\n"
                        "   a   b   c   d   e\n");
    free(s);
}

Test(render, traditional_start_has_the_mirrored_middle_rank)
{
    char *s = board_text("alquerque-traditional", NULL, NULL, 0);
    cr_assert(strstr(s, "3  b---b---.---w---w\n"), "%s", s);
    free(s);
}

Test(render, alquerkonane_6x4_start)
{
    /* Black on the dark squares of ranks 1-2 (a1 dark), White on the light
     * squares of ranks 5-6; dark squares filled with ':'. */
    char *s = board_text("alquerkonane-6x4", NULL, NULL, 0);
    cr_assert_str_eq(s, "   +------------+\n"
                        "6  | w ::: w :::|\n"
                        "5  |::: w ::: w |\n"
                        "4  |   :::   :::|\n"
                        "3  |:::   :::   |\n"
                        "2  |   :b:   :b:|\n"
                        "1  |:b:   :b:   |\n"
                        "   +------------+\n"
                        "     a  b  c  d\n");
    free(s);
}

Test(render, alquerkonane_two_digit_ranks)
{
    char *s = board_text("alquerkonane-10x3", NULL, NULL, 0);
    const char *top = "   +---------+\n10 | w ::: w |\n9  |::: w :::|\n8  |   :::   |\n";
    cr_assert(strncmp(s, top, strlen(top)) == 0, "%s", s);
    free(s);
}

Test(render, stoep_sultans_are_capitals)
{
    char *s = board_text("alquerque-stoep-short", "..B../w.b../..W../...b./b.... w 3 -", NULL, 0);
    cr_assert_str_eq(s, "5  .---.---B---.---.\n"
                        "   | \\ | / | \\ | / |\n"
                        "4  w---.---b---.---.\n"
                        "   | / | \\ | / | \\ |\n"
                        "3  .---.---W---.---.\n"
                        "   | \\ | / | \\ | / |\n"
                        "2  .---.---.---b---.\n"
                        "   | / | \\ | / | \\ |\n"
                        "1  b---.---.---.---.\n"
                        "   a   b   c   d   e\n");
    free(s);
}

Test(render, last_move_bracketed_and_capture_marked)
{
    /* The white Sultan on c3 jumps d2 and lands on e1: c3 and e1 in
     * brackets, the emptied d2 shows x. */
    char *s =
        board_text("alquerque-stoep-short", "..B../w.b../..W../...b./b.... w 3 -", "c3xe1", 0);
    cr_assert_str_eq(s, "5  .---.---B---.---.\n"
                        "   | \\ | / | \\ | / |\n"
                        "4  w---.---b---.---.\n"
                        "   | / | \\ | / | \\ |\n"
                        "3  .---.--[.]--.---.\n"
                        "   | \\ | / | \\ | / |\n"
                        "2  .---.---.---x---.\n"
                        "   | / | \\ | / | \\ |\n"
                        "1  b---.---.---.--[W]\n"
                        "   a   b   c   d   e\n");
    free(s);
}

Test(render, alquerkonane_capture_marked)
{
    /* After b2-a3 b5-c4 a3-b4, White's c4xa4 jumps b4. */
    char *s = board_text("alquerkonane-6x4", "w.w./...w/.bw./..../...b/b.b. w 3 -", "c4xa4", 0);
    cr_assert_str_eq(s, "   +------------+\n"
                        "6  | w ::: w :::|\n"
                        "5  |:::   ::: w |\n"
                        "4  |[w]:x:[ ]:::|\n"
                        "3  |:::   :::   |\n"
                        "2  |   :::   :b:|\n"
                        "1  |:b:   :b:   |\n"
                        "   +------------+\n"
                        "     a  b  c  d\n");
    free(s);
}

Test(render, colour_uses_ansi_and_keeps_the_text)
{
    char *plain =
        board_text("alquerque-stoep-short", "..B../w.b../..W../...b./b.... w 3 -", NULL, 0);
    char *col = board_text("alquerque-stoep-short", "..B../w.b../..W../...b./b.... w 3 -", NULL,
                           RENDER_COLOR);
    cr_assert(strstr(col, "\033[0;1mB"), "Sultan not bold: %s", col);
    /* Removing the escape sequences gives the plain text back. */
    char *strip = malloc(strlen(col) + 1), *o = strip;
    for (const char *p = col; *p;) {
        if (*p == '\033') {
            while (*p && *p != 'm')
                p++;
            if (*p)
                p++;
            continue;
        }
        *o++ = *p++;
    }
    *o = '\0';
    cr_assert_str_eq(strip, plain);
    free(strip);
    free(plain);
    free(col);
}

Test(render, colour_konane_dark_squares_use_background)
{
    char *s = board_text("alquerkonane-6x4", NULL, NULL, RENDER_COLOR);
    cr_assert(strstr(s, "\033[0;100m"), "%s", s);
    cr_assert_null(strchr(s, ':'), "colour mode still fills with ':'");
    free(s);
}

#define GAME_AFTER_CAPTURE                                                                         \
    "{\"id\":12,\"variant\":\"alquerque\",\"white\":\"alice\",\"black\":\"bob\","                  \
    "\"start\":\"" KAWU_START "\",\"moves\":[\"b2-c3\",\"b4xb2\"],\"ply\":2,"                      \
    "\"position\":\"bbbbb/b.bbb/w.wbb/wbwww/wwwww w 0 -\",\"turn\":\"white\","                     \
    "\"legal_moves\":[\"b1xb3\"],\"status\":\"active\",\"result\":null,\"reason\":null,"           \
    "\"time_control\":{\"kind\":\"unlimited\"},\"deadline\":null}"

Test(render, game_with_turn_last_move_and_legal_moves)
{
    char *s = game_text(GAME_AFTER_CAPTURE, "alice");
    cr_assert_str_eq(s, "Game 12  alquerque  ply 2\n"
                        "White: alice  Black: bob\n"
                        "5  b---b---b---b---b\n"
                        "   | \\ | / | \\ | / |\n"
                        "4  b--[.]--b---b---b\n"
                        "   | / | \\ | / | \\ |\n"
                        "3  w---x---w---b---b\n"
                        "   | \\ | / | \\ | / |\n"
                        "2  w--[b]--w---w---w\n"
                        "   | / | \\ | / | \\ |\n"
                        "1  w---w---w---w---w\n"
                        "   a   b   c   d   e\n"
                        "Last move: b4xb2\n"
                        "White to move (alice, you)\n"
                        "Legal moves (1): b1xb3\n");
    free(s);
}

Test(render, game_for_a_watcher_and_local_legal_moves)
{
    /* No legal_moves in the object (game lists): generated locally. */
    char *s = game_text("{\"id\":1,\"variant\":\"alquerque\",\"white\":\"alice\",\"black\":"
                        "\"bob\",\"start\":\"" KAWU_START "\",\"moves\":[],\"ply\":0,"
                        "\"position\":\"" KAWU_START "\",\"turn\":\"white\",\"status\":\"active\"}",
                        NULL);
    cr_assert(strstr(s, "\nWhite to move (alice)\nLegal moves (4): b2-c3 b3-c3 c2-c3 d2-c3\n"),
              "%s", s);
    cr_assert_null(strstr(s, "Last move"), "%s", s);
    free(s);
}

Test(render, finished_game_shows_result_not_moves)
{
    char *s = game_text("{\"id\":7,\"variant\":\"alquerkonane-6x4\",\"white\":\"carol\","
                        "\"black\":\"dave\",\"ply\":0,\"position\":\"..../..../..../..../.b.b/b.b. "
                        "w 0 -\",\"turn\":\"white\",\"status\":\"finished\",\"result\":\"black\","
                        "\"reason\":\"no_pieces\"}",
                        "dave");
    cr_assert(strstr(s, "\nBlack wins (White has no pieces left): you won\n"), "%s", s);
    cr_assert_null(strstr(s, "Legal moves"), "%s", s);
    cr_assert_null(strstr(s, "to move"), "%s", s);
    free(s);
}

Test(render, black_to_move_and_clock_line)
{
    char *s = game_text("{\"id\":5,\"variant\":\"alquerque\",\"white\":\"alice\",\"black\":\"bob\","
                        "\"start\":\"" KAWU_START "\",\"moves\":[\"b2-c3\"],\"ply\":1,"
                        "\"position\":\"bbbbb/bbbbb/wwwbb/w.www/wwwww b 1 -\",\"turn\":\"black\","
                        "\"legal_moves\":[\"b4xb2\",\"d4xb2\"],\"status\":\"active\","
                        "\"time_control\":{\"kind\":\"correspondence\",\"days_per_move\":3},"
                        "\"deadline\":86400000}",
                        "alice");
    cr_assert(strstr(s, "\nTime: corr:3, deadline 1970-01-02 00:00:00 UTC\n"), "%s", s);
    cr_assert(strstr(s, "\nBlack to move (bob)\nLegal moves (2): b4xb2 d4xb2\n"), "%s", s);
    cr_assert(strstr(s, "2  w--[.]--w---w---w\n"), "%s", s);
    cr_assert(strstr(s, "3  w---w--[w]--b---b\n"), "%s", s);
    free(s);
}

Test(render, unmarked_when_replay_disagrees)
{
    /* A moves list that does not lead to `position`: drawn from
     * `position`, without marks that would be wrong. */
    char *s = game_text("{\"id\":5,\"variant\":\"alquerque\",\"white\":\"a\",\"black\":\"b\","
                        "\"start\":\"" KAWU_START "\",\"moves\":[\"d2-c3\"],\"ply\":1,"
                        "\"position\":\"bbbbb/bbbbb/wwwbb/w.www/wwwww b 1 -\",\"turn\":\"black\","
                        "\"status\":\"active\"}",
                        NULL);
    cr_assert_null(strchr(s, '['), "%s", s);
    cr_assert(strstr(s, "2  w---.---w---w---w\n"), "%s", s);
    free(s);
}

Test(render, broken_game_object_is_reported)
{
    char *s = game_text("{\"id\":5,\"variant\":\"chess\",\"position\":\"x\"}", NULL);
    cr_assert(strstr(s, "(cannot draw position x)"), "%s", s);
    free(s);
}

Test(render, move_list_wraps)
{
    cJSON *list = cJSON_CreateArray();
    for (int i = 0; i < 20; i++)
        cJSON_AddItemToArray(list, cJSON_CreateString("a1xc3xe5"));
    char *buf;
    size_t n;
    FILE *f = open_memstream(&buf, &n);
    render_move_list(f, "Legal moves", list);
    fclose(f);
    /* Every line within the width; continuation lines indented. */
    int lines = 0;
    for (char *p = buf, *nl; (nl = strchr(p, '\n')); p = nl + 1, lines++) {
        cr_assert_leq(nl - p, RENDER_WIDTH, "line too long in %s", buf);
        if (lines > 0)
            cr_assert_eq(p[0], ' ');
    }
    cr_assert_gt(lines, 1);
    cr_assert(strncmp(buf, "Legal moves (20): a1xc3xe5", 26) == 0, "%s", buf);
    free(buf);
    cJSON_Delete(list);

    f = open_memstream(&buf, &n);
    list = cJSON_CreateArray();
    render_move_list(f, "Legal moves", list);
    fclose(f);
    cr_assert_str_eq(buf, "Legal moves: none\n");
    free(buf);
    cJSON_Delete(list);
}

Test(render, reason_and_result_words)
{
    cr_assert_str_eq(render_reason_text("no_moves"), "no legal moves");
    cr_assert_str_eq(render_reason_text("sultan_majority"), "no Sultan majority");
    cr_assert_str_eq(render_reason_text("brand_new"), "brand_new");
    cr_assert_str_eq(render_reason_text(NULL), "");
    cr_assert_str_eq(render_result_text("draw"), "Draw");
    cr_assert_str_eq(render_result_text("white"), "White wins");
    cr_assert_str_eq(render_result_text(NULL), "Game over");
}

/* Issue 24: a game's end in the reader's terms (resign, inbox). */
Test(render, outcome_in_the_readers_terms)
{
    char b[128];
    cr_assert_str_eq(render_outcome("white", "resign", "white", b, sizeof b), "you won (resignation)");
    cr_assert_str_eq(render_outcome("white", "resign", "black", b, sizeof b), "you lost (resignation)");
    cr_assert_str_eq(render_outcome("black", "timeout", "white", b, sizeof b), "you lost (time)");
    cr_assert_str_eq(render_outcome("black", "no_moves", "black", b, sizeof b), "you won (no moves)");
    cr_assert_str_eq(render_outcome("white", "adjudicated", "black", b, sizeof b),
                     "you lost (decided by an administrator)");
    cr_assert_str_eq(render_outcome("draw", "agreement", "white", b, sizeof b), "draw (agreement)");
    cr_assert_str_eq(render_outcome("draw", "move_limit", NULL, b, sizeof b),
                     "draw (40 plies without a capture)");
    cr_assert_str_eq(render_outcome("white", "resign", NULL, b, sizeof b), "White won (resignation)");
    cr_assert_str_eq(render_outcome("black", "no_pieces", NULL, b, sizeof b),
                     "Black won (no pieces left)");
    cr_assert_str_eq(render_outcome(NULL, "aborted", "white", b, sizeof b), "aborted");
    cr_assert_str_eq(render_outcome("white", NULL, NULL, b, sizeof b), "White won");
    cr_assert_str_eq(render_outcome("white", "brand_new", "white", b, sizeof b), "you won (brand_new)");
    cr_assert_str_eq(render_outcome(NULL, NULL, NULL, b, sizeof b), "no result");
    cr_assert_str_eq(render_outcome("white", "resign", "white", b, 8), "you won");
}
