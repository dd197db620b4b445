/*
 * records: see records.h. The record is filled from the game in memory
 * (the rules' replay) and the clocks from the store; import writes rows
 * directly, without the games cache, since an imported game is never
 * played and so never needs to be in memory.
 */
#include "game/records.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/log.h"

void records_tc_text(const tc *t, char *buf, size_t n)
{
    if (t->kind == TC_CORRESPONDENCE)
        snprintf(buf, n, "corr:%d", t->days_per_move);
    else if (t->kind == TC_LIVE)
        snprintf(buf, n, "%d+%d", t->initial_s, t->increment_s);
    else
        snprintf(buf, n, "-");
}

void records_tc_parse(const char *text, tc *out)
{
    int a, b;
    char tail;
    memset(out, 0, sizeof *out);
    out->kind = TC_UNLIMITED;
    if (!text)
        return;
    /* Only the ranges `challenge` accepts (docs/protocol.md section 5):
     * anything else is some other tool's notation, kept as unlimited. */
    if (sscanf(text, "corr:%d%c", &a, &tail) == 1 && a >= 1 && a <= 14) {
        out->kind = TC_CORRESPONDENCE;
        out->days_per_move = a;
    } else if (sscanf(text, "%d+%d%c", &a, &b, &tail) == 2 && a >= 0 && a <= 10800 && b >= 0 &&
               b <= 180 && (a || b)) {
        out->kind = TC_LIVE;
        out->initial_s = a;
        out->increment_s = b;
    }
}

typedef struct clocks {
    long long *ms;
    int64_t n;
} clocks;

static int clock_cb(void *arg, int64_t ply, int64_t clock_ms)
{
    clocks *c = arg;
    if (ply >= 0 && ply < c->n)
        c->ms[ply] = clock_ms;
    return 0;
}

/* The Event and Round tags of a played game: a tournament game's are the
 * tournament's name (control characters, which a tag value cannot hold,
 * made spaces) and its round number; any other game's the kind of game
 * and "-". 0, or nonzero: an allocation failure, or the tournament row
 * cannot be read (logged; the caller's record fails, as for the clocks). */
static int event_round(gsvc *s, const game *g, qk_pdn_record *rec)
{
    char event[STORE_TNAME_MAX + 1], round[24];
    snprintf(event, sizeof event, "%s", g->rated ? "Qirkat rated game" : "Qirkat casual game");
    snprintf(round, sizeof round, "-");
    store_tourney t;
    if (g->tournament_id > 0 && g->round > 0) {
        if (store_tourney_get(s->store, g->tournament_id, &t) != STORE_OK) {
            log_error("game %lld: its tournament %lld cannot be read for its record",
                      (long long)g->id, (long long)g->tournament_id);
            return -1;
        }
        snprintf(event, sizeof event, "%s", t.name);
        for (char *c = event; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7F)
                *c = ' ';
        snprintf(round, sizeof round, "%lld", (long long)g->round);
    }
    int rc = qk_pdn_set(rec, "Event", event);
    return rc ? rc : qk_pdn_set(rec, "Round", round);
}

int records_of_game(gsvc *s, const game *g, qk_pdn_record *rec)
{
    qk_pdn_init(rec);
    char buf[64], start[QK_POS_STRLEN];
    time_t t = (time_t)(g->created / 1000);
    struct tm tm;
    if (!gmtime_r(&t, &tm) || strftime(buf, sizeof buf, "%Y.%m.%d", &tm) == 0)
        return -1;
    int rc = qk_pdn_set(rec, "Date", buf);
    if (!g->imported) {
        rc = rc ? rc : event_round(s, g, rec);
        rc = rc ? rc : qk_pdn_set(rec, "Site", "Qirkat");
    } else {
        rc = rc ? rc : qk_pdn_set(rec, "Round", "-");
    }
    records_tc_text(&g->tc, buf, sizeof buf);
    rc = rc ? rc : qk_pdn_set(rec, "White", g->white.name);
    rc = rc ? rc : qk_pdn_set(rec, "Black", g->black.name);
    rc = rc ? rc : qk_pdn_set(rec, "Result", qk_pdn_result_text(g->result));
    rc = rc ? rc : qk_pdn_set(rec, "Variant", g->v.name);
    rc = rc ? rc : qk_pdn_set(rec, "TimeControl", buf);
    const char *why = qk_reason_name(g->reason);
    if (!rc && why)
        rc = qk_pdn_set(rec, "Termination", why);
    /* FEN only for a custom start (PROTOCOL.md "Records"). */
    qk_pos p;
    qk_variant_start(&g->v, &p);
    if (!rc && (qk_pos_format(&g->v, &p, start, sizeof start) < 0 || strcmp(start, g->start)))
        rc = qk_pdn_set(rec, "FEN", g->start);
    if (rc)
        return -1;
    clocks c = {NULL, g->ply};
    if (g->ply > 0 && !(c.ms = malloc((size_t)g->ply * sizeof *c.ms)))
        return -1;
    for (int64_t i = 0; i < g->ply; i++)
        c.ms[i] = -1;
    if (g->tc.kind == TC_LIVE && g->ply > 0 &&
        store_move_clocks_each(s->store, g->id, clock_cb, &c) != STORE_OK) {
        free(c.ms);
        return -1;
    }
    for (int64_t i = 0; i < g->ply && !rc; i++)
        rc = qk_pdn_add_move(rec, g->moves[i], c.ms[i]);
    free(c.ms);
    return rc ? -1 : 0;
}

int records_pdn(gsvc *s, const game *g, char **out, size_t *len)
{
    qk_pdn_record rec;
    int rc = records_of_game(s, g, &rec);
    if (rc == 0 && qk_pdn_write(&rec, out, len) != QK_PDN_OK)
        rc = -1;
    qk_pdn_free(&rec);
    if (rc)
        log_error("game %lld: its record could not be built", (long long)g->id);
    return rc;
}

const char *records_refuse(const qk_pdn_record *rec)
{
    if ((rec->white && strlen(rec->white) > STORE_NAME_MAX) ||
        (rec->black && strlen(rec->black) > STORE_NAME_MAX))
        return "a White or Black name is longer than 32 bytes";
    return NULL;
}

/* One record as the rows of an imported game. */
static int import_one(gsvc *s, int64_t importer, const qk_pdn_record *rec, int64_t now, int64_t *id)
{
    qk_pdn_outcome oc;
    qk_pdn_error err;
    if (qk_pdn_validate(rec, &oc, &err) != QK_PDN_OK)
        return STORE_EIO; /* the caller validated: a bug */
    const qk_variant *v = &oc.end.variant;
    store_game r;
    memset(&r, 0, sizeof r);
    snprintf(r.variant, sizeof r.variant, "%s", v->name);
    r.white_id = r.black_id = importer;
    qk_pos p;
    qk_variant_start(v, &p);
    if (rec->fen)
        snprintf(r.start, sizeof r.start, "%s", rec->fen);
    else if (qk_pos_format(v, &p, r.start, sizeof r.start) < 0)
        return STORE_EIO;
    if (qk_pos_format(v, &oc.end.pos, r.position, sizeof r.position) < 0)
        return STORE_EIO;
    r.ply = (int64_t)rec->nmoves;
    snprintf(r.turn, sizeof r.turn, "%s", oc.end.pos.side == QK_WHITE ? "white" : "black");
    const char *res = oc.over ? qk_result_name(oc.result) : NULL;
    const char *why = oc.over ? qk_reason_name(oc.reason) : NULL;
    snprintf(r.status, sizeof r.status, "%s", oc.over ? "finished" : "aborted");
    snprintf(r.result, sizeof r.result, "%s", res ? res : "");
    snprintf(r.reason, sizeof r.reason, "%s", why ? why : "");
    tc t;
    records_tc_parse(rec->time_control, &t);
    if (tc_format(&t, r.time_control, sizeof r.time_control) != 0)
        return STORE_EIO;
    r.deadline = r.white_ms = r.black_ms = -1;
    r.created = r.updated = now;
    int rc = store_game_insert(s->store, &r);
    for (size_t i = 0; rc == STORE_OK && i < rec->nmoves; i++) {
        rc = store_move_insert(s->store, r.id, (int64_t)i, rec->moves[i], importer, now);
        if (rc == STORE_OK && rec->clk[i] >= 0)
            rc = store_move_clock_set(s->store, r.id, (int64_t)i, rec->clk[i]);
    }
    if (rc == STORE_OK)
        rc = store_game_mark_imported(s->store, r.id, rec->white, rec->black);
    *id = r.id;
    return rc;
}

int records_import(gsvc *s, int64_t importer, const qk_pdn_record *recs, size_t n, int64_t *ids)
{
    int64_t now = svc_now(s);
    for (size_t i = 0; i < n; i++) {
        if (import_one(s, importer, &recs[i], now, &ids[i]) != STORE_OK) {
            log_error("import: record %zu could not be stored", i);
            svc_poison(s);
            return STORE_EIO;
        }
    }
    return STORE_OK;
}
