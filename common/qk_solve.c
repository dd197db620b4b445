/*
 * qk_solve: exact Alquerkonane solver; see qk_solve.h for the method.
 *
 * Scores inside the search are relative to the root (a loss at ply k is
 * -(QK_SCORE_WIN - k)); table entries are relative to their own position
 * (converted by the ply on the way in and out, as chess programs store
 * mate scores), which is what makes an entry valid wherever the position
 * recurs. Every value is path-independent in Alquerkonane (no draws, no
 * repetition or move-count rule, RULES.md section 7), so bounds learnt in
 * different searches of the same position may be merged.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "qk_engine.h"
#include "qk_engine_int.h"
#include "qk_solve.h"

#define BUCKET 4
#define ORDER_MAX 256 /* moves ordered per position; more are searched as generated */

struct qk_solve_entry {
    uint64_t key;
    int16_t lo, hi; /* bounds relative to this position; lo == hi == 0: empty */
    uint16_t move;  /* qk_move_id() of the best move known, 0 if none */
    uint8_t work;   /* log2 of the positions its last search visited */
    uint8_t pad;
};

typedef struct sv {
    qk_solver *s;
    const qk_variant *v;
    qk_vinfo vi;
    qk_pos pos;
    uint64_t nodes, expanded, node_limit;
    struct timespec deadline;
    bool timed;
    const atomic_int *stop;
    bool aborted;
    bool nospc;
    size_t mtop;
    uint32_t history[2][QK_MAX_POINTS];
    qk_move root_best;
    bool root_has;
} sv;

static int split(qk_solver *s, void *buf, size_t bytes)
{
    size_t mbytes = bytes / 16;
    if (mbytes < 2 * QK_MAX_MOVES * sizeof(qk_move))
        mbytes = 2 * QK_MAX_MOVES * sizeof(qk_move);
    if (bytes < mbytes + BUCKET * sizeof(struct qk_solve_entry))
        return QK_EINVAL;
    size_t nb = 1;
    while (nb * 2 * BUCKET * sizeof(struct qk_solve_entry) <= bytes - mbytes)
        nb *= 2;
    s->table = buf;
    s->nbuckets = nb;
    /* The move stack follows the table, which keeps the table's alignment. */
    s->moves = (qk_move *)((char *)buf + nb * BUCKET * sizeof(struct qk_solve_entry));
    s->nmoves = (bytes - nb * BUCKET * sizeof(struct qk_solve_entry)) / sizeof(qk_move);
    qk_solver_clear(s);
    return QK_OK;
}

int qk_solver_init(qk_solver *s, size_t bytes)
{
    if (!s || bytes < QK_SOLVE_MIN_BYTES)
        return QK_EINVAL;
    memset(s, 0, sizeof *s);
    void *mem = malloc(bytes);
    if (!mem)
        return QK_ENOMEM;
    int rc = split(s, mem, bytes);
    if (rc != QK_OK) {
        free(mem);
        memset(s, 0, sizeof *s);
        return rc;
    }
    s->mem = mem;
    return QK_OK;
}

int qk_solver_init_buffer(qk_solver *s, void *buf, size_t bytes)
{
    if (!s || !buf || bytes < QK_SOLVE_MIN_BYTES)
        return QK_EINVAL;
    memset(s, 0, sizeof *s);
    return split(s, buf, bytes);
}

void qk_solver_free(qk_solver *s)
{
    if (!s)
        return;
    free(s->mem);
    memset(s, 0, sizeof *s);
}

void qk_solver_clear(qk_solver *s)
{
    if (s && s->table)
        memset(s->table, 0, s->nbuckets * BUCKET * sizeof(struct qk_solve_entry));
}

bool qk_solve_feasible(const qk_variant *v, const qk_pos *p)
{
    if (!v || !p || !qk_variant_is_konane(v))
        return false;
    int squares = v->ranks * v->files, pawns = 0;
    for (int i = 0; i < squares; i++)
        pawns += p->sq[i] != QK_EMPTY;
    return squares <= 30 || pawns <= 8;
}

static struct qk_solve_entry *probe(qk_solver *s, uint64_t key)
{
    struct qk_solve_entry *b = s->table + (key & (s->nbuckets - 1)) * BUCKET;
    for (int i = 0; i < BUCKET; i++)
        if (b[i].key == key && (b[i].lo != 0 || b[i].hi != 0))
            return &b[i];
    return NULL;
}

static void store(qk_solver *s, uint64_t key, int lo, int hi, uint16_t move, uint8_t work)
{
    struct qk_solve_entry *b = s->table + (key & (s->nbuckets - 1)) * BUCKET, *e = NULL;
    for (int i = 0; i < BUCKET; i++)
        if (b[i].key == key && (b[i].lo != 0 || b[i].hi != 0)) {
            /* Same position: both bounds hold, keep the tighter ones. */
            e = &b[i];
            if (e->lo > lo)
                lo = e->lo;
            if (e->hi < hi)
                hi = e->hi;
            if (!move)
                move = e->move;
            if (e->work > work)
                work = e->work;
            break;
        }
    if (!e) {
        for (int i = 0; i < BUCKET; i++) {
            if (b[i].lo == 0 && b[i].hi == 0) {
                e = &b[i];
                break;
            }
            if (!e || b[i].work < e->work)
                e = &b[i];
        }
    }
    e->key = key;
    e->lo = (int16_t)lo;
    e->hi = (int16_t)hi;
    e->move = move;
    e->work = work;
}

static uint8_t log2u(uint64_t x)
{
    uint8_t r = 0;
    while (x > 1) {
        x >>= 1;
        r++;
    }
    return r;
}

static int solve(sv *s, int alpha, int beta, int ply)
{
    s->nodes++;
    if ((s->node_limit && s->nodes > s->node_limit) ||
        ((s->nodes & 1023) == 0 &&
         ((s->stop && atomic_load(s->stop)) || (s->timed && qk_deadline_passed(&s->deadline))))) {
        s->aborted = true;
        return 0;
    }
    /* Mate-distance bounds: a loss here is at ply, a win at ply + 1 at best. */
    if (alpha < -(QK_SCORE_WIN - ply))
        alpha = -(QK_SCORE_WIN - ply);
    if (beta > QK_SCORE_WIN - ply - 1)
        beta = QK_SCORE_WIN - ply - 1;
    if (alpha >= beta)
        return alpha;

    uint64_t key = qk_vinfo_key(&s->vi, &s->pos);
    uint16_t ttmove = 0;
    struct qk_solve_entry *e = probe(s->s, key);
    if (e) {
        int lo = qk_score_to_root(e->lo, ply), hi = qk_score_to_root(e->hi, ply);
        if (ply > 0) {
            if (lo >= beta || lo == hi)
                return lo;
            if (hi <= alpha)
                return hi;
        }
        if (lo > alpha && lo < beta && ply > 0)
            alpha = lo;
        if (hi < beta && hi > alpha && ply > 0)
            beta = hi;
        ttmove = e->move;
    }

    s->expanded++;
    uint64_t nodes0 = s->nodes;
    qk_move *moves = s->s->moves + s->mtop;
    size_t cap = s->s->nmoves - s->mtop;
    int n = qk_movegen(s->v, &s->pos, moves, cap > INT_MAX ? INT_MAX : (int)cap);
    if (n < 0) {
        s->aborted = true;
        s->nospc = true;
        return 0;
    }
    if (n == 0) {
        /* Section 7: the side to move with no legal move loses. */
        int v = -(QK_SCORE_WIN - ply);
        store(s->s, key, qk_score_to_node(v, ply), qk_score_to_node(v, ply), 0, 0);
        return v;
    }
    int32_t score[ORDER_MAX];
    int side = s->pos.side == QK_BLACK;
    bool big = n > (int)(sizeof score / sizeof score[0]);
    for (int i = 0; i < n && !big; i++) {
        uint16_t id = qk_move_id(&moves[i]);
        score[i] =
            id == ttmove
                ? 1 << 30
                : (moves[i].ncap ? 1 << 24 : 0) +
                      (int32_t)(s->history[side][moves[i].path[moves[i].len - 1]] & 0xFFFFFF);
    }
    s->mtop += (size_t)n;

    int alpha0 = alpha, best = -QK_SCORE_INF;
    uint16_t bestid = 0;
    for (int i = 0; i < n; i++) {
        if (!big) {
            int k = i;
            for (int j = i + 1; j < n; j++)
                if (score[j] > score[k])
                    k = j;
            if (k != i) {
                qk_move tm = moves[i];
                moves[i] = moves[k];
                moves[k] = tm;
                int32_t ts = score[i];
                score[i] = score[k];
                score[k] = ts;
            }
        }
        qk_undo u;
        qk_pos_make(s->v, &s->pos, &moves[i], &u);
        int v;
        if (i == 0) {
            v = -solve(s, -beta, -alpha, ply + 1);
        } else {
            v = -solve(s, -alpha - 1, -alpha, ply + 1);
            if (v > alpha && v < beta && !s->aborted)
                v = -solve(s, -beta, -alpha, ply + 1);
        }
        qk_pos_unmake(s->v, &s->pos, &moves[i], &u);
        if (s->aborted) {
            s->mtop -= (size_t)n;
            return 0;
        }
        if (v > best) {
            best = v;
            bestid = qk_move_id(&moves[i]);
            if (ply == 0) {
                s->root_best = moves[i];
                s->root_has = true;
            }
            if (v > alpha) {
                alpha = v;
                if (alpha >= beta) {
                    uint32_t *h = &s->history[side][moves[i].path[moves[i].len - 1]];
                    if (*h < 0xFFFFFF)
                        (*h)++;
                    break;
                }
            }
        }
    }
    s->mtop -= (size_t)n;

    int lo = -QK_SCORE_INF, hi = QK_SCORE_INF;
    if (best <= alpha0)
        hi = best; /* fail low: every move is at most best */
    else if (best >= beta)
        lo = best;
    else
        lo = hi = best;
    store(s->s, key, qk_score_to_node(lo, ply), qk_score_to_node(hi, ply),
          best > alpha0 ? bestid : 0, log2u(s->nodes - nodes0 + 1));
    return best;
}

int qk_solve(qk_solver *s, const qk_variant *v, const qk_pos *p, const qk_solve_limits *lim,
             qk_solve_result *out)
{
    if (!s || !v || !p || !out || !s->table || !qk_variant_is_konane(v))
        return QK_EINVAL;
    memset(out, 0, sizeof *out);
    qk_result res;
    if (qk_pos_status(v, p, &res, NULL)) {
        /* Finished: the side to move has no legal move and has lost. */
        out->solved = out->exact = true;
        out->winner = res;
        out->mover_wins = (res == QK_RESULT_WHITE) == (p->side == QK_WHITE);
        out->score = out->mover_wins ? QK_SCORE_WIN : -QK_SCORE_WIN;
        out->nodes = 1;
        return QK_OK;
    }

    sv state, *st = &state; /* about 5 KiB of stack, no allocation */
    memset(st, 0, sizeof *st);
    st->s = s;
    st->v = v;
    qk_vinfo_prepare(&st->vi, v);
    st->pos = *p;
    if (lim) {
        st->node_limit = lim->nodes;
        st->stop = lim->stop;
        if (lim->time_ms) {
            st->deadline = qk_deadline(lim->time_ms);
            st->timed = true;
        }
    }
    bool wo = lim && lim->winner_only;
    /* Every value is a win or a loss, never 0: the window (-1, 1) asks only
     * for its sign. */
    int score = wo ? solve(st, -1, 1, 0) : solve(st, -QK_SCORE_INF, QK_SCORE_INF, 0);
    int rc = QK_OK;
    out->nodes = st->nodes;
    out->expanded = st->expanded;
    if (st->nospc) {
        rc = QK_ENOSPC;
    } else if (!st->aborted && st->root_has) {
        out->solved = true;
        out->exact = !wo;
        out->mover_wins = score > 0;
        out->score = wo ? (score > 0 ? 1 : -1) : score;
        out->distance = wo ? -1 : QK_SCORE_WIN - (score > 0 ? score : -score);
        bool white_wins = out->mover_wins == (p->side == QK_WHITE);
        out->winner = white_wins ? QK_RESULT_WHITE : QK_RESULT_BLACK;
        out->has_move = true;
        out->best = st->root_best;
    }
    return rc;
}

int qk_solve_pv(qk_solver *s, const qk_variant *v, const qk_pos *p, qk_move *pv, int cap)
{
    if (!s || !v || !p || !pv || !s->table || cap <= 0)
        return 0;
    qk_vinfo vi;
    qk_vinfo_prepare(&vi, v);
    qk_pos pos = *p;
    int len = 0;
    int lim = s->nmoves > INT_MAX ? INT_MAX : (int)s->nmoves;
    while (len < cap) {
        struct qk_solve_entry *e = probe(s, qk_vinfo_key(&vi, &pos));
        if (!e || !e->move)
            break;
        int n = qk_movegen(v, &pos, s->moves, lim);
        int k = -1;
        for (int i = 0; i < n; i++)
            if (qk_move_id(&s->moves[i]) == e->move) {
                k = i;
                break;
            }
        if (k < 0)
            break;
        pv[len++] = s->moves[k];
        qk_undo u;
        qk_pos_make(v, &pos, &pv[len - 1], &u);
    }
    return len;
}
