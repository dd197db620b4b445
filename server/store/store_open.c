/*
 * store_open: the one file that knows every backend, and so the one place
 * a new backend is added. store_open() is declared in store_core.h
 * (callers need nothing else); no backend includes this file, so a
 * backend never depends on another. A libpq URI ("postgresql://",
 * "postgres://") opens PostgreSQL (pg.h, store/pg/); anything else is a
 * SQLite file path (sqlite.h, store/sqlite/).
 */
#include "store/pg.h"
#include "store/sqlite.h"
#include "store/store_core.h"

int store_open(const char *path, store **out)
{
    if (store_pg_is_url(path))
        return store_pg_open(path, out);
    return store_sqlite_open(path, out);
}
