/*
 * `qirkat class` in people's terms (issue 24): `class join` says "Joined
 * CLASS"; a refusal of `class add-students` that names a student
 * ("students[1]: ...") names the line of the teacher's file and its
 * username instead of the 0-based index. Against the scripted fake.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "fake.h"
#include "render.h"
#include "util.h"

static char cfg[64];
static fake srv;

static void setup(void)
{
    fresh_config(cfg);
}

static void teardown(void)
{
    fake_teardown(&srv, cfg);
}

TestSuite(class_cli, .init = setup, .fini = teardown, .timeout = 30);

static bool script(fake *f, int conn, const cJSON *req, char *buf, size_t n)
{
    (void)f;
    (void)conn;
    if (fake_basic(req, buf, n))
        return true;
    int id = req_id(req);
    if (is(req, "class_join")) {
        snprintf(buf, n,
                 "{\"type\":\"ok\",\"id\":%d,\"class\":{\"id\":3,\"name\":\"CM2 B\","
                 "\"teacher\":\"mme_ali\",\"code\":\"ABCD2345\"}}\n",
                 id);
    } else if (is(req, "class_add_students")) {
        snprintf(buf, n,
                 "{\"type\":\"error\",\"id\":%d,\"code\":\"conflict\",\"message\":"
                 "\"students[1]: that username is taken\"}\n",
                 id);
    } else {
        snprintf(buf, n, "{\"type\":\"error\",\"id\":%d,\"code\":\"unknown_op\"}\n", id);
    }
    return true;
}

Test(class_cli, join_says_joined)
{
    fake_start(&srv, script, NULL);
    save_login("amira", srv.addr);
    crun r;
    crun_do(&r, NULL, "--server", srv.addr, "class", "join", "abcd-2345", NULL);
    crun_expect(&r, 0);
    cr_assert_str_eq(r.out, "Joined CM2 B (class 3, teacher mme_ali)\n");
    crun_free(&r);
}

/* Issue 24: one format of join codes. Whatever was typed, the request
 * carries the 8 capitals; a code that is not 8 letters and digits is a
 * usage error naming the format, and nothing is sent. */
Test(class_cli, join_code_in_any_spelling_is_sent_as_its_eight_capitals)
{
    fake_start(&srv, script, NULL);
    save_login("amira", srv.addr);
    const char *spellings[][2] = {
        {"abcd-2345", NULL}, {"abcd 2345", NULL}, {"ABCD2345", NULL}, {"abcd", "2345"}, {"Abcd-", "2345"},
    };
    for (size_t i = 0; i < sizeof spellings / sizeof spellings[0]; i++) {
        crun r;
        crun_do(&r, NULL, "--server", srv.addr, "class", "join", spellings[i][0], spellings[i][1],
                NULL);
        crun_expect(&r, 0);
        crun_free(&r);
        cJSON *req = fake_request(&srv, "class_join", (int)i);
        cr_assert_not_null(req);
        cr_assert_str_eq(cJSON_GetObjectItem(req, "code")->valuestring, "ABCD2345", "%s %s",
                         spellings[i][0], spellings[i][1] ? spellings[i][1] : "");
        cJSON_Delete(req);
    }
    crun r;
    crun_do(&r, NULL, "--server", srv.addr, "class", "join", "abcd", "234", NULL);
    crun_expect(&r, 2);
    cr_assert(strstr(r.err, "a join code is 8 letters and digits, like ABCD 2345 (case, spaces and "
                            "dashes do not matter), not \"abcd 234\"\n"),
              "%s", r.err);
    crun_free(&r);
    cr_assert_eq(fake_count(&srv, "class_join"), 5);
}

/* The code is printed as ABCD 2345 in class create and show. */
Test(class_cli, join_code_is_shown_as_two_groups_of_four)
{
    char b[32];
    cr_assert_str_eq(render_join_code("ABCD2345", b, sizeof b), "ABCD 2345");
    cr_assert_str_eq(render_join_code(NULL, b, sizeof b), "-");
    cr_assert_str_eq(render_join_code("ABC", b, sizeof b), "ABC");
    char out[9];
    const char *w[] = {"9vwh-v6qv"};
    cr_assert_eq(render_join_code_parse(w, 1, out), 0);
    cr_assert_str_eq(out, "9VWHV6QV");
    const char *bad[] = {"9vwh_v6qv"};
    cr_assert_eq(render_join_code_parse(bad, 1, out), -1);
    cr_assert_str_eq(out, "");
    const char *longer[] = {"9vwh", "v6qv", "x"};
    cr_assert_eq(render_join_code_parse(longer, 3, out), -1);
}

Test(class_cli, add_students_names_the_file_line)
{
    fake_start(&srv, script, NULL);
    save_login("mme_ali", srv.addr);
    char file[128];
    snprintf(file, sizeof file, "%s/list.txt", cfg);
    FILE *f = fopen(file, "w");
    cr_assert_not_null(f);
    fputs("# CM2 B\nchloem, Chloé Martin\n\nbob, Bob Okafor\n", f);
    fclose(f);
    crun r;
    crun_do(&r, NULL, "--server", srv.addr, "class", "add-students", "3", file, NULL);
    crun_expect(&r, 1);
    char want[512];
    snprintf(want, sizeof want,
             "%s, line 4 (bob): Not possible in the current state: that username is taken\n"
             "No account was made.\n",
             file);
    cr_assert_str_eq(r.err, want);
    crun_free(&r);
    cJSON *q = fake_request(&srv, "class_add_students", 0);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(q, "students")), 2);
    cJSON_Delete(q);
}
