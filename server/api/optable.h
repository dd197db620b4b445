/*
 * optable: the declarative op table: one row per op (its name, handler,
 * whether it needs a login, its fields, req.h). docs/protocol.md
 * documents every row.
 */
#ifndef QK_OPTABLE_H
#define QK_OPTABLE_H

#include <stddef.h>

#include "api/req.h"

/* The op called name, or NULL when there is none. */
const op_def *optable_find(const char *name);
/* The i-th row, or NULL past the end (docs and tests). */
const op_def *optable_op(size_t i);

#endif
