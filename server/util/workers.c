/*
 * workers: see workers.h.
 */
#include "util/workers.h"

#include "util/task.h"

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/log.h"

/* Tell the loop that jobs are done: the eventfd becomes readable. */
static void signal_loop(workers *w)
{
    uint64_t one = 1;
    while (write(w->efd, &one, sizeof one) < 0 && errno == EINTR)
        ;
    /* EAGAIN (the counter is full) still leaves it readable. */
}

static void *thread_main(void *arg)
{
    workers *w = arg;
    if (w->nice > 0 && setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), w->nice) != 0)
        log_warn("workers: cannot lower the priority of a thread");
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->todo && !w->stopping)
            pthread_cond_wait(&w->cv, &w->mu);
        if (w->stopping)
            break;
        workers_job *j = w->todo;
        w->todo = j->next;
        if (!w->todo)
            w->todo_tail = &w->todo;
        pthread_mutex_unlock(&w->mu);
        j->work(j);
        /* Onto the done stack; the first job on an empty stack wakes the
         * loop (workers.h). */
        workers_job *head = atomic_load(&w->done);
        do
            j->next = head;
        while (!atomic_compare_exchange_weak(&w->done, &head, j));
        if (!head)
            signal_loop(w);
        pthread_mutex_lock(&w->mu);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

static void call_done(void *arg)
{
    workers_job *j = arg;
    j->done(j);
}

/* Loop thread: run done() of every finished job, each as a task
 * (util/task.h): a completion may read the store, which on PostgreSQL
 * may wait (at once, on the loop's stack, when tasks are off). */
static void run_done(workers *w)
{
    /* The stack holds the newest first: reversed, the jobs come in the
     * order they finished (one thread: the order they were submitted). */
    workers_job *top = atomic_exchange(&w->done, NULL), *j = NULL;
    while (top) {
        workers_job *next = top->next;
        top->next = j;
        j = top;
        top = next;
    }
    while (j) {
        workers_job *next = j->next;
        if (task_run(call_done, j) != 0)
            j->done(j);
        j = next;
    }
}

static void poll_cb(uv_poll_t *h, int status, int events)
{
    (void)events;
    workers *w = h->data;
    if (status < 0)
        log_error("workers: completion poll: %s", uv_strerror(status));
    uint64_t n;
    /* Reset the counter first: a job done after this read finds the stack
     * empty or not; if empty, it signals again. */
    while (read(w->efd, &n, sizeof n) < 0 && errno == EINTR)
        ;
    run_done(w);
}

static void poll_closed(uv_handle_t *h)
{
    workers *w = h->data;
    close(w->efd);
    w->efd = -1;
}

int workers_init(workers *w, uv_loop_t *loop, int nthreads, int nice)
{
    if (nthreads < 1 || nthreads > WORKERS_MAX_THREADS || nice < 0 || nice > 19)
        return UV_EINVAL;
    w->nice = nice;
    w->todo = NULL;
    w->todo_tail = &w->todo;
    atomic_init(&w->done, NULL);
    w->stopping = false;
    w->nthreads = 0;
    w->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (w->efd < 0)
        return -errno;
    int rc = uv_poll_init(loop, &w->poll, w->efd);
    if (rc == 0 && (rc = uv_poll_start(&w->poll, UV_READABLE, poll_cb)) < 0)
        /* Closing stops the watch at once; the fd can go right after. */
        uv_close((uv_handle_t *)&w->poll, NULL);
    if (rc < 0) {
        close(w->efd);
        w->efd = -1;
        return rc;
    }
    w->poll.data = w;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    w->open = true;
    for (int i = 0; i < nthreads; i++) {
        int e = pthread_create(&w->threads[i], NULL, thread_main, w);
        if (e != 0) {
            workers_close(w);
            return -e;
        }
        w->nthreads++;
    }
    return 0;
}

int workers_queued(workers *w)
{
    if (!w->open)
        return 0;
    int n = 0;
    pthread_mutex_lock(&w->mu);
    for (const workers_job *j = w->todo; j; j = j->next)
        n++;
    pthread_mutex_unlock(&w->mu);
    return n;
}

int workers_submit(workers *w, workers_job *job)
{
    if (!w->open)
        return -1;
    job->next = NULL;
    pthread_mutex_lock(&w->mu);
    *w->todo_tail = job;
    w->todo_tail = &job->next;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    return 0;
}

void workers_close(workers *w)
{
    if (!w->open)
        return;
    w->open = false;
    pthread_mutex_lock(&w->mu);
    w->stopping = true;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    for (int i = 0; i < w->nthreads; i++)
        pthread_join(w->threads[i], NULL);
    /* No thread is left: the lists are the loop's alone now. */
    run_done(w);
    workers_job *j = w->todo;
    w->todo = NULL;
    w->todo_tail = &w->todo;
    while (j) {
        workers_job *next = j->next;
        j->done(j);
        j = next;
    }
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    uv_poll_stop(&w->poll);
    uv_close((uv_handle_t *)&w->poll, poll_closed);
}
