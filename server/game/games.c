/*
 * games: see games.h. The cache is a registry (id -> game); games that
 * stop being active are listed as they do, so games_trim() costs what
 * changed, not the size of the cache. The move buffer for qk_movegen_sorted() lives in the service, not on the stack,
 * because QK_MAX_MOVES moves are ~70 KB.
 */
#include "game/games.h"

#include <stdlib.h>
#include <string.h>

#include "util/log.h"

struct games {
    gsvc *svc;
    registry cache;
    /* Ids of cached games that may have stopped being active since the
     * last games_trim(); full_trim when the list could not grow. */
    int64_t *trim;
    size_t ntrim, captrim;
    bool full_trim;
    qk_move scratch[QK_MAX_MOVES];
};

static void trim_later(games *gs, int64_t id)
{
    if (gs->ntrim == gs->captrim) {
        size_t cap = gs->captrim ? gs->captrim * 2 : 64;
        int64_t *t = realloc(gs->trim, cap * sizeof *t);
        if (!t) {
            gs->full_trim = true;
            return;
        }
        gs->trim = t;
        gs->captrim = cap;
    }
    gs->trim[gs->ntrim++] = id;
}

int games_new(gsvc *s, games **out)
{
    games *gs = calloc(1, sizeof *gs);
    if (!gs)
        return -1;
    gs->svc = s;
    reg_init(&gs->cache);
    *out = gs;
    return 0;
}

static void game_free(game *g)
{
    for (int64_t i = 0; i < g->row.ply && g->moves; i++)
        free(g->moves[i]);
    free(g->moves);
    free(g);
}

static void touch_undo(void *arg, int64_t id, void *ptr)
{
    (void)ptr;
    games_forget(arg, id);
}

void games_touch(games *gs, int64_t id)
{
    batch_on_undo(gs->svc->batch, touch_undo, NULL, gs, id, NULL);
}

void games_forget_all(games *gs)
{
    for (size_t b = 0; b < gs->cache.nbuckets; b++)
        for (reg_node *n = gs->cache.buckets[b]; n; n = n->next)
            game_free(n->val);
    reg_free(&gs->cache);
    gs->ntrim = 0;
}

void games_free(games *gs)
{
    if (!gs)
        return;
    games_forget_all(gs);
    free(gs->trim);
    free(gs);
}

static const char *side_name(const qk_pos *p)
{
    return p->side == QK_WHITE ? "white" : "black";
}

int64_t games_turn_user(const game *g)
{
    return g->pos.side == QK_WHITE ? g->row.white_id : g->row.black_id;
}

/* ---- loading ---------------------------------------------------------- */

static int push_move(game *g, const char *text)
{
    if ((size_t)g->row.ply == g->cap) {
        size_t cap = g->cap ? g->cap * 2 : 64;
        char **m = realloc(g->moves, cap * sizeof *m);
        if (!m)
            return -1;
        g->moves = m;
        g->cap = cap;
    }
    char *t = strdup(text);
    if (!t)
        return -1;
    g->moves[g->row.ply++] = t;
    return 0;
}

typedef struct replay {
    game *g;
    bool bad;
} replay;

static int replay_cb(void *arg, int64_t ply, const char *text, int64_t user_id)
{
    replay *rp = arg;
    game *g = rp->g;
    qk_move m;
    qk_undo u;
    if (ply != g->row.ply || qk_move_parse(&g->v, &g->pos, text, &m) != QK_OK) {
        log_error("game %lld: stored move %lld \"%s\" does not replay",
                  (long long)g->row.id, (long long)ply, text);
        rp->bad = true;
        return 1;
    }
    qk_pos_make(&g->v, &g->pos, &m, &u);
    if (push_move(g, text)) {
        rp->bad = true;
        return 1;
    }
    g->last_mover = user_id;
    g->last_move = m;
    return 0;
}

static int load(games *gs, int64_t id, game **out)
{
    game *g = calloc(1, sizeof *g);
    if (!g)
        return STORE_EIO;
    int rc = store_game_get(gs->svc->store, id, &g->row);
    if (rc == STORE_OK)
        rc = store_game_x_get(gs->svc->store, id, &g->x);
    if (rc)
        goto fail;
    rc = STORE_EIO;
    const char *why = "";
    if (qk_variant_parse(g->row.variant, &g->v) != QK_OK ||
        qk_pos_parse(&g->v, g->row.start, &g->pos, &why) != QK_OK ||
        tc_from_text(g->row.time_control, &g->tc) != 0) {
        log_error("game %lld: bad stored variant, start or time control %s", (long long)id, why);
        goto fail;
    }
    int64_t want_ply = g->row.ply;
    g->row.ply = 0; /* counts the replayed moves */
    replay rp = {g, false};
    if (store_moves_each(gs->svc->store, id, replay_cb, &rp) != STORE_OK || rp.bad)
        goto fail;
    if (g->row.ply != want_ply) {
        log_error("game %lld: %lld moves stored, row says ply %lld", (long long)id,
                  (long long)g->row.ply, (long long)want_ply);
        goto fail;
    }
    /* The rules decide: a stored position or turn that disagrees with the
     * replay is replaced by the replay's (the row is rewritten with the
     * next change of the game). */
    char pos[QK_POS_STRLEN];
    if (qk_pos_format(&g->v, &g->pos, pos, sizeof pos) < 0) {
        log_warn("game %lld: the replayed position cannot be formatted; keeping the stored one",
                 (long long)id);
    } else {
        if (strcmp(pos, g->row.position) != 0 || strcmp(side_name(&g->pos), g->row.turn) != 0)
            log_warn("game %lld: stored position or turn differs from the replay; using the replay",
                     (long long)id);
        memcpy(g->row.position, pos, sizeof pos);
        snprintf(g->row.turn, sizeof g->row.turn, "%s", side_name(&g->pos));
    }
    if (!reg_add(&gs->cache, id, g))
        goto fail;
    if (strcmp(g->row.status, "active") != 0)
        trim_later(gs, id);
    *out = g;
    return STORE_OK;
fail:
    game_free(g);
    return rc;
}

int games_get(games *gs, int64_t id, game **out)
{
    reg_node *n = reg_first(&gs->cache, id);
    if (n) {
        *out = n->val;
        return STORE_OK;
    }
    return load(gs, id, out);
}

void games_forget(games *gs, int64_t id)
{
    reg_node *n = reg_first(&gs->cache, id);
    if (!n)
        return;
    game_free(n->val);
    reg_remove(&gs->cache, n);
}

static void trim_one(games *gs, int64_t id)
{
    reg_node *n = reg_first(&gs->cache, id);
    if (n && strcmp(((game *)n->val)->row.status, "active") != 0) {
        game_free(n->val);
        reg_remove(&gs->cache, n);
    }
}

void games_trim(games *gs)
{
    for (size_t i = 0; i < gs->ntrim; i++)
        trim_one(gs, gs->trim[i]);
    gs->ntrim = 0;
    if (!gs->full_trim)
        return;
    gs->full_trim = false;
    for (size_t b = 0; b < gs->cache.nbuckets; b++) {
        reg_node *n = gs->cache.buckets[b];
        while (n) {
            reg_node *next = n->next;
            game *g = n->val;
            if (strcmp(g->row.status, "active") != 0) {
                game_free(g);
                reg_remove(&gs->cache, n);
            }
            n = next;
        }
    }
}

/* ---- changes ---------------------------------------------------------- */

/* Deadline of the side to move, from the row's clocks, at time now. */
static void set_deadline(game *g, int64_t now)
{
    g->row.deadline = -1;
    if (strcmp(g->row.status, "active") != 0)
        return;
    if (g->tc.kind == TC_CORRESPONDENCE)
        g->row.deadline = now + g->tc.days_per_move * TC_DAY_MS;
    else if (g->tc.kind == TC_LIVE)
        g->row.deadline = now + (g->pos.side == QK_WHITE ? g->row.white_ms : g->row.black_ms);
}

int games_start(games *gs, store_game *row, game **out)
{
    game *g = calloc(1, sizeof *g);
    if (!g)
        goto fail;
    const char *why = "";
    if (qk_variant_parse(row->variant, &g->v) != QK_OK ||
        qk_pos_parse(&g->v, row->start, &g->pos, &why) != QK_OK ||
        tc_from_text(row->time_control, &g->tc) != 0) {
        log_error("games_start: bad variant, start or time control %s", why);
        goto fail;
    }
    int64_t now = svc_now(gs->svc);
    row->ply = 0;
    memcpy(row->position, row->start, sizeof row->position);
    snprintf(row->turn, sizeof row->turn, "%s", side_name(&g->pos));
    snprintf(row->status, sizeof row->status, "active");
    row->result[0] = row->reason[0] = '\0';
    row->white_ms = row->black_ms = -1;
    if (g->tc.kind == TC_LIVE)
        row->white_ms = row->black_ms = (int64_t)g->tc.initial_s * 1000;
    row->created = row->updated = now;
    g->row = *row;
    set_deadline(g, now);
    row->deadline = g->row.deadline;
    if (store_game_insert(gs->svc->store, row) != STORE_OK)
        goto fail;
    g->row.id = row->id;
    games_touch(gs, row->id);
    g->x.vacation = true;
    g->x.warned_deadline = -1;
    if (games_put_x(gs, g) != STORE_OK)
        goto fail;
    if (!reg_add(&gs->cache, row->id, g))
        goto fail;
    *out = g;
    return STORE_OK;
fail:
    free(g);
    svc_poison(gs->svc);
    return STORE_EIO;
}

static void end_game(games *gs, game *g, qk_result result, qk_reason reason)
{
    trim_later(gs, g->row.id);
    snprintf(g->row.status, sizeof g->row.status, "%s",
             reason == QK_REASON_ABORTED ? "aborted" : "finished");
    const char *r = qk_result_name(result), *why = qk_reason_name(reason);
    snprintf(g->row.result, sizeof g->row.result, "%s", r ? r : "");
    snprintf(g->row.reason, sizeof g->row.reason, "%s", why ? why : "");
}

int games_play(games *gs, game *g, const qk_move *m, int64_t user_id)
{
    gsvc *s = gs->svc;
    int64_t now = svc_now(s);
    char text[QK_MOVE_STRLEN], pos[QK_POS_STRLEN];
    if (qk_move_format(&g->v, m, text, sizeof text) < 0)
        goto fail;
    games_touch(gs, g->row.id);
    if (store_move_insert(s->store, g->row.id, g->row.ply, text, user_id, now) != STORE_OK)
        goto fail;
    if (g->tc.kind == TC_LIVE) {
        int64_t *clock = g->pos.side == QK_WHITE ? &g->row.white_ms : &g->row.black_ms;
        int64_t left = *clock - (now - g->row.updated);
        *clock = (left > 0 ? left : 0) + (int64_t)g->tc.increment_s * 1000;
    }
    qk_undo u;
    qk_pos_make(&g->v, &g->pos, m, &u);
    if (push_move(g, text) || qk_pos_format(&g->v, &g->pos, pos, sizeof pos) < 0)
        goto fail;
    memcpy(g->row.position, pos, sizeof pos);
    snprintf(g->row.turn, sizeof g->row.turn, "%s", side_name(&g->pos));
    qk_result result;
    qk_reason reason;
    if (qk_pos_status(&g->v, &g->pos, &result, &reason))
        end_game(gs, g, result, reason);
    g->row.updated = now;
    set_deadline(g, now);
    g->last_mover = user_id;
    g->last_move = *m;
    g->x.draw_offer[0] = '\0'; /* a move declines a standing offer */
    if (store_game_update(s->store, &g->row) != STORE_OK || games_put_x(gs, g) != STORE_OK)
        goto fail;
    return STORE_OK;
fail:
    svc_poison(s);
    return STORE_EIO;
}

int games_finish(games *gs, game *g, qk_result result, qk_reason reason)
{
    gsvc *s = gs->svc;
    games_touch(gs, g->row.id);
    end_game(gs, g, result, reason);
    g->row.updated = svc_now(s);
    g->row.deadline = -1;
    g->x.draw_offer[0] = '\0';
    if (store_game_update(s->store, &g->row) != STORE_OK || games_put_x(gs, g) != STORE_OK) {
        svc_poison(s);
        return STORE_EIO;
    }
    return STORE_OK;
}

int games_put_x(games *gs, game *g)
{
    store_game_x *x = &g->x;
    x->wake_at = -1;
    if (strcmp(g->row.status, "active") == 0 && g->row.deadline >= 0) {
        x->wake_at = g->row.deadline;
        if (g->tc.kind == TC_CORRESPONDENCE && x->warned_deadline != g->row.deadline)
            x->wake_at = g->row.deadline - GAMES_WARN_MS;
    }
    gs->svc->wake_dirty = true; /* the deadline timer re-arms (corr.h) */
    if (store_game_x_put(gs->svc->store, g->row.id, x) != STORE_OK) {
        svc_poison(gs->svc);
        return STORE_EIO;
    }
    return STORE_OK;
}

int games_extend(games *gs, game *g, int64_t deadline, const char *kind)
{
    gsvc *s = gs->svc;
    int64_t ms = deadline - g->row.deadline;
    if (ms < 0 || g->row.deadline < 0)
        return STORE_OK;
    games_touch(gs, g->row.id);
    g->row.deadline = deadline;
    g->x.extended_ms += ms;
    if (store_extension_insert(s->store, g->row.id, kind, ms, svc_now(s)) != STORE_OK ||
        store_game_update(s->store, &g->row) != STORE_OK) {
        svc_poison(s);
        return STORE_EIO;
    }
    return games_put_x(gs, g);
}

int64_t games_time_left(const game *g, int64_t now)
{
    if (strcmp(g->row.status, "active") != 0 || g->row.deadline < 0)
        return -1;
    return g->row.deadline > now ? g->row.deadline - now : 0;
}

int games_legal(games *gs, const game *g, const qk_move **out, bool *truncated)
{
    *out = gs->scratch;
    if (truncated)
        *truncated = false;
    if (strcmp(g->row.status, "active") != 0)
        return 0;
    int n = qk_movegen_sorted(&g->v, &g->pos, gs->scratch, QK_MAX_MOVES);
    if (n == QK_ENOSPC) {
        /* The buffer holds QK_MAX_MOVES of them: say so rather than claim
         * there are none (which reads as "the game is over"). */
        log_warn("game %lld: more than %d legal moves, list truncated", (long long)g->row.id,
                 QK_MAX_MOVES);
        if (truncated)
            *truncated = true;
        return QK_MAX_MOVES;
    }
    if (n < 0) {
        log_error("game %lld: move generation failed (%d)", (long long)g->row.id, n);
        return 0;
    }
    return n;
}

bool games_too_many_moves(games *gs, const qk_variant *v, const qk_pos *p)
{
    return qk_movegen(v, p, gs->scratch, QK_MAX_MOVES) == QK_ENOSPC;
}

/* ---- JSON ------------------------------------------------------------- */

static bool add_str_or_null(cJSON *o, const char *name, const char *v)
{
    return v && *v ? cJSON_AddStringToObject(o, name, v) != NULL
                   : cJSON_AddNullToObject(o, name) != NULL;
}

static bool add_int_or_null(cJSON *o, const char *name, int64_t v)
{
    return v >= 0 ? cJSON_AddNumberToObject(o, name, (double)v) != NULL
                  : cJSON_AddNullToObject(o, name) != NULL;
}

static int ext_cb(void *arg, const char *kind, int64_t ms, int64_t created)
{
    cJSON *e = cJSON_CreateObject();
    if (!e || !cJSON_AddItemToArray(arg, e)) {
        cJSON_Delete(e);
        return 1;
    }
    return !cJSON_AddStringToObject(e, "kind", kind) ||
           !cJSON_AddNumberToObject(e, "ms", (double)ms) ||
           !cJSON_AddNumberToObject(e, "at", (double)created);
}

/* The correspondence fields (docs/protocol.md "Game object"): time left
 * now, live clocks now, extensions, options, the standing draw offer. */
static bool add_corr(games *gs, const game *g, cJSON *o)
{
    const store_game *r = &g->row;
    int64_t now = svc_now(gs->svc), left = games_time_left(g, now);
    if (!add_int_or_null(o, "time_left_ms", left))
        return false;
    if (g->tc.kind == TC_LIVE) {
        /* The side to move has used the time since the last move. */
        int64_t w = r->white_ms, b = r->black_ms;
        if (left >= 0 && g->pos.side == QK_WHITE)
            w = left;
        else if (left >= 0)
            b = left;
        cJSON *clock = cJSON_AddObjectToObject(o, "clock");
        if (!clock || !cJSON_AddNumberToObject(clock, "white_ms", (double)w) ||
            !cJSON_AddNumberToObject(clock, "black_ms", (double)b))
            return false;
    }
    cJSON *ext;
    if (!cJSON_AddNumberToObject(o, "extended_ms", (double)g->x.extended_ms) ||
        !(ext = cJSON_AddArrayToObject(o, "extensions")) ||
        (g->x.extended_ms > 0 && store_extensions_each(gs->svc->store, r->id, ext_cb, ext) != 0))
        return false;
    return cJSON_AddBoolToObject(o, "private", g->x.priv) &&
           cJSON_AddBoolToObject(o, "vacation", g->x.vacation) &&
           add_str_or_null(o, "draw_offer", g->x.draw_offer);
}

cJSON *games_json(games *gs, const game *g, bool with_legal)
{
    const store_game *r = &g->row;
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON *moves;
    if (!cJSON_AddNumberToObject(o, "id", (double)r->id) ||
        !cJSON_AddStringToObject(o, "variant", r->variant) ||
        !cJSON_AddStringToObject(o, "white", r->white) ||
        !cJSON_AddStringToObject(o, "black", r->black) ||
        !cJSON_AddBoolToObject(o, "white_bot", r->white_bot) ||
        !cJSON_AddBoolToObject(o, "black_bot", r->black_bot) ||
        !cJSON_AddBoolToObject(o, "rated", r->rated) ||
        !cJSON_AddStringToObject(o, "start", r->start) ||
        !(moves = cJSON_AddArrayToObject(o, "moves")))
        goto fail;
    for (int64_t i = 0; i < r->ply; i++) {
        cJSON *m = cJSON_CreateString(g->moves[i]);
        if (!m || !cJSON_AddItemToArray(moves, m)) {
            cJSON_Delete(m);
            goto fail;
        }
    }
    if (!cJSON_AddNumberToObject(o, "ply", (double)r->ply) ||
        !cJSON_AddStringToObject(o, "position", r->position) ||
        !cJSON_AddStringToObject(o, "turn", r->turn))
        goto fail;
    if (with_legal) {
        cJSON *legal = cJSON_AddArrayToObject(o, "legal_moves");
        if (!legal)
            goto fail;
        const qk_move *lm;
        bool truncated;
        int n = games_legal(gs, g, &lm, &truncated);
        if (truncated && !cJSON_AddTrueToObject(o, "legal_moves_truncated"))
            goto fail;
        for (int i = 0; i < n; i++) {
            char text[QK_MOVE_STRLEN];
            if (qk_move_format(&g->v, &lm[i], text, sizeof text) < 0)
                goto fail;
            cJSON *m = cJSON_CreateString(text);
            if (!m || !cJSON_AddItemToArray(legal, m)) {
                cJSON_Delete(m);
                goto fail;
            }
        }
    }
    cJSON *tcj = tc_to_json(&g->tc);
    if (!tcj || !cJSON_AddItemToObject(o, "time_control", tcj)) {
        cJSON_Delete(tcj);
        goto fail;
    }
    if (!cJSON_AddStringToObject(o, "status", r->status) ||
        !add_str_or_null(o, "result", r->result) || !add_str_or_null(o, "reason", r->reason) ||
        !add_int_or_null(o, "deadline", r->deadline) ||
        !cJSON_AddNumberToObject(o, "created", (double)r->created) ||
        !cJSON_AddNumberToObject(o, "updated", (double)r->updated))
        goto fail;
    if (g->tc.kind == TC_LIVE) {
        cJSON *clocks = cJSON_AddObjectToObject(o, "clocks");
        if (!clocks || !cJSON_AddNumberToObject(clocks, "white", (double)r->white_ms) ||
            !cJSON_AddNumberToObject(clocks, "black", (double)r->black_ms))
            goto fail;
    }
    if (!add_corr(gs, g, o))
        goto fail;
    return o;
fail:
    cJSON_Delete(o);
    return NULL;
}
