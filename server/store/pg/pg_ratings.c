/*
 * pg_ratings: the PostgreSQL backend's ratings area (store_ratings.h).
 * STUB: to be ported from sqlite/sqlite_ratings.c (issue 22).
 */
#include "store/pg/pg_areas.h"

#define RATINGS_STATEMENTS(X) X(RATINGS_NONE, "SELECT 1")

enum { PG_AREA_FIRST(RATINGS), RATINGS_STATEMENTS(PG_STMT_ENUM) ST_RATINGS__END };
static const pg_stmt_def ratings_defs[] = {RATINGS_STATEMENTS(PG_STMT_DEF)};
PG_AREA_CHECK(RATINGS);
const pg_area_stmts pg_ratings_stmts = {PG_AREA_RATINGS, ratings_defs, PG_AREA_COUNT(RATINGS)};

const store_ratings_ops pg_ratings_ops = {0};
