/*
 * bench-ratios: qirkatd against minimal servers, measured in the same run
 * (issue 16). The machine is shared and noisy, so every figure is a ratio
 * of two measurements taken one after the other, never an absolute time.
 * Prints one line per figure:
 *
 *   ratio durable_moves_50 X    qirkatd moves/s / baseline moves/s, 50 games
 *   ratio durable_moves_500 X   the same with 500 games in flight
 *   ratio move_rtt_50 X         qirkatd move round trip median / baseline's, 50 games
 *   ratio ping_p99 X            qirkatd `ping` p99 / raw libuv echo p99
 *   ratio idle_conn_bytes N     qirkatd VmRSS delta / connections, 10,000 after `hello`
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
 * move event. It checks nothing: the clients apply moves to their own
 * positions with the rules module, so they still play random legal moves,
 * and both sides restart from the start position when a game ends.
 *
 * The echo server (forked child): libuv, writes back what it reads.
 * The ping load: BENCH_PING_CONNS connections (default 8), one `ping` in
 * flight on each, in four rounds alternating echo and qirkatd.
 *
 * qirkatd is started like bench-server (fresh database, --pwhash min), with
 * QK_RATE_LIMIT=off, QK_CHALLENGE_RATE=off, QK_MAX_CONNS and QK_MAX_CONNS_PER_ADDRESS raised for
 * the 1,000 clients and 10,000 idle connections (docs/design.md names the
 * caps), and RLIMIT_NOFILE raised to its hard limit (inherited).
 *
 * The clients ask for the compact move answer ("compact": true, as a bot
 * would: docs/protocol.md `move`); the baseline ignores the field.
 *
 * Environment: QK_BIN (binaries, default build/), BENCH_SECONDS (per
 * measurement, default 4: the move loads split it into BENCH_ROUNDS
 * rounds, default 3, alternating baseline and qirkatd), BENCH_IDLE (idle connections, default 10000;
 * fewer if the hard RLIMIT_NOFILE is lower), BENCH_FULL_ANSWER=1 (moves
 * without "compact": the whole game object in every answer). Exit status 0, or 1 if anything
 * went wrong (a failed figure prints nothing).
 */
#include <errno.h>
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
#include <sqlite3.h>
#include <uv.h>

#include "qk_rules.h"

#define MAX_CLIENTS 1000
#define GAME_PLY_CAP 200 /* baseline games restart after this many plies */

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

static void make_tmpdir(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/qk-ratios-XXXXXX");
    if (!mkdtemp(tmpdir))
        die("mkdtemp: %s", strerror(errno));
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

static void stop(pid_t pid, const char *what)
{
    int st = 0;
    kill(pid, SIGTERM);
    waitpid(pid, &st, 0);
    if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0) && !(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM))
        fprintf(stderr, "bench-ratios: %s exited with status %#x\n", what, st), errors++;
}

static pid_t start_qirkatd(int *port)
{
    const char *bin = getenv("QK_BIN");
    char path[256], db[128], fdarg[16];
    snprintf(path, sizeof path, "%s/qirkatd", bin && *bin ? bin : "build");
    snprintf(db, sizeof db, "%s/qk-%ld.db", tmpdir, (long)now_ms());
    int p[2];
    if (pipe(p) != 0)
        die("pipe");
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        die("fork");
    if (pid == 0) {
        close(p[0]);
        snprintf(fdarg, sizeof fdarg, "%d", p[1]);
        setenv("QK_RATE_LIMIT", "off", 1);
        setenv("QK_CHALLENGE_RATE", "off", 1); /* games restart through challenges */
        setenv("QK_MAX_CONNS", "20000", 1);
        setenv("QK_MAX_CONNS_PER_ADDRESS", "20000", 1);
        execl(path, "qirkatd", "--listen", "127.0.0.1:0", "--db", db, "--ready-fd", fdarg,
              "--pwhash", "min", "--log-level", getenv("BENCH_LOG") ? getenv("BENCH_LOG") : "error",
              (char *)NULL);
        fprintf(stderr, "bench-ratios: cannot run %s: %s\n", path, strerror(errno));
        _exit(127);
    }
    close(p[1]);
    char buf[32] = {0};
    ssize_t n = read(p[0], buf, sizeof buf - 1);
    close(p[0]);
    if (n <= 0)
        die("%s did not report a port", path);
    *port = atoi(buf);
    return pid;
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

/* baseline */
static sqlite3 *bdb;
static sqlite3_stmt *binsert;
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

static void base_line(mconn *c, const char *line, size_t n)
{
    cJSON *m = cJSON_ParseWithLength(line, n);
    if (!m)
        return;
    const cJSON *mv = cJSON_GetObjectItemCaseSensitive(m, "move");
    const cJSON *ply = cJSON_GetObjectItemCaseSensitive(m, "ply");
    if (cJSON_IsString(mv) && cJSON_IsNumber(ply) && c->game) {
        if (!in_txn) {
            bexec("BEGIN");
            in_txn = true;
        }
        sqlite3_bind_int64(binsert, 1, c->game);
        sqlite3_bind_int64(binsert, 2, (sqlite3_int64)ply->valuedouble);
        sqlite3_bind_text(binsert, 3, mv->valuestring, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(binsert, 4, (sqlite3_int64)uv_now(c->tcp.loop));
        if (sqlite3_step(binsert) != SQLITE_DONE)
            die("baseline insert: %s", sqlite3_errmsg(bdb));
        sqlite3_reset(binsert);
        char out[256];
        int k = snprintf(out, sizeof out, "{\"type\":\"ok\",\"id\":\"m\"}\n");
        if (!c->held && !c->held_opp) {
            c->next_held = held_head;
            held_head = c;
        }
        append(&c->held, &c->held_len, out, (size_t)k);
        k = snprintf(out, sizeof out,
                     "{\"type\":\"event\",\"event\":\"move\",\"game\":%lld,\"move\":\"%s\"}\n",
                     c->game, mv->valuestring);
        append(&c->held_opp, &c->held_opp_len, out, (size_t)k);
    }
    cJSON_Delete(m);
}

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
        uv_close((uv_handle_t *)s, on_closed);
        return;
    }
    c->len += (size_t)n;
    size_t start = 0;
    char *nl;
    while ((nl = memchr(c->in + start, '\n', c->len - start))) {
        base_line(c, c->in + start, (size_t)(nl - (c->in + start)));
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
    if (!waiting) {
        waiting = c;
        return;
    }
    mconn *w = waiting;
    waiting = NULL;
    w->opp = c;
    c->opp = w;
    w->game = c->game = next_game++;
    char out[128];
    int k = snprintf(out, sizeof out,
                     "{\"type\":\"event\",\"event\":\"start\",\"game\":%lld,\"color\":\"white\"}\n",
                     w->game);
    write_copy(w, out, (size_t)k);
    k = snprintf(out, sizeof out,
                 "{\"type\":\"event\",\"event\":\"start\",\"game\":%lld,\"color\":\"black\"}\n",
                 c->game);
    write_copy(c, out, (size_t)k);
}

static void baseline_main(int ready_fd)
{
    char db[128];
    snprintf(db, sizeof db, "%s/baseline-%ld.db", tmpdir, (long)now_ms());
    if (sqlite3_open(db, &bdb) != SQLITE_OK)
        die("baseline db");
    bexec("PRAGMA journal_mode=WAL");
    bexec("PRAGMA synchronous=FULL");
    bexec("CREATE TABLE moves(game INTEGER NOT NULL, ply INTEGER NOT NULL, move TEXT NOT NULL, "
          "at INTEGER NOT NULL)");
    if (sqlite3_prepare_v2(bdb, "INSERT INTO moves(game, ply, move, at) VALUES (?, ?, ?, ?)", -1,
                           &binsert, NULL) != SQLITE_OK)
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
    sqlite3_close(bdb);
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
    char sent[QK_MOVE_STRLEN]; /* baseline: applied when answered */
    double sent_at;
    bool registered;
    double register_at;
} client;

static client C[MAX_CLIENTS];
static int NC;
static bool baseline_mode, playing;
static double *rtt;
static size_t nrtt, caprtt;
static long long moves_done;

static void challenge(client *c)
{
    sendf(c->fd, "{\"type\":\"challenge\",\"id\":\"c\",\"to\":\"%s\",\"color\":\"white\"}\n",
          C[c->idx + 1].name);
}

/* BENCH_FULL_ANSWER=1: qirkatd answers each move with the whole game
 * object, as for a client that does not ask for the compact answer. */
static bool full_answer;

static void maybe_move(client *c)
{
    if (!playing || c->game == 0 || c->waiting_move || c->pos.side != c->color)
        return;
    qk_move moves[QK_MAX_MOVES];
    int n = qk_movegen(&V, &c->pos, moves, QK_MAX_MOVES);
    if (n <= 0)
        return;
    qk_move_format(&V, &moves[rnd((uint32_t)n)], c->sent, sizeof c->sent);
    c->waiting_move = true;
    c->sent_at = now_ms();
    sendf(c->fd, "{\"type\":\"move\",\"id\":\"m\",\"game\":%lld,\"ply\":%lld,\"move\":\"%s\"%s}\n",
          c->game, c->ply, c->sent, full_answer ? "" : ",\"compact\":true");
}

/* Baseline: both sides apply each move to their own position and restart
 * from the start position when the game is over (the same decision on
 * both sides, since they saw the same moves). */
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
    if (qk_pos_status(&V, &c->pos, &r, &why) || c->ply >= GAME_PLY_CAP) {
        qk_variant_start(&V, &c->pos);
        c->ply = 0;
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
        }
        maybe_move(c);
        return;
    }
    if (!strcmp(ev, "challenge")) {
        const cJSON *ch = cJSON_GetObjectItemCaseSensitive(m, "challenge");
        const char *to = jstr(ch, "to");
        const char *st = jstr(ch, "status");
        /* the challenge event comes again when it is accepted */
        if (to && !strcmp(to, c->name) && playing && (!st || !strcmp(st, "open")))
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

/* What the rounds of one server at one size add up to (moves_rounds). */
typedef struct moves_acc {
    double moves, seconds, cpu_ms;
    double *rtt;
    size_t n, cap;
} moves_acc;

/* One round: games games on the server at port (pid, for its CPU time)
 * for seconds; its moves, time, CPU and round trips are added to *acc. */
static void move_load(pid_t pid, int port, int games, bool baseline, double seconds,
                      moves_acc *acc)
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
        c->fd = connect_to(port);
        /* The baseline pairs connections as they arrive and tells each
         * its game and colour. */
        if (!baseline)
            send_register(c);
    }
    if (!baseline) {
        loop_until(now_ms() + 60000, all_registered);
        if (!all_registered())
            die("registration did not finish");
    }
    playing = true;
    double t0 = now_ms(), cpu0 = cpu_ms(pid);
    if (!baseline)
        for (int i = 0; i < NC; i += 2)
            challenge(&C[i]);
    loop_until(t0 + seconds * 1000, NULL);
    playing = false;
    double elapsed = (now_ms() - t0) / 1000, cpu = cpu_ms(pid) - cpu0;
    loop_until(now_ms() + 5000, none_in_flight);
    for (int i = 0; i < NC; i++) {
        close(C[i].fd);
        free(C[i].buf);
    }
    acc->moves += (double)moves_done;
    acc->seconds += elapsed;
    acc->cpu_ms = cpu0 >= 0 && acc->cpu_ms >= 0 ? acc->cpu_ms + cpu : -1;
    if (acc->n + nrtt > acc->cap) {
        acc->cap = (acc->n + nrtt) * 2;
        acc->rtt = realloc(acc->rtt, acc->cap * sizeof *acc->rtt);
        if (!acc->rtt)
            die("out of memory");
    }
    memcpy(acc->rtt + acc->n, rtt, nrtt * sizeof *rtt);
    acc->n += nrtt;
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
    fprintf(stderr,
            "bench-ratios: %s %d games: %.0f moves/s, round trip median %.3f ms p99 %.3f ms, "
            "server CPU %.1f us/move\n",
            what, games, r.per_s, r.rtt_median, r.rtt_p99,
            acc->cpu_ms >= 0 ? acc->cpu_ms * 1000.0 / acc->moves : -1.0);
    free(acc->rtt);
    *acc = (moves_acc){0};
    return r;
}

/* The baseline and qirkatd at games games, in rounds rounds that
 * alternate between them (seconds in all for each), as the ping load
 * does: the machine is shared, and its speed drifts over seconds (runs of
 * 4 s each, one server after the other, put a neighbour's burst on one
 * side only and moved the ratios by a third). */
static void moves_rounds(pid_t bpid, int bport, pid_t qpid, int qport, int games, int rounds,
                         double seconds, moves_result *b, moves_result *q)
{
    moves_acc ba = {0}, qa = {0};
    for (int k = 0; k < rounds; k++) {
        move_load(bpid, bport, games, true, seconds / rounds, &ba);
        move_load(qpid, qport, games, false, seconds / rounds, &qa);
    }
    *b = moves_of(&ba, "baseline", games);
    *q = moves_of(&qa, "qirkatd", games);
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
static long idle_conns(pid_t pid, int port, int count)
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
    fprintf(stderr, "bench-ratios: qirkatd %d idle connections (%d held): RSS %ld -> %ld kB\n",
            count, open_, before / 1024, after / 1024);
    if (open_ != count)
        die("qirkatd did not hold %d connections", count);
    return (after - before) / count;
}

int main(void)
{
    double seconds = 4;
    full_answer = getenv("BENCH_FULL_ANSWER") && strcmp(getenv("BENCH_FULL_ANSWER"), "1") == 0;
    const char *e = getenv("BENCH_SECONDS");
    if (e && atof(e) > 0)
        seconds = atof(e);
    int rounds = 3;
    e = getenv("BENCH_ROUNDS");
    if (e && atoi(e) > 0 && atoi(e) <= 20)
        rounds = atoi(e);
    int idle = 10000;
    e = getenv("BENCH_IDLE");
    if (e && atoi(e) > 0)
        idle = atoi(e);
    signal(SIGPIPE, SIG_IGN);
    if (qk_variant_parse("alquerque", &V) != QK_OK)
        die("no alquerque variant");
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
    if (only && strcmp(only, "moves"))
        goto ping;
    bport = spawn(baseline_main, &bpid);
    qpid = start_qirkatd(&qport);
    moves_result b50, q50, b500, q500;
    moves_rounds(bpid, bport, qpid, qport, 50, rounds, seconds, &b50, &q50);
    moves_rounds(bpid, bport, qpid, qport, 500, rounds, seconds, &b500, &q500);
    stop(bpid, "baseline");
    stop(qpid, "qirkatd");
    printf("ratio durable_moves_50 %.3f\n", q50.per_s / b50.per_s);
    printf("ratio durable_moves_500 %.3f\n", q500.per_s / b500.per_s);
    printf("ratio move_rtt_50 %.3f\n", q50.rtt_median / b50.rtt_median);
    fflush(stdout);

ping:
    if (only && strcmp(only, "ping"))
        goto idle;
    int eport = spawn(echo_main, &epid);
    qpid = start_qirkatd(&qport);
    /* Interleaved rounds, so a neighbour's burst of load lands on both. */
    double *te = NULL, *tq = NULL;
    size_t ne = 0, ce = 0, nq = 0, cq = 0;
    for (int round = 0; round < 4; round++) {
        ping_round(eport, false, seconds / 5, "echo", &te, &ne, &ce);
        ping_round(qport, true, seconds / 5, "qirkatd", &tq, &nq, &cq);
    }
    double pe = p99_of(te, ne, "echo"), pq = p99_of(tq, nq, "qirkatd");
    printf("ratio ping_p99 %.3f\n", pq / pe);
    fflush(stdout);
    stop(epid, "echo");
    stop(qpid, "qirkatd");

idle:
    if (only && strcmp(only, "idle"))
        goto done;
    qpid = start_qirkatd(&qport);
    long per = idle_conns(qpid, qport, idle);
    stop(qpid, "qirkatd");
    printf("ratio idle_conn_bytes %ld\n", per);

done:;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench-ratios: cannot remove %s\n", tmpdir);
    free(rtt);
    if (errors) {
        fprintf(stderr, "bench-ratios: %lld errors\n", errors);
        return 1;
    }
    return 0;
}
