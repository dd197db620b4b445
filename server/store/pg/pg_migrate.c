/*
 * pg_migrate: the runner of schema-pg.sql's migrations (pg_migrate.h).
 * Blocking libpq on purpose: it runs once at open, before the loop, and
 * the advisory lock it may wait for is held only while another node
 * migrates.
 */
#include "store/pg/pg_migrate.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"

#define MIGRATION_MARK "\n-- migration "

/* Parse a mark's number at p (just past MIGRATION_MARK): the digits must
 * fill the rest of the line, as in schema.sql, so that a comment such as
 * "-- migration 2 (issue 16)" is not a mark. 0 when p is no mark. */
static int mark_number(const char *p)
{
    if (*p < '0' || *p > '9')
        return 0;
    char *end;
    long n = strtol(p, &end, 10);
    return *end == '\n' && n > 0 && n <= INT_MAX ? (int)n : 0;
}

int pg_schema_last(void)
{
    int last = 0;
    for (const char *p = strstr(store_pg_schema_sql, MIGRATION_MARK); p;
         p = strstr(p + 1, MIGRATION_MARK)) {
        int n = mark_number(p + strlen(MIGRATION_MARK));
        if (n > last)
            last = n;
    }
    return last;
}

/* Find migration n: *start and *len cover its SQL up to the mark of
 * migration n + 1 exactly (the rule of sqlite/sqlite.c: a comment line
 * that merely begins "-- migration " cannot end it early). */
static bool migration_find(int n, const char **start, size_t *len)
{
    char mark[32], next[32];
    snprintf(mark, sizeof mark, MIGRATION_MARK "%d\n", n);
    snprintf(next, sizeof next, MIGRATION_MARK "%d\n", n + 1);
    const char *p = strstr(store_pg_schema_sql, mark);
    if (!p)
        return false;
    p += strlen(mark);
    const char *end = strstr(p, next);
    *start = p;
    *len = end ? (size_t)(end - p) + 1 : strlen(p);
    return true;
}

/* The line of schema-pg.sql at byte offset off: what a developer whose
 * new migration fails wants to look at. */
static int file_line(size_t off)
{
    int line = 1;
    for (size_t i = 0; i < off && store_pg_schema_sql[i]; i++)
        line += store_pg_schema_sql[i] == '\n';
    return line;
}

/* Log a failed step on one line: PostgreSQL's primary message and
 * SQLSTATE (or the connection's error when there is no result), and for
 * a statement of migration text starting at byte base of the file, the
 * file line the error position points at. */
static void log_failure(PGconn *c, const PGresult *r, const char *what, long base)
{
    const char *msg = r ? PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    const char *pos = r ? PQresultErrorField(r, PG_DIAG_STATEMENT_POSITION) : NULL;
    char where[48] = "";
    if (pos && base >= 0)
        /* The position counts characters from 1; the file is ASCII. */
        snprintf(where, sizeof where, " (schema-pg.sql line %d)",
                 file_line((size_t)base + (size_t)strtol(pos, NULL, 10) - 1));
    if (msg) {
        log_error("PostgreSQL schema: %s: %s [%s]%s", what, msg, state ? state : "?", where);
        return;
    }
    const char *m = PQerrorMessage(c);
    int len = (int)strcspn(m, "\n");
    log_error("PostgreSQL schema: %s: %.*s", what, len, *m ? m : "no answer");
}

/* Run sql (one or several statements) and keep the last result in *out
 * when out is not NULL (the caller PQclear()s it). 0, or -1 logged. */
static int run(PGconn *c, const char *sql, const char *what, long base, PGresult **out)
{
    PGresult *r = PQexec(c, sql);
    ExecStatusType st = PQresultStatus(r);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
        log_failure(c, r, what, base);
        PQclear(r);
        return -1;
    }
    if (out)
        *out = r;
    else
        PQclear(r);
    return 0;
}

/* Leave no transaction open behind a failure, so the caller gets the
 * connection back as it gave it. */
static void rollback(PGconn *c)
{
    PGTransactionStatusType t = PQtransactionStatus(c);
    if (t == PQTRANS_INTRANS || t == PQTRANS_INERROR)
        PQclear(PQexec(c, "ROLLBACK"));
}

/* The version row, read inside the locked transaction. 0, or -1 logged. */
static int read_version(PGconn *c, int *v)
{
    PGresult *r;
    if (run(c, "SELECT version FROM qirkat_schema", "reading the version", -1, &r))
        return -1;
    int rc = -1;
    if (PQntuples(r) != 1 || PQgetisnull(r, 0, 0))
        log_error("PostgreSQL schema: qirkat_schema holds %d rows, not one version", PQntuples(r));
    else {
        *v = (int)strtol(PQgetvalue(r, 0, 0), NULL, 10);
        rc = 0;
    }
    PQclear(r);
    return rc;
}

static bool past_sessions; /* pg_migrate_past_sessions() */

void pg_migrate_past_sessions(bool on)
{
    past_sessions = on;
}

/* older_nodes_stopped() looks this many times, this far apart (2 s). */
#define STOPPED_TRIES 20
#define STOPPED_TRY_US 100000

/* Inside the locked transaction, before migration n of a database that
 * was at a version >= 1 when this run began: 0 when no other session on
 * this database can be a qirkatd older than schema n, else -1 with the
 * sessions logged (pg_migrate.h "Stopping nodes"); with
 * pg_migrate_past_sessions() on, 0 after logging them. Without
 * pg_read_all_stats a session of another role shows its pid, usesysid
 * and application_name but a NULL backend_type, state and address: it
 * counts as in the way unless named as a node of this release. Two kinds
 * of hidden rows are known not to be nodes and are left out: those
 * without a role (autovacuum workers: PostgreSQL records a role only for
 * client backends, WAL senders and background workers) and the WAL
 * senders (pg_stat_replication lists their pids to anyone; a logical one
 * is attached to a database). Another role's background workers (a
 * subscription's apply worker, say) cannot be told from a client without
 * pg_read_all_stats, which docs/operations.md therefore grants the node's
 * role. */
/* What older_nodes_stopped() lists for a session it may not read. */
#define HIDDEN_SESSION "another role: hidden"

static int older_nodes_stopped(PGconn *c, int n)
{
    char num[16];
    snprintf(num, sizeof num, "%d", n);
    const char *params[1] = {num};
    PGresult *r = NULL;
    /* A session just closed (a node stopped a moment ago, a tool that
     * finished) stays listed until its backend has exited: a few tries,
     * each on a fresh view (pg_stat_activity is a snapshot per
     * transaction until cleared). */
    for (int attempt = 0;; attempt++) {
        PQclear(r);
        r = NULL;
        if (run(c, "SELECT pg_stat_clear_snapshot()", "reading the other sessions", -1, NULL))
            return -1;
        r = PQexecParams(c,
                         "SELECT pid, coalesce(nullif(application_name, ''), '(no name)'), "
                         "CASE WHEN backend_type IS NULL THEN '" HIDDEN_SESSION "' ELSE "
                         "coalesce(client_addr::text, 'local') || ', ' || coalesce(state, '?') END "
                         "FROM pg_stat_activity WHERE datname = current_database() "
                         "AND pid <> pg_backend_pid() "
                         "AND (backend_type = 'client backend' OR (backend_type IS NULL "
                         "AND usesysid IS NOT NULL "
                         "AND pid NOT IN (SELECT pid FROM pg_stat_replication))) "
                         "AND CASE WHEN application_name ~ "
                         "'^" PG_NODE_APPNAME
                         "[0-9]{1,9}$' THEN substring(application_name FROM " PG_NODE_APPNAME_DIGITS
                         ")::int ELSE -1 END < $1::int ORDER BY pid",
                         1, NULL, params, NULL, NULL, 0);
        if (PQresultStatus(r) != PGRES_TUPLES_OK) {
            log_failure(c, r, "listing the other sessions", -1);
            PQclear(r);
            return -1;
        }
        /* The override needs no wait for sessions on their way out. */
        if (PQntuples(r) == 0 || attempt == STOPPED_TRIES - 1 || past_sessions)
            break;
        usleep(STOPPED_TRY_US);
    }
    int rows = PQntuples(r);
    if (rows > 0) {
        char list[512] = "";
        size_t used = 0;
        bool hidden = false;
        for (int i = 0; i < rows; i++)
            hidden = hidden || strcmp(PQgetvalue(r, i, 2), HIDDEN_SESSION) == 0;
        for (int i = 0; i < rows && used < sizeof list - 1; i++) {
            int k = snprintf(list + used, sizeof list - used, "%spid %s (%s, %s)", i ? ", " : "",
                             PQgetvalue(r, i, 0), PQgetvalue(r, i, 1), PQgetvalue(r, i, 2));
            used += k > 0 ? (size_t)k : 0;
        }
        if (past_sessions)
            log_warn("PostgreSQL schema: migration %d changes column types that older qirkatd "
                     "nodes' statements rely on; applied anyway (QK_PG_MIGRATE_PAST_SESSIONS): "
                     "%d other session%s connected: %s",
                     n, rows, rows == 1 ? "" : "s", list);
        else
            log_error("PostgreSQL schema: migration %d changes column types that older qirkatd "
                      "nodes' statements rely on, so it runs only once they are stopped: stop "
                      "every node older than this one (and end the other sessions on this "
                      "database, or start this node once with QK_PG_MIGRATE_PAST_SESSIONS=1), "
                      "then start it again; %d other session%s connected: %s%s",
                      n, rows, rows == 1 ? "" : "s", list,
                      hidden ? "; the sessions of other roles are hidden from this one: "
                               "GRANT pg_read_all_stats TO the node's role to see which they are"
                             : "");
    }
    PQclear(r);
    return rows == 0 || past_sessions ? 0 : -1;
}

/* The connection's state before the first statement: the caller's
 * session must not be inside a transaction (our BEGIN would be refused
 * or, worse, our COMMIT would commit the caller's work) nor in pipeline
 * mode (PQexec is refused there). */
static int check_connection(PGconn *c)
{
    if (!c || PQstatus(c) != CONNECTION_OK) {
        log_error("PostgreSQL schema: no connection%s%.*s", c ? ": " : "",
                  c ? (int)strcspn(PQerrorMessage(c), "\n") : 0, c ? PQerrorMessage(c) : "");
        return -1;
    }
    if (PQpipelineStatus(c) != PQ_PIPELINE_OFF) {
        log_error("PostgreSQL schema: the connection is in pipeline mode");
        return -1;
    }
    if (PQtransactionStatus(c) != PQTRANS_IDLE) {
        log_error("PostgreSQL schema: the connection is inside a transaction");
        return -1;
    }
    /* Not refused: SQL_ASCII stores anything, as SQLite does; but another
     * encoding refuses text outside it, and only UTF8 takes what clients
     * send. */
    const char *enc = PQparameterStatus(c, "server_encoding");
    if (enc && strcmp(enc, "UTF8") != 0)
        log_warn("PostgreSQL database encoding is %s, not UTF8: text outside it will be refused",
                 enc);
    return 0;
}

int pg_migrate_to(PGconn *c, int target, int *version_out)
{
    int have = -1, from = -1, last = pg_schema_last();
    if (version_out)
        *version_out = -1;
    if (target < 0 || target > last) {
        log_error("PostgreSQL schema: no migration %d (schema-pg.sql goes to %d)", target, last);
        return -1;
    }
    for (int n = 1; n <= last; n++) {
        const char *p;
        size_t len;
        if (!migration_find(n, &p, &len)) {
            log_error("PostgreSQL schema: schema-pg.sql has no migration %d below %d", n, last);
            return -1;
        }
    }
    if (check_connection(c))
        return -1;

    /* Named so that a later run can tell this session from an older node
     * (older_nodes_stopped()); kept for the session, the node's too.
     * Before the first lock: a session waiting for it must not look like
     * an older node to the one holding it. */
    char name[64];
    snprintf(name, sizeof name, "SET application_name = '" PG_NODE_APPNAME "%d'", last);
    if (run(c, name, "naming the session", -1, NULL))
        goto fail;

    /* SET LOCAL client_min_messages: CREATE TABLE IF NOT EXISTS says
     * NOTICE when the table is there, and libpq's default notice
     * processor would print it on stderr at every start. */
    char sql[512];
    snprintf(sql, sizeof sql,
             "BEGIN; SET LOCAL client_min_messages = warning;"
             " SELECT pg_advisory_xact_lock(%lld);"
             " CREATE TABLE IF NOT EXISTS qirkat_schema (version INTEGER NOT NULL);"
             " INSERT INTO qirkat_schema (version) SELECT 0"
             " WHERE NOT EXISTS (SELECT 1 FROM qirkat_schema);"
             " COMMIT",
             (long long)PG_MIGRATE_LOCK);
    if (run(c, sql, "creating qirkat_schema", -1, NULL))
        goto fail;

    char lock[160];
    snprintf(lock, sizeof lock,
             "BEGIN; SET LOCAL client_min_messages = warning;"
             " SELECT pg_advisory_xact_lock(%lld)",
             (long long)PG_MIGRATE_LOCK);
    for (;;) {
        /* The version is read after the lock is granted: a node that
         * waited sees what the node before it committed (READ COMMITTED
         * takes a snapshot per statement). */
        if (run(c, lock, "taking the migration lock", -1, NULL) || read_version(c, &have))
            goto fail;
        if (version_out)
            *version_out = have;
        if (from < 0)
            from = have;
        if (have > last) {
            log_error("PostgreSQL database schema version %d is newer than this qirkatd (%d)", have,
                      last);
            goto fail;
        }
        if (have >= target)
            break;
        int n = have + 1;
        const char *p;
        size_t len;
        migration_find(n, &p, &len);
        /* PQexec needs the text NUL-terminated where the migration ends. */
        char *text = malloc(len + 1);
        if (!text) {
            log_error("PostgreSQL schema: out of memory for migration %d", n);
            goto fail;
        }
        memcpy(text, p, len);
        text[len] = '\0';
        if (from >= 1 && strstr(text, STOPS_NODES_MARK) && older_nodes_stopped(c, n)) {
            free(text);
            goto fail;
        }
        char what[32];
        snprintf(what, sizeof what, "migration %d", n);
        int rc = run(c, text, what, (long)(p - store_pg_schema_sql), NULL);
        free(text);
        if (rc)
            goto fail;
        char num[16];
        snprintf(num, sizeof num, "%d", n);
        const char *params[1] = {num};
        PGresult *r = PQexecParams(c, "UPDATE qirkat_schema SET version = $1", 1, NULL, params,
                                   NULL, NULL, 0);
        if (PQresultStatus(r) != PGRES_COMMAND_OK || strcmp(PQcmdTuples(r), "1") != 0) {
            log_failure(c, r, "setting the version", -1);
            PQclear(r);
            goto fail;
        }
        PQclear(r);
        /* COMMIT of a transaction that failed answers ROLLBACK, not an
         * error: only the tag tells. */
        if (run(c, "COMMIT", "COMMIT", -1, &r))
            goto fail;
        bool committed = strcmp(PQcmdStatus(r), "COMMIT") == 0;
        PQclear(r);
        if (!committed) {
            log_error("PostgreSQL schema: migration %d was rolled back", n);
            goto fail;
        }
        have = n;
        if (version_out)
            *version_out = have;
        log_info("PostgreSQL database migrated to schema version %d", n);
    }
    /* Nothing written in this last transaction: it only held the lock. */
    if (run(c, "COMMIT", "COMMIT", -1, NULL))
        goto fail;
    return 0;
fail:
    rollback(c);
    return -1;
}

int pg_migrate(PGconn *c, int *version_out)
{
    return pg_migrate_to(c, pg_schema_last(), version_out);
}
