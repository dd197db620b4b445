/*
 * tables: every entry of every area table of both backends is set
 * (store_core.h: "Every entry of every table is required"). A missing
 * entry is a NULL call on the first request that needs it: this test
 * names it instead. Needs no database.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "store/pg/pg_areas.h"
#include "store/sqlite/sqlite_areas.h"

/* All members but the first skip (core's name) are function pointers. */
static void all_set(const void *table, size_t size, size_t skip, const char *what)
{
    typedef void (*fn)(void);
    const char *p = (const char *)table + skip;
    for (size_t off = skip, i = 0; off + sizeof(fn) <= size; off += sizeof(fn), i++) {
        fn f;
        memcpy(&f, p + (off - skip), sizeof f);
        cr_expect_not_null((void *)(uintptr_t)f, "%s: entry %zu is not set", what, i);
    }
}

#define CHECK(t, skip) all_set(&(t), sizeof(t), skip, #t)

Test(tables, every_entry_of_both_backends_is_set)
{
    CHECK(pg_core_ops, sizeof(const char *));
    CHECK(sq_core_ops, sizeof(const char *));
    CHECK(pg_users_ops, 0);
    CHECK(sq_users_ops, 0);
    CHECK(pg_challenges_ops, 0);
    CHECK(sq_challenges_ops, 0);
    CHECK(pg_games_ops, 0);
    CHECK(sq_games_ops, 0);
    CHECK(pg_corr_ops, 0);
    CHECK(sq_corr_ops, 0);
    CHECK(pg_ratings_ops, 0);
    CHECK(sq_ratings_ops, 0);
    CHECK(pg_tourney_ops, 0);
    CHECK(sq_tourney_ops, 0);
    CHECK(pg_records_ops, 0);
    CHECK(sq_records_ops, 0);
    CHECK(pg_admin_ops, 0);
    CHECK(sq_admin_ops, 0);
}
