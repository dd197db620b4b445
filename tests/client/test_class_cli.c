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
