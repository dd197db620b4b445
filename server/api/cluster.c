/*
 * cluster: see cluster.h.
 */
#include "api/cluster.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "api/fanout.h"
#include "game/games.h"
#include "game/svc.h"
#include "qk_proto.h"
#include "store/pg.h"
#include "util/log.h"
#include "util/metrics.h"
#include "util/task.h"

static void deliver(void *ctx, const char *name, const cJSON *ev, const events_to *to)
{
    cluster *c = ctx;
    c->local.deliver(c->local.ctx, name, ev, to);
    cJSON *p = cJSON_CreateObject();
    cJSON *u = p ? cJSON_AddArrayToObject(p, "u") : NULL;
    if (!u)
        goto oom;
    for (int i = 0; i < 2; i++)
        if (!cJSON_AddItemToArray(u, cJSON_CreateNumber((double)to->users[i])))
            goto oom;
    if (!cJSON_AddStringToObject(p, "n", c->node) || !cJSON_AddStringToObject(p, "e", name) ||
        !cJSON_AddNumberToObject(p, "g", (double)to->game_id) ||
        !qk_json_add_int(p, "t", svc_now(c->api->svc)) ||
        !cJSON_AddBoolToObject(p, "a", to->all) || !cJSON_AddBoolToObject(p, "p", to->players_only) ||
        !cJSON_AddItemReferenceToObject(p, "ev", (cJSON *)ev))
        goto oom;
    char *text = cJSON_PrintUnformatted(p);
    cJSON_Delete(p);
    if (!text) {
        log_error("cluster: out of memory: %s not published", name);
        return;
    }
    if (strlen(text) > CLUSTER_PAYLOAD_MAX) {
        c->too_big++;
        metric_inc(c->m_events, CLUSTER_TOO_BIG, 0);
        log_warn("cluster: %s event of %zu bytes is too big to publish to the other nodes", name,
                 strlen(text));
    } else if (store_pg_notify(c->api->svc->store, text) == STORE_OK) {
        c->sent++;
        metric_inc(c->m_events, CLUSTER_SENT, 0);
    }
    free(text);
    return;
oom:
    cJSON_Delete(p);
    log_error("cluster: out of memory: %s not published", name);
}

static bool online(void *ctx, int64_t user_id)
{
    cluster *c = ctx;
    return c->local.online && c->local.online(c->local.ctx, user_id);
}

const char *const cluster_outcomes[CLUSTER_OUTCOMES] = {"sent", "received", "too_big", "bad",
                                                          "applied"};

typedef struct received {
    cluster *c;
    char payload[];
} received;

static int64_t num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? (int64_t)v->valuedouble : 0;
}

/* A move event of game id applied to this node's cached game (or the
 * game is not cached here): true; false when the game must be read again
 * (games_apply_move()). Only a move carries what changed; every other
 * event of a game is read again. */
static bool applied(cluster *c, const char *name, const cJSON *ev, int64_t id, int64_t at)
{
    if (strcmp(name, "move") != 0)
        return false;
    const cJSON *ply = cJSON_GetObjectItemCaseSensitive(ev, "ply");
    const cJSON *dl = cJSON_GetObjectItemCaseSensitive(ev, "deadline");
    const char *mv = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev, "move"));
    const char *pos = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev, "position"));
    const char *st = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev, "status"));
    if (!cJSON_IsNumber(ply) || !(cJSON_IsNumber(dl) || cJSON_IsNull(dl)) || !st ||
        strcmp(st, "active") != 0 || at <= 0)
        return false;
    int rc = games_apply_move(c->api->svc->games, id, (int64_t)ply->valuedouble, mv, pos,
                             cJSON_IsNumber(dl) ? (int64_t)dl->valuedouble : -1, at);
    if (rc == 0) {
        c->applied++;
        metric_inc(c->m_events, CLUSTER_APPLIED, 0);
    }
    return rc >= 0;
}

/* Another node's event, between requests. */
static void received_fn(void *arg)
{
    received *r = arg;
    cluster *c = r->c;
    cJSON *p = cJSON_Parse(r->payload);
    free(r);
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(p, "n");
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(p, "e");
    const cJSON *ev = cJSON_GetObjectItemCaseSensitive(p, "ev");
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(p, "u");
    if (!cJSON_IsString(n) || !cJSON_IsString(e) || !cJSON_IsObject(ev) || !cJSON_IsArray(u) ||
        cJSON_GetArraySize(u) != 2) {
        c->bad++;
        metric_inc(c->m_events, CLUSTER_BAD, 0);
        log_warn("cluster: a payload that is not an event was ignored");
        cJSON_Delete(p);
        return;
    }
    if (strcmp(n->valuestring, c->node) == 0) {
        cJSON_Delete(p); /* ours: delivered when it was made */
        return;
    }
    c->received++;
    metric_inc(c->m_events, CLUSTER_RECEIVED, 0);
    events_to to = {
        .users = {(int64_t)cJSON_GetArrayItem(u, 0)->valuedouble,
                  (int64_t)cJSON_GetArrayItem(u, 1)->valuedouble},
        .game_id = num(p, "g"),
        .all = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "a")),
        .players_only = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "p")),
    };
    gsvc *g = c->api->svc;
    if (to.game_id > 0 && !applied(c, e->valuestring, ev, to.game_id, num(p, "t"))) {
        /* What this node holds of the game is older than the database. */
        games_forget(g->games, to.game_id);
        g->wake_dirty = true;
    }
    c->local.deliver(c->local.ctx, e->valuestring, ev, &to);
    cJSON_Delete(p);
}

static void on_payload(void *arg, const char *payload)
{
    cluster *c = arg;
    size_t n = strlen(payload);
    received *r = malloc(sizeof *r + n + 1);
    if (!r) {
        log_error("cluster: out of memory: an event of another node was dropped");
        return;
    }
    r->c = c;
    memcpy(r->payload, payload, n + 1);
    if (task_run(received_fn, r) != 0) {
        free(r);
        log_error("cluster: out of memory: an event of another node was dropped");
    }
}

int cluster_init(cluster *c, api *a)
{
    memset(c, 0, sizeof *c);
    c->api = a;
    c->local = fanout_sink(a);
    unsigned char id[8];
    randombytes_buf(id, sizeof id);
    sodium_bin2hex(c->node, sizeof c->node, id, sizeof id);
    if (store_pg_listen(a->svc->store, on_payload, c) != STORE_OK) {
        log_error("cluster: the store is not PostgreSQL");
        return -1;
    }
    log_info("cluster: node %s listens on %s", c->node, STORE_PG_CHANNEL);
    return 0;
}

event_sink cluster_sink(cluster *c)
{
    return (event_sink){deliver, c, online};
}
