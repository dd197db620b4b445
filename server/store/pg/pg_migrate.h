/*
 * pg_migrate: the PostgreSQL schema and its migrations (issue 22).
 *
 * schema-pg.sql (embedded as store_pg_schema_sql, pg_schema.c, generated
 * by server/store/schema-gen.sh) is a list of "-- migration N" sections
 * with the numbers of schema.sql, each the PostgreSQL form of SQLite's
 * migration N. The database's version is the one row of the table
 * qirkat_schema (version INTEGER NOT NULL), which the runner makes before
 * migration 1 (SQLite keeps it in PRAGMA user_version).
 *
 * Blocking. These calls use libpq's blocking PQexec: they are for the
 * backend's open, before the server's loop runs (and for tests and
 * offline tools), never for a connection the loop drives: PQexec waits
 * even on a non-blocking connection. The connection must be outside
 * pipeline mode and outside any transaction; it is given back so, also
 * after a failure (rolled back).
 *
 * Several processes. qirkatd nodes started together on one database all
 * run this at once: every step holds the transaction-scoped advisory lock
 * PG_MIGRATE_LOCK (pg_advisory_xact_lock) and reads the version under it,
 * so each migration is applied once, by whichever node gets there first,
 * and the others wait and then find it done. The lock is taken in the
 * current database only (advisory locks are per database).
 *
 * Stopping nodes. Migrations only add, so a node still running the
 * release before keeps working while another migrates, except for a
 * migration whose text has the line STOPS_NODES_MARK (14: column types
 * changed, which fails the statements older nodes prepared and rewrites
 * the tables under an exclusive lock). The runner names its session
 * PG_NODE_APPNAME followed by its last migration (application_name, set
 * over any the URL gives, so every node of this release is known by it),
 * and applies such a migration to a database that was in use (version 1
 * or more) only while no other session on the database is anything but a
 * node that knows that migration: otherwise it changes nothing, logs the
 * sessions in the way and fails, and the node exits (its supervisor
 * starts it again: it gets through once the older nodes are stopped).
 * Nodes of this release starting together still migrate once. An empty
 * database has no older node to break (a node of the release before that
 * starts on it together with a node of this one is not seen: the older
 * release names no session). Any other client session counts as in the
 * way, whatever its role (an operator's psql, a pg_dump, a backend left
 * by a dead host); the database's own processes (autovacuum, WAL
 * senders) do not. pg_migrate_past_sessions() is the operator's way past
 * them once they have checked that no older node runs.
 */
#ifndef QK_STORE_PG_MIGRATE_H
#define QK_STORE_PG_MIGRATE_H

#include <libpq-fe.h>
#include <stdbool.h>

/* The advisory lock key of migrations: "qkschema" in ASCII. Other
 * advisory locks of the backend must use other keys. */
#define PG_MIGRATE_LOCK 0x716b736368656d61LL

/* The line that marks a migration to apply only once older nodes are
 * stopped ("Stopping nodes" above). */
#define STOPS_NODES_MARK "\n-- needs: every older node stopped\n"

/* application_name of a migrating session and so of every node: this
 * text, then pg_schema_last() in decimal; PG_NODE_APPNAME_DIGITS is the
 * 1-based position of the digits (SQL substring). */
#define PG_NODE_APPNAME "qirkatd schema "
#define PG_NODE_APPNAME_DIGITS "16"

/* On: a migration marked STOPS_NODES_MARK is applied even with other
 * sessions connected, which are logged (a warning). Off by default.
 * Process-wide; set before the store opens (QK_PG_MIGRATE_PAST_SESSIONS). */
void pg_migrate_past_sessions(bool on);

/* The text of schema-pg.sql (pg_schema.c). */
extern const char store_pg_schema_sql[];

/* The highest migration number in store_pg_schema_sql (0 when it has
 * none). Numbers go 1, 2, ... without gaps; pg_migrate() refuses a text
 * with a gap below this number. */
int pg_schema_last(void);

/* Bring the database on c to pg_schema_last(): make qirkat_schema (at
 * version 0) when missing, then apply each migration above the stored
 * version in its own transaction (BEGIN; lock; read the version; the
 * migration's statements; UPDATE qirkat_schema; COMMIT), so a failure
 * leaves the database at the last migration that committed.
 *
 * Returns 0 on success, -1 on any failure, logged (util/log.h) with
 * PostgreSQL's message: a connection in the wrong state, a database whose
 * version is newer than pg_schema_last() (refused: this binary does not
 * know that schema; nothing is changed), a migration that fails (rolled
 * back), a broken qirkat_schema (not exactly one row). *version_out,
 * when not NULL, is set to the database's version as last read or
 * written: the version reached on success, the newer version when
 * refused, -1 when it could not be read. */
int pg_migrate(PGconn *c, int *version_out);

/* The same, stopping at migration target (0 <= target <=
 * pg_schema_last()): for tests that start from an older schema. A
 * database already at or above target (and not above pg_schema_last())
 * is left as it is and 0 returned; there is no way down. A target out of
 * range is -1 (logged). */
int pg_migrate_to(PGconn *c, int target, int *version_out);

#endif
