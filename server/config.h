/*
 * config: qirkatd's settings from three places, one table (config.c)
 * naming each setting once: the long option `--NAME VALUE`, the line
 * `NAME = VALUE` of a configuration file, and the environment variable
 * `QK_NAME` (upper case, '-' as '_'). Precedence, highest first: the
 * command line, the environment, the file, the built-in default. So a unit
 * file's `--config /etc/qirkat/qirkatd.conf` holds the site's settings, an
 * `Environment=` line overrides one, and a flag typed by hand wins.
 *
 * The file (docs/operations.md "Configuration"): UTF-8 text, one setting a
 * line, `#` starts a comment line, blank lines ignored, spaces around the
 * key and the value trimmed; an unknown key or a bad value is an error
 * naming the file and line (the server does not start; a reload keeps the
 * settings it has). No file is read unless `--config FILE` or
 * QK_CONFIG=FILE names one.
 *
 * Reload (SIGHUP, srv.h): config_load() is run again with the same command
 * line and environment over the file as it is now; config_live_diff()
 * says which of the settings that can change while running (log level,
 * rate limits, connection caps, the pairing timeout) differ, and which
 * changed settings need a restart (they are kept until then).
 *
 * Test-only settings (the fault injections, the shortened timers) are
 * environment variables only: they have no flag and no file key.
 */
#ifndef QK_CONFIG_H
#define QK_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "srv.h"
#include "util/log.h"

/* Everything config_load() fills: the server's settings and what main()
 * uses itself. Strings point into the struct's own buffers or into argv
 * (which outlives it). */
typedef struct config {
    srv_config srv;
    log_level level;
    const char *file; /* the --config file, NULL = none */
    bool help;        /* --help: print usage, exit 0 */
    char host[256], http_host[256], db[4096], pairing_program[4096], file_buf[4096];
} config;

/* Fill *c from the defaults, the file named by --config or QK_CONFIG (if
 * any), the environment and argv[1..argc-1], in rising precedence. On an
 * error returns -1 with a message in err (size n): 2 is the exit status
 * for it (bad flags or file). Returns 0 otherwise. c must not move
 * afterwards (its strings point into it). */
int config_load(config *c, int argc, char **argv, char *err, size_t n);

/* Print the usage text (every flag, its env variable, its default). */
void config_usage(FILE *f);

/* Copy into now the settings of next that can change while the server
 * runs (the table's live rows), leaving the others as they are: after a
 * reload, now describes what runs. */
void config_take_live(config *now, const config *next);

/* Compare the settings of old and now: write into out (size n) a
 * human-readable list "key: OLD -> NEW" of the live settings that differ
 * (applied by srv_apply_live) and "key: needs a restart" for the others
 * that differ. Returns how many live settings changed. */
int config_live_diff(const config *old, const config *now, char *out, size_t n);

#endif
