/*
 * upkeep: the game service's housekeeping timer (issue 9, items 5 and 9).
 * One uv_timer ticks every tick_ms (UPKEEP_TICK_MS; QK_UPKEEP_MS in
 * tests) and does two things:
 *   - idle checkpoint: when no batch was committed since the previous tick
 *     and no transaction is open, the store's journal is checkpointed and
 *     truncated (store_checkpoint(): the SQLite -wal file back to 0 bytes),
 *     once per idle spell. A reader that holds the journal makes it
 *     STORE_BUSY: tried again at the next tick. Together with the journal
 *     size limit (store_core.h, 64 MiB) this keeps the WAL bounded after
 *     a long reader ends, even when no write follows.
 *   - sweep: every UPKEEP_SWEEP_MS of the server's clock (svc_now(), so
 *     tests drive it with debug_clock), delete read notifications older
 *     than UPKEEP_KEEP_MS (30 days), closed (accepted, declined, canceled)
 *     challenges last changed more than UPKEEP_KEEP_MS ago, and tokens idle
 *     for STORE_TOKEN_IDLE_MS (30 days: they are already refused). At most
 *     STORE_PRUNE_BATCH rows of each kind per tick, so one sweep never
 *     holds the loop; a full batch sweeps again at the next tick.
 * The sweep writes through the iteration's batch like any request
 * (svc_write_begin()); a busy store (another process) skips it to the
 * next tick.
 */
#ifndef QK_UPKEEP_H
#define QK_UPKEEP_H

#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

#include "game/svc.h"

#define UPKEEP_TICK_MS 10000             /* real ms between ticks */
#define UPKEEP_SWEEP_MS (3600LL * 1000)  /* server-clock ms between sweeps */
#define UPKEEP_KEEP_MS (30LL * 86400000) /* read notifications, closed challenges */

typedef struct upkeep {
    gsvc *svc; /* borrowed */
    uv_timer_t timer;
    bool open;
    uint64_t commits_seen;       /* batch->commits at the last tick */
    bool checkpointed;           /* this idle spell's checkpoint is done */
    int64_t last_sweep;          /* svc_now() of the last complete sweep; 0 = never */
    uint64_t checkpoints, swept; /* done so far (the log at stop) */
} upkeep;

/* Start the timer on s->loop, ticking every tick_ms (<= 0: UPKEEP_TICK_MS).
 * 0, or a negative libuv error (logged by the caller). */
int upkeep_start(upkeep *u, gsvc *s, int tick_ms);
/* Stop and close the timer (idempotent). */
void upkeep_stop(upkeep *u);

#endif
