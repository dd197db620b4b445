/*
 * pg_admin: the PostgreSQL backend's admin area (store_admin.h).
 * STUB: to be ported from sqlite/sqlite_admin.c (issue 22).
 */
#include "store/pg/pg_areas.h"

#define ADMIN_STATEMENTS(X) X(ADMIN_NONE, "SELECT 1")

enum { PG_AREA_FIRST(ADMIN), ADMIN_STATEMENTS(PG_STMT_ENUM) ST_ADMIN__END };
static const pg_stmt_def admin_defs[] = {ADMIN_STATEMENTS(PG_STMT_DEF)};
PG_AREA_CHECK(ADMIN);
const pg_area_stmts pg_admin_stmts = {PG_AREA_ADMIN, admin_defs, PG_AREA_COUNT(ADMIN)};

const store_admin_ops pg_admin_ops = {0};
