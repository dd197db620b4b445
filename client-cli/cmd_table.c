/*
 * cmd_table: the rows of the subcommand table (cmd.h), in the order
 * `qirkat help` lists them, and the help text generated from them. The
 * option lists are compound literals so a row reads as one declaration.
 */
#include "cmd.h"
#include "i18n.h"

#include <string.h>

#define OPTS(...) ((const opt_spec[]){__VA_ARGS__, {OPT_END, NULL, NULL, NULL}})

#define O_PASSWORD_STDIN                                                                           \
    {                                                                                              \
        OPT_FLAG, "password-stdin", NULL, N_("read the password as one line from stdin")               \
    }

/* Boards are drawn from your side (Black at the bottom when you play
 * Black, White's side for watchers); --flip turns them around. */
#define O_FLIP                                                                                     \
    {                                                                                              \
        OPT_FLAG, "flip", NULL, N_("turn the board around (default: your side at the bottom)")         \
    }

/* The search filters of export and search (docs/protocol.md `games`). */
#define O_FILTERS                                                                                  \
    {OPT_STR, "user", "U", N_("games of U (default: you)")},                                           \
        {OPT_STR, "opponent", "U", N_("games against U")},                                             \
        {OPT_STR, "variant", "V", N_("games of this variant")},                                        \
        {OPT_STR, "since", "DATE", N_("started on or after DATE (YYYY-MM-DD, UTC)")},                  \
        {OPT_STR, "until", "DATE", N_("started on or before DATE (YYYY-MM-DD, UTC)")},                 \
        {OPT_STR, "result", "white|black|draw", N_("games with this result")},                         \
    {                                                                                              \
        OPT_FLAG, "imported", NULL, N_("only imported games")                                          \
    }

/* clang-format off */
const cmd_def cmd_table[] = {
    {"register", cmd_register, NULL, NEED_NOTHING, 1, 1,
     OPTS(O_PASSWORD_STDIN,
          {OPT_FLAG, "bot", NULL, N_("mark the account as a bot")},
          {OPT_FLAG, "yes", NULL, N_("replace another account's stored session without asking")}),
     "USER [--password-stdin] [--bot] [--yes]",
     N_("create an account (password: 8 characters or more) and log in")},
    {"login", cmd_login, NULL, NEED_NOTHING, 1, 1, OPTS(O_PASSWORD_STDIN),
     "USER [--password-stdin]", N_("log in, store the token")},
    {"logout", cmd_logout, NULL, NEED_NOTHING, 0, 0, NULL,
     "", N_("forget the stored token")},
    {"challenge", cmd_challenge, cmd_check_challenge, NEED_LOGIN, 0, 1,
     OPTS({OPT_STR, "variant", "V", N_("variant of RULES.md (default alquerque)")},
          {OPT_STR, "color", "white|black|random", N_("your colour (default random)")},
          {OPT_STR, "position", "POS", N_("custom start position string")},
          {OPT_STR, "time", "unlimited|corr:DAYS|live:INITIAL+INCREMENT",
           N_("time control: DAYS 1..14 per move; live in seconds (default unlimited)")},
          {OPT_FLAG, "rated", NULL, N_("a rated game (no hints)")},
          {OPT_UINT, "rating-min", "R", N_("open seeks: only players rated R or more may accept")},
          {OPT_UINT, "rating-max", "R", N_("open seeks: only players rated R or less may accept")}),
     "[USER] [--variant V] [--color white|black|random] [--position POS] "
     "[--time unlimited|corr:DAYS|live:INITIAL+INCREMENT] [--rated] [--rating-min R] "
     "[--rating-max R]",
     N_("challenge USER, or open a seek anyone may accept")},
    {"challenges", cmd_challenges, NULL, NEED_LOGIN, 0, 0, NULL,
     "", N_("open challenges to, from and for you")},
    {"accept", cmd_accept, cmd_check_id, NEED_LOGIN, 1, 1, NULL,
     "ID", N_("accept a challenge: the game starts")},
    {"decline", cmd_decline, cmd_check_id, NEED_LOGIN, 1, 1,
     OPTS({OPT_STR, "reason", "WORD",
           N_("why, for programs: generic (default), later, too_fast, too_slow, time_control, "
           "rated, casual, variant, no_bot, only_bot")},
          {OPT_STR, "message", "TEXT", N_("a free text shown to the challenger")}),
     "ID [--reason WORD] [--message TEXT]",
     N_("decline a challenge")},
    {"cancel", cmd_cancel, cmd_check_id, NEED_LOGIN, 1, 1, NULL,
     "ID", N_("withdraw your challenge")},
    {"games", cmd_games, NULL, NEED_LOGIN_OPT, 0, 0,
     OPTS({OPT_FLAG, "mine", NULL, N_("only your games (needs a login)")},
          {OPT_STR, "status", "active|finished|aborted", N_("only games in this state")},
          {OPT_STR, "variant", "V", N_("only games of this variant")},
          {OPT_UINT, "limit", "N", N_("at most N games")},
          {OPT_FLAG, "my-turn", NULL, N_("only games waiting for your move, soonest deadline first")}),
     "[--mine] [--my-turn] [--status active|finished|aborted] [--variant V] [--limit N]",
     N_("list games (with --mine: your time left)")},
    {"show", cmd_show, cmd_check_id, NEED_LOGIN_OPT, 1, 1, OPTS(O_FLIP),
     "GAME [--flip]", N_("board, turn, legal moves")},
    {"move", cmd_move, cmd_check_id, NEED_LOGIN, 2, 2,
     OPTS({OPT_UINT, "ply", "N", N_("the ply the move is played at (default: the current one)")}),
     "GAME MOVE [--ply N]", N_("play a move (b2-c3, a1xc3xe5)")},
    {"resign", cmd_resign, cmd_check_id, NEED_LOGIN, 1, 1,
     OPTS({OPT_FLAG, "yes", NULL, N_("do not ask first (only a terminal is asked)")}),
     "GAME [--yes]", N_("resign a game")},
    {"play", cmd_play, cmd_check_id, NEED_LOGIN, 1, 1, OPTS(O_FLIP),
     "GAME [--flip]", N_("play interactively; redraws on the opponent's move")},
    {"inbox", cmd_inbox, NULL, NEED_LOGIN, 0, 0,
     OPTS({OPT_UINT, "limit", "N", N_("at most N notifications (default 50)")},
          {OPT_FLAG, "keep", NULL, N_("do not mark them read")}),
     "[--limit N] [--keep]", N_("your notifications, unread first; marks them read")},
    {"vacation", cmd_vacation, NULL, NEED_LOGIN, 1, 1,
     OPTS({OPT_UINT, "hours", "H", N_("length of the vacation (default: all you have left)")}),
     "on|off|status [--hours H]", N_("stop your correspondence clocks (yearly allowance)")},
    {"watch", cmd_watch, cmd_check_id, NEED_LOGIN, 1, 1, OPTS(O_FLIP),
     "GAME [--flip]", N_("follow a game live; reconnects by itself")},
    {"draw", cmd_draw, NULL, NEED_LOGIN, 2, 2, NULL,
     "offer|accept|decline GAME", N_("offer, accept or decline a draw")},
    {"abort", cmd_abort, cmd_check_id, NEED_LOGIN, 1, 1,
     OPTS({OPT_FLAG, "yes", NULL, N_("do not ask first (only a terminal is asked)")}),
     "GAME [--yes]", N_("abort a game before both sides have moved")},
    {"rules", cmd_rules, NULL, NEED_NOTHING, 0, 1, NULL,
     "[VARIANT]", N_("the rules of a variant, or the variants (offline)")},
    {"perft", cmd_perft, NULL, NEED_NOTHING, 2, -1, NULL,
     "VARIANT [POSITION] DEPTH", N_("count move sequences of 1..DEPTH plies (offline)")},
    {"user", cmd_user, NULL, NEED_LOGIN, 1, 1, NULL,
     "NAME", N_("a player's ratings, one per variant family (? = provisional)")},
    {"leaderboard", cmd_leaderboard, NULL, NEED_LOGIN, 1, 1,
     OPTS({OPT_UINT, "limit", "N", N_("at most N players (default 50, at most 200)")}),
     "VARIANT [--limit N]", N_("the established players of a variant's family, by rating")},
    {"hint", cmd_hint, cmd_check_id, NEED_LOGIN, 1, 1, NULL,
     "GAME", N_("the engine's move for the side to move (unrated games)")},
    {"bot", cmd_bot, cmd_check_bot, NEED_NOTHING, 0, 0,
     OPTS({OPT_UINT, "level", "1|2|3|4", N_("engine level: 1 weak, 3 strongest, 4 perfect (required)")},
          {OPT_STR, "variants", "V,V,...", N_("accept only these variants (alquerkonane: any board)")},
          {OPT_STR, "time-controls", "unlimited,correspondence,live",
           N_("accept only these kinds of time control")},
          {OPT_UINT, "max-games", "N", N_("at most N games at once (0: no limit)")},
          {OPT_UINT, "move-ms", "MS", N_("thinking time per move (default 1000)")},
          {OPT_STR, "engine", "CMD",
           N_("an external engine (docs/engine-protocol.md); the built-in one on its timeout")}),
     "--level N [--variants V,...] [--time-controls K,...] [--max-games N] [--move-ms MS] "
     "[--engine CMD]",
     N_("play as this bot account with the engine; reconnects and resumes by itself")},
    {"analyse", cmd_analyse, NULL, NEED_NOTHING, 1, -1,
     OPTS({OPT_UINT, "depth", "N", N_("search to N plies")},
          {OPT_UINT, "ms", "MS", N_("search for MS milliseconds (default 1000)")}),
     "VARIANT [POSITION] [--depth N | --ms MS]",
     N_("evaluation and best line of a position (offline)")},
    {"solve", cmd_solve, NULL, NEED_NOTHING, 1, -1,
     OPTS({OPT_UINT, "ms", "MS", N_("time limit (default 60000 for a winner-only search; 0: none)")},
          {OPT_FLAG, "exact", NULL, N_("exact distances whatever the board")},
          {OPT_FLAG, "winner-only", NULL, N_("only who wins (faster)")},
          {OPT_FLAG, "dfpn", NULL, N_("who wins by proof-number search (df-pn), one thread")},
          {OPT_UINT, "hash-mb", "MB", N_("table size (default 1/4 of memory, at most 4096)")},
          {OPT_UINT, "threads", "N", N_("search threads (default: the processors)")},
          {OPT_UINT, "progress", "S", N_("progress line on stderr every S seconds (0: none)")},
          {OPT_STR, "certificate", "FILE", N_("write a proof certificate (docs/solved.md)")},
          {OPT_STR, "checkpoint", "FILE", N_("resume from FILE and save the table there")}),
     "alquerkonane-RxC [POSITION] [--ms MS] [--exact|--winner-only|--dfpn] [--hash-mb MB] "
     "[--threads N] [--certificate FILE] [--checkpoint FILE]",
     N_("who wins with perfect play, and how many positions that took (offline)")},
    {"verify-certificate", cmd_verify_certificate, NULL, NEED_NOTHING, 1, 1, NULL,
     "FILE", N_("check a proof certificate with the rules alone (offline)")},
    {"replay", cmd_replay, NULL, NEED_NOTHING, 1, 1,
     OPTS({OPT_UINT, "game", "K", N_("the K-th game of the file (default 1)")},
          {OPT_UINT, "to-ply", "N", N_("print the board after N plies and exit (0: the start)")}),
     "GAME|FILE [--game K] [--to-ply N]",
     N_("step through a stored game (by id) or a game of a PDN file: n p f l, g N, q")},
    {"export", cmd_export, NULL, NEED_LOGIN, 0, 1,
     OPTS(O_FILTERS,
          {OPT_STR, "output", "FILE", N_("write to FILE instead of stdout (also -o FILE)")}),
     "[GAME] [--user U] [--opponent U] [--variant V] [--since DATE] [--until DATE] "
     "[--result R] [--imported] [--json] [-o|--output FILE]",
     N_("stored games as PDN records (or game objects with --json), every page")},
    {"import", cmd_import, NULL, NEED_LOGIN, 1, 1, NULL,
     "FILE", N_("store the games of a PDN file (each checked with the rules first)")},
    {"search", cmd_search, NULL, NEED_LOGIN, 0, 0,
     OPTS(O_FILTERS,
          {OPT_STR, "status", "active|finished|aborted", N_("only games in this state")},
          {OPT_UINT, "limit", "N", N_("at most N games (1..200, default 50)")},
          {OPT_UINT, "after", "ID", N_("the next page: games older than ID")}),
     "[--user U] [--opponent U] [--variant V] [--since DATE] [--until DATE] [--result R] "
     "[--imported] [--status S] [--limit N] [--after ID]",
     N_("find stored games: a table, newest first")},
    {"class", cmd_class, NULL, NEED_LOGIN, 1, 3, NULL,
     "create NAME | join CODE (ABCD 2345) | add-students CLASS FILE | reset-password CLASS USER | show [CLASS]",
     N_("classes: FILE has one student a line, \"username\" or \"username,display name\"")},
    {"tournament", cmd_tournament, NULL, NEED_LOGIN, 1, 4,
     OPTS({OPT_STR, "system", "round_robin|swiss", N_("create: the pairing system")},
          {OPT_STR, "variant", "V", N_("create: the variant (default alquerque)")},
          {OPT_STR, "time", "unlimited|corr:DAYS|live:INITIAL+INCREMENT", N_("create: time control")},
          {OPT_STR, "position", "POS", N_("create: a custom start position")},
          {OPT_UINT, "rounds", "N", N_("create: rounds of a Swiss")},
          {OPT_UINT, "class", "ID", N_("create: for this class only")},
          {OPT_FLAG, "double", NULL, N_("create: double round robin")},
          {OPT_FLAG, "rated", NULL, N_("create: rated games")},
          {OPT_FLAG, "bots", NULL, N_("create: bots may join")},
          {OPT_FLAG, "auto", NULL, N_("create: a round starts when the last game of the one before ends")},
          {OPT_STR, "pairer", "builtin|external",
           N_("create: who pairs a Swiss (external: the server's --pairing-program)")},
          {OPT_STR, "user", "USER", N_("join/withdraw: someone else (organiser); export: U's games only")},
          {OPT_FLAG, "csv", NULL, N_("standings: as CSV; export: the standings as CSV")},
          {OPT_FLAG, "pdn", NULL, N_("export: every game of the tournament as PDN (the default)")},
          {OPT_STR, "output", "FILE", N_("export: write to FILE instead of stdout (also -o FILE)")}),
     "create NAME --system S [...] | join|withdraw ID [--user U] | start|pair ID | show [ID] | "
     "standings ID [--csv] | result ID GAME white|black|draw | export ID [--pdn|--csv] [-o FILE]",
     N_("tournaments: round robin and Swiss, standings with tie-breaks")},
    {"admin", cmd_admin, cmd_check_admin, NEED_LOGIN, 1, 3,
     OPTS({OPT_STR, "reason", "TEXT",
           N_("why, for the audit (ban, adjudicate, abort-tournament: required)")},
          {OPT_UINT, "limit", "N", N_("log: at most N entries, newest first (default 50)")}),
     "ban NAME --reason TEXT | unban NAME | reset-password NAME | "
     "adjudicate GAME white|black|draw --reason TEXT | abort-tournament ID --reason TEXT | "
     "log [--limit N]",
     N_("administrators: bans, password resets, adjudications, the audit")},
    {"redeem-reset", cmd_redeem_reset, NULL, NEED_NOTHING, 1, 1,
     OPTS({OPT_FLAG, "password-stdin", NULL,
           N_("read the code and the new password as two lines from stdin")}),
     "USER [--password-stdin]",
     N_("set a new password with a reset code from an administrator or teacher, and log in")},
    {"help", cmd_help, NULL, NEED_NOTHING, 0, 1, NULL,
     "[SUBCOMMAND]", N_("this list, or one subcommand's options")},
    {NULL, NULL, NULL, NEED_NOTHING, 0, 0, NULL, NULL, NULL},
};
/* clang-format on */

const cmd_def *cmd_find(const char *name)
{
    for (const cmd_def *d = cmd_table; d->name; d++)
        if (strcmp(d->name, name) == 0)
            return d;
    return NULL;
}

void cmd_print_usage(FILE *out)
{
    fputs(_("usage: qirkat [--server HOST:PORT] [--json] SUBCOMMAND [ARGS]\n\n"), out);
    fputs(_("subcommands:\n"), out);
    for (const cmd_def *d = cmd_table; d->name; d++)
        fprintf(out, "  %-11s %s\n", d->name, _(d->summary));
    fprintf(out,
            _("\nglobal options:\n"
              "  --server HOST:PORT  server (else $QIRKAT_SERVER, else the one you logged in on,\n"
              "                      else %s)\n"
              "  --json              print the server's response object, one line\n"
              "  --version           the client's version\n"
              "  --help              this text; `qirkat SUBCOMMAND --help` for one subcommand\n"
              "\nexit status: 0 ok, 1 server error, 2 usage error, 3 cannot connect\n"),
            CLI_DEFAULT_SERVER);
}

void cmd_print_help(FILE *out, const cmd_def *d)
{
    fprintf(out, _("usage: qirkat %s%s%s\n\n%s\n"), d->name, *d->usage ? " " : "", d->usage,
            _(d->summary));
    if (d->opts) {
        fputs(_("\noptions:\n"), out);
        for (const opt_spec *o = d->opts; o->kind != OPT_END; o++) {
            char left[64];
            snprintf(left, sizeof left, "--%s%s%s", o->name, o->metavar ? " " : "",
                     o->metavar ? o->metavar : "");
            fprintf(out, "  %-24s %s\n", left, _(o->help));
        }
    }
    /* Where a command takes a variant, which ones there are. */
    if (strcmp(d->name, "rules") == 0 || strcmp(d->name, "challenge") == 0 ||
        strcmp(d->name, "perft") == 0 || strcmp(d->name, "analyse") == 0) {
        fputc('\n', out);
        cmd_print_variants(out);
    }
}

int cmd_check_id(cli *c, const cmd_args *a)
{
    uint64_t id;
    return cli_pos_id(c, a, 0, strncmp(c->cmd->usage, "ID", 2) == 0 ? _("ID") : _("GAME"), &id) < 0
               ? CLI_EXIT_USAGE
               : CLI_EXIT_OK;
}

int cmd_help(cli *c, const cmd_args *a)
{
    if (a->npos == 0) {
        cmd_print_usage(c->out);
        return CLI_EXIT_OK;
    }
    const cmd_def *d = cmd_find(a->pos[0]);
    if (!d)
        return cli_usage_error(c, _("unknown subcommand '%s'"), a->pos[0]);
    cmd_print_help(c->out, d);
    return CLI_EXIT_OK;
}
