/* Shared helpers of the rules tests (see util.h). */
#include "util.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *shared_path(const char *rel)
{
    static char buf[4096];
    const char *root = getenv("QK_SHARED");
    snprintf(buf, sizeof buf, "%s/%s", root && *root ? root : "../shared", rel);
    return buf;
}

void must_variant(const char *name, qk_variant *v)
{
    cr_assert_eq(qk_variant_parse(name, v), QK_OK, "variant %s", name);
}

void must_pos(const qk_variant *v, const char *s, qk_pos *p)
{
    const char *why = NULL;
    int rc = qk_pos_parse(v, s, p, &why);
    cr_assert_eq(rc, QK_OK, "position '%s' (%s): %s", s, v->name, why ? why : "?");
}

const char *legal_str(const qk_variant *v, const qk_pos *p)
{
    static char buf[QK_MAX_MOVES * 8];
    static qk_move moves[QK_MAX_MOVES];
    int n = qk_movegen_sorted(v, p, moves, QK_MAX_MOVES);
    cr_assert_geq(n, 0);
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        char t[QK_MOVE_STRLEN];
        cr_assert_gt(qk_move_format(v, &moves[i], t, sizeof t), 0);
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", i ? " " : "", t);
        cr_assert_lt(len, sizeof buf);
    }
    return buf;
}

const char *pos_str(const qk_variant *v, const qk_pos *p)
{
    static char buf[QK_POS_STRLEN];
    cr_assert_gt(qk_pos_format(v, p, buf, sizeof buf), 0);
    return buf;
}

void play(const qk_variant *v, qk_pos *p, const char *text)
{
    qk_move m;
    qk_undo u;
    int rc = qk_move_parse(v, p, text, &m);
    cr_assert_eq(rc, QK_OK, "move %s in %s: %d", text, pos_str(v, p), rc);
    qk_pos_make(v, p, &m, &u);
}

unsigned long long perft_max_nodes(void)
{
    const char *s = getenv("QK_PERFT_MAX_NODES");
    if (s && *s)
        return strtoull(s, NULL, 10);
    /* Every row of data/perft.tsv (at most 2.7 M nodes) runs in about 0.5 s
     * here and 3 s under ASan + UBSan, so the default keeps them all. */
    return 5000000;
}

void expect_legal(const char *variant, const char *pos, const char *want)
{
    qk_variant v;
    qk_pos p;
    must_variant(variant, &v);
    must_pos(&v, pos, &p);
    cr_assert_str_eq(legal_str(&v, &p), want, "%s %s", variant, pos);
}
