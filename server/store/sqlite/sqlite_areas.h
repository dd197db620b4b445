/*
 * sqlite_areas: what each area file of the SQLite backend exports, for
 * sqlite.c (store_sqlite_open()) to assemble the store: the area's table
 * of the store interface and its statements. An area file includes this
 * header only so that its definitions are checked against these
 * declarations; no area file calls another (they share sq_base.h only).
 */
#ifndef QK_STORE_SQLITE_AREAS_H
#define QK_STORE_SQLITE_AREAS_H

#include "store/sqlite/sq_base.h"
#include "store/store.h"

/* sqlite_core.c: transactions, durability, the WAL, bounded storage. */
extern const store_core_ops sq_core_ops;
extern const sq_area_stmts sq_core_stmts;
/* sqlite_users.c */
extern const store_users_ops sq_users_ops;
extern const sq_area_stmts sq_users_stmts;
/* sqlite_challenges.c */
extern const store_challenges_ops sq_challenges_ops;
extern const sq_area_stmts sq_challenges_stmts;
/* sqlite_games.c */
extern const store_games_ops sq_games_ops;
extern const sq_area_stmts sq_games_stmts;
/* sqlite_corr.c */
extern const store_corr_ops sq_corr_ops;
extern const sq_area_stmts sq_corr_stmts;
/* sqlite_ratings.c */
extern const store_ratings_ops sq_ratings_ops;
extern const sq_area_stmts sq_ratings_stmts;
/* sqlite_tourney.c */
extern const store_tourney_ops sq_tourney_ops;
extern const sq_area_stmts sq_tourney_stmts;
/* sqlite_records.c */
extern const store_records_ops sq_records_ops;
extern const sq_area_stmts sq_records_stmts;
/* sqlite_admin.c */
extern const store_admin_ops sq_admin_ops;
extern const sq_area_stmts sq_admin_stmts;

#endif
