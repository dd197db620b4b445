/*
 * store_challenges: challenges and open seeks (store_core.h for the store
 * object, results and the calling convention): the row, its life from open
 * to accepted/declined/canceled/expired, the lobby (a user's challenges,
 * the paged seeks of others), the options a challenge carries to its game
 * (vacation, private; a seek's rating range), and the counts behind the
 * per-account challenge limits (issue 21).
 */
#ifndef QK_STORE_CHALLENGES_H
#define QK_STORE_CHALLENGES_H

#include "qk_rules.h"
#include "store/store_core.h"
#include "store/store_users.h"

#define STORE_REASON_MAX 200 /* decline reason bytes */
#define STORE_SEEKS_PAGE 50  /* others' open seeks in store_challenges_for() */

typedef struct store_challenge {
    int64_t id;
    int64_t from_id, to_id;                                /* to_id 0: an open seek */
    char from[STORE_NAME_MAX + 1], to[STORE_NAME_MAX + 1]; /* usernames ("" if open) */
    char variant[QK_VARIANT_NAMELEN];
    char color[8];                   /* white, black, random */
    char time_control[STORE_TC_MAX]; /* JSON text */
    char position[QK_POS_STRLEN];    /* "" = the variant's start */
    char status[12];                 /* open, accepted, declined, canceled */
    char decline_reason[STORE_REASON_MAX + 1];
    int64_t game_id; /* 0 = none */
    int64_t created, updated;
    bool rated;            /* the game will be rated (no hints) */
    bool from_bot, to_bot; /* the accounts' bot flags (to_bot false for a seek) */
    bool vacation, priv;   /* its options as read (insert ignores them: x_put writes them) */
    /* As read: when the accounts' current vacations end (UTC ms, the
     * users' rows as store_vacation_get() reads them), -1 when not on
     * vacation (to: also for a seek); insert ignores them. */
    int64_t from_vacation_until, to_vacation_until;
} store_challenge;

/* What a new challenge is checked against (store_challenge_checks()). */
typedef struct store_challenge_facts {
    int64_t made, oldest; /* as store_challenges_since(); 0 and 0 when not asked */
    int64_t open;         /* as store_challenges_open_from() */
    bool to_found;        /* the target account exists (false when not asked) */
    store_user to;        /* when to_found: id, username, bot, created; pwhash "" */
} store_challenge_facts;

/* Iteration callback: return 0 to go on, non-zero to stop. */
typedef int (*store_challenge_cb)(void *arg, const store_challenge *c);

/* The area's table (store_x -> x, contracts below). */
typedef struct store_challenges_ops {
    int (*challenge_insert)(store *s, store_challenge *c, int64_t now);
    int (*challenge_get)(store *s, int64_t id, store_challenge *out);
    int (*challenge_close)(store *s, int64_t id, const char *status, const char *reason,
                           int64_t game_id, int64_t now);
    int (*challenges_for)(store *s, int64_t user_id, store_challenge_cb cb, void *arg);
    int (*challenges_open_from)(store *s, int64_t user_id, int64_t *n);
    int (*challenge_x_put)(store *s, int64_t id, bool vacation, bool priv);
    int (*challenge_x_get)(store *s, int64_t id, bool *vacation, bool *priv);
    int (*challenges_expiring)(store *s, int64_t direct_before, int64_t seek_before, int64_t *ids,
                               int max, int *n);
    int (*challenge_range_put)(store *s, int64_t id, int64_t min, int64_t max);
    int (*challenge_range_get)(store *s, int64_t id, int64_t *min, int64_t *max);
    int (*challenges_since)(store *s, int64_t user_id, int64_t since, int64_t *n, int64_t *oldest);
    int (*challenge_checks)(store *s, int64_t user_id, int64_t since, const char *to_name,
                            store_challenge_facts *out);
    int (*seeks_page)(store *s, int64_t user_id, int64_t after, int64_t limit,
                      store_challenge_cb cb, void *arg);
} store_challenges_ops;

/* Insert c (status "open"; id, from, to, status, decline_reason, game_id,
 * created/updated as given are ignored); fills c->id, c->status "open",
 * c->decline_reason "", c->game_id 0, c->created = c->updated = now. */
static inline int store_challenge_insert(store *s, store_challenge *c, int64_t now)
{
    return s->challenges->challenge_insert(s, c, now);
}
/* Read one challenge (with usernames) into *out. STORE_NOTFOUND when
 * absent. */
static inline int store_challenge_get(store *s, int64_t id, store_challenge *out)
{
    return s->challenges->challenge_get(s, id, out);
}
/* Move an open challenge to status (accepted, declined, canceled) with an
 * optional decline reason (NULL) and game id (0 = none). STORE_CONFLICT
 * when it is no longer open (or absent); on PostgreSQL on a node alone,
 * inside a batch, the COMMIT fails instead (store/pg.h
 * store_pg_exclusive()). */
static inline int store_challenge_close(store *s, int64_t id, const char *status,
                                        const char *reason, int64_t game_id, int64_t now)
{
    return s->challenges->challenge_close(s, id, status, reason, game_id, now);
}
/* Call cb for every open challenge from user, to user, and the oldest
 * STORE_SEEKS_PAGE open seeks by anyone else (the rest: store_seeks_page()),
 * oldest first (*c valid during the call only). cb returns 0
 * to go on, non-zero to stop (that value is returned). cb must not call
 * store_challenges_for() again. */
static inline int store_challenges_for(store *s, int64_t user_id, store_challenge_cb cb, void *arg)
{
    return s->challenges->challenges_for(s, user_id, cb, arg);
}
/* *n = the number of open challenges user_id has made (seeks included).
 * STORE_OK or STORE_EIO. */
static inline int store_challenges_open_from(store *s, int64_t user_id, int64_t *n)
{
    return s->challenges->challenges_open_from(s, user_id, n);
}
/* The vacation/private options of a challenge. put on an absent id is not
 * an error (nothing changes); get: STORE_NOTFOUND when absent. */
static inline int store_challenge_x_put(store *s, int64_t id, bool vacation, bool priv)
{
    return s->challenges->challenge_x_put(s, id, vacation, priv);
}
static inline int store_challenge_x_get(store *s, int64_t id, bool *vacation, bool *priv)
{
    return s->challenges->challenge_x_get(s, id, vacation, priv);
}

/* ---- bots, second step (issue 15; SQLite: migration 5) ---------------- */

/* The ids of open challenges that are due to expire, oldest first, at most
 * max into ids (*n of them): direct ones created before direct_before, open
 * seeks created before seek_before (UTC ms). The caller closes each with
 * store_challenge_close(..., "expired", ...). */
static inline int store_challenges_expiring(store *s, int64_t direct_before, int64_t seek_before,
                                            int64_t *ids, int max, int *n)
{
    return s->challenges->challenges_expiring(s, direct_before, seek_before, ids, max, n);
}

/* ---- ratings (issue 12; SQLite: migration 7) -------------------------- */

/* An open seek's rating range, inclusive; -1 = no bound. put on an absent
 * id is not an error (nothing changes); get: STORE_NOTFOUND when absent. */
static inline int store_challenge_range_put(store *s, int64_t id, int64_t min, int64_t max)
{
    return s->challenges->challenge_range_put(s, id, min, max);
}
static inline int store_challenge_range_get(store *s, int64_t id, int64_t *min, int64_t *max)
{
    return s->challenges->challenge_range_get(s, id, min, max);
}

/* ---- bounded (issue 9, issue 21) -------------------------------------- */

/* How many challenges user_id made (any status, open seeks and rematches
 * included) created at or after since (UTC ms), into *n, and the creation
 * time of the oldest of them into *oldest (0 when none): the per-account
 * challenge rate (api/ops_challenge.c). Pruned rows (store_prune) are not
 * counted, so the window must be far shorter than the sweep's age. */
static inline int store_challenges_since(store *s, int64_t user_id, int64_t since, int64_t *n,
                                         int64_t *oldest)
{
    return s->challenges->challenges_since(s, user_id, since, n, oldest);
}
/* Everything a new challenge from user_id is checked against, read at
 * once: store_challenges_since(since) into made and oldest when since > 0
 * (else both 0), store_challenges_open_from() into open, and, when to_name
 * is not NULL, the account of that name (case-insensitive, as
 * store_user_by_name(), without its password hash) into to, to_found false
 * when there is none. Why one call: on PostgreSQL each read waits for its
 * answer, and while it waits no other request of the node runs (util/task.h
 * "One task at a time"); this is one round trip where there were three
 * (docs/perf.md "Issue 22, sixth session"). */
static inline int store_challenge_checks(store *s, int64_t user_id, int64_t since,
                                         const char *to_name, store_challenge_facts *out)
{
    return s->challenges->challenge_checks(s, user_id, since, to_name, out);
}
/* cb for the open seeks by users other than user_id with ids above after
 * (0: from the start), oldest first, at most limit (> 0). Return and
 * re-entrancy rules as store_challenges_for(). */
static inline int store_seeks_page(store *s, int64_t user_id, int64_t after, int64_t limit,
                                   store_challenge_cb cb, void *arg)
{
    return s->challenges->seeks_page(s, user_id, after, limit, cb, arg);
}

#endif
