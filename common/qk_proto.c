/*
 * qk_proto: see qk_proto.h. cJSON does the JSON; this file adds only the
 * checks cJSON does not make (UTF-8 validity, \u0000, duplicate keys,
 * trailing bytes, depth), done on the raw bytes or the parsed tree.
 */
#include "qk_proto.h"

#include <math.h>
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

/* True when a JSON string escape \u0000 occurs inside a string literal.
 * Tracks string state and backslash escapes so "\\u0000" (an escaped
 * backslash followed by text) is not mistaken for one. */
static bool has_nul_escape(const char *s, size_t n)
{
    bool in_str = false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!in_str) {
            if (c == '"')
                in_str = true;
            continue;
        }
        if (c == '"') {
            in_str = false;
        } else if (c == '\\' && i + 1 < n) {
            if (s[i + 1] == 'u' && i + 5 < n && memcmp(s + i + 2, "0000", 4) == 0)
                return true;
            i++; /* skip the escaped character */
        }
    }
    return false;
}

/* Duplicate keys, over the parsed tree (depth was bounded on the raw
 * bytes, so this recursion is at most QK_PROTO_MAX_DEPTH deep). */
static qk_err check_tree(const cJSON *item, const char **why)
{
    if (!cJSON_IsObject(item) && !cJSON_IsArray(item))
        return QK_ERR_NONE;
    for (const cJSON *c = item->child; c; c = c->next) {
        if (cJSON_IsObject(item)) {
            for (const cJSON *d = c->next; d; d = d->next)
                if (c->string && d->string && strcmp(c->string, d->string) == 0) {
                    *why = "a field is given twice";
                    return QK_ERR_BAD_REQUEST;
                }
        }
        qk_err e = check_tree(c, why);
        if (e)
            return e;
    }
    return QK_ERR_NONE;
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
    if (has_nul_escape(line, len)) {
        *why = "strings may not contain \\u0000";
        return QK_ERR_BAD_JSON;
    }
    /* Depth is checked on the raw bytes first so a hostile 60,000-level
     * nesting never reaches cJSON's recursive parser. */
    int depth = 0, maxdepth = 0;
    bool in_str = false;
    for (size_t i = 0; i < len; i++) {
        char c = line[i];
        if (in_str) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_str = false;
        } else if (c == '"') {
            in_str = true;
        } else if (c == '{' || c == '[') {
            if (++depth > maxdepth)
                maxdepth = depth;
        } else if (c == '}' || c == ']') {
            depth--;
        }
    }
    if (maxdepth > QK_PROTO_MAX_DEPTH) {
        *why = "objects nested deeper than 16 levels";
        return QK_ERR_BAD_REQUEST;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(line, len, &end, false);
    if (!root) {
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
    qk_err e = check_tree(root, why);
    if (e) {
        cJSON_Delete(root);
        return e;
    }
    *out = root;
    return QK_ERR_NONE;
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

char *qk_proto_print(const cJSON *msg, size_t *len)
{
    char *s = cJSON_PrintUnformatted(msg);
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

int64_t qk_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
