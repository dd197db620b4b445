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
 * External pairing. A Swiss tournament created with pairer "external" is
 * paired by the program of qirkatd --pairing-program (gsvc.pairing_program;
 * bbpPairings' command line `PROGRAM --dutch IN -p OUT`, pairing.h
 * pairing_external) instead of the built-in pairer, for every round. The
 * program never runs on the loop thread: the round's input (the TRF-16
 * file's content and the Swiss view) is copied into a job for the
 * server's pairing pool (gsvc.pairing_pool, util/workers.h), where the
 * program runs with a timeout (gsvc.pairing_timeout_ms, default
 * TOURNEY_PAIRING_TIMEOUT_MS). Nothing is written meanwhile. When it
 * returns, on the loop thread, the tournament is loaded again and the
 * pairing is written only if the tournament is still in the state it
 * was sent in: the same status (open for tourney_start, running for
 * tourney_pair), the same current round, still unpaired and finished,
 * and the same TRF text without ratings (players, withdrawals, every
 * result, forbidden pairs); otherwise CONFLICT and nothing changes. The
 * program's pairing is then checked like one of ours (pairing.h
 * pairing_check: every active player exactly once, no rematch, no
 * forbidden pair, at most one bye, and only where allowed); a failed run
 * (cannot start, exit status not 0, timed out, unreadable output) or an
 * invalid pairing answers INTERNAL with a message saying so and changes
 * nothing: a broken program never ends a tournament. The program's
 * "no valid pairing" (exit status 1) ends it only when the built-in
 * pairer, run on the same input on the pool, finds none either. One
 * pairing per tournament is on the pool at a time (gsvc.pairing_jobs): a
 * second tourney_start or tourney_pair meanwhile is CONFLICT, which with
 * the re-check keeps "one round, one set of games". Rounds paired
 * automatically (start_mode auto, from tourney_game_over) go the same
 * way without a requester: their failures are logged and the organiser
 * pairs the round with tourney_pair.
 *
 * Notices. Each new round stores a tournament_round notification for each
 * of its players who is not withdrawn, and the end a tournament_end
 * notification for every player (notify.h), beside the events: a player
 * who was offline finds them in `notifications`.
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

/* How long one run of the external pairing program may take by default
 * (then it is killed and the pairing fails). */
#define TOURNEY_PAIRING_TIMEOUT_MS 10000

/* A pairing on the pool (tourney.c; gsvc.pairing_jobs). */
typedef struct tourney_job tourney_job;

/* Where the outcome of an external pairing goes: fn(arg, tid, e, why) on
 * the loop thread, exactly once, after the pairing was written (e ==
 * QK_ERR_NONE: the round is paired, or the tournament ended because no
 * valid pairing exists) or refused (e: CONFLICT, INTERNAL, NOT_FOUND,
 * SERVER_SHUTDOWN; nothing was changed). why: a message or NULL, valid
 * during the call only. */
typedef struct tourney_done {
    void (*fn)(void *arg, int64_t tid, qk_err e, const char *why);
    void *arg;
} tourney_done;

/* Insert t (validated by the caller: name, system, variant, time control
 * text, position, rounds >= 1 for swiss, start_mode, pairer: "external"
 * only for a Swiss tournament on a server with a pairing program); status
 * "open", organiser = organiser_id. *id the new id. QK_ERR_NONE or
 * QK_ERR_INTERNAL. */
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
 * open, under 2 players, a pairing already on the pool). With the
 * external pairer (see "External pairing"): QK_ERR_NONE with *pending =
 * true when the program was started; nothing is written now and
 * done->fn reports the outcome later (done must not be NULL then; *why
 * is NULL). Otherwise *pending is false (pending may be NULL for a
 * built-in tournament) and the return value is the outcome. An
 * external tournament on a server without a program: CONFLICT. */
qk_err tourney_start(gsvc *s, int64_t tid, int64_t actor, const char **why,
                     const tourney_done *done, bool *pending);
/* The organiser pairs the next round. FORBIDDEN, CONFLICT (not running,
 * the current round unfinished, a pairing already on the pool). When no
 * valid pairing exists the tournament ends with that reason (QK_ERR_NONE:
 * that is its outcome). External pairer: as tourney_start. */
qk_err tourney_pair(gsvc *s, int64_t tid, int64_t actor, const char **why,
                    const tourney_done *done, bool *pending);
/* The organiser sets game_id's result ("white", "black", "draw") by hand;
 * a game still running ends with it (reason resign, or agreement for a
 * draw). NOT_FOUND (the game is not in tid), FORBIDDEN, BAD_REQUEST
 * (result word), CONFLICT (finished tournament). */
qk_err tourney_result(gsvc *s, int64_t tid, int64_t actor, int64_t game_id, const char *result,
                      const char **why);

/* End tid early (an administrator's abort_tournament): status finished,
 * end_reason = reason (1..STORE_TREASON_MAX bytes, copied), the players'
 * tournament_end notices and the tournament_end event with that reason,
 * as when no valid Swiss pairing exists. Games still running go on as
 * ordinary games; their ends still give their pairings a result (the
 * standings move) but pair nothing. NOT_FOUND; CONFLICT (already
 * finished). */
qk_err tourney_abort(gsvc *s, int64_t tid, const char *reason, const char **why);
/* The organiser forbids a and b (user ids, both players) to meet (Swiss:
 * siblings; a round robin pairs by its table and ignores them).
 * FORBIDDEN, NOT_FOUND (not players), BAD_REQUEST (a == b), CONFLICT
 * (already forbidden, finished). */
qk_err tourney_forbid(gsvc *s, int64_t tid, int64_t actor, int64_t a, int64_t b, const char **why);

/* The tournament object of PROTOCOL.md (caller owns): NULL and *err
 * (NOT_FOUND or INTERNAL) on failure. */
cJSON *tourney_json(gsvc *s, int64_t tid, qk_err *err);
/* The tournaments of status (NULL = all) that viewer may see
 * (tourney_sees()), newest first, at most limit, as an array of objects
 * without rounds and standings: the ones viewer may not see are skipped,
 * not counted. NULL on failure. */
cJSON *tourney_list(gsvc *s, const char *status, int64_t limit, int64_t viewer);
/* The standings as CSV (standings.h standings_csv); *out malloc()ed, the
 * caller frees. QK_ERR_NONE, NOT_FOUND or INTERNAL. */
qk_err tourney_csv(gsvc *s, int64_t tid, char **out);

/* May viewer (a user id) see tid: its object, its standings and all of
 * its games (`tournament`, `tournament_standings`, `export` with a
 * `tournament` filter; docs/protocol.md "Classes and tournaments")? Its
 * organiser, anyone for an open tournament (no class), and for a
 * class-only one the class's teacher, its members and the tournament's
 * players. QK_ERR_NONE; NOT_FOUND (no such tournament) or FORBIDDEN
 * ("this tournament is for its class only"), with a static *why;
 * INTERNAL (store failure, *why NULL). Reads only (tourney_watch.c). */
qk_err tourney_may_see(gsvc *s, int64_t tid, int64_t viewer, const char **why);
/* The same rule on a row already read: *yes whether viewer may see t.
 * QK_ERR_NONE, or INTERNAL on a store failure. */
qk_err tourney_sees(gsvc *s, const store_tourney *t, int64_t viewer, bool *yes);

/* May viewer (a user id) see the game g: the rule of every read of one
 * game (`game`, `subscribe`, `export` of one game, a subscription kept
 * across a new login; docs/protocol.md "Who sees a tournament")? Its two
 * players always. Anyone else: not a private game ("the game is private:
 * only its players may watch it"), nor a game of a class-only tournament
 * they may not see (tourney_sees(): its organiser, the class's teacher
 * and members, the tournament's players; "this game is for its
 * tournament's class only"); any other game, yes. The listings apply the
 * same rule in SQL (store.h store_game_filter.viewer_id): change both.
 * QK_ERR_NONE; FORBIDDEN with a static *why; INTERNAL on a store failure
 * (*why NULL). Reads only (tourney_watch.c). */
qk_err tourney_game_may_see(gsvc *s, const struct game *g, int64_t viewer, const char **why);

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
