/*
 * log: one line per event on stderr, "LEVEL message", filtered by a level
 * chosen once at start-up (--log-level). The level is the only global of
 * the server; it is written before the loop starts and only read after.
 */
#ifndef QK_LOG_H
#define QK_LOG_H

typedef enum { LOG_ERROR = 0, LOG_WARN, LOG_INFO, LOG_DEBUG } log_level;

/* Parse "error", "warn", "info" or "debug". Returns 0 and sets *out, or -1
 * for anything else. */
int log_level_parse(const char *s, log_level *out);

/* Set the threshold (messages above it are dropped). Default LOG_INFO. */
void log_set_level(log_level l);

/* True when messages of level l are printed: guards costly formatting. */
int log_enabled(log_level l);

/* printf-style; the newline is added. Never fails visibly. */
void log_msg(log_level l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
