/*
 * pg_challenges: the PostgreSQL backend's challenges area (store_challenges.h).
 * STUB: to be ported from sqlite/sqlite_challenges.c (issue 22).
 */
#include "store/pg/pg_areas.h"

#define CHALLENGES_STATEMENTS(X) X(CHALLENGES_NONE, "SELECT 1")

enum { PG_AREA_FIRST(CHALLENGES), CHALLENGES_STATEMENTS(PG_STMT_ENUM) ST_CHALLENGES__END };
static const pg_stmt_def challenges_defs[] = {CHALLENGES_STATEMENTS(PG_STMT_DEF)};
PG_AREA_CHECK(CHALLENGES);
const pg_area_stmts pg_challenges_stmts = {PG_AREA_CHALLENGES, challenges_defs, PG_AREA_COUNT(CHALLENGES)};

const store_challenges_ops pg_challenges_ops = {0};
