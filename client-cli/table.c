/*
 * table: see table.h. A growable array of strdup'ed cells.
 */
#include "table.h"
#include "i18n.h"


#include <stdlib.h>
#include <string.h>

static int add_row(table *t, const char *const *cells)
{
    if (t->nrows == t->cap) {
        int cap = t->cap ? t->cap * 2 : 8;
        char **nc = realloc(t->cells, (size_t)cap * (size_t)t->ncols * sizeof *nc);
        if (!nc)
            return -1;
        t->cells = nc;
        t->cap = cap;
    }
    char **row = t->cells + (size_t)t->nrows * (size_t)t->ncols;
    for (int i = 0; i < t->ncols; i++) {
        row[i] = strdup(cells[i] ? cells[i] : "-");
        if (!row[i]) {
            while (i-- > 0)
                free(row[i]);
            return -1;
        }
    }
    t->nrows++;
    return 0;
}

int table_init(table *t, int ncols, const char *const *heads)
{
    memset(t, 0, sizeof *t);
    if (ncols < 1 || ncols > TABLE_MAX_COLS)
        return -1;
    t->ncols = ncols;
    /* The heads are N_()-marked English: translated here, once. */
    const char *words[TABLE_MAX_COLS];
    for (int i = 0; i < ncols; i++)
        words[i] = heads[i] ? _(heads[i]) : NULL;
    return add_row(t, words);
}

/* Columns in characters, not bytes: a UTF-8 continuation byte
 * (10xxxxxx) adds none ("RÉSULTAT" is 8 wide, 9 bytes). */
static size_t text_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

int table_add(table *t, const char *const *cells)
{
    return add_row(t, cells);
}

void table_print(const table *t, FILE *out)
{
    size_t width[TABLE_MAX_COLS] = {0};
    for (int r = 0; r < t->nrows; r++)
        for (int c = 0; c < t->ncols; c++) {
            size_t w = text_width(t->cells[r * t->ncols + c]);
            if (w > width[c])
                width[c] = w;
        }
    for (int r = 0; r < t->nrows; r++) {
        for (int c = 0; c < t->ncols; c++) {
            const char *s = t->cells[r * t->ncols + c];
            if (c + 1 < t->ncols)
                fprintf(out, "%s%*s  ", s, (int)(width[c] - text_width(s)), "");
            else
                fprintf(out, "%s\n", s);
        }
    }
}

void table_free(table *t)
{
    for (int i = 0; i < t->nrows * t->ncols; i++)
        free(t->cells[i]);
    free(t->cells);
    memset(t, 0, sizeof *t);
}
