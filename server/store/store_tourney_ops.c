/*
 * store_tourney_ops: the dispatchers of store_tourney.h over the store_ops
 * table (store.h), like store.c's.
 */
#include "store/store.h"

#define DISPATCH(name, ...) return s->ops->name(s, __VA_ARGS__)

int store_class_insert(store *s, store_class *c)
{
    DISPATCH(class_insert, c);
}
int store_class_get(store *s, int64_t id, store_class *out)
{
    DISPATCH(class_get, id, out);
}
int store_class_by_code(store *s, const char *code, store_class *out)
{
    DISPATCH(class_by_code, code, out);
}
int store_classes_of(store *s, int64_t user_id, store_class_cb cb, void *arg)
{
    DISPATCH(classes_of, user_id, cb, arg);
}
int store_member_add(store *s, int64_t class_id, int64_t user_id, const char *name, int64_t now)
{
    DISPATCH(member_add, class_id, user_id, name, now);
}
int store_members_each(store *s, int64_t class_id, store_member_cb cb, void *arg)
{
    DISPATCH(members_each, class_id, cb, arg);
}
int store_member_is(store *s, int64_t class_id, int64_t user_id, bool *yes)
{
    DISPATCH(member_is, class_id, user_id, yes);
}
int store_user_pwhash_set(store *s, int64_t user_id, const char *pwhash)
{
    DISPATCH(user_pwhash_set, user_id, pwhash);
}
int store_tourney_insert(store *s, store_tourney *t)
{
    DISPATCH(tourney_insert, t);
}
int store_tourney_get(store *s, int64_t id, store_tourney *out)
{
    DISPATCH(tourney_get, id, out);
}
int store_tourney_update(store *s, const store_tourney *t)
{
    DISPATCH(tourney_update, t);
}
int store_tourneys_list(store *s, const char *status, int64_t limit, store_tourney_cb cb, void *arg)
{
    DISPATCH(tourneys_list, status, limit, cb, arg);
}
int store_tplayer_add(store *s, int64_t tid, int64_t user_id, int64_t number, int64_t late_round,
                      int64_t now)
{
    DISPATCH(tplayer_add, tid, user_id, number, late_round, now);
}
int store_tplayers_each(store *s, int64_t tid, store_tplayer_cb cb, void *arg)
{
    DISPATCH(tplayers_each, tid, cb, arg);
}
int store_tplayer_withdraw(store *s, int64_t tid, int64_t user_id)
{
    DISPATCH(tplayer_withdraw, tid, user_id);
}
int store_tplayer_remove(store *s, int64_t tid, int64_t user_id)
{
    DISPATCH(tplayer_remove, tid, user_id);
}
int store_pairing_insert(store *s, const store_pairing *p)
{
    DISPATCH(pairing_insert, p);
}
int store_pairings_each(store *s, int64_t tid, store_pairing_cb cb, void *arg)
{
    DISPATCH(pairings_each, tid, cb, arg);
}
int store_pairing_by_game(store *s, int64_t game_id, store_pairing *out)
{
    DISPATCH(pairing_by_game, game_id, out);
}
int store_pairing_set(store *s, const store_pairing *p)
{
    DISPATCH(pairing_set, p);
}
int store_forbid_add(store *s, int64_t tid, int64_t a, int64_t b)
{
    DISPATCH(forbid_add, tid, a, b);
}
int store_forbids_each(store *s, int64_t tid, int (*cb)(void *arg, int64_t a, int64_t b), void *arg)
{
    DISPATCH(forbids_each, tid, cb, arg);
}
int store_game_tourney_set(store *s, int64_t game_id, int64_t tid, int64_t round)
{
    DISPATCH(game_tourney_set, game_id, tid, round);
}
int store_game_tourney_get(store *s, int64_t game_id, int64_t *tid, int64_t *round)
{
    DISPATCH(game_tourney_get, game_id, tid, round);
}
