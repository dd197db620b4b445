/*
 * registry: a multimap from a 64-bit id to pointers, with intrusive nodes
 * the caller keeps so removal is O(1).
 *
 * The server uses one registry for "user id -> its connections", one for
 * "game id -> subscribed connections" and one for the cache of loaded
 * games. Chained hashing over a power-of-two bucket array that doubles
 * when the load passes 2; nodes are heap-allocated by reg_add() and freed
 * by reg_remove(). Iteration visits only nodes of the asked key, in no
 * particular order; removing the current node during iteration is allowed
 * if the next one was fetched first. Loop thread only.
 */
#ifndef QK_REGISTRY_H
#define QK_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

typedef struct reg_node {
    int64_t key;
    void *val;
    struct reg_node *next, *prev; /* bucket chain */
} reg_node;

typedef struct registry {
    reg_node **buckets;
    size_t nbuckets; /* power of two, or 0 before the first add */
    size_t count;
} registry;

/* An empty registry (no allocation until the first add). */
void reg_init(registry *r);
/* Free the buckets and every node still in the registry (not the vals). */
void reg_free(registry *r);

/* Add (key, val). Returns the node (owned by the registry; pass it to
 * reg_remove()), or NULL on allocation failure (registry unchanged). */
reg_node *reg_add(registry *r, int64_t key, void *val);
/* Unlink and free a node returned by reg_add(). */
void reg_remove(registry *r, reg_node *n);

/* First node with this key, or NULL; then reg_next() until NULL. */
reg_node *reg_first(const registry *r, int64_t key);
reg_node *reg_next(const reg_node *n);
/* The first node with key and val, or NULL. */
reg_node *reg_find(const registry *r, int64_t key, const void *val);

#endif
