/*
 * The variant table and the parts of the rules that are not move
 * generation: variant names, start positions, end of game (RULES.md
 * section 8) and the wire words of results.
 *
 * Design. Each variant family is one row of `rows` below; a qk_variant is a
 * pointer to its row plus the board size and the geometry derived from both
 * (qk_geom: which points have which lines, and the row's direction sets
 * mirrored for the side at the top). Nothing here or in the generator asks
 * "which variant is this": a rule that differs is a field of the row.
 */
#include <stdio.h>
#include <string.h>

#include "qk_rules_int.h"

/* The direction sets of a man that may never go backward (sections 5, 6). */
#define MAN_FWD_SIDE (DIRS_FWD | DIRS_SIDE)
/* Off the hot path: whole-width set operations. */
#define W QK_BB_WORDS

enum { ROW_KAWU, ROW_TRAD, ROW_BRAINKING, ROW_STOEP_SHORT, ROW_STOEP_LONG, ROW_KONANE };

static const struct qk_rules rows[] = {
    [ROW_KAWU] =
        {
            .name = "alquerque",
            .section = 3,
            .mid_rank = "ww.bb",
            .bottom = QK_WHITE,
            .dirs = {DIRS_ALL, DIRS_ALL, DIRS_ALL, DIRS_ALL, DIRS_ALL, 0, 0},
            .capture = CAPTURE_COMPULSORY,
            .chain = CHAIN_OPTIONAL,
            .removal = REMOVE_AT_ONCE,
            .limit = LIMIT_DRAW,
            .draws = 1,
            .summary = QK_N_("alquerque (kawu rules, RULES.md section 3)\n"
                       "5x5 Alquerque board; 12 men each; White (ranks 1-2, a3, b3) moves first.\n"
                       "Men step one point along any line, in any direction.\n"
                       "Capture is compulsory: jump an adjacent enemy along a line to the empty\n"
                       "point beyond; the jumped piece is removed at once. The same man may keep\n"
                       "jumping in any direction and may stop after any jump.\n"
                       "No piece or no legal move: you lose. 40 plies without a capture: draw.\n"),
        },
    [ROW_TRAD] =
        {
            .name = "alquerque-traditional",
            .section = 4,
            .mid_rank = "bb.ww",
            .bottom = QK_WHITE,
            .dirs = {DIRS_ALL, DIRS_ALL, DIRS_ALL, DIRS_ALL, DIRS_ALL, 0, 0},
            .capture = CAPTURE_OPTIONAL,
            .chain = CHAIN_OPTIONAL,
            .removal = REMOVE_AT_ONCE,
            .limit = LIMIT_COUNT,
            .draws = 1,
            .summary =
                QK_N_("alquerque-traditional (RULES.md section 4)\n"
                "5x5 Alquerque board; 12 men each; White (ranks 1-2, d3, e3) moves first.\n"
                "Men step one point along any line, in any direction.\n"
                "Capturing (jumping an adjacent enemy, removed at once) is optional, and so\n"
                "is continuing with the same man in any direction.\n"
                "No piece or no legal move: you lose. After 40 plies without a capture the\n"
                "side with more pieces wins; equal counts draw. Draw by agreement.\n"),
        },
    [ROW_BRAINKING] =
        {
            .name = "alquerque-brainking",
            .section = 5,
            .mid_rank = "bb.ww",
            .bottom = QK_WHITE,
            .dirs = {MAN_FWD_SIDE, 0, MAN_FWD_SIDE, DIRS_SIDE, DIRS_ALL, 0, 0},
            .capture = CAPTURE_COMPULSORY,
            .chain = CHAIN_COMPULSORY,
            .removal = REMOVE_AT_ONCE,
            .memory = 1,
            .limit = LIMIT_NONE,
            .summary =
                QK_N_("alquerque-brainking (RULES.md section 5)\n"
                "5x5 Alquerque board; 12 men each; White (ranks 1-2, d3, e3) moves first.\n"
                "Men step forward, diagonally forward or sideways, never backward; a man on\n"
                "the opponent's back rank cannot step.\n"
                "Capture is compulsory and so is continuing until no jump is left. The first\n"
                "jump goes like a step (only sideways from the back rank); later jumps may\n"
                "go in any direction.\n"
                "A piece may not step back to the point where its previous move started.\n"
                "No piece or no legal move: you lose.\n"),
        },
    [ROW_STOEP_SHORT] =
        {
            .name = "alquerque-stoep-short",
            .section = 6,
            .mid_rank = "bb.ww",
            .bottom = QK_WHITE,
            .dirs = {MAN_FWD_SIDE, MAN_FWD_SIDE, MAN_FWD_SIDE, MAN_FWD_SIDE, MAN_FWD_SIDE, DIRS_ALL,
                     DIRS_ALL},
            .capture = CAPTURE_OPTIONAL,
            .chain = CHAIN_OPTIONAL,
            .removal = REMOVE_AT_END,
            .sultans = 1,
            .limit = LIMIT_DRAW,
            .sultan_majority = 1,
            .draws = 1,
            .summary =
                QK_N_("alquerque-stoep-short (RULES.md section 6, short Sultans)\n"
                "5x5 Alquerque board; 12 men each; White (ranks 1-2, d3, e3) moves first.\n"
                "Men step and jump forward, diagonally forward or sideways, never backward.\n"
                "Capture and continuing are optional; jumped pieces are removed when the\n"
                "move ends and cannot be jumped twice.\n"
                "A man ending its move on the opponent's back rank becomes a Sultan, which\n"
                "steps and jumps one point in any direction.\n"
                "No piece or no legal move: you lose. Draw when neither side has a man and\n"
                "the Sultan counts differ by less than two, after 40 plies without a\n"
                "capture, or by agreement.\n"),
        },
    [ROW_STOEP_LONG] =
        {
            .name = "alquerque-stoep-long",
            .section = 6,
            .mid_rank = "bb.ww",
            .bottom = QK_WHITE,
            .dirs = {MAN_FWD_SIDE, MAN_FWD_SIDE, MAN_FWD_SIDE, MAN_FWD_SIDE, MAN_FWD_SIDE, DIRS_ALL,
                     DIRS_ALL},
            .capture = CAPTURE_OPTIONAL,
            .chain = CHAIN_OPTIONAL,
            .removal = REMOVE_AT_END,
            .sultans = 1,
            .long_sultan = 1,
            .limit = LIMIT_DRAW,
            .sultan_majority = 1,
            .draws = 1,
            .summary =
                QK_N_("alquerque-stoep-long (RULES.md section 6, long Sultans)\n"
                "5x5 Alquerque board; 12 men each; White (ranks 1-2, d3, e3) moves first.\n"
                "Men step and jump forward, diagonally forward or sideways, never backward.\n"
                "Capture and continuing are optional; jumped pieces are removed when the\n"
                "move ends and cannot be jumped twice.\n"
                "A man ending its move on the opponent's back rank becomes a Sultan, which\n"
                "slides any distance along a line and captures like a draughts king: over\n"
                "one enemy at any range, landing on any empty point beyond it.\n"
                "No piece or no legal move: you lose. Draw when neither side has a man and\n"
                "the Sultan counts differ by less than two, after 40 plies without a\n"
                "capture, or by agreement.\n"),
        },
    [ROW_KONANE] =
        {
            .name = NULL,
            .section = 7,
            .konane = 1,
            .bottom = QK_BLACK,
            .dirs = {DIRS_DIAG_FWD, DIRS_DIAG_FWD, DIRS_ORTH, DIRS_ORTH, 0, 0, 0},
            .capture = CAPTURE_OPTIONAL,
            .chain = CHAIN_NONE,
            .removal = REMOVE_AT_ONCE,
            .limit = LIMIT_NONE,
            .summary =
                QK_N_("alquerkonane-RxC (RULES.md section 7)\n"
                "Chequered board of R ranks by C files; Black starts on the dark squares of\n"
                "ranks 1-2, White on the light squares of the two highest ranks.\n"
                "Black moves first. A pawn steps one square diagonally forward, or captures\n"
                "by jumping orthogonally over an adjacent enemy pawn to the empty square\n"
                "beyond: one capture per move, never a chain, and capturing is optional.\n"
                "A pawn on the last rank cannot step but can still capture.\n"
                "The side with no legal move loses; there are no draws.\n"),
        },
};

/* Names for listings, in the order RULES.md section 1 gives them. */
static const char *const names[] = {
    "alquerque",
    "alquerque-traditional",
    "alquerque-brainking",
    "alquerque-stoep-short",
    "alquerque-stoep-long",
    "alquerkonane-8x8",
    "alquerkonane-6x4",
    "alquerkonane-RxC",
};

#define KONANE_PREFIX "alquerkonane-"

static unsigned mirror_dirs(unsigned m)
{
    unsigned r = 0;
    for (int d = 0; d < 8; d++)
        if (m & DB(d))
            r |= DB((12 - d) % 8); /* N<->S, NE<->SE, NW<->SW; E, W stay */
    return r;
}

/* Derive the geometry (section 2 lines, section 7 board) of a row and size. */
static void geom_build(const struct qk_rules *r, int ranks, int files, qk_geom *g)
{
    static const int dr[8] = {1, 1, 0, -1, -1, -1, 0, 1};
    static const int df[8] = {0, 1, 1, 1, 0, -1, -1, -1};
    memset(g, 0, sizeof *g);
    for (int d = 0; d < 8; d++)
        g->delta[d] = (int16_t)(dr[d] * files + df[d]);
    for (int rk = 0; rk < ranks; rk++) {
        for (int f = 0; f < files; f++) {
            int p = rk * files + f;
            bool even = (rk + f) % 2 == 0;
            bb_set(&g->board, p);
            if (even)
                bb_set(&g->even, p);
            for (int d = 0; d < 8; d++) {
                /* Alquerque: diagonals only through "even" points (section 2). */
                if (!r->konane && dr[d] && df[d] && !even)
                    continue;
                for (int k = 1; k <= 2; k++) {
                    int r2 = rk + k * dr[d], f2 = f + k * df[d];
                    if (r2 < 0 || r2 >= ranks || f2 < 0 || f2 >= files)
                        break;
                    bb_set(k == 1 ? &g->step1[d] : &g->step2[d], p);
                }
            }
            if (rk == ranks - 1)
                bb_set(&g->far[r->bottom], p);
            if (rk == 0)
                bb_set(&g->far[r->bottom ^ 1], p);
        }
    }
    for (int i = 0; i < QK_DIRSET_N; i++) {
        g->dirs[r->bottom][i] = r->dirs[i];
        g->dirs[r->bottom ^ 1][i] = (uint8_t)mirror_dirs(r->dirs[i]);
    }
}

static void variant_fill(const struct qk_rules *r, int ranks, int files, const char *name,
                         qk_variant *out)
{
    memset(out, 0, sizeof *out);
    out->rules = r;
    out->ranks = (uint8_t)ranks;
    out->files = (uint8_t)files;
    snprintf(out->name, sizeof out->name, "%s", name);
    geom_build(r, ranks, files, &out->geom);
}

/* A board dimension of "alquerkonane-RxC": 2..12, no sign, no leading zero. */
static const char *parse_dim(const char *s, int *out)
{
    if (s[0] < '1' || s[0] > '9')
        return NULL;
    int n = s[0] - '0';
    s++;
    if (*s >= '0' && *s <= '9') {
        n = n * 10 + (*s - '0');
        s++;
    }
    if (n < 2 || n > QK_MAX_RANKS)
        return NULL;
    *out = n;
    return s;
}

int qk_variant_parse(const char *name, qk_variant *out)
{
    if (!name || !out)
        return QK_EINVAL;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        if (rows[i].name && strcmp(name, rows[i].name) == 0) {
            variant_fill(&rows[i], 5, 5, name, out);
            return QK_OK;
        }
    }
    if (strncmp(name, KONANE_PREFIX, strlen(KONANE_PREFIX)) != 0)
        return QK_EINVAL;
    int ranks, files;
    const char *s = parse_dim(name + strlen(KONANE_PREFIX), &ranks);
    if (!s || *s != 'x')
        return QK_EINVAL;
    s = parse_dim(s + 1, &files);
    if (!s || *s != '\0')
        return QK_EINVAL;
    char canon[QK_VARIANT_NAMELEN];
    snprintf(canon, sizeof canon, KONANE_PREFIX "%dx%d", ranks, files);
    variant_fill(&rows[ROW_KONANE], ranks, files, canon, out);
    return QK_OK;
}

const char *qk_variant_list(size_t i)
{
    return i < sizeof names / sizeof names[0] ? names[i] : NULL;
}

void qk_variant_start(const qk_variant *v, qk_pos *out)
{
    memset(out, 0, sizeof *out);
    memset(out->from, QK_NO_POINT, sizeof out->from);
    int R = v->ranks, C = v->files;
    if (v->rules->konane) {
        /* Section 7: Black on the dark squares of ranks 1-2, White on the
         * light squares of the top two; Black moves first. */
        for (int r = 0; r < R; r++)
            for (int f = 0; f < C; f++) {
                bool dark = (r + f) % 2 == 0;
                if (dark && r <= 1)
                    out->sq[r * C + f] = QK_BMAN;
                else if (!dark && r >= R - 2)
                    out->sq[r * C + f] = QK_WMAN;
            }
        out->side = QK_BLACK;
        return;
    }
    /* Section 2: ranks 1-2 White, 4-5 Black; the middle rank differs. */
    const char *mid = v->rules->mid_rank;
    for (int p = 0; p < 25; p++) {
        int r = p / 5;
        char c = r < 2 ? 'w' : r > 2 ? 'b' : mid[p % 5];
        out->sq[p] = c == 'w' ? QK_WMAN : c == 'b' ? QK_BMAN : QK_EMPTY;
    }
    out->side = QK_WHITE;
}

int qk_variant_capture_section(const qk_variant *v)
{
    return v->rules->capture == CAPTURE_COMPULSORY ? v->rules->section : 0;
}

bool qk_points_linked(const qk_variant *v, int a, int b)
{
    int n = v->ranks * v->files;
    if (a < 0 || b < 0 || a >= n || b >= n)
        return false;
    for (int d = 0; d < 8; d++)
        if (a + v->geom.delta[d] == b && bb_test(&v->geom.step1[d], a))
            return true;
    return false;
}

bool qk_pos_must_capture(const qk_variant *v, const qk_pos *p)
{
    if (v->rules->capture != CAPTURE_COMPULSORY)
        return false;
    /* Under compulsory capture either every move captures or none does, so
     * the first move generated tells; the generator stores up to cap moves
     * and counts on, so a buffer of one is enough. */
    qk_st st;
    qk_move m;
    qk_st_load(v, p, &st);
    long n = qk_gen(v, &st, p->side & 1, p->from, &m, 1, NULL);
    return n != 0 && m.ncap > 0;
}

bool qk_variant_has_draws(const qk_variant *v)
{
    return v->rules->draws;
}

bool qk_variant_has_sultans(const qk_variant *v)
{
    return v->rules->sultans;
}

bool qk_variant_is_konane(const qk_variant *v)
{
    return v->rules->konane;
}

const char *qk_variant_summary(const qk_variant *v)
{
    return v->rules->summary;
}

/* ---- end of game ----------------------------------------------------- */

static bool set_end(qk_result *result, qk_reason *reason, qk_result res, qk_reason why)
{
    if (result)
        *result = res;
    if (reason)
        *reason = why;
    return true;
}

bool qk_status_static(const qk_variant *v, const qk_pos *p, const qk_st *s, qk_result *result,
                      qk_reason *reason)
{
    const struct qk_rules *r = v->rules;
    if (r->sultan_majority) {
        qk_bb men = bb_andnot(bb_or(s->pc[0], s->pc[1], W), s->sul, W);
        if (!bb_any(men, W)) {
            int w = bb_count(bb_and(s->pc[QK_WHITE], s->sul, W), W);
            int b = bb_count(bb_and(s->pc[QK_BLACK], s->sul, W), W);
            if (w - b < 2 && b - w < 2)
                return set_end(result, reason, QK_RESULT_DRAW, QK_REASON_SULTAN_MAJORITY);
        }
    }
    if (r->limit != LIMIT_NONE && p->quiet >= QK_QUIET_LIMIT) {
        qk_result res = QK_RESULT_DRAW;
        if (r->limit == LIMIT_COUNT) {
            int w = bb_count(s->pc[QK_WHITE], W), b = bb_count(s->pc[QK_BLACK], W);
            res = w > b ? QK_RESULT_WHITE : b > w ? QK_RESULT_BLACK : QK_RESULT_DRAW;
        }
        return set_end(result, reason, res, QK_REASON_MOVE_LIMIT);
    }
    return false;
}

bool qk_pos_status(const qk_variant *v, const qk_pos *p, qk_result *result, qk_reason *reason)
{
    qk_st s;
    qk_st_load(v, p, &s);
    int side = p->side & 1;
    qk_result other = side == QK_WHITE ? QK_RESULT_BLACK : QK_RESULT_WHITE;
    if (!bb_any(s.pc[side], W))
        return set_end(result, reason, other, QK_REASON_NO_PIECES);
    if (qk_gen(v, &s, side, p->from, NULL, 0, NULL) == 0)
        return set_end(result, reason, other, QK_REASON_NO_MOVES);
    if (qk_status_static(v, p, &s, result, reason))
        return true;
    set_end(result, reason, QK_RESULT_NONE, QK_REASON_NONE);
    return false;
}

/* ---- wire words ------------------------------------------------------ */

static const char *const result_names[] = {NULL, "white", "black", "draw"};
static const char *const reason_names[] = {
    NULL,     "no_pieces", "no_moves",  "move_limit", "sultan_majority",
    "resign", "timeout",   "agreement", "aborted", "adjudicated",
};

const char *qk_result_name(qk_result r)
{
    return (unsigned)r < sizeof result_names / sizeof result_names[0] ? result_names[r] : NULL;
}

const char *qk_reason_name(qk_reason r)
{
    return (unsigned)r < sizeof reason_names / sizeof reason_names[0] ? reason_names[r] : NULL;
}

static int name_find(const char *s, const char *const *tab, size_t n)
{
    if (!s)
        return -1;
    for (size_t i = 1; i < n; i++)
        if (strcmp(s, tab[i]) == 0)
            return (int)i;
    return -1;
}

int qk_result_parse(const char *s)
{
    return name_find(s, result_names, sizeof result_names / sizeof result_names[0]);
}

int qk_reason_parse(const char *s)
{
    return name_find(s, reason_names, sizeof reason_names / sizeof reason_names[0]);
}
