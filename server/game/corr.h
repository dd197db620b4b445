/*
 * corr: the clock-driven side of correspondence play in qirkatd.
 *
 * Design. Time is svc_now() (svc.h); with a test clock it is a number
 * that only the `debug_clock` op moves (tests drive deadlines through it).
 * Every active game with a deadline has games.wake_at (games_put_x): the
 * deadline itself, or 24 h before a correspondence deadline whose
 * `deadline_soon` notification is not sent yet. ONE uv_timer is armed at
 * the earliest wake_at (an index gives it, store_wake_next) and re-armed
 * after each commit that changed one (svc.wake_dirty, then the server's
 * flush calls corr_after_flush). When it fires, corr_sweep() looks at every due
 * game with corr_check_time(): a deadline reached ends the game `timeout`
 * (the other side wins) unless the side to move is on vacation and the
 * game allows it, in which case the deadline moves back (games_extend,
 * kind "vacation"): to the vacation's end plus the time that was left when
 * it began (at most one move's days). A live game past its first-move
 * window (games.h "Clocks") is aborted instead. A warning due sends
 * `deadline_soon` once per deadline.
 *
 * The timer is only the prompt: every game-changing op (move, resign,
 * draw, abort) calls corr_check_time() first, so a request that arrives
 * after the deadline but before the timer (a late loop) sees the same end
 * as the timer would have made. Live games are judged by the monotonic
 * clock (games_due), the timer is armed by the stored UTC deadline; a
 * sweep that finds a live game due by the wall clock only re-anchors its
 * deadline. With a test clock the timer is armed only for what is due
 * already: the clock moves only through debug_clock, which sweeps.
 *
 * Restarts. The row server_state.last_alive is written at start, every
 * minute and at a clean stop. At start, if the server was down for more
 * than an hour (now - last_alive), every running correspondence deadline
 * is extended by the whole downtime and the extension logged per game
 * (store_extend_downtime), before the port is reported.
 *
 * The connection heartbeat and login timeout are the api layer's
 * (api/heartbeat.h): they are about connections, not games.
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

#include "game/svc.h"
#include "store/store_corr.h"

#define CORR_DOWNTIME_MS (3600LL * 1000)  /* longer stops extend deadlines */
#define CORR_ALIVE_EVERY_MS 60000         /* last_alive heartbeat row */
#define CORR_VACATION_H 720               /* yearly allowance: 30 days */
#define CORR_HOUR_MS (3600LL * 1000)

struct game;

/* Allocate s->corr and init its timers on s->loop (not started). 0 or
 * -1. */
int corr_new(gsvc *s);
/* At the server's start, before the port is reported: extend deadlines
 * after a long downtime, write last_alive, arm the deadline timer, start
 * the last_alive timer. Commits its own transaction. 0 or -1 (logged). */
int corr_start(gsvc *s);
/* From the server's stop, before its flush: stage last_alive = now, close
 * the timers. Idempotent. */
void corr_stop(gsvc *s);
/* After uv_run returned: free s->corr. NULL-safe. */
void corr_free(gsvc *s);

/* From the server's flush after the commit: re-arm when something
 * changed (s->wake_dirty). */
void corr_after_flush(gsvc *s);
/* The flag, in one place: if g (active) is out of time now (games_due),
 * open the batch and handle it as the deadline timer does: end it
 * `timeout` or abort it (first-move window), with its game_end event and
 * notifications queued (notify_game_over), or move a vacationer's
 * correspondence deadline. Returns 0 when not due (nothing changed), 1
 * when the game ended (the caller answers game_over), 2 when the deadline
 * moved (vacation: the game goes on), 3 when another node had moved or
 * ended the game first (issue 22: nothing changed here, g is gone and
 * must not be read; the caller answers as for a stale ply), -1 on a store
 * error (batch poisoned: answer internal). */
int corr_check_time(gsvc *s, struct game *g);

/* Handle every game due at svc_now() (inside the iteration's
 * transaction, which it opens). Events and notifications are queued. */
void corr_sweep(gsvc *s);

/* user's vacation account at now, with a finished vacation charged and a
 * new year's allowance applied; *changed tells whether it differs from
 * the stored row (the caller writes it with store_vacation_put inside a
 * transaction). 0 or a STORE_E* code. */
int corr_vacation(gsvc *s, int64_t user_id, int64_t now, store_vacation *v, bool *changed);
/* Hours of v's running vacation used by now (rounded up), 0 if none. */
int64_t corr_vacation_used_h(const store_vacation *v, int64_t now);

#endif
