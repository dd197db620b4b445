/*
 * harness: drive the real qirkatd and qirkat binaries as separate processes.
 *
 * Design. Every integration test runs in its own Criterion worker process and
 * owns everything it starts: a fresh mkdtemp() directory (database, server
 * log, one XDG_CONFIG_HOME per user), the server process and any client
 * processes. All of them are recorded in a per-process registry, so
 * h_teardown() (the suite's .fini, also run after a failed assertion) kills
 * what is left and removes the directory. Children also get
 * PR_SET_PDEATHSIG, so even a worker killed by a Criterion timeout leaves no
 * server behind.
 *
 * Readiness is never guessed: the server is started with --listen
 * 127.0.0.1:0 --ready-fd N and the harness reads the bound port from that
 * pipe. Every blocking wait (ready pipe, socket reads, child exit) has a
 * deadline; a missed deadline is a test failure, never a hang.
 *
 * Binaries come from $QK_BIN (default "build"), shared data from $QK_SHARED
 * (default "../shared"); tests run from the project root.
 *
 * Ownership: functions returning cJSON * hand the tree to the caller, who
 * cJSON_Delete()s it, unless the comment says "borrowed". Functions that
 * fail a precondition call cr_assert (the test aborts and h_teardown runs).
 */
#ifndef QK_IT_HARNESS_H
#define QK_IT_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#define H_PATH 512
#define H_CLI_TIMEOUT_MS 20000 /* a qirkat invocation that takes longer fails */
#define H_READY_TIMEOUT_MS 15000
#define H_EXIT_TIMEOUT_MS 15000
#define H_READ_TIMEOUT_MS 10000 /* default for socket reads */

/* ---- per-test lifecycle ------------------------------------------------ */

/* Suite .init: ignore SIGPIPE, reset the registry. */
void h_setup(void);
/* Suite .fini (runs after a failed assertion too): SIGKILL every child still
 * running, reap it, close sockets, remove temp dirs (kept when $QK_KEEP is
 * set). When the test did not reach h_pass(), prints the tail of every
 * server log to stderr to help diagnosis. */
void h_teardown(void);
/* Mark the current test as having run to its end (see h_teardown). */
void h_pass(void);

/* A fresh directory (mkdtemp under $TMPDIR or /tmp) removed at teardown.
 * Writes its path into out (H_PATH bytes). */
void h_tmpdir(char *out);
/* $QK_SHARED or "../shared"; $QK_BIN or "build". Static strings. */
const char *h_shared(void);
const char *h_bin(void);

/* ---- the server -------------------------------------------------------- */

#define H_SRV_MAX_ARGS 6

typedef struct hsrv {
    pid_t pid;        /* 0 when not running */
    int port;         /* port of the current run */
    char addr[64];    /* "127.0.0.1:PORT" of the current run */
    char dir[H_PATH]; /* the test's temp dir */
    char db[H_PATH];  /* dir/qirkat.db */
    char log[H_PATH]; /* dir/server.log (stderr of every run, appended) */
    int runs;         /* how many times it was started */
    /* More qirkatd arguments for every run (hsrv_start_args), NULL-ended. */
    const char *args[H_SRV_MAX_ARGS + 1];
} hsrv;

/* Create a temp dir and start qirkatd on a fresh database in it. Asserts
 * the server reported its port within H_READY_TIMEOUT_MS. */
void hsrv_start(hsrv *s);
/* The same with more qirkatd arguments (NULL-ended, at most
 * H_SRV_MAX_ARGS; the strings must outlive s), kept for restarts. */
void hsrv_start_args(hsrv *s, const char *const *args);
/* Start again on the same database (a new port; s->port/addr updated). */
void hsrv_restart(hsrv *s);
/* Start again on the same database and the same port as the last run
 * (clients that reconnect by themselves find it again). */
void hsrv_restart_same_port(hsrv *s);
/* SIGTERM, wait, assert a clean exit with status 0. */
void hsrv_stop(hsrv *s);
/* SIGKILL and reap (simulates a crash). */
void hsrv_kill(hsrv *s);
/* Per-user config dir dir/NAME (created), for XDG_CONFIG_HOME. */
void hsrv_userdir(const hsrv *s, const char *name, char *out);
/* alice and bob registered through the CLI (passwords "pw-alice-1" and
 * "pw-bob-12" on stdin), each with a config dir of their own, into ad and
 * bd (H_PATH bytes each). Fails the test when a registration fails. */
void hcli_register_pair(const hsrv *s, char *ad, char *bd);

/* ---- raw JSON-lines client ---------------------------------------------- */

typedef struct hconn hconn;

/* Connect to 127.0.0.1:port (asserts success). */
hconn *hconn_open(int port);
void hconn_close(hconn *c);
/* Send bytes as they are (no newline added). Returns 0, or -1 when the
 * peer closed (EPIPE/ECONNRESET). */
int hconn_send_raw(hconn *c, const void *data, size_t n);
/* Next message of any kind (event or response). NULL on timeout or EOF;
 * hconn_eof() tells which. Asserts every line is one JSON object. */
cJSON *hconn_read(hconn *c, int timeout_ms);
bool hconn_eof(const hconn *c);
/* Wait for EOF (the server closed): true if seen within timeout_ms; any
 * messages read meanwhile are kept as events/replies. */
bool hconn_wait_eof(hconn *c, int timeout_ms);
/* Send one request given as JSON text (printf format) to which the harness
 * adds a fresh numeric "id"; return the response carrying that id. Events
 * read meanwhile are queued. Asserts a response arrives within
 * H_READ_TIMEOUT_MS. */
cJSON *hconn_rpc(hconn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Send a raw line (newline appended), return the next non-event message
 * (for requests whose id the server cannot read: bad_json, line_too_long).
 * NULL on EOF or timeout. */
cJSON *hconn_raw_reply(hconn *c, const char *line, int timeout_ms);
/* The next response (non-event message), queued or arriving; NULL after
 * timeout_ms or on EOF. */
cJSON *hconn_reply(hconn *c, int timeout_ms);
/* The first queued-or-arriving event named `event` for which
 * match(ev, arg) is true (match may be NULL); removed from the queue. NULL
 * after timeout_ms. */
cJSON *hconn_event(hconn *c, const char *event, bool (*match)(const cJSON *ev, const void *arg),
                   const void *arg, int timeout_ms);
/* Drop every queued event. */
void hconn_drop_events(hconn *c);

/* Convenience: hello, then register (or login) USER with PASSWORD; asserts
 * ok. */
void hconn_hello(hconn *c);
void hconn_register(hconn *c, const char *user, const char *password);
void hconn_login(hconn *c, const char *user, const char *password);

/* ---- the qirkat CLI ---------------------------------------------------- */

typedef struct hrun {
    int code;       /* exit status, or -1 when killed by a signal / timeout */
    int signal;     /* terminating signal, 0 if it exited */
    bool timed_out; /* killed after H_CLI_TIMEOUT_MS */
    char *out;      /* stdout, NUL-terminated, heap */
    char *err;      /* stderr */
    cJSON *json;    /* stdout parsed as one JSON object (the last line that
                       parses), or NULL */
    char cmd[512];  /* the command line, for messages */
} hrun;

/* Run $QK_BIN/qirkat with argv (NULL-terminated, without argv[0]) with
 * XDG_CONFIG_HOME=HOME=confdir, QIRKAT_SERVER=server (unset if NULL), stdin
 * fed with stdin_data (or /dev/null if NULL). Waits at most
 * H_CLI_TIMEOUT_MS (then SIGKILL, timed_out = true). Asserts nothing about
 * the outcome. */
void hcli_runv(hrun *r, const char *confdir, const char *server, const char *stdin_data,
               const char *const *argv);
/* Same with the arguments inline, NULL-terminated. */
void hcli_run(hrun *r, const char *confdir, const char *server, const char *stdin_data, ...)
    __attribute__((sentinel));
/* Assert exit 0 within the deadline and a JSON object on stdout; returns
 * r->json (borrowed). */
const cJSON *hrun_ok_json(const hrun *r);
void hrun_free(hrun *r);

/* Start $QK_BIN/qirkat with argv (NULL-terminated, without argv[0]) in the
 * background, with XDG_CONFIG_HOME=HOME=confdir, QIRKAT_SERVER=server
 * (unset if NULL), stdin from /dev/null, stdout and stderr appended to
 * logfile (dumped by h_teardown when the test fails). The child is owned:
 * h_teardown kills it. Returns its pid. */
pid_t hcli_spawn(const char *confdir, const char *server, const char *logfile,
                 const char *const *argv);
/* Send sig to a child of hcli_spawn, reap it (SIGKILL after
 * H_EXIT_TIMEOUT_MS) and disown it. Returns its wait status. */
int hproc_kill(pid_t pid, int sig);

/* ---- JSON helpers ------------------------------------------------------ */

/* Borrowed lookups; NULL when absent or of another type. */
const char *hj_str(const cJSON *o, const char *name);
/* Integer field; asserts presence and integrality. */
long long hj_int(const cJSON *o, const char *name);
bool hj_has_int(const cJSON *o, const char *name, long long *out);
/* The game object of a response (o.game when it is an object, else o when
 * it looks like a game itself). Borrowed; asserts found. */
const cJSON *hj_game(const cJSON *o);
/* Assert a response is ok / an error with this code. */
void hj_assert_ok(const cJSON *resp, const char *what);
void hj_assert_error(const cJSON *resp, const char *code, const char *what);
/* Compact text of o for messages; a static ring buffer of a few entries,
 * truncated to about 1500 chars. */
const char *hj_text(const cJSON *o);

/* ---- recorded games ---------------------------------------------------- */

typedef struct hgame {
    char *variant, *start, *result, *reason, *final;
    char **moves; /* nmoves strings */
    int nmoves;
    cJSON *legal; /* array of arrays, borrowed from the parsed line */
    cJSON *root;  /* the parsed line, owned */
    int index;    /* line number in the file, 0-based */
} hgame;

/* Load $QK_SHARED/data/games/FILE.jsonl. Returns the count; *out is a heap
 * array freed with hgames_free. Asserts the file exists and parses. */
int hgames_load(const char *file, hgame **out);
void hgames_free(hgame *g, int n);
/* The standard start position of a variant (RULES.md sections 2 and 7) into
 * buf (n bytes); false if the variant name is unknown. */
bool h_std_start(const char *variant, char *buf, size_t n);
/* Side to move ('w' or 'b') of a position string. */
char h_pos_side(const char *pos);

/* ---- database ---------------------------------------------------------- */

/* Row counts of users, games and moves in the db file, opened read-only. */
typedef struct hcounts {
    long long users, games, moves;
} hcounts;
void hdb_counts(const char *db, hcounts *out);
void hdb_assert_counts_eq(const hcounts *a, const hcounts *b, const char *what);

#endif
