/*
 * term: see term.h. The saved termios state and the previous signal
 * actions are process-wide by nature (there is one controlling terminal),
 * so they live in statics used only while a prompt is active.
 */
#include "term.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

int term_read_line(FILE *in, char *buf, size_t n)
{
    size_t len = 0;
    bool overflow = false;
    int c;
    while ((c = getc(in)) != EOF && c != '\n') {
        if (len + 1 < n)
            buf[len++] = (char)c;
        else
            overflow = true;
    }
    if (c == EOF && len == 0 && !overflow)
        return TERM_EOF;
    if (len > 0 && buf[len - 1] == '\r')
        len--;
    if (n > 0)
        buf[len] = '\0';
    return overflow ? TERM_ETOOLONG : TERM_OK;
}

static struct termios saved_tio;
static int saved_fd = -1;
static struct sigaction old_int, old_term, old_hup;

static void restore_tty(void)
{
    if (saved_fd >= 0)
        (void)tcsetattr(saved_fd, TCSAFLUSH, &saved_tio);
    saved_fd = -1;
}

/* Put the terminal back, then die of the signal as if we had not caught it
 * (tcsetattr is async-signal-safe). */
static void restore_on_signal_cb(int sig)
{
    restore_tty();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Catch SIGINT, SIGTERM and SIGHUP so they put tio back on fd first. */
static void guard_tty(int fd, const struct termios *tio)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = restore_on_signal_cb;
    sigemptyset(&sa.sa_mask);
    saved_tio = *tio;
    saved_fd = fd;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);
}

static void unguard_tty(void)
{
    restore_tty();
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
}

int term_read_password(FILE *in, FILE *prompt_out, const char *prompt, bool from_stdin, char *buf,
                       size_t n)
{
    if (from_stdin)
        return term_read_line(in, buf, n);
    int fd = fileno(in);
    struct termios tio;
    if (fd < 0 || !isatty(fd) || tcgetattr(fd, &tio) < 0)
        return TERM_ENOTTY;
    guard_tty(fd, &tio);

    tio.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
    tio.c_lflag |= ICANON;
    int rc = TERM_OK;
    if (tcsetattr(fd, TCSAFLUSH, &tio) < 0) {
        rc = TERM_EIO;
        goto restore;
    }
    fputs(prompt, prompt_out);
    fflush(prompt_out);
    rc = term_read_line(in, buf, n);
    /* The user's Enter was not echoed: end the prompt line ourselves. */
    fputc('\n', prompt_out);
    fflush(prompt_out);
restore:
    unguard_tty();
    return rc;
}

int term_read_key(FILE *in)
{
    int fd = fileno(in);
    struct termios tio;
    if (fd < 0 || !isatty(fd) || tcgetattr(fd, &tio) < 0)
        return TERM_ENOTTY;
    guard_tty(fd, &tio);
    tio.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
    tio.c_cc[VMIN] = 1;
    tio.c_cc[VTIME] = 0;
    int rc;
    /* TCSANOW, not TCSAFLUSH: keys typed ahead are commands too. */
    if (tcsetattr(fd, TCSANOW, &tio) < 0) {
        rc = TERM_EIO;
    } else {
        int c = getc(in);
        rc = c == EOF || c == 4 /* Ctrl-D */ ? TERM_EOF : c;
    }
    /* Put the terminal back as it was, without dropping input. */
    if (saved_fd >= 0)
        (void)tcsetattr(saved_fd, TCSANOW, &saved_tio);
    saved_fd = -1;
    unguard_tty();
    return rc;
}

bool term_use_color(FILE *out)
{
    const char *no = getenv("NO_COLOR");
    if (no && *no)
        return false;
    const char *term = getenv("TERM");
    if (term && strcmp(term, "dumb") == 0)
        return false;
    int fd = fileno(out);
    return fd >= 0 && isatty(fd);
}
