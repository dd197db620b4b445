/*
 * A scripted stand-in for qirkatd, for client tests that must see exactly
 * what the client sends and control exactly what it gets back: a thread
 * accepting on 127.0.0.1:0, reading JSON lines, and answering each request
 * with whatever the test's script function writes (responses and events,
 * several lines allowed), or closing the connection when it says so.
 */
#ifndef QC_TEST_FAKE_H
#define QC_TEST_FAKE_H

#include <pthread.h>
#include <stdbool.h>

#include <cjson/cJSON.h>

typedef struct fake fake;

/* Write the reply to req (the conn-th connection, from 1) into buf (size
 * n): zero or more '\n'-terminated lines. Return false to close the
 * connection without sending anything. Runs on the fake's thread. */
typedef bool (*fake_fn)(fake *f, int conn, const cJSON *req, char *buf, size_t n);

/* Called on the fake's thread each time a connection has been quiet for
 * 50 ms: write lines to push unasked (events) into buf, or nothing. */
typedef void (*fake_idle_fn)(fake *f, int conn, char *buf, size_t n);

struct fake {
    int lfd, port;
    char addr[32]; /* "127.0.0.1:PORT" */
    fake_fn fn;
    fake_idle_fn idle; /* set with fake_set_idle() */
    void *user;
    pthread_t th;
    pthread_mutex_t mu;
    cJSON *log; /* every request, in order, each with "_conn" added */
    int conns;
    volatile bool stop;
};

/* Listen and serve in a thread. */
void fake_start(fake *f, fake_fn fn, void *user);
/* Push lines while the client is quiet (events it did not ask for). */
void fake_set_idle(fake *f, fake_idle_fn idle);
/* Stop the thread and free the log. */
void fake_stop(fake *f);
/* A suite's teardown: stop f if it was started, forget it, and remove
 * the config directory cfg made by fresh_config() (util.h). */
void fake_teardown(fake *f, const char *cfg);
/* The i-th logged request (0-based) of type op, or NULL; a copy the
 * caller cJSON_Delete()s. */
cJSON *fake_request(fake *f, const char *op, int i);
/* How many requests of type op were logged. */
int fake_count(fake *f, const char *op);

/* Standard answers: "hello" and token "login" ok (user alice), for
 * scripts to fall back on. Returns true when req was one of them. */
bool fake_basic(const cJSON *req, char *buf, size_t n);

#endif
