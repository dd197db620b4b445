/* The reader on hostile text (qk_pdn.h: any bytes, never past len): every
 * prefix of a written record, and seeded single-byte mutations of it,
 * end in QK_PDN_OK with records that validate, or in one of the reader's
 * error codes with a message, a record index in range and no records. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static void check_one(const char *text, size_t len, int *ok, int *bad)
{
    /* A copy of exactly len bytes, so ASan catches a read past it. */
    char *copy = malloc(len ? len : 1);
    cr_assert_not_null(copy);
    memcpy(copy, text, len);
    qk_pdn_record *recs;
    size_t n;
    qk_pdn_error err;
    int rc = qk_pdn_read(copy, len, &recs, &n, &err);
    if (rc == QK_PDN_OK) {
        cr_assert_geq(n, 1);
        for (size_t i = 0; i < n; i++) {
            qk_pdn_outcome out;
            cr_assert_eq(qk_pdn_validate(&recs[i], &out, NULL), QK_PDN_OK);
        }
        qk_pdn_free_all(recs, n);
        (*ok)++;
    } else {
        cr_assert(rc <= QK_PDN_ESYNTAX && rc >= QK_PDN_EILLEGAL, "rc %d", rc);
        cr_assert_eq(err.code, rc);
        cr_assert_null(recs);
        cr_assert_eq(n, 0);
        cr_assert_neq(err.message[0], '\0');
        cr_assert_leq(err.record, 1);
        cr_assert(err.ply == -1 || rc == QK_PDN_EILLEGAL);
        (*bad)++;
    }
    free(copy);
}

Test(fuzz, prefixes_and_mutations, .timeout = 120)
{
    cJSON *games = load_games("alquerque-stoep-long");
    qk_pdn_record r[2];
    record_of_game(cJSON_GetArrayItem(games, 0), 0, &r[0]);
    record_of_game(cJSON_GetArrayItem(games, 1), 1, &r[1]);
    r[0].clk[0] = 61000;
    char *a = write_rec(&r[0]), *b = write_rec(&r[1]);
    size_t la = strlen(a), lb = strlen(b);
    char *text = malloc(la + lb + 1);
    memcpy(text, a, la);
    memcpy(text + la, b, lb + 1);
    size_t len = la + lb;
    int ok = 0, bad = 0;
    for (size_t k = 0; k <= len; k++)
        check_one(text, k, &ok, &bad);
    /* The whole text and the cut right after game 0 are fine; most cuts
     * are not (a cut move, a missing result). */
    cr_assert_geq(ok, 2);
    cr_assert_gt(bad, (int)len / 2);
    unsigned seed = 12345;
    static const char alphabet[] = "[]{}();\"\\x-.*012345678abcde \n\r\t\x80\xff";
    for (int i = 0; i < 3000; i++) {
        seed = seed * 1103515245u + 12345u;
        size_t at = (seed >> 8) % len;
        seed = seed * 1103515245u + 12345u;
        char saved = text[at];
        text[at] = alphabet[(seed >> 8) % (sizeof alphabet - 1)];
        check_one(text, len, &ok, &bad);
        text[at] = saved;
    }
    cr_log_info("%d texts accepted, %d refused", ok, bad);
    free(text);
    free(a);
    free(b);
    qk_pdn_free(&r[0]);
    qk_pdn_free(&r[1]);
    cJSON_Delete(games);
}
