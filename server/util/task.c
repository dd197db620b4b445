/*
 * task: see task.h. One stack, one task on it at a time, a FIFO of the
 * tasks waiting to start. The switches are ucontext's (glibc's
 * swapcontext: two sigprocmask calls per switch, ~1 us, paid only when a
 * task really waits for the database).
 */
#include "util/task.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "util/log.h"

#if defined(__SANITIZE_ADDRESS__)
#define TASK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TASK_ASAN 1
#endif
#endif
#ifdef TASK_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

typedef struct queued {
    struct queued *next;
    task_fn fn;
    void *arg;
} queued;

/* The one task: what runs on the stack. */
struct task {
    task_fn fn;
    void *arg;
    bool on_stack; /* started and not ended: running or waiting */
    bool inside;   /* the CPU is on the task's stack now */
    bool ended;
};

static struct {
    bool on;
    char *map;    /* guard page + stack */
    size_t mapsz;
    ucontext_t loop_ctx, task_ctx;
    task t;
    queued *head, **tail;
    size_t n;
#ifdef TASK_ASAN
    void *task_fake;         /* ASan's fake stack of the suspended task */
    const void *loop_bottom; /* the loop's stack, learnt on entering the task */
    size_t loop_size;
#endif
} S = {.tail = &S.head};

static char *stack_base(void)
{
    return S.map + sysconf(_SC_PAGESIZE);
}

int task_enable(bool on)
{
    if (on == S.on)
        return 0;
    if (!on) {
        if (S.t.on_stack || S.head)
            return -1;
        munmap(S.map, S.mapsz);
        S.map = NULL;
        S.on = false;
        return 0;
    }
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    S.mapsz = TASK_STACK + page;
    void *m = mmap(NULL, S.mapsz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
                   -1, 0);
    if (m == MAP_FAILED) {
        log_error("task stack: mmap of %zu bytes failed", S.mapsz);
        return -1;
    }
    /* The guard page: a stack overflow faults here. */
    if (mprotect(m, page, PROT_NONE) != 0) {
        munmap(m, S.mapsz);
        log_error("task stack: mprotect failed");
        return -1;
    }
    S.map = m;
    S.on = true;
    return 0;
}

bool task_enabled(void)
{
    return S.on;
}

/* Arrived on the task's stack (first entry or back from a wait). */
static void arrived_in_task(void)
{
#ifdef TASK_ASAN
    __sanitizer_finish_switch_fiber(S.task_fake, &S.loop_bottom, &S.loop_size);
#endif
    S.t.inside = true;
}

/* From the task's stack to the loop's: suspended (ending false) or for
 * good (ending true: nothing of the task's frames is used again). */
static void to_loop(bool ending)
{
    S.t.inside = false;
#ifdef TASK_ASAN
    __sanitizer_start_switch_fiber(ending ? NULL : &S.task_fake, S.loop_bottom, S.loop_size);
#endif
    if (ending)
        setcontext(&S.loop_ctx);
    else
        swapcontext(&S.task_ctx, &S.loop_ctx);
}

/* From the loop's stack into the task until it waits or ends. */
static void to_task(void)
{
#ifdef TASK_ASAN
    void *fake = NULL;
    __sanitizer_start_switch_fiber(&fake, stack_base(), TASK_STACK);
#endif
    swapcontext(&S.loop_ctx, &S.task_ctx);
#ifdef TASK_ASAN
    __sanitizer_finish_switch_fiber(fake, NULL, NULL);
#endif
}

static void trampoline(void)
{
    arrived_in_task();
    S.t.fn(S.t.arg);
    S.t.ended = true;
    to_loop(true);
}

/* Start queued tasks while none is on the stack. Loop stack only. */
static void drive(void)
{
    while (!S.t.on_stack && S.head) {
        queued *q = S.head;
        S.head = q->next;
        if (!S.head)
            S.tail = &S.head;
        S.n--;
        S.t = (task){.fn = q->fn, .arg = q->arg, .on_stack = true};
        free(q);
        if (getcontext(&S.task_ctx) != 0) {
            log_error("task: getcontext failed; running the task on the loop's stack");
            S.t.on_stack = false;
            S.t.fn(S.t.arg);
            continue;
        }
        S.task_ctx.uc_stack.ss_sp = stack_base();
        S.task_ctx.uc_stack.ss_size = TASK_STACK;
        S.task_ctx.uc_link = NULL;
        makecontext(&S.task_ctx, trampoline, 0);
        to_task();
        if (S.t.ended)
            S.t.on_stack = false;
    }
}

int task_run(task_fn fn, void *arg)
{
    if (!S.on) {
        fn(arg);
        return 0;
    }
    queued *q = malloc(sizeof *q);
    if (!q)
        return -1;
    *q = (queued){.fn = fn, .arg = arg};
    *S.tail = q;
    S.tail = &q->next;
    S.n++;
    if (!S.t.inside)
        drive();
    return 0;
}

task *task_current(void)
{
    return S.on && S.t.inside ? &S.t : NULL;
}

void task_wait(void)
{
    if (!S.t.inside) {
        log_error("task_wait outside a task");
        abort();
    }
    to_loop(false);
    arrived_in_task();
}

void task_wake(task *t)
{
    if (t != &S.t || !S.t.on_stack || S.t.inside) {
        log_error("task_wake of a task that does not wait");
        return;
    }
    to_task();
    if (S.t.ended)
        S.t.on_stack = false;
    drive();
}

bool task_busy(void)
{
    return S.t.on_stack;
}

size_t task_queued(void)
{
    return S.n;
}
