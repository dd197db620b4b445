/*
 * harness_int: what the harness's own files share and tests do not use.
 */
#ifndef QK_IT_HARNESS_INT_H
#define QK_IT_HARNESS_INT_H

#include <stdint.h>

#include "harness.h"

/* CLOCK_MONOTONIC milliseconds; milliseconds left until deadline (>= 0). */
int64_t h_now_ms(void);
int h_left_ms(int64_t deadline);
/* Record / forget a connection that h_teardown() must close. */
void h_own_conn(hconn *c);
void h_disown_conn(hconn *c);

#endif
