/*
 * optable: see optable.h. The table below is the whole list of ops the
 * server understands; docs/protocol.md documents each row.
 */
#include "api/optable.h"

#include <string.h>

#include "api/ops.h"

#define REQ(n, t)                                                                                  \
    {                                                                                              \
        n, t, true                                                                                 \
    }
#define OPT(n, t)                                                                                  \
    {                                                                                              \
        n, t, false                                                                                \
    }
/* Optional in protocol version 1, required once a connection declared 2. */
#define OPT1(n, t)                                                                                 \
    {                                                                                              \
        n, t, false, true                                                                          \
    }

static const op_def ops[] = {
    {"hello", op_hello, false, {OPT("version", FT_UINT), OPT("client", FT_STR)}, NULL, true},
    {"ping", op_ping, false, {OPT("ts", FT_ANY)}, NULL, true},
    {"register",
     op_register,
     false,
     {REQ("username", FT_STR), REQ("password", FT_STR), OPT("bot", FT_BOOL)},
     "password"},
    {"login",
     op_login,
     false,
     {OPT("username", FT_STR), OPT("password", FT_STR), OPT("token", FT_STR)},
     "password"},
    {"logout", op_logout, true, {{0}}},
    {"challenge",
     op_challenge,
     true,
     {OPT("to", FT_STR), OPT("variant", FT_STR), OPT("color", FT_STR), OPT("time_control", FT_OBJ),
      OPT("position", FT_STR), OPT("rated", FT_BOOL), OPT("vacation", FT_BOOL),
      OPT("private", FT_BOOL), OPT("rating_min", FT_UINT), OPT("rating_max", FT_UINT)}},
    {"accept", op_accept, true, {REQ("challenge", FT_ID)}},
    {"decline",
     op_decline,
     true,
     {REQ("challenge", FT_ID), OPT("reason", FT_STR), OPT("message", FT_STR)}},
    {"cancel", op_cancel, true, {REQ("challenge", FT_ID)}},
    {"challenges", op_challenges, true, {{0}}},
    {"games",
     op_games,
     true,
     {OPT("status", FT_STR), OPT("turn", FT_STR), OPT("user", FT_STR), OPT("variant", FT_STR),
      OPT("limit", FT_UINT), OPT("before", FT_ID), OPT("opponent", FT_STR),
      OPT("result", FT_STR), OPT("since", FT_UINT), OPT("until", FT_UINT),
      OPT("tournament", FT_ID), OPT("imported", FT_BOOL), OPT("after", FT_ID)}},
    {"game", op_game, true, {REQ("game", FT_ID)}},
    {"move", op_move, true,
     {REQ("game", FT_ID), OPT1("ply", FT_UINT), REQ("move", FT_MOVE), OPT("compact", FT_BOOL)}},
    {"resign", op_resign, true, {REQ("game", FT_ID)}},
    {"subscribe", op_subscribe, true, {REQ("game", FT_ID)}},
    {"unsubscribe", op_unsubscribe, true, {REQ("game", FT_ID)}},
    /* correspondence play (ops_corr.c) */
    {"notifications",
     op_notifications,
     true,
     {OPT("unread", FT_BOOL), OPT("limit", FT_UINT), OPT("offset", FT_UINT)}},
    {"read", op_read, true, {OPT("ids", FT_ANY), OPT("all", FT_BOOL)}},
    {"vacation", op_vacation, true, {REQ("action", FT_STR), OPT("hours", FT_UINT)}},
    {"draw", op_draw, true, {REQ("game", FT_ID), REQ("action", FT_STR)}},
    {"abort", op_abort, true, {REQ("game", FT_ID)}},
    {"debug_clock", op_debug_clock, false,
     {OPT("set_ms", FT_ANY), OPT("advance_ms", FT_ANY), OPT("sweep", FT_BOOL)}},
    {"users",
     op_users,
     true,
     {OPT("username", FT_STR), OPT("bot", FT_BOOL), OPT("after", FT_STR), OPT("limit", FT_UINT),
      OPT("online", FT_BOOL)}},
    {"hint", op_hint, true, {REQ("game", FT_ID)}},
    {"rematch", op_rematch, true, {REQ("game", FT_ID)}},
    /* the lobby (ops_lobby.c, issue 9) */
    {"lobby", op_lobby, true, {REQ("action", FT_STR)}},
    {"seeks", op_seeks, true, {OPT("after", FT_ID), OPT("limit", FT_UINT)}},
    /* ratings (ops_rating.c) */
    {"user", op_user, true, {REQ("username", FT_STR)}},
    {"leaderboard", op_leaderboard, true, {REQ("variant", FT_STR), OPT("limit", FT_UINT)}},
    /* classes and tournaments (ops_class.c, ops_tourney.c) */
    {"class_create", op_class_create, true, {REQ("name", FT_STR)}},
    {"class_join", op_class_join, true, {REQ("code", FT_STR)}},
    {"class_add_students",
     op_class_add_students,
     true,
     {REQ("class", FT_ID), REQ("students", FT_ANY)}},
    {"class_reset_password",
     op_class_reset_password,
     true,
     {REQ("class", FT_ID), REQ("username", FT_STR)}},
    {"class", op_class, true, {REQ("class", FT_ID)}},
    {"classes", op_classes, true, {{0}}},
    {"tournament_create",
     op_tournament_create,
     true,
     {REQ("name", FT_STR), REQ("system", FT_STR), OPT("variant", FT_STR),
      OPT("time_control", FT_OBJ), OPT("rounds", FT_UINT), OPT("double", FT_BOOL),
      OPT("class", FT_ID), OPT("position", FT_STR), OPT("rated", FT_BOOL), OPT("bots", FT_BOOL),
      OPT("start_mode", FT_STR), OPT("pairer", FT_STR)}},
    {"tournament_join",
     op_tournament_join,
     true,
     {REQ("tournament", FT_ID), OPT("username", FT_STR)}},
    {"tournament_withdraw",
     op_tournament_withdraw,
     true,
     {REQ("tournament", FT_ID), OPT("username", FT_STR)}},
    {"tournament_start", op_tournament_start, true, {REQ("tournament", FT_ID)}},
    {"tournament_pair",
     op_tournament_pair,
     true,
     {REQ("tournament", FT_ID), OPT("round", FT_UINT)}},
    {"tournament_result",
     op_tournament_result,
     true,
     {REQ("tournament", FT_ID), REQ("game", FT_ID), REQ("result", FT_STR)}},
    {"tournament_forbid",
     op_tournament_forbid,
     true,
     {REQ("tournament", FT_ID), REQ("a", FT_STR), REQ("b", FT_STR)}},
    {"tournament", op_tournament, true, {REQ("tournament", FT_ID)}},
    {"tournaments", op_tournaments, true, {OPT("status", FT_STR)}},
    {"tournament_standings",
     op_tournament_standings,
     true,
     {REQ("tournament", FT_ID), OPT("format", FT_STR)}},
    /* records (ops_records.c) */
    {"export",
     op_export,
     true,
     {OPT("game", FT_ID), OPT("user", FT_STR), OPT("opponent", FT_STR), OPT("variant", FT_STR),
      OPT("result", FT_STR), OPT("since", FT_UINT), OPT("until", FT_UINT),
      OPT("tournament", FT_ID), OPT("imported", FT_BOOL), OPT("format", FT_STR),
      OPT("limit", FT_UINT), OPT("after", FT_ID)}},
    {"import", op_import, true, {REQ("pdn", FT_STR)}},
    /* administrators and moderation (ops_admin.c): forbidden but to an
     * administrator (reset_password: also a student's teacher) */
    {"ban", op_ban, true, {REQ("username", FT_STR), REQ("reason", FT_STR)}},
    {"unban", op_unban, true, {REQ("username", FT_STR), OPT("reason", FT_STR)}},
    {"reset_password", op_reset_password, true, {REQ("username", FT_STR), OPT("reason", FT_STR)}},
    {"redeem_reset",
     op_redeem_reset,
     false,
     {REQ("username", FT_STR), REQ("code", FT_STR), REQ("password", FT_STR)},
     "password"},
    {"adjudicate",
     op_adjudicate,
     true,
     {REQ("game", FT_ID), REQ("result", FT_STR), REQ("reason", FT_STR)}},
    {"abort_tournament",
     op_abort_tournament,
     true,
     {REQ("tournament", FT_ID), REQ("reason", FT_STR)}},
    {"admin_log", op_admin_log, true, {OPT("limit", FT_UINT), OPT("before", FT_ID)}},
};

const op_def *optable_op(size_t i)
{
    return i < sizeof ops / sizeof ops[0] ? &ops[i] : NULL;
}

const op_def *optable_find(const char *name)
{
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(ops[i].name, name) == 0)
            return &ops[i];
    return NULL;
}

