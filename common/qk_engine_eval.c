/*
 * qk_engine_eval: static evaluation, position keys and score text.
 *
 * Design. qk_vinfo_prepare() turns a variant into numbers once per search
 * (family, piece values, a point-square table, line geometry), so the
 * evaluation is one pass over the points with no name comparisons. The
 * evaluation is White's score, negated for Black to move at the end.
 *
 * Alquerque family (RULES.md 2-6): material (a man 100, a short Sultan 250,
 * a long Sultan 400: it crosses the 5x5 board in one move), the point
 * table (points with diagonals have eight lines instead of four, and the
 * centre reaches most of the board), advancement of men that never step
 * back (BrainKing: ground gained, except that a man on the far rank is
 * stuck; Stoep: the way to a Sultan), and 3 per pseudo-move (a step along a
 * line the piece may use to an empty point) as light mobility. Exchanges
 * and threats are left to the quiescence search.
 *
 * Alquerkonane (section 7): a side with no legal move loses, so the count
 * of legal moves of each side dominates (counted exactly: diagonal-forward
 * steps and orthogonal jumps), then the forward steps the pawns have left
 * (tempo moves in a blocked race), then material.
 */
#include <stdio.h>
#include <string.h>

#include "qk_engine.h"
#include "qk_engine_int.h"

#define EVAL_MAX 10000

static const int8_t DF[8] = {0, 1, 1, 1, 0, -1, -1, -1};
static const int8_t DR[8] = {1, 1, 0, -1, -1, -1, 0, 1};

/* Value of a man by ranks advanced from its own back rank (0..4). */
static const int16_t ADV_BRAINKING[5] = {0, 4, 8, 12, -10};
static const int16_t ADV_STOEP[5] = {0, 6, 14, 28, 0};

void qk_vinfo_prepare(qk_vinfo *vi, const qk_variant *v)
{
    memset(vi, 0, sizeof *vi);
    vi->v = v;
    vi->ranks = v->ranks;
    vi->files = v->files;
    vi->npoints = v->ranks * v->files;
    vi->man = 100;
    vi->sultan = 250;
    if (qk_variant_is_konane(v))
        vi->family = QK_FAM_KONANE;
    else if (strcmp(v->name, "alquerque-traditional") == 0)
        vi->family = QK_FAM_TRAD;
    else if (strcmp(v->name, "alquerque-brainking") == 0)
        vi->family = QK_FAM_BRAINKING;
    else if (strncmp(v->name, "alquerque-stoep", 15) == 0)
        vi->family = QK_FAM_STOEP;
    else
        vi->family = QK_FAM_KAWU;
    if (strcmp(v->name, "alquerque-stoep-long") == 0)
        vi->sultan = 400;
    vi->forward_men = vi->family == QK_FAM_BRAINKING || vi->family == QK_FAM_STOEP;
    vi->memory = vi->family == QK_FAM_BRAINKING;
    vi->quiet_rule =
        vi->family == QK_FAM_KAWU || vi->family == QK_FAM_TRAD || vi->family == QK_FAM_STOEP;

    uint64_t h = 1469598103934665603ull;
    for (const char *c = v->name; *c; c++)
        h = (h ^ (uint8_t)*c) * 1099511628211ull;
    vi->vkey = qk_mix64(h ^ ((uint64_t)v->ranks << 40) ^ ((uint64_t)v->files << 48));

    for (int pt = 0; pt < vi->npoints; pt++) {
        int f = pt % vi->files, r = pt / vi->files;
        /* Lines (section 2): orthogonal everywhere on the Alquerque board,
         * diagonal where file + rank is even. Alquerkonane does not use
         * them (its moves are counted directly). */
        for (int d = 0; d < 8; d++) {
            bool diag = d & 1;
            if (diag && (f + r) % 2 != 0)
                continue;
            int f2 = f + DF[d], r2 = r + DR[d];
            if (f2 < 0 || f2 >= vi->files || r2 < 0 || r2 >= vi->ranks)
                continue;
            vi->adj[pt][vi->nadj[pt]] = (uint8_t)(r2 * vi->files + f2);
            vi->adjdir[pt][vi->nadj[pt]] = (uint8_t)d;
            vi->nadj[pt]++;
        }
        if (vi->family != QK_FAM_KONANE) {
            int cf = (vi->files - 1) / 2, cr = (vi->ranks - 1) / 2;
            int df = f > cf ? f - cf : cf - f, dr = r > cr ? r - cr : cr - r;
            int cheb = df > dr ? df : dr;
            vi->pst[pt] = (int16_t)(((f + r) % 2 == 0 ? 6 : 0) + (2 - cheb) * 4);
        }
    }
}

/* May a piece step in direction d? Men of forward-only variants go
 * forward, diagonally forward or sideways (sections 5, 6); White's forward
 * is north. */
static bool step_allowed(const qk_vinfo *vi, int d, bool white, bool man)
{
    if (!man || !vi->forward_men)
        return true;
    if (white)
        return d != 3 && d != 4 && d != 5;
    return d != 7 && d != 0 && d != 1;
}

static int eval_alquerque(const qk_vinfo *vi, const qk_pos *p)
{
    int score = 0, mob = 0;
    for (int pt = 0; pt < vi->npoints; pt++) {
        int pc = p->sq[pt];
        if (pc == QK_EMPTY)
            continue;
        bool white = pc == QK_WMAN || pc == QK_WSULTAN;
        bool man = pc == QK_WMAN || pc == QK_BMAN;
        int val = (man ? vi->man : vi->sultan) + vi->pst[pt];
        if (man && vi->forward_men) {
            int r = pt / vi->files;
            int adv = white ? r : vi->ranks - 1 - r;
            if (adv > 4)
                adv = 4;
            val += vi->family == QK_FAM_STOEP ? ADV_STOEP[adv] : ADV_BRAINKING[adv];
        }
        int m = 0;
        for (int k = 0; k < vi->nadj[pt]; k++)
            if (p->sq[vi->adj[pt][k]] == QK_EMPTY &&
                step_allowed(vi, vi->adjdir[pt][k], white, man))
                m++;
        score += white ? val : -val;
        mob += white ? m : -m;
    }
    score += 3 * mob;
    return p->side == QK_WHITE ? score : -score;
}

static int eval_konane(const qk_vinfo *vi, const qk_pos *p)
{
    /* Index 0 = White, 1 = Black. Black starts on rank 1 and moves up
     * (section 7). */
    int mob[2] = {0, 0}, steps[2] = {0, 0}, n[2] = {0, 0};
    static const int8_t OF[4] = {0, 1, 0, -1}, OR[4] = {1, 0, -1, 0};
    for (int pt = 0; pt < vi->npoints; pt++) {
        int pc = p->sq[pt];
        if (pc != QK_WMAN && pc != QK_BMAN)
            continue;
        int s = pc == QK_BMAN, f = pt % vi->files, r = pt / vi->files;
        int fwd = s ? 1 : -1;
        int enemy = s ? QK_WMAN : QK_BMAN;
        n[s]++;
        steps[s] += s ? vi->ranks - 1 - r : r;
        int r2 = r + fwd;
        if (r2 >= 0 && r2 < vi->ranks) {
            if (f > 0 && p->sq[r2 * vi->files + f - 1] == QK_EMPTY)
                mob[s]++;
            if (f + 1 < vi->files && p->sq[r2 * vi->files + f + 1] == QK_EMPTY)
                mob[s]++;
        }
        for (int d = 0; d < 4; d++) {
            int f1 = f + OF[d], r1 = r + OR[d], f2 = f + 2 * OF[d], r2b = r + 2 * OR[d];
            if (f2 < 0 || f2 >= vi->files || r2b < 0 || r2b >= vi->ranks)
                continue;
            if (p->sq[r1 * vi->files + f1] == enemy && p->sq[r2b * vi->files + f2] == QK_EMPTY)
                mob[s]++;
        }
    }
    int me = p->side == QK_BLACK, op = !me;
    return 25 * (mob[me] - mob[op]) + 5 * (steps[me] - steps[op]) + 30 * (n[me] - n[op]);
}

int qk_vinfo_eval(const qk_vinfo *vi, const qk_pos *p)
{
    int e = vi->family == QK_FAM_KONANE ? eval_konane(vi, p) : eval_alquerque(vi, p);
    /* Far from QK_SCORE_MATE, whatever the board size. */
    return e > EVAL_MAX ? EVAL_MAX : e < -EVAL_MAX ? -EVAL_MAX : e;
}

uint64_t qk_vinfo_key(const qk_vinfo *vi, const qk_pos *p)
{
    uint64_t key = vi->vkey;
    for (int pt = 0; pt < vi->npoints; pt++) {
        int pc = p->sq[pt];
        if (pc == QK_EMPTY)
            continue;
        key ^= qk_mix64((uint64_t)pt << 3 | (uint64_t)pc);
        /* BrainKing memory decides which steps are legal (section 5). */
        if (vi->memory && p->from[pt] != 0xFF)
            key ^= qk_mix64(0x10000ull | (uint64_t)pt << 8 | p->from[pt]);
    }
    if (p->side == QK_BLACK)
        key ^= 0xD6E8FEB86659FD93ull;
    return key;
}

int qk_engine_evaluate(const qk_variant *v, const qk_pos *p)
{
    qk_vinfo vi;
    qk_vinfo_prepare(&vi, v);
    return qk_vinfo_eval(&vi, p);
}

uint64_t qk_engine_key(const qk_variant *v, const qk_pos *p)
{
    qk_vinfo vi;
    qk_vinfo_prepare(&vi, v);
    return qk_vinfo_key(&vi, p);
}

int qk_engine_score_format(int score, char *buf, size_t n)
{
    int len;
    if (score == QK_SCORE_MATE || score == -QK_SCORE_MATE)
        len = snprintf(buf, n, "%s", score > 0 ? "win" : "loss"); /* distance unknown */
    else if (score >= QK_SCORE_MATE)
        len = snprintf(buf, n, "win in %d", QK_SCORE_WIN - score);
    else if (score <= -QK_SCORE_MATE)
        len = snprintf(buf, n, "loss in %d", QK_SCORE_WIN + score);
    else
        len = snprintf(buf, n, "%c%d.%02d", score < 0 ? '-' : '+',
                       (score < 0 ? -score : score) / 100, (score < 0 ? -score : score) % 100);
    if (len < 0 || (size_t)len >= n)
        return QK_ENOSPC;
    return len;
}
