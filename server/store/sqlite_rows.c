/*
 * sqlite_rows: the SQLite backend's users, tokens, challenges, games and
 * moves (store.h contracts) over the statement table of sqlite_int.h.
 * Each function binds, steps, reads the columns it promised, and resets;
 * a failing step is logged with the statement's name (sq_fail) and
 * returned as STORE_EIO.
 */
#include "store/sqlite_int.h"

#include <stdio.h>
#include <string.h>

/* ---- users and tokens ------------------------------------------------ */

static void read_user(sqlite3_stmt *st, store_user *u)
{
    u->id = sqlite3_column_int64(st, 0);
    sq_col_text(st, 1, u->username, sizeof u->username);
    u->bot = sqlite3_column_int(st, 2) != 0;
    sq_col_text(st, 3, u->pwhash, sizeof u->pwhash);
    u->created = sqlite3_column_int64(st, 4);
}

int sq_user_by_name(store *base, const char *name, store_user *out)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_USER_BY_NAME, "t", name);
    if (rc || (rc = sq_one_row(s, ST_USER_BY_NAME)))
        return rc;
    read_user(s->st[ST_USER_BY_NAME], out);
    (void)sqlite3_reset(s->st[ST_USER_BY_NAME]);
    return STORE_OK;
}

int sq_user_by_id(store *base, int64_t id, store_user *out)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_USER_BY_ID, "i", id);
    if (rc || (rc = sq_one_row(s, ST_USER_BY_ID)))
        return rc;
    read_user(s->st[ST_USER_BY_ID], out);
    (void)sqlite3_reset(s->st[ST_USER_BY_ID]);
    return STORE_OK;
}

int sq_user_insert(store *base, const char *name, bool bot, const char *pwhash, int64_t now,
                   int64_t *id)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_USER_INSERT, "titi", name, (int64_t)bot, pwhash, now);
    if (rc || (rc = sq_run(s, ST_USER_INSERT)))
        return rc;
    *id = sqlite3_last_insert_rowid(s->db);
    return STORE_OK;
}

int sq_users_list(store *base, int bot, const char *after, int64_t limit,
                  int (*cb)(void *arg, const store_user *u), void *arg)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_USERS_LIST, "OTi", (int64_t)bot, after, limit);
    if (rc)
        return rc;
    sqlite3_stmt *st = s->st[ST_USERS_LIST];
    store_user u;
    while (sq_next_row(s, ST_USERS_LIST, &rc)) {
        read_user(st, &u);
        int stop = cb(arg, &u);
        if (stop)
            return sq_stop(s, ST_USERS_LIST, stop);
    }
    return rc;
}

int sq_token_insert(store *base, const uint8_t hash[STORE_TOKEN_HASH], int64_t user_id, int64_t now)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_TOKEN_INSERT, "hiii", hash, user_id, now, now);
    return rc ? rc : sq_run(s, ST_TOKEN_INSERT);
}

int sq_token_user(store *base, const uint8_t hash[STORE_TOKEN_HASH], int64_t now, int64_t *user_id)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_TOKEN_USE, "hii", hash, now, (int64_t)STORE_TOKEN_IDLE_MS);
    if (rc || (rc = sq_one_row(s, ST_TOKEN_USE)))
        return rc;
    *user_id = sqlite3_column_int64(s->st[ST_TOKEN_USE], 0);
    /* RETURNING: the update is complete only once stepped to the end. */
    rc = sqlite3_step(s->st[ST_TOKEN_USE]);
    (void)sqlite3_reset(s->st[ST_TOKEN_USE]);
    return rc == SQLITE_DONE ? STORE_OK : sq_fail(s, ST_TOKEN_USE, rc);
}

int sq_token_delete(store *base, const uint8_t hash[STORE_TOKEN_HASH])
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_TOKEN_DELETE, "h", hash);
    return rc ? rc : sq_run(s, ST_TOKEN_DELETE);
}

/* ---- challenges ------------------------------------------------------ */

void sq_read_challenge(sqlite3_stmt *st, store_challenge *c)
{
    c->id = sqlite3_column_int64(st, 0);
    c->from_id = sqlite3_column_int64(st, 1);
    c->to_id = sqlite3_column_int64(st, 2);
    sq_col_text(st, 3, c->from, sizeof c->from);
    sq_col_text(st, 4, c->to, sizeof c->to);
    sq_col_text(st, 5, c->variant, sizeof c->variant);
    sq_col_text(st, 6, c->color, sizeof c->color);
    sq_col_text(st, 7, c->time_control, sizeof c->time_control);
    sq_col_text(st, 8, c->position, sizeof c->position);
    sq_col_text(st, 9, c->status, sizeof c->status);
    sq_col_text(st, 10, c->decline_reason, sizeof c->decline_reason);
    c->game_id = sqlite3_column_int64(st, 11);
    c->created = sqlite3_column_int64(st, 12);
    c->updated = sqlite3_column_int64(st, 13);
    c->rated = sqlite3_column_int(st, 14) != 0;
    c->from_bot = sqlite3_column_int(st, 15) != 0;
    c->to_bot = sqlite3_column_int(st, 16) != 0;
}

int sq_challenge_insert(store *base, store_challenge *c, int64_t now)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_CHALLENGE_INSERT, "iotttTiii", c->from_id, c->to_id, c->variant,
                     c->color, c->time_control, c->position, now, now, (int64_t)c->rated);
    if (rc || (rc = sq_run(s, ST_CHALLENGE_INSERT)))
        return rc;
    c->id = sqlite3_last_insert_rowid(s->db);
    snprintf(c->status, sizeof c->status, "open");
    c->decline_reason[0] = '\0';
    c->game_id = 0;
    c->created = c->updated = now;
    return STORE_OK;
}

int sq_challenge_get(store *base, int64_t id, store_challenge *out)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_CHALLENGE_GET, "i", id);
    if (rc || (rc = sq_one_row(s, ST_CHALLENGE_GET)))
        return rc;
    sq_read_challenge(s->st[ST_CHALLENGE_GET], out);
    (void)sqlite3_reset(s->st[ST_CHALLENGE_GET]);
    return STORE_OK;
}

int sq_challenge_close(store *base, int64_t id, const char *status, const char *reason,
                       int64_t game_id, int64_t now)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_CHALLENGE_CLOSE, "ittoi", id, status, reason, game_id, now);
    if (rc || (rc = sq_run(s, ST_CHALLENGE_CLOSE)))
        return rc;
    return sqlite3_changes(s->db) == 1 ? STORE_OK : STORE_CONFLICT;
}

int sq_challenges_for(store *base, int64_t user_id, int (*cb)(void *arg, const store_challenge *c),
                      void *arg)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_CHALLENGES_FOR, "ii", user_id, (int64_t)STORE_SEEKS_PAGE);
    if (rc)
        return rc;
    sqlite3_stmt *st = s->st[ST_CHALLENGES_FOR];
    store_challenge c;
    while (sq_next_row(s, ST_CHALLENGES_FOR, &rc)) {
        sq_read_challenge(st, &c);
        int stop = cb(arg, &c);
        if (stop)
            return sq_stop(s, ST_CHALLENGES_FOR, stop);
    }
    return rc;
}

int sq_challenges_open_from(store *base, int64_t user_id, int64_t *n)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_CHALLENGES_OPEN_FROM, "i", user_id);
    if (rc)
        return rc;
    sqlite3_stmt *st = s->st[ST_CHALLENGES_OPEN_FROM];
    rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        (void)sqlite3_reset(st);
        return sq_fail(s, ST_CHALLENGES_OPEN_FROM, rc);
    }
    *n = sqlite3_column_int64(st, 0);
    (void)sqlite3_reset(st);
    return STORE_OK;
}

/* ---- games and moves ------------------------------------------------- */

void sq_read_game(sqlite3_stmt *st, store_game *g)
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

int sq_game_insert(store *base, store_game *g)
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

int sq_game_get(store *base, int64_t id, store_game *out)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_GAME_GET, "i", id);
    if (rc || (rc = sq_one_row(s, ST_GAME_GET)))
        return rc;
    sq_read_game(s->st[ST_GAME_GET], out);
    (void)sqlite3_reset(s->st[ST_GAME_GET]);
    return STORE_OK;
}

int sq_game_update(store *base, const store_game *g)
{
    sq_store *s = sq_of(base);
    int rc =
        sq_bind(s, ST_GAME_UPDATE, "itittTTOOOi", g->id, g->position, g->ply, g->turn, g->status,
                g->result, g->reason, g->deadline, g->white_ms, g->black_ms, g->updated);
    return rc ? rc : sq_run_one(s, ST_GAME_UPDATE);
}

int sq_move_insert(store *base, int64_t game_id, int64_t ply, const char *move, int64_t user_id,
                   int64_t now)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_MOVE_INSERT, "iitii", game_id, ply, move, user_id, now);
    return rc ? rc : sq_run(s, ST_MOVE_INSERT);
}

/* Whether game id has a row (a failed read counts as yes: the caller then
 * reports a conflict, which loses the batch all the same). */
static bool sq_game_exists(sq_store *s, int64_t id)
{
    if (sq_bind(s, ST_GAME_EXISTS, "i", id) != STORE_OK)
        return true;
    int rc = sq_one_row(s, ST_GAME_EXISTS);
    (void)sqlite3_reset(s->st[ST_GAME_EXISTS]);
    return rc != STORE_NOTFOUND;
}

int sq_move_played(store *base, const store_played *p)
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
        return sq_game_exists(s, p->game_id) ? STORE_CONFLICT : STORE_NOTFOUND;
    rc = sq_bind(s, ST_MOVE_PLAYED_INSERT, "iitiiO", p->game_id, p->ply, p->move, p->user_id,
                 p->created, p->clock_ms);
    return rc ? rc : sq_run(s, ST_MOVE_PLAYED_INSERT);
}

int sq_moves_each(store *base, int64_t game_id,
                  int (*cb)(void *arg, int64_t ply, const char *move, int64_t user_id), void *arg)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_MOVES_OF, "i", game_id);
    if (rc)
        return rc;
    sqlite3_stmt *st = s->st[ST_MOVES_OF];
    while (sq_next_row(s, ST_MOVES_OF, &rc)) {
        const unsigned char *m = sqlite3_column_text(st, 1);
        int stop = cb(arg, sqlite3_column_int64(st, 0), m ? (const char *)m : "",
                      sqlite3_column_int64(st, 2));
        if (stop)
            return sq_stop(s, ST_MOVES_OF, stop);
    }
    return rc;
}

int sq_games_query(store *base, const store_game_filter *f,
                   int (*cb)(void *arg, const store_game *g), void *arg)
{
    sq_store *s = sq_of(base);
    if (sq_search_wanted(f))
        return sq_games_search(base, f, cb, arg);
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
    if (rc)
        return rc;
    sqlite3_stmt *st = s->st[which];
    store_game g;
    while (sq_next_row(s, which, &rc)) {
        sq_read_game(st, &g);
        int stop = cb(arg, &g);
        if (stop)
            return sq_stop(s, which, stop);
    }
    return rc;
}
