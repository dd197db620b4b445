/*
 * malloc-count: an LD_PRELOAD shim for a heap profile of qirkatd by block
 * size (docs/perf.md "Idle connection memory"). It counts the live blocks
 * of every requested size (a 16-byte header in front of each block keeps
 * the size) and, from a thread, rewrites $MSHIM_OUT every 50 ms while the
 * live total is the largest seen: the file ends as the peak's snapshot,
 * i.e. with every idle connection of the bench open. Sizes with at least
 * 500 live blocks are listed, and every block of 16 KiB or more (sizes
 * past 70,000 count as 70000). "in glibc chunks" is what the blocks would
 * take without the shim (request + 8, rounded up to 16, at least 32).
 * Alignments above 16 are refused (EINVAL): qirkatd asks for none.
 *
 *   gcc -O2 -Wall -Wextra -shared -fPIC -o /tmp/malloc-count.so tools/malloc-count.c -lpthread
 *   mkdir -p /tmp/mc && printf '#!/bin/sh\nMSHIM_OUT=/tmp/mc/heap.txt LD_PRELOAD=/tmp/malloc-count.so exec %s/build/qirkatd "$@"\n' \
 *       "$PWD" > /tmp/mc/qirkatd && chmod +x /tmp/mc/qirkatd
 *   QK_BIN=/tmp/mc BENCH_ONLY=idle build/bench-ratios; cat /tmp/mc/heap.txt
 *
 * (The ratio printed under the shim is higher: its headers are counted.)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

#define MAXS 70000
#define HDR 16

static _Atomic long live[MAXS + 1];
static _Atomic long live_bytes, live_chunks, live_n;

static void count(size_t n, int sign)
{
    size_t chunk = n + 8 < 32 ? 32 : (n + 8 + 15) & ~(size_t)15;
    live[n > MAXS ? MAXS : n] += sign;
    live_bytes += sign * (long)n;
    live_chunks += sign * (long)chunk;
    live_n += sign;
}

void *malloc(size_t n)
{
    char *p = __libc_malloc(n + HDR);
    if (!p)
        return NULL;
    *(size_t *)p = n;
    count(n, 1);
    return p + HDR;
}

void free(void *q)
{
    if (!q)
        return;
    char *p = (char *)q - HDR;
    count(*(size_t *)p, -1);
    __libc_free(p);
}

void *calloc(size_t a, size_t b)
{
    if (b && a > ((size_t)-1 - HDR) / b)
        return NULL;
    size_t n = a * b;
    char *p = __libc_calloc(1, n + HDR);
    if (!p)
        return NULL;
    *(size_t *)p = n;
    count(n, 1);
    return p + HDR;
}

void *realloc(void *q, size_t n)
{
    if (!q)
        return malloc(n);
    char *p = (char *)q - HDR;
    size_t old = *(size_t *)p;
    char *np = __libc_realloc(p, n + HDR);
    if (!np)
        return NULL;
    count(old, -1);
    *(size_t *)np = n;
    count(n, 1);
    return np + HDR;
}

int posix_memalign(void **out, size_t al, size_t n)
{
    if (al > HDR)
        return EINVAL;
    void *p = malloc(n);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

void *aligned_alloc(size_t al, size_t n)
{
    void *p;
    return posix_memalign(&p, al, n) ? NULL : p;
}

void *memalign(size_t al, size_t n)
{
    return aligned_alloc(al, n);
}

size_t malloc_usable_size(void *q)
{
    return q ? *(size_t *)((char *)q - HDR) : 0;
}

static void *dumper(void *arg)
{
    const char *out = arg;
    long best = 0;
    for (;;) {
        usleep(50000);
        long b = live_bytes;
        if (b <= best)
            continue;
        best = b;
        char tmp[512];
        snprintf(tmp, sizeof tmp, "%s.tmp", out);
        FILE *f = fopen(tmp, "w");
        if (!f)
            continue;
        fprintf(f, "live %ld blocks, %ld bytes requested, %ld in glibc chunks\n", (long)live_n, b,
                (long)live_chunks);
        for (int i = 0; i <= MAXS; i++)
            if (live[i] >= 500 || (i >= 16384 && live[i] > 0))
                fprintf(f, "size %d: %ld live\n", i, (long)live[i]);
        fclose(f);
        rename(tmp, out);
    }
    return NULL;
}

__attribute__((constructor)) static void init(void)
{
    char *out = getenv("MSHIM_OUT");
    if (!out)
        return;
    pthread_t t;
    if (pthread_create(&t, NULL, dumper, out) == 0)
        pthread_detach(t);
}
