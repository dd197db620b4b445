/*
 * The games area (store_games.h: games, moves, the listing and its search
 * filters, the challenge of a game, the draw-offer throttle, the damaged
 * mark) on both backends: one sequence of operations runs on a fresh
 * PostgreSQL database and on a fresh SQLite file, each call's code and
 * every field of every row it returns is written as one line of a trace,
 * and the two traces must be equal line for line (storecmp.h). The
 * sequence asserts exact values too (ids, orders, codes), so both
 * backends being wrong alike fails as well.
 *
 * Then what only PostgreSQL can show (issue 22, "a ply is accepted once
 * across all nodes"): two stores on one database, as two nodes, race for
 * the same ply; the second waits for the first's row lock and gets
 * STORE_CONFLICT with its transaction still usable. And the one case where
 * the backends answer differently by design (pg_games.c): a moves row
 * that already exists at the game's ply.
 *
 * The rows this area only points at (a class, a tournament, an imported
 * game's record names) are written with plain SQL, the same text on both
 * databases, so the test needs no other area than users.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pgtest.h"
#include "storecmp.h"

TestSuite(pg_games, .init = cmp_init, .fini = cmp_fini, .timeout = 60);

/* ---- this area's rows in the trace ------------------------------------ */

static void tr_game(cmp_trace *t, const store_game *g)
{
    cmp_tr(t,
           "  game id=%lld variant=%s white_id=%lld black_id=%lld white=%s black=%s start=%s "
           "position=%s ply=%lld turn=%s status=%s result=%s reason=%s tc=%s deadline=%lld "
           "white_ms=%lld black_ms=%lld created=%lld updated=%lld white_bot=%d black_bot=%d "
           "rated=%d imported=%d tournament=%lld\n",
           (long long)g->id, g->variant, (long long)g->white_id, (long long)g->black_id, g->white,
           g->black, g->start, g->position, (long long)g->ply, g->turn, g->status, g->result,
           g->reason, g->time_control, (long long)g->deadline, (long long)g->white_ms,
           (long long)g->black_ms, (long long)g->created, (long long)g->updated, g->white_bot,
           g->black_bot, g->rated, g->imported, (long long)g->tournament);
}

static int on_game(void *arg, const store_game *g)
{
    cmp_seen *w = arg;
    tr_game(w->t, g);
    return cmp_keep(w, g->id);
}

static int on_move(void *arg, int64_t ply, const char *move, int64_t user_id)
{
    cmp_seen *w = arg;
    cmp_tr(w->t, "  move ply=%lld move=%s user_id=%lld\n", (long long)ply, move,
           (long long)user_id);
    return cmp_keep(w, ply);
}

/* ---- games ------------------------------------------------------------ */

#define TC_UNLIMITED "{\"kind\":\"unlimited\"}"

static int64_t insert(cmp_trace *t, store *s, store_game *g)
{
    cmp_rc(t, "game_insert", store_game_insert(s, g));
    cmp_tr(t, "  id=%lld\n", (long long)g->id);
    return g->id;
}

static void get(cmp_trace *t, store *s, int64_t id, store_game *g)
{
    char what[32];
    snprintf(what, sizeof what, "game_get %lld", (long long)id);
    if (cmp_rc(t, what, store_game_get(s, id, g)) == STORE_OK)
        tr_game(t, g);
}

/* games_query() traced under a label, its rc returned, its ids in w. */
static int query(cmp_trace *t, store *s, const char *what, const store_game_filter *f, cmp_seen *w)
{
    *w = cmp_fresh(t);
    return cmp_rc(t, what, store_games_query(s, f, on_game, w));
}

static void played(store_played *p, int64_t game, int64_t ply, const char *move, int64_t user,
                   int64_t now, const char *pos, const char *turn)
{
    *p = (store_played){.game_id = game,
                        .ply = ply,
                        .move = move,
                        .user_id = user,
                        .created = now,
                        .clock_ms = -1,
                        .position = pos,
                        .turn = turn,
                        .deadline = -1,
                        .white_ms = -1,
                        .black_ms = -1,
                        .wake_at = -1};
}

/* The users, the games and the rows they point at: g1..g7 (see the
 * listing's expectations below). */
static void games_setup(cmp_side *b, cmp_trace *t, int64_t u[6])
{
    store *s = b->s;
    u[1] = cmp_user(s, "alice", false);
    u[2] = cmp_user(s, "Bob", false);
    u[3] = cmp_user(s, "carol", false);
    u[4] = cmp_user(s, "botty", true);
    u[5] = cmp_user(s, "dave", false);
    cr_assert_eq(u[5], 5);
    store_game g;
    cr_assert_eq(cmp_rc(t, "begin", store_begin(s)), STORE_OK);
    g = cmp_a_game(u[1], u[2], TC_UNLIMITED, 1000); /* g1: alice-bob, no deadline */
    cr_assert_eq(insert(t, s, &g), 1);
    g = cmp_a_game(u[2], u[3], CMP_TC_CORR, 2000); /* g2: bob-carol, correspondence, rated */
    snprintf(g.variant, sizeof g.variant, "zamma");
    g.deadline = 500000;
    g.rated = true;
    cr_assert_eq(insert(t, s, &g), 2);
    g = cmp_a_game(u[1], u[4], CMP_TC_LIVE, 3000); /* g3: alice-botty, live clocks */
    g.deadline = 70000;
    g.white_ms = g.black_ms = 60000;
    cr_assert_eq(insert(t, s, &g), 3);
    g = cmp_a_game(u[3], u[1], TC_UNLIMITED, 4000); /* g4: carol-alice, drawn */
    snprintf(g.status, sizeof g.status, "finished");
    snprintf(g.result, sizeof g.result, "draw");
    snprintf(g.reason, sizeof g.reason, "agreement");
    cr_assert_eq(insert(t, s, &g), 4);
    g = cmp_a_game(u[4], u[3], CMP_TC_CORR, 5000); /* g5: botty-carol, class-only tournament */
    snprintf(g.turn, sizeof g.turn, "black");
    g.deadline = 300000;
    cr_assert_eq(insert(t, s, &g), 5);
    g = cmp_a_game(u[4], u[1], TC_UNLIMITED, 6000); /* g6: imported, white won */
    snprintf(g.status, sizeof g.status, "finished");
    snprintf(g.result, sizeof g.result, "white");
    cr_assert_eq(insert(t, s, &g), 6);
    g = cmp_a_game(u[1], u[3], CMP_TC_CORR, 7000); /* g7: alice-carol, private */
    g.deadline = 100000;
    cr_assert_eq(insert(t, s, &g), 7);
    store_game_x x = {.vacation = true, .priv = true, .warned_deadline = -1, .wake_at = -1};
    cr_assert_eq(cmp_rc(t, "game_x_put 7 private", store_game_x_put(s, 7, &x)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);
    /* Class 1 (teacher bob, member dave), its tournament 1 (organiser
     * bob) holding g5; g6 imported with one record name. */
    cmp_exec(b, "INSERT INTO classes (name, code, teacher_id, created) "
                "VALUES ('c', 'CODE1', 2, 100)");
    cmp_exec(b, "INSERT INTO class_members (class_id, user_id, name, created) "
                "VALUES (1, 5, '', 100)");
    cmp_exec(b, "INSERT INTO tournaments (name, system, variant, time_control, rounds, class_id, "
                "start_mode, status, organiser_id, created, updated) VALUES ('t', 'swiss', "
                "'alquerque', '{\"kind\":\"unlimited\"}', 3, 1, 'organiser', 'running', 2, 100, "
                "100)");
    cmp_exec(b, "INSERT INTO tournament_players (tournament_id, user_id, number, joined) "
                "VALUES (1, 4, 1, 100), (1, 3, 2, 100)");
    cmp_exec(b, "UPDATE games SET tournament_id = 1, round = 1 WHERE id = 5");
    cmp_exec(b, "UPDATE games SET imported = 1, imported_white = 'Ann Old' WHERE id = 6");
}

/* Rows and writes: insert, get, update, moves, the per-move path. */
static void rows_sequence(cmp_side *b, cmp_trace *t)
{
    store *s = b->s;
    store_game g;
    int64_t u[6];
    games_setup(b, t, u);

    get(t, s, 3, &g);
    cr_assert_str_eq(g.black, "botty");
    cr_assert(g.black_bot && !g.white_bot && g.white_ms == 60000 && g.deadline == 70000);
    get(t, s, 6, &g); /* imported: the record's names, never a bot */
    cr_assert_str_eq(g.white, "Ann Old");
    cr_assert_str_eq(g.black, "?");
    cr_assert(g.imported && !g.white_bot && g.white_id == 4);
    get(t, s, 2, &g);
    cr_assert(g.rated && g.deadline == 500000 && g.white_ms == -1);
    cr_assert_str_eq(g.white, "Bob");
    get(t, s, 5, &g);
    cr_assert_eq(g.tournament, 1);
    cr_assert_eq(cmp_rc(t, "game_get 99", store_game_get(s, 99, &g)), STORE_NOTFOUND);

    /* game_update, and a rolled-back one that leaves nothing. */
    cr_assert_eq(store_begin(s), STORE_OK);
    get(t, s, 4, &g);
    snprintf(g.reason, sizeof g.reason, "repetition");
    g.updated = 4500;
    cr_assert_eq(cmp_rc(t, "game_update 4", store_game_update(s, &g)), STORE_OK);
    g.id = 99;
    cr_assert_eq(cmp_rc(t, "game_update 99", store_game_update(s, &g)), STORE_NOTFOUND);
    cr_assert_eq(store_commit(s), STORE_OK);
    get(t, s, 4, &g);
    cr_assert_str_eq(g.reason, "repetition");
    cr_assert_eq(store_begin(s), STORE_OK);
    get(t, s, 2, &g);
    snprintf(g.status, sizeof g.status, "aborted");
    cr_assert_eq(cmp_rc(t, "game_update 2 aborted", store_game_update(s, &g)), STORE_OK);
    get(t, s, 2, &g);
    cr_assert_str_eq(g.status, "aborted"); /* inside the transaction */
    store_rollback(s);
    get(t, s, 2, &g);
    cr_assert_str_eq(g.status, "active");

    /* move_insert: a taken ply is a conflict, and the transaction goes on. */
    cmp_seen w;
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(cmp_rc(t, "move_insert 4/0", store_move_insert(s, 4, 0, "a1-b2", u[3], 4100)),
                 STORE_OK);
    cr_assert_eq(cmp_rc(t, "move_insert 4/0 again", store_move_insert(s, 4, 0, "x", u[3], 4101)),
                 STORE_CONFLICT);
    cr_assert_eq(cmp_rc(t, "move_insert 4/1", store_move_insert(s, 4, 1, "c3-d4", u[1], 4200)),
                 STORE_OK);
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);
    w = cmp_fresh(t);
    cr_assert_eq(cmp_rc(t, "moves_each 4", store_moves_each(s, 4, on_move, &w)), 0);
    CMP_IDS(w, 0, 1);
    w = cmp_fresh(t);
    cr_assert_eq(cmp_rc(t, "moves_each 99", store_moves_each(s, 99, on_move, &w)), 0);
    CMP_IDS(w);

    /* move_played, untimed: the draw offer goes, the clocks stay. */
    store_played p;
    store_game_x x;
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(store_game_x_get(s, 1, &x), STORE_OK);
    snprintf(x.draw_offer, sizeof x.draw_offer, "black");
    cr_assert_eq(store_game_x_put(s, 1, &x), STORE_OK);
    played(&p, 1, 0, "e1-e2", u[1], 1100, "P1", "black");
    cr_assert_eq(cmp_rc(t, "move_played 1/0", store_move_played(s, &p)), STORE_OK);
    get(t, s, 1, &g);
    cr_assert(g.ply == 1 && g.updated == 1100 && g.deadline == -1);
    cr_assert_str_eq(g.position, "P1");
    cr_assert_str_eq(g.turn, "black");
    cr_assert_eq(store_game_x_get(s, 1, &x), STORE_OK);
    cmp_tr(t, "  x draw_offer=%s wake_at=%lld\n", x.draw_offer, (long long)x.wake_at);
    cr_assert_str_eq(x.draw_offer, "");
    /* The same ply again (a stale write): nothing written, the
     * transaction goes on. */
    played(&p, 1, 0, "e1-e3", u[1], 1150, "PX", "black");
    cr_assert_eq(cmp_rc(t, "move_played 1/0 again", store_move_played(s, &p)), STORE_CONFLICT);
    played(&p, 99, 0, "e1-e3", u[1], 1150, "PX", "black");
    cr_assert_eq(cmp_rc(t, "move_played 99/0", store_move_played(s, &p)), STORE_NOTFOUND);
    played(&p, 1, 1, "a5-a4", u[2], 1200, "P2", "white");
    cr_assert_eq(cmp_rc(t, "move_played 1/1", store_move_played(s, &p)), STORE_OK);
    /* Timed: the deadline, both clocks, the wake-up and the mover's clock. */
    played(&p, 3, 0, "b1-b2", u[1], 3100, "Q1", "black");
    p.times_changed = true;
    p.clock_ms = 59000;
    p.deadline = 130000;
    p.white_ms = 59000;
    p.black_ms = 60000;
    p.wake_at = 130000;
    cr_assert_eq(cmp_rc(t, "move_played 3/0 timed", store_move_played(s, &p)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);
    get(t, s, 1, &g);
    cr_assert(g.ply == 2 && g.updated == 1200);
    cr_assert_str_eq(g.position, "P2");
    get(t, s, 3, &g);
    cr_assert(g.ply == 1 && g.deadline == 130000 && g.white_ms == 59000 && g.black_ms == 60000);
    cr_assert_eq(store_game_x_get(s, 3, &x), STORE_OK);
    cmp_tr(t, "  x wake_at=%lld\n", (long long)x.wake_at);
    cr_assert_eq(x.wake_at, 130000);
    long long clock = cmp_int(b, "SELECT clock_ms FROM moves WHERE game_id = 3 AND ply = 0");
    long long noclock = cmp_int(b, "SELECT clock_ms FROM moves WHERE game_id = 1 AND ply = 0");
    cmp_tr(t, "  clock_ms 3/0=%lld 1/0=%lld\n", clock, noclock);
    cr_assert(clock == 59000 && noclock == -1);
    w = cmp_fresh(t);
    cr_assert_eq(cmp_rc(t, "moves_each 1", store_moves_each(s, 1, on_move, &w)), 0);
    CMP_IDS(w, 0, 1);
    w = cmp_fresh(t);
    w.stop_after = 1;
    cr_assert_eq(cmp_rc(t, "moves_each 1 stopped", store_moves_each(s, 1, on_move, &w)), 7);
    CMP_IDS(w, 0);

    /* The challenge of a game. */
    int64_t ch = -1;
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(cmp_rc(t, "challenge_get 1", store_game_challenge_get(s, 1, &ch)), STORE_OK);
    cr_assert_eq(ch, 0);
    cr_assert_eq(cmp_rc(t, "challenge_put 1 42", store_game_challenge_put(s, 1, 42)), STORE_OK);
    cr_assert_eq(store_game_challenge_get(s, 1, &ch), STORE_OK);
    cmp_tr(t, "  challenge=%lld\n", (long long)ch);
    cr_assert_eq(ch, 42);
    cr_assert_eq(cmp_rc(t, "challenge_put 99", store_game_challenge_put(s, 99, 1)), STORE_NOTFOUND);
    cr_assert_eq(cmp_rc(t, "challenge_get 99", store_game_challenge_get(s, 99, &ch)),
                 STORE_NOTFOUND);
    cr_assert_eq(cmp_rc(t, "challenge_put 2 0", store_game_challenge_put(s, 2, 0)), STORE_OK);
    cr_assert_eq(store_game_challenge_get(s, 2, &ch), STORE_OK);
    cr_assert_eq(ch, 0);

    /* The draw-offer throttle. */
    int64_t ply = -1;
    cr_assert_eq(cmp_rc(t, "draw_ply_get 1 white", store_draw_ply_get(s, 1, "white", &ply)),
                 STORE_NOTFOUND);
    cr_assert_eq(cmp_rc(t, "draw_ply_put 1 white 2", store_draw_ply_put(s, 1, "white", 2)),
                 STORE_OK);
    cr_assert_eq(store_draw_ply_get(s, 1, "white", &ply), STORE_OK);
    cr_assert_eq(ply, 2);
    cr_assert_eq(cmp_rc(t, "draw_ply_put 1 white 4", store_draw_ply_put(s, 1, "white", 4)),
                 STORE_OK);
    cr_assert_eq(store_draw_ply_get(s, 1, "white", &ply), STORE_OK);
    cmp_tr(t, "  draw ply=%lld\n", (long long)ply);
    cr_assert_eq(ply, 4);
    cr_assert_eq(cmp_rc(t, "draw_ply_get 1 black", store_draw_ply_get(s, 1, "black", &ply)),
                 STORE_NOTFOUND);

    /* The damaged mark. */
    bool dmg = true;
    cr_assert_eq(cmp_rc(t, "damaged_get 2", store_game_damaged_get(s, 2, &dmg)), STORE_OK);
    cr_assert(!dmg);
    cr_assert_eq(cmp_rc(t, "damaged_set 2", store_game_damaged_set(s, 2)), STORE_OK);
    cr_assert_eq(store_game_damaged_get(s, 2, &dmg), STORE_OK);
    cr_assert(dmg);
    cr_assert_eq(cmp_rc(t, "damaged_get 99", store_game_damaged_get(s, 99, &dmg)), STORE_NOTFOUND);
    cr_assert_eq(cmp_rc(t, "damaged_set 99", store_game_damaged_set(s, 99)), STORE_OK);
    cr_assert_eq(cmp_rc(t, "commit", store_commit(s)), STORE_OK);
    cr_assert_eq(store_game_damaged_get(s, 2, &dmg), STORE_OK);
    cr_assert(dmg);
    cmp_tr(t, "  damaged=%d\n", dmg);
}

Test(pg_games, rows_alike)
{
    CMP_RUN(rows_sequence);
}

/* ---- the listing ------------------------------------------------------ */

/* After games_setup and two moves of g1 (alice's turn again) and one of
 * g3 (botty's turn):
 *   g1 alice-bob    active  white to move (alice)  no deadline  1000
 *   g2 Bob-carol    active  white (bob)            500000 zamma 2000
 *   g3 alice-botty  active  black (botty)          70000        3000
 *   g4 carol-alice  finished draw                               4000
 *   g5 botty-carol  active  black (carol) 300000, tournament 1 (class-only) 5000
 *   g6 botty-alice  finished white, imported                    6000
 *   g7 alice-carol  active  white (alice) 100000, private       7000 */
static void listing_sequence(cmp_side *b, cmp_trace *t)
{
    store *s = b->s;
    int64_t u[6];
    games_setup(b, t, u);
    store_played p;
    cr_assert_eq(store_begin(s), STORE_OK);
    played(&p, 1, 0, "e1-e2", u[1], 1100, "P1", "black");
    cr_assert_eq(store_move_played(s, &p), STORE_OK);
    played(&p, 1, 1, "a5-a4", u[2], 1200, "P2", "white");
    cr_assert_eq(store_move_played(s, &p), STORE_OK);
    played(&p, 3, 0, "b1-b2", u[1], 3100, "Q1", "black");
    cr_assert_eq(store_move_played(s, &p), STORE_OK);
    cr_assert_eq(store_commit(s), STORE_OK);

    cmp_seen w;
    store_game_filter f = {.user_id = u[1], .limit = 10};
    cr_assert_eq(query(t, s, "alice's", &f, &w), 0);
    CMP_IDS(w, 7, 6, 4, 3, 1);
    f.status = "active";
    cr_assert_eq(query(t, s, "alice's active", &f, &w), 0);
    CMP_IDS(w, 7, 3, 1);
    f = (store_game_filter){.turn_user_id = u[1], .limit = 10};
    cr_assert_eq(query(t, s, "alice's turn", &f, &w), 0);
    CMP_IDS(w, 7, 1); /* soonest deadline first, none last */
    f.status = "finished";
    cr_assert_eq(query(t, s, "alice's turn finished", &f, &w), 0);
    CMP_IDS(w);
    f = (store_game_filter){.turn_user_id = u[3], .limit = 10};
    cr_assert_eq(query(t, s, "carol's turn", &f, &w), 0);
    CMP_IDS(w, 5);
    f = (store_game_filter){
        .turn_user_id = u[1], .user_id = u[1], .opponent_id = u[2], .limit = 10};
    cr_assert_eq(query(t, s, "alice's turn against bob", &f, &w), 0);
    CMP_IDS(w, 1);
    f = (store_game_filter){.user_id = u[1], .opponent_id = u[2], .limit = 10};
    cr_assert_eq(query(t, s, "alice against bob", &f, &w), 0);
    CMP_IDS(w, 1);
    f = (store_game_filter){
        .user_id = u[1], .opponent_id = u[3], .status = "finished", .limit = 10};
    cr_assert_eq(query(t, s, "alice against carol finished", &f, &w), 0);
    CMP_IDS(w, 4);
    f = (store_game_filter){.variant = "zamma", .limit = 10};
    cr_assert_eq(query(t, s, "zamma", &f, &w), 0);
    CMP_IDS(w, 2);
    f = (store_game_filter){.variant = "nope", .limit = 10};
    cr_assert_eq(query(t, s, "no such variant", &f, &w), 0);
    CMP_IDS(w);
    /* Paging down with before. */
    f = (store_game_filter){.before = 5, .limit = 2};
    cr_assert_eq(query(t, s, "before 5", &f, &w), 0);
    CMP_IDS(w, 4, 3);
    f.before = 3;
    cr_assert_eq(query(t, s, "before 3", &f, &w), 0);
    CMP_IDS(w, 2, 1);
    f.before = 1;
    cr_assert_eq(query(t, s, "before 1", &f, &w), 0);
    CMP_IDS(w);
    /* Who may see what. */
    f = (store_game_filter){.viewer_id = u[1], .limit = 10};
    cr_assert_eq(query(t, s, "seen by alice", &f, &w), 0);
    CMP_IDS(w, 7, 6, 4, 3, 2, 1); /* not g5: a class-only tournament's */
    f.viewer_id = u[2];
    cr_assert_eq(query(t, s, "seen by bob", &f, &w), 0);
    CMP_IDS(w, 6, 5, 4, 3, 2, 1); /* the organiser and teacher; not private g7 */
    f.viewer_id = u[5];
    cr_assert_eq(query(t, s, "seen by dave", &f, &w), 0);
    CMP_IDS(w, 6, 5, 4, 3, 2, 1); /* a member of the class */
    f.viewer_id = u[3];
    cr_assert_eq(query(t, s, "seen by carol", &f, &w), 0);
    CMP_IDS(w, 7, 6, 5, 4, 3, 2, 1);
    f = (store_game_filter){.viewer_id = u[1], .turn_user_id = u[3], .limit = 10};
    cr_assert_eq(query(t, s, "carol's turn seen by alice", &f, &w), 0);
    CMP_IDS(w);
    f = (store_game_filter){.viewer_id = u[2], .opponent_id = u[3], .limit = 10};
    cr_assert_eq(query(t, s, "with carol seen by bob", &f, &w), 0);
    CMP_IDS(w, 5, 4, 2);
    /* The search filters. */
    f = (store_game_filter){.result = "draw", .limit = 10};
    cr_assert_eq(query(t, s, "drawn", &f, &w), 0);
    CMP_IDS(w, 4);
    f = (store_game_filter){.result = "white", .limit = 10};
    cr_assert_eq(query(t, s, "white won", &f, &w), 0);
    CMP_IDS(w, 6);
    f = (store_game_filter){.imported = 1, .limit = 10};
    cr_assert_eq(query(t, s, "imported", &f, &w), 0);
    CMP_IDS(w, 6);
    f = (store_game_filter){.imported = -1, .user_id = u[1], .limit = 10};
    cr_assert_eq(query(t, s, "alice's played", &f, &w), 0);
    CMP_IDS(w, 7, 4, 3, 1);
    f = (store_game_filter){.since = 3000, .until = 6000, .limit = 10};
    cr_assert_eq(query(t, s, "created 3000..6000", &f, &w), 0);
    CMP_IDS(w, 6, 5, 4, 3);
    f = (store_game_filter){.since = 6500, .limit = 10};
    cr_assert_eq(query(t, s, "since 6500", &f, &w), 0);
    CMP_IDS(w, 7);
    f = (store_game_filter){.tournament = 1, .limit = 10};
    cr_assert_eq(query(t, s, "tournament 1", &f, &w), 0);
    CMP_IDS(w, 5);
    f = (store_game_filter){.tournament = 1, .viewer_id = u[1], .limit = 10};
    cr_assert_eq(query(t, s, "tournament 1 seen by alice", &f, &w), 0);
    CMP_IDS(w);
    f = (store_game_filter){.after = 2, .ascending = true, .limit = 3};
    cr_assert_eq(query(t, s, "after 2 ascending", &f, &w), 0);
    CMP_IDS(w, 3, 4, 5);
    f.after = 5;
    cr_assert_eq(query(t, s, "after 5 ascending", &f, &w), 0);
    CMP_IDS(w, 6, 7);
    f = (store_game_filter){.ascending = true, .limit = 2};
    cr_assert_eq(query(t, s, "ascending", &f, &w), 0);
    CMP_IDS(w, 1, 2);
    f = (store_game_filter){.after = 2, .before = 6, .limit = 10};
    cr_assert_eq(query(t, s, "after 2 before 6", &f, &w), 0);
    CMP_IDS(w, 5, 4, 3);
    f = (store_game_filter){.status = "active", .since = 1, .variant = "alquerque", .limit = 10};
    cr_assert_eq(query(t, s, "active alquerque since 1", &f, &w), 0);
    CMP_IDS(w, 7, 5, 3, 1);
    f = (store_game_filter){.turn_user_id = u[1], .since = 1, .limit = 10};
    cr_assert_eq(query(t, s, "alice's turn since 1", &f, &w), 0);
    CMP_IDS(w, 7, 1); /* the search statement: newest first */
    f = (store_game_filter){.user_id = u[1], .opponent_id = u[3], .ascending = true, .limit = 10};
    cr_assert_eq(query(t, s, "alice against carol ascending", &f, &w), 0);
    CMP_IDS(w, 4, 7);
    f = (store_game_filter){.result = "white", .viewer_id = u[1], .limit = 10};
    cr_assert_eq(query(t, s, "white won seen by alice", &f, &w), 0);
    CMP_IDS(w, 6);
    /* A callback that stops: its value comes back. */
    f = (store_game_filter){.limit = 10};
    w = cmp_fresh(t);
    w.stop_after = 2;
    cr_assert_eq(cmp_rc(t, "all stopped", store_games_query(s, &f, on_game, &w)), 7);
    CMP_IDS(w, 7, 6);
    f.ascending = true;
    w = cmp_fresh(t);
    w.stop_after = 1;
    cr_assert_eq(cmp_rc(t, "search stopped", store_games_query(s, &f, on_game, &w)), 7);
    CMP_IDS(w, 1);
}

Test(pg_games, listing_alike)
{
    CMP_RUN(listing_sequence);
}

/* ---- a moves row already at the game's ply ---------------------------- */

/* Only a store changed behind the server's back gets there; the caller
 * loses its transaction either way. SQLite: STORE_CONFLICT after the game
 * row was written; PostgreSQL: the one statement fails whole, STORE_EIO,
 * and the transaction with it (pg_games.c). After the rollback both hold
 * what they held. */
static void dup_ply(cmp_side *b, int want)
{
    store *s = b->s;
    int64_t w = cmp_user(s, "white", false), bl = cmp_user(s, "black", false);
    store_game g = cmp_a_game(w, bl, TC_UNLIMITED, 1000);
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(store_game_insert(s, &g), STORE_OK);
    cr_assert_eq(store_move_insert(s, g.id, 0, "e1-e2", w, 1100), STORE_OK);
    cr_assert_eq(store_commit(s), STORE_OK);
    store_played p;
    played(&p, g.id, 0, "e1-e3", w, 1200, "P1", "black");
    cr_assert_eq(store_begin(s), STORE_OK);
    cr_assert_eq(store_move_played(s, &p), want);
    store_rollback(s);
    cr_assert_eq(store_game_get(s, g.id, &g), STORE_OK);
    cr_assert_eq(g.ply, 0);
    cr_assert_str_eq(g.position, CMP_START);
    cmp_seen m = cmp_fresh(&(cmp_trace){0});
    cr_assert_eq(store_moves_each(s, g.id, on_move, &m), 0);
    CMP_IDS(m, 0);
}

Test(pg_games, dup_ply_loses_the_transaction)
{
    if (!pgtest_url())
        cr_skip_test("QK_PG_URL not set (tests/pg/cluster.sh)");
    static cmp_side pg, sq;
    cmp_open_pg(&pg);
    cmp_open_sqlite(&sq);
    /* PostgreSQL logs the failed statement (expected). */
    dup_ply(&pg, STORE_EIO);
    dup_ply(&sq, STORE_CONFLICT);
    store_close(pg.s);
    store_close(sq.s);
}

/* ---- two nodes, one ply (issue 22) ------------------------------------ */

/* Node A's transaction is committed (or rolled back) by a thread after a
 * while, as another process would, while node B's write waits for its row
 * lock. The two stores are separate connections; each is used by one
 * thread at a time. */
typedef struct later {
    store *s;
    bool commit;
    int rc;
} later;

static void *end_later(void *arg)
{
    later *l = arg;
    usleep(300 * 1000);
    if (l->commit)
        l->rc = store_commit(l->s);
    else
        store_rollback(l->s);
    return NULL;
}

static int64_t ms_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A plays at ply (not committed yet), then B at the same ply: B's code,
 * and how long B waited. A's transaction ends by commit or rollback from
 * the thread. */
static int race(store *a, store *b, const store_played *pa, const store_played *pb, bool commit,
                int64_t *waited)
{
    cr_assert_eq(store_begin(a), STORE_OK);
    cr_assert_eq(store_move_played(a, pa), STORE_OK);
    later l = {a, commit, -100};
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, end_later, &l), 0);
    cr_assert_eq(store_begin(b), STORE_OK);
    int64_t t0 = ms_now();
    int rc = store_move_played(b, pb);
    *waited = ms_now() - t0;
    /* B's transaction goes on either way. */
    cr_assert_eq(store_state_set(b, "race", *waited), STORE_OK);
    cr_assert_eq(store_commit(b), STORE_OK);
    cr_assert_eq(pthread_join(th, NULL), 0);
    if (commit)
        cr_assert_eq(l.rc, STORE_OK);
    return rc;
}

Test(pg_games, one_ply_two_nodes)
{
    if (!pgtest_url())
        cr_skip_test("QK_PG_URL not set (tests/pg/cluster.sh)");
    cmp_side a;
    store *b = NULL;
    cmp_open_pg(&a);
    cr_assert_eq(store_open(a.where, &b), STORE_OK); /* the second node */
    int64_t w = cmp_user(a.s, "white", false), bl = cmp_user(a.s, "black", false);
    store_game g = cmp_a_game(w, bl, TC_UNLIMITED, 1000);
    cr_assert_eq(store_begin(a.s), STORE_OK);
    cr_assert_eq(store_game_insert(a.s, &g), STORE_OK);
    cr_assert_eq(store_commit(a.s), STORE_OK);

    /* A commits first: B waited for it and lost, writing nothing. */
    store_played pa, pb;
    played(&pa, g.id, 0, "e1-e2", w, 1100, "PA", "black");
    played(&pb, g.id, 0, "e1-e3", w, 1101, "PB", "black");
    int64_t waited;
    cr_assert_eq(race(a.s, b, &pa, &pb, true, &waited), STORE_CONFLICT);
    cr_assert_geq(waited, 150, "B did not wait for A's row lock (%lld ms)", (long long)waited);
    store_game gb;
    cr_assert_eq(store_game_get(b, g.id, &gb), STORE_OK);
    cr_assert_eq(gb.ply, 1);
    cr_assert_str_eq(gb.position, "PA");
    cmp_trace t = {0};
    cmp_seen m = cmp_fresh(&t);
    cr_assert_eq(store_moves_each(b, g.id, on_move, &m), 0);
    CMP_IDS(m, 0);
    cr_assert(strstr(t.buf, "move=e1-e2") != NULL, "%s", t.buf);

    /* A rolls back: B's write, which waited, goes through. */
    played(&pa, g.id, 1, "a5-a4", bl, 1200, "PA2", "white");
    played(&pb, g.id, 1, "a5-a3", bl, 1201, "PB2", "white");
    cr_assert_eq(race(a.s, b, &pa, &pb, false, &waited), STORE_OK);
    cr_assert_eq(store_game_get(a.s, g.id, &gb), STORE_OK);
    cr_assert_eq(gb.ply, 2);
    cr_assert_str_eq(gb.position, "PB2");

    /* The last move (store_move_insert) races alike: the primary key
     * waits for A's row and then refuses the ply. */
    cr_assert_eq(store_begin(a.s), STORE_OK);
    cr_assert_eq(store_move_insert(a.s, g.id, 2, "e2-e3", w, 1300), STORE_OK);
    later l = {a.s, true, -100};
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, end_later, &l), 0);
    cr_assert_eq(store_begin(b), STORE_OK);
    int64_t t0 = ms_now();
    cr_assert_eq(store_move_insert(b, g.id, 2, "e2-e4", w, 1301), STORE_CONFLICT);
    cr_assert_geq(ms_now() - t0, 150);
    cr_assert_eq(store_commit(b), STORE_OK);
    cr_assert_eq(pthread_join(th, NULL), 0);
    cr_assert_eq(l.rc, STORE_OK);
    store_close(b);
    store_close(a.s);
}
