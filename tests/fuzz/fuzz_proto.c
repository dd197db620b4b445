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
 * output with the same function). The whole input is also parsed as one
 * line.
 */
#include <stdint.h>

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    size_t chunk = (size_t)(data[0] & 0x7F) * 2 + 1;
    size_t limit = data[0] & 0x80 ? 64 : 0;
    data++;
    size--;
    qk_frame f;
    qk_frame_init(&f, limit);
    size_t lim = limit ? limit : QK_FRAME_DEFAULT_LIMIT;
    size_t off = 0;
    int rc = 0;
    while (off < size && rc >= 0) {
        size_t k = size - off < chunk ? size - off : chunk;
        rc = qk_frame_push(&f, (const char *)data + off, k);
        off += k;
        char *line;
        size_t len;
        while (rc >= 0 && (rc = qk_frame_next(&f, &line, &len)) == 1) {
            fz_check(len <= lim, "line of %zu bytes over the limit %zu", len, lim);
            fz_check(line[len] == '\0', "line not NUL-terminated");
            fz_check(memchr(line, '\n', len) == NULL, "LF inside a line");
            if (len)
                parse_one(line, len);
        }
    }
    if (rc == QK_FRAME_TOOLONG)
        fz_check(qk_frame_push(&f, "\n", 1) == QK_FRAME_TOOLONG, "poisoned frame took input");
    qk_frame_free(&f);
    parse_one((const char *)data, size);
    return 0;
}
