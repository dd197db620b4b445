/*
 * store_corr: the rows of correspondence play (a game's extra fields,
 * deadline extensions, the server's heartbeat, vacations, notifications)
 * are part of the store interface in store.h; this header only includes
 * it, so that the callers that name it need no change. New code includes
 * store/store.h. It declares nothing itself, so store.h never needs it
 * (no store <-> store_corr include cycle).
 */
#ifndef QK_STORE_CORR_H
#define QK_STORE_CORR_H

#include "store/store.h"

#endif
