/*
 * auth: see auth.h. One heap job per hash; the job owns copies of its
 * inputs so nothing the loop frees can be read by a worker. A token's hash
 * is taken over its 32 raw bytes, so hex in either case is the same token.
 */
#include "game/auth.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "util/log.h"
#include "util/task.h"

typedef struct auth_job {
    uv_work_t work;
    bool verify;
    unsigned long long opslimit;
    size_t memlimit;
    char *password; /* sodium-wiped on free */
    size_t len;
    char hash[STORE_PWHASH_MAX];
    int rc;
    int delay_ms; /* tests only (svc_auth.delay_ms) */
    svc_auth *acct; /* its jobs count; not touched by the worker */
    auth_hash_cb hash_done;
    auth_verify_cb verify_done;
    void *arg;
} auth_job;

static void job_free(auth_job *j)
{
    if (j->password) {
        sodium_memzero(j->password, j->len);
        free(j->password);
    }
    free(j);
}

/* Thread pool: only j is touched. */
static void work_cb(uv_work_t *w)
{
    auth_job *j = w->data;
    if (j->delay_ms > 0) {
        struct timespec ts = {j->delay_ms / 1000, (long)(j->delay_ms % 1000) * 1000000L};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
    }
    if (j->verify)
        j->rc = crypto_pwhash_str_verify(j->hash, j->password, j->len);
    else
        j->rc = crypto_pwhash_str(j->hash, j->password, j->len, j->opslimit, j->memlimit);
}

static void after_task(void *arg);

/* The completion writes (a new account, a login's token): a task
 * (util/task.h), which on PostgreSQL may wait for the database. */
static void after_cb(uv_work_t *w, int status)
{
    auth_job *j = w->data;
    if (status != 0)
        j->rc = -1;
    if (task_run(after_task, j) != 0)
        after_task(j);
}

static void after_task(void *arg)
{
    auth_job *j = arg;
    int rc = j->rc;
    j->acct->jobs--;
    if (j->verify)
        j->verify_done(j->arg, rc == 0);
    else
        j->hash_done(j->arg, rc == 0 ? 0 : -1, j->hash);
    job_free(j);
}

bool auth_busy(const gsvc *s)
{
    return s->auth.jobs >= s->auth.max_jobs;
}

static int queue(gsvc *s, auth_job *j, const char *password, size_t len)
{
    if (auth_busy(s)) {
        /* dispatch.c answers server_busy before this can happen. */
        log_error("password hash refused: %d jobs already", s->auth.jobs);
        job_free(j);
        return -1;
    }
    j->acct = &s->auth;
    j->delay_ms = s->auth.delay_ms;
    j->opslimit = s->auth.opslimit;
    j->memlimit = s->auth.memlimit;
    j->password = malloc(len + 1);
    if (!j->password) {
        job_free(j);
        return -1;
    }
    memcpy(j->password, password, len);
    j->password[len] = '\0';
    j->len = len;
    j->work.data = j;
    int rc = uv_queue_work(s->loop, &j->work, work_cb, after_cb);
    if (rc < 0) {
        log_error("uv_queue_work: %s", uv_strerror(rc));
        job_free(j);
        return -1;
    }
    s->auth.jobs++;
    return 0;
}

int auth_hash(gsvc *s, const char *password, size_t len, auth_hash_cb done, void *arg)
{
    auth_job *j = calloc(1, sizeof *j);
    if (!j)
        return -1;
    j->hash_done = done;
    j->arg = arg;
    return queue(s, j, password, len);
}

int auth_verify(gsvc *s, const char *hash, const char *password, size_t len, auth_verify_cb done,
                void *arg)
{
    auth_job *j = calloc(1, sizeof *j);
    if (!j)
        return -1;
    j->verify = true;
    j->verify_done = done;
    j->arg = arg;
    snprintf(j->hash, sizeof j->hash, "%s", hash);
    return queue(s, j, password, len);
}

void auth_token_new(char hex[AUTH_TOKEN_HEX + 1], uint8_t hash[32])
{
    uint8_t raw[32];
    randombytes_buf(raw, sizeof raw);
    sodium_bin2hex(hex, AUTH_TOKEN_HEX + 1, raw, sizeof raw);
    crypto_generichash(hash, 32, raw, sizeof raw, NULL, 0);
    sodium_memzero(raw, sizeof raw);
}

int auth_token_hash(const char *hex, uint8_t hash[32])
{
    uint8_t raw[32];
    size_t n = 0;
    const char *end = NULL;
    if (strlen(hex) != AUTH_TOKEN_HEX ||
        sodium_hex2bin(raw, sizeof raw, hex, AUTH_TOKEN_HEX, NULL, &n, &end) != 0 ||
        n != sizeof raw || end != hex + AUTH_TOKEN_HEX)
        return -1;
    crypto_generichash(hash, 32, raw, sizeof raw, NULL, 0);
    sodium_memzero(raw, sizeof raw);
    return 0;
}

bool auth_username_valid(const char *name)
{
    size_t n = 0;
    for (const char *p = name; *p; p++, n++) {
        char c = *p;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-'))
            return false;
    }
    return n >= 1 && n <= 32;
}
