/* Text forms and small API contracts of the rules module: position-string
 * rejections with their exact reasons (RULES.md section 1), point and move
 * text, buffer limits, variant listing and names, the order of the end
 * checks (section 8). */
#include <criterion/criterion.h>
#include <string.h>

#include "util.h"

#define KAWU_START "bbbbb/bbbbb/ww.bb/wwwww/wwwww w 0 -"

static const struct {
    const char *variant, *pos, *why;
} rejects[] = {
    /* field 1: board */
    {"alquerque", "bbbbb/bbbbb/ww.bb/wwwww/wwww w 0 -",
     "wrong board size: a rank has too few points"},
    {"alquerque", "bbbbb/bbbb/ww.bb/wwwww/wwwww w 0 -",
     "wrong board size: a rank has too few points"},
    {"alquerque", "bbbbbb/bbbbb/ww.bb/wwwww/wwwww w 0 -",
     "wrong board size: a rank has too many points"},
    {"alquerque", "bbbbb/bbbbb/ww.bb/wwwww/wwwwww w 0 -",
     "wrong board size: a rank has too many points"},
    {"alquerque", "bbbbb/bbbbb/ww.bb/wwwww w 0 -", "wrong board size: too few ranks"},
    {"alquerque", "bbbbb/bbbbb/ww.bb/wwwww/wwwww/..... w 0 -", "wrong board size: too many ranks"},
    {"alquerkonane-6x4", KAWU_START, "wrong board size: a rank has too many points"},
    {"alquerkonane-8x8", "w.w./.w.w/..../..../.b.b/b.b. b 0 -",
     "wrong board size: a rank has too few points"},
    {"alquerque", "bbbbb/bbbbb/ww.bb/wwxww/wwwww w 0 -",
     "unknown letter in the board (expected w, b, W, B or .)"},
    {"alquerque", "bbbbb/bbbbb/ww bb/wwwww/wwwww w 0 -",
     "wrong board size: a rank has too few points"},
    {"alquerque", "bbbbb/bbbbb/ww.bb/wwwww/wwwww\tw 0 -",
     "unknown letter in the board (expected w, b, W, B or .)"},
    {"alquerque", "bbbbb/bbbbb/ww.bb/wwwww/wwwwW w 0 -",
     "Sultans (W, B) do not exist in this variant"},
    {"alquerque-brainking", "Bbbbb/bbbbb/bb.ww/wwwww/wwwww w 0 -",
     "Sultans (W, B) do not exist in this variant"},
    {"alquerkonane-6x4", "W.w./.w.w/..../..../.b.b/b.b. b 0 -",
     "Sultans (W, B) do not exist in this variant"},
    {"alquerque", "", "wrong board size: a rank has too few points"},
    /* field 2: side */
    {"alquerque", "bbbbb/bbbbb/ww.bb/wwwww/wwwww", "missing side to move"},
    {"alquerque", "bbbbb/bbbbb/ww.bb/wwwww/wwwww x 0 -", "side to move must be w or b"},
    {"alquerque", "bbbbb/bbbbb/ww.bb/wwwww/wwwww W 0 -", "side to move must be w or b"},
    {"alquerque", "bbbbb/bbbbb/ww.bb/wwwww/wwwww wb 0 -", "side to move must be w or b"},
    {"alquerque", "bbbbb/bbbbb/ww.bb/wwwww/wwwww  w 0 -", "side to move must be w or b"},
    {"alquerque", "bbbbb/bbbbb/ww.bb/wwwww/wwwww w", "missing no-capture count"},
    /* field 3: count */
    {"alquerque", "bbbbb/bbbbb/ww.bb/wwwww/wwwww w -1 -",
     "bad no-capture count: expected a decimal number"},
    {"alquerque", "bbbbb/bbbbb/ww.bb/wwwww/wwwww w  0 -",
     "bad no-capture count: expected a decimal number"},
    {"alquerque", "bbbbb/bbbbb/ww.bb/wwwww/wwwww w 00 -", "bad no-capture count: leading zero"},
    {"alquerkonane-6x4", "w.w./.w.w/..../..../.b.b/b.b. b 65536 -",
     "bad no-capture count: too large"},
    {"alquerkonane-6x4", "w.w./.w.w/..../..../.b.b/b.b. b 123456 -",
     "bad no-capture count: too large"},
    {"alquerque", "bbbbb/bbbbb/ww.bb/wwwww/wwwww w 1a -", "bad no-capture count"},
    {"alquerque", "bbbbb/bbbbb/ww.bb/wwwww/wwwww w 0", "missing memory field (use -)"},
    /* field 4: memory */
    {"alquerque", "bbbbb/bbbbb/ww.bb/wwwww/w.www w 0 c1:b1",
     "memory field must be - in this variant"},
    {"alquerque-stoep-short", "bbbbb/bbbbb/bb.ww/wwwww/w.www w 0 c1:b1",
     "memory field must be - in this variant"},
    {"alquerque-brainking", "....b/...../...../...../..w.. b 1 c1b1",
     "malformed memory: expected piece:start pairs like c3:b3"},
    {"alquerque-brainking", "....b/...../...../...../..w.. b 1 c1:",
     "malformed memory: expected piece:start pairs like c3:b3"},
    {"alquerque-brainking", "....b/...../...../...../..w.. b 1 c1:b1,",
     "malformed memory: expected piece:start pairs like c3:b3"},
    {"alquerque-brainking", "....b/...../...../...../..w.. b 1 c1:f1",
     "malformed memory: expected piece:start pairs like c3:b3"},
    {"alquerque-brainking", "....b/...../...../...../..w.. b 1 ",
     "malformed memory: expected piece:start pairs like c3:b3"},
    {"alquerque-brainking", "....b/...../...../...../..ww. b 1 d1:e1,c1:b1",
     "impossible memory: pairs must be ordered by point, each once"},
    {"alquerque-brainking", "....b/...../...../...../..w.. b 1 c1:b1,c1:d1",
     "impossible memory: pairs must be ordered by point, each once"},
    {"alquerque-brainking", "....b/...../...../...../..w.. b 1 d1:c1",
     "impossible memory: no piece on the point"},
    {"alquerque-brainking", "....b/...../...../...../..w.. b 1 c1:c2",
     "impossible memory: start is not a point the piece could step to"},
    {"alquerque-brainking", "....b/...../...../...../..w.. b 1 c1:e1",
     "impossible memory: start is not a point the piece could step to"},
    {"alquerque-brainking", "....b/...../...../...../..w.. b 1 c1:b2",
     "impossible memory: start is not a point the piece could step to"},
    {"alquerque-brainking", "w...b/...../...../...../..... b 1 a5:b5",
     "impossible memory: start is not a point the piece could step to"},
    {"alquerque-brainking", "....b/...../...../...../..w.. b 1 c1:c1",
     "impossible memory: start is not a point the piece could step to"},
    /* after the fields */
    {"alquerque", KAWU_START " ", "trailing characters after the position"},
    {"alquerque", KAWU_START "\n", "trailing characters after the position"},
    {"alquerque", KAWU_START " x", "trailing characters after the position"},
    {"alquerque", "bbbbb/bbbbb/ww.bb/wwwww/wwwww w 0 --", "trailing characters after the position"},
    {"alquerque-brainking", "....b/...../...../...../..w.. b 1 c1:b1 ",
     "trailing characters after the position"},
};

/* Section 1: each rejection names its reason, and the output is left as
 * it was. */
Test(section1, position_rejections_with_reasons)
{
    for (size_t i = 0; i < sizeof rejects / sizeof rejects[0]; i++) {
        qk_variant v;
        qk_pos p, before;
        const char *why = NULL;
        must_variant(rejects[i].variant, &v);
        memset(&p, 0x5A, sizeof p);
        before = p;
        cr_assert_eq(qk_pos_parse(&v, rejects[i].pos, &p, &why), QK_EINVAL, "%s '%s'",
                     rejects[i].variant, rejects[i].pos);
        cr_assert_not_null(why);
        cr_assert_str_eq(why, rejects[i].why, "%s '%s'", rejects[i].variant, rejects[i].pos);
        cr_assert_eq(memcmp(&p, &before, sizeof p), 0, "output touched on error");
        /* why is optional */
        cr_assert_eq(qk_pos_parse(&v, rejects[i].pos, &p, NULL), QK_EINVAL);
    }
    qk_variant v;
    qk_pos p;
    const char *why = NULL;
    must_variant("alquerque", &v);
    cr_assert_eq(qk_pos_parse(&v, NULL, &p, &why), QK_EINVAL);
    cr_assert_str_eq(why, "no position");
}

/* Section 1: positions that are fine, including the edge counts. */
Test(section1, positions_accepted)
{
    static const struct {
        const char *variant, *pos;
    } ok[] = {
        {"alquerque", "bbbbb/bbbbb/ww.bb/wwwww/wwwww w 40 -"},
        {"alquerque-stoep-long", "bbbbb/bbbbb/bb.ww/wwwww/wwwww w 41 -"},
        {"alquerque", "...../...../...../...../..... b 0 -"},
        {"alquerque-stoep-long", "WWWWW/BBBBB/wwbbw/...../..... b 17 -"},
        {"alquerkonane-6x4", "w.w./.w.w/..../..../.b.b/b.b. b 65535 -"},
        {"alquerque-brainking", "....b/...../...../...../.ww.. b 2 b1:a1,c1:b1"},
        {"alquerque-brainking", "....b/...b./...../...../..w.. w 1 c1:d1,d4:e4"},
        {"alquerque-brainking", ".bbbb/wbbbb/.b..w/.ww.w/w.w.w w 1 b3:c3,b4:a4"},
        {"alquerkonane-12x12", "............/............/............/............/"
                               "............/............/............/............/"
                               "............/............/............/bbbbbbbbbbbb b 0 -"},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        qk_variant v;
        qk_pos p;
        must_variant(ok[i].variant, &v);
        must_pos(&v, ok[i].pos, &p);
        cr_assert_str_eq(pos_str(&v, &p), ok[i].pos);
    }
}

/* Section 1: move text syntax (QK_EINVAL) against legality (QK_EILLEGAL). */
Test(section1, move_text)
{
    qk_variant v;
    qk_pos p;
    qk_move m;
    must_variant("alquerque", &v);
    qk_variant_start(&v, &p);
    static const char *const syntax[] = {
        "",       "b2",     "b2-",    "b2-c3-", "b2-c3-d4", "b2xc3-d4", "b2-c3xd4",
        "B2-c3",  "b2 -c3", "b2-c3 ", "b02-c3", "b2-c0",    "f1-e1",    "a6-a5",
        "b2--c3", "b2_c3",  "b2xc3x", "-b2",    "b2c3",     "\xff\xfe", "b2-c3\n",
    };
    for (size_t i = 0; i < sizeof syntax / sizeof syntax[0]; i++)
        cr_assert_eq(qk_move_parse(&v, &p, syntax[i], &m), QK_EINVAL, "'%s'", syntax[i]);
    cr_assert_eq(qk_move_parse(&v, &p, NULL, &m), QK_EINVAL);
    static const char *const illegal[] = {"a1-a2", "b2xc3", "c3-b2", "b2-b3", "b2xd4xb2", "e5-e4"};
    for (size_t i = 0; i < sizeof illegal / sizeof illegal[0]; i++)
        cr_assert_eq(qk_move_parse(&v, &p, illegal[i], &m), QK_EILLEGAL, "'%s'", illegal[i]);
    cr_assert_eq(qk_move_parse(&v, &p, "d2-c3", &m), QK_OK);
    cr_assert_eq(m.len, 2);
    cr_assert_eq(m.ncap, 0);
    cr_assert_eq(m.path[0], 8);  /* d2 */
    cr_assert_eq(m.path[1], 12); /* c3 */
    /* A 33-point capture is longer than any move can be. */
    char longtext[256] = "a1";
    for (int i = 0; i < 32; i++)
        strcat(longtext, i % 2 ? "xa1" : "xc1");
    cr_assert_eq(qk_move_parse(&v, &p, longtext, &m), QK_EINVAL);
}

/* Section 1: capture text lists every landing point; the move records the
 * captured points too. */
Test(section1, capture_move_fields)
{
    qk_variant v;
    qk_pos p;
    qk_move m;
    char buf[QK_MOVE_STRLEN];
    must_variant("alquerque", &v);
    must_pos(&v, "...../...b./...../.b.../w.... w 0 -", &p);
    cr_assert_eq(qk_move_parse(&v, &p, "a1xc3xe5", &m), QK_OK);
    cr_assert_eq(m.len, 3);
    cr_assert_eq(m.ncap, 2);
    cr_assert_eq(m.cap[0], 6);  /* b2 */
    cr_assert_eq(m.cap[1], 18); /* d4 */
    cr_assert_eq(qk_move_format(&v, &m, buf, sizeof buf), 8);
    cr_assert_str_eq(buf, "a1xc3xe5");
}

/* Formatters never write past n, always terminate, and report QK_ENOSPC. */
Test(section1, buffers_too_small)
{
    qk_variant v;
    qk_pos p;
    qk_move m;
    char buf[64];
    must_variant("alquerque", &v);
    qk_variant_start(&v, &p);
    size_t len = strlen(KAWU_START);
    for (size_t n = 0; n <= len + 1; n++) {
        memset(buf, '#', sizeof buf);
        int rc = qk_pos_format(&v, &p, buf, n);
        if (n > len) {
            cr_assert_eq(rc, (int)len);
            cr_assert_str_eq(buf, KAWU_START);
        } else {
            cr_assert_eq(rc, QK_ENOSPC, "n=%zu", n);
            if (n)
                cr_assert_eq(buf[0], '\0');
        }
        for (size_t k = n; k < sizeof buf; k++)
            cr_assert_eq(buf[k], '#', "wrote past %zu", n);
    }
    cr_assert_eq(qk_move_parse(&v, &p, "d2-c3", &m), QK_OK);
    memset(buf, '#', sizeof buf);
    cr_assert_eq(qk_move_format(&v, &m, buf, 5), QK_ENOSPC);
    cr_assert_eq(buf[5], '#');
    cr_assert_eq(qk_move_format(&v, &m, buf, 6), 5);
    cr_assert_eq(qk_point_format(&v, 25, buf, sizeof buf), QK_EINVAL);
    cr_assert_eq(qk_point_format(&v, -1, buf, sizeof buf), QK_EINVAL);
    cr_assert_eq(qk_point_format(&v, 24, buf, 2), QK_ENOSPC);
    cr_assert_eq(qk_point_format(&v, 24, buf, 3), 2);
    cr_assert_str_eq(buf, "e5");
}

/* qk_movegen: QK_ENOSPC when the caller's array is too small. */
Test(section1, movegen_capacity)
{
    qk_variant v;
    qk_pos p;
    qk_move moves[4];
    must_variant("alquerque", &v);
    qk_variant_start(&v, &p);
    cr_assert_eq(qk_movegen(&v, &p, moves, 3), QK_ENOSPC);
    cr_assert_eq(qk_movegen_sorted(&v, &p, moves, 3), QK_ENOSPC);
    cr_assert_eq(qk_movegen(&v, &p, moves, 4), 4);
    cr_assert_eq(qk_movegen_sorted(&v, &p, moves, 4), 4);
}

/* Section 1: the listed names, in order, each parsing except the pattern. */
Test(section1, variant_list_and_flags)
{
    static const char *const want[] = {
        "alquerque",
        "alquerque-traditional",
        "alquerque-brainking",
        "alquerque-stoep-short",
        "alquerque-stoep-long",
        "alquerkonane-8x8",
        "alquerkonane-6x4",
        "alquerkonane-RxC",
    };
    static const bool draws[] = {true, true, false, true, true, false, false};
    static const bool sultans[] = {false, false, false, true, true, false, false};
    size_t i;
    for (i = 0; qk_variant_list(i); i++) {
        cr_assert_lt(i, 8);
        cr_assert_str_eq(qk_variant_list(i), want[i]);
    }
    cr_assert_eq(i, 8);
    for (i = 0; i < 7; i++) {
        qk_variant v;
        must_variant(want[i], &v);
        cr_assert_str_eq(v.name, want[i]);
        cr_assert_eq(qk_variant_has_draws(&v), draws[i], "%s", want[i]);
        cr_assert_eq(qk_variant_has_sultans(&v), sultans[i], "%s", want[i]);
        cr_assert_eq(qk_variant_is_konane(&v), i >= 5, "%s", want[i]);
        const char *sum = qk_variant_summary(&v);
        cr_assert(sum && strstr(sum, "RULES.md section"), "%s", want[i]);
    }
    qk_variant v;
    cr_assert_eq(qk_variant_parse("alquerkonane-RxC", &v), QK_EINVAL);
}

/* PROTOCOL.md words for results and reasons. */
Test(section1, result_and_reason_words)
{
    cr_assert_null(qk_result_name(QK_RESULT_NONE));
    cr_assert_null(qk_reason_name(QK_REASON_NONE));
    cr_assert_str_eq(qk_result_name(QK_RESULT_DRAW), "draw");
    cr_assert_str_eq(qk_reason_name(QK_REASON_SULTAN_MAJORITY), "sultan_majority");
    for (int r = QK_RESULT_WHITE; r <= QK_RESULT_DRAW; r++)
        cr_assert_eq(qk_result_parse(qk_result_name((qk_result)r)), r);
    for (int r = QK_REASON_NO_PIECES; r <= QK_REASON_ADJUDICATED; r++)
        cr_assert_eq(qk_reason_parse(qk_reason_name((qk_reason)r)), r);
    cr_assert_eq(qk_result_parse("none"), -1);
    cr_assert_eq(qk_result_parse(NULL), -1);
    cr_assert_eq(qk_reason_parse("No_moves"), -1);
    cr_assert_eq(qk_reason_parse(""), -1);
    cr_assert_null(qk_result_name((qk_result)99));
    cr_assert_null(qk_reason_name((qk_reason)99));
}

static void expect_end(const char *variant, const char *pos, qk_result res, qk_reason why)
{
    qk_variant v;
    qk_pos p;
    qk_result r;
    qk_reason w;
    must_variant(variant, &v);
    must_pos(&v, pos, &p);
    cr_assert_eq(qk_pos_status(&v, &p, &r, &w), res != QK_RESULT_NONE, "%s %s", variant, pos);
    cr_assert_eq(r, res, "%s %s", variant, pos);
    cr_assert_eq(w, why, "%s %s", variant, pos);
    /* Either out pointer may be NULL. */
    cr_assert_eq(qk_pos_status(&v, &p, NULL, NULL), res != QK_RESULT_NONE);
}

/* Section 8: the checks run in order. 1 before 2: no piece loses even
 * though neither side has a man and the Sultans differ by one. 1 before 3:
 * no move at count 40 loses. 2 before 3: Sultan majority wins the tie with
 * the count. */
Test(section8, order_of_end_checks)
{
    expect_end("alquerque-stoep-short", "W..../...../...../...../..... b 0 -", QK_RESULT_WHITE,
               QK_REASON_NO_PIECES);
    expect_end("alquerque-stoep-long", "...../...../...../...../....B w 40 -", QK_RESULT_BLACK,
               QK_REASON_NO_PIECES);
    expect_end("alquerque", "...../...../b.b../bb.../wbb.. w 40 -", QK_RESULT_BLACK,
               QK_REASON_NO_MOVES);
    expect_end("alquerque-traditional", "...../...../b.b../bb.../wbb.. w 40 -", QK_RESULT_BLACK,
               QK_REASON_NO_MOVES);
    expect_end("alquerque-stoep-long", "W..../...../...../...../....B w 40 -", QK_RESULT_DRAW,
               QK_REASON_SULTAN_MAJORITY);
    expect_end("alquerque-stoep-long", "WWW../...../...../...../....B w 40 -", QK_RESULT_DRAW,
               QK_REASON_MOVE_LIMIT);
    expect_end("alquerque-traditional", "....b/...../...../...../ww... b 40 -", QK_RESULT_WHITE,
               QK_REASON_MOVE_LIMIT);
    expect_end("alquerque", KAWU_START, QK_RESULT_NONE, QK_REASON_NONE);
    /* Past the limit (only reachable by playing on) is still finished. */
    expect_end("alquerque", "bbbbb/bbbbb/ww.bb/wwwww/wwwww w 41 -", QK_RESULT_DRAW,
               QK_REASON_MOVE_LIMIT);
    /* BrainKing and Alquerkonane have no move limit. */
    expect_end("alquerque-brainking", "....b/...../...../...../w.... w 300 -", QK_RESULT_NONE,
               QK_REASON_NONE);
}

/* qk_movegen_sorted sorts short lists with each text formatted once and
 * long ones (over 64 moves) comparing formatted pairs: both give the same
 * set as qk_movegen(), in strictly increasing strcmp order of the texts
 * (qk_rules.h), two-digit ranks included. Random playouts from the start
 * positions, and on 12x12 Alquerkonane (section 7) from a board of
 * "wb." rows, where White has 81 jumps. */
Test(section1, sorted_movegen_is_strcmp_order_for_short_and_long_lists)
{
    static const char *const names[] = {"alquerkonane-12x12", "alquerkonane-12x12", "alquerque",
                                        "alquerque-brainking"};
    static const char *const from[] = {
        "wb.wb.wb.wb./wb.wb.wb.wb./wb.wb.wb.wb./wb.wb.wb.wb./wb.wb.wb.wb./wb.wb.wb.wb./"
        "wb.wb.wb.wb./wb.wb.wb.wb./wb.wb.wb.wb./wb.wb.wb.wb./wb.wb.wb.wb./wb.wb.wb.wb. w 0 -",
        NULL, NULL, NULL};
    static qk_move gen[QK_MAX_MOVES], sorted[QK_MAX_MOVES];
    uint64_t seed = 0x2545F4914F6CDD1Dull;
    int longest = 0, short_lists = 0;
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        qk_variant v;
        must_variant(names[k], &v);
        for (int game = 0; game < 20; game++) {
            qk_pos p;
            if (from[k])
                must_pos(&v, from[k], &p);
            else
                qk_variant_start(&v, &p);
            for (int ply = 0; ply < 200; ply++) {
                int n = qk_movegen(&v, &p, gen, QK_MAX_MOVES);
                cr_assert_eq(qk_movegen_sorted(&v, &p, sorted, QK_MAX_MOVES), n);
                if (n <= 0)
                    break;
                if (n > longest)
                    longest = n;
                short_lists += n > 1 && n <= 64;
                char prev[QK_MOVE_STRLEN] = "";
                for (int i = 0; i < n; i++) {
                    char t[QK_MOVE_STRLEN];
                    qk_move_format(&v, &sorted[i], t, sizeof t);
                    cr_assert(i == 0 || strcmp(prev, t) < 0, "%s: %s before %s", names[k], prev, t);
                    strcpy(prev, t);
                    int found = 0;
                    for (int j = 0; j < n; j++) {
                        char u[QK_MOVE_STRLEN];
                        qk_move_format(&v, &gen[j], u, sizeof u);
                        found += strcmp(t, u) == 0;
                    }
                    cr_assert_eq(found, 1, "%s: %s", names[k], t);
                }
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                qk_undo u;
                qk_pos_make(&v, &p, &gen[seed % (uint64_t)n], &u);
            }
        }
    }
    cr_assert_eq(longest, 81, "the longest list is the first position's");
    cr_assert_gt(short_lists, 100);
}
