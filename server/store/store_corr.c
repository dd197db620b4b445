/*
 * store_corr: see store_corr.h. Same pattern as store_rows.c: bind, step,
 * read the promised columns, reset; a failing step is logged with the
 * statement's name (store_fail) and returned as STORE_EIO.
 */
#include "store/store_corr.h"

#include <stdio.h>
#include <string.h>

#include "store/store_int.h"

int store_game_x_get(store *s, int64_t id, store_game_x *out)
{
    int rc = store_bind(s, ST_GX_GET, "i", id);
    if (rc || (rc = store_one_row(s, ST_GX_GET)))
        return rc;
    sqlite3_stmt *st = s->st[ST_GX_GET];
    out->extended_ms = sqlite3_column_int64(st, 0);
    out->vacation = sqlite3_column_int(st, 1) != 0;
    out->priv = sqlite3_column_int(st, 2) != 0;
    store_col_text(st, 3, out->draw_offer, sizeof out->draw_offer);
    out->warned_deadline = sqlite3_column_int64(st, 4);
    out->wake_at = sqlite3_column_int64(st, 5);
    (void)sqlite3_reset(st);
    return STORE_OK;
}

int store_game_x_put(store *s, int64_t id, const store_game_x *x)
{
    int rc = store_bind(s, ST_GX_PUT, "iiiiTOO", id, x->extended_ms, (int64_t)x->vacation,
                        (int64_t)x->priv, x->draw_offer, x->warned_deadline, x->wake_at);
    if (rc || (rc = store_run(s, ST_GX_PUT)))
        return rc;
    return sqlite3_changes(s->db) == 1 ? STORE_OK : STORE_NOTFOUND;
}

int store_wake_next(store *s, int64_t *at)
{
    int rc = store_bind(s, ST_WAKE_NEXT, "");
    if (rc || (rc = store_one_row(s, ST_WAKE_NEXT)))
        return rc;
    sqlite3_stmt *st = s->st[ST_WAKE_NEXT];
    rc = sqlite3_column_type(st, 0) == SQLITE_NULL ? STORE_NOTFOUND : STORE_OK;
    *at = sqlite3_column_int64(st, 0);
    (void)sqlite3_reset(st);
    return rc;
}

int store_wake_due(store *s, int64_t now, int64_t *ids, int max, int *n)
{
    *n = 0;
    int rc = store_bind(s, ST_WAKE_DUE, "ii", now, (int64_t)max);
    if (rc)
        return rc;
    sqlite3_stmt *st = s->st[ST_WAKE_DUE];
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < max)
        ids[(*n)++] = sqlite3_column_int64(st, 0);
    (void)sqlite3_reset(st);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? STORE_OK : store_fail(s, ST_WAKE_DUE, rc);
}

int store_extend_downtime(store *s, int64_t ms, int64_t now, int64_t *games)
{
    int rc = store_bind(s, ST_DOWNTIME_LOG, "ii", ms, now);
    if (rc || (rc = store_run(s, ST_DOWNTIME_LOG)))
        return rc;
    if ((rc = store_bind(s, ST_DOWNTIME_MOVE, "i", ms)) || (rc = store_run(s, ST_DOWNTIME_MOVE)))
        return rc;
    *games = sqlite3_changes(s->db);
    return STORE_OK;
}

int store_extension_insert(store *s, int64_t game, const char *kind, int64_t ms, int64_t now)
{
    int rc = store_bind(s, ST_EXT_INSERT, "itii", game, kind, ms, now);
    return rc ? rc : store_run(s, ST_EXT_INSERT);
}

int store_extensions_each(store *s, int64_t game,
                          int (*cb)(void *arg, const char *kind, int64_t ms, int64_t created),
                          void *arg)
{
    int rc = store_bind(s, ST_EXT_OF, "i", game);
    if (rc)
        return rc;
    sqlite3_stmt *st = s->st[ST_EXT_OF];
    char kind[16];
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        store_col_text(st, 0, kind, sizeof kind);
        int stop = cb(arg, kind, sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2));
        if (stop) {
            (void)sqlite3_reset(st);
            return stop;
        }
    }
    (void)sqlite3_reset(st);
    return rc == SQLITE_DONE ? STORE_OK : store_fail(s, ST_EXT_OF, rc);
}

int store_state_get(store *s, const char *key, int64_t *value)
{
    int rc = store_bind(s, ST_STATE_GET, "t", key);
    if (rc || (rc = store_one_row(s, ST_STATE_GET)))
        return rc;
    *value = sqlite3_column_int64(s->st[ST_STATE_GET], 0);
    (void)sqlite3_reset(s->st[ST_STATE_GET]);
    return STORE_OK;
}

int store_state_set(store *s, const char *key, int64_t value)
{
    int rc = store_bind(s, ST_STATE_SET, "ti", key, value);
    return rc ? rc : store_run(s, ST_STATE_SET);
}

int store_vacation_get(store *s, int64_t user_id, store_vacation *out)
{
    int rc = store_bind(s, ST_VAC_GET, "i", user_id);
    if (rc || (rc = store_one_row(s, ST_VAC_GET)))
        return rc;
    sqlite3_stmt *st = s->st[ST_VAC_GET];
    out->left_h = sqlite3_column_int64(st, 0);
    out->year = sqlite3_column_int64(st, 1);
    out->start = sqlite3_column_int64(st, 2);
    out->until = sqlite3_column_int64(st, 3);
    (void)sqlite3_reset(st);
    return STORE_OK;
}

int store_vacation_put(store *s, int64_t user_id, const store_vacation *v)
{
    int rc = store_bind(s, ST_VAC_PUT, "iiiOO", user_id, v->left_h, v->year, v->start, v->until);
    return rc ? rc : store_run(s, ST_VAC_PUT);
}

int store_challenge_x_put(store *s, int64_t id, bool vacation, bool priv)
{
    int rc = store_bind(s, ST_CX_PUT, "iii", id, (int64_t)vacation, (int64_t)priv);
    return rc ? rc : store_run(s, ST_CX_PUT);
}

int store_challenge_x_get(store *s, int64_t id, bool *vacation, bool *priv)
{
    int rc = store_bind(s, ST_CX_GET, "i", id);
    if (rc || (rc = store_one_row(s, ST_CX_GET)))
        return rc;
    *vacation = sqlite3_column_int(s->st[ST_CX_GET], 0) != 0;
    *priv = sqlite3_column_int(s->st[ST_CX_GET], 1) != 0;
    (void)sqlite3_reset(s->st[ST_CX_GET]);
    return STORE_OK;
}

int store_note_insert(store *s, store_note *n)
{
    int rc = store_bind(s, ST_NOTE_INSERT, "itoti", n->user_id, n->kind, n->game_id, n->data,
                        n->created);
    if (rc || (rc = store_run(s, ST_NOTE_INSERT)))
        return rc;
    n->id = sqlite3_last_insert_rowid(s->db);
    n->read = false;
    return STORE_OK;
}

/* Rows of NOTES_UNREAD / NOTES_READ to cb; *rows counts them. */
static int notes_run(store *s, store_stmt which, int64_t user_id, int64_t limit, int64_t offset,
                     int (*cb)(void *arg, const store_note *n), void *arg, int64_t *rows)
{
    int rc = store_bind(s, which, "iii", user_id, limit, offset);
    if (rc)
        return rc;
    sqlite3_stmt *st = s->st[which];
    store_note n;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        n.id = sqlite3_column_int64(st, 0);
        n.user_id = sqlite3_column_int64(st, 1);
        store_col_text(st, 2, n.kind, sizeof n.kind);
        n.game_id = sqlite3_column_int64(st, 3);
        store_col_text(st, 4, n.data, sizeof n.data);
        n.read = sqlite3_column_int(st, 5) != 0;
        n.created = sqlite3_column_int64(st, 6);
        (*rows)++;
        int stop = cb(arg, &n);
        if (stop) {
            (void)sqlite3_reset(st);
            return stop;
        }
    }
    (void)sqlite3_reset(st);
    return rc == SQLITE_DONE ? STORE_OK : store_fail(s, which, rc);
}

int store_notes_list(store *s, int64_t user_id, bool unread_only, int64_t limit, int64_t offset,
                     int (*cb)(void *arg, const store_note *n), void *arg)
{
    int64_t rows = 0, unread = 0;
    int rc = notes_run(s, ST_NOTES_UNREAD, user_id, limit, offset, cb, arg, &rows);
    if (rc || unread_only || rows == limit)
        return rc;
    /* The read ones continue the order after the last unread one. */
    if ((rc = store_note_unread(s, user_id, &unread)))
        return rc;
    int64_t skip = offset > unread ? offset - unread : 0;
    return notes_run(s, ST_NOTES_READ, user_id, limit - rows, skip, cb, arg, &rows);
}

int store_note_owner(store *s, int64_t id, int64_t *user_id)
{
    int rc = store_bind(s, ST_NOTE_OWNER, "i", id);
    if (rc || (rc = store_one_row(s, ST_NOTE_OWNER)))
        return rc;
    *user_id = sqlite3_column_int64(s->st[ST_NOTE_OWNER], 0);
    (void)sqlite3_reset(s->st[ST_NOTE_OWNER]);
    return STORE_OK;
}

int store_note_mark(store *s, int64_t user_id, int64_t id, int64_t *n)
{
    int rc = store_bind(s, ST_NOTE_MARK, "ii", id, user_id);
    if (rc || (rc = store_run(s, ST_NOTE_MARK)))
        return rc;
    *n += sqlite3_changes(s->db);
    return STORE_OK;
}

int store_note_mark_all(store *s, int64_t user_id, int64_t *n)
{
    int rc = store_bind(s, ST_NOTE_MARK_ALL, "i", user_id);
    if (rc || (rc = store_run(s, ST_NOTE_MARK_ALL)))
        return rc;
    *n = sqlite3_changes(s->db);
    return STORE_OK;
}

int store_note_unread(store *s, int64_t user_id, int64_t *n)
{
    int rc = store_bind(s, ST_NOTE_UNREAD, "i", user_id);
    if (rc || (rc = store_one_row(s, ST_NOTE_UNREAD)))
        return rc;
    *n = sqlite3_column_int64(s->st[ST_NOTE_UNREAD], 0);
    (void)sqlite3_reset(s->st[ST_NOTE_UNREAD]);
    return STORE_OK;
}
