/*
 * qk_pdn_read: the reader of qk_pdn.h. One pass over the text with a line
 * counter: tags, comments, variations, numbers and moves are recognised
 * by their first character, a tag after movetext (or a result) closes the
 * game and opens the next. Everything that can be judged from the text
 * alone is judged here, with the line it is on; what needs the rules
 * (variant, FEN, legality, result) is left to qk_pdn_validate(), which the
 * reader runs on every game once the whole text has parsed. The input is
 * hostile: any bytes, any length up to QK_PDN_MAX_TEXT, never read past
 * len.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qk_pdn.h"
#include "qk_pdn_int.h"

/* Longest token (a move, a number, a result) the reader looks at. */
#define TOKEN_MAX 256


enum phase {
    PH_NONE,  /* no game open */
    PH_TAGS,  /* tags read, no movetext yet */
    PH_MOVES, /* movetext begun */
    PH_DONE,  /* result token read: only a tag (next game) may follow */
};

typedef struct rd {
    const char *s;
    size_t len, i;
    int line;
    qk_pdn_record *recs;
    size_t n, cap;
    enum phase ph;
    bool result_tag;   /* current game has a Result tag */
    unsigned unknown;  /* roster tags given as "?" (bit per roster_bit()) */
    int plycount_line; /* line of the current game's PlyCount tag */
    int last_line;     /* last line the current game used */
    qk_pdn_error *err;
} rd;

static qk_pdn_record *cur(rd *r)
{
    return &r->recs[r->n - 1];
}

/* Fail with message msg (qk_pdn_msg) and its one argument arg, or
 * arguments arg and arg2 (NULL when it takes fewer). */
static int fail2(rd *r, int code, int line, int msg, const char *arg, const char *arg2)
{
    qk_pdn_fail(r->err, code, line, -1, msg, arg, arg2);
    if (r->err)
        r->err->record = r->n ? r->n - 1 : 0;
    return code;
}

static int fail(rd *r, int code, int line, int msg, const char *arg)
{
    return fail2(r, code, line, msg, arg, NULL);
}

static int open_game(rd *r)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 4;
        qk_pdn_record *p = realloc(r->recs, cap * sizeof *p);
        if (!p)
            return fail(r, QK_PDN_ENOMEM, 0, QK_PDN_M_NOMEM, NULL);
        r->recs = p;
        r->cap = cap;
    }
    qk_pdn_init(&r->recs[r->n++]);
    cur(r)->variant_line = r->line;
    r->ph = PH_TAGS;
    r->result_tag = false;
    r->unknown = 0;
    r->plycount_line = 0;
    r->last_line = r->line;
    return QK_PDN_OK;
}

/* Checks of a game that need all of its text. */
static int close_game(rd *r)
{
    if (r->ph == PH_NONE)
        return QK_PDN_OK;
    qk_pdn_record *g = cur(r);
    if (g->ply_count >= 0 && (size_t)g->ply_count != g->nmoves) {
        char pc[24], nm[24];
        snprintf(pc, sizeof pc, "%ld", g->ply_count);
        snprintf(nm, sizeof nm, "%zu", g->nmoves);
        return fail2(r, QK_PDN_ESYNTAX, r->plycount_line, QK_PDN_M_PLYCOUNT_MOVES, pc, nm);
    }
    if (!g->result_line)
        g->result_line = r->last_line;
    r->ph = PH_NONE;
    return QK_PDN_OK;
}

static bool date_ok(const char *d)
{
    if (strlen(d) != 10 || d[4] != '.' || d[7] != '.')
        return false;
    for (int k = 0; k < 10; k++)
        if (k != 4 && k != 7 && !(d[k] == '?' || (d[k] >= '0' && d[k] <= '9')))
            return false;
    return true;
}

static bool blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* The roster tags whose "?" (Date: "????.??.??") means unknown, which the
 * writer writes for an absent tag: bit of name, or 0 for other tags. */
static unsigned roster_bit(const char *name, const char *value)
{
    static const char *const roster[] = {"Event", "Site", "Date", "Round", "White", "Black"};
    for (unsigned k = 0; k < 6; k++)
        if (strcmp(name, roster[k]) == 0)
            return strcmp(value, k == 2 ? "????.??.??" : "?") == 0 ? 1u << k : 0;
    return 0;
}

static bool roster_seen(const rd *r, const char *name)
{
    static const char *const roster[] = {"Event", "Site", "Date", "Round", "White", "Black"};
    for (unsigned k = 0; k < 6; k++)
        if (strcmp(name, roster[k]) == 0)
            return r->unknown & (1u << k);
    return false;
}

/* [Name "value"] on one line; r->i at '['. */
static int read_tag(rd *r)
{
    int rc;
    if (r->ph == PH_MOVES || r->ph == PH_DONE) {
        if ((rc = close_game(r)) != QK_PDN_OK)
            return rc;
    }
    if (r->ph == PH_NONE && (rc = open_game(r)) != QK_PDN_OK)
        return rc;
    const char *s = r->s;
    size_t i = r->i + 1, end = r->len;
    while (i < end && blank(s[i]))
        i++;
    char name[64];
    size_t nl = 0;
    while (i < end && nl + 1 < sizeof name && s[i] != '"' && s[i] != ']' && s[i] != '\n' &&
           !blank(s[i]))
        name[nl++] = s[i++];
    name[nl] = '\0';
    if (nl == 0 || !qk_pdn_name_ok(name))
        return fail(r, QK_PDN_ESYNTAX, r->line, QK_PDN_M_TAG_NAME, name);
    while (i < end && blank(s[i]))
        i++;
    if (i >= end || s[i] != '"')
        return fail(r, QK_PDN_ESYNTAX, r->line, QK_PDN_M_TAG_QUOTES, name);
    i++;
    qk_sb val = {0};
    qk_sb_put(&val, "", 0);
    for (;;) {
        if (i >= end || s[i] == '\n') {
            free(val.buf);
            return fail(r, QK_PDN_ESYNTAX, r->line, QK_PDN_M_TAG_UNTERMINATED, name);
        }
        if (s[i] == '"')
            break;
        if (s[i] == '\\' && i + 1 < end && (s[i + 1] == '"' || s[i + 1] == '\\'))
            i++;
        qk_sb_put(&val, &s[i], 1);
        i++;
    }
    i++;
    while (i < end && blank(s[i]))
        i++;
    if (i >= end || s[i] != ']') {
        free(val.buf);
        return fail(r, QK_PDN_ESYNTAX, r->line, QK_PDN_M_TAG_BRACKET, name);
    }
    r->i = i + 1;
    if (val.failed) {
        free(val.buf);
        return fail(r, QK_PDN_ENOMEM, r->line, QK_PDN_M_NOMEM, NULL);
    }

    qk_pdn_record *g = cur(r);
    bool dup = strcmp(name, "Result") == 0 ? r->result_tag
               : strcmp(name, "PlyCount") == 0
                   ? g->ply_count >= 0
                   : qk_pdn_get(g, name) != NULL || roster_seen(r, name);
    if (dup) {
        free(val.buf);
        return fail(r, QK_PDN_ESYNTAX, r->line, QK_PDN_M_TAG_TWICE, name);
    }
    if (strcmp(name, "Date") == 0 && !date_ok(val.buf)) {
        rc =
            fail(r, QK_PDN_ESYNTAX, r->line, QK_PDN_M_TAG_DATE, val.buf);
        free(val.buf);
        return rc;
    }
    unsigned bit = roster_bit(name, val.buf);
    if (bit) { /* unknown: the field stays NULL, as the writer had it */
        free(val.buf);
        r->unknown |= bit;
        r->last_line = r->line;
        return QK_PDN_OK;
    }
    rc = qk_pdn_set(g, name, val.buf);
    bool both_lose = strcmp(name, "Result") == 0 && strcmp(val.buf, "0-0") == 0;
    free(val.buf);
    if (rc == QK_PDN_ENOMEM)
        return fail(r, rc, r->line, QK_PDN_M_NOMEM, NULL);
    if (rc != QK_PDN_OK && both_lose)
        return fail(r, QK_PDN_ERESULT, r->line, QK_PDN_M_BOTH_LOSE, NULL);
    if (rc != QK_PDN_OK) {
        int why = strcmp(name, "Result") == 0     ? QK_PDN_M_TAG_RESULT
                  : strcmp(name, "PlyCount") == 0 ? QK_PDN_M_TAG_PLYCOUNT
                  : strcmp(name, "Variant") == 0  ? QK_PDN_M_TAG_VARIANT_LONG
                                                  : QK_PDN_M_TAG_CONTROL;
        return fail(r, QK_PDN_ESYNTAX, r->line, why, NULL);
    }
    if (strcmp(name, "Result") == 0) {
        r->result_tag = true;
        g->result_line = r->line;
    } else if (strcmp(name, "FEN") == 0) {
        g->fen_line = r->line;
    } else if (strcmp(name, "Variant") == 0) {
        g->variant_line = r->line;
    } else if (strcmp(name, "PlyCount") == 0) {
        r->plycount_line = r->line;
    }
    r->last_line = r->line;
    return QK_PDN_OK;
}

/* "[%clk h:mm:ss]" (also h:mm:ss.d...) inside a comment: ms, or -1. */
static long long parse_clk(const char *p, const char *end)
{
    long long h = 0, m = 0, sec = 0, frac = 0, scale = 1000;
    int nd = 0;
    while (p < end && *p == ' ')
        p++;
    for (; p < end && *p >= '0' && *p <= '9' && nd < 6; p++, nd++)
        h = h * 10 + (*p - '0');
    if (nd == 0 || p + 6 > end || p[0] != ':' || p[3] != ':')
        return -1;
    for (int k = 1; k < 6; k++)
        if (k != 3 && (p[k] < '0' || p[k] > '9'))
            return -1;
    m = (p[1] - '0') * 10 + (p[2] - '0');
    sec = (p[4] - '0') * 10 + (p[5] - '0');
    if (m > 59 || sec > 59)
        return -1;
    p += 6;
    if (p < end && *p == '.') {
        for (p++; p < end && *p >= '0' && *p <= '9'; p++)
            if (scale > 1) {
                scale /= 10;
                frac += (*p - '0') * scale;
            }
    }
    while (p < end && *p == ' ')
        p++;
    if (p >= end || *p != ']')
        return -1;
    return ((h * 60 + m) * 60 + sec) * 1000 + frac;
}

/* {...}, r->i at '{'. A clock in it belongs to the move just read. */
static int read_comment(rd *r)
{
    int start_line = r->line;
    size_t i = r->i + 1;
    while (i < r->len && r->s[i] != '}') {
        if (r->s[i] == '\n')
            r->line++;
        i++;
    }
    if (i >= r->len)
        return fail(r, QK_PDN_ESYNTAX, start_line, QK_PDN_M_COMMENT_OPEN, NULL);
    const char *body = r->s + r->i + 1, *bend = r->s + i;
    r->i = i + 1;
    for (const char *p = body; p + 5 <= bend; p++) {
        if (memcmp(p, "[%clk", 5) != 0)
            continue;
        long long ms = parse_clk(p + 5, bend);
        if (ms < 0)
            return fail(r, QK_PDN_ESYNTAX, start_line, QK_PDN_M_CLOCK, NULL);
        if (r->ph == PH_MOVES && cur(r)->nmoves > 0)
            cur(r)->clk[cur(r)->nmoves - 1] = ms;
        break;
    }
    return QK_PDN_OK;
}

/* (...) variations, nested: skipped, the main line is the game. */
static int skip_variation(rd *r)
{
    int start_line = r->line, depth = 0;
    for (; r->i < r->len; r->i++) {
        char c = r->s[r->i];
        if (c == '\n')
            r->line++;
        else if (c == '(')
            depth++;
        else if (c == ')' && --depth == 0) {
            r->i++;
            return QK_PDN_OK;
        }
    }
    return fail(r, QK_PDN_ESYNTAX, start_line, QK_PDN_M_VARIATION_OPEN, NULL);
}

/* Move syntax of RULES.md section 1 as far as text alone tells: points
 * (a letter, a rank of 1-2 digits) joined by one kind of separator. The
 * rules judge the board size and legality. */
static bool move_shape(const char *t)
{
    char sep = 0;
    int points = 0;
    for (;;) {
        if (*t < 'a' || *t > 'z')
            return false;
        t++;
        if (*t < '1' || *t > '9')
            return false;
        t++;
        if (*t >= '0' && *t <= '9')
            t++;
        points++;
        if (!*t)
            return points >= 2;
        if ((*t != '-' && *t != 'x') || (sep && *t != sep))
            return false;
        sep = *t++;
    }
}

/* A move in the numbered-square notation of other draughts programs
 * (FMJD PDN for international draughts: "32-28", "11x18", "11x18x27"):
 * numbers joined by '-' or 'x'. Qirkat's records name points (RULES.md
 * section 1), so such a record is refused with a message that says so. */
static bool numeric_move(const char *t)
{
    int numbers = 0;
    for (;;) {
        if (*t < '0' || *t > '9')
            return false;
        while (*t >= '0' && *t <= '9')
            t++;
        numbers++;
        if (!*t)
            return numbers >= 2;
        if (*t != '-' && *t != 'x')
            return false;
        t++;
    }
}

static int read_token(rd *r)
{
    char tok[TOKEN_MAX];
    size_t n = 0;
    int line = r->line;
    while (r->i < r->len) {
        char c = r->s[r->i];
        if (blank(c) || c == '\n' || strchr("{}[]();", c))
            break;
        if (n + 1 >= sizeof tok)
            return fail(r, QK_PDN_ESYNTAX, line, QK_PDN_M_TOKEN_LONG, NULL);
        tok[n++] = c;
        r->i++;
    }
    tok[n] = '\0';
    if (n == 0) { /* a stray '}', ']' or ')' */
        tok[0] = r->s[r->i];
        tok[1] = '\0';
        return fail(r, QK_PDN_ESYNTAX, line, QK_PDN_M_UNEXPECTED, tok);
    }
    if (r->ph == PH_NONE) {
        int rc = open_game(r);
        if (rc != QK_PDN_OK)
            return rc;
    }
    qk_pdn_record *g = cur(r);
    r->last_line = line;

    int res = qk_pdn_result_parse(tok);
    if (res < 0 && strcmp(tok, "0-0") == 0)
        return fail(r, QK_PDN_ERESULT, line, QK_PDN_M_BOTH_LOSE, NULL);
    if (res < 0 && numeric_move(tok))
        return fail(r, QK_PDN_ESYNTAX, line, QK_PDN_M_NUMERIC, tok);
    if (res >= 0) {
        if (r->ph == PH_DONE)
            return fail(r, QK_PDN_EAFTER, line, QK_PDN_M_RESULT_AFTER, tok);
        if (r->result_tag && (qk_result)res != g->result) {
            return fail2(r, QK_PDN_ERESULT, line, QK_PDN_M_RESULT_TAG_MOVES,
                         qk_pdn_result_text(g->result), qk_pdn_result_text((qk_result)res));
        }
        if (!r->result_tag) {
            g->result = (qk_result)res;
            g->result_line = line;
        }
        r->ph = PH_DONE;
        return QK_PDN_OK;
    }
    /* A move number ("12." or "12..."), alone or glued to its move. */
    char *t = tok;
    while (*t >= '0' && *t <= '9')
        t++;
    if (t > tok && *t != '.')
        return fail(r, QK_PDN_ESYNTAX, line, QK_PDN_M_NOT_MOVE_NUMBER, tok);
    while (*t == '.')
        t++;
    if (!*t)
        return QK_PDN_OK;
    if (*t == '$') /* a NAG glued to nothing else */
        return QK_PDN_OK;
    if (numeric_move(t)) /* "1.32-28" */
        return fail(r, QK_PDN_ESYNTAX, line, QK_PDN_M_NUMERIC, t);
    size_t m = strlen(t);
    while (m > 0 && (t[m - 1] == '!' || t[m - 1] == '?'))
        t[--m] = '\0';
    if (!move_shape(t))
        return fail(r, QK_PDN_ESYNTAX, line, QK_PDN_M_NOT_MOVE, tok);
    if (r->ph == PH_DONE)
        return fail(r, QK_PDN_EAFTER, line, QK_PDN_M_MOVE_AFTER, t);
    int rc = qk_pdn_add_move(g, t, -1);
    if (rc != QK_PDN_OK)
        return fail(r, rc == QK_PDN_ENOMEM ? rc : QK_PDN_ESYNTAX, line, QK_PDN_M_MOVE_KEEP, t);
    g->move_line[g->nmoves - 1] = line;
    r->ph = PH_MOVES;
    return QK_PDN_OK;
}

/* NUL bytes and invalid UTF-8 (overlong forms, surrogates, > U+10FFFF),
 * with the line they are on; 0 when the text is clean. */
static int bad_bytes(const unsigned char *s, size_t len, int *line, int *what)
{
    *line = 1;
    for (size_t i = 0; i < len;) {
        unsigned c = s[i];
        if (c == '\n')
            (*line)++;
        if (c == 0) {
            *what = QK_PDN_M_NUL_BYTE;
            return -1;
        }
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t k = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC2 ? 1 : 0;
        unsigned cp = c & (0x3F >> k);
        if (k == 0 || c > 0xF4 || i + k >= len)
            goto bad;
        for (size_t j = 1; j <= k; j++) {
            if ((s[i + j] & 0xC0) != 0x80)
                goto bad;
            cp = cp << 6 | (s[i + j] & 0x3F);
        }
        if ((k == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
            (k == 3 && (cp < 0x10000 || cp > 0x10FFFF)))
            goto bad;
        i += k + 1;
        continue;
    bad:
        *what = QK_PDN_M_BAD_UTF8;
        return -1;
    }
    return 0;
}

int qk_pdn_read(const char *text, size_t len, qk_pdn_record **recs, size_t *n, qk_pdn_error *err)
{
    if (err)
        memset(err, 0, sizeof *err);
    if (recs)
        *recs = NULL;
    if (n)
        *n = 0;
    if (!text || !recs || !n) {
        qk_pdn_fail(err, QK_PDN_EINVAL, 0, -1, QK_PDN_M_NULL_ARG);
        return QK_PDN_EINVAL;
    }
    if (err)
        err->ply = -1;
    if (len > QK_PDN_MAX_TEXT) {
        char got[24], max[24];
        snprintf(got, sizeof got, "%zu", len);
        snprintf(max, sizeof max, "%u", QK_PDN_MAX_TEXT);
        qk_pdn_fail(err, QK_PDN_ETOOBIG, 0, -1, QK_PDN_M_TOO_BIG, got, max);
        return QK_PDN_ETOOBIG;
    }
    int bad_line;
    int what;
    if (bad_bytes((const unsigned char *)text, len, &bad_line, &what) < 0) {
        qk_pdn_fail(err, QK_PDN_ESYNTAX, bad_line, -1, what);
        return QK_PDN_ESYNTAX;
    }
    rd r = {.s = text, .len = len, .line = 1, .err = err};
    int rc = QK_PDN_OK;
    bool line_start = true;
    while (rc == QK_PDN_OK && r.i < len) {
        char c = text[r.i];
        if (c == '\n') {
            r.line++;
            r.i++;
            line_start = true;
            continue;
        }
        if (blank(c)) {
            r.i++;
            continue;
        }
        /* ';' comments and PGN's '%' escape lines run to the end of the
         * line. */
        if (c == ';' || (c == '%' && line_start)) {
            while (r.i < len && text[r.i] != '\n')
                r.i++;
            continue;
        }
        line_start = false;
        if (c == '[')
            rc = read_tag(&r);
        else if (c == '{')
            rc = read_comment(&r);
        else if (c == '(')
            rc = skip_variation(&r);
        else if (c == '$') {
            for (r.i++; r.i < len && text[r.i] >= '0' && text[r.i] <= '9';)
                r.i++;
        } else
            rc = read_token(&r);
    }
    if (rc == QK_PDN_OK)
        rc = close_game(&r);
    if (rc == QK_PDN_OK && r.n == 0) {
        qk_pdn_fail(err, QK_PDN_ESYNTAX, 1, -1, QK_PDN_M_NO_GAME);
        rc = QK_PDN_ESYNTAX;
    }
    for (size_t k = 0; rc == QK_PDN_OK && k < r.n; k++) {
        qk_pdn_outcome out;
        rc = qk_pdn_validate(&r.recs[k], &out, err);
        if (rc != QK_PDN_OK && err)
            err->record = k;
    }
    if (rc != QK_PDN_OK) {
        qk_pdn_free_all(r.recs, r.n);
        return rc;
    }
    *recs = r.recs;
    *n = r.n;
    return QK_PDN_OK;
}
