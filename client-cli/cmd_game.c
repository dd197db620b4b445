/*
 * cmd_game: games, show, move, resign (PROTOCOL.md "Core ops").
 *
 * `move` without --ply first asks for the game to learn its current ply.
 * That is race-free by the protocol's design: if the opponent moved in
 * between, the server answers stale_ply rather than misplacing the move,
 * and a resend of a move that did land answers ok with "duplicate": true,
 * so running the same command twice never plays twice.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cmd.h"
#include "play.h"
#include "render.h"
#include "table.h"
#include "term.h"
#include "timectl.h"
#include "i18n.h"

/* Fetch game id. On CLI_EXIT_OK *game_resp is the ok response (caller
 * frees); errors are reported. */
static int fetch_game(cli *c, uint64_t id, cJSON **game_resp)
{
    return cli_call(c, cli_game_request("game", id), game_resp);
}

/* The STATUS cell: "active", "white wins", "draw", "aborted". */
static const char *status_cell(const cJSON *g, char *buf, size_t n)
{
    const char *status = cli_str(g, "status"), *result = cli_str(g, "result");
    if (!status || strcmp(status, "finished") != 0 || !result)
        return render_word(status);
    (void)buf;
    (void)n;
    return strcmp(result, "draw") == 0    ? _("draw")
           : strcmp(result, "white") == 0 ? _("white wins")
           : strcmp(result, "black") == 0 ? _("black wins")
                                          : result;
}

/* "4:55" or "1:02:03" for a live clock's ms. */
static void clock_cell(long long ms, char *buf, size_t n)
{
    long long sec = ms < 0 ? 0 : ms / 1000;
    if (sec >= 3600)
        snprintf(buf, n, "%lld:%02lld:%02lld", sec / 3600, sec % 3600 / 60, sec % 60);
    else
        snprintf(buf, n, "%lld:%02lld", sec / 60, sec % 60);
}

/* The time left of both sides of game g for `games --mine`, into mine and
 * opp (size n each): a live game's two clocks as the server reported them;
 * in a correspondence game the time to the deadline of the side to move,
 * "-" for the side waiting (its clock does not run); "-" without a clock. */
static void time_cells(const cJSON *g, bool white_me, char *mine, char *opp, size_t n)
{
    snprintf(mine, n, "-");
    snprintf(opp, n, "-");
    render_clock clk;
    if (render_clock_read(g, 0, &clk)) {
        clock_cell(white_me ? clk.white_ms : clk.black_ms, mine, n);
        clock_cell(white_me ? clk.black_ms : clk.white_ms, opp, n);
        return;
    }
    const char *status = cli_str(g, "status"), *turn = cli_str(g, "turn");
    long long left = cli_int(g, "time_left_ms");
    if (!status || strcmp(status, "active") != 0 || !turn || left < 0)
        return;
    bool my_move = strcmp(turn, white_me ? "white" : "black") == 0;
    char buf[32];
    snprintf(my_move ? mine : opp, n, "%s", cmd_format_left(left, buf, sizeof buf));
}

/* " (1500)": a rated game's rating at the start (issue 12), else "". */
static const char *rating_tag(const cJSON *g, const char *name, char *buf, size_t n)
{
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(g, name);
    buf[0] = '\0';
    if (cJSON_IsNumber(r))
        snprintf(buf, n, " (%.0f)", r->valuedouble);
    return buf;
}

int cmd_games(cli *c, const cmd_args *a)
{
    bool my_turn = args_has(a, "my-turn"), mine = my_turn || args_has(a, "mine");
    if (mine && !c->logged_in && c->other_server) {
        cli_not_logged_in(c);
        return CLI_EXIT_SERVER;
    }
    if (mine && !c->logged_in) {
        fputs(_("Not logged in: --mine and --my-turn need a login (qirkat login USER)\n"), c->err);
        return CLI_EXIT_SERVER;
    }
    const char *me = cli_me(c);
    cJSON *req = cli_request("games");
    const char *status = args_get(a, "status"), *variant = args_get(a, "variant");
    bool ok = req != NULL;
    if (ok && mine)
        ok = cJSON_AddStringToObject(req, "user", me) != NULL;
    if (ok && my_turn)
        ok = cJSON_AddStringToObject(req, "turn", "mine") != NULL;
    if (ok && status)
        ok = cJSON_AddStringToObject(req, "status", status) != NULL;
    if (ok && variant)
        ok = cJSON_AddStringToObject(req, "variant", variant) != NULL;
    if (ok && args_has(a, "limit"))
        ok = cJSON_AddNumberToObject(req, "limit", (double)args_uint(a, "limit", 0)) != NULL;
    if (!ok) {
        cJSON_Delete(req);
        req = NULL;
    }
    cJSON *resp;
    int rc = cli_call(c, req, &resp);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (cli_json(c, resp))
        goto out;
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(resp, "games");
    if (cJSON_GetArraySize(list) == 0) {
        fputs(_("No games\n"), c->out);
        goto out;
    }
    static const char *const mine_heads[] = {N_("GAME"), N_("OPPONENT"), N_("COLOR"), N_("VARIANT"),  N_("TIME"),
                                             N_("TURN"), N_("STATUS"),   N_("PLY"),   N_("YOU LEFT"), N_("OPP LEFT")};
    static const char *const all_heads[] = {N_("GAME"), N_("WHITE"),  N_("BLACK"), N_("VARIANT"),
                                            N_("TURN"), N_("STATUS"), N_("PLY")};
    table t;
    if (table_init(&t, mine ? 10 : 7, mine ? mine_heads : all_heads) < 0) {
        rc = cli_fail(c, CLI_EXIT_SERVER, _("out of memory"));
        goto out;
    }
    const cJSON *g;
    cJSON_ArrayForEach(g, list)
    {
        char id[32], ply[32], st[32], wbuf[160], bbuf[160], tc[32], mine_left[32], opp_left[32];
        char wr[32], br[32];
        snprintf(id, sizeof id, "%lld", cli_int(g, "id"));
        snprintf(ply, sizeof ply, "%lld", cli_int(g, "ply"));
        const char *white = cli_str(g, "white"), *black = cli_str(g, "black");
        /* The names as shown: "(bot)" after bot accounts. */
        snprintf(wbuf, sizeof wbuf, "%s%s%s", white ? white : "?",
                 cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(g, "white_bot")) ? _(" (bot)") : "",
                 rating_tag(g, "white_rating", wr, sizeof wr));
        snprintf(bbuf, sizeof bbuf, "%s%s%s", black ? black : "?",
                 cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(g, "black_bot")) ? _(" (bot)") : "",
                 rating_tag(g, "black_rating", br, sizeof br));
        const char *turn = cli_str(g, "turn"), *gstatus = cli_str(g, "status");
        bool active = gstatus && strcmp(gstatus, "active") == 0;
        const char *row[10];
        row[0] = id;
        if (mine) {
            bool white_me = white && strcmp(white, me) == 0;
            const char *opp = white_me ? bbuf : wbuf;
            const char *opp_name = white_me ? black : white;
            const char *my_color = white_me ? "white" : "black";
            row[1] = opp;
            row[2] = render_word(my_color);
            row[4] =
                timectl_format(cJSON_GetObjectItemCaseSensitive(g, "time_control"), tc, sizeof tc);
            /* Whose turn, in the viewer's terms. */
            row[5] = !active || !turn ? "-" : strcmp(turn, my_color) == 0 ? _("you") : opp_name;
            time_cells(g, white_me, mine_left, opp_left, sizeof mine_left);
            row[8] = mine_left;
            row[9] = opp_left;
            row[3] = cli_str(g, "variant");
            row[6] = status_cell(g, st, sizeof st);
            row[7] = ply;
        } else {
            row[1] = wbuf;
            row[2] = bbuf;
            row[3] = cli_str(g, "variant");
            row[4] = active ? turn : "-";
            row[5] = status_cell(g, st, sizeof st);
            row[6] = ply;
        }
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

int cmd_show(cli *c, const cmd_args *a)
{
    uint64_t id;
    if (cli_pos_id(c, a, 0, _("GAME"), &id) < 0)
        return CLI_EXIT_USAGE;
    cJSON *resp;
    int rc = fetch_game(c, id, &resp);
    if (rc != CLI_EXIT_OK)
        return rc;
    const cJSON *game = cJSON_GetObjectItemCaseSensitive(resp, "game");
    if (!cli_json(c, resp))
        render_game(c->out, game, cli_me(c),
                    c->render_flags | RENDER_LEGEND |
                        render_view_flags(game, cli_me(c), args_has(a, "flip")));
    cJSON_Delete(resp);
    return CLI_EXIT_OK;
}

/* After an illegal_move answer: list what is legal (a fresh snapshot, since
 * the one we had, if any, may be stale by now). Best effort. */
static void print_legal_moves(cli *c, uint64_t id)
{
    cJSON *req = cli_game_request("game", id), *resp = NULL;
    if (cli_exchange(c, req, &resp) == CLI_EXIT_OK && cli_is_ok(resp)) {
        const cJSON *game = cJSON_GetObjectItemCaseSensitive(resp, "game");
        const cJSON *legal = cJSON_GetObjectItemCaseSensitive(game, "legal_moves");
        if (cJSON_IsArray(legal))
            render_move_list(c->err, _("Legal moves"), legal);
    }
    cJSON_Delete(resp);
}

int cmd_move(cli *c, const cmd_args *a)
{
    uint64_t id, ply;
    if (cli_pos_id(c, a, 0, _("GAME"), &id) < 0)
        return CLI_EXIT_USAGE;
    /* Point names are lowercase (RULES.md): "B2-C3 " is b2-c3. */
    char move[256];
    play_normalize_move(a->pos[1], move, sizeof move);
    int rc;
    if (args_has(a, "ply")) {
        ply = args_uint(a, "ply", 0);
    } else {
        cJSON *g;
        rc = fetch_game(c, id, &g);
        if (rc != CLI_EXIT_OK)
            return rc;
        long long p = cli_int(cJSON_GetObjectItemCaseSensitive(g, "game"), "ply");
        cJSON_Delete(g);
        if (p < 0)
            return cli_fail(c, CLI_EXIT_SERVER, _("the server's game %llu has no ply"),
                            (unsigned long long)id);
        ply = (uint64_t)p;
    }

    cJSON *req = cli_game_request("move", id), *resp;
    if (req && (!cJSON_AddNumberToObject(req, "ply", (double)ply) ||
                !cJSON_AddStringToObject(req, "move", move))) {
        cJSON_Delete(req);
        req = NULL;
    }
    rc = cli_exchange(c, req, &resp);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (!cli_is_ok(resp)) {
        rc = cli_report(c, resp);
        const char *code = cli_error_code(resp);
        if (strcmp(code, "illegal_move") == 0)
            print_legal_moves(c, id);
        else if (strcmp(code, "stale_ply") == 0 && cli_int(resp, "ply") >= 0)
            fprintf(c->err, _("The game is at ply %lld now: qirkat show %llu\n"), cli_int(resp, "ply"),
                    (unsigned long long)id);
        cJSON_Delete(resp);
        return rc;
    }
    if (!cli_json(c, resp)) {
        const cJSON *dup = cJSON_GetObjectItemCaseSensitive(resp, "duplicate");
        if (cJSON_IsTrue(dup))
            fprintf(c->out, _("%s was already played at ply %llu; nothing changed\n"), move,
                    (unsigned long long)ply);
        else {
            const cJSON *game = cJSON_GetObjectItemCaseSensitive(resp, "game");
            render_game(c->out, game, cli_me(c),
                        c->render_flags | render_view_flags(game, cli_me(c), false));
        }
    }
    cJSON_Delete(resp);
    return CLI_EXIT_OK;
}

int cmd_resign(cli *c, const cmd_args *a)
{
    uint64_t id;
    if (cli_pos_id(c, a, 0, _("GAME"), &id) < 0)
        return CLI_EXIT_USAGE;
    cJSON *resp;
    int rc;
    /* A person at a terminal is asked; scripts (stdin not a terminal) and
     * --yes are not. */
    int in_fd = fileno(c->in);
    if (!args_has(a, "yes") && in_fd >= 0 && isatty(in_fd)) {
        rc = fetch_game(c, id, &resp);
        if (rc != CLI_EXIT_OK)
            return rc;
        const cJSON *g = cJSON_GetObjectItemCaseSensitive(resp, "game");
        const char *w = cli_str(g, "white"), *b = cli_str(g, "black"), *me = cli_me(c);
        const char *opp = me && w && strcmp(w, me) == 0 ? b : w;
        fprintf(c->err, _("Resign game %llu against %s? [y/N] "), (unsigned long long)id,
                opp ? opp : "?");
        fflush(c->err);
        cJSON_Delete(resp);
        char answer[16];
        if (term_read_line(c->in, answer, sizeof answer) != TERM_OK ||
            !cli_is_yes(answer)) {
            fputs(_("Not resigned\n"), c->out);
            return CLI_EXIT_OK;
        }
    }
    rc = cli_call(c, cli_game_request("resign", id), &resp);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (!cli_json(c, resp)) {
        const cJSON *game = cJSON_GetObjectItemCaseSensitive(resp, "game");
        const char *res = cli_str(game, "result"), *me = cli_me(c);
        const char *w = cli_str(game, "white"), *b = cli_str(game, "black");
        /* The one who resigned lost: their side is the other one of the
         * result, whoever the session names. */
        const char *mine = me && w && strcmp(w, me) == 0   ? "white"
                           : me && b && strcmp(b, me) == 0 ? "black"
                           : res && strcmp(res, "white") == 0 ? "black"
                           : res && strcmp(res, "black") == 0 ? "white"
                                                              : NULL;
        char outcome[128];
        render_outcome(res, cli_str(game, "reason"), mine, outcome, sizeof outcome);
        /* TRANSLATORS: %s is "you lost (resignation)". */
        fprintf(c->out, _("Resigned game %llu: %s\n"), (unsigned long long)id, outcome);
    }
    cJSON_Delete(resp);
    return CLI_EXIT_OK;
}
