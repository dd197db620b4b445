/*
 * ops_bot: users (listing and looking up accounts with their bot flag).
 *
 * Bot accounts are ordinary accounts whose `users.bot` was set at
 * registration and never changes afterwards (no op writes it again, as
 * Lichess's bot flag). Everything a bot does goes through the same ops as
 * a person's client; what is specific to bots is only visible: the `bot`
 * flag of user objects here and in login results, and `white_bot` /
 * `black_bot` in game objects (games.c). The `hint` op is in hint.c.
 */
#include <stdio.h>
#include <string.h>

#include "game/auth.h"
#include "api/ops.h"

#define USERS_LIMIT_DEFAULT 50
#define USERS_LIMIT_MAX 200

typedef struct user_list {
    api *api;
    cJSON *list;
} user_list;

static int add_user_cb(void *arg, const store_user *u)
{
    user_list *l = arg;
    cJSON *o = ops_user_json(u->username, u->bot);
    if (!o || !cJSON_AddItemToArray(l->list, o)) {
        cJSON_Delete(o);
        return 1;
    }
    return !ops_add_user_ratings(l->api, o, u->id); /* ratings (ops_rating.c) */
}

void op_users(req *r)
{
    api *s = r->api;
    const char *name = req_str(r, "username"), *after = req_str(r, "after");
    const cJSON *botj = req_field(r, "bot");
    uint64_t limit = USERS_LIMIT_DEFAULT;
    if (req_uint(r, "limit", &limit) && (limit < 1 || limit > USERS_LIMIT_MAX)) {
        req_error(r, QK_ERR_BAD_REQUEST, "limit must be from 1 to 200");
        return;
    }
    if (name && !auth_username_valid(name)) {
        req_error(r, QK_ERR_BAD_REQUEST,
                  "\"username\" is not a username (1-32 of A-Z a-z 0-9 _ -)");
        return;
    }
    cJSON *res = req_ok(r);
    user_list l = {s, res ? cJSON_AddArrayToObject(res, "users") : NULL};
    if (!l.list)
        goto fail;
    if (name) {
        /* One account, any letter case: not_found when there is none. */
        store_user u;
        int rc = store_user_by_name(s->svc->store, name, &u);
        if (rc == STORE_NOTFOUND) {
            cJSON_Delete(res);
            req_error(r, QK_ERR_NOT_FOUND, "no such user");
            return;
        }
        if (rc != STORE_OK || add_user_cb(&l, &u) != 0)
            goto fail;
    } else {
        int bot = botj ? cJSON_IsTrue(botj) : -1;
        if (store_users_list(s->svc->store, bot, after, (int64_t)limit, add_user_cb, &l) != STORE_OK)
            goto fail;
    }
    req_reply(r, res);
    return;
fail:
    cJSON_Delete(res);
    req_reply(r, NULL);
}
