/*
 * A newcomer's report, against the scripted fake (fake.h): the server the
 * session was made on, the play prompt's words, clocks, bots, challenge
 * listings, resign's question, and the other usability fixes.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "fake.h"
#include "play.h"
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
    if (srv.port)
        fake_stop(&srv);
    memset(&srv, 0, sizeof srv);
    drop_config(cfg);
}

TestSuite(usability, .init = setup, .fini = teardown, .timeout = 30);

static int req_id(const cJSON *req)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(req, "id");
    return cJSON_IsNumber(id) ? id->valueint : -1;
}

static bool is(const cJSON *req, const char *op)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(req, "type");
    return cJSON_IsString(t) && strcmp(t->valuestring, op) == 0;
}

static void expect(crun *r, int code)
{
    cr_assert_eq(r->code, code, "exit %d, expected %d\nstdout: %s\nstderr: %s", r->code, code,
                 r->out, r->err);
}

static void save_session(const char *user, const char *server)
{
    session s = {0};
    strcpy(s.username, user);
    strcpy(s.token, "tok");
    snprintf(s.server, sizeof s.server, "%s", server);
    cr_assert_eq(session_save(&s), SESSION_OK);
}

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
    crun_do(&r, "pw\n", "--server", srv.addr, "register", "carol", "--password-stdin", NULL);
    expect(&r, 0);
    crun_free(&r);
    /* No --server, no QIRKAT_SERVER: the session's server, logged in. */
    crun_do(&r, NULL, "challenges", NULL);
    expect(&r, 0);
    cr_assert_str_eq(r.out, "No open challenges\n");
    crun_free(&r);
    cr_assert_eq(fake_count(&srv, "login"), 1);
    cr_assert_eq(fake_count(&srv, "challenges"), 1);
}

Test(usability, another_server_from_the_environment_is_named)
{
    save_session("carol", "127.0.0.1:7431");
    setenv("QIRKAT_SERVER", "127.0.0.1:7420", 1);
    crun r;
    crun_do(&r, NULL, "challenges", NULL);
    expect(&r, 1);
    cr_assert_str_eq(r.err,
                     "unauthenticated: you are logged in on 127.0.0.1:7431 (as carol), not on "
                     "127.0.0.1:7420 (from QIRKAT_SERVER); log in there (qirkat --server "
                     "127.0.0.1:7420 login carol) or use --server 127.0.0.1:7431\n");
    crun_free(&r);
    unsetenv("QIRKAT_SERVER");
}
