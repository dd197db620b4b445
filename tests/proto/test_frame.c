/* Framing (PROTOCOL.md "Framing"): lines split at every byte, limits. */
#include <criterion/criterion.h>
#include <stdio.h>
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

/* ---- lent input (qk_frame_lend / qk_frame_settle): the server reads
 * every socket into one shared buffer and keeps per connection only what
 * was not taken ---------------------------------------------------------- */

/* Lines are cut in the lent buffer itself, and nothing is allocated when
 * every line was complete. */
Test(frame_lend, complete_lines_are_read_in_place_and_nothing_is_kept)
{
    char shared[64] = "{\"a\":1}\n{\"b\":2}\r\n";
    size_t n = strlen(shared);
    qk_frame f;
    qk_frame_init(&f, 0);
    char *line;
    size_t len;
    cr_assert_eq(qk_frame_lend(&f, shared, n), 0);
    cr_assert_eq(qk_frame_heap(&f), 0);
    cr_assert_eq(qk_frame_pending(&f), n);
    cr_assert_eq(qk_frame_next(&f, &line, &len), 1);
    cr_assert_eq(line, shared, "the line is not copied");
    cr_assert_str_eq(line, "{\"a\":1}");
    cr_assert_eq(qk_frame_next(&f, &line, &len), 1);
    cr_assert_eq(line, shared + 8);
    cr_assert_str_eq(line, "{\"b\":2}");
    cr_assert_eq(len, 7);
    cr_assert_eq(qk_frame_next(&f, &line, &len), 0);
    cr_assert_eq(qk_frame_settle(&f), 0);
    cr_assert_eq(qk_frame_heap(&f), 0);
    cr_assert_eq(qk_frame_pending(&f), 0);
    cr_assert_null(f.buf);
    qk_frame_free(&f);
}

/* An incomplete last line is copied out at the settle, into exactly its
 * size (plus the NUL's byte), and survives the shared buffer's reuse; the
 * buffer is freed once the line completes and is taken. */
Test(frame_lend, a_partial_line_is_kept_alone_and_released_after_it_completes)
{
    char shared[64];
    qk_frame f;
    qk_frame_init(&f, 0);
    char *line;
    size_t len;
    strcpy(shared, "{\"a\":1}\n{\"hel");
    cr_assert_eq(qk_frame_lend(&f, shared, strlen(shared)), 0);
    cr_assert_eq(qk_frame_next(&f, &line, &len), 1);
    cr_assert_str_eq(line, "{\"a\":1}");
    cr_assert_eq(qk_frame_next(&f, &line, &len), 0);
    cr_assert_eq(qk_frame_settle(&f), 0);
    cr_assert_eq(qk_frame_pending(&f), 5);
    cr_assert_eq(qk_frame_heap(&f), 6);
    memset(shared, 'Z', sizeof shared); /* another connection's read */
    strcpy(shared, "lo\":2}\n");
    cr_assert_eq(qk_frame_lend(&f, shared, strlen(shared)), 0);
    cr_assert_eq(qk_frame_next(&f, &line, &len), 1);
    cr_assert_str_eq(line, "{\"hello\":2}");
    cr_assert_eq(len, 11);
    cr_assert_eq(qk_frame_next(&f, &line, &len), 0);
    cr_assert_eq(qk_frame_heap(&f), 0, "the buffer goes once everything was taken");
    cr_assert_eq(qk_frame_settle(&f), 0);
    cr_assert_eq(qk_frame_heap(&f), 0);
    qk_frame_free(&f);
}

/* One line split across many reads of the same shared buffer, which is
 * overwritten between them: the line comes out whole, the frame holds
 * exactly what was received, in at most twice its size, and nothing once
 * the line is taken. */
Test(frame_lend, a_line_split_across_many_reads)
{
    enum { PIECES = 300, PIECE = 7 };
    char want[PIECES * PIECE + 1];
    for (size_t i = 0; i < sizeof want - 1; i++)
        want[i] = (char)('a' + i % 26);
    want[sizeof want - 1] = '\0';
    char shared[PIECE + 1];
    qk_frame f;
    qk_frame_init(&f, 0);
    char *line;
    size_t len;
    for (int p = 0; p < PIECES; p++) {
        memcpy(shared, want + p * PIECE, PIECE);
        cr_assert_eq(qk_frame_lend(&f, shared, PIECE), 0);
        cr_assert_eq(qk_frame_next(&f, &line, &len), 0);
        cr_assert_eq(qk_frame_settle(&f), 0);
        memset(shared, '#', sizeof shared);
        size_t held = (size_t)(p + 1) * PIECE;
        cr_assert_eq(qk_frame_pending(&f), held, "piece %d", p);
        cr_assert_geq(qk_frame_heap(&f), held + 1, "piece %d", p);
        cr_assert_leq(qk_frame_heap(&f), 2 * (held + 1), "piece %d", p);
    }
    shared[0] = '\n';
    cr_assert_eq(qk_frame_lend(&f, shared, 1), 0);
    cr_assert_eq(qk_frame_next(&f, &line, &len), 1);
    cr_assert_eq(len, PIECES * PIECE);
    cr_assert_str_eq(line, want);
    cr_assert_eq(qk_frame_next(&f, &line, &len), 0);
    cr_assert_eq(qk_frame_settle(&f), 0);
    cr_assert_eq(qk_frame_heap(&f), 0);
    cr_assert_eq(qk_frame_pending(&f), 0);
    qk_frame_free(&f);
}

/* Two connections reading through one shared buffer: the partial line of
 * one is held while the other reads whole lines through the same buffer. */
Test(frame_lend, a_partial_line_is_held_while_another_frame_reads)
{
    char shared[64];
    qk_frame a, b;
    qk_frame_init(&a, 0);
    qk_frame_init(&b, 0);
    char *line;
    size_t len;
    strcpy(shared, "{\"type\":\"pi");
    cr_assert_eq(qk_frame_lend(&a, shared, strlen(shared)), 0);
    cr_assert_eq(qk_frame_next(&a, &line, &len), 0);
    cr_assert_eq(qk_frame_settle(&a), 0);
    cr_assert_eq(qk_frame_heap(&a), 12);
    for (int i = 0; i < 3; i++) {
        snprintf(shared, sizeof shared, "{\"b\":%d}\n", i);
        cr_assert_eq(qk_frame_lend(&b, shared, strlen(shared)), 0);
        cr_assert_eq(qk_frame_next(&b, &line, &len), 1);
        char w[32];
        snprintf(w, sizeof w, "{\"b\":%d}", i);
        cr_assert_str_eq(line, w);
        cr_assert_eq(qk_frame_next(&b, &line, &len), 0);
        cr_assert_eq(qk_frame_settle(&b), 0);
        cr_assert_eq(qk_frame_heap(&b), 0);
        cr_assert_eq(qk_frame_pending(&a), 11, "a's partial line is untouched");
    }
    strcpy(shared, "ng\"}\n");
    cr_assert_eq(qk_frame_lend(&a, shared, strlen(shared)), 0);
    cr_assert_eq(qk_frame_next(&a, &line, &len), 1);
    cr_assert_str_eq(line, "{\"type\":\"ping\"}");
    cr_assert_eq(qk_frame_next(&a, &line, &len), 0);
    cr_assert_eq(qk_frame_heap(&a), 0);
    qk_frame_free(&a);
    qk_frame_free(&b);
}

/* Complete lines the caller did not take (the per-turn budget ran out)
 * are copied out at the settle, in order, then released once taken. */
Test(frame_lend, lines_left_for_a_later_turn_are_kept_then_released)
{
    char shared[64] = "l1\nline2\nl3\n";
    qk_frame f;
    qk_frame_init(&f, 0);
    char *line;
    size_t len;
    cr_assert_eq(qk_frame_lend(&f, shared, strlen(shared)), 0);
    cr_assert_eq(qk_frame_next(&f, &line, &len), 1);
    cr_assert_str_eq(line, "l1");
    cr_assert_eq(qk_frame_settle(&f), 0);
    cr_assert_eq(qk_frame_pending(&f), 9);
    cr_assert_eq(qk_frame_heap(&f), 10);
    memset(shared, 0, sizeof shared);
    cr_assert_eq(qk_frame_next(&f, &line, &len), 1);
    cr_assert_str_eq(line, "line2");
    cr_assert_eq(qk_frame_next(&f, &line, &len), 1);
    cr_assert_str_eq(line, "l3");
    cr_assert_eq(qk_frame_next(&f, &line, &len), 0);
    cr_assert_eq(qk_frame_heap(&f), 0);
    qk_frame_free(&f);
}

/* The line limit holds for lent input: a line of exactly the limit split
 * over two reads passes (CR LF split from it too), one byte more fails,
 * and a poisoned frame keeps nothing at the settle. */
Test(frame_lend, the_limit_applies_to_lent_input)
{
    char shared[40];
    qk_frame f;
    char *line;
    size_t len;
    qk_frame_init(&f, 32);
    memset(shared, 'x', 20);
    cr_assert_eq(qk_frame_lend(&f, shared, 20), 0);
    cr_assert_eq(qk_frame_next(&f, &line, &len), 0);
    cr_assert_eq(qk_frame_settle(&f), 0);
    memset(shared, 'x', 12);
    shared[12] = '\r';
    cr_assert_eq(qk_frame_lend(&f, shared, 13), 0);
    cr_assert_eq(qk_frame_next(&f, &line, &len), 0, "a CR at limit + 1 may be the terminator's");
    cr_assert_eq(qk_frame_settle(&f), 0);
    shared[0] = '\n';
    cr_assert_eq(qk_frame_lend(&f, shared, 1), 0);
    cr_assert_eq(qk_frame_next(&f, &line, &len), 1);
    cr_assert_eq(len, 32);
    qk_frame_free(&f);

    qk_frame_init(&f, 32);
    memset(shared, 'x', 33);
    cr_assert_eq(qk_frame_lend(&f, shared, 33), 0);
    cr_assert_eq(qk_frame_next(&f, &line, &len), QK_FRAME_TOOLONG);
    cr_assert_eq(qk_frame_settle(&f), 0);
    cr_assert_eq(qk_frame_heap(&f), 0);
    shared[0] = '\n';
    cr_assert_eq(qk_frame_lend(&f, shared, 1), QK_FRAME_TOOLONG, "poisoned: later input refused");
    cr_assert_eq(qk_frame_next(&f, &line, &len), QK_FRAME_TOOLONG);
    qk_frame_free(&f);
}

/* A mebibyte without a newline, lent in 4 KiB reads, is refused before
 * more than the limit and one read is held. */
Test(frame_lend, one_mebibyte_line_is_refused_before_it_is_buffered)
{
    qk_frame f;
    qk_frame_init(&f, 0);
    char chunk[4096];
    char *line;
    size_t len;
    int rc = 0;
    size_t lent = 0;
    while (lent < 1024 * 1024) {
        memset(chunk, 'a', sizeof chunk);
        if ((rc = qk_frame_lend(&f, chunk, sizeof chunk)) != 0)
            break;
        lent += sizeof chunk;
        if ((rc = qk_frame_next(&f, &line, &len)) != 0)
            break;
        cr_assert_eq(qk_frame_settle(&f), 0);
        cr_assert_leq(qk_frame_heap(&f), 2 * (QK_FRAME_DEFAULT_LIMIT + 1));
    }
    cr_assert_eq(rc, QK_FRAME_TOOLONG);
    cr_assert_leq(lent, QK_FRAME_DEFAULT_LIMIT + sizeof chunk);
    qk_frame_free(&f);
}

/* The copying path (qk_frame_push, the client's) keeps no memory either
 * once everything was taken, and a buffer grown for a burst shrinks to
 * what is left at the settle. */
Test(frame, push_releases_the_buffer_and_settle_shrinks_it)
{
    qk_frame f;
    qk_frame_init(&f, 0);
    char *line;
    size_t len;
    char big[1001];
    memset(big, 'b', 999);
    big[999] = '\n';
    big[1000] = '\0';
    cr_assert_eq(qk_frame_push(&f, big, 1000), 0);
    cr_assert_eq(qk_frame_push(&f, "tail", 4), 0);
    cr_assert_geq(qk_frame_heap(&f), 1005);
    cr_assert_eq(qk_frame_next(&f, &line, &len), 1);
    cr_assert_eq(len, 999);
    cr_assert_eq(qk_frame_next(&f, &line, &len), 0);
    cr_assert_eq(qk_frame_settle(&f), 0);
    cr_assert_eq(qk_frame_heap(&f), 5, "shrunk to the 4 bytes left");
    cr_assert_eq(qk_frame_push(&f, "\n", 1), 0);
    cr_assert_eq(qk_frame_next(&f, &line, &len), 1);
    cr_assert_str_eq(line, "tail");
    cr_assert_eq(qk_frame_next(&f, &line, &len), 0);
    cr_assert_eq(qk_frame_heap(&f), 0);
    qk_frame_free(&f);
}
