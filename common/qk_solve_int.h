/*
 * qk_solve_int: private to qk_solve*.c. The table of solved positions
 * and the bit-board form of an Alquerkonane position.
 *
 * Table. Each entry is two 64-bit words: `data` (lower and upper bound of
 * the value relative to the entry's own position, the best move, log2 of
 * the positions its search visited) and `kx` = key ^ data. Threads read
 * and write entries with relaxed atomic loads and stores and no lock; an
 * entry torn by a concurrent write fails the check key == kx ^ data and
 * reads as absent (Hyatt and Mann's lockless hashing). A bucket is four
 * entries, one 64-byte cache line. data == 0 is an empty entry (a stored
 * value is never 0: bounds are wins, losses or +-QK_SCORE_INF).
 */
#ifndef QK_SOLVE_INT_H
#define QK_SOLVE_INT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "qk_engine_int.h"
#include "qk_solve.h"

#define QK_TT_BUCKET 4

struct qk_solve_entry {
    _Atomic uint64_t kx, data;
};

typedef struct qk_tt_hit {
    int lo, hi;    /* relative to the entry's position */
    uint16_t move; /* 0: none */
} qk_tt_hit;

/* Per-thread counters and limits of one search, shared by both paths. */
typedef struct qk_sctl {
    qk_solver *s;
    atomic_int *halt;       /* set by whoever stops the search: every thread polls it */
    const atomic_int *stop; /* the caller's flag */
    _Atomic uint64_t nodes, expanded, filled;
    uint64_t node_limit; /* per thread */
    struct timespec deadline;
    bool timed;
    bool aborted;
    bool nospc;
    int id; /* thread number, 0 = the main one */
} qk_sctl;

bool qk_tt_probe(const qk_solver *s, uint64_t key, qk_tt_hit *h);
/* Store bounds lo..hi (node-relative) merged with what the entry knows.
 * Counts a newly filled slot in *filled. */
void qk_tt_store(qk_solver *s, uint64_t key, int lo, int hi, uint16_t move, uint8_t work,
                 _Atomic uint64_t *filled);

/* Polls the limits every 1024 positions; true when the search must end. */
static inline bool qk_sctl_tick(qk_sctl *c)
{
    uint64_t n = atomic_load_explicit(&c->nodes, memory_order_relaxed) + 1;
    atomic_store_explicit(&c->nodes, n, memory_order_relaxed);
    if (c->aborted)
        return true;
    if ((c->node_limit && n > c->node_limit) ||
        ((n & 1023) == 0 &&
         ((c->stop && atomic_load(c->stop)) || atomic_load_explicit(c->halt, memory_order_relaxed) ||
          (c->timed && qk_deadline_passed(&c->deadline))))) {
        c->aborted = true;
        atomic_store(c->halt, 1);
        return true;
    }
    return false;
}

static inline void qk_sctl_inc(_Atomic uint64_t *x)
{
    atomic_store_explicit(x, atomic_load_explicit(x, memory_order_relaxed) + 1,
                          memory_order_relaxed);
}

static inline uint8_t qk_log2u(uint64_t x)
{
    uint8_t r = 0;
    while (x > 1) {
        x >>= 1;
        r++;
    }
    return r;
}

/* ---- the generic path (qk_solve_generic.c): any board, qk_movegen ---- */

/* Search from p at the root with the window (alpha, beta); fills *best. */
int qk_solve_generic(qk_sctl *c, const qk_variant *v, const qk_pos *p, int alpha, int beta,
                     qk_move *best, bool *has_best);
int qk_solve_generic_pv(qk_solver *s, const qk_variant *v, const qk_pos *p, qk_move *pv, int cap);
uint64_t qk_solve_generic_key(const qk_variant *v, const qk_pos *p);

/* ---- bit boards (qk_solve_bb.c): at most 64 squares ------------------- */

#define QK_BB_MAXMOVES 192 /* 6 directions x at most 32 targets each */

typedef struct qk_bbgeo {
    int ranks, files, n;
    uint64_t board, not_left, not_right, not_top, not_bottom;
    uint64_t up2, down2, right2, left2; /* a pawn there can jump that way */
    bool mirror;                        /* fold keys over the left-right mirror */
    uint64_t file[8]; /* each file's squares: qk_bb_supported() allows at most 8 files */
    uint64_t salt;
} qk_bbgeo;

typedef struct qk_bbpos {
    uint64_t c[2]; /* [QK_WHITE], [QK_BLACK] */
    int side;
} qk_bbpos;

/* A bit-board move: from | to << 6 | capture << 12 | 0x8000 (never 0). */
typedef uint16_t qk_bbmove;

bool qk_bb_supported(const qk_variant *v);
void qk_bb_geo(const qk_variant *v, qk_bbgeo *g);
void qk_bb_from_pos(const qk_bbgeo *g, const qk_pos *p, qk_bbpos *out);
void qk_bb_to_pos(const qk_bbgeo *g, const qk_bbpos *b, qk_pos *out);
int qk_bb_gen(const qk_bbgeo *g, const qk_bbpos *p, qk_bbmove *mv);
int qk_bb_count(const qk_bbgeo *g, const qk_bbpos *p, int side);
void qk_bb_make(qk_bbpos *p, qk_bbmove m);
void qk_bb_to_move(qk_bbmove m, qk_move *out);
/* Key of p folded over the mirror when g->mirror; *mirrored says whether
 * the mirror image gave it (moves are then stored mirrored). */
uint64_t qk_bb_key(const qk_bbgeo *g, const qk_bbpos *p, bool *mirrored);
qk_bbmove qk_bb_mirror_move(const qk_bbgeo *g, qk_bbmove m);

typedef struct qk_bbsearch {
    qk_sctl *c;
    const qk_bbgeo *g;
    qk_bbmove root_best;
    bool root_has;
} qk_bbsearch;

int qk_bb_search(qk_bbsearch *t, const qk_bbpos *p, int alpha, int beta, int ply);
/* The table's knowledge of p: true with h filled (bounds of p, move in
 * p's own orientation). */
bool qk_bb_probe(const qk_bbgeo *g, const qk_solver *s, const qk_bbpos *p, qk_tt_hit *h);

#endif
