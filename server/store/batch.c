/*
 * batch: see batch.h.
 */
#include "store/batch.h"

#include <stdlib.h>
#include <string.h>

void batch_init(batch *b, store *st, void (*on_overflow)(void *arg), void *arg,
                void (*on_durable)(void *arg, uint64_t epoch, int rc), void *durable_arg)
{
    memset(b, 0, sizeof *b);
    b->store = st;
    b->on_overflow = on_overflow;
    b->overflow_arg = arg;
    b->on_durable = on_durable;
    b->durable_arg = durable_arg;
}

uint64_t batch_epoch(const batch *b)
{
    return b->committed + 1;
}

/* store_commit_async's done: dones come in commit order, so the n-th is
 * the n-th committed epoch. */
static void durable_cb(void *arg, int rc)
{
    batch *b = arg;
    uint64_t epoch = ++b->durable;
    if (b->on_durable)
        b->on_durable(b->durable_arg, epoch, rc);
}

static void release_all(batch *b)
{
    for (size_t i = 0; i < b->n; i++)
        if (b->log[i].release)
            b->log[i].release(b->log[i].ptr);
    b->n = 0;
}

void batch_free(batch *b)
{
    release_all(b);
    free(b->log);
    b->log = NULL;
    b->cap = 0;
}

int batch_begin(batch *b)
{
    int rc = store_begin(b->store);
    if (rc == STORE_BUSY) {
        /* No transaction is open, so no write of this turn can have been
         * made: nothing to poison, a later request may still begin. */
        b->busy++;
        return -1;
    }
    if (rc != STORE_OK) {
        b->poisoned = true;
        return -1;
    }
    return 0;
}

bool batch_open(const batch *b)
{
    return store_in_txn(b->store);
}

void batch_poison(batch *b)
{
    /* Right after a begin refused busy nothing of this turn is staged:
     * poisoning would only make a later request's transaction lost. */
    if (b->busy != b->busy_at_end && !store_in_txn(b->store))
        return;
    b->poisoned = true;
}

void batch_on_undo(batch *b, batch_undo_fn undo, batch_release_fn release, void *arg, int64_t key,
                   void *ptr)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 16;
        batch_action *log = realloc(b->log, cap * sizeof *log);
        if (!log) {
            /* The change cannot be remembered, so the batch must not be
             * kept: it is lost and the caches are reset wholesale. */
            b->poisoned = b->overflow = true;
            if (release)
                release(ptr);
            return;
        }
        b->log = log;
        b->cap = cap;
    }
    b->log[b->n++] = (batch_action){undo, release, arg, ptr, key};
}

int batch_end_or_keep(batch *b)
{
    /* Nor while the write-ahead log waits to start over (store_core.h
     * store_wal_restart): that needs a moment with no transaction open. */
    if (store_in_txn(b->store) && !b->poisoned && b->n < BATCH_KEEP_MAX &&
        store_durability_busy(b->store) && store_wal_restart(b->store) == STORE_WAL_OK) {
        b->kept++;
        b->busy_at_end = b->busy; /* as at the end of any turn (api/req.c) */
        return STORE_OK;
    }
    return batch_end(b);
}

int batch_end(batch *b)
{
    int rc = STORE_OK;
    if (store_in_txn(b->store)) {
        if (b->poisoned) {
            store_rollback(b->store);
            rc = STORE_EIO;
        } else {
            /* Counted before the call: a synchronous backend reports the
             * epoch durable inside it. */
            b->committed++;
            rc = store_commit_async(b->store, durable_cb, b);
            if (rc != STORE_OK)
                b->committed--;
        }
        b->commits++;
        if (rc != STORE_OK) {
            b->losses++;
            if (b->overflow && b->on_overflow)
                b->on_overflow(b->overflow_arg);
            /* Newest first, so a thing changed twice ends as it was at first. */
            for (size_t i = b->n; i-- > 0;)
                if (b->log[i].undo)
                    b->log[i].undo(b->log[i].arg, b->log[i].key, b->log[i].ptr);
            rc = STORE_EIO;
        }
    }
    release_all(b);
    b->poisoned = b->overflow = false;
    b->busy_at_end = b->busy;
    return rc;
}
