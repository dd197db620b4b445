/*
 * log: see log.h. Each message is formatted into one buffer and written
 * with a single fprintf so lines from the loop thread never interleave.
 */
#include "util/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static log_level threshold = LOG_INFO;
static const char *const names[] = {"error", "warn", "info", "debug"};

int log_level_parse(const char *s, log_level *out)
{
    for (int i = 0; i <= LOG_DEBUG; i++)
        if (s && strcmp(s, names[i]) == 0) {
            *out = (log_level)i;
            return 0;
        }
    return -1;
}

void log_set_level(log_level l)
{
    threshold = l;
}

int log_enabled(log_level l)
{
    return l <= threshold;
}

void log_msg(log_level l, const char *fmt, ...)
{
    if (l > threshold)
        return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fprintf(stderr, "qirkatd %s: %s\n", names[l], buf);
}
