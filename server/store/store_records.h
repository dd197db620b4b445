/*
 * store_records: what game records add to the store (issue 11; SQLite:
 * migration 9; store_core.h for the store object, results and the calling
 * convention): the clock of each move, for PDN export's %clk, and the mark
 * of an imported game with the record's player names. The search of
 * export and `search` is the games listing with its search filters
 * (store_games.h store_games_query(), store_game_filter): one query, one
 * row, wherever the game row is read.
 */
#ifndef QK_STORE_RECORDS_H
#define QK_STORE_RECORDS_H

#include "store/store_core.h"

/* Iteration callback: return 0 to go on, non-zero to stop. */
typedef int (*store_clock_cb)(void *arg, int64_t ply, int64_t clock_ms);

/* The area's table (store_x -> x, contracts below). */
typedef struct store_records_ops {
    int (*move_clock_set)(store *s, int64_t game_id, int64_t ply, int64_t clock_ms);
    int (*move_clocks_each)(store *s, int64_t game_id, store_clock_cb cb, void *arg);
    int (*game_mark_imported)(store *s, int64_t id, const char *white, const char *black);
} store_records_ops;

/* Set the clock of the move at (game_id, ply): clock_ms is what the mover
 * has left right after it (ms, increment included). STORE_NOTFOUND when
 * there is no such move. */
static inline int store_move_clock_set(store *s, int64_t game_id, int64_t ply, int64_t clock_ms)
{
    return s->records->move_clock_set(s, game_id, ply, clock_ms);
}
/* cb(arg, ply, clock_ms) for each move of game_id in ply order, clock_ms
 * -1 when the move has none (not a live game, or stored before migration
 * 6). Same return and re-entrancy rules as store_extensions_each(). */
static inline int store_move_clocks_each(store *s, int64_t game_id, store_clock_cb cb, void *arg)
{
    return s->records->move_clocks_each(s, game_id, cb, arg);
}
/* Mark game id (just inserted) as imported, with the record's player
 * names white and black (copied; NULL = unknown, shown as "?"). From then
 * on its store_game rows carry imported = true and these names. */
static inline int store_game_mark_imported(store *s, int64_t id, const char *white,
                                           const char *black)
{
    return s->records->game_mark_imported(s, id, white, black);
}

#endif
