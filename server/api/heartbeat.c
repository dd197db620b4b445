/*
 * heartbeat: see heartbeat.h.
 */
#include "api/heartbeat.h"

#include <stdio.h>
#include <stdlib.h>

#include "api/session.h"
#include "qk_proto.h"
#include "util/log.h"

/* ---- heartbeat and login timeout --------------------------------------- */

/* Send the login-timeout error to k and close it once written. */
static void login_timeout(heartbeat *a, conn *k)
{
    char msg[48];
    if (a->login_timeout_ms % 1000 == 0)
        snprintf(msg, sizeof msg, "log in within %d s", a->login_timeout_ms / 1000);
    else
        snprintf(msg, sizeof msg, "log in within %d ms", a->login_timeout_ms);
    cJSON *err = qk_proto_error(NULL, QK_ERR_UNAUTHENTICATED, msg);
    char peer[CONN_PEER_MAX];
    log_info("conn %llu (%s): no login in %d ms, closing", (unsigned long long)k->serial,
             conn_peer(k, peer), a->login_timeout_ms);
    if (err)
        conn_send_json(k, err, 0, NULL);
    cJSON_Delete(err);
    conn_close_after_write(k);
}

/* An empty line to every connection silent for heartbeat_ms (a client
 * learns the server is alive; NAT tables keep the flow), and the login
 * timeout for anonymous connections; one with a request deferred (a login
 * being hashed) is left alone. */
static void beat_cb(uv_timer_t *t)
{
    heartbeat *a = t->data;
    uint64_t now = uv_now(a->api->loop);
    conn *next;
    for (conn *k = a->api->net->all; k; k = next) {
        next = k->next; /* conn_send may close k */
        session *se = session_of(k);
        if (!k->closing && !k->close_after_write && se && !se->logged_in_once && k->paused == 0 &&
            now - se->opened_at >= (uint64_t)a->login_timeout_ms) {
            login_timeout(a, k);
            continue;
        }
        if (k->closing || conn_output_pending(k) || now - k->last_out < (uint64_t)a->heartbeat_ms)
            continue;
        k->last_out = now;
        conn_send(k, a->empty_line, 0, NULL);
    }
}

int heartbeat_init(heartbeat *h, api *a, int heartbeat_ms, int login_timeout_ms)
{
    h->api = a;
    h->heartbeat_ms = heartbeat_ms > 0 ? heartbeat_ms : HEARTBEAT_MS;
    h->login_timeout_ms = login_timeout_ms > 0 ? login_timeout_ms : LOGIN_TIMEOUT_MS;
    h->empty_line = malloc(sizeof *h->empty_line + 1);
    if (!h->empty_line) {
        log_error("out of memory");
        return -1;
    }
    h->empty_line->refs = 1;
    h->empty_line->len = 1;
    h->empty_line->data[0] = '\n';
    int rc = uv_timer_init(a->loop, &h->timer);
    if (rc < 0) {
        log_error("libuv timers: %s", uv_strerror(rc));
        return -1;
    }
    h->timer.data = h;
    h->open = true;
    return 0;
}

int heartbeat_start(heartbeat *h)
{
    /* Every quarter of the shorter period, so either fires at most a
     * quarter late. */
    int shorter = h->heartbeat_ms < h->login_timeout_ms ? h->heartbeat_ms : h->login_timeout_ms;
    int every = shorter / 4 > 0 ? shorter / 4 : 1;
    int rc = uv_timer_start(&h->timer, beat_cb, (uint64_t)every, (uint64_t)every);
    if (rc < 0) {
        log_error("libuv timers: %s", uv_strerror(rc));
        return -1;
    }
    return 0;
}

void heartbeat_stop(heartbeat *h)
{
    if (h->open) {
        h->open = false;
        uv_close((uv_handle_t *)&h->timer, NULL);
    }
}

void heartbeat_free(heartbeat *h)
{
    outbuf_unref(h->empty_line);
    h->empty_line = NULL;
}
