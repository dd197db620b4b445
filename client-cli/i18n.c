/*
 * i18n: see i18n.h. Only main() calls i18n_init(); nothing here runs in
 * the in-process tests.
 */
#include "i18n.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef QK_LOCALEDIR
#define QK_LOCALEDIR "/usr/local/share/locale"
#endif

/* The first of LC_ALL, LC_MESSAGES, LANG that is set and not empty: the
 * order POSIX gives them for LC_MESSAGES. NULL when none is. */
static const char *messages_env(void)
{
    static const char *const names[] = {"LC_ALL", "LC_MESSAGES", "LANG"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *v = getenv(names[i]);
        if (v && *v)
            return v;
    }
    return NULL;
}

/* The locale of the environment, or C.UTF-8 with its language in LANGUAGE
 * when it is not installed (i18n.h). */
static void set_locale(void)
{
    if (setlocale(LC_CTYPE, "") && setlocale(LC_MESSAGES, ""))
        return;
    const char *name = messages_env();
    setlocale(LC_CTYPE, "C.UTF-8");
    setlocale(LC_MESSAGES, "C.UTF-8");
    const char *language = getenv("LANGUAGE");
    if (!name || (language && *language) || strcmp(name, "C") == 0 || strcmp(name, "POSIX") == 0)
        return;
    /* "fr_FR.UTF-8@euro" -> "fr_FR": gettext tries "fr" after it. */
    char lang[64];
    size_t n = strcspn(name, ".@");
    if (n == 0 || n >= sizeof lang)
        return;
    memcpy(lang, name, n);
    lang[n] = '\0';
    setenv("LANGUAGE", lang, 1);
}

/* "DIR/locale" for the executable's DIR when DIR/locale is a directory;
 * into buf (size n); false otherwise. */
static bool beside_exe(const char *argv0, char *buf, size_t n)
{
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
        exe[len] = '\0';
    } else if (argv0 && strchr(argv0, '/') && strlen(argv0) < sizeof exe) {
        strcpy(exe, argv0);
    } else {
        return false;
    }
    char *slash = strrchr(exe, '/');
    if (!slash)
        return false;
    *slash = '\0';
    struct stat st;
    int w = snprintf(buf, n, "%s/locale", exe);
    return w > 0 && (size_t)w < n && stat(buf, &st) == 0 && S_ISDIR(st.st_mode);
}

void i18n_init(const char *argv0)
{
    set_locale();
    char dir[PATH_MAX + 16];
    const char *env = getenv("QIRKAT_LOCALEDIR");
    if (env && *env)
        bindtextdomain("qirkat", env);
    else if (beside_exe(argv0, dir, sizeof dir))
        bindtextdomain("qirkat", dir);
    else
        bindtextdomain("qirkat", QK_LOCALEDIR);
    /* The catalogues are UTF-8 and so are today's terminals; without this
     * a C.UTF-8 fallback would still print UTF-8, an ASCII locale '?'s. */
    bind_textdomain_codeset("qirkat", "UTF-8");
    textdomain("qirkat");
}

const char *i18n_pgettext(const char *ctx_id, const char *s)
{
    const char *t = gettext(ctx_id);
    return t == ctx_id ? s : t;
}
