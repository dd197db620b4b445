/*
 * replay: step through one game record in the terminal (`qirkat replay`).
 *
 * Design. The viewer takes a qk_pdn_record (common/qk_pdn.h) and nothing
 * else, so its source does not matter: `qirkat replay FILE` reads a PDN
 * file offline (cmd_replay.c); the server's `export` op (PROTOCOL.md
 * "Records") will hand over the same records for GAME ids. Every board is
 * computed by qk_pdn_replay() from the start, never taken from stored text,
 * and drawn by render_board() with the last move's landing points
 * bracketed and its captured points marked 'x'.
 */
#ifndef QC_REPLAY_H
#define QC_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cli.h"
#include "qk_pdn.h"

/* What the header line says about the record's origin. */
typedef struct replay_src {
    const qk_pdn_record *rec; /* borrowed; must have passed qk_pdn_validate() */
    size_t index, count;      /* 0-based game index and games in the source */
} replay_src;

/* Print the record at ply `ply` (0 = the start, nmoves = the end) to
 * c->out: a header (game, players, variant, ply), the board, the last
 * move with its number and captured points, whose turn or the result.
 * Under c->json, one JSON object instead: game (1-based), ply, plies,
 * variant, position, last_move (null at ply 0), captured (points), turn,
 * result, reason (null while not over). Returns CLI_EXIT_OK, or
 * CLI_EXIT_SERVER when the record does not replay (printed). */
int replay_show(cli *c, const replay_src *src, size_t ply);

/* The interactive viewer: shows ply `start`, then reads commands from
 * c->in: n (or Enter, or space) next, p previous, f first, l last, g N go
 * to ply N, h help, q quit. On a terminal each key acts at once (a prompt,
 * no Enter; g then asks for N on a line, term_read_key()); otherwise one
 * command a line, silently (scripts and tests feed the lines; an empty
 * line is n). Redraws after each
 * move of the cursor; a step past either end, a bad ply or an unknown
 * command prints a one-line note to c->err and reads on. Ends at q or end
 * of input. Returns CLI_EXIT_OK, or replay_show()'s error. */
int replay_loop(cli *c, const replay_src *src, size_t start);

/* cmd_replay.c: the whole file at path (at most QK_PDN_MAX_TEXT + 1
 * bytes, so the reader can tell a text that is too big), NUL-terminated,
 * malloc'd (caller frees), *len its length; NULL when it cannot be read. */
char *records_read_file(const char *path, size_t *len);

/* cmd_records.c: connect, log in and fetch game's record as PDN text
 * (the `export` op): *text malloc'd (caller frees), *len its length.
 * Returns CLI_EXIT_OK or the printed failure's status. */
int records_fetch(cli *c, uint64_t game, char **text, size_t *len);

#endif
