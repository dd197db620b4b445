/*
 * Issue 10, the client's part: the board from the player's side, the live
 * clock at a given time (injected: the value, its receipt time and "now"
 * are arguments, so nothing sleeps and nothing depends on timing), draw
 * offer and vacation in a game, resign/abort confirmations at the play
 * prompt and in the shell, errors in words, the inbox's order and folding,
 * games --mine's time columns, the engine's verdict, word-safe wrapping,
 * register's password length and session question, --version.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmd.h"
#include "fake.h"
#include "ledit.h"
#include "qk_proto.h"
#include "render.h"
#include "session.h"
#include "util.h"

#define KAWU "bbbbb/bbbbb/ww.bb/wwwww/wwwww w 0 -"

static char cfg[64];
static fake srv;

static void setup(void)
{
    fresh_config(cfg);
}

static void teardown(void)
{
    fake_teardown(&srv, cfg);
}

TestSuite(live, .init = setup, .fini = teardown, .timeout = 30);

/* ---- the board from Black's side ------------------------------------- */

Test(live, kawu_start_flipped)
{
    char *s = board_text("alquerque", NULL, NULL, RENDER_FLIP);
    cr_assert_str_eq(s, "1  w---w---w---w---w\n"
                        "   | \\ | / | \\ | / |\n"
                        "2  w---w---w---w---w\n"
                        "   | / | \\ | / | \\ |\n"
                        "3  b---b---.---w---w\n"
                        "   | \\ | / | \\ | / |\n"
                        "4  b---b---b---b---b\n"
                        "   | / | \\ | / | \\ |\n"
                        "5  b---b---b---b---b\n"
                        "   e   d   c   b   a\n");
    free(s);
}

Test(live, last_move_marks_follow_the_flip)
{
    /* c3xe1 of the render tests, seen from Black: e1 top left, c3 centre,
     * the emptied d2 between them. */
    char *s = board_text("alquerque-stoep-short", "..B../w.b../..W../...b./b.... w 3 -", "c3xe1",
                         RENDER_FLIP);
    cr_assert_str_eq(s, "1 [W]--.---.---.---b\n"
                        "   | \\ | / | \\ | / |\n"
                        "2  .---x---.---.---.\n"
                        "   | / | \\ | / | \\ |\n"
                        "3  .---.--[.]--.---.\n"
                        "   | \\ | / | \\ | / |\n"
                        "4  .---.---b---.---w\n"
                        "   | / | \\ | / | \\ |\n"
                        "5  .---.---B---.---.\n"
                        "   e   d   c   b   a\n");
    free(s);
}

Test(live, alquerkonane_6x4_flipped)
{
    char *s = board_text("alquerkonane-6x4", NULL, NULL, RENDER_FLIP);
    cr_assert_str_eq(s, "   +------------+\n"
                        "1  |   :b:   :b:|\n"
                        "2  |:b:   :b:   |\n"
                        "3  |   :::   :::|\n"
                        "4  |:::   :::   |\n"
                        "5  | w ::: w :::|\n"
                        "6  |::: w ::: w |\n"
                        "   +------------+\n"
                        "     d  c  b  a\n");
    free(s);
}

#define GAME5                                                                                      \
    "{\"id\":5,\"variant\":\"alquerque\",\"white\":\"alice\",\"black\":\"bob\","                   \
    "\"start\":\"" KAWU "\",\"moves\":[],\"ply\":0,\"position\":\"" KAWU "\","                     \
    "\"turn\":\"white\",\"status\":\"active\""

Test(live, view_flags_put_the_player_at_the_bottom)
{
    cJSON *g = cJSON_Parse(GAME5 "}");
    cr_assert_eq(render_view_flags(g, "bob", false), RENDER_FLIP);
    cr_assert_eq(render_view_flags(g, "bob", true), 0u);
    cr_assert_eq(render_view_flags(g, "alice", false), 0u);
    cr_assert_eq(render_view_flags(g, "alice", true), RENDER_FLIP);
    cr_assert_eq(render_view_flags(g, NULL, false), 0u);
    cr_assert_eq(render_view_flags(g, "carol", true), RENDER_FLIP);
    cJSON_Delete(g);
    char *s = game_flags_text(GAME5 "}", "bob", RENDER_FLIP);
    cr_assert(strstr(s, "White: alice  Black: bob\n1  w---w---w---w---w\n"), "%s", s);
    cr_assert(strstr(s, "\n5  b---b---b---b---b\n   e   d   c   b   a\nWhite to move (alice)\n"),
              "%s", s);
    free(s);
}

/* ---- the live clock at a given time ----------------------------------- */

#define LIVE_TC ",\"time_control\":{\"kind\":\"live\",\"initial_s\":300,\"increment_s\":5}"

Test(live, clock_counts_down_the_side_to_move_from_receipt)
{
    /* Ply 2, White to move: White's clock runs (each side has moved). */
    cJSON *g = cJSON_Parse("{\"ply\":2,\"turn\":\"white\",\"status\":\"active\","
                           "\"clock\":{\"white\":295000,\"black\":300000}}");
    render_clock clk;
    cr_assert(render_clock_read(g, 10000, &clk));
    cr_assert_eq(clk.running, RENDER_CLOCK_WHITE);
    char buf[64];
    cr_assert_str_eq(render_clock_text(&clk, 10000, buf, sizeof buf), "White 4:55  Black 5:00");
    cr_assert_str_eq(render_clock_text(&clk, 12500, buf, sizeof buf), "White 4:52  Black 5:00");
    long long w, b;
    render_clock_at(&clk, 12500, &w, &b);
    cr_assert_eq(w, 292500);
    cr_assert_eq(b, 300000);
    /* 292.5 s left: the text changes in 500 ms. */
    cr_assert_eq(render_clock_next_ms(&clk, 12500), 500);
    cr_assert_eq(render_clock_next_ms(&clk, 13000), 1000);
    /* Never below zero; nothing to redraw at zero. */
    cr_assert_str_eq(render_clock_text(&clk, 10000 + 400000, buf, sizeof buf),
                     "White 0:00  Black 5:00");
    cr_assert_eq(render_clock_next_ms(&clk, 10000 + 400000), -1);
    /* A "now" before the receipt (another clock) does not add time. */
    cr_assert_str_eq(render_clock_text(&clk, 0, buf, sizeof buf), "White 4:55  Black 5:00");
    cJSON_Delete(g);
}

Test(live, clock_does_not_run_before_each_side_has_moved_or_after_the_end)
{
    render_clock clk;
    char buf[64];
    cJSON *g = cJSON_Parse("{\"ply\":1,\"turn\":\"black\",\"status\":\"active\","
                           "\"clock\":{\"white\":305000,\"black\":300000}}");
    cr_assert(render_clock_read(g, 0, &clk));
    cr_assert_eq(clk.running, RENDER_CLOCK_NONE);
    cr_assert_str_eq(render_clock_text(&clk, 60000, buf, sizeof buf), "White 5:05  Black 5:00");
    cr_assert_eq(render_clock_next_ms(&clk, 60000), -1);
    cJSON_Delete(g);
    /* Lost on time: the loser shows 0 and nothing runs. */
    g = cJSON_Parse("{\"ply\":9,\"turn\":\"black\",\"status\":\"finished\",\"result\":"
                    "\"white\",\"reason\":\"timeout\",\"clock\":{\"white\":4000,\"black\":0}}");
    cr_assert(render_clock_read(g, 0, &clk));
    cr_assert_eq(clk.running, RENDER_CLOCK_NONE);
    cr_assert_str_eq(render_clock_text(&clk, 9000, buf, sizeof buf), "White 0:04  Black 0:00");
    cJSON_Delete(g);
    /* No clock at all (unlimited, correspondence). */
    g = cJSON_Parse("{\"ply\":3,\"turn\":\"black\",\"status\":\"active\"}");
    cr_assert_not(render_clock_read(g, 0, &clk));
    cr_assert_not(clk.valid);
    cr_assert_eq(render_clock_next_ms(&clk, 0), -1);
    cJSON_Delete(g);
}

Test(live, clock_of_a_move_event_and_the_older_shapes)
{
    render_clock clk;
    char buf[64];
    /* A move event's ply is the ply just played: after ply 1 comes 2. */
    cJSON *e = cJSON_Parse("{\"type\":\"event\",\"event\":\"move\",\"game\":5,\"ply\":1,"
                           "\"turn\":\"white\",\"status\":\"active\","
                           "\"clock\":{\"white\":61000,\"black\":3723000}}");
    cr_assert(render_clock_read(e, 1000, &clk));
    cr_assert_eq(clk.running, RENDER_CLOCK_WHITE);
    cr_assert_str_eq(render_clock_text(&clk, 2000, buf, sizeof buf), "White 1:00  Black 1:02:03");
    cJSON_Delete(e);
    /* Fallbacks while the server sends the older fields. */
    cJSON *g = cJSON_Parse("{\"ply\":4,\"turn\":\"black\",\"clock\":{\"white_ms\":1000,"
                           "\"black_ms\":2000}}");
    cr_assert(render_clock_read(g, 0, &clk));
    cr_assert_eq(clk.white_ms, 1000);
    cr_assert_eq(clk.black_ms, 2000);
    cr_assert_eq(clk.running, RENDER_CLOCK_BLACK);
    cJSON_Delete(g);
    g = cJSON_Parse("{\"ply\":4,\"turn\":\"black\",\"clocks\":{\"white\":7000,\"black\":8000}}");
    cr_assert(render_clock_read(g, 0, &clk));
    cr_assert_eq(clk.white_ms, 7000);
    cr_assert_eq(clk.black_ms, 8000);
    cJSON_Delete(g);
    /* The new field wins when both are there. */
    g = cJSON_Parse("{\"ply\":4,\"turn\":\"black\",\"clock\":{\"white\":1,\"black\":2,"
                    "\"white_ms\":3,\"black_ms\":4}}");
    cr_assert(render_clock_read(g, 0, &clk));
    cr_assert_eq(clk.white_ms, 1);
    cr_assert_eq(clk.black_ms, 2);
    cJSON_Delete(g);
}

Test(live, game_shows_the_clock_field_draw_offer_and_vacation)
{
    char *s = game_flags_text(GAME5 LIVE_TC ",\"clock\":{\"white\":295000,\"black\":300000},"
                                            "\"draw_offer\":\"black\","
                                            "\"vacation\":{\"white\":true,\"black\":false}}",
                              "alice", 0);
    cr_assert(strstr(s, "White: alice  Black: bob\nTime: live:300+5\n"
                        "Clock: White 4:55  Black 5:00\n"
                        "Draw offered by Black (bob)\n"
                        "On vacation: White (alice)\n5  "),
              "%s", s);
    free(s);
    /* Nothing when there is no offer; the older boolean "vacation" (a
     * challenge option) says nothing about the players. */
    s = game_flags_text(GAME5 ",\"draw_offer\":null,\"vacation\":true}", "alice", 0);
    cr_assert_null(strstr(s, "Draw offered"), "%s", s);
    cr_assert_null(strstr(s, "On vacation"), "%s", s);
    free(s);
    s = game_flags_text(GAME5 ",\"vacation\":{\"white\":true,\"black\":true}}", NULL, 0);
    cr_assert(strstr(s, "\nOn vacation: White (alice), Black (bob)\n"), "%s", s);
    free(s);
}

/* ---- wrapping --------------------------------------------------------- */

Test(live, long_lists_wrap_between_moves)
{
    cJSON *list = cJSON_CreateArray();
    const char *moves[] = {"a1xc3xe5xc1xa3", "b2-c3", "e3xc1xe1xc3xa5xa3", "d4xb2"};
    for (int i = 0; i < 40; i++)
        cJSON_AddItemToArray(list, cJSON_CreateString(moves[i % 4]));
    char *buf;
    size_t n;
    FILE *f = open_memstream(&buf, &n);
    render_wrapped(f, "line:    ", list, 10);
    fclose(f);
    int lines = 0, words = 0;
    for (char *p = buf, *nl; (nl = strchr(p, '\n')); p = nl + 1, lines++) {
        cr_assert_leq(nl - p, RENDER_WIDTH, "line too long in %s", buf);
        cr_assert(lines == 0 ? strncmp(p, "line:     ", 10) == 0
                             : strncmp(p, "          ", 10) == 0 && p[10] != ' ',
                  "%s", buf);
        /* Every word on the line is one whole move. */
        char tmp[256];
        snprintf(tmp, sizeof tmp, "%.*s", (int)(nl - p), p);
        for (char *w = strtok(lines == 0 ? tmp + 5 : tmp, " "); w; w = strtok(NULL, " "), words++) {
            bool known = false;
            for (int i = 0; i < 4; i++)
                known |= strcmp(w, moves[i]) == 0;
            cr_assert(known, "'%s' is not a whole move: %s", w, buf);
        }
    }
    cr_assert_eq(words, 40);
    cr_assert_gt(lines, 3);
    free(buf);
    cJSON_Delete(list);
}

/* ---- words ------------------------------------------------------------ */

Test(live, every_error_code_has_a_sentence)
{
#define CHECK_CODE(e, code, msg)                                                                   \
    do {                                                                                           \
        const char *w = cli_error_sentence(code);                                                  \
        cr_assert_not_null(w, "no words for %s", code);                                            \
        cr_assert_null(strstr(w, code), "%s: %s", code, w);                                        \
        cr_assert(w[0] >= 'A' && w[0] <= 'Z', "%s: %s", code, w);                                  \
    } while (0);
    QK_ERRORS(CHECK_CODE)
#undef CHECK_CODE
    cr_assert_null(cli_error_sentence("brand_new"));
    char buf[256];
    cli_error_text("not_found", "no such game", buf, sizeof buf);
    cr_assert_str_eq(buf, "Not found: no such game");
    /* The server's default message adds nothing. */
    cli_error_text("game_over", qk_err_message(QK_ERR_GAME_OVER), buf, sizeof buf);
    cr_assert_str_eq(buf, "The game is over");
    cli_error_text("brand_new", "something", buf, sizeof buf);
    cr_assert_str_eq(buf, "The server refused the request (brand_new): something");
    cli_error_text(NULL, NULL, buf, sizeof buf);
    cr_assert_str_eq(buf, "The server refused the request (no code)");
}

/* ---- a scripted server ------------------------------------------------ */

typedef struct script {
    const char *game_extra; /* appended to GAME5's fields */
    const char *notes;      /* the notifications array */
    const char *games;      /* the games array */
    const char *error;      /* error code for move/resign/abort, or NULL */
} script;

static bool script_fn(fake *f, int conn, const cJSON *req, char *buf, size_t n)
{
    (void)conn;
    script *s = f->user;
    if (fake_basic(req, buf, n))
        return true;
    int id = req_id(req);
    if (s->error && (is(req, "move") || is(req, "resign") || is(req, "abort"))) {
        snprintf(buf, n,
                 "{\"type\":\"error\",\"id\":%d,\"code\":\"%s\",\"message\":\"game 5 is "
                 "finished\"}\n",
                 id, s->error);
    } else if (is(req, "game")) {
        snprintf(buf, n, "{\"type\":\"ok\",\"id\":%d,\"game\":" GAME5 "%s}}\n", id,
                 s->game_extra ? s->game_extra : "");
    } else if (is(req, "resign") || is(req, "abort")) {
        bool abort = is(req, "abort");
        snprintf(buf, n,
                 "{\"type\":\"ok\",\"id\":%d,\"game\":{\"id\":5,\"variant\":\"alquerque\","
                 "\"white\":\"alice\",\"black\":\"bob\",\"ply\":0,\"position\":\"" KAWU "\","
                 "\"turn\":\"white\",\"status\":\"%s\",\"result\":%s,\"reason\":\"%s\"}}\n",
                 id, abort ? "aborted" : "finished", abort ? "null" : "\"black\"",
                 abort ? "aborted" : "resign");
    } else if (is(req, "notifications")) {
        snprintf(buf, n, "{\"type\":\"ok\",\"id\":%d,\"notifications\":%s,\"unread\":5}\n", id,
                 s->notes);
    } else if (is(req, "read")) {
        snprintf(buf, n, "{\"type\":\"ok\",\"id\":%d,\"count\":5,\"unread\":0}\n", id);
    } else if (is(req, "games")) {
        snprintf(buf, n, "{\"type\":\"ok\",\"id\":%d,\"games\":%s}\n", id, s->games);
    } else if (is(req, "register")) {
        snprintf(buf, n,
                 "{\"type\":\"ok\",\"id\":%d,\"user\":{\"username\":\"bob\",\"bot\":false},"
                 "\"token\":\"%064d\"}\n",
                 id, 3);
    } else {
        snprintf(buf, n, "{\"type\":\"ok\",\"id\":%d}\n", id);
    }
    return true;
}

/* ---- confirmations ---------------------------------------------------- */

Test(live, resign_at_the_prompt_asks_first)
{
    script s = {0};
    fake_start(&srv, script_fn, &s);
    save_login("alice", srv.addr);
    crun r;
    crun_do(&r, "resign\nn\nresign\n\nresign\nyes\n", "--server", srv.addr, "play", "5", NULL);
    crun_expect(&r, 0);
    /* No, then Enter alone (the default is no), then yes. (The lines come
     * in one read from the pipe, so "your move: " is not asked between.) */
    cr_assert(strstr(r.out, "your move: Resign game 5 against bob? [y/N] Not resigned\n"
                            "Resign game 5 against bob? [y/N] Not resigned\n"
                            "Resign game 5 against bob? [y/N] \n"),
              "%s", r.out);
    cr_assert(strstr(r.out, "Black wins (White resigned): you lost\n"), "%s", r.out);
    crun_free(&r);
    cr_assert_eq(fake_count(&srv, "resign"), 1);
}

Test(live, abort_at_the_prompt_asks_first)
{
    script s = {0};
    fake_start(&srv, script_fn, &s);
    save_login("alice", srv.addr);
    crun r;
    crun_do(&r, "abort\nno\nabort\nY\n", "--server", srv.addr, "play", "5", NULL);
    crun_expect(&r, 0);
    cr_assert(strstr(r.out, "Abort game 5 against bob? [y/N] Not aborted\n"), "%s", r.out);
    cr_assert(strstr(r.out, "Game aborted\n"), "%s", r.out);
    crun_free(&r);
    cr_assert_eq(fake_count(&srv, "abort"), 1);
}

Test(live, shell_abort_asks_at_a_terminal_only)
{
    script s = {0};
    fake_start(&srv, script_fn, &s);
    save_login("alice", srv.addr);
    int master, slave;
    cr_assert_eq(openpty(&master, &slave, NULL, NULL, NULL), 0);
    cr_assert_eq(write(master, "n\n", 2), 2);
    FILE *in = fdopen(slave, "r");
    crun r;
    crun_in(&r, in, "--server", srv.addr, "abort", "5", NULL);
    crun_expect(&r, 0);
    cr_assert_str_eq(r.err, "Abort game 5? [y/N] ");
    cr_assert_str_eq(r.out, "Not aborted\n");
    crun_free(&r);
    cr_assert_eq(fake_count(&srv, "abort"), 0);
    crun_in(&r, in, "--server", srv.addr, "abort", "5", "--yes", NULL);
    crun_expect(&r, 0);
    cr_assert_str_eq(r.out, "Game 5: aborted\n");
    crun_free(&r);
    fclose(in);
    close(master);
    cr_assert_eq(fake_count(&srv, "abort"), 1);
}

/* ---- errors in words -------------------------------------------------- */

Test(live, server_errors_in_words_and_codes_under_json)
{
    script s = {.error = "game_over"};
    fake_start(&srv, script_fn, &s);
    save_login("alice", srv.addr);
    crun r;
    crun_do(&r, NULL, "--server", srv.addr, "resign", "5", NULL);
    crun_expect(&r, 1);
    cr_assert_str_eq(r.err, "The game is over: game 5 is finished\n");
    crun_free(&r);
    crun_do(&r, NULL, "--server", srv.addr, "--json", "resign", "5", NULL);
    crun_expect(&r, 1);
    cr_assert_str_eq(r.err, "game_over: game 5 is finished\n");
    cr_assert(strstr(r.out, "\"code\":\"game_over\""), "%s", r.out);
    crun_free(&r);
}

/* ---- inbox ------------------------------------------------------------ */

/* As the server orders them: unread oldest first, then read newest first.
 * Minutes 12:00.. of 2025-12-01 UTC. */
#define T(m) "\"created\":" #m
#define NOTES                                                                                                                                                                                \
    "[{\"id\":3,\"kind\":\"your_turn\",\"game\":5,\"read\":false," T(                                                                                                                        \
        1764590520000) ","                                                                                                                                                                   \
                       "\"opponent\":\"bob\",\"move\":\"b2-c3\",\"ply\":1,\"deadline\":null},"                                                                                               \
                       "{\"id\":4,\"kind\":\"your_turn\",\"game\":7,\"read\":false," T(                                                                                                      \
                           1764590580000) ","                                                                                                                                                \
                                          "\"opponent\":\"carol\",\"move\":null,\"ply\":0,"                                                                                                  \
                                          "\"deadline\":1764849600000},"                                                                                                                     \
                                          "{\"id\":5,\"kind\":\"your_turn\",\"game\":5,\"read\":"                                                                                            \
                                          "false," T(                                                                                                                                        \
                                              1764590640000) ","                                                                                                                             \
                                                             "\"opponent\":\"bob\",\"move\":"                                                                                                \
                                                             "\"d4xb2\",\"ply\":3,\"deadline\":"                                                                                             \
                                                             "null},"                                                                                                                        \
                                                             "{\"id\":6,\"kind\":\"challenge_"                                                                                               \
                                                             "declined\",\"game\":null,\"read\":"                                                                                            \
                                                             "false," T(                                                                                                                     \
                                                                 1764590700000) ","                                                                                                          \
                                                                                "\"challenge\":9,"                                                                                           \
                                                                                "\"by\":\"bob\","                                                                                            \
                                                                                "\"reason\":"                                                                                                \
                                                                                "\"variant\","                                                                                               \
                                                                                "\"message\":"                                                                                               \
                                                                                "\"alquerkonane "                                                                                            \
                                                                                "only\"},"                                                                                                   \
                                                                                "{\"id\":7,"                                                                                                 \
                                                                                "\"kind\":\"draw_"                                                                                           \
                                                                                "declined\","                                                                                                \
                                                                                "\"game\":7,"                                                                                                \
                                                                                "\"read\":"                                                                                                  \
                                                                                "false," T(                                                                                                  \
                                                                                    1764590760000) ","                                                                                       \
                                                                                                   "\"opponent\":\"carol\"},"                                                                \
                                                                                                   "{\"id\":2,\"kind\":\"challenge\",\"game\":null,\"read\":true," T(                        \
                                                                                                       1764590460000) ","                                                                    \
                                                                                                                      "\"challenge\":4,\"from\":\"carol\",\"variant\":\"alquerque\","        \
                                                                                                                      "\"time_control\":{\"kind\":\"correspondence\",\"days_per_move\":3}}," \
                                                                                                                      "{\"id\":1,\"kind\":\"your_turn\",\"game\":5,\"read\":true," T(        \
                                                                                                                          1764590400000) ","                                                 \
                                                                                                                                         "\"opponent\":\"bob\",\"move\":null,\"ply\":0,\"deadline\":null}]"

Test(live, inbox_newest_first_one_line_per_game_read_ones_apart)
{
    script s = {.notes = NOTES};
    fake_start(&srv, script_fn, &s);
    save_login("alice", srv.addr);
    crun r;
    crun_do(&r, NULL, "--server", srv.addr, "inbox", NULL);
    crun_expect(&r, 0);
    cr_assert_str_eq(r.out,
                     "New (4):\n"
                     "  2025-12-01 12:06 UTC  game 7: carol declined your draw offer\n"
                     "  2025-12-01 12:05 UTC  challenge 9: bob declined (not this variant): "
                     "\"alquerkonane only\"\n"
                     "  2025-12-01 12:04 UTC  game 5: your move against bob, who played d4xb2 "
                     "(3 notices)\n"
                     "  2025-12-01 12:03 UTC  game 7: your move against carol, the game has "
                     "started, deadline 2025-12-04 12:00 UTC\n"
                     "\n"
                     "Read before:\n"
                     "  2025-12-01 12:01 UTC  challenge 4 from carol: alquerque, corr:3 "
                     "(qirkat accept 4)\n");
    crun_free(&r);
    /* Every unread one is marked read, the folded ones too. */
    cJSON *rd = fake_request(&srv, "read", 0);
    cr_assert_not_null(rd);
    cJSON *ids = cJSON_GetObjectItem(rd, "ids");
    cr_assert_eq(cJSON_GetArraySize(ids), 5);
    int want[] = {3, 4, 5, 6, 7};
    for (int i = 0; i < 5; i++)
        cr_assert_eq(cJSON_GetArrayItem(ids, i)->valueint, want[i]);
    cJSON_Delete(rd);
}

Test(live, inbox_words_for_every_kind)
{
    struct {
        const char *json, *text;
    } cases[] = {
        {"{\"kind\":\"draw_offer\",\"game\":5,\"opponent\":\"bob\"}",
         "game 5: bob offers a draw (qirkat draw accept|decline 5)"},
        {"{\"kind\":\"game_end\",\"game\":5,\"opponent\":\"bob\",\"result\":\"white\","
         "\"reason\":\"timeout\"}",
         "game 5 against bob is over: White won (time)"},
        {"{\"kind\":\"game_end\",\"game\":5,\"opponent\":\"bob\",\"result\":\"white\","
         "\"reason\":\"timeout\",\"color\":\"white\"}",
         "game 5 against bob is over: you won (time)"},
        {"{\"kind\":\"game_end\",\"game\":5,\"opponent\":\"bob\",\"result\":\"white\","
         "\"reason\":\"resign\",\"color\":\"black\"}",
         "game 5 against bob is over: you lost (resignation)"},
        {"{\"kind\":\"game_end\",\"game\":5,\"opponent\":\"bob\",\"result\":\"draw\","
         "\"reason\":\"agreement\",\"color\":\"black\"}",
         "game 5 against bob is over: draw (agreement)"},
        {"{\"kind\":\"game_end\",\"game\":5,\"opponent\":\"bob\",\"result\":\"black\","
         "\"reason\":\"adjudicated\",\"color\":\"black\"}",
         "game 5 against bob is over: you won (decided by an administrator)"},
        {"{\"kind\":\"game_end\",\"game\":5,\"opponent\":\"bob\",\"result\":null,"
         "\"reason\":\"aborted\"}",
         "game 5 against bob was aborted"},
        {"{\"kind\":\"deadline_soon\",\"game\":5,\"opponent\":\"bob\",\"deadline\":86400000}",
         "game 5: less than a day left for your move against bob, deadline 1970-01-02 00:00 UTC"},
        {"{\"kind\":\"challenge_declined\",\"challenge\":2,\"by\":\"dave\",\"reason\":\"generic\"}",
         "challenge 2: dave declined"},
        {"{\"kind\":\"challenge_declined\",\"challenge\":2,\"by\":\"dave\",\"reason\":\"later\"}",
         "challenge 2: dave declined (not now, maybe later)"},
        {"{\"kind\":\"tournament\"}",
         "a notification of a kind this client does not know (tournament)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cJSON *n = cJSON_Parse(cases[i].json);
        char buf[512];
        cmd_note_text(n, buf, sizeof buf);
        cr_assert_str_eq(buf, cases[i].text);
        cJSON_Delete(n);
    }
}

/* ---- games --mine ----------------------------------------------------- */

#define MY_GAMES                                                                                   \
    "[{\"id\":9,\"variant\":\"alquerque\",\"white\":\"bob\",\"black\":\"alice\",\"ply\":3,"        \
    "\"turn\":\"black\",\"status\":\"active\",\"time_left_ms\":183600000,"                         \
    "\"time_control\":{\"kind\":\"correspondence\",\"days_per_move\":3}},"                         \
    "{\"id\":8,\"variant\":\"alquerque\",\"white\":\"alice\",\"black\":\"carol\",\"ply\":6,"       \
    "\"turn\":\"black\",\"status\":\"active\",\"time_left_ms\":3723000,"                           \
    "\"time_control\":{\"kind\":\"live\",\"initial_s\":300,\"increment_s\":5},"                    \
    "\"clock\":{\"white\":61000,\"black\":3723000}}]"

Test(live, games_mine_time_control_and_both_times)
{
    script s = {.games = MY_GAMES};
    fake_start(&srv, script_fn, &s);
    save_login("alice", srv.addr);
    crun r;
    crun_do(&r, NULL, "--server", srv.addr, "games", "--mine", NULL);
    crun_expect(&r, 0);
    cr_assert_str_eq(r.out, "GAME  OPPONENT  COLOR  VARIANT    TIME        TURN   STATUS  PLY  "
                            "YOU LEFT  OPP LEFT\n"
                            "9     bob       black  alquerque  corr:3      you    active  3    "
                            "2d 03h    -\n"
                            "8     carol     white  alquerque  live:300+5  carol  active  6    "
                            "1:01      1:02:03\n");
    crun_free(&r);
}

/* ---- the engine's verdict --------------------------------------------- */

Test(live, eval_verdict_names_the_side)
{
    char buf[64];
    cr_assert_str_eq(cmd_eval_verdict(35, true, buf, sizeof buf), "favours White");
    cr_assert_str_eq(cmd_eval_verdict(35, false, buf, sizeof buf), "favours Black");
    cr_assert_str_eq(cmd_eval_verdict(-120, true, buf, sizeof buf), "favours Black");
    cr_assert_str_eq(cmd_eval_verdict(0, true, buf, sizeof buf), "even");
    cr_assert_str_eq(cmd_eval_verdict(29978, false, buf, sizeof buf), "Black wins with best play");
    cr_assert_str_eq(cmd_eval_verdict(-29978, false, buf, sizeof buf), "White wins with best play");
    crun r;
    crun_do(&r, NULL, "analyse", "alquerque", "--depth", "2", NULL);
    crun_expect(&r, 0);
    cr_assert(strstr(r.out, " (White to move): favours White\n") ||
                  strstr(r.out, " (White to move): favours Black\n") ||
                  strstr(r.out, " (White to move): even\n"),
              "%s", r.out);
    crun_free(&r);
}

/* ---- register, --version ---------------------------------------------- */

Test(live, register_refuses_short_passwords_before_connecting)
{
    crun r;
    /* Nothing listens on port 1: a connection attempt would be exit 3. */
    crun_do(&r, "seven77\n", "--server", "127.0.0.1:1", "register", "bob", "--password-stdin",
            NULL);
    crun_expect(&r, 2);
    cr_assert(strncmp(r.err,
                      "qirkat register: the password is too short: 7 characters, at least 8 "
                      "needed\n",
                      strlen("qirkat register: the password is too short: 7 "
                             "characters, at least 8 needed\n")) == 0,
              "%s", r.err);
    crun_free(&r);
    /* Characters, not bytes: seven two-byte letters are still seven. */
    crun_do(&r, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\n", "--server",
            "127.0.0.1:1", "register", "bob", "--password-stdin", NULL);
    crun_expect(&r, 2);
    cr_assert(strstr(r.err, "7 characters"), "%s", r.err);
    crun_free(&r);
    crun_do(&r, "eight888\n", "--server", "127.0.0.1:1", "register", "bob", "--password-stdin",
            NULL);
    crun_expect(&r, 3);
    crun_free(&r);
}

Test(live, register_over_another_users_session_asks_or_needs_yes)
{
    script s = {0};
    fake_start(&srv, script_fn, &s);
    save_login("alice", srv.addr);
    crun r;
    crun_do(&r, "long enough\n", "--server", srv.addr, "register", "bob", "--password-stdin", NULL);
    crun_expect(&r, 2);
    cr_assert(strstr(r.err, "holds the session of alice on 127.0.0.1:"), "%s", r.err);
    cr_assert(strstr(r.err, "registering bob would replace it: add --yes"), "%s", r.err);
    crun_free(&r);
    cr_assert_eq(fake_count(&srv, "register"), 0);
    session kept;
    cr_assert_eq(session_load(&kept), SESSION_OK);
    cr_assert_str_eq(kept.username, "alice");

    /* At a terminal: asked, and "n" keeps alice's session. */
    int master, slave;
    cr_assert_eq(openpty(&master, &slave, NULL, NULL, NULL), 0);
    cr_assert_eq(write(master, "n\n", 2), 2);
    FILE *in = fdopen(slave, "r");
    crun_in(&r, in, "--server", srv.addr, "register", "bob", NULL);
    fclose(in);
    close(master);
    crun_expect(&r, 0);
    cr_assert(strstr(r.err, "holds the session of alice on 127.0.0.1:"), "%s", r.err);
    cr_assert(strstr(r.err, ". Register bob and replace it? [y/N] "), "%s", r.err);
    cr_assert_str_eq(r.out, "Not registered; the stored session is kept\n");
    crun_free(&r);
    cr_assert_eq(fake_count(&srv, "register"), 0);

    crun_do(&r, "long enough\n", "--server", srv.addr, "register", "bob", "--password-stdin",
            "--yes", NULL);
    crun_expect(&r, 0);
    crun_free(&r);
    cr_assert_eq(session_load(&kept), SESSION_OK);
    cr_assert_str_eq(kept.username, "bob");
    /* The same name again: nothing to ask. */
    crun_do(&r, "long enough\n", "--server", srv.addr, "register", "Bob", "--password-stdin", NULL);
    crun_expect(&r, 0);
    crun_free(&r);
    cr_assert_eq(fake_count(&srv, "register"), 2);
}

Test(live, version)
{
    crun r;
    crun_do(&r, NULL, "--version", NULL);
    crun_expect(&r, 0);
    cr_assert_str_eq(r.out, "qirkat " CLI_VERSION " (protocol 2)\n");
    cr_assert_str_eq(r.err, "");
    crun_free(&r);
    crun_do(&r, NULL, "--help", NULL);
    cr_assert(strstr(r.out, "  --version "), "%s", r.out);
    crun_free(&r);
}

/* ---- the line editor on a real terminal -------------------------------- */

typedef struct lines {
    char got[4][64];
    int n;
    bool eof;
} lines;

static void lines_cb(const char *line, void *ctx)
{
    lines *l = ctx;
    if (!line) {
        l->eof = true;
        return;
    }
    if (l->n < 4)
        snprintf(l->got[l->n++], sizeof l->got[0], "%s", line);
    ledit_add_history(line);
}

/* Feed what the "user" typed on the pty's master side to the editor, as
 * the play loop does: one ledit_feed() each time the terminal is readable
 * (libedit takes a key per call). */
static void type_keys(int master, int slave, const char *keys)
{
    cr_assert_eq(write(master, keys, strlen(keys)), (ssize_t)strlen(keys));
    struct pollfd p = {.fd = slave, .events = POLLIN};
    for (int i = 0; i < 100 && poll(&p, 1, 200) > 0; i++)
        ledit_feed();
    /* Drain the echo so the pty never fills. */
    char junk[4096];
    while (read(master, junk, sizeof junk) > 0) {
    }
}

Test(live, line_editor_edits_and_recalls_history_on_a_pty)
{
    setenv("TERM", "vt100", 1);
    int master, slave;
    cr_assert_eq(openpty(&master, &slave, NULL, NULL, NULL), 0);
    fcntl(master, F_SETFL, O_NONBLOCK);
    FILE *in = fdopen(slave, "r"), *out = fdopen(dup(slave), "w");
    cr_assert(in && out);
    cr_assert(ledit_possible(in, out));
    /* Not a terminal: refused, the caller reads plain lines. */
    FILE *file = tmpfile();
    cr_assert_not(ledit_possible(file, out));
    fclose(file);
    lines l = {0};
    cr_assert(ledit_start(in, out, "your move: ", lines_cb, &l));
    cr_assert(ledit_active());
    type_keys(master, slave, "b2-c4");
    type_keys(master, slave,
              "\x7f"
              "3\r"); /* backspace, then the right digit */
    cr_assert_eq(l.n, 1);
    cr_assert_str_eq(l.got[0], "b2-c3");
    ledit_show();
    ledit_set_prompt("[White 4:55  Black 5:00] your move: ");
    type_keys(master, slave, "\x1b[A\r"); /* up arrow: the last line again */
    cr_assert_eq(l.n, 2);
    cr_assert_str_eq(l.got[1], "b2-c3");
    ledit_show();
    type_keys(master, slave, "\x04"); /* Ctrl-D on an empty line: end of input */
    cr_assert(l.eof);
    ledit_stop();
    cr_assert_not(ledit_active());
    fclose(in);
    fclose(out);
    close(master);
}
