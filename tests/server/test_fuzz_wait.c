/*
 * Issue 21's "lost answer" of fuzz-server_id: qirkatd had lost nothing.
 * libFuzzer's -timeout alarm (a SIGALRM every N/2 + 1 s, its handler
 * installed without SA_RESTART) interrupted the target's poll(), which
 * took the EINTR for 5 s of silence and aborted at once: mostly while a
 * password login on a fresh connection was being hashed, the longest wait
 * of the target. The target now waits through tests/fuzz/fuzz_wait.h; this
 * checks that wait against a real qirkatd over TCP, with the alarm made
 * deterministic: a handler like libFuzzer's firing every 20 ms, and the
 * login's hash held for 300 ms (QK_TEST_HASH_DELAY_MS), so several alarms
 * fall into the wait for its answer.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "../fuzz/fuzz_wait.h"
#include "helper.h"

#define HASH_DELAY_MS 300

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
    (void)sig;
    alarms++;
}

static struct sigaction saved;

/* libFuzzer's alarm, every 20 ms. */
static void alarm_start(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* as libFuzzer's: no SA_RESTART */
    cr_assert_eq(sigaction(SIGALRM, &sa, &saved), 0);
    alarms = 0;
    struct itimerval it = {{0, 20000}, {0, 20000}};
    cr_assert_eq(setitimer(ITIMER_REAL, &it, NULL), 0);
}

static void alarm_stop(void)
{
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    sigaction(SIGALRM, &saved, NULL);
}

Test(fuzz_wait, login_answer_is_waited_for_through_alarms)
{
    tsrv s;
    char env[64];
    snprintf(env, sizeof env, "QK_TEST_HASH_DELAY_MS=%d", HASH_DELAY_MS);
    tsrv_start(&s, env);
    tconn *a = tc_open(s.port);
    t_register(a, "alice");
    tc_close(a);

    /* As fuzz-server_id's peer_open: a fresh connection, a password login. */
    tconn *c = tc_open(s.port);
    alarm_start();
    cr_assert(tc_sendf(c,
                       "{\"type\":\"login\",\"id\":\"login-1\",\"username\":\"alice\","
                       "\"password\":\"%s\"}\n",
                       T_PW));
    long long start = fz_wait_now(), end = start + T_TIMEOUT_MS;
    char buf[65536];
    size_t n = 0;
    int w = 1;
    while (!memchr(buf, '\n', n) && n < sizeof buf - 1) {
        w = fz_wait_fd(c->fd, POLLIN, end);
        if (w != 1)
            break;
        ssize_t r = recv(c->fd, buf + n, sizeof buf - 1 - n, 0);
        if (r < 0 && errno == EINTR)
            continue;
        cr_assert_gt(r, 0, "the server closed the connection");
        n += (size_t)r;
    }
    long long waited = fz_wait_now() - start;
    int seen = alarms;
    alarm_stop();
    cr_assert_eq(w, 1,
                 "the wait gave up (%d) after %lld ms of %d, %d alarms: an interrupted poll() "
                 "is not a timeout",
                 w, waited, T_TIMEOUT_MS, seen);
    cr_assert_gt(seen, 0, "no alarm fell into the wait: the test proves nothing");
    char *nl = memchr(buf, '\n', n);
    cr_assert_not_null(nl);
    cJSON *r = cJSON_ParseWithLength(buf, (size_t)(nl - buf));
    cr_assert_not_null(r, "not JSON: %.*s", (int)(nl - buf), buf);
    t_ok(r, "login");
    cr_assert_str_eq(t_str(r, "id"), "login-1");
    cJSON_Delete(r);
    tc_close(c);
    tsrv_stop(&s);
    tsrv_cleanup(&s);
}

/* And a wait that nothing ends still ends at its deadline, not before. */
Test(fuzz_wait, silence_ends_at_the_deadline_through_alarms)
{
    tsrv s;
    tsrv_start(&s, NULL);
    tconn *c = tc_open(s.port);
    alarm_start();
    long long start = fz_wait_now();
    int w = fz_wait_fd(c->fd, POLLIN, start + 200);
    long long waited = fz_wait_now() - start;
    int seen = alarms;
    alarm_stop();
    cr_assert_eq(w, 0, "fz_wait_fd gave %d on a silent connection", w);
    cr_assert_geq(waited, 200, "gave up after %lld ms (%d alarms)", waited, seen);
    cr_assert_gt(seen, 0);
    tc_close(c);
    tsrv_stop(&s);
    tsrv_cleanup(&s);
}
