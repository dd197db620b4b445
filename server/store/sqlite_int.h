/*
 * sqlite_int: private to the SQLite backend (sqlite.c, sqlite_rows.c,
 * sqlite_corr.c, sqlite_ratings.c). The table of prepared statements (one enum row per SQL
 * text), the backend's object, the binding helpers, and the operations
 * that sqlite.c puts in its store_ops table. Nothing here leaves the
 * backend: store.h has no sqlite3 type.
 */
#ifndef QK_STORE_SQLITE_INT_H
#define QK_STORE_SQLITE_INT_H

#include <sqlite3.h>
#include <stdatomic.h>

#include "util/workers.h"

#include "store/sqlite.h"
#include "store/store.h"

/* X(enum name, SQL) */
#define SQ_STATEMENTS(X)                                                                      \
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
    X(TOKEN_USE,                                                                              \
      "UPDATE tokens SET last_used = ?2 WHERE hash = ?1 AND last_used > ?2 - ?3 "             \
      "RETURNING user_id")                                                                    \
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
                       "c.id IN (SELECT id FROM challenges WHERE status = 'open' AND "        \
                       "to_user IS NULL AND from_user <> ?1 ORDER BY id LIMIT ?2)) "          \
                       "ORDER BY c.id")                                                       \
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
    X(MOVE_PLAYED_INSERT,                                                                     \
      "INSERT INTO moves (game_id, ply, move, user_id, created, clock_ms) "                    \
      "VALUES (?, ?, ?, ?, ?, ?)")                                                            \
    X(GAME_MOVED,                                                                             \
      "UPDATE games SET ply = ?2 + 1, position = ?3, turn = ?4, deadline = ?5, white_ms = ?6, " \
      "black_ms = ?7, updated = ?8, draw_offer = NULL, wake_at = ?9 WHERE id = ?1 AND ply = ?2") \
    X(GAME_MOVED_UNTIMED,                                                                     \
      "UPDATE games SET ply = ?2 + 1, position = ?3, turn = ?4, updated = ?5, draw_offer = NULL " \
      "WHERE id = ?1 AND ply = ?2")                                                           \
    X(GAME_EXISTS, "SELECT 1 FROM games WHERE id = ?")                                        \
    X(MOVES_OF, "SELECT ply, move, user_id FROM moves WHERE game_id = ? ORDER BY ply")        \
    X(GAMES_QUERY,                                                                            \
      GAME_SELECT "WHERE (?1 IS NULL OR g.white_id = ?1 OR g.black_id = ?1) "                 \
                  "AND (?2 IS NULL OR g.status = ?2) AND (?3 IS NULL OR g.variant = ?3) "     \
                  "AND (?4 IS NULL OR (g.status = 'active' AND ((g.turn = 'white' AND "       \
                  "g.white_id = ?4) OR (g.turn = 'black' AND g.black_id = ?4)))) "            \
                  "AND (?5 IS NULL OR g.id < ?5) " SQ_SEEN_BY("?7")                           \
                  "ORDER BY g.id DESC LIMIT ?6")                                            \
    SQ_CORR_STATEMENTS(X)                                                                     \
    SQ_BOTS_STATEMENTS(X)                                                                     \
    SQ_BOUND_STATEMENTS(X)                                                                    \
    SQ_RATING_STATEMENTS(X)                                                                    \
    SQ_TOURNEY_STATEMENTS(X)                                                                  \
    SQ_RECORDS_STATEMENTS(X)

#define CHALLENGE_SELECT                                                                      \
    "SELECT c.id, c.from_user, coalesce(c.to_user, 0), f.username, coalesce(t.username, ''), " \
    "c.variant, c.color, c.time_control, coalesce(c.position, ''), c.status, "               \
    "coalesce(c.decline_reason, ''), coalesce(c.game_id, 0), c.created, c.updated, c.rated, " \
    "f.bot, coalesce(t.bot, 0) "                                                             \
    "FROM challenges c JOIN users f ON f.id = c.from_user LEFT JOIN users t ON t.id = c.to_user "

/* The games the user bound as V may see, appended to a listing's WHERE
 * (store.h store_game_filter.viewer_id; NULL: every game). The same rule
 * as game/tourney.h tourney_game_may_see(), which reads one game: its
 * players see it; anyone else a game that is not private and is in no
 * class-only tournament (t.class_id set) unless they are its organiser,
 * the class's teacher, a member of the class or a player of the
 * tournament. Each EXISTS is a primary-key look-up. */
#define SQ_SEEN_BY(V)                                                                         \
    "AND (" V " IS NULL OR g.white_id = " V " OR g.black_id = " V " OR (g.private = 0 AND "  \
    "(g.tournament_id IS NULL OR NOT EXISTS (SELECT 1 FROM tournaments t "                    \
    "WHERE t.id = g.tournament_id AND t.class_id IS NOT NULL AND t.organiser_id <> " V " "   \
    "AND NOT EXISTS (SELECT 1 FROM classes c WHERE c.id = t.class_id AND c.teacher_id = " V \
    ") AND NOT EXISTS (SELECT 1 FROM class_members m WHERE m.class_id = t.class_id AND "     \
    "m.user_id = " V ") AND NOT EXISTS (SELECT 1 FROM tournament_players p WHERE "            \
    "p.tournament_id = t.id AND p.user_id = " V "))))) "

#define GAME_SELECT                                                                           \
    "SELECT g.id, g.variant, g.white_id, g.black_id, "                                       \
    "CASE WHEN g.imported THEN coalesce(g.imported_white, '?') ELSE w.username END, "        \
    "CASE WHEN g.imported THEN coalesce(g.imported_black, '?') ELSE b.username END, g.start, " \
    "g.position, g.ply, g.turn, g.status, coalesce(g.result, ''), coalesce(g.reason, ''), "  \
    "g.time_control, coalesce(g.deadline, -1), coalesce(g.white_ms, -1), "                   \
    "coalesce(g.black_ms, -1), g.created, g.updated, w.bot AND NOT g.imported, "             \
    "b.bot AND NOT g.imported, g.rated, g.imported, coalesce(g.tournament_id, 0) FROM games g " \
    "JOIN users w ON w.id = g.white_id JOIN users b ON b.id = g.black_id "

/* The statements of sqlite_bots.c (migration 5: the challenge of a game,
 * challenge expiry). */
#define SQ_BOTS_STATEMENTS(X)                                                                 \
    X(GCH_PUT, "UPDATE games SET challenge_id = ?2 WHERE id = ?1")                            \
    X(GCH_GET, "SELECT coalesce(challenge_id, 0) FROM games WHERE id = ?")                    \
    X(CH_EXPIRING,                                                                            \
      "SELECT id FROM challenges WHERE status = 'open' AND ((to_user IS NOT NULL AND "   \
      "created < ?1) OR (to_user IS NULL AND created < ?2)) ORDER BY created, id LIMIT ?3")

/* The statements of sqlite_corr.c (correspondence play: deadlines and
 * their extensions, vacation, notifications, the heartbeat). */
#define SQ_CORR_STATEMENTS(X)                                                                 \
    X(GX_GET,                                                                                 \
      "SELECT extended_ms, vacation, private, coalesce(draw_offer, ''), "                     \
      "coalesce(warned_deadline, -1), coalesce(wake_at, -1) FROM games WHERE id = ?")         \
    X(GX_PUT,                                                                                 \
      "UPDATE games SET extended_ms = ?2, vacation = ?3, private = ?4, draw_offer = ?5, "     \
      "warned_deadline = ?6, wake_at = ?7 WHERE id = ?1")                                     \
    X(WAKE_NEXT,                                                                              \
      "SELECT min(wake_at) FROM games WHERE status = 'active' AND wake_at IS NOT NULL "       \
      "AND damaged = 0")                                                                      \
    X(WAKE_DUE,                                                                               \
      "SELECT id FROM games WHERE status = 'active' AND wake_at IS NOT NULL AND wake_at <= ?1 " \
      "AND damaged = 0 ORDER BY wake_at, id LIMIT ?2")                                        \
    X(DOWNTIME_LOG,                                                                           \
      "INSERT INTO game_extensions (game_id, kind, ms, created) SELECT id, 'downtime', ?1, ?2 " \
      "FROM games WHERE status = 'active' AND deadline IS NOT NULL AND "                      \
      "time_control LIKE '{\"kind\":\"correspondence\"%'")                                    \
    X(DOWNTIME_MOVE,                                                                          \
      "UPDATE games SET deadline = deadline + ?1, extended_ms = extended_ms + ?1, "           \
      "wake_at = wake_at + ?1, warned_deadline = warned_deadline + ?1 "                       \
      "WHERE status = 'active' AND deadline IS NOT NULL AND "                                 \
      "time_control LIKE '{\"kind\":\"correspondence\"%'")                                    \
    X(EXT_INSERT,                                                                             \
      "INSERT INTO game_extensions (game_id, kind, ms, created) VALUES (?, ?, ?, ?)")         \
    X(EXT_OF, "SELECT kind, ms, created FROM game_extensions WHERE game_id = ? ORDER BY id")  \
    X(STATE_GET, "SELECT value FROM server_state WHERE key = ?")                              \
    X(STATE_SET,                                                                              \
      "INSERT INTO server_state (key, value) VALUES (?1, ?2) "                                \
      "ON CONFLICT (key) DO UPDATE SET value = ?2")                                           \
    X(VAC_GET,                                                                                \
      "SELECT vacation_left_h, vacation_year, coalesce(vacation_start, -1), "                 \
      "coalesce(vacation_until, -1) FROM users WHERE id = ?")                                 \
    X(VAC_PUT,                                                                                \
      "UPDATE users SET vacation_left_h = ?2, vacation_year = ?3, vacation_start = ?4, "      \
      "vacation_until = ?5 WHERE id = ?1")                                                    \
    X(CX_PUT, "UPDATE challenges SET vacation = ?2, private = ?3 WHERE id = ?1")              \
    X(CX_GET, "SELECT vacation, private FROM challenges WHERE id = ?")                        \
    X(NOTE_INSERT,                                                                            \
      "INSERT INTO notifications (user_id, kind, game_id, data, read, created, sender_id, "   \
      "ref_id) VALUES (?, ?, ?, ?, 0, ?, ?, ?)")                                              \
    X(NOTES_UNREAD,                                                                           \
      "SELECT id, user_id, kind, coalesce(game_id, 0), data, read, created FROM notifications " \
      "WHERE user_id = ?1 AND read = 0 ORDER BY id LIMIT ?2 OFFSET ?3")                        \
    X(NOTES_READ,                                                                             \
      "SELECT id, user_id, kind, coalesce(game_id, 0), data, read, created FROM notifications " \
      "WHERE user_id = ?1 AND read = 1 ORDER BY id DESC LIMIT ?2 OFFSET ?3")                   \
    X(NOTE_OWNER, "SELECT user_id FROM notifications WHERE id = ?")                           \
    X(NOTE_MARK, "UPDATE notifications SET read = 1 WHERE id = ?1 AND user_id = ?2 AND read = 0")          \
    X(NOTE_MARK_ALL, "UPDATE notifications SET read = 1 WHERE user_id = ? AND read = 0")      \
    X(NOTE_UNREAD, "SELECT count(*) FROM notifications WHERE user_id = ? AND read = 0")       \
    X(GAMES_MINE,                                                                             \
      GAME_SELECT "WHERE g.status = 'active' AND ((g.white_id = ?1 AND g.turn = 'white') OR " \
                  "(g.black_id = ?1 AND g.turn = 'black')) AND (?2 IS NULL OR g.variant = ?2) " \
                  "AND (?3 IS NULL OR g.white_id = ?3 OR g.black_id = ?3) "                   \
                  "AND (?4 IS NULL OR g.id < ?4) AND (?5 IS NULL OR g.white_id = ?5 OR "      \
                  "g.black_id = ?5) " SQ_SEEN_BY("?7")                                        \
                  "ORDER BY g.deadline IS NULL, g.deadline, g.id LIMIT ?6")                   \
    X(GAMES_X,                                                                                \
      GAME_SELECT "WHERE (?1 IS NULL OR g.white_id = ?1 OR g.black_id = ?1) "                 \
                  "AND (?2 IS NULL OR g.status = ?2) AND (?3 IS NULL OR g.variant = ?3) "     \
                  "AND (?4 IS NULL OR g.white_id = ?4 OR g.black_id = ?4) "                   \
                  "AND (?5 IS NULL OR g.id < ?5) " SQ_SEEN_BY("?7")                           \
                  "ORDER BY g.id DESC LIMIT ?6")

/* The statements of sqlite_bound.c (store_bound.h, issue 9). */
#define SQ_BOUND_STATEMENTS(X)                                                                \
    X(PRUNE_NOTES,                                                                            \
      "DELETE FROM notifications WHERE id IN (SELECT id FROM notifications WHERE read = 1 "  \
      "AND created < ?1 LIMIT ?2)")                                                           \
    X(PRUNE_CHALLENGES,                                                                       \
      "DELETE FROM challenges WHERE id IN (SELECT id FROM challenges WHERE status <> 'open' " \
      "AND updated < ?1 LIMIT ?2)")                                                           \
    X(PRUNE_TOKENS,                                                                           \
      "DELETE FROM tokens WHERE hash IN (SELECT hash FROM tokens WHERE last_used < ?1 "      \
      "LIMIT ?2)")                                                                            \
    X(NOTES_DROP_UNREAD,                                                                      \
      "DELETE FROM notifications WHERE user_id = ?1 AND kind = ?2 AND game_id = ?3 AND "     \
      "read = 0")                                                                             \
    X(NOTES_CAP_SENDER,                                                                       \
      "DELETE FROM notifications WHERE id IN (SELECT id FROM notifications WHERE "           \
      "user_id = ?1 AND kind = ?2 AND sender_id = ?3 AND read = 0 ORDER BY id DESC "          \
      "LIMIT -1 OFFSET ?4)")                                                                  \
    X(NOTES_WITHDRAW,                                                                         \
      "DELETE FROM notifications WHERE user_id = ?1 AND kind = ?2 AND ref_id = ?3 AND "      \
      "read = 0")                                                                             \
    X(NOTES_MARK_REF,                                                                         \
      "UPDATE notifications SET read = 1 WHERE user_id = ?1 AND kind = ?2 AND ref_id = ?3 "  \
      "AND read = 0")                                                                         \
    X(CHALLENGES_SINCE,                                                                       \
      "SELECT count(*), coalesce(min(created), 0) FROM challenges WHERE from_user = ?1 AND " \
      "created >= ?2")                                                                        \
    X(SEEKS_PAGE,                                                                             \
      CHALLENGE_SELECT "WHERE c.status = 'open' AND c.to_user IS NULL AND c.from_user <> ?1 " \
                       "AND c.id > ?2 ORDER BY c.id LIMIT ?3")                                \
    X(DRAW_PLY_GET, "SELECT ply FROM draw_offers WHERE game_id = ?1 AND side = ?2")          \
    X(DRAW_PLY_PUT,                                                                           \
      "INSERT INTO draw_offers (game_id, side, ply) VALUES (?1, ?2, ?3) "                     \
      "ON CONFLICT (game_id, side) DO UPDATE SET ply = ?3")                                   \
    X(DAMAGED_GET, "SELECT damaged FROM games WHERE id = ?")                                  \
    X(DAMAGED_SET, "UPDATE games SET damaged = 1 WHERE id = ?")

/* The statements of sqlite_ratings.c (issue 12, migration 7). */
#define SQ_RATING_STATEMENTS(X)                                                               \
    X(RATING_GET,                                                                             \
      "SELECT user_id, family, rating, rd, volatility, games, last_game FROM ratings "        \
      "WHERE user_id = ? AND family = ?")                                                     \
    X(RATING_PUT,                                                                             \
      "INSERT OR REPLACE INTO ratings (user_id, family, rating, rd, volatility, games, "      \
      "last_game) VALUES (?, ?, ?, ?, ?, ?, ?)")                                              \
    X(RATINGS_OF,                                                                             \
      "SELECT user_id, family, rating, rd, volatility, games, last_game FROM ratings "        \
      "WHERE user_id = ? ORDER BY family")                                                    \
    X(RATINGS_BOARD,                                                                          \
      "SELECT r.user_id, r.family, r.rating, r.rd, r.volatility, r.games, r.last_game, "      \
      "u.username, u.bot FROM ratings r JOIN users u ON u.id = r.user_id "                    \
      "WHERE r.family = ?1 AND r.rd <= ?2 ORDER BY r.rating DESC, r.rd, u.username")          \
    X(GAME_RATING_GET,                                                                        \
      "SELECT white_start, black_start, white_before IS NOT NULL, coalesce(white_before, 0), " \
      "coalesce(white_after, 0), coalesce(black_before, 0), coalesce(black_after, 0) "        \
      "FROM game_ratings WHERE game_id = ?")                                                  \
    X(GAME_RATING_PUT,                                                                        \
      "INSERT OR REPLACE INTO game_ratings (game_id, white_start, black_start, white_before, " \
      "white_after, black_before, black_after) VALUES (?, ?, ?, ?, ?, ?, ?)")                 \
    X(CRANGE_PUT, "UPDATE challenges SET rating_min = ?2, rating_max = ?3 WHERE id = ?1")     \
    X(CRANGE_GET,                                                                             \
      "SELECT coalesce(rating_min, -1), coalesce(rating_max, -1) FROM challenges WHERE id = ?")

/* The statements of sqlite_tourney.c (classes and tournaments, migration 8). */
#define CLASS_SELECT                                                                          \
    "SELECT c.id, c.name, c.code, c.teacher_id, u.username, c.created FROM classes c "       \
    "JOIN users u ON u.id = c.teacher_id "
#define TOURNEY_SELECT                                                                        \
    "SELECT t.id, t.name, t.system, t.variant, t.time_control, coalesce(t.position, ''), "   \
    "t.rounds, t.dbl, t.rated, t.bots, coalesce(t.class_id, 0), t.start_mode, t.status, "    \
    "t.organiser_id, u.username, t.current_round, coalesce(t.end_reason, ''), t.created, "   \
    "t.updated, t.pairer FROM tournaments t JOIN users u ON u.id = t.organiser_id "
#define PAIRING_SELECT                                                                        \
    "SELECT tournament_id, round, board, white_id, coalesce(black_id, 0), "                  \
    "coalesce(game_id, 0), kind, coalesce(result, ''), by_hand FROM tournament_pairings "
#define SQ_TOURNEY_STATEMENTS(X)                                                              \
    X(CLASS_INSERT,                                                                           \
      "INSERT INTO classes (name, code, teacher_id, created) VALUES (?, ?, ?, ?)")            \
    X(CLASS_GET, CLASS_SELECT "WHERE c.id = ?")                                               \
    X(CLASS_BY_CODE, CLASS_SELECT "WHERE c.code = ?")                                         \
    X(CLASSES_OF,                                                                             \
      CLASS_SELECT "WHERE c.teacher_id = ?1 OR c.id IN (SELECT class_id FROM class_members "  \
                   "WHERE user_id = ?1) ORDER BY c.id")                                       \
    X(MEMBER_ADD,                                                                             \
      "INSERT INTO class_members (class_id, user_id, name, created) VALUES (?, ?, ?, ?)")     \
    X(MEMBERS_OF,                                                                             \
      "SELECT m.user_id, u.username, m.name, u.bot FROM class_members m JOIN users u ON "     \
      "u.id = m.user_id WHERE m.class_id = ? ORDER BY u.username")                            \
    X(MEMBER_IS, "SELECT 1 FROM class_members WHERE class_id = ? AND user_id = ?")            \
    X(PWHASH_SET, "UPDATE users SET pwhash = ?2 WHERE id = ?1")                               \
    X(TOURNEY_INSERT,                                                                         \
      "INSERT INTO tournaments (name, system, variant, time_control, position, rounds, dbl, " \
      "rated, bots, class_id, start_mode, status, organiser_id, current_round, created, "     \
      "updated, pairer) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)")          \
    X(TOURNEY_GET, TOURNEY_SELECT "WHERE t.id = ?")                                           \
    X(TOURNEY_UPDATE,                                                                         \
      "UPDATE tournaments SET rounds = ?2, status = ?3, current_round = ?4, end_reason = ?5, " \
      "updated = ?6 WHERE id = ?1")                                                           \
    X(TOURNEYS_LIST,                                                                          \
      TOURNEY_SELECT "WHERE (?1 IS NULL OR t.status = ?1) ORDER BY t.id DESC LIMIT ?2")      \
    X(TPLAYER_ADD,                                                                            \
      "INSERT INTO tournament_players (tournament_id, user_id, number, late_round, joined) "   \
      "VALUES (?, ?, ?, ?, ?)")                                                               \
    X(TPLAYERS_OF,                                                                            \
      "SELECT p.user_id, u.username, u.bot, p.number, p.withdrawn, p.late_round FROM "        \
      "tournament_players p JOIN users u ON u.id = p.user_id WHERE p.tournament_id = ? "      \
      "ORDER BY p.number")                                                                    \
    X(TPLAYER_WITHDRAW,                                                                       \
      "UPDATE tournament_players SET withdrawn = 1 WHERE tournament_id = ? AND user_id = ?")  \
    X(TPLAYER_REMOVE,                                                                         \
      "DELETE FROM tournament_players WHERE tournament_id = ? AND user_id = ?")                \
    X(PAIRING_INSERT,                                                                         \
      "INSERT INTO tournament_pairings (tournament_id, round, board, white_id, black_id, "    \
      "game_id, kind, result, by_hand) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")                   \
    X(PAIRINGS_OF, PAIRING_SELECT "WHERE tournament_id = ? ORDER BY round, board")            \
    X(PAIRING_BY_GAME, PAIRING_SELECT "WHERE game_id = ?")                                    \
    X(PAIRING_SET,                                                                            \
      "UPDATE tournament_pairings SET kind = ?4, result = ?5, by_hand = ?6 "                  \
      "WHERE tournament_id = ?1 AND round = ?2 AND board = ?3")                               \
    X(FORBID_ADD,                                                                             \
      "INSERT INTO tournament_forbidden (tournament_id, a_id, b_id) VALUES (?, ?, ?)")        \
    X(FORBIDS_OF, "SELECT a_id, b_id FROM tournament_forbidden WHERE tournament_id = ?")      \
    X(GAME_T_SET, "UPDATE games SET tournament_id = ?2, round = ?3 WHERE id = ?1")            \
    X(GAME_T_GET,                                                                             \
      "SELECT coalesce(tournament_id, 0), coalesce(round, 0) FROM games WHERE id = ?")

/* The statements of sqlite_records.c (issue 11: search, clocks, imports).
 * GAMES_SEARCH binds ?1 user, ?2 status, ?3 variant, ?4 opponent, ?5
 * before, ?6 limit, ?7 result, ?8 since, ?9 until, ?10 tournament, ?11
 * imported (0/1), ?12 after, ?13 turn user, ?14 viewer (SQ_SEEN_BY); NULL
 * does not filter. */
#define SQ_SEARCH_WHERE                                                                       \
    "WHERE (?1 IS NULL OR g.white_id = ?1 OR g.black_id = ?1) "                               \
    "AND (?2 IS NULL OR g.status = ?2) AND (?3 IS NULL OR g.variant = ?3) "                   \
    "AND (?4 IS NULL OR g.white_id = ?4 OR g.black_id = ?4) AND (?5 IS NULL OR g.id < ?5) "   \
    "AND (?7 IS NULL OR g.result = ?7) AND (?8 IS NULL OR g.created >= ?8) "                  \
    "AND (?9 IS NULL OR g.created <= ?9) AND (?10 IS NULL OR g.tournament_id = ?10) "            \
    "AND (?11 IS NULL OR g.imported = ?11) AND (?12 IS NULL OR g.id > ?12) "                  \
    "AND (?13 IS NULL OR (g.status = 'active' AND ((g.turn = 'white' AND g.white_id = ?13) "  \
    "OR (g.turn = 'black' AND g.black_id = ?13)))) " SQ_SEEN_BY("?14")
#define SQ_RECORDS_STATEMENTS(X)                                                              \
    X(GAMES_SEARCH, GAME_SELECT SQ_SEARCH_WHERE "ORDER BY g.id DESC LIMIT ?6")                \
    X(GAMES_SEARCH_ASC, GAME_SELECT SQ_SEARCH_WHERE "ORDER BY g.id LIMIT ?6")                 \
    X(MOVE_CLOCK_SET, "UPDATE moves SET clock_ms = ?3 WHERE game_id = ?1 AND ply = ?2")      \
    X(MOVE_CLOCKS_OF,                                                                         \
      "SELECT ply, coalesce(clock_ms, -1) FROM moves WHERE game_id = ? ORDER BY ply")         \
    X(GAME_MARK_IMPORTED,                                                                     \
      "UPDATE games SET imported = 1, imported_white = ?2, imported_black = ?3 WHERE id = ?1")

typedef enum {
#define SQ_X_ENUM(name, sql) ST_##name,
    SQ_STATEMENTS(SQ_X_ENUM)
#undef SQ_X_ENUM
        ST__COUNT
} sq_stmt;

/* One fsync of the write-ahead log and the commits it makes durable
 * (sqlite.c "Durability"): runs of equal (done, arg), in commit order. */
typedef struct sq_waiter {
    store_done_cb done;
    void *arg;
    uint64_t count;
} sq_waiter;

typedef struct sq_sync_job {
    workers_job job; /* first */
    struct sq_store *s;
    sq_waiter *w; /* w[n], malloc()ed; grows only when callers interleave */
    size_t n, cap;
    int rc;    /* STORE_OK or STORE_EIO; SQ_SYNC_NOT_RUN until the writer ran it */
    int error; /* errno of a failed fsync */
    uint64_t seq; /* 1, 2, ...: the order jobs go to the writer (set before) */
} sq_sync_job;

/* The backend's store: struct store first, so store * and sq_store *
 * convert into each other (sq_of()). */
typedef struct sq_store {
    store base;
    sqlite3 *db;
    sqlite3_stmt *st[ST__COUNT];
    bool in_txn;
    int fail_commit_at; /* fault injection countdown; 0 = off */
    char *path;         /* the database file (the writer opens its own connection) */
    /* Asynchronous durability (store_async_start, sqlite.c "Durability"). */
    bool async;
    workers writer;     /* one thread: fsyncs and checkpoints, in commit order */
    int wal_fd;         /* the -wal file, for fsync; -1 = none */
    int fsync_delay_ms; /* tests and benchmarks: stall each fsync */
    sqlite3 *ckpt_db;   /* the writer thread's own connection, for checkpoints */
    atomic_int wal_frames;  /* frames not yet checkpointed after the last commit (wal hook) */
    atomic_int ckpt_frames; /* the writer checkpoints when wal_frames is above */
    atomic_int ckpt_logged; /* the log length the last complete checkpoint copied */
    atomic_uint_least64_t ckpt_job; /* a job from this seq on checkpoints anyway; 0 = none */
    /* Group fsync: at most one job with the writer (inflight); commits made
     * meanwhile gather in the other (jobs[!cur]) and share the next fsync. */
    sq_sync_job jobs[2];
    int cur;       /* jobs[cur] is gathering */
    atomic_uint_least64_t fsyncs; /* store_fsyncs() */
    bool inflight; /* jobs[!cur] is with the writer */
    /* WAL restart under sustained load (sqlite.c "Restarting the WAL"),
     * loop thread only: the WAL's length in frames after the last commit,
     * the length above which a restart is wanted (restart_frames, raised
     * after an attempt that did not restart), and the restarts seen. */
    int64_t wal_size, restart_above, restart_frames;
    uint64_t wal_restarts;
    uint32_t wal_ckpt_seq; /* the log header's checkpoint count: changes at a restart */
    uint64_t submitted, finished; /* jobs handed to the writer / whose dones ran */
    uint64_t hold_job;            /* the job a hold waits for; 0 = no hold */
} sq_store;

static inline sq_store *sq_of(store *s)
{
    return (sq_store *)s;
}

/* The statement, reset and with bindings cleared, ready to bind. */
sqlite3_stmt *sq_stmt_get(sq_store *s, sq_stmt which);
/* Bind by a format, one char per parameter from ?1: 'i' int64_t, 'o'
 * int64_t bound as NULL when <= 0 (optional ids), 'O' int64_t bound as NULL
 * when < 0 (optional times), 't' const char * (NULL binds NULL), 'T' const
 * char * bound as NULL when "" or NULL, 'h' const uint8_t[32] blob. Returns
 * STORE_OK or STORE_EIO (logged). */
int sq_bind(sq_store *s, sq_stmt which, const char *fmt, ...);
/* Log the statement's failure and return STORE_EIO. */
int sq_fail(sq_store *s, sq_stmt which, int rc);
/* Step a statement that returns no row, and reset it: STORE_OK; a UNIQUE
 * or PRIMARY KEY violation is STORE_CONFLICT (not logged: callers such as
 * register expect it); any other failure, including other constraints
 * (a bug of ours), is logged and STORE_EIO. */
int sq_run(sq_store *s, sq_stmt which);
/* sq_run() for a write of exactly one row (an UPDATE or DELETE by key):
 * STORE_NOTFOUND when it changed none. */
int sq_run_one(sq_store *s, sq_stmt which);
/* Step a statement expected to return at most one row: STORE_OK with the
 * row current (the caller reads it, then resets), STORE_NOTFOUND or
 * STORE_EIO (logged), both after a reset. */
int sq_one_row(sq_store *s, sq_stmt which);
/* Walking the rows of a statement (bound already), shared by every
 * listing: sq_next_row() steps to the next row and returns true with it
 * current; at the end or on a failure it resets the statement, sets *rc
 * to STORE_OK or STORE_EIO (logged) and returns false. A callback that
 * stops the walk early returns through sq_stop(), which resets the
 * statement and returns stop (the listing's non-zero result). */
bool sq_next_row(sq_store *s, sq_stmt which, int *rc);
int sq_stop(sq_store *s, sq_stmt which, int stop);
/* Copy text column i of st into buf (size n), truncating; NULL -> "". */
void sq_col_text(sqlite3_stmt *st, int i, char *buf, size_t n);

/* ---- the operations (store_ops entries; contracts in store.h) -------- */

/* sqlite_rows.c */
/* A GAME_SELECT row of st into *g. */
void sq_read_game(sqlite3_stmt *st, store_game *g);
int sq_user_by_name(store *s, const char *name, store_user *out);
int sq_user_by_id(store *s, int64_t id, store_user *out);
int sq_user_insert(store *s, const char *name, bool bot, const char *pwhash, int64_t now,
                   int64_t *id);
int sq_users_list(store *s, int bot, const char *after, int64_t limit, store_user_cb cb,
                  void *arg);
int sq_token_insert(store *s, const uint8_t hash[STORE_TOKEN_HASH], int64_t user_id, int64_t now);
int sq_token_user(store *s, const uint8_t hash[STORE_TOKEN_HASH], int64_t now, int64_t *user_id);
int sq_token_delete(store *s, const uint8_t hash[STORE_TOKEN_HASH]);
int sq_challenge_insert(store *s, store_challenge *c, int64_t now);
int sq_challenge_get(store *s, int64_t id, store_challenge *out);
int sq_challenge_close(store *s, int64_t id, const char *status, const char *reason,
                       int64_t game_id, int64_t now);
int sq_challenges_for(store *s, int64_t user_id, store_challenge_cb cb, void *arg);
int sq_challenges_open_from(store *s, int64_t user_id, int64_t *n);
int sq_game_insert(store *s, store_game *g);
int sq_game_get(store *s, int64_t id, store_game *out);
int sq_game_update(store *s, const store_game *g);
int sq_games_query(store *s, const store_game_filter *f, store_game_cb cb, void *arg);
int sq_move_played(store *s, const store_played *p);
int sq_move_insert(store *s, int64_t game_id, int64_t ply, const char *move, int64_t user_id,
                   int64_t now);
int sq_moves_each(store *s, int64_t game_id, store_move_cb cb, void *arg);

void sq_read_challenge(sqlite3_stmt *st, store_challenge *c); /* a CHALLENGE_SELECT row */

/* sqlite_bound.c */
int sq_journal_limit(store *s, int64_t bytes);
int sq_checkpoint(store *s);
int sq_prune(store *s, const struct store_prune_spec *p, int64_t *rows);
int sq_notes_drop_unread(store *s, int64_t user_id, const char *kind, int64_t game_id);
int sq_notes_cap_sender(store *s, int64_t user_id, const char *kind, int64_t sender_id,
                        int64_t keep);
int sq_notes_settle(store *s, int64_t user_id, const char *kind, int64_t ref_id, bool drop);
int sq_challenges_since(store *s, int64_t user_id, int64_t since, int64_t *n, int64_t *oldest);
int sq_seeks_page(store *s, int64_t user_id, int64_t after, int64_t limit, store_challenge_cb cb,
                  void *arg);
int sq_draw_ply_get(store *s, int64_t game_id, const char *side, int64_t *ply);
int sq_draw_ply_put(store *s, int64_t game_id, const char *side, int64_t ply);
int sq_game_damaged_get(store *s, int64_t game_id, bool *damaged);
int sq_game_damaged_set(store *s, int64_t game_id);

/* sqlite_corr.c */
int sq_challenge_x_put(store *s, int64_t id, bool vacation, bool priv);
int sq_challenge_x_get(store *s, int64_t id, bool *vacation, bool *priv);
int sq_game_x_get(store *s, int64_t id, store_game_x *out);
int sq_game_x_put(store *s, int64_t id, const store_game_x *x);
int sq_wake_next(store *s, int64_t *at);
int sq_wake_due(store *s, int64_t now, int64_t *ids, int max, int *n);
int sq_extend_downtime(store *s, int64_t ms, int64_t now, int64_t *games);
int sq_extension_insert(store *s, int64_t game, const char *kind, int64_t ms, int64_t now);
int sq_extensions_each(store *s, int64_t game, store_extension_cb cb, void *arg);
int sq_state_get(store *s, const char *key, int64_t *value);
int sq_state_set(store *s, const char *key, int64_t value);
int sq_vacation_get(store *s, int64_t user_id, store_vacation *out);
int sq_vacation_put(store *s, int64_t user_id, const store_vacation *v);
int sq_note_insert(store *s, store_note *n);
int sq_notes_list(store *s, int64_t user_id, bool unread_only, int64_t limit, int64_t offset,
                  store_note_cb cb, void *arg);
int sq_note_owner(store *s, int64_t id, int64_t *user_id);
int sq_note_mark(store *s, int64_t user_id, int64_t id, int64_t *n);
int sq_note_mark_all(store *s, int64_t user_id, int64_t *n);
int sq_note_unread(store *s, int64_t user_id, int64_t *n);

/* sqlite_bots.c */
int sq_game_challenge_put(store *s, int64_t game_id, int64_t challenge_id);
int sq_game_challenge_get(store *s, int64_t game_id, int64_t *challenge_id);
int sq_challenges_expiring(store *s, int64_t direct_before, int64_t seek_before, int64_t *ids,
                           int max, int *n);

/* sqlite_ratings.c */
int sq_rating_get(store *s, int64_t user_id, const char *family, store_rating *out);
int sq_rating_put(store *s, const store_rating *r);
int sq_ratings_of(store *s, int64_t user_id, store_rating_cb cb, void *arg);
int sq_ratings_board(store *s, const char *family, double max_rd, store_rating_cb cb, void *arg);
int sq_game_rating_get(store *s, int64_t game_id, store_game_rating *out);
int sq_game_rating_put(store *s, const store_game_rating *gr);
int sq_challenge_range_put(store *s, int64_t id, int64_t min, int64_t max);
int sq_challenge_range_get(store *s, int64_t id, int64_t *min, int64_t *max);

/* sqlite_tourney.c (store_tourney.h) */
#define SQ_TOURNEY_OPS_INIT                                                                   \
    .class_insert = sq_class_insert, .class_get = sq_class_get,                               \
    .class_by_code = sq_class_by_code, .classes_of = sq_classes_of,                           \
    .member_add = sq_member_add, .members_each = sq_members_each, .member_is = sq_member_is,  \
    .user_pwhash_set = sq_user_pwhash_set, .tourney_insert = sq_tourney_insert,               \
    .tourney_get = sq_tourney_get, .tourney_update = sq_tourney_update,                       \
    .tourneys_list = sq_tourneys_list, .tplayer_add = sq_tplayer_add,                         \
    .tplayers_each = sq_tplayers_each, .tplayer_withdraw = sq_tplayer_withdraw, .tplayer_remove = sq_tplayer_remove,               \
    .pairing_insert = sq_pairing_insert, .pairings_each = sq_pairings_each,                   \
    .pairing_by_game = sq_pairing_by_game, .pairing_set = sq_pairing_set,                     \
    .forbid_add = sq_forbid_add, .forbids_each = sq_forbids_each,                             \
    .game_tourney_set = sq_game_tourney_set, .game_tourney_get = sq_game_tourney_get
int sq_class_insert(store *, store_class *);
int sq_class_get(store *, int64_t, store_class *);
int sq_class_by_code(store *, const char *, store_class *);
int sq_classes_of(store *, int64_t, store_class_cb, void *);
int sq_member_add(store *, int64_t, int64_t, const char *, int64_t);
int sq_members_each(store *, int64_t, store_member_cb, void *);
int sq_member_is(store *, int64_t, int64_t, bool *);
int sq_user_pwhash_set(store *, int64_t, const char *);
int sq_tourney_insert(store *, store_tourney *);
int sq_tourney_get(store *, int64_t, store_tourney *);
int sq_tourney_update(store *, const store_tourney *);
int sq_tourneys_list(store *, const char *, int64_t, store_tourney_cb, void *);
int sq_tplayer_add(store *, int64_t, int64_t, int64_t, int64_t, int64_t);
int sq_tplayers_each(store *, int64_t, store_tplayer_cb, void *);
int sq_tplayer_withdraw(store *, int64_t, int64_t);
int sq_tplayer_remove(store *, int64_t, int64_t);
int sq_pairing_insert(store *, const store_pairing *);
int sq_pairings_each(store *, int64_t, store_pairing_cb, void *);
int sq_pairing_by_game(store *, int64_t, store_pairing *);
int sq_pairing_set(store *, const store_pairing *);
int sq_forbid_add(store *, int64_t, int64_t, int64_t);
int sq_forbids_each(store *, int64_t, int (*)(void *, int64_t, int64_t), void *);
int sq_game_tourney_set(store *, int64_t, int64_t, int64_t);
int sq_game_tourney_get(store *, int64_t, int64_t *, int64_t *);

/* sqlite_records.c */
bool sq_search_wanted(const store_game_filter *f);
int sq_games_search(store *s, const store_game_filter *f, store_game_cb cb, void *arg);
int sq_move_clock_set(store *s, int64_t game_id, int64_t ply, int64_t clock_ms);
int sq_move_clocks_each(store *s, int64_t game_id, store_clock_cb cb, void *arg);
int sq_game_mark_imported(store *s, int64_t id, const char *white, const char *black);

#endif
