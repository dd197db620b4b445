/*
 * store_admin: the rows of administrators and moderation (issue 23, item
 * 4; SQLite: migration 13): an account's admin flag and ban, the audit
 * table admin_log, and the one-time password-reset codes.
 *
 * An area like the others (store.h): its table store_admin_ops, reached
 * through the store object's admin pointer (store_core.h, set by the
 * backend when it opens), called through the static inline accessors
 * below. The admin flag is written
 * only by the operator's offline command (store/offline.h
 * offline_admin_set()), never through this table: no request can make an
 * administrator.
 *
 * Same conventions as every area (store_core.h): loop thread only, results STORE_OK or a
 * negative STORE_E*, writes inside the iteration's transaction (the audit
 * row goes into the transaction of the action it records), iterating
 * functions return cb's non-zero value when it stopped.
 */
#ifndef QK_STORE_ADMIN_H
#define QK_STORE_ADMIN_H

#include <stdbool.h>
#include <stdint.h>

#include "store/store_core.h"

#define STORE_ADMIN_REASON_MAX 200  /* bytes of a ban's or an action's reason */
#define STORE_ADMIN_TARGET_MAX 96   /* bytes of an audit row's target in words */
#define STORE_ADMIN_ACTION_MAX 20   /* the action words of admin_log */
#define STORE_ADMIN_OPERATOR "operator" /* admin_name of the offline command line */

/* An account's moderation state. */
typedef struct store_admin_user {
    int64_t id;
    char username[STORE_NAME_MAX + 1];
    bool admin;
    bool banned;
    char ban_reason[STORE_ADMIN_REASON_MAX + 1]; /* "" unless banned */
} store_admin_user;

/* One audit row (admin_log). */
typedef struct store_admin_entry {
    int64_t id;
    int64_t at;       /* UTC ms */
    int64_t admin_id; /* 0: the operator's command line */
    char admin_name[STORE_NAME_MAX + 1];
    char action[STORE_ADMIN_ACTION_MAX + 1]; /* grant, revoke, ban, unban, reset_password,
                                                adjudicate, abort_tournament */
    int64_t target_user_id; /* 0: none (a game, a tournament) */
    char target_user[STORE_NAME_MAX + 1]; /* that account's username now ("" when none);
                                             read only */
    char target[STORE_ADMIN_TARGET_MAX + 1]; /* in words: "user bob", "game 7" */
    char reason[STORE_ADMIN_REASON_MAX + 1]; /* "" = none */
} store_admin_entry;

typedef int (*store_admin_entry_cb)(void *arg, const store_admin_entry *e);

/* The area's table (store_admin_x -> x; contracts at the accessors). */
typedef struct store_admin_ops {
    int (*user_get)(store *s, int64_t user_id, store_admin_user *out);
    int (*ban_set)(store *s, int64_t user_id, const char *reason);
    int (*tokens_delete)(store *s, int64_t user_id, int64_t *n);
    int (*teaches)(store *s, int64_t teacher_id, int64_t user_id, bool *yes);
    int (*log_insert)(store *s, store_admin_entry *e);
    int (*log_list)(store *s, int64_t before, int64_t limit, store_admin_entry_cb cb, void *arg);
    int (*reset_put)(store *s, const uint8_t hash[STORE_TOKEN_HASH], int64_t user_id,
                     int64_t now, int64_t expires);
    int (*reset_valid)(store *s, const uint8_t hash[STORE_TOKEN_HASH], int64_t user_id,
                       int64_t now);
    int (*reset_take)(store *s, const uint8_t hash[STORE_TOKEN_HASH], int64_t user_id,
                      int64_t now);
} store_admin_ops;

/* user_id's admin flag and ban into *out. STORE_NOTFOUND when absent. */
static inline int store_admin_user_get(store *s, int64_t user_id, store_admin_user *out)
{
    return s->admin->user_get(s, user_id, out);
}
/* Ban user_id with reason (copied, 1..STORE_ADMIN_REASON_MAX bytes), or
 * lift the ban (reason NULL). STORE_NOTFOUND when absent. */
static inline int store_admin_ban_set(store *s, int64_t user_id, const char *reason)
{
    return s->admin->ban_set(s, user_id, reason);
}
/* Delete every login token of user_id; *n (may be NULL) how many. */
static inline int store_admin_tokens_delete(store *s, int64_t user_id, int64_t *n)
{
    return s->admin->tokens_delete(s, user_id, n);
}
/* *yes: user_id is a member of a class that teacher_id teaches. */
static inline int store_admin_teaches(store *s, int64_t teacher_id, int64_t user_id, bool *yes)
{
    return s->admin->teaches(s, teacher_id, user_id, yes);
}
/* Append e to the audit (id and target_user ignored); fills e->id. */
static inline int store_admin_log_insert(store *s, store_admin_entry *e)
{
    return s->admin->log_insert(s, e);
}
/* cb for the audit rows with id < before (before 0: from the newest),
 * newest first, at most limit (> 0); target_user filled. cb must not call
 * store_admin_log_list() again. */
static inline int store_admin_log_list(store *s, int64_t before, int64_t limit,
                                       store_admin_entry_cb cb, void *arg)
{
    return s->admin->log_list(s, before, limit, cb, arg);
}
/* Store a reset code's hash for user_id, valid until expires (UTC ms);
 * the user's earlier codes are deleted (one code at a time). */
static inline int store_admin_reset_put(store *s, const uint8_t hash[STORE_TOKEN_HASH],
                                        int64_t user_id, int64_t now, int64_t expires)
{
    return s->admin->reset_put(s, hash, user_id, now, expires);
}
/* STORE_OK when hash is user_id's code and now is before its expiry,
 * else STORE_NOTFOUND. Reads only. */
static inline int store_admin_reset_valid(store *s, const uint8_t hash[STORE_TOKEN_HASH],
                                          int64_t user_id, int64_t now)
{
    return s->admin->reset_valid(s, hash, user_id, now);
}
/* Use up the code: as store_admin_reset_valid(), and on STORE_OK the code
 * (and any expired one of the user) is deleted: it works once. */
static inline int store_admin_reset_take(store *s, const uint8_t hash[STORE_TOKEN_HASH],
                                         int64_t user_id, int64_t now)
{
    return s->admin->reset_take(s, hash, user_id, now);
}

#endif
