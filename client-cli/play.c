/*
 * play: see play.h. The loop's state is one struct; every exchange with
 * the server goes through cli_exchange(), and any transport failure there
 * just closes the connection and arms the reconnect timer, so the loop has
 * one recovery path whatever the failure was.
 */
#include "play.h"

#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "cmd.h"
#include "ledit.h"
#include "qk_rules.h"
#include "render.h"
#include "i18n.h"

#define BACKOFF_MIN_MS 500
#define BACKOFF_MAX_MS 30000
/* Probe an idle connection this often; half-open TCP is silent otherwise. */
#define IDLE_PING_MS 30000
#define INPUT_MAX 4096
#define PROMPT_MAX 256

/* A question waiting for its y/N answer (the next typed line). */
typedef enum { CONFIRM_NONE, CONFIRM_RESIGN, CONFIRM_ABORT } confirm_kind;

typedef struct play {
    cli *c;
    uint64_t id;
    cJSON *resp;        /* last response holding the snapshot; owns game */
    const cJSON *game;  /* the snapshot: resp's "game" */
    const char *color;  /* "white", "black", or NULL when watching */
    bool waiting_shown; /* "waiting for ..." printed for this ply */
    bool prompted;      /* "your move: " is the last thing on the screen */
    int64_t reconnect_at;
    int backoff_ms;
    int64_t last_rx;
    char pending[QK_MOVE_STRLEN]; /* a move sent whose answer was lost */
    long long pending_ply;        /* -1: none */
    char in[INPUT_MAX];
    size_t inlen;
    bool in_eof;
    bool flip;                     /* --flip: the board turned from the default view */
    render_clock clk;              /* the live clock as last received */
    confirm_kind confirm;          /* resign/abort asked, answer pending */
    bool quit;                     /* the line editor's line said quit (or Ctrl-D) */
    char shown_prompt[PROMPT_MAX]; /* the line editor's current prompt */
} play;

static bool connected(const play *p)
{
    return net_is_open(&p->c->conn);
}

/* End the "your move: " line if it is the last thing on the screen, so
 * what follows starts on a fresh line; the loop asks again afterwards.
 * With the line editor, the prompt line is erased instead (and drawn
 * again, with what was typed, by prompt()). */
static void fresh_line(play *p)
{
    if (ledit_active()) {
        ledit_hide(false);
    } else if (p->prompted) {
        fputc('\n', p->c->out);
        p->prompted = false;
    }
    fflush(p->c->out);
}

/* A message on f (out or err) on a line of its own. */
static void say(play *p, FILE *f, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(play *p, FILE *f, const char *fmt, ...)
{
    fresh_line(p);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fflush(f);
}

/* The connection broke: close it and reconnect after the backoff. */
static void drop(play *p)
{
    if (!connected(p))
        return;
    net_close(&p->c->conn);
    say(p, p->c->err, _("Connection to %s lost; reconnecting in %.1f s (type quit to leave)\n"),
        p->c->server, p->backoff_ms / 1000.0);
    p->reconnect_at = net_now_ms() + p->backoff_ms;
}

/* Request/response on the live connection. Returns CLI_EXIT_OK with
 * *resp (ok or error, caller frees), or CLI_EXIT_CONNECT after drop(). */
static int exchange(play *p, cJSON *req, cJSON **resp)
{
    if (!connected(p)) {
        cJSON_Delete(req);
        *resp = NULL;
        return CLI_EXIT_CONNECT;
    }
    int rc = cli_exchange(p->c, req, resp);
    if (rc == CLI_EXIT_CONNECT)
        drop(p);
    else
        p->last_rx = net_now_ms();
    return rc;
}

static const char *game_str(const play *p, const char *name)
{
    return cli_str(p->game, name);
}

static bool game_over(const play *p)
{
    const char *s = game_str(p, "status");
    return s && strcmp(s, "active") != 0;
}

static bool my_turn(const play *p)
{
    const char *turn = game_str(p, "turn");
    return p->color && turn && strcmp(turn, p->color) == 0 && !game_over(p);
}

/* Take resp (an ok response with a "game") as the new snapshot. */
static void set_snapshot(play *p, cJSON *resp)
{
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(resp, "game");
    if (!cJSON_IsObject(g)) {
        cJSON_Delete(resp);
        return;
    }
    long long old = cli_int(p->game, "ply");
    cJSON_Delete(p->resp);
    p->resp = resp;
    p->game = g;
    /* The clock counts from the moment the snapshot arrived. */
    (void)render_clock_read(g, net_now_ms(), &p->clk);
    if (cli_int(g, "ply") != old)
        p->waiting_shown = false;
}

static void redraw(play *p)
{
    fresh_line(p);
    p->prompted = false;
    fputc('\n', p->c->out);
    render_game(p->c->out, p->game, cli_me(p->c),
                p->c->render_flags | RENDER_LEGEND |
                    render_view_flags(p->game, p->color ? cli_me(p->c) : NULL, p->flip));
    fflush(p->c->out);
}

/* A redraw the user did not ask for (the opponent moved, a reconnect):
 * on a terminal, what was half typed has scrolled away with the old
 * prompt, so it is discarded rather than sent unseen; the prompt comes
 * again, empty. */
static void redraw_unasked(play *p)
{
    int fd = fileno(p->c->in);
    if (ledit_active()) {
        ledit_hide(true);
    } else if (fd >= 0 && isatty(fd)) {
        (void)tcflush(fd, TCIFLUSH);
        p->inlen = 0;
    }
    redraw(p);
}

/* Fetch the game into the snapshot. Returns CLI_EXIT_OK, CLI_EXIT_SERVER
 * (refused; reported) or CLI_EXIT_CONNECT. */
static int refresh(play *p)
{
    cJSON *resp;
    int rc = exchange(p, cli_game_request("game", p->id), &resp);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (!cli_is_ok(resp)) {
        rc = cli_report(p->c, resp);
        cJSON_Delete(resp);
        return rc;
    }
    set_snapshot(p, resp);
    return CLI_EXIT_OK;
}

/* The question of a pending confirmation into buf (size n). */
static void confirm_question(const play *p, char *buf, size_t n)
{
    const char *opp =
        p->color ? game_str(p, strcmp(p->color, "white") == 0 ? "black" : "white") : NULL;
    snprintf(buf, n, _("%s game %llu against %s? [y/N] "),
             p->confirm == CONFIRM_RESIGN ? _("Resign") : _("Abort"), (unsigned long long)p->id,
             opp ? opp : _("your opponent"));
}

/* The line editor's prompt: the clocks of a live game (counted down
 * from the last snapshot), then what the line is for. */
static void editor_prompt(play *p, char *buf, size_t n)
{
    if (p->confirm != CONFIRM_NONE) {
        confirm_question(p, buf, n);
        return;
    }
    size_t len = 0;
    buf[0] = '\0';
    if (p->clk.valid) {
        char clk[80];
        len = (size_t)snprintf(buf, n, "[%s] ",
                               render_clock_text(&p->clk, net_now_ms(), clk, sizeof clk));
        if (len >= n)
            return;
    }
    const char *turn = game_str(p, "turn");
    const char *who = turn ? game_str(p, turn) : NULL;
    if (!p->color)
        snprintf(buf + len, n - len, _("watching> "));
    else if (my_turn(p))
        snprintf(buf + len, n - len, _("your move: "));
    else
        snprintf(buf + len, n - len, _("waiting for %s> "), who ? who : _("the opponent"));
}

/* With the line editor: announce whose turn it is once per ply, set the
 * prompt (the clocks tick in it) and show it again after any message. */
static void prompt_editor(play *p)
{
    if (game_over(p))
        return;
    if (!my_turn(p) && !p->waiting_shown && p->confirm == CONFIRM_NONE) {
        const char *turn = game_str(p, "turn");
        const char *who = turn ? game_str(p, turn) : NULL;
        ledit_hide(false);
        fprintf(p->c->out, _("Waiting for %s (%s)...\n"), who ? who : _("the opponent"),
                turn ? turn : "?");
        fflush(p->c->out);
        p->waiting_shown = true;
    }
    char text[PROMPT_MAX];
    editor_prompt(p, text, sizeof text);
    if (strcmp(text, p->shown_prompt) != 0) {
        snprintf(p->shown_prompt, sizeof p->shown_prompt, "%s", text);
        ledit_set_prompt(text);
    }
    ledit_show();
}

static void prompt(play *p)
{
    if (ledit_active()) {
        prompt_editor(p);
        return;
    }
    if (game_over(p))
        return;
    if (p->confirm != CONFIRM_NONE) {
        if (!p->prompted) { /* asked again after a message */
            char q[PROMPT_MAX];
            confirm_question(p, q, sizeof q);
            fputs(q, p->c->out);
        }
        p->prompted = true;
    } else if (my_turn(p)) {
        /* The loop wakes for timers and reconnects too: ask once. */
        if (!p->prompted)
            fputs(_("your move: "), p->c->out);
        p->prompted = true;
    } else if (!p->waiting_shown) {
        const char *turn = game_str(p, "turn");
        const char *who = turn ? game_str(p, turn) : NULL;
        fprintf(p->c->out, _("Waiting for %s (%s)...\n"), who ? who : _("the opponent"),
                turn ? turn : "?");
        p->waiting_shown = true;
    }
    fflush(p->c->out);
}

static void print_help(play *p)
{
    fputs(_("Commands:\n"
          "  MOVE          play a move in RULES.md notation: b2-c3, a1xc3xe5\n"
          "  moves         list the legal moves\n"
          "  board         fetch the game and draw it again\n"
          "  draw          offer a draw\n"
          "  draw accept   accept your opponent's draw offer\n"
          "  draw decline  decline it\n"
          "  hint          the engine's move (unrated games)\n"
          "  abort         abort the game (until each side has moved once; asks first)\n"
          "  resign        resign the game (asks first)\n"
          "  help          this list\n"
          "  quit          leave (the game goes on; `qirkat play` again to resume)\n"),
          p->c->out);
}

static void print_legal(play *p, FILE *out)
{
    render_move_list(out, _("Legal moves"), cJSON_GetObjectItemCaseSensitive(p->game, "legal_moves"));
}

/* What move text is, for a line that tried to be a move ("bxd2"), with two
 * legal moves of the position as examples when there are some. */
static void explain_move_text(play *p, const char *typed)
{
    fprintf(p->c->out,
            _("\"%s\" is not move text. A move names the points of its piece's path, "
              "joined by - for a step and x for a capture: b2-c3 goes from b2 to c3, "
              "b4xd2 jumps from b4 over the piece between to d2.\n"),
            typed);
    const cJSON *legal = cJSON_GetObjectItemCaseSensitive(p->game, "legal_moves");
    const cJSON *a = cJSON_GetArrayItem(legal, 0), *b = cJSON_GetArrayItem(legal, 1);
    if (my_turn(p) && cJSON_IsString(a) && cJSON_IsString(b))
        fprintf(p->c->out, _("Here you can play %s or %s, for example (type moves to see them all).\n"),
                a->valuestring, b->valuestring);
    else if (my_turn(p) && cJSON_IsString(a))
        fprintf(p->c->out, _("Here you can play %s.\n"), a->valuestring);
}

/* Send a move at ply. On a lost connection the move is kept as pending and
 * replayed after the reconnect. */
static void send_move(play *p, const char *move, long long ply)
{
    cJSON *req = cli_game_request("move", p->id), *resp;
    if (req && (!cJSON_AddNumberToObject(req, "ply", (double)ply) ||
                !cJSON_AddStringToObject(req, "move", move))) {
        cJSON_Delete(req);
        req = NULL;
    }
    snprintf(p->pending, sizeof p->pending, "%s", move);
    p->pending_ply = ply;
    if (exchange(p, req, &resp) != CLI_EXIT_OK)
        return; /* pending stays set */
    p->pending_ply = -1;
    if (cli_is_ok(resp)) {
        bool dup = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(resp, "duplicate"));
        set_snapshot(p, resp);
        if (dup) {
            fprintf(p->c->out, _("%s had already been played at ply %lld\n"), move, ply);
            (void)refresh(p);
        }
        redraw(p);
        return;
    }
    const char *code = cli_error_code(resp);
    if (strcmp(code, "illegal_move") == 0) {
        /* Said once, in the reader's words: the server's message would
         * only repeat it ("That move is not legal: a1-a2 is not legal"). */
        snprintf(p->c->last_error, sizeof p->c->last_error, "%s", code);
        fprintf(p->c->out, _("%s is not a legal move here\n"), move);
        print_legal(p, p->c->out);
        cJSON_Delete(resp);
        return;
    }
    cli_report(p->c, resp);
    if (strcmp(code, "stale_ply") == 0 || strcmp(code, "not_your_turn") == 0 ||
               strcmp(code, "game_over") == 0) {
        /* Our picture was behind the server's: show the real one. */
        if (refresh(p) == CLI_EXIT_OK)
            redraw(p);
    }
    cJSON_Delete(resp);
}

/* Ask before resigning or aborting: the next line answers (confirmed()). */
static void ask(play *p, confirm_kind what)
{
    p->confirm = what;
    if (ledit_active())
        return; /* the question becomes the prompt */
    char q[PROMPT_MAX];
    confirm_question(p, q, sizeof q);
    fputs(q, p->c->out);
    fflush(p->c->out);
    p->prompted = true;
}

static void do_resign(play *p)
{
    if (!p->color) {
        fputs(_("You are watching this game; there is nothing to resign\n"), p->c->out);
        return;
    }
    cJSON *resp;
    if (exchange(p, cli_game_request("resign", p->id), &resp) != CLI_EXIT_OK)
        return;
    if (cli_is_ok(resp)) {
        set_snapshot(p, resp);
        redraw(p);
    } else {
        cli_report(p->c, resp);
        cJSON_Delete(resp);
    }
}

/* Whether a player's command can go to the server now; says why not. */
static bool can_act(play *p, const char *what)
{
    if (!p->color)
        fprintf(p->c->out, _("You are watching this game; you cannot %s\n"), what);
    else if (game_over(p))
        fputs(_("The game is over\n"), p->c->out);
    else if (!connected(p))
        fputs(_("Not connected; try again once reconnected\n"), p->c->out);
    else
        return true;
    return false;
}

/* draw offer|accept|decline, abort: one request answered with the game. */
static void game_action(play *p, const char *op, const char *action)
{
    if (!can_act(p, action ? _("answer draws") : _("abort it")))
        return;
    cJSON *req = cli_game_request(op, p->id), *resp;
    if (req && action && !cJSON_AddStringToObject(req, "action", action)) {
        cJSON_Delete(req);
        req = NULL;
    }
    if (exchange(p, req, &resp) != CLI_EXIT_OK)
        return;
    if (!cli_is_ok(resp)) {
        cli_report(p->c, resp);
        cJSON_Delete(resp);
        return;
    }
    set_snapshot(p, resp);
    if (game_over(p))
        redraw(p);
    else if (action && strcmp(action, "offer") == 0)
        fputs(_("Draw offered; your opponent may accept it until the next move\n"), p->c->out);
    else if (action && strcmp(action, "decline") == 0)
        fputs(_("Draw offer declined\n"), p->c->out);
}

static void do_hint(play *p)
{
    if (!can_act(p, _("ask for hints")))
        return;
    cJSON *resp;
    if (exchange(p, cli_game_request("hint", p->id), &resp) != CLI_EXIT_OK)
        return;
    if (cli_is_ok(resp)) {
        const char *mv = cli_str(resp, "move"), *eval = cli_str(resp, "eval");
        const char *turn = game_str(p, "turn");
        const cJSON *score = cJSON_GetObjectItemCaseSensitive(resp, "score");
        /* The score is the side to move's view: say whom it favours when
         * the hint is for the position we show. */
        char verdict[80] = "";
        if (cJSON_IsNumber(score) && turn && cli_int(resp, "ply") == cli_int(p->game, "ply")) {
            strcpy(verdict, ", ");
            cmd_eval_verdict(score->valueint, strcmp(turn, "white") == 0, verdict + 2,
                             sizeof verdict - 2);
        }
        fprintf(p->c->out, _("Hint: %s (%s%s, depth %lld)\n"), mv ? mv : "?", eval ? eval : "?",
                verdict, cli_int(resp, "depth"));
    } else {
        cli_report(p->c, resp);
    }
    cJSON_Delete(resp);
}

/* The answer to a pending resign/abort question. */
static void confirmed(play *p, const char *line)
{
    confirm_kind what = p->confirm;
    p->confirm = CONFIRM_NONE;
    while (isspace((unsigned char)*line))
        line++;
    char w[8];
    size_t k = 0;
    for (; *line && !isspace((unsigned char)*line) && k + 1 < sizeof w; line++)
        w[k++] = (char)tolower((unsigned char)*line);
    w[k] = '\0';
    bool yes = cli_is_yes(w);
    if (!yes) {
        fputs(what == CONFIRM_RESIGN ? _("Not resigned\n") : _("Not aborted\n"), p->c->out);
        return;
    }
    if (what == CONFIRM_RESIGN)
        do_resign(p);
    else
        game_action(p, "abort", NULL);
}

/* Handle one typed line. Returns true when the user wants to leave. */
static bool handle_line(play *p, const char *line)
{
    char move[QK_MOVE_STRLEN + 64];
    if (p->confirm != CONFIRM_NONE) {
        confirmed(p, line);
        return false;
    }
    switch (play_classify(line, move, sizeof move)) {
    case PLAY_IN_EMPTY:
        return false;
    case PLAY_IN_QUIT:
        return true;
    case PLAY_IN_HELP:
        print_help(p);
        return false;
    case PLAY_IN_RESIGN:
        if (!p->color)
            fputs(_("You are watching this game; there is nothing to resign\n"), p->c->out);
        else if (game_over(p))
            fputs(_("The game is over\n"), p->c->out);
        else
            ask(p, CONFIRM_RESIGN);
        return false;
    case PLAY_IN_BOARD:
        if (refresh(p) == CLI_EXIT_OK || !connected(p))
            redraw(p);
        return false;
    case PLAY_IN_MOVES:
        print_legal(p, p->c->out);
        return false;
    case PLAY_IN_DRAW_OFFER:
        game_action(p, "draw", "offer");
        return false;
    case PLAY_IN_DRAW_ACCEPT:
        game_action(p, "draw", "accept");
        return false;
    case PLAY_IN_DRAW_DECLINE:
        game_action(p, "draw", "decline");
        return false;
    case PLAY_IN_ABORT:
        if (can_act(p, _("abort it")))
            ask(p, CONFIRM_ABORT);
        return false;
    case PLAY_IN_HINT:
        do_hint(p);
        return false;
    case PLAY_IN_BAD_MOVE:
        explain_move_text(p, move);
        return false;
    case PLAY_IN_UNKNOWN:
        fputs(_("unknown command; type help\n"), p->c->out);
        return false;
    case PLAY_IN_MOVE:
        break;
    }
    if (!p->color)
        fputs(_("You are watching this game; you cannot move\n"), p->c->out);
    else if (game_over(p))
        fputs(_("The game is over\n"), p->c->out);
    else if (!connected(p))
        fputs(_("Not connected; try again once reconnected\n"), p->c->out);
    else if (!my_turn(p))
        fputs(_("Not your turn\n"), p->c->out);
    else
        send_move(p, move, cli_int(p->game, "ply"));
    return false;
}

/* One event from the server. Only our game's events matter here. */
static void handle_event(play *p, const cJSON *ev)
{
    const char *name = cli_str(ev, "event");
    if (!name)
        return;
    long long gid = cli_int(ev, "game");
    if (gid < 0 || (uint64_t)gid != p->id)
        return;
    if (strcmp(name, "move") == 0) {
        long long ply = cli_int(ev, "ply");
        /* Our own move's event, or one the snapshot already has. */
        if (ply >= 0 && ply < cli_int(p->game, "ply"))
            return;
        /* The event's clock is the newest we know until the game arrives. */
        render_clock ec;
        if (render_clock_read(ev, net_now_ms(), &ec))
            p->clk = ec;
        /* The event has the position but not the legal moves: fetch the
         * whole snapshot rather than patch ours. */
        fresh_line(p);
        if (refresh(p) == CLI_EXIT_OK)
            redraw_unasked(p);
    } else if (strcmp(name, "game_end") == 0) {
        /* The final board is drawn already when the answer to our move
         * (or the move event before this) ended the game. */
        if (game_over(p))
            return;
        fresh_line(p);
        if (refresh(p) == CLI_EXIT_OK)
            redraw_unasked(p);
    } else if (strcmp(name, "draw_offer") == 0) {
        const char *by = cli_str(ev, "by"), *action = cli_str(ev, "action");
        if (!by || !action || (p->color && strcmp(by, p->color) == 0))
            return; /* our own offer or answer: its result said it */
        bool offer = strcmp(action, "offer") == 0;
        if (p->color)
            say(p, p->c->out, "%s\n",
                offer ? _("Your opponent offers a draw: type `draw accept` or `draw decline`")
                      : _("Your opponent declines the draw"));
        else
            say(p, p->c->out, "%s %s\n", strcmp(by, "white") == 0 ? _("White") : _("Black"),
                offer ? _("offers a draw") : _("declines the draw"));
    }
}

static void drain_events(play *p)
{
    cJSON *ev;
    while (connected(p) && (ev = net_next_event(&p->c->conn))) {
        handle_event(p, ev);
        cJSON_Delete(ev);
    }
}

/* Read what stdin has; handle complete lines. Returns true to leave. */
static bool read_input(play *p)
{
    int fd = fileno(p->c->in);
    ssize_t r = fd < 0 ? 0 : read(fd, p->in + p->inlen, sizeof p->in - 1 - p->inlen);
    if (r < 0 && (errno == EINTR || errno == EAGAIN))
        return false;
    if (r <= 0) {
        p->in_eof = true;
        fputc('\n', p->c->out); /* end a pending prompt line */
        if (p->inlen > 0) {     /* a last line without '\n' */
            p->in[p->inlen] = '\0';
            p->inlen = 0;
            handle_line(p, p->in);
        }
        return true;
    }
    p->inlen += (size_t)r;
    for (;;) {
        char *nl = memchr(p->in, '\n', p->inlen);
        if (!nl) {
            if (p->inlen == sizeof p->in - 1) { /* absurd line: drop it */
                fputs(_("Line too long; ignored\n"), p->c->err);
                p->inlen = 0;
            }
            return false;
        }
        *nl = '\0';
        p->prompted = false; /* the user answered it */
        bool quit = handle_line(p, p->in);
        size_t used = (size_t)(nl + 1 - p->in);
        memmove(p->in, nl + 1, p->inlen - used);
        p->inlen -= used;
        if (quit)
            return true;
    }
}

/* Log in again, fetch the game, replay a pending move. Returns
 * CLI_EXIT_OK, CLI_EXIT_CONNECT (try later) or CLI_EXIT_SERVER (give up:
 * the login or the game is refused). */
static int reconnect(play *p)
{
    fresh_line(p); /* what connecting prints starts on a line of its own */
    p->c->last_error[0] = '\0';
    int rc = cli_connect(p->c);
    if (rc == CLI_EXIT_OK)
        rc = cli_login_token(p->c, true);
    if (rc == CLI_EXIT_OK && !p->color) {
        cJSON *resp;
        rc = exchange(p, cli_game_request("subscribe", p->id), &resp);
        if (rc == CLI_EXIT_OK && !cli_is_ok(resp))
            rc = cli_report(p->c, resp);
        cJSON_Delete(resp);
    }
    if (rc == CLI_EXIT_OK)
        rc = refresh(p);
    /* A server starting up or going down says so: wait like for a drop.
     * Only a refusal (the token, the game) ends the loop. */
    bool transient = rc == CLI_EXIT_SERVER && cli_error_transient(p->c->last_error);
    if (rc == CLI_EXIT_CONNECT || transient || !connected(p)) {
        net_close(&p->c->conn);
        p->backoff_ms = p->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : p->backoff_ms * 2;
        p->reconnect_at = net_now_ms() + p->backoff_ms;
        say(p, p->c->err, _("Retrying in %.1f s\n"), p->backoff_ms / 1000.0);
        return CLI_EXIT_CONNECT;
    }
    if (rc != CLI_EXIT_OK)
        return rc;
    p->backoff_ms = BACKOFF_MIN_MS;
    say(p, p->c->out, _("Reconnected to %s\n"), p->c->server);
    redraw_unasked(p);
    if (p->pending_ply >= 0) {
        char move[QK_MOVE_STRLEN];
        snprintf(move, sizeof move, "%s", p->pending);
        send_move(p, move, p->pending_ply);
    }
    return CLI_EXIT_OK;
}

/* Probe an idle connection. */
static void keepalive(play *p)
{
    cJSON *req = cli_request("ping"), *resp;
    if (exchange(p, req, &resp) == CLI_EXIT_OK)
        cJSON_Delete(resp);
}

/* Which colour the viewer plays in the snapshot, or NULL. */
static const char *my_color(const play *p)
{
    const char *me = cli_me(p->c);
    if (!me)
        return NULL;
    const char *w = game_str(p, "white"), *b = game_str(p, "black");
    if (w && strcmp(w, me) == 0)
        return "white";
    if (b && strcmp(b, me) == 0)
        return "black";
    return NULL;
}

/* The line editor's line function: the same commands as plain lines. */
static void editor_line_cb(const char *line, void *ctx)
{
    play *p = ctx;
    if (!line) { /* Ctrl-D */
        p->quit = true;
        return;
    }
    if (p->confirm == CONFIRM_NONE)
        ledit_add_history(line);
    if (handle_line(p, line))
        p->quit = true;
}

int play_run(cli *c, uint64_t id, unsigned opts)
{
    play p;
    memset(&p, 0, sizeof p);
    p.c = c;
    p.id = id;
    p.flip = opts & PLAY_FLIP;
    p.backoff_ms = BACKOFF_MIN_MS;
    p.pending_ply = -1;
    p.last_rx = net_now_ms();

    int rc = refresh(&p);
    if (rc != CLI_EXIT_OK)
        goto out;
    p.color = my_color(&p);
    if (!p.color) {
        /* Not a player: watch. Players get their games' events anyway. */
        cJSON *resp;
        rc = exchange(&p, cli_game_request("subscribe", id), &resp);
        if (rc == CLI_EXIT_OK && !cli_is_ok(resp))
            rc = cli_report(c, resp);
        cJSON_Delete(resp);
        if (rc != CLI_EXIT_OK)
            goto out;
        fprintf(c->out, _("Watching game %llu (you do not play in it)\n"), (unsigned long long)id);
    }
    redraw(&p);
    if (!game_over(&p)) {
        fputs(_("Type help for commands.\n"), c->out);
        /* On a terminal, lines are edited with libedit (history on the
         * arrow keys) and the prompt carries the ticking clocks. */
        if (ledit_possible(c->in, c->out) && ledit_start(c->in, c->out, "", editor_line_cb, &p))
            p.shown_prompt[0] = '\0';
    }

    for (;;) {
        /* Events queued while we waited for answers: poll() cannot see
         * them, they are already read. */
        drain_events(&p);
        if (game_over(&p))
            break;
        prompt(&p);
        struct pollfd fds[2];
        int nfds = 0, in_idx = -1, net_idx = -1;
        int in_fd = fileno(c->in);
        if (!p.in_eof && in_fd >= 0) {
            fds[nfds] = (struct pollfd){.fd = in_fd, .events = POLLIN};
            in_idx = nfds++;
        }
        int timeout;
        if (connected(&p)) {
            fds[nfds] = (struct pollfd){.fd = net_fd(&c->conn), .events = POLLIN};
            net_idx = nfds++;
            int64_t idle = net_now_ms() - p.last_rx;
            timeout = idle >= IDLE_PING_MS ? 0 : (int)(IDLE_PING_MS - idle);
        } else {
            int64_t wait = p.reconnect_at - net_now_ms();
            timeout = wait < 0 ? 0 : (int)wait;
        }
        /* A running clock is redrawn when its seconds change (in the
         * editor's prompt; plain output gets it with each board). */
        int tick = ledit_active() ? render_clock_next_ms(&p.clk, net_now_ms()) : -1;
        if (tick >= 0 && tick < timeout)
            timeout = tick;
        if (nfds == 0 && !connected(&p) && p.in_eof)
            break;
        int n = poll(fds, (nfds_t)nfds, timeout);
        if (n < 0 && errno != EINTR) {
            rc = cli_fail(c, CLI_EXIT_SERVER, _("poll: %s"), strerror(errno));
            goto out;
        }
        if (in_idx >= 0 && n > 0 && fds[in_idx].revents) {
            if (ledit_active()) {
                ledit_feed();
                if (p.quit)
                    goto out;
            } else if (read_input(&p)) {
                goto out; /* quit or end of input */
            }
        }
        if (net_idx >= 0 && connected(&p) && n > 0 && fds[net_idx].revents) {
            p.last_rx = net_now_ms();
            if (net_pump(&c->conn) != NET_OK) {
                drain_events(&p); /* what arrived before the close */
                drop(&p);
            }
        }
        drain_events(&p);
        if (connected(&p) && net_now_ms() - p.last_rx >= IDLE_PING_MS)
            keepalive(&p);
        if (!connected(&p) && net_now_ms() >= p.reconnect_at) {
            int r = reconnect(&p);
            if (r == CLI_EXIT_SERVER) {
                rc = r;
                goto out;
            }
        }
    }
    rc = CLI_EXIT_OK;
out:
    ledit_stop();
    fflush(c->out);
    cJSON_Delete(p.resp);
    return rc;
}

int cmd_play(cli *c, const cmd_args *a)
{
    uint64_t id;
    if (cli_pos_id(c, a, 0, _("GAME"), &id) < 0)
        return CLI_EXIT_USAGE;
    return play_run(c, id, args_has(a, "flip") ? PLAY_FLIP : 0);
}
