/*
 * cmd_bot: `qirkat bot`, a bot account played by the engine (qk_engine.h).
 *
 * Design. One connection, one thread, no state on disk: everything the bot
 * needs comes back from the server on every login (PROTOCOL.md: the login
 * result lists the open challenges and the active games), so a restart, a
 * lost connection and a server restart are the same case: connect, log in
 * with the stored token, rebuild the list of games from the result, answer
 * the open challenges, play every game where it is the bot's turn. Then the
 * bot waits for events (poll on the socket with a timeout) and keeps the
 * games' positions from the `move` events; anything it cannot follow (an
 * event for a ply it did not expect, a move refused as stale_ply or
 * not_your_turn) is answered by fetching the game again. A move is sent
 * with its ply, so a resend after a reconnect is harmless (`duplicate`).
 *
 * Searches run synchronously, one game at a time, each within --move-ms;
 * events that arrive meanwhile wait in the socket. The engine context
 * (tables) is allocated once and kept for the bot's life.
 *
 * Challenges addressed to the bot are accepted when they match the filters
 * (--variants, --time-controls) and the bot has fewer than --max-games
 * active games; otherwise declined with the protocol's reason word:
 * `variant`, `time_control` or `later`. Open seeks are left to people.
 *
 * Reconnection: on any connection error the bot closes the socket and
 * tries again after a delay that doubles from 250 ms up to 8 s, and is
 * reset by a successful login. A refused token (unauthenticated) ends the
 * bot with status 1: retrying cannot help.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "bridge.h"
#include "cmd.h"
#include "qk_engine.h"
#include "qk_proto.h"
#include "i18n.h"

#define BOT_MAX_VARIANTS 32
#define BOT_BACKOFF_MIN_MS 250
#define BOT_BACKOFF_MAX_MS 8000
#define BOT_POLL_MS 1000
#define BOT_PING_MS 20000
#define BOT_DEFAULT_MOVE_MS 1000
#define BOT_MAX_MOVE_MS 600000
#define BOT_MAX_FAILS 5 /* move refusals in a row before a game is left alone */

enum { TC_UNLIMITED = 1, TC_CORR = 2, TC_LIVE = 4, TC_ALL = 7 };

typedef struct bot_game {
    int64_t id;
    qk_variant v;
    char position[QK_POS_STRLEN];
    int64_t ply;
    bool white; /* the bot plays White */
    char turn[8];
    int fails;
    int64_t clock_ms[2]; /* live: White's, Black's time left (ms) as last seen; -1 none */
} bot_game;

typedef struct bot {
    cli *c;
    int level;
    uint32_t move_ms;
    uint64_t max_games; /* 0 = no limit */
    char variants[BOT_MAX_VARIANTS][QK_VARIANT_NAMELEN];
    int nvariants; /* 0 = every variant */
    unsigned tcs;  /* TC_* mask */
    qk_engine eng;
    bot_game *games;
    size_t ngames, cap;
    int64_t last_traffic;
    const char *engine_cmd; /* --engine: NULL = the built-in engine only */
    bridge br;              /* the external engine (bridge.h), when engine_cmd */
} bot;

/* ---- options ------------------------------------------------------------ */

/* Parse the options into b (engine and games untouched). Returns
 * CLI_EXIT_OK or a printed usage error. */
static int bot_options(cli *c, const cmd_args *a, bot *b)
{
    if (!args_has(a, "level"))
        return cli_usage_error(c, _("--level 1, 2, 3 or 4 is required"));
    uint64_t level = args_uint(a, "level", 0);
    if (level < 1 || level > 4)
        return cli_usage_error(c, _("--level must be 1, 2, 3 or 4 (perfect)"));
    b->level = (int)level;
    uint64_t ms = args_uint(a, "move-ms", BOT_DEFAULT_MOVE_MS);
    if (ms < 1 || ms > BOT_MAX_MOVE_MS)
        return cli_usage_error(c, _("--move-ms must be 1..%d"), BOT_MAX_MOVE_MS);
    b->move_ms = (uint32_t)ms;
    b->max_games = args_uint(a, "max-games", 0);
    b->engine_cmd = args_get(a, "engine");
    if (b->engine_cmd && !b->engine_cmd[0])
        return cli_usage_error(c, _("--engine needs a command"));
    char buf[1024];
    const char *list = args_get(a, "variants");
    b->nvariants = 0;
    if (list) {
        snprintf(buf, sizeof buf, "%s", list);
        char *save = NULL;
        for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            qk_variant v;
            const char *name = t;
            /* "alquerkonane" alone: every board of the family. */
            if (strcmp(t, "alquerkonane") != 0) {
                if (qk_variant_parse(t, &v) != QK_OK)
                    return cli_usage_error(c, _("unknown variant '%s' in --variants"), t);
                name = v.name;
            }
            if (b->nvariants == BOT_MAX_VARIANTS)
                return cli_usage_error(c, _("at most %d --variants"), BOT_MAX_VARIANTS);
            snprintf(b->variants[b->nvariants++], QK_VARIANT_NAMELEN, "%s", name);
        }
        if (b->nvariants == 0)
            return cli_usage_error(c, _("--variants needs at least one name"));
    }
    list = args_get(a, "time-controls");
    b->tcs = list ? 0 : TC_ALL;
    if (list) {
        snprintf(buf, sizeof buf, "%s", list);
        char *save = NULL;
        for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            if (strcmp(t, "unlimited") == 0)
                b->tcs |= TC_UNLIMITED;
            else if (strcmp(t, "correspondence") == 0)
                b->tcs |= TC_CORR;
            else if (strcmp(t, "live") == 0)
                b->tcs |= TC_LIVE;
            else
                return cli_usage_error(c,
                                       _("--time-controls takes unlimited, correspondence, "
                                       "live; not '%s'"),
                                       t);
        }
        if (!b->tcs)
            return cli_usage_error(c, _("--time-controls needs at least one kind"));
    }
    return CLI_EXIT_OK;
}

int cmd_check_bot(cli *c, const cmd_args *a)
{
    bot b;
    memset(&b, 0, sizeof b);
    return bot_options(c, a, &b);
}

/* ---- logging ------------------------------------------------------------ */

static void bot_log(bot *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bot_log(bot *b, const char *fmt, ...)
{
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%H:%M:%S", &tm);
    fprintf(b->c->out, _("%s bot %s: "), stamp, b->c->sess.username);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(b->c->out, fmt, ap);
    va_end(ap);
    fputc('\n', b->c->out);
    fflush(b->c->out);
}

/* ---- games -------------------------------------------------------------- */

static bot_game *game_find(bot *b, int64_t id)
{
    for (size_t i = 0; i < b->ngames; i++)
        if (b->games[i].id == id)
            return &b->games[i];
    return NULL;
}

static void game_drop(bot *b, int64_t id)
{
    bot_game *g = game_find(b, id);
    if (g)
        *g = b->games[--b->ngames];
}

static void clock_update(bot_game *g, const cJSON *clock);

/* Take in a game object (from login, accept, game, move): add, update, or
 * drop it when it is no longer active or not the bot's. */
static void game_update(bot *b, const cJSON *gj)
{
    long long id = cli_int(gj, "id"), ply = cli_int(gj, "ply");
    const char *variant = cli_str(gj, "variant"), *pos = cli_str(gj, "position");
    const char *status = cli_str(gj, "status"), *turn = cli_str(gj, "turn");
    const char *white = cli_str(gj, "white"), *black = cli_str(gj, "black");
    const char *me = b->c->sess.username;
    if (id <= 0 || ply < 0 || !variant || !pos || !status || !turn || !white || !black)
        return;
    bool is_white = strcasecmp(white, me) == 0;
    if (strcmp(status, "active") != 0 || (!is_white && strcasecmp(black, me) != 0)) {
        game_drop(b, id);
        return;
    }
    bot_game *g = game_find(b, id);
    if (!g) {
        if (b->ngames == b->cap) {
            size_t cap = b->cap ? b->cap * 2 : 16;
            bot_game *n = realloc(b->games, cap * sizeof *n);
            if (!n)
                return;
            b->games = n;
            b->cap = cap;
        }
        g = &b->games[b->ngames++];
        memset(g, 0, sizeof *g);
        g->id = id;
        g->clock_ms[0] = g->clock_ms[1] = -1;
        if (qk_variant_parse(variant, &g->v) != QK_OK) {
            b->ngames--;
            return;
        }
    } else if (ply < g->ply) {
        return; /* older news than what we have */
    }
    g->white = is_white;
    g->ply = ply;
    clock_update(g, cJSON_GetObjectItemCaseSensitive(gj, "clock"));
    snprintf(g->position, sizeof g->position, "%s", pos);
    snprintf(g->turn, sizeof g->turn, "%s", turn);
}

/* Take both clocks from a `clock` object: {"white", "black"} (issue 10's
 * one shape) or {"white_ms", "black_ms"} (older servers). Absent: kept. */
static void clock_update(bot_game *g, const cJSON *clock)
{
    static const char *const keys[2][2] = {{"white", "black"}, {"white_ms", "black_ms"}};
    for (int k = 0; k < 2; k++) {
        const cJSON *w = cJSON_GetObjectItemCaseSensitive(clock, keys[k][0]);
        const cJSON *bl = cJSON_GetObjectItemCaseSensitive(clock, keys[k][1]);
        if (cJSON_IsNumber(w) && cJSON_IsNumber(bl)) {
            g->clock_ms[0] = (int64_t)w->valuedouble;
            g->clock_ms[1] = (int64_t)bl->valuedouble;
            return;
        }
    }
}

static bool my_turn(const bot_game *g)
{
    return strcmp(g->turn, g->white ? "white" : "black") == 0;
}

/* ---- requests ----------------------------------------------------------- */

/* Send req (consumed) and wait for the answer: 0 with *resp (ok or
 * error, caller frees), or -1 when the connection is unusable. */
static int bot_rpc(bot *b, cJSON *req, cJSON **resp)
{
    int rc = cli_exchange(b->c, req, resp);
    if (rc != CLI_EXIT_OK) {
        net_close(&b->c->conn);
        return -1;
    }
    b->last_traffic = net_now_ms();
    return 0;
}

/* Fetch one game again. 0, or -1 when the connection is unusable. */
static int game_refetch(bot *b, int64_t id)
{
    cJSON *resp;
    if (bot_rpc(b, cli_game_request("game", (uint64_t)id), &resp) < 0)
        return -1;
    if (cli_is_ok(resp))
        game_update(b, cJSON_GetObjectItemCaseSensitive(resp, "game"));
    else
        game_drop(b, id);
    cJSON_Delete(resp);
    return 0;
}

/* Why the bot refuses challenge ch, or NULL to accept. */
static const char *decline_reason(bot *b, const cJSON *ch)
{
    const char *variant = cli_str(ch, "variant");
    if (!variant)
        return "generic";
    if (b->nvariants) {
        bool ok = false;
        for (int i = 0; i < b->nvariants && !ok; i++)
            ok = strcmp(variant, b->variants[i]) == 0 ||
                 (strcmp(b->variants[i], "alquerkonane") == 0 &&
                  strncmp(variant, "alquerkonane-", 13) == 0);
        if (!ok)
            return "variant";
    }
    const char *kind = cli_str(cJSON_GetObjectItemCaseSensitive(ch, "time_control"), "kind");
    unsigned k = !kind                                 ? 0
                 : strcmp(kind, "unlimited") == 0      ? TC_UNLIMITED
                 : strcmp(kind, "correspondence") == 0 ? TC_CORR
                 : strcmp(kind, "live") == 0           ? TC_LIVE
                                                       : 0;
    if (!(k & b->tcs))
        return "time_control";
    if (b->max_games && b->ngames >= b->max_games)
        return "later";
    return NULL;
}

/* Answer one open challenge addressed to the bot. 0, or -1 when the
 * connection is unusable. */
static int handle_challenge(bot *b, const cJSON *ch)
{
    const char *status = cli_str(ch, "status"), *to = cli_str(ch, "to");
    const char *from = cli_str(ch, "from");
    long long id = cli_int(ch, "id");
    const char *me = b->c->sess.username;
    if (id <= 0 || !status || strcmp(status, "open") != 0 || !to || strcasecmp(to, me) != 0 ||
        (from && strcasecmp(from, me) == 0))
        return 0;
    const char *why = decline_reason(b, ch);
    cJSON *req = cli_request(why ? "decline" : "accept"), *resp;
    if (req && (!cJSON_AddNumberToObject(req, "challenge", (double)id) ||
                (why && !cJSON_AddStringToObject(req, "reason", why)))) {
        cJSON_Delete(req);
        req = NULL;
    }
    if (bot_rpc(b, req, &resp) < 0)
        return -1;
    if (cli_is_ok(resp)) {
        const cJSON *g = cJSON_GetObjectItemCaseSensitive(resp, "game");
        if (why) {
            bot_log(b, _("declined challenge %lld from %s (%s)"), id, from ? from : "?", why);
        } else {
            bot_log(b, _("accepted challenge %lld from %s: game %lld"), id, from ? from : "?",
                    cli_int(g, "id"));
            game_update(b, g);
        }
    } else {
        /* Taken back, or answered by another connection of the bot. */
        bot_log(b, _("challenge %lld: %s"), id, cli_error_code(resp));
    }
    cJSON_Delete(resp);
    return 0;
}

/* Search g's position and send the move. 0, or -1 when the connection is
 * unusable. */
static int play_one(bot *b, bot_game *g)
{
    qk_pos p;
    const char *why = NULL;
    int64_t id = g->id;
    if (qk_pos_parse(&g->v, g->position, &p, &why) != QK_OK) {
        bot_log(b, _("game %lld: cannot read the position (%s)"), (long long)id, why ? _(why) : "?");
        game_drop(b, id);
        return 0;
    }
    qk_limits lim;
    qk_search_result res;
    char text[QK_MOVE_STRLEN], eval[32];
    memset(&res, 0, sizeof res);
    bool external = false;
    if (b->engine_cmd) {
        /* The external engine first; on its timeout, death or an illegal
         * answer the built-in engine plays this move (bridge.h). */
        char ewhy[128];
        int me = g->white ? 0 : 1;
        int br = bridge_ask(&b->br, &g->v, &p, g->position, g->clock_ms[me], g->clock_ms[1 - me],
                            b->move_ms, text, sizeof text, ewhy, sizeof ewhy);
        if (br == BRIDGE_OK)
            external = true;
        else
            bot_log(b, _("game %lld ply %lld: engine: %s; the built-in engine moves"), (long long)id,
                    (long long)g->ply, ewhy);
    }
    if (!external) {
        qk_engine_level_limits(b->level, b->move_ms, &lim);
        if (qk_engine_search(&b->eng, &g->v, &p, &lim, &res) != QK_OK || !res.has_move) {
            game_drop(b, id); /* over, or beyond the engine: the server decides */
            return 0;
        }
        if (qk_move_format(&g->v, &res.best, text, sizeof text) < 0 ||
            qk_engine_score_format(res.score, eval, sizeof eval) < 0) {
            game_drop(b, id);
            return 0;
        }
    }
    cJSON *req = cli_game_request("move", (uint64_t)id), *resp;
    if (req && (!cJSON_AddNumberToObject(req, "ply", (double)g->ply) ||
                !cJSON_AddStringToObject(req, "move", text))) {
        cJSON_Delete(req);
        req = NULL;
    }
    int64_t ply = g->ply;
    if (bot_rpc(b, req, &resp) < 0)
        return -1;
    g = game_find(b, id); /* the list may have changed */
    if (cli_is_ok(resp)) {
        const char *dup =
            cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(resp, "duplicate")) ? _(" duplicate") : "";
        if (external)
            bot_log(b, _("game %lld ply %lld: %s (engine, %d restarts)%s"), (long long)id,
                    (long long)ply, text, b->br.restarts, dup);
        else
            bot_log(b, _("game %lld ply %lld: %s (%s, depth %d, %llu nodes, %u ms)%s"), (long long)id,
                    (long long)ply, text, eval, res.depth, (unsigned long long)res.nodes,
                    res.time_ms, dup);
        game_update(b, cJSON_GetObjectItemCaseSensitive(resp, "game"));
        cJSON_Delete(resp);
        g = game_find(b, id);
        /* An answer that does not move the game on (no game object in it)
         * must not make the bot resend forever. */
        if (g && g->ply == ply && ++g->fails >= BOT_MAX_FAILS)
            game_drop(b, id);
        else if (g && g->ply != ply)
            g->fails = 0;
        return 0;
    }
    const char *code = cli_error_code(resp);
    bot_log(b, _("game %lld ply %lld: %s refused: %s"), (long long)id, (long long)ply, text, code);
    bool over = strcmp(code, "game_over") == 0 || strcmp(code, "forbidden") == 0 ||
                strcmp(code, "not_found") == 0;
    cJSON_Delete(resp);
    if (over || (g && ++g->fails >= BOT_MAX_FAILS)) {
        game_drop(b, id);
        return 0;
    }
    /* stale_ply, not_your_turn, illegal_move, rate limits: look again. */
    return game_refetch(b, id);
}

/* Play every game where it is the bot's turn, until none is. */
static int play_turns(bot *b)
{
    for (bool again = true; again;) {
        again = false;
        for (size_t i = 0; i < b->ngames; i++) {
            if (!my_turn(&b->games[i]))
                continue;
            if (play_one(b, &b->games[i]) < 0)
                return -1;
            again = true;
            break; /* the list may have changed: start over */
        }
    }
    return 0;
}

/* ---- events -------------------------------------------------------------- */

static int handle_event(bot *b, const cJSON *ev)
{
    const char *name = cli_str(ev, "event");
    if (!name)
        return 0;
    if (strcmp(name, "challenge") == 0)
        return handle_challenge(b, cJSON_GetObjectItemCaseSensitive(ev, "challenge"));
    if (strcmp(name, "game_start") == 0) {
        game_update(b, cJSON_GetObjectItemCaseSensitive(ev, "game"));
        return 0;
    }
    if (strcmp(name, "game_end") == 0) {
        long long id = cli_int(ev, "game");
        if (game_find(b, id))
            bot_log(b, _("game %lld over: %s (%s)"), id,
                    cli_str(ev, "result") ? cli_str(ev, "result") : "?",
                    cli_str(ev, "reason") ? cli_str(ev, "reason") : "?");
        game_drop(b, id);
        return 0;
    }
    if (strcmp(name, "move") == 0) {
        bot_game *g = game_find(b, cli_int(ev, "game"));
        long long ply = cli_int(ev, "ply");
        const char *pos = cli_str(ev, "position"), *turn = cli_str(ev, "turn");
        const char *status = cli_str(ev, "status");
        if (!g || ply < 0 || ply + 1 <= g->ply)
            return 0; /* not ours, or already known (our own move) */
        if (ply != g->ply || !pos || !turn || !status)
            return game_refetch(b, g->id); /* a gap: ask */
        if (strcmp(status, "active") != 0) {
            game_drop(b, g->id);
            return 0;
        }
        g->ply = ply + 1;
        snprintf(g->position, sizeof g->position, "%s", pos);
        snprintf(g->turn, sizeof g->turn, "%s", turn);
        clock_update(g, cJSON_GetObjectItemCaseSensitive(ev, "clock"));
    }
    return 0;
}

static int drain_events(bot *b)
{
    cJSON *ev;
    while ((ev = net_next_event(&b->c->conn)) != NULL) {
        int rc = handle_event(b, ev);
        cJSON_Delete(ev);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* ---- session ------------------------------------------------------------- */

/* Connect, log in with the token and take in the result. 0; -1 to retry
 * later; CLI_EXIT_SERVER (> 0) when the token is refused. */
static int bot_login(bot *b)
{
    cli *c = b->c;
    int rc = cli_connect(c);
    if (rc == CLI_EXIT_USAGE)
        return rc;
    if (rc != CLI_EXIT_OK) {
        net_close(&c->conn);
        return -1;
    }
    cJSON *req = cli_request("login"), *resp;
    if (req && !cJSON_AddStringToObject(req, "token", c->sess.token)) {
        cJSON_Delete(req);
        req = NULL;
    }
    if (bot_rpc(b, req, &resp) < 0)
        return -1;
    if (!cli_is_ok(resp)) {
        bool refused = strcmp(cli_error_code(resp), "unauthenticated") == 0;
        cli_report(c, resp);
        cJSON_Delete(resp);
        net_close(&c->conn);
        return refused ? CLI_EXIT_SERVER : -1;
    }
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(resp, "user");
    if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(u, "bot")))
        bot_log(b, _("warning: %s is not a bot account (qirkat register NAME --bot)"),
                c->sess.username);
    b->ngames = 0;
    const cJSON *gj;
    cJSON_ArrayForEach(gj, cJSON_GetObjectItemCaseSensitive(resp, "games")) game_update(b, gj);
    bot_log(b, _("logged in on %s: %zu active games, level %d, %u ms per move"), c->server, b->ngames,
            b->level, b->move_ms);
    cJSON *chs = cJSON_DetachItemFromObjectCaseSensitive(resp, "challenges");
    cJSON_Delete(resp);
    const cJSON *ch;
    rc = 0;
    cJSON_ArrayForEach(ch, chs)
    {
        if ((rc = handle_challenge(b, ch)) < 0)
            break;
    }
    cJSON_Delete(chs);
    return rc;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* Connected and logged in: play and wait for events until the connection
 * fails (returns -1). */
static int bot_serve(bot *b)
{
    cli *c = b->c;
    for (;;) {
        if (drain_events(b) < 0 || play_turns(b) < 0)
            return -1;
        if (net_now_ms() - b->last_traffic > BOT_PING_MS) {
            /* A silent server may be gone: a ping finds out. */
            cJSON *resp;
            if (bot_rpc(b, cli_request("ping"), &resp) < 0)
                return -1;
            cJSON_Delete(resp);
            continue;
        }
        if (cJSON_GetArraySize(c->conn.events) > 0)
            continue;
        struct pollfd p = {.fd = net_fd(&c->conn), .events = POLLIN};
        int n = poll(&p, 1, BOT_POLL_MS);
        if (n < 0 && errno != EINTR)
            return -1;
        if (n > 0) {
            if (net_pump(&c->conn) != NET_OK) {
                net_close(&c->conn);
                return -1;
            }
            b->last_traffic = net_now_ms();
        }
    }
}

int cmd_bot(cli *c, const cmd_args *a)
{
    bot b;
    memset(&b, 0, sizeof b);
    b.c = c;
    int rc = bot_options(c, a, &b);
    if (rc != CLI_EXIT_OK)
        return rc;
    int src = session_load(&c->sess);
    if (src != SESSION_OK || strcmp(c->sess.server, c->server) != 0) {
        fprintf(c->err,
                _("Not logged in: no session for %s: qirkat register NAME --bot "
                "(or qirkat login NAME)\n"),
                c->server);
        return CLI_EXIT_SERVER;
    }
    if (qk_engine_init(&b.eng, 0) != QK_OK)
        return cli_fail(c, CLI_EXIT_SERVER, _("out of memory for the engine"));
    if (b.engine_cmd && bridge_init(&b.br, b.engine_cmd) != 0) {
        qk_engine_free(&b.eng);
        return cli_fail(c, CLI_EXIT_SERVER, _("out of memory for the engine bridge"));
    }
    qk_engine_seed(&b.eng, (uint64_t)getpid() * 0x9E3779B97F4A7C15ull ^ (uint64_t)time(NULL));
    int backoff = BOT_BACKOFF_MIN_MS;
    for (;;) {
        rc = bot_login(&b);
        if (rc > 0)
            break; /* refused: nothing to retry */
        if (rc == 0) {
            backoff = BOT_BACKOFF_MIN_MS;
            (void)bot_serve(&b);
        }
        net_close(&c->conn);
        bot_log(&b, _("disconnected; reconnecting in %d ms"), backoff);
        sleep_ms(backoff);
        backoff = backoff * 2 > BOT_BACKOFF_MAX_MS ? BOT_BACKOFF_MAX_MS : backoff * 2;
    }
    if (b.engine_cmd)
        bridge_free(&b.br);
    qk_engine_free(&b.eng);
    free(b.games);
    return rc;
}
