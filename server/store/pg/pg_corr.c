/*
 * pg_corr: the PostgreSQL backend's corr area (store_corr.h).
 * STUB: to be ported from sqlite/sqlite_corr.c (issue 22).
 */
#include "store/pg/pg_areas.h"

#define CORR_STATEMENTS(X) X(CORR_NONE, "SELECT 1")

enum { PG_AREA_FIRST(CORR), CORR_STATEMENTS(PG_STMT_ENUM) ST_CORR__END };
static const pg_stmt_def corr_defs[] = {CORR_STATEMENTS(PG_STMT_DEF)};
PG_AREA_CHECK(CORR);
const pg_area_stmts pg_corr_stmts = {PG_AREA_CORR, corr_defs, PG_AREA_COUNT(CORR)};

const store_corr_ops pg_corr_ops = {0};
