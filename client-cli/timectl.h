/*
 * timectl: the `--time` text of docs/design.md and the time_control object
 * of the protocol, both ways.
 *
 * Design. The command line says unlimited, corr:DAYS or
 * live:INITIAL+INCREMENT (seconds, like "live:300+5"); the wire carries
 * {"kind": "unlimited"}, {"kind": "corr", "days": N} or {"kind": "live",
 * "initial_ms": N, "increment_ms": N} (PROTOCOL.md "Times": milliseconds).
 * This is the only file that knows those shapes, so a change on the server
 * side is a change here.
 */
#ifndef QC_TIMECTL_H
#define QC_TIMECTL_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* Parse the --time text. Returns a new object owned by the caller
 * (cJSON_Delete), or NULL when the text is malformed (or on allocation
 * failure), with a static reason in *why. Days must be 1..365; live
 * INITIAL 1..86400 s, INCREMENT 0..3600 s. */
cJSON *timectl_parse(const char *text, const char **why);

/* Write the short text of a time_control object into buf (size n):
 * "unlimited", "corr:3", "live:300+5", or the kind word for unknown
 * shapes; "-" when tc is not an object. Returns buf. */
char *timectl_format(const cJSON *tc, char *buf, size_t n);

#endif
