/*
 * render: text pictures of positions and games for the terminal.
 *
 * Design. A board is first drawn into a small grid of characters with one
 * attribute per cell (bold, dim, dark square, capture mark), then written
 * out line by line, with ANSI sequences only where the attributes change and
 * only under RENDER_COLOR; trailing blanks are trimmed. So the plain text is
 * the same with and without colour, and tests can compare exact strings.
 *
 * Alquerque boards (RULES.md section 2) are points joined by lines: "---"
 * and "|" for the orthogonals, and in each unit square the one diagonal that
 * joins its two X-carrying corners (0-based file + rank even): "/" when the
 * lower-left corner carries the X, "\" otherwise. Alquerkonane boards
 * (section 7) are squares three characters wide, dark ones (file + rank
 * even, a1 dark) filled with ':' or, in colour, a grey background. Men are
 * w/b, Sultans W/B (bold in colour). The last move's landing points are put
 * in brackets and points whose piece it captured show 'x' when empty.
 *
 * Everything goes to a caller's FILE* (a terminal, or open_memstream() in
 * tests); nothing here reads the network or the environment.
 */
#ifndef QC_RENDER_H
#define QC_RENDER_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "qk_rules.h"

enum {
    RENDER_COLOR = 1u << 0,  /* ANSI attributes (see term_use_color()) */
    RENDER_LEGEND = 1u << 1, /* render_game(): a key to the marks under the board */
};

/* Lines of text rendering wraps lists at. */
#define RENDER_WIDTH 78

/* Draw the board of p (variant v) with rank and file labels. last, when
 * not NULL, is the move that led to p: its path is bracketed and its
 * captured points marked. flags: RENDER_*. */
void render_board(FILE *out, const qk_variant *v, const qk_pos *p, const qk_move *last,
                  unsigned flags);

/* Write "HEAD (N): m1 m2 ..." wrapped at RENDER_WIDTH, continuation lines
 * indented by two spaces; "HEAD: none" for an empty list. moves is a JSON
 * array of strings (other items are skipped). */
void render_move_list(FILE *out, const char *head, const cJSON *moves);

/* Draw a game object of PROTOCOL.md ("The game object"):
 *
 *   Game ID  VARIANT  ply N
 *   White: NAME  Black: NAME
 *   (board, last move marked)
 *   Last move: MOVE
 *   White to move (NAME)            or the result when the game is over
 *   Legal moves (N): ...            while the game is active
 *
 * The last move's path and captures come from replaying `moves` from
 * `start` with the rules; when that fails the board is drawn unmarked from
 * `position`. legal_moves is taken from the object, or generated locally
 * when absent (`games` lists may leave it out). me (may be NULL) is the
 * viewer's username, marked "you" in the turn line. Returns 0, or -1 when
 * the object has no usable variant or position (a line saying so is
 * written instead of the board). */
int render_game(FILE *out, const cJSON *game, const char *me, unsigned flags);

/* A human phrase for a reason word of PROTOCOL.md ("no_moves" -> "no legal
 * moves"); the word itself when unknown, "" for NULL. Static storage. */
const char *render_reason_text(const char *reason);

/* "White wins", "Black wins", "Draw" for a result word, else "Game over".
 * Static storage. */
const char *render_result_text(const char *result);

#endif
