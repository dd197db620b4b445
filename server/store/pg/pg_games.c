/*
 * pg_games: the PostgreSQL backend's games and moves (store_games.h). The
 * same queries as sqlite_games.c in PostgreSQL's dialect:
 *  - the 0/1 flags are SMALLINT (schema-pg.sql), so SQLite's
 *    `CASE WHEN g.imported`, `w.bot AND NOT g.imported` become comparisons
 *    with 1 and 0, and a computed flag is selected as `(...)::int` so it
 *    reads 0/1 (a boolean would come back as 't'/'f');
 *  - every optional parameter is cast where it is tested for NULL
 *    (`$1::bigint IS NULL OR ...`): the statements are prepared without
 *    types and PostgreSQL infers them from their first use;
 *  - `ORDER BY g.deadline IS NULL, g.deadline` is kept as it is (false
 *    sorts before true, as 0 before 1).
 *
 * The per-move write (store_move_played()) is one statement, so that a
 * ply is accepted once when several nodes share the database (issue 22):
 * `WITH g AS (UPDATE games ... WHERE id = $1 AND ply = $2 RETURNING id)
 * INSERT INTO moves ... SELECT ... FROM g`. Of two nodes that write a move
 * at the same ply, the second's UPDATE waits for the first's row lock and,
 * once that commits, finds the ply moved on: it matches no row, the INSERT
 * writes none, and pg_run_conflict() answers STORE_CONFLICT with the
 * transaction still usable (nothing was written). A moves row that exists
 * already at that ply while the game is at it (a store changed behind the
 * server's back) fails the statement on the primary key instead: that is
 * STORE_EIO with the transaction failed, where SQLite answers
 * STORE_CONFLICT after writing the game row; the caller loses its
 * transaction either way (store_games.h), and here STORE_CONFLICT keeps
 * meaning "nothing written".
 */
#include "store/pg/pg_areas.h"

#include <string.h>

/* The games the user bound as V may see (sqlite_games.c SQ_SEEN_BY, the
 * rule of game/tourney.h tourney_game_may_see()). V's type comes from its
 * first use, the cast. */
#define PG_SEEN_BY(V)                                                                              \
    "AND (" V "::bigint IS NULL OR g.white_id = " V " OR g.black_id = " V " OR (g.private = 0 "    \
    "AND (g.tournament_id IS NULL OR NOT EXISTS (SELECT 1 FROM tournaments t "                     \
    "WHERE t.id = g.tournament_id AND t.class_id IS NOT NULL AND t.organiser_id <> " V " "         \
    "AND NOT EXISTS (SELECT 1 FROM classes c WHERE c.id = t.class_id AND c.teacher_id = " V        \
    ") AND NOT EXISTS (SELECT 1 FROM class_members m WHERE m.class_id = t.class_id AND "           \
    "m.user_id = " V ") AND NOT EXISTS (SELECT 1 FROM tournament_players p WHERE "                 \
    "p.tournament_id = t.id AND p.user_id = " V "))))) "

#define GAME_SELECT                                                                                \
    "SELECT g.id, g.variant, g.white_id, g.black_id, "                                             \
    "CASE WHEN g.imported = 1 THEN COALESCE(g.imported_white, '?') ELSE w.username END, "          \
    "CASE WHEN g.imported = 1 THEN COALESCE(g.imported_black, '?') ELSE b.username END, g.start, " \
    "g.position, g.ply, g.turn, g.status, COALESCE(g.result, ''), COALESCE(g.reason, ''), "        \
    "g.time_control, COALESCE(g.deadline, -1), COALESCE(g.white_ms, -1), "                         \
    "COALESCE(g.black_ms, -1), g.created, g.updated, (w.bot = 1 AND g.imported = 0)::int, "        \
    "(b.bot = 1 AND g.imported = 0)::int, g.rated, g.imported, COALESCE(g.tournament_id, 0) "      \
    "FROM games g JOIN users w ON w.id = g.white_id JOIN users b ON b.id = g.black_id "

/* GAMES_SEARCH binds $1 user, $2 status, $3 variant, $4 opponent, $5
 * before, $6 limit, $7 result, $8 since, $9 until, $10 tournament, $11
 * imported (0/1), $12 after, $13 turn user, $14 viewer (PG_SEEN_BY); NULL
 * does not filter. */
#define PG_SEARCH_WHERE                                                                            \
    "WHERE ($1::bigint IS NULL OR g.white_id = $1 OR g.black_id = $1) "                            \
    "AND ($2::text IS NULL OR g.status = $2) AND ($3::text IS NULL OR g.variant = $3) "            \
    "AND ($4::bigint IS NULL OR g.white_id = $4 OR g.black_id = $4) "                              \
    "AND ($5::bigint IS NULL OR g.id < $5) "                                                       \
    "AND ($7::text IS NULL OR g.result = $7) AND ($8::bigint IS NULL OR g.created >= $8) "         \
    "AND ($9::bigint IS NULL OR g.created <= $9) "                                                 \
    "AND ($10::bigint IS NULL OR g.tournament_id = $10) "                                          \
    "AND ($11::bigint IS NULL OR g.imported = $11) AND ($12::bigint IS NULL OR g.id > $12) "       \
    "AND ($13::bigint IS NULL OR (g.status = 'active' AND ((g.turn = 'white' AND "                 \
    "g.white_id = $13) OR (g.turn = 'black' AND g.black_id = $13)))) " PG_SEEN_BY("$14")

/* The statements that have a lone node's "_X" form too (pg_base.h
 * pg_alone_in_batch()). */
#define GAME_UPDATE_SQL                                                                            \
    "UPDATE games SET position = $2, ply = $3, turn = $4, status = $5, result = $6, "              \
    "reason = $7, deadline = $8, white_ms = $9, black_ms = $10, updated = $11 WHERE id = $1"
#define MOVE_INSERT_SQL                                                                            \
    "INSERT INTO moves (game_id, ply, move, user_id, created) VALUES ($1, $2, $3, $4, $5)"
#define GAME_CLAIM_SQL                                                                             \
    "SELECT 1 FROM games WHERE id = $1 AND status = 'active' AND ply = $2 FOR UPDATE"
#define GCH_PUT_SQL "UPDATE games SET challenge_id = $2 WHERE id = $1"

/* GAME_MOVED and GAME_MOVED_UNTIMED cast the parameters of their SELECT
 * list: in INSERT ... SELECT they would otherwise be inferred as text. */
#define GAMES_STATEMENTS(X)                                                                        \
    X(GAME_INSERT,                                                                                 \
      "INSERT INTO games (variant, white_id, black_id, start, position, ply, turn, status, "       \
      "result, reason, time_control, deadline, white_ms, black_ms, created, updated, rated) "      \
      "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) "       \
      "RETURNING id")                                                                              \
    /* GAME_INSERT with the id taken ahead (pg_next_id()), unwaited. */                            \
    X(GAME_INSERT_ID,                                                                              \
      "INSERT INTO games (id, variant, white_id, black_id, start, position, ply, turn, status, "   \
      "result, reason, time_control, deadline, white_ms, black_ms, created, updated, rated) "      \
      "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)")  \
    X(GAME_IDS, "SELECT nextval(pg_get_serial_sequence('games', 'id')) "                           \
                "FROM generate_series(1, $1::int)")                                                \
    X(GAME_GET, GAME_SELECT "WHERE g.id = $1")                                                     \
    X(GAME_UPDATE, GAME_UPDATE_SQL)                                                                \
    X(GAME_UPDATE_X, PG_ONE_ROW_OR_FAIL(GAME_UPDATE_SQL))                                          \
    X(MOVE_INSERT, MOVE_INSERT_SQL " ON CONFLICT DO NOTHING")                                      \
    /* A taken ply fails the statement, and the batch (pg_alone_in_batch). */                      \
    X(MOVE_INSERT_X, MOVE_INSERT_SQL)                                                              \
    X(GAME_MOVED, "WITH g AS (UPDATE games SET ply = $2::bigint + 1, position = $3, turn = $4, "   \
                  "deadline = $5, white_ms = $6, black_ms = $7, updated = $8, draw_offer = NULL, " \
                  "wake_at = $9 WHERE id = $1 AND ply = $2 RETURNING id) "                         \
                  "INSERT INTO moves (game_id, ply, move, user_id, created, clock_ms) "            \
                  "SELECT id, $2::bigint, $10::text, $11::bigint, $8::bigint, $12::bigint FROM g") \
    X(GAME_MOVED_UNTIMED,                                                                          \
      "WITH g AS (UPDATE games SET ply = $2::bigint + 1, position = $3, turn = $4, "               \
      "updated = $5, draw_offer = NULL WHERE id = $1 AND ply = $2 RETURNING id) "                  \
      "INSERT INTO moves (game_id, ply, move, user_id, created, clock_ms) "                        \
      "SELECT id, $2::bigint, $6::text, $7::bigint, $5::bigint, $8::bigint FROM g")                \
    /* The two above for a node alone (pg.h store_pg_exclusive): the same \
     * writes, and a division by zero when the ply guard matched no row,  \
     * which fails the statement and its transaction. */                  \
    X(GAME_MOVED_X,                                                                                \
      "WITH g AS (UPDATE games SET ply = $2::bigint + 1, position = $3, turn = $4, "               \
      "deadline = $5, white_ms = $6, black_ms = $7, updated = $8, draw_offer = NULL, "             \
      "wake_at = $9 WHERE id = $1 AND ply = $2 RETURNING id), "                                    \
      "m AS (INSERT INTO moves (game_id, ply, move, user_id, created, clock_ms) "                  \
      "SELECT id, $2::bigint, $10::text, $11::bigint, $8::bigint, $12::bigint FROM g RETURNING 1) " \
      "SELECT 1 / (SELECT count(*) FROM m)::int")                                                 \
    X(GAME_MOVED_UNTIMED_X,                                                                        \
      "WITH g AS (UPDATE games SET ply = $2::bigint + 1, position = $3, turn = $4, "               \
      "updated = $5, draw_offer = NULL WHERE id = $1 AND ply = $2 RETURNING id), "                 \
      "m AS (INSERT INTO moves (game_id, ply, move, user_id, created, clock_ms) "                  \
      "SELECT id, $2::bigint, $6::text, $7::bigint, $5::bigint, $8::bigint FROM g RETURNING 1) "   \
      "SELECT 1 / (SELECT count(*) FROM m)::int")                                                 \
    X(GAME_EXISTS, "SELECT 1 FROM games WHERE id = $1")                                            \
    X(GAME_CLAIM, GAME_CLAIM_SQL)                                                                  \
    X(GAME_CLAIM_X, PG_A_ROW_OR_FAIL(GAME_CLAIM_SQL))                                              \
    X(ACTIVE_COUNT, "SELECT time_control, count(*) FROM games WHERE status = 'active' "             \
                    "AND damaged = 0 GROUP BY time_control")                                       \
    X(MOVES_OF, "SELECT ply, move, user_id FROM moves WHERE game_id = $1 ORDER BY ply")            \
    X(GAMES_QUERY, GAME_SELECT                                                                     \
      "WHERE ($1::bigint IS NULL OR g.white_id = $1 OR g.black_id = $1) "                          \
      "AND ($2::text IS NULL OR g.status = $2) "                                                   \
      "AND ($3::text IS NULL OR g.variant = $3) "                                                  \
      "AND ($4::bigint IS NULL OR (g.status = 'active' AND ((g.turn = 'white' AND "                \
      "g.white_id = $4) OR (g.turn = 'black' AND g.black_id = $4)))) "                             \
      "AND ($5::bigint IS NULL OR g.id < $5) " PG_SEEN_BY("$7") "ORDER BY g.id DESC LIMIT $6")     \
    X(GAMES_MINE,                                                                                  \
      GAME_SELECT "WHERE g.status = 'active' AND ((g.white_id = $1 AND g.turn = 'white') OR "      \
                  "(g.black_id = $1 AND g.turn = 'black')) "                                       \
                  "AND ($2::text IS NULL OR g.variant = $2) "                                      \
                  "AND ($3::bigint IS NULL OR g.white_id = $3 OR g.black_id = $3) "                \
                  "AND ($4::bigint IS NULL OR g.id < $4) "                                         \
                  "AND ($5::bigint IS NULL OR g.white_id = $5 OR g.black_id = $5) " PG_SEEN_BY(    \
                      "$7") "ORDER BY g.deadline IS NULL, g.deadline, g.id LIMIT $6")              \
    X(GAMES_X, GAME_SELECT                                                                         \
      "WHERE ($1::bigint IS NULL OR g.white_id = $1 OR g.black_id = $1) "                          \
      "AND ($2::text IS NULL OR g.status = $2) "                                                   \
      "AND ($3::text IS NULL OR g.variant = $3) "                                                  \
      "AND ($4::bigint IS NULL OR g.white_id = $4 OR g.black_id = $4) "                            \
      "AND ($5::bigint IS NULL OR g.id < $5) " PG_SEEN_BY("$7") "ORDER BY g.id DESC LIMIT $6")     \
    X(GAMES_SEARCH, GAME_SELECT PG_SEARCH_WHERE "ORDER BY g.id DESC LIMIT $6")                     \
    X(GAMES_SEARCH_ASC, GAME_SELECT PG_SEARCH_WHERE "ORDER BY g.id LIMIT $6")                      \
    X(GCH_PUT, GCH_PUT_SQL)                                                                        \
    X(GCH_PUT_X, PG_ONE_ROW_OR_FAIL(GCH_PUT_SQL))                                                  \
    X(GCH_GET, "SELECT COALESCE(challenge_id, 0) FROM games WHERE id = $1")                        \
    X(DRAW_PLY_GET, "SELECT ply FROM draw_offers WHERE game_id = $1 AND side = $2")                \
    X(DRAW_PLY_PUT, "INSERT INTO draw_offers (game_id, side, ply) VALUES ($1, $2, $3) "            \
                    "ON CONFLICT (game_id, side) DO UPDATE SET ply = EXCLUDED.ply")                \
    X(DAMAGED_GET, "SELECT damaged FROM games WHERE id = $1")                                      \
    X(DAMAGED_SET, "UPDATE games SET damaged = 1 WHERE id = $1")

enum { PG_AREA_FIRST(GAMES), GAMES_STATEMENTS(PG_STMT_ENUM) ST_GAMES__END };
static const pg_stmt_def games_defs[] = {GAMES_STATEMENTS(PG_STMT_DEF)};
PG_AREA_CHECK(GAMES);
const pg_area_stmts pg_games_stmts = {PG_AREA_GAMES, games_defs, PG_AREA_COUNT(GAMES)};

/* A GAME_SELECT row i of r into *g. */
static void read_game(const PGresult *r, int i, store_game *g)
{
    g->id = pg_col_int(r, i, 0);
    pg_col_text(r, i, 1, g->variant, sizeof g->variant);
    g->white_id = pg_col_int(r, i, 2);
    g->black_id = pg_col_int(r, i, 3);
    pg_col_text(r, i, 4, g->white, sizeof g->white);
    pg_col_text(r, i, 5, g->black, sizeof g->black);
    pg_col_text(r, i, 6, g->start, sizeof g->start);
    pg_col_text(r, i, 7, g->position, sizeof g->position);
    g->ply = pg_col_int(r, i, 8);
    pg_col_text(r, i, 9, g->turn, sizeof g->turn);
    pg_col_text(r, i, 10, g->status, sizeof g->status);
    pg_col_text(r, i, 11, g->result, sizeof g->result);
    pg_col_text(r, i, 12, g->reason, sizeof g->reason);
    pg_col_text(r, i, 13, g->time_control, sizeof g->time_control);
    g->deadline = pg_col_int(r, i, 14);
    g->white_ms = pg_col_int(r, i, 15);
    g->black_ms = pg_col_int(r, i, 16);
    g->created = pg_col_int(r, i, 17);
    g->updated = pg_col_int(r, i, 18);
    g->white_bot = pg_col_int(r, i, 19) != 0;
    g->black_bot = pg_col_int(r, i, 20) != 0;
    g->rated = pg_col_int(r, i, 21) != 0;
    g->imported = pg_col_int(r, i, 22) != 0;
    g->tournament = pg_col_int(r, i, 23);
}

typedef struct game_walk {
    store_game_cb cb;
    void *arg;
} game_walk;

static int game_row(const PGresult *r, int i, void *ctx)
{
    game_walk *w = ctx;
    store_game g;
    read_game(r, i, &g);
    return w->cb(w->arg, &g);
}

static int pg_game_insert(store *base, store_game *g)
{
    pg_store *s = pg_of(base);
    if (pg_alone_in_batch(s)) {
        int64_t id;
        if (pg_next_id(s, ST_GAME_IDS, PG_IDS_GAMES, &id) != STORE_OK ||
            pg_send(s, ST_GAME_INSERT_ID, "itiittittTTtOOOiii", id, g->variant, g->white_id,
                    g->black_id, g->start, g->position, g->ply, g->turn, g->status, g->result,
                    g->reason, g->time_control, g->deadline, g->white_ms, g->black_ms, g->created,
                    g->updated, (int64_t)g->rated) != STORE_OK)
            return STORE_EIO;
        g->id = id;
        return STORE_OK;
    }
    PGresult *r;
    int rc = pg_one_row(s, ST_GAME_INSERT, &r, "tiittittTTtOOOiii", g->variant, g->white_id,
                        g->black_id, g->start, g->position, g->ply, g->turn, g->status, g->result,
                        g->reason, g->time_control, g->deadline, g->white_ms, g->black_ms,
                        g->created, g->updated, (int64_t)g->rated);
    if (rc)
        return rc == STORE_NOTFOUND ? STORE_EIO : rc; /* RETURNING always gives the row */
    g->id = pg_col_int(r, 0, 0);
    PQclear(r);
    return STORE_OK;
}

static int pg_game_get(store *base, int64_t id, store_game *out)
{
    PGresult *r;
    int rc = pg_one_row(pg_of(base), ST_GAME_GET, &r, "i", id);
    if (rc)
        return rc;
    read_game(r, 0, out);
    PQclear(r);
    return STORE_OK;
}

static int pg_game_update(store *base, const store_game *g)
{
    pg_store *s = pg_of(base);
    if (pg_alone_in_batch(s))
        return pg_send(s, ST_GAME_UPDATE_X, "itittTTOOOi", g->id, g->position, g->ply, g->turn,
                       g->status, g->result, g->reason, g->deadline, g->white_ms, g->black_ms,
                       g->updated);
    return pg_run_one(s, ST_GAME_UPDATE, "itittTTOOOi", g->id, g->position, g->ply, g->turn,
                      g->status, g->result, g->reason, g->deadline, g->white_ms, g->black_ms,
                      g->updated);
}

/* ON CONFLICT DO NOTHING: a taken ply is STORE_CONFLICT (on SQLite the
 * primary key's violation) and the transaction goes on; on a node alone
 * it fails the batch instead (pg_alone_in_batch()). */
static int pg_move_insert(store *base, int64_t game_id, int64_t ply, const char *move,
                          int64_t user_id, int64_t now)
{
    pg_store *s = pg_of(base);
    if (pg_alone_in_batch(s))
        return pg_send(s, ST_MOVE_INSERT_X, "iitii", game_id, ply, move, user_id, now);
    return pg_run_conflict(s, ST_MOVE_INSERT, "iitii", game_id, ply, move, user_id, now);
}

/* Whether game id has a row (a failed read counts as yes: the caller then
 * reports a conflict, which loses the batch all the same). */
static bool game_exists(pg_store *s, int64_t id)
{
    PGresult *r;
    int rc = pg_one_row(s, ST_GAME_EXISTS, &r, "i", id);
    if (rc == STORE_OK)
        PQclear(r);
    return rc != STORE_NOTFOUND;
}

static int pg_move_played(store *base, const store_played *p)
{
    pg_store *s = pg_of(base);
    if (s->exclusive && s->txn && s->loop)
        /* No other node writes (pg.h store_pg_exclusive): no wait. */
        return p->times_changed
                   ? pg_send(s, ST_GAME_MOVED_X, "iittOOOiOtiO", p->game_id, p->ply, p->position,
                             p->turn, p->deadline, p->white_ms, p->black_ms, p->created,
                             p->wake_at, p->move, p->user_id, p->clock_ms)
                   : pg_send(s, ST_GAME_MOVED_UNTIMED_X, "iittitiO", p->game_id, p->ply,
                             p->position, p->turn, p->created, p->move, p->user_id, p->clock_ms);
    /* One statement (see the top): the game row's ply guard decides
     * whether the move's row is written at all. Columns left out of the
     * SET list are not written, and neither are the indexes on them. */
    int rc =
        p->times_changed
            ? pg_run_conflict(s, ST_GAME_MOVED, "iittOOOiOtiO", p->game_id, p->ply, p->position,
                              p->turn, p->deadline, p->white_ms, p->black_ms, p->created,
                              p->wake_at, p->move, p->user_id, p->clock_ms)
            : pg_run_conflict(s, ST_GAME_MOVED_UNTIMED, "iittitiO", p->game_id, p->ply, p->position,
                              p->turn, p->created, p->move, p->user_id, p->clock_ms);
    if (rc == STORE_CONFLICT && !game_exists(s, p->game_id))
        return STORE_NOTFOUND;
    return rc;
}

typedef struct move_walk {
    store_move_cb cb;
    void *arg;
} move_walk;

static int move_row(const PGresult *r, int i, void *ctx)
{
    move_walk *w = ctx;
    return w->cb(w->arg, pg_col_int(r, i, 0), PQgetvalue(r, i, 1), pg_col_int(r, i, 2));
}

static int pg_moves_each(store *base, int64_t game_id, store_move_cb cb, void *arg)
{
    return pg_each(pg_of(base), ST_MOVES_OF, move_row, &(move_walk){cb, arg}, "i", game_id);
}

/* Whether f uses a search field (records, issue 11): then the search
 * statements, which take every filter. */
static bool search_wanted(const store_game_filter *f)
{
    return f->result || f->since > 0 || f->until > 0 || f->tournament > 0 || f->imported ||
           f->after > 0 || f->ascending;
}

static int games_search(pg_store *s, const store_game_filter *f, store_game_cb cb, void *arg)
{
    pg_stmt which = f->ascending ? ST_GAMES_SEARCH_ASC : ST_GAMES_SEARCH;
    /* 'O' binds since (0 and up) as a filter only when > 0: a since of 0
     * filters nothing anyway. imported: 1 or 0 as the column, NULL for
     * both. */
    int64_t imported = f->imported > 0 ? 1 : f->imported < 0 ? 0 : -1;
    return pg_each(s, which, game_row, &(game_walk){cb, arg},
                   "oTToo"
                   "iToooOooo",
                   f->user_id, f->status, f->variant, f->opponent_id, f->before, f->limit,
                   f->result, f->since, f->until, f->tournament, imported, f->after,
                   f->turn_user_id, f->viewer_id);
}

static int pg_games_query(store *base, const store_game_filter *f, store_game_cb cb, void *arg)
{
    pg_store *s = pg_of(base);
    if (search_wanted(f))
        return games_search(s, f, cb, arg);
    game_walk w = {cb, arg};
    /* The same three statements as SQLite (there, for its indexes), so
     * both backends answer each filter with the same query. */
    if (f->turn_user_id) {
        if (f->status && strcmp(f->status, "active") != 0)
            return STORE_OK; /* only active games have a turn */
        return pg_each(s, ST_GAMES_MINE, game_row, &w, "iToooio", f->turn_user_id, f->variant,
                       f->opponent_id, f->before, f->user_id, f->limit, f->viewer_id);
    }
    if (f->opponent_id)
        return pg_each(s, ST_GAMES_X, game_row, &w, "oTTooio", f->user_id, f->status, f->variant,
                       f->opponent_id, f->before, f->limit, f->viewer_id);
    return pg_each(s, ST_GAMES_QUERY, game_row, &w, "oTTooio", f->user_id, f->status, f->variant,
                   f->turn_user_id, f->before, f->limit, f->viewer_id);
}

/* ---- the challenge of a game (issue 15, migration 5) ------------------ */

static int pg_game_challenge_put(store *base, int64_t game_id, int64_t challenge_id)
{
    pg_store *s = pg_of(base);
    if (pg_alone_in_batch(s))
        return pg_send(s, ST_GCH_PUT_X, "io", game_id, challenge_id);
    return pg_run_one(s, ST_GCH_PUT, "io", game_id, challenge_id);
}

static int pg_game_challenge_get(store *base, int64_t game_id, int64_t *challenge_id)
{
    PGresult *r;
    int rc = pg_one_row(pg_of(base), ST_GCH_GET, &r, "i", game_id);
    if (rc)
        return rc;
    *challenge_id = pg_col_int(r, 0, 0);
    PQclear(r);
    return STORE_OK;
}

/* ---- bounded (issue 9) ------------------------------------------------ */

static int pg_draw_ply_get(store *base, int64_t game_id, const char *side, int64_t *ply)
{
    PGresult *r;
    int rc = pg_one_row(pg_of(base), ST_DRAW_PLY_GET, &r, "it", game_id, side);
    if (rc)
        return rc;
    *ply = pg_col_int(r, 0, 0);
    PQclear(r);
    return STORE_OK;
}

static int pg_draw_ply_put(store *base, int64_t game_id, const char *side, int64_t ply)
{
    return pg_run(pg_of(base), ST_DRAW_PLY_PUT, "iti", game_id, side, ply);
}

static int pg_game_damaged_get(store *base, int64_t game_id, bool *damaged)
{
    PGresult *r;
    int rc = pg_one_row(pg_of(base), ST_DAMAGED_GET, &r, "i", game_id);
    if (rc)
        return rc;
    *damaged = pg_col_int(r, 0, 0) != 0;
    PQclear(r);
    return STORE_OK;
}

static int pg_game_damaged_set(store *base, int64_t game_id)
{
    return pg_run(pg_of(base), ST_DAMAGED_SET, "i", game_id);
}

/* FOR UPDATE: the row stays locked until the batch's transaction ends; a
 * second node's claim waits for it, then sees the row as committed (READ
 * COMMITTED re-reads it) and finds it ended (store_games.h). */
static int pg_game_claim(store *base, int64_t game_id, int64_t ply)
{
    pg_store *s = pg_of(base);
    if (pg_alone_in_batch(s))
        return pg_send(s, ST_GAME_CLAIM_X, "ii", game_id, ply);
    PGresult *r;
    int rc = pg_one_row(s, ST_GAME_CLAIM, &r, "ii", game_id, ply);
    if (rc)
        return rc == STORE_NOTFOUND ? STORE_CONFLICT : rc;
    PQclear(r);
    return STORE_OK;
}

typedef struct tc_walk {
    store_tc_count_cb cb;
    void *arg;
} tc_walk;

static int tc_count_row(const PGresult *r, int i, void *ctx)
{
    tc_walk *w = ctx;
    return w->cb(w->arg, pg_col_null(r, i, 0) ? "" : PQgetvalue(r, i, 0), pg_col_int(r, i, 1));
}

static int pg_games_active_count(store *base, store_tc_count_cb cb, void *arg)
{
    return pg_each(pg_of(base), ST_ACTIVE_COUNT, tc_count_row, &(tc_walk){cb, arg}, "");
}

const store_games_ops pg_games_ops = {
    .game_insert = pg_game_insert,
    .game_get = pg_game_get,
    .game_update = pg_game_update,
    .move_insert = pg_move_insert,
    .moves_each = pg_moves_each,
    .games_query = pg_games_query,
    .move_played = pg_move_played,
    .game_challenge_put = pg_game_challenge_put,
    .game_challenge_get = pg_game_challenge_get,
    .draw_ply_get = pg_draw_ply_get,
    .draw_ply_put = pg_draw_ply_put,
    .game_damaged_get = pg_game_damaged_get,
    .game_damaged_set = pg_game_damaged_set,
    .game_claim = pg_game_claim,
    .games_active_count = pg_games_active_count,
};
