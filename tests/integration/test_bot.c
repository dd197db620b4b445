/*
 * A `qirkat bot` process against a person on a raw connection, through the
 * real server: the bot declines a challenge in a variant it does not play
 * (reason `variant`), accepts one it does, plays a whole game, is SIGKILLed
 * in the middle (on its turn: the person has just moved) and restarted,
 * resumes the game from its login result; later the server crashes and
 * comes back on the same port, the bot reconnects by itself (backoff) and
 * finishes the game. Afterwards the
 * server is restarted and replays the stored game: every move was legal
 * and the game ended by the rules.
 */
#include <criterion/criterion.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "harness.h"

TestSuite(bot, .init = h_setup, .fini = h_teardown, .timeout = 300);

#define PW "bot-test-password"
#define MAX_PLIES 3000

static pid_t start_bot(const hsrv *s, const char *dir, const char *log)
{
    const char *argv[] = {"bot",
                          "--level",
                          "1",
                          "--move-ms",
                          "50",
                          "--variants",
                          "alquerque,alquerkonane-6x4",
                          "--time-controls",
                          "unlimited,correspondence",
                          NULL};
    return hcli_spawn(dir, s->addr, log, argv);
}

static bool event_for_challenge(const cJSON *ev, const void *arg)
{
    const cJSON *ch = cJSON_GetObjectItemCaseSensitive(ev, "challenge");
    long long id;
    return hj_has_int(ch, "id", &id) && id == *(const long long *)arg;
}

static bool event_at_ply(const cJSON *ev, const void *arg)
{
    long long ply;
    return hj_has_int(ev, "ply", &ply) && ply == *(const long long *)arg;
}

static long long challenge(hconn *c, const char *extra)
{
    cJSON *r =
        hconn_rpc(c, "{\"type\":\"challenge\",\"to\":\"robo\",\"color\":\"white\"%s}", extra);
    hj_assert_ok(r, "challenge");
    long long id = hj_int(cJSON_GetObjectItemCaseSensitive(r, "challenge"), "id");
    cJSON_Delete(r);
    return id;
}

/* The game as the server has it now. */
static cJSON *fetch(hconn *c, long long gid)
{
    cJSON *r = hconn_rpc(c, "{\"type\":\"game\",\"game\":%lld}", gid);
    hj_assert_ok(r, "game");
    return r;
}

Test(bot, plays_a_whole_game_across_a_kill_and_restart)
{
    hsrv s;
    hsrv_start(&s);
    char bdir[H_PATH], blog[H_PATH + 16];
    hsrv_userdir(&s, "robo", bdir);
    snprintf(blog, sizeof blog, "%s/bot.log", s.dir);
    hrun r;
    hcli_run(&r, bdir, s.addr, PW "\n", "--json", "register", "robo", "--bot", "--password-stdin",
             NULL);
    const cJSON *j = hrun_ok_json(&r);
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
                  cJSON_GetObjectItemCaseSensitive(j, "user"), "bot")),
              "%s", r.out);
    hrun_free(&r);

    hconn *ann = hconn_open(s.port);
    hconn_hello(ann);
    hconn_register(ann, "ann", PW);
    pid_t bot = start_bot(&s, bdir, blog);

    /* A variant outside --variants: declined with the reason word. */
    long long cid = challenge(ann, ",\"variant\":\"alquerque-brainking\"");
    cJSON *ev = hconn_event(ann, "challenge_declined", event_for_challenge, &cid, 20000);
    cr_assert_not_null(ev, "the bot did not decline the brainking challenge");
    cr_assert_str_eq(hj_str(cJSON_GetObjectItemCaseSensitive(ev, "challenge"), "reason"), "variant",
                     "%s", hj_text(ev));
    cJSON_Delete(ev);
    /* A live game: outside --time-controls. */
    cid = challenge(ann, ",\"time_control\":{\"kind\":\"live\",\"initial_s\":60}");
    ev = hconn_event(ann, "challenge_declined", event_for_challenge, &cid, 20000);
    cr_assert_not_null(ev, "the bot did not decline the live challenge");
    cr_assert_str_eq(hj_str(cJSON_GetObjectItemCaseSensitive(ev, "challenge"), "reason"),
                     "time_control", "%s", hj_text(ev));
    cJSON_Delete(ev);

    /* Accepted: ann is White and moves first. */
    cid = challenge(ann, ",\"variant\":\"alquerque\"");
    ev = hconn_event(ann, "game_start", NULL, NULL, 20000);
    cr_assert_not_null(ev, "the bot did not accept");
    const cJSON *g0 = cJSON_GetObjectItemCaseSensitive(ev, "game");
    long long gid = hj_int(g0, "id");
    cr_assert_str_eq(hj_str(g0, "black"), "robo");
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(g0, "black_bot")), "%s", hj_text(g0));
    cr_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(g0, "white_bot")));
    cJSON_Delete(ev);

    bool killed = false, restarted = false, crashed = false;
    int my_moves = 0;
    long long ply = 0;
    for (int guard = 0; guard < MAX_PLIES; guard++) {
        cJSON *gr = fetch(ann, gid);
        const cJSON *g = hj_game(gr);
        ply = hj_int(g, "ply");
        if (strcmp(hj_str(g, "status"), "active") != 0) {
            cJSON_Delete(gr);
            break;
        }
        if (strcmp(hj_str(g, "turn"), "white") != 0) {
            cJSON_Delete(gr);
            /* The bot's turn: it must move (after its restart too). */
            if (killed && !restarted) {
                bot = start_bot(&s, bdir, blog);
                restarted = true;
            }
            cJSON *mev = hconn_event(ann, "move", event_at_ply, &ply, 30000);
            cr_assert_not_null(mev, "the bot did not move at ply %lld", ply);
            cJSON_Delete(mev);
            continue;
        }
        if (my_moves == 4 && !crashed) {
            /* The server crashes and comes back on the same port: the bot
             * reconnects by itself (backoff) and goes on; so does ann. */
            hconn_close(ann);
            hsrv_kill(&s);
            hsrv_restart_same_port(&s);
            crashed = true;
            ann = hconn_open(s.port);
            hconn_hello(ann);
            hconn_login(ann, "ann", PW);
            cJSON_Delete(gr);
            continue;
        }
        if (my_moves == 2 && !killed) {
            /* In the middle of the game, after the bot's move. */
            int st = hproc_kill(bot, SIGKILL);
            cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "bot status %d", st);
            killed = true;
            /* A move of ann's opponent while it is away changes nothing. */
        }
        /* ann plays her first legal move (sorted), at the current ply. */
        const cJSON *legal = cJSON_GetObjectItemCaseSensitive(g, "legal_moves");
        cr_assert_gt(cJSON_GetArraySize(legal), 0, "%s", hj_text(g));
        const char *mv =
            cJSON_GetArrayItem(legal, my_moves % cJSON_GetArraySize(legal))->valuestring;
        cJSON *mr = hconn_rpc(ann, "{\"type\":\"move\",\"game\":%lld,\"ply\":%lld,\"move\":\"%s\"}",
                              gid, ply, mv);
        hj_assert_ok(mr, "ann's move");
        cJSON_Delete(mr);
        cJSON_Delete(gr);
        my_moves++;
    }
    cr_assert(killed && restarted && crashed,
              "the game ended before the kill and the crash (%d "
              "moves)",
              my_moves);
    cJSON *gr = fetch(ann, gid);
    const cJSON *g = hj_game(gr);
    cr_assert_str_eq(hj_str(g, "status"), "finished", "%s", hj_text(g));
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(g, "moves")), ply);
    char *final = cJSON_PrintUnformatted(g);
    cJSON_Delete(gr);

    /* The stored game replays to the same end (games are replayed by the
     * rules on load). */
    hproc_kill(bot, SIGTERM);
    hconn_close(ann);
    hsrv_stop(&s);
    hsrv_restart(&s);
    ann = hconn_open(s.port);
    hconn_hello(ann);
    hconn_login(ann, "ann", PW);
    gr = fetch(ann, gid);
    char *again = cJSON_PrintUnformatted(hj_game(gr));
    cr_assert_str_eq(again, final);
    free(again);
    free(final);
    cJSON_Delete(gr);
    hconn_close(ann);
    hsrv_stop(&s);
    h_pass();
}

/* --max-games and the family filter: with one game running, a second
 * challenge is declined with `later`; "alquerkonane" matches any board. */
Test(bot, max_games_and_family_filter)
{
    hsrv s;
    hsrv_start(&s);
    char bdir[H_PATH], blog[H_PATH + 16];
    hsrv_userdir(&s, "robo", bdir);
    snprintf(blog, sizeof blog, "%s/bot.log", s.dir);
    hrun r;
    hcli_run(&r, bdir, s.addr, PW "\n", "register", "robo", "--bot", "--password-stdin", NULL);
    cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
    hrun_free(&r);
    hconn *ann = hconn_open(s.port);
    hconn_hello(ann);
    hconn_register(ann, "ann", PW);
    const char *argv[] = {"bot",         "--level", "2",          "--move-ms",    "50",
                          "--max-games", "1",       "--variants", "alquerkonane", NULL};
    hcli_spawn(bdir, s.addr, blog, argv);

    long long cid = challenge(ann, ",\"variant\":\"alquerque\"");
    cJSON *ev = hconn_event(ann, "challenge_declined", event_for_challenge, &cid, 20000);
    cr_assert_not_null(ev, "alquerque was not declined");
    cr_assert_str_eq(hj_str(cJSON_GetObjectItemCaseSensitive(ev, "challenge"), "reason"),
                     "variant");
    cJSON_Delete(ev);
    /* ann is White; Black moves first in Alquerkonane: the bot's turn. */
    cid = challenge(ann, ",\"variant\":\"alquerkonane-5x7\"");
    ev = hconn_event(ann, "game_start", NULL, NULL, 20000);
    cr_assert_not_null(ev, "alquerkonane-5x7 was not accepted");
    cJSON_Delete(ev);
    cid = challenge(ann, ",\"variant\":\"alquerkonane-6x4\"");
    ev = hconn_event(ann, "challenge_declined", event_for_challenge, &cid, 20000);
    cr_assert_not_null(ev, "a second game was not declined");
    cr_assert_str_eq(hj_str(cJSON_GetObjectItemCaseSensitive(ev, "challenge"), "reason"), "later");
    cJSON_Delete(ev);
    hconn_close(ann);
    hsrv_stop(&s);
    h_pass();
}
