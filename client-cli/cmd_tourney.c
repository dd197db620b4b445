/*
 * cmd_tourney: `qirkat class ACTION ...` and `qirkat tournament ACTION
 * ...` (docs/protocol.md "Classes and tournaments"). Each action is one
 * request; the answer is printed in words (or as it came under --json).
 * The first positional argument is the action, so one table row per
 * command keeps `qirkat help` short.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "timectl.h"
#include "i18n.h"
#include "render.h"

/* ---- class -------------------------------------------------------------- */

static void print_class(cli *c, const cJSON *cl)
{
    char code[32];
    fprintf(c->out, _("Class %lld: %s (teacher %s), join code %s\n"), cli_int(cl, "id"),
            cli_str(cl, "name") ? cli_str(cl, "name") : "?",
            cli_str(cl, "teacher") ? cli_str(cl, "teacher") : "?",
            render_join_code(cli_str(cl, "code"), code, sizeof code));
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(cl, "students"), *s;
    cJSON_ArrayForEach(s, st)
    {
        fprintf(c->out, "  %-20s %s%s\n", cli_str(s, "username") ? cli_str(s, "username") : "?",
                cli_str(s, "name") ? cli_str(s, "name") : "",
                cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s, "bot")) ? _(" (bot)") : "");
    }
}

/* The file line of each student read_students() listed, so the server's
 * "students[K]: ..." names the line the teacher wrote. */
#define STUDENTS_MAX 512

/* Read FILE: one student a line, "username" or "username,display name";
 * blank lines and lines starting with # are skipped; lines[k] is the file
 * line (from 1) of student k, for the first STUDENTS_MAX. NULL (printed)
 * on error. */
static cJSON *read_students(cli *c, const char *path, int *lines)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    if (!f) {
        cli_usage_error(c, _("cannot read %s: %s"), path, strerror(errno));
        return NULL;
    }
    cJSON *list = cJSON_CreateArray();
    char line[256];
    int n = 0;
    while (list && fgets(line, sizeof line, f)) {
        n++;
        line[strcspn(line, "\r\n")] = '\0';
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p || *p == '#')
            continue;
        char *comma = strchr(p, ',');
        const char *name = "";
        if (comma) {
            *comma = '\0';
            name = comma + 1;
            while (*name == ' ')
                name++;
        }
        char *end = p + strlen(p);
        while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
            *--end = '\0';
        int k = cJSON_GetArraySize(list);
        if (k < STUDENTS_MAX)
            lines[k] = n;
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddItemToArray(list, o) || !cJSON_AddStringToObject(o, "username", p) ||
            !cJSON_AddStringToObject(o, "name", name)) {
            if (o && cJSON_GetArraySize(list) == 0)
                cJSON_Delete(o);
            cJSON_Delete(list);
            list = NULL;
        }
    }
    if (f != stdin)
        fclose(f);
    if (list && cJSON_GetArraySize(list) == 0) {
        cJSON_Delete(list);
        cli_usage_error(c, _("%s lists no students"), path);
        return NULL;
    }
    return list;
}

static bool add_id(cJSON *req, const char *key, cli *c, const cmd_args *a, int i, const char *what)
{
    uint64_t id;
    if (!req || cli_pos_id(c, a, i, what, &id) < 0)
        return false;
    return cJSON_AddNumberToObject(req, key, (double)id) != NULL;
}

/* A refusal of class_add_students that names a student ("students[3]:
 * that username is taken"): said with FILE's line and the username, then
 * the server's words. False when resp names none (cli_report() then). */
static bool report_student(cli *c, const cJSON *resp, const char *path, const int *lines,
                           const cJSON *list)
{
    const char *msg = cli_str(resp, "message");
    int k, off = 0;
    if (c->json || !msg || sscanf(msg, "students[%d]: %n", &k, &off) != 1 || off == 0 || k < 0 ||
        k >= STUDENTS_MAX || k >= cJSON_GetArraySize(list))
        return false;
    const char *code = cli_error_code(resp);
    snprintf(c->last_error, sizeof c->last_error, "%s", code);
    const char *sentence = cli_error_sentence(code);
    /* TRANSLATORS: FILE, its line, the username on it, the error's
     * sentence, the server's words (English). */
    fprintf(c->err, _("%s, line %d (%s): %s: %s\n"), path, lines[k],
            cli_str(cJSON_GetArrayItem(list, k), "username"),
            sentence ? sentence : code, msg + off);
    fputs(_("No account was made.\n"), c->err);
    return true;
}

int cmd_class(cli *c, const cmd_args *a)
{
    const char *act = a->pos[0];
    cJSON *req = NULL, *resp, *list = NULL; /* list: add-students' copy of the students */
    int lines[STUDENTS_MAX];
    int want = strcmp(act, "create") == 0 || strcmp(act, "join") == 0                   ? 2
               : strcmp(act, "add-students") == 0 || strcmp(act, "reset-password") == 0 ? 3
               : strcmp(act, "show") == 0                                               ? -1
                                                                                        : 0;
    if (want == 0)
        return cli_usage_error(c, _("class create|join|add-students|reset-password|show, not \"%s\""),
                               act);
    /* The join code may come as two words: class join abcd 2345. */
    if (strcmp(act, "join") == 0 && a->npos == 3)
        want = 3;
    if (want > 0 && a->npos != want)
        return cli_usage_error(c, P_("class %s takes %d argument", "class %s takes %d arguments", want - 1),
                               act, want - 1);
    if (strcmp(act, "create") == 0) {
        req = cli_request("class_create");
        if (req && !cJSON_AddStringToObject(req, "name", a->pos[1]))
            goto oom;
    } else if (strcmp(act, "join") == 0) {
        char code[9];
        if (render_join_code_parse((const char *const *)a->pos + 1, a->npos - 1, code) != 0)
            return cli_usage_error(c, _("a join code is 8 letters and digits, like ABCD 2345 (case, "
                                        "spaces and dashes do not matter), not \"%s%s%s\""),
                                   a->pos[1], a->npos > 2 ? " " : "", a->npos > 2 ? a->pos[2] : "");
        req = cli_request("class_join");
        if (req && !cJSON_AddStringToObject(req, "code", code))
            goto oom;
    } else if (strcmp(act, "add-students") == 0) {
        req = cli_request("class_add_students");
        if (!add_id(req, "class", c, a, 1, "CLASS")) {
            cJSON_Delete(req);
            return CLI_EXIT_USAGE;
        }
        list = read_students(c, a->pos[2], lines);
        if (!list) {
            cJSON_Delete(req);
            return CLI_EXIT_USAGE;
        }
        if (!cJSON_AddItemToObject(req, "students", list)) {
            cJSON_Delete(list);
            list = NULL;
            goto oom;
        }
        /* From here the list belongs to req, and stays readable until it
         * is sent (cli_exchange consumes req): keep a copy for the
         * report. */
        list = cJSON_Duplicate(list, true);
        if (!list)
            goto oom;
    } else if (strcmp(act, "reset-password") == 0) {
        req = cli_request("class_reset_password");
        if (!add_id(req, "class", c, a, 1, "CLASS")) {
            cJSON_Delete(req);
            return CLI_EXIT_USAGE;
        }
        if (!cJSON_AddStringToObject(req, "username", a->pos[2]))
            goto oom;
    } else if (a->npos == 1) {
        req = cli_request("classes");
    } else {
        req = cli_request("class");
        if (!add_id(req, "class", c, a, 1, "CLASS")) {
            cJSON_Delete(req);
            return CLI_EXIT_USAGE;
        }
    }
    int rc = cli_exchange(c, req, &resp);
    if (rc != CLI_EXIT_OK) {
        cJSON_Delete(list);
        return rc;
    }
    if (!cli_is_ok(resp)) {
        if (!(list && report_student(c, resp, a->pos[2], lines, list)))
            cli_report(c, resp);
        cJSON_Delete(list);
        cJSON_Delete(resp);
        return CLI_EXIT_SERVER;
    }
    cJSON_Delete(list);
    if (!cli_json(c, resp)) {
        const cJSON *cl = cJSON_GetObjectItemCaseSensitive(resp, "class"), *x;
        if (cl && strcmp(act, "join") == 0)
            fprintf(c->out, _("Joined %s (class %lld, teacher %s)\n"),
                    cli_str(cl, "name") ? cli_str(cl, "name") : "?", cli_int(cl, "id"),
                    cli_str(cl, "teacher") ? cli_str(cl, "teacher") : "?");
        else if (cl)
            print_class(c, cl);
        cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(resp, "classes")) print_class(c, x);
        if (cli_str(resp, "password"))
            fprintf(c->out, _("New password of %s: %s (shown once)\n"), a->pos[2],
                    cli_str(resp, "password"));
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(resp, "students");
        if (st && !cl) {
            fprintf(c->out, _("Accounts made (passwords shown once):\n"));
            cJSON_ArrayForEach(x, st) fprintf(c->out, "  %-20s %-14s %s\n", cli_str(x, "username"),
                                              cli_str(x, "password"), cli_str(x, "name"));
        }
    }
    cJSON_Delete(resp);
    return CLI_EXIT_OK;
oom:
    cJSON_Delete(list);
    cJSON_Delete(req);
    return cli_call(c, NULL, &resp);
}

/* ---- tournament --------------------------------------------------------- */

static void print_tourney(cli *c, const cJSON *t, bool full)
{
    const char *status = cli_str(t, "status");
    long long round = cli_int(t, "current_round"), total = cli_int(t, "rounds_total");
    if (round <= 0 && (!status || strcmp(status, "open") == 0)) {
        /* Before the start there is no "round 0 of 0": a Swiss knows its
         * rounds, a round robin only when it starts. */
        char rounds[64] = "";
        if (total > 0)
            snprintf(rounds, sizeof rounds, P_(", %lld round", ", %lld rounds", total), total);
        fprintf(c->out, _("Tournament %lld: %s, %s %s, not started%s (organiser %s)\n"),
                cli_int(t, "id"), cli_str(t, "name"), render_word(cli_str(t, "system")),
                cli_str(t, "variant"), rounds, cli_str(t, "organiser"));
    } else {
        fprintf(c->out, _("Tournament %lld: %s, %s %s, %s, round %lld of %lld (organiser %s)\n"),
                cli_int(t, "id"), cli_str(t, "name"), render_word(cli_str(t, "system")),
                cli_str(t, "variant"), render_word(status), round, total, cli_str(t, "organiser"));
    }
    if (cli_str(t, "end_reason"))
        fprintf(c->out, _("Ended: %s\n"), cli_str(t, "end_reason"));
    const cJSON *x;
    fprintf(c->out, _("Players:"));
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(t, "players"))
        fprintf(c->out, " %s", cJSON_IsString(x) ? x->valuestring : "?");
    fprintf(c->out, "\n");
    if (!full)
        return;
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(t, "rounds"))
    {
        fprintf(c->out, _("Round %lld\n"), cli_int(x, "round"));
        const cJSON *p;
        if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(x, "pairings")) > 0)
            /* TRANSLATORS: the pairings' column heads, at most 16, 16 and
             * 6 characters; then the game's id follows on each row. */
            fprintf(c->out, "  %-16s %-16s %s\n", _("WHITE"), _("BLACK"), _("RESULT"));
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(x, "pairings"))
        {
            const char *res = cli_str(p, "result"), *kind = cli_str(p, "kind");
            const char *score = !res                        ? "..."
                                : strcmp(res, "white") == 0 ? "1-0"
                                : strcmp(res, "black") == 0 ? "0-1"
                                                            : "1/2";
            bool forfeit = kind && strcmp(kind, "forfeit") == 0;
            if (forfeit)
                score = !res ? "-/-" : strcmp(res, "white") == 0 ? "+/-" : "-/+";
            fprintf(c->out, "  %-16s %-16s %-6s", cli_str(p, "white"), cli_str(p, "black"), score);
            if (cli_int(p, "game") > 0)
                fprintf(c->out, _(" game %lld"), cli_int(p, "game"));
            if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "by_hand")))
                fprintf(c->out, _(" (set by hand)"));
            fprintf(c->out, "\n");
        }
        const char *bye = cli_str(x, "bye");
        if (bye)
            fprintf(c->out, _("  bye: %s\n"), bye);
    }
}

static void print_standings(cli *c, const cJSON *st)
{
    /* TRANSLATORS: the standings' column heads: at most 4, 20, 6, 6, 6, 6
     * and 4 characters. SB Sonneborn-Berger, BH Buchholz, DE direct
     * encounter, WIN wins (the tie-break legend below says them in words). */
    fprintf(c->out, "%-4s %-20s %6s %6s %6s %6s %4s\n", _("RANK"), _("PLAYER"), _("POINTS"), _("SB"),
            _("BH"), _("DE"), _("WIN"));
    const cJSON *row;
    cJSON_ArrayForEach(row, st)
    {
        const cJSON *tb = cJSON_GetObjectItemCaseSensitive(row, "tiebreaks");
        double v[4] = {0};
        const char *names[4] = {"SB", "BH", "DE", "WIN"};
        for (int i = 0; i < 4; i++) {
            const cJSON *n = cJSON_GetObjectItemCaseSensitive(tb, names[i]);
            v[i] = cJSON_IsNumber(n) ? n->valuedouble : 0;
        }
        const cJSON *pts = cJSON_GetObjectItemCaseSensitive(row, "points");
        fprintf(c->out, "%-4lld %-20s %6g %6g %6g %6g %4g%s\n", cli_int(row, "rank"),
                cli_str(row, "username"), cJSON_IsNumber(pts) ? pts->valuedouble : 0, v[0], v[1],
                v[2], v[3],
                cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(row, "withdrawn")) ? _(" (withdrawn)")
                                                                                 : "");
    }
    /* A shared first rank (points and every tie-break equal) said in words:
     * the ranks alone would read as a mistake. */
    int first = 0, rows = 0;
    cJSON_ArrayForEach(row, st)
    {
        rows++;
        if (cli_int(row, "rank") == 1)
            first++;
    }
    if (first >= 2 && first == rows)
        fprintf(c->out, P_("All %d players share first place\n", "All %d players share first place\n", first),
                first);
    else if (first >= 2)
        fprintf(c->out, P_("%d player shares first place\n", "%d players share first place\n", first),
                first);
    fprintf(c->out, _("Tie-breaks in this order: Sonneborn-Berger, Buchholz, direct encounter, "
                    "wins (FIDE C.07)\n"));
}

/* tournament create NAME: the request from the options. */
static cJSON *create_request(cli *c, const cmd_args *a)
{
    const char *sys = args_get(a, "system"), *time = args_get(a, "time"), *why = NULL;
    if (!sys || (strcmp(sys, "round_robin") && strcmp(sys, "swiss"))) {
        cli_usage_error(c, _("--system round_robin or --system swiss"));
        return NULL;
    }
    cJSON *tc = NULL;
    if (time && !(tc = timectl_parse(time, &why))) {
        cli_usage_error(c, _("bad --time '%s': %s"), time, why);
        return NULL;
    }
    cJSON *req = cli_request("tournament_create");
    bool ok = req && cJSON_AddStringToObject(req, "name", a->pos[1]) &&
              cJSON_AddStringToObject(req, "system", sys) &&
              (!args_get(a, "variant") ||
               cJSON_AddStringToObject(req, "variant", args_get(a, "variant"))) &&
              (!args_get(a, "position") ||
               cJSON_AddStringToObject(req, "position", args_get(a, "position"))) &&
              (!args_has(a, "rounds") ||
               cJSON_AddNumberToObject(req, "rounds", (double)args_uint(a, "rounds", 0))) &&
              (!args_has(a, "class") ||
               cJSON_AddNumberToObject(req, "class", (double)args_uint(a, "class", 0))) &&
              (!args_has(a, "double") || cJSON_AddTrueToObject(req, "double")) &&
              (!args_has(a, "rated") || cJSON_AddTrueToObject(req, "rated")) &&
              (!args_has(a, "bots") || cJSON_AddTrueToObject(req, "bots")) &&
              (!args_has(a, "auto") || cJSON_AddStringToObject(req, "start_mode", "auto")) &&
              (!args_get(a, "pairer") ||
               cJSON_AddStringToObject(req, "pairer", args_get(a, "pairer")));
    if (ok && tc) {
        ok = cJSON_AddItemToObject(req, "time_control", tc);
        if (ok)
            tc = NULL;
    }
    cJSON_Delete(tc);
    if (!ok) {
        cJSON_Delete(req);
        return NULL;
    }
    return req;
}

/* tournament export ID: every game of the tournament as PDN (--pdn, the
 * default; game objects under --json), or with --csv the standings as
 * CSV; to --output FILE or stdout. */
static int export_tourney(cli *c, const cmd_args *a)
{
    uint64_t tid;
    if (cli_pos_id(c, a, 1, _("TOURNAMENT"), &tid) < 0)
        return CLI_EXIT_USAGE;
    if (args_has(a, "csv") && args_has(a, "pdn"))
        return cli_usage_error(c,
                               _("tournament export: --csv (standings) or --pdn (games), not both"));
    if (!args_has(a, "csv"))
        return cmd_export_games(c, a, 0, tid);
    cJSON *req = cli_request("tournament_standings"), *resp;
    if (req && (!cJSON_AddNumberToObject(req, "tournament", (double)tid) ||
                !cJSON_AddStringToObject(req, "format", "csv"))) {
        cJSON_Delete(req);
        req = NULL;
    }
    int rc = cli_call(c, req, &resp);
    if (rc != CLI_EXIT_OK)
        return rc;
    const char *path = args_get(a, "output");
    FILE *out = path ? fopen(path, "w") : c->out;
    if (!out) {
        cJSON_Delete(resp);
        return cli_fail(c, CLI_EXIT_USAGE, _("cannot write '%s'"), path);
    }
    /* csv_lines, not csv: the client replaces control characters in what
     * the server sends, CR and LF included. */
    const cJSON *x;
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(resp, "csv_lines"))
        fprintf(out, "%s\r\n", cJSON_IsString(x) ? x->valuestring : "");
    cJSON_Delete(resp);
    if (path && fclose(out) != 0)
        return cli_fail(c, CLI_EXIT_USAGE, _("cannot write '%s'"), path);
    if (path)
        fprintf(c->err, _("standings written to %s\n"), path);
    return CLI_EXIT_OK;
}

int cmd_tournament(cli *c, const cmd_args *a)
{
    static const struct {
        const char *act, *op;
        int npos; /* with the action; -1: 1 or 2 */
    } acts[] = {
        {"create", "tournament_create", 2},
        {"join", "tournament_join", 2},
        {"withdraw", "tournament_withdraw", 2},
        {"start", "tournament_start", 2},
        {"pair", "tournament_pair", 2},
        {"show", "tournament", -1},
        {"standings", "tournament_standings", 2},
        {"result", "tournament_result", 4},
        {"export", "export", 2},
    };
    const char *act = a->pos[0];
    size_t k = 0;
    while (k < sizeof acts / sizeof acts[0] && strcmp(acts[k].act, act) != 0)
        k++;
    if (k == sizeof acts / sizeof acts[0])
        return cli_usage_error(c,
                               _("tournament create|join|start|pair|show|standings|withdraw|"
                               "result|export, not \"%s\""),
                               act);
    if (acts[k].npos > 0 && a->npos != acts[k].npos)
        return cli_usage_error(c, P_("tournament %s takes %d argument", "tournament %s takes %d arguments",
                                  acts[k].npos - 1),
                               act, acts[k].npos - 1);
    cJSON *req = NULL, *resp;
    bool csv = args_has(a, "csv");
    if (strcmp(act, "export") == 0)
        return export_tourney(c, a);
    if (strcmp(act, "create") == 0) {
        if (!(req = create_request(c, a)))
            return CLI_EXIT_USAGE;
    } else if (strcmp(act, "show") == 0 && a->npos == 1) {
        req = cli_request("tournaments");
    } else {
        req = cli_request(acts[k].op);
        if (!add_id(req, "tournament", c, a, 1, "TOURNAMENT")) {
            cJSON_Delete(req);
            return CLI_EXIT_USAGE;
        }
        bool ok = true;
        if (args_get(a, "user") && (strcmp(act, "join") == 0 || strcmp(act, "withdraw") == 0))
            ok = cJSON_AddStringToObject(req, "username", args_get(a, "user")) != NULL;
        if (strcmp(act, "standings") == 0 && csv)
            ok = cJSON_AddStringToObject(req, "format", "csv") != NULL;
        if (strcmp(act, "result") == 0) {
            const char *res = a->pos[3];
            if (strcmp(res, "white") && strcmp(res, "black") && strcmp(res, "draw")) {
                cJSON_Delete(req);
                return cli_usage_error(c, _("a result is white, black or draw, not \"%s\""), res);
            }
            if (!add_id(req, "game", c, a, 2, "GAME")) {
                cJSON_Delete(req);
                return CLI_EXIT_USAGE;
            }
            ok = cJSON_AddStringToObject(req, "result", res) != NULL;
        }
        if (!ok) {
            cJSON_Delete(req);
            req = NULL;
        }
    }
    int rc = cli_call(c, req, &resp);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (!cli_json(c, resp)) {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(resp, "tournament"), *x;
        /* csv_lines, not csv: the client replaces control characters in
         * what the server sends, CR and LF included. */
        if (csv)
            cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(resp, "csv_lines"))
                fprintf(c->out, "%s\r\n", cJSON_IsString(x) ? x->valuestring : "");
        else if (cJSON_GetObjectItemCaseSensitive(resp, "standings"))
            print_standings(c, cJSON_GetObjectItemCaseSensitive(resp, "standings"));
        if (t) {
            print_tourney(c, t, true);
            if (strcmp(cli_str(t, "status") ? cli_str(t, "status") : "", "open") != 0)
                print_standings(c, cJSON_GetObjectItemCaseSensitive(t, "standings"));
        }
        cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(resp, "tournaments"))
            print_tourney(c, x, false);
    }
    cJSON_Delete(resp);
    return CLI_EXIT_OK;
}
