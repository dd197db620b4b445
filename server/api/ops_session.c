/*
 * ops_session: hello, ping, register, login, logout.
 *
 * register and login with a password hash on the thread pool (auth.h): the
 * handler checks what it can at once (syntax, a taken name), defers the
 * request, and the completion callback makes the writes and answers. A
 * login for an unknown user is verified against a dummy hash so both
 * failures take the same time and get the same message.
 */
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "game/auth.h"
#include "store/store_admin.h"
#include "util/log.h"
#include "api/ops.h"

#define SERVER_NAME "qirkatd/0.1"
#define WRONG_LOGIN "wrong username or password"

cJSON *ops_user_json(const char *name, bool bot)
{
    cJSON *u = cJSON_CreateObject();
    if (!u || !cJSON_AddStringToObject(u, "username", name) || !cJSON_AddBoolToObject(u, "bot", bot)) {
        cJSON_Delete(u);
        return NULL;
    }
    return u;
}

void op_hello(req *r)
{
    /* The connection speaks the version it declares, up to ours; none
     * (or 0) is version 1, so old clients keep working. */
    uint64_t want = 1;
    if (req_uint(r, "version", &want) && want == 0)
        want = 1;
    r->sess->proto = (uint8_t)(want < QK_PROTO_VERSION ? want : QK_PROTO_VERSION);
    cJSON *res = req_ok(r), *variants, *limits;
    if (!res || !cJSON_AddNumberToObject(res, "version", r->sess->proto) ||
        !cJSON_AddStringToObject(res, "server", SERVER_NAME) ||
        !(variants = cJSON_AddArrayToObject(res, "variants")) ||
        !(limits = cJSON_AddObjectToObject(res, "limits")))
        goto fail;
    const char *name;
    for (size_t i = 0; (name = qk_variant_list(i)) != NULL; i++) {
        cJSON *v = cJSON_CreateString(name);
        if (!v || !cJSON_AddItemToArray(variants, v)) {
            cJSON_Delete(v);
            goto fail;
        }
    }
    api *s = r->api;
    if (!cJSON_AddNumberToObject(limits, "line_bytes", (double)s->net->line_limit) ||
        !cJSON_AddNumberToObject(limits, "output_bytes", (double)s->net->out_limit) ||
        !cJSON_AddNumberToObject(limits, "username_chars", STORE_NAME_MAX) ||
        !cJSON_AddNumberToObject(limits, "password_bytes", AUTH_PASSWORD_MAX) ||
        !cJSON_AddNumberToObject(limits, "games_limit", OPS_GAMES_LIMIT_MAX) ||
        !cJSON_AddNumberToObject(limits, "subscriptions", SESSION_MAX_SUBS) ||
        !cJSON_AddNumberToObject(limits, "nesting", QK_PROTO_MAX_DEPTH) ||
        !cJSON_AddNumberToObject(limits, "open_challenges", OPS_OPEN_CHALLENGES_MAX) ||
        !cJSON_AddNumberToObject(limits, "lines_per_turn", (double)s->net->lines_per_turn))
        goto fail;
    /* The request rate (ratelimit.h): null when the server runs without. */
    if (s->rate.off ? !cJSON_AddNullToObject(limits, "requests_burst") ||
                              !cJSON_AddNullToObject(limits, "requests_per_s")
                        : !cJSON_AddNumberToObject(limits, "requests_burst", s->rate.burst) ||
                              !cJSON_AddNumberToObject(limits, "requests_per_s", s->rate.per_s))
        goto fail;
    req_reply(r, res);
    return;
fail:
    cJSON_Delete(res);
    req_reply(r, NULL);
}

void op_ping(req *r)
{
    cJSON *res = req_ok(r);
    const cJSON *ts = req_field(r, "ts");
    if (res && ts) {
        cJSON *dup = cJSON_Duplicate(ts, true);
        if (!dup || !cJSON_AddItemToObject(res, "ts", dup)) {
            cJSON_Delete(dup);
            goto fail;
        }
    }
    /* qk_json_add_int: a millisecond timestamp printed by cJSON goes
     * through sprintf and sscanf (common/qk_proto.h), a quarter of a
     * ping's time in user space (docs/perf.md "ping_p99"). */
    if (!res || !qk_json_add_int(res, "server_ts", svc_now(r->api->svc)))
        goto fail;
    req_reply(r, res);
    return;
fail:
    cJSON_Delete(res);
    req_reply(r, NULL);
}

/* The ok answer of a login or register: user, token, the open challenges
 * and the active games. NULL on allocation or store failure. */
static cJSON *login_result(api *s, cJSON *res, const store_user *u, const char *token)
{
    cJSON *user = ops_user_json(u->username, u->bot);
    if (!res || !user || !cJSON_AddItemToObject(res, "user", user)) {
        cJSON_Delete(user);
        goto fail;
    }
    if (!ops_add_user_ratings(s, user, u->id))
        goto fail;
    if (!cJSON_AddStringToObject(res, "token", token))
        goto fail;
    if (!ops_add_challenges(s, res, u->id) || !ops_add_active_games(s, res, u->id) ||
        !ops_add_notifications(s, res, u->id))
        goto fail;
    return res;
fail:
    cJSON_Delete(res);
    return NULL;
}

/* Log c in as u with token (hex text, hash its hash; already stored or
 * used in the iteration's transaction) and build the answer. The answer,
 * or an error object (caller owns either). Any failure poisons the batch
 * (svc_poison): the token write and the session change are undone at
 * flush, so a client answered `internal` is never left logged in. */
static cJSON *new_login(api *s, conn *c, const cJSON *id, const store_user *u, const char *token,
                        const uint8_t *hash)
{
    cJSON *res = NULL;
    session_touch(s, c);
    if (session_login(s, c, u->id, u->username, u->bot, hash) == 0) {
        ops_drop_hidden_subs(s, c);
        res = login_result(s, qk_proto_ok(id), u, token);
    }
    if (!res) {
        svc_poison(s->svc);
        return qk_proto_error(id, QK_ERR_INTERNAL, NULL);
    }
    return res;
}

/* The per-account cap (api.h), as an error object for id; NULL when c may
 * log in as user_id. Checked before anything is written, so a refused
 * login stores no token. */
static cJSON *account_full(api *s, conn *c, const cJSON *id, int64_t user_id)
{
    if (session_may_login(s, c, user_id))
        return NULL;
    char msg[96];
    snprintf(msg, sizeof msg, "this account already has %d connections: close one first",
             s->max_per_account);
    cJSON *err = qk_proto_error(id, QK_ERR_SERVER_BUSY, msg);
    return err ? err : qk_proto_error(id, QK_ERR_INTERNAL, NULL);
}

cJSON *ops_banned_error(api *s, const cJSON *id, int64_t user_id)
{
    store_admin_user au;
    int rc = store_admin_user_get(s->svc->store, user_id, &au);
    if (rc == STORE_NOTFOUND || (rc == STORE_OK && !au.banned))
        return NULL;
    if (rc != STORE_OK)
        return qk_proto_error(id, QK_ERR_INTERNAL, NULL);
    char msg[STORE_ADMIN_REASON_MAX + 64];
    snprintf(msg, sizeof msg, "this account is banned: %s", au.ban_reason);
    cJSON *err = qk_proto_error(id, QK_ERR_FORBIDDEN, msg);
    return err ? err : qk_proto_error(id, QK_ERR_INTERNAL, NULL);
}

cJSON *ops_login_new_token(api *s, conn *c, const cJSON *id, const store_user *u)
{
    char hex[AUTH_TOKEN_HEX + 1];
    uint8_t hash[STORE_TOKEN_HASH];
    cJSON *full = account_full(s, c, id, u->id);
    if (full)
        return full;
    if (svc_write_begin(s->svc) != 0)
        return qk_proto_error(id, QK_ERR_INTERNAL, NULL);
    auth_token_new(hex, hash);
    if (store_token_insert(s->svc->store, hash, u->id, svc_now(s->svc)) != STORE_OK) {
        sodium_memzero(hex, sizeof hex);
        svc_poison(s->svc);
        return qk_proto_error(id, QK_ERR_INTERNAL, NULL);
    }
    cJSON *res = new_login(s, c, id, u, hex, hash);
    sodium_memzero(hex, sizeof hex);
    return res;
}

/* ---- register --------------------------------------------------------- */

typedef struct reg_job {
    deferred d;
    char name[STORE_NAME_MAX + 1];
    bool bot;
} reg_job;

static void register_done(void *arg, int rc, const char *hash)
{
    reg_job *j = arg;
    api *s = j->d.api;
    cJSON *res = NULL;
    if (!deferred_alive(&j->d))
        goto out;
    store_user u = {0};
    if (rc != 0 || svc_write_begin(s->svc) != 0) {
        res = deferred_error(&j->d, QK_ERR_INTERNAL, NULL);
        goto out;
    }
    u.created = svc_now(s->svc);
    rc = store_user_insert(s->svc->store, j->name, j->bot, hash, u.created, &u.id);
    if (rc == STORE_CONFLICT) {
        res = deferred_error(&j->d, QK_ERR_CONFLICT, "that username is taken");
        goto out;
    }
    if (rc != STORE_OK) {
        svc_poison(s->svc);
        res = deferred_error(&j->d, QK_ERR_INTERNAL, NULL);
        goto out;
    }
    snprintf(u.username, sizeof u.username, "%s", j->name);
    u.bot = j->bot;
    log_info("registered %s%s", u.username, u.bot ? " (bot)" : "");
    res = ops_login_new_token(s, j->d.conn, j->d.id, &u);
out:
    deferred_reply(&j->d, res);
    free(j);
}

void op_register(req *r)
{
    const char *name = req_str(r, "username"), *pw = req_str(r, "password");
    size_t len = strlen(pw);
    if (!auth_username_valid(name)) {
        req_error(r, QK_ERR_BAD_REQUEST, "a username is 1-32 characters of A-Z a-z 0-9 _ -");
        return;
    }
    if (len == 0 || len > AUTH_PASSWORD_MAX) {
        req_error(r, QK_ERR_BAD_REQUEST, "a password is 1-1024 bytes");
        return;
    }
    store_user u;
    int rc = store_user_by_name(r->api->svc->store, name, &u);
    if (rc == STORE_OK) {
        req_error(r, QK_ERR_CONFLICT, "that username is taken");
        return;
    }
    if (rc != STORE_NOTFOUND) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    if (auth_busy(r->api->svc)) {
        req_error_hash_busy(r);
        return;
    }
    reg_job *j = calloc(1, sizeof *j);
    if (!j) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    snprintf(j->name, sizeof j->name, "%s", name);
    j->bot = req_bool(r, "bot", false);
    if (req_defer(r, &j->d) != 0) {
        free(j);
        return;
    }
    if (auth_hash(r->api->svc, pw, len, register_done, j) != 0) {
        deferred_reply(&j->d, deferred_error(&j->d, QK_ERR_INTERNAL, NULL));
        free(j);
    }
}

/* ---- login ------------------------------------------------------------ */

typedef struct login_job {
    deferred d;
    store_user u;
    bool found;
} login_job;

static void login_done(void *arg, bool ok)
{
    login_job *j = arg;
    cJSON *res = NULL;
    if (!deferred_alive(&j->d))
        goto out;
    if (!ok || !j->found) {
        res = deferred_error(&j->d, QK_ERR_UNAUTHENTICATED, WRONG_LOGIN);
        goto out;
    }
    /* A banned account is told so, but only once its password is proven:
     * the ban is nobody else's business. Read now, after the hash: a ban
     * made while it ran counts. */
    res = ops_banned_error(j->d.api, j->d.id, j->u.id);
    if (!res)
        res = ops_login_new_token(j->d.api, j->d.conn, j->d.id, &j->u);
out:
    deferred_reply(&j->d, res);
    sodium_memzero(&j->u, sizeof j->u);
    free(j);
}

static void login_token(req *r, const char *token)
{
    api *s = r->api;
    uint8_t hash[STORE_TOKEN_HASH];
    int64_t user_id = 0;
    store_user u;
    if (auth_token_hash(token, hash) != 0) {
        req_error(r, QK_ERR_UNAUTHENTICATED, "unknown token");
        return;
    }
    if (svc_write_begin(s->svc) != 0) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    int rc = store_token_user(s->svc->store, hash, svc_now(s->svc), &user_id);
    if (rc == STORE_NOTFOUND) {
        req_error(r, QK_ERR_UNAUTHENTICATED, "unknown token");
        return;
    }
    if (rc != STORE_OK || store_user_by_id(s->svc->store, user_id, &u) != STORE_OK) {
        svc_poison(s->svc);
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    cJSON *refused = ops_banned_error(s, r->id, user_id);
    if (!refused)
        refused = account_full(s, r->conn, r->id, user_id);
    req_reply(r, refused ? refused : new_login(s, r->conn, r->id, &u, token, hash));
}

void op_login(req *r)
{
    const char *name = req_str(r, "username"), *pw = req_str(r, "password");
    const char *token = req_str(r, "token");
    if (token && !name && !pw) {
        login_token(r, token);
        return;
    }
    if (token || !name || !pw) {
        req_error(r, QK_ERR_BAD_REQUEST, "give \"username\" and \"password\", or \"token\"");
        return;
    }
    size_t len = strlen(pw);
    if (len > AUTH_PASSWORD_MAX) {
        req_error(r, QK_ERR_UNAUTHENTICATED, WRONG_LOGIN);
        return;
    }
    login_job *j = calloc(1, sizeof *j);
    if (!j) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    int rc = auth_username_valid(name) ? store_user_by_name(r->api->svc->store, name, &j->u)
                                       : STORE_NOTFOUND;
    if (rc != STORE_OK && rc != STORE_NOTFOUND) {
        free(j);
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    j->found = rc == STORE_OK;
    if (auth_busy(r->api->svc)) {
        free(j);
        req_error_hash_busy(r);
        return;
    }
    if (req_defer(r, &j->d) != 0) {
        free(j);
        return;
    }
    if (auth_verify(r->api->svc, j->found ? j->u.pwhash : r->api->svc->auth.dummy_hash, pw, len, login_done,
                    j) != 0) {
        deferred_reply(&j->d, deferred_error(&j->d, QK_ERR_INTERNAL, NULL));
        free(j);
    }
}

int ops_end_sessions(api *s, conn *self, int64_t user_id, const uint8_t *hash,
                     const char *reason)
{
    int ended = 0;
    reg_node *n = reg_first(&s->users, user_id);
    while (n) {
        /* session_logout() unlinks n from the registry. */
        reg_node *next = reg_next(n);
        conn *oc = n->val;
        session *os = session_of(oc);
        if (oc != self && os && os->login &&
            (!hash || (os->login->has_token &&
                       memcmp(os->login->token_hash, hash, STORE_TOKEN_HASH) == 0))) {
            session_touch(s, oc);
            session_logout(s, oc);
            ops_drop_hidden_subs(s, oc);
            cJSON *ev = qk_proto_event("logged_out");
            if (ev && cJSON_AddStringToObject(ev, "reason", reason))
                conn_send_json(oc, ev, batch_open(s->svc->batch) ? CONN_MSG_TXN : CONN_MSG_AFTER,
                               NULL);
            else
                log_error("out of memory: logged_out event dropped");
            cJSON_Delete(ev);
            ended++;
        }
        n = next;
    }
    return ended;
}

void op_logout(req *r)
{
    api *s = r->api;
    session *se = r->sess;
    if (se->login && se->login->has_token) {
        /* ops_end_sessions() logs out the other connections only: this
         * login (and its hash) stays until the session_logout() below. */
        const uint8_t *hash = se->login->token_hash;
        if (svc_write_begin(s->svc) != 0 || store_token_delete(s->svc->store, hash) != STORE_OK) {
            svc_poison(s->svc);
            req_error(r, QK_ERR_INTERNAL, NULL);
            return;
        }
        ops_end_sessions(s, r->conn, se->user_id, hash, "logout");
    }
    session_touch(s, r->conn);
    session_logout(s, r->conn);
    ops_drop_hidden_subs(s, r->conn);
    req_reply(r, req_ok(r));
}
