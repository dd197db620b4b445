/*
 * The move generator, make/unmake and perft of every variant (RULES.md
 * sections 2-7).
 *
 * Design. There is one generator, qk_gen(), and it reads everything a
 * variant changes from its table row and geometry (qk_rules_int.h): the
 * direction sets of men and Sultans (already mirrored for the side at the
 * top), capture duty, continuation duty, removal timing and Sultan range.
 * First jumps and steps are found for all pieces at once with point-set
 * shifts; every jump found starts a depth-first search that lifts the
 * captured piece (from the set of pieces that may still be jumped, and,
 * with immediate removal, from the blockers too) and puts it back on the
 * way out. The same code counts instead of storing when moves == NULL, so
 * perft's last ply counts moves without making them, and with a path to
 * match it follows only that path (qk_move_parse()).
 *
 * Speed. The body is one always-inline function instantiated twice by
 * qk_gen(): with one-word sets for boards of at most 64 points (every
 * Alquerque board, Alquerkonane up to 8x8) and three-word sets beyond; and
 * qk_gen() has a POPCNT clone chosen at load time. Instructions per perft
 * node (callgrind, start positions): 8x8 ~90, 6x4 ~160, Alquerque variants
 * ~210-340, most of it in capture searches.
 *
 * qk_pos's public arrays stay the single source of truth: qk_st_load()
 * derives the point sets when a public function is called, and perft keeps
 * a qk_st beside the position so its inner nodes never re-derive them.
 */
#include <string.h>

#include "qk_rules_int.h"

typedef struct gen_ctx {
    const qk_geom *g;
    const struct qk_rules *r;
    qk_bb occ;      /* points that block a landing or a slide */
    qk_bb jumpable; /* enemy pieces this capture has not jumped yet */
    unsigned later; /* directions of the moving piece after its first jump */
    bool lng;       /* the moving piece captures at any range (long Sultan) */
    qk_move cur;    /* the capture being built */
    qk_move *moves; /* NULL: count only */
    int cap;
    long n;
    /* Only the move with this path and kind (qk_move_parse): the search
     * follows that path alone, so even a contrived position with more
     * moves than any array holds is matched in a few steps. */
    const qk_move *match;
} gen_ctx;

static inline void emit(gen_ctx *c)
{
    if (c->match && c->cur.len != c->match->len)
        return;
    if (c->moves && c->n < c->cap)
        c->moves[c->n] = c->cur;
    c->n++;
}

static inline void emit_step(gen_ctx *c, int from, int to)
{
    if (c->match && (c->match->ncap || c->match->len != 2 || c->match->path[0] != from ||
                     c->match->path[1] != to))
        return;
    if (c->moves && c->n < c->cap) {
        qk_move *m = &c->moves[c->n];
        m->len = 2;
        m->ncap = 0;
        m->path[0] = (uint8_t)from;
        m->path[1] = (uint8_t)to;
    }
    c->n++;
}

static inline void push_jump(gen_ctx *c, int over, int land)
{
    c->cur.path[c->cur.len++] = (uint8_t)land;
    c->cur.cap[c->cur.ncap++] = (uint8_t)over;
    bb_clear(&c->jumpable, over);
    /* RULES.md section 2: removal at once frees the point for later jumps;
     * section 6 (Stoep): a jumped piece keeps blocking until the end. */
    if (c->r->removal == REMOVE_AT_ONCE)
        bb_clear(&c->occ, over);
}

static inline void pop_jump(gen_ctx *c, int over)
{
    c->cur.len--;
    c->cur.ncap--;
    bb_set(&c->jumpable, over);
    bb_set(&c->occ, over);
}

static int jumps_from(gen_ctx *c, int p, unsigned dirs);

/* The capture has just landed on p: decide whether the move may or must go
 * on (sections 3-7: optional prefixes, compulsory continuation, or a single
 * jump). */
static void landed(gen_ctx *c, int p)
{
    if (c->match) {
        int i = c->cur.len - 1;
        if (!c->match->ncap || i >= c->match->len || c->match->path[i] != p ||
            c->match->path[0] != c->cur.path[0])
            return;
    }
    switch (c->r->chain) {
    case CHAIN_NONE:
        emit(c);
        break;
    case CHAIN_OPTIONAL:
        emit(c);
        jumps_from(c, p, c->later);
        break;
    default:
        if (jumps_from(c, p, c->later) == 0)
            emit(c);
        break;
    }
}

/* Try every jump of the moving piece from p in dirs; returns how many
 * exist. A long Sultan slides over empty points to the first occupied one,
 * which must be jumpable, and may land on any empty point beyond it before
 * the next blocker (section 6). */
static int jumps_from(gen_ctx *c, int p, unsigned dirs)
{
    const qk_geom *g = c->g;
    int found = 0;
    for (; dirs; dirs &= dirs - 1) {
        int d = __builtin_ctz(dirs);
        int delta = g->delta[d];
        if (!c->lng) {
            if (!bb_test(&g->step2[d], p))
                continue;
            int over = p + delta, land = over + delta;
            if (!bb_test(&c->jumpable, over) || bb_test(&c->occ, land))
                continue;
            found++;
            push_jump(c, over, land);
            landed(c, land);
            pop_jump(c, over);
            continue;
        }
        if (!bb_test(&g->step1[d], p))
            continue;
        int t = p + delta;
        bool edge = false;
        while (!bb_test(&c->occ, t)) {
            if (!bb_test(&g->step1[d], t)) {
                edge = true;
                break;
            }
            t += delta;
        }
        if (edge || !bb_test(&c->jumpable, t))
            continue;
        for (int l = t; bb_test(&g->step1[d], l) && !bb_test(&c->occ, l + delta);) {
            l += delta;
            found++;
            push_jump(c, t, l);
            landed(c, l);
            pop_jump(c, t);
        }
    }
    return found;
}

/* Steps of the pieces in src towards d, skipping BrainKing's no-return
 * point (section 5) when storing; counting corrects for it afterwards. */
BB_INLINE void steps_dir(gen_ctx *c, qk_bb src, int d, qk_bb empty, const uint8_t *from, int nw)
{
    int delta = c->g->delta[d];
    qk_bb to = bb_and(bb_shift(bb_and(src, c->g->step1[d], nw), delta, nw), empty, nw);
    if (!c->moves && !c->match) {
        c->n += bb_count(to, nw);
        return;
    }
    while (bb_any(to, nw)) {
        int t = bb_pop(&to, nw);
        if (c->r->memory && from[t - delta] == t)
            continue;
        emit_step(c, t - delta, t);
    }
}

/* The generator body, inlined by qk_gen() once per set width nw. */
BB_INLINE long gen(const qk_variant *v, const qk_st *s, int side, const uint8_t *from,
                   qk_move *moves, int cap, const qk_move *match, int nw)
{
    const qk_geom *g = &v->geom;
    const struct qk_rules *r = v->rules;
    const uint8_t *dirs = g->dirs[side];
    qk_bb own = s->pc[side], opp = s->pc[side ^ 1];
    qk_bb occ = bb_or(own, opp, nw);
    qk_bb empty = bb_andnot(g->board, occ, nw);
    qk_bb men = bb_andnot(own, s->sul, nw);
    qk_bb suls = bb_and(own, s->sul, nw);
    qk_bb far_men = bb_and(men, g->far[side], nw);
    qk_bb near_men = bb_andnot(men, g->far[side], nw);
    qk_bb short_suls = r->long_sultan ? bb_zero(nw) : suls;

    gen_ctx c;
    c.g = g;
    c.r = r;
    c.occ = occ;
    c.jumpable = opp;
    c.moves = moves;
    c.cap = cap;
    c.n = 0;
    c.lng = false;
    c.match = match;
    /* Capture duty looks at every piece even when matching one move. */
    bool captures = false;

    /* First jumps of men and short Sultans, all pieces at once. */
    unsigned jd = dirs[QK_DIRSET_MAN_JUMP1] | dirs[QK_DIRSET_MAN_JUMP1_FAR] |
                  (r->long_sultan ? 0u : dirs[QK_DIRSET_SUL_JUMP]);
    for (; jd; jd &= jd - 1) {
        int d = __builtin_ctz(jd);
        qk_bb src = bb_zero(nw);
        if (dirs[QK_DIRSET_MAN_JUMP1] & DB(d))
            src = bb_or(src, near_men, nw);
        if (dirs[QK_DIRSET_MAN_JUMP1_FAR] & DB(d))
            src = bb_or(src, far_men, nw);
        if (dirs[QK_DIRSET_SUL_JUMP] & DB(d))
            src = bb_or(src, short_suls, nw);
        int delta = g->delta[d];
        qk_bb jumpers =
            bb_and(bb_and(src, g->step2[d], nw),
                   bb_and(bb_shift(opp, -delta, nw), bb_shift(empty, -2 * delta, nw), nw), nw);
        if (!moves && !match && r->chain == CHAIN_NONE) {
            /* Single jumps are counted like steps, without a branch. */
            int k = bb_count(jumpers, nw);
            c.n += k;
            captures |= k > 0;
            continue;
        }
        if (!bb_any(jumpers, nw))
            continue;
        captures = true;
        while (bb_any(jumpers, nw)) {
            int p = bb_pop(&jumpers, nw);
            c.later =
                bb_test(&s->sul, p) ? dirs[QK_DIRSET_SUL_JUMP] : dirs[QK_DIRSET_MAN_JUMP_LATER];
            c.cur.len = 1;
            c.cur.ncap = 0;
            c.cur.path[0] = (uint8_t)p;
            /* The mover is lifted: later jumps may cross or land on its start. */
            bb_clear(&c.occ, p);
            push_jump(&c, p + delta, p + 2 * delta);
            landed(&c, p + 2 * delta);
            pop_jump(&c, p + delta);
            bb_set(&c.occ, p);
        }
    }
    if (r->long_sultan && bb_any(suls, nw)) {
        qk_bb it = suls;
        c.lng = true;
        c.later = dirs[QK_DIRSET_SUL_JUMP];
        while (bb_any(it, nw)) {
            int p = bb_pop(&it, nw);
            c.cur.len = 1;
            c.cur.ncap = 0;
            c.cur.path[0] = (uint8_t)p;
            bb_clear(&c.occ, p);
            if (jumps_from(&c, p, c.later))
                captures = true;
            bb_set(&c.occ, p);
        }
        c.lng = false;
    }
    if (r->capture == CAPTURE_COMPULSORY && captures)
        goto done;

    unsigned sd = dirs[QK_DIRSET_MAN_STEP] | dirs[QK_DIRSET_MAN_STEP_FAR] |
                  (r->long_sultan ? 0u : dirs[QK_DIRSET_SUL_STEP]);
    for (; sd; sd &= sd - 1) {
        int d = __builtin_ctz(sd);
        qk_bb src = bb_zero(nw);
        if (dirs[QK_DIRSET_MAN_STEP] & DB(d))
            src = bb_or(src, near_men, nw);
        if (dirs[QK_DIRSET_MAN_STEP_FAR] & DB(d))
            src = bb_or(src, far_men, nw);
        if (dirs[QK_DIRSET_SUL_STEP] & DB(d))
            src = bb_or(src, short_suls, nw);
        steps_dir(&c, src, d, empty, from, nw);
    }
    if (r->memory && !moves && !match) {
        /* A remembered point was counted above iff it is an empty point the
         * piece could step to. Parsed and played positions only remember
         * such points; the check keeps hand-built ones honest too. */
        qk_bb it = own;
        while (bb_any(it, nw)) {
            int p = bb_pop(&it, nw);
            if (from[p] != QK_NO_POINT && bb_test(&empty, from[p]) &&
                qk_memory_relevant(v, side, p, from[p]))
                c.n--;
        }
    }
    if (r->long_sultan && bb_any(suls, nw)) {
        qk_bb it = suls;
        while (bb_any(it, nw)) {
            int p = bb_pop(&it, nw);
            for (unsigned ds = dirs[QK_DIRSET_SUL_STEP]; ds; ds &= ds - 1) {
                int d = __builtin_ctz(ds);
                int delta = g->delta[d];
                for (int t = p; bb_test(&g->step1[d], t) && bb_test(&empty, t + delta);) {
                    t += delta;
                    emit_step(&c, p, t);
                }
            }
        }
    }
done:
    if (moves && c.n > cap)
        return QK_ENOSPC;
    return c.n;
}

/* POPCNT, where the CPU has it, makes bulk counting several times faster;
 * the default build targets plain x86-64, so pick the clone at load time.
 * GCC only: clang 14 (Debian 12's, used by `make fuzz`) emits the clone's
 * ifunc as "qk_gen.ifunc" while callers in other files reference "qk_gen",
 * so nothing links; under clang the plain function is built. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("popcnt", "default")))
#endif
long qk_gen(const qk_variant *v, const qk_st *s, int side, const uint8_t *from, qk_move *moves,
            int cap, const qk_move *match)
{
    if (bb_words(v->ranks * v->files) == 1)
        return gen(v, s, side, from, moves, cap, match, 1);
    return gen(v, s, side, from, moves, cap, match, QK_BB_WORDS);
}

void qk_st_load(const qk_variant *v, const qk_pos *p, qk_st *s)
{
    memset(s, 0, sizeof *s);
    int n = v->ranks * v->files;
    for (int i = 0; i < n; i++) {
        switch (p->sq[i]) {
        case QK_WSULTAN:
            bb_set(&s->sul, i);
            /* fall through */
        case QK_WMAN:
            bb_set(&s->pc[QK_WHITE], i);
            break;
        case QK_BSULTAN:
            bb_set(&s->sul, i);
            /* fall through */
        case QK_BMAN:
            bb_set(&s->pc[QK_BLACK], i);
            break;
        default:
            break;
        }
    }
}

bool qk_memory_relevant(const qk_variant *v, int side, int at, int to)
{
    const qk_geom *g = &v->geom;
    bool far = bb_test(&g->far[side], at);
    unsigned ds = g->dirs[side][far ? QK_DIRSET_MAN_STEP_FAR : QK_DIRSET_MAN_STEP];
    for (; ds; ds &= ds - 1) {
        int d = __builtin_ctz(ds);
        if (at + g->delta[d] == to)
            return bb_test(&g->step1[d], at);
    }
    return false;
}

int qk_movegen(const qk_variant *v, const qk_pos *p, qk_move *moves, int cap)
{
    qk_st s;
    if (!v || !v->rules || !p || !moves || cap < 0)
        return QK_EINVAL;
    qk_st_load(v, p, &s);
    return (int)qk_gen(v, &s, p->side & 1, p->from, moves, cap, NULL);
}

void qk_pos_make(const qk_variant *v, qk_pos *p, const qk_move *m, qk_undo *u)
{
    int side = p->side;
    int start = m->path[0], end = m->path[m->len - 1];
    int pc = p->sq[start];
    /* Outside BrainKing every from[] entry stays QK_NO_POINT. */
    bool mem = v->rules->memory;
    u->quiet = p->quiet;
    u->piece = (uint8_t)pc;
    u->from = p->from[start];
    p->sq[start] = QK_EMPTY;
    if (mem)
        p->from[start] = QK_NO_POINT;
    for (int i = 0; i < m->ncap; i++) {
        int q = m->cap[i];
        u->cap_piece[i] = p->sq[q];
        p->sq[q] = QK_EMPTY;
        if (mem) {
            u->cap_from[i] = p->from[q];
            p->from[q] = QK_NO_POINT;
        }
    }
    /* Section 6: promotion only where the whole move ends. */
    if (v->rules->sultans && !qk_piece_is_sultan(pc) && bb_test(&v->geom.far[side], end))
        pc = side == QK_WHITE ? QK_WSULTAN : QK_BSULTAN;
    p->sq[end] = (uint8_t)pc;
    /* Section 5: remember the start only where it can matter, so equal
     * positions have equal memory and format(parse(s)) == s. */
    if (v->rules->memory && qk_memory_relevant(v, side, end, start))
        p->from[end] = (uint8_t)start;
    if (m->ncap)
        p->quiet = 0;
    else if (p->quiet < UINT16_MAX)
        p->quiet++;
    p->side = (uint8_t)(side ^ 1);
}

void qk_pos_unmake(const qk_variant *v, qk_pos *p, const qk_move *m, const qk_undo *u)
{
    int start = m->path[0], end = m->path[m->len - 1];
    bool mem = v->rules->memory;
    p->side ^= 1;
    /* The end may be a captured point or the start itself: clear it first,
     * then put the captured pieces back, then the mover. */
    p->sq[end] = QK_EMPTY;
    for (int i = 0; i < m->ncap; i++)
        p->sq[m->cap[i]] = u->cap_piece[i];
    if (mem) {
        p->from[end] = QK_NO_POINT;
        for (int i = 0; i < m->ncap; i++)
            p->from[m->cap[i]] = u->cap_from[i];
    }
    p->sq[start] = u->piece;
    p->from[start] = u->from;
    p->quiet = u->quiet;
}

/* The point sets after m, mirroring qk_pos_make() (p is the position
 * before the move). */
static void st_make(const qk_variant *v, qk_st *s, const qk_pos *p, const qk_move *m)
{
    int side = p->side;
    int start = m->path[0], end = m->path[m->len - 1];
    bool sul = bb_test(&s->sul, start);
    for (int i = 0; i < m->ncap; i++) {
        bb_clear(&s->pc[side ^ 1], m->cap[i]);
        bb_clear(&s->sul, m->cap[i]);
    }
    bb_clear(&s->pc[side], start);
    bb_set(&s->pc[side], end);
    if (sul) {
        bb_clear(&s->sul, start);
        bb_set(&s->sul, end);
    } else if (v->rules->sultans && bb_test(&v->geom.far[side], end)) {
        bb_set(&s->sul, end);
    }
}

static uint64_t perft_rec(const qk_variant *v, qk_pos *p, qk_st *s, int depth, bool ends)
{
    if (ends && qk_status_static(v, p, s, NULL, NULL))
        return 0;
    if (depth == 1)
        return (uint64_t)qk_gen(v, s, p->side, p->from, NULL, 0, NULL);
    qk_move moves[QK_MAX_MOVES];
    long n = qk_gen(v, s, p->side, p->from, moves, QK_MAX_MOVES, NULL);
    if (n < 0)
        return QK_PERFT_OVERFLOW; /* an honest "unknown" beats a short count */
    uint64_t total = 0;
    for (long i = 0; i < n; i++) {
        qk_undo u;
        qk_st saved = *s;
        st_make(v, s, p, &moves[i]);
        qk_pos_make(v, p, &moves[i], &u);
        uint64_t sub = perft_rec(v, p, s, depth - 1, ends);
        qk_pos_unmake(v, p, &moves[i], &u);
        *s = saved;
        if (sub == QK_PERFT_OVERFLOW)
            return QK_PERFT_OVERFLOW;
        total += sub;
    }
    return total;
}

uint64_t qk_perft(const qk_variant *v, qk_pos *p, int depth)
{
    if (depth <= 0)
        return 1;
    qk_st s;
    qk_st_load(v, p, &s);
    /* Only some rows end games other than by lack of moves (section 8). */
    bool ends = v->rules->limit != LIMIT_NONE || v->rules->sultan_majority;
    return perft_rec(v, p, &s, depth, ends);
}
