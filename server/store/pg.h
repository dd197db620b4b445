/*
 * pg: the PostgreSQL backend of the store interface (store.h), for
 * several qirkatd nodes on one database (issue 22, docs/scale.md). One
 * connection per node driven by libpq's asynchronous API on the server's
 * loop (pg/pg_base.h): once the loop runs, a store call that must wait
 * for the database suspends the running task (util/task.h) instead of
 * blocking. Group commit and durability: pg/pg_core.c.
 *
 * Schema. schema-pg.sql (embedded as store_pg_schema_sql, pg/pg_schema.c)
 * has the same "-- migration N" sections as schema.sql, each the same
 * tables and columns in PostgreSQL's dialect; store_pg_open() applies
 * those above the version in qirkat_schema, one transaction each, under
 * an advisory lock so that nodes starting together migrate once
 * (pg/pg_migrate.h).
 */
#ifndef QK_STORE_PG_H
#define QK_STORE_PG_H

#include <stdbool.h>

#include "store/store_core.h"

/* Whether path names a PostgreSQL database: a libpq URI
 * ("postgresql://..." or "postgres://..."). Anything else is a SQLite
 * file path. */
bool store_pg_is_url(const char *path);

/* Connect to url (blocking: at start-up, before the loop runs), migrate
 * the schema, prepare every statement and LISTEN on the event channel
 * (store_pg_listen()). On success *out owns the store (store_close());
 * on failure *out is NULL and STORE_EIO is returned (logged, the password
 * left out), including a database whose schema is newer than this binary
 * knows. store_open() calls this. */
int store_pg_open(const char *url, store **out);

/* Events between nodes (docs/scale.md "Events across nodes"): cb(arg,
 * payload) runs on the loop thread for every NOTIFY on the channel
 * STORE_PG_CHANNEL by any node, this one included, after the sending
 * transaction committed, in commit order. payload is valid during the call
 * only. Returns STORE_OK, or STORE_EIO when s is not a PostgreSQL store. */
#define STORE_PG_CHANNEL "qirkat_events"
int store_pg_listen(store *s, void (*cb)(void *arg, const char *payload), void *arg);

/* Queue NOTIFY STORE_PG_CHANNEL, payload inside the open transaction (or
 * on its own when none is open): delivered to every listening node when
 * that transaction commits, never when it is rolled back. payload: at
 * most 7999 bytes (PostgreSQL's limit). STORE_OK or STORE_EIO. */
int store_pg_notify(store *s, const char *payload);

/* Whether s is a PostgreSQL store. */
bool store_is_pg(const store *s);

/* Whether this node is the only one writing the database now (the
 * cluster layer says so while it hears of no other node, api/cluster.h
 * "Alone"). Then a move's write (store_move_played) is sent without
 * waiting for its answer, so the moves of a loop turn go out in one
 * pipeline instead of one round trip each. Its ply guard still holds: a
 * move it refuses (only a write behind this node's back can make it)
 * fails the statement and so the whole transaction, whose COMMIT then
 * fails: nothing of that batch is acknowledged, and the server exits 75 to
 * start again from the database (srv.c on_durable), instead of answering
 * that one move STORE_CONFLICT. The same goes for the other writes whose
 * outcome the node's memory decides while alone (pg/pg_base.h
 * pg_alone_in_batch(): a game's insert, claim, update and extra columns,
 * a challenge's insert and close, a notice's insert, store_move_insert()),
 * and inserts take their ids ahead (pg_next_id()). Off by default; no-op
 * on SQLite. */
void store_pg_exclusive(store *s, bool on);

/* Tell the server when the connection breaks (pg/pg_core.c "Lost
 * connection"): cb(arg) runs once on the loop thread. */
void store_pg_on_lost(store *s, void (*cb)(void *arg), void *arg);

/* On: a migration that needs every older node stopped (pg/pg_migrate.h
 * "Stopping nodes") is applied by every later store_pg_open() of this
 * process even while other sessions are connected, until turned off; the
 * operator's override (QK_PG_MIGRATE_PAST_SESSIONS=1, docs/scale.md
 * "Upgrading the nodes"). Process-wide, off by default. */
void store_pg_migrate_past_sessions(bool on);

#endif
