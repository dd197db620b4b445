/*
 * The TCP transport's input memory (net/tcp.h, docs/perf.md "Idle
 * connection memory"), in process: a net and a listener on a loop of the
 * test's own, real sockets on 127.0.0.1, and the loop driven by hand (one
 * turn, then the flush and the next batch as srv.c does). Every read goes
 * through the listener's one buffer; a connection keeps only what it was
 * not given yet, and nothing once it was. The loop is run until a
 * condition holds, with a 10 s watchdog so a bug fails instead of hanging
 * (no timing is asserted).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/conn.h"
#include "net/tcp.h"
#include "qk_frame.h"
#include "util/log.h"

#define MAX_LINES 16

/* What one connection was given (conn.data). */
typedef struct rec {
    int nlines;
    char *lines[MAX_LINES];
    size_t lens[MAX_LINES];
} rec;

static uv_loop_t loop;
static net n;
static tcp_listener *lst;
static int port;
static uv_timer_t watchdog;
static bool timed_out;

static int open_cb(conn *c)
{
    c->data = calloc(1, sizeof(rec));
    return c->data ? 0 : -1;
}

static void line_cb(conn *c, char *line, size_t len)
{
    rec *r = c->data;
    cr_assert_lt(r->nlines, MAX_LINES);
    r->lines[r->nlines] = strndup(line, len);
    r->lens[r->nlines++] = len;
}

static void close_cb(conn *c)
{
    (void)c;
}

static void free_cb(conn *c)
{
    rec *r = c->data;
    for (int i = 0; r && i < r->nlines; i++)
        free(r->lines[i]);
    free(r);
    c->data = NULL;
}

static void on_watchdog(uv_timer_t *t)
{
    (void)t;
    timed_out = true;
}

/* The same record in the connection's own block (net_hooks.data_size):
 * it comes zeroed, and only the lines are the hooks' to free. */
static int open_inblock_cb(conn *c)
{
    cr_assert_not_null(c->data);
    static const rec zero;
    cr_assert_eq(memcmp(c->data, &zero, sizeof zero), 0, "the data comes zeroed");
    return 0;
}

static void free_inblock_cb(conn *c)
{
    rec *r = c->data;
    for (int i = 0; i < r->nlines; i++)
        free(r->lines[i]);
}

static void setup_hooks(size_t line_limit, const net_hooks *hooks)
{
    log_set_level(LOG_WARN); /* the closing of the over-long line is expected */
    cr_assert_eq(uv_loop_init(&loop), 0);
    net_init(&n, &loop, hooks, line_limit, 0);
    lst = calloc(1, sizeof *lst);
    cr_assert_not_null(lst);
    cr_assert_eq(tcp_listen(lst, &n, "127.0.0.1", 0, &port), 0);
    cr_assert_eq(uv_timer_init(&loop, &watchdog), 0);
}

static void setup(size_t line_limit)
{
    net_hooks hooks = {open_cb, line_cb, close_cb, free_cb, 0};
    setup_hooks(line_limit, &hooks);
}

static void teardown(void)
{
    net_close_all(&n);
    tcp_stop_listening(lst);
    uv_close((uv_handle_t *)&watchdog, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    net_free(&n);
    cr_assert_eq(uv_loop_close(&loop), 0);
    free(lst);
}

typedef bool (*cond_fn)(void *);

/* Turns of the loop (each: poll once, then the flush; waiting lines get
 * their next batch after a flush, as srv.c does) until cond(arg). */
static void pump_until(cond_fn cond, void *arg, const char *what)
{
    timed_out = false;
    uv_timer_start(&watchdog, on_watchdog, 10000, 0);
    while (!cond(arg) && !timed_out) {
        if (net_has_ready(&n)) {
            net_flush(&n);
            net_run_ready(&n);
            continue;
        }
        uv_run(&loop, UV_RUN_ONCE);
        net_flush(&n);
    }
    uv_timer_stop(&watchdog);
    cr_assert(!timed_out, "waited 10 s for %s", what);
}

static size_t want_conns;
static bool have_conns(void *arg)
{
    (void)arg;
    return n.nconns == want_conns;
}

/* Connect a client and return the server's conn for it. */
static conn *client(int *fd)
{
    *fd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert_geq(*fd, 0);
    int one = 1;
    setsockopt(*fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(connect(*fd, (struct sockaddr *)&a, sizeof a), 0);
    want_conns = n.nconns + 1;
    pump_until(have_conns, NULL, "the accept");
    return n.all; /* the newest is first */
}

/* Send all of s; while the socket's buffers are full the server's loop
 * runs (it is the reader), so a long line cannot block the test. */
static void send_str(int fd, const char *s, size_t len)
{
    while (len > 0) {
        ssize_t w = send(fd, s, len, MSG_DONTWAIT);
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            uv_run(&loop, UV_RUN_NOWAIT);
            net_flush(&n);
            if (net_has_ready(&n))
                net_run_ready(&n);
            continue;
        }
        cr_assert_gt(w, 0);
        s += w;
        len -= (size_t)w;
    }
}

typedef struct want {
    conn *c;
    size_t v;
} want;

static bool has_pending(void *arg)
{
    want *w = arg;
    return tcp_input_pending(w->c) == w->v;
}

static bool has_lines(void *arg)
{
    want *w = arg;
    return ((rec *)w->c->data)->nlines == (int)w->v;
}

static void wait_pending(conn *c, size_t bytes)
{
    want w = {c, bytes};
    pump_until(has_pending, &w, "bytes to arrive");
}

static void wait_lines(conn *c, int lines)
{
    want w = {c, (size_t)lines};
    pump_until(has_lines, &w, "lines");
}

static rec *rec_of(conn *c)
{
    return c->data;
}

/* An incomplete line is held, alone and in just its size, while another
 * connection reads whole lines through the same listener buffer. */
Test(tcp_input, a_partial_line_is_held_while_other_connections_read, .timeout = 30)
{
    setup(0);
    int fa, fb;
    conn *a = client(&fa);
    conn *b = client(&fb);
    cr_assert_eq(tcp_input_heap(a), 0, "accepted: no read buffer");
    send_str(fa, "{\"type\":", 8);
    wait_pending(a, 8);
    cr_assert_eq(tcp_input_heap(a), 9, "the 8 bytes and a NUL's");
    cr_assert_eq(rec_of(a)->nlines, 0);
    for (int i = 0; i < 3; i++) {
        char line[32];
        int len = snprintf(line, sizeof line, "{\"b\":%d}\n", i);
        send_str(fb, line, (size_t)len);
        wait_lines(b, i + 1);
        line[len - 1] = '\0';
        cr_assert_str_eq(rec_of(b)->lines[i], line);
        cr_assert_eq(tcp_input_heap(b), 0);
        cr_assert_eq(tcp_input_pending(b), 0);
        cr_assert_eq(tcp_input_pending(a), 8, "a's partial line is untouched");
        cr_assert_eq(tcp_input_heap(a), 9);
    }
    send_str(fa, "\"ping\"}\n", 8);
    wait_lines(a, 1);
    cr_assert_str_eq(rec_of(a)->lines[0], "{\"type\":\"ping\"}");
    cr_assert_eq(tcp_input_heap(a), 0, "released once the line was taken");
    cr_assert_eq(tcp_input_pending(a), 0);
    close(fa);
    close(fb);
    teardown();
}

/* One line sent in 200 pieces, each read before the next is sent: the
 * connection holds exactly what arrived, in at most twice its size, and
 * nothing after the line. */
Test(tcp_input, a_line_split_across_many_reads, .timeout = 60)
{
    setup(0);
    int fa;
    conn *a = client(&fa);
    enum { PIECES = 200, PIECE = 10 };
    char line[PIECES * PIECE + 1];
    for (size_t i = 0; i < PIECES * PIECE; i++)
        line[i] = (char)('a' + i % 26);
    line[PIECES * PIECE] = '\0';
    for (int p = 0; p < PIECES; p++) {
        send_str(fa, line + p * PIECE, PIECE);
        size_t held = (size_t)(p + 1) * PIECE;
        wait_pending(a, held);
        cr_assert_geq(tcp_input_heap(a), held + 1);
        cr_assert_leq(tcp_input_heap(a), 2 * (held + 1));
    }
    send_str(fa, "\n", 1);
    wait_lines(a, 1);
    cr_assert_eq(rec_of(a)->lens[0], PIECES * PIECE);
    cr_assert_str_eq(rec_of(a)->lines[0], line);
    cr_assert_eq(tcp_input_heap(a), 0);
    cr_assert_eq(tcp_input_pending(a), 0);
    close(fa);
    teardown();
}

/* Whole lines, short or as long as the limit allows (however the kernel
 * cuts them into reads), leave nothing behind. */
Test(tcp_input, the_buffer_is_released_after_a_complete_line, .timeout = 30)
{
    setup(0);
    int fa;
    conn *a = client(&fa);
    static const char hello[] = "{\"type\":\"hello\",\"id\":\"h\",\"version\":1}\n";
    send_str(fa, hello, sizeof hello - 1);
    wait_lines(a, 1);
    cr_assert_eq(rec_of(a)->lens[0], sizeof hello - 2);
    cr_assert_eq(tcp_input_heap(a), 0);
    size_t big = QK_FRAME_DEFAULT_LIMIT;
    char *l = malloc(big + 2);
    cr_assert_not_null(l);
    memset(l, 'q', big);
    l[big] = '\r';
    l[big + 1] = '\n';
    send_str(fa, l, big + 2);
    wait_lines(a, 2);
    cr_assert_eq(rec_of(a)->lens[1], big, "a line of exactly the limit, CR LF");
    cr_assert_eq(tcp_input_heap(a), 0);
    cr_assert_eq(tcp_input_pending(a), 0);
    free(l);
    close(fa);
    teardown();
}

/* An idle connection is its transport's struct and the upper layer's
 * data alone (docs/perf.md "Idle connection memory"): no frame between
 * reads unless bytes wait, no output side once its output is written, the
 * data in the same block; and its peer is named as before the address was
 * kept in binary ("a.b.c.d:port"). */
Test(tcp_input, an_idle_connection_holds_no_frame_and_no_output_side, .timeout = 30)
{
    net_hooks hooks = {open_inblock_cb, line_cb, close_cb, free_inblock_cb, sizeof(rec)};
    setup_hooks(0, &hooks);
    int fa;
    conn *a = client(&fa);
    cr_assert_null(a->out, "accepted: no output side");
    cr_assert_eq(tcp_input_heap(a), 0);
    cr_assert(!tcp_input_holds_frame(a), "accepted: no frame");
    cr_assert_eq((size_t)((char *)a->data - (char *)a), conn_alloc_size(&n, a->tp) - sizeof(rec),
                 "the data is in the connection's own block, behind the transport's struct");
    struct sockaddr_in me;
    socklen_t melen = sizeof me;
    cr_assert_eq(getsockname(fa, (struct sockaddr *)&me, &melen), 0);
    char want_peer[CONN_PEER_MAX], peer[CONN_PEER_MAX];
    snprintf(want_peer, sizeof want_peer, "127.0.0.1:%d", ntohs(me.sin_port));
    cr_assert_str_eq(conn_peer(a, peer), want_peer);

    send_str(fa, "{\"x\":1}\n{\"y\"", 12);
    wait_lines(a, 1);
    wait_pending(a, 4);
    cr_assert_eq(tcp_input_heap(a), 5, "the partial line's 4 bytes and a NUL's");
    cr_assert(tcp_input_holds_frame(a), "bytes wait: a frame of its own");
    cJSON *msg = cJSON_CreateObject();
    cr_assert_not_null(msg);
    cr_assert_eq(conn_send_json(a, msg, CONN_MSG_REPLY, NULL), 0);
    cJSON_Delete(msg);
    cr_assert_not_null(a->out, "output held for the flush");
    cr_assert(conn_output_pending(a));
    net_flush(&n); /* a loopback socket takes the few bytes at once */
    cr_assert(!conn_output_pending(a));
    cr_assert_null(a->out, "released once written");
    char got[16];
    cr_assert_eq(recv(fa, got, sizeof got, 0), 3);
    cr_assert_eq(memcmp(got, "{}\n", 3), 0);

    send_str(fa, "}\n", 2);
    wait_lines(a, 2);
    cr_assert_str_eq(rec_of(a)->lines[1], "{\"y\"}");
    cr_assert_eq(tcp_input_pending(a), 0);
    cr_assert_eq(tcp_input_heap(a), 0);
    cr_assert(!tcp_input_holds_frame(a), "no bytes wait: the frame is given back");
    cr_assert_null(a->out);
    close(fa);
    teardown();
}

/* Past the per-turn budget, the lines not handled are copied out of the
 * shared buffer (exactly their bytes), handled on the next turns in order,
 * and released. */
Test(tcp_input, lines_left_for_the_next_turn_are_kept_then_released, .timeout = 30)
{
    setup(0);
    n.lines_per_turn = 2;
    int fa;
    conn *a = client(&fa);
    send_str(fa, "{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n{\"n\":4}\n{\"n\":5}\n", 40);
    wait_lines(a, 2);
    cr_assert_eq(tcp_input_pending(a), 24, "three lines wait for the next turns");
    cr_assert_eq(tcp_input_heap(a), 25);
    wait_lines(a, 5);
    for (int i = 0; i < 5; i++) {
        char w[32];
        snprintf(w, sizeof w, "{\"n\":%d}", i + 1);
        cr_assert_str_eq(rec_of(a)->lines[i], w);
    }
    cr_assert_eq(tcp_input_pending(a), 0);
    cr_assert_eq(tcp_input_heap(a), 0);
    close(fa);
    teardown();
}

/* An over-long line still gets line_too_long (after the complete line in
 * front of it) and the connection is closed once that is written. */
Test(tcp_input, an_over_long_line_is_answered_line_too_long, .timeout = 30)
{
    setup(64);
    int fa;
    conn *a = client(&fa);
    char buf[200];
    memcpy(buf, "{\"ok\":1}\n", 9);
    memset(buf + 9, 'x', 100);
    send_str(fa, buf, 109);
    wait_lines(a, 1);
    want_conns = 0;
    pump_until(have_conns, NULL, "the close");
    char got[512];
    size_t have = 0;
    ssize_t r;
    while (have < sizeof got - 1 && (r = recv(fa, got + have, sizeof got - 1 - have, 0)) > 0)
        have += (size_t)r;
    got[have] = '\0';
    cr_assert(strstr(got, "\"line_too_long\"") != NULL, "answer: %s", got);
    close(fa);
    teardown();
}
