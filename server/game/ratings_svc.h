/*
 * ratings_svc: ratings in the game service (issue 12; contract
 * ../shared/PROTOCOL.md "Ratings"). rating.h is the pure Glicko-2
 * arithmetic; this module decides when it runs, on which values, and what
 * is stored and shown.
 *
 * Families. One rating per family: the variant's name, except that every
 * alquerkonane-RxC board shares the family "alquerkonane".
 *
 * When. A rated game's end counts once, in the batch that stores the end
 * (notify_game_over() calls ratings_game_over() first, whatever ended
 * it: a move reaching a result, resign, timeout, draw agreement). An
 * aborted game never counts, nor an unrated one. Each game is its own
 * rating period (PROTOCOL.md): both players are updated from their values
 * at the end, first grown by the inactivity step (rating.h
 * rating_inactivity(): one period per whole day since the player's last
 * rated game in the family, RD capped at 350). Imported games never
 * count: they are stored unrated and never pass notify_game_over(), and
 * notify.c passes them as unrated and unfinished (ratings_game_over()).
 *
 * What is shown. A stored row keeps RD as of the player's last rated
 * game; what the wire shows (user objects, leaderboard, seeks' ranges) is
 * the value now, with the inactivity step applied up to now (read only;
 * the row changes at the next rated game). provisional: RD now > 110.
 * Rating and RD go out rounded to 2 decimals, the volatility to 6 (at 2 it
 * would read 0.06 for everyone). A game object's white_rating and
 * black_rating are the players' ratings when it started (null in unrated
 * games); rating_change {"white": {"before", "after"}, "black": ...}
 * appears once a rated game's end counted, else null.
 *
 * Every function runs on the loop thread. Writers need svc_write_begin()
 * done; on a store error they poison the batch (svc_poison) and return
 * STORE_EIO.
 */
#ifndef QK_GAME_RATINGS_SVC_H
#define QK_GAME_RATINGS_SVC_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "game/rating.h"
#include "game/svc.h"
#include "qk_rules.h"

/* What this module needs of a game (games.h's game is not included here:
 * games.c builds game objects with ratings_add_game_json(), so including
 * it back would make a cycle). The caller fills it from its game. */
typedef struct ratings_game {
    int64_t id;
    const char *variant;        /* canonical variant name */
    int64_t white_id, black_id; /* user ids */
    bool rated;
    bool finished;    /* ended with a result (not aborted, not active) */
    qk_result result; /* when finished: white, black or draw */
} ratings_game;

/* Family names are at most this long (variant names are). */
#define RATINGS_FAMILY_MAX QK_VARIANT_NAMELEN
/* The leaderboard's default and largest limit. */
#define RATINGS_BOARD_DEFAULT 50
#define RATINGS_BOARD_MAX 200
/* One inactivity period (rating.h: one per day), UTC ms. */
#define RATINGS_PERIOD_MS (24LL * 3600 * 1000)

/* The family of the variant named variant (canonical name) into out
 * (RATINGS_FAMILY_MAX bytes): "alquerkonane" for any alquerkonane-RxC,
 * else the name itself. */
void ratings_family(const char *variant, char out[RATINGS_FAMILY_MAX]);

/* x rounded to 2 decimals (half away from zero): the wire's ratings. */
double ratings_round2(double x);

/* user_id's rating in family as of now (inactivity applied) into *out;
 * *found (may be NULL) false when the user has no rated game there (then
 * *out is rating_init()'s). 0 or STORE_EIO. */
int ratings_current(gsvc *s, int64_t user_id, const char *family, rating *out, bool *found);

/* g (rated or not) has just started: for a rated game, store each side's
 * rating now as its rating at the start. 0, or STORE_EIO (batch
 * poisoned). */
int ratings_game_started(gsvc *s, const ratings_game *g);

/* g has just ended (status set, row written in this batch): when it
 * counts (rated, finished), update both players' rows and the game's
 * before/after, and set *change (may be NULL) to a new rating_change
 * object (caller owns; NULL when the game does not count or on
 * allocation failure). 0, or STORE_EIO (batch poisoned). */
int ratings_game_over(gsvc *s, const ratings_game *g, cJSON **change);

/* Add white_rating, black_rating and rating_change to the object o of
 * game game_id (rated: whether it is a rated game; an unrated one needs
 * no read). false on a store or allocation failure. */
bool ratings_add_game_json(gsvc *s, int64_t game_id, bool rated, cJSON *o);

/* The user object's "ratings": {FAMILY: {"rating", "rd", "volatility",
 * "games", "provisional"}} for every family where user_id has played a
 * rated game, values now. Caller owns; NULL on a store or allocation
 * failure. */
cJSON *ratings_user_json(gsvc *s, int64_t user_id);

/* The leaderboard of family: established players (not provisional now),
 * highest rating first (then lower RD, then username), at most limit
 * (1..RATINGS_BOARD_MAX), as a list of {"rank" (1, 2, ...), "username",
 * "bot", "rating", "rd", "volatility", "games", "provisional" (false)}. Caller owns; NULL
 * on a store or allocation failure. */
cJSON *ratings_board_json(gsvc *s, const char *family, int limit);

#endif
