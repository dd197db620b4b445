/*
 * srv: the server object that wires the layers together on one loop: the
 * store (store/), the iteration's batch (store/batch.h), the game service
 * (game/svc.h), the network layer (net/) and the protocol layer (api/).
 * Nothing below includes this header (docs/design.md "Server layers").
 *
 * Design. One srv per process, on one libuv loop; nothing here is shared
 * with another thread (the thread pool hashes passwords, auth.h, and
 * computes hints, hint.c; its workers touch only their own job).
 * Requests run to completion on the loop thread; their writes go into the
 * iteration's batch and their output into the connections' held
 * queues. A uv_prepare and a uv_check handle call srv_flush() once per
 * iteration: end the batch (commit) first, then write what is durable.
 * The commit's fsync runs on the store's writer thread (store_core.h
 * store_async_start): the batch's answers wait for it (net/conn.h
 * "Durability epochs") while the loop goes on with the next batch, so a
 * slow disk delays only the answers that depend on it. The prepare handle covers output
 * made by timers and deferred callbacks before the loop blocks; the check
 * handle covers everything read in the poll phase (store_core.h, "Group
 * commit"). A connection handles a bounded batch of lines per iteration
 * (conn.h, "Backpressure"); while some have lines waiting, a uv_idle
 * handle runs and keeps the loop from blocking, and its callback hands
 * each of them its next batch, which the prepare handle then commits and
 * writes.
 *
 * Requests are rate-limited per connection (api/api.h). Events leave the
 * game service through its sink (game/svc.h), which srv wires to the api
 * layer's fan-out over the connections.
 *
 * Time comes from svc_now(), the one clock of the server: deadlines
 * (game/corr.h) and every stored time read it, and tests drive it through
 * --test-clock and the debug_clock op.
 *
 * Stopping (SIGINT/SIGTERM, srv_stop). Nothing a client was told is lost
 * and every request gets its one answer:
 *   0. every connection, logged in or not, gets the event
 *      {"type":"event","event":"server_stopping"} (api/fanout.h);
 *   1. the listener closes and the correspondence timers stop (last_alive
 *      is staged); what is staged is committed and written;
 *   2. from then on every request line, buffered or arriving, is answered
 *      `server_shutdown` (with its id when the line parses and has a valid
 *      one) instead of being run (api/dispatch.c);
 *   3. work already on the thread pool (a password hash, a hint, an
 *      external pairing: at most its timeout) finishes and is answered
 *      normally, a register or login committing as usual;
 *      its connection's waiting lines then get `server_shutdown`;
 *   4. each connection is ended once it is quiet (net/conn.h net_shutdown):
 *      nothing deferred or buffered or unread, all its output written;
 *      then FIN (uv_shutdown) and close; a WebSocket gets its close frame
 *      (1001) after its last message instead of the FIN; no new WebSocket
 *      is accepted (the upgrade is refused) while the HTTP port stays
 *      open;
 *   5. SRV_STOP_GRACE_MS after the signal whatever is still open (a client
 *      that does not read, or never stops sending) is closed;
 *   6. when the last connection is closed the server's handles close and
 *      so does the HTTP side (ws_stop: its listener, its HTTP connections,
 *      sockets still lingering after their close frame, its timers);
 *      uv_run() returns after the pool's last completions, and main()
 *      closes the database (srv_close, which frees what is left of the
 *      HTTP side with ws_free) and exits 0.
 *
 * Under systemd (Type=notify, deploy/qirkatd.service; nothing without
 * NOTIFY_SOCKET): READY=1 once listening, RELOADING=1 then READY=1 around
 * a SIGHUP reload, STOPPING=1 when a stop begins, and WATCHDOG=1 from a
 * loop timer at half of WatchdogSec, so a loop that stops turning (a
 * blocking call, a livelock) is killed and restarted by systemd.
 * Password hashes are capped: at most cfg.max_hash_jobs (default
 * SRV_MAX_HASH_JOBS) queued or running at once; beyond that register and
 * login with a password are answered `server_busy` with `retry_after_ms`
 * (api/dispatch.c) so logins cannot fill libuv's small thread pool.
 */
#ifndef QK_SRV_H
#define QK_SRV_H

#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

#include "api/api.h"
#include "api/cluster.h"
#include "api/heartbeat.h"
#include "game/svc.h"
#include "game/upkeep.h"
#include "net/conn.h"
#include "net/tcp.h"
#include "net/ws.h"
#include "store/batch.h"
#include "store/store.h"
#include "util/ratelimit.h"

#define SRV_STOP_GRACE_MS 5000 /* from the stop signal to closing what is left */
#define SRV_MAX_HASH_JOBS 16   /* password hashes queued or running */
#define SRV_HINT_THREADS 2     /* engine searches at once (libuv's pool keeps the hashes) */
#define SRV_HINT_NICE 10       /* the searches yield the CPU to logins and the loop */
#define SRV_PAIRING_THREADS 2  /* external pairing programs waited on at once */

typedef struct srv_config {
    const char *host;      /* listen address */
    int port;              /* 0 = ephemeral */
    const char *http_host; /* --http: web page and WebSocket; NULL = none */
    int http_port;         /* 0 = ephemeral */
    const char *db_path;   /* SQLite file, or a PostgreSQL URL (store/pg.h) */
    int ready_fd;          /* -1 = none; the TCP port, then the HTTP port with --http */
    bool pwhash_min;       /* libsodium MIN limits instead of INTERACTIVE */
    size_t line_limit;     /* 0 = QK_FRAME_DEFAULT_LIMIT */
    size_t out_limit;      /* 0 = NET_DEFAULT_OUT_LIMIT */
    int fail_commit_at;    /* fault injection (store_fail_commit_at), 0 = off */
    bool test_clock;       /* time is test_clock_ms, moved only by debug_clock (svc.h) */
    int64_t test_clock_ms;
    int heartbeat_ms;     /* empty line after this much output silence; 0 = 20000 */
    int login_timeout_ms; /* close a connection not logged in by then; 0 = 60000 */
    int cluster_silent_ms; /* api/cluster.h CLUSTER_SILENT_MS; 0 = that (tests shorten it) */
    int cluster_refresh_beats; /* api/cluster.h CLUSTER_REFRESH_BEATS; 0 = that */
    int pg_migrate_past_sessions; /* 1: store/pg.h store_pg_migrate_past_sessions() */
    rate_cfg rate;        /* per-connection request limit; all zero = the defaults */
    rate_window challenge_rate; /* challenges per account; all zero = the defaults (ratelimit.h) */
    int max_hash_jobs;    /* password hashes at once; 0 = SRV_MAX_HASH_JOBS */
    int hash_delay_ms;    /* tests only: each hash job sleeps this long first */
    int max_conns;        /* connections in all; 0 = NET_DEFAULT_MAX_CONNS (4096) */
    int max_per_addr;     /* connections from one address; 0 = NET_DEFAULT_MAX_PER_ADDR */
    int max_per_account;  /* connections logged in as one user; 0 = API_MAX_CONNS_PER_ACCOUNT */
    int fsync_delay_ms;   /* tests and benchmarks: every fsync stalls this long (store_core.h) */
    int upkeep_ms;        /* upkeep tick (game/upkeep.h); 0 = UPKEEP_TICK_MS */
    int64_t journal_limit; /* bytes the WAL is cut back to; 0 = STORE_JOURNAL_LIMIT */
    int wal_restart_frames; /* store_wal_restart_at(); 0 = STORE_WAL_RESTART_FRAMES */
    int ws_frame_ms;  /* --http: a started WebSocket frame or message; 0 = WS_FRAME_MS */
    int http_head_ms; /* --http: an HTTP request head; 0 = WS_HEAD_MS */
    const char *pairing_program; /* --pairing-program: the external Swiss pairer; NULL = none */
    int pairing_timeout_ms;      /* one run of it; 0 = TOURNEY_PAIRING_TIMEOUT_MS */
} srv_config;

typedef struct srv {
    uv_loop_t *loop;
    srv_config cfg;
    /* On PostgreSQL: work runs as tasks (util/task.h) and events cross
     * nodes (api/cluster.h). */
    bool clustered;
    cluster cluster;
    store *store;
    batch batch; /* the iteration's transaction */
    gsvc svc;    /* the game service */
    net net;
    tcp_listener tcp; /* the JSON-lines port */
    ws_server http;   /* --http: the page and the WebSocket (net/ws.h) */
    bool http_open;
    api api;
    heartbeat beat;
    upkeep upkeep; /* idle checkpoint and the sweep of old rows */
    workers hints; /* the engine's threads (api/hint.c) */
    workers pairers; /* with cfg.pairing_program: the threads that wait for it (game/tourney.h) */
    bool pairers_open;
    uv_prepare_t prep;
    uv_check_t check;
    uv_idle_t idle; /* runs while connections have lines waiting (net_run_ready) */
    uv_signal_t sigint, sigterm, sighup;
    uv_timer_t stop_timer; /* the grace period of a stop */
    uv_timer_t watchdog;   /* under systemd's WatchdogSec: WATCHDOG=1 at half the period */
    bool handles_open, signals_open, stopping, stop_timer_open, watchdog_open;
    /* SIGHUP: re-read the settings (set by main; NULL = SIGHUP ignored).
     * It returns 0 and fills *live with the new settings and *level with
     * the new log level, or -1 when they cannot be read (logged; nothing
     * changes). */
    int (*reload)(void *arg, srv_config *live, int *level);
    void *reload_arg;
    /* The figures of GET /metrics (util/metrics.h, docs/operations.md
     * "Monitoring"), counted by the layers through the metric pointers
     * srv_init hands them. */
    metrics metrics;
    metric *m_accepted, *m_commits, *m_commit_s, *m_fsync_s;
    const char **op_names; /* "(none)" and the op table's names: a label's values */
    int nops;
    double start_time; /* UTC seconds */
    uint64_t commit_ns[64]; /* uv_hrtime() of epoch e's commit at [e % 64] */
    int port;      /* bound */
    int http_port; /* bound, with --http */
} srv;

/* Open the store (migrating it), create the game service, the api layer
 * and the flush handles on loop. sodium_init() must have succeeded.
 * Returns 0, or -1 after logging why (everything acquired is released). */
int srv_init(srv *s, uv_loop_t *loop, const srv_config *cfg);
/* Listen (cfg host/port, and cfg http_host/http_port when http_host is
 * set), report the TCP port on cfg.ready_fd (then, with --http, the HTTP
 * port on a second line), install the SIGINT/SIGTERM handlers. 0 or -1
 * (logged). */
int srv_start(srv *s);
/* Graceful stop (the signal handlers call it): see "Stopping" above.
 * Returns at once; uv_run() returns when it is over. Idempotent. */
void srv_stop(srv *s);
/* After uv_run() returned: free everything and close the database. */
void srv_close(srv *s);

/* The exposition text of the server's metrics, malloc'd (caller frees),
 * its length in *len; NULL on allocation failure. */
char *srv_metrics_text(srv *s, size_t *len);
/* Whether the server accepts work (GET /healthz: 200, else 503). */
bool srv_healthy(const srv *s);

/* Apply the settings of cfg that can change while the server runs: the
 * per-connection request rate, the per-account challenge rate, the
 * connection caps (in all, per address, per account; connections already
 * open stay) and the external pairer's timeout. Others are ignored (they
 * need a restart; config.h says which). */
void srv_apply_live(srv *s, const srv_config *cfg);

/* End the iteration's batch (commit), then write held output (see above). */
void srv_flush(srv *s);

#endif
