/*
 * cmd_rating: `qirkat user NAME` and `qirkat leaderboard VARIANT` (issue
 * 12): a player's ratings per family and a family's established players.
 * Ratings come rounded to 2 decimals from the server; a provisional one
 * (RD above 110) is marked with "?" after the number, as Lichess does.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "table.h"
#include "i18n.h"

/* "1662.31" or "1662.31?" (provisional) into buf. */
static const char *rating_cell(const cJSON *r, char *buf, size_t n)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, "rating");
    snprintf(buf, n, "%.2f%s", cJSON_IsNumber(v) ? v->valuedouble : 0.0,
             cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "provisional")) ? "?" : "");
    return buf;
}

static const char *num_cell(const cJSON *o, const char *name, const char *fmt, char *buf, size_t n)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    snprintf(buf, n, fmt, cJSON_IsNumber(v) ? v->valuedouble : 0.0);
    return buf;
}

int cmd_user(cli *c, const cmd_args *a)
{
    cJSON *req = cli_request("user"), *resp;
    if (req && !cJSON_AddStringToObject(req, "username", a->pos[0])) {
        cJSON_Delete(req);
        req = NULL;
    }
    int rc = cli_call(c, req, &resp);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (cli_json(c, resp))
        goto out;
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(resp, "user");
    const cJSON *ratings = cJSON_GetObjectItemCaseSensitive(u, "ratings");
    fprintf(c->out, "%s%s\n", cli_str(u, "username") ? cli_str(u, "username") : "?",
            cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(u, "bot")) ? _(" (bot)") : "");
    if (cJSON_GetArraySize(ratings) == 0) {
        fputs(_("No rated games yet\n"), c->out);
        goto out;
    }
    static const char *const heads[] = {N_("FAMILY"), N_("RATING"), N_("RD"), N_("VOLATILITY"), N_("GAMES")};
    table t;
    if (table_init(&t, 5, heads) < 0) {
        rc = cli_fail(c, CLI_EXIT_SERVER, _("out of memory"));
        goto out;
    }
    const cJSON *f;
    cJSON_ArrayForEach(f, ratings)
    {
        char r[32], rd[32], vol[32], games[32];
        const char *row[5] = {f->string, rating_cell(f, r, sizeof r),
                              num_cell(f, "rd", "%.2f", rd, sizeof rd),
                              num_cell(f, "volatility", "%.6f", vol, sizeof vol),
                              num_cell(f, "games", "%.0f", games, sizeof games)};
        if (table_add(&t, row) < 0) {
            rc = cli_fail(c, CLI_EXIT_SERVER, _("out of memory"));
            break;
        }
    }
    if (rc == CLI_EXIT_OK) {
        table_print(&t, c->out);
        fputs(_("? provisional (RD above 110)\n"), c->out);
    }
    table_free(&t);
out:
    cJSON_Delete(resp);
    return rc;
}

int cmd_leaderboard(cli *c, const cmd_args *a)
{
    cJSON *req = cli_request("leaderboard"), *resp;
    bool ok = req && cJSON_AddStringToObject(req, "variant", a->pos[0]);
    if (ok && args_has(a, "limit"))
        ok = cJSON_AddNumberToObject(req, "limit", (double)args_uint(a, "limit", 0)) != NULL;
    if (!ok) {
        cJSON_Delete(req);
        req = NULL;
    }
    int rc = cli_call(c, req, &resp);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (cli_json(c, resp))
        goto out;
    const char *family = cli_str(resp, "family");
    const cJSON *players = cJSON_GetObjectItemCaseSensitive(resp, "players");
    if (cJSON_GetArraySize(players) == 0) {
        fprintf(c->out,
                _("No established players in %s yet (a rating is provisional while its RD is above "
                "110)\n"),
                family ? family : a->pos[0]);
        goto out;
    }
    fprintf(c->out, _("Leaderboard: %s\n"), family ? family : a->pos[0]);
    static const char *const heads[] = {N_("RANK"), N_("PLAYER"), N_("RATING"), N_("RD"), N_("GAMES")};
    table t;
    if (table_init(&t, 5, heads) < 0) {
        rc = cli_fail(c, CLI_EXIT_SERVER, _("out of memory"));
        goto out;
    }
    const cJSON *p;
    cJSON_ArrayForEach(p, players)
    {
        char rank[32], name[64], r[32], rd[32], games[32];
        snprintf(name, sizeof name, "%s%s", cli_str(p, "username") ? cli_str(p, "username") : "?",
                 cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "bot")) ? _(" (bot)") : "");
        const char *row[5] = {num_cell(p, "rank", "%.0f", rank, sizeof rank), name,
                              num_cell(p, "rating", "%.2f", r, sizeof r),
                              num_cell(p, "rd", "%.2f", rd, sizeof rd),
                              num_cell(p, "games", "%.0f", games, sizeof games)};
        if (table_add(&t, row) < 0) {
            rc = cli_fail(c, CLI_EXIT_SERVER, _("out of memory"));
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
