/*
 * play: `qirkat play GAME`, the interactive loop.
 *
 * Design. One thread, one poll() over the server socket and stdin. The
 * client keeps the last game snapshot from the server and never edits it:
 * every change (the opponent's `move` event, our own move's answer, a
 * reconnect) replaces it with a fresh object from the server, so what is
 * drawn is always something the server said. Typed lines are commands
 * (move text, resign, board, moves, draw [accept|decline], hint, abort,
 * help, quit). The prompt line is tracked: a message arriving while
 * "your move: " waits starts on a fresh line and the prompt is asked
 * again after it; on a terminal a redraw also discards the half-typed
 * line, which the redraw has scrolled away. When the connection drops
 * the loop keeps reading stdin (so `quit` works) and reconnects with
 * exponential backoff (0.5 s doubling to 30 s), logs in again with the
 * stored token and fetches the game. A move whose answer was lost with the
 * connection is sent again at the same ply after reconnecting: the server
 * answers "duplicate": true if it had landed, so it is never played twice.
 * An idle connection is probed with `ping` so a dead peer is noticed.
 *
 * On a terminal (stdin and stdout) lines are read through libedit
 * (ledit.h: editing, history) and the prompt carries a live game's clocks,
 * "[White 4:55  Black 4:32] your move: ", redrawn each time the running
 * side's seconds change: counted down locally from the last snapshot's
 * clock and the time it arrived (render_clock), never by asking the
 * server. Elsewhere (pipes, files) lines are read plainly and the clock
 * line comes with each board. `resign` and `abort` ask y/N first; the next
 * line answers. The board is drawn from the player's side (Black at the
 * bottom for Black, White's side for watchers); PLAY_FLIP turns it.
 */
#ifndef QC_PLAY_H
#define QC_PLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "cli.h"

/* What a typed line asks for. */
typedef enum {
    PLAY_IN_EMPTY,        /* blank line: prompt again */
    PLAY_IN_QUIT,         /* quit, exit, q */
    PLAY_IN_HELP,         /* help, ? */
    PLAY_IN_RESIGN,       /* resign: asks y/N first */
    PLAY_IN_BOARD,        /* board, show: fetch and redraw */
    PLAY_IN_MOVES,        /* moves: list the legal moves */
    PLAY_IN_DRAW_OFFER,   /* draw, draw offer */
    PLAY_IN_DRAW_ACCEPT,  /* draw accept */
    PLAY_IN_DRAW_DECLINE, /* draw decline */
    PLAY_IN_HINT,         /* hint: the engine's move */
    PLAY_IN_ABORT,        /* abort: before both sides have moved; asks y/N first */
    PLAY_IN_MOVE,         /* move text for the server */
    PLAY_IN_BAD_MOVE,     /* points and dashes that are not move text ("bxd2", "b2") */
    PLAY_IN_UNKNOWN,      /* a word that is neither a command nor move text */
} play_input;

/* Whether text looks like move text (RULES.md notation, any case): a
 * point name first, then only letters, digits, '-', 'x' and blanks. The
 * server judges legality; this only keeps typos of command words from
 * being sent as moves. */
bool play_looks_like_move(const char *text);

/* Whether text, blanks removed and lowercased, is move text in form: two
 * or more point names (a letter and digits) joined by '-' or 'x'
 * ("b2-c3", "e3xc1xe1", "z9-z10": legality is the server's). */
bool play_is_move_text(const char *text);

/* The move text as sent: text without blanks, lowercased, at most n - 1
 * bytes into move (size n). */
void play_normalize_move(const char *text, char *move, size_t n);

/* Classify a typed line, ignoring surrounding blanks and the case of the
 * command words. Letters, digits and '-' only, with a digit, that are not
 * move text in form are PLAY_IN_BAD_MOVE (a try at a move: "bxd2"). For PLAY_IN_MOVE, the trimmed text, lowercased and
 * without inner blanks (point names are lowercase in RULES.md), at most
 * n - 1 bytes, is copied into move (size n). */
play_input play_classify(const char *line, char *move, size_t n);

/* play_run() options. */
enum { PLAY_FLIP = 1u << 0 }; /* --flip: the board turned from the default view */

/* Run the loop for game id on c (connected and logged in); opts: PLAY_*.
 * Returns an exit status: 0 when the user quits, stdin ends or the game is
 * over; 1 when the server refuses the game or the stored login; 3 when the
 * first fetch cannot reach the server. */
int play_run(cli *c, uint64_t id, unsigned opts);

#endif
