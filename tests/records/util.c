/* Shared helpers of the records tests (see util.h). */
#include "util.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *shared_path(const char *rel)
{
    static char buf[4096];
    const char *root = getenv("QK_SHARED");
    snprintf(buf, sizeof buf, "%s/%s", root && *root ? root : "../shared", rel);
    return buf;
}

char *slurp(const char *path)
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

const char *jstr(const cJSON *g, const char *name)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(g, name);
    cr_assert(cJSON_IsString(it), "missing string field %s", name);
    return it->valuestring;
}

cJSON *load_games(const char *variant)
{
    char rel[256];
    snprintf(rel, sizeof rel, "data/games/%s.jsonl", variant);
    char *data = slurp(shared_path(rel));
    cJSON *arr = cJSON_CreateArray();
    char *save = NULL;
    for (char *line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        cJSON *g = cJSON_Parse(line);
        cr_assert_not_null(g, "bad JSON in %s", rel);
        cr_assert_str_eq(jstr(g, "variant"), variant);
        cJSON_AddItemToArray(arr, g);
    }
    free(data);
    cr_assert_eq(cJSON_GetArraySize(arr), 30, "%s: %d games", rel, cJSON_GetArraySize(arr));
    return arr;
}

void record_of_game(const cJSON *g, int index, qk_pdn_record *r)
{
    qk_pdn_init(r);
    const char *variant = jstr(g, "variant");
    char name[64];
    cr_assert_eq(qk_pdn_set(r, "Variant", variant), QK_PDN_OK);
    cr_assert_eq(qk_pdn_set(r, "Event", "recorded games"), QK_PDN_OK);
    snprintf(name, sizeof name, "white-%d", index);
    cr_assert_eq(qk_pdn_set(r, "White", name), QK_PDN_OK);
    snprintf(name, sizeof name, "black-%d", index);
    cr_assert_eq(qk_pdn_set(r, "Black", name), QK_PDN_OK);
    cr_assert_eq(qk_pdn_set(r, "Date", "2026.12.01"), QK_PDN_OK);
    /* FEN only for a custom start (PROTOCOL.md "Records"). */
    qk_variant v;
    qk_pos start;
    char fen[QK_POS_STRLEN];
    cr_assert_eq(qk_variant_parse(variant, &v), QK_OK);
    qk_variant_start(&v, &start);
    cr_assert_gt(qk_pos_format(&v, &start, fen, sizeof fen), 0);
    if (strcmp(fen, jstr(g, "start")) != 0)
        cr_assert_eq(qk_pdn_set(r, "FEN", jstr(g, "start")), QK_PDN_OK);
    const char *res = jstr(g, "result");
    cr_assert_eq(qk_pdn_set(r, "Result",
                            strcmp(res, "white") == 0   ? "1-0"
                            : strcmp(res, "black") == 0 ? "0-1"
                                                        : "1/2-1/2"),
                 QK_PDN_OK);
    cr_assert_eq(qk_pdn_set(r, "Termination", jstr(g, "reason")), QK_PDN_OK);
    const cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(g, "moves"))
    {
        cr_assert_eq(qk_pdn_add_move(r, m->valuestring, -1), QK_PDN_OK);
    }
}

int read_text(const char *text, qk_pdn_record **recs, size_t *n, qk_pdn_error *err)
{
    return qk_pdn_read(text, strlen(text), recs, n, err);
}

char *write_rec(const qk_pdn_record *r)
{
    char *s = NULL;
    size_t len = 0;
    cr_assert_eq(qk_pdn_write(r, &s, &len), QK_PDN_OK);
    cr_assert_not_null(s);
    cr_assert_eq(strlen(s), len);
    return s;
}
