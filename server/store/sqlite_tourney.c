/*
 * sqlite_tourney: the SQLite backend's classes and tournaments
 * (store_tourney.h contracts; schema migration 8). Same pattern as
 * sqlite_rows.c: bind, step, read the promised columns, reset. The
 * iterating functions share each_row(): one row reader per row type.
 */
#include "store/sqlite_int.h"

#include <stdio.h>
#include <string.h>

typedef void (*row_reader)(sqlite3_stmt *st, void *row);
typedef int (*row_cb)(void *arg, const void *row);

/* Step `which` (bound) to the end, reading each row into row and calling
 * cb; stop on its non-zero value (returned). */
static int each_row(sq_store *s, sq_stmt which, row_reader read, void *row, row_cb cb, void *arg)
{
    sqlite3_stmt *st = s->st[which];
    int rc;
    while (sq_next_row(s, which, &rc)) {
        read(st, row);
        int stop = cb(arg, row);
        if (stop)
            return sq_stop(s, which, stop);
    }
    return rc;
}

/* One row of a bound statement into row: STORE_OK, STORE_NOTFOUND, STORE_EIO. */
static int one(sq_store *s, sq_stmt which, row_reader read, void *row)
{
    int rc = sq_one_row(s, which);
    if (rc)
        return rc;
    read(s->st[which], row);
    (void)sqlite3_reset(s->st[which]);
    return STORE_OK;
}

/* ---- classes ---------------------------------------------------------- */

static void read_class(sqlite3_stmt *st, void *row)
{
    store_class *c = row;
    c->id = sqlite3_column_int64(st, 0);
    sq_col_text(st, 1, c->name, sizeof c->name);
    sq_col_text(st, 2, c->code, sizeof c->code);
    c->teacher_id = sqlite3_column_int64(st, 3);
    sq_col_text(st, 4, c->teacher, sizeof c->teacher);
    c->created = sqlite3_column_int64(st, 5);
}

int sq_class_insert(store *base, store_class *c)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_CLASS_INSERT, "ttii", c->name, c->code, c->teacher_id, c->created);
    if (rc || (rc = sq_run(s, ST_CLASS_INSERT)))
        return rc;
    c->id = sqlite3_last_insert_rowid(s->db);
    return STORE_OK;
}

int sq_class_get(store *base, int64_t id, store_class *out)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_CLASS_GET, "i", id);
    return rc ? rc : one(s, ST_CLASS_GET, read_class, out);
}

int sq_class_by_code(store *base, const char *code, store_class *out)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_CLASS_BY_CODE, "t", code);
    return rc ? rc : one(s, ST_CLASS_BY_CODE, read_class, out);
}

int sq_classes_of(store *base, int64_t user_id, store_class_cb cb, void *arg)
{
    sq_store *s = sq_of(base);
    store_class c;
    int rc = sq_bind(s, ST_CLASSES_OF, "i", user_id);
    return rc ? rc : each_row(s, ST_CLASSES_OF, read_class, &c, (row_cb)cb, arg);
}

int sq_member_add(store *base, int64_t class_id, int64_t user_id, const char *name, int64_t now)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_MEMBER_ADD, "iiti", class_id, user_id, name, now);
    return rc ? rc : sq_run(s, ST_MEMBER_ADD);
}

static void read_member(sqlite3_stmt *st, void *row)
{
    store_member *m = row;
    m->user_id = sqlite3_column_int64(st, 0);
    sq_col_text(st, 1, m->username, sizeof m->username);
    sq_col_text(st, 2, m->name, sizeof m->name);
    m->bot = sqlite3_column_int(st, 3) != 0;
}

int sq_members_each(store *base, int64_t class_id, store_member_cb cb, void *arg)
{
    sq_store *s = sq_of(base);
    store_member m;
    int rc = sq_bind(s, ST_MEMBERS_OF, "i", class_id);
    return rc ? rc : each_row(s, ST_MEMBERS_OF, read_member, &m, (row_cb)cb, arg);
}

static void read_nothing(sqlite3_stmt *st, void *row)
{
    (void)st;
    (void)row;
}

int sq_member_is(store *base, int64_t class_id, int64_t user_id, bool *yes)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_MEMBER_IS, "ii", class_id, user_id);
    if (rc || ((rc = one(s, ST_MEMBER_IS, read_nothing, NULL)) && rc != STORE_NOTFOUND))
        return rc;
    *yes = rc == STORE_OK;
    return STORE_OK;
}

int sq_user_pwhash_set(store *base, int64_t user_id, const char *pwhash)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_PWHASH_SET, "it", user_id, pwhash);
    return rc ? rc : sq_run_one(s, ST_PWHASH_SET);
}

/* ---- tournaments ------------------------------------------------------ */

static void read_tourney(sqlite3_stmt *st, void *row)
{
    store_tourney *t = row;
    t->id = sqlite3_column_int64(st, 0);
    sq_col_text(st, 1, t->name, sizeof t->name);
    sq_col_text(st, 2, t->system, sizeof t->system);
    sq_col_text(st, 3, t->variant, sizeof t->variant);
    sq_col_text(st, 4, t->time_control, sizeof t->time_control);
    sq_col_text(st, 5, t->position, sizeof t->position);
    t->rounds = sqlite3_column_int64(st, 6);
    t->dbl = sqlite3_column_int(st, 7) != 0;
    t->rated = sqlite3_column_int(st, 8) != 0;
    t->bots = sqlite3_column_int(st, 9) != 0;
    t->class_id = sqlite3_column_int64(st, 10);
    sq_col_text(st, 11, t->start_mode, sizeof t->start_mode);
    sq_col_text(st, 12, t->status, sizeof t->status);
    t->organiser_id = sqlite3_column_int64(st, 13);
    sq_col_text(st, 14, t->organiser, sizeof t->organiser);
    t->current_round = sqlite3_column_int64(st, 15);
    sq_col_text(st, 16, t->end_reason, sizeof t->end_reason);
    t->created = sqlite3_column_int64(st, 17);
    t->updated = sqlite3_column_int64(st, 18);
    sq_col_text(st, 19, t->pairer, sizeof t->pairer);
}

int sq_tourney_insert(store *base, store_tourney *t)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_TOURNEY_INSERT, "ttttTiiiiottiiit", t->name, t->system, t->variant,
                     t->time_control, t->position, t->rounds, (int64_t)t->dbl, (int64_t)t->rated,
                     (int64_t)t->bots, t->class_id, t->start_mode, t->status, t->organiser_id,
                     t->created, t->updated, t->pairer[0] ? t->pairer : "builtin");
    if (rc || (rc = sq_run(s, ST_TOURNEY_INSERT)))
        return rc;
    t->id = sqlite3_last_insert_rowid(s->db);
    return STORE_OK;
}

int sq_tourney_get(store *base, int64_t id, store_tourney *out)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_TOURNEY_GET, "i", id);
    return rc ? rc : one(s, ST_TOURNEY_GET, read_tourney, out);
}

int sq_tourney_update(store *base, const store_tourney *t)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_TOURNEY_UPDATE, "iitiTi", t->id, t->rounds, t->status, t->current_round,
                     t->end_reason, t->updated);
    return rc ? rc : sq_run_one(s, ST_TOURNEY_UPDATE);
}

int sq_tourneys_list(store *base, const char *status, int64_t limit, store_tourney_cb cb, void *arg)
{
    sq_store *s = sq_of(base);
    store_tourney t;
    int rc = sq_bind(s, ST_TOURNEYS_LIST, "Ti", status, limit);
    return rc ? rc : each_row(s, ST_TOURNEYS_LIST, read_tourney, &t, (row_cb)cb, arg);
}

int sq_tplayer_add(store *base, int64_t tid, int64_t user_id, int64_t number, int64_t late_round,
                   int64_t now)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_TPLAYER_ADD, "iiiii", tid, user_id, number, late_round, now);
    return rc ? rc : sq_run(s, ST_TPLAYER_ADD);
}

static void read_tplayer(sqlite3_stmt *st, void *row)
{
    store_tplayer *p = row;
    p->user_id = sqlite3_column_int64(st, 0);
    sq_col_text(st, 1, p->username, sizeof p->username);
    p->bot = sqlite3_column_int(st, 2) != 0;
    p->number = sqlite3_column_int64(st, 3);
    p->withdrawn = sqlite3_column_int(st, 4) != 0;
    p->late_round = sqlite3_column_int64(st, 5);
}

int sq_tplayers_each(store *base, int64_t tid, store_tplayer_cb cb, void *arg)
{
    sq_store *s = sq_of(base);
    store_tplayer p;
    int rc = sq_bind(s, ST_TPLAYERS_OF, "i", tid);
    return rc ? rc : each_row(s, ST_TPLAYERS_OF, read_tplayer, &p, (row_cb)cb, arg);
}

int sq_tplayer_withdraw(store *base, int64_t tid, int64_t user_id)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_TPLAYER_WITHDRAW, "ii", tid, user_id);
    return rc ? rc : sq_run_one(s, ST_TPLAYER_WITHDRAW);
}

int sq_tplayer_remove(store *base, int64_t tid, int64_t user_id)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_TPLAYER_REMOVE, "ii", tid, user_id);
    return rc ? rc : sq_run_one(s, ST_TPLAYER_REMOVE);
}

static void read_pairing(sqlite3_stmt *st, void *row)
{
    store_pairing *p = row;
    p->tournament_id = sqlite3_column_int64(st, 0);
    p->round = sqlite3_column_int64(st, 1);
    p->board = sqlite3_column_int64(st, 2);
    p->white_id = sqlite3_column_int64(st, 3);
    p->black_id = sqlite3_column_int64(st, 4);
    p->game_id = sqlite3_column_int64(st, 5);
    sq_col_text(st, 6, p->kind, sizeof p->kind);
    sq_col_text(st, 7, p->result, sizeof p->result);
    p->by_hand = sqlite3_column_int(st, 8) != 0;
}

int sq_pairing_insert(store *base, const store_pairing *p)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_PAIRING_INSERT, "iiiiootTi", p->tournament_id, p->round, p->board,
                     p->white_id, p->black_id, p->game_id, p->kind, p->result, (int64_t)p->by_hand);
    return rc ? rc : sq_run(s, ST_PAIRING_INSERT);
}

int sq_pairings_each(store *base, int64_t tid, store_pairing_cb cb, void *arg)
{
    sq_store *s = sq_of(base);
    store_pairing p;
    int rc = sq_bind(s, ST_PAIRINGS_OF, "i", tid);
    return rc ? rc : each_row(s, ST_PAIRINGS_OF, read_pairing, &p, (row_cb)cb, arg);
}

int sq_pairing_by_game(store *base, int64_t game_id, store_pairing *out)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_PAIRING_BY_GAME, "i", game_id);
    return rc ? rc : one(s, ST_PAIRING_BY_GAME, read_pairing, out);
}

int sq_pairing_set(store *base, const store_pairing *p)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_PAIRING_SET, "iiitTi", p->tournament_id, p->round, p->board, p->kind,
                     p->result, (int64_t)p->by_hand);
    return rc ? rc : sq_run_one(s, ST_PAIRING_SET);
}

int sq_forbid_add(store *base, int64_t tid, int64_t a, int64_t b)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_FORBID_ADD, "iii", tid, a, b);
    return rc ? rc : sq_run(s, ST_FORBID_ADD);
}

int sq_forbids_each(store *base, int64_t tid, int (*cb)(void *arg, int64_t a, int64_t b), void *arg)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_FORBIDS_OF, "i", tid);
    if (rc)
        return rc;
    sqlite3_stmt *st = s->st[ST_FORBIDS_OF];
    while (sq_next_row(s, ST_FORBIDS_OF, &rc)) {
        int stop = cb(arg, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1));
        if (stop)
            return sq_stop(s, ST_FORBIDS_OF, stop);
    }
    return rc;
}

int sq_game_tourney_set(store *base, int64_t game_id, int64_t tid, int64_t round)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_GAME_T_SET, "ioo", game_id, tid, round);
    return rc ? rc : sq_run_one(s, ST_GAME_T_SET);
}

int sq_game_tourney_get(store *base, int64_t game_id, int64_t *tid, int64_t *round)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_GAME_T_GET, "i", game_id);
    if (rc || (rc = sq_one_row(s, ST_GAME_T_GET)))
        return rc;
    *tid = sqlite3_column_int64(s->st[ST_GAME_T_GET], 0);
    *round = sqlite3_column_int64(s->st[ST_GAME_T_GET], 1);
    (void)sqlite3_reset(s->st[ST_GAME_T_GET]);
    return STORE_OK;
}
