/*
 * ops_game: games, game, move, resign, subscribe, unsubscribe.
 *
 * `move` answers in the order of PROTOCOL.md "Validation rules":
 * unauthenticated (dispatcher), bad_request (dispatcher and the shape of
 * a path), not_found, forbidden (not a player), game_over, then the ply
 * (the same move by the same player at the ply just played is ok with
 * "duplicate": true; any other ply but the current one is stale_ply with
 * the current "ply"), not_your_turn, illegal_move (with "legal_moves").
 * A move text that is not even move syntax for the board is an
 * illegal_move too: only the rules, after the game is known, can tell.
 * The message says which: "not move text for this board: ..." (or a
 * path point off the board), "capture is compulsory in this variant
 * (RULES.md section N)" for a step when every legal move is a capture in
 * a variant that makes capture compulsory, else "not a legal move here".
 *
 * The path form is turned into text and parsed like a text move, never
 * matched against the list of legal moves: qk_move_parse() works in any
 * position, the list stops at QK_MAX_MOVES.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game/auth.h"
#include "game/corr.h"
#include "game/events.h"
#include "game/games.h"
#include "util/log.h"
#include "game/notify.h"
#include "game/tourney.h"
#include "api/ops.h"
#include "store/store_corr.h"

static bool add_game(cJSON *res, const char *name, games *gs, const game *g, bool legal)
{
    cJSON *gj = games_json(gs, g, legal);
    if (!gj || !cJSON_AddItemToObject(res, name, gj)) {
        cJSON_Delete(gj);
        return false;
    }
    return true;
}

/* Load the game named by r's "game" field; answers not_found/internal and
 * returns NULL when there is none. */
static game *load_game(req *r)
{
    uint64_t id = 0;
    game *g = NULL;
    req_uint(r, "game", &id);
    int rc = games_get(r->api->svc->games, (int64_t)id, &g);
    if (rc != STORE_OK)
        ops_game_error(r, rc, (int64_t)id);
    return rc == STORE_OK ? g : NULL;
}

/* stale_ply with the ply g holds (PROTOCOL.md: the client resyncs). */
static void stale_ply(req *r, const game *g)
{
    cJSON *err = req_error_new(r, QK_ERR_STALE_PLY, NULL);
    if (err && !cJSON_AddNumberToObject(err, "ply", (double)g->ply)) {
        cJSON_Delete(err);
        err = NULL;
    }
    req_reply_error(r, err);
}

void ops_game_changed(req *r, int64_t id)
{
    game *g = NULL;
    int rc = games_get(r->api->svc->games, id, &g);
    if (rc != STORE_OK)
        ops_game_error(r, rc, id);
    else if (g->status != GAME_ACTIVE)
        ops_game_over(r, g);
    else
        stale_ply(r, g);
}

void ops_game_error(req *r, int rc, int64_t id)
{
    char buf[64];
    if (rc == STORE_NOTFOUND) {
        req_error(r, QK_ERR_NOT_FOUND, "no such game");
    } else if (rc == GAMES_EDAMAGED) {
        snprintf(buf, sizeof buf, "game %lld is damaged", (long long)id);
        req_error(r, QK_ERR_INTERNAL, buf);
    } else {
        req_error(r, QK_ERR_INTERNAL, NULL);
    }
}

static bool is_player(const game *g, int64_t user)
{
    return g->white.id == user || g->black.id == user;
}

void ops_drop_hidden_subs(api *s, conn *c)
{
    session *se = session_of(c);
    for (int i = se->nsubs; i-- > 0;) {
        int64_t id = se->subs[i]->key;
        game *g;
        const char *why;
        /* A store failure drops the subscription too: the new user may
         * subscribe again, and is then asked properly. */
        if (games_get(s->svc->games, id, &g) == STORE_OK &&
            tourney_game_may_see(s->svc, g, se->user_id, &why) != QK_ERR_NONE)
            session_unsubscribe(s, c, id);
    }
}

void ops_game_over(req *r, const game *g)
{
    char why[128];
    const char *res = qk_result_name(g->result), *reason = qk_reason_name(g->reason);
    if (g->reason == QK_REASON_TIMEOUT)
        snprintf(why, sizeof why, "the game is over: %s ran out of time",
                 g->result == QK_RESULT_WHITE ? "black" : "white");
    else if (g->status == GAME_ABORTED)
        snprintf(why, sizeof why, "the game was aborted");
    else
        snprintf(why, sizeof why, "the game is over (%s)", reason ? reason : "finished");
    cJSON *err = req_error_new(r, QK_ERR_GAME_OVER, why);
    if (err && (!(res ? cJSON_AddStringToObject(err, "result", res)
                      : cJSON_AddNullToObject(err, "result")) ||
                !(reason ? cJSON_AddStringToObject(err, "reason", reason)
                         : cJSON_AddNullToObject(err, "reason")))) {
        cJSON_Delete(err);
        err = NULL;
    }
    req_reply_error(r, err);
}

bool ops_active_after_flag(req *r, game *g)
{
    int64_t id = g->id;
    int rc = g->status == GAME_ACTIVE ? corr_check_time(r->api->svc, g) : 0;
    if (rc < 0) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        return false;
    }
    if (rc == 3) { /* g is gone (corr.h) */
        ops_game_changed(r, id);
        return false;
    }
    if (g->status != GAME_ACTIVE) {
        ops_game_over(r, g);
        return false;
    }
    return true;
}

/* Whether the caller may see g (tourney_game_may_see(): a private game
 * or a class-only tournament's game is not everyone's); else answers
 * forbidden (or internal). */
static bool may_watch(req *r, const game *g)
{
    const char *why;
    qk_err e = tourney_game_may_see(r->api->svc, g, r->sess->user_id, &why);
    if (e == QK_ERR_NONE)
        return true;
    req_error(r, e, why);
    return false;
}

/* ---- listing ---------------------------------------------------------- */

/* The rows of a listing, copied out of the query (the objects are built
 * after it: building reads other rows). */
typedef struct row_list {
    store_game *rows;
    size_t n, cap;
} row_list;

static int collect_cb(void *arg, const store_game *g)
{
    row_list *l = arg;
    l->rows[l->n++] = *g;
    return l->n == l->cap;
}

/* Add "games": the games matching f (newest first), as objects. f must
 * set viewer_id: a listing must not show what `game` and `subscribe`
 * refuse (private games of others, a class-only tournament's games), and
 * the store leaves those out in the query itself, so a page holds
 * f->limit games whenever as many are visible and `next` is right. */
/* Only active games come from the games cache; finished and aborted ones
 * are built from their rows (games_from_row(): no replay through the
 * rules, issue 9 item 11). A damaged game is left out, and its id added
 * to damaged when given (login), so one bad game never breaks a list. */
static bool add_games(api *s, cJSON *res, const store_game_filter *f, bool legal, cJSON *damaged,
                      int64_t *next)
{
    row_list l = {NULL, 0, f->limit > 0 && f->limit < OPS_LOGIN_GAMES_MAX ? (size_t)f->limit
                                                                           : OPS_LOGIN_GAMES_MAX};
    cJSON *list = cJSON_AddArrayToObject(res, "games");
    if (!list || !(l.rows = malloc(l.cap * sizeof *l.rows)))
        return false;
    bool ok = store_games_query(s->svc->store, f, collect_cb, &l) >= 0;
    if (next) /* a full page may have more after it (records: `next`) */
        *next = ok && l.n > 0 && (int64_t)l.n == f->limit ? l.rows[l.n - 1].id : 0;
    for (size_t i = 0; ok && i < l.n; i++) {
        const store_game *row = &l.rows[i];
        bool active = strcmp(row->status, "active") == 0;
        game *g = NULL;
        int rc = active ? games_get(s->svc->games, row->id, &g)
                        : games_from_row(s->svc->games, row, &g);
        if (rc == GAMES_EDAMAGED) {
            cJSON *id = damaged ? cJSON_CreateNumber((double)row->id) : NULL;
            if (damaged && (!id || !cJSON_AddItemToArray(damaged, id))) {
                cJSON_Delete(id);
                ok = false;
            }
            continue;
        }
        if (rc != STORE_OK) {
            ok = false;
            break;
        }
        cJSON *gj = games_json(s->svc->games, g, legal);
        if (!gj || !cJSON_AddItemToArray(list, gj)) {
            cJSON_Delete(gj);
            ok = false;
        }
        if (!active)
            games_release(g);
    }
    free(l.rows);
    return ok;
}

bool ops_add_active_games(api *s, cJSON *res, int64_t user_id)
{
    store_game_filter f = {
        .user_id = user_id, .status = "active", .limit = OPS_LOGIN_GAMES_MAX, .viewer_id = user_id};
    cJSON *damaged = cJSON_AddArrayToObject(res, "damaged_games");
    return damaged && add_games(s, res, &f, true, damaged, NULL);
}

void op_games(req *r)
{
    api *s = r->api;
    const char *status = req_str(r, "status"), *turn = req_str(r, "turn");
    const char *user = req_str(r, "user"), *variant = req_str(r, "variant");
    uint64_t limit = OPS_GAMES_LIMIT_DEFAULT, before = 0;
    store_game_filter f = {.user_id = r->sess->user_id, .viewer_id = r->sess->user_id};
    qk_variant v;
    if (status && strcmp(status, "active") && strcmp(status, "finished") &&
        strcmp(status, "aborted")) {
        req_error(r, QK_ERR_BAD_REQUEST, "status must be active, finished or aborted");
        return;
    }
    if (turn && strcmp(turn, "mine") != 0) {
        req_error(r, QK_ERR_BAD_REQUEST, "turn must be \"mine\"");
        return;
    }
    if (variant && qk_variant_parse(variant, &v) != QK_OK) {
        req_error(r, QK_ERR_BAD_REQUEST, "unknown variant");
        return;
    }
    if (req_uint(r, "limit", &limit) && (limit < 1 || limit > OPS_GAMES_LIMIT_MAX)) {
        req_error(r, QK_ERR_BAD_REQUEST, "limit must be from 1 to 200");
        return;
    }
    req_uint(r, "before", &before);
    uint64_t after = 0;
    if (req_uint(r, "after", &after) && (after < before || !before))
        before = after; /* `next` of the last page: games older than it */
    if (!ops_search_filter(r, &f))
        return;
    const char *opponent = req_str(r, "opponent");
    if ((user && !auth_username_valid(user)) || (opponent && !auth_username_valid(opponent))) {
        req_error(r, QK_ERR_BAD_REQUEST,
                  user && !auth_username_valid(user)
                      ? "\"user\" is not a username (1-32 of A-Z a-z 0-9 _ -)"
                      : "\"opponent\" is not a username (1-32 of A-Z a-z 0-9 _ -)");
        return;
    }
    if (opponent) {
        store_user u;
        int rc = store_user_by_name(s->svc->store, opponent, &u);
        if (rc != STORE_OK) {
            req_error(r, rc == STORE_NOTFOUND ? QK_ERR_NOT_FOUND : QK_ERR_INTERNAL,
                      rc == STORE_NOTFOUND ? "no such user" : NULL);
            return;
        }
        f.opponent_id = u.id;
    }
    if (user) {
        store_user u;
        int rc = store_user_by_name(s->svc->store, user, &u);
        if (rc == STORE_NOTFOUND) {
            req_error(r, QK_ERR_NOT_FOUND, "no such user");
            return;
        }
        if (rc != STORE_OK) {
            req_error(r, QK_ERR_INTERNAL, NULL);
            return;
        }
        f.user_id = u.id;
    }
    f.status = status;
    f.variant = variant ? v.name : NULL;
    f.turn_user_id = turn ? r->sess->user_id : 0;
    f.before = (int64_t)before;
    f.limit = (int64_t)limit;
    cJSON *res = req_ok(r);
    int64_t next = 0;
    if (res && (!add_games(s, res, &f, false, NULL, &next) ||
                !(next > 0 && !turn ? cJSON_AddNumberToObject(res, "next", (double)next)
                                    : cJSON_AddNullToObject(res, "next")))) {
        cJSON_Delete(res);
        res = NULL;
    }
    req_reply(r, res);
}

void op_game(req *r)
{
    game *g = load_game(r);
    if (!g || !may_watch(r, g))
        return;
    cJSON *res = req_ok(r);
    if (res && !add_game(res, "game", r->api->svc->games, g, true)) {
        cJSON_Delete(res);
        res = NULL;
    }
    req_reply(r, res);
}

/* ---- move ------------------------------------------------------------- */

/* The move of a request: text, or a path of points. */
typedef struct move_in {
    const char *text; /* NULL for the path form */
    int npath;
    int path[QK_MAX_PATH];
    const char *names[QK_MAX_PATH];
} move_in;

/* Shape of the path form (before the game is known): bad_request. */
static int move_shape(req *r, move_in *in)
{
    const cJSON *mv = req_field(r, "move");
    memset(in, 0, sizeof *in);
    if (cJSON_IsString(mv)) {
        in->text = mv->valuestring;
        return 0;
    }
    const cJSON *path = cJSON_GetObjectItemCaseSensitive(mv, "path");
    int n = cJSON_GetArraySize(path);
    if (!cJSON_IsArray(path) || n < 2 || n > QK_MAX_PATH) {
        req_error(r, QK_ERR_BAD_REQUEST, "move.path must be a list of 2 to 32 point names");
        return -1;
    }
    const cJSON *p;
    cJSON_ArrayForEach(p, path)
    {
        if (!cJSON_IsString(p)) {
            req_error(r, QK_ERR_BAD_REQUEST, "move.path must be a list of point names");
            return -1;
        }
        in->names[in->npath++] = p->valuestring;
    }
    return 0;
}

static bool path_equal(const move_in *in, const qk_move *m)
{
    if (in->npath != m->len)
        return false;
    for (int i = 0; i < in->npath; i++)
        if (in->path[i] != m->path[i])
            return false;
    return true;
}

/* Resolve the path's point names on g's board; the first name that is
 * off it, or NULL. */
static const char *path_points(const game *g, move_in *in)
{
    for (int i = 0; i < in->npath; i++)
        if (qk_point_parse(&g->v, in->names[i], &in->path[i]) != QK_OK)
            return in->names[i];
    return NULL;
}

/* Find the legal move whose landing points are in->path. A path is
 * written with '-' when it is a step or a (long-Sultan) slide and with 'x'
 * when it is a capture; the two are never both legal for one pair of
 * points (a slide needs the points between empty, a capture an enemy on
 * them), so the first text that parses is the move. */
static bool path_move(const game *g, const move_in *in, qk_move *m)
{
    static const char seps[] = {'-', 'x'};
    for (size_t k = 0; k < sizeof seps; k++) {
        char text[QK_MOVE_STRLEN];
        size_t len = 0;
        for (int i = 0; i < in->npath; i++) {
            /* Re-format each resolved point: names given in another spelling
             * the parser accepts still join into one clean text. */
            char name[8];
            int w = qk_point_format(&g->v, in->path[i], name, sizeof name);
            if (w < 0 || len + (size_t)w + 2 > sizeof text)
                return false;
            if (i > 0)
                text[len++] = seps[k];
            memcpy(text + len, name, (size_t)w);
            len += (size_t)w;
        }
        text[len] = '\0';
        if (qk_move_parse(&g->v, &g->pos, text, m) == QK_OK)
            return true;
    }
    return false;
}

/* Whether the refused move is a step: text "P-Q" or a path of two points,
 * P and Q joined by a line of the board. Then "capture is compulsory" is
 * the reason worth giving; the geometry is the rules module's. */
static bool is_step(const game *g, const move_in *in)
{
    if (!in->text)
        return in->npath == 2 && qk_points_linked(&g->v, in->path[0], in->path[1]);
    const char *dash = strchr(in->text, '-');
    char left[8];
    int a, b;
    size_t n = dash ? (size_t)(dash - in->text) : 0;
    if (!dash || n >= sizeof left)
        return false;
    memcpy(left, in->text, n);
    left[n] = '\0';
    return qk_point_parse(&g->v, left, &a) == QK_OK &&
           qk_point_parse(&g->v, dash + 1, &b) == QK_OK && qk_points_linked(&g->v, a, b);
}

/* "not move text for this board: "TEXT"", TEXT cut at a UTF-8 boundary. */
static void not_move_text(char *buf, size_t n, const char *what, const char *tail)
{
    char clip[72];
    size_t len = strlen(what);
    if (len >= sizeof clip - 4) {
        len = sizeof clip - 4;
        while (len > 0 && ((unsigned char)what[len] & 0xC0) == 0x80)
            len--; /* do not split a character */
        memcpy(clip, what, len);
        memcpy(clip + len, "...", 4);
    } else {
        memcpy(clip, what, len + 1);
    }
    snprintf(buf, n, "not move text for this board: \"%s\"%s", clip, tail);
}

/* Answer illegal_move with the reason (rc: qk_move_parse's QK_EINVAL or
 * QK_EILLEGAL; bad_point: the path's name that is off the board) and the
 * legal moves. */
static void illegal(req *r, game *g, const move_in *in, int rc, const char *bad_point)
{
    char why[160];
    int section = qk_variant_capture_section(&g->v);
    if (bad_point)
        not_move_text(why, sizeof why, bad_point, " is not a point");
    else if (rc == QK_EINVAL)
        not_move_text(why, sizeof why, in->text, "");
    else if (section && is_step(g, in) && qk_pos_must_capture(&g->v, &g->pos))
        snprintf(why, sizeof why, "capture is compulsory in this variant (RULES.md section %d)",
                 section);
    else
        snprintf(why, sizeof why, "not a legal move here");
    cJSON *err = req_error_new(r, QK_ERR_ILLEGAL_MOVE, why);
    if (err && games_add_legal(r->api->svc->games, g, err) != 0) {
        cJSON_Delete(err);
        err = NULL;
    }
    req_reply_error(r, err);
}

/* The fields of the `move` event about g's last move into o (the event,
 * or a compact answer). false on allocation failure. */
static bool add_move_fields(api *s, const game *g, cJSON *o)
{
    char pos[QK_POS_STRLEN];
    return games_position(g, pos) == 0 && qk_json_add_int(o, "game", g->id) &&
           qk_json_add_int(o, "ply", g->ply - 1) &&
           cJSON_AddStringToObject(o, "move", g->moves[g->ply - 1]) &&
           cJSON_AddStringToObject(o, "position", pos) &&
           cJSON_AddStringToObject(o, "turn", games_side_name((qk_side)g->pos.side)) &&
           (g->deadline >= 0 ? qk_json_add_int(o, "deadline", g->deadline)
                             : cJSON_AddNullToObject(o, "deadline")) &&
           games_add_clock(s->svc->games, g, o) &&
           cJSON_AddStringToObject(o, "status", games_status_name(g->status)) &&
           games_add_legal(s->svc->games, g, o) == 0;
}

/* The move's fields (add_move_fields), printed once for the move event
 * and the compact answer, which carry the same ones. malloc'd text
 * ("{...}\n") or NULL on allocation failure. */
static char *move_fields_text(api *s, const game *g)
{
    cJSON *f = cJSON_CreateObject();
    size_t len;
    char *text = f && add_move_fields(s, g, f) ? qk_proto_print(f, &len) : NULL;
    cJSON_Delete(f);
    return text;
}

/* head's members followed by fields (move_fields_text), or NULL. head is
 * deleted. */
static cJSON *with_fields(cJSON *head, const char *fields)
{
    cJSON *msg = head && fields ? qk_proto_splice(head, fields) : NULL;
    cJSON_Delete(head);
    return msg;
}

/* Queue the move event (game_end, if the move ended the game, is
 * notify_game_over's). */
static void move_events(api *s, const game *g, const char *fields)
{
    events_to_game(s->svc, g, "move", with_fields(qk_proto_event("move"), fields));
}

static void reply_game(req *r, const game *g, bool duplicate)
{
    cJSON *res = req_ok(r);
    if (res && ((duplicate && !cJSON_AddTrueToObject(res, "duplicate")) ||
                !add_game(res, "game", r->api->svc->games, g, true))) {
        cJSON_Delete(res);
        res = NULL;
    }
    req_reply(r, res);
}

/* The answer to `move` with "compact": true (docs/protocol.md): the move
 * event's fields, not the whole game object, whose move list grows with
 * the game (docs/perf.md). fields: move_fields_text(), or NULL to print
 * them here. */
static void reply_move(req *r, const game *g, bool duplicate, bool compact, const char *fields)
{
    if (!compact) {
        reply_game(r, g, duplicate);
        return;
    }
    char *own = fields ? NULL : move_fields_text(r->api, g);
    cJSON *res = req_ok(r);
    if (res && duplicate && !cJSON_AddTrueToObject(res, "duplicate")) {
        cJSON_Delete(res);
        res = NULL;
    }
    req_reply(r, with_fields(res, fields ? fields : own));
    free(own);
}

void op_move(req *r)
{
    api *s = r->api;
    int64_t me = r->sess->user_id;
    move_in in;
    uint64_t ply;
    bool has_ply = req_uint(r, "ply", &ply);
    bool compact = req_bool(r, "compact", false);
    if (move_shape(r, &in) != 0)
        return;
    game *g = load_game(r);
    if (!g)
        return;
    if (!is_player(g, me)) {
        req_error(r, QK_ERR_FORBIDDEN, "you do not play in this game");
        return;
    }
    if (!ops_active_after_flag(r, g))
        return;
    const char *bad_point = in.text ? NULL : path_points(g, &in);
    bool points_ok = !bad_point;
    if (has_ply && (int64_t)ply != g->ply) {
        if ((int64_t)ply + 1 == g->ply && g->last_mover == me &&
            (in.text ? strcmp(in.text, g->moves[ply]) == 0
                     : points_ok && path_equal(&in, &g->last_move))) {
            reply_move(r, g, true, compact, NULL);
            return;
        }
        stale_ply(r, g);
        return;
    }
    if (games_turn_user(g) != me) {
        req_error(r, QK_ERR_NOT_YOUR_TURN, NULL);
        return;
    }
    qk_move m;
    /* A path of points on the board joins into well-formed text: only
     * its legality is in question. */
    int prc = QK_EINVAL;
    if (in.text)
        prc = qk_move_parse(&g->v, &g->pos, in.text, &m);
    else if (points_ok)
        prc = path_move(g, &in, &m) ? QK_OK : QK_EILLEGAL;
    if (prc != QK_OK) {
        illegal(r, g, &in, prc, bad_point);
        return;
    }
    if (svc_write_begin(s->svc) != 0) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    int rc = games_play(s->svc->games, g, &m, me);
    if (rc == GAMES_ESTALE) {
        /* Another node took this ply (issue 22): answered as a stale ply
         * on one node is, with the ply the database holds now. */
        if ((g = load_game(r)) != NULL)
            stale_ply(r, g);
        return;
    }
    if (rc != STORE_OK) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    /* Events first: when a client reads the answer it has seen them all. */
    char *fields = move_fields_text(s, g);
    move_events(s, g, fields);
    if (g->status != GAME_ACTIVE)
        notify_game_over(s->svc, g);
    else
        notify_turn_if_away(s->svc, g);
    reply_move(r, g, false, compact, fields);
    free(fields);
}

/* ---- resign, subscribe ------------------------------------------------ */

void op_resign(req *r)
{
    api *s = r->api;
    int64_t me = r->sess->user_id;
    game *g = load_game(r);
    if (!g)
        return;
    if (!is_player(g, me)) {
        req_error(r, QK_ERR_FORBIDDEN, "you do not play in this game");
        return;
    }
    if (!ops_active_after_flag(r, g))
        return;
    qk_result winner = g->white.id == me ? QK_RESULT_BLACK : QK_RESULT_WHITE;
    int64_t gid = g->id;
    int rc = svc_write_begin(s->svc) != 0 ? STORE_EIO
                                          : games_finish(s->svc->games, g, winner, QK_REASON_RESIGN);
    if (rc == GAMES_ESTALE) {
        ops_game_changed(r, gid);
        return;
    }
    if (rc != STORE_OK) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    notify_game_over(s->svc, g);
    reply_game(r, g, false);
}

void op_subscribe(req *r)
{
    game *g = load_game(r);
    if (!g || !may_watch(r, g))
        return;
    int rc = session_subscribe(r->api, r->conn, g->id);
    if (rc < 0) {
        req_error(r, QK_ERR_CONFLICT, "at most 64 subscriptions per connection");
        return;
    }
    reply_game(r, g, false);
}

void op_unsubscribe(req *r)
{
    uint64_t id = 0;
    req_uint(r, "game", &id);
    session_unsubscribe(r->api, r->conn, (int64_t)id);
    req_reply(r, req_ok(r));
}
