/*
 * pg_tourney: the PostgreSQL backend's classes and tournaments
 * (store_tourney.h contracts; schema-pg.sql migrations 8 and 10). The same
 * queries as sqlite_tourney.c in PostgreSQL's dialect, one reader per row
 * type, ROW_WALK() making its row function for pg_each(). Decisions that
 * are not obvious:
 *  - Every insert that may meet a UNIQUE constraint (a class's code, a
 *    member, a player or a player's number, a pairing's key or game, a
 *    forbidden pair) is `ON CONFLICT DO NOTHING`: no row is STORE_CONFLICT
 *    and the iteration's transaction goes on (pg_base.h "Constraints").
 *  - A class is inserted only WHERE NOT EXISTS a class with its code: an
 *    identity column takes its next value before ON CONFLICT looks, so a
 *    taken code would leave a gap in the ids that SQLite (max(id) + 1)
 *    does not have. The ON CONFLICT stays for two nodes racing for one
 *    code. INSERT ... SELECT needs its parameters cast (PostgreSQL infers
 *    text for a bare select list).
 *  - Members are ordered by lower(username): SQLite's COLLATE NOCASE
 *    (schema-pg.sql "Text"; the database's collation is C).
 *  - Forbidden pairs are ordered by (a, b): SQLite walks its WITHOUT ROWID
 *    table in primary-key order, which PostgreSQL's heap does not keep.
 *  - `$1::text IS NULL` in the listing of tournaments: a parameter seen
 *    only by IS NULL has no type to infer.
 */
#include "store/pg/pg_areas.h"

#define CLASS_SELECT                                                                               \
    "SELECT c.id, c.name, c.code, c.teacher_id, u.username, c.created FROM classes c "             \
    "JOIN users u ON u.id = c.teacher_id "
#define TOURNEY_SELECT                                                                             \
    "SELECT t.id, t.name, t.system, t.variant, t.time_control, COALESCE(t.position, ''), "         \
    "t.rounds, t.dbl, t.rated, t.bots, COALESCE(t.class_id, 0), t.start_mode, t.status, "          \
    "t.organiser_id, u.username, t.current_round, COALESCE(t.end_reason, ''), t.created, "         \
    "t.updated, t.pairer FROM tournaments t JOIN users u ON u.id = t.organiser_id "
#define PAIRING_SELECT                                                                             \
    "SELECT tournament_id, round, board, white_id, COALESCE(black_id, 0), "                        \
    "COALESCE(game_id, 0), kind, COALESCE(result, ''), by_hand FROM tournament_pairings "
#define TOURNEY_STATEMENTS(X)                                                                      \
    X(CLASS_INSERT, "INSERT INTO classes (name, code, teacher_id, created) "                       \
                    "SELECT $1::text, $2::text, $3::bigint, $4::bigint WHERE NOT EXISTS "          \
                    "(SELECT 1 FROM classes WHERE code = $2::text) "                               \
                    "ON CONFLICT DO NOTHING RETURNING id")                                         \
    X(CLASS_GET, CLASS_SELECT "WHERE c.id = $1")                                                   \
    X(CLASS_BY_CODE, CLASS_SELECT "WHERE c.code = $1")                                             \
    X(CLASSES_OF,                                                                                  \
      CLASS_SELECT "WHERE c.teacher_id = $1 OR c.id IN (SELECT class_id FROM class_members "       \
                   "WHERE user_id = $1) ORDER BY c.id")                                            \
    X(MEMBER_ADD, "INSERT INTO class_members (class_id, user_id, name, created) "                  \
                  "VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING")                                \
    X(MEMBERS_OF,                                                                                  \
      "SELECT m.user_id, u.username, m.name, u.bot FROM class_members m JOIN users u ON "          \
      "u.id = m.user_id WHERE m.class_id = $1 ORDER BY lower(u.username)")                         \
    X(MEMBER_IS, "SELECT 1 FROM class_members WHERE class_id = $1 AND user_id = $2")               \
    X(TOURNEY_INSERT,                                                                              \
      "INSERT INTO tournaments (name, system, variant, time_control, position, rounds, dbl, "      \
      "rated, bots, class_id, start_mode, status, organiser_id, current_round, created, "          \
      "updated, pairer) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, 0, "       \
      "$14, $15, $16) RETURNING id")                                                               \
    X(TOURNEY_GET, TOURNEY_SELECT "WHERE t.id = $1")                                               \
    X(TOURNEY_UPDATE,                                                                              \
      "UPDATE tournaments SET rounds = $2, status = $3, current_round = $4, end_reason = $5, "     \
      "updated = $6 WHERE id = $1")                                                                \
    X(TOURNEYS_LIST,                                                                               \
      TOURNEY_SELECT "WHERE ($1::text IS NULL OR t.status = $1) ORDER BY t.id DESC LIMIT $2")      \
    X(TPLAYER_ADD,                                                                                 \
      "INSERT INTO tournament_players (tournament_id, user_id, number, late_round, joined) "       \
      "VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING")                                        \
    X(TPLAYERS_OF,                                                                                 \
      "SELECT p.user_id, u.username, u.bot, p.number, p.withdrawn, p.late_round FROM "             \
      "tournament_players p JOIN users u ON u.id = p.user_id WHERE p.tournament_id = $1 "          \
      "ORDER BY p.number")                                                                         \
    X(TPLAYER_WITHDRAW,                                                                            \
      "UPDATE tournament_players SET withdrawn = 1 WHERE tournament_id = $1 AND user_id = $2")     \
    X(TPLAYER_REMOVE, "DELETE FROM tournament_players WHERE tournament_id = $1 AND user_id = $2")  \
    X(PAIRING_INSERT,                                                                              \
      "INSERT INTO tournament_pairings (tournament_id, round, board, white_id, black_id, "         \
      "game_id, kind, result, by_hand) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) "               \
      "ON CONFLICT DO NOTHING")                                                                    \
    X(PAIRINGS_OF, PAIRING_SELECT "WHERE tournament_id = $1 ORDER BY round, board")                \
    X(PAIRING_BY_GAME, PAIRING_SELECT "WHERE game_id = $1")                                        \
    X(PAIRING_SET, "UPDATE tournament_pairings SET kind = $4, result = $5, by_hand = $6 "          \
                   "WHERE tournament_id = $1 AND round = $2 AND board = $3")                       \
    X(FORBID_ADD, "INSERT INTO tournament_forbidden (tournament_id, a_id, b_id) "                  \
                  "VALUES ($1, $2, $3) ON CONFLICT DO NOTHING")                                    \
    X(FORBIDS_OF, "SELECT a_id, b_id FROM tournament_forbidden WHERE tournament_id = $1 "          \
                  "ORDER BY a_id, b_id")                                                           \
    X(GAME_T_SET, "UPDATE games SET tournament_id = $2, round = $3 WHERE id = $1")                 \
    X(GAME_T_GET, "SELECT COALESCE(tournament_id, 0), COALESCE(round, 0) "                         \
                  "FROM games WHERE id = $1")

enum { PG_AREA_FIRST(TOURNEY), TOURNEY_STATEMENTS(PG_STMT_ENUM) ST_TOURNEY__END };
static const pg_stmt_def tourney_defs[] = {TOURNEY_STATEMENTS(PG_STMT_DEF)};
PG_AREA_CHECK(TOURNEY);
const pg_area_stmts pg_tourney_stmts = {PG_AREA_TOURNEY, tourney_defs, PG_AREA_COUNT(TOURNEY)};

typedef void (*row_reader)(const PGresult *r, int i, void *row);

/* The walk of a listing of store_T rows: the caller's cb and the row
 * buffer the reader fills, one per listing; T_row() hands each row to cb. */
#define ROW_WALK(T, reader)                                                                        \
    typedef struct T##_walk {                                                                      \
        int (*cb)(void *arg, const store_##T *row);                                                \
        void *arg;                                                                                 \
        store_##T row;                                                                             \
    } T##_walk;                                                                                    \
    static int T##_row(const PGresult *r, int i, void *ctx)                                        \
    {                                                                                              \
        T##_walk *w = ctx;                                                                         \
        reader(r, i, &w->row);                                                                     \
        return w->cb(w->arg, &w->row);                                                             \
    }

/* Row 0 of a pg_one_row() answer (rc its result) into row: STORE_OK,
 * STORE_NOTFOUND, STORE_EIO. */
static int one(PGresult *r, int rc, row_reader read, void *row)
{
    if (rc)
        return rc;
    read(r, 0, row);
    PQclear(r);
    return STORE_OK;
}

/* ---- classes ---------------------------------------------------------- */

static void read_class(const PGresult *r, int i, void *row)
{
    store_class *c = row;
    c->id = pg_col_int(r, i, 0);
    pg_col_text(r, i, 1, c->name, sizeof c->name);
    pg_col_text(r, i, 2, c->code, sizeof c->code);
    c->teacher_id = pg_col_int(r, i, 3);
    pg_col_text(r, i, 4, c->teacher, sizeof c->teacher);
    c->created = pg_col_int(r, i, 5);
}

ROW_WALK(class, read_class)

static int pg_class_insert(store *base, store_class *c)
{
    PGresult *r;
    int rc = pg_one_row(pg_of(base), ST_CLASS_INSERT, &r, "ttii", c->name, c->code, c->teacher_id,
                        c->created);
    if (rc)
        return rc == STORE_NOTFOUND ? STORE_CONFLICT : rc;
    c->id = pg_col_int(r, 0, 0);
    PQclear(r);
    return STORE_OK;
}

static int pg_class_get(store *base, int64_t id, store_class *out)
{
    PGresult *r;
    int rc = pg_one_row(pg_of(base), ST_CLASS_GET, &r, "i", id);
    return one(r, rc, read_class, out);
}

static int pg_class_by_code(store *base, const char *code, store_class *out)
{
    PGresult *r;
    int rc = pg_one_row(pg_of(base), ST_CLASS_BY_CODE, &r, "t", code);
    return one(r, rc, read_class, out);
}

static int pg_classes_of(store *base, int64_t user_id, store_class_cb cb, void *arg)
{
    return pg_each(pg_of(base), ST_CLASSES_OF, class_row, &(class_walk){.cb = cb, .arg = arg}, "i",
                   user_id);
}

static int pg_member_add(store *base, int64_t class_id, int64_t user_id, const char *name,
                         int64_t now)
{
    return pg_run_conflict(pg_of(base), ST_MEMBER_ADD, "iiti", class_id, user_id, name, now);
}

static void read_member(const PGresult *r, int i, void *row)
{
    store_member *m = row;
    m->user_id = pg_col_int(r, i, 0);
    pg_col_text(r, i, 1, m->username, sizeof m->username);
    pg_col_text(r, i, 2, m->name, sizeof m->name);
    m->bot = pg_col_int(r, i, 3) != 0;
}

ROW_WALK(member, read_member)

static int pg_members_each(store *base, int64_t class_id, store_member_cb cb, void *arg)
{
    return pg_each(pg_of(base), ST_MEMBERS_OF, member_row, &(member_walk){.cb = cb, .arg = arg},
                   "i", class_id);
}

static int pg_member_is(store *base, int64_t class_id, int64_t user_id, bool *yes)
{
    PGresult *r;
    int rc = pg_one_row(pg_of(base), ST_MEMBER_IS, &r, "ii", class_id, user_id);
    if (rc && rc != STORE_NOTFOUND)
        return rc;
    PQclear(r);
    *yes = rc == STORE_OK;
    return STORE_OK;
}

/* ---- tournaments ------------------------------------------------------ */

static void read_tourney(const PGresult *r, int i, void *row)
{
    store_tourney *t = row;
    t->id = pg_col_int(r, i, 0);
    pg_col_text(r, i, 1, t->name, sizeof t->name);
    pg_col_text(r, i, 2, t->system, sizeof t->system);
    pg_col_text(r, i, 3, t->variant, sizeof t->variant);
    pg_col_text(r, i, 4, t->time_control, sizeof t->time_control);
    pg_col_text(r, i, 5, t->position, sizeof t->position);
    t->rounds = pg_col_int(r, i, 6);
    t->dbl = pg_col_int(r, i, 7) != 0;
    t->rated = pg_col_int(r, i, 8) != 0;
    t->bots = pg_col_int(r, i, 9) != 0;
    t->class_id = pg_col_int(r, i, 10);
    pg_col_text(r, i, 11, t->start_mode, sizeof t->start_mode);
    pg_col_text(r, i, 12, t->status, sizeof t->status);
    t->organiser_id = pg_col_int(r, i, 13);
    pg_col_text(r, i, 14, t->organiser, sizeof t->organiser);
    t->current_round = pg_col_int(r, i, 15);
    pg_col_text(r, i, 16, t->end_reason, sizeof t->end_reason);
    t->created = pg_col_int(r, i, 17);
    t->updated = pg_col_int(r, i, 18);
    pg_col_text(r, i, 19, t->pairer, sizeof t->pairer);
}

ROW_WALK(tourney, read_tourney)

static int pg_tourney_insert(store *base, store_tourney *t)
{
    PGresult *r;
    int rc =
        pg_one_row(pg_of(base), ST_TOURNEY_INSERT, &r, "ttttTiiiiottiiit", t->name, t->system,
                   t->variant, t->time_control, t->position, t->rounds, (int64_t)t->dbl,
                   (int64_t)t->rated, (int64_t)t->bots, t->class_id, t->start_mode, t->status,
                   t->organiser_id, t->created, t->updated, t->pairer[0] ? t->pairer : "builtin");
    if (rc)
        return rc == STORE_NOTFOUND ? STORE_EIO : rc; /* RETURNING always answers a row */
    t->id = pg_col_int(r, 0, 0);
    PQclear(r);
    return STORE_OK;
}

static int pg_tourney_get(store *base, int64_t id, store_tourney *out)
{
    PGresult *r;
    int rc = pg_one_row(pg_of(base), ST_TOURNEY_GET, &r, "i", id);
    return one(r, rc, read_tourney, out);
}

static int pg_tourney_update(store *base, const store_tourney *t)
{
    return pg_run_one(pg_of(base), ST_TOURNEY_UPDATE, "iitiTi", t->id, t->rounds, t->status,
                      t->current_round, t->end_reason, t->updated);
}

static int pg_tourneys_list(store *base, const char *status, int64_t limit, store_tourney_cb cb,
                            void *arg)
{
    return pg_each(pg_of(base), ST_TOURNEYS_LIST, tourney_row,
                   &(tourney_walk){.cb = cb, .arg = arg}, "Ti", status, limit);
}

static int pg_tplayer_add(store *base, int64_t tid, int64_t user_id, int64_t number,
                          int64_t late_round, int64_t now)
{
    return pg_run_conflict(pg_of(base), ST_TPLAYER_ADD, "iiiii", tid, user_id, number, late_round,
                           now);
}

static void read_tplayer(const PGresult *r, int i, void *row)
{
    store_tplayer *p = row;
    p->user_id = pg_col_int(r, i, 0);
    pg_col_text(r, i, 1, p->username, sizeof p->username);
    p->bot = pg_col_int(r, i, 2) != 0;
    p->number = pg_col_int(r, i, 3);
    p->withdrawn = pg_col_int(r, i, 4) != 0;
    p->late_round = pg_col_int(r, i, 5);
}

ROW_WALK(tplayer, read_tplayer)

static int pg_tplayers_each(store *base, int64_t tid, store_tplayer_cb cb, void *arg)
{
    return pg_each(pg_of(base), ST_TPLAYERS_OF, tplayer_row, &(tplayer_walk){.cb = cb, .arg = arg},
                   "i", tid);
}

static int pg_tplayer_withdraw(store *base, int64_t tid, int64_t user_id)
{
    return pg_run_one(pg_of(base), ST_TPLAYER_WITHDRAW, "ii", tid, user_id);
}

static int pg_tplayer_remove(store *base, int64_t tid, int64_t user_id)
{
    return pg_run_one(pg_of(base), ST_TPLAYER_REMOVE, "ii", tid, user_id);
}

static void read_pairing(const PGresult *r, int i, void *row)
{
    store_pairing *p = row;
    p->tournament_id = pg_col_int(r, i, 0);
    p->round = pg_col_int(r, i, 1);
    p->board = pg_col_int(r, i, 2);
    p->white_id = pg_col_int(r, i, 3);
    p->black_id = pg_col_int(r, i, 4);
    p->game_id = pg_col_int(r, i, 5);
    pg_col_text(r, i, 6, p->kind, sizeof p->kind);
    pg_col_text(r, i, 7, p->result, sizeof p->result);
    p->by_hand = pg_col_int(r, i, 8) != 0;
}

ROW_WALK(pairing, read_pairing)

static int pg_pairing_insert(store *base, const store_pairing *p)
{
    return pg_run_conflict(pg_of(base), ST_PAIRING_INSERT, "iiiiootTi", p->tournament_id, p->round,
                           p->board, p->white_id, p->black_id, p->game_id, p->kind, p->result,
                           (int64_t)p->by_hand);
}

static int pg_pairings_each(store *base, int64_t tid, store_pairing_cb cb, void *arg)
{
    return pg_each(pg_of(base), ST_PAIRINGS_OF, pairing_row, &(pairing_walk){.cb = cb, .arg = arg},
                   "i", tid);
}

static int pg_pairing_by_game(store *base, int64_t game_id, store_pairing *out)
{
    PGresult *r;
    int rc = pg_one_row(pg_of(base), ST_PAIRING_BY_GAME, &r, "i", game_id);
    return one(r, rc, read_pairing, out);
}

static int pg_pairing_set(store *base, const store_pairing *p)
{
    return pg_run_one(pg_of(base), ST_PAIRING_SET, "iiitTi", p->tournament_id, p->round, p->board,
                      p->kind, p->result, (int64_t)p->by_hand);
}

static int pg_forbid_add(store *base, int64_t tid, int64_t a, int64_t b)
{
    return pg_run_conflict(pg_of(base), ST_FORBID_ADD, "iii", tid, a, b);
}

typedef struct forbid_walk {
    int (*cb)(void *arg, int64_t a, int64_t b);
    void *arg;
} forbid_walk;

static int forbid_row(const PGresult *r, int i, void *ctx)
{
    forbid_walk *w = ctx;
    return w->cb(w->arg, pg_col_int(r, i, 0), pg_col_int(r, i, 1));
}

static int pg_forbids_each(store *base, int64_t tid, int (*cb)(void *arg, int64_t a, int64_t b),
                           void *arg)
{
    return pg_each(pg_of(base), ST_FORBIDS_OF, forbid_row, &(forbid_walk){cb, arg}, "i", tid);
}

static int pg_game_tourney_set(store *base, int64_t game_id, int64_t tid, int64_t round)
{
    return pg_run_one(pg_of(base), ST_GAME_T_SET, "ioo", game_id, tid, round);
}

static int pg_game_tourney_get(store *base, int64_t game_id, int64_t *tid, int64_t *round)
{
    PGresult *r;
    int rc = pg_one_row(pg_of(base), ST_GAME_T_GET, &r, "i", game_id);
    if (rc)
        return rc;
    *tid = pg_col_int(r, 0, 0);
    *round = pg_col_int(r, 0, 1);
    PQclear(r);
    return STORE_OK;
}

const store_tourney_ops pg_tourney_ops = {
    .class_insert = pg_class_insert,
    .class_get = pg_class_get,
    .class_by_code = pg_class_by_code,
    .classes_of = pg_classes_of,
    .member_add = pg_member_add,
    .members_each = pg_members_each,
    .member_is = pg_member_is,
    .tourney_insert = pg_tourney_insert,
    .tourney_get = pg_tourney_get,
    .tourney_update = pg_tourney_update,
    .tourneys_list = pg_tourneys_list,
    .tplayer_add = pg_tplayer_add,
    .tplayers_each = pg_tplayers_each,
    .tplayer_withdraw = pg_tplayer_withdraw,
    .tplayer_remove = pg_tplayer_remove,
    .pairing_insert = pg_pairing_insert,
    .pairings_each = pg_pairings_each,
    .pairing_by_game = pg_pairing_by_game,
    .pairing_set = pg_pairing_set,
    .forbid_add = pg_forbid_add,
    .forbids_each = pg_forbids_each,
    .game_tourney_set = pg_game_tourney_set,
    .game_tourney_get = pg_game_tourney_get,
};
