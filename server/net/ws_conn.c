/*
 * ws_conn: the WebSocket transport of ws.h (transport.h) over wslay.
 *
 * Input. Bytes read stay in the server's read buffer (or, when the core
 * does not take them yet, in ws_sock.pend) and are handed to wslay's
 * server context (wslay_event_recv, which checks masking, opcodes, the
 * fragment sequence, control frames and UTF-8, answers pings and echoes a
 * close) only as the core asks next() for a message. wslay is set not to
 * buffer messages: its frame callbacks reassemble each text message here,
 * into one allocation of the declared length, so the limit is checked on
 * declared lengths before any payload is stored.
 *
 * wslay reports a frame (on_frame_recv_start, with its length) only once
 * a payload byte follows the header, and refuses an unmasked one only
 * then too: a header announcing 2^62 bytes with nothing behind it would
 * wait. So the header of a frame not started yet, when it is all wslay has
 * left (at most 14 bytes), is read here too (RFC 6455 5.2: the mask bit,
 * the 7, 16 or 64-bit length) to refuse such a frame at once. Where a
 * frame boundary is: wslay takes the bytes in blocks, so the bytes fed and
 * the bytes of frames it reported (each header's length follows from its
 * payload length, since wslay accepts only minimal length encodings and
 * masked frames) are counted; their difference is the part of a frame not
 * reported yet.
 *
 * wslay's context (with its two 4 KiB buffers) is freed whenever the
 * connection is at rest (no frame or message under way, nothing fed that
 * it has not reported, nothing for it to send), and made again by the next
 * byte: an idle connection holds none.
 *
 * Output. Frames are built by the server's one wslay frame context
 * (ws_server.tx): its send callback gathers the header bytes into a small
 * array and points at the payload in the shared outbuf, so a flush is one
 * uv_try_write of every message's header and payload, as over TCP.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include <wslay/wslay.h>

#include "net/ws_int.h"
#include "qk_proto.h"
#include "util/log.h"

enum { HDR_MAX = 14, SERVER_HDR_MAX = 10 }; /* RFC 6455 5.2: with and without the mask key */

struct ws_rx {
    wslay_event_context_ptr ctx;
    uint64_t fed;          /* bytes handed to wslay */
    uint64_t consumed;     /* bytes of the frames it reported (headers and payload) */
    uint64_t msg_declared; /* payload declared by the frames of the message under way */
    wsmsg *part;           /* that message, allocated at msg_declared + 1 */
    uint8_t tail[HDR_MAX]; /* the last bytes fed (for a header not reported yet) */
    uint8_t tail_len;
    bool in_frame, in_msg;
    bool progress; /* a message or a control frame ended during this feed */
};

static ws_sock *ws_of(conn *c)
{
    return (ws_sock *)c;
}

static bool stopped(const ws_sock *w)
{
    return w->too_long || w->refused || w->ended;
}

static void free_msgs(wsmsg *m)
{
    while (m) {
        wsmsg *next = m->next;
        free(m);
        m = next;
    }
}

/* ---- output: the shared framer ----------------------------------------- */

/* The frames being built for one write: iovecs and the headers' bytes. */
struct ws_gather {
    uv_buf_t *bufs;
    unsigned nbufs, cap;
    char *hdr;
    size_t hlen, hcap;
    const uint8_t *payload; /* the current frame's payload: pointed at, not copied */
};

static ssize_t tx_send_cb(const uint8_t *data, size_t len, int flags, void *user)
{
    (void)flags;
    struct ws_gather *g = ((ws_server *)user)->gather;
    if (!g || g->nbufs == g->cap)
        return -1;
    if (data == g->payload) {
        g->bufs[g->nbufs++] = uv_buf_init((char *)data, (unsigned)len);
        return (ssize_t)len;
    }
    if (g->hlen + len > g->hcap)
        return -1;
    memcpy(g->hdr + g->hlen, data, len);
    g->bufs[g->nbufs++] = uv_buf_init(g->hdr + g->hlen, (unsigned)len);
    g->hlen += len;
    return (ssize_t)len;
}

/* The framer only sends; a server never masks (RFC 6455 5.1). */
static ssize_t tx_recv_cb(uint8_t *buf, size_t len, int flags, void *user)
{
    (void)buf, (void)len, (void)flags, (void)user;
    return -1;
}

static int tx_genmask_cb(uint8_t *buf, size_t len, void *user)
{
    (void)buf, (void)len, (void)user;
    return -1;
}

int ws_tx_init(ws_server *s)
{
    struct wslay_frame_callbacks cb = {tx_send_cb, tx_recv_cb, tx_genmask_cb};
    return wslay_frame_context_init(&s->tx, &cb, s) == 0 ? 0 : -1;
}

void ws_tx_free(ws_server *s)
{
    if (s->tx)
        wslay_frame_context_free(s->tx);
    s->tx = NULL;
}

/* One whole frame into g (FIN set, unmasked). 0, or -1 (not framed). */
static int frame_one(ws_server *s, struct ws_gather *g, uint8_t opcode, const void *data,
                     size_t len)
{
    struct wslay_frame_iocb io = {0};
    io.fin = 1;
    io.opcode = opcode;
    io.payload_length = len;
    io.data = data;
    io.data_length = len;
    g->payload = data;
    s->gather = g;
    ssize_t r = wslay_frame_send(s->tx, &io);
    s->gather = NULL;
    return r == (ssize_t)len ? 0 : -1;
}

/* A close frame (RFC 6455 5.5.1: the status, then a UTF-8 reason), sent
 * after everything written before; done as for ws_sock_write_copy. */
static int send_close(ws_sock *w, uint16_t status, const char *why, void (*done)(ws_sock *, int))
{
    uint8_t payload[2 + 64];
    size_t n = strlen(why);
    if (n > sizeof payload - 2)
        n = sizeof payload - 2;
    payload[0] = (uint8_t)(status >> 8);
    payload[1] = (uint8_t)status;
    memcpy(payload + 2, why, n);
    uv_buf_t bufs[2];
    char hdr[SERVER_HDR_MAX];
    struct ws_gather g = {bufs, 0, 2, hdr, 0, sizeof hdr, NULL};
    if (frame_one(w->srv, &g, WSLAY_CONNECTION_CLOSE, payload, n + 2) != 0)
        return UV_EINVAL;
    char frame[SERVER_HDR_MAX + sizeof payload];
    size_t k = 0;
    for (unsigned i = 0; i < g.nbufs; i++) {
        memcpy(frame + k, bufs[i].base, bufs[i].len);
        k += bufs[i].len;
    }
    return ws_sock_write_copy(w, frame, k, done);
}

/* ---- input: wslay's server context --------------------------------------- */

static void rx_free(ws_sock *w)
{
    ws_rx *rx = w->rx;
    if (!rx)
        return;
    wslay_event_context_free(rx->ctx);
    free(rx->part);
    free(rx);
    w->rx = NULL;
}

/* RFC 6455 5.2: the length of a masked header with the minimal length
 * encoding (the only ones wslay accepts from a client). */
static uint64_t header_len(uint64_t payload)
{
    return 2 + (payload < 126 ? 0 : payload < 65536 ? 2 : 8) + 4;
}

static void refuse_too_long(ws_sock *w, uint64_t declared)
{
    w->too_long = true;
    w->close_code = WSLAY_CODE_MESSAGE_TOO_BIG; /* 1009 */
    log_debug("conn %llu: WebSocket message of %llu bytes declared",
              (unsigned long long)w->base.serial, (unsigned long long)declared);
}

static ssize_t recv_cb(wslay_event_context_ptr ctx, uint8_t *buf, size_t len, int flags, void *user)
{
    (void)flags;
    ws_sock *w = user;
    ws_rx *rx = w->rx;
    /* A complete message waiting is taken first: the bytes behind it stay
     * where they are until the core asks for more. */
    size_t n = 0;
    if (!w->in_head && !stopped(w)) {
        if (w->pend_len) {
            n = len < w->pend_len ? len : w->pend_len;
            memcpy(buf, w->pend, n);
            memmove(w->pend, w->pend + n, w->pend_len - n);
            w->pend_len -= n;
            if (!w->pend_len) {
                free(w->pend);
                w->pend = NULL;
            }
        } else if (w->rd_len) {
            n = len < w->rd_len ? len : w->rd_len;
            memcpy(buf, w->rd, n);
            w->rd += n;
            w->rd_len -= n;
        }
    }
    if (n == 0) {
        wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
        return -1;
    }
    rx->fed += n;
    if (n >= HDR_MAX) {
        memcpy(rx->tail, buf + n - HDR_MAX, HDR_MAX);
        rx->tail_len = HDR_MAX;
    } else {
        size_t keep = rx->tail_len + n > HDR_MAX ? HDR_MAX - n : rx->tail_len;
        memmove(rx->tail, rx->tail + rx->tail_len - keep, keep);
        memcpy(rx->tail + keep, buf, n);
        rx->tail_len = (uint8_t)(keep + n);
    }
    return (ssize_t)n;
}

/* wslay's own output: pongs, and its close frames (an echo, or a refusal). */
static ssize_t send_cb(wslay_event_context_ptr ctx, const uint8_t *data, size_t len, int flags,
                       void *user)
{
    (void)flags;
    if (ws_sock_write_copy(user, data, len, NULL) < 0) {
        wslay_event_set_error(ctx, WSLAY_ERR_CALLBACK_FAILURE);
        return -1;
    }
    return (ssize_t)len;
}

static void on_frame_start(wslay_event_context_ptr ctx,
                           const struct wslay_event_on_frame_recv_start_arg *arg, void *user)
{
    ws_sock *w = user;
    ws_rx *rx = w->rx;
    rx->in_frame = true;
    rx->consumed += header_len(arg->payload_length);
    if (wslay_is_ctrl_frame(arg->opcode) || stopped(w))
        return;
    if (arg->opcode == WSLAY_BINARY_FRAME) {
        w->refused = true;
        w->close_code = WSLAY_CODE_UNSUPPORTED_DATA; /* 1003 */
        wslay_event_shutdown_read(ctx);
        return;
    }
    if (arg->opcode == WSLAY_TEXT_FRAME) {
        rx->in_msg = true;
        rx->msg_declared = 0;
    }
    /* A continuation belongs to a text message: a binary one was refused
     * at its first frame, and wslay refuses one outside a message. */
    uint64_t limit = w->base.net->line_limit;
    if (arg->payload_length > limit - rx->msg_declared) {
        refuse_too_long(w, rx->msg_declared + arg->payload_length);
        wslay_event_shutdown_read(ctx);
        return;
    }
    rx->msg_declared += arg->payload_length;
    if (arg->payload_length == 0 && rx->part)
        return;
    size_t have = rx->part ? rx->part->len : 0;
    wsmsg *m = realloc(rx->part, sizeof *m + rx->msg_declared + 1);
    if (!m) {
        log_error("conn %llu: out of memory buffering input", (unsigned long long)w->base.serial);
        w->ended = true;
        w->close_code = WSLAY_CODE_INTERNAL_SERVER_ERROR;
        wslay_event_shutdown_read(ctx);
        return;
    }
    m->next = NULL;
    m->len = have;
    rx->part = m;
}

static void on_frame_chunk(wslay_event_context_ptr ctx,
                           const struct wslay_event_on_frame_recv_chunk_arg *arg, void *user)
{
    (void)ctx;
    ws_sock *w = user;
    ws_rx *rx = w->rx;
    rx->consumed += arg->data_length;
    /* Control frames' payloads are wslay's (it buffers them itself). */
    if (stopped(w) || !rx->in_msg || !rx->part || arg->data_length == 0 ||
        rx->part->len + arg->data_length > rx->msg_declared)
        return;
    memcpy(rx->part->data + rx->part->len, arg->data, arg->data_length);
    rx->part->len += arg->data_length;
}

static void on_frame_end(wslay_event_context_ptr ctx, void *user)
{
    (void)ctx;
    ws_sock *w = user;
    ws_rx *rx = w->rx;
    rx->in_frame = false;
    if (!rx->in_msg)
        rx->progress = true; /* a control frame outside a message */
}

static void on_msg(wslay_event_context_ptr ctx, const struct wslay_event_on_msg_recv_arg *arg,
                   void *user)
{
    (void)ctx;
    ws_sock *w = user;
    ws_rx *rx = w->rx;
    if (arg->opcode != WSLAY_TEXT_FRAME || stopped(w))
        return; /* pings are answered and closes echoed by wslay */
    wsmsg *m = rx->part;
    rx->part = NULL;
    rx->in_msg = false;
    rx->progress = true;
    rx->msg_declared = 0;
    if (!m) { /* an empty message: nothing was allocated */
        m = malloc(sizeof *m + 1);
        if (!m) {
            w->ended = true;
            w->close_code = WSLAY_CODE_INTERNAL_SERVER_ERROR;
            wslay_event_shutdown_read(ctx);
            return;
        }
        m->len = 0;
    }
    m->next = NULL;
    m->data[m->len] = '\0';
    if (w->in_tail)
        w->in_tail->next = m;
    else
        w->in_head = m;
    w->in_tail = m;
}

static int rx_new(ws_sock *w)
{
    ws_rx *rx = calloc(1, sizeof *rx);
    if (!rx)
        return -1;
    struct wslay_event_callbacks cb = {recv_cb,        send_cb,      NULL,  on_frame_start,
                                       on_frame_chunk, on_frame_end, on_msg};
    if (wslay_event_context_server_init(&rx->ctx, &cb, w) != 0) {
        free(rx);
        return -1;
    }
    /* Messages are reassembled here (on_frame_chunk); wslay's own length
     * limit stays out of the way (it would queue its close 1009 before our
     * line_too_long; ours is on_frame_start's and peek's). */
    wslay_event_config_set_no_buffering(rx->ctx, 1);
    wslay_event_config_set_max_recv_msg_length(rx->ctx, UINT64_MAX);
    w->rx = rx;
    return 0;
}

/* The header of the next frame, when it is all wslay holds of it (see the
 * file's comment): refuse an unmasked frame or an over-long declared
 * length now rather than once payload follows. */
static void peek(ws_sock *w)
{
    ws_rx *rx = w->rx;
    uint64_t un = rx->fed - rx->consumed;
    if (rx->in_frame || un < 2 || un > rx->tail_len)
        return;
    const uint8_t *h = rx->tail + rx->tail_len - un;
    if (!(h[1] & 0x80)) {
        w->ended = true;
        w->close_code = WSLAY_CODE_PROTOCOL_ERROR; /* 1002: RFC 6455 5.1 */
        log_debug("conn %llu: unmasked WebSocket frame", (unsigned long long)w->base.serial);
        return;
    }
    unsigned op = h[0] & 0x0f;
    if (op != WSLAY_CONTINUATION_FRAME && op != WSLAY_TEXT_FRAME && op != WSLAY_BINARY_FRAME)
        return; /* control frames are at most 125 bytes: wslay refuses longer ones */
    unsigned l7 = h[1] & 0x7f;
    unsigned ext = l7 == 126 ? 2 : l7 == 127 ? 8 : 0;
    if (un < 2 + ext)
        return;
    uint64_t len = ext ? 0 : l7;
    for (unsigned i = 0; i < ext; i++)
        len = len << 8 | h[2 + i];
    uint64_t before = op == WSLAY_CONTINUATION_FRAME ? rx->msg_declared : 0;
    if (len > w->base.net->line_limit - before)
        refuse_too_long(w, before + len);
}

static bool at_rest(const ws_rx *rx)
{
    return !rx->in_frame && !rx->in_msg && rx->fed == rx->consumed &&
           !wslay_event_want_write(rx->ctx);
}

/* Hand input to wslay until a message is complete, the input runs out or
 * the connection is refused; then free wslay's context if at rest, or
 * (re)start the frame deadline. */
static void feed(ws_sock *w)
{
    while (!w->in_head && !stopped(w) && (w->pend_len || w->rd_len)) {
        if (!w->rx && rx_new(w) != 0) {
            log_error("conn %llu: out of memory for a WebSocket frame",
                      (unsigned long long)w->base.serial);
            w->ended = true;
            w->close_code = WSLAY_CODE_INTERNAL_SERVER_ERROR;
            break;
        }
        ws_rx *rx = w->rx;
        int rc = wslay_event_recv(rx->ctx);
        if (rc != 0) {
            w->ended = true; /* out of memory, or our send callback failed */
            w->close_code = WSLAY_CODE_INTERNAL_SERVER_ERROR;
            break;
        }
        if (w->too_long || w->refused)
            break;
        /* A pong, or wslay's close frame (an echo, or its refusal: 1002,
         * 1007), goes out now. */
        if (wslay_event_want_write(rx->ctx) && wslay_event_send(rx->ctx) != 0)
            w->ended = true;
        if (wslay_event_get_close_sent(rx->ctx))
            w->close_sent = true;
        if (!wslay_event_get_read_enabled(rx->ctx))
            w->ended = true;
        if (w->ended)
            break;
        peek(w);
    }
    ws_rx *rx = w->rx;
    if (stopped(w)) {
        /* Nothing more is taken from this connection. */
        rx_free(w);
        ws_dl_cancel(w);
        free(w->pend);
        w->pend = NULL;
        w->pend_len = 0;
        w->rd_len = 0;
        return;
    }
    if (!rx)
        return;
    if (at_rest(rx)) {
        rx_free(w);
        ws_dl_cancel(w);
    } else if (!w->dl || rx->progress) {
        rx->progress = false;
        ws_dl_arm(&w->srv->frames, w);
    }
}

void ws_conn_frame_expired(ws_sock *w)
{
    conn *c = &w->base;
    if (!w->upgraded || c->closing || !w->rx)
        return;
    /* Waiting on us (backpressure, a deferred request) is not the peer's
     * delay. */
    if (w->in_head || w->pend_len || !c->reading) {
        ws_dl_arm(&w->srv->frames, w);
        return;
    }
    char peer[CONN_PEER_MAX];
    log_info("conn %llu (%s): a WebSocket frame not complete in %llu ms, closing",
             (unsigned long long)c->serial, conn_peer(c, peer),
             (unsigned long long)w->srv->frames.bound_ms);
    w->ended = true;
    w->close_code = WSLAY_CODE_POLICY_VIOLATION; /* 1008 */
    rx_free(w);
    conn_close(c);
}

/* ---- the transport ---------------------------------------------------- */

static int t_next(conn *c, char **msg, size_t *len)
{
    ws_sock *w = ws_of(c);
    free(w->cur);
    w->cur = NULL;
    if (!w->in_head)
        feed(w);
    if (w->in_head) {
        wsmsg *m = w->in_head;
        w->in_head = m->next;
        if (!w->in_head)
            w->in_tail = NULL;
        w->cur = m;
        *msg = m->data;
        *len = m->len;
        return 1;
    }
    /* Every message before the refusal was handed out; now the refusal. */
    if (w->too_long)
        return -1; /* the core answers line_too_long and closes: 1009 */
    if (w->refused && !w->refusal_sent) {
        w->refusal_sent = true;
        char peer[CONN_PEER_MAX];
        log_info("conn %llu (%s): binary WebSocket frame, closing", (unsigned long long)c->serial,
                 conn_peer(c, peer));
        cJSON *err = qk_proto_error(NULL, QK_ERR_BAD_REQUEST,
                                    "binary frames are not supported: send each message as one "
                                    "text frame");
        if (err)
            conn_send_json(c, err, CONN_MSG_REPLY, NULL);
        cJSON_Delete(err);
        conn_close_after_write(c); /* then 1003 */
        return 0;
    }
    if (w->ended)
        conn_close(c); /* wslay's close frame went out, or ours does now */
    return 0;
}

static int t_read_start(conn *c)
{
    return ws_sock_read_start(ws_of(c));
}

static void t_read_stop(conn *c)
{
    ws_sock_read_stop(ws_of(c));
}

/* Complete messages or bytes not taken yet, or bytes the kernel holds. */
static bool t_unread(conn *c)
{
    ws_sock *w = ws_of(c);
    if (w->in_head || w->pend_len)
        return true;
    uv_os_fd_t fd;
    int n = 0;
    if (uv_fileno((uv_handle_t *)&w->tcp, &fd) != 0 || ioctl(fd, FIONREAD, &n) != 0)
        return false;
    return n > 0;
}

static void msg_write_cb(uv_write_t *req, int status)
{
    ws_wreq *r = (ws_wreq *)req;
    conn *c = &r->w->base;
    size_t bytes = r->bytes;
    outmsg_free_list(r->msgs);
    free(r);
    conn_write_done(c, bytes, status);
}

/* Each message one frame: a text frame without its '\n', or a ping for an
 * empty line (the heartbeat). Headers gathered, payloads pointed at. */
static ssize_t t_write(conn *c, outmsg *msgs, size_t count, size_t bytes)
{
    (void)bytes;
    ws_sock *w = ws_of(c);
    if (w->close_sent || w->handle_closing) {
        outmsg_free_list(msgs);
        return UV_EPIPE;
    }
    uv_buf_t stackbufs[128];
    char stackhdr[64 * SERVER_HDR_MAX];
    uv_buf_t *bufs = stackbufs;
    char *hdr = stackhdr;
    void *heap = NULL;
    if (count > 64) {
        heap = malloc(count * (2 * sizeof *bufs + SERVER_HDR_MAX));
        if (!heap) {
            outmsg_free_list(msgs);
            return UV_ENOMEM;
        }
        bufs = heap;
        hdr = (char *)(bufs + 2 * count);
    }
    struct ws_gather g = {bufs, 0, (unsigned)(2 * count), hdr, 0, count * SERVER_HDR_MAX, NULL};
    ssize_t rc = 0;
    size_t total = 0;
    for (outmsg *m = msgs; m; m = m->next) {
        size_t len = m->ob->len;
        if (len > 0 && m->ob->data[len - 1] == '\n')
            len--; /* the newline is the line transport's frame, not the message's */
        uint8_t op = len ? WSLAY_TEXT_FRAME : WSLAY_PING;
        if (frame_one(w->srv, &g, op, m->ob->data, len) != 0) {
            rc = UV_EINVAL;
            goto out;
        }
    }
    for (unsigned i = 0; i < g.nbufs; i++)
        total += g.bufs[i].len;
    size_t skip = 0;
    int t = uv_try_write((uv_stream_t *)&w->tcp, g.bufs, g.nbufs);
    if (t < 0 && t != UV_EAGAIN) {
        rc = t;
        goto out;
    }
    skip = t > 0 ? (size_t)t : 0;
    if (skip == total)
        goto out; /* rc 0: all written */
    size_t left = total - skip;
    unsigned first = 0;
    while (skip >= g.bufs[first].len) {
        skip -= g.bufs[first].len;
        first++;
    }
    g.bufs[first].base += skip;
    g.bufs[first].len -= skip;
    /* The headers must outlive the write: into the request; payloads are
     * the outbufs, which the request keeps until written. */
    ws_wreq *r = malloc(sizeof *r + g.hlen);
    if (!r) {
        rc = UV_ENOMEM;
        goto out;
    }
    memset(r, 0, sizeof *r);
    memcpy(r->data, g.hdr, g.hlen);
    for (unsigned i = first; i < g.nbufs; i++)
        if (g.bufs[i].base >= g.hdr && g.bufs[i].base < g.hdr + g.hlen)
            g.bufs[i].base = r->data + (g.bufs[i].base - g.hdr);
    r->w = w;
    r->msgs = msgs;
    r->bytes = left;
    int wrc =
        uv_write(&r->req, (uv_stream_t *)&w->tcp, g.bufs + first, g.nbufs - first, msg_write_cb);
    if (wrc < 0) {
        r->msgs = NULL;
        free(r);
        rc = wrc;
        goto out;
    }
    free(heap);
    return (ssize_t)left;
out:
    outmsg_free_list(msgs);
    free(heap);
    return rc;
}

static void shutdown_written(ws_sock *w, int status)
{
    conn_shutdown_done(&w->base, status); /* closes w: t_close lingers */
}

/* The graceful stop: a close frame (1001) after the last message. */
static int t_shutdown(conn *c)
{
    ws_sock *w = ws_of(c);
    if (w->close_sent || w->handle_closing)
        return UV_ENOTCONN;
    int rc = send_close(w, WSLAY_CODE_GOING_AWAY, "server shutting down", shutdown_written);
    if (rc == 0)
        w->close_sent = true;
    return rc;
}

static void t_close(conn *c)
{
    ws_sock *w = ws_of(c);
    ws_dl_cancel(w);
    rx_free(w);
    if (w->handle_closing)
        return;
    /* Output still waiting means the peer does not read (the output cap):
     * a close frame would only wait behind it. */
    if (!w->close_sent && uv_stream_get_write_queue_size((uv_stream_t *)&w->tcp) == 0 &&
        send_close(w, w->close_code ? w->close_code : WSLAY_CODE_NORMAL_CLOSURE, "", NULL) == 0)
        w->close_sent = true;
    if (w->close_sent)
        ws_sock_linger(w);
    else
        ws_sock_close(w);
}

static void t_free(conn *c)
{
    ws_sock *w = ws_of(c);
    rx_free(w);
    free_msgs(w->in_head);
    free(w->cur);
    ws_sock_free_bufs(w);
    free(w);
}

/* On a dual-stack listener an IPv4 peer is named as over TCP (a.b.c.d),
 * so the per-address cap counts it once. */
static void t_peer_addr(conn *c, conn_addr *out)
{
    ws_sock *w = ws_of(c);
    struct sockaddr_storage ss;
    int len = sizeof ss;
    bool ok = uv_tcp_getpeername(&w->tcp, (struct sockaddr *)&ss, &len) == 0;
    conn_addr_set(out, ok ? (struct sockaddr *)&ss : NULL, true);
}

static const transport ws_transport = {
    .name = "ws",
    .next = t_next,
    .read_start = t_read_start,
    .read_stop = t_read_stop,
    .unread = t_unread,
    .write = t_write,
    .shutdown = t_shutdown,
    .close = t_close,
    .free_conn = t_free,
    .peer_addr = t_peer_addr,
    .size = sizeof(ws_sock),
};

size_t ws_sock_alloc_size(const net *n)
{
    return conn_alloc_size(n, &ws_transport);
}

/* ---- from ws.c ---------------------------------------------------------- */

void ws_conn_open(ws_sock *w)
{
    conn *c = &w->base;
    w->upgraded = true;
    conn_init(c, w->srv->net, &ws_transport);
    conn_accepted(c); /* its peer name, the caps, open_cb; starts reading */
    if (!c->closing && w->pend_len)
        conn_input(c); /* frames the client sent behind its handshake */
}

void ws_conn_read(ws_sock *w, ssize_t nread, const char *data)
{
    conn *c = &w->base;
    if (c->closing)
        return;
    if (nread == UV_EOF) {
        conn_input_end(c);
        return;
    }
    if (nread < 0) {
        log_debug("conn %llu: read: %s", (unsigned long long)c->serial, uv_strerror((int)nread));
        conn_close(c);
        return;
    }
    if (w->pend_len) {
        /* Bytes kept from before come first (the core had not taken
         * them): the new ones join them. */
        char *p = realloc(w->pend, w->pend_len + (size_t)nread);
        if (!p)
            goto nomem;
        memcpy(p + w->pend_len, data, (size_t)nread);
        w->pend = p;
        w->pend_len += (size_t)nread;
    } else {
        w->rd = data;
        w->rd_len = (size_t)nread;
    }
    conn_input(c);
    /* What the core did not take yet is kept, at its size, before the
     * read buffer is read into again. */
    if (w->rd_len && !c->closing && !stopped(w)) {
        char *p = malloc(w->rd_len);
        if (!p)
            goto nomem;
        memcpy(p, w->rd, w->rd_len);
        w->pend = p;
        w->pend_len = w->rd_len;
    }
    w->rd = NULL;
    w->rd_len = 0;
    return;
nomem:
    w->rd = NULL;
    w->rd_len = 0;
    log_error("conn %llu: out of memory buffering input", (unsigned long long)c->serial);
    conn_close(c);
}
