/*
 * http: see http.h. http-parser does the parsing (request line, header
 * syntax, Connection tokens, keep-alive rules); this file keeps what the
 * routes need, bounds it, and pauses the parser at the end of each request
 * so a connection's requests are answered one at a time, in order.
 */
#include "net/http.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

enum { H_NONE = -1, H_HOST, H_UPGRADE, H_WS_KEY, H_WS_VERSION };

static const char *const kept[] = {
    [H_HOST] = "host",
    [H_UPGRADE] = "upgrade",
    [H_WS_KEY] = "sec-websocket-key",
    [H_WS_VERSION] = "sec-websocket-version",
};

static http_req *req_of(http_parser *p)
{
    return p->data;
}

static void append(char *dst, size_t cap, size_t *len, bool *over, const char *at, size_t n)
{
    if (*over || *len + n > cap) {
        *over = true;
        return;
    }
    memcpy(dst + *len, at, n);
    *len += n;
}

/* Spaces and tabs around a field value are not part of it (RFC 9110 5.5). */
static void trimmed(const char *s, size_t n, char *out, size_t size)
{
    while (n > 0 && (*s == ' ' || *s == '\t'))
        s++, n--;
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    if (n >= size) {
        out[0] = '\0'; /* too long to be a valid value of a kept header */
        return;
    }
    memcpy(out, s, n);
    out[n] = '\0';
}

/* Whether the comma-separated list s (RFC 9110 5.6.1) holds token tok. */
static bool has_token(const char *s, const char *tok)
{
    size_t tl = strlen(tok);
    while (*s) {
        while (*s == ' ' || *s == '\t' || *s == ',')
            s++;
        size_t n = strcspn(s, ", \t");
        if (n == tl && strncasecmp(s, tok, tl) == 0)
            return true;
        s += n;
        while (*s && *s != ',')
            s++;
    }
    return false;
}

/* The value of the header just read is complete. */
static void end_field(http_req *rq)
{
    if (!rq->in_value)
        return;
    rq->in_value = false;
    /* value_len past the buffer marks a value too long to be valid. */
    size_t n = rq->value_len > sizeof rq->value ? 0 : rq->value_len;
    bool over = n < rq->value_len;
    char v[sizeof rq->value + 1];
    trimmed(rq->value, n, v, sizeof v);
    switch (rq->field) {
    case H_HOST:
        rq->has_host = true;
        break;
    case H_UPGRADE:
        rq->upgrade_websocket = rq->upgrade_websocket || has_token(v, "websocket");
        break;
    case H_WS_KEY:
        trimmed(rq->value, n, rq->ws_key, over ? 1 : sizeof rq->ws_key);
        break;
    case H_WS_VERSION:
        trimmed(rq->value, n, rq->ws_version, over ? 1 : sizeof rq->ws_version);
        break;
    default:
        break;
    }
    rq->field = H_NONE;
    rq->name_len = 0;
    rq->value_len = 0;
}

static int on_url(http_parser *p, const char *at, size_t n)
{
    http_req *rq = req_of(p);
    append(rq->url, HTTP_PATH_MAX, &rq->url_len, &rq->url_long, at, n);
    return 0;
}

static int on_header_field(http_parser *p, const char *at, size_t n)
{
    http_req *rq = req_of(p);
    end_field(rq);
    if (rq->name_len + n <= sizeof rq->name) {
        memcpy(rq->name + rq->name_len, at, n);
        rq->name_len += n;
    } else {
        rq->name_len = sizeof rq->name + 1; /* longer than any kept header's name */
    }
    return 0;
}

static int on_header_value(http_parser *p, const char *at, size_t n)
{
    http_req *rq = req_of(p);
    if (!rq->in_value) {
        rq->in_value = true;
        rq->field = H_NONE;
        for (int i = 0; i < (int)(sizeof kept / sizeof *kept); i++)
            if (rq->name_len == strlen(kept[i]) &&
                strncasecmp(rq->name, kept[i], rq->name_len) == 0)
                rq->field = i;
        rq->value_len = 0;
    }
    if (rq->field == H_NONE)
        return 0;
    if (rq->value_len + n <= sizeof rq->value) {
        memcpy(rq->value + rq->value_len, at, n);
        rq->value_len += n;
    } else {
        rq->value_len = sizeof rq->value + 1; /* marks it too long (end_field) */
    }
    return 0;
}

static int on_headers_complete(http_parser *p)
{
    http_req *rq = req_of(p);
    end_field(rq);
    rq->method = p->method;
    rq->keep_alive = http_should_keep_alive(p) != 0;
    if (rq->url_long) {
        rq->error = 414;
    } else {
        struct http_parser_url u;
        http_parser_url_init(&u);
        if (http_parser_parse_url(rq->url, rq->url_len, p->method == HTTP_CONNECT, &u) != 0) {
            rq->error = 400;
        } else if (u.field_set & (1 << UF_PATH)) {
            memcpy(rq->path, rq->url + u.field_data[UF_PATH].off, u.field_data[UF_PATH].len);
            rq->path[u.field_data[UF_PATH].len] = '\0';
        } else {
            snprintf(rq->path, sizeof rq->path, "/");
        }
    }
    /* A body no route reads: refused rather than read and dropped. */
    bool body = (p->flags & F_CHUNKED) || ((p->flags & F_CONTENTLENGTH) && p->content_length > 0);
    if (!rq->error && body)
        rq->error = 413;
    if (rq->error)
        http_parser_pause(p, 1);
    return 0;
}

static int on_message_complete(http_parser *p)
{
    http_req *rq = req_of(p);
    rq->upgrade = p->upgrade;
    if (rq->state == HTTP_REQ_MORE && !rq->error)
        rq->state = HTTP_REQ_DONE;
    /* One request at a time: the caller answers it before the next. */
    http_parser_pause(p, 1);
    return 0;
}

static const http_parser_settings settings = {
    .on_url = on_url,
    .on_header_field = on_header_field,
    .on_header_value = on_header_value,
    .on_headers_complete = on_headers_complete,
    .on_message_complete = on_message_complete,
};

void http_req_init(http_req *rq)
{
    memset(rq, 0, sizeof *rq);
    http_parser_init(&rq->p, HTTP_REQUEST);
    rq->p.data = rq;
    rq->field = H_NONE;
}

http_req_state http_req_feed(http_req *rq, const char *data, size_t len, size_t *consumed)
{
    *consumed = 0;
    if (rq->state != HTTP_REQ_MORE)
        return rq->state;
    size_t room = HTTP_HEAD_MAX - rq->head_bytes;
    size_t n = len < room ? len : room;
    size_t took = n ? http_parser_execute(&rq->p, &settings, data, n) : 0;
    enum http_errno e = HTTP_PARSER_ERRNO(&rq->p);
    *consumed = took;
    rq->head_bytes += took;
    /* An upgrade ends the HTTP part without a pause: the rest of the bytes
     * are the new protocol's (http-parser returns where they start). */
    if (rq->p.upgrade && rq->state == HTTP_REQ_MORE && !rq->error && e == HPE_OK)
        rq->state = HTTP_REQ_DONE;
    if (rq->error) {
        rq->state = HTTP_REQ_ERROR;
    } else if (e != HPE_OK && e != HPE_PAUSED) {
        rq->error = e == HPE_HEADER_OVERFLOW ? 431 : 400;
        rq->state = HTTP_REQ_ERROR;
    } else if (rq->state == HTTP_REQ_MORE && rq->head_bytes >= HTTP_HEAD_MAX) {
        rq->error = 431;
        rq->state = HTTP_REQ_ERROR;
    }
    return rq->state;
}

const char *http_reason(int status)
{
    switch (status) {
    case 101:
        return "Switching Protocols";
    case 200:
        return "OK";
    case 400:
        return "Bad Request";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 408:
        return "Request Timeout";
    case 413:
        return "Content Too Large";
    case 414:
        return "URI Too Long";
    case 426:
        return "Upgrade Required";
    case 431:
        return "Request Header Fields Too Large";
    case 500:
        return "Internal Server Error";
    case 503:
        return "Service Unavailable";
    default:
        return "";
    }
}

int http_head(char *buf, size_t size, int status, const char *ctype, long long body_len,
              bool keep_alive, const char *extra)
{
    size_t k = 0;
    int n = snprintf(buf, size, "HTTP/1.1 %d %s\r\n", status, http_reason(status));
    if (n < 0 || (size_t)n >= size)
        return -1;
    k = (size_t)n;
#define ADD(...)                                                                                   \
    do {                                                                                           \
        n = snprintf(buf + k, size - k, __VA_ARGS__);                                              \
        if (n < 0 || (size_t)n >= size - k)                                                        \
            return -1;                                                                             \
        k += (size_t)n;                                                                            \
    } while (0)
    if (ctype)
        ADD("Content-Type: %s\r\n", ctype);
    if (body_len >= 0)
        ADD("Content-Length: %lld\r\n", body_len);
    if (!keep_alive)
        ADD("Connection: close\r\n");
    if (extra)
        ADD("%s", extra);
    ADD("\r\n");
#undef ADD
    return (int)k;
}
