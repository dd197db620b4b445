/*
 * cluster: see cluster.h.
 */
#include "api/cluster.h"

#include <stdint.h>
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

/* Publish an event to the other nodes (the payload's shape is checked by
 * received_fn). */
static void publish(cluster *c, const char *name, const cJSON *ev, const events_to *to)
{
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

int cluster_peers(const cluster *c)
{
    int n = 0;
    for (int i = 0; i < CLUSTER_PEERS; i++)
        n += c->peers[i].seen != 0;
    return n;
}

/* No other node is known (cluster.h "Alone"). */
static bool alone(cluster *c)
{
    return uv_now(c->api->loop) - c->started >= c->silent_ms && cluster_peers(c) == 0;
}

static void deliver(void *ctx, const char *name, const cJSON *ev, const events_to *to)
{
    cluster *c = ctx;
    c->local.deliver(c->local.ctx, name, ev, to);
    if (alone(c)) {
        store_pg_exclusive(c->api->svc->store, true);
        c->alone++;
        metric_inc(c->m_events, CLUSTER_ALONE, 0);
        return;
    }
    publish(c, name, ev, to);
}

/* ---- presence across nodes -------------------------------------------- */

/* What this node caches of games may be older than the database: every
 * game is read again on next use, and the deadline timer re-arms from the
 * database. */
static void forget_games(cluster *c)
{
    games_forget_cached(c->api->svc->games);
    c->api->svc->wake_dirty = true;
}

static void publish_present(cluster *c);

/* The slot of peer node id (its last word is now): an index of c->peers,
 * or -1 when CLUSTER_PEERS are known already. *learnt: it was not known
 * (new, or forgotten after a silence). */
static int peer_slot(cluster *c, const char *id, bool *learnt)
{
    uint64_t now = uv_now(c->api->loop);
    bool was_alone = alone(c);
    int free_slot = -1;
    *learnt = false;
    for (int i = 0; i < CLUSTER_PEERS; i++) {
        if (c->peers[i].seen && strcmp(c->peers[i].node, id) == 0) {
            c->peers[i].seen = now;
            return i;
        }
        if (!c->peers[i].seen && free_slot < 0)
            free_slot = i;
    }
    if (free_slot < 0)
        return -1;
    snprintf(c->peers[free_slot].node, sizeof c->peers[free_slot].node, "%s", id);
    c->peers[free_slot].seen = now;
    *learnt = true;
    /* Another node may write now: every move's write waits again. */
    store_pg_exclusive(c->api->svc->store, false);
    /* It may have been alone until now, publishing none of its moves
     * (cluster.h "Alone"). */
    forget_games(c);
    /* And so may this node: a peer that learnt of it from an `_alive` sent
     * while it was still alone would cache what it goes on changing until
     * this word. A new `_hello`, in commit order after every move written
     * alone, makes the peers forget their caches once more; since they
     * also forget this node's users on a hello, its whole set follows. */
    if (was_alone) {
        cJSON *ev = cJSON_CreateObject();
        events_to to = {.users = {0, 0}};
        if (ev)
            publish(c, "_hello", ev, &to);
        else
            log_error("cluster: out of memory: the end of this node's time alone not published");
        cJSON_Delete(ev);
        publish_present(c);
        c->set_sent = true; /* peer_event() sends it no second time */
    }
    return free_slot;
}

/* The entry of (user, slot) in c->remote, or NULL. */
static reg_node *remote_entry(cluster *c, int64_t user, int slot)
{
    return reg_find(&c->remote, user, (void *)(uintptr_t)(slot + 1));
}

static void remote_set(cluster *c, int64_t user, int slot, bool on)
{
    reg_node *n = remote_entry(c, user, slot);
    if (on && !n && !reg_add(&c->remote, user, (void *)(uintptr_t)(slot + 1)))
        log_warn("cluster: out of memory: user %lld's presence on another node not kept",
                 (long long)user);
    if (!on && n)
        reg_remove(&c->remote, n);
}

/* Forget everything of peer slot (it went silent, or said hello again). */
static void peer_forget(cluster *c, int slot)
{
    for (size_t b = 0; b < c->remote.nbuckets; b++)
        for (reg_node *n = c->remote.buckets[b], *next; n; n = next) {
            next = n->next;
            if (n->val == (void *)(uintptr_t)(slot + 1))
                reg_remove(&c->remote, n);
        }
}

/* This node's online users in `_present` events of at most
 * CLUSTER_PRESENT_CHUNK ids each (an answer to another node's `_hello` or
 * `_ask`, and every CLUSTER_REFRESH_BEATS beats). The first one says
 * "first": the receivers replace what they hold of this node with the
 * lists that follow it in commit order. */
/* An empty `_present` list (NULL: out of memory). */
static cJSON *present_list(bool first)
{
    cJSON *ev = cJSON_CreateObject();
    if (!ev || !cJSON_AddArrayToObject(ev, "users") ||
        (first && !cJSON_AddTrueToObject(ev, "first"))) {
        cJSON_Delete(ev);
        return NULL;
    }
    return ev;
}

static void publish_present(cluster *c)
{
    registry *users = &c->api->users;
    cJSON *ev = NULL, *ids = NULL;
    int n = 0, n_sent = 0;
    events_to to = {.users = {0, 0}};
    for (size_t b = 0; b < users->nbuckets; b++)
        for (const reg_node *k = users->buckets[b]; k; k = k->next) {
            /* One entry per user: the first connection of its key. */
            if (reg_first(users, k->key) != k)
                continue;
            if (!ev) {
                ev = present_list(n_sent == 0);
                ids = cJSON_GetObjectItemCaseSensitive(ev, "users");
                if (!ids)
                    goto oom;
            }
            if (!cJSON_AddItemToArray(ids, cJSON_CreateNumber((double)k->key)))
                goto oom;
            if (++n == CLUSTER_PRESENT_CHUNK) {
                publish(c, "_present", ev, &to);
                cJSON_Delete(ev);
                ev = NULL;
                n = 0;
                n_sent++;
            }
        }
    /* At least one list, empty too: the new node learns of this one at
     * once, and the others drop what they held of it. */
    if (!ev && !(ev = present_list(n_sent == 0)))
        goto oom;
    publish(c, "_present", ev, &to);
    cJSON_Delete(ev);
    return;
oom:
    cJSON_Delete(ev);
    log_error("cluster: out of memory: this node's presence list not published");
}

/* `_ask` {"node": id}: node id publishes its `_present` lists. */
static void ask_present(cluster *c, const char *id)
{
    cJSON *ev = cJSON_CreateObject();
    if (!ev || !cJSON_AddStringToObject(ev, "node", id)) {
        cJSON_Delete(ev);
        log_error("cluster: out of memory: node %s not asked for its presence list", id);
        return;
    }
    events_to to = {.users = {0, 0}};
    publish(c, "_ask", ev, &to);
    cJSON_Delete(ev);
}

/* Another node's word about presence (`_presence`, `_present`, `_hello`,
 * `_alive`): see cluster.h "Presence". */
static void peer_event(cluster *c, const char *node, const char *name, const cJSON *ev,
                       int64_t user)
{
    bool learnt;
    c->set_sent = false;
    int slot = peer_slot(c, node, &learnt);
    if (slot < 0) {
        log_warn("cluster: more than %d nodes: node %s's presence not kept", CLUSTER_PEERS, node);
        return;
    }
    if (strcmp(name, "_presence") == 0 && user > 0) {
        remote_set(c, user, slot, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ev, "on")));
    } else if (strcmp(name, "_present") == 0) {
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ev, "first")))
            peer_forget(c, slot);
        const cJSON *id;
        cJSON_ArrayForEach(id, cJSON_GetObjectItemCaseSensitive(ev, "users"))
            if (cJSON_IsNumber(id) && id->valuedouble > 0)
                remote_set(c, (int64_t)id->valuedouble, slot, true);
        return;
    } else if (strcmp(name, "_hello") == 0) {
        /* A node that (re)started knows nobody: tell it who is here. Or
         * one that was alone until now (peer_slot()), whose moves of that
         * time this node may not have seen. */
        if (!learnt)
            forget_games(c);
        peer_forget(c, slot);
        if (!c->set_sent)
            publish_present(c);
        return;
    } else if (strcmp(name, "_ask") == 0) {
        const char *to = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev, "node"));
        if (to && strcmp(to, c->node) == 0 && !c->set_sent)
            publish_present(c);
    }
    /* A node heard again after a silence (this one's or its own), whose
     * users were forgotten: ask it for its list rather than wait for its
     * next refresh. */
    if (learnt)
        ask_present(c, node);
}

static void presence_changed(void *ctx, int64_t user, bool on)
{
    cluster *c = ctx;
    cJSON *ev = cJSON_CreateObject();
    if (!ev || !cJSON_AddBoolToObject(ev, "on", on)) {
        cJSON_Delete(ev);
        log_error("cluster: out of memory: user %lld's presence not published", (long long)user);
        return;
    }
    events_to to = {.users = {user, 0}};
    publish(c, "_presence", ev, &to);
    cJSON_Delete(ev);
}

/* Every beat_ms: say this node is alive (the first time, hello too; every
 * CLUSTER_REFRESH_BEATS, its whole presence list); forget the peers silent
 * for silent_ms. */
static void beat_cb(uv_timer_t *h)
{
    cluster *c = h->data;
    events_to to = {.users = {0, 0}};
    cJSON *ev = cJSON_CreateObject();
    if (!ev)
        return;
    if (!c->said_hello) {
        c->said_hello = true;
        /* The time alone is counted from here, when the others can hear
         * of this node (cluster_init may be long before the loop runs). */
        c->started = uv_now(c->api->loop);
        publish(c, "_hello", ev, &to);
    }
    publish(c, "_alive", ev, &to);
    cJSON_Delete(ev);
    /* A `_presence` lost with a batch rolled back would otherwise count
     * its user online elsewhere until this node stopped: the list
     * replaces it within CLUSTER_REFRESH_BEATS beats. */
    if (++c->beats % c->refresh_beats == 0 && !alone(c))
        publish_present(c);
    uint64_t now = uv_now(c->api->loop);
    for (int i = 0; i < CLUSTER_PEERS; i++)
        if (c->peers[i].seen && now - c->peers[i].seen > c->silent_ms) {
            log_info("cluster: node %s silent for %llu ms: its users count as offline",
                     c->peers[i].node, (unsigned long long)c->silent_ms);
            peer_forget(c, i);
            c->peers[i].seen = 0;
        }
}

static bool online(void *ctx, int64_t user_id)
{
    cluster *c = ctx;
    return (c->local.online && c->local.online(c->local.ctx, user_id)) ||
           reg_first(&c->remote, user_id) != NULL;
}

const char *const cluster_outcomes[CLUSTER_OUTCOMES] = {"sent", "received", "too_big", "bad",
                                                          "applied", "alone"};

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
    /* Not cached here: nothing to refresh but the deadline timer, when the
     * game may have to be looked at before it fires (its deadline, or the
     * warning a day before a correspondence one; the kind is not known
     * here, so the earlier of the two). That node fires it while it is
     * alive; this one must too if it dies. */
    gsvc *g = c->api->svc;
    if (rc == 1 && cJSON_IsNumber(dl) && (int64_t)dl->valuedouble - GAMES_WARN_MS < g->wake_armed_at)
        g->wake_dirty = true;
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
    if (e->valuestring[0] == '_') {
        /* Between nodes only: never delivered to a connection. */
        peer_event(c, n->valuestring, e->valuestring, ev,
                   (int64_t)cJSON_GetArrayItem(u, 0)->valuedouble);
        cJSON_Delete(p);
        return;
    }
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

int cluster_init(cluster *c, api *a, uint64_t silent_ms, uint64_t refresh_beats)
{
    memset(c, 0, sizeof *c);
    c->api = a;
    c->silent_ms = silent_ms ? silent_ms : CLUSTER_SILENT_MS;
    c->refresh_beats = refresh_beats ? refresh_beats : CLUSTER_REFRESH_BEATS;
    c->local = fanout_sink(a);
    unsigned char id[8];
    randombytes_buf(id, sizeof id);
    sodium_bin2hex(c->node, sizeof c->node, id, sizeof id);
    if (store_pg_listen(a->svc->store, on_payload, c) != STORE_OK) {
        log_error("cluster: the store is not PostgreSQL");
        return -1;
    }
    log_info("cluster: node %s listens on %s", c->node, STORE_PG_CHANNEL);
    reg_init(&c->remote);
    if (uv_timer_init(a->loop, &c->beat) != 0) {
        log_error("cluster: no timer for the presence heartbeat");
        return -1;
    }
    c->beat.data = c;
    c->beat_open = true;
    uv_update_time(a->loop);
    c->started = uv_now(a->loop);
    /* At least three beats within the silence, so one lost or late
     * `_alive` does not make this node count as gone. */
    c->beat_ms = c->silent_ms / 3 < CLUSTER_ALIVE_MS ? c->silent_ms / 3 : CLUSTER_ALIVE_MS;
    if (c->beat_ms == 0)
        c->beat_ms = 1;
    /* The first beat says hello, in the loop's first turn (timers run
     * before it polls for connections): the nodes alive learn of this one
     * (and publish to it) before it serves anyone. */
    uv_timer_start(&c->beat, beat_cb, 0, c->beat_ms);
    uv_unref((uv_handle_t *)&c->beat);
    a->presence = presence_changed;
    a->presence_ctx = c;
    return 0;
}

void cluster_close(cluster *c)
{
    c->api->presence = NULL;
    if (c->beat_open) {
        c->beat_open = false;
        uv_close((uv_handle_t *)&c->beat, NULL);
    }
}

void cluster_free(cluster *c)
{
    reg_free(&c->remote);
}

event_sink cluster_sink(cluster *c)
{
    return (event_sink){deliver, c, online};
}
