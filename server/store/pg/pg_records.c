/*
 * pg_records: the PostgreSQL side of records (store_records.h, as
 * sqlite_records.c): the clock of each move and the mark of an imported
 * game. The search of export and `search` is the games listing
 * (pg_games.c).
 */
#include "store/pg/pg_areas.h"

#define RECORDS_STATEMENTS(X)                                                                      \
    X(MOVE_CLOCK_SET, "UPDATE moves SET clock_ms = $3 WHERE game_id = $1 AND ply = $2")            \
    X(MOVE_CLOCKS_OF,                                                                              \
      "SELECT ply, coalesce(clock_ms, -1) FROM moves WHERE game_id = $1 ORDER BY ply")             \
    X(GAME_MARK_IMPORTED,                                                                          \
      "UPDATE games SET imported = 1, imported_white = $2, imported_black = $3 WHERE id = $1")

enum { PG_AREA_FIRST(RECORDS), RECORDS_STATEMENTS(PG_STMT_ENUM) ST_RECORDS__END };
static const pg_stmt_def records_defs[] = {RECORDS_STATEMENTS(PG_STMT_DEF)};
PG_AREA_CHECK(RECORDS);
const pg_area_stmts pg_records_stmts = {PG_AREA_RECORDS, records_defs, PG_AREA_COUNT(RECORDS)};

static int pg_move_clock_set(store *base, int64_t game_id, int64_t ply, int64_t clock_ms)
{
    return pg_run_one(pg_of(base), ST_MOVE_CLOCK_SET, "iii", game_id, ply, clock_ms);
}

typedef struct clock_walk {
    store_clock_cb cb;
    void *arg;
} clock_walk;

static int clock_row(const PGresult *r, int i, void *ctx)
{
    clock_walk *w = ctx;
    return w->cb(w->arg, pg_col_int(r, i, 0), pg_col_int(r, i, 1));
}

static int pg_move_clocks_each(store *base, int64_t game_id, store_clock_cb cb, void *arg)
{
    return pg_each(pg_of(base), ST_MOVE_CLOCKS_OF, clock_row, &(clock_walk){cb, arg}, "i", game_id);
}

static int pg_game_mark_imported(store *base, int64_t id, const char *white, const char *black)
{
    return pg_run_one(pg_of(base), ST_GAME_MARK_IMPORTED, "itt", id, white, black);
}

const store_records_ops pg_records_ops = {
    .move_clock_set = pg_move_clock_set,
    .move_clocks_each = pg_move_clocks_each,
    .game_mark_imported = pg_game_mark_imported,
};
