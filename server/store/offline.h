/*
 * offline: an operator's access to a database file from a second process,
 * beside (or without) the server that runs on it: `qirkatd backup` and
 * `qirkatd check` (server/tools.h, docs/operations.md).
 *
 * And the operator's moderation commands, `qirkatd admin grant|revoke|log`:
 * the one way an account becomes an administrator is this command line,
 * on the database file, never a request to the server.
 *
 * Why apart from the store interface (store.h): these run outside the
 * server's loop, on their own connection, and never write the live
 * database; the server's store is for the loop's group commit. They are
 * SQLite's: for PostgreSQL, pg_dump/pg_basebackup and amcheck are the
 * tools (docs/operations.md).
 *
 * Concurrency. The server runs in WAL mode, where a reader never blocks
 * the writer: a backup reads one snapshot in one read transaction
 * (sqlite3_backup_step(-1): SQLite restarts a stepwise backup whenever
 * another connection writes, which under a steady load of moves would
 * never end) while the server keeps committing to the -wal file; its
 * checkpoints cannot pass the snapshot until the copy is done, so the
 * -wal file grows by what was committed meanwhile and shrinks after.
 */
#ifndef QK_OFFLINE_H
#define QK_OFFLINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Copy the database at src into a new file out: a consistent snapshot
 * (every transaction committed before the copy's read began, none after),
 * written to out + ".partial" (without a journal or a sync of its own
 * while it is written: it is discarded on failure), synced, checked
 * (PRAGMA quick_check) and renamed to out, so out is either absent or
 * complete. out must not exist. First the calling process's CPU priority
 * is lowered to nice 19 (never raised): it is the `qirkatd backup`
 * process, a background job that must leave the cores to the server's
 * loop (sqlite_offline.c, docs/operations.md section 4). *pages and *ms
 * (may be NULL) receive the pages copied and the milliseconds the read
 * transaction lasted. Returns 0, or -1 with a reason in err (size n). */
int offline_backup(const char *src, const char *out, int64_t *pages, int64_t *ms, char *err,
                   size_t n);

/* One stored game, for a replay through the rules. Strings are borrowed
 * for the callback's duration. */
typedef struct offline_game {
    int64_t id;
    const char *variant, *start, *position, *status, *result, *reason;
    int64_t ply;
    int64_t nmoves;
    const char *const *moves; /* nmoves texts in ply order */
    const int64_t *plies;     /* the ply stored with each */
} offline_game;

/* Open src read-only and run PRAGMA integrity_check and
 * foreign_key_check: each problem is a line on report. Then call cb for
 * every game, in id order (cb returns nonzero to stop). *problems counts
 * the database's problems (not the games'). Returns 0, or -1 with a
 * reason in err (size n) when the file cannot be read. */
int offline_check(const char *src, FILE *report, int64_t *problems,
                  int (*cb)(void *arg, const offline_game *g), void *arg, char *err, size_t n);

#define OFFLINE_NAME_MAX 32 /* username characters (store.h STORE_NAME_MAX) */

/* Make the account name (any letter case) an administrator (grant true)
 * or no longer one, on the database at path, beside a running server:
 * one write transaction (BEGIN IMMEDIATE, waiting up to a few seconds for
 * the server's lock) that changes users.admin and appends the audit row
 * (admin_log: admin_id NULL, admin_name "operator", action grant or
 * revoke, the user, no reason). *changed false when the account already
 * was so (nothing written). *username receives the registered spelling
 * (OFFLINE_NAME_MAX + 1 bytes). Returns 0, or -1 with a reason in err
 * (size n): no such user, a database not yet at schema 13 (start qirkatd
 * once), a file that is not a database. */
int offline_admin_set(const char *path, const char *name, bool grant, bool *changed,
                      char *username, char *err, size_t n);

/* One audit row for offline_admin_log(); strings borrowed for the call. */
typedef struct offline_admin_entry {
    int64_t id, at; /* at: UTC ms */
    const char *admin, *action, *target, *user, *reason; /* user, reason: "" = none */
} offline_admin_entry;

/* cb for the newest limit (> 0) audit rows of the database at path, newest
 * first, read-only from one snapshot. Returns 0, or -1 with a reason in
 * err (size n). */
int offline_admin_log(const char *path, int64_t limit,
                      void (*cb)(void *arg, const offline_admin_entry *e), void *arg, char *err,
                      size_t n);

/* The same two on a PostgreSQL database (url a libpq URI; store/pg/
 * pg_offline.c), for servers whose nodes share it (docs/scale.md): same
 * arguments and results; the name is matched as lower(username). */
int pg_offline_admin_set(const char *url, const char *name, bool grant, bool *changed,
                         char *username, char *err, size_t n);
int pg_offline_admin_log(const char *url, int64_t limit,
                         void (*cb)(void *arg, const offline_admin_entry *e), void *arg, char *err,
                         size_t n);

#endif
