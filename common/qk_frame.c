/*
 * qk_frame: see qk_frame.h. Consumed bytes are reclaimed lazily, by moving
 * the unconsumed tail to the front only when more room is needed, so a
 * burst of small lines costs no memmove per line; the buffer is freed
 * once nothing is left in it, so an idle frame owns no memory.
 */
#include "qk_frame.h"

#include <stdlib.h>
#include <string.h>

void qk_frame_init(qk_frame *f, size_t limit)
{
    memset(f, 0, sizeof *f);
    f->limit = limit ? limit : QK_FRAME_DEFAULT_LIMIT;
}

/* Empty: free an own buffer, forget a lent one. */
static void drop(qk_frame *f)
{
    if (!f->lent)
        free(f->buf);
    f->buf = NULL;
    f->start = f->len = f->cap = f->scan = 0;
    f->lent = 0;
}

void qk_frame_free(qk_frame *f)
{
    drop(f);
}

size_t qk_frame_pending(const qk_frame *f)
{
    return f->buf ? f->len - f->start : 0;
}

size_t qk_frame_heap(const qk_frame *f)
{
    return f->lent ? 0 : f->cap;
}

/* Move the unconsumed bytes to the front of an own buffer of want bytes
 * (want > their count). On failure the frame still holds them (compacted
 * in its own buffer, or still lent) and QK_FRAME_ENOMEM is returned; an
 * own buffer that was only to shrink is kept as it is, with success. */
static int rehome(qk_frame *f, size_t want)
{
    size_t keep = f->len - f->start;
    size_t scan = f->scan > f->start ? f->scan - f->start : 0;
    char *nb;
    if (f->lent) {
        nb = malloc(want);
        if (!nb)
            return QK_FRAME_ENOMEM;
        memcpy(nb, f->buf + f->start, keep);
    } else {
        memmove(f->buf, f->buf + f->start, keep);
        f->start = 0;
        f->len = keep;
        f->scan = scan;
        nb = realloc(f->buf, want);
        if (!nb) {
            if (want > f->cap)
                return QK_FRAME_ENOMEM;
            return 0; /* could not shrink: the compacted buffer stays */
        }
    }
    f->buf = nb;
    f->start = 0;
    f->len = keep;
    f->scan = scan;
    f->cap = want;
    f->lent = 0;
    return 0;
}

/* Room for extra more bytes (and a NUL's byte) at the end of an own
 * buffer: the unconsumed tail is moved to the front when that is enough,
 * else the buffer grows (at least doubling, so a line arriving in many
 * small reads costs amortized linear copying). */
static int reserve(qk_frame *f, size_t extra)
{
    if (!f->buf) {
        drop(f);
        char *nb = malloc(extra + 1);
        if (!nb)
            return QK_FRAME_ENOMEM;
        f->buf = nb;
        f->cap = extra + 1;
        return 0;
    }
    size_t need = f->len - f->start + extra + 1;
    if (!f->lent) {
        if (f->len + extra + 1 <= f->cap)
            return 0;
        if (need <= f->cap) {
            size_t keep = f->len - f->start;
            memmove(f->buf, f->buf + f->start, keep);
            f->scan = f->scan > f->start ? f->scan - f->start : 0;
            f->len = keep;
            f->start = 0;
            return 0;
        }
    }
    size_t cap = f->lent ? 0 : f->cap * 2;
    return rehome(f, cap < need ? need : cap);
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

int qk_frame_lend(qk_frame *f, char *data, size_t n)
{
    if (f->poisoned)
        return QK_FRAME_TOOLONG;
    if (n == 0)
        return 0;
    if (f->lent) {
        int rc = qk_frame_settle(f);
        if (rc)
            return rc;
    }
    if (qk_frame_pending(f) > 0)
        return qk_frame_push(f, data, n);
    drop(f);
    f->buf = data;
    f->len = n;
    f->lent = 1;
    return 0;
}

int qk_frame_settle(qk_frame *f)
{
    size_t keep = qk_frame_pending(f);
    if (f->poisoned || keep == 0) {
        drop(f);
        return 0;
    }
    if (f->lent) {
        if (rehome(f, keep + 1) != 0) {
            drop(f);
            return QK_FRAME_ENOMEM;
        }
        return 0;
    }
    if (keep + 1 <= f->cap / 2)
        return rehome(f, keep + 1);
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
        /* Everything was taken: the memory goes (the last line returned
         * is no longer valid from this call on). */
        if (pending == 0)
            drop(f);
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
