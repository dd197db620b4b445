/*
 * ops_admin: administrators and moderation (docs/protocol.md section 6,
 * "Administrators"; issue 23 item 4): ban, unban, reset_password,
 * adjudicate, abort_tournament, admin_log, and the user's side of a
 * password reset, redeem_reset.
 *
 * Who may. An administrator is an account whose users.admin the operator
 * set offline (`qirkatd admin grant NAME`, store/offline.h); no request
 * sets it. Every op here but redeem_reset reads the caller's flag from
 * the store on every request (store_admin_user_get()), not from the
 * session, so a grant or a revoke counts at the next request, without a
 * new login; anyone else is answered `forbidden`. One exception:
 * reset_password is also the teacher's for a student of one of their
 * classes (children forget), and only for an account that is not an
 * administrator.
 *
 * The audit. Every action writes one admin_log row (store_admin.h: who,
 * what, whom, when, why) in the iteration's batch, the transaction of the
 * action itself: the row and the action are committed together or not at
 * all. The offline grant and revoke write theirs in their own transaction
 * (store/sqlite/sqlite_offline.c).
 *
 * A ban ends the account's sessions at once (every connection logged in
 * as it becomes anonymous and gets `logged_out` {reason: "banned"}), and
 * deletes its tokens, so that lifting the ban revives no old session;
 * `login` then answers `forbidden` with the ban's reason once the password
 * is proven (ops_session.c ops_banned_error()). Its open challenges, made
 * by it or addressed to it, are closed as canceled with the usual events
 * and their notices withdrawn (notify_challenge_closed()). Its running
 * games are left alone: its clocks run, and an administrator may
 * `adjudicate` them.
 *
 * Reset codes are 16 characters of the join codes' alphabet (classes.h:
 * no look-alikes), shown as four groups of four, valid 24 hours, and
 * stored only as the BLAKE2b-256 hash of the 16 characters, as tokens are
 * (auth.h); a new code replaces the account's earlier one. redeem_reset
 * proves the code, hashes the new password on the password pool (the
 * request is deferred, as `register`), and in its completion uses the
 * code up, sets the password, deletes every token of the account, ends
 * its other sessions (`logged_out` {reason: "password_reset"}) and logs
 * the redeeming connection in, answered as `login`.
 */
#include <ctype.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/ops.h"
#include "game/auth.h"
#include "game/challenges.h"
#include "game/classes.h"
#include "game/games.h"
#include "game/notify.h"
#include "game/tourney.h"
#include "store/store_admin.h"
#include "util/log.h"

#define ADMIN_LOG_DEFAULT 50
#define ADMIN_LOG_MAX 200
#define RESET_CODE_CHARS 16                 /* without the dashes */
#define RESET_CODE_TTL_MS (24LL * 3600000)  /* valid this long */
#define WRONG_CODE "wrong or expired code"

/* ---- shared checks ------------------------------------------------------ */

/* The caller's row into *me. false once answered (internal). */
static bool load_me(req *r, store_admin_user *me)
{
    if (store_admin_user_get(r->api->svc->store, r->sess->user_id, me) == STORE_OK)
        return true;
    req_error(r, QK_ERR_INTERNAL, NULL);
    return false;
}

/* The caller is an administrator now (read from the store); else r is
 * answered forbidden (or internal) and false. */
static bool require_admin(req *r, store_admin_user *me)
{
    if (!load_me(r, me))
        return false;
    if (me->admin)
        return true;
    req_error(r, QK_ERR_FORBIDDEN, "only an administrator may do this");
    return false;
}

/* The field name of r, a reason of 1..STORE_ADMIN_REASON_MAX bytes (absent
 * is "" when optional). false once answered bad_request. */
static bool reason_of(req *r, const char *name, bool required, const char **out)
{
    const char *v = req_str(r, name);
    size_t n = v ? strlen(v) : 0;
    if ((!v && !required) || (n >= 1 && n <= STORE_ADMIN_REASON_MAX)) {
        *out = v ? v : "";
        return true;
    }
    char msg[64];
    snprintf(msg, sizeof msg, "%s is 1-%d bytes", name, STORE_ADMIN_REASON_MAX);
    req_error(r, QK_ERR_BAD_REQUEST, msg);
    return false;
}

/* The account the request's username names into *u: STORE_OK, or
 * STORE_NOTFOUND (also for an impossible name), or an error. */
static int user_named(req *r, store_admin_user *u)
{
    const char *name = req_str(r, "username");
    store_user su;
    int rc = auth_username_valid(name) ? store_user_by_name(r->api->svc->store, name, &su)
                                       : STORE_NOTFOUND;
    return rc ? rc : store_admin_user_get(r->api->svc->store, su.id, u);
}

/* user_named() for an administrator's op: false once answered (not_found,
 * internal). */
static bool target_user(req *r, store_admin_user *u)
{
    int rc = user_named(r, u);
    if (rc == STORE_OK)
        return true;
    req_error(r, rc == STORE_NOTFOUND ? QK_ERR_NOT_FOUND : QK_ERR_INTERNAL,
              rc == STORE_NOTFOUND ? "no such user" : NULL);
    return false;
}

/* Append the audit row of an action by me (svc_write_begin() done, in the
 * action's batch). 0, or -1 with the batch poisoned. */
static int audit(api *s, const store_admin_user *me, const char *action, int64_t target_user_id,
                 const char *target, const char *reason)
{
    store_admin_entry e = {.at = svc_now(s->svc),
                           .admin_id = me->id,
                           .target_user_id = target_user_id};
    snprintf(e.admin_name, sizeof e.admin_name, "%s", me->username);
    snprintf(e.action, sizeof e.action, "%s", action);
    snprintf(e.target, sizeof e.target, "%s", target);
    snprintf(e.reason, sizeof e.reason, "%s", reason ? reason : "");
    if (store_admin_log_insert(s->svc->store, &e) == STORE_OK) {
        log_info("admin %s: %s %s%s%s", me->username, action, target, e.reason[0] ? ": " : "",
                 e.reason);
        return 0;
    }
    svc_poison(s->svc);
    return -1;
}

/* ok {"user": {"username", "bot"}} for u, plus the caller's fields. */
static cJSON *ok_user(req *r, const store_admin_user *u)
{
    store_user su;
    cJSON *res = req_ok(r), *uj = NULL;
    if (!res || store_user_by_id(r->api->svc->store, u->id, &su) != STORE_OK ||
        !(uj = ops_user_json(su.username, su.bot)) || !cJSON_AddItemToObject(res, "user", uj)) {
        cJSON_Delete(uj);
        cJSON_Delete(res);
        return NULL;
    }
    return res;
}

/* ---- ban, unban --------------------------------------------------------- */

typedef struct open_list {
    int64_t user_id;
    store_challenge *c;
    size_t n, cap;
    bool oom;
} open_list;

static int collect_open(void *arg, const store_challenge *c)
{
    open_list *l = arg;
    if (c->from_id != l->user_id && c->to_id != l->user_id)
        return 0; /* others' seeks, listed for the lobby */
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 16;
        store_challenge *m = realloc(l->c, nc * sizeof *m);
        if (!m) {
            l->oom = true;
            return 1;
        }
        l->c = m;
        l->cap = nc;
    }
    l->c[l->n++] = *c;
    return 0;
}

/* Close every challenge of l as canceled, with the events of `cancel`.
 * 0, or -1 with the batch poisoned. */
static int cancel_all(api *s, open_list *l)
{
    int64_t now = svc_now(s->svc);
    for (size_t i = 0; i < l->n; i++) {
        store_challenge *c = &l->c[i];
        if (store_challenge_close(s->svc->store, c->id, "canceled", "", 0, now) != STORE_OK) {
            svc_poison(s->svc);
            return -1;
        }
        snprintf(c->status, sizeof c->status, "canceled");
        c->decline_reason[0] = '\0';
        c->updated = now;
        if (notify_challenge_closed(s->svc, c) != 0)
            return -1;
        challenges_event(s->svc, "challenge_canceled", c, NULL);
    }
    return 0;
}

void op_ban(req *r)
{
    api *s = r->api;
    store_admin_user me, u;
    const char *reason;
    if (!require_admin(r, &me) || !reason_of(r, "reason", true, &reason) || !target_user(r, &u))
        return;
    if (u.id == me.id) {
        req_error(r, QK_ERR_BAD_REQUEST, "you cannot ban yourself");
        return;
    }
    if (u.admin) {
        req_error(r, QK_ERR_FORBIDDEN,
                  "an administrator cannot be banned: the operator revokes the grant first");
        return;
    }
    if (u.banned) {
        req_error(r, QK_ERR_CONFLICT, "the account is already banned");
        return;
    }
    open_list l = {.user_id = u.id};
    int rc = store_challenges_for(s->svc->store, u.id, collect_open, &l);
    if (rc < 0 || l.oom) {
        free(l.c);
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    char target[STORE_ADMIN_TARGET_MAX];
    snprintf(target, sizeof target, "user %s", u.username);
    int64_t tokens = 0;
    if (svc_write_begin(s->svc) != 0 || store_admin_ban_set(s->svc->store, u.id, reason) ||
        store_admin_tokens_delete(s->svc->store, u.id, &tokens) ||
        audit(s, &me, "ban", u.id, target, reason) != 0 || cancel_all(s, &l) != 0) {
        free(l.c);
        svc_poison(s->svc);
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    int ended = ops_end_sessions(s, NULL, u.id, NULL, "banned");
    cJSON *res = ok_user(r, &u);
    if (res && (!cJSON_AddStringToObject(res, "reason", reason) ||
                !cJSON_AddNumberToObject(res, "sessions_ended", ended) ||
                !cJSON_AddNumberToObject(res, "challenges_canceled", (double)l.n))) {
        cJSON_Delete(res);
        res = NULL;
    }
    free(l.c);
    req_reply(r, res);
}

void op_unban(req *r)
{
    api *s = r->api;
    store_admin_user me, u;
    const char *reason;
    if (!require_admin(r, &me) || !reason_of(r, "reason", false, &reason) || !target_user(r, &u))
        return;
    if (!u.banned) {
        req_error(r, QK_ERR_CONFLICT, "the account is not banned");
        return;
    }
    char target[STORE_ADMIN_TARGET_MAX];
    snprintf(target, sizeof target, "user %s", u.username);
    if (svc_write_begin(s->svc) != 0 || store_admin_ban_set(s->svc->store, u.id, NULL) ||
        audit(s, &me, "unban", u.id, target, reason) != 0) {
        svc_poison(s->svc);
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    req_reply(r, ok_user(r, &u));
}

/* ---- password resets ---------------------------------------------------- */

/* The code as typed (case, spaces and dashes ignored) into out (its 16
 * characters); false when it cannot be a code. */
static bool code_norm(const char *in, char out[RESET_CODE_CHARS + 1])
{
    size_t n = 0;
    for (; *in; in++) {
        if (*in == ' ' || *in == '-')
            continue;
        if (n == RESET_CODE_CHARS || !isalnum((unsigned char)*in))
            return false;
        out[n++] = (char)toupper((unsigned char)*in);
    }
    out[n] = '\0';
    return n == RESET_CODE_CHARS;
}

static void code_hash(const char *norm, uint8_t hash[STORE_TOKEN_HASH])
{
    crypto_generichash(hash, STORE_TOKEN_HASH, (const unsigned char *)norm, RESET_CODE_CHARS,
                       NULL, 0);
}

void op_reset_password(req *r)
{
    api *s = r->api;
    store_admin_user me, u;
    const char *reason;
    if (!load_me(r, &me) || !reason_of(r, "reason", false, &reason))
        return;
    int rc = user_named(r, &u);
    bool teacher = false;
    if (rc == STORE_OK && !me.admin && !u.admin &&
        store_admin_teaches(s->svc->store, me.id, u.id, &teacher) != STORE_OK)
        rc = STORE_EIO;
    if (rc != STORE_OK && rc != STORE_NOTFOUND) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    /* Whether an account exists is not a non-administrator's business. */
    if (!me.admin && (rc == STORE_NOTFOUND || !teacher)) {
        req_error(r, QK_ERR_FORBIDDEN,
                  "only an administrator, or the teacher of a class the account is in, may "
                  "reset its password");
        return;
    }
    if (rc == STORE_NOTFOUND) {
        req_error(r, QK_ERR_NOT_FOUND, "no such user");
        return;
    }
    char code[RESET_CODE_CHARS + 1], shown[RESET_CODE_CHARS + RESET_CODE_CHARS / 4];
    uint8_t hash[STORE_TOKEN_HASH];
    classes_random_text(code, RESET_CODE_CHARS);
    code_hash(code, hash);
    snprintf(shown, sizeof shown, "%.4s-%.4s-%.4s-%.4s", code, code + 4, code + 8, code + 12);
    sodium_memzero(code, sizeof code);
    int64_t now = svc_now(s->svc), expires = now + RESET_CODE_TTL_MS;
    char target[STORE_ADMIN_TARGET_MAX];
    snprintf(target, sizeof target, "user %s", u.username);
    cJSON *res = NULL;
    if (svc_write_begin(s->svc) != 0 ||
        store_admin_reset_put(s->svc->store, hash, u.id, now, expires) != STORE_OK ||
        audit(s, &me, "reset_password", u.id, target, reason) != 0) {
        svc_poison(s->svc);
        req_error(r, QK_ERR_INTERNAL, NULL);
        goto out;
    }
    res = ok_user(r, &u);
    if (res && (!cJSON_AddStringToObject(res, "code", shown) ||
                !cJSON_AddNumberToObject(res, "expires", (double)expires))) {
        cJSON_Delete(res);
        res = NULL;
    }
    req_reply(r, res);
out:
    sodium_memzero(shown, sizeof shown);
}

typedef struct redeem_job {
    deferred d;
    int64_t user_id;
    uint8_t hash[STORE_TOKEN_HASH];
} redeem_job;

static void redeem_done(void *arg, int rc, const char *pwhash)
{
    redeem_job *j = arg;
    api *s = j->d.api;
    cJSON *res = NULL;
    store_user u;
    if (!deferred_alive(&j->d))
        goto out; /* nothing written: the code still works */
    if (rc != 0 || svc_write_begin(s->svc) != 0) {
        res = deferred_error(&j->d, QK_ERR_INTERNAL, NULL);
        goto out;
    }
    /* Proven again: the code may have been used (or expired, or the
     * account banned) while the password was hashed. */
    res = ops_banned_error(s, j->d.id, j->user_id);
    if (res)
        goto out;
    rc = store_admin_reset_take(s->svc->store, j->hash, j->user_id, svc_now(s->svc));
    if (rc == STORE_NOTFOUND) {
        res = deferred_error(&j->d, QK_ERR_UNAUTHENTICATED, WRONG_CODE);
        goto out;
    }
    if (rc != STORE_OK || store_user_pwhash_set(s->svc->store, j->user_id, pwhash) != STORE_OK ||
        store_admin_tokens_delete(s->svc->store, j->user_id, NULL) != STORE_OK ||
        store_user_by_id(s->svc->store, j->user_id, &u) != STORE_OK) {
        svc_poison(s->svc);
        res = deferred_error(&j->d, QK_ERR_INTERNAL, NULL);
        goto out;
    }
    ops_end_sessions(s, j->d.conn, j->user_id, NULL, "password_reset");
    log_info("password of %s reset by its code", u.username);
    res = ops_login_new_token(s, j->d.conn, j->d.id, &u);
    sodium_memzero(&u, sizeof u);
out:
    deferred_reply(&j->d, res);
    sodium_memzero(j->hash, sizeof j->hash);
    free(j);
}

void op_redeem_reset(req *r)
{
    api *s = r->api;
    const char *pw = req_str(r, "password");
    size_t len = strlen(pw);
    if (len == 0 || len > AUTH_PASSWORD_MAX) {
        req_error(r, QK_ERR_BAD_REQUEST, "a password is 1-1024 bytes");
        return;
    }
    store_admin_user u;
    char code[RESET_CODE_CHARS + 1];
    uint8_t hash[STORE_TOKEN_HASH];
    int rc = user_named(r, &u);
    if (rc != STORE_OK && rc != STORE_NOTFOUND) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    if (rc == STORE_OK && code_norm(req_str(r, "code"), code)) {
        code_hash(code, hash);
        sodium_memzero(code, sizeof code);
        rc = store_admin_reset_valid(s->svc->store, hash, u.id, svc_now(s->svc));
    } else {
        rc = STORE_NOTFOUND;
    }
    if (rc != STORE_OK) {
        req_error(r, rc == STORE_NOTFOUND ? QK_ERR_UNAUTHENTICATED : QK_ERR_INTERNAL,
                  rc == STORE_NOTFOUND ? WRONG_CODE : NULL);
        return;
    }
    cJSON *banned = ops_banned_error(s, r->id, u.id);
    if (banned) {
        req_reply_error(r, banned);
        return;
    }
    redeem_job *j = calloc(1, sizeof *j);
    if (!j) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    j->user_id = u.id;
    memcpy(j->hash, hash, sizeof hash);
    if (req_defer(r, &j->d) != 0) {
        free(j);
        return;
    }
    if (auth_hash(s->svc, pw, len, redeem_done, j) != 0) {
        deferred_reply(&j->d, deferred_error(&j->d, QK_ERR_INTERNAL, NULL));
        free(j);
    }
}

/* ---- games and tournaments ---------------------------------------------- */

void op_adjudicate(req *r)
{
    api *s = r->api;
    store_admin_user me;
    const char *reason;
    if (!require_admin(r, &me))
        return;
    int res = qk_result_parse(req_str(r, "result"));
    if (res < 0 || res == QK_RESULT_NONE) {
        req_error(r, QK_ERR_BAD_REQUEST, "result must be white, black or draw");
        return;
    }
    if (!reason_of(r, "reason", true, &reason))
        return;
    uint64_t id = 0;
    req_uint(r, "game", &id);
    game *g;
    int rc = games_get(s->svc->games, (int64_t)id, &g);
    if (rc != STORE_OK) {
        ops_game_error(r, rc, (int64_t)id);
        return;
    }
    if (!ops_active_after_flag(r, g))
        return;
    if (res == QK_RESULT_DRAW && !qk_variant_has_draws(&g->v)) {
        char msg[QK_VARIANT_NAMELEN + 24];
        snprintf(msg, sizeof msg, "%s has no draws", g->v.name);
        req_error(r, QK_ERR_BAD_REQUEST, msg);
        return;
    }
    char target[STORE_ADMIN_TARGET_MAX];
    snprintf(target, sizeof target, "game %lld (%s-%s)", (long long)g->id, g->white.name,
             g->black.name);
    int64_t gid = g->id;
    rc = svc_write_begin(s->svc) != 0
             ? STORE_EIO
             : games_finish(s->svc->games, g, (qk_result)res, QK_REASON_ADJUDICATED);
    if (rc == GAMES_ESTALE) {
        ops_game_changed(r, gid);
        return;
    }
    if (rc != STORE_OK || audit(s, &me, "adjudicate", 0, target, reason) != 0) {
        svc_poison(s->svc);
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    /* The end every game goes through: game_end, notifications, ratings
     * (a rated game counts), and the tournament's pairing. */
    notify_game_over(s->svc, g);
    cJSON *ok = req_ok(r), *gj = ok ? games_json(s->svc->games, g, true) : NULL;
    if (!gj || !cJSON_AddItemToObject(ok, "game", gj)) {
        cJSON_Delete(gj);
        cJSON_Delete(ok);
        ok = NULL;
    }
    req_reply(r, ok);
}

void op_abort_tournament(req *r)
{
    api *s = r->api;
    store_admin_user me;
    const char *reason, *why = NULL;
    if (!require_admin(r, &me) || !reason_of(r, "reason", true, &reason))
        return;
    uint64_t tid = 0;
    req_uint(r, "tournament", &tid);
    qk_err e = tourney_abort(s->svc, (int64_t)tid, reason, &why);
    if (e) {
        req_error(r, e, e == QK_ERR_NOT_FOUND ? "no such tournament" : why);
        return;
    }
    char target[STORE_ADMIN_TARGET_MAX];
    snprintf(target, sizeof target, "tournament %llu", (unsigned long long)tid);
    if (audit(s, &me, "abort_tournament", 0, target, reason) != 0) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    cJSON *t = tourney_json(s->svc, (int64_t)tid, &e), *res = t ? req_ok(r) : NULL;
    if (!res || !cJSON_AddItemToObject(res, "tournament", t)) {
        cJSON_Delete(t);
        cJSON_Delete(res);
        res = NULL;
    }
    req_reply(r, res);
}

/* ---- the audit ---------------------------------------------------------- */

typedef struct log_page {
    cJSON *list;
    int64_t limit, n, last_id;
    bool more, oom;
} log_page;

static int entry_cb(void *arg, const store_admin_entry *e)
{
    log_page *p = arg;
    if (p->n == p->limit) {
        p->more = true;
        return 1;
    }
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddNumberToObject(o, "id", (double)e->id) ||
        !cJSON_AddNumberToObject(o, "at", (double)e->at) ||
        !cJSON_AddStringToObject(o, "admin", e->admin_name) ||
        !cJSON_AddStringToObject(o, "action", e->action) ||
        !(e->target_user[0] ? cJSON_AddStringToObject(o, "user", e->target_user)
                            : cJSON_AddNullToObject(o, "user")) ||
        !cJSON_AddStringToObject(o, "target", e->target) ||
        !(e->reason[0] ? cJSON_AddStringToObject(o, "reason", e->reason)
                       : cJSON_AddNullToObject(o, "reason")) ||
        !cJSON_AddItemToArray(p->list, o)) {
        cJSON_Delete(o);
        p->oom = true;
        return 1;
    }
    p->n++;
    p->last_id = e->id;
    return 0;
}

void op_admin_log(req *r)
{
    store_admin_user me;
    if (!require_admin(r, &me))
        return;
    uint64_t limit = ADMIN_LOG_DEFAULT, before = 0;
    if (req_uint(r, "limit", &limit) && (limit < 1 || limit > ADMIN_LOG_MAX)) {
        req_error(r, QK_ERR_BAD_REQUEST, "limit is 1-200");
        return;
    }
    req_uint(r, "before", &before);
    cJSON *res = req_ok(r);
    log_page p = {.list = res ? cJSON_AddArrayToObject(res, "entries") : NULL,
                  .limit = (int64_t)limit};
    if (!p.list) {
        cJSON_Delete(res);
        req_reply(r, NULL);
        return;
    }
    /* One row past the page says whether there is a next one. */
    int rc = store_admin_log_list(r->api->svc->store, (int64_t)before, (int64_t)limit + 1,
                                  entry_cb, &p);
    if (rc < 0 || p.oom ||
        !(p.more ? cJSON_AddNumberToObject(res, "next", (double)p.last_id)
                 : cJSON_AddNullToObject(res, "next"))) {
        cJSON_Delete(res);
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    req_reply(r, res);
}
