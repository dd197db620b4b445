/*
 * store_int: private to store.c and store_rows.c. The table of prepared
 * statements (one enum row per SQL text) and the binding helpers.
 */
#ifndef QK_STORE_INT_H
#define QK_STORE_INT_H

#include <sqlite3.h>

#include "store/store.h"
#include "store/store_corr_int.h"

/* X(enum name, SQL) */
#define STORE_STATEMENTS(X)                                                                   \
    X(BEGIN, "BEGIN IMMEDIATE")                                                               \
    X(COMMIT, "COMMIT")                                                                       \
    X(ROLLBACK, "ROLLBACK")                                                                   \
    X(USER_BY_NAME, "SELECT id, username, bot, pwhash, created FROM users WHERE username = ?") \
    X(USER_BY_ID, "SELECT id, username, bot, pwhash, created FROM users WHERE id = ?")        \
    X(USER_INSERT, "INSERT INTO users (username, bot, pwhash, created) VALUES (?, ?, ?, ?)")  \
    X(USERS_LIST,                                                                             \
      "SELECT id, username, bot, '', created FROM users WHERE (?1 IS NULL OR bot = ?1) "      \
      "AND (?2 IS NULL OR username > ?2) ORDER BY username LIMIT ?3")                         \
    X(TOKEN_INSERT,                                                                           \
      "INSERT INTO tokens (hash, user_id, created, last_used) VALUES (?, ?, ?, ?)")           \
    X(TOKEN_USE, "UPDATE tokens SET last_used = ?2 WHERE hash = ?1 RETURNING user_id")        \
    X(TOKEN_DELETE, "DELETE FROM tokens WHERE hash = ?")                                      \
    X(CHALLENGE_INSERT,                                                                       \
      "INSERT INTO challenges (from_user, to_user, variant, color, time_control, position, "  \
      "status, created, updated, rated) VALUES (?, ?, ?, ?, ?, ?, 'open', ?, ?, ?)")          \
    X(CHALLENGE_GET, CHALLENGE_SELECT "WHERE c.id = ?")                                       \
    X(CHALLENGE_CLOSE,                                                                        \
      "UPDATE challenges SET status = ?2, decline_reason = ?3, game_id = ?4, updated = ?5 "   \
      "WHERE id = ?1 AND status = 'open'")                                                    \
    X(CHALLENGES_FOR,                                                                         \
      CHALLENGE_SELECT "WHERE c.status = 'open' AND (c.from_user = ?1 OR c.to_user = ?1 OR "  \
                       "c.to_user IS NULL) ORDER BY c.id")                                    \
    X(CHALLENGES_OPEN_FROM,                                                                   \
      "SELECT count(*) FROM challenges WHERE from_user = ? AND status = 'open'")              \
    X(GAME_INSERT,                                                                            \
      "INSERT INTO games (variant, white_id, black_id, start, position, ply, turn, status, "  \
      "result, reason, time_control, deadline, white_ms, black_ms, created, updated, rated) " \
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")                           \
    X(GAME_GET, GAME_SELECT "WHERE g.id = ?")                                                 \
    X(GAME_UPDATE,                                                                            \
      "UPDATE games SET position = ?2, ply = ?3, turn = ?4, status = ?5, result = ?6, "       \
      "reason = ?7, deadline = ?8, white_ms = ?9, black_ms = ?10, updated = ?11 WHERE id = ?1") \
    X(MOVE_INSERT,                                                                            \
      "INSERT INTO moves (game_id, ply, move, user_id, created) VALUES (?, ?, ?, ?, ?)")      \
    X(MOVES_OF, "SELECT ply, move, user_id FROM moves WHERE game_id = ? ORDER BY ply")        \
    X(GAMES_QUERY,                                                                            \
      GAME_SELECT "WHERE (?1 IS NULL OR g.white_id = ?1 OR g.black_id = ?1) "                 \
                  "AND (?2 IS NULL OR g.status = ?2) AND (?3 IS NULL OR g.variant = ?3) "     \
                  "AND (?4 IS NULL OR (g.status = 'active' AND ((g.turn = 'white' AND "       \
                  "g.white_id = ?4) OR (g.turn = 'black' AND g.black_id = ?4)))) "            \
                  "AND (?5 IS NULL OR g.id < ?5) ORDER BY g.id DESC LIMIT ?6")             \
    STORE_CORR_STATEMENTS(X)

#define CHALLENGE_SELECT                                                                      \
    "SELECT c.id, c.from_user, coalesce(c.to_user, 0), f.username, coalesce(t.username, ''), " \
    "c.variant, c.color, c.time_control, coalesce(c.position, ''), c.status, "               \
    "coalesce(c.decline_reason, ''), coalesce(c.game_id, 0), c.created, c.updated, c.rated, " \
    "f.bot, coalesce(t.bot, 0) "                                                             \
    "FROM challenges c JOIN users f ON f.id = c.from_user LEFT JOIN users t ON t.id = c.to_user "

#define GAME_SELECT                                                                           \
    "SELECT g.id, g.variant, g.white_id, g.black_id, w.username, b.username, g.start, "      \
    "g.position, g.ply, g.turn, g.status, coalesce(g.result, ''), coalesce(g.reason, ''), "  \
    "g.time_control, coalesce(g.deadline, -1), coalesce(g.white_ms, -1), "                   \
    "coalesce(g.black_ms, -1), g.created, g.updated, w.bot, b.bot, g.rated FROM games g "    \
    "JOIN users w ON w.id = g.white_id JOIN users b ON b.id = g.black_id "

typedef enum {
#define STORE_X_ENUM(name, sql) ST_##name,
    STORE_STATEMENTS(STORE_X_ENUM)
#undef STORE_X_ENUM
        ST__COUNT
} store_stmt;

struct store {
    sqlite3 *db;
    sqlite3_stmt *st[ST__COUNT];
    bool in_txn;
    int fail_commit_at; /* fault injection countdown; 0 = off */
};

/* The statement, reset and with bindings cleared, ready to bind. */
sqlite3_stmt *store_stmt_get(store *s, store_stmt which);
/* Bind by a format, one char per parameter from ?1: 'i' int64_t, 'o'
 * int64_t bound as NULL when <= 0 (optional ids), 'O' int64_t bound as NULL
 * when < 0 (optional times), 't' const char * (NULL binds NULL), 'T' const
 * char * bound as NULL when "" or NULL, 'h' const uint8_t[32] blob. Returns
 * STORE_OK or STORE_EIO (logged). */
int store_bind(store *s, store_stmt which, const char *fmt, ...);
/* Log the statement's failure and return STORE_EIO. */
int store_fail(store *s, store_stmt which, int rc);
/* Step a statement that returns no row, and reset it: STORE_OK; a UNIQUE
 * or PRIMARY KEY violation is STORE_CONFLICT (not logged: callers such as
 * register expect it); any other failure, including other constraints
 * (a bug of ours), is logged and STORE_EIO. */
int store_run(store *s, store_stmt which);
/* Step a statement expected to return at most one row: STORE_OK with the
 * row current (the caller reads it, then resets), STORE_NOTFOUND or
 * STORE_EIO (logged), both after a reset. */
int store_one_row(store *s, store_stmt which);
/* Copy text column i of st into buf (size n), truncating; NULL -> "". */
void store_col_text(sqlite3_stmt *st, int i, char *buf, size_t n);

#endif
