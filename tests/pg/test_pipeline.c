/*
 * The PostgreSQL connection in pipeline mode (store/pg/pg_base.h "The
 * connection"), as the running server drives it: a loop, tasks on, the
 * store in its asynchronous mode. What pipelining must not change: a
 * transaction whose statement fails reports STORE_EIO at its commit and
 * writes nothing, and the transaction after it works. In pipeline mode
 * the failure aborts the rest of the segment, the COMMIT included, so the
 * connection is left in the failed block until the ROLLBACK that
 * pg_base.c sends: without it the next BEGIN fails too.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <uv.h>

#include "pgtest.h"
#include "storecmp.h"
#include "util/task.h"

#define TC_UNLIMITED "{\"kind\":\"unlimited\"}"

TestSuite(pg_pipeline, .init = cmp_init, .fini = cmp_fini, .timeout = 60);

typedef struct run {
    store *s;
    int64_t game, white;
    int played_rc;     /* the failing statement's answer */
    int done[3], dones; /* the commits' results, in order */
    bool ended;
} run;

static void on_done(void *arg, int rc)
{
    run *r = arg;
    r->done[r->dones++] = rc;
}

static void played(store_played *p, int64_t game, int64_t ply, const char *move, int64_t user)
{
    *p = (store_played){.game_id = game, .ply = ply, .move = move, .user_id = user,
                        .created = 2000, .clock_ms = -1, .position = "P1", .turn = "black",
                        .deadline = -1, .white_ms = -1, .black_ms = -1, .wake_at = -1};
}

/* Three batches as the server makes them, one after the other without
 * waiting for their commits: a write; a move at a ply whose moves row is
 * there already (the statement fails on the primary key) and a write
 * behind it; a write again. */
static void batches(void *arg)
{
    run *r = arg;
    cr_assert_eq(store_begin(r->s), STORE_OK);
    cr_assert_eq(store_state_set(r->s, "first", 1), STORE_OK);
    cr_assert_eq(store_commit_async(r->s, on_done, r), STORE_OK);

    cr_assert_eq(store_begin(r->s), STORE_OK);
    store_played p;
    played(&p, r->game, 0, "e1-e3", r->white);
    r->played_rc = store_move_played(r->s, &p);
    cr_assert_eq(store_state_set(r->s, "second", 2), STORE_OK); /* queued behind the failure */
    cr_assert_eq(store_commit_async(r->s, on_done, r), STORE_OK);

    cr_assert_eq(store_begin(r->s), STORE_OK);
    cr_assert_eq(store_state_set(r->s, "third", 3), STORE_OK);
    cr_assert_eq(store_commit_async(r->s, on_done, r), STORE_OK);
    r->ended = true;
}

Test(pg_pipeline, a_failed_transaction_is_rolled_back_and_the_next_commits)
{
    if (!pgtest_url())
        cr_skip_test("QK_PG_URL not set (tests/pg/cluster.sh)");
    cmp_side b;
    cmp_open_pg(&b);
    run r = {.s = b.s};
    r.white = cmp_user(b.s, "white", false);
    int64_t black = cmp_user(b.s, "black", false);
    store_game g = cmp_a_game(r.white, black, TC_UNLIMITED, 1000);
    cr_assert_eq(store_begin(b.s), STORE_OK);
    cr_assert_eq(store_game_insert(b.s, &g), STORE_OK);
    /* A moves row at ply 0 while the game stays at ply 0. */
    cr_assert_eq(store_move_insert(b.s, g.id, 0, "e1-e2", r.white, 1100), STORE_OK);
    cr_assert_eq(store_commit(b.s), STORE_OK);
    r.game = g.id;

    uv_loop_t loop;
    cr_assert_eq(uv_loop_init(&loop), 0);
    cr_assert_eq(task_enable(true), 0);
    cr_assert_eq(store_async_start(b.s, &loop, 0), STORE_OK);
    cr_assert_eq(task_run(batches, &r), 0);
    while (!(r.ended && r.dones == 3))
        uv_run(&loop, UV_RUN_ONCE);
    cr_assert_eq(r.played_rc, STORE_EIO);
    cr_assert_eq(r.done[0], STORE_OK);
    cr_assert_eq(r.done[1], STORE_EIO, "the failed transaction is not acknowledged");
    cr_assert_eq(r.done[2], STORE_OK, "the transaction after the failed one commits");
    store_async_stop(b.s);
    uv_run(&loop, UV_RUN_DEFAULT);
    cr_assert_eq(uv_loop_close(&loop), 0);
    cr_assert_eq(task_enable(false), 0);

    /* What is stored: the first and third batches, nothing of the second. */
    int64_t v = -1;
    cr_assert_eq(store_state_get(b.s, "first", &v), STORE_OK);
    cr_assert_eq(v, 1);
    cr_assert_eq(store_state_get(b.s, "second", &v), STORE_NOTFOUND);
    cr_assert_eq(store_state_get(b.s, "third", &v), STORE_OK);
    cr_assert_eq(v, 3);
    cr_assert_eq(cmp_int(&b, "SELECT ply FROM games WHERE id = 1"), 0);
    cr_assert_eq(cmp_int(&b, "SELECT count(*) FROM moves"), 1);
    store_close(b.s);
}
