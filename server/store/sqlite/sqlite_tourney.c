/*
 * sqlite_tourney: the SQLite backend's classes and tournaments
 * (store_tourney.h contracts; schema migrations 8 and 10). Same pattern as
 * every area: bind, step, read the promised columns, reset. One reader per
 * row type; ROW_WALK() makes its row function for sq_each().
 */
#include "store/sqlite/sqlite_areas.h"

#include <stdio.h>
#include <string.h>

#define CLASS_SELECT                                                                               \
    "SELECT c.id, c.name, c.code, c.teacher_id, u.username, c.created FROM classes c "             \
    "JOIN users u ON u.id = c.teacher_id "
#define TOURNEY_SELECT                                                                             \
    "SELECT t.id, t.name, t.system, t.variant, t.time_control, coalesce(t.position, ''), "         \
    "t.rounds, t.dbl, t.rated, t.bots, coalesce(t.class_id, 0), t.start_mode, t.status, "          \
    "t.organiser_id, u.username, t.current_round, coalesce(t.end_reason, ''), t.created, "         \
    "t.updated, t.pairer FROM tournaments t JOIN users u ON u.id = t.organiser_id "
#define PAIRING_SELECT                                                                             \
    "SELECT tournament_id, round, board, white_id, coalesce(black_id, 0), "                        \
    "coalesce(game_id, 0), kind, coalesce(result, ''), by_hand FROM tournament_pairings "
#define TOURNEY_STATEMENTS(X)                                                                      \
    X(CLASS_INSERT, "INSERT INTO classes (name, code, teacher_id, created) VALUES (?, ?, ?, ?)")   \
    X(CLASS_GET, CLASS_SELECT "WHERE c.id = ?")                                                    \
    X(CLASS_BY_CODE, CLASS_SELECT "WHERE c.code = ?")                                              \
    X(CLASSES_OF,                                                                                  \
      CLASS_SELECT "WHERE c.teacher_id = ?1 OR c.id IN (SELECT class_id FROM class_members "       \
                   "WHERE user_id = ?1) ORDER BY c.id")                                            \
    X(MEMBER_ADD,                                                                                  \
      "INSERT INTO class_members (class_id, user_id, name, created) VALUES (?, ?, ?, ?)")          \
    X(MEMBERS_OF,                                                                                  \
      "SELECT m.user_id, u.username, m.name, u.bot FROM class_members m JOIN users u ON "          \
      "u.id = m.user_id WHERE m.class_id = ? ORDER BY u.username")                                 \
    X(MEMBER_IS, "SELECT 1 FROM class_members WHERE class_id = ? AND user_id = ?")                 \
    X(TOURNEY_INSERT,                                                                              \
      "INSERT INTO tournaments (name, system, variant, time_control, position, rounds, dbl, "      \
      "rated, bots, class_id, start_mode, status, organiser_id, current_round, created, "          \
      "updated, pairer) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)")               \
    X(TOURNEY_GET, TOURNEY_SELECT "WHERE t.id = ?")                                                \
    X(TOURNEY_UPDATE,                                                                              \
      "UPDATE tournaments SET rounds = ?2, status = ?3, current_round = ?4, end_reason = ?5, "     \
      "updated = ?6 WHERE id = ?1")                                                                \
    X(TOURNEYS_LIST,                                                                               \
      TOURNEY_SELECT "WHERE (?1 IS NULL OR t.status = ?1) ORDER BY t.id DESC LIMIT ?2")            \
    X(TPLAYER_ADD,                                                                                 \
      "INSERT INTO tournament_players (tournament_id, user_id, number, late_round, joined) "       \
      "VALUES (?, ?, ?, ?, ?)")                                                                    \
    X(TPLAYERS_OF,                                                                                 \
      "SELECT p.user_id, u.username, u.bot, p.number, p.withdrawn, p.late_round FROM "             \
      "tournament_players p JOIN users u ON u.id = p.user_id WHERE p.tournament_id = ? "           \
      "ORDER BY p.number")                                                                         \
    X(TPLAYER_WITHDRAW,                                                                            \
      "UPDATE tournament_players SET withdrawn = 1 WHERE tournament_id = ? AND user_id = ?")       \
    X(TPLAYER_REMOVE, "DELETE FROM tournament_players WHERE tournament_id = ? AND user_id = ?")    \
    X(PAIRING_INSERT,                                                                              \
      "INSERT INTO tournament_pairings (tournament_id, round, board, white_id, black_id, "         \
      "game_id, kind, result, by_hand) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")                        \
    X(PAIRINGS_OF, PAIRING_SELECT "WHERE tournament_id = ? ORDER BY round, board")                 \
    X(PAIRING_BY_GAME, PAIRING_SELECT "WHERE game_id = ?")                                         \
    X(PAIRING_SET, "UPDATE tournament_pairings SET kind = ?4, result = ?5, by_hand = ?6 "          \
                   "WHERE tournament_id = ?1 AND round = ?2 AND board = ?3")                       \
    X(FORBID_ADD, "INSERT INTO tournament_forbidden (tournament_id, a_id, b_id) VALUES (?, ?, ?)") \
    X(FORBIDS_OF, "SELECT a_id, b_id FROM tournament_forbidden WHERE tournament_id = ?")           \
    X(GAME_T_SET, "UPDATE games SET tournament_id = ?2, round = ?3 WHERE id = ?1")                 \
    X(GAME_T_GET, "SELECT coalesce(tournament_id, 0), coalesce(round, 0) FROM games WHERE id = ?")

enum { SQ_AREA_FIRST(TOURNEY), TOURNEY_STATEMENTS(SQ_STMT_ENUM) ST_TOURNEY__END };
static const sq_stmt_def tourney_defs[] = {TOURNEY_STATEMENTS(SQ_STMT_DEF)};
SQ_AREA_CHECK(TOURNEY);
const sq_area_stmts sq_tourney_stmts = {SQ_AREA_TOURNEY, tourney_defs, SQ_AREA_COUNT(TOURNEY)};

typedef void (*row_reader)(sqlite3_stmt *st, void *row);

/* The walk of a listing of store_T rows: the caller's cb and the row
 * buffer the reader fills, one per listing; T_row() hands each row to cb. */
#define ROW_WALK(T, reader)                                                                        \
    typedef struct T##_walk {                                                                      \
        int (*cb)(void *arg, const store_##T *row);                                                \
        void *arg;                                                                                 \
        store_##T row;                                                                             \
    } T##_walk;                                                                                    \
    static int T##_row(sqlite3_stmt *st, void *ctx)                                                \
    {                                                                                              \
        T##_walk *w = ctx;                                                                         \
        reader(st, &w->row);                                                                       \
        return w->cb(w->arg, &w->row);                                                             \
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

ROW_WALK(class, read_class)

static int sq_class_insert(store *base, store_class *c)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_CLASS_INSERT, "ttii", c->name, c->code, c->teacher_id, c->created);
    if (rc || (rc = sq_run(s, ST_CLASS_INSERT)))
        return rc;
    c->id = sqlite3_last_insert_rowid(s->db);
    return STORE_OK;
}

static int sq_class_get(store *base, int64_t id, store_class *out)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_CLASS_GET, "i", id);
    return rc ? rc : one(s, ST_CLASS_GET, read_class, out);
}

static int sq_class_by_code(store *base, const char *code, store_class *out)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_CLASS_BY_CODE, "t", code);
    return rc ? rc : one(s, ST_CLASS_BY_CODE, read_class, out);
}

static int sq_classes_of(store *base, int64_t user_id, store_class_cb cb, void *arg)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_CLASSES_OF, "i", user_id);
    return rc ? rc : sq_each(s, ST_CLASSES_OF, class_row, &(class_walk){.cb = cb, .arg = arg});
}

static int sq_member_add(store *base, int64_t class_id, int64_t user_id, const char *name,
                         int64_t now)
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

ROW_WALK(member, read_member)

static int sq_members_each(store *base, int64_t class_id, store_member_cb cb, void *arg)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_MEMBERS_OF, "i", class_id);
    return rc ? rc : sq_each(s, ST_MEMBERS_OF, member_row, &(member_walk){.cb = cb, .arg = arg});
}

static void read_nothing(sqlite3_stmt *st, void *row)
{
    (void)st;
    (void)row;
}

static int sq_member_is(store *base, int64_t class_id, int64_t user_id, bool *yes)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_MEMBER_IS, "ii", class_id, user_id);
    if (rc || ((rc = one(s, ST_MEMBER_IS, read_nothing, NULL)) && rc != STORE_NOTFOUND))
        return rc;
    *yes = rc == STORE_OK;
    return STORE_OK;
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

ROW_WALK(tourney, read_tourney)

static int sq_tourney_insert(store *base, store_tourney *t)
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

static int sq_tourney_get(store *base, int64_t id, store_tourney *out)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_TOURNEY_GET, "i", id);
    return rc ? rc : one(s, ST_TOURNEY_GET, read_tourney, out);
}

static int sq_tourney_update(store *base, const store_tourney *t)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_TOURNEY_UPDATE, "iitiTi", t->id, t->rounds, t->status, t->current_round,
                     t->end_reason, t->updated);
    return rc ? rc : sq_run_one(s, ST_TOURNEY_UPDATE);
}

static int sq_tourneys_list(store *base, const char *status, int64_t limit, store_tourney_cb cb,
                            void *arg)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_TOURNEYS_LIST, "Ti", status, limit);
    return rc ? rc
              : sq_each(s, ST_TOURNEYS_LIST, tourney_row, &(tourney_walk){.cb = cb, .arg = arg});
}

static int sq_tplayer_add(store *base, int64_t tid, int64_t user_id, int64_t number,
                          int64_t late_round, int64_t now)
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

ROW_WALK(tplayer, read_tplayer)

static int sq_tplayers_each(store *base, int64_t tid, store_tplayer_cb cb, void *arg)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_TPLAYERS_OF, "i", tid);
    return rc ? rc : sq_each(s, ST_TPLAYERS_OF, tplayer_row, &(tplayer_walk){.cb = cb, .arg = arg});
}

static int sq_tplayer_withdraw(store *base, int64_t tid, int64_t user_id)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_TPLAYER_WITHDRAW, "ii", tid, user_id);
    return rc ? rc : sq_run_one(s, ST_TPLAYER_WITHDRAW);
}

static int sq_tplayer_remove(store *base, int64_t tid, int64_t user_id)
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

ROW_WALK(pairing, read_pairing)

static int sq_pairing_insert(store *base, const store_pairing *p)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_PAIRING_INSERT, "iiiiootTi", p->tournament_id, p->round, p->board,
                     p->white_id, p->black_id, p->game_id, p->kind, p->result, (int64_t)p->by_hand);
    return rc ? rc : sq_run(s, ST_PAIRING_INSERT);
}

static int sq_pairings_each(store *base, int64_t tid, store_pairing_cb cb, void *arg)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_PAIRINGS_OF, "i", tid);
    return rc ? rc : sq_each(s, ST_PAIRINGS_OF, pairing_row, &(pairing_walk){.cb = cb, .arg = arg});
}

static int sq_pairing_by_game(store *base, int64_t game_id, store_pairing *out)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_PAIRING_BY_GAME, "i", game_id);
    return rc ? rc : one(s, ST_PAIRING_BY_GAME, read_pairing, out);
}

static int sq_pairing_set(store *base, const store_pairing *p)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_PAIRING_SET, "iiitTi", p->tournament_id, p->round, p->board, p->kind,
                     p->result, (int64_t)p->by_hand);
    return rc ? rc : sq_run_one(s, ST_PAIRING_SET);
}

static int sq_forbid_add(store *base, int64_t tid, int64_t a, int64_t b)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_FORBID_ADD, "iii", tid, a, b);
    return rc ? rc : sq_run(s, ST_FORBID_ADD);
}

typedef struct forbid_walk {
    int (*cb)(void *arg, int64_t a, int64_t b);
    void *arg;
} forbid_walk;

static int forbid_row(sqlite3_stmt *st, void *ctx)
{
    forbid_walk *w = ctx;
    return w->cb(w->arg, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1));
}

static int sq_forbids_each(store *base, int64_t tid, int (*cb)(void *arg, int64_t a, int64_t b),
                           void *arg)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_FORBIDS_OF, "i", tid);
    return rc ? rc : sq_each(s, ST_FORBIDS_OF, forbid_row, &(forbid_walk){cb, arg});
}

static int sq_game_tourney_set(store *base, int64_t game_id, int64_t tid, int64_t round)
{
    sq_store *s = sq_of(base);
    int rc = sq_bind(s, ST_GAME_T_SET, "ioo", game_id, tid, round);
    return rc ? rc : sq_run_one(s, ST_GAME_T_SET);
}

static int sq_game_tourney_get(store *base, int64_t game_id, int64_t *tid, int64_t *round)
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

const store_tourney_ops sq_tourney_ops = {
    .class_insert = sq_class_insert,
    .class_get = sq_class_get,
    .class_by_code = sq_class_by_code,
    .classes_of = sq_classes_of,
    .member_add = sq_member_add,
    .members_each = sq_members_each,
    .member_is = sq_member_is,
    .tourney_insert = sq_tourney_insert,
    .tourney_get = sq_tourney_get,
    .tourney_update = sq_tourney_update,
    .tourneys_list = sq_tourneys_list,
    .tplayer_add = sq_tplayer_add,
    .tplayers_each = sq_tplayers_each,
    .tplayer_withdraw = sq_tplayer_withdraw,
    .tplayer_remove = sq_tplayer_remove,
    .pairing_insert = sq_pairing_insert,
    .pairings_each = sq_pairings_each,
    .pairing_by_game = sq_pairing_by_game,
    .pairing_set = sq_pairing_set,
    .forbid_add = sq_forbid_add,
    .forbids_each = sq_forbids_each,
    .game_tourney_set = sq_game_tourney_set,
    .game_tourney_get = sq_game_tourney_get,
};
