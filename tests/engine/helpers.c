/* Helpers of the engine tests; see helpers.h. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

qk_variant tv(const char *name)
{
    qk_variant v;
    cr_assert_eq(qk_variant_parse(name, &v), QK_OK, "variant %s", name);
    return v;
}

qk_pos tp(const qk_variant *v, const char *s)
{
    qk_pos p;
    const char *why = NULL;
    int rc = qk_pos_parse(v, s, &p, &why);
    cr_assert_eq(rc, QK_OK, "position %s: %s", s, why ? why : "?");
    return p;
}

const char *tmove(const qk_variant *v, const qk_move *m)
{
    static char buf[QK_MOVE_STRLEN];
    cr_assert_gt(qk_move_format(v, m, buf, sizeof buf), 0);
    return buf;
}

static bool same_move(const qk_move *a, const qk_move *b)
{
    return a->len == b->len && memcmp(a->path, b->path, a->len) == 0 && a->ncap == b->ncap;
}

bool tlegal(const qk_variant *v, const qk_pos *p, const qk_move *m)
{
    static qk_move all[TMOVES];
    int n = qk_movegen(v, p, all, TMOVES);
    cr_assert_geq(n, 0);
    for (int i = 0; i < n; i++)
        if (same_move(&all[i], m))
            return true;
    return false;
}

bool tpv_legal(const qk_variant *v, const qk_pos *p, const qk_move *pv, int n)
{
    qk_pos q = *p;
    for (int i = 0; i < n; i++) {
        if (qk_pos_status(v, &q, NULL, NULL) || !tlegal(v, &q, &pv[i]))
            return false;
        qk_undo u;
        qk_pos_make(v, &q, &pv[i], &u);
    }
    return true;
}

static int step_toward_zero(int x)
{
    return x > 0 ? x - 1 : x + 1;
}

int plain_negamax(const qk_variant *v, qk_pos *p, uint64_t *nodes, uint64_t limit)
{
    if (++*nodes > limit)
        return QK_SCORE_INF;
    qk_move moves[64];
    int n = qk_movegen(v, p, moves, 64);
    cr_assert_geq(n, 0);
    if (n == 0)
        return -QK_SCORE_WIN; /* no move: the mover has lost, now */
    int best = -QK_SCORE_INF;
    for (int i = 0; i < n; i++) {
        qk_undo u;
        qk_pos_make(v, p, &moves[i], &u);
        int c = plain_negamax(v, p, nodes, limit);
        qk_pos_unmake(v, p, &moves[i], &u);
        if (c == QK_SCORE_INF)
            return QK_SCORE_INF;
        /* The child's value one ply further from the end, our view. */
        int s = step_toward_zero(-c);
        if (s > best)
            best = s;
    }
    return best;
}

/* Minimax to depth d with the game's end checked at every node: `wins`
 * is the side that must force the win. */
static bool force(const qk_variant *v, qk_pos *p, int d, int wins)
{
    static qk_move stack[16][QK_MAX_MOVES];
    qk_result r;
    if (qk_pos_status(v, p, &r, NULL))
        return r != QK_RESULT_DRAW && (r == QK_RESULT_WHITE) == (wins == QK_WHITE);
    if (d <= 0)
        return false;
    cr_assert_lt(d, 16);
    qk_move *moves = stack[d];
    int n = qk_movegen(v, p, moves, QK_MAX_MOVES);
    cr_assert_geq(n, 0, "more than QK_MAX_MOVES moves in a mate check");
    bool mine = p->side == wins;
    for (int i = 0; i < n; i++) {
        qk_undo u;
        qk_pos_make(v, p, &moves[i], &u);
        bool w = force(v, p, d - 1, wins);
        qk_pos_unmake(v, p, &moves[i], &u);
        if (w && mine)
            return true;
        if (!w && !mine)
            return false;
    }
    return !mine;
}

bool forced_win(const qk_variant *v, qk_pos *p, int d)
{
    return force(v, p, d, p->side);
}

bool tsame(const qk_move *a, const qk_move *b)
{
    return same_move(a, b);
}

uint64_t trand(uint64_t *state)
{
    *state += 0x9E3779B97F4A7C15ull;
    uint64_t x = *state;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

qk_result tplay(const qk_variant *v, qk_pos p, qk_engine *ew, const qk_limits *lw, qk_engine *eb,
                const qk_limits *lb, int max_plies, int *plies, char *moves_out, size_t cap)
{
    qk_result r = QK_RESULT_NONE;
    size_t used = 0;
    if (moves_out && cap)
        moves_out[0] = '\0';
    int ply = 0;
    for (; ply < max_plies; ply++) {
        if (qk_pos_status(v, &p, &r, NULL))
            break;
        qk_search_result sr;
        bool white = p.side == QK_WHITE;
        cr_assert_eq(qk_engine_search(white ? ew : eb, v, &p, white ? lw : lb, &sr), QK_OK);
        cr_assert(sr.has_move);
        cr_assert(tlegal(v, &p, &sr.best), "illegal %s", tmove(v, &sr.best));
        if (moves_out) {
            const char *t = tmove(v, &sr.best);
            size_t len = strlen(t);
            if (used + len + 2 < cap) {
                if (used)
                    moves_out[used++] = ' ';
                memcpy(moves_out + used, t, len + 1);
                used += len;
            }
        }
        qk_undo u;
        qk_pos_make(v, &p, &sr.best, &u);
    }
    if (ply == max_plies && !qk_pos_status(v, &p, &r, NULL))
        r = QK_RESULT_NONE;
    *plies = ply;
    return r;
}

const char *tshared(void)
{
    const char *s = getenv("QK_SHARED");
    return s && *s ? s : "../shared";
}

int plain_alphabeta(const qk_variant *v, qk_pos *p, int alpha, int beta, int ply, uint64_t *nodes)
{
    ++*nodes;
    qk_move moves[64];
    int n = qk_movegen(v, p, moves, 64);
    cr_assert_geq(n, 0);
    if (n == 0)
        return -(QK_SCORE_WIN - ply);
    int best = -QK_SCORE_INF;
    for (int i = 0; i < n; i++) {
        qk_undo u;
        qk_pos_make(v, p, &moves[i], &u);
        int s = -plain_alphabeta(v, p, -beta, -alpha, ply + 1, nodes);
        qk_pos_unmake(v, p, &moves[i], &u);
        if (s > best) {
            best = s;
            if (s > alpha) {
                alpha = s;
                if (alpha >= beta)
                    break;
            }
        }
    }
    return best;
}
