/* The questions the server asks to explain a refused move: which section
 * obliges capture, whether a capture is due now, and whether two points
 * are joined by a line (RULES.md sections 2, 3, 4, 5, 6, 7). */
#include <criterion/criterion.h>

#include "util.h"

static int pt(const qk_variant *v, const char *name)
{
    int p;
    cr_assert_eq(qk_point_parse(v, name, &p), QK_OK, "%s", name);
    return p;
}

Test(explain, capture_sections)
{
    const struct {
        const char *name;
        int section;
    } rows[] = {{"alquerque", 3},         {"alquerque-traditional", 0}, {"alquerque-brainking", 5},
                {"alquerque-stoep-short", 0}, {"alquerque-stoep-long", 0},  {"alquerkonane-6x4", 0}};
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        qk_variant v;
        must_variant(rows[i].name, &v);
        cr_assert_eq(qk_variant_capture_section(&v), rows[i].section, "%s", rows[i].name);
    }
}

/* Section 3: c3 faces c4 with c5 empty, so White must capture; from the
 * kawu start there is nothing to take. Section 4: the same position,
 * but capture is optional. */
Test(explain, must_capture)
{
    qk_variant v;
    qk_pos p;
    must_variant("alquerque", &v);
    must_pos(&v, "...../..b../..w../...../w...w w 0 -", &p);
    cr_assert(qk_pos_must_capture(&v, &p));
    qk_variant_start(&v, &p);
    cr_assert_not(qk_pos_must_capture(&v, &p));
    must_variant("alquerque-traditional", &v);
    must_pos(&v, "...../..b../..w../...../w...w w 0 -", &p);
    cr_assert_not(qk_pos_must_capture(&v, &p));
}

/* Section 2: a1 and c3 carry an X, b1 and a2 do not; section 7: every
 * diagonal neighbour on a chequered board. */
Test(explain, points_linked)
{
    qk_variant v;
    must_variant("alquerque", &v);
    cr_assert(qk_points_linked(&v, pt(&v, "a1"), pt(&v, "b2")));
    cr_assert(qk_points_linked(&v, pt(&v, "b2"), pt(&v, "a1")));
    cr_assert(qk_points_linked(&v, pt(&v, "e1"), pt(&v, "d2")));
    cr_assert(qk_points_linked(&v, pt(&v, "a2"), pt(&v, "a3")));
    cr_assert_not(qk_points_linked(&v, pt(&v, "a2"), pt(&v, "b3")));
    cr_assert_not(qk_points_linked(&v, pt(&v, "b1"), pt(&v, "c2")));
    cr_assert_not(qk_points_linked(&v, pt(&v, "a1"), pt(&v, "a3")));
    cr_assert_not(qk_points_linked(&v, pt(&v, "e1"), pt(&v, "a2"))); /* no wrap-around */
    cr_assert_not(qk_points_linked(&v, pt(&v, "a1"), pt(&v, "a1")));
    cr_assert_not(qk_points_linked(&v, -1, 0));
    cr_assert_not(qk_points_linked(&v, 0, 25));
    must_variant("alquerkonane-6x4", &v);
    cr_assert(qk_points_linked(&v, pt(&v, "b1"), pt(&v, "c2")));
    cr_assert(qk_points_linked(&v, pt(&v, "d6"), pt(&v, "c5")));
    cr_assert_not(qk_points_linked(&v, pt(&v, "d1"), pt(&v, "a2")));
}
