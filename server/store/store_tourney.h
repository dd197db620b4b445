/*
 * store_tourney: the store's rows of classes and tournaments (schema
 * migrations 8 and 10) and their functions (store_core.h for the store
 * object, results and the calling convention). The rows are store-neutral
 * structs like those of every area. Same results and re-entrancy rules as
 * every area: 0 or a negative STORE_E* code; an iterating function
 * returns cb's non-zero value when cb stopped, and cb must not call the
 * same function again. Every write needs the iteration's transaction
 * (svc_write_begin()). A class teacher's reset of a student's password is
 * a user row's (store_users.h store_user_pwhash_set()).
 */
#ifndef QK_STORE_TOURNEY_H
#define QK_STORE_TOURNEY_H

#include "qk_rules.h"
#include "store/store_core.h"

#define STORE_TNAME_MAX 64 /* class / tournament name bytes */
#define STORE_CODE_MAX 12  /* join code characters */
#define STORE_DNAME_MAX 64 /* a class member's display name bytes */
#define STORE_TTC_MAX 128  /* = STORE_TC_MAX (store_core.h) */
#define STORE_TREASON_MAX 200

typedef struct store_class {
    int64_t id;
    char name[STORE_TNAME_MAX + 1];
    char code[STORE_CODE_MAX + 1];
    int64_t teacher_id;
    char teacher[33]; /* username (read, never written) */
    int64_t created;
} store_class;

/* A class member: user id, username (read only), display name. */
typedef struct store_member {
    int64_t user_id;
    char username[33];
    char name[STORE_DNAME_MAX + 1];
    bool bot;
} store_member;

typedef struct store_tourney {
    int64_t id;
    char name[STORE_TNAME_MAX + 1];
    char system[12]; /* round_robin, swiss */
    char variant[QK_VARIANT_NAMELEN];
    char time_control[STORE_TTC_MAX]; /* JSON text */
    char position[QK_POS_STRLEN];     /* "" = the variant's start */
    int64_t rounds;
    bool dbl, rated, bots;
    int64_t class_id;    /* 0 = open to everyone */
    char start_mode[10]; /* organiser, auto */
    char status[10];     /* open, running, finished */
    int64_t organiser_id;
    char organiser[33];    /* username (read, never written) */
    int64_t current_round; /* last round paired, 0 = none */
    char end_reason[STORE_TREASON_MAX + 1];
    int64_t created, updated;
    char pairer[10]; /* builtin, external (migration 10); "" = builtin on insert */
} store_tourney;

typedef struct store_tplayer {
    int64_t user_id;
    char username[33]; /* read only */
    bool bot;          /* read only: users.bot */
    int64_t number;    /* pairing number */
    bool withdrawn;
    int64_t late_round; /* first round the player could be paired in; 0 = from round 1 */
} store_tplayer;

typedef struct store_pairing {
    int64_t tournament_id, round, board;
    int64_t white_id, black_id; /* black_id 0 for a bye */
    int64_t game_id;            /* 0 = none (bye, forfeit) */
    char kind[8];               /* game, forfeit, bye */
    char result[6];             /* white, black, draw, "" = not yet */
    bool by_hand;
} store_pairing;

typedef int (*store_class_cb)(void *arg, const store_class *c);
typedef int (*store_member_cb)(void *arg, const store_member *m);
typedef int (*store_tourney_cb)(void *arg, const store_tourney *t);
typedef int (*store_tplayer_cb)(void *arg, const store_tplayer *p);
typedef int (*store_pairing_cb)(void *arg, const store_pairing *p);

/* The area's table (store_x -> x, contracts below). */
typedef struct store_tourney_ops {
    int (*class_insert)(store *s, store_class *c);
    int (*class_get)(store *s, int64_t id, store_class *out);
    int (*class_by_code)(store *s, const char *code, store_class *out);
    int (*classes_of)(store *s, int64_t user_id, store_class_cb cb, void *arg);
    int (*member_add)(store *s, int64_t class_id, int64_t user_id, const char *name, int64_t now);
    int (*members_each)(store *s, int64_t class_id, store_member_cb cb, void *arg);
    int (*member_is)(store *s, int64_t class_id, int64_t user_id, bool *yes);
    int (*tourney_insert)(store *s, store_tourney *t);
    int (*tourney_get)(store *s, int64_t id, store_tourney *out);
    int (*tourney_update)(store *s, const store_tourney *t);
    int (*tourneys_list)(store *s, const char *status, int64_t limit, store_tourney_cb cb,
                         void *arg);
    int (*tplayer_add)(store *s, int64_t tid, int64_t user_id, int64_t number, int64_t late_round,
                       int64_t now);
    int (*tplayers_each)(store *s, int64_t tid, store_tplayer_cb cb, void *arg);
    int (*tplayer_withdraw)(store *s, int64_t tid, int64_t user_id);
    int (*tplayer_remove)(store *s, int64_t tid, int64_t user_id);
    int (*pairing_insert)(store *s, const store_pairing *p);
    int (*pairings_each)(store *s, int64_t tid, store_pairing_cb cb, void *arg);
    int (*pairing_by_game)(store *s, int64_t game_id, store_pairing *out);
    int (*pairing_set)(store *s, const store_pairing *p);
    int (*forbid_add)(store *s, int64_t tid, int64_t a, int64_t b);
    int (*forbids_each)(store *s, int64_t tid, int (*cb)(void *arg, int64_t a, int64_t b),
                        void *arg);
    int (*game_tourney_set)(store *s, int64_t game_id, int64_t tid, int64_t round);
    int (*game_tourney_get)(store *s, int64_t game_id, int64_t *tid, int64_t *round);
} store_tourney_ops;

/* Insert a class (id and teacher ignored): fills c->id. STORE_CONFLICT
 * when the code is taken. */
static inline int store_class_insert(store *s, store_class *c)
{
    return s->tourney->class_insert(s, c);
}
/* One class by id or by join code (exact). STORE_NOTFOUND when absent. */
static inline int store_class_get(store *s, int64_t id, store_class *out)
{
    return s->tourney->class_get(s, id, out);
}
static inline int store_class_by_code(store *s, const char *code, store_class *out)
{
    return s->tourney->class_by_code(s, code, out);
}
/* Classes user_id teaches or belongs to, by id. */
static inline int store_classes_of(store *s, int64_t user_id, store_class_cb cb, void *arg)
{
    return s->tourney->classes_of(s, user_id, cb, arg);
}
/* Add user_id to class_id with display name (copied). STORE_CONFLICT when
 * already a member. */
static inline int store_member_add(store *s, int64_t class_id, int64_t user_id, const char *name,
                                   int64_t now)
{
    return s->tourney->member_add(s, class_id, user_id, name, now);
}
/* Members of class_id in username order (case-insensitive). */
static inline int store_members_each(store *s, int64_t class_id, store_member_cb cb, void *arg)
{
    return s->tourney->members_each(s, class_id, cb, arg);
}
/* Whether user_id is a member of class_id into *yes. */
static inline int store_member_is(store *s, int64_t class_id, int64_t user_id, bool *yes)
{
    return s->tourney->member_is(s, class_id, user_id, yes);
}

/* Insert t (id, organiser, current_round, end_reason ignored); fills t->id. */
static inline int store_tourney_insert(store *s, store_tourney *t)
{
    return s->tourney->tourney_insert(s, t);
}
static inline int store_tourney_get(store *s, int64_t id, store_tourney *out)
{
    return s->tourney->tourney_get(s, id, out);
}
/* Write t's mutable fields: rounds, status, current_round, end_reason,
 * updated. STORE_NOTFOUND when absent. */
static inline int store_tourney_update(store *s, const store_tourney *t)
{
    return s->tourney->tourney_update(s, t);
}
/* Tournaments newest first, only those of status (NULL = all), at most
 * limit (> 0). */
static inline int store_tourneys_list(store *s, const char *status, int64_t limit,
                                      store_tourney_cb cb, void *arg)
{
    return s->tourney->tourneys_list(s, status, limit, cb, arg);
}
/* Add a player. STORE_CONFLICT when already in (or the number is taken). */
static inline int store_tplayer_add(store *s, int64_t tid, int64_t user_id, int64_t number,
                                    int64_t late_round, int64_t now)
{
    return s->tourney->tplayer_add(s, tid, user_id, number, late_round, now);
}
/* The players of tid by pairing number. */
static inline int store_tplayers_each(store *s, int64_t tid, store_tplayer_cb cb, void *arg)
{
    return s->tourney->tplayers_each(s, tid, cb, arg);
}
/* Mark user_id withdrawn from tid. STORE_NOTFOUND when not a player. */
static inline int store_tplayer_withdraw(store *s, int64_t tid, int64_t user_id)
{
    return s->tourney->tplayer_withdraw(s, tid, user_id);
}
/* Remove user_id from tid (before the start). STORE_NOTFOUND when not a
 * player. */
static inline int store_tplayer_remove(store *s, int64_t tid, int64_t user_id)
{
    return s->tourney->tplayer_remove(s, tid, user_id);
}
/* Insert a pairing. STORE_CONFLICT when (tournament, round, board) or the
 * game id exists: the guard against pairing one round twice. */
static inline int store_pairing_insert(store *s, const store_pairing *p)
{
    return s->tourney->pairing_insert(s, p);
}
/* The pairings of tid by round then board. */
static inline int store_pairings_each(store *s, int64_t tid, store_pairing_cb cb, void *arg)
{
    return s->tourney->pairings_each(s, tid, cb, arg);
}
/* The pairing of game_id. STORE_NOTFOUND when the game is no tournament's. */
static inline int store_pairing_by_game(store *s, int64_t game_id, store_pairing *out)
{
    return s->tourney->pairing_by_game(s, game_id, out);
}
/* Write p's kind, result (""= NULL) and by_hand by its key.
 * STORE_NOTFOUND when absent. */
static inline int store_pairing_set(store *s, const store_pairing *p)
{
    return s->tourney->pairing_set(s, p);
}
/* Forbid the pair (a, b) in tid (order kept as given). STORE_CONFLICT when
 * already forbidden. */
static inline int store_forbid_add(store *s, int64_t tid, int64_t a, int64_t b)
{
    return s->tourney->forbid_add(s, tid, a, b);
}
/* Every forbidden pair of tid: cb(arg, a, b). */
static inline int store_forbids_each(store *s, int64_t tid,
                                     int (*cb)(void *arg, int64_t a, int64_t b), void *arg)
{
    return s->tourney->forbids_each(s, tid, cb, arg);
}
/* A game's tournament and round (0, 0 outside tournaments): set once
 * after games_start, read when a game is loaded. */
static inline int store_game_tourney_set(store *s, int64_t game_id, int64_t tid, int64_t round)
{
    return s->tourney->game_tourney_set(s, game_id, tid, round);
}
static inline int store_game_tourney_get(store *s, int64_t game_id, int64_t *tid, int64_t *round)
{
    return s->tourney->game_tourney_get(s, game_id, tid, round);
}

#endif
