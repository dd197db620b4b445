/*
 * cmd_account: register, login, logout (docs/design.md "qirkat command
 * line"). The password is read before connecting, so a typing user holds no
 * idle connection and a missing password is a usage error even with no
 * server up. A successful register or login replaces the session file;
 * logout only forgets it locally (the protocol has no logout op, and a
 * token left on the server is useless without the file).
 */
#include <string.h>

#include "cmd.h"
#include "term.h"

#define PASSWORD_MAX 1024

/* Read the password of the row's command into buf. confirm: ask twice on a
 * terminal (registering). Returns CLI_EXIT_OK or a printed usage error. */
static int read_password(cli *c, const cmd_args *a, bool confirm, char *buf, size_t n)
{
    bool from_stdin = args_has(a, "password-stdin");
    int rc = term_read_password(c->in, c->err, "Password: ", from_stdin, buf, n);
    if (rc == TERM_ENOTTY)
        return cli_usage_error(c, "stdin is not a terminal: pipe the password in with "
                                  "--password-stdin");
    if (rc == TERM_EOF)
        return cli_usage_error(c, "no password given");
    if (rc == TERM_ETOOLONG)
        return cli_usage_error(c, "password longer than %d bytes", PASSWORD_MAX - 1);
    if (rc != TERM_OK)
        return cli_fail(c, CLI_EXIT_SERVER, "cannot read the password");
    if (confirm && !from_stdin) {
        char again[PASSWORD_MAX];
        rc = term_read_password(c->in, c->err, "Password again: ", false, again, sizeof again);
        bool same = rc == TERM_OK && strcmp(buf, again) == 0;
        explicit_bzero(again, sizeof again);
        if (!same)
            return cli_usage_error(c, "the passwords differ");
    }
    return CLI_EXIT_OK;
}

/* register and login: same exchange but for the op and its extra field. */
static int authenticate(cli *c, const cmd_args *a, const char *op)
{
    const char *user = a->pos[0];
    char password[PASSWORD_MAX];
    int rc = read_password(c, a, strcmp(op, "register") == 0, password, sizeof password);
    if (rc != CLI_EXIT_OK)
        goto wipe;
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

    /* The server's spelling of the name wins (it may normalise case). */
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(resp, "user");
    const char *name = cli_str(u, "username");
    const char *token = cli_str(resp, "token");
    session s;
    memset(&s, 0, sizeof s);
    if (!token || session_set(s.username, sizeof s.username, name ? name : user) != SESSION_OK ||
        session_set(s.token, sizeof s.token, token) != SESSION_OK ||
        session_set(s.server, sizeof s.server, c->server) != SESSION_OK) {
        rc = cli_fail(c, CLI_EXIT_SERVER, "the server's %s answer has no usable token", op);
        goto free_resp;
    }
    int src = session_save(&s);
    if (src != SESSION_OK) {
        char path[4096];
        if (session_path(path, sizeof path) != SESSION_OK)
            strcpy(path, "the session file");
        rc = cli_fail(c, CLI_EXIT_SERVER, "cannot save %s: %s", path, session_strerror(src));
        goto wipe_session;
    }
    if (!cli_json(c, resp))
        fprintf(c->out, "%s as %s on %s\n",
                strcmp(op, "register") == 0 ? "Registered and logged in" : "Logged in", s.username,
                c->server);
    rc = CLI_EXIT_OK;
wipe_session:
    explicit_bzero(&s, sizeof s);
free_resp:
    cJSON_Delete(resp);
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

int cmd_logout(cli *c, const cmd_args *a)
{
    (void)a;
    session s;
    int had = session_load(&s);
    explicit_bzero(&s, sizeof s);
    int rc = session_remove();
    if (rc != SESSION_OK)
        return cli_fail(c, CLI_EXIT_SERVER, "cannot remove the session: %s", session_strerror(rc));
    if (c->json)
        fprintf(c->out, "{\"type\":\"ok\",\"logged_out\":%s}\n",
                had == SESSION_OK ? "true" : "false");
    else
        fputs(had == SESSION_OK ? "Logged out\n" : "Not logged in\n", c->out);
    return CLI_EXIT_OK;
}
