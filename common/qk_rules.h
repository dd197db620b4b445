/*
 * qk_rules: the rules of every Alquerque-family variant of RULES.md.
 *
 * Design. A variant is a row of one static table (step directions, first-
 * and later-jump directions, capture and continuation duty, removal timing,
 * promotion, end rules) plus the board size; one move generator reads the
 * row. The module is allocation-free and I/O-free: moves go into the
 * caller's array, make/unmake use an undo record the caller owns, and the
 * only strings it returns are static. It has no global mutable state, so
 * every function is reentrant and thread-safe on distinct positions.
 *
 * qk_pos's public fields are the whole truth about a position: callers may
 * build or edit one by hand (side 0 or 1, sq[] values of qk_piece; from[]
 * is read only in BrainKing, where an entry other than 0xFF should be one
 * qk_pos_parse() would accept).
 * Internally the generator works on bit sets (one bit per point) derived
 * from them; perft keeps those in step incrementally (qk_rules_gen.c).
 * Implementation: qk_rules.c (table, variants, end of game), qk_rules_gen.c
 * (generator, make/unmake, perft), qk_rules_text.c (text forms).
 *
 * Points are indexed 0..ranks*files-1 as rank * files + file, both 0-based,
 * so a1 = 0 and on a 5x5 board e5 = 24 (RULES.md section 1).
 *
 * Everything that parses text (variant names, position strings, move text)
 * treats its input as hostile: any length, any bytes; it never reads past
 * the terminating NUL and never writes past the buffer it is given.
 */
#ifndef QK_RULES_H
#define QK_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define QK_MAX_RANKS 12
#define QK_MAX_FILES 12
#define QK_MAX_POINTS (QK_MAX_RANKS * QK_MAX_FILES)
/* Landing points of one move, the start included. A capture removes at
 * most one enemy piece per jump and a 5x5 board holds at most 24 enemies. */
#define QK_MAX_PATH 32
/* Capacity a caller should give qk_movegen(). The recorded games never
 * exceed 77 moves, but optional continuation makes every capture prefix a
 * move, and positions reached in real play can pass 1,024 (the engine met
 * `bbbbb/.wbbb/.w.w./wwwww/.w.w. b 8 -` in alquerque-traditional: 1,285).
 * Contrived custom positions go far beyond any buffer (a kawu man inside a
 * lattice of 16 enemies has 213,892 capture prefixes); qk_movegen() then
 * returns QK_ENOSPC, while qk_move_parse() and qk_pos_status() still work
 * because they never need the whole list. 4,096 moves are ~270 KB. */
#define QK_MAX_MOVES 4096
/* Longest position string (board + separators + fields + memory). */
#define QK_POS_STRLEN 1024
/* Longest move text: QK_MAX_PATH points of up to 3 chars and separators. */
#define QK_MOVE_STRLEN (QK_MAX_PATH * 4 + 1)
#define QK_VARIANT_NAMELEN 32

/* Errors returned (negated) by this module. */
enum {
    QK_OK = 0,
    QK_EINVAL = -1,   /* malformed text or argument */
    QK_EILLEGAL = -2, /* well-formed move that is not legal here */
    QK_ENOSPC = -3,   /* caller's buffer too small */
};

typedef enum { QK_WHITE = 0, QK_BLACK = 1 } qk_side;

/* Contents of a point. */
typedef enum {
    QK_EMPTY = 0,
    QK_WMAN = 1,    /* 'w' */
    QK_BMAN = 2,    /* 'b' */
    QK_WSULTAN = 3, /* 'W' (Stoep variants only) */
    QK_BSULTAN = 4, /* 'B' */
} qk_piece;

typedef enum { QK_RESULT_NONE = 0, QK_RESULT_WHITE, QK_RESULT_BLACK, QK_RESULT_DRAW } qk_result;

/* Reasons a game ends. The rules produce the first four; the server the
 * rest (RULES.md section 8, PROTOCOL.md game object). */
typedef enum {
    QK_REASON_NONE = 0,
    QK_REASON_NO_PIECES,
    QK_REASON_NO_MOVES,
    QK_REASON_MOVE_LIMIT,
    QK_REASON_SULTAN_MAJORITY,
    QK_REASON_RESIGN,
    QK_REASON_TIMEOUT,
    QK_REASON_AGREEMENT,
    QK_REASON_ABORTED,
    QK_REASON_ADJUDICATED, /* an administrator's `adjudicate` (docs/protocol.md) */
} qk_reason;

struct qk_rules; /* a row of the static variant table; private */

/* Internal to the rules module (read only by common/qk_rules*.c): a set of
 * points, bit p = point p, wide enough for a 12 x 12 board. */
#define QK_BB_WORDS 3
typedef struct qk_bb {
    uint64_t w[QK_BB_WORDS];
} qk_bb;

/* Internal to the rules module: the board topology of a variant, derived
 * from the table row and the board size by qk_variant_parse() so that the
 * move generator never tests coordinates. Directions are 0..7 = N, NE, E,
 * SE, S, SW, W, NW as seen from rank 1. */
typedef struct qk_geom {
    qk_bb board;    /* every point */
    qk_bb even;     /* points whose file + rank (0-based) is even */
    qk_bb far[2];   /* per side: the opponent's back rank */
    qk_bb step1[8]; /* points with a line to their neighbour in direction d */
    qk_bb step2[8]; /* points with a line through two neighbours in d */
    int16_t delta[8];
    /* Per side: direction masks of the row, mirrored for the side at the
     * top (index: see QK_DIRSET_* in qk_rules_int.h). */
    uint8_t dirs[2][8];
} qk_geom;

/* A variant: a table row plus the board size. Plain value, copy freely.
 * Only qk_variant_parse() makes a valid one (it fills geom). */
typedef struct qk_variant {
    const struct qk_rules *rules;
    uint8_t ranks, files;
    char name[QK_VARIANT_NAMELEN]; /* canonical name, e.g. "alquerkonane-6x4" */
    qk_geom geom;                  /* private */
} qk_variant;

/* A position (RULES.md section 1, the four fields of the position string).
 * Owned by the caller; the variant is passed alongside, never stored. */
typedef struct qk_pos {
    uint8_t sq[QK_MAX_POINTS]; /* qk_piece per point */
    uint8_t side;              /* qk_side to move */
    uint16_t quiet;            /* plies since the last capture (field 3) */
    /* BrainKing no-return memory (field 4, section 5): for each point with a
     * piece, the point its last move started on, or 0xFF for none. */
    uint8_t from[QK_MAX_POINTS];
} qk_pos;

/* One move: the landing points in order (path[0] is the start), and the
 * points of the pieces it captures (for rendering and undo). */
typedef struct qk_move {
    uint8_t len;  /* points in path, >= 2 */
    uint8_t ncap; /* captured pieces, 0 for a step */
    uint8_t path[QK_MAX_PATH];
    uint8_t cap[QK_MAX_PATH];
} qk_move;

/* What qk_pos_unmake() needs to restore the position exactly: only what a
 * move destroys (the captured pieces, the mover's kind and memory, the
 * count), about 70 bytes instead of a 300-byte position copy. Opaque. */
typedef struct qk_undo {
    uint16_t quiet;
    uint8_t piece; /* the mover before the move (promotion) */
    uint8_t from;  /* the mover's memory before the move */
    uint8_t cap_piece[QK_MAX_PATH];
    uint8_t cap_from[QK_MAX_PATH];
} qk_undo;

/* ---- variants ------------------------------------------------------- */

/* Parse a variant name (RULES.md section 1): "alquerque",
 * "alquerque-traditional", "alquerque-brainking", "alquerque-stoep-short",
 * "alquerque-stoep-long", or "alquerkonane-RxC" with R ranks and C files,
 * 2 <= R, C <= 12, written without leading zeros (section 7; "-8x8" and
 * "-6x4" are two of these). name: NUL-terminated, any bytes. Returns QK_OK
 * and fills *out (a plain value; its rules pointer is static), or
 * QK_EINVAL for anything else (NULL included), leaving *out untouched. */
int qk_variant_parse(const char *name, qk_variant *out);

/* The i-th name for listings (`hello`, `qirkat rules`), i = 0, 1, ...:
 * the five Alquerque variants, "alquerkonane-8x8", "alquerkonane-6x4" and
 * the pattern entry "alquerkonane-RxC" (which qk_variant_parse() does not
 * accept as such). NULL past the end. Static strings. */
const char *qk_variant_list(size_t i);

/* Fill *out with the start position of v: section 2 (kawu or traditional
 * layout, White to move) or section 7 (Black on the dark squares of ranks
 * 1-2, White on the light squares of the top two, Black to move). */
void qk_variant_start(const qk_variant *v, qk_pos *out);

/* The RULES.md section that makes capture compulsory in v (3 for kawu, 5
 * for BrainKing), or 0 where capture is optional (sections 4, 6, 7). For
 * messages that tell a player why a move was refused. */
int qk_variant_capture_section(const qk_variant *v);
/* Whether the side to move must capture now: capture is compulsory in v
 * and a capture exists (sections 3 and 5). Cheap: looks at the first move
 * generated only. */
bool qk_pos_must_capture(const qk_variant *v, const qk_pos *p);
/* Whether points a and b are joined by one line of v's board: orthogonal
 * neighbours, or diagonal ones where the point carries an X (section 2;
 * every diagonal on an Alquerkonane board, section 7). False off the
 * board. A move between linked points written "a-b" is a step. */
bool qk_points_linked(const qk_variant *v, int a, int b);

/* Whether a game of v can be drawn (draw offers make sense): true for
 * alquerque, -traditional and both Stoep variants; false for BrainKing and
 * Alquerkonane, which have no draws (sections 3-7). */
bool qk_variant_has_draws(const qk_variant *v);
/* Whether v has Sultans (W/B in positions): the Stoep variants (section 6). */
bool qk_variant_has_sultans(const qk_variant *v);
/* True for the Alquerkonane family (chequered board, Black first). */
bool qk_variant_is_konane(const qk_variant *v);
/* Plain-text summary of v's rules, a few '\n'-terminated lines of at most
 * 80 columns naming its RULES.md section (for `qirkat rules`). Static. */
const char *qk_variant_summary(const qk_variant *v);

/* ---- text ----------------------------------------------------------- */

/* Parse position string s for variant v (section 1: board, side, no-capture
 * count, memory; single spaces, nothing after). s: NUL-terminated, any
 * bytes, any length. The count is decimal without leading zeros, at most
 * 65535 (counts of 40 and more are finished games, not errors). The memory
 * field is "-" except in BrainKing, where each pair must name a piece and a
 * point it could have stepped from and could step back to (a sideways
 * step), ordered by point, each point once (section 5).
 * Returns QK_OK and fills *out, or QK_EINVAL leaving *out untouched and,
 * when why is not NULL, setting *why to a static English reason, e.g.
 * "wrong board size: too few ranks", "unknown letter in the board
 * (expected w, b, W, B or .)", "Sultans (W, B) do not exist in this
 * variant", "side to move must be w or b", "bad no-capture count: leading
 * zero", "memory field must be - in this variant", "malformed memory: ...",
 * "impossible memory: ...", "trailing characters after the position".
 * Does not judge whether the game is over: use qk_pos_status(). */
int qk_pos_parse(const qk_variant *v, const char *s, qk_pos *out, const char **why);

/* Write p's position string (section 1) into buf of n bytes, NUL-
 * terminated. Returns its length (without the NUL), QK_ENOSPC when it does
 * not fit (buf then holds "" if n > 0; nothing is written past n), or
 * QK_EINVAL for NULL arguments. QK_POS_STRLEN is always enough. For every
 * accepted s, format(parse(s)) == s. */
int qk_pos_format(const qk_variant *v, const qk_pos *p, char *buf, size_t n);

/* Point index <-> name (section 1: file letter, rank 1..12, no leading
 * zero: "c3", "a10"). qk_point_format() writes into buf of n bytes (4 is
 * always enough) and returns the length, QK_EINVAL for a point off v's
 * board, or QK_ENOSPC. qk_point_parse() accepts exactly one name and
 * nothing else, returning QK_OK with *point set, or QK_EINVAL. */
int qk_point_format(const qk_variant *v, int point, char *buf, size_t n);
int qk_point_parse(const qk_variant *v, const char *s, int *point);

/* Write m's text (section 1: "b2-c3" for a step or a long-Sultan slide,
 * "a1xc3xe5" listing every landing point of a capture) into buf of n
 * bytes. Returns the length, QK_ENOSPC (as qk_pos_format()), or QK_EINVAL
 * for a malformed m. QK_MOVE_STRLEN is always enough. */
int qk_move_format(const qk_variant *v, const qk_move *m, char *buf, size_t n);

/* Find the legal move of p whose text is `text` (NUL-terminated, any
 * bytes). Returns QK_OK and fills *out (path and captured points);
 * QK_EINVAL when text is not move syntax on v's board (points off the
 * board, a step with more than two points, mixed separators, more than
 * QK_MAX_PATH points, anything trailing); QK_EILLEGAL when it is well-
 * formed but not a legal move of p. *out is untouched on error. Works in
 * positions with more moves than QK_MAX_MOVES. */
int qk_move_parse(const qk_variant *v, const qk_pos *p, const char *text, qk_move *out);

/* ---- play ----------------------------------------------------------- */

/* Generate every legal move of the side to move (sections 2-7) into
 * moves[0..cap). Returns the count, QK_ENOSPC if more than cap exist (see
 * QK_MAX_MOVES; moves[0..cap) is then filled with some of them), or
 * QK_EINVAL for NULL arguments. In kawu, traditional and Stoep every
 * prefix of a capture is a move of its own (optional continuation); in
 * BrainKing only complete captures are. Ignores the end rules that do not
 * depend on moves (Sultan majority, move limit): callers check
 * qk_pos_status() first. Order is deterministic but unspecified. */
int qk_movegen(const qk_variant *v, const qk_pos *p, qk_move *moves, int cap);

/* As qk_movegen(), then sorted by move text in strcmp order (the order of
 * the recorded games' `legal` lists; "a1-a2" < "a1xc3" < "a10-b11"). */
int qk_movegen_sorted(const qk_variant *v, const qk_pos *p, qk_move *moves, int cap);

/* Play m, a legal move of p from qk_movegen() or qk_move_parse() (not
 * checked), on p: moves the piece, removes the captured pieces, promotes a
 * Stoep man ending on the far rank (section 6), sets the no-capture count
 * (0 after a capture, else +1, saturating), records BrainKing memory
 * (section 5) and passes the turn. *u (caller-owned) receives what
 * qk_pos_unmake() needs; unmake with the same v and m restores p exactly.
 * Make/unmake pairs nest like a stack. */
void qk_pos_make(const qk_variant *v, qk_pos *p, const qk_move *m, qk_undo *u);
void qk_pos_unmake(const qk_variant *v, qk_pos *p, const qk_move *m, const qk_undo *u);

/* End of game, section 8 checks in order, for the side to move: (1) no
 * piece -> QK_REASON_NO_PIECES, no legal move -> QK_REASON_NO_MOVES, the
 * other side wins; (2) Stoep: no man on the board and Sultan counts
 * differing by less than two -> draw, QK_REASON_SULTAN_MAJORITY; (3) count
 * >= 40: draw in alquerque and Stoep, more pieces wins (equal draws) in
 * -traditional, QK_REASON_MOVE_LIMIT; BrainKing and Alquerkonane have no
 * limit. Returns true when over, with *result and *reason set; otherwise
 * false with QK_RESULT_NONE / QK_REASON_NONE. Either pointer may be NULL. */
bool qk_pos_status(const qk_variant *v, const qk_pos *p, qk_result *result, qk_reason *reason);

/* Perft: the number of legal move sequences of exactly `depth` plies from
 * p (1 for depth <= 0); positions where qk_pos_status() reports the end
 * have no children. The last ply is counted without being played. p is
 * used as scratch and restored on return. Returns QK_PERFT_OVERFLOW when
 * a position before the last ply has more than QK_MAX_MOVES moves (the
 * generator keeps them on the stack), so a count is never silently short. */
#define QK_PERFT_OVERFLOW UINT64_MAX
uint64_t qk_perft(const qk_variant *v, qk_pos *p, int depth);

/* ---- names ---------------------------------------------------------- */

/* PROTOCOL.md words. qk_result_name(): "white", "black", "draw"; NULL for
 * QK_RESULT_NONE or out of range. qk_reason_name(): "no_pieces",
 * "no_moves", "move_limit", "sultan_majority", "resign", "timeout",
 * "agreement", "aborted", "adjudicated"; NULL for QK_REASON_NONE or out of range. Static.
 * The parsers map a word back to its enum value, or -1 when s is NULL or
 * not exactly one of those words. */
const char *qk_result_name(qk_result r);
const char *qk_reason_name(qk_reason r);
int qk_result_parse(const char *s);
int qk_reason_parse(const char *s);

#endif
