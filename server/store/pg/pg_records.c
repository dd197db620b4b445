/*
 * pg_records: the PostgreSQL backend's records area (store_records.h).
 * STUB: to be ported from sqlite/sqlite_records.c (issue 22).
 */
#include "store/pg/pg_areas.h"

#define RECORDS_STATEMENTS(X) X(RECORDS_NONE, "SELECT 1")

enum { PG_AREA_FIRST(RECORDS), RECORDS_STATEMENTS(PG_STMT_ENUM) ST_RECORDS__END };
static const pg_stmt_def records_defs[] = {RECORDS_STATEMENTS(PG_STMT_DEF)};
PG_AREA_CHECK(RECORDS);
const pg_area_stmts pg_records_stmts = {PG_AREA_RECORDS, records_defs, PG_AREA_COUNT(RECORDS)};

const store_records_ops pg_records_ops = {0};
