/*
 * qk_cert: check a proof certificate of a game value (docs/solved.md)
 * with nothing but the rules module (qk_rules.h).
 *
 * Design. A certificate says "WINNER wins from POSITION" and gives, for
 * each position of the proof with the winner to move, the move the winner
 * plays. The checker walks every line of play from POSITION in which the
 * winner plays the certificate's move and the loser any legal move
 * (qk_movegen), and accepts only when each line ends with the loser to
 * move and no legal move (RULES.md sections 7 and 8). It trusts nothing of
 * the solver: positions are parsed with qk_pos_parse(), moves with
 * qk_move_parse(), each position with the winner to move is checked once
 * (a transposition reuses its result) and a line that comes back to a
 * position still being checked is refused (a line that does not end).
 * A position is identified by its board and side to move: field 3, the
 * no-capture count, plays no part in Alquerkonane and is ignored.
 * It works for any variant whose games are won or lost: the walk refuses a
 * position where the rules declare a draw or a win for the other side.
 */
#ifndef QK_CERT_H
#define QK_CERT_H

#include <stdint.h>
#include <stdio.h>

#include "qk_rules.h"

typedef struct qk_cert_report {
    char variant[QK_VARIANT_NAMELEN];
    qk_result winner;           /* QK_RESULT_WHITE or QK_RESULT_BLACK */
    char start[QK_POS_STRLEN];  /* the header's position */
    uint64_t lines;             /* position lines in the file */
    uint64_t winner_positions;  /* distinct positions with the winner to move checked */
    uint64_t loser_positions;   /* positions with the loser to move expanded (with repeats) */
    uint64_t loser_ends;        /* of which the loser had no legal move */
    uint64_t unused;            /* lines no line of play reached */
    char error[2 * QK_POS_STRLEN + 256]; /* why it was refused ("" when it holds) */
} qk_cert_report;

/* Read a certificate from in and check it. Returns QK_OK when the proof
 * holds, QK_EILLEGAL when it does not (r->error names the position and the
 * reason), QK_EINVAL for a malformed file (r->error names the line), or
 * QK_ENOSPC when memory runs out. r is always filled. */
int qk_cert_verify(FILE *in, qk_cert_report *r);

#endif
