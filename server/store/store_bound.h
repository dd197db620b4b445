/*
 * store_bound: the store functions of issue 9 (hostile load and faults),
 * entries of store_ops (store.h) like every store function: the journal's
 * size, the idle checkpoint, the pruning of old rows, one unread
 * notification per game and kind, the paged lobby, the draw-offer
 * throttle, and the mark on a game that no longer loads.
 *
 * Why apart from store.h: these rows are bookkeeping of the server's own
 * limits, not game data; keeping them in one header shows in one place
 * everything that keeps a database bounded. Results as in store.h ("Results"):
 * 0 or a negative STORE_E* code, STORE_BUSY included.
 */
#ifndef QK_STORE_BOUND_H
#define QK_STORE_BOUND_H

#include <stdbool.h>
#include <stdint.h>

#include "store/store.h"

#define STORE_JOURNAL_LIMIT (64LL * 1024 * 1024) /* bytes the journal is cut to */
#define STORE_PRUNE_BATCH 1000                   /* rows of one kind per store_prune() */

/* What store_prune() deletes: rows older than each time (UTC ms; <= 0 =
 * that kind is kept). */
typedef struct store_prune_spec {
    int64_t notes_read_before;        /* read notifications created before */
    int64_t challenges_closed_before; /* accepted/declined/canceled, last changed before */
    int64_t tokens_used_before;       /* tokens last used before (expired) */
} store_prune_spec;

/* The size (bytes, > 0) the journal (SQLite: the -wal file) is cut back to
 * whenever a checkpoint resets it (SQLite: PRAGMA journal_size_limit).
 * store_open() sets STORE_JOURNAL_LIMIT; tests set less. 0 or STORE_EIO. */
int store_journal_limit(store *s, int64_t bytes);
/* Copy the journal into the database and truncate it to 0 bytes (SQLite:
 * wal_checkpoint(TRUNCATE)); call it only with no transaction open.
 * Never waits: STORE_BUSY when a reader or writer (another process)
 * keeps it from completing; 0 or STORE_EIO. */
int store_checkpoint(store *s);
/* Delete, inside the open transaction, at most STORE_PRUNE_BATCH rows of
 * each kind p names (store_prune_spec); *rows receives how many went. A
 * caller repeats it (next sweep) while *rows is STORE_PRUNE_BATCH or more. */
int store_prune(store *s, const store_prune_spec *p, int64_t *rows);
/* Delete user's unread notifications of kind (copied) about game_id (> 0)
 * before a newer one of the same kind replaces them. Absent is not an
 * error. */
int store_notes_drop_unread(store *s, int64_t user_id, const char *kind, int64_t game_id);
/* Delete, inside the open transaction, user's unread notifications of kind
 * from sender_id (> 0) but the newest keep (>= 0): called before a new one
 * is inserted, with keep one less than the bound (issue 21). */
int store_notes_cap_sender(store *s, int64_t user_id, const char *kind, int64_t sender_id,
                           int64_t keep);
/* user's unread notifications of kind about ref_id (a challenge id): drop
 * deletes them (the challenge was withdrawn or lapsed), else they are
 * marked read (it was answered). Absent is not an error. */
int store_notes_settle(store *s, int64_t user_id, const char *kind, int64_t ref_id, bool drop);
/* How many challenges user_id made (any status, open seeks and rematches
 * included) created at or after since (UTC ms), into *n, and the creation
 * time of the oldest of them into *oldest (0 when none): the per-account
 * challenge rate (api/ops_challenge.c). Pruned rows (store_prune) are not
 * counted, so the window must be far shorter than the sweep's age. */
int store_challenges_since(store *s, int64_t user_id, int64_t since, int64_t *n, int64_t *oldest);
/* cb for the open seeks by users other than user_id with ids above after
 * (0: from the start), oldest first, at most limit (> 0). Return and
 * re-entrancy rules as store_challenges_for(). */
int store_seeks_page(store *s, int64_t user_id, int64_t after, int64_t limit, store_challenge_cb cb,
                     void *arg);
/* The game's ply when side ("white", "black") last offered a draw:
 * STORE_NOTFOUND when it never did. put replaces it. */
int store_draw_ply_get(store *s, int64_t game_id, const char *side, int64_t *ply);
int store_draw_ply_put(store *s, int64_t game_id, const char *side, int64_t ply);
/* Whether game_id is marked damaged (its moves do not replay):
 * STORE_NOTFOUND when there is no such game. set marks it (inside the
 * open transaction); absent is not an error. */
int store_game_damaged_get(store *s, int64_t game_id, bool *damaged);
int store_game_damaged_set(store *s, int64_t game_id);

#endif
