/*
 * libFuzzer target: position strings (qk_pos_parse, RULES.md section 1).
 *
 * The first input byte picks the variant (fz_variant_name), the rest is the
 * string (made NUL-terminated; an embedded NUL ends it, as in C). For an
 * accepted string: qk_pos_format() gives back exactly the input (the
 * contract of qk_rules.h), qk_pos_status() and qk_movegen() run, and every
 * generated move is formatted, parsed back to the same move with
 * qk_move_parse(), and made and unmade leaving the position as it was.
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
    memset(&p, 0xA5, sizeof p);
    const char *why = NULL;
    int rc = qk_pos_parse(&v, s, &p, &why);
    if (rc != QK_OK) {
        fz_check(rc == QK_EINVAL, "unexpected rc %d", rc);
        free(s);
        return 0;
    }
    char out[QK_POS_STRLEN];
    int n = qk_pos_format(&v, &p, out, sizeof out);
    fz_check(n >= 0 && strcmp(out, s) == 0, "%s: format(parse(s)) != s: '%s' vs '%s'", name, out,
             s);
    qk_result res;
    qk_reason reason;
    (void)qk_pos_status(&v, &p, &res, &reason);
    int nm = qk_movegen(&v, &p, moves, FZ_MOVES);
    fz_check(nm >= 0 || nm == QK_ENOSPC, "movegen rc %d", nm);
    if (nm > 256)
        nm = 256; /* bound the work per input */
    for (int i = 0; i < nm; i++) {
        char text[QK_MOVE_STRLEN];
        fz_check(qk_move_format(&v, &moves[i], text, sizeof text) > 0, "move %d unformattable", i);
        qk_move back;
        fz_check(qk_move_parse(&v, &p, text, &back) == QK_OK, "%s: own move %s refused in %s", name,
                 text, s);
        fz_check(back.len == moves[i].len && memcmp(back.path, moves[i].path, moves[i].len) == 0,
                 "%s: %s parsed to another path", name, text);
        qk_pos q = p;
        qk_undo u;
        qk_pos_make(&v, &q, &moves[i], &u);
        qk_pos_unmake(&v, &q, &moves[i], &u);
        fz_check(fz_pos_equal(&p, &q), "%s: make/unmake of %s changed %s", name, text, s);
    }
    free(s);
    return 0;
}
