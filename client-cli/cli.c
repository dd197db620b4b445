/*
 * cli: see cli.h. Order of work in cli_run(): global options before the
 * subcommand, the row lookup, the row's options (the global ones are
 * accepted after the subcommand too, git-style leniency), arity, then the
 * session and the connection the row asks for, then the handler. Every
 * failure before the handler is a usage error (2) except the connection
 * (3) and the server's own refusals (1).
 */
#include "cli.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd.h"
#include "qk_proto.h"
#include "render.h"
#include "term.h"
#include "i18n.h"

static const opt_spec global_opts[] = {
    {OPT_STR, "server", "HOST:PORT", N_("server to talk to")},
    {OPT_FLAG, "json", NULL, N_("print the server's response object")},
    {OPT_FLAG, "help", NULL, N_("show help")},
    {OPT_END, NULL, NULL, NULL},
};

int cli_usage_error(cli *c, const char *fmt, ...)
{
    va_list ap;
    fprintf(c->err, "qirkat%s%s: ", c->cmd ? " " : "", c->cmd ? c->cmd->name : "");
    va_start(ap, fmt);
    vfprintf(c->err, fmt, ap);
    va_end(ap);
    fputc('\n', c->err);
    if (c->cmd)
        fprintf(c->err, _("usage: qirkat %s%s%s\n"), c->cmd->name, *c->cmd->usage ? " " : "",
                c->cmd->usage);
    else
        fputs(_("usage: qirkat [--server HOST:PORT] [--json] SUBCOMMAND [ARGS]  (qirkat help)\n"),
              c->err);
    return CLI_EXIT_USAGE;
}

int cli_fail(cli *c, int status, const char *fmt, ...)
{
    va_list ap;
    fputs("qirkat: ", c->err);
    va_start(ap, fmt);
    vfprintf(c->err, fmt, ap);
    va_end(ap);
    fputc('\n', c->err);
    return status;
}

const char *cli_str(const cJSON *obj, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

long long cli_int(const cJSON *obj, const char *name)
{
    uint64_t v;
    if (!qk_json_get_uint(obj, name, &v))
        return -1;
    return (long long)v;
}

bool cli_error_transient(const char *code)
{
    return strcmp(code, "server_busy") == 0 || strcmp(code, "server_shutdown") == 0 ||
           strcmp(code, "rate_limited") == 0;
}

bool cli_is_ok(const cJSON *resp)
{
    const char *t = cli_str(resp, "type");
    return t && strcmp(t, "ok") == 0;
}

const char *cli_error_code(const cJSON *resp)
{
    const char *code = cli_str(resp, "code");
    return code ? code : "";
}

bool cli_json(cli *c, const cJSON *resp)
{
    if (!c->json)
        return false;
    char *s = cJSON_PrintUnformatted(resp);
    if (s) {
        fprintf(c->out, "%s\n", s);
        free(s);
    }
    return true;
}

/* One sentence per error code of docs/protocol.md section 4, for people;
 * the code itself stays in --json output and the exit status. */
static const struct {
    const char *code, *sentence;
} error_words[] = {
    {"bad_json", N_("The server could not read what the client sent")},
    {"bad_request", N_("The server refused the request")},
    {"unknown_op", N_("The server does not know this request (is it older than this client?)")},
    {"line_too_long", N_("The request was too long for the server")},
    {"unauthenticated", N_("Not logged in, or the login was refused")},
    {"forbidden", N_("Not allowed")},
    {"not_found", N_("Not found")},
    {"conflict", N_("Not possible in the current state")},
    {"not_your_turn", N_("It is not your turn")},
    {"illegal_move", N_("That move is not legal")},
    {"stale_ply", N_("The game has moved on since you looked at it")},
    {"game_over", N_("The game is over")},
    {"rate_limited", N_("Too many requests at once; wait a moment and try again")},
    {"server_busy", N_("The server is busy; try again in a moment")},
    {"server_shutdown", N_("The server is shutting down; try again later")},
    {"internal", N_("The server failed; nothing was changed")},
};

const char *cli_error_sentence(const char *code)
{
    for (size_t i = 0; code && i < sizeof error_words / sizeof error_words[0]; i++)
        if (strcmp(code, error_words[i].code) == 0)
            return _(error_words[i].sentence);
    return NULL;
}

void cli_error_text(const char *code, const char *message, char *buf, size_t n)
{
    const char *sentence = cli_error_sentence(code);
    /* The server's default message says no more than the sentence. */
    const char *dflt = code ? qk_err_message(qk_err_parse(code)) : NULL;
    bool useful = message && *message && !(dflt && strcmp(message, dflt) == 0);
    char unknown[160];
    if (!sentence) {
        snprintf(unknown, sizeof unknown, _("The server refused the request (%s)"),
                 code ? code : _("no code"));
        sentence = unknown;
    }
    if (useful)
        /* TRANSLATORS: an error's sentence, then the server's message (in
         * English: it is written for programs). */
        snprintf(buf, n, _("%s: %s"), sentence, message);
    else
        snprintf(buf, n, "%s", sentence);
}

int cli_report(cli *c, const cJSON *resp)
{
    (void)cli_json(c, resp);
    const char *code = cli_str(resp, "code");
    snprintf(c->last_error, sizeof c->last_error, "%s", code ? code : "internal");
    const char *msg = cli_str(resp, "message");
    if (c->json) {
        /* For programs: the code, as the object on stdout has it. */
        fprintf(c->err, "%s: %s\n", code ? code : "internal",
                msg ? msg : qk_err_message(qk_err_parse(code)));
        return CLI_EXIT_SERVER;
    }
    char text[1024];
    cli_error_text(code, msg, text, sizeof text);
    fprintf(c->err, "%s\n", text);
    return CLI_EXIT_SERVER;
}

cJSON *cli_request(const char *op)
{
    cJSON *req = cJSON_CreateObject();
    if (req && !cJSON_AddStringToObject(req, "type", op)) {
        cJSON_Delete(req);
        return NULL;
    }
    return req;
}

cJSON *cli_game_request(const char *op, uint64_t game)
{
    cJSON *req = cli_request(op);
    if (req && !cJSON_AddNumberToObject(req, "game", (double)game)) {
        cJSON_Delete(req);
        return NULL;
    }
    return req;
}

int cli_exchange(cli *c, cJSON *req, cJSON **resp)
{
    *resp = NULL;
    if (!req)
        return cli_fail(c, CLI_EXIT_SERVER, _("out of memory"));
    int rc = net_request(&c->conn, req, c->timeout_ms, resp);
    cJSON_Delete(req);
    switch (rc) {
    case NET_OK:
        return CLI_EXIT_OK;
    case NET_ETIMEDOUT:
        return cli_fail(c, CLI_EXIT_CONNECT, _("no answer from %s"), c->server);
    case NET_ENOMEM:
        return cli_fail(c, CLI_EXIT_SERVER, _("out of memory"));
    case NET_EPROTO:
        return cli_fail(c, CLI_EXIT_CONNECT, _("%s sent an over-long line"), c->server);
    default:
        return cli_fail(c, CLI_EXIT_CONNECT, _("connection to %s lost"), c->server);
    }
}

int cli_call(cli *c, cJSON *req, cJSON **resp)
{
    int rc = cli_exchange(c, req, resp);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (cli_is_ok(*resp))
        return CLI_EXIT_OK;
    rc = cli_report(c, *resp);
    cJSON_Delete(*resp);
    *resp = NULL;
    return rc;
}

bool cli_is_yes(const char *answer)
{
    /* TRANSLATORS: the short and long "yes" of a [y/N] question (the
     * question's "[y/N]" says the short one). */
    const char *y = _("y"), *yes = _("yes");
    return strcasecmp(answer, "y") == 0 || strcasecmp(answer, "yes") == 0 ||
           strcasecmp(answer, y) == 0 || strcasecmp(answer, yes) == 0;
}

const char *cli_me(const cli *c)
{
    return c->logged_in ? c->sess.username : NULL;
}

int cli_pos_id(cli *c, const cmd_args *a, int i, const char *what, uint64_t *out)
{
    if (i >= a->npos || args_parse_uint(a->pos[i], out) < 0) {
        cli_usage_error(c, _("%s must be a number, not '%s'"), what, i < a->npos ? a->pos[i] : "");
        return -1;
    }
    return 0;
}

int cli_connect(cli *c)
{
    char host[256], port[8];
    if (net_split_hostport(c->server, host, sizeof host, port, sizeof port) < 0)
        return cli_usage_error(c, _("bad server address '%s' (want HOST:PORT)"), c->server);
    net_close(&c->conn);
    if (net_connect(&c->conn, c->server, c->timeout_ms) != NET_OK)
        return cli_fail(c, CLI_EXIT_CONNECT,
                        _("cannot connect to %s (from %s): is qirkatd running there? Choose the "
                        "server with --server HOST:PORT or QIRKAT_SERVER=HOST:PORT"),
                        c->server, c->server_from ? c->server_from : _("the default"));
    cJSON *req = cli_request("hello"), *resp;
    if (req && (!cJSON_AddNumberToObject(req, "version", QK_PROTO_VERSION) ||
                !cJSON_AddStringToObject(req, "client", CLI_CLIENT_NAME))) {
        cJSON_Delete(req);
        req = NULL;
    }
    int rc = cli_call(c, req, &resp);
    cJSON_Delete(resp);
    return rc;
}

/* Keep a token the server hands back on login if it differs (a server may
 * rotate tokens); failure to save is only a warning, the login stands. */
static void maybe_update_token(cli *c, const cJSON *resp)
{
    const char *token = cli_str(resp, "token");
    if (!token || strcmp(token, c->sess.token) == 0)
        return;
    if (session_set(c->sess.token, sizeof c->sess.token, token) != SESSION_OK)
        return;
    int rc = session_save(&c->sess);
    if (rc != SESSION_OK)
        fprintf(c->err, _("qirkat: warning: cannot save the session: %s\n"), session_strerror(rc));
}

void cli_not_logged_in(cli *c)
{
    if (c->other_server)
        fprintf(c->err,
                _("Not logged in here: you are logged in on %s (as %s), not on %s (from %s); log in "
                "there (qirkat --server %s login %s) or use --server %s\n"),
                c->sess.server, c->sess.username, c->server, c->server_from, c->server,
                c->sess.username, c->sess.server);
    else
        fprintf(c->err, _("Not logged in: qirkat login USER (or qirkat register USER)\n"));
}

int cli_login_token(cli *c, bool required)
{
    c->logged_in = false;
    if (!c->have_session) {
        if (!required)
            return CLI_EXIT_OK;
        cli_not_logged_in(c);
        return CLI_EXIT_SERVER;
    }
    cJSON *req = cli_request("login"), *resp;
    if (req && !cJSON_AddStringToObject(req, "token", c->sess.token)) {
        cJSON_Delete(req);
        req = NULL;
    }
    int rc = cli_exchange(c, req, &resp);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (cli_is_ok(resp)) {
        c->logged_in = true;
        maybe_update_token(c, resp);
        cJSON_Delete(resp);
        return CLI_EXIT_OK;
    }
    if (!required) {
        char text[512];
        cli_error_text(cli_error_code(resp), cli_str(resp, "message"), text, sizeof text);
        fprintf(c->err,
                _("qirkat: warning: the stored session was refused (%s); going on logged "
                "out\n"),
                text);
        cJSON_Delete(resp);
        return CLI_EXIT_OK;
    }
    rc = cli_report(c, resp);
    if (strcmp(cli_error_code(resp), "unauthenticated") == 0)
        fprintf(c->err, _("qirkat: the stored session of %s is no longer valid: qirkat login %s\n"),
                c->sess.username, c->sess.username);
    cJSON_Delete(resp);
    return rc;
}

/* Load the session file and keep it only when it belongs to c->server: a
 * token is a password equivalent for the server that issued it and is
 * never offered to another one. A server that moved (a new port) needs a
 * new `qirkat login`. */
static int load_session(cli *c)
{
    int rc = session_load(&c->sess);
    if (rc == SESSION_NONE)
        return CLI_EXIT_OK;
    if (rc != SESSION_OK) {
        char path[4096];
        if (session_path(path, sizeof path) != SESSION_OK)
            snprintf(path, sizeof path, _("session file"));
        return cli_fail(c, CLI_EXIT_SERVER, _("cannot read %s: %s"), path, session_strerror(rc));
    }
    if (strcmp(c->sess.server, c->server) == 0) {
        c->have_session = true;
    } else {
        c->other_server = true;
        explicit_bzero(c->sess.token, sizeof c->sess.token);
    }
    return CLI_EXIT_OK;
}

int cli_connect_login(cli *c)
{
    int rc = load_session(c);
    if (rc == CLI_EXIT_OK)
        rc = cli_connect(c);
    if (rc == CLI_EXIT_OK)
        rc = cli_login_token(c, true);
    return rc;
}

/* Global options before the subcommand; returns the index of the
 * subcommand in argv (argc when there is none) or -1 after a usage error. */
static int parse_globals(cli *c, int argc, char **argv, bool *help, bool *version,
                         const char **server)
{
    int i = 1;
    while (i < argc && argv[i][0] == '-') {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0)
            return i + 1;
        if (strcmp(a, "--json") == 0) {
            c->json = true;
        } else if (strcmp(a, "--version") == 0) {
            *version = true;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            *help = true;
        } else if (strcmp(a, "--server") == 0) {
            if (i + 1 >= argc) {
                cli_usage_error(c, _("option --server needs a value (HOST:PORT)"));
                return -1;
            }
            *server = argv[++i];
        } else if (strncmp(a, "--server=", 9) == 0) {
            *server = a + 9;
        } else {
            cli_usage_error(c, _("unknown option %s"), a);
            return -1;
        }
        i++;
    }
    return i;
}

static int run_command(cli *c, int argc, char **argv, const char *server)
{
    const cmd_def *d = c->cmd;
    const opt_spec *const lists[] = {d->opts, global_opts};
    cmd_args a;
    char why[256];
    if (args_parse(lists, 2, argc, argv, &a, why, sizeof why) < 0)
        return cli_usage_error(c, "%s", why);
    if (args_has(&a, "help")) {
        cmd_print_help(c->out, d);
        return CLI_EXIT_OK;
    }
    if (args_has(&a, "json"))
        c->json = true;
    if (args_get(&a, "server"))
        server = args_get(&a, "server");
    if (a.npos < d->min_pos)
        return cli_usage_error(c, _("missing arguments"));
    if (d->max_pos >= 0 && a.npos > d->max_pos)
        return cli_usage_error(c, _("too many arguments"));
    if (d->check) {
        int crc = d->check(c, &a);
        if (crc != CLI_EXIT_OK)
            return crc;
    }

    /* docs/design.md: --server, else QIRKAT_SERVER, else the server the
     * session was made on, else the default. */
    c->server_from = "--server";
    if (!server || !*server) {
        server = getenv("QIRKAT_SERVER");
        c->server_from = "QIRKAT_SERVER";
    }
    session stored;
    if (!server || !*server) {
        if (session_load(&stored) == SESSION_OK && stored.server[0]) {
            server = stored.server;
            c->server_from = _("the session");
        }
    }
    if (!server || !*server) {
        server = CLI_DEFAULT_SERVER;
        c->server_from = _("the default");
    }
    if (session_set(c->server, sizeof c->server, server) != SESSION_OK)
        return cli_usage_error(c, _("server address too long"));
    explicit_bzero(&stored, sizeof stored);

    int rc = CLI_EXIT_OK;
    if (d->need == NEED_LOGIN || d->need == NEED_LOGIN_OPT) {
        rc = load_session(c);
        if (rc == CLI_EXIT_OK && d->need == NEED_LOGIN && !c->have_session)
            rc = cli_login_token(c, true); /* reports "not logged in" */
    }
    if (rc == CLI_EXIT_OK && d->need != NEED_NOTHING)
        rc = cli_connect(c);
    if (rc == CLI_EXIT_OK && (d->need == NEED_LOGIN || d->need == NEED_LOGIN_OPT))
        rc = cli_login_token(c, d->need == NEED_LOGIN);
    if (rc == CLI_EXIT_OK)
        rc = d->run(c, &a);
    return rc;
}

int cli_run(int argc, char **argv, FILE *in, FILE *out, FILE *err)
{
    cli c;
    memset(&c, 0, sizeof c);
    c.in = in;
    c.out = out;
    c.err = err;
    c.timeout_ms = CLI_TIMEOUT_MS;
    c.render_flags = term_use_color(out) ? RENDER_COLOR : 0;
    net_init(&c.conn);

    bool help = false, version = false;
    const char *server = NULL;
    int rc;
    int i = parse_globals(&c, argc, argv, &help, &version, &server);
    if (i < 0) {
        rc = CLI_EXIT_USAGE;
    } else if (version) {
        fprintf(out, _("qirkat %s (protocol %d)\n"), CLI_VERSION, QK_PROTO_VERSION);
        rc = CLI_EXIT_OK;
    } else if (i >= argc) {
        if (help) {
            cmd_print_usage(out);
            rc = CLI_EXIT_OK;
        } else {
            rc = cli_usage_error(&c, _("no subcommand given"));
        }
    } else if (!(c.cmd = cmd_find(argv[i]))) {
        rc = cli_usage_error(&c, _("unknown subcommand '%s'"), argv[i]);
    } else if (help) {
        cmd_print_help(out, c.cmd);
        rc = CLI_EXIT_OK;
    } else {
        rc = run_command(&c, argc - i - 1, argv + i + 1, server);
    }
    net_close(&c.conn);
    explicit_bzero(&c.sess, sizeof c.sess);
    fflush(out);
    fflush(err);
    return rc;
}
