/*
 * storecmp: what the tests that compare the two backends area by area
 * share (test_store_admin.c, _challenges, _corr, _games, _ratings,
 * _records, _tourney): the two stores under test, plain SQL on each one's
 * database, and the trace. A sequence of store operations runs once on a
 * fresh PostgreSQL database and once on a fresh SQLite file; each call's
 * code and every field of every row it returns is written as one line of
 * that side's trace, and the two traces must be equal line for line
 * (cmp_same()). The sequences assert exact values as well, so both
 * backends being wrong alike fails.
 *
 * Only the test's own process: criterion runs each test in a process of
 * its own, and the helpers fail the current test with cr_assert.
 */
#ifndef QK_TEST_STORECMP_H
#define QK_TEST_STORECMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* One backend under test: its store and where plain SQL reaches it. */
typedef struct cmp_side {
    store *s;
    bool pg;
    char where[512]; /* the PostgreSQL URL or the SQLite file */
} cmp_side;

/* Open a fresh store on a new database of the cluster (pgtest.h) or on a
 * new SQLite file in a temporary directory. cmp_fini() (a suite's .fini)
 * drops the databases and removes the files. */
void cmp_open_pg(cmp_side *b);
void cmp_open_sqlite(cmp_side *b);
void cmp_fini(void);
/* The suite's .init: only errors are logged. */
void cmp_init(void);

/* Plain SQL on the side's database from a second connection, committed
 * (the same text on both: a row this area only points at). */
void cmp_exec(const cmp_side *b, const char *sql);
/* One integer read with plain SQL (a second connection); -1 for NULL. */
long long cmp_int(const cmp_side *b, const char *sql);
/* A user inserted through the store (users area), committed: its id. */
int64_t cmp_user(store *s, const char *name, bool bot);
/* A game between white and black as the games area would store it (plain
 * SQL), created at `at`. */
void cmp_game(const cmp_side *b, int64_t white, int64_t black, int64_t at);

/* The start position and two time controls of the games that
 * test_store_games.c and test_store_corr.c write through the games area. */
#define CMP_START "bbbbb/bbbbb/ww.bb/wwwww/wwwww w 0 -"
#define CMP_TC_CORR "{\"kind\":\"correspondence\",\"days\":3}"
#define CMP_TC_LIVE "{\"kind\":\"live\",\"base_ms\":60000,\"inc_ms\":0}"
/* For those two: an active alquerque game of white and black from
 * CMP_START, white to move, no deadline, no clocks (-1), created and
 * updated at `created`, as store_game_insert() takes it (not inserted). */
store_game cmp_a_game(int64_t white, int64_t black, const char *tc, int64_t created);

/* The trace of one side. */
typedef struct cmp_trace {
    char buf[1 << 18];
    size_t n;
} cmp_trace;

/* Append printf-style text. */
void cmp_tr(cmp_trace *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The rc of a call, traced under a label, and returned. */
int cmp_rc(cmp_trace *t, const char *what, int rc);
/* Assert a and b are equal, naming the first line that differs. */
void cmp_same(const cmp_trace *pg, const cmp_trace *sq);

/* A listing's rows: the ids seen (the first 64) for exact checks, and an
 * optional early stop. */
typedef struct cmp_seen {
    cmp_trace *t;
    int64_t id[64];
    int n;
    int stop_after; /* > 0: the row callback returns 7 after that many rows */
} cmp_seen;

static inline cmp_seen cmp_fresh(cmp_trace *t)
{
    return (cmp_seen){.t = t};
}
/* Record id; returns what the row callback should return. */
int cmp_keep(cmp_seen *w, int64_t id);

/* Assert the ids seen are exactly the list. */
#define CMP_IDS(w, ...)                                                                            \
    do {                                                                                           \
        const int64_t want_[] = {__VA_ARGS__};                                                     \
        int n_ = (int)(sizeof want_ / sizeof want_[0]);                                            \
        cr_assert_eq((w).n, n_, "%d rows, want %d", (w).n, n_);                                    \
        for (int i_ = 0; i_ < n_; i_++)                                                            \
            cr_assert_eq((w).id[i_], want_[i_], "row %d: %lld, want %lld", i_,                     \
                         (long long)(w).id[i_], (long long)want_[i_]);                             \
    } while (0)

/* The body of every comparing test: skip without a cluster, run seq on
 * both sides, compare the traces, close both stores. */
#define CMP_RUN(seq)                                                                               \
    do {                                                                                           \
        if (!pgtest_url())                                                                         \
            cr_skip_test("QK_PG_URL not set (tests/pg/cluster.sh)");                               \
        static cmp_side pg_, sq_;                                                                  \
        static cmp_trace tpg_, tsq_;                                                               \
        cmp_open_pg(&pg_);                                                                         \
        cmp_open_sqlite(&sq_);                                                                     \
        seq(&pg_, &tpg_);                                                                          \
        seq(&sq_, &tsq_);                                                                          \
        cmp_same(&tpg_, &tsq_);                                                                    \
        store_close(pg_.s);                                                                        \
        store_close(sq_.s);                                                                        \
    } while (0)

#endif
