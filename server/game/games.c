/*
 * games: see games.h. The cache is a registry (id -> game); games that
 * stop being active are listed as they do, so games_trim() costs what
 * changed, not the size of the cache. The move buffer for qk_movegen_sorted() lives in the service, not on the stack,
 * because QK_MAX_MOVES moves are ~70 KB.
 */
#include "game/games.h"

#include <stdlib.h>
#include <string.h>

#include "qk_proto.h"
#include "store/store.h"
#include "game/ratings_svc.h"
#include "util/log.h"
#include "util/metrics.h"

struct games {
    gsvc *svc;
    registry cache;
    /* Ids of cached games that may have stopped being active since the
     * last games_trim(); full_trim when the list could not grow. */
    int64_t *trim;
    size_t ntrim, captrim;
    bool full_trim;
    registry damaged; /* quarantined game ids (GAMES_EDAMAGED), logged once */
    /* Active games by time-control kind (games_active()): every game of
     * the database, cached or not, so counted from the store at start and
     * kept by the changes of status below (each with its undo: a lost
     * batch puts the count back with the games). recount: memory was
     * dropped wholesale (games_forget_all(): an undo log that overflowed),
     * so the next games_trim() counts from the store again. */
    int64_t active[TC_KINDS];
    bool recount;
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
    reg_init(&gs->damaged);
    *out = gs;
    return 0;
}

static void game_free(game *g)
{
    for (int64_t i = 0; i < g->ply && g->moves; i++)
        free(g->moves[i]);
    free(g->moves);
    free(g->moves_json);
    free(g->legal_json);
    free(g);
}

/* text as a JSON string ("..." with escapes) into out (size >= 6 *
 * strlen(text) + 3 is always enough). The length, or -1. cJSON escapes:
 * move texts come from our notation, but a stored row is not trusted to
 * be plain. */
static int json_string(const char *text, char *out, int size)
{
    /* Move texts are points and '-' or 'x' (RULES.md section 6), which a
     * JSON string holds as they are: the quotes are enough. Anything else
     * (a stored row is not trusted to be plain) goes through cJSON. */
    size_t n = strlen(text);
    bool plain = n + 3 <= (size_t)size;
    for (size_t i = 0; plain && i < n; i++) {
        unsigned char ch = (unsigned char)text[i];
        plain = ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\';
    }
    if (plain) {
        out[0] = '"';
        memcpy(out + 1, text, n);
        out[n + 1] = '"';
        out[n + 2] = '\0';
        return (int)n + 2;
    }
    cJSON *s = cJSON_CreateString(text);
    int ok = s && cJSON_PrintPreallocated(s, out, size, false);
    cJSON_Delete(s);
    return ok ? (int)strlen(out) : -1;
}

/* Append text, quoted as a JSON string (json_string()), to the JSON array text in
 * *buf (len bytes, cap allocated; empty: no array yet), which stays a
 * complete array, NUL-terminated. 0, or -1 (no memory or a text cJSON
 * cannot print: *buf unchanged). */
static int text_array_push(char **buf, size_t *len, size_t *cap, const char *text)
{
    char quoted[6 * QK_MOVE_STRLEN + 8]; /* cJSON asks for 5 bytes to spare */
    int n = json_string(text, quoted, (int)sizeof quoted);
    if (n < 0)
        return -1;
    size_t need = *len + (size_t)n + 3; /* '[' or ',', the string, ']', NUL */
    if (need > *cap) {
        size_t c = *cap ? 2 * *cap : 64;
        while (c < need)
            c *= 2;
        char *p = realloc(*buf, c);
        if (!p)
            return -1;
        *buf = p;
        *cap = c;
    }
    char *p = *buf;
    if (*len == 0)
        p[(*len)++] = '[';
    else
        p[*len - 1] = ','; /* where the closing bracket was */
    memcpy(p + *len, quoted, (size_t)n);
    *len += (size_t)n;
    p[(*len)++] = ']';
    p[*len] = '\0';
    return 0;
}

/* Append moves[index] (text) to g->moves_json. When the text is not in
 * step with the moves (an allocation failed once) it is left alone and
 * games_json() builds the array itself. */
static void moves_json_push(game *g, int64_t index, const char *text)
{
    if (g->moves_json_n == index &&
        text_array_push(&g->moves_json, &g->moves_json_len, &g->moves_json_cap, text) == 0)
        g->moves_json_n++;
}

/* ---- the count of active games ---------------------------------------- */

/* A change of the count by delta (+1, -1) for kind k is undone by the
 * opposite change: the key says which, as +(k + 1) for an increment and
 * -(k + 1) for a decrement, so no allocation is needed. */
static void count_undo(void *arg, int64_t key, void *ptr)
{
    (void)ptr;
    games *gs = arg;
    int k = (int)(key > 0 ? key : -key) - 1;
    if (k >= 0 && k < TC_KINDS)
        gs->active[k] -= key > 0 ? 1 : -1;
}

static void count_change(games *gs, tc_kind k, int delta)
{
    if ((int)k < 0 || (int)k >= TC_KINDS)
        return;
    gs->active[k] += delta;
    batch_on_undo(gs->svc->batch, count_undo, NULL, gs, delta > 0 ? k + 1 : -(int64_t)(k + 1),
                  NULL);
}

typedef struct tc_counts {
    int64_t n[TC_KINDS];
} tc_counts;

static int count_cb(void *arg, const char *time_control, int64_t n)
{
    tc_counts *c = arg;
    tc t;
    /* A time control that does not parse makes its game unloadable: it is
     * not counted, as load() does not count it when it quarantines it. */
    if (tc_from_text(time_control, &t) == 0 && (int)t.kind >= 0 && (int)t.kind < TC_KINDS)
        c->n[t.kind] += n;
    return 0;
}

int games_count_active(games *gs)
{
    tc_counts c = {{0}};
    int rc = store_games_active_count(gs->svc->store, count_cb, &c);
    if (rc != STORE_OK) {
        gs->recount = true; /* try again at the next games_trim() */
        return rc;
    }
    memcpy(gs->active, c.n, sizeof gs->active);
    gs->recount = false;
    return STORE_OK;
}

int64_t games_active(const games *gs, tc_kind k)
{
    return (int)k >= 0 && (int)k < TC_KINDS ? gs->active[k] : 0;
}

/* A stored row load() quarantines (it will never be loaded again, so it is
 * no longer active for the count): uncounted when games_count_active()
 * counted it. Not undone with the batch: the quarantine in memory is not
 * either. */
static void uncount_row(games *gs, const store_game *row)
{
    tc t;
    if (strcmp(row->status, "active") == 0 && tc_from_text(row->time_control, &t) == 0 &&
        (int)t.kind >= 0 && (int)t.kind < TC_KINDS)
        gs->active[t.kind]--;
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

void games_forget_cached(games *gs)
{
    for (size_t b = 0; b < gs->cache.nbuckets; b++)
        for (reg_node *n = gs->cache.buckets[b]; n; n = n->next)
            game_free(n->val);
    reg_free(&gs->cache);
    gs->ntrim = 0;
}

void games_forget_all(games *gs)
{
    games_forget_cached(gs);
    gs->recount = true;
}

void games_free(games *gs)
{
    if (!gs)
        return;
    games_forget_all(gs);
    reg_free(&gs->damaged);
    free(gs->trim);
    free(gs);
}

const char *games_side_name(qk_side side)
{
    return side == QK_WHITE ? "white" : "black";
}

const char *games_status_name(game_status st)
{
    return st == GAME_ACTIVE ? "active" : st == GAME_FINISHED ? "finished" : "aborted";
}

const game_player *games_player(const game *g, qk_side side)
{
    return side == QK_WHITE ? &g->white : &g->black;
}

int games_side_of(const game *g, int64_t user_id)
{
    return g->white.id == user_id ? QK_WHITE : g->black.id == user_id ? QK_BLACK : -1;
}

int64_t games_turn_user(const game *g)
{
    return games_player(g, (qk_side)g->pos.side)->id;
}

int games_position(const game *g, char buf[QK_POS_STRLEN])
{
    return qk_pos_format(&g->v, &g->pos, buf, QK_POS_STRLEN) < 0 ? -1 : 0;
}

/* ---- rows ------------------------------------------------------------- */

/* g as the store's rows. The position is formatted here: the rules'
 * position, never a string kept beside it, is what is stored. */
static int row_of(const game *g, store_game *r)
{
    memset(r, 0, sizeof *r);
    r->id = g->id;
    snprintf(r->variant, sizeof r->variant, "%s", g->v.name);
    r->white_id = g->white.id;
    r->black_id = g->black.id;
    snprintf(r->white, sizeof r->white, "%s", g->white.name);
    snprintf(r->black, sizeof r->black, "%s", g->black.name);
    r->white_bot = g->white.bot;
    r->black_bot = g->black.bot;
    memcpy(r->start, g->start, sizeof r->start);
    if (games_position(g, r->position) != 0 || tc_format(&g->tc, r->time_control,
                                                         sizeof r->time_control) != 0)
        return -1;
    r->ply = g->ply;
    snprintf(r->turn, sizeof r->turn, "%s", games_side_name((qk_side)g->pos.side));
    snprintf(r->status, sizeof r->status, "%s", games_status_name(g->status));
    const char *res = qk_result_name(g->result), *why = qk_reason_name(g->reason);
    snprintf(r->result, sizeof r->result, "%s", res ? res : "");
    snprintf(r->reason, sizeof r->reason, "%s", why ? why : "");
    r->deadline = g->deadline;
    r->white_ms = g->clock_ms[QK_WHITE];
    r->black_ms = g->clock_ms[QK_BLACK];
    r->created = g->created;
    r->updated = g->updated;
    r->rated = g->rated;
    return 0;
}

static int to_rows(const game *g, store_game *r, store_game_x *x)
{
    if (r && row_of(g, r) != 0)
        return -1;
    if (x) {
        memset(x, 0, sizeof *x);
        x->extended_ms = g->extended_ms;
        x->vacation = g->vacation;
        x->priv = g->priv;
        snprintf(x->draw_offer, sizeof x->draw_offer, "%s",
                 g->draw_offer < 0 ? "" : games_side_name((qk_side)g->draw_offer));
        x->warned_deadline = g->warned_deadline;
        x->wake_at = g->wake_at;
    }
    return 0;
}

/* The stored rows into g (the position is the replay's, see load()). */
static int from_rows(game *g, const store_game *r, const store_game_x *x)
{
    g->id = r->id;
    g->white = (game_player){.id = r->white_id, .bot = r->white_bot};
    g->black = (game_player){.id = r->black_id, .bot = r->black_bot};
    snprintf(g->white.name, sizeof g->white.name, "%s", r->white);
    snprintf(g->black.name, sizeof g->black.name, "%s", r->black);
    memcpy(g->start, r->start, sizeof g->start);
    int st = strcmp(r->status, "active") == 0     ? GAME_ACTIVE
             : strcmp(r->status, "finished") == 0 ? GAME_FINISHED
             : strcmp(r->status, "aborted") == 0  ? GAME_ABORTED
                                                  : -1;
    int res = r->result[0] ? qk_result_parse(r->result) : QK_RESULT_NONE;
    int why = r->reason[0] ? qk_reason_parse(r->reason) : QK_REASON_NONE;
    if (st < 0 || res < 0 || why < 0)
        return -1;
    g->status = (game_status)st;
    g->result = (qk_result)res;
    g->reason = (qk_reason)why;
    g->rated = r->rated;
    g->imported = r->imported;
    g->deadline = r->deadline;
    g->clock_ms[QK_WHITE] = r->white_ms;
    g->clock_ms[QK_BLACK] = r->black_ms;
    g->created = r->created;
    g->updated = r->updated;
    g->turn_mono = -1;
    g->extended_ms = x->extended_ms;
    g->vacation = x->vacation;
    g->priv = x->priv;
    g->draw_offer = strcmp(x->draw_offer, "white") == 0   ? QK_WHITE
                    : strcmp(x->draw_offer, "black") == 0 ? QK_BLACK
                                                          : -1;
    g->warned_deadline = x->warned_deadline;
    g->wake_at = x->wake_at;
    return 0;
}

/* Write g's row (and, with_x, its correspondence fields). */
static int put(games *gs, const game *g, bool with_x)
{
    store_game r;
    store_game_x x;
    if (to_rows(g, &r, &x) != 0)
        return STORE_EIO;
    int rc = store_game_update(gs->svc->store, &r);
    if (rc == STORE_OK && with_x)
        rc = store_game_x_put(gs->svc->store, g->id, &x);
    return rc;
}

/* ---- loading ---------------------------------------------------------- */

static int push_move(game *g, const char *text)
{
    if ((size_t)g->ply == g->cap) {
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
    moves_json_push(g, g->ply, t);
    g->moves[g->ply++] = t;
    return 0;
}

typedef struct replay {
    game *g;
    bool bad;
    char why[160]; /* what did not replay, for the one log line */
} replay;

static int replay_cb(void *arg, int64_t ply, const char *text, int64_t user_id)
{
    replay *rp = arg;
    game *g = rp->g;
    qk_move m;
    qk_undo u;
    if (ply != g->ply || qk_move_parse(&g->v, &g->pos, text, &m) != QK_OK) {
        snprintf(rp->why, sizeof rp->why, "stored move %lld \"%.64s\" does not replay",
                 (long long)ply, text);
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

/* Game id's stored rows do not make a game (why): quarantine it. Logged
 * once (the registry, then the stored mark, which load() reads before any
 * replay); the mark also keeps it out of the deadline timer (store_games.h).
 * Returns GAMES_EDAMAGED. */
static int quarantine(games *gs, int64_t id, const char *why)
{
    if (!reg_first(&gs->damaged, id)) {
        log_error("game %lld: quarantined as damaged (%s); its players get an error for it",
                  (long long)id, why);
        (void)reg_add(&gs->damaged, id, NULL);
    }
    gsvc *s = gs->svc;
    if (svc_write_begin(s) == 0 && store_game_damaged_set(s->store, id) != STORE_OK)
        svc_poison(s);
    return GAMES_EDAMAGED;
}

static int load(games *gs, int64_t id, game **out)
{
    if (reg_first(&gs->damaged, id))
        return GAMES_EDAMAGED;
    bool damaged = false;
    int rc = store_game_damaged_get(gs->svc->store, id, &damaged);
    if (rc)
        return rc;
    if (damaged) {
        (void)reg_add(&gs->damaged, id, NULL);
        return GAMES_EDAMAGED;
    }
    game *g = calloc(1, sizeof *g);
    if (!g)
        return STORE_EIO;
    store_game row;
    store_game_x x;
    rc = store_game_get(gs->svc->store, id, &row);
    if (rc == STORE_OK)
        rc = store_game_x_get(gs->svc->store, id, &x);
    if (rc == STORE_OK)
        rc = store_game_challenge_get(gs->svc->store, id, &g->challenge_id);
    if (rc)
        goto fail;
    rc = STORE_EIO;
    const char *why = "";
    char buf[200];
    if (from_rows(g, &row, &x) != 0 || qk_variant_parse(row.variant, &g->v) != QK_OK ||
        qk_pos_parse(&g->v, row.start, &g->pos, &why) != QK_OK ||
        tc_from_text(row.time_control, &g->tc) != 0) {
        snprintf(buf, sizeof buf, "bad stored status, variant, start or time control %s", why);
        uncount_row(gs, &row);
        rc = quarantine(gs, id, buf);
        goto fail;
    }
    /* The monotonic reference is not stored: rebuild it from the last
     * change on the wall clock (a restart or a lost batch only). */
    if (g->tc.kind == TC_LIVE) {
        int64_t since = svc_now(gs->svc) - g->updated;
        g->turn_mono = svc_mono(gs->svc) - (since > 0 ? since : 0);
    }
    replay rp = {g, false, ""};
    rc = store_moves_each(gs->svc->store, id, replay_cb, &rp);
    if (rp.bad) {
        uncount_row(gs, &row);
        rc = quarantine(gs, id, rp.why);
        goto fail;
    }
    if (rc != STORE_OK)
        goto fail;
    rc = STORE_EIO;
    if (store_game_tourney_get(gs->svc->store, id, &g->tournament_id, &g->round) != STORE_OK)
        goto fail;
    if (g->ply != row.ply) {
        snprintf(buf, sizeof buf, "%lld moves stored, row says ply %lld", (long long)g->ply,
                 (long long)row.ply);
        uncount_row(gs, &row);
        rc = quarantine(gs, id, buf);
        goto fail;
    }
    /* The rules decide: a stored position or turn that disagrees with the
     * replay is replaced by the replay's (the row is rewritten with the
     * next change of the game). */
    char pos[QK_POS_STRLEN];
    if (games_position(g, pos) != 0) {
        log_error("game %lld: the replayed position cannot be formatted", (long long)id);
        goto fail;
    }
    if (strcmp(pos, row.position) != 0 ||
        strcmp(games_side_name((qk_side)g->pos.side), row.turn) != 0)
        log_warn("game %lld: stored position or turn differs from the replay; using the replay",
                 (long long)id);
    if (!reg_add(&gs->cache, id, g))
        goto fail;
    if (g->status != GAME_ACTIVE)
        trim_later(gs, id);
    *out = g;
    return STORE_OK;
fail:
    game_free(g);
    return rc;
}

/* Listings of finished games (issue 9, item 11): the stored rows as they
 * are, the position parsed from the row (not replayed), the moves' texts
 * copied (never qk_move_parse). */
typedef struct texts {
    game *g;
    bool bad, oom;
} texts;

static int text_cb(void *arg, int64_t ply, const char *text, int64_t user_id)
{
    texts *t = arg;
    if (ply != t->g->ply) {
        t->bad = true;
        return 1;
    }
    if (push_move(t->g, text)) {
        t->oom = true;
        return 1;
    }
    t->g->last_mover = user_id;
    return 0;
}

int games_from_row(games *gs, const store_game *row, game **out)
{
    *out = NULL;
    game *g = calloc(1, sizeof *g);
    if (!g)
        return STORE_EIO;
    store_game_x x;
    const char *why = "";
    int rc = store_game_x_get(gs->svc->store, row->id, &x);
    if (rc == STORE_OK)
        rc = store_game_challenge_get(gs->svc->store, row->id, &g->challenge_id);
    if (rc == STORE_OK)
        rc = store_game_tourney_get(gs->svc->store, row->id, &g->tournament_id, &g->round);
    if (rc)
        goto fail;
    if (from_rows(g, row, &x) != 0 || qk_variant_parse(row->variant, &g->v) != QK_OK ||
        qk_pos_parse(&g->v, row->position, &g->pos, &why) != QK_OK ||
        tc_from_text(row->time_control, &g->tc) != 0) {
        rc = GAMES_EDAMAGED; /* not logged here: `game` on it quarantines it */
        goto fail;
    }
    texts t = {g, false, false};
    rc = store_moves_each(gs->svc->store, row->id, text_cb, &t);
    if (t.oom)
        rc = STORE_EIO;
    else if (t.bad || (rc == STORE_OK && g->ply != row->ply))
        rc = GAMES_EDAMAGED;
    if (rc)
        goto fail;
    *out = g;
    return STORE_OK;
fail:
    game_free(g);
    return rc;
}

void games_release(game *g)
{
    if (g)
        game_free(g);
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

static void keep_legal(games *gs, game *g);
static void set_wake(games *gs, game *g);

int games_apply_move(games *gs, int64_t id, int64_t ply, const char *move, const char *position,
                     int64_t deadline, int64_t at)
{
    reg_node *n = reg_first(&gs->cache, id);
    if (!n)
        return 1;
    game *g = n->val;
    if (g->status != GAME_ACTIVE || g->ply != ply || g->tc.kind == TC_LIVE || !move || !position)
        return -1;
    qk_move m;
    if (qk_move_parse(&g->v, &g->pos, move, &m) != QK_OK)
        return -1;
    qk_pos after = g->pos;
    qk_undo u;
    qk_pos_make(&g->v, &after, &m, &u);
    qk_result result;
    qk_reason reason;
    char pos[QK_POS_STRLEN];
    /* The end of a game changes more than a move (result, ratings,
     * records): that is read again whole. */
    if (qk_pos_status(&g->v, &after, &result, &reason) ||
        qk_pos_format(&g->v, &after, pos, sizeof pos) < 0 || strcmp(pos, position) != 0)
        return -1;
    int64_t mover = games_turn_user(g);
    if (push_move(g, move) != 0)
        return -1;
    g->pos = after;
    g->last_mover = mover;
    g->last_move = m;
    g->draw_offer = -1; /* a move declines a standing offer */
    g->updated = at;
    g->deadline = deadline;
    set_wake(gs, g);
    keep_legal(gs, g);
    return 0;
}

static void trim_one(games *gs, int64_t id)
{
    reg_node *n = reg_first(&gs->cache, id);
    if (n && ((game *)n->val)->status != GAME_ACTIVE) {
        game_free(n->val);
        reg_remove(&gs->cache, n);
    }
}

void games_trim(games *gs)
{
    /* Here because the batch has ended: the store holds what memory
     * should, and the undo actions of a lost batch have run. */
    if (gs->recount)
        (void)games_count_active(gs);
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
            if (g->status != GAME_ACTIVE) {
                game_free(g);
                reg_remove(&gs->cache, n);
            }
            n = next;
        }
    }
}

/* ---- changes ---------------------------------------------------------- */

int64_t games_first_move_ms(const tc *t)
{
    int64_t tenth = (int64_t)t->initial_s * 100;
    return tenth < 30000 ? 30000 : tenth > 180000 ? 180000 : tenth;
}

/* What the side to move may use in this turn (live): the first-move
 * window at ply 0 and 1, else its clock. */
static int64_t turn_limit(const game *g)
{
    return g->ply < 2 ? games_first_move_ms(&g->tc) : g->clock_ms[g->pos.side];
}

/* Monotonic ms since the side to move's turn began (live), >= 0. */
static int64_t turn_used(games *gs, const game *g)
{
    int64_t used = svc_mono(gs->svc) - g->turn_mono;
    return used > 0 ? used : 0;
}

/* Deadline of the side to move, from the clocks, at time now (UTC ms). */
static void set_deadline(games *gs, game *g, int64_t now)
{
    g->deadline = -1;
    if (g->status != GAME_ACTIVE)
        return;
    if (g->tc.kind == TC_CORRESPONDENCE) {
        g->deadline = now + g->tc.days_per_move * TC_DAY_MS;
    } else if (g->tc.kind == TC_LIVE) {
        int64_t left = turn_limit(g) - turn_used(gs, g);
        g->deadline = now + (left > 0 ? left : 0);
    }
}

int games_start(games *gs, const game_spec *spec, game **out)
{
    game *g = calloc(1, sizeof *g);
    if (!g)
        goto fail;
    const char *why = "";
    g->v = spec->v;
    if (qk_pos_parse(&g->v, spec->start, &g->pos, &why) != QK_OK) {
        log_error("games_start: bad start %s", why);
        goto fail;
    }
    int64_t now = svc_now(gs->svc);
    g->white = spec->white;
    g->black = spec->black;
    memcpy(g->start, spec->start, sizeof g->start);
    g->status = GAME_ACTIVE;
    g->tc = spec->tc;
    g->rated = spec->rated;
    g->vacation = spec->vacation;
    g->priv = spec->priv;
    g->draw_offer = -1;
    g->warned_deadline = g->wake_at = -1;
    g->clock_ms[QK_WHITE] = g->clock_ms[QK_BLACK] = -1;
    if (g->tc.kind == TC_LIVE)
        g->clock_ms[QK_WHITE] = g->clock_ms[QK_BLACK] = (int64_t)g->tc.initial_s * 1000;
    g->turn_mono = svc_mono(gs->svc);
    g->created = g->updated = now;
    set_deadline(gs, g, now);
    store_game row;
    if (to_rows(g, &row, NULL) != 0 || store_game_insert(gs->svc->store, &row) != STORE_OK)
        goto fail;
    g->id = row.id;
    games_touch(gs, g->id);
    count_change(gs, g->tc.kind, +1);
    g->challenge_id = spec->challenge_id;
    if (g->challenge_id &&
        store_game_challenge_put(gs->svc->store, g->id, g->challenge_id) != STORE_OK)
        goto fail;
    g->tournament_id = spec->tournament_id;
    g->round = spec->round;
    if (g->tournament_id && store_game_tourney_set(gs->svc->store, g->id, g->tournament_id,
                                                   g->round) != STORE_OK)
        goto fail;
    if (games_put_x(gs, g) != STORE_OK)
        goto fail;
    if (!reg_add(&gs->cache, g->id, g))
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
    trim_later(gs, g->id);
    if (g->status == GAME_ACTIVE)
        count_change(gs, g->tc.kind, -1);
    g->status = reason == QK_REASON_ABORTED ? GAME_ABORTED : GAME_FINISHED;
    g->result = result;
    g->reason = reason;
}

/* When the deadline timer must look at g next (its deadline, or the
 * warning before a correspondence deadline not yet warned of). */
static void set_wake(games *gs, game *g)
{
    gsvc *s = gs->svc;
    g->wake_at = -1;
    if (g->status == GAME_ACTIVE && g->deadline >= 0) {
        g->wake_at = g->deadline;
        if (g->tc.kind == TC_CORRESPONDENCE && g->warned_deadline != g->deadline)
            g->wake_at = g->deadline - GAMES_WARN_MS;
    }
    /* The deadline timer re-arms (corr.h) only when g must be looked at
     * before it fires: a re-arm reads the store (min(wake_at)), which was
     * 6% of a move's instructions (docs/perf.md, issue 26). The test
     * clock re-arms always, as debug_clock expects. */
    if (s->test_clock || (g->wake_at >= 0 && g->wake_at < s->wake_armed_at))
        s->wake_dirty = true;
}

int games_play(games *gs, game *g, const qk_move *m, int64_t user_id)
{
    gsvc *s = gs->svc;
    int64_t now = svc_now(s);
    char text[QK_MOVE_STRLEN];
    if (qk_move_format(&g->v, m, text, sizeof text) < 0)
        goto fail;
    games_touch(gs, g->id);
    int64_t ply = g->ply;
    qk_side mover = (qk_side)g->pos.side;
    const int64_t was[4] = {g->deadline, g->clock_ms[QK_WHITE], g->clock_ms[QK_BLACK], g->wake_at};
    /* The mover's time left, kept per move for the records' clock
     * comments (game/records.h); -1 without a clock. */
    int64_t clock_after = -1;
    if (g->tc.kind == TC_LIVE) {
        /* The first move of each side is free; every move earns the
         * increment (games.h "Clocks"). */
        int64_t *clock = &g->clock_ms[mover];
        int64_t left = *clock - (ply < 2 ? 0 : turn_used(gs, g));
        *clock = (left > 0 ? left : 0) + (int64_t)g->tc.increment_s * 1000;
        g->turn_mono = svc_mono(s);
        clock_after = *clock;
    }
    qk_undo u;
    qk_pos_make(&g->v, &g->pos, m, &u);
    if (push_move(g, text))
        goto fail;
    metric_inc(s->m_moves, 0, 0);
    qk_result result;
    qk_reason reason;
    if (qk_pos_status(&g->v, &g->pos, &result, &reason))
        end_game(gs, g, result, reason);
    g->updated = now;
    set_deadline(gs, g, now);
    g->last_mover = user_id;
    g->last_move = *m;
    g->draw_offer = -1; /* a move declines a standing offer */
    int rc;
    if (g->status != GAME_ACTIVE) {
        /* The last move: status, result and reason change too. The game
         * row is claimed first, as the common path's one statement takes
         * it first: two nodes racing for the ply lock in the same order
         * (no deadlock) and the second finds the ply taken. */
        if ((rc = store_game_claim(s->store, g->id, ply)) == STORE_CONFLICT ||
            (rc == STORE_OK &&
             (rc = store_move_insert(s->store, g->id, ply, text, user_id, now)) == STORE_CONFLICT))
            goto stale;
        if (rc != STORE_OK ||
            (clock_after >= 0 &&
             store_move_clock_set(s->store, g->id, ply, clock_after) != STORE_OK) ||
            put(gs, g, false) != STORE_OK || games_put_x(gs, g) != STORE_OK)
            goto fail;
        return STORE_OK;
    }
    /* The common case, on the per-move path (store_move_played). */
    char position[QK_POS_STRLEN];
    if (games_position(g, position) != 0)
        goto fail;
    set_wake(gs, g);
    store_played p = {
        .game_id = g->id,
        .ply = ply,
        .move = text,
        .user_id = user_id,
        .created = now,
        .clock_ms = clock_after,
        .position = position,
        .turn = games_side_name((qk_side)g->pos.side),
        .deadline = g->deadline,
        .white_ms = g->clock_ms[QK_WHITE],
        .black_ms = g->clock_ms[QK_BLACK],
        .wake_at = g->wake_at,
    };
    p.times_changed = was[0] != p.deadline || was[1] != p.white_ms || was[2] != p.black_ms ||
                      was[3] != p.wake_at;
    if ((rc = store_move_played(s->store, &p)) == STORE_CONFLICT)
        goto stale;
    if (rc != STORE_OK)
        goto fail;
    keep_legal(gs, g);
    return STORE_OK;
stale:
    /* Another node stored a move at this ply first; the move's write
     * changed nothing, so only memory is wrong: read it again. */
    log_info("game %lld: ply %lld was played on another node first", (long long)g->id,
             (long long)ply);
    games_forget(gs, g->id);
    return GAMES_ESTALE;
fail:
    svc_poison(s);
    return STORE_EIO;
}

int games_finish(games *gs, game *g, qk_result result, qk_reason reason)
{
    gsvc *s = gs->svc;
    /* Another node may have moved or ended it (issue 22): claim the row
     * first, and change nothing if it is not as this node saw it. */
    int rc = g->status == GAME_ACTIVE ? store_game_claim(s->store, g->id, g->ply) : STORE_OK;
    if (rc == STORE_CONFLICT) {
        log_info("game %lld: changed on another node before it could end here", (long long)g->id);
        games_forget(gs, g->id);
        return GAMES_ESTALE;
    }
    if (rc != STORE_OK) {
        svc_poison(s);
        return STORE_EIO;
    }
    games_touch(gs, g->id);
    if (g->status == GAME_ACTIVE && g->tc.kind == TC_LIVE && g->ply >= 2) {
        /* The running clock stops where it stands; the loser on time
         * shows 0 even when the flag was seen a little late. */
        qk_side side = (qk_side)g->pos.side;
        g->clock_ms[side] = reason == QK_REASON_TIMEOUT ? 0 : games_clock(gs, g, side);
    }
    end_game(gs, g, result, reason);
    g->updated = svc_now(s);
    g->deadline = -1;
    g->draw_offer = -1;
    if (put(gs, g, false) != STORE_OK || games_put_x(gs, g) != STORE_OK) {
        svc_poison(s);
        return STORE_EIO;
    }
    return STORE_OK;
}

int games_put_x(games *gs, game *g)
{
    set_wake(gs, g);
    store_game_x x;
    if (to_rows(g, NULL, &x) != 0 || store_game_x_put(gs->svc->store, g->id, &x) != STORE_OK) {
        svc_poison(gs->svc);
        return STORE_EIO;
    }
    return STORE_OK;
}

int games_extend(games *gs, game *g, int64_t deadline, const char *kind)
{
    gsvc *s = gs->svc;
    int64_t ms = deadline - g->deadline;
    if (ms < 0 || g->deadline < 0)
        return STORE_OK;
    games_touch(gs, g->id);
    g->deadline = deadline;
    g->extended_ms += ms;
    if (store_extension_insert(s->store, g->id, kind, ms, svc_now(s)) != STORE_OK ||
        put(gs, g, false) != STORE_OK) {
        svc_poison(s);
        return STORE_EIO;
    }
    return games_put_x(gs, g);
}

int64_t games_time_left(games *gs, const game *g, int64_t now)
{
    if (g->status != GAME_ACTIVE || g->deadline < 0)
        return -1;
    if (g->tc.kind == TC_LIVE) {
        int64_t left = turn_limit(g) - turn_used(gs, g);
        return left > 0 ? left : 0;
    }
    return g->deadline > now ? g->deadline - now : 0;
}

int64_t games_clock(games *gs, const game *g, qk_side side)
{
    if (g->tc.kind != TC_LIVE)
        return -1;
    int64_t ms = g->clock_ms[side];
    if (g->status == GAME_ACTIVE && g->ply >= 2 && side == (qk_side)g->pos.side)
        ms -= turn_used(gs, g);
    return ms > 0 ? ms : 0;
}

bool games_due(games *gs, const game *g, int64_t now)
{
    if (g->status != GAME_ACTIVE || g->deadline < 0)
        return false;
    if (g->tc.kind == TC_LIVE)
        return turn_used(gs, g) >= turn_limit(g);
    return g->deadline <= now;
}

int games_refresh_deadline(games *gs, game *g)
{
    if (g->status != GAME_ACTIVE || g->tc.kind != TC_LIVE)
        return STORE_OK;
    games_touch(gs, g->id);
    set_deadline(gs, g, svc_now(gs->svc));
    if (put(gs, g, false) != STORE_OK) {
        svc_poison(gs->svc);
        return STORE_EIO;
    }
    return games_put_x(gs, g);
}

int games_legal(games *gs, const game *g, const qk_move **out, bool *truncated)
{
    *out = gs->scratch;
    if (truncated)
        *truncated = false;
    if (g->status != GAME_ACTIVE)
        return 0;
    int n = qk_movegen_sorted(&g->v, &g->pos, gs->scratch, QK_MAX_MOVES);
    if (n == QK_ENOSPC) {
        /* The buffer holds QK_MAX_MOVES of them: say so rather than claim
         * there are none (which reads as "the game is over"). */
        log_warn("game %lld: more than %d legal moves, list truncated", (long long)g->id,
                 QK_MAX_MOVES);
        if (truncated)
            *truncated = true;
        return QK_MAX_MOVES;
    }
    if (n < 0) {
        log_error("game %lld: move generation failed (%d)", (long long)g->id, n);
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
    return v >= 0 ? qk_json_add_int(o, name, v) != NULL
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
           !qk_json_add_int(e, "ms", ms) ||
           !qk_json_add_int(e, "at", created);
}

/* When user_id's current vacation ends into *until (UTC ms; -1 when none
 * is running or the row is missing), the form store_challenge's
 * from/to_vacation_until have too: the account is away while now < *until.
 * false on a store error. */
static bool vacation_end(games *gs, int64_t user_id, int64_t *until)
{
    store_vacation v;
    int rc = store_vacation_get(gs->svc->store, user_id, &v);
    *until = rc == STORE_OK && v.start >= 0 ? v.until : -1;
    return rc == STORE_OK || rc == STORE_NOTFOUND;
}

/* {"white": ..., "black": ...} as o's name: numbers (ms), or bools. */
static bool add_pair(cJSON *o, const char *name, bool is_bool, int64_t w, int64_t b)
{
    cJSON *p = cJSON_AddObjectToObject(o, name);
    if (!p)
        return false;
    if (is_bool)
        return cJSON_AddBoolToObject(p, "white", w) && cJSON_AddBoolToObject(p, "black", b);
    return qk_json_add_int(p, "white", w) &&
           qk_json_add_int(p, "black", b);
}

bool games_add_clock(games *gs, const game *g, cJSON *o)
{
    if (g->tc.kind != TC_LIVE)
        return true;
    return add_pair(o, "clock", false, games_clock(gs, g, QK_WHITE),
                    games_clock(gs, g, QK_BLACK));
}

/* The fields of docs/protocol.md "Game" about time and options: time
 * left now, live clocks now, extensions, options, the standing draw
 * offer, the players' vacations (their ends as vacation_end() gives them:
 * until[QK_WHITE] and [QK_BLACK], read here when until is NULL). */
static bool add_corr(games *gs, const game *g, const int64_t *until, cJSON *o)
{
    int64_t now = svc_now(gs->svc), left = games_time_left(gs, g, now);
    if (!add_int_or_null(o, "time_left_ms", left) || !games_add_clock(gs, g, o))
        return false;
    cJSON *ext;
    if (!qk_json_add_int(o, "extended_ms", g->extended_ms) ||
        !(ext = cJSON_AddArrayToObject(o, "extensions")) ||
        (g->extended_ms > 0 && store_extensions_each(gs->svc->store, g->id, ext_cb, ext) != 0))
        return false;
    int64_t read[2];
    if (!until) {
        if (!vacation_end(gs, g->white.id, &read[QK_WHITE]) ||
            !vacation_end(gs, g->black.id, &read[QK_BLACK]))
            return false;
        until = read;
    }
    return cJSON_AddBoolToObject(o, "private", g->priv) &&
           cJSON_AddBoolToObject(o, "vacation_allowed", g->vacation) &&
           add_pair(o, "vacation", true, now < until[QK_WHITE], now < until[QK_BLACK]) &&
           add_str_or_null(o, "draw_offer",
                           g->draw_offer < 0 ? NULL : games_side_name((qk_side)g->draw_offer));
}

/* The legal moves of g as the text of a JSON array of json_string()s
 * (malloc()ed, the caller frees), *truncated as games_legal() says. NULL
 * on allocation failure. */
static char *legal_text(games *gs, const game *g, bool *truncated)
{
    const qk_move *lm;
    int n = games_legal(gs, g, &lm, truncated);
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (int i = 0; i < n; i++) {
        char text[QK_MOVE_STRLEN];
        if (qk_move_format(&g->v, &lm[i], text, sizeof text) < 0 ||
            text_array_push(&buf, &len, &cap, text) != 0) {
            free(buf);
            return NULL;
        }
    }
    return buf ? buf : strdup("[]");
}

/* Keep the legal moves' text of g's position now (after a move: the
 * move's event and its answer both carry them). Without memory nothing
 * is kept and games_add_legal() builds them each time. */
static void keep_legal(games *gs, game *g)
{
    free(g->legal_json);
    g->legal_json = NULL;
    if (g->status != GAME_ACTIVE)
        return;
    bool truncated = false;
    g->legal_json = legal_text(gs, g, &truncated);
    g->legal_ply = g->ply;
    g->legal_truncated = truncated;
}

int games_add_legal(games *gs, const game *g, cJSON *o)
{
    bool truncated = false;
    if (g->legal_json && g->legal_ply == g->ply && g->status == GAME_ACTIVE) {
        if (!cJSON_AddRawToObject(o, "legal_moves", g->legal_json))
            return -1;
        truncated = g->legal_truncated;
    } else {
        char *text = legal_text(gs, g, &truncated);
        cJSON *item = text ? cJSON_AddRawToObject(o, "legal_moves", text) : NULL;
        free(text);
        if (!item)
            return -1;
    }
    if (truncated && !cJSON_AddTrueToObject(o, "legal_moves_truncated"))
        return -1;
    return 0;
}

/* games_json(), with the players' vacation ends given (until, as
 * add_corr() takes them) or read (until NULL). */
static cJSON *game_json(games *gs, const game *g, bool with_legal, const int64_t *until)
{
    char pos[QK_POS_STRLEN];
    cJSON *o = games_position(g, pos) == 0 ? cJSON_CreateObject() : NULL;
    if (!o)
        return NULL;
    if (!qk_json_add_int(o, "id", g->id) ||
        !cJSON_AddStringToObject(o, "variant", g->v.name) ||
        !cJSON_AddStringToObject(o, "white", g->white.name) ||
        !cJSON_AddStringToObject(o, "black", g->black.name) ||
        !cJSON_AddBoolToObject(o, "white_bot", g->white.bot) ||
        !cJSON_AddBoolToObject(o, "black_bot", g->black.bot) ||
        !cJSON_AddBoolToObject(o, "rated", g->rated) ||
        !add_int_or_null(o, "challenge", g->challenge_id > 0 ? g->challenge_id : -1) ||
        !cJSON_AddBoolToObject(o, "imported", g->imported) ||
        !cJSON_AddStringToObject(o, "start", g->start))
        goto fail;
    if (g->moves_json && g->moves_json_n == g->ply) {
        /* The kept text (moves_json_push): a long game's answer no longer
         * rebuilds and reprints every move. */
        if (!cJSON_AddRawToObject(o, "moves", g->moves_json))
            goto fail;
    } else {
        cJSON *moves = cJSON_AddArrayToObject(o, "moves");
        for (int64_t i = 0; moves && i < g->ply; i++) {
            cJSON *m = cJSON_CreateString(g->moves[i]);
            if (!m || !cJSON_AddItemToArray(moves, m)) {
                cJSON_Delete(m);
                moves = NULL;
            }
        }
        if (!moves)
            goto fail;
    }
    if (!qk_json_add_int(o, "ply", g->ply) ||
        !cJSON_AddStringToObject(o, "position", pos) ||
        !cJSON_AddStringToObject(o, "turn", games_side_name((qk_side)g->pos.side)))
        goto fail;
    if (with_legal && games_add_legal(gs, g, o) != 0)
        goto fail;
    cJSON *tcj = tc_to_json(&g->tc);
    if (!tcj || !cJSON_AddItemToObject(o, "time_control", tcj)) {
        cJSON_Delete(tcj);
        goto fail;
    }
    if (!cJSON_AddStringToObject(o, "status", games_status_name(g->status)) ||
        !add_str_or_null(o, "result", qk_result_name(g->result)) ||
        !add_str_or_null(o, "reason", qk_reason_name(g->reason)) ||
        !add_int_or_null(o, "deadline", g->deadline) ||
        !qk_json_add_int(o, "created", g->created) ||
        !qk_json_add_int(o, "updated", g->updated))
        goto fail;
    if (!add_corr(gs, g, until, o))
        goto fail;
    if (!ratings_add_game_json(gs->svc, g->id, g->rated, o)) /* ratings, rating_change */
        goto fail;
    /* PROTOCOL.md "Classes and tournaments": null outside tournaments. */
    if (!add_int_or_null(o, "tournament", g->tournament_id > 0 ? g->tournament_id : -1) ||
        !add_int_or_null(o, "round", g->round > 0 ? g->round : -1))
        goto fail;
    return o;
fail:
    cJSON_Delete(o);
    return NULL;
}

cJSON *games_json(games *gs, const game *g, bool with_legal)
{
    return game_json(gs, g, with_legal, NULL);
}

cJSON *games_json_vacations(games *gs, const game *g, bool with_legal,
                            const int64_t vacation_until[2])
{
    return game_json(gs, g, with_legal, vacation_until);
}
