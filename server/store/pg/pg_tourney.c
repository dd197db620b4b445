/*
 * pg_tourney: the PostgreSQL backend's tourney area (store_tourney.h).
 * STUB: to be ported from sqlite/sqlite_tourney.c (issue 22).
 */
#include "store/pg/pg_areas.h"

#define TOURNEY_STATEMENTS(X) X(TOURNEY_NONE, "SELECT 1")

enum { PG_AREA_FIRST(TOURNEY), TOURNEY_STATEMENTS(PG_STMT_ENUM) ST_TOURNEY__END };
static const pg_stmt_def tourney_defs[] = {TOURNEY_STATEMENTS(PG_STMT_DEF)};
PG_AREA_CHECK(TOURNEY);
const pg_area_stmts pg_tourney_stmts = {PG_AREA_TOURNEY, tourney_defs, PG_AREA_COUNT(TOURNEY)};

const store_tourney_ops pg_tourney_ops = {0};
