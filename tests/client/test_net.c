/*
 * The client's connection layer (client-cli/net.h) over a socketpair: the
 * response to a request is the one with its id, events met on the way are
 * queued in order, stray responses and broken lines are skipped, and a
 * silent or closed peer is an error, never a hang.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net.h"

static net_conn c;
static int peer = -1;

static void setup(void)
{
    int sv[2];
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    net_init(&c);
    fcntl(sv[0], F_SETFL, O_NONBLOCK);
    /* What net_connect() would have set up, on our socket. */
    c.fd = sv[0];
    c.events = cJSON_CreateArray();
    peer = sv[1];
}

static void teardown(void)
{
    net_close(&c);
    if (peer >= 0)
        close(peer);
    peer = -1;
}

/* No .timeout: every wait here has its own deadline (and Criterion 2.4 leaks
 * when two suites of one binary set one). */
TestSuite(net, .init = setup, .fini = teardown);

static void peer_says(const char *s)
{
    cr_assert_eq(write(peer, s, strlen(s)), (ssize_t)strlen(s));
}

static cJSON *ping(void)
{
    cJSON *req = cJSON_CreateObject();
    cJSON_AddStringToObject(req, "type", "ping");
    return req;
}

static const char *str(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

Test(net, response_by_id_with_events_queued)
{
    /* Already waiting in the socket when the request goes out: an event,
     * an answer to an abandoned id, garbage, a keepalive, ours, and an
     * event in the same read after ours. */
    peer_says("{\"type\":\"event\",\"event\":\"move\",\"game\":3}\n"
              "{\"type\":\"ok\",\"id\":99}\n"
              "not json\n"
              "\n"
              "{\"type\":\"ok\",\"id\":1,\"x\":5}\n"
              "{\"type\":\"event\",\"event\":\"game_end\",\"game\":3}\n");
    cJSON *req = ping(), *resp;
    cr_assert_eq(net_request(&c, req, 1000, &resp), NET_OK);
    cr_assert_eq(cJSON_GetObjectItem(resp, "x")->valueint, 5);
    cr_assert_eq(cJSON_GetObjectItem(req, "id")->valueint, 1);
    cJSON_Delete(resp);

    /* The request went out as one line with its id. */
    char buf[256] = {0};
    ssize_t n = read(peer, buf, sizeof buf - 1);
    cr_assert_gt(n, 0);
    cr_assert_str_eq(buf, "{\"type\":\"ping\",\"id\":1}\n");

    cJSON *e1 = net_next_event(&c), *e2 = net_next_event(&c);
    cr_assert(e1 && e2);
    cr_assert_str_eq(str(e1, "event"), "move");
    cr_assert_str_eq(str(e2, "event"), "game_end");
    cr_assert_null(net_next_event(&c));
    cJSON_Delete(e1);
    cJSON_Delete(e2);

    /* The next request gets the next id; the id field is replaced. */
    peer_says("{\"type\":\"error\",\"id\":2,\"code\":\"not_found\",\"message\":\"m\"}\n");
    cr_assert_eq(net_request(&c, req, 1000, &resp), NET_OK);
    cr_assert_str_eq(str(resp, "code"), "not_found");
    cJSON_Delete(resp);
    cJSON_Delete(req);
}

Test(net, error_without_id_answers_the_request)
{
    peer_says("{\"type\":\"error\",\"code\":\"bad_json\",\"message\":\"m\"}\n");
    cJSON *req = ping(), *resp;
    cr_assert_eq(net_request(&c, req, 1000, &resp), NET_OK);
    cr_assert_str_eq(str(resp, "code"), "bad_json");
    cJSON_Delete(resp);
    cJSON_Delete(req);
}

Test(net, silent_peer_times_out)
{
    cJSON *req = ping(), *resp = (cJSON *)1;
    cr_assert_eq(net_request(&c, req, 100, &resp), NET_ETIMEDOUT);
    cr_assert_null(resp);
    cJSON_Delete(req);
}

Test(net, closed_peer_is_closed)
{
    peer_says("{\"type\":\"ok\",\"id\":7}\n");
    close(peer);
    peer = -1;
    cJSON *req = ping(), *resp;
    cr_assert_eq(net_request(&c, req, 1000, &resp), NET_ECLOSED);
    cJSON_Delete(req);
}

Test(net, pump_queues_events_before_reporting_the_close)
{
    peer_says("{\"type\":\"event\",\"event\":\"move\",\"ply\":4}\n{\"type\":\"event\",");
    cr_assert_eq(net_pump(&c), NET_OK);
    cJSON *e = net_next_event(&c);
    cr_assert_not_null(e);
    cJSON_Delete(e);
    cr_assert_null(net_next_event(&c)); /* the half line waits */
    peer_says("\"event\":\"game_end\"}\n");
    close(peer);
    peer = -1;
    cr_assert_eq(net_pump(&c), NET_ECLOSED);
    e = net_next_event(&c);
    cr_assert_not_null(e);
    cr_assert_str_eq(str(e, "event"), "game_end");
    cJSON_Delete(e);
}

Test(net, split_hostport)
{
    char h[64], p[8];
    cr_assert_eq(net_split_hostport("127.0.0.1:7420", h, sizeof h, p, sizeof p), 0);
    cr_assert_str_eq(h, "127.0.0.1");
    cr_assert_str_eq(p, "7420");
    cr_assert_eq(net_split_hostport("[::1]:80", h, sizeof h, p, sizeof p), 0);
    cr_assert_str_eq(h, "::1");
    cr_assert_eq(net_split_hostport("example.org:1", h, sizeof h, p, sizeof p), 0);
    const char *bad[] = {"",        "host",   ":80",     "host:", "host:0",     "host:65536",
                         "host:8o", "::1:80", "[::1]80", "[::1",  "host:123456"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_assert_eq(net_split_hostport(bad[i], h, sizeof h, p, sizeof p), -1, "%s", bad[i]);
}

Test(net, connect_refused)
{
    net_conn d;
    net_init(&d);
    cr_assert_eq(net_connect(&d, "127.0.0.1:1", 1000), NET_ECONNECT);
    cr_assert_eq(net_connect(&d, "no-port", 1000), NET_ECONNECT);
    cr_assert(!net_is_open(&d));
    net_close(&d);
}

/* A hostile server must not reach the terminal: control characters in
 * any string of a message (escape sequences, C1 controls) arrive as '?',
 * each string keeping its length; printable UTF-8 is untouched. */
Test(net, control_characters_from_the_server_are_defanged)
{
    peer_says("{\"type\":\"error\",\"id\":1,\"code\":\"bad_request\","
              "\"message\":\"\\u001b[2Jgone\\u0007 \xc2\x9b" "31m caf\xc3\xa9\","
              "\"o\":{\"k\\u001b\":[\"\\u007f\"]}}\n");
    cJSON *req = ping(), *resp;
    cr_assert_eq(net_request(&c, req, 1000, &resp), NET_OK);
    cr_assert_str_eq(str(resp, "message"), "?[2Jgone? ??31m caf\xc3\xa9");
    const cJSON *o = cJSON_GetObjectItem(resp, "o");
    cr_assert_not_null(o->child);
    cr_assert_str_eq(o->child->string, "k?");
    cr_assert_str_eq(o->child->child->valuestring, "?");
    cJSON_Delete(resp);
    cJSON_Delete(req);
}

/* A line feed in a string value stays (export's PDN records are lines);
 * the carriage return and the escape next to it do not. */
Test(net, line_feeds_in_values_are_kept)
{
    peer_says("{\"type\":\"ok\",\"id\":1,\"records\":[\"[Result \\\"*\\\"]\\n\\n*\\r\\u001b\\n\"]}\n");
    cJSON *req = ping(), *resp;
    cr_assert_eq(net_request(&c, req, 1000, &resp), NET_OK);
    const cJSON *recs = cJSON_GetObjectItem(resp, "records");
    cr_assert_str_eq(cJSON_GetArrayItem(recs, 0)->valuestring, "[Result \"*\"]\n\n*??\n");
    cJSON_Delete(resp);
    cJSON_Delete(req);
}
