/*
 * pg: the PostgreSQL backend's opening (pg.h): the connection, the
 * schema's migrations, every area's statements prepared once, and the
 * event channel between nodes. The one file of the backend that knows
 * every area.
 */
#include "store/pg.h"

#include <stdlib.h>
#include <string.h>

#include "store/pg/pg_areas.h"
#include "store/pg/pg_migrate.h"
#include "util/log.h"

static const pg_area_stmts *const areas[] = {
    &pg_core_stmts,    &pg_users_stmts,   &pg_challenges_stmts, &pg_games_stmts, &pg_corr_stmts,
    &pg_ratings_stmts, &pg_tourney_stmts, &pg_records_stmts,    &pg_admin_stmts,
};

bool store_pg_is_url(const char *path)
{
    return path &&
           (strncmp(path, "postgresql://", 13) == 0 || strncmp(path, "postgres://", 11) == 0);
}

bool store_is_pg(const store *s)
{
    return s && s->core == &pg_core_ops;
}

static void on_notify(void *arg, const char *channel, const char *payload)
{
    pg_store *s = arg;
    if (s->listen_cb && strcmp(channel, STORE_PG_CHANNEL) == 0)
        s->listen_cb(s->listen_arg, payload);
}

int store_pg_listen(store *base, void (*cb)(void *arg, const char *payload), void *arg)
{
    if (!store_is_pg(base))
        return STORE_EIO;
    pg_store *s = pg_of(base);
    s->listen_cb = cb;
    s->listen_arg = arg;
    s->on_notify = on_notify;
    s->notify_arg = s;
    return STORE_OK;
}

int store_pg_notify(store *base, const char *payload)
{
    if (!store_is_pg(base))
        return STORE_EIO;
    return pg_core_notify(pg_of(base), payload);
}

void store_pg_exclusive(store *base, bool on)
{
    if (!store_is_pg(base))
        return;
    if (!on)
        pg_drop_ids(pg_of(base)); /* ids in creation order across nodes */
    pg_of(base)->exclusive = on;
}

void store_pg_migrate_past_sessions(bool on)
{
    pg_migrate_past_sessions(on);
}

void store_pg_on_lost(store *base, void (*cb)(void *arg), void *arg)
{
    if (!store_is_pg(base))
        return;
    pg_of(base)->on_lost = cb;
    pg_of(base)->lost_arg = arg;
}

int store_pg_open(const char *url, store **out)
{
    *out = NULL;
    pg_store *s = calloc(1, sizeof *s);
    if (!s)
        return STORE_EIO;
    s->base.core = &pg_core_ops;
    s->base.users = &pg_users_ops;
    s->base.challenges = &pg_challenges_ops;
    s->base.games = &pg_games_ops;
    s->base.corr = &pg_corr_ops;
    s->base.ratings = &pg_ratings_ops;
    s->base.tourney = &pg_tourney_ops;
    s->base.records = &pg_records_ops;
    s->base.admin = &pg_admin_ops;
    s->tail = &s->head;
    s->url = strdup(url);
    int version = 0;
    if (!s->url || pg_connect(s, url) != STORE_OK)
        goto fail;
    /* pg_migrate() uses libpq's blocking calls, allowed here (the loop
     * does not run yet), on a blocking connection. */
    PQsetnonblocking(s->conn, 0);
    if (pg_migrate(s->conn, &version) != 0)
        goto fail;
    PQsetnonblocking(s->conn, 1);
    for (size_t i = 0; i < sizeof areas / sizeof areas[0]; i++)
        if (pg_prepare(s, areas[i]) != STORE_OK)
            goto fail;
    if (pg_exec_text(s, "LISTEN " STORE_PG_CHANNEL, "LISTEN") != STORE_OK)
        goto fail;
    *out = &s->base;
    return STORE_OK;
fail:
    pg_core_ops.close(&s->base);
    return STORE_EIO;
}
