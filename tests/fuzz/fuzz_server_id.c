/*
 * libFuzzer target: the invariant of docs/protocol.md sections 2 and 3,
 * "every request with a valid top-level id gets exactly one answer
 * carrying that id", checked against a real qirkatd over its TCP port
 * (JSON lines) and its WebSocket port (/ws, one text message per request).
 *
 * The oracle is not the server's code. Each input drives a generator that
 * writes one request line whose validity is known by construction: one
 * JSON object (RFC 8259 exactly: valid UTF-8, no \u0000, surrogates only
 * as escaped pairs, numbers of the grammar, no control byte) with exactly
 * one top-level key that decodes to "id", whose value is a valid id (an
 * integer 0..2^53-1 written as plain digits, or a string), and otherwise
 * anything the input picks: real op names (docs/protocol.md section 6) and
 * unknown ones or non-strings as "type", every JSON type as a field,
 * duplicated keys (also "type") at any level, case variants of real keys
 * ("ID", "Type"), nesting 1..5000 levels deep (past the 16-level limit and
 * past cJSON's 1,000), long strings, escapes, numbers at the edges (1e999,
 * 2^53, 400 digits), whitespace anywhere a token ends. Each line is sent
 * once over TCP and once over WebSocket, followed by a sentinel
 * {"type":"ping","id":"sentinel-..."}; everything is read up to the
 * sentinel's answer, and events (type "event", no id) are skipped. What
 * must hold, from docs/protocol.md:
 *
 *   - a line of at most 65,536 bytes (without its "\n" or "\r\n"; over
 *     WebSocket the message): exactly one answer before the sentinel's,
 *     and it carries the request's id (the same value: the number, or the
 *     string decoded); the connection stays open. Section 3 item 1 says
 *     even a line with a repeated field or too deep keeps its id "at any
 *     depth"; a valid line is never bad_json, which has none.
 *   - a longer line (the generator pads some to exactly 65,536 bytes, the
 *     largest allowed, and some to 65,537 and beyond): section 1 says
 *     line_too_long "(no id)" and the connection is closed. So the
 *     invariant does not apply: no answer may carry the id, the only answer
 *     allowed is line_too_long without id (the server may also reset the
 *     connection before we read it, since it closes with our bytes unread),
 *     the connection must close, and the sentinel must be answered on a
 *     new one.
 *
 * A second, smaller check: the raw input bytes (without "\n" and "\r") as
 * one line, also over both transports: whatever they are, exactly one
 * answer comes before the sentinel's (an empty line: none) and the
 * connection stays open (for at most 65,536 bytes): no crash, no hang.
 *
 * Every server message must parse as JSON (cJSON, not the server's
 * parser). A lost answer, a second one, a closed connection, a dead server
 * or 5 s of silence abort(), and libFuzzer saves the input (the 5 s are
 * waited in full through libFuzzer's own -timeout alarms: fuzz_wait.h,
 * which once cut them short and reported lost answers); the failing
 * line is also written whole to ./fuzz-server_id-failing-line.txt.
 *
 * The server is build/qirkatd (QK_BIN), started by LLVMFuzzerInitialize
 * with --listen and --http on ephemeral ports, a fresh database in a temp
 * directory, --pwhash min, QK_RATE_LIMIT=off; the ports come from
 * --ready-fd (docs/design.md). It dies with us (PR_SET_PDEATHSIG, also
 * when libFuzzer _Exit()s after a crash); a small guardian process removes
 * the temp directory once we are gone, however we went. One flag bit of
 * each input sends the generated line on a pair of connections logged in
 * as one account (so ops past the login check run), else on anonymous
 * ones; connections are reopened when the server closes one, and
 * anonymous ones every 45 s (the 60 s login deadline of section 4).
 *
 * To debug: QK_FUZZ_PRINT=1 prints each generated line; QK_FUZZ_LOG_LEVEL
 * sets the server's --log-level (default error); QK_FUZZ_DIAG=1 adds the
 * server threads' kernel state (/proc) to a timeout's report.
 */
#define _GNU_SOURCE /* memmem, prctl */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "fuzz_gen.h"
#include "fuzz_util.h"
#include "fuzz_wait.h"

#define WAIT_MS 5000 /* one answer; libFuzzer's -timeout=10 is per input */
#define ANON_MAX_AGE_MS 45000

/* ---- the server ------------------------------------------------------------ */

static pid_t g_server = -1;
static int g_guard = -1; /* write end: the guardian cleans up at its EOF */
static char g_dir[64];
static int g_tcp_port, g_http_port;
static unsigned long long g_nonce;

static int rm_cb(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

/* Called when the server is gone: say how. Never returns. */
static void server_died(const char *what)
{
    int st = 0;
    pid_t r = g_server > 0 ? waitpid(g_server, &st, WNOHANG) : -1;
    if (r == g_server) {
        g_server = -1;
        if (WIFSIGNALED(st))
            fz_fail("%s: qirkatd died of signal %d", what, WTERMSIG(st));
        fz_fail("%s: qirkatd exited with status %d", what, WEXITSTATUS(st));
    }
    fz_fail("%s (qirkatd still running)", what);
}

static void stop_server(void)
{
    if (g_server > 0) {
        kill(g_server, SIGTERM);
        int st = 0;
        long long end = ms_now() + 5000;
        pid_t r = 0;
        while ((r = waitpid(g_server, &st, WNOHANG)) == 0 && ms_now() < end)
            usleep(10000);
        if (r == 0) {
            fprintf(stderr, "fuzz-server_id: qirkatd did not stop within 5 s\n");
            kill(g_server, SIGKILL);
            waitpid(g_server, &st, 0);
        } else if (r == g_server && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
            fprintf(stderr, "fuzz-server_id: qirkatd's stop was not clean (status 0x%x)\n", st);
        }
        g_server = -1;
    }
    if (g_guard >= 0) {
        close(g_guard); /* the guardian removes g_dir */
        g_guard = -1;
    }
}

static void start_server(void)
{
    const char *bin = getenv("QK_BIN");
    char path[4096];
    snprintf(path, sizeof path, "%s/qirkatd", bin && *bin ? bin : "build");
    if (access(path, X_OK) != 0) {
        fprintf(stderr, "fuzz-server_id: no %s (build it first: make all; QK_BIN=DIR)\n", path);
        exit(1);
    }
    snprintf(g_dir, sizeof g_dir, "/tmp/qk-fuzz-XXXXXX");
    fz_check(mkdtemp(g_dir) != NULL, "mkdtemp: %s", strerror(errno));
    char db[128], fdarg[16];
    snprintf(db, sizeof db, "%s/fuzz.db", g_dir);
    int ready[2];
    fz_check(pipe(ready) == 0, "pipe: %s", strerror(errno));
    snprintf(fdarg, sizeof fdarg, "%d", ready[1]);
    pid_t parent = getpid();
    g_server = fork();
    fz_check(g_server >= 0, "fork: %s", strerror(errno));
    if (g_server == 0) {
        /* Die with the fuzzer, however it ends (libFuzzer _Exit()s after
         * a crash, so no atexit handler would run). */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(1);
        close(ready[0]);
        setenv("QK_RATE_LIMIT", "off", 1);
        const char *level = getenv("QK_FUZZ_LOG_LEVEL"); /* to debug: info */
        if (!level || !*level)
            level = "error";
        execl(path, path, "--listen", "127.0.0.1:0", "--http", "127.0.0.1:0", "--db", db,
              "--ready-fd", fdarg, "--pwhash", "min", "--log-level", level, (char *)NULL);
        _exit(127);
    }
    close(ready[1]);
    char txt[64];
    size_t n = 0;
    struct pollfd pf = {.fd = ready[0], .events = POLLIN};
    long long end = ms_now() + 20000;
    while (n < sizeof txt - 1 && ms_now() < end) {
        if (poll(&pf, 1, 200) <= 0)
            continue;
        ssize_t r = read(ready[0], txt + n, sizeof txt - 1 - n);
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    close(ready[0]);
    txt[n] = '\0';
    if (sscanf(txt, "%d\n%d\n", &g_tcp_port, &g_http_port) != 2)
        server_died("qirkatd gave no TCP and HTTP ports on --ready-fd");

    /* The guardian: waits for our end of a pipe to close, for whatever
     * reason, then for the server to go, then removes the directory. */
    int gp[2];
    fz_check(pipe(gp) == 0, "pipe: %s", strerror(errno));
    pid_t gpid = fork();
    fz_check(gpid >= 0, "fork: %s", strerror(errno));
    if (gpid == 0) {
        signal(SIGINT, SIG_IGN);
        signal(SIGTERM, SIG_IGN);
        signal(SIGHUP, SIG_IGN);
        close(gp[1]);
        char c;
        while (read(gp[0], &c, 1) < 0 && errno == EINTR)
            ;
        for (int i = 0; i < 500 && kill(g_server, 0) == 0; i++)
            usleep(10000);
        nftw(g_dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
        _exit(0);
    }
    close(gp[0]);
    fcntl(gp[1], F_SETFD, FD_CLOEXEC);
    g_guard = gp[1];
    atexit(stop_server);
}

/* ---- connections ----------------------------------------------------------- */

enum { WS_CONT = 0, WS_TEXT = 1, WS_CLOSE = 8, WS_PING = 9, WS_PONG = 10 };

typedef struct peer {
    const char *name;
    bool ws, auth;
    int fd;
    buf in;  /* bytes read, not yet taken */
    buf msg; /* WebSocket: the fragments of a message so far */
    bool closed;
    int close_code; /* WebSocket: the status of the server's close frame, 0 = none */
    long long born;
} peer;

static peer g_peers[4] = {
    {.name = "tcp", .fd = -1},
    {.name = "ws", .ws = true, .fd = -1},
    {.name = "tcp(logged in)", .auth = true, .fd = -1},
    {.name = "ws(logged in)", .ws = true, .auth = true, .fd = -1},
};

/* After a timeout: does the server answer a ping on a new TCP connection
 * within 2 s? Tells a stuck connection from a stuck server. */
static const char *probe(const peer *p)
{
    static char say[256];
    struct tcp_info ti;
    socklen_t tl = sizeof ti;
    char st[128] = "";
    struct sockaddr_in me;
    socklen_t ml = sizeof me;
    if (p && p->fd >= 0 && getsockopt(p->fd, IPPROTO_TCP, TCP_INFO, &ti, &tl) == 0 &&
        getsockname(p->fd, (struct sockaddr *)&me, &ml) == 0 && getenv("QK_FUZZ_DIAG")) {
        char cmd[200];
        snprintf(cmd, sizeof cmd,
                 "for t in /proc/%d/task/*; do echo $(cat $t/comm) $(cat $t/wchan) "
                 "$(head -3 $t/stack); done >&2",
                 (int)g_server);
        if (system(cmd)) {
        }
    }
    if (p && p->fd >= 0 && getsockopt(p->fd, IPPROTO_TCP, TCP_INFO, &ti, &tl) == 0 &&
        getsockname(p->fd, (struct sockaddr *)&me, &ml) == 0)
        snprintf(st, sizeof st,
                 "our socket: port %d, state %u, unacked %u, retransmits %u, last ack %u ms ago",
                 ntohs(me.sin_port), ti.tcpi_state, ti.tcpi_unacked, ti.tcpi_total_retrans,
                 ti.tcpi_last_ack_recv);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)g_tcp_port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        if (fd >= 0)
            close(fd);
        return "the server takes no connection";
    }
    static const char ping[] = "{\"type\":\"ping\",\"id\":\"probe\"}\n";
    char got[256];
    size_t n = 0;
    bool ok = send(fd, ping, sizeof ping - 1, MSG_NOSIGNAL) == (ssize_t)sizeof ping - 1;
    long long end = ms_now() + 2000;
    while (ok && n < sizeof got - 1 && !memchr(got, '\n', n) && ms_now() < end) {
        if (fz_wait_fd(fd, POLLIN, end) <= 0)
            break;
        ssize_t r = recv(fd, got + n, sizeof got - 1 - n, 0);
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    snprintf(say, sizeof say, "%s; %s",
             n && memchr(got, '\n', n) ? "the server answers a ping on a new connection"
                                       : "the server answers no ping on a new connection either",
             st);
    return say;
}

static const char *g_line; /* what was sent last, for the failure report */
static size_t g_line_len;

/* Say what broke, with the line (whole, in a file), and abort. */
#define fz_fail_line(p, ...)                                                                       \
    do {                                                                                           \
        FILE *f_ = fopen("fuzz-server_id-failing-line.txt", "wb");                                 \
        if (f_) {                                                                                  \
            fwrite(g_line, 1, g_line_len, f_);                                                     \
            fclose(f_);                                                                            \
        }                                                                                          \
        fprintf(stderr,                                                                            \
                "over %s, the line of %zu bytes (whole in "                                        \
                "fuzz-server_id-failing-line.txt): %.400s%s\n",                                    \
                (p)->name, g_line_len, g_line, g_line_len > 400 ? "..." : "");                     \
        fz_fail(__VA_ARGS__);                                                                      \
    } while (0)

static bool send_all(peer *p, const void *data, size_t n)
{
    const char *d = data;
    while (n > 0) {
        ssize_t w = send(p->fd, d, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (fz_wait_fd(p->fd, POLLOUT, ms_now() + WAIT_MS) <= 0)
                return false;
            continue;
        }
        if (w <= 0)
            return false;
        d += w;
        n -= (size_t)w;
    }
    return true;
}

/* More bytes into p->in. 1: some; 0: EOF or reset; -1: timeout. The
 * wait goes on through libFuzzer's alarms (fuzz_wait.h): an interrupted
 * poll() is no timeout. */
static int fill(peer *p, long long deadline)
{
    if (fz_wait_fd(p->fd, POLLIN, deadline) <= 0)
        return -1;
    buf_reserve(&p->in, 65536);
    ssize_t r = recv(p->fd, p->in.p + p->in.len, p->in.cap - p->in.len - 1, 0);
    if (r < 0 && (errno == EINTR || errno == EAGAIN))
        return 1;
    if (r <= 0) {
        p->closed = true;
        return 0;
    }
    p->in.len += (size_t)r;
    p->in.p[p->in.len] = '\0';
    return 1;
}

static void take(peer *p, size_t n)
{
    memmove(p->in.p, p->in.p + n, p->in.len - n);
    p->in.len -= n;
    if (p->in.p)
        p->in.p[p->in.len] = '\0';
}

/* One client frame, masked (RFC 6455 5.2, 5.3). */
static bool ws_frame(peer *p, int op, bool fin, const void *data, size_t n, uint32_t mask)
{
    buf f = {0};
    unsigned char h[14];
    size_t k = 0;
    h[k++] = (unsigned char)((fin ? 0x80 : 0) | op);
    if (n < 126) {
        h[k++] = (unsigned char)(0x80 | n);
    } else if (n < 65536) {
        h[k++] = 0x80 | 126;
        h[k++] = (unsigned char)(n >> 8);
        h[k++] = (unsigned char)n;
    } else {
        h[k++] = 0x80 | 127;
        for (int i = 7; i >= 0; i--)
            h[k++] = (unsigned char)((uint64_t)n >> (8 * i));
    }
    unsigned char m[4] = {(unsigned char)(mask >> 24), (unsigned char)(mask >> 16),
                          (unsigned char)(mask >> 8), (unsigned char)mask};
    memcpy(h + k, m, 4);
    k += 4;
    buf_add(&f, h, k);
    buf_reserve(&f, n);
    const unsigned char *d = data;
    for (size_t i = 0; i < n; i++)
        f.p[f.len + i] = (char)(d[i] ^ m[i % 4]);
    f.len += n;
    bool ok = send_all(p, f.p, f.len);
    free(f.p);
    return ok;
}

/* The next protocol message of p, parsed (caller cJSON_Delete()s).
 * 1: a message; 0: the connection closed; -1: nothing within the deadline.
 * TCP: empty lines (the heartbeat) are skipped. WebSocket: pings are
 * answered, pongs skipped, a close frame closes. */
static int next_msg(peer *p, long long deadline, cJSON **out)
{
    *out = NULL;
    for (;;) {
        if (!p->ws) {
            char *nl = p->in.len ? memchr(p->in.p, '\n', p->in.len) : NULL;
            if (nl) {
                size_t n = (size_t)(nl - p->in.p);
                if (n == 0) {
                    take(p, 1);
                    continue;
                }
                *out = cJSON_ParseWithLength(p->in.p, n);
                if (!*out)
                    fz_fail_line(p, "the server sent a line that is not JSON: %.*s",
                                 (int)(n > 300 ? 300 : n), p->in.p);
                take(p, n + 1);
                return 1;
            }
        } else {
            /* One whole frame at a time, taken at once; a message's
             * fragments gather in p->msg (control frames may come
             * between them, RFC 6455 5.4). */
            unsigned char *f = (unsigned char *)p->in.p;
            size_t have = p->in.len, hl = 2;
            uint64_t n = have >= 2 ? f[1] & 0x7f : 0;
            if (have >= 2) {
                fz_check(!(f[1] & 0x80), "a masked server frame");
                if (n == 126) {
                    hl = 4;
                    n = have >= 4 ? (uint64_t)f[2] << 8 | f[3] : 0;
                } else if (n == 127) {
                    hl = 10;
                    n = 0;
                    for (int i = 0; i < 8 && have >= 10; i++)
                        n = n << 8 | f[2 + i];
                }
            }
            if (have >= 2 && have >= hl && have - hl >= n) {
                int op = f[0] & 0x0f;
                bool fin = f[0] & 0x80;
                if (op == WS_TEXT || op == WS_CONT) {
                    buf_add(&p->msg, f + hl, n);
                } else if (op == WS_PING) {
                    char pl[126];
                    size_t k = n < sizeof pl ? n : sizeof pl;
                    memcpy(pl, f + hl, k);
                    take(p, hl + n);
                    ws_frame(p, WS_PONG, true, pl, k, 0x11223344u);
                    continue;
                } else if (op == WS_CLOSE) {
                    p->close_code = n >= 2 ? (f[hl] << 8 | f[hl + 1]) : 1005;
                    take(p, hl + n);
                    p->closed = true;
                    return 0;
                } else if (op != WS_PONG) {
                    fz_fail("server frame of opcode %d", op);
                }
                take(p, hl + n);
                if (op == WS_PONG || !fin)
                    continue;
                *out = cJSON_ParseWithLength(p->msg.p ? p->msg.p : "", p->msg.len);
                if (!*out)
                    fz_fail_line(p, "the server sent a message that is not JSON: %.300s",
                                 p->msg.p ? p->msg.p : "");
                p->msg.len = 0;
                return 1;
            }
        }
        int r = fill(p, deadline);
        if (r <= 0)
            return r;
    }
}

static void peer_drop(peer *p)
{
    if (p->fd >= 0)
        close(p->fd);
    p->fd = -1;
    p->in.len = p->msg.len = 0;
    p->closed = false;
    p->close_code = 0;
}

static char g_user[40] = "fuzzer";
static const char g_password[] = "fuzzer-password";

static void peer_rpc_ok(peer *p, const char *line, cJSON **res);

static void peer_open(peer *p)
{
    peer_drop(p);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    fz_check(fd >= 0, "socket: %s", strerror(errno));
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons((uint16_t)(p->ws ? g_http_port : g_tcp_port))};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    /* A connect that fails while the server runs is retried a few times:
     * seen once in CI on a machine whose earlier suites had just made
     * thousands of loopback connections (errno not recorded then); the
     * server's death is still reported at once by server_died(). */
    int tries = 0;
    while (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        int e = errno;
        close(fd);
        /* Dead? Looked at without reaping it: server_died() reads how. */
        siginfo_t si = {0};
        bool dead = g_server <= 0 ||
                    waitid(P_PID, (id_t)g_server, &si, WEXITED | WNOHANG | WNOWAIT) != 0 ||
                    si.si_pid != 0;
        if (dead || ++tries > 5) {
            fprintf(stderr, "fuzz-server_id: connect: %s (try %d)\n", strerror(e), tries);
            server_died("cannot connect");
        }
        fprintf(stderr, "fuzz-server_id: connect: %s; retrying\n", strerror(e));
        usleep(100 * 1000);
        fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        fz_check(fd >= 0, "socket: %s", strerror(errno));
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    p->fd = fd;
    p->born = ms_now();
    if (p->ws) {
        static const char req[] = "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                                  "Connection: Upgrade\r\nSec-WebSocket-Key: "
                                  "dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";
        fz_check(send_all(p, req, sizeof req - 1), "sending the upgrade failed");
        long long end = ms_now() + WAIT_MS;
        char *e;
        while (!(e = p->in.len ? memmem(p->in.p, p->in.len, "\r\n\r\n", 4) : NULL))
            if (fill(p, end) <= 0)
                server_died("no answer to the WebSocket upgrade");
        /* RFC 6455 1.3: the accept value of this key. */
        fz_check(strncmp(p->in.p, "HTTP/1.1 101", 12) == 0 &&
                     memmem(p->in.p, (size_t)(e - p->in.p), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", 28),
                 "upgrade refused: %.200s", p->in.p);
        take(p, (size_t)(e + 4 - p->in.p));
    }
    if (p->auth) {
        char line[256];
        snprintf(
            line, sizeof line,
            "{\"type\":\"login\",\"id\":\"login-%llu\",\"username\":\"%s\",\"password\":\"%s\"}",
            (unsigned long long)++g_seq, g_user, g_password);
        peer_rpc_ok(p, line, NULL);
    }
}

static void peer_ready(peer *p)
{
    if (p->fd < 0 || p->closed || (!p->auth && ms_now() - p->born > ANON_MAX_AGE_MS))
        peer_open(p);
}

/* Transport choices for one send, from the input. */
typedef struct xopt {
    unsigned crlf, blank, split; /* TCP: "\r\n" ending; empty lines before; cut points */
    unsigned frags, ping;        /* WS: fragments; a ping between them */
    uint32_t mask;
} xopt;

/* Send one message as the transport frames it. False if the server
 * closed meanwhile. */
static bool send_msg(peer *p, const char *m, size_t n, const xopt *o)
{
    if (!p->ws) {
        buf b = {0};
        for (unsigned i = 0; i < o->blank; i++)
            buf_str(&b, i & 1 ? "\r\n" : "\n");
        buf_add(&b, m, n);
        buf_str(&b, o->crlf ? "\r\n" : "\n");
        bool ok = true;
        size_t parts = 1 + o->split % 4, off = 0;
        for (size_t i = 0; i < parts && ok; i++) {
            size_t end = i + 1 == parts ? b.len : b.len * (i + 1) / parts;
            ok = send_all(p, b.p + off, end - off);
            off = end;
        }
        free(b.p);
        return ok;
    }
    size_t frags = 1 + o->frags % 4, off = 0;
    if (frags > n)
        frags = n ? n : 1;
    for (size_t i = 0; i < frags; i++) {
        size_t end = i + 1 == frags ? n : n * (i + 1) / frags;
        if (!ws_frame(p, i ? WS_CONT : WS_TEXT, i + 1 == frags, m + off, end - off, o->mask))
            return false;
        if (o->ping && i + 1 < frags && !ws_frame(p, WS_PING, true, "fz", 2, o->mask))
            return false;
        off = end;
    }
    return true;
}

/* The answer to a request of our own: must be ok. */
static void peer_rpc_ok(peer *p, const char *line, cJSON **res)
{
    static const xopt plain = {0};
    g_line = line;
    g_line_len = strlen(line);
    cJSON *want = cJSON_Parse(line);
    fz_check(want != NULL, "own line: %s", line);
    const cJSON *wid = cJSON_GetObjectItemCaseSensitive(want, "id");
    if (!send_msg(p, line, strlen(line), &plain))
        server_died("connection lost");
    long long end = ms_now() + WAIT_MS;
    for (;;) {
        cJSON *m;
        int r = next_msg(p, end, &m);
        if (r == 0)
            server_died("connection closed");
        if (r < 0)
            fz_fail_line(p, "no answer within %d ms (%s)", WAIT_MS, probe(p));
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(m, "id");
        const cJSON *ty = cJSON_GetObjectItemCaseSensitive(m, "type");
        if (id && cJSON_Compare(id, wid, true)) {
            if (!cJSON_IsString(ty) || strcmp(ty->valuestring, "ok") != 0) {
                char *t = cJSON_PrintUnformatted(m);
                fz_fail_line(p, "setup request refused: %s", t ? t : "?");
            }
            if (res)
                *res = m;
            else
                cJSON_Delete(m);
            cJSON_Delete(want);
            return;
        }
        cJSON_Delete(m);
    }
}

/* ---- the exchange ---------------------------------------------------------- */

typedef enum { X_ID, X_TOO_LONG, X_RAW } xkind;

/* Does message m carry the request's id? */
static bool has_id(const cJSON *m, const rid *id)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, "id");
    if (!v)
        return false;
    if (id->is_str)
        return cJSON_IsString(v) && strlen(v->valuestring) == id->dec.len &&
               memcmp(v->valuestring, id->dec.p, id->dec.len) == 0;
    return cJSON_IsNumber(v) && v->valuedouble == (double)id->num;
}

static bool is_sentinel(const cJSON *m, const char *sid)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, "id");
    return cJSON_IsString(v) && strcmp(v->valuestring, sid) == 0;
}

/* Whether s is UTF-8 as RFC 6455 8.1 asks of a text message (RFC 3629:
 * no overlong forms, no surrogates, nothing above U+10FFFF). */
static bool utf8_ok(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        size_t k = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
        if (!k || i + k > n)
            return false;
        unsigned cp = k == 1 ? c : k == 2 ? c & 0x1f : k == 3 ? c & 0x0f : c & 0x07;
        for (size_t j = 1; j < k; j++) {
            if ((s[i + j] & 0xc0) != 0x80)
                return false;
            cp = cp << 6 | (s[i + j] & 0x3f);
        }
        static const unsigned min[5] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < min[k] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return false;
        i += k;
    }
    return true;
}

/* The sentinel on a fresh connection after p was closed: the server is
 * alive and answers. */
static void sentinel_alone(peer *p)
{
    char line[96];
    snprintf(line, sizeof line, "{\"type\":\"ping\",\"id\":\"sentinel-%llx-%llu\"}", g_nonce,
             (unsigned long long)++g_seq);
    peer_open(p);
    peer_rpc_ok(p, line, NULL);
}

/* Send line (len bytes) on p, then the sentinel, and check the answers
 * before the sentinel's against what kind says (the header comment). */
static void exchange(peer *p, const char *line, size_t len, xkind kind, const rid *id,
                     const xopt *o)
{
    peer_ready(p);
    char sid[64], sent[128];
    snprintf(sid, sizeof sid, "sentinel-%llx-%llu", g_nonce, (unsigned long long)++g_seq);
    int sl = snprintf(sent, sizeof sent, "{\"type\":\"ping\",\"id\":\"%s\"}", sid);
    g_line = line;
    g_line_len = len;
    bool over = len > LINE_LIMIT;
    bool sent_ok = send_msg(p, line, len, o);
    if (!over) {
        if (!sent_ok)
            server_died("the connection broke while sending");
        if (!send_msg(p, sent, (size_t)sl, o))
            server_died("the connection broke while sending");
    }
    unsigned replies = 0, with_id = 0;
    char first[512] = "";
    long long end = ms_now() + WAIT_MS;
    for (;;) {
        cJSON *m;
        int r = next_msg(p, end, &m);
        if (r < 0)
            fz_fail_line(p, "%s within %d ms (%u answers so far: %s; %s)",
                         over ? "the connection stayed open after an over-long line"
                              : "no answer to the sentinel",
                         WAIT_MS, replies, first, probe(p));
        if (r == 0) {
            if (over)
                break;
            /* A text message that is not UTF-8 ends a WebSocket with 1007
             * (RFC 6455 8.1, docs/protocol.md): no answer is owed. */
            if (kind == X_RAW && p->ws && !utf8_ok((const unsigned char *)line, len) &&
                p->close_code == 1007 && replies == 0) {
                sentinel_alone(p);
                return;
            }
            if (kill(g_server, 0) != 0 || waitpid(g_server, NULL, WNOHANG) == g_server)
                server_died("the connection closed");
            fz_fail_line(p,
                         "the server closed the connection before the sentinel's answer "
                         "(%u answers before: %s)",
                         replies, first);
        }
        const cJSON *ty = cJSON_GetObjectItemCaseSensitive(m, "type");
        bool event = cJSON_IsString(ty) && strcmp(ty->valuestring, "event") == 0;
        if (is_sentinel(m, sid)) {
            cJSON_Delete(m);
            break;
        }
        if (event && !cJSON_GetObjectItemCaseSensitive(m, "id")) {
            cJSON_Delete(m);
            continue;
        }
        replies++;
        if (kind != X_RAW && has_id(m, id))
            with_id++;
        if (replies <= 2) {
            char *t = cJSON_PrintUnformatted(m);
            size_t fl = strlen(first);
            snprintf(first + fl, sizeof first - fl, "%s%.240s", fl ? " | " : "", t ? t : "?");
            free(t);
        }
        if (over) {
            const cJSON *code = cJSON_GetObjectItemCaseSensitive(m, "code");
            if (!cJSON_IsString(code) || strcmp(code->valuestring, "line_too_long") != 0 ||
                cJSON_GetObjectItemCaseSensitive(m, "id"))
                fz_fail_line(p, "an over-long line got %s, not line_too_long without id", first);
        }
        cJSON_Delete(m);
    }
    switch (kind) {
    case X_ID:
        if (replies != 1 || with_id != 1)
            fz_fail_line(p, "%u answers, %u with the request's id %s (want exactly 1, with it): %s",
                         replies, with_id, id->text.p, first);
        break;
    case X_TOO_LONG:
        if (replies > 1 || with_id)
            fz_fail_line(p, "an over-long line got %u answers: %s", replies, first);
        sentinel_alone(p);
        break;
    case X_RAW:
        if (replies != (len ? 1u : 0u))
            fz_fail_line(p, "a raw line of %zu bytes got %u answers: %s", len, replies, first);
        if (over)
            sentinel_alone(p);
        break;
    }
}

static void opts_from(src *s, xopt *o)
{
    unsigned a = u8(s), b = u8(s);
    o->crlf = a & 1;
    o->blank = a >> 1 & 3;
    if (o->blank == 3)
        o->blank = 0;
    o->split = a >> 3 & 7;
    o->frags = b & 7;
    o->ping = b >> 3 & 1;
    o->mask = (uint32_t)u16(s) << 16 | u16(s);
}

/* ---- libFuzzer ------------------------------------------------------------- */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    signal(SIGPIPE, SIG_IGN);
    g_print = getenv("QK_FUZZ_PRINT") && *getenv("QK_FUZZ_PRINT") == '1';
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    g_nonce = (unsigned long long)ts.tv_nsec ^ (unsigned long long)getpid() << 32;
    start_server();
    /* One account, for the logged-in pair. */
    peer *setup = &g_peers[0];
    peer_open(setup);
    char line[256];
    snprintf(line, sizeof line,
             "{\"type\":\"register\",\"id\":\"setup\",\"username\":\"%s\",\"password\":\"%s\"}",
             g_user, g_password);
    peer_rpc_ok(setup, line, NULL);
    peer_drop(setup);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    src s = {.p = data, .n = size};
    unsigned flags = u8(&s);
    bool auth = flags & 1;
    unsigned sm = flags >> 1 & 15;
    unsigned size_mode = sm < 12 ? SZ_FREE : sm < 13 ? SZ_EXACT : sm < 14 ? SZ_OVER1 : SZ_OVER;
    xopt ot, ow;
    opts_from(&s, &ot);
    opts_from(&s, &ow);

    gen g = {.s = &s};
    rid id = {0};
    g_seq++;
    gen_line(&g, &id, size_mode);
    xkind k = g.out.len > LINE_LIMIT ? X_TOO_LONG : X_ID;
    if (g_print) /* QK_FUZZ_PRINT=1: each generated line, to see what seeds make */
        fprintf(stderr, "fuzz-server_id: %zu bytes, %s: %.300s%s\n", g.out.len,
                auth ? "logged in" : "anonymous", g.out.p, g.out.len > 300 ? "..." : "");
    peer *tcp = &g_peers[auth ? 2 : 0], *ws = &g_peers[auth ? 3 : 1];
    exchange(tcp, g.out.p, g.out.len, k, &id, &ot);
    exchange(ws, g.out.p, g.out.len, k, &id, &ow);
    if (auth && g.session_op) {
        /* A login, logout or register may have changed who is logged in. */
        peer_open(tcp);
        peer_open(ws);
    }

    /* The raw bytes as a line: never a crash, a hang or a lost answer. */
    buf raw = {0};
    for (size_t i = 0; i < size && raw.len < LINE_LIMIT; i++)
        if (data[i] != '\n' && data[i] != '\r')
            buf_ch(&raw, (char)data[i]);
    if (raw.len && !memmem(raw.p, raw.len, "sentinel", 8)) {
        static const xopt plain = {0};
        exchange(&g_peers[0], raw.p, raw.len, X_RAW, NULL, &plain);
        exchange(&g_peers[1], raw.p, raw.len, X_RAW, NULL, &plain);
        /* The raw line may have logged the anonymous pair in (no harm) or
         * out; nothing to restore. */
    }
    free(raw.p);
    free(g.out.p);
    free(id.text.p);
    free(id.dec.p);
    return 0;
}
