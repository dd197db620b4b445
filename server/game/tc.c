/*
 * tc: see tc.h. Parsing goes through the same qk_json_get_uint() as every
 * other integer of the protocol, so fractions, negatives and huge numbers
 * are refused alike.
 */
#include "game/tc.h"

#include <stdio.h>
#include <string.h>

#include "qk_proto.h"

static int get_range(const cJSON *obj, const char *name, int lo, int hi, int dflt, int *out)
{
    uint64_t u;
    if (!qk_json_has(obj, name) || cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(obj, name))) {
        if (dflt < 0)
            return -1;
        *out = dflt;
        return 0;
    }
    if (!qk_json_get_uint(obj, name, &u) || u < (uint64_t)lo || u > (uint64_t)hi)
        return -1;
    *out = (int)u;
    return 0;
}

int tc_parse(const cJSON *obj, tc *out, const char **why)
{
    memset(out, 0, sizeof *out);
    if (!obj) {
        out->kind = TC_UNLIMITED;
        return 0;
    }
    const char *kind;
    if (!qk_json_get_str(obj, "kind", &kind)) {
        *why = "time_control needs \"kind\": unlimited, correspondence or live";
        return -1;
    }
    if (strcmp(kind, "unlimited") == 0) {
        out->kind = TC_UNLIMITED;
        return 0;
    }
    if (strcmp(kind, "correspondence") == 0) {
        out->kind = TC_CORRESPONDENCE;
        if (get_range(obj, "days_per_move", 1, TC_MAX_DAYS, -1, &out->days_per_move)) {
            *why = "days_per_move must be an integer from 1 to 14";
            return -1;
        }
        return 0;
    }
    if (strcmp(kind, "live") == 0) {
        out->kind = TC_LIVE;
        if (get_range(obj, "initial_s", 0, TC_MAX_INITIAL_S, -1, &out->initial_s) ||
            get_range(obj, "increment_s", 0, TC_MAX_INCREMENT_S, 0, &out->increment_s)) {
            *why = "live needs initial_s 0..10800 and increment_s 0..180 (seconds)";
            return -1;
        }
        if (out->initial_s + out->increment_s == 0) {
            *why = "live needs initial_s or increment_s above 0";
            return -1;
        }
        return 0;
    }
    *why = "time_control kind must be unlimited, correspondence or live";
    return -1;
}

int tc_format(const tc *t, char *buf, size_t n)
{
    int w;
    switch (t->kind) {
    case TC_CORRESPONDENCE:
        w = snprintf(buf, n, "{\"kind\":\"correspondence\",\"days_per_move\":%d}",
                     t->days_per_move);
        break;
    case TC_LIVE:
        w = snprintf(buf, n, "{\"kind\":\"live\",\"initial_s\":%d,\"increment_s\":%d}",
                     t->initial_s, t->increment_s);
        break;
    default:
        w = snprintf(buf, n, "{\"kind\":\"unlimited\"}");
    }
    return w > 0 && (size_t)w < n ? 0 : -1;
}

int tc_from_text(const char *text, tc *out)
{
    cJSON *obj = cJSON_Parse(text);
    const char *why;
    int rc = cJSON_IsObject(obj) ? tc_parse(obj, out, &why) : -1;
    cJSON_Delete(obj);
    return rc;
}

cJSON *tc_to_json(const tc *t)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    bool ok;
    switch (t->kind) {
    case TC_CORRESPONDENCE:
        ok = cJSON_AddStringToObject(o, "kind", "correspondence") &&
             cJSON_AddNumberToObject(o, "days_per_move", t->days_per_move);
        break;
    case TC_LIVE:
        ok = cJSON_AddStringToObject(o, "kind", "live") &&
             cJSON_AddNumberToObject(o, "initial_s", t->initial_s) &&
             cJSON_AddNumberToObject(o, "increment_s", t->increment_s);
        break;
    default:
        ok = cJSON_AddStringToObject(o, "kind", "unlimited") != NULL;
    }
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

const char *tc_kind_name(tc_kind k)
{
    static const char *const names[TC_KINDS] = {"unlimited", "correspondence", "live"};
    return (int)k >= 0 && (int)k < TC_KINDS ? names[k] : NULL;
}
