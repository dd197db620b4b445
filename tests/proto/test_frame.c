/* Framing (PROTOCOL.md "Framing"): lines split at every byte, limits. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "qk_frame.h"
#include "qk_proto.h"

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

/* Issue 9 item 7: the limit counts the line without its terminator, so
 * 65,536 bytes of content pass with LF and with CR LF, whether the CR LF
 * arrives with the line, alone, or split between two reads; 65,537 bytes
 * fail either way. The server answers QK_FRAME_TOOLONG with
 * line_too_long (docs/protocol.md section 1). */
static int frame_crlf_line(size_t content, const char *term, size_t split, size_t *got)
{
    size_t tl = strlen(term), n = content + tl;
    char *buf = malloc(n);
    cr_assert_not_null(buf);
    memset(buf, 'x', content);
    memcpy(buf + content, term, tl);
    qk_frame f;
    qk_frame_init(&f, 0);
    char *line;
    size_t len = 0;
    int rc = qk_frame_push(&f, buf, split);
    if (rc == 0)
        rc = qk_frame_next(&f, &line, &len);
    if (rc == 0) { /* nothing complete yet: the rest */
        rc = qk_frame_push(&f, buf + split, n - split);
        if (rc == 0)
            rc = qk_frame_next(&f, &line, &len);
    }
    if (rc == 1) {
        *got = len;
        for (size_t i = 0; i < len; i++)
            cr_assert_eq(line[i], i < content ? 'x' : '\r', "byte %zu of the line", i);
        cr_assert_eq(line[len], '\0');
        char *l2;
        size_t n2;
        cr_assert_eq(qk_frame_next(&f, &l2, &n2), 0, "a second line from one");
    }
    qk_frame_free(&f);
    free(buf);
    return rc;
}

Test(frame, crlf_line_of_exactly_the_limit_passes)
{
    size_t L = QK_FRAME_DEFAULT_LIMIT;
    cr_assert_eq(L, 65536);
    size_t splits[] = {L + 2, L, L + 1, 1, L - 1};
    for (size_t i = 0; i < sizeof splits / sizeof *splits; i++) {
        size_t got = 0;
        cr_assert_eq(frame_crlf_line(L, "\r\n", splits[i], &got), 1, "split at %zu", splits[i]);
        cr_assert_eq(got, L, "split at %zu", splits[i]);
        got = 0;
        if (splits[i] <= L + 1) {
            cr_assert_eq(frame_crlf_line(L, "\n", splits[i], &got), 1, "LF, split at %zu",
                         splits[i]);
            cr_assert_eq(got, L);
        }
    }
}

Test(frame, crlf_line_one_over_the_limit_fails)
{
    size_t L = QK_FRAME_DEFAULT_LIMIT, got = 0;
    size_t splits[] = {L + 3, L + 1, L + 2, 1};
    for (size_t i = 0; i < sizeof splits / sizeof *splits; i++) {
        cr_assert_eq(frame_crlf_line(L + 1, "\r\n", splits[i], &got), QK_FRAME_TOOLONG,
                     "split at %zu", splits[i]);
        cr_assert_eq(frame_crlf_line(L + 1, "\n", splits[i] < L + 2 ? splits[i] : L + 2, &got),
                     QK_FRAME_TOOLONG, "LF, split at %zu", splits[i]);
    }
    /* Two CRs: only the one before the LF is the terminator. */
    cr_assert_eq(frame_crlf_line(L, "\r\r\n", L + 1, &got), QK_FRAME_TOOLONG);
    cr_assert_eq(frame_crlf_line(L - 1, "\r\r\n", L + 1, &got), 1);
    cr_assert_eq(got, L);
    cr_assert_str_eq(qk_err_code(QK_ERR_LINE_TOO_LONG), "line_too_long");
}

/* A CR at limit + 1 is held only while it may be the terminator: any byte
 * after it other than LF makes the line too long. */
Test(frame, held_cr_then_more_content_fails)
{
    qk_frame f;
    char buf[34];
    char *line;
    size_t len;
    memset(buf, 'x', 32);
    buf[32] = '\r';
    qk_frame_init(&f, 32);
    cr_assert_eq(qk_frame_push(&f, buf, 33), 0);
    cr_assert_eq(qk_frame_next(&f, &line, &len), 0);
    cr_assert_eq(qk_frame_push(&f, "y", 1), 0);
    cr_assert_eq(qk_frame_next(&f, &line, &len), QK_FRAME_TOOLONG);
    qk_frame_free(&f);
}
