/*
 * tc: time controls of challenges and games (docs/protocol.md "Time
 * controls"). Three kinds:
 *   {"kind": "unlimited"}
 *   {"kind": "correspondence", "days_per_move": 1..14}
 *   {"kind": "live", "initial_s": 0..10800, "increment_s": 0..180}
 *     (initial_s + increment_s > 0; increment_s defaults to 0)
 * Unknown fields are ignored; what is stored is the normalized text of
 * tc_format(), so two equal controls always read the same. A
 * correspondence day is 86,400,000 ms (PROTOCOL.md "Times").
 */
#ifndef QK_TC_H
#define QK_TC_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#define TC_DAY_MS 86400000LL
#define TC_MAX_DAYS 14
#define TC_MAX_INITIAL_S 10800
#define TC_MAX_INCREMENT_S 180

typedef enum { TC_UNLIMITED, TC_CORRESPONDENCE, TC_LIVE } tc_kind;
#define TC_KINDS 3 /* how many tc_kind values: TC_UNLIMITED .. TC_LIVE, from 0 */

typedef struct tc {
    tc_kind kind;
    int days_per_move; /* correspondence */
    int initial_s;     /* live */
    int increment_s;   /* live */
} tc;

/* Validate a request's time_control object (NULL = unlimited). Returns 0
 * and fills *out, or -1 with *why set to a static English reason. */
int tc_parse(const cJSON *obj, tc *out, const char **why);
/* The normalized JSON text into buf (size n). Returns 0 or -1 (too small). */
int tc_format(const tc *t, char *buf, size_t n);
/* Parse text written by tc_format(). 0 or -1. */
int tc_from_text(const char *text, tc *out);
/* A new JSON object for t (caller owns), NULL on allocation failure. */
cJSON *tc_to_json(const tc *t);
/* The protocol's word for kind k ("unlimited", "correspondence", "live"),
 * a static string; NULL for a value that is not a tc_kind. */
const char *tc_kind_name(tc_kind k);

#endif
