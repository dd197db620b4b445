/*
 * ratelimit: a token bucket, for the request rate of one connection.
 *
 * Design. The bucket holds up to `burst` tokens and gains `per_s` tokens
 * per second; a request takes one. A client that sends steadily faster
 * than per_s is refused the excess (`rate_limited` with `retry_after_ms`,
 * the time until one token is back), one that pauses may then burst
 * again. Tokens are kept in thousandths so the integer arithmetic loses
 * nothing at per_s up to 10^6 and times in whole milliseconds. Time comes
 * from the caller (the loop's monotonic uv_now(), never the server's
 * replaceable clock, which a test may freeze).
 *
 * Defaults (docs/protocol.md, "Limits"): burst 1,000 and 200 per second.
 * Honest clients stay far below: a person sends a request every few
 * seconds; the server bench, the busiest client we have, sends at most
 * ~150 moves/s per connection, and the correspondence bench 800 requests
 * back to back. The limit bounds what one connection can make the server
 * do over time; the per-turn line budget (conn.h) bounds what it can do
 * in one loop turn.
 */
#ifndef QK_RATELIMIT_H
#define QK_RATELIMIT_H

#include <stdbool.h>
#include <stdint.h>

#define RATE_DEFAULT_BURST 1000
#define RATE_DEFAULT_PER_S 200
#define RATE_MAX 1000000 /* burst and per_s */

typedef struct rate_cfg {
    uint32_t burst; /* tokens when full, 1..RATE_MAX */
    uint32_t per_s; /* tokens gained per second, 1..RATE_MAX */
    bool off;       /* no limit */
} rate_cfg;

/* 16 bytes: one is in every connection's session. */
typedef struct rate_bucket {
    uint64_t at_ms; /* when milli was last brought up to date */
    int32_t milli;  /* tokens x 1000: at most RATE_MAX x 1000, below 2^31 */
    bool started;   /* a new bucket starts full */
} rate_bucket;

/* Take one token from b at time now_ms (monotonic ms). Returns true when
 * there was one (or cfg->off). Otherwise false, b unchanged but for the
 * refill, and *retry_ms (may be NULL) set to the milliseconds until a
 * token is back (>= 1). */
bool rate_take(rate_bucket *b, const rate_cfg *cfg, uint64_t now_ms, uint64_t *retry_ms);

/* Parse "BURST/PER_S" (two integers 1..RATE_MAX) or "off" into *out.
 * Returns 0, or -1 leaving *out untouched. */
int rate_cfg_parse(const char *s, rate_cfg *out);

/* A limit over a sliding window: at most count acts in any `seconds`
 * seconds. Unlike the bucket above it keeps no state of its own: the
 * caller counts the acts of the window from its rows (the challenges of
 * an account, by creation time: api/ops_challenge.c), so the limit holds
 * per account whichever connection, or later node, the acts come from. */
typedef struct rate_window {
    uint32_t count;   /* acts allowed in the window, 1..RATE_MAX */
    uint32_t seconds; /* the window, 1..RATE_MAX */
    bool off;         /* no limit */
} rate_window;

#define RATE_CHALLENGES_COUNT 60    /* default: challenges per account ... */
#define RATE_CHALLENGES_SECONDS 600 /* ... in any ten minutes */

/* Parse "COUNT/SECONDS" (two integers 1..RATE_MAX) or "off" into *out.
 * Returns 0, or -1 leaving *out untouched. */
int rate_window_parse(const char *s, rate_window *out);

#endif
