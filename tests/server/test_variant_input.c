/*
 * Bad input of the variants milestone through the real server (issue 3):
 * unknown variants, malformed or impossible custom positions, and moves
 * written for another variant. Each gets its exact error code and a
 * message that names the problem, and the database stays byte-identical.
 * Positions and moves are reasoned from RULES.md sections 1, 2, 5, 6, 7.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helper.h"

static tsrv S;
static tconn *A, *B;

static void setup(void)
{
    tsrv_start(&S, NULL);
    A = tc_open(S.port);
    B = tc_open(S.port);
    t_register(A, "alice");
    t_register(B, "bob");
}

static void teardown(void)
{
    tc_close(A);
    tc_close(B);
    tsrv_stop(&S);
    tsrv_cleanup(&S);
}

TestSuite(variant_input, .init = setup, .fini = teardown, .timeout = 60);

/* Challenge bob with variant v and position pos: bad_request whose
 * message contains want; nothing stored. */
static void refused(const char *v, const char *pos, const char *want)
{
    char *before = t_db_dump(S.db);
    cJSON *r = pos ? tc_rpc(A, "{\"type\":\"challenge\",\"to\":\"bob\",\"variant\":\"%s\","
                               "\"position\":\"%s\"}",
                            v, pos)
                   : tc_rpc(A, "{\"type\":\"challenge\",\"to\":\"bob\",\"variant\":\"%s\"}", v);
    t_err(r, "bad_request", pos ? pos : v);
    const char *msg = t_str(r, "message");
    cr_assert(strstr(msg, want), "%s / %s: message \"%s\" lacks \"%s\"", v, pos ? pos : "-", msg,
              want);
    cJSON_Delete(r);
    char *after = t_db_dump(S.db);
    cr_assert_str_eq(after, before, "%s / %s changed the database", v, pos ? pos : "-");
    free(before);
    free(after);
}

/* Section 1: variant names; section 7: 2 <= R, C <= 12. */
Test(variant_input, unknown_variants)
{
    refused("chess", NULL, "variant");
    refused("alquerkonane-13x2", NULL, "variant");
    refused("alquerkonane-1x5", NULL, "variant");
    refused("alquerkonane-8x", NULL, "variant");
    refused("Alquerque", NULL, "variant");
}

/* Section 1 position strings, judged per variant. */
Test(variant_input, malformed_or_impossible_positions)
{
    refused("alquerque", "bbbbb/bbbbb/ww.bb/wwwww w 0 -", "wrong board size");
    refused("alquerque", "bbbbbb/bbbbb/ww.bb/wwwww/wwwww w 0 -", "wrong board size");
    refused("alquerque", "bbbbb/bbbbb/ww.xb/wwwww/wwwww w 0 -", "unknown letter");
    refused("alquerque", "bbbbB/bbbbb/ww.bb/wwwww/wwwww w 0 -", "Sultans");
    refused("alquerque", "bbbbb/bbbbb/ww.bb/wwwww/wwwww x 0 -", "side to move");
    refused("alquerque", "bbbbb/bbbbb/ww.bb/wwwww/wwwww w 0 c3:b3", "memory field");
    refused("alquerque", "bbbbb/bbbbb/ww.bb/wwwww/wwwww w 0 - extra", "trailing");
    /* BrainKing memory naming an empty point (section 5). */
    refused("alquerque-brainking", "bbbbb/bbbbb/bb.ww/wwwww/wwwww w 0 c3:b3", "impossible memory");
    /* 8x8 Alquerkonane written on a 6x4 board. */
    refused("alquerkonane-6x4",
            "w.w.w.w./.w.w.w.w/......../......../......../......../.b.b.b.b/b.b.b.b. b 0 -",
            "wrong board size");
    /* Section 8: a start that is already over (White has no piece). */
    refused("alquerque-stoep-short", "bbbbb/...../...../...../..... w 0 -", "already over");
}

/* A move in another variant's notation is illegal here: the reply lists
 * the legal moves and nothing is stored. */
static void illegal(tconn *mover, long long g, int ply, const char *move)
{
    char *before = t_db_dump(S.db);
    cJSON *r = tc_rpc(mover, "{\"type\":\"move\",\"game\":%lld,\"ply\":%d,\"move\":\"%s\"}", g, ply,
                      move);
    t_err(r, "illegal_move", move);
    cr_assert(cJSON_IsArray(t_obj(r, "legal_moves")), "%s: no legal_moves", move);
    cJSON_Delete(r);
    char *after = t_db_dump(S.db);
    cr_assert_str_eq(after, before, "%s changed the database", move);
    free(before);
    free(after);
}

/* Section 7: one orthogonal capture per move, never a chain; Black (rank
 * 1) moves first, diagonally forward. */
Test(variant_input, konane_chain_and_alquerque_moves_are_illegal)
{
    long long g = t_new_game(B, A, "alice", "alquerkonane-6x4");
    tc_sync(A);
    tc_sync(B);
    cJSON *r = tc_rpc(A, "{\"type\":\"game\",\"game\":%lld}", g);
    t_ok(r, "game");
    const cJSON *game = t_obj(r, "game");
    const char *black = t_str(game, "black");
    tconn *bl = strcmp(black, "alice") == 0 ? A : B;
    tconn *wh = bl == A ? B : A;
    cJSON_Delete(r);
    /* White may not move first (section 7: Black moves first). */
    r = tc_rpc(wh, "{\"type\":\"move\",\"game\":%lld,\"ply\":0,\"move\":\"b6-a5\"}", g);
    t_err(r, "not_your_turn", "white first");
    cJSON_Delete(r);
    illegal(bl, g, 0, "a1xa3xa5"); /* a chain of jumps */
    illegal(bl, g, 0, "a1-a2");    /* orthogonal step: pawns step diagonally */
    illegal(bl, g, 0, "a1-b2-c3"); /* a multi-point step */
    illegal(bl, g, 0, "a1-c3");    /* a long slide */
}

/* Section 6 needs a Sultan for a long move; kawu (section 3) has none, and
 * section 2 steps go to an adjacent point only. */
Test(variant_input, sultan_moves_without_a_sultan_are_illegal)
{
    long long g = t_new_game(A, B, "bob", "alquerque");
    tc_sync(A);
    tc_sync(B);
    cJSON *r = tc_rpc(A, "{\"type\":\"game\",\"game\":%lld}", g);
    t_ok(r, "game");
    tconn *wh = strcmp(t_str(t_obj(r, "game"), "white"), "alice") == 0 ? A : B;
    cJSON_Delete(r);
    illegal(wh, g, 0, "c2-c4");  /* a long-Sultan slide */
    illegal(wh, g, 0, "b2-d4");  /* a diagonal slide */
    illegal(wh, g, 0, "a2-b3");  /* no diagonal line through a2 (section 2) */
    illegal(wh, g, 0, "W");      /* not move text at all */
}
