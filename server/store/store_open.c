/*
 * store_open: the one file that knows every backend, and so the one place
 * a new backend is added. store_open() is declared in store_core.h
 * (callers need nothing else); no backend includes this file, so a
 * backend never depends on another. Today every path goes to SQLite
 * (sqlite.h, store/sqlite/); a PostgreSQL backend (pg.h, store/pg/) will
 * claim the URL scheme "postgresql://" here and leave plain paths to
 * SQLite.
 */
#include "store/sqlite.h"
#include "store/store_core.h"

int store_open(const char *path, store **out)
{
    return store_sqlite_open(path, out);
}
