/*
 * store_users: accounts and their session tokens (store_core.h for the
 * store object, results and the calling convention). A user row, the
 * lookups by name and id, the paged listing, the password hash a teacher
 * resets (classes, issue 13), and the tokens: a login's token is stored
 * only as its BLAKE2b-256 hash. The vacation columns of users are
 * correspondence play's (store_corr.h).
 */
#ifndef QK_STORE_USERS_H
#define QK_STORE_USERS_H

#include "store/store_core.h"

#define STORE_PWHASH_MAX 128                  /* >= crypto_pwhash_STRBYTES */
#define STORE_TOKEN_IDLE_MS (30LL * 86400000) /* a token unused this long is unknown */

typedef struct store_user {
    int64_t id;
    char username[STORE_NAME_MAX + 1]; /* as registered */
    bool bot;
    char pwhash[STORE_PWHASH_MAX];
    int64_t created; /* UTC ms */
} store_user;

/* Iteration callback: return 0 to go on, non-zero to stop. */
typedef int (*store_user_cb)(void *arg, const store_user *u);

/* The area's table (store_x -> x, contracts below). */
typedef struct store_users_ops {
    int (*user_by_name)(store *s, const char *name, store_user *out);
    int (*user_by_id)(store *s, int64_t id, store_user *out);
    int (*user_insert)(store *s, const char *name, bool bot, const char *pwhash, int64_t now,
                       int64_t *id);
    int (*users_list)(store *s, int bot, const char *after, int64_t limit, store_user_cb cb,
                      void *arg);
    int (*user_pwhash_set)(store *s, int64_t user_id, const char *pwhash);
    int (*token_insert)(store *s, const uint8_t hash[STORE_TOKEN_HASH], int64_t user_id,
                        int64_t now);
    int (*token_user)(store *s, const uint8_t hash[STORE_TOKEN_HASH], int64_t now,
                      int64_t *user_id);
    int (*token_delete)(store *s, const uint8_t hash[STORE_TOKEN_HASH]);
} store_users_ops;

/* Look a user up by name (case-insensitive) or id into *out.
 * STORE_NOTFOUND when absent. */
static inline int store_user_by_name(store *s, const char *name, store_user *out)
{
    return s->users->user_by_name(s, name, out);
}
static inline int store_user_by_id(store *s, int64_t id, store_user *out)
{
    return s->users->user_by_id(s, id, out);
}
/* Insert a user (name and pwhash copied); *id receives the new id.
 * STORE_CONFLICT when the name is taken (in any case). */
static inline int store_user_insert(store *s, const char *name, bool bot, const char *pwhash,
                                    int64_t now, int64_t *id)
{
    return s->users->user_insert(s, name, bot, pwhash, now, id);
}

/* Call cb for users in name order (case-insensitive), at most limit (> 0)
 * of them: only bots when bot is 1, only people when 0, everyone when -1;
 * only names after `after` (NULL or "": from the start; paging). pwhash is
 * left empty; *u is valid during the call only. Returns 0, cb's non-zero
 * value when it stopped, or STORE_EIO. cb must not call store_users_list()
 * again. */
static inline int store_users_list(store *s, int bot, const char *after, int64_t limit,
                                   store_user_cb cb, void *arg)
{
    return s->users->users_list(s, bot, after, limit, cb, arg);
}
/* Replace user_id's password hash (copied). STORE_NOTFOUND when absent. */
static inline int store_user_pwhash_set(store *s, int64_t user_id, const char *pwhash)
{
    return s->users->user_pwhash_set(s, user_id, pwhash);
}

/* Tokens are stored as their BLAKE2b-256 hash (32 bytes). */
static inline int store_token_insert(store *s, const uint8_t hash[STORE_TOKEN_HASH],
                                     int64_t user_id, int64_t now)
{
    return s->users->token_insert(s, hash, user_id, now);
}
/* The user of a token hash into *user_id (and mark it used at now):
 * STORE_NOTFOUND when unknown, or when it was last used
 * STORE_TOKEN_IDLE_MS or more before now (expired; the upkeep sweep
 * deletes it, store_prune() in store_core.h). */
static inline int store_token_user(store *s, const uint8_t hash[STORE_TOKEN_HASH], int64_t now,
                                   int64_t *user_id)
{
    return s->users->token_user(s, hash, now, user_id);
}
/* Delete a token (absent is not an error). */
static inline int store_token_delete(store *s, const uint8_t hash[STORE_TOKEN_HASH])
{
    return s->users->token_delete(s, hash);
}

#endif
