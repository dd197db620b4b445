/*
 * pgtest: the fixture of the PostgreSQL tests (make test-pg): a fresh
 * database on the throwaway cluster whose URL is $QK_PG_URL
 * (tests/pg/cluster.sh), and a fresh SQLite file beside it, so a test can
 * run one sequence of store operations on both backends and compare what
 * each returns (issue 22: "the store suite runs once per backend").
 *
 * Without QK_PG_URL the tests skip (cr_skip_test): `make test` runs them
 * only where PostgreSQL is installed (it always is after `make deps`).
 */
#ifndef QK_TEST_PGTEST_H
#define QK_TEST_PGTEST_H

#include "store/store.h"

/* The cluster's URL, or NULL when the tests are to be skipped. */
const char *pgtest_url(void);

/* A URL for a new, empty database on the cluster (created here; its name
 * unique to the process and call) into url (size n). 0, or -1 (logged to
 * stderr). pgtest_drop_all() drops every database made so. */
int pgtest_new_db(char *url, size_t n);
void pgtest_drop_all(void);

/* Open a fresh PostgreSQL store (a new database, migrated) and a fresh
 * SQLite store (a new file in a temporary directory). Each returns NULL
 * on failure (the test then fails). Closed with store_close(); the
 * files and databases go at pgtest_drop_all(). */
store *pgtest_open_pg(void);
store *pgtest_open_sqlite(void);

#endif
