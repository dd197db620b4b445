/*
 * ops_corr: the ops of correspondence play (docs/protocol.md):
 * notifications, read, vacation, draw, abort, and debug_clock (tests).
 * Each validates everything before its first write, so bad input changes
 * no row (store_core.h "Group commit"); checks come in the order the protocol
 * reference gives: not_found, forbidden, game_over, then the op's own.
 */
#include <stdio.h>
#include <string.h>

#include "game/corr.h"
#include "game/events.h"
#include "game/games.h"
#include "store/store.h"
#include "util/log.h"
#include "game/notify.h"
#include "api/ops.h"
#include "store/store_corr.h"

#define NOTES_LIMIT_DEFAULT 50
#define NOTES_LIMIT_MAX 200
#define READ_IDS_MAX 200

/* ---- notifications, read ---------------------------------------------- */

static int add_note_cb(void *arg, const store_note *n)
{
    cJSON *o = notify_json(n);
    if (!o || !cJSON_AddItemToArray(arg, o)) {
        cJSON_Delete(o);
        return 1;
    }
    return 0;
}

static bool add_notes(api *s, cJSON *res, int64_t user, bool unread_only, int64_t limit,
                      int64_t offset)
{
    cJSON *list = cJSON_AddArrayToObject(res, "notifications");
    return list && store_notes_list(s->svc->store, user, unread_only, limit, offset, add_note_cb,
                                    list) == STORE_OK;
}

bool ops_add_notifications(api *s, cJSON *res, int64_t user_id)
{
    return add_notes(s, res, user_id, true, OPS_LOGIN_GAMES_MAX, 0);
}

static bool add_unread(api *s, cJSON *res, int64_t user)
{
    int64_t n;
    return store_note_unread(s->svc->store, user, &n) == STORE_OK &&
           cJSON_AddNumberToObject(res, "unread", (double)n);
}

void op_notifications(req *r)
{
    uint64_t limit = NOTES_LIMIT_DEFAULT, offset = 0;
    if (req_uint(r, "limit", &limit) && (limit < 1 || limit > NOTES_LIMIT_MAX)) {
        req_error(r, QK_ERR_BAD_REQUEST, "limit must be from 1 to 200");
        return;
    }
    req_uint(r, "offset", &offset);
    int64_t me = r->sess->user_id;
    cJSON *res = req_ok(r);
    if (res && (!add_notes(r->api, res, me, req_bool(r, "unread", false), (int64_t)limit,
                           (int64_t)offset) ||
                !add_unread(r->api, res, me))) {
        cJSON_Delete(res);
        res = NULL;
    }
    req_reply(r, res);
}

void op_read(req *r)
{
    api *s = r->api;
    int64_t me = r->sess->user_id, ids[READ_IDS_MAX], changed = 0;
    const cJSON *list = req_field(r, "ids");
    bool all = req_bool(r, "all", false);
    int n = 0;
    char buf[96];
    if (all == (list != NULL)) {
        req_error(r, QK_ERR_BAD_REQUEST,
                  "give \"ids\" (a list of notification ids) or \"all\": true");
        return;
    }
    if (list) {
        int count = cJSON_GetArraySize(list);
        if (!cJSON_IsArray(list) || count < 1 || count > READ_IDS_MAX) {
            req_error(r, QK_ERR_BAD_REQUEST, "ids must be a list of 1 to 200 notification ids");
            return;
        }
        const cJSON *it;
        cJSON_ArrayForEach(it, list)
        {
            double d = cJSON_IsNumber(it) ? it->valuedouble : -1;
            if (d < 1 || d > QK_JSON_MAX_INT || d != (double)(int64_t)d) {
                req_error(r, QK_ERR_BAD_REQUEST, "ids must be a list of notification ids");
                return;
            }
            ids[n++] = (int64_t)d;
        }
        /* Every id first: one that is missing or not yours changes nothing. */
        for (int i = 0; i < n; i++) {
            int64_t owner;
            int rc = store_note_owner(s->svc->store, ids[i], &owner);
            if (rc == STORE_NOTFOUND || (rc == STORE_OK && owner != me)) {
                snprintf(buf, sizeof buf, "notification %lld %s", (long long)ids[i],
                         rc == STORE_NOTFOUND ? "does not exist" : "is not yours");
                req_error(r, rc == STORE_NOTFOUND ? QK_ERR_NOT_FOUND : QK_ERR_FORBIDDEN, buf);
                return;
            }
            if (rc != STORE_OK) {
                req_error(r, QK_ERR_INTERNAL, NULL);
                return;
            }
        }
    }
    if (svc_write_begin(s->svc) != 0) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    int rc = all ? store_note_mark_all(s->svc->store, me, &changed) : STORE_OK;
    for (int i = 0; i < n && rc == STORE_OK; i++)
        rc = store_note_mark(s->svc->store, me, ids[i], &changed);
    if (rc != STORE_OK) {
        svc_poison(s->svc);
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    cJSON *res = req_ok(r);
    if (res &&
        (!cJSON_AddNumberToObject(res, "count", (double)changed) || !add_unread(s, res, me))) {
        cJSON_Delete(res);
        res = NULL;
    }
    req_reply(r, res);
}

/* ---- vacation --------------------------------------------------------- */

static cJSON *vacation_json(const store_vacation *v, int64_t now)
{
    cJSON *o = cJSON_CreateObject();
    bool on = v->start >= 0 && now < v->until;
    int64_t used = corr_vacation_used_h(v, now);
    if (!o || !cJSON_AddBoolToObject(o, "on", on) ||
        !(on ? cJSON_AddNumberToObject(o, "since", (double)v->start)
             : cJSON_AddNullToObject(o, "since")) ||
        !(on ? cJSON_AddNumberToObject(o, "until", (double)v->until)
             : cJSON_AddNullToObject(o, "until")) ||
        !cJSON_AddNumberToObject(o, "left_h", (double)(v->left_h > used ? v->left_h - used : 0)) ||
        !cJSON_AddNumberToObject(o, "allowance_h", CORR_VACATION_H)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

void op_vacation(req *r)
{
    api *s = r->api;
    const char *action = req_str(r, "action");
    int64_t me = r->sess->user_id, now = svc_now(s->svc);
    uint64_t hours = 0;
    bool has_hours = req_uint(r, "hours", &hours), changed;
    char buf[128];
    store_vacation v;
    if (strcmp(action, "on") && strcmp(action, "off") && strcmp(action, "status")) {
        req_error(r, QK_ERR_BAD_REQUEST, "action must be on, off or status");
        return;
    }
    if (has_hours && strcmp(action, "on") != 0) {
        req_error(r, QK_ERR_BAD_REQUEST, "hours goes with action on only");
        return;
    }
    if (corr_vacation(s->svc, me, now, &v, &changed) != STORE_OK) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    bool on = v.start >= 0;
    if (strcmp(action, "on") == 0) {
        if (on) {
            req_error(r, QK_ERR_CONFLICT, "you are already on vacation");
            return;
        }
        if (!has_hours)
            hours = (uint64_t)v.left_h;
        if (hours < 1 || (int64_t)hours > v.left_h) {
            snprintf(buf, sizeof buf,
                     "a vacation of %llu hours is beyond your allowance: %lld hours left this year",
                     (unsigned long long)hours, (long long)v.left_h);
            req_error(r, QK_ERR_BAD_REQUEST, v.left_h ? buf : "no vacation left this year");
            return;
        }
        v.start = now;
        v.until = now + (int64_t)hours * CORR_HOUR_MS;
        changed = true;
    } else if (strcmp(action, "off") == 0) {
        if (!on) {
            req_error(r, QK_ERR_CONFLICT, "you are not on vacation");
            return;
        }
        int64_t used = corr_vacation_used_h(&v, now);
        v.left_h = v.left_h > used ? v.left_h - used : 0;
        v.start = v.until = -1;
        changed = true;
    }
    if (changed && (svc_write_begin(s->svc) != 0 || store_vacation_put(s->svc->store, me, &v) != STORE_OK)) {
        svc_poison(s->svc);
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    cJSON *res = req_ok(r), *vj = vacation_json(&v, now);
    if (!res || !vj || !cJSON_AddItemToObject(res, "vacation", vj)) {
        cJSON_Delete(vj);
        cJSON_Delete(res);
        res = NULL;
    }
    req_reply(r, res);
}

/* ---- draw, abort ------------------------------------------------------ */

/* The game of r where the caller plays and which is active, after the
 * flag (ops_active_after_flag); answers not_found / forbidden / game_over
 * (internal) and returns NULL otherwise. */
static game *my_active_game(req *r)
{
    uint64_t id = 0;
    game *g = NULL;
    req_uint(r, "game", &id);
    int rc = games_get(r->api->svc->games, (int64_t)id, &g);
    int64_t me = r->sess->user_id;
    if (rc != STORE_OK)
        ops_game_error(r, rc, (int64_t)id);
    else if (g->white.id != me && g->black.id != me)
        req_error(r, QK_ERR_FORBIDDEN, "you do not play in this game");
    else if (ops_active_after_flag(r, g))
        return g;
    return NULL;
}

/* Every game result carries legal_moves (docs/protocol.md "Game"; [] once
 * the game is over), as move and resign answers do. */
static void reply_game(req *r, const game *g)
{
    cJSON *res = req_ok(r), *gj = games_json(r->api->svc->games, g, true);
    if (!res || !gj || !cJSON_AddItemToObject(res, "game", gj)) {
        cJSON_Delete(gj);
        cJSON_Delete(res);
        res = NULL;
    }
    req_reply(r, res);
}

/* The `draw_offer` event {"game", "action", "by"} to players and
 * watchers (PROTOCOL.md "Events"). */
static void draw_event(api *s, const game *g, const char *action, const char *side)
{
    cJSON *ev = qk_proto_event("draw_offer");
    if (!ev || !cJSON_AddNumberToObject(ev, "game", (double)g->id) ||
        !cJSON_AddStringToObject(ev, "action", action) ||
        !cJSON_AddStringToObject(ev, "by", side)) {
        cJSON_Delete(ev);
        ev = NULL;
    }
    events_to_game(s->svc, g, "draw_offer", ev);
}

void op_draw(req *r)
{
    api *s = r->api;
    const char *action = req_str(r, "action");
    char buf[128];
    if (strcmp(action, "offer") && strcmp(action, "accept") && strcmp(action, "decline")) {
        req_error(r, QK_ERR_BAD_REQUEST, "action must be offer, accept or decline");
        return;
    }
    game *g = my_active_game(r);
    if (!g)
        return;
    if (!qk_variant_has_draws(&g->v)) {
        snprintf(buf, sizeof buf, "%s has no draws: a game of it cannot be drawn by agreement",
                 g->v.name);
        req_error(r, QK_ERR_BAD_REQUEST, buf);
        return;
    }
    int64_t me = r->sess->user_id;
    int side = games_side_of(g, me);
    const char *mine = games_side_name((qk_side)side);
    bool offer_mine = g->draw_offer == side, offer_theirs = g->draw_offer == 1 - side;
    if (strcmp(action, "offer") == 0 && (offer_mine || offer_theirs)) {
        req_error(r, QK_ERR_CONFLICT,
                  offer_mine ? "you have already offered a draw"
                             : "your opponent has offered a draw: accept or decline it");
        return;
    }
    if (strcmp(action, "offer") != 0 && !offer_theirs) {
        req_error(r, QK_ERR_CONFLICT, "your opponent has not offered a draw");
        return;
    }
    /* One offer per side per move (issue 9): an offer/decline loop cannot
     * write without limit. */
    int64_t last_ply = -1;
    bool offer = strcmp(action, "offer") == 0;
    int drc = offer ? store_draw_ply_get(s->svc->store, g->id, mine, &last_ply) : STORE_NOTFOUND;
    if (drc != STORE_OK && drc != STORE_NOTFOUND) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    if (drc == STORE_OK && last_ply == g->ply) {
        req_error(r, QK_ERR_CONFLICT,
                  "you have already offered a draw at this move: offer again after a move");
        return;
    }
    if (svc_write_begin(s->svc) != 0) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    games_touch(s->svc->games, g->id);
    int rc;
    if (strcmp(action, "accept") == 0) {
        int64_t gid = g->id;
        rc = games_finish(s->svc->games, g, QK_RESULT_DRAW, QK_REASON_AGREEMENT);
        if (rc == GAMES_ESTALE) {
            ops_game_changed(r, gid);
            return;
        }
        if (rc == STORE_OK)
            notify_game_over(s->svc, g);
    } else {
        g->draw_offer = offer ? side : -1;
        rc = games_put_x(s->svc->games, g);
        if (rc == STORE_OK && offer &&
            store_draw_ply_put(s->svc->store, g->id, mine, g->ply) != STORE_OK) {
            svc_poison(s->svc);
            rc = STORE_EIO;
        }
        if (rc == STORE_OK && strcmp(action, "offer") == 0)
            rc = notify_draw_offer(s->svc, g, me);
        else if (rc == STORE_OK)
            rc = notify_draw_declined(s->svc, g, me);
        if (rc == STORE_OK)
            draw_event(s, g, action, mine);
    }
    if (rc != STORE_OK) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    reply_game(r, g);
}

void op_abort(req *r)
{
    api *s = r->api;
    game *g = my_active_game(r);
    if (!g)
        return;
    if (g->ply >= 2) {
        req_error(r, QK_ERR_CONFLICT,
                  "both sides have moved: a game can be aborted only before that (resign instead)");
        return;
    }
    int64_t gid = g->id;
    int rc = svc_write_begin(s->svc) != 0
                 ? STORE_EIO
                 : games_finish(s->svc->games, g, QK_RESULT_NONE, QK_REASON_ABORTED);
    if (rc == GAMES_ESTALE) {
        ops_game_changed(r, gid);
        return;
    }
    if (rc != STORE_OK) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    notify_game_over(s->svc, g);
    reply_game(r, g);
}

/* ---- debug_clock ------------------------------------------------------ */

#define DEBUG_CLOCK_MAX ((int64_t)9007199254740991) /* 2^53 - 1 */

void op_debug_clock(req *r)
{
    api *s = r->api;
    if (!s->svc->test_clock) {
        /* Exactly what the dispatcher says for an op it does not know. */
        req_error(r, QK_ERR_UNKNOWN_OP, "unknown op \"debug_clock\"");
        return;
    }
    /* The op table (dispatch.c) lets it through anonymously so that the
     * answer without the flag stays unknown_op; with it, only a logged-in
     * connection may move the one clock every game runs on. */
    if (!r->sess->user_id) {
        req_error(r, QK_ERR_UNAUTHENTICATED, NULL);
        return;
    }
    uint64_t set = 0, adv = 0;
    bool has_set = qk_json_has(r->msg, "set_ms"), has_adv = qk_json_has(r->msg, "advance_ms");
    if (has_set == has_adv || (has_set && !qk_json_get_uint(r->msg, "set_ms", &set)) ||
        (has_adv && !qk_json_get_uint(r->msg, "advance_ms", &adv))) {
        req_error(r, QK_ERR_BAD_REQUEST, "give set_ms or advance_ms (an integer of ms)");
        return;
    }
    /* The clock stays within 0..2^53-1 (exact in a JSON number); checked
     * before adding, so repeated advances can never overflow int64_t. */
    int64_t now = svc_now(s->svc);
    if (has_set ? set > (uint64_t)DEBUG_CLOCK_MAX
                : now < 0 || now > DEBUG_CLOCK_MAX || adv > (uint64_t)(DEBUG_CLOCK_MAX - now)) {
        req_error(r, QK_ERR_BAD_REQUEST, "the clock must stay from 0 to 2^53-1 ms");
        return;
    }
    svc_clock_set(s->svc, has_set ? (int64_t)set : now + (int64_t)adv);
    /* Deadlines now due are handled before the answer, so a test that
     * reads the answer has seen their events; "sweep": false leaves them
     * to the next request on the game, as a late timer would. */
    if (req_bool(r, "sweep", true))
        corr_sweep(s->svc);
    cJSON *res = req_ok(r);
    if (res && !cJSON_AddNumberToObject(res, "now", (double)svc_now(s->svc))) {
        cJSON_Delete(res);
        res = NULL;
    }
    req_reply(r, res);
}
