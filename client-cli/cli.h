/*
 * cli: the qirkat program without main(): global options, dispatch through
 * the subcommand table (cmd.h), and the helpers every subcommand uses to
 * talk to the server and report the outcome.
 *
 * Design. cli_run() is the whole program as a function of argv and three
 * streams, returning the exit status of docs/design.md ("qirkat command
 * line"): 0 success, 1 server error (its "code: message" on stderr), 2
 * usage error, 3 cannot connect. Nothing below calls exit(), so tests drive
 * it in-process with memory streams. The dispatcher does everything that a
 * table row declares (arity, options, connecting, logging in with the
 * stored token), so a handler starts with checked arguments and, when it
 * asked for one, a ready connection; it returns an exit status too.
 */
#ifndef QC_CLI_H
#define QC_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "args.h"
#include "net.h"
#include "session.h"

/* Exit statuses (docs/design.md). */
enum {
    CLI_EXIT_OK = 0,
    CLI_EXIT_SERVER = 1, /* the server answered an error, or a local failure */
    CLI_EXIT_USAGE = 2,
    CLI_EXIT_CONNECT = 3, /* cannot connect, or the connection broke */
};

#define CLI_DEFAULT_SERVER "127.0.0.1:7420"
#define CLI_CLIENT_NAME "qirkat"
/* `qirkat --version` prints "qirkat CLI_VERSION (protocol N)". */
#define CLI_VERSION "0.2.0"
/* How long one request may wait for its answer. */
#define CLI_TIMEOUT_MS 15000

struct cmd_def;

typedef struct cli {
    FILE *in, *out, *err;
    const struct cmd_def *cmd; /* the running subcommand */
    char server[SESSION_SERVER_MAX];
    const char *server_from; /* "--server", "QIRKAT_SERVER", "the session", "the default" */
    bool json;               /* --json: print the server's response object */
    unsigned render_flags;   /* RENDER_* for out */
    int timeout_ms;
    net_conn conn;
    session sess;
    bool have_session;   /* sess holds the stored session for c->server */
    bool other_server;   /* the stored session is for another server */
    bool logged_in;      /* this connection is authenticated as sess.username */
    char last_error[32]; /* code of the last error response cli_report()ed */
} cli;

/* The program: parse argv (argv[0] is the program name), run the
 * subcommand, return its exit status. Reads stdin through in (passwords,
 * interactive play), writes results to out and diagnostics to err. */
int cli_run(int argc, char **argv, FILE *in, FILE *out, FILE *err);

/* Print "qirkat CMD: <message>" and the subcommand's usage to err.
 * Returns CLI_EXIT_USAGE. */
int cli_usage_error(cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Print "qirkat: <message>" to err. Returns status, for `return cli_fail(
 * c, CLI_EXIT_SERVER, ...)`. */
int cli_fail(cli *c, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Connect to c->server and say hello. Returns CLI_EXIT_OK, CLI_EXIT_USAGE
 * (malformed server address), CLI_EXIT_CONNECT, or CLI_EXIT_SERVER (the
 * server refused hello); errors are printed. */
int cli_connect(cli *c);

/* For a NEED_NOTHING command that finds it needs the server after all
 * (`replay GAME`): read the session, connect and log in with the stored
 * token (required). Returns CLI_EXIT_OK or the printed failure's status. */
int cli_connect_login(cli *c);

/* Log in on the open connection with the stored token. With required, no
 * session (or one for another server) is an error: "unauthenticated: ..."
 * and CLI_EXIT_SERVER. Without, the command goes on logged out, with a
 * warning when a stored token was refused. Sets c->logged_in. */
int cli_login_token(cli *c, bool required);

/* Print why a login-only command cannot run: not logged in at all, or
 * logged in on another server than the chosen one (which, and how to fix
 * it). */
void cli_not_logged_in(cli *c);

/* A new request object {"type": op}, owned by the caller. NULL on
 * allocation failure. */
cJSON *cli_request(const char *op);

/* {"type": op, "game": game}: the head of every per-game request, owned by
 * the caller. NULL on allocation failure. */
cJSON *cli_game_request(const char *op, uint64_t game);

/* Send req (always consumed) and wait for its response. Returns
 * CLI_EXIT_OK with *resp the response, "ok" or "error", owned by the
 * caller; or CLI_EXIT_CONNECT (connection lost, timeout; printed) with
 * *resp NULL. */
int cli_exchange(cli *c, cJSON *req, cJSON **resp);

/* cli_exchange() that also reports an "error" response (cli_report()) and
 * frees it: CLI_EXIT_OK means *resp is an "ok" response owned by the
 * caller; otherwise *resp is NULL. */
int cli_call(cli *c, cJSON *req, cJSON **resp);

/* Whether an error code means "try again later" (server_busy,
 * server_shutdown, rate_limited), not a refusal. */
bool cli_error_transient(const char *code);

/* Whether resp is {"type": "ok"}. */
bool cli_is_ok(const cJSON *resp);

/* The error code of an error response ("" when absent). Borrowed. */
const char *cli_error_code(const cJSON *resp);

/* Report an error response: in words on err (cli_error_text()); under
 * --json the object on out and "code: message" on err, for programs. The
 * code is kept in c->last_error. Returns CLI_EXIT_SERVER. */
int cli_report(cli *c, const cJSON *resp);

/* The English sentence for an error code of docs/protocol.md section 4
 * ("not_found" -> "Not found"); NULL for a code it does not know. Static
 * storage. */
const char *cli_error_sentence(const char *code);

/* An error for people into buf (size n): the code's sentence, then ": "
 * and the server's message when it says more than the code's default
 * message; an unknown code is named in the text. code and message may be
 * NULL. Never fails (truncates). */
void cli_error_text(const char *code, const char *message, char *buf, size_t n);

/* Under --json, print resp on one line to out and return true; otherwise
 * return false (the caller prints its human rendering). */
bool cli_json(cli *c, const cJSON *resp);

/* A cJSON object's string / integer field (NULL / -1 when absent or of
 * another type). Borrowed. */
const char *cli_str(const cJSON *obj, const char *name);
long long cli_int(const cJSON *obj, const char *name);

/* Whether a [y/N] answer says yes: "y" or "yes" in any case, or their
 * words in the reader's language ("o", "oui"). */
bool cli_is_yes(const char *answer);

/* The username this connection is logged in as, or NULL. Borrowed. */
const char *cli_me(const cli *c);

/* Positional argument i as an id (whole number); prints a usage error and
 * returns -1 when it is not one. */
int cli_pos_id(cli *c, const cmd_args *a, int i, const char *what, uint64_t *out);

#endif
