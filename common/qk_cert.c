/*
 * qk_cert: the certificate checker; see qk_cert.h. The certificate's
 * lines are kept in an open-addressing table keyed by the position's
 * first two fields (board and side); each entry holds the move text and
 * the walk's state of that position (unvisited, on the current line,
 * proven).
 */
#include <stdlib.h>
#include <string.h>

#include "qk_cert.h"

enum { UNSEEN = 0, ACTIVE, PROVEN };

typedef struct centry {
    char *key;  /* "board side", owned */
    char *move; /* owned */
    int state;
} centry;

typedef struct ctab {
    centry *e;
    size_t cap, n;
} ctab;

typedef struct vctx {
    const qk_variant *v;
    int winner; /* qk_side */
    ctab t;
    qk_cert_report *r;
    qk_move *stack; /* move lists, one slice per ply */
    size_t stack_cap, top;
} vctx;

static uint64_t fnv(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static centry *ctab_find(ctab *t, const char *key)
{
    if (!t->cap)
        return NULL;
    size_t h = (size_t)fnv(key) & (t->cap - 1);
    while (t->e[h].key) {
        if (strcmp(t->e[h].key, key) == 0)
            return &t->e[h];
        h = (h + 1) & (t->cap - 1);
    }
    return NULL;
}

/* Takes ownership of key and move. Returns 1 added, 0 duplicate, -1 OOM. */
static int ctab_add(ctab *t, char *key, char *move)
{
    if ((t->n + 1) * 2 > t->cap) {
        size_t ncap = t->cap ? t->cap * 2 : 1024;
        centry *ne = calloc(ncap, sizeof *ne);
        if (!ne)
            return -1;
        for (size_t i = 0; i < t->cap; i++)
            if (t->e[i].key) {
                size_t h = (size_t)fnv(t->e[i].key) & (ncap - 1);
                while (ne[h].key)
                    h = (h + 1) & (ncap - 1);
                ne[h] = t->e[i];
            }
        free(t->e);
        t->e = ne;
        t->cap = ncap;
    }
    if (ctab_find(t, key))
        return 0;
    size_t h = (size_t)fnv(key) & (t->cap - 1);
    while (t->e[h].key)
        h = (h + 1) & (t->cap - 1);
    t->e[h].key = key;
    t->e[h].move = move;
    t->e[h].state = UNSEEN;
    t->n++;
    return 1;
}

/* "board side" of p into buf, and the whole position string into full. */
static int pos_key(const qk_variant *v, const qk_pos *p, char *key, size_t n, char *full,
                   size_t fn)
{
    if (qk_pos_format(v, p, full, fn) < 0)
        return -1;
    const char *sp = strchr(full, ' ');
    size_t len = sp ? (size_t)(sp - full) + 2 : strlen(full);
    if (len >= n)
        return -1;
    memcpy(key, full, len);
    key[len] = '\0';
    return 0;
}

static const char *side_name(int s)
{
    return s == QK_WHITE ? "White" : "Black";
}

static int check_winner(vctx *c, qk_pos *p);

/* The loser to move at p: every legal move must lead to a proven
 * position, and a line ends only when the loser has no move. */
static int check_loser(vctx *c, qk_pos *p)
{
    qk_result res;
    char full[QK_POS_STRLEN];
    c->r->loser_positions++;
    if (qk_pos_status(c->v, p, &res, NULL)) {
        if (res == (c->winner == QK_WHITE ? QK_RESULT_WHITE : QK_RESULT_BLACK)) {
            c->r->loser_ends++;
            return QK_OK;
        }
        qk_pos_format(c->v, p, full, sizeof full);
        snprintf(c->r->error, sizeof c->r->error,
                 "position \"%s\": the game ends there without a win for %s", full,
                 side_name(c->winner));
        return QK_EILLEGAL;
    }
    if (c->stack_cap - c->top < QK_MAX_MOVES) {
        size_t ncap = c->stack_cap ? c->stack_cap * 2 : 64 * QK_MAX_MOVES;
        /* Moves live in one growing array; slices are indexed, not pointed to. */
        qk_move *ns = realloc(c->stack, ncap * sizeof *ns);
        if (!ns)
            return QK_ENOSPC;
        c->stack = ns;
        c->stack_cap = ncap;
    }
    size_t base = c->top;
    int n = qk_movegen(c->v, p, c->stack + base, QK_MAX_MOVES);
    if (n < 0)
        return QK_ENOSPC;
    c->top += (size_t)n;
    int rc = QK_OK;
    for (int i = 0; i < n && rc == QK_OK; i++) {
        qk_move m = c->stack[base + (size_t)i];
        qk_undo u;
        qk_pos_make(c->v, p, &m, &u);
        rc = check_winner(c, p);
        qk_pos_unmake(c->v, p, &m, &u);
    }
    c->top = base;
    return rc;
}

static int check_winner(vctx *c, qk_pos *p)
{
    char key[QK_POS_STRLEN], full[QK_POS_STRLEN];
    if (pos_key(c->v, p, key, sizeof key, full, sizeof full) < 0)
        return QK_ENOSPC;
    centry *e = ctab_find(&c->t, key);
    if (!e) {
        snprintf(c->r->error, sizeof c->r->error,
                 "position \"%s\" (%s to move) is not in the certificate", full,
                 side_name(c->winner));
        return QK_EILLEGAL;
    }
    if (e->state == PROVEN)
        return QK_OK;
    if (e->state == ACTIVE) {
        snprintf(c->r->error, sizeof c->r->error,
                 "position \"%s\" comes back on its own line: the loser's play does not end", full);
        return QK_EILLEGAL;
    }
    qk_move m;
    int rc = qk_move_parse(c->v, p, e->move, &m);
    if (rc != QK_OK) {
        snprintf(c->r->error, sizeof c->r->error,
                 "position \"%s\": the certificate's move %s is not legal there", full, e->move);
        return QK_EILLEGAL;
    }
    e->state = ACTIVE;
    qk_undo u;
    qk_pos_make(c->v, p, &m, &u);
    rc = check_loser(c, p);
    qk_pos_unmake(c->v, p, &m, &u);
    if (rc != QK_OK)
        return rc;
    /* e may have moved: the table never grows during the walk. */
    e->state = PROVEN;
    c->r->winner_positions++;
    return QK_OK;
}

static void ctab_free(ctab *t)
{
    for (size_t i = 0; i < t->cap; i++) {
        free(t->e[i].key);
        free(t->e[i].move);
    }
    free(t->e);
}

int qk_cert_verify(FILE *in, qk_cert_report *r)
{
    if (!r)
        return QK_EINVAL;
    memset(r, 0, sizeof *r);
    if (!in) {
        snprintf(r->error, sizeof r->error, "no input");
        return QK_EINVAL;
    }
    size_t cap = 2 * QK_POS_STRLEN + QK_MOVE_STRLEN + 8;
    char *line = malloc(cap);
    vctx c;
    memset(&c, 0, sizeof c);
    c.r = r;
    qk_variant v;
    qk_pos start;
    int rc = QK_OK;
    unsigned long lineno = 0;
    if (!line)
        return QK_ENOSPC;
    /* Header: "# qirkat-certificate 1 VARIANT WINNER POSITION" */
    char name[64] = "", win[16] = "";
    int off = 0;
    lineno++;
    if (!fgets(line, (int)cap, in) || sscanf(line, "# qirkat-certificate 1 %63s %15s %n", name, win, &off) != 2 ||
        off == 0) {
        snprintf(r->error, sizeof r->error,
                 "line 1: not a certificate header (# qirkat-certificate 1 VARIANT WINNER POSITION)");
        rc = QK_EINVAL;
        goto done;
    }
    line[strcspn(line, "\r\n")] = '\0';
    const char *why = NULL;
    if (qk_variant_parse(name, &v) != QK_OK) {
        snprintf(r->error, sizeof r->error, "line 1: unknown variant '%s'", name);
        rc = QK_EINVAL;
        goto done;
    }
    c.v = &v;
    snprintf(r->variant, sizeof r->variant, "%s", v.name);
    if (strcmp(win, "white") == 0)
        c.winner = QK_WHITE;
    else if (strcmp(win, "black") == 0)
        c.winner = QK_BLACK;
    else {
        snprintf(r->error, sizeof r->error, "line 1: the winner must be white or black, not '%s'",
                 win);
        rc = QK_EINVAL;
        goto done;
    }
    r->winner = c.winner == QK_WHITE ? QK_RESULT_WHITE : QK_RESULT_BLACK;
    if (qk_pos_parse(&v, line + off, &start, &why) != QK_OK) {
        snprintf(r->error, sizeof r->error, "line 1: bad position: %s", why ? why : "malformed");
        rc = QK_EINVAL;
        goto done;
    }
    snprintf(r->start, sizeof r->start, "%s", line + off);

    while (fgets(line, (int)cap, in)) {
        lineno++;
        size_t len = strcspn(line, "\r\n");
        if (line[len] == '\0' && !feof(in)) {
            snprintf(r->error, sizeof r->error, "line %lu: too long", lineno);
            rc = QK_EINVAL;
            goto done;
        }
        line[len] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        char *tab = strchr(line, '\t');
        if (!tab) {
            snprintf(r->error, sizeof r->error, "line %lu: expected POSITION<TAB>MOVE", lineno);
            rc = QK_EINVAL;
            goto done;
        }
        *tab = '\0';
        qk_pos p;
        if (qk_pos_parse(&v, line, &p, &why) != QK_OK) {
            snprintf(r->error, sizeof r->error, "line %lu: bad position \"%s\": %s", lineno, line,
                     why ? why : "malformed");
            rc = QK_EINVAL;
            goto done;
        }
        if (p.side != c.winner) {
            snprintf(r->error, sizeof r->error,
                     "line %lu: position \"%s\" has the loser to move (lines are the winner's)",
                     lineno, line);
            rc = QK_EINVAL;
            goto done;
        }
        char key[QK_POS_STRLEN], full[QK_POS_STRLEN];
        if (pos_key(&v, &p, key, sizeof key, full, sizeof full) < 0) {
            rc = QK_ENOSPC;
            goto done;
        }
        char *k = strdup(key), *m = strdup(tab + 1);
        int added = k && m ? ctab_add(&c.t, k, m) : -1;
        if (added <= 0) {
            free(k);
            free(m);
            if (added < 0) {
                rc = QK_ENOSPC;
                goto done;
            }
            snprintf(r->error, sizeof r->error, "line %lu: position \"%s\" is given twice", lineno,
                     line);
            rc = QK_EINVAL;
            goto done;
        }
        r->lines++;
    }
    if (ferror(in)) {
        snprintf(r->error, sizeof r->error, "read error");
        rc = QK_EINVAL;
        goto done;
    }
    rc = start.side == c.winner ? check_winner(&c, &start) : check_loser(&c, &start);
    if (rc == QK_ENOSPC && !r->error[0])
        snprintf(r->error, sizeof r->error, "out of memory");
    r->unused = r->lines - r->winner_positions;
done:
    free(c.stack);
    ctab_free(&c.t);
    free(line);
    return rc;
}
