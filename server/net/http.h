/*
 * http: one HTTP/1.1 request head read from a byte stream (RFC 9112), over
 * the nodejs http-parser library (Debian libhttp-parser-dev 2.9), with the
 * bounds a server facing the Internet needs; and the response head. No
 * socket here: net/ws.c owns the sockets, the route table and the timers,
 * and feeds each connection's bytes to its http_req.
 *
 * What is kept of a request is only what the routes use: the method, the
 * path (the URL's path part, without query or fragment: RFC 3986 3.3), and
 * the headers of a WebSocket opening handshake (RFC 6455 4.2.1): Host,
 * Upgrade, Connection (http-parser's own token check), Sec-WebSocket-Key,
 * Sec-WebSocket-Version. Every other header is parsed (so framing errors
 * are seen) and dropped, so a request costs sizeof(http_req) whatever it
 * sends, and a head is bounded by HTTP_HEAD_MAX bytes.
 *
 * Bodies are not read: a request that announces one (Content-Length > 0
 * or chunked) is answered 413 and the connection closed, since no route
 * takes one.
 */
#ifndef QK_HTTP_H
#define QK_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <http_parser.h>

/* Bytes of one request head (request line and header fields, up to the
 * empty line): past it the request is answered 431 (RFC 6585 5). nginx
 * reads up to 4 x 8 KiB, Apache 8 KiB a field; browsers send under 2 KiB
 * here (no cookies are set). */
#define HTTP_HEAD_MAX (16 * 1024)
/* Bytes of the path kept: a longer one is answered 414 (RFC 9110 15.5.15). */
#define HTTP_PATH_MAX 256

typedef enum {
    HTTP_REQ_MORE = 0, /* the head is not complete: feed more */
    HTTP_REQ_DONE,     /* one request is complete (its head; no body) */
    HTTP_REQ_ERROR,    /* answer http_req.error (4xx) and close */
} http_req_state;

typedef struct http_req {
    http_parser p;
    http_req_state state;
    int error;         /* with HTTP_REQ_ERROR: the status to answer (400, 413, 414, 431) */
    size_t head_bytes; /* bytes of the current head fed so far */
    bool upgrade;      /* Upgrade + Connection: upgrade (http-parser's check) */
    bool has_host;
    bool upgrade_websocket;       /* Upgrade names "websocket" (RFC 6455 4.2.1 item 3) */
    bool keep_alive;              /* http_should_keep_alive() at the end of the head */
    unsigned method;              /* enum http_method */
    char path[HTTP_PATH_MAX + 1]; /* NUL-terminated */
    char url[HTTP_PATH_MAX + 1];  /* the request target as sent (bounded) */
    size_t url_len;
    bool url_long;
    char ws_key[32];    /* Sec-WebSocket-Key, trimmed; "" when absent or too long */
    char ws_version[8]; /* Sec-WebSocket-Version, trimmed */
    /* The header being read (http-parser may hand a name or value over in
     * pieces, one per read). */
    int field;     /* which kept header (or -1: dropped) */
    char name[32]; /* the field name so far (longer names are not kept headers) */
    size_t name_len;
    bool in_value;
    char value[64]; /* a kept header's value so far (longer: not valid for us) */
    size_t value_len;
} http_req;

/* Ready rq for a new request (also after each HTTP_REQ_DONE, before the
 * next one on a keep-alive connection). */
void http_req_init(http_req *rq);

/* Feed len bytes of the stream. Returns the bytes taken (*consumed, <= len)
 * and the state: MORE (all taken, head incomplete), DONE (the head ended
 * at data[*consumed - 1]; the bytes after it are the next request's, or,
 * after an upgrade, the new protocol's), ERROR (rq->error set; stop
 * reading this connection). Bounded: HTTP_HEAD_MAX bytes per head. */
http_req_state http_req_feed(http_req *rq, const char *data, size_t len, size_t *consumed);

/* The reason phrase of a status code ("Not Found"; "" when unknown). */
const char *http_reason(int status);

/* Format a response head into buf: status line, Content-Type when ctype
 * is not NULL, Content-Length when body_len >= 0, "Connection: close"
 * unless keep_alive, extra (complete header lines, each ending in CRLF,
 * or NULL), the empty line. Returns its length, or -1 when it does not
 * fit in size. */
int http_head(char *buf, size_t size, int status, const char *ctype, long long body_len,
              bool keep_alive, const char *extra);

#endif
