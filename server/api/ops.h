/*
 * ops: the handlers of the op table (dispatch.c) and the result builders
 * they share. Handlers get validated input (dispatch.h) and check only
 * meaning, in the order docs/protocol.md gives for each op; every write
 * goes through svc_write_begin() and the iteration's batch.
 *   ops_session.c   hello, ping, register, login, logout
 *   ops_challenge.c challenge, accept, decline, cancel, challenges
 *   ops_game.c      games, game, move, resign, subscribe, unsubscribe
 *   ops_bot.c       users;  hint.c: hint (engine on the thread pool)
 *   ops_rating.c    user, leaderboard
 */
#ifndef QK_OPS_H
#define QK_OPS_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "api/req.h"

void op_hello(req *r);
void op_ping(req *r);
void op_register(req *r);
void op_login(req *r);
void op_logout(req *r);
void op_challenge(req *r);
void op_accept(req *r);
void op_decline(req *r);
void op_cancel(req *r);
void op_rematch(req *r); /* ops_challenge.c: a new challenge to a finished game's opponent */
void op_challenges(req *r);
void op_games(req *r);
void op_game(req *r);
void op_move(req *r);
void op_resign(req *r);
void op_subscribe(req *r);
void op_unsubscribe(req *r);
/* ops_bot.c: users (accounts with their bot flag); hint.c: hint. */
void op_users(req *r);
void op_hint(req *r);
/* ops_lobby.c: lobby (subscribe to open seeks), seeks (paged). */
void op_lobby(req *r);
void op_seeks(req *r);

/* ops_corr.c: correspondence play (docs/protocol.md): notifications,
 * read, vacation, draw, abort; debug_clock (only with --test-clock). */
void op_notifications(req *r);
void op_read(req *r);
void op_vacation(req *r);
void op_draw(req *r);
void op_abort(req *r);
void op_debug_clock(req *r);

/* Answer r for games_get()'s failure rc on game id: not_found, or
 * internal ("game N is damaged" for a quarantined game). */
void ops_game_error(req *r, int rc, int64_t id);
/* A change to game id was refused because another node moved or ended it
 * first (game/games.h GAMES_ESTALE): read it again and answer as for a
 * request that came after that change: game_over when it has ended, else
 * stale_ply with the stored ply (the client re-reads the game). */
void ops_game_changed(req *r, int64_t id);
/* ops_rating.c: ratings (issue 12): user, leaderboard. */
void op_user(req *r);
void op_leaderboard(req *r);
/* ops_class.c, ops_tourney.c: classes and tournaments (docs/protocol.md
 * "Classes and tournaments"). */
void op_class_create(req *r);
void op_class_join(req *r);
void op_class_add_students(req *r);
void op_class_reset_password(req *r);
void op_class(req *r);
void op_classes(req *r);
void op_tournament_create(req *r);
void op_tournament_join(req *r);
void op_tournament_withdraw(req *r);
void op_tournament_start(req *r);
void op_tournament_pair(req *r);
void op_tournament_result(req *r);
void op_tournament_forbid(req *r);
void op_tournament(req *r);
void op_tournaments(req *r);
void op_tournament_standings(req *r);
/* ops_records.c: export, import (records, docs/protocol.md). */
void op_export(req *r);
void op_import(req *r);
/* The search filters of `games` and `export` (result, since, until,
 * tournament, imported) from r into f. false when one is bad: r is then
 * answered bad_request. */
bool ops_search_filter(req *r, store_game_filter *f);

/* ops_admin.c: administrators and moderation (docs/protocol.md
 * "Administrators"): ban, unban, reset_password, adjudicate,
 * abort_tournament, admin_log; redeem_reset (no login). */
void op_ban(req *r);
void op_unban(req *r);
void op_reset_password(req *r);
void op_redeem_reset(req *r);
void op_adjudicate(req *r);
void op_abort_tournament(req *r);
void op_admin_log(req *r);

/* ops_session.c, for the ops that end or make logins (ops_admin.c). */
struct store_user;
/* Log c in as u with a new token (stored in the iteration's batch) and
 * build the answer of a login (user, token, challenges, games,
 * notifications) for request id; an error object instead (the
 * per-account cap: server_busy; a failure: internal, the batch
 * poisoned). Caller owns the result. */
cJSON *ops_login_new_token(api *s, conn *c, const cJSON *id, const struct store_user *u);
/* A forbidden error for id ("this account is banned: REASON") when
 * user_id is banned, internal when that cannot be read, NULL when the
 * account may log in. Caller owns the result. */
cJSON *ops_banned_error(api *s, const cJSON *id, int64_t user_id);
/* End logins of user_id other than self's (NULL: every one): only those
 * made with the token of hash, or all of them (hash NULL). Each such
 * connection becomes anonymous (its private subscriptions dropped) and
 * gets the event logged_out {reason}. Undone with the batch. Returns how
 * many connections it logged out. */
int ops_end_sessions(api *s, conn *self, int64_t user_id, const uint8_t *hash,
                     const char *reason);

#define OPS_GAMES_LIMIT_DEFAULT 50
#define OPS_GAMES_LIMIT_MAX 200
#define OPS_LOGIN_GAMES_MAX 500    /* active games listed in a login result */
#define OPS_OPEN_CHALLENGES_MAX 50 /* open challenges one user may have made */

/* {"username": name, "bot": bot}; NULL on allocation failure. */
cJSON *ops_user_json(const char *name, bool bot);
/* Add "ratings" (game/ratings_svc.h ratings_user_json()) to the user
 * object user of user_id (ops_rating.c). false on a store or allocation
 * failure. */
bool ops_add_user_ratings(api *s, cJSON *user, int64_t user_id);
/* Add "challenges": the open challenges from and to user_id and the
 * first STORE_SEEKS_PAGE open seeks by others, and "seeks_next" (the id to
 * pass to `seeks` as after, or null when that page was not full), to res.
 * false on a store or allocation failure. */
bool ops_add_challenges(api *s, cJSON *res, int64_t user_id);
struct store_challenge;
/* The wire object of challenge c (caller owns; NULL on allocation failure). */
cJSON *ops_challenge_json(api *s, const struct store_challenge *c);
struct game;
/* Add "notifications": user_id's unread notifications, oldest first
 * (ops_corr.c). false on a store or allocation failure. */
bool ops_add_notifications(api *s, cJSON *res, int64_t user_id);
/* c's login changed (login as someone else, logout): drop its
 * subscriptions to private games it may no longer watch (the fan-out
 * checks too, fanout.h; this keeps the list honest). */
void ops_drop_hidden_subs(api *s, conn *c);
/* A game-changing op (move, resign, draw, abort) on g, where the caller
 * plays, after not_found and forbidden: first the flag (corr_check_time:
 * a game out of time ends now, events and notifications as from the
 * timer), then the status. true when g is active and the op goes on;
 * false once answered: game_over (ops_game_over) or internal. */
bool ops_active_after_flag(req *r, struct game *g);
/* Answer game_over for g (finished or aborted) with its "result" and
 * "reason", and a message in words ("the game is over: white ran out of
 * time"). */
void ops_game_over(req *r, const struct game *g);
/* Add "games": user_id's active games as full objects, and
 * "damaged_games": the ids of those that are quarantined (games.h
 * GAMES_EDAMAGED), left out of "games", to res. */
bool ops_add_active_games(api *s, cJSON *res, int64_t user_id);

#endif
