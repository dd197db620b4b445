/*
 * store_corr_int: the prepared statements of store_corr.c (correspondence
 * play: deadlines and their extensions, vacation, notifications, the
 * server's heartbeat), appended to store_int.h's table by
 * STORE_STATEMENTS. Private to the store.
 */
#ifndef QK_STORE_CORR_INT_H
#define QK_STORE_CORR_INT_H

/* X(enum name, SQL) */
#define STORE_CORR_STATEMENTS(X)                                                              \
    X(GX_GET,                                                                                 \
      "SELECT extended_ms, vacation, private, coalesce(draw_offer, ''), "                     \
      "coalesce(warned_deadline, -1), coalesce(wake_at, -1) FROM games WHERE id = ?")         \
    X(GX_PUT,                                                                                 \
      "UPDATE games SET extended_ms = ?2, vacation = ?3, private = ?4, draw_offer = ?5, "     \
      "warned_deadline = ?6, wake_at = ?7 WHERE id = ?1")                                     \
    X(WAKE_NEXT,                                                                              \
      "SELECT min(wake_at) FROM games WHERE status = 'active' AND wake_at IS NOT NULL")       \
    X(WAKE_DUE,                                                                               \
      "SELECT id FROM games WHERE status = 'active' AND wake_at IS NOT NULL AND wake_at <= ?1 " \
      "ORDER BY wake_at, id LIMIT ?2")                                                        \
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
      "INSERT INTO notifications (user_id, kind, game_id, data, read, created) "              \
      "VALUES (?, ?, ?, ?, 0, ?)")                                                            \
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
                  "g.black_id = ?5) ORDER BY g.deadline IS NULL, g.deadline, g.id LIMIT ?6")  \
    X(GAMES_X,                                                                                \
      GAME_SELECT "WHERE (?1 IS NULL OR g.white_id = ?1 OR g.black_id = ?1) "                 \
                  "AND (?2 IS NULL OR g.status = ?2) AND (?3 IS NULL OR g.variant = ?3) "     \
                  "AND (?4 IS NULL OR g.white_id = ?4 OR g.black_id = ?4) "                   \
                  "AND (?5 IS NULL OR g.id < ?5) ORDER BY g.id DESC LIMIT ?6")

#endif
