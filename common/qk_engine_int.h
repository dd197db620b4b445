/*
 * qk_engine_int: private to qk_engine*.c and qk_solve.c, never installed.
 *
 * A variant "prepared" once per search: its family, piece values, a
 * point-square table and the line geometry the evaluation walks, so the hot
 * paths never compare variant names. The geometry repeats a little of the
 * rules' topology (RULES.md sections 2 and 7) for the evaluation's
 * pseudo-mobility only; legality always comes from qk_movegen().
 */
#ifndef QK_ENGINE_INT_H
#define QK_ENGINE_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "qk_rules.h"
#include "qk_solve.h"

typedef enum {
    QK_FAM_KAWU,      /* alquerque: any direction, capture compulsory */
    QK_FAM_TRAD,      /* alquerque-traditional: any direction, optional */
    QK_FAM_BRAINKING, /* forward/sideways men, memory, compulsory */
    QK_FAM_STOEP,     /* forward/sideways men, Sultans */
    QK_FAM_KONANE,    /* Alquerkonane */
} qk_family;

typedef struct qk_vinfo {
    const qk_variant *v;
    qk_family family;
    bool forward_men; /* men never step backward (sections 5, 6) */
    bool memory;      /* BrainKing no-return memory is part of the key */
    bool quiet_rule;  /* the 40-ply no-capture rule applies (sections 3, 4, 6) */
    int ranks, files, npoints;
    int man, sultan;            /* material values */
    uint64_t vkey;              /* variant component of every key */
    int16_t pst[QK_MAX_POINTS]; /* White's view; Black reads the mirror */
    /* Lines from each point: up to 8 neighbours, with the direction index
     * 0..7 (N, NE, E, SE, S, SW, W, NW; N = towards higher ranks). */
    uint8_t nadj[QK_MAX_POINTS];
    uint8_t adj[QK_MAX_POINTS][8];
    uint8_t adjdir[QK_MAX_POINTS][8];
} qk_vinfo;

/* Plies without a capture that end an Alquerque game (RULES.md 3, 4, 6). */
#define QK_QUIET_LIMIT 40

void qk_vinfo_prepare(qk_vinfo *vi, const qk_variant *v);
/* Side to move's view; see qk_engine_evaluate(). */
int qk_vinfo_eval(const qk_vinfo *vi, const qk_pos *p);
uint64_t qk_vinfo_key(const qk_vinfo *vi, const qk_pos *p);

/* splitmix64's finaliser (Steele, Lea, Flood 2014): a bijective 64-bit mix. */
static inline uint64_t qk_mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* 16-bit identity of a move (its path), for table and killer slots. Two
 * moves of one position that collide only cost move ordering. */
static inline uint16_t qk_move_id(const qk_move *m)
{
    uint32_t h = 2166136261u ^ m->len;
    for (int i = 0; i < m->len; i++)
        h = (h ^ m->path[i]) * 16777619u;
    h ^= h >> 16;
    return (uint16_t)(h | 1); /* 0 means "no move" */
}

/* Forced-result scores are stored relative to their own position and used
 * relative to the root: a win at distance d from a node at ply is d + ply
 * from the root (the usual mate-score treatment). Heuristic scores and the
 * +-QK_SCORE_INF sentinels pass unchanged. */
static inline int qk_score_to_node(int x, int ply)
{
    if (x >= QK_SCORE_INF || x <= -QK_SCORE_INF)
        return x;
    return x >= QK_SCORE_MATE ? x + ply : x <= -QK_SCORE_MATE ? x - ply : x;
}

static inline int qk_score_to_root(int x, int ply)
{
    if (x >= QK_SCORE_INF || x <= -QK_SCORE_INF)
        return x;
    return x >= QK_SCORE_MATE ? x - ply : x <= -QK_SCORE_MATE ? x + ply : x;
}

/* CLOCK_MONOTONIC deadlines. */
static inline struct timespec qk_deadline(uint32_t ms)
{
    struct timespec d;
    clock_gettime(CLOCK_MONOTONIC, &d);
    d.tv_sec += ms / 1000;
    d.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (d.tv_nsec >= 1000000000L) {
        d.tv_sec++;
        d.tv_nsec -= 1000000000L;
    }
    return d;
}

static inline bool qk_deadline_passed(const struct timespec *d)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec > d->tv_sec || (now.tv_sec == d->tv_sec && now.tv_nsec >= d->tv_nsec);
}

#endif
