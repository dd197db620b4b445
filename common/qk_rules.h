/*
 * qk_rules: the rules of every Alquerque-family variant of RULES.md.
 *
 * Design. A variant is a row of one static table (step directions, first-
 * and later-jump directions, capture and continuation duty, removal timing,
 * promotion, end rules) plus the board size; one move generator reads the
 * row. The module is allocation-free and I/O-free: moves go into the
 * caller's array, make/unmake use an undo record the caller owns, and the
 * only strings it returns are static.
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
/* Capacity a caller should give qk_movegen(); enough for every position
 * reachable from any legal position string of every variant. */
#define QK_MAX_MOVES 1024
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

/* Parse a variant name (RULES.md section 1): the named variants and
 * "alquerkonane-RxC" with 2 <= R, C <= 12 (section 7). Returns QK_OK and
 * fills *out, or QK_EINVAL for anything else. */
int qk_variant_parse(const char *name, qk_variant *out);

/* The named variants, for listings (`hello`): returns the i-th name or
 * NULL past the end. Includes "alquerkonane-RxC" as the pattern entry. */
const char *qk_variant_list(size_t i);

/* Start position of the variant (section 2 / 7). */
void qk_variant_start(const qk_variant *v, qk_pos *out);

/* Whether the variant has draws (draw offers make sense), and Sultans. */
bool qk_variant_has_draws(const qk_variant *v);
bool qk_variant_has_sultans(const qk_variant *v);
/* True for the Alquerkonane family (chequered board, Black first). */
bool qk_variant_is_konane(const qk_variant *v);
/* A few lines of plain text summarising the rules; static storage. */
const char *qk_variant_summary(const qk_variant *v);

/* ---- text ----------------------------------------------------------- */

/* Parse a position string for variant v (section 1). Rejects wrong board
 * size, unknown letters, Sultans in a variant without them, memory in a
 * variant without it, bad counts. On error returns QK_EINVAL and, when why
 * is not NULL, sets *why to a static English reason. Does not judge
 * whether the game is over: use qk_pos_status() for that. */
int qk_pos_parse(const qk_variant *v, const char *s, qk_pos *out, const char **why);

/* Write the position string into buf (size n, NUL-terminated). Returns
 * its length or QK_ENOSPC. QK_POS_STRLEN is always enough. */
int qk_pos_format(const qk_variant *v, const qk_pos *p, char *buf, size_t n);

/* Point name ("c3") into buf (>= 4 bytes); parse one back (QK_EINVAL if
 * off the board). */
int qk_point_format(const qk_variant *v, int point, char *buf, size_t n);
int qk_point_parse(const qk_variant *v, const char *s, int *point);

/* Write a move's text (section 1: "b2-c3", "a1xc3xe5"). Returns the
 * length or QK_ENOSPC. QK_MOVE_STRLEN is always enough. */
int qk_move_format(const qk_variant *v, const qk_move *m, char *buf, size_t n);

/* Find the legal move of p whose text is `text`. Returns QK_OK and fills
 * *out; QK_EINVAL when the text is not move syntax for this board;
 * QK_EILLEGAL when it is well-formed but not among the legal moves. */
int qk_move_parse(const qk_variant *v, const qk_pos *p, const char *text, qk_move *out);

/* ---- play ----------------------------------------------------------- */

/* Generate every legal move of the side to move into moves[0..cap). Returns
 * the count, or QK_ENOSPC if more than cap exist. Returns 0 in a finished
 * position only when the side to move has no move; callers check
 * qk_pos_status() first. Order is deterministic but unspecified; use
 * qk_movegen_sorted() for the text-sorted order of the recorded games. */
int qk_movegen(const qk_variant *v, const qk_pos *p, qk_move *moves, int cap);

/* As qk_movegen(), then sorted by move text (strcmp order). */
int qk_movegen_sorted(const qk_variant *v, const qk_pos *p, qk_move *moves, int cap);

/* Play a legal move m on p (no legality check), updating side, quiet count
 * and memory; *u receives what qk_pos_unmake() needs. */
void qk_pos_make(const qk_variant *v, qk_pos *p, const qk_move *m, qk_undo *u);
void qk_pos_unmake(const qk_variant *v, qk_pos *p, const qk_move *m, const qk_undo *u);

/* End checks of section 8, in that order, for the side to move. Returns
 * true when the game is over and sets *result and *reason; otherwise false
 * with QK_RESULT_NONE / QK_REASON_NONE. Either out pointer may be NULL. */
bool qk_pos_status(const qk_variant *v, const qk_pos *p, qk_result *result, qk_reason *reason);

/* Perft: the number of legal move sequences of exactly `depth` plies from
 * p; finished positions have no children. p is restored on return. */
uint64_t qk_perft(const qk_variant *v, qk_pos *p, int depth);

/* ---- names ---------------------------------------------------------- */

/* Wire words: "white"/"black"/"draw" (NULL for NONE); reason words of
 * PROTOCOL.md ("no_moves", ...; NULL for NONE). Parsers return -1 when
 * unknown. */
const char *qk_result_name(qk_result r);
const char *qk_reason_name(qk_reason r);
int qk_result_parse(const char *s);
int qk_reason_parse(const char *s);

#endif
