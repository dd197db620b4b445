/*
 * Limits that keep one client from hurting another, or itself: the
 * per-turn line budget and the read pause on pending output (conn.h,
 * "Backpressure"), the per-connection request rate (ratelimit.h), the cap
 * on open challenges per user. And a challenge's start must be playable:
 * not already over, at most 4,096 legal moves; the path form of `move`
 * does not depend on the legal-move list.
 *
 * The first tests are the adversarial tester's reproducers: four users
 * flooding a fifth with challenges in one loop turn used to push more
 * than the 1 MiB output cap into the victim's queue before anything was
 * written; one client pipelining 3,000 requests used to be dropped with
 * no answer at all.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "helper.h"

/* The server log mentions no output-cap disconnect. */
static void no_cap_disconnect(const tsrv *s)
{
    FILE *f = fopen(s->log, "r");
    cr_assert_not_null(f);
    char line[512];
    while (fgets(line, sizeof line, f))
        cr_assert_null(strstr(line, "of output pending, disconnecting"), "%s", line);
    fclose(f);
}

/* n request lines, "{...,"id":i}" for i in 0..n-1, built by fmt (one %d). */
static char *burst(const char *fmt, int n, size_t *len)
{
    size_t cap = (size_t)n * (strlen(fmt) + 16) + 1, k = 0;
    char *b = malloc(cap);
    cr_assert_not_null(b);
    for (int i = 0; i < n; i++)
        k += (size_t)snprintf(b + k, cap - k, fmt, i);
    *len = k;
    return b;
}

typedef struct sender {
    int fd;
    const char *data;
    size_t len;
    bool ok;
} sender;

/* A thread that writes while the test reads: a pipelining client that
 * reads, without a deadlock when the server stops reading it. */
static void *send_all(void *arg)
{
    sender *s = arg;
    size_t off = 0;
    while (off < s->len) {
        ssize_t w = send(s->fd, s->data + off, s->len - off, MSG_NOSIGNAL);
        if (w <= 0)
            return NULL;
        off += (size_t)w;
    }
    s->ok = true;
    return NULL;
}

Test(limits, a_victim_that_reads_keeps_its_connection, .timeout = 120)
{
    tsrv s;
    tsrv_start(&s, NULL);
    tconn *victim = tc_open(s.port), *atk[4];
    t_register(victim, "victim");
    char name[32];
    for (int i = 0; i < 4; i++) {
        atk[i] = tc_open(s.port);
        snprintf(name, sizeof name, "attacker%d", i);
        t_register(atk[i], name);
    }
    size_t len;
    char *b = burst("{\"type\":\"challenge\",\"id\":%d,\"to\":\"victim\"}\n", 1300, &len);
    for (int i = 0; i < 4; i++)
        cr_assert(tc_send(atk[i], b, len));
    free(b);
    /* Every attacker gets its 1,300 answers, in order: a challenge up to
     * the cap of open challenges, then conflict (or rate_limited). */
    int created = 0;
    for (int i = 0; i < 4; i++) {
        for (int id = 0; id < 1300; id++) {
            cJSON *r = tc_reply(atk[i], T_TIMEOUT_MS);
            cr_assert_not_null(r, "attacker %d: no answer %d", i, id);
            cr_assert_eq(t_int(r, "id"), id, "out of order: %s", t_text(r));
            const char *type = t_str(r, "type"), *code = t_str(r, "code");
            if (!strcmp(type, "ok"))
                created++;
            else
                cr_assert(!strcmp(code, "conflict") || !strcmp(code, "rate_limited"), "%s",
                          t_text(r));
            cJSON_Delete(r);
        }
    }
    cr_assert_eq(created, 4 * 50, "open challenges per user are capped at 50");
    /* The victim is still connected and has an event for each. */
    for (int i = 0; i < created; i++) {
        cJSON *ev = tc_event(victim, "challenge", T_TIMEOUT_MS);
        cr_assert_not_null(ev, "victim: event %d of %d missing", i, created);
        cJSON_Delete(ev);
    }
    cJSON *r = tc_rpc(victim, "{\"type\":\"challenges\"}");
    t_ok(r, "the victim is still served");
    cr_assert_eq(cJSON_GetArraySize(t_obj(r, "challenges")), created);
    cJSON_Delete(r);
    no_cap_disconnect(&s);
    for (int i = 0; i < 4; i++)
        tc_close(atk[i]);
    tc_close(victim);
    tsrv_stop(&s);
    tsrv_cleanup(&s);
}

Test(limits, pipelined_challenges_are_all_answered_in_order, .timeout = 120)
{
    tsrv s;
    tsrv_start(&s, NULL);
    tconn *c = tc_open(s.port);
    t_register(c, "alice");
    size_t len;
    char *b = burst("{\"type\":\"challenge\",\"id\":%d}\n", 3000, &len);
    sender snd = {c->fd, b, len, false};
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, send_all, &snd), 0);
    int ok = 0;
    for (int id = 0; id < 3000; id++) {
        cJSON *r = tc_reply(c, T_TIMEOUT_MS);
        cr_assert_not_null(r, "no answer %d", id);
        cr_assert_eq(t_int(r, "id"), id, "out of order: %s", t_text(r));
        if (!strcmp(t_str(r, "type"), "ok"))
            ok++;
        else
            cr_assert(!strcmp(t_str(r, "code"), "conflict") ||
                          !strcmp(t_str(r, "code"), "rate_limited"),
                      "%s", t_text(r));
        cJSON_Delete(r);
    }
    pthread_join(th, NULL);
    free(b);
    cr_assert(snd.ok);
    cr_assert_eq(ok, 50);
    /* Answers come after the commit: the rows are there. */
    cr_assert_eq(t_db_count(s.db, "challenges"), ok, "every ok is a row, and only those");
    no_cap_disconnect(&s);
    tc_close(c);
    tsrv_stop(&s);
    tsrv_cleanup(&s);
}

/* More answers than the output cap, asked for in one go by a client that
 * reads late and through a small window: the server stops reading it
 * while its output is over the soft limit, and drops nothing. */
Test(limits, a_slow_reader_is_paused_not_dropped, .timeout = 120)
{
    tsrv s;
    tsrv_start(&s, "QK_RATE_LIMIT=off");
    tconn *c = tc_open(s.port);
    int small = 8192;
    setsockopt(c->fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    enum { N = 4000 };
    size_t len;
    char *b = burst("{\"type\":\"hello\",\"id\":%d}\n", N, &len);
    sender snd = {c->fd, b, len, false};
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, send_all, &snd), 0);
    usleep(1000 * 1000); /* read nothing for a second */
    size_t bytes = 0;
    for (int id = 0; id < N; id++) {
        cJSON *r = tc_reply(c, T_TIMEOUT_MS);
        cr_assert_not_null(r, "no answer %d", id);
        t_ok(r, "hello");
        cr_assert_eq(t_int(r, "id"), id, "out of order: %s", t_text(r));
        char *text = cJSON_PrintUnformatted(r);
        bytes += strlen(text) + 1;
        free(text);
        cJSON_Delete(r);
    }
    pthread_join(th, NULL);
    free(b);
    cr_assert(snd.ok);
    cr_assert_gt(bytes, 1024 * 1024, "the answers (%zu bytes) must pass the output cap", bytes);
    no_cap_disconnect(&s);
    tc_close(c);
    tsrv_stop(&s);
    tsrv_cleanup(&s);
}

/* Events a connection does not read, caused by someone else: the output
 * cap still closes it, and only it. */
Test(limits, a_connection_that_does_not_read_its_events_is_disconnected, .timeout = 120)
{
    tsrv s;
    tsrv_start(&s, "QK_RATE_LIMIT=off QK_CHALLENGE_RATE=off");
    tconn *deaf = tc_open(s.port), *mouth = tc_open(s.port), *w = tc_open(s.port);
    t_register(w, "wanda");
    t_register(deaf, "dave");
    int small = 4096;
    setsockopt(deaf->fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    cJSON *r =
        tc_rpc(mouth, "{\"type\":\"login\",\"username\":\"dave\",\"password\":\"" T_PW "\"}");
    t_ok(r, "second connection of dave");
    cJSON_Delete(r);
    /* Each challenge and cancel is an event to both of dave's connections. */
    bool closed = t_flood_until_cut(&s, mouth, 1500);
    cr_assert(closed, "the deaf connection was never cut");
    r = tc_rpc(mouth, "{\"type\":\"ping\"}");
    t_ok(r, "the reading connection of the same user is still served");
    cJSON_Delete(r);
    tc_close(deaf);
    tc_close(mouth);
    tc_close(w);
    tsrv_stop(&s);
    tsrv_cleanup(&s);
}

Test(limits, rate_limited_with_retry_after_ms, .timeout = 60)
{
    tsrv s;
    tsrv_start(&s, "QK_RATE_LIMIT=5/2");
    tconn *c = tc_open(s.port);
    /* Five tokens, two more a second: of eight requests sent at once the
     * last three are refused, and a refused one is not run. */
    cr_assert(tc_sendf(c,
                       "{\"type\":\"hello\",\"id\":0}\n"
                       "{\"type\":\"register\",\"id\":1,\"username\":\"ann\",\"password\":\"p\"}\n"
                       "{\"type\":\"ping\",\"id\":2}\n{\"type\":\"ping\",\"id\":3}\n"
                       "{\"type\":\"ping\",\"id\":4}\n"
                       "{\"type\":\"challenge\",\"id\":5}\n"
                       "{\"type\":\"ping\",\"id\":6}\n{\"type\":\"bogus\",\"id\":7}\n"));
    long long retry = 0;
    for (int id = 0; id < 8; id++) {
        cJSON *r = tc_reply(c, T_TIMEOUT_MS);
        cr_assert_not_null(r, "no answer %d", id);
        cr_assert_eq(t_int(r, "id"), id, "out of order: %s", t_text(r));
        if (id < 5) {
            t_ok(r, "within the burst");
        } else {
            t_err(r, "rate_limited", "over the burst");
            retry = t_int(r, "retry_after_ms");
            cr_assert(retry >= 1 && retry <= 500, "retry_after_ms %lld", retry);
        }
        if (id == 0) {
            const cJSON *lim = t_obj(r, "limits");
            cr_assert_eq(t_int(lim, "requests_burst"), 5);
            cr_assert_eq(t_int(lim, "requests_per_s"), 2);
        }
        cJSON_Delete(r);
    }
    cr_assert_eq(t_db_count(s.db, "challenges"), 0, "a refused challenge was made");
    usleep((useconds_t)(retry + 20) * 1000);
    cJSON *r = tc_rpc(c, "{\"type\":\"ping\"}");
    t_ok(r, "after retry_after_ms");
    cJSON_Delete(r);
    tc_close(c);
    tsrv_stop(&s);
    tsrv_cleanup(&s);
}

Test(limits, the_default_rate_limit_refuses_a_long_burst, .timeout = 120)
{
    tsrv s;
    tsrv_start(&s, NULL);
    tconn *c = tc_open(s.port);
    size_t len;
    char *b = burst("{\"type\":\"ping\",\"id\":%d}\n", 2500, &len);
    sender snd = {c->fd, b, len, false};
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, send_all, &snd), 0);
    int ok = 0, limited = 0;
    for (int id = 0; id < 2500; id++) {
        cJSON *r = tc_reply(c, T_TIMEOUT_MS);
        cr_assert_not_null(r, "no answer %d", id);
        cr_assert_eq(t_int(r, "id"), id, "out of order: %s", t_text(r));
        if (!strcmp(t_str(r, "type"), "ok")) {
            ok++;
        } else {
            t_err(r, "rate_limited", "ping over the limit");
            cr_assert_gt(t_int(r, "retry_after_ms"), 0);
            limited++;
        }
        cJSON_Delete(r);
    }
    pthread_join(th, NULL);
    free(b);
    cr_assert_geq(ok, 1000, "the burst of 1,000 is served");
    cr_assert_gt(limited, 0, "%d ok, none limited", ok);
    tc_close(c);
    tsrv_stop(&s);
    tsrv_cleanup(&s);
}

Test(limits, open_challenges_are_capped_per_user)
{
    tsrv s;
    tsrv_start(&s, NULL);
    tconn *a = tc_open(s.port), *b = tc_open(s.port);
    t_register(a, "ann");
    t_register(b, "bob");
    for (int i = 0; i < 50; i++) {
        /* Directed challenges and open seeks count alike. */
        cJSON *r = tc_rpc(a, "{\"type\":\"challenge\"%s}", i % 2 ? ",\"to\":\"bob\"" : "");
        t_ok(r, "one of the first 50");
        cJSON_Delete(r);
    }
    tc_drop_events(a);
    tc_drop_events(b);
    cJSON *r = tc_rpc(a, "{\"type\":\"challenges\"}");
    int open = cJSON_GetArraySize(t_obj(r, "challenges"));
    cJSON_Delete(r);
    cr_assert_eq(open, 50, "%d open", open);
    r = tc_rpc(a, "{\"type\":\"challenge\",\"to\":\"bob\"}");
    t_err(r, "conflict", "the 51st open challenge");
    cr_assert(strstr(t_str(r, "message"), "50 open challenges"), "%s", t_text(r));
    cJSON_Delete(r);
    /* Answered or canceled ones do not count. */
    r = tc_rpc(a, "{\"type\":\"challenges\"}");
    long long cid = t_int(cJSON_GetArrayItem(t_obj(r, "challenges"), 0), "id");
    cJSON_Delete(r);
    r = tc_rpc(a, "{\"type\":\"cancel\",\"challenge\":%lld}", cid);
    t_ok(r, "cancel");
    cJSON_Delete(r);
    r = tc_rpc(a, "{\"type\":\"challenge\",\"to\":\"bob\"}");
    t_ok(r, "a challenge again after a cancel");
    cJSON_Delete(r);
    /* Another user is not affected. */
    r = tc_rpc(b, "{\"type\":\"challenge\",\"to\":\"ann\"}");
    t_ok(r, "bob's own challenge");
    cJSON_Delete(r);
    tc_close(a);
    tc_close(b);
    tsrv_stop(&s);
    tsrv_cleanup(&s);
}

/* ---- start positions and the path form -------------------------------- */

/* A kawu man inside a lattice of 16 enemies: 213,892 capture prefixes. */
#define HUGE_POS ".b.b./bbbbb/.b.b./bbbbb/wb.b. w 0 -"

static tsrv PS;
static tconn *PA, *PB;

static void pos_setup(void)
{
    tsrv_start(&PS, NULL);
    PA = tc_open(PS.port);
    PB = tc_open(PS.port);
    t_register(PA, "alice");
    t_register(PB, "bob");
}

static void pos_teardown(void)
{
    tc_close(PA);
    tc_close(PB);
    tsrv_stop(&PS);
    tsrv_cleanup(&PS);
}

TestSuite(positions, .init = pos_setup, .fini = pos_teardown, .timeout = 60);

Test(positions, a_start_with_more_than_4096_moves_is_refused)
{
    cJSON *r = tc_rpc(PA, "{\"type\":\"challenge\",\"to\":\"bob\",\"position\":\"" HUGE_POS "\"}");
    t_err(r, "bad_request", "213,892 legal moves");
    cr_assert_str_eq(t_str(r, "message"), "the position has more than 4096 legal moves");
    cJSON_Delete(r);
    cr_assert_eq(t_db_count(PS.db, "challenges"), 0);
}

Test(positions, a_variant_whose_start_is_over_is_refused)
{
    static const char *const over[] = {"alquerkonane-2x2", "alquerkonane-2x3", "alquerkonane-2x12"};
    for (size_t i = 0; i < sizeof over / sizeof *over; i++) {
        cJSON *r =
            tc_rpc(PA, "{\"type\":\"challenge\",\"to\":\"bob\",\"variant\":\"%s\"}", over[i]);
        t_err(r, "bad_request", over[i]);
        cr_assert_str_eq(t_str(r, "message"), "the start position of this variant is already over");
        cJSON_Delete(r);
    }
    cr_assert_eq(t_db_count(PS.db, "challenges"), 0);
    /* A board where Black can move is fine. */
    cJSON *r =
        tc_rpc(PA, "{\"type\":\"challenge\",\"to\":\"bob\",\"variant\":\"alquerkonane-4x4\"}");
    t_ok(r, "alquerkonane-4x4");
    cJSON_Delete(r);
}

Test(positions, challenge_to_an_impossible_username_is_bad_request)
{
    cJSON *r = tc_rpc(PA, "{\"type\":\"challenge\",\"to\":\"a b\"}");
    t_err(r, "bad_request", "to: a b");
    cJSON_Delete(r);
    r = tc_rpc(PA, "{\"type\":\"games\",\"user\":\"a/b\"}");
    t_err(r, "bad_request", "games user: a/b");
    cJSON_Delete(r);
    r = tc_rpc(PA, "{\"type\":\"users\",\"username\":\"\"}");
    t_err(r, "bad_request", "users username: empty");
    cJSON_Delete(r);
    r = tc_rpc(PA, "{\"type\":\"challenge\",\"to\":\"nobody\"}");
    t_err(r, "not_found", "a well-formed name nobody has");
    cJSON_Delete(r);
}

Test(positions, the_path_form_plays_steps_and_captures)
{
    long long gid = t_new_game(PA, PB, "bob", "alquerque");
    cJSON *r = tc_rpc(
        PA, "{\"type\":\"move\",\"game\":%lld,\"ply\":0,\"move\":{\"path\":[\"b2\",\"c3\"]}}", gid);
    t_ok(r, "a step as a path");
    cJSON_Delete(r);
    r = tc_rpc(
        PB, "{\"type\":\"move\",\"game\":%lld,\"ply\":1,\"move\":{\"path\":[\"b4\",\"b2\"]}}", gid);
    t_ok(r, "a capture as a path");
    const cJSON *moves = t_obj(t_obj(r, "game"), "moves");
    cr_assert_str_eq(cJSON_GetArrayItem(moves, 0)->valuestring, "b2-c3");
    cr_assert_str_eq(cJSON_GetArrayItem(moves, 1)->valuestring, "b4xb2");
    cJSON_Delete(r);
    /* Not a move: illegal_move, with the list. */
    r = tc_rpc(
        PA, "{\"type\":\"move\",\"game\":%lld,\"ply\":2,\"move\":{\"path\":[\"a1\",\"e5\"]}}", gid);
    t_err(r, "illegal_move", "a path that is no move");
    cr_assert(cJSON_IsArray(t_obj(r, "legal_moves")));
    cJSON_Delete(r);
}

/* A game whose position has more moves than the list holds (made by hand
 * in the database: `challenge` refuses such a start) says so, and every
 * move of it can still be played, as text or as a path. */
Test(positions, a_game_past_4096_moves_flags_its_list_and_still_plays)
{
    long long gid = t_new_game(PA, PB, "bob", "alquerque");
    tsrv_stop(&PS);
    sqlite3 *db = NULL;
    cr_assert_eq(sqlite3_open(PS.db, &db), SQLITE_OK);
    char sql[256];
    snprintf(sql, sizeof sql,
             "UPDATE games SET start = '%s', position = '%s', turn = 'white' WHERE id = %lld",
             HUGE_POS, HUGE_POS, gid);
    cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
    sqlite3_close(db);
    tsrv_restart(&PS, NULL);
    tc_close(PA);
    tc_close(PB);
    PA = tc_open(PS.port);
    PB = tc_open(PS.port);
    cJSON *r = tc_rpc(PA, "{\"type\":\"login\",\"username\":\"alice\",\"password\":\"" T_PW "\"}");
    t_ok(r, "login");
    cJSON_Delete(r);
    r = tc_rpc(PA, "{\"type\":\"game\",\"game\":%lld}", gid);
    t_ok(r, "game");
    const cJSON *g = t_obj(r, "game");
    cr_assert(cJSON_IsTrue(t_obj(g, "legal_moves_truncated")), "%s", t_text(r));
    cr_assert_eq(cJSON_GetArraySize(t_obj(g, "legal_moves")), 4096);
    cJSON_Delete(r);
    r = tc_rpc(PA, "{\"type\":\"hint\",\"game\":%lld}", gid);
    cr_assert_str_neq(t_str(r, "code") ? t_str(r, "code") : "", "internal", "%s", t_text(r));
    cJSON_Delete(r);
    r = tc_rpc(
        PA, "{\"type\":\"move\",\"game\":%lld,\"ply\":0,\"move\":{\"path\":[\"a1\",\"a3\"]}}", gid);
    t_ok(r, "a capture as a path in a 213,892-move position");
    cr_assert_str_eq(cJSON_GetArrayItem(t_obj(t_obj(r, "game"), "moves"), 0)->valuestring, "a1xa3");
    cJSON_Delete(r);
}
