/*
 * term: what the client needs from the terminal, and nothing more:
 * reading a password without echo, reading one line, and deciding whether
 * to use colour.
 *
 * Design. Echo is switched off with termios only while the password is
 * typed, and a SIGINT/SIGTERM/SIGHUP arriving meanwhile restores it before
 * the signal takes its default action, so an interrupted prompt never leaves
 * the user's terminal silent. Colour follows the no-color.org convention:
 * only on a terminal, never when NO_COLOR is set to anything non-empty or
 * TERM is "dumb".
 */
#ifndef QC_TERM_H
#define QC_TERM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum {
    TERM_OK = 0,
    TERM_ENOTTY = -1,   /* no terminal to prompt on and no --password-stdin */
    TERM_EOF = -2,      /* end of input before a line */
    TERM_ETOOLONG = -3, /* the line does not fit the buffer */
    TERM_EIO = -4,
};

/* Read one line from in into buf (size n) without its "\n" or "\r\n".
 * Returns TERM_OK, TERM_EOF (nothing read) or TERM_ETOOLONG (the rest of
 * the line is consumed and discarded). */
int term_read_line(FILE *in, char *buf, size_t n);

/* Read a password into buf (size n). With from_stdin, one line from in.
 * Otherwise in must be a terminal: prompt is written to prompt_out and the
 * line is read with echo off. Returns TERM_OK, TERM_ENOTTY (in is not a
 * terminal and from_stdin is false), TERM_EOF, TERM_ETOOLONG or TERM_EIO.
 * The caller should explicit_bzero(buf) after use. */
int term_read_password(FILE *in, FILE *prompt_out, const char *prompt, bool from_stdin, char *buf,
                       size_t n);

/* Read one key from the terminal in, with no Enter and no echo (the
 * terminal is switched to non-canonical mode for the read only and put
 * back as it was, also when SIGINT/SIGTERM/SIGHUP arrive meanwhile; typed-
 * ahead keys are kept). Returns the byte (0..255), TERM_EOF (end of input
 * or Ctrl-D), TERM_ENOTTY (in is not a terminal) or TERM_EIO. */
int term_read_key(FILE *in);

/* Whether to draw with ANSI colour on out (see the design note). */
bool term_use_color(FILE *out);

#endif
