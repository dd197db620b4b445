/*
 * svc: see svc.h.
 */
#include "game/svc.h"

#include "qk_proto.h"

int64_t svc_now(const gsvc *s)
{
    return s->test_clock ? s->test_now : qk_now_ms();
}

int64_t svc_mono(const gsvc *s)
{
    return s->test_clock ? s->test_now : (int64_t)(uv_hrtime() / 1000000u);
}

void svc_clock_set(gsvc *s, int64_t ms)
{
    if (s->test_clock)
        s->test_now = ms;
}

int svc_write_begin(gsvc *s)
{
    return batch_begin(s->batch);
}

bool svc_writes_held(const gsvc *s)
{
    return store_wal_restart(s->store) == STORE_WAL_HOLD;
}

void svc_poison(gsvc *s)
{
    batch_poison(s->batch);
}

bool svc_poisoned(const gsvc *s)
{
    return s->batch->poisoned;
}
