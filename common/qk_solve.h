/*
 * qk_solve: exact solver for Alquerkonane (RULES.md section 7).
 *
 * Design. Alquerkonane has no draws and every game ends (the side to move
 * with no legal move loses), so a position's value is "the side to move
 * wins in d plies" or "loses in d plies" with perfect play: the winner
 * takes the fastest win, the loser delays the loss as long as it can. The
 * solver computes that value with a full-width alpha-beta (principal
 * variation search) over distance-to-end scores, the technique of
 * mate-distance scores in chess programs: a win in d plies from the root
 * scores QK_SCORE_WIN - d, a loss -(QK_SCORE_WIN - d). Every leaf is a
 * finished game, so there is no depth limit and no evaluation.
 *
 * A hash table of solved positions, keyed by qk_engine_key() (board and
 * side; the quiet count does not matter in Alquerkonane), keeps for each
 * position a lower and an upper bound of its value relative to that
 * position (so an entry is valid at any ply and across searches of the
 * same variant) and the best move found. The table lives in memory the
 * caller gives or qk_solver_init() allocates; search allocates nothing.
 * When the table is full, entries that cost fewer positions to compute are
 * replaced first; results stay exact, only slower.
 *
 * Moves come from the public rules API (qk_movegen, qk_pos_make), so the
 * solver plays exactly the rules the server enforces.
 */
#ifndef QK_SOLVE_H
#define QK_SOLVE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "qk_rules.h"

/* Scores shared with qk_engine (side to move's view). A forced win in d
 * plies scores QK_SCORE_WIN - d; a forced loss in d plies
 * -(QK_SCORE_WIN - d). Anything with magnitude >= QK_SCORE_MATE is such a
 * forced result; heuristic scores stay well inside. The engine reports
 * exactly +-QK_SCORE_MATE for a proven result of unknown distance. */
#define QK_SCORE_WIN 30000
/* Room for distances up to 10 000 plies: the longest Alquerkonane game on
 * a 12x12 board is under 2 200 (section 7's measure: 11 steps and 3 per
 * pawn, for at most 144 pawns). Evaluations stay within +-10 000. */
#define QK_SCORE_MATE (QK_SCORE_WIN - 10000)
#define QK_SCORE_INF 32000

/* Errors of the engine and solver beyond those of qk_rules.h. */
#define QK_ENOMEM (-16) /* allocation failed */

struct qk_solve_entry; /* private: two 64-bit words, lockless */

/* Smallest memory qk_solver_init() accepts: a full move list and a few
 * buckets. */
#define QK_SOLVE_MIN_BYTES ((size_t)QK_MAX_MOVES * sizeof(qk_move) * 2 + 4096)

/* Most threads one qk_solve() call runs. */
#define QK_SOLVE_MAX_THREADS 16

/* A solver and its table of solved positions. Initialise with
 * qk_solver_init() or qk_solver_init_buffer(); release with
 * qk_solver_free(). One qk_solve() at a time per solver; that call may run
 * several threads over the one table (qk_solve_limits.threads). */
typedef struct qk_solver {
    struct qk_solve_entry *table; /* buckets of entries */
    size_t nbuckets;              /* power of two */
    qk_move *moves;               /* move stack of the generic path (boards over 64 squares) */
    size_t nmoves;                /* its capacity in moves */
    void *mem;                    /* what qk_solver_init() allocated, or NULL */
} qk_solver;

/* What a long search reports while it runs (qk_solve_limits.progress). */
typedef struct qk_solve_progress {
    uint64_t nodes;      /* positions visited so far, every thread */
    uint64_t expanded;   /* of which searched (not answered by the table) */
    uint64_t filled;     /* table entries in use (approximate) */
    uint64_t capacity;   /* table entries in all */
    uint64_t elapsed_ms; /* since the call began */
} qk_solve_progress;

/* Limits of one qk_solve() call. All zero = no limit, exact distances, the
 * calling thread only. */
typedef struct qk_solve_limits {
    uint64_t nodes;         /* positions visited before giving up (all threads) */
    uint32_t time_ms;       /* wall time (CLOCK_MONOTONIC) before giving up */
    const atomic_int *stop; /* NULL, or set non-zero (by any thread) to stop */
    /* Decide only who wins: a null window around 0 instead of the full
     * window, so the first winning move found ends a node. Far cheaper;
     * the distance is then unknown. */
    bool winner_only;
    /* Search threads over the shared table (boards of at most 64 squares;
     * 0 or 1: the calling thread alone). With more, helpers search the
     * same tree in another move order (lazy SMP) and the first to finish
     * gives the result. */
    int threads;
    /* Called on the calling thread every progress_ms (0: never) while the
     * search runs (only when threads > 1 or progress_ms is set: the
     * search then runs on helper threads). May read the table (for
     * qk_solver_save()). */
    uint32_t progress_ms;
    void (*progress)(const qk_solve_progress *pr, void *arg);
    void *progress_arg;
} qk_solve_limits;

typedef struct qk_solve_result {
    bool solved;       /* false: a limit stopped the search; the rest is 0 */
    bool mover_wins;   /* the side to move of the solved position wins */
    qk_result winner;  /* QK_RESULT_WHITE or QK_RESULT_BLACK when solved */
    bool exact;        /* distance and score known (not winner_only) */
    int distance;      /* plies to the end with perfect play; -1 if unknown */
    int score;         /* +-(QK_SCORE_WIN - distance), side to move's view;
                          +-1 when the distance is unknown */
    uint64_t nodes;    /* positions visited, table hits included */
    uint64_t expanded; /* positions whose moves were generated and that the
                          table did not answer: the "positions searched" */
    bool has_move;     /* false when the position is already over */
    qk_move best;      /* a best move: fastest win or longest loss (with
                          winner_only: a winning move, or any move) */
} qk_solve_result;

/* Allocate `bytes` bytes for the solver: a move stack of about 1/16 of
 * it (at least QK_MAX_MOVES moves, so bytes must be at least
 * QK_SOLVE_MIN_BYTES; at most 16 MiB) and a table of the rest, rounded down to a power of
 * two number of 64-byte buckets. Returns QK_OK, QK_EINVAL (s NULL or bytes
 * too small) or QK_ENOMEM (nothing allocated). Free with
 * qk_solver_free(). */
int qk_solver_init(qk_solver *s, size_t bytes);

/* Use caller memory `buf` of `bytes` bytes (aligned for uint64_t), split
 * as by qk_solver_init(); the caller keeps ownership and must keep it
 * alive while the solver is used. Same errors as qk_solver_init() but
 * never QK_ENOMEM. */
int qk_solver_init_buffer(qk_solver *s, void *buf, size_t bytes);

/* Release the table if qk_solver_init() allocated it; the struct can be
 * initialised again. Safe on a zeroed struct and idempotent. */
void qk_solver_free(qk_solver *s);

/* Forget every solved position (the table memory is kept). */
void qk_solver_clear(qk_solver *s);

/* Table entries in use and in all (a scan of the table). */
void qk_solver_fill(const qk_solver *s, uint64_t *used, uint64_t *capacity);

/* Whether p is worth handing to qk_solve() for exact distances with no
 * node budget: Alquerkonane on at most 30 squares, or with at most 8
 * pawns. Other positions may still solve; give them a budget or ask for
 * the winner only. */
bool qk_solve_feasible(const qk_variant *v, const qk_pos *p);

/* Solve p for variant v within the limits (lim may be NULL: no limit).
 * Returns QK_OK with *out filled (out->solved false when a limit was hit;
 * the table keeps what was learnt), QK_EINVAL when an argument is NULL, the
 * variant is not Alquerkonane (only there is every game finite with no
 * draw, RULES.md section 7) or the solver has no table, QK_ENOMEM when
 * a thread could not start, or QK_ENOSPC when
 * a position has more legal moves than what is left of the solver's move
 * stack (then out->solved is false). p is not modified.
 *
 * Boards of at most 64 squares (R, C <= 8) are searched on bit boards
 * with their own move generator (tested against qk_movegen(), which stays
 * the reference; certificates are checked with it), moves ordered by the
 * engine's Alquerkonane measure (the opponent's mobility after the move,
 * then one's own), keys folded over the left-right mirror when the board
 * has an odd number of files. Larger boards use the rules API directly. */
int qk_solve(qk_solver *s, const qk_variant *v, const qk_pos *p, const qk_solve_limits *lim,
             qk_solve_result *out);

/* Decide who wins p by depth-first proof-number search (df-pn,
 * common/qk_solve_dfpn.c) instead of alpha-beta: the winner only (out->exact
 * false, distance -1, score +-1, best a winning move or, when lost, the
 * first legal move). Boards of at most 8 ranks and 8 files, one thread; lim->nodes
 * bounds the positions visited, lim->time_ms and lim->stop as for
 * qk_solve() (threads, winner_only and progress are ignored). The
 * solver's table is its memory: it is cleared before and after (what it
 * held is lost; checkpoints and qk_solve_certificate() need qk_solve()).
 * out->expanded counts positions whose moves were generated. Returns
 * QK_OK (out->solved false when a limit stopped it) or QK_EINVAL
 * (argument NULL, no table, not Alquerkonane, over 8 ranks or files). Source:
 * RULES.md section 7 (no move: the mover loses; no draws, no cycles). */
int qk_solve_dfpn(qk_solver *s, const qk_variant *v, const qk_pos *p, const qk_solve_limits *lim,
                  qk_solve_result *out);

/* The principal variation of a position the solver has solved: up to cap
 * best moves from p, following the table. Returns the number written (0
 * when p is unsolved, finished or cap is 0). p is not modified. */
int qk_solve_pv(qk_solver *s, const qk_variant *v, const qk_pos *p, qk_move *pv, int cap);

/* What the table knows of p: QK_OK with *mover_wins and, when the value is
 * exact, *distance (else -1); QK_EILLEGAL when the table does not know
 * who wins; QK_EINVAL as qk_solve(). */
int qk_solve_lookup(qk_solver *s, const qk_variant *v, const qk_pos *p, bool *mover_wins,
                    int *distance);

/* ---- certificates (docs/solved.md) ------------------------------------ */

typedef struct qk_cert_stats {
    uint64_t lines;    /* positions with the winner to move, one line each */
    uint64_t bytes;    /* of the whole certificate */
    uint64_t loser;    /* positions with the loser to move expanded (with repeats) */
    uint64_t searches; /* positions the walk had to search again (not in the table) */
} qk_cert_stats;

/* Write a proof certificate of p's value to out: the header line
 * "# qirkat-certificate 1 VARIANT WINNER POSITION", then for each position
 * of the proof with the winner to move, "POSITION\tMOVE\n", each position
 * once (field 3, the no-capture count, written 0: it plays no part in
 * Alquerkonane). The winner's moves come from the table (searched again
 * where an entry was replaced), preferring the move that leaves the loser
 * fewest replies. Boards of at most 8 ranks and 8 files only. lim bounds the
 * searches of the walk (NULL: none). A finished p (the mover has no
 * move) gets the header alone. Returns QK_OK, QK_EINVAL (arguments,
 * larger board), QK_EILLEGAL (the table contradicts itself), QK_ENOMEM, or QK_ENOSPC
 * when a limit stopped it (out then holds a partial certificate). */
int qk_solve_certificate(qk_solver *s, const qk_variant *v, const qk_pos *p,
                         const qk_solve_limits *lim, FILE *out, qk_cert_stats *st);

/* ---- checkpoints ------------------------------------------------------ */

/* Save the table's entries that cost at least 2^min_work positions (0:
 * every entry) to path (written to path.tmp, then renamed), tagged with
 * `tag` (a line of text naming the problem, e.g. variant and position).
 * Safe while a search runs on s (entries are checked on load). Returns
 * QK_OK or QK_EINVAL (I/O error, errno set). */
int qk_solver_save(const qk_solver *s, const char *path, const char *tag, int min_work,
                   uint64_t *saved);

/* Load a checkpoint written by qk_solver_save() with the same tag into the
 * table (entries are merged). Returns QK_OK, QK_EILLEGAL when the tag
 * differs or the file is not a checkpoint, QK_EINVAL on I/O error. */
int qk_solver_load(qk_solver *s, const char *path, const char *tag, uint64_t *loaded);

#endif
