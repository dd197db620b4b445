/*
 * pairing: who plays whom in a tournament round (issue 13; contract
 * ../shared/PROTOCOL.md "Classes and tournaments"). Pure computation: no
 * sockets, no SQL, no global mutable state, no allocation in the built-in
 * pairers (everything lives in caller-provided structs of fixed size). The
 * one exception is the optional external-pairer path at the end of this
 * header, which writes a temporary file and runs a program.
 *
 * Players are named by their pairing number (1, 2, ...). "Score" is in half
 * points throughout (a win is 2, a draw 1). A pair is (white, black).
 *
 * ROUND ROBIN (FIDE Handbook C.05, Annex 1, Berger tables)
 *   With m players (m even) there are m-1 rounds. Let h = m/2. In round r
 *   (1-based) the player on board 1 opposite m is p = ((r-1)*h mod (m-1)) + 1;
 *   board 1 is p-m (p White) in odd rounds and m-p (m White) in even rounds;
 *   boards k = 2..h are (p+k-1) - (p-k+1) with numbers taken mod m-1 into
 *   1..m-1, the first named White. This reproduces the published tables
 *   (6 players: R1 1-6 2-5 3-4, R2 6-4 5-3 1-2, ...; tests/server/
 *   test_pairing.c holds the published tables for 4..12 as data).
 *   Odd n: the table for m = n+1 is used; number n+1 is a dummy and its
 *   opponent has the bye (C.05 Annex 1: "the highest number counts as a bye").
 *   Double round robin: the second cycle repeats the table with colours
 *   reversed. Rule implemented at the seam (C.05 Annex 1's recommendation):
 *   in the FIRST cycle the last two rounds are played in swapped order
 *   (table round m-1 is played as round m-2 and table round m-2 as round
 *   m-1); the second cycle is table rounds 1..m-1 in order, colours
 *   reversed. Without the swap player 1 gets three Blacks across the seam.
 *   Forbidden pairs are IGNORED by the round robin: Berger tables are fixed
 *   and every pair meets; a caller that must honour them refuses to start a
 *   round robin containing a forbidden pair.
 *
 * SWISS (FIDE Handbook C.04.1 "Basic rules for Swiss systems", a..i)
 *   Hard rules (never broken, in no round, including the last):
 *     b  no two players meet twice (opponents listed in met[]), nor a
 *        forbidden pair;
 *     c,d  an odd field gives one pairing-allocated bye, never to a player
 *        who had a bye or a forfeit win before;
 *     f  after the round every colour difference (#White - #Black over
 *        played games) lies in -2..+2;
 *     g  nobody gets the same colour three times in a row (rounds without
 *        a colour are skipped when looking at "in a row").
 *   Ranking order: score desc, rating desc, pairing number asc ("rank").
 *   Algorithm:
 *     0. Build the compatibility graph: an edge a-b when they have not met,
 *        are not forbidden, and at least one colour assignment keeps both
 *        within f and g. Every hard rule is a property of single pairs, so a
 *        valid round exists exactly when the graph (minus the bye player)
 *        has a perfect matching. That test ("the oracle") is Edmonds'
 *        blossom algorithm, O(n^3).
 *     1. Bye (odd field): the lowest-ranked eligible player whose removal
 *        leaves a perfect matching. None: PAIRING_ERR_NO_PAIRING.
 *        Even field without a perfect matching: PAIRING_ERR_NO_PAIRING.
 *     2. Score groups top down. The bracket is the players moved down from
 *        above (floaters, first) plus the next score group. For a target t
 *        of pairs inside the bracket, from the size of the bracket's own
 *        maximum matching (at most floor(size/2)) down to 0, run a
 *        depth-first search:
 *          - the pivot is the highest-ranked undecided bracket member;
 *          - a floater pivot tries the group's residents in rank order, then
 *            the other floaters;
 *          - a resident pivot splits the undecided residents (itself
 *            included) into a top half S1 and a bottom half S2 and tries S2
 *            in order (first choice: top half vs bottom half; the next ones
 *            are the transpositions of S2), then S1 from its bottom up
 *            (exchanges);
 *          - last option: the pivot stays unpaired and floats down;
 *          - a pair is taken only if the oracle says every still unpaired
 *            player can still be paired (so a choice never leads into a dead
 *            end in a later group);
 *          - once t pairs are made the rest of the bracket floats down.
 *        A search for one t is capped at PAIRING_SWISS_BUDGET oracle calls;
 *        past that it counts as failed and t-1 is tried. t = 0 (everybody
 *        floats) always succeeds. The last bracket has no cap and needs no
 *        backtracking: the oracle guarantees the pivot always has a partner
 *        that keeps a perfect matching. Hence: a valid pairing is found
 *        whenever one exists, and the search is polynomial (the caps).
 *     2b. Lookahead (only when rounds_left > 0; not a FIDE rule, ranked
 *        after the hard rules and before the score-group preferences): the
 *        brackets form one search, so the pairings come out in the order of
 *        preference of step 2. The first one is kept; if the round after it
 *        would have no valid pairing (same field, colours as step 3 gives
 *        them), the search goes on to the next pairing in that order, up to
 *        PAIRING_LOOKAHEAD_BUDGET oracle calls. If none keeps the next round
 *        pairable, the first one stands. This keeps small fields (6-8
 *        players, many rounds) from painting themselves into a corner, e.g.
 *        6 players whose three rounds leave two triangles.
 *     3. Colours per pair (C.04.1 h): preference of a player with colour
 *        difference cd and last two colours: |cd| = 2 or the last two equal
 *        is absolute (the other colour); cd = +-1 is strong (equalise);
 *        cd = 0 with games is mild (alternate from the last); no games: none.
 *        If only one assignment is allowed it is used; different preferred
 *        colours are both granted; the same preferred colour goes to the
 *        stronger preference, equal strengths to the higher rank; a player
 *        without preference takes what the other leaves; neither has one:
 *        the higher-ranked player is White on odd boards, Black on even.
 *     4. Boards ordered by the rank of the pair's higher-ranked player.
 *   Left out of FIDE's full systems (C.04.3 Dutch): the exact quality
 *   criteria order (colour preferences do not steer who meets whom), float
 *   history, the last-round colour exception (f, g apply in every round).
 */
#ifndef QK_PAIRING_H
#define QK_PAIRING_H

#include <stdbool.h>
#include <stddef.h>

#define PAIRING_MAX_PLAYERS 128
#define PAIRING_MAX_ROUNDS 64
/* Oracle calls one bracket search may spend for one target before it gives
 * up on that target (see step 2 above). */
#define PAIRING_SWISS_BUDGET 4000
/* Oracle calls the lookahead (step 2b) may spend after the first pairing. */
#define PAIRING_LOOKAHEAD_BUDGET 2000

/* Error table: enum value, name. Functions return 0 or one of these. */
#define PAIRING_ERR_MAP(X)                                                                         \
    X(OK, 0, "ok")                                                                                 \
    X(INVAL, -1, "invalid argument")                                                               \
    X(NO_PAIRING, -2, "no valid pairing exists")                                                   \
    X(RANGE, -3, "too many players or rounds")                                                     \
    X(NOSPACE, -4, "output buffer too small")                                                      \
    X(PARSE, -5, "malformed pairer output")                                                        \
    X(EXEC, -6, "external pairer failed")                                                          \
    X(IO, -7, "temporary file error")

typedef enum {
#define PAIRING_ENUM(name, val, text) PAIRING_ERR_##name = val,
    PAIRING_ERR_MAP(PAIRING_ENUM)
#undef PAIRING_ENUM
} pairing_err;

/* Static English text for an error code ("unknown error" otherwise). */
const char *pairing_strerror(int err);

typedef struct pairing_pair {
    int white; /* pairing number */
    int black; /* pairing number */
} pairing_pair;

typedef struct pairing_result {
    int n_pairs;
    pairing_pair pairs[PAIRING_MAX_PLAYERS / 2]; /* board order */
    int bye;                                     /* pairing number, 0 = nobody */
} pairing_result;

/* ---- Round robin (C.05 Annex 1) ---------------------------------------- */

/* Rounds of a round robin of n players (2..PAIRING_MAX_PLAYERS): n-1 for even
 * n, n for odd n, doubled when dbl. 0 if n is out of range. */
int pairing_rr_rounds(int n, bool dbl);

/* Round `round` (1..pairing_rr_rounds(n, dbl)) of the Berger schedule for n
 * players numbered 1..n, into *out (pairs in board order of the published
 * table; for odd n the dummy's opponent is out->bye and its board is left
 * out). Double: the seam rule in the header comment. Returns 0, or
 * PAIRING_ERR_INVAL (n or round out of range, out NULL). */
int pairing_rr_round(int n, bool dbl, int round, pairing_result *out);

/* ---- Swiss (C.04.1) ---------------------------------------------------- */

typedef struct pairing_player {
    int number;                       /* pairing number >= 1, unique */
    int rating;                       /* >= 0; 0 = unrated */
    int score2;                       /* score in half points, >= 0 */
    int rounds;                       /* entries used in colours[] */
    char colours[PAIRING_MAX_ROUNDS]; /* per past round: 'W', 'B' or '-' (none) */
    int n_met;                        /* entries used in met[] */
    int met[PAIRING_MAX_ROUNDS];      /* pairing numbers already met */
    bool had_bye;                     /* received a pairing-allocated bye */
    bool had_forfeit_win;             /* scored a win by forfeit */
    bool withdrawn;                   /* not paired any more */
} pairing_player;

typedef struct pairing_forbid {
    int a, b; /* pairing numbers never to be paired together */
} pairing_forbid;

/* Pair the next Swiss round of players[0..n-1] (any order; withdrawn ones
 * are skipped) per the algorithm in the header comment. forbidden may be
 * NULL when n_forbidden is 0. rounds_left: rounds still to be paired after
 * this one (0 in the last round: no lookahead). On 0 *out holds the pairs
 * and the bye. Errors:
 * PAIRING_ERR_INVAL (NULL pointers, n < 0, rounds_left < 0, a number < 1 or repeated, a
 * colour other than W/B/-, counts out of range), PAIRING_ERR_RANGE (more than
 * PAIRING_MAX_PLAYERS players or PAIRING_MAX_ROUNDS rounds),
 * PAIRING_ERR_NO_PAIRING (no round satisfies C.04.1 b, c, d, f, g: the
 * tournament cannot go on). *out is unspecified on error. Deterministic:
 * the same input gives the same pairing. Cost (measured, -O2): about 2 ms
 * per round for 64 or 128 players in the first 12 rounds; late rounds of
 * very long events, when few valid pairings are left, take up to about
 * 0.3 s (64 players, round 60) or 3 s (128 players, round 64). Stack: about
 * 100 KB plus about 2 KB per search level (a few hundred KB at 128
 * players); run it on a thread with a normal-sized stack. */
int pairing_swiss(const pairing_player *players, int n, const pairing_forbid *forbidden,
                  int n_forbidden, int rounds_left, pairing_result *out);

/* Check r, a pairing of the next Swiss round made elsewhere (the external
 * pairer), against players[0..n-1] and forbidden[0..n_forbidden-1] as
 * pairing_swiss() takes them: every player not withdrawn is in exactly
 * one pair or is the bye, nobody else appears (a withdrawn player, an
 * unknown number); no pair has met before (met[], forfeits included) or
 * is forbidden; a bye only in an odd field, never to a player who had a
 * bye or a forfeit win (C.04.1 b, c, d). Colours (f, g) are not checked:
 * a Dutch pairer applies C.04.3's colour rules, which make exceptions in
 * the last round. Pure; why (why_len bytes, may be NULL) gets an English
 * sentence naming the first broken rule ("" when none). 0, or
 * PAIRING_ERR_INVAL (bad arguments or a broken rule). */
int pairing_check(const pairing_player *players, int n, const pairing_forbid *forbidden,
                  int n_forbidden, const pairing_result *r, char *why, size_t why_len);

/* ---- TRF-16 and the optional external pairer ---------------------------
 * FIDE TRF 2016 as bbpPairings reads it (`bbpPairings --dutch FILE -p OUT`).
 * Player line "001", columns (1-based): 1-3 "001", 5-8 pairing number,
 * 15-47 name, 49-52 rating, 81-84 points ("%4.1f"), 86-89 rank; round r
 * occupies columns 92+10(r-1) .. 99+10(r-1): opponent (4 digits, 0000 =
 * none), colour (w/b/-), result. Then "XXR n" (total rounds), "XXC
 * white1" (the top seed had or has White in round 1: bbpPairings needs the
 * initial colour; JaVaFo/bbpPairings TRF(x) extension) and one "XXP a b"
 * line per forbidden pair (bbpPairings' forbidden-pairs extension).
 * bbpPairings exit status (its README): 0 ok, 1 no valid pairing, 2
 * unexpected error, 3 invalid request, 4 size limit, 5 file access.
 */

typedef struct pairing_trf_game {
    int opponent; /* pairing number, 0 = none */
    char colour;  /* 'w', 'b' or '-' */
    char result;  /* TRF code: '1' '=' '0' played; '+' '-' forfeit win/loss;
                     'W' 'D' 'L' unrated played; 'U' pairing-allocated bye;
                     'F' 'H' 'Z' full/half/zero-point bye */
} pairing_trf_game;

typedef struct pairing_trf_player {
    int number;       /* pairing number 1..9999 */
    const char *name; /* up to 33 bytes written; NULL = "" */
    int rating;       /* 0..9999, 0 = blank */
    int rank;         /* current rank, 0 = blank */
    bool withdrawn;   /* written with "0000 - Z" for the round to be paired */
    int rounds;       /* entries used in games[] */
    pairing_trf_game games[PAIRING_MAX_ROUNDS];
} pairing_trf_player;

typedef struct pairing_trf {
    const char *name;                  /* "012" tournament name line; NULL = none */
    int total_rounds;                  /* XXR */
    const pairing_trf_player *players; /* n entries */
    int n;
    const pairing_forbid *forbidden; /* n_forbidden entries (may be NULL if 0) */
    int n_forbidden;
} pairing_trf;

/* Points of one TRF result code in half points (1/W/+/U/F: 2, =/D/H: 1,
 * others 0). */
int pairing_trf_points2(char result);

/* Write t as TRF-16 text into buf (size bytes, NUL-terminated); *len (may be
 * NULL) gets the length without the NUL. Points are summed from the results
 * (bbpPairings checks they match). Lines end in "\n". Errors:
 * PAIRING_ERR_INVAL (bad code, number or colour; a played game without w/b),
 * PAIRING_ERR_RANGE (n or rounds over the limits), PAIRING_ERR_NOSPACE. */
int pairing_trf_write(const pairing_trf *t, char *buf, size_t size, size_t *len);

/* Parse bbpPairings' output: first line the number of pairs P, then P lines
 * "white black" (pairing numbers; "N 0" is a bye for N). At most one bye.
 * Fills *out (board order as given). PAIRING_ERR_PARSE on any deviation
 * (missing or extra lines, a number twice, more than one bye),
 * PAIRING_ERR_RANGE for too many pairs. */
int pairing_parse_output(const char *text, pairing_result *out);

/* OPTIONAL EXTERNAL PATH. Write t to a temporary TRF file in tmpdir (NULL =
 * $TMPDIR or /tmp), run `program --dutch IN -p OUT` (fork/execv, program is a
 * path, no shell, stdin/stdout/stderr to /dev/null), wait at most timeout_ms
 * (killed after), parse OUT with pairing_parse_output, remove both files.
 * Blocks the caller: run it off the event loop. Errors: as
 * pairing_trf_write, PAIRING_ERR_IO (temporary files), PAIRING_ERR_EXEC
 * (cannot start, timed out, exit status not 0), PAIRING_ERR_PARSE. An exit
 * status of 1 from bbpPairings means "no valid pairing": reported as
 * PAIRING_ERR_NO_PAIRING. The child is reaped with waitpid() on its pid:
 * SIGCHLD must not be set to SIG_IGN in the process. */
int pairing_external(const char *program, const pairing_trf *t, const char *tmpdir, int timeout_ms,
                     pairing_result *out);

#endif
