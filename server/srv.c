/*
 * srv: see srv.h. Start-up, the per-iteration flush (commit, then write),
 * undo of in-memory changes when a commit is lost, event fan-out and the
 * graceful stop.
 */
#include "srv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "game/corr.h"
#include "api/dispatch.h"
#include "game/games.h"
#include "util/log.h"
#include "qk_proto.h"

static int64_t default_clock(void *arg)
{
    (void)arg;
    return qk_now_ms();
}

int64_t srv_now(srv *s)
{
    return s->clock(s->clock_arg);
}

/* ---- flush ------------------------------------------------------------ */

static void undo_clear(srv *s)
{
    for (size_t i = 0; i < s->nundo; i++)
        if (s->undo[i].conn)
            conn_unref(s->undo[i].conn);
    s->nundo = 0;
}

/* The transaction is gone: put memory back in line with the database. */
static void undo_run(srv *s)
{
    if (s->undo_overflow)
        games_forget_all(s->games);
    /* Newest first, so a session changed twice ends as it was at first. */
    for (size_t i = s->nundo; i-- > 0;) {
        srv_undo *u = &s->undo[i];
        if (u->kind == UNDO_GAME) {
            games_forget(s->games, u->game_id);
        } else if (!u->conn->closing) {
            session *sv = &u->saved;
            if (sv->user_id)
                session_login(s, u->conn, sv->user_id, sv->username, sv->bot,
                              sv->has_token ? sv->token_hash : NULL);
            else
                session_logout(s, u->conn);
        }
    }
}

/* The next batch of every connection with lines waiting; the prepare
 * handle, which runs right after, commits and writes it. */
static void idle_cb(uv_idle_t *h)
{
    srv *s = h->data;
    net_run_ready(&s->net);
}

static void stop_finish(srv *s);

void srv_flush(srv *s)
{
    if (store_in_txn(s->store)) {
        int rc = s->poisoned ? (store_rollback(s->store), STORE_EIO) : store_commit(s->store);
        s->commits++;
        if (rc != STORE_OK) {
            s->commit_failures++;
            log_error("commit failed: answering the batch with internal errors");
            undo_run(s);
            net_fail_txn(&s->net, "the change could not be saved; it was not made");
        }
    }
    s->poisoned = false;
    s->undo_overflow = false;
    undo_clear(s);
    corr_after_flush(s);
    net_flush(&s->net);
    games_trim(s->games);
    /* Lines left for the next turn: the idle handle keeps the loop from
     * blocking in poll until they have been handled (while stopping too:
     * they are answered server_shutdown). */
    if (s->handles_open) {
        int rc = net_has_ready(&s->net) ? uv_idle_start(&s->idle, idle_cb) : uv_idle_stop(&s->idle);
        if (rc < 0)
            log_error("idle handle: %s", uv_strerror(rc));
    }
    if (s->stopping && !s->net.all)
        stop_finish(s);
}

static void prepare_cb(uv_prepare_t *h)
{
    srv_flush(h->data);
}

static void check_cb(uv_check_t *h)
{
    srv_flush(h->data);
}

int srv_write_begin(srv *s)
{
    if (store_begin(s->store) != STORE_OK) {
        s->poisoned = true;
        return -1;
    }
    return 0;
}

void srv_poison(srv *s)
{
    s->poisoned = true;
}

static srv_undo *undo_push(srv *s)
{
    if (s->nundo == s->capundo) {
        size_t cap = s->capundo ? s->capundo * 2 : 16;
        srv_undo *u = realloc(s->undo, cap * sizeof *u);
        if (!u)
            return NULL;
        s->undo = u;
        s->capundo = cap;
    }
    srv_undo *u = &s->undo[s->nundo++];
    memset(u, 0, sizeof *u);
    return u;
}

void srv_touch_game(srv *s, int64_t game_id)
{
    srv_undo *u = undo_push(s);
    if (!u) {
        /* Out of memory: the batch is lost and every cached game will be
         * reloaded, since this one could not be remembered. */
        s->undo_overflow = true;
        srv_poison(s);
        return;
    }
    u->kind = UNDO_GAME;
    u->game_id = game_id;
}

void srv_touch_session(srv *s, conn *c)
{
    srv_undo *u = undo_push(s);
    if (!u) {
        /* Out of memory: the batch is lost; the login it makes stays in
         * memory (the user exists) but its token is not stored. */
        srv_poison(s);
        return;
    }
    u->kind = UNDO_SESSION;
    u->conn = c;
    conn_ref(c);
    session *se = session_of(c);
    u->saved.user_id = se->user_id;
    memcpy(u->saved.username, se->username, sizeof se->username);
    u->saved.bot = se->bot;
    u->saved.has_token = se->has_token;
    memcpy(u->saved.token_hash, se->token_hash, sizeof se->token_hash);
}

void srv_reply(srv *s, conn *c, const cJSON *id, const cJSON *msg)
{
    bool txn = store_in_txn(s->store);
    conn_send_json(c, msg, txn ? CONN_MSG_TXN : 0, id);
}

/* ---- events ----------------------------------------------------------- */

void srv_event_begin(srv *s)
{
    s->event_seq++;
}

static void event_to(srv *s, conn *c, outbuf *ob)
{
    session *se = session_of(c);
    if (c->closing || !se || se->event_stamp == s->event_seq)
        return;
    se->event_stamp = s->event_seq;
    conn_send(c, ob, store_in_txn(s->store) ? CONN_MSG_TXN : 0, NULL);
}

void srv_event_user(srv *s, outbuf *ob, int64_t user_id)
{
    reg_node *n = reg_first(&s->users, user_id);
    while (n) {
        /* conn_send() may close the connection, which unlinks n. */
        reg_node *next = reg_next(n);
        event_to(s, n->val, ob);
        n = next;
    }
}

void srv_event_game(srv *s, outbuf *ob, int64_t game_id)
{
    reg_node *n = reg_first(&s->subs, game_id);
    while (n) {
        reg_node *next = reg_next(n);
        event_to(s, n->val, ob);
        n = next;
    }
}

void srv_event_all(srv *s, outbuf *ob)
{
    conn *c = s->net.all;
    while (c) {
        conn *next = c->next;
        session *se = session_of(c);
        if (se && se->user_id)
            event_to(s, c, ob);
        c = next;
    }
}

/* ---- life cycle ------------------------------------------------------- */

int srv_init(srv *s, uv_loop_t *loop, const srv_config *cfg)
{
    memset(s, 0, sizeof *s);
    s->loop = loop;
    s->cfg = *cfg;
    if (s->cfg.max_hash_jobs <= 0)
        s->cfg.max_hash_jobs = SRV_MAX_HASH_JOBS;
    if (!s->cfg.rate.off && s->cfg.rate.burst == 0) {
        s->cfg.rate.burst = RATE_DEFAULT_BURST;
        s->cfg.rate.per_s = RATE_DEFAULT_PER_S;
    }
    s->clock = default_clock;
    reg_init(&s->users);
    reg_init(&s->subs);
    s->opslimit = cfg->pwhash_min ? crypto_pwhash_OPSLIMIT_MIN : crypto_pwhash_OPSLIMIT_INTERACTIVE;
    s->memlimit = cfg->pwhash_min ? crypto_pwhash_MEMLIMIT_MIN : crypto_pwhash_MEMLIMIT_INTERACTIVE;
    /* A hash of a random password: unknown users are verified against it
     * so they cost as much time as known ones. */
    unsigned char pw[16];
    randombytes_buf(pw, sizeof pw);
    if (crypto_pwhash_str(s->dummy_hash, (const char *)pw, sizeof pw, s->opslimit, s->memlimit) !=
        0) {
        log_error("crypto_pwhash_str: out of memory");
        return -1;
    }
    if (store_open(cfg->db_path, &s->store) != STORE_OK)
        return -1;
    if (games_new(s, &s->games) != 0) {
        log_error("out of memory");
        goto fail_store;
    }
    net_hooks hooks = {session_open_cb, dispatch_line_cb, session_close_cb, session_free_cb};
    net_init(&s->net, loop, &hooks, cfg->line_limit, cfg->out_limit);
    s->net.data = s;
    int rc = uv_prepare_init(loop, &s->prep);
    if (rc < 0)
        goto fail_uv;
    s->prep.data = s;
    rc = uv_check_init(loop, &s->check);
    if (rc < 0) {
        uv_close((uv_handle_t *)&s->prep, NULL);
        goto fail_uv;
    }
    s->check.data = s;
    rc = uv_idle_init(loop, &s->idle);
    if (rc < 0) {
        uv_close((uv_handle_t *)&s->prep, NULL);
        uv_close((uv_handle_t *)&s->check, NULL);
        goto fail_uv;
    }
    s->idle.data = s;
    s->handles_open = true;
    if ((rc = uv_prepare_start(&s->prep, prepare_cb)) < 0 ||
        (rc = uv_check_start(&s->check, check_cb)) < 0)
        goto fail_handles;
    if (corr_new(s) != 0) {
        rc = UV_ENOMEM;
        goto fail_handles;
    }
    return 0;
fail_handles:
    uv_close((uv_handle_t *)&s->prep, NULL);
    uv_close((uv_handle_t *)&s->check, NULL);
    uv_close((uv_handle_t *)&s->idle, NULL);
    s->handles_open = false;
fail_uv:
    log_error("libuv: %s", uv_strerror(rc));
    games_free(s->games);
    s->games = NULL;
fail_store:
    store_close(s->store);
    s->store = NULL;
    return -1;
}

static void signal_cb(uv_signal_t *h, int signum)
{
    log_info("signal %d: shutting down", signum);
    srv_stop(h->data);
}

static int write_ready(int fd, int port)
{
    char buf[16];
    int n = snprintf(buf, sizeof buf, "%d\n", port);
    ssize_t w;
    do
        w = write(fd, buf, (size_t)n);
    while (w < 0 && errno == EINTR);
    close(fd);
    return w == n ? 0 : -1;
}

int srv_start(srv *s)
{
    int rc = net_listen(&s->net, s->cfg.host, s->cfg.port, &s->port);
    if (rc < 0)
        return -1;
    if ((rc = uv_signal_init(s->loop, &s->sigint)) < 0)
        goto fail;
    s->sigint.data = s;
    if ((rc = uv_signal_init(s->loop, &s->sigterm)) < 0) {
        uv_close((uv_handle_t *)&s->sigint, NULL);
        goto fail;
    }
    s->sigterm.data = s;
    if ((rc = uv_signal_start(&s->sigint, signal_cb, SIGINT)) < 0 ||
        (rc = uv_signal_start(&s->sigterm, signal_cb, SIGTERM)) < 0) {
        uv_close((uv_handle_t *)&s->sigint, NULL);
        uv_close((uv_handle_t *)&s->sigterm, NULL);
        goto fail;
    }
    s->signals_open = true;
    /* Deadlines are reloaded (and extended after a long stop) before the
     * port is reported: a client never sees a stale deadline. */
    if (corr_start(s) != 0)
        return -1;
    /* Injected commit failures count from here, after start-up's own. */
    store_fail_commit_at(s->store, s->cfg.fail_commit_at);
    log_info("listening on %s:%d, database %s", s->cfg.host, s->port, s->cfg.db_path);
    if (s->cfg.ready_fd >= 0 && write_ready(s->cfg.ready_fd, s->port) != 0)
        log_warn("cannot write the port to fd %d: %s", s->cfg.ready_fd, strerror(errno));
    return 0;
fail:
    log_error("libuv signals: %s", uv_strerror(rc));
    net_stop_listening(&s->net);
    return -1;
}

/* Every connection is closed: close the server's own handles, so uv_run()
 * returns once the thread pool's last completions have run. */
static void stop_finish(srv *s)
{
    if (s->stop_timer_open) {
        s->stop_timer_open = false;
        uv_close((uv_handle_t *)&s->stop_timer, NULL);
    }
    if (s->handles_open) {
        s->handles_open = false;
        uv_close((uv_handle_t *)&s->prep, NULL);
        uv_close((uv_handle_t *)&s->check, NULL);
        uv_close((uv_handle_t *)&s->idle, NULL);
    }
    if (s->signals_open) {
        s->signals_open = false;
        uv_close((uv_handle_t *)&s->sigint, NULL);
        uv_close((uv_handle_t *)&s->sigterm, NULL);
    }
}

/* The grace period is over: whoever is still connected is cut off. */
static void stop_timer_cb(uv_timer_t *h)
{
    srv *s = h->data;
    if (s->net.all)
        log_warn("%zu connections still busy %d ms after the stop: closing them", s->net.nconns,
                 SRV_STOP_GRACE_MS);
    net_close_all(&s->net);
    srv_flush(s); /* no connection is left: stop_finish() */
}

void srv_stop(srv *s)
{
    if (s->stopping)
        return;
    s->stopping = true;
    net_stop_listening(&s->net);
    corr_stop(s); /* stages last_alive */
    int rc = uv_timer_init(s->loop, &s->stop_timer);
    if (rc == 0) {
        s->stop_timer.data = s;
        s->stop_timer_open = true;
        rc = uv_timer_start(&s->stop_timer, stop_timer_cb, SRV_STOP_GRACE_MS, 0);
    }
    if (rc < 0) {
        /* No grace period without its timer: stop as before, at once. */
        log_error("stop timer: %s", uv_strerror(rc));
        srv_flush(s);
        net_close_all(&s->net);
        stop_finish(s);
        return;
    }
    /* What is staged is committed and what was answered goes out; then
     * every connection ends as soon as it is quiet (net_shutdown), the
     * last one's close letting srv_flush() call stop_finish(). */
    srv_flush(s);
    net_shutdown(&s->net);
    srv_flush(s);
}

void srv_close(srv *s)
{
    log_info("%llu batches committed, %llu lost", (unsigned long long)s->commits,
             (unsigned long long)s->commit_failures);
    undo_clear(s);
    free(s->undo);
    s->undo = NULL;
    games_free(s->games);
    s->games = NULL;
    corr_free(s);
    reg_free(&s->users);
    reg_free(&s->subs);
    store_close(s->store);
    s->store = NULL;
}
