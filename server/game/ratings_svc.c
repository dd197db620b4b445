/*
 * ratings_svc: see ratings_svc.h. Rows cross into rating.h's type here
 * and nowhere else; the game's ratings are one game_ratings row, read
 * when a game object is built (rated games only), so struct game needs no
 * field of its own. This file does not include game/games.h (games.c
 * includes this module): callers pass a ratings_game.
 */
#include "game/ratings_svc.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/log.h"

void ratings_family(const char *variant, char out[RATINGS_FAMILY_MAX])
{
    static const char konane[] = "alquerkonane";
    /* Every Alquerkonane board, named or RxC, is one family (issue 12). */
    if (strncmp(variant, konane, sizeof konane - 1) == 0)
        snprintf(out, RATINGS_FAMILY_MAX, "%s", konane);
    else
        snprintf(out, RATINGS_FAMILY_MAX, "%s", variant);
}

double ratings_round2(double x)
{
    return round(x * 100.0) / 100.0;
}

static double round6(double x)
{
    return round(x * 1e6) / 1e6;
}

/* Whole inactivity periods from last to now (>= 0). */
static int periods(int64_t last, int64_t now)
{
    int64_t d = now > last ? (now - last) / RATINGS_PERIOD_MS : 0;
    return d > 100000 ? 100000 : (int)d; /* RD is capped at 350 long before */
}

static void from_row(const store_rating *row, rating *r)
{
    r->rating = row->rating;
    r->rd = row->rd;
    r->volatility = row->volatility;
    r->games = row->games > 0x7fffffff ? 0x7fffffff : (int)row->games;
}

/* A stored row as of now: the inactivity step applied (read only). A row
 * the formulas refuse (not finite: never written by us) is logged and
 * shown as stored. */
static void row_now(const store_rating *row, int64_t now, rating *out)
{
    from_row(row, out);
    if (rating_inactivity(out, periods(row->last_game, now), out) != 0)
        log_warn("rating of user %lld in %s is invalid", (long long)row->user_id, row->family);
}

int ratings_current(gsvc *s, int64_t user_id, const char *family, rating *out, bool *found)
{
    store_rating row;
    int rc = store_rating_get(s->store, user_id, family, &row);
    if (found)
        *found = rc == STORE_OK;
    if (rc == STORE_NOTFOUND) {
        rating_init(out);
        return STORE_OK;
    }
    if (rc != STORE_OK)
        return STORE_EIO;
    row_now(&row, svc_now(s), out);
    return STORE_OK;
}

int ratings_game_started(gsvc *s, const ratings_game *g)
{
    if (!g->rated)
        return STORE_OK;
    char family[RATINGS_FAMILY_MAX];
    rating w, b;
    ratings_family(g->variant, family);
    store_game_rating gr = {.game_id = g->id};
    if (ratings_current(s, g->white_id, family, &w, NULL) != STORE_OK ||
        ratings_current(s, g->black_id, family, &b, NULL) != STORE_OK)
        goto fail;
    gr.white_start = w.rating;
    gr.black_start = b.rating;
    if (store_game_rating_put(s->store, &gr) != STORE_OK)
        goto fail;
    return STORE_OK;
fail:
    svc_poison(s);
    return STORE_EIO;
}

/* {"before": b, "after": a} (rounded) as o's name. */
static bool add_change(cJSON *o, const char *name, double b, double a)
{
    cJSON *c = cJSON_AddObjectToObject(o, name);
    return c && cJSON_AddNumberToObject(c, "before", ratings_round2(b)) &&
           cJSON_AddNumberToObject(c, "after", ratings_round2(a));
}

static cJSON *change_json(const store_game_rating *gr)
{
    cJSON *o = cJSON_CreateObject();
    if (!o || !add_change(o, "white", gr->white_before, gr->white_after) ||
        !add_change(o, "black", gr->black_before, gr->black_after)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* The player's values before the game's update: the stored row grown by
 * inactivity up to now, or a new player's. */
static int before_game(gsvc *s, int64_t user_id, const char *family, int64_t now, rating *r)
{
    store_rating row;
    int rc = store_rating_get(s->store, user_id, family, &row);
    if (rc == STORE_NOTFOUND) {
        rating_init(r);
        return STORE_OK;
    }
    if (rc != STORE_OK)
        return STORE_EIO;
    from_row(&row, r);
    return rating_inactivity(r, periods(row.last_game, now), r) == 0 ? STORE_OK : STORE_EIO;
}

static int put_row(gsvc *s, int64_t user_id, const char *family, const rating *r, int64_t now)
{
    store_rating row = {.user_id = user_id,
                        .rating = r->rating,
                        .rd = r->rd,
                        .volatility = r->volatility,
                        .games = r->games,
                        .last_game = now};
    snprintf(row.family, sizeof row.family, "%s", family);
    return store_rating_put(s->store, &row);
}

int ratings_game_over(gsvc *s, const ratings_game *g, cJSON **change)
{
    if (change)
        *change = NULL;
    /* Aborted games never count, unrated ones neither (PROTOCOL.md);
     * nor imported records: they are stored unrated and never pass
     * notify_game_over(), and notify.c passes them as unrated and
     * unfinished besides, so no path can count one. */
    if (!g->rated || !g->finished)
        return STORE_OK;
    char family[RATINGS_FAMILY_MAX];
    ratings_family(g->variant, family);
    int64_t now = svc_now(s);
    store_game_rating gr;
    rating w, b, w2, b2;
    int rc = store_game_rating_get(s->store, g->id, &gr);
    if (rc == STORE_OK && gr.ended)
        return STORE_OK; /* counted already: a game's end counts once */
    if (rc != STORE_OK && rc != STORE_NOTFOUND)
        goto fail;
    if (before_game(s, g->white_id, family, now, &w) != STORE_OK ||
        before_game(s, g->black_id, family, now, &b) != STORE_OK)
        goto fail;
    if (rc == STORE_NOTFOUND) {
        /* A rated game started before ratings existed: its start is now. */
        gr =
            (store_game_rating){.game_id = g->id, .white_start = w.rating, .black_start = b.rating};
    }
    double score = g->result == QK_RESULT_WHITE ? 1.0 : g->result == QK_RESULT_BLACK ? 0.0 : 0.5;
    if (rating_game_update(&w, &b, score, &w2, &b2) != 0) {
        log_error("game %lld: the rating update refused its input", (long long)g->id);
        goto fail;
    }
    gr.ended = true;
    gr.white_before = w.rating;
    gr.white_after = w2.rating;
    gr.black_before = b.rating;
    gr.black_after = b2.rating;
    if (put_row(s, g->white_id, family, &w2, now) != STORE_OK ||
        put_row(s, g->black_id, family, &b2, now) != STORE_OK ||
        store_game_rating_put(s->store, &gr) != STORE_OK)
        goto fail;
    log_debug("game %lld: white %.2f -> %.2f, black %.2f -> %.2f", (long long)g->id, w.rating,
              w2.rating, b.rating, b2.rating);
    if (change)
        *change = change_json(&gr); /* NULL on OOM: the event goes without it */
    return STORE_OK;
fail:
    svc_poison(s);
    return STORE_EIO;
}

static bool add_num_or_null(cJSON *o, const char *name, bool has, double v)
{
    return has ? cJSON_AddNumberToObject(o, name, ratings_round2(v)) != NULL
               : cJSON_AddNullToObject(o, name) != NULL;
}

bool ratings_add_game_json(gsvc *s, int64_t game_id, bool rated, cJSON *o)
{
    store_game_rating gr = {0};
    int rc = rated ? store_game_rating_get(s->store, game_id, &gr) : STORE_NOTFOUND;
    if (rc != STORE_OK && rc != STORE_NOTFOUND)
        return false;
    bool has = rc == STORE_OK;
    if (!add_num_or_null(o, "white_rating", has, gr.white_start) ||
        !add_num_or_null(o, "black_rating", has, gr.black_start))
        return false;
    cJSON *change = has && gr.ended ? change_json(&gr) : cJSON_CreateNull();
    if (!change || !cJSON_AddItemToObject(o, "rating_change", change)) {
        cJSON_Delete(change);
        return false;
    }
    return true;
}

/* {"rating", "rd", "volatility", "games", "provisional"} of r (now). */
static cJSON *values_json(const rating *r)
{
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddNumberToObject(o, "rating", ratings_round2(r->rating)) ||
        !cJSON_AddNumberToObject(o, "rd", ratings_round2(r->rd)) ||
        !cJSON_AddNumberToObject(o, "volatility", round6(r->volatility)) ||
        !cJSON_AddNumberToObject(o, "games", r->games) ||
        !cJSON_AddBoolToObject(o, "provisional", rating_provisional(r))) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

typedef struct user_walk {
    cJSON *obj;
    int64_t now;
} user_walk;

static int user_cb(void *arg, const store_rating *row)
{
    user_walk *w = arg;
    rating r;
    row_now(row, w->now, &r);
    cJSON *v = values_json(&r);
    if (!v || !cJSON_AddItemToObject(w->obj, row->family, v)) {
        cJSON_Delete(v);
        return 1;
    }
    return 0;
}

cJSON *ratings_user_json(gsvc *s, int64_t user_id)
{
    user_walk w = {cJSON_CreateObject(), svc_now(s)};
    if (!w.obj || store_ratings_of(s->store, user_id, user_cb, &w) != STORE_OK) {
        cJSON_Delete(w.obj);
        return NULL;
    }
    return w.obj;
}

typedef struct board_walk {
    cJSON *list;
    int64_t now;
    int limit, n;
    bool failed;
} board_walk;

static int board_cb(void *arg, const store_rating *row)
{
    board_walk *w = arg;
    rating r;
    row_now(row, w->now, &r);
    /* Inactivity may have made an established player provisional again. */
    if (rating_provisional(&r))
        return 0;
    cJSON *e = values_json(&r);
    if (!e || !cJSON_AddNumberToObject(e, "rank", w->n + 1) ||
        !cJSON_AddStringToObject(e, "username", row->username) ||
        !cJSON_AddBoolToObject(e, "bot", row->bot) || !cJSON_AddItemToArray(w->list, e)) {
        cJSON_Delete(e);
        w->failed = true;
        return 1;
    }
    return ++w->n >= w->limit;
}

cJSON *ratings_board_json(gsvc *s, const char *family, int limit)
{
    board_walk w = {cJSON_CreateArray(), svc_now(s), limit, 0, false};
    /* Stored RD only grows with time, so rd <= 110 stored is necessary. */
    if (!w.list || store_ratings_board(s->store, family, RATING_PROVISIONAL_RD, board_cb, &w) < 0 ||
        w.failed) {
        cJSON_Delete(w.list);
        return NULL;
    }
    return w.list;
}
