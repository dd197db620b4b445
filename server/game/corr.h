/*
 * corr: the clock-driven side of correspondence play in qirkatd.
 *
 * Design. Time is srv_now(); with srv_config.test_clock it is a number
 * that only the `debug_clock` op moves (tests drive deadlines through it).
 * Every active game with a deadline has games.wake_at (games_put_x): the
 * deadline itself, or 24 h before a correspondence deadline whose
 * `deadline_soon` notification is not sent yet. ONE uv_timer is armed at
 * the earliest wake_at (an index gives it, store_wake_next) and re-armed
 * after each commit that changed one (corr_wake_changed, then srv_flush
 * calls corr_after_flush). When it fires, corr_sweep() looks at every due
 * game: a deadline reached ends the game `timeout` (the other side wins)
 * unless the side to move is on vacation and the game allows it, in which
 * case the deadline moves back (games_extend, kind "vacation"): to the
 * vacation's end plus the time that was left when it began (at most one
 * move's days). A warning due sends `deadline_soon` once per deadline.
 *
 * Restarts. The row server_state.last_alive is written at start, every
 * minute and at a clean stop. At start, if the server was down for more
 * than an hour (now - last_alive), every running correspondence deadline
 * is extended by the whole downtime and the extension logged per game
 * (store_extend_downtime), before the port is reported.
 *
 * Heartbeat. A second timer sends an empty line to every connection that
 * had no output for heartbeat_ms (20 s by default). The same sweep closes
 * every connection that has not logged in login_timeout_ms (60 s by
 * default) after it was accepted, after an `unauthenticated` error
 * without id ("log in within 60 s"); one with a request deferred (a
 * login being hashed) is left alone. The sweep runs every quarter of the
 * shorter of the two.
 *
 * Vacation accounting: each user has a yearly allowance of
 * CORR_VACATION_H hours (reset on the first use in a new UTC year). A
 * vacation of H hours (at most what is left) runs from `on` until `off` or
 * its end; the hours actually used (rounded up) are taken from the
 * allowance when it ends.
 */
#ifndef QK_CORR_H
#define QK_CORR_H

#include <stdint.h>

#include "srv.h"
#include "store/store_corr.h"

#define CORR_WARN_MS (24LL * 3600 * 1000) /* deadline_soon this long before */
#define CORR_DOWNTIME_MS (3600LL * 1000)  /* longer stops extend deadlines */
#define CORR_ALIVE_EVERY_MS 60000         /* last_alive heartbeat row */
#define CORR_HEARTBEAT_MS 20000           /* empty line after this silence */
#define CORR_LOGIN_TIMEOUT_MS 60000       /* anonymous connections closed after */
#define CORR_VACATION_H 720               /* yearly allowance: 30 days */
#define CORR_HOUR_MS (3600LL * 1000)

struct game;

/* Allocate s->corr, install the test clock when cfg.test_clock, init the
 * timers (not started). Called at the end of srv_init. 0 or -1. */
int corr_new(srv *s);
/* At srv_start, before the port is reported: extend deadlines after a
 * long downtime, write last_alive, arm the deadline timer, start the
 * heartbeat timers. Commits its own transaction. 0 or -1 (logged). */
int corr_start(srv *s);
/* From srv_stop, before its flush: stage last_alive = now, close the
 * timers. Idempotent. */
void corr_stop(srv *s);
/* After uv_run returned (srv_close): free s->corr. NULL-safe. */
void corr_free(srv *s);

/* A game's wake_at changed: re-arm the deadline timer at the next flush. */
void corr_wake_changed(srv *s);
/* From srv_flush after the commit: re-arm when something changed. */
void corr_after_flush(srv *s);
/* Handle every game due at srv_now() (inside the iteration's
 * transaction, which it opens). Events and notifications are queued. */
void corr_sweep(srv *s);

/* Test clock (only with cfg.test_clock): set the time (UTC ms). */
void corr_clock_set(srv *s, int64_t ms);

/* user's vacation account at now, with a finished vacation charged and a
 * new year's allowance applied; *changed tells whether it differs from
 * the stored row (the caller writes it with store_vacation_put inside a
 * transaction). 0 or a STORE_E* code. */
int corr_vacation(srv *s, int64_t user_id, int64_t now, store_vacation *v, bool *changed);
/* Hours of v's running vacation used by now (rounded up), 0 if none. */
int64_t corr_vacation_used_h(const store_vacation *v, int64_t now);

#endif
