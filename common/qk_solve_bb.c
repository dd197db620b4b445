/*
 * qk_solve_bb: the solver's search on bit boards, for Alquerkonane boards
 * of at most 64 squares (R, C <= 8).
 *
 * A position is two 64-bit sets (White's pawns, Black's) and the side to
 * move; point p is bit p, p = rank * files + file as in qk_rules.h. The
 * move generator is six shifts per side (two diagonal steps forward,
 * RULES.md section 7, and four orthogonal jumps over an enemy pawn to an
 * empty square); tests/engine/test_certificate.c checks it against
 * qk_movegen() by perft on every board up to 8x8. The reference stays the
 * rules module: certificates are verified with it alone (qk_cert.h).
 *
 * The search is the principal variation search of qk_solve.h over
 * distance-to-end scores. Move ordering is the engine's Alquerkonane
 * measure (qk_engine_eval.c: mobility decides, since a side with no move
 * loses) after the old solver's captures-first rule: the table's move,
 * then captures, each group by the opponent's replies left (fewest first),
 * then the mover's own. Measured on 6x5 exact: mobility alone 4.0 M
 * positions, captures first then mobility 0.57 M, the generic path's
 * captures and history 2.8 M. A move after which
 * the opponent has no reply wins at once and ends the node before the
 * table is probed (most positions near the leaves end so, with no cache
 * miss). Keys fold the left-right mirror on boards with an odd number of
 * files, where the start is symmetric: the smaller key of a position and
 * its mirror image is the key, and a best move found in the mirror image
 * is stored mirrored.
 */
#include <string.h>

#include "qk_solve_int.h"

bool qk_bb_supported(const qk_variant *v)
{
    /* R, C <= 8 (so R * C <= 64): qk_bbgeo keeps one mask per file, 8 of
     * them; a 2x9 board (18 squares) takes the generic path. */
    return v && qk_variant_is_konane(v) && v->ranks <= 8 && v->files <= 8;
}

void qk_bb_geo(const qk_variant *v, qk_bbgeo *g)
{
    memset(g, 0, sizeof *g);
    int R = v->ranks, C = v->files;
    g->ranks = R;
    g->files = C;
    g->n = R * C;
    for (int r = 0; r < R; r++)
        for (int f = 0; f < C; f++) {
            uint64_t b = 1ull << (r * C + f);
            g->board |= b;
            if (f > 0)
                g->not_left |= b;
            if (f < C - 1)
                g->not_right |= b;
            if (r < R - 1)
                g->not_top |= b;
            if (r > 0)
                g->not_bottom |= b;
            if (r + 2 < R)
                g->up2 |= b;
            if (r >= 2)
                g->down2 |= b;
            if (f + 2 < C)
                g->right2 |= b;
            if (f >= 2)
                g->left2 |= b;
            g->file[f] |= b;
        }
    g->mirror = C % 2 == 1 && C > 1;
    g->salt = qk_mix64(0xA1C0ull << 16 | (uint64_t)R << 8 | (uint64_t)C);
}

void qk_bb_from_pos(const qk_bbgeo *g, const qk_pos *p, qk_bbpos *out)
{
    out->c[0] = out->c[1] = 0;
    for (int i = 0; i < g->n; i++) {
        if (p->sq[i] == QK_WMAN)
            out->c[QK_WHITE] |= 1ull << i;
        else if (p->sq[i] == QK_BMAN)
            out->c[QK_BLACK] |= 1ull << i;
    }
    out->side = p->side;
}

void qk_bb_to_pos(const qk_bbgeo *g, const qk_bbpos *b, qk_pos *out)
{
    memset(out, 0, sizeof *out);
    memset(out->from, 0xFF, sizeof out->from);
    for (int i = 0; i < g->n; i++)
        out->sq[i] = (b->c[QK_WHITE] >> i & 1)   ? QK_WMAN
                     : (b->c[QK_BLACK] >> i & 1) ? QK_BMAN
                                                 : QK_EMPTY;
    out->side = (uint8_t)b->side;
}

/* The six target sets of side s: [0], [1] steps, [2..5] jumps; delta[k]
 * is to - from. */
static inline void targets(const qk_bbgeo *g, const qk_bbpos *p, int s, uint64_t t[6], int d[6])
{
    uint64_t own = p->c[s], opp = p->c[!s], empty = g->board & ~(own | opp);
    int C = g->files;
    if (s == QK_BLACK) { /* forward is up (RULES.md section 1) */
        t[0] = ((own & g->not_right & g->not_top) << (C + 1)) & empty;
        d[0] = C + 1;
        t[1] = ((own & g->not_left & g->not_top) << (C - 1)) & empty;
        d[1] = C - 1;
    } else {
        t[0] = ((own & g->not_right & g->not_bottom) >> (C - 1)) & empty;
        d[0] = -(C - 1);
        t[1] = ((own & g->not_left & g->not_bottom) >> (C + 1)) & empty;
        d[1] = -(C + 1);
    }
    t[2] = ((((own & g->up2) << C) & opp) << C) & empty;
    d[2] = 2 * C;
    t[3] = ((((own & g->down2) >> C) & opp) >> C) & empty;
    d[3] = -2 * C;
    t[4] = ((((own & g->right2) << 1) & opp) << 1) & empty;
    d[4] = 2;
    t[5] = ((((own & g->left2) >> 1) & opp) >> 1) & empty;
    d[5] = -2;
}

int qk_bb_count(const qk_bbgeo *g, const qk_bbpos *p, int side)
{
    uint64_t t[6];
    int d[6];
    targets(g, p, side, t, d);
    return __builtin_popcountll(t[0]) + __builtin_popcountll(t[1]) + __builtin_popcountll(t[2]) +
           __builtin_popcountll(t[3]) + __builtin_popcountll(t[4]) + __builtin_popcountll(t[5]);
}

int qk_bb_gen(const qk_bbgeo *g, const qk_bbpos *p, qk_bbmove *mv)
{
    uint64_t t[6];
    int d[6], n = 0;
    targets(g, p, p->side, t, d);
    for (int k = 0; k < 6; k++)
        for (uint64_t x = t[k]; x; x &= x - 1) {
            int to = __builtin_ctzll(x), from = to - d[k];
            mv[n++] = (qk_bbmove)(0x8000 | from | to << 6 | (k >= 2) << 12);
        }
    return n;
}

void qk_bb_make(qk_bbpos *p, qk_bbmove m)
{
    int from = m & 63, to = m >> 6 & 63, s = p->side;
    p->c[s] ^= 1ull << from | 1ull << to;
    if (m >> 12 & 1)
        p->c[!s] ^= 1ull << ((from + to) / 2);
    p->side = !s;
}

void qk_bb_to_move(qk_bbmove m, qk_move *out)
{
    memset(out, 0, sizeof *out);
    out->len = 2;
    out->path[0] = (uint8_t)(m & 63);
    out->path[1] = (uint8_t)(m >> 6 & 63);
    if (m >> 12 & 1) {
        out->ncap = 1;
        out->cap[0] = (uint8_t)((out->path[0] + out->path[1]) / 2);
    }
}

static inline uint64_t mirror_set(const qk_bbgeo *g, uint64_t x)
{
    uint64_t y = 0;
    int C = g->files;
    for (int f = 0; f < C; f++) {
        int sh = C - 1 - 2 * f;
        uint64_t col = x & g->file[f];
        y |= sh >= 0 ? col << sh : col >> -sh;
    }
    return y;
}

static inline uint64_t raw_key(const qk_bbgeo *g, uint64_t w, uint64_t b, int side)
{
    return qk_mix64(w ^ qk_mix64(b ^ g->salt) ^ (side ? 0xD6E8FEB86659FD93ull : 0));
}

uint64_t qk_bb_key(const qk_bbgeo *g, const qk_bbpos *p, bool *mirrored)
{
    uint64_t k = raw_key(g, p->c[0], p->c[1], p->side);
    *mirrored = false;
    if (g->mirror) {
        uint64_t km = raw_key(g, mirror_set(g, p->c[0]), mirror_set(g, p->c[1]), p->side);
        if (km < k) {
            *mirrored = true;
            return km;
        }
    }
    return k;
}

qk_bbmove qk_bb_mirror_move(const qk_bbgeo *g, qk_bbmove m)
{
    int C = g->files, from = m & 63, to = m >> 6 & 63;
    from = from - from % C + (C - 1 - from % C);
    to = to - to % C + (C - 1 - to % C);
    return (qk_bbmove)((m & 0xF000) | from | to << 6);
}

bool qk_bb_probe(const qk_bbgeo *g, const qk_solver *s, const qk_bbpos *p, qk_tt_hit *h)
{
    bool mir;
    uint64_t k = qk_bb_key(g, p, &mir);
    if (!qk_tt_probe(s, k, h))
        return false;
    if (mir && h->move)
        h->move = qk_bb_mirror_move(g, h->move);
    return true;
}

int qk_bb_search(qk_bbsearch *t, const qk_bbpos *p, int alpha, int beta, int ply)
{
    qk_sctl *c = t->c;
    const qk_bbgeo *g = t->g;
    if (qk_sctl_tick(c))
        return 0;
    qk_bbmove mv[QK_BB_MAXMOVES];
    int n = qk_bb_gen(g, p, mv);
    if (n == 0)
        return -(QK_SCORE_WIN - ply); /* section 7: no legal move loses */
    /* Mate-distance bounds: a loss here is at ply + 2 at best, a win at
     * ply + 1 at best. */
    if (alpha < -(QK_SCORE_WIN - ply - 2))
        alpha = -(QK_SCORE_WIN - ply - 2);
    if (beta > QK_SCORE_WIN - ply - 1)
        beta = QK_SCORE_WIN - ply - 1;
    if (alpha >= beta)
        return alpha;

    /* Order by the opponent's replies; a move leaving none wins now. */
    int32_t score[QK_BB_MAXMOVES];
    qk_bbpos ch[QK_BB_MAXMOVES];
    for (int i = 0; i < n; i++) {
        ch[i] = *p;
        qk_bb_make(&ch[i], mv[i]);
        int opp = qk_bb_count(g, &ch[i], ch[i].side);
        if (opp == 0) {
            if (ply == 0) {
                t->root_best = mv[i];
                t->root_has = true;
            }
            return QK_SCORE_WIN - ply - 1;
        }
        score[i] = ((mv[i] >> 12 & 1) << 20) - opp * 64 + qk_bb_count(g, &ch[i], p->side);
    }

    bool mir;
    uint64_t key = qk_bb_key(g, p, &mir);
    qk_tt_hit h;
    qk_bbmove ttmove = 0;
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
        ttmove = h.move && mir ? qk_bb_mirror_move(g, h.move) : h.move;
    }
    qk_sctl_inc(&c->expanded);
    uint64_t nodes0 = atomic_load_explicit(&c->nodes, memory_order_relaxed);
    for (int i = 0; i < n; i++)
        if (mv[i] == ttmove)
            score[i] = INT32_MAX;
    /* Insertion sort, best first (n is small). */
    for (int i = 1; i < n; i++) {
        int32_t sc = score[i];
        qk_bbmove m = mv[i];
        qk_bbpos cp = ch[i];
        int j = i - 1;
        while (j >= 0 && score[j] < sc) {
            score[j + 1] = score[j];
            mv[j + 1] = mv[j];
            ch[j + 1] = ch[j];
            j--;
        }
        score[j + 1] = sc;
        mv[j + 1] = m;
        ch[j + 1] = cp;
    }
    /* Helper threads (lazy SMP) try the second move first near the root
     * on half the nodes, so the threads spread over the tree. */
    if (c->id > 0 && n > 1 && ply < 10 && ((key >> (c->id + ply)) & 1) && mv[0] != ttmove) {
        qk_bbmove m = mv[0];
        mv[0] = mv[1];
        mv[1] = m;
        qk_bbpos cp = ch[0];
        ch[0] = ch[1];
        ch[1] = cp;
    }

    int alpha0 = alpha, best = -QK_SCORE_INF;
    qk_bbmove bestm = 0;
    for (int i = 0; i < n; i++) {
        int v;
        if (i == 0) {
            v = -qk_bb_search(t, &ch[i], -beta, -alpha, ply + 1);
        } else {
            v = -qk_bb_search(t, &ch[i], -alpha - 1, -alpha, ply + 1);
            if (v > alpha && v < beta && !c->aborted)
                v = -qk_bb_search(t, &ch[i], -beta, -alpha, ply + 1);
        }
        if (c->aborted)
            return 0;
        if (v > best) {
            best = v;
            bestm = mv[i];
            if (ply == 0) {
                t->root_best = mv[i];
                t->root_has = true;
            }
            if (v > alpha) {
                alpha = v;
                if (alpha >= beta)
                    break;
            }
        }
    }
    int lo = -QK_SCORE_INF, hi = QK_SCORE_INF;
    if (best <= alpha0)
        hi = best; /* fail low: every move is at most best */
    else if (best >= beta)
        lo = best;
    else
        lo = hi = best;
    uint64_t work = atomic_load_explicit(&c->nodes, memory_order_relaxed) - nodes0 + 1;
    qk_bbmove sm = best > alpha0 ? bestm : 0;
    if (sm && mir)
        sm = qk_bb_mirror_move(g, sm);
    qk_tt_store(c->s, key, qk_score_to_node(lo, ply), qk_score_to_node(hi, ply), sm,
                qk_log2u(work), &c->filled);
    return best;
}
