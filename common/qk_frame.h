/*
 * qk_frame: JSON-lines framing over a byte buffer (PROTOCOL.md "Framing").
 *
 * Network reads arrive in arbitrary pieces; one read is never one message.
 * The caller appends every read with qk_frame_push() (copied) or
 * qk_frame_lend() (read in place) and then takes whole lines with
 * qk_frame_next() until it returns 0. A partial line longer than the limit
 * is reported as soon as it is seen, so a peer cannot make us buffer more
 * than limit + one read. Owned by one connection; not thread-safe. No I/O
 * here.
 *
 * Memory. The frame holds heap memory only while it holds bytes: its
 * buffer is freed as soon as every byte was taken (the qk_frame_next()
 * call that finds nothing more), so an idle connection costs only the
 * struct. A server reading every socket into one shared buffer lends
 * each read (qk_frame_lend): lines are cut in that buffer, and
 * qk_frame_settle() after the read copies only what was not taken (an
 * incomplete trailing line, or complete lines left for a later turn) into
 * a buffer of its own, sized to fit.
 */
#ifndef QK_FRAME_H
#define QK_FRAME_H

#include <stddef.h>

/* Bytes per line, its terminator excluded: '\n' or "\r\n" (docs/protocol.md
 * section 1 drops a CR before the LF), so 65,536 bytes of content pass either way. */
#define QK_FRAME_DEFAULT_LIMIT (64 * 1024)

enum {
    QK_FRAME_ENOMEM = -1,  /* allocation failed; buffer unchanged */
    QK_FRAME_TOOLONG = -2, /* a line exceeds the limit; the frame is poisoned */
};

typedef struct qk_frame {
    char *buf;    /* owned (heap) unless lent; NULL when empty */
    size_t start; /* offset of the first unconsumed byte */
    size_t len;   /* bytes in buf (consumed ones included) */
    size_t cap;   /* bytes allocated; 0 while lent */
    size_t scan;  /* offset from which to search for '\n' */
    size_t limit;
    int poisoned;
    int lent; /* buf is the caller's (qk_frame_lend) until qk_frame_settle() */
} qk_frame;

/* Initialise an empty frame with a line limit in bytes (0 = default),
 * counted without the line's '\n' or "\r\n"; a CR elsewhere is content. */
void qk_frame_init(qk_frame *f, size_t limit);
/* Free the buffer (a lent one is only dropped); the frame may be
 * initialised again. */
void qk_frame_free(qk_frame *f);

/* Append n bytes (copied). Returns 0, QK_FRAME_ENOMEM, or QK_FRAME_TOOLONG
 * once the frame is poisoned (the caller should answer line_too_long and
 * close). */
int qk_frame_push(qk_frame *f, const char *data, size_t n);

/* Lend n bytes of the caller's writable buffer: when the frame holds no
 * byte, qk_frame_next() cuts lines from data in place (writing the NULs
 * there), with no copy and no allocation; otherwise data is appended to
 * the frame's own buffer as by qk_frame_push(). data must stay valid and
 * unchanged until qk_frame_settle(), which must come before the next
 * qk_frame_lend() or qk_frame_push() (a lend or push before it settles
 * first). Returns as qk_frame_push(). */
int qk_frame_lend(qk_frame *f, char *data, size_t n);

/* The lent buffer is about to be reused: the bytes of it not taken yet are
 * copied into a buffer of the frame's own of exactly their size (plus a
 * NUL's byte); an own buffer holding nothing is freed, one holding less
 * than half its size is shrunk to fit. A poisoned frame drops what it
 * holds. Also valid with nothing lent (the same compaction). Returns 0,
 * or QK_FRAME_ENOMEM: the untaken bytes are then lost (the frame is empty)
 * and the caller should close the connection. Lines returned before are
 * no longer valid. */
int qk_frame_settle(qk_frame *f);

/* Take the next complete line. Returns 1 and sets *line / *len (the line
 * without its '\n' and without a trailing '\r', NUL-terminated in place,
 * valid until the next call to any qk_frame function); 0 when no complete
 * line is buffered (the frame's own buffer is freed if every byte was
 * taken); QK_FRAME_TOOLONG when the line being received exceeds the limit.
 * Empty lines are returned as len 0 (callers ignore them). */
int qk_frame_next(qk_frame *f, char **line, size_t *len);

/* Bytes received and not taken yet by qk_frame_next() (lent or own). */
size_t qk_frame_pending(const qk_frame *f);
/* Heap bytes the frame owns now (0 when empty or while reading lent
 * bytes in place). */
size_t qk_frame_heap(const qk_frame *f);

#endif
