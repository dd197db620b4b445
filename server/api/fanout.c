/*
 * fanout: see fanout.h.
 */
#include "api/fanout.h"

#include "api/session.h"
#include "qk_proto.h"
#include "util/log.h"

/* ---- the event fan-out ------------------------------------------------ */

static void event_to(api *a, conn *c, outbuf *ob)
{
    session *se = session_of(c);
    if (c->closing || !se || se->event_stamp == a->event_seq)
        return;
    se->event_stamp = a->event_seq;
    conn_send(c, ob, batch_open(a->svc->batch) ? CONN_MSG_TXN : CONN_MSG_AFTER, NULL);
}

/* Every connection of registry r under key; with only (not NULL), only
 * those logged in as only[0] or only[1]. */
static void event_to_key(api *a, registry *r, int64_t key, outbuf *ob, const int64_t *only)
{
    reg_node *n = reg_first(r, key);
    while (n) {
        /* conn_send() may close the connection, which unlinks n. */
        reg_node *next = reg_next(n);
        session *se = session_of(n->val);
        if (!only || (se && se->user_id && (se->user_id == only[0] || se->user_id == only[1])))
            event_to(a, n->val, ob);
        n = next;
    }
}

/* One event is serialized once and queued to each recipient once (a
 * per-event stamp on the session), even if a connection is both a player
 * and a watcher. */
static void deliver(void *ctx, const char *name, const cJSON *ev, const events_to *to)
{
    api *a = ctx;
    outbuf *ob = outbuf_from_json(ev);
    if (!ob) {
        log_error("out of memory: %s event dropped", name);
        return;
    }
    a->event_seq++;
    for (int i = 0; i < 2; i++)
        if (to->users[i])
            event_to_key(a, &a->users, to->users[i], ob, NULL);
    if (to->game_id)
        event_to_key(a, &a->subs, to->game_id, ob, to->players_only ? to->users : NULL);
    if (to->all) {
        conn *c = a->net->all;
        while (c) {
            conn *next = c->next;
            session *se = session_of(c);
            if (se && se->user_id && se->lobby)
                event_to(a, c, ob);
            c = next;
        }
    }
    outbuf_unref(ob);
}

static bool online(void *ctx, int64_t user_id)
{
    api *a = ctx;
    for (reg_node *n = reg_first(&a->users, user_id); n; n = reg_next(n))
        if (!((conn *)n->val)->closing)
            return true;
    return false;
}

event_sink fanout_sink(api *a)
{
    return (event_sink){deliver, a, online};
}


void fanout_server_stopping(api *a)
{
    cJSON *ev = qk_proto_event("server_stopping");
    outbuf *ob = ev ? outbuf_from_json(ev) : NULL;
    cJSON_Delete(ev);
    if (!ob) {
        log_error("out of memory: server_stopping event dropped");
        return;
    }
    /* Every connection, logged in or not: a client that has not logged in
     * yet would otherwise see only a close. */
    for (conn *c = a->net->all; c;) {
        conn *next = c->next; /* conn_send() may close c */
        /* It depends on no write: a lost last batch must not drop it. */
        if (!c->closing)
            conn_send(c, ob, 0, NULL);
        c = next;
    }
    outbuf_unref(ob);
}
