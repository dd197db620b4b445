/*
 * Conversations with a server, against the scripted fake (fake.h): what
 * the client sends for each subcommand, how it treats answers, events
 * pushed in between, errors, and the interactive loop's redraw and
 * reconnect. PROTOCOL.md "Core ops"; docs/design.md "qirkat command line".
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "fake.h"
#include "play.h"
#include "session.h"
#include "util.h"

#define KAWU "bbbbb/bbbbb/ww.bb/wwwww/wwwww w 0 -"
#define AFTER_B2C3 "bbbbb/bbbbb/wwwbb/w.www/wwwww b 1 -"

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

TestSuite(flow, .init = setup, .fini = teardown, .timeout = 30);

/* A game object: alice white, bob black; ply 0 or 1 after b2-c3. */
static void game_json(char *buf, size_t n, int ply)
{
    if (ply == 0)
        snprintf(buf, n,
                 "{\"id\":5,\"variant\":\"alquerque\",\"white\":\"alice\",\"black\":\"bob\","
                 "\"start\":\"" KAWU "\",\"moves\":[],\"ply\":0,\"position\":\"" KAWU "\","
                 "\"turn\":\"white\",\"legal_moves\":[\"b2-c3\",\"b3-c3\",\"c2-c3\",\"d2-c3\"],"
                 "\"status\":\"active\",\"result\":null,\"reason\":null,"
                 "\"time_control\":{\"kind\":\"unlimited\"},\"deadline\":null}");
    else
        snprintf(buf, n,
                 "{\"id\":5,\"variant\":\"alquerque\",\"white\":\"alice\",\"black\":\"bob\","
                 "\"start\":\"" KAWU "\",\"moves\":[\"b2-c3\"],\"ply\":1,"
                 "\"position\":\"" AFTER_B2C3 "\",\"turn\":\"black\","
                 "\"legal_moves\":[\"b4xb2\",\"d4xb2\"],\"status\":\"active\",\"result\":null,"
                 "\"reason\":null,\"time_control\":{\"kind\":\"unlimited\"},\"deadline\":null}");
}

static void login_alice(void)
{
    save_login("alice", srv.addr);
}

/* ---- register / login ------------------------------------------------- */

static bool register_script(fake *f, int conn, const cJSON *req, char *buf, size_t n)
{
    (void)f;
    (void)conn;
    if (fake_basic(req, buf, n))
        return true;
    if (is(req, "register") || is(req, "login"))
        snprintf(buf, n,
                 "{\"type\":\"ok\",\"id\":%d,\"user\":{\"username\":\"Alice\",\"bot\":false},"
                 "\"token\":\"%064d\"}\n",
                 req_id(req), 7);
    return true;
}

Test(flow, register_saves_a_0600_session_for_this_server)
{
    fake_start(&srv, register_script, NULL);
    crun r;
    crun_do(&r, "s3cret pass\n", "--server", srv.addr, "register", "alice", "--password-stdin",
            "--bot", NULL);
    crun_expect(&r, 0);
    char want[128];
    snprintf(want, sizeof want, "Registered and logged in as Alice on %s\n", srv.addr);
    cr_assert_str_eq(r.out, want);
    crun_free(&r);

    cJSON *hello = fake_request(&srv, "hello", 0);
    cr_assert_not_null(hello);
    cr_assert_eq(cJSON_GetObjectItem(hello, "version")->valueint, 2, "the CLI declares protocol version 2 (ply on every move)");
    cJSON_Delete(hello);
    cJSON *req = fake_request(&srv, "register", 0);
    cr_assert_not_null(req);
    cr_assert_str_eq(cJSON_GetObjectItem(req, "username")->valuestring, "alice");
    cr_assert_str_eq(cJSON_GetObjectItem(req, "password")->valuestring, "s3cret pass");
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(req, "bot")));
    cJSON_Delete(req);

    /* The server's spelling of the name, its token, this server. */
    session s;
    cr_assert_eq(session_load(&s), SESSION_OK);
    cr_assert_str_eq(s.username, "Alice");
    cr_assert_eq(strlen(s.token), 64);
    cr_assert_str_eq(s.server, srv.addr);
    char path[512];
    cr_assert_eq(session_path(path, sizeof path), SESSION_OK);
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    cr_assert_eq(st.st_mode & 0777, 0600);
}

Test(flow, login_json_prints_the_response_object)
{
    fake_start(&srv, register_script, NULL);
    crun r;
    crun_do(&r, "pw\r\n", "--json", "--server", srv.addr, "login", "alice", "--password-stdin",
            NULL);
    crun_expect(&r, 0);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert_not_null(j, "%s", r.out);
    cr_assert_str_eq(cJSON_GetObjectItem(j, "type")->valuestring, "ok");
    cr_assert_not_null(cJSON_GetObjectItem(j, "token"));
    cr_assert_eq(strchr(r.out, '\n'), r.out + strlen(r.out) - 1, "not one line: %s", r.out);
    cJSON_Delete(j);
    crun_free(&r);
    cJSON *req = fake_request(&srv, "login", 0);
    /* "\r\n" from a Windows-made file is not part of the password. */
    cr_assert_str_eq(cJSON_GetObjectItem(req, "password")->valuestring, "pw");
    cJSON_Delete(req);
}

static bool refuse_script(fake *f, int conn, const cJSON *req, char *buf, size_t n)
{
    (void)f;
    (void)conn;
    if (is(req, "hello"))
        return fake_basic(req, buf, n);
    snprintf(buf, n,
             "{\"type\":\"error\",\"id\":%d,\"code\":\"unauthenticated\",\"message\":\"bad "
             "token\"}\n",
             req_id(req));
    return true;
}

Test(flow, refused_token_is_a_server_error)
{
    fake_start(&srv, refuse_script, NULL);
    login_alice();
    crun r;
    crun_do(&r, NULL, "--server", srv.addr, "challenges", NULL);
    crun_expect(&r, 1);
    cr_assert(strncmp(r.err, "Not logged in, or the login was refused: bad token\n", 51) == 0, "%s",
              r.err);
    crun_free(&r);
    cr_assert_eq(fake_count(&srv, "challenges"), 0, "went on after the refused login");
}

/* ---- move ------------------------------------------------------------- */

typedef struct move_ctx {
    int game_ply;     /* ply the `game` answer reports */
    const char *move; /* answer to `move`: a format with %d for the id */
} move_ctx;

static bool move_script(fake *f, int conn, const cJSON *req, char *buf, size_t n)
{
    (void)conn;
    move_ctx *m = f->user;
    if (fake_basic(req, buf, n))
        return true;
    char game[2048];
    if (is(req, "game")) {
        game_json(game, sizeof game, m->game_ply);
        /* An event pushed before the answer must not be taken for it. */
        snprintf(buf, n,
                 "{\"type\":\"event\",\"event\":\"challenge\",\"challenge\":{\"id\":9}}\n"
                 "{\"type\":\"ok\",\"id\":%d,\"game\":%s}\n",
                 req_id(req), game);
    } else if (is(req, "move")) {
        game_json(game, sizeof game, 1);
        snprintf(buf, n, m->move, req_id(req), game);
    }
    return true;
}

#define MOVE_OK "{\"type\":\"ok\",\"id\":%d,\"game\":%s}\n"
#define MOVE_DUP "{\"type\":\"ok\",\"id\":%d,\"duplicate\":true,\"game\":%s}\n"

Test(flow, move_without_ply_fetches_the_game_first)
{
    move_ctx m = {0, MOVE_OK};
    fake_start(&srv, move_script, &m);
    login_alice();
    crun r;
    crun_do(&r, NULL, "--server", srv.addr, "move", "5", "b2-c3", NULL);
    crun_expect(&r, 0);
    cr_assert(strstr(r.out, "Game 5  alquerque  ply 1\n"), "%s", r.out);
    cr_assert(strstr(r.out, "Black to move (bob)\n"), "%s", r.out);
    crun_free(&r);
    cJSON *g = fake_request(&srv, "game", 0), *mv = fake_request(&srv, "move", 0);
    cr_assert(g && mv);
    cr_assert_eq(cJSON_GetObjectItem(g, "game")->valueint, 5);
    cr_assert_eq(cJSON_GetObjectItem(mv, "game")->valueint, 5);
    cr_assert_eq(cJSON_GetObjectItem(mv, "ply")->valueint, 0);
    cr_assert_str_eq(cJSON_GetObjectItem(mv, "move")->valuestring, "b2-c3");
    /* The request after the token login, in order. */
    cr_assert_gt(req_id(mv), req_id(g));
    cJSON_Delete(g);
    cJSON_Delete(mv);
}

Test(flow, move_with_ply_sends_it_without_fetching)
{
    move_ctx m = {0, MOVE_OK};
    fake_start(&srv, move_script, &m);
    login_alice();
    crun r;
    crun_do(&r, NULL, "--server", srv.addr, "--json", "move", "5", "b2-c3", "--ply", "0", NULL);
    crun_expect(&r, 0);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert_not_null(j, "%s", r.out);
    cr_assert_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "game"), "ply")->valueint, 1);
    cJSON_Delete(j);
    crun_free(&r);
    cr_assert_eq(fake_count(&srv, "game"), 0);
    cr_assert_eq(fake_count(&srv, "move"), 1);
}

Test(flow, duplicate_move_says_it_was_already_played)
{
    move_ctx m = {1, MOVE_DUP};
    fake_start(&srv, move_script, &m);
    login_alice();
    crun r;
    crun_do(&r, NULL, "--server", srv.addr, "move", "5", "b2-c3", "--ply", "0", NULL);
    crun_expect(&r, 0);
    cr_assert_str_eq(r.out, "b2-c3 was already played at ply 0; nothing changed\n");
    crun_free(&r);
}

#define ILLEGAL                                                                                    \
    "{\"type\":\"error\",\"id\":%d,\"code\":\"illegal_move\",\"message\":\"a1-a2 is not "          \
    "legal\"}\n"
#define STALE                                                                                      \
    "{\"type\":\"error\",\"id\":%d,\"code\":\"stale_ply\",\"message\":\"stale\",\"ply\":1}\n"

Test(flow, illegal_move_lists_the_legal_ones)
{
    move_ctx m = {0, ILLEGAL};
    fake_start(&srv, move_script, &m);
    login_alice();
    crun r;
    crun_do(&r, NULL, "--server", srv.addr, "move", "5", "a1-a2", NULL);
    crun_expect(&r, 1);
    cr_assert_str_eq(r.err, "That move is not legal: a1-a2 is not legal\n"
                            "Legal moves (4): b2-c3 b3-c3 c2-c3 d2-c3\n");
    cr_assert_str_eq(r.out, "");
    crun_free(&r);
}

Test(flow, stale_ply_is_reported_with_the_current_ply)
{
    move_ctx m = {0, STALE};
    fake_start(&srv, move_script, &m);
    login_alice();
    crun r;
    crun_do(&r, NULL, "--server", srv.addr, "--json", "move", "5", "b2-c3", "--ply", "0", NULL);
    crun_expect(&r, 1);
    /* --json: the error object on stdout as well. */
    cJSON *j = cJSON_Parse(r.out);
    cr_assert_not_null(j, "%s", r.out);
    cr_assert_str_eq(cJSON_GetObjectItem(j, "code")->valuestring, "stale_ply");
    cJSON_Delete(j);
    /* Under --json, stderr keeps the code for programs. */
    cr_assert(strstr(r.err, "stale_ply: stale\n"), "%s", r.err);
    cr_assert(strstr(r.err, "at ply 1 now"), "%s", r.err);
    crun_free(&r);
}

/* ---- challenges and games --------------------------------------------- */

static bool list_script(fake *f, int conn, const cJSON *req, char *buf, size_t n)
{
    (void)f;
    (void)conn;
    if (fake_basic(req, buf, n))
        return true;
    int id = req_id(req);
    if (is(req, "challenge"))
        snprintf(buf, n,
                 "{\"type\":\"ok\",\"id\":%d,\"challenge\":{\"id\":3,\"from\":\"alice\","
                 "\"to\":\"bob\",\"variant\":\"alquerkonane-6x4\",\"color\":\"black\","
                 "\"time_control\":{\"kind\":\"correspondence\",\"days_per_move\":2},"
                 "\"position\":null}}\n",
                 id);
    else if (is(req, "challenges"))
        snprintf(buf, n,
                 "{\"type\":\"ok\",\"id\":%d,\"challenges\":[{\"id\":3,\"from\":\"alice\","
                 "\"to\":\"bob\",\"variant\":\"alquerque\",\"color\":\"random\","
                 "\"time_control\":{\"kind\":\"unlimited\"}},{\"id\":14,\"from\":\"carol\","
                 "\"to\":null,\"variant\":\"alquerque-brainking\",\"color\":\"white\","
                 "\"time_control\":{\"kind\":\"live\",\"initial_s\":300,"
                 "\"increment_s\":5},\"rated\":true}]}\n",
                 id);
    else if (is(req, "games"))
        snprintf(buf, n,
                 "{\"type\":\"ok\",\"id\":%d,\"games\":["
                 "{\"id\":5,\"variant\":\"alquerque\",\"white\":\"alice\",\"black\":\"bob\","
                 "\"ply\":4,\"turn\":\"white\",\"status\":\"active\"},"
                 "{\"id\":11,\"variant\":\"alquerkonane-8x8\",\"white\":\"carol\","
                 "\"black\":\"alice\",\"ply\":17,\"turn\":\"white\",\"status\":\"active\"},"
                 "{\"id\":12,\"variant\":\"alquerque\",\"white\":\"dave\",\"black\":\"alice\","
                 "\"ply\":30,\"turn\":\"black\",\"status\":\"finished\",\"result\":\"white\"}]}\n",
                 id);
    else
        snprintf(buf, n,
                 "{\"type\":\"error\",\"id\":%d,\"code\":\"not_found\",\"message\":\"no such "
                 "challenge\"}\n",
                 id);
    return true;
}

Test(flow, challenge_sends_the_options)
{
    fake_start(&srv, list_script, NULL);
    login_alice();
    crun r;
    crun_do(&r, NULL, "--server", srv.addr, "challenge", "bob", "--variant", "alquerkonane-6x4",
            "--color", "black", "--time", "corr:2", NULL);
    crun_expect(&r, 0);
    cr_assert_str_eq(r.out, "Challenge 3: alice -> bob, alquerkonane-6x4, challenger plays "
                            "black, corr:2, unrated\n");
    crun_free(&r);
    cJSON *req = fake_request(&srv, "challenge", 0);
    cr_assert_str_eq(cJSON_GetObjectItem(req, "to")->valuestring, "bob");
    cr_assert_str_eq(cJSON_GetObjectItem(req, "variant")->valuestring, "alquerkonane-6x4");
    cr_assert_str_eq(cJSON_GetObjectItem(req, "color")->valuestring, "black");
    cJSON *tc = cJSON_GetObjectItem(req, "time_control");
    cr_assert_str_eq(cJSON_GetObjectItem(tc, "kind")->valuestring, "correspondence");
    cr_assert_eq(cJSON_GetObjectItem(tc, "days_per_move")->valueint, 2);
    cr_assert_null(cJSON_GetObjectItem(req, "position"));
    cJSON_Delete(req);

    /* An open seek: no "to"; live times in seconds. */
    crun_do(&r, NULL, "--server", srv.addr, "challenge", "--time", "live:300+5", NULL);
    crun_expect(&r, 0);
    crun_free(&r);
    req = fake_request(&srv, "challenge", 1);
    cr_assert_null(cJSON_GetObjectItem(req, "to"));
    tc = cJSON_GetObjectItem(req, "time_control");
    cr_assert_eq(cJSON_GetObjectItem(tc, "initial_s")->valueint, 300);
    cr_assert_eq(cJSON_GetObjectItem(tc, "increment_s")->valueint, 5);
    cJSON_Delete(req);
}

Test(flow, challenges_table)
{
    fake_start(&srv, list_script, NULL);
    login_alice();
    crun r;
    crun_do(&r, NULL, "--server", srv.addr, "challenges", NULL);
    crun_expect(&r, 0);
    cr_assert_str_eq(r.out,
                     "ID  FROM   TO      VARIANT              FROM PLAYS  TIME        RATED\n"
                     "3   alice  bob     alquerque            random      unlimited   -\n"
                     "14  carol  (open)  alquerque-brainking  white       live:300+5  "
                     "rated\n");
    crun_free(&r);
}

Test(flow, games_mine_table)
{
    fake_start(&srv, list_script, NULL);
    login_alice();
    crun r;
    crun_do(&r, NULL, "--server", srv.addr, "games", "--mine", "--status", "active", "--limit", "3",
            NULL);
    crun_expect(&r, 0);
    cr_assert_str_eq(r.out,
                     "GAME  OPPONENT  COLOR  VARIANT           TIME  TURN   STATUS      PLY  "
                     "YOU LEFT  OPP LEFT\n"
                     "5     bob       white  alquerque         -     you    active      4    -  "
                     "       -\n"
                     "11    carol     black  alquerkonane-8x8  -     carol  active      17   -  "
                     "       -\n"
                     "12    dave      black  alquerque         -     -      white wins  30   -  "
                     "       -\n");
    crun_free(&r);
    cJSON *req = fake_request(&srv, "games", 0);
    cr_assert_str_eq(cJSON_GetObjectItem(req, "user")->valuestring, "alice");
    cr_assert_str_eq(cJSON_GetObjectItem(req, "status")->valuestring, "active");
    cr_assert_eq(cJSON_GetObjectItem(req, "limit")->valueint, 3);
    cJSON_Delete(req);
}

Test(flow, games_without_login_lists_all)
{
    fake_start(&srv, list_script, NULL);
    crun r;
    crun_do(&r, NULL, "--server", srv.addr, "games", NULL);
    crun_expect(&r, 0);
    cr_assert(strncmp(r.out, "GAME  WHITE  BLACK  VARIANT", 27) == 0, "%s", r.out);
    crun_free(&r);
    cr_assert_eq(fake_count(&srv, "login"), 0);
    crun_do(&r, NULL, "--server", srv.addr, "games", "--mine", NULL);
    crun_expect(&r, 1);
    cr_assert(strstr(r.err, "Not logged in: --mine and --my-turn need a login"), "%s", r.err);
    crun_free(&r);
}

Test(flow, accept_unknown_is_not_found)
{
    fake_start(&srv, list_script, NULL);
    login_alice();
    crun r;
    crun_do(&r, NULL, "--server", srv.addr, "accept", "4242", NULL);
    crun_expect(&r, 1);
    cr_assert_str_eq(r.err, "Not found: no such challenge\n");
    crun_free(&r);
    cJSON *req = fake_request(&srv, "accept", 0);
    cr_assert_eq(cJSON_GetObjectItem(req, "challenge")->valueint, 4242);
    cJSON_Delete(req);
}

/* ---- play ------------------------------------------------------------- */

typedef struct play_ctx {
    int ply;        /* the game's ply on the fake server */
    int drop_moves; /* close the connection on this many `move`s first */
    int wfd;        /* the test's end of the client's stdin, or -1 */
    int busy_conn;  /* answer this connection's hello with server_busy */
} play_ctx;

static bool play_script(fake *f, int conn, const cJSON *req, char *buf, size_t n)
{
    play_ctx *p = f->user;
    if (conn == p->busy_conn && is(req, "hello")) {
        snprintf(buf, n,
                 "{\"type\":\"error\",\"id\":%d,\"code\":\"server_busy\",\"message\":"
                 "\"starting\"}\n",
                 req_id(req));
        return true;
    }
    if (fake_basic(req, buf, n))
        return true;
    char game[2048];
    int id = req_id(req);
    if (is(req, "game")) {
        game_json(game, sizeof game, p->ply);
        snprintf(buf, n, "{\"type\":\"ok\",\"id\":%d,\"game\":%s}\n", id, game);
    } else if (is(req, "move")) {
        if (p->drop_moves > 0) {
            /* The move lands but its answer is lost with the connection. */
            p->drop_moves--;
            p->ply = 1;
            return false;
        }
        bool dup = p->ply == 1;
        p->ply = 1;
        game_json(game, sizeof game, 1);
        snprintf(buf, n, "{\"type\":\"ok\",\"id\":%d%s,\"game\":%s}\n", id,
                 dup ? ",\"duplicate\":true" : "", game);
        if (p->wfd >= 0) { /* done: end the client's input */
            close(p->wfd);
            p->wfd = -1;
        }
    }
    return true;
}

Test(flow, play_prompts_sends_the_move_and_redraws)
{
    play_ctx p = {0, 0, -1, 0};
    fake_start(&srv, play_script, &p);
    login_alice();
    crun r;
    crun_do(&r, "help\nb2-c3\n", "--server", srv.addr, "play", "5", NULL);
    crun_expect(&r, 0);
    cr_assert(strstr(r.out, "White to move (alice, you)\n"), "%s", r.out);
    cr_assert(strstr(r.out, "your move: "), "%s", r.out);
    cr_assert(strstr(r.out, "Commands:\n"), "%s", r.out);
    /* Redrawn after the move, with it marked and Black to move. */
    cr_assert(strstr(r.out, "3  w---w--[w]--b---b\n"), "%s", r.out);
    cr_assert(strstr(r.out, "Black to move (bob)\n"), "%s", r.out);
    crun_free(&r);
    cJSON *mv = fake_request(&srv, "move", 0);
    cr_assert_not_null(mv);
    cr_assert_eq(cJSON_GetObjectItem(mv, "ply")->valueint, 0);
    cJSON_Delete(mv);
}

Test(flow, play_refuses_moves_out_of_turn_locally)
{
    play_ctx p = {1, 0, -1, 0};
    fake_start(&srv, play_script, &p);
    login_alice();
    crun r;
    crun_do(&r, "d2-c3\n", "--server", srv.addr, "play", "5", NULL);
    crun_expect(&r, 0);
    cr_assert(strstr(r.out, "Waiting for bob (black)...\n"), "%s", r.out);
    cr_assert(strstr(r.out, "Not your turn\n"), "%s", r.out);
    crun_free(&r);
    cr_assert_eq(fake_count(&srv, "move"), 0);
}

Test(flow, play_resends_a_move_lost_with_the_connection)
{
    /* The first `move` is applied but the connection drops before the
     * answer: the client reconnects, logs in again, fetches the game and
     * resends the same move at the same ply, which answers duplicate. */
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    play_ctx p = {0, 1, fds[1], 0};
    fake_start(&srv, play_script, &p);
    login_alice();
    cr_assert_eq(write(fds[1], "b2-c3\n", 6), 6);
    FILE *in = fdopen(fds[0], "r");
    crun r;
    crun_in(&r, in, "--server", srv.addr, "play", "5", NULL);
    fclose(in);
    crun_expect(&r, 0);
    cr_assert(strstr(r.err, "Connection to 127.0.0.1:"), "%s", r.err);
    cr_assert(strstr(r.out, "Reconnected to "), "%s", r.out);
    cr_assert(strstr(r.out, "b2-c3 had already been played at ply 0\n"), "%s", r.out);
    /* Asked once at the start and once more after the lost answer: the
     * loop's wake-ups while it waits to reconnect do not ask again. */
    int prompts = 0;
    for (const char *q = r.out; (q = strstr(q, "your move: ")); q++)
        prompts++;
    cr_assert_eq(prompts, 2, "%s", r.out);
    crun_free(&r);
    cr_assert_eq(fake_count(&srv, "move"), 2);
    cr_assert_eq(fake_count(&srv, "login"), 2);
    cJSON *m2 = fake_request(&srv, "move", 1);
    cr_assert_eq(cJSON_GetObjectItem(m2, "ply")->valueint, 0);
    cr_assert_eq(cJSON_GetObjectItem(m2, "_conn")->valueint, 2);
    cJSON_Delete(m2);
}

Test(flow, play_waits_out_a_busy_server)
{
    /* Connection 2 (the first reconnect) is refused with server_busy: a
     * reason to wait, not to give up. Connection 3 resends the move. */
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    play_ctx p = {0, 1, fds[1], 2};
    fake_start(&srv, play_script, &p);
    login_alice();
    cr_assert_eq(write(fds[1], "b2-c3\n", 6), 6);
    FILE *in = fdopen(fds[0], "r");
    crun r;
    crun_in(&r, in, "--server", srv.addr, "play", "5", NULL);
    fclose(in);
    crun_expect(&r, 0);
    cr_assert(strstr(r.err, "The server is busy; try again in a moment: starting\n"), "%s", r.err);
    cr_assert(strstr(r.out, "b2-c3 had already been played at ply 0\n"), "%s", r.out);
    crun_free(&r);
    cJSON *m2 = fake_request(&srv, "move", 1);
    cr_assert_not_null(m2);
    cr_assert_eq(cJSON_GetObjectItem(m2, "_conn")->valueint, 3);
    cJSON_Delete(m2);
}

typedef struct event_ctx {
    int games; /* `game` requests answered */
    int wfd;
} event_ctx;

/* Black's view: after the first fetch the fake pushes White's move as an
 * event; the client must fetch the game again and redraw it. */
static bool event_script(fake *f, int conn, const cJSON *req, char *buf, size_t n)
{
    (void)conn;
    event_ctx *e = f->user;
    if (is(req, "login")) {
        snprintf(buf, n,
                 "{\"type\":\"ok\",\"id\":%d,\"user\":{\"username\":\"bob\",\"bot\":false},"
                 "\"token\":\"tok\"}\n",
                 req_id(req));
        return true;
    }
    if (fake_basic(req, buf, n))
        return true;
    if (is(req, "game")) {
        char game[2048];
        game_json(game, sizeof game, e->games == 0 ? 0 : 1);
        int len = snprintf(buf, n, "{\"type\":\"ok\",\"id\":%d,\"game\":%s}\n", req_id(req), game);
        if (e->games == 0)
            snprintf(buf + len, n - (size_t)len,
                     "{\"type\":\"event\",\"event\":\"move\",\"game\":5,\"ply\":0,"
                     "\"move\":\"b2-c3\",\"position\":\"" AFTER_B2C3 "\",\"turn\":\"black\"}\n");
        else if (e->wfd >= 0) {
            close(e->wfd);
            e->wfd = -1;
        }
        e->games++;
    }
    return true;
}

Test(flow, play_redraws_on_the_opponents_move_event)
{
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    event_ctx e = {0, fds[1]};
    fake_start(&srv, event_script, &e);
    session s = {0};
    strcpy(s.username, "bob");
    strcpy(s.token, "tok");
    strcpy(s.server, srv.addr);
    cr_assert_eq(session_save(&s), SESSION_OK);
    FILE *in = fdopen(fds[0], "r");
    crun r;
    crun_in(&r, in, "--server", srv.addr, "play", "5", NULL);
    fclose(in);
    crun_expect(&r, 0);
    const char *before = strstr(r.out, "White to move (alice)\n");
    cr_assert_not_null(before, "%s", r.out);
    const char *after = strstr(r.out, "Last move: b2-c3\nBlack to move (bob, you)\n");
    cr_assert(after && after > before, "%s", r.out);
    cr_assert(strstr(after, "your move: "), "%s", r.out);
    crun_free(&r);
    cr_assert_eq(fake_count(&srv, "game"), 2);
}

Test(flow, play_classify_words)
{
    char mv[64];
    cr_assert_eq(play_classify("  quit \n", mv, sizeof mv), PLAY_IN_QUIT);
    cr_assert_eq(play_classify("EXIT", mv, sizeof mv), PLAY_IN_QUIT);
    cr_assert_eq(play_classify("?", mv, sizeof mv), PLAY_IN_HELP);
    cr_assert_eq(play_classify("Resign", mv, sizeof mv), PLAY_IN_RESIGN);
    cr_assert_eq(play_classify("board", mv, sizeof mv), PLAY_IN_BOARD);
    cr_assert_eq(play_classify("moves", mv, sizeof mv), PLAY_IN_MOVES);
    cr_assert_eq(play_classify(" \t", mv, sizeof mv), PLAY_IN_EMPTY);
    cr_assert_eq(play_classify(" a1xc3xe5 ", mv, sizeof mv), PLAY_IN_MOVE);
    cr_assert_str_eq(mv, "a1xc3xe5");
    cr_assert_eq(play_classify("quitter", mv, sizeof mv), PLAY_IN_UNKNOWN);
}
