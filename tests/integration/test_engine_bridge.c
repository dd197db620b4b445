/*
 * `qirkat bot --engine CMD` (issue 15, docs/engine-protocol.md) through the
 * real server, with tools/random-engine (POSIX sh + awk) as the engine:
 * the bot plays a whole game against a person on a raw connection with
 * the engine's moves only; the engine SIGKILLed in the middle of a game is
 * started again (a new pid, "1 restarts" in the log) and the game goes
 * on; an engine that never answers costs each move its time, then the
 * built-in engine's move is played.
 */
#include <criterion/criterion.h>

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

TestSuite(engine_bridge, .init = h_setup, .fini = h_teardown, .timeout = 300);

#define PW "bridge-test-password"
#define MAX_PLIES 3000

typedef struct world {
    hsrv s;
    char bdir[H_PATH], blog[H_PATH + 16];
    hconn *ann;
    pid_t bot;
} world;

static void world_start(world *w, const char *engine_cmd, const char *move_ms)
{
    hsrv_start(&w->s);
    hsrv_userdir(&w->s, "robo", w->bdir);
    snprintf(w->blog, sizeof w->blog, "%s/bot.log", w->s.dir);
    hrun r;
    hcli_run(&r, w->bdir, w->s.addr, PW "\n", "register", "robo", "--bot", "--password-stdin",
             NULL);
    cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
    hrun_free(&r);
    w->ann = hconn_open(w->s.port);
    hconn_hello(w->ann);
    hconn_register(w->ann, "ann", PW);
    const char *argv[] = {"bot",   "--level",  "1",        "--move-ms",
                          move_ms, "--engine", engine_cmd, NULL};
    w->bot = hcli_spawn(w->bdir, w->s.addr, w->blog, argv);
}

/* ann challenges the bot (she plays White); the game's id. */
static long long new_game(world *w)
{
    cJSON *r = hconn_rpc(w->ann, "{\"type\":\"challenge\",\"to\":\"robo\",\"color\":\"white\"}");
    hj_assert_ok(r, "challenge");
    cJSON_Delete(r);
    cJSON *ev = hconn_event(w->ann, "game_start", NULL, NULL, 20000);
    cr_assert_not_null(ev, "the bot did not accept");
    long long gid = hj_int(cJSON_GetObjectItemCaseSensitive(ev, "game"), "id");
    cJSON_Delete(ev);
    return gid;
}

static bool event_at_ply(const cJSON *ev, const void *arg)
{
    long long ply;
    return hj_has_int(ev, "ply", &ply) && ply == *(const long long *)arg;
}

/* The whole file (static buffer). */
static const char *slurp(const char *path)
{
    static char buf[1 << 20];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = 0;
    return buf;
}

static int count_of(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

/* The bot logs a move after the server's answer, which may be after ann
 * has seen the move's event: wait (at most 10 s) until the log holds n
 * copies of needle, and return the log. */
static const char *log_when(const char *path, const char *needle, int n)
{
    for (int i = 0; i < 1000 && count_of(slurp(path), needle) < n; i++)
        usleep(10000);
    return slurp(path);
}

static long long read_pid(const char *path)
{
    return atoll(slurp(path));
}

/* Play ann's side (her first legal move, sorted) until the game ends or
 * after_moves of hers (0: to the end); at each of the bot's turns wait
 * for its move. hook(w, my_moves) runs before each of ann's moves. The
 * number of plies. */
static long long play(world *w, long long gid, int after_moves,
                      void (*hook)(world *w, int my_moves, void *arg), void *arg)
{
    int my_moves = 0;
    for (int guard = 0; guard < MAX_PLIES; guard++) {
        cJSON *gr = hconn_rpc(w->ann, "{\"type\":\"game\",\"game\":%lld}", gid);
        hj_assert_ok(gr, "game");
        const cJSON *g = hj_game(gr);
        long long ply = hj_int(g, "ply");
        if (strcmp(hj_str(g, "status"), "active") != 0 ||
            (after_moves && my_moves == after_moves && strcmp(hj_str(g, "turn"), "white") == 0)) {
            cJSON_Delete(gr);
            return ply;
        }
        if (strcmp(hj_str(g, "turn"), "white") != 0) {
            cJSON_Delete(gr);
            cJSON *mev = hconn_event(w->ann, "move", event_at_ply, &ply, 30000);
            cr_assert_not_null(mev, "the bot did not move at ply %lld", ply);
            cJSON_Delete(mev);
            continue;
        }
        if (hook)
            hook(w, my_moves, arg);
        const cJSON *legal = cJSON_GetObjectItemCaseSensitive(g, "legal_moves");
        cr_assert_gt(cJSON_GetArraySize(legal), 0, "%s", hj_text(g));
        const char *mv = cJSON_GetArrayItem(legal, 0)->valuestring;
        cJSON *mr = hconn_rpc(
            w->ann, "{\"type\":\"move\",\"game\":%lld,\"ply\":%lld,\"move\":\"%s\"}", gid, ply, mv);
        hj_assert_ok(mr, "ann's move");
        cJSON_Delete(mr);
        cJSON_Delete(gr);
        my_moves++;
    }
    cr_assert_fail("the game did not end in %d plies", MAX_PLIES);
    return -1;
}

static void world_stop(world *w)
{
    hproc_kill(w->bot, SIGTERM);
    hconn_close(w->ann);
    hsrv_stop(&w->s);
}

/* The engine's path, absolute (the bot runs CMD under sh -c). */
static void engine_path(char *out, size_t n)
{
    char cwd[PATH_MAX];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    snprintf(out, n, "%s/tools/random-engine", cwd);
}

Test(engine_bridge, random_engine_plays_a_whole_game)
{
    world w;
    char eng[PATH_MAX + 64], cmd[2 * PATH_MAX + 64];
    engine_path(eng, sizeof eng);
    snprintf(cmd, sizeof cmd, "exec %s", eng);
    world_start(&w, cmd, "2000");
    long long gid = new_game(&w);
    long long plies = play(&w, gid, 0, NULL, NULL);
    cJSON *gr = hconn_rpc(w.ann, "{\"type\":\"game\",\"game\":%lld}", gid);
    const cJSON *g = hj_game(gr);
    cr_assert_str_eq(hj_str(g, "status"), "finished", "%s", hj_text(g));
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(g, "moves")), plies);
    cJSON_Delete(gr);
    const char *log = log_when(w.blog, "(engine, 0 restarts)", (int)(plies / 2));
    /* Every bot move (Black's: every odd ply, plies / 2 of them) came from
     * the engine, which was never restarted, and none from the fallback. */
    cr_assert_eq(count_of(log, "(engine, 0 restarts)"), (int)(plies / 2), "%s", log);
    cr_assert_eq(count_of(log, "built-in engine moves"), 0, "%s", log);
    world_stop(&w);
    h_pass();
}

typedef struct kill_arg {
    char pidfile[H_PATH + 16];
    long long killed_pid;
} kill_arg;

static void kill_engine(world *w, int my_moves, void *arg)
{
    (void)w;
    kill_arg *k = arg;
    if (my_moves != 2)
        return;
    k->killed_pid = read_pid(k->pidfile);
    cr_assert_gt(k->killed_pid, 0, "no engine pid in %s", k->pidfile);
    cr_assert_eq(kill((pid_t)k->killed_pid, SIGKILL), 0);
}

Test(engine_bridge, a_killed_engine_is_started_again)
{
    world w;
    kill_arg k = {0};
    char eng[PATH_MAX + 64], cmd[3 * PATH_MAX + 64];
    engine_path(eng, sizeof eng);
    char dir[H_PATH];
    h_tmpdir(dir);
    snprintf(k.pidfile, sizeof k.pidfile, "%s/engine.pid", dir);
    snprintf(cmd, sizeof cmd, "QK_ENGINE_PIDFILE=%s exec %s", k.pidfile, eng);
    world_start(&w, cmd, "2000");
    long long gid = new_game(&w);
    /* Killed after the bot's second move; ann moves; the bot must move
     * with a new engine (its restart retries the question). */
    play(&w, gid, 4, kill_engine, &k);
    long long now_pid = read_pid(k.pidfile);
    cr_assert_gt(k.killed_pid, 0);
    cr_assert_neq(now_pid, k.killed_pid, "the engine was not started again");
    const char *log = log_when(w.blog, "(engine, 1 restarts)", 2);
    cr_assert_eq(count_of(log, "(engine, 0 restarts)"), 2, "%s", log);
    cr_assert_eq(count_of(log, "(engine, 1 restarts)"), 2, "%s", log);
    cr_assert_eq(count_of(log, "built-in engine moves"), 0, "%s", log);
    world_stop(&w);
    h_pass();
}

Test(engine_bridge, an_engine_that_never_answers_falls_back)
{
    world w;
    /* Reads every question, answers none (its stdout stays open); exits at
     * the end of its input. */
    world_start(&w, "while read -r line; do :; done", "300");
    long long gid = new_game(&w);
    long long plies = play(&w, gid, 3, NULL, NULL);
    cr_assert_eq(plies, 6, "ann's 3 moves and the bot's 3 answers: %lld plies", plies);
    const char *log = log_when(w.blog, "the built-in engine moves", 3);
    cr_assert_eq(count_of(log, "engine: no bestmove within 300 ms; the built-in engine moves"), 3,
                 "%s", log);
    cr_assert_eq(count_of(log, "(engine,"), 0, "%s", log);
    world_stop(&w);
    h_pass();
}
