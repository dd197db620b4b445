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
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "game/auth.h"
#include "api/ops.h"

#define USERS_LIMIT_DEFAULT 50
#define USERS_LIMIT_MAX 200

/* The listing's target: the array, and the `online` filter (-1 none, 1
 * only users with a logged-in connection now, 0 only users without);
 * left counts down the `limit` when the filter is applied here. */
typedef struct user_list {
    cJSON *arr;
    api *api;
    int online;
    int64_t left;
} user_list;

/* Online means a connection is logged in as the user right now: the api
 * layer's users registry (api.h), which login and logout keep. */
static bool user_online(const api *a, int64_t user_id)
{
    return reg_first(&a->users, user_id) != NULL;
}

static int add_user_cb(void *arg, const store_user *u)
{
    user_list *l = arg;
    if (l->online >= 0 && user_online(l->api, u->id) != (l->online == 1))
        return 0;
    cJSON *o = ops_user_json(u->username, u->bot);
    if (!o || !cJSON_AddItemToArray(l->arr, o)) {
        cJSON_Delete(o);
        return -1;
    }
    if (!ops_add_user_ratings(l->api, o, u->id)) /* ratings (ops_rating.c) */
        return -1;
    /* Filtered here: the store lists every account, this stops at limit. */
    return l->online >= 0 && --l->left == 0 ? 1 : 0;
}

void op_users(req *r)
{
    api *s = r->api;
    const char *name = req_str(r, "username"), *after = req_str(r, "after");
    const cJSON *botj = req_field(r, "bot"), *onlinej = req_field(r, "online");
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
    cJSON *res = req_ok(r), *list = res ? cJSON_AddArrayToObject(res, "users") : NULL;
    if (!list)
        goto fail;
    user_list l = {list, s, onlinej ? cJSON_IsTrue(onlinej) : -1, (int64_t)limit};
    if (name) {
        /* One account, any letter case: not_found when there is none. */
        store_user u;
        int rc = store_user_by_name(s->svc->store, name, &u);
        if (rc == STORE_NOTFOUND) {
            cJSON_Delete(res);
            req_error(r, QK_ERR_NOT_FOUND, "no such user");
            return;
        }
        if (rc != STORE_OK || add_user_cb(&l, &u) < 0)
            goto fail;
    } else {
        int bot = botj ? cJSON_IsTrue(botj) : -1;
        /* With the online filter every account is read (the filter is the
         * registry's, not a column) and the callback stops at limit. */
        int64_t rows = l.online >= 0 ? INT32_MAX : (int64_t)limit;
        if (store_users_list(s->svc->store, bot, after, rows, add_user_cb, &l) < 0)
            goto fail;
    }
    req_reply(r, res);
    return;
fail:
    cJSON_Delete(res);
    req_reply(r, NULL);
}
