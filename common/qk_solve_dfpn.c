/*
 * qk_solve_dfpn: depth-first proof-number search (Nagai's df-pn) for
 * Alquerkonane boards of at most 64 squares, a second way to decide who
 * wins (qk_solve.h, qk_solve_dfpn()). RULES.md section 7: the side to
 * move with no legal move loses, every game ends (a step goes forward, a
 * jump removes a pawn), so the game graph has no cycle and no draw.
 *
 * Negamax form: every node has a proof number pn (how many leaves must
 * still be proven for "the mover wins") and a disproof number dn (for
 * "the mover loses"); pn(n) = min over the children of dn(c), dn(n) = the
 * sum of pn(c). A won node is (0, INF), a lost one (INF, 0). MID(n, tpn,
 * tdn) expands the most-proving child until pn(n) >= tpn or dn(n) >= tdn,
 * with the child's thresholds tpn' = tdn - dn(n) + pn(c1) and tdn' =
 * min(tpn, dn2 + 1), dn2 the second smallest dn among the children. A
 * child not in the table starts at pn = 1 and dn = the number of its
 * mover's moves (df-pn with a mobility initialisation: a side with few
 * moves is easy to refute, the measure of qk_engine_eval.c); a child whose
 * mover has no move is lost, so the node is won at once.
 *
 * The table is the solver's memory, read as entries of a key word and a
 * data word pn | dn << 28 | work << 56 (log2 of the positions the entry's
 * search expanded; the entry of least work in a bucket is replaced).
 * qk_solve_dfpn() clears it before and after, so the alpha-beta search
 * never reads these entries as its own. One thread.
 */
#include <string.h>

#include "qk_solve_int.h"

#define DFPN_INF ((1u << 28) - 1)

typedef struct dfpn {
    qk_sctl *c;
    const qk_bbgeo *g;
    struct qk_solve_entry *t;
    size_t mask; /* buckets - 1 */
} dfpn;

static void lookup(const dfpn *d, uint64_t key, uint32_t *pn, uint32_t *dn)
{
    struct qk_solve_entry *b = d->t + (key & d->mask) * QK_TT_BUCKET;
    for (int i = 0; i < QK_TT_BUCKET; i++) {
        uint64_t data = atomic_load_explicit(&b[i].data, memory_order_relaxed);
        if (data && atomic_load_explicit(&b[i].kx, memory_order_relaxed) == key) {
            *pn = (uint32_t)(data & DFPN_INF);
            *dn = (uint32_t)(data >> 28 & DFPN_INF);
            return;
        }
    }
    *pn = 0; /* not known: 0, 0 is never stored (the caller initialises) */
    *dn = 0;
}

static void store(dfpn *d, uint64_t key, uint32_t pn, uint32_t dn, uint64_t work)
{
    struct qk_solve_entry *b = d->t + (key & d->mask) * QK_TT_BUCKET;
    uint64_t w = qk_log2u(work + 1);
    if (pn == 0 || dn == 0)
        w = 63; /* proofs are kept first */
    uint64_t data = (uint64_t)pn | (uint64_t)dn << 28 | w << 56;
    int victim = 0;
    uint64_t least = UINT64_MAX;
    for (int i = 0; i < QK_TT_BUCKET; i++) {
        uint64_t old = atomic_load_explicit(&b[i].data, memory_order_relaxed);
        if (!old || atomic_load_explicit(&b[i].kx, memory_order_relaxed) == key) {
            if (!old)
                qk_sctl_inc(&d->c->filled);
            victim = i;
            break;
        }
        if (old >> 56 < least) {
            least = old >> 56;
            victim = i;
        }
    }
    atomic_store_explicit(&b[victim].kx, key, memory_order_relaxed);
    atomic_store_explicit(&b[victim].data, data, memory_order_relaxed);
}

/* A child's numbers: the table's, else pn 1 and dn its mover's moves (a
 * child with no move is lost: INF, 0). */
static void child_numbers(const dfpn *d, const qk_bbpos *cp, uint64_t key, uint32_t *pn,
                          uint32_t *dn)
{
    lookup(d, key, pn, dn);
    if (*pn == 0 && *dn == 0) {
        int n = qk_bb_count(d->g, cp, cp->side);
        *pn = n ? 1 : DFPN_INF;
        *dn = (uint32_t)n;
    }
}

/* MID: returns the positions expanded below p; *pn, *dn get p's numbers. */
static uint64_t mid(dfpn *d, const qk_bbpos *p, uint64_t key, uint32_t tpn, uint32_t tdn,
                    uint32_t *opn, uint32_t *odn)
{
    qk_bbmove mv[QK_BB_MAXMOVES];
    uint64_t keys[QK_BB_MAXMOVES];
    int n = qk_bb_gen(d->g, p, mv);
    uint64_t work = 1;
    qk_sctl_inc(&d->c->expanded);
    if (n == 0) {
        *opn = DFPN_INF;
        *odn = 0;
        store(d, key, *opn, *odn, work);
        return work;
    }
    for (int i = 0; i < n; i++) {
        qk_bbpos cp = *p;
        bool mir;
        qk_bb_make(&cp, mv[i]);
        keys[i] = qk_bb_key(d->g, &cp, &mir);
    }
    for (;;) {
        uint32_t pn = DFPN_INF, dn2 = DFPN_INF, c1pn = 0;
        uint64_t dn = 0;
        int best = -1;
        for (int i = 0; i < n; i++) {
            qk_bbpos cp = *p;
            qk_bb_make(&cp, mv[i]);
            uint32_t cpn, cdn;
            child_numbers(d, &cp, keys[i], &cpn, &cdn);
            dn += cpn;
            if (cdn < pn || best < 0) {
                dn2 = pn;
                pn = cdn;
                best = i;
                c1pn = cpn;
            } else if (cdn < dn2)
                dn2 = cdn;
        }
        if (pn == 0)
            dn = DFPN_INF; /* won: a child is lost for its mover */
        else if (dn >= DFPN_INF)
            dn = DFPN_INF - 1; /* not proven: the sum saturates below INF */
        if (pn >= tpn || dn >= tdn || qk_sctl_tick(d->c)) {
            *opn = pn;
            *odn = (uint32_t)dn;
            store(d, key, pn, (uint32_t)dn, work);
            return work;
        }
        uint64_t ctpn = (uint64_t)tdn - dn + c1pn;
        if (tdn >= DFPN_INF || ctpn > DFPN_INF)
            ctpn = DFPN_INF;
        uint32_t ctdn = tpn < dn2 + 1 ? tpn : dn2 + 1;
        qk_bbpos cp = *p;
        qk_bb_make(&cp, mv[best]);
        uint32_t xpn, xdn;
        work += mid(d, &cp, keys[best], (uint32_t)ctpn, ctdn, &xpn, &xdn);
    }
}

int qk_solve_dfpn(qk_solver *s, const qk_variant *v, const qk_pos *p, const qk_solve_limits *lim,
                  qk_solve_result *out)
{
    if (!s || !v || !p || !out || !s->table || !qk_bb_supported(v))
        return QK_EINVAL;
    memset(out, 0, sizeof *out);
    out->distance = -1;
    qk_solve_limits none = {0};
    if (!lim)
        lim = &none;
    atomic_int halt = 0;
    qk_sctl c;
    memset(&c, 0, sizeof c);
    c.s = s;
    c.halt = &halt;
    c.stop = lim->stop;
    c.node_limit = lim->nodes;
    if (lim->time_ms) {
        c.timed = true;
        c.deadline = qk_deadline(lim->time_ms);
    }
    qk_bbgeo g;
    qk_bb_geo(v, &g);
    qk_bbpos b;
    qk_bb_from_pos(&g, p, &b);
    qk_solver_clear(s);
    dfpn d = {.c = &c, .g = &g, .t = s->table, .mask = s->nbuckets - 1};
    bool mir;
    uint64_t key = qk_bb_key(&g, &b, &mir);
    uint32_t pn = 0, dn = 0;
    mid(&d, &b, key, DFPN_INF, DFPN_INF, &pn, &dn);
    out->nodes = atomic_load(&c.nodes);
    out->expanded = atomic_load(&c.expanded);
    qk_bbmove mv[QK_BB_MAXMOVES];
    int n = qk_bb_gen(&g, &b, mv);
    if (pn == 0 || dn == 0) {
        out->solved = true;
        out->mover_wins = pn == 0;
        bool white = (p->side == QK_WHITE) == out->mover_wins;
        out->winner = white ? QK_RESULT_WHITE : QK_RESULT_BLACK;
        out->score = out->mover_wins ? 1 : -1;
        out->has_move = n > 0;
        int pick = 0;
        for (int i = 0; i < n && out->mover_wins; i++) {
            qk_bbpos cp = b;
            qk_bb_make(&cp, mv[i]);
            uint32_t cpn, cdn;
            child_numbers(&d, &cp, qk_bb_key(&g, &cp, &mir), &cpn, &cdn);
            if (cdn == 0) {
                pick = i;
                break;
            }
        }
        if (n > 0)
            qk_bb_to_move(mv[pick], &out->best);
    }
    qk_solver_clear(s);
    return QK_OK;
}
