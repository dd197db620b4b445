/* Every recorded game of ../shared/data/games/VARIANT.jsonl as a record: written,
 * read back and validated by the rules (same moves, result, reason, final
 * position, PlyCount); all 30 games of a file in one text; an illegal move
 * at ply N rejected with N; the replay at every ply equals playing the
 * moves by hand. PROTOCOL.md "Records", RULES.md sections 1-8. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static const char *pos_text(const qk_variant *v, const qk_pos *p)
{
    static char buf[QK_POS_STRLEN];
    cr_assert_gt(qk_pos_format(v, p, buf, sizeof buf), 0);
    return buf;
}

/* Write r, read the text back as exactly one record, compare, validate
 * against the recorded outcome of g. */
static void roundtrip_one(const cJSON *g, int gi, const qk_pdn_record *r)
{
    char *text = write_rec(r);
    /* Every line within the width (no move here is longer than 80). */
    for (char *p = text, *nl; *p; p = nl + 1) {
        nl = strchr(p, '\n');
        cr_assert_not_null(nl);
        cr_assert_leq(nl - p, QK_PDN_WIDTH, "game %d: line too long: %.*s", gi, (int)(nl - p), p);
    }
    qk_pdn_record *recs;
    size_t n;
    qk_pdn_error err;
    int rc = read_text(text, &recs, &n, &err);
    cr_assert_eq(rc, QK_PDN_OK, "game %d: %s\n%s", gi, err.message, text);
    cr_assert_eq(n, 1);
    const qk_pdn_record *b = &recs[0];
    cr_assert_eq(b->nmoves, r->nmoves);
    for (size_t i = 0; i < r->nmoves; i++)
        cr_assert_str_eq(b->moves[i], r->moves[i], "game %d ply %zu", gi, i);
    cr_assert_str_eq(b->variant, jstr(g, "variant"));
    cr_assert_str_eq(b->white, r->white);
    cr_assert_str_eq(b->black, r->black);
    cr_assert_str_eq(b->date, "2026.12.01");
    cr_assert_eq(b->ply_count, (long)r->nmoves);
    cr_assert_eq(b->ply_count, (long)cJSON_GetObjectItemCaseSensitive(g, "plies")->valueint);

    qk_pdn_outcome out;
    cr_assert_eq(qk_pdn_validate(b, &out, &err), QK_PDN_OK, "%s", err.message);
    cr_assert(out.over && out.by_rules, "game %d", gi);
    cr_assert_str_eq(qk_result_name(out.result), jstr(g, "result"), "game %d", gi);
    cr_assert_str_eq(qk_reason_name(out.reason), jstr(g, "reason"), "game %d", gi);
    cr_assert_str_eq(pos_text(&out.end.variant, &out.end.pos), jstr(g, "final"), "game %d", gi);
    cr_assert_eq(out.end.ply, r->nmoves);
    qk_pdn_free_all(recs, n);
    free(text);
}

static void roundtrip_file(const char *variant)
{
    cJSON *games = load_games(variant);
    char *all = NULL;
    size_t alen = 0;
    FILE *acc = open_memstream(&all, &alen);
    cr_assert_not_null(acc);
    int gi = 0;
    const cJSON *g;
    cJSON_ArrayForEach(g, games)
    {
        qk_pdn_record r;
        record_of_game(g, gi, &r);
        roundtrip_one(g, gi, &r);
        char *text = write_rec(&r);
        fputs(text, acc);
        free(text);
        qk_pdn_free(&r);
        gi++;
    }
    fclose(acc);
    /* The 30 records as one text, as an export would give them. */
    qk_pdn_record *recs;
    size_t n;
    qk_pdn_error err;
    cr_assert_eq(qk_pdn_read(all, alen, &recs, &n, &err), QK_PDN_OK, "%s", err.message);
    cr_assert_eq(n, 30);
    gi = 0;
    cJSON_ArrayForEach(g, games)
    {
        qk_pdn_outcome out;
        cr_assert_eq(qk_pdn_validate(&recs[gi], &out, &err), QK_PDN_OK);
        cr_assert_str_eq(pos_text(&out.end.variant, &out.end.pos), jstr(g, "final"));
        char want[32];
        snprintf(want, sizeof want, "white-%d", gi);
        cr_assert_str_eq(recs[gi].white, want);
        gi++;
    }
    qk_pdn_free_all(recs, n);
    free(all);
    cJSON_Delete(games);
}

#define GAMES_TEST(id, name)                                                                       \
    Test(games, id, .timeout = 120)                                                                \
    {                                                                                              \
        roundtrip_file(name);                                                                      \
    }
GAMES_TEST(kawu, "alquerque")
GAMES_TEST(traditional, "alquerque-traditional")
GAMES_TEST(brainking, "alquerque-brainking")
GAMES_TEST(stoep_short, "alquerque-stoep-short")
GAMES_TEST(stoep_long, "alquerque-stoep-long")
GAMES_TEST(konane_8x8, "alquerkonane-8x8")
GAMES_TEST(konane_6x4, "alquerkonane-6x4")
GAMES_TEST(konane_5x5, "alquerkonane-5x5")

/* Whether text is in g's legal list at ply. */
static bool in_legal(const cJSON *g, int ply, const char *text)
{
    const cJSON *l = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(g, "legal"), ply);
    const cJSON *it;
    cJSON_ArrayForEach(it, l)
    {
        if (strcmp(it->valuestring, text) == 0)
            return true;
    }
    return false;
}

/* For each variant, in game 3 at three plies: replace the move with one of
 * the game's other moves that the recorded legal list says is illegal
 * there, put the record second in a text, and expect QK_PDN_EILLEGAL with
 * record 1, that ply and the move's line. */
static void illegal_at(const char *variant)
{
    cJSON *games = load_games(variant);
    const cJSON *g = cJSON_GetArrayItem(games, 3);
    const cJSON *moves = cJSON_GetObjectItemCaseSensitive(g, "moves");
    int nm = cJSON_GetArraySize(moves);
    int plies[3] = {0, nm / 2, nm - 1};
    for (int k = 0; k < 3; k++) {
        int ply = plies[k];
        const char *bad = NULL;
        for (int j = 0; j < nm && !bad; j++) {
            const char *t = cJSON_GetArrayItem(moves, j)->valuestring;
            if (!in_legal(g, ply, t))
                bad = t;
        }
        cr_assert_not_null(bad, "%s: no illegal candidate at ply %d", variant, ply);
        qk_pdn_record first, r;
        record_of_game(cJSON_GetArrayItem(games, 0), 0, &first);
        record_of_game(g, 3, &r);
        free(r.moves[ply]);
        r.moves[ply] = strdup(bad);
        char *t1 = write_rec(&first), *t2 = write_rec(&r);
        size_t l1 = strlen(t1), l2 = strlen(t2);
        char *text = malloc(l1 + l2 + 1);
        memcpy(text, t1, l1);
        memcpy(text + l1, t2, l2 + 1);
        /* The move's line: count lines up to it in the written text. */
        int lines_before = 0;
        for (const char *p = t1; *p; p++)
            lines_before += *p == '\n';
        qk_pdn_record *recs = (void *)1;
        size_t n = 7;
        qk_pdn_error err;
        cr_assert_eq(read_text(text, &recs, &n, &err), QK_PDN_EILLEGAL, "%s ply %d: %s", variant,
                     ply, err.message);
        cr_assert_null(recs);
        cr_assert_eq(n, 0);
        cr_assert_eq(err.code, QK_PDN_EILLEGAL);
        cr_assert_eq(err.record, 1);
        cr_assert_eq(err.ply, ply, "%s: ply %ld, want %d", variant, err.ply, ply);
        /* The line holding the bad move's text in t2. */
        qk_pdn_record *one;
        size_t n1;
        qk_pdn_error e1;
        cr_assert_eq(read_text(t2, &one, &n1, &e1), QK_PDN_EILLEGAL);
        cr_assert_eq(e1.record, 0);
        cr_assert_eq(e1.ply, ply);
        /* 10 tag lines and a blank one, then the moves; the reported line
         * holds the bad text. */
        cr_assert_geq(e1.line, 12);
        const char *lp = t2;
        for (int ln = 1; ln < e1.line; ln++)
            lp = strchr(lp, '\n') + 1;
        char linebuf[128], tokbuf[64];
        snprintf(linebuf, sizeof linebuf, " %.*s ", (int)(strchr(lp, '\n') - lp), lp);
        snprintf(tokbuf, sizeof tokbuf, " %s ", bad);
        cr_assert(strstr(linebuf, tokbuf), "line %d '%s' lacks %s", e1.line, linebuf, bad);
        cr_assert_eq(err.line, lines_before + e1.line);
        char want[128];
        snprintf(want, sizeof want, "illegal move '%s' (move %d, ", bad, ply / 2 + 1);
        cr_assert(strstr(err.message, want), "%s", err.message);
        /* The validator alone gives the same ply, no line (built in code). */
        qk_pdn_outcome out;
        qk_pdn_error e2;
        cr_assert_eq(qk_pdn_validate(&r, &out, &e2), QK_PDN_EILLEGAL);
        cr_assert_eq(e2.ply, ply);
        cr_assert_eq(e2.line, 0);
        free(text);
        free(t1);
        free(t2);
        qk_pdn_free(&first);
        qk_pdn_free(&r);
    }
    cJSON_Delete(games);
}

Test(illegal, kawu)
{
    illegal_at("alquerque");
}
Test(illegal, traditional)
{
    illegal_at("alquerque-traditional");
}
Test(illegal, brainking)
{
    illegal_at("alquerque-brainking");
}
Test(illegal, stoep_long)
{
    illegal_at("alquerque-stoep-long");
}
Test(illegal, konane_8x8)
{
    illegal_at("alquerkonane-8x8");
}

/* qk_pdn_replay() at every ply of game 0 of each file equals playing the
 * moves one by one, and its last move is the one played. */
Test(replay, every_ply_matches_playing, .timeout = 60)
{
    const char *variants[] = {"alquerque", "alquerque-stoep-short", "alquerkonane-6x4"};
    for (size_t k = 0; k < 3; k++) {
        cJSON *games = load_games(variants[k]);
        const cJSON *g = cJSON_GetArrayItem(games, 0);
        qk_pdn_record r;
        record_of_game(g, 0, &r);
        qk_variant v;
        qk_pos p;
        cr_assert_eq(qk_variant_parse(variants[k], &v), QK_OK);
        cr_assert_eq(qk_pos_parse(&v, jstr(g, "start"), &p, NULL), QK_OK);
        for (size_t ply = 0; ply <= r.nmoves; ply++) {
            qk_pdn_state st;
            cr_assert_eq(qk_pdn_replay(&r, ply, &st, NULL), QK_PDN_OK);
            cr_assert_eq(st.ply, ply);
            cr_assert_eq(st.has_last, ply > 0);
            char a[QK_POS_STRLEN];
            qk_pos_format(&v, &p, a, sizeof a);
            cr_assert_str_eq(pos_text(&st.variant, &st.pos), a, "%s ply %zu", variants[k], ply);
            if (ply == r.nmoves)
                break;
            qk_move m;
            qk_undo u;
            cr_assert_eq(qk_move_parse(&v, &p, r.moves[ply], &m), QK_OK);
            qk_pos_make(&v, &p, &m, &u);
            qk_pdn_state nx;
            cr_assert_eq(qk_pdn_replay(&r, ply + 1, &nx, NULL), QK_PDN_OK);
            cr_assert_eq(nx.last.len, m.len);
            cr_assert_eq(nx.last.ncap, m.ncap);
            cr_assert_eq(memcmp(nx.last.path, m.path, m.len), 0);
        }
        qk_pdn_error err;
        qk_pdn_state st;
        cr_assert_eq(qk_pdn_replay(&r, r.nmoves + 1, &st, &err), QK_PDN_EINVAL);
        qk_pdn_free(&r);
        cJSON_Delete(games);
    }
}
