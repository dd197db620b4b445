/*
 * harness_data: JSON lookups and assertions, the recorded games of
 * ../shared/data/games, standard start positions (RULES.md sections 2 and
 * 7) and row counts read straight from the server's database file.
 */
#include "harness.h"

#include <criterion/criterion.h>

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* ---- JSON helpers ------------------------------------------------------------ */

const char *hj_str(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

bool hj_has_int(const cJSON *o, const char *name, long long *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    if (!cJSON_IsNumber(v))
        return false;
    double d = v->valuedouble;
    if (d != (double)(long long)d)
        return false;
    if (out)
        *out = (long long)d;
    return true;
}

long long hj_int(const cJSON *o, const char *name)
{
    long long v = 0;
    cr_assert(hj_has_int(o, name, &v), "no integer \"%s\" in %s", name, hj_text(o));
    return v;
}

const cJSON *hj_game(const cJSON *o)
{
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(o, "game");
    if (cJSON_IsObject(g))
        return g;
    if (cJSON_GetObjectItemCaseSensitive(o, "moves") && cJSON_GetObjectItemCaseSensitive(o, "id"))
        return o;
    cr_assert_fail("no game object in %s", hj_text(o));
    return NULL;
}

void hj_assert_ok(const cJSON *resp, const char *what)
{
    const char *t = hj_str(resp, "type");
    cr_assert(t && strcmp(t, "ok") == 0, "%s: expected ok, got %s", what, hj_text(resp));
}

void hj_assert_error(const cJSON *resp, const char *code, const char *what)
{
    cr_assert_not_null(resp, "%s: expected error %s, got nothing", what, code);
    const char *t = hj_str(resp, "type");
    const char *c = hj_str(resp, "code");
    cr_assert(t && strcmp(t, "error") == 0 && c && strcmp(c, code) == 0,
              "%s: expected error %s, got %s", what, code, hj_text(resp));
    cr_assert_not_null(hj_str(resp, "message"), "%s: error without a message: %s", what,
                       hj_text(resp));
}

const char *hj_text(const cJSON *o)
{
    static char ring[4][1600];
    static int at;
    char *slot = ring[at++ % 4];
    if (!o) {
        snprintf(slot, 1600, "(null)");
        return slot;
    }
    char *s = cJSON_PrintUnformatted(o);
    snprintf(slot, 1600, "%s", s ? s : "(unprintable)");
    free(s);
    return slot;
}

/* ---- recorded games ------------------------------------------------------------ */

static char *dup_str(const cJSON *o, const char *name)
{
    const char *s = hj_str(o, name);
    cr_assert_not_null(s, "recorded game without \"%s\"", name);
    return strdup(s);
}

int hgames_load(const char *file, hgame **out)
{
    char path[H_PATH];
    snprintf(path, sizeof path, "%s/data/games/%s.jsonl", h_shared(), file);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s: %s (set QK_SHARED)", path, strerror(errno));
    hgame *g = NULL;
    int n = 0;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) > 0) {
        if (len <= 1)
            continue;
        g = realloc(g, (size_t)(n + 1) * sizeof *g);
        cr_assert_not_null(g);
        hgame *x = &g[n];
        memset(x, 0, sizeof *x);
        x->root = cJSON_Parse(line);
        cr_assert_not_null(x->root, "%s line %d does not parse", path, n + 1);
        x->index = n;
        x->variant = dup_str(x->root, "variant");
        x->start = dup_str(x->root, "start");
        x->result = dup_str(x->root, "result");
        x->reason = dup_str(x->root, "reason");
        x->final = dup_str(x->root, "final");
        const cJSON *mv = cJSON_GetObjectItemCaseSensitive(x->root, "moves");
        cr_assert(cJSON_IsArray(mv));
        x->nmoves = cJSON_GetArraySize(mv);
        x->moves = calloc((size_t)x->nmoves + 1, sizeof *x->moves);
        int i = 0;
        const cJSON *m;
        cJSON_ArrayForEach(m, mv)
        {
            cr_assert(cJSON_IsString(m));
            x->moves[i++] = strdup(m->valuestring);
        }
        x->legal = cJSON_GetObjectItemCaseSensitive(x->root, "legal");
        n++;
    }
    free(line);
    fclose(f);
    cr_assert_gt(n, 0, "%s is empty", path);
    *out = g;
    return n;
}

void hgames_free(hgame *g, int n)
{
    for (int i = 0; i < n; i++) {
        free(g[i].variant);
        free(g[i].start);
        free(g[i].result);
        free(g[i].reason);
        free(g[i].final);
        for (int j = 0; j < g[i].nmoves; j++)
            free(g[i].moves[j]);
        free(g[i].moves);
        cJSON_Delete(g[i].root);
    }
    free(g);
}

bool h_std_start(const char *variant, char *buf, size_t n)
{
    if (!strcmp(variant, "alquerque")) {
        snprintf(buf, n, "bbbbb/bbbbb/ww.bb/wwwww/wwwww w 0 -");
        return true;
    }
    if (!strcmp(variant, "alquerque-traditional") || !strcmp(variant, "alquerque-brainking") ||
        !strcmp(variant, "alquerque-stoep-short") || !strcmp(variant, "alquerque-stoep-long")) {
        snprintf(buf, n, "bbbbb/bbbbb/bb.ww/wwwww/wwwww w 0 -");
        return true;
    }
    int R, C;
    char tail;
    if (sscanf(variant, "alquerkonane-%dx%d%c", &R, &C, &tail) != 2 || R < 2 || R > 12 || C < 2 ||
        C > 12)
        return false;
    /* RULES.md section 7: a1 dark (f + r even); Black on the dark squares of
     * ranks 1-2, White on the light squares of the two highest ranks. */
    size_t k = 0;
    for (int r = R - 1; r >= 0; r--) {
        for (int f = 0; f < C; f++) {
            bool dark = (f + r) % 2 == 0;
            char ch = '.';
            if (r >= R - 2 && !dark)
                ch = 'w';
            if (r <= 1 && dark)
                ch = 'b';
            if (k + 1 < n)
                buf[k++] = ch;
        }
        if (r > 0 && k + 1 < n)
            buf[k++] = '/';
    }
    buf[k] = 0;
    size_t used = strlen(buf);
    snprintf(buf + used, n - used, " b 0 -");
    return true;
}

char h_pos_side(const char *pos)
{
    const char *sp = strchr(pos, ' ');
    cr_assert(sp && (sp[1] == 'w' || sp[1] == 'b'), "bad position string %s", pos);
    return sp[1];
}

/* ---- database ------------------------------------------------------------------ */

static long long count_rows(sqlite3 *db, const char *table)
{
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", table);
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    cr_assert_eq(rc, SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(db));
    rc = sqlite3_step(st);
    cr_assert_eq(rc, SQLITE_ROW, "%s: %s", sql, sqlite3_errmsg(db));
    long long n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

void hdb_counts(const char *path, hcounts *out)
{
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
    cr_assert_eq(rc, SQLITE_OK, "open %s: %s", path, db ? sqlite3_errmsg(db) : "?");
    sqlite3_busy_timeout(db, 5000);
    out->users = count_rows(db, "users");
    out->games = count_rows(db, "games");
    out->moves = count_rows(db, "moves");
    sqlite3_close(db);
}

void hdb_assert_counts_eq(const hcounts *a, const hcounts *b, const char *what)
{
    cr_assert(a->users == b->users && a->games == b->games && a->moves == b->moves,
              "%s changed stored rows: users %lld -> %lld, games %lld -> %lld, moves %lld -> %lld",
              what, a->users, b->users, a->games, b->games, a->moves, b->moves);
}
