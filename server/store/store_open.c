/*
 * store_open: the one file that knows every backend, and so the one place
 * a new backend is added. store_open() is declared in store.h (callers
 * need nothing else); it is not in store.c, because store.c is included
 * by every backend and must not include them back (no include cycle).
 * Today every path goes to SQLite; a PostgreSQL backend will claim the
 * URL scheme "postgresql://" here and leave plain paths to SQLite.
 */
#include "store/sqlite.h"
#include "store/store.h"

int store_open(const char *path, store **out)
{
    return store_sqlite_open(path, out);
}
