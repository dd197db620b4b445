/*
 * metrics: see metrics.h.
 */
#include "util/metrics.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void metrics_init(metrics *m)
{
    m->head = NULL;
    m->tail = &m->head;
}

void metrics_free(metrics *m)
{
    metric *x = m->head;
    while (x) {
        metric *next = x->next;
        free(x->counts);
        free(x);
        x = next;
    }
    metrics_init(m);
}

static metric *add(metrics *m, const char *name, const char *help, metric_kind k)
{
    metric *x = calloc(1, sizeof *x);
    if (!x)
        return NULL;
    x->name = name;
    x->help = help;
    x->kind = k;
    x->nvalues[0] = x->nvalues[1] = 1;
    *m->tail = x;
    m->tail = &x->next;
    return x;
}

metric *metrics_counter(metrics *m, const char *name, const char *help, const char *l1,
                        const char *const *v1, int n1, const char *l2, const char *const *v2,
                        int n2)
{
    metric *x = add(m, name, help, METRIC_COUNTER);
    if (!x)
        return NULL;
    if (l1) {
        x->label[0] = l1, x->values[0] = v1, x->nvalues[0] = n1;
        if (l2)
            x->label[1] = l2, x->values[1] = v2, x->nvalues[1] = n2;
    }
    x->counts = calloc((size_t)x->nvalues[0] * (size_t)x->nvalues[1], sizeof *x->counts);
    if (!x->counts)
        x->nvalues[0] = x->nvalues[1] = 0; /* counts nothing, renders nothing */
    return x;
}

metric *metrics_gauge(metrics *m, const char *name, const char *help, const char *l1,
                      const char *const *v1, int n1, double (*read)(void *arg, int i, int j),
                      void *arg)
{
    metric *x = add(m, name, help, METRIC_GAUGE);
    if (!x)
        return NULL;
    if (l1)
        x->label[0] = l1, x->values[0] = v1, x->nvalues[0] = n1;
    x->read = read;
    x->arg = arg;
    return x;
}

metric *metrics_histogram(metrics *m, const char *name, const char *help, const double *bounds,
                          int nbounds)
{
    metric *x = add(m, name, help, METRIC_HISTOGRAM);
    if (!x)
        return NULL;
    x->nbounds = nbounds < METRIC_MAX_BOUNDS ? nbounds : METRIC_MAX_BOUNDS;
    memcpy(x->bounds, bounds, (size_t)x->nbounds * sizeof *bounds);
    return x;
}

void metric_add(metric *c, int i, int j, uint64_t n)
{
    if (!c || !c->counts || i < 0 || j < 0 || i >= c->nvalues[0] || j >= c->nvalues[1])
        return;
    c->counts[(size_t)i * (size_t)c->nvalues[1] + (size_t)j] += n;
}

void metric_observe(metric *h, double v)
{
    if (!h)
        return;
    int b = 0;
    while (b < h->nbounds && v > h->bounds[b])
        b++;
    h->buckets[b]++;
    h->sum += v;
    h->total++;
}

int metrics_index(const char *const *values, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (strcmp(values[i], s) == 0)
            return i;
    return -1;
}

/* A growing text buffer; on allocation failure it stops growing and
 * remembers that it failed. */
typedef struct tbuf {
    char *s;
    size_t len, cap;
    int failed;
} tbuf;

static void put(tbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(tbuf *b, const char *fmt, ...)
{
    if (b->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->failed = 1;
            return;
        }
        if ((size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = b->cap * 2 + (size_t)n + 64;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->failed = 1;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
}

/* A label value with the exposition format's escapes (\\ \" \n). */
static void put_value(tbuf *b, const char *v)
{
    for (; *v; v++) {
        if (*v == '\\' || *v == '"')
            put(b, "\\%c", *v);
        else if (*v == '\n')
            put(b, "\\n");
        else
            put(b, "%c", *v);
    }
}

static void put_labels(tbuf *b, const metric *x, int i, int j)
{
    if (!x->label[0])
        return;
    put(b, "{%s=\"", x->label[0]);
    put_value(b, x->values[0][i]);
    put(b, "\"");
    if (x->label[1]) {
        put(b, ",%s=\"", x->label[1]);
        put_value(b, x->values[1][j]);
        put(b, "\"");
    }
    put(b, "}");
}

/* A float as Prometheus reads it (Go's ParseFloat: +Inf, NaN), in the
 * shortest digits that read back as the same double, as Go's client
 * writes them: a bucket's le="0.0005", not "0.00050000000000000001"
 * (the label value is the series' identity, so it should read as the
 * bound was written). */
static void put_float(tbuf *b, double v)
{
    if (isnan(v)) {
        put(b, "NaN");
    } else if (isinf(v)) {
        put(b, v > 0 ? "+Inf" : "-Inf");
    } else if (v == floor(v) && fabs(v) < 1e15) {
        put(b, "%.0f", v);
    } else {
        char s[32];
        for (int digits = 15; digits <= 17; digits++) {
            snprintf(s, sizeof s, "%.*g", digits, v);
            if (strtod(s, NULL) == v)
                break;
        }
        put(b, "%s", s);
    }
}

char *metrics_render(const metrics *m, size_t *len)
{
    tbuf b = {malloc(4096), 0, 4096, 0};
    if (!b.s)
        return NULL;
    b.s[0] = '\0';
    static const char *const kinds[] = {"counter", "gauge", "histogram"};
    for (const metric *x = m->head; x; x = x->next) {
        put(&b, "# HELP %s %s\n# TYPE %s %s\n", x->name, x->help, x->name, kinds[x->kind]);
        if (x->kind == METRIC_HISTOGRAM) {
            uint64_t cum = 0;
            for (int k = 0; k < x->nbounds; k++) {
                cum += x->buckets[k];
                put(&b, "%s_bucket{le=\"", x->name);
                put_float(&b, x->bounds[k]);
                put(&b, "\"} %llu\n", (unsigned long long)cum);
            }
            cum += x->buckets[x->nbounds];
            put(&b, "%s_bucket{le=\"+Inf\"} %llu\n%s_sum ", x->name, (unsigned long long)cum,
                x->name);
            put_float(&b, x->sum);
            put(&b, "\n%s_count %llu\n", x->name, (unsigned long long)x->total);
            continue;
        }
        for (int i = 0; i < x->nvalues[0]; i++)
            for (int j = 0; j < x->nvalues[1]; j++) {
                put(&b, "%s", x->name);
                put_labels(&b, x, i, j);
                put(&b, " ");
                if (x->kind == METRIC_COUNTER)
                    put(&b, "%llu", (unsigned long long)x->counts[(size_t)i * (size_t)x->nvalues[1] + (size_t)j]);
                else
                    put_float(&b, x->read ? x->read(x->arg, i, j) : 0);
                put(&b, "\n");
            }
    }
    if (b.failed) {
        free(b.s);
        return NULL;
    }
    *len = b.len;
    return b.s;
}
