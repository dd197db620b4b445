/*
 * Helpers of the engine tests: parsing with assertions, legality checks
 * against qk_movegen, a plain negamax (no table, no pruning) as the
 * independent reference for the solver, and a brute-force "forced win
 * within d plies" as the reference for the engine's mate scores.
 */
#ifndef QK_TEST_ENGINE_HELPERS_H
#define QK_TEST_ENGINE_HELPERS_H

#include <stdbool.h>
#include <stdint.h>

#include "qk_engine.h"

/* Move buffers of the tests: more than QK_MAX_MOVES, which reachable
 * traditional positions exceed (1285 capture paths in one of them). */
#define TMOVES (1 << 15)

qk_variant tv(const char *name);
qk_pos tp(const qk_variant *v, const char *s);
/* Move text into a static buffer (tests only). */
const char *tmove(const qk_variant *v, const qk_move *m);
/* Same path and captures (unused array tails ignored). */
bool tsame(const qk_move *a, const qk_move *b);
bool tlegal(const qk_variant *v, const qk_pos *p, const qk_move *m);
/* Every move of the PV legal in turn from p. */
bool tpv_legal(const qk_variant *v, const qk_pos *p, const qk_move *pv, int n);

/* Exact distance-to-end value (QK_SCORE_WIN - d / -(QK_SCORE_WIN - d),
 * side to move's view) by full minimax without table or pruning. Sets
 * *nodes; returns QK_SCORE_INF when more than limit nodes were needed. */
int plain_negamax(const qk_variant *v, qk_pos *p, uint64_t *nodes, uint64_t limit);

/* Fail-soft alpha-beta over root-relative distance scores, no table, no
 * move ordering: exact with the full window (-QK_SCORE_INF, QK_SCORE_INF). */
int plain_alphabeta(const qk_variant *v, qk_pos *p, int alpha, int beta, int ply, uint64_t *nodes);

/* Can the side to move force a win within d plies (the game over with
 * the mover winning after at most d plies, whoever plays the last one)?
 * Plain minimax over qk_movegen / qk_pos_status; d < 16. */
bool forced_win(const qk_variant *v, qk_pos *p, int d);

/* Deterministic generator for playouts. */
uint64_t trand(uint64_t *state);

/* Play a game between two engine configurations from p; returns the
 * result and fills *plies. moves_out (may be NULL) gets move texts
 * concatenated with ' ' (cap bytes). */
qk_result tplay(const qk_variant *v, qk_pos p, qk_engine *ew, const qk_limits *lw, qk_engine *eb,
                const qk_limits *lb, int max_plies, int *plies, char *moves_out, size_t cap);

const char *tshared(void);

#endif
