/*
 * fanout: the game service's event sink (game/svc.h) on the connections:
 * an event for users goes to every connection logged in as one of them,
 * an event for a game to its watchers (api.subs), `all` to every
 * logged-in connection. One event is serialized once (an outbuf) and
 * queued to each recipient once, even if a connection is both a player
 * and a watcher (a per-event stamp on the session). Output queued while a
 * batch is open is marked CONN_MSG_TXN: it reaches no socket unless the
 * batch commits (net/conn.h).
 */
#ifndef QK_FANOUT_H
#define QK_FANOUT_H

#include "api/api.h"
#include "game/svc.h"

/* The sink that delivers to a's connections (a borrowed; it must outlive
 * every event sent). */
event_sink fanout_sink(api *a);

/* Queue {"type":"event","event":"server_stopping"} to every open connection
 * of a, logged in or not (srv.h "Stopping": the server calls it first,
 * before any request is refused). Best effort: out of memory is logged and
 * the event dropped. */
void fanout_server_stopping(api *a);

#endif
