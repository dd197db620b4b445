/*
 * cmd_corr: the subcommands of correspondence play (docs/protocol.md):
 * inbox (notifications, then marks them read), vacation, watch, draw,
 * abort; and cmd_format_left(), the "time left" cell of `games --mine`.
 *
 * inbox shows what the server keeps in the order a person reads it: the
 * new ones first, then those read before, each group newest first, with
 * the time of each; several "your move" notices of one game (one per
 * opponent move) are one line, the newest, with how many it stands for.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "play.h"
#include "render.h"
#include "table.h"
#include "term.h"
#include "timectl.h"
#include "i18n.h"

const char *cmd_format_left(long long ms, char *buf, size_t n)
{
    if (ms < 0)
        return "-";
    long long s = ms / 1000, d = s / 86400, h = s % 86400 / 3600, m = s % 3600 / 60;
    if (d > 0)
        snprintf(buf, n, _("%lldd %02lldh"), d, h);
    else if (h > 0)
        snprintf(buf, n, _("%lldh %02lldm"), h, m);
    else
        snprintf(buf, n, _("%lldm %02llds"), m, s % 60);
    return buf;
}

const char *cmd_decline_words(const char *reason)
{
    if (!reason || strcmp(reason, "generic") == 0)
        return NULL;
    if (strcmp(reason, "variant") == 0)
        return _("not this variant");
    if (strcmp(reason, "time_control") == 0)
        return _("not this time control");
    if (strcmp(reason, "later") == 0)
        return _("not now, maybe later");
    if (strcmp(reason, "too_fast") == 0)
        return _("too fast a time control");
    if (strcmp(reason, "too_slow") == 0)
        return _("too slow a time control");
    if (strcmp(reason, "rated") == 0)
        return _("only casual games");
    if (strcmp(reason, "casual") == 0)
        return _("only rated games");
    if (strcmp(reason, "no_bot") == 0)
        return _("no bots");
    if (strcmp(reason, "only_bot") == 0)
        return _("only bots");
    return reason;
}

/* " (deadline 2026-12-03 19:20 UTC)" for a UTC ms field, or "". */
static void deadline_words(const cJSON *n, char *buf, size_t len)
{
    buf[0] = '\0';
    long long dl = cli_int(n, "deadline");
    time_t secs = (time_t)(dl / 1000);
    struct tm tm;
    char when[64];
    if (dl >= 0 && gmtime_r(&secs, &tm) && strftime(when, sizeof when, _("%Y-%m-%d %H:%M UTC"), &tm))
        snprintf(buf, len, _(", deadline %s"), when);
}

void cmd_note_text(const cJSON *n, char *buf, size_t len)
{
    const char *kind = cli_str(n, "kind");
    const char *opp = cli_str(n, "opponent");
    long long game = cli_int(n, "game");
    char dl[96];
    if (!opp)
        opp = _("your opponent");
    if (!kind)
        kind = "?";
    if (strcmp(kind, "your_turn") == 0) {
        const char *mv = cli_str(n, "move");
        deadline_words(n, dl, sizeof dl);
        if (mv)
            snprintf(buf, len, _("game %lld: your move against %s, who played %s%s"), game, opp, mv,
                     dl);
        else
            snprintf(buf, len, _("game %lld: your move against %s, the game has started%s"), game, opp,
                     dl);
    } else if (strcmp(kind, "challenge") == 0) {
        char tc[32];
        const char *from = cli_str(n, "from"), *variant = cli_str(n, "variant");
        timectl_format(cJSON_GetObjectItemCaseSensitive(n, "time_control"), tc, sizeof tc);
        snprintf(buf, len, _("challenge %lld from %s: %s, %s (qirkat accept %lld)"),
                 cli_int(n, "challenge"), from ? from : _("someone"), variant ? variant : "alquerque",
                 tc, cli_int(n, "challenge"));
    } else if (strcmp(kind, "draw_offer") == 0) {
        snprintf(buf, len, _("game %lld: %s offers a draw (qirkat draw accept|decline %lld)"), game,
                 opp, game);
    } else if (strcmp(kind, "draw_declined") == 0) {
        snprintf(buf, len, _("game %lld: %s declined your draw offer"), game, opp);
    } else if (strcmp(kind, "game_end") == 0) {
        const char *res = cli_str(n, "result"), *why = cli_str(n, "reason");
        bool aborted = why && strcmp(why, "aborted") == 0;
        char outcome[128];
        /* color: the recipient's side (a server without it: colour words). */
        render_outcome(res, why, cli_str(n, "color"), outcome, sizeof outcome);
        if (aborted)
            snprintf(buf, len, _("game %lld against %s was aborted"), game, opp);
        else
            /* TRANSLATORS: the last %s is "you won (resignation)" and the like. */
            snprintf(buf, len, _("game %lld against %s is over: %s"), game, opp, outcome);
    } else if (strcmp(kind, "deadline_soon") == 0) {
        deadline_words(n, dl, sizeof dl);
        snprintf(buf, len, _("game %lld: less than a day left for your move against %s%s"), game, opp,
                 dl);
    } else if (strcmp(kind, "challenge_declined") == 0) {
        const char *by = cli_str(n, "by"), *msg = cli_str(n, "message");
        const char *why = cmd_decline_words(cli_str(n, "reason"));
        snprintf(buf, len, _("challenge %lld: %s declined%s%s%s%s%s%s"), cli_int(n, "challenge"),
                 by ? by : _("the player"), why ? " (" : "", why ? why : "", why ? ")" : "",
                 msg ? ": \"" : "", msg ? msg : "", msg ? "\"" : "");
    } else if (strcmp(kind, "tournament_round") == 0) {
        const char *name = cli_str(n, "name"), *color = cli_str(n, "color");
        const char *res = cli_str(n, "result");
        long long tid = cli_int(n, "tournament"), round = cli_int(n, "round");
        if (!name)
            name = _("a tournament");
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(n, "bye")))
            snprintf(buf, len, _("tournament %lld (%s), round %lld: you have the bye (1 point)"), tid,
                     name, round);
        else if (res)
            snprintf(buf, len, _("tournament %lld (%s), round %lld: against %s, decided by forfeit (%s)"),
                     tid, name, round, opp, render_result_text(res));
        else
            snprintf(buf, len, _("tournament %lld (%s), round %lld: game %lld against %s, you play %s"),
                     tid, name, round, game, opp, color ? render_word(color) : "?");
    } else if (strcmp(kind, "tournament_end") == 0) {
        const char *name = cli_str(n, "name"), *why = cli_str(n, "reason");
        double pts = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(n, "points"));
        snprintf(buf, len, /* TRANSLATORS: "%lld." is the rank (1., 2., ...), %g the points
                  * (1.5); the last %s%s a reason or nothing. */
                 P_("tournament %lld (%s) is over: you are %lld. with %g point%s%s",
                    "tournament %lld (%s) is over: you are %lld. with %g points%s%s",
                    pts == 1 ? 1 : 2),
                 cli_int(n, "tournament"), name ? name : "?", cli_int(n, "rank"), pts,
                 why ? ": " : "", why ? why : "");
    } else {
        snprintf(buf, len, _("a notification of a kind this client does not know (%s)"), kind);
    }
}

/* Order: newest first (created, then id). */
static int note_cmp(const void *pa, const void *pb)
{
    const cJSON *a = *(const cJSON *const *)pa, *b = *(const cJSON *const *)pb;
    long long ca = cli_int(a, "created"), cb = cli_int(b, "created");
    if (ca != cb)
        return ca < cb ? 1 : -1;
    long long ia = cli_int(a, "id"), ib = cli_int(b, "id");
    return ia < ib ? 1 : ia > ib ? -1 : 0;
}

static bool is_your_turn(const cJSON *n)
{
    const char *kind = cli_str(n, "kind");
    return kind && strcmp(kind, "your_turn") == 0;
}

size_t cmd_inbox_order(const cJSON *list, const cJSON **out, size_t max, int *merged)
{
    size_t n = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, list)
    {
        if (n < max && cJSON_IsObject(it))
            out[n++] = it;
    }
    qsort(out, n, sizeof *out, note_cmp);
    /* Keep the newest your_turn of each game; count what it stands for. */
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        merged[k] = 1;
        if (is_your_turn(out[i])) {
            long long g = cli_int(out[i], "game");
            size_t j = 0;
            while (j < k && !(is_your_turn(out[j]) && cli_int(out[j], "game") == g))
                j++;
            if (j < k) {
                merged[j]++;
                continue;
            }
        }
        out[k++] = out[i];
    }
    return k;
}

/* "2026-12-01 19:20 UTC" for a notification's created ms. */
static void when_text(const cJSON *n, char *buf, size_t len)
{
    long long ms = cli_int(n, "created");
    time_t secs = (time_t)(ms / 1000);
    struct tm tm;
    if (ms < 0 || !gmtime_r(&secs, &tm) || !strftime(buf, len, _("%Y-%m-%d %H:%M UTC"), &tm))
        snprintf(buf, len, "%-20s", _("(no time)"));
}

static void print_notes(cli *c, const char *head, const cJSON **notes, const int *merged, size_t n,
                        bool want_read)
{
    bool first = true;
    for (size_t i = 0; i < n; i++) {
        bool read = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(notes[i], "read"));
        if (read != want_read)
            continue;
        if (first)
            fprintf(c->out, "%s\n", head);
        first = false;
        char when[64], text[512];
        when_text(notes[i], when, sizeof when);
        cmd_note_text(notes[i], text, sizeof text);
        fprintf(c->out, "  %s  %s", when, text);
        if (merged[i] > 1)
            fprintf(c->out, P_(" (%d notice)", " (%d notices)", merged[i]), merged[i]);
        fputc('\n', c->out);
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
    size_t total = (size_t)cJSON_GetArraySize(list);
    const cJSON **notes = malloc((total + 1) * sizeof *notes);
    int *merged = malloc((total + 1) * sizeof *merged);
    if (!ids || !notes || !merged) {
        cJSON_Delete(ids);
        free(notes);
        free(merged);
        cJSON_Delete(resp);
        return cli_fail(c, CLI_EXIT_SERVER, _("out of memory"));
    }
    /* Every unread one is marked read, also those folded into a newer
     * your_turn of the same game. */
    cJSON_ArrayForEach(n, list)
    {
        if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(n, "read")))
            cJSON_AddItemToArray(ids, cJSON_CreateNumber((double)cli_int(n, "id")));
    }
    if (!cli_json(c, resp)) {
        size_t k = cmd_inbox_order(list, notes, total, merged);
        if (k == 0)
            fputs(_("No notifications\n"), c->out);
        size_t unread = 0;
        for (size_t i = 0; i < k; i++)
            unread += !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(notes[i], "read"));
        char head[64];
        snprintf(head, sizeof head, _("New (%zu):"), unread);
        print_notes(c, head, notes, merged, k, false);
        if (unread > 0 && unread < k)
            fputc('\n', c->out);
        print_notes(c, _("Read before:"), notes, merged, k, true);
    }
    free(notes);
    free(merged);
    cJSON_Delete(resp);
    if (cJSON_GetArraySize(ids) == 0 || args_has(a, "keep")) {
        cJSON_Delete(ids);
        return CLI_EXIT_OK;
    }
    req = cli_request("read");
    if (!req || !cJSON_AddItemToObject(req, "ids", ids)) {
        cJSON_Delete(ids);
        cJSON_Delete(req);
        return cli_fail(c, CLI_EXIT_SERVER, _("out of memory"));
    }
    rc = cli_call(c, req, &resp);
    cJSON_Delete(resp);
    return rc;
}

int cmd_vacation(cli *c, const cmd_args *a)
{
    const char *action = a->pos[0];
    if (strcmp(action, "on") && strcmp(action, "off") && strcmp(action, "status"))
        return cli_usage_error(c, _("on, off or status, not \"%s\""), action);
    if (args_has(a, "hours") && strcmp(action, "on") != 0)
        return cli_usage_error(c, _("--hours goes with on"));
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
            strftime(when, sizeof when, _(" until %Y-%m-%d %H:%M UTC"), &tm);
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "on")))
            fprintf(c->out, _("On vacation%s; %lld hours of allowance left this year\n"), when,
                    cli_int(v, "left_h"));
        else
            fprintf(c->out, _("Not on vacation; %lld hours of allowance left this year\n"),
                    cli_int(v, "left_h"));
    }
    cJSON_Delete(resp);
    return CLI_EXIT_OK;
}

int cmd_watch(cli *c, const cmd_args *a)
{
    uint64_t id;
    if (cli_pos_id(c, a, 0, _("GAME"), &id) < 0)
        return CLI_EXIT_USAGE;
    /* play_run watches a game you do not play (subscribing, and again
     * after each reconnect); in your own game it is `play`. */
    return play_run(c, id, args_has(a, "flip") ? PLAY_FLIP : 0);
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
        fprintf(c->out, _("Game %llu: %s\n"), (unsigned long long)id, done);
    cJSON_Delete(resp);
    return CLI_EXIT_OK;
}

int cmd_draw(cli *c, const cmd_args *a)
{
    const char *action = a->pos[0];
    uint64_t id;
    if (strcmp(action, "offer") && strcmp(action, "accept") && strcmp(action, "decline"))
        return cli_usage_error(c, _("offer, accept or decline, not \"%s\""), action);
    if (cli_pos_id(c, a, 1, _("GAME"), &id) < 0)
        return CLI_EXIT_USAGE;
    const char *done = strcmp(action, "offer") == 0    ? _("draw offered")
                       : strcmp(action, "accept") == 0 ? _("drawn by agreement")
                                                       : _("draw offer declined");
    return game_action(c, "draw", action, id, done);
}

int cmd_abort(cli *c, const cmd_args *a)
{
    uint64_t id;
    if (cli_pos_id(c, a, 0, _("GAME"), &id) < 0)
        return CLI_EXIT_USAGE;
    /* Like resign: a person at a terminal is asked; scripts and --yes not. */
    int in_fd = fileno(c->in);
    if (!args_has(a, "yes") && in_fd >= 0 && isatty(in_fd)) {
        fprintf(c->err, _("Abort game %llu? [y/N] "), (unsigned long long)id);
        fflush(c->err);
        char answer[16];
        if (term_read_line(c->in, answer, sizeof answer) != TERM_OK ||
            !cli_is_yes(answer)) {
            fputs(_("Not aborted\n"), c->out);
            return CLI_EXIT_OK;
        }
    }
    return game_action(c, "abort", NULL, id, _("aborted"));
}
