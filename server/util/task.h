/*
 * task: the server's work, one piece at a time, able to wait for a
 * network database without blocking the loop (issue 22).
 *
 * Why. Every handler of the game service reads the store and uses the row
 * on the next line (store_core.h). SQLite answers from the process's page
 * cache, so those calls never wait; PostgreSQL answers over a socket, and
 * the loop must never block on it (libpq's asynchronous API, watched with
 * uv_poll). Rewriting 24,000 lines of handlers into callback chains would
 * fork the game service in two; instead a piece of work runs as a task on
 * a stack of its own, and a store call that must wait suspends the task
 * (task_wait()) and returns to the loop, which goes on reading sockets,
 * writing answers and receiving the database's replies. The reply resumes
 * the task (task_wake()) where it stopped.
 *
 * One task at a time. Tasks run strictly one after another, in the order
 * they were started (task_run()), each to its end, as the handlers ran on
 * the loop before: a handler that reads a game, waits for the database
 * and then writes the game still sees no other handler's change in
 * between, so the game service keeps its single-threaded reasoning. The
 * loop itself (I/O, timers, answers) is never held up by a waiting task;
 * only the next task waits. So one stack serves every task.
 *
 * Off (task_enable(false), the default, and what the SQLite backend
 * uses): task_run() calls fn at once on the caller's stack, exactly as
 * before; task_current() is NULL and no call ever waits.
 *
 * Stacks are TASK_STACK bytes of mmap()ed memory with a guard page below,
 * so an overflow faults instead of corrupting the heap. ASan builds tell
 * the sanitizer about each switch (its fiber annotations).
 *
 * Loop thread only; one scheduler per process (the server has one loop).
 */
#ifndef QK_TASK_H
#define QK_TASK_H

#include <stdbool.h>
#include <stddef.h>

#define TASK_STACK (512 * 1024) /* bytes; the deepest handler (a PDN import) needs ~60 KiB */

typedef struct task task;
typedef void (*task_fn)(void *arg);

/* Turn tasks on or off (see above). Turning them on allocates the stack:
 * 0, or -1 (logged) when it cannot; off only when no task is queued or
 * running. */
int task_enable(bool on);
/* Whether tasks are on. */
bool task_enabled(void);

/* Run fn(arg): at once when tasks are off or none is running (fn may then
 * return before or after task_run() does: it returns when fn ends or
 * first waits); else after the tasks started before it. arg is the
 * caller's and must stay valid until fn has run; fn owns whatever it must
 * free. 0, or -1 when the queue entry could not be allocated (fn did not
 * run and will not). */
int task_run(task_fn fn, void *arg);

/* The running task, or NULL on the loop's own stack (then nothing may
 * wait: a store call there must complete or be refused). */
task *task_current(void);

/* Suspend the running task until task_wake() names it; returns then.
 * Only from inside a task. */
void task_wait(void);

/* Resume t, which waits in task_wait(): it runs now, on this call, until
 * it waits again or ends (then the next queued task starts). Call it from
 * a loop callback, never from inside a task. */
void task_wake(task *t);

/* Whether a task is running or waiting: the iteration's transaction must
 * stay open while one waits half-way through its writes (srv.c flush). */
bool task_busy(void);
/* Tasks queued behind the running one (metrics). */
size_t task_queued(void);

#endif
