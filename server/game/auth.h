/*
 * auth: password hashing off the loop thread, login tokens, usernames.
 *
 * Argon2id (libsodium crypto_pwhash_str / _str_verify) costs tens of
 * milliseconds and 64 MiB at the INTERACTIVE limits, so it runs on the
 * libuv thread pool (uv_queue_work); the completion callback runs on the
 * loop thread. The worker touches only its own copy of the password
 * (wiped and freed after) and its own output buffer, never a connection,
 * the store or the service. Callers pause the requesting connection while a
 * hash is in flight (dispatch.h req_defer), which keeps its requests in
 * order, and hold a reference on it (it may close meanwhile).
 *
 * At most s->auth.max_jobs hashes are queued or running at once
 * (s->auth.jobs, loop thread only): libuv's pool has 4 threads shared with
 * hints, and Argon2id at 64 MiB each must not pile up behind a flood of
 * logins. dispatch.c asks auth_busy() before running an op that hashes and
 * answers `server_busy` with `retry_after_ms`; auth_hash/auth_verify
 * refuse (-1) past the cap as a backstop.
 *
 * Tokens are 32 bytes from randombytes_buf(), sent as 64 lower-case hex
 * characters; only their BLAKE2b-256 hash (crypto_generichash) is stored.
 */
#ifndef QK_AUTH_H
#define QK_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "game/svc.h"

#define AUTH_PASSWORD_MAX 1024 /* bytes */
#define AUTH_TOKEN_HEX 64

/* done(arg, rc, hash) on the loop thread: rc 0 and hash (a NUL-terminated
 * crypto_pwhash_str string, valid during the call) or rc -1 (out of
 * memory). */
typedef void (*auth_hash_cb)(void *arg, int rc, const char *hash);
/* done(arg, ok): whether password matches hash. */
typedef void (*auth_verify_cb)(void *arg, bool ok);

/* Whether the cap on hash jobs is reached (a new one would be refused). */
bool auth_busy(const gsvc *s);

/* Queue the hashing of password (len bytes, copied) with s's limits.
 * Returns 0 (done will be called exactly once) or -1 (not queued: out of
 * memory, the pool refused, or auth_busy()). */
int auth_hash(gsvc *s, const char *password, size_t len, auth_hash_cb done, void *arg);
/* Queue the verification of password against hash (both copied). */
int auth_verify(gsvc *s, const char *hash, const char *password, size_t len, auth_verify_cb done,
                void *arg);

/* A new token: hex receives 64 hex chars + NUL, hash its BLAKE2b-256. */
void auth_token_new(char hex[AUTH_TOKEN_HEX + 1], uint8_t hash[32]);
/* The hash of a token given as text; -1 unless exactly 64 hex chars. */
int auth_token_hash(const char *hex, uint8_t hash[32]);

/* 1-32 characters of [A-Za-z0-9_-]. */
bool auth_username_valid(const char *name);

#endif
