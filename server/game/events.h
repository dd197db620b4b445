/*
 * events: the one fan-out of server events (PROTOCOL.md "Events").
 *
 * Design. A handler builds the event object (qk_proto_event plus its
 * fields) and hands it here; it is serialized once (an outbuf) and queued
 * to each recipient connection once, inside one srv_event_begin() dedup
 * scope, so a connection that is both a player and a subscriber gets it
 * once. Queued output depends on the iteration's transaction (conn.h): it
 * reaches a socket only once the batch commits.
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

#include "srv.h"

struct game;

/* The recipients of one event: the connections of up to two users (0 =
 * none), the subscribers of a game (0 = none), and, with all, every
 * logged-in connection. */
typedef struct events_to {
    int64_t users[2];
    int64_t game_id;
    bool all;
} events_to;

/* Queue ev (consumed; NULL = dropped) to `to`. name is the event's type,
 * for the log when it is dropped. */
void events_send(srv *s, const char *name, cJSON *ev, events_to to);

/* Queue ev (consumed) to g's two players and its subscribers. */
void events_to_game(srv *s, const struct game *g, const char *name, cJSON *ev);

/* Queue ev (consumed) to g's two players only. */
void events_to_players(srv *s, const struct game *g, const char *name, cJSON *ev);

/* Queue ev (consumed) to the connections of user_id. */
void events_to_user(srv *s, int64_t user_id, const char *name, cJSON *ev);

#endif
