/*
 * notify: see notify.h. The kind's fields are kept as one JSON object
 * text (notifications.data), merged into the wire object on the way out,
 * so a new kind needs no schema change.
 */
#include "game/notify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game/events.h"
#include "game/games.h"
#include "store/store.h"
#include "game/ratings_svc.h"
#include "util/log.h"
#include "qk_proto.h"

cJSON *notify_json(const store_note *n)
{
    cJSON *o = cJSON_Parse(n->data);
    if (!cJSON_IsObject(o))
        goto fail;
    /* Fixed fields first in the text; the data's own names never clash. */
    cJSON *fixed = cJSON_CreateObject();
    if (!fixed || !cJSON_AddNumberToObject(fixed, "id", (double)n->id) ||
        !cJSON_AddStringToObject(fixed, "kind", n->kind) ||
        !(n->game_id ? cJSON_AddNumberToObject(fixed, "game", (double)n->game_id)
                     : cJSON_AddNullToObject(fixed, "game")) ||
        !cJSON_AddBoolToObject(fixed, "read", n->read) ||
        !cJSON_AddNumberToObject(fixed, "created", (double)n->created)) {
        cJSON_Delete(fixed);
        goto fail;
    }
    while (o->child) {
        cJSON *item = cJSON_DetachItemViaPointer(o, o->child);
        if (!cJSON_AddItemToObject(fixed, item->string, item)) {
            cJSON_Delete(item);
            cJSON_Delete(fixed);
            goto fail;
        }
    }
    cJSON_Delete(o);
    return fixed;
fail:
    cJSON_Delete(o);
    return NULL;
}

static bool replaces(const char *kind)
{
    return strcmp(kind, "your_turn") == 0 || strcmp(kind, "draw_offer") == 0 ||
           strcmp(kind, "draw_declined") == 0;
}

/* Kinds one user can send another again and again (a challenge or
 * rematch, its decline, a draw offer and its decline): bounded per sender
 * and receiver (notify.h). */
static bool repeatable(const char *kind)
{
    return strcmp(kind, "challenge") == 0 || strcmp(kind, "challenge_declined") == 0 ||
           strcmp(kind, "draw_offer") == 0 || strcmp(kind, "draw_declined") == 0;
}

int notify_push(gsvc *s, int64_t user_id, const char *kind, int64_t game_id, cJSON *data)
{
    return notify_push_from(s, user_id, kind, game_id, 0, 0, data);
}

int notify_push_from(gsvc *s, int64_t user_id, const char *kind, int64_t game_id,
                     int64_t sender_id, int64_t ref_id, cJSON *data)
{
    store_note n = {.user_id = user_id,
                    .game_id = game_id,
                    .created = svc_now(s),
                    .sender_id = sender_id,
                    .ref_id = ref_id};
    snprintf(n.kind, sizeof n.kind, "%s", kind);
    char *text = data ? cJSON_PrintUnformatted(data) : NULL;
    cJSON_Delete(data);
    if (data && !text)
        goto fail;
    if (snprintf(n.data, sizeof n.data, "%s", text ? text : "{}") >= (int)sizeof n.data) {
        log_error("notification %s: data too long", kind);
        goto fail;
    }
    free(text);
    text = NULL;
    /* One unread notice per game of these kinds (issue 9): each replaces
     * the unread one before it, so a long game or a draw offer/decline
     * loop does not add a row per move or per cycle. */
    if (replaces(kind) && game_id > 0 &&
        store_notes_drop_unread(s->store, user_id, kind, game_id) != STORE_OK)
        goto fail;
    /* Issue 21: one sender cannot fill another's inbox (1,000 challenge
     * and cancel pairs left 1,000 unread rows): the oldest unread of the
     * kind from that sender make room for the new one. */
    if (repeatable(kind) && sender_id > 0 &&
        store_notes_cap_sender(s->store, user_id, kind, sender_id, NOTIFY_PER_SENDER - 1) !=
            STORE_OK)
        goto fail;
    if (store_note_insert(s->store, &n) != STORE_OK)
        goto fail;
    /* Dropped on allocation failure: it stays stored, and the login
     * result brings it. */
    cJSON *ev = qk_proto_event("notification"), *nj = notify_json(&n);
    if (!ev || !nj || !cJSON_AddItemToObject(ev, "notification", nj)) {
        cJSON_Delete(nj);
        cJSON_Delete(ev);
        ev = NULL;
    }
    events_to_user(s, user_id, "notification", ev);
    return 0;
fail:
    free(text);
    svc_poison(s);
    return -1;
}

/* {"opponent": the other player's name} for user_id in g; NULL on OOM. */
static cJSON *with_opponent(const game *g, int64_t user_id)
{
    cJSON *d = cJSON_CreateObject();
    const char *opp = g->white.id == user_id ? g->black.name : g->white.name;
    if (d && !cJSON_AddStringToObject(d, "opponent", opp)) {
        cJSON_Delete(d);
        return NULL;
    }
    return d;
}

static bool add_deadline(cJSON *d, int64_t deadline)
{
    return deadline >= 0 ? cJSON_AddNumberToObject(d, "deadline", (double)deadline) != NULL
                         : cJSON_AddNullToObject(d, "deadline") != NULL;
}

static int oom(gsvc *s, cJSON *d)
{
    cJSON_Delete(d);
    svc_poison(s);
    return -1;
}

/* your_turn to the side to move of g, online or not. */
static int notify_your_turn(gsvc *s, const game *g)
{
    int64_t to = games_turn_user(g);
    cJSON *d = with_opponent(g, to);
    const char *last = g->ply > 0 ? g->moves[g->ply - 1] : NULL;
    if (!d ||
        !(last ? cJSON_AddStringToObject(d, "move", last) : cJSON_AddNullToObject(d, "move")) ||
        !cJSON_AddNumberToObject(d, "ply", (double)g->ply) || !add_deadline(d, g->deadline))
        return oom(s, d);
    return notify_push(s, to, "your_turn", g->id, d);
}

/* Whether user_id learns what happened in g from its event alone: g is not
 * correspondence (whose players come back days later to their inbox) and
 * the user is online, on this node or another (sink.online), so the event
 * reaches a connection of theirs once the batch commits. */
static bool told_by_event(gsvc *s, const game *g, int64_t user_id)
{
    return g->tc.kind != TC_CORRESPONDENCE && s->sink.online &&
           s->sink.online(s->sink.ctx, user_id);
}

int notify_turn_if_away(gsvc *s, const game *g)
{
    return told_by_event(s, g, games_turn_user(g)) ? 0 : notify_your_turn(s, g);
}

int notify_game_end(gsvc *s, const game *g)
{
    int64_t players[2] = {g->white.id, g->black.id};
    for (int i = 0; i < 2; i++) {
        if (told_by_event(s, g, players[i]))
            continue;
        cJSON *d = with_opponent(g, players[i]);
        if (!d ||
            !(g->result ? cJSON_AddStringToObject(d, "result", qk_result_name(g->result))
                               : cJSON_AddNullToObject(d, "result")) ||
            !cJSON_AddStringToObject(d, "reason", qk_reason_name(g->reason)) ||
            !cJSON_AddStringToObject(d, "color", i == 0 ? "white" : "black"))
            return oom(s, d);
        if (notify_push(s, players[i], "game_end", g->id, d) != 0)
            return -1;
    }
    return 0;
}

int notify_deadline_soon(gsvc *s, const game *g)
{
    int64_t to = games_turn_user(g);
    cJSON *d = with_opponent(g, to);
    if (!d || !add_deadline(d, g->deadline))
        return oom(s, d);
    return notify_push(s, to, "deadline_soon", g->id, d);
}

int notify_draw_offer(gsvc *s, const game *g, int64_t from_id)
{
    int64_t to = g->white.id == from_id ? g->black.id : g->white.id;
    cJSON *d = with_opponent(g, to);
    if (!d)
        return oom(s, d);
    return notify_push_from(s, to, "draw_offer", g->id, from_id, 0, d);
}

int notify_challenge(gsvc *s, const store_challenge *c)
{
    if (!c->to_id)
        return 0; /* an open seek is nobody's in particular */
    cJSON *d = cJSON_CreateObject(), *tcj = cJSON_Parse(c->time_control);
    if (!d || !tcj || !cJSON_AddNumberToObject(d, "challenge", (double)c->id) ||
        !cJSON_AddStringToObject(d, "from", c->from) ||
        !cJSON_AddStringToObject(d, "variant", c->variant) ||
        !cJSON_AddItemToObject(d, "time_control", tcj)) {
        cJSON_Delete(tcj);
        return oom(s, d);
    }
    return notify_push_from(s, c->to_id, "challenge", 0, c->from_id, c->id, d);
}

int notify_challenge_closed(gsvc *s, const store_challenge *c)
{
    if (!c->to_id)
        return 0;
    bool withdrawn = strcmp(c->status, "canceled") == 0 || strcmp(c->status, "expired") == 0;
    if (store_notes_settle(s->store, c->to_id, "challenge", c->id, withdrawn) != STORE_OK) {
        svc_poison(s);
        return -1;
    }
    return 0;
}

int notify_challenge_declined(gsvc *s, const store_challenge *c, const char *message)
{
    cJSON *d = cJSON_CreateObject();
    if (!d || !cJSON_AddNumberToObject(d, "challenge", (double)c->id) ||
        !cJSON_AddStringToObject(d, "by", c->to) ||
        !cJSON_AddStringToObject(d, "reason", c->decline_reason) ||
        (message && !cJSON_AddStringToObject(d, "message", message)))
        return oom(s, d);
    return notify_push_from(s, c->from_id, "challenge_declined", 0, c->to_id, c->id, d);
}

int notify_draw_declined(gsvc *s, const game *g, int64_t decliner_id)
{
    int64_t to = g->white.id == decliner_id ? g->black.id : g->white.id;
    cJSON *d = with_opponent(g, to);
    if (!d)
        return oom(s, d);
    return notify_push_from(s, to, "draw_declined", g->id, decliner_id, 0, d);
}

int notify_tournament_round(gsvc *s, int64_t user_id, const notify_tround *t)
{
    cJSON *d = cJSON_CreateObject();
    if (!d || !cJSON_AddNumberToObject(d, "tournament", (double)t->tournament_id) ||
        !cJSON_AddStringToObject(d, "name", t->name) ||
        !cJSON_AddNumberToObject(d, "round", (double)t->round) ||
        !(t->opponent ? cJSON_AddStringToObject(d, "opponent", t->opponent)
                      : cJSON_AddNullToObject(d, "opponent")) ||
        !(t->color ? cJSON_AddStringToObject(d, "color", t->color)
                   : cJSON_AddNullToObject(d, "color")) ||
        !cJSON_AddBoolToObject(d, "bye", t->bye) ||
        !(t->result && t->result[0] ? cJSON_AddStringToObject(d, "result", t->result)
                                    : cJSON_AddNullToObject(d, "result")))
        return oom(s, d);
    return notify_push(s, user_id, "tournament_round", t->game_id, d);
}

int notify_tournament_end(gsvc *s, int64_t user_id, int64_t tid, const char *name, int rank,
                          double points, const char *reason)
{
    cJSON *d = cJSON_CreateObject();
    if (!d || !cJSON_AddNumberToObject(d, "tournament", (double)tid) ||
        !cJSON_AddStringToObject(d, "name", name) || !cJSON_AddNumberToObject(d, "rank", rank) ||
        !cJSON_AddNumberToObject(d, "points", points) ||
        !(reason && reason[0] ? cJSON_AddStringToObject(d, "reason", reason)
                              : cJSON_AddNullToObject(d, "reason")))
        return oom(s, d);
    return notify_push(s, user_id, "tournament_end", 0, d);
}

void notify_game_over(gsvc *s, const game *g)
{
    /* Every end of a game passes here, in the batch that stored it: the
     * one place where a rated game's end updates the ratings. A failure
     * poisons the batch, so the end is lost with it, never stored alone. */
    /* An imported record never counts (PROTOCOL.md "Records"). */
    ratings_game rg = {g->id, g->v.name, g->white.id, g->black.id, g->rated && !g->imported,
                       g->status == GAME_FINISHED && !g->imported, g->result};
    cJSON *change = NULL;
    ratings_game_over(s, &rg, &change);
    if (!change)
        change = cJSON_CreateNull();
    notify_game_end(s, g);
    cJSON *ev = qk_proto_event("game_end");
    if (!ev || !cJSON_AddNumberToObject(ev, "game", (double)g->id) ||
        !(g->result ? cJSON_AddStringToObject(ev, "result", qk_result_name(g->result))
                    : cJSON_AddNullToObject(ev, "result")) ||
        !cJSON_AddStringToObject(ev, "reason", qk_reason_name(g->reason)) ||
        !change || !cJSON_AddItemToObject(ev, "rating_change", change)) {
        cJSON_Delete(change); /* not attached: the last test failed or was not reached */
        cJSON_Delete(ev);
        ev = NULL;
    }
    events_to_game(s, g, "game_end", ev);
    if (s->game_over_hook)
        s->game_over_hook(s, g);
}
