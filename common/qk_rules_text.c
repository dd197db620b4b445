/*
 * Text forms of the rules (RULES.md section 1): position strings, point
 * names, move text, and the text-sorted move list.
 *
 * Design. Every parser here reads hostile input: it walks the string one
 * byte at a time, never looks past the first byte that cannot belong to
 * the form, bounds every number by digit count before converting it, and
 * writes its output only after the whole input has been accepted, so a
 * rejected input leaves *out untouched. Formatters write through one
 * bounded appender and report QK_ENOSPC instead of truncating silently.
 */
#include <string.h>

#include "qk_rules_int.h"

/* ---- bounded output ---------------------------------------------------- */

typedef struct outbuf {
    char *buf;
    size_t n, len;
    bool full;
} outbuf;

static void out_ch(outbuf *o, char c)
{
    if (o->len + 1 < o->n)
        o->buf[o->len] = c;
    else
        o->full = true;
    o->len++;
}

static void out_point(outbuf *o, int files, int point)
{
    int f = point % files, r = point / files + 1;
    out_ch(o, (char)('a' + f));
    if (r >= 10)
        out_ch(o, (char)('0' + r / 10));
    out_ch(o, (char)('0' + r % 10));
}

static int out_end(outbuf *o)
{
    if (o->n == 0)
        return QK_ENOSPC;
    if (o->full) {
        o->buf[0] = '\0';
        return QK_ENOSPC;
    }
    o->buf[o->len] = '\0';
    return (int)o->len;
}

/* ---- points ---------------------------------------------------------------- */

/* Read one point name at s; returns the bytes used (0 if none). Ranks have
 * no leading zero and at most two digits (section 1, up to 12 ranks). */
static int read_point(const qk_variant *v, const char *s, int *point)
{
    if (s[0] < 'a' || s[0] >= 'a' + v->files)
        return 0;
    int f = s[0] - 'a';
    if (s[1] < '1' || s[1] > '9')
        return 0;
    int r = s[1] - '0', used = 2;
    if (s[2] >= '0' && s[2] <= '9') {
        r = r * 10 + (s[2] - '0');
        used = 3;
    }
    if (r > v->ranks)
        return 0;
    *point = (r - 1) * v->files + f;
    return used;
}

int qk_point_format(const qk_variant *v, int point, char *buf, size_t n)
{
    if (!v || !buf || point < 0 || point >= v->ranks * v->files)
        return QK_EINVAL;
    outbuf o = {buf, n, 0, false};
    out_point(&o, v->files, point);
    return out_end(&o);
}

int qk_point_parse(const qk_variant *v, const char *s, int *point)
{
    int p;
    if (!v || !s || !point)
        return QK_EINVAL;
    int used = read_point(v, s, &p);
    if (used == 0 || s[used] != '\0')
        return QK_EINVAL;
    *point = p;
    return QK_OK;
}

/* ---- positions ------------------------------------------------------------- */

static int piece_of(char c)
{
    switch (c) {
    case '.':
        return QK_EMPTY;
    case 'w':
        return QK_WMAN;
    case 'b':
        return QK_BMAN;
    case 'W':
        return QK_WSULTAN;
    case 'B':
        return QK_BSULTAN;
    default:
        return -1;
    }
}

static const char piece_chars[] = ".wbWB";

#define FAIL(msg)                                                                                  \
    do {                                                                                           \
        if (why)                                                                                   \
            *why = (msg);                                                                          \
        return QK_EINVAL;                                                                          \
    } while (0)

int qk_pos_parse(const qk_variant *v, const char *s, qk_pos *out, const char **why)
{
    if (!v || !v->rules || !s || !out)
        FAIL(QK_N_("no position"));
    qk_pos p;
    memset(&p, 0, sizeof p);
    memset(p.from, QK_NO_POINT, sizeof p.from);
    int R = v->ranks, C = v->files;

    /* Field 1: ranks from the top down (section 1). */
    for (int r = R - 1; r >= 0; r--) {
        for (int f = 0; f < C; f++, s++) {
            if (*s == '/' || *s == ' ' || *s == '\0')
                FAIL(QK_N_("wrong board size: a rank has too few points"));
            int pc = piece_of(*s);
            if (pc < 0)
                FAIL(QK_N_("unknown letter in the board (expected w, b, W, B or .)"));
            if (qk_piece_is_sultan(pc) && !v->rules->sultans)
                FAIL(QK_N_("Sultans (W, B) do not exist in this variant"));
            p.sq[r * C + f] = (uint8_t)pc;
        }
        if (r > 0) {
            if (*s == ' ' || *s == '\0')
                FAIL(QK_N_("wrong board size: too few ranks"));
            if (*s != '/') {
                if (piece_of(*s) >= 0)
                    FAIL(QK_N_("wrong board size: a rank has too many points"));
                FAIL(QK_N_("unknown letter in the board (expected w, b, W, B or .)"));
            }
            s++;
        }
    }
    if (*s == '/')
        FAIL(QK_N_("wrong board size: too many ranks"));
    if (*s != ' ') {
        if (*s == '\0')
            FAIL(QK_N_("missing side to move"));
        if (piece_of(*s) >= 0)
            FAIL(QK_N_("wrong board size: a rank has too many points"));
        FAIL(QK_N_("unknown letter in the board (expected w, b, W, B or .)"));
    }
    s++;

    /* Field 2. */
    if ((s[0] != 'w' && s[0] != 'b') || (s[1] != ' ' && s[1] != '\0'))
        FAIL(QK_N_("side to move must be w or b"));
    p.side = s[0] == 'w' ? QK_WHITE : QK_BLACK;
    s++;
    if (*s != ' ')
        FAIL(QK_N_("missing no-capture count"));
    s++;

    /* Field 3: plies since the last capture; canonical decimal. */
    if (*s < '0' || *s > '9')
        FAIL(QK_N_("bad no-capture count: expected a decimal number"));
    if (s[0] == '0' && s[1] >= '0' && s[1] <= '9')
        FAIL(QK_N_("bad no-capture count: leading zero"));
    unsigned long q = 0;
    int digits = 0;
    for (; *s >= '0' && *s <= '9'; s++, digits++) {
        if (digits >= 5)
            FAIL(QK_N_("bad no-capture count: too large"));
        q = q * 10 + (unsigned long)(*s - '0');
    }
    if (q > UINT16_MAX)
        FAIL(QK_N_("bad no-capture count: too large"));
    /* Counts past the limit are finished games, not malformed text:
     * qk_pos_status() says so, and make() can produce them. */
    p.quiet = (uint16_t)q;
    if (*s != ' ')
        FAIL(*s == '\0' ? QK_N_("missing memory field (use -)") : QK_N_("bad no-capture count"));
    s++;

    /* Field 4: BrainKing memory (sections 1 and 5) or '-'. */
    if (s[0] == '-') {
        s++;
    } else if (!v->rules->memory) {
        FAIL(QK_N_("memory field must be - in this variant"));
    } else {
        int last = -1;
        for (;;) {
            int at, start, n1, n2;
            if ((n1 = read_point(v, s, &at)) == 0 || s[n1] != ':' ||
                (n2 = read_point(v, s + n1 + 1, &start)) == 0)
                FAIL(QK_N_("malformed memory: expected piece:start pairs like c3:b3"));
            s += n1 + 1 + n2;
            if (at <= last)
                FAIL(QK_N_("impossible memory: pairs must be ordered by point, each once"));
            if (p.sq[at] == QK_EMPTY)
                FAIL(QK_N_("impossible memory: no piece on the point"));
            /* Meaningful (the piece could step back there) and possible (it
             * could have stepped from there): only sideways steps qualify. */
            int side = qk_piece_side(p.sq[at]);
            if (!qk_memory_relevant(v, side, at, start) || !qk_memory_relevant(v, side, start, at))
                FAIL(QK_N_("impossible memory: start is not a point the piece could step to"));
            p.from[at] = (uint8_t)start;
            last = at;
            if (*s != ',')
                break;
            s++;
        }
    }
    if (*s != '\0')
        FAIL(QK_N_("trailing characters after the position"));
    *out = p;
    return QK_OK;
}

int qk_pos_format(const qk_variant *v, const qk_pos *p, char *buf, size_t n)
{
    if (!v || !p || !buf)
        return QK_EINVAL;
    outbuf o = {buf, n, 0, false};
    int R = v->ranks, C = v->files;
    for (int r = R - 1; r >= 0; r--) {
        for (int f = 0; f < C; f++) {
            unsigned pc = p->sq[r * C + f];
            out_ch(&o, pc < sizeof piece_chars - 1 ? piece_chars[pc] : '?');
        }
        out_ch(&o, r > 0 ? '/' : ' ');
    }
    out_ch(&o, p->side == QK_WHITE ? 'w' : 'b');
    out_ch(&o, ' ');
    char digits[8];
    int nd = 0;
    unsigned q = p->quiet;
    do {
        digits[nd++] = (char)('0' + q % 10);
        q /= 10;
    } while (q);
    while (nd)
        out_ch(&o, digits[--nd]);
    out_ch(&o, ' ');
    bool any = false;
    for (int i = 0; v->rules->memory && i < R * C; i++) {
        if (p->from[i] == QK_NO_POINT || p->sq[i] == QK_EMPTY)
            continue;
        if (any)
            out_ch(&o, ',');
        out_point(&o, C, i);
        out_ch(&o, ':');
        out_point(&o, C, p->from[i]);
        any = true;
    }
    if (!any)
        out_ch(&o, '-');
    return out_end(&o);
}

/* ---- moves ----------------------------------------------------------------- */

int qk_move_format(const qk_variant *v, const qk_move *m, char *buf, size_t n)
{
    if (!v || !m || !buf || m->len < 2 || m->len > QK_MAX_PATH)
        return QK_EINVAL;
    for (int i = 0; i < m->len; i++)
        if (m->path[i] >= v->ranks * v->files)
            return QK_EINVAL;
    outbuf o = {buf, n, 0, false};
    for (int i = 0; i < m->len; i++) {
        if (i)
            out_ch(&o, m->ncap ? 'x' : '-');
        out_point(&o, v->files, m->path[i]);
    }
    return out_end(&o);
}

int qk_move_parse(const qk_variant *v, const qk_pos *p, const char *text, qk_move *out)
{
    if (!v || !v->rules || !p || !text || !out)
        return QK_EINVAL;
    uint8_t path[QK_MAX_PATH];
    int len = 0;
    char sep = 0;
    for (;;) {
        int pt, used = read_point(v, text, &pt);
        if (used == 0)
            return QK_EINVAL;
        path[len++] = (uint8_t)pt;
        text += used;
        if (*text == '\0')
            break;
        if ((*text != '-' && *text != 'x') || (sep && *text != sep) || len == QK_MAX_PATH)
            return QK_EINVAL;
        sep = *text++;
    }
    if (len < 2 || (sep == '-' && len != 2))
        return QK_EINVAL;
    qk_move want, got;
    memset(&want, 0, sizeof want);
    want.len = (uint8_t)len;
    want.ncap = sep == 'x'; /* only its being non-zero matters */
    memcpy(want.path, path, (size_t)len);
    qk_st s;
    qk_st_load(v, p, &s);
    /* Two legal moves never share path and kind (a straight line between
     * two landing points holds exactly one jumped piece), so one slot. */
    if (qk_gen(v, &s, p->side & 1, p->from, &got, 1, &want) < 1)
        return QK_EILLEGAL;
    *out = got;
    return QK_OK;
}

/* strcmp order of the move texts (the order of the recorded games' legal
 * lists). Two-digit ranks make a structural comparison subtle ("a1-" sorts
 * before "a10"), so compare the texts themselves. */
static int move_cmp(const qk_variant *v, const qk_move *a, const qk_move *b)
{
    char ta[QK_MOVE_STRLEN], tb[QK_MOVE_STRLEN];
    qk_move_format(v, a, ta, sizeof ta);
    qk_move_format(v, b, tb, sizeof tb);
    return strcmp(ta, tb);
}

/* Lists up to this long are sorted with each text formatted once, on the
 * stack (~8 KiB of texts): formatting both texts in every comparison was
 * most of the cost of a move's legal list (docs/perf.md "Third round").
 * Longer lists (large RxC boards) take the slower path without scratch. */
#define SORT_TEXTS 64

int qk_movegen_sorted(const qk_variant *v, const qk_pos *p, qk_move *moves, int cap)
{
    int n = qk_movegen(v, p, moves, cap);
    if (n <= 1)
        return n;
    if (n <= SORT_TEXTS) {
        char text[SORT_TEXTS][QK_MOVE_STRLEN];
        unsigned char idx[SORT_TEXTS];
        qk_move copy[SORT_TEXTS];
        for (int i = 0; i < n; i++) {
            qk_move_format(v, &moves[i], text[i], sizeof text[i]);
            idx[i] = (unsigned char)i;
            copy[i] = moves[i];
        }
        /* Binary insertion sort of the indexes: lists are short. */
        for (int i = 1; i < n; i++) {
            unsigned char k = idx[i];
            int lo = 0, hi = i;
            while (lo < hi) {
                int mid = (lo + hi) / 2;
                if (strcmp(text[idx[mid]], text[k]) <= 0)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            memmove(&idx[lo + 1], &idx[lo], (size_t)(i - lo));
            idx[lo] = k;
        }
        for (int i = 0; i < n; i++)
            moves[i] = copy[idx[i]];
        return n;
    }
    /* Binary insertion sort: no scratch memory or comparison context. */
    for (int i = 1; i < n; i++) {
        qk_move m = moves[i];
        int lo = 0, hi = i;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (move_cmp(v, &moves[mid], &m) <= 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        memmove(&moves[lo + 1], &moves[lo], (size_t)(i - lo) * sizeof m);
        moves[lo] = m;
    }
    return n;
}
