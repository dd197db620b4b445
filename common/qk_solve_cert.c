/*
 * qk_solve_cert: proof certificates of solved Alquerkonane positions
 * (qk_solve.h; the format is docs/solved.md's).
 *
 * A certificate is the winner's strategy restricted to the positions it
 * reaches: a depth-first walk from the start in which the winner plays one
 * winning move and the loser every legal move, writing one line per
 * position with the winner to move, each once (a set of the positions
 * written, on their exact bit boards, so transpositions share a line).
 *
 * Which winning move: a move that leaves the loser no reply, else, among
 * the moves the table already proves winning, the one that leaves the
 * loser fewest replies (so the proof branches least), else the table's
 * move for this position, else the position is searched again (winner
 * only) and its move taken. The choice is checked each time: a move is
 * played only when its child is proven lost for the loser, so the walk
 * never writes a line the verifier would refuse, whatever the table lost
 * to replacement.
 */
#include <stdlib.h>
#include <string.h>

#include "qk_solve_int.h"

typedef struct pset {
    uint64_t (*slot)[2]; /* white, black; {0, 0} empty */
    size_t cap, n;
} pset;

static size_t pset_hash(uint64_t w, uint64_t b, size_t cap)
{
    return (size_t)(qk_mix64(w ^ qk_mix64(b)) & (cap - 1));
}

/* 1: added, 0: already there, -1: out of memory. */
static int pset_add(pset *s, uint64_t w, uint64_t b)
{
    if ((s->n + 1) * 2 > s->cap) {
        size_t ncap = s->cap ? s->cap * 2 : 1024;
        uint64_t(*ns)[2] = calloc(ncap, sizeof *ns);
        if (!ns)
            return -1;
        for (size_t i = 0; i < s->cap; i++)
            if (s->slot[i][0] | s->slot[i][1]) {
                size_t h = pset_hash(s->slot[i][0], s->slot[i][1], ncap);
                while (ns[h][0] | ns[h][1])
                    h = (h + 1) & (ncap - 1);
                ns[h][0] = s->slot[i][0];
                ns[h][1] = s->slot[i][1];
            }
        free(s->slot);
        s->slot = ns;
        s->cap = ncap;
    }
    size_t h = pset_hash(w, b, s->cap);
    while (s->slot[h][0] | s->slot[h][1]) {
        if (s->slot[h][0] == w && s->slot[h][1] == b)
            return 0;
        h = (h + 1) & (s->cap - 1);
    }
    s->slot[h][0] = w;
    s->slot[h][1] = b;
    s->n++;
    return 1;
}

typedef struct walk {
    qk_solver *s;
    const qk_variant *v;
    qk_bbgeo g;
    const qk_solve_limits *lim;
    FILE *out;
    pset seen;
    qk_cert_stats *st;
    int rc;
} walk;

/* Whether the side to move in p is proven lost, searching when the table
 * does not know. */
static bool lost(walk *w, const qk_bbpos *p)
{
    qk_bbmove mv[QK_BB_MAXMOVES];
    if (qk_bb_gen(&w->g, p, mv) == 0)
        return true;
    qk_tt_hit h;
    if (qk_bb_probe(&w->g, w->s, p, &h))
        return h.hi < 0;
    return false;
}

/* Search p (winner only) from scratch; its result and best move. */
static int research(walk *w, const qk_bbpos *p, bool *wins, qk_bbmove *best)
{
    atomic_int halt = 0;
    qk_sctl c;
    memset(&c, 0, sizeof c);
    c.s = w->s;
    c.halt = &halt;
    if (w->lim) {
        c.stop = w->lim->stop;
        c.node_limit = w->lim->nodes;
        if (w->lim->time_ms) {
            c.deadline = qk_deadline(w->lim->time_ms);
            c.timed = true;
        }
    }
    qk_bbsearch t = {.c = &c, .g = &w->g};
    int sc = qk_bb_search(&t, p, -1, 1, 0);
    w->st->searches++;
    if (c.aborted || !t.root_has)
        return QK_ENOSPC;
    *wins = sc > 0;
    *best = t.root_best;
    return QK_OK;
}

static int winner_node(walk *w, const qk_bbpos *p);

/* The loser to move in p: every reply leads to a winner's position. */
static int loser_node(walk *w, const qk_bbpos *p)
{
    qk_bbmove mv[QK_BB_MAXMOVES];
    int n = qk_bb_gen(&w->g, p, mv);
    w->st->loser++;
    for (int i = 0; i < n; i++) {
        qk_bbpos c = *p;
        qk_bb_make(&c, mv[i]);
        int rc = winner_node(w, &c);
        if (rc != QK_OK)
            return rc;
    }
    return QK_OK;
}

static int write_line(walk *w, const qk_bbpos *p, qk_bbmove m)
{
    qk_pos pos;
    qk_bb_to_pos(&w->g, p, &pos);
    qk_move mm;
    qk_bb_to_move(m, &mm);
    char fen[QK_POS_STRLEN], text[QK_MOVE_STRLEN];
    if (qk_pos_format(w->v, &pos, fen, sizeof fen) < 0 ||
        qk_move_format(w->v, &mm, text, sizeof text) < 0)
        return QK_EINVAL;
    int len = fprintf(w->out, "%s\t%s\n", fen, text);
    if (len < 0)
        return QK_EINVAL;
    w->st->lines++;
    w->st->bytes += (uint64_t)len;
    return QK_OK;
}

static int winner_node(walk *w, const qk_bbpos *p)
{
    int added = pset_add(&w->seen, p->c[0], p->c[1]);
    if (added < 0)
        return QK_ENOMEM;
    if (added == 0)
        return QK_OK; /* written already (a transposition) */
    qk_bbmove mv[QK_BB_MAXMOVES];
    int n = qk_bb_gen(&w->g, p, mv);
    int reply[QK_BB_MAXMOVES];
    qk_bbpos ch[QK_BB_MAXMOVES];
    int pick = -1;
    for (int i = 0; i < n; i++) {
        ch[i] = *p;
        qk_bb_make(&ch[i], mv[i]);
        reply[i] = qk_bb_count(&w->g, &ch[i], ch[i].side);
        if (reply[i] == 0) {
            pick = i;
            break;
        }
    }
    if (pick < 0) {
        /* Proven-winning moves, fewest replies first. */
        for (int i = 0; i < n; i++)
            if ((pick < 0 || reply[i] < reply[pick]) && lost(w, &ch[i]))
                pick = i;
    }
    if (pick < 0) {
        bool wins = false;
        qk_bbmove best = 0;
        int rc = research(w, p, &wins, &best);
        if (rc != QK_OK)
            return rc;
        if (!wins)
            return QK_EILLEGAL; /* cannot happen with a sound table */
        for (int i = 0; i < n; i++)
            if (mv[i] == best)
                pick = i;
        if (pick < 0 || !lost(w, &ch[pick]))
            return QK_EILLEGAL;
    }
    int rc = write_line(w, p, mv[pick]);
    if (rc != QK_OK)
        return rc;
    return loser_node(w, &ch[pick]);
}

int qk_solve_certificate(qk_solver *s, const qk_variant *v, const qk_pos *p,
                         const qk_solve_limits *lim, FILE *out, qk_cert_stats *st)
{
    qk_cert_stats dummy;
    if (!st)
        st = &dummy;
    memset(st, 0, sizeof *st);
    if (!s || !s->table || !v || !p || !out || !qk_bb_supported(v))
        return QK_EINVAL;
    walk w;
    memset(&w, 0, sizeof w);
    w.s = s;
    w.v = v;
    w.lim = lim;
    w.out = out;
    w.st = st;
    qk_bb_geo(v, &w.g);
    qk_bbpos b;
    qk_bb_from_pos(&w.g, p, &b);
    /* Who wins: over already (the mover has no move: a certificate of
     * the header alone), the table, else a search. */
    bool mover_wins;
    qk_tt_hit h;
    qk_bbmove none[QK_BB_MAXMOVES];
    if (qk_bb_gen(&w.g, &b, none) == 0) {
        mover_wins = false;
    } else if (qk_bb_probe(&w.g, s, &b, &h) && (h.lo > 0 || h.hi < 0)) {
        mover_wins = h.lo > 0;
    } else {
        qk_bbmove best;
        int rc = research(&w, &b, &mover_wins, &best);
        if (rc != QK_OK)
            return rc;
    }
    int winner = mover_wins ? b.side : !b.side;
    qk_pos start = *p;
    start.quiet = 0;
    char fen[QK_POS_STRLEN];
    if (qk_pos_format(v, &start, fen, sizeof fen) < 0)
        return QK_EINVAL;
    int len = fprintf(out, "# qirkat-certificate 1 %s %s %s\n", v->name,
                      winner == QK_WHITE ? "white" : "black", fen);
    if (len < 0)
        return QK_EINVAL;
    st->bytes = (uint64_t)len;
    int rc = mover_wins ? winner_node(&w, &b) : loser_node(&w, &b);
    free(w.seen.slot);
    if (rc == QK_OK && fflush(out) != 0)
        rc = QK_EINVAL;
    return rc;
}
