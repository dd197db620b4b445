/*
 * ops_lobby: the lobby ops (issue 9, item 2). Open seeks grow with other
 * users' data, so nothing lists or pushes all of them unasked:
 *   lobby   {"action": "subscribe" | "unsubscribe"}: whether this
 *           connection gets the `challenge` / `challenge_canceled` events
 *           of open seeks (fanout.c delivers events_to.all only to these).
 *           Result: "lobby" (bool, the state now). Belongs to the
 *           connection, like subscriptions.
 *   seeks   {"after": id, "limit": 1..200 (50)}: open seeks by others
 *           with ids above after, oldest first. Result: "seeks" and
 *           "next" (the id to pass as after for the next page, null when
 *           this page is the last).
 * login/register/challenges list the first page (ops_add_challenges()).
 */
#include <string.h>

#include "api/ops.h"
#include "store/store.h"

#define SEEKS_LIMIT_DEFAULT 50
#define SEEKS_LIMIT_MAX 200

void op_lobby(req *r)
{
    const char *action = req_str(r, "action");
    bool on = strcmp(action, "subscribe") == 0;
    if (!on && strcmp(action, "unsubscribe") != 0) {
        req_error(r, QK_ERR_BAD_REQUEST, "action must be subscribe or unsubscribe");
        return;
    }
    r->sess->lobby = on;
    cJSON *res = req_ok(r);
    if (res && !cJSON_AddBoolToObject(res, "lobby", on)) {
        cJSON_Delete(res);
        res = NULL;
    }
    req_reply(r, res);
}

typedef struct seek_page {
    api *api;
    cJSON *list;
    int64_t n, last;
} seek_page;

static int add_seek_cb(void *arg, const store_challenge *c)
{
    seek_page *p = arg;
    cJSON *o = ops_challenge_json(p->api, c);
    if (!o || !cJSON_AddItemToArray(p->list, o)) {
        cJSON_Delete(o);
        return 1;
    }
    p->n++;
    p->last = c->id;
    return 0;
}

void op_seeks(req *r)
{
    uint64_t limit = SEEKS_LIMIT_DEFAULT, after = 0;
    if (req_uint(r, "limit", &limit) && (limit < 1 || limit > SEEKS_LIMIT_MAX)) {
        req_error(r, QK_ERR_BAD_REQUEST, "limit must be from 1 to 200");
        return;
    }
    (void)req_uint(r, "after", &after);
    cJSON *res = req_ok(r);
    seek_page p = {r->api, res ? cJSON_AddArrayToObject(res, "seeks") : NULL, 0, 0};
    /* One more than asked tells whether a next page exists. */
    int rc = p.list ? store_seeks_page(r->api->svc->store, r->sess->user_id, (int64_t)after,
                                       (int64_t)limit + 1, add_seek_cb, &p)
                    : -1;
    if (rc != STORE_OK) {
        cJSON_Delete(res);
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    bool more = p.n > (int64_t)limit;
    if (more) {
        cJSON_DeleteItemFromArray(p.list, (int)limit);
        cJSON *last = cJSON_GetArrayItem(p.list, (int)limit - 1);
        p.last = (int64_t)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(last, "id"));
    }
    if (!(more ? cJSON_AddNumberToObject(res, "next", (double)p.last)
               : cJSON_AddNullToObject(res, "next"))) {
        cJSON_Delete(res);
        res = NULL;
    }
    req_reply(r, res);
}
