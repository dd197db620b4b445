/*
 * fuzz_wait: wait for a socket until a deadline, whatever signals arrive
 * meanwhile. fuzz-server_id waits with it for every answer of qirkatd;
 * tests/server/test_fuzz_wait.c checks it against a real qirkatd.
 *
 * Why a loop around poll(): libFuzzer's -timeout=N (its hang detector)
 * arms a SIGALRM every N/2 + 1 seconds, with a handler installed without
 * SA_RESTART, and poll() is never restarted after a handler anyway
 * (signal(7)): it returns -1 with EINTR at once. fuzz-server_id took that
 * for "nothing came within 5 s" and reported a lost answer about once per
 * alarm that fell into a wait (issue 21): a password login on a fresh
 * connection, a sentinel ping, over TCP or WebSocket, whatever was being
 * waited for, while qirkatd had answered or was about to (its loop idle in
 * epoll_wait, the bytes all ACKed, a ping on a new connection answered).
 * Logins and over-long lines were the usual victims only because the
 * target spends the most time waiting for them.
 */
#ifndef QK_FUZZ_WAIT_H
#define QK_FUZZ_WAIT_H

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <time.h>

/* The clock of the deadlines: CLOCK_MONOTONIC in ms (fuzz_gen.h ms_now). */
static inline long long fz_wait_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait until fd has one of events (or an error or hang-up) or the
 * deadline (fz_wait_now() time) has passed. 1: ready; 0: the deadline
 * passed; -1: poll() failed for another reason than a signal (errno). An
 * interrupted poll() waits again for the time that is left. */
static inline int fz_wait_fd(int fd, short events, long long deadline)
{
    for (;;) {
        long long left = deadline - fz_wait_now();
        if (left <= 0)
            return 0;
        struct pollfd pf = {.fd = fd, .events = events};
        int r = poll(&pf, 1, left > INT_MAX ? INT_MAX : (int)left);
        if (r > 0)
            return 1;
        if (r < 0 && errno != EINTR)
            return -1;
        /* A signal, or poll()'s timeout rounded short: the clock decides. */
    }
}

#endif
