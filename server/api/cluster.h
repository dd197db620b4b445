/*
 * cluster: the events of a game service that runs as several nodes on one
 * PostgreSQL database (issue 22, docs/scale.md "Events across nodes").
 *
 * Each node delivers what it makes to its own connections (api/fanout.h)
 * and publishes it to the others: the event, its name and its recipients
 * (game/svc.h events_to) as a JSON payload of NOTIFY on the store's event
 * channel (store/pg.h), queued inside the open batch's transaction, so it
 * reaches the other nodes only when that transaction commits, in commit
 * order, and never when it is rolled back. A node that receives a payload
 * from another node delivers the event to its own connections exactly as
 * the maker would have (the same recipients, so players and watchers on
 * every node see every move). A move event is applied to the game the
 * node caches when it can be (game/games.h games_apply_move: the position
 * checked against the event's); for any other event about a game, or a
 * move that cannot be applied, the node forgets what it caches of the game
 * (games_forget: position, clocks, legal moves are read again from the
 * database on next use) and re-arms its deadline timer from the database
 * (a game made or moved elsewhere changes the next deadline). The payload
 * carries the sending node's clock ("t", UTC ms): an applied move's time. The receiving work runs
 * as a task (util/task.h), between requests, never while a handler holds a game.
 *
 * An event too big for a NOTIFY payload (PostgreSQL's limit is 8000 bytes)
 * is not published; the node logs it, and the other nodes' clients see the
 * change on their next read (measured: the largest event of the recorded
 * games is ~2 KB; a tournament's round start with many pairings is the
 * case that could exceed it).
 *
 * Presence. Whether a user is online (which decides whether a your-turn
 * notice is stored for a move of a game without a deadline, game/notify.h)
 * is known across nodes: a node publishes `_presence` {"on": bool} for a
 * user when the user's first connection there logs in and when the last
 * one goes (api.presence), `_alive` every CLUSTER_ALIVE_MS (or a third of
 * the silence, when shorter), and `_hello` once at start, which the others
 * answer with `_present` {"users": [...], "first": true} (their online
 * users; "first" on the first list of a set, which replaces what the
 * receiver held of that node). A user counts as online on this node when
 * online here or on a peer heard from within CLUSTER_SILENT_MS; a peer
 * silent longer (dead) is forgotten with its users. Every
 * CLUSTER_REFRESH_BEATS beats a node publishes its whole set again: a
 * `_presence` lost with a batch that was rolled back is corrected then. A
 * peer heard again after it was forgotten (a stall of either node) is
 * sent `_ask` {"node": id}, which that node answers with its set. A node
 * that learns of a peer forgets every game it caches (the peer may have
 * been alone, below, publishing none of its moves). The errors lean to
 * "offline" (a notice stored that was not needed), except for a peer
 * killed with its users connected, or a `_presence` off lost with its
 * batch: such users count as online for up to CLUSTER_SILENT_MS, and
 * reconnect meanwhile. Events whose name starts with '_' are between
 * nodes only: never delivered to a connection.
 *
 * Alone. A node that has heard of no other node (none within
 * CLUSTER_SILENT_MS, and not in its own first CLUSTER_SILENT_MS) publishes
 * no events but its `_alive`: nobody would read them, and each one cost
 * PostgreSQL a NOTIFY at commit and this node its own payload back
 * (docs/perf.md). A node that starts says `_hello` in its loop's first
 * turn; the others publish to it once they have read it, and answer with
 * `_present` (an empty list too), so it learns of them at once. A game it
 * read before that (a connection accepted in the meantime) is read again
 * when it learns of them (above), and its writes are guarded by the ply.
 * A node alone that learns of a peer says `_hello` again, and its whole
 * set after it: the peer may have learnt of it from an `_alive` sent
 * while it was still alone, and cached games it then changed unseen; a
 * node forgets its cached games on every `_hello` it reads (and the
 * sender's users, which the set then brings back). Counted as
 * qirkat_cluster_events_total{outcome="alone"}.
 *
 * With SQLite (one node) nothing of this runs: cluster_sink() is never
 * installed.
 */
#ifndef QK_CLUSTER_H
#define QK_CLUSTER_H

#include "api/api.h"
#include "game/svc.h"

#define CLUSTER_PAYLOAD_MAX 7900 /* bytes; PostgreSQL's NOTIFY limit is 8000 */

/* Presence (see the top): peers kept, heartbeat period, silence after which
 * a peer's users count as offline (ms), ids per `_present` event, beats
 * between two whole `_present` sets. */
#define CLUSTER_PEERS 64
#define CLUSTER_ALIVE_MS 5000
#define CLUSTER_SILENT_MS 15000
#define CLUSTER_PRESENT_CHUNK 300
#define CLUSTER_REFRESH_BEATS 3

typedef struct cluster_peer {
    char node[17];
    uint64_t seen; /* uv_now() of its last word; 0 = a free slot */
} cluster_peer;

typedef struct cluster {
    api *api;         /* borrowed */
    event_sink local; /* fanout_sink(api) */
    char node[17];    /* this node's id: 16 hex digits, random per start */
    cluster_peer peers[CLUSTER_PEERS];
    registry remote;        /* user id -> (slot in peers + 1): online on that node */
    uv_timer_t beat;        /* every beat_ms: `_alive` */
    uint64_t beat_ms;       /* min(CLUSTER_ALIVE_MS, silent_ms / 3) */
    uint64_t beats;         /* beats so far (the refresh of presence) */
    uint64_t refresh_beats; /* CLUSTER_REFRESH_BEATS, or the tests' QK_CLUSTER_REFRESH_BEATS */
    bool beat_open, said_hello;
    bool set_sent; /* peer_slot() just published the whole set (within one peer_event) */
    uint64_t started;   /* uv_now() at the hello (before it: at cluster_init) */
    uint64_t silent_ms; /* CLUSTER_SILENT_MS, or the tests' QK_CLUSTER_SILENT_MS */
    uint64_t alone;     /* events not published: no other node (see "Alone") */
    uint64_t sent, received, too_big, bad;
    uint64_t applied; /* received move events applied to a cached game (games_apply_move) */
    /* qirkat_cluster_events_total{outcome}, CLUSTER_SENT..CLUSTER_APPLIED
     * (set by the server after cluster_init; NULL = none) */
    struct metric *m_events;
} cluster;

/* The outcomes of m_events, in the order of cluster_outcomes. */
enum {
    CLUSTER_SENT,
    CLUSTER_RECEIVED,
    CLUSTER_TOO_BIG,
    CLUSTER_BAD,
    CLUSTER_APPLIED,
    CLUSTER_ALONE,
    CLUSTER_OUTCOMES
};
extern const char *const cluster_outcomes[CLUSTER_OUTCOMES];

/* Set c up over a (whose svc's store must be PostgreSQL): a fresh node
 * id, the local sink, LISTEN's callback, the presence heartbeat on a's
 * loop (its first beat, in the loop's first turn, says `_hello`), a's
 * presence hook. silent_ms: when a
 * peer counts as gone (and a lone node stops publishing), 0 =
 * CLUSTER_SILENT_MS. refresh_beats: every how many beats the whole
 * presence set is published again, 0 = CLUSTER_REFRESH_BEATS (a test
 * makes it rare, so that only the `_ask` or a `_hello`'s set can bring a
 * node's users back). 0, or -1 (logged). */
int cluster_init(cluster *c, api *a, uint64_t silent_ms, uint64_t refresh_beats);
/* The server stops: the heartbeat's timer closes (while the loop runs)
 * and presence is no longer published. */
void cluster_close(cluster *c);
/* After uv_run returned: free what presence holds. */
void cluster_free(cluster *c);
/* The other nodes heard from within the silence period (a gauge of
 * GET /metrics). */
int cluster_peers(const cluster *c);
/* The sink to install as the service's (svc.sink): local delivery and
 * publication. c must outlive it. */
event_sink cluster_sink(cluster *c);

#endif
