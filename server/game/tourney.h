/*
 * tourney: tournaments (PROTOCOL.md "Classes and tournaments"; issue 13):
 * players, rounds paired by pairing.h (round robin by the Berger tables,
 * Swiss by the C.04.1 pairer), the games of a round, results, standings
 * by standings.h.
 *
 * Design. A tournament is its store rows (store_tourney.h), read whole
 * for every operation (a classroom tournament has tens of players, a few
 * hundred pairings): nothing is cached, so a lost batch leaves no stale
 * memory. Every function that writes validates first, then calls
 * svc_write_begin(); a store failure poisons the batch.
 *
 * Rounds. Pairing round r writes one pairing row per board, keyed by
 * (tournament, round, board), and starts each board's game at once; a
 * second pairing of r is refused before any write (current_round and the
 * "round unfinished" check), and the key makes it impossible in the
 * store. A pairing's kind is `game`, `forfeit` (no play: a withdrawn
 * player; result "" = both lose) or `bye` (one point, black 0). A game's
 * end reaches its pairing through tourney_game_over() (the service's
 * game_over_hook); when the current round's last result comes in, a
 * tournament in `auto` start mode pairs the next round, and after the
 * last round (or when the Swiss pairer finds no valid pairing) it ends
 * with its standings (`tournament_end`).
 *
 * Round robin: the players in pairing-number order are Berger numbers 1..n
 * (players who left before the start are gone, so there are no holes);
 * nobody joins once it runs. Swiss: late joins get the rounds they missed
 * as unplayed (no points). Errors: the qk_err of docs/protocol.md and a
 * static message in *why.
 */
#ifndef QK_TOURNEY_H
#define QK_TOURNEY_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "game/svc.h"
#include "qk_proto.h"
#include "store/store.h"

struct game;

/* Insert t (validated by the caller: name, system, variant, time control
 * text, position, rounds >= 1 for swiss, start_mode); status "open",
 * organiser = organiser_id. *id the new id. QK_ERR_NONE or QK_ERR_INTERNAL. */
qk_err tourney_create(gsvc *s, store_tourney *t, int64_t *id);

/* user_id joins tid (by actor: itself, or the organiser adding someone).
 * NOT_FOUND; CONFLICT (finished, a running round robin, already in);
 * FORBIDDEN (class-only and not a member, a bot where bots are not
 * allowed, actor neither the user nor the organiser). */
qk_err tourney_join(gsvc *s, int64_t tid, int64_t actor, int64_t user_id, const char **why);
/* user_id leaves tid (actor: itself or the organiser). Before the start
 * the row is removed; later the player is marked withdrawn, their
 * unfinished games are lost by forfeit and they are not paired again.
 * NOT_FOUND (no tournament, not a player), FORBIDDEN, CONFLICT (already
 * withdrawn, finished). */
qk_err tourney_withdraw(gsvc *s, int64_t tid, int64_t actor, int64_t user_id, const char **why);
/* The organiser starts tid and pairs round 1. FORBIDDEN, CONFLICT (not
 * open, under 2 players). */
qk_err tourney_start(gsvc *s, int64_t tid, int64_t actor, const char **why);
/* The organiser pairs the next round. FORBIDDEN, CONFLICT (not running,
 * the current round unfinished). When no valid pairing exists the
 * tournament ends with that reason (QK_ERR_NONE: that is its outcome). */
qk_err tourney_pair(gsvc *s, int64_t tid, int64_t actor, const char **why);
/* The organiser sets game_id's result ("white", "black", "draw") by hand;
 * a game still running ends with it (reason resign, or agreement for a
 * draw). NOT_FOUND (the game is not in tid), FORBIDDEN, BAD_REQUEST
 * (result word), CONFLICT (finished tournament). */
qk_err tourney_result(gsvc *s, int64_t tid, int64_t actor, int64_t game_id, const char *result,
                      const char **why);

/* The organiser forbids a and b (user ids, both players) to meet (Swiss:
 * siblings; a round robin pairs by its table and ignores them).
 * FORBIDDEN, NOT_FOUND (not players), BAD_REQUEST (a == b), CONFLICT
 * (already forbidden, finished). */
qk_err tourney_forbid(gsvc *s, int64_t tid, int64_t actor, int64_t a, int64_t b, const char **why);

/* The tournament object of PROTOCOL.md (caller owns): NULL and *err
 * (NOT_FOUND or INTERNAL) on failure. */
cJSON *tourney_json(gsvc *s, int64_t tid, qk_err *err);
/* The tournaments of status (NULL = all), newest first, at most limit, as
 * an array of objects without rounds and standings. NULL on failure. */
cJSON *tourney_list(gsvc *s, const char *status, int64_t limit);
/* The standings as CSV (standings.h standings_csv); *out malloc()ed, the
 * caller frees. QK_ERR_NONE, NOT_FOUND or INTERNAL. */
qk_err tourney_csv(gsvc *s, int64_t tid, char **out);

/* May viewer (a user id) see the games of tid as a tournament's, all of
 * them (`export` with a `tournament` filter; docs/protocol.md)? Its
 * organiser, anyone for an open tournament (no class), and for a
 * class-only one the class's teacher, its members and the tournament's
 * players. QK_ERR_NONE; NOT_FOUND (no such tournament) or FORBIDDEN, with
 * a static *why; INTERNAL (store failure, *why NULL). Reads only
 * (tourney_watch.c). */
qk_err tourney_may_see(gsvc *s, int64_t tid, int64_t viewer, const char **why);

/* Queue the `tournament_result` event to organiser_id's connections: the
 * game g of pairing p (its row as just written) has ended. Fields:
 * tournament, round, game (ids), white, black (usernames), result (p's:
 * white, black, draw, or null for a double forfeit), reason (g's end),
 * kind (p's: game or forfeit), by_hand. Best effort, as every event
 * (events.h). Called by tourney_game_over() (tourney_watch.c). */
void tourney_send_result(gsvc *s, int64_t organiser_id, const store_pairing *p,
                         const struct game *g);

/* gsvc.game_over_hook: g just ended (written). A tournament game's
 * pairing takes the result (unless set by hand), and the round's end may
 * pair the next round or end the tournament. Best effort on the batch:
 * store failures poison it. */
void tourney_game_over(gsvc *s, const struct game *g);

/* A player's rating for pairing, for the tournament's variant: today a
 * fixed 1500 (see tourney.c). */
int tourney_rating(gsvc *s, int64_t user_id, const char *variant);

#endif
