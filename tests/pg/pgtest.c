/*
 * pgtest: see pgtest.h.
 */
#include "pgtest.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char made[64][64];
static int nmade;
static char tmpdir[256];

const char *pgtest_url(void)
{
    const char *u = getenv("QK_PG_URL");
    return u && *u ? u : NULL;
}

/* The cluster URL with its database replaced by db. */
static void url_with_db(const char *base, const char *db, char *out, size_t n)
{
    const char *slash = strrchr(base, '/');
    const char *q = strchr(base, '?');
    size_t head = slash && slash > strstr(base, "://") + 2 ? (size_t)(slash - base) : strlen(base);
    snprintf(out, n, "%.*s/%s%s", (int)head, base, db, q ? q : "");
}

static int admin_exec(const char *sql)
{
    const char *base = pgtest_url();
    if (!base)
        return -1;
    PGconn *c = PQconnectdb(base);
    if (PQstatus(c) != CONNECTION_OK) {
        fprintf(stderr, "pgtest: connect %s: %s", base, PQerrorMessage(c));
        PQfinish(c);
        return -1;
    }
    PGresult *r = PQexec(c, sql);
    int ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    if (!ok)
        fprintf(stderr, "pgtest: %s: %s", sql, PQresultErrorMessage(r));
    PQclear(r);
    PQfinish(c);
    return ok ? 0 : -1;
}

int pgtest_new_db(char *url, size_t n)
{
    if (!pgtest_url() || nmade >= 64)
        return -1;
    char name[64], sql[128];
    snprintf(name, sizeof name, "qk_t%ld_%d", (long)getpid(), nmade);
    snprintf(sql, sizeof sql, "CREATE DATABASE %.63s", name);
    if (admin_exec(sql) != 0)
        return -1;
    snprintf(made[nmade++], sizeof made[0], "%s", name);
    url_with_db(pgtest_url(), name, url, n);
    return 0;
}

void pgtest_drop_all(void)
{
    char sql[128];
    for (int i = 0; i < nmade; i++) {
        snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS %.63s WITH (FORCE)", made[i]);
        (void)admin_exec(sql);
    }
    nmade = 0;
    if (tmpdir[0]) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
        if (system(cmd) != 0)
            fprintf(stderr, "pgtest: could not remove %s\n", tmpdir);
        tmpdir[0] = '\0';
    }
}

store *pgtest_open_pg(void)
{
    char url[512];
    store *s = NULL;
    if (pgtest_new_db(url, sizeof url) != 0 || store_open(url, &s) != STORE_OK)
        return NULL;
    return s;
}

store *pgtest_open_sqlite(void)
{
    static int n;
    if (!tmpdir[0]) {
        snprintf(tmpdir, sizeof tmpdir, "/tmp/qk-pgtest-XXXXXX");
        if (!mkdtemp(tmpdir)) {
            tmpdir[0] = '\0';
            return NULL;
        }
    }
    char path[320];
    snprintf(path, sizeof path, "%s/s%d.db", tmpdir, n++);
    store *s = NULL;
    return store_open(path, &s) == STORE_OK ? s : NULL;
}
