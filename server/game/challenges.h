/*
 * challenges: the game layer's side of challenges: their wire object, the
 * `challenge*` events, and expiry.
 *
 * Design. A challenge is a row of the store (store_challenge); the api
 * layer's ops (api/ops_challenge.c) create, accept, decline and cancel
 * it. What does not belong to one request lives here: the object of
 * docs/protocol.md section 5 (so the sweep and the ops build the same
 * one) and the expiry sweep, which runs without a request.
 *
 * Expiry (docs/protocol.md "Challenge"): a direct challenge still open
 * CHALLENGES_DIRECT_TTL_MS (7 days) after it was made, and an open seek
 * still open after CHALLENGES_SEEK_TTL_MS (24 h), becomes `expired`, and
 * both sides get a `challenge` event with that status (everyone logged in
 * for an open seek). The sweep runs from corr's timers (corr.h): after
 * every deadline sweep (so `debug_clock` drives it in tests) and with the
 * minute's last_alive heartbeat, so a challenge expires at most about a
 * minute late.
 */
#ifndef QK_CHALLENGES_H
#define QK_CHALLENGES_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "game/svc.h"
#include "store/store.h"

#define CHALLENGES_DIRECT_TTL_MS (7LL * 24 * 3600 * 1000)
#define CHALLENGES_SEEK_TTL_MS (24LL * 3600 * 1000)

/* The challenge object of docs/protocol.md section 5 for c (caller owns
 * it): `reason` for a declined one, `game` for an accepted one. NULL on
 * allocation failure or an unparsable stored time control. */
cJSON *challenges_json(const store_challenge *c);

/* Queue event name {"challenge": object of c} to both sides of c (every
 * logged-in connection for an open seek). message (NULL: none) is a
 * decline's free text, added to the object. Best effort, like
 * events_send(). */
void challenges_event(gsvc *s, const char *name, const store_challenge *c, const char *message);

/* Expire every open challenge past its time at svc_now() (see above):
 * status `expired`, a `challenge` event to both sides. Opens the
 * iteration's transaction only when one is due; on a store error the
 * batch is poisoned and the sweep stops. */
void challenges_expire(gsvc *s);

#endif
