/*
 * helper: what the server tests share. Start the real build/qirkatd on
 * 127.0.0.1:0 with a fresh database in a mkdtemp() directory and learn its
 * port through --ready-fd (no sleeps); talk JSON lines to it over real TCP
 * sockets; look at the database file read-only to prove bad input changed
 * no row. Every helper fails the current Criterion test on a broken
 * expectation, so tests read as straight lines.
 */
#ifndef QK_TEST_SERVER_HELPER_H
#define QK_TEST_SERVER_HELPER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#define T_TIMEOUT_MS 5000
#define T_PW "secret-pw"

typedef struct tsrv {
    pid_t pid;
    int port;
    int http_port; /* with tsrv_start_http: qirkatd --http 127.0.0.1:0 */
    bool http;
    char dir[128];
    char db[192];
    char log[192];
} tsrv;

/* Start qirkatd (QK_BIN, default "build") with --pwhash min. env, when not
 * NULL, is extra "NAME=value" settings (several separated by spaces) for
 * its environment. */
void tsrv_start(tsrv *s, const char *env);
/* The same with --http 127.0.0.1:0: s->http_port is the second line of
 * the ready fd (tests/server/test_ws.c). */
void tsrv_start_http(tsrv *s, const char *env);
/* Start qirkatd on an existing database db (a path or a PostgreSQL URL;
 * several nodes on one database, issue 22), with --http when http. */
void tsrv_start_on(tsrv *s, const char *db, bool http, const char *env);
/* A new, empty database on the cluster of QK_TEST_PG_URL; its URL into
 * out (size n). tsrv_start() uses one for each server when QK_TEST_PG_URL
 * is set (make test-pg), so a suite written for SQLite runs on PostgreSQL
 * (issue 22); tests that read the SQLite file (t_db_*) are not run so. */
void t_pg_new_db(char *out, size_t n);
/* The one number sql (a SELECT of one row, one column) gives on the
 * PostgreSQL database at url. */
long long t_pg_count(const char *url, const char *sql);
/* One HTTP/1.1 GET of path on port (Connection: close): the status into
 * *status, the body returned (malloc'd, the caller frees). Fails the
 * test when nothing answers. */
char *t_http_get(int port, const char *path, int *status);
/* Start again on the same database (after tsrv_kill or tsrv_stop). */
void tsrv_restart(tsrv *s, const char *env);
/* SIGTERM; asserts a clean exit 0. */
void tsrv_stop(tsrv *s);
/* SIGKILL (a crash): nothing is flushed. */
void tsrv_kill(tsrv *s);
/* Stop if running and remove the directory. */
void tsrv_cleanup(tsrv *s);
/* Whether the process is still running. */
bool tsrv_alive(tsrv *s);
/* Wait up to timeout_ms for the server to exit by itself: its exit status
 * (WEXITSTATUS), or -1 when it was killed by a signal; fails the test
 * when it is still running then. The server can be tsrv_restart()ed. */
int tsrv_wait_exit(tsrv *s, int timeout_ms);

typedef struct tconn {
    int fd;
    char *buf; /* unparsed input */
    size_t len, cap;
    cJSON **q; /* messages read but not yet taken */
    int nq, capq;
    long long next_id;
    bool eof;
    int blanks; /* empty lines (heartbeats) skipped */
} tconn;

tconn *tc_open(int port);
void tc_close(tconn *c);
/* Write all n bytes; false when the peer has closed. */
bool tc_send(tconn *c, const void *data, size_t n);
bool tc_sendf(tconn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The next message of any kind, NULL on timeout or EOF. */
cJSON *tc_read(tconn *c, int timeout_ms);
/* The next response (events are kept for tc_event). */
cJSON *tc_reply(tconn *c, int timeout_ms);
/* Send an object (fmt gives "{...}" without id); the id is inserted
 * textually; returns the response with that id (asserts one comes). */
cJSON *tc_rpc(tconn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The next event named name (others stay queued), NULL on timeout. */
cJSON *tc_event(tconn *c, const char *name, int timeout_ms);
/* Drop queued events. */
void tc_drop_events(tconn *c);
/* Ping, so every event sent before is read, then drop the events. */
void tc_sync(tconn *c);
/* Wait for the server to close the connection. */
bool tc_wait_eof(tconn *c, int timeout_ms);

/* Assertions on responses. */
void t_ok(const cJSON *r, const char *what);
void t_err(const cJSON *r, const char *code, const char *what);
const char *t_str(const cJSON *o, const char *name);
long long t_int(const cJSON *o, const char *name);
const cJSON *t_obj(const cJSON *o, const char *name);
char *t_text(const cJSON *o); /* static buffer */

/* Shortcuts: register (and so log in), challenge + accept; the game id. */
void t_register(tconn *c, const char *user);
long long t_new_game(tconn *white, tconn *black, const char *black_name, const char *variant);

/* The same with a time control and more fields: white challenges
 * black_name to variant with time_control tc (JSON text, e.g.
 * "{\"kind\":\"unlimited\"}") and extra (further members, each starting
 * with ",", or NULL), white playing white; black accepts. The game id. */
long long t_new_game_tc(tconn *white, tconn *black, const char *black_name, const char *variant,
                        const char *tc, const char *extra);

/* Move the server's test clock (qirkatd started with QK_TEST_CLOCK) by ms
 * milliseconds through c's debug_clock; with sweep false the deadlines
 * that fall due are left to the next request (a loop that is late). Fails
 * the test on an error answer. */
void t_advance(tconn *c, long long ms, bool sweep);

/* The game object of gid as c gets it from `game`; the caller deletes it
 * (cJSON_Delete). Fails the test on an error answer. */
cJSON *t_game(tconn *c, long long gid);

/* Send the first legal move of gid as c at the game's ply ("a1-a2" when
 * there is none, to see it refused); the answer, which the caller
 * deletes. */
cJSON *t_try_first(tconn *c, long long gid);

/* Play the first legal move of gid as c; fails the test when there is no
 * legal move or the move is refused. */
void t_play_first(tconn *c, long long gid);

/* How many of c's notifications (the latest 200, read or not) are of
 * kind. */
int t_count_kind(tconn *c, const char *kind);

/* Flood over mouth: up to rounds rounds of 40 challenges to wanda each
 * cancelled at once (every one an event to all of the user's connections),
 * ids from 1, every answer checked, until the server's log (s->log) says
 * a connection was cut for its pending output. Whether it said so. */
bool t_flood_until_cut(const tsrv *s, tconn *mouth, int rounds);

/* Every row of every table as text, for "nothing changed" checks;
 * caller frees. */
char *t_db_dump(const char *db);
long long t_db_count(const char *db, const char *table);
/* Assert that db's dump is still before (a t_db_dump(), freed here):
 * what (a test's words for the request) changed nothing. */
void t_db_unchanged(const char *db, char *before, const char *what);

/* The shared data directory (QK_SHARED, default ../shared). */
const char *t_shared(void);

#endif
