/*
 * tools: the operator's commands of qirkatd that work on a database
 * without serving it (docs/operations.md):
 *
 *   qirkatd backup --db FILE OUT   a consistent copy while a server runs
 *                                  on FILE (store/offline.h); OUT must
 *                                  not exist. Prints pages, bytes and how
 *                                  long the snapshot was held.
 *   qirkatd check --db FILE        PRAGMA integrity_check and
 *                                  foreign_key_check, then every stored
 *                                  game replayed through the rules
 *                                  (common/qk_rules.h): each move legal at
 *                                  its ply, the stored ply count and
 *                                  position those of the replay, and a
 *                                  game the rules ended (no_moves,
 *                                  no_pieces, move_limit, sultan_majority)
 *                                  ended so by the rules with its stored
 *                                  result. One line per problem, then a
 *                                  summary.
 *   qirkatd admin grant NAME --db FILE   make the account NAME an
 *   qirkatd admin revoke NAME --db FILE  administrator, or no longer one
 *                                  (the only way: never a request); one
 *                                  transaction with its audit row, beside
 *                                  a running server (store/offline.h).
 *   qirkatd admin log [--limit N] --db FILE  the audit, newest first
 *                                  (default 50 rows): id, time (UTC),
 *                                  who, action, target, reason.
 *   qirkatd migrate --from FILE.db --db postgresql://...  copy a SQLite
 *                                  database into an empty PostgreSQL one
 *                                  (store/migrate.h): one line per table
 *                                  with both row counts, then every game
 *                                  of the copy replayed as check does; a
 *                                  target with any row is refused ("not
 *                                  empty"), nothing written.
 *
 * Exit status: 0 done (check: nothing found; migrate: copied, the counts
 * equal and every game replays), 1 a problem found or the command
 * failed, 2 bad arguments.
 */
#ifndef QK_TOOLS_H
#define QK_TOOLS_H

#include <stdbool.h>

/* Whether argv[1] of qirkatd names one of these commands. */
bool tools_is_command(const char *name);

/* Run the command argv[0] with its arguments (argc counts argv[0]);
 * returns the exit status. */
int tools_main(int argc, char **argv);

#endif
