/*
 * store_ratings: Glicko-2 ratings (issue 12; SQLite: migration 7;
 * store_core.h for the store object, results and the calling convention):
 * a player's rating per family, the leaderboard, and a rated game's
 * ratings at its start and around its counted end. An open seek's rating
 * range is a challenge's (store_challenges.h).
 */
#ifndef QK_STORE_RATINGS_H
#define QK_STORE_RATINGS_H

#include "qk_rules.h"
#include "store/store_core.h"

/* A player's rating in one family (issue 12; SQLite: table ratings).
 * rating and rd on the Glicko scale, rd as of last_game (UTC ms of the
 * end of the player's last rated game there); games: rated games counted.
 * username and bot are filled by store_ratings_board() only. */
typedef struct store_rating {
    int64_t user_id;
    char family[QK_VARIANT_NAMELEN];
    double rating, rd, volatility;
    int64_t games;
    int64_t last_game;
    char username[STORE_NAME_MAX + 1];
    bool bot;
} store_rating;

/* A rated game's ratings (SQLite: table game_ratings): each side's rating
 * at the start, and once the game's end counted (ended), the ratings just
 * before and after the update. */
typedef struct store_game_rating {
    int64_t game_id;
    double white_start, black_start;
    bool ended;
    double white_before, white_after, black_before, black_after;
} store_game_rating;

/* Iteration callback: return 0 to go on, non-zero to stop. */
typedef int (*store_rating_cb)(void *arg, const store_rating *r);

/* The area's table (store_x -> x, contracts below). */
typedef struct store_ratings_ops {
    int (*rating_get)(store *s, int64_t user_id, const char *family, store_rating *out);
    int (*rating_put)(store *s, const store_rating *r);
    int (*ratings_of)(store *s, int64_t user_id, store_rating_cb cb, void *arg);
    int (*ratings_board)(store *s, const char *family, double max_rd, store_rating_cb cb,
                         void *arg);
    int (*game_rating_get)(store *s, int64_t game_id, store_game_rating *out);
    int (*game_rating_put)(store *s, const store_game_rating *gr);
} store_ratings_ops;

/* user_id's row in family (a family name, game/ratings_svc.h) into *out
 * (username and bot left empty); STORE_NOTFOUND when the user has no
 * rated game there. */
static inline int store_rating_get(store *s, int64_t user_id, const char *family, store_rating *out)
{
    return s->ratings->rating_get(s, user_id, family, out);
}
/* Insert or replace the row (r->user_id, r->family); username and bot are
 * not stored. */
static inline int store_rating_put(store *s, const store_rating *r)
{
    return s->ratings->rating_put(s, r);
}
/* cb for each of user_id's rows, by family name (username and bot left
 * empty). Same return and re-entrancy rules as store_extensions_each(). */
static inline int store_ratings_of(store *s, int64_t user_id, store_rating_cb cb, void *arg)
{
    return s->ratings->ratings_of(s, user_id, cb, arg);
}
/* cb for the rows of family whose stored rd <= max_rd, with username and
 * bot, highest rating first (then lowest rd, then username); the caller
 * stops when it has enough (cb non-zero). Same rules as above. */
static inline int store_ratings_board(store *s, const char *family, double max_rd,
                                      store_rating_cb cb, void *arg)
{
    return s->ratings->ratings_board(s, family, max_rd, cb, arg);
}
/* A rated game's ratings: get (STORE_NOTFOUND when the game has none) and
 * insert-or-replace (ended false stores before/after as NULL). */
static inline int store_game_rating_get(store *s, int64_t game_id, store_game_rating *out)
{
    return s->ratings->game_rating_get(s, game_id, out);
}
static inline int store_game_rating_put(store *s, const store_game_rating *gr)
{
    return s->ratings->game_rating_put(s, gr);
}

#endif
