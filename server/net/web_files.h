/*
 * web_files: the web client's files (web/, docs/web.md) built into the
 * binary, for the HTTP side of net/ws.h. Generated: server/net/web_files.c
 * comes from server/net/web-files-gen.sh, and a test checks it agrees with
 * web/ byte for byte.
 */
#ifndef QK_WEB_FILES_H
#define QK_WEB_FILES_H

#include <stddef.h>

typedef struct web_file {
    const char *path; /* URL path, "/index.html" */
    const char *mime; /* Content-Type, "text/javascript; charset=utf-8" */
    const char *data; /* the file's bytes (static; not NUL-terminated by contract) */
    size_t len;       /* bytes */
} web_file;

/* Every embedded file (static storage, never freed); *count set. */
const web_file *web_files(size_t *count);
/* The file for a URL path ("/" is "/index.html"; no query string), or NULL
 * when there is none. */
const web_file *web_file_find(const char *path);

#endif
