/*
 * sqlite: the SQLite backend of the store interface (store.h). One
 * database file over one connection, loop thread only; every statement is
 * prepared once at open with bound parameters, never built from strings.
 * Every call completes before it returns: it never answers STORE_PENDING,
 * and a commit calls its done callback before store_commit_async()
 * returns.
 *
 * Schema. schema.sql (embedded as store_schema_sql, see schema.c) is a list
 * of "-- migration N" sections; store_sqlite_open() applies those above
 * PRAGMA user_version, one transaction each. A number missing from the
 * text (reserved by another branch: 5 and 6 while 7 exists) is skipped
 * and recorded in server_state as 'schema_gap_N'; a later build that has
 * it applies it then (sqlite/sqlite.c migrate()). Connection settings: WAL,
 * foreign_keys=ON, synchronous=FULL (an acknowledged move survives a power
 * cut), journal_size_limit 64 MiB (store_core.h), busy_timeout 2 s while
 * opening and migrating, then 0: the loop never waits for another
 * process's lock, a locked database is STORE_BUSY at once. Group commit (store_core.h) is BEGIN
 * IMMEDIATE ... COMMIT: one fsync per loop iteration.
 *
 * Errors: a failing SQLite call is logged with the statement's name and
 * reported as STORE_EIO; a UNIQUE or PRIMARY KEY violation is
 * STORE_CONFLICT (not logged).
 */
#ifndef QK_STORE_SQLITE_H
#define QK_STORE_SQLITE_H

#include "store/store_core.h"

/* The text of schema.sql (schema.c). */
extern const char store_schema_sql[];

/* The highest migration number in store_schema_sql (numbers below it may
 * be missing, see "Schema"). */
int store_schema_version(void);

/* Open (creating if needed) the database file at path, configure it and
 * migrate it to the newest schema. On success *out owns the store
 * (store_close()); on failure *out is NULL and STORE_EIO is returned
 * (logged), including a database whose user_version is newer than this
 * binary knows. store_open() calls this. */
int store_sqlite_open(const char *path, store **out);

#endif
