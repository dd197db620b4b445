/*
 * ratelimit: see ratelimit.h.
 */
#include "util/ratelimit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

bool rate_take(rate_bucket *b, const rate_cfg *cfg, uint64_t now_ms, uint64_t *retry_ms)
{
    if (cfg->off)
        return true;
    int64_t full = (int64_t)cfg->burst * 1000;
    if (!b->started) {
        b->started = true;
        b->milli = (int32_t)full;
        b->at_ms = now_ms;
    }
    if (now_ms > b->at_ms) {
        /* per_s tokens a second is per_s thousandths a millisecond. The
         * elapsed time is capped first so the product cannot overflow
         * after a long idle spell. */
        uint64_t dt = now_ms - b->at_ms;
        if (dt > (uint64_t)full)
            dt = (uint64_t)full;
        int64_t milli = b->milli + (int64_t)dt * cfg->per_s;
        b->milli = (int32_t)(milli > full ? full : milli);
        b->at_ms = now_ms;
    }
    if (b->milli >= 1000) {
        b->milli -= 1000;
        return true;
    }
    if (retry_ms)
        *retry_ms = (uint64_t)(((int64_t)1000 - b->milli + cfg->per_s - 1) / cfg->per_s);
    return false;
}

static int parse_u32(const char *s, const char *end, uint32_t *out)
{
    if (s == end || *s < '0' || *s > '9')
        return -1;
    char *stop;
    errno = 0;
    unsigned long v = strtoul(s, &stop, 10);
    if (errno || stop != end || v < 1 || v > RATE_MAX)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

int rate_cfg_parse(const char *s, rate_cfg *out)
{
    if (!s)
        return -1;
    if (strcmp(s, "off") == 0) {
        *out = (rate_cfg){.off = true};
        return 0;
    }
    const char *slash = strchr(s, '/');
    rate_cfg c = {0};
    if (!slash || parse_u32(s, slash, &c.burst) != 0 ||
        parse_u32(slash + 1, slash + strlen(slash), &c.per_s) != 0)
        return -1;
    *out = c;
    return 0;
}

int rate_window_parse(const char *s, rate_window *out)
{
    rate_cfg c;
    if (rate_cfg_parse(s, &c) != 0)
        return -1;
    *out = c.off ? (rate_window){.off = true} : (rate_window){.count = c.burst, .seconds = c.per_s};
    return 0;
}
