/*
 * registry: see registry.h. Keys are database ids (small, dense integers),
 * so a multiplicative hash spreads them well enough.
 */
#include "util/registry.h"

#include <stdlib.h>

static size_t slot(size_t nbuckets, int64_t key)
{
    uint64_t h = (uint64_t)key * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 32) & (nbuckets - 1);
}

void reg_init(registry *r)
{
    r->buckets = NULL;
    r->nbuckets = 0;
    r->count = 0;
}

void reg_free(registry *r)
{
    for (size_t i = 0; i < r->nbuckets; i++) {
        reg_node *n = r->buckets[i];
        while (n) {
            reg_node *next = n->next;
            free(n);
            n = next;
        }
    }
    free(r->buckets);
    reg_init(r);
}

static void link_node(reg_node **buckets, size_t nb, reg_node *n)
{
    reg_node **head = &buckets[slot(nb, n->key)];
    n->prev = NULL;
    n->next = *head;
    if (*head)
        (*head)->prev = n;
    *head = n;
}

/* Doubles the bucket array; on allocation failure keeps the old one, which
 * still works, only with longer chains. */
static void grow(registry *r)
{
    size_t nb = r->nbuckets ? r->nbuckets * 2 : 64;
    reg_node **b = calloc(nb, sizeof *b);
    if (!b)
        return;
    for (size_t i = 0; i < r->nbuckets; i++) {
        reg_node *n = r->buckets[i];
        while (n) {
            reg_node *next = n->next;
            link_node(b, nb, n);
            n = next;
        }
    }
    free(r->buckets);
    r->buckets = b;
    r->nbuckets = nb;
}

reg_node *reg_add(registry *r, int64_t key, void *val)
{
    if (r->nbuckets == 0 || r->count >= 2 * r->nbuckets)
        grow(r);
    if (r->nbuckets == 0)
        return NULL;
    reg_node *n = malloc(sizeof *n);
    if (!n)
        return NULL;
    n->key = key;
    n->val = val;
    link_node(r->buckets, r->nbuckets, n);
    r->count++;
    return n;
}

void reg_remove(registry *r, reg_node *n)
{
    if (n->prev)
        n->prev->next = n->next;
    else
        r->buckets[slot(r->nbuckets, n->key)] = n->next;
    if (n->next)
        n->next->prev = n->prev;
    r->count--;
    free(n);
}

static reg_node *match(reg_node *n, int64_t key)
{
    while (n && n->key != key)
        n = n->next;
    return n;
}

reg_node *reg_first(const registry *r, int64_t key)
{
    if (r->nbuckets == 0)
        return NULL;
    return match(r->buckets[slot(r->nbuckets, key)], key);
}

reg_node *reg_next(const reg_node *n)
{
    return match(n->next, n->key);
}

reg_node *reg_find(const registry *r, int64_t key, const void *val)
{
    for (reg_node *n = reg_first(r, key); n; n = reg_next(n))
        if (n->val == val)
            return n;
    return NULL;
}
