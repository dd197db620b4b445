/*
 * play: see play.h.
 */
#include "play.h"

#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

/* register or login USER through the CLI; copies the token it got. */
static void account(hsrv *s, const char *dir, const char *op, const char *user, char *token)
{
    hrun r;
    hcli_run(&r, dir, s->addr, HPLAY_PASSWORD "\n", "--json", op, user, "--password-stdin", NULL);
    const cJSON *j = hrun_ok_json(&r);
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(j, "user");
    cr_assert(cJSON_IsObject(u), "%s result without a user object: %s", op, r.out);
    cr_assert_str_eq(hj_str(u, "username"), user);
    const char *t = hj_str(j, "token");
    cr_assert(t && strlen(t) == 64, "%s result without a 64-hex token: %s", op, r.out);
    snprintf(token, 128, "%s", t);
    hrun_free(&r);
}

void hplay_setup(hplayers *p, hsrv *s, const char *white, const char *black)
{
    memset(p, 0, sizeof *p);
    p->srv = s;
    p->white = white;
    p->black = black;
    hsrv_userdir(s, white, p->wdir);
    hsrv_userdir(s, black, p->bdir);
    account(s, p->wdir, "register", white, p->wtoken);
    account(s, p->bdir, "register", black, p->btoken);
}

void hplay_relogin(hplayers *p)
{
    account(p->srv, p->wdir, "login", p->white, p->wtoken);
    account(p->srv, p->bdir, "login", p->black, p->btoken);
}

long long hplay_open(hplayers *p, const hgame *g)
{
    char std[1024];
    cr_assert(h_std_start(g->variant, std, sizeof std), "unknown variant %s", g->variant);
    const char *argv[16];
    int n = 0;
    argv[n++] = "--json";
    argv[n++] = "challenge";
    argv[n++] = p->black;
    argv[n++] = "--variant";
    argv[n++] = g->variant;
    argv[n++] = "--color";
    argv[n++] = "white";
    if (strcmp(std, g->start) != 0) {
        argv[n++] = "--position";
        argv[n++] = g->start;
    }
    argv[n] = NULL;
    hrun r;
    hcli_runv(&r, p->wdir, p->srv->addr, NULL, argv);
    const cJSON *j = hrun_ok_json(&r);
    const cJSON *ch = cJSON_GetObjectItemCaseSensitive(j, "challenge");
    cr_assert(cJSON_IsObject(ch), "challenge result without a challenge object: %s", r.out);
    long long cid = hj_int(ch, "id");
    cr_assert_str_eq(hj_str(ch, "variant"), g->variant, "challenge: %s", r.out);
    hrun_free(&r);

    char cids[32];
    snprintf(cids, sizeof cids, "%lld", cid);
    hcli_run(&r, p->bdir, p->srv->addr, NULL, "--json", "accept", cids, NULL);
    j = hrun_ok_json(&r);
    const cJSON *game = hj_game(j);
    long long gid = hj_int(game, "id");
    cr_assert_str_eq(hj_str(game, "white"), p->white, "accept: %s", r.out);
    cr_assert_str_eq(hj_str(game, "black"), p->black, "accept: %s", r.out);
    cr_assert_str_eq(hj_str(game, "variant"), g->variant, "accept: %s", r.out);
    cr_assert_str_eq(hj_str(game, "status"), "active", "accept: %s", r.out);
    cr_assert_eq(hj_int(game, "ply"), 0, "accept: %s", r.out);
    cr_assert_str_eq(hj_str(game, "start"), g->start, "accept: %s", r.out);
    cr_assert_str_eq(hj_str(game, "position"), g->start, "accept: %s", r.out);
    hrun_free(&r);
    return gid;
}

void hplay_moves(hplayers *p, const hgame *g, long long game, int from, int to, bool with_ply)
{
    char gids[32];
    snprintf(gids, sizeof gids, "%lld", game);
    char side = h_pos_side(g->start);
    if (from % 2)
        side = side == 'w' ? 'b' : 'w';
    for (int i = from; i < to; i++) {
        const char *dir = side == 'w' ? p->wdir : p->bdir;
        char plys[32];
        snprintf(plys, sizeof plys, "%d", i);
        hrun r;
        if (with_ply)
            hcli_run(&r, dir, p->srv->addr, NULL, "--json", "move", gids, g->moves[i], "--ply",
                     plys, NULL);
        else
            hcli_run(&r, dir, p->srv->addr, NULL, "--json", "move", gids, g->moves[i], NULL);
        const cJSON *j = hrun_ok_json(&r);
        const cJSON *obj = hj_game(j);
        cr_assert_eq(hj_int(obj, "ply"), i + 1, "%s (%s game %d ply %d): %s", r.cmd, g->variant,
                     g->index, i, r.out);
        const cJSON *mv = cJSON_GetObjectItemCaseSensitive(obj, "moves");
        cr_assert(cJSON_IsArray(mv) && cJSON_GetArraySize(mv) == i + 1, "%s: moves %s", r.cmd,
                  r.out);
        const cJSON *last = cJSON_GetArrayItem(mv, i);
        cr_assert(cJSON_IsString(last) && strcmp(last->valuestring, g->moves[i]) == 0,
                  "%s: last move in %s", r.cmd, r.out);
        const char *want = i + 1 == g->nmoves ? "finished" : "active";
        cr_assert_str_eq(hj_str(obj, "status"), want, "%s (%s game %d ply %d of %d): %s", r.cmd,
                         g->variant, g->index, i, g->nmoves, r.out);
        hrun_free(&r);
        side = side == 'w' ? 'b' : 'w';
    }
}

void hplay_check_game(const cJSON *game, const hgame *g, int plies, const char *what)
{
    cr_assert_str_eq(hj_str(game, "variant"), g->variant, "%s", what);
    cr_assert_str_eq(hj_str(game, "start"), g->start, "%s", what);
    cr_assert_eq(hj_int(game, "ply"), plies, "%s: %s", what, hj_text(game));
    const cJSON *mv = cJSON_GetObjectItemCaseSensitive(game, "moves");
    cr_assert(cJSON_IsArray(mv), "%s: no moves list", what);
    cr_assert_eq(cJSON_GetArraySize(mv), plies, "%s: %d moves stored, %d played", what,
                 cJSON_GetArraySize(mv), plies);
    for (int i = 0; i < plies; i++) {
        const cJSON *m = cJSON_GetArrayItem(mv, i);
        cr_assert(cJSON_IsString(m) && strcmp(m->valuestring, g->moves[i]) == 0,
                  "%s: move %d is %s, recorded %s", what, i, hj_text(m), g->moves[i]);
    }
    if (plies < g->nmoves) {
        cr_assert_str_eq(hj_str(game, "status"), "active", "%s", what);
        return;
    }
    cr_assert_str_eq(hj_str(game, "status"), "finished", "%s: %s", what, hj_text(game));
    cr_assert_str_eq(hj_str(game, "result"), g->result, "%s: %s", what, hj_text(game));
    cr_assert_str_eq(hj_str(game, "reason"), g->reason, "%s: %s", what, hj_text(game));
    cr_assert_str_eq(hj_str(game, "position"), g->final, "%s: %s", what, hj_text(game));
}

void hplay_check_show(hplayers *p, const hgame *g, long long game, int plies)
{
    char gids[32];
    snprintf(gids, sizeof gids, "%lld", game);
    hrun r;
    hcli_run(&r, p->wdir, p->srv->addr, NULL, "--json", "show", gids, NULL);
    const cJSON *j = hrun_ok_json(&r);
    char what[128];
    snprintf(what, sizeof what, "show %s (%s game %d)", gids, g->variant, g->index);
    hplay_check_game(hj_game(j), g, plies, what);
    hrun_free(&r);
}
