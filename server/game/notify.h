/*
 * notify: turn notifications (docs/protocol.md "Notifications"). Each is a
 * row of `notifications` written inside the iteration's transaction and,
 * at once, a `notification` event {"notification": object} queued to every
 * connection of its user (so it reaches a socket only once committed,
 * conn.h). A user who was offline gets the unread ones in the login
 * result, oldest first.
 *
 * The object: {"id", "kind", "game" (id or null), "read", "created",
 * plus the kind's fields}:
 *   your_turn      opponent, move (the last move, null at the start), ply, deadline
 *   challenge      challenge (id), from, variant, time_control
 *   draw_offer     opponent
 *   game_end       opponent, result, reason
 *   deadline_soon  opponent, deadline
 *   challenge_declined  challenge (id), by (the decliner), reason, message (when given)
 *   draw_declined  opponent (who declined)
 *   tournament_round  tournament (id), name, round, opponent (null: a bye),
 *                  color (white, black, null), bye, result (null, or the
 *                  side that scored when the board is a forfeit); game:
 *                  the round's game, null without one
 *   tournament_end tournament (id), name, rank, points, reason (null, or
 *                  why it ended early)
 * A your_turn, draw_offer or draw_declined notification replaces (deletes)
 * its user's unread one of the same kind and game: one per game, not one
 * per move or per offer (issue 9); a read one stays until the upkeep sweep
 * (upkeep.h).
 * Bounds per sender (issue 21: a challenge-and-cancel loop left one unread
 * row per cycle in the target's inbox). The kinds one user can repeat at
 * another, challenge (rematches are challenges), challenge_declined,
 * draw_offer and draw_declined, record their sender; at most
 * NOTIFY_PER_SENDER unread of one kind from one sender are kept, the
 * oldest deleted to make room. A challenge's unread notice is withdrawn
 * (deleted) when the challenge is cancelled or expires, and marked read
 * when its target accepts or declines it (notify_challenge_closed()).
 * Every function needs svc_write_begin() done; on a store error it
 * poisons the batch (svc_poison) and returns -1, else 0.
 */
#ifndef QK_NOTIFY_H
#define QK_NOTIFY_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "game/svc.h"
#include "store/store.h"
#include "store/store_corr.h"

struct game;

/* The wire object of a stored notification (caller owns; NULL on
 * allocation failure or data that is not a JSON object). */
cJSON *notify_json(const store_note *n);

#define NOTIFY_PER_SENDER 3 /* unread notices of one repeatable kind from one sender */

/* Store a notification of kind for user_id about game_id (0 = none) with
 * data (an object, owned and consumed here, NULL = {}), and push it. */
int notify_push(gsvc *s, int64_t user_id, const char *kind, int64_t game_id, cJSON *data);
/* The same, recording the user whose act it reports (sender_id, 0 = none)
 * and the challenge it is about (ref_id, 0 = none); a repeatable kind
 * with a sender is bounded by NOTIFY_PER_SENDER. */
int notify_push_from(gsvc *s, int64_t user_id, const char *kind, int64_t game_id,
                     int64_t sender_id, int64_t ref_id, cJSON *data);

/* The kinds above, for game g (its row as changed by the caller). */
/* After a move in g or at its start: your_turn, except in a game that is
 * not correspondence while the side to move is online (the `move` or
 * `game_start` event has told them; a stored row per live move was a fifth
 * of a move's cost). A correspondence player gets the row whether online
 * or not: they come back to it days later. */
int notify_turn_if_away(gsvc *s, const struct game *g);
/* game_end to each player of g, except, as above, to a player online in a
 * game that is not correspondence (the `game_end` event has told them). */
int notify_game_end(gsvc *s, const struct game *g);
int notify_deadline_soon(gsvc *s, const struct game *g);
/* To the opponent of from_id, who offered a draw in g. */
int notify_draw_offer(gsvc *s, const struct game *g, int64_t from_id);
int notify_challenge(gsvc *s, const store_challenge *c);
/* c (its status now the closed one) left the open set: its target's
 * unread `challenge` notice is deleted when c was canceled or expired,
 * marked read when it was accepted or declined. Nothing for an open
 * seek. */
int notify_challenge_closed(gsvc *s, const store_challenge *c);
/* To the challenger of c, just declined by its target (c->to) with
 * c->decline_reason and the free message (NULL = none). */
int notify_challenge_declined(gsvc *s, const store_challenge *c, const char *message);
/* g just ended: apply the ratings when the end counts (ratings_svc.h),
 * queue game_end (with rating_change, null when the game does not count)
 * to its players and watchers and store the players' game_end
 * notifications. */
void notify_game_over(gsvc *s, const struct game *g);
/* To the opponent of decliner_id, whose draw offer in g was declined. */
int notify_draw_declined(gsvc *s, const struct game *g, int64_t decliner_id);

/* One player's board of a tournament round just paired (tourney.c):
 * strings borrowed for the call. */
typedef struct notify_tround {
    int64_t tournament_id;
    const char *name; /* the tournament's */
    int64_t round;
    int64_t game_id;      /* 0 = no game (a bye, a forfeit) */
    const char *opponent; /* NULL for a bye */
    const char *color;    /* "white", "black", NULL for a bye */
    bool bye;
    const char *result; /* a forfeit board's scoring side ("white", "black"); NULL
                           (or "") for a game or a bye: the wire's null */
} notify_tround;

/* To user_id: the board t of a new round (kind tournament_round), so a
 * player who is offline finds it when they come back. */
int notify_tournament_round(gsvc *s, int64_t user_id, const notify_tround *t);
/* To user_id: tournament tid (named name) is over, user_id ranked rank
 * with points; reason "" or NULL when every round was played (kind
 * tournament_end). */
int notify_tournament_end(gsvc *s, int64_t user_id, int64_t tid, const char *name, int rank,
                          double points, const char *reason);

#endif
