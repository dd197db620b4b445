/*
 * ops_challenge: challenge, accept, decline, cancel, challenges.
 *
 * A challenge is a row of `challenges`; only `open` ones can change, and
 * only once (store_challenge_close() is conditional on status = 'open').
 * Events: `challenge` goes to the target's connections (every logged-in
 * connection for an open seek) and the challenger's; `challenge_declined`
 * and `challenge_canceled` to both sides (everyone for an open seek);
 * `game_start` to both players. Events are queued before the answer, so
 * a client that has the answer has seen the events it caused.
 *
 * A challenge's start (the custom position or the variant's own) must be
 * playable: not already over (alquerkonane-2xC starts with Black, to
 * move, blocked) and with at most QK_MAX_MOVES legal moves, so the game
 * object can list them. A user has at most OPS_OPEN_CHALLENGES_MAX open
 * challenges: each one is an event to its target (or to everyone), so an
 * unbounded number would let one user flood another's connection.
 */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "game/auth.h"
#include "game/challenges.h"
#include "game/events.h"
#include "game/games.h"
#include "store/store.h"
#include "util/log.h"
#include "game/notify.h"
#include "game/ratings_svc.h"
#include "api/ops.h"
#include "store/store_corr.h"
#include "game/tc.h"

/* A rating (rounded, ratings_svc.h) or null as o's name. */
static bool add_rating_or_null(cJSON *o, const char *name, bool has, double v)
{
    return has ? cJSON_AddNumberToObject(o, name, ratings_round2(v)) != NULL
               : cJSON_AddNullToObject(o, name) != NULL;
}

/* The rating fields of a challenge (issue 12): from_rating, to_rating
 * (each side's rating now in the variant's family; null in an unrated
 * challenge and for an open seek's missing target), rating_min and
 * rating_max (an open seek's range; null = no bound). */
static bool add_challenge_ratings(api *s, const store_challenge *c, cJSON *o)
{
    char family[RATINGS_FAMILY_MAX];
    rating from = {0}, to = {0};
    int64_t min = -1, max = -1;
    ratings_family(c->variant, family);
    if (c->rated && (ratings_current(s->svc, c->from_id, family, &from, NULL) != STORE_OK ||
                     (c->to_id && ratings_current(s->svc, c->to_id, family, &to, NULL) != STORE_OK)))
        return false;
    int rc = c->to_id ? STORE_NOTFOUND : store_challenge_range_get(s->svc->store, c->id, &min, &max);
    if (rc != STORE_OK && rc != STORE_NOTFOUND)
        return false;
    return add_rating_or_null(o, "from_rating", c->rated, from.rating) &&
           add_rating_or_null(o, "to_rating", c->rated && c->to_id, to.rating) &&
           add_rating_or_null(o, "rating_min", min >= 0, (double)min) &&
           add_rating_or_null(o, "rating_max", max >= 0, (double)max);
}

/* The largest rating_min / rating_max a seek may ask for. */
#define RATING_RANGE_MAX 10000

static void challenge_create(req *r, store_challenge *cp, const char *to_name, bool vacation,
                             bool priv, const int64_t range[2]);

/* The challenge object of the game layer (challenges.h) plus its rating
 * fields (issue 12). */
static cJSON *challenge_json(api *s, const store_challenge *c)
{
    cJSON *o = challenges_json(c);
    if (o && !add_challenge_ratings(s, c, o)) {
        cJSON_Delete(o);
        o = NULL;
    }
    return o;
}

cJSON *ops_challenge_json(api *s, const store_challenge *c)
{
    return challenge_json(s, c);
}

/* The list being filled, and the open seeks by others in it (a full page
 * of them means there may be more: `seeks_next`). */
typedef struct challenge_list {
    api *api;
    cJSON *list;
    int64_t user_id, seeks, last_seek;
} challenge_list;

static int add_challenge_cb(void *arg, const store_challenge *c)
{
    challenge_list *cl = arg;
    cJSON *o = challenge_json(cl->api, c);
    if (!o || !cJSON_AddItemToArray(cl->list, o)) {
        cJSON_Delete(o);
        return 1;
    }
    if (c->to_id == 0 && c->from_id != cl->user_id) {
        cl->seeks++;
        cl->last_seek = c->id;
    }
    return 0;
}

bool ops_add_challenges(api *s, cJSON *res, int64_t user_id)
{
    challenge_list cl = {s, cJSON_AddArrayToObject(res, "challenges"), user_id, 0, 0};
    if (!cl.list ||
        store_challenges_for(s->svc->store, user_id, add_challenge_cb, &cl) != STORE_OK)
        return false;
    /* Others' seeks are one page (STORE_SEEKS_PAGE); the `seeks` op pages
     * on from here. */
    return cl.seeks >= STORE_SEEKS_PAGE
               ? cJSON_AddNumberToObject(res, "seeks_next", (double)cl.last_seek) != NULL
               : cJSON_AddNullToObject(res, "seeks_next") != NULL;
}

void op_challenges(req *r)
{
    cJSON *res = req_ok(r);
    if (res && !ops_add_challenges(r->api, res, r->sess->user_id)) {
        cJSON_Delete(res);
        res = NULL;
    }
    req_reply(r, res);
}

/* rating_min / rating_max of a challenge into range[0], range[1] (-1 =
 * absent): only on open seeks, each at most RATING_RANGE_MAX, min <= max.
 * Answers bad_request and returns -1 otherwise. */
static int challenge_range(req *r, bool targeted, int64_t range[2])
{
    static const char *names[2] = {"rating_min", "rating_max"};
    char buf[96];
    for (int i = 0; i < 2; i++) {
        uint64_t v;
        if (!req_uint(r, names[i], &v))
            continue;
        if (targeted) {
            snprintf(buf, sizeof buf, "%s is for open seeks only (no \"to\")", names[i]);
            req_error(r, QK_ERR_BAD_REQUEST, buf);
            return -1;
        }
        if (v > RATING_RANGE_MAX) {
            snprintf(buf, sizeof buf, "%s must be from 0 to %d", names[i], RATING_RANGE_MAX);
            req_error(r, QK_ERR_BAD_REQUEST, buf);
            return -1;
        }
        range[i] = (int64_t)v;
    }
    if (range[0] >= 0 && range[1] >= 0 && range[0] > range[1]) {
        req_error(r, QK_ERR_BAD_REQUEST, "rating_min must not be above rating_max");
        return -1;
    }
    return 0;
}

void op_challenge(req *r)
{
    api *s = r->api;
    const char *to = req_str(r, "to"), *variant = req_str(r, "variant");
    const char *color = req_str(r, "color"), *position = req_str(r, "position");
    const char *why = NULL;
    char buf[160];
    store_challenge c = {0};
    qk_variant v;
    qk_pos p;
    tc t;
    if (!variant)
        variant = "alquerque";
    if (qk_variant_parse(variant, &v) != QK_OK) {
        snprintf(buf, sizeof buf, "unknown variant \"%.64s\"", variant);
        req_error(r, QK_ERR_BAD_REQUEST, buf);
        return;
    }
    if (!color)
        color = "random";
    if (strcmp(color, "white") && strcmp(color, "black") && strcmp(color, "random")) {
        req_error(r, QK_ERR_BAD_REQUEST, "color must be white, black or random");
        return;
    }
    if (tc_parse(req_field(r, "time_control"), &t, &why) != 0) {
        req_error(r, QK_ERR_BAD_REQUEST, why);
        return;
    }
    if (position) {
        if (qk_pos_parse(&v, position, &p, &why) != QK_OK) {
            snprintf(buf, sizeof buf, "bad position: %s", why ? why : "malformed");
            req_error(r, QK_ERR_BAD_REQUEST, buf);
            return;
        }
        if (qk_pos_status(&v, &p, NULL, NULL)) {
            req_error(r, QK_ERR_BAD_REQUEST, "the position is already over");
            return;
        }
        if (games_too_many_moves(s->svc->games, &v, &p)) {
            req_error(r, QK_ERR_BAD_REQUEST, "the position has more than 4096 legal moves");
            return;
        }
        if (qk_pos_format(&v, &p, c.position, sizeof c.position) < 0) {
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
    if (to) {
        if (!auth_username_valid(to)) {
            req_error(r, QK_ERR_BAD_REQUEST, "\"to\" is not a username (1-32 of A-Z a-z 0-9 _ -)");
            return;
        }
        if (strcasecmp(to, session_username(r->sess)) == 0) {
            req_error(r, QK_ERR_BAD_REQUEST, "you cannot challenge yourself");
            return;
        }
    }
    c.rated = req_bool(r, "rated", false);
    snprintf(c.variant, sizeof c.variant, "%s", v.name);
    snprintf(c.color, sizeof c.color, "%s", color);
    if (tc_format(&t, c.time_control, sizeof c.time_control) != 0) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    int64_t range[2] = {-1, -1};
    if (challenge_range(r, to != NULL, range) != 0)
        return;
    challenge_create(r, &c, to, req_bool(r, "vacation", true), req_bool(r, "private", false),
                     range);
}

/* Make c (variant, colour, time control, position and rated filled in and
 * checked; the target's id, name and bot flag too unless to_name names the
 * target to look up, NULL for an open seek or a known target) a new open
 * challenge from r's user, with the options vacation and priv and an open
 * seek's rating range (range[0], range[1]; -1 = no bound), and answer r:
 * an unknown target first (`not_found`), the per-account rate and the cap
 * of open challenges (`rate_limited`, `conflict`), then the row, the
 * target's notification and the `challenge` event to both sides. Shared by
 * `challenge` and `rematch`. */
static void challenge_create(req *r, store_challenge *cp, const char *to_name, bool vacation,
                             bool priv, const int64_t range[2])
{
    api *s = r->api;
    store_challenge c = *cp;
    char buf[96];
    /* The rate is per account, not per connection (issue 21: one
     * connection made 160 challenge-and-cancel pairs a second at one
     * target), and from the rows, so every connection and node of the
     * account counts. All of it is read at once (store_challenge_checks). */
    const rate_window *w = &s->challenge_rate;
    int64_t now = svc_now(s->svc), window = (int64_t)w->seconds * 1000;
    store_challenge_facts chk;
    if (store_challenge_checks(s->svc->store, r->sess->user_id, w->off ? 0 : now - window + 1,
                               to_name, &chk) != STORE_OK) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    if (to_name) {
        if (!chk.to_found) {
            req_error(r, QK_ERR_NOT_FOUND, "no such user");
            return;
        }
        c.to_id = chk.to.id;
        c.to_bot = chk.to.bot;
        snprintf(c.to, sizeof c.to, "%s", chk.to.username);
    }
    if (!w->off && chk.made >= (int64_t)w->count) {
        snprintf(buf, sizeof buf, "at most %u challenges in %u s from one account",
                 (unsigned)w->count, (unsigned)w->seconds);
        cJSON *err = req_error_new(r, QK_ERR_RATE_LIMITED, buf);
        int64_t retry = chk.oldest + window - now; /* when the oldest leaves the window */
        if (err &&
            !cJSON_AddNumberToObject(err, "retry_after_ms", (double)(retry > 1 ? retry : 1))) {
            cJSON_Delete(err);
            err = NULL;
        }
        req_reply_error(r, err);
        return;
    }
    if (chk.open >= OPS_OPEN_CHALLENGES_MAX) {
        snprintf(buf, sizeof buf, "you have %d open challenges: cancel one or wait for an answer",
                 OPS_OPEN_CHALLENGES_MAX);
        req_error(r, QK_ERR_CONFLICT, buf);
        return;
    }
    c.from_id = r->sess->user_id;
    c.from_bot = session_bot(r->sess);
    snprintf(c.from, sizeof c.from, "%s", session_username(r->sess));
    if (svc_write_begin(s->svc) != 0) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    if (store_challenge_insert(s->svc->store, &c, svc_now(s->svc)) != STORE_OK ||
        store_challenge_x_put(s->svc->store, c.id, vacation, priv) != STORE_OK ||
        ((range[0] >= 0 || range[1] >= 0) &&
         store_challenge_range_put(s->svc->store, c.id, range[0], range[1]) != STORE_OK) ||
        notify_challenge(s->svc, &c) != 0) {
        svc_poison(s->svc);
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    cJSON *res = req_ok(r), *cj = challenge_json(s, &c);
    if (!res || !cj || !cJSON_AddItemToObject(res, "challenge", cj)) {
        cJSON_Delete(cj);
        cJSON_Delete(res);
        res = NULL;
    }
    challenges_event(s->svc, "challenge", &c, NULL);
    req_reply(r, res);
}

/* Load the challenge of r and check it is open; answers r and returns -1
 * otherwise. who: 1 = only the target, 2 = only the challenger, 0 = the
 * target or anyone for an open seek, but not the challenger. */
static int load_open(req *r, store_challenge *c, int who)
{
    uint64_t id = 0;
    req_uint(r, "challenge", &id);
    int rc = store_challenge_get(r->api->svc->store, (int64_t)id, c);
    if (rc == STORE_NOTFOUND) {
        req_error(r, QK_ERR_NOT_FOUND, "no such challenge");
        return -1;
    }
    if (rc != STORE_OK) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        return -1;
    }
    int64_t me = r->sess->user_id;
    bool allowed = who == 2   ? c->from_id == me
                   : who == 1 ? c->to_id == me
                              : c->from_id != me && (c->to_id == 0 || c->to_id == me);
    if (!allowed) {
        req_error(r, QK_ERR_FORBIDDEN,
                  c->from_id == me ? "that is your own challenge" : "that challenge is not yours");
        return -1;
    }
    if (strcmp(c->status, "open") != 0) {
        char buf[64];
        snprintf(buf, sizeof buf, "the challenge is already %s", c->status);
        req_error(r, QK_ERR_CONFLICT, buf);
        return -1;
    }
    return 0;
}

/* An open seek's rating range holds the accepter's rating now (in the
 * variant's family); answers forbidden (or internal) and returns false
 * otherwise. */
static bool in_range(req *r, const store_challenge *c)
{
    api *s = r->api;
    int64_t min = -1, max = -1;
    char family[RATINGS_FAMILY_MAX], buf[160];
    rating mine;
    if (c->to_id)
        return true;
    ratings_family(c->variant, family);
    if (store_challenge_range_get(s->svc->store, c->id, &min, &max) != STORE_OK ||
        ratings_current(s->svc, r->sess->user_id, family, &mine, NULL) != STORE_OK) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        return false;
    }
    double have = ratings_round2(mine.rating);
    if ((min < 0 || have >= (double)min) && (max < 0 || have <= (double)max))
        return true;
    char lo[24] = "any", hi[24] = "any";
    if (min >= 0)
        snprintf(lo, sizeof lo, "%lld", (long long)min);
    if (max >= 0)
        snprintf(hi, sizeof hi, "%lld", (long long)max);
    snprintf(buf, sizeof buf, "your %s rating %.2f is outside this seek's range %s-%s", family, have,
             lo, hi);
    req_error(r, QK_ERR_FORBIDDEN, buf);
    return false;
}

void op_accept(req *r)
{
    api *s = r->api;
    store_challenge c;
    if (load_open(r, &c, 0) != 0 || !in_range(r, &c))
        return;
    game_spec spec = {0};
    qk_variant *v = &spec.v;
    qk_pos p;
    if (qk_variant_parse(c.variant, v) != QK_OK || tc_from_text(c.time_control, &spec.tc) != 0) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    if (c.position[0]) {
        snprintf(spec.start, sizeof spec.start, "%s", c.position);
    } else {
        qk_variant_start(v, &p);
        /* A challenge made before `challenge` checked the variant's start
         * (alquerkonane-2xC) must not become a game that is over at once. */
        if (qk_pos_status(v, &p, NULL, NULL)) {
            req_error(r, QK_ERR_BAD_REQUEST, "the start position of this variant is already over");
            return;
        }
        if (qk_pos_format(v, &p, spec.start, sizeof spec.start) < 0) {
            req_error(r, QK_ERR_INTERNAL, NULL);
            return;
        }
    }
    bool from_white = strcmp(c.color, "white") == 0 ||
                      (strcmp(c.color, "random") == 0 && randombytes_uniform(2) == 0);
    int64_t me = r->sess->user_id;
    game_player challenger = {.id = c.from_id, .bot = c.from_bot};
    game_player accepter = {.id = me, .bot = session_bot(r->sess)};
    snprintf(challenger.name, sizeof challenger.name, "%s", c.from);
    snprintf(accepter.name, sizeof accepter.name, "%s", session_username(r->sess));
    spec.white = from_white ? challenger : accepter;
    spec.black = from_white ? accepter : challenger;
    spec.rated = c.rated;
    spec.challenge_id = c.id;
    /* The challenge's options, read with it (one round trip less on
     * PostgreSQL); "your turn" then goes to whoever starts. */
    spec.vacation = c.vacation;
    spec.priv = c.priv;
    game *g;
    if (svc_write_begin(s->svc) != 0 || games_start(s->svc->games, &spec, &g) != STORE_OK ||
        store_challenge_close(s->svc->store, c.id, "accepted", NULL, g->id, svc_now(s->svc)) !=
            STORE_OK) {
        svc_poison(s->svc);
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    ratings_game rg = {g->id, g->v.name, g->white.id, g->black.id, g->rated, false,
                       QK_RESULT_NONE};
    snprintf(c.status, sizeof c.status, "accepted");
    if (ratings_game_started(s->svc, &rg) != STORE_OK || notify_turn_if_away(s->svc, g) != 0 ||
        notify_challenge_closed(s->svc, &c) != 0) {
        svc_poison(s->svc);
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    log_debug("game %lld: %s (white) vs %s (black), %s", (long long)g->id, g->white.name,
              g->black.name, g->v.name);
    /* The challenge's row brought both vacations of a direct challenge
     * (its target is the accepter); an open seek's accepter is read. */
    int64_t until[2];
    until[from_white ? QK_WHITE : QK_BLACK] = c.from_vacation_until;
    until[from_white ? QK_BLACK : QK_WHITE] = c.to_vacation_until;
    cJSON *res = req_ok(r), *gj = c.to_id == me
                                      ? games_json_vacations(s->svc->games, g, true, until)
                                      : games_json(s->svc->games, g, true);
    cJSON *ev = qk_proto_event("game_start");
    cJSON *gj2 = gj ? cJSON_Duplicate(gj, true) : NULL;
    if (!res || !gj || !cJSON_AddItemToObject(res, "game", gj)) {
        cJSON_Delete(gj);
        cJSON_Delete(res);
        res = NULL;
    }
    if (!ev || !gj2 || !cJSON_AddItemToObject(ev, "game", gj2)) {
        cJSON_Delete(gj2);
        cJSON_Delete(ev);
        ev = NULL;
    }
    /* The challenger learns which game its challenge became (also in the
     * game object's `challenge`); an accepted seek leaves everyone's list. */
    snprintf(c.status, sizeof c.status, "accepted");
    c.game_id = g->id;
    c.updated = svc_now(s->svc);
    challenges_event(s->svc, "challenge", &c, NULL);
    events_to_players(s->svc, g, "game_start", ev);
    req_reply(r, res);
}

/* The machine-readable decline reasons (docs/protocol.md, `decline`):
 * a bot or a person says why, a program acts on it. The words are Lichess's
 * (its challenge decline reasons), so bots written for Lichess map 1:1. */
static const char *const decline_reasons[] = {"generic", "later",   "too_fast", "too_slow",
                                              "time_control", "rated", "casual",   "variant",
                                              "no_bot",  "only_bot", NULL};

static bool decline_reason_ok(const char *reason)
{
    for (size_t i = 0; decline_reasons[i]; i++)
        if (strcmp(reason, decline_reasons[i]) == 0)
            return true;
    return false;
}

/* decline / cancel: close the challenge and tell both sides. A decline's
 * `reason` is one word of decline_reasons (default "generic"); its free
 * `message`, if any, goes into the answer and the event only. */
static void close_challenge(req *r, int who, const char *status, const char *event)
{
    api *s = r->api;
    store_challenge c;
    bool decline = who == 1;
    const char *reason = decline ? req_str(r, "reason") : NULL;
    const char *message = decline ? req_str(r, "message") : NULL;
    if (decline && reason && !decline_reason_ok(reason)) {
        req_error(r, QK_ERR_BAD_REQUEST, "reason must be one of generic, later, too_fast, too_slow, time_control, rated, casual, "
                             "variant, no_bot, only_bot");
        return;
    }
    if (decline && !reason)
        reason = "generic";
    if (message && strlen(message) > STORE_REASON_MAX) {
        req_error(r, QK_ERR_BAD_REQUEST, "message is at most 200 bytes");
        return;
    }
    if (load_open(r, &c, who) != 0)
        return;
    int64_t now = svc_now(s->svc);
    if (svc_write_begin(s->svc) != 0 ||
        store_challenge_close(s->svc->store, c.id, status, reason ? reason : "", 0, now) != STORE_OK) {
        svc_poison(s->svc);
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    snprintf(c.status, sizeof c.status, "%s", status);
    snprintf(c.decline_reason, sizeof c.decline_reason, "%s", reason ? reason : "");
    c.updated = now;
    if (notify_challenge_closed(s->svc, &c) != 0) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    /* The challenger may be offline (correspondence): a notification
     * waits for the next login. notify_push poisoned the batch on error. */
    if (decline && notify_challenge_declined(s->svc, &c, message) != 0) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    cJSON *res = req_ok(r), *cj = challenge_json(s, &c);
    if (cj && decline && message && !cJSON_AddStringToObject(cj, "message", message)) {
        cJSON_Delete(cj);
        cj = NULL;
    }
    if (!res || !cj || !cJSON_AddItemToObject(res, "challenge", cj)) {
        cJSON_Delete(cj);
        cJSON_Delete(res);
        res = NULL;
    }
    challenges_event(s->svc, event, &c, decline ? message : NULL);
    req_reply(r, res);
}

void op_decline(req *r)
{
    close_challenge(r, 1, "declined", "challenge_declined");
}

void op_cancel(req *r)
{
    close_challenge(r, 2, "canceled", "challenge_canceled");
}

/* rematch: a new challenge to the opponent of a finished (or aborted)
 * game, colours swapped, with the game's variant, time control, start
 * (a custom one stays custom), rated flag and options. Checks: the game
 * exists (`not_found`); you play in it (`forbidden`); it is over
 * (`conflict`); then those of any challenge (`conflict` at 50 open). */
void op_rematch(req *r)
{
    api *s = r->api;
    uint64_t id = 0;
    req_uint(r, "game", &id);
    game *g;
    int rc = games_get(s->svc->games, (int64_t)id, &g);
    if (rc == STORE_NOTFOUND) {
        req_error(r, QK_ERR_NOT_FOUND, "no such game");
        return;
    }
    if (rc != STORE_OK) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    int side = games_side_of(g, r->sess->user_id);
    if (side < 0) {
        req_error(r, QK_ERR_FORBIDDEN, "you do not play in this game");
        return;
    }
    if (g->status == GAME_ACTIVE) {
        req_error(r, QK_ERR_CONFLICT, "the game is still active: a rematch follows its end");
        return;
    }
    const game_player *opp = games_player(g, side == QK_WHITE ? QK_BLACK : QK_WHITE);
    store_challenge c = {0};
    c.to_id = opp->id;
    c.to_bot = opp->bot;
    snprintf(c.to, sizeof c.to, "%s", opp->name);
    snprintf(c.variant, sizeof c.variant, "%s", g->v.name);
    snprintf(c.color, sizeof c.color, "%s", side == QK_WHITE ? "black" : "white");
    c.rated = g->rated;
    /* The variant's own start is stored as "no position", as `challenge`
     * does; only a custom start is carried over as a position. */
    qk_pos p;
    char start[QK_POS_STRLEN];
    qk_variant_start(&g->v, &p);
    if (qk_pos_format(&g->v, &p, start, sizeof start) < 0 ||
        tc_format(&g->tc, c.time_control, sizeof c.time_control) != 0) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    if (strcmp(start, g->start) != 0)
        snprintf(c.position, sizeof c.position, "%s", g->start);
    static const int64_t no_range[2] = {-1, -1};
    challenge_create(r, &c, NULL, g->vacation, g->priv, no_range);
}
