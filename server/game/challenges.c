/*
 * challenges: see challenges.h.
 */
#include "game/challenges.h"

#include <stdio.h>
#include <string.h>

#include "game/events.h"
#include "game/notify.h"
#include "qk_proto.h"
#include "util/log.h"

/* Expired per store query; the sweep loops until fewer come back. */
#define EXPIRE_BATCH 64

cJSON *challenges_json(const store_challenge *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *tcj = cJSON_Parse(c->time_control);
    if (!o || !tcj)
        goto fail;
    if (!cJSON_AddNumberToObject(o, "id", (double)c->id) ||
        !cJSON_AddStringToObject(o, "from", c->from) ||
        !cJSON_AddBoolToObject(o, "from_bot", c->from_bot) ||
        !(c->to_id ? cJSON_AddStringToObject(o, "to", c->to) : cJSON_AddNullToObject(o, "to")) ||
        !cJSON_AddBoolToObject(o, "to_bot", c->to_bot) ||
        !cJSON_AddStringToObject(o, "variant", c->variant) ||
        !cJSON_AddStringToObject(o, "color", c->color) ||
        !cJSON_AddItemToObject(o, "time_control", tcj))
        goto fail;
    tcj = NULL;
    if (!(c->position[0] ? cJSON_AddStringToObject(o, "position", c->position)
                         : cJSON_AddNullToObject(o, "position")) ||
        !cJSON_AddStringToObject(o, "status", c->status) ||
        !cJSON_AddBoolToObject(o, "rated", c->rated) ||
        !cJSON_AddNumberToObject(o, "created", (double)c->created))
        goto fail;
    if (strcmp(c->status, "declined") == 0 &&
        !cJSON_AddStringToObject(o, "reason", c->decline_reason))
        goto fail;
    if (c->game_id && !cJSON_AddNumberToObject(o, "game", (double)c->game_id))
        goto fail;
    return o;
fail:
    cJSON_Delete(tcj);
    cJSON_Delete(o);
    return NULL;
}

void challenges_event(gsvc *s, const char *name, const store_challenge *c, const char *message)
{
    cJSON *ev = qk_proto_event(name);
    cJSON *cj = challenges_json(c);
    if (cj && message && !cJSON_AddStringToObject(cj, "message", message)) {
        cJSON_Delete(cj);
        cj = NULL;
    }
    if (!ev || !cj || !cJSON_AddItemToObject(ev, "challenge", cj)) {
        cJSON_Delete(cj);
        cJSON_Delete(ev);
        ev = NULL;
    }
    /* An open seek (no target) goes to every logged-in connection. */
    events_send(s, name, ev, (events_to){{c->from_id, c->to_id}, 0, c->to_id == 0, false});
}

void challenges_expire(gsvc *s)
{
    int64_t ids[EXPIRE_BATCH];
    int n;
    /* Each expired challenge leaves the open set, so every round is new
     * rows; the bound stops a loop on a row that cannot change. */
    for (int round = 0; round < 1000 && !svc_poisoned(s); round++) {
        int64_t now = svc_now(s);
        if (store_challenges_expiring(s->store, now - CHALLENGES_DIRECT_TTL_MS,
                                      now - CHALLENGES_SEEK_TTL_MS, ids, EXPIRE_BATCH,
                                      &n) != STORE_OK) {
            svc_poison(s);
            return;
        }
        if (n == 0)
            return;
        if (svc_write_begin(s) != 0)
            return;
        for (int i = 0; i < n; i++) {
            store_challenge c;
            if (store_challenge_get(s->store, ids[i], &c) != STORE_OK ||
                store_challenge_close(s->store, c.id, "expired", NULL, 0, now) != STORE_OK) {
                svc_poison(s);
                return;
            }
            snprintf(c.status, sizeof c.status, "expired");
            c.updated = now;
            if (notify_challenge_closed(s, &c) != 0)
                return;
            log_debug("challenge %lld expired", (long long)c.id);
            challenges_event(s, "challenge", &c, NULL);
        }
        if (n < EXPIRE_BATCH)
            return;
    }
}
