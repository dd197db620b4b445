/*
 * config: see config.h. One row of `opts` per setting; the three sources
 * go through the same parse function, so a key means the same thing on
 * the command line, in the file and in the environment.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum {
    K_LISTEN,    /* HOST:PORT into host + srv.port */
    K_HTTP,      /* HOST:PORT into http_host + srv.http_port */
    K_DB,        /* a path into db */
    K_LEVEL,     /* error|warn|info|debug */
    K_PWHASH,    /* interactive|min */
    K_RATE,      /* BURST/PER_S|off */
    K_CRATE,     /* COUNT/SECONDS|off */
    K_INT,       /* an int field of srv_config at off, lo..hi */
    K_SIZE,      /* a size_t field of srv_config at off, lo..hi */
    K_INT64,     /* an int64_t field of srv_config at off, lo..hi */
    K_CLOCK,     /* the test clock's start, UTC ms */
    K_PAIRER,    /* a path into pairing_program */
    K_CONFIG,    /* the file itself (flag and environment only) */
} kind;

/* Where a setting may come from. */
enum { SRC_FLAG = 1, SRC_ENV = 2, SRC_FILE = 4, SRC_ALL = 7, SRC_TEST = 2 };

typedef struct opt {
    const char *name; /* --name, and the file's key */
    const char *env;  /* the environment variable */
    kind k;
    size_t off; /* K_INT/K_SIZE/K_INT64: offsetof(srv_config, field) */
    long long lo, hi;
    int from;  /* SRC_* */
    bool live; /* applied by a reload (srv_apply_live) */
} opt;

#define SOFF(f) offsetof(srv_config, f)

static const opt opts[] = {
    {"config", "QK_CONFIG", K_CONFIG, 0, 0, 0, SRC_FLAG | SRC_ENV, false},
    {"listen", "QK_LISTEN", K_LISTEN, 0, 0, 0, SRC_ALL, false},
    {"http", "QK_HTTP", K_HTTP, 0, 0, 0, SRC_ALL, false},
    {"db", "QK_DB", K_DB, 0, 0, 0, SRC_ALL, false},
    {"log-level", "QK_LOG_LEVEL", K_LEVEL, 0, 0, 0, SRC_ALL, true},
    {"ready-fd", "QK_READY_FD", K_INT, SOFF(ready_fd), 0, INT_MAX, SRC_FLAG | SRC_ENV, false},
    {"pwhash", "QK_PWHASH", K_PWHASH, 0, 0, 0, SRC_ALL, false},
    {"test-clock", "QK_TEST_CLOCK", K_CLOCK, 0, 0, 0, SRC_FLAG | SRC_ENV, false},
    {"rate-limit", "QK_RATE_LIMIT", K_RATE, 0, 0, 0, SRC_ALL, true},
    {"challenge-rate", "QK_CHALLENGE_RATE", K_CRATE, 0, 0, 0, SRC_ALL, true},
    {"max-conns", "QK_MAX_CONNS", K_INT, SOFF(max_conns), 1, 1 << 20, SRC_ALL, true},
    {"max-conns-per-address", "QK_MAX_CONNS_PER_ADDRESS", K_INT, SOFF(max_per_addr), 1, 1 << 20,
     SRC_ALL, true},
    {"max-conns-per-account", "QK_MAX_CONNS_PER_ACCOUNT", K_INT, SOFF(max_per_account), 1,
     1 << 20, SRC_ALL, true},
    {"pairing-program", "QK_PAIRING_PROGRAM", K_PAIRER, 0, 0, 0, SRC_ALL, false},
    /* --http's bounds (net/ws.h): a started WebSocket frame or message, an
     * HTTP request head; tests shorten them. */
    {"ws-frame-ms", "QK_WS_FRAME_MS", K_INT, SOFF(ws_frame_ms), 1, INT_MAX, SRC_ALL, false},
    {"http-head-ms", "QK_HTTP_HEAD_MS", K_INT, SOFF(http_head_ms), 1, INT_MAX, SRC_ALL, false},
    {"pairing-timeout", "QK_PAIRING_TIMEOUT_MS", K_INT, SOFF(pairing_timeout_ms), 1, 3600 * 1000,
     SRC_ALL, true},
    /* Tests and benchmarks only: environment variables, no flag or key. */
    {"fault-commit", "QK_FAULT_COMMIT", K_INT, SOFF(fail_commit_at), 0, INT_MAX, SRC_TEST, false},
    {"heartbeat-ms", "QK_HEARTBEAT_MS", K_INT, SOFF(heartbeat_ms), 1, INT_MAX, SRC_TEST, false},
    {"cluster-silent-ms", "QK_CLUSTER_SILENT_MS", K_INT, SOFF(cluster_silent_ms), 1, INT_MAX,
     SRC_TEST, false},
    {"cluster-refresh-beats", "QK_CLUSTER_REFRESH_BEATS", K_INT, SOFF(cluster_refresh_beats), 1,
     INT_MAX, SRC_TEST, false},
    /* The operator's one-off way past other sessions at migration 14
     * (docs/scale.md "Upgrading the nodes"): environment only. */
    {"pg-migrate-past-sessions", "QK_PG_MIGRATE_PAST_SESSIONS", K_INT,
     SOFF(pg_migrate_past_sessions), 0, 1, SRC_ENV, false},
    {"login-timeout-ms", "QK_LOGIN_TIMEOUT_MS", K_INT, SOFF(login_timeout_ms), 1, INT_MAX,
     SRC_TEST, false},
    {"max-hash-jobs", "QK_MAX_HASH_JOBS", K_INT, SOFF(max_hash_jobs), 1, 1 << 20, SRC_TEST,
     false},
    {"fault-fsync-ms", "QK_FAULT_FSYNC_MS", K_INT, SOFF(fsync_delay_ms), 0, 60000, SRC_TEST,
     false},
    {"out-limit", "QK_OUT_LIMIT", K_SIZE, SOFF(out_limit), 4096, INT_MAX, SRC_TEST, false},
    {"hash-delay-ms", "QK_TEST_HASH_DELAY_MS", K_INT, SOFF(hash_delay_ms), 0, 60000, SRC_TEST,
     false},
    {"upkeep-ms", "QK_UPKEEP_MS", K_INT, SOFF(upkeep_ms), 1, INT_MAX, SRC_TEST, false},
    {"wal-restart-frames", "QK_WAL_RESTART_FRAMES", K_INT, SOFF(wal_restart_frames), 1, INT_MAX,
     SRC_TEST, false},
    {"journal-limit", "QK_JOURNAL_LIMIT", K_INT64, SOFF(journal_limit), 4096, INT_MAX, SRC_TEST,
     false},
};

#define NOPTS (sizeof opts / sizeof opts[0])

static void say(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
}

static int parse_ll(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* "HOST:PORT" or "[V6HOST]:PORT" into host (size n) and port. */
static int parse_listen(const char *s, char *host, size_t n, int *port)
{
    const char *colon;
    const char *h = s;
    size_t hl;
    if (*s == '[') {
        const char *close = strchr(s, ']');
        if (!close || close[1] != ':')
            return -1;
        h = s + 1;
        hl = (size_t)(close - h);
        colon = close + 1;
    } else {
        colon = strrchr(s, ':');
        if (!colon)
            return -1;
        hl = (size_t)(colon - s);
    }
    long long p;
    if (hl == 0 || hl >= n || parse_ll(colon + 1, 0, 65535, &p) != 0)
        return -1;
    memcpy(host, h, hl);
    host[hl] = '\0';
    *port = (int)p;
    return 0;
}

static int copy_path(const char *v, char *buf, size_t n)
{
    if (!*v || strlen(v) >= n)
        return -1;
    memcpy(buf, v, strlen(v) + 1);
    return 0;
}

/* Apply value v of o to c. 0, or -1 when v is not a value of o. */
static int apply(config *c, const opt *o, const char *v)
{
    srv_config *s = &c->srv;
    long long x;
    switch (o->k) {
    case K_LISTEN:
        return parse_listen(v, c->host, sizeof c->host, &s->port);
    case K_HTTP:
        if (parse_listen(v, c->http_host, sizeof c->http_host, &s->http_port) != 0)
            return -1;
        s->http_host = c->http_host;
        return 0;
    case K_DB:
        return copy_path(v, c->db, sizeof c->db);
    case K_LEVEL:
        return log_level_parse(v, &c->level);
    case K_PWHASH:
        if (strcmp(v, "min") == 0)
            s->pwhash_min = true;
        else if (strcmp(v, "interactive") == 0)
            s->pwhash_min = false;
        else
            return -1;
        return 0;
    case K_RATE:
        return rate_cfg_parse(v, &s->rate);
    case K_CRATE:
        return rate_window_parse(v, &s->challenge_rate);
    case K_INT:
        if (parse_ll(v, o->lo, o->hi, &x) != 0)
            return -1;
        *(int *)((char *)s + o->off) = (int)x;
        return 0;
    case K_SIZE:
        if (parse_ll(v, o->lo, o->hi, &x) != 0)
            return -1;
        *(size_t *)((char *)s + o->off) = (size_t)x;
        return 0;
    case K_INT64:
        if (parse_ll(v, o->lo, o->hi, &x) != 0)
            return -1;
        *(int64_t *)((char *)s + o->off) = x;
        return 0;
    case K_CLOCK:
        if (parse_ll(v, 0, 9007199254740991LL, &x) != 0)
            return -1;
        s->test_clock = true;
        s->test_clock_ms = x;
        return 0;
    case K_PAIRER:
        if (copy_path(v, c->pairing_program, sizeof c->pairing_program) != 0)
            return -1;
        s->pairing_program = c->pairing_program;
        return 0;
    case K_CONFIG:
        if (copy_path(v, c->file_buf, sizeof c->file_buf) != 0)
            return -1;
        c->file = c->file_buf;
        return 0;
    }
    return -1;
}

static const opt *find(const char *name, int from)
{
    for (size_t i = 0; i < NOPTS; i++)
        if ((opts[i].from & from) && strcmp(opts[i].name, name) == 0)
            return &opts[i];
    return NULL;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

/* The settings of the file path into c. */
static int load_file(config *c, const char *path, char *err, size_t n)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        say(err, n, "%s: %s", path, strerror(errno));
        return -1;
    }
    char line[4608];
    int lineno = 0, rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n') {
            say(err, n, "%s:%d: line too long", path, lineno);
            rc = -1;
            break;
        }
        char *s = trim(line);
        if (!*s || *s == '#')
            continue;
        char *eq = strchr(s, '=');
        if (!eq) {
            say(err, n, "%s:%d: expected KEY = VALUE", path, lineno);
            rc = -1;
            break;
        }
        *eq = '\0';
        char *key = trim(s), *val = trim(eq + 1);
        const opt *o = find(key, SRC_FILE);
        if (!o) {
            say(err, n, "%s:%d: unknown key \"%s\"", path, lineno, key);
            rc = -1;
        } else if (apply(c, o, val) != 0) {
            say(err, n, "%s:%d: bad value for %s: \"%s\"", path, lineno, key, val);
            rc = -1;
        }
    }
    fclose(f);
    return rc;
}

int config_load(config *c, int argc, char **argv, char *err, size_t n)
{
    memset(c, 0, sizeof *c);
    snprintf(c->host, sizeof c->host, "127.0.0.1");
    snprintf(c->db, sizeof c->db, "./qirkat.db");
    c->srv = (srv_config){.host = c->host, .port = 7420, .db_path = c->db, .ready_fd = -1};
    c->level = LOG_INFO;
    /* The file comes first, so it is found before anything else: the
     * flag, else the environment. */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            c->help = true;
            return 0;
        }
        if (strcmp(argv[i], "--config") == 0 && i + 1 < argc && apply(c, find("config", SRC_FLAG), argv[i + 1]) != 0) {
            say(err, n, "bad --config");
            return -1;
        }
    }
    const char *envfile = getenv("QK_CONFIG");
    if (!c->file && envfile && *envfile)
        apply(c, find("config", SRC_ENV), envfile);
    if (c->file && load_file(c, c->file, err, n) != 0)
        return -1;
    /* The environment: a bad value is reported and ignored (an inherited
     * variable must not keep a server from starting), as before. */
    for (size_t i = 0; i < NOPTS; i++) {
        const opt *o = &opts[i];
        if (!(o->from & SRC_ENV) || o->k == K_CONFIG)
            continue;
        const char *v = getenv(o->env);
        if (!v)
            continue;
        config saved = *c;
        if (apply(c, o, v) != 0) {
            *c = saved;
            fprintf(stderr, "qirkatd: %s=%s is not a value of --%s: ignored\n", o->env, v,
                    o->name);
        }
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const opt *o = strncmp(a, "--", 2) == 0 ? find(a + 2, SRC_FLAG) : NULL;
        if (!o) {
            say(err, n, "unknown argument \"%s\"", a);
            return -1;
        }
        if (i + 1 >= argc) {
            say(err, n, "%s needs a value", a);
            return -1;
        }
        const char *v = argv[++i];
        if (o->k == K_CONFIG)
            continue;
        if (apply(c, o, v) != 0) {
            say(err, n, "bad value for %s: \"%s\"", a, v);
            return -1;
        }
    }
    /* Strings moved with the struct copy above: point into c again. */
    c->srv.host = c->host;
    c->srv.db_path = c->db;
    if (c->srv.http_host)
        c->srv.http_host = c->http_host;
    if (c->srv.pairing_program)
        c->srv.pairing_program = c->pairing_program;
    if (c->file)
        c->file = c->file_buf;
    return 0;
}

static void rate_text(const rate_cfg *r, char *b, size_t n)
{
    if (r->off)
        snprintf(b, n, "off");
    else if (r->burst == 0)
        snprintf(b, n, "default");
    else
        snprintf(b, n, "%u/%u", (unsigned)r->burst, (unsigned)r->per_s);
}

static void window_text(const rate_window *r, char *b, size_t n)
{
    if (r->off)
        snprintf(b, n, "off");
    else if (r->count == 0)
        snprintf(b, n, "default");
    else
        snprintf(b, n, "%u/%u", (unsigned)r->count, (unsigned)r->seconds);
}

/* The value of o in c as text (b, size n). */
static void value_text(const config *c, const opt *o, char *b, size_t n)
{
    const srv_config *s = &c->srv;
    static const char *const levels[] = {"error", "warn", "info", "debug"};
    switch (o->k) {
    case K_LISTEN:
        snprintf(b, n, "%s:%d", c->host, s->port);
        return;
    case K_HTTP:
        snprintf(b, n, "%s:%d", s->http_host ? c->http_host : "", s->http_port);
        return;
    case K_DB:
        snprintf(b, n, "%s", c->db);
        return;
    case K_LEVEL:
        snprintf(b, n, "%s", levels[c->level]);
        return;
    case K_PWHASH:
        snprintf(b, n, "%s", s->pwhash_min ? "min" : "interactive");
        return;
    case K_RATE:
        rate_text(&s->rate, b, n);
        return;
    case K_CRATE:
        window_text(&s->challenge_rate, b, n);
        return;
    case K_INT:
        snprintf(b, n, "%d", *(const int *)((const char *)s + o->off));
        return;
    case K_SIZE:
        snprintf(b, n, "%zu", *(const size_t *)((const char *)s + o->off));
        return;
    case K_INT64:
        snprintf(b, n, "%lld", (long long)*(const int64_t *)((const char *)s + o->off));
        return;
    case K_CLOCK:
        snprintf(b, n, "%lld", s->test_clock ? (long long)s->test_clock_ms : -1LL);
        return;
    case K_PAIRER:
        snprintf(b, n, "%s", s->pairing_program ? c->pairing_program : "");
        return;
    case K_CONFIG:
        snprintf(b, n, "%s", c->file ? c->file : "");
        return;
    }
}

void config_take_live(config *now, const config *next)
{
    for (size_t i = 0; i < NOPTS; i++) {
        const opt *o = &opts[i];
        if (!o->live)
            continue;
        switch (o->k) {
        case K_LEVEL:
            now->level = next->level;
            break;
        case K_RATE:
            now->srv.rate = next->srv.rate;
            break;
        case K_CRATE:
            now->srv.challenge_rate = next->srv.challenge_rate;
            break;
        case K_INT:
            *(int *)((char *)&now->srv + o->off) = *(const int *)((const char *)&next->srv + o->off);
            break;
        default: /* no other kind is live */
            break;
        }
    }
}

int config_live_diff(const config *old, const config *now, char *out, size_t n)
{
    int live = 0;
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < NOPTS; i++) {
        const opt *o = &opts[i];
        char a[4200], b[4200];
        value_text(old, o, a, sizeof a);
        value_text(now, o, b, sizeof b);
        if (strcmp(a, b) == 0)
            continue;
        int w = o->live ? snprintf(out + used, n - used, "%s%s: %s -> %s", used ? ", " : "",
                                   o->name, a, b)
                        : snprintf(out + used, n - used, "%s%s: needs a restart (kept %s)",
                                   used ? ", " : "", o->name, a);
        if (w > 0 && (size_t)w < n - used)
            used += (size_t)w;
        live += o->live;
    }
    return live;
}

void config_usage(FILE *f)
{
    fprintf(f,
            "usage: qirkatd [--config FILE] [--listen HOST:PORT] [--db FILE] [--http HOST:PORT]\n"
            "               [--log-level error|warn|info|debug] [--ready-fd FD]\n"
            "               [--pwhash interactive|min] [--rate-limit B/R|off]\n"
            "               [--challenge-rate N/S|off] [--max-conns N]\n"
            "               [--max-conns-per-address N] [--max-conns-per-account N]\n"
            "               [--pairing-program PATH] [--pairing-timeout MS] [--help]\n"
            "       qirkatd backup --db FILE OUT     consistent copy of a running server's database\n"
            "       qirkatd check --db FILE          integrity, foreign keys, every game replayed\n"
            "       qirkatd migrate --from FILE.db --db postgresql://...\n"
            "                                        copy a SQLite database into an empty PostgreSQL one\n"
            "Every setting is also a line KEY = VALUE of the --config file (KEY the flag without\n"
            "--) and an environment variable QK_KEY (upper case, - as _; the pairing timeout is\n"
            "QK_PAIRING_TIMEOUT_MS). The flag wins over the environment, which wins over the file.\n"
            "SIGHUP re-reads the file and applies the log level, the rate limits, the connection\n"
            "caps and the pairing timeout.\n"
            "  --config FILE       read settings from FILE (env QK_CONFIG; none by default)\n"
            "  --listen HOST:PORT  address to listen on (default 127.0.0.1:7420; port 0 picks a\n"
            "                      free one; IPv6 as [::1]:7420)\n"
            "  --http HOST:PORT    also serve the web page at / and the protocol over WebSocket\n"
            "                      at /ws (port 0 picks a free one; none by default)\n"
            "  --ws-frame-ms MS    a started WebSocket frame or message must end within MS\n"
            "                      (default 10000), else close 1008\n"
            "  --http-head-ms MS   an HTTP request head must arrive within MS (default 10000)\n"
            "  --db FILE|URL       SQLite database, created if missing (default ./qirkat.db),\n"
            "                      or a PostgreSQL URL postgresql://USER@HOST:PORT/DBNAME\n"
            "  --log-level LEVEL   stderr verbosity (default info)\n"
            "  --ready-fd FD       once listening, write the port and a newline to FD and close\n"
            "                      it (with --http, the HTTP port on a second line)\n"
            "  --pwhash min        cheapest Argon2id limits (tests and benchmarks only)\n"
            "  --test-clock MS     tests only: the clock starts at MS (UTC ms) and moves only by\n"
            "                      the debug_clock op\n"
            "  --rate-limit B/R    requests per connection: bursts of B, R per second\n"
            "                      (default 1000/200; \"off\" for none)\n"
            "  --challenge-rate N/S  challenges per account: at most N in any S seconds\n"
            "                      (default 60/600; \"off\" for none)\n"
            "  --max-conns N       connections in all (default 4096); each needs a file\n"
            "                      descriptor (RLIMIT_NOFILE)\n"
            "  --max-conns-per-address N  connections from one address (default 200)\n"
            "  --max-conns-per-account N  connections logged in as one user (default 8)\n"
            "  --pairing-program PATH  an external Swiss pairer run as PATH --dutch IN -p OUT\n"
            "                      (bbpPairings); tournaments with \"pairer\": \"external\" use it\n"
            "  --pairing-timeout MS  longest run of it (default 10000)\n");
}
