/*
 * cmd_challenge: challenge, challenges, accept, decline, cancel
 * (PROTOCOL.md "Core ops"). Arguments the client can judge alone (colour,
 * time control) are checked before connecting and are usage errors;
 * everything else (variant names, positions, ids) is the server's call, so
 * the client never disagrees with it.
 */
#include <string.h>

#include "cmd.h"
#include "render.h"
#include "table.h"
#include "timectl.h"

/* "7" or "abc" for an id of either JSON type, into buf. */
static const char *id_text(const cJSON *obj, const char *name, char *buf, size_t n)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (cJSON_IsNumber(v))
        snprintf(buf, n, "%.0f", v->valuedouble);
    else if (cJSON_IsString(v))
        snprintf(buf, n, "%s", v->valuestring);
    else
        snprintf(buf, n, "?");
    return buf;
}

static void print_challenge(cli *c, const cJSON *ch)
{
    char id[32], tc[64];
    const char *to = cli_str(ch, "to");
    const char *variant = cli_str(ch, "variant"), *color = cli_str(ch, "color");
    fprintf(c->out, "Challenge %s: %s -> %s, %s, challenger plays %s, %s\n",
            id_text(ch, "id", id, sizeof id), cli_str(ch, "from") ? cli_str(ch, "from") : "?",
            to ? to : "anyone", variant ? variant : "?", color ? color : "?",
            timectl_format(cJSON_GetObjectItemCaseSensitive(ch, "time_control"), tc, sizeof tc));
    const char *pos = cli_str(ch, "position");
    if (pos)
        fprintf(c->out, "Position: %s\n", pos);
}

int cmd_check_challenge(cli *c, const cmd_args *a)
{
    const char *color = args_get(a, "color");
    if (color && strcmp(color, "white") != 0 && strcmp(color, "black") != 0 &&
        strcmp(color, "random") != 0)
        return cli_usage_error(c, "--color must be white, black or random, not '%s'", color);
    const char *time = args_get(a, "time");
    if (time) {
        const char *why;
        cJSON *tc = timectl_parse(time, &why);
        if (!tc)
            return cli_usage_error(c, "bad --time '%s': %s", time, why);
        cJSON_Delete(tc);
    }
    return CLI_EXIT_OK;
}

int cmd_challenge(cli *c, const cmd_args *a)
{
    /* cmd_check_challenge() has vetted --color and --time. */
    const char *color = args_get(a, "color"), *time = args_get(a, "time");
    const char *why;
    cJSON *tc = time ? timectl_parse(time, &why) : NULL;
    if (time && !tc)
        return cli_fail(c, CLI_EXIT_SERVER, "%s", why); /* only out of memory now */

    cJSON *req = cli_request("challenge");
    bool ok = req != NULL;
    if (ok && a->npos > 0)
        ok = cJSON_AddStringToObject(req, "to", a->pos[0]) != NULL;
    const char *variant = args_get(a, "variant"), *position = args_get(a, "position");
    if (ok && variant)
        ok = cJSON_AddStringToObject(req, "variant", variant) != NULL;
    if (ok && color)
        ok = cJSON_AddStringToObject(req, "color", color) != NULL;
    if (ok && position)
        ok = cJSON_AddStringToObject(req, "position", position) != NULL;
    if (ok && args_has(a, "rated"))
        ok = cJSON_AddTrueToObject(req, "rated") != NULL;
    if (ok && tc) {
        ok = cJSON_AddItemToObject(req, "time_control", tc);
        tc = NULL;
    }
    cJSON_Delete(tc);
    if (!ok) {
        cJSON_Delete(req);
        req = NULL;
    }

    cJSON *resp;
    int rc = cli_call(c, req, &resp);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (!cli_json(c, resp))
        print_challenge(c, cJSON_GetObjectItemCaseSensitive(resp, "challenge"));
    cJSON_Delete(resp);
    return CLI_EXIT_OK;
}

int cmd_challenges(cli *c, const cmd_args *a)
{
    (void)a;
    cJSON *resp;
    int rc = cli_call(c, cli_request("challenges"), &resp);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (cli_json(c, resp))
        goto out;
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(resp, "challenges");
    if (cJSON_GetArraySize(list) == 0) {
        fputs("No open challenges\n", c->out);
        goto out;
    }
    static const char *const heads[] = {"ID", "FROM", "TO", "VARIANT", "COLOR", "TIME"};
    table t;
    if (table_init(&t, 6, heads) < 0) {
        rc = cli_fail(c, CLI_EXIT_SERVER, "out of memory");
        goto out;
    }
    const cJSON *ch;
    cJSON_ArrayForEach(ch, list)
    {
        char id[32], tc[64];
        const char *to = cli_str(ch, "to");
        const char *row[] = {
            id_text(ch, "id", id, sizeof id),
            cli_str(ch, "from"),
            to ? to : "(open)",
            cli_str(ch, "variant"),
            cli_str(ch, "color"),
            timectl_format(cJSON_GetObjectItemCaseSensitive(ch, "time_control"), tc, sizeof tc)};
        if (table_add(&t, row) < 0) {
            rc = cli_fail(c, CLI_EXIT_SERVER, "out of memory");
            break;
        }
    }
    if (rc == CLI_EXIT_OK)
        table_print(&t, c->out);
    table_free(&t);
out:
    cJSON_Delete(resp);
    return rc;
}

/* accept / decline / cancel: {"type": op, "challenge": ID}. */
static int challenge_op(cli *c, const cmd_args *a, const char *op, cJSON **resp)
{
    uint64_t id;
    if (cli_pos_id(c, a, 0, "the challenge ID", &id) < 0)
        return CLI_EXIT_USAGE;
    cJSON *req = cli_request(op);
    const char *reason = args_get(a, "reason"), *message = args_get(a, "message");
    if (req && (!cJSON_AddNumberToObject(req, "challenge", (double)id) ||
                (reason && !cJSON_AddStringToObject(req, "reason", reason)) ||
                (message && !cJSON_AddStringToObject(req, "message", message)))) {
        cJSON_Delete(req);
        req = NULL;
    }
    return cli_call(c, req, resp);
}

int cmd_accept(cli *c, const cmd_args *a)
{
    cJSON *resp;
    int rc = challenge_op(c, a, "accept", &resp);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (!cli_json(c, resp)) {
        const cJSON *game = cJSON_GetObjectItemCaseSensitive(resp, "game");
        render_game(c->out, game, cli_me(c), c->render_flags);
    }
    cJSON_Delete(resp);
    return CLI_EXIT_OK;
}

int cmd_decline(cli *c, const cmd_args *a)
{
    cJSON *resp;
    int rc = challenge_op(c, a, "decline", &resp);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (!cli_json(c, resp))
        fprintf(c->out, "Declined challenge %s\n", a->pos[0]);
    cJSON_Delete(resp);
    return CLI_EXIT_OK;
}

int cmd_cancel(cli *c, const cmd_args *a)
{
    cJSON *resp;
    int rc = challenge_op(c, a, "cancel", &resp);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (!cli_json(c, resp))
        fprintf(c->out, "Canceled challenge %s\n", a->pos[0]);
    cJSON_Delete(resp);
    return CLI_EXIT_OK;
}
