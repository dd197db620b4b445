/*
 * pg_areas: what each area file of the PostgreSQL backend exports, for
 * pg.c (store_pg_open()) to assemble the store: the area's table
 * of the store interface and its statements. An area file includes this
 * header only so that its definitions are checked against these
 * declarations; no area file calls another (they share pg_base.h only).
 */
#ifndef QK_STORE_PG_AREAS_H
#define QK_STORE_PG_AREAS_H

#include "store/pg/pg_base.h"
#include "store/store.h"

/* pg_core.c: transactions, durability, the WAL, bounded storage. */
extern const store_core_ops pg_core_ops;
extern const pg_area_stmts pg_core_stmts;
/* Queue the event channel's NOTIFY (pg.h store_pg_notify()). */
int pg_core_notify(pg_store *s, const char *payload);
/* pg_users.c */
extern const store_users_ops pg_users_ops;
extern const pg_area_stmts pg_users_stmts;
/* pg_challenges.c */
extern const store_challenges_ops pg_challenges_ops;
extern const pg_area_stmts pg_challenges_stmts;
/* pg_games.c */
extern const store_games_ops pg_games_ops;
extern const pg_area_stmts pg_games_stmts;
/* pg_corr.c */
extern const store_corr_ops pg_corr_ops;
extern const pg_area_stmts pg_corr_stmts;
/* pg_ratings.c */
extern const store_ratings_ops pg_ratings_ops;
extern const pg_area_stmts pg_ratings_stmts;
/* pg_tourney.c */
extern const store_tourney_ops pg_tourney_ops;
extern const pg_area_stmts pg_tourney_stmts;
/* pg_records.c */
extern const store_records_ops pg_records_ops;
extern const pg_area_stmts pg_records_stmts;
/* pg_admin.c */
extern const store_admin_ops pg_admin_ops;
extern const pg_area_stmts pg_admin_stmts;

#endif
