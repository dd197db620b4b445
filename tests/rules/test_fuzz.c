/* Robustness and self-consistency of the rules module.
 *
 * Parsers get random bytes and mutated valid strings (hostile input, RULES.md
 * section 1): they must never crash (ASan/UBSan builds check memory), and
 * anything they accept must format back to exactly the same text. Random
 * playouts of every variant check that make/unmake restore positions, that
 * the counting generator agrees with the listing one, and that every
 * listed move's text parses back to the same move. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

static uint64_t rng_state;

static uint64_t rng(void)
{
    /* xorshift64*: fixed seeds, so failures reproduce. */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}

static const char *const variants[] = {
    "alquerque",
    "alquerque-traditional",
    "alquerque-brainking",
    "alquerque-stoep-short",
    "alquerque-stoep-long",
    "alquerkonane-8x8",
    "alquerkonane-6x4",
    "alquerkonane-2x2",
    "alquerkonane-3x7",
    "alquerkonane-12x12",
    "alquerkonane-11x10",
};
#define NVARIANTS (sizeof variants / sizeof variants[0])

/* Whatever parses must print back as the same string, and the generator
 * and end checks must cope with it. */
static void poke(const qk_variant *v, const char *s)
{
    qk_pos p;
    const char *why = NULL;
    if (qk_pos_parse(v, s, &p, &why) == QK_OK) {
        cr_assert_str_eq(pos_str(v, &p), s, "%s", v->name);
        static qk_move moves[QK_MAX_MOVES];
        int n = qk_movegen(v, &p, moves, QK_MAX_MOVES);
        cr_assert(n >= 0 || n == QK_ENOSPC);
        (void)qk_pos_status(v, &p, NULL, NULL);
    } else {
        cr_assert_not_null(why);
    }
    qk_pos start;
    qk_move m;
    qk_variant_start(v, &start);
    int rc = qk_move_parse(v, &start, s, &m);
    cr_assert(rc == QK_OK || rc == QK_EINVAL || rc == QK_EILLEGAL);
    int pt;
    rc = qk_point_parse(v, s, &pt);
    cr_assert(rc == QK_OK || rc == QK_EINVAL);
    if (rc == QK_OK)
        cr_assert(pt >= 0 && pt < v->ranks * v->files);
    qk_variant w;
    rc = qk_variant_parse(s, &w);
    cr_assert(rc == QK_OK || rc == QK_EINVAL);
}

Test(fuzz, random_bytes_into_parsers, .timeout = 60)
{
    static const char alphabet[] = "wbWB./ -0123456789abcdefghijklmx:,\n\t";
    char buf[600];
    qk_variant vs[NVARIANTS];
    for (size_t i = 0; i < NVARIANTS; i++)
        must_variant(variants[i], &vs[i]);
    rng_state = 0x9E3779B97F4A7C15ULL;
    for (int it = 0; it < 200000; it++) {
        size_t len = rng() % (it % 10 == 0 ? sizeof buf - 1 : 40);
        bool raw = rng() % 4 == 0;
        for (size_t k = 0; k < len; k++)
            buf[k] = raw ? (char)(rng() % 255 + 1) : alphabet[rng() % (sizeof alphabet - 1)];
        buf[len] = '\0';
        poke(&vs[it % NVARIANTS], buf);
    }
}

/* Mutations of valid position strings reach the deep parts of the parser
 * (counts, memory) that random bytes rarely do. */
Test(fuzz, mutated_positions, .timeout = 60)
{
    static const struct {
        const char *variant, *pos;
    } seeds[] = {
        {"alquerque", "bbbbb/bbbbb/ww.bb/wwwww/wwwww w 0 -"},
        {"alquerque-brainking", ".bbbb/wbbbb/.b..w/.ww.w/w.w.w w 1 b3:c3,b4:a4"},
        {"alquerque-brainking", "...b./...../...../...../..w.. w 2 c1:b1,d5:e5"},
        {"alquerque-stoep-long", "...Bb/...../...../...../B...B w 0 -"},
        {"alquerkonane-8x8",
         "w...w.w./.w.....w/w...w.../...w..../.b...b../......../...b.b.b/b.b.b... b 10 -"},
        {"alquerkonane-12x12", "............/.........w../............/............/"
                               "............/............/............/............/"
                               "............/............/..b........./b........... b 39 -"},
    };
    static const char alphabet[] = "wbWB./ -0123456789abcdex:,";
    rng_state = 0xD1B54A32D192ED03ULL;
    for (size_t si = 0; si < sizeof seeds / sizeof seeds[0]; si++) {
        qk_variant v;
        must_variant(seeds[si].variant, &v);
        poke(&v, seeds[si].pos);
        for (int it = 0; it < 20000; it++) {
            char buf[QK_POS_STRLEN];
            snprintf(buf, sizeof buf, "%s", seeds[si].pos);
            int edits = 1 + (int)(rng() % 3);
            for (int e = 0; e < edits; e++) {
                size_t len = strlen(buf);
                size_t at = len ? rng() % len : 0;
                char c = alphabet[rng() % (sizeof alphabet - 1)];
                switch (rng() % 4) {
                case 0: /* replace */
                    if (len)
                        buf[at] = c;
                    break;
                case 1: /* insert */
                    if (len + 2 < sizeof buf) {
                        memmove(buf + at + 1, buf + at, len - at + 1);
                        buf[at] = c;
                    }
                    break;
                case 2: /* delete */
                    if (len)
                        memmove(buf + at, buf + at + 1, len - at);
                    break;
                default: /* truncate */
                    buf[at] = '\0';
                    break;
                }
            }
            poke(&v, buf);
        }
    }
}

/* One random game of v, checking every position on the way. */
static void playout(const qk_variant *v, int check_depth2)
{
    static qk_move moves[QK_MAX_MOVES];
    qk_pos p;
    qk_variant_start(v, &p);
    for (int ply = 0; ply < 400; ply++) {
        char before[QK_POS_STRLEN];
        qk_pos copy = p;
        snprintf(before, sizeof before, "%s", pos_str(v, &p));
        bool over = qk_pos_status(v, &p, NULL, NULL);
        int n = qk_movegen(v, &p, moves, QK_MAX_MOVES);
        cr_assert_geq(n, 0);
        /* The counting generator (perft's last ply) agrees with the list. */
        cr_assert_eq(qk_perft(v, &p, 1), over ? 0u : (uint64_t)n, "%s %s", v->name, before);
        uint64_t sum = 0;
        for (int i = 0; i < n; i++) {
            char text[QK_MOVE_STRLEN];
            qk_move m;
            qk_undo u;
            cr_assert_gt(qk_move_format(v, &moves[i], text, sizeof text), 0);
            cr_assert_eq(qk_move_parse(v, &p, text, &m), QK_OK, "%s in %s", text, before);
            cr_assert_eq(m.len, moves[i].len);
            cr_assert_eq(m.ncap, moves[i].ncap);
            cr_assert_eq(memcmp(m.path, moves[i].path, m.len), 0);
            cr_assert_eq(memcmp(m.cap, moves[i].cap, m.ncap), 0);
            qk_pos_make(v, &p, &moves[i], &u);
            qk_pos q;
            must_pos(v, pos_str(v, &p), &q);
            cr_assert_str_eq(pos_str(v, &q), pos_str(v, &p));
            if (check_depth2 && !over)
                sum += qk_perft(v, &p, 1);
            qk_pos_unmake(v, &p, &moves[i], &u);
            cr_assert_str_eq(pos_str(v, &p), before, "unmake of %s", text);
            cr_assert_eq(memcmp(p.sq, copy.sq, sizeof p.sq), 0);
            cr_assert_eq(memcmp(p.from, copy.from, sizeof p.from), 0);
            cr_assert_eq(p.side, copy.side);
            cr_assert_eq(p.quiet, copy.quiet);
        }
        if (check_depth2 && !over)
            cr_assert_eq(qk_perft(v, &p, 2), sum, "%s %s", v->name, before);
        if (over || n == 0)
            return;
        qk_undo u;
        qk_pos_make(v, &p, &moves[rng() % (uint64_t)n], &u);
    }
}

Test(fuzz, random_playouts_are_consistent, .timeout = 120)
{
    rng_state = 0x2545F4914F6CDD1DULL;
    for (size_t i = 0; i < NVARIANTS; i++) {
        qk_variant v;
        must_variant(variants[i], &v);
        int games = v.ranks * v.files > 64 ? 4 : 12;
        for (int g = 0; g < games; g++)
            playout(&v, g % 2 == 0);
    }
}

/* Section 3 on a contrived custom position: the white man sits in a
 * lattice of 16 black men with every landing point free, so the prefixes
 * of its capture paths number far more than QK_MAX_MOVES. Listing reports
 * QK_ENOSPC, but move text is still matched, end checks still work, and
 * perft still counts. */
Test(fuzz, more_moves_than_any_array)
{
    qk_variant v;
    qk_pos p;
    qk_move m;
    static qk_move moves[QK_MAX_MOVES];
    must_variant("alquerque", &v);
    must_pos(&v, ".b.b./bbbbb/.b.b./bbbbb/wb.b. w 0 -", &p);
    cr_assert_eq(qk_movegen(&v, &p, moves, QK_MAX_MOVES), QK_ENOSPC);
    cr_assert_not(qk_pos_status(&v, &p, NULL, NULL));
    cr_assert_eq(qk_move_parse(&v, &p, "a1xc1xe1xe3xe5xc5xa5xa3xc3", &m), QK_OK);
    cr_assert_eq(m.ncap, 8);
    cr_assert_eq(qk_move_parse(&v, &p, "a1xc3xe5xc3", &m), QK_EILLEGAL);
    cr_assert_eq(qk_move_parse(&v, &p, "a1-a2", &m), QK_EILLEGAL);
    cr_assert_gt(qk_perft(&v, &p, 1), QK_MAX_MOVES);
}

/* Sections 4 and 3: a position the engine met four plies into a real
 * alquerque-traditional search has 1,285 legal moves (optional capture and
 * optional continuation make every capture prefix a move). QK_MAX_MOVES
 * must hold it, and perft must count through it. When an interior node
 * overflows, perft says so instead of returning a short count. */
Test(fuzz, reachable_position_with_many_moves)
{
    qk_variant v;
    qk_pos p;
    static qk_move moves[QK_MAX_MOVES];
    must_variant("alquerque-traditional", &v);
    must_pos(&v, "bbbbb/.wbbb/.w.w./wwwww/.w.w. b 8 -", &p);
    cr_assert_eq(qk_movegen(&v, &p, moves, QK_MAX_MOVES), 1285);
    cr_assert_eq(qk_perft(&v, &p, 1), 1285);
    cr_assert_neq(qk_perft(&v, &p, 2), QK_PERFT_OVERFLOW);

    must_variant("alquerque", &v);
    must_pos(&v, ".b.b./bbbbb/.b.b./bbbbb/wb.b. w 0 -", &p);
    cr_assert_eq(qk_perft(&v, &p, 2), QK_PERFT_OVERFLOW);
}
