/*
 * bridge: see bridge.h and docs/engine-protocol.md.
 */
#include "bridge.h"
#include "i18n.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Time a SIGTERMed engine has to exit at bridge_free before SIGKILL. */
#define BRIDGE_TERM_MS 200

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int bridge_init(bridge *br, const char *cmd)
{
    memset(br, 0, sizeof *br);
    br->to_fd = br->from_fd = -1;
    br->cmd = strdup(cmd);
    br->moves = malloc(QK_MAX_MOVES * sizeof *br->moves);
    if (!br->cmd || !br->moves) {
        free(br->cmd);
        free(br->moves);
        br->cmd = NULL;
        br->moves = NULL;
        return -1;
    }
    /* A write to a dead engine must be an EPIPE we handle, not the end
     * of the bot. */
    signal(SIGPIPE, SIG_IGN);
    return 0;
}

/* Close the pipes and reap the engine; with sig, send it first. */
static void stop_engine(bridge *br, int sig)
{
    if (br->to_fd >= 0)
        close(br->to_fd);
    if (br->from_fd >= 0)
        close(br->from_fd);
    br->to_fd = br->from_fd = -1;
    br->len = 0;
    if (br->pid <= 0)
        return;
    if (sig)
        kill(br->pid, sig);
    int64_t until = mono_ms() + BRIDGE_TERM_MS;
    for (;;) {
        pid_t w = waitpid(br->pid, NULL, WNOHANG);
        if (w == br->pid || (w < 0 && errno != EINTR))
            break;
        if (mono_ms() > until) {
            kill(br->pid, SIGKILL);
            while (waitpid(br->pid, NULL, 0) < 0 && errno == EINTR)
                ;
            break;
        }
        struct timespec ts = {0, 5 * 1000000L};
        nanosleep(&ts, NULL);
    }
    br->pid = 0;
}

void bridge_free(bridge *br)
{
    if (!br)
        return;
    stop_engine(br, SIGTERM);
    free(br->cmd);
    free(br->moves);
    br->cmd = NULL;
    br->moves = NULL;
}

/* Start the engine: 0, or -1 with why. */
static int start_engine(bridge *br, char *why, size_t whyn)
{
    int in[2], out[2];
    if (pipe(in) < 0) {
        snprintf(why, whyn, "pipe: %s", strerror(errno));
        return -1;
    }
    if (pipe(out) < 0) {
        snprintf(why, whyn, "pipe: %s", strerror(errno));
        close(in[0]);
        close(in[1]);
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(why, whyn, "fork: %s", strerror(errno));
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        return -1;
    }
    if (pid == 0) {
        /* The child: stdin from in, stdout to out; the bot's socket and
         * other descriptors are not inherited past exec (CLOEXEC below
         * for ours; the client opens its socket with SOCK_CLOEXEC). */
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        signal(SIGPIPE, SIG_DFL);
        execl("/bin/sh", "sh", "-c", br->cmd, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    fcntl(in[1], F_SETFD, FD_CLOEXEC);
    fcntl(out[0], F_SETFD, FD_CLOEXEC);
    fcntl(out[0], F_SETFL, fcntl(out[0], F_GETFL) | O_NONBLOCK);
    br->pid = pid;
    br->to_fd = in[1];
    br->from_fd = out[0];
    br->len = 0;
    if (br->starts++ > 0)
        br->restarts++;
    /* The protocol's greeting: its version, once per engine. */
    static const char hello[] = "qirkat-engine 1\n";
    if (write(br->to_fd, hello, sizeof hello - 1) != (ssize_t)(sizeof hello - 1)) {
        snprintf(why, whyn, _("the engine closed its input at start"));
        stop_engine(br, SIGKILL);
        return -1;
    }
    return 0;
}

static int write_all(int fd, const char *s, size_t n)
{
    while (n) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

/* The request of docs/engine-protocol.md into a malloc'd string. */
static char *request(bridge *br, const qk_variant *v, const qk_pos *p, const char *pos_text,
                     int64_t my_ms, int64_t opp_ms, uint32_t move_ms)
{
    int nm = qk_movegen_sorted(v, p, br->moves, QK_MAX_MOVES);
    if (nm < 0)
        nm = QK_MAX_MOVES; /* more than the cap: some of them, still legal */
    size_t cap = 256 + strlen(pos_text) + (size_t)nm * QK_MOVE_STRLEN, len = 0;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    len += (size_t)snprintf(s, cap, "position %s %s\nlegal", v->name, pos_text);
    for (int i = 0; i < nm; i++) {
        char t[QK_MOVE_STRLEN];
        if (qk_move_format(v, &br->moves[i], t, sizeof t) < 0)
            continue;
        len += (size_t)snprintf(s + len, cap - len, " %s", t);
    }
    snprintf(s + len, cap - len, "\ntime %lld %lld\ngo %u\n", (long long)my_ms, (long long)opp_ms,
             move_ms);
    return s;
}

/* Read lines until `bestmove`: 1 with the move in text, 0 on timeout, -1
 * on EOF or error (the engine died), -2 for a line over the limit. */
static int read_best(bridge *br, int64_t until, char *text, size_t n)
{
    for (;;) {
        char *nl;
        while ((nl = memchr(br->buf, '\n', br->len)) != NULL) {
            *nl = 0;
            size_t used = (size_t)(nl - br->buf) + 1;
            char *line = br->buf;
            size_t ll = strlen(line);
            if (ll && line[ll - 1] == '\r')
                line[--ll] = 0;
            int found = 0;
            if (strncmp(line, "bestmove ", 9) == 0) {
                const char *m = line + 9;
                while (*m == ' ')
                    m++;
                size_t ml = strcspn(m, " \t");
                snprintf(text, n, "%.*s", (int)ml, m);
                found = 1;
            }
            memmove(br->buf, br->buf + used, br->len - used);
            br->len -= used;
            if (found)
                return 1;
        }
        if (br->len == sizeof br->buf)
            return -2;
        int left = (int)(until - mono_ms());
        if (left <= 0)
            return 0;
        struct pollfd pf = {br->from_fd, POLLIN, 0};
        int k = poll(&pf, 1, left);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return -1;
        if (k == 0)
            return 0;
        ssize_t r = read(br->from_fd, br->buf + br->len, sizeof br->buf - br->len);
        if (r < 0 && (errno == EAGAIN || errno == EINTR))
            continue;
        if (r <= 0)
            return -1;
        br->len += (size_t)r;
    }
}

int bridge_ask(bridge *br, const qk_variant *v, const qk_pos *p, const char *pos_text,
               int64_t my_ms, int64_t opp_ms, uint32_t move_ms, char *text, size_t n, char *why,
               size_t whyn)
{
    char *req = request(br, v, p, pos_text, my_ms, opp_ms, move_ms);
    if (!req) {
        snprintf(why, whyn, _("out of memory"));
        return BRIDGE_DEAD;
    }
    int rc = BRIDGE_DEAD;
    /* Two tries: the second only after the engine died and was started
     * again (a crash mid-game costs one restart, not the move). */
    for (int attempt = 0; attempt < 2; attempt++) {
        if (br->pid <= 0 && start_engine(br, why, whyn) != 0)
            break;
        if (write_all(br->to_fd, req, strlen(req)) != 0) {
            snprintf(why, whyn, _("the engine died (its input is closed)"));
            stop_engine(br, SIGKILL);
            continue;
        }
        int got = read_best(br, mono_ms() + move_ms, text, n);
        if (got == 1) {
            qk_move m;
            if (qk_move_parse(v, p, text, &m) == QK_OK) {
                rc = BRIDGE_OK;
            } else {
                snprintf(why, whyn, _("the engine's move \"%.40s\" is not legal here"), text);
                rc = BRIDGE_BAD;
            }
            break;
        }
        if (got == 0) {
            /* Killed, so that its late answer is never read as the next
             * one; started again at the next question. */
            snprintf(why, whyn, _("no bestmove within %u ms"), move_ms);
            stop_engine(br, SIGKILL);
            rc = BRIDGE_TIMEOUT;
            break;
        }
        if (got == -2)
            snprintf(why, whyn, _("an engine line over %d bytes"), BRIDGE_LINE_MAX);
        else
            snprintf(why, whyn, _("the engine died"));
        stop_engine(br, SIGKILL);
    }
    free(req);
    return rc;
}
