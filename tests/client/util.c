/* See util.h. (nftw() is X/Open.) */
#define _XOPEN_SOURCE 700
#include "util.h"

#include <criterion/criterion.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "render.h"
#include "session.h"

static void crun_va(crun *r, FILE *in, va_list ap)
{
    char *argv[64];
    int argc = 0;
    argv[argc++] = "qirkat";
    const char *w;
    while ((w = va_arg(ap, const char *)) && argc < 63)
        argv[argc++] = (char *)w;
    argv[argc] = NULL;
    size_t on, en;
    FILE *out = open_memstream(&r->out, &on);
    FILE *err = open_memstream(&r->err, &en);
    cr_assert(out && err);
    r->code = cli_run(argc, argv, in, out, err);
    fclose(out);
    fclose(err);
}

void crun_in(crun *r, FILE *in, ...)
{
    va_list ap;
    va_start(ap, in);
    crun_va(r, in, ap);
    va_end(ap);
}

void crun_do(crun *r, const char *stdin_text, ...)
{
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    size_t len = stdin_text ? strlen(stdin_text) : 0;
    cr_assert_lt(len, 60000, "test input must fit a pipe buffer");
    cr_assert_eq(write(fds[1], stdin_text ? stdin_text : "", len), (ssize_t)len);
    close(fds[1]);
    FILE *in = fdopen(fds[0], "r");
    cr_assert_not_null(in);
    va_list ap;
    va_start(ap, stdin_text);
    crun_va(r, in, ap);
    va_end(ap);
    fclose(in);
}

void crun_free(crun *r)
{
    free(r->out);
    free(r->err);
    memset(r, 0, sizeof *r);
}

void crun_expect(const crun *r, int code)
{
    cr_assert_eq(r->code, code, "exit %d, expected %d\nstdout: %s\nstderr: %s", r->code, code,
                 r->out, r->err);
}

void save_login(const char *user, const char *server)
{
    session s = {0};
    snprintf(s.username, sizeof s.username, "%s", user);
    strcpy(s.token, "tok");
    snprintf(s.server, sizeof s.server, "%s", server);
    cr_assert_eq(session_save(&s), SESSION_OK);
}

void fresh_config(char *dir)
{
    strcpy(dir, "/tmp/qk-client-test-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    setenv("XDG_CONFIG_HOME", dir, 1);
    unsetenv("QIRKAT_SERVER");
    unsetenv("NO_COLOR");
}

static int unlink_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void drop_config(const char *dir)
{
    if (dir[0])
        nftw(dir, unlink_cb, 16, FTW_DEPTH | FTW_PHYS);
}

char *board_text(const char *variant, const char *position, const char *last, unsigned flags)
{
    qk_variant v;
    qk_pos p;
    qk_move m;
    qk_undo u;
    cr_assert_eq(qk_variant_parse(variant, &v), QK_OK, "variant %s", variant);
    if (position)
        cr_assert_eq(qk_pos_parse(&v, position, &p, NULL), QK_OK, "position %s", position);
    else
        qk_variant_start(&v, &p);
    if (last) {
        cr_assert_eq(qk_move_parse(&v, &p, last, &m), QK_OK, "move %s", last);
        qk_pos_make(&v, &p, &m, &u);
    }
    char *buf;
    size_t n;
    FILE *f = open_memstream(&buf, &n);
    cr_assert_not_null(f);
    render_board(f, &v, &p, last ? &m : NULL, flags);
    fclose(f);
    return buf;
}

char *game_text(const char *json, const char *me)
{
    return game_flags_text(json, me, 0);
}

char *game_flags_text(const char *json, const char *me, unsigned flags)
{
    cJSON *g = cJSON_Parse(json);
    cr_assert_not_null(g, "bad test JSON: %s", json);
    char *buf;
    size_t n;
    FILE *f = open_memstream(&buf, &n);
    cr_assert_not_null(f);
    render_game(f, g, me, flags);
    fclose(f);
    cJSON_Delete(g);
    return buf;
}

int req_id(const cJSON *req)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(req, "id");
    return cJSON_IsNumber(id) ? id->valueint : -1;
}

const char *req_type(const cJSON *req)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(req, "type");
    return cJSON_IsString(t) ? t->valuestring : "";
}

bool is(const cJSON *req, const char *op)
{
    return strcmp(req_type(req), op) == 0;
}
