/*
 * pg_corr: the PostgreSQL backend's rows of correspondence play and
 * notifications (store_corr.h): a game's extra columns, deadline wake-ups
 * and extensions, server state, vacations, and the inbox with its bounds
 * (issues 9 and 21). The same queries as sqlite_corr.c in PostgreSQL's
 * dialect:
 *  - SQLite's `LIMIT -1 OFFSET n` (keep the newest n) is `LIMIT ALL`;
 *  - the row counts SQLite reads with sqlite3_changes() are the command's
 *    PQcmdTuples (changed());
 *  - INSERT ... SELECT casts its parameters (they would be inferred as
 *    text there);
 *  - the correspondence test `time_control LIKE '{"kind":"correspondence"%'`
 *    is case-sensitive here and not on SQLite; the text is the server's
 *    normalized JSON (lower case), so both match the same rows.
 */
#include "store/pg/pg_areas.h"

#include <stdlib.h>

#define CORR_IS_CORRESPONDENCE "time_control LIKE '{\"kind\":\"correspondence\"%'"

#define GX_PUT_SQL                                                                                 \
    "UPDATE games SET extended_ms = $2, vacation = $3, private = $4, draw_offer = $5, "            \
    "warned_deadline = $6, wake_at = $7 WHERE id = $1"

#define CORR_STATEMENTS(X)                                                                         \
    X(GX_GET, "SELECT extended_ms, vacation, private, COALESCE(draw_offer, ''), "                  \
              "COALESCE(warned_deadline, -1), COALESCE(wake_at, -1) FROM games WHERE id = $1")     \
    X(GX_PUT, GX_PUT_SQL)                                                                          \
    X(GX_PUT_X, PG_ONE_ROW_OR_FAIL(GX_PUT_SQL))                                                    \
    X(WAKE_NEXT, "SELECT min(wake_at) FROM games WHERE status = 'active' AND wake_at IS NOT NULL " \
                 "AND damaged = 0")                                                                \
    X(WAKE_DUE,                                                                                    \
      "SELECT id FROM games WHERE status = 'active' AND wake_at IS NOT NULL AND wake_at <= $1 "    \
      "AND damaged = 0 ORDER BY wake_at, id LIMIT $2")                                             \
    X(DOWNTIME_LOG,                                                                                \
      "INSERT INTO game_extensions (game_id, kind, ms, created) "                                  \
      "SELECT id, 'downtime', $1::bigint, $2::bigint "                                             \
      "FROM games WHERE status = 'active' AND deadline IS NOT NULL AND " CORR_IS_CORRESPONDENCE)   \
    X(DOWNTIME_MOVE,                                                                               \
      "UPDATE games SET deadline = deadline + $1, extended_ms = extended_ms + $1, "                \
      "wake_at = wake_at + $1, warned_deadline = warned_deadline + $1 "                            \
      "WHERE status = 'active' AND deadline IS NOT NULL AND " CORR_IS_CORRESPONDENCE)              \
    X(EXT_INSERT, "INSERT INTO game_extensions (game_id, kind, ms, created) "                      \
                  "VALUES ($1, $2, $3, $4)")                                                       \
    X(EXT_OF, "SELECT kind, ms, created FROM game_extensions WHERE game_id = $1 ORDER BY id")      \
    X(STATE_GET, "SELECT value FROM server_state WHERE key = $1")                                  \
    X(STATE_SET, "INSERT INTO server_state (key, value) VALUES ($1, $2) "                          \
                 "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value")                         \
    X(VAC_GET, "SELECT vacation_left_h, vacation_year, COALESCE(vacation_start, -1), "             \
               "COALESCE(vacation_until, -1) FROM users WHERE id = $1")                            \
    X(VAC_PUT, "UPDATE users SET vacation_left_h = $2, vacation_year = $3, vacation_start = $4, "  \
               "vacation_until = $5 WHERE id = $1")                                                \
    X(NOTE_INSERT,                                                                                 \
      "INSERT INTO notifications (user_id, kind, game_id, data, read, created, sender_id, "        \
      "ref_id) VALUES ($1, $2, $3, $4, 0, $5, $6, $7) RETURNING id")                               \
    /* NOTE_INSERT with the id taken ahead (pg_next_id()), unwaited. */                            \
    X(NOTE_INSERT_ID,                                                                              \
      "INSERT INTO notifications (id, user_id, kind, game_id, data, read, created, sender_id, "    \
      "ref_id) VALUES ($1, $2, $3, $4, $5, 0, $6, $7, $8)")                                        \
    X(NOTE_IDS, "SELECT nextval(pg_get_serial_sequence('notifications', 'id')) "                   \
                "FROM generate_series(1, $1::int)")                                                \
    X(NOTES_UNREAD,                                                                                \
      "SELECT id, user_id, kind, COALESCE(game_id, 0), data, read, created FROM notifications "    \
      "WHERE user_id = $1 AND read = 0 ORDER BY id LIMIT $2 OFFSET $3")                            \
    X(NOTES_READ,                                                                                  \
      "SELECT id, user_id, kind, COALESCE(game_id, 0), data, read, created FROM notifications "    \
      "WHERE user_id = $1 AND read = 1 ORDER BY id DESC LIMIT $2 OFFSET $3")                       \
    X(NOTE_OWNER, "SELECT user_id FROM notifications WHERE id = $1")                               \
    X(NOTE_MARK, "UPDATE notifications SET read = 1 WHERE id = $1 AND user_id = $2 AND read = 0")  \
    X(NOTE_MARK_ALL, "UPDATE notifications SET read = 1 WHERE user_id = $1 AND read = 0")          \
    X(NOTE_UNREAD, "SELECT count(*) FROM notifications WHERE user_id = $1 AND read = 0")           \
    X(NOTES_DROP_UNREAD,                                                                           \
      "DELETE FROM notifications WHERE user_id = $1 AND kind = $2 AND game_id = $3 AND "           \
      "read = 0")                                                                                  \
    X(NOTES_CAP_SENDER,                                                                            \
      "DELETE FROM notifications WHERE id IN (SELECT id FROM notifications WHERE "                 \
      "user_id = $1 AND kind = $2 AND sender_id = $3 AND read = 0 ORDER BY id DESC "               \
      "LIMIT ALL OFFSET $4)")                                                                      \
    X(NOTES_WITHDRAW,                                                                              \
      "DELETE FROM notifications WHERE user_id = $1 AND kind = $2 AND ref_id = $3 AND "            \
      "read = 0")                                                                                  \
    X(NOTES_MARK_REF,                                                                              \
      "UPDATE notifications SET read = 1 WHERE user_id = $1 AND kind = $2 AND ref_id = $3 "        \
      "AND read = 0")

enum { PG_AREA_FIRST(CORR), CORR_STATEMENTS(PG_STMT_ENUM) ST_CORR__END };
static const pg_stmt_def corr_defs[] = {CORR_STATEMENTS(PG_STMT_DEF)};
PG_AREA_CHECK(CORR);
const pg_area_stmts pg_corr_stmts = {PG_AREA_CORR, corr_defs, PG_AREA_COUNT(CORR)};

static int pg_note_unread(store *base, int64_t user_id, int64_t *n);

/* How many rows the write r answered changed, into *n (SQLite's
 * sqlite3_changes()); r is cleared. rc is pg_query()'s. */
static int changed(PGresult *r, int rc, int64_t *n)
{
    if (rc)
        return rc;
    const char *t = PQcmdTuples(r);
    *n = *t ? strtoll(t, NULL, 10) : 0;
    PQclear(r);
    return STORE_OK;
}

static int pg_game_x_get(store *base, int64_t id, store_game_x *out)
{
    PGresult *r;
    int rc = pg_one_row(pg_of(base), ST_GX_GET, &r, "i", id);
    if (rc)
        return rc;
    out->extended_ms = pg_col_int(r, 0, 0);
    out->vacation = pg_col_int(r, 0, 1) != 0;
    out->priv = pg_col_int(r, 0, 2) != 0;
    pg_col_text(r, 0, 3, out->draw_offer, sizeof out->draw_offer);
    out->warned_deadline = pg_col_int(r, 0, 4);
    out->wake_at = pg_col_int(r, 0, 5);
    PQclear(r);
    return STORE_OK;
}

static int pg_game_x_put(store *base, int64_t id, const store_game_x *x)
{
    pg_store *s = pg_of(base);
    if (pg_alone_in_batch(s))
        return pg_send(s, ST_GX_PUT_X, "iiiiTOO", id, x->extended_ms, (int64_t)x->vacation,
                       (int64_t)x->priv, x->draw_offer, x->warned_deadline, x->wake_at);
    return pg_run_one(s, ST_GX_PUT, "iiiiTOO", id, x->extended_ms, (int64_t)x->vacation,
                      (int64_t)x->priv, x->draw_offer, x->warned_deadline, x->wake_at);
}

static int pg_wake_next(store *base, int64_t *at)
{
    PGresult *r;
    int rc = pg_one_row(pg_of(base), ST_WAKE_NEXT, &r, "");
    if (rc)
        return rc;
    /* min() of no row is one row holding NULL. */
    rc = pg_col_null(r, 0, 0) ? STORE_NOTFOUND : STORE_OK;
    *at = pg_col_int(r, 0, 0);
    PQclear(r);
    return rc;
}

static int pg_wake_due(store *base, int64_t now, int64_t *ids, int max, int *n)
{
    *n = 0;
    int rc = pg_each(pg_of(base), ST_WAKE_DUE, pg_row_id, &(pg_ids){ids, max, n}, "ii", now,
                     (int64_t)max);
    return rc > 0 ? STORE_OK : rc;
}

static int pg_extend_downtime(store *base, int64_t ms, int64_t now, int64_t *games)
{
    pg_store *s = pg_of(base);
    PGresult *r;
    int rc = pg_run(s, ST_DOWNTIME_LOG, "ii", ms, now);
    if (rc)
        return rc;
    rc = pg_query(s, ST_DOWNTIME_MOVE, &r, "i", ms);
    return changed(r, rc, games);
}

static int pg_extension_insert(store *base, int64_t game, const char *kind, int64_t ms, int64_t now)
{
    return pg_run(pg_of(base), ST_EXT_INSERT, "itii", game, kind, ms, now);
}

typedef struct extension_walk {
    store_extension_cb cb;
    void *arg;
} extension_walk;

static int extension_row(const PGresult *r, int i, void *ctx)
{
    extension_walk *w = ctx;
    char kind[16];
    pg_col_text(r, i, 0, kind, sizeof kind);
    return w->cb(w->arg, kind, pg_col_int(r, i, 1), pg_col_int(r, i, 2));
}

static int pg_extensions_each(store *base, int64_t game, store_extension_cb cb, void *arg)
{
    return pg_each(pg_of(base), ST_EXT_OF, extension_row, &(extension_walk){cb, arg}, "i", game);
}

static int pg_state_get(store *base, const char *key, int64_t *value)
{
    PGresult *r;
    int rc = pg_one_row(pg_of(base), ST_STATE_GET, &r, "t", key);
    if (rc)
        return rc;
    *value = pg_col_int(r, 0, 0);
    PQclear(r);
    return STORE_OK;
}

static int pg_state_set(store *base, const char *key, int64_t value)
{
    return pg_run(pg_of(base), ST_STATE_SET, "ti", key, value);
}

static int pg_vacation_get(store *base, int64_t user_id, store_vacation *out)
{
    PGresult *r;
    int rc = pg_one_row(pg_of(base), ST_VAC_GET, &r, "i", user_id);
    if (rc)
        return rc;
    out->left_h = pg_col_int(r, 0, 0);
    out->year = pg_col_int(r, 0, 1);
    out->start = pg_col_int(r, 0, 2);
    out->until = pg_col_int(r, 0, 3);
    PQclear(r);
    return STORE_OK;
}

static int pg_vacation_put(store *base, int64_t user_id, const store_vacation *v)
{
    return pg_run(pg_of(base), ST_VAC_PUT, "iiiOO", user_id, v->left_h, v->year, v->start,
                  v->until);
}

static int pg_note_insert(store *base, store_note *n)
{
    pg_store *s = pg_of(base);
    if (pg_alone_in_batch(s)) {
        int64_t id;
        if (pg_next_id(s, ST_NOTE_IDS, PG_IDS_NOTES, &id) != STORE_OK ||
            pg_send(s, ST_NOTE_INSERT_ID, "iitotioo", id, n->user_id, n->kind, n->game_id, n->data,
                    n->created, n->sender_id, n->ref_id) != STORE_OK)
            return STORE_EIO;
        n->id = id;
        n->read = false;
        return STORE_OK;
    }
    PGresult *r;
    int rc = pg_one_row(s, ST_NOTE_INSERT, &r, "itotioo", n->user_id, n->kind, n->game_id, n->data,
                        n->created, n->sender_id, n->ref_id);
    if (rc)
        return rc == STORE_NOTFOUND ? STORE_EIO : rc; /* RETURNING always gives the row */
    n->id = pg_col_int(r, 0, 0);
    n->read = false;
    PQclear(r);
    return STORE_OK;
}

/* The walk of NOTES_UNREAD / NOTES_READ: the caller's cb, the rows seen,
 * and the row buffer (one per listing, as on SQLite: the columns not
 * selected, sender_id and ref_id, stay 0). */
typedef struct note_walk {
    store_note_cb cb;
    void *arg;
    int64_t rows;
    store_note n;
} note_walk;

static int note_row(const PGresult *r, int i, void *ctx)
{
    note_walk *w = ctx;
    store_note *n = &w->n;
    n->id = pg_col_int(r, i, 0);
    n->user_id = pg_col_int(r, i, 1);
    pg_col_text(r, i, 2, n->kind, sizeof n->kind);
    n->game_id = pg_col_int(r, i, 3);
    pg_col_text(r, i, 4, n->data, sizeof n->data);
    n->read = pg_col_int(r, i, 5) != 0;
    n->created = pg_col_int(r, i, 6);
    w->rows++;
    return w->cb(w->arg, n);
}

/* Rows of NOTES_UNREAD / NOTES_READ to w's cb; w->rows counts them. */
static int notes_run(pg_store *s, pg_stmt which, int64_t user_id, int64_t limit, int64_t offset,
                     note_walk *w)
{
    return pg_each(s, which, note_row, w, "iii", user_id, limit, offset);
}

static int pg_notes_list(store *base, int64_t user_id, bool unread_only, int64_t limit,
                         int64_t offset, store_note_cb cb, void *arg)
{
    pg_store *s = pg_of(base);
    int64_t unread = 0;
    note_walk w = {.cb = cb, .arg = arg};
    int rc = notes_run(s, ST_NOTES_UNREAD, user_id, limit, offset, &w);
    if (rc || unread_only || w.rows == limit)
        return rc;
    /* The read ones continue the order after the last unread one. */
    if ((rc = pg_note_unread(base, user_id, &unread)))
        return rc;
    int64_t skip = offset > unread ? offset - unread : 0;
    return notes_run(s, ST_NOTES_READ, user_id, limit - w.rows, skip, &w);
}

static int pg_note_owner(store *base, int64_t id, int64_t *user_id)
{
    PGresult *r;
    int rc = pg_one_row(pg_of(base), ST_NOTE_OWNER, &r, "i", id);
    if (rc)
        return rc;
    *user_id = pg_col_int(r, 0, 0);
    PQclear(r);
    return STORE_OK;
}

static int pg_note_mark(store *base, int64_t user_id, int64_t id, int64_t *n)
{
    PGresult *r;
    int64_t one = 0;
    int rc = pg_query(pg_of(base), ST_NOTE_MARK, &r, "ii", id, user_id);
    if ((rc = changed(r, rc, &one)))
        return rc;
    *n += one;
    return STORE_OK;
}

static int pg_note_mark_all(store *base, int64_t user_id, int64_t *n)
{
    PGresult *r;
    int rc = pg_query(pg_of(base), ST_NOTE_MARK_ALL, &r, "i", user_id);
    return changed(r, rc, n);
}

static int pg_note_unread(store *base, int64_t user_id, int64_t *n)
{
    PGresult *r;
    int rc = pg_one_row(pg_of(base), ST_NOTE_UNREAD, &r, "i", user_id);
    if (rc)
        return rc;
    *n = pg_col_int(r, 0, 0);
    PQclear(r);
    return STORE_OK;
}

/* ---- bounded inbox (issues 9 and 21) ---------------------------------- */

static int pg_notes_drop_unread(store *base, int64_t user_id, const char *kind, int64_t game_id)
{
    return pg_run(pg_of(base), ST_NOTES_DROP_UNREAD, "iti", user_id, kind, game_id);
}

static int pg_notes_cap_sender(store *base, int64_t user_id, const char *kind, int64_t sender_id,
                               int64_t keep)
{
    return pg_run(pg_of(base), ST_NOTES_CAP_SENDER, "itii", user_id, kind, sender_id, keep);
}

static int pg_notes_settle(store *base, int64_t user_id, const char *kind, int64_t ref_id,
                           bool drop)
{
    pg_stmt which = drop ? ST_NOTES_WITHDRAW : ST_NOTES_MARK_REF;
    return pg_run(pg_of(base), which, "iti", user_id, kind, ref_id);
}

const store_corr_ops pg_corr_ops = {
    .game_x_get = pg_game_x_get,
    .game_x_put = pg_game_x_put,
    .wake_next = pg_wake_next,
    .wake_due = pg_wake_due,
    .extend_downtime = pg_extend_downtime,
    .extension_insert = pg_extension_insert,
    .extensions_each = pg_extensions_each,
    .state_get = pg_state_get,
    .state_set = pg_state_set,
    .vacation_get = pg_vacation_get,
    .vacation_put = pg_vacation_put,
    .note_insert = pg_note_insert,
    .notes_list = pg_notes_list,
    .note_owner = pg_note_owner,
    .note_mark = pg_note_mark,
    .note_mark_all = pg_note_mark_all,
    .note_unread = pg_note_unread,
    .notes_drop_unread = pg_notes_drop_unread,
    .notes_cap_sender = pg_notes_cap_sender,
    .notes_settle = pg_notes_settle,
};
