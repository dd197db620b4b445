/*
 * sqlite_corr: the SQLite backend's rows of correspondence play and
 * notifications (store_corr.h; schema migration 2, 12): a game's extra
 * columns, deadline wake-ups and extensions, server state, vacations, and
 * the inbox with its bounds (issues 9 and 21). Same pattern as every area:
 * bind, step, read the promised columns, reset; a failing step is logged
 * with the statement's name (sq_fail) and returned as STORE_EIO.
 */
#include "store/sqlite/sqlite_areas.h"

#include <stdio.h>
#include <string.h>

#define CORR_STATEMENTS(X)                                                                         \
    X(GX_GET, "SELECT extended_ms, vacation, private, coalesce(draw_offer, ''), "                  \
              "coalesce(warned_deadline, -1), coalesce(wake_at, -1) FROM games WHERE id = ?")      \
    X(GX_PUT, "UPDATE games SET extended_ms = ?2, vacation = ?3, private = ?4, draw_offer = ?5, "  \
              "warned_deadline = ?6, wake_at = ?7 WHERE id = ?1")                                  \
    X(WAKE_NEXT, "SELECT min(wake_at) FROM games WHERE status = 'active' AND wake_at IS NOT NULL " \
                 "AND damaged = 0")                                                                \
    X(WAKE_DUE,                                                                                    \
      "SELECT id FROM games WHERE status = 'active' AND wake_at IS NOT NULL AND wake_at <= ?1 "    \
      "AND damaged = 0 ORDER BY wake_at, id LIMIT ?2")                                             \
    X(DOWNTIME_LOG,                                                                                \
      "INSERT INTO game_extensions (game_id, kind, ms, created) SELECT id, 'downtime', ?1, ?2 "    \
      "FROM games WHERE status = 'active' AND deadline IS NOT NULL AND "                           \
      "time_control LIKE '{\"kind\":\"correspondence\"%'")                                         \
    X(DOWNTIME_MOVE, "UPDATE games SET deadline = deadline + ?1, extended_ms = extended_ms + ?1, " \
                     "wake_at = wake_at + ?1, warned_deadline = warned_deadline + ?1 "             \
                     "WHERE status = 'active' AND deadline IS NOT NULL AND "                       \
                     "time_control LIKE '{\"kind\":\"correspondence\"%'")                          \
    X(EXT_INSERT, "INSERT INTO game_extensions (game_id, kind, ms, created) VALUES (?, ?, ?, ?)")  \
    X(EXT_OF, "SELECT kind, ms, created FROM game_extensions WHERE game_id = ? ORDER BY id")       \
    X(STATE_GET, "SELECT value FROM server_state WHERE key = ?")                                   \
    X(STATE_SET, "INSERT INTO server_state (key, value) VALUES (?1, ?2) "                          \
                 "ON CONFLICT (key) DO UPDATE SET value = ?2")                                     \
    X(VAC_GET, "SELECT vacation_left_h, vacation_year, coalesce(vacation_start, -1), "             \
               "coalesce(vacation_until, -1) FROM users WHERE id = ?")                             \
    X(VAC_PUT, "UPDATE users SET vacation_left_h = ?2, vacation_year = ?3, vacation_start = ?4, "  \
               "vacation_until = ?5 WHERE id = ?1")                                                \
    X(NOTE_INSERT,                                                                                 \
      "INSERT INTO notifications (user_id, kind, game_id, data, read, created, sender_id, "        \
      "ref_id) VALUES (?, ?, ?, ?, 0, ?, ?, ?)")                                                   \
    X(NOTES_UNREAD,                                                                                \
      "SELECT id, user_id, kind, coalesce(game_id, 0), data, read, created FROM notifications "    \
      "WHERE user_id = ?1 AND read = 0 ORDER BY id LIMIT ?2 OFFSET ?3")                            \
    X(NOTES_READ,                                                                                  \
      "SELECT id, user_id, kind, coalesce(game_id, 0), data, read, created FROM notifications "    \
      "WHERE user_id = ?1 AND read = 1 ORDER BY id DESC LIMIT ?2 OFFSET ?3")                       \
    X(NOTE_OWNER, "SELECT user_id FROM notifications WHERE id = ?")                                \
    X(NOTE_MARK, "UPDATE notifications SET read = 1 WHERE id = ?1 AND user_id = ?2 AND read = 0")  \
    X(NOTE_MARK_ALL, "UPDATE notifications SET read = 1 WHERE user_id = ? AND read = 0")           \
    X(NOTE_UNREAD, "SELECT count(*) FROM notifications WHERE user_id = ? AND read = 0")            \
    X(NOTES_DROP_UNREAD,                                                                           \
      "DELETE FROM notifications WHERE user_id = ?1 AND kind = ?2 AND game_id = ?3 AND "           \
      "read = 0")                                                                                  \
    X(NOTES_CAP_SENDER,                                                                            \
      "DELETE FROM notifications WHERE id IN (SELECT id FROM notifications WHERE "                 \
      "user_id = ?1 AND kind = ?2 AND sender_id = ?3 AND read = 0 ORDER BY id DESC "               \
      "LIMIT -1 OFFSET ?4)")                                                                       \
    X(NOTES_WITHDRAW,                                                                              \
      "DELETE FROM notifications WHERE user_id = ?1 AND kind = ?2 AND ref_id = ?3 AND "            \
      "read = 0")                                                                                  \
    X(NOTES_MARK_REF,                                                                              \
      "UPDATE notifications SET read = 1 WHERE user_id = ?1 AND kind = ?2 AND ref_id = ?3 "        \
      "AND read = 0")

enum { SQ_AREA_FIRST(CORR), CORR_STATEMENTS(SQ_STMT_ENUM) ST_CORR__END };
static const sq_stmt_def corr_defs[] = {CORR_STATEMENTS(SQ_STMT_DEF)};
SQ_AREA_CHECK(CORR);
const sq_area_stmts sq_corr_stmts = {SQ_AREA_CORR, corr_defs, SQ_AREA_COUNT(CORR)};

static int sq_note_unread(store *base, int64_t user_id, int64_t *n);

static int sq_game_x_get(store *base, int64_t id, store_game_x *out)
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

static int sq_game_x_put(store *base, int64_t id, const store_game_x *x)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_GX_PUT, "iiiiTOO", id, x->extended_ms, (int64_t)x->vacation,
                     (int64_t)x->priv, x->draw_offer, x->warned_deadline, x->wake_at);
    return rc ? rc : sq_run_one(s, ST_GX_PUT);
}

static int sq_wake_next(store *base, int64_t *at)
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

static int sq_wake_due(store *base, int64_t now, int64_t *ids, int max, int *n)
{
    sq_store *s = sq_of(base);
    *n = 0;
    int rc = sq_bind(s, ST_WAKE_DUE, "ii", now, (int64_t)max);
    if (rc)
        return rc;
    rc = sq_each(s, ST_WAKE_DUE, sq_row_id, &(sq_ids){ids, max, n});
    return rc > 0 ? STORE_OK : rc;
}

static int sq_extend_downtime(store *base, int64_t ms, int64_t now, int64_t *games)
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

static int sq_extension_insert(store *base, int64_t game, const char *kind, int64_t ms, int64_t now)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_EXT_INSERT, "itii", game, kind, ms, now);
    return rc ? rc : sq_run(s, ST_EXT_INSERT);
}

typedef struct extension_walk {
    store_extension_cb cb;
    void *arg;
} extension_walk;

static int extension_row(sqlite3_stmt *st, void *ctx)
{
    extension_walk *w = ctx;
    char kind[16];
    sq_col_text(st, 0, kind, sizeof kind);
    return w->cb(w->arg, kind, sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2));
}

static int sq_extensions_each(store *base, int64_t game, store_extension_cb cb, void *arg)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_EXT_OF, "i", game);
    return rc ? rc : sq_each(s, ST_EXT_OF, extension_row, &(extension_walk){cb, arg});
}

static int sq_state_get(store *base, const char *key, int64_t *value)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_STATE_GET, "t", key);
    if (rc || (rc = sq_one_row(s, ST_STATE_GET)))
        return rc;
    *value = sqlite3_column_int64(s->st[ST_STATE_GET], 0);
    (void)sqlite3_reset(s->st[ST_STATE_GET]);
    return STORE_OK;
}

static int sq_state_set(store *base, const char *key, int64_t value)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_STATE_SET, "ti", key, value);
    return rc ? rc : sq_run(s, ST_STATE_SET);
}

static int sq_vacation_get(store *base, int64_t user_id, store_vacation *out)
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

static int sq_vacation_put(store *base, int64_t user_id, const store_vacation *v)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_VAC_PUT, "iiiOO", user_id, v->left_h, v->year, v->start, v->until);
    return rc ? rc : sq_run(s, ST_VAC_PUT);
}

static int sq_note_insert(store *base, store_note *n)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_NOTE_INSERT, "itotioo", n->user_id, n->kind, n->game_id, n->data,
                     n->created, n->sender_id, n->ref_id);
    if (rc || (rc = sq_run(s, ST_NOTE_INSERT)))
        return rc;
    n->id = sqlite3_last_insert_rowid(s->db);
    n->read = false;
    return STORE_OK;
}

/* The walk of NOTES_UNREAD / NOTES_READ: the caller's cb, the rows seen,
 * and the row buffer (one per listing, as the columns fill it). */
typedef struct note_walk {
    store_note_cb cb;
    void *arg;
    int64_t rows;
    store_note n;
} note_walk;

static int note_row(sqlite3_stmt *st, void *ctx)
{
    note_walk *w = ctx;
    store_note *n = &w->n;
    n->id = sqlite3_column_int64(st, 0);
    n->user_id = sqlite3_column_int64(st, 1);
    sq_col_text(st, 2, n->kind, sizeof n->kind);
    n->game_id = sqlite3_column_int64(st, 3);
    sq_col_text(st, 4, n->data, sizeof n->data);
    n->read = sqlite3_column_int(st, 5) != 0;
    n->created = sqlite3_column_int64(st, 6);
    w->rows++;
    return w->cb(w->arg, n);
}

/* Rows of NOTES_UNREAD / NOTES_READ to w's cb; w->rows counts them. */
static int notes_run(sq_store *s, sq_stmt which, int64_t user_id, int64_t limit, int64_t offset,
                     note_walk *w)
{
    int rc = sq_bind(s, which, "iii", user_id, limit, offset);
    return rc ? rc : sq_each(s, which, note_row, w);
}

static int sq_notes_list(store *base, int64_t user_id, bool unread_only, int64_t limit,
                         int64_t offset, store_note_cb cb, void *arg)
{
    sq_store *s = sq_of(base);
    int64_t unread = 0;
    note_walk w = {.cb = cb, .arg = arg};
    int rc = notes_run(s, ST_NOTES_UNREAD, user_id, limit, offset, &w);
    if (rc || unread_only || w.rows == limit)
        return rc;
    /* The read ones continue the order after the last unread one. */
    if ((rc = sq_note_unread(base, user_id, &unread)))
        return rc;
    int64_t skip = offset > unread ? offset - unread : 0;
    return notes_run(s, ST_NOTES_READ, user_id, limit - w.rows, skip, &w);
}

static int sq_note_owner(store *base, int64_t id, int64_t *user_id)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_NOTE_OWNER, "i", id);
    if (rc || (rc = sq_one_row(s, ST_NOTE_OWNER)))
        return rc;
    *user_id = sqlite3_column_int64(s->st[ST_NOTE_OWNER], 0);
    (void)sqlite3_reset(s->st[ST_NOTE_OWNER]);
    return STORE_OK;
}

static int sq_note_mark(store *base, int64_t user_id, int64_t id, int64_t *n)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_NOTE_MARK, "ii", id, user_id);
    if (rc || (rc = sq_run(s, ST_NOTE_MARK)))
        return rc;
    *n += sqlite3_changes(s->db);
    return STORE_OK;
}

static int sq_note_mark_all(store *base, int64_t user_id, int64_t *n)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_NOTE_MARK_ALL, "i", user_id);
    if (rc || (rc = sq_run(s, ST_NOTE_MARK_ALL)))
        return rc;
    *n = sqlite3_changes(s->db);
    return STORE_OK;
}

static int sq_note_unread(store *base, int64_t user_id, int64_t *n)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_NOTE_UNREAD, "i", user_id);
    if (rc || (rc = sq_one_row(s, ST_NOTE_UNREAD)))
        return rc;
    *n = sqlite3_column_int64(s->st[ST_NOTE_UNREAD], 0);
    (void)sqlite3_reset(s->st[ST_NOTE_UNREAD]);
    return STORE_OK;
}

/* ---- bounded inbox (issues 9 and 21) ---------------------------------- */

static int sq_notes_drop_unread(store *base, int64_t user_id, const char *kind, int64_t game_id)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_NOTES_DROP_UNREAD, "iti", user_id, kind, game_id);
    return rc ? rc : sq_run(s, ST_NOTES_DROP_UNREAD);
}

static int sq_notes_cap_sender(store *base, int64_t user_id, const char *kind, int64_t sender_id,
                               int64_t keep)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_NOTES_CAP_SENDER, "itii", user_id, kind, sender_id, keep);
    return rc ? rc : sq_run(s, ST_NOTES_CAP_SENDER);
}

static int sq_notes_settle(store *base, int64_t user_id, const char *kind, int64_t ref_id,
                           bool drop)
{
    sq_store *s = sq_of(base);
    sq_stmt which = drop ? ST_NOTES_WITHDRAW : ST_NOTES_MARK_REF;
    int rc = sq_bind(s, which, "iti", user_id, kind, ref_id);
    return rc ? rc : sq_run(s, which);
}

const store_corr_ops sq_corr_ops = {
    .game_x_get = sq_game_x_get,
    .game_x_put = sq_game_x_put,
    .wake_next = sq_wake_next,
    .wake_due = sq_wake_due,
    .extend_downtime = sq_extend_downtime,
    .extension_insert = sq_extension_insert,
    .extensions_each = sq_extensions_each,
    .state_get = sq_state_get,
    .state_set = sq_state_set,
    .vacation_get = sq_vacation_get,
    .vacation_put = sq_vacation_put,
    .note_insert = sq_note_insert,
    .notes_list = sq_notes_list,
    .note_owner = sq_note_owner,
    .note_mark = sq_note_mark,
    .note_mark_all = sq_note_mark_all,
    .note_unread = sq_note_unread,
    .notes_drop_unread = sq_notes_drop_unread,
    .notes_cap_sender = sq_notes_cap_sender,
    .notes_settle = sq_notes_settle,
};
