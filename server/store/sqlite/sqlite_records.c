/*
 * sqlite_records: the SQLite side of records (store_records.h; issue 11,
 * migration 9): the clock of each move and the mark of an imported game.
 * The search of export and `search` is the games listing with its search
 * statements (sqlite_games.c), next to the game row it reads.
 */
#include "store/sqlite/sqlite_areas.h"

#define RECORDS_STATEMENTS(X)                                                                      \
    X(MOVE_CLOCK_SET, "UPDATE moves SET clock_ms = ?3 WHERE game_id = ?1 AND ply = ?2")            \
    X(MOVE_CLOCKS_OF,                                                                              \
      "SELECT ply, coalesce(clock_ms, -1) FROM moves WHERE game_id = ? ORDER BY ply")              \
    X(GAME_MARK_IMPORTED,                                                                          \
      "UPDATE games SET imported = 1, imported_white = ?2, imported_black = ?3 WHERE id = ?1")

enum { SQ_AREA_FIRST(RECORDS), RECORDS_STATEMENTS(SQ_STMT_ENUM) ST_RECORDS__END };
static const sq_stmt_def records_defs[] = {RECORDS_STATEMENTS(SQ_STMT_DEF)};
SQ_AREA_CHECK(RECORDS);
const sq_area_stmts sq_records_stmts = {SQ_AREA_RECORDS, records_defs, SQ_AREA_COUNT(RECORDS)};

static int sq_move_clock_set(store *base, int64_t game_id, int64_t ply, int64_t clock_ms)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_MOVE_CLOCK_SET, "iii", game_id, ply, clock_ms);
    return rc ? rc : sq_run_one(s, ST_MOVE_CLOCK_SET);
}

typedef struct clock_walk {
    store_clock_cb cb;
    void *arg;
} clock_walk;

static int clock_row(sqlite3_stmt *st, void *ctx)
{
    clock_walk *w = ctx;
    return w->cb(w->arg, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1));
}

static int sq_move_clocks_each(store *base, int64_t game_id, store_clock_cb cb, void *arg)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_MOVE_CLOCKS_OF, "i", game_id);
    return rc ? rc : sq_each(s, ST_MOVE_CLOCKS_OF, clock_row, &(clock_walk){cb, arg});
}

static int sq_game_mark_imported(store *base, int64_t id, const char *white, const char *black)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_GAME_MARK_IMPORTED, "itt", id, white, black);
    return rc ? rc : sq_run_one(s, ST_GAME_MARK_IMPORTED);
}

const store_records_ops sq_records_ops = {
    .move_clock_set = sq_move_clock_set,
    .move_clocks_each = sq_move_clocks_each,
    .game_mark_imported = sq_game_mark_imported,
};
