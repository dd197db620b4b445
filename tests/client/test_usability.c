/*
 * A newcomer's report, against the scripted fake (fake.h): the server the
 * session was made on, the play prompt's words, clocks, bots, challenge
 * listings, resign's question, and the other usability fixes.
 */
#include <criterion/criterion.h>
#include <pty.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "fake.h"
#include "play.h"
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

TestSuite(usability, .init = setup, .fini = teardown, .timeout = 30);

/* ---- 1. the session's server ------------------------------------------ */

static bool register_script(fake *f, int conn, const cJSON *req, char *buf, size_t n)
{
    (void)f;
    (void)conn;
    if (fake_basic(req, buf, n))
        return true;
    if (is(req, "register"))
        snprintf(buf, n,
                 "{\"type\":\"ok\",\"id\":%d,\"user\":{\"username\":\"carol\",\"bot\":false},"
                 "\"token\":\"%064d\"}\n",
                 req_id(req), 7);
    else if (is(req, "challenges"))
        snprintf(buf, n, "{\"type\":\"ok\",\"id\":%d,\"challenges\":[]}\n", req_id(req));
    return true;
}

Test(usability, later_commands_go_to_the_server_you_registered_on)
{
    fake_start(&srv, register_script, NULL);
    crun r;
    crun_do(&r, "pw-carol-1\n", "--server", srv.addr, "register", "carol", "--password-stdin",
            NULL);
    crun_expect(&r, 0);
    crun_free(&r);
    /* No --server, no QIRKAT_SERVER: the session's server, logged in. */
    crun_do(&r, NULL, "challenges", NULL);
    crun_expect(&r, 0);
    cr_assert_str_eq(r.out, "No open challenges\n");
    crun_free(&r);
    cr_assert_eq(fake_count(&srv, "login"), 1);
    cr_assert_eq(fake_count(&srv, "challenges"), 1);
}

Test(usability, another_server_from_the_environment_is_named)
{
    save_login("carol", "127.0.0.1:7431");
    setenv("QIRKAT_SERVER", "127.0.0.1:7420", 1);
    crun r;
    crun_do(&r, NULL, "challenges", NULL);
    crun_expect(&r, 1);
    cr_assert_str_eq(r.err,
                     "Not logged in here: you are logged in on 127.0.0.1:7431 (as carol), not on "
                     "127.0.0.1:7420 (from QIRKAT_SERVER); log in there (qirkat --server "
                     "127.0.0.1:7420 login carol) or use --server 127.0.0.1:7431\n");
    crun_free(&r);
    unsetenv("QIRKAT_SERVER");
}

/* ---- 2, 3, 6. the play prompt ----------------------------------------- */

#define END_START "...../...../..b../..w../..... w 0 -"
#define END_AFTER "...../..w../...../...../..... b 0 -"

/* Game 5, alice (white) against bob (black); extra: more fields, "" or
 * starting with ','. ply 0: White to move at KAWU; 1: after b2-c3. */
static void game_json(char *buf, size_t n, int ply, const char *extra)
{
    if (ply == 0)
        snprintf(buf, n,
                 "{\"id\":5,\"variant\":\"alquerque\",\"white\":\"alice\",\"black\":\"bob\","
                 "\"start\":\"" KAWU "\",\"moves\":[],\"ply\":0,\"position\":\"" KAWU "\","
                 "\"turn\":\"white\",\"legal_moves\":[\"b2-c3\",\"b3-c3\",\"c2-c3\",\"d2-c3\"],"
                 "\"status\":\"active\",\"result\":null,\"reason\":null%s}",
                 extra);
    else
        snprintf(buf, n,
                 "{\"id\":5,\"variant\":\"alquerque\",\"white\":\"alice\",\"black\":\"bob\","
                 "\"start\":\"" KAWU "\",\"moves\":[\"b2-c3\"],\"ply\":1,"
                 "\"position\":\"bbbbb/bbbbb/wwwbb/w.www/wwwww b 1 -\",\"turn\":\"black\","
                 "\"legal_moves\":[\"b4xb2\",\"d4xb2\"],\"status\":\"active\",\"result\":null,"
                 "\"reason\":null%s}",
                 extra);
}

typedef struct prompt_ctx {
    int ply;        /* the game's ply on the fake */
    bool ending;    /* the game is the one-capture ending; a move ends it */
    int wfd;        /* the test's end of the client's stdin, or -1 */
    int ticks;      /* quiet periods seen since the first `game` */
    const char *me; /* login answer's username */
    bool seen_game; /* the first `game` was answered */
    int push_at;    /* idle tick that pushes `push` */
    const char *push;
    int type_at; /* idle tick that types `type` (into wfd) */
    const char *type;
    int close_at;           /* idle tick that closes wfd */
    int games;              /* `game` requests answered */
    int ply_after;          /* from the second `game` on, the game's ply (when > 0) */
    const char *type_after; /* typed on the first quiet tick after the second `game` */
    bool illegal;           /* `move` is refused as illegal_move */
} prompt_ctx;

static void ending_json(char *buf, size_t n, bool over)
{
    snprintf(buf, n,
             "{\"id\":5,\"variant\":\"alquerque\",\"white\":\"alice\",\"black\":\"bob\","
             "\"start\":\"" END_START "\",\"moves\":[%s],\"ply\":%d,\"position\":\"%s\","
             "\"turn\":\"%s\",\"legal_moves\":[%s],\"status\":\"%s\",\"result\":%s,"
             "\"reason\":%s,\"time_control\":{\"kind\":\"unlimited\"},\"deadline\":null}",
             over ? "\"c2xc4\"" : "", over ? 1 : 0, over ? END_AFTER : END_START,
             over ? "black" : "white", over ? "" : "\"c2xc4\"", over ? "finished" : "active",
             over ? "\"white\"" : "null", over ? "\"no_pieces\"" : "null");
}

static bool prompt_script(fake *f, int conn, const cJSON *req, char *buf, size_t n)
{
    (void)conn;
    prompt_ctx *p = f->user;
    int id = req_id(req);
    if (p->me && is(req, "login")) {
        snprintf(buf, n,
                 "{\"type\":\"ok\",\"id\":%d,\"user\":{\"username\":\"%s\",\"bot\":false},"
                 "\"token\":\"tok\"}\n",
                 id, p->me);
        return true;
    }
    if (fake_basic(req, buf, n))
        return true;
    char game[4096];
    if (is(req, "game") && p->games++ > 0 && p->ply_after > 0)
        p->ply = p->ply_after;
    if (p->ending)
        ending_json(game, sizeof game, p->ply > 0);
    else
        game_json(game, sizeof game, p->ply, "");
    if (is(req, "game")) {
        snprintf(buf, n, "{\"type\":\"ok\",\"id\":%d,\"game\":%s}\n", id, game);
        p->seen_game = true;
    } else if (is(req, "move") && p->illegal) {
        snprintf(buf, n,
                 "{\"type\":\"error\",\"id\":%d,\"code\":\"illegal_move\","
                 "\"message\":\"d2-d4 is not legal\"}\n",
                 id);
    } else if (is(req, "move")) {
        p->ply = 1;
        if (p->ending)
            ending_json(game, sizeof game, true);
        else
            game_json(game, sizeof game, 1, "");
        /* The answer, then the events a real server sends with it. */
        snprintf(buf, n,
                 "{\"type\":\"ok\",\"id\":%d,\"game\":%s}\n"
                 "{\"type\":\"event\",\"event\":\"move\",\"game\":5,\"ply\":0,\"move\":\"%s\"}\n"
                 "%s",
                 id, game, p->ending ? "c2xc4" : "b2-c3",
                 p->ending ? "{\"type\":\"event\",\"event\":\"game_end\",\"game\":5,"
                             "\"result\":\"white\",\"reason\":\"no_pieces\"}\n"
                           : "");
    } else if (is(req, "draw")) {
        game_json(game, sizeof game, p->ply, ",\"draw_offer\":\"white\"");
        snprintf(buf, n,
                 "{\"type\":\"event\",\"event\":\"draw_offer\",\"game\":5,\"action\":\"offer\","
                 "\"by\":\"white\"}\n{\"type\":\"ok\",\"id\":%d,\"game\":%s}\n",
                 id, game);
    } else if (is(req, "hint")) {
        snprintf(buf, n,
                 "{\"type\":\"ok\",\"id\":%d,\"game\":5,\"ply\":0,\"move\":\"b2-c3\","
                 "\"eval\":\"+0.20\",\"depth\":6,\"line\":[\"b2-c3\"]}\n",
                 id);
    }
    return true;
}

static void prompt_idle(fake *f, int conn, char *buf, size_t n)
{
    (void)conn;
    prompt_ctx *p = f->user;
    if (!p->seen_game)
        return;
    p->ticks++;
    if (p->ticks == p->push_at && p->push)
        snprintf(buf, n, "%s", p->push);
    if (p->ticks == p->type_at && p->type && p->wfd >= 0)
        cr_assert_eq(write(p->wfd, p->type, strlen(p->type)), (ssize_t)strlen(p->type));
    if (p->games >= 2 && p->type_after && p->wfd >= 0) {
        cr_assert_eq(write(p->wfd, p->type_after, strlen(p->type_after)),
                     (ssize_t)strlen(p->type_after));
        p->type_after = NULL;
    }
    if (p->ticks == p->close_at && p->wfd >= 0) {
        close(p->wfd);
        p->wfd = -1;
    }
}

static void save_alice(void)
{
    save_login("alice", srv.addr);
}

Test(usability, play_prompt_words)
{
    static prompt_ctx p; /* read by the fake's thread until teardown stops it */
    p = (prompt_ctx){.wfd = -1};
    fake_start(&srv, prompt_script, &p);
    save_alice();
    crun r;
    crun_do(&r, "help\nfoo\nquitter\ndraw\nhint\n  B2-C3 \n", "--server", srv.addr, "play", "5",
            NULL);
    crun_expect(&r, 0);
    cr_assert(strstr(r.out, "  draw accept   accept your opponent's draw offer\n"), "%s", r.out);
    cr_assert(strstr(r.out, "  hint          the engine's move (unrated games)\n"), "%s", r.out);
    cr_assert(strstr(r.out, "  abort         abort the game"), "%s", r.out);
    cr_assert(strstr(r.out, "unknown command; type help\nunknown command; type help\n"), "%s",
              r.out);
    /* Our own offer's event is not announced to us. */
    cr_assert(strstr(r.out, "Draw offered; your opponent may accept it until the next move\n"),
              "%s", r.out);
    cr_assert_null(strstr(r.out, "offers a draw"), "%s", r.out);
    cr_assert(strstr(r.out, "Hint: b2-c3 (+0.20, depth 6)\n"), "%s", r.out);
    crun_free(&r);
    cJSON *d = fake_request(&srv, "draw", 0);
    cr_assert_not_null(d);
    cr_assert_str_eq(cJSON_GetObjectItem(d, "action")->valuestring, "offer");
    cJSON_Delete(d);
    cr_assert_eq(fake_count(&srv, "hint"), 1);
    cr_assert_eq(fake_count(&srv, "move"), 1);
    cJSON *mv = fake_request(&srv, "move", 0);
    cr_assert_str_eq(cJSON_GetObjectItem(mv, "move")->valuestring, "b2-c3");
    cJSON_Delete(mv);
}

Test(usability, play_draw_answers_and_abort)
{
    static prompt_ctx p; /* read by the fake's thread until teardown stops it */
    p = (prompt_ctx){.wfd = -1};
    fake_start(&srv, prompt_script, &p);
    save_alice();
    crun r;
    /* abort asks first (issue 10): "y" sends it. */
    crun_do(&r, "Draw Accept\ndraw decline\nabort\ny\n", "--server", srv.addr, "play", "5", NULL);
    crun_expect(&r, 0);
    cr_assert(strstr(r.out, "Abort game 5 against bob? [y/N] "), "%s", r.out);
    crun_free(&r);
    cJSON *d0 = fake_request(&srv, "draw", 0), *d1 = fake_request(&srv, "draw", 1);
    cr_assert(d0 && d1);
    cr_assert_str_eq(cJSON_GetObjectItem(d0, "action")->valuestring, "accept");
    cr_assert_str_eq(cJSON_GetObjectItem(d1, "action")->valuestring, "decline");
    cJSON_Delete(d0);
    cJSON_Delete(d1);
    cr_assert_eq(fake_count(&srv, "abort"), 1);
}

Test(usability, play_classify_draw_and_move_text)
{
    char mv[64];
    cr_assert_eq(play_classify(" Draw   Accept ", mv, sizeof mv), PLAY_IN_DRAW_ACCEPT);
    cr_assert_eq(play_classify("draw", mv, sizeof mv), PLAY_IN_DRAW_OFFER);
    cr_assert_eq(play_classify("draw offer", mv, sizeof mv), PLAY_IN_DRAW_OFFER);
    cr_assert_eq(play_classify("DRAW DECLINE", mv, sizeof mv), PLAY_IN_DRAW_DECLINE);
    cr_assert_eq(play_classify("hint", mv, sizeof mv), PLAY_IN_HINT);
    cr_assert_eq(play_classify("abort", mv, sizeof mv), PLAY_IN_ABORT);
    cr_assert_eq(play_classify("draw please", mv, sizeof mv), PLAY_IN_UNKNOWN);
    cr_assert_eq(play_classify("b2-c3!", mv, sizeof mv), PLAY_IN_UNKNOWN);
    /* Move text: any case, blanks around the dashes; sent trimmed and
     * lowercased. Illegal ones still go to the server, which judges. */
    cr_assert_eq(play_classify(" B2 - C3 ", mv, sizeof mv), PLAY_IN_MOVE);
    cr_assert_str_eq(mv, "b2-c3");
    cr_assert_eq(play_classify("E3XC1XE1", mv, sizeof mv), PLAY_IN_MOVE);
    cr_assert_str_eq(mv, "e3xc1xe1");
    cr_assert_eq(play_classify("z9-z10", mv, sizeof mv), PLAY_IN_MOVE);
    /* Tries at a move that are not move text (issue 24): explained, not
     * sent; a word with no digit stays an unknown command. */
    cr_assert_eq(play_classify("bxd2", mv, sizeof mv), PLAY_IN_BAD_MOVE);
    cr_assert_eq(play_classify("b2", mv, sizeof mv), PLAY_IN_BAD_MOVE);
    cr_assert_eq(play_classify("b2-", mv, sizeof mv), PLAY_IN_BAD_MOVE);
    cr_assert_eq(play_classify("xb2", mv, sizeof mv), PLAY_IN_BAD_MOVE);
    cr_assert_eq(play_classify("b2--c3", mv, sizeof mv), PLAY_IN_BAD_MOVE);
    cr_assert_eq(play_classify("quitter", mv, sizeof mv), PLAY_IN_UNKNOWN);
    cr_assert(play_is_move_text("b4xd2") && play_is_move_text("a10-a11") && !play_is_move_text("b4xd"));
}

/* At the prompt, "bxd2" says what move text is with two legal moves of
 * the position; an illegal move says so once and lists the legal ones;
 * neither repeats the server's words. */
Test(usability, play_explains_move_text_and_illegal_moves)
{
    static prompt_ctx p; /* read by the fake's thread until teardown stops it */
    p = (prompt_ctx){.wfd = -1, .illegal = true};
    fake_start(&srv, prompt_script, &p);
    save_alice();
    crun r;
    crun_do(&r, "bxd2\nd2-d4\nquit\n", "--server", srv.addr, "play", "5", NULL);
    crun_expect(&r, 0);
    cr_assert(strstr(r.out, "\"bxd2\" is not move text. A move names the points of its piece's path, "
                            "joined by - for a step and x for a capture: b2-c3 goes from b2 to c3, "
                            "b4xd2 jumps from b4 over the piece between to d2.\n"
                            "Here you can play b2-c3 or b3-c3, for example (type moves to see them "
                            "all).\n"),
              "%s", r.out);
    cr_assert(strstr(r.out, "d2-d4 is not a legal move here\nLegal moves (4): b2-c3 b3-c3 c2-c3 d2-c3\n"),
              "%s", r.out);
    cr_assert_null(strstr(r.out, "not legal:"), "%s", r.out);
    cr_assert_null(strstr(r.err, "not legal"), "%s", r.err);
    crun_free(&r);
    cr_assert_eq(fake_count(&srv, "move"), 1); /* bxd2 was never sent */
}

Test(usability, opponents_draw_offer_starts_a_fresh_line_and_asks_again)
{
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    static prompt_ctx p; /* read by the fake's thread until teardown stops it */
    p = (prompt_ctx){.wfd = fds[1],
                    .push_at = 2,
                    .push = "{\"type\":\"event\",\"event\":\"draw_offer\",\"game\":5,"
                            "\"action\":\"offer\",\"by\":\"black\"}\n",
                    .close_at = 6};
    fake_start(&srv, prompt_script, &p);
    fake_set_idle(&srv, prompt_idle);
    save_alice();
    FILE *in = fdopen(fds[0], "r");
    crun r;
    crun_in(&r, in, "--server", srv.addr, "play", "5", NULL);
    fclose(in);
    crun_expect(&r, 0);
    cr_assert(strstr(r.out, "your move: \nYour opponent offers a draw: type `draw accept` or "
                            "`draw decline`\nyour move: "),
              "%s", r.out);
    crun_free(&r);
}

Test(usability, final_board_is_drawn_once)
{
    static prompt_ctx p; /* read by the fake's thread until teardown stops it */
    p = (prompt_ctx){.ending = true, .wfd = -1};
    fake_start(&srv, prompt_script, &p);
    save_alice();
    crun r;
    crun_do(&r, "c2xc4\n", "--server", srv.addr, "play", "5", NULL);
    crun_expect(&r, 0);
    int n = 0;
    for (const char *q = r.out; (q = strstr(q, "White wins")); q++)
        n++;
    cr_assert_eq(n, 1, "%s", r.out);
    cr_assert(strstr(r.out, "White wins (Black has no pieces left): you won\n"), "%s", r.out);
    int boards = 0;
    for (const char *q = r.out; (q = strstr(q, "Game 5  alquerque")); q++)
        boards++;
    cr_assert_eq(boards, 2, "start and end: %s", r.out);
    crun_free(&r);
}

static bool move_script(fake *f, int conn, const cJSON *req, char *buf, size_t n)
{
    (void)f;
    (void)conn;
    if (fake_basic(req, buf, n))
        return true;
    char game[4096];
    game_json(game, sizeof game, 1, "");
    snprintf(buf, n, "{\"type\":\"ok\",\"id\":%d,\"game\":%s}\n", req_id(req), game);
    return true;
}

Test(usability, move_text_is_trimmed_and_lowercased)
{
    fake_start(&srv, move_script, NULL);
    save_alice();
    crun r;
    crun_do(&r, NULL, "--server", srv.addr, "move", "5", " B2-C3 ", "--ply", "0", NULL);
    crun_expect(&r, 0);
    crun_free(&r);
    cJSON *mv = fake_request(&srv, "move", 0);
    cr_assert_str_eq(cJSON_GetObjectItem(mv, "move")->valuestring, "b2-c3");
    cJSON_Delete(mv);
}

/* On a terminal, what was typed before the opponent's move redraws the
 * board is discarded: "d4" then the redraw then "xb2" is not d4xb2. */
Test(usability, redraw_on_a_terminal_discards_the_half_typed_line)
{
    int master, slave;
    cr_assert_eq(openpty(&master, &slave, NULL, NULL, NULL), 0);
    static prompt_ctx p; /* read by the fake's thread until teardown stops it */
    p = (prompt_ctx){.me = "bob",
                    .wfd = master,
                    .type_at = 1,
                    .type = "d4",
                    .push_at = 3,
                    .push = "{\"type\":\"event\",\"event\":\"move\",\"game\":5,\"ply\":0,"
                            "\"move\":\"b2-c3\"}\n",
                    .ply_after = 1,
                    .type_after = "xb2\nquit\n"};
    fake_start(&srv, prompt_script, &p);
    fake_set_idle(&srv, prompt_idle);
    save_login("bob", srv.addr);
    FILE *in = fdopen(slave, "r");
    crun r;
    crun_in(&r, in, "--server", srv.addr, "play", "5", NULL);
    fclose(in);
    close(master);
    crun_expect(&r, 0);
    cr_assert(strstr(r.out, "Black to move (bob, you)\n"), "%s", r.out);
    cr_assert(strstr(r.out, "\"xb2\" is not move text."), "%s", r.out);
    crun_free(&r);
    cr_assert_eq(fake_count(&srv, "move"), 0);
    cr_assert_eq(fake_count(&srv, "game"), 2);
}

/* ---- 4, 5, 9, 12. the game header, legend and result ------------------- */

Test(usability, live_clocks_and_bots_in_the_header)
{
    char game[4096];
    game_json(game, sizeof game, 0,
              ",\"white_bot\":false,\"black_bot\":true,\"time_left_ms\":295000,"
              "\"clock\":{\"white\":295000,\"black\":300000},\"deadline\":null,"
              "\"time_control\":{\"kind\":\"live\",\"initial_s\":300,\"increment_s\":5}");
    char *s = game_text(game, "alice");
    cr_assert(strstr(s, "White: alice  Black: bob (bot)\nTime: live:300+5\n"
                        "Clock: White 4:55  Black 5:00\n"),
              "%s", s);
    free(s);
}

Test(usability, correspondence_time_left_of_the_side_to_move)
{
    char game[4096];
    game_json(game, sizeof game, 1,
              ",\"time_left_ms\":183600000,\"white_bot\":true,\"deadline\":86400000,"
              "\"time_control\":{\"kind\":\"correspondence\",\"days_per_move\":3}");
    char *s = game_text(game, "alice");
    cr_assert(strstr(s, "White: alice (bot)  Black: bob\n"), "%s", s);
    cr_assert(strstr(s, "\nTime: corr:3, deadline 1970-01-02 00:00:00 UTC, Black has 2d 03h "
                        "left\n"),
              "%s", s);
    free(s);
}

Test(usability, legend_only_with_the_flag_and_for_the_variant)
{
    char game[4096];
    game_json(game, sizeof game, 1, "");
    char *s = game_flags_text(game, "alice", RENDER_LEGEND);
    cr_assert(strstr(s, "   a   b   c   d   e\nKey: [ ] last move, x captured\nLast move"), "%s",
              s);
    free(s);
    s = game_flags_text(game, "alice", 0);
    cr_assert_null(strstr(s, "Key:"), "%s", s);
    free(s);
    s = game_flags_text("{\"id\":2,\"variant\":\"alquerque-stoep-short\",\"white\":\"a\","
                        "\"black\":\"b\",\"ply\":0,\"status\":\"active\",\"turn\":\"white\","
                        "\"position\":\"bbbbb/bbbbb/ww.bb/wwwww/wwwww w 0 -\"}",
                        NULL, RENDER_LEGEND);
    cr_assert(strstr(s, "\nKey: [ ] last move, x captured, W B Sultans\n"), "%s", s);
    free(s);
    s = game_flags_text("{\"id\":3,\"variant\":\"alquerkonane-6x4\",\"white\":\"a\","
                        "\"black\":\"b\",\"ply\":0,\"status\":\"active\",\"turn\":\"black\","
                        "\"position\":\"bwbw/wbwb/bwbw/wbwb/bwbw/wbwb b 0 -\"}",
                        NULL, RENDER_LEGEND);
    cr_assert(strstr(s, "\nKey: [ ] last move, x captured, ::: dark squares\n"), "%s", s);
    free(s);
}

Test(usability, result_says_who_ran_out_and_you_lost)
{
    char game[4096];
    ending_json(game, sizeof game, true);
    char *s = game_text(game, "bob");
    cr_assert(strstr(s, "\nWhite wins (Black has no pieces left): you lost\n"), "%s", s);
    free(s);
    s = game_text(game, NULL);
    cr_assert(strstr(s, "\nWhite wins (Black has no pieces left)\n"), "%s", s);
    free(s);
}

/* ---- 5, 11. bots in lists; challenges; a computer's instant answer ---- */

static bool bot_script(fake *f, int conn, const cJSON *req, char *buf, size_t n)
{
    (void)f;
    (void)conn;
    if (fake_basic(req, buf, n))
        return true;
    int id = req_id(req);
    if (is(req, "challenge")) {
        snprintf(buf, n,
                 "{\"type\":\"ok\",\"id\":%d,\"challenge\":{\"id\":8,\"from\":\"alice\","
                 "\"to\":\"computer-1\",\"variant\":\"alquerque\",\"color\":\"white\","
                 "\"time_control\":{\"kind\":\"unlimited\"},\"position\":null,\"rated\":true}}\n",
                 id);
    } else if (is(req, "users")) {
        const cJSON *u = cJSON_GetObjectItemCaseSensitive(req, "username");
        bool bot = cJSON_IsString(u) && strncmp(u->valuestring, "computer", 8) == 0;
        /* The bot accepts while we look it up. */
        snprintf(buf, n,
                 "{\"type\":\"event\",\"event\":\"challenge\",\"challenge\":{\"id\":8}}\n"
                 "{\"type\":\"ok\",\"id\":%d,\"users\":[{\"username\":\"%s\",\"bot\":%s}]}\n"
                 "{\"type\":\"event\",\"event\":\"game_start\",\"game\":{\"id\":21,"
                 "\"white\":\"alice\",\"black\":\"computer-1\",\"black_bot\":true}}\n",
                 id, cJSON_IsString(u) ? u->valuestring : "?", bot ? "true" : "false");
    } else if (is(req, "games")) {
        snprintf(buf, n,
                 "{\"type\":\"ok\",\"id\":%d,\"games\":["
                 "{\"id\":21,\"variant\":\"alquerque\",\"white\":\"alice\","
                 "\"black\":\"computer-1\",\"white_bot\":false,\"black_bot\":true,\"ply\":0,"
                 "\"turn\":\"white\",\"status\":\"active\"}]}\n",
                 id);
    }
    return true;
}

Test(usability, challenge_to_a_computer_reports_the_game)
{
    fake_start(&srv, bot_script, NULL);
    save_alice();
    crun r;
    crun_do(&r, NULL, "--server", srv.addr, "challenge", "computer-1", "--color", "white",
            "--rated", NULL);
    crun_expect(&r, 0);
    cr_assert_str_eq(r.out, "Challenge 8: alice -> computer-1, alquerque, challenger plays white, "
                            "unlimited, rated\n"
                            "computer-1 accepted: game 21 (qirkat play 21)\n");
    crun_free(&r);
    cJSON *u = fake_request(&srv, "users", 0);
    cr_assert_str_eq(cJSON_GetObjectItem(u, "username")->valuestring, "computer-1");
    cJSON_Delete(u);
}

Test(usability, bots_marked_in_game_lists)
{
    fake_start(&srv, bot_script, NULL);
    save_alice();
    crun r;
    crun_do(&r, NULL, "--server", srv.addr, "games", NULL);
    crun_expect(&r, 0);
    cr_assert_str_eq(r.out, "GAME  WHITE  BLACK             VARIANT    TURN   STATUS  PLY\n"
                            "21    alice  computer-1 (bot)  alquerque  white  active  0\n");
    crun_free(&r);
    crun_do(&r, NULL, "--server", srv.addr, "games", "--mine", NULL);
    crun_expect(&r, 0);
    cr_assert(strstr(r.out, "21    computer-1 (bot)  white  alquerque  -     you "), "%s", r.out);
    crun_free(&r);
}

/* ---- 7, 8. variants listed; the solver's long search announced -------- */

Test(usability, rules_without_a_variant_lists_them)
{
    crun r;
    crun_do(&r, NULL, "rules", NULL);
    crun_expect(&r, 0);
    cr_assert(strncmp(r.out, "variants: alquerque alquerque-traditional ", 42) == 0, "%s", r.out);
    cr_assert(strstr(r.out, " alquerkonane-RxC\n"), "%s", r.out);
    crun_free(&r);
    crun_do(&r, NULL, "rules", "--help", NULL);
    crun_expect(&r, 0);
    cr_assert(strstr(r.out, "\nvariants: alquerque "), "%s", r.out);
    crun_free(&r);
    crun_do(&r, NULL, "help", "challenge", NULL);
    crun_expect(&r, 0);
    cr_assert(strstr(r.out, "\nvariants: alquerque "), "%s", r.out);
    crun_free(&r);
}

Test(usability, challenge_with_an_unknown_variant_is_refused_before_connecting)
{
    save_login("alice", "127.0.0.1:1");
    crun r;
    crun_do(&r, NULL, "--server", "127.0.0.1:1", "challenge", "bob", "--variant", "foo", NULL);
    crun_expect(&r, 2);
    cr_assert(strncmp(r.err, "qirkat challenge: unknown variant 'foo'\n", 40) == 0, "%s", r.err);
    cr_assert(strstr(r.err, "\nvariants: alquerque alquerque-traditional "), "%s", r.err);
    crun_free(&r);
}

Test(usability, solve_beyond_exact_says_it_is_searching_first)
{
    crun r;
    crun_do(&r, NULL, "solve", "alquerkonane-8x8", "--ms", "50", NULL);
    cr_assert(strncmp(r.err, "searching for the winner only (at most 1 s)...\n", 47) == 0, "%s",
              r.err);
    crun_free(&r);
    crun_do(&r, NULL, "solve", "alquerkonane-4x4", NULL);
    crun_expect(&r, 0);
    cr_assert_str_eq(r.err, "");
    crun_free(&r);
}

/* ---- 10, 12. resign asks at a terminal; vacation's end ---------------- */

/* hint on a lost Alquerkonane position: the server's level 4 solved it
 * (score -(QK_SCORE_WIN - 9): the mover loses in 9 plies at the longest). */
static bool lost_hint_script(fake *f, int conn, const cJSON *req, char *buf, size_t n)
{
    (void)f;
    (void)conn;
    if (fake_basic(req, buf, n))
        return true;
    if (is(req, "hint"))
        snprintf(buf, n,
                 "{\"type\":\"ok\",\"id\":%d,\"game\":5,\"ply\":3,\"move\":\"c4xa4\","
                 "\"eval\":\"-299.91\",\"score\":%d,\"solved\":true,\"depth\":9,"
                 "\"line\":[\"c4xa4\"]}\n",
                 req_id(req), -(30000 - 9));
    else if (is(req, "game"))
        snprintf(buf, n, "{\"type\":\"error\",\"id\":%d,\"code\":\"not_found\","
                 "\"message\":\"no such game\"}\n", req_id(req));
    return true;
}

Test(usability, hint_in_a_lost_position_says_so_and_how_long)
{
    fake_start(&srv, lost_hint_script, NULL);
    save_alice();
    crun r;
    crun_do(&r, "", "--server", srv.addr, "hint", "5", NULL);
    crun_expect(&r, 0);
    cr_assert(strstr(r.out, "game 5, ply 3: c4xa4 (-299.91: lost with perfect play, 9 plies to "
                            "the end, depth 9)\n"),
              "%s", r.out);
    crun_free(&r);
}

static bool resign_script(fake *f, int conn, const cJSON *req, char *buf, size_t n)
{
    (void)f;
    (void)conn;
    if (fake_basic(req, buf, n))
        return true;
    int id = req_id(req);
    char game[4096];
    if (is(req, "game") || is(req, "resign")) {
        game_json(game, sizeof game, 0, "");
        snprintf(buf, n, "{\"type\":\"ok\",\"id\":%d,\"game\":%s}\n", id, game);
    } else if (is(req, "vacation")) {
        snprintf(buf, n,
                 "{\"type\":\"ok\",\"id\":%d,\"vacation\":{\"on\":true,\"since\":0,"
                 "\"until\":259200000,\"left_h\":648,\"allowance_h\":720}}\n",
                 id);
    }
    return true;
}

Test(usability, resign_asks_at_a_terminal_only)
{
    fake_start(&srv, resign_script, NULL);
    save_alice();
    int master, slave;
    cr_assert_eq(openpty(&master, &slave, NULL, NULL, NULL), 0);
    cr_assert_eq(write(master, "n\n", 2), 2);
    FILE *in = fdopen(slave, "r");
    crun r;
    crun_in(&r, in, "--server", srv.addr, "resign", "5", NULL);
    crun_expect(&r, 0);
    cr_assert_str_eq(r.err, "Resign game 5 against bob? [y/N] ");
    cr_assert_str_eq(r.out, "Not resigned\n");
    crun_free(&r);
    cr_assert_eq(fake_count(&srv, "resign"), 0);
    cr_assert_eq(write(master, "y\n", 2), 2);
    crun_in(&r, in, "--server", srv.addr, "resign", "5", NULL);
    crun_expect(&r, 0);
    crun_free(&r);
    cr_assert_eq(fake_count(&srv, "resign"), 1);
    /* --yes: no question. */
    crun_in(&r, in, "--server", srv.addr, "resign", "5", "--yes", NULL);
    crun_expect(&r, 0);
    cr_assert_str_eq(r.err, "");
    crun_free(&r);
    fclose(in);
    close(master);
    /* Not a terminal: no question either. */
    crun_do(&r, NULL, "--server", srv.addr, "resign", "5", NULL);
    crun_expect(&r, 0);
    cr_assert_str_eq(r.err, "");
    crun_free(&r);
    cr_assert_eq(fake_count(&srv, "resign"), 3);
}

Test(usability, vacation_on_says_when_it_ends)
{
    fake_start(&srv, resign_script, NULL);
    save_alice();
    crun r;
    crun_do(&r, NULL, "--server", srv.addr, "vacation", "on", "--hours", "72", NULL);
    crun_expect(&r, 0);
    cr_assert_str_eq(r.out, "On vacation until 1970-01-04 00:00 UTC; 648 hours of allowance "
                            "left this year\n");
    crun_free(&r);
}
