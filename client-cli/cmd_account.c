/*
 * cmd_account: register, login, logout (docs/design.md "qirkat command
 * line"). The password is read before connecting, so a typing user holds no
 * idle connection and a missing password is a usage error even with no
 * server up. A successful register or login replaces the session file;
 * register asks before replacing another account's session, and refuses
 * passwords under 8 characters locally (exit 2; the server has no minimum).
 * logout only forgets it locally (the protocol has no logout op, and a
 * token left on the server is useless without the file). redeem-reset
 * exchanges an administrator's or a teacher's reset code for a new
 * password (the rules of register) and is then logged in like login.
 */
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cmd.h"
#include "term.h"
#include "i18n.h"

#define PASSWORD_MAX 1024
/* register refuses shorter passwords before connecting (characters, not
 * bytes: a UTF-8 sequence counts once). */
#define PASSWORD_MIN_CHARS 8

static size_t utf8_chars(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* Registering replaces the stored session. When it belongs to another
 * user (another name; the same name on another server is the same person,
 * e.g. deploy/run.sh's bots after a move of the server), ask first
 * at a terminal; elsewhere refuse unless --yes, since stdin may be the
 * password. Returns CLI_EXIT_OK to go on, or an exit status (a printed
 * usage error, or CLI_EXIT_OK with *stop when the user said no). */
static int confirm_replace_session(cli *c, const cmd_args *a, const char *user, bool *stop)
{
    *stop = false;
    session s;
    if (args_has(a, "yes") || session_load(&s) != SESSION_OK)
        return CLI_EXIT_OK;
    /* The same name (in any case) is the same person, whatever server. */
    bool same = strcasecmp(s.username, user) == 0;
    char who[SESSION_USER_MAX + SESSION_SERVER_MAX + 8];
    snprintf(who, sizeof who, _("%s on %s"), s.username, s.server);
    explicit_bzero(&s, sizeof s);
    if (same)
        return CLI_EXIT_OK;
    char path[4096];
    if (session_path(path, sizeof path) != SESSION_OK)
        snprintf(path, sizeof path, _("the session file"));
    int fd = fileno(c->in);
    if (fd < 0 || !isatty(fd))
        return cli_usage_error(c,
                               _("%s holds the session of %s; registering %s would replace it: "
                               "add --yes, or set XDG_CONFIG_HOME to another directory"),
                               path, who, user);
    fprintf(c->err, _("%s holds the session of %s. Register %s and replace it? [y/N] "), path, who,
            user);
    fflush(c->err);
    char answer[16];
    if (term_read_line(c->in, answer, sizeof answer) != TERM_OK ||
        !cli_is_yes(answer)) {
        fputs(_("Not registered; the stored session is kept\n"), c->out);
        *stop = true;
    }
    return CLI_EXIT_OK;
}

/* Read the password of the row's command into buf, asking with prompt on
 * a terminal. confirm: ask twice there (registering, a new password). Returns CLI_EXIT_OK or a printed usage error. */
static int read_password(cli *c, const cmd_args *a, bool confirm, const char *prompt, char *buf,
                         size_t n)
{
    bool from_stdin = args_has(a, "password-stdin");
    int rc = term_read_password(c->in, c->err, prompt, from_stdin, buf, n);
    if (rc == TERM_ENOTTY)
        return cli_usage_error(c, _("stdin is not a terminal: pipe the password in with "
                                  "--password-stdin"));
    if (rc == TERM_EOF)
        return cli_usage_error(c, _("no password given"));
    if (rc == TERM_ETOOLONG)
        return cli_usage_error(c, _("password longer than %d bytes"), PASSWORD_MAX - 1);
    if (rc != TERM_OK)
        return cli_fail(c, CLI_EXIT_SERVER, _("cannot read the password"));
    if (confirm && !from_stdin) {
        char again[PASSWORD_MAX];
        rc = term_read_password(c->in, c->err, _("Password again: "), false, again, sizeof again);
        bool same = rc == TERM_OK && strcmp(buf, again) == 0;
        explicit_bzero(again, sizeof again);
        if (!same)
            return cli_usage_error(c, _("the passwords differ"));
    }
    return CLI_EXIT_OK;
}

/* Keep the session of a login answer resp (register, login,
 * redeem_reset; freed here) for user and say so with done ("Logged in").
 * Returns an exit status. */
static int save_login(cli *c, cJSON *resp, const char *user, const char *op, const char *done)
{
    int rc;
    /* The server's spelling of the name wins (it may normalise case). */
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(resp, "user");
    const char *name = cli_str(u, "username");
    const char *token = cli_str(resp, "token");
    session s;
    memset(&s, 0, sizeof s);
    if (!token || session_set(s.username, sizeof s.username, name ? name : user) != SESSION_OK ||
        session_set(s.token, sizeof s.token, token) != SESSION_OK ||
        session_set(s.server, sizeof s.server, c->server) != SESSION_OK) {
        rc = cli_fail(c, CLI_EXIT_SERVER, _("the server's %s answer has no usable token"), op);
        goto free_resp;
    }
    int src = session_save(&s);
    if (src != SESSION_OK) {
        char path[4096];
        if (session_path(path, sizeof path) != SESSION_OK)
            strcpy(path, _("the session file"));
        rc = cli_fail(c, CLI_EXIT_SERVER, _("cannot save %s: %s"), path, session_strerror(src));
        goto wipe_session;
    }
    if (!cli_json(c, resp))
        fprintf(c->out, _("%s as %s on %s\n"), done, s.username, c->server);
    rc = CLI_EXIT_OK;
wipe_session:
    explicit_bzero(&s, sizeof s);
free_resp:
    cJSON_Delete(resp);
    return rc;
}

/* register and login: same exchange but for the op and its extra field. */
static int authenticate(cli *c, const cmd_args *a, const char *op)
{
    const char *user = a->pos[0];
    bool reg = strcmp(op, "register") == 0;
    char password[PASSWORD_MAX];
    password[0] = '\0';
    int rc = CLI_EXIT_OK;
    if (reg) {
        bool stop;
        rc = confirm_replace_session(c, a, user, &stop);
        if (rc != CLI_EXIT_OK || stop)
            return rc;
    }
    rc = read_password(c, a, reg, _("Password: "), password, sizeof password);
    if (rc != CLI_EXIT_OK)
        goto wipe;
    size_t chars = utf8_chars(password);
    if (reg && chars < PASSWORD_MIN_CHARS) {
        rc = cli_usage_error(c, P_("the password is too short: %zu character, at least %d needed",
                                   "the password is too short: %zu characters, at least %d needed",
                                   chars),
                             chars, PASSWORD_MIN_CHARS);
        goto wipe;
    }
    rc = cli_connect(c);
    if (rc != CLI_EXIT_OK)
        goto wipe;

    cJSON *req = cli_request(op), *resp;
    if (req && (!cJSON_AddStringToObject(req, "username", user) ||
                !cJSON_AddStringToObject(req, "password", password) ||
                (args_has(a, "bot") && !cJSON_AddTrueToObject(req, "bot")))) {
        cJSON_Delete(req);
        req = NULL;
    }
    rc = cli_call(c, req, &resp);
    if (rc != CLI_EXIT_OK)
        goto wipe;

    rc = save_login(c, resp, user, op, reg ? _("Registered and logged in") : _("Logged in"));
wipe:
    explicit_bzero(password, sizeof password);
    return rc;
}

int cmd_register(cli *c, const cmd_args *a)
{
    return authenticate(c, a, "register");
}

int cmd_login(cli *c, const cmd_args *a)
{
    return authenticate(c, a, "login");
}

/* The reset code: one line from stdin with --password-stdin (the new
 * password is the next line), else typed at the terminal (shown: it is
 * not a password). Returns CLI_EXIT_OK or a printed usage error. */
static int read_code(cli *c, const cmd_args *a, char *buf, size_t n)
{
    bool from_stdin = args_has(a, "password-stdin");
    int fd = fileno(c->in);
    if (!from_stdin && (fd < 0 || !isatty(fd)))
        return cli_usage_error(c, _("stdin is not a terminal: pipe the code and the new password "
                                    "in, one line each, with --password-stdin"));
    if (!from_stdin) {
        fputs(_("Reset code: "), c->err);
        fflush(c->err);
    }
    int rc = term_read_line(c->in, buf, n);
    if (rc == TERM_EOF || (rc == TERM_OK && !buf[0]))
        return cli_usage_error(c, _("no reset code given"));
    if (rc != TERM_OK)
        return cli_usage_error(c, _("that is not a reset code (too long)"));
    return CLI_EXIT_OK;
}

int cmd_redeem_reset(cli *c, const cmd_args *a)
{
    const char *user = a->pos[0];
    char code[64], password[PASSWORD_MAX];
    password[0] = '\0';
    int rc = read_code(c, a, code, sizeof code);
    if (rc == CLI_EXIT_OK)
        rc = read_password(c, a, true, _("New password: "), password, sizeof password);
    if (rc != CLI_EXIT_OK)
        goto wipe;
    size_t chars = utf8_chars(password);
    if (chars < PASSWORD_MIN_CHARS) {
        rc = cli_usage_error(c, P_("the password is too short: %zu character, at least %d needed",
                                   "the password is too short: %zu characters, at least %d needed",
                                   chars),
                             chars, PASSWORD_MIN_CHARS);
        goto wipe;
    }
    rc = cli_connect(c);
    if (rc != CLI_EXIT_OK)
        goto wipe;
    cJSON *req = cli_request("redeem_reset"), *resp;
    if (req && (!cJSON_AddStringToObject(req, "username", user) ||
                !cJSON_AddStringToObject(req, "code", code) ||
                !cJSON_AddStringToObject(req, "password", password))) {
        cJSON_Delete(req);
        req = NULL;
    }
    rc = cli_call(c, req, &resp);
    if (rc == CLI_EXIT_OK)
        rc = save_login(c, resp, user, "redeem_reset", _("Password changed; logged in"));
wipe:
    explicit_bzero(code, sizeof code);
    explicit_bzero(password, sizeof password);
    return rc;
}

int cmd_logout(cli *c, const cmd_args *a)
{
    (void)a;
    session s;
    int had = session_load(&s);
    explicit_bzero(&s, sizeof s);
    int rc = session_remove();
    if (rc != SESSION_OK)
        return cli_fail(c, CLI_EXIT_SERVER, _("cannot remove the session: %s"), session_strerror(rc));
    if (c->json)
        fprintf(c->out, "{\"type\":\"ok\",\"logged_out\":%s}\n",
                had == SESSION_OK ? "true" : "false");
    else
        fputs(had == SESSION_OK ? _("Logged out\n") : _("Not logged in\n"), c->out);
    return CLI_EXIT_OK;
}
