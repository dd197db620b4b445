/*
 * bench-export: export of N stored games through the real qirkatd, its
 * time and the server's peak memory, for N = 1,000 and N = 10,000
 * (BENCH_EXPORT_N overrides the second). The export must stream (one page
 * of at most 100 records at a time, api/ops_records.c), so the server's
 * peak RSS (VmHWM of /proc/PID/status) must stay flat in N: the two lines
 * printed should show about the same peak.
 *
 * For each N: start $QK_BIN/qirkatd (default build/) on a fresh database,
 * register two users over TCP, stop it; fill the database with N finished
 * games of 35 moves (data-free: the first recorded alquerque game of
 * ../shared/data/games, inlined below) through the store interface in one
 * transaction; start the server again on it, log in, and page through
 * `export` (PDN, limit 100) to the end, timing from the first request to
 * the last answer. Timings never fail anything; exit 1 only when the
 * export is wrong (count of records).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "store/store.h"

static const char *const MOVES[] = {
    "d2-c3", "b4xd2", "e1xc3", "e3xe1", "c3xe3", "e4xe2", "b3-b4", "a5xc3",   "a3xa5",
    "c3-d3", "a5-b4", "b5xb3", "b2xb4", "c5xa3", "a2xa4", "d5-c5", "d1-d2",   "d3xd1",
    "c2-c3", "c4xc2", "c1xc3", "d4xb2", "a1xc3", "c5-d4", "b1-a1", "d4xb2",   "a1xc3",
    "e5-d4", "c3xe5", "e2-e3", "a4-a5", "e3-e4", "e5xe3", "e1-d2", "e3xc1xe1"};
#define NMOVES (sizeof MOVES / sizeof MOVES[0])

static void die(const char *fmt, const char *arg)
{
    fprintf(stderr, "bench-export: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    exit(1);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static pid_t start(const char *db, int *port)
{
    const char *bin = getenv("QK_BIN");
    char path[256], fdarg[16];
    snprintf(path, sizeof path, "%s/qirkatd", bin && *bin ? bin : "build");
    int p[2];
    if (pipe(p) != 0)
        die("pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        snprintf(fdarg, sizeof fdarg, "%d", p[1]);
        execl(path, "qirkatd", "--listen", "127.0.0.1:0", "--db", db, "--ready-fd", fdarg,
              "--pwhash", "min", "--log-level", "warn", "--rate-limit", "off",
              "--challenge-rate", "off", (char *)NULL);
        _exit(127);
    }
    close(p[1]);
    char buf[32] = {0};
    if (read(p[0], buf, sizeof buf - 1) <= 0)
        die("%s did not report a port", path);
    close(p[0]);
    *port = atoi(buf);
    return pid;
}

static void stop(pid_t pid)
{
    int st;
    kill(pid, SIGTERM);
    waitpid(pid, &st, 0);
}

/* Peak resident set of pid, KiB (VmHWM). */
static long peak_kib(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0)
            kib = strtol(line + 6, NULL, 10);
    if (f)
        fclose(f);
    return kib;
}

typedef struct conn {
    int fd;
    char *buf;
    size_t len, cap;
    int id;
} conn;

static void c_open(conn *c, int port)
{
    memset(c, 0, sizeof *c);
    c->fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&a, sizeof a) != 0)
        die("connect: %s", strerror(errno));
}

/* Send fmt's object with an id, return the answer (caller deletes).
 * Events (none are expected here) are skipped. */
static cJSON *rpc(conn *c, const char *body)
{
    char line[512];
    int n = snprintf(line, sizeof line, "{\"id\":%d,%s\n", ++c->id, body + 1);
    if (write(c->fd, line, (size_t)n) != n)
        die("write: %s", strerror(errno));
    for (;;) {
        char *nl = c->len ? memchr(c->buf, '\n', c->len) : NULL;
        if (nl) {
            *nl = '\0';
            cJSON *o = cJSON_Parse(c->buf);
            size_t used = (size_t)(nl - c->buf) + 1;
            memmove(c->buf, nl + 1, c->len - used);
            c->len -= used;
            cJSON *id = cJSON_GetObjectItem(o, "id");
            if (cJSON_IsNumber(id) && (int)id->valuedouble == c->id)
                return o;
            cJSON_Delete(o);
            continue;
        }
        if (c->cap - c->len < 65536) {
            c->cap = c->cap ? c->cap * 2 : 1 << 20;
            c->buf = realloc(c->buf, c->cap);
        }
        ssize_t r = read(c->fd, c->buf + c->len, c->cap - c->len - 1);
        if (r <= 0)
            die("read: %s", r < 0 ? strerror(errno) : "closed");
        c->len += (size_t)r;
    }
}

static void fill(const char *db, long n)
{
    store *s;
    if (store_open(db, &s) != STORE_OK || store_begin(s) != STORE_OK)
        die("cannot open %s", db);
    for (long i = 0; i < n; i++) {
        store_game g;
        memset(&g, 0, sizeof g);
        snprintf(g.variant, sizeof g.variant, "alquerque");
        g.white_id = 1;
        g.black_id = 2;
        snprintf(g.start, sizeof g.start, "bbbbb/bbbbb/ww.bb/wwwww/wwwww w 0 -");
        snprintf(g.position, sizeof g.position, "w..../...../...../...../....w b 0 -");
        g.ply = NMOVES;
        snprintf(g.turn, sizeof g.turn, "black");
        snprintf(g.status, sizeof g.status, "finished");
        snprintf(g.result, sizeof g.result, "white");
        snprintf(g.reason, sizeof g.reason, "no_pieces");
        snprintf(g.time_control, sizeof g.time_control, "{\"kind\":\"unlimited\"}");
        g.deadline = g.white_ms = g.black_ms = -1;
        g.created = g.updated = 1764478800000LL + i;
        if (store_game_insert(s, &g) != STORE_OK)
            die("insert %s", "game");
        for (size_t k = 0; k < NMOVES; k++)
            if (store_move_insert(s, g.id, (int64_t)k, MOVES[k], k % 2 ? 2 : 1, g.created) !=
                STORE_OK)
                die("insert %s", "move");
    }
    if (store_commit(s) != STORE_OK)
        die("commit %s", db);
    store_close(s);
}

static int run(long n)
{
    char dir[] = "/tmp/qk-bench-export-XXXXXX", db[96], cmd[128];
    if (!mkdtemp(dir))
        die("mkdtemp: %s", strerror(errno));
    snprintf(db, sizeof db, "%s/bench.db", dir);
    int port;
    pid_t pid = start(db, &port);
    conn c;
    c_open(&c, port);
    cJSON *r = rpc(&c, "{\"type\":\"register\",\"username\":\"al\",\"password\":\"password1\"}");
    cJSON_Delete(r);
    r = rpc(&c, "{\"type\":\"register\",\"username\":\"bo\",\"password\":\"password1\"}");
    cJSON_Delete(r);
    close(c.fd);
    free(c.buf);
    stop(pid);
    fill(db, n);
    pid = start(db, &port);
    c_open(&c, port);
    r = rpc(&c, "{\"type\":\"login\",\"username\":\"al\",\"password\":\"password1\"}");
    cJSON_Delete(r);
    long before = peak_kib(pid), got = 0, after = 0;
    size_t bytes = 0;
    double t0 = now_s();
    for (;;) {
        char body[128];
        snprintf(body, sizeof body, "{\"type\":\"export\",\"limit\":100,\"after\":%ld}", after);
        r = rpc(&c, after ? body : "{\"type\":\"export\",\"limit\":100}");
        cJSON *recs = cJSON_GetObjectItem(r, "records"), *it,
              *next = cJSON_GetObjectItem(r, "next");
        cJSON_ArrayForEach(it, recs)
        {
            got++;
            bytes += strlen(it->valuestring);
        }
        after = cJSON_IsNumber(next) ? (long)next->valuedouble : 0;
        cJSON_Delete(r);
        if (!after)
            break;
    }
    double dt = now_s() - t0;
    long peak = peak_kib(pid);
    close(c.fd);
    free(c.buf);
    stop(pid);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench-export: cannot remove %s\n", dir);
    printf("export %6ld games (%zu KiB of PDN): %.3f s, %.0f games/s; server peak RSS %ld KiB "
           "(%ld KiB before the export)\n",
           n, bytes / 1024, dt, got / dt, peak, before);
    return got == n ? 0 : 1;
}

int main(void)
{
    const char *env = getenv("BENCH_EXPORT_N");
    long big = env ? atol(env) : 10000;
    int bad = run(1000);
    bad |= run(big > 0 ? big : 10000);
    return bad;
}
