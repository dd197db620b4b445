/*
 * play: recorded games played through the real qirkat CLI, and the checks
 * that the server ended them as recorded.
 *
 * Two users, "alice" (the challenger, always White) and "bob", each with an
 * XDG_CONFIG_HOME of their own under the server's temp dir. Every step is
 * one `qirkat --json ...` process; its exit status and printed response are
 * checked as the design contract (docs/design.md, "qirkat command line")
 * says.
 */
#ifndef QK_IT_PLAY_H
#define QK_IT_PLAY_H

#include <stdbool.h>

#include "harness.h"

typedef struct hplayers {
    hsrv *srv;
    const char *white, *black;       /* usernames: white is the challenger */
    char wdir[H_PATH], bdir[H_PATH]; /* their config dirs */
    char wtoken[128], btoken[128];   /* tokens from the register responses */
} hplayers;

#define HPLAY_PASSWORD "correct horse battery staple"

/* Register both users with `qirkat register NAME --password-stdin`. */
void hplay_setup(hplayers *p, hsrv *s, const char *white, const char *black);

/* `qirkat login NAME --password-stdin` for both users (the client keeps a
 * session for one server address only, so a server on a new port needs a
 * new login). */
void hplay_relogin(hplayers *p);

/* White challenges black (--variant, --color white, --position when the
 * recorded start is not the variant's standard start), black accepts.
 * Checks the new game object (players, variant, start, ply 0, active) and
 * returns its id. */
long long hplay_open(hplayers *p, const hgame *g);

/* Play recorded moves [from, to) with `qirkat --json move GAME MOVE`
 * (with --ply N when with_ply), by whichever user is to move. Checks each
 * response: exit 0, game ply = N + 1, last move = MOVE, status active until
 * the last recorded move and finished after it. */
void hplay_moves(hplayers *p, const hgame *g, long long game, int from, int to, bool with_ply);

/* `qirkat --json show GAME` (as white): the game is as recorded after
 * `plies` moves; when plies == g->nmoves also finished with the recorded
 * result, reason and final position. */
void hplay_check_show(hplayers *p, const hgame *g, long long game, int plies);

/* Check a game object against the recording: moves equal the first `plies`
 * recorded ones, ply = plies, start; when complete: status finished, result,
 * reason, position = final. */
void hplay_check_game(const cJSON *game, const hgame *g, int plies, const char *what);

#endif
