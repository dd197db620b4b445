/*
 * args: parse one subcommand's arguments against a declarative option list.
 *
 * Design. Each row of the subcommand table (cmd.h) names its options with
 * their kinds; this module is the only code that walks argv, so every
 * subcommand gets the same syntax for free: "--name VALUE", "--name=VALUE",
 * flags without values, "--" ending the options, options and positionals in
 * any order, the last repetition of an option winning. Values are checked
 * by kind here (OPT_UINT: a whole number 0..2^53-1, like PROTOCOL.md ids),
 * so handlers read checked input. Nothing is copied: values point into
 * argv.
 */
#ifndef QC_ARGS_H
#define QC_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    OPT_END = 0, /* terminates an option list */
    OPT_FLAG,    /* --name */
    OPT_STR,     /* --name VALUE */
    OPT_UINT,    /* --name N, 0 <= N <= 2^53-1 */
} opt_kind;

typedef struct opt_spec {
    opt_kind kind;
    const char *name;    /* without the leading "--" */
    const char *metavar; /* for usage text: "N", "USER"; NULL for flags */
    const char *help;    /* one line, for `qirkat CMD --help` */
} opt_spec;

#define ARGS_MAX_POS 32
#define ARGS_MAX_OPTS 24

typedef struct cmd_args {
    int npos;
    const char *pos[ARGS_MAX_POS];
    int nopts;
    const opt_spec *spec[ARGS_MAX_OPTS];
    const char *val[ARGS_MAX_OPTS]; /* NULL: absent; "" for a flag given */
} cmd_args;

/* Parse argv[0..argc) with the options of the OPT_END-terminated lists
 * lists[0..nlists) (NULL lists are skipped). Returns 0 and fills *out, or
 * -1 with a one-line English reason in err (size errn): unknown option,
 * missing or malformed value, a value given to a flag, too many
 * positionals. Arity is the caller's check. */
int args_parse(const opt_spec *const *lists, int nlists, int argc, char **argv, cmd_args *out,
               char *err, size_t errn);

/* The value of option name: NULL when absent, "" for a flag given. */
const char *args_get(const cmd_args *a, const char *name);

/* Whether option name was given. */
bool args_has(const cmd_args *a, const char *name);

/* An OPT_UINT option's value, or dflt when absent. */
uint64_t args_uint(const cmd_args *a, const char *name, uint64_t dflt);

/* Parse s as a whole number 0..2^53-1 (digits only, no sign or blanks).
 * Returns 0 and sets *out, or -1. */
int args_parse_uint(const char *s, uint64_t *out);

#endif
