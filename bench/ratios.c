/*
 * bench-ratios: qirkatd against minimal servers, measured in the same run
 * (issue 16). The machine is shared and noisy, so every figure is a ratio
 * of two measurements taken one after the other, never an absolute time.
 * Prints one line per figure:
 *
 *   durability_kill9 SERVER N acknowledged, N stored
 *                               both servers killed -9 under load: every
 *                               acknowledged move must be in the file
 *   ratio durable_moves_50 X (A-B, R rounds of S s)
 *                               qirkatd moves/s / baseline moves/s, 50 games
 *   ratio move_rtt_50 X (A-B)   qirkatd move round trip median / baseline's
 *   ratio durable_moves_500 X (A-B, ...)   the same with 500 games in flight
 *   ratio ping_p99 X (A-B, ...) qirkatd `ping` p99 / raw libuv echo p99
 *   ratio idle_conn_bytes N (minimal libuv server M: ratio R)
 *                               VmRSS growth / connections, 10,000 after
 *                               `hello`, qirkatd and a minimal server
 *   idle_ws_conn_bytes N        the same for qirkatd's WebSocket (--http)
 *
 * Every X is the median of the rounds' ratios (round k of qirkatd over
 * round k of the other, the rounds alternating ABBA), A-B their range.
 * The timing window of a round starts after every game of it is set up
 * (qirkatd: registration, challenge, accept; the baseline pairs
 * connections as they arrive), and a game that ends in the window is
 * restarted through the server in both (challenge and accept: the
 * baseline stores a games row in its group commit, as qirkatd does).
 * BENCH_ONLY=count: instructions and syscalls per move (cost_count, the
 * regression guard of `make cost-guard`).
 *
 * and, where PostgreSQL is installed (issue 22; "PostgreSQL: the cluster,
 * fresh databases, the figures" below says how):
 *
 *   ratio durable_moves_pg_50 X (A-B, N rounds)
 *                               qirkatd on PostgreSQL moves/s / a minimal
 *                               libpq group-commit server's, 50 games: the
 *                               median of the rounds' ratios, their range
 *   pg_nodes_N X moves/s (A-B, R runs)
 *                               total moves/s of N = 1, 2, 3 qirkatd nodes
 *                               on one database; median and range of R runs
 *   ratio pg_nodes_2_1 X, ratio pg_nodes_3_1 X   the scale curve's ratios
 *
 * Each load also prints its absolute figures on stderr (moves/s, round
 * trip median and p99). This generator replaced bench-server's, which
 * drove the same games of qirkatd alone: one load generator, so qirkatd
 * and the baseline are always measured the same way.
 *
 * The baseline (run in a forked child): libuv + SQLite, one INSERT per move,
 * synchronous=FULL (WAL), one transaction per loop turn committed in the
 * turn's uv_check (on the loop thread), answers written only after that
 * commit. It speaks just enough JSON lines for the same load generator:
 * connections are paired as they arrive ("start" event with game and
 * colour), a move is stored and answered `ok`, and the opponent gets the
 * move event; `challenge` and `accept` restart a pair's game (a games
 * row). It checks nothing: the clients apply moves to their own
 * positions with the rules module, so they still play random legal moves,
 * and end each game where qirkatd would (qk_pos_status).
 *
 * The PostgreSQL baseline (forked child, "the PostgreSQL baseline" below):
 * the same subset and pairing on libuv + libpq, one pipelined transaction
 * per loop turn, answers when its COMMIT's result arrives.
 *
 * The echo server (forked child): libuv, writes back what it reads.
 * The ping load: BENCH_PING_CONNS connections (default 8), one `ping` in
 * flight on each, in BENCH_ROUNDS rounds alternating echo and qirkatd (ABBA).
 *
 * qirkatd is started like bench-server (fresh database, --pwhash min), with
 * QK_RATE_LIMIT=off, QK_CHALLENGE_RATE=off, QK_MAX_CONNS and QK_MAX_CONNS_PER_ADDRESS raised for
 * the 1,000 clients and 10,000 idle connections (docs/design.md names the
 * caps), and RLIMIT_NOFILE raised to its hard limit (inherited).
 *
 * The clients ask for the compact move answer ("compact": true, as a bot
 * would: docs/protocol.md `move`); the baseline ignores the field.
 *
 * Environment: QK_BIN (binaries, default build/), BENCH_SECONDS (one
 * round of a move load, per server, default 5), BENCH_ROUNDS (default 5),
 * BENCH_PING_SECONDS (a ping round, default 2), BENCH_IDLE (idle
 * connections, default 10000; fewer if the hard RLIMIT_NOFILE is lower),
 * BENCH_VARIANT (the variant of every game, default alquerque, whose
 * random games end after about 35 moves; alquerkonane-12x12's last
 * longer, so fewer of the window's requests start and end games: the
 * move path with less of the games' lifecycle, docs/perf.md),
 * BENCH_FULL_ANSWER=1 (moves without "compact": the whole game object in
 * every answer). BENCH_ONLY runs one part: durability, moves, ping, idle,
 * count, qkN / baseN (one server alone at N games), pg (the PostgreSQL
 * figures: make bench-pg), pgratio, pgnodes, pgqkN / pgbaseN (qirkatd on
 * PostgreSQL, or the libpq baseline, alone). BENCH_COUNT_* at cost_count.
 * BENCH_PG_* below. Exit status 0, or 1 if anything went wrong (a failed
 * figure prints nothing).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <libpq-fe.h>
#include <sqlite3.h>
#include <uv.h>

#include "qk_rules.h"

#define MAX_CLIENTS 1000

static qk_variant V;
static uint64_t rng = 0x9E3779B97F4A7C15ull;
static long long errors;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "bench-ratios: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

static void send_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN) {
            struct pollfd pf = {.fd = fd, .events = POLLOUT};
            poll(&pf, 1, 1000);
            continue;
        }
        if (w <= 0)
            die("send: %s", strerror(errno));
        p += w;
        n -= (size_t)w;
    }
}

static void sendf(int fd, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    send_all(fd, buf, (size_t)n);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int connect_to(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0)
        die("connect to port %d: %s", port, strerror(errno));
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

/* ---- servers (forked children) ------------------------------------- */

static char tmpdir[64];

static pid_t tmpdir_owner;

/* At exit, also after die(): the directory goes, in the process that made
 * it only (forked servers that die() run the atexit handlers too). */
static void remove_tmpdir(void)
{
    if (!tmpdir[0] || getpid() != tmpdir_owner)
        return;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench-ratios: cannot remove %s\n", tmpdir);
    tmpdir[0] = '\0';
}

static void make_tmpdir(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/qk-ratios-XXXXXX");
    if (!mkdtemp(tmpdir))
        die("mkdtemp: %s", strerror(errno));
    tmpdir_owner = getpid();
    atexit(remove_tmpdir);
}

/* Fork; the child runs fn(listen port 0, ready pipe) and exits. The parent
 * gets the port the child reported. */
static int spawn(void (*fn)(int ready_fd), pid_t *pid)
{
    int p[2];
    if (pipe(p) != 0)
        die("pipe");
    fflush(NULL);
    *pid = fork();
    if (*pid < 0)
        die("fork");
    if (*pid == 0) {
        close(p[0]);
        fn(p[1]);
        _exit(0);
    }
    close(p[1]);
    char buf[32] = {0};
    ssize_t n = read(p[0], buf, sizeof buf - 1);
    close(p[0]);
    if (n <= 0)
        die("a server did not report a port");
    return atoi(buf);
}

/* SIGTERM, and SIGKILL (an error) if it has not exited BENCH_STOP_SECONDS
 * (default 30) later. */
static void stop(pid_t pid, const char *what)
{
    int st = 0;
    const char *e = getenv("BENCH_STOP_SECONDS");
    double wait_s = e && atof(e) > 0 ? atof(e) : 30;
    kill(pid, SIGTERM);
    double until = now_ms() + wait_s * 1000;
    pid_t w;
    while ((w = waitpid(pid, &st, WNOHANG)) == 0 && now_ms() < until)
        usleep(20000);
    if (w == 0) {
        fprintf(stderr, "bench-ratios: %s did not stop in %.0f s: killed\n", what, wait_s);
        kill(pid, SIGKILL);
        waitpid(pid, &st, 0);
        errors++;
        return;
    }
    if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0) && !(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM))
        fprintf(stderr, "bench-ratios: %s exited with status %#x\n", what, st), errors++;
}

/* The counting wrapper of cost_count (valgrind or strace, set there;
 * none otherwise): its words go in front of a server's command line. */
static const char *wrap[16];

/* argv[0..] = the wrapper's words (at most max); returns how many. */
static int wrap_argv(const char **argv, int max)
{
    int k = 0;
    while (k < max && k < 16 && wrap[k]) {
        argv[k] = wrap[k];
        k++;
    }
    return k;
}

/* Fork and exec the wrapper's words then tail (NULL-terminated; tail[fd_at]
 * is replaced by the write end of a pipe, the server's ready fd), with
 * qirkatd's environment of the bench when qk_env; what the server wrote
 * on the pipe (its port, or ports, one a line) into ready[n]. Dies if it
 * wrote nothing (what names it). */
static pid_t exec_ready(const char **tail, int fd_at, bool qk_env, char *ready, size_t n,
                        const char *what)
{
    int p[2];
    if (pipe(p) != 0)
        die("pipe");
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        die("fork");
    if (pid == 0) {
        char fdarg[16];
        close(p[0]);
        snprintf(fdarg, sizeof fdarg, "%d", p[1]);
        tail[fd_at] = fdarg;
        if (qk_env) {
            setenv("QK_RATE_LIMIT", "off", 1);
            setenv("QK_CHALLENGE_RATE", "off", 1); /* games restart through challenges */
            setenv("QK_MAX_CONNS", "20000", 1);
            setenv("QK_MAX_CONNS_PER_ADDRESS", "20000", 1);
        }
        const char *argv[48];
        int k = wrap_argv(argv, 16);
        for (int i = 0; tail[i] && k < 47; i++)
            argv[k++] = tail[i];
        argv[k] = NULL;
        execvp(argv[0], (char *const *)argv);
        fprintf(stderr, "bench-ratios: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(p[1]);
    memset(ready, 0, n);
    ssize_t r = read(p[0], ready, n - 1);
    close(p[0]);
    if (r <= 0)
        die("%s did not report a port", what);
    return pid;
}

/* Set before start_qirkatd_on: the server also listens with --http and
 * its port goes here (then it is reset). */
static int *http_port_out;

/* qirkatd on dbarg (a libpq URL or a SQLite file), or on a fresh SQLite
 * file when NULL; under the wrapper when one is set. */
static pid_t start_qirkatd_on(const char *dbarg, int *port)
{
    const char *bin = getenv("QK_BIN");
    char path[256], db[1024], buf[32];
    snprintf(path, sizeof path, "%s/qirkatd", bin && *bin ? bin : "build");
    if (dbarg)
        snprintf(db, sizeof db, "%s", dbarg);
    else
        snprintf(db, sizeof db, "%s/qk-%ld.db", tmpdir, (long)now_ms());
    const char *tail[] = {path,
                          "--listen",
                          "127.0.0.1:0",
                          "--db",
                          db,
                          "--ready-fd",
                          "",
                          "--pwhash",
                          "min",
                          "--log-level",
                          getenv("BENCH_LOG") ? getenv("BENCH_LOG") : "error",
                          NULL,
                          NULL,
                          NULL};
    if (http_port_out) { /* --http too: the ready pipe gives both ports */
        tail[11] = "--http";
        tail[12] = "127.0.0.1:0";
    }
    pid_t pid = exec_ready(tail, 6, true, buf, sizeof buf, path);
    *port = atoi(buf);
    if (http_port_out) {
        const char *nl = strchr(buf, '\n');
        *http_port_out = nl ? atoi(nl + 1) : 0;
        if (*http_port_out <= 0)
            die("%s did not report its --http port", path);
        http_port_out = NULL;
    }
    return pid;
}

static pid_t start_qirkatd(int *port)
{
    return start_qirkatd_on(NULL, port);
}

/* A connection of the minimal servers: what is read, split into lines. */
typedef struct mconn {
    uv_tcp_t tcp;
    char *in;
    size_t len, cap;
    struct mconn *opp; /* baseline: the opponent */
    long long game;
    struct mconn *next_held; /* baseline: answer waits for the commit */
    char *held;              /* baseline: the answer, then the opponent's event */
    size_t held_len;
    char *held_opp;
    size_t held_opp_len;
    long long user; /* PostgreSQL baseline: the moves' user_id */
} mconn;

static void on_alloc(uv_handle_t *h, size_t want, uv_buf_t *b)
{
    mconn *c = h->data;
    (void)want;
    if (c->cap - c->len < 4096) {
        c->cap = c->cap * 2 + 4096;
        c->in = realloc(c->in, c->cap);
    }
    *b = uv_buf_init(c->in + c->len, (unsigned)(c->cap - c->len));
}

static void on_closed(uv_handle_t *h)
{
    mconn *c = h->data;
    free(c->in);
    free(c->held);
    free(c->held_opp);
    free(c);
}

typedef struct wreq {
    uv_write_t w;
    char data[];
} wreq;

static void on_written(uv_write_t *w, int status)
{
    (void)status;
    free(w);
}

static void write_copy(mconn *c, const char *p, size_t n)
{
    if (uv_is_closing((uv_handle_t *)&c->tcp))
        return;
    wreq *r = malloc(sizeof *r + n);
    memcpy(r->data, p, n);
    uv_buf_t b = uv_buf_init(r->data, (unsigned)n);
    if (uv_write(&r->w, (uv_stream_t *)&c->tcp, &b, 1, on_written) != 0)
        free(r);
}

/* echo */
static void echo_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
    mconn *c = s->data;
    (void)b;
    if (n < 0) {
        uv_close((uv_handle_t *)s, on_closed);
        return;
    }
    write_copy(c, c->in, (size_t)n);
}

static uv_read_cb server_read;

static void on_conn(uv_stream_t *srv, int status);

static void listen_and_report(uv_loop_t *loop, uv_tcp_t *srv, int ready_fd)
{
    struct sockaddr_in a;
    uv_ip4_addr("127.0.0.1", 0, &a);
    uv_tcp_init(loop, srv);
    if (uv_tcp_bind(srv, (struct sockaddr *)&a, 0) || uv_listen((uv_stream_t *)srv, 4096, on_conn))
        die("listen");
    int len = sizeof a;
    uv_tcp_getsockname(srv, (struct sockaddr *)&a, &len);
    char buf[16];
    int n = snprintf(buf, sizeof buf, "%d\n", ntohs(a.sin_port));
    if (write(ready_fd, buf, (size_t)n) != n)
        die("ready pipe");
    close(ready_fd);
}

static void on_sigterm(uv_signal_t *s, int sig)
{
    (void)sig;
    uv_stop(s->loop);
}

static void echo_main(int ready_fd)
{
    uv_loop_t *loop = uv_default_loop();
    static uv_tcp_t srv;
    static uv_signal_t sig;
    server_read = echo_read;
    listen_and_report(loop, &srv, ready_fd);
    uv_signal_init(loop, &sig);
    uv_signal_start(&sig, on_sigterm, SIGTERM);
    uv_run(loop, UV_RUN_DEFAULT);
}

/* The minimal server of the idle figure: what a libuv server must hold
 * for an idle connection and no more: the handle in a block of its own,
 * one read buffer shared by every connection (a line is answered in the
 * read callback that brings it, so nothing is kept between reads), each
 * answer written with uv_try_write (a line of a few bytes to a socket
 * with room: no write request kept). */
static char idle_buf[65536];

static void idle_alloc(uv_handle_t *h, size_t want, uv_buf_t *b)
{
    (void)h;
    (void)want;
    *b = uv_buf_init(idle_buf, sizeof idle_buf);
}

static void idle_closed(uv_handle_t *h)
{
    free(h);
}

static void idle_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
    (void)b;
    if (n < 0) {
        uv_close((uv_handle_t *)s, idle_closed);
        return;
    }
    static const char answer[] = "{\"type\":\"ok\",\"id\":\"h\"}\n";
    for (ssize_t i = 0; i < n; i++)
        if (idle_buf[i] == '\n') {
            uv_buf_t a = uv_buf_init((char *)answer, sizeof answer - 1);
            if (uv_try_write(s, &a, 1) != (int)sizeof answer - 1)
                die("minimal idle server: an answer did not fit the socket");
        }
}

static void idle_conn(uv_stream_t *srv, int status)
{
    if (status != 0)
        return;
    uv_tcp_t *t = malloc(sizeof *t);
    uv_tcp_init(srv->loop, t);
    if (uv_accept(srv, (uv_stream_t *)t) != 0) {
        uv_close((uv_handle_t *)t, idle_closed);
        return;
    }
    uv_read_start((uv_stream_t *)t, idle_alloc, idle_read);
}

static void idle_main(int ready_fd)
{
    uv_loop_t *loop = uv_default_loop();
    static uv_tcp_t srv;
    static uv_signal_t sig;
    struct sockaddr_in a;
    uv_ip4_addr("127.0.0.1", 0, &a);
    uv_tcp_init(loop, &srv);
    if (uv_tcp_bind(&srv, (struct sockaddr *)&a, 0) ||
        uv_listen((uv_stream_t *)&srv, 4096, idle_conn))
        die("listen");
    int len = sizeof a;
    uv_tcp_getsockname(&srv, (struct sockaddr *)&a, &len);
    char buf[16];
    int n = snprintf(buf, sizeof buf, "%d\n", ntohs(a.sin_port));
    if (write(ready_fd, buf, (size_t)n) != n)
        die("ready pipe");
    close(ready_fd);
    uv_signal_init(loop, &sig);
    uv_signal_start(&sig, on_sigterm, SIGTERM);
    uv_run(loop, UV_RUN_DEFAULT);
}

/* baseline */
static sqlite3 *bdb;
static sqlite3_stmt *binsert, *bchallenge, *baccept;
static bool in_txn;
static mconn *held_head;
static mconn *waiting; /* a connection waiting for an opponent */
static long long next_game = 1;

static void bexec(const char *sql)
{
    char *err = NULL;
    if (sqlite3_exec(bdb, sql, NULL, NULL, &err) != SQLITE_OK)
        die("baseline sql %s: %s", sql, err ? err : "?");
}

static void append(char **buf, size_t *len, const char *p, size_t n)
{
    *buf = realloc(*buf, *len + n);
    memcpy(*buf + *len, p, n);
    *len += n;
}

/* The answer to c and the event to its opponent, written after the
 * turn's commit (base_check). */
static void hold(mconn *c, const char *to_c, int n_c, const char *to_opp, int n_opp)
{
    if (!c->held && !c->held_opp) {
        c->next_held = held_head;
        held_head = c;
    }
    if (n_c > 0)
        append(&c->held, &c->held_len, to_c, (size_t)n_c);
    if (n_opp > 0)
        append(&c->held_opp, &c->held_opp_len, to_opp, (size_t)n_opp);
}

static void begin_turn(void)
{
    if (!in_txn) {
        bexec("BEGIN");
        in_txn = true;
    }
}

static void bstep(sqlite3_stmt *st)
{
    if (sqlite3_step(st) != SQLITE_DONE)
        die("baseline write: %s", sqlite3_errmsg(bdb));
    sqlite3_reset(st);
}

/* The `start` event of game for the side of color, into out[n]; its
 * length. */
static int start_line(char *out, size_t n, long long game, const char *color)
{
    return snprintf(out, n,
                    "{\"type\":\"event\",\"event\":\"start\",\"game\":%lld,\"color\":\"%s\"}\n",
                    game, color);
}

/* What a restart step of c answers (both baselines): to c into a (*ka
 * bytes), to its opponent into b (*kb). A challenge gives the pair its
 * new game id, answered ok, and the opponent a `challenge` event; an
 * accept is answered ok and `start` as black, the challenger gets `start`
 * as white. */
static void restart_lines(mconn *c, bool accept, char *a, size_t an, int *ka, char *b, size_t bn,
                          int *kb)
{
    if (!accept) {
        c->game = c->opp->game = next_game++;
        *ka = snprintf(a, an, "{\"type\":\"ok\",\"id\":\"c\"}\n");
        *kb = snprintf(b, bn,
                       "{\"type\":\"event\",\"event\":\"challenge\",\"challenge\":{\"id\":%lld}}\n",
                       c->game);
        return;
    }
    *ka = snprintf(a, an, "{\"type\":\"ok\",\"id\":\"a\"}\n");
    *ka += start_line(a + *ka, an - (size_t)*ka, c->game, "black");
    *kb = start_line(b, bn, c->game, "white");
}

/* A game restarts through the server as on qirkatd (the load's restart
 * below, "the move load"): the challenger's `challenge` stores a games
 * row and tells the opponent, the opponent's `accept` marks it active and
 * both get `start`; each is written in the turn's transaction and answered
 * after its commit, like a move. */
static void base_restart(mconn *c, bool accept)
{
    char a[160], b[160];
    int ka, kb;
    if (!c->opp)
        return;
    begin_turn();
    restart_lines(c, accept, a, sizeof a, &ka, b, sizeof b, &kb);
    sqlite3_stmt *st = accept ? baccept : bchallenge;
    sqlite3_bind_int64(st, 1, c->game);
    bstep(st);
    hold(c, a, ka, b, kb);
}

static void base_line(mconn *c, const char *line, size_t n)
{
    cJSON *m = cJSON_ParseWithLength(line, n);
    if (!m)
        return;
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(m, "type");
    const cJSON *mv = cJSON_GetObjectItemCaseSensitive(m, "move");
    const cJSON *ply = cJSON_GetObjectItemCaseSensitive(m, "ply");
    if (cJSON_IsString(type) && !strcmp(type->valuestring, "challenge")) {
        base_restart(c, false);
    } else if (cJSON_IsString(type) && !strcmp(type->valuestring, "accept")) {
        base_restart(c, true);
    } else if (cJSON_IsString(mv) && cJSON_IsNumber(ply) && c->game) {
        begin_turn();
        sqlite3_bind_int64(binsert, 1, c->game);
        sqlite3_bind_int64(binsert, 2, (sqlite3_int64)ply->valuedouble);
        sqlite3_bind_text(binsert, 3, mv->valuestring, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(binsert, 4, (sqlite3_int64)uv_now(c->tcp.loop));
        bstep(binsert);
        char a[32], b[256];
        int ka = snprintf(a, sizeof a, "{\"type\":\"ok\",\"id\":\"m\"}\n");
        int kb = snprintf(b, sizeof b,
                          "{\"type\":\"event\",\"event\":\"move\",\"game\":%lld,\"move\":\"%s\"}\n",
                          c->game, mv->valuestring);
        hold(c, a, ka, b, kb);
    }
    cJSON_Delete(m);
}

/* The two baselines share the pairing and the reading; what a line does
 * and what a closing connection leaves behind is theirs: SQLite's
 * (base_line, its held list) or PostgreSQL's (pgb_line, pgb_forget). */
static void (*base_on_line)(mconn *c, const char *line, size_t n) = base_line;
static void (*base_on_close)(mconn *c);

static void base_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
    mconn *c = s->data;
    (void)b;
    if (n < 0) {
        if (waiting == c)
            waiting = NULL;
        if (c->opp)
            c->opp->opp = NULL;
        for (mconn **p = &held_head; *p; p = &(*p)->next_held)
            if (*p == c) {
                *p = c->next_held;
                break;
            }
        if (base_on_close)
            base_on_close(c);
        uv_close((uv_handle_t *)s, on_closed);
        return;
    }
    c->len += (size_t)n;
    size_t start = 0;
    char *nl;
    while ((nl = memchr(c->in + start, '\n', c->len - start))) {
        base_on_line(c, c->in + start, (size_t)(nl - (c->in + start)));
        start = (size_t)(nl - c->in) + 1;
    }
    memmove(c->in, c->in + start, c->len - start);
    c->len -= start;
}

/* End of the loop turn: one commit for every move read in it, then the
 * held answers. */
static void base_check(uv_check_t *h)
{
    (void)h;
    if (!in_txn)
        return;
    bexec("COMMIT");
    in_txn = false;
    for (mconn *c = held_head; c; c = c->next_held) {
        write_copy(c, c->held, c->held_len);
        if (c->opp)
            write_copy(c->opp, c->held_opp, c->held_opp_len);
        free(c->held);
        free(c->held_opp);
        c->held = c->held_opp = NULL;
        c->held_len = c->held_opp_len = 0;
    }
    held_head = NULL;
}

static void on_conn(uv_stream_t *srv, int status)
{
    if (status != 0)
        return;
    mconn *c = calloc(1, sizeof *c);
    uv_tcp_init(srv->loop, &c->tcp);
    c->tcp.data = c;
    if (uv_accept(srv, (uv_stream_t *)&c->tcp) != 0) {
        uv_close((uv_handle_t *)&c->tcp, on_closed);
        return;
    }
    uv_tcp_nodelay(&c->tcp, 1);
    uv_read_start((uv_stream_t *)&c->tcp, on_alloc, server_read);
    if (server_read != base_read)
        return;
    static long long next_user = 1;
    c->user = next_user++;
    if (!waiting) {
        waiting = c;
        return;
    }
    mconn *w = waiting;
    waiting = NULL;
    w->opp = c;
    c->opp = w;
    w->game = c->game = next_game++;
    if (bdb) { /* set-up, before the load's clock starts: autocommit */
        sqlite3_bind_int64(bchallenge, 1, w->game);
        bstep(bchallenge);
        sqlite3_bind_int64(baccept, 1, w->game);
        bstep(baccept);
    }
    char out[128];
    int k = start_line(out, sizeof out, w->game, "white");
    write_copy(w, out, (size_t)k);
    k = start_line(out, sizeof out, c->game, "black");
    write_copy(c, out, (size_t)k);
}

static char base_db[256]; /* the next baseline's database file; "": a fresh name */

static void baseline_main(int ready_fd)
{
    char db[256];
    if (base_db[0])
        snprintf(db, sizeof db, "%s", base_db);
    else
        snprintf(db, sizeof db, "%s/baseline-%ld.db", tmpdir, (long)now_ms());
    if (sqlite3_open(db, &bdb) != SQLITE_OK)
        die("baseline db");
    bexec("PRAGMA journal_mode=WAL");
    bexec("PRAGMA synchronous=FULL");
    bexec("CREATE TABLE moves(game INTEGER NOT NULL, ply INTEGER NOT NULL, move TEXT NOT NULL, "
          "at INTEGER NOT NULL)");
    bexec("CREATE TABLE games(id INTEGER PRIMARY KEY, status TEXT NOT NULL)");
    if (sqlite3_prepare_v2(bdb, "INSERT INTO moves(game, ply, move, at) VALUES (?, ?, ?, ?)", -1,
                           &binsert, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(bdb, "INSERT INTO games(id, status) VALUES (?, 'open')", -1, &bchallenge,
                           NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(bdb, "UPDATE games SET status = 'active' WHERE id = ?", -1, &baccept,
                           NULL) != SQLITE_OK)
        die("baseline prepare");
    uv_loop_t *loop = uv_default_loop();
    static uv_tcp_t srv;
    static uv_check_t check;
    static uv_signal_t sig;
    server_read = base_read;
    listen_and_report(loop, &srv, ready_fd);
    uv_check_init(loop, &check);
    uv_check_start(&check, base_check);
    uv_signal_init(loop, &sig);
    uv_signal_start(&sig, on_sigterm, SIGTERM);
    uv_run(loop, UV_RUN_DEFAULT);
    sqlite3_finalize(binsert);
    sqlite3_finalize(bchallenge);
    sqlite3_finalize(baccept);
    sqlite3_close(bdb);
}

/* ---- the PostgreSQL baseline (forked child) ---------------------------
 *
 * The SQLite baseline's protocol subset and pairing, on PostgreSQL: libuv
 * + libpq, one non-blocking connection in pipeline mode, its socket
 * watched with uv_poll on the loop. The moves read in a loop turn are one
 * transaction, sent in the turn's uv_check as one pipeline: BEGIN, one
 * prepared INSERT per move, COMMIT, PQpipelineSync. Answers and the
 * opponents' events are written when that COMMIT's result arrives, which
 * PostgreSQL sends after flushing the commit's WAL record
 * (synchronous_commit = on, set on the connection): nothing is answered
 * before it is durable.
 *
 * By default the next transaction waits for the one in flight (its sync
 * result): the moves read meanwhile gather and go as one transaction the
 * turn it is done, one WAL flush for all of them. Pipelining the turns
 * (BENCH_PG_PIPELINE=1: each turn's transaction sent at once, behind the
 * ones in flight) saves the round trip between a commit's answer and the
 * next BEGIN, but a connection's statements run one after the other in
 * its backend, so each queued turn then costs a WAL flush of its own and
 * the turns behind a flush stay small: measured slower (docs/perf.md
 * "PostgreSQL (issue 22)"), hence the default. qirkatd does the same as
 * the default (docs/scale.md: the next turns' writes gather while a
 * COMMIT is in flight).
 *
 * Its table is the real moves table's shape (game_id, ply, move, user_id,
 * created; primary key (game_id, ply)) without the foreign keys, as there
 * are no games or users rows. A finished game restarts through the server
 * (the load's challenge and accept, pgb_restart): a new game id for the
 * pair, so the key never conflicts (a conflict would abort the
 * transaction: the baseline dies on any failed statement). */

#define PGB_MOVE_MAX 64

typedef struct pgb_move {
    mconn *c, *opp; /* NULL once that connection closed */
    long long game;
    char move[PGB_MOVE_MAX];
    char v_game[24], v_ply[24], v_user[24], v_created[24];
} pgb_move;

typedef struct pgb_batch {
    pgb_move *m;
    size_t n, cap;
    struct pgb_batch *next;
} pgb_batch;

static const char *pgb_url; /* set by the parent before the fork */
static PGconn *pgb;
static uv_poll_t pgb_poll;
static int pgb_events;
static bool pgb_pipelined;
static pgb_batch *pgb_gather;                                  /* read, not sent yet */
static pgb_batch *pgb_flight, **pgb_flight_tail = &pgb_flight; /* sent, in order */
static int pgb_in_flight;
static bool pgb_got;                  /* the query at the head has given its result */
static long long pgb_txns, pgb_moves; /* committed, for the log at exit */

static void pgb_exec(const char *sql)
{
    PGresult *r = PQexec(pgb, sql);
    if (!r || (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK))
        die("pg baseline %s: %s", sql, PQerrorMessage(pgb));
    PQclear(r);
}

static void pgb_poll_cb(uv_poll_t *h, int status, int events);

/* Hand libpq's buffered output to the socket; watch for writability while
 * some is left. */
static void pgb_flush(void)
{
    int f = PQflush(pgb);
    if (f < 0)
        die("pg baseline flush: %s", PQerrorMessage(pgb));
    int want = UV_READABLE | (f == 1 ? UV_WRITABLE : 0);
    if (want != pgb_events) {
        pgb_events = want;
        uv_poll_start(&pgb_poll, want, pgb_poll_cb);
    }
}

static long long wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A restart (the load's challenge and accept, as the SQLite baseline's
 * base_restart): answered at once, without a row, since the PostgreSQL
 * figure is about moves (docs/perf.md "PostgreSQL (issue 22)"); the new
 * game id keeps the moves' key unique. */
static void pgb_restart(mconn *c, bool accept)
{
    char a[160], b[160];
    int ka, kb;
    restart_lines(c, accept, a, sizeof a, &ka, b, sizeof b, &kb);
    write_copy(c, a, (size_t)ka);
    write_copy(c->opp, b, (size_t)kb);
}

static void pgb_line(mconn *c, const char *line, size_t n)
{
    cJSON *m = cJSON_ParseWithLength(line, n);
    if (!m)
        return;
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(m, "type");
    const cJSON *mv = cJSON_GetObjectItemCaseSensitive(m, "move");
    const cJSON *ply = cJSON_GetObjectItemCaseSensitive(m, "ply");
    if (cJSON_IsString(type) && c->opp &&
        (!strcmp(type->valuestring, "challenge") || !strcmp(type->valuestring, "accept"))) {
        pgb_restart(c, !strcmp(type->valuestring, "accept"));
    } else if (cJSON_IsString(mv) && strlen(mv->valuestring) < PGB_MOVE_MAX &&
               cJSON_IsNumber(ply) && c->game) {
        long long p = (long long)ply->valuedouble;
        if (!pgb_gather)
            pgb_gather = calloc(1, sizeof *pgb_gather);
        pgb_batch *b = pgb_gather;
        if (b->n == b->cap) {
            b->cap = b->cap ? b->cap * 2 : 64;
            b->m = realloc(b->m, b->cap * sizeof *b->m);
            if (!b->m)
                die("out of memory");
        }
        pgb_move *e = &b->m[b->n++];
        e->c = c;
        e->opp = c->opp;
        e->game = c->game;
        snprintf(e->move, sizeof e->move, "%s", mv->valuestring);
        snprintf(e->v_game, sizeof e->v_game, "%lld", c->game);
        snprintf(e->v_ply, sizeof e->v_ply, "%lld", p);
        snprintf(e->v_user, sizeof e->v_user, "%lld", c->user);
        snprintf(e->v_created, sizeof e->v_created, "%lld", wall_ms());
    }
    cJSON_Delete(m);
}

/* A closing connection: the moves still waiting for a commit keep their
 * rows but answer nobody on its side. */
static void pgb_forget_in(pgb_batch *b, const mconn *c)
{
    for (size_t i = 0; b && i < b->n; i++) {
        if (b->m[i].c == c)
            b->m[i].c = NULL;
        if (b->m[i].opp == c)
            b->m[i].opp = NULL;
    }
}

static void pgb_forget(mconn *c)
{
    pgb_forget_in(pgb_gather, c);
    for (pgb_batch *b = pgb_flight; b; b = b->next)
        pgb_forget_in(b, c);
}

static void pgb_send(pgb_batch *b)
{
    if (!PQsendQueryParams(pgb, "BEGIN", 0, NULL, NULL, NULL, NULL, 0))
        die("pg baseline BEGIN: %s", PQerrorMessage(pgb));
    for (size_t i = 0; i < b->n; i++) {
        const pgb_move *e = &b->m[i];
        const char *v[5] = {e->v_game, e->v_ply, e->move, e->v_user, e->v_created};
        if (!PQsendQueryPrepared(pgb, "ins", 5, v, NULL, NULL, 0))
            die("pg baseline INSERT: %s", PQerrorMessage(pgb));
    }
    if (!PQsendQueryParams(pgb, "COMMIT", 0, NULL, NULL, NULL, NULL, 0) || !PQpipelineSync(pgb))
        die("pg baseline COMMIT: %s", PQerrorMessage(pgb));
    pgb_txns++;
    pgb_moves += (long long)b->n;
    b->next = NULL;
    *pgb_flight_tail = b;
    pgb_flight_tail = &b->next;
    pgb_in_flight++;
    pgb_flush();
}

/* End of the loop turn: the moves gathered go as one transaction, unless
 * one is in flight and the turns are not pipelined. */
static void pgb_check(uv_check_t *h)
{
    (void)h;
    if (!pgb_gather || pgb_gather->n == 0 || (pgb_in_flight > 0 && !pgb_pipelined))
        return;
    pgb_batch *b = pgb_gather;
    pgb_gather = NULL;
    pgb_send(b);
}

/* The head batch's COMMIT is durable: its answers and events go out. */
static void pgb_release(pgb_batch *b)
{
    char out[256];
    for (size_t i = 0; i < b->n; i++) {
        const pgb_move *e = &b->m[i];
        if (e->c)
            write_copy(e->c, "{\"type\":\"ok\",\"id\":\"m\"}\n", 23);
        if (e->opp) {
            int k =
                snprintf(out, sizeof out,
                         "{\"type\":\"event\",\"event\":\"move\",\"game\":%lld,\"move\":\"%s\"}\n",
                         e->game, e->move);
            write_copy(e->opp, out, (size_t)k);
        }
    }
}

/* Results, in the order sent: per batch one result (then NULL) for BEGIN,
 * each INSERT and COMMIT, then the sync's PGRES_PIPELINE_SYNC. */
static void pgb_results(void)
{
    while (pgb_flight && !PQisBusy(pgb)) {
        PGresult *r = PQgetResult(pgb);
        if (!r) {
            if (!pgb_got)
                break;       /* nothing more for now */
            pgb_got = false; /* the head query is done */
            continue;
        }
        ExecStatusType st = PQresultStatus(r);
        if (st == PGRES_PIPELINE_SYNC) {
            pgb_batch *b = pgb_flight;
            pgb_flight = b->next;
            if (!pgb_flight)
                pgb_flight_tail = &pgb_flight;
            pgb_in_flight--;
            free(b->m);
            free(b);
        } else if (st != PGRES_COMMAND_OK) {
            die("pg baseline: %s", PQresultErrorMessage(r));
        } else {
            pgb_got = true;
            /* A failed transaction's COMMIT answers ROLLBACK. */
            if (!strcmp(PQcmdStatus(r), "COMMIT"))
                pgb_release(pgb_flight);
        }
        PQclear(r);
    }
}

static void pgb_poll_cb(uv_poll_t *h, int status, int events)
{
    (void)h;
    if (status < 0)
        die("pg baseline poll: %s", uv_strerror(status));
    if (events & UV_WRITABLE)
        pgb_flush();
    if (events & UV_READABLE) {
        if (!PQconsumeInput(pgb))
            die("pg baseline: %s", PQerrorMessage(pgb));
        pgb_results();
    }
}

static void pgbase_main(int ready_fd)
{
    pgb_pipelined = getenv("BENCH_PG_PIPELINE") && !strcmp(getenv("BENCH_PG_PIPELINE"), "1");
    pgb = PQconnectdb(pgb_url);
    if (PQstatus(pgb) != CONNECTION_OK)
        die("pg baseline: cannot connect: %s", PQerrorMessage(pgb));
    /* Set up blocking, before the loop runs. */
    pgb_exec("SET synchronous_commit = on");
    pgb_exec("SET client_min_messages = warning");
    pgb_exec("CREATE TABLE moves (game_id BIGINT NOT NULL, ply BIGINT NOT NULL CHECK (ply >= 0), "
             "move TEXT NOT NULL, user_id BIGINT NOT NULL, created BIGINT NOT NULL, "
             "PRIMARY KEY (game_id, ply))");
    PGresult *r = PQprepare(pgb, "ins",
                            "INSERT INTO moves (game_id, ply, move, user_id, created) "
                            "VALUES ($1, $2, $3, $4, $5)",
                            0, NULL);
    if (!r || PQresultStatus(r) != PGRES_COMMAND_OK)
        die("pg baseline prepare: %s", PQerrorMessage(pgb));
    PQclear(r);
    if (PQsetnonblocking(pgb, 1) != 0 || !PQenterPipelineMode(pgb))
        die("pg baseline: pipeline mode: %s", PQerrorMessage(pgb));
    uv_loop_t *loop = uv_default_loop();
    static uv_tcp_t srv;
    static uv_check_t check;
    static uv_signal_t sig;
    server_read = base_read;
    base_on_line = pgb_line;
    base_on_close = pgb_forget;
    uv_poll_init(loop, &pgb_poll, PQsocket(pgb));
    pgb_events = UV_READABLE;
    uv_poll_start(&pgb_poll, pgb_events, pgb_poll_cb);
    listen_and_report(loop, &srv, ready_fd);
    uv_check_init(loop, &check);
    uv_check_start(&check, pgb_check);
    uv_signal_init(loop, &sig);
    uv_signal_start(&sig, on_sigterm, SIGTERM);
    uv_run(loop, UV_RUN_DEFAULT);
    PQfinish(pgb);
    fprintf(stderr, "bench-ratios: pg baseline: %lld transactions, %lld moves (%.1f a commit)\n",
            pgb_txns, pgb_moves, pgb_txns ? (double)pgb_moves / (double)pgb_txns : 0.0);
}

/* ---- the move load --------------------------------------------------- */

typedef struct client {
    int fd;
    int idx;
    char name[24];
    char *buf;
    size_t len, cap;
    long long game;
    int color;
    qk_pos pos;
    long long ply;
    bool waiting_move;
    char sent[QK_MOVE_STRLEN];     /* baseline: applied when answered */
    long long sent_game, sent_ply; /* the move in flight's key, for the kill -9 check */
    double sent_at;
    bool registered;
    double register_at;
} client;

static client C[MAX_CLIENTS];
static int NC;
/* playing: the timed window (moves are sent, restarts made, round trips
 * counted); accepting: the set-up before it and the window (challenges
 * are accepted). */
static bool baseline_mode, playing, accepting;
static double *rtt;
static size_t nrtt, caprtt;
static long long moves_done;
static long long move_cap; /* > 0: the window ends after this many moves (cost_count) */
static bool cap_reached(void)
{
    return move_cap > 0 && moves_done >= move_cap;
}
static long long reg_internal; /* registrations answered internal (on_message) */

/* The kill -9 check (durability_check): every move acknowledged while
 * acks.on, by its key (game, ply). */
static struct {
    bool on;
    long long (*key)[2];
    size_t n, cap;
} acks;

static void ack_add(long long game, long long ply)
{
    if (acks.n == acks.cap) {
        acks.cap = acks.cap ? acks.cap * 2 : 4096;
        acks.key = realloc(acks.key, acks.cap * sizeof *acks.key);
        if (!acks.key)
            die("out of memory");
    }
    acks.key[acks.n][0] = game;
    acks.key[acks.n][1] = ply;
    acks.n++;
}

static void challenge(client *c)
{
    sendf(c->fd,
          "{\"type\":\"challenge\",\"id\":\"c\",\"to\":\"%s\",\"color\":\"white\","
          "\"variant\":\"%s\"}\n",
          C[c->idx + 1].name, V.name);
}

/* BENCH_FULL_ANSWER=1: qirkatd answers each move with the whole game
 * object, as for a client that does not ask for the compact answer. */
static bool full_answer;

static void maybe_move(client *c)
{
    if (!playing || c->game == 0 || c->waiting_move || c->pos.side != c->color || cap_reached())
        return;
    qk_move moves[QK_MAX_MOVES];
    int n = qk_movegen(&V, &c->pos, moves, QK_MAX_MOVES);
    if (n <= 0)
        return;
    qk_move_format(&V, &moves[rnd((uint32_t)n)], c->sent, sizeof c->sent);
    c->waiting_move = true;
    c->sent_game = c->game;
    c->sent_ply = c->ply;
    c->sent_at = now_ms();
    sendf(c->fd, "{\"type\":\"move\",\"id\":\"m\",\"game\":%lld,\"ply\":%lld,\"move\":\"%s\"%s}\n",
          c->game, c->ply, c->sent, full_answer ? "" : ",\"compact\":true");
}

/* Baseline: both sides apply each move to their own position with the
 * rules module qirkatd uses (qk_pos_status: the same end, at the same
 * ply, as qirkatd's games) and restart a finished game through the server
 * as qirkatd's clients do: the even client challenges, the odd one
 * accepts, and both get `start` (base_restart). */
static void base_apply(client *c, const char *text)
{
    qk_move m;
    qk_undo u;
    if (qk_move_parse(&V, &c->pos, text, &m) != QK_OK)
        die("baseline: an illegal move %s", text);
    qk_pos_make(&V, &c->pos, &m, &u);
    c->ply++;
    qk_result r;
    qk_reason why;
    if (qk_pos_status(&V, &c->pos, &r, &why)) {
        c->game = 0;
        if (c->idx % 2 == 0 && playing)
            challenge(c);
    }
}

static const char *jstr(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double jnum(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static void set_position(client *c, const char *pos, long long ply)
{
    if (!pos || qk_pos_parse(&V, pos, &c->pos, NULL) != QK_OK)
        die("bad position from the server: %s", pos ? pos : "(none)");
    c->ply = ply;
}

static void on_event(client *c, const cJSON *m)
{
    const char *ev = jstr(m, "event");
    if (!ev)
        return;
    if (baseline_mode) {
        if (!strcmp(ev, "start")) {
            c->game = (long long)jnum(m, "game");
            c->color = !strcmp(jstr(m, "color"), "white") ? QK_WHITE : QK_BLACK;
            qk_variant_start(&V, &c->pos);
            c->ply = 0;
        } else if (!strcmp(ev, "move")) {
            base_apply(c, jstr(m, "move"));
        } else if (!strcmp(ev, "challenge") && accepting) {
            sendf(c->fd, "{\"type\":\"accept\",\"id\":\"a\",\"challenge\":%lld}\n",
                  (long long)jnum(cJSON_GetObjectItemCaseSensitive(m, "challenge"), "id"));
        }
        maybe_move(c);
        return;
    }
    if (!strcmp(ev, "challenge")) {
        const cJSON *ch = cJSON_GetObjectItemCaseSensitive(m, "challenge");
        const char *to = jstr(ch, "to");
        const char *st = jstr(ch, "status");
        /* the challenge event comes again when it is accepted */
        if (to && !strcmp(to, c->name) && accepting && (!st || !strcmp(st, "open")))
            sendf(c->fd, "{\"type\":\"accept\",\"id\":\"a\",\"challenge\":%lld}\n",
                  (long long)jnum(ch, "id"));
    } else if (!strcmp(ev, "game_start")) {
        const cJSON *g = cJSON_GetObjectItemCaseSensitive(m, "game");
        c->game = (long long)jnum(g, "id");
        c->color = !strcmp(jstr(g, "white"), c->name) ? QK_WHITE : QK_BLACK;
        set_position(c, jstr(g, "position"), (long long)jnum(g, "ply"));
        maybe_move(c);
    } else if (!strcmp(ev, "move")) {
        if ((long long)jnum(m, "game") != c->game)
            return;
        set_position(c, jstr(m, "position"), (long long)jnum(m, "ply") + 1);
        const char *status = jstr(m, "status");
        if (status && strcmp(status, "active") == 0)
            maybe_move(c);
    } else if (!strcmp(ev, "game_end")) {
        if ((long long)jnum(m, "game") != c->game)
            return;
        c->game = 0;
        if (c->idx % 2 == 0 && playing)
            challenge(c);
    }
}

static void on_message(client *c, const cJSON *m)
{
    const char *type = jstr(m, "type"), *id = jstr(m, "id");
    if (type && !strcmp(type, "event")) {
        on_event(c, m);
        return;
    }
    const char *code = jstr(m, "code");
    /* A registration answered `internal` is sent again like a busy one:
     * qirkatd on PostgreSQL checks the cap on password hashes when a
     * request is dispatched, but its task may wait for the database
     * before it queues the hash, so a burst of registrations passes the
     * check and the 17th finds the pool full (auth.c "password hash
     * refused"). Counted and logged; registration is not timed. */
    if (id && !strcmp(id, "r") && code && !strcmp(code, "internal")) {
        reg_internal++;
        c->register_at = now_ms() + 250.0;
        return;
    }
    if (id && !strcmp(id, "r") && code && !strcmp(code, "server_busy")) {
        const cJSON *ra = cJSON_GetObjectItemCaseSensitive(m, "retry_after_ms");
        c->register_at = now_ms() + (cJSON_IsNumber(ra) ? ra->valuedouble : 250.0);
        return;
    }
    if (!type || strcmp(type, "ok") != 0) {
        char *s = cJSON_PrintUnformatted(m);
        fprintf(stderr, "bench-ratios: %s got %s\n", c->name, s);
        free(s);
        errors++;
        if (id && !strcmp(id, "m"))
            c->waiting_move = false;
        return;
    }
    if (!id)
        return;
    if (!strcmp(id, "r")) {
        c->registered = true;
    } else if (!strcmp(id, "m")) {
        c->waiting_move = false;
        if (nrtt == caprtt) {
            caprtt = caprtt ? caprtt * 2 : 65536;
            rtt = realloc(rtt, caprtt * sizeof *rtt);
            if (!rtt)
                die("out of memory");
        }
        if (playing) {
            rtt[nrtt++] = now_ms() - c->sent_at;
            moves_done++;
            if (acks.on)
                ack_add(c->sent_game, c->sent_ply);
        }
        if (baseline_mode) {
            base_apply(c, c->sent);
            maybe_move(c);
        }
    }
}

static void pump(client *c)
{
    for (;;) {
        if (c->cap - c->len < 65536) {
            c->cap = c->cap * 2 + 65536;
            c->buf = realloc(c->buf, c->cap);
            if (!c->buf)
                die("out of memory");
        }
        ssize_t r = recv(c->fd, c->buf + c->len, c->cap - c->len, MSG_DONTWAIT);
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            die("%s: the server closed the connection", c->name);
        c->len += (size_t)r;
    }
    size_t start = 0;
    char *nl;
    while ((nl = memchr(c->buf + start, '\n', c->len - start))) {
        size_t n = (size_t)(nl - (c->buf + start));
        if (n == 0) {
            start++;
            continue;
        }
        cJSON *m = cJSON_ParseWithLength(c->buf + start, n);
        if (!m)
            die("%s: a line that is not JSON", c->name);
        on_message(c, m);
        cJSON_Delete(m);
        start += n + 1;
    }
    memmove(c->buf, c->buf + start, c->len - start);
    c->len -= start;
}

static void send_register(client *c)
{
    sendf(c->fd, "{\"type\":\"register\",\"id\":\"r\",\"username\":\"%s\",\"password\":\"pw\"}\n",
          c->name);
}

static void loop_until(double until, bool (*done)(void))
{
    static struct pollfd pf[MAX_CLIENTS];
    while (now_ms() < until && !(done && done())) {
        for (int i = 0; i < NC; i++)
            pf[i] = (struct pollfd){.fd = C[i].fd, .events = POLLIN};
        int n = poll(pf, (nfds_t)NC, 50);
        if (n < 0 && errno != EINTR)
            die("poll: %s", strerror(errno));
        for (int i = 0; i < NC && n > 0; i++)
            if (pf[i].revents) {
                pump(&C[i]);
                n--;
            }
        for (int i = 0; i < NC; i++)
            if (C[i].register_at > 0 && now_ms() >= C[i].register_at) {
                C[i].register_at = 0;
                send_register(&C[i]);
            }
    }
}

static bool all_registered(void)
{
    for (int i = 0; i < NC; i++)
        if (!C[i].registered)
            return false;
    return true;
}

static bool all_in_game(void)
{
    for (int i = 0; i < NC; i++)
        if (C[i].game == 0 || C[i].color < 0)
            return false;
    return true;
}

static bool none_in_flight(void)
{
    for (int i = 0; i < NC; i++)
        if (C[i].waiting_move)
            return false;
    return true;
}

typedef struct moves_result {
    double per_s, rtt_median, rtt_p99;
} moves_result;

/* CPU time (user + system, every thread) pid has used, in ms, from
 * /proc/PID/stat (fields 14 and 15, clock ticks); -1 if unreadable. */
static double cpu_ms(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* the command name may hold spaces */
    unsigned long long ut, st;
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
        return -1;
    return (double)(ut + st) * 1000.0 / (double)sysconf(_SC_CLK_TCK);
}

/* What the rounds of one server at one size add up to (moves_rounds).
 * pg_cpu_ms: the PostgreSQL cluster's CPU (pg_cluster_cpu), when the
 * bench started the cluster; rate[]: each round's moves/s. */
#define MAX_ROUNDS 20
typedef struct moves_acc {
    double moves, seconds, cpu_ms, pg_cpu_ms;
    double *rtt;
    size_t n, cap;
    double rate[MAX_ROUNDS];    /* each round's moves/s */
    double rtt_med[MAX_ROUNDS]; /* each round's median move round trip, ms */
    int rounds;
} moves_acc;

static double pg_cluster_cpu_begin(void);
static double pg_cluster_cpu_end(void);
static bool kill_at_end; /* durability_check's load: SIGKILL, not a drain */

/* One round: games games on the server at port (pid, for its CPU time)
 * for seconds; its moves, time, CPU and round trips are added to *acc.
 * On several nodes (qirkatd on one PostgreSQL), client i connects to
 * node i % nodes, so the two players of a game (clients 2k, 2k+1) are on
 * different nodes; the CPU is that of all nodes. */
static void move_load_nodes(const pid_t *pids, const int *ports, int nodes, int games,
                            bool baseline, double seconds, moves_acc *acc)
{
    static int round;
    memset(C, 0, sizeof C);
    NC = games * 2;
    baseline_mode = baseline;
    nrtt = 0;
    moves_done = 0;
    round++;
    for (int i = 0; i < NC; i++) {
        client *c = &C[i];
        c->idx = i;
        c->color = -1;
        snprintf(c->name, sizeof c->name, "r%dc%04d", round, i);
        c->fd = connect_to(ports[i % nodes]);
        /* The baseline pairs connections as they arrive and tells each
         * its game and colour. */
        if (!baseline)
            send_register(c);
    }
    if (!baseline) {
        reg_internal = 0;
        loop_until(now_ms() + 60000, all_registered);
        if (!all_registered())
            die("registration did not finish");
        if (reg_internal)
            fprintf(stderr, "bench-ratios: %lld registrations answered internal, sent again\n",
                    reg_internal);
    }
    /* Set-up, not timed: every game is started before the clock starts
     * (qirkatd: challenge and accept; the baselines pair connections as
     * they arrive), so both servers are timed over moves and the
     * restarts of games that end in the window, made the same way. */
    accepting = true;
    if (!baseline)
        for (int i = 0; i < NC; i += 2)
            challenge(&C[i]);
    loop_until(now_ms() + 60000, all_in_game);
    if (!all_in_game())
        die("the games did not start");
    playing = true;
    double t0 = now_ms(), cpu0 = 0, pg0 = pg_cluster_cpu_begin();
    for (int k = 0; k < nodes; k++) {
        double t = cpu_ms(pids[k]);
        cpu0 = cpu0 < 0 || t < 0 ? -1 : cpu0 + t;
    }
    for (int i = 0; i < NC; i++)
        maybe_move(&C[i]);
    loop_until(t0 + seconds * 1000, cap_reached);
    if (kill_at_end) { /* the kill -9 check: in the middle of the load */
        for (int k = 0; k < nodes; k++) {
            kill(pids[k], SIGKILL);
            waitpid(pids[k], NULL, 0);
        }
        playing = accepting = false;
        for (int i = 0; i < NC; i++) {
            close(C[i].fd);
            free(C[i].buf);
        }
        return;
    }
    playing = accepting = false;
    double elapsed = (now_ms() - t0) / 1000, cpu = -cpu0;
    for (int k = 0; k < nodes; k++)
        cpu += cpu_ms(pids[k]);
    double pg = pg0 >= 0 ? pg_cluster_cpu_end() : -1;
    loop_until(now_ms() + 5000, none_in_flight);
    for (int i = 0; i < NC; i++) {
        close(C[i].fd);
        free(C[i].buf);
    }
    acc->moves += (double)moves_done;
    acc->seconds += elapsed;
    acc->cpu_ms = cpu0 >= 0 && acc->cpu_ms >= 0 ? acc->cpu_ms + cpu : -1;
    acc->pg_cpu_ms = pg >= 0 && acc->pg_cpu_ms >= 0 ? acc->pg_cpu_ms + pg : -1;
    if (acc->rounds < MAX_ROUNDS) {
        qsort(rtt, nrtt, sizeof *rtt, cmp_double);
        acc->rtt_med[acc->rounds] = nrtt ? rtt[nrtt / 2] : 0;
        acc->rate[acc->rounds++] = (double)moves_done / elapsed;
    }
    if (acc->n + nrtt > acc->cap) {
        acc->cap = (acc->n + nrtt) * 2;
        acc->rtt = realloc(acc->rtt, acc->cap * sizeof *acc->rtt);
        if (!acc->rtt)
            die("out of memory");
    }
    memcpy(acc->rtt + acc->n, rtt, nrtt * sizeof *rtt);
    acc->n += nrtt;
}

static void move_load(pid_t pid, int port, int games, bool baseline, double seconds, moves_acc *acc)
{
    move_load_nodes(&pid, &port, 1, games, baseline, seconds, acc);
}

/* The figures of all rounds of one server at one size, printed on stderr
 * with the server's CPU per move (less sensitive to a busy machine than
 * moves/s, which also depends on how much of the cores the load generator
 * and the neighbours get). Frees acc's round trips. */
static moves_result moves_of(moves_acc *acc, const char *what, int games)
{
    if (acc->n == 0 || acc->moves == 0)
        die("no move was played");
    qsort(acc->rtt, acc->n, sizeof *acc->rtt, cmp_double);
    moves_result r = {acc->moves / acc->seconds, acc->rtt[acc->n / 2],
                      acc->rtt[(size_t)((double)acc->n * 0.99)]};
    char pg[64] = "";
    if (acc->pg_cpu_ms > 0)
        snprintf(pg, sizeof pg, ", PostgreSQL CPU %.1f us/move",
                 acc->pg_cpu_ms * 1000.0 / acc->moves);
    fprintf(stderr,
            "bench-ratios: %s %d games: %.0f moves/s, round trip median %.3f ms p99 %.3f ms, "
            "server CPU %.1f us/move%s\n",
            what, games, r.per_s, r.rtt_median, r.rtt_p99,
            acc->cpu_ms >= 0 ? acc->cpu_ms * 1000.0 / acc->moves : -1.0, pg);
    free(acc->rtt);
    *acc = (moves_acc){0};
    return r;
}

static double median_of(double *v, int n, double *lo, double *hi);

/* The baseline and qirkatd at games games, in rounds rounds of seconds
 * each per server, alternating which goes first (ABBA: a drift of the
 * machine's speed within a pair of rounds lands on both sides), as the
 * ping load does: the machine is shared, and its speed drifts over
 * seconds. Prints `ratio durable_moves_N` and, with with_rtt, `ratio
 * move_rtt_N`: the median of the rounds' ratios (round k of qirkatd over
 * round k of the baseline) and their range. */
static void moves_ratios(pid_t bpid, int bport, pid_t qpid, int qport, int games, int rounds,
                         double seconds, bool with_rtt)
{
    moves_acc ba = {0}, qa = {0};
    for (int k = 0; k < rounds; k++) {
        if (k % 2 == 0)
            move_load(bpid, bport, games, true, seconds, &ba);
        move_load(qpid, qport, games, false, seconds, &qa);
        if (k % 2 == 1)
            move_load(bpid, bport, games, true, seconds, &ba);
    }
    double r[MAX_ROUNDS], t[MAX_ROUNDS], lo, hi, med;
    char each[MAX_ROUNDS * 8] = "";
    for (int k = 0; k < rounds; k++) {
        r[k] = qa.rate[k] / ba.rate[k];
        t[k] = ba.rtt_med[k] > 0 ? qa.rtt_med[k] / ba.rtt_med[k] : 0;
        snprintf(each + strlen(each), sizeof each - strlen(each), "%s%.3f", k ? " " : "", r[k]);
    }
    moves_of(&ba, "baseline", games);
    moves_of(&qa, "qirkatd", games);
    fprintf(stderr, "bench-ratios: durable_moves_%d rounds: %s\n", games, each);
    med = median_of(r, rounds, &lo, &hi);
    printf("ratio durable_moves_%d %.3f (%.3f-%.3f, %d rounds of %.0f s)\n", games, med, lo, hi,
           rounds, seconds);
    if (with_rtt) {
        med = median_of(t, rounds, &lo, &hi);
        printf("ratio move_rtt_%d %.3f (%.3f-%.3f, %d rounds)\n", games, med, lo, hi, rounds);
    }
    fflush(stdout);
}

/* The durability of both servers, checked the same way: a load of 50
 * games for seconds, then SIGKILL in the middle of it; every move
 * acknowledged before the kill must be in the database file, read back
 * with SQLite after the process is gone (its write-ahead log recovered
 * by the open). This is what "durable" means in both servers' figures:
 * an acknowledgement only after the move's commit is in the file (the
 * baseline: synchronous=FULL, its COMMIT in the loop before the answers;
 * qirkatd: its batch's commit, then the writer thread's fdatasync, then
 * the answers). A kill -9 does not lose the page cache, so this checks
 * the order of acknowledgement and commit, not the fsync; both fsync
 * their log before answering (docs/perf.md "The harness"). Prints
 * `durability_kill9 SERVER N acknowledged, N stored`; a missing move is
 * an error. */
static void durability_check(bool baseline, double seconds)
{
    char db[256];
    int port;
    pid_t pid;
    snprintf(db, sizeof db, "%s/kill9-%s.db", tmpdir, baseline ? "baseline" : "qirkatd");
    if (baseline) {
        snprintf(base_db, sizeof base_db, "%s", db);
        port = spawn(baseline_main, &pid);
        base_db[0] = '\0';
    } else {
        pid = start_qirkatd_on(db, &port);
    }
    moves_acc acc = {0};
    acks.n = 0;
    acks.on = kill_at_end = true;
    move_load(pid, port, 50, baseline, seconds, &acc);
    acks.on = kill_at_end = false;
    free(acc.rtt);
    sqlite3 *d;
    sqlite3_stmt *q;
    const char *sql = baseline ? "SELECT count(*) FROM moves WHERE game = ? AND ply = ?"
                               : "SELECT count(*) FROM moves WHERE game_id = ? AND ply = ?";
    if (sqlite3_open(db, &d) != SQLITE_OK)
        die("kill -9 check: cannot read %s", db);
    /* The baseline's table has no key (a plain append, its least work), so
     * each look-up scanned it: with 91,271 acknowledged moves a run spent
     * over 6 minutes here. An index made after the kill costs the check
     * only. */
    if (baseline && sqlite3_exec(d, "CREATE INDEX IF NOT EXISTS kill9_moves ON moves (game, ply)",
                                 NULL, NULL, NULL) != SQLITE_OK)
        die("kill -9 check: cannot index %s: %s", db, sqlite3_errmsg(d));
    if (sqlite3_prepare_v2(d, sql, -1, &q, NULL) != SQLITE_OK)
        die("kill -9 check: cannot read %s", db);
    size_t stored = 0;
    for (size_t i = 0; i < acks.n; i++) {
        sqlite3_bind_int64(q, 1, acks.key[i][0]);
        sqlite3_bind_int64(q, 2, acks.key[i][1]);
        if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int64(q, 0) == 1)
            stored++;
        else if (acks.n - stored < 5)
            fprintf(stderr, "bench-ratios: %s lost game %lld ply %lld\n",
                    baseline ? "baseline" : "qirkatd", acks.key[i][0], acks.key[i][1]);
        sqlite3_reset(q);
    }
    sqlite3_finalize(q);
    sqlite3_close(d);
    printf("durability_kill9 %s %zu acknowledged, %zu stored\n", baseline ? "baseline" : "qirkatd",
           acks.n, stored);
    fflush(stdout);
    if (acks.n == 0 || stored != acks.n)
        errors++;
}

/* ---- counts per move: the regression guard ----------------------------
 *
 * Timings drift with the machine; counts do not. cost_count runs each
 * server under a counting wrapper on a fixed load: one game at a time
 * (two clients, the bench's fixed random seed, so the same moves and the
 * same restarts every run), each move answered before the next is sent,
 * stopped after n moves. It runs the load twice, n1 and n2 moves, on a
 * fresh server and database each, and takes the difference: start-up,
 * registration and shutdown cancel out, what is left is per move.
 *   instructions: valgrind --tool=cachegrind --cache-sim=no, its
 *                 "summary:" line (every thread of the process);
 *   syscalls:     strace -f -c, its "total" line.
 * Prints `cost instructions_per_move SERVER X` and `cost syscalls_per_move
 * SERVER X` for the baseline and qirkatd, and their ratios. With
 * BENCH_COST_FILE (bench/cost.txt: a line `instructions_per_move N`) only
 * qirkatd's instructions are counted, and over N x 1.15 they are an error
 * (exit 1): the CI-safe guard of `make cost-guard`, which `make test` runs.
 * Two runs of the same build differ by under 0.5%; the count is the
 * machine's compiler and libraries' (Debian 12 here and in CI). */

static int env_int(const char *name, int def, int lo, int hi);

static char self_exe[512]; /* this program, for a baseline under a wrapper */

/* A minimal server as a process of its own (this program with
 * --serve-baseline or --serve-idle), so a wrapper can count it alone and
 * its memory starts from a fresh heap (a forked child shares the bench's
 * resident pages: its first blocks cost no RSS). */
static pid_t start_self_exec(const char *mode, int *port)
{
    if (!self_exe[0] && readlink("/proc/self/exe", self_exe, sizeof self_exe - 1) <= 0)
        die("readlink /proc/self/exe");
    char buf[32];
    const char *tail[] = {self_exe, mode, "", base_db, NULL};
    pid_t pid = exec_ready(tail, 2, false, buf, sizeof buf, mode);
    *port = atoi(buf);
    return pid;
}

/* The number a wrapper's output file gives: cachegrind's "summary: N",
 * or the calls column of strace -c's "total" line; -1 if none. */
static double wrapped_count(const char *file, bool strace)
{
    FILE *f = fopen(file, "r");
    char line[512];
    double v = -1;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f)) {
        double x, y, z;
        long long calls;
        if (!strace && sscanf(line, "summary: %lf", &x) == 1)
            v = x;
        /* "100.00    0.012345         3      4321       12 total" */
        if (strace && strstr(line, " total") &&
            (sscanf(line, "%lf %lf %lf %lld", &x, &y, &z, &calls) == 4 ||
             sscanf(line, "%lf %lf %lld", &x, &y, &calls) == 3))
            v = (double)calls;
    }
    fclose(f);
    return v;
}

/* Whether every thread of pid is traced (TracerPid in each task's status). */
static bool all_traced(pid_t pid)
{
    char path[64], line[128];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    if (!d)
        return false;
    struct dirent *e;
    bool all = true;
    while (all && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char st[600];
        snprintf(st, sizeof st, "%s/%s/status", path, e->d_name);
        FILE *f = fopen(st, "r");
        int tracer = 0;
        while (f && fgets(line, sizeof line, f))
            if (sscanf(line, "TracerPid: %d", &tracer) == 1)
                break;
        if (f)
            fclose(f);
        all = tracer != 0;
    }
    closedir(d);
    return all;
}

/* strace -f -c attached to the running server pid (every thread), its
 * table to out; returns once every thread is traced. Attached rather than
 * in front of the command line: a server started by strace is strace's
 * child, and a SIGTERM to strace does not stop it. */
static pid_t attach_strace(pid_t pid, const char *out)
{
    char pidarg[16];
    snprintf(pidarg, sizeof pidarg, "%d", (int)pid);
    fflush(NULL);
    pid_t t = fork();
    if (t < 0)
        die("fork");
    if (t == 0) {
        execlp("strace", "strace", "-q", "-f", "-c", "-o", out, "-p", pidarg, (char *)NULL);
        _exit(127);
    }
    double until = now_ms() + 10000;
    while (!all_traced(pid))
        if (now_ms() > until)
            die("strace did not attach to %d", (int)pid);
        else
            usleep(10000);
    return t;
}

/* One counted run: server (baseline or qirkatd) on a fresh database under
 * the wrapper, n moves; the count of its output file. */
static double count_run(bool baseline, bool strace, long long n, int run)
{
    char out[320], arg[400], db[256];
    char log[340];
    snprintf(out, sizeof out, "%s/count-%s-%d.out", tmpdir, baseline ? "base" : "qk", run);
    snprintf(log, sizeof log, "--log-file=%s.log", out);
    if (!strace) {
        /* BENCH_COUNT_TOOL=callgrind: the same count, with a profile to
         * read (BENCH_COUNT_KEEP; callgrind_annotate) */
        bool cg = getenv("BENCH_COUNT_TOOL") && !strcmp(getenv("BENCH_COUNT_TOOL"), "callgrind");
        snprintf(arg, sizeof arg, "--%s-out-file=%s", cg ? "callgrind" : "cachegrind", out);
        wrap[0] = "valgrind", wrap[1] = cg ? "--tool=callgrind" : "--tool=cachegrind";
        wrap[2] = cg ? "--dump-instr=no" : "--cache-sim=no";
        wrap[3] = log, wrap[4] = arg, wrap[5] = NULL;
    }
    snprintf(db, sizeof db, "%s/count-%s-%d.db", tmpdir, baseline ? "base" : "qk", run);
    int port;
    pid_t pid;
    if (baseline) {
        snprintf(base_db, sizeof base_db, "%s", db);
        pid = start_self_exec("--serve-baseline", &port);
        base_db[0] = '\0';
    } else {
        pid = start_qirkatd_on(db, &port);
    }
    wrap[0] = NULL;
    pid_t tracer = strace ? attach_strace(pid, out) : 0;
    moves_acc acc = {0};
    rng = 0x9E3779B97F4A7C15ull; /* the same moves every run */
    move_cap = n;
    move_load(pid, port, 1, baseline, 600, &acc);
    move_cap = 0;
    stop(pid, baseline ? "baseline" : "qirkatd");
    if (tracer > 0)
        waitpid(tracer, NULL, 0); /* it writes its table when the server is gone */
    free(acc.rtt);
    if ((long long)acc.moves != n)
        die("count: %.0f moves of %lld", acc.moves, n);
    double v = wrapped_count(out, strace);
    if (v < 0)
        die("count: no figure in %s", out);
    const char *keep = getenv("BENCH_COUNT_KEEP"); /* a directory: the outputs kept there */
    if (keep && *keep) {
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "cp '%s' '%s'/", out, keep);
        if (system(cmd) != 0)
            fprintf(stderr, "bench-ratios: cannot copy %s to %s\n", out, keep);
    }
    return v;
}

static void cost_count(void)
{
    long long n1 = env_int("BENCH_COUNT_N1", 200, 10, 100000);
    long long n2 = env_int("BENCH_COUNT_N2", 600, 20, 100000);
    double per[2][2] = {{0}}; /* [strace][baseline] */
    int run = 0;
    const char *file = getenv("BENCH_COST_FILE");
    for (int st = 0; st < (file ? 1 : 2); st++) /* the guard: qirkatd's instructions only */
        for (int b = 0; b < (file ? 1 : 2); b++) {
            double c1 = count_run(b, st, n1, run++), c2 = count_run(b, st, n2, run++);
            per[st][b] = (c2 - c1) / (double)(n2 - n1);
            fprintf(stderr, "bench-ratios: %s %s: %.0f at %lld moves, %.0f at %lld\n",
                    b ? "baseline" : "qirkatd", st ? "syscalls" : "instructions", c1, n1, c2, n2);
        }
    if (!file) {
        printf("cost instructions_per_move qirkatd %.0f baseline %.0f ratio %.2f\n", per[0][0],
               per[0][1], per[0][0] / per[0][1]);
        printf("cost syscalls_per_move qirkatd %.2f baseline %.2f ratio %.2f\n", per[1][0],
               per[1][1], per[1][0] / per[1][1]);
        fflush(stdout);
        return;
    }
    FILE *f = fopen(file, "r");
    char line[256];
    double committed = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "instructions_per_move %lf", &committed) == 1)
            break;
    if (f)
        fclose(f);
    if (committed <= 0)
        die("%s: no line `instructions_per_move N`", file);
    if (per[0][0] > committed * 1.15) {
        printf("cost guard: qirkatd %.0f instructions per move, over %s's %.0f by %.1f%% (limit "
               "15%%)\n",
               per[0][0], file, committed, (per[0][0] / committed - 1) * 100);
        errors++;
    } else {
        printf("cost guard: qirkatd %.0f instructions per move, %s %.0f (%+.1f%%, limit +15%%)\n",
               per[0][0], file, committed, (per[0][0] / committed - 1) * 100);
    }
}

/* ---- ping ------------------------------------------------------------- */

/* One round of the ping load: the round trips (ms) are appended to
 * *t (realloc'd; *cnt of *cap used). */
static void ping_round(int port, bool qk, double seconds, const char *what, double **t_,
                       size_t *cnt_, size_t *cap_)
{
    int n = 8;
    const char *e = getenv("BENCH_PING_CONNS");
    if (e && atoi(e) > 0 && atoi(e) <= 64)
        n = atoi(e);
    struct pollfd pf[64];
    double sent[64];
    size_t cap = *cap_, cnt = *cnt_;
    double *t = *t_;
    if (!t)
        t = malloc((cap = 1 << 16) * sizeof *t);
    static const char ping[] = "{\"type\":\"ping\",\"id\":\"p\"}\n";
    char buf[4096];
    for (int i = 0; i < n; i++) {
        pf[i] = (struct pollfd){.fd = connect_to(port), .events = POLLIN};
        if (qk) { /* hello first, as a client does */
            static const char hello[] = "{\"type\":\"hello\",\"id\":\"h\",\"version\":1}\n";
            send_all(pf[i].fd, hello, sizeof hello - 1);
            ssize_t r = 0;
            while (r <= 0 || !memchr(buf, '\n', (size_t)r))
                if ((r = recv(pf[i].fd, buf, sizeof buf, 0)) <= 0)
                    die("hello: no answer");
        }
        sent[i] = now_ms();
        send_all(pf[i].fd, ping, sizeof ping - 1);
    }
    double end = now_ms() + seconds * 1000;
    while (now_ms() < end) {
        int k = poll(pf, (nfds_t)n, 100);
        for (int i = 0; i < n && k > 0; i++) {
            if (!pf[i].revents)
                continue;
            k--;
            ssize_t r = recv(pf[i].fd, buf, sizeof buf, 0);
            if (r <= 0)
                die("%s closed a ping connection", what);
            /* One ping in flight: an answer is one line (a heartbeat's
             * empty line would be one too, but none comes in seconds). */
            if (buf[r - 1] != '\n')
                continue;
            if (cnt == cap)
                t = realloc(t, (cap *= 2) * sizeof *t);
            t[cnt++] = now_ms() - sent[i];
            sent[i] = now_ms();
            send_all(pf[i].fd, ping, sizeof ping - 1);
        }
    }
    for (int i = 0; i < n; i++)
        close(pf[i].fd);
    if (cnt == *cnt_)
        die("%s answered no ping", what);
    *t_ = t;
    *cnt_ = cnt;
    *cap_ = cap;
}

/* The p99 (ms) of n samples, logged under what; frees t. */
static double p99_of(double *t, size_t cnt, const char *what)
{
    qsort(t, cnt, sizeof *t, cmp_double);
    double p99 = t[(size_t)(cnt * 0.99)];
    fprintf(stderr, "bench-ratios: %s ping: %zu round trips, median %.3f ms p99 %.3f ms\n", what,
            cnt, t[cnt / 2], p99);
    free(t);
    return p99;
}

/* ---- idle connections -------------------------------------------------- */

static long rss_bytes(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    long kb = -1;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
            break;
    fclose(f);
    return kb * 1024;
}

/* Open count connections in batches, each says hello and waits for its
 * answer; returns the RSS growth per connection (bytes). */
static long idle_conns(pid_t pid, int port, int count, const char *what)
{
    int *fds = malloc((size_t)count * sizeof *fds);
    static const char hello[] = "{\"type\":\"hello\",\"id\":\"h\",\"version\":1}\n";
    char buf[4096];
    /* A first few connections so one-time costs (buffers, pages of the
     * allocator's arenas) are in the "before" figure. They stay open
     * until the end: closed, they would leave their blocks free for the
     * first measured connections to reuse, which would hide those. */
    enum { warm = 100 };
    int warm_fds[warm];
    for (int i = 0; i < warm; i++) {
        warm_fds[i] = connect_to(port);
        send_all(warm_fds[i], hello, sizeof hello - 1);
    }
    for (int i = 0; i < warm; i++)
        if (recv(warm_fds[i], buf, sizeof buf, 0) <= 0)
            die("idle: no hello answer");
    usleep(200000);
    long before = rss_bytes(pid);
    const int batch = 250;
    for (int done = 0; done < count; done += batch) {
        int n = count - done < batch ? count - done : batch;
        for (int i = done; i < done + n; i++) {
            fds[i] = connect_to(port);
            send_all(fds[i], hello, sizeof hello - 1);
        }
        for (int i = done; i < done + n; i++) {
            struct pollfd pf = {.fd = fds[i], .events = POLLIN};
            if (poll(&pf, 1, 10000) != 1 || recv(fds[i], buf, sizeof buf, 0) <= 0)
                die("idle: connection %d got no hello answer", i);
        }
    }
    usleep(200000);
    long after = rss_bytes(pid);
    /* Every connection still open (none refused or closed by the server;
     * a heartbeat's empty line may be waiting on a slow run). */
    int open_ = 0;
    for (int i = 0; i < count; i++) {
        ssize_t r;
        while ((r = recv(fds[i], buf, sizeof buf, MSG_DONTWAIT)) > 0)
            ;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            open_++;
    }
    for (int i = 0; i < count; i++)
        close(fds[i]);
    for (int i = 0; i < warm; i++)
        close(warm_fds[i]);
    free(fds);
    fprintf(stderr, "bench-ratios: %s %d idle connections (%d held): RSS %ld -> %ld kB\n", what,
            count, open_, before / 1024, after / 1024);
    if (open_ != count)
        die("%s did not hold %d connections", what, count);
    return (after - before) / count;
}

/* A WebSocket connection to qirkatd --http at port, upgraded on /ws
 * (RFC 6455 section 4.1, a fixed key: the answer is not checked beyond
 * its status), its `hello` sent as one masked text frame (section 5.2)
 * and answered; the socket. */
static int ws_hello(int port)
{
    static const char head[] =
        "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n";
    static const char hello[] = "{\"type\":\"hello\",\"id\":\"h\",\"version\":1}";
    int fd = connect_to(port);
    send_all(fd, head, sizeof head - 1);
    char buf[4096];
    size_t len = 0;
    buf[0] = '\0';
    while (!strstr(buf, "\r\n\r\n")) { /* the head has no NUL; the 101 has no body */
        ssize_t r = recv(fd, buf + len, sizeof buf - 1 - len, 0);
        if (r <= 0 || (len += (size_t)r) == sizeof buf - 1)
            die("WebSocket: no upgrade answer");
        buf[len] = '\0';
    }
    if (len < 12 || memcmp(buf, "HTTP/1.1 101", 12) != 0)
        die("WebSocket: upgrade refused: %.40s", buf);
    unsigned char frame[128];
    size_t n = sizeof hello - 1;
    const unsigned char mask[4] = {0x12, 0x34, 0x56, 0x78};
    frame[0] = 0x81; /* FIN, text */
    frame[1] = (unsigned char)(0x80 | n);
    memcpy(frame + 2, mask, 4);
    for (size_t i = 0; i < n; i++)
        frame[6 + i] = (unsigned char)hello[i] ^ mask[i % 4];
    send_all(fd, (const char *)frame, 6 + n);
    struct pollfd pf = {.fd = fd, .events = POLLIN};
    if (poll(&pf, 1, 10000) != 1 || recv(fd, buf, sizeof buf, 0) <= 0)
        die("WebSocket: no hello answer");
    return fd;
}

/* RSS growth per WebSocket connection of qirkatd (pid) at http_port, as
 * idle_conns does for TCP: 100 first, then count, each after its hello's
 * answer; all must stay open. */
static long idle_ws_conns(pid_t pid, int http_port, int count)
{
    enum { warm = 100 };
    int warm_fds[warm], *fds = malloc((size_t)count * sizeof *fds);
    for (int i = 0; i < warm; i++)
        warm_fds[i] = ws_hello(http_port);
    usleep(200000);
    long before = rss_bytes(pid);
    for (int i = 0; i < count; i++)
        fds[i] = ws_hello(http_port);
    usleep(200000);
    long after = rss_bytes(pid);
    int open_ = 0;
    char buf[4096];
    for (int i = 0; i < count; i++) {
        ssize_t r;
        while ((r = recv(fds[i], buf, sizeof buf, MSG_DONTWAIT)) > 0)
            ;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            open_++;
        close(fds[i]);
    }
    for (int i = 0; i < warm; i++)
        close(warm_fds[i]);
    free(fds);
    fprintf(stderr,
            "bench-ratios: qirkatd %d idle WebSocket connections (%d held): RSS %ld -> %ld kB\n",
            count, open_, before / 1024, after / 1024);
    if (open_ != count)
        die("qirkatd did not hold %d WebSocket connections", count);
    return (after - before) / count;
}

/* ---- PostgreSQL: the cluster, fresh databases, the figures -------------
 *
 * With PostgreSQL installed (tests/pg/cluster.sh bindir), the bench starts
 * a throwaway cluster of its own (tests/pg/cluster.sh start DIR: initdb,
 * a free loopback port, fsync and synchronous_commit on) and stops it at
 * exit, also after a failure or a signal. BENCH_PG_URL names an existing
 * cluster instead (a role that may CREATE DATABASE; nothing is dropped):
 * for a profile with settings of one's own (pg_stat_statements, logging).
 * Every server gets a database of its own, made here (CREATE DATABASE
 * qkb_PID_N), so each run starts from an empty one.
 *
 *   ratio durable_moves_pg_50 X (A-B, N rounds)
 *       qirkatd on PostgreSQL moves/s / the libpq baseline's, 50 games,
 *       BENCH_PG_ROUNDS rounds (default 5) alternating the two, sharing
 *       BENCH_PG_SECONDS (default 10) per server; X the median of the
 *       rounds' ratios, A-B their range
 *   pg_nodes_N X moves/s (A-B, R runs)   N = 1, 2, 3 qirkatd nodes on one
 *       database, BENCH_PG_NODE_GAMES games (default 50) spread over them,
 *       BENCH_PG_NODE_SECONDS (default 3) per run; R runs (BENCH_PG_RUNS,
 *       default 3), each of 1, 2 and 3 nodes in turn, each on a fresh
 *       database with fresh nodes; X the median, A-B the range
 *   ratio pg_nodes_2_1 X / ratio pg_nodes_3_1 X   the medians' ratios
 *
 * The cluster's CPU (the postmaster and every child: backends, WAL
 * writer, checkpointer, autovacuum) is read from /proc around each round
 * and printed per move beside the server's. */

static char pg_dir[64];     /* the cluster's directory; "" if none started */
static char pg_url[1024];   /* the cluster (its database "qirkat") */
static pid_t pg_owner;      /* the process that started it */
static pid_t pg_postmaster; /* 0: unknown (BENCH_PG_URL) */
static char pg_script[] = "tests/pg/cluster.sh";

/* Stop and remove the cluster: fork and exec only, so it may run in a
 * signal handler; only in the process that started it (forked servers
 * that die() run the atexit handlers too). */
static void pg_cluster_stop(void)
{
    if (!pg_dir[0] || getpid() != pg_owner)
        return;
    pid_t p = fork();
    if (p == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0)
            dup2(devnull, 1);
        execlp("sh", "sh", pg_script, "stop", pg_dir, (char *)NULL);
        _exit(127);
    }
    if (p > 0)
        while (waitpid(p, NULL, 0) < 0 && errno == EINTR)
            ;
    pg_dir[0] = '\0';
}

static void pg_on_signal(int sig)
{
    pg_cluster_stop();
    signal(sig, SIG_DFL);
    raise(sig);
}

static bool pg_installed(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "sh %s bindir >/dev/null 2>&1", pg_script);
    return access(pg_script, R_OK) == 0 && system(cmd) == 0;
}

/* Start the cluster (or take BENCH_PG_URL); false when there is none. */
static bool pg_cluster_start(void)
{
    const char *given = getenv("BENCH_PG_URL");
    if (given && *given) {
        snprintf(pg_url, sizeof pg_url, "%s", given);
        return true;
    }
    if (!pg_installed()) {
        fprintf(stderr, "bench-ratios: PostgreSQL figures skipped: no PostgreSQL "
                        "(tests/pg/cluster.sh bindir; make deps installs it)\n");
        return false;
    }
    /* Its own directory under /tmp, not inside tmpdir: as root the server
     * runs as postgres, who must reach it. */
    snprintf(pg_dir, sizeof pg_dir, "/tmp/qk-ratios-pg-XXXXXX");
    if (!mkdtemp(pg_dir))
        die("mkdtemp: %s", strerror(errno));
    pg_owner = getpid();
    atexit(pg_cluster_stop);
    signal(SIGINT, pg_on_signal);
    signal(SIGTERM, pg_on_signal);
    signal(SIGHUP, pg_on_signal);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "sh %s start %s", pg_script, pg_dir);
    fflush(NULL);
    FILE *f = popen(cmd, "r");
    if (!f || !fgets(pg_url, sizeof pg_url, f)) {
        if (f)
            pclose(f);
        die("cannot start a PostgreSQL cluster (%s)", cmd);
    }
    if (pclose(f) != 0)
        die("%s failed", cmd);
    pg_url[strcspn(pg_url, "\n")] = '\0';
    char pidfile[128];
    snprintf(pidfile, sizeof pidfile, "%s/data/postmaster.pid", pg_dir);
    FILE *pf = fopen(pidfile, "r");
    long pm = 0;
    if (pf) {
        if (fscanf(pf, "%ld", &pm) != 1)
            pm = 0;
        fclose(pf);
    }
    pg_postmaster = (pid_t)pm;
    fprintf(stderr, "bench-ratios: PostgreSQL cluster %s (%s)\n", pg_url, pg_dir);
    return true;
}

/* The cluster's URL with its database replaced by name (a libpq URI:
 * scheme://[userinfo@]host[:port][/dbname][?params]). */
static void pg_url_for(const char *name, char *out, size_t n)
{
    const char *p = strstr(pg_url, "://");
    p = p ? p + 3 : pg_url;
    size_t host_end = strcspn(p, "/?");
    const char *params = strchr(p + host_end, '?');
    snprintf(out, n, "%.*s/%s%s", (int)(p + host_end - pg_url), pg_url, name, params ? params : "");
}

/* A fresh database of the cluster; its URL in out. */
static void pg_fresh_db(char *out, size_t n)
{
    static int count;
    char name[64], sql[128];
    snprintf(name, sizeof name, "qkb_%ld_%d", (long)getpid(), ++count);
    PGconn *a = PQconnectdb(pg_url);
    if (PQstatus(a) != CONNECTION_OK)
        die("PostgreSQL %s: %s", pg_url, PQerrorMessage(a));
    snprintf(sql, sizeof sql, "CREATE DATABASE %s", name);
    PGresult *r = PQexec(a, sql);
    if (PQresultStatus(r) != PGRES_COMMAND_OK)
        die("%s: %s", sql, PQerrorMessage(a));
    PQclear(r);
    PQfinish(a);
    pg_url_for(name, out, n);
}

/* The cluster's CPU (ms) over a round: the postmaster and its children as
 * listed in /proc; a process that started during the round counts whole,
 * one that ended during it is lost. -1 without a known postmaster. */
#define PG_PROCS 256
static struct {
    pid_t pid;
    double ms;
} pg_procs[PG_PROCS];
static int pg_nprocs;

static int pg_children(pid_t *out, int max)
{
    int n = 0;
    out[n++] = pg_postmaster;
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d)) && n < max) {
        char path[300], buf[512];
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t k = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[k] = '\0';
        const char *p = strrchr(buf, ')');
        int ppid;
        if (p && sscanf(p + 2, "%*c %d", &ppid) == 1 && ppid == pg_postmaster)
            out[n++] = (pid_t)atoi(e->d_name);
    }
    if (d)
        closedir(d);
    return n;
}

static double pg_cluster_cpu_begin(void)
{
    if (!pg_postmaster)
        return -1;
    pid_t pids[PG_PROCS];
    pg_nprocs = pg_children(pids, PG_PROCS);
    for (int i = 0; i < pg_nprocs; i++) {
        pg_procs[i].pid = pids[i];
        pg_procs[i].ms = cpu_ms(pids[i]);
    }
    return 0;
}

static double pg_cluster_cpu_end(void)
{
    pid_t pids[PG_PROCS];
    int n = pg_children(pids, PG_PROCS);
    double sum = 0;
    for (int i = 0; i < n; i++) {
        double now = cpu_ms(pids[i]), before = 0;
        if (now < 0)
            continue;
        for (int j = 0; j < pg_nprocs; j++)
            if (pg_procs[j].pid == pids[i] && pg_procs[j].ms >= 0)
                before = pg_procs[j].ms;
        sum += now - before;
    }
    return sum;
}

static pid_t spawn_pgbase(int *port)
{
    static char url[1024];
    pid_t pid;
    pg_fresh_db(url, sizeof url);
    pgb_url = url;
    *port = spawn(pgbase_main, &pid);
    return pid;
}

/* qirkatd on a fresh database, in its steady state: a node counts as
 * alone (api/cluster.h "Alone": no events published, move writes not
 * waited for) only once no other node was heard in its first 15 s, and a
 * server of one node runs for days, not for the 10 s of these rounds. So
 * the rounds start after that window, which the first measured figures
 * missed (qirkatd measured in its start-up mode). */
static pid_t start_qirkatd_pg(int *port)
{
    char url[1024];
    pg_fresh_db(url, sizeof url);
    pid_t pid = start_qirkatd_on(url, port);
    sleep(16);
    return pid;
}

static int env_int(const char *name, int def, int lo, int hi)
{
    const char *e = getenv(name);
    return e && atoi(e) >= lo && atoi(e) <= hi ? atoi(e) : def;
}

static double env_seconds(const char *name, double def)
{
    const char *e = getenv(name);
    return e && atof(e) > 0 ? atof(e) : def;
}

static double median_of(double *v, int n, double *lo, double *hi)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    *lo = v[0];
    *hi = v[n - 1];
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ratio durable_moves_pg_50: the baseline and qirkatd on fresh databases
 * of the cluster, rounds alternating as moves_rounds does. */
static void pg_ratio(int games)
{
    int rounds = env_int("BENCH_PG_ROUNDS", 5, 1, MAX_ROUNDS);
    double seconds = env_seconds("BENCH_PG_SECONDS", 10);
    int bport, qport;
    pid_t bpid = spawn_pgbase(&bport);
    pid_t qpid = start_qirkatd_pg(&qport);
    moves_acc ba = {0}, qa = {0};
    for (int k = 0; k < rounds; k++) {
        move_load(bpid, bport, games, true, seconds / rounds, &ba);
        move_load(qpid, qport, games, false, seconds / rounds, &qa);
    }
    double r[MAX_ROUNDS], lo, hi;
    char each[MAX_ROUNDS * 8] = "";
    for (int k = 0; k < rounds; k++) {
        r[k] = qa.rate[k] / ba.rate[k];
        snprintf(each + strlen(each), sizeof each - strlen(each), "%s%.3f", k ? " " : "", r[k]);
    }
    moves_of(&ba, "pg baseline", games);
    moves_of(&qa, "qirkatd on PostgreSQL", games);
    stop(bpid, "pg baseline");
    stop(qpid, "qirkatd on PostgreSQL");
    fprintf(stderr, "bench-ratios: durable_moves_pg_%d rounds: %s\n", games, each);
    double med = median_of(r, rounds, &lo, &hi);
    printf("ratio durable_moves_pg_%d %.3f (%.3f-%.3f, %d rounds)\n", games, med, lo, hi, rounds);
    fflush(stdout);
}

/* One run of the scale curve: n nodes on a fresh database; moves/s. The
 * load starts once the nodes are past their first 15 s, as in
 * start_qirkatd_pg(): one node is then alone and several have heard each
 * other, each size in the mode it runs in for days (measured in start-up
 * mode, one node read 2,154-3,238 moves/s here while the ratio's node,
 * alone, read 4,703 in the same run). */
static double pg_nodes_run(int n, int games, double seconds)
{
    char url[1024];
    pid_t pids[3];
    int ports[3];
    pg_fresh_db(url, sizeof url);
    for (int k = 0; k < n; k++)
        pids[k] = start_qirkatd_on(url, &ports[k]);
    sleep(16);
    moves_acc acc = {0};
    move_load_nodes(pids, ports, n, games, false, seconds, &acc);
    double rate = acc.rate[0];
    char what[64];
    snprintf(what, sizeof what, "qirkatd, %d node%s on one PostgreSQL,", n, n > 1 ? "s" : "");
    moves_of(&acc, what, games);
    for (int k = 0; k < n; k++)
        stop(pids[k], "qirkatd node");
    return rate;
}

static void pg_nodes(void)
{
    int runs = env_int("BENCH_PG_RUNS", 3, 1, MAX_ROUNDS);
    int games = env_int("BENCH_PG_NODE_GAMES", 50, 1, MAX_CLIENTS / 2);
    double seconds = env_seconds("BENCH_PG_NODE_SECONDS", 3);
    double rate[3][MAX_ROUNDS], med[3], lo, hi;
    for (int r = 0; r < runs; r++)
        for (int n = 1; n <= 3; n++)
            rate[n - 1][r] = pg_nodes_run(n, games, seconds);
    double q21[MAX_ROUNDS], q31[MAX_ROUNDS];
    for (int r = 0; r < runs; r++) {
        q21[r] = rate[1][r] / rate[0][r];
        q31[r] = rate[2][r] / rate[0][r];
    }
    for (int n = 1; n <= 3; n++) {
        med[n - 1] = median_of(rate[n - 1], runs, &lo, &hi);
        printf("pg_nodes_%d %.0f moves/s (%.0f-%.0f, %d runs, %d games)\n", n, med[n - 1], lo, hi,
               runs, games);
    }
    median_of(q21, runs, &lo, &hi);
    printf("ratio pg_nodes_2_1 %.3f (runs %.3f-%.3f)\n", med[1] / med[0], lo, hi);
    median_of(q31, runs, &lo, &hi);
    printf("ratio pg_nodes_3_1 %.3f (runs %.3f-%.3f)\n", med[2] / med[0], lo, hi);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "--serve-baseline")) { /* start_self_exec */
        snprintf(base_db, sizeof base_db, "%s", argv[3]);
        baseline_main(atoi(argv[2]));
        return 0;
    }
    if (argc == 4 && !strcmp(argv[1], "--serve-idle")) {
        idle_main(atoi(argv[2]));
        return 0;
    }
    double seconds = 5;
    full_answer = getenv("BENCH_FULL_ANSWER") && strcmp(getenv("BENCH_FULL_ANSWER"), "1") == 0;
    const char *e = getenv("BENCH_SECONDS");
    if (e && atof(e) > 0)
        seconds = atof(e);
    int rounds = 5;
    e = getenv("BENCH_ROUNDS");
    if (e && atoi(e) > 0 && atoi(e) <= 20)
        rounds = atoi(e);
    int idle = 10000;
    e = getenv("BENCH_IDLE");
    if (e && atoi(e) > 0)
        idle = atoi(e);
    signal(SIGPIPE, SIG_IGN);
    const char *variant = getenv("BENCH_VARIANT") ? getenv("BENCH_VARIANT") : "alquerque";
    if (qk_variant_parse(variant, &V) != QK_OK)
        die("BENCH_VARIANT %s: no such variant", variant);
    /* The idle test needs a descriptor per connection on both sides. */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        if (rl.rlim_cur != RLIM_INFINITY && (long)rl.rlim_cur < idle + 200) {
            fprintf(stderr, "bench-ratios: RLIMIT_NOFILE %ld: %ld idle connections\n",
                    (long)rl.rlim_cur, (long)rl.rlim_cur - 200);
            idle = (int)rl.rlim_cur - 200;
        }
    }
    make_tmpdir();

    /* BENCH_ONLY=moves, ping or idle: one part; qkN (qk50, qk500): qirkatd
     * at N games alone (for a profile: QK_BIN names a wrapper running
     * valgrind); baseN: the baseline alone, the same way */
    const char *only = getenv("BENCH_ONLY");
    pid_t bpid, qpid, epid;
    int bport, qport;
    int alone = 0;
    if (only && (sscanf(only, "qk%d", &alone) == 1 || sscanf(only, "base%d", &alone) == 1) &&
        alone > 0 && alone <= MAX_CLIENTS / 2) {
        bool base = only[0] == 'b';
        pid_t pid;
        int port;
        if (base)
            port = spawn(baseline_main, &pid);
        else
            pid = start_qirkatd(&port);
        moves_acc acc = {0};
        move_load(pid, port, alone, base, seconds, &acc);
        moves_of(&acc, base ? "baseline" : "qirkatd", alone);
        stop(pid, base ? "baseline" : "qirkatd");
        goto done;
    }
    /* pgqkN, pgbaseN: the same on PostgreSQL (a cluster of the bench's,
     * or BENCH_PG_URL's). */
    if (only && (sscanf(only, "pgqk%d", &alone) == 1 || sscanf(only, "pgbase%d", &alone) == 1) &&
        alone > 0 && alone <= MAX_CLIENTS / 2) {
        bool base = only[2] == 'b';
        if (!pg_cluster_start())
            die("BENCH_ONLY=%s needs PostgreSQL", only);
        pid_t pid;
        int port;
        pid = base ? spawn_pgbase(&port) : start_qirkatd_pg(&port);
        moves_acc acc = {0};
        move_load(pid, port, alone, base, seconds, &acc);
        moves_of(&acc, base ? "pg baseline" : "qirkatd on PostgreSQL", alone);
        stop(pid, base ? "pg baseline" : "qirkatd on PostgreSQL");
        pg_cluster_stop();
        goto done;
    }
    bool pg_part =
        !only || !strcmp(only, "pg") || !strcmp(only, "pgratio") || !strcmp(only, "pgnodes");
    if (pg_part && only)
        goto pg;
    if (only && !strcmp(only, "count")) {
        cost_count();
        goto done;
    }
    if (!only || !strcmp(only, "durability")) {
        durability_check(true, 2);
        durability_check(false, 2);
    }
    if (only && strcmp(only, "moves"))
        goto ping;
    bport = spawn(baseline_main, &bpid);
    qpid = start_qirkatd(&qport);
    moves_ratios(bpid, bport, qpid, qport, 50, rounds, seconds, true);
    moves_ratios(bpid, bport, qpid, qport, 500, rounds, seconds, false);
    stop(bpid, "baseline");
    stop(qpid, "qirkatd");

ping:
    if (only && strcmp(only, "ping"))
        goto idle;
    int eport = spawn(echo_main, &epid);
    qpid = start_qirkatd(&qport);
    /* Interleaved rounds (ABBA), so a neighbour's burst of load lands on
     * both; the ratio of each round's p99s, their median and range. */
    double pr[MAX_ROUNDS], plo, phi, ping_s = env_seconds("BENCH_PING_SECONDS", 2);
    for (int round = 0; round < rounds; round++) {
        double *te = NULL, *tq = NULL, pe, pq;
        size_t ne = 0, ce = 0, nq = 0, cq = 0;
        if (round % 2 == 0)
            ping_round(eport, false, ping_s, "echo", &te, &ne, &ce);
        ping_round(qport, true, ping_s, "qirkatd", &tq, &nq, &cq);
        if (round % 2 == 1)
            ping_round(eport, false, ping_s, "echo", &te, &ne, &ce);
        pe = p99_of(te, ne, "echo");
        pq = p99_of(tq, nq, "qirkatd");
        pr[round] = pq / pe;
    }
    double pmed = median_of(pr, rounds, &plo, &phi);
    printf("ratio ping_p99 %.3f (%.3f-%.3f, %d rounds of %.0f s)\n", pmed, plo, phi, rounds,
           ping_s);
    fflush(stdout);
    stop(epid, "echo");
    stop(qpid, "qirkatd");

idle:
    if (only && strcmp(only, "idle"))
        goto pg;
    qpid = start_qirkatd(&qport);
    long per = idle_conns(qpid, qport, idle, "qirkatd");
    stop(qpid, "qirkatd");
    int iport;
    epid = start_self_exec("--serve-idle", &iport);
    long mper = idle_conns(epid, iport, idle, "minimal server");
    stop(epid, "minimal idle server");
    printf("ratio idle_conn_bytes %ld (minimal libuv server %ld: ratio %.2f)\n", per, mper,
           mper > 0 ? (double)per / (double)mper : 0.0);
    fflush(stdout);
    {
        int hport, nws = idle;
        http_port_out = &hport;
        qpid = start_qirkatd(&qport);
        long ws = idle_ws_conns(qpid, hport, nws);
        stop(qpid, "qirkatd");
        printf("idle_ws_conn_bytes %ld (%d WebSocket connections after hello)\n", ws, nws);
        fflush(stdout);
    }

pg:
    if (pg_part && pg_cluster_start()) {
        if (!only || strcmp(only, "pgnodes"))
            pg_ratio(50);
        if (!only || strcmp(only, "pgratio"))
            pg_nodes();
        pg_cluster_stop();
    }

done:
    remove_tmpdir();
    free(rtt);
    if (errors) {
        fprintf(stderr, "bench-ratios: %lld errors\n", errors);
        return 1;
    }
    return 0;
}
