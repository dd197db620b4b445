/*
 * store_corr: the rows of correspondence play (schema.sql migration 2)
 * over the same connection, statement table and group commit as store.h:
 * a game's extra fields (extensions, vacation, privacy, draw offer, the
 * deadline timer's wake-up), the log of deadline extensions, the server's
 * heartbeat, each user's vacation, and notifications. Results are 0
 * (STORE_OK) or a negative STORE_E* code as in store.h; loop thread only.
 */
#ifndef QK_STORE_CORR_H
#define QK_STORE_CORR_H

#include <stdbool.h>
#include <stdint.h>

#include "store/store.h"

#define STORE_NOTE_DATA_MAX 512 /* bytes of a notification's JSON data */

/* The columns of games that migration 2 added. */
typedef struct store_game_x {
    int64_t extended_ms;     /* sum of every extension of this game's deadlines */
    bool vacation;           /* a player's vacation may move its deadlines */
    bool priv;               /* private: only the players may watch */
    char draw_offer[6];      /* side with a standing draw offer: white, black, "" */
    int64_t warned_deadline; /* deadline_soon was sent for this deadline; -1 none */
    int64_t wake_at;         /* when the deadline timer must look at it; -1 none */
} store_game_x;

/* Read / write the extra columns of game id. STORE_NOTFOUND when absent. */
int store_game_x_get(store *s, int64_t id, store_game_x *out);
int store_game_x_put(store *s, int64_t id, const store_game_x *x);

/* The earliest wake_at of an active game: STORE_OK and *at, or
 * STORE_NOTFOUND when no game has one. */
int store_wake_next(store *s, int64_t *at);
/* Ids of active games with wake_at <= now, earliest first, at most max,
 * into ids; *n their count. */
int store_wake_due(store *s, int64_t now, int64_t *ids, int max, int *n);
/* Extend every running correspondence deadline by ms (> 0): the deadline,
 * wake-up and warning move, extended_ms grows, and one 'downtime' row per
 * game is logged with time now. *games receives how many moved. */
int store_extend_downtime(store *s, int64_t ms, int64_t now, int64_t *games);
/* Log one extension of game (kind "downtime" or "vacation", ms >= 0). */
int store_extension_insert(store *s, int64_t game, const char *kind, int64_t ms, int64_t now);
/* cb for each extension of game, oldest first; stop on non-zero (returned).
 * cb must not call store_extensions_each() again. */
int store_extensions_each(store *s, int64_t game,
                          int (*cb)(void *arg, const char *kind, int64_t ms, int64_t created),
                          void *arg);

/* server_state key/value (key borrowed). get: STORE_NOTFOUND when unset. */
int store_state_get(store *s, const char *key, int64_t *value);
int store_state_set(store *s, const char *key, int64_t value);

/* A user's vacation account. */
typedef struct store_vacation {
    int64_t left_h; /* allowance left this year, hours */
    int64_t year;   /* UTC year left_h belongs to; 0 = never used */
    int64_t start;  /* current vacation started (UTC ms); -1 = not on vacation */
    int64_t until;  /* and ends; -1 = not on vacation */
} store_vacation;
int store_vacation_get(store *s, int64_t user_id, store_vacation *out);
int store_vacation_put(store *s, int64_t user_id, const store_vacation *v);

/* The vacation/private options of a challenge (migration 2 columns). */
int store_challenge_x_put(store *s, int64_t id, bool vacation, bool priv);
int store_challenge_x_get(store *s, int64_t id, bool *vacation, bool *priv);

/* One notification row. */
typedef struct store_note {
    int64_t id, user_id;
    char kind[24];                  /* your_turn, challenge, draw_offer, game_end, deadline_soon,
                                       challenge_declined, draw_declined */
    int64_t game_id;                /* 0 = none */
    char data[STORE_NOTE_DATA_MAX]; /* JSON object text */
    bool read;
    int64_t created;
} store_note;

/* Insert n (unread; id ignored) and fill n->id. */
int store_note_insert(store *s, store_note *n);
/* cb for user's notifications: unread ones oldest first, then (unless
 * unread_only) read ones newest first; rows [offset, offset + limit) of
 * that order (limit > 0). Same return/re-entrancy rules as
 * store_extensions_each(). */
int store_notes_list(store *s, int64_t user_id, bool unread_only, int64_t limit, int64_t offset,
                     int (*cb)(void *arg, const store_note *n), void *arg);
/* The owner of notification id; STORE_NOTFOUND when absent. */
int store_note_owner(store *s, int64_t id, int64_t *user_id);
/* Mark notification id read if user_id owns it (no error otherwise); *n
 * grows by 1 when it was unread. */
int store_note_mark(store *s, int64_t user_id, int64_t id, int64_t *n);
/* Mark all of user's notifications read; *n how many changed. */
int store_note_mark_all(store *s, int64_t user_id, int64_t *n);
/* How many unread notifications user has. */
int store_note_unread(store *s, int64_t user_id, int64_t *n);

#endif
