/*
 * Private header of the rules module (qk_rules.c, qk_rules_gen.c,
 * qk_rules_text.c); nothing outside common/qk_rules*.c includes it.
 *
 * It holds the variant table row (struct qk_rules), the point-set helpers
 * the generator is written in, and the internal entry points the three
 * files share. Point sets are plain bit sets with bit p = point p, so a set
 * bit converts to the public point index without arithmetic; moving a set
 * one point in direction d is a shift by geom.delta[d], and the geometry's
 * step1/step2 masks say beforehand which points may move that way, so
 * nothing wraps around a board edge.
 */
#ifndef QK_RULES_INT_H
#define QK_RULES_INT_H

#include "qk_rules.h"

/* Directions, as seen from rank 1 (qk_geom.delta). */
enum { D_N, D_NE, D_E, D_SE, D_S, D_SW, D_W, D_NW };
/* Marks a text for the client's message catalogue (po/, xgettext
 * --keyword=QK_N_): the rules' summaries stay English here, in the server
 * and in --json, and the client prints them translated. */
#define QK_N_(s) s

#define DB(d) (1u << (d))
#define DIRS_ORTH (DB(D_N) | DB(D_E) | DB(D_S) | DB(D_W))
#define DIRS_ALL 0xFFu
#define DIRS_FWD (DB(D_N) | DB(D_NE) | DB(D_NW))
#define DIRS_SIDE (DB(D_E) | DB(D_W))
#define DIRS_DIAG_FWD (DB(D_NE) | DB(D_NW))

/* The direction sets of a row (qk_geom.dirs[side][...]). "Far" means a man
 * standing on the opponent's back rank (RULES.md section 5: a BrainKing man
 * there cannot step and first-jumps only sideways). */
enum {
    QK_DIRSET_MAN_STEP,
    QK_DIRSET_MAN_STEP_FAR,
    QK_DIRSET_MAN_JUMP1,
    QK_DIRSET_MAN_JUMP1_FAR,
    QK_DIRSET_MAN_JUMP_LATER,
    QK_DIRSET_SUL_STEP,
    QK_DIRSET_SUL_JUMP,
    QK_DIRSET_N
};

enum { CAPTURE_OPTIONAL, CAPTURE_COMPULSORY };
enum { CHAIN_NONE, CHAIN_OPTIONAL, CHAIN_COMPULSORY };
enum { REMOVE_AT_ONCE, REMOVE_AT_END };
enum { LIMIT_NONE, LIMIT_DRAW, LIMIT_COUNT };

/* Plies without a capture that end the game where a limit applies
 * (RULES.md sections 3, 4, 6). */
#define QK_QUIET_LIMIT 40
#define QK_NO_POINT 0xFF

/* One variant family: everything a rule of RULES.md varies, as data. */
struct qk_rules {
    const char *name;          /* canonical name; NULL for the RxC pattern row */
    uint8_t section;           /* the RULES.md section of the variant */
    uint8_t konane;            /* chequered board: all diagonals, no Alquerque X lines */
    uint8_t bottom;            /* qk_side that sits at rank 1 */
    uint8_t dirs[QK_DIRSET_N]; /* for the side at rank 1; mirrored for the other */
    uint8_t capture;           /* CAPTURE_* */
    uint8_t chain;             /* CHAIN_* */
    uint8_t removal;           /* REMOVE_* */
    uint8_t sultans;           /* men promote at the end of a move on the far rank */
    uint8_t long_sultan;       /* Sultans slide and capture at any range */
    uint8_t memory;            /* BrainKing no-return memory (section 5) */
    uint8_t limit;             /* LIMIT_*: 40 quiet plies draw / count pieces */
    uint8_t sultan_majority;   /* section 6 Sultan-majority draw */
    uint8_t draws;             /* draw offers make sense */
    const char *mid_rank;      /* Alquerque start: rank 3 from file a (section 2) */
    const char *summary;
};

/* The mover's lifted state during generation: which side moves and the
 * pieces of each side. Built from qk_pos by qk_st_load(). */
typedef struct qk_st {
    qk_bb pc[2]; /* per side: every piece */
    qk_bb sul;   /* Sultans of both sides */
} qk_st;

/* ---- point sets ------------------------------------------------------ */

/* Every set operation takes the number of words in use, nw: 1 when the
 * board has at most 64 points (all Alquerque boards, Alquerkonane up to
 * 8x8), else QK_BB_WORDS. The generator is inlined once per width with nw
 * a constant, so a 25-point board costs one-word operations. Words at and
 * above nw are neither read nor written. */
#define BB_INLINE static inline __attribute__((always_inline))

BB_INLINE qk_bb bb_and(qk_bb a, qk_bb b, int nw)
{
    qk_bb r = {{0}};
    for (int i = 0; i < nw; i++)
        r.w[i] = a.w[i] & b.w[i];
    return r;
}
BB_INLINE qk_bb bb_or(qk_bb a, qk_bb b, int nw)
{
    qk_bb r = {{0}};
    for (int i = 0; i < nw; i++)
        r.w[i] = a.w[i] | b.w[i];
    return r;
}
BB_INLINE qk_bb bb_andnot(qk_bb a, qk_bb b, int nw)
{
    qk_bb r = {{0}};
    for (int i = 0; i < nw; i++)
        r.w[i] = a.w[i] & ~b.w[i];
    return r;
}
BB_INLINE qk_bb bb_zero(int nw)
{
    qk_bb r = {{0}};
    for (int i = 0; i < nw; i++)
        r.w[i] = 0;
    return r;
}
BB_INLINE bool bb_any(qk_bb a, int nw)
{
    uint64_t x = 0;
    for (int i = 0; i < nw; i++)
        x |= a.w[i];
    return x != 0;
}
BB_INLINE int bb_count(qk_bb a, int nw)
{
    int n = 0;
    for (int i = 0; i < nw; i++)
        n += __builtin_popcountll(a.w[i]);
    return n;
}
BB_INLINE bool bb_test(const qk_bb *a, int p)
{
    return (a->w[p >> 6] >> (p & 63)) & 1;
}
BB_INLINE void bb_set(qk_bb *a, int p)
{
    a->w[p >> 6] |= (uint64_t)1 << (p & 63);
}
BB_INLINE void bb_clear(qk_bb *a, int p)
{
    a->w[p >> 6] &= ~((uint64_t)1 << (p & 63));
}
/* Move every point of a by delta points (0 < |delta| < 64); bits leaving
 * the nw-word range vanish. Callers mask sources first so nothing wraps
 * round a board edge. */
BB_INLINE qk_bb bb_shift(qk_bb a, int delta, int nw)
{
    qk_bb r = {{0}};
    if (delta > 0) {
        unsigned k = (unsigned)delta;
        r.w[0] = a.w[0] << k;
        for (int i = 1; i < nw; i++)
            r.w[i] = (a.w[i] << k) | (a.w[i - 1] >> (64 - k));
    } else {
        unsigned k = (unsigned)-delta;
        for (int i = 0; i < nw - 1; i++)
            r.w[i] = (a.w[i] >> k) | (a.w[i + 1] << (64 - k));
        r.w[nw - 1] = a.w[nw - 1] >> k;
    }
    return r;
}
/* Remove and return the lowest point of a non-empty set. */
BB_INLINE int bb_pop(qk_bb *a, int nw)
{
    for (int i = 0; i < nw; i++) {
        if (a->w[i]) {
            int b = __builtin_ctzll(a->w[i]);
            a->w[i] &= a->w[i] - 1;
            return i * 64 + b;
        }
    }
    return -1;
}
/* Words in use for a board of n points. */
static inline int bb_words(int n)
{
    return n <= 64 ? 1 : QK_BB_WORDS;
}

/* ---- shared internals ------------------------------------------------ */

/* Derive the bit sets of p. */
void qk_st_load(const qk_variant *v, const qk_pos *p, qk_st *s);

/* The move generator (qk_rules_gen.c). With moves == NULL it only counts
 * (perft's bulk counting and qk_pos_status()); otherwise it stores up to
 * cap moves and returns QK_ENOSPC beyond. `from` is the BrainKing memory.
 * With match != NULL only the legal move with match's path and kind
 * (capture or not) is produced, if any. */
long qk_gen(const qk_variant *v, const qk_st *s, int side, const uint8_t *from, qk_move *moves,
            int cap, const qk_move *match);

/* Whether step target `to` of a man of `side` on `at` is one it could step
 * to (direction allowed for the side and a line exists). Used to keep only
 * meaningful BrainKing memory (section 1 field 4, section 5). */
bool qk_memory_relevant(const qk_variant *v, int side, int at, int to);

/* Section 8 checks 2 and 3 only (the ones that do not need moves). */
bool qk_status_static(const qk_variant *v, const qk_pos *p, const qk_st *s, qk_result *result,
                      qk_reason *reason);

/* Piece helpers. */
static inline int qk_piece_side(int pc)
{
    return (pc == QK_BMAN || pc == QK_BSULTAN) ? QK_BLACK : QK_WHITE;
}
static inline bool qk_piece_is_sultan(int pc)
{
    return pc == QK_WSULTAN || pc == QK_BSULTAN;
}

#endif
