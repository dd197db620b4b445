/*
 * session: the per-connection state of the api layer (conn->data): who is
 * logged in and which games it watches. A session is in api.users while
 * logged in and in api.subs once per subscribed game; session_close_cb()
 * takes it out of both when the connection closes, so a registry never
 * points at a closed connection.
 *
 * Memory (docs/perf.md "Idle connection memory"): what every connection
 * needs from its first request (the user id, the request rate, the login
 * deadline, the event stamp) is in the session itself; the login's
 * details (name, token hash, registry node) are allocated at login and
 * freed at logout, and the subscriptions are an array grown on demand
 * (up to SESSION_MAX_SUBS) and freed when the last one goes. An
 * anonymous connection with no subscription costs sizeof(session) alone,
 * in the connection's own allocation (net_hooks.data_size).
 */
#ifndef QK_SESSION_H
#define QK_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "api/api.h"
#include "store/store.h"

#define SESSION_MAX_SUBS 64 /* subscriptions per connection */

/* Who a logged-in session is: allocated by session_login(), freed by
 * session_logout(). */
typedef struct session_user {
    reg_node *node; /* in api.users */
    bool bot;
    bool has_token; /* token_hash is the one this connection logged in with */
    uint8_t token_hash[STORE_TOKEN_HASH];
    char username[STORE_NAME_MAX + 1];
} session_user;

typedef struct session {
    int64_t user_id;    /* 0: anonymous (then login is NULL) */
    session_user *login; /* while logged in */
    reg_node **subs;     /* nsubs nodes in api.subs, room for subs_cap; NULL when none */
    uint16_t nsubs, subs_cap;
    bool logged_in_once; /* a login succeeded: never closed for idling anonymously */
    bool lobby;          /* subscribed to open seeks (`lobby`); delivered while logged in */
    uint8_t proto;       /* protocol version declared in hello (req.c): 0 = none = 1 */
    uint64_t event_stamp; /* last event queued here (dedup) */
    rate_bucket rate;     /* requests of this connection (api.rate) */
    uint64_t opened_at;   /* uv_now() at accept: the login deadline counts from it */
} session;

/* The api of c's net (net.data). */
api *api_of(conn *c);
/* The session of c (never NULL after accept). */
session *session_of(conn *c);
/* The logged-in user's name, "" when anonymous (borrowed from se: valid
 * until the next login or logout). */
const char *session_username(const session *se);
/* Whether the logged-in account is a bot (false when anonymous). */
bool session_bot(const session *se);
/* Log c in as user (username: at most STORE_NAME_MAX characters, copied;
 * token_hash: STORE_TOKEN_HASH bytes, copied, or NULL). Replaces a
 * previous login. Returns 0, or -1 on allocation failure (c's login is
 * unchanged). */
int session_login(api *a, conn *c, int64_t user_id, const char *username, bool bot,
                  const uint8_t *token_hash);
/* Whether c may log in as user_id: it already is, or the account has
 * fewer than api.max_per_account connections logged in. */
bool session_may_login(api *a, conn *c, int64_t user_id);
/* Back to anonymous (the login's memory is freed); subscriptions are
 * kept. */
void session_logout(api *a, conn *c);
/* Record c's login before a login/logout changes it: if the batch is
 * lost the session is put back (batch.h). */
void session_touch(api *a, conn *c);
/* Subscribe c to a game's events: 0, 1 when already subscribed, -1 when
 * the per-connection limit is reached or on allocation failure. */
int session_subscribe(api *a, conn *c, int64_t game_id);
/* 0, or 1 when c was not subscribed. */
int session_unsubscribe(api *a, conn *c, int64_t game_id);
/* net hooks, with net_hooks.data_size = sizeof(session): the session is
 * allocated with its connection (the transport's block) and zeroed;
 * open_cb sets it up, free_cb releases what it holds (the login, the
 * subscriptions' array). */
int session_open_cb(conn *c);
void session_close_cb(conn *c);
void session_free_cb(conn *c);

#endif
