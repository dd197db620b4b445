/*
 * ops_tourney: tournament_create, tournament_join, tournament_withdraw,
 * tournament_start, tournament_pair, tournament_result, tournament,
 * tournaments, tournament_standings (docs/protocol.md "Classes and
 * tournaments"). The handlers check the fields' meaning; the game layer
 * (game/tourney.h) decides and writes. Each answer that changes a
 * tournament carries the whole tournament object. tournament_start and
 * tournament_pair of a tournament with the external pairer are deferred
 * until the pairing program's round is back (start_or_pair). The read ops
 * (tournament, tournaments, tournament_standings) show a tournament only
 * to whoever may see it (tourney_may_see(): a class-only one is its
 * class's); the others are refused or left out of the list.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/ops.h"
#include "game/auth.h"
#include "game/games.h"
#include "game/pairing.h"
#include "game/tc.h"
#include "game/tourney.h"

/* Answer r with tournament tid's object under "tournament". */
static void reply_tourney(req *r, int64_t tid)
{
    qk_err e;
    cJSON *t = tourney_json(r->api->svc, tid, &e), *res = t ? req_ok(r) : NULL;
    if (!t) {
        req_error(r, e, e == QK_ERR_NOT_FOUND ? "no such tournament" : NULL);
        return;
    }
    if (!res || !cJSON_AddItemToObject(res, "tournament", t)) {
        cJSON_Delete(t);
        cJSON_Delete(res);
        res = NULL;
    }
    req_reply(r, res);
}

/* May the caller see tid (game/tourney.h tourney_may_see(): the read ops
 * answer a class-only tournament to its class, teacher and players only)?
 * Else r is answered with the error: not_found, forbidden or internal. */
static bool visible(req *r, int64_t tid)
{
    const char *why = NULL;
    qk_err e = tourney_may_see(r->api->svc, tid, r->sess->user_id, &why);
    if (e)
        req_error(r, e, why);
    return e == QK_ERR_NONE;
}

static void answer(req *r, int64_t tid, qk_err e, const char *why)
{
    if (e) {
        req_error(r, e, e == QK_ERR_NOT_FOUND && !why ? "no such tournament" : why);
        return;
    }
    reply_tourney(r, tid);
}

static bool tid_of(req *r, int64_t *tid)
{
    uint64_t v;
    req_uint(r, "tournament", &v);
    *tid = (int64_t)v;
    return true;
}

void op_tournament_create(req *r)
{
    api *s = r->api;
    store_tourney t = {0};
    const char *name = req_str(r, "name"), *system = req_str(r, "system");
    const char *variant = req_str(r, "variant"), *position = req_str(r, "position");
    const char *mode = req_str(r, "start_mode"), *why = NULL;
    char buf[160];
    qk_variant v;
    qk_pos p;
    tc tcv;
    uint64_t rounds = 0, class_id = 0;
    size_t nlen = strlen(name);
    if (nlen == 0 || nlen > STORE_TNAME_MAX) {
        req_error(r, QK_ERR_BAD_REQUEST, "a name is 1-64 bytes");
        return;
    }
    if (strcmp(system, "round_robin") && strcmp(system, "swiss")) {
        req_error(r, QK_ERR_BAD_REQUEST, "system must be round_robin or swiss");
        return;
    }
    bool swiss = strcmp(system, "swiss") == 0;
    if (!variant)
        variant = "alquerque";
    if (qk_variant_parse(variant, &v) != QK_OK) {
        snprintf(buf, sizeof buf, "unknown variant \"%.64s\"", variant);
        req_error(r, QK_ERR_BAD_REQUEST, buf);
        return;
    }
    if (tc_parse(req_field(r, "time_control"), &tcv, &why) != 0) {
        req_error(r, QK_ERR_BAD_REQUEST, why);
        return;
    }
    if (position) {
        if (qk_pos_parse(&v, position, &p, &why) != QK_OK) {
            snprintf(buf, sizeof buf, "bad position: %s", why ? why : "malformed");
            req_error(r, QK_ERR_BAD_REQUEST, buf);
            return;
        }
        if (qk_pos_status(&v, &p, NULL, NULL) || games_too_many_moves(s->svc->games, &v, &p)) {
            req_error(r, QK_ERR_BAD_REQUEST, "the position is over or has too many moves");
            return;
        }
        if (qk_pos_format(&v, &p, t.position, sizeof t.position) < 0) {
            req_error(r, QK_ERR_INTERNAL, NULL);
            return;
        }
    } else {
        qk_variant_start(&v, &p);
        if (qk_pos_status(&v, &p, NULL, NULL)) {
            req_error(r, QK_ERR_BAD_REQUEST, "the start position of this variant is already over");
            return;
        }
    }
    bool has_rounds = req_uint(r, "rounds", &rounds);
    if (swiss && (!has_rounds || rounds < 1 || rounds > PAIRING_MAX_ROUNDS)) {
        req_error(r, QK_ERR_BAD_REQUEST, "a swiss tournament needs rounds, 1 to 64");
        return;
    }
    if (!swiss && has_rounds) {
        req_error(r, QK_ERR_BAD_REQUEST, "a round robin's rounds follow from its players");
        return;
    }
    if (!mode)
        mode = "organiser";
    if (strcmp(mode, "organiser") && strcmp(mode, "auto")) {
        req_error(r, QK_ERR_BAD_REQUEST, "start_mode must be organiser or auto");
        return;
    }
    const char *pairer = req_str(r, "pairer");
    if (!pairer)
        pairer = "builtin";
    if (strcmp(pairer, "builtin") && strcmp(pairer, "external")) {
        req_error(r, QK_ERR_BAD_REQUEST, "pairer must be builtin or external");
        return;
    }
    bool external = strcmp(pairer, "external") == 0;
    if (external && !swiss) {
        req_error(r, QK_ERR_BAD_REQUEST,
                  "a round robin pairs by its Berger table: pairer external is for swiss");
        return;
    }
    if (external && !s->svc->pairing_program) {
        req_error(r, QK_ERR_BAD_REQUEST,
                  "this server has no external pairing program (qirkatd --pairing-program)");
        return;
    }
    if (req_uint(r, "class", &class_id)) {
        store_class c;
        int rc = store_class_get(s->svc->store, (int64_t)class_id, &c);
        if (rc == STORE_NOTFOUND || (rc == STORE_OK && c.teacher_id != r->sess->user_id)) {
            req_error(r, QK_ERR_NOT_FOUND, "no such class of yours");
            return;
        }
        if (rc) {
            req_error(r, QK_ERR_INTERNAL, NULL);
            return;
        }
    }
    snprintf(t.name, sizeof t.name, "%s", name);
    snprintf(t.system, sizeof t.system, "%s", system);
    snprintf(t.variant, sizeof t.variant, "%s", v.name);
    snprintf(t.start_mode, sizeof t.start_mode, "%s", mode);
    snprintf(t.pairer, sizeof t.pairer, "%s", pairer);
    if (tc_format(&tcv, t.time_control, sizeof t.time_control) != 0) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    t.rounds = (int64_t)rounds;
    t.dbl = !swiss && req_bool(r, "double", false);
    t.rated = req_bool(r, "rated", false);
    t.bots = req_bool(r, "bots", false);
    t.class_id = (int64_t)class_id;
    t.organiser_id = r->sess->user_id;
    int64_t id;
    qk_err e = tourney_create(s->svc, &t, &id);
    answer(r, id, e, NULL);
}

/* The user a join or withdrawal is for: `username`, else the caller. */
static bool subject(req *r, int64_t *user_id)
{
    const char *name = req_str(r, "username");
    *user_id = r->sess->user_id;
    if (!name)
        return true;
    store_user u;
    int rc = auth_username_valid(name) ? store_user_by_name(r->api->svc->store, name, &u)
                                       : STORE_NOTFOUND;
    if (rc) {
        req_error(r, rc == STORE_NOTFOUND ? QK_ERR_NOT_FOUND : QK_ERR_INTERNAL,
                  rc == STORE_NOTFOUND ? "no such user" : NULL);
        return false;
    }
    *user_id = u.id;
    return true;
}

void op_tournament_join(req *r)
{
    int64_t tid, uid;
    const char *why = NULL;
    if (!tid_of(r, &tid) || !subject(r, &uid))
        return;
    qk_err e = tourney_join(r->api->svc, tid, r->sess->user_id, uid, &why);
    answer(r, tid, e, why);
}

void op_tournament_withdraw(req *r)
{
    int64_t tid, uid;
    const char *why = NULL;
    if (!tid_of(r, &tid) || !subject(r, &uid))
        return;
    qk_err e = tourney_withdraw(r->api->svc, tid, r->sess->user_id, uid, &why);
    answer(r, tid, e, why);
}

/* A start or pair request waiting for the external pairing program
 * (game/tourney.h "External pairing"): the request is deferred (its
 * connection's later lines wait, so answers stay in order) and answered
 * from paired_cb, on the loop thread, with the tournament or the
 * error. */
typedef struct pair_wait {
    deferred d;
    bool deferred; /* req_defer succeeded (else the request was answered internal) */
} pair_wait;

/* The tournament object of tid as a deferred answer. */
static cJSON *deferred_tourney(pair_wait *w, int64_t tid)
{
    qk_err e;
    cJSON *t = tourney_json(w->d.api->svc, tid, &e), *res = t ? deferred_ok(&w->d) : NULL;
    if (!t)
        return deferred_error(&w->d, e, e == QK_ERR_NOT_FOUND ? "no such tournament" : NULL);
    if (!res || !cJSON_AddItemToObject(res, "tournament", t)) {
        cJSON_Delete(t);
        cJSON_Delete(res);
        res = NULL;
    }
    return res;
}

static void paired_cb(void *arg, int64_t tid, qk_err e, const char *why)
{
    pair_wait *w = arg;
    if (w->deferred)
        deferred_reply(&w->d, e ? deferred_error(&w->d, e, why) : deferred_tourney(w, tid));
    free(w);
}

/* Start (start) or pair tid for r: at once with the built-in pairer,
 * deferred with the external one. */
static void start_or_pair(req *r, int64_t tid, bool start)
{
    const char *why = NULL;
    bool pending = false;
    pair_wait *w = calloc(1, sizeof *w);
    if (!w) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    tourney_done done = {paired_cb, w};
    qk_err e = start ? tourney_start(r->api->svc, tid, r->sess->user_id, &why, &done, &pending)
                     : tourney_pair(r->api->svc, tid, r->sess->user_id, &why, &done, &pending);
    if (!pending) {
        free(w);
        answer(r, tid, e, why);
        return;
    }
    /* paired_cb comes in a later loop turn (the pool's completion), so
     * deferring now is in time; if it fails r is answered internal and
     * paired_cb only frees w. */
    w->deferred = req_defer(r, &w->d) == 0;
}

void op_tournament_start(req *r)
{
    int64_t tid;
    tid_of(r, &tid);
    start_or_pair(r, tid, true);
}

void op_tournament_pair(req *r)
{
    int64_t tid;
    tid_of(r, &tid);
    uint64_t round;
    /* `round` (optional): the round the organiser means to pair. Asking
     * for one already paired is refused, so a repeated request (a retry
     * after a lost answer) never pairs twice. */
    if (req_uint(r, "round", &round)) {
        store_tourney t;
        int rc = store_tourney_get(r->api->svc->store, tid, &t);
        if (rc == STORE_OK && (int64_t)round != t.current_round + 1) {
            req_error(r, QK_ERR_CONFLICT,
                      (int64_t)round <= t.current_round ? "that round is already paired"
                                                        : "that round is not the next one");
            return;
        }
    }
    start_or_pair(r, tid, false);
}

void op_tournament_result(req *r)
{
    int64_t tid;
    uint64_t gid;
    const char *why = NULL;
    tid_of(r, &tid);
    req_uint(r, "game", &gid);
    qk_err e = tourney_result(r->api->svc, tid, r->sess->user_id, (int64_t)gid,
                              req_str(r, "result"), &why);
    answer(r, tid, e, why);
}

void op_tournament_forbid(req *r)
{
    int64_t tid, ids[2];
    const char *names[2] = {req_str(r, "a"), req_str(r, "b")}, *why = NULL;
    tid_of(r, &tid);
    for (int i = 0; i < 2; i++) {
        store_user u;
        int rc = auth_username_valid(names[i])
                     ? store_user_by_name(r->api->svc->store, names[i], &u)
                     : STORE_NOTFOUND;
        if (rc) {
            req_error(r, rc == STORE_NOTFOUND ? QK_ERR_NOT_FOUND : QK_ERR_INTERNAL,
                      rc == STORE_NOTFOUND ? "no such user" : NULL);
            return;
        }
        ids[i] = u.id;
    }
    qk_err e = tourney_forbid(r->api->svc, tid, r->sess->user_id, ids[0], ids[1], &why);
    answer(r, tid, e, why);
}

void op_tournament(req *r)
{
    int64_t tid;
    tid_of(r, &tid);
    if (visible(r, tid))
        reply_tourney(r, tid);
}

void op_tournaments(req *r)
{
    const char *status = req_str(r, "status");
    if (status && strcmp(status, "open") && strcmp(status, "running") &&
        strcmp(status, "finished")) {
        req_error(r, QK_ERR_BAD_REQUEST, "status must be open, running or finished");
        return;
    }
    cJSON *a = tourney_list(r->api->svc, status, 100, r->sess->user_id),
          *res = a ? req_ok(r) : NULL;
    if (!res || !cJSON_AddItemToObject(res, "tournaments", a)) {
        cJSON_Delete(a);
        cJSON_Delete(res);
        res = NULL;
    }
    req_reply(r, res);
}

void op_tournament_standings(req *r)
{
    int64_t tid;
    tid_of(r, &tid);
    const char *format = req_str(r, "format");
    if (format && strcmp(format, "csv") && strcmp(format, "json")) {
        req_error(r, QK_ERR_BAD_REQUEST, "format must be json or csv");
        return;
    }
    if (!visible(r, tid))
        return;
    if (!format || strcmp(format, "json") == 0) {
        qk_err e;
        cJSON *t = tourney_json(r->api->svc, tid, &e), *res = t ? req_ok(r) : NULL;
        if (!t) {
            req_error(r, e, e == QK_ERR_NOT_FOUND ? "no such tournament" : NULL);
            return;
        }
        cJSON *st = cJSON_DetachItemFromObject(t, "standings");
        cJSON_Delete(t);
        if (!res || !st || !cJSON_AddItemToObject(res, "standings", st)) {
            cJSON_Delete(st);
            cJSON_Delete(res);
            res = NULL;
        }
        req_reply(r, res);
        return;
    }
    char *csv = NULL;
    qk_err e = tourney_csv(r->api->svc, tid, &csv);
    if (e) {
        req_error(r, e, e == QK_ERR_NOT_FOUND ? "no such tournament" : NULL);
        return;
    }
    /* `csv` is the file (CRLF line ends); `csv_lines` the same lines
     * without them, for clients that keep control characters out of
     * what they print (the qirkat client replaces them). No field holds
     * CR or LF: usernames are [A-Za-z0-9_-]. */
    cJSON *res = req_ok(r), *lines = NULL;
    if (res && (!cJSON_AddStringToObject(res, "csv", csv) ||
                !(lines = cJSON_AddArrayToObject(res, "csv_lines")))) {
        cJSON_Delete(res);
        res = NULL;
    }
    for (char *p = csv, *eol; res && *p; p = eol + 2) {
        eol = strstr(p, "\r\n");
        if (!eol)
            break;
        *eol = '\0';
        cJSON *l = cJSON_CreateString(p);
        if (!l || !cJSON_AddItemToArray(lines, l)) {
            cJSON_Delete(l);
            cJSON_Delete(res);
            res = NULL;
        }
    }
    free(csv);
    req_reply(r, res);
}
