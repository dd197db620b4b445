/*
 * workers: a small pool of threads of its own, with completions on the
 * loop thread.
 *
 * Why not libuv's pool: uv_queue_work() shares one process-wide pool of
 * four threads, and password hashes (game/auth.h) run there. Engine
 * searches of up to 300 ms each on the same pool made a flood of hint
 * requests delay every login by seconds. A pool of its own gives the
 * searches their threads and leaves libuv's to the hashes.
 *
 * A job is the caller's struct with a workers_job as its first member.
 * work(job) runs on a pool thread and may touch only the job; done(job)
 * runs later on the loop thread, exactly once, and owns the job from then
 * on. Jobs run in submission order as threads come free. The pool's poll
 * handle keeps the loop alive until workers_close().
 *
 * Why an eventfd on a uv_poll and not a uv_async: libuv before 1.45
 * (Debian 12 has 1.44.2) makes the loop thread spin, then sched_yield(),
 * whenever it wakes while the sending thread is still inside
 * uv_async_send() (libuv/libuv#3879 removed the busy loop). The SQLite
 * writer's completion is sent once per commit, and the two threads share
 * two cores with the clients: strace counted 9.7 sched_yield calls a move
 * on the fixed load of `make bench-count` (docs/perf.md). A finished job
 * is pushed on a lock-free stack (no mutex for the loop to wait on); the
 * push that finds the stack empty writes the eventfd; the loop reads it,
 * which resets it, then takes the whole stack.
 */
#ifndef QK_WORKERS_H
#define QK_WORKERS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include <uv.h>

typedef struct workers_job {
    void (*work)(struct workers_job *j); /* pool thread */
    void (*done)(struct workers_job *j); /* loop thread, once */
    struct workers_job *next;
} workers_job;

#define WORKERS_MAX_THREADS 8

typedef struct workers {
    uv_poll_t poll; /* on efd: readable when jobs are done */
    int efd;        /* eventfd(2) */
    pthread_t threads[WORKERS_MAX_THREADS];
    int nthreads;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    workers_job *todo, **todo_tail; /* under mu */
    _Atomic(workers_job *) done;    /* finished, newest first (a stack) */
    bool stopping;                  /* under mu */
    bool open;
    int nice; /* each thread's nice value (Linux: per thread) */
} workers;

/* Start nthreads (1..WORKERS_MAX_THREADS) threads and the completion
 * handle on loop. nice (0..19) lowers the threads' scheduling priority
 * (setpriority(2) on the thread id: Linux applies it per thread), so that
 * CPU-bound jobs yield the cores to the loop thread and libuv's pool: a
 * login's hash then competes with a search only for what is left. 0, or a
 * negative libuv/errno code (nothing left running). */
int workers_init(workers *w, uv_loop_t *loop, int nthreads, int nice);
/* Jobs submitted and not started yet (a gauge of GET /metrics); 0 after
 * workers_close(). Loop thread. */
int workers_queued(workers *w);
/* Queue job (its work and done set). Loop thread. 0, or -1 after
 * workers_close() (job untouched: the caller still owns it). */
int workers_submit(workers *w, workers_job *job);
/* Stop: jobs not started are not run; the threads finish the jobs they
 * are running and are joined (this blocks the loop for at most one job);
 * then every finished job's done() runs, jobs never started get done()
 * too (their work skipped), and the handle is closed. Idempotent. */
void workers_close(workers *w);

#endif
