/*
 * session: see session.h. Directories are created one component at a time
 * (mkdir -p) with mode 0700; the file goes through a uniquely named
 * temporary (O_EXCL, so a stale or hostile file of that name is never
 * reused) in the target directory, because rename() is only atomic within
 * one file system.
 */
#include "session.h"
#include "i18n.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

/* Bigger than any real session; a larger file is not ours. */
#define SESSION_FILE_MAX 65536

const char *session_strerror(int err)
{
    switch (err) {
    case SESSION_OK:
        return "ok";
    case SESSION_NONE:
        return _("not logged in");
    case SESSION_ENOHOME:
        return _("neither XDG_CONFIG_HOME nor HOME is set");
    case SESSION_EIO:
        return strerror(errno);
    case SESSION_EFORMAT:
        return _("the session file is malformed");
    case SESSION_ETOOLONG:
        return _("a path or field is too long");
    default:
        return _("unknown error");
    }
}

int session_set(char *dst, size_t n, const char *src)
{
    size_t len = strlen(src);
    if (len >= n)
        return SESSION_ETOOLONG;
    memcpy(dst, src, len + 1);
    return SESSION_OK;
}

/* The directory holding session.json, into buf. */
static int session_dir(char *buf, size_t n)
{
    const char *xdg = getenv("XDG_CONFIG_HOME");
    int len;
    if (xdg && xdg[0] == '/') {
        len = snprintf(buf, n, "%s/qirkat", xdg);
    } else {
        const char *home = getenv("HOME");
        if (!home || !*home)
            return SESSION_ENOHOME;
        len = snprintf(buf, n, "%s/.config/qirkat", home);
    }
    if (len < 0 || (size_t)len >= n)
        return SESSION_ETOOLONG;
    return SESSION_OK;
}

int session_path(char *buf, size_t n)
{
    char dir[4096];
    int rc = session_dir(dir, sizeof dir);
    if (rc != SESSION_OK)
        return rc;
    int len = snprintf(buf, n, "%s/session.json", dir);
    if (len < 0 || (size_t)len >= n)
        return SESSION_ETOOLONG;
    return SESSION_OK;
}

/* mkdir -p with mode 0700 for the components we create. */
static int mkdirs(const char *path)
{
    char tmp[4096];
    if (session_set(tmp, sizeof tmp, path) != SESSION_OK)
        return SESSION_ETOOLONG;
    for (char *p = tmp + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char saved = *p;
            *p = '\0';
            if (mkdir(tmp, 0700) < 0 && errno != EEXIST)
                return SESSION_EIO;
            *p = saved;
            if (saved == '\0')
                break;
        }
    }
    return SESSION_OK;
}

static int get_field(const cJSON *obj, const char *name, char *dst, size_t n)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (!cJSON_IsString(v) || !v->valuestring[0])
        return SESSION_EFORMAT;
    return session_set(dst, n, v->valuestring);
}

int session_load(session *s)
{
    char path[4096];
    int rc = session_path(path, sizeof path);
    if (rc != SESSION_OK)
        return rc;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? SESSION_NONE : SESSION_EIO;
    char *buf = malloc(SESSION_FILE_MAX + 1);
    if (!buf) {
        close(fd);
        return SESSION_EIO;
    }
    size_t len = 0;
    for (;;) {
        ssize_t r = read(fd, buf + len, SESSION_FILE_MAX + 1 - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            rc = SESSION_EIO;
            goto out;
        }
        if (r == 0)
            break;
        len += (size_t)r;
        if (len > SESSION_FILE_MAX) {
            rc = SESSION_EFORMAT;
            goto out;
        }
    }
    cJSON *obj = cJSON_ParseWithLength(buf, len);
    if (!cJSON_IsObject(obj)) {
        rc = SESSION_EFORMAT;
    } else {
        session tmp;
        memset(&tmp, 0, sizeof tmp);
        rc = get_field(obj, "username", tmp.username, sizeof tmp.username);
        if (rc == SESSION_OK)
            rc = get_field(obj, "token", tmp.token, sizeof tmp.token);
        if (rc == SESSION_OK)
            rc = get_field(obj, "server", tmp.server, sizeof tmp.server);
        if (rc == SESSION_OK)
            *s = tmp;
        else
            rc = SESSION_EFORMAT;
        explicit_bzero(&tmp, sizeof tmp);
    }
    cJSON_Delete(obj);
out:
    explicit_bzero(buf, len < SESSION_FILE_MAX ? len : SESSION_FILE_MAX);
    free(buf);
    close(fd);
    return rc;
}

static int write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, buf, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return SESSION_EIO;
        buf += w;
        len -= (size_t)w;
    }
    return SESSION_OK;
}

int session_save(const session *s)
{
    char dir[4096], path[4200], tmp[4300];
    int rc = session_dir(dir, sizeof dir);
    if (rc != SESSION_OK)
        return rc;
    snprintf(path, sizeof path, "%s/session.json", dir);
    snprintf(tmp, sizeof tmp, "%s/.session.json.%ld.tmp", dir, (long)getpid());
    rc = mkdirs(dir);
    if (rc != SESSION_OK)
        return rc;

    cJSON *obj = cJSON_CreateObject();
    if (!obj || !cJSON_AddStringToObject(obj, "username", s->username) ||
        !cJSON_AddStringToObject(obj, "token", s->token) ||
        !cJSON_AddStringToObject(obj, "server", s->server)) {
        cJSON_Delete(obj);
        errno = ENOMEM;
        return SESSION_EIO;
    }
    char *text = cJSON_Print(obj);
    cJSON_Delete(obj);
    if (!text) {
        errno = ENOMEM;
        return SESSION_EIO;
    }
    size_t len = strlen(text);

    /* Our own pid makes the name unique among live writers; O_EXCL fails
     * on a leftover from a crashed run with a recycled pid, so clear it. */
    (void)unlink(tmp);
    rc = SESSION_EIO;
    int err = 0;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        err = errno;
        goto free_text;
    }
    /* The umask can only remove bits, but be explicit: 0600 exactly. */
    if (fchmod(fd, 0600) < 0 || write_all(fd, text, len) != SESSION_OK ||
        write_all(fd, "\n", 1) != SESSION_OK || fsync(fd) < 0) {
        err = errno;
        goto close_tmp;
    }
    if (close(fd) < 0 || rename(tmp, path) < 0) {
        err = errno;
        goto unlink_tmp;
    }
    /* Make the rename itself durable; failure here loses nothing now. */
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
    rc = SESSION_OK;
    goto free_text;

close_tmp:
    close(fd);
unlink_tmp:
    unlink(tmp);
free_text:
    explicit_bzero(text, len);
    free(text);
    if (rc != SESSION_OK)
        errno = err; /* session_strerror() reports the first failure */
    return rc;
}

int session_remove(void)
{
    char path[4096];
    int rc = session_path(path, sizeof path);
    if (rc != SESSION_OK)
        return rc;
    if (unlink(path) < 0 && errno != ENOENT)
        return SESSION_EIO;
    return SESSION_OK;
}
