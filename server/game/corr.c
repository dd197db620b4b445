/*
 * corr: see corr.h. Two timers: the deadline timer (one-shot, re-armed
 * at the earliest wake_at) and the last_alive row (every minute).
 */
#include "game/corr.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "game/challenges.h"
#include "game/games.h"
#include "util/log.h"
#include "util/task.h"
#include "game/notify.h"

#define SWEEP_BATCH 256
#define MAX_TIMER_DELAY_MS (3600LL * 1000) /* look again at least hourly */

struct corr {
    bool timers_open, started;
    bool rearm_queued; /* a rearm task waits to run (corr_after_flush) */
    uv_timer_t deadline, alive;
};

int corr_new(gsvc *s)
{
    struct corr *c = calloc(1, sizeof *c);
    if (!c)
        return -1;
    int rc;
    if ((rc = uv_timer_init(s->loop, &c->deadline)) < 0)
        goto fail;
    if ((rc = uv_timer_init(s->loop, &c->alive)) < 0) {
        uv_close((uv_handle_t *)&c->deadline, NULL);
        goto fail;
    }
    c->deadline.data = c->alive.data = s;
    c->timers_open = true;
    s->wake_armed_at = INT64_MAX;
    s->corr = c;
    return 0;
fail:
    /* The closes complete in the loop run that srv_stop/srv_close make;
     * the struct must outlive them, so it is kept (a small leak on a
     * start-up failure that exits the process). */
    log_error("libuv timers: %s", uv_strerror(rc));
    return -1;
}

void corr_free(gsvc *s)
{
    free(s->corr);
    s->corr = NULL;
}

/* ---- the deadline timer ----------------------------------------------- */

#define CORR_BUSY_RETRY_MS 100 /* deadline sweep refused STORE_BUSY: retry after */

static void deadline_task(void *arg);

/* The timers' work runs as a task (util/task.h): on PostgreSQL the sweep
 * may wait for the database. */
static void deadline_cb(uv_timer_t *t)
{
    if (task_run(deadline_task, t) != 0)
        deadline_task(t);
}

static void deadline_task(void *arg)
{
    uv_timer_t *t = arg;
    gsvc *s = t->data;
    uint64_t busy = s->batch->busy;
    corr_sweep(s);
    if (s->batch->busy != busy) {
        /* The database is locked by another process: try again a little
         * later instead of at once (a due game would spin the loop). */
        int rc = uv_timer_start(t, deadline_cb, CORR_BUSY_RETRY_MS, 0);
        if (rc < 0)
            log_error("deadline timer: %s", uv_strerror(rc));
        return;
    }
    /* The sweep's changes commit in this iteration's prepare handle; the
     * re-arm follows in corr_after_flush. Make sure there is one even if
     * nothing changed (a store error left the game due). */
    s->wake_dirty = true;
}

static void rearm(gsvc *s)
{
    struct corr *c = s->corr;
    s->wake_dirty = false;
    if (!c->timers_open || s->stopping)
        return;
    int64_t at;
    s->wake_armed_at = INT64_MAX;
    int rc = store_wake_next(s->store, &at);
    if (rc == STORE_NOTFOUND) {
        uv_timer_stop(&c->deadline);
        return;
    }
    int64_t delay = MAX_TIMER_DELAY_MS;
    if (rc == STORE_OK) {
        delay = at - svc_now(s);
        delay = delay < 0 ? 0 : delay > MAX_TIMER_DELAY_MS ? MAX_TIMER_DELAY_MS : delay;
    }
    if (s->test_clock && delay > 0) {
        /* The test clock moves only by debug_clock, which sweeps itself
         * (or, told not to, leaves the flag to the next request): a timer
         * in real ms would measure nothing. */
        uv_timer_stop(&c->deadline);
        return;
    }
    rc = uv_timer_start(&c->deadline, deadline_cb, (uint64_t)delay, 0);
    if (rc == 0)
        s->wake_armed_at = svc_now(s) + delay;
    if (rc < 0)
        log_error("deadline timer: %s", uv_strerror(rc));
}

static void rearm_task(void *arg)
{
    gsvc *s = arg;
    if (!s->corr)
        return; /* stopped meanwhile */
    s->corr->rearm_queued = false;
    if (s->wake_dirty && s->corr->started)
        rearm(s);
}

void corr_after_flush(gsvc *s)
{
    if (!s->corr || !s->wake_dirty || !s->corr->started || s->corr->rearm_queued)
        return;
    /* rearm() reads the store: a task on PostgreSQL (at once otherwise). */
    s->corr->rearm_queued = true;
    if (task_run(rearm_task, s) != 0)
        rearm_task(s);
}

int64_t corr_vacation_used_h(const store_vacation *v, int64_t now)
{
    if (v->start < 0 || v->until < 0)
        return 0;
    int64_t end = now < v->until ? now : v->until;
    if (end <= v->start)
        return 0;
    return (end - v->start + CORR_HOUR_MS - 1) / CORR_HOUR_MS;
}

static int64_t utc_year(int64_t ms)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    if (!gmtime_r(&t, &tm))
        return 0;
    return (int64_t)tm.tm_year + 1900;
}

int corr_vacation(gsvc *s, int64_t user_id, int64_t now, store_vacation *v, bool *changed)
{
    *changed = false;
    int rc = store_vacation_get(s->store, user_id, v);
    if (rc)
        return rc;
    if (v->start >= 0 && v->until >= 0 && now >= v->until) {
        int64_t used = corr_vacation_used_h(v, now);
        v->left_h = v->left_h > used ? v->left_h - used : 0;
        v->start = v->until = -1;
        *changed = true;
    }
    int64_t year = utc_year(now);
    if (v->year != year && v->start < 0) {
        v->year = year;
        v->left_h = CORR_VACATION_H;
        *changed = true;
    }
    return STORE_OK;
}

/* A deadline of g reached at now: move it (vacation), abort the game (a
 * live game's first-move window) or end it on time. GAMES_ESTALE when
 * another node had changed the game first: g is gone (games_finish), the
 * caller must not read it; 0 otherwise (a store error poisons the batch). */
static int deadline_reached(gsvc *s, game *g, int64_t now)
{
    int64_t mover = games_turn_user(g);
    store_vacation v;
    if (g->tc.kind == TC_CORRESPONDENCE && g->vacation &&
        store_vacation_get(s->store, mover, &v) == STORE_OK && v.start >= 0 &&
        v.start <= g->deadline && g->deadline < v.until) {
        /* The clock stood still from the vacation's start: what was left
         * then is given again from its end (at most one move's time). */
        int64_t left = g->deadline - v.start, full = g->tc.days_per_move * TC_DAY_MS;
        int64_t moved = v.until + (left < full ? left : full);
        if (games_extend(s->games, g, moved, "vacation") == STORE_OK)
            log_info("game %lld: deadline moved by %lld ms (vacation)", (long long)g->id,
                     (long long)(moved - now));
        return 0;
    }
    if (g->tc.kind == TC_LIVE && g->ply < 2) {
        int rc = games_finish(s->games, g, QK_RESULT_NONE, QK_REASON_ABORTED);
        if (rc != STORE_OK)
            return rc == GAMES_ESTALE ? rc : 0;
        log_info("game %lld: aborted, %s did not make a first move", (long long)g->id,
                 games_side_name((qk_side)g->pos.side));
        notify_game_over(s, g);
        return 0;
    }
    qk_result winner = g->pos.side == QK_WHITE ? QK_RESULT_BLACK : QK_RESULT_WHITE;
    int rc = games_finish(s->games, g, winner, QK_REASON_TIMEOUT);
    if (rc != STORE_OK)
        return rc == GAMES_ESTALE ? rc : 0;
    log_info("game %lld: %s ran out of time", (long long)g->id,
             winner == QK_RESULT_BLACK ? "white" : "black");
    notify_game_over(s, g);
    return 0;
}

/* One due game. */
static void sweep_one(gsvc *s, int64_t id, int64_t now)
{
    game *g;
    if (games_get(s->games, id, &g) != STORE_OK || g->status != GAME_ACTIVE)
        return;
    if (corr_check_time(s, g) != 0)
        return; /* ended, moved (vacation), or a store error */
    games_touch(s->games, id);
    if (g->tc.kind == TC_LIVE && g->deadline >= 0 && g->deadline <= now) {
        /* Due by the wall clock, not by the monotonic one: the wall clock
         * jumped. The stored deadline follows the game's clock. */
        games_refresh_deadline(s->games, g);
        return;
    }
    if (g->tc.kind == TC_CORRESPONDENCE && g->deadline >= 0 &&
        g->warned_deadline != g->deadline && g->deadline - GAMES_WARN_MS <= now) {
        g->warned_deadline = g->deadline;
        if (notify_deadline_soon(s, g) != 0)
            return;
    }
    games_put_x(s->games, g); /* the next wake-up */
}

int corr_check_time(gsvc *s, game *g)
{
    int64_t now = svc_now(s);
    if (!games_due(s->games, g, now))
        return 0;
    if (svc_write_begin(s) != 0)
        return -1;
    int64_t deadline = g->deadline;
    if (deadline_reached(s, g, now) == GAMES_ESTALE)
        return 3; /* g is gone: another node ended or moved it first */
    if (svc_poisoned(s))
        return -1;
    return g->status != GAME_ACTIVE ? 1 : g->deadline != deadline ? 2 : -1;
}

void corr_sweep(gsvc *s)
{
    int64_t ids[SWEEP_BATCH];
    int n;
    if (svc_write_begin(s) != 0)
        return;
    /* A processed game's wake_at moves past now (or away), so each batch
     * is new games; the bound stops a loop on a game that cannot change. */
    for (int round = 0; round < 1000; round++) {
        int64_t now = svc_now(s);
        if (store_wake_due(s->store, now, ids, SWEEP_BATCH, &n) != STORE_OK) {
            svc_poison(s);
            return;
        }
        for (int i = 0; i < n && !svc_poisoned(s); i++)
            sweep_one(s, ids[i], now);
        if (n < SWEEP_BATCH || svc_poisoned(s))
            break;
    }
    challenges_expire(s); /* challenges.h: expiry rides on this timer */
}

/* ---- last_alive ----------------------------------------- */

static void alive_task(void *arg);

static void alive_cb(uv_timer_t *t)
{
    if (task_run(alive_task, t) != 0)
        alive_task(t);
}

static void alive_task(void *arg)
{
    uv_timer_t *t = arg;
    gsvc *s = t->data;
    if (svc_write_begin(s) != 0 || store_state_set(s->store, "last_alive", svc_now(s)) != 0)
        svc_poison(s);
    else
        challenges_expire(s);
}

int corr_start(gsvc *s)
{
    struct corr *c = s->corr;
    int64_t now = svc_now(s), last = 0, moved = 0;
    if (store_begin(s->store) != STORE_OK)
        return -1;
    int rc = store_state_get(s->store, "last_alive", &last);
    if (rc == STORE_OK && now - last > CORR_DOWNTIME_MS) {
        rc = store_extend_downtime(s->store, now - last, now, &moved);
        if (rc == STORE_OK)
            log_info("down for %lld s: %lld correspondence deadlines extended",
                     (long long)((now - last) / 1000), (long long)moved);
    }
    if ((rc != STORE_OK && rc != STORE_NOTFOUND) ||
        store_state_set(s->store, "last_alive", now) != STORE_OK ||
        store_commit(s->store) != STORE_OK) {
        store_rollback(s->store);
        log_error("cannot reload deadlines");
        return -1;
    }
    c->started = true;
    rearm(s);
    if ((rc = uv_timer_start(&c->alive, alive_cb, CORR_ALIVE_EVERY_MS, CORR_ALIVE_EVERY_MS)) < 0) {
        log_error("libuv timers: %s", uv_strerror(rc));
        return -1;
    }
    return 0;
}

void corr_stop(gsvc *s)
{
    struct corr *c = s->corr;
    if (!c || !c->timers_open)
        return;
    c->timers_open = false;
    if (c->started && svc_write_begin(s) == 0 &&
        store_state_set(s->store, "last_alive", svc_now(s)) != STORE_OK)
        svc_poison(s);
    uv_close((uv_handle_t *)&c->deadline, NULL);
    uv_close((uv_handle_t *)&c->alive, NULL);
}
