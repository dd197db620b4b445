/*
 * cmd_offline: rules and perft, answered by the rules module linked into
 * the client (common/qk_rules.h) with no server. Under --json they print an
 * object of their own shape, since there is no server response to print.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "render.h"
#include "i18n.h"

#define PERFT_MAX_DEPTH 64

/* Parse a variant argument, or print a usage error listing the names. */
static int parse_variant(cli *c, const char *name, qk_variant *v)
{
    if (qk_variant_parse(name, v) == QK_OK)
        return CLI_EXIT_OK;
    cli_usage_error(c, _("unknown variant '%s'"), name);
    cmd_print_variants(c->err);
    return CLI_EXIT_USAGE;
}

void cmd_print_variants(FILE *out)
{
    fputs(_("variants:"), out);
    for (size_t i = 0; qk_variant_list(i); i++)
        fprintf(out, " %s", qk_variant_list(i));
    fputs(_("\n(alquerkonane-RxC: any board from 2x2 to 12x12, e.g. alquerkonane-5x5)\n"), out);
}

/* Print a cJSON object on one line to out; frees it. */
static int print_own_json(cli *c, cJSON *obj)
{
    char *s = obj ? cJSON_PrintUnformatted(obj) : NULL;
    cJSON_Delete(obj);
    if (!s)
        return cli_fail(c, CLI_EXIT_SERVER, _("out of memory"));
    fprintf(c->out, "%s\n", s);
    free(s);
    return CLI_EXIT_OK;
}

int cmd_rules(cli *c, const cmd_args *a)
{
    if (a->npos == 0) { /* which variants there are */
        if (!c->json) {
            cmd_print_variants(c->out);
            fputs(_("qirkat rules VARIANT: the rules of one\n"), c->out);
            return CLI_EXIT_OK;
        }
        cJSON *o = cJSON_CreateObject(), *list = o ? cJSON_AddArrayToObject(o, "variants") : NULL;
        for (size_t i = 0; list && qk_variant_list(i); i++)
            cJSON_AddItemToArray(list, cJSON_CreateString(qk_variant_list(i)));
        return print_own_json(c, list ? o : (cJSON_Delete(o), NULL));
    }
    qk_variant v;
    int rc = parse_variant(c, a->pos[0], &v);
    if (rc != CLI_EXIT_OK)
        return rc;
    qk_pos start;
    qk_variant_start(&v, &start);
    char fen[QK_POS_STRLEN];
    if (qk_pos_format(&v, &start, fen, sizeof fen) < 0)
        return cli_fail(c, CLI_EXIT_SERVER, _("cannot format the start position"));
    const char *summary = qk_variant_summary(&v);
    if (c->json) {
        cJSON *o = cJSON_CreateObject();
        if (o && (!cJSON_AddStringToObject(o, "variant", v.name) ||
                  !cJSON_AddStringToObject(o, "summary", summary) ||
                  !cJSON_AddStringToObject(o, "start", fen))) {
            cJSON_Delete(o);
            o = NULL;
        }
        return print_own_json(c, o);
    }
    /* The summary names the family ("alquerkonane-RxC"); the header names
     * the exact variant. */
    char title[96];
    summary = _(summary);
    fprintf(c->out, _("Variant: %s — %s\n\n%s"), v.name,
            render_variant_name(v.name, title, sizeof title), summary);
    if (*summary && summary[strlen(summary) - 1] != '\n')
        fputc('\n', c->out);
    fprintf(c->out, _("\nStart position: %s\n\n"), fen);
    render_board(c->out, &v, &start, NULL, c->render_flags);
    return CLI_EXIT_OK;
}

int cmd_perft(cli *c, const cmd_args *a)
{
    qk_variant v;
    int rc = parse_variant(c, a->pos[0], &v);
    if (rc != CLI_EXIT_OK)
        return rc;
    uint64_t depth;
    const char *dtext = a->pos[a->npos - 1];
    if (args_parse_uint(dtext, &depth) < 0 || depth < 1 || depth > PERFT_MAX_DEPTH)
        return cli_usage_error(c, _("DEPTH must be a number 1..%d, not '%s'"), PERFT_MAX_DEPTH, dtext);

    /* The position may come quoted as one argument or, unquoted, as its
     * four blank-separated fields: join whatever lies between. */
    char text[QK_POS_STRLEN] = "";
    size_t len = 0;
    for (int i = 1; i < a->npos - 1; i++) {
        size_t n = strlen(a->pos[i]);
        if (len + n + 2 > sizeof text)
            return cli_usage_error(c, _("POSITION too long"));
        if (i > 1)
            text[len++] = ' ';
        memcpy(text + len, a->pos[i], n + 1);
        len += n;
    }
    qk_pos pos;
    if (len == 0) {
        qk_variant_start(&v, &pos);
    } else {
        const char *why = NULL;
        if (qk_pos_parse(&v, text, &pos, &why) != QK_OK)
            return cli_usage_error(c, _("bad POSITION for %s: %s"), v.name, why ? _(why) : _("malformed"));
    }
    char fen[QK_POS_STRLEN];
    if (qk_pos_format(&v, &pos, fen, sizeof fen) < 0)
        return cli_fail(c, CLI_EXIT_SERVER, _("cannot format the position"));

    cJSON *o = NULL, *list = NULL;
    if (c->json) {
        o = cJSON_CreateObject();
        if (!o || !cJSON_AddStringToObject(o, "variant", v.name) ||
            !cJSON_AddStringToObject(o, "position", fen) ||
            !(list = cJSON_AddArrayToObject(o, "perft"))) {
            cJSON_Delete(o);
            return cli_fail(c, CLI_EXIT_SERVER, _("out of memory"));
        }
    } else {
        fprintf(c->out, _("variant:  %s\nposition: %s\ndepth  nodes\n"), v.name, fen);
    }
    for (int d = 1; d <= (int)depth; d++) {
        uint64_t nodes = qk_perft(&v, &pos, d);
        if (nodes == QK_PERFT_OVERFLOW) {
            cJSON_Delete(o);
            return cli_fail(c, CLI_EXIT_USAGE, _("too many moves in one position to count"));
        }
        if (!c->json) {
            fprintf(c->out, "%5d  %llu\n", d, (unsigned long long)nodes);
            fflush(c->out); /* deep levels take a while: show progress */
            continue;
        }
        cJSON *row = cJSON_CreateObject();
        if (row && !cJSON_AddItemToArray(list, row)) {
            cJSON_Delete(row);
            row = NULL;
        }
        /* From here the row belongs to o: deleting o frees it. */
        if (!row || !cJSON_AddNumberToObject(row, "depth", d) ||
            !cJSON_AddNumberToObject(row, "nodes", (double)nodes)) {
            cJSON_Delete(o);
            return cli_fail(c, CLI_EXIT_SERVER, _("out of memory"));
        }
    }
    return c->json ? print_own_json(c, o) : CLI_EXIT_OK;
}
