/*
 * sqlite_corr: the SQLite backend's rows of correspondence play (a game's
 * extra columns, deadline wake-ups and extensions, server state,
 * vacations, challenge options, notifications; store.h contracts; schema
 * migration 2). Same pattern as sqlite_rows.c: bind, step, read the
 * promised columns, reset; a failing step is logged with the statement's
 * name (sq_fail) and returned as STORE_EIO.
 */
#include "store/sqlite_int.h"

#include <stdio.h>
#include <string.h>

int sq_game_x_get(store *base, int64_t id, store_game_x *out)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_GX_GET, "i", id);
    if (rc || (rc = sq_one_row(s, ST_GX_GET)))
        return rc;
    sqlite3_stmt *st = s->st[ST_GX_GET];
    out->extended_ms = sqlite3_column_int64(st, 0);
    out->vacation = sqlite3_column_int(st, 1) != 0;
    out->priv = sqlite3_column_int(st, 2) != 0;
    sq_col_text(st, 3, out->draw_offer, sizeof out->draw_offer);
    out->warned_deadline = sqlite3_column_int64(st, 4);
    out->wake_at = sqlite3_column_int64(st, 5);
    (void)sqlite3_reset(st);
    return STORE_OK;
}

int sq_game_x_put(store *base, int64_t id, const store_game_x *x)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_GX_PUT, "iiiiTOO", id, x->extended_ms, (int64_t)x->vacation,
                     (int64_t)x->priv, x->draw_offer, x->warned_deadline, x->wake_at);
    return rc ? rc : sq_run_one(s, ST_GX_PUT);
}

int sq_wake_next(store *base, int64_t *at)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_WAKE_NEXT, "");
    if (rc || (rc = sq_one_row(s, ST_WAKE_NEXT)))
        return rc;
    sqlite3_stmt *st = s->st[ST_WAKE_NEXT];
    rc = sqlite3_column_type(st, 0) == SQLITE_NULL ? STORE_NOTFOUND : STORE_OK;
    *at = sqlite3_column_int64(st, 0);
    (void)sqlite3_reset(st);
    return rc;
}

int sq_wake_due(store *base, int64_t now, int64_t *ids, int max, int *n)
{
    sq_store *s = sq_of(base);
    *n = 0;
    int rc = sq_bind(s, ST_WAKE_DUE, "ii", now, (int64_t)max);
    if (rc)
        return rc;
    sqlite3_stmt *st = s->st[ST_WAKE_DUE];
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < max)
        ids[(*n)++] = sqlite3_column_int64(st, 0);
    (void)sqlite3_reset(st);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? STORE_OK : sq_fail(s, ST_WAKE_DUE, rc);
}

int sq_extend_downtime(store *base, int64_t ms, int64_t now, int64_t *games)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_DOWNTIME_LOG, "ii", ms, now);
    if (rc || (rc = sq_run(s, ST_DOWNTIME_LOG)))
        return rc;
    if ((rc = sq_bind(s, ST_DOWNTIME_MOVE, "i", ms)) || (rc = sq_run(s, ST_DOWNTIME_MOVE)))
        return rc;
    *games = sqlite3_changes(s->db);
    return STORE_OK;
}

int sq_extension_insert(store *base, int64_t game, const char *kind, int64_t ms, int64_t now)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_EXT_INSERT, "itii", game, kind, ms, now);
    return rc ? rc : sq_run(s, ST_EXT_INSERT);
}

int sq_extensions_each(store *base, int64_t game,
                       int (*cb)(void *arg, const char *kind, int64_t ms, int64_t created),
                       void *arg)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_EXT_OF, "i", game);
    if (rc)
        return rc;
    sqlite3_stmt *st = s->st[ST_EXT_OF];
    char kind[16];
    while (sq_next_row(s, ST_EXT_OF, &rc)) {
        sq_col_text(st, 0, kind, sizeof kind);
        int stop = cb(arg, kind, sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2));
        if (stop)
            return sq_stop(s, ST_EXT_OF, stop);
    }
    return rc;
}

int sq_state_get(store *base, const char *key, int64_t *value)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_STATE_GET, "t", key);
    if (rc || (rc = sq_one_row(s, ST_STATE_GET)))
        return rc;
    *value = sqlite3_column_int64(s->st[ST_STATE_GET], 0);
    (void)sqlite3_reset(s->st[ST_STATE_GET]);
    return STORE_OK;
}

int sq_state_set(store *base, const char *key, int64_t value)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_STATE_SET, "ti", key, value);
    return rc ? rc : sq_run(s, ST_STATE_SET);
}

int sq_vacation_get(store *base, int64_t user_id, store_vacation *out)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_VAC_GET, "i", user_id);
    if (rc || (rc = sq_one_row(s, ST_VAC_GET)))
        return rc;
    sqlite3_stmt *st = s->st[ST_VAC_GET];
    out->left_h = sqlite3_column_int64(st, 0);
    out->year = sqlite3_column_int64(st, 1);
    out->start = sqlite3_column_int64(st, 2);
    out->until = sqlite3_column_int64(st, 3);
    (void)sqlite3_reset(st);
    return STORE_OK;
}

int sq_vacation_put(store *base, int64_t user_id, const store_vacation *v)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_VAC_PUT, "iiiOO", user_id, v->left_h, v->year, v->start, v->until);
    return rc ? rc : sq_run(s, ST_VAC_PUT);
}

int sq_challenge_x_put(store *base, int64_t id, bool vacation, bool priv)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_CX_PUT, "iii", id, (int64_t)vacation, (int64_t)priv);
    return rc ? rc : sq_run(s, ST_CX_PUT);
}

int sq_challenge_x_get(store *base, int64_t id, bool *vacation, bool *priv)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_CX_GET, "i", id);
    if (rc || (rc = sq_one_row(s, ST_CX_GET)))
        return rc;
    *vacation = sqlite3_column_int(s->st[ST_CX_GET], 0) != 0;
    *priv = sqlite3_column_int(s->st[ST_CX_GET], 1) != 0;
    (void)sqlite3_reset(s->st[ST_CX_GET]);
    return STORE_OK;
}

int sq_note_insert(store *base, store_note *n)
{
    sq_store *s = sq_of(base);
    int rc =
        sq_bind(s, ST_NOTE_INSERT, "itotioo", n->user_id, n->kind, n->game_id, n->data, n->created,
                n->sender_id, n->ref_id);
    if (rc || (rc = sq_run(s, ST_NOTE_INSERT)))
        return rc;
    n->id = sqlite3_last_insert_rowid(s->db);
    n->read = false;
    return STORE_OK;
}

/* Rows of NOTES_UNREAD / NOTES_READ to cb; *rows counts them. */
static int notes_run(sq_store *s, sq_stmt which, int64_t user_id, int64_t limit, int64_t offset,
                     int (*cb)(void *arg, const store_note *n), void *arg, int64_t *rows)
{
    int rc = sq_bind(s, which, "iii", user_id, limit, offset);
    if (rc)
        return rc;
    sqlite3_stmt *st = s->st[which];
    store_note n;
    while (sq_next_row(s, which, &rc)) {
        n.id = sqlite3_column_int64(st, 0);
        n.user_id = sqlite3_column_int64(st, 1);
        sq_col_text(st, 2, n.kind, sizeof n.kind);
        n.game_id = sqlite3_column_int64(st, 3);
        sq_col_text(st, 4, n.data, sizeof n.data);
        n.read = sqlite3_column_int(st, 5) != 0;
        n.created = sqlite3_column_int64(st, 6);
        (*rows)++;
        int stop = cb(arg, &n);
        if (stop)
            return sq_stop(s, which, stop);
    }
    return rc;
}

int sq_notes_list(store *base, int64_t user_id, bool unread_only, int64_t limit, int64_t offset,
                  int (*cb)(void *arg, const store_note *n), void *arg)
{
    sq_store *s = sq_of(base);
    int64_t rows = 0, unread = 0;
    int rc = notes_run(s, ST_NOTES_UNREAD, user_id, limit, offset, cb, arg, &rows);
    if (rc || unread_only || rows == limit)
        return rc;
    /* The read ones continue the order after the last unread one. */
    if ((rc = sq_note_unread(base, user_id, &unread)))
        return rc;
    int64_t skip = offset > unread ? offset - unread : 0;
    return notes_run(s, ST_NOTES_READ, user_id, limit - rows, skip, cb, arg, &rows);
}

int sq_note_owner(store *base, int64_t id, int64_t *user_id)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_NOTE_OWNER, "i", id);
    if (rc || (rc = sq_one_row(s, ST_NOTE_OWNER)))
        return rc;
    *user_id = sqlite3_column_int64(s->st[ST_NOTE_OWNER], 0);
    (void)sqlite3_reset(s->st[ST_NOTE_OWNER]);
    return STORE_OK;
}

int sq_note_mark(store *base, int64_t user_id, int64_t id, int64_t *n)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_NOTE_MARK, "ii", id, user_id);
    if (rc || (rc = sq_run(s, ST_NOTE_MARK)))
        return rc;
    *n += sqlite3_changes(s->db);
    return STORE_OK;
}

int sq_note_mark_all(store *base, int64_t user_id, int64_t *n)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_NOTE_MARK_ALL, "i", user_id);
    if (rc || (rc = sq_run(s, ST_NOTE_MARK_ALL)))
        return rc;
    *n = sqlite3_changes(s->db);
    return STORE_OK;
}

int sq_note_unread(store *base, int64_t user_id, int64_t *n)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_NOTE_UNREAD, "i", user_id);
    if (rc || (rc = sq_one_row(s, ST_NOTE_UNREAD)))
        return rc;
    *n = sqlite3_column_int64(s->st[ST_NOTE_UNREAD], 0);
    (void)sqlite3_reset(s->st[ST_NOTE_UNREAD]);
    return STORE_OK;
}
