/*
 * qk_engine: iterative-deepening principal variation search; see
 * qk_engine.h for the design, qk_engine_eval.c for the evaluation.
 *
 * Every node first generates its moves (qk_movegen), because "no legal
 * move" is the commonest end of a game (RULES.md section 8, item 1); the
 * other ends (Stoep Sultan majority, the 40-ply limit) exist only in the
 * variants with draws, and only there is qk_pos_status() asked. Scores are
 * root-relative inside the search and position-relative in the table, the
 * usual treatment of mate-distance scores.
 *
 * Search techniques, all standard (see e.g. the Chess Programming Wiki):
 * PVS with fail-soft alpha-beta; quiescence over captures with stand-pat
 * only where the side to move has a non-capture (where capture is
 * compulsory, RULES.md 3 and 5, a position with a capture has no stand-pat),
 * bounded by QS_MAX plies and QS_NODES nodes per leaf so that its cost is
 * bounded on any board (then the static evaluation stands);
 * one-ply extension of forced captures (the only legal move is a capture),
 * which keeps the chains of compulsory captures inside the horizon; late
 * move reductions of quiet moves; killer and history ordering. No null
 * move: zugzwang is the rule in Alquerkonane and common in the forward-only
 * Alquerque variants.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "qk_engine.h"
#include "qk_engine_int.h"

#define TT_BUCKET 4
#define MOVE_STACK 32768 /* moves of all plies of one search (int-sized) */
#define QS_MAX 16        /* quiescence plies */
/* Nodes one quiescence search (from one leaf of the main search) may
 * visit; beyond, its remaining nodes stand pat. Without it a dense
 * Alquerkonane board (12x12 half full: ~50 optional captures at every
 * node, captures all the way down) costs ~50^8 nodes per leaf even with
 * alpha-beta, and `analyse --depth 1` ran for hours (issue 9, item 13).
 * Small enough that such a leaf costs about a millisecond, large enough
 * that no quiescence search of the ordinary variants reaches it. */
#define QS_NODES 2048
#define EXACT 3
#define LOWER 2
#define UPPER 1
/* Default solver budget on boards larger than qk_solve_feasible(). */
#define SOLVER_PROBE_NODES 200000
/* Below this the solver's table thrashes on 5x5-sized problems. */
#define SOLVER_MIN_TABLE (4u << 20)
#define KILLER (1 << 26)      /* ordering score of a killer move */
#define HISTORY_MAX (1 << 24) /* history scores stay below killers */

struct qk_tt_entry {
    uint64_t key;
    int16_t score; /* relative to this position */
    uint16_t move; /* qk_move_id, 0 for none */
    uint8_t depth;
    uint8_t bound; /* 0 = empty */
    uint8_t quiet; /* quiet count (capped at 255) when searched */
    uint8_t age;
};

struct qk_tt_bucket {
    struct qk_tt_entry e[TT_BUCKET];
};

struct qk_engine_work {
    /* Per search. */
    const qk_variant *v;
    qk_vinfo vi;
    qk_pos pos;
    bool check_status; /* the variant ends games other than by no-move */
    uint64_t nodes, node_limit;
    uint64_t qs_end; /* nodes value at which the current quiescence stops */
    struct timespec start, deadline;
    bool timed;
    const atomic_int *stop;
    bool aborted;
    bool error;
    size_t mtop;
    /* Across searches (cleared by qk_engine_clear). */
    uint16_t killers[QK_ENGINE_MAX_PLY][2];
    int32_t history[2][QK_MAX_POINTS][QK_MAX_POINTS];
    uint16_t pv[QK_ENGINE_MAX_PLY][QK_ENGINE_MAX_PV];
    uint8_t pvlen[QK_ENGINE_MAX_PLY];
    qk_move moves[MOVE_STACK];
    int32_t order[MOVE_STACK];
};

/* ---- context -------------------------------------------------------- */

int qk_engine_init(qk_engine *e, size_t tt_bytes)
{
    if (!e)
        return QK_EINVAL;
    memset(e, 0, sizeof *e);
    if (tt_bytes == 0)
        tt_bytes = QK_ENGINE_DEFAULT_TT;
    if (tt_bytes < 65536)
        tt_bytes = 65536;
    size_t nb = 1;
    while (nb * 2 * sizeof(struct qk_tt_bucket) <= tt_bytes)
        nb *= 2;
    e->tt = calloc(nb, sizeof(struct qk_tt_bucket));
    e->work = calloc(1, sizeof *e->work);
    size_t sbytes = tt_bytes / 4 < SOLVER_MIN_TABLE ? SOLVER_MIN_TABLE : tt_bytes / 4;
    if (!e->tt || !e->work || qk_solver_init(&e->solver, sbytes) != QK_OK) {
        qk_engine_free(e);
        return QK_ENOMEM;
    }
    e->tt_buckets = nb;
    qk_engine_seed(e, 0);
    return QK_OK;
}

void qk_engine_free(qk_engine *e)
{
    if (!e)
        return;
    free(e->tt);
    free(e->work);
    qk_solver_free(&e->solver);
    memset(e, 0, sizeof *e);
}

void qk_engine_seed(qk_engine *e, uint64_t seed)
{
    if (e)
        e->rng = qk_mix64(seed) | 1; /* xorshift needs a non-zero state */
}

void qk_engine_clear(qk_engine *e)
{
    if (!e || !e->tt)
        return;
    memset(e->tt, 0, e->tt_buckets * sizeof(struct qk_tt_bucket));
    memset(e->work->killers, 0, sizeof e->work->killers);
    memset(e->work->history, 0, sizeof e->work->history);
    qk_solver_clear(&e->solver);
}

/* xorshift64* (Vigna 2016). */
static uint64_t rng_next(qk_engine *e)
{
    e->rng ^= e->rng >> 12;
    e->rng ^= e->rng << 25;
    e->rng ^= e->rng >> 27;
    return e->rng * 0x2545F4914F6CDD1Dull;
}

/* ---- limits --------------------------------------------------------- */

static uint32_t elapsed_ms(const struct timespec *t0)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    int64_t ms = (int64_t)(now.tv_sec - t0->tv_sec) * 1000 + (now.tv_nsec - t0->tv_nsec) / 1000000;
    return ms < 0 ? 0 : (uint32_t)ms;
}

static bool out_of_budget(struct qk_engine_work *w)
{
    if (w->aborted)
        return true;
    if (w->node_limit && w->nodes >= w->node_limit)
        w->aborted = true;
    else if ((w->nodes & 1023) == 0) {
        if (w->stop && atomic_load(w->stop))
            w->aborted = true;
        else if (w->timed && qk_deadline_passed(&w->deadline))
            w->aborted = true;
    }
    return w->aborted;
}

/* ---- transposition table --------------------------------------------- */

static struct qk_tt_entry *tt_probe(qk_engine *e, uint64_t key)
{
    struct qk_tt_bucket *b = &e->tt[key & (e->tt_buckets - 1)];
    for (int i = 0; i < TT_BUCKET; i++)
        if (b->e[i].bound && b->e[i].key == key)
            return &b->e[i];
    return NULL;
}

/* Is an entry's score valid for the current position? The quiet count is
 * not in the key: equal counts are always fine, and so are counts so far
 * from the 40-ply limit that no position of the entry's subtree reached it
 * (no extension adds quiet plies: only forced captures are extended, and
 * the quiescence search plays captures only, which reset the count). */
static bool tt_usable(const struct qk_engine_work *w, const struct qk_tt_entry *t)
{
    if (!w->vi.quiet_rule)
        return true;
    int q = w->pos.quiet > 255 ? 255 : w->pos.quiet;
    if (t->quiet == q)
        return true;
    int qmax = t->quiet > q ? t->quiet : q;
    return qmax + t->depth < QK_QUIET_LIMIT;
}

static void tt_store(qk_engine *e, uint64_t key, int depth, int bound, int score, uint16_t move,
                     int quiet)
{
    struct qk_tt_bucket *b = &e->tt[key & (e->tt_buckets - 1)];
    struct qk_tt_entry *t = NULL;
    for (int i = 0; i < TT_BUCKET; i++)
        if (b->e[i].bound && b->e[i].key == key) {
            t = &b->e[i];
            /* Keep a deeper result of this search unless the new one is exact. */
            if (t->age == e->age && t->depth > depth + 2 && bound != EXACT)
                return;
            if (!move)
                move = t->move;
            break;
        }
    if (!t) {
        int worst = 1 << 30;
        for (int i = 0; i < TT_BUCKET; i++) {
            struct qk_tt_entry *c = &b->e[i];
            int value = !c->bound ? -1 : c->depth + (c->age == e->age ? 256 : 0);
            if (value < worst) {
                worst = value;
                t = c;
            }
        }
    }
    t->key = key;
    t->score = (int16_t)score;
    t->move = move;
    t->depth = (uint8_t)(depth < 0 ? 0 : depth);
    t->bound = (uint8_t)bound;
    t->quiet = (uint8_t)(quiet > 255 ? 255 : quiet);
    t->age = e->age;
}

/* ---- node helpers ---------------------------------------------------- */

/* Score of a finished game for the side to move at ply. */
static int result_score(const qk_pos *p, qk_result r, int ply)
{
    if (r == QK_RESULT_DRAW || r == QK_RESULT_NONE)
        return 0;
    bool mover = (r == QK_RESULT_WHITE) == (p->side == QK_WHITE);
    return mover ? QK_SCORE_WIN - ply : -(QK_SCORE_WIN - ply);
}

/* Generate the moves of the current position on top of the move stack.
 * Returns the count, or 0 with *score set when the node is a leaf: the game
 * is over, or the moves do not fit in the rest of the stack (then the
 * static evaluation; at the root an error). The whole rest of the stack is
 * offered, not QK_MAX_MOVES: capture prefixes of the traditional variant
 * exceed 1024 in reachable positions (1285 in
 * "bbbbb/.wbbb/.w.w./wwwww/.w.w. b 8 -"). */
static int expand(struct qk_engine_work *w, int ply, int *score)
{
    int n = qk_movegen(w->v, &w->pos, w->moves + w->mtop, (int)(MOVE_STACK - w->mtop));
    if (n < 0) {
        if (w->mtop == 0) {
            w->error = w->aborted = true;
            *score = 0;
        } else {
            *score = qk_vinfo_eval(&w->vi, &w->pos);
        }
        return 0;
    }
    if (n == 0) {
        *score = -(QK_SCORE_WIN - ply); /* section 8.1: no move loses */
        return 0;
    }
    qk_result r;
    if (w->check_status && qk_pos_status(w->v, &w->pos, &r, NULL)) {
        *score = result_score(&w->pos, r, ply);
        return 0;
    }
    return n;
}

static int piece_value(const struct qk_engine_work *w, int pc)
{
    return pc == QK_WSULTAN || pc == QK_BSULTAN ? w->vi.sultan : w->vi.man;
}

/* Ordering scores of the n moves at w->moves[base..]. */
static void order_moves(struct qk_engine_work *w, size_t base, int n, int ply, uint16_t ttmove)
{
    const qk_move *m = w->moves + base;
    int32_t *o = w->order + base;
    int side = w->pos.side == QK_BLACK;
    for (int i = 0; i < n; i++) {
        uint16_t id = qk_move_id(&m[i]);
        if (id == ttmove) {
            o[i] = 1 << 30;
        } else if (m[i].ncap) {
            int gain = 0;
            for (int k = 0; k < m[i].ncap; k++)
                gain += piece_value(w, w->pos.sq[m[i].cap[k]]);
            o[i] = (1 << 27) + gain;
        } else if (id == w->killers[ply][0]) {
            o[i] = KILLER + 1;
        } else if (id == w->killers[ply][1]) {
            o[i] = KILLER;
        } else {
            int32_t h = w->history[side][m[i].path[0]][m[i].path[m[i].len - 1]];
            o[i] = h > HISTORY_MAX ? HISTORY_MAX : h;
        }
    }
}

/* Bring the best-ordered move of [i, n) at base to i (selection sort: most
 * nodes are cut after one or two moves). */
static void pick(struct qk_engine_work *w, size_t base, int i, int n)
{
    qk_move *m = w->moves + base;
    int32_t *o = w->order + base;
    int k = i;
    for (int j = i + 1; j < n; j++)
        if (o[j] > o[k])
            k = j;
    if (k != i) {
        qk_move tm = m[i];
        m[i] = m[k];
        m[k] = tm;
        int32_t to = o[i];
        o[i] = o[k];
        o[k] = to;
    }
}

static void update_pv(struct qk_engine_work *w, int ply, uint16_t id)
{
    w->pv[ply][0] = id;
    int len = 1;
    if (ply + 1 < QK_ENGINE_MAX_PLY)
        for (int k = 0; k < w->pvlen[ply + 1] && len < QK_ENGINE_MAX_PV; k++)
            w->pv[ply][len++] = w->pv[ply + 1][k];
    w->pvlen[ply] = (uint8_t)len;
}

/* ---- search --------------------------------------------------------- */

/* Quiescence over the n moves already on the stack at this node. */
static int qsearch_moves(struct qk_engine_work *w, int ply, int alpha, int beta, int qply, int n)
{
    size_t base = w->mtop;
    const qk_move *m = w->moves + base;
    bool quiet = false, capture = false;
    for (int i = 0; i < n; i++) {
        if (m[i].ncap)
            capture = true;
        else
            quiet = true;
    }
    int best = -QK_SCORE_INF;
    bool limit = qply >= QS_MAX || ply >= QK_ENGINE_MAX_PLY - 1 || w->nodes >= w->qs_end;
    if (quiet || limit) {
        /* Stand pat: the side may play a quiet move instead of capturing. */
        best = qk_vinfo_eval(&w->vi, &w->pos);
        if (!capture || best >= beta || limit)
            return best;
        if (best > alpha)
            alpha = best;
    }
    order_moves(w, base, n, ply, 0);
    w->mtop += (size_t)n;
    for (int i = 0; i < n; i++) {
        pick(w, base, i, n);
        qk_move mv = w->moves[base + (size_t)i];
        if (!mv.ncap)
            break; /* captures are ordered first */
        qk_undo u;
        qk_pos_make(w->v, &w->pos, &mv, &u);
        w->nodes++;
        int v = 0;
        if (!out_of_budget(w)) {
            int leaf, cn = expand(w, ply + 1, &leaf);
            v = cn ? -qsearch_moves(w, ply + 1, -beta, -alpha, qply + 1, cn) : -leaf;
        }
        qk_pos_unmake(w->v, &w->pos, &mv, &u);
        if (w->aborted)
            break;
        if (v > best) {
            best = v;
            if (v > alpha) {
                alpha = v;
                if (alpha >= beta)
                    break;
            }
        }
    }
    w->mtop = base;
    return best;
}

static int search(qk_engine *e, int depth, int ply, int alpha, int beta, bool pv_node);

/* Search the current position, reached at ply; the node is counted. */
static int child(qk_engine *e, int depth, int ply, int alpha, int beta, bool pv_node)
{
    struct qk_engine_work *w = e->work;
    w->nodes++;
    if (ply < QK_ENGINE_MAX_PLY)
        w->pvlen[ply] = 0;
    if (out_of_budget(w))
        return 0;
    return search(e, depth, ply, alpha, beta, pv_node);
}

static int search(qk_engine *e, int depth, int ply, int alpha, int beta, bool pv_node)
{
    struct qk_engine_work *w = e->work;
    int leaf, n;
    if (depth <= 0 || ply >= QK_ENGINE_MAX_PLY - 1) {
        n = expand(w, ply, &leaf);
        w->qs_end = w->nodes + QS_NODES;
        return n ? qsearch_moves(w, ply, alpha, beta, 0, n) : leaf;
    }

    /* Mate-distance pruning: nothing here beats a win at ply + 1. */
    int mate_hi = QK_SCORE_WIN - ply - 1;
    if (beta > mate_hi) {
        beta = mate_hi;
        if (alpha >= beta)
            return beta;
    }

    /* The table first: a cut saves the move generation. Its scores are
     * exact for finished games too, so this order is safe. */
    uint64_t key = qk_vinfo_key(&w->vi, &w->pos);
    uint16_t ttmove = 0;
    struct qk_tt_entry *t = tt_probe(e, key);
    if (t) {
        ttmove = t->move;
        if (!pv_node && t->depth >= depth && tt_usable(w, t)) {
            int s = qk_score_to_root(t->score, ply);
            if (t->bound == EXACT || (t->bound == LOWER && s >= beta) ||
                (t->bound == UPPER && s <= alpha))
                return s;
        }
    }
    n = expand(w, ply, &leaf);
    if (n == 0)
        return leaf;

    size_t base = w->mtop;
    order_moves(w, base, n, ply, ttmove);
    /* A forced capture costs no depth (compulsory chains, sections 3, 5). */
    int ext = n == 1 && w->moves[base].ncap ? 1 : 0;
    int alpha0 = alpha, best = -QK_SCORE_INF;
    uint16_t bestid = 0;
    int side = w->pos.side == QK_BLACK;
    w->mtop += (size_t)n;
    for (int i = 0; i < n; i++) {
        pick(w, base, i, n);
        qk_move mv = w->moves[base + (size_t)i];
        int32_t ord = w->order[base + (size_t)i];
        int nd = depth - 1 + ext;
        /* Late quiet moves (not the table's, a capture or a killer) are
         * searched shallower first. */
        int red = 0;
        if (depth >= 3 && i >= 3 && !mv.ncap && ord < KILLER)
            red = i >= 8 && depth >= 6 ? 2 : 1;
        qk_undo u;
        qk_pos_make(w->v, &w->pos, &mv, &u);
        int v;
        if (i == 0) {
            v = -child(e, nd, ply + 1, -beta, -alpha, pv_node);
        } else {
            v = -child(e, nd - red, ply + 1, -alpha - 1, -alpha, false);
            if (v > alpha && red && !w->aborted)
                v = -child(e, nd, ply + 1, -alpha - 1, -alpha, false);
            if (v > alpha && v < beta && pv_node && !w->aborted)
                v = -child(e, nd, ply + 1, -beta, -alpha, true);
        }
        qk_pos_unmake(w->v, &w->pos, &mv, &u);
        if (w->aborted) {
            w->mtop = base;
            return 0;
        }
        if (v > best) {
            best = v;
            bestid = qk_move_id(&mv);
            if (v > alpha) {
                alpha = v;
                update_pv(w, ply, bestid);
                if (alpha >= beta) {
                    if (!mv.ncap) {
                        if (w->killers[ply][0] != bestid) {
                            w->killers[ply][1] = w->killers[ply][0];
                            w->killers[ply][0] = bestid;
                        }
                        int32_t *h = &w->history[side][mv.path[0]][mv.path[mv.len - 1]];
                        *h += depth * depth;
                        if (*h > HISTORY_MAX)
                            *h = HISTORY_MAX;
                    }
                    break;
                }
            }
        }
    }
    w->mtop = base;
    int bound = best <= alpha0 ? UPPER : best >= beta ? LOWER : EXACT;
    tt_store(e, key, depth, bound, qk_score_to_node(best, ply), bound == UPPER ? 0 : bestid,
             w->pos.quiet);
    return best;
}

/* ---- root ----------------------------------------------------------- */

/* Turn the root PV (move ids) into moves by replaying it from p. */
static int pv_moves(struct qk_engine_work *w, const qk_pos *p, qk_move *out, int cap)
{
    qk_pos pos = *p;
    int len = 0;
    qk_move *buf = w->moves + w->mtop;
    size_t room = MOVE_STACK - w->mtop;
    int lim = (int)room;
    for (int k = 0; k < w->pvlen[0] && len < cap; k++) {
        int n = qk_movegen(w->v, &pos, buf, lim);
        int found = -1;
        for (int i = 0; i < n; i++)
            if (qk_move_id(&buf[i]) == w->pv[0][k]) {
                found = i;
                break;
            }
        if (found < 0)
            break;
        out[len++] = buf[found];
        qk_undo u;
        qk_pos_make(w->v, &pos, &out[len - 1], &u);
        if (qk_pos_status(w->v, &pos, NULL, NULL))
            break;
    }
    return len;
}

/* Alquerkonane: let the solver decide when it can within budget: exact
 * distances first (the fastest win, the longest defence), else only the
 * winner (a winning move never lets the win slip; a proven loss is left to
 * the search, which resists as long as it sees). Each attempt gets half of
 * the solver's share: solver_nodes or a default, and a quarter of time_ms.
 * Returns true with *out filled when the move is decided. */
static bool try_solver(qk_engine *e, const qk_variant *v, const qk_pos *p, const qk_limits *lim,
                       qk_search_result *out)
{
    qk_solve_limits sl = {0};
    sl.stop = lim->stop;
    sl.nodes = lim->solver_nodes;
    if (!sl.nodes && !qk_solve_feasible(v, p) && !lim->perfect)
        sl.nodes = SOLVER_PROBE_NODES;
    if (lim->nodes && (!sl.nodes || sl.nodes > lim->nodes / 2))
        sl.nodes = lim->nodes / 2;
    sl.nodes = sl.nodes ? (sl.nodes + 1) / 2 : 0;
    sl.time_ms = lim->perfect ? lim->time_ms / 2 : lim->time_ms / 4;
    if (lim->time_ms && !sl.time_ms)
        sl.time_ms = 1;
    qk_solve_result r;
    for (int pass = 0; pass < 2; pass++) {
        sl.winner_only = pass == 1;
        if (qk_solve(&e->solver, v, p, &sl, &r) != QK_OK)
            return false;
        out->nodes += r.nodes;
        if (r.solved && r.has_move && (r.exact || r.mover_wins))
            break;
        if (r.solved || pass == 1)
            return false; /* a proven loss of unknown length: search on */
    }
    out->has_move = true;
    out->best = r.best;
    out->solved = true;
    out->score = r.exact ? r.score : QK_SCORE_MATE;
    out->depth = r.exact ? r.distance : 0;
    out->pv_len = r.exact ? qk_solve_pv(&e->solver, v, p, out->pv, QK_ENGINE_MAX_PV) : 0;
    if (out->pv_len == 0 || qk_move_id(&out->pv[0]) != qk_move_id(&r.best)) {
        out->pv[0] = r.best;
        out->pv_len = 1;
    }
    return true;
}

int qk_engine_search(qk_engine *e, const qk_variant *v, const qk_pos *p, const qk_limits *lim,
                     qk_search_result *out)
{
    if (!e || !e->tt || !e->work || !v || !p || !out)
        return QK_EINVAL;
    qk_limits deflim = {0};
    if (!lim) {
        deflim.time_ms = QK_ENGINE_DEFAULT_MS;
        lim = &deflim;
    }
    memset(out, 0, sizeof *out);
    struct qk_engine_work *w = e->work;
    w->v = v;
    qk_vinfo_prepare(&w->vi, v);
    w->pos = *p;
    w->check_status = w->vi.quiet_rule || qk_variant_has_draws(v);
    w->nodes = 0;
    w->node_limit = lim->nodes;
    w->stop = lim->stop;
    w->aborted = w->error = false;
    w->mtop = 0;
    clock_gettime(CLOCK_MONOTONIC, &w->start);
    w->timed = lim->time_ms > 0;
    if (w->timed)
        w->deadline = qk_deadline(lim->time_ms);
    e->age++;
    for (int s = 0; s < 2; s++)
        for (int a = 0; a < QK_MAX_POINTS; a++)
            for (int b = 0; b < QK_MAX_POINTS; b++)
                w->history[s][a][b] /= 2;
    memset(w->killers, 0, sizeof w->killers);
    memset(w->pvlen, 0, sizeof w->pvlen);

    if (qk_pos_status(v, p, NULL, NULL))
        return QK_OK; /* game over: no move */
    int leaf, n = expand(w, 0, &leaf);
    if (w->error)
        return QK_ENOSPC;
    if (n == 0)
        return QK_OK;

    if (w->vi.family == QK_FAM_KONANE && !lim->no_solver && try_solver(e, v, p, lim, out)) {
        w->nodes = out->nodes;
        goto chosen;
    }
    w->nodes = out->nodes; /* a failed solver attempt still counts */

    /* Root moves live at the bottom of the stack for the whole search. */
    qk_move *rm = w->moves;
    struct qk_tt_entry *t = tt_probe(e, qk_vinfo_key(&w->vi, &w->pos));
    order_moves(w, 0, n, 0, t ? t->move : 0);
    for (int i = 0; i < n; i++)
        pick(w, 0, i, n);
    w->mtop = (size_t)n;
    out->has_move = true;
    out->best = rm[0];
    out->score = qk_vinfo_eval(&w->vi, &w->pos);

    int maxdepth =
        lim->depth > 0 && lim->depth < QK_ENGINE_MAX_DEPTH ? lim->depth : QK_ENGINE_MAX_DEPTH;
    if (n == 1 && maxdepth > 8)
        maxdepth = 8; /* nothing to choose; a short look for the score */
    for (int depth = 1; depth <= maxdepth; depth++) {
        int alpha = -QK_SCORE_INF, beta = QK_SCORE_INF, best = -QK_SCORE_INF, besti = -1;
        for (int i = 0; i < n; i++) {
            qk_undo u;
            qk_pos_make(v, &w->pos, &rm[i], &u);
            int val;
            if (i == 0) {
                val = -child(e, depth - 1, 1, -beta, -alpha, true);
            } else {
                val = -child(e, depth - 1, 1, -alpha - 1, -alpha, false);
                if (val > alpha && !w->aborted)
                    val = -child(e, depth - 1, 1, -beta, -alpha, true);
            }
            qk_pos_unmake(v, &w->pos, &rm[i], &u);
            if (w->aborted)
                break;
            if (val > best) {
                best = val;
                besti = i;
                alpha = val;
                update_pv(w, 0, qk_move_id(&rm[i]));
            }
        }
        if (w->error)
            return QK_ENOSPC;
        /* An interrupted iteration still proved its best move at least as
         * good as the previous one (searched first), so it is kept. */
        if (besti >= 0 && (!w->aborted || besti > 0 || depth == 1)) {
            qk_move bm = rm[besti];
            memmove(rm + 1, rm, (size_t)besti * sizeof *rm);
            rm[0] = bm;
            out->best = bm;
            out->score = best;
            out->pv_len = pv_moves(w, p, out->pv, QK_ENGINE_MAX_PV);
            if (!w->aborted) {
                out->depth = depth;
                tt_store(e, qk_vinfo_key(&w->vi, &w->pos), depth, EXACT, qk_score_to_node(best, 0),
                         qk_move_id(&bm), w->pos.quiet);
            }
        }
        if (w->aborted)
            break;
        /* A forced result shorter than the depth searched is final. */
        int absb = best < 0 ? -best : best;
        if (absb >= QK_SCORE_MATE && QK_SCORE_WIN - absb < depth)
            break;
        if (w->timed && elapsed_ms(&w->start) * 2 > lim->time_ms)
            break; /* the next iteration would not finish */
    }
    if (out->pv_len == 0 || qk_move_id(&out->pv[0]) != qk_move_id(&out->best)) {
        out->pv[0] = out->best;
        out->pv_len = 1;
    }

chosen:
    if (lim->mistake_pct > 0 && n > 1 && (int)(rng_next(e) % 100) < lim->mistake_pct) {
        /* A uniformly random move other than the best. */
        qk_move *all = w->moves;
        w->mtop = 0;
        n = qk_movegen(v, p, all, MOVE_STACK);
        int bi = 0;
        for (int i = 0; i < n; i++)
            if (qk_move_id(&all[i]) == qk_move_id(&out->best))
                bi = i;
        int k = (int)(rng_next(e) % (uint64_t)(n - 1));
        if (k >= bi)
            k++;
        out->best = all[k];
        out->mistake = true;
        out->pv[0] = all[k];
        out->pv_len = 1;
    }
    out->nodes = w->nodes;
    out->time_ms = elapsed_ms(&w->start);
    return QK_OK;
}

int qk_engine_level_limits(int level, uint32_t budget_ms, qk_limits *out)
{
    if (!out || level < 1 || level > 4)
        return QK_EINVAL;
    if (budget_ms == 0)
        budget_ms = QK_ENGINE_DEFAULT_MS;
    memset(out, 0, sizeof *out);
    switch (level) {
    case 1:
        out->depth = 2;
        out->time_ms = budget_ms / 4 ? budget_ms / 4 : 1;
        out->mistake_pct = 30;
        out->no_solver = true;
        break;
    case 2:
        out->depth = 6;
        out->time_ms = budget_ms / 2 ? budget_ms / 2 : 1;
        break;
    case 4:
        out->time_ms = budget_ms;
        out->perfect = true;
        break;
    default:
        out->time_ms = budget_ms;
        break;
    }
    return QK_OK;
}
