/*
 * records: games as PDN records (../shared/PROTOCOL.md "Records") and
 * records as games: the game layer's half of the `export` and `import`
 * ops (api/ops_records.c).
 *
 * Design. A record is built from the game as the rules replayed it (games.h
 * loads every game by replaying its moves), plus the per-move clocks of
 * live games (store_move_clocks_each(); moves stored before migration 9
 * have none and export without clock comments). Export works one game at a
 * time, so the caller decides how many records a page holds and memory
 * stays bounded by the page, not by the number of games.
 *
 * Import trusts nothing but the rules: the caller hands records that
 * qk_pdn_read() has parsed and validated ply by ply, and records_import()
 * stores each as a game that is marked imported (store_records.h
 * store_game_mark_imported(); SQLite migration 9): its players are the
 * record's names as text, its ids the importer's (the importer's archive),
 * it is never active (a finished record is `finished`, a `*` record
 * `aborted` without a result) and never rated, so nothing that reads
 * played games (ratings, standings, active games at login) sees it.
 */
#ifndef QK_RECORDS_H
#define QK_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "game/games.h"
#include "qk_pdn.h"

/* The PDN TimeControl words of t: "-" (unlimited), "corr:DAYS",
 * "INITIAL+INCREMENT" (seconds, the PGN form). buf of n >= 32 bytes. */
void records_tc_text(const tc *t, char *buf, size_t n);
/* The reverse of records_tc_text() for an imported record's TimeControl
 * (NULL, "-", "?" or any other text is unlimited: the text then is not
 * kept). Never fails. */
void records_tc_parse(const char *text, tc *out);

/* Fill *rec (qk_pdn_init() is called here; the caller qk_pdn_free()s it in
 * every case) with g's record: Event (a tournament game: the tournament's
 * name, control characters made spaces; else "Qirkat rated game" /
 * "Qirkat casual game"; unknown for an imported game), Site "Qirkat"
 * (unknown for an imported game), Date (the game's creation day, UTC),
 * Round (a tournament game: its round number, "3"; else "-", the PGN
 * convention outside tournaments), White, Black, Result ("*" while active
 * or aborted), Variant, FEN (only when the start is not the variant's),
 * TimeControl (records_tc_text()), Termination (the reason word, when the
 * game has one), the moves and, for live games, each move's clock. Reads
 * the store for the clocks and a tournament game's tournament row. 0, or
 * -1 (allocation or store failure, logged). */
int records_of_game(gsvc *s, const game *g, qk_pdn_record *rec);

/* g as PDN text: *out malloc'd (caller frees), *len its length. 0 or -1. */
int records_pdn(gsvc *s, const game *g, char **out, size_t *len);

/* Why a record cannot be imported although qk_pdn_read() accepted it: a
 * White or Black name longer than STORE_NAME_MAX bytes. Returns NULL when
 * it can be, else a static message. */
const char *records_refuse(const qk_pdn_record *rec);

/* Store recs[0..n) (each validated by qk_pdn_read() and not refused by
 * records_refuse()) as imported games of importer (a user id), in order;
 * ids[i] receives game i's id (the caller's array of n). The caller has
 * called svc_write_begin(); on a store error the batch is poisoned
 * (svc_poison) and STORE_EIO returned: nothing of the import is kept,
 * since the whole batch is lost. */
int records_import(gsvc *s, int64_t importer, const qk_pdn_record *recs, size_t n, int64_t *ids);

#endif
