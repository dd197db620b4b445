/*
 * test_ws: qirkatd --http, driven over real sockets by a minimal WebSocket
 * client written here (RFC 6455: the opening handshake of section 4.1,
 * masked client frames of section 5.3, fragments of 5.4, control frames of
 * 5.5), next to the TCP clients of helper.h: the same protocol, limits and
 * events over both transports (net/ws.h).
 */
#define _GNU_SOURCE /* memmem, strcasestr */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "helper.h"
#include "net/web_files.h"

/* ---- a minimal WebSocket client ---------------------------------------- */

typedef struct wsc {
    int fd;
    unsigned char *buf; /* bytes read, not yet framed */
    size_t len, cap;
    cJSON *q[256]; /* messages read but not yet taken */
    int nq;
    long long next_id;
    int close_code; /* of the server's close frame; 0 = none yet */
    bool eof;
} wsc;

enum { OP_CONT = 0, OP_TEXT = 1, OP_BIN = 2, OP_CLOSE = 8, OP_PING = 9, OP_PONG = 10 };

static long long ms_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int tcp_connect(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert_geq(fd, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0, "connect: %s", strerror(errno));
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

static bool send_all(int fd, const void *data, size_t n)
{
    const char *p = data;
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

/* Read more bytes into c->buf; false on timeout or EOF. */
static bool fill(wsc *c, int timeout_ms)
{
    struct pollfd pf = {.fd = c->fd, .events = POLLIN};
    if (poll(&pf, 1, timeout_ms) <= 0)
        return false;
    if (c->cap - c->len < 65536) {
        c->cap = c->cap ? c->cap * 2 + 65536 : 131072;
        c->buf = realloc(c->buf, c->cap);
        cr_assert_not_null(c->buf);
    }
    ssize_t n = recv(c->fd, c->buf + c->len, c->cap - c->len, 0);
    if (n <= 0) {
        c->eof = true;
        return false;
    }
    c->len += (size_t)n;
    return true;
}

/* The handshake of RFC 6455 4.1 on path; returns the HTTP status line's code. */
static int ws_handshake(wsc *c, const char *path)
{
    char req[512];
    int n = snprintf(req, sizeof req,
                     "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                     "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                     "Sec-WebSocket-Version: 13\r\n\r\n",
                     path);
    cr_assert(send_all(c->fd, req, (size_t)n));
    long long deadline = ms_now() + T_TIMEOUT_MS;
    for (;;) {
        unsigned char *end = c->len >= 4 ? memmem(c->buf, c->len, "\r\n\r\n", 4) : NULL;
        if (end) {
            int code = 0;
            sscanf((char *)c->buf, "HTTP/1.1 %d", &code);
            /* RFC 6455 1.3: the accept value for the sample nonce. */
            if (code == 101)
                cr_assert(memmem(c->buf, (size_t)(end - c->buf),
                                 "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", 28) != NULL,
                          "wrong Sec-WebSocket-Accept");
            size_t hl = (size_t)(end + 4 - c->buf);
            memmove(c->buf, c->buf + hl, c->len - hl);
            c->len -= hl;
            return code;
        }
        int left = (int)(deadline - ms_now());
        if (left <= 0 || !fill(c, left))
            return c->eof ? -1 : 0;
    }
}

static wsc *ws_open(int port)
{
    wsc *c = calloc(1, sizeof *c);
    cr_assert_not_null(c);
    c->fd = tcp_connect(port);
    c->next_id = 1;
    cr_assert_eq(ws_handshake(c, "/ws"), 101, "no WebSocket upgrade at /ws");
    return c;
}

static void ws_close(wsc *c)
{
    if (!c)
        return;
    close(c->fd);
    for (int i = 0; i < c->nq; i++)
        cJSON_Delete(c->q[i]);
    free(c->buf);
    free(c);
}

/* One client frame (RFC 6455 5.2), masked as 5.3 requires. */
static bool ws_frame(wsc *c, int op, bool fin, const void *data, size_t n)
{
    unsigned char *f = malloc(n + 14);
    cr_assert_not_null(f);
    size_t k = 0;
    f[k++] = (unsigned char)((fin ? 0x80 : 0) | op);
    if (n < 126) {
        f[k++] = (unsigned char)(0x80 | n);
    } else if (n < 65536) {
        f[k++] = 0x80 | 126;
        f[k++] = (unsigned char)(n >> 8);
        f[k++] = (unsigned char)n;
    } else {
        f[k++] = 0x80 | 127;
        for (int i = 7; i >= 0; i--)
            f[k++] = (unsigned char)((uint64_t)n >> (8 * i));
    }
    unsigned char mask[4] = {0x37, 0xfa, 0x21, 0x3d};
    memcpy(f + k, mask, 4);
    k += 4;
    const unsigned char *d = data;
    for (size_t i = 0; i < n; i++)
        f[k + i] = d[i] ^ mask[i % 4];
    bool ok = send_all(c->fd, f, k + n);
    free(f);
    return ok;
}

static bool ws_text(wsc *c, const char *s)
{
    return ws_frame(c, OP_TEXT, true, s, strlen(s));
}

/* The next server frame: its opcode, payload (malloc'd, NUL-terminated)
 * and length. -1 on timeout or EOF. Server frames are never masked. */
static int ws_next_frame(wsc *c, int timeout_ms, char **payload, size_t *plen, bool *fin)
{
    long long deadline = ms_now() + timeout_ms;
    for (;;) {
        if (c->len >= 2) {
            size_t hl = 2;
            uint64_t n = c->buf[1] & 0x7f;
            cr_assert_eq(c->buf[1] & 0x80, 0, "a masked server frame");
            if (n == 126 && c->len >= 4) {
                n = (uint64_t)c->buf[2] << 8 | c->buf[3];
                hl = 4;
            } else if (n == 127 && c->len >= 10) {
                n = 0;
                for (int i = 0; i < 8; i++)
                    n = n << 8 | c->buf[2 + i];
                hl = 10;
            } else if (n >= 126) {
                hl = 0;
            }
            if (hl && c->len >= hl + n) {
                int op = c->buf[0] & 0x0f;
                *fin = (c->buf[0] & 0x80) != 0;
                *payload = malloc(n + 1);
                cr_assert_not_null(*payload);
                memcpy(*payload, c->buf + hl, n);
                (*payload)[n] = '\0';
                *plen = n;
                memmove(c->buf, c->buf + hl + n, c->len - hl - n);
                c->len -= hl + n;
                return op;
            }
        }
        int left = (int)(deadline - ms_now());
        if (left <= 0 || !fill(c, left))
            return -1;
    }
}

/* The next protocol message (a whole text message, parsed): pings are
 * answered, a close frame is recorded (close_code) and ends the reading. */
static cJSON *ws_read(wsc *c, int timeout_ms)
{
    if (c->nq > 0) {
        cJSON *o = c->q[0];
        memmove(c->q, c->q + 1, sizeof c->q[0] * (size_t)--c->nq);
        return o;
    }
    char *acc = NULL;
    size_t alen = 0;
    for (;;) {
        char *p;
        size_t n;
        bool fin;
        int op = ws_next_frame(c, timeout_ms, &p, &n, &fin);
        if (op < 0) {
            free(acc);
            return NULL;
        }
        if (op == OP_PING) {
            ws_frame(c, OP_PONG, true, p, n);
            free(p);
            continue;
        }
        if (op == OP_CLOSE) {
            c->close_code = n >= 2 ? ((unsigned char)p[0] << 8 | (unsigned char)p[1]) : 1005;
            free(p);
            free(acc);
            return NULL;
        }
        cr_assert(op == OP_TEXT || op == OP_CONT, "unexpected opcode %d", op);
        acc = realloc(acc, alen + n + 1);
        memcpy(acc + alen, p, n + 1);
        alen += n;
        free(p);
        if (!fin)
            continue;
        cJSON *o = cJSON_Parse(acc);
        cr_assert_not_null(o, "not JSON: %.200s", acc);
        free(acc);
        return o;
    }
}

static bool is_reply(const cJSON *o)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "type");
    return cJSON_IsString(t) && (!strcmp(t->valuestring, "ok") || !strcmp(t->valuestring, "error"));
}

static cJSON *ws_rpc(wsc *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static cJSON *ws_rpc(wsc *c, const char *fmt, ...)
{
    char body[4096], msg[4200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    long long id = c->next_id++;
    snprintf(msg, sizeof msg, "{\"id\":%lld,%s", id, body + 1);
    cr_assert(ws_text(c, msg));
    long long deadline = ms_now() + T_TIMEOUT_MS;
    for (;;) {
        int left = (int)(deadline - ms_now());
        cr_assert_gt(left, 0, "no answer to %s", msg);
        /* Read from the socket only (queued messages are events). */
        int nq = c->nq;
        c->nq = 0;
        cJSON *o = ws_read(c, left);
        c->nq = nq;
        cr_assert_not_null(o, "no answer to %s (close %d)", msg, c->close_code);
        const cJSON *oid = cJSON_GetObjectItemCaseSensitive(o, "id");
        if (is_reply(o) && cJSON_IsNumber(oid) && (long long)oid->valuedouble == id)
            return o;
        cr_assert_lt(c->nq, 256);
        c->q[c->nq++] = o;
    }
}

static cJSON *ws_event(wsc *c, const char *name, int timeout_ms)
{
    for (int i = 0; i < c->nq; i++) {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(c->q[i], "event");
        if (cJSON_IsString(t) && !strcmp(t->valuestring, name)) {
            cJSON *o = c->q[i];
            memmove(c->q + i, c->q + i + 1, sizeof c->q[0] * (size_t)(c->nq - i - 1));
            c->nq--;
            return o;
        }
    }
    long long deadline = ms_now() + timeout_ms;
    for (;;) {
        int left = (int)(deadline - ms_now());
        if (left <= 0)
            return NULL;
        int nq = c->nq;
        c->nq = 0;
        cJSON *o = ws_read(c, left);
        c->nq = nq;
        if (!o)
            return NULL;
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "event");
        if (cJSON_IsString(t) && !strcmp(t->valuestring, name))
            return o;
        cr_assert_lt(c->nq, 256);
        c->q[c->nq++] = o;
    }
}

/* The server's close frame, then EOF. */
static void expect_close(wsc *c, int code)
{
    cJSON *o;
    while ((o = ws_read(c, T_TIMEOUT_MS)))
        cJSON_Delete(o);
    cr_assert_eq(c->close_code, code, "close code %d, wanted %d", c->close_code, code);
    char *p;
    size_t n;
    bool fin;
    cr_assert_lt(ws_next_frame(c, T_TIMEOUT_MS, &p, &n, &fin), 0, "a frame after the close");
    cr_assert(c->eof, "the server did not close the socket");
}

static void ws_register(wsc *c, const char *user)
{
    cJSON *r =
        ws_rpc(c, "{\"type\":\"register\",\"username\":\"%s\",\"password\":\"" T_PW "\"}", user);
    t_ok(r, "register over WebSocket");
    cJSON_Delete(r);
}

/* ---- tests -------------------------------------------------------------- */

static tsrv S;

static void setup(void)
{
    tsrv_start_http(&S, "QK_RATE_LIMIT=off");
}

static void teardown(void)
{
    tsrv_cleanup(&S);
}

TestSuite(ws, .init = setup, .fini = teardown, .timeout = 60);

Test(ws, a_message_round_trip)
{
    wsc *c = ws_open(S.http_port);
    cJSON *r = ws_rpc(c, "{\"type\":\"hello\",\"protocol\":1}");
    t_ok(r, "hello");
    cr_assert_eq(t_int(t_obj(r, "limits"), "line_bytes"), 65536);
    cJSON_Delete(r);
    r = ws_rpc(c, "{\"type\":\"ping\"}");
    t_ok(r, "ping");
    cJSON_Delete(r);
    /* The same errors as over TCP. */
    cr_assert(ws_text(c, "{\"type\":"));
    r = ws_read(c, T_TIMEOUT_MS);
    t_err(r, "bad_json", "half an object");
    cJSON_Delete(r);
    r = ws_rpc(c, "{\"type\":\"no_such_op\"}");
    t_err(r, "unknown_op", "unknown op");
    cJSON_Delete(r);
    ws_close(c);
    tsrv_stop(&S);
}

Test(ws, fragmented_messages_are_reassembled)
{
    wsc *c = ws_open(S.http_port);
    const char *msg = "{\"type\":\"ping\",\"id\":7}";
    /* Three fragments with a ping between them (RFC 6455 5.4, 5.5). */
    cr_assert(ws_frame(c, OP_TEXT, false, msg, 5));
    cr_assert(ws_frame(c, OP_PING, true, "hi", 2));
    cr_assert(ws_frame(c, OP_CONT, false, msg + 5, 6));
    cr_assert(ws_frame(c, OP_CONT, true, msg + 11, strlen(msg) - 11));
    char *p;
    size_t n;
    bool fin;
    int op = ws_next_frame(c, T_TIMEOUT_MS, &p, &n, &fin);
    cr_assert_eq(op, OP_PONG);
    cr_assert_str_eq(p, "hi");
    free(p);
    cJSON *r = ws_read(c, T_TIMEOUT_MS);
    t_ok(r, "fragmented ping");
    cr_assert_eq(t_int(r, "id"), 7);
    cJSON_Delete(r);
    /* A message of exactly the limit, in fragments of 1000 bytes. */
    size_t lim = 65536;
    char *big = malloc(lim + 1);
    int h = snprintf(big, lim + 1, "{\"type\":\"ping\",\"id\":8,\"pad\":\"");
    memset(big + h, 'a', lim - (size_t)h - 2);
    memcpy(big + lim - 2, "\"}", 3);
    for (size_t off = 0; off < lim; off += 1000) {
        size_t k = lim - off < 1000 ? lim - off : 1000;
        cr_assert(ws_frame(c, off ? OP_CONT : OP_TEXT, off + k == lim, big + off, k));
    }
    free(big);
    r = ws_read(c, T_TIMEOUT_MS);
    t_ok(r, "a message of 65536 bytes");
    cJSON_Delete(r);
    ws_close(c);
    tsrv_stop(&S);
}

Test(ws, a_message_over_64_KiB_is_line_too_long_then_closed)
{
    wsc *c = ws_open(S.http_port);
    size_t n = 65537;
    char *big = malloc(n + 1);
    int h = snprintf(big, n + 1, "{\"type\":\"ping\",\"id\":9,\"pad\":\"");
    memset(big + h, 'a', n - (size_t)h - 2);
    memcpy(big + n - 2, "\"}", 3);
    cr_assert(ws_frame(c, OP_TEXT, true, big, n));
    free(big);
    cJSON *r = ws_read(c, T_TIMEOUT_MS);
    t_err(r, "line_too_long", "65537 bytes");
    cJSON_Delete(r);
    expect_close(c, 1009);
    ws_close(c);
    /* The same over fragments. */
    c = ws_open(S.http_port);
    char chunk[40000];
    memset(chunk, ' ', sizeof chunk);
    cr_assert(ws_frame(c, OP_TEXT, false, "{\"type\":\"ping\"", 14));
    cr_assert(ws_frame(c, OP_CONT, false, chunk, sizeof chunk));
    ws_frame(c, OP_CONT, true, chunk, sizeof chunk);
    r = ws_read(c, T_TIMEOUT_MS);
    t_err(r, "line_too_long", "fragments over 64 KiB");
    cJSON_Delete(r);
    expect_close(c, 1009);
    ws_close(c);
    tsrv_stop(&S);
}

Test(ws, a_binary_frame_is_refused)
{
    wsc *c = ws_open(S.http_port);
    cJSON *r = ws_rpc(c, "{\"type\":\"ping\"}");
    t_ok(r, "ping first");
    cJSON_Delete(r);
    const char *msg = "{\"type\":\"ping\",\"id\":3}";
    cr_assert(ws_frame(c, OP_BIN, true, msg, strlen(msg)));
    r = ws_read(c, T_TIMEOUT_MS);
    t_err(r, "bad_request", "binary frame");
    cr_assert(strstr(t_str(r, "message"), "binary") != NULL);
    cJSON_Delete(r);
    expect_close(c, 1003);
    ws_close(c);
    tsrv_stop(&S);
}

Test(ws, ping_gets_pong_and_close_gets_close)
{
    wsc *c = ws_open(S.http_port);
    cr_assert(ws_frame(c, OP_PING, true, "abc", 3));
    char *p;
    size_t n;
    bool fin;
    cr_assert_eq(ws_next_frame(c, T_TIMEOUT_MS, &p, &n, &fin), OP_PONG);
    cr_assert_eq(n, 3);
    cr_assert_str_eq(p, "abc");
    free(p);
    unsigned char bye[2] = {0x03, 0xe8}; /* 1000 */
    cr_assert(ws_frame(c, OP_CLOSE, true, bye, 2));
    cr_assert_eq(ws_next_frame(c, T_TIMEOUT_MS, &p, &n, &fin), OP_CLOSE, "no close answer");
    free(p);
    ws_close(c);
    tsrv_stop(&S);
}

Test(ws, a_websocket_and_a_tcp_client_play_each_other)
{
    wsc *a = ws_open(S.http_port);
    tconn *b = tc_open(S.port);
    ws_register(a, "alice");
    t_register(b, "bob");
    cJSON *r = ws_rpc(a, "{\"type\":\"challenge\",\"to\":\"bob\",\"variant\":\"alquerque\","
                         "\"color\":\"white\"}");
    t_ok(r, "challenge from the WebSocket");
    long long cid = t_int(t_obj(r, "challenge"), "id");
    cJSON_Delete(r);
    cJSON *ev = tc_event(b, "challenge", T_TIMEOUT_MS);
    cr_assert_not_null(ev, "bob (TCP) got no challenge event");
    cJSON_Delete(ev);
    r = tc_rpc(b, "{\"type\":\"accept\",\"challenge\":%lld}", cid);
    t_ok(r, "accept over TCP");
    long long gid = t_int(t_obj(r, "game"), "id");
    cJSON_Delete(r);
    ev = ws_event(a, "game_start", T_TIMEOUT_MS);
    cr_assert_not_null(ev, "alice (WebSocket) got no game_start");
    cJSON_Delete(ev);
    for (int ply = 0; ply < 8; ply++) {
        bool ws_moves = ply % 2 == 0; /* alice is white */
        r = tc_rpc(b, "{\"type\":\"game\",\"game\":%lld}", gid);
        const cJSON *lm = t_obj(t_obj(r, "game"), "legal_moves");
        cr_assert_gt(cJSON_GetArraySize(lm), 0);
        char mv[128];
        snprintf(mv, sizeof mv, "%s", cJSON_GetArrayItem(lm, 0)->valuestring);
        cJSON_Delete(r);
        if (ws_moves)
            r = ws_rpc(a, "{\"type\":\"move\",\"game\":%lld,\"ply\":%d,\"move\":\"%s\"}", gid, ply,
                       mv);
        else
            r = tc_rpc(b, "{\"type\":\"move\",\"game\":%lld,\"ply\":%d,\"move\":\"%s\"}", gid, ply,
                       mv);
        t_ok(r, mv);
        char pos[256];
        snprintf(pos, sizeof pos, "%s", t_str(t_obj(r, "game"), "position"));
        cJSON_Delete(r);
        /* Both see the same move event, whichever transport moved. */
        cJSON *e1 = ws_event(a, "move", T_TIMEOUT_MS);
        cJSON *e2 = tc_event(b, "move", T_TIMEOUT_MS);
        cr_assert_not_null(e1, "no move event over WebSocket at ply %d", ply);
        cr_assert_not_null(e2, "no move event over TCP at ply %d", ply);
        char *s1 = cJSON_PrintUnformatted(e1), *s2 = cJSON_PrintUnformatted(e2);
        cr_assert_str_eq(s1, s2, "the two transports saw different events");
        cr_assert_str_eq(t_str(e1, "move"), mv);
        cr_assert_str_eq(t_str(e1, "position"), pos);
        cr_assert_eq(t_int(e1, "ply"), ply);
        free(s1);
        free(s2);
        cJSON_Delete(e1);
        cJSON_Delete(e2);
    }
    /* Both connections of the same address count as one host's. */
    ws_close(a);
    tc_close(b);
    tsrv_stop(&S);
}

/* A WebSocket client that does not read the events other users' actions
 * send it reaches the output cap and is cut, as over TCP
 * (test_limits.c a_connection_that_does_not_read_its_events_is_disconnected),
 * while the same user's reading connection is served. */
Test(ws, a_client_that_stops_reading_is_disconnected, .timeout = 120)
{
    tsrv_stop(&S);
    tsrv_cleanup(&S);
    tsrv_start_http(&S, "QK_RATE_LIMIT=off QK_CHALLENGE_RATE=off QK_OUT_LIMIT=65536");
    wsc *deaf = calloc(1, sizeof *deaf);
    deaf->fd = socket(AF_INET, SOCK_STREAM, 0);
    int small = 4096;
    setsockopt(deaf->fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)S.http_port)};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(connect(deaf->fd, (struct sockaddr *)&addr, sizeof addr), 0);
    deaf->next_id = 1;
    cr_assert_eq(ws_handshake(deaf, "/ws"), 101);
    tconn *mouth = tc_open(S.port), *w = tc_open(S.port);
    t_register(w, "wanda");
    ws_register(deaf, "dave");
    cJSON *r =
        tc_rpc(mouth, "{\"type\":\"login\",\"username\":\"dave\",\"password\":\"" T_PW "\"}");
    t_ok(r, "dave's TCP connection");
    cJSON_Delete(r);
    bool closed = t_flood_until_cut(&S, mouth, 500);
    cr_assert(closed, "the WebSocket that does not read was never cut");
    r = tc_rpc(mouth, "{\"type\":\"ping\"}");
    t_ok(r, "the reading connection of the same user is still served");
    cJSON_Delete(r);
    /* What the deaf client finds when it reads at last: the events that
     * were in flight, maybe a close frame (when nothing more was waiting
     * in the transport at the cut), then the end of the socket. */
    cJSON *o;
    int got = 0;
    while ((o = ws_read(deaf, 7000))) {
        got++;
        cJSON_Delete(o);
    }
    if (deaf->close_code) {
        char *p;
        size_t n;
        bool fin;
        cr_assert_lt(ws_next_frame(deaf, T_TIMEOUT_MS, &p, &n, &fin), 0);
    }
    cr_assert(deaf->eof, "the socket was not closed (close frame %d, %d messages)",
              deaf->close_code, got);
    cr_assert_gt(got, 0);
    ws_close(deaf);
    tc_close(mouth);
    tc_close(w);
    tsrv_stop(&S);
}

Test(ws, the_graceful_stop_ends_a_websocket_with_a_close_frame)
{
    wsc *c = ws_open(S.http_port);
    ws_register(c, "sam");
    kill(S.pid, SIGTERM);
    expect_close(c, 1001);
    ws_close(c);
    /* The server exits 0 by itself (a second SIGTERM could come after its
     * handlers are closed). */
    int st = -1;
    for (int i = 0; i < 2500 && waitpid(S.pid, &st, WNOHANG) == 0; i++)
        usleep(2000);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "qirkatd status 0x%x; see %s", st, S.log);
    S.pid = 0;
}

Test(ws, the_upgrade_is_at_ws_only)
{
    wsc c = {.fd = tcp_connect(S.http_port)};
    cr_assert_neq(ws_handshake(&c, "/elsewhere"), 101);
    close(c.fd);
    free(c.buf);
    tsrv_stop(&S);
}

/* A GET over a raw socket: the status, the Content-Type and the body. */
static int http_get(int port, const char *path, char *ctype, size_t csize, char **body,
                    size_t *blen)
{
    wsc c = {.fd = tcp_connect(port)};
    char req[256];
    int n = snprintf(req, sizeof req,
                     "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", path);
    cr_assert(send_all(c.fd, req, (size_t)n));
    while (fill(&c, T_TIMEOUT_MS))
        ;
    cr_assert_gt(c.len, 0);
    c.buf = realloc(c.buf, c.len + 1);
    c.buf[c.len] = '\0';
    int code = 0;
    sscanf((char *)c.buf, "HTTP/1.1 %d", &code);
    ctype[0] = '\0';
    char *ct = strcasestr((char *)c.buf, "\r\ncontent-type: ");
    if (ct)
        sscanf(ct + 16, "%[^\r]", ctype);
    (void)csize;
    char *end = strstr((char *)c.buf, "\r\n\r\n");
    cr_assert_not_null(end);
    *blen = c.len - (size_t)(end + 4 - (char *)c.buf);
    *body = malloc(*blen + 1);
    memcpy(*body, end + 4, *blen + 1);
    close(c.fd);
    free(c.buf);
    return code;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    cr_assert_eq(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return b;
}

Test(ws, the_page_is_served_with_its_types)
{
    static const struct {
        const char *path, *file, *type;
    } want[] = {
        {"/", "web/index.html", "text/html; charset=utf-8"},
        {"/index.html", "web/index.html", "text/html; charset=utf-8"},
        {"/app.js", "web/app.js", "text/javascript; charset=utf-8"},
        {"/style.css", "web/style.css", "text/css; charset=utf-8"},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        char ct[128], *body;
        size_t blen, flen;
        cr_assert_eq(http_get(S.http_port, want[i].path, ct, sizeof ct, &body, &blen), 200,
                     "GET %s", want[i].path);
        cr_assert_str_eq(ct, want[i].type, "Content-Type of %s", want[i].path);
        char *file = read_file(want[i].file, &flen);
        cr_assert(blen == flen && memcmp(body, file, flen) == 0, "body of %s", want[i].path);
        free(body);
        free(file);
    }
    char ct[128], *body;
    size_t blen;
    cr_assert_eq(http_get(S.http_port, "/nothing.js", ct, sizeof ct, &body, &blen), 404);
    free(body);
    cr_assert_eq(http_get(S.http_port, "/../Makefile", ct, sizeof ct, &body, &blen), 404);
    free(body);
    tsrv_stop(&S);
}

/* server/net/web_files.c is web/ byte for byte, file for file (regenerate
 * it with sh server/net/web-files-gen.sh). */
Test(ws, web_files_match_web_dir)
{
    tsrv_stop(&S);
    size_t count;
    const web_file *files = web_files(&count);
    DIR *d = opendir("web");
    cr_assert_not_null(d, "run the tests from the project root");
    size_t seen = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[512], url[300];
        snprintf(path, sizeof path, "web/%s", e->d_name);
        snprintf(url, sizeof url, "/%s", e->d_name);
        const web_file *f = web_file_find(url);
        cr_assert_not_null(f,
                           "%s is not in server/net/web_files.c: run sh "
                           "server/net/web-files-gen.sh",
                           path);
        size_t n;
        char *b = read_file(path, &n);
        cr_assert(n == f->len && memcmp(b, f->data, n) == 0,
                  "server/net/web_files.c differs from %s: run sh server/net/web-files-gen.sh",
                  path);
        free(b);
        seen++;
    }
    closedir(d);
    for (size_t i = 0; i < count; i++)
        cr_assert(files[i].path[0] == '/' && files[i].len > 0, "entry %zu", i);
    cr_assert_eq(seen, count, "server/net/web_files.c has files web/ no longer has");
}

/* ---- framing limits and deadlines (issue 21) ----------------------------- */

/* A frame header alone (RFC 6455 5.2): op, FIN, the declared length in its
 * minimal encoding, a mask key when masked; no payload. */
static void ws_header(wsc *c, int op, bool fin, uint64_t declared, bool masked)
{
    unsigned char h[14];
    size_t k = 0;
    h[k++] = (unsigned char)((fin ? 0x80 : 0) | op);
    unsigned char m = masked ? 0x80 : 0;
    if (declared < 126) {
        h[k++] = (unsigned char)(m | declared);
    } else if (declared < 65536) {
        h[k++] = m | 126;
        h[k++] = (unsigned char)(declared >> 8);
        h[k++] = (unsigned char)declared;
    } else {
        h[k++] = m | 127;
        for (int i = 7; i >= 0; i--)
            h[k++] = (unsigned char)(declared >> (8 * i));
    }
    if (masked) {
        memcpy(h + k, "\x37\xfa\x21\x3d", 4);
        k += 4;
    }
    cr_assert(send_all(c->fd, h, k));
}

/* n spaces of a frame's payload, masked with ws_header's key. */
static void ws_spaces(wsc *c, size_t n)
{
    static const unsigned char mask[4] = {0x37, 0xfa, 0x21, 0x3d};
    unsigned char *b = malloc(n);
    cr_assert_not_null(b);
    for (size_t i = 0; i < n; i++)
        b[i] = ' ' ^ mask[i % 4];
    cr_assert(send_all(c->fd, b, n));
    free(b);
}

/* line_too_long, then the close frame 1009 and EOF. */
static void expect_too_long(wsc *c, const char *what)
{
    cJSON *r = ws_read(c, T_TIMEOUT_MS);
    cr_assert_not_null(r, "%s: no answer (close %d)", what, c->close_code);
    t_err(r, "line_too_long", what);
    cJSON_Delete(r);
    expect_close(c, 1009);
}

Test(ws, an_unmasked_frame_is_a_protocol_error)
{
    /* RFC 6455 5.1: a server must close on an unmasked client frame. */
    wsc *c = ws_open(S.http_port);
    const unsigned char frame[] = {0x81, 0x0f, '{', '"', 't', 'y', 'p', 'e', '"', ':',
                                   '"', 'p', 'i', 'n', 'g', '"', '}'};
    cr_assert(send_all(c->fd, frame, sizeof frame));
    expect_close(c, 1002);
    ws_close(c);
    /* The header alone, nothing behind it: refused at once as well. */
    c = ws_open(S.http_port);
    ws_header(c, OP_TEXT, true, 15, false);
    expect_close(c, 1002);
    ws_close(c);
    tsrv_stop(&S);
}

Test(ws, a_text_message_that_is_not_utf8_is_closed_with_1007)
{
    /* RFC 6455 8.1 (over TCP the same bytes get bad_json). */
    wsc *c = ws_open(S.http_port);
    cr_assert(ws_text(c, "{\"type\":\"ping\",\"x\":\"\xff\xfe\"}"));
    expect_close(c, 1007);
    ws_close(c);
    tsrv_stop(&S);
}

/* A frame deadline far beyond the read bound: an answer within the bound
 * comes from the header, not from the deadline. */
static void restart_slow_deadline(void)
{
    tsrv_stop(&S);
    tsrv_cleanup(&S);
    tsrv_start_http(&S, "QK_RATE_LIMIT=off QK_WS_FRAME_MS=600000");
}

Test(ws, a_header_declaring_2_to_the_62_bytes_is_refused_at_once)
{
    restart_slow_deadline();
    wsc *c = ws_open(S.http_port);
    ws_header(c, OP_TEXT, true, 1ULL << 62, true);
    expect_too_long(c, "a header of 2^62 bytes with nothing behind it");
    ws_close(c);
    tsrv_stop(&S);
}

Test(ws, a_header_declaring_70000_bytes_is_refused_at_once)
{
    restart_slow_deadline();
    wsc *c = ws_open(S.http_port);
    ws_header(c, OP_TEXT, true, 70000, true);
    expect_too_long(c, "a header of 70,000 bytes, nothing behind it");
    ws_close(c);
    /* With the start of its payload behind it, in the same write. */
    c = ws_open(S.http_port);
    ws_header(c, OP_TEXT, true, 70000, true);
    ws_spaces(c, 100);
    expect_too_long(c, "a header of 70,000 bytes and 100 of them");
    ws_close(c);
    /* The messages before it are answered first. */
    c = ws_open(S.http_port);
    cr_assert(ws_text(c, "{\"type\":\"ping\",\"id\":1}"));
    ws_header(c, OP_TEXT, true, 70000, true);
    cJSON *r = ws_read(c, T_TIMEOUT_MS);
    t_ok(r, "the ping before it");
    cr_assert_eq(t_int(r, "id"), 1);
    cJSON_Delete(r);
    expect_too_long(c, "after a ping");
    ws_close(c);
    tsrv_stop(&S);
}

Test(ws, fragments_are_refused_when_the_header_crossing_the_limit_arrives)
{
    restart_slow_deadline();
    wsc *c = ws_open(S.http_port);
    char chunk[40000];
    memset(chunk, ' ', sizeof chunk);
    cr_assert(ws_frame(c, OP_TEXT, false, "{\"type\":\"ping\"", 14));
    cr_assert(ws_frame(c, OP_CONT, false, chunk, sizeof chunk));
    /* 14 + 40,000 so far; a ping between fragments does not count. */
    cr_assert(ws_frame(c, OP_PING, true, "p", 1));
    char *p;
    size_t n;
    bool fin;
    cr_assert_eq(ws_next_frame(c, T_TIMEOUT_MS, &p, &n, &fin), OP_PONG);
    free(p);
    /* 25,522 more is exactly 65,536: still accepted (no answer yet). */
    ws_header(c, OP_CONT, false, 25522, true);
    cr_assert_lt(ws_next_frame(c, 300, &p, &n, &fin), 0, "refused at the limit itself");
    cr_assert(!c->eof);
    ws_close(c);
    /* One byte more than the limit: refused at that header. */
    c = ws_open(S.http_port);
    cr_assert(ws_frame(c, OP_TEXT, false, "{\"type\":\"ping\"", 14));
    cr_assert(ws_frame(c, OP_CONT, false, chunk, sizeof chunk));
    ws_header(c, OP_CONT, true, 25523, true);
    expect_too_long(c, "a fragment's header taking the message to 65,537 bytes");
    ws_close(c);
    tsrv_stop(&S);
}

Test(ws, a_frame_that_never_completes_is_closed_after_the_deadline)
{
    tsrv_stop(&S);
    tsrv_cleanup(&S);
    tsrv_start_http(&S, "QK_RATE_LIMIT=off QK_WS_FRAME_MS=300");
    wsc *idle = ws_open(S.http_port);
    wsc *c = ws_open(S.http_port);
    ws_header(c, OP_TEXT, true, 100, true);
    ws_spaces(c, 10);
    expect_close(c, 1008);
    ws_close(c);
    /* A message in fragments that stops between two of them. */
    c = ws_open(S.http_port);
    cr_assert(ws_frame(c, OP_TEXT, false, "{\"type\":", 8));
    expect_close(c, 1008);
    ws_close(c);
    /* A connection with no frame under way is not concerned. */
    cJSON *r = ws_rpc(idle, "{\"type\":\"ping\"}");
    t_ok(r, "the idle connection");
    cJSON_Delete(r);
    ws_close(idle);
    tsrv_stop(&S);
}

/* Read an HTTP answer until EOF (at most T_TIMEOUT_MS): its status, and
 * whether the server closed the connection. */
static int http_status_then_eof(wsc *c, bool *eof)
{
    while (fill(c, T_TIMEOUT_MS))
        ;
    *eof = c->eof;
    int code = 0;
    if (c->len > 0) {
        c->buf = realloc(c->buf, c->len + 1);
        c->buf[c->len] = '\0';
        sscanf((char *)c->buf, "HTTP/1.1 %d", &code);
    }
    return code;
}

Test(ws, a_slow_http_request_head_is_cut)
{
    tsrv_stop(&S);
    tsrv_cleanup(&S);
    tsrv_start_http(&S, "QK_RATE_LIMIT=off QK_HTTP_HEAD_MS=300");
    wsc c = {.fd = tcp_connect(S.http_port)};
    const char *part = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"; /* no empty line */
    cr_assert(send_all(c.fd, part, strlen(part)));
    bool eof;
    cr_assert_eq(http_status_then_eof(&c, &eof), 408);
    cr_assert(eof, "the connection stays open");
    close(c.fd);
    free(c.buf);
    /* A WebSocket handshake that never ends. */
    wsc d = {.fd = tcp_connect(S.http_port)};
    part = "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n";
    cr_assert(send_all(d.fd, part, strlen(part)));
    cr_assert_eq(http_status_then_eof(&d, &eof), 408);
    cr_assert(eof);
    close(d.fd);
    free(d.buf);
    /* An idle keep-alive connection is closed quietly. */
    wsc e = {.fd = tcp_connect(S.http_port)};
    cr_assert_eq(http_status_then_eof(&e, &eof), 0);
    cr_assert(eof);
    close(e.fd);
    free(e.buf);
    tsrv_stop(&S);
}

/* Send raw bytes, read the answer until EOF or T_TIMEOUT_MS. */
static int http_raw(const char *req, size_t n, wsc *c)
{
    c->fd = tcp_connect(S.http_port);
    cr_assert(send_all(c->fd, req, n));
    bool eof;
    return http_status_then_eof(c, &eof);
}

Test(ws, http_bounds_and_methods)
{
    wsc c = {0};
    /* A head over 16 KiB. */
    size_t big = 20000;
    char *req = malloc(big + 64);
    int k = snprintf(req, big + 64, "GET / HTTP/1.1\r\nHost: a\r\nX-Pad: ");
    memset(req + k, 'a', big);
    memcpy(req + k + big, "\r\n\r\n", 4);
    cr_assert_eq(http_raw(req, (size_t)k + big + 4, &c), 431);
    close(c.fd);
    free(c.buf);
    free(req);
    c = (wsc){0};
    const char *post = "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc";
    cr_assert_eq(http_raw(post, strlen(post), &c), 413);
    close(c.fd);
    free(c.buf);
    c = (wsc){0};
    const char *del = "DELETE /index.html HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n";
    cr_assert_eq(http_raw(del, strlen(del), &c), 405);
    cr_assert(strcasestr((char *)c.buf, "\r\nAllow: GET, HEAD\r\n") != NULL);
    close(c.fd);
    free(c.buf);
    c = (wsc){0};
    const char *bad = "HELLO THERE\r\n\r\n";
    cr_assert_eq(http_raw(bad, strlen(bad), &c), 400);
    close(c.fd);
    free(c.buf);
    c = (wsc){0};
    const char *plain = "GET /ws HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n";
    cr_assert_eq(http_raw(plain, strlen(plain), &c), 426);
    close(c.fd);
    free(c.buf);
    c = (wsc){0};
    const char *v8 = "GET /ws HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 8\r\n\r\n";
    cr_assert_eq(http_raw(v8, strlen(v8), &c), 426);
    cr_assert(strcasestr((char *)c.buf, "\r\nSec-WebSocket-Version: 13\r\n") != NULL);
    close(c.fd);
    free(c.buf);
    tsrv_stop(&S);
}

Test(ws, http_keep_alive_and_pipelined_requests_in_order)
{
    wsc c = {.fd = tcp_connect(S.http_port)};
    const char *two = "GET /style.css HTTP/1.1\r\nHost: a\r\n\r\n"
                      "HEAD /index.html HTTP/1.1\r\nHost: a\r\n\r\n"
                      "GET /nothing HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n";
    cr_assert(send_all(c.fd, two, strlen(two)));
    bool eof;
    cr_assert_eq(http_status_then_eof(&c, &eof), 200);
    cr_assert(eof, "not closed after Connection: close");
    size_t css_len;
    char *css = read_file("web/style.css", &css_len);
    char *body = strstr((char *)c.buf, "\r\n\r\n");
    cr_assert_not_null(body);
    body += 4;
    cr_assert(memcmp(body, css, css_len) == 0, "the first body");
    char *second = body + css_len;
    cr_assert(strncmp(second, "HTTP/1.1 200 ", 13) == 0, "the HEAD answer: %.40s", second);
    cr_assert(strcasestr(second, "\r\nContent-Type: text/html; charset=utf-8\r\n") != NULL);
    char *third = strstr(second, "\r\n\r\n");
    cr_assert_not_null(third);
    third += 4; /* a HEAD answer has no body */
    cr_assert(strncmp(third, "HTTP/1.1 404 ", 13) == 0, "the third answer: %.40s", third);
    free(css);
    close(c.fd);
    free(c.buf);
    tsrv_stop(&S);
}
