/*
 * qk_proto: see qk_proto.h. cJSON does the JSON; this file adds only the
 * checks cJSON does not make, where it is laxer than RFC 8259 or than
 * PROTOCOL.md (UTF-8 validity, control bytes, \u escapes and surrogates,
 * \u0000, the top-level value, numbers, duplicate keys, trailing bytes,
 * depth), done on the raw bytes before cJSON runs or on the parsed tree.
 */
#include "qk_proto.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const err_codes[] = {
    "none",
#define QK_X_CODE(e, code, msg) code,
    QK_ERRORS(QK_X_CODE)
#undef QK_X_CODE
};
static const char *const err_msgs[] = {
    "no error",
#define QK_X_MSG(e, code, msg) msg,
    QK_ERRORS(QK_X_MSG)
#undef QK_X_MSG
};

const char *qk_err_code(qk_err e)
{
    if ((int)e <= 0 || e >= QK_ERR__COUNT)
        return "internal";
    return err_codes[e];
}

const char *qk_err_message(qk_err e)
{
    if ((int)e <= 0 || e >= QK_ERR__COUNT)
        return err_msgs[QK_ERR_INTERNAL];
    return err_msgs[e];
}

qk_err qk_err_parse(const char *code)
{
    for (int e = 1; e < QK_ERR__COUNT; e++)
        if (code && strcmp(code, err_codes[e]) == 0)
            return (qk_err)e;
    return QK_ERR_NONE;
}

/* RFC 3629 UTF-8: no overlongs, no surrogates, nothing above U+10FFFF. */
static bool utf8_valid(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        if (c < 0x80) {
            if (c == 0)
                return false;
            i++;
            continue;
        }
        size_t need;
        uint32_t cp;
        if (c >= 0xC2 && c <= 0xDF) {
            need = 1;
            cp = c & 0x1F;
        } else if (c >= 0xE0 && c <= 0xEF) {
            need = 2;
            cp = c & 0x0F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            need = 3;
            cp = c & 0x07;
        } else {
            return false;
        }
        for (size_t k = 1; k <= need; k++) {
            if (i + k >= n || (s[i + k] & 0xC0) != 0x80)
                return false;
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        if ((need == 2 && cp < 0x800) || (need == 3 && cp < 0x10000) || cp > 0x10FFFF ||
            (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        i += need + 1;
    }
    return true;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* True when an object's members repeat a name. Pairwise for small objects;
 * sorted beyond, so a 64 KiB line of 6,000 keys costs n log n, not n^2
 * (a hostile line must not stall the loop). -1 on ENOMEM. */
static int has_dup_names(const cJSON *obj)
{
    size_t n = 0;
    for (const cJSON *c = obj->child; c; c = c->next)
        n++;
    if (n <= 16) {
        for (const cJSON *c = obj->child; c; c = c->next)
            for (const cJSON *d = c->next; d; d = d->next)
                if (c->string && d->string && strcmp(c->string, d->string) == 0)
                    return 1;
        return 0;
    }
    const char **names = malloc(n * sizeof *names);
    if (!names)
        return -1;
    size_t k = 0;
    for (const cJSON *c = obj->child; c; c = c->next)
        names[k++] = c->string ? c->string : "";
    qsort(names, n, sizeof *names, cmp_names);
    int dup = 0;
    for (size_t i = 1; i < n && !dup; i++)
        dup = strcmp(names[i - 1], names[i]) == 0;
    free(names);
    return dup;
}

/* Duplicate keys, over the parsed tree (depth was bounded before, so this
 * recursion is at most QK_PROTO_MAX_DEPTH deep). */
static qk_err check_tree(const cJSON *item, const char **why)
{
    if (!cJSON_IsObject(item) && !cJSON_IsArray(item))
        return QK_ERR_NONE;
    if (cJSON_IsObject(item)) {
        int dup = has_dup_names(item);
        if (dup < 0) {
            *why = "out of memory";
            return QK_ERR_INTERNAL;
        }
        if (dup) {
            *why = "a field is given twice";
            return QK_ERR_BAD_REQUEST;
        }
    }
    for (const cJSON *c = item->child; c; c = c->next) {
        qk_err e = check_tree(c, why);
        if (e)
            return e;
    }
    return QK_ERR_NONE;
}

/* RFC 8259 section 6 number grammar at s[i..n): -?(0|[1-9][0-9]*)
 * (.[0-9]+)?([eE][+-]?[0-9]+)?. Returns the index after the number, or 0
 * when the text is not a JSON number (cJSON accepts "01", for one). */
static size_t json_number_end(const char *s, size_t i, size_t n)
{
#define DIGIT(k) ((k) < n && s[k] >= '0' && s[k] <= '9')
    if (i < n && s[i] == '-')
        i++;
    if (i < n && s[i] == '0') {
        i++;
    } else if (DIGIT(i)) {
        while (DIGIT(i))
            i++;
    } else {
        return 0;
    }
    if (i < n && s[i] == '.') {
        i++;
        if (!DIGIT(i))
            return 0;
        while (DIGIT(i))
            i++;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        if (!DIGIT(i))
            return 0;
        while (DIGIT(i))
            i++;
    }
    if (DIGIT(i))
        return 0;
    return i;
#undef DIGIT
}

static int hex_digit(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* The four hex digits of a \u escape at s[i..i+4), RFC 8259 section 7;
 * -1 unless all four are hex digits. */
static long hex4(const char *s, size_t i, size_t n)
{
    if (i + 4 > n)
        return -1;
    long v = 0;
    for (size_t k = 0; k < 4; k++) {
        int d = hex_digit((unsigned char)s[i + k]);
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

/* The string escape starting at the backslash s[i]; returns the index of
 * its last byte, or 0 with *why set when RFC 8259 section 7 (or our
 * decisions on it) refuses it:
 *   - the escaped character must be one of " \ / b f n r t u (cJSON
 *     refuses the others too; checked here so the verdict is ours);
 *   - \u takes exactly four hex digits: cJSON's parse_hex4 reads a bad
 *     digit as the value 0 and so cut "carol\uX000" to "carol";
 *   - \u0000 is refused (PROTOCOL.md "Validation rules": no NUL);
 *   - surrogates (decision, documented in qk_proto.h): section 7 lets
 *     the grammar write a lone surrogate and section 8.2 says such text
 *     has unpredictable results; our strings are UTF-8 (RFC 3629 section 3
 *     has no encoding for a surrogate), so a high surrogate D800-DBFF must
 *     be followed at once by a low one DC00-DFFF written as \u, and a low
 *     one may not stand alone. A well-formed pair is one code point
 *     U+10000..U+10FFFF and is accepted. */
static size_t escape_end(const char *s, size_t i, size_t n, const char **why)
{
    if (i + 1 >= n) {
        *why = "a string ends inside an escape";
        return 0;
    }
    switch (s[i + 1]) {
    case '"':
    case '\\':
    case '/':
    case 'b':
    case 'f':
    case 'n':
    case 'r':
    case 't':
        return i + 1;
    case 'u':
        break;
    default:
        *why = "an escape that is not JSON (RFC 8259 section 7)";
        return 0;
    }
    long cp = hex4(s, i + 2, n);
    if (cp < 0) {
        *why = "\\u must be followed by four hex digits (RFC 8259 section 7)";
        return 0;
    }
    if (cp == 0) {
        *why = "strings may not contain \\u0000";
        return 0;
    }
    if (cp >= 0xDC00 && cp <= 0xDFFF) {
        *why = "a low surrogate escape without a high one before it";
        return 0;
    }
    if (cp < 0xD800 || cp > 0xDBFF)
        return i + 5;
    long lo = i + 7 < n && s[i + 6] == '\\' && s[i + 7] == 'u' ? hex4(s, i + 8, n) : -1;
    if (lo < 0xDC00 || lo > 0xDFFF) {
        *why = "a high surrogate escape not followed by a low one";
        return 0;
    }
    return i + 11;
}

/* The lexical checks cJSON leaves out, on the raw bytes (a validator, not
 * a parser: cJSON still builds the tree and judges the grammar):
 *   - no byte-order mark (RFC 8259 section 8.1: a sender MUST NOT add one);
 *   - the text is an object: its first byte after whitespace is '{'. Any
 *     other value is bad_json here, so a top-level array of any depth is
 *     bad_json, not the "too deep" bad_request of an object (section 2
 *     allows any value; PROTOCOL.md requires an object);
 *   - between tokens only the four whitespace bytes of section 2 (space,
 *     tab, LF, CR): cJSON skips every byte <= 0x20;
 *   - inside strings no byte below 0x20 (section 7) and only valid escapes
 *     (escape_end());
 *   - numbers by the grammar of section 6 (cJSON accepts "01", for one).
 * Also measures the bracket nesting depth. Returns false with *why set
 * when the text is not strict JSON. */
static bool lexically_strict(const char *s, size_t n, int *maxdepth, bool *balanced,
                             const char **why)
{
    int depth = 0;
    bool first = true;
    *maxdepth = 0;
    *balanced = true;
    if (n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) {
        *why = "a byte-order mark before the object";
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
            continue;
        if (c < 0x20) {
            *why = "a control character between tokens (RFC 8259 section 2)";
            return false;
        }
        if (first && c != '{') {
            *why = "the message must be a JSON object";
            return false;
        }
        first = false;
        if (c == '"') {
            for (i++; i < n && s[i] != '"'; i++) {
                if ((unsigned char)s[i] < 0x20) {
                    *why = "a control character inside a string (RFC 8259 section 7)";
                    return false;
                }
                if (s[i] == '\\' && !(i = escape_end(s, i, n, why)))
                    return false;
            }
        } else if (c == '{' || c == '[') {
            if (++depth > *maxdepth)
                *maxdepth = depth;
        } else if (c == '}' || c == ']') {
            if (--depth < 0)
                *balanced = false;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            size_t end = json_number_end(s, i, n);
            if (!end) {
                *why = "a number that is not JSON (RFC 8259 section 6)";
                return false;
            }
            i = end - 1;
        }
    }
    if (first) {
        *why = "an empty line is not a JSON object";
        return false;
    }
    if (depth != 0)
        *balanced = false;
    return true;
}

qk_err qk_proto_parse_line(const char *line, size_t len, cJSON **out, const char **why)
{
    const char *dummy;
    if (!why)
        why = &dummy;
    *out = NULL;
    if (!utf8_valid((const unsigned char *)line, len)) {
        *why = "invalid UTF-8 or a NUL byte";
        return QK_ERR_BAD_JSON;
    }
    int maxdepth;
    bool balanced;
    if (!lexically_strict(line, len, &maxdepth, &balanced, why))
        return QK_ERR_BAD_JSON;
    /* cJSON refuses nesting beyond its own limit (CJSON_NESTING_LIMIT,
     * 1,000) without deep recursion, so even a hostile 100,000-level line
     * is safe to parse. Below that limit its verdict decides bad_json;
     * beyond it, balanced brackets are taken as "valid but too deep". */
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(line, len, &end, false);
    if (!root) {
        if (maxdepth >= CJSON_NESTING_LIMIT && balanced) {
            *why = "objects nested deeper than 16 levels";
            return QK_ERR_BAD_REQUEST;
        }
        *why = "malformed JSON";
        return QK_ERR_BAD_JSON;
    }
    while (end && (size_t)(end - line) < len &&
           (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n'))
        end++;
    if (end && (size_t)(end - line) < len) {
        cJSON_Delete(root);
        *why = "bytes after the JSON object";
        return QK_ERR_BAD_JSON;
    }
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        *why = "the message must be a JSON object";
        return QK_ERR_BAD_JSON;
    }
    if (maxdepth > QK_PROTO_MAX_DEPTH) {
        cJSON_Delete(root);
        *why = "objects nested deeper than 16 levels";
        return QK_ERR_BAD_REQUEST;
    }
    qk_err e = check_tree(root, why);
    if (e) {
        cJSON_Delete(root);
        return e;
    }
    *out = root;
    return QK_ERR_NONE;
}

/* ---- the top-level id of a line refused after the lexical pass ------- */

static size_t skip_ws(const char *s, size_t i, size_t n)
{
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        i++;
    return i;
}

/* The index after the string token opening at s[i] == '"'. The lexical
 * pass has checked every escape, so a backslash always has a partner. */
static size_t string_end(const char *s, size_t i, size_t n)
{
    for (i++; i < n; i++) {
        if (s[i] == '\\')
            i++;
        else if (s[i] == '"')
            return i + 1;
    }
    return 0;
}

/* The index after the value starting at s[i], 0 when there is none. A
 * container is skipped by counting brackets outside strings, with no
 * recursion, so any depth costs one pass; scalars end at the next
 * delimiter (their grammar is cJSON's to judge, see top_scalar_ok). */
static size_t value_end(const char *s, size_t i, size_t n)
{
    if (i >= n)
        return 0;
    if (s[i] == '"')
        return string_end(s, i, n);
    if (s[i] == '{' || s[i] == '[') {
        size_t depth = 0;
        for (; i < n; i++) {
            char c = s[i];
            if (c == '"') {
                size_t e = string_end(s, i, n);
                if (!e)
                    return 0;
                i = e - 1;
            } else if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                if (--depth == 0)
                    return i + 1;
            }
        }
        return 0;
    }
    size_t j = i;
    while (j < n && s[j] != ',' && s[j] != '}' && s[j] != ']' && s[j] != ' ' && s[j] != '\t' &&
           s[j] != '\n' && s[j] != '\r')
        j++;
    return j > i ? j : 0;
}

/* cJSON's verdict on one token: a string key or a top-level scalar. */
static cJSON *parse_token(const char *s, size_t len)
{
    const char *end = NULL;
    cJSON *v = cJSON_ParseWithLengthOpts(s, len, &end, false);
    if (v && end != s + len) {
        cJSON_Delete(v);
        return NULL;
    }
    return v;
}

cJSON *qk_proto_top_id(const char *line, size_t len)
{
    int maxdepth;
    bool balanced;
    const char *why;
    if (!utf8_valid((const unsigned char *)line, len) ||
        !lexically_strict(line, len, &maxdepth, &balanced, &why) || !balanced)
        return NULL;
    size_t i = skip_ws(line, 0, len);
    if (i >= len || line[i] != '{')
        return NULL;
    i = skip_ws(line, i + 1, len);
    size_t id_at = 0, id_len = 0;
    int ids = 0;
    if (i < len && line[i] == '}') {
        i++;
    } else {
        for (;;) {
            if (i >= len || line[i] != '"')
                return NULL;
            size_t kend = string_end(line, i, len);
            if (!kend)
                return NULL;
            cJSON *key = parse_token(line + i, kend - i);
            bool is_id = cJSON_IsString(key) && strcmp(key->valuestring, "id") == 0;
            cJSON_Delete(key);
            i = skip_ws(line, kend, len);
            if (i >= len || line[i] != ':')
                return NULL;
            i = skip_ws(line, i + 1, len);
            size_t vend = value_end(line, i, len);
            if (!vend)
                return NULL;
            if (line[i] != '{' && line[i] != '[') {
                cJSON *v = parse_token(line + i, vend - i);
                if (!v)
                    return NULL;
                cJSON_Delete(v);
            }
            if (is_id) {
                ids++;
                id_at = i;
                id_len = vend - i;
            }
            i = skip_ws(line, vend, len);
            if (i < len && line[i] == ',') {
                i = skip_ws(line, i + 1, len);
                continue;
            }
            if (i < len && line[i] == '}') {
                i++;
                break;
            }
            return NULL;
        }
    }
    if (skip_ws(line, i, len) != len || ids != 1)
        return NULL;
    cJSON *id = parse_token(line + id_at, id_len);
    if (!qk_json_is_id(id)) {
        cJSON_Delete(id);
        return NULL;
    }
    return id;
}

bool qk_json_has(const cJSON *obj, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(obj, name) != NULL;
}

bool qk_json_get_str(const cJSON *obj, const char *name, const char **out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (!cJSON_IsString(v) || !v->valuestring)
        return false;
    *out = v->valuestring;
    return true;
}

static bool uint_value(const cJSON *v, uint64_t *out)
{
    if (!cJSON_IsNumber(v))
        return false;
    double d = v->valuedouble;
    if (!(d >= 0.0) || d > QK_JSON_MAX_INT || floor(d) != d)
        return false;
    *out = (uint64_t)d;
    return true;
}

bool qk_json_get_uint(const cJSON *obj, const char *name, uint64_t *out)
{
    return uint_value(cJSON_GetObjectItemCaseSensitive(obj, name), out);
}

bool qk_json_get_bool(const cJSON *obj, const char *name, bool *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (!cJSON_IsBool(v))
        return false;
    *out = cJSON_IsTrue(v);
    return true;
}

bool qk_json_is_id(const cJSON *v)
{
    uint64_t u;
    return (cJSON_IsString(v) && v->valuestring) || uint_value(v, &u);
}

cJSON *qk_json_add_int(cJSON *obj, const char *name, int64_t v)
{
    /* Digits by hand rather than snprintf: this runs ten times per move
     * and printf's format machinery was a third of its cost. */
    char text[24]; /* -9223372036854775808 and NUL */
    char *p = text + sizeof text;
    *--p = '\0';
    uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--p = '-';
    return cJSON_AddRawToObject(obj, name, p);
}

cJSON *qk_proto_ok(const cJSON *id)
{
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddStringToObject(o, "type", "ok"))
        goto fail;
    if (id) {
        cJSON *dup = cJSON_Duplicate(id, true);
        if (!dup || !cJSON_AddItemToObject(o, "id", dup)) {
            cJSON_Delete(dup);
            goto fail;
        }
    }
    return o;
fail:
    cJSON_Delete(o);
    return NULL;
}

cJSON *qk_proto_error(const cJSON *id, qk_err e, const char *message)
{
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddStringToObject(o, "type", "error"))
        goto fail;
    if (id) {
        cJSON *dup = cJSON_Duplicate(id, true);
        if (!dup || !cJSON_AddItemToObject(o, "id", dup)) {
            cJSON_Delete(dup);
            goto fail;
        }
    }
    if (!cJSON_AddStringToObject(o, "code", qk_err_code(e)) ||
        !cJSON_AddStringToObject(o, "message", message ? message : qk_err_message(e)))
        goto fail;
    return o;
fail:
    cJSON_Delete(o);
    return NULL;
}

cJSON *qk_proto_event(const char *name)
{
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddStringToObject(o, "type", "event") ||
        !cJSON_AddStringToObject(o, "event", name)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* cJSON prints numbers with 15 significant digits and keeps that text
 * whenever it reads back within a relative epsilon, so whole numbers from
 * 10^15 up (ids may go to 2^53 - 1) come back rounded: 9007199254740991
 * prints as 9.00719925474099e+15. The same holds for any double that
 * needs 16 or 17 digits: 9007199254740992 printed as 9.00719925474099e+15,
 * which reads back as 9007199254740990, so a number a client sent and the
 * server echoes (ping's ts) changed on the way (found by
 * tests/fuzz/fuzz_proto.c). Such numbers are rare, so the fix works on a
 * copy made only when one is present. Printing needs the C locale's '.'
 * (nothing here calls setlocale). */
static bool big_whole(const cJSON *item)
{
    return cJSON_IsNumber(item) && fabs(item->valuedouble) >= 1e15 &&
           fabs(item->valuedouble) <= QK_JSON_MAX_INT &&
           floor(item->valuedouble) == item->valuedouble;
}

/* The shortest "%.Ng" text, N = 15, 16 or 17, that reads back as exactly
 * d (17 digits always do for a finite double), into buf (32 bytes).
 * Returns N. The text is a JSON number (RFC 8259 section 6): no "inf" or
 * "nan" since d is finite. */
static int exact_text(double d, char buf[32])
{
    for (int digits = 15; digits < 17; digits++) {
        snprintf(buf, 32, "%.*g", digits, d);
        if (strtod(buf, NULL) == d)
            return digits;
    }
    snprintf(buf, 32, "%.17g", d);
    return 17;
}

/* A number cJSON would print inexactly: a big whole number (printed as
 * digits, no exponent), or a finite one whose 15 digits are not exact.
 * NaN and infinities (from "1e400") stay with cJSON, which prints null. */
static bool inexact_number(const cJSON *item)
{
    if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble))
        return false;
    if (big_whole(item))
        return true;
    double d = item->valuedouble;
    if (fabs(d) < 1e15 && floor(d) == d)
        return false; /* at most 15 digits: exact; the common case, no printf */
    char buf[32];
    return exact_text(d, buf) > 15;
}

static bool has_inexact(const cJSON *item)
{
    if (inexact_number(item))
        return true;
    for (const cJSON *c = item->child; c; c = c->next)
        if (has_inexact(c))
            return true;
    return false;
}

/* Turn every such number of a tree we own into raw text printed exactly
 * ("%.0f" is exact for integers below 2^53; else exact_text()). Returns
 * false on ENOMEM. */
static bool exact_numbers(cJSON *item)
{
    if (inexact_number(item)) {
        char buf[32];
        if (big_whole(item))
            snprintf(buf, sizeof buf, "%.0f", item->valuedouble);
        else
            exact_text(item->valuedouble, buf);
        char *raw = malloc(strlen(buf) + 1);
        if (!raw)
            return false;
        strcpy(raw, buf);
        item->type = cJSON_Raw;
        item->valuestring = raw; /* cJSON_Delete frees a Raw item's text */
        return true;
    }
    for (cJSON *c = item->child; c; c = c->next)
        if (!exact_numbers(c))
            return false;
    return true;
}

char *qk_proto_print(const cJSON *msg, size_t *len)
{
    char *s;
    if (has_inexact(msg)) {
        cJSON *copy = cJSON_Duplicate(msg, true);
        s = copy && exact_numbers(copy) ? cJSON_PrintUnformatted(copy) : NULL;
        cJSON_Delete(copy);
    } else {
        s = cJSON_PrintUnformatted(msg);
    }
    if (!s)
        return NULL;
    size_t n = strlen(s);
    char *out = realloc(s, n + 2);
    if (!out) {
        cJSON_free(s);
        return NULL;
    }
    out[n] = '\n';
    out[n + 1] = '\0';
    *len = n + 1;
    return out;
}

cJSON *qk_proto_splice(const cJSON *head, const char *body)
{
    size_t bl = body ? strlen(body) : 0;
    while (bl && body[bl - 1] == '\n')
        bl--;
    if (bl < 2 || body[0] != '{' || body[bl - 1] != '}' || !cJSON_IsObject(head))
        return NULL;
    size_t hl;
    char *h = qk_proto_print(head, &hl);
    if (!h)
        return NULL;
    hl--; /* the '\n' */
    /* "{h...}" + "{b...}" -> "{h...,b...}"; an empty side adds no comma. */
    bool hempty = hl == 2, bempty = bl == 2;
    char *out = malloc(hl + bl + 1);
    cJSON *raw = out ? cJSON_CreateNull() : NULL;
    if (!raw) {
        free(out);
        free(h);
        return NULL;
    }
    size_t n = hl - 1;
    memcpy(out, h, n);
    if (!hempty && !bempty)
        out[n++] = ',';
    memcpy(out + n, body + 1, bl - 1);
    n += bl - 1;
    out[n] = '\0';
    free(h);
    raw->type = cJSON_Raw;
    raw->valuestring = out; /* as exact_numbers(): cJSON_Delete frees it */
    return raw;
}

bool qk_proto_print_into(const cJSON *msg, char *buf, size_t size, size_t *len)
{
    /* cJSON asks for 5 bytes more than the text; one more for '\n'. */
    if (size < 8 || size > INT32_MAX || has_inexact(msg) ||
        !cJSON_PrintPreallocated((cJSON *)msg, buf, (int)size - 6, false))
        return false;
    size_t n = strlen(buf);
    buf[n] = '\n';
    buf[n + 1] = '\0';
    *len = n + 1;
    return true;
}

int64_t qk_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
