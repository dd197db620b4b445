/*
 * i18n: the client's messages through GNU gettext (text domain "qirkat").
 *
 * Every string the client shows people is written in English in the source
 * and looked up in the catalogue of the user's language: _() for one
 * string, N_() to mark a string kept in a table and translated where it is
 * printed, P_() for a count (ngettext: the plural forms are the
 * catalogue's). The sources of the catalogues are po/LANG.po, compiled by
 * the Makefile into build/locale/LANG/LC_MESSAGES/qirkat.mo and installed
 * under $(PREFIX)/share/locale. What stays English on purpose: the
 * protocol's words (error codes, ops), `--json` output, variant ids and
 * move text.
 *
 * Without i18n_init() (the tests that drive cli_run() in-process) the
 * locale is "C" and every lookup returns the English text.
 */
#ifndef QC_I18N_H
#define QC_I18N_H

#include <libintl.h>

#define _(s) gettext(s)
#define N_(s) s
#define P_(one, many, n) ngettext(one, many, (unsigned long)(n))
/* A string with a context, for one English word that says two things
 * ("TIME": a game's time control, an audit entry's moment): gettext's
 * pgettext, the context and the string marked for xgettext (C_:1c,2). */
#define C_(ctx, s) i18n_pgettext(ctx "\004" s, s)

/* The translation of ctx_id ("CONTEXT\004TEXT"), or s when the catalogue
 * has none. Static storage (the catalogue's) or s. */
const char *i18n_pgettext(const char *ctx_id, const char *s);

/* The gettext set-up of main(): the locale of the environment for messages
 * and character type only (numbers stay in the C locale: cJSON and the
 * parsers read and write '.'), the catalogue directory, the text domain.
 * The directory is $QIRKAT_LOCALEDIR, else "locale" beside the executable
 * when it holds catalogues (a build tree: build/qirkat, build/locale), else
 * the installed QK_LOCALEDIR. When the named locale is not installed
 * (LANG=fr_FR.UTF-8 on a machine that never generated it), messages still
 * follow its language: the locale falls back to C.UTF-8 and the language
 * goes to LANGUAGE, which gettext reads whenever the locale is not "C".
 * argv0 is unused when /proc/self/exe is readable. */
void i18n_init(const char *argv0);

#endif
