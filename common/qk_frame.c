/*
 * qk_frame: see qk_frame.h. Consumed bytes are reclaimed lazily, by moving
 * the unconsumed tail to the front only when more room is needed, so a
 * burst of small lines costs no memmove per line.
 */
#include "qk_frame.h"

#include <stdlib.h>
#include <string.h>

void qk_frame_init(qk_frame *f, size_t limit)
{
    memset(f, 0, sizeof *f);
    f->limit = limit ? limit : QK_FRAME_DEFAULT_LIMIT;
}

void qk_frame_free(qk_frame *f)
{
    free(f->buf);
    f->buf = NULL;
    f->start = f->len = f->cap = f->scan = 0;
}

static int reserve(qk_frame *f, size_t extra)
{
    if (f->start > 0 && f->len + extra > f->cap) {
        memmove(f->buf, f->buf + f->start, f->len - f->start);
        f->len -= f->start;
        f->scan -= f->start;
        f->start = 0;
    }
    if (f->len + extra + 1 <= f->cap)
        return 0;
    size_t cap = f->cap ? f->cap : 4096;
    while (cap < f->len + extra + 1)
        cap *= 2;
    char *nb = realloc(f->buf, cap);
    if (!nb)
        return QK_FRAME_ENOMEM;
    f->buf = nb;
    f->cap = cap;
    return 0;
}

int qk_frame_push(qk_frame *f, const char *data, size_t n)
{
    if (f->poisoned)
        return QK_FRAME_TOOLONG;
    if (n == 0)
        return 0;
    /* Never buffer more than one over-long line's worth plus this read:
     * qk_frame_next() will report the overflow before we grow further. */
    int rc = reserve(f, n);
    if (rc)
        return rc;
    memcpy(f->buf + f->len, data, n);
    f->len += n;
    return 0;
}

int qk_frame_next(qk_frame *f, char **line, size_t *len)
{
    if (f->poisoned)
        return QK_FRAME_TOOLONG;
    if (f->scan < f->start)
        f->scan = f->start;
    char *nl = f->len > f->scan ? memchr(f->buf + f->scan, '\n', f->len - f->scan) : NULL;
    if (!nl) {
        f->scan = f->len;
        /* A line of exactly limit bytes may have its CR here already and
         * its LF in the next read: one byte more is allowed when it is a
         * CR, since the limit counts the line without its CR LF. */
        size_t pending = f->len - f->start;
        if (pending > f->limit && !(pending == f->limit + 1 && f->buf[f->len - 1] == '\r')) {
            f->poisoned = 1;
            return QK_FRAME_TOOLONG;
        }
        /* Reclaim space once everything has been consumed. */
        if (f->start == f->len)
            f->start = f->len = f->scan = 0;
        return 0;
    }
    char *s = f->buf + f->start;
    size_t n = (size_t)(nl - s);
    size_t next = f->start + n + 1;
    s[n] = '\0';
    if (n > 0 && s[n - 1] == '\r')
        s[--n] = '\0';
    /* The limit applies to the line without its terminator, LF or CR LF
     * (issue 9 item 7: a 65,536-byte line sent with CR LF is accepted). */
    if (n > f->limit) {
        f->poisoned = 1;
        return QK_FRAME_TOOLONG;
    }
    f->start = next;
    f->scan = f->start;
    *line = s;
    *len = n;
    return 1;
}
