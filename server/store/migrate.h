/*
 * migrate: moving an existing server from SQLite to PostgreSQL, `qirkatd
 * migrate --from FILE.db --db postgresql://...` (server/tools.h, issue 22
 * item 5, docs/scale.md "Backups and moving an existing server").
 *
 * Why a module of its own in the store layer: it is the one place that
 * reads one backend and writes the other, so it alone knows both SQLite
 * (sqlite3) and PostgreSQL (libpq) besides store_open.c; the backends
 * never depend on each other. Like store/offline.h it works outside the
 * server's loop on connections of its own, with blocking calls: it runs
 * as a command, never inside a server.
 *
 * What is copied: every table of the SQLite file except SQLite's own
 * (sqlite_*), row for row with the same values and ids, in foreign-key
 * order. schema-pg.sql has the same tables with the same column names
 * in the same order as schema.sql, so a column is copied by its name;
 * the copy refuses a table whose columns differ by name or order.
 * PostgreSQL's own qirkat_schema (the schema version) is not copied:
 * store_pg_open() sets it.
 */
#ifndef QK_STORE_MIGRATE_H
#define QK_STORE_MIGRATE_H

#include <stdint.h>

#include "store/offline.h"

/* What a copy did, for its summary. */
typedef struct migrate_stats {
    int tables;       /* tables copied */
    int64_t rows;     /* rows copied, all tables together */
    int64_t copy_ms;  /* wall-clock ms of the copy's transaction, BEGIN to COMMIT */
    int64_t total_ms; /* ms of the whole call: opening, migrating, copying, counting */
} migrate_stats;

/* Called once per copied table after the copy committed, in copy order:
 * the table's name and its row counts in the SQLite file (the snapshot
 * the copy read) and in PostgreSQL (counted after the commit). Strings
 * are borrowed for the call. */
typedef void (*migrate_table_cb)(void *arg, const char *table, int64_t sqlite_rows,
                                 int64_t pg_rows);

/* Copy the SQLite database file src into the PostgreSQL database at url
 * (a libpq URI: postgresql:// or postgres://).
 *
 * src is opened read-only and read from one snapshot (one read
 * transaction): stop the server on it first, or what it commits after
 * the snapshot is not copied. Its PRAGMA user_version must be the newest
 * migration of schema.sql that this binary has (an older file: start
 * qirkatd on it once, which migrates it; a newer one: this binary does
 * not know its schema).
 *
 * The target is opened with store_pg_open(), which makes or migrates its
 * schema, then copied into over a blocking connection of this call's own
 * in ONE transaction: every copied table locked (EXCLUSIVE: readers go
 * on, a writer waits), refused when any of them has a row ("not empty":
 * nothing is written), then the rows, bound parameters in pipeline mode,
 * then each identity sequence moved to max(id) so new rows get fresh ids,
 * COMMIT. A failure anywhere rolls it back: the target stays empty.
 *
 * After the commit, every table's rows are counted on both sides and cb
 * (may be NULL) called with them. *stats (may be NULL) receives what was
 * done (zeros before the copy).
 *
 * Returns 0 when the copy committed and every table has as many rows in
 * PostgreSQL as in the file; -1 otherwise, with a reason in err (size n)
 * that never holds the URL's password: a source that cannot be read or
 * is at another schema version, a url that is not PostgreSQL's, a target
 * that store_pg_open() refuses (unreachable, a newer or a different
 * schema: its reason is logged, util/log.h), a table missing from the
 * target or whose columns differ, a target that is not empty, a row
 * PostgreSQL refuses (the table, the row's number in the source's scan
 * order, and PostgreSQL's message with its DETAIL line), or counts that
 * differ after the commit (the data is then committed: drop the database
 * and start again). */
int migrate_copy(const char *src, const char *url, migrate_table_cb cb, void *arg,
                 migrate_stats *stats, char *err, size_t n);

/* Call cb for every game stored in the PostgreSQL database at url, in id
 * order, with its moves in ply order, as offline_check() does for a
 * SQLite file (store/offline.h; cb returns nonzero to stop): the replay
 * of tools.c runs on it unchanged. Read over a blocking connection of its
 * own in one read-only REPEATABLE READ transaction (one snapshot), through
 * two cursors fetched in batches, so memory stays that of one game at any
 * size of database. The offline_game and its strings are borrowed for
 * the call. Returns 0, or -1 with a reason in err (size n). */
int migrate_pg_games(const char *url, int (*cb)(void *arg, const offline_game *g), void *arg,
                     char *err, size_t n);

#endif
