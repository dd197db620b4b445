/*
 * tourney: see tourney.h. Every operation loads the whole tournament
 * (tstate: the row, its players by pairing number, its pairings by round
 * and board, its forbidden pairs) from the store, decides, then writes.
 */
#include "game/tourney.h"

#include <stdlib.h>
#include <string.h>

#include "game/events.h"
#include "game/games.h"
#include "game/notify.h"
#include "game/pairing.h"
#include "game/ratings_svc.h"
#include "game/standings.h"
#include "game/tc.h"
#include "util/workers.h"
#include "util/log.h"

typedef struct tstate {
    store_tourney t;
    store_tplayer *pl; /* by pairing number */
    size_t np, cappl;
    store_pairing *pr; /* by round, board */
    size_t npr, cappr;
    pairing_forbid forbid[PAIRING_MAX_PLAYERS];
    int64_t forbid_ids[PAIRING_MAX_PLAYERS][2];
    int nforbid;
} tstate;

static void tstate_free(tstate *ts)
{
    free(ts->pl);
    free(ts->pr);
    memset(ts, 0, sizeof *ts);
}

static int grow(void **p, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? *cap * 2 : 16;
    void *q = realloc(*p, c * size);
    if (!q)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

static int player_cb(void *arg, const store_tplayer *p)
{
    tstate *ts = arg;
    if (grow((void **)&ts->pl, &ts->cappl, ts->np, sizeof *ts->pl))
        return 1;
    ts->pl[ts->np++] = *p;
    return 0;
}

static int pairing_cb(void *arg, const store_pairing *p)
{
    tstate *ts = arg;
    if (grow((void **)&ts->pr, &ts->cappr, ts->npr, sizeof *ts->pr))
        return 1;
    ts->pr[ts->npr++] = *p;
    return 0;
}

static int forbid_cb(void *arg, int64_t a, int64_t b)
{
    tstate *ts = arg;
    if (ts->nforbid == PAIRING_MAX_PLAYERS)
        return 0; /* more than the pairer needs to know about; ignored */
    ts->forbid_ids[ts->nforbid][0] = a;
    ts->forbid_ids[ts->nforbid][1] = b;
    ts->nforbid++;
    return 0;
}

/* Load tid: QK_ERR_NONE, NOT_FOUND, INTERNAL. */
static qk_err load(gsvc *s, int64_t tid, tstate *ts)
{
    memset(ts, 0, sizeof *ts);
    int rc = store_tourney_get(s->store, tid, &ts->t);
    if (rc == STORE_NOTFOUND)
        return QK_ERR_NOT_FOUND;
    if (rc || store_tplayers_each(s->store, tid, player_cb, ts) != STORE_OK ||
        store_pairings_each(s->store, tid, pairing_cb, ts) != STORE_OK ||
        store_forbids_each(s->store, tid, forbid_cb, ts) != STORE_OK) {
        tstate_free(ts);
        return QK_ERR_INTERNAL;
    }
    return QK_ERR_NONE;
}

static store_tplayer *player_of(tstate *ts, int64_t user_id)
{
    for (size_t i = 0; i < ts->np; i++)
        if (ts->pl[i].user_id == user_id)
            return &ts->pl[i];
    return NULL;
}

static store_tplayer *player_by_number(tstate *ts, int64_t number)
{
    for (size_t i = 0; i < ts->np; i++)
        if (ts->pl[i].number == number)
            return &ts->pl[i];
    return NULL;
}

static const char *name_of(tstate *ts, int64_t user_id)
{
    store_tplayer *p = player_of(ts, user_id);
    return p ? p->username : "";
}

static bool is_rr(const tstate *ts)
{
    return strcmp(ts->t.system, "round_robin") == 0;
}

/* A pairing's result is in: a result word, or a forfeit (result "" there
 * is a double forfeit), or a bye. */
static bool pairing_done(const store_pairing *p)
{
    return p->result[0] || strcmp(p->kind, "game") != 0;
}

static bool round_done(const tstate *ts, int64_t round)
{
    for (size_t i = 0; i < ts->npr; i++)
        if (ts->pr[i].round == round && !pairing_done(&ts->pr[i]))
            return false;
    return true;
}

int tourney_rating(gsvc *s, int64_t user_id, const char *variant)
{
    /* The player's rating now in the variant's family (ratings_svc.h:
     * inactivity included); 1500, Glicko-2's start, for a player without a
     * rated game there or when the store cannot say: pairing then orders
     * by pairing number, which is what FIDE's rules fall back to. */
    char family[RATINGS_FAMILY_MAX];
    ratings_family(variant, family);
    rating r;
    bool found = false;
    if (ratings_current(s, user_id, family, &r, &found) != STORE_OK || !found)
        return 1500;
    return (int)(r.rating + 0.5);
}

/* ---- writes ------------------------------------------------------------- */

static qk_err begin(gsvc *s)
{
    return svc_write_begin(s) != 0 ? QK_ERR_INTERNAL : QK_ERR_NONE;
}

static qk_err fail(gsvc *s)
{
    svc_poison(s);
    return QK_ERR_INTERNAL;
}

static qk_err put_tourney(gsvc *s, tstate *ts)
{
    ts->t.updated = svc_now(s);
    return store_tourney_update(s->store, &ts->t) == STORE_OK ? QK_ERR_NONE : fail(s);
}

/* Send ev (consumed) to every player of ts and its organiser. */
static void send_all(gsvc *s, tstate *ts, const char *name, cJSON *ev)
{
    if (!ev) {
        events_send(s, name, NULL, (events_to){0});
        return;
    }
    for (size_t i = 0; i < ts->np; i++)
        if (ts->pl[i].user_id != ts->t.organiser_id)
            events_to_user(s, ts->pl[i].user_id, name, cJSON_Duplicate(ev, true));
    events_to_user(s, ts->t.organiser_id, name, ev);
}

static cJSON *standings_json(tstate *ts, qk_err *err);
static cJSON *pairings_json(tstate *ts, int64_t round, cJSON **bye);
static qk_err compute(tstate *ts, standings_row **rows_out, standings_player **pl_out);

/* Store each player's tournament_end notice (rank, points). */
static qk_err notify_end(gsvc *s, tstate *ts, const char *reason)
{
    standings_row *rows;
    standings_player *pl;
    if (compute(ts, &rows, &pl) != QK_ERR_NONE)
        return fail(s);
    qk_err e = QK_ERR_NONE;
    for (size_t i = 0; !e && i < ts->np; i++) {
        store_tplayer *p = player_by_number(ts, rows[i].id);
        if (p && notify_tournament_end(s, p->user_id, ts->t.id, ts->t.name, rows[i].rank,
                                       rows[i].points, reason) != 0)
            e = QK_ERR_INTERNAL; /* the batch is poisoned */
    }
    free(rows);
    free(pl);
    return e;
}

/* Store a tournament_round notice for every player of round who is not
 * withdrawn: their board (game, opponent, colour), their bye, or their
 * forfeit win. */
static qk_err notify_round(gsvc *s, tstate *ts, int64_t round)
{
    for (size_t i = 0; i < ts->npr; i++) {
        store_pairing *p = &ts->pr[i];
        if (p->round != round)
            continue;
        bool bye = strcmp(p->kind, "bye") == 0, forfeit = strcmp(p->kind, "forfeit") == 0;
        for (int side = 0; side < (bye ? 1 : 2); side++) {
            store_tplayer *me = player_of(ts, side ? p->black_id : p->white_id);
            store_tplayer *opp = bye ? NULL : player_of(ts, side ? p->white_id : p->black_id);
            if (!me || me->withdrawn)
                continue;
            notify_tround nt = {.tournament_id = ts->t.id,
                                .name = ts->t.name,
                                .round = round,
                                .game_id = p->game_id,
                                .opponent = opp ? opp->username : NULL,
                                .color = bye ? NULL : side ? "black" : "white",
                                .bye = bye,
                                .result = forfeit ? p->result : NULL};
            if (notify_tournament_round(s, me->user_id, &nt) != 0)
                return QK_ERR_INTERNAL; /* the batch is poisoned */
        }
    }
    return QK_ERR_NONE;
}

/* End ts with reason ("" = all rounds played) and send tournament_end. */
static qk_err finish(gsvc *s, tstate *ts, const char *reason)
{
    snprintf(ts->t.status, sizeof ts->t.status, "finished");
    snprintf(ts->t.end_reason, sizeof ts->t.end_reason, "%s", reason);
    qk_err e = put_tourney(s, ts);
    if (!e)
        e = notify_end(s, ts, reason);
    if (e)
        return e;
    qk_err se;
    cJSON *ev = qk_proto_event("tournament_end"), *st = standings_json(ts, &se);
    if (!ev || !st || !cJSON_AddItemToObject(ev, "standings", st)) {
        cJSON_Delete(st);
        cJSON_Delete(ev);
        ev = NULL;
    } else if (!cJSON_AddNumberToObject(ev, "tournament", (double)ts->t.id) ||
               (reason[0] && !cJSON_AddStringToObject(ev, "reason", reason))) {
        cJSON_Delete(ev);
        ev = NULL;
    }
    send_all(s, ts, "tournament_end", ev);
    log_info("tournament %lld finished%s%s", (long long)ts->t.id, reason[0] ? ": " : "", reason);
    return QK_ERR_NONE;
}

/* Start the game of pairing p (its players present and not withdrawn). */
static qk_err start_game(gsvc *s, tstate *ts, store_pairing *p)
{
    game_spec spec = {0};
    store_tplayer *w = player_of(ts, p->white_id), *b = player_of(ts, p->black_id);
    qk_pos pos;
    if (!w || !b || qk_variant_parse(ts->t.variant, &spec.v) != QK_OK ||
        tc_from_text(ts->t.time_control, &spec.tc) != 0)
        return QK_ERR_INTERNAL;
    if (ts->t.position[0]) {
        snprintf(spec.start, sizeof spec.start, "%s", ts->t.position);
    } else {
        qk_variant_start(&spec.v, &pos);
        if (qk_pos_format(&spec.v, &pos, spec.start, sizeof spec.start) < 0)
            return QK_ERR_INTERNAL;
    }
    spec.white = (game_player){.id = w->user_id, .bot = w->bot};
    spec.black = (game_player){.id = b->user_id, .bot = b->bot};
    snprintf(spec.white.name, sizeof spec.white.name, "%s", w->username);
    snprintf(spec.black.name, sizeof spec.black.name, "%s", b->username);
    spec.rated = ts->t.rated;
    spec.vacation = true; /* as a challenge's default: a vacation moves the deadline */
    spec.tournament_id = ts->t.id;
    spec.round = p->round;
    game *g;
    if (games_start(s->games, &spec, &g) != STORE_OK)
        return fail(s);
    p->game_id = g->id;
    /* What an accepted challenge records at its start (ops_challenge.c):
     * a rated game's start ratings, then the side to move's notice. */
    ratings_game rg = {g->id, g->v.name, g->white.id, g->black.id, g->rated, false,
                       QK_RESULT_NONE};
    if (ratings_game_started(s, &rg) != STORE_OK || notify_turn_if_away(s, g) != 0)
        return fail(s);
    cJSON *ev = qk_proto_event("game_start"), *gj = games_json(s->games, g, true);
    if (!ev || !gj || !cJSON_AddItemToObject(ev, "game", gj)) {
        cJSON_Delete(gj);
        cJSON_Delete(ev);
        ev = NULL;
    }
    events_to_players(s, g, "game_start", ev);
    return QK_ERR_NONE;
}

/* Add pairing p to the store (and its game when it is one) and to ts. */
static qk_err add_pairing(gsvc *s, tstate *ts, store_pairing *p)
{
    if (strcmp(p->kind, "game") == 0) {
        qk_err e = start_game(s, ts, p);
        if (e)
            return e;
    }
    int rc = store_pairing_insert(s->store, p);
    if (rc != STORE_OK) {
        /* The key (tournament, round, board) is the last guard against
         * a round paired twice; the checks before should make it
         * unreachable. The whole batch, games included, is undone. */
        log_error("tournament %lld round %lld board %lld: pairing insert %d",
                  (long long)p->tournament_id, (long long)p->round, (long long)p->board, rc);
        return fail(s);
    }
    if (grow((void **)&ts->pr, &ts->cappr, ts->npr, sizeof *ts->pr))
        return fail(s);
    ts->pr[ts->npr++] = *p;
    return QK_ERR_NONE;
}

/* A board of round between players a (white) and b (black); a withdrawn
 * side forfeits. */
static qk_err add_board(gsvc *s, tstate *ts, int64_t round, int64_t board, store_tplayer *a,
                        store_tplayer *b)
{
    store_pairing p = {.tournament_id = ts->t.id, .round = round, .board = board};
    p.white_id = a->user_id;
    p.black_id = b->user_id;
    if (a->withdrawn || b->withdrawn) {
        snprintf(p.kind, sizeof p.kind, "forfeit");
        snprintf(p.result, sizeof p.result, "%s",
                 a->withdrawn && b->withdrawn ? ""
                 : a->withdrawn               ? "black"
                                              : "white");
    } else {
        snprintf(p.kind, sizeof p.kind, "game");
    }
    return add_pairing(s, ts, &p);
}

/* Fill pp (the Swiss pairer's view) from ts's rounds before `round`. */
static void swiss_players(gsvc *s, tstate *ts, int64_t round, pairing_player *pp)
{
    for (size_t i = 0; i < ts->np; i++) {
        store_tplayer *me = &ts->pl[i];
        pairing_player *q = &pp[i];
        memset(q, 0, sizeof *q);
        q->number = (int)me->number;
        q->rating = tourney_rating(s, me->user_id, ts->t.variant);
        q->withdrawn = me->withdrawn;
        for (int64_t r = 1; r < round && q->rounds < PAIRING_MAX_ROUNDS; r++) {
            char colour = '-';
            for (size_t k = 0; k < ts->npr; k++) {
                store_pairing *p = &ts->pr[k];
                if (p->round != r || (p->white_id != me->user_id && p->black_id != me->user_id))
                    continue;
                bool white = p->white_id == me->user_id;
                if (strcmp(p->kind, "bye") == 0) {
                    q->had_bye = true;
                    q->score2 += 2;
                    continue;
                }
                store_tplayer *opp = player_of(ts, white ? p->black_id : p->white_id);
                if (opp && q->n_met < PAIRING_MAX_ROUNDS)
                    q->met[q->n_met++] = (int)opp->number;
                const char *mine = white ? "white" : "black";
                if (strcmp(p->result, mine) == 0)
                    q->score2 += 2;
                else if (strcmp(p->result, "draw") == 0)
                    q->score2 += 1;
                if (strcmp(p->kind, "game") == 0)
                    colour = white ? 'W' : 'B';
                else if (strcmp(p->result, mine) == 0)
                    q->had_forfeit_win = true;
            }
            q->colours[q->rounds++] = colour;
        }
    }
}

/* ts's forbidden pairs in pairing numbers into fb (PAIRING_MAX_PLAYERS
 * entries); how many. */
static int swiss_forbidden(tstate *ts, pairing_forbid *fb)
{
    int nf = 0;
    for (int i = 0; i < ts->nforbid; i++) {
        store_tplayer *a = player_of(ts, ts->forbid_ids[i][0]),
                      *b = player_of(ts, ts->forbid_ids[i][1]);
        if (a && b)
            fb[nf++] = (pairing_forbid){(int)a->number, (int)b->number};
    }
    return nf;
}

static bool is_external(const tstate *ts)
{
    return !is_rr(ts) && strcmp(ts->t.pairer, "external") == 0;
}

/* The end_reason of a Swiss round that no pairing satisfies. */
static void no_pairing_reason(int64_t round, bool external, char *why, size_t len)
{
    snprintf(why, len,
             "no valid pairing for round %lld (C.04.1: no rematch, "
             "byes, colours, forbidden pairs)%s",
             (long long)round, external ? "; the pairing program and the built-in pairer agree" : "");
}

static qk_err pair_next(gsvc *s, tstate *ts, const tourney_done *done, bool *pending,
                        const char **why);

/* Write round `round` of ts as res pairs it (pairing numbers; the batch
 * begun), start its games, tell the players (events and stored
 * notifications), and move on when the round is over at once. */
static qk_err apply_round(gsvc *s, tstate *ts, int64_t round, const pairing_result *res)
{
    ts->t.current_round = round;
    qk_err e = put_tourney(s, ts);
    int64_t board = 1;
    for (int i = 0; !e && i < res->n_pairs; i++, board++)
        e = add_board(s, ts, round, board, player_by_number(ts, res->pairs[i].white),
                      player_by_number(ts, res->pairs[i].black));
    if (!e && res->bye) {
        store_tplayer *b = player_by_number(ts, res->bye);
        store_pairing p = {.tournament_id = ts->t.id, .round = round, .board = board};
        p.white_id = b->user_id;
        snprintf(p.kind, sizeof p.kind, "bye");
        snprintf(p.result, sizeof p.result, "white");
        e = add_pairing(s, ts, &p);
    }
    if (!e)
        e = notify_round(s, ts, round);
    if (e)
        return e;
    cJSON *bye = NULL, *ev = qk_proto_event("tournament_round"),
          *pj = pairings_json(ts, round, &bye);
    if (!ev || !pj || !cJSON_AddItemToObject(ev, "pairings", pj)) {
        cJSON_Delete(pj);
        cJSON_Delete(bye);
        cJSON_Delete(ev);
        ev = NULL;
    } else if (!cJSON_AddItemToObject(ev, "bye", bye)) {
        cJSON_Delete(bye);
        cJSON_Delete(ev);
        ev = NULL;
    } else if (!cJSON_AddNumberToObject(ev, "tournament", (double)ts->t.id) ||
               !cJSON_AddNumberToObject(ev, "round", (double)round)) {
        cJSON_Delete(ev);
        ev = NULL;
    }
    send_all(s, ts, "tournament_round", ev);
    /* A round that is over at once (forfeits, byes only) moves on. */
    if (round_done(ts, round) && (strcmp(ts->t.start_mode, "auto") == 0 || round == ts->t.rounds))
        return pair_next(s, ts, NULL, NULL, NULL);
    return QK_ERR_NONE;
}

/* ---- the external pairer -------------------------------------------------
 * A job carries a snapshot of the round's input (the Swiss view, the TRF
 * players, the forbidden pairs) to the pool, where pairing_external()
 * runs the program; back on the loop thread job_done() loads the
 * tournament again and writes only if nothing the pairing depends on
 * changed (the fingerprint: the TRF text without ratings, which cover
 * players, withdrawals, every result and the forbidden pairs). */

struct tourney_job {
    workers_job job; /* first: a workers_job * is a tourney_job * */
    gsvc *s;
    struct tourney_job *next; /* s->pairing_jobs */
    int64_t tid, round;
    bool start;         /* tourney_start: the tournament is open until this lands */
    tourney_done done;  /* fn NULL: an automatic pairing (its outcome is logged) */
    const char *program;
    int timeout_ms, rounds_left;
    int n, nf;
    pairing_player pp[PAIRING_MAX_PLAYERS];
    pairing_forbid fb[PAIRING_MAX_PLAYERS];
    pairing_trf_player tp[PAIRING_MAX_PLAYERS];
    char names[PAIRING_MAX_PLAYERS][33];
    char tname[STORE_TNAME_MAX + 1];
    int total_rounds;
    char *fingerprint;
    /* set on the pool thread */
    bool ran, builtin_none;
    int rc;
    pairing_result res;
    char msg[STORE_TREASON_MAX + 120];
};

static void job_free(tourney_job *j)
{
    if (j) {
        free(j->fingerprint);
        free(j);
    }
}

/* The TRF entry of player me for round r (before the round to pair). */
static qk_err trf_game(tstate *ts, const store_tplayer *me, int64_t r, pairing_trf_game *g)
{
    *g = (pairing_trf_game){0, '-', 'Z'}; /* not paired: a missed round (late join, withdrawn) */
    for (size_t k = 0; k < ts->npr; k++) {
        store_pairing *p = &ts->pr[k];
        if (p->round != r || (p->white_id != me->user_id && p->black_id != me->user_id))
            continue;
        if (strcmp(p->kind, "bye") == 0) {
            *g = (pairing_trf_game){0, '-', 'U'};
            return QK_ERR_NONE;
        }
        bool white = p->white_id == me->user_id;
        store_tplayer *opp = player_of(ts, white ? p->black_id : p->white_id);
        const char *mine = white ? "white" : "black";
        if (!opp)
            return QK_ERR_INTERNAL;
        g->opponent = (int)opp->number;
        g->colour = white ? 'w' : 'b';
        if (strcmp(p->kind, "forfeit") == 0)
            g->result = strcmp(p->result, mine) == 0 ? '+' : '-';
        else if (!p->result[0])
            return QK_ERR_INTERNAL; /* an earlier round without its result */
        else
            g->result = strcmp(p->result, "draw") == 0 ? '=' : strcmp(p->result, mine) == 0 ? '1'
                                                                                          : '0';
        return QK_ERR_NONE;
    }
    return QK_ERR_NONE;
}

/* The TRF of j as text (malloc()ed) or NULL. */
static char *trf_text(const tourney_job *j)
{
    pairing_trf t = {j->tname, j->total_rounds, j->tp, j->n, j->fb, j->nf};
    size_t cap = 256 * 1024, len;
    char *buf = malloc(cap);
    if (buf && pairing_trf_write(&t, buf, cap, &len) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* Fill j with ts's input for round `round`: the Swiss view, the
 * forbidden pairs, the TRF players, the fingerprint (ratings left out:
 * they may move with games outside the tournament and do not make a
 * pairing invalid), then the ratings. */
static qk_err job_fill(gsvc *s, tstate *ts, int64_t round, tourney_job *j)
{
    if (ts->np > PAIRING_MAX_PLAYERS || round > PAIRING_MAX_ROUNDS)
        return QK_ERR_INTERNAL;
    j->tid = ts->t.id;
    j->round = round;
    j->n = (int)ts->np;
    j->rounds_left = (int)(ts->t.rounds - round);
    j->total_rounds = (int)ts->t.rounds;
    snprintf(j->tname, sizeof j->tname, "%s", ts->t.name);
    swiss_players(s, ts, round, j->pp);
    j->nf = swiss_forbidden(ts, j->fb);
    for (size_t i = 0; i < ts->np; i++) {
        store_tplayer *me = &ts->pl[i];
        pairing_trf_player *q = &j->tp[i];
        memset(q, 0, sizeof *q);
        snprintf(j->names[i], sizeof j->names[i], "%s", me->username);
        q->number = (int)me->number;
        q->name = j->names[i];
        q->withdrawn = me->withdrawn;
        for (int64_t r = 1; r < round; r++)
            if (trf_game(ts, me, r, &q->games[q->rounds++]) != QK_ERR_NONE)
                return QK_ERR_INTERNAL;
    }
    if (!(j->fingerprint = trf_text(j)))
        return QK_ERR_INTERNAL;
    for (int i = 0; i < j->n; i++)
        j->tp[i].rating = j->pp[i].rating > 9999 ? 9999 : j->pp[i].rating;
    return QK_ERR_NONE;
}

static tourney_job *job_inflight(gsvc *s, int64_t tid)
{
    for (tourney_job *j = s->pairing_jobs; j; j = j->next)
        if (j->tid == tid)
            return j;
    return NULL;
}

static void job_unlink(tourney_job *j)
{
    for (tourney_job **p = &j->s->pairing_jobs; *p; p = &(*p)->next)
        if (*p == j) {
            *p = j->next;
            return;
        }
}

/* Pool thread: only the job is touched. */
static void job_work(workers_job *w)
{
    tourney_job *j = (tourney_job *)w;
    j->ran = true;
    pairing_trf t = {j->tname, j->total_rounds, j->tp, j->n, j->fb, j->nf};
    j->rc = pairing_external(j->program, &t, NULL, j->timeout_ms, &j->res);
    if (j->rc == PAIRING_ERR_NO_PAIRING) {
        /* bbpPairings' "no valid pairing" ends the tournament only when
         * the built-in pairer, which finds a pairing whenever the hard
         * rules allow one, agrees: a broken program cannot end it. */
        pairing_result r2;
        j->builtin_none =
            pairing_swiss(j->pp, j->n, j->fb, j->nf, j->rounds_left, &r2) == PAIRING_ERR_NO_PAIRING;
    }
}

/* Loop thread: check that the tournament is still as the job saw it, then
 * write the round (or the end); report to the job's requester. */
static void job_done(workers_job *w)
{
    tourney_job *j = (tourney_job *)w, *now = NULL;
    gsvc *s = j->s;
    job_unlink(j);
    qk_err e = QK_ERR_NONE;
    const char *why = NULL;
    char check[160];
    tstate ts;
    bool loaded = false;
    /* A stopping server still writes what comes back while connections
     * are open (srv.h "Stopping": work in flight is answered normally);
     * once the pool closes (no connection is left) it is discarded. */
    if (!j->ran || !s->pairing_pool) {
        e = QK_ERR_SERVER_SHUTDOWN;
        why = "the server is stopping: the round was not paired";
        goto report;
    }
    if (j->rc != 0 && !(j->rc == PAIRING_ERR_NO_PAIRING && j->builtin_none)) {
        e = QK_ERR_INTERNAL;
        if (j->rc == PAIRING_ERR_NO_PAIRING)
            snprintf(j->msg, sizeof j->msg,
                     "the pairing program found no pairing for round %lld, but a valid one "
                     "exists: nothing was changed",
                     (long long)j->round);
        else
            snprintf(j->msg, sizeof j->msg,
                     "the pairing program failed for round %lld (%s): nothing was changed",
                     (long long)j->round, pairing_strerror(j->rc));
        why = j->msg;
        goto report;
    }
    if ((e = load(s, j->tid, &ts))) {
        why = e == QK_ERR_NOT_FOUND ? "no such tournament" : NULL;
        goto report;
    }
    loaded = true;
    const char *want = j->start ? "open" : "running";
    if (!(now = calloc(1, sizeof *now))) {
        e = QK_ERR_INTERNAL;
        goto report;
    }
    if (strcmp(ts.t.status, want) != 0 || ts.t.current_round != j->round - 1 ||
        !round_done(&ts, ts.t.current_round) || job_fill(s, &ts, j->round, now) != QK_ERR_NONE ||
        strcmp(now->fingerprint, j->fingerprint) != 0) {
        e = QK_ERR_CONFLICT;
        why = "the tournament changed while the pairing program ran (a result, a player, a "
              "withdrawal or another pairing): nothing was changed; pair again";
        goto report;
    }
    if (j->rc == 0 &&
        pairing_check(now->pp, now->n, now->fb, now->nf, &j->res, check, sizeof check) != 0) {
        e = QK_ERR_INTERNAL;
        snprintf(j->msg, sizeof j->msg,
                 "the pairing program's pairing of round %lld is invalid (%s): nothing was "
                 "changed",
                 (long long)j->round, check);
        why = j->msg;
        log_error("tournament %lld: %s", (long long)j->tid, j->msg);
        goto report;
    }
    if ((e = begin(s)))
        goto report;
    if (j->start)
        snprintf(ts.t.status, sizeof ts.t.status, "running");
    if (j->rc == PAIRING_ERR_NO_PAIRING) {
        char reason[STORE_TREASON_MAX];
        no_pairing_reason(j->round, true, reason, sizeof reason);
        e = finish(s, &ts, reason);
    } else {
        e = apply_round(s, &ts, j->round, &j->res);
    }
report:
    if (j->done.fn)
        j->done.fn(j->done.arg, j->tid, e, why);
    else if (e)
        log_warn("tournament %lld: the automatic pairing of round %lld did not happen: %s",
                 (long long)j->tid, (long long)j->round, why ? why : qk_err_code(e));
    if (loaded)
        tstate_free(&ts);
    job_free(now);
    job_free(j);
}

/* Send round `round` of ts to the pairing program (off the loop thread).
 * A request (done set) gets *pending = true and later done->fn; an
 * automatic pairing (done NULL) logs what it cannot do and returns
 * QK_ERR_NONE, so the batch that finished the last game is kept. */
static qk_err submit(gsvc *s, tstate *ts, int64_t round, bool start, const tourney_done *done,
                     bool *pending, const char **why_out)
{
    const char *why = NULL;
    qk_err e = QK_ERR_CONFLICT;
    tourney_job *j = NULL;
    if (job_inflight(s, ts->t.id)) {
        why = "this round is being paired (the pairing program is running)";
    } else if (!s->pairing_program || !s->pairing_pool) {
        why = "this tournament is paired by an external pairing program, and the server has "
              "none (qirkatd --pairing-program)";
    } else if (!(j = calloc(1, sizeof *j)) || job_fill(s, ts, round, j) != QK_ERR_NONE) {
        e = QK_ERR_INTERNAL;
    } else {
        j->s = s;
        j->start = start;
        j->program = s->pairing_program;
        j->timeout_ms = s->pairing_timeout_ms > 0 ? s->pairing_timeout_ms
                                                  : TOURNEY_PAIRING_TIMEOUT_MS;
        j->job.work = job_work;
        j->job.done = job_done;
        if (done)
            j->done = *done;
        if (workers_submit(s->pairing_pool, &j->job) == 0) {
            j->next = s->pairing_jobs;
            s->pairing_jobs = j;
            if (pending)
                *pending = true;
            return QK_ERR_NONE;
        }
        why = "the server is stopping";
        e = QK_ERR_SERVER_SHUTDOWN;
    }
    job_free(j);
    if (why_out)
        *why_out = why;
    if (!done) {
        log_warn("tournament %lld: round %lld not paired automatically: %s", (long long)ts->t.id,
                 (long long)round, why ? why : "out of memory");
        return QK_ERR_NONE;
    }
    return e;
}

/* Pair round ts->t.current_round + 1 (the batch begun, except for an
 * external pairing, which writes nothing now) and send tournament_round;
 * past the last round, finish. */
static qk_err pair_next(gsvc *s, tstate *ts, const tourney_done *done, bool *pending,
                        const char **why)
{
    int64_t round = ts->t.current_round + 1;
    if (round > ts->t.rounds)
        return finish(s, ts, "");
    if (is_external(ts))
        return submit(s, ts, round, false, done, pending, why);
    pairing_result res;
    int n = (int)ts->np;
    if (is_rr(ts)) {
        if (pairing_rr_round(n, ts->t.dbl, (int)round, &res) != 0)
            return QK_ERR_INTERNAL;
        /* Berger numbers are places in pairing-number order. */
        for (int i = 0; i < res.n_pairs; i++) {
            store_tplayer *a = &ts->pl[res.pairs[i].white - 1],
                          *b = &ts->pl[res.pairs[i].black - 1];
            res.pairs[i].white = (int)a->number;
            res.pairs[i].black = (int)b->number;
        }
        if (res.bye)
            res.bye = (int)ts->pl[res.bye - 1].number;
    } else {
        pairing_player *pp = calloc(ts->np ? ts->np : 1, sizeof *pp);
        if (!pp)
            return QK_ERR_INTERNAL;
        swiss_players(s, ts, round, pp);
        pairing_forbid fb[PAIRING_MAX_PLAYERS];
        int nf = swiss_forbidden(ts, fb);
        int rc = pairing_swiss(pp, n, fb, nf, (int)(ts->t.rounds - round), &res);
        free(pp);
        if (rc == PAIRING_ERR_NO_PAIRING) {
            char reason[STORE_TREASON_MAX];
            no_pairing_reason(round, false, reason, sizeof reason);
            return finish(s, ts, reason);
        }
        if (rc != 0) {
            log_error("tournament %lld: swiss pairer: %s", (long long)ts->t.id,
                      pairing_strerror(rc));
            return QK_ERR_INTERNAL;
        }
    }
    return apply_round(s, ts, round, &res);
}

/* ---- operations --------------------------------------------------------- */

qk_err tourney_create(gsvc *s, store_tourney *t, int64_t *id)
{
    t->created = t->updated = svc_now(s);
    snprintf(t->status, sizeof t->status, "open");
    if (begin(s) || store_tourney_insert(s->store, t) != STORE_OK)
        return fail(s);
    *id = t->id;
    return QK_ERR_NONE;
}

qk_err tourney_join(gsvc *s, int64_t tid, int64_t actor, int64_t user_id, const char **why)
{
    tstate ts;
    qk_err e = load(s, tid, &ts);
    if (e)
        return e;
    store_user u;
    bool member = true;
    *why = NULL;
    if (store_user_by_id(s->store, user_id, &u) != STORE_OK) {
        e = QK_ERR_NOT_FOUND;
        *why = "no such user";
    } else if (actor != user_id && actor != ts.t.organiser_id) {
        e = QK_ERR_FORBIDDEN;
        *why = "only the organiser adds other players";
    } else if (strcmp(ts.t.status, "finished") == 0) {
        e = QK_ERR_CONFLICT;
        *why = "the tournament is finished";
    } else if (strcmp(ts.t.status, "running") == 0 && is_rr(&ts)) {
        e = QK_ERR_CONFLICT;
        *why = "a round robin cannot be joined once it runs";
    } else if (player_of(&ts, user_id)) {
        e = QK_ERR_CONFLICT;
        *why = "already in this tournament";
    } else if (ts.np >= PAIRING_MAX_PLAYERS) {
        e = QK_ERR_CONFLICT;
        *why = "the tournament is full";
    } else if (u.bot && !ts.t.bots) {
        e = QK_ERR_FORBIDDEN;
        *why = "bots are not allowed in this tournament";
    } else if (ts.t.class_id &&
               store_member_is(s->store, ts.t.class_id, user_id, &member) != STORE_OK) {
        e = QK_ERR_INTERNAL;
    } else if (!member) {
        e = QK_ERR_FORBIDDEN;
        *why = "this tournament is for its class only";
    }
    if (e) {
        tstate_free(&ts);
        return e;
    }
    int64_t number = ts.np ? ts.pl[ts.np - 1].number + 1 : 1;
    int64_t late = strcmp(ts.t.status, "running") == 0 ? ts.t.current_round + 1 : 0;
    if (begin(s) || store_tplayer_add(s->store, tid, user_id, number, late, svc_now(s)) != STORE_OK)
        e = fail(s);
    tstate_free(&ts);
    return e;
}

qk_err tourney_withdraw(gsvc *s, int64_t tid, int64_t actor, int64_t user_id, const char **why)
{
    tstate ts;
    qk_err e = load(s, tid, &ts);
    if (e)
        return e;
    store_tplayer *me = player_of(&ts, user_id);
    *why = NULL;
    if (actor != user_id && actor != ts.t.organiser_id) {
        e = QK_ERR_FORBIDDEN;
        *why = "only the organiser withdraws other players";
    } else if (!me) {
        e = QK_ERR_NOT_FOUND;
        *why = "not a player of this tournament";
    } else if (strcmp(ts.t.status, "finished") == 0) {
        e = QK_ERR_CONFLICT;
        *why = "the tournament is finished";
    } else if (me->withdrawn) {
        e = QK_ERR_CONFLICT;
        *why = "already withdrawn";
    }
    if (e)
        goto out;
    if ((e = begin(s)))
        goto out;
    if (strcmp(ts.t.status, "open") == 0) {
        if (store_tplayer_remove(s->store, tid, user_id) != STORE_OK)
            e = fail(s);
        goto out;
    }
    if (store_tplayer_withdraw(s->store, tid, user_id) != STORE_OK) {
        e = fail(s);
        goto out;
    }
    me->withdrawn = true;
    /* The unfinished games of the withdrawn player are lost by forfeit:
     * the pairing says so first, so tourney_game_over() leaves it be. */
    for (size_t i = 0; i < ts.npr && !e; i++) {
        store_pairing *p = &ts.pr[i];
        if (pairing_done(p) || (p->white_id != user_id && p->black_id != user_id))
            continue;
        snprintf(p->kind, sizeof p->kind, "forfeit");
        snprintf(p->result, sizeof p->result, "%s", p->white_id == user_id ? "black" : "white");
        game *g;
        if (store_pairing_set(s->store, p) != STORE_OK ||
            games_get(s->games, p->game_id, &g) != STORE_OK) {
            e = fail(s);
            break;
        }
        if (g->status == GAME_ACTIVE) {
            qk_result r = p->white_id == user_id ? QK_RESULT_BLACK : QK_RESULT_WHITE;
            if (games_finish(s->games, g, r, QK_REASON_RESIGN) != STORE_OK) {
                e = fail(s);
                break;
            }
            notify_game_over(s, g); /* runs tourney_game_over() on its own load */
        }
    }
out:
    tstate_free(&ts);
    return e;
}

/* The organiser check and load shared by start and pair. */
static qk_err load_organised(gsvc *s, int64_t tid, int64_t actor, tstate *ts, const char **why)
{
    qk_err e = load(s, tid, ts);
    if (e)
        return e;
    if (ts->t.organiser_id != actor) {
        tstate_free(ts);
        *why = "only the organiser does this";
        return QK_ERR_FORBIDDEN;
    }
    return QK_ERR_NONE;
}

qk_err tourney_start(gsvc *s, int64_t tid, int64_t actor, const char **why,
                     const tourney_done *done, bool *pending)
{
    tstate ts;
    *why = NULL;
    if (pending)
        *pending = false;
    qk_err e = load_organised(s, tid, actor, &ts, why);
    if (e)
        return e;
    if (strcmp(ts.t.status, "open") != 0) {
        e = QK_ERR_CONFLICT;
        *why = "the tournament has already started";
    } else if (ts.np < 2) {
        e = QK_ERR_CONFLICT;
        *why = "a tournament needs 2 players or more";
    } else if (is_rr(&ts) && pairing_rr_rounds((int)ts.np, ts.t.dbl) > PAIRING_MAX_ROUNDS) {
        e = QK_ERR_CONFLICT;
        *why = "too many players for a round robin";
    }
    if (!e && is_external(&ts)) {
        /* Nothing is written until the program's pairing of round 1 is
         * back and checked (job_done): then the start and the round go
         * in one batch. */
        e = submit(s, &ts, 1, true, done, pending, why);
    } else if (!e && !(e = begin(s))) {
        snprintf(ts.t.status, sizeof ts.t.status, "running");
        if (is_rr(&ts))
            ts.t.rounds = pairing_rr_rounds((int)ts.np, ts.t.dbl);
        e = pair_next(s, &ts, NULL, NULL, NULL);
    }
    tstate_free(&ts);
    return e;
}

qk_err tourney_pair(gsvc *s, int64_t tid, int64_t actor, const char **why,
                    const tourney_done *done, bool *pending)
{
    tstate ts;
    *why = NULL;
    if (pending)
        *pending = false;
    qk_err e = load_organised(s, tid, actor, &ts, why);
    if (e)
        return e;
    if (strcmp(ts.t.status, "running") != 0) {
        e = QK_ERR_CONFLICT;
        *why = strcmp(ts.t.status, "open") == 0 ? "the tournament has not started"
                                                : "the tournament is finished";
    } else if (!round_done(&ts, ts.t.current_round)) {
        e = QK_ERR_CONFLICT;
        *why = "the current round is not finished";
    } else if (job_inflight(s, tid)) {
        e = QK_ERR_CONFLICT;
        *why = "the next round is being paired (the pairing program is running)";
    }
    if (!e && is_external(&ts) && ts.t.current_round < ts.t.rounds)
        e = submit(s, &ts, ts.t.current_round + 1, false, done, pending, why);
    else if (!e && !(e = begin(s)))
        e = pair_next(s, &ts, NULL, NULL, NULL);
    tstate_free(&ts);
    return e;
}

qk_err tourney_forbid(gsvc *s, int64_t tid, int64_t actor, int64_t a, int64_t b, const char **why)
{
    tstate ts;
    *why = NULL;
    qk_err e = load_organised(s, tid, actor, &ts, why);
    if (e)
        return e;
    if (!player_of(&ts, a) || !player_of(&ts, b)) {
        e = QK_ERR_NOT_FOUND;
        *why = "both must be players of this tournament";
    } else if (a == b) {
        e = QK_ERR_BAD_REQUEST;
        *why = "a player cannot be forbidden to meet themselves";
    } else if (strcmp(ts.t.status, "finished") == 0) {
        e = QK_ERR_CONFLICT;
        *why = "the tournament is finished";
    }
    for (int i = 0; !e && i < ts.nforbid; i++)
        if ((ts.forbid_ids[i][0] == a && ts.forbid_ids[i][1] == b) ||
            (ts.forbid_ids[i][0] == b && ts.forbid_ids[i][1] == a)) {
            e = QK_ERR_CONFLICT;
            *why = "that pair is already forbidden";
        }
    if (!e && !(e = begin(s)) && store_forbid_add(s->store, tid, a, b) != STORE_OK)
        e = fail(s);
    tstate_free(&ts);
    return e;
}

/* The current round is over: pair the next (auto mode) or end after the
 * last. */
static qk_err after_result(gsvc *s, tstate *ts)
{
    if (strcmp(ts->t.status, "running") != 0 || !round_done(ts, ts->t.current_round))
        return QK_ERR_NONE;
    if (ts->t.current_round >= ts->t.rounds)
        return finish(s, ts, "");
    if (strcmp(ts->t.start_mode, "auto") == 0 && !job_inflight(s, ts->t.id))
        return pair_next(s, ts, NULL, NULL, NULL);
    return QK_ERR_NONE;
}

qk_err tourney_abort(gsvc *s, int64_t tid, const char *reason, const char **why)
{
    tstate ts;
    *why = NULL;
    qk_err e = load(s, tid, &ts);
    if (e)
        return e;
    if (strcmp(ts.t.status, "finished") == 0) {
        e = QK_ERR_CONFLICT;
        *why = "the tournament is already finished";
    } else if (!(e = begin(s))) {
        /* The end of a Swiss without a valid pairing, with the given
         * reason: status finished, end_reason, the tournament_end notices
         * and event. An external pairing still running finds the status
         * changed when it returns and writes nothing. */
        e = finish(s, &ts, reason);
    }
    tstate_free(&ts);
    return e;
}

static store_pairing *pairing_of_game(tstate *ts, int64_t game_id)
{
    for (size_t i = 0; i < ts->npr; i++)
        if (ts->pr[i].game_id == game_id)
            return &ts->pr[i];
    return NULL;
}

qk_err tourney_result(gsvc *s, int64_t tid, int64_t actor, int64_t game_id, const char *result,
                      const char **why)
{
    tstate ts;
    *why = NULL;
    qk_err e = load_organised(s, tid, actor, &ts, why);
    if (e)
        return e;
    store_pairing *p = pairing_of_game(&ts, game_id);
    int res = qk_result_parse(result);
    game *g = NULL;
    if (!p) {
        e = QK_ERR_NOT_FOUND;
        *why = "the game is not in this tournament";
    } else if (res < 0 || res == QK_RESULT_NONE) {
        e = QK_ERR_BAD_REQUEST;
        *why = "result must be white, black or draw";
    } else if (strcmp(ts.t.status, "finished") == 0) {
        e = QK_ERR_CONFLICT;
        *why = "the tournament is finished";
    } else if (games_get(s->games, game_id, &g) != STORE_OK) {
        e = QK_ERR_INTERNAL;
    }
    if (e || (e = begin(s)))
        goto out;
    snprintf(p->kind, sizeof p->kind, "game");
    snprintf(p->result, sizeof p->result, "%s", result);
    p->by_hand = true;
    if (store_pairing_set(s->store, p) != STORE_OK) {
        e = fail(s);
        goto out;
    }
    if (g->status == GAME_ACTIVE) {
        qk_reason why_end = res == QK_RESULT_DRAW ? QK_REASON_AGREEMENT : QK_REASON_RESIGN;
        if (games_finish(s->games, g, (qk_result)res, why_end) != STORE_OK) {
            e = fail(s);
            goto out;
        }
        notify_game_over(s, g); /* the hook sees by_hand and moves the round on */
        goto out;
    }
    e = after_result(s, &ts);
out:
    tstate_free(&ts);
    return e;
}

void tourney_game_over(gsvc *s, const game *g)
{
    if (g->tournament_id <= 0 || svc_poisoned(s))
        return;
    tstate ts;
    if (load(s, g->tournament_id, &ts) != QK_ERR_NONE) {
        log_error("game %lld: its tournament %lld cannot be read", (long long)g->id,
                  (long long)g->tournament_id);
        svc_poison(s);
        return;
    }
    store_pairing *p = pairing_of_game(&ts, g->id);
    if (p && strcmp(p->kind, "game") == 0 && !p->by_hand && !p->result[0]) {
        if (g->status == GAME_ABORTED) {
            /* Nobody played: both lose (C.07's double forfeit). */
            snprintf(p->kind, sizeof p->kind, "forfeit");
        } else {
            snprintf(p->result, sizeof p->result, "%s", qk_result_name(g->result));
        }
        if (store_pairing_set(s->store, p) != STORE_OK) {
            svc_poison(s);
            goto out;
        }
    }
    if (p)
        tourney_send_result(s, ts.t.organiser_id, p, g);
    if (p && after_result(s, &ts) != QK_ERR_NONE)
        svc_poison(s);
out:
    tstate_free(&ts);
}

/* ---- JSON and CSV ------------------------------------------------------- */

static standings_result sresult(const store_pairing *p)
{
    if (strcmp(p->kind, "bye") == 0)
        return SR_BYE;
    bool forfeit = strcmp(p->kind, "forfeit") == 0;
    if (forfeit && !p->result[0])
        return SR_DOUBLE_FORFEIT;
    if (strcmp(p->result, "white") == 0)
        return forfeit ? SR_FORFEIT_WHITE : SR_WHITE_WIN;
    if (strcmp(p->result, "black") == 0)
        return forfeit ? SR_FORFEIT_BLACK : SR_BLACK_WIN;
    if (strcmp(p->result, "draw") == 0)
        return SR_DRAW;
    return SR_PENDING;
}

/* The standings of ts into rows (np, caller frees) and the player table. */
static qk_err compute(tstate *ts, standings_row **rows_out, standings_player **pl_out)
{
    size_t nr = (size_t)ts->t.current_round;
    standings_player *pl = calloc(ts->np + 1, sizeof *pl);
    standings_row *rows = calloc(ts->np + 1, sizeof *rows);
    standings_pairing *sp = calloc(ts->npr + 1, sizeof *sp);
    standings_round *rd = calloc(nr + 1, sizeof *rd);
    qk_err e = QK_ERR_INTERNAL;
    if (!pl || !rows || !sp || !rd)
        goto out;
    for (size_t i = 0; i < ts->np; i++)
        pl[i] = (standings_player){(int)ts->pl[i].number, ts->pl[i].username};
    size_t k = 0;
    for (size_t r = 1; r <= nr; r++) {
        rd[r - 1].pairings = &sp[k];
        for (size_t i = 0; i < ts->npr; i++) {
            store_pairing *p = &ts->pr[i];
            if ((size_t)p->round != r)
                continue;
            store_tplayer *w = player_of(ts, p->white_id), *b = player_of(ts, p->black_id);
            if (!w || (p->black_id && !b))
                continue; /* a player who left before the start: never paired */
            sp[k++] = (standings_pairing){(int)w->number, b ? (int)b->number : 0, sresult(p)};
            rd[r - 1].n++;
        }
    }
    standings_system sys = is_rr(ts) ? STANDINGS_ROUND_ROBIN : STANDINGS_SWISS;
    if (standings_compute(sys, pl, ts->np, rd, nr, rows) == 0) {
        e = QK_ERR_NONE;
        *rows_out = rows;
        *pl_out = pl;
        rows = NULL;
        pl = NULL;
    }
out:
    free(pl);
    free(rows);
    free(sp);
    free(rd);
    return e;
}

static cJSON *standings_json(tstate *ts, qk_err *err)
{
    standings_row *rows;
    standings_player *pl;
    *err = compute(ts, &rows, &pl);
    if (*err)
        return NULL;
    cJSON *a = cJSON_CreateArray();
    bool ok = a != NULL;
    for (size_t i = 0; ok && i < ts->np; i++) {
        store_tplayer *p = player_by_number(ts, rows[i].id);
        cJSON *o = cJSON_CreateObject(), *tb = NULL;
        if (!o || !cJSON_AddItemToArray(a, o)) {
            cJSON_Delete(o);
            ok = false;
            break;
        }
        ok = cJSON_AddNumberToObject(o, "rank", rows[i].rank) &&
             cJSON_AddStringToObject(o, "username", p ? p->username : "") &&
             cJSON_AddNumberToObject(o, "points", rows[i].points) &&
             (tb = cJSON_AddObjectToObject(o, "tiebreaks")) &&
             (!p || !p->withdrawn || cJSON_AddTrueToObject(o, "withdrawn"));
        for (int t = 0; ok && t < STANDINGS_NTIEBREAKS; t++)
            ok = cJSON_AddNumberToObject(tb, standings_tiebreak_names[t], rows[i].tiebreak[t]);
    }
    if (!ok) {
        cJSON_Delete(a);
        a = NULL;
    }
    free(rows);
    free(pl);
    if (!a)
        *err = QK_ERR_INTERNAL;
    return a;
}

static bool add_name_or_null(tstate *ts, cJSON *o, const char *key, int64_t user_id)
{
    return user_id ? cJSON_AddStringToObject(o, key, name_of(ts, user_id)) != NULL
                   : cJSON_AddNullToObject(o, key) != NULL;
}

/* The pairings of round (no byes) as an array; *bye the bye's username or
 * null (a new item the caller adds). NULL on allocation failure. */
static cJSON *pairings_json(tstate *ts, int64_t round, cJSON **bye)
{
    cJSON *a = cJSON_CreateArray();
    bool ok = a != NULL;
    *bye = NULL;
    for (size_t i = 0; ok && i < ts->npr; i++) {
        store_pairing *p = &ts->pr[i];
        if (p->round != round)
            continue;
        if (strcmp(p->kind, "bye") == 0) {
            cJSON_Delete(*bye);
            *bye = cJSON_CreateString(name_of(ts, p->white_id));
            continue;
        }
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddItemToArray(a, o)) {
            cJSON_Delete(o);
            ok = false;
            break;
        }
        ok = add_name_or_null(ts, o, "white", p->white_id) &&
             add_name_or_null(ts, o, "black", p->black_id) &&
             (p->game_id ? cJSON_AddNumberToObject(o, "game", (double)p->game_id)
                         : cJSON_AddNullToObject(o, "game")) &&
             (p->result[0] ? cJSON_AddStringToObject(o, "result", p->result)
                           : cJSON_AddNullToObject(o, "result")) &&
             cJSON_AddStringToObject(o, "kind", p->kind) &&
             cJSON_AddBoolToObject(o, "by_hand", p->by_hand);
    }
    if (!*bye)
        *bye = cJSON_CreateNull();
    if (!ok || !*bye) {
        cJSON_Delete(a);
        cJSON_Delete(*bye);
        *bye = NULL;
        return NULL;
    }
    return a;
}

/* The fields every tournament object has (list and full). */
static bool add_head(gsvc *s, tstate *ts, cJSON *o)
{
    (void)s;
    store_tourney *t = &ts->t;
    cJSON *tcj = NULL;
    tc tcv;
    if (tc_from_text(t->time_control, &tcv) == 0)
        tcj = tc_to_json(&tcv);
    if (!tcj || !cJSON_AddItemToObject(o, "time_control", tcj)) {
        cJSON_Delete(tcj);
        return false;
    }
    return cJSON_AddNumberToObject(o, "id", (double)t->id) &&
           cJSON_AddStringToObject(o, "name", t->name) &&
           cJSON_AddStringToObject(o, "system", t->system) &&
           cJSON_AddStringToObject(o, "variant", t->variant) &&
           (t->position[0] ? cJSON_AddStringToObject(o, "position", t->position)
                           : cJSON_AddNullToObject(o, "position")) &&
           cJSON_AddStringToObject(o, "status", t->status) &&
           cJSON_AddStringToObject(o, "organiser", t->organiser) &&
           cJSON_AddNumberToObject(o, "rounds_total", (double)t->rounds) &&
           cJSON_AddNumberToObject(o, "current_round", (double)t->current_round) &&
           cJSON_AddBoolToObject(o, "double", t->dbl) &&
           cJSON_AddBoolToObject(o, "rated", t->rated) &&
           cJSON_AddBoolToObject(o, "bots", t->bots) &&
           (t->class_id ? cJSON_AddNumberToObject(o, "class", (double)t->class_id)
                        : cJSON_AddNullToObject(o, "class")) &&
           cJSON_AddStringToObject(o, "start_mode", t->start_mode) &&
           cJSON_AddStringToObject(o, "pairer", t->pairer[0] ? t->pairer : "builtin") &&
           (t->end_reason[0] ? cJSON_AddStringToObject(o, "end_reason", t->end_reason)
                             : cJSON_AddNullToObject(o, "end_reason"));
}

static bool add_players(tstate *ts, cJSON *o)
{
    cJSON *pl = cJSON_AddArrayToObject(o, "players"), *wd = cJSON_AddArrayToObject(o, "withdrawn");
    if (!pl || !wd)
        return false;
    for (size_t i = 0; i < ts->np; i++) {
        cJSON *n = cJSON_CreateString(ts->pl[i].username), *n2 = NULL;
        if (!n || !cJSON_AddItemToArray(pl, n)) {
            cJSON_Delete(n);
            return false;
        }
        if (ts->pl[i].withdrawn &&
            (!(n2 = cJSON_CreateString(ts->pl[i].username)) || !cJSON_AddItemToArray(wd, n2))) {
            cJSON_Delete(n2);
            return false;
        }
    }
    return true;
}

cJSON *tourney_json(gsvc *s, int64_t tid, qk_err *err)
{
    tstate ts;
    if ((*err = load(s, tid, &ts)))
        return NULL;
    *err = QK_ERR_INTERNAL;
    cJSON *o = cJSON_CreateObject(), *rounds = NULL, *st = NULL;
    if (!o || !add_head(s, &ts, o) || !add_players(&ts, o) ||
        !(rounds = cJSON_AddArrayToObject(o, "rounds")))
        goto fail;
    for (int64_t r = 1; r <= ts.t.current_round; r++) {
        cJSON *ro = cJSON_CreateObject(), *bye = NULL, *pj;
        if (!ro || !cJSON_AddItemToArray(rounds, ro)) {
            cJSON_Delete(ro);
            goto fail;
        }
        if (!cJSON_AddNumberToObject(ro, "round", (double)r) || !(pj = pairings_json(&ts, r, &bye)))
            goto fail;
        if (!cJSON_AddItemToObject(ro, "pairings", pj)) {
            cJSON_Delete(pj);
            cJSON_Delete(bye);
            goto fail;
        }
        if (!cJSON_AddItemToObject(ro, "bye", bye)) {
            cJSON_Delete(bye);
            goto fail;
        }
    }
    qk_err se;
    if (!(st = standings_json(&ts, &se)) || !cJSON_AddItemToObject(o, "standings", st)) {
        cJSON_Delete(st);
        goto fail;
    }
    *err = QK_ERR_NONE;
    tstate_free(&ts);
    return o;
fail:
    cJSON_Delete(o);
    tstate_free(&ts);
    return NULL;
}

typedef struct list_ctx {
    gsvc *s;
    cJSON *a;
    int64_t viewer, left; /* left: how many more the list may hold */
} list_ctx;

#define LIST_FULL 2 /* list_cb's stop: the list holds limit tournaments */

static int list_cb(void *arg, const store_tourney *t)
{
    list_ctx *c = arg;
    bool yes;
    if (tourney_sees(c->s, t, c->viewer, &yes))
        return 1;
    if (!yes)
        return 0; /* another class's: left out, not counted */
    tstate ts = {.t = *t};
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddItemToArray(c->a, o)) {
        cJSON_Delete(o);
        return 1;
    }
    if (store_tplayers_each(c->s->store, t->id, player_cb, &ts) != STORE_OK ||
        !add_head(c->s, &ts, o) || !add_players(&ts, o)) {
        tstate_free(&ts);
        return 1;
    }
    tstate_free(&ts);
    return --c->left == 0 ? LIST_FULL : 0;
}

/* The store is asked for every tournament of status, newest first, and the
 * walk stops once limit are in: skipped ones must not shorten the list. A
 * skipped row costs a few indexed reads (its class, a membership, its
 * players); classroom servers hold tens of tournaments. */
cJSON *tourney_list(gsvc *s, const char *status, int64_t limit, int64_t viewer)
{
    list_ctx c = {s, cJSON_CreateArray(), viewer, limit};
    if (!c.a || limit <= 0)
        return c.a;
    int rc = store_tourneys_list(s->store, status, INT64_MAX, list_cb, &c);
    if (rc != STORE_OK && rc != LIST_FULL) {
        cJSON_Delete(c.a);
        return NULL;
    }
    return c.a;
}

qk_err tourney_csv(gsvc *s, int64_t tid, char **out)
{
    tstate ts;
    qk_err e = load(s, tid, &ts);
    if (e)
        return e;
    standings_row *rows;
    standings_player *pl;
    if (!(e = compute(&ts, &rows, &pl))) {
        if (standings_csv_alloc(rows, ts.np, pl, ts.np, out, NULL) != 0)
            e = QK_ERR_INTERNAL;
        free(rows);
        free(pl);
    }
    tstate_free(&ts);
    return e;
}
