/*
 * cmd_admin: `qirkat admin ACTION ...`, an administrator's moderation
 * (docs/protocol.md "Administrators", docs/operations.md "Moderation"):
 * ban, unban, reset-password, adjudicate, abort-tournament, log. One row
 * of the command table; the action is its first argument, like `class`.
 * What can be checked without the server (the action, its arguments, a
 * required --reason, the result word, ids) is checked by cmd_check_admin()
 * before connecting, so a usage error is exit 2 whatever the server's
 * state. The server decides who may: anyone but an administrator (and, for
 * reset-password, a student's teacher) gets "Not allowed" (forbidden).
 */
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "i18n.h"
#include "render.h"
#include "table.h"

typedef struct admin_action {
    const char *name, *op;
    int npos;           /* positional arguments, the action included */
    bool reason;        /* --reason required */
    const char *args;   /* for the usage error */
} admin_action;

static const admin_action actions[] = {
    {"ban", "ban", 2, true, "NAME --reason TEXT"},
    {"unban", "unban", 2, false, "NAME"},
    {"reset-password", "reset_password", 2, false, "NAME"},
    {"adjudicate", "adjudicate", 3, true, "GAME white|black|draw --reason TEXT"},
    {"abort-tournament", "abort_tournament", 2, true, "ID --reason TEXT"},
    {"log", "admin_log", 1, false, "[--limit N]"},
};

static const admin_action *action_of(const char *name)
{
    for (size_t i = 0; i < sizeof actions / sizeof actions[0]; i++)
        if (strcmp(actions[i].name, name) == 0)
            return &actions[i];
    return NULL;
}

int cmd_check_admin(cli *c, const cmd_args *a)
{
    const admin_action *x = action_of(a->pos[0]);
    if (!x)
        return cli_usage_error(c,
                               _("admin ban|unban|reset-password|adjudicate|abort-tournament|log, "
                                 "not \"%s\""),
                               a->pos[0]);
    if (a->npos != x->npos)
        return cli_usage_error(c, _("usage: admin %s %s"), x->name, x->args);
    const char *reason = args_get(a, "reason");
    if (x->reason && (!reason || !*reason))
        return cli_usage_error(c, _("admin %s needs --reason TEXT (it goes into the audit)"),
                               x->name);
    uint64_t id;
    if (strcmp(x->name, "adjudicate") == 0) {
        if (cli_pos_id(c, a, 1, _("GAME"), &id) < 0)
            return CLI_EXIT_USAGE;
        const char *res = a->pos[2];
        if (strcmp(res, "white") != 0 && strcmp(res, "black") != 0 && strcmp(res, "draw") != 0)
            return cli_usage_error(c, _("the result is white, black or draw, not \"%s\""), res);
    }
    if (strcmp(x->name, "abort-tournament") == 0 && cli_pos_id(c, a, 1, _("ID"), &id) < 0)
        return CLI_EXIT_USAGE;
    if (args_has(a, "limit") && strcmp(x->name, "log") != 0)
        return cli_usage_error(c, _("--limit is for admin log"));
    return CLI_EXIT_OK;
}

/* "2026-12-01 14:05 UTC" for a time in UTC ms, into buf (size n). */
static const char *utc_text(double ms, char *buf, size_t n)
{
    time_t secs = (time_t)(ms / 1000);
    struct tm tm;
    if (ms < 0 || !gmtime_r(&secs, &tm) || !strftime(buf, n, _("%Y-%m-%d %H:%M UTC"), &tm))
        snprintf(buf, n, "-");
    return buf;
}

static int print_log(cli *c, const cJSON *resp)
{
    /* TIME here is when (the games' TIME is their time control). table_init()
     * translates the heads: this one is translated already, with its context. */
    const char *const heads[] = {N_("ID"),     C_("audit", "TIME"), N_("BY"),
                                 N_("ACTION"), N_("TARGET"),        N_("REASON")};
    table t;
    if (table_init(&t, 6, heads) < 0)
        return cli_fail(c, CLI_EXIT_SERVER, _("out of memory"));
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(resp, "entries"))
    {
        char id[24], when[32];
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(e, "id");
        const cJSON *at = cJSON_GetObjectItemCaseSensitive(e, "at");
        snprintf(id, sizeof id, "%.0f", cJSON_IsNumber(n) ? n->valuedouble : 0);
        const char *cells[] = {id,
                               utc_text(cJSON_IsNumber(at) ? at->valuedouble : -1, when,
                                        sizeof when),
                               cli_str(e, "admin"),
                               cli_str(e, "action"),
                               cli_str(e, "target"),
                               cli_str(e, "reason")};
        if (table_add(&t, cells) < 0) {
            table_free(&t);
            return cli_fail(c, CLI_EXIT_SERVER, _("out of memory"));
        }
    }
    if (t.nrows == 0)
        fputs(_("No audit entries\n"), c->out);
    else
        table_print(&t, c->out);
    table_free(&t);
    if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(resp, "next")))
        fputs(_("(older entries left out: raise --limit)\n"), c->out);
    return CLI_EXIT_OK;
}

int cmd_admin(cli *c, const cmd_args *a)
{
    const admin_action *x = action_of(a->pos[0]);
    const char *reason = args_get(a, "reason");
    uint64_t id = 0;
    cJSON *req = cli_request(x->op), *resp;
    bool ok = req != NULL;
    if (ok && x->npos >= 2 && strcmp(x->name, "adjudicate") != 0 &&
        strcmp(x->name, "abort-tournament") != 0)
        ok = cJSON_AddStringToObject(req, "username", a->pos[1]) != NULL;
    if (ok && strcmp(x->name, "adjudicate") == 0)
        ok = cli_pos_id(c, a, 1, _("GAME"), &id) == 0 &&
             cJSON_AddNumberToObject(req, "game", (double)id) &&
             cJSON_AddStringToObject(req, "result", a->pos[2]);
    if (ok && strcmp(x->name, "abort-tournament") == 0)
        ok = cli_pos_id(c, a, 1, _("ID"), &id) == 0 &&
             cJSON_AddNumberToObject(req, "tournament", (double)id);
    if (ok && reason)
        ok = cJSON_AddStringToObject(req, "reason", reason) != NULL;
    if (ok && args_has(a, "limit"))
        ok = cJSON_AddNumberToObject(req, "limit", (double)args_uint(a, "limit", 50)) != NULL;
    if (!ok) {
        cJSON_Delete(req);
        req = NULL; /* cli_call answers an allocation failure */
    }
    int rc = cli_call(c, req, &resp);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (cli_json(c, resp)) {
        cJSON_Delete(resp);
        return CLI_EXIT_OK;
    }
    const char *who = cli_str(cJSON_GetObjectItemCaseSensitive(resp, "user"), "username");
    if (!who)
        who = x->npos >= 2 ? a->pos[1] : "?";
    char when[32];
    if (strcmp(x->name, "ban") == 0) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(resp, "sessions_ended");
        const cJSON *ch = cJSON_GetObjectItemCaseSensitive(resp, "challenges_canceled");
        double ns = n ? n->valuedouble : 0, nc = ch ? ch->valuedouble : 0;
        char sessions[64], challenges[64];
        snprintf(sessions, sizeof sessions, P_("%.0f session ended", "%.0f sessions ended", ns),
                 ns);
        snprintf(challenges, sizeof challenges,
                 P_("%.0f challenge canceled", "%.0f challenges canceled", nc), nc);
        /* TRANSLATORS: who, the reason, "N sessions ended", "N challenges canceled". */
        fprintf(c->out, _("Banned %s: %s (%s, %s)\n"), who, reason, sessions, challenges);
    } else if (strcmp(x->name, "unban") == 0) {
        fprintf(c->out, _("Unbanned %s: they may log in again\n"), who);
    } else if (strcmp(x->name, "reset-password") == 0) {
        const cJSON *exp = cJSON_GetObjectItemCaseSensitive(resp, "expires");
        fprintf(c->out,
                _("Reset code for %s: %s\n"
                  "It works once, until %s. Give it to %s, who sets a new password with:\n"
                  "  qirkat redeem-reset %s\n"),
                who, cli_str(resp, "code"),
                utc_text(cJSON_IsNumber(exp) ? exp->valuedouble : -1, when, sizeof when), who,
                who);
    } else if (strcmp(x->name, "adjudicate") == 0) {
        const cJSON *g = cJSON_GetObjectItemCaseSensitive(resp, "game");
        fprintf(c->out, _("Game %llu adjudicated: %s (%s)\n"), (unsigned long long)id,
                render_result_text(cli_str(g, "result")), reason);
    } else if (strcmp(x->name, "abort-tournament") == 0) {
        fprintf(c->out, _("Tournament %llu ended: %s\n"), (unsigned long long)id, reason);
    } else {
        rc = print_log(c, resp);
    }
    cJSON_Delete(resp);
    return rc;
}
