/*
 * workers: see workers.h.
 */
#include "util/workers.h"

#include "util/task.h"

#include <stddef.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/log.h"

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
        pthread_mutex_lock(&w->mu);
        j->next = NULL;
        *w->done_tail = j;
        w->done_tail = &j->next;
        uv_async_send(&w->async);
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
    pthread_mutex_lock(&w->mu);
    workers_job *j = w->done;
    w->done = NULL;
    w->done_tail = &w->done;
    pthread_mutex_unlock(&w->mu);
    while (j) {
        workers_job *next = j->next;
        if (task_run(call_done, j) != 0)
            j->done(j);
        j = next;
    }
}

static void async_cb(uv_async_t *h)
{
    run_done(h->data);
}

int workers_init(workers *w, uv_loop_t *loop, int nthreads, int nice)
{
    if (nthreads < 1 || nthreads > WORKERS_MAX_THREADS || nice < 0 || nice > 19)
        return UV_EINVAL;
    w->nice = nice;
    w->todo = w->done = NULL;
    w->todo_tail = &w->todo;
    w->done_tail = &w->done;
    w->stopping = false;
    w->nthreads = 0;
    int rc = uv_async_init(loop, &w->async, async_cb);
    if (rc < 0)
        return rc;
    w->async.data = w;
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
    uv_close((uv_handle_t *)&w->async, NULL);
}
