/*
 * qk_pdn: the record, the writer and the validator (see qk_pdn.h); the
 * reader is qk_pdn_read.c. The writer builds its text in a growable string
 * (doubling), so a caller never sizes a buffer; the validator keeps one
 * position and replays forward, never trusting a stored string.
 */
#include "qk_pdn.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qk_pdn_int.h"

/* ---- errors --------------------------------------------------------- */

/* Every message of the reader and the validator (qk_pdn_msg, qk_pdn.h):
 * its English format and which arguments are words a client translates
 * (kinds: QK_PDN_ARG_*, by argument). */
static const struct {
    const char *fmt;
    unsigned char kind[QK_PDN_NARGS];
} msgs[QK_PDN_M_COUNT] = {
    [QK_PDN_M_NONE] = {"", {0}},
    [QK_PDN_M_NOMEM] = {QK_N_("out of memory"), {0}},
    [QK_PDN_M_NULL_ARG] = {QK_N_("NULL argument"), {0}},
    [QK_PDN_M_PLY_RANGE] = {QK_N_("ply %s out of range 0..%s"), {0}},
    [QK_PDN_M_TOO_BIG] = {QK_N_("text of %s bytes is over the limit of %s"), {0}},
    [QK_PDN_M_NUL_BYTE] = {QK_N_("NUL byte in the text"), {0}},
    [QK_PDN_M_BAD_UTF8] = {QK_N_("invalid UTF-8 in the text"), {0}},
    [QK_PDN_M_NO_GAME] = {QK_N_("no game in the text"), {0}},
    [QK_PDN_M_TAG_NAME] = {QK_N_("malformed tag: bad tag name '%s'"), {0}},
    [QK_PDN_M_TAG_QUOTES] = {QK_N_("malformed tag %s: value must be in quotes"), {0}},
    [QK_PDN_M_TAG_UNTERMINATED] = {QK_N_("malformed tag %s: unterminated value"), {0}},
    [QK_PDN_M_TAG_BRACKET] = {QK_N_("malformed tag %s: missing ']'"), {0}},
    [QK_PDN_M_TAG_TWICE] = {QK_N_("tag %s given twice"), {0}},
    [QK_PDN_M_TAG_DATE] = {QK_N_("malformed tag Date: '%s' is not YYYY.MM.DD"), {0}},
    [QK_PDN_M_TAG_RESULT] =
        {QK_N_("malformed tag: Result must be 1-0, 0-1, 1/2-1/2, 2-0, 0-2, 1-1 or *"), {0}},
    [QK_PDN_M_TAG_PLYCOUNT] = {QK_N_("malformed tag: PlyCount must be a number"), {0}},
    [QK_PDN_M_TAG_VARIANT_LONG] = {QK_N_("malformed tag: Variant name too long"), {0}},
    [QK_PDN_M_TAG_CONTROL] = {QK_N_("malformed tag: control character in the value"), {0}},
    [QK_PDN_M_PLYCOUNT_MOVES] = {QK_N_("PlyCount %s but the game has %s moves"), {0}},
    [QK_PDN_M_COMMENT_OPEN] = {QK_N_("unterminated comment '{'"), {0}},
    [QK_PDN_M_CLOCK] = {QK_N_("malformed clock comment (expected [%%clk h:mm:ss])"), {0}},
    [QK_PDN_M_VARIATION_OPEN] = {QK_N_("unterminated variation '('"), {0}},
    [QK_PDN_M_TOKEN_LONG] = {QK_N_("token too long in the movetext"), {0}},
    [QK_PDN_M_UNEXPECTED] = {QK_N_("unexpected '%s'"), {0}},
    [QK_PDN_M_RESULT_AFTER] = {QK_N_("result '%s' after the result"), {0}},
    [QK_PDN_M_RESULT_TAG_MOVES] = {QK_N_("Result tag %s but the moves end with %s"), {0}},
    [QK_PDN_M_NOT_MOVE_NUMBER] = {QK_N_("not a move or move number: '%s'"), {0}},
    [QK_PDN_M_NOT_MOVE] = {QK_N_("not a move: '%s'"), {0}},
    [QK_PDN_M_MOVE_AFTER] = {QK_N_("move '%s' after the result"), {0}},
    [QK_PDN_M_MOVE_KEEP] = {QK_N_("cannot keep move '%s'"), {0}},
    [QK_PDN_M_NUMERIC] = {QK_N_("'%s' is numbered-square notation (other draughts programs); a "
                                "move names RULES.md's points, like b2-c3 or b4xd2 (README: "
                                "\"Game record files\")"),
                          {0}},
    [QK_PDN_M_BOTH_LOSE] = {QK_N_("Result 0-0 (both sides lose) is not a result of these games; * "
                                  "is an unfinished game"),
                            {0}},
    [QK_PDN_M_VARIANT] = {QK_N_("unknown variant '%s'"), {0}},
    [QK_PDN_M_FEN] = {QK_N_("FEN is not a position of %s: %s"), {0, QK_PDN_ARG_RULES}},
    [QK_PDN_M_OVER_WHITE] = {QK_N_("move '%s' (move %s, White) after the game is over (%s)"),
                             {0, 0, QK_PDN_ARG_REASON}},
    [QK_PDN_M_OVER_BLACK] = {QK_N_("move '%s' (move %s, Black) after the game is over (%s)"),
                             {0, 0, QK_PDN_ARG_REASON}},
    [QK_PDN_M_ILLEGAL_WHITE] = {QK_N_("illegal move '%s' (move %s, White)"), {0}},
    [QK_PDN_M_ILLEGAL_BLACK] = {QK_N_("illegal move '%s' (move %s, Black)"), {0}},
    [QK_PDN_M_MALFORMED_WHITE] = {QK_N_("malformed move '%s' (move %s, White)"), {0}},
    [QK_PDN_M_MALFORMED_BLACK] = {QK_N_("malformed move '%s' (move %s, Black)"), {0}},
    [QK_PDN_M_RESULT_RULES] =
        {QK_N_("Result %s contradicts the final position: the rules give %s (%s)"),
         {0, 0, QK_PDN_ARG_REASON}},
    [QK_PDN_M_TERM_RULES] = {QK_N_("Termination %s contradicts the final position: the rules "
                                   "give %s"),
                             {0, QK_PDN_ARG_REASON}},
    [QK_PDN_M_TERM_NOT_OVER] =
        {QK_N_("Termination %s contradicts the final position: the game is not over"), {0}},
    [QK_PDN_M_NO_DRAWS] = {QK_N_("Result %s: %s has no draws"), {0}},
};

const char *qk_pdn_msg_format(int msg)
{
    return msg > QK_PDN_M_NONE && msg < QK_PDN_M_COUNT && msgs[msg].fmt ? msgs[msg].fmt : "";
}

int qk_pdn_msg_arg_kind(int msg, int i)
{
    if (msg <= QK_PDN_M_NONE || msg >= QK_PDN_M_COUNT || i < 0 || i >= QK_PDN_NARGS)
        return QK_PDN_ARG_TEXT;
    return msgs[msg].kind[i];
}

/* How many arguments fmt takes: its "%s" and the highest "%N$s". */
static int fmt_nargs(const char *fmt)
{
    int n = 0, seq = 0;
    for (const char *p = fmt; *p; p++) {
        if (*p != '%')
            continue;
        p++;
        if (*p == 's')
            seq++;
        else if (*p >= '1' && *p <= '9' && p[1] == '$' && p[2] == 's' && *p - '0' > n)
            n = *p - '0';
        else if (!*p)
            break;
    }
    return seq > n ? seq : n;
}

char *qk_pdn_msg_render(const char *fmt, const char *const *args, int nargs, char *buf, size_t n)
{
    size_t k = 0;
    int next = 0;
    for (const char *p = fmt; *p; p++) {
        const char *put = NULL;
        char one[2] = {*p, '\0'};
        if (*p != '%') {
            put = one;
        } else if (p[1] == '%') {
            put = "%";
            p++;
        } else if (p[1] == 's') {
            put = next < nargs ? args[next] : "";
            next++;
            p++;
        } else if (p[1] >= '1' && p[1] <= '9' && p[2] == '$' && p[3] == 's') {
            int i = p[1] - '1';
            put = i < nargs ? args[i] : "";
            p += 3;
        } else {
            put = one;
        }
        for (; *put && k + 1 < n; put++)
            buf[k++] = *put;
    }
    if (n > 0)
        buf[k < n ? k : n - 1] = '\0';
    return buf;
}

void qk_pdn_fail(qk_pdn_error *err, int code, int line, long ply, int msg, ...)
{
    if (!err)
        return;
    err->code = code;
    err->line = line;
    err->ply = ply;
    err->msg = msg;
    memset(err->args, 0, sizeof err->args);
    const char *fmt = qk_pdn_msg_format(msg);
    int nargs = fmt_nargs(fmt);
    if (nargs > QK_PDN_NARGS)
        nargs = QK_PDN_NARGS;
    const char *args[QK_PDN_NARGS];
    va_list ap;
    va_start(ap, msg);
    for (int i = 0; i < nargs; i++) {
        const char *a = va_arg(ap, const char *);
        snprintf(err->args[i], sizeof err->args[i], "%s", a ? a : "");
        args[i] = err->args[i];
    }
    va_end(ap);
    int k = line > 0 ? snprintf(err->message, sizeof err->message, "line %d: ", line) : 0;
    if (k < 0 || (size_t)k >= sizeof err->message)
        k = 0;
    qk_pdn_msg_render(fmt, args, nargs, err->message + k, sizeof err->message - (size_t)k);
}

/* ---- the record ----------------------------------------------------- */

void qk_pdn_init(qk_pdn_record *r)
{
    memset(r, 0, sizeof *r);
    r->result = QK_RESULT_NONE;
    r->ply_count = -1;
}

void qk_pdn_free(qk_pdn_record *r)
{
    if (!r)
        return;
    char **fields[] = {&r->event, &r->site,         &r->date,        &r->round, &r->white,
                       &r->black, &r->time_control, &r->termination, &r->fen};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        free(*fields[i]);
    for (size_t i = 0; i < r->ntags; i++) {
        free(r->tags[i].name);
        free(r->tags[i].value);
    }
    free(r->tags);
    for (size_t i = 0; i < r->nmoves; i++)
        free(r->moves[i]);
    free(r->moves);
    free(r->clk);
    free(r->move_line);
    qk_pdn_init(r);
}

void qk_pdn_free_all(qk_pdn_record *recs, size_t n)
{
    if (!recs)
        return;
    for (size_t i = 0; i < n; i++)
        qk_pdn_free(&recs[i]);
    free(recs);
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* The field of a contract tag holding free text, or NULL. */
static char **text_field(qk_pdn_record *r, const char *name)
{
    static const struct {
        const char *name;
        size_t off;
    } map[] = {
        {"Event", offsetof(qk_pdn_record, event)},
        {"Site", offsetof(qk_pdn_record, site)},
        {"Date", offsetof(qk_pdn_record, date)},
        {"Round", offsetof(qk_pdn_record, round)},
        {"White", offsetof(qk_pdn_record, white)},
        {"Black", offsetof(qk_pdn_record, black)},
        {"FEN", offsetof(qk_pdn_record, fen)},
        {"TimeControl", offsetof(qk_pdn_record, time_control)},
        {"Termination", offsetof(qk_pdn_record, termination)},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(name, map[i].name) == 0)
            return (char **)((char *)r + map[i].off);
    return NULL;
}

int qk_pdn_result_parse(const char *s)
{
    if (strcmp(s, "1-0") == 0 || strcmp(s, "2-0") == 0)
        return QK_RESULT_WHITE;
    if (strcmp(s, "0-1") == 0 || strcmp(s, "0-2") == 0)
        return QK_RESULT_BLACK;
    if (strcmp(s, "1/2-1/2") == 0 || strcmp(s, "1-1") == 0)
        return QK_RESULT_DRAW;
    if (strcmp(s, "*") == 0)
        return QK_RESULT_NONE;
    return -1;
}

const char *qk_pdn_result_text(qk_result res)
{
    switch (res) {
    case QK_RESULT_WHITE:
        return "1-0";
    case QK_RESULT_BLACK:
        return "0-1";
    case QK_RESULT_DRAW:
        return "1/2-1/2";
    default:
        return "*";
    }
}

bool qk_pdn_name_ok(const char *name)
{
    if (!((name[0] >= 'A' && name[0] <= 'Z') || (name[0] >= 'a' && name[0] <= 'z')))
        return false;
    for (const char *p = name; *p; p++)
        if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
              *p == '_'))
            return false;
    return true;
}

int qk_pdn_set(qk_pdn_record *r, const char *name, const char *value)
{
    if (!r || !name || !value || !qk_pdn_name_ok(name))
        return QK_PDN_EINVAL;
    for (const unsigned char *p = (const unsigned char *)value; *p; p++)
        if (*p < 0x20 || *p == 0x7F)
            return QK_PDN_EINVAL;
    if (strcmp(name, "Result") == 0) {
        int res = qk_pdn_result_parse(value);
        if (res < 0)
            return QK_PDN_EINVAL;
        r->result = (qk_result)res;
        return QK_PDN_OK;
    }
    if (strcmp(name, "Variant") == 0) {
        if (strlen(value) >= sizeof r->variant)
            return QK_PDN_EINVAL;
        strcpy(r->variant, value);
        return QK_PDN_OK;
    }
    if (strcmp(name, "PlyCount") == 0) {
        long n = 0;
        if (!*value || strlen(value) > 9)
            return QK_PDN_EINVAL;
        for (const char *p = value; *p; p++) {
            if (*p < '0' || *p > '9')
                return QK_PDN_EINVAL;
            n = n * 10 + (*p - '0');
        }
        r->ply_count = n;
        return QK_PDN_OK;
    }
    char *copy = dup_str(value);
    if (!copy)
        return QK_PDN_ENOMEM;
    char **field = text_field(r, name);
    if (field) {
        free(*field);
        *field = copy;
        return QK_PDN_OK;
    }
    for (size_t i = 0; i < r->ntags; i++)
        if (strcmp(r->tags[i].name, name) == 0) {
            free(r->tags[i].value);
            r->tags[i].value = copy;
            return QK_PDN_OK;
        }
    char *ncopy = dup_str(name);
    qk_pdn_tag *t = ncopy ? realloc(r->tags, (r->ntags + 1) * sizeof *t) : NULL;
    if (!t) {
        free(ncopy);
        free(copy);
        return QK_PDN_ENOMEM;
    }
    r->tags = t;
    r->tags[r->ntags].name = ncopy;
    r->tags[r->ntags].value = copy;
    r->ntags++;
    return QK_PDN_OK;
}

const char *qk_pdn_get(const qk_pdn_record *r, const char *name)
{
    if (!r || !name)
        return NULL;
    if (strcmp(name, "Result") == 0)
        return qk_pdn_result_text(r->result);
    if (strcmp(name, "Variant") == 0)
        return r->variant[0] ? r->variant : NULL;
    if (strcmp(name, "PlyCount") == 0)
        return NULL; /* a number, not text: read r->ply_count */
    char **field = text_field((qk_pdn_record *)r, name);
    if (field)
        return *field;
    for (size_t i = 0; i < r->ntags; i++)
        if (strcmp(r->tags[i].name, name) == 0)
            return r->tags[i].value;
    return NULL;
}

int qk_pdn_add_move(qk_pdn_record *r, const char *text, long long clk_ms)
{
    if (!r || !text || !*text || strlen(text) >= QK_MOVE_STRLEN || strpbrk(text, " \t\r\n"))
        return QK_PDN_EINVAL;
    if (r->nmoves == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 64;
        char **m = realloc(r->moves, cap * sizeof *m);
        if (!m)
            return QK_PDN_ENOMEM;
        r->moves = m;
        long long *c = realloc(r->clk, cap * sizeof *c);
        if (!c)
            return QK_PDN_ENOMEM;
        r->clk = c;
        int *l = realloc(r->move_line, cap * sizeof *l);
        if (!l)
            return QK_PDN_ENOMEM;
        r->move_line = l;
        r->cap = cap;
    }
    char *copy = dup_str(text);
    if (!copy)
        return QK_PDN_ENOMEM;
    r->moves[r->nmoves] = copy;
    r->clk[r->nmoves] = clk_ms < 0 ? -1 : clk_ms;
    r->move_line[r->nmoves] = 0;
    r->nmoves++;
    return QK_PDN_OK;
}

/* ---- the writer ----------------------------------------------------- */

int qk_sb_put(qk_sb *b, const char *s, size_t n)
{
    if (b->failed)
        return -1;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = realloc(b->buf, cap);
        if (!p) {
            b->failed = true;
            return -1;
        }
        b->buf = p;
        b->cap = cap;
    }
    memcpy(b->buf + b->len, s, n);
    b->len += n;
    b->buf[b->len] = '\0';
    return 0;
}

static void sb_str(qk_sb *b, const char *s)
{
    qk_sb_put(b, s, strlen(s));
}

static void write_tag(qk_sb *b, const char *name, const char *value)
{
    sb_str(b, "[");
    sb_str(b, name);
    sb_str(b, " \"");
    for (const char *p = value; *p; p++) {
        if (*p == '"' || *p == '\\')
            qk_sb_put(b, "\\", 1);
        qk_sb_put(b, p, 1);
    }
    sb_str(b, "\"]\n");
}

/* Movetext with lines of at most QK_PDN_WIDTH columns: `unit` (a numbered
 * move, a move, a clock comment, the result) never splits. */
typedef struct wrap {
    qk_sb *b;
    size_t col;
} wrap;

static void wrap_unit(wrap *w, const char *unit)
{
    size_t n = strlen(unit);
    if (w->col > 0 && w->col + 1 + n > QK_PDN_WIDTH) {
        sb_str(w->b, "\n");
        w->col = 0;
    }
    if (w->col > 0) {
        sb_str(w->b, " ");
        w->col++;
    }
    sb_str(w->b, unit);
    w->col += n;
}

int qk_pdn_write(const qk_pdn_record *r, char **out, size_t *len)
{
    if (!r || !out)
        return QK_PDN_EINVAL;
    *out = NULL;
    qk_sb b = {0};
    write_tag(&b, "Event", r->event ? r->event : "?");
    write_tag(&b, "Site", r->site ? r->site : "?");
    write_tag(&b, "Date", r->date ? r->date : "????.??.??");
    write_tag(&b, "Round", r->round ? r->round : "?");
    write_tag(&b, "White", r->white ? r->white : "?");
    write_tag(&b, "Black", r->black ? r->black : "?");
    write_tag(&b, "Result", qk_pdn_result_text(r->result));
    write_tag(&b, "Variant", r->variant[0] ? r->variant : "alquerque");
    if (r->fen)
        write_tag(&b, "FEN", r->fen);
    if (r->time_control)
        write_tag(&b, "TimeControl", r->time_control);
    if (r->termination)
        write_tag(&b, "Termination", r->termination);
    char num[32];
    snprintf(num, sizeof num, "%zu", r->nmoves);
    write_tag(&b, "PlyCount", num);
    for (size_t i = 0; i < r->ntags; i++)
        write_tag(&b, r->tags[i].name, r->tags[i].value);
    sb_str(&b, "\n");

    wrap w = {&b, 0};
    for (size_t i = 0; i < r->nmoves; i++) {
        char unit[QK_MOVE_STRLEN + 32];
        if (i % 2 == 0)
            snprintf(unit, sizeof unit, "%zu. %s", i / 2 + 1, r->moves[i]);
        else
            snprintf(unit, sizeof unit, "%s", r->moves[i]);
        wrap_unit(&w, unit);
        if (r->clk && r->clk[i] >= 0) {
            long long s = r->clk[i] / 1000;
            snprintf(unit, sizeof unit, "{[%%clk %lld:%02lld:%02lld]}", s / 3600, s / 60 % 60,
                     s % 60);
            wrap_unit(&w, unit);
        }
    }
    wrap_unit(&w, qk_pdn_result_text(r->result));
    sb_str(&b, "\n\n");
    if (b.failed) {
        free(b.buf);
        return QK_PDN_ENOMEM;
    }
    *out = b.buf;
    if (len)
        *len = b.len;
    return QK_PDN_OK;
}

/* ---- the validator -------------------------------------------------- */

static int line_of(const qk_pdn_record *r, size_t i)
{
    return r->move_line && i < r->nmoves ? r->move_line[i] : 0;
}

/* A ply as people count moves (issue 24): move 2 for ply 3 of a game
 * White starts (the number counts pairs from the first mover's move,
 * qk_pdn_write()'s numbering), into buf; the side that made it picks the
 * message (..._WHITE or ..._BLACK). */
static void ply_number(size_t i, char *buf, size_t n)
{
    snprintf(buf, n, "%zu", i / 2 + 1);
}

int qk_pdn_replay(const qk_pdn_record *r, size_t ply, qk_pdn_state *st, qk_pdn_error *err)
{
    if (!r || !st || ply > r->nmoves) {
        char a[24], b[24];
        snprintf(a, sizeof a, "%zu", ply);
        snprintf(b, sizeof b, "%zu", r ? r->nmoves : 0);
        qk_pdn_fail(err, QK_PDN_EINVAL, 0, -1, QK_PDN_M_PLY_RANGE, a, b);
        return QK_PDN_EINVAL;
    }
    const char *vname = r->variant[0] ? r->variant : "alquerque";
    if (qk_variant_parse(vname, &st->variant) != QK_OK) {
        qk_pdn_fail(err, QK_PDN_EVARIANT, r->variant_line, -1, QK_PDN_M_VARIANT, vname);
        return QK_PDN_EVARIANT;
    }
    const qk_variant *v = &st->variant;
    if (r->fen) {
        const char *why = NULL;
        if (qk_pos_parse(v, r->fen, &st->pos, &why) != QK_OK) {
            qk_pdn_fail(err, QK_PDN_EFEN, r->fen_line, -1, QK_PDN_M_FEN, v->name,
                        why ? why : "malformed");
            return QK_PDN_EFEN;
        }
    } else {
        qk_variant_start(v, &st->pos);
    }
    st->ply = 0;
    st->has_last = false;
    for (size_t i = 0; i < ply; i++) {
        qk_result res;
        qk_reason why;
        char at[24];
        ply_number(i, at, sizeof at);
        bool white = st->pos.side == QK_WHITE;
        if (qk_pos_status(v, &st->pos, &res, &why)) {
            qk_pdn_fail(err, QK_PDN_EILLEGAL, line_of(r, i), (long)i,
                        white ? QK_PDN_M_OVER_WHITE : QK_PDN_M_OVER_BLACK, r->moves[i], at,
                        qk_reason_name(why));
            return QK_PDN_EILLEGAL;
        }
        int rc = qk_move_parse(v, &st->pos, r->moves[i], &st->last);
        if (rc != QK_OK) {
            int m = rc == QK_EILLEGAL ? (white ? QK_PDN_M_ILLEGAL_WHITE : QK_PDN_M_ILLEGAL_BLACK)
                                      : (white ? QK_PDN_M_MALFORMED_WHITE : QK_PDN_M_MALFORMED_BLACK);
            qk_pdn_fail(err, QK_PDN_EILLEGAL, line_of(r, i), (long)i, m, r->moves[i], at);
            return QK_PDN_EILLEGAL;
        }
        qk_undo u;
        qk_pos_make(v, &st->pos, &st->last, &u);
        st->ply = i + 1;
        st->has_last = true;
    }
    return QK_PDN_OK;
}

static bool rules_reason(qk_reason r)
{
    return r == QK_REASON_NO_PIECES || r == QK_REASON_NO_MOVES || r == QK_REASON_MOVE_LIMIT ||
           r == QK_REASON_SULTAN_MAJORITY;
}

int qk_pdn_validate(const qk_pdn_record *r, qk_pdn_outcome *out, qk_pdn_error *err)
{
    if (!r || !out) {
        qk_pdn_fail(err, QK_PDN_EINVAL, 0, -1, QK_PDN_M_NULL_ARG);
        return QK_PDN_EINVAL;
    }
    int rc = qk_pdn_replay(r, r->nmoves, &out->end, err);
    if (rc != QK_PDN_OK)
        return rc;
    const qk_variant *v = &out->end.variant;
    int term = r->termination ? qk_reason_parse(r->termination) : -1;
    const char *claimed = qk_pdn_result_text(r->result);
    qk_result res;
    qk_reason why;
    if (qk_pos_status(v, &out->end.pos, &res, &why)) {
        if (r->result != res) {
            qk_pdn_fail(err, QK_PDN_ERESULT, r->result_line, -1, QK_PDN_M_RESULT_RULES, claimed,
                        qk_pdn_result_text(res), qk_reason_name(why));
            return QK_PDN_ERESULT;
        }
        if (term >= 0 && rules_reason((qk_reason)term) && term != (int)why) {
            qk_pdn_fail(err, QK_PDN_ERESULT, r->result_line, -1, QK_PDN_M_TERM_RULES,
                        r->termination, qk_reason_name(why));
            return QK_PDN_ERESULT;
        }
        out->over = out->by_rules = true;
        out->result = res;
        out->reason = why;
        return QK_PDN_OK;
    }
    out->by_rules = false;
    if (r->result == QK_RESULT_NONE) {
        out->over = false;
        out->result = QK_RESULT_NONE;
        out->reason = QK_REASON_NONE;
        return QK_PDN_OK;
    }
    if (term >= 0 && rules_reason((qk_reason)term)) {
        qk_pdn_fail(err, QK_PDN_ERESULT, r->result_line, -1, QK_PDN_M_TERM_NOT_OVER,
                    r->termination);
        return QK_PDN_ERESULT;
    }
    if (r->result == QK_RESULT_DRAW && !qk_variant_has_draws(v)) {
        qk_pdn_fail(err, QK_PDN_ERESULT, r->result_line, -1, QK_PDN_M_NO_DRAWS, claimed, v->name);
        return QK_PDN_ERESULT;
    }
    out->over = true;
    out->result = r->result;
    if (term >= 0)
        out->reason = (qk_reason)term;
    else
        out->reason = r->result == QK_RESULT_DRAW ? QK_REASON_AGREEMENT : QK_REASON_RESIGN;
    return QK_PDN_OK;
}
