/*
 * The session file (client-cli/session.h; docs/design.md): where it lives,
 * that it round-trips, that it is 0600 in a 0700 directory whatever the
 * umask, that a rewrite leaves no temporary behind, and that bad files and
 * unwritable places are errors that leave the old file alone.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "session.h"
#include "util.h"

static char cfg[64];

static void setup(void)
{
    fresh_config(cfg);
}

static void teardown(void)
{
    drop_config(cfg);
}

TestSuite(session, .init = setup, .fini = teardown);

static session make(const char *user, const char *token, const char *server)
{
    session s;
    memset(&s, 0, sizeof s);
    strcpy(s.username, user);
    strcpy(s.token, token);
    strcpy(s.server, server);
    return s;
}

static void write_file(const char *text)
{
    char path[512], dir[512];
    cr_assert_eq(session_path(path, sizeof path), SESSION_OK);
    snprintf(dir, sizeof dir, "%s/qirkat", cfg);
    mkdir(dir, 0700);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

Test(session, path_follows_xdg_then_home)
{
    char path[512], want[512];
    cr_assert_eq(session_path(path, sizeof path), SESSION_OK);
    snprintf(want, sizeof want, "%s/qirkat/session.json", cfg);
    cr_assert_str_eq(path, want);

    setenv("HOME", "/home/someone", 1);
    unsetenv("XDG_CONFIG_HOME");
    cr_assert_eq(session_path(path, sizeof path), SESSION_OK);
    cr_assert_str_eq(path, "/home/someone/.config/qirkat/session.json");
    /* The XDG spec ignores a relative XDG_CONFIG_HOME. */
    setenv("XDG_CONFIG_HOME", "relative/dir", 1);
    cr_assert_eq(session_path(path, sizeof path), SESSION_OK);
    cr_assert_str_eq(path, "/home/someone/.config/qirkat/session.json");
    unsetenv("XDG_CONFIG_HOME");
    unsetenv("HOME");
    cr_assert_eq(session_path(path, sizeof path), SESSION_ENOHOME);
}

Test(session, round_trip_with_mode_0600)
{
    umask(0); /* the file must still not be readable by others */
    session s = make("alice", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
                     "127.0.0.1:7420"),
            t;
    cr_assert_eq(session_load(&t), SESSION_NONE);
    cr_assert_eq(session_save(&s), SESSION_OK);
    cr_assert_eq(session_load(&t), SESSION_OK);
    cr_assert_str_eq(t.username, s.username);
    cr_assert_str_eq(t.token, s.token);
    cr_assert_str_eq(t.server, s.server);

    char path[512], dir[512];
    session_path(path, sizeof path);
    snprintf(dir, sizeof dir, "%s/qirkat", cfg);
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    cr_assert_eq(st.st_mode & 0777, 0600, "mode %o", st.st_mode & 0777);
    cr_assert_eq(stat(dir, &st), 0);
    cr_assert_eq(st.st_mode & 0777, 0700, "dir mode %o", st.st_mode & 0777);
}

Test(session, creates_missing_parents)
{
    char deep[256];
    snprintf(deep, sizeof deep, "%s/a/b/c", cfg);
    setenv("XDG_CONFIG_HOME", deep, 1);
    session s = make("bob", "tok", "h:1"), t;
    cr_assert_eq(session_save(&s), SESSION_OK);
    cr_assert_eq(session_load(&t), SESSION_OK);
    cr_assert_str_eq(t.username, "bob");
}

Test(session, rewrite_replaces_and_leaves_no_temporary)
{
    session a = make("alice", "one", "h:1"), b = make("bob", "two", "h:2"), t;
    cr_assert_eq(session_save(&a), SESSION_OK);
    cr_assert_eq(session_save(&b), SESSION_OK);
    cr_assert_eq(session_load(&t), SESSION_OK);
    cr_assert_str_eq(t.username, "bob");
    cr_assert_str_eq(t.token, "two");
    char dir[512];
    snprintf(dir, sizeof dir, "%s/qirkat", cfg);
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    int files = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.' || strlen(e->d_name) > 2) {
            cr_assert_str_eq(e->d_name, "session.json");
            files++;
        }
    closedir(d);
    cr_assert_eq(files, 1);
}

Test(session, malformed_files_are_errors)
{
    session t;
    const char *bad[] = {
        "",
        "not json",
        "[1,2]",
        "{\"username\":\"a\",\"token\":\"t\"}",
        "{\"username\":\"a\",\"token\":7,\"server\":\"h:1\"}",
        "{\"username\":\"\",\"token\":\"t\",\"server\":\"h:1\"}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_file(bad[i]);
        cr_assert_eq(session_load(&t), SESSION_EFORMAT, "accepted: %s", bad[i]);
    }
    /* A field longer than its buffer. */
    char big[600] = "{\"username\":\"a\",\"token\":\"";
    memset(big + strlen(big), 'x', 300);
    strcat(big, "\",\"server\":\"h:1\"}");
    write_file(big);
    cr_assert_eq(session_load(&t), SESSION_EFORMAT);
    /* Unknown extra fields are fine. */
    write_file("{\"username\":\"a\",\"token\":\"t\",\"server\":\"h:1\",\"extra\":1}");
    cr_assert_eq(session_load(&t), SESSION_OK);
}

Test(session, unwritable_place_keeps_the_old_file)
{
    session a = make("alice", "one", "h:1"), b = make("bob", "two", "h:2"), t;
    cr_assert_eq(session_save(&a), SESSION_OK);
    /* XDG_CONFIG_HOME below a regular file: mkdir fails. */
    char file[256];
    snprintf(file, sizeof file, "%s/plainfile", cfg);
    FILE *f = fopen(file, "w");
    fclose(f);
    setenv("XDG_CONFIG_HOME", file, 1);
    cr_assert_eq(session_save(&b), SESSION_EIO);
    setenv("XDG_CONFIG_HOME", cfg, 1);
    cr_assert_eq(session_load(&t), SESSION_OK);
    cr_assert_str_eq(t.username, "alice");
}

Test(session, remove)
{
    session a = make("alice", "one", "h:1"), t;
    cr_assert_eq(session_remove(), SESSION_OK); /* none: fine */
    cr_assert_eq(session_save(&a), SESSION_OK);
    cr_assert_eq(session_remove(), SESSION_OK);
    cr_assert_eq(session_load(&t), SESSION_NONE);
}
