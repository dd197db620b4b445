/* Framing (PROTOCOL.md "Framing"): lines split at every byte, limits. */
#include <criterion/criterion.h>
#include <string.h>

#include "qk_frame.h"

Test(frame, split_at_every_byte)
{
    const char *msg = "{\"type\":\"ping\",\"id\":1}\n\n{\"type\":\"hello\"}\r\n";
    size_t n = strlen(msg);
    for (size_t cut = 0; cut <= n; cut++) {
        qk_frame f;
        qk_frame_init(&f, 0);
        char *line;
        size_t len;
        int got = 0;
        const char *want[] = {"{\"type\":\"ping\",\"id\":1}", "", "{\"type\":\"hello\"}"};
        cr_assert_eq(qk_frame_push(&f, msg, cut), 0);
        while (qk_frame_next(&f, &line, &len) == 1) {
            cr_assert_str_eq(line, want[got]);
            cr_assert_eq(len, strlen(want[got]));
            got++;
        }
        cr_assert_eq(qk_frame_push(&f, msg + cut, n - cut), 0);
        while (qk_frame_next(&f, &line, &len) == 1) {
            cr_assert_str_eq(line, want[got]);
            got++;
        }
        cr_assert_eq(got, 3, "cut at %zu gave %d lines", cut, got);
        qk_frame_free(&f);
    }
}

Test(frame, one_byte_at_a_time)
{
    const char *msg = "{\"a\":1}\n{\"b\":2}\n";
    qk_frame f;
    qk_frame_init(&f, 16);
    int got = 0;
    for (size_t i = 0; msg[i]; i++) {
        char *line;
        size_t len;
        cr_assert_eq(qk_frame_push(&f, msg + i, 1), 0);
        while (qk_frame_next(&f, &line, &len) == 1)
            got++;
    }
    cr_assert_eq(got, 2);
    qk_frame_free(&f);
}

Test(frame, line_at_limit_passes_over_limit_fails)
{
    qk_frame f;
    char buf[40];
    char *line;
    size_t len;
    memset(buf, 'x', sizeof buf);
    qk_frame_init(&f, 32);
    buf[32] = '\n';
    cr_assert_eq(qk_frame_push(&f, buf, 33), 0);
    cr_assert_eq(qk_frame_next(&f, &line, &len), 1);
    cr_assert_eq(len, 32);
    qk_frame_free(&f);

    qk_frame_init(&f, 32);
    cr_assert_eq(qk_frame_push(&f, buf, 33), 0); /* 33 x's, no newline yet */
    buf[32] = 'x';
    qk_frame_free(&f);
    qk_frame_init(&f, 32);
    cr_assert_eq(qk_frame_push(&f, buf, 33), 0);
    cr_assert_eq(qk_frame_next(&f, &line, &len), QK_FRAME_TOOLONG);
    /* Poisoned: later input is refused, not buffered. */
    cr_assert_eq(qk_frame_push(&f, "\n", 1), QK_FRAME_TOOLONG);
    qk_frame_free(&f);
}

Test(frame, one_mebibyte_line_is_refused_before_it_is_buffered)
{
    qk_frame f;
    qk_frame_init(&f, 0);
    char chunk[4096];
    memset(chunk, 'a', sizeof chunk);
    char *line;
    size_t len;
    int rc = 0;
    size_t pushed = 0;
    while (pushed < 1024 * 1024) {
        if ((rc = qk_frame_push(&f, chunk, sizeof chunk)) != 0)
            break;
        pushed += sizeof chunk;
        if ((rc = qk_frame_next(&f, &line, &len)) != 0)
            break;
    }
    cr_assert_eq(rc, QK_FRAME_TOOLONG);
    cr_assert_leq(pushed, QK_FRAME_DEFAULT_LIMIT + sizeof chunk);
    qk_frame_free(&f);
}
