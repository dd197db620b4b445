/*
 * store: the SQLite database of qirkatd (users, tokens, challenges, games,
 * moves). Loop thread only; every statement is prepared once at open with
 * bound parameters, never built from strings.
 *
 * Schema. schema.sql (embedded as store_schema_sql, see schema.c) is a list
 * of "-- migration N" sections; store_open() applies those above PRAGMA
 * user_version, one transaction each. Connection settings: WAL,
 * foreign_keys=ON, synchronous=FULL (an acknowledged move survives a power
 * cut), busy_timeout 2 s.
 *
 * Group commit. Writers never commit on their own: the first write of a
 * loop iteration calls store_begin() (BEGIN IMMEDIATE; idempotent), every
 * later write of that iteration joins the same transaction, and the server
 * calls store_commit() once per iteration, from its prepare/check handles,
 * BEFORE it writes any response or event produced in that iteration to a
 * socket (conn.h: held output). So N moves arriving together cost one
 * fsync, and nothing a client is told can be lost. The in-memory game
 * state is advanced when a move is staged, so a second move in the same
 * batch validates against it; if the commit fails the transaction is
 * rolled back, the server forgets the touched games (they are reloaded
 * from the database on next use) and every response of the batch becomes
 * `internal`. A handler that makes several writes must validate first:
 * bad input never reaches a write, so it never changes a stored row.
 *
 * Results: 0 (STORE_OK) or a negative STORE_E* code; SQLite errors are
 * logged here with the statement's name and reported as STORE_EIO.
 */
#ifndef QK_STORE_H
#define QK_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qk_rules.h"

enum {
    STORE_OK = 0,
    STORE_NOTFOUND = -1, /* no such row */
    STORE_CONFLICT = -2, /* a UNIQUE constraint, or a row not in the expected state */
    STORE_EIO = -3,      /* any other SQLite failure (logged) */
};

#define STORE_NAME_MAX 32    /* username characters */
#define STORE_PWHASH_MAX 128 /* >= crypto_pwhash_STRBYTES */
#define STORE_TC_MAX 128     /* normalized time_control JSON text */
#define STORE_REASON_MAX 200 /* decline reason bytes */
#define STORE_TOKEN_HASH 32  /* BLAKE2b-256 */

/* The text of schema.sql (schema.c). */
extern const char store_schema_sql[];

typedef struct store store;

/* Open (creating if needed) the database file at path, configure it and
 * migrate it to the newest schema. On success *out owns the handle
 * (store_close). Returns STORE_EIO on any failure, including a database
 * whose user_version is newer than this binary knows. */
int store_open(const char *path, store **out);
/* Roll back an open transaction, finalize statements, close. NULL ok. */
void store_close(store *s);

/* The highest migration number in store_schema_sql. */
int store_schema_version(void);
/* PRAGMA user_version of the open database, or STORE_EIO. */
int store_user_version(store *s, int *out);

/* ---- transactions (group commit, see above) -------------------------- */

/* Open the iteration's transaction if none is open. 0 or STORE_EIO. */
int store_begin(store *s);
bool store_in_txn(const store *s);
/* Commit the open transaction (no-op when none). On failure the
 * transaction is rolled back and STORE_EIO returned. */
int store_commit(store *s);
/* Roll back the open transaction (no-op when none). */
void store_rollback(store *s);
/* Fault injection for tests: make the n-th store_commit() from now (1 =
 * the next) fail as if the disk had; 0 disables. */
void store_fail_commit_at(store *s, int n);

/* ---- users and tokens ------------------------------------------------ */

typedef struct store_user {
    int64_t id;
    char username[STORE_NAME_MAX + 1]; /* as registered */
    bool bot;
    char pwhash[STORE_PWHASH_MAX];
    int64_t created; /* UTC ms */
} store_user;

/* Look a user up by name (case-insensitive) or id. STORE_NOTFOUND when
 * absent. */
int store_user_by_name(store *s, const char *name, store_user *out);
int store_user_by_id(store *s, int64_t id, store_user *out);
/* Insert a user; *id receives the new id. STORE_CONFLICT when the name is
 * taken (in any case). */
int store_user_insert(store *s, const char *name, bool bot, const char *pwhash, int64_t now,
                      int64_t *id);

/* Call cb for users in name order (case-insensitive, as the column's
 * NOCASE collation sorts), at most limit (> 0) of them: only bots when bot
 * is 1, only people when 0, everyone when -1; only names after `after`
 * (NULL or "": from the start; paging). pwhash is left empty. Returns 0,
 * cb's non-zero value when it stopped, or STORE_EIO. cb must not call
 * store_users_list() again. */
int store_users_list(store *s, int bot, const char *after, int64_t limit,
                     int (*cb)(void *arg, const store_user *u), void *arg);

/* Tokens are stored as their BLAKE2b-256 hash (32 bytes). */
int store_token_insert(store *s, const uint8_t hash[STORE_TOKEN_HASH], int64_t user_id,
                       int64_t now);
/* The user of a token hash (and mark it used at now): STORE_NOTFOUND when
 * unknown. */
int store_token_user(store *s, const uint8_t hash[STORE_TOKEN_HASH], int64_t now, int64_t *user_id);
/* Delete a token (absent is not an error). */
int store_token_delete(store *s, const uint8_t hash[STORE_TOKEN_HASH]);

/* ---- challenges ------------------------------------------------------ */

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
} store_challenge;

/* Insert c (status "open"; id, from, to, status, game_id, created/updated
 * as given are ignored or set); fills c->id. */
int store_challenge_insert(store *s, store_challenge *c, int64_t now);
/* Read one challenge (with usernames). STORE_NOTFOUND when absent. */
int store_challenge_get(store *s, int64_t id, store_challenge *out);
/* Move an open challenge to status (accepted, declined, canceled) with an
 * optional decline reason (NULL) and game id (0 = none). STORE_CONFLICT
 * when it is no longer open. */
int store_challenge_close(store *s, int64_t id, const char *status, const char *reason,
                          int64_t game_id, int64_t now);
/* Call cb for every open challenge from user, to user, or open seek by
 * anyone else, oldest first. cb returns 0 to go on, non-zero to stop (that
 * value is returned). cb must not call store_challenges_for() again. */
int store_challenges_for(store *s, int64_t user_id, int (*cb)(void *arg, const store_challenge *c),
                         void *arg);
/* *n = the number of open challenges user_id has made (seeks included);
 * index challenges_from. STORE_OK or STORE_EIO. */
int store_challenges_open_from(store *s, int64_t user_id, int64_t *n);

/* ---- games and moves ------------------------------------------------- */

typedef struct store_game {
    int64_t id;
    char variant[QK_VARIANT_NAMELEN];
    int64_t white_id, black_id;
    char white[STORE_NAME_MAX + 1], black[STORE_NAME_MAX + 1];
    char start[QK_POS_STRLEN];
    char position[QK_POS_STRLEN];
    int64_t ply;
    char turn[6];    /* white, black */
    char status[10]; /* active, finished, aborted */
    char result[6];  /* white, black, draw, "" = none */
    char reason[20]; /* PROTOCOL.md reason words, "" = none */
    char time_control[STORE_TC_MAX];
    int64_t deadline;           /* -1 = none */
    int64_t white_ms, black_ms; /* -1 = none */
    int64_t created, updated;
    bool white_bot, black_bot; /* the players' users.bot (read, never written) */
    bool rated;                /* rated game: the engine's hint is refused */
} store_game;

/* Insert g (all fields but id, white, black, white_bot, black_bot); fills
 * g->id. */
int store_game_insert(store *s, store_game *g);
/* Read one game (with usernames). STORE_NOTFOUND when absent. */
int store_game_get(store *s, int64_t id, store_game *out);
/* Write g's mutable fields (position, ply, turn, status, result, reason,
 * deadline, clocks, updated). STORE_NOTFOUND when the row is absent. */
int store_game_update(store *s, const store_game *g);

/* Insert the move played at ply. STORE_CONFLICT when that ply exists. */
int store_move_insert(store *s, int64_t game_id, int64_t ply, const char *move, int64_t user_id,
                      int64_t now);
/* Call cb for each move of the game in ply order; stop on non-zero. cb must
 * not call store_moves_each() again. */
int store_moves_each(store *s, int64_t game_id,
                     int (*cb)(void *arg, int64_t ply, const char *move, int64_t user_id),
                     void *arg);

/* Game listing filter; zero/NULL fields do not filter. */
typedef struct store_game_filter {
    int64_t user_id;      /* games where this user plays */
    const char *status;   /* active, finished, aborted */
    const char *variant;  /* canonical variant name */
    int64_t turn_user_id; /* active games where it is this user's turn */
    int64_t opponent_id;  /* games where this user plays too */
    int64_t before;       /* ids below this (paging) */
    int64_t limit;        /* rows; must be > 0 */
} store_game_filter;

/* Call cb for matching games, newest (highest id) first; with
 * turn_user_id, soonest deadline first (games without one last, then by
 * id). Same return and
 * re-entrancy rules as store_challenges_for(). */
int store_games_query(store *s, const store_game_filter *f,
                      int (*cb)(void *arg, const store_game *g), void *arg);

#endif
