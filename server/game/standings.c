/*
 * standings: points and tie-breaks (SB, BH, DE, WIN) of a round robin or
 * Swiss tournament; see standings.h for the rules implemented.
 *
 * The input is spread into a players x rounds table of cells (what each
 * player did in each round, against whom), which every tie-break reads.
 * Sorting is a stable insertion sort over player indices with an explicit
 * context (qsort has none, and no global may carry one); classroom
 * tournaments have tens of players, so O(n^2) is nothing.
 */
#include "game/standings.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const standings_tiebreak_names[STANDINGS_NTIEBREAKS] = {"SB", "BH", "DE", "WIN"};

typedef enum cell_kind {
    C_ABSENT = 0, /* no entry this round: not paired, not joined, withdrawn */
    C_PLAYED,     /* a game played over the board (or set by hand) */
    C_FORFEIT,    /* paired, not played; pts says who won */
    C_BYE,        /* pairing-allocated bye */
    C_HALF_BYE,
    C_ZERO_BYE,
    C_PENDING, /* paired, no result yet */
} cell_kind;

typedef struct cell {
    cell_kind kind;
    int opp; /* player index, or -1 */
    double pts;
} cell;

typedef struct pstat {
    double pts; /* final score */
    double adj; /* score as seen by opponents (Swiss art. 16.3) */
    double sb, bh, wins;
    double de_sum, de_max; /* scratch of the current DE group */
    double de_value;       /* reported DE */
    int de_key;            /* order inside its (points, SB, BH) group */
    unsigned stamp;        /* "already met" marker of the DE pass */
    bool in_group;
} pstat;

typedef struct ctx {
    standings_system sys;
    const standings_player *players;
    size_t np, nr;
    cell *cells; /* np * nr, cells[i * nr + r] */
    pstat *st;
    unsigned stamp_gen;
} ctx;

static cell *cell_at(const ctx *c, size_t i, size_t r)
{
    return &c->cells[i * c->nr + r];
}

/* ---- sorting ---- */

typedef int (*cmp_fn)(const ctx *c, int a, int b);

static void isort(const ctx *c, int *a, size_t n, cmp_fn cmp)
{
    for (size_t i = 1; i < n; i++) {
        int x = a[i];
        size_t j = i;
        for (; j > 0 && cmp(c, a[j - 1], x) > 0; j--)
            a[j] = a[j - 1];
        a[j] = x;
    }
}

static int cmp_dbl_desc(double x, double y)
{
    return x > y ? -1 : x < y ? 1 : 0;
}

static int cmp_id(const ctx *c, int a, int b)
{
    int x = c->players[a].id, y = c->players[b].id;
    return x < y ? -1 : x > y;
}

/* Points, SB, BH: the key that forms a DE group. */
static int cmp_pre_de(const ctx *c, int a, int b)
{
    const pstat *x = &c->st[a], *y = &c->st[b];
    int d = cmp_dbl_desc(x->pts, y->pts);
    if (!d)
        d = cmp_dbl_desc(x->sb, y->sb);
    if (!d)
        d = cmp_dbl_desc(x->bh, y->bh);
    return d;
}

/* Everything that decides the rank; 0 means a shared rank. */
static int cmp_rank(const ctx *c, int a, int b)
{
    int d = cmp_pre_de(c, a, b);
    if (!d)
        d = c->st[a].de_key < c->st[b].de_key ? -1 : c->st[a].de_key > c->st[b].de_key;
    if (!d)
        d = cmp_dbl_desc(c->st[a].wins, c->st[b].wins);
    return d;
}

static int cmp_full(const ctx *c, int a, int b)
{
    int d = cmp_rank(c, a, b);
    return d ? d : cmp_id(c, a, b);
}

static int cmp_de_sum(const ctx *c, int a, int b)
{
    int d = cmp_dbl_desc(c->st[a].de_sum, c->st[b].de_sum);
    return d ? d : cmp_id(c, a, b);
}

/* ---- input ---- */

/* Index of the player with this id, or -1; byid is sorted by id. */
static int find_player(const ctx *c, const int *byid, int id)
{
    size_t lo = 0, hi = c->np;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int m = c->players[byid[mid]].id;
        if (m == id)
            return byid[mid];
        if (m < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

static bool is_bye(standings_result r)
{
    return r == SR_BYE || r == SR_HALF_BYE || r == SR_ZERO_BYE;
}

/* Spread the rounds into the cell table. 0 or STANDINGS_EINVAL. */
static int fill_cells(ctx *c, const int *byid, const standings_round *rounds)
{
    for (size_t r = 0; r < c->nr; r++) {
        const standings_round *rd = &rounds[r];
        if (rd->n > 0 && !rd->pairings)
            return STANDINGS_EINVAL;
        for (size_t k = 0; k < rd->n; k++) {
            const standings_pairing *p = &rd->pairings[k];
            if ((unsigned)p->result > SR_PENDING)
                return STANDINGS_EINVAL;
            int w = find_player(c, byid, p->white);
            if (w < 0 || cell_at(c, (size_t)w, r)->kind != C_ABSENT)
                return STANDINGS_EINVAL;
            cell *cw = cell_at(c, (size_t)w, r);
            if (is_bye(p->result)) {
                if (p->black != 0)
                    return STANDINGS_EINVAL;
                cw->opp = -1;
                cw->kind = p->result == SR_BYE        ? C_BYE
                           : p->result == SR_HALF_BYE ? C_HALF_BYE
                                                      : C_ZERO_BYE;
                cw->pts = p->result == SR_BYE ? 1.0 : p->result == SR_HALF_BYE ? 0.5 : 0.0;
                continue;
            }
            int b = find_player(c, byid, p->black);
            if (b < 0 || b == w || cell_at(c, (size_t)b, r)->kind != C_ABSENT)
                return STANDINGS_EINVAL;
            cell *cb = cell_at(c, (size_t)b, r);
            cw->opp = b;
            cb->opp = w;
            double sw = 0, sb = 0;
            cell_kind kind = C_PLAYED;
            switch (p->result) {
            case SR_WHITE_WIN:
                sw = 1;
                break;
            case SR_BLACK_WIN:
                sb = 1;
                break;
            case SR_DRAW:
                sw = sb = 0.5;
                break;
            case SR_FORFEIT_WHITE:
                kind = C_FORFEIT;
                sw = 1;
                break;
            case SR_FORFEIT_BLACK:
                kind = C_FORFEIT;
                sb = 1;
                break;
            case SR_DOUBLE_FORFEIT:
                kind = C_FORFEIT;
                break;
            default: /* SR_PENDING (byes handled above) */
                kind = C_PENDING;
                break;
            }
            cw->kind = cb->kind = kind;
            cw->pts = sw;
            cb->pts = sb;
        }
    }
    return 0;
}

/* ---- tie-breaks ---- */

/* C.07 art. 16: a voluntarily unplayed round. */
static bool is_vur(const cell *x)
{
    return x->kind == C_ABSENT || x->kind == C_HALF_BYE || x->kind == C_ZERO_BYE ||
           (x->kind == C_FORFEIT && x->pts == 0);
}

/* Does this cell count as an encounter with x->opp (BH/SB with the real
 * opponent, DE)? Played games; in round robin forfeits too. */
static bool is_encounter(const ctx *c, const cell *x)
{
    return x->kind == C_PLAYED || (c->sys == STANDINGS_ROUND_ROBIN && x->kind == C_FORFEIT);
}

static void compute_scores(ctx *c)
{
    for (size_t i = 0; i < c->np; i++) {
        pstat *s = &c->st[i];
        size_t last_available = 0; /* 1-based round, 0 = none */
        s->pts = s->wins = 0;
        for (size_t r = 0; r < c->nr; r++) {
            const cell *x = cell_at(c, i, r);
            s->pts += x->pts;
            if (x->pts == 1.0)
                s->wins += 1;
            if (!is_vur(x))
                last_available = r + 1;
        }
        /* Art. 16.3: rounds with no opponent after the last available one
         * are valued as draws by the opponents (Swiss only). */
        s->adj = s->pts;
        if (c->sys == STANDINGS_SWISS)
            for (size_t r = last_available; r < c->nr; r++) {
                const cell *x = cell_at(c, i, r);
                if (x->opp < 0)
                    s->adj += 0.5 - x->pts;
            }
    }
    for (size_t i = 0; i < c->np; i++) {
        pstat *s = &c->st[i];
        s->sb = s->bh = 0;
        for (size_t r = 0; r < c->nr; r++) {
            const cell *x = cell_at(c, i, r);
            double opp;
            if (x->kind == C_PENDING)
                continue;
            if (c->sys == STANDINGS_ROUND_ROBIN) {
                if (!is_encounter(c, x))
                    continue; /* the free round: nothing */
                opp = c->st[x->opp].pts;
            } else if (x->kind == C_PLAYED) {
                opp = c->st[x->opp].adj;
            } else {
                opp = s->pts; /* art. 16.4: the dummy opponent */
            }
            s->bh += opp;
            s->sb += opp * x->pts;
        }
    }
}

/* Art. 6 on the group g[0..k-1] (indices tied on points, SB and BH):
 * sets de_key to first + position for separated players, first + the
 * start of their block for those still tied; top: record de_value. */
static void direct_encounter(ctx *c, int *g, size_t k, int first, bool top)
{
    if (k == 1) {
        c->st[g[0]].de_key = first;
        return;
    }
    for (size_t m = 0; m < k; m++)
        c->st[g[m]].in_group = true;
    bool all_met = true;
    for (size_t m = 0; m < k; m++) {
        pstat *s = &c->st[g[m]];
        unsigned gen = ++c->stamp_gen;
        size_t met = 0;
        s->de_sum = 0;
        for (size_t r = 0; r < c->nr; r++) {
            const cell *x = cell_at(c, (size_t)g[m], r);
            if (x->opp < 0 || !c->st[x->opp].in_group || !is_encounter(c, x))
                continue;
            s->de_sum += x->pts;
            if (c->st[x->opp].stamp != gen) {
                c->st[x->opp].stamp = gen;
                met++;
            }
        }
        /* Art. 6.2: each encounter not played could still be a win. */
        s->de_max = s->de_sum + (double)(k - 1 - met);
        if (met < k - 1)
            all_met = false;
        if (top)
            s->de_value = s->de_sum;
    }
    for (size_t m = 0; m < k; m++)
        c->st[g[m]].in_group = false;
    isort(c, g, k, cmp_de_sum);

    /* Blocks: all met, runs of equal sums; else leaders that no one
     * below can reach, then the rest as one block. */
    size_t pos = 0;
    while (pos < k) {
        size_t end;
        if (all_met) {
            end = pos + 1;
            while (end < k && c->st[g[end]].de_sum == c->st[g[pos]].de_sum)
                end++;
        } else {
            double reach = -1;
            for (size_t m = pos + 1; m < k; m++)
                if (c->st[g[m]].de_max > reach)
                    reach = c->st[g[m]].de_max;
            end = (pos + 1 == k || c->st[g[pos]].de_sum > reach) ? pos + 1 : k;
        }
        if (pos == 0 && end == k) { /* nothing separated: stays tied */
            for (size_t m = 0; m < k; m++)
                c->st[g[m]].de_key = first;
            return;
        }
        direct_encounter(c, g + pos, end - pos, first + (int)pos, false);
        pos = end;
    }
}

/* ---- public ---- */

int standings_compute(standings_system sys, const standings_player *players, size_t np,
                      const standings_round *rounds, size_t nr, standings_row *out)
{
    if ((sys != STANDINGS_ROUND_ROBIN && sys != STANDINGS_SWISS) ||
        (np > 0 && (!players || !out)) || (nr > 0 && !rounds) || np > (size_t)INT_MAX / 2)
        return STANDINGS_EINVAL;
    if (np == 0)
        return 0;
    if (nr > 0 && np > SIZE_MAX / sizeof(cell) / nr)
        return STANDINGS_ENOMEM;

    int rc = STANDINGS_ENOMEM;
    ctx c = {sys, players, np, nr, NULL, NULL, 0};
    int *byid = malloc(np * sizeof *byid);
    if (!byid)
        goto fail;
    int *order = malloc(np * sizeof *order);
    if (!order)
        goto free_byid;
    c.st = calloc(np, sizeof *c.st);
    if (!c.st)
        goto free_order;
    c.cells = calloc(nr ? np * nr : 1, sizeof *c.cells);
    if (!c.cells)
        goto free_st;
    for (size_t i = 0; i < np * nr; i++)
        c.cells[i] = (cell){C_ABSENT, -1, 0};

    rc = STANDINGS_EINVAL;
    for (size_t i = 0; i < np; i++) {
        if (players[i].id <= 0)
            goto free_cells;
        byid[i] = (int)i;
    }
    isort(&c, byid, np, cmp_id);
    for (size_t i = 1; i < np; i++)
        if (players[byid[i]].id == players[byid[i - 1]].id)
            goto free_cells;
    rc = fill_cells(&c, byid, rounds);
    if (rc)
        goto free_cells;

    compute_scores(&c);

    /* Groups tied on points, SB and BH go through direct encounter. */
    memcpy(order, byid, np * sizeof *order);
    isort(&c, order, np, cmp_pre_de);
    for (size_t a = 0; a < np;) {
        size_t b = a + 1;
        while (b < np && cmp_pre_de(&c, order[a], order[b]) == 0)
            b++;
        direct_encounter(&c, order + a, b - a, 0, true);
        a = b;
    }

    isort(&c, order, np, cmp_full);
    for (size_t k = 0; k < np; k++) {
        const pstat *s = &c.st[order[k]];
        standings_row *row = &out[k];
        row->id = players[order[k]].id;
        row->rank =
            (k > 0 && cmp_rank(&c, order[k - 1], order[k]) == 0) ? out[k - 1].rank : (int)k + 1;
        row->points = s->pts;
        row->tiebreak[ST_TB_SB] = s->sb;
        row->tiebreak[ST_TB_BH] = s->bh;
        row->tiebreak[ST_TB_DE] = s->de_value;
        row->tiebreak[ST_TB_WIN] = s->wins;
    }
    rc = 0;

free_cells:
    free(c.cells);
free_st:
    free(c.st);
free_order:
    free(order);
free_byid:
    free(byid);
fail:
    return rc;
}

/* ---- CSV ---- */

/* Appends to buf while there is room; len counts everything. */
typedef struct sink {
    char *buf;
    size_t cap, len;
} sink;

static void put(sink *s, const char *p, size_t n)
{
    if (s->len < s->cap) {
        size_t room = s->cap - s->len;
        memcpy(s->buf + s->len, p, n < room ? n : room);
    }
    s->len += n;
}

static void put_str(sink *s, const char *p)
{
    put(s, p, strlen(p));
}

/* Multiples of 1/4 printed shortest: 3, 2.5, 6.25. */
static void put_num(sink *s, double v)
{
    char tmp[64];
    int n = snprintf(tmp, sizeof tmp, "%.2f", v);
    if (n < 0 || (size_t)n >= sizeof tmp) {
        put_str(s, "0");
        return;
    }
    while (n > 0 && tmp[n - 1] == '0')
        n--;
    if (n > 0 && tmp[n - 1] == '.')
        n--;
    put(s, tmp, (size_t)n);
}

static void put_field(sink *s, const char *f)
{
    if (!f)
        return;
    bool formula = f[0] == '=' || f[0] == '+' || f[0] == '-' || f[0] == '@' || f[0] == '\t';
    bool quote = formula || strpbrk(f, ",\"\r\n") != NULL;
    if (!quote) {
        put_str(s, f);
        return;
    }
    put_str(s, formula ? "\"'" : "\"");
    for (const char *p = f; *p; p++) {
        put(s, p, 1);
        if (*p == '"')
            put(s, p, 1); /* a quote inside is doubled */
    }
    put_str(s, "\"");
}

static const char *username_of(const standings_player *players, size_t np, int id)
{
    for (size_t i = 0; i < np; i++)
        if (players[i].id == id)
            return players[i].username;
    return NULL;
}

int standings_csv(const standings_row *rows, size_t n, const standings_player *players, size_t np,
                  char *buf, size_t cap, size_t *len)
{
    if ((n > 0 && !rows) || (np > 0 && !players) || (cap > 0 && !buf))
        return STANDINGS_EINVAL;
    /* Keep one byte for the NUL: the sink writes at most cap - 1. */
    sink s = {buf, cap ? cap - 1 : 0, 0};
    put_str(&s, "rank,username,points");
    for (int t = 0; t < STANDINGS_NTIEBREAKS; t++) {
        put_str(&s, ",");
        put_str(&s, standings_tiebreak_names[t]);
    }
    put_str(&s, "\r\n");
    for (size_t k = 0; k < n; k++) {
        char rank[24];
        snprintf(rank, sizeof rank, "%d,", rows[k].rank);
        put_str(&s, rank);
        put_field(&s, username_of(players, np, rows[k].id));
        put_str(&s, ",");
        put_num(&s, rows[k].points);
        for (int t = 0; t < STANDINGS_NTIEBREAKS; t++) {
            put_str(&s, ",");
            put_num(&s, rows[k].tiebreak[t]);
        }
        put_str(&s, "\r\n");
    }
    if (cap > 0)
        buf[s.len < s.cap ? s.len : s.cap] = '\0';
    if (len)
        *len = s.len;
    return s.len < cap ? 0 : STANDINGS_ENOSPC;
}

int standings_csv_alloc(const standings_row *rows, size_t n, const standings_player *players,
                        size_t np, char **out, size_t *len)
{
    *out = NULL;
    size_t need;
    int rc = standings_csv(rows, n, players, np, NULL, 0, &need);
    if (rc != 0 && rc != STANDINGS_ENOSPC)
        return rc;
    char *buf = malloc(need + 1);
    if (!buf)
        return STANDINGS_ENOMEM;
    rc = standings_csv(rows, n, players, np, buf, need + 1, len);
    if (rc != 0) {
        free(buf);
        return rc;
    }
    *out = buf;
    return 0;
}
