/*
 * pg_games: the PostgreSQL backend's games area (store_games.h).
 * STUB: to be ported from sqlite/sqlite_games.c (issue 22).
 */
#include "store/pg/pg_areas.h"

#define GAMES_STATEMENTS(X) X(GAMES_NONE, "SELECT 1")

enum { PG_AREA_FIRST(GAMES), GAMES_STATEMENTS(PG_STMT_ENUM) ST_GAMES__END };
static const pg_stmt_def games_defs[] = {GAMES_STATEMENTS(PG_STMT_DEF)};
PG_AREA_CHECK(GAMES);
const pg_area_stmts pg_games_stmts = {PG_AREA_GAMES, games_defs, PG_AREA_COUNT(GAMES)};

const store_games_ops pg_games_ops = {0};
