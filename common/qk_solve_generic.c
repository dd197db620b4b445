/*
 * qk_solve_generic: the solver's search through the rules API
 * (qk_movegen, qk_pos_make), for Alquerkonane boards over 64 squares,
 * which the bit boards of qk_solve_bb.c do not hold. Same method and table
 * as there (qk_solve.h); moves are ordered by the table's move, captures,
 * then a history score. One thread.
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

#include "qk_solve_int.h"

#define ORDER_MAX 256 /* moves ordered per position; more are searched as generated */

typedef struct gsv {
    qk_sctl *c;
    const qk_variant *v;
    qk_vinfo vi;
    qk_pos pos;
    size_t mtop;
    uint32_t history[2][QK_MAX_POINTS];
    qk_move root_best;
    bool root_has;
} gsv;

uint64_t qk_solve_generic_key(const qk_variant *v, const qk_pos *p)
{
    qk_vinfo vi;
    qk_vinfo_prepare(&vi, v);
    return qk_vinfo_key(&vi, p);
}

static int solve(gsv *s, int alpha, int beta, int ply)
{
    qk_sctl *c = s->c;
    if (qk_sctl_tick(c))
        return 0;
    /* Mate-distance bounds: a loss here is at ply, a win at ply + 1 at best. */
    if (alpha < -(QK_SCORE_WIN - ply))
        alpha = -(QK_SCORE_WIN - ply);
    if (beta > QK_SCORE_WIN - ply - 1)
        beta = QK_SCORE_WIN - ply - 1;
    if (alpha >= beta)
        return alpha;

    uint64_t key = qk_vinfo_key(&s->vi, &s->pos);
    uint16_t ttmove = 0;
    qk_tt_hit h;
    if (qk_tt_probe(c->s, key, &h)) {
        int lo = qk_score_to_root(h.lo, ply), hi = qk_score_to_root(h.hi, ply);
        if (ply > 0) {
            if (lo >= beta || lo == hi)
                return lo;
            if (hi <= alpha)
                return hi;
            if (lo > alpha)
                alpha = lo;
            if (hi < beta)
                beta = hi;
        }
        ttmove = h.move;
    }

    qk_sctl_inc(&c->expanded);
    uint64_t nodes0 = atomic_load_explicit(&c->nodes, memory_order_relaxed);
    qk_move *moves = c->s->moves + s->mtop;
    size_t cap = c->s->nmoves - s->mtop;
    int n = qk_movegen(s->v, &s->pos, moves, cap > INT_MAX ? INT_MAX : (int)cap);
    if (n < 0) {
        c->aborted = true;
        c->nospc = true;
        return 0;
    }
    if (n == 0) {
        /* Section 7: the side to move with no legal move loses. */
        int v = -(QK_SCORE_WIN - ply);
        qk_tt_store(c->s, key, qk_score_to_node(v, ply), qk_score_to_node(v, ply), 0, 0,
                    &c->filled);
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
            if (v > alpha && v < beta && !c->aborted)
                v = -solve(s, -beta, -alpha, ply + 1);
        }
        qk_pos_unmake(s->v, &s->pos, &moves[i], &u);
        if (c->aborted) {
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
                    uint32_t *hs = &s->history[side][moves[i].path[moves[i].len - 1]];
                    if (*hs < 0xFFFFFF)
                        (*hs)++;
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
    uint64_t work = atomic_load_explicit(&c->nodes, memory_order_relaxed) - nodes0 + 1;
    qk_tt_store(c->s, key, qk_score_to_node(lo, ply), qk_score_to_node(hi, ply),
                best > alpha0 ? bestid : 0, qk_log2u(work), &c->filled);
    return best;
}

int qk_solve_generic(qk_sctl *c, const qk_variant *v, const qk_pos *p, int alpha, int beta,
                     qk_move *best, bool *has_best)
{
    static const gsv zero;
    gsv *s = malloc(sizeof *s); /* about 1.2 KiB: off the stack of small threads */
    if (!s) {
        c->aborted = true;
        return 0;
    }
    *s = zero;
    s->c = c;
    s->v = v;
    qk_vinfo_prepare(&s->vi, v);
    s->pos = *p;
    int score = solve(s, alpha, beta, 0);
    *has_best = s->root_has;
    if (s->root_has)
        *best = s->root_best;
    free(s);
    return score;
}

int qk_solve_generic_pv(qk_solver *s, const qk_variant *v, const qk_pos *p, qk_move *pv, int cap)
{
    qk_vinfo vi;
    qk_vinfo_prepare(&vi, v);
    qk_pos pos = *p;
    int len = 0;
    int lim = s->nmoves > INT_MAX ? INT_MAX : (int)s->nmoves;
    while (len < cap) {
        qk_tt_hit h;
        if (!qk_tt_probe(s, qk_vinfo_key(&vi, &pos), &h) || !h.move)
            break;
        int n = qk_movegen(v, &pos, s->moves, lim);
        int k = -1;
        for (int i = 0; i < n; i++)
            if (qk_move_id(&s->moves[i]) == h.move) {
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
