/*
 * bench-server: move throughput and latency of the real qirkatd.
 *
 * Starts $QK_BIN/qirkatd (default build/) on 127.0.0.1:0 with a fresh
 * database in a temporary directory and --pwhash min, connects 100 raw
 * TCP clients, registers them, pairs them into 50 alquerque games and
 * plays for about 5 seconds: a client whose turn it is picks a random
 * legal move with qk_movegen() on its own copy of the position (from the
 * `move` events) and sends it with the ply; finished games are replaced by
 * new challenges. One single-threaded poll() loop drives every client.
 * Prints moves per second and the median and 99th percentile of the
 * `move` round trip (send to `ok`), in milliseconds. Every move is a
 * synchronous=FULL commit shared with whatever else landed in the same
 * loop iteration of the server (group commit).
 *
 * Environment: QK_BIN (binaries), BENCH_SECONDS (default 5), BENCH_CLIENTS
 * (even, default 100). Exit status 0, or 1 if anything went wrong.
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
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "qk_rules.h"

#define MAX_CLIENTS 1000

typedef struct client {
    int fd;
    int idx;
    char name[24];
    char *buf;
    size_t len, cap;
    /* game state */
    long long game;
    int color; /* QK_WHITE / QK_BLACK in the current game, -1 none */
    qk_pos pos;
    long long ply;
    bool waiting_move; /* a move request is in flight */
    double sent_at;
    bool registered;
    double register_at; /* > 0: resend register then (the server was busy) */
} client;

static client C[MAX_CLIENTS];
static int NC = 100;
static qk_variant V;
static double *rtt;
static size_t nrtt, caprtt;
static long long moves_done, games_done, errors;
static bool playing = true;
static uint64_t rng = 0x9E3779B97F4A7C15ull;

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
    fprintf(stderr, "bench-server: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

static void sendf(client *c, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    const char *p = buf;
    while (n > 0) {
        ssize_t w = send(c->fd, p, (size_t)n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN) {
            struct pollfd pf = {.fd = c->fd, .events = POLLOUT};
            poll(&pf, 1, 1000);
            continue;
        }
        if (w <= 0)
            die("send to the server failed: %s", strerror(errno));
        p += w;
        n -= (int)w;
    }
}

/* ---- the server ------------------------------------------------------- */

static pid_t server_pid;
static char tmpdir[64];

static int start_server(void)
{
    const char *bin = getenv("QK_BIN");
    char path[256], db[128], fdarg[16];
    snprintf(path, sizeof path, "%s/qirkatd", bin && *bin ? bin : "build");
    snprintf(tmpdir, sizeof tmpdir, "/tmp/qk-bench-XXXXXX");
    if (!mkdtemp(tmpdir))
        die("mkdtemp: %s", strerror(errno));
    snprintf(db, sizeof db, "%s/bench.db", tmpdir);
    int p[2];
    if (pipe(p) != 0)
        die("pipe");
    server_pid = fork();
    if (server_pid < 0)
        die("fork");
    if (server_pid == 0) {
        close(p[0]);
        snprintf(fdarg, sizeof fdarg, "%d", p[1]);
        execl(path, "qirkatd", "--listen", "127.0.0.1:0", "--db", db, "--ready-fd", fdarg,
              "--pwhash", "min", "--log-level", getenv("BENCH_LOG") ? getenv("BENCH_LOG") : "warn",
              (char *)NULL);
        fprintf(stderr, "bench-server: cannot run %s: %s\n", path, strerror(errno));
        _exit(127);
    }
    close(p[1]);
    char buf[32] = {0};
    ssize_t n = read(p[0], buf, sizeof buf - 1);
    close(p[0]);
    if (n <= 0)
        die("%s did not report a port", path);
    return atoi(buf);
}

static void stop_server(void)
{
    int st = 0;
    kill(server_pid, SIGTERM);
    waitpid(server_pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fprintf(stderr, "bench-server: qirkatd exited with status %#x\n", st), errors++;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench-server: cannot remove %s\n", tmpdir);
}

/* ---- play ------------------------------------------------------------- */

static void challenge(client *c)
{
    /* Even clients challenge the next odd one, always as White. */
    sendf(c, "{\"type\":\"challenge\",\"id\":\"c\",\"to\":\"%s\",\"color\":\"white\"}\n",
          C[c->idx + 1].name);
}

static void maybe_move(client *c)
{
    if (!playing || c->game == 0 || c->waiting_move || c->pos.side != c->color)
        return;
    qk_move moves[QK_MAX_MOVES];
    int n = qk_movegen(&V, &c->pos, moves, QK_MAX_MOVES);
    if (n <= 0)
        return; /* the game is over; game_end will follow */
    char text[QK_MOVE_STRLEN];
    qk_move_format(&V, &moves[rnd((uint32_t)n)], text, sizeof text);
    c->waiting_move = true;
    c->sent_at = now_ms();
    sendf(c, "{\"type\":\"move\",\"id\":\"m\",\"game\":%lld,\"ply\":%lld,\"move\":\"%s\"}\n",
          c->game, c->ply, text);
}

static void set_position(client *c, const char *pos, long long ply)
{
    if (!pos || qk_pos_parse(&V, pos, &c->pos, NULL) != QK_OK)
        die("bad position from the server: %s", pos ? pos : "(none)");
    c->ply = ply;
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

static void on_event(client *c, const cJSON *m)
{
    const char *ev = jstr(m, "event");
    if (!ev)
        return;
    if (!strcmp(ev, "challenge")) {
        const cJSON *ch = cJSON_GetObjectItemCaseSensitive(m, "challenge");
        const char *to = jstr(ch, "to");
        if (to && !strcmp(to, c->name) && playing)
            sendf(c, "{\"type\":\"accept\",\"id\":\"a\",\"challenge\":%lld}\n",
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
            maybe_move(c); /* a draw by move_limit still has legal moves */
    } else if (!strcmp(ev, "game_end")) {
        if ((long long)jnum(m, "game") != c->game)
            return;
        c->game = 0;
        if (c->idx % 2 == 0) {
            games_done++;
            if (playing)
                challenge(c);
        }
    }
}

static void on_message(client *c, const cJSON *m)
{
    const char *type = jstr(m, "type"), *id = jstr(m, "id");
    if (type && !strcmp(type, "event")) {
        on_event(c, m);
        return;
    }
    const char *code = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "code"));
    if (id && !strcmp(id, "r") && code && !strcmp(code, "server_busy")) {
        /* The server caps password hashes in flight; a real client waits
         * the time it is told and tries again. */
        const cJSON *ra = cJSON_GetObjectItemCaseSensitive(m, "retry_after_ms");
        c->register_at = now_ms() + (cJSON_IsNumber(ra) ? ra->valuedouble : 250.0);
        return;
    }
    if (!type || strcmp(type, "ok") != 0) {
        char *s = cJSON_PrintUnformatted(m);
        fprintf(stderr, "bench-server: %s got %s\n", c->name, s);
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
        rtt[nrtt++] = now_ms() - c->sent_at;
        moves_done++;
    }
}

/* Read what is there and handle each complete line. */
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
        if (n == 0) { /* a heartbeat */
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
    sendf(c, "{\"type\":\"register\",\"id\":\"r\",\"username\":\"%s\",\"password\":\"pw\"}\n",
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

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(void)
{
    double seconds = 5;
    const char *e = getenv("BENCH_SECONDS");
    if (e && atof(e) > 0)
        seconds = atof(e);
    e = getenv("BENCH_CLIENTS");
    if (e && atoi(e) >= 2 && atoi(e) <= MAX_CLIENTS)
        NC = atoi(e) & ~1;
    signal(SIGPIPE, SIG_IGN);
    if (qk_variant_parse("alquerque", &V) != QK_OK)
        die("no alquerque variant");
    int port = start_server();
    for (int i = 0; i < NC; i++) {
        client *c = &C[i];
        c->idx = i;
        c->color = -1;
        snprintf(c->name, sizeof c->name, "bench%03d", i);
        c->fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&a, sizeof a) != 0)
            die("connect: %s", strerror(errno));
        int one = 1;
        setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        send_register(c);
    }
    loop_until(now_ms() + 30000, all_registered);
    if (!all_registered())
        die("registration did not finish");
    double t0 = now_ms();
    for (int i = 0; i < NC; i += 2)
        challenge(&C[i]);
    loop_until(t0 + seconds * 1000, NULL);
    playing = false;
    double t1 = now_ms();
    loop_until(t1 + 5000, none_in_flight);
    double elapsed = (now_ms() - t0) / 1000;
    for (int i = 0; i < NC; i++)
        close(C[i].fd);
    stop_server();
    if (nrtt == 0)
        die("no move was played");
    qsort(rtt, nrtt, sizeof *rtt, cmp_double);
    printf("bench-server: %d clients, %d concurrent alquerque games, %.1f s\n", NC, NC / 2,
           elapsed);
    printf("bench-server: %lld moves, %.0f moves/s, %lld games finished\n", moves_done,
           moves_done / elapsed, games_done);
    printf("bench-server: move round trip median %.3f ms, p99 %.3f ms, max %.3f ms\n",
           rtt[nrtt / 2], rtt[(size_t)(nrtt * 0.99)], rtt[nrtt - 1]);
    for (int i = 0; i < NC; i++)
        free(C[i].buf);
    free(rtt);
    if (errors) {
        fprintf(stderr, "bench-server: %lld errors\n", errors);
        return 1;
    }
    return 0;
}
