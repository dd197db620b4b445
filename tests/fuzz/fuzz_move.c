/*
 * libFuzzer target: move text (qk_move_parse, RULES.md section 1).
 *
 * Input: a variant byte (fz_variant_name), then a position string up to
 * the first '\n' and the move text after it; without a '\n', or when the
 * position is refused, the text is tried on the variant's start position.
 * For an accepted move: it is one of qk_movegen()'s moves (same path and
 * captures), its text formats back to a string that parses to the same
 * move, and make/unmake restores the position. Refusals are QK_EINVAL or
 * QK_EILLEGAL and leave *out untouched.
 */
#include <stdint.h>

#include "fuzz_util.h"

#define FZ_MOVES 32768
static qk_move moves[FZ_MOVES];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0 || size > 4096)
        return 0;
    qk_variant v;
    const char *name = fz_variant_name(data[0]);
    fz_check(qk_variant_parse(name, &v) == QK_OK, "variant %s refused", name);
    char *s = fz_strndup(data + 1, size - 1);
    qk_pos p;
    qk_variant_start(&v, &p);
    char *text = s, *nl = strchr(s, '\n');
    if (nl) {
        *nl = '\0';
        text = nl + 1;
        qk_pos q;
        if (qk_pos_parse(&v, s, &q, NULL) == QK_OK)
            p = q;
    }
    qk_move m;
    memset(&m, 0x5A, sizeof m);
    qk_move before = m;
    int rc = qk_move_parse(&v, &p, text, &m);
    if (rc != QK_OK) {
        fz_check(rc == QK_EINVAL || rc == QK_EILLEGAL, "unexpected rc %d", rc);
        fz_check(memcmp(&m, &before, sizeof m) == 0, "*out changed on error");
        free(s);
        return 0;
    }
    fz_check(m.len >= 2 && m.len <= QK_MAX_PATH && m.ncap <= QK_MAX_PATH, "malformed move");
    int nm = qk_movegen(&v, &p, moves, FZ_MOVES);
    fz_check(nm > 0 || nm == QK_ENOSPC, "%s: parsed '%s' but movegen gives %d", name, text, nm);
    if (nm > 0) {
        bool found = false;
        for (int i = 0; i < nm && !found; i++)
            found = moves[i].len == m.len && moves[i].ncap == m.ncap &&
                    memcmp(moves[i].path, m.path, m.len) == 0 &&
                    memcmp(moves[i].cap, m.cap, m.ncap) == 0;
        fz_check(found, "%s: '%s' accepted but not generated", name, text);
    }
    char out[QK_MOVE_STRLEN];
    fz_check(qk_move_format(&v, &m, out, sizeof out) > 0, "unformattable");
    qk_move back;
    fz_check(qk_move_parse(&v, &p, out, &back) == QK_OK && back.len == m.len &&
                 memcmp(back.path, m.path, m.len) == 0,
             "%s: '%s' -> '%s' does not parse back", name, text, out);
    qk_pos q = p;
    qk_undo u;
    qk_pos_make(&v, &q, &m, &u);
    qk_pos_unmake(&v, &q, &m, &u);
    fz_check(fz_pos_equal(&p, &q), "%s: make/unmake of %s", name, out);
    free(s);
    return 0;
}
