/*
 * sqlite_bots: the SQLite backend's rows of issue 15 (schema migration 5):
 * the challenge that made a game (games.challenge_id) and the open
 * challenges due to expire. Same pattern as sqlite_corr.c: bind, step,
 * read the promised columns, reset; a failing step is logged with the
 * statement's name (sq_fail) and returned as STORE_EIO.
 */
#include "store/sqlite_int.h"

int sq_game_challenge_put(store *base, int64_t game_id, int64_t challenge_id)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_GCH_PUT, "io", game_id, challenge_id);
    return rc ? rc : sq_run_one(s, ST_GCH_PUT);
}

int sq_game_challenge_get(store *base, int64_t game_id, int64_t *challenge_id)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_GCH_GET, "i", game_id);
    if (rc || (rc = sq_one_row(s, ST_GCH_GET)))
        return rc;
    sqlite3_stmt *st = s->st[ST_GCH_GET];
    *challenge_id = sqlite3_column_int64(st, 0);
    (void)sqlite3_reset(st);
    return STORE_OK;
}

int sq_challenges_expiring(store *base, int64_t direct_before, int64_t seek_before, int64_t *ids,
                           int max, int *n)
{
    sq_store *s = sq_of(base);
    *n = 0;
    int rc = sq_bind(s, ST_CH_EXPIRING, "iii", direct_before, seek_before, (int64_t)max);
    if (rc)
        return rc;
    sqlite3_stmt *st = s->st[ST_CH_EXPIRING];
    while (*n < max && (rc = sqlite3_step(st)) == SQLITE_ROW)
        ids[(*n)++] = sqlite3_column_int64(st, 0);
    (void)sqlite3_reset(st);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? STORE_OK : sq_fail(s, ST_CH_EXPIRING, rc);
}
