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
 * RENDER_FLIP turns the board half a circle (Black's side at the bottom):
 * the same characters, the diagonals keep their slant, labels follow their
 * points.
 *
 * Live clocks (render_clock) are a value and a local receipt time: the
 * side to move's clock is shown as what the server said minus the time
 * since the message arrived, so a caller redraws it every second without
 * asking the server, and tests pass the "now" they want.
 *
 * Everything goes to a caller's FILE* (a terminal, or open_memstream() in
 * tests); nothing here reads the network or the environment.
 */
#ifndef QC_RENDER_H
#define QC_RENDER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "qk_pdn.h"
#include "qk_rules.h"

enum {
    RENDER_COLOR = 1u << 0,  /* ANSI attributes (see term_use_color()) */
    RENDER_LEGEND = 1u << 1, /* render_game(): a key to the marks under the board */
    RENDER_FLIP = 1u << 2,   /* Black's view: rank 1 at the top, files from right to left */
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

/* Write head, then the strings of the JSON array words separated by
 * blanks, wrapped before a word that would pass RENDER_WIDTH columns (a
 * word is never split; one longer than the width stands alone on its
 * line); continuation lines start with indent blanks. Ends with "\n". */
void render_wrapped(FILE *out, const char *head, const cJSON *words, int indent);

/* Whose clock runs. */
enum { RENDER_CLOCK_NONE = 0, RENDER_CLOCK_WHITE = 1, RENDER_CLOCK_BLACK = 2 };

typedef struct render_clock {
    bool valid;                   /* the message had a live clock */
    long long white_ms, black_ms; /* remaining when the message was built, >= 0 */
    int64_t received_ms;          /* the caller's clock (ms) when it arrived */
    int running;                  /* RENDER_CLOCK_*: the side to move, once it runs */
} render_clock;

/* Read the live clock of obj, a game object or a `move` event: "clock":
 * {"white": MS, "black": MS}, else the older "clock": {"white_ms",
 * "black_ms"} or "clocks": {"white", "black"}. received_ms is when obj
 * arrived on any clock of the caller's (monotonic in the client, injected
 * in tests). The side to move's clock runs while the game is active and
 * from ply 2 on (issue 10: no time runs before each side's first move).
 * Returns false, with *clk zeroed (valid false), when obj has no clock. */
bool render_clock_read(const cJSON *obj, int64_t received_ms, render_clock *clk);

/* Both sides' time at now_ms (same clock as received_ms): the running
 * side's value less the time since receipt, never below 0. */
void render_clock_at(const render_clock *clk, int64_t now_ms, long long *white_ms,
                     long long *black_ms);

/* "White 4:55  Black 0:07" at now_ms into buf (size n); returns buf. */
char *render_clock_text(const render_clock *clk, int64_t now_ms, char *buf, size_t n);

/* Milliseconds from now_ms until the shown text changes (1..1000), or -1
 * when no clock runs (nothing to redraw). */
int render_clock_next_ms(const render_clock *clk, int64_t now_ms);

/* RENDER_FLIP when the board should be drawn from Black's side: me plays
 * Black in game, or flip is set and me does not (flip turns the default
 * view around). 0 otherwise. */
unsigned render_view_flags(const cJSON *game, const char *me, bool flip);

/* Draw a game object of PROTOCOL.md ("The game object"):
 *
 *   Game ID  VARIANT  ply N
 *   White: NAME  Black: NAME
 *   (board, last move marked)
 *   Last move: MOVE
 *   Time: ... / Clock: White M:SS  Black M:SS   (timed games)
 *   Draw offered by SIDE (NAME) / On vacation: SIDE (NAME)   (when sent)
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

/* A protocol word for people, in the reader's language: the colours
 * ("white" -> "White"), statuses of games and tournaments, the pairing
 * systems; any other word is returned as it is. Static storage (or w). */
const char *render_word(const char *w);

/* A variant's name for people, in the reader's language ("alquerque-
 * traditional" -> "Alquerque, traditional"; "alquerkonane-6x4" ->
 * "Alquerkonane 6×4"), into buf (size n); the id itself when it is not
 * one. Returns buf. */
const char *render_variant_name(const char *id, char *buf, size_t n);

/* "White wins", "Black wins", "Draw" for a result word, else "Game over".
 * Static storage. */
const char *render_result_text(const char *result);

/* A class join code as people see it everywhere: its first four
 * characters, a space, its last four ("ABCD2345" -> "ABCD 2345"), into
 * buf (size n, truncated to fit); any other length is copied as it is
 * (NULL: "-"). Returns buf. */
char *render_join_code(const char *code, char *buf, size_t n);

/* A join code as typed: the words (nwords of them: "abcd 2345" as one
 * word, or "abcd" "2345" as two) joined, spaces and dashes dropped, in
 * capitals, into out (size >= 9). Returns 0, or -1 (out then empty) when
 * what is left is not 8 letters and digits. */
int render_join_code_parse(const char *const *words, int nwords, char *out);

/* A PDN reader's or validator's error (qk_pdn.h) in the reader's
 * language, into buf (size n, truncated to fit): "line 3: illegal move
 * 'b4-c3' (move 1, Black)" from its message id and arguments, the reason
 * words and the rules' reasons among them translated too; an error
 * without an id (QK_PDN_M_NONE) is its English message. Returns buf. */
char *render_pdn_error(const qk_pdn_error *e, char *buf, size_t n);

/* How a game ended, in the reader's terms, into buf (size n, truncated to
 * fit); returns buf. result is "white", "black", "draw" or NULL; reason a
 * reason word of PROTOCOL.md or NULL; mine the reader's side ("white",
 * "black") or NULL when the reader did not play (or is not known). Shapes:
 *   mine given:  "you won (resignation)", "you lost (time)"
 *   mine NULL:   "White won (resignation)", "Black won (no moves)"
 *   a draw:      "draw (agreement)"; aborted: "aborted"; no result: "no result"
 * The reasons read: resignation, time, agreement, no moves, no pieces left,
 * 40 plies without a capture, no Sultan majority, decided by an
 * administrator; an unknown word is shown as it is; no reason, no
 * parentheses. The one phrasing of `resign` and `inbox`. */
char *render_outcome(const char *result, const char *reason, const char *mine, char *buf, size_t n);

#endif
