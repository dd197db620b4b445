/*
 * sqlite_records: the SQLite side of records (issue 11, migration 9): the
 * game search with every filter of `games`/`export`, the clock of each
 * move, and the mark of an imported game. The older listing statements of
 * sqlite_rows.c stay as they are (they match their indexes); a filter
 * that uses any search field comes here instead (sq_search_wanted()).
 */
#include <string.h>

#include "store/sqlite_int.h"

bool sq_search_wanted(const store_game_filter *f)
{
    return f->result || f->since > 0 || f->until > 0 || f->tournament > 0 || f->imported ||
           f->after > 0 || f->ascending;
}

int sq_games_search(store *base, const store_game_filter *f, store_game_cb cb, void *arg)
{
    sq_store *s = sq_of(base);
    sq_stmt which = f->ascending ? ST_GAMES_SEARCH_ASC : ST_GAMES_SEARCH;
    /* 'O' binds since (0 and up) as a filter only when > 0: a since of 0
     * filters nothing anyway. imported: 1 or 0 as the column, NULL for
     * both. */
    int64_t imported = f->imported > 0 ? 1 : f->imported < 0 ? 0 : -1;
    int rc = sq_bind(s, which,
                     "oTToo"
                     "iToooOooo",
                     f->user_id, f->status, f->variant, f->opponent_id, f->before, f->limit,
                     f->result, f->since, f->until, f->tournament, imported, f->after,
                     f->turn_user_id, f->viewer_id);
    if (rc)
        return rc;
    sqlite3_stmt *st = s->st[which];
    store_game g;
    while (sq_next_row(s, which, &rc)) {
        sq_read_game(st, &g);
        int stop = cb(arg, &g);
        if (stop)
            return sq_stop(s, which, stop);
    }
    return rc;
}

int sq_move_clock_set(store *base, int64_t game_id, int64_t ply, int64_t clock_ms)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_MOVE_CLOCK_SET, "iii", game_id, ply, clock_ms);
    return rc ? rc : sq_run_one(s, ST_MOVE_CLOCK_SET);
}

int sq_move_clocks_each(store *base, int64_t game_id, store_clock_cb cb, void *arg)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_MOVE_CLOCKS_OF, "i", game_id);
    if (rc)
        return rc;
    sqlite3_stmt *st = s->st[ST_MOVE_CLOCKS_OF];
    while (sq_next_row(s, ST_MOVE_CLOCKS_OF, &rc)) {
        int stop = cb(arg, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1));
        if (stop)
            return sq_stop(s, ST_MOVE_CLOCKS_OF, stop);
    }
    return rc;
}

int sq_game_mark_imported(store *base, int64_t id, const char *white, const char *black)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_GAME_MARK_IMPORTED, "itt", id, white, black);
    return rc ? rc : sq_run_one(s, ST_GAME_MARK_IMPORTED);
}
