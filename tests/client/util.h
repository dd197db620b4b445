/*
 * Helpers shared by the client tests: run the CLI in-process with memory
 * streams, render into a string, and a private config directory per test.
 */
#ifndef QC_TEST_UTIL_H
#define QC_TEST_UTIL_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "qk_rules.h"

/* Result of one in-process cli_run(). */
typedef struct crun {
    int code;
    char *out, *err; /* malloc'd, NUL-terminated */
} crun;

/* cli_run() over the NULL-terminated words (argv[0] is supplied), with
 * stdin_text (may be NULL: empty) as standard input, through a pipe so the
 * stream has a real descriptor like the terminal's. */
void crun_do(crun *r, const char *stdin_text, ...);

/* The same with a caller's input stream (closed by the caller). */
void crun_in(crun *r, FILE *in, ...);
void crun_free(crun *r);

/* Fail the test unless r exited with code; the message shows both of r's
 * streams. */
void crun_expect(const crun *r, int code);

/* Save a session for user on server (token "tok") in the config directory
 * of fresh_config(); fails the test if session_save() does. */
void save_login(const char *user, const char *server);

/* Point XDG_CONFIG_HOME at a fresh temporary directory (written into dir,
 * size >= 64) and clear QIRKAT_SERVER and NO_COLOR. */
void fresh_config(char *dir);

/* Remove a directory made by fresh_config() and everything in it. */
void drop_config(const char *dir);

/* render_board() of variant/position (NULL: the start) into a malloc'd
 * string; last: move text to mark (played from position first), or NULL. */
char *board_text(const char *variant, const char *position, const char *last, unsigned flags);

/* render_game() of a JSON text into a malloc'd string (the caller frees
 * it); fails the test on JSON that does not parse. */
char *game_text(const char *json, const char *me);

/* The same with render_game()'s flags (RENDER_*). */
char *game_flags_text(const char *json, const char *me, unsigned flags);

/* A request the fake server logged: its numeric id (-1 when absent), its
 * type ("" when absent), and whether that type is op. */
int req_id(const cJSON *req);
const char *req_type(const cJSON *req);
bool is(const cJSON *req, const char *op);

#endif
