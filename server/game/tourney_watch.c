/*
 * tourney_watch: who may see a tournament, its players, rounds, standings
 * and games (tourney_may_see(), tourney_sees(): the rule of the read ops
 * `tournament`, `tournaments`, `tournament_standings` and of `export` with
 * a `tournament` filter), who may see one game (tourney_game_may_see():
 * private games and the games of class-only tournaments, the rule of every
 * read of a game; issue 21), and what the organiser is told when one of
 * its games ends (tourney_send_result(), the `tournament_result` event).
 * Declared in tourney.h; apart from tourney.c because neither needs the
 * tournament's whole state, only its row, its class and one pairing.
 *
 * Why a game of a class-only tournament is hidden as its tournament is:
 * the tournament rule keeps the students' names to the class, and a game
 * carries both players' names (its object, its PDN record), so a game
 * shown to anyone would undo it. The listings cannot call this code per
 * row (a page must hold `limit` games the viewer may see, or paging
 * breaks), so the store applies the same rule in SQL
 * (store_game_filter.viewer_id, store/sqlite/sqlite_games.c SQ_SEEN_BY); the two are
 * kept equal by hand and tests/server/test_class_privacy.c checks both.
 */
#include "game/tourney.h"

#include "game/events.h"
#include "game/games.h"

typedef struct find_player {
    int64_t user_id;
    bool found;
} find_player;

static int find_player_cb(void *arg, const store_tplayer *p)
{
    find_player *f = arg;
    if (p->user_id == f->user_id) {
        f->found = true;
        return 1;
    }
    return 0;
}

qk_err tourney_sees(gsvc *s, const store_tourney *t, int64_t viewer, bool *yes)
{
    store_class c;
    bool member = false;
    *yes = false;
    if (t->organiser_id == viewer || t->class_id <= 0) {
        *yes = true;
        return QK_ERR_NONE;
    }
    int rc = store_class_get(s->store, t->class_id, &c);
    if (rc != STORE_OK && rc != STORE_NOTFOUND)
        return QK_ERR_INTERNAL;
    if (rc == STORE_OK && c.teacher_id == viewer) {
        *yes = true;
        return QK_ERR_NONE;
    }
    if (rc == STORE_OK && store_member_is(s->store, t->class_id, viewer, &member) != STORE_OK)
        return QK_ERR_INTERNAL;
    if (member) {
        *yes = true;
        return QK_ERR_NONE;
    }
    /* A player is a member (tourney_join checks); asked anyway, so that a
     * player stays one whatever becomes of the class. */
    find_player f = {viewer, false};
    rc = store_tplayers_each(s->store, t->id, find_player_cb, &f);
    if (rc != STORE_OK && !f.found)
        return QK_ERR_INTERNAL;
    *yes = f.found;
    return QK_ERR_NONE;
}

qk_err tourney_may_see(gsvc *s, int64_t tid, int64_t viewer, const char **why)
{
    store_tourney t;
    bool yes;
    *why = NULL;
    int rc = store_tourney_get(s->store, tid, &t);
    if (rc == STORE_NOTFOUND) {
        *why = "no such tournament";
        return QK_ERR_NOT_FOUND;
    }
    if (rc != STORE_OK)
        return QK_ERR_INTERNAL;
    qk_err e = tourney_sees(s, &t, viewer, &yes);
    if (e)
        return e;
    if (yes)
        return QK_ERR_NONE;
    *why = "this tournament is for its class only";
    return QK_ERR_FORBIDDEN;
}

qk_err tourney_game_may_see(gsvc *s, const struct game *g, int64_t viewer, const char **why)
{
    *why = NULL;
    if (g->white.id == viewer || g->black.id == viewer)
        return QK_ERR_NONE;
    if (g->priv) {
        *why = "the game is private: only its players may watch it";
        return QK_ERR_FORBIDDEN;
    }
    if (g->tournament_id <= 0)
        return QK_ERR_NONE;
    store_tourney t;
    bool yes;
    int rc = store_tourney_get(s->store, g->tournament_id, &t);
    /* Tournaments are never deleted; a game naming none hides nothing
     * (as the SQL's NOT EXISTS, which finds no class-only row). */
    if (rc == STORE_NOTFOUND)
        return QK_ERR_NONE;
    if (rc != STORE_OK)
        return QK_ERR_INTERNAL;
    qk_err e = tourney_sees(s, &t, viewer, &yes);
    if (e)
        return e;
    if (yes)
        return QK_ERR_NONE;
    *why = "this game is for its tournament's class only";
    return QK_ERR_FORBIDDEN;
}

void tourney_send_result(gsvc *s, int64_t organiser_id, const store_pairing *p,
                         const struct game *g)
{
    cJSON *ev = qk_proto_event("tournament_result");
    const char *reason = qk_reason_name(g->reason);
    if (ev && !(cJSON_AddNumberToObject(ev, "tournament", (double)p->tournament_id) &&
                cJSON_AddNumberToObject(ev, "round", (double)p->round) &&
                cJSON_AddNumberToObject(ev, "game", (double)g->id) &&
                cJSON_AddStringToObject(ev, "white", g->white.name) &&
                cJSON_AddStringToObject(ev, "black", g->black.name) &&
                (p->result[0] ? cJSON_AddStringToObject(ev, "result", p->result)
                              : cJSON_AddNullToObject(ev, "result")) &&
                (reason ? cJSON_AddStringToObject(ev, "reason", reason)
                        : cJSON_AddNullToObject(ev, "reason")) &&
                cJSON_AddStringToObject(ev, "kind", p->kind) &&
                cJSON_AddBoolToObject(ev, "by_hand", p->by_hand))) {
        cJSON_Delete(ev);
        ev = NULL;
    }
    events_to_user(s, organiser_id, "tournament_result", ev);
}
