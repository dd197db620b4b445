/*
 * The terminal helpers (client-cli/term.h) on a real pseudo-terminal: the
 * password is read with echo off and the terminal is put back afterwards;
 * colour only on a terminal and never with NO_COLOR or TERM=dumb.
 */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "term.h"

static int master = -1;
static FILE *slave;

static void setup(void)
{
    master = posix_openpt(O_RDWR | O_NOCTTY);
    cr_assert_geq(master, 0);
    cr_assert_eq(grantpt(master), 0);
    cr_assert_eq(unlockpt(master), 0);
    /* O_NOCTTY: a test worker must not adopt it as its controlling
     * terminal, or closing the master would hang it up. */
    int fd = open(ptsname(master), O_RDWR | O_NOCTTY);
    cr_assert_geq(fd, 0);
    slave = fdopen(fd, "r+");
    cr_assert_not_null(slave);
    setvbuf(slave, NULL, _IONBF, 0);
    unsetenv("NO_COLOR");
    setenv("TERM", "xterm", 1);
}

static void teardown(void)
{
    if (slave)
        fclose(slave);
    if (master >= 0)
        close(master);
    slave = NULL;
    master = -1;
}

TestSuite(term, .init = setup, .fini = teardown);

/* Type on the master once the prompt has appeared (TCSAFLUSH drops what
 * was typed before echo went off, as it should). */
static void *typist(void *arg)
{
    (void)arg;
    char buf[64];
    struct pollfd p = {.fd = master, .events = POLLIN};
    if (poll(&p, 1, 5000) == 1)
        (void)read(master, buf, sizeof buf); /* "Password: " */
    (void)write(master, "s3cret\n", 7);
    return NULL;
}

Test(term, password_without_echo)
{
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, typist, NULL), 0);
    char pw[64];
    cr_assert_eq(term_read_password(slave, slave, "Password: ", false, pw, sizeof pw), TERM_OK);
    pthread_join(th, NULL);
    cr_assert_str_eq(pw, "s3cret");

    /* What the terminal showed after the prompt: only our newline. */
    char seen[256] = {0};
    size_t n = 0;
    struct pollfd p = {.fd = master, .events = POLLIN};
    while (n < sizeof seen - 1 && poll(&p, 1, 200) == 1) {
        ssize_t r = read(master, seen + n, sizeof seen - 1 - n);
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    cr_assert_null(strstr(seen, "s3cret"), "the password was echoed: %s", seen);

    struct termios tio;
    cr_assert_eq(tcgetattr(fileno(slave), &tio), 0);
    cr_assert(tio.c_lflag & ECHO, "echo not restored");
}

Test(term, password_needs_a_terminal_or_stdin_flag)
{
    FILE *f = fmemopen("line one\r\nline two\n", 19, "r");
    char pw[64];
    cr_assert_eq(term_read_password(f, stderr, "Password: ", false, pw, sizeof pw), TERM_ENOTTY);
    cr_assert_eq(term_read_password(f, stderr, "Password: ", true, pw, sizeof pw), TERM_OK);
    cr_assert_str_eq(pw, "line one");
    char small[4];
    cr_assert_eq(term_read_line(f, small, sizeof small), TERM_ETOOLONG);
    cr_assert_eq(term_read_line(f, pw, sizeof pw), TERM_EOF);
    fclose(f);
}

Test(term, colour_only_on_a_terminal)
{
    cr_assert(term_use_color(slave));
    FILE *mem = fmemopen(NULL, 16, "w");
    cr_assert(!term_use_color(mem));
    fclose(mem);
    setenv("NO_COLOR", "1", 1);
    cr_assert(!term_use_color(slave));
    setenv("NO_COLOR", "", 1); /* no-color.org: only a non-empty value counts */
    cr_assert(term_use_color(slave));
    setenv("TERM", "dumb", 1);
    cr_assert(!term_use_color(slave));
}
