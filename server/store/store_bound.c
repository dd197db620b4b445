/*
 * store_bound: the dispatchers of store_bound.h (s->ops->x).
 */
#include "store/store_bound.h"

int store_journal_limit(store *s, int64_t bytes)
{
    return s->ops->journal_limit(s, bytes);
}

int store_checkpoint(store *s)
{
    return s->ops->checkpoint(s);
}

int store_prune(store *s, const store_prune_spec *p, int64_t *rows)
{
    return s->ops->prune(s, p, rows);
}

int store_notes_drop_unread(store *s, int64_t user_id, const char *kind, int64_t game_id)
{
    return s->ops->notes_drop_unread(s, user_id, kind, game_id);
}

int store_notes_cap_sender(store *s, int64_t user_id, const char *kind, int64_t sender_id,
                          int64_t keep)
{
    return s->ops->notes_cap_sender(s, user_id, kind, sender_id, keep);
}

int store_notes_settle(store *s, int64_t user_id, const char *kind, int64_t ref_id, bool drop)
{
    return s->ops->notes_settle(s, user_id, kind, ref_id, drop);
}

int store_challenges_since(store *s, int64_t user_id, int64_t since, int64_t *n, int64_t *oldest)
{
    return s->ops->challenges_since(s, user_id, since, n, oldest);
}

int store_seeks_page(store *s, int64_t user_id, int64_t after, int64_t limit, store_challenge_cb cb,
                     void *arg)
{
    return s->ops->seeks_page(s, user_id, after, limit, cb, arg);
}

int store_draw_ply_get(store *s, int64_t game_id, const char *side, int64_t *ply)
{
    return s->ops->draw_ply_get(s, game_id, side, ply);
}

int store_draw_ply_put(store *s, int64_t game_id, const char *side, int64_t ply)
{
    return s->ops->draw_ply_put(s, game_id, side, ply);
}

int store_game_damaged_get(store *s, int64_t game_id, bool *damaged)
{
    return s->ops->game_damaged_get(s, game_id, damaged);
}

int store_game_damaged_set(store *s, int64_t game_id)
{
    return s->ops->game_damaged_set(s, game_id);
}
