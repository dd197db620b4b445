/*
 * session: see session.h.
 */
#include "api/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

api *api_of(conn *c)
{
    return c->net->data;
}

session *session_of(conn *c)
{
    return c->data;
}

int session_open_cb(conn *c)
{
    session *se = calloc(1, sizeof(session));
    c->data = se;
    if (!se)
        return -1;
    se->opened_at = uv_now(api_of(c)->loop);
    return 0;
}

int session_login(api *a, conn *c, int64_t user_id, const char *username, bool bot,
                  const uint8_t *token_hash)
{
    session *se = session_of(c);
    if (se->user_id == user_id && se->user_node) {
        /* Same user again (token refresh): keep the registry node. */
    } else {
        reg_node *n = reg_add(&a->users, user_id, c);
        if (!n)
            return -1;
        session_logout(a, c);
        se->user_node = n;
    }
    se->user_id = user_id;
    se->logged_in_once = true;
    snprintf(se->username, sizeof se->username, "%s", username);
    se->bot = bot;
    se->has_token = token_hash != NULL;
    if (token_hash)
        memcpy(se->token_hash, token_hash, STORE_TOKEN_HASH);
    return 0;
}

bool session_may_login(api *a, conn *c, int64_t user_id)
{
    if (session_of(c)->user_id == user_id)
        return true;
    int n = 0;
    for (reg_node *k = reg_first(&a->users, user_id); k; k = reg_next(k))
        if (++n >= a->max_per_account)
            return false;
    return true;
}

void session_logout(api *a, conn *c)
{
    session *se = session_of(c);
    if (se->user_node)
        reg_remove(&a->users, se->user_node);
    se->user_node = NULL;
    se->user_id = 0;
    se->username[0] = '\0';
    se->bot = false;
    se->has_token = false;
}

/* The login fields of a session as they were before a batch changed them. */
typedef struct saved_login {
    conn *conn; /* referenced */
    int64_t user_id;
    char username[STORE_NAME_MAX + 1];
    bool bot, has_token;
    uint8_t token_hash[STORE_TOKEN_HASH];
} saved_login;

static void login_undo(void *arg, int64_t key, void *ptr)
{
    (void)key;
    api *a = arg;
    saved_login *sv = ptr;
    if (sv->conn->closing)
        return;
    if (sv->user_id)
        session_login(a, sv->conn, sv->user_id, sv->username, sv->bot,
                      sv->has_token ? sv->token_hash : NULL);
    else
        session_logout(a, sv->conn);
}

static void login_release(void *ptr)
{
    saved_login *sv = ptr;
    conn_unref(sv->conn);
    free(sv);
}

void session_touch(api *a, conn *c)
{
    saved_login *sv = malloc(sizeof *sv);
    if (!sv) {
        /* Out of memory: the batch is lost; the login it makes stays in
         * memory (the user exists) but its token is not stored. */
        batch_poison(a->svc->batch);
        return;
    }
    session *se = session_of(c);
    conn_ref(c);
    sv->conn = c;
    sv->user_id = se->user_id;
    memcpy(sv->username, se->username, sizeof se->username);
    sv->bot = se->bot;
    sv->has_token = se->has_token;
    memcpy(sv->token_hash, se->token_hash, sizeof se->token_hash);
    batch_on_undo(a->svc->batch, login_undo, login_release, a, 0, sv);
}

int session_subscribe(api *a, conn *c, int64_t game_id)
{
    session *se = session_of(c);
    for (int i = 0; i < se->nsubs; i++)
        if (se->subs[i]->key == game_id)
            return 1;
    if (se->nsubs == SESSION_MAX_SUBS)
        return -1;
    reg_node *n = reg_add(&a->subs, game_id, c);
    if (!n)
        return -1;
    se->subs[se->nsubs++] = n;
    return 0;
}

int session_unsubscribe(api *a, conn *c, int64_t game_id)
{
    session *se = session_of(c);
    for (int i = 0; i < se->nsubs; i++)
        if (se->subs[i]->key == game_id) {
            reg_remove(&a->subs, se->subs[i]);
            se->subs[i] = se->subs[--se->nsubs];
            return 0;
        }
    return 1;
}

void session_close_cb(conn *c)
{
    session *se = session_of(c);
    if (!se)
        return;
    api *a = api_of(c);
    session_logout(a, c);
    while (se->nsubs > 0)
        reg_remove(&a->subs, se->subs[--se->nsubs]);
}

void session_free_cb(conn *c)
{
    free(c->data);
    c->data = NULL;
}
