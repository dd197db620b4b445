/*
 * games: the authoritative in-memory state of games, over the store.
 *
 * Design. A game is loaded lazily by id: its row is read and its moves
 * are replayed from `start` with the rules module (qk_move_parse +
 * qk_pos_make), so the rules, not a stored string, decide the position; a
 * stored move the rules refuse makes the game unloadable (logged,
 * `internal`). Loaded games live in a registry keyed by id. Active games
 * stay cached; finished ones are dropped by games_trim() at the end of
 * every loop iteration, so a `game *` is valid until the batch ends (the
 * server's flush).
 *
 * Every change (games_start, games_play, games_finish) first records the
 * game with games_touch(), changes memory, then writes the store inside
 * the iteration's transaction: if that transaction is lost the game is
 * forgotten and reloaded from the database (store_core.h "Group commit"). The
 * caller has called svc_write_begin(). On a store error the functions
 * poison the batch (svc_poison) and return STORE_EIO.
 *
 * Clocks. A correspondence game's deadline is the time of the last move
 * (or the start) plus days_per_move days. A live game keeps each side's
 * remaining time (clock_ms: white, black) as of the last move; elapsed
 * time is measured on the monotonic clock (svc_mono(), from turn_mono),
 * never on the wall clock, and its deadline (UTC ms, stored) is only the
 * wall-clock image of when the side to move runs out. As on Lichess, no
 * time runs before a side's first move: at ply 0 and 1 the side to move's
 * clock stands still and it has the first-move window instead
 * (games_first_move_ms(): 30 s, or a tenth of the initial time when that
 * is longer, at most 3 min); a side that lets it pass gets the game
 * aborted (status aborted, reason `aborted`), whoever asks first. From ply
 * 2 on the mover is charged the time since the last move. Every move,
 * the free first ones too, adds the increment, so 0+5 is playable: each
 * side starts its running clock with 5 s. A clock never goes below 0;
 * whoever loses on time shows 0.
 *
 * The flag is a rule, not a timer: games_due() says whether the side to
 * move is past its time now, and corr_check_time() (corr.h) ends such a
 * game; the deadline timer and every game-changing op call it first, so
 * the result does not depend on which comes first.
 */
#ifndef QK_GAMES_H
#define QK_GAMES_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "qk_rules.h"
#include "util/registry.h"
#include "game/svc.h"
#include "store/store.h"
#include "store/store_corr.h"
#include "game/tc.h"

/* deadline_soon goes out this long before a correspondence deadline. */
#define GAMES_WARN_MS (24LL * 3600 * 1000)

typedef enum { GAME_ACTIVE, GAME_FINISHED, GAME_ABORTED } game_status;

/* One side's player. */
typedef struct game_player {
    int64_t id;                     /* user id */
    char name[STORE_NAME_MAX + 1];  /* username */
    bool bot;                       /* the account is a bot */
} game_player;

/* A game in memory: the service's own type, not a stored row. games.c
 * turns it into store rows (store_game, store_game_x) when it writes and
 * back when it loads, so the store's shapes can change without the game
 * service noticing. Owned by the games cache; see "valid until" above. */
typedef struct game {
    int64_t id;
    qk_variant v;
    game_player white, black;
    char start[QK_POS_STRLEN]; /* the start position string */
    qk_pos pos;                /* now; pos.side is the side to move */
    int64_t ply;               /* moves played */
    game_status status;
    qk_result result; /* QK_RESULT_NONE while active or aborted */
    qk_reason reason; /* QK_REASON_NONE while active */
    tc tc;
    bool rated;       /* rated game: the engine's hint is refused */
    int64_t deadline; /* UTC ms when the side to move runs out; -1 = none */
    int64_t clock_ms[2]; /* live: each side's time left at the last move (qk_side index); -1 else */
    int64_t turn_mono;   /* live: svc_mono() when the side to move's turn began (in memory only:
                          * at load it is rebuilt from updated and the wall clock) */
    int64_t created, updated; /* UTC ms */
    /* correspondence (docs/protocol.md) */
    int64_t extended_ms;     /* sum of every extension of this game's deadlines */
    bool vacation;           /* the game allows vacation: a player's vacation may move its
                              * deadlines (wire: vacation_allowed) */
    bool priv;               /* private: only the players may watch */
    int draw_offer;          /* side with a standing draw offer (qk_side), -1 = none */
    int64_t warned_deadline; /* deadline_soon was sent for this deadline; -1 none */
    int64_t wake_at;         /* when the deadline timer must look at it; -1 none */
    char **moves;            /* ply move texts, each malloc'd */
    size_t cap;
    /* The game object's text parts, kept so that a move's answer does not
     * rebuild what has not changed (docs/perf.md): the JSON array of
     * moves[0..moves_json_n), always complete when non-NULL, and the JSON
     * array of the legal moves at legal_ply (NULL = none kept). games.c
     * only. */
    char *moves_json;
    size_t moves_json_len, moves_json_cap;
    int64_t moves_json_n;
    char *legal_json;
    int64_t legal_ply;
    bool legal_truncated;
    int64_t last_mover; /* user id of the move at ply - 1, 0 if none */
    qk_move last_move;
    int64_t challenge_id; /* the challenge that made the game (games.challenge_id); 0 = none */
    int64_t tournament_id, round; /* 0, 0 outside tournaments (tourney.h) */
    bool imported; /* an imported record (game/records.h): never played, never active */
} game;

/* What a new game is made of (games_start). */
typedef struct game_spec {
    qk_variant v;
    game_player white, black;
    char start[QK_POS_STRLEN]; /* a valid, unfinished position of v */
    tc tc;
    bool rated, vacation, priv;
    int64_t challenge_id; /* the accepted challenge (0 = none): the game object's `challenge` */
    int64_t tournament_id, round; /* 0, 0 outside tournaments */
} game_spec;

typedef struct games games;

/* The service for s (uses s->store, s->batch and svc_now). 0, or -1 on allocation
 * failure. games_free(NULL) is a no-op. */
int games_new(gsvc *s, games **out);
void games_free(games *gs);

/* games_get(): the game's stored rows do not make a game (a stored move
 * the rules refuse, a bad row). The game is quarantined: logged once,
 * marked damaged in the store (store_games.h; the deadline timer skips
 * it) and never replayed again; callers report it for that game only
 * (api: `internal`, "game N is damaged"). Not a STORE_E* code. */
#define GAMES_EDAMAGED (-20)

/* games_play(): the store refused the move because the game's stored ply
 * is no longer the one the move was validated at: another node of the
 * same database played first (issue 22; store_games.h, STORE_CONFLICT of
 * the move's write). Nothing was written; the cached game is forgotten
 * (the caller's game * is no longer valid: load it again to answer with
 * the stored ply, as for a stale ply on one node). Not a STORE_E* code. */
#define GAMES_ESTALE (-21)

/* The game with this id: 0 and *out (see "valid until" above);
 * STORE_NOTFOUND; GAMES_EDAMAGED (quarantined, above); STORE_EIO or
 * STORE_BUSY (the store failed). */
int games_get(games *gs, int64_t id, game **out);
/* A game built from its stored row for a listing (issue 9, item 11):
 * the position is the row's, parsed, and the moves' texts are read with
 * store_moves_each(), never replayed through the rules, so listing long
 * finished games costs no rules work. For finished and aborted games,
 * whose rows the rules wrote last; the object games_json() makes of it is
 * the one of games_get()'s game. *out is not cached: the caller frees it
 * with games_release(). 0; GAMES_EDAMAGED (the row does not parse or its
 * moves do not match its ply); STORE_E*. */
int games_from_row(games *gs, const store_game *row, game **out);
void games_release(game *g);
/* Drop a cached game (reloaded on next use). */
void games_forget(games *gs, int64_t id);
/* Another node's move event (issue 22, docs/scale.md "Caches stay
 * right"): the move text played at ply, the position string after it
 * (RULES.md section 1), the deadline after it (-1: none) and the moment it
 * was made (UTC ms), applied to the cached game instead of reading it all
 * again. Applied only when the game is cached, active, at that ply,
 * without a live clock (its running clock is this node's), the move is
 * legal here, it does not end the game and it leads to that very
 * position: 0 then. 1: the game is not cached (nothing to refresh). -1:
 * not applied and nothing changed; the caller forgets the game. */
int games_apply_move(games *gs, int64_t id, int64_t ply, const char *move, const char *position,
                     int64_t deadline, int64_t at);
/* Game id is about to change in memory along with the batch's writes:
 * if the batch is lost it is forgotten (and reloaded from the database). */
void games_touch(games *gs, int64_t id);
/* Drop every cached game (all are reloaded on next use); the active games
 * are counted from the store again at the next games_trim(). */
void games_forget_all(games *gs);
/* The same without counting again: the counts are right, only what the
 * cache holds may be older than the database (another node's moves,
 * api/cluster.h "Presence"). */
void games_forget_cached(games *gs);
/* Drop every cached game that is not active. */
void games_trim(games *gs);

/* Active games, by time-control kind (the metric qirkat_games_active,
 * docs/operations.md "Monitoring"): every active game of the database
 * that is not quarantined, loaded in memory or not (games are loaded
 * lazily, so the cache alone would miss those nobody has touched since a
 * restart). games_count_active() counts them from the store (srv.c calls
 * it once at start, after the store is open); from then on games_start()
 * and every end of a game (games_play()'s last move, games_finish():
 * resignation, timeout, abort, agreement, adjudication) change the count
 * with the batch, an undo action putting it back if the batch is lost,
 * and a game quarantined at load leaves it. When a lost batch could not
 * record its undo actions (games_forget_all()), the next games_trim()
 * counts from the store again. 0, or a STORE_E* code (the count is then
 * unchanged and counted again at the next games_trim()). */
int games_count_active(games *gs);
/* The count of active games of kind k (0 for a value that is not a
 * tc_kind), >= 0. */
int64_t games_active(const games *gs, tc_kind k);

/* Create a game from spec: ply 0, clocks, deadline and times are filled
 * in, the rows inserted and the game cached. 0 and *out, or STORE_EIO
 * (batch poisoned; also when spec->start does not parse). */
int games_start(games *gs, const game_spec *spec, game **out);

/* Play m (a legal move of g's side to move, by user_id) at g->ply:
 * insert the move, advance the position, apply clocks ("Clocks": the
 * caller has made sure with corr_check_time() that the mover is not out
 * of time), end the game when qk_pos_status() says so, update the row. 0,
 * GAMES_ESTALE (another node played at that ply first; g is gone) or
 * STORE_EIO. */
int games_play(games *gs, game *g, const qk_move *m, int64_t user_id);

/* End an active game from outside the rules (resign, timeout, ...). A
 * live game's running clock stops at what it shows now (0 for a
 * timeout). 0, GAMES_ESTALE (another node moved or ended it first, the
 * row's claim failed: nothing changed, g is gone; store_game_claim()) or
 * STORE_EIO. */
int games_finish(games *gs, game *g, qk_result result, qk_reason reason);

/* Write g's correspondence fields after a change to them (draw_offer,
 * vacation, priv, warned_deadline), first recomputing wake_at from the
 * deadline (24 h earlier for a correspondence deadline not yet warned of;
 * -1 when the game is over or has no deadline), and tell the deadline
 * timer (svc.wake_dirty). 0 or STORE_EIO (batch poisoned). */
int games_put_x(games *gs, game *g);

/* Move g's running deadline to deadline (later than the current one):
 * the difference is added to extended_ms and logged in game_extensions
 * with kind ("vacation", "downtime"); the game is written. 0 or
 * STORE_EIO (batch poisoned). */
int games_extend(games *gs, game *g, int64_t deadline, const char *kind);

/* Time left at now (UTC ms) for the side to move, ms >= 0, until its
 * deadline: a live game's running clock (monotonic, games.h "Clocks"), or
 * what is left of the first-move window at ply 0 and 1; -1 without a
 * deadline or when g is not active. */
int64_t games_time_left(games *gs, const game *g, int64_t now);

/* A live game's clock of side now, ms >= 0: the side to move's counts down
 * from the last move once it runs (ply >= 2), the other stands; -1 for a
 * game that is not live. */
int64_t games_clock(games *gs, const game *g, qk_side side);

/* Whether g is active and its side to move is out of time at now (UTC ms):
 * a live game by the monotonic clock (the running clock at 0, or the
 * first-move window over), a correspondence game when its deadline is
 * reached. Ending it is corr_check_time()'s (corr.h). */
bool games_due(games *gs, const game *g, int64_t now);

/* The first-move window of a live time control, ms (see "Clocks"). */
int64_t games_first_move_ms(const tc *t);

/* A live game's stored deadline drifted from the monotonic clock (the
 * wall clock jumped): set it again to now plus the time left and write
 * the game. 0 or STORE_EIO (batch poisoned). No-op for other games. */
int games_refresh_deadline(games *gs, game *g);

/* The legal moves of g's side to move, sorted by text, in a buffer owned by
 * gs (valid until the next games_* call). Returns the count, 0 for a game
 * that is not active. When the position has more than QK_MAX_MOVES (only
 * a contrived position can; `challenge` refuses such a start), the count
 * is QK_MAX_MOVES, the list holds that many of them in the generator's
 * order (not sorted), and *truncated (may be NULL) is set true; else
 * false. Moves are played by text (qk_move_parse), which needs no list. */
int games_legal(games *gs, const game *g, const qk_move **out, bool *truncated);

/* Whether p (a position of v) has more legal moves than QK_MAX_MOVES, so
 * a game from it could not list them. Uses gs's move buffer. */
bool games_too_many_moves(games *gs, const qk_variant *v, const qk_pos *p);

/* The side to move's user id. */
int64_t games_turn_user(const game *g);
/* The player of side (QK_WHITE, QK_BLACK). */
const game_player *games_player(const game *g, qk_side side);
/* The side user_id plays in g: QK_WHITE, QK_BLACK, or -1 (not a player). */
int games_side_of(const game *g, int64_t user_id);
/* PROTOCOL.md words: "active", "finished", "aborted"; "white", "black". */
const char *games_status_name(game_status st);
const char *games_side_name(qk_side side);
/* g's position string into buf (QK_POS_STRLEN). 0 or -1. */
int games_position(const game *g, char buf[QK_POS_STRLEN]);

/* Add "clock": {"white": ms, "black": ms} (games_clock now) to o for a
 * live game; nothing for others. false on allocation failure. */
bool games_add_clock(games *gs, const game *g, cJSON *o);

/* Add to o "legal_moves": the legal moves of g's side to move as texts
 * (games_legal(): sorted, [] once the game is over), and
 * "legal_moves_truncated": true when there are more than QK_MAX_MOVES.
 * Used by the game object and the `move` event. 0, or -1 on allocation
 * failure (o may then hold a partial list: the caller drops o). */
int games_add_legal(games *gs, const game *g, cJSON *o);

/* The game object of PROTOCOL.md and docs/protocol.md "Game" (caller
 * owns it): clocks as of now (games_clock), draw_offer, vacation_allowed,
 * vacation {"white": bool, "black": bool} (each player on vacation now:
 * reads the store) and challenge; legal_moves included when with_legal.
 * NULL on allocation or store failure. */
cJSON *games_json(games *gs, const game *g, bool with_legal);
/* games_json() with the players' vacations already known to the caller,
 * read with something else moments before in the same request (the
 * accept reads them with its challenge): vacation_until[QK_WHITE] and
 * [QK_BLACK] as store_challenge's from/to_vacation_until (UTC ms, -1 when
 * not on vacation). Why: on PostgreSQL each read is a round trip during
 * which no other request of the node runs (util/task.h). */
cJSON *games_json_vacations(games *gs, const game *g, bool with_legal,
                            const int64_t vacation_until[2]);

#endif
