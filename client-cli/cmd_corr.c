/*
 * cmd_corr: the subcommands of correspondence play (docs/protocol.md):
 * inbox (notifications, then marks them read), vacation, watch, draw,
 * abort; and cmd_format_left(), the "time left" cell of `games --mine`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "play.h"
#include "table.h"

const char *cmd_format_left(long long ms, char *buf, size_t n)
{
    if (ms < 0)
        return "-";
    long long s = ms / 1000, d = s / 86400, h = s % 86400 / 3600, m = s % 3600 / 60;
    if (d > 0)
        snprintf(buf, n, "%lldd %02lldh", d, h);
    else if (h > 0)
        snprintf(buf, n, "%lldh %02lldm", h, m);
    else
        snprintf(buf, n, "%lldm %02llds", m, s % 60);
    return buf;
}

/* One line of text for a notification object. */
static void note_text(const cJSON *n, char *buf, size_t len)
{
    const char *kind = cli_str(n, "kind");
    const char *opp = cli_str(n, "opponent");
    long long game = cli_int(n, "game");
    if (!kind)
        kind = "?";
    if (strcmp(kind, "your_turn") == 0) {
        const char *mv = cli_str(n, "move");
        snprintf(buf, len, "game %lld: your turn against %s%s%s", game, opp ? opp : "?",
                 mv ? " after " : "", mv ? mv : "");
    } else if (strcmp(kind, "challenge") == 0) {
        snprintf(buf, len, "challenge %lld from %s (%s)", cli_int(n, "challenge"),
                 cli_str(n, "from") ? cli_str(n, "from") : "?",
                 cli_str(n, "variant") ? cli_str(n, "variant") : "?");
    } else if (strcmp(kind, "draw_offer") == 0) {
        snprintf(buf, len, "game %lld: %s offers a draw", game, opp ? opp : "?");
    } else if (strcmp(kind, "game_end") == 0) {
        const char *res = cli_str(n, "result"), *why = cli_str(n, "reason");
        snprintf(buf, len, "game %lld against %s is over: %s%s (%s)", game, opp ? opp : "?",
                 res ? res : "no result", res && strcmp(res, "draw") ? " wins" : "",
                 why ? why : "");
    } else if (strcmp(kind, "deadline_soon") == 0) {
        snprintf(buf, len, "game %lld: less than a day left to move against %s", game,
                 opp ? opp : "?");
    } else {
        snprintf(buf, len, "%s", kind);
    }
}

int cmd_inbox(cli *c, const cmd_args *a)
{
    cJSON *req = cli_request("notifications"), *resp;
    if (req && args_has(a, "limit") &&
        !cJSON_AddNumberToObject(req, "limit", (double)args_uint(a, "limit", 0))) {
        cJSON_Delete(req);
        req = NULL;
    }
    int rc = cli_call(c, req, &resp);
    if (rc != CLI_EXIT_OK)
        return rc;
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(resp, "notifications"), *n;
    cJSON *ids = cJSON_CreateArray();
    if (!ids) {
        cJSON_Delete(resp);
        return cli_fail(c, CLI_EXIT_SERVER, "out of memory");
    }
    bool json = cli_json(c, resp);
    if (!json && cJSON_GetArraySize(list) == 0)
        fputs("No notifications\n", c->out);
    cJSON_ArrayForEach(n, list)
    {
        const cJSON *read = cJSON_GetObjectItemCaseSensitive(n, "read");
        if (!cJSON_IsTrue(read))
            cJSON_AddItemToArray(ids, cJSON_CreateNumber((double)cli_int(n, "id")));
        if (!json) {
            char text[256];
            note_text(n, text, sizeof text);
            fprintf(c->out, "%s %s\n", cJSON_IsTrue(read) ? " " : "*", text);
        }
    }
    cJSON_Delete(resp);
    if (cJSON_GetArraySize(ids) == 0 || args_has(a, "keep")) {
        cJSON_Delete(ids);
        return CLI_EXIT_OK;
    }
    req = cli_request("read");
    if (!req || !cJSON_AddItemToObject(req, "ids", ids)) {
        cJSON_Delete(ids);
        cJSON_Delete(req);
        return cli_fail(c, CLI_EXIT_SERVER, "out of memory");
    }
    rc = cli_call(c, req, &resp);
    cJSON_Delete(resp);
    return rc;
}

int cmd_vacation(cli *c, const cmd_args *a)
{
    const char *action = a->pos[0];
    if (strcmp(action, "on") && strcmp(action, "off") && strcmp(action, "status"))
        return cli_usage_error(c, "on, off or status, not \"%s\"", action);
    if (args_has(a, "hours") && strcmp(action, "on") != 0)
        return cli_usage_error(c, "--hours goes with on");
    cJSON *req = cli_request("vacation"), *resp;
    if (req && (!cJSON_AddStringToObject(req, "action", action) ||
                (args_has(a, "hours") &&
                 !cJSON_AddNumberToObject(req, "hours", (double)args_uint(a, "hours", 0))))) {
        cJSON_Delete(req);
        req = NULL;
    }
    int rc = cli_call(c, req, &resp);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (!cli_json(c, resp)) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(resp, "vacation");
        long long until = cli_int(v, "until");
        char when[64] = "";
        time_t secs = (time_t)(until / 1000);
        struct tm tm;
        if (until >= 0 && gmtime_r(&secs, &tm))
            strftime(when, sizeof when, " until %Y-%m-%d %H:%M UTC", &tm);
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "on")))
            fprintf(c->out, "On vacation%s; %lld hours of allowance left this year\n", when,
                    cli_int(v, "left_h"));
        else
            fprintf(c->out, "Not on vacation; %lld hours of allowance left this year\n",
                    cli_int(v, "left_h"));
    }
    cJSON_Delete(resp);
    return CLI_EXIT_OK;
}

int cmd_watch(cli *c, const cmd_args *a)
{
    uint64_t id;
    if (cli_pos_id(c, a, 0, "GAME", &id) < 0)
        return CLI_EXIT_USAGE;
    /* play_run watches a game you do not play (subscribing, and again
     * after each reconnect); in your own game it is `play`. */
    return play_run(c, id);
}

/* draw offer|accept|decline GAME, abort GAME: one request and the game's
 * new state. */
static int game_action(cli *c, const char *op, const char *action, uint64_t id, const char *done)
{
    cJSON *req = cli_game_request(op, id), *resp;
    if (req && action && !cJSON_AddStringToObject(req, "action", action)) {
        cJSON_Delete(req);
        req = NULL;
    }
    int rc = cli_call(c, req, &resp);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (!cli_json(c, resp))
        fprintf(c->out, "Game %llu: %s\n", (unsigned long long)id, done);
    cJSON_Delete(resp);
    return CLI_EXIT_OK;
}

int cmd_draw(cli *c, const cmd_args *a)
{
    const char *action = a->pos[0];
    uint64_t id;
    if (strcmp(action, "offer") && strcmp(action, "accept") && strcmp(action, "decline"))
        return cli_usage_error(c, "offer, accept or decline, not \"%s\"", action);
    if (cli_pos_id(c, a, 1, "GAME", &id) < 0)
        return CLI_EXIT_USAGE;
    const char *done = strcmp(action, "offer") == 0    ? "draw offered"
                       : strcmp(action, "accept") == 0 ? "drawn by agreement"
                                                       : "draw offer declined";
    return game_action(c, "draw", action, id, done);
}

int cmd_abort(cli *c, const cmd_args *a)
{
    uint64_t id;
    if (cli_pos_id(c, a, 0, "GAME", &id) < 0)
        return CLI_EXIT_USAGE;
    return game_action(c, "abort", NULL, id, "aborted");
}
