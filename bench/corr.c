/*
 * bench-corr: correspondence play at scale against the real qirkatd.
 *
 * Builds a database with 10,000 active correspondence games (alice plays
 * in all of them against 100 opponents; half wait for her move) and
 * 100,000 notifications (50,000 of them alice's, one in ten unread): the
 * schema comes from store_open() (the server's own migrations), the rows
 * from plain SQLite inserts in one transaction. Then it measures:
 *   - start-up: spawn of $QK_BIN/qirkatd to the port on --ready-fd, which
 *     includes reloading the deadlines (arming the one timer), once after
 *     a short stop and once after a 2-hour stop (every deadline extended
 *     and logged);
 *   - `games` with turn "mine" (first page of 50, sorted by deadline);
 *   - `notifications` (first page of 50, unread first) and the unread
 *     list only;
 * each request repeated BENCH_REPS times (default 200) on one logged-in
 * connection; prints the median and 99th percentile in milliseconds.
 * Exit status 0, or 1 when anything went wrong.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sodium.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "game/auth.h"
#include "qk_proto.h"
#include "qk_rules.h"
#include "store/store.h"

#define NGAMES 10000
#define NNOTES 100000
#define NOPP 100
#define DAY 86400000LL

static char dir[64], db[128];
static pid_t pid;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void die(const char *what)
{
    fprintf(stderr, "bench-corr: %s\n", what);
    if (pid > 0)
        kill(pid, SIGKILL);
    exit(1);
}

static void exec_sql(sqlite3 *d, const char *sql)
{
    char *err = NULL;
    if (sqlite3_exec(d, sql, NULL, NULL, &err) != SQLITE_OK) {
        fprintf(stderr, "bench-corr: %s: %s\n", sql, err ? err : "?");
        die("sqlite");
    }
}

/* Fill the database; writes alice's token (hex) into token. */
static void fill(char token[AUTH_TOKEN_HEX + 1])
{
    store *st;
    if (store_open(db, &st) != STORE_OK)
        die("store_open");
    store_close(st);
    sqlite3 *d;
    if (sqlite3_open(db, &d) != SQLITE_OK)
        die("sqlite3_open");
    exec_sql(d, "BEGIN");
    sqlite3_stmt *s;
    long long now = qk_now_ms();
    char sql[512];
    for (int i = 0; i <= NOPP; i++) {
        snprintf(sql, sizeof sql,
                 "INSERT INTO users (username, pwhash, created) VALUES ('%s%d', 'x', %lld)",
                 i ? "opp" : "alice", i, now);
        exec_sql(d, sql);
    }
    uint8_t hash[32];
    auth_token_new(token, hash);
    if (sqlite3_prepare_v2(d, "INSERT INTO tokens VALUES (?, 1, ?, ?)", -1, &s, NULL))
        die("prepare token");
    sqlite3_bind_blob(s, 1, hash, 32, SQLITE_STATIC);
    sqlite3_bind_int64(s, 2, now);
    sqlite3_bind_int64(s, 3, now);
    if (sqlite3_step(s) != SQLITE_DONE)
        die("token");
    sqlite3_finalize(s);
    qk_variant v;
    qk_pos p;
    char start[QK_POS_STRLEN];
    if (qk_variant_parse("alquerque", &v) != QK_OK)
        die("variant");
    qk_variant_start(&v, &p);
    if (qk_pos_format(&v, &p, start, sizeof start) < 0)
        die("start");
    if (sqlite3_prepare_v2(d,
                           "INSERT INTO games (variant, white_id, black_id, start, position, "
                           "turn, time_control, deadline, wake_at, created, updated) VALUES "
                           "('alquerque', ?1, ?2, ?3, ?3, 'white', "
                           "'{\"kind\":\"correspondence\",\"days_per_move\":3}', ?4, ?5, ?6, ?6)",
                           -1, &s, NULL))
        die("prepare games");
    srand(42);
    for (int i = 0; i < NGAMES; i++) {
        int opp = 2 + i % NOPP;
        bool alice_white = i % 2 == 0; /* white moves first: half are alice's turn */
        long long deadline = now + 1000 + (long long)(rand() % (int)(3 * DAY / 1000)) * 1000;
        sqlite3_bind_int64(s, 1, alice_white ? 1 : opp);
        sqlite3_bind_int64(s, 2, alice_white ? opp : 1);
        sqlite3_bind_text(s, 3, start, -1, SQLITE_STATIC);
        sqlite3_bind_int64(s, 4, deadline);
        sqlite3_bind_int64(s, 5, deadline - DAY > now ? deadline - DAY : deadline);
        sqlite3_bind_int64(s, 6, now);
        if (sqlite3_step(s) != SQLITE_DONE)
            die("game insert");
        sqlite3_reset(s);
    }
    sqlite3_finalize(s);
    if (sqlite3_prepare_v2(d,
                           "INSERT INTO notifications (user_id, kind, game_id, data, read, "
                           "created) VALUES (?, 'your_turn', ?, "
                           "'{\"opponent\":\"opp\",\"move\":\"d2-c3\",\"ply\":1,\"deadline\":1}', "
                           "?, ?)",
                           -1, &s, NULL))
        die("prepare notes");
    for (int i = 0; i < NNOTES; i++) {
        sqlite3_bind_int64(s, 1, i % 2 ? 2 + i % NOPP : 1);
        sqlite3_bind_int64(s, 2, 1 + i % NGAMES);
        sqlite3_bind_int64(s, 3, i % 10 != 0);
        sqlite3_bind_int64(s, 4, now + i);
        if (sqlite3_step(s) != SQLITE_DONE)
            die("note insert");
        sqlite3_reset(s);
    }
    sqlite3_finalize(s);
    exec_sql(d, "COMMIT");
    sqlite3_close(d);
}

/* Spawn qirkatd (extra env, may be NULL) and return the port; *ms gets
 * the time to the ready line. */
static int start(const char *env, double *ms)
{
    const char *bin = getenv("QK_BIN");
    char path[256], fdarg[16];
    snprintf(path, sizeof path, "%s/qirkatd", bin && *bin ? bin : "build");
    int p[2];
    if (pipe(p) != 0)
        die("pipe");
    double t0 = now_ms();
    pid = fork();
    if (pid < 0)
        die("fork");
    if (pid == 0) {
        close(p[0]);
        if (env)
            putenv((char *)env);
        snprintf(fdarg, sizeof fdarg, "%d", p[1]);
        execl(path, "qirkatd", "--listen", "127.0.0.1:0", "--db", db, "--ready-fd", fdarg,
              "--pwhash", "min", "--log-level", "warn", "--challenge-rate", "off", (char *)NULL);
        _exit(127);
    }
    close(p[1]);
    char buf[32] = {0};
    ssize_t n = read(p[0], buf, sizeof buf - 1);
    *ms = now_ms() - t0;
    close(p[0]);
    if (n <= 0)
        die("qirkatd did not report a port");
    return atoi(buf);
}

static void stop(void)
{
    int st;
    kill(pid, SIGTERM);
    waitpid(pid, &st, 0);
    pid = 0;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        die("qirkatd did not stop cleanly");
}

static int fd;
static char *in;
static size_t inlen, incap;

/* Send one request line, return the response (caller deletes). */
static cJSON *rpc(const char *line)
{
    size_t n = strlen(line);
    if (write(fd, line, n) != (ssize_t)n)
        die("write");
    for (;;) {
        char *nl = inlen ? memchr(in, '\n', inlen) : NULL;
        if (nl) {
            size_t k = (size_t)(nl - in);
            cJSON *o = k ? cJSON_ParseWithLength(in, k) : NULL;
            memmove(in, nl + 1, inlen - k - 1);
            inlen -= k + 1;
            const cJSON *type = cJSON_GetObjectItem(o, "type");
            if (o && cJSON_IsString(type) && strcmp(type->valuestring, "ok") == 0)
                return o;
            if (o && cJSON_IsString(type) && strcmp(type->valuestring, "error") == 0) {
                char *t = cJSON_PrintUnformatted(o);
                fprintf(stderr, "bench-corr: %s -> %s\n", line, t);
                die("error response");
            }
            cJSON_Delete(o); /* events, heartbeats */
            continue;
        }
        if (incap - inlen < 65536) {
            incap = incap * 2 + 65536;
            in = realloc(in, incap);
            if (!in)
                die("oom");
        }
        ssize_t r = read(fd, in + inlen, incap - inlen);
        if (r <= 0)
            die("read");
        inlen += (size_t)r;
    }
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void measure(const char *name, const char *line, int reps, const char *list, int want)
{
    double *t = malloc((size_t)reps * sizeof *t);
    if (!t)
        die("oom");
    for (int i = 0; i < reps; i++) {
        double t0 = now_ms();
        cJSON *r = rpc(line);
        t[i] = now_ms() - t0;
        if (i == 0 && cJSON_GetArraySize(cJSON_GetObjectItem(r, list)) != want) {
            fprintf(stderr, "bench-corr: %s listed %d, not %d\n", name,
                    cJSON_GetArraySize(cJSON_GetObjectItem(r, list)), want);
            die("wrong result");
        }
        cJSON_Delete(r);
    }
    qsort(t, (size_t)reps, sizeof *t, cmp);
    printf("%-34s median %7.3f ms   p99 %7.3f ms   (%d runs)\n", name, t[reps / 2],
           t[reps * 99 / 100], reps);
    free(t);
}

int main(void)
{
    if (sodium_init() < 0)
        die("sodium_init");
    int reps = getenv("BENCH_REPS") ? atoi(getenv("BENCH_REPS")) : 200;
    if (reps < 1)
        reps = 1;
    snprintf(dir, sizeof dir, "/tmp/qk-bench-corr-XXXXXX");
    if (!mkdtemp(dir))
        die("mkdtemp");
    snprintf(db, sizeof db, "%s/corr.db", dir);
    char token[AUTH_TOKEN_HEX + 1];
    double t0 = now_ms();
    fill(token);
    printf("database: %d correspondence games, %d notifications (filled in %.0f ms)\n", NGAMES,
           NNOTES, now_ms() - t0);

    double ms;
    int port = start(NULL, &ms);
    printf("%-34s %7.1f ms\n", "start-up (first, reload deadlines)", ms);
    stop();
    port = start(NULL, &ms);
    printf("%-34s %7.1f ms\n", "start-up (after a short stop)", ms);
    stop();
    /* Pretend the last heartbeat was 2 hours ago: every deadline moves. */
    sqlite3 *d;
    if (sqlite3_open(db, &d) != SQLITE_OK)
        die("sqlite3_open");
    exec_sql(d, "UPDATE server_state SET value = value - 7200000 WHERE key = 'last_alive'");
    sqlite3_close(d);
    port = start(NULL, &ms);
    printf("%-34s %7.1f ms\n", "start-up (2 h down: 10,000 extended)", ms);

    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(0x7f000001);
    fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0)
        die("connect");
    char line[256];
    snprintf(line, sizeof line, "{\"type\":\"login\",\"id\":1,\"token\":\"%s\"}\n", token);
    t0 = now_ms();
    cJSON_Delete(rpc(line));
    printf("%-34s %7.1f ms\n", "login (500 games, unread notes)", now_ms() - t0);
    measure("games turn:mine (50 of 5,000)",
            "{\"type\":\"games\",\"id\":2,\"turn\":\"mine\",\"limit\":50}\n", reps, "games", 50);
    measure("notifications (50 of 50,000)", "{\"type\":\"notifications\",\"id\":3}\n", reps,
            "notifications", 50);
    measure("notifications unread (50 of 5,000)",
            "{\"type\":\"notifications\",\"id\":4,\"unread\":true}\n", reps, "notifications",
            50);
    measure("notifications page 100 (offset 5,000)",
            "{\"type\":\"notifications\",\"id\":5,\"offset\":5000}\n", reps, "notifications", 50);
    close(fd);
    stop();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench-corr: cannot remove %s\n", dir);
    return 0;
}
