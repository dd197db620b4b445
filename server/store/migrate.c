/*
 * migrate: see migrate.h. SQLite is read with sqlite3 on a read-only
 * connection, PostgreSQL written with libpq's blocking calls on a
 * connection of this file's own: this runs as a command, not on a loop.
 */
#include "store/migrate.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <libpq-fe.h>
#include <sqlite3.h>

#include "store/pg.h"
#include "store/sqlite.h"
#include "store/store_core.h"

/* Rows sent between two pipeline syncs. Each sync is one round trip; a
 * batch's results (~40 bytes a row) stay far below a socket's buffer. */
#define MIGRATE_BATCH 500
/* Rows of the games' and the moves' cursors fetched at a time. */
#define GAMES_FETCH 500
#define MOVES_FETCH 5000
/* How long the copy waits for a lock a process on the target holds (a
 * qirkatd running on it) before it gives up, rather than hang. */
#define LOCK_TIMEOUT "30s"
#define MIGRATE_STR_(x) #x
#define MIGRATE_STR(x) MIGRATE_STR_(x)

static void say(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
}

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* libpq's messages end in a newline; err is one line. */
static void say_pg(char *err, size_t n, const char *what, const char *msg)
{
    size_t len = strlen(msg);
    while (len && (msg[len - 1] == '\n' || msg[len - 1] == ' '))
        len--;
    say(err, n, "%s: %.*s", what, (int)len, msg);
}

/* ---- the plan: tables and columns of the source ------------------------ */

typedef struct mtable {
    char *name;
    char **cols; /* in PRAGMA table_info order, the order of schema.sql */
    int ncols;
    char **refs; /* tables its foreign keys reference (itself left out) */
    int nrefs;
    bool placed; /* for the foreign-key order */
    int64_t src_rows, pg_rows;
} mtable;

typedef struct mig {
    const char *src;
    sqlite3 *db;
    PGconn *pg;
    mtable *t; /* in copy order once ordered */
    int nt;
    char where[300]; /* "database D on H:P": the target without its password */
    char *err;
    size_t n;
} mig;

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

static int push(char ***v, int *nv, const char *s)
{
    char **v2 = realloc(*v, (size_t)(*nv + 1) * sizeof *v2);
    if (!v2)
        return -1;
    *v = v2;
    if (!(v2[*nv] = dup_or_null(s)))
        return -1;
    (*nv)++;
    return 0;
}

static void free_tables(mig *m)
{
    for (int i = 0; i < m->nt; i++) {
        for (int k = 0; k < m->t[i].ncols; k++)
            free(m->t[i].cols[k]);
        for (int k = 0; k < m->t[i].nrefs; k++)
            free(m->t[i].refs[k]);
        free(m->t[i].cols);
        free(m->t[i].refs);
        free(m->t[i].name);
    }
    free(m->t);
    m->t = NULL;
    m->nt = 0;
}

static int sq_fail(mig *m)
{
    say(m->err, m->n, "%s: %s", m->src, sqlite3_errmsg(m->db));
    return -1;
}

/* One text column of every row of sql (one text parameter, bound to arg
 * when not NULL) appended to *v. */
static int sq_column(mig *m, const char *sql, const char *arg, int col, char ***v, int *nv)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(m->db, sql, -1, &st, NULL) != SQLITE_OK ||
        (arg && sqlite3_bind_text(st, 1, arg, -1, SQLITE_STATIC) != SQLITE_OK)) {
        sqlite3_finalize(st);
        return sq_fail(m);
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *s = (const char *)sqlite3_column_text(st, col);
        if (push(v, nv, s ? s : "") != 0) {
            sqlite3_finalize(st);
            say(m->err, m->n, "out of memory");
            return -1;
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : sq_fail(m);
}

/* The source's tables, their columns and the tables they reference. */
static int read_tables(mig *m)
{
    char **names = NULL;
    int nn = 0;
    /* SQLite's own tables (sqlite_sequence, sqlite_stat1) are its
     * bookkeeping, not the server's data. */
    if (sq_column(m,
                  "SELECT name FROM sqlite_master WHERE type = 'table' "
                  "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
                  NULL, 0, &names, &nn) != 0)
        return -1;
    int rc = 0;
    m->t = calloc((size_t)(nn ? nn : 1), sizeof *m->t);
    if (!m->t) {
        say(m->err, m->n, "out of memory");
        rc = -1;
    }
    for (int i = 0; rc == 0 && i < nn; i++) {
        mtable *t = &m->t[m->nt++];
        t->name = names[i];
        names[i] = NULL;
        char **refs = NULL;
        int nrefs = 0;
        /* The table-valued pragmas take the name as a bound parameter:
         * no quoting of a name read from the file. */
        if (sq_column(m, "SELECT name FROM pragma_table_info(?1) ORDER BY cid", t->name, 0,
                      &t->cols, &t->ncols) != 0 ||
            sq_column(m, "SELECT DISTINCT \"table\" FROM pragma_foreign_key_list(?1)", t->name, 0,
                      &refs, &nrefs) != 0) {
            rc = -1;
        }
        for (int k = 0; k < nrefs; k++) {
            if (rc == 0 && strcmp(refs[k], t->name) != 0 && push(&t->refs, &t->nrefs, refs[k]))
                rc = -1;
            free(refs[k]);
        }
        free(refs);
    }
    for (int i = 0; i < nn; i++)
        free(names[i]);
    free(names);
    return rc;
}

static int table_index(const mig *m, const char *name)
{
    for (int i = 0; i < m->nt; i++)
        if (strcmp(m->t[i].name, name) == 0)
            return i;
    return -1;
}

/* Order m->t so that every table comes after the tables its foreign keys
 * reference (PostgreSQL checks a reference at each INSERT, so a
 * referenced row must be there first). Among tables free to go, the
 * order of names, so the order is the same every time. A reference to a
 * table that does not exist (SQLite allows it) orders nothing. */
static int order_tables(mig *m)
{
    mtable *out = calloc((size_t)(m->nt ? m->nt : 1), sizeof *out);
    if (!out) {
        say(m->err, m->n, "out of memory");
        return -1;
    }
    for (int k = 0; k < m->nt; k++) {
        int pick = -1;
        for (int i = 0; i < m->nt && pick < 0; i++) {
            if (m->t[i].placed)
                continue;
            bool ready = true;
            for (int r = 0; r < m->t[i].nrefs && ready; r++) {
                int j = table_index(m, m->t[i].refs[r]);
                ready = j < 0 || m->t[j].placed;
            }
            if (ready)
                pick = i;
        }
        if (pick < 0) {
            /* No cycle exists in schema.sql; a file with one cannot be
             * copied table by table with checks on, so say which. */
            char names[400] = "";
            size_t len = 0;
            for (int i = 0; i < m->nt; i++)
                if (!m->t[i].placed && len < sizeof names)
                    len += (size_t)snprintf(names + len, sizeof names - len, "%s%s",
                                            len ? ", " : "", m->t[i].name);
            say(m->err, m->n, "%s: the foreign keys of %s form a cycle", m->src, names);
            free(out);
            return -1;
        }
        m->t[pick].placed = true;
        out[k] = m->t[pick];
    }
    free(m->t);
    m->t = out;
    return 0;
}

/* The source opened read-only and its read transaction begun, at the
 * schema this binary has. */
static int open_source(mig *m)
{
    struct stat sb;
    if (stat(m->src, &sb) != 0) {
        say(m->err, m->n, "%s: %s", m->src, strerror(errno));
        return -1;
    }
    int rc = sqlite3_open_v2(m->src, &m->db, SQLITE_OPEN_READONLY, NULL);
    if (rc != SQLITE_OK) {
        say(m->err, m->n, "%s: %s", m->src, m->db ? sqlite3_errmsg(m->db) : sqlite3_errstr(rc));
        return -1;
    }
    sqlite3_busy_timeout(m->db, 5000);
    /* One snapshot for the plan, the rows and the counts. */
    if (sqlite3_exec(m->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
        return sq_fail(m);
    sqlite3_stmt *st = NULL;
    int v = -1;
    if (sqlite3_prepare_v2(m->db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    if (v < 0)
        return sq_fail(m);
    int want = store_schema_version();
    if (v < want) {
        say(m->err, m->n,
            "%s is at schema version %d, this qirkatd's is %d: start qirkatd on it once first "
            "(it migrates the file), stop it, then migrate",
            m->src, v, want);
        return -1;
    }
    if (v > want) {
        say(m->err, m->n,
            "%s is at schema version %d, newer than this qirkatd knows (%d): migrate with the "
            "qirkatd that wrote it",
            m->src, v, want);
        return -1;
    }
    return 0;
}

/* ---- PostgreSQL --------------------------------------------------------- */

/* Run sql with text parameters; the result when its status is want, else
 * NULL with PostgreSQL's message in err after what. */
static PGresult *pg_do(mig *m, const char *what, const char *sql, int np, const char *const *params,
                       ExecStatusType want)
{
    PGresult *r = PQexecParams(m->pg, sql, np, NULL, params, NULL, NULL, 0);
    if (r && PQresultStatus(r) == want)
        return r;
    say_pg(m->err, m->n, what, r ? PQresultErrorMessage(r) : PQerrorMessage(m->pg));
    PQclear(r);
    return NULL;
}

/* A command without parameters; PQexec, which (unlike PQexecParams)
 * takes several statements in one text. */
static int pg_cmd(mig *m, const char *what, const char *sql)
{
    PGresult *r = PQexec(m->pg, sql);
    if (r && PQresultStatus(r) == PGRES_COMMAND_OK) {
        PQclear(r);
        return 0;
    }
    say_pg(m->err, m->n, what, r ? PQresultErrorMessage(r) : PQerrorMessage(m->pg));
    PQclear(r);
    return -1;
}

/* An identifier quoted for PostgreSQL; free with PQfreemem. */
static char *pg_ident(mig *m, const char *name)
{
    char *q = PQescapeIdentifier(m->pg, name, strlen(name));
    if (!q)
        say_pg(m->err, m->n, "quote", PQerrorMessage(m->pg));
    return q;
}

static int connect_pg(mig *m, const char *url)
{
    m->pg = PQconnectdb(url);
    if (!m->pg || PQstatus(m->pg) != CONNECTION_OK) {
        /* PostgreSQL's message names host and port, never the password. */
        say_pg(m->err, m->n, "cannot connect to PostgreSQL",
               m->pg ? PQerrorMessage(m->pg) : "out of memory");
        return -1;
    }
    snprintf(m->where, sizeof m->where, "database %s on %s:%s", PQdb(m->pg), PQhost(m->pg),
             PQport(m->pg));
    /* A commit is acknowledged once it is durable, as the server's are. */
    return pg_cmd(m, "session settings",
                  "SET synchronous_commit = on; SET client_min_messages = warning; "
                  "SET lock_timeout = '" LOCK_TIMEOUT "'");
}

/* The target's columns of t (ordinal order) are the source's, by name. */
static int check_columns(mig *m, const mtable *t)
{
    const char *p[1] = {t->name};
    PGresult *r = pg_do(m, "columns",
                        "SELECT column_name FROM information_schema.columns "
                        "WHERE table_schema = current_schema() AND table_name = $1 "
                        "ORDER BY ordinal_position",
                        1, p, PGRES_TUPLES_OK);
    if (!r)
        return -1;
    int have = PQntuples(r);
    if (have == 0) {
        say(m->err, m->n, "the target (%s) has no table %s: is it a qirkat database?", m->where,
            t->name);
        PQclear(r);
        return -1;
    }
    int bad = -1;
    for (int i = 0; i < have || i < t->ncols; i++)
        if (bad < 0 && (i >= have || i >= t->ncols || strcmp(PQgetvalue(r, i, 0), t->cols[i])))
            bad = i;
    if (bad >= 0) {
        say(m->err, m->n,
            "table %s: column %d is %s in %s and %s in PostgreSQL: the two schemas differ", t->name,
            bad + 1, bad < t->ncols ? t->cols[bad] : "(none)", m->src,
            bad < have ? PQgetvalue(r, bad, 0) : "(none)");
        PQclear(r);
        return -1;
    }
    PQclear(r);
    return 0;
}

/* Lock every copied table against writers until the commit, then refuse
 * a target with a row in any of them. The lock first: a second migrate
 * (or a node) cannot slip rows in between the check and the copy. */
static int lock_and_check_empty(mig *m)
{
    size_t cap = 64, len = 0;
    char *sql = malloc(cap);
    if (!sql) {
        say(m->err, m->n, "out of memory");
        return -1;
    }
    len = (size_t)snprintf(sql, cap, "LOCK TABLE ");
    for (int i = 0; i < m->nt; i++) {
        char *q = pg_ident(m, m->t[i].name);
        if (!q) {
            free(sql);
            return -1;
        }
        size_t need = len + strlen(q) + 32;
        if (need > cap) {
            char *s2 = realloc(sql, cap = need * 2);
            if (!s2) {
                PQfreemem(q);
                free(sql);
                say(m->err, m->n, "out of memory");
                return -1;
            }
            sql = s2;
        }
        len += (size_t)snprintf(sql + len, cap - len, "%s%s", i ? ", " : "", q);
        PQfreemem(q);
    }
    snprintf(sql + len, cap - len, " IN EXCLUSIVE MODE");
    int rc = m->nt ? pg_cmd(m, "lock the target's tables", sql) : 0;
    free(sql);
    if (rc != 0)
        return -1;
    char full[400] = "";
    size_t fl = 0;
    int nfull = 0;
    for (int i = 0; i < m->nt; i++) {
        char *q = pg_ident(m, m->t[i].name), sel[300];
        if (!q)
            return -1;
        snprintf(sel, sizeof sel, "SELECT EXISTS (SELECT 1 FROM %s)", q);
        PQfreemem(q);
        PGresult *r = pg_do(m, m->t[i].name, sel, 0, NULL, PGRES_TUPLES_OK);
        if (!r)
            return -1;
        if (strcmp(PQgetvalue(r, 0, 0), "t") == 0) {
            nfull++;
            if (fl < sizeof full)
                fl += (size_t)snprintf(full + fl, sizeof full - fl, "%s%s", fl ? ", " : "",
                                       m->t[i].name);
        }
        PQclear(r);
    }
    if (nfull) {
        say(m->err, m->n,
            "the target (%s) is not empty: %s %s rows; migrate copies only into an empty "
            "database (nothing was written)",
            m->where, full, nfull == 1 ? "has" : "have");
        return -1;
    }
    return 0;
}

/* Read the results of the sent rows (first_row + 1 ... first_row + sent
 * of t, 1-based) and the sync that ends them; the first refusal, with
 * its row's number, into err. */
static int read_batch(mig *m, const mtable *t, int64_t first_row, int sent)
{
    int rc = 0;
    for (int q = 0; q < sent; q++) {
        PGresult *r = PQgetResult(m->pg);
        if (!r) {
            if (!m->err[0])
                say_pg(m->err, m->n, t->name, PQerrorMessage(m->pg));
            return -1; /* the connection is gone: nothing more will come */
        }
        ExecStatusType s = PQresultStatus(r);
        if (s != PGRES_COMMAND_OK) {
            /* The first refusal is the news: the rows after it, in this
             * batch and the one in flight, are only "aborted". */
            if (s != PGRES_PIPELINE_ABORTED && !m->err[0]) {
                char what[160];
                snprintf(what, sizeof what, "table %s, row %lld", t->name,
                         (long long)(first_row + q + 1));
                say_pg(m->err, m->n, what, PQresultErrorMessage(r));
            }
            rc = -1;
        }
        PQclear(r);
        while ((r = PQgetResult(m->pg))) /* the NULL that ends each query's results */
            PQclear(r);
    }
    PGresult *r = PQgetResult(m->pg);
    if (!r || PQresultStatus(r) != PGRES_PIPELINE_SYNC) {
        if (!m->err[0])
            say_pg(m->err, m->n, t->name, r ? PQresultErrorMessage(r) : PQerrorMessage(m->pg));
        rc = -1;
    }
    PQclear(r);
    return rc;
}

/* Append s to the growing text *b (size *cap, used *len). */
static int cat(char **b, size_t *cap, size_t *len, const char *s)
{
    size_t k = strlen(s);
    if (*len + k + 1 > *cap) {
        size_t nc = (*len + k + 1) * 2;
        char *b2 = realloc(*b, nc);
        if (!b2)
            return -1;
        *b = b2;
        *cap = nc;
    }
    memcpy(*b + *len, s, k + 1);
    *len += k;
    return 0;
}

/* The two statements of a table's copy: SQLite's SELECT of its columns
 * and PostgreSQL's INSERT of the same columns as $1, $2, ... */
static int copy_sql(mig *m, const mtable *t, char **sel, char **ins)
{
    size_t sc = 0, sl = 0, ic = 0, il = 0;
    *sel = *ins = NULL;
    char *qt = pg_ident(m, t->name), num[16];
    if (!qt)
        return -1;
    char *sqt = sqlite3_mprintf("\"%w\"", t->name);
    bool ok = sqt && cat(sel, &sc, &sl, "SELECT ") == 0 &&
              cat(ins, &ic, &il, "INSERT INTO ") == 0 && cat(ins, &ic, &il, qt) == 0 &&
              cat(ins, &ic, &il, " (") == 0;
    for (int i = 0; ok && i < t->ncols; i++) {
        char *sq = sqlite3_mprintf("%s\"%w\"", i ? ", " : "", t->cols[i]);
        char *pq = pg_ident(m, t->cols[i]);
        ok = sq && pq && cat(sel, &sc, &sl, sq) == 0 && cat(ins, &ic, &il, i ? ", " : "") == 0 &&
             cat(ins, &ic, &il, pq) == 0;
        sqlite3_free(sq);
        PQfreemem(pq);
    }
    ok = ok && cat(sel, &sc, &sl, " FROM ") == 0 && cat(sel, &sc, &sl, sqt) == 0 &&
         cat(ins, &ic, &il, ") VALUES (") == 0;
    for (int i = 0; ok && i < t->ncols; i++) {
        snprintf(num, sizeof num, "%s$%d", i ? ", " : "", i + 1);
        ok = cat(ins, &ic, &il, num) == 0;
    }
    ok = ok && cat(ins, &ic, &il, ")") == 0;
    sqlite3_free(sqt);
    PQfreemem(qt);
    if (!ok) {
        free(*sel);
        free(*ins);
        *sel = *ins = NULL;
        if (!m->err[0])
            say(m->err, m->n, "out of memory");
        return -1;
    }
    return 0;
}

/* Copy every row of t: one prepared INSERT, rows sent in pipeline mode
 * and synced every MIGRATE_BATCH rows (a round trip per batch instead of
 * per row: see docs/scale.md for the figures). Values keep their SQLite
 * type: integers as decimal text, reals as %.17g text (every bit of a
 * double: SQLite's own text form keeps 15 digits), text as text, blobs
 * as binary bytea parameters, NULL as NULL. *rows: rows sent. */
static int copy_table(mig *m, mtable *t, int idx, int64_t *rows)
{
    char *sel = NULL, *ins = NULL, name[32];
    sqlite3_stmt *st = NULL;
    *rows = 0;
    if (copy_sql(m, t, &sel, &ins) != 0)
        return -1;
    int nc = t->ncols, rc = -1;
    const char **vals = calloc((size_t)nc, sizeof *vals);
    int *lens = calloc((size_t)nc, sizeof *lens), *fmts = calloc((size_t)nc, sizeof *fmts);
    char(*nums)[32] = calloc((size_t)nc, sizeof *nums);
    if (!vals || !lens || !fmts || !nums) {
        say(m->err, m->n, "out of memory");
        goto done;
    }
    snprintf(name, sizeof name, "qk_migrate_%d", idx);
    /* The parameters' types are left to the server: those of the
     * INSERT's columns, so "720" becomes a BIGINT and blob bytes a BYTEA. */
    PGresult *pr = PQprepare(m->pg, name, ins, nc, NULL);
    if (!pr || PQresultStatus(pr) != PGRES_COMMAND_OK) {
        say_pg(m->err, m->n, t->name, pr ? PQresultErrorMessage(pr) : PQerrorMessage(m->pg));
        PQclear(pr);
        goto done;
    }
    PQclear(pr);
    if (sqlite3_prepare_v2(m->db, sel, -1, &st, NULL) != SQLITE_OK) {
        sq_fail(m);
        goto done;
    }
    if (!PQenterPipelineMode(m->pg)) {
        say_pg(m->err, m->n, "pipeline mode", PQerrorMessage(m->pg));
        goto done;
    }
    int sent = 0, pend_n = 0, src = SQLITE_DONE; /* pend: synced, results unread */
    int64_t pend_first = 0;
    bool failed = false;
    while (!failed && (src = sqlite3_step(st)) == SQLITE_ROW) {
        for (int i = 0; i < nc; i++) {
            fmts[i] = 0;
            lens[i] = 0;
            switch (sqlite3_column_type(st, i)) {
            case SQLITE_NULL:
                vals[i] = NULL;
                break;
            case SQLITE_INTEGER:
                snprintf(nums[i], sizeof nums[i], "%lld", (long long)sqlite3_column_int64(st, i));
                vals[i] = nums[i];
                break;
            case SQLITE_FLOAT:
                snprintf(nums[i], sizeof nums[i], "%.17g", sqlite3_column_double(st, i));
                vals[i] = nums[i];
                break;
            case SQLITE_BLOB: {
                const void *b = sqlite3_column_blob(st, i);
                lens[i] = sqlite3_column_bytes(st, i);
                /* An empty blob is a NULL pointer to SQLite, and a NULL
                 * value is SQL NULL to libpq: keep it an empty bytea. */
                vals[i] = b ? (const char *)b : "";
                fmts[i] = 1;
                break;
            }
            default:
                vals[i] = (const char *)sqlite3_column_text(st, i);
                break;
            }
        }
        /* libpq copies the values into its output buffer here, so the
         * row's buffers are free again at the next step. */
        if (!PQsendQueryPrepared(m->pg, name, nc, vals, lens, fmts, 0)) {
            say_pg(m->err, m->n, t->name, PQerrorMessage(m->pg));
            failed = true;
            break;
        }
        sent++;
        (*rows)++;
        if (sent == MIGRATE_BATCH) {
            /* One batch in flight: the server inserts this one while the
             * previous one's results are read and the next one is read
             * from SQLite and sent. */
            if (!PQpipelineSync(m->pg)) {
                say_pg(m->err, m->n, t->name, PQerrorMessage(m->pg));
                failed = true;
                break;
            }
            if (pend_n && read_batch(m, t, pend_first, pend_n) != 0)
                failed = true;
            pend_first = *rows - sent;
            pend_n = sent;
            sent = 0;
        }
    }
    if (!failed && src != SQLITE_DONE) {
        sq_fail(m);
        failed = true;
    }
    /* The last, short batch, then whatever is in flight; after a failure
     * too, so that the connection leaves pipeline mode cleanly for the
     * ROLLBACK. */
    bool synced = sent == 0 || PQpipelineSync(m->pg);
    if (!synced && !failed) {
        say_pg(m->err, m->n, t->name, PQerrorMessage(m->pg));
        failed = true;
    }
    if (pend_n && read_batch(m, t, pend_first, pend_n) != 0 && !failed)
        failed = true;
    if (sent && synced && read_batch(m, t, *rows - sent, sent) != 0 && !failed)
        failed = true;
    if (!PQexitPipelineMode(m->pg) && !failed) {
        say_pg(m->err, m->n, "pipeline mode", PQerrorMessage(m->pg));
        failed = true;
    }
    rc = failed ? -1 : 0;
done:
    sqlite3_finalize(st);
    free(vals);
    free(lens);
    free(fmts);
    free(nums);
    free(sel);
    free(ins);
    return rc;
}

/* Move every identity (or serial) sequence of t to the largest id copied,
 * so the first row the server adds gets the next one: the copy inserted
 * its ids explicitly, which never advances a sequence. An empty table's
 * sequence starts at 1. */
static int reset_sequences(mig *m, const mtable *t)
{
    char *qt = pg_ident(m, t->name);
    if (!qt)
        return -1;
    int rc = 0;
    for (int i = 0; rc == 0 && i < t->ncols; i++) {
        const char *p[2] = {qt, t->cols[i]};
        PGresult *r =
            pg_do(m, t->name, "SELECT pg_get_serial_sequence($1, $2)", 2, p, PGRES_TUPLES_OK);
        if (!r) {
            rc = -1;
            break;
        }
        if (!PQgetisnull(r, 0, 0)) {
            char *qc = pg_ident(m, t->cols[i]), sql[400];
            const char *seq[1] = {PQgetvalue(r, 0, 0)};
            if (!qc) {
                rc = -1;
            } else {
                snprintf(sql, sizeof sql,
                         "SELECT setval($1::regclass, coalesce(max(%s), 1), max(%s) IS NOT NULL) "
                         "FROM %s",
                         qc, qc, qt);
                PGresult *s = pg_do(m, t->name, sql, 1, seq, PGRES_TUPLES_OK);
                rc = s ? 0 : -1;
                PQclear(s);
                PQfreemem(qc);
            }
        }
        PQclear(r);
    }
    PQfreemem(qt);
    return rc;
}

/* Both sides' row counts of every table into src_rows and pg_rows. */
static int count_rows(mig *m)
{
    for (int i = 0; i < m->nt; i++) {
        mtable *t = &m->t[i];
        char *sq = sqlite3_mprintf("SELECT count(*) FROM \"%w\"", t->name);
        sqlite3_stmt *st = NULL;
        int rc = sq ? sqlite3_prepare_v2(m->db, sq, -1, &st, NULL) : SQLITE_NOMEM;
        sqlite3_free(sq);
        if (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
            t->src_rows = sqlite3_column_int64(st, 0);
        else
            rc = SQLITE_ERROR;
        sqlite3_finalize(st);
        if (rc != SQLITE_OK)
            return sq_fail(m);
        char *qt = pg_ident(m, t->name), sql[300];
        if (!qt)
            return -1;
        snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", qt);
        PQfreemem(qt);
        PGresult *r = pg_do(m, t->name, sql, 0, NULL, PGRES_TUPLES_OK);
        if (!r)
            return -1;
        t->pg_rows = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
        PQclear(r);
    }
    return 0;
}

int migrate_copy(const char *src, const char *url, migrate_table_cb cb, void *arg,
                 migrate_stats *stats, char *err, size_t n)
{
    int64_t t0 = mono_ms();
    mig m = {.src = src, .err = err, .n = n};
    migrate_stats st = {0};
    err[0] = '\0';
    int rc = -1;
    bool in_txn = false;
    if (!store_pg_is_url(url)) {
        say(err, n, "--db must be a PostgreSQL URL (postgresql://USER@HOST:PORT/DBNAME)");
        goto out;
    }
    if (open_source(&m) != 0 || read_tables(&m) != 0 || order_tables(&m) != 0)
        goto out;
    /* The store's own open makes or migrates the target's schema, under
     * its advisory lock, exactly as a node starting on it would. */
    store *target = NULL;
    if (store_pg_open(url, &target) != STORE_OK) {
        say(err, n, "cannot open the target as a qirkat database (the reason is logged above)");
        goto out;
    }
    store_close(target);
    if (connect_pg(&m, url) != 0)
        goto out;
    int64_t c0 = mono_ms();
    if (pg_cmd(&m, "BEGIN", "BEGIN") != 0)
        goto out;
    in_txn = true;
    for (int i = 0; i < m.nt; i++)
        if (check_columns(&m, &m.t[i]) != 0)
            goto out;
    if (lock_and_check_empty(&m) != 0)
        goto out;
    for (int i = 0; i < m.nt; i++) {
        int64_t rows = 0;
        int r = copy_table(&m, &m.t[i], i, &rows);
        st.rows += rows;
        if (r != 0 || reset_sequences(&m, &m.t[i]) != 0)
            goto out;
        st.tables++;
    }
    if (pg_cmd(&m, "COMMIT", "COMMIT") != 0)
        goto out;
    in_txn = false;
    st.copy_ms = mono_ms() - c0;
    if (count_rows(&m) != 0)
        goto out;
    int differ = 0;
    for (int i = 0; i < m.nt; i++) {
        if (cb)
            cb(arg, m.t[i].name, m.t[i].src_rows, m.t[i].pg_rows);
        differ += m.t[i].src_rows != m.t[i].pg_rows;
    }
    if (differ) {
        say(err, n,
            "the copy committed, but %d table%s a different row count in PostgreSQL: drop the "
            "target database and migrate again",
            differ, differ == 1 ? " has" : "s have");
        goto out;
    }
    rc = 0;
out:
    if (in_txn) {
        /* The failure's message is kept; the rollback's own is not news. */
        PGresult *r = PQexec(m.pg, "ROLLBACK");
        PQclear(r);
    }
    if (m.pg)
        PQfinish(m.pg);
    if (m.db) {
        sqlite3_exec(m.db, "COMMIT", NULL, NULL, NULL);
        sqlite3_close(m.db);
    }
    free_tables(&m);
    st.total_ms = mono_ms() - t0;
    if (stats)
        *stats = st;
    return rc;
}

/* ---- the games of a PostgreSQL database, for the replay ------------------ */

typedef struct walk {
    mig *m;
    PGresult *mv; /* the current fetch of moves */
    int mi;       /* next row of mv */
    bool moves_done;
} walk;

/* The next move row (game_id, ply, move) at w->mv row w->mi, fetching more
 * when needed; false at the end or on an error (err set). */
static bool next_move(walk *w, bool *failed)
{
    if (w->mv && w->mi < PQntuples(w->mv))
        return true;
    PQclear(w->mv);
    w->mv = NULL;
    w->mi = 0;
    if (w->moves_done)
        return false;
    w->mv = pg_do(w->m, "moves", "FETCH " MIGRATE_STR(MOVES_FETCH) " FROM qk_moves", 0, NULL,
                  PGRES_TUPLES_OK);
    if (!w->mv) {
        *failed = true;
        return false;
    }
    if (PQntuples(w->mv) == 0) {
        w->moves_done = true;
        return false;
    }
    return true;
}

int migrate_pg_games(const char *url, int (*cb)(void *arg, const offline_game *g), void *arg,
                     char *err, size_t n)
{
    mig m = {.src = url, .err = err, .n = n};
    walk w = {.m = &m};
    PGresult *gs = NULL;
    char **texts = NULL;
    int64_t *plies = NULL;
    size_t cap = 0, k = 0;
    int rc = -1;
    bool failed = false;
    err[0] = '\0';
    if (connect_pg(&m, url) != 0)
        goto out;
    /* One snapshot for the games and their moves. */
    if (pg_cmd(&m, "BEGIN", "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") != 0 ||
        pg_cmd(&m, "games",
               "DECLARE qk_games NO SCROLL CURSOR FOR SELECT id, variant, start, position, ply, "
               "status, coalesce(result, ''), coalesce(reason, '') FROM games ORDER BY id") != 0 ||
        pg_cmd(&m, "moves",
               "DECLARE qk_moves NO SCROLL CURSOR FOR SELECT game_id, ply, move FROM moves "
               "ORDER BY game_id, ply") != 0)
        goto out;
    int stop = 0;
    while (!stop) {
        PQclear(gs);
        gs = pg_do(&m, "games", "FETCH " MIGRATE_STR(GAMES_FETCH) " FROM qk_games", 0, NULL,
                   PGRES_TUPLES_OK);
        if (!gs)
            goto out;
        if (PQntuples(gs) == 0)
            break;
        for (int gi = 0; !stop && gi < PQntuples(gs); gi++) {
            long long id = strtoll(PQgetvalue(gs, gi, 0), NULL, 10);
            for (size_t i = 0; i < k; i++)
                free(texts[i]);
            k = 0;
            /* Both cursors run in id order: this game's moves are the
             * next rows of the moves' cursor (a move of no game cannot
             * be: moves.game_id references games). */
            while (next_move(&w, &failed)) {
                long long gid = strtoll(PQgetvalue(w.mv, w.mi, 0), NULL, 10);
                if (gid > id)
                    break;
                if (gid == id) {
                    if (k == cap) {
                        size_t nc = cap ? cap * 2 : 256;
                        char **t2 = realloc(texts, nc * sizeof *t2);
                        if (t2)
                            texts = t2;
                        int64_t *p2 = t2 ? realloc(plies, nc * sizeof *p2) : NULL;
                        if (!p2) {
                            say(err, n, "out of memory");
                            goto out;
                        }
                        plies = p2;
                        cap = nc;
                    }
                    plies[k] = strtoll(PQgetvalue(w.mv, w.mi, 1), NULL, 10);
                    if (!(texts[k] = strdup(PQgetvalue(w.mv, w.mi, 2)))) {
                        say(err, n, "out of memory");
                        goto out;
                    }
                    k++;
                }
                w.mi++;
            }
            if (failed)
                goto out;
            offline_game g = {.id = id,
                              .variant = PQgetvalue(gs, gi, 1),
                              .start = PQgetvalue(gs, gi, 2),
                              .position = PQgetvalue(gs, gi, 3),
                              .ply = strtoll(PQgetvalue(gs, gi, 4), NULL, 10),
                              .status = PQgetvalue(gs, gi, 5),
                              .result = PQgetvalue(gs, gi, 6),
                              .reason = PQgetvalue(gs, gi, 7),
                              .nmoves = (int64_t)k,
                              .moves = (const char *const *)texts,
                              .plies = plies};
            stop = cb(arg, &g);
        }
    }
    rc = 0;
out:
    for (size_t i = 0; i < k; i++)
        free(texts[i]);
    free(texts);
    free(plies);
    PQclear(gs);
    PQclear(w.mv);
    if (m.pg) {
        PGresult *r = PQexec(m.pg, "COMMIT");
        PQclear(r);
        PQfinish(m.pg);
    }
    return rc;
}
