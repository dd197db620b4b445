/*
 * ops_rating: user and leaderboard (issue 12; ../shared/PROTOCOL.md
 * "Ratings"), and the `ratings` member of user objects. The values and
 * their rules (families, inactivity, rounding, the provisional flag) are
 * the game layer's (game/ratings_svc.h); this file only checks requests
 * and shapes answers.
 */
#include <stdio.h>
#include <string.h>

#include "api/ops.h"
#include "game/auth.h"
#include "game/ratings_svc.h"

bool ops_add_user_ratings(api *s, cJSON *user, int64_t user_id)
{
    cJSON *ratings = ratings_user_json(s->svc, user_id);
    if (!ratings || !cJSON_AddItemToObject(user, "ratings", ratings)) {
        cJSON_Delete(ratings);
        return false;
    }
    return true;
}

void op_user(req *r)
{
    api *s = r->api;
    const char *name = req_str(r, "username");
    if (!auth_username_valid(name)) {
        req_error(r, QK_ERR_BAD_REQUEST,
                  "\"username\" is not a username (1-32 of A-Z a-z 0-9 _ -)");
        return;
    }
    store_user u;
    int rc = store_user_by_name(s->svc->store, name, &u);
    if (rc != STORE_OK) {
        req_error(r, rc == STORE_NOTFOUND ? QK_ERR_NOT_FOUND : QK_ERR_INTERNAL,
                  rc == STORE_NOTFOUND ? "no such user" : NULL);
        return;
    }
    cJSON *res = req_ok(r), *uj = ops_user_json(u.username, u.bot);
    if (!res || !uj || !cJSON_AddItemToObject(res, "user", uj)) {
        cJSON_Delete(uj);
        goto fail;
    }
    if (!ops_add_user_ratings(s, uj, u.id))
        goto fail;
    req_reply(r, res);
    return;
fail:
    cJSON_Delete(res);
    req_reply(r, NULL);
}

void op_leaderboard(req *r)
{
    const char *variant = req_str(r, "variant");
    uint64_t limit = RATINGS_BOARD_DEFAULT;
    char family[RATINGS_FAMILY_MAX], buf[128];
    qk_variant v;
    /* A variant name, or a family's own name ("alquerkonane"). */
    if (strcmp(variant, "alquerkonane") == 0) {
        snprintf(family, sizeof family, "%s", variant);
    } else if (qk_variant_parse(variant, &v) == QK_OK) {
        ratings_family(v.name, family);
    } else {
        snprintf(buf, sizeof buf, "unknown variant \"%.64s\"", variant);
        req_error(r, QK_ERR_BAD_REQUEST, buf);
        return;
    }
    if (req_uint(r, "limit", &limit) && (limit < 1 || limit > RATINGS_BOARD_MAX)) {
        snprintf(buf, sizeof buf, "limit must be from 1 to %d", RATINGS_BOARD_MAX);
        req_error(r, QK_ERR_BAD_REQUEST, buf);
        return;
    }
    cJSON *res = req_ok(r), *list = ratings_board_json(r->api->svc, family, (int)limit);
    if (!res || !list || !cJSON_AddStringToObject(res, "family", family) ||
        !cJSON_AddItemToObject(res, "players", list)) {
        cJSON_Delete(list);
        cJSON_Delete(res);
        res = NULL;
    }
    req_reply(r, res);
}
