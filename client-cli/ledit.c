/*
 * ledit: see ledit.h. libedit's readline layer calls the line function
 * from inside rl_callback_read_char() with the terminal back in its normal
 * mode, and after it returns puts the terminal in edit mode again and
 * prints the prompt itself. So while the line function runs (in_line) the
 * prompt is not ours to redraw: ledit_hide()/ledit_show() do nothing, and
 * a new prompt is only stored, to be printed by libedit on the way out.
 * Outside it, a redraw is "\r" + erase-line, then libedit's own refresh
 * (rl_forced_update_display), which prints the prompt and the typed text
 * again from the start of the line.
 */
#include "ledit.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <editline/readline.h>

#define HISTORY_MAX 200

static bool active, in_line, hidden, line_seen;
/* After a line, this libedit leaves the terminal in its normal mode with
 * no prompt until the next key; the next ledit_show() installs the
 * handler again, which restores edit mode and prints the (new) prompt. */
static bool reinstall;
static char cur_prompt[512]; /* our copy: libedit frees the one it holds */
static ledit_line_cb line_cb;
static void *line_ctx;
static FILE *out_stream;

bool ledit_possible(FILE *in, FILE *out)
{
    int ifd = in ? fileno(in) : -1, ofd = out ? fileno(out) : -1;
    const char *term = getenv("TERM");
    return ifd >= 0 && ofd >= 0 && isatty(ifd) && isatty(ofd) && !(term && !strcmp(term, "dumb"));
}

/* libedit hands over a malloc'd copy of the line (NULL at end of input). */
static void line_done_cb(char *line)
{
    line_seen = true;
    in_line = true;
    if (line_cb)
        line_cb(line, line_ctx);
    in_line = false;
    free(line);
}

bool ledit_start(FILE *in, FILE *out, const char *prompt, ledit_line_cb cb, void *ctx)
{
    if (active || !ledit_possible(in, out))
        return false;
    rl_instream = in;
    rl_outstream = out;
    rl_readline_name = "qirkat"; /* "qirkat:" lines of ~/.editrc apply */
    if (rl_initialize() != 0)
        return false;
    using_history();
    stifle_history(HISTORY_MAX);
    line_cb = cb;
    line_ctx = ctx;
    out_stream = out;
    active = true;
    hidden = false;
    snprintf(cur_prompt, sizeof cur_prompt, "%s", prompt);
    fflush(out);
    rl_callback_handler_install(cur_prompt, line_done_cb);
    return true;
}

bool ledit_active(void)
{
    return active;
}

void ledit_feed(void)
{
    if (!active)
        return;
    line_seen = false;
    rl_callback_read_char();
    if (line_seen && active) {
        reinstall = true;
        hidden = true; /* no prompt on the screen until ledit_show() */
    }
}

void ledit_set_prompt(const char *prompt)
{
    if (!active)
        return;
    snprintf(cur_prompt, sizeof cur_prompt, "%s", prompt);
    (void)rl_set_prompt(cur_prompt);
    if (in_line || hidden)
        return; /* printed by libedit after the line function, or by ledit_show() */
    fputs("\r\033[K", out_stream);
    fflush(out_stream);
    rl_forced_update_display();
}

void ledit_hide(bool discard)
{
    if (!active || in_line)
        return;
    if (discard && !reinstall)
        rl_replace_line("", 0);
    if (hidden)
        return;
    fputs("\r\033[K", out_stream);
    fflush(out_stream);
    hidden = true;
}

void ledit_show(void)
{
    if (!active || in_line || !hidden)
        return;
    hidden = false;
    fflush(out_stream);
    if (reinstall) {
        reinstall = false;
        rl_callback_handler_install(cur_prompt, line_done_cb);
        return;
    }
    rl_forced_update_display();
}

void ledit_add_history(const char *line)
{
    if (!line)
        return;
    const char *q = line;
    while (*q == ' ' || *q == '\t')
        q++;
    if (*q)
        add_history(line);
}

void ledit_stop(void)
{
    if (!active)
        return;
    active = false;
    bool prompt_shown = !hidden;
    hidden = false;
    reinstall = false;
    rl_callback_handler_remove();
    line_cb = NULL;
    line_ctx = NULL;
    /* A prompt left on the screen is ended so the shell's prompt starts on
     * its own line. */
    if (prompt_shown)
        fputc('\n', out_stream);
    fflush(out_stream);
    out_stream = NULL;
}
