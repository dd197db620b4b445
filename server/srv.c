/*
 * srv: see srv.h. Start-up and wiring, the per-iteration flush (end the
 * batch, then write) and the graceful stop.
 */
#include "srv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>
#include <systemd/sd-daemon.h>

#include "api/dispatch.h"
#include "api/fanout.h"
#include "api/session.h"
#include "game/corr.h"
#include "game/games.h"
#include "store/pg.h"
#include "store/store.h"
#include "game/tourney.h"
#include "api/optable.h"
#include "qk_proto.h"
#include "util/log.h"
#include "util/metrics.h"
#include "util/task.h"

/* ---- flush ------------------------------------------------------------ */

/* The next batch of every connection with lines waiting; the prepare
 * handle, which runs right after, commits and writes it. */
static void idle_cb(uv_idle_t *h)
{
    srv *s = h->data;
    net_run_ready(&s->net);
}

static void stop_finish(srv *s);
static void database_lost(void *arg);

void srv_flush(srv *s)
{
    /* Requests held while the write-ahead log started over run first, so
     * their writes join this flush's commit (api/dispatch.h). */
    dispatch_release(&s->api, false);
    /* Stopping, every batch commits now: the stop waits for it. */
    uint64_t before = s->batch.committed;
    /* A task that waits for the database half-way through its writes
     * keeps the batch open: its writes commit together (util/task.h). */
    int ended = task_busy()     ? STORE_OK
                : s->stopping ? batch_end(&s->batch)
                              : batch_end_or_keep(&s->batch);
    if (s->batch.committed != before)
        s->commit_ns[s->batch.committed % 64] = uv_hrtime();
    if (ended != STORE_OK) {
        metric_inc(s->m_commits, 1, 0);
        /* The batch's undo actions have put memory back in line with the
         * database; what it answered must not reach anyone. */
        log_error("commit failed: answering the batch with internal errors");
        net_fail_txn(&s->net, "the change could not be saved; it was not made");
        /* The deadline timer may have been armed from the lost batch's
         * rows (a kept batch is flushed, corr_after_flush included, before
         * it commits): look at the store again. */
        s->svc.wake_dirty = true;
    }
    s->net.txn_epoch = batch_epoch(&s->batch);
    corr_after_flush(&s->svc);
    net_flush(&s->net);
    /* A waiting task may hold a game * (games.h "valid until"). */
    if (!task_busy())
        games_trim(s->svc.games);
    /* Lines left for the next turn: the idle handle keeps the loop from
     * blocking in poll until they have been handled (while stopping too:
     * they are answered server_shutdown). */
    if (s->handles_open) {
        int rc = net_has_ready(&s->net) ? uv_idle_start(&s->idle, idle_cb) : uv_idle_stop(&s->idle);
        if (rc < 0)
            log_error("idle handle: %s", uv_strerror(rc));
    }
    if (s->stopping && !s->net.all)
        stop_finish(s);
}

static void prepare_cb(uv_prepare_t *h)
{
    srv_flush(h->data);
}

static void check_cb(uv_check_t *h)
{
    srv_flush(h->data);
}

/* ---- metrics ------------------------------------------------------------ */

static const char *const transports[] = {"tcp", "websocket"};
static const char *const results[] = {"ok", "refused"};
static const char *const commit_results[] = {"durable", "lost"};
static const char *const pools[] = {"hints", "pairing", "password_checks"};
static const char *tc_kinds[TC_KINDS];
static const char *codes[QK_ERR__COUNT];

static double read_peers(void *arg, int i, int j)
{
    (void)i;
    (void)j;
    return (double)cluster_peers(&((srv *)arg)->cluster);
}

static int transport_index(const conn *c)
{
    return c->tp && strcmp(c->tp->name, "tcp") != 0;
}

static double read_open(void *arg, int i, int j)
{
    (void)j;
    srv *s = arg;
    int n = 0;
    for (const conn *c = s->net.all; c; c = c->next)
        n += transport_index(c) == i;
    return n;
}

static double read_one(void *arg, int i, int j)
{
    (void)arg, (void)i, (void)j;
    return 1;
}

static double read_start(void *arg, int i, int j)
{
    (void)i, (void)j;
    return ((srv *)arg)->start_time;
}

static double read_held(void *arg, int i, int j)
{
    (void)i, (void)j;
    return dispatch_held_count(&((srv *)arg)->api);
}

static double read_wal(void *arg, int i, int j)
{
    (void)i, (void)j;
    srv *s = arg;
    char path[4200];
    struct stat st;
    snprintf(path, sizeof path, "%s-wal", s->cfg.db_path);
    return stat(path, &st) == 0 ? (double)st.st_size : 0;
}

static double read_queue(void *arg, int i, int j)
{
    (void)j;
    srv *s = arg;
    if (i == 0)
        return workers_queued(&s->hints);
    if (i == 1)
        return s->pairers_open ? workers_queued(&s->pairers) : 0;
    return s->svc.auth.jobs;
}

static double read_games_active(void *arg, int i, int j)
{
    (void)j;
    return (double)games_active(((srv *)arg)->svc.games, (tc_kind)i);
}

static double read_conns_max(void *arg, int i, int j)
{
    (void)i, (void)j;
    return (double)((srv *)arg)->net.max_conns;
}

/* The registry and each layer's metric pointers. Allocation failures
 * leave a metric NULL: it is then not counted (util/metrics.h). */
static void metrics_setup(srv *s)
{
    metrics_init(&s->metrics);
    metrics *m = &s->metrics;
    for (int e = 0; e < QK_ERR__COUNT; e++)
        codes[e] = e ? qk_err_code((qk_err)e) : "ok";
    size_t nops = 0;
    while (optable_op(nops))
        nops++;
    s->op_names = calloc(nops + 1, sizeof *s->op_names);
    if (s->op_names) {
        s->op_names[0] = "(none)";
        for (size_t i = 0; i < nops; i++)
            s->op_names[i + 1] = optable_op(i)->name;
        s->nops = (int)nops + 1;
    }
    s->start_time = (double)qk_now_ms() / 1000.0;
    static const char *const build[] = {"0.1"};
    metrics_gauge(m, "qirkat_build_info", "Build of this qirkatd (the value is 1).", "version",
                  build, 1, read_one, s);
    metrics_gauge(m, "process_start_time_seconds", "Start time of the process, UTC seconds.",
                  NULL, NULL, 1, read_start, s);
    s->m_accepted =
        metrics_counter(m, "qirkat_connections_accepted_total",
                        "Connections accepted, by transport.", "transport", transports, 2, NULL,
                        NULL, 0);
    s->net.m_accepted = s->m_accepted;
    metrics_gauge(m, "qirkat_connections_open", "Connections open now, by transport.",
                  "transport", transports, 2, read_open, s);
    metrics_gauge(m, "qirkat_connections_max", "The cap on connections in all (--max-conns).",
                  NULL, NULL, 1, read_conns_max, s);
    if (s->op_names)
        s->api.m_requests = metrics_counter(
            m, "qirkat_requests_total",
            "Requests answered, by op and result code (op \"(none)\": refused before its op was "
            "read).",
            "op", s->op_names, s->nops, "code", codes, QK_ERR__COUNT);
    s->api.op0 = optable_op(0);
    s->api.m_logins = metrics_counter(m, "qirkat_logins_total", "Logins, by result.", "result",
                                      results, 2, NULL, NULL, 0);
    s->svc.m_moves = metrics_counter(m, "qirkat_moves_total", "Moves played.", NULL, NULL, 0,
                                     NULL, NULL, 0);
    /* Every kind the server knows, so a kind with no game reads 0 rather
     * than being absent (an absent series breaks sums and alerts). */
    for (int k = 0; k < TC_KINDS; k++)
        tc_kinds[k] = tc_kind_name((tc_kind)k);
    metrics_gauge(m, "qirkat_games_active",
                  "Games being played now (status active, in memory or not), by time-control "
                  "kind.",
                  "kind", tc_kinds, TC_KINDS, read_games_active, s);
    s->m_commits = metrics_counter(m, "qirkat_commits_total",
                                   "Batches committed (one transaction per loop turn or more), "
                                   "by outcome.",
                                   "result", commit_results, 2, NULL, NULL, 0);
    static const double lat[] = {0.0005, 0.001, 0.002, 0.005, 0.01, 0.02,
                                 0.05,   0.1,   0.2,   0.5,   1,    2.5};
    s->m_commit_s = metrics_histogram(m, "qirkat_commit_seconds",
                                      "From a batch's commit to its being on disk (the fsync "
                                      "included): how long its answers waited.",
                                      lat, (int)(sizeof lat / sizeof lat[0]));
    /* Finer at the bottom than the commit's: an SSD's fsync takes tens of
     * microseconds to a few ms, and the commit histogram above already
     * shows the waits on top of it. */
    static const double fs[] = {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005,
                                0.01,    0.02,   0.05,    0.1,    0.25,  0.5,   1, 2.5};
    s->m_fsync_s = metrics_histogram(m, "qirkat_fsync_seconds",
                                     "Each durability flush's fsync of the write-ahead log, as the "
                                     "store's writer thread times it (one may serve several "
                                     "batches).",
                                     fs, (int)(sizeof fs / sizeof fs[0]));
    s->api.m_held = metrics_counter(m, "qirkat_held_requests_total",
                                    "Request lines held while the write-ahead log restarted.",
                                    NULL, NULL, 0, NULL, NULL, 0);
    metrics_gauge(m, "qirkat_held_requests", "Request lines held now.", NULL, NULL, 1, read_held,
                  s);
    metrics_gauge(m, "qirkat_wal_bytes", "Size of the database's write-ahead log file.", NULL,
                  NULL, 1, read_wal, s);
    metrics_gauge(m, "qirkat_queue_depth",
                  "Jobs queued or running: engine hints, external pairings, password checks.",
                  "pool", pools, 3, read_queue, s);
}

char *srv_metrics_text(srv *s, size_t *len)
{
    return metrics_render(&s->metrics, len);
}

bool srv_healthy(const srv *s)
{
    return !s->stopping;
}

static char *metrics_cb(void *arg, size_t *len)
{
    return srv_metrics_text(arg, len);
}

static bool healthy_cb(void *arg)
{
    return srv_healthy(arg);
}

/* A lost batch whose undo log overflowed: every cached game is suspect. */
static void forget_all_games(void *arg)
{
    games_forget_all(((srv *)arg)->svc.games);
}

/* The store reports a committed epoch on disk: what its clients were told
 * may go out now. A batch that committed but cannot be made durable (an
 * fsync of SQLite's log failed) leaves memory, the database and the
 * clients' view beyond repair: the process stops at once (its clients were
 * told nothing of that batch) and a restart recovers from what is on disk.
 * On PostgreSQL a failed COMMIT means not committed: the node exits 75
 * for its supervisor to restart it (deploy/qirkatd.service). */
static void on_durable(void *arg, uint64_t epoch, int rc)
{
    srv *s = arg;
    if (rc != STORE_OK && store_is_pg(s->store)) {
        /* The COMMIT was refused or its transaction marked failed (a
         * statement of the batch sent without waiting failed, or one could
         * not be built): nothing of the batch was acknowledged, but memory
         * holds it. Start again from the
         * database, as after a lost connection. */
        log_error("batch %llu was not committed: exiting (status 75) to be restarted",
                  (unsigned long long)epoch);
        _exit(75);
    }
    if (rc != STORE_OK) {
        log_error("batch %llu committed but not durable: stopping at once",
                  (unsigned long long)epoch);
        abort();
    }
    metric_inc(s->m_commits, 0, 0);
    uint64_t at = s->commit_ns[epoch % 64];
    if (at)
        metric_observe(s->m_commit_s, (double)(uv_hrtime() - at) / 1e9);
    net_durable(&s->net, epoch);
    if (s->stopping && !s->net.all)
        stop_finish(s);
}

/* ---- life cycle ------------------------------------------------------- */

int srv_init(srv *s, uv_loop_t *loop, const srv_config *cfg)
{
    memset(s, 0, sizeof *s);
    s->loop = loop;
    s->cfg = *cfg;
    gsvc *g = &s->svc;
    g->loop = loop;
    g->test_clock = cfg->test_clock;
    g->test_now = cfg->test_clock_ms;
    g->game_over_hook = tourney_game_over;
    g->auth.max_jobs = cfg->max_hash_jobs > 0 ? cfg->max_hash_jobs : SRV_MAX_HASH_JOBS;
    g->auth.delay_ms = cfg->hash_delay_ms;
    g->auth.opslimit =
        cfg->pwhash_min ? crypto_pwhash_OPSLIMIT_MIN : crypto_pwhash_OPSLIMIT_INTERACTIVE;
    g->auth.memlimit =
        cfg->pwhash_min ? crypto_pwhash_MEMLIMIT_MIN : crypto_pwhash_MEMLIMIT_INTERACTIVE;
    /* A hash of a random password: unknown users are verified against it
     * so they cost as much time as known ones. */
    unsigned char pw[16];
    randombytes_buf(pw, sizeof pw);
    if (crypto_pwhash_str(g->auth.dummy_hash, (const char *)pw, sizeof pw, g->auth.opslimit,
                          g->auth.memlimit) != 0) {
        log_error("crypto_pwhash_str: out of memory");
        return -1;
    }
    store_pg_migrate_past_sessions(cfg->pg_migrate_past_sessions != 0);
    if (store_open(cfg->db_path, &s->store) != STORE_OK)
        return -1;
    if (cfg->journal_limit > 0 && store_journal_limit(s->store, cfg->journal_limit) != STORE_OK)
        goto fail_store;
    if (cfg->wal_restart_frames > 0)
        store_wal_restart_at(s->store, cfg->wal_restart_frames);
    batch_init(&s->batch, s->store, forget_all_games, s, on_durable, s);
    g->store = s->store;
    g->batch = &s->batch;
    if (games_new(g, &g->games) != 0) {
        log_error("out of memory");
        goto fail_store;
    }
    /* The active-games gauge counts every game of the database, not only
     * the ones loaded (game/games.h games_count_active()). */
    if (games_count_active(g->games) != STORE_OK) {
        log_error("cannot count the active games");
        games_free(g->games);
        g->games = NULL;
        goto fail_store;
    }
    net_hooks hooks = {session_open_cb, dispatch_line_cb, session_close_cb, session_free_cb,
                       sizeof(session)};
    net_init(&s->net, loop, &hooks, cfg->line_limit, cfg->out_limit);
    s->net.txn_epoch = batch_epoch(&s->batch);
    if (cfg->max_conns > 0)
        s->net.max_conns = (size_t)cfg->max_conns;
    if (cfg->max_per_addr > 0)
        s->net.max_per_addr = (size_t)cfg->max_per_addr;
    api_init(&s->api, loop, &s->net, g, cfg->rate, cfg->max_per_account);
    if (cfg->challenge_rate.off || cfg->challenge_rate.count > 0)
        s->api.challenge_rate = cfg->challenge_rate;
    s->net.data = &s->api;
    metrics_setup(s); /* after net_init and api_init, which clear their structs */
    g->sink = fanout_sink(&s->api);
    int rc = UV_ENOMEM;
    if (store_is_pg(s->store)) {
        /* Several nodes may share the database: run work as tasks, so a
         * wait for PostgreSQL never blocks the loop, and publish events. */
        if (task_enable(true) != 0 ||
            cluster_init(&s->cluster, &s->api, (uint64_t)cfg->cluster_silent_ms,
                         (uint64_t)cfg->cluster_refresh_beats) != 0)
            goto fail_api;
        s->clustered = true;
        s->cluster.m_events = metrics_counter(
            &s->metrics, "qirkat_cluster_events_total",
            "Events between nodes on one PostgreSQL: published (NOTIFY), received from another "
            "node, too big to publish, received but not an event (ignored), moves applied to a "
            "cached game, and not published because no other node is alive.",
            "outcome", cluster_outcomes, CLUSTER_OUTCOMES, NULL, NULL, 0);
        metrics_gauge(&s->metrics, "qirkat_cluster_peers",
                      "Other nodes on the same PostgreSQL heard from within the last 15 s.", NULL,
                      NULL, 1, read_peers, s);
        g->sink = cluster_sink(&s->cluster);
        store_pg_on_lost(s->store, database_lost, s);
    }
    if (heartbeat_init(&s->beat, &s->api, cfg->heartbeat_ms, cfg->login_timeout_ms) != 0)
        goto fail_api;
    if ((rc = workers_init(&s->hints, loop, SRV_HINT_THREADS, SRV_HINT_NICE)) < 0)
        goto fail_hints;
    s->api.hints = &s->hints;
    g->pairing_program = cfg->pairing_program;
    g->pairing_timeout_ms = cfg->pairing_timeout_ms;
    if (cfg->pairing_program) {
        if ((rc = workers_init(&s->pairers, loop, SRV_PAIRING_THREADS, 0)) < 0)
            goto fail_uv;
        s->pairers_open = true;
        g->pairing_pool = &s->pairers;
    }
    rc = uv_prepare_init(loop, &s->prep);
    if (rc < 0)
        goto fail_uv;
    s->prep.data = s;
    rc = uv_check_init(loop, &s->check);
    if (rc < 0) {
        uv_close((uv_handle_t *)&s->prep, NULL);
        goto fail_uv;
    }
    s->check.data = s;
    rc = uv_idle_init(loop, &s->idle);
    if (rc < 0) {
        uv_close((uv_handle_t *)&s->prep, NULL);
        uv_close((uv_handle_t *)&s->check, NULL);
        goto fail_uv;
    }
    s->idle.data = s;
    s->handles_open = true;
    if ((rc = uv_prepare_start(&s->prep, prepare_cb)) < 0 ||
        (rc = uv_check_start(&s->check, check_cb)) < 0)
        goto fail_handles;
    if (corr_new(g) != 0) {
        rc = UV_ENOMEM;
        goto fail_handles;
    }
    return 0;
fail_handles:
    uv_close((uv_handle_t *)&s->prep, NULL);
    uv_close((uv_handle_t *)&s->check, NULL);
    uv_close((uv_handle_t *)&s->idle, NULL);
    s->handles_open = false;
fail_uv:
    if (s->pairers_open) {
        g->pairing_pool = NULL;
        workers_close(&s->pairers);
        s->pairers_open = false;
    }
    workers_close(&s->hints);
fail_hints:
    heartbeat_stop(&s->beat);
fail_api:
    if (s->clustered) {
        cluster_close(&s->cluster);
        cluster_free(&s->cluster);
        s->clustered = false;
    }
    heartbeat_free(&s->beat);
    dispatch_drop_held(&s->api);
    api_free(&s->api);
    log_error("libuv: %s", uv_strerror(rc));
    games_free(g->games);
    g->games = NULL;
fail_store:
    batch_free(&s->batch);
    store_close(s->store);
    s->store = NULL;
    return -1;
}

static void stop_task(void *arg)
{
    srv_stop(arg);
}

static void signal_cb(uv_signal_t *h, int signum)
{
    log_info("signal %d: shutting down", signum);
    /* After the work already started (a task may wait for the database):
     * the stop stages rows too. */
    if (task_run(stop_task, h->data) != 0)
        srv_stop(h->data);
}

/* The PostgreSQL connection broke (store/pg/pg_core.c "Lost connection"):
 * nothing more can be made durable, so nothing more can be acknowledged.
 * Exit at once with EX_TEMPFAIL; the supervisor restarts the node, which
 * reconnects, and haproxy sends its clients to the other nodes meanwhile
 * (docs/scale.md "What fails how"). */
static void database_lost(void *arg)
{
    (void)arg;
    log_error("the database connection is lost: exiting (status 75) to be restarted");
    _exit(75);
}

void srv_apply_live(srv *s, const srv_config *cfg)
{
    s->cfg.rate = cfg->rate;
    if (!s->cfg.rate.off && s->cfg.rate.burst == 0)
        s->cfg.rate = (rate_cfg){RATE_DEFAULT_BURST, RATE_DEFAULT_PER_S, false};
    s->api.rate = s->cfg.rate;
    s->cfg.challenge_rate = cfg->challenge_rate;
    s->api.challenge_rate = cfg->challenge_rate.off || cfg->challenge_rate.count > 0
                                ? cfg->challenge_rate
                                : (rate_window){RATE_CHALLENGES_COUNT, RATE_CHALLENGES_SECONDS,
                                                false};
    s->cfg.max_conns = cfg->max_conns;
    s->net.max_conns = cfg->max_conns > 0 ? (size_t)cfg->max_conns : NET_DEFAULT_MAX_CONNS;
    s->cfg.max_per_addr = cfg->max_per_addr;
    s->net.max_per_addr =
        cfg->max_per_addr > 0 ? (size_t)cfg->max_per_addr : NET_DEFAULT_MAX_PER_ADDR;
    s->cfg.max_per_account = cfg->max_per_account;
    s->api.max_per_account =
        cfg->max_per_account > 0 ? cfg->max_per_account : API_MAX_CONNS_PER_ACCOUNT;
    s->cfg.pairing_timeout_ms = cfg->pairing_timeout_ms;
    s->svc.pairing_timeout_ms = cfg->pairing_timeout_ms;
}

/* SIGHUP: the settings as main reads them now, the live ones applied. */
static void sighup_cb(uv_signal_t *h, int signum)
{
    (void)signum;
    srv *s = h->data;
    if (!s->reload || s->stopping)
        return;
    sd_notify(0, "RELOADING=1");
    srv_config now;
    int level;
    if (s->reload(s->reload_arg, &now, &level) == 0) {
        log_set_level((log_level)level);
        srv_apply_live(s, &now);
    }
    sd_notify(0, "READY=1");
}

static void watchdog_cb(uv_timer_t *h)
{
    (void)h;
    sd_notify(0, "WATCHDOG=1");
}

/* "TCP\n", or "TCP\nHTTP\n" with --http (http_port < 0: none): readers of
 * the first line alone keep working. */
static int write_ready(int fd, int port, int http_port)
{
    char buf[32];
    int n = http_port < 0 ? snprintf(buf, sizeof buf, "%d\n", port)
                          : snprintf(buf, sizeof buf, "%d\n%d\n", port, http_port);
    ssize_t w;
    do
        w = write(fd, buf, (size_t)n);
    while (w < 0 && errno == EINTR);
    close(fd);
    return w == n ? 0 : -1;
}

int srv_start(srv *s)
{
    int rc = tcp_listen(&s->tcp, &s->net, s->cfg.host, s->cfg.port, &s->port);
    if (rc < 0)
        return -1;
    s->http_port = -1;
    if (s->cfg.http_host) {
        s->http_open = true; /* even on failure: its handles close in stop_finish */
        ws_opts wo = {.frame_ms = s->cfg.ws_frame_ms,
                      .head_ms = s->cfg.http_head_ms,
                      .metrics = metrics_cb,
                      .healthy = healthy_cb,
                      .arg = s};
        if (ws_listen(&s->http, &s->net, s->cfg.http_host, s->cfg.http_port, &wo,
                      &s->http_port) != 0) {
            tcp_stop_listening(&s->tcp);
            return -1;
        }
    }
    if ((rc = uv_signal_init(s->loop, &s->sigint)) < 0)
        goto fail;
    s->sigint.data = s;
    if ((rc = uv_signal_init(s->loop, &s->sigterm)) < 0) {
        uv_close((uv_handle_t *)&s->sigint, NULL);
        goto fail;
    }
    s->sigterm.data = s;
    if ((rc = uv_signal_init(s->loop, &s->sighup)) < 0) {
        uv_close((uv_handle_t *)&s->sigint, NULL);
        uv_close((uv_handle_t *)&s->sigterm, NULL);
        goto fail;
    }
    s->sighup.data = s;
    if ((rc = uv_signal_start(&s->sigint, signal_cb, SIGINT)) < 0 ||
        (rc = uv_signal_start(&s->sigterm, signal_cb, SIGTERM)) < 0 ||
        (rc = uv_signal_start(&s->sighup, sighup_cb, SIGHUP)) < 0) {
        uv_close((uv_handle_t *)&s->sigint, NULL);
        uv_close((uv_handle_t *)&s->sigterm, NULL);
        uv_close((uv_handle_t *)&s->sighup, NULL);
        goto fail;
    }
    s->signals_open = true;
    /* Deadlines are reloaded (and extended after a long stop) before the
     * port is reported: a client never sees a stale deadline. */
    if (corr_start(&s->svc) != 0 || heartbeat_start(&s->beat) != 0)
        return -1;
    /* Timed from here, after start-up's own commits (corr_start): then
     * every flush serves a batch that qirkat_commits_total counts. */
    store_time_fsyncs(s->store, s->m_fsync_s);
    /* From here commits are made durable off the loop (store_core.h). */
    if (store_async_start(s->store, s->loop, s->cfg.fsync_delay_ms) != STORE_OK)
        log_warn("commits stay synchronous: every fsync runs on the loop");
    if ((rc = upkeep_start(&s->upkeep, &s->svc, s->cfg.upkeep_ms)) < 0) {
        log_error("upkeep timer: %s", uv_strerror(rc));
        return -1;
    }
    /* Injected commit failures count from here, after start-up's own. */
    store_fail_commit_at(s->store, s->cfg.fail_commit_at);
    log_info("listening on %s:%d, database %s", s->cfg.host, s->port, s->cfg.db_path);
    if (s->cfg.http_host)
        log_info("web page and WebSocket on http://%s:%d/ (/ws)", s->cfg.http_host, s->http_port);
    if (s->cfg.ready_fd >= 0 && write_ready(s->cfg.ready_fd, s->port, s->http_port) != 0)
        log_warn("cannot write the port to fd %d: %s", s->cfg.ready_fd, strerror(errno));
    /* systemd (Type=notify): up, and the watchdog fed from the loop. */
    uint64_t wd_usec = 0;
    if (sd_watchdog_enabled(0, &wd_usec) > 0 && wd_usec >= 2000 &&
        uv_timer_init(s->loop, &s->watchdog) == 0) {
        s->watchdog_open = true;
        uint64_t every = wd_usec / 2000; /* ms, half the period */
        uv_timer_start(&s->watchdog, watchdog_cb, every, every);
        uv_unref((uv_handle_t *)&s->watchdog);
    }
    sd_notifyf(0, "READY=1\nSTATUS=listening on %s:%d", s->cfg.host, s->port);
    return 0;
fail:
    log_error("libuv signals: %s", uv_strerror(rc));
    tcp_stop_listening(&s->tcp);
    return -1;
}

/* Every connection is closed: close the server's own handles, so uv_run()
 * returns once the thread pool's last completions have run. */
static void stop_finish(srv *s)
{
    /* The last batch's durability is awaited here (the writer is joined):
     * its handle would keep uv_run() going otherwise. */
    store_async_stop(s->store);
    /* No connection is left, so no answer is awaited: a search still
     * running is finished (at most HINT_MS) and dropped. */
    s->api.hints = NULL;
    workers_close(&s->hints);
    /* A pairing program still running is waited for (at most its
     * timeout); what it returns now is discarded (tourney.c job_done). */
    if (s->pairers_open) {
        s->svc.pairing_pool = NULL;
        workers_close(&s->pairers);
        s->pairers_open = false;
    }
    if (s->stop_timer_open) {
        s->stop_timer_open = false;
        uv_close((uv_handle_t *)&s->stop_timer, NULL);
    }
    if (s->clustered)
        cluster_close(&s->cluster);
    if (s->handles_open) {
        s->handles_open = false;
        uv_close((uv_handle_t *)&s->prep, NULL);
        uv_close((uv_handle_t *)&s->check, NULL);
        uv_close((uv_handle_t *)&s->idle, NULL);
    }
    if (s->signals_open) {
        s->signals_open = false;
        uv_close((uv_handle_t *)&s->sigint, NULL);
        uv_close((uv_handle_t *)&s->sigterm, NULL);
        uv_close((uv_handle_t *)&s->sighup, NULL);
    }
    if (s->watchdog_open) {
        s->watchdog_open = false;
        uv_close((uv_handle_t *)&s->watchdog, NULL);
    }
    /* The HTTP listener, its sockets and timers: their handles close while
     * the loop runs on. */
    if (s->http_open)
        ws_stop(&s->http);
}

/* The grace period is over: whoever is still connected is cut off. */
static void stop_timer_cb(uv_timer_t *h)
{
    srv *s = h->data;
    if (s->net.all)
        log_warn("%zu connections still busy %d ms after the stop: closing them", s->net.nconns,
                 SRV_STOP_GRACE_MS);
    net_close_all(&s->net);
    srv_flush(s); /* no connection is left: stop_finish() */
}

void srv_stop(srv *s)
{
    if (s->stopping)
        return;
    s->stopping = true;
    s->svc.stopping = true;
    sd_notify(0, "STOPPING=1");
    dispatch_release(&s->api, true); /* lines held before the stop run (dispatch.h) */
    fanout_server_stopping(&s->api); /* first: a client learns why before the refusals */
    api_stop(&s->api); /* requests are answered server_shutdown from now on */
    heartbeat_stop(&s->beat);
    tcp_stop_listening(&s->tcp);
    corr_stop(&s->svc); /* stages last_alive */
    upkeep_stop(&s->upkeep);
    int rc = uv_timer_init(s->loop, &s->stop_timer);
    if (rc == 0) {
        s->stop_timer.data = s;
        s->stop_timer_open = true;
        rc = uv_timer_start(&s->stop_timer, stop_timer_cb, SRV_STOP_GRACE_MS, 0);
    }
    if (rc < 0) {
        /* No grace period without its timer: stop as before, at once. */
        log_error("stop timer: %s", uv_strerror(rc));
        srv_flush(s);
        net_close_all(&s->net);
        stop_finish(s);
        return;
    }
    /* What is staged is committed and what was answered goes out; then
     * every connection ends as soon as it is quiet (net_shutdown), the
     * last one's close letting srv_flush() call stop_finish(). */
    srv_flush(s);
    net_shutdown(&s->net);
    srv_flush(s);
}

void srv_close(srv *s)
{
    log_info("%llu batches committed, %llu lost", (unsigned long long)s->batch.commits,
             (unsigned long long)s->batch.losses);
    if (s->http_open) {
        ws_free(&s->http); /* after uv_run() returned: the handles are closed */
        s->http_open = false;
    }
    batch_free(&s->batch);
    games_free(s->svc.games);
    s->svc.games = NULL;
    corr_free(&s->svc);
    heartbeat_free(&s->beat);
    dispatch_drop_held(&s->api);
    if (s->clustered)
        cluster_free(&s->cluster);
    api_free(&s->api);
    net_free(&s->net);
    store_close(s->store);
    s->store = NULL;
    metrics_free(&s->metrics);
    free(s->op_names);
    s->op_names = NULL;
}
