/*
 * net: see net.h. Every wait is poll() on a non-blocking socket with a
 * deadline on the monotonic clock; reads feed a qk_frame and whole lines go
 * through qk_proto_parse_line(). Writes use MSG_NOSIGNAL so a server that
 * went away is an error code, not a SIGPIPE.
 */
#include "net.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "qk_proto.h"

int64_t net_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Milliseconds left until deadline, clamped to 0..INT_MAX-ish for poll. */
static int remaining(int64_t deadline)
{
    int64_t left = deadline - net_now_ms();
    if (left < 0)
        return 0;
    if (left > 1000000000)
        return 1000000000;
    return (int)left;
}

int net_split_hostport(const char *hostport, char *host, size_t hn, char *port, size_t pn)
{
    if (!hostport || !*hostport)
        return -1;
    const char *h = hostport, *colon;
    size_t hlen;
    if (*h == '[') {
        const char *close = strchr(h, ']');
        if (!close || close[1] != ':')
            return -1;
        h++;
        hlen = (size_t)(close - h);
        colon = close + 1;
    } else {
        colon = strrchr(h, ':');
        if (!colon)
            return -1;
        hlen = (size_t)(colon - h);
        /* An unbracketed IPv6 literal has several colons: ambiguous. */
        if (memchr(h, ':', hlen))
            return -1;
    }
    const char *p = colon + 1;
    size_t plen = strlen(p);
    if (hlen == 0 || hlen >= hn || plen == 0 || plen > 5 || plen >= pn)
        return -1;
    long v = 0;
    for (size_t i = 0; i < plen; i++) {
        if (p[i] < '0' || p[i] > '9')
            return -1;
        v = v * 10 + (p[i] - '0');
    }
    if (v < 1 || v > 65535)
        return -1;
    memcpy(host, h, hlen);
    host[hlen] = '\0';
    memcpy(port, p, plen + 1);
    return 0;
}

void net_init(net_conn *c)
{
    memset(c, 0, sizeof *c);
    c->fd = -1;
    qk_frame_init(&c->frame, NET_LINE_LIMIT);
}

bool net_is_open(const net_conn *c)
{
    return c->fd >= 0;
}

int net_fd(const net_conn *c)
{
    return c->fd;
}

void net_close(net_conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    qk_frame_free(&c->frame);
    qk_frame_init(&c->frame, NET_LINE_LIMIT);
    cJSON_Delete(c->events);
    c->events = NULL;
}

/* One non-blocking connect to ai, finished within timeout_ms. Returns the
 * socket or -1. */
static int connect_one(const struct addrinfo *ai, int timeout_ms)
{
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0)
        return -1;
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
        if (errno != EINPROGRESS)
            goto fail;
        struct pollfd pfd = {.fd = fd, .events = POLLOUT};
        int64_t deadline = net_now_ms() + timeout_ms;
        int r;
        do {
            r = poll(&pfd, 1, remaining(deadline));
        } while (r < 0 && errno == EINTR);
        if (r <= 0)
            goto fail;
        int err = 0;
        socklen_t len = sizeof err;
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 || err != 0)
            goto fail;
    }
    /* Requests are small and interactive: do not let Nagle delay them. */
    int one = 1;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
fail:
    close(fd);
    return -1;
}

int net_connect(net_conn *c, const char *hostport, int timeout_ms)
{
    char host[256], port[8];
    if (net_split_hostport(hostport, host, sizeof host, port, sizeof port) < 0)
        return NET_ECONNECT;
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    struct addrinfo *res = NULL;
    if (getaddrinfo(host, port, &hints, &res) != 0)
        return NET_ECONNECT;
    int fd = -1;
    for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next)
        fd = connect_one(ai, timeout_ms);
    freeaddrinfo(res);
    if (fd < 0)
        return NET_ECONNECT;
    c->fd = fd;
    c->events = cJSON_CreateArray();
    if (!c->events) {
        net_close(c);
        return NET_ENOMEM;
    }
    return NET_OK;
}

int net_send(net_conn *c, const cJSON *msg, int timeout_ms)
{
    if (c->fd < 0)
        return NET_ECLOSED;
    size_t len;
    char *buf = qk_proto_print(msg, &len);
    if (!buf)
        return NET_ENOMEM;
    int64_t deadline = net_now_ms() + timeout_ms;
    size_t off = 0;
    int rc = NET_OK;
    while (off < len) {
        ssize_t w = send(c->fd, buf + off, len - off, MSG_NOSIGNAL);
        if (w > 0) {
            off += (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd pfd = {.fd = c->fd, .events = POLLOUT};
            int r = poll(&pfd, 1, remaining(deadline));
            if (r == 0) {
                rc = NET_ETIMEDOUT;
                break;
            }
            continue;
        }
        rc = NET_ECLOSED;
        break;
    }
    free(buf);
    return rc;
}

/* Read once from the socket into the frame. Returns bytes read (> 0), 0
 * when nothing is available now, or NET_ECLOSED / NET_ENOMEM / NET_EPROTO. */
static int read_some(net_conn *c)
{
    char buf[16384];
    for (;;) {
        ssize_t r = recv(c->fd, buf, sizeof buf, 0);
        if (r > 0) {
            int pr = qk_frame_push(&c->frame, buf, (size_t)r);
            if (pr == QK_FRAME_ENOMEM)
                return NET_ENOMEM;
            if (pr == QK_FRAME_TOOLONG)
                return NET_EPROTO;
            return (int)r;
        }
        if (r == 0)
            return NET_ECLOSED;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return 0;
        return NET_ECLOSED;
    }
}

/* Replace terminal control characters in every string of a server message
 * with '?': the client prints server text (messages, names) to a terminal,
 * and a hostile server must not be able to send escape sequences through
 * it. C0 controls, DEL and the two-byte C1 controls (U+0080..U+009F) go;
 * the string keeps its length, so this works in place. A line feed in a
 * value stays: `export` sends PDN records, which are lines, and a line
 * feed starts no escape sequence. */
static void defang_strings(cJSON *item)
{
    for (; item; item = item->next) {
        if (item->string)
            for (unsigned char *p = (unsigned char *)item->string; *p; p++)
                if (*p < 0x20 || *p == 0x7f)
                    *p = '?';
        if (cJSON_IsString(item) && item->valuestring) {
            for (unsigned char *p = (unsigned char *)item->valuestring; *p; p++) {
                if ((*p < 0x20 && *p != '\n') || *p == 0x7f) {
                    *p = '?';
                } else if (p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F) {
                    p[0] = '?';
                    p[1] = '?';
                    p++;
                }
            }
        }
        defang_strings(item->child);
    }
}

/* Take the next parseable message already buffered. Returns 1 with *msg,
 * 0 when no whole line is buffered, NET_EPROTO on an over-long line.
 * Empty lines (keepalives) and lines that are not a valid JSON object are
 * skipped: a broken line cannot be matched to anything. */
static int next_buffered(net_conn *c, cJSON **msg)
{
    for (;;) {
        char *line;
        size_t len;
        int r = qk_frame_next(&c->frame, &line, &len);
        if (r == QK_FRAME_TOOLONG)
            return NET_EPROTO;
        if (r == 0)
            return 0;
        if (len == 0)
            continue;
        const char *why;
        cJSON *obj = NULL;
        if (qk_proto_parse_line(line, len, &obj, &why) == QK_ERR_NONE) {
            defang_strings(obj);
            *msg = obj;
            return 1;
        }
    }
}

static bool is_event(const cJSON *msg)
{
    const char *type;
    return qk_json_get_str(msg, "type", &type) && strcmp(type, "event") == 0;
}

/* Queue an event (taking ownership) or drop any other message. */
static void queue_or_drop(net_conn *c, cJSON *msg)
{
    if (is_event(msg) && c->events)
        cJSON_AddItemToArray(c->events, msg);
    else
        cJSON_Delete(msg);
}

/* Move every complete buffered line to the event queue (events) or the
 * bin (anything else). Returns 0 or NET_EPROTO. */
static int queue_buffered(net_conn *c)
{
    for (;;) {
        cJSON *msg = NULL;
        int r = next_buffered(c, &msg);
        if (r <= 0)
            return r;
        queue_or_drop(c, msg);
    }
}

int net_request(net_conn *c, cJSON *req, int timeout_ms, cJSON **resp)
{
    *resp = NULL;
    if (c->fd < 0)
        return NET_ECLOSED;
    uint64_t id = ++c->next_id;
    cJSON *idv = cJSON_CreateNumber((double)id);
    if (!idv)
        return NET_ENOMEM;
    if (cJSON_HasObjectItem(req, "id"))
        cJSON_ReplaceItemInObjectCaseSensitive(req, "id", idv);
    else
        cJSON_AddItemToObject(req, "id", idv);
    int rc = net_send(c, req, timeout_ms);
    if (rc != NET_OK)
        return rc;
    int64_t deadline = net_now_ms() + timeout_ms;
    for (;;) {
        cJSON *msg = NULL;
        int r = next_buffered(c, &msg);
        if (r < 0)
            return r;
        if (r == 1) {
            uint64_t got;
            const char *type = NULL;
            (void)qk_json_get_str(msg, "type", &type);
            if ((qk_json_get_uint(msg, "id", &got) && got == id) ||
                (type && strcmp(type, "error") == 0 && !qk_json_has(msg, "id"))) {
                *resp = msg;
                /* Lines that came in the same read are already off the
                 * socket: poll() will not report them, so queue them now.
                 * A framing error among them shows on the next read. */
                (void)queue_buffered(c);
                return NET_OK;
            }
            queue_or_drop(c, msg);
            continue;
        }
        struct pollfd pfd = {.fd = c->fd, .events = POLLIN};
        int left = remaining(deadline);
        if (left == 0)
            return NET_ETIMEDOUT;
        int pr = poll(&pfd, 1, left);
        if (pr < 0 && errno != EINTR)
            return NET_ECLOSED;
        if (pr <= 0)
            continue;
        int rr = read_some(c);
        if (rr < 0)
            return rr;
    }
}

int net_pump(net_conn *c)
{
    if (c->fd < 0)
        return NET_ECLOSED;
    /* Drain the socket first, then the frame: a read may hold many lines,
     * and EOF after the last bytes must still deliver them. */
    int closed = NET_OK;
    for (;;) {
        int r = read_some(c);
        if (r == 0)
            break;
        if (r < 0) {
            closed = r;
            break;
        }
    }
    int r = queue_buffered(c);
    return r < 0 ? r : closed;
}

cJSON *net_next_event(net_conn *c)
{
    if (!c->events || cJSON_GetArraySize(c->events) == 0)
        return NULL;
    return cJSON_DetachItemFromArray(c->events, 0);
}
