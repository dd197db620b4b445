/*
 * session: the per-connection login and subscriptions (srv.h). A session
 * is in srv->users while logged in and in srv->subs once per subscribed
 * game; session_close_cb() takes it out of both when the connection
 * closes, so a registry never points at a closed connection.
 */
#include <stdlib.h>
#include <string.h>

#include "srv.h"

session *session_of(conn *c)
{
    return c->data;
}

static srv *srv_of(conn *c)
{
    return c->net->data;
}

int session_open_cb(conn *c)
{
    session *se = calloc(1, sizeof(session));
    c->data = se;
    if (!se)
        return -1;
    se->opened_at = uv_now(srv_of(c)->loop);
    return 0;
}

int session_login(srv *s, conn *c, int64_t user_id, const char *username, bool bot,
                  const uint8_t *token_hash)
{
    session *se = session_of(c);
    if (se->user_id == user_id && se->user_node) {
        /* Same user again (token refresh): keep the registry node. */
    } else {
        reg_node *n = reg_add(&s->users, user_id, c);
        if (!n)
            return -1;
        session_logout(s, c);
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

void session_logout(srv *s, conn *c)
{
    session *se = session_of(c);
    if (se->user_node)
        reg_remove(&s->users, se->user_node);
    se->user_node = NULL;
    se->user_id = 0;
    se->username[0] = '\0';
    se->bot = false;
    se->has_token = false;
}

int session_subscribe(srv *s, conn *c, int64_t game_id)
{
    session *se = session_of(c);
    for (int i = 0; i < se->nsubs; i++)
        if (se->subs[i]->key == game_id)
            return 1;
    if (se->nsubs == SESSION_MAX_SUBS)
        return -1;
    reg_node *n = reg_add(&s->subs, game_id, c);
    if (!n)
        return -1;
    se->subs[se->nsubs++] = n;
    return 0;
}

int session_unsubscribe(srv *s, conn *c, int64_t game_id)
{
    session *se = session_of(c);
    for (int i = 0; i < se->nsubs; i++)
        if (se->subs[i]->key == game_id) {
            reg_remove(&s->subs, se->subs[i]);
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
    srv *s = srv_of(c);
    session_logout(s, c);
    while (se->nsubs > 0)
        reg_remove(&s->subs, se->subs[--se->nsubs]);
}

void session_free_cb(conn *c)
{
    free(c->data);
    c->data = NULL;
}
