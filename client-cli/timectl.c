/*
 * timectl: see timectl.h.
 */
#include "timectl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "i18n.h"

/* A whole number in lo..hi from s[0..len). */
static int number(const char *s, size_t len, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char buf[24];
    if (len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    if (args_parse_uint(buf, out) < 0 || *out < lo || *out > hi)
        return -1;
    return 0;
}

cJSON *timectl_parse(const char *text, const char **why)
{
    cJSON *tc = cJSON_CreateObject();
    if (!tc) {
        *why = _("out of memory");
        return NULL;
    }
    bool ok = false;
    if (strcmp(text, "unlimited") == 0) {
        ok = cJSON_AddStringToObject(tc, "kind", "unlimited") != NULL;
    } else if (strncmp(text, "corr:", 5) == 0) {
        uint64_t days;
        *why = _("corr:DAYS needs DAYS in 1..14");
        if (number(text + 5, strlen(text + 5), 1, 14, &days) < 0)
            goto fail;
        ok = cJSON_AddStringToObject(tc, "kind", "correspondence") &&
             cJSON_AddNumberToObject(tc, "days_per_move", (double)days);
    } else if (strncmp(text, "live:", 5) == 0) {
        const char *p = text + 5, *plus = strchr(p, '+');
        uint64_t initial, inc;
        *why = _("live:INITIAL+INCREMENT needs seconds, INITIAL 0..10800 and INCREMENT 0..180, "
               "not both 0");
        if (!plus || number(p, (size_t)(plus - p), 0, 10800, &initial) < 0 ||
            number(plus + 1, strlen(plus + 1), 0, 180, &inc) < 0 || initial + inc == 0)
            goto fail;
        ok = cJSON_AddStringToObject(tc, "kind", "live") &&
             cJSON_AddNumberToObject(tc, "initial_s", (double)initial) &&
             cJSON_AddNumberToObject(tc, "increment_s", (double)inc);
    } else {
        *why = _("want unlimited, corr:DAYS or live:INITIAL+INCREMENT");
        goto fail;
    }
    if (ok)
        return tc;
    *why = _("out of memory");
fail:
    cJSON_Delete(tc);
    return NULL;
}

char *timectl_format(const cJSON *tc, char *buf, size_t n)
{
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(tc, "kind");
    if (!cJSON_IsObject(tc) || !cJSON_IsString(kind)) {
        snprintf(buf, n, "-");
        return buf;
    }
    const char *k = kind->valuestring;
    const cJSON *days = cJSON_GetObjectItemCaseSensitive(tc, "days_per_move");
    const cJSON *ini = cJSON_GetObjectItemCaseSensitive(tc, "initial_s");
    const cJSON *inc = cJSON_GetObjectItemCaseSensitive(tc, "increment_s");
    if (strcmp(k, "correspondence") == 0 && cJSON_IsNumber(days))
        snprintf(buf, n, "corr:%.0f", days->valuedouble);
    else if (strcmp(k, "live") == 0 && cJSON_IsNumber(ini))
        snprintf(buf, n, "live:%.0f+%.0f", ini->valuedouble,
                 cJSON_IsNumber(inc) ? inc->valuedouble : 0.0);
    else
        snprintf(buf, n, "%s", k);
    return buf;
}
