/*
 * qirkatd: the Qirkat game server (docs/design.md "qirkatd command line").
 *
 * main() reads the settings (config.h: flags, environment, --config
 * file), initialises libsodium, ignores SIGPIPE (a peer that went away
 * must cost an EPIPE, not the process), builds the srv on the default loop
 * and runs it until SIGINT/SIGTERM (srv_stop: requests still coming are
 * answered server_shutdown, work in flight is finished and every answer
 * written before each connection closes, at most SRV_STOP_GRACE_MS;
 * srv.h "Stopping"). SIGHUP re-reads the settings (reload below).
 * The first argument may instead name an operator's command run against
 * a database without serving it (tools.h: backup, check, admin).
 * Exit status: 0 after a clean stop, 1 when start-up fails, 2 for bad
 * flags or a bad configuration file.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>
#include <uv.h>

#include "config.h"
#include "srv.h"
#include "tools.h"
#include "util/log.h"

/* What the SIGHUP reload needs: the command line it was started with and
 * the settings in force. */
typedef struct reloader {
    int argc;
    char **argv;
    config *now;
} reloader;

static int reload(void *arg, srv_config *live, int *level)
{
    reloader *r = arg;
    static config next; /* large: not on the stack */
    char err[512];
    if (config_load(&next, r->argc, r->argv, err, sizeof err) != 0) {
        log_error("reload: %s: settings unchanged", err);
        return -1;
    }
    char changed[2048];
    int n = config_live_diff(r->now, &next, changed, sizeof changed);
    if (!changed[0])
        log_info("reload%s%s: nothing changed", next.file ? " of " : "",
                 next.file ? next.file : "");
    else
        log_info("reload: %d live setting%s changed: %s", n, n == 1 ? "" : "s", changed);
    /* Only the live settings take effect; the others keep their value
     * until a restart, so *now keeps describing what runs. */
    config_take_live(r->now, &next);
    *live = r->now->srv;
    *level = (int)next.level;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && tools_is_command(argv[1]))
        return tools_main(argc - 1, argv + 1);
    static config cfg; /* large; its strings point into it */
    char err[512];
    if (config_load(&cfg, argc, argv, err, sizeof err) != 0) {
        fprintf(stderr, "qirkatd: %s\n", err);
        config_usage(stderr);
        return 2;
    }
    if (cfg.help) {
        config_usage(stdout);
        return 0;
    }
    log_set_level(cfg.level);
    if (cfg.file)
        log_info("settings from %s", cfg.file);
    /* The program must be an executable file now: a typo is refused at
     * the start, not at a tournament's first round. */
    if (cfg.srv.pairing_program && access(cfg.srv.pairing_program, X_OK) != 0) {
        fprintf(stderr, "qirkatd: --pairing-program %s: %s\n", cfg.srv.pairing_program,
                strerror(errno));
        return 2;
    }
    if (cfg.srv.pairing_program)
        log_info("external pairing program: %s", cfg.srv.pairing_program);
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
    if (srv_init(&s, loop, &cfg.srv) != 0)
        return 1;
    static reloader rl;
    rl = (reloader){argc, argv, &cfg};
    s.reload = reload;
    s.reload_arg = &rl;
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
}
