/*
 * sqlite_games: the SQLite backend's games and moves (store_games.h): the
 * game row (GAME_SELECT: both players' names and bot flags, an imported
 * game's record names), its writes, the per-move path, the moves, the
 * listing with its search filters (records, issue 11), the challenge that
 * made a game (migration 5), the draw-offer throttle and the damaged mark
 * (issue 9). Same pattern as every area: bind, step, read the promised
 * columns, reset; a failing step is logged with the statement's name
 * (sq_fail) and returned as STORE_EIO.
 *
 * The listing. The plain statements (GAMES_QUERY, GAMES_MINE, GAMES_X)
 * match their indexes; a filter that uses any search field (result, dates,
 * tournament, imported, after, ascending: search_wanted()) goes to the
 * search statements instead, which take every filter.
 */
#include "store/sqlite/sqlite_areas.h"

#include <string.h>

/* The games the user bound as V may see, appended to a listing's WHERE
 * (store_games.h store_game_filter.viewer_id; NULL: every game). The same rule
 * as game/tourney.h tourney_game_may_see(), which reads one game: its
 * players see it; anyone else a game that is not private and is in no
 * class-only tournament (t.class_id set) unless they are its organiser,
 * the class's teacher, a member of the class or a player of the
 * tournament. Each EXISTS is a primary-key look-up. */
#define SQ_SEEN_BY(V)                                                                              \
    "AND (" V " IS NULL OR g.white_id = " V " OR g.black_id = " V " OR (g.private = 0 AND "        \
    "(g.tournament_id IS NULL OR NOT EXISTS (SELECT 1 FROM tournaments t "                         \
    "WHERE t.id = g.tournament_id AND t.class_id IS NOT NULL AND t.organiser_id <> " V " "         \
    "AND NOT EXISTS (SELECT 1 FROM classes c WHERE c.id = t.class_id AND c.teacher_id = " V        \
    ") AND NOT EXISTS (SELECT 1 FROM class_members m WHERE m.class_id = t.class_id AND "           \
    "m.user_id = " V ") AND NOT EXISTS (SELECT 1 FROM tournament_players p WHERE "                 \
    "p.tournament_id = t.id AND p.user_id = " V "))))) "

#define GAME_SELECT                                                                                \
    "SELECT g.id, g.variant, g.white_id, g.black_id, "                                             \
    "CASE WHEN g.imported THEN coalesce(g.imported_white, '?') ELSE w.username END, "              \
    "CASE WHEN g.imported THEN coalesce(g.imported_black, '?') ELSE b.username END, g.start, "     \
    "g.position, g.ply, g.turn, g.status, coalesce(g.result, ''), coalesce(g.reason, ''), "        \
    "g.time_control, coalesce(g.deadline, -1), coalesce(g.white_ms, -1), "                         \
    "coalesce(g.black_ms, -1), g.created, g.updated, w.bot AND NOT g.imported, "                   \
    "b.bot AND NOT g.imported, g.rated, g.imported, coalesce(g.tournament_id, 0) FROM games g "    \
    "JOIN users w ON w.id = g.white_id JOIN users b ON b.id = g.black_id "

/* GAMES_SEARCH binds ?1 user, ?2 status, ?3 variant, ?4 opponent, ?5
 * before, ?6 limit, ?7 result, ?8 since, ?9 until, ?10 tournament, ?11
 * imported (0/1), ?12 after, ?13 turn user, ?14 viewer (SQ_SEEN_BY); NULL
 * does not filter. */
#define SQ_SEARCH_WHERE                                                                            \
    "WHERE (?1 IS NULL OR g.white_id = ?1 OR g.black_id = ?1) "                                    \
    "AND (?2 IS NULL OR g.status = ?2) AND (?3 IS NULL OR g.variant = ?3) "                        \
    "AND (?4 IS NULL OR g.white_id = ?4 OR g.black_id = ?4) AND (?5 IS NULL OR g.id < ?5) "        \
    "AND (?7 IS NULL OR g.result = ?7) AND (?8 IS NULL OR g.created >= ?8) "                       \
    "AND (?9 IS NULL OR g.created <= ?9) AND (?10 IS NULL OR g.tournament_id = ?10) "              \
    "AND (?11 IS NULL OR g.imported = ?11) AND (?12 IS NULL OR g.id > ?12) "                       \
    "AND (?13 IS NULL OR (g.status = 'active' AND ((g.turn = 'white' AND g.white_id = ?13) "       \
    "OR (g.turn = 'black' AND g.black_id = ?13)))) " SQ_SEEN_BY("?14")

#define GAMES_STATEMENTS(X)                                                                        \
    X(GAME_INSERT,                                                                                 \
      "INSERT INTO games (variant, white_id, black_id, start, position, ply, turn, status, "       \
      "result, reason, time_control, deadline, white_ms, black_ms, created, updated, rated) "      \
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")                                \
    X(GAME_GET, GAME_SELECT "WHERE g.id = ?")                                                      \
    X(GAME_UPDATE,                                                                                 \
      "UPDATE games SET position = ?2, ply = ?3, turn = ?4, status = ?5, result = ?6, "            \
      "reason = ?7, deadline = ?8, white_ms = ?9, black_ms = ?10, updated = ?11 WHERE id = ?1")    \
    X(MOVE_INSERT,                                                                                 \
      "INSERT INTO moves (game_id, ply, move, user_id, created) VALUES (?, ?, ?, ?, ?)")           \
    X(MOVE_PLAYED_INSERT, "INSERT INTO moves (game_id, ply, move, user_id, created, clock_ms) "    \
                          "VALUES (?, ?, ?, ?, ?, ?)")                                             \
    X(GAME_MOVED,                                                                                  \
      "UPDATE games SET ply = ?2 + 1, position = ?3, turn = ?4, deadline = ?5, white_ms = ?6, "    \
      "black_ms = ?7, updated = ?8, draw_offer = NULL, wake_at = ?9 WHERE id = ?1 AND ply = ?2")   \
    X(GAME_MOVED_UNTIMED,                                                                          \
      "UPDATE games SET ply = ?2 + 1, position = ?3, turn = ?4, updated = ?5, draw_offer = NULL "  \
      "WHERE id = ?1 AND ply = ?2")                                                                \
    X(GAME_EXISTS, "SELECT 1 FROM games WHERE id = ?")                                             \
    X(GAME_CLAIM, "SELECT 1 FROM games WHERE id = ? AND status = 'active' AND ply = ?")             \
    X(MOVES_OF, "SELECT ply, move, user_id FROM moves WHERE game_id = ? ORDER BY ply")             \
    X(GAMES_QUERY,                                                                                 \
      GAME_SELECT "WHERE (?1 IS NULL OR g.white_id = ?1 OR g.black_id = ?1) "                      \
                  "AND (?2 IS NULL OR g.status = ?2) AND (?3 IS NULL OR g.variant = ?3) "          \
                  "AND (?4 IS NULL OR (g.status = 'active' AND ((g.turn = 'white' AND "            \
                  "g.white_id = ?4) OR (g.turn = 'black' AND g.black_id = ?4)))) "                 \
                  "AND (?5 IS NULL OR g.id < ?5) " SQ_SEEN_BY("?7") "ORDER BY g.id DESC LIMIT ?6") \
    X(GAMES_MINE,                                                                                  \
      GAME_SELECT "WHERE g.status = 'active' AND ((g.white_id = ?1 AND g.turn = 'white') OR "      \
                  "(g.black_id = ?1 AND g.turn = 'black')) AND (?2 IS NULL OR g.variant = ?2) "    \
                  "AND (?3 IS NULL OR g.white_id = ?3 OR g.black_id = ?3) "                        \
                  "AND (?4 IS NULL OR g.id < ?4) AND (?5 IS NULL OR g.white_id = ?5 OR "           \
                  "g.black_id = ?5) " SQ_SEEN_BY(                                                  \
                      "?7") "ORDER BY g.deadline IS NULL, g.deadline, g.id LIMIT ?6")              \
    X(GAMES_X,                                                                                     \
      GAME_SELECT "WHERE (?1 IS NULL OR g.white_id = ?1 OR g.black_id = ?1) "                      \
                  "AND (?2 IS NULL OR g.status = ?2) AND (?3 IS NULL OR g.variant = ?3) "          \
                  "AND (?4 IS NULL OR g.white_id = ?4 OR g.black_id = ?4) "                        \
                  "AND (?5 IS NULL OR g.id < ?5) " SQ_SEEN_BY("?7") "ORDER BY g.id DESC LIMIT ?6") \
    X(GAMES_SEARCH, GAME_SELECT SQ_SEARCH_WHERE "ORDER BY g.id DESC LIMIT ?6")                     \
    X(GAMES_SEARCH_ASC, GAME_SELECT SQ_SEARCH_WHERE "ORDER BY g.id LIMIT ?6")                      \
    X(GCH_PUT, "UPDATE games SET challenge_id = ?2 WHERE id = ?1")                                 \
    X(GCH_GET, "SELECT coalesce(challenge_id, 0) FROM games WHERE id = ?")                         \
    X(DRAW_PLY_GET, "SELECT ply FROM draw_offers WHERE game_id = ?1 AND side = ?2")                \
    X(DRAW_PLY_PUT, "INSERT INTO draw_offers (game_id, side, ply) VALUES (?1, ?2, ?3) "            \
                    "ON CONFLICT (game_id, side) DO UPDATE SET ply = ?3")                          \
    X(DAMAGED_GET, "SELECT damaged FROM games WHERE id = ?")                                       \
    X(DAMAGED_SET, "UPDATE games SET damaged = 1 WHERE id = ?")                                    \
    X(ACTIVE_COUNT, "SELECT time_control, count(*) FROM games WHERE status = 'active' "             \
                    "AND damaged = 0 GROUP BY time_control")

enum { SQ_AREA_FIRST(GAMES), GAMES_STATEMENTS(SQ_STMT_ENUM) ST_GAMES__END };
static const sq_stmt_def games_defs[] = {GAMES_STATEMENTS(SQ_STMT_DEF)};
SQ_AREA_CHECK(GAMES);
const sq_area_stmts sq_games_stmts = {SQ_AREA_GAMES, games_defs, SQ_AREA_COUNT(GAMES)};

/* A GAME_SELECT row of st into *g. */
static void read_game(sqlite3_stmt *st, store_game *g)
{
    g->id = sqlite3_column_int64(st, 0);
    sq_col_text(st, 1, g->variant, sizeof g->variant);
    g->white_id = sqlite3_column_int64(st, 2);
    g->black_id = sqlite3_column_int64(st, 3);
    sq_col_text(st, 4, g->white, sizeof g->white);
    sq_col_text(st, 5, g->black, sizeof g->black);
    sq_col_text(st, 6, g->start, sizeof g->start);
    sq_col_text(st, 7, g->position, sizeof g->position);
    g->ply = sqlite3_column_int64(st, 8);
    sq_col_text(st, 9, g->turn, sizeof g->turn);
    sq_col_text(st, 10, g->status, sizeof g->status);
    sq_col_text(st, 11, g->result, sizeof g->result);
    sq_col_text(st, 12, g->reason, sizeof g->reason);
    sq_col_text(st, 13, g->time_control, sizeof g->time_control);
    g->deadline = sqlite3_column_int64(st, 14);
    g->white_ms = sqlite3_column_int64(st, 15);
    g->black_ms = sqlite3_column_int64(st, 16);
    g->created = sqlite3_column_int64(st, 17);
    g->updated = sqlite3_column_int64(st, 18);
    g->white_bot = sqlite3_column_int(st, 19) != 0;
    g->black_bot = sqlite3_column_int(st, 20) != 0;
    g->rated = sqlite3_column_int(st, 21) != 0;
    g->imported = sqlite3_column_int(st, 22) != 0;
    g->tournament = sqlite3_column_int64(st, 23);
}

typedef struct game_walk {
    store_game_cb cb;
    void *arg;
} game_walk;

static int game_row(sqlite3_stmt *st, void *ctx)
{
    game_walk *w = ctx;
    store_game g;
    read_game(st, &g);
    return w->cb(w->arg, &g);
}

static int sq_game_insert(store *base, store_game *g)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_GAME_INSERT, "tiittittTTtOOOiii", g->variant, g->white_id, g->black_id,
                     g->start, g->position, g->ply, g->turn, g->status, g->result, g->reason,
                     g->time_control, g->deadline, g->white_ms, g->black_ms, g->created, g->updated,
                     (int64_t)g->rated);
    if (rc || (rc = sq_run(s, ST_GAME_INSERT)))
        return rc;
    g->id = sqlite3_last_insert_rowid(s->db);
    return STORE_OK;
}

static int sq_game_get(store *base, int64_t id, store_game *out)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_GAME_GET, "i", id);
    if (rc || (rc = sq_one_row(s, ST_GAME_GET)))
        return rc;
    read_game(s->st[ST_GAME_GET], out);
    (void)sqlite3_reset(s->st[ST_GAME_GET]);
    return STORE_OK;
}

static int sq_game_update(store *base, const store_game *g)
{
    sq_store *s = sq_of(base);
    int rc =
        sq_bind(s, ST_GAME_UPDATE, "itittTTOOOi", g->id, g->position, g->ply, g->turn, g->status,
                g->result, g->reason, g->deadline, g->white_ms, g->black_ms, g->updated);
    return rc ? rc : sq_run_one(s, ST_GAME_UPDATE);
}

static int sq_move_insert(store *base, int64_t game_id, int64_t ply, const char *move,
                          int64_t user_id, int64_t now)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_MOVE_INSERT, "iitii", game_id, ply, move, user_id, now);
    return rc ? rc : sq_run(s, ST_MOVE_INSERT);
}

/* Whether game id has a row (a failed read counts as yes: the caller then
 * reports a conflict, which loses the batch all the same). */
static bool game_exists(sq_store *s, int64_t id)
{
    if (sq_bind(s, ST_GAME_EXISTS, "i", id) != STORE_OK)
        return true;
    int rc = sq_one_row(s, ST_GAME_EXISTS);
    (void)sqlite3_reset(s->st[ST_GAME_EXISTS]);
    return rc != STORE_NOTFOUND;
}

static int sq_move_played(store *base, const store_played *p)
{
    sq_store *s = sq_of(base);
    /* The game row first: its ply guard refuses a move at a ply the
     * stored game is not at before anything is written. */
    /* Columns left out of the SET list are not written, and neither are
     * the indexes on them (the deadline and wake-up indexes). */
    sq_stmt st = p->times_changed ? ST_GAME_MOVED : ST_GAME_MOVED_UNTIMED;
    int rc = p->times_changed
                 ? sq_bind(s, st, "iittOOOiO", p->game_id, p->ply, p->position, p->turn,
                           p->deadline, p->white_ms, p->black_ms, p->created, p->wake_at)
                 : sq_bind(s, st, "iitti", p->game_id, p->ply, p->position, p->turn, p->created);
    if (rc || (rc = sq_run(s, st)))
        return rc;
    if (sqlite3_changes(s->db) != 1)
        return game_exists(s, p->game_id) ? STORE_CONFLICT : STORE_NOTFOUND;
    rc = sq_bind(s, ST_MOVE_PLAYED_INSERT, "iitiiO", p->game_id, p->ply, p->move, p->user_id,
                 p->created, p->clock_ms);
    return rc ? rc : sq_run(s, ST_MOVE_PLAYED_INSERT);
}

typedef struct move_walk {
    store_move_cb cb;
    void *arg;
} move_walk;

static int move_row(sqlite3_stmt *st, void *ctx)
{
    move_walk *w = ctx;
    const unsigned char *m = sqlite3_column_text(st, 1);
    return w->cb(w->arg, sqlite3_column_int64(st, 0), m ? (const char *)m : "",
                 sqlite3_column_int64(st, 2));
}

static int sq_moves_each(store *base, int64_t game_id, store_move_cb cb, void *arg)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_MOVES_OF, "i", game_id);
    return rc ? rc : sq_each(s, ST_MOVES_OF, move_row, &(move_walk){cb, arg});
}

/* Whether f uses a search field (records, issue 11): then the search
 * statements, which take every filter. */
static bool search_wanted(const store_game_filter *f)
{
    return f->result || f->since > 0 || f->until > 0 || f->tournament > 0 || f->imported ||
           f->after > 0 || f->ascending;
}

static int games_search(sq_store *s, const store_game_filter *f, store_game_cb cb, void *arg)
{
    sq_stmt which = f->ascending ? ST_GAMES_SEARCH_ASC : ST_GAMES_SEARCH;
    /* 'O' binds since (0 and up) as a filter only when > 0: a since of 0
     * filters nothing anyway. imported: 1 or 0 as the column, NULL for
     * both. */
    int64_t imported = f->imported > 0 ? 1 : f->imported < 0 ? 0 : -1;
    int rc = sq_bind(s, which,
                     "oTToo"
                     "iToooOooo",
                     f->user_id, f->status, f->variant, f->opponent_id, f->before, f->limit,
                     f->result, f->since, f->until, f->tournament, imported, f->after,
                     f->turn_user_id, f->viewer_id);
    return rc ? rc : sq_each(s, which, game_row, &(game_walk){cb, arg});
}

static int sq_games_query(store *base, const store_game_filter *f, store_game_cb cb, void *arg)
{
    sq_store *s = sq_of(base);
    if (search_wanted(f))
        return games_search(s, f, cb, arg);
    /* Your turn (sorted by deadline) and an opponent each have their own
     * statement, so SQLite can use the (player, status, turn, deadline)
     * indexes instead of scanning every game. */
    sq_stmt which = ST_GAMES_QUERY;
    int rc;
    if (f->turn_user_id) {
        which = ST_GAMES_MINE;
        rc = sq_bind(s, which, "iToooio", f->turn_user_id, f->variant, f->opponent_id, f->before,
                     f->user_id, f->limit, f->viewer_id);
        if (f->status && strcmp(f->status, "active") != 0)
            return STORE_OK; /* only active games have a turn */
    } else if (f->opponent_id) {
        which = ST_GAMES_X;
        rc = sq_bind(s, which, "oTTooio", f->user_id, f->status, f->variant, f->opponent_id,
                     f->before, f->limit, f->viewer_id);
    } else {
        rc = sq_bind(s, which, "oTTooio", f->user_id, f->status, f->variant, f->turn_user_id,
                     f->before, f->limit, f->viewer_id);
    }
    return rc ? rc : sq_each(s, which, game_row, &(game_walk){cb, arg});
}

/* ---- the challenge of a game (issue 15, migration 5) ------------------ */

static int sq_game_challenge_put(store *base, int64_t game_id, int64_t challenge_id)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_GCH_PUT, "io", game_id, challenge_id);
    return rc ? rc : sq_run_one(s, ST_GCH_PUT);
}

static int sq_game_challenge_get(store *base, int64_t game_id, int64_t *challenge_id)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_GCH_GET, "i", game_id);
    if (rc || (rc = sq_one_row(s, ST_GCH_GET)))
        return rc;
    sqlite3_stmt *st = s->st[ST_GCH_GET];
    *challenge_id = sqlite3_column_int64(st, 0);
    (void)sqlite3_reset(st);
    return STORE_OK;
}

/* ---- bounded (issue 9) ------------------------------------------------ */

static int sq_draw_ply_get(store *base, int64_t game_id, const char *side, int64_t *ply)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_DRAW_PLY_GET, "it", game_id, side);
    if (rc || (rc = sq_one_row(s, ST_DRAW_PLY_GET)))
        return rc;
    *ply = sqlite3_column_int64(s->st[ST_DRAW_PLY_GET], 0);
    (void)sqlite3_reset(s->st[ST_DRAW_PLY_GET]);
    return STORE_OK;
}

static int sq_draw_ply_put(store *base, int64_t game_id, const char *side, int64_t ply)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_DRAW_PLY_PUT, "iti", game_id, side, ply);
    return rc ? rc : sq_run(s, ST_DRAW_PLY_PUT);
}

static int sq_game_damaged_get(store *base, int64_t game_id, bool *damaged)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_DAMAGED_GET, "i", game_id);
    if (rc || (rc = sq_one_row(s, ST_DAMAGED_GET)))
        return rc;
    *damaged = sqlite3_column_int(s->st[ST_DAMAGED_GET], 0) != 0;
    (void)sqlite3_reset(s->st[ST_DAMAGED_GET]);
    return STORE_OK;
}

static int sq_game_damaged_set(store *base, int64_t game_id)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_DAMAGED_SET, "i", game_id);
    return rc ? rc : sq_run(s, ST_DAMAGED_SET);
}

/* One writer at a time on SQLite: the row needs no lock, only the check. */
static int sq_game_claim(store *base, int64_t game_id, int64_t ply)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_GAME_CLAIM, "ii", game_id, ply);
    if (rc || (rc = sq_one_row(s, ST_GAME_CLAIM)))
        return rc == STORE_NOTFOUND ? STORE_CONFLICT : rc;
    (void)sqlite3_reset(s->st[ST_GAME_CLAIM]);
    return STORE_OK;
}

typedef struct tc_walk {
    store_tc_count_cb cb;
    void *arg;
} tc_walk;

static int tc_count_row(sqlite3_stmt *st, void *ctx)
{
    tc_walk *w = ctx;
    const unsigned char *t = sqlite3_column_text(st, 0);
    return w->cb(w->arg, t ? (const char *)t : "", sqlite3_column_int64(st, 1));
}

static int sq_games_active_count(store *base, store_tc_count_cb cb, void *arg)
{
    sq_store *s = sq_of(base);
    /* No parameters; sq_each() leaves every statement reset. */
    return sq_each(s, ST_ACTIVE_COUNT, tc_count_row, &(tc_walk){cb, arg});
}

const store_games_ops sq_games_ops = {
    .game_insert = sq_game_insert,
    .game_get = sq_game_get,
    .game_update = sq_game_update,
    .move_insert = sq_move_insert,
    .moves_each = sq_moves_each,
    .games_query = sq_games_query,
    .move_played = sq_move_played,
    .game_challenge_put = sq_game_challenge_put,
    .game_challenge_get = sq_game_challenge_get,
    .draw_ply_get = sq_draw_ply_get,
    .draw_ply_put = sq_draw_ply_put,
    .game_damaged_get = sq_game_damaged_get,
    .game_damaged_set = sq_game_damaged_set,
    .game_claim = sq_game_claim,
    .games_active_count = sq_games_active_count,
};
