/*
 * libFuzzer target: the network input path of both programs, framing
 * (qk_frame) then the strict line parser (qk_proto_parse_line).
 *
 * The input's first byte picks how the rest is cut into reads (1..256
 * bytes each) and whether the frame has a small line limit (to reach the
 * too-long paths); every complete line is parsed. Invariants beyond "no
 * crash, no leak, no UB": a line never exceeds the limit; a rejected line
 * gives a reason and no tree; an accepted line is an object, and printing
 * it (qk_proto_print, what the server sends) gives one line that the parser
 * accepts again and that prints the same (the client parses the server's
 * output with the same function); the same reads lent from a scratch
 * buffer (qk_frame_lend, the server's path: the buffer is overwritten
 * after each qk_frame_settle) give the same lines and results as copied
 * ones, and a settled frame holds its pending bytes in at most twice their
 * size, nothing when none. The whole input is also parsed as one line.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_util.h"
#include "qk_frame.h"
#include "qk_proto.h"

static void parse_one(const char *line, size_t len)
{
    cJSON *o = (cJSON *)1;
    const char *why = NULL;
    qk_err e = qk_proto_parse_line(line, len, &o, &why);
    if (e != QK_ERR_NONE) {
        fz_check(o == NULL, "tree left after error %s", qk_err_code(e));
        fz_check(why != NULL, "no reason for %s", qk_err_code(e));
        fz_check(e == QK_ERR_BAD_JSON || e == QK_ERR_BAD_REQUEST || e == QK_ERR_INTERNAL,
                 "unexpected code %s", qk_err_code(e));
        return;
    }
    fz_check(o && cJSON_IsObject(o), "accepted a non-object");
    size_t n1 = 0;
    char *p1 = qk_proto_print(o, &n1);
    cJSON_Delete(o);
    if (!p1)
        return; /* allocation failure */
    fz_check(n1 > 0 && p1[n1 - 1] == '\n' && memchr(p1, '\n', n1 - 1) == NULL,
             "printed text is not one line");
    cJSON *o2 = NULL;
    e = qk_proto_parse_line(p1, n1 - 1, &o2, &why);
    fz_check(e == QK_ERR_NONE, "own output refused (%s: %s): %s", qk_err_code(e), why, p1);
    size_t n2 = 0;
    char *p2 = qk_proto_print(o2, &n2);
    cJSON_Delete(o2);
    fz_check(p2 != NULL, "second print failed");
    fz_check(n1 == n2 && memcmp(p1, p2, n1) == 0, "print not stable: %s vs %s", p1, p2);
    free(p1);
    free(p2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Frame data in chunks, copied (qk_frame_push) or lent from a scratch
 * buffer that is scribbled over after each settle, as the server's shared
 * read buffer is (qk_frame_lend); every line goes to out (each followed
 * by a NUL), which is malloc'd. Returns the last qk_frame result. */
static int frame_all(const uint8_t *data, size_t size, size_t chunk, size_t limit, bool lend,
                     char **out, size_t *outlen)
{
    qk_frame f;
    qk_frame_init(&f, limit);
    size_t lim = limit ? limit : QK_FRAME_DEFAULT_LIMIT;
    char *scratch = lend ? malloc(chunk) : NULL;
    *out = malloc(size + 1);
    *outlen = 0;
    fz_check(*out != NULL && (!lend || scratch != NULL), "out of memory");
    size_t off = 0;
    int rc = 0;
    while (off < size && rc >= 0) {
        size_t k = size - off < chunk ? size - off : chunk;
        if (lend) {
            memcpy(scratch, data + off, k);
            rc = qk_frame_lend(&f, scratch, k);
        } else {
            rc = qk_frame_push(&f, (const char *)data + off, k);
        }
        off += k;
        char *line;
        size_t len;
        while (rc >= 0 && (rc = qk_frame_next(&f, &line, &len)) == 1) {
            fz_check(len <= lim, "line of %zu bytes over the limit %zu", len, lim);
            fz_check(line[len] == '\0', "line not NUL-terminated");
            fz_check(memchr(line, '\n', len) == NULL, "LF inside a line");
            memcpy(*out + *outlen, line, len + 1);
            *outlen += len + 1;
            if (len)
                parse_one(line, len);
        }
        if (lend && rc >= 0) {
            fz_check(qk_frame_settle(&f) == 0, "settle failed");
            memset(scratch, '\n', k); /* another connection's read */
            size_t held = qk_frame_pending(&f), heap = qk_frame_heap(&f);
            fz_check(held ? heap >= held + 1 && heap <= 2 * (held + 1) : heap == 0,
                     "settled frame holds %zu heap bytes for %zu", heap, held);
        }
    }
    if (rc == QK_FRAME_TOOLONG) {
        char nl[1] = {'\n'};
        fz_check(qk_frame_push(&f, nl, 1) == QK_FRAME_TOOLONG, "poisoned frame took input");
        fz_check(qk_frame_lend(&f, nl, 1) == QK_FRAME_TOOLONG, "poisoned frame took input");
    }
    qk_frame_free(&f);
    free(scratch);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    size_t chunk = (size_t)(data[0] & 0x7F) * 2 + 1;
    size_t limit = data[0] & 0x80 ? 64 : 0;
    data++;
    size--;
    /* Copied and lent input frame the same lines. */
    char *a, *b;
    size_t alen, blen;
    int ra = frame_all(data, size, chunk, limit, false, &a, &alen);
    int rb = frame_all(data, size, chunk, limit, true, &b, &blen);
    fz_check(ra == rb && alen == blen && memcmp(a, b, alen) == 0,
             "lent input framed differently (%d/%d, %zu/%zu bytes)", ra, rb, alen, blen);
    free(a);
    free(b);
    parse_one((const char *)data, size);
    return 0;
}
