/*
 * store_corr: the rows of correspondence play and of notifications
 * (store_core.h for the store object, results and the calling
 * convention): a game's extra fields (SQLite: migration 2's columns),
 * deadline wake-ups and extensions, the server's heartbeat (server_state),
 * vacations, and the notification inbox with what keeps it bounded (one
 * unread notice per game and kind, at most a few per sender, withdrawn
 * with their challenge; issues 9 and 21).
 */
#ifndef QK_STORE_CORR_H
#define QK_STORE_CORR_H

#include "store/store_core.h"

#define STORE_NOTE_DATA_MAX 512 /* bytes of a notification's JSON data */

/* The correspondence fields of a game (SQLite: migration 2's columns). */
typedef struct store_game_x {
    int64_t extended_ms;     /* sum of every extension of this game's deadlines */
    bool vacation;           /* a player's vacation may move its deadlines */
    bool priv;               /* private: only the players may watch */
    char draw_offer[6];      /* side with a standing draw offer: white, black, "" */
    int64_t warned_deadline; /* deadline_soon was sent for this deadline; -1 none */
    int64_t wake_at;         /* when the deadline timer must look at it; -1 none */
} store_game_x;

/* A user's vacation account. */
typedef struct store_vacation {
    int64_t left_h; /* allowance left this year, hours */
    int64_t year;   /* UTC year left_h belongs to; 0 = never used */
    int64_t start;  /* current vacation started (UTC ms); -1 = not on vacation */
    int64_t until;  /* and ends; -1 = not on vacation */
} store_vacation;

/* One notification row. */
typedef struct store_note {
    int64_t id, user_id;
    char kind[24];                  /* your_turn, challenge, draw_offer, game_end, deadline_soon,
                                       challenge_declined, draw_declined,
                                       tournament_round, tournament_end (migration 10) */
    int64_t game_id;                /* 0 = none */
    char data[STORE_NOTE_DATA_MAX]; /* JSON object text */
    bool read;
    int64_t created;
    int64_t sender_id; /* the user whose act it reports, 0 = none (migration 12) */
    int64_t ref_id;    /* the challenge of a challenge/challenge_declined notice, 0 = none */
} store_note;

/* Iteration callbacks: return 0 to go on, non-zero to stop. */
typedef int (*store_extension_cb)(void *arg, const char *kind, int64_t ms, int64_t created);
typedef int (*store_note_cb)(void *arg, const store_note *n);

/* The area's table (store_x -> x, contracts below). */
typedef struct store_corr_ops {
    int (*game_x_get)(store *s, int64_t id, store_game_x *out);
    int (*game_x_put)(store *s, int64_t id, const store_game_x *x);
    int (*wake_next)(store *s, int64_t *at);
    int (*wake_due)(store *s, int64_t now, int64_t *ids, int max, int *n);
    int (*extend_downtime)(store *s, int64_t ms, int64_t now, int64_t *games);
    int (*extension_insert)(store *s, int64_t game, const char *kind, int64_t ms, int64_t now);
    int (*extensions_each)(store *s, int64_t game, store_extension_cb cb, void *arg);
    int (*state_get)(store *s, const char *key, int64_t *value);
    int (*state_set)(store *s, const char *key, int64_t value);
    int (*vacation_get)(store *s, int64_t user_id, store_vacation *out);
    int (*vacation_put)(store *s, int64_t user_id, const store_vacation *v);
    int (*note_insert)(store *s, store_note *n);
    int (*notes_list)(store *s, int64_t user_id, bool unread_only, int64_t limit, int64_t offset,
                      store_note_cb cb, void *arg);
    int (*note_owner)(store *s, int64_t id, int64_t *user_id);
    int (*note_mark)(store *s, int64_t user_id, int64_t id, int64_t *n);
    int (*note_mark_all)(store *s, int64_t user_id, int64_t *n);
    int (*note_unread)(store *s, int64_t user_id, int64_t *n);
    int (*notes_drop_unread)(store *s, int64_t user_id, const char *kind, int64_t game_id);
    int (*notes_cap_sender)(store *s, int64_t user_id, const char *kind, int64_t sender_id,
                            int64_t keep);
    int (*notes_settle)(store *s, int64_t user_id, const char *kind, int64_t ref_id, bool drop);
} store_corr_ops;

/* Read / write the correspondence fields of game id. STORE_NOTFOUND when
 * absent. */
static inline int store_game_x_get(store *s, int64_t id, store_game_x *out)
{
    return s->corr->game_x_get(s, id, out);
}
static inline int store_game_x_put(store *s, int64_t id, const store_game_x *x)
{
    return s->corr->game_x_put(s, id, x);
}

/* ---- deadlines and extensions ---------------------------------------- */

/* The earliest wake_at of an active game: STORE_OK and *at, or
 * STORE_NOTFOUND when no game has one. */
static inline int store_wake_next(store *s, int64_t *at)
{
    return s->corr->wake_next(s, at);
}
/* Ids of active games with wake_at <= now, earliest first, at most max,
 * into ids (the caller's array of max); *n their count. */
static inline int store_wake_due(store *s, int64_t now, int64_t *ids, int max, int *n)
{
    return s->corr->wake_due(s, now, ids, max, n);
}
/* Extend every running correspondence deadline by ms (> 0): the deadline,
 * wake-up and warning move, extended_ms grows, and one 'downtime' row per
 * game is logged with time now. *games receives how many moved. */
static inline int store_extend_downtime(store *s, int64_t ms, int64_t now, int64_t *games)
{
    return s->corr->extend_downtime(s, ms, now, games);
}
/* Log one extension of game (kind "downtime" or "vacation", ms >= 0). */
static inline int store_extension_insert(store *s, int64_t game, const char *kind, int64_t ms,
                                         int64_t now)
{
    return s->corr->extension_insert(s, game, kind, ms, now);
}
/* cb for each extension of game, oldest first (kind valid during the call
 * only); stop on non-zero (returned). cb must not call
 * store_extensions_each() again. */
static inline int store_extensions_each(store *s, int64_t game, store_extension_cb cb, void *arg)
{
    return s->corr->extensions_each(s, game, cb, arg);
}

/* ---- server state and vacations -------------------------------------- */

/* server_state key/value (key borrowed). get: STORE_NOTFOUND when unset. */
static inline int store_state_get(store *s, const char *key, int64_t *value)
{
    return s->corr->state_get(s, key, value);
}
static inline int store_state_set(store *s, const char *key, int64_t value)
{
    return s->corr->state_set(s, key, value);
}

/* A user's vacation account. get: STORE_NOTFOUND when the user is
 * absent; put on an absent user is not an error (nothing changes). */
static inline int store_vacation_get(store *s, int64_t user_id, store_vacation *out)
{
    return s->corr->vacation_get(s, user_id, out);
}
static inline int store_vacation_put(store *s, int64_t user_id, const store_vacation *v)
{
    return s->corr->vacation_put(s, user_id, v);
}

/* ---- notifications --------------------------------------------------- */

/* Insert n (unread; id ignored) and fill n->id, n->read false. */
static inline int store_note_insert(store *s, store_note *n)
{
    return s->corr->note_insert(s, n);
}
/* cb for user's notifications: unread ones oldest first, then (unless
 * unread_only) read ones newest first; rows [offset, offset + limit) of
 * that order (limit > 0). Same return/re-entrancy rules as
 * store_extensions_each(). */
static inline int store_notes_list(store *s, int64_t user_id, bool unread_only, int64_t limit,
                                   int64_t offset, store_note_cb cb, void *arg)
{
    return s->corr->notes_list(s, user_id, unread_only, limit, offset, cb, arg);
}
/* The owner of notification id into *user_id; STORE_NOTFOUND when
 * absent. */
static inline int store_note_owner(store *s, int64_t id, int64_t *user_id)
{
    return s->corr->note_owner(s, id, user_id);
}
/* Mark notification id read if user_id owns it (no error otherwise); *n
 * grows by 1 when it was unread. */
static inline int store_note_mark(store *s, int64_t user_id, int64_t id, int64_t *n)
{
    return s->corr->note_mark(s, user_id, id, n);
}
/* Mark all of user's notifications read; *n how many changed. */
static inline int store_note_mark_all(store *s, int64_t user_id, int64_t *n)
{
    return s->corr->note_mark_all(s, user_id, n);
}
/* How many unread notifications user has, into *n. */
static inline int store_note_unread(store *s, int64_t user_id, int64_t *n)
{
    return s->corr->note_unread(s, user_id, n);
}

/* ---- bounded inbox (issues 9 and 21) ---------------------------------- */

/* Delete user's unread notifications of kind (copied) about game_id (> 0)
 * before a newer one of the same kind replaces them. Absent is not an
 * error. */
static inline int store_notes_drop_unread(store *s, int64_t user_id, const char *kind,
                                          int64_t game_id)
{
    return s->corr->notes_drop_unread(s, user_id, kind, game_id);
}
/* Delete, inside the open transaction, user's unread notifications of kind
 * from sender_id (> 0) but the newest keep (>= 0): called before a new one
 * is inserted, with keep one less than the bound (issue 21). */
static inline int store_notes_cap_sender(store *s, int64_t user_id, const char *kind,
                                         int64_t sender_id, int64_t keep)
{
    return s->corr->notes_cap_sender(s, user_id, kind, sender_id, keep);
}
/* user's unread notifications of kind about ref_id (a challenge id): drop
 * deletes them (the challenge was withdrawn or lapsed), else they are
 * marked read (it was answered). Absent is not an error. */
static inline int store_notes_settle(store *s, int64_t user_id, const char *kind, int64_t ref_id,
                                     bool drop)
{
    return s->corr->notes_settle(s, user_id, kind, ref_id, drop);
}

#endif
