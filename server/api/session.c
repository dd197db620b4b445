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
    /* The session comes zeroed with the connection (net_hooks.data_size
     * = sizeof(session), session_hooks_data_size). */
    session *se = c->data;
    if (!se)
        return -1;
    se->opened_at = uv_now(api_of(c)->loop);
    return 0;
}

const char *session_username(const session *se)
{
    return se->login ? se->login->username : "";
}

bool session_bot(const session *se)
{
    return se->login && se->login->bot;
}

static void fill_login(session_user *u, const char *username, bool bot, const uint8_t *token_hash)
{
    snprintf(u->username, sizeof u->username, "%s", username);
    u->bot = bot;
    u->has_token = token_hash != NULL;
    if (token_hash)
        memcpy(u->token_hash, token_hash, STORE_TOKEN_HASH);
    else
        memset(u->token_hash, 0, sizeof u->token_hash);
}

int session_login(api *a, conn *c, int64_t user_id, const char *username, bool bot,
                  const uint8_t *token_hash)
{
    session *se = session_of(c);
    if (se->login && se->user_id == user_id) {
        /* Same user again (token refresh): keep the registry node. */
        fill_login(se->login, username, bot, token_hash);
    } else {
        session_user *u = malloc(sizeof *u);
        if (!u)
            return -1;
        bool first = reg_first(&a->users, user_id) == NULL;
        reg_node *n = reg_add(&a->users, user_id, c);
        if (!n) {
            free(u);
            return -1;
        }
        session_logout(a, c);
        u->node = n;
        fill_login(u, username, bot, token_hash);
        se->login = u;
        se->user_id = user_id;
        if (first && a->presence)
            a->presence(a->presence_ctx, user_id, true);
    }
    se->logged_in_once = true;
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
    if (se->login) {
        reg_remove(&a->users, se->login->node);
        free(se->login);
        se->login = NULL;
        if (a->presence && !reg_first(&a->users, se->user_id))
            a->presence(a->presence_ctx, se->user_id, false);
    }
    se->user_id = 0;
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
    memset(sv, 0, sizeof *sv);
    sv->conn = c;
    sv->user_id = se->user_id;
    if (se->login) {
        memcpy(sv->username, se->login->username, sizeof sv->username);
        sv->bot = se->login->bot;
        sv->has_token = se->login->has_token;
        memcpy(sv->token_hash, se->login->token_hash, sizeof sv->token_hash);
    }
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
    if (se->nsubs == se->subs_cap) {
        uint16_t cap = se->subs_cap ? se->subs_cap * 2 : 4;
        if (cap > SESSION_MAX_SUBS)
            cap = SESSION_MAX_SUBS;
        reg_node **v = realloc(se->subs, cap * sizeof *v);
        if (!v)
            return -1;
        se->subs = v;
        se->subs_cap = cap;
    }
    reg_node *n = reg_add(&a->subs, game_id, c);
    if (!n)
        return -1;
    se->subs[se->nsubs++] = n;
    return 0;
}

/* The array goes with the last subscription. */
static void subs_release_if_empty(session *se)
{
    if (se->nsubs > 0)
        return;
    free(se->subs);
    se->subs = NULL;
    se->subs_cap = 0;
}

int session_unsubscribe(api *a, conn *c, int64_t game_id)
{
    session *se = session_of(c);
    for (int i = 0; i < se->nsubs; i++)
        if (se->subs[i]->key == game_id) {
            reg_remove(&a->subs, se->subs[i]);
            se->subs[i] = se->subs[--se->nsubs];
            subs_release_if_empty(se);
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
    subs_release_if_empty(se);
}

void session_free_cb(conn *c)
{
    session *se = c->data;
    if (se) {
        free(se->login); /* normally gone at the close already */
        free(se->subs);
    }
    /* The session itself is freed with the connection. */
}
