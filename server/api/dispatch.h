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

#include "api/api.h"
#include "net/conn.h"

/* net hooks line callback: one framed line from c. */
void dispatch_line_cb(conn *c, char *line, size_t len);

/* Held requests. While the store holds writes (svc_writes_held(): the
 * write-ahead log starting over, one fsync and one checkpoint long), a
 * request whose op is not stateless is not run: its line is copied, its
 * connection paused (so its later lines wait behind it, in order) and the
 * line kept in a's queue; so is any such line while the queue is not
 * empty, so none overtakes a held one. hello and ping are answered as
 * always; reads are held too (an op does not declare whether it writes).
 * The server calls dispatch_release() at each flush: once writes are no
 * longer held (or now, when the server is about to stop: the lines that
 * came before the stop are run, not refused) it runs the kept lines in
 * arrival order, exactly as if they came now (their rate token was taken
 * when they came), and resumes their connections. A line whose connection
 * closed meanwhile is dropped. Memory: one line per connection at most
 * (it is paused). */
void dispatch_release(api *a, bool now);
/* How many request lines are held now. */
int dispatch_held_count(const api *a);
/* Free the held lines without running them (after the loop ended, when
 * every connection is closed). */
void dispatch_drop_held(api *a);

#endif
