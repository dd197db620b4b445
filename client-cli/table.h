/*
 * table: plain-text tables for listings (`challenges`, `games`).
 *
 * Design. Rows are collected first and printed at the end, so every column
 * is as wide as its widest cell and nothing is truncated; columns are
 * separated by two blanks and the last one is not padded, so lines carry no
 * trailing blanks. Cells are copied (the JSON they came from may go away).
 */
#ifndef QC_TABLE_H
#define QC_TABLE_H

#include <stdio.h>

#define TABLE_MAX_COLS 12

typedef struct table {
    int ncols, nrows, cap;
    char **cells; /* nrows * ncols, row-major, heap strings */
} table;

/* Start a table whose header row is the ncols strings of heads
 * (ncols <= TABLE_MAX_COLS). Returns 0 or -1 on allocation failure. */
int table_init(table *t, int ncols, const char *const *heads);

/* Append a row of t->ncols cells (NULL cells print as "-"). Returns 0 or -1
 * on allocation failure (the table is unchanged). */
int table_add(table *t, const char *const *cells);

/* Print header and rows to out. */
void table_print(const table *t, FILE *out);

/* Free every cell; t may be initialised again. */
void table_free(table *t);

#endif
