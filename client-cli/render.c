/*
 * render: see render.h. The grid is sized for the largest board of
 * RULES.md (12 x 12); each drawing step only sets cells, and grid_write()
 * alone knows about ANSI sequences.
 */
#include "render.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "timectl.h"
#include "i18n.h"

/* Cell attributes. */
enum {
    A_NONE = 0,
    A_BOLD = 1u << 0, /* Sultans */
    A_DIM = 1u << 1,  /* board lines, so pieces stand out */
    A_DARK = 1u << 2, /* dark Alquerkonane square */
    A_MARK = 1u << 3, /* last move brackets and capture marks */
};

/* Rank label (2 columns) and a blank: "5  b---", "12 |". */
#define MARGIN 3
#define GRID_ROWS (QK_MAX_RANKS * 2 + 3)
#define GRID_COLS (MARGIN + QK_MAX_FILES * 4 + 4)

typedef struct grid {
    int rows, cols;
    char ch[GRID_ROWS][GRID_COLS];
    uint8_t attr[GRID_ROWS][GRID_COLS];
} grid;

static void grid_init(grid *g, int rows, int cols)
{
    g->rows = rows;
    g->cols = cols;
    memset(g->ch, ' ', sizeof g->ch);
    memset(g->attr, 0, sizeof g->attr);
}

static void grid_put(grid *g, int row, int col, char c, unsigned attr)
{
    if (row < 0 || row >= g->rows || col < 0 || col >= g->cols)
        return;
    g->ch[row][col] = c;
    g->attr[row][col] = (uint8_t)attr;
}

static void grid_text(grid *g, int row, int col, const char *s, unsigned attr)
{
    for (; *s; s++)
        grid_put(g, row, col++, *s, attr);
}

static const char *attr_sgr(unsigned a)
{
    /* One sequence per combination we produce; reset first so attributes
     * never leak from the previous cell. */
    if (a & A_MARK)
        return (a & A_DARK) ? "\033[0;1;33;100m" : "\033[0;1;33m";
    if (a & A_BOLD)
        return (a & A_DARK) ? "\033[0;1;100m" : "\033[0;1m";
    if (a & A_DARK)
        return "\033[0;100m";
    if (a & A_DIM)
        return "\033[0;2m";
    return "\033[0m";
}

static void grid_write(FILE *out, const grid *g, unsigned flags)
{
    bool color = flags & RENDER_COLOR;
    for (int r = 0; r < g->rows; r++) {
        int end = g->cols;
        /* Trim blanks, but a dark square's background is visible. */
        while (end > 0 && g->ch[r][end - 1] == ' ' && !(color && (g->attr[r][end - 1] & A_DARK)))
            end--;
        unsigned cur = A_NONE;
        for (int c = 0; c < end; c++) {
            unsigned a = color ? g->attr[r][c] : A_NONE;
            /* A blank looks the same under any attribute but a background:
             * do not switch for it. */
            if (g->ch[r][c] == ' ' && !((a | cur) & A_DARK))
                a = cur;
            if (a != cur) {
                fputs(attr_sgr(a), out);
                cur = a;
            }
            fputc(g->ch[r][c], out);
        }
        if (cur != A_NONE)
            fputs("\033[0m", out);
        fputc('\n', out);
    }
}

static char piece_char(uint8_t piece)
{
    switch (piece) {
    case QK_WMAN:
        return 'w';
    case QK_BMAN:
        return 'b';
    case QK_WSULTAN:
        return 'W';
    case QK_BSULTAN:
        return 'B';
    default:
        return '.';
    }
}

/* What the last move did to each point. */
typedef struct marks {
    bool path[QK_MAX_POINTS];
    bool cap[QK_MAX_POINTS];
} marks;

static void marks_from(marks *mk, const qk_variant *v, const qk_move *last)
{
    memset(mk, 0, sizeof *mk);
    if (!last)
        return;
    int n = v->ranks * v->files;
    for (int i = 0; i < last->len && i < QK_MAX_PATH; i++)
        if (last->path[i] < n)
            mk->path[last->path[i]] = true;
    for (int i = 0; i < last->ncap && i < QK_MAX_PATH; i++)
        if (last->cap[i] < n)
            mk->cap[last->cap[i]] = true;
}

/* The character shown for point pt and its attribute. */
static char point_char(const qk_pos *p, const marks *mk, int pt, unsigned *attr)
{
    uint8_t piece = p->sq[pt];
    *attr = A_NONE;
    if (piece == QK_EMPTY && mk->cap[pt]) {
        *attr = A_MARK;
        return 'x';
    }
    if (piece == QK_WSULTAN || piece == QK_BSULTAN)
        *attr = A_BOLD;
    return piece_char(piece);
}

static void draw_rank_label(grid *g, int row, int rank)
{
    char buf[16];
    snprintf(buf, sizeof buf, "%d", rank + 1);
    grid_text(g, row, 0, buf, A_NONE);
}

/* Alquerque points: column of file f is MARGIN + 4f; row of rank r (0 at
 * the bottom) is 2 * (ranks - 1 - r), connector rows in between. Flipped
 * (Black's view), the board turns half a circle: rank r is on row 2r and
 * file f in column MARGIN + 4 (files - 1 - f). A diagonal keeps its slant
 * under that turn, so each unit square's character is the same in both
 * views; only its place moves. */
static void draw_alquerque(grid *g, const qk_variant *v, const qk_pos *p, const marks *mk,
                           bool flip)
{
    int R = v->ranks, F = v->files;
    grid_init(g, 2 * R, MARGIN + 4 * (F - 1) + 2);
#define AQ_ROW(r) (flip ? 2 * (r) : 2 * (R - 1 - (r)))
#define AQ_COL(f) (MARGIN + 4 * (flip ? F - 1 - (f) : (f)))
    for (int r = 0; r < R; r++) {
        int row = AQ_ROW(r);
        draw_rank_label(g, row, r);
        for (int f = 0; f < F; f++) {
            int col = AQ_COL(f);
            if (f + 1 < F) /* the line to file f + 1, whichever side it is drawn on */
                grid_text(g, row, (flip ? AQ_COL(f + 1) : col) + 1, "---", A_DIM);
            if (r + 1 < R) {
                /* The connector row between ranks r and r + 1. */
                int crow = (AQ_ROW(r) + AQ_ROW(r + 1)) / 2;
                grid_put(g, crow, col, '|', A_DIM);
                /* RULES.md section 2: the X sits on points with file + rank
                 * even, so the square (f, r)-(f+1, r+1) has '/' when its
                 * lower-left corner is even, else '\'. */
                if (f + 1 < F) {
                    int dcol = (AQ_COL(f) + AQ_COL(f + 1)) / 2;
                    grid_put(g, crow, dcol, (f + r) % 2 == 0 ? '/' : '\\', A_DIM);
                }
            }
        }
    }
    for (int r = 0; r < R; r++) {
        int row = AQ_ROW(r);
        for (int f = 0; f < F; f++) {
            int pt = r * F + f, col = AQ_COL(f);
            unsigned a;
            char c = point_char(p, mk, pt, &a);
            grid_put(g, row, col, c, a);
            if (mk->path[pt]) {
                grid_put(g, row, col - 1, '[', A_MARK);
                grid_put(g, row, col + 1, ']', A_MARK);
            }
        }
    }
    int lab = 2 * R - 1;
    for (int f = 0; f < F; f++)
        grid_put(g, lab, AQ_COL(f), (char)('a' + f), A_NONE);
#undef AQ_ROW
#undef AQ_COL
}

/* Alquerkonane squares: three columns each after "NN |", framed. */
static void draw_konane(grid *g, const qk_variant *v, const qk_pos *p, const marks *mk,
                        unsigned flags)
{
    bool flip = flags & RENDER_FLIP;
    int R = v->ranks, F = v->files;
    int left = MARGIN, right = MARGIN + 1 + 3 * F;
    grid_init(g, R + 3, right + 1);
    grid_put(g, 0, left, '+', A_NONE);
    grid_put(g, R + 1, left, '+', A_NONE);
    for (int c = left + 1; c < right; c++) {
        grid_put(g, 0, c, '-', A_NONE);
        grid_put(g, R + 1, c, '-', A_NONE);
    }
    grid_put(g, 0, right, '+', A_NONE);
    grid_put(g, R + 1, right, '+', A_NONE);
    for (int r = 0; r < R; r++) {
        int row = flip ? r + 1 : R - r;
        draw_rank_label(g, row, r);
        grid_put(g, row, left, '|', A_NONE);
        grid_put(g, row, right, '|', A_NONE);
        for (int f = 0; f < F; f++) {
            int pt = r * F + f, col = left + 1 + 3 * (flip ? F - 1 - f : f);
            bool dark = (f + r) % 2 == 0; /* RULES.md section 7: a1 dark */
            unsigned bg = dark ? A_DARK : A_NONE;
            /* Without colour the fill is what tells the squares apart. */
            char fill = dark && !(flags & RENDER_COLOR) ? ':' : ' ';
            unsigned a;
            char c = point_char(p, mk, pt, &a);
            if (c == '.')
                c = fill;
            grid_put(g, row, col, mk->path[pt] ? '[' : fill, bg | (mk->path[pt] ? A_MARK : 0));
            grid_put(g, row, col + 1, c, bg | a);
            grid_put(g, row, col + 2, mk->path[pt] ? ']' : fill, bg | (mk->path[pt] ? A_MARK : 0));
        }
    }
    for (int f = 0; f < F; f++)
        grid_put(g, R + 2, left + 2 + 3 * (flip ? F - 1 - f : f), (char)('a' + f), A_NONE);
}

void render_board(FILE *out, const qk_variant *v, const qk_pos *p, const qk_move *last,
                  unsigned flags)
{
    if (v->ranks < 1 || v->files < 1 || v->ranks > QK_MAX_RANKS || v->files > QK_MAX_FILES)
        return;
    grid g;
    marks mk;
    marks_from(&mk, v, last);
    if (qk_variant_is_konane(v))
        draw_konane(&g, v, p, &mk, flags);
    else
        draw_alquerque(&g, v, p, &mk, flags & RENDER_FLIP);
    grid_write(out, &g, flags);
}

void render_wrapped(FILE *out, const char *head, const cJSON *words, int indent)
{
    int col = fprintf(out, "%s", head);
    bool first = true;
    const cJSON *it;
    cJSON_ArrayForEach(it, words)
    {
        if (!cJSON_IsString(it))
            continue;
        int len = (int)strlen(it->valuestring);
        /* A word never splits: it goes whole to the next line when it would
         * pass the width (unless the line holds nothing else yet). */
        if (!first && col + 1 + len > RENDER_WIDTH && col > indent) {
            fprintf(out, "\n%*s", indent, "");
            col = indent;
        } else if (col > 0) {
            fputc(' ', out);
            col++;
        }
        col += fprintf(out, "%s", it->valuestring);
        first = false;
    }
    fputc('\n', out);
}

void render_move_list(FILE *out, const char *head, const cJSON *moves)
{
    int n = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, moves)
    {
        if (cJSON_IsString(it))
            n++;
    }
    if (n == 0) {
        fprintf(out, _("%s: none\n"), head);
        return;
    }
    char h[128];
    snprintf(h, sizeof h, "%s (%d):", head, n);
    render_wrapped(out, h, moves, 2);
}

const char *render_reason_text(const char *reason)
{
    static const struct {
        const char *word, *text;
    } reasons[] = {
        {"no_moves", N_("no legal moves")},
        {"no_pieces", N_("no pieces left")},
        {"move_limit", N_("40 plies without a capture")},
        {"sultan_majority", N_("no Sultan majority")},
        {"resign", N_("resignation")},
        {"timeout", N_("time ran out")},
        {"agreement", N_("agreement")},
        {"aborted", N_("aborted")},
        {"adjudicated", N_("adjudicated by an administrator")},
    };
    if (!reason)
        return "";
    for (size_t i = 0; i < sizeof reasons / sizeof reasons[0]; i++)
        if (strcmp(reason, reasons[i].word) == 0)
            return _(reasons[i].text);
    return reason;
}

const char *render_word(const char *w)
{
    static const struct {
        const char *word, *text;
    } words[] = {
        /* TRANSLATORS: the words of the protocol shown as they are in
         * English (the tables and lines of `games`, `challenge`,
         * `tournament show`): colours in running text, states of games
         * and tournaments, pairing systems. */
        {"white", N_("white")},
        {"black", N_("black")},
        {"random", N_("random")},
        {"active", N_("active")},
        {"finished", N_("finished")},
        {"aborted", N_("aborted")},
        {"open", N_("open")},
        {"running", N_("running")},
        {"playing", N_("playing")},
        {"round_robin", N_("round_robin")},
        {"swiss", N_("swiss")},
    };
    for (size_t i = 0; w && i < sizeof words / sizeof words[0]; i++)
        if (strcmp(w, words[i].word) == 0)
            return _(words[i].text);
    return w;
}

const char *render_variant_name(const char *id, char *buf, size_t n)
{
    static const struct {
        const char *id, *name;
    } names[] = {
        {"alquerque", N_("Alquerque (kawu)")},
        {"alquerque-traditional", N_("Alquerque, traditional")},
        {"alquerque-brainking", N_("Alquerque, BrainKing")},
        {"alquerque-stoep-short", N_("Sultan, short (van der Stoep)")},
        {"alquerque-stoep-long", N_("Sultan, long (van der Stoep)")},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(id, names[i].id) == 0) {
            snprintf(buf, n, "%s", _(names[i].name));
            return buf;
        }
    int r, c;
    char end;
    if (sscanf(id, "alquerkonane-%dx%d%c", &r, &c, &end) == 2)
        /* TRANSLATORS: an Alquerkonane board of %d ranks by %d files. */
        snprintf(buf, n, _("Alquerkonane %d×%d"), r, c);
    else
        snprintf(buf, n, "%s", id);
    return buf;
}

const char *render_result_text(const char *result)
{
    if (result && strcmp(result, "white") == 0)
        return _("White wins");
    if (result && strcmp(result, "black") == 0)
        return _("Black wins");
    if (result && strcmp(result, "draw") == 0)
        return _("Draw");
    return _("Game over");
}

char *render_join_code(const char *code, char *buf, size_t n)
{
    if (n == 0)
        return buf;
    if (code && strlen(code) == 8)
        snprintf(buf, n, "%.4s %.4s", code, code + 4);
    else
        snprintf(buf, n, "%s", code ? code : "-");
    return buf;
}

int render_join_code_parse(const char *const *words, int nwords, char *out)
{
    size_t k = 0;
    out[0] = '\0';
    for (int i = 0; i < nwords; i++)
        for (const char *p = words[i]; *p; p++) {
            char ch = *p;
            if (ch == ' ' || ch == '-' || ch == '\t')
                continue;
            if (ch >= 'a' && ch <= 'z')
                ch = (char)(ch - 'a' + 'A');
            if (k == 8 || !((ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9'))) {
                out[0] = '\0';
                return -1;
            }
            out[k++] = ch;
        }
    out[k] = '\0';
    if (k != 8) {
        out[0] = '\0';
        return -1;
    }
    return 0;
}

char *render_pdn_error(const qk_pdn_error *e, char *buf, size_t n)
{
    if (n == 0)
        return buf;
    const char *fmt = qk_pdn_msg_format(e->msg);
    if (!*fmt) {
        snprintf(buf, n, "%s", e->message);
        return buf;
    }
    const char *args[QK_PDN_NARGS];
    for (int i = 0; i < QK_PDN_NARGS; i++) {
        /* gettext("") is the catalogue's header: an empty argument stays. */
        int kind = e->args[i][0] ? qk_pdn_msg_arg_kind(e->msg, i) : QK_PDN_ARG_TEXT;
        args[i] = kind == QK_PDN_ARG_REASON  ? render_reason_text(e->args[i])
                  : kind == QK_PDN_ARG_RULES ? _(e->args[i])
                                             : e->args[i];
    }
    char body[QK_PDN_MSGLEN + 2 * QK_PDN_ARGLEN];
    qk_pdn_msg_render(_(fmt), args, QK_PDN_NARGS, body, sizeof body);
    if (e->line > 0)
        /* TRANSLATORS: a line of a game record file, then what is wrong on it. */
        snprintf(buf, n, _("line %d: %s"), e->line, body);
    else
        snprintf(buf, n, "%s", body);
    return buf;
}

char *render_outcome(const char *result, const char *reason, const char *mine, char *buf, size_t n)
{
    static const struct {
        const char *word, *text;
    } why[] = {
        /* TRANSLATORS: why a game ended, in parentheses after "you won",
         * "you lost", "White won", "draw". */
        {"resign", N_("resignation")},
        {"timeout", N_("time")},
        {"agreement", N_("agreement")},
        {"no_moves", N_("no moves")},
        {"no_pieces", N_("no pieces left")},
        {"move_limit", N_("40 plies without a capture")},
        {"sultan_majority", N_("no Sultan majority")},
        {"adjudicated", N_("decided by an administrator")},
    };
    if (n == 0)
        return buf;
    if (reason && strcmp(reason, "aborted") == 0) {
        snprintf(buf, n, "%s", _("aborted"));
        return buf;
    }
    bool white = result && strcmp(result, "white") == 0;
    bool black = result && strcmp(result, "black") == 0;
    bool mine_w = mine && strcmp(mine, "white") == 0, mine_b = mine && strcmp(mine, "black") == 0;
    const char *head;
    if (white || black) {
        if (mine_w || mine_b)
            head = (white == mine_w) ? _("you won") : _("you lost");
        else
            head = white ? _("White won") : _("Black won");
    } else if (result && strcmp(result, "draw") == 0) {
        head = _("draw");
    } else {
        head = _("no result");
    }
    const char *text = reason;
    for (size_t i = 0; reason && i < sizeof why / sizeof why[0]; i++)
        if (strcmp(reason, why[i].word) == 0)
            text = _(why[i].text);
    if (text && *text)
        snprintf(buf, n, "%s (%s)", head, text);
    else
        snprintf(buf, n, "%s", head);
    return buf;
}

static const char *str_field(const cJSON *obj, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Replay `moves` from `start`. Returns true when every move parses and
 * the result is `position` (so the marks are trustworthy); *last is then
 * the final move and *had_last whether there was one. */
static bool replay(const qk_variant *v, const cJSON *game, const qk_pos *now, qk_move *last,
                   bool *had_last)
{
    const char *start = str_field(game, "start");
    const cJSON *moves = cJSON_GetObjectItemCaseSensitive(game, "moves");
    *had_last = false;
    if (!start || !cJSON_IsArray(moves))
        return false;
    qk_pos pos;
    qk_undo undo;
    if (qk_pos_parse(v, start, &pos, NULL) != QK_OK)
        return false;
    const cJSON *it;
    cJSON_ArrayForEach(it, moves)
    {
        if (!cJSON_IsString(it) || qk_move_parse(v, &pos, it->valuestring, last) != QK_OK)
            return false;
        qk_pos_make(v, &pos, last, &undo);
        *had_last = true;
    }
    char a[QK_POS_STRLEN], b[QK_POS_STRLEN];
    return qk_pos_format(v, &pos, a, sizeof a) >= 0 && qk_pos_format(v, now, b, sizeof b) >= 0 &&
           strcmp(a, b) == 0;
}

static void write_turn_line(FILE *out, const cJSON *game, const char *me)
{
    const char *turn = str_field(game, "turn");
    bool white = turn && strcmp(turn, "white") == 0;
    const char *name = str_field(game, white ? "white" : "black");
    fprintf(out, _("%s to move"), white ? _("White") : _("Black"));
    if (name) {
        bool you = me && strcmp(me, name) == 0;
        fprintf(out, " (%s%s)", name, you ? _(", you") : "");
    }
    fputc('\n', out);
}

/* "4:55", "1:02:03" for a live clock. */
static void clock_text(double ms, char *buf, size_t n)
{
    long long s = ms < 0 ? 0 : (long long)(ms / 1000.0);
    if (s >= 3600)
        snprintf(buf, n, "%lld:%02lld:%02lld", s / 3600, s % 3600 / 60, s % 60);
    else
        snprintf(buf, n, "%lld:%02lld", s / 60, s % 60);
}

/* "2d 03h", "5h 10m", "12m 30s" for correspondence time left. */
static void left_text(double ms, char *buf, size_t n)
{
    long long s = ms < 0 ? 0 : (long long)(ms / 1000.0);
    long long d = s / 86400, h = s % 86400 / 3600, m = s % 3600 / 60;
    if (d > 0)
        snprintf(buf, n, _("%lldd %02lldh"), d, h);
    else if (h > 0)
        snprintf(buf, n, _("%lldh %02lldm"), h, m);
    else
        snprintf(buf, n, _("%lldm %02llds"), m, s % 60);
}

/* Both live clocks of obj, newest shape first: "clock": {"white": ms,
 * "black": ms} (issue 10), then "clock": {"white_ms", "black_ms"}, then
 * "clocks": {"white", "black"}. */
static bool live_clocks(const cJSON *obj, double *w, double *b)
{
    static const struct {
        const char *obj, *w, *b;
    } shapes[] = {
        {"clock", "white", "black"},
        {"clock", "white_ms", "black_ms"},
        {"clocks", "white", "black"},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(obj, shapes[i].obj);
        const cJSON *cw = cJSON_GetObjectItemCaseSensitive(c, shapes[i].w);
        const cJSON *cb = cJSON_GetObjectItemCaseSensitive(c, shapes[i].b);
        if (cJSON_IsNumber(cw) && cJSON_IsNumber(cb)) {
            *w = cw->valuedouble;
            *b = cb->valuedouble;
            return true;
        }
    }
    return false;
}

bool render_clock_read(const cJSON *obj, int64_t received_ms, render_clock *clk)
{
    memset(clk, 0, sizeof *clk);
    double w, b;
    if (!live_clocks(obj, &w, &b))
        return false;
    clk->valid = true;
    clk->white_ms = w < 0 ? 0 : (long long)w;
    clk->black_ms = b < 0 ? 0 : (long long)b;
    clk->received_ms = received_ms;
    const char *status = str_field(obj, "status"), *turn = str_field(obj, "turn");
    const cJSON *ply = cJSON_GetObjectItemCaseSensitive(obj, "ply");
    /* Issue 10: no time runs before a side's first move, so a clock runs
     * from ply 2 on (an event's "ply" is the ply just played: the next
     * one is ply + 1). */
    bool is_event = cJSON_GetObjectItemCaseSensitive(obj, "event") != NULL;
    double next_ply = cJSON_IsNumber(ply) ? ply->valuedouble + (is_event ? 1 : 0) : 0;
    bool active = !status || strcmp(status, "active") == 0;
    if (active && turn && next_ply >= 2)
        clk->running = strcmp(turn, "white") == 0   ? RENDER_CLOCK_WHITE
                       : strcmp(turn, "black") == 0 ? RENDER_CLOCK_BLACK
                                                    : RENDER_CLOCK_NONE;
    return true;
}

void render_clock_at(const render_clock *clk, int64_t now_ms, long long *white_ms,
                     long long *black_ms)
{
    long long w = clk->white_ms, b = clk->black_ms;
    long long spent = now_ms > clk->received_ms ? (long long)(now_ms - clk->received_ms) : 0;
    if (clk->running == RENDER_CLOCK_WHITE)
        w = w > spent ? w - spent : 0;
    else if (clk->running == RENDER_CLOCK_BLACK)
        b = b > spent ? b - spent : 0;
    *white_ms = w;
    *black_ms = b;
}

int render_clock_next_ms(const render_clock *clk, int64_t now_ms)
{
    if (!clk->valid || clk->running == RENDER_CLOCK_NONE)
        return -1;
    long long w, b;
    render_clock_at(clk, now_ms, &w, &b);
    long long left = clk->running == RENDER_CLOCK_WHITE ? w : b;
    if (left <= 0)
        return -1;
    /* The shown seconds change when left crosses the next multiple of
     * 1000 below it. */
    long long r = left % 1000;
    return (int)(r == 0 ? 1000 : r);
}

char *render_clock_text(const render_clock *clk, int64_t now_ms, char *buf, size_t n)
{
    long long w, b;
    render_clock_at(clk, now_ms, &w, &b);
    char wb[32], bb[32];
    clock_text((double)w, wb, sizeof wb);
    clock_text((double)b, bb, sizeof bb);
    snprintf(buf, n, _("White %s  Black %s"), wb, bb);
    return buf;
}

/* "Time: corr:3, deadline ..., Black has 2d 03h left" when the game has a
 * clock, and "Clock: White 4:55  Black 5:00" for live games; nothing for
 * unlimited games. */
static void write_time_line(FILE *out, const cJSON *game)
{
    const cJSON *tc = cJSON_GetObjectItemCaseSensitive(game, "time_control");
    const cJSON *dl = cJSON_GetObjectItemCaseSensitive(game, "deadline");
    const char *status = str_field(game, "status");
    bool active = !status || strcmp(status, "active") == 0;
    char text[64];
    timectl_format(tc, text, sizeof text);
    bool timed = strcmp(text, "unlimited") != 0 && strcmp(text, "-") != 0;
    if (!timed && !cJSON_IsNumber(dl))
        return;
    fprintf(out, _("Time: %s"), text);
    if (cJSON_IsNumber(dl) && active) {
        time_t secs = (time_t)(dl->valuedouble / 1000.0);
        struct tm tm;
        char buf[64];
        if (gmtime_r(&secs, &tm) && strftime(buf, sizeof buf, _("%Y-%m-%d %H:%M:%S UTC"), &tm))
            fprintf(out, _(", deadline %s"), buf);
    }
    render_clock clk;
    bool live = render_clock_read(game, 0, &clk);
    const cJSON *left = cJSON_GetObjectItemCaseSensitive(game, "time_left_ms");
    const char *turn = str_field(game, "turn");
    if (!live && active && cJSON_IsNumber(left) && turn) {
        char buf[32];
        left_text(left->valuedouble, buf, sizeof buf);
        fprintf(out, _(", %s has %s left"), strcmp(turn, "white") == 0 ? _("White") : _("Black"), buf);
    }
    fputc('\n', out);
    if (live) {
        char buf[80];
        fprintf(out, _("Clock: %s\n"), render_clock_text(&clk, 0, buf, sizeof buf));
    }
}

/* "Draw offered by White (alice)" and "On vacation: Black (bob)" while the
 * game is active and the server says so (draw_offer, vacation: issue 10;
 * a bool "vacation" is the older challenge option and says nothing about
 * the players). */
static void write_offer_and_vacation(FILE *out, const cJSON *game)
{
    const char *status = str_field(game, "status");
    if (status && strcmp(status, "active") != 0)
        return;
    const char *offer = str_field(game, "draw_offer");
    if (offer && (strcmp(offer, "white") == 0 || strcmp(offer, "black") == 0)) {
        const char *name = str_field(game, offer);
        fprintf(out, _("Draw offered by %s%s%s%s\n"), strcmp(offer, "white") == 0 ? _("White") : _("Black"),
                name ? " (" : "", name ? name : "", name ? ")" : "");
    }
    const cJSON *vac = cJSON_GetObjectItemCaseSensitive(game, "vacation");
    if (!cJSON_IsObject(vac))
        return;
    bool first = true;
    static const char *const sides[] = {"white", "black"};
    for (int i = 0; i < 2; i++) {
        if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(vac, sides[i])))
            continue;
        const char *name = str_field(game, sides[i]);
        fprintf(out, "%s%s%s%s%s", first ? _("On vacation: ") : ", ", i == 0 ? _("White") : _("Black"),
                name ? " (" : "", name ? name : "", name ? ")" : "");
        first = false;
    }
    if (!first)
        fputc('\n', out);
}

unsigned render_view_flags(const cJSON *game, const char *me, bool flip)
{
    const char *black = str_field(game, "black");
    bool black_me = me && black && strcmp(black, me) == 0;
    const char *white = str_field(game, "white");
    /* Playing both sides (a game against yourself cannot happen, but) White's view wins. */
    if (me && white && strcmp(white, me) == 0)
        black_me = false;
    return black_me != flip ? RENDER_FLIP : 0;
}

/* "NAME" or "NAME (bot)" for the side's player. */
static void write_player(FILE *out, const cJSON *game, const char *side)
{
    const char *name = str_field(game, side);
    char key[16];
    snprintf(key, sizeof key, "%s_bot", side);
    fprintf(out, "%s%s", name ? name : "?",
            cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(game, key)) ? _(" (bot)") : "");
    /* A rated game: the player's rating at its start (issue 12). */
    snprintf(key, sizeof key, "%s_rating", side);
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(game, key);
    if (cJSON_IsNumber(r))
        fprintf(out, " (%.0f)", r->valuedouble);
}

/* "Ratings: White 1500 -> 1662 (+162), Black 1500 -> 1338 (-162)" once a
 * rated game's end has counted (rating_change, issue 12). */
static void write_rating_change(FILE *out, const cJSON *game)
{
    const cJSON *ch = cJSON_GetObjectItemCaseSensitive(game, "rating_change");
    if (!cJSON_IsObject(ch))
        return;
    static const char *const sides[2] = {"white", "black"};
    for (int i = 0; i < 2; i++) {
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(ch, sides[i]);
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(s, "before");
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(s, "after");
        if (!cJSON_IsNumber(b) || !cJSON_IsNumber(a))
            return;
        fprintf(out, "%s%s %.2f -> %.2f (%+.2f)", i ? ", " : _("Ratings: "), i ? _("Black") : _("White"),
                b->valuedouble, a->valuedouble, a->valuedouble - b->valuedouble);
    }
    fputc('\n', out);
}

/* The key to the board's marks, only what this variant can show. */
static void write_legend(FILE *out, const qk_variant *v, unsigned flags)
{
    fputs(_("Key: [ ] last move, x captured"), out);
    if (qk_variant_has_sultans(v))
        fputs(_(", W B Sultans"), out);
    if (qk_variant_is_konane(v))
        fputs((flags & RENDER_COLOR) ? _(", grey: dark squares") : _(", ::: dark squares"), out);
    fputc('\n', out);
}

/* "White wins (Black has no pieces left): you won". */
static void write_result(FILE *out, const cJSON *game, const char *me)
{
    const char *status = str_field(game, "status");
    const char *result = str_field(game, "result"), *reason = str_field(game, "reason");
    if (strcmp(status, "aborted") == 0) {
        fputs(_("Game aborted\n"), out);
        return;
    }
    fputs(render_result_text(result), out);
    bool won_w = result && strcmp(result, "white") == 0;
    bool won_b = result && strcmp(result, "black") == 0;
    const char *loser = won_w ? _("Black") : won_b ? _("White") : NULL;
    if (reason && loser && strcmp(reason, "no_pieces") == 0)
        fprintf(out, _(" (%s has no pieces left)"), loser);
    else if (reason && loser && strcmp(reason, "no_moves") == 0)
        fprintf(out, _(" (%s has no legal moves)"), loser);
    else if (reason && loser && strcmp(reason, "resign") == 0)
        fprintf(out, _(" (%s resigned)"), loser);
    else if (reason && loser && strcmp(reason, "timeout") == 0)
        fprintf(out, _(" (%s ran out of time)"), loser);
    else if (reason)
        fprintf(out, " (%s)", render_reason_text(reason));
    const char *w = str_field(game, "white"), *b = str_field(game, "black");
    const char *mine = !me                       ? NULL
                       : w && strcmp(w, me) == 0 ? "white"
                       : b && strcmp(b, me) == 0 ? "black"
                                                 : NULL;
    if (mine && (won_w || won_b))
        fputs(strcmp(mine, result) == 0 ? _(": you won") : _(": you lost"), out);
    fputc('\n', out);
}

int render_game(FILE *out, const cJSON *game, const char *me, unsigned flags)
{
    const char *vname = str_field(game, "variant");
    const char *position = str_field(game, "position");
    const char *status = str_field(game, "status");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(game, "id");
    const cJSON *ply = cJSON_GetObjectItemCaseSensitive(game, "ply");

    fputs(_("Game"), out);
    if (cJSON_IsNumber(id))
        fprintf(out, " %.0f", id->valuedouble);
    else if (cJSON_IsString(id))
        fprintf(out, " %s", id->valuestring);
    if (vname)
        fprintf(out, "  %s", vname);
    if (cJSON_IsNumber(ply))
        fprintf(out, _("  ply %.0f"), ply->valuedouble);
    fputc('\n', out);
    fputs(_("White: "), out);
    write_player(out, game, "white");
    fputs(_("  Black: "), out);
    write_player(out, game, "black");
    fputc('\n', out);
    write_time_line(out, game);
    write_offer_and_vacation(out, game);
    write_rating_change(out, game);

    qk_variant v;
    qk_pos pos;
    if (!vname || qk_variant_parse(vname, &v) != QK_OK || !position ||
        qk_pos_parse(&v, position, &pos, NULL) != QK_OK) {
        fprintf(out, _("(cannot draw position %s)\n"), position ? position : _("(none)"));
        return -1;
    }
    qk_move last;
    bool had_last = false;
    bool marked = replay(&v, game, &pos, &last, &had_last) && had_last;
    render_board(out, &v, &pos, marked ? &last : NULL, flags);
    if (flags & RENDER_LEGEND)
        write_legend(out, &v, flags);

    const cJSON *moves = cJSON_GetObjectItemCaseSensitive(game, "moves");
    int nmoves = cJSON_GetArraySize(moves);
    const cJSON *lastmv = nmoves > 0 ? cJSON_GetArrayItem(moves, nmoves - 1) : NULL;
    if (cJSON_IsString(lastmv))
        fprintf(out, _("Last move: %s\n"), lastmv->valuestring);

    if (status && strcmp(status, "active") != 0) {
        write_result(out, game, me);
        return 0;
    }

    write_turn_line(out, game, me);
    const cJSON *legal = cJSON_GetObjectItemCaseSensitive(game, "legal_moves");
    if (cJSON_IsArray(legal)) {
        render_move_list(out, _("Legal moves"), legal);
        return 0;
    }
    /* Not sent (game lists): the rules know them as well as the server. */
    qk_move *gen = malloc(QK_MAX_MOVES * sizeof *gen);
    int n = gen ? qk_movegen_sorted(&v, &pos, gen, QK_MAX_MOVES) : 0;
    cJSON *list = cJSON_CreateArray();
    for (int i = 0; list && i < n; i++) {
        char text[QK_MOVE_STRLEN];
        if (qk_move_format(&v, &gen[i], text, sizeof text) >= 0)
            cJSON_AddItemToArray(list, cJSON_CreateString(text));
    }
    render_move_list(out, _("Legal moves"), list);
    cJSON_Delete(list);
    free(gen);
    return 0;
}
