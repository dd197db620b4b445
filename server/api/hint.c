/*
 * hint: the `hint` op, the engine's move for the side to move of a game.
 *
 * Design. The search must never run on the loop thread: a 300 ms search
 * there would stall every connection. The handler checks what it can at
 * once (the game exists, the caller plays in it, it is active and not
 * rated), copies the variant and the position into a heap job, defers the
 * request (the connection's later lines wait, so answers stay in order,
 * dispatch.h) and queues the job on the hint pool (api.hints,
 * util/workers.h: threads of its own, so searches never wait in front of
 * the password hashes on libuv's pool). The worker owns
 * a private engine context (a small table, freed at the end), so nothing
 * is shared with the loop or another worker; the completion callback, on
 * the loop thread, formats the move and answers.
 *
 * Bounds. Each search is limited to HINT_MS of wall time and HINT_NODES
 * positions (level 3's limits otherwise, solver included for small
 * Alquerkonane boards). At most HINT_MAX_INFLIGHT jobs are queued or
 * running at once for the whole server; beyond that the answer is
 * `rate_limited` with `retry_after_ms`. One connection has at most one hint
 * in flight, because a deferred request pauses its connection. On stop a
 * running job is finished and answered normally before its connection is
 * closed (srv.h "Stopping"), at most HINT_MS later.
 *
 * The answer describes the position the hint was computed for (`ply`); a
 * move played meanwhile makes it stale, which the client sees by `ply`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game/games.h"
#include "util/log.h"
#include "api/ops.h"
#include "qk_engine.h"

#define HINT_MS 300
#define HINT_NODES 3000000
#define HINT_TT_BYTES (1u << 20)
#define HINT_MAX_INFLIGHT 8

/* Jobs queued or running, all servers of the process (loop threads only
 * touch it; tests may run several servers, each on its own thread, so it is
 * atomic). */
static atomic_int hint_inflight;

typedef struct hint_job {
    workers_job job; /* first: a workers_job * is a hint_job * */
    deferred d;
    int64_t game_id, ply;
    qk_variant v;
    qk_pos pos;
    int rc;   /* qk_engine_search result; QK_ENOMEM when the engine could not start */
    bool ran; /* the pool ran the search (not when it closed first) */
    qk_search_result res;
} hint_job;

/* Pool thread: only the job is touched. */
static void hint_work_cb(workers_job *w)
{
    hint_job *j = (hint_job *)w;
    j->ran = true;
    qk_engine e;
    memset(&e, 0, sizeof e);
    j->rc = qk_engine_init(&e, HINT_TT_BYTES);
    if (j->rc != QK_OK)
        return;
    qk_limits lim;
    /* Level 4: on Alquerkonane the solver gets the whole budget, so the
     * hint says "winning" or "lost with perfect play" when it decides. */
    qk_engine_level_limits(4, HINT_MS, &lim);
    lim.nodes = HINT_NODES;
    j->rc = qk_engine_search(&e, &j->v, &j->pos, &lim, &j->res);
    qk_engine_free(&e);
}

/* Loop thread: answer with the move (or an error) and free the job. */
static void hint_after_cb(workers_job *w)
{
    hint_job *j = (hint_job *)w;
    int status = j->ran ? 0 : UV_ECANCELED;
    atomic_fetch_sub(&hint_inflight, 1);
    cJSON *res = NULL;
    char text[QK_MOVE_STRLEN], score[32];
    if (status == 0 && j->rc == QK_ENOSPC) {
        /* Not a failure of ours: the position (only a contrived one gets
         * there) has more moves than the engine's buffers hold. */
        res = deferred_error(&j->d, QK_ERR_BAD_REQUEST,
                             "the position has more than 4096 legal moves: no hint");
    } else if (status != 0 || j->rc != QK_OK || !j->res.has_move ||
               qk_move_format(&j->v, &j->res.best, text, sizeof text) < 0 ||
               qk_engine_score_format(j->res.score, score, sizeof score) < 0) {
        log_error("hint for game %lld failed (status %d, engine %d)", (long long)j->game_id, status,
                  j->rc);
        res = deferred_error(&j->d, QK_ERR_INTERNAL, "the engine failed");
    } else {
        res = deferred_ok(&j->d);
        cJSON *pv = NULL;
        if (res && (!cJSON_AddNumberToObject(res, "game", (double)j->game_id) ||
                    !cJSON_AddNumberToObject(res, "ply", (double)j->ply) ||
                    !cJSON_AddStringToObject(res, "move", text) ||
                    !cJSON_AddNumberToObject(res, "score", j->res.score) ||
                    !cJSON_AddStringToObject(res, "eval", score) ||
                    !cJSON_AddNumberToObject(res, "depth", j->res.depth) ||
                    !cJSON_AddNumberToObject(res, "nodes", (double)j->res.nodes) ||
                    !cJSON_AddBoolToObject(res, "solved", j->res.solved) ||
                    !(pv = cJSON_AddArrayToObject(res, "line")))) {
            cJSON_Delete(res);
            res = NULL;
        }
        /* The principal variation, replayed so each text is formatted in
         * the position it is played from. */
        qk_pos p = j->pos;
        for (int i = 0; res && i < j->res.pv_len; i++) {
            qk_undo u;
            cJSON *m;
            if (qk_move_format(&j->v, &j->res.pv[i], text, sizeof text) < 0)
                break;
            if (!(m = cJSON_CreateString(text)) || !cJSON_AddItemToArray(pv, m)) {
                cJSON_Delete(m);
                cJSON_Delete(res);
                res = NULL;
                break;
            }
            qk_pos_make(&j->v, &p, &j->res.pv[i], &u);
        }
    }
    deferred_reply(&j->d, res);
    free(j);
}

void op_hint(req *r)
{
    api *s = r->api;
    uint64_t id = 0;
    game *g = NULL;
    req_uint(r, "game", &id);
    int rc = games_get(s->svc->games, (int64_t)id, &g);
    if (rc != STORE_OK) {
        ops_game_error(r, rc, (int64_t)id);
        return;
    }
    int64_t me = r->sess->user_id;
    if (g->white.id != me && g->black.id != me) {
        req_error(r, QK_ERR_FORBIDDEN, "only a player of the game may ask for a hint");
        return;
    }
    if (g->status != GAME_ACTIVE) {
        req_error(r, QK_ERR_GAME_OVER, NULL);
        return;
    }
    if (g->rated) {
        req_error(r, QK_ERR_FORBIDDEN, "no hints in a rated game");
        return;
    }
    if (atomic_load(&hint_inflight) >= HINT_MAX_INFLIGHT) {
        cJSON *err = req_error_new(r, QK_ERR_RATE_LIMITED, "too many hints at once");
        if (err && !cJSON_AddNumberToObject(err, "retry_after_ms", HINT_MS)) {
            cJSON_Delete(err);
            err = NULL;
        }
        req_reply_error(r, err);
        return;
    }
    hint_job *j = calloc(1, sizeof *j);
    if (!j) {
        req_error(r, QK_ERR_INTERNAL, NULL);
        return;
    }
    j->game_id = g->id;
    j->ply = g->ply;
    j->v = g->v;
    j->pos = g->pos;
    j->job.work = hint_work_cb;
    j->job.done = hint_after_cb;
    if (req_defer(r, &j->d) != 0) {
        free(j);
        return;
    }
    if (!s->hints || workers_submit(s->hints, &j->job) != 0) {
        log_error("hint pool closed");
        deferred_reply(&j->d, deferred_error(&j->d, QK_ERR_INTERNAL, NULL));
        free(j);
        return;
    }
    atomic_fetch_add(&hint_inflight, 1);
}
