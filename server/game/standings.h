/*
 * standings: a tournament's ranking with tie-breaks, and its CSV export
 * (issue 13; ../shared/PROTOCOL.md "Classes and tournaments").
 *
 * Input: the players (a pairing number each) and the rounds so far, each a
 * list of pairings with results. Output: one row per player, best first:
 * rank, points and the tie-break values in the order they are applied.
 * Pure computation: no I/O, no global state; one heap scratch table
 * (players x rounds) is allocated and freed inside standings_compute().
 *
 * Points: a win 1, a draw 1/2, a loss 0, whether played or by forfeit;
 * a pairing-allocated bye 1, a half-point bye 1/2, a zero-point bye 0; a
 * round in which a player has no entry at all (not yet joined, or
 * withdrawn and no longer paired) 0. A result set by hand by the organiser
 * is passed as the ordinary result it sets and counts as played.
 *
 * Order (FIDE Handbook C.07, Tie-Break Regulations 2023): points, then
 *   1. SB  Sonneborn-Berger (C.07 art. 9.1): for each round, the
 *          opponent's score times the points scored against them;
 *   2. BH  Buchholz (C.07 art. 8.1): the sum of the opponents' scores;
 *   3. DE  direct encounter (C.07 art. 6), among the players still tied
 *          on points, SB and BH;
 *   4. WIN number of wins (C.07 art. 7.1): rounds in which the player got
 *          a win's points, with or without playing (forfeit wins and
 *          pairing-allocated byes count; half-point byes do not).
 * Players equal on all of these share a rank (1, 2, 2, 4, ...) and are
 * listed by pairing number. Article numbers are those of C.07 as applied
 * from 1 September 2023 (kept in the April 2024 edition), as the
 * implementations named below cite them; the edition approved in 2022 for
 * 1 July 2023 numbered the unplayed-rounds article 14.
 *
 * Unplayed rounds, Swiss. This implements C.07 2023 art. 16 ("unplayed
 * rounds management") in its 2023 form: no virtual opponent of the 2009
 * rules (points before the round + the reversed result + 1/2 per later
 * round); instead
 *   - own unplayed rounds (art. 16.4, the "dummy opponent"): every round
 *     the player did not play over the board (pairing-allocated bye,
 *     half- or zero-point bye, forfeit win or loss, no entry) counts as a
 *     game against a dummy opponent whose score is the player's own final
 *     score. It adds that score to BH, and that score times the round's
 *     points to SB. Nothing is cut (plain BH, no Cut-1).
 *   - the player as someone's opponent (art. 16.3): the player's score as
 *     it is, except that rounds with no opponent (no entry, half- or
 *     zero-point bye) after the last round in which the player was
 *     available to play count as draws (1/2). "Available" is any round
 *     that is not a voluntarily unplayed round (VUR: no entry, half- or
 *     zero-point bye, forfeit loss): so a player who withdraws and is no
 *     longer paired is valued, by the opponents already met, as if every
 *     later round were drawn. A trailing forfeit loss keeps its 0.
 * Source caveat: the handbook page's article 16 text itself was not at
 * hand when this was written (only the page's opening articles); the rule
 * is taken from two implementations of the 2023 regulations that agree
 * on the rest of the above: OttoMilvang/TieBreakServer
 * (gacrux/tiebreak.py, Otto Milvang) and the "FIDE_2023" mode of the npm
 * package `tiebreak`. They differ on a trailing forfeit loss, which the
 * npm package also counts as a draw for the opponents; this module
 * follows TieBreakServer.
 *
 * Unplayed rounds, round robin. In a tournament with pre-determined
 * pairings every unplayed game is valued as played against its real
 * opponent (TieBreakServer's "predetermined" mode; the older arbiters'
 * guidance "in round robin unplayed games are considered as played" says
 * the same): a forfeit (e.g. the remaining games of a withdrawn player)
 * adds the opponent's actual final score to BH and score x points to SB,
 * and counts as an encounter for DE. No dummy opponents and no 16.3
 * adjustment. A round without an opponent (the Berger table's free round
 * for an odd count, recorded as any bye kind or left out) adds nothing to
 * BH or SB; its bye points count toward the score. (In a complete round
 * robin BH is the same for all players tied on points, total - own score,
 * so it never separates them; it is kept for one order for both systems.)
 *
 * Direct encounter (art. 6). Among a group of players tied on points, SB
 * and BH, each one's DE value is the sum of the points scored in the games
 * against the others of the group that count as encounters (played games;
 * in round robin also forfeits; all games between two players are summed,
 * as in a double round robin). If every two of them have met, they are
 * ordered by that sum. If not (Swiss), a player is placed ahead of the
 * rest only when their sum exceeds what any other of the group could
 * still reach by winning every encounter not played (art. 6.2); the first
 * player for whom that fails, and all below, stay tied. The rule is then
 * applied again to each subgroup still tied when it is smaller than the
 * group it came from (as TieBreakServer does). The reported DE value is the
 * sum within the first (largest) group; 0 for a player tied with no one.
 */
#ifndef QK_GAME_STANDINGS_H
#define QK_GAME_STANDINGS_H

#include <stddef.h>

#define STANDINGS_EINVAL (-22) /* bad input; nothing written */
#define STANDINGS_ENOMEM (-12) /* allocation failed; nothing written */
#define STANDINGS_ENOSPC (-28) /* caller's buffer too small */

typedef enum standings_system { STANDINGS_ROUND_ROBIN, STANDINGS_SWISS } standings_system;

/* One entry of a round. Games name both players; byes name white only
 * (black must be 0). */
typedef enum standings_result {
    SR_WHITE_WIN,      /* played (or set by hand): 1-0 */
    SR_BLACK_WIN,      /* 0-1 */
    SR_DRAW,           /* 1/2-1/2 */
    SR_FORFEIT_WHITE,  /* paired, not played, White wins by forfeit: +/- */
    SR_FORFEIT_BLACK,  /* -/+ */
    SR_DOUBLE_FORFEIT, /* -/-: both lose, neither played */
    SR_BYE,            /* pairing-allocated bye: 1 point */
    SR_HALF_BYE,       /* half-point bye (requested): 1/2 */
    SR_ZERO_BYE,       /* zero-point bye (requested): 0 */
    SR_PENDING,        /* paired, not finished yet: ignored entirely (no
                          points, no tie-break effect, not a VUR) */
} standings_result;

typedef struct standings_pairing {
    int white; /* pairing number; the bye's player for bye kinds */
    int black; /* pairing number; 0 for bye kinds */
    standings_result result;
} standings_pairing;

typedef struct standings_round {
    const standings_pairing *pairings; /* may be NULL when n is 0 */
    size_t n;
} standings_round;

typedef struct standings_player {
    int id;               /* pairing number: > 0, unique */
    const char *username; /* for the CSV only; borrowed, may be NULL */
} standings_player;

/* The tie-breaks in the order applied; names are C.07's acronyms. */
enum { ST_TB_SB, ST_TB_BH, ST_TB_DE, ST_TB_WIN, STANDINGS_NTIEBREAKS };
extern const char *const standings_tiebreak_names[STANDINGS_NTIEBREAKS]; /* "SB","BH","DE","WIN" */

/* One player's line. All values are multiples of 1/4 (points of 1/2),
 * exact in a double, so equal values compare equal. */
typedef struct standings_row {
    int id;   /* pairing number */
    int rank; /* 1-based; equal on points and every tie-break = equal */
    double points;
    double tiebreak[STANDINGS_NTIEBREAKS]; /* in standings_tiebreak_names order */
} standings_row;

/* Compute the standings. players[0..np-1]; rounds[0..nr-1], round 1
 * first (only its order among rounds matters: "after the last round
 * available" in the Swiss rule). Writes out[0..np-1] (caller-owned, np
 * rows), best first. Returns 0; STANDINGS_EINVAL (out untouched) for a
 * pairing number <= 0 or repeated in players, a pairing that names an
 * unknown player, the same player twice in one round, white == black, a
 * bye with black != 0, a game with black == 0, or an unknown result;
 * STANDINGS_ENOMEM (out untouched) if the scratch table cannot be
 * allocated. players/out may be NULL when np is 0, rounds when nr is 0. */
int standings_compute(standings_system sys, const standings_player *players, size_t np,
                      const standings_round *rounds, size_t nr, standings_row *out);

/* The standings as CSV (RFC 4180, CRLF line ends): a header line
 * "rank,username,points,SB,BH,DE,WIN", then one line per row in the
 * order given. Numbers are printed shortest ("2", "2.5", "6.25"). The
 * username is looked up by id in players (an unknown id or a NULL
 * username gives an empty field); a field holding a comma, quote, CR or
 * LF is quoted with quotes doubled, and one starting with = + - @ or a
 * tab is prefixed with ' and quoted so spreadsheets do not run it as a
 * formula (OWASP "CSV injection"; usernames may start with '-').
 *
 * Into the caller's buffer buf[0..cap-1]: always NUL-terminated when
 * cap > 0. Returns 0 with *len = the length written (without the NUL);
 * or STANDINGS_ENOSPC with *len = the length needed (without the NUL)
 * and buf holding a truncated prefix; cap 0 with buf NULL measures. len
 * may be NULL. */
int standings_csv(const standings_row *rows, size_t n, const standings_player *players, size_t np,
                  char *buf, size_t cap, size_t *len);

/* The same into a new heap string: *out is malloc()ed, NUL-terminated,
 * and the caller frees it with free(). Returns 0 (*len = its length if
 * len is not NULL), or STANDINGS_ENOMEM or STANDINGS_EINVAL (NULL rows
 * or players with n or np > 0), with *out = NULL. */
int standings_csv_alloc(const standings_row *rows, size_t n, const standings_player *players,
                        size_t np, char **out, size_t *len);

#endif
