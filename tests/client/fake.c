/* See fake.h. */
#include "fake.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "qk_frame.h"
#include "util.h"

static void serve_conn(fake *f, int fd, int conn)
{
    qk_frame fr;
    qk_frame_init(&fr, 0);
    char *reply = malloc(1 << 16);
    for (bool open = true; open && !f->stop;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 50) <= 0) {
            pthread_mutex_lock(&f->mu);
            fake_idle_fn idle = f->idle;
            pthread_mutex_unlock(&f->mu);
            reply[0] = '\0';
            if (idle)
                idle(f, conn, reply, 1 << 16);
            if (reply[0] && send(fd, reply, strlen(reply), MSG_NOSIGNAL) < 0)
                open = false;
            continue;
        }
        char buf[4096];
        ssize_t r = read(fd, buf, sizeof buf);
        if (r <= 0 || qk_frame_push(&fr, buf, (size_t)r) != 0)
            break;
        char *line;
        size_t len;
        while (open && qk_frame_next(&fr, &line, &len) == 1) {
            if (len == 0)
                continue;
            cJSON *req = cJSON_ParseWithLength(line, len);
            if (!req)
                continue;
            pthread_mutex_lock(&f->mu);
            cJSON *copy = cJSON_Duplicate(req, 1);
            cJSON_AddNumberToObject(copy, "_conn", conn);
            cJSON_AddItemToArray(f->log, copy);
            pthread_mutex_unlock(&f->mu);
            reply[0] = '\0';
            if (!f->fn(f, conn, req, reply, 1 << 16))
                open = false;
            else if (send(fd, reply, strlen(reply), MSG_NOSIGNAL) < 0)
                open = false;
            cJSON_Delete(req);
        }
    }
    free(reply);
    qk_frame_free(&fr);
    close(fd);
}

static void *fake_main(void *arg)
{
    fake *f = arg;
    while (!f->stop) {
        struct pollfd p = {.fd = f->lfd, .events = POLLIN};
        if (poll(&p, 1, 50) <= 0)
            continue;
        int fd = accept(f->lfd, NULL, NULL);
        if (fd < 0)
            continue;
        serve_conn(f, fd, ++f->conns);
    }
    return NULL;
}

void fake_start(fake *f, fake_fn fn, void *user)
{
    memset(f, 0, sizeof *f);
    f->fn = fn;
    f->user = user;
    f->log = cJSON_CreateArray();
    pthread_mutex_init(&f->mu, NULL);
    f->lfd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert_geq(f->lfd, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(bind(f->lfd, (struct sockaddr *)&a, sizeof a), 0);
    cr_assert_eq(listen(f->lfd, 8), 0);
    socklen_t len = sizeof a;
    cr_assert_eq(getsockname(f->lfd, (struct sockaddr *)&a, &len), 0);
    f->port = ntohs(a.sin_port);
    snprintf(f->addr, sizeof f->addr, "127.0.0.1:%d", f->port);
    cr_assert_eq(pthread_create(&f->th, NULL, fake_main, f), 0);
}

void fake_set_idle(fake *f, fake_idle_fn idle)
{
    pthread_mutex_lock(&f->mu);
    f->idle = idle;
    pthread_mutex_unlock(&f->mu);
}

void fake_stop(fake *f)
{
    f->stop = true;
    pthread_join(f->th, NULL);
    close(f->lfd);
    cJSON_Delete(f->log);
    pthread_mutex_destroy(&f->mu);
}

static bool is_op(const cJSON *req, const char *op)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(req, "type");
    return cJSON_IsString(t) && strcmp(t->valuestring, op) == 0;
}

cJSON *fake_request(fake *f, const char *op, int i)
{
    cJSON *out = NULL;
    pthread_mutex_lock(&f->mu);
    const cJSON *it;
    cJSON_ArrayForEach(it, f->log)
    {
        if (is_op(it, op) && i-- == 0) {
            out = cJSON_Duplicate(it, 1);
            break;
        }
    }
    pthread_mutex_unlock(&f->mu);
    return out;
}

int fake_count(fake *f, const char *op)
{
    int n = 0;
    pthread_mutex_lock(&f->mu);
    const cJSON *it;
    cJSON_ArrayForEach(it, f->log) n += is_op(it, op);
    pthread_mutex_unlock(&f->mu);
    return n;
}

bool fake_basic(const cJSON *req, char *buf, size_t n)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(req, "id");
    int iid = cJSON_IsNumber(id) ? id->valueint : -1;
    if (is_op(req, "hello")) {
        snprintf(buf, n, "{\"type\":\"ok\",\"id\":%d,\"version\":1,\"server\":\"fake\"}\n", iid);
        return true;
    }
    if (is_op(req, "login") && cJSON_GetObjectItemCaseSensitive(req, "token")) {
        snprintf(buf, n,
                 "{\"type\":\"ok\",\"id\":%d,\"user\":{\"username\":\"alice\",\"bot\":false},"
                 "\"token\":\"tok\",\"challenges\":[],\"games\":[]}\n",
                 iid);
        return true;
    }
    if (is_op(req, "ping")) {
        snprintf(buf, n, "{\"type\":\"ok\",\"id\":%d}\n", iid);
        return true;
    }
    return false;
}

void fake_teardown(fake *f, const char *cfg)
{
    if (f->port)
        fake_stop(f);
    memset(f, 0, sizeof *f);
    drop_config(cfg);
}
