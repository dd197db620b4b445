/*
 * qk_solve: the solver's table, its threads and its checkpoints; the
 * searches are qk_solve_bb.c (boards of at most 64 squares) and
 * qk_solve_generic.c (larger boards). See qk_solve.h for the method and
 * qk_solve_int.h for the table's lockless entries.
 *
 * Threads. With limits.threads > 1 (or a progress callback) the search
 * runs on that many helper threads over the one table while the calling
 * thread waits, reporting progress. Every thread searches the whole tree
 * from the root; they differ in move order near the root (qk_solve_bb.c),
 * so each finds in the table much of what the others proved (lazy SMP).
 * The first thread to finish publishes its result and raises the halt
 * flag; the others stop without storing anything unfinished. Every table
 * entry is a proven bound, so which thread wrote it never matters.
 *
 * Entry data word: lo (16 bits) | hi << 16 | move << 32 | work << 48.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qk_solve_int.h"

#define MOVES_MAX_BYTES ((size_t)16 << 20)

static inline uint64_t pack(int lo, int hi, uint16_t move, uint8_t work)
{
    return (uint64_t)(uint16_t)(int16_t)lo | (uint64_t)(uint16_t)(int16_t)hi << 16 |
           (uint64_t)move << 32 | (uint64_t)work << 48;
}

bool qk_tt_probe(const qk_solver *s, uint64_t key, qk_tt_hit *h)
{
    struct qk_solve_entry *b = s->table + (key & (s->nbuckets - 1)) * QK_TT_BUCKET;
    for (int i = 0; i < QK_TT_BUCKET; i++) {
        uint64_t d = atomic_load_explicit(&b[i].data, memory_order_relaxed);
        uint64_t kx = atomic_load_explicit(&b[i].kx, memory_order_relaxed);
        if (d && (kx ^ d) == key) {
            h->lo = (int16_t)(uint16_t)d;
            h->hi = (int16_t)(uint16_t)(d >> 16);
            h->move = (uint16_t)(d >> 32);
            return true;
        }
    }
    return false;
}

void qk_tt_store(qk_solver *s, uint64_t key, int lo, int hi, uint16_t move, uint8_t work,
                 _Atomic uint64_t *filled)
{
    struct qk_solve_entry *b = s->table + (key & (s->nbuckets - 1)) * QK_TT_BUCKET, *e = NULL;
    int ework = 256;
    bool empty = false;
    for (int i = 0; i < QK_TT_BUCKET; i++) {
        uint64_t d = atomic_load_explicit(&b[i].data, memory_order_relaxed);
        uint64_t kx = atomic_load_explicit(&b[i].kx, memory_order_relaxed);
        if (d && (kx ^ d) == key) {
            /* Same position: both bounds hold, keep the tighter ones. */
            int elo = (int16_t)(uint16_t)d, ehi = (int16_t)(uint16_t)(d >> 16);
            if (elo > lo)
                lo = elo;
            if (ehi < hi)
                hi = ehi;
            if (!move)
                move = (uint16_t)(d >> 32);
            if ((uint8_t)(d >> 48) > work)
                work = (uint8_t)(d >> 48);
            e = &b[i];
            empty = false;
            break;
        }
        if (!d) {
            if (!empty) {
                e = &b[i];
                empty = true;
                ework = -1;
            }
            continue;
        }
        if (!empty && (int)(uint8_t)(d >> 48) < ework) {
            e = &b[i];
            ework = (uint8_t)(d >> 48);
        }
    }
    if (empty && filled)
        qk_sctl_inc(filled);
    uint64_t d = pack(lo, hi, move, work);
    atomic_store_explicit(&e->data, d, memory_order_relaxed);
    atomic_store_explicit(&e->kx, key ^ d, memory_order_relaxed);
}

static int split(qk_solver *s, void *buf, size_t bytes)
{
    size_t mbytes = bytes / 16;
    if (mbytes < 2 * QK_MAX_MOVES * sizeof(qk_move))
        mbytes = 2 * QK_MAX_MOVES * sizeof(qk_move);
    if (mbytes > MOVES_MAX_BYTES)
        mbytes = MOVES_MAX_BYTES;
    size_t bsize = QK_TT_BUCKET * sizeof(struct qk_solve_entry);
    if (bytes < mbytes + bsize)
        return QK_EINVAL;
    size_t nb = 1;
    while (nb * 2 * bsize <= bytes - mbytes)
        nb *= 2;
    s->table = buf;
    s->nbuckets = nb;
    /* The move stack follows the table, which keeps the table's alignment. */
    s->moves = (qk_move *)((char *)buf + nb * bsize);
    s->nmoves = (bytes - nb * bsize) / sizeof(qk_move);
    qk_solver_clear(s);
    return QK_OK;
}

int qk_solver_init(qk_solver *s, size_t bytes)
{
    if (!s || bytes < QK_SOLVE_MIN_BYTES)
        return QK_EINVAL;
    memset(s, 0, sizeof *s);
    /* Cache-line aligned, so a bucket is one line. */
    void *mem = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!mem)
        return QK_ENOMEM;
    int rc = split(s, mem, bytes);
    if (rc != QK_OK) {
        free(mem);
        memset(s, 0, sizeof *s);
        return rc;
    }
    s->mem = mem;
    return QK_OK;
}

int qk_solver_init_buffer(qk_solver *s, void *buf, size_t bytes)
{
    if (!s || !buf || bytes < QK_SOLVE_MIN_BYTES)
        return QK_EINVAL;
    memset(s, 0, sizeof *s);
    return split(s, buf, bytes);
}

void qk_solver_free(qk_solver *s)
{
    if (!s)
        return;
    free(s->mem);
    memset(s, 0, sizeof *s);
}

void qk_solver_clear(qk_solver *s)
{
    if (s && s->table)
        memset((void *)s->table, 0, s->nbuckets * QK_TT_BUCKET * sizeof(struct qk_solve_entry));
}

void qk_solver_fill(const qk_solver *s, uint64_t *used, uint64_t *capacity)
{
    uint64_t n = 0, cap = s && s->table ? s->nbuckets * QK_TT_BUCKET : 0;
    for (uint64_t i = 0; i < cap; i++)
        n += atomic_load_explicit(&s->table[i].data, memory_order_relaxed) != 0;
    if (used)
        *used = n;
    if (capacity)
        *capacity = cap;
}

bool qk_solve_feasible(const qk_variant *v, const qk_pos *p)
{
    if (!v || !p || !qk_variant_is_konane(v))
        return false;
    int squares = v->ranks * v->files, pawns = 0;
    for (int i = 0; i < squares; i++)
        pawns += p->sq[i] != QK_EMPTY;
    return squares <= 30 || pawns <= 8;
}

/* One search thread's work. */
typedef struct job {
    qk_sctl c;
    const qk_variant *v;
    const qk_pos *p;
    qk_bbgeo g;
    qk_bbpos bp;
    int alpha, beta;
    int score;
    bool has_best;
    qk_move best;
    atomic_int *done; /* the first finished thread's id + 1 */
} job;

static void run_job(job *j)
{
    if (qk_bb_supported(j->v)) {
        qk_bbsearch t = {.c = &j->c, .g = &j->g};
        j->score = qk_bb_search(&t, &j->bp, j->alpha, j->beta, 0);
        j->has_best = t.root_has;
        if (t.root_has) {
            /* The rules module's own move object, for qk_pos_make(). */
            qk_move mv[QK_BB_MAXMOVES];
            qk_move want;
            qk_bb_to_move(t.root_best, &want);
            int n = qk_movegen(j->v, j->p, mv, QK_BB_MAXMOVES);
            j->best = want;
            for (int i = 0; i < n; i++)
                if (mv[i].path[0] == want.path[0] && mv[i].path[1] == want.path[1])
                    j->best = mv[i];
        }
    } else {
        j->score = qk_solve_generic(&j->c, j->v, j->p, j->alpha, j->beta, &j->best, &j->has_best);
    }
    if (!j->c.aborted) {
        int expect = 0;
        if (atomic_compare_exchange_strong(j->done, &expect, j->c.id + 1))
            atomic_store(j->c.halt, 1);
    }
}

static void *thread_cb(void *arg)
{
    run_job(arg);
    return NULL;
}

static uint64_t ms_since(const struct timespec *t0)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    int64_t ms = (int64_t)(now.tv_sec - t0->tv_sec) * 1000 + (now.tv_nsec - t0->tv_nsec) / 1000000;
    return ms > 0 ? (uint64_t)ms : 0;
}

static void sum_progress(const job *jobs, int n, const struct timespec *t0, const qk_solver *s,
                         qk_solve_progress *pr)
{
    memset(pr, 0, sizeof *pr);
    for (int i = 0; i < n; i++) {
        pr->nodes += atomic_load_explicit(&jobs[i].c.nodes, memory_order_relaxed);
        pr->expanded += atomic_load_explicit(&jobs[i].c.expanded, memory_order_relaxed);
        pr->filled += atomic_load_explicit(&jobs[i].c.filled, memory_order_relaxed);
    }
    pr->capacity = s->nbuckets * QK_TT_BUCKET;
    if (pr->filled > pr->capacity)
        pr->filled = pr->capacity;
    pr->elapsed_ms = ms_since(t0);
}

int qk_solve(qk_solver *s, const qk_variant *v, const qk_pos *p, const qk_solve_limits *lim,
             qk_solve_result *out)
{
    if (!s || !v || !p || !out || !s->table || !qk_variant_is_konane(v))
        return QK_EINVAL;
    memset(out, 0, sizeof *out);
    qk_result res;
    if (qk_pos_status(v, p, &res, NULL)) {
        /* Finished: the side to move has no legal move and has lost. */
        out->solved = out->exact = true;
        out->winner = res;
        out->mover_wins = (res == QK_RESULT_WHITE) == (p->side == QK_WHITE);
        out->score = out->mover_wins ? QK_SCORE_WIN : -QK_SCORE_WIN;
        out->nodes = 1;
        return QK_OK;
    }
    static const qk_solve_limits none;
    if (!lim)
        lim = &none;
    bool wo = lim->winner_only;
    int nthreads = lim->threads > 1 ? lim->threads : 1;
    if (nthreads > QK_SOLVE_MAX_THREADS)
        nthreads = QK_SOLVE_MAX_THREADS;
    if (!qk_bb_supported(v))
        nthreads = 1; /* the generic path shares one move stack */
    bool helpers = nthreads > 1 || (lim->progress && lim->progress_ms);

    job *jobs = calloc((size_t)nthreads, sizeof *jobs);
    if (!jobs)
        return QK_ENOMEM;
    atomic_int halt = 0, done = 0;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < nthreads; i++) {
        job *j = &jobs[i];
        j->c.s = s;
        j->c.halt = &halt;
        j->c.stop = lim->stop;
        j->c.node_limit = lim->nodes;
        j->c.id = i;
        if (lim->time_ms) {
            j->c.deadline = qk_deadline(lim->time_ms);
            j->c.timed = true;
        }
        j->v = v;
        j->p = p;
        if (qk_bb_supported(v)) {
            qk_bb_geo(v, &j->g);
            qk_bb_from_pos(&j->g, p, &j->bp);
        }
        /* Every value is a win or a loss, never 0: the window (-1, 1)
         * asks only for its sign. */
        j->alpha = wo ? -1 : -QK_SCORE_INF;
        j->beta = wo ? 1 : QK_SCORE_INF;
        j->done = &done;
    }
    int rc = QK_OK;
    if (!helpers) {
        run_job(&jobs[0]);
    } else {
        pthread_t tid[QK_SOLVE_MAX_THREADS];
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, (size_t)16 << 20); /* deep games, 5 KiB a ply */
        int started = 0;
        for (; started < nthreads; started++)
            if (pthread_create(&tid[started], &attr, thread_cb, &jobs[started]) != 0)
                break;
        pthread_attr_destroy(&attr);
        if (started == 0) {
            free(jobs);
            return QK_ENOMEM;
        }
        uint64_t next = lim->progress_ms;
        while (!atomic_load(&halt)) {
            struct timespec ts = {0, 20 * 1000000L};
            nanosleep(&ts, NULL);
            if (lim->stop && atomic_load(lim->stop))
                atomic_store(&halt, 1);
            if (lim->progress && lim->progress_ms && ms_since(&t0) >= next) {
                qk_solve_progress pr;
                sum_progress(jobs, nthreads, &t0, s, &pr);
                lim->progress(&pr, lim->progress_arg);
                next += lim->progress_ms;
            }
        }
        for (int i = 0; i < started; i++)
            pthread_join(tid[i], NULL);
    }
    qk_solve_progress pr;
    sum_progress(jobs, nthreads, &t0, s, &pr);
    out->nodes = pr.nodes;
    out->expanded = pr.expanded;
    int win = atomic_load(&done) - 1;
    bool nospc = false;
    for (int i = 0; i < nthreads; i++)
        nospc |= jobs[i].c.nospc;
    if (nospc) {
        rc = QK_ENOSPC;
    } else if (win >= 0 && jobs[win].has_best) {
        int score = jobs[win].score;
        out->solved = true;
        out->exact = !wo;
        out->mover_wins = score > 0;
        out->score = wo ? (score > 0 ? 1 : -1) : score;
        out->distance = wo ? -1 : QK_SCORE_WIN - (score > 0 ? score : -score);
        bool white_wins = out->mover_wins == (p->side == QK_WHITE);
        out->winner = white_wins ? QK_RESULT_WHITE : QK_RESULT_BLACK;
        out->has_move = true;
        out->best = jobs[win].best;
    }
    free(jobs);
    return rc;
}

int qk_solve_pv(qk_solver *s, const qk_variant *v, const qk_pos *p, qk_move *pv, int cap)
{
    if (!s || !v || !p || !pv || !s->table || cap <= 0 || !qk_variant_is_konane(v))
        return 0;
    if (!qk_bb_supported(v))
        return qk_solve_generic_pv(s, v, p, pv, cap);
    qk_bbgeo g;
    qk_bb_geo(v, &g);
    qk_bbpos b;
    qk_bb_from_pos(&g, p, &b);
    qk_pos pos = *p;
    int len = 0;
    while (len < cap) {
        qk_tt_hit h;
        qk_bbmove mv[QK_BB_MAXMOVES];
        int n = qk_bb_gen(&g, &b, mv), k = -1;
        if (n == 0)
            break;
        /* A win in one is not stored: it is the move that leaves no reply. */
        for (int i = 0; i < n && k < 0; i++) {
            qk_bbpos c = b;
            qk_bb_make(&c, mv[i]);
            if (qk_bb_count(&g, &c, c.side) == 0)
                k = i;
        }
        if (k < 0 && qk_bb_probe(&g, s, &b, &h) && h.move)
            for (int i = 0; i < n; i++)
                if (mv[i] == h.move)
                    k = i;
        if (k < 0)
            break;
        qk_bb_to_move(mv[k], &pv[len++]);
        qk_bb_make(&b, mv[k]);
        qk_undo u;
        qk_pos_make(v, &pos, &pv[len - 1], &u);
    }
    return len;
}

int qk_solve_lookup(qk_solver *s, const qk_variant *v, const qk_pos *p, bool *mover_wins,
                    int *distance)
{
    if (!s || !v || !p || !mover_wins || !distance || !s->table || !qk_variant_is_konane(v))
        return QK_EINVAL;
    qk_tt_hit h;
    bool hit;
    if (qk_bb_supported(v)) {
        qk_bbgeo g;
        qk_bb_geo(v, &g);
        qk_bbpos b;
        qk_bb_from_pos(&g, p, &b);
        hit = qk_bb_probe(&g, s, &b, &h);
    } else {
        hit = qk_tt_probe(s, qk_solve_generic_key(v, p), &h);
    }
    if (!hit || (h.lo < 0 && h.hi > 0))
        return QK_EILLEGAL;
    *mover_wins = h.lo > 0;
    int x = h.lo > 0 ? h.lo : h.hi;
    *distance = h.lo == h.hi ? QK_SCORE_WIN - (x > 0 ? x : -x) : -1;
    return QK_OK;
}

/* ---- checkpoints: "QKCKPT1\n", the tag line, then pairs of words ------ */

int qk_solver_save(const qk_solver *s, const char *path, const char *tag, int min_work,
                   uint64_t *saved)
{
    if (!s || !s->table || !path || !tag)
        return QK_EINVAL;
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
        return QK_EINVAL;
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return QK_EINVAL;
    uint64_t n = 0, cap = s->nbuckets * QK_TT_BUCKET;
    fprintf(f, "QKCKPT1\n%s\n", tag);
    for (uint64_t i = 0; i < cap; i++) {
        uint64_t d = atomic_load_explicit(&s->table[i].data, memory_order_relaxed);
        uint64_t kx = atomic_load_explicit(&s->table[i].kx, memory_order_relaxed);
        if (!d || (int)(d >> 48 & 0xFF) < min_work)
            continue;
        uint64_t w[2] = {kx ^ d, d};
        if (fwrite(w, sizeof w, 1, f) != 1)
            break;
        n++;
    }
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        remove(tmp);
        return QK_EINVAL;
    }
    if (saved)
        *saved = n;
    return QK_OK;
}

int qk_solver_load(qk_solver *s, const char *path, const char *tag, uint64_t *loaded)
{
    if (!s || !s->table || !path || !tag)
        return QK_EINVAL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return QK_EINVAL;
    char line[4096];
    int rc = QK_OK;
    if (!fgets(line, sizeof line, f) || strcmp(line, "QKCKPT1\n") != 0 ||
        !fgets(line, sizeof line, f) || strncmp(line, tag, strlen(tag)) != 0 ||
        line[strlen(tag)] != '\n') {
        fclose(f);
        return QK_EILLEGAL;
    }
    uint64_t w[2], n = 0;
    while (fread(w, sizeof w, 1, f) == 1) {
        uint64_t d = w[1];
        qk_tt_store(s, w[0], (int16_t)(uint16_t)d, (int16_t)(uint16_t)(d >> 16),
                    (uint16_t)(d >> 32), (uint8_t)(d >> 48), NULL);
        n++;
    }
    if (ferror(f))
        rc = QK_EINVAL;
    fclose(f);
    if (loaded)
        *loaded = n;
    return rc;
}
