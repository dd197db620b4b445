/*
 * ops_records: export, import (docs/protocol.md "export", "import"), and
 * the search filters `games` shares with `export` (ops_search_filter()).
 *
 * export pages: one request answers at most `limit` (1..100) records,
 * oldest first, and `next` (the last game id of a full page) continues
 * after it. So a client pages through any number of games while the
 * server holds one page at a time: memory stays flat in the number of
 * games exported (bench/export.c measures it).
 *
 * With a `tournament` filter (and no `user`) export lists every game of
 * that tournament, not the viewer's, to whoever tourney_may_see() lets
 * see them: an organiser who does not play exports the whole event.
 * Every export shows only games the viewer may see
 * (tourney_game_may_see(); for a page, the store's query does it:
 * store_game_filter.viewer_id): one game answers forbidden, a page leaves
 * them out.
 *
 * import parses and validates the whole text first (qk_pdn_read(): every
 * record ply by ply with the rules), then refuses what the store cannot
 * hold (names over 32 bytes), and only then writes: bad input never
 * reaches a write, and the import is one batch, all or nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/ops.h"
#include "game/auth.h"
#include "game/games.h"
#include "game/records.h"
#include "game/tourney.h"
#include "qk_pdn.h"

#define EXPORT_LIMIT_MAX 100

bool ops_search_filter(req *r, store_game_filter *f)
{
    const char *result = req_str(r, "result");
    uint64_t since = 0, until = 0, tournament = 0;
    if (result && strcmp(result, "white") && strcmp(result, "black") && strcmp(result, "draw")) {
        req_error(r, QK_ERR_BAD_REQUEST, "result must be white, black or draw");
        return false;
    }
    bool has_since = req_uint(r, "since", &since), has_until = req_uint(r, "until", &until);
    if (has_until && until == 0) {
        req_error(r, QK_ERR_BAD_REQUEST, "until must be a time after 0 (UTC ms)");
        return false;
    }
    if (has_since && has_until && until < since) {
        req_error(r, QK_ERR_BAD_REQUEST, "until is before since");
        return false;
    }
    req_uint(r, "tournament", &tournament);
    f->result = result;
    f->since = (int64_t)since;
    f->until = (int64_t)until; /* inclusive */
    f->tournament = (int64_t)tournament;
    if (req_field(r, "imported"))
        f->imported = req_bool(r, "imported", false) ? 1 : -1;
    return true;
}

/* user and opponent of r into f (user default: the viewer). */
static bool players(req *r, store_game_filter *f)
{
    const char *names[2] = {req_str(r, "user"), req_str(r, "opponent")};
    int64_t *ids[2] = {&f->user_id, &f->opponent_id};
    for (int i = 0; i < 2; i++) {
        if (!names[i])
            continue;
        store_user u;
        if (!auth_username_valid(names[i])) {
            req_error(r, QK_ERR_BAD_REQUEST,
                      i == 0 ? "\"user\" is not a username (1-32 of A-Z a-z 0-9 _ -)"
                             : "\"opponent\" is not a username (1-32 of A-Z a-z 0-9 _ -)");
            return false;
        }
        int rc = store_user_by_name(r->api->svc->store, names[i], &u);
        if (rc != STORE_OK) {
            req_error(r, rc == STORE_NOTFOUND ? QK_ERR_NOT_FOUND : QK_ERR_INTERNAL,
                      rc == STORE_NOTFOUND ? "no such user" : NULL);
            return false;
        }
        *ids[i] = u.id;
    }
    return true;
}

/* A `tournament` filter: the tournament's games, all of them (no default
 * user) for whoever may see them (tourney_may_see(): its organiser need
 * not play), else answered with its error. `user` and `opponent` still
 * narrow it (players() runs after). */
static bool tournament_games(req *r, store_game_filter *f)
{
    const char *why = NULL;
    qk_err e = tourney_may_see(r->api->svc, f->tournament, r->sess->user_id, &why);
    if (e) {
        req_error(r, e, why);
        return false;
    }
    f->user_id = 0;
    return true;
}

/* Add g's record (PDN text or game object) to list. */
static bool add_record(api *s, cJSON *list, const game *g, bool json)
{
    cJSON *item = NULL;
    if (json) {
        item = games_json(s->svc->games, g, false);
    } else {
        char *text;
        size_t len;
        if (records_pdn(s->svc, g, &text, &len) != 0)
            return false;
        item = cJSON_CreateString(text);
        free(text);
    }
    if (!item || !cJSON_AddItemToArray(list, item)) {
        cJSON_Delete(item);
        return false;
    }
    return true;
}

typedef struct page {
    int64_t ids[EXPORT_LIMIT_MAX];
    size_t n;
} page;

static int page_cb(void *arg, const store_game *g)
{
    page *p = arg;
    p->ids[p->n++] = g->id;
    return p->n == EXPORT_LIMIT_MAX;
}

void op_export(req *r)
{
    api *s = r->api;
    const char *format = req_str(r, "format"), *variant = req_str(r, "variant");
    uint64_t limit = EXPORT_LIMIT_MAX, after = 0, id = 0;
    store_game_filter f = {
        .user_id = r->sess->user_id, .ascending = true, .viewer_id = r->sess->user_id};
    qk_variant v;
    if (format && strcmp(format, "pdn") && strcmp(format, "json")) {
        req_error(r, QK_ERR_BAD_REQUEST, "format must be pdn or json");
        return;
    }
    bool json = format && strcmp(format, "json") == 0;
    if (req_uint(r, "limit", &limit) && (limit < 1 || limit > EXPORT_LIMIT_MAX)) {
        req_error(r, QK_ERR_BAD_REQUEST, "limit must be from 1 to 100");
        return;
    }
    if (variant && qk_variant_parse(variant, &v) != QK_OK) {
        req_error(r, QK_ERR_BAD_REQUEST, "unknown variant");
        return;
    }
    if (!ops_search_filter(r, &f))
        return;
    page p = {.n = 0};
    if (req_uint(r, "game", &id)) {
        game *g;
        int rc = games_get(s->svc->games, (int64_t)id, &g);
        if (rc != STORE_OK) {
            req_error(r, rc == STORE_NOTFOUND ? QK_ERR_NOT_FOUND : QK_ERR_INTERNAL,
                      rc == STORE_NOTFOUND ? "no such game" : NULL);
            return;
        }
        const char *why;
        qk_err e = tourney_game_may_see(s->svc, g, r->sess->user_id, &why);
        if (e) {
            req_error(r, e, why);
            return;
        }
        p.ids[p.n++] = g->id;
        limit = 0; /* one game: no next page */
    } else {
        if (f.tournament > 0 && !tournament_games(r, &f))
            return;
        if (!players(r, &f))
            return;
        req_uint(r, "after", &after);
        f.variant = variant ? v.name : NULL;
        f.after = (int64_t)after;
        f.limit = (int64_t)limit;
        if (store_games_query(s->svc->store, &f, page_cb, &p) < 0) {
            req_error(r, QK_ERR_INTERNAL, NULL);
            return;
        }
    }
    cJSON *res = req_ok(r), *list = res ? cJSON_AddArrayToObject(res, "records") : NULL;
    bool ok = list != NULL;
    for (size_t i = 0; ok && i < p.n; i++) {
        game *g;
        /* The store left out what the viewer may not see (f.viewer_id:
         * private games of others, a class-only tournament's games), so
         * a full page is limit records and next follows the last. */
        ok = games_get(s->svc->games, p.ids[i], &g) == STORE_OK && add_record(s, list, g, json);
    }
    if (ok && limit > 0 && p.n == limit)
        ok = cJSON_AddNumberToObject(res, "next", (double)p.ids[p.n - 1]) != NULL;
    else if (ok)
        ok = cJSON_AddNullToObject(res, "next") != NULL;
    if (!ok) {
        cJSON_Delete(res);
        res = NULL;
    }
    req_reply(r, res);
}

/* The error answer for a refused import text. */
static void import_error(req *r, const qk_pdn_error *e)
{
    if (e->code == QK_PDN_ENOMEM) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    bool illegal = e->code == QK_PDN_EILLEGAL;
    cJSON *err = req_error_new(r, illegal ? QK_ERR_ILLEGAL_MOVE : QK_ERR_BAD_REQUEST, e->message);
    if (err && (!cJSON_AddNumberToObject(err, "record", (double)e->record) ||
                !cJSON_AddNumberToObject(err, illegal ? "ply" : "line",
                                         illegal ? (double)e->ply : (double)e->line))) {
        cJSON_Delete(err);
        err = NULL;
    }
    req_reply_error(r, err);
}

void op_import(req *r)
{
    const char *text = req_str(r, "pdn");
    size_t len = strlen(text);
    qk_pdn_record *recs = NULL;
    size_t n = 0;
    qk_pdn_error e;
    memset(&e, 0, sizeof e);
    if (qk_pdn_read(text, len, &recs, &n, &e) != QK_PDN_OK) {
        import_error(r, &e);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const char *why = records_refuse(&recs[i]);
        if (why) {
            e = (qk_pdn_error){.code = QK_PDN_ESYNTAX, .record = i, .line = recs[i].variant_line};
            snprintf(e.message, sizeof e.message, "record %zu: %s", i, why);
            qk_pdn_free_all(recs, n);
            import_error(r, &e);
            return;
        }
    }
    int64_t *ids = malloc(n * sizeof *ids);
    cJSON *res = NULL, *list;
    if (ids && svc_write_begin(r->api->svc) == 0 &&
        records_import(r->api->svc, r->sess->user_id, recs, n, ids) == STORE_OK &&
        (res = req_ok(r)) && (list = cJSON_AddArrayToObject(res, "games"))) {
        for (size_t i = 0; i < n && res; i++) {
            cJSON *idj = cJSON_CreateNumber((double)ids[i]);
            if (!idj || !cJSON_AddItemToArray(list, idj)) {
                cJSON_Delete(idj);
                cJSON_Delete(res);
                res = NULL;
            }
        }
    } else if (res) {
        cJSON_Delete(res);
        res = NULL;
    }
    free(ids);
    qk_pdn_free_all(recs, n);
    req_reply(r, res);
}
