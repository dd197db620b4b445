/*
 * storecmp: see storecmp.h.
 */
#include "storecmp.h"

#include <criterion/criterion.h>
#include <libpq-fe.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgtest.h"
#include "util/log.h"

static char sqdir[64];

void cmp_init(void)
{
    log_set_level(LOG_ERROR);
}

void cmp_fini(void)
{
    pgtest_drop_all();
    if (sqdir[0]) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", sqdir);
        if (system(cmd) != 0)
            fprintf(stderr, "cannot remove %s\n", sqdir);
        sqdir[0] = '\0';
    }
}

void cmp_open_pg(cmp_side *b)
{
    b->pg = true;
    cr_assert_eq(pgtest_new_db(b->where, sizeof b->where), 0);
    cr_assert_eq(store_open(b->where, &b->s), STORE_OK);
}

void cmp_open_sqlite(cmp_side *b)
{
    b->pg = false;
    if (!sqdir[0]) {
        snprintf(sqdir, sizeof sqdir, "/tmp/qk-pgcmp-XXXXXX");
        cr_assert_not_null(mkdtemp(sqdir));
    }
    static int n;
    snprintf(b->where, sizeof b->where, "%s/t%d.db", sqdir, n++);
    cr_assert_eq(store_open(b->where, &b->s), STORE_OK);
}

void cmp_exec(const cmp_side *b, const char *sql)
{
    if (b->pg) {
        PGconn *c = PQconnectdb(b->where);
        cr_assert_eq(PQstatus(c), CONNECTION_OK, "%s", PQerrorMessage(c));
        PGresult *r = PQexec(c, sql);
        cr_assert_eq(PQresultStatus(r), PGRES_COMMAND_OK, "%s: %s", sql, PQresultErrorMessage(r));
        PQclear(r);
        PQfinish(c);
        return;
    }
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(b->where, &h), SQLITE_OK);
    sqlite3_busy_timeout(h, 5000);
    char *err = NULL;
    cr_assert_eq(sqlite3_exec(h, sql, NULL, NULL, &err), SQLITE_OK, "%s: %s", sql, err ? err : "");
    sqlite3_close(h);
}

long long cmp_int(const cmp_side *b, const char *sql)
{
    long long v = -1;
    if (b->pg) {
        PGconn *c = PQconnectdb(b->where);
        cr_assert_eq(PQstatus(c), CONNECTION_OK, "%s", PQerrorMessage(c));
        PGresult *r = PQexec(c, sql);
        cr_assert_eq(PQresultStatus(r), PGRES_TUPLES_OK, "%s: %s", sql, PQresultErrorMessage(r));
        cr_assert_eq(PQntuples(r), 1, "%s", sql);
        if (!PQgetisnull(r, 0, 0))
            v = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
        PQclear(r);
        PQfinish(c);
        return v;
    }
    sqlite3 *h;
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_open(b->where, &h), SQLITE_OK);
    sqlite3_busy_timeout(h, 5000);
    cr_assert_eq(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK, "%s", sql);
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s", sql);
    if (sqlite3_column_type(st, 0) != SQLITE_NULL)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(h);
    return v;
}

int64_t cmp_user(store *s, const char *name, bool bot)
{
    int64_t id = 0;
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(store_user_insert(s, name, bot, "$argon2id$fake", 1000, &id), STORE_OK);
    cr_assert_eq(store_commit(s), STORE_OK);
    return id;
}

void cmp_game(const cmp_side *b, int64_t white, int64_t black, int64_t at)
{
    char sql[512];
    snprintf(sql, sizeof sql,
             "INSERT INTO games (variant, white_id, black_id, start, position, turn, "
             "time_control, created, updated) VALUES ('alquerque', %lld, %lld, "
             "'bbbbb/bbbbb/ww.bb/wwwww/wwwww w 0 -', 'bbbbb/bbbbb/ww.bb/wwwww/wwwww w 0 -', "
             "'white', '{\"kind\":\"unlimited\"}', %lld, %lld)",
             (long long)white, (long long)black, (long long)at, (long long)at);
    cmp_exec(b, sql);
}

store_game cmp_a_game(int64_t white, int64_t black, const char *tc, int64_t created)
{
    store_game g = {0};
    snprintf(g.variant, sizeof g.variant, "alquerque");
    g.white_id = white;
    g.black_id = black;
    snprintf(g.start, sizeof g.start, CMP_START);
    snprintf(g.position, sizeof g.position, CMP_START);
    snprintf(g.turn, sizeof g.turn, "white");
    snprintf(g.status, sizeof g.status, "active");
    snprintf(g.time_control, sizeof g.time_control, "%s", tc);
    g.deadline = g.white_ms = g.black_ms = -1;
    g.created = g.updated = created;
    return g;
}

void cmp_tr(cmp_trace *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(t->buf + t->n, sizeof t->buf - t->n, fmt, ap);
    va_end(ap);
    cr_assert(k >= 0 && (size_t)k < sizeof t->buf - t->n, "trace full");
    t->n += (size_t)k;
}

int cmp_rc(cmp_trace *t, const char *what, int rc)
{
    cmp_tr(t, "%s rc=%d\n", what, rc);
    return rc;
}

void cmp_same(const cmp_trace *pg, const cmp_trace *sq)
{
    const char *p = pg->buf, *q = sq->buf;
    cr_assert(*p, "empty trace");
    for (int line = 1; *p || *q; line++) {
        size_t lp = strcspn(p, "\n"), lq = strcspn(q, "\n");
        cr_assert(lp == lq && memcmp(p, q, lp) == 0,
                  "line %d differs:\n  postgresql: %.*s\n  sqlite:     %.*s", line, (int)lp, p,
                  (int)lq, q);
        p += lp + (p[lp] == '\n');
        q += lq + (q[lq] == '\n');
    }
}

int cmp_keep(cmp_seen *w, int64_t id)
{
    if (w->n < 64)
        w->id[w->n] = id;
    w->n++;
    return w->stop_after > 0 && w->n >= w->stop_after ? 7 : 0;
}
