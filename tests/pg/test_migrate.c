/*
 * The PostgreSQL schema (schema-pg.sql) and its runner (pg_migrate.h) on
 * the throwaway cluster of `make test-pg` ($QK_PG_URL, tests/pg/cluster.sh):
 * the migrations applied one by one give the catalogue of the whole file
 * run at once, from an empty database and from every older version; the
 * backfills do on rows what SQLite's do; a newer database is refused; nodes
 * starting together apply each migration once; and the schema has the
 * tables, columns, keys and indexes of schema.sql after all migrations
 * (the cross-backend check). Each test makes its own databases on the
 * cluster (CREATE DATABASE, dropped after). Without QK_PG_URL every test
 * that needs a server skips; the file checks run anyway.
 */
#include <criterion/criterion.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/pg/pg_migrate.h"
#include "store/sqlite.h"
#include "util/log.h"

/* ---- databases on the cluster ------------------------------------------ */

#define MAX_DBS 8
#define RACERS 4

static char dbs[MAX_DBS][64]; /* made by this test process, dropped by fini */
static int ndbs;

static const char *cluster_url(void)
{
    const char *u = getenv("QK_PG_URL");
    if (!u || !*u)
        cr_skip_test("QK_PG_URL is not set: `make test-pg` starts a cluster and sets it");
    return u;
}

/* A connection to database db of the cluster (NULL: the URL's own), or
 * NULL on failure with the reason on stderr; for threads, which must not
 * assert. The URL's other parts stay (a later "dbname" overrides the one
 * an expanded URL gives). */
static PGconn *try_connect(const char *url, const char *db)
{
    const char *kw[] = {"dbname", db ? "dbname" : NULL, NULL};
    const char *val[] = {url, db, NULL};
    PGconn *c = PQconnectdbParams(kw, val, 1);
    if (PQstatus(c) != CONNECTION_OK) {
        fprintf(stderr, "connect %s: %s", db ? db : url, PQerrorMessage(c));
        PQfinish(c);
        return NULL;
    }
    return c;
}

static PGconn *db_connect(const char *db)
{
    PGconn *c = try_connect(cluster_url(), db);
    cr_assert_not_null(c, "cannot connect to the cluster's database %s", db ? db : "(URL's)");
    return c;
}

static void exec_ok(PGconn *c, const char *sql)
{
    PGresult *r = PQexec(c, sql);
    ExecStatusType st = PQresultStatus(r);
    cr_assert(st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK, "%.100s: %s", sql,
              PQresultErrorMessage(r));
    PQclear(r);
}

/* A new empty database; returns its name (for more connections) and a
 * connection to it in *c. */
static const char *fresh_db(PGconn **c)
{
    cr_assert_lt(ndbs, MAX_DBS);
    char *name = dbs[ndbs];
    snprintf(name, sizeof dbs[0], "qk_migrate_%ld_%d", (long)getpid(), ndbs);
    PGconn *admin = db_connect(NULL);
    char sql[128];
    snprintf(sql, sizeof sql, "CREATE DATABASE %s", name);
    exec_ok(admin, sql);
    PQfinish(admin);
    ndbs++;
    *c = db_connect(name);
    return name;
}

/* Drop database name (made by fresh_db()). */
static void drop_db(const char *name)
{
    PGconn *admin = try_connect(getenv("QK_PG_URL"), NULL);
    if (!admin)
        return;
    char sql[128];
    /* FORCE: a test that failed half-way may have left a connection. */
    snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS %s WITH (FORCE)", name);
    PGresult *r = PQexec(admin, sql);
    if (PQresultStatus(r) != PGRES_COMMAND_OK)
        fprintf(stderr, "%s: %s", sql, PQresultErrorMessage(r));
    PQclear(r);
    PQfinish(admin);
}

/* Drop the database fresh_db() made last, freeing its slot. */
static void drop_last(void)
{
    cr_assert_gt(ndbs, 0);
    drop_db(dbs[--ndbs]);
}

static void setup(void)
{
    log_set_level(LOG_ERROR);
}

static void drop_all(void)
{
    if (!getenv("QK_PG_URL"))
        return;
    for (int i = 0; i < ndbs; i++)
        drop_db(dbs[i]);
    ndbs = 0;
}

TestSuite(pg_migrate, .init = setup, .fini = drop_all, .timeout = 120);
TestSuite(pg_schema, .init = setup);

/* ---- reading results ---------------------------------------------------- */

/* The one value of a one-row answer (param: $1, or none when NULL), as a
 * malloc'd string; "" for SQL NULL. */
static char *pg_value(PGconn *c, const char *sql, const char *param)
{
    const char *params[1] = {param};
    PGresult *r = PQexecParams(c, sql, param ? 1 : 0, NULL, params, NULL, NULL, 0);
    cr_assert_eq(PQresultStatus(r), PGRES_TUPLES_OK, "%s: %s", sql, PQresultErrorMessage(r));
    cr_assert_eq(PQntuples(r), 1, "%s: %d rows", sql, PQntuples(r));
    char *v = strdup(PQgetvalue(r, 0, 0));
    PQclear(r);
    return v;
}

static long long pg_int(PGconn *c, const char *sql)
{
    char *v = pg_value(c, sql, NULL);
    long long n = strtoll(v, NULL, 10);
    free(v);
    return n;
}

/* Everything the schema defines in the current schema (search_path's
 * first) as sorted lines: relations (tables, indexes, identity sequences),
 * columns with type, nullability, default and identity, index definitions,
 * constraints, functions. qirkat_schema is the runner's, not the file's. */
static char *catalogue(PGconn *c)
{
    return pg_value(
        c,
        "SELECT coalesce(string_agg(line, E'\\n' ORDER BY line COLLATE \"C\"), '') FROM ("
        " SELECT format('relation %s %s', relname, relkind) AS line FROM pg_class"
        "  WHERE relnamespace = current_schema()::regnamespace AND relname <> 'qirkat_schema'"
        " UNION ALL"
        " SELECT format('column %s %s %s %s nullable=%s default=%s identity=%s %s', table_name,"
        "   lpad(ordinal_position::text, 3, '0'), column_name, data_type, is_nullable,"
        "   coalesce(column_default, '-'), is_identity, coalesce(identity_generation, '-'))"
        "  FROM information_schema.columns"
        "  WHERE table_schema = current_schema() AND table_name <> 'qirkat_schema'"
        " UNION ALL"
        " SELECT format('index %s', indexdef) FROM pg_indexes"
        "  WHERE schemaname = current_schema() AND tablename <> 'qirkat_schema'"
        " UNION ALL"
        " SELECT format('constraint %s %s %s %s', cl.relname, co.conname, co.contype,"
        "   pg_get_constraintdef(co.oid))"
        "  FROM pg_constraint co JOIN pg_class cl ON cl.oid = co.conrelid"
        "  WHERE cl.relnamespace = current_schema()::regnamespace"
        "   AND cl.relname <> 'qirkat_schema'"
        " UNION ALL"
        " SELECT format('function %s', oid::regprocedure) FROM pg_proc"
        "  WHERE pronamespace = current_schema()::regnamespace) d",
        NULL);
}

/* The catalogue of schema-pg.sql run whole, in one PQexec, on a new
 * database (dropped again). */
static char *whole_file_catalogue(void)
{
    PGconn *c;
    fresh_db(&c);
    exec_ok(c, store_pg_schema_sql);
    char *cat = catalogue(c);
    PQfinish(c);
    drop_last();
    return cat;
}

static int stored_version(PGconn *c)
{
    cr_assert_eq(pg_int(c, "SELECT count(*) FROM qirkat_schema"), 1, "qirkat_schema: one row");
    return (int)pg_int(c, "SELECT version FROM qirkat_schema");
}

/* ---- the file ------------------------------------------------------------- */

/* schema-pg.sql is the source of truth; pg_schema.c must be its copy. */
Test(pg_schema, embedded_matches_file)
{
    FILE *f = fopen("schema-pg.sql", "rb");
    cr_assert_not_null(f, "tests run from the project root: schema-pg.sql not found");
    static char buf[1 << 17];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    cr_assert_lt(n, sizeof buf - 1, "schema-pg.sql outgrew the test's buffer");
    buf[n] = '\0';
    cr_assert(strcmp(buf, store_pg_schema_sql) == 0,
              "server/store/pg/pg_schema.c differs from schema-pg.sql: "
              "run sh server/store/schema-gen.sh");
}

/* "Each migration number in both files": the same numbers, 1..N, no gap. */
Test(pg_schema, same_migration_numbers_as_sqlite)
{
    int last = pg_schema_last();
    cr_assert_geq(last, 13);
    cr_assert_eq(last, store_schema_version(), "schema-pg.sql ends at %d, schema.sql at %d", last,
                 store_schema_version());
    for (int n = 1; n <= last + 1; n++) {
        char mark[32];
        snprintf(mark, sizeof mark, "\n-- migration %d\n", n);
        bool in_pg = strstr(store_pg_schema_sql, mark) != NULL;
        bool in_sq = strstr(store_schema_sql, mark) != NULL;
        cr_assert_eq(in_pg, n <= last, "migration %d in schema-pg.sql", n);
        cr_assert_eq(in_sq, n <= last, "migration %d in schema.sql", n);
    }
}

/* ---- the runner --------------------------------------------------------- */

/* From an empty database, migration by migration, each in its own
 * transaction: exactly what the file run whole makes, with the version
 * row at the last one, no helper function left behind, the connection
 * idle; a second run applies nothing. */
Test(pg_migrate, one_by_one_equals_the_whole_file)
{
    int last = pg_schema_last();
    char *whole = whole_file_catalogue();
    PGconn *c;
    fresh_db(&c);
    int v = -2;
    cr_assert_eq(pg_migrate(c, &v), 0);
    cr_assert_eq(v, last);
    cr_assert_eq(stored_version(c), last);
    cr_assert_eq(PQtransactionStatus(c), PQTRANS_IDLE);
    cr_assert_eq(pg_int(c, "SELECT count(*) FROM pg_proc WHERE pronamespace = pg_my_temp_schema()"),
                 0, "migration 12's pg_temp function is dropped");
    char *cat = catalogue(c);
    cr_assert_str_eq(cat, whole);
    /* Landmarks of the translation, so that both sides cannot be wrong
     * alike: NOCASE, the widened CHECKs, migration 11's drops. */
    cr_assert_not_null(strstr(cat, "CREATE UNIQUE INDEX users_username_lower ON public.users "
                                   "USING btree (lower(username))"));
    cr_assert_not_null(strstr(cat, "'tournament_end'"));
    cr_assert_not_null(strstr(cat, "'expired'"));
    cr_assert_null(strstr(cat, "games_white_turn"));
    cr_assert_null(strstr(cat, "games_black_turn"));
    cr_assert_null(strstr(cat, "function "), "no function stays in the schema");

    v = -2;
    cr_assert_eq(pg_migrate(c, &v), 0, "a second run");
    cr_assert_eq(v, last);
    char *again = catalogue(c);
    cr_assert_str_eq(again, whole);
    free(again);
    free(cat);
    free(whole);
    PQfinish(c);
}

/* A database left at any older version (a node of an earlier build)
 * reaches the same schema. */
Test(pg_migrate, from_every_older_version, .timeout = 240)
{
    int last = pg_schema_last();
    char *whole = whole_file_catalogue();
    for (int k = 0; k < last; k++) {
        PGconn *c;
        const char *name = fresh_db(&c);
        int v = -2;
        cr_assert_eq(pg_migrate_to(c, k, &v), 0, "to %d", k);
        cr_assert_eq(v, k);
        cr_assert_eq(stored_version(c), k);
        PQfinish(c);
        /* Another connection: nothing of the first session (pg_temp) may
         * be needed by the later migrations. */
        c = db_connect(name);
        cr_assert_eq(pg_migrate(c, &v), 0, "from %d", k);
        cr_assert_eq(v, last);
        char *cat = catalogue(c);
        cr_assert_str_eq(cat, whole, "from version %d", k);
        free(cat);
        PQfinish(c);
        drop_last();
    }
    free(whole);
}

/* The backfills of migrations 5 and 12 on rows stored before them give
 * what SQLite's give: the game's challenge (the smallest id when two name
 * it), a notice's challenge from its JSON data and the sender from the
 * challenge or the game; data that is not JSON is left alone. */
Test(pg_migrate, backfills_on_older_rows)
{
    PGconn *c;
    fresh_db(&c);
    int v;
    cr_assert_eq(pg_migrate_to(c, 4, &v), 0);
    exec_ok(c, "INSERT INTO users (id, username, pwhash, created) VALUES"
               " (1, 'Ann', 'h', 0), (2, 'Bob', 'h', 0);"
               "INSERT INTO games (id, variant, white_id, black_id, start, position, turn,"
               " time_control, created, updated) VALUES"
               " (1, 'alquerque', 1, 2, 's', 's', 'white', '{}', 0, 0),"
               " (2, 'alquerque', 2, 1, 's', 's', 'white', '{}', 0, 0);"
               "INSERT INTO challenges (id, from_user, to_user, variant, color, time_control,"
               " status, game_id, created, updated) VALUES"
               " (5, 1, 2, 'alquerque', 'white', '{}', 'accepted', 1, 0, 0),"
               " (3, 1, 2, 'alquerque', 'white', '{}', 'accepted', 1, 0, 0),"
               " (7, 2, 1, 'alquerque', 'white', '{}', 'declined', NULL, 0, 0)");
    cr_assert_eq(pg_migrate_to(c, 11, &v), 0);
    cr_assert_eq(pg_int(c, "SELECT challenge_id FROM games WHERE id = 1"), 3);
    cr_assert_eq(pg_int(c, "SELECT count(*) FROM games WHERE id = 2 AND challenge_id IS NULL"), 1);
    exec_ok(c, "INSERT INTO notifications (id, user_id, kind, game_id, data, created) VALUES"
               " (1, 1, 'challenge', NULL, '{\"challenge\": 7}', 0),"
               " (2, 2, 'challenge_declined', NULL, '{\"challenge\": \"7\"}', 0),"
               " (3, 1, 'challenge', NULL, 'not json', 0),"
               " (4, 1, 'challenge', NULL, '{\"challenge\": 1.5}', 0),"
               " (5, 1, 'draw_offer', 1, '{}', 0),"
               " (6, 2, 'draw_declined', 1, '{}', 0),"
               " (7, 1, 'your_turn', 1, '{\"challenge\": 7}', 0)");
    cr_assert_eq(pg_migrate(c, &v), 0);
    char *got = pg_value(c,
                         "SELECT string_agg(format('%s:%s:%s', id, coalesce(ref_id::text, '-'),"
                         " coalesce(sender_id::text, '-')), ' ' ORDER BY id) FROM notifications",
                         NULL);
    /* 1: challenge 7 from user 2; 2: its decline, sent by the challenged
     * user 1; 3, 4: no challenge read; 5, 6: the receiver's opponent in
     * game 1; 7: not a kind that names a challenge. */
    cr_assert_str_eq(got, "1:7:2 2:7:1 3:-:- 4:-:- 5:-:2 6:-:1 7:-:-");
    free(got);
    PQfinish(c);
}

/* A database migrated by a newer build is refused and left untouched;
 * a target outside the file is refused too. */
Test(pg_migrate, newer_version_is_refused)
{
    int last = pg_schema_last();
    PGconn *c;
    fresh_db(&c);
    int v;
    cr_assert_eq(pg_migrate(c, &v), 0);
    char sql[96];
    snprintf(sql, sizeof sql, "UPDATE qirkat_schema SET version = %d", last + 1);
    exec_ok(c, sql);
    char *before = catalogue(c);
    v = -2;
    cr_assert_eq(pg_migrate(c, &v), -1);
    cr_assert_eq(v, last + 1, "the newer version is reported");
    cr_assert_eq(PQtransactionStatus(c), PQTRANS_IDLE);
    cr_assert_eq(stored_version(c), last + 1);
    char *after = catalogue(c);
    cr_assert_str_eq(after, before);
    cr_assert_eq(pg_migrate_to(c, last + 1, &v), -1);
    cr_assert_eq(pg_migrate_to(c, -1, &v), -1);
    free(before);
    free(after);
    PQfinish(c);
}

/* pg_migrate(c, v) with what it logs (stderr, warnings up) caught: its
 * result in *rc, the log in a string the caller frees. */
static char *migrate_logged(PGconn *c, int *v, int *rc)
{
    fflush(stderr);
    FILE *f = tmpfile();
    cr_assert(f);
    int saved = dup(2);
    cr_assert(saved >= 0 && dup2(fileno(f), 2) == 2);
    log_set_level(LOG_WARN); /* setup() keeps the other tests' warnings out */
    *rc = pg_migrate(c, v);
    log_set_level(LOG_ERROR);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    long n = ftell(f) >= 0 ? (fseek(f, 0, SEEK_END), ftell(f)) : -1;
    cr_assert(n >= 0);
    rewind(f);
    char *log = calloc(1, (size_t)n + 1);
    cr_assert(log && fread(log, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    return log;
}

/* Whether log names the session of other by its pid ("pid N (" ). */
static bool names_pid(const char *log, PGconn *other)
{
    char pid[32];
    snprintf(pid, sizeof pid, "pid %d (", PQbackendPID(other));
    return strstr(log, pid) != NULL;
}

/* A fresh database at version 13, the last before the type change of
 * migration 14, in *c, and another (unnamed) session on it in *other. */
static void at_13_with_another_session(PGconn **c, PGconn **other)
{
    const char *name = fresh_db(c);
    int v = -2;
    cr_assert_eq(pg_migrate_to(*c, 13, &v), 0);
    cr_assert_eq(v, 13);
    *other = db_connect(name);
}

/* Migration 14 changes column types (STOPS_NODES_MARK): on a database in
 * use, a node applies it only while no older node is connected
 * (pg_migrate.h "Stopping nodes"), since the older nodes' prepared
 * statements would fail on the new result types. An older node here is a
 * session named as none of this release's, or as a node of schema 13. */
Test(pg_migrate, a_type_changing_migration_waits_for_the_older_nodes_to_stop)
{
    PGconn *c, *older;
    at_13_with_another_session(&c, &older);
    int v = -2, rc;
    char *log = migrate_logged(c, &v, &rc);
    cr_assert_eq(rc, -1, "applied with an unnamed session connected");
    cr_assert(strstr(log, "runs only once they are stopped") && names_pid(log, older), "%s", log);
    free(log);
    cr_assert_eq(v, 13);
    cr_assert_eq(stored_version(c), 13);
    cr_assert_eq(PQtransactionStatus(c), PQTRANS_IDLE);
    cr_assert_eq(pg_int(c, "SELECT count(*) FROM pg_type WHERE typname = 'qk_flag'"), 0,
                 "migration 14 half applied");
    exec_ok(older, "SET application_name = '" PG_NODE_APPNAME "13'");
    cr_assert_eq(pg_migrate(c, &v), -1, "applied with a node of schema 13 connected");
    cr_assert_eq(stored_version(c), 13);
    char set[80];
    snprintf(set, sizeof set, "SET application_name = '" PG_NODE_APPNAME "%d'", pg_schema_last());
    exec_ok(older, set);
    cr_assert_eq(pg_migrate(c, &v), 0, "a node of this release is not in the way");
    cr_assert_eq(v, pg_schema_last());
    cr_assert_eq(pg_int(c, "SELECT count(*) FROM pg_type WHERE typname = 'qk_flag'"), 1);
    PQfinish(older);
    PQfinish(c);
    drop_last();
}

/* The operator's override (QK_PG_MIGRATE_PAST_SESSIONS=1 in the server):
 * the migration is applied with the sessions connected, and logged. */
Test(pg_migrate, the_operators_override_applies_it_past_the_sessions)
{
    PGconn *c, *other;
    at_13_with_another_session(&c, &other);
    int v = -2;
    pg_migrate_past_sessions(true);
    int rc;
    char *log = migrate_logged(c, &v, &rc);
    pg_migrate_past_sessions(false);
    cr_assert_eq(rc, 0);
    cr_assert(strstr(log, "applied anyway (QK_PG_MIGRATE_PAST_SESSIONS)") && names_pid(log, other),
              "%s", log);
    free(log);
    cr_assert_eq(v, pg_schema_last());
    PQfinish(other);
    PQfinish(c);
    drop_last();
}

/* A connection to database db as role user (trust authentication). */
static PGconn *connect_as(const char *db, const char *user)
{
    const char *kw[] = {"dbname", "dbname", "user", NULL};
    const char *val[] = {cluster_url(), db, user, NULL};
    PGconn *c = PQconnectdbParams(kw, val, 1);
    cr_assert_eq(PQstatus(c), CONNECTION_OK, "connect as %s: %s", user, PQerrorMessage(c));
    return c;
}

/* Without pg_read_all_stats a node sees the sessions of another role with
 * their details hidden (backend_type NULL, application_name shown): they
 * are in the way too. Here the node is a role that owns the database and
 * the "older node" the cluster's superuser, whose session the node's
 * pg_stat_activity shows as hidden. */
Test(pg_migrate, a_session_of_another_role_is_in_the_way_too)
{
    PGconn *c;
    const char *name = fresh_db(&c);
    exec_ok(c, "DO $$BEGIN CREATE ROLE qk_migrate_node LOGIN; "
               "EXCEPTION WHEN duplicate_object THEN NULL; END$$");
    char sql[160];
    snprintf(sql, sizeof sql, "ALTER DATABASE %s OWNER TO qk_migrate_node", name);
    exec_ok(c, sql);
    PGconn *node = connect_as(name, "qk_migrate_node");
    int v = -2;
    cr_assert_eq(pg_migrate_to(node, 13, &v), 0);
    /* usesysid: another role's autovacuum worker may be there too (no
     * role, left out by the node). */
    cr_assert_eq(pg_int(node, "SELECT count(*) FROM pg_stat_activity WHERE backend_type IS NULL "
                              "AND usesysid IS NOT NULL AND datname = current_database()"),
                 1, "the superuser's session is hidden from the node");
    int rc;
    char *log = migrate_logged(node, &v, &rc);
    cr_assert_eq(rc, -1, "applied with another role's session connected");
    cr_assert(strstr(log, "another role: hidden") && strstr(log, "GRANT pg_read_all_stats") &&
                  names_pid(log, c),
              "%s", log);
    free(log);
    cr_assert_eq(stored_version(node), 13);
    PQfinish(c);
    /* The superuser's WAL sender (a logical replication connection, which
     * is attached to the database) is hidden from the node too, but is
     * no node: pg_stat_replication names it. */
    const char *kw[] = {"dbname", "dbname", "replication", NULL};
    const char *val[] = {cluster_url(), name, "database", NULL};
    PGconn *wal = PQconnectdbParams(kw, val, 1);
    cr_assert_eq(PQstatus(wal), CONNECTION_OK, "walsender: %s", PQerrorMessage(wal));
    cr_assert_eq(pg_int(node, "SELECT count(*) FROM pg_stat_activity WHERE backend_type IS NULL "
                              "AND usesysid IS NOT NULL AND datname = current_database() "
                              "AND pid IN (SELECT pid FROM pg_stat_replication)"),
                 1, "the WAL sender is hidden from the node and listed as one");
    cr_assert_eq(pg_migrate(node, &v), 0, "the node may migrate once no other client is there");
    PQfinish(wal);
    cr_assert_eq(v, pg_schema_last());
    PQfinish(node);
    drop_last();
}

/* Whether the type of table.col takes value (text), cast as a client's
 * text would be: a domain's CHECK runs, NOT NULL does not. */
static bool column_takes(PGconn *c, const char *table, const char *col, const char *value)
{
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
             "WHERE attrelid = '%s'::regclass AND attname = '%s'",
             table, col);
    char *type = pg_value(c, sql, NULL);
    snprintf(sql, sizeof sql, "SELECT CAST($1::text AS %s)", type);
    free(type);
    const char *params[1] = {value};
    PGresult *r = PQexecParams(c, sql, 1, NULL, params, NULL, NULL, 0);
    bool ok = PQresultStatus(r) == PGRES_TUPLES_OK;
    cr_assert(ok || strcmp(PQresultErrorField(r, PG_DIAG_SQLSTATE), "23514") == 0,
              "%s.%s = '%s': %s", table, col, value, PQresultErrorMessage(r));
    PQclear(r);
    return ok;
}

/* The columns migration 14 moved to domains take what schema.sql's
 * CHECKs take, and refuse what they refuse (a domain with a value
 * missing from its list, or one too many, fails here; counting CHECKs,
 * as same_tables() does, would not see it). */
Test(pg_migrate, the_domains_take_what_the_checks_of_schema_sql_take)
{
    static const struct {
        const char *table, *col, *takes, *refuses; /* ','-separated */
    } cases[] = {
        {"games", "turn", "white,black", "red,White,draw"},
        {"games", "draw_offer", "white,black", "draw,x"},
        {"games", "status", "active,finished,aborted", "open,x"},
        {"games", "result", "white,black,draw", "aborted,x"},
        {"games", "ply", "0,1,200", "-1"},
        {"games", "vacation", "0,1", "2,-1"},
        {"games", "private", "0,1", "2,-1"},
        {"games", "rated", "0,1", "2,-1"},
        {"games", "damaged", "0,1", "2,-1"},
        {"games", "imported", "0,1", "2,-1"},
        {"moves", "ply", "0,1,200", "-1"},
    };
    PGconn *c;
    fresh_db(&c);
    int v;
    cr_assert_eq(pg_migrate(c, &v), 0);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int refused = 0; refused < 2; refused++) {
            char list[64];
            snprintf(list, sizeof list, "%s", refused ? cases[i].refuses : cases[i].takes);
            char *save = NULL;
            for (char *val = strtok_r(list, ",", &save); val; val = strtok_r(NULL, ",", &save))
                cr_assert_eq(column_takes(c, cases[i].table, cases[i].col, val), !refused,
                             "%s.%s %s '%s'", cases[i].table, cases[i].col,
                             refused ? "takes" : "refuses", val);
        }
    /* "" (turn's list) is skipped by strtok: the empty text, apart. */
    cr_assert(!column_takes(c, "games", "turn", ""));
    PQfinish(c);
    drop_last();
}

/* A migration that fails (here migration 1: a table of its name exists)
 * is rolled back whole; the version stays and the connection is usable. */
Test(pg_migrate, failing_migration_is_rolled_back)
{
    PGconn *c;
    fresh_db(&c);
    exec_ok(c, "CREATE TABLE games (x INTEGER)");
    int v = -2;
    cr_assert_eq(pg_migrate(c, &v), -1);
    cr_assert_eq(v, 0);
    cr_assert_eq(PQtransactionStatus(c), PQTRANS_IDLE);
    cr_assert_eq(stored_version(c), 0);
    cr_assert_eq(pg_int(c, "SELECT count(*) FROM pg_class WHERE relname IN ('users', 'tokens')"), 0,
                 "migration 1's first tables went with the rollback");
    PQfinish(c);
}

/* A connection inside a transaction is refused before anything is done:
 * our COMMIT would commit the caller's work. */
Test(pg_migrate, open_transaction_is_refused)
{
    PGconn *c;
    fresh_db(&c);
    exec_ok(c, "BEGIN");
    cr_assert_eq(pg_migrate(c, NULL), -1);
    cr_assert_eq(PQtransactionStatus(c), PQTRANS_INTRANS, "the caller's transaction is its own");
    exec_ok(c, "ROLLBACK");
    cr_assert_eq(pg_int(c, "SELECT count(*) FROM pg_class WHERE relname = 'qirkat_schema'"), 0);
    PQfinish(c);
}

/* ---- nodes starting together ------------------------------------------ */

typedef struct racer {
    const char *url, *db;
    pthread_barrier_t *go;
    int rc, version;
} racer;

/* One node's start: connect, wait for the others, migrate. */
static void *race(void *arg)
{
    racer *r = arg;
    PGconn *c = try_connect(r->url, r->db);
    pthread_barrier_wait(r->go);
    r->rc = c ? pg_migrate(c, &r->version) : -2;
    PQfinish(c);
    return NULL;
}

/* RACERS connections call pg_migrate() on database db at the same moment;
 * each must succeed at the last version. */
static void race_all(const char *db)
{
    pthread_barrier_t go;
    cr_assert_eq(pthread_barrier_init(&go, NULL, RACERS), 0);
    racer r[RACERS];
    pthread_t t[RACERS];
    for (int i = 0; i < RACERS; i++) {
        r[i] = (racer){cluster_url(), db, &go, -3, -3};
        cr_assert_eq(pthread_create(&t[i], NULL, race, &r[i]), 0);
    }
    for (int i = 0; i < RACERS; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&go);
    for (int i = 0; i < RACERS; i++) {
        cr_assert_eq(r[i].rc, 0, "node %d: pg_migrate %d", i, r[i].rc);
        cr_assert_eq(r[i].version, pg_schema_last(), "node %d", i);
    }
}

/* On an empty database all of them also race to make qirkat_schema
 * (CREATE TABLE IF NOT EXISTS alone fails on a concurrent creation). */
Test(pg_migrate, nodes_starting_together_on_an_empty_database)
{
    char *whole = whole_file_catalogue();
    PGconn *c;
    const char *name = fresh_db(&c);
    /* Only the nodes are connected while they start (an unnamed session
     * would be an older node in the way of migration 14 for a node that
     * found the database migrated part of the way by another). */
    PQfinish(c);
    race_all(name);
    c = db_connect(name);
    cr_assert_eq(stored_version(c), pg_schema_last());
    char *cat = catalogue(c);
    cr_assert_str_eq(cat, whole);
    free(cat);
    free(whole);
    PQfinish(c);
}

/* Each migration is applied once, in order: a trigger on qirkat_schema
 * logs every version written (the table is made beforehand, as the
 * runner makes it, so the trigger can be on it from the start). */
Test(pg_migrate, nodes_starting_together_apply_each_migration_once)
{
    PGconn *c;
    const char *name = fresh_db(&c);
    exec_ok(c, "CREATE TABLE qirkat_schema (version INTEGER NOT NULL);"
               "INSERT INTO qirkat_schema VALUES (0);"
               "CREATE TABLE applied (seq BIGINT GENERATED ALWAYS AS IDENTITY, version INTEGER);"
               "CREATE FUNCTION log_version() RETURNS trigger LANGUAGE plpgsql AS"
               " $$BEGIN INSERT INTO applied (version) VALUES (NEW.version); RETURN NEW; END$$;"
               "CREATE TRIGGER log_version AFTER UPDATE ON qirkat_schema"
               " FOR EACH ROW EXECUTE FUNCTION log_version()");
    PQfinish(c); /* as above */
    race_all(name);
    c = db_connect(name);
    char want[256] = "", num[16];
    for (int n = 1; n <= pg_schema_last(); n++) {
        snprintf(num, sizeof num, n > 1 ? ",%d" : "%d", n);
        strcat(want, num);
    }
    char *got =
        pg_value(c, "SELECT string_agg(version::text, ',' ORDER BY seq) FROM applied", NULL);
    cr_assert_str_eq(got, want);
    free(got);
    PQfinish(c);
}

/* ---- the same schema as SQLite's ----------------------------------------- */

/* The SQLite schema after all migrations, in memory. */
static sqlite3 *sqlite_schema(void)
{
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
    char *err = NULL;
    cr_assert_eq(sqlite3_exec(db, store_schema_sql, NULL, NULL, &err), SQLITE_OK, "%s", err);
    return db;
}

/* The one value of a one-row SQLite answer ($1 bound to param when not
 * NULL), malloc'd; "" for NULL. */
static char *sq_value(sqlite3 *db, const char *sql, const char *param)
{
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql,
                 sqlite3_errmsg(db));
    if (param)
        sqlite3_bind_text(st, 1, param, -1, SQLITE_STATIC);
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s", sql);
    const unsigned char *t = sqlite3_column_text(st, 0);
    char *v = strdup(t ? (const char *)t : "");
    sqlite3_finalize(st);
    return v;
}

/* The tables of both, one per line in byte order; into *names (malloc'd). */
static void same_tables(sqlite3 *sq, PGconn *pg, char **names)
{
    char *a = sq_value(sq,
                       "SELECT group_concat(name, char(10)) FROM (SELECT name FROM sqlite_master"
                       " WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
                       " ORDER BY name)",
                       NULL);
    char *b = pg_value(pg,
                       "SELECT string_agg(table_name, E'\\n' ORDER BY table_name COLLATE \"C\")"
                       " FROM information_schema.tables WHERE table_schema = current_schema()"
                       " AND table_type = 'BASE TABLE' AND table_name <> 'qirkat_schema'",
                       NULL);
    cr_assert_str_eq(b, a, "the tables of schema-pg.sql and schema.sql:\n pg     %s\n sqlite %s", b,
                     a);
    free(b);
    *names = a;
}

/* For every table, the column names in order are those of SQLite: the
 * backends' queries and `qirkatd migrate` rely on it. */
Test(pg_migrate, same_columns_as_sqlite)
{
    sqlite3 *sq = sqlite_schema();
    PGconn *pg;
    fresh_db(&pg);
    cr_assert_eq(pg_migrate(pg, NULL), 0);
    char *tables;
    same_tables(sq, pg, &tables);
    int n = 0;
    for (char *t = strtok(tables, "\n"); t; t = strtok(NULL, "\n"), n++) {
        char *a = sq_value(sq, "SELECT group_concat(name, ',') FROM pragma_table_info(?1)", t);
        char *b = pg_value(pg,
                           "SELECT string_agg(column_name, ',' ORDER BY ordinal_position)"
                           " FROM information_schema.columns"
                           " WHERE table_schema = current_schema() AND table_name = $1",
                           t);
        cr_assert_str_eq(b, a, "the columns of %s:\n pg     %s\n sqlite %s", t, b, a);
        free(a);
        free(b);
    }
    cr_assert_geq(n, 19);
    free(tables);
    sqlite3_close(sq);
    PQfinish(pg);
}

/* Column by column: the type (INTEGER as BIGINT or a SMALLINT flag, TEXT,
 * BLOB as BYTEA, REAL as DOUBLE PRECISION; a domain's base type), NOT NULL (a key's columns
 * count as not null, as they are on both), the default, the place in the
 * primary key. */
Test(pg_migrate, same_column_types_defaults_and_keys_as_sqlite)
{
    sqlite3 *sq = sqlite_schema();
    PGconn *pg;
    fresh_db(&pg);
    cr_assert_eq(pg_migrate(pg, NULL), 0);
    char *tables;
    same_tables(sq, pg, &tables);
    for (char *t = strtok(tables, "\n"); t; t = strtok(NULL, "\n")) {
        char *a = sq_value(
            sq,
            "SELECT group_concat(name || ':' || CASE upper(type) WHEN 'INTEGER' THEN 'int'"
            " WHEN 'TEXT' THEN 'text' WHEN 'BLOB' THEN 'bytes' WHEN 'REAL' THEN 'real'"
            " ELSE type END || ':' || (\"notnull\" OR pk > 0) || ':' || coalesce(dflt_value, '-')"
            " || ':' || pk, ',') FROM pragma_table_info(?1)",
            t);
        char *b = pg_value(
            pg,
            "SELECT string_agg(format('%s:%s:%s:%s:%s', a.attname,"
            "  CASE format_type(b.oid, a.atttypmod) WHEN 'bigint' THEN 'int'"
            "   WHEN 'smallint' THEN 'int' WHEN 'text' THEN 'text' WHEN 'bytea' THEN 'bytes'"
            "   WHEN 'double precision' THEN 'real' ELSE format_type(b.oid, a.atttypmod) END,"
            "  a.attnotnull::int,"
            "  coalesce(regexp_replace(pg_get_expr(d.adbin, d.adrelid), '::[a-z ]+$', ''), '-'),"
            /* indkey counts from 0: its ordinality is SQLite's pk. */
            "  coalesce((SELECT o FROM unnest(k.indkey::int2[]) WITH ORDINALITY u(att, o)"
            "   WHERE u.att = a.attnum), 0)), ',' ORDER BY a.attnum)"
            " FROM pg_attribute a"
            /* A domain column (schema-pg.sql migration 14) has its base type. */
            " JOIN pg_type ty ON ty.oid = a.atttypid"
            " JOIN pg_type b ON b.oid = CASE ty.typtype WHEN 'd' THEN ty.typbasetype ELSE ty.oid "
            "END"
            " LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum"
            " LEFT JOIN pg_index k ON k.indrelid = a.attrelid AND k.indisprimary"
            " WHERE a.attrelid = format('%I.%I', current_schema(), $1::text)::regclass"
            " AND a.attnum > 0 AND NOT a.attisdropped",
            t);
        cr_assert_str_eq(
            b, a, "the columns of %s (name:type:not null:default:key):\n pg     %s\n sqlite %s", t,
            b, a);
        free(a);
        free(b);
    }
    free(tables);
    sqlite3_close(sq);
    PQfinish(pg);
}

/* Per table: the foreign keys (column, target, ON DELETE), the UNIQUE
 * constraints (NOCASE's unique lower(username) counts as username's), the
 * indexes made by CREATE INDEX (name, unique, partial, columns) and the
 * number of CHECK constraints. */
Test(pg_migrate, same_constraints_and_indexes_as_sqlite)
{
    sqlite3 *sq = sqlite_schema();
    PGconn *pg;
    fresh_db(&pg);
    cr_assert_eq(pg_migrate(pg, NULL), 0);
    char *tables;
    same_tables(sq, pg, &tables);
    for (char *t = strtok(tables, "\n"); t; t = strtok(NULL, "\n")) {
        char *a = sq_value(sq,
                           "SELECT coalesce(group_concat(l, ','), '') FROM (SELECT \"from\" || '>'"
                           " || \"table\" || '.' || \"to\" || ':' || on_delete AS l"
                           " FROM pragma_foreign_key_list(?1) ORDER BY l)",
                           t);
        char *b = pg_value(
            pg,
            "SELECT coalesce(string_agg(l, ',' ORDER BY l COLLATE \"C\"), '') FROM ("
            " SELECT format('%s>%s.%s:%s', a.attname, f.relname, fa.attname,"
            "  CASE co.confdeltype WHEN 'a' THEN 'NO ACTION' WHEN 'c' THEN 'CASCADE'"
            "   WHEN 'n' THEN 'SET NULL' WHEN 'r' THEN 'RESTRICT' ELSE 'SET DEFAULT' END) AS l"
            " FROM pg_constraint co"
            " JOIN pg_attribute a ON a.attrelid = co.conrelid AND a.attnum = co.conkey[1]"
            " JOIN pg_class f ON f.oid = co.confrelid"
            " JOIN pg_attribute fa ON fa.attrelid = co.confrelid AND fa.attnum = co.confkey[1]"
            " WHERE co.contype = 'f' AND co.conrelid = format('%I.%I', current_schema(), "
            "$1::text)::regclass"
            ") x",
            t);
        cr_assert_str_eq(b, a, "the foreign keys of %s:\n pg     %s\n sqlite %s", t, b, a);
        free(a);
        free(b);

        a = sq_value(sq,
                     "SELECT coalesce(group_concat(l, ','), '') FROM (SELECT CASE il.origin"
                     " WHEN 'u' THEN 'unique:' ELSE il.name || ':' || il.\"unique\" || ':'"
                     " || il.partial || ':' END || (SELECT group_concat(name, '+') FROM"
                     " (SELECT name FROM pragma_index_info(il.name) ORDER BY seqno)) AS l"
                     " FROM pragma_index_list(?1) il WHERE il.origin <> 'pk' ORDER BY l)",
                     t);
        b = pg_value(
            pg,
            "SELECT coalesce(string_agg(l, ',' ORDER BY l COLLATE \"C\"), '') FROM ("
            " SELECT CASE WHEN u.oid IS NOT NULL THEN 'unique:' || cols"
            "  WHEN i.indisunique AND cols ~ '^lower\\(.*\\)$'"
            "   THEN 'unique:' || regexp_replace(cols, '^lower\\((.*)\\)$', '\\1')"
            "  ELSE format('%s:%s:%s:%s', ic.relname, i.indisunique::int,"
            "   (i.indpred IS NOT NULL)::int, cols) END AS l"
            " FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid"
            " LEFT JOIN pg_constraint u ON u.conindid = i.indexrelid AND u.contype = 'u'"
            "  AND u.conrelid = i.indrelid"
            " CROSS JOIN LATERAL (SELECT string_agg(pg_get_indexdef(i.indexrelid, k, true), '+'"
            "  ORDER BY k) AS cols FROM generate_series(1, i.indnkeyatts) k) c"
            " WHERE NOT i.indisprimary"
            "  AND i.indrelid = format('%I.%I', current_schema(), $1::text)::regclass) x",
            t);
        cr_assert_str_eq(b, a, "the unique constraints and indexes of %s:\n pg     %s\n sqlite %s",
                         t, b, a);
        free(a);
        free(b);

        /* SQLite keeps a table's CHECKs only in its CREATE text (ALTER
         * TABLE ADD COLUMN appends the column's definition there). */
        char *sql =
            sq_value(sq, "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?1", t);
        long long checks = 0;
        for (const char *p = strstr(sql, "CHECK ("); p; p = strstr(p + 1, "CHECK ("))
            checks++;
        free(sql);
        /* A column's domain CHECK (schema-pg.sql migration 14) counts as
         * the column's CHECK. */
        char *n =
            pg_value(pg,
                     "SELECT (SELECT count(*) FROM pg_constraint WHERE contype = 'c'"
                     "  AND conrelid = format('%I.%I', current_schema(), $1::text)::regclass)"
                     " + (SELECT count(*) FROM pg_attribute a"
                     "  JOIN pg_constraint dc ON dc.contypid = a.atttypid AND dc.contype = 'c'"
                     "  WHERE a.attrelid = format('%I.%I', current_schema(), $1::text)::regclass"
                     "  AND a.attnum > 0 AND NOT a.attisdropped)",
                     t);
        cr_assert_eq(strtoll(n, NULL, 10), checks, "the CHECK constraints of %s", t);
        free(n);
    }
    free(tables);
    sqlite3_close(sq);
    PQfinish(pg);
}
