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
 * forgotten and reloaded from the database (store.h "Group commit"). The
 * caller has called svc_write_begin(). On a store error the functions
 * poison the batch (svc_poison) and return STORE_EIO.
 *
 * Clocks. A correspondence game's deadline is the time of the last move
 * (or the start) plus days_per_move days. A live game keeps each side's
 * remaining time (white_ms, black_ms) as of the last move, charges the
 * mover the time since then and adds the increment; its deadline is when
 * the side to move runs out. corr.h's deadline timer enforces both (the
 * game ends `timeout`); a clock never goes below 0.
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
    int64_t created, updated; /* UTC ms */
    /* correspondence (docs/protocol.md) */
    int64_t extended_ms;     /* sum of every extension of this game's deadlines */
    bool vacation;           /* a player's vacation may move its deadlines */
    bool priv;               /* private: only the players may watch */
    int draw_offer;          /* side with a standing draw offer (qk_side), -1 = none */
    int64_t warned_deadline; /* deadline_soon was sent for this deadline; -1 none */
    int64_t wake_at;         /* when the deadline timer must look at it; -1 none */
    char **moves;            /* ply move texts, each malloc'd */
    size_t cap;
    int64_t last_mover; /* user id of the move at ply - 1, 0 if none */
    qk_move last_move;
    bool imported; /* an imported record (game/records.h): never played, never active */
} game;

/* What a new game is made of (games_start). */
typedef struct game_spec {
    qk_variant v;
    game_player white, black;
    char start[QK_POS_STRLEN]; /* a valid, unfinished position of v */
    tc tc;
    bool rated, vacation, priv;
} game_spec;

typedef struct games games;

/* The service for s (uses s->store, s->batch and svc_now). 0, or -1 on allocation
 * failure. games_free(NULL) is a no-op. */
int games_new(gsvc *s, games **out);
void games_free(games *gs);

/* The game with this id: 0 and *out (see "valid until" above);
 * STORE_NOTFOUND; STORE_EIO (database error or unreplayable game). */
int games_get(games *gs, int64_t id, game **out);
/* Drop a cached game (reloaded on next use). */
void games_forget(games *gs, int64_t id);
/* Game id is about to change in memory along with the batch's writes:
 * if the batch is lost it is forgotten (and reloaded from the database). */
void games_touch(games *gs, int64_t id);
/* Drop every cached game (all are reloaded on next use). */
void games_forget_all(games *gs);
/* Drop every cached game that is not active. */
void games_trim(games *gs);

/* Create a game from spec: ply 0, clocks, deadline and times are filled
 * in, the rows inserted and the game cached. 0 and *out, or STORE_EIO
 * (batch poisoned; also when spec->start does not parse). */
int games_start(games *gs, const game_spec *spec, game **out);

/* Play m (a legal move of g's side to move, by user_id) at g->ply:
 * insert the move, advance the position, apply clocks, end the game when
 * qk_pos_status() says so, update the row. 0 or STORE_EIO. */
int games_play(games *gs, game *g, const qk_move *m, int64_t user_id);

/* End an active game from outside the rules (resign, ...). 0 or
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

/* Time left at now for the side to move (ms, >= 0), or -1 without a
 * deadline. */
int64_t games_time_left(const game *g, int64_t now);

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

/* The game object of PROTOCOL.md (caller owns it); legal_moves included
 * when with_legal. NULL on allocation failure. */
cJSON *games_json(games *gs, const game *g, bool with_legal);

#endif
