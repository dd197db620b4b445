/*
 * pairing: Berger tables and the built-in Swiss pairer (see pairing.h for
 * the rules and the algorithm). Everything works on a per-call context on
 * the stack: players sorted by rank, a compatibility matrix, and an
 * Edmonds blossom matcher used as the feasibility oracle. The TRF-16 side
 * lives in pairing_trf.c.
 */
#include "game/pairing.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define MAXP PAIRING_MAX_PLAYERS

const char *pairing_strerror(int err)
{
    switch (err) {
#define PAIRING_TEXT(name, val, text)                                                              \
    case val:                                                                                      \
        return text;
        PAIRING_ERR_MAP(PAIRING_TEXT)
#undef PAIRING_TEXT
    }
    return "unknown error";
}

/* ---- Round robin ------------------------------------------------------- */

int pairing_rr_rounds(int n, bool dbl)
{
    if (n < 2 || n > PAIRING_MAX_PLAYERS)
        return 0;
    int m = n + (n & 1);
    return (m - 1) * (dbl ? 2 : 1);
}

/* 1..m-1 for any integer x (the rotating numbers of the table). */
static int wrap(int x, int m)
{
    int k = m - 1;
    x = ((x - 1) % k + k) % k;
    return x + 1;
}

int pairing_rr_round(int n, bool dbl, int round, pairing_result *out)
{
    int total = pairing_rr_rounds(n, dbl);
    if (!out || total == 0 || round < 1 || round > total)
        return PAIRING_ERR_INVAL;
    int m = n + (n & 1), cycle = m - 1;
    int t = round; /* table round */
    bool reverse = false;
    if (dbl) {
        if (round > cycle) {
            t = round - cycle;
            reverse = true;
        } else if (cycle >= 2 && round >= cycle - 1) {
            /* C.05 Annex 1: swap the last two rounds of the first cycle. */
            t = round == cycle ? cycle - 1 : cycle;
        }
    }
    int h = m / 2;
    int p = ((t - 1) * h) % cycle + 1;
    memset(out, 0, sizeof *out);
    for (int k = 1; k <= h; k++) {
        int w, b;
        if (k == 1) {
            w = (t & 1) ? p : m;
            b = (t & 1) ? m : p;
        } else {
            w = wrap(p + k - 1, m);
            b = wrap(p - k + 1, m);
        }
        if (reverse) {
            int x = w;
            w = b;
            b = x;
        }
        if (w > n || b > n) {
            out->bye = w > n ? b : w;
            continue;
        }
        out->pairs[out->n_pairs].white = w;
        out->pairs[out->n_pairs].black = b;
        out->n_pairs++;
    }
    return 0;
}

/* ---- Swiss: context ---------------------------------------------------- */

typedef struct sw sw;
struct sw {
    int n; /* active players, index = rank - 1 */
    const pairing_player *p[MAXP];
    int cd[MAXP];                 /* #W - #B */
    char last[MAXP], last2[MAXP]; /* last two played colours, 0 = none */
    bool can_w[MAXP], can_b[MAXP];
    bool played[MAXP]; /* has at least one coloured game */
    uint8_t adj[MAXP][MAXP];
    bool alive[MAXP]; /* not yet paired, not the bye */
    int partner[MAXP];
    long budget;                 /* oracle calls left in this search, <0: unlimited */
    uint8_t base_ok[MAXP][MAXP]; /* not met, not forbidden */
    int bye;                     /* rank index of this round's bye, -1 = none */
    bool lookahead;              /* prefer pairings that leave a next round */
    bool have_fallback, stop;
    long look_budget;   /* oracle calls left once a first pairing exists */
    int fallback[MAXP]; /* partner[] of the first pairing found */
    struct sw *nx;      /* scratch context for the next round */
    /* blossom scratch */
    int match[MAXP], par[MAXP], base[MAXP], queue[MAXP];
    bool used[MAXP], blossom[MAXP];
};

static int rank_cmp(const pairing_player *a, const pairing_player *b)
{
    if (a->score2 != b->score2)
        return a->score2 > b->score2 ? -1 : 1;
    if (a->rating != b->rating)
        return a->rating > b->rating ? -1 : 1;
    return a->number < b->number ? -1 : a->number > b->number;
}

/* ---- Edmonds' blossom: does alive[] have a perfect matching? ----------- */

static int bl_lca(sw *s, int a, int b)
{
    bool seen[MAXP] = {false};
    for (;;) {
        a = s->base[a];
        seen[a] = true;
        if (s->match[a] < 0)
            break;
        a = s->par[s->match[a]];
    }
    for (;;) {
        b = s->base[b];
        if (seen[b])
            return b;
        b = s->par[s->match[b]];
    }
}

static void bl_mark(sw *s, int v, int b, int child)
{
    while (s->base[v] != b) {
        s->blossom[s->base[v]] = s->blossom[s->base[s->match[v]]] = true;
        s->par[v] = child;
        child = s->match[v];
        v = s->par[s->match[v]];
    }
}

/* An augmenting path from root: its free end, or -1. */
static int bl_find(sw *s, int root)
{
    int n = s->n, qh = 0, qt = 0;
    for (int i = 0; i < n; i++) {
        s->used[i] = false;
        s->par[i] = -1;
        s->base[i] = i;
    }
    s->used[root] = true;
    s->queue[qt++] = root;
    while (qh < qt) {
        int v = s->queue[qh++];
        for (int to = 0; to < n; to++) {
            if (!s->alive[to] || !s->adj[v][to])
                continue;
            if (s->base[v] == s->base[to] || s->match[v] == to)
                continue;
            if (to == root || (s->match[to] >= 0 && s->par[s->match[to]] >= 0)) {
                int cb = bl_lca(s, v, to);
                memset(s->blossom, 0, sizeof s->blossom);
                bl_mark(s, v, cb, to);
                bl_mark(s, to, cb, v);
                for (int i = 0; i < n; i++) {
                    if (s->alive[i] && s->blossom[s->base[i]]) {
                        s->base[i] = cb;
                        if (!s->used[i]) {
                            s->used[i] = true;
                            s->queue[qt++] = i;
                        }
                    }
                }
            } else if (s->par[to] < 0) {
                s->par[to] = v;
                if (s->match[to] < 0)
                    return to;
                s->used[s->match[to]] = true;
                s->queue[qt++] = s->match[to];
            }
        }
    }
    return -1;
}

/* Maximum matching on alive[]: the number of pairs; with need_perfect, -1
 * as soon as some vertex cannot be matched. */
static int matching(sw *s, bool need_perfect)
{
    int n = s->n, count = 0, pairs = 0;
    for (int i = 0; i < n; i++) {
        s->match[i] = -1;
        count += s->alive[i];
    }
    if (need_perfect && (count & 1))
        return -1;
    /* Greedy start, then augment. A vertex with no augmenting path now never
     * gets one later (Edmonds), so one pass over the vertices suffices and
     * for a perfect matching the first failure decides. */
    for (int i = 0; i < n; i++) {
        if (!s->alive[i] || s->match[i] >= 0)
            continue;
        for (int j = i + 1; j < n; j++) {
            if (s->alive[j] && s->match[j] < 0 && s->adj[i][j]) {
                s->match[i] = j;
                s->match[j] = i;
                pairs++;
                break;
            }
        }
    }
    for (int v = 0; v < n; v++) {
        if (!s->alive[v] || s->match[v] >= 0)
            continue;
        int u = bl_find(s, v);
        if (u < 0) {
            if (need_perfect)
                return -1;
            continue;
        }
        pairs++;
        while (u >= 0) {
            int pv = s->par[u], ppv = s->match[pv];
            s->match[u] = pv;
            s->match[pv] = u;
            u = ppv;
        }
    }
    return pairs;
}

static bool perfect(sw *s)
{
    return matching(s, true) >= 0;
}

/* The oracle, charged to the search budget. */
static bool oracle(sw *s)
{
    if (s->stop)
        return false;
    if (s->have_fallback && --s->look_budget < 0) {
        s->stop = true;
        return false;
    }
    if (s->budget == 0)
        return false;
    if (s->budget > 0)
        s->budget--;
    return perfect(s);
}

/* ---- Swiss: set-up ----------------------------------------------------- */

static int setup(sw *s, const pairing_player *pl, int n, const pairing_forbid *fb, int nf)
{
    memset(s, 0, sizeof *s);
    for (int i = 0; i < n; i++) {
        const pairing_player *a = &pl[i];
        if (a->number < 1 || a->rounds < 0 || a->n_met < 0 || a->score2 < 0 || a->rating < 0)
            return PAIRING_ERR_INVAL;
        if (a->rounds > PAIRING_MAX_ROUNDS || a->n_met > PAIRING_MAX_ROUNDS)
            return PAIRING_ERR_RANGE;
        for (int r = 0; r < a->rounds; r++)
            if (a->colours[r] != 'W' && a->colours[r] != 'B' && a->colours[r] != '-')
                return PAIRING_ERR_INVAL;
        for (int j = 0; j < i; j++)
            if (pl[j].number == a->number)
                return PAIRING_ERR_INVAL;
        if (a->withdrawn)
            continue;
        /* insertion into rank order */
        int k = s->n++;
        while (k > 0 && rank_cmp(a, s->p[k - 1]) < 0) {
            s->p[k] = s->p[k - 1];
            k--;
        }
        s->p[k] = a;
    }
    for (int i = 0; i < s->n; i++) {
        const pairing_player *a = s->p[i];
        for (int r = 0; r < a->rounds; r++) {
            char c = a->colours[r];
            if (c == '-')
                continue;
            s->cd[i] += c == 'W' ? 1 : -1;
            s->last2[i] = s->last[i];
            s->last[i] = c;
            s->played[i] = true;
        }
        bool two = s->last[i] && s->last[i] == s->last2[i];
        s->can_w[i] = s->cd[i] + 1 <= 2 && !(two && s->last[i] == 'W');
        s->can_b[i] = s->cd[i] - 1 >= -2 && !(two && s->last[i] == 'B');
        s->alive[i] = true;
        s->partner[i] = -1;
    }
    for (int i = 0; i < s->n; i++) {
        for (int j = i + 1; j < s->n; j++) {
            bool ok = true;
            const pairing_player *a = s->p[i], *b = s->p[j];
            for (int k = 0; ok && k < a->n_met; k++)
                ok = a->met[k] != b->number;
            for (int k = 0; ok && k < b->n_met; k++)
                ok = b->met[k] != a->number;
            for (int k = 0; ok && k < nf; k++)
                ok = !((fb[k].a == a->number && fb[k].b == b->number) ||
                       (fb[k].a == b->number && fb[k].b == a->number));
            s->base_ok[i][j] = s->base_ok[j][i] = ok;
            ok = ok && ((s->can_w[i] && s->can_b[j]) || (s->can_b[i] && s->can_w[j]));
            s->adj[i][j] = s->adj[j][i] = ok;
        }
    }
    return 0;
}

/* ---- Swiss: colours (step 3) ------------------------------------------- */

/* Preferred colour 'W'/'B' or 0 and its strength 0..3. */
static char preference(const sw *s, int i, int *strength)
{
    bool two = s->last[i] && s->last[i] == s->last2[i];
    if (s->cd[i] <= -2 || (two && s->last[i] == 'B')) {
        *strength = 3;
        return 'W';
    }
    if (s->cd[i] >= 2 || (two && s->last[i] == 'W')) {
        *strength = 3;
        return 'B';
    }
    if (s->cd[i] != 0) {
        *strength = 2;
        return s->cd[i] < 0 ? 'W' : 'B';
    }
    if (s->played[i]) {
        *strength = 1;
        return s->last[i] == 'W' ? 'B' : 'W';
    }
    *strength = 0;
    return 0;
}

/* True when a (higher ranked) gets White against b on board `board` (0-based). */
static bool a_white(const sw *s, int a, int b, int board)
{
    bool aw = s->can_w[a] && s->can_b[b], ab = s->can_b[a] && s->can_w[b];
    if (!ab)
        return true;
    if (!aw)
        return false;
    int sa, sb;
    char pa = preference(s, a, &sa), pb = preference(s, b, &sb);
    if (pa && pb) {
        if (pa != pb || sa >= sb)
            return pa == 'W';
        return pb == 'B';
    }
    if (pa)
        return pa == 'W';
    if (pb)
        return pb == 'B';
    return board % 2 == 0;
}

/* ---- Swiss: lookahead -------------------------------------------------- */

/* With partner[] complete: would the round after this one still have a
 * valid pairing (same field)? Builds the next round's graph in s->nx. */
static bool next_round_ok(sw *s)
{
    sw *x = s->nx;
    x->n = s->n;
    int board = 0;
    for (int i = 0; i < s->n; i++) {
        x->cd[i] = s->cd[i];
        x->last[i] = s->last[i];
        x->last2[i] = s->last2[i];
        x->alive[i] = true;
    }
    for (int i = 0; i < s->n; i++) {
        int j = s->partner[i];
        if (j < i)
            continue;
        bool w = a_white(s, i, j, board++);
        int wi = w ? i : j, bi = w ? j : i;
        x->cd[wi]++;
        x->cd[bi]--;
        x->last2[wi] = x->last[wi];
        x->last[wi] = 'W';
        x->last2[bi] = x->last[bi];
        x->last[bi] = 'B';
    }
    for (int i = 0; i < s->n; i++) {
        bool two = x->last[i] && x->last[i] == x->last2[i];
        x->can_w[i] = x->cd[i] + 1 <= 2 && !(two && x->last[i] == 'W');
        x->can_b[i] = x->cd[i] - 1 >= -2 && !(two && x->last[i] == 'B');
    }
    for (int i = 0; i < s->n; i++)
        for (int j = 0; j < s->n; j++)
            x->adj[i][j] = i != j && s->base_ok[i][j] && s->partner[i] != j &&
                           ((x->can_w[i] && x->can_b[j]) || (x->can_b[i] && x->can_w[j]));
    s->look_budget -= 1;
    if (!(s->n & 1))
        return perfect(x);
    for (int i = s->n - 1; i >= 0; i--) {
        if (i == s->bye || s->p[i]->had_bye || s->p[i]->had_forfeit_win)
            continue;
        s->look_budget -= 1;
        x->alive[i] = false;
        if (perfect(x))
            return true;
        x->alive[i] = true;
    }
    return false;
}

/* A complete pairing: keep the first one as the fallback; accept it when no
 * lookahead is wanted or the next round stays pairable. */
static bool leaf(sw *s)
{
    if (!s->have_fallback) {
        memcpy(s->fallback, s->partner, sizeof s->fallback);
        s->have_fallback = true;
    }
    if (!s->lookahead)
        return true;
    if (s->look_budget <= 0) {
        s->stop = true;
        return false;
    }
    return next_round_ok(s);
}

/* ---- Swiss: bracket search (step 2) ------------------------------------ */

enum { UNDECIDED = 0, PAIRED = 1, FLOATED = 2 };

typedef struct bracket {
    int m;         /* members, rank order */
    int mem[MAXP]; /* player indices */
    bool floater[MAXP];
    uint8_t st[MAXP]; /* UNDECIDED / PAIRED / FLOATED */
    int next;         /* first rank index after this bracket's score group */
} bracket;

static bool solve(sw *s, const int *fl, int nfl, int next);
static bool try_pair(sw *s, bracket *b, int pi, int ci, int pairs, int t);

/* t pairs made: the rest of the bracket floats into the next one. */
static bool bracket_done(sw *s, bracket *b)
{
    int fl[MAXP], nfl = 0;
    for (int i = 0; i < b->m; i++)
        if (b->st[i] != PAIRED)
            fl[nfl++] = b->mem[i];
    long saved = s->budget;
    bool ok = solve(s, fl, nfl, b->next);
    s->budget = saved;
    return ok;
}

static bool dfs(sw *s, bracket *b, int pairs, int t)
{
    if (s->stop)
        return false;
    if (pairs == t)
        return bracket_done(s, b);
    if (s->budget == 0)
        return false;
    int pi = -1, undecided = 0;
    for (int i = 0; i < b->m; i++) {
        if (b->st[i] == UNDECIDED) {
            if (pi < 0)
                pi = i;
            undecided++;
        }
    }
    if (pi < 0 || pairs + undecided / 2 < t)
        return false;
    if (b->floater[pi]) {
        for (int i = pi + 1; i < b->m; i++)
            if (!b->floater[i] && b->st[i] == UNDECIDED && try_pair(s, b, pi, i, pairs, t))
                return true;
        for (int i = pi + 1; i < b->m; i++)
            if (b->floater[i] && b->st[i] == UNDECIDED && try_pair(s, b, pi, i, pairs, t))
                return true;
    } else {
        /* Undecided residents from the pivot on; S1 = top half, S2 = rest. */
        int rem[MAXP], r = 0;
        for (int i = pi; i < b->m; i++)
            if (!b->floater[i] && b->st[i] == UNDECIDED)
                rem[r++] = i;
        int h = r / 2 > 0 ? r / 2 : 1;
        for (int k = h; k < r; k++)
            if (try_pair(s, b, pi, rem[k], pairs, t))
                return true;
        for (int k = h - 1; k >= 1; k--)
            if (try_pair(s, b, pi, rem[k], pairs, t))
                return true;
    }
    if (pairs + (undecided - 1) / 2 >= t) {
        b->st[pi] = FLOATED;
        if (dfs(s, b, pairs, t))
            return true;
        b->st[pi] = UNDECIDED;
    }
    return false;
}

static bool try_pair(sw *s, bracket *b, int pi, int ci, int pairs, int t)
{
    int x = b->mem[pi], y = b->mem[ci];
    if (!s->adj[x][y])
        return false;
    s->alive[x] = s->alive[y] = false;
    if (oracle(s)) {
        b->st[pi] = b->st[ci] = PAIRED;
        s->partner[x] = y;
        s->partner[y] = x;
        if (dfs(s, b, pairs + 1, t))
            return true;
        b->st[pi] = b->st[ci] = UNDECIDED;
        s->partner[x] = s->partner[y] = -1;
    }
    s->alive[x] = s->alive[y] = true;
    return false;
}

/* The bracket of the floaters fl[] and the score group starting at rank
 * index next; true once a leaf accepted a complete pairing. */
static bool solve(sw *s, const int *fl, int nfl, int next)
{
    bracket b;
    while (next < s->n && !s->alive[next])
        next++; /* the bye player */
    b.m = 0;
    for (int i = 0; i < nfl; i++) {
        b.mem[b.m] = fl[i];
        b.floater[b.m++] = true;
    }
    if (next < s->n) {
        int score = s->p[next]->score2;
        for (; next < s->n && s->p[next]->score2 == score; next++) {
            if (!s->alive[next])
                continue;
            b.mem[b.m] = next;
            b.floater[b.m++] = false;
        }
    }
    b.next = next;
    bool last = true;
    for (int i = next; i < s->n; i++)
        last = last && !s->alive[i];
    if (b.m == 0)
        return last ? leaf(s) : solve(s, NULL, 0, next);
    if (last && (b.m & 1))
        return false; /* cannot happen: the oracle held */
    /* No target above the bracket's own maximum matching can be met. */
    int tmax = b.m / 2;
    if (!last && tmax > 0) {
        bool saved[MAXP];
        memcpy(saved, s->alive, sizeof saved);
        for (int i = 0; i < s->n; i++)
            s->alive[i] = false;
        for (int i = 0; i < b.m; i++)
            s->alive[b.mem[i]] = true;
        tmax = matching(s, false);
        memcpy(s->alive, saved, sizeof saved);
    }
    for (int t = tmax; t >= (last ? b.m / 2 : 0); t--) {
        memset(b.st, 0, sizeof b.st);
        s->budget = last ? -1 : PAIRING_SWISS_BUDGET;
        if (dfs(s, &b, 0, t))
            return true;
        if (s->stop)
            return false;
    }
    return false;
}

int pairing_swiss(const pairing_player *players, int n, const pairing_forbid *forbidden,
                  int n_forbidden, int rounds_left, pairing_result *out)
{
    if (!players || !out || n < 0 || n_forbidden < 0 || (n_forbidden > 0 && !forbidden) ||
        rounds_left < 0)
        return PAIRING_ERR_INVAL;
    if (n > PAIRING_MAX_PLAYERS)
        return PAIRING_ERR_RANGE;
    sw *s = &(sw){0};
    int rc = setup(s, players, n, forbidden, n_forbidden);
    if (rc)
        return rc;
    s->nx = &(sw){0};
    memset(out, 0, sizeof *out);
    s->budget = -1;
    s->bye = -1;
    if (s->n & 1) {
        for (int i = s->n - 1; i >= 0 && s->bye < 0; i--) {
            if (s->p[i]->had_bye || s->p[i]->had_forfeit_win)
                continue;
            s->alive[i] = false;
            if (perfect(s))
                s->bye = i;
            else
                s->alive[i] = true;
        }
        if (s->bye < 0)
            return PAIRING_ERR_NO_PAIRING;
        out->bye = s->p[s->bye]->number;
    } else if (!perfect(s)) {
        return PAIRING_ERR_NO_PAIRING;
    }
    s->lookahead = rounds_left > 0;
    s->look_budget = PAIRING_LOOKAHEAD_BUDGET;
    if (!solve(s, NULL, 0, 0)) {
        /* No pairing keeps the next round pairable (or the lookahead ran
         * out of budget): the first pairing found stands. */
        if (!s->have_fallback)
            return PAIRING_ERR_NO_PAIRING; /* cannot happen: the oracle held */
        memcpy(s->partner, s->fallback, sizeof s->partner);
    }
    /* Boards in rank order of the higher-ranked player (step 4). */
    for (int i = 0; i < s->n; i++) {
        int j = s->partner[i];
        if (j < i)
            continue;
        int board = out->n_pairs++;
        bool w = a_white(s, i, j, board);
        out->pairs[board].white = s->p[w ? i : j]->number;
        out->pairs[board].black = s->p[w ? j : i]->number;
    }
    return 0;
}

/* ---- Checking a pairing made elsewhere --------------------------------- */

static const pairing_player *by_number(const pairing_player *pl, int n, int number)
{
    for (int i = 0; i < n; i++)
        if (pl[i].number == number)
            return &pl[i];
    return NULL;
}

static bool met_before(const pairing_player *a, int b)
{
    for (int k = 0; k < a->n_met && k < PAIRING_MAX_ROUNDS; k++)
        if (a->met[k] == b)
            return true;
    return false;
}

int pairing_check(const pairing_player *players, int n, const pairing_forbid *forbidden,
                  int n_forbidden, const pairing_result *r, char *why, size_t why_len)
{
    char dummy[1];
    if (!why || why_len == 0) {
        why = dummy;
        why_len = sizeof dummy;
    }
    why[0] = '\0';
    if (!players || !r || n < 0 || n > PAIRING_MAX_PLAYERS || n_forbidden < 0 ||
        (n_forbidden > 0 && !forbidden) || r->n_pairs < 0 || r->n_pairs > PAIRING_MAX_PLAYERS / 2) {
        snprintf(why, why_len, "invalid argument");
        return PAIRING_ERR_INVAL;
    }
    /* times[i]: how often players[i] appears (in a pair or as the bye). */
    int times[PAIRING_MAX_PLAYERS] = {0};
    int active = 0;
    for (int i = 0; i < n; i++)
        active += !players[i].withdrawn;
    for (int k = 0; k <= r->n_pairs; k++) {
        int side[2] = {r->bye, 0};
        int nside = 1;
        if (k < r->n_pairs) {
            side[0] = r->pairs[k].white;
            side[1] = r->pairs[k].black;
            nside = 2;
        } else if (!r->bye) {
            break;
        }
        for (int j = 0; j < nside; j++) {
            const pairing_player *p = by_number(players, n, side[j]);
            if (!p || p->withdrawn) {
                snprintf(why, why_len, "player %d is %s", side[j],
                         p ? "withdrawn" : "not in the tournament");
                return PAIRING_ERR_INVAL;
            }
            if (++times[p - players] > 1) {
                snprintf(why, why_len, "player %d is paired twice", side[j]);
                return PAIRING_ERR_INVAL;
            }
        }
        if (nside == 1)
            continue;
        const pairing_player *a = by_number(players, n, side[0]);
        if (met_before(a, side[1])) {
            snprintf(why, why_len, "players %d and %d have met before", side[0], side[1]);
            return PAIRING_ERR_INVAL;
        }
        for (int f = 0; f < n_forbidden; f++)
            if ((forbidden[f].a == side[0] && forbidden[f].b == side[1]) ||
                (forbidden[f].a == side[1] && forbidden[f].b == side[0])) {
                snprintf(why, why_len, "players %d and %d are a forbidden pair", side[0],
                         side[1]);
                return PAIRING_ERR_INVAL;
            }
    }
    for (int i = 0; i < n; i++)
        if (!players[i].withdrawn && times[i] == 0) {
            snprintf(why, why_len, "player %d is not paired", players[i].number);
            return PAIRING_ERR_INVAL;
        }
    if (r->bye && !(active & 1)) {
        snprintf(why, why_len, "a bye (player %d) in an even field", r->bye);
        return PAIRING_ERR_INVAL;
    }
    if (r->bye) {
        const pairing_player *b = by_number(players, n, r->bye);
        if (b->had_bye || b->had_forfeit_win) {
            snprintf(why, why_len, "player %d already had %s", r->bye,
                     b->had_bye ? "a bye" : "a forfeit win");
            return PAIRING_ERR_INVAL;
        }
    }
    return 0;
}
