/*
 * batch: the iteration's transaction (store_core.h "Group commit") as one
 * object: the store transaction every request of a loop turn writes into,
 * whether a write failed half-way (poisoned), and the undo log of the
 * in-memory changes made along with those writes.
 *
 * Why an object of its own, below the game layer: the game service
 * changes memory (a game's position, a session's login) at the moment it
 * stages the matching row, so a second request in the same turn sees the
 * change. If the commit is lost, memory must go back to what the database
 * holds. The batch records one undo action per change and runs them,
 * newest first, when the transaction is lost; the layers above register
 * what to undo and never reach up to the server for it.
 *
 * An undo action is (undo, release, arg, key, ptr): undo(arg, key, ptr)
 * runs only when the batch is lost; release(ptr) (NULL = none) runs once in
 * every case, after the undo when there is one, so ptr may own a copy or a
 * reference. When an action cannot be recorded (out of memory) the batch
 * is poisoned (it will be lost) and the overflow callback runs at the loss
 * instead of the missing action: it must reset everything it caches.
 *
 * Durability epochs. Every batch that commits gets the next epoch number
 * (1, 2, ...; a lost batch gets none, and the next batch reuses its
 * number): batch_epoch() is the number the open batch will have. The
 * commit is asynchronous (store_commit_async): the batch ends at once and
 * the loop goes on, and on_durable(arg, epoch, rc) runs later, for every
 * committed epoch in order, when it is on disk (rc STORE_OK) or could not
 * be made so (STORE_EIO). Output tagged with an epoch waits for it
 * (net/conn.h).
 *
 * Loop thread only; not reentrant.
 */
#ifndef QK_BATCH_H
#define QK_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

typedef void (*batch_undo_fn)(void *arg, int64_t key, void *ptr);
typedef void (*batch_release_fn)(void *ptr);

typedef struct batch_action {
    batch_undo_fn undo;
    batch_release_fn release;
    void *arg, *ptr;
    int64_t key;
} batch_action;

typedef struct batch {
    store *store; /* borrowed */
    bool poisoned;
    bool overflow; /* an action was not recorded: on_overflow runs at a loss */
    batch_action *log;
    size_t n, cap;
    void (*on_overflow)(void *arg);
    void *overflow_arg;
    void (*on_durable)(void *arg, uint64_t epoch, int rc);
    void *durable_arg;
    uint64_t committed; /* epochs committed so far */
    uint64_t durable;   /* epochs reported durable so far (<= committed) */
    uint64_t commits, losses; /* batches ended, and lost, so far (the log at stop) */
    uint64_t kept;            /* loop turns a batch was kept open into the next (batch_end_or_keep) */
    /* batch_begin() calls refused STORE_BUSY (another process holds the
     * database), so far and as of the last batch_end(): a request that saw
     * busy grow is answered server_busy, not internal (api/req.c). */
    uint64_t busy, busy_at_end;
} batch;

/* Prepare b over st (borrowed); on_overflow(arg) (may be NULL) is what a
 * lost batch runs when an undo action could not be recorded;
 * on_durable(durable_arg, epoch, rc) (may be NULL) reports each committed
 * epoch's durability, in order. */
void batch_init(batch *b, store *st, void (*on_overflow)(void *arg), void *arg,
                void (*on_durable)(void *arg, uint64_t epoch, int rc), void *durable_arg);
/* The epoch the open batch gets if it commits (committed + 1). */
uint64_t batch_epoch(const batch *b);
/* Release the log (an open transaction is the store's to roll back). */
void batch_free(batch *b);

/* Before a request's first write: open the transaction if none is open.
 * 0, or -1: the batch is poisoned (answer `internal`), or, when the store
 * is busy (STORE_BUSY: another writer holds it), b->busy grows and the
 * batch is left as it was (nothing was written: answer `server_busy`). */
int batch_begin(batch *b);
/* Whether a transaction is open: output made now depends on it. */
bool batch_open(const batch *b);
/* A write failed half-way: the whole batch will be rolled back. */
void batch_poison(batch *b);

/* Record an undo action (see above). On allocation failure the batch is
 * poisoned, release(ptr) runs at once and the overflow callback is due. */
void batch_on_undo(batch *b, batch_undo_fn undo, batch_release_fn release, void *arg, int64_t key,
                   void *ptr);

/* End the batch: commit (or roll back when poisoned); when that fails run
 * the undo actions newest first (or the overflow callback). Then release
 * every action and clear the log and flags. Returns STORE_OK when the
 * batch committed (its epoch is batch_epoch() before the call; on_durable
 * reports its durability, maybe before this returns) or when no
 * transaction was open, STORE_EIO when it is lost. */
int batch_end(batch *b);

/* End the batch like batch_end(), or, while the store's last commit is
 * still being made durable (store_durability_busy()), keep it open into
 * the next loop turn: the batch then commits with what the next turns
 * add, once that fsync is done. Why: a commit made now could not be
 * acknowledged before the next fsync anyway (fsyncs are one at a time,
 * store_core.h), so waiting costs no latency, and one commit instead of one per
 * loop turn writes each page the moves touched (a game's row, its index
 * entries) to the log once: measured, the commit was the second cost of a
 * move (docs/perf.md). Output of the kept turns keeps the batch's epoch
 * and waits for it. Not kept past BATCH_KEEP_MAX undo actions, nor when
 * poisoned, nor while the write-ahead log waits to start over
 * (store_wal_restart()). Same results as batch_end(); STORE_OK when kept. */
#define BATCH_KEEP_MAX 4096
int batch_end_or_keep(batch *b);

#endif
