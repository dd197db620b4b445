/*
 * harness_conn: the raw JSON-lines client of harness.h.
 *
 * Lines are framed by qk_frame (common/) with a large limit; every message
 * read and not yet consumed waits in one queue in arrival order, so a
 * caller waiting for a response by id, for the next response, or for an
 * event of some name never loses the others. Every read has a deadline.
 */
#include "harness.h"
#include "harness_int.h"

#include <criterion/criterion.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "qk_frame.h"

/* ---- raw client ----------------------------------------------------------- */

struct hconn {
    int fd;
    bool eof;
    qk_frame frame;
    cJSON **q; /* messages read but not yet consumed, in arrival order */
    int nq, capq;
    long long next_id;
};

#define HCONN_LINE_LIMIT (8 * 1024 * 1024)

hconn *hconn_open(int port)
{
    hconn *c = calloc(1, sizeof *c);
    cr_assert_not_null(c);
    c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    cr_assert_geq(c->fd, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    /* Small writes leave at once: byte-at-a-time tests really split. */
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    cr_assert_eq(connect(c->fd, (struct sockaddr *)&a, sizeof a), 0, "connect to port %d: %s", port,
                 strerror(errno));
    qk_frame_init(&c->frame, HCONN_LINE_LIMIT);
    c->next_id = 1;
    h_own_conn(c);
    return c;
}

void hconn_close(hconn *c)
{
    if (!c)
        return;
    h_disown_conn(c);
    close(c->fd);
    qk_frame_free(&c->frame);
    for (int i = 0; i < c->nq; i++)
        cJSON_Delete(c->q[i]);
    free(c->q);
    free(c);
}

int hconn_send_raw(hconn *c, const void *data, size_t n)
{
    const char *p = data;
    int64_t deadline = h_now_ms() + H_READ_TIMEOUT_MS;
    while (n > 0) {
        ssize_t w = send(c->fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                struct pollfd pf = {.fd = c->fd, .events = POLLOUT};
                int left = h_left_ms(deadline);
                cr_assert_gt(left, 0, "send blocked for %d ms", H_READ_TIMEOUT_MS);
                poll(&pf, 1, left);
                continue;
            }
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

bool hconn_eof(const hconn *c)
{
    return c->eof;
}

/* Read one more message from the socket (not the queue). */
static cJSON *sock_read(hconn *c, int timeout_ms)
{
    int64_t deadline = h_now_ms() + timeout_ms;
    for (;;) {
        char *line;
        size_t len;
        int r = qk_frame_next(&c->frame, &line, &len);
        cr_assert_geq(r, 0, "server sent a line over %d bytes", HCONN_LINE_LIMIT);
        if (r == 1) {
            if (len == 0)
                continue;
            cJSON *o = cJSON_ParseWithLength(line, len);
            cr_assert(o && cJSON_IsObject(o), "server sent a line that is not a JSON object: %.*s",
                      (int)(len > 500 ? 500 : len), line);
            return o;
        }
        if (c->eof)
            return NULL;
        struct pollfd pf = {.fd = c->fd, .events = POLLIN};
        int left = h_left_ms(deadline);
        if (left == 0)
            return NULL;
        int pr = poll(&pf, 1, left);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr == 0)
            return NULL;
        char buf[65536];
        ssize_t n = recv(c->fd, buf, sizeof buf, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            /* ECONNRESET after the server closed on us counts as EOF. */
            c->eof = true;
            continue;
        }
        cr_assert_eq(qk_frame_push(&c->frame, buf, (size_t)n), 0);
    }
}

static void q_push(hconn *c, cJSON *o)
{
    if (c->nq == c->capq) {
        c->capq = c->capq ? c->capq * 2 : 16;
        c->q = realloc(c->q, (size_t)c->capq * sizeof *c->q);
        cr_assert_not_null(c->q);
    }
    c->q[c->nq++] = o;
}

static cJSON *q_take(hconn *c, int i)
{
    cJSON *o = c->q[i];
    memmove(c->q + i, c->q + i + 1, (size_t)(c->nq - i - 1) * sizeof *c->q);
    c->nq--;
    return o;
}

static bool is_event(const cJSON *o)
{
    const char *t = hj_str(o, "type");
    return t && strcmp(t, "event") == 0;
}

cJSON *hconn_read(hconn *c, int timeout_ms)
{
    if (c->nq > 0)
        return q_take(c, 0);
    return sock_read(c, timeout_ms);
}

bool hconn_wait_eof(hconn *c, int timeout_ms)
{
    int64_t deadline = h_now_ms() + timeout_ms;
    while (!c->eof) {
        int left = h_left_ms(deadline);
        if (left == 0)
            return false;
        cJSON *o = sock_read(c, left);
        if (o)
            q_push(c, o);
    }
    return true;
}

static bool id_matches(const cJSON *o, long long id)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "id");
    return v && cJSON_IsNumber(v) && v->valuedouble == (double)id;
}

static cJSON *await_id(hconn *c, long long id, const char *what)
{
    for (int i = 0; i < c->nq; i++)
        if (!is_event(c->q[i]) && id_matches(c->q[i], id))
            return q_take(c, i);
    int64_t deadline = h_now_ms() + H_READ_TIMEOUT_MS;
    for (;;) {
        int left = h_left_ms(deadline);
        cr_assert_gt(left, 0, "no response within %d ms to %s", H_READ_TIMEOUT_MS, what);
        cJSON *o = sock_read(c, left);
        cr_assert_not_null(
            o, "%s to %s",
            c->eof ? "connection closed instead of a response" : "no response in time", what);
        if (!is_event(o) && id_matches(o, id))
            return o;
        q_push(c, o);
    }
}

cJSON *hconn_rpc(hconn *c, const char *fmt, ...)
{
    char text[16384];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    cr_assert(n > 1 && (size_t)n < sizeof text - 64, "request text too long");
    /* The id goes in textually: re-printing through cJSON would round
     * large numbers (it prints 2^53 as 9.00719925474099e+15). */
    cr_assert_eq(text[0], '{', "test bug: request is not an object: %s", text);
    cJSON *req = cJSON_Parse(text);
    cr_assert_not_null(req, "test bug: request is not JSON: %s", text);
    bool empty = cJSON_GetArraySize(req) == 0;
    cJSON_Delete(req);
    long long id = c->next_id++;
    char *line = malloc((size_t)n + 64);
    cr_assert_not_null(line);
    int len = snprintf(line, (size_t)n + 64, "{\"id\":%lld%s%s\n", id, empty ? "}" : ",",
                       empty ? "" : text + 1);
    int sr = hconn_send_raw(c, line, (size_t)len);
    free(line);
    char what[600];
    snprintf(what, sizeof what, "%.500s", text);
    cr_assert_eq(sr, 0, "connection closed while sending %s", what);
    return await_id(c, id, what);
}

cJSON *hconn_reply(hconn *c, int timeout_ms)
{
    for (int i = 0; i < c->nq; i++)
        if (!is_event(c->q[i]))
            return q_take(c, i);
    int64_t deadline = h_now_ms() + timeout_ms;
    for (;;) {
        int left = h_left_ms(deadline);
        if (left == 0)
            return NULL;
        cJSON *o = sock_read(c, left);
        if (!o)
            return NULL;
        if (!is_event(o))
            return o;
        q_push(c, o);
    }
}

cJSON *hconn_raw_reply(hconn *c, const char *line, int timeout_ms)
{
    size_t len = strlen(line);
    char *buf = malloc(len + 1);
    cr_assert_not_null(buf);
    memcpy(buf, line, len);
    buf[len] = '\n';
    int sr = hconn_send_raw(c, buf, len + 1);
    free(buf);
    if (sr != 0)
        return NULL;
    return hconn_reply(c, timeout_ms);
}

static bool event_is(const cJSON *o, const char *event)
{
    if (!is_event(o))
        return false;
    const char *e = hj_str(o, "event");
    return e && strcmp(e, event) == 0;
}

cJSON *hconn_event(hconn *c, const char *event, bool (*match)(const cJSON *ev, const void *arg),
                   const void *arg, int timeout_ms)
{
    for (int i = 0; i < c->nq; i++)
        if (event_is(c->q[i], event) && (!match || match(c->q[i], arg)))
            return q_take(c, i);
    int64_t deadline = h_now_ms() + timeout_ms;
    for (;;) {
        int left = h_left_ms(deadline);
        if (left == 0)
            return NULL;
        cJSON *o = sock_read(c, left);
        if (!o)
            return NULL;
        if (event_is(o, event) && (!match || match(o, arg)))
            return o;
        q_push(c, o);
    }
}

void hconn_drop_events(hconn *c)
{
    for (int i = 0; i < c->nq;)
        if (is_event(c->q[i]))
            cJSON_Delete(q_take(c, i));
        else
            i++;
}

void hconn_hello(hconn *c)
{
    cJSON *r = hconn_rpc(c, "{\"type\":\"hello\",\"version\":1,\"client\":\"qk-integration\"}");
    hj_assert_ok(r, "hello");
    cJSON_Delete(r);
}

void hconn_register(hconn *c, const char *user, const char *password)
{
    cJSON *r = hconn_rpc(c, "{\"type\":\"register\",\"username\":\"%s\",\"password\":\"%s\"}", user,
                         password);
    hj_assert_ok(r, "register");
    cJSON_Delete(r);
}

void hconn_login(hconn *c, const char *user, const char *password)
{
    cJSON *r = hconn_rpc(c, "{\"type\":\"login\",\"username\":\"%s\",\"password\":\"%s\"}", user,
                         password);
    hj_assert_ok(r, "login");
    cJSON_Delete(r);
}
