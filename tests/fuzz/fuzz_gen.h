/*
 * The request generator of fuzz_server_id.c: one JSON request line whose
 * validity is known by construction, driven by the fuzz input as a stream
 * of choices (what it writes and why: that file's header comment). Only
 * that target includes this header; the id it writes comes back in a rid,
 * as written and as decoded, to match the answers against.
 */
#ifndef QK_FUZZ_GEN_H
#define QK_FUZZ_GEN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fuzz_util.h"

#define LINE_LIMIT 65536 /* docs/protocol.md section 1, limits.line_bytes */
#define MAX_DEPTH_GEN 5000

/* ---- small helpers -------------------------------------------------------- */

static long long ms_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

typedef struct buf {
    char *p;
    size_t len, cap;
} buf;

static void buf_reserve(buf *b, size_t more)
{
    if (b->cap - b->len >= more + 1)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < more + 1)
        cap *= 2;
    b->p = realloc(b->p, cap);
    fz_check(b->p != NULL, "out of memory");
    b->cap = cap;
}

static void buf_add(buf *b, const void *s, size_t n)
{
    buf_reserve(b, n);
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void buf_str(buf *b, const char *s)
{
    buf_add(b, s, strlen(s));
}
static void buf_ch(buf *b, char c)
{
    buf_add(b, &c, 1);
}

/* Append code point cp (no surrogate, <= 0x10FFFF) as UTF-8. */
static void buf_utf8(buf *b, uint32_t cp)
{
    char u[4];
    size_t n;
    if (cp < 0x80) {
        u[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        u[0] = (char)(0xC0 | cp >> 6);
        u[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        u[0] = (char)(0xE0 | cp >> 12);
        u[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        u[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        u[0] = (char)(0xF0 | cp >> 18);
        u[1] = (char)(0x80 | (cp >> 12 & 0x3F));
        u[2] = (char)(0x80 | (cp >> 6 & 0x3F));
        u[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    buf_add(b, u, n);
}

/* ---- the generator --------------------------------------------------------- */

/* The input as a stream of choices; 0 once it is used up, which always
 * picks the shortest way out, so generation ends. */
typedef struct src {
    const uint8_t *p;
    size_t n, i;
} src;

static unsigned u8(src *s)
{
    return s->i < s->n ? s->p[s->i++] : 0;
}
static unsigned u16(src *s)
{
    return u8(s) << 8 | u8(s);
}

typedef struct gen {
    src *s;
    buf out;         /* the line */
    size_t budget;   /* the most bytes the line may take */
    size_t reserve;  /* bytes still owed: closing brackets, the id at the end */
    unsigned ws;     /* whitespace style after ':' and ',' (0: none) */
    bool session_op; /* a "type" of login, logout or register was written */
} gen;

static size_t room(const gen *g)
{
    size_t used = g->out.len + g->reserve;
    return used < g->budget ? g->budget - used : 0;
}

static void put(gen *g, const char *s)
{
    buf_str(&g->out, s);
}

/* Optional JSON whitespace (RFC 8259 section 2; never LF, which ends a TCP
 * line). */
static void gws(gen *g)
{
    if (!g->ws || room(g) < 4)
        return;
    static const char *const w[] = {"", " ", "\t", "  ", " \t ", "\r"};
    put(g, w[g->ws % (sizeof w / sizeof *w)]);
}

/* clang-format off */
static const char *const ops[] = {
    "hello", "ping", "register", "login", "logout", "challenge", "accept", "decline", "cancel",
    "challenges", "seeks", "lobby", "games", "export", "import", "game", "move", "resign",
    "subscribe", "unsubscribe", "users", "user", "leaderboard", "hint", "rematch", "notifications",
    "read", "vacation", "draw", "abort", "debug_clock", "class_create", "class_join",
    "class_add_students", "class_reset_password", "class", "classes", "tournament_create",
    "tournament_join", "tournament_withdraw", "tournament_start", "tournament_pair",
    "tournament_result", "tournament_forbid", "tournament", "tournaments", "tournament_standings",
    /* not ops: unknown_op */
    "Ping", "PING", "", "pong", "ping ", "hello\\t", "op", "event", "ok", "error", "ping2",
};
/* clang-format on */
#define N_OPS (sizeof ops / sizeof *ops)

/* clang-format off */
static const char *const fields[] = {
    "type", "version", "client", "ts", "username", "password", "bot", "token", "to", "variant",
    "color", "time_control", "kind", "initial", "increment", "days", "position", "rated",
    "rating_min", "rating_max", "challenge", "game", "ply", "move", "path", "status", "turn",
    "user", "opponent", "result", "since", "until", "tournament", "imported", "limit", "before",
    "after", "format", "pdn", "unread", "ids", "all", "action", "reason", "message", "on", "hours",
    "name", "code", "class", "students", "system", "rounds", "double", "bots", "start_mode",
    "pairer", "mine", "my_turn", "ms", "online", "next",
    /* case variants and near misses of real keys */
    "ID", "Id", "iD", "Type", "TYPE", "Game", "PLY", "ids ", " id", "id ", "_id", "idd",
};
/* clang-format on */
#define N_FIELDS (sizeof fields / sizeof *fields)

/* clang-format off */
static const char *const words[] = {
    "alquerque", "alquerque-traditional", "alquerque-brainking", "alquerque-stoep-short",
    "alquerque-stoep-long", "alquerkonane-8x8", "alquerkonane-6x4", "alquerkonane-2x2",
    "alquerkonane-12x12", "white", "black", "random", "draw", "offer", "accept", "decline",
    "unlimited", "correspondence", "live", "corr:3", "live:300+5", "active", "finished", "aborted",
    "d2-c3", "b4xd2", "e3xc1xe1", "a1", "c3", "fuzzer", "fuzzer-password", "alice", "computer-1",
    "pdn", "json", "round_robin", "swiss", "builtin", "external", "auto", "organiser",
    "bbbbb/bbbbb/ww.bb/wwwww/wwwww w 0 -", "[Event \"x\"]\n1. b2-c3 *", "9VWH-V6QV", "null", "true",
    "1", "-", "",
};
/* clang-format on */
#define N_WORDS (sizeof words / sizeof *words)

/* clang-format off */
static const char *const numbers[] = {
    "0", "1", "2", "-1", "-0", "0.0", "-0.0", "1.5", "0.5", "1e2", "1E+2", "1e-2", "1E-400",
    "1e300", "-1e300", "1e308", "1.7976931348623157e308", "1e309", "1e999", "-1e999", "4.9e-324",
    "2.2250738585072014e-308", "9007199254740991", "9007199254740992", "9007199254740993",
    "18446744073709551615", "18446744073709551616", "-9223372036854775808", "4294967296",
    "2147483647", "2147483648", "1000000000000000000000", "0.1", "100", "200", "16", "17", "65536",
    "3.0", "1.0e0",
};
/* clang-format on */
#define N_NUMBERS (sizeof numbers / sizeof *numbers)

/* A JSON number of the RFC 8259 grammar, from the input: sign, digits
 * (no leading zero), fraction, exponent, up to a few hundred digits. */
static void gen_number(gen *g)
{
    unsigned k = u8(g->s);
    if (k < 160 || room(g) < 900) {
        put(g, numbers[k % N_NUMBERS]);
        return;
    }
    if (k & 1)
        put(g, "-");
    size_t nd = 1 + u8(g->s) % 40 * (k & 2 ? 10 : 1);
    unsigned d0 = u8(g->s) % 10;
    buf_ch(&g->out, (char)('0' + d0));
    for (size_t i = 1; i < nd && d0; i++)
        buf_ch(&g->out, (char)('0' + u8(g->s) % 10));
    if (k & 4) {
        put(g, ".");
        size_t nf = 1 + u8(g->s) % 30;
        for (size_t i = 0; i < nf; i++)
            buf_ch(&g->out, (char)('0' + u8(g->s) % 10));
    }
    if (k & 8) {
        put(g, k & 16 ? "e" : "E");
        unsigned sg = u8(g->s) % 3;
        put(g, sg == 0 ? "" : sg == 1 ? "+" : "-");
        char e[16];
        snprintf(e, sizeof e, "%u", u16(g->s) % (k & 32 ? 100000 : 400));
        put(g, e);
    }
}

/* A JSON string from the input into g->out; its decoded bytes (UTF-8) go
 * to dec when not NULL. maxlen bounds the decoded length roughly. Every
 * piece is valid by construction: printable ASCII but '"' and '\\' as
 * itself, the short escapes, \uXXXX of a non-surrogate, non-zero BMP code
 * point (hex digits of either case), escaped surrogate pairs, raw UTF-8 of
 * 2, 3 and 4 bytes, long runs. */
static void gen_string(gen *g, buf *dec, size_t maxlen)
{
    buf tmp = {0};
    if (!dec)
        dec = &tmp;
    put(g, "\"");
    unsigned kind = u8(g->s);
    if (kind < 96) { /* a word */
        const char *w = kind & 1 ? words[u8(g->s) % N_WORDS] : fields[u8(g->s) % N_FIELDS];
        for (const char *c = w; *c; c++) {
            if (*c == '"' || *c == '\\') {
                buf_ch(&g->out, '\\');
                buf_ch(&g->out, *c);
            } else if (*c == '\n') {
                put(g, "\\n");
            } else {
                buf_ch(&g->out, *c);
            }
            buf_ch(dec, *c);
        }
        goto done;
    }
    size_t n = u8(g->s) % 24;
    for (size_t i = 0; i < n && dec->len < maxlen && room(g) > 16; i++) {
        unsigned c = u8(g->s);
        switch (c % 9) {
        case 0:
        case 1: { /* printable ASCII */
            char ch = (char)(0x20 + c % 95);
            if (ch == '"' || ch == '\\')
                ch = 'q';
            buf_ch(&g->out, ch);
            buf_ch(dec, ch);
            break;
        }
        case 2: { /* a short escape */
            static const char esc[] = "\"\\/bfnrt";
            static const char val[] = "\"\\/\b\f\n\r\t";
            unsigned e = c / 9 % 8;
            buf_ch(&g->out, '\\');
            buf_ch(&g->out, esc[e]);
            buf_ch(dec, val[e]);
            break;
        }
        case 3: { /* \uXXXX, BMP, not a surrogate, not zero */
            uint32_t cp = u16(g->s);
            if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF))
                cp = 0x00E9;
            char e[8];
            snprintf(e, sizeof e, c & 0x80 ? "\\u%04X" : "\\u%04x", (unsigned)cp);
            put(g, e);
            buf_utf8(dec, cp);
            break;
        }
        case 4: { /* an escaped surrogate pair */
            uint32_t cp = 0x10000 + ((uint32_t)u16(g->s) << 4 | u8(g->s) % 16) % 0x100000;
            uint32_t hi = 0xD800 + ((cp - 0x10000) >> 10), lo = 0xDC00 + ((cp - 0x10000) & 0x3FF);
            char e[16];
            snprintf(e, sizeof e, c & 0x80 ? "\\u%04X\\u%04X" : "\\u%04x\\u%04x", (unsigned)hi,
                     (unsigned)lo);
            put(g, e);
            buf_utf8(dec, cp);
            break;
        }
        case 5: { /* raw 2- or 3-byte UTF-8 */
            uint32_t cp = c & 0x80 ? 0x80 + u8(g->s) % 0x780 : 0x800 + u16(g->s) % 0xF800;
            if (cp >= 0xD800 && cp <= 0xDFFF)
                cp = 0xFFFD;
            buf tmpc = {0};
            buf_utf8(&tmpc, cp);
            buf_add(&g->out, tmpc.p, tmpc.len);
            buf_add(dec, tmpc.p, tmpc.len);
            free(tmpc.p);
            break;
        }
        case 6: { /* raw 4-byte UTF-8 */
            uint32_t cp = 0x10000 + ((uint32_t)u16(g->s) << 4 | u8(g->s) % 16) % 0x100000;
            buf tmpc = {0};
            buf_utf8(&tmpc, cp);
            buf_add(&g->out, tmpc.p, tmpc.len);
            buf_add(dec, tmpc.p, tmpc.len);
            free(tmpc.p);
            break;
        }
        case 7: { /* a long run, up to the room left */
            size_t len = (size_t)u16(g->s) * (c & 0x80 ? 1 : 16);
            size_t r = room(g) > 16 ? room(g) - 16 : 0;
            if (len > r)
                len = r;
            if (len > maxlen)
                len = maxlen;
            char ch = (char)('a' + c / 9 % 26);
            buf_reserve(&g->out, len);
            memset(g->out.p + g->out.len, ch, len);
            g->out.len += len;
            g->out.p[g->out.len] = '\0';
            buf_reserve(dec, len);
            memset(dec->p + dec->len, ch, len);
            dec->len += len;
            dec->p[dec->len] = '\0';
            break;
        }
        default: { /* a field name, as itself */
            const char *w = fields[u8(g->s) % N_FIELDS];
            buf_str(&g->out, w);
            buf_str(dec, w);
            break;
        }
        }
    }
done:
    put(g, "\"");
    free(tmp.p);
}

/* A key: a real field, a case variant, or any string. Never one that
 * decodes to "id" (top is the request object; nested objects may have
 * "id" keys). */
static void gen_key(gen *g, bool top, buf *dec)
{
    dec->len = 0;
    if (dec->p)
        dec->p[0] = '\0';
    unsigned k = u8(g->s);
    if (k < 200) {
        const char *f = fields[k % N_FIELDS];
        if (!top && k % 7 == 0)
            f = "id";
        put(g, "\"");
        put(g, f);
        put(g, "\"");
        buf_str(dec, f);
        return;
    }
    gen_string(g, dec, 64);
    if (top && dec->len == 2 && memcmp(dec->p, "id", 2) == 0) {
        g->out.len--; /* the closing quote */
        put(g, "x\"");
        buf_ch(dec, 'x');
    }
}

static void gen_value(gen *g, unsigned depth);

/* A chain nested 1..5000 levels deep (the deep member): arrays, objects or
 * a mix, optionally with a sibling at each level, a scalar or an empty
 * container inside. The request object is level 1, so the chain's levels
 * start at 2. */
static void gen_deep(gen *g)
{
    unsigned mode = u8(g->s);
    size_t d;
    switch (mode % 5) {
    case 0:
        d = 1 + u8(g->s) % 24; /* around the 16-level limit */
        break;
    case 1:
        d = 990 + u8(g->s) % 20; /* around cJSON's 1,000 */
        break;
    case 2:
        d = 4990 + u8(g->s) % 11;
        break;
    default:
        d = 1 + u16(g->s) % MAX_DEPTH_GEN;
        break;
    }
    unsigned shape = u8(g->s);
    bool sib = mode & 0x80;
    /* The most a level costs: {"k":0,"k2": and its closing brace. */
    size_t per = sib ? 13 : 7;
    size_t r = room(g) > 64 ? room(g) - 64 : 0;
    if (d > r / per)
        d = r / per;
    if (d == 0) {
        put(g, "[]");
        return;
    }
    char *st = malloc(d);
    fz_check(st != NULL, "out of memory");
    unsigned pattern = u8(g->s);
    for (size_t i = 0; i < d; i++) {
        bool obj;
        switch (shape % 4) {
        case 0:
            obj = false;
            break;
        case 1:
            obj = true;
            break;
        case 2:
            obj = i & 1;
            break;
        default:
            obj = pattern >> (i % 8) & 1;
            break;
        }
        st[i] = obj ? '}' : ']';
        if (obj)
            put(g, sib ? "{\"a\":0,\"b\":" : "{\"a\":");
        else
            put(g, sib ? "[0," : "[");
        g->reserve += 1;
    }
    switch (shape / 4 % 4) {
    case 0:
        put(g, "1");
        break;
    case 1:
        put(g, "{}");
        break;
    case 2:
        put(g, "[]");
        break;
    default:
        put(g, "\"x\"");
        break;
    }
    for (size_t i = d; i-- > 0;) {
        buf_ch(&g->out, st[i]);
        g->reserve -= 1;
    }
    free(st);
}

/* Members of an object (the '{' is written, the '}' is not). Keys may
 * repeat on purpose (bad_request, with the id). */
static void gen_members(gen *g, unsigned depth, bool top, unsigned n, bool *comma)
{
    buf key = {0}, prev = {0};
    for (unsigned i = 0; i < n && room(g) > 32; i++) {
        if (*comma) {
            put(g, ",");
            gws(g);
        }
        *comma = true;
        unsigned k = u8(g->s);
        if (prev.len && k % 11 == 0 && !(top && strcmp(prev.p, "id") == 0)) {
            /* the previous key again, written the same way */
            put(g, "\"");
            for (size_t j = 0; j < prev.len; j++) {
                unsigned char c = (unsigned char)prev.p[j];
                char e[8];
                if (c < 0x20 || c == '"' || c == '\\') {
                    snprintf(e, sizeof e, "\\u%04x", c);
                    put(g, e);
                } else {
                    buf_ch(&g->out, (char)c);
                }
            }
            put(g, "\"");
        } else {
            gen_key(g, top, &key);
            prev.len = 0;
            buf_add(&prev, key.p ? key.p : "", key.len);
        }
        put(g, ":");
        gws(g);
        if (top && prev.len == 4 && memcmp(prev.p, "type", 4) == 0 && k % 4) {
            /* an op name, more often than anything else */
            const char *op = ops[u8(g->s) % N_OPS];
            if (strcmp(op, "login") == 0 || strcmp(op, "logout") == 0 ||
                strcmp(op, "register") == 0)
                g->session_op = true;
            put(g, "\"");
            put(g, op);
            put(g, "\"");
        } else if (k % 13 == 1) {
            gen_deep(g);
        } else {
            gen_value(g, depth + 1);
        }
    }
    free(key.p);
    free(prev.p);
}

static void gen_value(gen *g, unsigned depth)
{
    unsigned k = u8(g->s);
    if (room(g) < 40 || depth > 20)
        k %= 5;
    switch (k % 10) {
    case 0:
        put(g, k & 0x10 ? "null" : k & 0x20 ? "true" : "false");
        break;
    case 1:
    case 2:
        gen_number(g);
        break;
    case 3:
    case 4:
        gen_string(g, NULL, room(g));
        break;
    case 5:
    case 6: {
        put(g, "[");
        gws(g);
        g->reserve += 1;
        unsigned n = u8(g->s) % 6;
        for (unsigned i = 0; i < n && room(g) > 24; i++) {
            if (i) {
                put(g, ",");
                gws(g);
            }
            gen_value(g, depth + 1);
        }
        g->reserve -= 1;
        put(g, "]");
        break;
    }
    case 7:
    case 8: {
        put(g, "{");
        gws(g);
        g->reserve += 1;
        bool comma = false;
        gen_members(g, depth, false, u8(g->s) % 6, &comma);
        g->reserve -= 1;
        put(g, "}");
        break;
    }
    default:
        gen_deep(g);
        break;
    }
}

/* The request's id, by construction: its text and what it decodes to. */
typedef struct rid {
    bool is_str;
    uint64_t num;
    buf text; /* as written on the line */
    buf dec;  /* a string id's decoded bytes */
} rid;

static bool g_print;
static uint64_t g_seq; /* makes ids (and sentinels) unique per exchange */

static void gen_id(gen *g, rid *id)
{
    unsigned k = u8(g->s);
    id->text.len = id->dec.len = 0;
    if (k % 3 != 2) {
        static const uint64_t edge[] = {0,
                                        1,
                                        9007199254740991ull,
                                        9007199254740990ull,
                                        2147483647,
                                        2147483648ull,
                                        4294967295ull,
                                        4294967296ull,
                                        1000000000000000ull};
        id->is_str = false;
        if (k % 3 == 0)
            id->num = g_seq;
        else if (k & 0x80)
            id->num = edge[u8(g->s) % (sizeof edge / sizeof *edge)];
        else
            id->num = ((uint64_t)u16(g->s) << 37 ^ (uint64_t)u16(g->s) << 16 ^ u16(g->s)) &
                      ((1ull << 53) - 1);
        char t[32];
        snprintf(t, sizeof t, "%llu", (unsigned long long)id->num);
        buf_str(&id->text, t);
        return;
    }
    /* A string id: a unique prefix, then anything the input writes. */
    id->is_str = true;
    gen sub = {.s = g->s, .budget = g->budget / 2};
    char pre[32];
    snprintf(pre, sizeof pre, "r%llu", (unsigned long long)g_seq);
    buf_str(&id->dec, pre);
    if (k & 0x80) {
        gen_string(&sub, &id->dec, 4096);
        /* "r7" + the generated string: splice the prefix after the quote */
        buf_str(&id->text, "\"");
        buf_str(&id->text, pre);
        buf_add(&id->text, sub.out.p + 1, sub.out.len - 1);
    } else {
        buf_str(&id->text, "\"");
        buf_str(&id->text, pre);
        buf_str(&id->text, "\"");
    }
    free(sub.out.p);
}

/* Line sizes: most as the input makes them, some padded with whitespace
 * before the closing brace to the largest allowed size or just past it. */
enum { SZ_FREE, SZ_EXACT, SZ_OVER1, SZ_OVER };

/* One request line into g->out. */
static void gen_line(gen *g, rid *id, unsigned size_mode)
{
    /* Slack for the few bytes a last token may pass room() by. */
    g->budget = LINE_LIMIT - 512;
    g->ws = u8(g->s) % 8;
    if (g->ws > 5)
        g->ws = 0;
    gen_id(g, id);
    unsigned n = u8(g->s) % 10;
    unsigned at = u8(g->s) % (n + 1); /* where the id goes among the members */
    put(g, "{");
    gws(g);
    g->reserve = 1 + 6 + id->text.len + 8;
    bool comma = false;
    gen_members(g, 1, true, at, &comma);
    if (comma) {
        put(g, ",");
        gws(g);
    }
    put(g, "\"id\"");
    gws(g);
    put(g, ":");
    gws(g);
    buf_add(&g->out, id->text.p, id->text.len);
    g->reserve = 1;
    comma = true;
    gen_members(g, 1, true, n - at, &comma);
    g->reserve = 0;
    size_t target = size_mode == SZ_EXACT   ? LINE_LIMIT
                    : size_mode == SZ_OVER1 ? LINE_LIMIT + 1
                    : size_mode == SZ_OVER  ? LINE_LIMIT + 1 + u16(g->s)
                                            : 0;
    if (target > g->out.len + 1) {
        size_t pad = target - g->out.len - 1;
        buf_reserve(&g->out, pad);
        memset(g->out.p + g->out.len, ' ', pad);
        if (pad > 2)
            g->out.p[g->out.len + pad / 2] = '\t';
        g->out.len += pad;
    }
    put(g, "}");
    fz_check(target == 0 || g->out.len == target, "padding missed: %zu for %zu", g->out.len,
             target);
    fz_check(size_mode != SZ_FREE || g->out.len <= LINE_LIMIT, "generated %zu bytes", g->out.len);
}

#endif
