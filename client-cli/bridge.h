/*
 * bridge: `qirkat bot --engine CMD`, an external engine program spoken
 * to over the line protocol of docs/engine-protocol.md (in the spirit of
 * lichess-bot's engine wrappers).
 *
 * Design. CMD runs under /bin/sh -c with its stdin and stdout on two
 * pipes (stderr is the bot's, so an engine's diagnostics land in the
 * bot's log). Nothing is started until the first question. For each move
 * the bot writes one request (variant, position, the legal moves, both
 * clocks, the time for this move, `go`) and reads lines until one is
 * `bestmove MOVE`; other lines are ignored (an engine may print info).
 * The answer is checked with the rules (qk_move_parse): an illegal or
 * malformed move is refused, and the caller plays the built-in engine's
 * move instead.
 *
 * Failure handling. An engine that has died (EOF on its stdout, EPIPE on
 * its stdin) is reaped and started again, and the same question asked
 * once more; an engine that does not answer within the time is killed
 * (SIGKILL) and reaped, so a late answer can never be taken for the next
 * question, and started again at the next question. Every start after the
 * first is counted in `restarts`. SIGPIPE is ignored once a bridge is
 * initialised (a dead engine is an error return, never a signal).
 */
#ifndef QK_BRIDGE_H
#define QK_BRIDGE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "qk_rules.h"

#define BRIDGE_LINE_MAX 4096 /* longest engine line kept; longer ones are refused */

enum {
    BRIDGE_OK = 0,
    BRIDGE_TIMEOUT = -1, /* no bestmove in time: the engine was killed */
    BRIDGE_DEAD = -2,    /* the engine cannot be started, or died twice */
    BRIDGE_BAD = -3,     /* it answered a move that is not legal here */
};

typedef struct bridge {
    char *cmd;   /* the shell command (owned) */
    pid_t pid;   /* running engine, or 0 */
    int to_fd;   /* its stdin (write end), -1 when not running */
    int from_fd; /* its stdout (read end, non-blocking), -1 when not running */
    char buf[BRIDGE_LINE_MAX];
    size_t len;     /* bytes of an unfinished line in buf */
    int starts;     /* engines started so far */
    int restarts;   /* starts after the first (a death or a timeout) */
    qk_move *moves; /* QK_MAX_MOVES, for the legal move list (owned) */
} bridge;

/* Set br up for cmd (copied; not started yet). 0, or -1 out of memory. */
int bridge_init(bridge *br, const char *cmd);
/* Kill (SIGTERM, then SIGKILL) and reap a running engine and free br.
 * NULL-safe, idempotent. */
void bridge_free(bridge *br);

/* Ask the engine for a move in position p of variant v (pos_text its
 * position string), with the bot's and the opponent's time left my_ms,
 * opp_ms (ms, -1 = no clock) and move_ms ms for the answer. BRIDGE_OK and
 * the move's text in text (n bytes, QK_MOVE_STRLEN is enough), a legal
 * move of p; otherwise a BRIDGE_* code, with why (whyn bytes) saying
 * what went wrong for the log. Blocks at most about 2 * move_ms (a retry
 * after a death). */
int bridge_ask(bridge *br, const qk_variant *v, const qk_pos *p, const char *pos_text,
               int64_t my_ms, int64_t opp_ms, uint32_t move_ms, char *text, size_t n, char *why,
               size_t whyn);

#endif
