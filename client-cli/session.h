/*
 * session: the login the client remembers between runs (docs/design.md
 * "qirkat command line"): username, token and the server they belong to, in
 * $XDG_CONFIG_HOME/qirkat/session.json, else $HOME/.config/qirkat/.
 *
 * Design. The token is a password equivalent, so the file is created with
 * mode 0600 inside a 0700 directory and replaced atomically: the new content
 * goes to a temporary file in the same directory, is fsync'ed, and renamed
 * over the old one, so a crash or a concurrent reader sees either the old
 * session or the new one, never half of each. The file is small JSON; an
 * unreadable or malformed file is reported, never guessed at.
 */
#ifndef QC_SESSION_H
#define QC_SESSION_H

#include <stddef.h>

#define SESSION_USER_MAX 128
#define SESSION_TOKEN_MAX 256
#define SESSION_SERVER_MAX 300

enum {
    SESSION_OK = 0,
    SESSION_NONE = 1,      /* no session file: not logged in */
    SESSION_ENOHOME = -1,  /* neither XDG_CONFIG_HOME nor HOME usable */
    SESSION_EIO = -2,      /* cannot read, write or rename (errno is set) */
    SESSION_EFORMAT = -3,  /* the file is not a session object */
    SESSION_ETOOLONG = -4, /* a field does not fit */
};

typedef struct session {
    char username[SESSION_USER_MAX];
    char token[SESSION_TOKEN_MAX];
    char server[SESSION_SERVER_MAX]; /* "HOST:PORT" the token is valid on */
} session;

/* The session file's path into buf (size n): $XDG_CONFIG_HOME/qirkat/
 * session.json when XDG_CONFIG_HOME is set to an absolute path (the XDG
 * spec ignores relative ones), else $HOME/.config/qirkat/session.json.
 * Returns SESSION_OK, SESSION_ENOHOME or SESSION_ETOOLONG. */
int session_path(char *buf, size_t n);

/* Load the session. Returns SESSION_OK and fills *s, SESSION_NONE when
 * there is no file, or a negative error (SESSION_EFORMAT for a file that
 * is not {"username": str, "token": str, "server": str}). */
int session_load(session *s);

/* Write s atomically with mode 0600, creating the directories (0700) as
 * needed. Returns SESSION_OK or a negative error; on error the previous
 * file, if any, is untouched and no temporary file is left behind. */
int session_save(const session *s);

/* Remove the session file. Returns SESSION_OK (also when there was none)
 * or a negative error. */
int session_remove(void);

/* Copy src into dst (size n) if it fits. Returns 0 or SESSION_ETOOLONG. */
int session_set(char *dst, size_t n, const char *src);

/* A static English description of a negative error code. */
const char *session_strerror(int err);

#endif
