/*
 * sqlite_bound: the SQLite side of store_bound.h (issue 9). The journal is
 * the -wal file: journal_size_limit cuts it back after each checkpoint
 * reset, and an idle TRUNCATE checkpoint empties it once no long reader
 * holds it. Pruning deletes through "id IN (SELECT ... LIMIT n)" so one
 * sweep's transaction stays short however much has piled up.
 */
#include "store/sqlite_int.h"
#include "store/store_bound.h"

#include <stdio.h>

#include "util/log.h"

int sq_journal_limit(store *base, int64_t bytes)
{
    sq_store *s = sq_of(base);
    char sql[64];
    /* PRAGMA takes no bound parameter; bytes is a number of ours. */
    snprintf(sql, sizeof sql, "PRAGMA journal_size_limit = %lld", (long long)bytes);
    char *err = NULL;
    int rc = sqlite3_exec(s->db, sql, NULL, NULL, &err);
    if (rc != SQLITE_OK) {
        log_error("sqlite journal_size_limit: %s", err ? err : sqlite3_errstr(rc));
        sqlite3_free(err);
        return STORE_EIO;
    }
    return STORE_OK;
}

int sq_checkpoint(store *base)
{
    sq_store *s = sq_of(base);
    int logged = 0, done = 0;
    int rc = sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, &logged, &done);
    if (rc == SQLITE_OK)
        return STORE_OK;
    if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED)
        return STORE_BUSY; /* a reader still needs the journal: next time */
    log_error("sqlite checkpoint: %s (%d): %s", sqlite3_errstr(rc), rc, sqlite3_errmsg(s->db));
    return STORE_EIO;
}

static int prune_one(sq_store *s, sq_stmt which, int64_t before, int64_t *rows)
{
    if (before <= 0)
        return STORE_OK;
    int rc = sq_bind(s, which, "ii", before, (int64_t)STORE_PRUNE_BATCH);
    if (rc || (rc = sq_run(s, which)))
        return rc;
    *rows += sqlite3_changes(s->db);
    return STORE_OK;
}

int sq_prune(store *base, const store_prune_spec *p, int64_t *rows)
{
    sq_store *s = sq_of(base);
    *rows = 0;
    int rc = prune_one(s, ST_PRUNE_NOTES, p->notes_read_before, rows);
    if (!rc)
        rc = prune_one(s, ST_PRUNE_CHALLENGES, p->challenges_closed_before, rows);
    if (!rc)
        rc = prune_one(s, ST_PRUNE_TOKENS, p->tokens_used_before, rows);
    return rc;
}

int sq_notes_drop_unread(store *base, int64_t user_id, const char *kind, int64_t game_id)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_NOTES_DROP_UNREAD, "iti", user_id, kind, game_id);
    return rc ? rc : sq_run(s, ST_NOTES_DROP_UNREAD);
}

int sq_notes_cap_sender(store *base, int64_t user_id, const char *kind, int64_t sender_id,
                        int64_t keep)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_NOTES_CAP_SENDER, "itii", user_id, kind, sender_id, keep);
    return rc ? rc : sq_run(s, ST_NOTES_CAP_SENDER);
}

int sq_notes_settle(store *base, int64_t user_id, const char *kind, int64_t ref_id, bool drop)
{
    sq_store *s = sq_of(base);
    sq_stmt which = drop ? ST_NOTES_WITHDRAW : ST_NOTES_MARK_REF;
    int rc = sq_bind(s, which, "iti", user_id, kind, ref_id);
    return rc ? rc : sq_run(s, which);
}

int sq_challenges_since(store *base, int64_t user_id, int64_t since, int64_t *n, int64_t *oldest)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_CHALLENGES_SINCE, "ii", user_id, since);
    if (rc || (rc = sq_one_row(s, ST_CHALLENGES_SINCE)))
        return rc;
    *n = sqlite3_column_int64(s->st[ST_CHALLENGES_SINCE], 0);
    *oldest = sqlite3_column_int64(s->st[ST_CHALLENGES_SINCE], 1);
    (void)sqlite3_reset(s->st[ST_CHALLENGES_SINCE]);
    return STORE_OK;
}

int sq_seeks_page(store *base, int64_t user_id, int64_t after, int64_t limit, store_challenge_cb cb,
                  void *arg)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_SEEKS_PAGE, "iii", user_id, after, limit);
    if (rc)
        return rc;
    sqlite3_stmt *st = s->st[ST_SEEKS_PAGE];
    store_challenge c;
    while (sq_next_row(s, ST_SEEKS_PAGE, &rc)) {
        sq_read_challenge(st, &c);
        int stop = cb(arg, &c);
        if (stop)
            return sq_stop(s, ST_SEEKS_PAGE, stop);
    }
    return rc;
}

int sq_draw_ply_get(store *base, int64_t game_id, const char *side, int64_t *ply)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_DRAW_PLY_GET, "it", game_id, side);
    if (rc || (rc = sq_one_row(s, ST_DRAW_PLY_GET)))
        return rc;
    *ply = sqlite3_column_int64(s->st[ST_DRAW_PLY_GET], 0);
    (void)sqlite3_reset(s->st[ST_DRAW_PLY_GET]);
    return STORE_OK;
}

int sq_draw_ply_put(store *base, int64_t game_id, const char *side, int64_t ply)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_DRAW_PLY_PUT, "iti", game_id, side, ply);
    return rc ? rc : sq_run(s, ST_DRAW_PLY_PUT);
}

int sq_game_damaged_get(store *base, int64_t game_id, bool *damaged)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_DAMAGED_GET, "i", game_id);
    if (rc || (rc = sq_one_row(s, ST_DAMAGED_GET)))
        return rc;
    *damaged = sqlite3_column_int(s->st[ST_DAMAGED_GET], 0) != 0;
    (void)sqlite3_reset(s->st[ST_DAMAGED_GET]);
    return STORE_OK;
}

int sq_game_damaged_set(store *base, int64_t game_id)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_DAMAGED_SET, "i", game_id);
    return rc ? rc : sq_run(s, ST_DAMAGED_SET);
}
