/*
 * cmd_engine: hint (asks the server), analyse and solve (offline, with the
 * engine and the solver linked into the client, common/qk_engine.h and
 * common/qk_solve.h).
 *
 * analyse searches one position with level 3's limits (iterative deepening,
 * the solver first on Alquerkonane) within --ms (default 1000) or to
 * --depth plies, and prints the score from the side to move's view, the
 * best move and the principal variation, and says in words which side the
 * score favours (cmd_eval_verdict()); lines wrap between moves. Under
 * --json it prints one object of its own shape. solve is cmd_solve.c.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "qk_engine.h"
#include "qk_solve.h"
#include "render.h"
#include "i18n.h"

#define ANALYSE_DEFAULT_MS 1000

static const char *side_word(const qk_pos *p)
{
    return p->side == QK_WHITE ? _("White") : _("Black");
}

const char *cmd_eval_verdict(int score, bool white_to_move, char *buf, size_t n)
{
    const char *mover = white_to_move ? _("White") : _("Black");
    const char *other = white_to_move ? _("Black") : _("White");
    if (score >= QK_SCORE_MATE)
        snprintf(buf, n, _("%s wins with best play"), mover);
    else if (score <= -QK_SCORE_MATE)
        snprintf(buf, n, _("%s wins with best play"), other);
    else if (score > 0)
        snprintf(buf, n, _("favours %s"), mover);
    else if (score < 0)
        snprintf(buf, n, _("favours %s"), other);
    else
        snprintf(buf, n, _("even"));
    return buf;
}

/* VARIANT [POSITION...]: the variant and the position (joined from its
 * blank-separated fields, like perft; absent = the start). Returns
 * CLI_EXIT_OK or a printed usage error. */
static int variant_and_pos(cli *c, const cmd_args *a, qk_variant *v, qk_pos *p)
{
    if (qk_variant_parse(a->pos[0], v) != QK_OK)
        return cli_usage_error(c, _("unknown variant '%s'"), a->pos[0]);
    char text[QK_POS_STRLEN] = "";
    size_t len = 0;
    for (int i = 1; i < a->npos; i++) {
        size_t n = strlen(a->pos[i]);
        if (len + n + 2 > sizeof text)
            return cli_usage_error(c, _("POSITION too long"));
        if (i > 1)
            text[len++] = ' ';
        memcpy(text + len, a->pos[i], n + 1);
        len += n;
    }
    if (len == 0) {
        qk_variant_start(v, p);
        return CLI_EXIT_OK;
    }
    const char *why = NULL;
    if (qk_pos_parse(v, text, p, &why) != QK_OK)
        return cli_usage_error(c, _("bad POSITION for %s: %s"), v->name, why ? _(why) : _("malformed"));
    return CLI_EXIT_OK;
}

/* The moves of line (n of them) from p, as text, space-separated, into
 * buf; and into arr when not NULL. */
static void line_text(const qk_variant *v, const qk_pos *p, const qk_move *line, int n, char *buf,
                      size_t size, cJSON *arr)
{
    qk_pos q = *p;
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        char m[QK_MOVE_STRLEN];
        qk_undo u;
        if (qk_move_format(v, &line[i], m, sizeof m) < 0)
            break;
        int w = snprintf(buf + len, size - len, "%s%s", i ? " " : "", m);
        if (w < 0 || (size_t)w >= size - len)
            break;
        len += (size_t)w;
        if (arr)
            cJSON_AddItemToArray(arr, cJSON_CreateString(m));
        qk_pos_make(v, &q, &line[i], &u);
    }
}

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

int cmd_analyse(cli *c, const cmd_args *a)
{
    qk_variant v;
    qk_pos p;
    int rc = variant_and_pos(c, a, &v, &p);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (args_has(a, "depth") && args_has(a, "ms"))
        return cli_usage_error(c, _("give --depth or --ms, not both"));
    uint64_t depth = args_uint(a, "depth", 0), ms = args_uint(a, "ms", ANALYSE_DEFAULT_MS);
    if (args_has(a, "depth") && (depth < 1 || depth > QK_ENGINE_MAX_DEPTH))
        return cli_usage_error(c, _("--depth must be 1..%d"), QK_ENGINE_MAX_DEPTH);
    if (ms < 1 || ms > 3600000)
        return cli_usage_error(c, _("--ms must be 1..3600000"));
    qk_limits lim;
    qk_engine_level_limits(3, (uint32_t)ms, &lim);
    if (depth) {
        lim.depth = (int)depth;
        lim.time_ms = 0;
    }
    qk_engine e;
    memset(&e, 0, sizeof e);
    if (qk_engine_init(&e, 0) != QK_OK)
        return cli_fail(c, CLI_EXIT_SERVER, _("out of memory for the engine"));
    qk_search_result res;
    rc = qk_engine_search(&e, &v, &p, &lim, &res);
    qk_engine_free(&e);
    if (rc != QK_OK)
        return cli_fail(c, CLI_EXIT_SERVER, _("the engine failed (%d)"), rc);
    char fen[QK_POS_STRLEN], eval[32], best[QK_MOVE_STRLEN] = "", line[4096];
    if (qk_pos_format(&v, &p, fen, sizeof fen) < 0 ||
        qk_engine_score_format(res.score, eval, sizeof eval) < 0)
        return cli_fail(c, CLI_EXIT_SERVER, _("cannot format the result"));
    if (res.has_move)
        qk_move_format(&v, &res.best, best, sizeof best);
    cJSON *o = NULL, *arr = NULL;
    if (c->json) {
        o = cJSON_CreateObject();
        if (!o || !cJSON_AddStringToObject(o, "variant", v.name) ||
            !cJSON_AddStringToObject(o, "position", fen) ||
            !cJSON_AddStringToObject(o, "turn", p.side == QK_WHITE ? "white" : "black") ||
            !cJSON_AddNumberToObject(o, "score", res.score) ||
            !cJSON_AddStringToObject(o, "eval", eval) ||
            !(res.has_move ? cJSON_AddStringToObject(o, "best", best)
                           : cJSON_AddNullToObject(o, "best")) ||
            !(arr = cJSON_AddArrayToObject(o, "line")) ||
            !cJSON_AddNumberToObject(o, "depth", res.depth) ||
            !cJSON_AddNumberToObject(o, "nodes", (double)res.nodes) ||
            !cJSON_AddNumberToObject(o, "time_ms", res.time_ms) ||
            !cJSON_AddBoolToObject(o, "solved", res.solved)) {
            cJSON_Delete(o);
            return cli_fail(c, CLI_EXIT_SERVER, _("out of memory"));
        }
    }
    cJSON *words = arr ? NULL : cJSON_CreateArray();
    line_text(&v, &p, res.pv, res.pv_len, line, sizeof line, arr ? arr : words);
    if (o)
        return print_own_json(c, o);
    fprintf(c->out, _("variant:  %s\nposition: %s\n"), v.name, fen);
    if (!res.has_move) {
        fprintf(c->out, _("the game is over at this position\n"));
        cJSON_Delete(words);
        return CLI_EXIT_OK;
    }
    char verdict[64];
    fprintf(c->out, _("eval:     %s (%s to move): %s%s\n"), eval, side_word(&p),
            cmd_eval_verdict(res.score, p.side == QK_WHITE, verdict, sizeof verdict),
            res.solved ? _(" [solved]") : "");
    fprintf(c->out, _("best:     %s\n"), best);
    render_wrapped(c->out, _("line:    "), words, 10);
    cJSON_Delete(words);
    fprintf(c->out, _("depth %d, %llu nodes, %u ms\n"), res.depth, (unsigned long long)res.nodes,
            res.time_ms);
    return CLI_EXIT_OK;
}

/* The side to move at ply of game id, for the hint's verdict: "white",
 * "black", or NULL when the game has moved on or cannot be fetched. */
static const char *hint_side(cli *c, uint64_t id, long long ply, char *buf, size_t n)
{
    cJSON *resp = NULL;
    const char *side = NULL;
    if (cli_exchange(c, cli_game_request("game", id), &resp) == CLI_EXIT_OK && cli_is_ok(resp)) {
        const cJSON *g = cJSON_GetObjectItemCaseSensitive(resp, "game");
        const char *turn = cli_str(g, "turn");
        if (turn && cli_int(g, "ply") == ply) {
            snprintf(buf, n, "%s", turn);
            side = buf;
        }
    }
    cJSON_Delete(resp);
    return side;
}

int cmd_hint(cli *c, const cmd_args *a)
{
    uint64_t id;
    if (cli_pos_id(c, a, 0, _("GAME"), &id) < 0)
        return CLI_EXIT_USAGE;
    cJSON *resp;
    int rc = cli_call(c, cli_game_request("hint", id), &resp);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (!cli_json(c, resp)) {
        const char *mv = cli_str(resp, "move"), *eval = cli_str(resp, "eval");
        const cJSON *score = cJSON_GetObjectItemCaseSensitive(resp, "score");
        char sidebuf[8], verdict[64] = "";
        const char *side = cJSON_IsNumber(score)
                               ? hint_side(c, id, cli_int(resp, "ply"), sidebuf, sizeof sidebuf)
                               : NULL;
        if (side)
            snprintf(verdict, sizeof verdict, _("%s to move, "), side[0] == 'w' ? _("White") : _("Black"));
        if (side)
            cmd_eval_verdict(score->valueint, side[0] == 'w', verdict + strlen(verdict),
                             sizeof verdict - strlen(verdict));
        /* The solver decided (Alquerkonane): say so from the mover's side. */
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(resp, "solved")) &&
            cJSON_IsNumber(score) &&
            (score->valueint >= QK_SCORE_MATE || score->valueint <= -QK_SCORE_MATE)) {
            int sc = score->valueint, d = QK_SCORE_WIN - (sc > 0 ? sc : -sc);
            const char *word = sc > 0 ? _("winning") : _("lost with perfect play");
            if (sc == QK_SCORE_MATE || sc == -QK_SCORE_MATE)
                snprintf(verdict, sizeof verdict, "%s", word);
            else /* the mover's longest loss or fastest win (level 4, qk_engine.h) */
                snprintf(verdict, sizeof verdict,
                         P_("%s, %d ply to the end", "%s, %d plies to the end", d), word, d);
            side = "";
        }
        fprintf(c->out, _("game %llu, ply %lld: %s (%s%s%s, depth %lld)\n"), (unsigned long long)id,
                cli_int(resp, "ply"), mv ? mv : "?", eval ? eval : "?", side ? ": " : "", verdict,
                cli_int(resp, "depth"));
        const cJSON *line = cJSON_GetObjectItemCaseSensitive(resp, "line");
        if (cJSON_GetArraySize(line) > 0)
            render_wrapped(c->out, _("line:"), line, 6);
    }
    cJSON_Delete(resp);
    return CLI_EXIT_OK;
}
