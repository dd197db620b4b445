/*
 * ops: the handlers of the op table (dispatch.c) and the result builders
 * they share. Handlers get validated input (dispatch.h) and check only
 * meaning, in the order docs/protocol.md gives for each op; every write
 * goes through svc_write_begin() and the iteration's batch.
 *   ops_session.c   hello, ping, register, login, logout
 *   ops_challenge.c challenge, accept, decline, cancel, challenges
 *   ops_game.c      games, game, move, resign, subscribe, unsubscribe
 *   ops_bot.c       users;  hint.c: hint (engine on the thread pool)
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

/* ops_corr.c: correspondence play (docs/protocol.md): notifications,
 * read, vacation, draw, abort; debug_clock (only with --test-clock). */
void op_notifications(req *r);
void op_read(req *r);
void op_vacation(req *r);
void op_draw(req *r);
void op_abort(req *r);
void op_debug_clock(req *r);

/* ops_records.c: export, import (records, docs/protocol.md). */
void op_export(req *r);
void op_import(req *r);
/* The search filters of `games` and `export` (result, since, until,
 * tournament, imported) from r into f. false when one is bad: r is then
 * answered bad_request. */
bool ops_search_filter(req *r, store_game_filter *f);

#define OPS_GAMES_LIMIT_DEFAULT 50
#define OPS_GAMES_LIMIT_MAX 200
#define OPS_LOGIN_GAMES_MAX 500    /* active games listed in a login result */
#define OPS_OPEN_CHALLENGES_MAX 50 /* open challenges one user may have made */

/* {"username": name, "bot": bot}; NULL on allocation failure. */
cJSON *ops_user_json(const char *name, bool bot);
/* Add "challenges": the open challenges from, to and for user_id, to res.
 * false on a store or allocation failure. */
bool ops_add_challenges(api *s, cJSON *res, int64_t user_id);
struct game;
/* Add "notifications": user_id's unread notifications, oldest first
 * (ops_corr.c). false on a store or allocation failure. */
bool ops_add_notifications(api *s, cJSON *res, int64_t user_id);
/* c's login changed (login as someone else, logout): drop its
 * subscriptions to private games it may no longer watch (the fan-out
 * checks too, fanout.h; this keeps the list honest). */
void ops_drop_hidden_subs(api *s, conn *c);
/* Add "games": user_id's active games as full objects, to res. */
bool ops_add_active_games(api *s, cJSON *res, int64_t user_id);

#endif
