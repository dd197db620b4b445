/*
 * qk_frame: JSON-lines framing over a growable byte buffer (PROTOCOL.md
 * "Framing").
 *
 * Network reads arrive in arbitrary pieces; one read is never one message.
 * The caller appends every read with qk_frame_push() and then takes whole
 * lines with qk_frame_next() until it returns 0. A partial line longer than
 * the limit is reported as soon as it is seen, so a peer cannot make us
 * buffer more than limit + one read. Owned by one connection; not
 * thread-safe. No I/O here.
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
    char *buf;    /* heap; owned */
    size_t start; /* offset of the first unconsumed byte */
    size_t len;   /* bytes in buf (consumed ones included) */
    size_t cap;
    size_t scan;  /* offset from which to search for '\n' */
    size_t limit;
    int poisoned;
} qk_frame;

/* Initialise an empty frame with a line limit in bytes (0 = default),
 * counted without the line's '\n' or "\r\n"; a CR elsewhere is content. */
void qk_frame_init(qk_frame *f, size_t limit);
/* Free the buffer; the frame may be initialised again. */
void qk_frame_free(qk_frame *f);

/* Append n bytes. Returns 0, QK_FRAME_ENOMEM, or QK_FRAME_TOOLONG once the
 * frame is poisoned (the caller should answer line_too_long and close). */
int qk_frame_push(qk_frame *f, const char *data, size_t n);

/* Take the next complete line. Returns 1 and sets *line / *len (the line
 * without its '\n' and without a trailing '\r', NUL-terminated in place,
 * valid until the next call to any qk_frame function); 0 when no complete
 * line is buffered; QK_FRAME_TOOLONG when the line being received exceeds
 * the limit. Empty lines are returned as len 0 (callers ignore them). */
int qk_frame_next(qk_frame *f, char **line, size_t *len);

#endif
