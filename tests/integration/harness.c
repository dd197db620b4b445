/*
 * harness: see harness.h. The per-test registry, the server and CLI
 * processes; the raw client is in harness_conn.c, JSON, recorded games and
 * database helpers in harness_data.c.
 *
 * Every wait goes through poll() with the time left until a deadline taken
 * from CLOCK_MONOTONIC. Child exit is awaited through a pidfd when the kernel
 * has one, else through a bounded WNOHANG loop with short naps (the only
 * place a nap is used, and it waits for a condition, not for readiness).
 */
#define _GNU_SOURCE /* pipe2, nftw, close_range */
#include "harness.h"
#include "harness_int.h"

#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* ---- registry of what the current test owns ----------------------------- */

#define H_MAX_OWNED 64

static pid_t owned_pids[H_MAX_OWNED];
static int n_pids;
static char owned_dirs[8][H_PATH];
static int n_dirs;
static hconn *owned_conns[H_MAX_OWNED];
static int n_conns;
static char owned_logs[8][H_PATH];
static int n_logs;
static bool test_passed;

static void own_pid(pid_t pid)
{
    for (int i = 0; i < n_pids; i++)
        if (owned_pids[i] == 0) {
            owned_pids[i] = pid;
            return;
        }
    cr_assert_lt(n_pids, H_MAX_OWNED, "too many children");
    owned_pids[n_pids++] = pid;
}

static void disown_pid(pid_t pid)
{
    for (int i = 0; i < n_pids; i++)
        if (owned_pids[i] == pid)
            owned_pids[i] = 0;
}

void h_own_conn(hconn *c)
{
    for (int i = 0; i < n_conns; i++)
        if (!owned_conns[i]) {
            owned_conns[i] = c;
            return;
        }
    cr_assert_lt(n_conns, H_MAX_OWNED, "too many connections");
    owned_conns[n_conns++] = c;
}

void h_disown_conn(hconn *c)
{
    for (int i = 0; i < n_conns; i++)
        if (owned_conns[i] == c)
            owned_conns[i] = NULL;
}

int64_t h_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int h_left_ms(int64_t deadline)
{
    int64_t l = deadline - h_now_ms();
    return l < 0 ? 0 : (int)l;
}

void h_setup(void)
{
    signal(SIGPIPE, SIG_IGN);
    n_pids = n_dirs = n_conns = n_logs = 0;
    test_passed = false;
}

void h_pass(void)
{
    test_passed = true;
}

static int rm_cb(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

static void dump_tail(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    long from = size > 4000 ? size - 4000 : 0;
    fseek(f, from, SEEK_SET);
    char buf[4001];
    size_t n = fread(buf, 1, 4000, f);
    buf[n] = 0;
    fclose(f);
    fprintf(stderr, "---- tail of %s ----\n%s\n---- end ----\n", path, buf);
}

/* Wait for pid to exit for at most timeout_ms; true and *status filled when
 * it did. */
static bool wait_exit(pid_t pid, int *status, int timeout_ms)
{
    int64_t deadline = h_now_ms() + timeout_ms;
#ifdef SYS_pidfd_open
    int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (pfd >= 0) {
        for (;;) {
            pid_t r = waitpid(pid, status, WNOHANG);
            if (r == pid) {
                close(pfd);
                return true;
            }
            if (r < 0 && errno != EINTR) {
                close(pfd);
                return false;
            }
            int left = h_left_ms(deadline);
            if (left == 0) {
                close(pfd);
                return false;
            }
            struct pollfd p = {.fd = pfd, .events = POLLIN};
            poll(&p, 1, left);
        }
    }
#endif
    for (;;) {
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r == pid)
            return true;
        if (r < 0 && errno != EINTR)
            return false;
        if (h_left_ms(deadline) == 0)
            return false;
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

void h_teardown(void)
{
    for (int i = 0; i < n_conns; i++)
        if (owned_conns[i]) {
            hconn *c = owned_conns[i];
            owned_conns[i] = NULL;
            hconn_close(c);
        }
    for (int i = 0; i < n_pids; i++)
        if (owned_pids[i] > 0) {
            int st;
            kill(owned_pids[i], SIGKILL);
            wait_exit(owned_pids[i], &st, 5000);
            owned_pids[i] = 0;
        }
    if (!test_passed)
        for (int i = 0; i < n_logs; i++)
            dump_tail(owned_logs[i]);
    bool keep = getenv("QK_KEEP") != NULL;
    for (int i = 0; i < n_dirs; i++) {
        if (keep)
            fprintf(stderr, "kept %s\n", owned_dirs[i]);
        else
            nftw(owned_dirs[i], rm_cb, 16, FTW_DEPTH | FTW_PHYS);
    }
    n_pids = n_dirs = n_conns = n_logs = 0;
}

void h_tmpdir(char *out)
{
    const char *base = getenv("TMPDIR");
    if (!base || !*base)
        base = "/tmp";
    snprintf(out, H_PATH, "%s/qk-it-XXXXXX", base);
    cr_assert_not_null(mkdtemp(out), "mkdtemp(%s): %s", out, strerror(errno));
    cr_assert_lt(n_dirs, 8);
    snprintf(owned_dirs[n_dirs++], H_PATH, "%s", out);
}

const char *h_shared(void)
{
    const char *s = getenv("QK_SHARED");
    return s && *s ? s : "../shared";
}

const char *h_bin(void)
{
    const char *s = getenv("QK_BIN");
    return s && *s ? s : "build";
}

/* In a child between fork and exec: default signals, empty mask, die with
 * the parent, close every inherited descriptor above 2 except keep. */
static void child_prepare(int keep)
{
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
#ifdef SYS_close_range
    {
        unsigned from = keep < 0 ? 3U : (unsigned)keep + 1;
        bool low_ok = keep <= 3 || syscall(SYS_close_range, 3U, (unsigned)keep - 1, 0U) == 0;
        if (low_ok && syscall(SYS_close_range, from, ~0U, 0U) == 0)
            return;
    }
#endif
    long max = sysconf(_SC_OPEN_MAX);
    if (max < 0 || max > 65536)
        max = 65536;
    for (int fd = 3; fd < max; fd++)
        if (fd != keep)
            close(fd);
}

/* ---- server -------------------------------------------------------------- */

/* listen_port 0: an ephemeral port; else that port (a restart on the port
 * of the previous run, for clients that reconnect by themselves). */
static void srv_spawn_on(hsrv *s, int listen_port)
{
    char listen[32]; /* formatted before fork: the child only execs */
    snprintf(listen, sizeof listen, "127.0.0.1:%d", listen_port);
    char bin[H_PATH];
    snprintf(bin, sizeof bin, "%s/qirkatd", h_bin());
    cr_assert_eq(access(bin, X_OK), 0, "server binary %s: %s", bin, strerror(errno));

    int rp[2];
    cr_assert_eq(pipe2(rp, O_CLOEXEC), 0);
    int logfd = open(s->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    cr_assert_geq(logfd, 0, "open %s", s->log);

    pid_t pid = fork();
    cr_assert_geq(pid, 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        /* The ready pipe goes to fd 3 without CLOEXEC. */
        int nul = open("/dev/null", O_RDONLY);
        dup2(nul, 0);
        dup2(logfd, 1);
        dup2(logfd, 2);
        if (rp[1] == 3) {
            fcntl(3, F_SETFD, 0);
        } else {
            dup2(rp[1], 3);
        }
        child_prepare(3);
        char *argv[12 + H_SRV_MAX_ARGS] = {bin,   "--listen", listen, "--ready-fd",  "3",    "--db",
                                           s->db, "--pwhash", "min",  "--log-level", "warn", NULL};
        for (int i = 0; i < H_SRV_MAX_ARGS && s->args[i]; i++)
            argv[11 + i] = (char *)s->args[i];
        execv(bin, argv);
        _exit(127);
    }
    own_pid(pid);
    close(rp[1]);
    close(logfd);
    s->pid = pid;
    s->runs++;

    char buf[64];
    size_t len = 0;
    int64_t deadline = h_now_ms() + H_READY_TIMEOUT_MS;
    for (;;) {
        struct pollfd p = {.fd = rp[0], .events = POLLIN};
        int left = h_left_ms(deadline);
        cr_assert_gt(left, 0, "qirkatd did not report its port within %d ms (log %s)",
                     H_READY_TIMEOUT_MS, s->log);
        int pr = poll(&p, 1, left);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr == 0)
            continue;
        ssize_t n = read(rp[0], buf + len, sizeof buf - 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
        if (memchr(buf, '\n', len) || len == sizeof buf - 1)
            break;
    }
    close(rp[0]);
    buf[len] = 0;
    char *end = NULL;
    long port = strtol(buf, &end, 10);
    if (len == 0 || end == buf || *end != '\n' || port <= 0 || port > 65535) {
        int st = 0;
        bool exited = wait_exit(pid, &st, 200);
        cr_assert_fail("qirkatd wrote %zu bytes \"%s\" to the ready fd instead of PORT\\n "
                       "(exited: %d, status 0x%x); log %s",
                       len, buf, exited, st, s->log);
    }
    s->port = (int)port;
    snprintf(s->addr, sizeof s->addr, "127.0.0.1:%d", s->port);
}

static void srv_spawn(hsrv *s)
{
    srv_spawn_on(s, 0);
}

/* dir/name into out (H_PATH bytes); asserts it fits. */
static void path_join(char *out, const char *dir, const char *name)
{
    int n = snprintf(out, H_PATH, "%s/%s", dir, name);
    cr_assert(n > 0 && n < H_PATH, "path too long: %s/%s", dir, name);
}

void hsrv_start(hsrv *s)
{
    hsrv_start_args(s, NULL);
}

void hsrv_start_args(hsrv *s, const char *const *args)
{
    memset(s, 0, sizeof *s);
    for (int i = 0; args && args[i]; i++) {
        cr_assert_lt(i, H_SRV_MAX_ARGS, "too many qirkatd arguments");
        s->args[i] = args[i];
    }
    h_tmpdir(s->dir);
    path_join(s->db, s->dir, "qirkat.db");
    path_join(s->log, s->dir, "server.log");
    cr_assert_lt(n_logs, 8);
    snprintf(owned_logs[n_logs++], H_PATH, "%s", s->log);
    srv_spawn(s);
}

void hsrv_restart(hsrv *s)
{
    cr_assert_eq(s->pid, 0, "restart of a running server");
    srv_spawn(s);
}

void hsrv_restart_same_port(hsrv *s)
{
    cr_assert_eq(s->pid, 0, "restart of a running server");
    int port = s->port;
    srv_spawn_on(s, port);
    cr_assert_eq(s->port, port);
}

void hsrv_stop(hsrv *s)
{
    cr_assert_gt(s->pid, 0, "stop of a stopped server");
    int st = 0;
    cr_assert_eq(kill(s->pid, SIGTERM), 0);
    bool done = wait_exit(s->pid, &st, H_EXIT_TIMEOUT_MS);
    if (!done) {
        kill(s->pid, SIGKILL);
        wait_exit(s->pid, &st, 5000);
        disown_pid(s->pid);
        s->pid = 0;
        cr_assert_fail("qirkatd did not exit within %d ms of SIGTERM", H_EXIT_TIMEOUT_MS);
    }
    disown_pid(s->pid);
    s->pid = 0;
    cr_assert(WIFEXITED(st), "qirkatd killed by signal %d after SIGTERM",
              WIFSIGNALED(st) ? WTERMSIG(st) : -1);
    cr_assert_eq(WEXITSTATUS(st), 0, "qirkatd exit status %d after SIGTERM", WEXITSTATUS(st));
}

void hsrv_kill(hsrv *s)
{
    cr_assert_gt(s->pid, 0);
    int st;
    kill(s->pid, SIGKILL);
    cr_assert(wait_exit(s->pid, &st, H_EXIT_TIMEOUT_MS), "SIGKILLed qirkatd not reaped");
    disown_pid(s->pid);
    s->pid = 0;
}

void hsrv_userdir(const hsrv *s, const char *name, char *out)
{
    path_join(out, s->dir, name);
    if (mkdir(out, 0700) != 0)
        cr_assert_eq(errno, EEXIST, "mkdir %s: %s", out, strerror(errno));
}

/* ---- CLI runner ------------------------------------------------------------ */

static char *env_entry(const char *name, const char *value)
{
    size_t n = strlen(name) + strlen(value) + 2;
    char *e = malloc(n);
    snprintf(e, n, "%s=%s", name, value);
    return e;
}

struct buf {
    char *p;
    size_t len, cap;
};

static void buf_add(struct buf *b, const char *d, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->p = realloc(b->p, b->cap);
        cr_assert_not_null(b->p);
    }
    memcpy(b->p + b->len, d, n);
    b->len += n;
    b->p[b->len] = 0;
}

/* The last line of text that parses as a JSON object. */
static cJSON *last_json_line(const char *text)
{
    cJSON *found = NULL;
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        cJSON *o = cJSON_ParseWithLength(p, len);
        if (o && cJSON_IsObject(o)) {
            cJSON_Delete(found);
            found = o;
        } else {
            cJSON_Delete(o);
        }
        if (!nl)
            break;
        p = nl + 1;
    }
    return found;
}

void hcli_runv(hrun *r, const char *confdir, const char *server, const char *stdin_data,
               const char *const *argv)
{
    memset(r, 0, sizeof *r);
    r->code = -1;
    char bin[H_PATH];
    snprintf(bin, sizeof bin, "%s/qirkat", h_bin());
    cr_assert_eq(access(bin, X_OK), 0, "client binary %s: %s", bin, strerror(errno));

    size_t argc = 0;
    while (argv[argc])
        argc++;
    int off = snprintf(r->cmd, sizeof r->cmd, "qirkat");
    for (size_t i = 0; i < argc && off < (int)sizeof r->cmd; i++)
        off += snprintf(r->cmd + off, sizeof r->cmd - (size_t)off, " %s", argv[i]);

    /* Build everything the child needs before fork (no malloc after). */
    char **cargv = calloc(argc + 2, sizeof *cargv);
    cr_assert_not_null(cargv);
    cargv[0] = bin;
    for (size_t i = 0; i < argc; i++)
        cargv[i + 1] = (char *)argv[i];
    size_t nenv = 0;
    while (environ[nenv])
        nenv++;
    char **cenv = calloc(nenv + 4, sizeof *cenv);
    cr_assert_not_null(cenv);
    size_t k = 0;
    for (size_t i = 0; i < nenv; i++) {
        if (!strncmp(environ[i], "XDG_CONFIG_HOME=", 16) || !strncmp(environ[i], "HOME=", 5) ||
            !strncmp(environ[i], "QIRKAT_SERVER=", 14))
            continue;
        cenv[k++] = environ[i];
    }
    char *e1 = env_entry("XDG_CONFIG_HOME", confdir);
    char *e2 = env_entry("HOME", confdir);
    char *e3 = server ? env_entry("QIRKAT_SERVER", server) : NULL;
    cenv[k++] = e1;
    cenv[k++] = e2;
    if (e3)
        cenv[k++] = e3;
    cenv[k] = NULL;

    int in[2], out[2], err[2];
    cr_assert_eq(pipe2(in, O_CLOEXEC), 0);
    cr_assert_eq(pipe2(out, O_CLOEXEC), 0);
    cr_assert_eq(pipe2(err, O_CLOEXEC), 0);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        dup2(err[1], 2);
        child_prepare(-1);
        execve(bin, cargv, cenv);
        _exit(127);
    }
    own_pid(pid);
    close(in[0]);
    close(out[1]);
    close(err[1]);
    free(cargv);
    free(cenv);
    free(e1);
    free(e2);
    free(e3);

    /* stdin: a line or two; the pipe buffer holds it, the child may exit
     * without reading it (EPIPE ignored). */
    if (stdin_data) {
        size_t n = strlen(stdin_data);
        ssize_t w = write(in[1], stdin_data, n);
        (void)w;
    }
    close(in[1]);

    struct buf bo = {0}, be = {0};
    buf_add(&bo, "", 0);
    buf_add(&be, "", 0);
    int64_t deadline = h_now_ms() + H_CLI_TIMEOUT_MS;
    bool open_o = true, open_e = true;
    while (open_o || open_e) {
        struct pollfd p[2] = {{.fd = open_o ? out[0] : -1, .events = POLLIN},
                              {.fd = open_e ? err[0] : -1, .events = POLLIN}};
        int left = h_left_ms(deadline);
        if (left == 0) {
            r->timed_out = true;
            break;
        }
        int pr = poll(p, 2, left);
        if (pr < 0 && errno == EINTR)
            continue;
        char tmp[8192];
        for (int i = 0; i < 2; i++) {
            if (!p[i].revents)
                continue;
            ssize_t n = read(p[i].fd, tmp, sizeof tmp);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                if (i == 0)
                    open_o = false;
                else
                    open_e = false;
                continue;
            }
            buf_add(i == 0 ? &bo : &be, tmp, (size_t)n);
        }
    }
    close(out[0]);
    close(err[0]);
    int st = 0;
    if (r->timed_out || !wait_exit(pid, &st, h_left_ms(deadline) + 1)) {
        r->timed_out = true;
        kill(pid, SIGKILL);
        wait_exit(pid, &st, 5000);
    }
    disown_pid(pid);
    if (!r->timed_out && WIFEXITED(st))
        r->code = WEXITSTATUS(st);
    else if (WIFSIGNALED(st))
        r->signal = WTERMSIG(st);
    r->out = bo.p;
    r->err = be.p;
    r->json = last_json_line(r->out);
}

void hcli_run(hrun *r, const char *confdir, const char *server, const char *stdin_data, ...)
{
    const char *argv[32];
    int n = 0;
    va_list ap;
    va_start(ap, stdin_data);
    for (;;) {
        const char *a = va_arg(ap, const char *);
        cr_assert_lt(n, 31, "too many arguments");
        argv[n++] = a;
        if (!a)
            break;
    }
    va_end(ap);
    hcli_runv(r, confdir, server, stdin_data, argv);
}

const cJSON *hrun_ok_json(const hrun *r)
{
    cr_assert(!r->timed_out, "`%s` did not finish within %d ms", r->cmd, H_CLI_TIMEOUT_MS);
    cr_assert_eq(r->code, 0, "`%s` exited with %d (signal %d)\nstdout: %.1500s\nstderr: %.1500s",
                 r->cmd, r->code, r->signal, r->out, r->err);
    cr_assert_not_null(r->json, "`%s` printed no JSON object on stdout: %.1500s", r->cmd, r->out);
    return r->json;
}

void hrun_free(hrun *r)
{
    free(r->out);
    free(r->err);
    cJSON_Delete(r->json);
    memset(r, 0, sizeof *r);
}

void hcli_register_pair(const hsrv *s, char *ad, char *bd)
{
    static const char *const name[2] = {"alice", "bob"};
    static const char *const pw[2] = {"pw-alice-1\n", "pw-bob-12\n"};
    char *dir[2] = {ad, bd};
    for (int i = 0; i < 2; i++) {
        hsrv_userdir(s, name[i], dir[i]);
        hrun r;
        hcli_run(&r, dir[i], s->addr, pw[i], "register", name[i], "--password-stdin", NULL);
        cr_assert_eq(r.code, 0, "register %s: exit %d\nstdout: %s\nstderr: %s", name[i], r.code,
                     r.out, r.err);
        hrun_free(&r);
    }
}

/* ---- sanitizers ------------------------------------------------------------------ */

/* LeakSanitizer hook (used only in `make asan` builds): Criterion 2.4's
 * runner process leaks one 48-byte calloc when it runs this binary's tests
 * with --jobs 2, which would turn a green run into exit status 1. Only
 * leaks whose stack is inside libcriterion are suppressed; ours and the
 * children's are still reported. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libcriterion.so\n";
}

/* ---- background CLI processes ---------------------------------------------- */

pid_t hcli_spawn(const char *confdir, const char *server, const char *logfile,
                 const char *const *argv)
{
    char bin[H_PATH];
    snprintf(bin, sizeof bin, "%s/qirkat", h_bin());
    cr_assert_eq(access(bin, X_OK), 0, "client binary %s: %s", bin, strerror(errno));
    size_t argc = 0;
    while (argv[argc])
        argc++;
    char **cargv = calloc(argc + 2, sizeof *cargv);
    cr_assert_not_null(cargv);
    cargv[0] = bin;
    for (size_t i = 0; i < argc; i++)
        cargv[i + 1] = (char *)argv[i];
    char *e1 = env_entry("XDG_CONFIG_HOME", confdir);
    char *e2 = env_entry("HOME", confdir);
    char *e3 = server ? env_entry("QIRKAT_SERVER", server) : NULL;
    size_t nenv = 0, k = 0;
    while (environ[nenv])
        nenv++;
    char **cenv = calloc(nenv + 4, sizeof *cenv);
    cr_assert_not_null(cenv);
    for (size_t i = 0; i < nenv; i++)
        if (strncmp(environ[i], "XDG_CONFIG_HOME=", 16) && strncmp(environ[i], "HOME=", 5) &&
            strncmp(environ[i], "QIRKAT_SERVER=", 14))
            cenv[k++] = environ[i];
    cenv[k++] = e1;
    cenv[k++] = e2;
    if (e3)
        cenv[k++] = e3;
    cenv[k] = NULL;
    int logfd = open(logfile, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    cr_assert_geq(logfd, 0, "open %s: %s", logfile, strerror(errno));
    bool known = false;
    for (int i = 0; i < n_logs; i++)
        known = known || strcmp(owned_logs[i], logfile) == 0;
    if (!known && n_logs < 8)
        snprintf(owned_logs[n_logs++], H_PATH, "%s", logfile);
    pid_t pid = fork();
    cr_assert_geq(pid, 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        int nul = open("/dev/null", O_RDONLY);
        dup2(nul, 0);
        dup2(logfd, 1);
        dup2(logfd, 2);
        child_prepare(-1);
        execve(bin, cargv, cenv);
        _exit(127);
    }
    own_pid(pid);
    close(logfd);
    free(cargv);
    free(cenv);
    free(e1);
    free(e2);
    free(e3);
    return pid;
}

int hproc_kill(pid_t pid, int sig)
{
    int st = 0;
    kill(pid, sig);
    if (!wait_exit(pid, &st, H_EXIT_TIMEOUT_MS)) {
        kill(pid, SIGKILL);
        wait_exit(pid, &st, 5000);
    }
    disown_pid(pid);
    return st;
}
