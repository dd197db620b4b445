/*
 * qirkatd: the Qirkat game server (docs/design.md "qirkatd command line").
 *
 * main() parses the flags, initialises libsodium, ignores SIGPIPE (a peer
 * that went away must cost an EPIPE, not the process), builds the srv on
 * the default loop and runs it until SIGINT/SIGTERM (srv_stop: requests
 * still coming are answered server_shutdown, work in flight is finished
 * and every answer written before each connection closes, at most
 * SRV_STOP_GRACE_MS; srv.h "Stopping"). Exit status: 0 after a clean stop,
 * 1 when start-up fails, 2 for bad flags.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>
#include <uv.h>

#include "srv.h"
#include "util/log.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: qirkatd [--listen HOST:PORT] [--db FILE] "
               "[--http HOST:PORT]\n"
               "               [--log-level error|warn|info|debug]\n"
               "               [--ready-fd FD] [--pwhash interactive|min] [--rate-limit B/R|off]\n"
               "               [--challenge-rate N/S|off]\n"
               "               [--max-conns N] [--max-conns-per-address N] [--max-conns-per-account N]\n"
               "               [--pairing-program PATH] [--pairing-timeout MS]\n"
               "               [--help]\n"
               "  --listen HOST:PORT  address to listen on (default 127.0.0.1:7420; port 0 "
               "picks a free one;\n"
               "                      IPv6 as [::1]:7420)\n"
               "  --http HOST:PORT    also serve the web page at / and the protocol over "
               "WebSocket at\n"
               "                      /ws (port 0 picks a free one; none by default)\n"
               "  --db FILE           SQLite database, created if missing (default ./qirkat.db)\n"
               "  --log-level LEVEL   stderr verbosity (default info)\n"
               "  --ready-fd FD       once listening, write the port and a newline to FD and "
               "close it\n"
               "                      (with --http, the HTTP port on a second line)\n"
               "  --pwhash min        cheapest Argon2id limits (tests and benchmarks only)\n"
               "  --test-clock MS     tests only: the clock starts at MS (UTC ms) and moves only\n"
               "                      by the debug_clock op\n"
               "  --rate-limit B/R    requests per connection: bursts of B, R per second\n"
               "  --challenge-rate N/S  challenges per account: at most N in any S seconds\n"
               "                      (default 60/600; off)\n"
               "                      (default 1000/200; \"off\" for none; env QK_RATE_LIMIT)\n"
               "  --max-conns N       connections in all (default 4096; env QK_MAX_CONNS);\n"
               "                      each needs a file descriptor (RLIMIT_NOFILE)\n"
               "  --max-conns-per-address N  connections from one address (default 200; env\n"
               "                      QK_MAX_CONNS_PER_ADDRESS)\n"
               "  --max-conns-per-account N  connections logged in as one user (default 8; env\n"
               "                      QK_MAX_CONNS_PER_ACCOUNT)\n"
               "  --pairing-program PATH  an external Swiss pairer run as PATH --dutch IN -p OUT\n"
               "                      (bbpPairings); tournaments with \"pairer\": \"external\"\n"
               "                      use it (env QK_PAIRING_PROGRAM)\n"
               "  --pairing-timeout MS  longest run of it (default 10000; env\n"
               "                      QK_PAIRING_TIMEOUT_MS)\n");
}

static int parse_int(const char *s, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

/* A time in UTC ms (0 .. 2^53-1). */
static int parse_ms(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < 0 || v > 9007199254740991LL)
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
    if (hl == 0 || hl >= n)
        return -1;
    memcpy(host, h, hl);
    host[hl] = '\0';
    return parse_int(colon + 1, 0, 65535, port);
}

int main(int argc, char **argv)
{
    static char host[256] = "127.0.0.1";
    static char http_host[256];
    srv_config cfg = {.host = host, .port = 7420, .db_path = "./qirkat.db", .ready_fd = -1};
    log_level level = LOG_INFO;
    bool rate_given = false, challenge_rate_given = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (!v)
            goto bad;
        i++;
        if (strcmp(a, "--listen") == 0) {
            if (parse_listen(v, host, sizeof host, &cfg.port) != 0)
                goto bad;
        } else if (strcmp(a, "--http") == 0) {
            if (parse_listen(v, http_host, sizeof http_host, &cfg.http_port) != 0)
                goto bad;
            cfg.http_host = http_host;
        } else if (strcmp(a, "--db") == 0) {
            cfg.db_path = v;
        } else if (strcmp(a, "--log-level") == 0) {
            if (log_level_parse(v, &level) != 0)
                goto bad;
        } else if (strcmp(a, "--ready-fd") == 0) {
            if (parse_int(v, 0, INT_MAX, &cfg.ready_fd) != 0)
                goto bad;
        } else if (strcmp(a, "--test-clock") == 0) {
            if (parse_ms(v, &cfg.test_clock_ms) != 0)
                goto bad;
            cfg.test_clock = true;
        } else if (strcmp(a, "--rate-limit") == 0) {
            if (rate_cfg_parse(v, &cfg.rate) != 0)
                goto bad;
            rate_given = true;
        } else if (strcmp(a, "--challenge-rate") == 0) {
            if (rate_window_parse(v, &cfg.challenge_rate) != 0)
                goto bad;
            challenge_rate_given = true;
        } else if (strcmp(a, "--max-conns") == 0) {
            if (parse_int(v, 1, 1 << 20, &cfg.max_conns) != 0)
                goto bad;
        } else if (strcmp(a, "--max-conns-per-address") == 0) {
            if (parse_int(v, 1, 1 << 20, &cfg.max_per_addr) != 0)
                goto bad;
        } else if (strcmp(a, "--max-conns-per-account") == 0) {
            if (parse_int(v, 1, 1 << 20, &cfg.max_per_account) != 0)
                goto bad;
        } else if (strcmp(a, "--pairing-program") == 0) {
            cfg.pairing_program = v;
        } else if (strcmp(a, "--pairing-timeout") == 0) {
            if (parse_int(v, 1, 3600 * 1000, &cfg.pairing_timeout_ms) != 0)
                goto bad;
        } else if (strcmp(a, "--pwhash") == 0) {
            if (strcmp(v, "min") == 0)
                cfg.pwhash_min = true;
            else if (strcmp(v, "interactive") != 0)
                goto bad;
        } else {
            goto bad;
        }
    }
    log_set_level(level);
    /* Test-only fault injection (tests/server): fail the N-th commit. */
    const char *fault = getenv("QK_FAULT_COMMIT");
    if (fault && parse_int(fault, 0, INT_MAX, &cfg.fail_commit_at) != 0)
        cfg.fail_commit_at = 0;
    /* Test-only: QK_TEST_CLOCK=MS is --test-clock MS; QK_HEARTBEAT_MS
     * shortens the 20 s heartbeat (tests/server/test_corr.c). */
    const char *tclock = getenv("QK_TEST_CLOCK");
    if (tclock && !cfg.test_clock && parse_ms(tclock, &cfg.test_clock_ms) == 0)
        cfg.test_clock = true;
    /* QK_RATE_LIMIT=B/R|off is --rate-limit (the flag wins); a bad value
     * is logged and the default kept, as for the other variables. */
    const char *rate = getenv("QK_RATE_LIMIT");
    if (rate && !rate_given && rate_cfg_parse(rate, &cfg.rate) != 0)
        log_warn("QK_RATE_LIMIT=%s is not BURST/PER_S or off: using the default", rate);
    const char *crate = getenv("QK_CHALLENGE_RATE");
    if (crate && !challenge_rate_given && rate_window_parse(crate, &cfg.challenge_rate) != 0)
        log_warn("QK_CHALLENGE_RATE=%s is not COUNT/SECONDS or off: using the default", crate);
    const char *beat = getenv("QK_HEARTBEAT_MS");
    if (beat && parse_int(beat, 1, INT_MAX, &cfg.heartbeat_ms) != 0)
        cfg.heartbeat_ms = 0;
    /* QK_LOGIN_TIMEOUT_MS shortens the 60 s given to log in (tests). */
    const char *login_to = getenv("QK_LOGIN_TIMEOUT_MS");
    if (login_to && parse_int(login_to, 1, INT_MAX, &cfg.login_timeout_ms) != 0)
        cfg.login_timeout_ms = 0;
    /* QK_MAX_HASH_JOBS caps password hashes at once (default 16, srv.h);
     * QK_TEST_HASH_DELAY_MS (tests only) makes each hash take that much
     * longer, so a test can stop the server while one is in flight. */
    const char *hash_jobs = getenv("QK_MAX_HASH_JOBS");
    if (hash_jobs && parse_int(hash_jobs, 1, 1 << 20, &cfg.max_hash_jobs) != 0) {
        log_warn("QK_MAX_HASH_JOBS=%s is not a positive integer: using the default", hash_jobs);
        cfg.max_hash_jobs = 0;
    }
    /* QK_MAX_CONNS_PER_ADDRESS / _ACCOUNT are the flags (the flag wins);
     * QK_OUT_LIMIT (tests only) shrinks the 1 MiB output cap. */
    const char *per_addr = getenv("QK_MAX_CONNS_PER_ADDRESS");
    if (per_addr && cfg.max_per_addr == 0 && parse_int(per_addr, 1, 1 << 20, &cfg.max_per_addr))
        cfg.max_per_addr = 0;
    /* QK_MAX_CONNS raises (or lowers) the 4096 connections in all; the
     * idle-connection benchmark holds 10,000. File descriptors are the
     * other limit: RLIMIT_NOFILE is the caller's to raise. */
    const char *max_conns = getenv("QK_MAX_CONNS");
    if (max_conns && cfg.max_conns == 0 && parse_int(max_conns, 1, 1 << 20, &cfg.max_conns))
        cfg.max_conns = 0;
    const char *per_acct = getenv("QK_MAX_CONNS_PER_ACCOUNT");
    if (per_acct && cfg.max_per_account == 0 &&
        parse_int(per_acct, 1, 1 << 20, &cfg.max_per_account))
        cfg.max_per_account = 0;
    /* QK_FAULT_FSYNC_MS (tests and benchmarks) stalls every fsync. */
    const char *fsync_ms = getenv("QK_FAULT_FSYNC_MS");
    if (fsync_ms && parse_int(fsync_ms, 0, 60000, &cfg.fsync_delay_ms) != 0)
        cfg.fsync_delay_ms = 0;
    const char *out_limit = getenv("QK_OUT_LIMIT");
    int out_bytes = 0;
    if (out_limit && parse_int(out_limit, 4096, INT_MAX, &out_bytes) == 0)
        cfg.out_limit = (size_t)out_bytes;
    const char *hash_delay = getenv("QK_TEST_HASH_DELAY_MS");
    if (hash_delay && parse_int(hash_delay, 0, 60000, &cfg.hash_delay_ms) != 0)
        cfg.hash_delay_ms = 0;
    /* Tests only: QK_UPKEEP_MS shortens the 10 s upkeep tick (idle WAL
     * checkpoint, sweep of old rows; game/upkeep.h), QK_JOURNAL_LIMIT the
     * 64 MiB the WAL is cut back to (store/store_bound.h). */
    const char *upkeep_ms = getenv("QK_UPKEEP_MS");
    if (upkeep_ms && parse_int(upkeep_ms, 1, INT_MAX, &cfg.upkeep_ms) != 0)
        cfg.upkeep_ms = 0;
    /* QK_WAL_RESTART_FRAMES: the log length that starts a restart
     * (store.h store_wal_restart; tests set it low). */
    const char *restart = getenv("QK_WAL_RESTART_FRAMES");
    if (restart && parse_int(restart, 1, INT_MAX, &cfg.wal_restart_frames) != 0)
        cfg.wal_restart_frames = 0;
    const char *journal = getenv("QK_JOURNAL_LIMIT");
    int journal_bytes = 0;
    if (journal && parse_int(journal, 4096, INT_MAX, &journal_bytes) == 0)
        cfg.journal_limit = journal_bytes;
    /* QK_PAIRING_PROGRAM / QK_PAIRING_TIMEOUT_MS are the flags (the flag
     * wins). The program must be an executable file now: a typo is
     * refused at the start, not at a tournament's first round. */
    const char *pairer = getenv("QK_PAIRING_PROGRAM");
    if (pairer && *pairer && !cfg.pairing_program)
        cfg.pairing_program = pairer;
    const char *pairer_ms = getenv("QK_PAIRING_TIMEOUT_MS");
    if (pairer_ms && cfg.pairing_timeout_ms == 0 &&
        parse_int(pairer_ms, 1, 3600 * 1000, &cfg.pairing_timeout_ms) != 0) {
        log_warn("QK_PAIRING_TIMEOUT_MS=%s is not a positive integer: using the default",
                 pairer_ms);
        cfg.pairing_timeout_ms = 0;
    }
    if (cfg.pairing_program && access(cfg.pairing_program, X_OK) != 0) {
        fprintf(stderr, "qirkatd: --pairing-program %s: %s\n", cfg.pairing_program,
                strerror(errno));
        return 2;
    }
    if (cfg.pairing_program)
        log_info("external pairing program: %s", cfg.pairing_program);
    if (signal(SIGPIPE, SIG_IGN) == SIG_ERR) {
        log_error("cannot ignore SIGPIPE");
        return 1;
    }
    if (sodium_init() < 0) {
        log_error("sodium_init failed");
        return 1;
    }
    uv_loop_t *loop = uv_default_loop();
    if (!loop) {
        log_error("no libuv loop");
        return 1;
    }
    static srv s; /* large (net read buffer); not on the stack */
    if (srv_init(&s, loop, &cfg) != 0)
        return 1;
    int status = 0;
    if (srv_start(&s) != 0) {
        srv_stop(&s);
        status = 1;
    }
    int rc = uv_run(loop, UV_RUN_DEFAULT);
    if (rc != 0)
        log_warn("loop ended with %d active handles", rc);
    srv_close(&s);
    rc = uv_loop_close(loop);
    if (rc != 0)
        log_warn("uv_loop_close: %s", uv_strerror(rc));
    log_info("stopped");
    return status;
bad:
    fprintf(stderr, "qirkatd: bad arguments\n");
    usage(stderr);
    return 2;
}
