/*
 * store_tourney: the store's rows of classes and tournaments (schema
 * migrations 8 and 10) and their functions. The rows are store-neutral structs
 * like those of store.h; the functions are entries of store_ops (store.h
 * includes this header for the row types and the table's entries) and
 * dispatch through it in store_tourney_ops.c. Same results and re-entrancy
 * rules as store.h: 0 or a negative STORE_E* code; an iterating function
 * returns cb's non-zero value when cb stopped, and cb must not call the
 * same function again. Every write needs the iteration's transaction
 * (svc_write_begin()).
 */
#ifndef QK_STORE_TOURNEY_H
#define QK_STORE_TOURNEY_H

#include <stdbool.h>
#include <stdint.h>

#include "qk_rules.h"

#define STORE_TNAME_MAX 64  /* class / tournament name bytes */
#define STORE_CODE_MAX 12   /* join code characters */
#define STORE_DNAME_MAX 64  /* a class member's display name bytes */
#define STORE_TTC_MAX 128   /* = STORE_TC_MAX (store.h) */
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
    char system[12];                  /* round_robin, swiss */
    char variant[QK_VARIANT_NAMELEN];
    char time_control[STORE_TTC_MAX]; /* JSON text */
    char position[QK_POS_STRLEN];     /* "" = the variant's start */
    int64_t rounds;
    bool dbl, rated, bots;
    int64_t class_id;                 /* 0 = open to everyone */
    char start_mode[10];              /* organiser, auto */
    char status[10];                  /* open, running, finished */
    int64_t organiser_id;
    char organiser[33];               /* username (read, never written) */
    int64_t current_round;            /* last round paired, 0 = none */
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

typedef struct store store;

/* Insert a class (id and teacher ignored): fills c->id. STORE_CONFLICT
 * when the code is taken. */
int store_class_insert(store *s, store_class *c);
/* One class by id or by join code (exact). STORE_NOTFOUND when absent. */
int store_class_get(store *s, int64_t id, store_class *out);
int store_class_by_code(store *s, const char *code, store_class *out);
/* Classes user_id teaches or belongs to, by id. */
int store_classes_of(store *s, int64_t user_id, store_class_cb cb, void *arg);
/* Add user_id to class_id with display name (copied). STORE_CONFLICT when
 * already a member. */
int store_member_add(store *s, int64_t class_id, int64_t user_id, const char *name, int64_t now);
/* Members of class_id in username order (case-insensitive). */
int store_members_each(store *s, int64_t class_id, store_member_cb cb, void *arg);
/* Whether user_id is a member of class_id into *yes. */
int store_member_is(store *s, int64_t class_id, int64_t user_id, bool *yes);
/* Replace user_id's password hash (copied). STORE_NOTFOUND when absent. */
int store_user_pwhash_set(store *s, int64_t user_id, const char *pwhash);

/* Insert t (id, organiser, current_round, end_reason ignored); fills t->id. */
int store_tourney_insert(store *s, store_tourney *t);
int store_tourney_get(store *s, int64_t id, store_tourney *out);
/* Write t's mutable fields: rounds, status, current_round, end_reason,
 * updated. STORE_NOTFOUND when absent. */
int store_tourney_update(store *s, const store_tourney *t);
/* Tournaments newest first, only those of status (NULL = all), at most
 * limit (> 0). */
int store_tourneys_list(store *s, const char *status, int64_t limit, store_tourney_cb cb,
                        void *arg);
/* Add a player. STORE_CONFLICT when already in (or the number is taken). */
int store_tplayer_add(store *s, int64_t tid, int64_t user_id, int64_t number, int64_t late_round,
                      int64_t now);
/* The players of tid by pairing number. */
int store_tplayers_each(store *s, int64_t tid, store_tplayer_cb cb, void *arg);
/* Mark user_id withdrawn from tid. STORE_NOTFOUND when not a player. */
int store_tplayer_withdraw(store *s, int64_t tid, int64_t user_id);
/* Remove user_id from tid (before the start). STORE_NOTFOUND when not a
 * player. */
int store_tplayer_remove(store *s, int64_t tid, int64_t user_id);
/* Insert a pairing. STORE_CONFLICT when (tournament, round, board) or the
 * game id exists: the guard against pairing one round twice. */
int store_pairing_insert(store *s, const store_pairing *p);
/* The pairings of tid by round then board. */
int store_pairings_each(store *s, int64_t tid, store_pairing_cb cb, void *arg);
/* The pairing of game_id. STORE_NOTFOUND when the game is no tournament's. */
int store_pairing_by_game(store *s, int64_t game_id, store_pairing *out);
/* Write p's kind, result (""= NULL) and by_hand by its key.
 * STORE_NOTFOUND when absent. */
int store_pairing_set(store *s, const store_pairing *p);
/* Forbid the pair (a, b) in tid (order kept as given). STORE_CONFLICT when
 * already forbidden. */
int store_forbid_add(store *s, int64_t tid, int64_t a, int64_t b);
/* Every forbidden pair of tid: cb(arg, a, b). */
int store_forbids_each(store *s, int64_t tid, int (*cb)(void *arg, int64_t a, int64_t b),
                       void *arg);
/* A game's tournament and round (0, 0 outside tournaments): set once
 * after games_start, read when a game is loaded. */
int store_game_tourney_set(store *s, int64_t game_id, int64_t tid, int64_t round);
int store_game_tourney_get(store *s, int64_t game_id, int64_t *tid, int64_t *round);

/* The store_ops entries (store.h includes this list in its table). */
#define STORE_TOURNEY_OPS                                                                          \
    int (*class_insert)(store *, store_class *);                                                   \
    int (*class_get)(store *, int64_t, store_class *);                                             \
    int (*class_by_code)(store *, const char *, store_class *);                                    \
    int (*classes_of)(store *, int64_t, store_class_cb, void *);                                   \
    int (*member_add)(store *, int64_t, int64_t, const char *, int64_t);                           \
    int (*members_each)(store *, int64_t, store_member_cb, void *);                                \
    int (*member_is)(store *, int64_t, int64_t, bool *);                                           \
    int (*user_pwhash_set)(store *, int64_t, const char *);                                        \
    int (*tourney_insert)(store *, store_tourney *);                                               \
    int (*tourney_get)(store *, int64_t, store_tourney *);                                         \
    int (*tourney_update)(store *, const store_tourney *);                                         \
    int (*tourneys_list)(store *, const char *, int64_t, store_tourney_cb, void *);                \
    int (*tplayer_add)(store *, int64_t, int64_t, int64_t, int64_t, int64_t);                      \
    int (*tplayers_each)(store *, int64_t, store_tplayer_cb, void *);                              \
    int (*tplayer_withdraw)(store *, int64_t, int64_t);                                            \
    int (*tplayer_remove)(store *, int64_t, int64_t);                                              \
    int (*pairing_insert)(store *, const store_pairing *);                                         \
    int (*pairings_each)(store *, int64_t, store_pairing_cb, void *);                              \
    int (*pairing_by_game)(store *, int64_t, store_pairing *);                                     \
    int (*pairing_set)(store *, const store_pairing *);                                            \
    int (*forbid_add)(store *, int64_t, int64_t, int64_t);                                         \
    int (*forbids_each)(store *, int64_t, int (*)(void *, int64_t, int64_t), void *);              \
    int (*game_tourney_set)(store *, int64_t, int64_t, int64_t);                                   \
    int (*game_tourney_get)(store *, int64_t, int64_t *, int64_t *);

#endif
