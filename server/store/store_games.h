/*
 * store_games: games and their moves (store_core.h for the store object,
 * results and the calling convention): the game row and its listing
 * filter (the games listing, export and search all read through
 * store_games_query()), the per-move write, the challenge a game came
 * from, the draw-offer throttle and the mark on a game whose moves no
 * longer replay. A game's correspondence columns are store_corr.h's, its
 * tournament's store_tourney.h's, its records' (clocks, imports)
 * store_records.h's.
 */
#ifndef QK_STORE_GAMES_H
#define QK_STORE_GAMES_H

#include "qk_rules.h"
#include "store/store_core.h"

typedef struct store_game {
    int64_t id;
    char variant[QK_VARIANT_NAMELEN];
    int64_t white_id, black_id;
    char white[STORE_NAME_MAX + 1], black[STORE_NAME_MAX + 1];
    char start[QK_POS_STRLEN];
    char position[QK_POS_STRLEN];
    int64_t ply;
    char turn[6];    /* white, black */
    char status[10]; /* active, finished, aborted */
    char result[6];  /* white, black, draw, "" = none */
    char reason[20]; /* PROTOCOL.md reason words, "" = none */
    char time_control[STORE_TC_MAX];
    int64_t deadline;           /* -1 = none */
    int64_t white_ms, black_ms; /* -1 = none */
    int64_t created, updated;
    bool white_bot, black_bot; /* the players' users.bot (read, never written) */
    bool rated;                /* rated game: the engine's hint is refused */
    /* Records (migration 9): an imported game's white/black above are the
     * record's names (imported_white/black), its ids the importer's. */
    bool imported;
    int64_t tournament; /* 0 = none */
} store_game;

/* Game listing filter; zero/NULL fields do not filter. */
typedef struct store_game_filter {
    int64_t user_id;      /* games where this user plays */
    const char *status;   /* active, finished, aborted */
    const char *variant;  /* canonical variant name */
    int64_t turn_user_id; /* active games where it is this user's turn */
    int64_t opponent_id;  /* games where this user plays too */
    int64_t before;       /* ids below this (paging) */
    int64_t limit;        /* rows; must be > 0 */
    /* Search filters (records, migration 9); zero does not filter. */
    const char *result;   /* white, black, draw */
    int64_t since, until; /* created within [since, until] (UTC ms; until 0 = none) */
    int64_t tournament;   /* games of this tournament */
    int imported;         /* 1: only imported games; -1: only played ones; 0: both */
    int64_t after;        /* ids above this (paging) */
    bool ascending;       /* oldest (lowest id) first instead of newest */
    /* Only the games this user may see (0 = every game): the rule of
     * game/tourney.h tourney_game_may_see(), in the query itself so that
     * LIMIT and paging count only the games shown. Those this user plays;
     * others' that are neither private nor of a class-only tournament
     * whose organiser, class teacher, class member or player this user is
     * not. */
    int64_t viewer_id;
} store_game_filter;

/* One move of a game that goes on after it (game/games.h games_play):
 * the move's row and all that the move changes in the game's row. The
 * strings are the caller's, read during the call only. */
typedef struct store_played {
    int64_t game_id;
    int64_t ply;          /* the ply the move is played at (0-based): the game's ply before it */
    const char *move;     /* RULES.md text */
    int64_t user_id;      /* the mover */
    int64_t created;      /* UTC ms */
    int64_t clock_ms;     /* the mover's time left after the move; -1 = no clock */
    const char *position; /* the game's position string after the move */
    const char *turn;     /* side to move after it: "white" or "black" */
    int64_t deadline;     /* -1 = none; likewise the three below */
    int64_t white_ms, black_ms;
    int64_t wake_at;
    bool times_changed; /* false: deadline, clocks and wake_at are as stored (an unlimited
                         * game): the four above are not written */
} store_played;

/* Iteration callbacks: return 0 to go on, non-zero to stop. */
typedef int (*store_game_cb)(void *arg, const store_game *g);
typedef int (*store_move_cb)(void *arg, int64_t ply, const char *move, int64_t user_id);
typedef int (*store_tc_count_cb)(void *arg, const char *time_control, int64_t n);

/* The area's table (store_x -> x, contracts below). */
typedef struct store_games_ops {
    int (*game_insert)(store *s, store_game *g);
    int (*game_get)(store *s, int64_t id, store_game *out);
    int (*game_update)(store *s, const store_game *g);
    int (*move_insert)(store *s, int64_t game_id, int64_t ply, const char *move, int64_t user_id,
                       int64_t now);
    int (*moves_each)(store *s, int64_t game_id, store_move_cb cb, void *arg);
    int (*games_query)(store *s, const store_game_filter *f, store_game_cb cb, void *arg);
    int (*move_played)(store *s, const store_played *p);
    int (*game_challenge_put)(store *s, int64_t game_id, int64_t challenge_id);
    int (*game_challenge_get)(store *s, int64_t game_id, int64_t *challenge_id);
    int (*draw_ply_get)(store *s, int64_t game_id, const char *side, int64_t *ply);
    int (*draw_ply_put)(store *s, int64_t game_id, const char *side, int64_t ply);
    int (*game_damaged_get)(store *s, int64_t game_id, bool *damaged);
    int (*game_damaged_set)(store *s, int64_t game_id);
    int (*game_claim)(store *s, int64_t game_id, int64_t ply);
    int (*games_active_count)(store *s, store_tc_count_cb cb, void *arg);
} store_games_ops;

/* On PostgreSQL, on a node alone inside a batch (store/pg.h
 * store_pg_exclusive()), store_game_claim(), store_game_update(),
 * store_move_insert(), store_game_x_put() and store_game_challenge_put()
 * answer STORE_OK without waiting: a STORE_CONFLICT or STORE_NOTFOUND they
 * would have answered fails the batch's COMMIT instead, and the node
 * starts again from the database. */

/* Claim game_id for a change that ends it (resign, timeout, agreement,
 * adjudication; games.h games_finish()), inside the open transaction:
 * STORE_OK when the stored game is still active at ply; STORE_CONFLICT
 * when it is not (another node of the same database moved or ended it
 * first: the caller changes nothing and reads the game again). On
 * PostgreSQL the row stays locked until the transaction ends (SELECT ...
 * FOR UPDATE), so of several nodes claiming one game at once (every node
 * sweeps every due deadline) the first ends it and the others then find
 * it ended: a timer fires once (issue 22). */
static inline int store_game_claim(store *s, int64_t game_id, int64_t ply)
{
    return s->games->game_claim(s, game_id, ply);
}

/* Insert g (all fields but id, white, black, white_bot, black_bot); fills
 * g->id. */
static inline int store_game_insert(store *s, store_game *g)
{
    return s->games->game_insert(s, g);
}
/* Read one game (with usernames) into *out. STORE_NOTFOUND when absent. */
static inline int store_game_get(store *s, int64_t id, store_game *out)
{
    return s->games->game_get(s, id, out);
}
/* Write g's mutable fields (position, ply, turn, status, result, reason,
 * deadline, clocks, updated). STORE_NOTFOUND when the row is absent. */
static inline int store_game_update(store *s, const store_game *g)
{
    return s->games->game_update(s, g);
}

/* Insert the move (text, copied) played at ply. STORE_CONFLICT when that
 * ply exists. */
static inline int store_move_insert(store *s, int64_t game_id, int64_t ply, const char *move,
                                    int64_t user_id, int64_t now)
{
    return s->games->move_insert(s, game_id, ply, move, user_id, now);
}
/* Call cb for each move of the game in ply order (move valid during the
 * call only); stop on non-zero (returned). cb must not call
 * store_moves_each() again. */
static inline int store_moves_each(store *s, int64_t game_id, store_move_cb cb, void *arg)
{
    return s->games->moves_each(s, game_id, cb, arg);
}

/* Call cb for matching games, newest (highest id) first; with
 * turn_user_id, soonest deadline first (games without one last, then by
 * id). Same return and re-entrancy rules as store_challenges_for(). */
static inline int store_games_query(store *s, const store_game_filter *f, store_game_cb cb,
                                    void *arg)
{
    return s->games->games_query(s, f, cb, arg);
}

/* Write a move that leaves its game active, in two statements (one on
 * PostgreSQL, pg_games.c): the move's row (with its clock) and one UPDATE
 * of only the game columns a move changes (ply, position, turn, deadline,
 * clocks, updated, wake_at; the standing draw offer cleared). It is the
 * per-move path: status, result, reason and the other correspondence
 * fields are left alone, so neither their CHECK constraints nor the
 * indexes on them are touched (docs/perf.md).
 * A move that ends the game is written with store_move_insert() and
 * store_game_update(). STORE_NOTFOUND (the game is absent) and
 * STORE_CONFLICT (the stored game is not at p->ply) write nothing;
 * STORE_CONFLICT after the game row was written (a row for that ply
 * exists already: only a store changed behind the server's back; on
 * PostgreSQL that is STORE_EIO, the statement failed whole) leaves a
 * transaction the caller must lose, as after any failed write.
 * On a database shared by several server processes (issue 22),
 * STORE_CONFLICT means that the stored ply was not the expected p->ply
 * (another node played first): nothing was written and the transaction
 * goes on. */
static inline int store_move_played(store *s, const store_played *p)
{
    return s->games->move_played(s, p);
}

/* ---- bots, second step (issue 15; SQLite: migration 5) ---------------- */

/* Record that game_id was made by challenge challenge_id (games.challenge_id).
 * STORE_NOTFOUND when the game is absent. */
static inline int store_game_challenge_put(store *s, int64_t game_id, int64_t challenge_id)
{
    return s->games->game_challenge_put(s, game_id, challenge_id);
}
/* The challenge that made game_id into *challenge_id, 0 when none (a game
 * not made by a challenge, or stored before migration 5 without one).
 * STORE_NOTFOUND when the game is absent. */
static inline int store_game_challenge_get(store *s, int64_t game_id, int64_t *challenge_id)
{
    return s->games->game_challenge_get(s, game_id, challenge_id);
}

/* ---- bounded (issue 9) ------------------------------------------------ */

/* The game's ply when side ("white", "black") last offered a draw:
 * STORE_NOTFOUND when it never did. put replaces it. */
static inline int store_draw_ply_get(store *s, int64_t game_id, const char *side, int64_t *ply)
{
    return s->games->draw_ply_get(s, game_id, side, ply);
}
static inline int store_draw_ply_put(store *s, int64_t game_id, const char *side, int64_t ply)
{
    return s->games->draw_ply_put(s, game_id, side, ply);
}
/* Whether game_id is marked damaged (its moves do not replay):
 * STORE_NOTFOUND when there is no such game. set marks it (inside the
 * open transaction); absent is not an error. */
static inline int store_game_damaged_get(store *s, int64_t game_id, bool *damaged)
{
    return s->games->game_damaged_get(s, game_id, damaged);
}
static inline int store_game_damaged_set(store *s, int64_t game_id)
{
    return s->games->game_damaged_set(s, game_id);
}

/* ---- metrics (issue 23) ------------------------------------------------ */

/* The active games not marked damaged, counted by stored time control:
 * cb(arg, time_control, n) once for each distinct time_control text (as
 * stored, tc_format()'s JSON; valid during the call only) with the n > 0
 * games that have it, in no set order; stops on non-zero (returned).
 * Reads the whole games table (SQLite: no index on status alone), so it
 * is for start-up and rare recounts (game/games.h games_count_active()),
 * not for every scrape. Sees the open transaction's writes, if any. */
static inline int store_games_active_count(store *s, store_tc_count_cb cb, void *arg)
{
    return s->games->games_active_count(s, cb, arg);
}

#endif
