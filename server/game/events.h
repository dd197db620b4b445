/*
 * events: how the game layer sends an event (PROTOCOL.md "Events").
 *
 * Design. A module builds the event object (qk_proto_event plus its
 * fields) and hands it here with its recipients; it goes out through the
 * service's sink (svc.h), which serializes it once and queues it to each
 * recipient connection once. Output queued while a batch is open reaches
 * a socket only once the batch commits.
 *
 * An event is best effort: on allocation failure (or ev NULL, a builder
 * that failed) it is dropped and logged, never failing the request that
 * made it. Each function takes ev and deletes it in every case.
 */
#ifndef QK_EVENTS_H
#define QK_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "game/svc.h"

struct game;

/* Send ev (consumed; NULL = dropped) to `to`. name is the event's type,
 * for the log when it is dropped. */
void events_send(gsvc *s, const char *name, cJSON *ev, events_to to);

/* Send ev (consumed) to g's two players and its watchers. */
void events_to_game(gsvc *s, const struct game *g, const char *name, cJSON *ev);

/* Send ev (consumed) to g's two players only. */
void events_to_players(gsvc *s, const struct game *g, const char *name, cJSON *ev);

/* Send ev (consumed) to the connections of user_id. */
void events_to_user(gsvc *s, int64_t user_id, const char *name, cJSON *ev);

#endif
