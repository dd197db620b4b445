/*
 * task (util/task.h): the scheduler that lets a request wait for
 * PostgreSQL without blocking the loop. One task at a time, in the order
 * they were started; a waiting task lets the loop run (its timers here)
 * and is resumed where it stopped; with tasks off, work runs at once.
 * A real libuv loop drives it; no database is involved.
 */
#include <criterion/criterion.h>
#include <string.h>

#include <uv.h>

#include "util/task.h"

static char trace[256];
static task *waiting;

static void mark(const char *s)
{
    strncat(trace, s, sizeof trace - strlen(trace) - 1);
}

static void fini(void)
{
    (void)task_enable(false);
}

TestSuite(task, .fini = fini);

static void plain(void *arg)
{
    mark(arg);
}

Test(task, off_runs_at_once_on_the_callers_stack)
{
    trace[0] = '\0';
    cr_assert_not(task_enabled());
    cr_assert_eq(task_run(plain, "a"), 0);
    cr_assert_str_eq(trace, "a");
    cr_assert_null(task_current());
    cr_assert_not(task_busy());
}

/* Waits once, in the middle, for the timer to wake it. */
static void waits(void *arg)
{
    mark(arg);
    cr_assert_not_null(task_current());
    waiting = task_current();
    task_wait();
    mark("+");
    mark(arg);
}

static void wake_cb(uv_timer_t *t)
{
    mark("T");
    cr_assert_null(task_current(), "timers run on the loop's own stack");
    task *w = waiting;
    waiting = NULL;
    task_wake(w);
    if (waiting)
        uv_timer_start(t, wake_cb, 1, 0);
}

Test(task, a_waiting_task_lets_the_loop_run_and_later_tasks_wait_their_turn)
{
    trace[0] = '\0';
    cr_assert_eq(task_enable(true), 0);
    uv_loop_t loop;
    uv_loop_init(&loop);
    uv_timer_t t;
    uv_timer_init(&loop, &t);
    cr_assert_eq(task_run(waits, "A"), 0);
    /* A started and waits; B and the plain C queue behind it. */
    cr_assert_str_eq(trace, "A");
    cr_assert(task_busy());
    cr_assert_eq(task_run(waits, "B"), 0);
    cr_assert_eq(task_run(plain, "C"), 0);
    cr_assert_eq(task_queued(), 2);
    cr_assert_str_eq(trace, "A");
    uv_timer_start(&t, wake_cb, 1, 0);
    uv_run(&loop, UV_RUN_DEFAULT);
    /* The timer woke A, which ended; B started at once and waited; the
     * timer woke B; then C ran. */
    cr_assert_str_eq(trace, "AT+ABT+BC");
    cr_assert_not(task_busy());
    cr_assert_eq(task_queued(), 0);
    uv_close((uv_handle_t *)&t, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
}

static void nested_inner(void *arg)
{
    (void)arg;
    mark("i");
}

static void nested_outer(void *arg)
{
    (void)arg;
    mark("o");
    /* Started from inside a task: runs after this one ends, not inside. */
    cr_assert_eq(task_run(nested_inner, NULL), 0);
    mark("O");
}

Test(task, a_task_started_by_a_task_runs_after_it)
{
    trace[0] = '\0';
    cr_assert_eq(task_enable(true), 0);
    cr_assert_eq(task_run(nested_outer, NULL), 0);
    cr_assert_str_eq(trace, "oOi");
    cr_assert_not(task_busy());
}

/* A deep stack: 200 KiB of locals fits in TASK_STACK. */
static void deep(void *arg)
{
    volatile char buf[200 * 1024];
    memset((char *)buf, 1, sizeof buf);
    *(int *)arg = buf[sizeof buf - 1];
}

Test(task, a_task_has_a_stack_of_its_own_big_enough_for_a_handler)
{
    int got = 0;
    cr_assert_eq(task_enable(true), 0);
    cr_assert_eq(task_run(deep, &got), 0);
    cr_assert_eq(got, 1);
}

Test(task, turning_off_is_refused_while_a_task_waits)
{
    trace[0] = '\0';
    cr_assert_eq(task_enable(true), 0);
    cr_assert_eq(task_run(waits, "W"), 0);
    cr_assert_eq(task_enable(false), -1);
    task *w = waiting;
    waiting = NULL;
    task_wake(w);
    cr_assert_str_eq(trace, "W+W");
    cr_assert_eq(task_enable(false), 0);
}
