/*
 * upkeep: see upkeep.h.
 */
#include "game/upkeep.h"

#include "store/store.h"
#include "util/log.h"
#include "util/task.h"

static void checkpoint_if_idle(upkeep *u)
{
    batch *b = u->svc->batch;
    if (b->commits != u->commits_seen) {
        u->commits_seen = b->commits;
        u->checkpointed = false;
        return;
    }
    if (u->checkpointed || batch_open(b))
        return;
    int rc = store_checkpoint(u->svc->store);
    if (rc == STORE_OK) {
        u->checkpointed = true;
        u->checkpoints++;
    } else if (rc != STORE_BUSY) {
        u->checkpointed = true; /* logged by the store; not every tick */
    }
}

static void sweep(upkeep *u)
{
    gsvc *s = u->svc;
    int64_t now = svc_now(s);
    if (u->last_sweep && now - u->last_sweep < UPKEEP_SWEEP_MS)
        return;
    if (svc_write_begin(s) != 0)
        return; /* busy elsewhere (or failing): the next tick tries again */
    store_prune_spec p = {
        .notes_read_before = now - UPKEEP_KEEP_MS,
        .challenges_closed_before = now - UPKEEP_KEEP_MS,
        /* token_user() refuses from exactly STORE_TOKEN_IDLE_MS on. */
        .tokens_used_before = now - STORE_TOKEN_IDLE_MS + 1,
    };
    int64_t rows = 0;
    if (store_prune(s->store, &p, &rows) != STORE_OK) {
        svc_poison(s);
        return;
    }
    u->swept += (uint64_t)rows;
    if (rows)
        log_info("upkeep: %lld old rows pruned", (long long)rows);
    /* A full batch means more are left: sweep again at the next tick. */
    if (rows < STORE_PRUNE_BATCH)
        u->last_sweep = now;
}

static void tick_task(void *arg)
{
    upkeep *u = arg;
    if (u->svc->stopping)
        return;
    checkpoint_if_idle(u);
    sweep(u);
}

/* The sweep reads and writes the store: a task (util/task.h). */
static void tick_cb(uv_timer_t *t)
{
    if (task_run(tick_task, t->data) != 0)
        tick_task(t->data);
}

int upkeep_start(upkeep *u, gsvc *s, int tick_ms)
{
    u->svc = s;
    u->commits_seen = s->batch->commits;
    int rc = uv_timer_init(s->loop, &u->timer);
    if (rc < 0)
        return rc;
    u->timer.data = u;
    u->open = true;
    uint64_t ms = tick_ms > 0 ? (uint64_t)tick_ms : UPKEEP_TICK_MS;
    rc = uv_timer_start(&u->timer, tick_cb, ms, ms);
    if (rc < 0)
        upkeep_stop(u);
    return rc;
}

void upkeep_stop(upkeep *u)
{
    if (!u->open)
        return;
    u->open = false;
    uv_close((uv_handle_t *)&u->timer, NULL);
}
