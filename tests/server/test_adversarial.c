/*
 * Hostile input at the framing layer (STYLE.md "Network input is
 * hostile"): a request split at every byte boundary, sent one byte at a
 * time, a 1 MiB line, NUL bytes, invalid UTF-8, a huge nesting, a client
 * that never reads, a client that leaves while its password is hashed.
 * Each case ends in a specific answer or a close, never a crash or a hang,
 * and the server keeps serving others.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "helper.h"

static tsrv S;

static void setup(void)
{
    tsrv_start(&S, NULL);
}

static void teardown(void)
{
    tsrv_stop(&S);
    tsrv_cleanup(&S);
}

TestSuite(adversarial, .init = setup, .fini = teardown, .timeout = 120);

static void still_serving(const char *after)
{
    tconn *c = tc_open(S.port);
    cJSON *r = tc_rpc(c, "{\"type\":\"ping\",\"ts\":\"x\"}");
    t_ok(r, after);
    cr_assert_str_eq(t_str(r, "ts"), "x");
    cJSON_Delete(r);
    tc_close(c);
    cr_assert(tsrv_alive(&S), "qirkatd died after %s", after);
}

Test(adversarial, split_at_every_byte_boundary)
{
    tconn *c = tc_open(S.port);
    char msg[128];
    for (int cut = 0;; cut++) {
        int n = snprintf(msg, sizeof msg, "{\"type\":\"ping\",\"id\":%d,\"ts\":[1,\"\xc3\xa9\"]}\n",
                         cut);
        if (cut > n)
            break;
        cr_assert(tc_send(c, msg, (size_t)cut));
        usleep(500); /* let the first part arrive on its own */
        cr_assert(tc_send(c, msg + cut, (size_t)(n - cut)));
        cJSON *r = tc_reply(c, T_TIMEOUT_MS);
        t_ok(r, "split request");
        cr_assert_eq(t_int(r, "id"), cut, "cut at %d: %s", cut, t_text(r));
        cr_assert_str_eq(cJSON_GetArrayItem(t_obj(r, "ts"), 1)->valuestring, "\xc3\xa9");
        cJSON_Delete(r);
    }
    tc_close(c);
}

Test(adversarial, one_byte_at_a_time)
{
    tconn *c = tc_open(S.port);
    const char *msg = "{\"type\":\"register\",\"id\":\"r\",\"username\":\"slow\",\"password\":"
                      "\"p\"}\n{\"type\":\"games\",\"id\":\"g\"}\n";
    for (const char *p = msg; *p; p++) {
        cr_assert(tc_send(c, p, 1));
        usleep(200);
    }
    cJSON *r = tc_reply(c, T_TIMEOUT_MS);
    t_ok(r, "register sent byte by byte");
    cr_assert_str_eq(t_str(r, "id"), "r");
    cJSON_Delete(r);
    r = tc_reply(c, T_TIMEOUT_MS);
    t_ok(r, "games after it (in order, logged in)");
    cr_assert_str_eq(t_str(r, "id"), "g");
    cJSON_Delete(r);
    tc_close(c);
}

Test(adversarial, pipelined_requests_behind_a_password_hash_keep_their_order)
{
    tconn *c = tc_open(S.port);
    /* All in one write: the register is deferred to the thread pool and the
     * connection paused; the rest must wait and then see the login. */
    cr_assert(tc_sendf(c, "{\"type\":\"register\",\"id\":1,\"username\":\"pipe\",\"password\":\"p\"}\n"
                          "{\"type\":\"challenges\",\"id\":2}\n"
                          "{\"type\":\"login\",\"id\":3,\"username\":\"pipe\",\"password\":\"p\"}\n"
                          "{\"type\":\"ping\",\"id\":4}\n"
                          "{\"type\":\"login\",\"id\":5,\"username\":\"pipe\",\"password\":\"q\"}\n"
                          "{\"type\":\"ping\",\"id\":6}\n"));
    for (int id = 1; id <= 6; id++) {
        cJSON *r = tc_reply(c, T_TIMEOUT_MS);
        cr_assert_not_null(r, "no answer %d", id);
        cr_assert_eq(t_int(r, "id"), id, "answers out of order: %s", t_text(r));
        if (id == 5)
            t_err(r, "unauthenticated", "wrong password");
        else
            t_ok(r, "pipelined");
        cJSON_Delete(r);
    }
    tc_close(c);
}

Test(adversarial, one_mebibyte_line)
{
    tconn *c = tc_open(S.port);
    size_t n = 1024 * 1024;
    char *line = malloc(n);
    cr_assert_not_null(line);
    memset(line, 'a', n);
    memcpy(line, "{\"type\":\"ping\",\"id\":1,\"x\":\"", 27);
    memcpy(line + n - 3, "\"}\n", 3);
    tc_send(c, line, n); /* the server closes part-way: a failed send is fine */
    free(line);
    cJSON *r = tc_read(c, T_TIMEOUT_MS);
    t_err(r, "line_too_long", "1 MiB line");
    cJSON_Delete(r);
    cr_assert(tc_wait_eof(c, T_TIMEOUT_MS));
    tc_close(c);
    still_serving("a 1 MiB line");
}

Test(adversarial, line_at_the_limit_is_accepted)
{
    tconn *c = tc_open(S.port);
    size_t n = 64 * 1024; /* bytes before the '\n' */
    char *line = malloc(n + 1);
    cr_assert_not_null(line);
    memset(line, ' ', n);
    memcpy(line, "{\"type\":\"ping\",\"id\":1}", 22);
    line[n] = '\n';
    cr_assert(tc_send(c, line, n + 1));
    free(line);
    cJSON *r = tc_reply(c, T_TIMEOUT_MS);
    t_ok(r, "a 64 KiB line (trailing blanks)");
    cJSON_Delete(r);
    tc_close(c);
}

Test(adversarial, nul_bytes)
{
    tconn *c = tc_open(S.port);
#define NUL_CASE(s) {s, sizeof s - 1}
    static const struct {
        const char *s;
        size_t n;
    } cases[] = {
        NUL_CASE("\0\n"),
        NUL_CASE("{\"type\":\"ping\",\"id\":1}\0\n"),
        NUL_CASE("{\"type\":\"ping\",\"id\":1,\"x\":\"a\0b\"}\n"),
        NUL_CASE("{\"type\":\"pi\0ng\",\"id\":1}\n"),
        NUL_CASE("\0\0\0\0\n"),
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cr_assert(tc_send(c, cases[i].s, cases[i].n));
        cJSON *r = tc_reply(c, T_TIMEOUT_MS);
        t_err(r, "bad_json", "NUL byte");
        cJSON_Delete(r);
    }
    cJSON *r = tc_rpc(c, "{\"type\":\"ping\"}");
    t_ok(r, "after NUL bytes");
    cJSON_Delete(r);
    tc_close(c);
}

Test(adversarial, invalid_utf8)
{
    tconn *c = tc_open(S.port);
    static const char *cases[] = {
        "{\"type\":\"ping\",\"id\":1,\"x\":\"\xff\"}\n",             /* never valid */
        "{\"type\":\"ping\",\"id\":1,\"x\":\"\xc0\xaf\"}\n",         /* overlong '/' */
        "{\"type\":\"ping\",\"id\":1,\"x\":\"\xed\xa0\x80\"}\n",     /* surrogate */
        "{\"type\":\"ping\",\"id\":1,\"x\":\"\xe2\x82\"}\n",         /* truncated */
        "{\"type\":\"ping\",\"id\":1,\"x\":\"\xf4\x90\x80\x80\"}\n", /* > U+10FFFF */
        "{\"type\":\"ping\",\"id\":1}\x80\n",                        /* after the object */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cr_assert(tc_send(c, cases[i], strlen(cases[i])));
        cJSON *r = tc_reply(c, T_TIMEOUT_MS);
        t_err(r, "bad_json", "invalid UTF-8");
        cJSON_Delete(r);
    }
    /* Valid multi-byte text is fine, also as a username. */
    cJSON *r = tc_rpc(c, "{\"type\":\"ping\",\"ts\":\"\xe2\x99\x9f \xf0\x9f\x8e\xb2\"}");
    t_ok(r, "valid UTF-8");
    cJSON_Delete(r);
    r = tc_rpc(c, "{\"type\":\"register\",\"username\":\"\xc3\xa9t\xc3\xa9\",\"password\":\"p\"}");
    t_err(r, "bad_request", "non-ASCII username");
    cJSON_Delete(r);
    tc_close(c);
}

Test(adversarial, huge_nesting)
{
    tconn *c = tc_open(S.port);
    size_t depth = 30000; /* 60 KB: under the line limit */
    char *line = malloc(2 * depth + 64);
    cr_assert_not_null(line);
    int n = sprintf(line, "{\"type\":\"ping\",\"id\":1,\"x\":");
    memset(line + n, '[', depth);
    memset(line + n + depth, ']', depth);
    n += (int)(2 * depth);
    n += sprintf(line + n, "}\n");
    cr_assert(tc_send(c, line, (size_t)n));
    free(line);
    cJSON *r = tc_reply(c, T_TIMEOUT_MS);
    t_err(r, "bad_request", "30000 levels");
    /* Section 3 step 1: the id comes back at any depth (issue 21: past
     * cJSON's 1,000 levels it used to be dropped). */
    cr_assert_eq(t_int(r, "id"), 1, "the id of a 30000-level line: %s", t_text(r));
    cJSON_Delete(r);
    tc_close(c);
    still_serving("deep nesting");
}

/* A client that sends requests and never reads the answers: once its
 * pending output passes the soft limit the server stops reading it (and
 * so its sends block), holding a bounded amount for it, and serves the
 * others. (A connection that does not read the events others cause it is
 * cut by the output cap: test_limits.c.) */
Test(adversarial, a_client_that_never_reads_is_no_longer_read)
{
    tconn *c = tc_open(S.port);
    int small = 4096;
    setsockopt(c->fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    struct timeval tv = {.tv_sec = 1};
    setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    /* Up to ~130 MB of requests, far more than any buffer on the way. */
    char batch[64 * 1024];
    size_t n = 0;
    while (n + 40 < sizeof batch)
        n += (size_t)sprintf(batch + n, "{\"type\":\"hello\",\"id\":1}\n");
    bool stalled = false;
    for (int i = 0; i < 2000 && !stalled; i++) {
        ssize_t w = send(c->fd, batch, n, MSG_NOSIGNAL);
        cr_assert(w > 0 || errno == EAGAIN || errno == EWOULDBLOCK,
                  "the server closed a client that only did not read: %s", strerror(errno));
        stalled = w < (ssize_t)n;
    }
    cr_assert(stalled, "the server read 130 MB from a client that reads nothing");
    still_serving("a client that does not read");
    tc_close(c);
    still_serving("a client that did not read left");
}

Test(adversarial, leaving_while_a_password_is_hashed)
{
    for (int i = 0; i < 20; i++) {
        tconn *c = tc_open(S.port);
        tc_sendf(c,
                 "{\"type\":\"register\",\"id\":1,\"username\":\"gone%d\",\"password\":\"p\"}\n"
                 "{\"type\":\"login\",\"id\":2,\"username\":\"gone%d\",\"password\":\"p\"}\n",
                 i, i);
        if (i % 2)
            usleep(1000);
        tc_close(c);
    }
    still_serving("clients that left during hashing");
}

Test(adversarial, empty_lines_are_keepalives)
{
    tconn *c = tc_open(S.port);
    cr_assert(tc_send(c, "\n\r\n\n", 4));
    cJSON *r = tc_rpc(c, "{\"type\":\"ping\"}");
    t_ok(r, "after empty lines");
    cr_assert_eq(t_int(r, "id"), 1, "empty lines got an answer: %s", t_text(r));
    cJSON_Delete(r);
    tc_close(c);
}

Test(adversarial, half_close_still_gets_answers)
{
    tconn *c = tc_open(S.port);
    cr_assert(tc_sendf(c, "{\"type\":\"ping\",\"id\":1}\n{\"type\":\"ping\",\"id\":2}\n"));
    shutdown(c->fd, SHUT_WR);
    for (int id = 1; id <= 2; id++) {
        cJSON *r = tc_reply(c, T_TIMEOUT_MS);
        t_ok(r, "answer after the client's EOF");
        cr_assert_eq(t_int(r, "id"), id);
        cJSON_Delete(r);
    }
    cr_assert(tc_wait_eof(c, T_TIMEOUT_MS), "not closed after answering");
    tc_close(c);
}
