/*
 * timectl: the `--time` text of docs/design.md and the time_control object
 * of the protocol, both ways.
 *
 * Design. The command line says unlimited, corr:DAYS or
 * live:INITIAL+INCREMENT (seconds, like "live:300+5"); the wire carries the
 * server's shapes (server/tc.h): {"kind": "unlimited"}, {"kind":
 * "correspondence", "days_per_move": N} or {"kind": "live", "initial_s": N,
 * "increment_s": N}. This is the only client file that knows those shapes,
 * and it applies the server's ranges so a bad value is a usage error (exit
 * 2) before any connection.
 */
#ifndef QC_TIMECTL_H
#define QC_TIMECTL_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* Parse the --time text. Returns a new object owned by the caller
 * (cJSON_Delete), or NULL when the text is malformed (or on allocation
 * failure), with a static reason in *why. DAYS 1..14; live INITIAL
 * 0..10800 s and INCREMENT 0..180 s, not both 0. */
cJSON *timectl_parse(const char *text, const char **why);

/* Write the short text of a time_control object into buf (size n), in the
 * --time syntax: "unlimited", "corr:3", "live:300+5"; the kind word for
 * shapes it does not know; "-" when tc is not an object. Returns buf. */
char *timectl_format(const cJSON *tc, char *buf, size_t n);

#endif
