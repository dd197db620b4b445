/*
 * qk_proto: the wire vocabulary of PROTOCOL.md shared by server and client.
 *
 * One X-macro table yields the error enum, the wire code and a default
 * message (the pattern of libuv's UV_ERRNO_MAP). qk_proto_parse_line()
 * applies the "Validation rules" section to one framed line before any op
 * sees it: exactly one JSON object that RFC 8259 accepts, valid UTF-8, no
 * \u0000, no duplicate field, nesting of at most 16 levels. The builders
 * return cJSON trees the caller owns (cJSON_Delete), and qk_proto_print()
 * the bytes to send.
 */
#ifndef QK_PROTO_H
#define QK_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/* The newest protocol version spoken (docs/protocol.md `hello`): 2 requires
 * `ply` on `move` and refuses top-level names that differ from an op's
 * fields only in letter case; 1 (the default) ignores unknown fields. */
#define QK_PROTO_VERSION 2
#define QK_PROTO_MAX_DEPTH 16
#define QK_JSON_MAX_INT 9007199254740991.0 /* 2^53 - 1 */

/* X(enum suffix, wire code, default message) */
#define QK_ERRORS(X)                                                                  \
    X(BAD_JSON, "bad_json", "the line is not one valid JSON object")                  \
    X(BAD_REQUEST, "bad_request", "a field is missing or has the wrong type")         \
    X(UNKNOWN_OP, "unknown_op", "unknown op")                                         \
    X(LINE_TOO_LONG, "line_too_long", "line longer than the server's limit")          \
    X(UNAUTHENTICATED, "unauthenticated", "log in first")                             \
    X(FORBIDDEN, "forbidden", "not allowed")                                          \
    X(NOT_FOUND, "not_found", "no such object")                                       \
    X(CONFLICT, "conflict", "conflicts with the current state")                       \
    X(NOT_YOUR_TURN, "not_your_turn", "it is not your turn")                          \
    X(ILLEGAL_MOVE, "illegal_move", "illegal move")                                   \
    X(STALE_PLY, "stale_ply", "the ply is not the game's current ply")                \
    X(GAME_OVER, "game_over", "the game is over")                                     \
    X(RATE_LIMITED, "rate_limited", "too many requests")                              \
    X(SERVER_BUSY, "server_busy", "server busy")                                      \
    X(SERVER_SHUTDOWN, "server_shutdown", "server shutting down")                     \
    X(INTERNAL, "internal", "internal error")

typedef enum {
    QK_ERR_NONE = 0,
#define QK_X_ENUM(e, code, msg) QK_ERR_##e,
    QK_ERRORS(QK_X_ENUM)
#undef QK_X_ENUM
        QK_ERR__COUNT
} qk_err;

/* Wire code / default message of e; "internal" for out-of-range values. */
const char *qk_err_code(qk_err e);
const char *qk_err_message(qk_err e);
/* The enum for a wire code, or QK_ERR_NONE when unknown. */
qk_err qk_err_parse(const char *code);

/* Parse one line (len bytes, need not be NUL-terminated) under the
 * validation rules of PROTOCOL.md and the grammar of RFC 8259. cJSON
 * builds the tree; a strict pass over the raw bytes first refuses what
 * cJSON would let through. On success returns QK_ERR_NONE and *out owns
 * the object (caller cJSON_Delete()s it). Otherwise sets *why to a static
 * reason, leaves *out NULL and returns
 *   QK_ERR_BAD_JSON: not exactly one JSON object (any other top-level
 *     value, an array of any depth included; bytes after the object
 *     other than RFC 8259 section 2 whitespace); invalid UTF-8 (RFC 3629)
 *     or a NUL byte; a byte-order mark (section 8.1); a control byte
 *     (< 0x20) between tokens other than space, tab, LF, CR (section 2) or
 *     any control byte inside a string (section 7); an escape other than
 *     \" \\ \/ \b \f \n \r \t \uXXXX, a \u without four hex digits
 *     (section 7), \u0000 (PROTOCOL.md); a surrogate escape that is not a
 *     high (D800-DBFF) immediately followed by a low (DC00-DFFF) escape
 *     (decision: section 8.2 calls lone surrogates unpredictable and our
 *     strings are UTF-8, which cannot encode them; a pair is accepted as
 *     its code point); a number outside the section 6 grammar; or any
 *     other malformed JSON;
 *   QK_ERR_BAD_REQUEST: a duplicate field (names compared bytewise after
 *     unescaping) or nesting deeper than QK_PROTO_MAX_DEPTH;
 *   QK_ERR_INTERNAL: out of memory. */
qk_err qk_proto_parse_line(const char *line, size_t len, cJSON **out, const char **why);

/* The top-level "id" of a line that qk_proto_parse_line() refused, so
 * that its error can carry the id (docs/protocol.md section 3, step 1:
 * "that answer carries the request's id when the top-level id is given
 * once and valid"). Works at any nesting depth in one pass without
 * recursion: cJSON stops at CJSON_NESTING_LIMIT (1,000) levels, and a
 * line nested deeper still has a readable id. Returns a new cJSON number
 * or string (caller cJSON_Delete()s it), or NULL when the line does not
 * pass the lexical checks, its brackets do not balance, its top level is
 * not an object of "key": value members (nested containers are only
 * bracket-matched; top-level scalars and keys are judged by cJSON), the
 * key "id" (after unescaping) occurs other than once at the top level, or
 * its value is not a valid id (qk_json_is_id). */
cJSON *qk_proto_top_id(const char *line, size_t len);

/* Field access with exact, case-sensitive names. Each returns true and
 * fills *out when the field is present with the right type; false when it
 * is absent or ill-typed (check qk_json_has() to tell them apart).
 * Integers must be whole numbers in 0..2^53-1. Strings are borrowed from
 * obj. */
bool qk_json_has(const cJSON *obj, const char *name);
bool qk_json_get_str(const cJSON *obj, const char *name, const char **out);
bool qk_json_get_uint(const cJSON *obj, const char *name, uint64_t *out);
bool qk_json_get_bool(const cJSON *obj, const char *name, bool *out);
/* A value that is a valid request id: a string or an integer in range. */
bool qk_json_is_id(const cJSON *v);

/* Add name: v (an integer) to obj, for objects built to be sent. Why not
 * cJSON_AddNumberToObject: cJSON prints a number outside int's range
 * (every millisecond timestamp) with sprintf("%1.15g") and reads it back
 * with sscanf to check it, about 3,500 instructions each; a move's answer
 * and event carry about ten (docs/perf.md). The text is the same as
 * cJSON's for |v| < 10^15 (every integer of the protocol: ids, plies,
 * millisecond timestamps); above, cJSON 1.7.15 prints 15 significant
 * digits in exponent form, which loses digits, and this stays exact. The item is a
 * cJSON_Raw: cJSON_GetNumberValue() cannot read it back. Returns the item,
 * or NULL on allocation failure (obj unchanged). */
cJSON *qk_json_add_int(cJSON *obj, const char *name, int64_t v);

/* {"type":"ok","id":<copy of id>}; id may be NULL (then no id field).
 * Returns NULL on allocation failure. */
cJSON *qk_proto_ok(const cJSON *id);
/* {"type":"error","id":..,"code":..,"message":..}; message NULL = default. */
cJSON *qk_proto_error(const cJSON *id, qk_err e, const char *message);
/* {"type":"event","event":name}. */
cJSON *qk_proto_event(const char *name);
/* Print msg compactly followed by '\n'. Numbers print exactly (they read
 * back as the same double): whole numbers up to 2^53 - 1 as plain digits,
 * others in the shortest of 15, 16 or 17 significant digits that is exact
 * (RFC 8259 section 6 grammar); NaN and infinities, which cJSON parses
 * from "1e400", print as null. Returns a malloc'd NUL-terminated buffer
 * the caller free()s and its length (newline included) in *len, or NULL
 * on allocation failure. */
char *qk_proto_print(const cJSON *msg, size_t *len);
/* The same text into the caller's buf (size bytes, NUL-terminated), for a
 * caller that copies it at once: that saves qk_proto_print()'s
 * allocations (cJSON's growing print buffer, the copy with '\n'). The
 * length (newline included) in *len; false when the text does not fit in
 * size - 6 bytes (cJSON asks for 5 to spare), has numbers cJSON would
 * print inexactly, or on ENOMEM: then use qk_proto_print(). */
bool qk_proto_print_into(const cJSON *msg, char *buf, size_t size, size_t *len);
/* One message of head's members followed by the members of body, where
 * body is an object's text as qk_proto_print() or cJSON prints it
 * ("{...}", unformatted, a trailing '\n' allowed). For members printed
 * once and sent under several heads: the move event and the compact move
 * answer carry the same fields (docs/perf.md "Third round"), and cJSON's
 * build, print and delete of them was a fifth of a move's cost. The
 * result is a cJSON_Raw node holding the whole message's text, owned by
 * the caller (cJSON_Delete), printed verbatim by qk_proto_print*(); head
 * is printed here (exact numbers, as qk_proto_print()) and not changed.
 * NULL on allocation failure, or when head or body is not an object's
 * text. */
cJSON *qk_proto_splice(const cJSON *head, const char *body);

/* Wall-clock UTC milliseconds since the epoch (PROTOCOL.md "Times"). */
int64_t qk_now_ms(void);

#endif
