/*
 * Helpers shared by the libFuzzer targets of tests/fuzz/ (not a Criterion
 * area: `make fuzz` builds them with clang -fsanitize=fuzzer,address,
 * undefined). A broken invariant calls fz_fail(), which aborts so that
 * libFuzzer saves the input as a crash artifact.
 */
#ifndef QK_FUZZ_UTIL_H
#define QK_FUZZ_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qk_rules.h"

#define fz_fail(...)                                                                               \
    do {                                                                                           \
        fprintf(stderr, "fuzz invariant broken at %s:%d: ", __FILE__, __LINE__);                   \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                       \
        abort();                                                                                   \
    } while (0)

#define fz_check(cond, ...)                                                                        \
    do {                                                                                           \
        if (!(cond))                                                                               \
            fz_fail(__VA_ARGS__);                                                                  \
    } while (0)

/* The variant chosen by one input byte: the five Alquerque variants and a
 * spread of Alquerkonane sizes, the extremes 2x2 and 12x12 included.
 * Static names; qk_variant_parse() must accept each. */
static inline const char *fz_variant_name(unsigned char b)
{
    static const char *const names[] = {
        "alquerque",
        "alquerque-traditional",
        "alquerque-brainking",
        "alquerque-stoep-short",
        "alquerque-stoep-long",
        "alquerkonane-8x8",
        "alquerkonane-6x4",
        "alquerkonane-2x2",
        "alquerkonane-12x12",
        "alquerkonane-3x5",
        "alquerkonane-12x2",
        "alquerkonane-5x5",
    };
    return names[b % (sizeof names / sizeof *names)];
}

/* Positions are equal field by field (the struct may have padding). */
static inline int fz_pos_equal(const qk_pos *a, const qk_pos *b)
{
    return memcmp(a->sq, b->sq, sizeof a->sq) == 0 && a->side == b->side && a->quiet == b->quiet &&
           memcmp(a->from, b->from, sizeof a->from) == 0;
}

/* A NUL-terminated heap copy of data[0..n) (caller free()s). */
static inline char *fz_strndup(const unsigned char *data, size_t n)
{
    char *s = malloc(n + 1);
    if (!s)
        abort();
    memcpy(s, data, n);
    s[n] = '\0';
    return s;
}

#endif
