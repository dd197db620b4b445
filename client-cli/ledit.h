/*
 * ledit: line editing and history at the interactive prompt, through
 * Debian's libedit (its readline compatibility, <editline/readline.h>).
 *
 * Design. The play loop polls stdin and the server socket itself, so the
 * editor is driven in callback mode: ledit_feed() is called when stdin is
 * readable, libedit reads what is there, edits the line in place, and
 * calls the loop's line function once Enter (or Ctrl-D on an empty line)
 * completes it. The prompt is redrawn by ledit_set_prompt() (the clocks
 * tick in it) and around anything printed while a line is being typed
 * (ledit_hide() / ledit_show()), so messages never land inside the typed
 * text. libedit keeps one editor per process (the readline API is
 * global), so this module is a singleton: one prompt at a time.
 *
 * Only for a terminal: ledit_start() refuses unless both streams are
 * terminals, and the caller then reads plain lines (tests drive the
 * prompt through pipes). libedit puts the terminal in its edit mode while
 * the prompt is up and restores it in ledit_stop(), and on SIGINT/SIGTERM
 * (rl_catch_signals).
 */
#ifndef QC_LEDIT_H
#define QC_LEDIT_H

#include <stdbool.h>
#include <stdio.h>

/* Called with each completed line (without its newline; borrowed, valid
 * during the call), or NULL at end of input (Ctrl-D on an empty line). */
typedef void (*ledit_line_cb)(const char *line, void *ctx);

/* Whether in and out are both terminals, so ledit_start() would work. */
bool ledit_possible(FILE *in, FILE *out);

/* Start editing on in/out with prompt (copied) and history: lines given
 * to ledit_add_history() can be recalled with the arrow keys. Returns
 * true when the editor runs; false (nothing changed) when the streams are
 * not terminals or libedit cannot start. */
bool ledit_start(FILE *in, FILE *out, const char *prompt, ledit_line_cb cb, void *ctx);

/* Whether the editor runs. */
bool ledit_active(void);

/* stdin is readable: let libedit consume it (may call the line function). */
void ledit_feed(void);

/* Replace the prompt (copied) and redraw it with the typed text kept. */
void ledit_set_prompt(const char *prompt);

/* Before printing while the prompt is up: erase the prompt line. With
 * discard, the half-typed text is dropped too (the screen changed under
 * it). Pair with ledit_show(). No-op when not active. */
void ledit_hide(bool discard);

/* After printing: draw the prompt and the typed text again. */
void ledit_show(void);

/* Remember line for the arrow keys (blank lines are not kept). */
void ledit_add_history(const char *line);

/* Stop editing and give the terminal its settings back. Idempotent. */
void ledit_stop(void);

#endif
