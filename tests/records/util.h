/* Helpers of the records tests: shared-data paths, whole files, the
 * recorded games as records, and a one-call reader. */
#ifndef RECORDS_TEST_UTIL_H
#define RECORDS_TEST_UTIL_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "qk_pdn.h"

/* Path of a file under $QK_SHARED (default ../shared) in a static buffer. */
const char *shared_path(const char *rel);

/* The whole file, malloc'd and NUL-terminated; fails the test when absent. */
char *slurp(const char *path);

/* The games of data/games/VARIANT.jsonl as a cJSON array (caller deletes). */
cJSON *load_games(const char *variant);

/* A record of recorded game g (variant, start, moves, result, reason as
 * Termination, players "white-N"/"black-N"), built with the public API. */
void record_of_game(const cJSON *g, int index, qk_pdn_record *r);

/* g's string field name; fails the test when absent. Borrowed. */
const char *jstr(const cJSON *g, const char *name);

/* qk_pdn_read() of a NUL-terminated text. */
int read_text(const char *text, qk_pdn_record **recs, size_t *n, qk_pdn_error *err);

/* Written text of r, malloc'd (asserts success). */
char *write_rec(const qk_pdn_record *r);

#endif
