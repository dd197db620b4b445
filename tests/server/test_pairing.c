/*
 * The pairing module (server/game/pairing.h) on its own, no server: the
 * Berger tables against the published FIDE tables (C.05 Annex 1) written
 * out here as data; double round robin seams; Swiss tournaments of 6..30
 * players with seeded random results, every round checked against the
 * C.04.1 hard rules by code independent of the pairer (its own colour
 * bookkeeping, an exhaustive search for fields up to 20 to confirm "no valid
 * pairing" and that the top score group was paired as fully as possible);
 * the TRF-16 writer against exact text; bbpPairings' output format; the
 * external-pairer path with stand-in shell scripts.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "game/pairing.h"

TestSuite(pairing, .timeout = 120);

/* ---- Round robin ------------------------------------------------------- */

/* Published Berger tables (FIDE Handbook C.05 Annex 1), "w-b" per board,
 * rounds separated by '|'. */
static const char *const berger[13] = {
    [4] = "1-4 2-3|4-3 1-2|2-4 3-1",
    [6] = "1-6 2-5 3-4|6-4 5-3 1-2|2-6 3-1 4-5|6-5 1-4 2-3|3-6 4-2 5-1",
    [8] = "1-8 2-7 3-6 4-5|8-5 6-4 7-3 1-2|2-8 3-1 4-7 5-6|8-6 7-5 1-4 2-3|"
          "3-8 4-2 5-1 6-7|8-7 1-6 2-5 3-4|4-8 5-3 6-2 7-1",
    [10] = "1-10 2-9 3-8 4-7 5-6|10-6 7-5 8-4 9-3 1-2|2-10 3-1 4-9 5-8 6-7|"
           "10-7 8-6 9-5 1-4 2-3|3-10 4-2 5-1 6-9 7-8|10-8 9-7 1-6 2-5 3-4|"
           "4-10 5-3 6-2 7-1 8-9|10-9 1-8 2-7 3-6 4-5|5-10 6-4 7-3 8-2 9-1",
    [12] = "1-12 2-11 3-10 4-9 5-8 6-7|12-7 8-6 9-5 10-4 11-3 1-2|"
           "2-12 3-1 4-11 5-10 6-9 7-8|12-8 9-7 10-6 11-5 1-4 2-3|"
           "3-12 4-2 5-1 6-11 7-10 8-9|12-9 10-8 11-7 1-6 2-5 3-4|"
           "4-12 5-3 6-2 7-1 8-11 9-10|12-10 11-9 1-8 2-7 3-6 4-5|"
           "5-12 6-4 7-3 8-2 9-1 10-11|12-11 1-10 2-9 3-8 4-7 5-6|"
           "6-12 7-5 8-4 9-3 10-2 11-1",
};

/* Table round `round` of m players into w[], b[] (board order). */
static int table_round(int m, int round, int *w, int *b)
{
    const char *s = berger[m];
    for (int r = 1; r < round; r++)
        s = strchr(s, '|') + 1;
    int k = 0;
    while (*s && *s != '|') {
        char *end;
        w[k] = (int)strtol(s, &end, 10);
        b[k] = (int)strtol(end + 1, &end, 10);
        k++;
        s = end;
        while (*s == ' ')
            s++;
    }
    return k;
}

Test(pairing, berger_six_example_from_the_issue)
{
    pairing_result r;
    cr_assert_eq(pairing_rr_round(6, false, 1, &r), 0);
    cr_assert_eq(r.n_pairs, 3);
    int want1[3][2] = {{1, 6}, {2, 5}, {3, 4}};
    for (int k = 0; k < 3; k++) {
        cr_expect_eq(r.pairs[k].white, want1[k][0]);
        cr_expect_eq(r.pairs[k].black, want1[k][1]);
    }
    cr_assert_eq(pairing_rr_round(6, false, 2, &r), 0);
    int want2[3][2] = {{6, 4}, {5, 3}, {1, 2}};
    for (int k = 0; k < 3; k++) {
        cr_expect_eq(r.pairs[k].white, want2[k][0]);
        cr_expect_eq(r.pairs[k].black, want2[k][1]);
    }
    cr_expect_eq(r.bye, 0);
}

Test(pairing, berger_tables_3_to_12_match_the_published_tables)
{
    for (int n = 3; n <= 12; n++) {
        int m = n + (n & 1);
        cr_assert_eq(pairing_rr_rounds(n, false), m - 1, "n=%d", n);
        for (int round = 1; round <= m - 1; round++) {
            int w[8], b[8];
            int boards = table_round(m, round, w, b);
            cr_assert_eq(boards, m / 2);
            pairing_result r;
            cr_assert_eq(pairing_rr_round(n, false, round, &r), 0);
            int k = 0, bye = 0;
            for (int t = 0; t < boards; t++) {
                if (w[t] > n || b[t] > n) {
                    bye = w[t] > n ? b[t] : w[t];
                    continue;
                }
                cr_expect_eq(r.pairs[k].white, w[t], "n=%d round %d board %d", n, round, t + 1);
                cr_expect_eq(r.pairs[k].black, b[t], "n=%d round %d board %d", n, round, t + 1);
                k++;
            }
            cr_expect_eq(r.n_pairs, k, "n=%d round %d", n, round);
            cr_expect_eq(r.bye, bye, "n=%d round %d", n, round);
        }
        pairing_result r;
        cr_expect_eq(pairing_rr_round(n, false, m, &r), PAIRING_ERR_INVAL);
        cr_expect_eq(pairing_rr_round(n, false, 0, &r), PAIRING_ERR_INVAL);
    }
}

/* Every pair meets exactly once per cycle, each colour once overall; no
 * player has three games of one colour in a row (byes skipped). */
Test(pairing, double_round_robin_reverses_colours_and_no_three_in_a_row)
{
    for (int n = 3; n <= 12; n++) {
        int m = n + (n & 1), rounds = pairing_rr_rounds(n, true);
        cr_assert_eq(rounds, 2 * (m - 1));
        int wcount[13][13] = {{0}};
        char hist[13][32];
        int len[13] = {0}, byes[13] = {0};
        for (int round = 1; round <= rounds; round++) {
            pairing_result r;
            cr_assert_eq(pairing_rr_round(n, true, round, &r), 0);
            /* the table round this one plays (seam rule of pairing.h) */
            int t = round > m - 1 ? round - (m - 1) : round;
            bool rev = round > m - 1;
            if (!rev && m - 1 >= 2 && round == m - 2)
                t = m - 1;
            else if (!rev && m - 1 >= 2 && round == m - 1)
                t = m - 2;
            int w[8], b[8], boards = table_round(m, t, w, b), k = 0;
            for (int x = 0; x < boards; x++) {
                if (w[x] > n || b[x] > n)
                    continue;
                cr_expect_eq(r.pairs[k].white, rev ? b[x] : w[x], "n=%d round %d", n, round);
                cr_expect_eq(r.pairs[k].black, rev ? w[x] : b[x], "n=%d round %d", n, round);
                k++;
            }
            for (int x = 0; x < r.n_pairs; x++) {
                int a = r.pairs[x].white, c = r.pairs[x].black;
                wcount[a][c]++;
                hist[a][len[a]++] = 'W';
                hist[c][len[c]++] = 'B';
            }
            if (r.bye)
                byes[r.bye]++;
        }
        for (int a = 1; a <= n; a++) {
            cr_expect_eq(byes[a], (n & 1) ? 2 : 0);
            for (int c = 1; c <= n; c++)
                if (a != c)
                    cr_expect_eq(wcount[a][c], 1, "n=%d %d White against %d", n, a, c);
            for (int i = 2; i < len[a]; i++)
                cr_expect(!(hist[a][i] == hist[a][i - 1] && hist[a][i] == hist[a][i - 2]),
                          "n=%d player %d: three %c in a row ending at game %d", n, a, hist[a][i],
                          i + 1);
        }
    }
}

/* ---- Swiss: an independent referee ------------------------------------- */

#define SN 32

typedef struct sim {
    int n;
    pairing_player pl[SN];
    char hist[SN][PAIRING_MAX_ROUNDS]; /* played colours only, referee's copy */
    int hlen[SN];
    int byes[SN];
    pairing_forbid fb[4];
    int nfb;
    unsigned long long rng;
} sim;

static unsigned rnd(sim *s)
{
    s->rng ^= s->rng << 13;
    s->rng ^= s->rng >> 7;
    s->rng ^= s->rng << 17;
    return (unsigned)(s->rng >> 11);
}

static bool met(const sim *s, int a, int b)
{
    for (int k = 0; k < s->pl[a].n_met; k++)
        if (s->pl[a].met[k] == s->pl[b].number)
            return true;
    return false;
}

static bool forbidden(const sim *s, int a, int b)
{
    for (int k = 0; k < s->nfb; k++)
        if ((s->fb[k].a == a + 1 && s->fb[k].b == b + 1) ||
            (s->fb[k].a == b + 1 && s->fb[k].b == a + 1))
            return true;
    return false;
}

/* May player i take colour c ('W'/'B') next (C.04.1 f, g)? */
static bool may(const sim *s, int i, char c)
{
    int cd = 0, L = s->hlen[i];
    for (int k = 0; k < L; k++)
        cd += s->hist[i][k] == 'W' ? 1 : -1;
    cd += c == 'W' ? 1 : -1;
    if (cd > 2 || cd < -2)
        return false;
    return !(L >= 2 && s->hist[i][L - 1] == c && s->hist[i][L - 2] == c);
}

static bool valid_pair(const sim *s, int a, int b)
{
    if (met(s, a, b) || forbidden(s, a, b))
        return false;
    return (may(s, a, 'W') && may(s, b, 'B')) || (may(s, a, 'B') && may(s, b, 'W'));
}

/* Exhaustive: best number of pairs inside `group` (bitmask) over all valid
 * perfect pairings of `mask`; -1 if none. Memo on mask (fields <= 20). */
static signed char *memo;
static int best(const sim *s, unsigned mask, unsigned group)
{
    if (!mask)
        return 0;
    if (memo[mask] != -2)
        return memo[mask];
    int i = __builtin_ctz(mask), res = -1;
    for (int j = i + 1; j < s->n; j++) {
        if (!(mask >> j & 1) || !valid_pair(s, i, j))
            continue;
        int r = best(s, mask & ~(1u << i) & ~(1u << j), group);
        if (r < 0)
            continue;
        r += (group >> i & 1) && (group >> j & 1);
        if (r > res)
            res = r;
    }
    memo[mask] = (signed char)res;
    return res;
}

/* Referee's answer for this round: -1 if no valid pairing at all, else the
 * best pairs inside the top score group over all valid pairings with an
 * allowed bye. Only for n <= 20. */
static int referee(const sim *s)
{
    unsigned active = 0;
    for (int i = 0; i < s->n; i++)
        if (!s->pl[i].withdrawn)
            active |= 1u << i;
    int top = -1;
    for (int i = 0; i < s->n; i++)
        if ((active >> i & 1) && s->pl[i].score2 > top)
            top = s->pl[i].score2;
    unsigned group = 0;
    for (int i = 0; i < s->n; i++)
        if ((active >> i & 1) && s->pl[i].score2 == top)
            group |= 1u << i;
    memo = malloc((size_t)1 << s->n);
    cr_assert_not_null(memo);
    memset(memo, -2, (size_t)1 << s->n);
    int res = -1;
    if (__builtin_popcount(active) % 2 == 0) {
        res = best(s, active, group);
    } else {
        /* The pairer gives the bye first (lowest eligible); the referee
         * only asks whether any bye works, and for the top group's best
         * with the bye the pairer chose, set by the caller in byes[] */
        for (int i = 0; i < s->n; i++) {
            if (!(active >> i & 1) || s->pl[i].had_bye || s->pl[i].had_forfeit_win)
                continue;
            int r = best(s, active & ~(1u << i), group & ~(1u << i));
            if (r > res)
                res = r;
        }
    }
    free(memo);
    return res;
}

/* Top-group best for a given bye (0 = none). */
static int referee_with_bye(const sim *s, int bye)
{
    unsigned active = 0;
    for (int i = 0; i < s->n; i++)
        if (!s->pl[i].withdrawn && s->pl[i].number != bye)
            active |= 1u << i;
    int top = -1;
    for (int i = 0; i < s->n; i++)
        if ((active >> i & 1) && s->pl[i].score2 > top)
            top = s->pl[i].score2;
    unsigned group = 0;
    for (int i = 0; i < s->n; i++)
        if ((active >> i & 1) && s->pl[i].score2 == top)
            group |= 1u << i;
    memo = malloc((size_t)1 << s->n);
    cr_assert_not_null(memo);
    memset(memo, -2, (size_t)1 << s->n);
    int res = best(s, active, group);
    free(memo);
    return res;
}

static void sim_init(sim *s, int n, unsigned long long seed)
{
    memset(s, 0, sizeof *s);
    s->n = n;
    s->rng = seed * 2654435761u + 88172645463325252ull;
    for (int i = 0; i < n; i++) {
        s->pl[i].number = i + 1;
        s->pl[i].rating = 2000 - 10 * i; /* pairing numbers in rating order */
    }
}

/* Check one round against the hard rules, then play it. Returns the number
 * of pairs whose players had different scores. */
static int check_and_play(sim *s, const pairing_result *r, int round)
{
    int seen[SN] = {0}, active = 0;
    for (int i = 0; i < s->n; i++)
        active += !s->pl[i].withdrawn;
    cr_assert_eq(2 * r->n_pairs + (r->bye != 0), active, "n=%d round %d: everyone once", s->n,
                 round);
    cr_assert_eq(r->bye != 0, active % 2 == 1);
    int mixed = 0;
    for (int k = 0; k < r->n_pairs; k++) {
        int w = r->pairs[k].white - 1, b = r->pairs[k].black - 1;
        cr_assert(w >= 0 && w < s->n && b >= 0 && b < s->n && w != b);
        cr_assert(!seen[w]++ && !seen[b]++, "n=%d round %d: a player twice", s->n, round);
        cr_assert(!s->pl[w].withdrawn && !s->pl[b].withdrawn);
        cr_assert(!met(s, w, b), "n=%d round %d: %d-%d rematch", s->n, round, w + 1, b + 1);
        cr_assert(!forbidden(s, w, b), "n=%d round %d: forbidden %d-%d", s->n, round, w + 1, b + 1);
        cr_assert(may(s, w, 'W'), "n=%d round %d: %d may not have White", s->n, round, w + 1);
        cr_assert(may(s, b, 'B'), "n=%d round %d: %d may not have Black", s->n, round, b + 1);
        mixed += s->pl[w].score2 != s->pl[b].score2;
    }
    if (r->bye) {
        int y = r->bye - 1;
        cr_assert(!seen[y]++);
        cr_assert(!s->pl[y].had_bye, "n=%d round %d: second bye for %d", s->n, round, y + 1);
        cr_assert(!s->pl[y].had_forfeit_win, "n=%d round %d: bye to forfeit winner %d", s->n, round,
                  y + 1);
    }
    /* play: 4% forfeits, then White wins 40%, draws 25%, Black wins */
    for (int i = 0; i < s->n; i++)
        s->pl[i].colours[round - 1] = '-';
    for (int k = 0; k < r->n_pairs; k++) {
        int w = r->pairs[k].white - 1, b = r->pairs[k].black - 1;
        pairing_player *pw = &s->pl[w], *pb = &s->pl[b];
        pw->met[pw->n_met++] = b + 1;
        pb->met[pb->n_met++] = w + 1;
        unsigned x = rnd(s) % 100;
        if (x < 4) {
            pairing_player *winner = x < 2 ? pw : pb;
            winner->score2 += 2;
            winner->had_forfeit_win = true;
            continue; /* no colour for a forfeited game */
        }
        pw->colours[round - 1] = 'W';
        pb->colours[round - 1] = 'B';
        s->hist[w][s->hlen[w]++] = 'W';
        s->hist[b][s->hlen[b]++] = 'B';
        if (x < 44)
            pw->score2 += 2;
        else if (x < 69)
            pw->score2 += 1, pb->score2 += 1;
        else
            pb->score2 += 2;
    }
    if (r->bye) {
        s->pl[r->bye - 1].had_bye = true;
        s->pl[r->bye - 1].score2 += 2;
        s->byes[r->bye - 1]++;
    }
    for (int i = 0; i < s->n; i++)
        s->pl[i].rounds = round;
    return mixed;
}

static int ceil_log2(int n)
{
    int k = 0;
    while ((1 << k) < n)
        k++;
    return k;
}

Test(pairing, swiss_6_to_30_players_random_results_every_round_valid)
{
    int total_rounds = 0, no_pairing_ends = 0, refereed = 0, lookahead_changed = 0;
    for (int n = 6; n <= 30; n++) {
        sim s;
        sim_init(&s, n, (unsigned long long)n);
        if (n % 3 == 0 && n >= 9) { /* siblings (n = 6 could not meet everyone) */
            s.fb[s.nfb++] = (pairing_forbid){1, 2};
            s.fb[s.nfb++] = (pairing_forbid){n / 2, n / 2 + 1};
        }
        int need = ceil_log2(n) + 2 < n - 1 ? ceil_log2(n) + 2 : n - 1;
        int played = 0;
        for (int round = 1; round <= n - 1; round++) {
            if (n % 5 == 0 && round == 3)
                s.pl[n - 2].withdrawn = true; /* withdraws after round 2 */
            pairing_result r;
            int rc = pairing_swiss(s.pl, n, s.fb, s.nfb, n - 1 - round, &r);
            /* the same round without lookahead: step 2 alone */
            pairing_result r0;
            int rc0 = pairing_swiss(s.pl, n, s.fb, s.nfb, 0, &r0);
            cr_assert_eq(rc0, rc, "n=%d round %d", n, round);
            int ref = n <= 20 ? referee(&s) : 0;
            if (rc == PAIRING_ERR_NO_PAIRING) {
                if (n <= 20)
                    cr_assert_eq(ref, -1, "n=%d round %d: pairer gave up, referee found one", n,
                                 round);
                no_pairing_ends++;
                break;
            }
            cr_assert_eq(rc, 0, "n=%d round %d: %s", n, round, pairing_strerror(rc));
            if (n <= 20) {
                /* step 2 pairs the top score group as fully as any valid
                 * pairing can (with the bye it chose) */
                cr_assert_neq(ref, -1);
                int top = referee_with_bye(&s, r0.bye);
                int got = 0, topscore = -1;
                for (int i = 0; i < n; i++)
                    if (!s.pl[i].withdrawn && s.pl[i].number != r0.bye && s.pl[i].score2 > topscore)
                        topscore = s.pl[i].score2;
                for (int k = 0; k < r0.n_pairs; k++)
                    got += s.pl[r0.pairs[k].white - 1].score2 == topscore &&
                           s.pl[r0.pairs[k].black - 1].score2 == topscore;
                cr_expect_eq(got, top, "n=%d round %d: top group pairs %d, possible %d", n, round,
                             got, top);
                refereed++;
            }
            lookahead_changed += memcmp(&r, &r0, sizeof r) != 0;
            if (round == 1 && s.nfb == 0) {
                /* all on 0: top half against bottom half, alternating colours */
                int h = n / 2;
                for (int k = 0; k < h; k++) {
                    int hi = k + 1, lo = h + k + 1;
                    cr_expect_eq(r.pairs[k].white, k % 2 == 0 ? hi : lo, "n=%d board %d", n, k + 1);
                    cr_expect_eq(r.pairs[k].black, k % 2 == 0 ? lo : hi, "n=%d board %d", n, k + 1);
                }
                cr_expect_eq(r.bye, n % 2 ? n : 0);
            }
            check_and_play(&s, &r, round);
            played = round;
        }
        cr_expect_geq(played, need, "n=%d: only %d rounds paired, want %d", n, played, need);
        for (int i = 0; i < n; i++)
            cr_expect_leq(s.byes[i], 1);
        total_rounds += played;
    }
    cr_log_info("swiss: %d rounds paired, %d fields ended by no valid pairing, %d refereed, "
                "%d rounds changed by the lookahead",
                total_rounds, no_pairing_ends, refereed, lookahead_changed);
}

/* Small fields are where a Swiss paints itself into a corner: 6 to 8
 * players over 30 seeds each must reach min(n-1, ceil(log2 n)+2) rounds,
 * every round valid (6 players: the full five rounds). */
Test(pairing, swiss_small_fields_many_seeds_reach_the_round_count)
{
    int short_without_lookahead = 0;
    for (int n = 6; n <= 8; n++) {
        int need = ceil_log2(n) + 2 < n - 1 ? ceil_log2(n) + 2 : n - 1;
        for (unsigned long long seed = 100; seed < 130; seed++) {
            for (int look = 1; look >= 0; look--) {
                sim s;
                sim_init(&s, n, seed);
                int played = 0;
                for (int round = 1; round <= n - 1; round++) {
                    pairing_result r;
                    int rc = pairing_swiss(s.pl, n, NULL, 0, look ? n - 1 - round : 0, &r);
                    if (rc == PAIRING_ERR_NO_PAIRING) {
                        cr_assert_eq(referee(&s), -1);
                        break;
                    }
                    cr_assert_eq(rc, 0);
                    check_and_play(&s, &r, round);
                    played = round;
                }
                if (look)
                    cr_expect_geq(played, need, "n=%d seed %llu: %d rounds", n, seed, played);
                else
                    short_without_lookahead += played < need;
            }
        }
    }
    /* the same fields paired without the lookahead (step 2 alone) do get
     * stuck: the lookahead is what carries them */
    cr_expect_gt(short_without_lookahead, 0);
    cr_log_info("small fields stuck without the lookahead: %d of 90", short_without_lookahead);
}

/* ---- Swiss: hand-made cases -------------------------------------------- */

static pairing_player player(int number, int rating, int score2, const char *colours)
{
    pairing_player p;
    memset(&p, 0, sizeof p);
    p.number = number;
    p.rating = rating;
    p.score2 = score2;
    p.rounds = (int)strlen(colours);
    memcpy(p.colours, colours, (size_t)p.rounds);
    return p;
}

Test(pairing, swiss_round_one_orders_by_rating_then_number)
{
    pairing_player pl[4] = {player(1, 1500, 0, ""), player(2, 1800, 0, ""), player(3, 1500, 0, ""),
                            player(4, 1900, 0, "")};
    pairing_result r;
    cr_assert_eq(pairing_swiss(pl, 4, NULL, 0, 0, &r), 0);
    /* rank: 4, 2, 1, 3 -> 4-1, 3-2 (board 2: the higher-ranked 2 has Black) */
    cr_assert_eq(r.n_pairs, 2);
    cr_expect_eq(r.pairs[0].white, 4);
    cr_expect_eq(r.pairs[0].black, 1);
    cr_expect_eq(r.pairs[1].white, 3);
    cr_expect_eq(r.pairs[1].black, 2);
}

Test(pairing, swiss_forbidden_pair_takes_the_next_transposition)
{
    pairing_player pl[4] = {player(1, 0, 0, ""), player(2, 0, 0, ""), player(3, 0, 0, ""),
                            player(4, 0, 0, "")};
    pairing_forbid fb = {3, 1};
    pairing_result r;
    cr_assert_eq(pairing_swiss(pl, 4, &fb, 1, 0, &r), 0);
    cr_assert_eq(r.n_pairs, 2);
    cr_expect_eq(r.pairs[0].white, 1);
    cr_expect_eq(r.pairs[0].black, 4);
    cr_expect_eq(r.pairs[1].white, 3);
    cr_expect_eq(r.pairs[1].black, 2);
}

Test(pairing, swiss_bye_lowest_eligible_and_floater)
{
    /* 5 players; 5 (lowest) had a bye, 4 won by forfeit: the bye is 3's. */
    pairing_player pl[5] = {player(1, 0, 2, "W"), player(2, 0, 2, "B"), player(3, 0, 0, "B"),
                            player(4, 0, 2, "-"), player(5, 0, 2, "-")};
    pl[0].met[pl[0].n_met++] = 3;
    pl[2].met[pl[2].n_met++] = 1;
    pl[1].met[pl[1].n_met++] = 4;
    pl[3].met[pl[3].n_met++] = 2;
    pl[3].had_forfeit_win = true;
    pl[4].had_bye = true;
    pairing_result r;
    cr_assert_eq(pairing_swiss(pl, 5, NULL, 0, 0, &r), 0);
    cr_expect_eq(r.bye, 3);
    /* score group 2: 1, 2, 4, 5 -> S1 {1,2}, S2 {4,5}: 1-4, 2-5. Colours:
     * 1 (had W) prefers B, 4 none -> 4 White; 2 (had B) prefers W. */
    cr_assert_eq(r.n_pairs, 2);
    cr_expect_eq(r.pairs[0].white, 4);
    cr_expect_eq(r.pairs[0].black, 1);
    cr_expect_eq(r.pairs[1].white, 2);
    cr_expect_eq(r.pairs[1].black, 5);
}

Test(pairing, swiss_colour_strength_decides)
{
    /* 1: W,W (absolute Black); 2: B (strong... cd -1: strong White).
     * 3: W,B,W (cd +1 strong Black), 4: B,W,B (cd -1 strong White). */
    pairing_player a[2] = {player(1, 0, 2, "WW"), player(2, 0, 2, "BW")};
    pairing_result r;
    /* 2 has cd 0, last W -> mild Black; 1 absolute Black wins it. */
    cr_assert_eq(pairing_swiss(a, 2, NULL, 0, 0, &r), 0);
    cr_expect_eq(r.pairs[0].white, 2);
    cr_expect_eq(r.pairs[0].black, 1);
    pairing_player b[2] = {player(1, 0, 2, "BW"), player(2, 0, 2, "BWW")};
    /* 1 mild Black, 2 (cd +1 and last two W) absolute Black. */
    cr_assert_eq(pairing_swiss(b, 2, NULL, 0, 0, &r), 0);
    cr_expect_eq(r.pairs[0].white, 1);
    pairing_player c[2] = {player(1, 0, 2, "WB"), player(2, 0, 2, "BW")};
    /* both mild, different: 1 White (alternates), 2 Black. */
    cr_assert_eq(pairing_swiss(c, 2, NULL, 0, 0, &r), 0);
    cr_expect_eq(r.pairs[0].white, 1);
    pairing_player d[2] = {player(1, 0, 2, "BW"), player(2, 0, 2, "BW")};
    /* same mild preference (Black): the higher rank, 1, gets it. */
    cr_assert_eq(pairing_swiss(d, 2, NULL, 0, 0, &r), 0);
    cr_expect_eq(r.pairs[0].black, 1);
}

Test(pairing, swiss_no_valid_pairing_is_its_own_error)
{
    /* four players who have all met */
    pairing_player pl[4] = {player(1, 0, 2, "WBW"), player(2, 0, 2, "BWB"), player(3, 0, 2, "WBB"),
                            player(4, 0, 2, "BWW")};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            if (i != j)
                pl[i].met[pl[i].n_met++] = j + 1;
    pairing_result r;
    cr_expect_eq(pairing_swiss(pl, 4, NULL, 0, 0, &r), PAIRING_ERR_NO_PAIRING);
    cr_expect_neq(PAIRING_ERR_NO_PAIRING, PAIRING_ERR_INVAL);
    cr_expect_str_eq(pairing_strerror(PAIRING_ERR_NO_PAIRING), "no valid pairing exists");

    /* two players who both must have Black */
    pairing_player two[2] = {player(1, 0, 0, "WW"), player(2, 0, 0, "BWW")};
    cr_expect_eq(pairing_swiss(two, 2, NULL, 0, 0, &r), PAIRING_ERR_NO_PAIRING);

    /* siblings alone */
    pairing_player sib[2] = {player(1, 0, 0, ""), player(2, 0, 0, "")};
    pairing_forbid fb = {1, 2};
    cr_expect_eq(pairing_swiss(sib, 2, &fb, 1, 0, &r), PAIRING_ERR_NO_PAIRING);

    /* odd field where everyone had a bye or a forfeit win */
    pairing_player odd[3] = {player(1, 0, 2, "-"), player(2, 0, 2, "-"), player(3, 0, 2, "-")};
    odd[0].had_bye = true;
    odd[1].had_forfeit_win = true;
    odd[2].had_bye = true;
    cr_expect_eq(pairing_swiss(odd, 3, NULL, 0, 0, &r), PAIRING_ERR_NO_PAIRING);
    odd[1].had_forfeit_win = false; /* now 2 can take it */
    cr_assert_eq(pairing_swiss(odd, 3, NULL, 0, 0, &r), 0);
    cr_expect_eq(r.bye, 2);
    cr_expect_eq(r.n_pairs, 1);
}

Test(pairing, swiss_bad_input)
{
    pairing_player pl[2] = {player(1, 0, 0, ""), player(1, 0, 0, "")};
    pairing_result r;
    cr_expect_eq(pairing_swiss(pl, 2, NULL, 0, 0, &r), PAIRING_ERR_INVAL); /* number twice */
    pl[1] = player(2, 0, 0, "X");
    cr_expect_eq(pairing_swiss(pl, 2, NULL, 0, 0, &r), PAIRING_ERR_INVAL); /* colour */
    pl[1] = player(2, 0, 0, "");
    cr_expect_eq(pairing_swiss(pl, 2, NULL, 1, 0, &r), PAIRING_ERR_INVAL); /* NULL forbidden */
    cr_expect_eq(pairing_swiss(pl, PAIRING_MAX_PLAYERS + 1, NULL, 0, 0, &r), PAIRING_ERR_RANGE);
    cr_expect_eq(pairing_swiss(pl, 2, NULL, 0, 0, &r), 0);
    pl[0].withdrawn = true;
    cr_expect_eq(pairing_swiss(pl, 2, NULL, 0, 0, &r), 0); /* one left: the bye */
    cr_expect_eq(r.bye, 2);
    cr_expect_eq(r.n_pairs, 0);
}

/* ---- TRF-16 ------------------------------------------------------------ */

static pairing_trf_game G(int opp, char colour, char result)
{
    return (pairing_trf_game){opp, colour, result};
}

Test(pairing, trf_writer_exact_text)
{
    pairing_trf_player p[4] = {
        {1, "Alice", 1500, 1, false, 2, {G(3, 'w', '1'), G(2, 'b', '+')}},
        {2, "Bob", 1400, 3, false, 2, {G(4, 'b', '='), G(1, 'w', '-')}},
        {3, "Carol", 0, 2, false, 2, {G(1, 'b', '0'), G(4, 'w', '1')}},
        {4, "Dan", 1300, 4, true, 2, {G(2, 'w', '='), G(3, 'b', '0')}},
    };
    pairing_forbid fb = {2, 3};
    pairing_trf t = {"Qirkat class 1", 3, p, 4, &fb, 1};
    const char *want =
        "012 Qirkat class 1\n"
        "001    1      Alice                             1500                             2.0"
        "    1     3 w 1     2 b +\n"
        "001    2      Bob                               1400                             0.5"
        "    3     4 b =     1 w -\n"
        "001    3      Carol                                                              1.0"
        "    2     1 b 0     4 w 1\n"
        "001    4      Dan                               1300                             0.5"
        "    4     2 w =     3 b 0  0000 - Z\n"
        "XXR 3\n"
        "XXC white1\n"
        "XXP 2 3\n";
    char buf[2048];
    size_t len = 0;
    cr_assert_eq(pairing_trf_write(&t, buf, sizeof buf, &len), 0);
    cr_expect_str_eq(buf, want);
    cr_expect_eq(len, strlen(want));
    /* the columns bbpPairings reads: number 5-8, rating 49-52, points 81-84,
     * round 1 opponent 92-95, colour 97, result 99 */
    const char *l1 = strchr(buf, '\n') + 1;
    cr_expect_eq(strncmp(l1 + 4, "   1", 4), 0);
    cr_expect_eq(strncmp(l1 + 48, "1500", 4), 0);
    cr_expect_eq(strncmp(l1 + 80, " 2.0", 4), 0);
    cr_expect_eq(strncmp(l1 + 91, "   3", 4), 0);
    cr_expect_eq(l1[96], 'w');
    cr_expect_eq(l1[98], '1');

    cr_expect_eq(pairing_trf_write(&t, buf, 100, &len), PAIRING_ERR_NOSPACE);
    /* names count in characters: UTF-8 is not cut and keeps the columns */
    p[1].name = "Zo\xc3\xab \xc3\x9cnal-Bj\xc3\xb6rkqvist-Lindstr\xc3\xb6m-Oyelaran";
    cr_assert_eq(pairing_trf_write(&t, buf, sizeof buf, &len), 0);
    cr_expect(strstr(buf, "001    2      Zo\xc3\xab \xc3\x9cnal-Bj\xc3\xb6rkqvist-Lindstr\xc3\xb6m-"
                          "Oye 1400 ") != NULL,
              "%s", buf);
    p[1].name = "Bob";
    p[0].games[0].colour = '-'; /* a played game needs a colour */
    cr_expect_eq(pairing_trf_write(&t, buf, sizeof buf, &len), PAIRING_ERR_INVAL);
    p[0].games[0] = G(0, '-', 'U');
    cr_assert_eq(pairing_trf_write(&t, buf, sizeof buf, &len), 0);
    cr_expect(strstr(buf, "    1  0000 - U     2 b +\n") != NULL, "%s", buf);
    cr_expect_eq(pairing_trf_points2('U'), 2);
    cr_expect_eq(pairing_trf_points2('H'), 1);
    cr_expect_eq(pairing_trf_points2('Z'), 0);
}

Test(pairing, parse_bbp_output)
{
    pairing_result r;
    cr_assert_eq(pairing_parse_output("3\n1 4\n3 2\n5 0\n", &r), 0);
    cr_expect_eq(r.n_pairs, 2);
    cr_expect_eq(r.pairs[0].white, 1);
    cr_expect_eq(r.pairs[0].black, 4);
    cr_expect_eq(r.pairs[1].white, 3);
    cr_expect_eq(r.pairs[1].black, 2);
    cr_expect_eq(r.bye, 5);
    cr_assert_eq(pairing_parse_output("1\r\n2 1\r\n", &r), 0);
    cr_expect_eq(r.pairs[0].white, 2);
    cr_expect_eq(r.bye, 0);
    const char *bad[] = {
        "",         "x\n",        "2\n1 2\n",  "1\n1 2\n3 4\n", "2\n1 2\n2 3\n", "2\n1 0\n2 0\n",
        "1\n1 1\n", "1\n1 2 3\n", "1\n-1 2\n", "1\n1\n"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        cr_expect_eq(pairing_parse_output(bad[i], &r), PAIRING_ERR_PARSE, "case %zu", i);
}

/* ---- The optional external path, with stand-in pairers ----------------- */

static char tdir[64];

static const char *script(const char *name, const char *body)
{
    static char path[128];
    snprintf(path, sizeof path, "%s/%s", tdir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "#!/bin/sh\n%s\n", body);
    fclose(f);
    chmod(path, 0700);
    return path;
}

Test(pairing, external_pairer_runs_and_parses)
{
    snprintf(tdir, sizeof tdir, "/tmp/qk-pairing-XXXXXX");
    cr_assert_not_null(mkdtemp(tdir));
    pairing_trf_player p[2] = {{1, "A", 0, 0, false, 0, {{0}}}, {2, "B", 0, 0, false, 0, {{0}}}};
    pairing_trf t = {NULL, 1, p, 2, NULL, 0};
    pairing_result r;
    /* checks its arguments and that the input is our TRF, answers 2-1 */
    const char *ok =
        script("ok.sh", "[ \"$1\" = --dutch ] && [ \"$3\" = -p ] || exit 3\n"
                        "grep -q '^XXR 1$' \"$2\" && grep -q '^XXC white1$' \"$2\" || exit 3\n"
                        "grep -q '^001    2      B  *0\\.0$' \"$2\" || exit 3\n"
                        "printf '1\\n2 1\\n' > \"$4\"");
    cr_assert_eq(pairing_external(ok, &t, tdir, 5000, &r), 0);
    cr_expect_eq(r.n_pairs, 1);
    cr_expect_eq(r.pairs[0].white, 2);
    cr_expect_eq(r.pairs[0].black, 1);
    const char *none = script("none.sh", "exit 1");
    cr_expect_eq(pairing_external(none, &t, tdir, 5000, &r), PAIRING_ERR_NO_PAIRING);
    const char *fail = script("fail.sh", "exit 2");
    cr_expect_eq(pairing_external(fail, &t, tdir, 5000, &r), PAIRING_ERR_EXEC);
    const char *junk = script("junk.sh", "echo nonsense > \"$4\"");
    cr_expect_eq(pairing_external(junk, &t, tdir, 5000, &r), PAIRING_ERR_PARSE);
    const char *slow = script("slow.sh", "exec sleep 5");
    cr_expect_eq(pairing_external(slow, &t, tdir, 200, &r), PAIRING_ERR_EXEC);
    char missing[128];
    snprintf(missing, sizeof missing, "%s/no-such-pairer", tdir);
    cr_expect_eq(pairing_external(missing, &t, tdir, 5000, &r), PAIRING_ERR_EXEC);
    /* the temporary files are gone: only the scripts are left */
    char cmd[160];
    snprintf(cmd, sizeof cmd, "test $(ls '%s' | wc -l) -eq 5", tdir);
    cr_expect_eq(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tdir);
    cr_expect_eq(system(cmd), 0);
}
