/*
 * req: one request being handled, its declared fields, and how it is
 * answered.
 *
 * Exactly one response per request: a handler answers through req_ok() +
 * req_reply(), or req_error*(), or takes the request away with
 * req_defer() and answers later with a deferred reply (auth). If a
 * handler returns without doing any of these the dispatcher answers
 * `internal`, and a second answer is dropped (both logged).
 */
#ifndef QK_REQ_H
#define QK_REQ_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "api/api.h"
#include "api/session.h"
#include "net/conn.h"
#include "qk_proto.h"

#define REQ_BUSY_RETRY_MS 100 /* retry_after_ms when the database is locked elsewhere */

typedef enum {
    FT_STR,  /* JSON string */
    FT_UINT, /* integer 0..2^53-1 */
    FT_ID,   /* object id: integer 0..2^53-1 (ids start at 1) */
    FT_BOOL,
    FT_OBJ,  /* JSON object */
    FT_MOVE, /* string, or object (the move's {"path": [...]} form) */
    FT_ANY,  /* any JSON value */
} field_type;

typedef struct field_spec {
    const char *name;
    field_type type;
    bool required;
    bool required_v2; /* required of connections that declared protocol version 2 in hello */
} field_spec;

#define OP_MAX_FIELDS 16 /* with the NULL row that ends the list */

typedef struct req req;

typedef struct op_def {
    const char *name;
    void (*handler)(req *r);
    bool login; /* needs a logged-in session */
    field_spec fields[OP_MAX_FIELDS];
    /* Hashes a password when this field is given (auth.h cap), or NULL. */
    const char *pwhash_field;
    /* Reads and writes no state (hello, ping): its answer depends on no
     * batch, so it never waits for another request's fsync (net/conn.h
     * "Durability epochs"), even when it lands in the same loop turn. */
    bool stateless;
} op_def;

/* One request being handled (stack-allocated by the dispatcher). */
struct req {
    api *api;
    conn *conn;
    session *sess;
    const op_def *op;
    const cJSON *msg; /* the whole request; borrowed */
    const cJSON *id;  /* the request id; borrowed from msg */
    bool answered, deferred;
    uint64_t busy0; /* api->svc->batch->busy when the request began */
};

/* Check every declared field of r->op in r->msg (dispatch.h lists the
 * rules). true when all pass; else r is answered bad_request naming the
 * field, and false. */
bool req_check_fields(req *r);

/* A new {"type":"ok","id":...} for r (caller adds result fields, then
 * req_reply()). NULL on allocation failure (req_reply(NULL) answers
 * internal). */
cJSON *req_ok(req *r);
/* Send res (owned, deleted here) as r's answer; NULL -> internal. */
void req_reply(req *r, cJSON *res);
/* Answer r with error e (message NULL = the default message). An
 * `internal` of a request that found the store busy (batch.h: busy grew
 * since busy0) is answered `server_busy` with retry_after_ms
 * (REQ_BUSY_RETRY_MS) instead: a lock held by another process is not the
 * server's failure, and nothing was changed. */
void req_error(req *r, qk_err e, const char *message);
/* Answer r server_busy with retry_after_ms: the cap on password checks
 * (game/auth.h auth_busy) is reached. The dispatcher checks it before a
 * handler runs; a handler that waited for the database before queueing
 * its hash checks again (on PostgreSQL other requests ran meanwhile). */
void req_error_hash_busy(req *r);
/* Answer r with a prepared error object (owned; NULL -> internal). */
void req_reply_error(req *r, cJSON *err);
/* A new error object for r, to add fields to before req_reply_error(). */
cJSON *req_error_new(req *r, qk_err e, const char *message);

/* Field access after validation (present and well-typed, or absent). */
const char *req_str(req *r, const char *name); /* NULL when absent */
bool req_uint(req *r, const char *name, uint64_t *out);
bool req_bool(req *r, const char *name, bool dflt);
const cJSON *req_field(req *r, const char *name); /* NULL when absent/null */

/* An answer that will come later (from another callback). Holds a
 * reference on the connection and a copy of the id. */
typedef struct deferred {
    api *api;
    conn *conn;
    cJSON *id;
    const op_def *op; /* the request's op (its answer is counted: api.h m_requests) */
} deferred;

/* Take r away: pause the connection (later lines wait, in order) and fill
 * *d. Returns 0, or -1 on allocation failure (r is then answered
 * internal and the caller must not use d). */
int req_defer(req *r, deferred *d);
/* Answer a deferred request (msg owned; NULL -> internal), resume the
 * connection and release d. Does nothing but the release when the
 * connection closed. A stopping server still answers it normally (srv.h
 * "Stopping"): work that was accepted is finished and committed. */
void deferred_reply(deferred *d, cJSON *msg);
/* The ok / error objects for a deferred request's id. */
cJSON *deferred_ok(deferred *d);
cJSON *deferred_error(deferred *d, qk_err e, const char *message);
/* Whether the answer can still be delivered. */
bool deferred_alive(const deferred *d);

#endif
