/*
 * pg_offline: `qirkatd admin grant|revoke|log` on a PostgreSQL database
 * (store/offline.h pg_offline_admin_set/_log, the twins of SQLite's
 * offline_admin_set/_log): the operator's one way to make an
 * administrator, for servers whose nodes share PostgreSQL. A command,
 * not the server's loop: plain blocking libpq on a connection of its own,
 * one transaction, bound parameters. The row lock on the user (FOR
 * UPDATE) keeps two operators from both logging the same change.
 */
#include <libpq-fe.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/offline.h"
#include "store/pg/pg_migrate.h"

#define ADMIN_SCHEMA 13 /* users.admin and admin_log (migration 13) */

static void say(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
}

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Connect and check the schema has the admin columns. */
static PGconn *open_db(const char *url, char *err, size_t n)
{
    PGconn *c = PQconnectdb(url);
    if (PQstatus(c) != CONNECTION_OK) {
        say(err, n, "cannot connect: %s", PQerrorMessage(c));
        PQfinish(c);
        return NULL;
    }
    PGresult *r = PQexec(c, "SELECT version FROM qirkat_schema");
    int v = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 ? atoi(PQgetvalue(r, 0, 0)) : 0;
    PQclear(r);
    if (v < ADMIN_SCHEMA) {
        say(err, n, "the database is at schema %d, administrators need %d: start qirkatd on it once",
            v, ADMIN_SCHEMA);
        PQfinish(c);
        return NULL;
    }
    return c;
}

static bool ok(PGresult *r, ExecStatusType want)
{
    return r && PQresultStatus(r) == want;
}

int pg_offline_admin_set(const char *url, const char *name, bool grant, bool *changed,
                         char *username, char *err, size_t n)
{
    *changed = false;
    username[0] = '\0';
    PGconn *c = open_db(url, err, n);
    if (!c)
        return -1;
    PGresult *r = PQexec(c, "BEGIN");
    bool fine = ok(r, PGRES_COMMAND_OK);
    PQclear(r);
    const char *p1[1] = {name};
    r = fine ? PQexecParams(c,
                            "SELECT id, username, admin FROM users WHERE lower(username) = "
                            "lower($1) FOR UPDATE",
                            1, NULL, p1, NULL, NULL, 0)
             : NULL;
    if (!ok(r, PGRES_TUPLES_OK)) {
        say(err, n, "%s", PQerrorMessage(c));
        goto fail;
    }
    if (PQntuples(r) == 0) {
        say(err, n, "no user \"%s\"", name);
        goto fail;
    }
    char id[24];
    snprintf(id, sizeof id, "%s", PQgetvalue(r, 0, 0));
    snprintf(username, OFFLINE_NAME_MAX + 1, "%s", PQgetvalue(r, 0, 1));
    bool was = atoi(PQgetvalue(r, 0, 2)) != 0;
    PQclear(r);
    r = NULL;
    if (was != grant) {
        char target[64], at[24];
        snprintf(target, sizeof target, "user %s", username);
        snprintf(at, sizeof at, "%lld", (long long)wall_ms());
        const char *up[2] = {id, grant ? "1" : "0"};
        r = PQexecParams(c, "UPDATE users SET admin = $2 WHERE id = $1", 2, NULL, up, NULL, NULL, 0);
        fine = ok(r, PGRES_COMMAND_OK);
        PQclear(r);
        const char *lp[4] = {at, grant ? "grant" : "revoke", id, target};
        r = fine ? PQexecParams(c,
                                "INSERT INTO admin_log (at, admin_id, admin_name, action, "
                                "target_user_id, target, reason) VALUES ($1, NULL, 'operator', "
                                "$2, $3, $4, NULL)",
                                4, NULL, lp, NULL, NULL, 0)
                 : NULL;
        if (!ok(r, PGRES_COMMAND_OK)) {
            say(err, n, "%s", PQerrorMessage(c));
            goto fail;
        }
        PQclear(r);
        r = NULL;
        *changed = true;
    }
    r = PQexec(c, "COMMIT");
    if (!ok(r, PGRES_COMMAND_OK) || strcmp(PQcmdStatus(r), "COMMIT") != 0) {
        say(err, n, "COMMIT: %s", PQerrorMessage(c));
        *changed = false;
        goto fail;
    }
    PQclear(r);
    PQfinish(c);
    return 0;
fail:
    PQclear(r);
    PQclear(PQexec(c, "ROLLBACK"));
    PQfinish(c);
    *changed = false;
    return -1;
}

int pg_offline_admin_log(const char *url, int64_t limit,
                         void (*cb)(void *arg, const offline_admin_entry *e), void *arg, char *err,
                         size_t n)
{
    PGconn *c = open_db(url, err, n);
    if (!c)
        return -1;
    char lim[24];
    snprintf(lim, sizeof lim, "%lld", (long long)limit);
    const char *p[1] = {lim};
    PGresult *r = PQexecParams(c,
                               "SELECT l.id, l.at, l.admin_name, l.action, l.target, "
                               "coalesce(u.username, ''), coalesce(l.reason, '') "
                               "FROM admin_log l LEFT JOIN users u ON u.id = l.target_user_id "
                               "ORDER BY l.id DESC LIMIT $1",
                               1, NULL, p, NULL, NULL, 0);
    if (!ok(r, PGRES_TUPLES_OK)) {
        say(err, n, "%s", PQerrorMessage(c));
        PQclear(r);
        PQfinish(c);
        return -1;
    }
    for (int i = 0; i < PQntuples(r); i++) {
        offline_admin_entry e = {.id = strtoll(PQgetvalue(r, i, 0), NULL, 10),
                                 .at = strtoll(PQgetvalue(r, i, 1), NULL, 10),
                                 .admin = PQgetvalue(r, i, 2),
                                 .action = PQgetvalue(r, i, 3),
                                 .target = PQgetvalue(r, i, 4),
                                 .user = PQgetvalue(r, i, 5),
                                 .reason = PQgetvalue(r, i, 6)};
        cb(arg, &e);
    }
    PQclear(r);
    PQfinish(c);
    return 0;
}
