/*
 * cmd: the subcommand table and the handlers it points to.
 *
 * Design. One row per subcommand (Redis's struct redisCommand): its name,
 * handler, what it needs before the handler runs (nothing, a connection, a
 * login), its positional arity, its options and its usage text. The
 * dispatcher in cli.c reads the row and does the checking and connecting;
 * `qirkat help` and `qirkat CMD --help` are generated from it. Adding a
 * subcommand is one row and one handler.
 */
#ifndef QC_CMD_H
#define QC_CMD_H

#include "args.h"
#include "cli.h"

typedef enum {
    NEED_NOTHING,   /* offline, or the handler connects itself */
    NEED_SERVER,    /* connected, hello done, not logged in */
    NEED_LOGIN,     /* connected and logged in with the stored token */
    NEED_LOGIN_OPT, /* connected; logged in when a session exists */
} cmd_need;

typedef int (*cmd_fn)(cli *c, const cmd_args *a);

typedef struct cmd_def {
    const char *name;
    cmd_fn run;
    /* Optional: argument checks the client can make alone, run before any
     * connection so a usage error is exit 2 whatever the server's state.
     * Returns CLI_EXIT_OK or a printed usage error. */
    cmd_fn check;
    cmd_need need;
    int min_pos, max_pos; /* max_pos -1: no limit */
    const opt_spec *opts; /* OPT_END-terminated, or NULL */
    const char *usage;    /* arguments after the name */
    const char *summary;  /* one line */
} cmd_def;

/* The table, terminated by a row with a NULL name. */
extern const cmd_def cmd_table[];

/* The row named name, or NULL. */
const cmd_def *cmd_find(const char *name);

/* Handlers (cmd_account.c, cmd_challenge.c, cmd_game.c, cmd_offline.c,
 * play.c, cli.c). Each returns an exit status (cli.h). */
int cmd_register(cli *c, const cmd_args *a);
int cmd_login(cli *c, const cmd_args *a);
int cmd_logout(cli *c, const cmd_args *a);
/* A reset code and a new password for USER (cmd_account.c), then logged
 * in as with login. */
int cmd_redeem_reset(cli *c, const cmd_args *a);
/* cmd_admin.c: `admin ACTION ...`, an administrator's moderation, and its
 * check (the action, its arguments, --reason) before connecting. */
int cmd_admin(cli *c, const cmd_args *a);
int cmd_check_admin(cli *c, const cmd_args *a);
int cmd_challenge(cli *c, const cmd_args *a);
int cmd_challenges(cli *c, const cmd_args *a);
int cmd_accept(cli *c, const cmd_args *a);
int cmd_decline(cli *c, const cmd_args *a);
int cmd_cancel(cli *c, const cmd_args *a);
int cmd_games(cli *c, const cmd_args *a);
int cmd_show(cli *c, const cmd_args *a);
int cmd_move(cli *c, const cmd_args *a);
int cmd_resign(cli *c, const cmd_args *a);
int cmd_play(cli *c, const cmd_args *a);
int cmd_rules(cli *c, const cmd_args *a);
/* "variants: NAME ..." and a line on alquerkonane-RxC, to out. */
void cmd_print_variants(FILE *out);
int cmd_perft(cli *c, const cmd_args *a);
int cmd_help(cli *c, const cmd_args *a);
/* cmd_bot.c: the engine as a bot account; cmd_engine.c: hint (server),
 * analyse and solve (offline). */
int cmd_bot(cli *c, const cmd_args *a);
int cmd_hint(cli *c, const cmd_args *a);
int cmd_analyse(cli *c, const cmd_args *a);
int cmd_solve(cli *c, const cmd_args *a);
int cmd_verify_certificate(cli *c, const cmd_args *a);
/* cmd_rating.c: a player's ratings, a family's leaderboard (issue 12). */
int cmd_user(cli *c, const cmd_args *a);
int cmd_leaderboard(cli *c, const cmd_args *a);
/* cmd_replay.c: a PDN record's boards, offline (the viewer: replay.h). */
int cmd_replay(cli *c, const cmd_args *a);
/* cmd_records.c: export, import and search of stored games (records). */
int cmd_export(cli *c, const cmd_args *a);
/* The pager of `export` and `tournament export`: every page of the
 * server's `export` (PDN, or game objects under --json) to --output FILE
 * or c->out, with a's filter options (--user ...; those a's command does
 * not define are absent), game (0: none) and tournament (0: none; else
 * every game of that tournament, docs/protocol.md `export`). An exit
 * status (cli.h); server errors are printed as for any request. */
int cmd_export_games(cli *c, const cmd_args *a, uint64_t game, uint64_t tournament);
int cmd_import(cli *c, const cmd_args *a);
int cmd_search(cli *c, const cmd_args *a);

/* Which side an engine score favours, in words, into buf (size n):
 * "favours White", "Black wins with best play" (forced results,
 * |score| >= QK_SCORE_MATE) or "even". score is from the side to move's
 * view (qk_search_result, the hint op); white_to_move says who that is.
 * Returns buf. */
const char *cmd_eval_verdict(int score, bool white_to_move, char *buf, size_t n);

/* cmd_corr.c: correspondence play. */
int cmd_inbox(cli *c, const cmd_args *a);
int cmd_vacation(cli *c, const cmd_args *a);
int cmd_watch(cli *c, const cmd_args *a);
int cmd_draw(cli *c, const cmd_args *a);
int cmd_abort(cli *c, const cmd_args *a);
/* A time left in ms as "2d 03h", "5h 12m" or "4m 09s" in buf (size n);
 * "-" for a negative ms. Returns the text (buf or a literal). */
const char *cmd_format_left(long long ms, char *buf, size_t n);

/* Words for a decline reason of docs/protocol.md ("variant" -> "not this
 * variant"); NULL for "generic" or none; an unknown word as it is. Static
 * storage. */
const char *cmd_decline_words(const char *reason);

/* One line in words for a notification object of docs/protocol.md
 * ("notifications"), every kind: your_turn, challenge, draw_offer,
 * draw_declined, game_end, deadline_soon, challenge_declined (with the
 * decliner's message); an unknown kind is named. Into buf (size len),
 * truncated to fit. */
void cmd_note_text(const cJSON *n, char *buf, size_t len);

/* The inbox's order: the notification objects of the JSON array list
 * (at most max) into out, newest first (created, then id), with each
 * game's your_turn notifications folded into the newest one; merged[i]
 * (size max) is how many notifications out[i] stands for (1 unless
 * folded). Read and unread ones fold together (the newest decides which
 * group the line is in). Returns how many entries out holds. Borrowed
 * pointers into list. */
size_t cmd_inbox_order(const cJSON *list, const cJSON **out, size_t max, int *merged);

/* cmd_tourney.c: classes and tournaments. */
int cmd_class(cli *c, const cmd_args *a);
int cmd_tournament(cli *c, const cmd_args *a);
/* Checks (the rows' check field). */
int cmd_check_id(cli *c, const cmd_args *a);        /* pos[0] is an id */
int cmd_check_challenge(cli *c, const cmd_args *a); /* --color, --time */
int cmd_check_bot(cli *c, const cmd_args *a);       /* --level and the filters */

/* Write the general usage (every row) to out. */
void cmd_print_usage(FILE *out);

/* Write one row's usage, summary and options to out. */
void cmd_print_help(FILE *out, const cmd_def *d);

#endif
