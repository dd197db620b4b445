/*
 * cmd_challenge: challenge, challenges, accept, decline, cancel
 * (PROTOCOL.md "Core ops"). Arguments the client can judge alone (colour,
 * time control, variant names, with the rules module the server uses too)
 * are checked before connecting and are usage errors; everything else
 * (positions, ids) is the server's call, so the client never disagrees
 * with it.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <strings.h>

#include "cmd.h"
#include "render.h"
#include "table.h"
#include "timectl.h"
#include "i18n.h"

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

/* "alice" or "alice (bot)" when the object says so (field name_bot),
 * then " (1500)" in a rated challenge (field_rating, issue 12). */
static const char *user_cell(const cJSON *obj, const char *field, char *buf, size_t n)
{
    const char *name = cli_str(obj, field);
    char key[32], rating[32] = "";
    snprintf(key, sizeof key, "%s_rating", field);
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (cJSON_IsNumber(r))
        snprintf(rating, sizeof rating, " (%.0f)", r->valuedouble);
    snprintf(key, sizeof key, "%s_bot", field);
    if (!name)
        return NULL;
    snprintf(buf, n, "%s%s%s", name,
             cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(obj, key)) ? _(" (bot)") : "", rating);
    return buf;
}

static const char *rated_word(const cJSON *ch)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ch, "rated")) ? _("rated") : _("unrated");
}

static void print_challenge(cli *c, const cJSON *ch)
{
    char id[32], tc[64], from[160], to[160];
    const char *variant = cli_str(ch, "variant"), *color = cli_str(ch, "color");
    const char *f = user_cell(ch, "from", from, sizeof from),
               *t = user_cell(ch, "to", to, sizeof to);
    fprintf(c->out, _("Challenge %s: %s -> %s, %s, challenger plays %s, %s, %s\n"),
            id_text(ch, "id", id, sizeof id), f ? f : "?", t ? t : _("anyone"),
            variant ? variant : "?", color ? render_word(color) : "?",
            timectl_format(cJSON_GetObjectItemCaseSensitive(ch, "time_control"), tc, sizeof tc),
            rated_word(ch));
    const char *pos = cli_str(ch, "position");
    if (pos)
        fprintf(c->out, _("Position: %s\n"), pos);
    const cJSON *lo = cJSON_GetObjectItemCaseSensitive(ch, "rating_min");
    const cJSON *hi = cJSON_GetObjectItemCaseSensitive(ch, "rating_max");
    if (cJSON_IsNumber(lo) || cJSON_IsNumber(hi)) {
        char l[32], h[32];
        snprintf(l, sizeof l, "%s", _("any"));
        snprintf(h, sizeof h, "%s", _("any"));
        if (cJSON_IsNumber(lo))
            snprintf(l, sizeof l, "%.0f", lo->valuedouble);
        if (cJSON_IsNumber(hi))
            snprintf(h, sizeof h, "%.0f", hi->valuedouble);
        fprintf(c->out, _("Rating range: %s-%s\n"), l, h);
    }
}

/* Whether user is a bot account (the `users` op); false when unknown. */
static bool is_bot(cli *c, const char *user)
{
    cJSON *req = cli_request("users"), *resp = NULL;
    if (req && !cJSON_AddStringToObject(req, "username", user)) {
        cJSON_Delete(req);
        req = NULL;
    }
    bool bot = false;
    if (cli_exchange(c, req, &resp) == CLI_EXIT_OK && cli_is_ok(resp)) {
        const cJSON *u;
        cJSON_ArrayForEach(u, cJSON_GetObjectItemCaseSensitive(resp, "users"))
        {
            const char *name = cli_str(u, "username");
            if (name && strcasecmp(name, user) == 0)
                bot = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(u, "bot"));
        }
    }
    cJSON_Delete(resp);
    return bot;
}

/* Computer opponents answer at once: wait up to CHALLENGE_WAIT_MS for
 * the game_start (or the decline) of challenge id to user, and say so. */
#define CHALLENGE_WAIT_MS 2000
static void await_answer(cli *c, const char *user, long long id)
{
    int64_t end = net_now_ms() + CHALLENGE_WAIT_MS;
    for (;;) {
        cJSON *ev;
        while ((ev = net_next_event(&c->conn))) {
            const char *name = cli_str(ev, "event");
            const cJSON *g = cJSON_GetObjectItemCaseSensitive(ev, "game");
            const cJSON *ch = cJSON_GetObjectItemCaseSensitive(ev, "challenge");
            const char *w = cli_str(g, "white"), *b = cli_str(g, "black");
            bool done = false;
            if (name && strcmp(name, "game_start") == 0 &&
                ((w && strcasecmp(w, user) == 0) || (b && strcasecmp(b, user) == 0))) {
                fprintf(c->out, _("%s accepted: game %lld (qirkat play %lld)\n"), user,
                        cli_int(g, "id"), cli_int(g, "id"));
                done = true;
            } else if (name && strcmp(name, "challenge_declined") == 0 && cli_int(ch, "id") == id) {
                const char *why = cmd_decline_words(cli_str(ch, "reason"));
                const char *msg = cli_str(ch, "message");
                fprintf(c->out, _("%s declined%s%s%s%s%s%s\n"), user, why ? " (" : "", why ? why : "",
                        why ? ")" : "", msg ? ": \"" : "", msg ? msg : "", msg ? "\"" : "");
                done = true;
            }
            cJSON_Delete(ev);
            if (done)
                return;
        }
        int64_t left = end - net_now_ms();
        if (left <= 0)
            return;
        struct pollfd pfd = {.fd = net_fd(&c->conn), .events = POLLIN};
        int n = poll(&pfd, 1, (int)left);
        if (n < 0 && errno != EINTR)
            return;
        if (n > 0 && net_pump(&c->conn) != NET_OK)
            return;
    }
}

int cmd_check_challenge(cli *c, const cmd_args *a)
{
    /* The rules linked into the client know the variants as well as the
     * server: a typo is a usage error before any connection. */
    const char *variant = args_get(a, "variant");
    qk_variant v;
    if (variant && qk_variant_parse(variant, &v) != QK_OK) {
        cli_usage_error(c, _("unknown variant '%s'"), variant);
        cmd_print_variants(c->err);
        return CLI_EXIT_USAGE;
    }
    const char *color = args_get(a, "color");
    if (color && strcmp(color, "white") != 0 && strcmp(color, "black") != 0 &&
        strcmp(color, "random") != 0)
        return cli_usage_error(c, _("--color must be white, black or random, not '%s'"), color);
    const char *time = args_get(a, "time");
    if (time) {
        const char *why;
        cJSON *tc = timectl_parse(time, &why);
        if (!tc)
            return cli_usage_error(c, _("bad --time '%s': %s"), time, why);
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
    if (ok && args_has(a, "rating-min"))
        ok = cJSON_AddNumberToObject(req, "rating_min", (double)args_uint(a, "rating-min", 0));
    if (ok && args_has(a, "rating-max"))
        ok = cJSON_AddNumberToObject(req, "rating_max", (double)args_uint(a, "rating-max", 0));
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
    if (!cli_json(c, resp)) {
        const cJSON *ch = cJSON_GetObjectItemCaseSensitive(resp, "challenge");
        print_challenge(c, ch);
        fflush(c->out);
        if (a->npos > 0 && is_bot(c, a->pos[0]))
            await_answer(c, a->pos[0], cli_int(ch, "id"));
    }
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
        fputs(_("No open challenges\n"), c->out);
        goto out;
    }
    /* The colour is the challenger's, as in the challenge object. */
    static const char *const heads[] = {N_("ID"),         N_("FROM"), N_("TO"),   N_("VARIANT"),
                                        N_("FROM PLAYS"), N_("TIME"), N_("RATED")};
    table t;
    if (table_init(&t, 7, heads) < 0) {
        rc = cli_fail(c, CLI_EXIT_SERVER, _("out of memory"));
        goto out;
    }
    const cJSON *ch;
    cJSON_ArrayForEach(ch, list)
    {
        char id[32], tc[64], from[160], tobuf[160];
        const char *to = user_cell(ch, "to", tobuf, sizeof tobuf);
        const char *row[] = {
            id_text(ch, "id", id, sizeof id),
            user_cell(ch, "from", from, sizeof from),
            to ? to : _("(open)"),
            cli_str(ch, "variant"),
            cli_str(ch, "color"),
            timectl_format(cJSON_GetObjectItemCaseSensitive(ch, "time_control"), tc, sizeof tc),
            cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ch, "rated")) ? _("rated") : "-"};
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

/* accept / decline / cancel: {"type": op, "challenge": ID}. */
static int challenge_op(cli *c, const cmd_args *a, const char *op, cJSON **resp)
{
    uint64_t id;
    if (cli_pos_id(c, a, 0, _("the challenge ID"), &id) < 0)
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
        render_game(c->out, game, cli_me(c),
                    c->render_flags | render_view_flags(game, cli_me(c), false));
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
        fprintf(c->out, _("Declined challenge %s\n"), a->pos[0]);
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
        fprintf(c->out, _("Canceled challenge %s\n"), a->pos[0]);
    cJSON_Delete(resp);
    return CLI_EXIT_OK;
}
