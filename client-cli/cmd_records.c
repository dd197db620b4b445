/*
 * cmd_records: `qirkat export`, `qirkat import`, `qirkat search` (the
 * server's `export`, `import` and `games` search filters, docs/protocol.md)
 * and the server half of `qirkat replay GAME` (records_fetch()).
 *
 * export pages through `next` until the server says null, writing each
 * page as it comes: the client, like the server, holds one page at a
 * time. import reads the file (at most 1 MiB, PROTOCOL.md), checks every
 * record here first with qk_pdn_read() (so a bad file is refused before
 * anything is sent, naming the game and line), and then sends the records
 * in batches that fit the server's 64 KiB request line: each batch is one
 * `import`, all or nothing. A file that fits one batch is imported all or
 * nothing; a bigger one could only fail half-way on a server error, since
 * every record was checked before the first batch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "qk_pdn.h"
#include "replay.h"
#include "table.h"
#include "i18n.h"
#include "render.h"

/* Raw PDN bytes per import batch: JSON escaping at most doubles them
 * (newlines and quotes), and the request line must stay under 64 KiB. */
#define IMPORT_BATCH_BYTES (24u * 1024)

/* --since/--until: YYYY-MM-DD (UTC; --until means the end of that day) or
 * UTC ms. -1 for bad text. */
static int64_t parse_date(const char *s, bool end_of_day)
{
    int y, m, d;
    char tail;
    if (sscanf(s, "%d-%d-%d%c", &y, &m, &d, &tail) == 3 && y >= 1970 && m >= 1 && m <= 12 &&
        d >= 1 && d <= 31) {
        /* days from civil (Howard Hinnant's algorithm), no time zone */
        y -= m <= 2;
        int64_t era = y / 400, yoe = y - era * 400;
        int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
        int64_t days = era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
        return days * 86400000 + (end_of_day ? 86400000 - 1 : 0);
    }
    char *e;
    unsigned long long v = strtoull(s, &e, 10);
    return *s && !*e ? (int64_t)v : -1;
}

/* The filters of export and search from a's options into req. */
static int add_filters(cli *c, const cmd_args *a, cJSON *req)
{
    static const char *const strs[] = {"user", "opponent", "variant", "result", "status"};
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
        const char *v = args_get(a, strs[i]);
        if (v && !cJSON_AddStringToObject(req, strs[i], v))
            return cli_fail(c, CLI_EXIT_SERVER, _("out of memory"));
    }
    static const char *const dates[] = {"since", "until"};
    for (int i = 0; i < 2; i++) {
        const char *v = args_get(a, dates[i]);
        if (!v)
            continue;
        int64_t ms = parse_date(v, i == 1);
        if (ms < 0)
            return cli_usage_error(c, _("--%s: YYYY-MM-DD or UTC milliseconds, not '%s'"), dates[i],
                                   v);
        if (!cJSON_AddNumberToObject(req, dates[i], (double)ms))
            return cli_fail(c, CLI_EXIT_SERVER, _("out of memory"));
    }
    if (args_has(a, "imported") && !cJSON_AddTrueToObject(req, "imported"))
        return cli_fail(c, CLI_EXIT_SERVER, _("out of memory"));
    return CLI_EXIT_OK;
}

int cmd_export(cli *c, const cmd_args *a)
{
    uint64_t game = 0;
    if (a->npos == 1 && cli_pos_id(c, a, 0, _("GAME"), &game) < 0)
        return CLI_EXIT_USAGE;
    return cmd_export_games(c, a, game, 0);
}

int cmd_export_games(cli *c, const cmd_args *a, uint64_t game, uint64_t tournament)
{
    const char *path = args_get(a, "output");
    FILE *out = path ? fopen(path, "w") : c->out;
    if (!out)
        return cli_fail(c, CLI_EXIT_USAGE, _("cannot write '%s'"), path);
    int rc = CLI_EXIT_OK;
    long long after = 0, n = 0;
    do {
        cJSON *req = cli_request("export"), *resp;
        if (!req)
            return cli_fail(c, CLI_EXIT_SERVER, _("out of memory"));
        if ((game && !cJSON_AddNumberToObject(req, "game", (double)game)) ||
            (tournament && !cJSON_AddNumberToObject(req, "tournament", (double)tournament)) ||
            (c->json && !cJSON_AddStringToObject(req, "format", "json")) ||
            (after && !cJSON_AddNumberToObject(req, "after", (double)after))) {
            cJSON_Delete(req);
            rc = cli_fail(c, CLI_EXIT_SERVER, _("out of memory"));
            break;
        }
        if ((rc = add_filters(c, a, req)) != CLI_EXIT_OK) {
            cJSON_Delete(req);
            break;
        }
        if ((rc = cli_call(c, req, &resp)) != CLI_EXIT_OK)
            break;
        const cJSON *it, *next = cJSON_GetObjectItemCaseSensitive(resp, "next");
        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(resp, "records"))
        {
            if (cJSON_IsString(it)) {
                fputs(it->valuestring, out);
            } else {
                char *s = cJSON_PrintUnformatted(it);
                if (s)
                    fprintf(out, "%s\n", s);
                free(s);
            }
            n++;
        }
        after = cJSON_IsNumber(next) ? (long long)next->valuedouble : 0;
        cJSON_Delete(resp);
    } while (after > 0);
    if (path) {
        if (fclose(out) != 0 && rc == CLI_EXIT_OK)
            rc = cli_fail(c, CLI_EXIT_USAGE, _("cannot write '%s'"), path);
        else if (rc == CLI_EXIT_OK)
            fprintf(c->err, P_("%lld game written to %s\n", "%lld games written to %s\n", n), n,
                    path);
    }
    return rc;
}

/* Send recs[from..to) as one import; print the ids. */
static int import_batch(cli *c, const qk_pdn_record *recs, size_t from, size_t to, size_t *count)
{
    size_t cap = 1, len = 0;
    char *text = malloc(cap);
    if (!text)
        return cli_fail(c, CLI_EXIT_SERVER, _("out of memory"));
    text[0] = '\0';
    for (size_t i = from; i < to; i++) {
        char *one;
        size_t n;
        if (qk_pdn_write(&recs[i], &one, &n) != QK_PDN_OK) {
            free(text);
            return cli_fail(c, CLI_EXIT_SERVER, _("out of memory"));
        }
        char *t = realloc(text, cap + n);
        if (!t) {
            free(one);
            free(text);
            return cli_fail(c, CLI_EXIT_SERVER, _("out of memory"));
        }
        text = t;
        memcpy(text + len, one, n + 1);
        len += n;
        cap += n;
        free(one);
    }
    cJSON *req = cli_request("import"), *resp;
    if (req && !cJSON_AddStringToObject(req, "pdn", text)) {
        cJSON_Delete(req);
        req = NULL;
    }
    free(text);
    int rc = cli_call(c, req, &resp);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (!cli_json(c, resp)) {
        const cJSON *id;
        cJSON_ArrayForEach(id, cJSON_GetObjectItemCaseSensitive(resp, "games"))
        {
            fprintf(c->out, _("Imported game %zu as game %.0f\n"), *count + 1, id->valuedouble);
            (*count)++;
        }
    }
    cJSON_Delete(resp);
    return CLI_EXIT_OK;
}

int cmd_import(cli *c, const cmd_args *a)
{
    const char *path = a->pos[0];
    size_t len = 0;
    char *text = records_read_file(path, &len);
    if (!text)
        return cli_usage_error(c, _("cannot read '%s'"), path);
    qk_pdn_record *recs;
    size_t n;
    qk_pdn_error err;
    char ebuf[QK_PDN_MSGLEN * 2];
    int prc = qk_pdn_read(text, len, &recs, &n, &err);
    free(text);
    if (prc != QK_PDN_OK)
        return cli_fail(c, CLI_EXIT_SERVER, _("%s: game %zu of the file: %s"), path, err.record + 1,
                        render_pdn_error(&err, ebuf, sizeof ebuf));
    int rc = CLI_EXIT_OK;
    size_t from = 0, bytes = 0, count = 0;
    for (size_t i = 0; i <= n && rc == CLI_EXIT_OK; i++) {
        size_t one = 0;
        if (i < n) {
            char *s;
            if (qk_pdn_write(&recs[i], &s, &one) != QK_PDN_OK) {
                rc = cli_fail(c, CLI_EXIT_SERVER, _("out of memory"));
                break;
            }
            free(s);
        }
        if (i > from && (i == n || bytes + one > IMPORT_BATCH_BYTES)) {
            rc = import_batch(c, recs, from, i, &count);
            from = i;
            bytes = 0;
        }
        bytes += one;
    }
    qk_pdn_free_all(recs, n);
    return rc;
}

static void date_text(double ms, char *buf, size_t n)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    if (!gmtime_r(&t, &tm) || strftime(buf, n, "%Y-%m-%d", &tm) == 0)
        snprintf(buf, n, "?");
}

int cmd_search(cli *c, const cmd_args *a)
{
    cJSON *req = cli_request("games"), *resp;
    if (!req)
        return cli_fail(c, CLI_EXIT_SERVER, _("out of memory"));
    int rc = add_filters(c, a, req);
    if (rc == CLI_EXIT_OK &&
        ((args_has(a, "limit") &&
          !cJSON_AddNumberToObject(req, "limit", (double)args_uint(a, "limit", 0))) ||
         (args_has(a, "after") &&
          !cJSON_AddNumberToObject(req, "after", (double)args_uint(a, "after", 0)))))
        rc = cli_fail(c, CLI_EXIT_SERVER, _("out of memory"));
    if (rc != CLI_EXIT_OK) {
        cJSON_Delete(req);
        return rc;
    }
    if ((rc = cli_call(c, req, &resp)) != CLI_EXIT_OK)
        return rc;
    if (cli_json(c, resp))
        goto out;
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(resp, "games"), *g;
    if (cJSON_GetArraySize(list) == 0) {
        fputs(_("No games\n"), c->out);
        goto out;
    }
    static const char *const heads[] = {N_("GAME"),    N_("DATE"),   N_("WHITE"),  N_("BLACK"),
                                        N_("VARIANT"), N_("RESULT"), N_("REASON"), N_("PLY")};
    table t;
    if (table_init(&t, 8, heads) < 0) {
        rc = cli_fail(c, CLI_EXIT_SERVER, _("out of memory"));
        goto out;
    }
    cJSON_ArrayForEach(g, list)
    {
        char id[40], ply[32], date[32];
        const cJSON *created = cJSON_GetObjectItemCaseSensitive(g, "created");
        snprintf(id, sizeof id, "%lld%s", cli_int(g, "id"),
                 cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(g, "imported")) ? _(" (imported)")
                                                                               : "");
        snprintf(ply, sizeof ply, "%lld", cli_int(g, "ply"));
        date_text(cJSON_IsNumber(created) ? created->valuedouble : 0, date, sizeof date);
        const char *res = cli_str(g, "result"), *why = cli_str(g, "reason");
        const char *cells[] = {id,
                               date,
                               cli_str(g, "white") ? cli_str(g, "white") : "?",
                               cli_str(g, "black") ? cli_str(g, "black") : "?",
                               cli_str(g, "variant") ? cli_str(g, "variant") : "?",
                               res                    ? res
                               : cli_str(g, "status") ? cli_str(g, "status")
                                                      : "-",
                               why ? why : "-",
                               ply};
        if (table_add(&t, cells) < 0) {
            rc = cli_fail(c, CLI_EXIT_SERVER, _("out of memory"));
            break;
        }
    }
    table_print(&t, c->out);
    table_free(&t);
    const cJSON *next = cJSON_GetObjectItemCaseSensitive(resp, "next");
    if (cJSON_IsNumber(next))
        fprintf(c->out, _("More: add --after %.0f\n"), next->valuedouble);
out:
    cJSON_Delete(resp);
    return rc;
}

int records_fetch(cli *c, uint64_t game, char **text, size_t *len)
{
    int rc = cli_connect_login(c);
    if (rc != CLI_EXIT_OK)
        return rc;
    cJSON *req = cli_game_request("export", game), *resp;
    if ((rc = cli_call(c, req, &resp)) != CLI_EXIT_OK)
        return rc;
    const cJSON *rec = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(resp, "records"), 0);
    *text = cJSON_IsString(rec) ? strdup(rec->valuestring) : NULL;
    cJSON_Delete(resp);
    if (!*text)
        return cli_fail(c, CLI_EXIT_SERVER, _("the server sent no record for game %llu"),
                        (unsigned long long)game);
    *len = strlen(*text);
    return CLI_EXIT_OK;
}
