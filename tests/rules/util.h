/* Helpers shared by the rules tests: shared-data paths, text-level
 * wrappers around the rules API so assertions compare plain strings. */
#ifndef RULES_TEST_UTIL_H
#define RULES_TEST_UTIL_H

#include <stddef.h>

#include "qk_rules.h"

/* Path of a file under $QK_SHARED (default ../shared) in a static buffer. */
const char *shared_path(const char *rel);

/* Parse variant and position or fail the test. */
void must_variant(const char *name, qk_variant *v);
void must_pos(const qk_variant *v, const char *s, qk_pos *p);

/* The sorted legal moves of p as one string, texts joined by single
 * spaces ("" when none), in a static buffer. */
const char *legal_str(const qk_variant *v, const qk_pos *p);

/* The position string of p in a static buffer. */
const char *pos_str(const qk_variant *v, const qk_pos *p);

/* Assert that the sorted legal moves of variant at pos are exactly want
 * (texts joined by single spaces). */
void expect_legal(const char *variant, const char *pos, const char *want);

/* Play the move written `text` on p (asserting it is legal). */
void play(const qk_variant *v, qk_pos *p, const char *text);

/* Cap on perft node counts replayed from data/perft.tsv: $QK_PERFT_MAX_NODES
 * or the default. */
unsigned long long perft_max_nodes(void);

#endif
