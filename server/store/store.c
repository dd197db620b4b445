/*
 * store: the dispatchers of store.h. Each public function forwards to the
 * backend's table (s->ops->x(s, ...)) and adds nothing, so a backend sees
 * exactly the caller's arguments; the contracts are in store.h. Opening
 * is not here: store_open.c is the one file that knows the backends.
 */
#include "store/store.h"

#include <assert.h>

void store_close(store *s)
{
    if (s)
        s->ops->close(s);
}

int store_user_version(store *s, int *out)
{
    return s->ops->user_version(s, out);
}

/* ---- transactions ---------------------------------------------------- */

int store_begin(store *s)
{
    return s->ops->begin(s);
}

bool store_in_txn(const store *s)
{
    return s->ops->in_txn(s);
}

int store_commit_async(store *s, store_done_cb done, void *arg)
{
    assert(done);
    return s->ops->commit(s, done, arg);
}

int store_async_start(store *s, uv_loop_t *loop, int fsync_delay_ms)
{
    return s->ops->async_start(s, loop, fsync_delay_ms);
}

void store_async_stop(store *s)
{
    s->ops->async_stop(s);
}

uint64_t store_fsyncs(store *s)
{
    return s->ops->fsyncs(s);
}

bool store_durability_busy(store *s)
{
    return s->ops->durability_busy(s);
}

int store_wal_restart(store *s)
{
    return s->ops->wal_restart(s);
}

void store_wal_restart_at(store *s, int64_t frames)
{
    s->ops->wal_restart_at(s, frames);
}

uint64_t store_wal_restarts(store *s)
{
    return s->ops->wal_restarts(s);
}

int store_commit(store *s)
{
    return s->ops->commit(s, NULL, NULL);
}

void store_rollback(store *s)
{
    s->ops->rollback(s);
}

void store_fail_commit_at(store *s, int n)
{
    s->ops->fail_commit_at(s, n);
}

/* ---- users and tokens ------------------------------------------------ */

int store_user_by_name(store *s, const char *name, store_user *out)
{
    return s->ops->user_by_name(s, name, out);
}

int store_user_by_id(store *s, int64_t id, store_user *out)
{
    return s->ops->user_by_id(s, id, out);
}

int store_user_insert(store *s, const char *name, bool bot, const char *pwhash, int64_t now,
                      int64_t *id)
{
    return s->ops->user_insert(s, name, bot, pwhash, now, id);
}

int store_users_list(store *s, int bot, const char *after, int64_t limit,
                     int (*cb)(void *arg, const store_user *u), void *arg)
{
    return s->ops->users_list(s, bot, after, limit, cb, arg);
}

int store_token_insert(store *s, const uint8_t hash[STORE_TOKEN_HASH], int64_t user_id, int64_t now)
{
    return s->ops->token_insert(s, hash, user_id, now);
}

int store_token_user(store *s, const uint8_t hash[STORE_TOKEN_HASH], int64_t now, int64_t *user_id)
{
    return s->ops->token_user(s, hash, now, user_id);
}

int store_token_delete(store *s, const uint8_t hash[STORE_TOKEN_HASH])
{
    return s->ops->token_delete(s, hash);
}

/* ---- challenges ------------------------------------------------------ */

int store_challenge_insert(store *s, store_challenge *c, int64_t now)
{
    return s->ops->challenge_insert(s, c, now);
}

int store_challenge_get(store *s, int64_t id, store_challenge *out)
{
    return s->ops->challenge_get(s, id, out);
}

int store_challenge_close(store *s, int64_t id, const char *status, const char *reason,
                          int64_t game_id, int64_t now)
{
    return s->ops->challenge_close(s, id, status, reason, game_id, now);
}

int store_challenges_for(store *s, int64_t user_id, int (*cb)(void *arg, const store_challenge *c),
                         void *arg)
{
    return s->ops->challenges_for(s, user_id, cb, arg);
}

int store_challenges_open_from(store *s, int64_t user_id, int64_t *n)
{
    return s->ops->challenges_open_from(s, user_id, n);
}

int store_challenge_x_put(store *s, int64_t id, bool vacation, bool priv)
{
    return s->ops->challenge_x_put(s, id, vacation, priv);
}

int store_challenge_x_get(store *s, int64_t id, bool *vacation, bool *priv)
{
    return s->ops->challenge_x_get(s, id, vacation, priv);
}

/* ---- games and moves ------------------------------------------------- */

int store_game_insert(store *s, store_game *g)
{
    return s->ops->game_insert(s, g);
}

int store_game_get(store *s, int64_t id, store_game *out)
{
    return s->ops->game_get(s, id, out);
}

int store_game_update(store *s, const store_game *g)
{
    return s->ops->game_update(s, g);
}

int store_move_insert(store *s, int64_t game_id, int64_t ply, const char *move, int64_t user_id,
                      int64_t now)
{
    return s->ops->move_insert(s, game_id, ply, move, user_id, now);
}

int store_moves_each(store *s, int64_t game_id,
                     int (*cb)(void *arg, int64_t ply, const char *move, int64_t user_id),
                     void *arg)
{
    return s->ops->moves_each(s, game_id, cb, arg);
}

int store_games_query(store *s, const store_game_filter *f,
                      int (*cb)(void *arg, const store_game *g), void *arg)
{
    return s->ops->games_query(s, f, cb, arg);
}

int store_game_x_get(store *s, int64_t id, store_game_x *out)
{
    return s->ops->game_x_get(s, id, out);
}

int store_game_x_put(store *s, int64_t id, const store_game_x *x)
{
    return s->ops->game_x_put(s, id, x);
}

int store_move_played(store *s, const store_played *p)
{
    return s->ops->move_played(s, p);
}

/* ---- deadlines and extensions ---------------------------------------- */

int store_wake_next(store *s, int64_t *at)
{
    return s->ops->wake_next(s, at);
}

int store_wake_due(store *s, int64_t now, int64_t *ids, int max, int *n)
{
    return s->ops->wake_due(s, now, ids, max, n);
}

int store_extend_downtime(store *s, int64_t ms, int64_t now, int64_t *games)
{
    return s->ops->extend_downtime(s, ms, now, games);
}

int store_extension_insert(store *s, int64_t game, const char *kind, int64_t ms, int64_t now)
{
    return s->ops->extension_insert(s, game, kind, ms, now);
}

int store_extensions_each(store *s, int64_t game,
                          int (*cb)(void *arg, const char *kind, int64_t ms, int64_t created),
                          void *arg)
{
    return s->ops->extensions_each(s, game, cb, arg);
}

/* ---- server state and vacations -------------------------------------- */

int store_state_get(store *s, const char *key, int64_t *value)
{
    return s->ops->state_get(s, key, value);
}

int store_state_set(store *s, const char *key, int64_t value)
{
    return s->ops->state_set(s, key, value);
}

int store_vacation_get(store *s, int64_t user_id, store_vacation *out)
{
    return s->ops->vacation_get(s, user_id, out);
}

int store_vacation_put(store *s, int64_t user_id, const store_vacation *v)
{
    return s->ops->vacation_put(s, user_id, v);
}

/* ---- notifications --------------------------------------------------- */

int store_note_insert(store *s, store_note *n)
{
    return s->ops->note_insert(s, n);
}

int store_notes_list(store *s, int64_t user_id, bool unread_only, int64_t limit, int64_t offset,
                     int (*cb)(void *arg, const store_note *n), void *arg)
{
    return s->ops->notes_list(s, user_id, unread_only, limit, offset, cb, arg);
}

int store_note_owner(store *s, int64_t id, int64_t *user_id)
{
    return s->ops->note_owner(s, id, user_id);
}

int store_note_mark(store *s, int64_t user_id, int64_t id, int64_t *n)
{
    return s->ops->note_mark(s, user_id, id, n);
}

int store_note_mark_all(store *s, int64_t user_id, int64_t *n)
{
    return s->ops->note_mark_all(s, user_id, n);
}

int store_note_unread(store *s, int64_t user_id, int64_t *n)
{
    return s->ops->note_unread(s, user_id, n);
}

int store_game_challenge_put(store *s, int64_t game_id, int64_t challenge_id)
{
    return s->ops->game_challenge_put(s, game_id, challenge_id);
}

int store_game_challenge_get(store *s, int64_t game_id, int64_t *challenge_id)
{
    return s->ops->game_challenge_get(s, game_id, challenge_id);
}

int store_challenges_expiring(store *s, int64_t direct_before, int64_t seek_before, int64_t *ids,
                              int max, int *n)
{
    return s->ops->challenges_expiring(s, direct_before, seek_before, ids, max, n);
}

/* ---- ratings --------------------------------------------------------- */

int store_rating_get(store *s, int64_t user_id, const char *family, store_rating *out)
{
    return s->ops->rating_get(s, user_id, family, out);
}

int store_rating_put(store *s, const store_rating *r)
{
    return s->ops->rating_put(s, r);
}

int store_ratings_of(store *s, int64_t user_id, store_rating_cb cb, void *arg)
{
    return s->ops->ratings_of(s, user_id, cb, arg);
}

int store_ratings_board(store *s, const char *family, double max_rd, store_rating_cb cb,
                        void *arg)
{
    return s->ops->ratings_board(s, family, max_rd, cb, arg);
}

int store_game_rating_get(store *s, int64_t game_id, store_game_rating *out)
{
    return s->ops->game_rating_get(s, game_id, out);
}

int store_game_rating_put(store *s, const store_game_rating *gr)
{
    return s->ops->game_rating_put(s, gr);
}

int store_challenge_range_put(store *s, int64_t id, int64_t min, int64_t max)
{
    return s->ops->challenge_range_put(s, id, min, max);
}

int store_challenge_range_get(store *s, int64_t id, int64_t *min, int64_t *max)
{
    return s->ops->challenge_range_get(s, id, min, max);
}

int store_move_clock_set(store *s, int64_t game_id, int64_t ply, int64_t clock_ms)
{
    return s->ops->move_clock_set(s, game_id, ply, clock_ms);
}

int store_move_clocks_each(store *s, int64_t game_id, store_clock_cb cb, void *arg)
{
    return s->ops->move_clocks_each(s, game_id, cb, arg);
}

int store_game_mark_imported(store *s, int64_t id, const char *white, const char *black)
{
    return s->ops->game_mark_imported(s, id, white, black);
}
