/*
 * qk_engine: game-playing search for every variant of RULES.md.
 *
 * Design. Iterative deepening over a principal variation search (negamax
 * alpha-beta with null windows after the first move), a quiescence search
 * over captures (at most 16 plies and 2,048 nodes from each leaf, so a
 * depth-limited search ends on any board, dense 12x12 Alquerkonane
 * included), and a transposition table of 16-byte entries in 64-byte
 * buckets (key, depth, bound, score, best move, the quiet count it was
 * searched with). Keys are Zobrist-style: a fixed 64-bit mix of every
 * (point, piece) pair, the side to move, the BrainKing no-return memory
 * (section 5, it decides which steps are legal) and the variant. The quiet
 * count is not in the key, because hashing it would stop every transposition
 * across searches; instead an entry is reused only when both positions'
 * counts are too far from the 40-ply limit for it to be reached inside the
 * entry's depth, or the counts are equal (sections 3, 4, 6, 8), so the
 * draw rule never gives a wrong score.
 *
 * Moves are ordered: the table's move, captures by the value of what they
 * take (more pieces, Sultans first), two killer moves per ply, then a
 * history score. Terminal positions are scored exactly: the side to move
 * with no move loses (section 8), qk_pos_status() gives the draws and the
 * move-limit results. A forced win in d plies from the root scores
 * QK_SCORE_WIN - d (mate-distance scores), so the engine takes the fastest
 * win and delays a loss. Alquerkonane positions are first handed to the
 * exact solver (qk_solve.h) within a budget; when it succeeds the engine
 * plays its perfect move.
 *
 * Evaluation (qk_engine_evaluate) is per variant family: Alquerque
 * (material with Sultans worth more, advancement of forward-only men,
 * centre and diagonal points, light pseudo-mobility) and Alquerkonane
 * (mobility difference, which is decisive since a side with no move loses,
 * remaining forward steps as tempo, material).
 *
 * The engine lives in a caller-owned qk_engine: qk_engine_init() allocates
 * its tables once, search allocates nothing, qk_engine_free() releases
 * them. There is no global state and no I/O; time comes from
 * clock_gettime(CLOCK_MONOTONIC). One context per thread; another thread
 * may stop a search through the limits' stop flag. The random number
 * generator of the weak levels is seeded in the context, so games with a
 * fixed seed and node or depth limits are reproducible.
 */
#ifndef QK_ENGINE_H
#define QK_ENGINE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qk_rules.h"
#include "qk_solve.h"

#define QK_ENGINE_MAX_DEPTH 64 /* nominal iterative-deepening depth, plies */
#define QK_ENGINE_MAX_PLY 128  /* search stack, quiescence and extensions */
#define QK_ENGINE_MAX_PV 64
#define QK_ENGINE_DEFAULT_MS 1000 /* per-move budget of the levels */
#define QK_ENGINE_DEFAULT_TT (16u << 20)

struct qk_tt_bucket;   /* private */
struct qk_engine_work; /* private: killers, history, move stack, PV */

/* Engine context. Fields are private; the struct is public only so callers
 * can own it (stack, connection record, ...). */
typedef struct qk_engine {
    struct qk_tt_bucket *tt;     /* transposition table; owned */
    size_t tt_buckets;           /* power of two */
    struct qk_engine_work *work; /* owned */
    qk_solver solver;            /* Alquerkonane solver with its own table */
    uint64_t rng;                /* xorshift64* state of the weak levels */
    uint8_t age;                 /* search generation, for table replacement */
} qk_engine;

/* Limits of one search. Zero fields mean "no limit"; with all of them zero
 * the search runs to QK_ENGINE_MAX_DEPTH (or a proven result). */
typedef struct qk_limits {
    int depth;              /* maximum nominal depth in plies (0 = maximum) */
    uint64_t nodes;         /* nodes (positions visited, quiescence included) */
    uint32_t time_ms;       /* wall-clock budget in milliseconds */
    const atomic_int *stop; /* NULL, or set non-zero by any thread to stop */
    /* Weak levels: per cent probability (0..100) of playing a uniformly
     * random legal move other than the best one. */
    int mistake_pct;
    /* Alquerkonane only. The solver runs first within solver_nodes (0:
     * unlimited where qk_solve_feasible(), a default budget elsewhere; at
     * most half of nodes) and half of time_ms: exact distances, then the
     * winner only. no_solver skips it. */
    uint64_t solver_nodes;
    bool no_solver;
    /* Level 4 ("perfect"): the solver gets the whole budget (half for
     * exact distances, half for the winner only) and no default node cap,
     * so it decides every board it can within the move's time. */
    bool perfect;
} qk_limits;

typedef struct qk_search_result {
    bool has_move;    /* false only when the game is over at p */
    qk_move best;     /* the move to play (legal in p) */
    int score;        /* side to move's view: centipawn-like, a man = 100;
                         forced results +-(QK_SCORE_WIN - plies to the end);
                         QK_SCORE_MATE: the solver proved a win of unknown
                         length */
    int depth;        /* last completed iteration (plies); the solver's
                         distance to the end when solved (0 if unknown) */
    uint64_t nodes;   /* positions visited (solver's included) */
    uint32_t time_ms; /* wall time spent */
    bool solved;      /* the solver decided: score exact, or QK_SCORE_MATE */
    bool mistake;     /* a weak level replaced the best move by a random one */
    int pv_len;       /* moves in pv (pv[0] == best unless mistake) */
    qk_move pv[QK_ENGINE_MAX_PV];
} qk_search_result;

/* Initialise e with about tt_bytes of memory for the transposition table
 * (0 = QK_ENGINE_DEFAULT_TT; rounded down to a power of two number of
 * 64-byte buckets, at least 64 KiB), plus a solver table of a quarter of
 * that (at least 4 MiB) and fixed move stacks (about 2.5 MiB). The random
 * generator starts from a fixed seed (see qk_engine_seed). Returns QK_OK, QK_EINVAL (e
 * NULL) or QK_ENOMEM (nothing left allocated). Release with
 * qk_engine_free(). */
int qk_engine_init(qk_engine *e, size_t tt_bytes);

/* Release what qk_engine_init() allocated. Idempotent; safe on a zeroed
 * struct. */
void qk_engine_free(qk_engine *e);

/* Reseed the weak levels' generator (any value; the same seed and the same
 * searches give the same moves). */
void qk_engine_seed(qk_engine *e, uint64_t seed);

/* Forget the table, killers and history (a new game; results never depend
 * on it for correctness, only on speed and, with time limits, moves). */
void qk_engine_clear(qk_engine *e);

/* Search position p of variant v within lim (NULL: QK_ENGINE_DEFAULT_MS
 * milliseconds) and fill *out. Returns QK_OK (out->has_move false when the
 * game is over at p, qk_pos_status()), QK_EINVAL (NULL argument, or e not
 * initialised) or QK_ENOSPC (p has more legal moves than the engine's
 * move stack, 32768; deeper positions with too many moves for what is left
 * of the stack are evaluated statically). Always returns a legal move when
 * one exists, however small the limits: the first iteration's best, or
 * failing that the first move in capture order. p is not modified. */
int qk_engine_search(qk_engine *e, const qk_variant *v, const qk_pos *p, const qk_limits *lim,
                     qk_search_result *out);

/* Limits for play level 1, 2, 3 or 4 with a per-move budget of budget_ms
 * milliseconds (0 = QK_ENGINE_DEFAULT_MS):
 *   1  weak: depth 2, at most budget_ms / 4, a random move 30% of the
 *      time, no solver;
 *   2  medium: depth 6, at most budget_ms / 2, no mistakes, the solver;
 *   3  strongest: the whole budget, no depth limit, the solver;
 *   4  perfect: level 3 with the solver given the whole budget first
 *      (qk_limits.perfect): on an Alquerkonane board it decides in time,
 *      a won position keeps its win (the shortest when the distance is
 *      known), a lost one plays the longest defence (when known; else the
 *      search's best).
 * Returns QK_OK, or QK_EINVAL for another level or out NULL. The caller may
 * then add a stop flag or tighten nodes/depth (tests and benchmarks do). */
int qk_engine_level_limits(int level, uint32_t budget_ms, qk_limits *out);

/* Static evaluation of p from the side to move's view (no search, no
 * terminal detection): the heuristic of the design paragraph, in the
 * score units of qk_search_result. */
int qk_engine_evaluate(const qk_variant *v, const qk_pos *p);

/* 64-bit key of p: board, side to move, BrainKing memory and variant,
 * not the quiet count. Equal positions of one variant have equal keys. */
uint64_t qk_engine_key(const qk_variant *v, const qk_pos *p);

/* Human form of a score into buf (n >= 16 is always enough): "+1.25"
 * (pawns) or, for forced results, "win in 7" / "loss in 6" (plies), or
 * "win" / "loss" for +-QK_SCORE_MATE (length unknown). Returns the length
 * or QK_ENOSPC. */
int qk_engine_score_format(int score, char *buf, size_t n);

#endif
