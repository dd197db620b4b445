/*
 * store: the whole storage interface of qirkatd, one header per area;
 * include this one for all of them, or only the areas a module uses.
 *
 *   store_core.h        the store object and its results; open and close,
 *                       the iteration's transaction (group commit) and its
 *                       durability, the write-ahead log, bounded storage
 *                       (journal limit, checkpoint, prune)
 *   store_users.h       users and their session tokens
 *   store_challenges.h  challenges, open seeks, the lobby's pages
 *   store_games.h       games and moves, the games listing and search
 *   store_corr.h        correspondence play and notifications
 *   store_ratings.h     ratings
 *   store_tourney.h     classes and tournaments
 *   store_records.h     records: move clocks, imported games
 *   store_admin.h       administrators: the admin flag, bans, the audit,
 *                       password-reset codes
 *
 * Each area header declares its rows, its table of backend functions
 * (store_AREA_ops) and, on its static inline functions, the contracts;
 * the store object (store_core.h) holds one pointer per area table. A
 * backend implements every table (SQLite: store/sqlite/, one file per
 * area); the area headers include store_core.h and never one another, so
 * no area depends on another's rows.
 */
#ifndef QK_STORE_H
#define QK_STORE_H

#include "store/store_core.h"

#include "store/store_admin.h"
#include "store/store_challenges.h"
#include "store/store_corr.h"
#include "store/store_games.h"
#include "store/store_ratings.h"
#include "store/store_records.h"
#include "store/store_tourney.h"
#include "store/store_users.h"

#endif
