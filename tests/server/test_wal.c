/*
 * The write-ahead log under sustained load (issue 16): store.h
 * store_wal_restart and api/dispatch.h "Held requests". With a transaction
 * open at every moment the log never starts over; the server holds its
 * requests for one fsync and checkpoint once the log is longer than
 * QK_WAL_RESTART_FRAMES so that it does. What a client must see: every
 * move answered, in order, none lost, and the -wal file stays small.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helper.h"

static tsrv S;

static void teardown(void)
{
    tsrv_stop(&S);
    tsrv_cleanup(&S);
}

TestSuite(wal, .fini = teardown, .timeout = 120);

/* Four games played at once, each move sent on its own connection before
 * any answer is read, so moves come while an fsync (4 ms here) is in
 * flight and the next transaction is open: the kept batches of a loaded
 * server. The restart length is 8 frames, so the server holds requests
 * again and again. Each answer must be the move at the ply sent, the
 * database must hold every acknowledged move, and the -wal file must stay
 * near the journal limit (64 KiB) instead of holding every frame written
 * (each round of four moves writes several). */
Test(wal, moves_held_while_the_log_starts_over_are_answered_in_order_and_kept)
{
    tsrv_start(&S, "QK_FAULT_FSYNC_MS=4 QK_WAL_RESTART_FRAMES=8 QK_JOURNAL_LIMIT=65536");
    enum { G = 4, ROUNDS = 80 };
    tconn *side[G][2];
    long long gid[G];
    char next[G][64];
    int ply[G];
    bool over[G];
    for (int k = 0; k < G; k++) {
        char wn[16], bn[16];
        snprintf(wn, sizeof wn, "walw%d", k);
        snprintf(bn, sizeof bn, "walb%d", k);
        side[k][0] = tc_open(S.port);
        side[k][1] = tc_open(S.port);
        t_register(side[k][0], wn);
        t_register(side[k][1], bn);
        gid[k] = t_new_game(side[k][0], side[k][1], bn, "alquerque");
        cJSON *g = t_game(side[k][0], gid[k]);
        const cJSON *legal = t_obj(g, "legal_moves");
        cr_assert_gt(cJSON_GetArraySize(legal), 0);
        snprintf(next[k], sizeof next[k], "%s", cJSON_GetArrayItem(legal, 0)->valuestring);
        cJSON_Delete(g);
        ply[k] = 0;
        over[k] = false;
    }
    long long played = 0;
    for (int round = 0; round < ROUNDS; round++) {
        for (int k = 0; k < G; k++)
            if (!over[k])
                cr_assert(tc_sendf(side[k][ply[k] % 2],
                                   "{\"type\":\"move\",\"id\":%d,\"game\":%lld,\"ply\":%d,"
                                   "\"move\":\"%s\",\"compact\":true}\n",
                                   round, gid[k], ply[k], next[k]));
        for (int k = 0; k < G; k++) {
            if (over[k])
                continue;
            cJSON *r = tc_reply(side[k][ply[k] % 2], T_TIMEOUT_MS);
            t_ok(r, "a move sent while the log may be starting over");
            cr_assert_eq(t_int(r, "id"), round, "%s", t_text(r));
            cr_assert_eq(t_int(r, "ply"), ply[k], "%s", t_text(r));
            cr_assert_str_eq(t_str(r, "move"), next[k], "%s", t_text(r));
            played++;
            ply[k]++;
            const cJSON *legal = cJSON_GetObjectItemCaseSensitive(r, "legal_moves");
            if (strcmp(t_str(r, "status"), "active") != 0 || cJSON_GetArraySize(legal) == 0)
                over[k] = true;
            else
                snprintf(next[k], sizeof next[k], "%s",
                         cJSON_GetArrayItem(legal, 0)->valuestring);
            cJSON_Delete(r);
        }
        for (int k = 0; k < G; k++) {
            tc_drop_events(side[k][0]);
            tc_drop_events(side[k][1]);
        }
    }
    cr_assert_gt(played, 100, "only %lld moves were played", played);
    cr_assert_eq(t_db_count(S.db, "moves"), played, "an acknowledged move is on disk");
    char wal[4200];
    snprintf(wal, sizeof wal, "%s-wal", S.db);
    struct stat st;
    cr_assert_eq(stat(wal, &st), 0);
    cr_assert_lt(st.st_size, 512 * 1024, "the -wal file holds %lld bytes after %lld moves",
                 (long long)st.st_size, played);
    for (int k = 0; k < G; k++) {
        tc_close(side[k][0]);
        tc_close(side[k][1]);
    }
}

/* The dispatcher's side (api/dispatch.h "Held requests"), made certain by
 * a slow disk: each fsync takes 1 s and the log starts over at every
 * frame. alice's first challenge commits and its fsync starts; 100 ms on,
 * inside that fsync, she sends two more challenges in one write and carol
 * sends a ping, and dave a challenge after which he hangs up. The log
 * must start over before any new transaction, so alice's two lines are
 * held (and her connection paused: they stay in order), dave's is held
 * too and, a complete line sent before his end of the stream, is still
 * run (conn.h: what was complete is answered), and carol's ping, which
 * writes nothing, is answered at once, as are her broken line (bad_json)
 * and unknown op (unknown_op); her challenge with a bad field is held and
 * then refused (bad_request), changing nothing. Then all of alice's challenges are
 * answered in order, the four are stored, and the server says it held
 * requests. */
Test(wal, requests_wait_for_the_restart_in_order_and_a_ping_does_not)
{
    tsrv_start(&S, "QK_FAULT_FSYNC_MS=1000 QK_WAL_RESTART_FRAMES=1");
    tconn *a = tc_open(S.port), *b = tc_open(S.port), *c = tc_open(S.port),
          *d = tc_open(S.port);
    t_register(a, "alice");
    t_register(b, "bob");
    t_register(c, "carol");
    t_register(d, "dave");
    const char *ch = "{\"type\":\"challenge\",\"id\":%d,\"to\":\"bob\",\"variant\":\"alquerque\"}\n";
    cr_assert(tc_sendf(a, ch, 1));
    usleep(100 * 1000);
    char two[512];
    snprintf(two, sizeof two,
             "{\"type\":\"challenge\",\"id\":2,\"to\":\"bob\",\"variant\":\"alquerque\"}\n"
             "{\"type\":\"challenge\",\"id\":3,\"to\":\"bob\",\"variant\":\"alquerque\"}\n");
    cr_assert(tc_send(a, two, strlen(two)));
    cr_assert(tc_sendf(d, ch, 9));
    tc_close(d);
    cr_assert(tc_sendf(c, "{\"type\":\"ping\",\"id\":7}\n"));
    cJSON *r = tc_reply(c, T_TIMEOUT_MS);
    t_ok(r, "carol's ping during the hold");
    cJSON_Delete(r);
    /* Bad lines are answered at once too, never held: the checks come
     * before the hold, and they change nothing. */
    cr_assert(tc_sendf(c, "{\"type\":\"ping\",\"id\":\n"));
    r = tc_reply(c, T_TIMEOUT_MS);
    t_err(r, "bad_json", "a broken line during the hold");
    cJSON_Delete(r);
    cr_assert(tc_sendf(c, "{\"type\":\"no_such_op\",\"id\":8}\n"));
    r = tc_reply(c, T_TIMEOUT_MS);
    t_err(r, "unknown_op", "an unknown op during the hold");
    cr_assert_eq(t_int(r, "id"), 8);
    cJSON_Delete(r);
    cr_assert(tc_sendf(c, "{\"type\":\"challenge\",\"id\":10,\"variant\":\"alquerque\",\"to\":5}\n"));
    r = tc_reply(c, 4 * T_TIMEOUT_MS);
    t_err(r, "bad_request", "a challenge with a number for a name, held then refused");
    cr_assert_eq(t_int(r, "id"), 10);
    cJSON_Delete(r);
    for (int id = 1; id <= 3; id++) {
        r = tc_reply(a, 4 * T_TIMEOUT_MS);
        t_ok(r, "alice's challenge");
        cr_assert_eq(t_int(r, "id"), id, "answers in order: %s", t_text(r));
        cJSON_Delete(r);
    }
    long long nch = t_db_count(S.db, "challenges");
    cr_assert_eq(nch, 4, "alice's three and dave's, not carol's refused one: %lld", nch);
    FILE *f = fopen(S.log, "r");
    cr_assert_not_null(f);
    char line[1024];
    bool held = false;
    while (fgets(line, sizeof line, f))
        held = held || (strstr(line, "held") && strstr(line, "write-ahead log started over"));
    fclose(f);
    cr_assert(held, "no request was held; see %s", S.log);
    r = tc_rpc(c, "{\"type\":\"ping\"}");
    t_ok(r, "the server goes on");
    cJSON_Delete(r);
    tc_close(a);
    tc_close(b);
    tc_close(c);
}
