/*
 * helper: see helper.h. The server runs as a child process with stderr
 * sent to a log file in its directory (printed when a test fails is more
 * than Criterion offers, so tests print it themselves when useful).
 */
#include "helper.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

const char *t_shared(void)
{
    const char *s = getenv("QK_SHARED");
    return s && *s ? s : "../shared";
}

static void spawn(tsrv *s, const char *env)
{
    const char *bin = getenv("QK_BIN");
    char path[256];
    snprintf(path, sizeof path, "%s/qirkatd", bin && *bin ? bin : "build");
    int p[2];
    cr_assert_eq(pipe(p), 0);
    signal(SIGPIPE, SIG_IGN);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        /* Die with the test process, whatever ends it. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        close(p[0]);
        int fd = open(s->log, O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (fd >= 0)
            dup2(fd, 2);
        /* env: one or more NAME=value separated by spaces. */
        char *envs = env ? strdup(env) : NULL, *save = NULL;
        for (char *e = envs ? strtok_r(envs, " ", &save) : NULL; e; e = strtok_r(NULL, " ", &save))
            putenv(e);
        char fdarg[16];
        snprintf(fdarg, sizeof fdarg, "%d", p[1]);
        if (s->http)
            execl(path, "qirkatd", "--listen", "127.0.0.1:0", "--db", s->db, "--ready-fd", fdarg,
                  "--pwhash", "min", "--log-level", "info", "--http", "127.0.0.1:0", (char *)NULL);
        else
            execl(path, "qirkatd", "--listen", "127.0.0.1:0", "--db", s->db, "--ready-fd", fdarg,
                  "--pwhash", "min", "--log-level", "info", (char *)NULL);
        _exit(127);
    }
    close(p[1]);
    s->pid = pid;
    char buf[32] = {0};
    size_t got = 0;
    struct pollfd pf = {.fd = p[0], .events = POLLIN};
    long long deadline = now_ms() + T_TIMEOUT_MS;
    /* One line (the TCP port), two with --http (then the HTTP port). */
    for (;;) {
        char *nl = memchr(buf, '\n', got);
        if (got >= sizeof buf - 1 ||
            (nl && (!s->http || memchr(nl + 1, '\n', got - (size_t)(nl + 1 - buf)))))
            break;
        int left = (int)(deadline - now_ms());
        cr_assert_gt(left, 0, "qirkatd (%s) did not report its port", path);
        if (poll(&pf, 1, left) <= 0)
            continue;
        ssize_t n = read(p[0], buf + got, sizeof buf - 1 - got);
        cr_assert_gt(n, 0, "qirkatd (%s) exited before listening; see %s", path, s->log);
        got += (size_t)n;
    }
    close(p[0]);
    s->port = atoi(buf);
    cr_assert_gt(s->port, 0, "bad port line \"%s\"", buf);
    if (s->http) {
        char *nl = strchr(buf, '\n');
        s->http_port = nl ? atoi(nl + 1) : 0;
        cr_assert_gt(s->http_port, 0, "no HTTP port line in \"%s\"", buf);
    }
}

void t_pg_new_db(char *out, size_t n)
{
    const char *pg = getenv("QK_TEST_PG_URL");
    cr_assert(pg && *pg, "QK_TEST_PG_URL is not set");
    static int k;
    char name[64], sql[96];
    snprintf(name, sizeof name, "qk_s%ld_%d", (long)getpid(), k++);
    snprintf(sql, sizeof sql, "CREATE DATABASE %s", name);
    PGconn *c = PQconnectdb(pg);
    cr_assert_eq(PQstatus(c), CONNECTION_OK, "connect %s: %s", pg, PQerrorMessage(c));
    PGresult *r = PQexec(c, sql);
    cr_assert_eq(PQresultStatus(r), PGRES_COMMAND_OK, "%s: %s", sql, PQresultErrorMessage(r));
    PQclear(r);
    PQfinish(c);
    const char *slash = strrchr(pg, '/');
    cr_assert(slash && slash > strstr(pg, "://") + 2, "QK_TEST_PG_URL needs a database: %s", pg);
    snprintf(out, n, "%.*s/%s", (int)(slash - pg), pg, name);
}

static void choose_db(tsrv *s)
{
    const char *pg = getenv("QK_TEST_PG_URL");
    if (pg && *pg)
        t_pg_new_db(s->db, sizeof s->db);
    else
        snprintf(s->db, sizeof s->db, "%s/qirkat.db", s->dir);
}

void tsrv_start(tsrv *s, const char *env)
{
    memset(s, 0, sizeof *s);
    snprintf(s->dir, sizeof s->dir, "/tmp/qk-server-test-XXXXXX");
    cr_assert_not_null(mkdtemp(s->dir));
    choose_db(s);
    snprintf(s->log, sizeof s->log, "%s/server.log", s->dir);
    spawn(s, env);
}

void tsrv_start_on(tsrv *s, const char *db, bool http, const char *env)
{
    memset(s, 0, sizeof *s);
    s->http = http;
    snprintf(s->dir, sizeof s->dir, "/tmp/qk-server-test-XXXXXX");
    cr_assert_not_null(mkdtemp(s->dir));
    snprintf(s->db, sizeof s->db, "%s", db);
    snprintf(s->log, sizeof s->log, "%s/server.log", s->dir);
    spawn(s, env);
}

long long t_pg_count(const char *url, const char *sql)
{
    PGconn *c = PQconnectdb(url);
    cr_assert_eq(PQstatus(c), CONNECTION_OK, "connect %s: %s", url, PQerrorMessage(c));
    PGresult *r = PQexec(c, sql);
    cr_assert_eq(PQresultStatus(r), PGRES_TUPLES_OK, "%s: %s", sql, PQresultErrorMessage(r));
    cr_assert_eq(PQntuples(r), 1, "%s: one row", sql);
    long long n = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
    PQclear(r);
    PQfinish(c);
    return n;
}

void tsrv_start_http(tsrv *s, const char *env)
{
    memset(s, 0, sizeof *s);
    s->http = true;
    snprintf(s->dir, sizeof s->dir, "/tmp/qk-server-test-XXXXXX");
    cr_assert_not_null(mkdtemp(s->dir));
    choose_db(s);
    snprintf(s->log, sizeof s->log, "%s/server.log", s->dir);
    spawn(s, env);
}

void tsrv_restart(tsrv *s, const char *env)
{
    cr_assert_eq(s->pid, 0, "restart of a running server");
    spawn(s, env);
}

static int wait_exit(pid_t pid, int timeout_ms)
{
    long long deadline = now_ms() + timeout_ms;
    int st;
    for (;;) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid)
            return st;
        if (now_ms() > deadline)
            return -1;
        usleep(2000);
    }
}

void tsrv_stop(tsrv *s)
{
    if (!s->pid)
        return;
    kill(s->pid, SIGTERM);
    int st = wait_exit(s->pid, T_TIMEOUT_MS);
    if (st == -1) {
        kill(s->pid, SIGKILL);
        waitpid(s->pid, &st, 0);
        s->pid = 0;
        cr_assert_fail("qirkatd did not exit within %d ms of SIGTERM", T_TIMEOUT_MS);
    }
    s->pid = 0;
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0,
              "qirkatd did not exit 0 on SIGTERM (status %#x); see %s", st, s->log);
    /* On PostgreSQL the loop must never wait for the database (issue 22):
     * the backend logs every wait outside a task (store/pg/pg_base.h). */
    FILE *f = fopen(s->log, "r");
    char line[1024];
    while (f && fgets(line, sizeof line, f))
        cr_assert_null(strstr(line, "waited outside a task"), "the loop blocked: %s (see %s)",
                       line, s->log);
    if (f)
        fclose(f);
}

int tsrv_wait_exit(tsrv *s, int timeout_ms)
{
    cr_assert_neq(s->pid, 0, "no server to wait for");
    int st = wait_exit(s->pid, timeout_ms);
    cr_assert_neq(st, -1, "qirkatd still runs after %d ms (see %s)", timeout_ms, s->log);
    s->pid = 0;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

void tsrv_kill(tsrv *s)
{
    if (!s->pid)
        return;
    kill(s->pid, SIGKILL);
    waitpid(s->pid, NULL, 0);
    s->pid = 0;
}

bool tsrv_alive(tsrv *s)
{
    return s->pid && waitpid(s->pid, NULL, WNOHANG) == 0;
}

/* QK_TEST_KEEP=1 keeps the server's directory (its server.log: a crash's
 * sanitizer report) instead of removing it. */
void tsrv_cleanup(tsrv *s)
{
    tsrv_kill(s);
    char cmd[256];
    snprintf(cmd, sizeof cmd, getenv("QK_TEST_KEEP") ? "true '%s'" : "rm -rf '%s'", s->dir);
    if (s->dir[0] && system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", s->dir);
}

/* ---- connections ------------------------------------------------------ */

tconn *tc_open(int port)
{
    tconn *c = calloc(1, sizeof *c);
    cr_assert_not_null(c);
    c->fd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert_geq(c->fd, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(connect(c->fd, (struct sockaddr *)&a, sizeof a), 0, "connect: %s",
                 strerror(errno));
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    c->next_id = 1;
    return c;
}

void tc_close(tconn *c)
{
    if (!c)
        return;
    close(c->fd);
    for (int i = 0; i < c->nq; i++)
        cJSON_Delete(c->q[i]);
    free(c->q);
    free(c->buf);
    free(c);
}

bool tc_send(tconn *c, const void *data, size_t n)
{
    const char *p = data;
    while (n > 0) {
        ssize_t w = send(c->fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

bool tc_sendf(tconn *c, const char *fmt, ...)
{
    char buf[8192];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    cr_assert(n > 0 && (size_t)n < sizeof buf);
    return tc_send(c, buf, (size_t)n);
}

/* One line from the socket, parsed; NULL on timeout/EOF. */
static cJSON *sock_read(tconn *c, int timeout_ms)
{
    long long deadline = now_ms() + timeout_ms;
    for (;;) {
        char *nl = c->len ? memchr(c->buf, '\n', c->len) : NULL;
        if (nl && nl == c->buf) {
            /* An empty line: the server's heartbeat, not a message. */
            c->blanks++;
            memmove(c->buf, nl + 1, c->len - 1);
            c->len -= 1;
            continue;
        }
        if (nl) {
            size_t n = (size_t)(nl - c->buf);
            cJSON *o = cJSON_ParseWithLength(c->buf, n);
            cr_assert_not_null(o, "server sent a line that is not JSON: %.*s", (int)n, c->buf);
            memmove(c->buf, nl + 1, c->len - n - 1);
            c->len -= n + 1;
            return o;
        }
        if (c->eof)
            return NULL;
        int left = (int)(deadline - now_ms());
        if (left < 0)
            return NULL;
        struct pollfd pf = {.fd = c->fd, .events = POLLIN};
        if (poll(&pf, 1, left) <= 0)
            continue;
        if (c->cap - c->len < 65536) {
            c->cap = c->cap * 2 + 65536;
            c->buf = realloc(c->buf, c->cap);
            cr_assert_not_null(c->buf);
        }
        ssize_t r = recv(c->fd, c->buf + c->len, c->cap - c->len, 0);
        if (r <= 0) {
            c->eof = true;
            continue;
        }
        c->len += (size_t)r;
    }
}

static void q_push(tconn *c, cJSON *o)
{
    if (c->nq == c->capq) {
        c->capq = c->capq ? c->capq * 2 : 16;
        c->q = realloc(c->q, (size_t)c->capq * sizeof *c->q);
        cr_assert_not_null(c->q);
    }
    c->q[c->nq++] = o;
}

static cJSON *q_take(tconn *c, int i)
{
    cJSON *o = c->q[i];
    memmove(c->q + i, c->q + i + 1, (size_t)(c->nq - i - 1) * sizeof *c->q);
    c->nq--;
    return o;
}

static bool is_event(const cJSON *o)
{
    const char *t = t_str(o, "type");
    return t && strcmp(t, "event") == 0;
}

cJSON *tc_read(tconn *c, int timeout_ms)
{
    return c->nq ? q_take(c, 0) : sock_read(c, timeout_ms);
}

cJSON *tc_reply(tconn *c, int timeout_ms)
{
    for (int i = 0; i < c->nq; i++)
        if (!is_event(c->q[i]))
            return q_take(c, i);
    long long deadline = now_ms() + timeout_ms;
    for (;;) {
        int left = (int)(deadline - now_ms());
        cJSON *o = left >= 0 ? sock_read(c, left) : NULL;
        if (!o || !is_event(o))
            return o;
        q_push(c, o);
    }
}

cJSON *tc_event(tconn *c, const char *name, int timeout_ms)
{
    for (int i = 0; i < c->nq; i++)
        if (is_event(c->q[i]) && !strcmp(t_str(c->q[i], "event"), name))
            return q_take(c, i);
    long long deadline = now_ms() + timeout_ms;
    for (;;) {
        int left = (int)(deadline - now_ms());
        cJSON *o = left >= 0 ? sock_read(c, left) : NULL;
        if (!o)
            return NULL;
        if (is_event(o) && !strcmp(t_str(o, "event"), name))
            return o;
        q_push(c, o);
    }
}

void tc_drop_events(tconn *c)
{
    for (int i = 0; i < c->nq;)
        if (is_event(c->q[i]))
            cJSON_Delete(q_take(c, i));
        else
            i++;
}

void tc_sync(tconn *c)
{
    cJSON *r = tc_rpc(c, "{\"type\":\"ping\"}");
    t_ok(r, "sync ping");
    cJSON_Delete(r);
    tc_drop_events(c);
}

bool tc_wait_eof(tconn *c, int timeout_ms)
{
    long long deadline = now_ms() + timeout_ms;
    while (!c->eof) {
        int left = (int)(deadline - now_ms());
        if (left < 0)
            return false;
        cJSON *o = sock_read(c, left);
        if (o)
            q_push(c, o);
    }
    return true;
}

cJSON *tc_rpc(tconn *c, const char *fmt, ...)
{
    char body[8192], line[8300];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    cr_assert(n >= 2 && (size_t)n < sizeof body && body[0] == '{', "test bug: %s", body);
    long long id = c->next_id++;
    int len = snprintf(line, sizeof line, "{\"id\":%lld%s%s\n", id, n == 2 ? "}" : ",",
                       n == 2 ? "" : body + 1);
    cr_assert(tc_send(c, line, (size_t)len), "connection closed sending %s", body);
    for (int i = 0; i < c->nq; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(c->q[i], "id");
        if (!is_event(c->q[i]) && cJSON_IsNumber(v) && v->valuedouble == (double)id)
            return q_take(c, i);
    }
    long long deadline = now_ms() + T_TIMEOUT_MS;
    for (;;) {
        int left = (int)(deadline - now_ms());
        cr_assert_geq(left, 0, "no answer to %s", body);
        cJSON *o = sock_read(c, left);
        cr_assert_not_null(o, "no answer to %s (eof=%d)", body, c->eof);
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "id");
        if (!is_event(o) && cJSON_IsNumber(v) && v->valuedouble == (double)id)
            return o;
        q_push(c, o);
    }
}

/* ---- assertions ------------------------------------------------------- */

char *t_text(const cJSON *o)
{
    static char buf[2048];
    char *s = o ? cJSON_PrintUnformatted(o) : NULL;
    snprintf(buf, sizeof buf, "%s", s ? s : "(nothing)");
    free(s);
    return buf;
}

const char *t_str(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

long long t_int(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    cr_assert(cJSON_IsNumber(v), "no number \"%s\" in %s", name, t_text(o));
    return (long long)v->valuedouble;
}

const cJSON *t_obj(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    cr_assert(v != NULL, "no \"%s\" in %s", name, t_text(o));
    return v;
}

void t_ok(const cJSON *r, const char *what)
{
    const char *t = t_str(r, "type");
    cr_assert(t && !strcmp(t, "ok"), "%s: expected ok, got %s", what, t_text(r));
}

void t_err(const cJSON *r, const char *code, const char *what)
{
    const char *t = t_str(r, "type"), *c = t_str(r, "code");
    cr_assert(t && !strcmp(t, "error") && c && !strcmp(c, code), "%s: expected %s, got %s", what,
              code, t_text(r));
    cr_assert_not_null(t_str(r, "message"), "%s: error without message", what);
}

void t_register(tconn *c, const char *user)
{
    cJSON *r =
        tc_rpc(c, "{\"type\":\"register\",\"username\":\"%s\",\"password\":\"" T_PW "\"}", user);
    t_ok(r, "register");
    cJSON_Delete(r);
}

long long t_new_game(tconn *white, tconn *black, const char *black_name, const char *variant)
{
    cJSON *r = tc_rpc(white,
                      "{\"type\":\"challenge\",\"to\":\"%s\",\"variant\":\"%s\","
                      "\"color\":\"white\"}",
                      black_name, variant);
    t_ok(r, "challenge");
    long long cid = t_int(t_obj(r, "challenge"), "id");
    cJSON_Delete(r);
    r = tc_rpc(black, "{\"type\":\"accept\",\"challenge\":%lld}", cid);
    t_ok(r, "accept");
    long long gid = t_int(t_obj(r, "game"), "id");
    cJSON_Delete(r);
    return gid;
}

long long t_new_game_tc(tconn *white, tconn *black, const char *black_name, const char *variant,
                        const char *tc, const char *extra)
{
    cJSON *r = tc_rpc(white,
                      "{\"type\":\"challenge\",\"to\":\"%s\",\"variant\":\"%s\","
                      "\"color\":\"white\",\"time_control\":%s%s}",
                      black_name, variant, tc, extra ? extra : "");
    t_ok(r, "challenge");
    long long cid = t_int(t_obj(r, "challenge"), "id");
    cJSON_Delete(r);
    r = tc_rpc(black, "{\"type\":\"accept\",\"challenge\":%lld}", cid);
    t_ok(r, "accept");
    long long gid = t_int(t_obj(r, "game"), "id");
    cJSON_Delete(r);
    return gid;
}

void t_advance(tconn *c, long long ms, bool sweep)
{
    cJSON *r = tc_rpc(c, "{\"type\":\"debug_clock\",\"advance_ms\":%lld%s}", ms,
                      sweep ? "" : ",\"sweep\":false");
    t_ok(r, "debug_clock");
    cJSON_Delete(r);
}

cJSON *t_game(tconn *c, long long gid)
{
    cJSON *r = tc_rpc(c, "{\"type\":\"game\",\"game\":%lld}", gid);
    t_ok(r, "game");
    cJSON *g = cJSON_DetachItemFromObject(r, "game");
    cJSON_Delete(r);
    return g;
}

/* The first legal move of gid sent as c; need_one: fail the test when
 * there is none (else "a1-a2" goes, to be refused). */
static cJSON *send_first(tconn *c, long long gid, bool need_one)
{
    cJSON *g = t_game(c, gid);
    const cJSON *legal = t_obj(g, "legal_moves");
    if (need_one)
        cr_assert_gt(cJSON_GetArraySize(legal), 0, "no legal move: %s", t_text(g));
    const char *m = cJSON_GetArraySize(legal) ? cJSON_GetArrayItem(legal, 0)->valuestring : "a1-a2";
    cJSON *r = tc_rpc(c, "{\"type\":\"move\",\"game\":%lld,\"ply\":%lld,\"move\":\"%s\"}", gid,
                      t_int(g, "ply"), m);
    cJSON_Delete(g);
    return r;
}

cJSON *t_try_first(tconn *c, long long gid)
{
    return send_first(c, gid, false);
}

void t_play_first(tconn *c, long long gid)
{
    cJSON *r = send_first(c, gid, true);
    t_ok(r, "move");
    cJSON_Delete(r);
}

int t_count_kind(tconn *c, const char *kind)
{
    cJSON *r = tc_rpc(c, "{\"type\":\"notifications\",\"limit\":200}");
    t_ok(r, "notifications");
    int n = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, t_obj(r, "notifications")) n += strcmp(t_str(it, "kind"), kind) == 0;
    cJSON_Delete(r);
    return n;
}

bool t_flood_until_cut(const tsrv *s, tconn *mouth, int rounds)
{
    bool closed = false;
    long long id = 1;
    for (int round = 0; round < rounds && !closed; round++) {
        char batch[64 * 100];
        size_t k = 0;
        for (int i = 0; i < 40; i++, id++)
            k += (size_t)snprintf(batch + k, sizeof batch - k,
                                  "{\"type\":\"challenge\",\"id\":%lld,\"to\":\"wanda\"}\n"
                                  "{\"type\":\"cancel\",\"id\":%lld,\"challenge\":%lld}\n",
                                  id, id, id);
        cr_assert(tc_send(mouth, batch, k));
        for (int i = 0; i < 80; i++) {
            cJSON *r = tc_reply(mouth, T_TIMEOUT_MS);
            cr_assert_not_null(r);
            t_ok(r, "challenge or cancel");
            cJSON_Delete(r);
        }
        tc_drop_events(mouth);
        FILE *f = fopen(s->log, "r");
        char line[512];
        while (f && fgets(line, sizeof line, f))
            closed = closed || strstr(line, "of output pending, disconnecting");
        if (f)
            fclose(f);
    }
    return closed;
}

/* ---- the database ----------------------------------------------------- */

static sqlite3 *db_open(const char *db)
{
    sqlite3 *h = NULL;
    int rc = sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL);
    cr_assert_eq(rc, SQLITE_OK, "open %s: %s", db, h ? sqlite3_errmsg(h) : "?");
    return h;
}

static bool is_pg(const char *db)
{
    return strncmp(db, "postgresql://", 13) == 0 || strncmp(db, "postgres://", 11) == 0;
}

/* The same dump of a PostgreSQL database: the rows of the same tables,
 * each as its text form, in key order. */
static char *pg_dump_rows(const char *db)
{
    static const char *const q[] = {
        "SELECT concat_ws('|', id, username, bot, pwhash, created) FROM users ORDER BY id",
        "SELECT concat_ws('|', encode(hash, 'hex'), user_id, created) FROM tokens ORDER BY hash",
        "SELECT c::text FROM challenges c ORDER BY id",
        "SELECT g::text FROM games g ORDER BY id",
        "SELECT m::text FROM moves m ORDER BY game_id, ply",
    };
    PGconn *c = PQconnectdb(db);
    cr_assert_eq(PQstatus(c), CONNECTION_OK, "connect %s: %s", db, PQerrorMessage(c));
    size_t cap = 4096, len = 0;
    char *out = malloc(cap);
    cr_assert_not_null(out);
    out[0] = '\0';
    for (size_t i = 0; i < sizeof q / sizeof *q; i++) {
        PGresult *r = PQexec(c, q[i]);
        cr_assert_eq(PQresultStatus(r), PGRES_TUPLES_OK, "%s: %s", q[i], PQresultErrorMessage(r));
        for (int k = 0; k < PQntuples(r); k++) {
            const char *t = PQgetvalue(r, k, 0);
            size_t n = strlen(t);
            while (len + n + 4 > cap) {
                cap *= 2;
                out = realloc(out, cap);
                cr_assert_not_null(out);
            }
            len += (size_t)sprintf(out + len, "%s\n", t);
        }
        PQclear(r);
    }
    PQfinish(c);
    return out;
}

char *t_db_dump(const char *db)
{
    if (is_pg(db))
        return pg_dump_rows(db);
    static const char *const q[] = {
        "SELECT id, username, bot, pwhash, created FROM users ORDER BY id",
        "SELECT hex(hash), user_id, created FROM tokens ORDER BY hash",
        "SELECT * FROM challenges ORDER BY id",
        "SELECT * FROM games ORDER BY id",
        "SELECT * FROM moves ORDER BY game_id, ply",
    };
    sqlite3 *h = db_open(db);
    size_t cap = 4096, len = 0;
    char *out = malloc(cap);
    cr_assert_not_null(out);
    out[0] = '\0';
    for (size_t i = 0; i < sizeof q / sizeof *q; i++) {
        sqlite3_stmt *st;
        cr_assert_eq(sqlite3_prepare_v2(h, q[i], -1, &st, NULL), SQLITE_OK, "%s",
                     sqlite3_errmsg(h));
        while (sqlite3_step(st) == SQLITE_ROW) {
            for (int k = 0; k < sqlite3_column_count(st); k++) {
                const unsigned char *t = sqlite3_column_text(st, k);
                size_t n = t ? strlen((const char *)t) : 4;
                while (len + n + 4 > cap) {
                    cap *= 2;
                    out = realloc(out, cap);
                    cr_assert_not_null(out);
                }
                len += (size_t)sprintf(out + len, "%s|", t ? (const char *)t : "NULL");
            }
            out[len++] = '\n';
            out[len] = '\0';
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(h);
    return out;
}

long long t_db_count(const char *db, const char *table)
{
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", table);
    if (is_pg(db))
        return t_pg_count(db, sql);
    sqlite3 *h = db_open(db);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
    long long n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(h);
    return n;
}

void t_db_unchanged(const char *db, char *before, const char *what)
{
    char *after = t_db_dump(db);
    bool same = strcmp(after, before) == 0;
    free(after);
    free(before);
    cr_assert(same, "%s changed the database", what);
}

/* One HTTP/1.1 GET on port (Connection: close): the status into *status,
 * the body (malloc'd) returned. */
char *t_http_get(int port, const char *path, int *status)
{
    tconn *c = tc_open(port);
    char req[256];
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
                     path);
    cr_assert(tc_send(c, req, (size_t)n));
    size_t len = 0, cap = 1 << 16;
    char *buf = malloc(cap);
    for (;;) {
        struct pollfd p = {c->fd, POLLIN, 0};
        cr_assert_gt(poll(&p, 1, T_TIMEOUT_MS), 0, "no answer to GET %s", path);
        if (len + 4096 > cap)
            buf = realloc(buf, cap *= 2);
        ssize_t r = read(c->fd, buf + len, cap - len - 1);
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    buf[len] = '\0';
    tc_close(c);
    cr_assert_eq(sscanf(buf, "HTTP/1.1 %d", status), 1, "%s", buf);
    char *body = strstr(buf, "\r\n\r\n");
    cr_assert_not_null(body);
    char *out = strdup(body + 4);
    free(buf);
    return out;
}
