/*
 * metrics: the server's figures for `GET /metrics` (docs/operations.md
 * "Monitoring"), in the Prometheus text exposition format 0.0.4
 * (prometheus.io/docs/instrumenting/exposition_formats).
 *
 * Design. A registry of a fixed set of metrics made once at start-up by
 * the wiring (srv.c), each handed to the layer that counts it; counting is
 * an array increment on the loop thread, no lock, no allocation, no
 * lookup by name. A metric has at most two labels whose values are fixed
 * at registration (the op names, the error codes, the transports), so a
 * series is an index. Gauges that other modules already know (open
 * connections, queue depths, the write-ahead log's size) are read by a
 * callback at scrape time instead of being kept twice. Counters only go
 * up; names follow the Prometheus conventions (`qirkat_` prefix, `_total`
 * for counters, base units: seconds, bytes).
 *
 * Every function runs on the loop thread.
 */
#ifndef QK_METRICS_H
#define QK_METRICS_H

#include <stddef.h>
#include <stdint.h>

typedef enum { METRIC_COUNTER, METRIC_GAUGE, METRIC_HISTOGRAM } metric_kind;

#define METRIC_MAX_BOUNDS 16 /* histogram buckets, +Inf not counted */

typedef struct metric {
    const char *name, *help;
    metric_kind kind;
    const char *label[2];            /* label names, NULL = none */
    const char *const *values[2];    /* their values */
    int nvalues[2];                  /* how many (1 when there is no label) */
    uint64_t *counts;                /* counter: nvalues[0] * nvalues[1] */
    /* gauge: the value of series (i, j) at scrape time */
    double (*read)(void *arg, int i, int j);
    void *arg;
    /* histogram (no labels): cumulative at render time */
    double bounds[METRIC_MAX_BOUNDS];
    int nbounds;
    uint64_t buckets[METRIC_MAX_BOUNDS + 1]; /* per bucket, the last one +Inf */
    double sum;
    uint64_t total;
    struct metric *next;
} metric;

typedef struct metrics {
    metric *head, **tail;
} metrics;

void metrics_init(metrics *m);
/* Free every metric of m. */
void metrics_free(metrics *m);

/* A counter with up to two labels (l1/l2 NULL for none; v1/v2 their n1/n2
 * values, borrowed: static strings). NULL on allocation failure (counting
 * on NULL is a no-op, so a server short of memory still runs). */
metric *metrics_counter(metrics *m, const char *name, const char *help, const char *l1,
                        const char *const *v1, int n1, const char *l2, const char *const *v2,
                        int n2);
/* A gauge read by read(arg, i, j) at scrape time, with up to two labels as
 * above. */
metric *metrics_gauge(metrics *m, const char *name, const char *help, const char *l1,
                      const char *const *v1, int n1, double (*read)(void *arg, int i, int j),
                      void *arg);
/* A histogram of observations with the nbounds upper bounds given
 * (ascending; at most METRIC_MAX_BOUNDS), and +Inf. */
metric *metrics_histogram(metrics *m, const char *name, const char *help, const double *bounds,
                          int nbounds);

/* Add n to series (i, j) of counter c (0, 0 without labels). Out of range
 * or NULL: nothing. */
void metric_add(metric *c, int i, int j, uint64_t n);
static inline void metric_inc(metric *c, int i, int j)
{
    metric_add(c, i, j, 1);
}
/* Record one observation v (seconds, bytes...) in histogram h. */
void metric_observe(metric *h, double v);

/* The exposition text of every metric of m, malloc'd (caller frees), its
 * length in *len. NULL on allocation failure. */
char *metrics_render(const metrics *m, size_t *len);

/* The index of s in the n strings of values, -1 when absent. */
int metrics_index(const char *const *values, int n, const char *s);

#endif
