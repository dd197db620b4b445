/*
 * The store in-process on a temporary database file: the schema and its
 * migrations, users and password hashes, tokens, the transaction that
 * group commit relies on (durable after reopening, nothing after a
 * rollback or a failed commit), and writes refused without a trace.
 */
#include <criterion/criterion.h>
#include <uv.h>
#include <sodium.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/log.h"
#include "store/batch.h"
#include "store/sqlite.h"
#include "store/store.h"

static char dir[64], path[128];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/qk-store-test-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/t.db", dir);
    log_set_level(LOG_ERROR);
    cr_assert_geq(sodium_init(), 0);
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
}

TestSuite(store, .init = setup, .fini = teardown, .timeout = 30);

static store *open_db(void)
{
    store *s = NULL;
    cr_assert_eq(store_open(path, &s), STORE_OK);
    cr_assert_not_null(s);
    return s;
}

static long long count(const char *table)
{
    sqlite3 *h;
    cr_assert_eq(sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    char sql[96];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", table);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
    long long n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(h);
    return n;
}

static int64_t add_user(store *s, const char *name)
{
    int64_t id = 0;
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(store_user_insert(s, name, false, "$argon2id$fake", 1000, &id), STORE_OK);
    cr_assert_eq(store_commit(s), STORE_OK);
    return id;
}

static int64_t add_game(store *s, int64_t w, int64_t b)
{
    store_game g = {0};
    snprintf(g.variant, sizeof g.variant, "alquerque");
    g.white_id = w;
    g.black_id = b;
    snprintf(g.start, sizeof g.start, "bbbbb/bbbbb/ww.bb/wwwww/wwwww w 0 -");
    snprintf(g.position, sizeof g.position, "%s", g.start);
    snprintf(g.turn, sizeof g.turn, "white");
    snprintf(g.status, sizeof g.status, "active");
    snprintf(g.time_control, sizeof g.time_control, "{\"kind\":\"unlimited\"}");
    g.deadline = g.white_ms = g.black_ms = -1;
    g.created = g.updated = 2000;
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(store_game_insert(s, &g), STORE_OK);
    cr_assert_eq(store_commit(s), STORE_OK);
    return g.id;
}

/* schema.sql is the source of truth; server/store/schema.c must be its copy. */
Test(store, schema_matches_file)
{
    FILE *f = fopen("schema.sql", "rb");
    cr_assert_not_null(f, "tests run from the project root: schema.sql not found");
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    cr_assert(strcmp(buf, store_schema_sql) == 0,
              "server/store/schema.c differs from schema.sql: run sh server/store/schema-gen.sh");
}

Test(store, schema_applied_and_versioned)
{
    /* Migrations only get appended: 2 is issue 4's (correspondence). */
    int newest = store_schema_version();
    cr_assert_geq(newest, 2);
    store *s = open_db();
    int v = -1;
    cr_assert_eq(store_user_version(s, &v), STORE_OK);
    cr_assert_eq(v, newest);
    store_close(s);
    /* Reopening applies nothing twice (CREATE TABLE would fail). */
    s = open_db();
    cr_assert_eq(store_user_version(s, &v), STORE_OK);
    cr_assert_eq(v, newest);
    store_close(s);
    cr_assert_eq(count("users") + count("games") + count("moves") + count("tokens") +
                     count("challenges"),
                 0);
}

/* The schema text of sqlite_master, one "type name sql" line per object
 * in name order, into a malloc'd string. */
static char *schema_dump(sqlite3 *h)
{
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(h,
                                    "SELECT group_concat(type || ' ' || name || ' ' || "
                                    "coalesce(sql, ''), char(10)) FROM (SELECT * FROM "
                                    "sqlite_master ORDER BY name)",
                                    -1, &st, NULL),
                 SQLITE_OK);
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
    char *d = strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return d;
}

/* Running the migrations one by one gives exactly the schema of
 * schema.sql run whole: no migration is cut short by how the runner
 * finds where it ends (a comment line beginning "-- migration " once
 * ended one early, and its DROP INDEX statements never ran). Migration
 * 11 (issue 16) leaves no (player, status, turn, deadline) index. */
Test(store, migrations_one_by_one_equal_the_whole_file)
{
    store *s = open_db();
    store_close(s);
    sqlite3 *h, *m;
    cr_assert_eq(sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_open(":memory:", &m), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(m, store_schema_sql, NULL, NULL, NULL), SQLITE_OK);
    char *a = schema_dump(h), *b = schema_dump(m);
    cr_assert_str_eq(a, b);
    cr_assert_null(strstr(a, "games_white_turn"));
    cr_assert_null(strstr(a, "games_black_turn"));
    cr_assert_not_null(strstr(a, "index games_white CREATE INDEX games_white ON games (white_id, status)"));
    free(a);
    free(b);
    sqlite3_close(h);
    sqlite3_close(m);
}

Test(store, connection_settings)
{
    store *s = open_db();
    store_close(s);
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(path, &h), SQLITE_OK);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(h, "PRAGMA journal_mode", -1, &st, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
    cr_assert_str_eq((const char *)sqlite3_column_text(st, 0), "wal");
    sqlite3_finalize(st);
    sqlite3_close(h);
}

Test(store, newer_schema_is_refused)
{
    store *s = open_db();
    store_close(s);
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(path, &h), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(h, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
    s = (store *)1;
    cr_assert_eq(store_open(path, &s), STORE_EIO);
    cr_assert_null(s);
}

Test(store, users_are_unique_without_regard_to_case)
{
    store *s = open_db();
    int64_t id = add_user(s, "Alice");
    store_user u;
    cr_assert_eq(store_user_by_name(s, "aLICE", &u), STORE_OK);
    cr_assert_eq(u.id, id);
    cr_assert_str_eq(u.username, "Alice", "the registered spelling is kept");
    cr_assert_eq(store_user_by_id(s, id, &u), STORE_OK);
    cr_assert_eq(store_user_by_name(s, "bob", &u), STORE_NOTFOUND);
    cr_assert_eq(store_begin(s), STORE_OK);
    int64_t id2;
    cr_assert_eq(store_user_insert(s, "ALICE", false, "h", 1, &id2), STORE_CONFLICT);
    cr_assert_eq(store_commit(s), STORE_OK);
    store_close(s);
    cr_assert_eq(count("users"), 1);
}

Test(store, password_hash_round_trip)
{
    char hash[crypto_pwhash_STRBYTES];
    const char *pw = "correct horse";
    cr_assert_eq(crypto_pwhash_str(hash, pw, strlen(pw), crypto_pwhash_OPSLIMIT_MIN,
                                   crypto_pwhash_MEMLIMIT_MIN),
                 0);
    cr_assert_lt(strlen(hash), STORE_PWHASH_MAX);
    store *s = open_db();
    int64_t id;
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(store_user_insert(s, "hasher", true, hash, 5, &id), STORE_OK);
    cr_assert_eq(store_commit(s), STORE_OK);
    store_close(s);
    s = open_db();
    store_user u;
    cr_assert_eq(store_user_by_name(s, "hasher", &u), STORE_OK);
    cr_assert(u.bot);
    cr_assert_eq(u.created, 5);
    cr_assert_eq(crypto_pwhash_str_verify(u.pwhash, pw, strlen(pw)), 0);
    cr_assert_neq(crypto_pwhash_str_verify(u.pwhash, "wrong", 5), 0);
    store_close(s);
}

Test(store, tokens)
{
    store *s = open_db();
    int64_t id = add_user(s, "tok");
    uint8_t h1[32], h2[32];
    memset(h1, 1, sizeof h1);
    memset(h2, 2, sizeof h2);
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(store_token_insert(s, h1, id, 10), STORE_OK);
    cr_assert_eq(store_token_insert(s, h1, id, 11), STORE_CONFLICT);
    int64_t who = 0;
    cr_assert_eq(store_token_user(s, h1, 20, &who), STORE_OK);
    cr_assert_eq(who, id);
    cr_assert_eq(store_token_user(s, h2, 20, &who), STORE_NOTFOUND);
    cr_assert_eq(store_token_delete(s, h1), STORE_OK);
    cr_assert_eq(store_token_user(s, h1, 20, &who), STORE_NOTFOUND);
    cr_assert_eq(store_commit(s), STORE_OK);
    store_close(s);
    cr_assert_eq(count("tokens"), 0);
}

Test(store, committed_move_is_readable_after_reopening)
{
    store *s = open_db();
    int64_t w = add_user(s, "w"), b = add_user(s, "b");
    int64_t gid = add_game(s, w, b);
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(store_move_insert(s, gid, 0, "b2-c3", w, 3000), STORE_OK);
    store_game g;
    cr_assert_eq(store_game_get(s, gid, &g), STORE_OK);
    g.ply = 1;
    snprintf(g.position, sizeof g.position, "bbbbb/bbbbb/wwwbb/w.www/wwwww b 1 -");
    snprintf(g.turn, sizeof g.turn, "black");
    g.updated = 3000;
    cr_assert_eq(store_game_update(s, &g), STORE_OK);
    cr_assert_eq(store_commit(s), STORE_OK);
    store_close(s);

    s = open_db();
    cr_assert_eq(store_game_get(s, gid, &g), STORE_OK);
    cr_assert_eq(g.ply, 1);
    cr_assert_str_eq(g.turn, "black");
    cr_assert_str_eq(g.white, "w");
    cr_assert_str_eq(g.black, "b");
    cr_assert_eq(g.deadline, -1);
    store_close(s);
    cr_assert_eq(count("moves"), 1);
}

Test(store, rollback_and_failed_commit_leave_nothing)
{
    store *s = open_db();
    int64_t w = add_user(s, "w"), b = add_user(s, "b");
    int64_t gid = add_game(s, w, b);
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert(store_in_txn(s));
    cr_assert_eq(store_move_insert(s, gid, 0, "b2-c3", w, 1), STORE_OK);
    store_rollback(s);
    cr_assert(!store_in_txn(s));
    /* An injected commit failure: the batch is rolled back. */
    store_fail_commit_at(s, 1);
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(store_move_insert(s, gid, 0, "b2-c3", w, 1), STORE_OK);
    int64_t id;
    cr_assert_eq(store_user_insert(s, "x", false, "h", 1, &id), STORE_OK);
    cr_assert_eq(store_commit(s), STORE_EIO);
    cr_assert(!store_in_txn(s));
    /* And the next batch works. */
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(store_move_insert(s, gid, 0, "b3-c3", w, 1), STORE_OK);
    cr_assert_eq(store_commit(s), STORE_OK);
    store_close(s);
    cr_assert_eq(count("moves"), 1);
    cr_assert_eq(count("users"), 2);
}

/* store_commit_async(): done runs exactly once with the commit's result;
 * the SQLite backend runs it before returning (callers must not count on
 * that, this test may). */
typedef struct done_rec {
    int calls, rc;
} done_rec;

static void record_done(void *arg, int rc)
{
    done_rec *d = arg;
    d->calls++;
    d->rc = rc;
}

Test(store, commit_async_calls_done_once)
{
    store *s = open_db();
    int64_t w = add_user(s, "w"), b = add_user(s, "b");
    int64_t gid = add_game(s, w, b);
    done_rec d = {0, 1};
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(store_move_insert(s, gid, 0, "b2-c3", w, 1), STORE_OK);
    cr_assert_eq(store_commit_async(s, record_done, &d), STORE_OK);
    cr_assert_eq(d.calls, 1);
    cr_assert_eq(d.rc, STORE_OK);
    cr_assert(!store_in_txn(s));
    /* No transaction: still one call, STORE_OK. */
    d = (done_rec){0, 1};
    cr_assert_eq(store_commit_async(s, record_done, &d), STORE_OK);
    cr_assert_eq(d.calls, 1);
    cr_assert_eq(d.rc, STORE_OK);
    /* A failed commit is STORE_EIO at once, rolled back; done never runs. */
    store_fail_commit_at(s, 1);
    d = (done_rec){0, 1};
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(store_move_insert(s, gid, 1, "d4-c3", b, 2), STORE_OK);
    cr_assert_eq(store_commit_async(s, record_done, &d), STORE_EIO);
    cr_assert_eq(d.calls, 0);
    cr_assert(!store_in_txn(s));
    store_close(s);
    cr_assert_eq(count("moves"), 1);
}

/* The asynchronous mode (store.h store_async_start): the commit returns
 * at once, the next transaction may begin before the first is durable,
 * and the dones come later, on the loop, once each, in commit order. */
typedef struct done_log {
    int order[8];
    int n;
} done_log;

static done_log DL;

static void log_done_0(void *arg, int rc)
{
    (void)arg;
    cr_assert_eq(rc, STORE_OK);
    DL.order[DL.n++] = 0;
}

static void log_done_1(void *arg, int rc)
{
    (void)arg;
    cr_assert_eq(rc, STORE_OK);
    DL.order[DL.n++] = 1;
}

/* A store with users w and b and a game between them, its durability
 * completed off the loop (store_async_start; each fsync stalled
 * fsync_ms). */
static store *open_async(uv_loop_t *loop, int fsync_ms, int64_t *w, int64_t *b, int64_t *gid)
{
    store *s = open_db();
    *w = add_user(s, "w");
    *b = add_user(s, "b");
    *gid = add_game(s, *w, *b);
    cr_assert_eq(uv_loop_init(loop), 0);
    cr_assert_eq(store_async_start(s, loop, fsync_ms), STORE_OK);
    return s;
}

/* After store_async_stop(s): the writer's handle closes, then the loop
 * and s. */
static void close_async(store *s, uv_loop_t *loop)
{
    uv_run(loop, UV_RUN_DEFAULT);
    cr_assert_eq(uv_loop_close(loop), 0);
    store_close(s);
}

Test(store, async_commits_complete_later_in_order)
{
    int64_t w, b, gid;
    uv_loop_t loop;
    /* A 50 ms stall per fsync: neither done can run before the loop does. */
    store *s = open_async(&loop, 50, &w, &b, &gid);
    DL.n = 0;
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(store_move_insert(s, gid, 0, "b2-c3", w, 1), STORE_OK);
    cr_assert_eq(store_commit_async(s, log_done_0, NULL), STORE_OK);
    cr_assert_eq(DL.n, 0, "durability is completed later, off the loop");
    cr_assert_eq(store_begin(s), STORE_OK, "the next batch begins before the first is durable");
    cr_assert_eq(store_move_insert(s, gid, 1, "d4-c3", b, 2), STORE_OK);
    cr_assert_eq(store_commit_async(s, log_done_1, NULL), STORE_OK);
    while (DL.n < 2)
        uv_run(&loop, UV_RUN_ONCE);
    cr_assert_eq(DL.order[0], 0);
    cr_assert_eq(DL.order[1], 1);
    store_async_stop(s);
    close_async(s, &loop);
    cr_assert_eq(count("moves"), 2);
}

/* Group fsync (sqlite/sqlite_core.c): commits made while an fsync is with the writer
 * share the next one. The four commits below are made without running the
 * loop, so the first fsync's done cannot have run in between, whatever the
 * writer's speed: the first commit gets an fsync of its own, the other
 * three share one. Dones stay in commit order, once each. */
static void log_done_n(void *arg, int rc)
{
    cr_assert_eq(rc, STORE_OK);
    DL.order[DL.n++] = (int)(intptr_t)arg;
}

Test(store, commits_during_an_fsync_share_the_next_one)
{
    int64_t w, b, gid;
    uv_loop_t loop;
    store *s = open_async(&loop, 0, &w, &b, &gid);
    uint64_t before = store_fsyncs(s);
    DL.n = 0;
    static const char *mv[4] = {"b2-c3", "d4-c3", "b1-b2", "d3-d2"};
    for (int i = 0; i < 4; i++) {
        cr_assert_eq(store_begin(s), STORE_OK);
        cr_assert_eq(store_move_insert(s, gid, i, mv[i], i % 2 ? b : w, i + 1), STORE_OK);
        cr_assert_eq(store_commit_async(s, log_done_n, (void *)(intptr_t)i), STORE_OK);
    }
    while (DL.n < 4)
        uv_run(&loop, UV_RUN_ONCE);
    for (int i = 0; i < 4; i++)
        cr_assert_eq(DL.order[i], i, "dones in commit order");
    cr_assert_eq(store_fsyncs(s) - before, 2, "one fsync for the first commit, one for the other three");
    /* Stopping with commits gathered behind an fsync still makes them
     * durable before their dones run. */
    DL.n = 0;
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(store_begin(s), STORE_OK);
        cr_assert_eq(store_move_insert(s, gid, 4 + i, i ? "c3-c2" : "a1-b1", i ? b : w, 9), STORE_OK);
        cr_assert_eq(store_commit_async(s, log_done_n, (void *)(intptr_t)(4 + i)), STORE_OK);
    }
    store_async_stop(s);
    cr_assert_eq(DL.n, 2, "every done ran by the end of store_async_stop");
    cr_assert_eq(DL.order[0], 4);
    cr_assert_eq(DL.order[1], 5);
    cr_assert_eq(store_fsyncs(s) - before, 4);
    close_async(s, &loop);
    cr_assert_eq(count("moves"), 6);
}

/* store_move_played (the per-move path): the game row takes the move's
 * changes and the move its row with the clock; a move at a ply the stored
 * game is not at, or in a game that does not exist, writes nothing. */
static int clock_cb(void *arg, int64_t ply, int64_t clock_ms)
{
    int64_t *c = arg;
    c[ply] = clock_ms;
    return 0;
}

Test(store, a_played_move_updates_the_game_row_and_keeps_its_clock)
{
    store *s = open_db();
    int64_t w = add_user(s, "w"), b = add_user(s, "b");
    int64_t gid = add_game(s, w, b);
    store_played p = {.game_id = gid, .ply = 0, .move = "b2-c3", .user_id = w, .created = 5000,
                      .clock_ms = 61000, .position = "bbbbb/bbbbb/ww.bb/w.www/wwwww b 0 -",
                      .turn = "black", .deadline = 9000, .white_ms = 61000, .black_ms = 60000,
                      .wake_at = 9000, .times_changed = true};
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(store_move_played(s, &p), STORE_OK);
    cr_assert_eq(store_commit(s), STORE_OK);
    store_game g;
    cr_assert_eq(store_game_get(s, gid, &g), STORE_OK);
    cr_assert_eq(g.ply, 1);
    cr_assert_str_eq(g.position, p.position);
    cr_assert_str_eq(g.turn, "black");
    cr_assert_str_eq(g.status, "active");
    cr_assert_eq(g.deadline, 9000);
    cr_assert_eq(g.white_ms, 61000);
    cr_assert_eq(g.black_ms, 60000);
    cr_assert_eq(g.updated, 5000);
    int64_t clocks[2] = {-2, -2};
    cr_assert_eq(store_move_clocks_each(s, gid, clock_cb, clocks), STORE_OK);
    cr_assert_eq(clocks[0], 61000);
    /* times_changed false: deadline, clocks and wake-up are left as stored
     * (whatever the struct says). */
    store_played q = {.game_id = gid, .ply = 1, .move = "b4xb2", .user_id = b, .created = 6000,
                      .clock_ms = -1, .position = "bbbbb/b.bbb/wwwbb/wbwww/wwwww w 0 -",
                      .turn = "white", .deadline = -1, .white_ms = -1, .black_ms = -1,
                      .wake_at = -1};
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(store_move_played(s, &q), STORE_OK);
    cr_assert_eq(store_commit(s), STORE_OK);
    cr_assert_eq(store_game_get(s, gid, &g), STORE_OK);
    cr_assert_eq(g.ply, 2);
    cr_assert_str_eq(g.turn, "white");
    cr_assert_eq(g.updated, 6000);
    cr_assert_eq(g.deadline, 9000, "an untimed move leaves the deadline");
    cr_assert_eq(g.white_ms, 61000);
    p.ply = 1;
    /* Ply 1 again: the game is at ply 2 now. */
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(store_move_played(s, &p), STORE_CONFLICT);
    p.game_id = gid + 100;
    p.ply = 2;
    cr_assert_eq(store_move_played(s, &p), STORE_NOTFOUND);
    cr_assert_eq(store_commit(s), STORE_OK);
    cr_assert_eq(count("moves"), 2, "the refused moves wrote nothing");
    cr_assert_eq(store_game_get(s, gid, &g), STORE_OK);
    cr_assert_eq(g.ply, 2);
    store_close(s);
}

/* A done that commits again (sqlite/sqlite_core.c sync_done): its commits go to the
 * next fsync, after every done of the current one, and none is lost. */
static store *RS;
static int64_t RG, RW;
static bool made;

static void committing_done(void *arg, int rc)
{
    cr_assert_eq(rc, STORE_OK);
    DL.order[DL.n++] = (int)(intptr_t)arg;
    if (made)
        return;
    made = true;
    for (int k = 0; k < 2; k++) {
        cr_assert_eq(store_begin(RS), STORE_OK);
        cr_assert_eq(store_move_insert(RS, RG, 3 + k, k ? "d3-d2" : "b1-b2", RW, 9), STORE_OK);
        cr_assert_eq(store_commit_async(RS, log_done_n, (void *)(intptr_t)(10 + k)), STORE_OK);
    }
}

Test(store, a_done_that_commits_loses_nothing)
{
    int64_t b;
    uv_loop_t loop;
    RS = open_async(&loop, 0, &RW, &b, &RG);
    DL.n = 0;
    made = false;
    static const char *mv[3] = {"b2-c3", "d4-c3", "a1-b1"};
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(store_begin(RS), STORE_OK);
        cr_assert_eq(store_move_insert(RS, RG, i, mv[i], i % 2 ? b : RW, i + 1), STORE_OK);
        cr_assert_eq(store_commit_async(RS, i ? committing_done : log_done_n, (void *)(intptr_t)(i ? 1 : 0)),
                     STORE_OK);
    }
    while (DL.n < 5)
        uv_run(&loop, UV_RUN_ONCE);
    int want[5] = {0, 1, 1, 10, 11};
    for (int i = 0; i < 5; i++)
        cr_assert_eq(DL.order[i], want[i], "done %d", i);
    store_async_stop(RS);
    close_async(RS, &loop);
    cr_assert_eq(count("moves"), 5);
}

/* batch_end_or_keep (batch.h): while the last commit's fsync runs, the
 * loop turn's batch stays open into the next turns and commits with them
 * once that fsync is done; its epoch does not move meanwhile. A kept batch
 * that is poisoned loses every kept turn, and each turn's undo runs. The
 * writer cannot report an fsync done before the loop runs, so "in flight"
 * is certain between the uv_run calls below. */
static int undos;
static uint64_t durable_epochs;

static void count_undo(void *arg, int64_t key, void *ptr)
{
    (void)arg;
    (void)key;
    (void)ptr;
    undos++;
}

static void note_durable(void *arg, uint64_t epoch, int rc)
{
    (void)arg;
    cr_assert_eq(rc, STORE_OK);
    durable_epochs = epoch;
}

static void turn(batch *b, store *s, int64_t gid, int ply, int64_t user)
{
    static const char *mv[6] = {"b2-c3", "d4-c3", "b1-b2", "d3-d2", "a1-b1", "c3-c2"};
    cr_assert_eq(batch_begin(b), 0);
    cr_assert_eq(store_move_insert(s, gid, ply, mv[ply], user, ply + 1), STORE_OK);
    batch_on_undo(b, count_undo, NULL, NULL, ply, NULL);
}

Test(store, a_batch_is_kept_open_while_an_fsync_runs)
{
    int64_t w, bl, gid;
    uv_loop_t loop;
    store *s = open_async(&loop, 0, &w, &bl, &gid);
    batch b;
    batch_init(&b, s, NULL, NULL, note_durable, NULL);
    undos = 0;
    durable_epochs = 0;
    uint64_t f0 = store_fsyncs(s);
    turn(&b, s, gid, 0, w);
    cr_assert_eq(batch_end_or_keep(&b), STORE_OK);
    cr_assert_eq(b.committed, 1, "nothing in flight: the first turn commits");
    cr_assert(store_durability_busy(s));
    turn(&b, s, gid, 1, bl);
    cr_assert_eq(batch_end_or_keep(&b), STORE_OK);
    turn(&b, s, gid, 2, w);
    cr_assert_eq(batch_end_or_keep(&b), STORE_OK);
    cr_assert_eq(b.kept, 2, "two turns kept open behind the fsync");
    cr_assert(store_in_txn(s));
    cr_assert_eq(batch_epoch(&b), 2, "the kept turns' output waits for epoch 2");
    while (durable_epochs < 1)
        uv_run(&loop, UV_RUN_ONCE);
    cr_assert_not(store_durability_busy(s));
    cr_assert_eq(batch_end_or_keep(&b), STORE_OK);
    cr_assert_eq(b.committed, 2, "the two kept turns commit as one batch");
    while (durable_epochs < 2)
        uv_run(&loop, UV_RUN_ONCE);
    cr_assert_eq(store_fsyncs(s) - f0, 2);
    cr_assert_eq(undos, 0);
    /* A kept batch, then poisoned: both of its turns are lost. */
    turn(&b, s, gid, 3, bl);
    cr_assert_eq(batch_end_or_keep(&b), STORE_OK); /* epoch 3, its fsync in flight */
    turn(&b, s, gid, 4, w);
    cr_assert_eq(batch_end_or_keep(&b), STORE_OK); /* kept */
    turn(&b, s, gid, 5, bl);
    batch_poison(&b);
    cr_assert_eq(batch_end_or_keep(&b), STORE_EIO);
    cr_assert_eq(undos, 2, "the undo of each lost turn ran");
    cr_assert_not(store_in_txn(s));
    while (durable_epochs < 3)
        uv_run(&loop, UV_RUN_ONCE);
    batch_free(&b);
    store_async_stop(s);
    close_async(s, &loop);
    cr_assert_eq(count("moves"), 4, "plies 0 to 3; 4 and 5 were lost");
}

/* The -wal file's size in bytes (-1 when there is none). */
static long long wal_bytes(void)
{
    char w[4200];
    snprintf(w, sizeof w, "%s-wal", path);
    struct stat st;
    return stat(w, &st) == 0 ? (long long)st.st_size : -1;
}

/* One loop turn's writes: four moves of game gid from *ply on. A begin
 * refused busy (the writer thread's checkpoint holds the write lock for a
 * moment: batch.h, the server answers server_busy and the client tries
 * again) is tried again after 1 ms, as a client would; any other failure
 * fails the test. */
static void write_turn(batch *b, store *s, int64_t gid, int *ply, int64_t user)
{
    for (int tries = 0; batch_begin(b) != 0; tries++) {
        cr_assert(!b->poisoned, "batch_begin failed, not busy");
        cr_assert_lt(tries, 5000, "the store stayed busy for 5 s");
        usleep(1000);
    }
    for (int k = 0; k < 4; k++, (*ply)++)
        cr_assert_eq(store_move_insert(s, gid, *ply, "b2-c3", user, *ply + 1), STORE_OK);
}

/* store.h store_wal_restart (issue 16): SQLite starts its write-ahead log
 * over only when a write transaction begins with every committed frame
 * checkpointed. Phase 1 is a server under sustained load without the
 * hold: the next turn's writes have begun whenever an fsync (and the
 * checkpoint after it) completes, so the log never starts over and the
 * file only grows (measured before the fix: 240 MB after 6 s of the
 * bench). Phase 2 writes only when the store does not hold writes, as the
 * dispatcher does (api/dispatch.h): the log starts over again and again,
 * and the journal limit cuts the file back. */
Test(store, the_write_ahead_log_starts_over_under_sustained_load, .timeout = 60)
{
    int64_t w, bl, gid;
    uv_loop_t loop;
    store *s = open_async(&loop, 2, &w, &bl, &gid); /* fsyncs overlap turns */
    cr_assert_eq(store_journal_limit(s, 256 * 1024), STORE_OK);
    store_wal_restart_at(s, 32);
    batch b;
    batch_init(&b, s, NULL, NULL, note_durable, NULL);
    durable_epochs = 0;
    int ply = 0;
    write_turn(&b, s, gid, &ply, w);
    for (int i = 0; i < 6000; i++) {
        cr_assert_eq(batch_end_or_keep(&b), STORE_OK);
        write_turn(&b, s, gid, &ply, w); /* begun before the loop reports the fsync */
        uv_run(&loop, UV_RUN_NOWAIT);
    }
    cr_assert_eq(batch_end(&b), STORE_OK);
    long long grown = wal_bytes();
    uint64_t r1 = store_wal_restarts(s);
    cr_assert_gt(grown, 2 * 1024 * 1024, "the log grew to %lld bytes only", grown);
    cr_assert_leq(r1, 2, "with a transaction always open the log (nearly) never starts over");

    /* 100 fsyncs of 2 ms: a restart takes a few (the log refills its 32
     * frames, then the hold's fsync). */
    uint64_t f1 = store_fsyncs(s);
    while (store_fsyncs(s) - f1 < 100) {
        while (store_wal_restart(s) == STORE_WAL_HOLD)
            uv_run(&loop, UV_RUN_ONCE);
        write_turn(&b, s, gid, &ply, w);
        cr_assert_eq(batch_end_or_keep(&b), STORE_OK);
        uv_run(&loop, UV_RUN_NOWAIT);
    }
    cr_assert_eq(batch_end(&b), STORE_OK);
    uint64_t r2 = store_wal_restarts(s) - r1;
    long long after = wal_bytes();
    cr_assert_geq(r2, 5, "the log started over %llu times", (unsigned long long)r2);
    cr_assert_lt(after, 1024 * 1024, "the -wal file is %lld bytes after the restarts", after);
    store_async_stop(s);
    batch_free(&b);
    close_async(s, &loop);
    cr_assert_eq(count("moves"), ply, "every write committed");
}

Test(store, refused_writes_change_nothing)
{
    store *s = open_db();
    int64_t w = add_user(s, "w"), b = add_user(s, "b");
    int64_t gid = add_game(s, w, b);
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(store_move_insert(s, gid, 0, "b2-c3", w, 1), STORE_OK);
    /* Same ply twice: a conflict, the first row stays. */
    cr_assert_eq(store_move_insert(s, gid, 0, "d2-c3", w, 1), STORE_CONFLICT);
    /* A move of a missing game breaks the foreign key. */
    cr_assert_eq(store_move_insert(s, gid + 7, 0, "d2-c3", w, 1), STORE_EIO);
    /* A bad status breaks a CHECK. */
    store_game g;
    cr_assert_eq(store_game_get(s, gid, &g), STORE_OK);
    snprintf(g.status, sizeof g.status, "paused");
    cr_assert_eq(store_game_update(s, &g), STORE_EIO);
    cr_assert_eq(store_commit(s), STORE_OK);
    cr_assert_eq(store_game_get(s, gid, &g), STORE_OK);
    cr_assert_str_eq(g.status, "active");
    store_close(s);
    cr_assert_eq(count("moves"), 1);
}

static int count_cb(void *arg, const store_challenge *c)
{
    (void)c;
    (*(int *)arg)++;
    return 0;
}

Test(store, challenges_close_once)
{
    store *s = open_db();
    int64_t a = add_user(s, "a"), b = add_user(s, "b"), c = add_user(s, "c");
    store_challenge ch = {.from_id = a, .to_id = b};
    snprintf(ch.variant, sizeof ch.variant, "alquerque");
    snprintf(ch.color, sizeof ch.color, "random");
    snprintf(ch.time_control, sizeof ch.time_control, "{\"kind\":\"unlimited\"}");
    store_challenge seek = ch;
    seek.to_id = 0;
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(store_challenge_insert(s, &ch, 7), STORE_OK);
    cr_assert_eq(store_challenge_insert(s, &seek, 8), STORE_OK);
    int n = 0;
    cr_assert_eq(store_challenges_for(s, c, count_cb, &n), STORE_OK);
    cr_assert_eq(n, 1, "c sees only the open seek");
    n = 0;
    cr_assert_eq(store_challenges_for(s, b, count_cb, &n), STORE_OK);
    cr_assert_eq(n, 2);
    cr_assert_eq(store_challenge_close(s, ch.id, "declined", "busy", 0, 9), STORE_OK);
    cr_assert_eq(store_challenge_close(s, ch.id, "accepted", NULL, 0, 9), STORE_CONFLICT);
    cr_assert_eq(store_commit(s), STORE_OK);
    store_challenge got;
    cr_assert_eq(store_challenge_get(s, ch.id, &got), STORE_OK);
    cr_assert_str_eq(got.status, "declined");
    cr_assert_str_eq(got.decline_reason, "busy");
    cr_assert_str_eq(got.from, "a");
    cr_assert_str_eq(got.to, "b");
    cr_assert_eq(store_challenge_get(s, seek.id, &got), STORE_OK);
    cr_assert_eq(got.to_id, 0);
    cr_assert_str_eq(got.to, "");
    cr_assert_eq(store_challenge_get(s, 999, &got), STORE_NOTFOUND);
    store_close(s);
}

static int ids_cb(void *arg, const store_game *g)
{
    int64_t *ids = arg;
    ids[++ids[0]] = g->id;
    return 0;
}

Test(store, games_query_filters_and_pages)
{
    store *s = open_db();
    int64_t a = add_user(s, "a"), b = add_user(s, "b"), c = add_user(s, "c");
    int64_t g1 = add_game(s, a, b), g2 = add_game(s, b, c), g3 = add_game(s, c, a);
    int64_t ids[8] = {0};
    store_game_filter f = {.user_id = a, .limit = 10};
    cr_assert_eq(store_games_query(s, &f, ids_cb, ids), STORE_OK);
    cr_assert_eq(ids[0], 2);
    cr_assert_eq(ids[1], g3, "newest first");
    cr_assert_eq(ids[2], g1);
    memset(ids, 0, sizeof ids);
    f.before = g3;
    cr_assert_eq(store_games_query(s, &f, ids_cb, ids), STORE_OK);
    cr_assert_eq(ids[0], 1);
    cr_assert_eq(ids[1], g1);
    /* White (a in g1, c in g3) is to move in every new game. */
    memset(ids, 0, sizeof ids);
    store_game_filter t = {.turn_user_id = b, .limit = 10};
    cr_assert_eq(store_games_query(s, &t, ids_cb, ids), STORE_OK);
    cr_assert_eq(ids[0], 1);
    cr_assert_eq(ids[1], g2);
    memset(ids, 0, sizeof ids);
    store_game_filter st = {.status = "finished", .limit = 10};
    cr_assert_eq(store_games_query(s, &st, ids_cb, ids), STORE_OK);
    cr_assert_eq(ids[0], 0);
    memset(ids, 0, sizeof ids);
    store_game_filter lim = {.limit = 2};
    cr_assert_eq(store_games_query(s, &lim, ids_cb, ids), STORE_OK);
    cr_assert_eq(ids[0], 2);
    store_close(s);
}
