/*
 * dispatch: the checks every request line passes before its handler runs.
 *
 * Design. The op table (optable.h) has one row per op: its name, handler,
 * the session it needs, and its fields with their types and whether each
 * is required (req.h). While the server is stopping (srv.h "Stopping") every line is
 * answered `server_shutdown` instead, with the request's id when the line
 * parses and its id is valid. Otherwise dispatch_line_cb() parses a line with qk_proto_parse_line()
 * (PROTOCOL.md "Validation rules"; a repeated field or too deep nesting is
 * bad_request, answered with the request's id when that id is readable and
 * given once), then checks, in this order: `id` is present and a valid id
 * (bad_request, answered without id), the connection's request rate
 * (rate_limited with retry_after_ms; every line takes a token, see
 * ratelimit.h), `type` is a string (bad_request), the op exists (unknown_op), the session is logged
 * in when the op needs it (unauthenticated), then every declared field
 * (bad_request: missing, wrong type, or a non-integer / negative / > 2^53-1
 * number where an integer is due), then, for an op that hashes a password
 * (register, login with a password), the server-wide cap on hash jobs
 * (server_busy with retry_after_ms, auth.h). Unknown fields are ignored; an optional
 * field given as null counts as absent. Handlers therefore get checked
 * input and only check meaning (a username's syntax, a game's state).
 */
#ifndef QK_DISPATCH_H
#define QK_DISPATCH_H

#include <stddef.h>

#include "net/conn.h"

/* net hooks line callback: one framed line from c. */
void dispatch_line_cb(conn *c, char *line, size_t len);

#endif
