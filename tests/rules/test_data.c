/* The shared data replayed through the rules module: every perft count of
 * data/perft.tsv up to a node cap, and every recorded game of
 * data/games/VARIANT.jsonl move by move (legal lists, move text, end of game,
 * position strings). RULES.md sections 1-8. */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s (set QK_SHARED)", path);
    cr_assert_eq(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    cr_assert_geq(n, 0);
    rewind(f);
    char *buf = malloc((size_t)n + 1);
    cr_assert_not_null(buf);
    cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* Replays every row of perft.tsv for `variant` whose count is within the
 * cap; returns how many rows ran. */
static void perft_rows(const char *variant)
{
    char *data = slurp(shared_path("data/perft.tsv"));
    unsigned long long cap = perft_max_nodes();
    int ran = 0, skipped = 0;
    char *save = NULL;
    for (char *line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#' || line[0] == '\0')
            continue;
        char *f[4];
        char *s2 = NULL;
        f[0] = strtok_r(line, "\t", &s2);
        for (int i = 1; i < 4; i++)
            f[i] = strtok_r(NULL, "\t", &s2);
        cr_assert(f[3] != NULL, "malformed perft row");
        if (strcmp(f[0], variant) != 0)
            continue;
        unsigned long long want = strtoull(f[3], NULL, 10);
        if (want > cap) {
            skipped++;
            continue;
        }
        qk_variant v;
        qk_pos p;
        must_variant(f[0], &v);
        must_pos(&v, f[1], &p);
        int depth = atoi(f[2]);
        unsigned long long got = qk_perft(&v, &p, depth);
        cr_expect_eq(got, want, "%s '%s' depth %d: got %llu want %llu", f[0], f[1], depth, got,
                     want);
        cr_assert_str_eq(pos_str(&v, &p), f[1], "perft must restore the position");
        ran++;
    }
    free(data);
    cr_assert_gt(ran, 0, "no perft rows for %s", variant);
    cr_log_info("%s: %d perft rows checked, %d above the cap of %llu nodes", variant, ran, skipped,
                cap);
}

#define PERFT_TEST(id, name)                                                                       \
    Test(perft, id, .timeout = 120)                                                                \
    {                                                                                              \
        perft_rows(name);                                                                          \
    }
PERFT_TEST(kawu, "alquerque")
PERFT_TEST(traditional, "alquerque-traditional")
PERFT_TEST(brainking, "alquerque-brainking")
PERFT_TEST(stoep_short, "alquerque-stoep-short")
PERFT_TEST(stoep_long, "alquerque-stoep-long")
PERFT_TEST(konane_8x8, "alquerkonane-8x8")
PERFT_TEST(konane_6x4, "alquerkonane-6x4")
PERFT_TEST(konane_5x5, "alquerkonane-5x5")

static const char *jstr(const cJSON *obj, const char *key)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    cr_assert(cJSON_IsString(it), "missing string field %s", key);
    return it->valuestring;
}

/* Round trip of section 1: the formatter writes back exactly what parsed. */
static void check_roundtrip(const qk_variant *v, const qk_pos *p)
{
    char s[QK_POS_STRLEN];
    qk_pos q;
    cr_assert_gt(qk_pos_format(v, p, s, sizeof s), 0);
    must_pos(v, s, &q);
    cr_assert_str_eq(pos_str(v, &q), s);
}

static void replay_game(const qk_variant *v, const cJSON *g, int gi)
{
    qk_pos p;
    must_pos(v, jstr(g, "start"), &p);
    const cJSON *moves = cJSON_GetObjectItemCaseSensitive(g, "moves");
    const cJSON *legal = cJSON_GetObjectItemCaseSensitive(g, "legal");
    cr_assert(cJSON_IsArray(moves) && cJSON_IsArray(legal));
    int n = cJSON_GetArraySize(moves);
    cr_assert_eq(cJSON_GetArraySize(legal), n);
    for (int i = 0; i < n; i++) {
        check_roundtrip(v, &p);
        cr_assert_not(qk_pos_status(v, &p, NULL, NULL), "game %d over before ply %d", gi, i);
        /* The recorded list, joined like legal_str(). */
        char want[QK_MAX_MOVES * 8];
        size_t len = 0;
        want[0] = '\0';
        const cJSON *l = cJSON_GetArrayItem(legal, i);
        for (int k = 0; k < cJSON_GetArraySize(l); k++)
            len += (size_t)snprintf(want + len, sizeof want - len, "%s%s", k ? " " : "",
                                    cJSON_GetArrayItem(l, k)->valuestring);
        cr_assert_str_eq(legal_str(v, &p), want, "game %d ply %d in %s", gi, i, pos_str(v, &p));
        const char *mv = cJSON_GetArrayItem(moves, i)->valuestring;
        qk_move m;
        cr_assert_eq(qk_move_parse(v, &p, mv, &m), QK_OK, "game %d ply %d move %s", gi, i, mv);
        char t[QK_MOVE_STRLEN];
        qk_move_format(v, &m, t, sizeof t);
        cr_assert_str_eq(t, mv);
        qk_undo u;
        qk_pos_make(v, &p, &m, &u);
    }
    check_roundtrip(v, &p);
    qk_result res;
    qk_reason why;
    cr_assert(qk_pos_status(v, &p, &res, &why), "game %d not over at the end", gi);
    cr_assert_str_eq(qk_result_name(res), jstr(g, "result"), "game %d", gi);
    cr_assert_str_eq(qk_reason_name(why), jstr(g, "reason"), "game %d", gi);
    cr_assert_str_eq(pos_str(v, &p), jstr(g, "final"), "game %d", gi);
}

static void replay_file(const char *variant)
{
    char rel[256];
    snprintf(rel, sizeof rel, "data/games/%s.jsonl", variant);
    char *data = slurp(shared_path(rel));
    qk_variant v;
    must_variant(variant, &v);
    int games = 0;
    char *save = NULL;
    for (char *line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        cJSON *g = cJSON_Parse(line);
        cr_assert_not_null(g, "bad JSON in %s", rel);
        cr_assert_str_eq(jstr(g, "variant"), variant);
        replay_game(&v, g, games);
        cJSON_Delete(g);
        games++;
    }
    free(data);
    cr_assert_eq(games, 30, "%s: %d games", rel, games);
}

#define GAMES_TEST(id, name)                                                                       \
    Test(games, id, .timeout = 120)                                                                \
    {                                                                                              \
        replay_file(name);                                                                         \
    }
GAMES_TEST(kawu, "alquerque")
GAMES_TEST(traditional, "alquerque-traditional")
GAMES_TEST(brainking, "alquerque-brainking")
GAMES_TEST(stoep_short, "alquerque-stoep-short")
GAMES_TEST(stoep_long, "alquerque-stoep-long")
GAMES_TEST(konane_8x8, "alquerkonane-8x8")
GAMES_TEST(konane_6x4, "alquerkonane-6x4")
GAMES_TEST(konane_5x5, "alquerkonane-5x5")

/* data/solved.tsv: game values of small Alquerkonane setups (section 7,
 * no draws, no move loses), recomputed by plain negamax over qk_movegen.
 * Rows whose search would pass the node budget are skipped (the engine's
 * solver covers them). */
typedef struct {
    const qk_variant *v;
    long nodes, budget;
} solve_ctx;

/* 1 if the side to move wins, 0 if it loses, -1 when over budget. */
static int side_to_move_wins(solve_ctx *c, qk_pos *p)
{
    qk_move moves[64];
    if (++c->nodes > c->budget)
        return -1;
    int n = qk_movegen(c->v, p, moves, 64);
    cr_assert_geq(n, 0);
    for (int i = 0; i < n; i++) {
        qk_undo u;
        qk_pos_make(c->v, p, &moves[i], &u);
        int w = side_to_move_wins(c, p);
        qk_pos_unmake(c->v, p, &moves[i], &u);
        if (w < 0)
            return -1;
        if (w == 0)
            return 1;
    }
    return 0;
}

Test(solved, small_konane_values, .timeout = 60)
{
    char *data = slurp(shared_path("data/solved.tsv"));
    int checked = 0;
    char *save = NULL;
    for (char *line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#')
            continue;
        char *s2 = NULL;
        char *var = strtok_r(line, "\t", &s2), *pos = strtok_r(NULL, "\t", &s2);
        char *want = strtok_r(NULL, "\t", &s2);
        cr_assert(want != NULL, "malformed solved row");
        qk_variant v;
        qk_pos p;
        must_variant(var, &v);
        must_pos(&v, pos, &p);
        solve_ctx c = {&v, 0, 400000};
        int w = side_to_move_wins(&c, &p);
        if (w < 0)
            continue;
        int winner = w ? p.side : p.side ^ 1;
        cr_expect_str_eq(winner == QK_WHITE ? "white" : "black", want, "%s %s", var, pos);
        checked++;
    }
    free(data);
    cr_assert_geq(checked, 7, "only %d solved rows within the budget", checked);
}
