/*
 * qk_pdn: game records in the PDN 3.0 style (pdn.fmjd.org), the contract of
 * ../shared/PROTOCOL.md section "Records": a record struct, a writer, a
 * reader for what people paste, and a validator that replays a record with
 * the rules module (qk_rules.h).
 *
 * Design. A record (qk_pdn_record) is plain data: the tags of the contract
 * as fields, the unknown tags in order, and the moves as RULES.md section 1
 * texts with an optional clock per ply. Its strings live on the heap and
 * belong to the record: qk_pdn_free() releases them. Nothing here trusts a
 * stored result: qk_pdn_validate() replays the moves with qk_move_parse() /
 * qk_pos_make() and asks qk_pos_status(); a record whose Result says
 * otherwise is refused. The reader (qk_pdn_read()) parses and validates
 * every record of a text, so a text it accepts is wholly importable; its
 * errors carry the 0-based record index, the 1-based line and, for moves,
 * the 0-based ply (PROTOCOL.md: `import` answers `illegal_move` with
 * `record` and `ply`, `bad_request` with `record` and `line`).
 *
 * No sockets, no SQL, no global mutable state: every function is reentrant.
 * Allocation failures are reported as QK_PDN_ENOMEM, never aborted on.
 */
#ifndef QK_PDN_H
#define QK_PDN_H

#include <stdbool.h>
#include <stddef.h>

#include "qk_rules.h"

/* Largest text qk_pdn_read() accepts (PROTOCOL.md `import`: at most 1 MiB). */
#define QK_PDN_MAX_TEXT (1024u * 1024u)
/* Writer's line width: movetext lines are at most this many columns unless
 * one move (with its number and clock) is longer by itself. */
#define QK_PDN_WIDTH 80
/* Room for an error message, NUL included. */
#define QK_PDN_MSGLEN 256

/* Error codes (negative), also the `code` of qk_pdn_error. */
enum {
    QK_PDN_OK = 0,
    QK_PDN_ESYNTAX = -1,  /* malformed tag, token, comment, Date, PlyCount, no game */
    QK_PDN_EVARIANT = -2, /* Variant tag names no variant of RULES.md section 1 */
    QK_PDN_ETOOBIG = -3,  /* text over QK_PDN_MAX_TEXT */
    QK_PDN_EAFTER = -4,   /* moves after the result token */
    QK_PDN_EFEN = -5,     /* FEN tag is not a position string of the variant */
    QK_PDN_ERESULT = -6,  /* Result/Termination contradict the final position */
    QK_PDN_EILLEGAL = -7, /* a move that is not legal at its ply (ply is set) */
    QK_PDN_ENOMEM = -8,
    QK_PDN_EINVAL = -9, /* bad argument (NULL, ply out of range, control chars) */
};

/* What an error says, as an id (issue 24): a client shows the message in
 * its reader's language from msg and args (qk_pdn_msg_format(),
 * qk_pdn_msg_render()), never by parsing `message`. QK_PDN_M_NONE: only
 * `message` (an error built by hand, e.g. by the server). */
typedef enum qk_pdn_msg {
    QK_PDN_M_NONE = 0,
    QK_PDN_M_NOMEM,
    QK_PDN_M_NULL_ARG,
    QK_PDN_M_PLY_RANGE,        /* ply, moves */
    QK_PDN_M_TOO_BIG,          /* bytes, limit */
    QK_PDN_M_NUL_BYTE,
    QK_PDN_M_BAD_UTF8,
    QK_PDN_M_NO_GAME,
    QK_PDN_M_TAG_NAME,         /* name */
    QK_PDN_M_TAG_QUOTES,       /* name */
    QK_PDN_M_TAG_UNTERMINATED, /* name */
    QK_PDN_M_TAG_BRACKET,      /* name */
    QK_PDN_M_TAG_TWICE,        /* name */
    QK_PDN_M_TAG_DATE,         /* value */
    QK_PDN_M_TAG_RESULT,
    QK_PDN_M_TAG_PLYCOUNT,
    QK_PDN_M_TAG_VARIANT_LONG,
    QK_PDN_M_TAG_CONTROL,
    QK_PDN_M_PLYCOUNT_MOVES,   /* PlyCount value, moves */
    QK_PDN_M_COMMENT_OPEN,
    QK_PDN_M_CLOCK,
    QK_PDN_M_VARIATION_OPEN,
    QK_PDN_M_TOKEN_LONG,
    QK_PDN_M_UNEXPECTED,       /* character */
    QK_PDN_M_RESULT_AFTER,     /* result */
    QK_PDN_M_RESULT_TAG_MOVES, /* tag's result, the movetext's */
    QK_PDN_M_NOT_MOVE_NUMBER,  /* token */
    QK_PDN_M_NOT_MOVE,         /* token */
    QK_PDN_M_MOVE_AFTER,       /* move */
    QK_PDN_M_MOVE_KEEP,        /* move */
    QK_PDN_M_NUMERIC,          /* token */
    QK_PDN_M_BOTH_LOSE,
    QK_PDN_M_VARIANT,          /* variant */
    QK_PDN_M_FEN,              /* variant, the rules' reason (QK_PDN_ARG_RULES) */
    QK_PDN_M_OVER_WHITE,       /* move, move number, reason word (QK_PDN_ARG_REASON) */
    QK_PDN_M_OVER_BLACK,
    QK_PDN_M_ILLEGAL_WHITE,    /* move, move number */
    QK_PDN_M_ILLEGAL_BLACK,
    QK_PDN_M_MALFORMED_WHITE,  /* move, move number */
    QK_PDN_M_MALFORMED_BLACK,
    QK_PDN_M_RESULT_RULES,     /* claimed result, the rules' result, reason word */
    QK_PDN_M_TERM_RULES,       /* Termination value, the rules' reason word */
    QK_PDN_M_TERM_NOT_OVER,    /* Termination value */
    QK_PDN_M_NO_DRAWS,         /* claimed result, variant */
    QK_PDN_M_COUNT
} qk_pdn_msg;

/* Arguments of a message: at most this many, each a string of at most
 * QK_PDN_ARGLEN - 1 bytes (longer ones are cut). */
#define QK_PDN_NARGS 3
#define QK_PDN_ARGLEN 96

/* The kinds of argument a client may translate too: a reason word of
 * PROTOCOL.md ("no_pieces"), or a reason text of the rules module
 * (qk_pos_parse()'s *why, English, marked for the catalogues). */
enum { QK_PDN_ARG_TEXT = 0, QK_PDN_ARG_REASON, QK_PDN_ARG_RULES };

/* Where and why a function failed. record: 0-based index of the game in
 * the text (0 for a lone record); line: 1-based line of the text, 0 when
 * the error is not about one line (a record built in code, text too big);
 * ply: 0-based ply of the offending move (PROTOCOL.md `ply`), -1 when the
 * error is not about a move. msg and args: the message as an id with its
 * arguments (above), for clients that translate. message: English, one
 * line, no trailing newline, e.g. "line 7: illegal move 'b2-b4' (move 2, Black)": moves
 * counted as people number them (ply 3 is Black's second move when White
 * starts), the 0-based ply is in `ply`. */
typedef struct qk_pdn_error {
    int code;
    size_t record;
    int line;
    long ply;
    char message[QK_PDN_MSGLEN];
    int msg;                                  /* a qk_pdn_msg; QK_PDN_M_NONE: message only */
    char args[QK_PDN_NARGS][QK_PDN_ARGLEN];   /* msg's arguments, in its format's order */
} qk_pdn_error;

/* The English format of message id msg, without the "line N: " prefix:
 * conversions are "%s" only, one per argument in order (a translation may
 * reorder them with "%N$s"), "%%" a percent sign. "" for QK_PDN_M_NONE or
 * an unknown id. Static storage; every format is also in the client's
 * catalogues (marked QK_N_, xgettext's c-format). */
const char *qk_pdn_msg_format(int msg);

/* The kind (QK_PDN_ARG_*) of argument i of message msg; QK_PDN_ARG_TEXT
 * for out-of-range ids. */
int qk_pdn_msg_arg_kind(int msg, int i);

/* fmt with "%s" and "%N$s" (N 1..QK_PDN_NARGS) replaced by args (nargs
 * of them, NULL-free), "%%" by '%', into buf (size n >= 1, truncated to
 * fit, NUL-terminated). A conversion naming a missing argument writes
 * nothing. Returns buf. */
char *qk_pdn_msg_render(const char *fmt, const char *const *args, int nargs, char *buf, size_t n);

/* A tag the contract does not name, kept in the order read. Owned by the
 * record. */
typedef struct qk_pdn_tag {
    char *name, *value;
} qk_pdn_tag;

/* One game record. Initialise with qk_pdn_init(), fill with qk_pdn_set()
 * and qk_pdn_add_move() (or let qk_pdn_read() do it), release with
 * qk_pdn_free(). String fields are NUL-terminated heap copies owned by the
 * record, NULL when the tag is absent (the writer then writes "?", or
 * "????.??.??" for Date, as PGN does). Fields may be read directly; change
 * them only through the functions so ownership stays simple. */
typedef struct qk_pdn_record {
    char *event, *site, *date, *round, *white, *black;
    qk_result result;                 /* Result tag: QK_RESULT_NONE is "*" */
    char variant[QK_VARIANT_NAMELEN]; /* Variant tag; "" until set (reader: "alquerque") */
    char *fen;                        /* start position string; NULL: the variant's start */
    char *time_control, *termination; /* free text; Termination: a reason word */
    long ply_count;                   /* PlyCount as read; -1 absent (writer uses nmoves) */
    size_t ntags;
    qk_pdn_tag *tags; /* unknown tags */
    size_t nmoves, cap;
    char **moves;   /* nmoves move texts (RULES.md section 1) */
    long long *clk; /* nmoves clocks: ms left to the mover after the move, -1 none */
    /* Filled by qk_pdn_read() for error messages (0 for records built in
     * code): the lines of the Variant tag (else the game's first line), of
     * the FEN tag, of the Result tag (else the result token, else the
     * game's last line), and of each move. */
    int variant_line, fen_line, result_line;
    int *move_line;
} qk_pdn_record;

/* Make *r an empty record (no tags, no moves, result "*", variant ""). */
void qk_pdn_init(qk_pdn_record *r);

/* Free everything *r owns and leave it as qk_pdn_init() does. NULL is a
 * no-op. */
void qk_pdn_free(qk_pdn_record *r);

/* Set tag `name` (case-sensitive, as PDN) to a copy of `value`. The
 * contract's tags go to their fields: Result must be "1-0", "0-1",
 * "1/2-1/2" or "*" (also PDN draughts' "2-0", "0-2", "1-1"); Variant is
 * stored as given (qk_pdn_validate() checks it); PlyCount must be a
 * decimal number. Any other name is kept in tags[] (a second value for the
 * same unknown name replaces the first). name: letters, digits and '_',
 * starting with a letter; value: no control characters (so every value can
 * be written back on one tag line). Returns QK_PDN_OK, QK_PDN_EINVAL for a
 * bad name, value or Result/PlyCount text, QK_PDN_ENOMEM. */
int qk_pdn_set(qk_pdn_record *r, const char *name, const char *value);

/* The value of tag `name`: the field or the unknown tag, "*"/"1-0"/...
 * for Result, NULL when absent; always NULL for PlyCount (a number: read
 * ply_count). Borrowed from the record (Result: a static string); valid
 * until the record changes. */
const char *qk_pdn_get(const qk_pdn_record *r, const char *name);

/* Append move `text` (a move text of RULES.md section 1; not checked here)
 * with its clock clk_ms (ms left to the mover after the move, -1 for
 * none). Returns QK_PDN_OK, QK_PDN_EINVAL (NULL, empty, longer than
 * QK_MOVE_STRLEN - 1 or containing blanks), QK_PDN_ENOMEM. */
int qk_pdn_add_move(qk_pdn_record *r, const char *text, long long clk_ms);

/* The PDN words of a result: "1-0", "0-1", "1/2-1/2", "*" (QK_RESULT_NONE
 * or anything else). Static. */
const char *qk_pdn_result_text(qk_result res);

/* Write *r as PDN text (PROTOCOL.md "Records"): the tags Event, Site,
 * Date, Round, White, Black, Result, Variant (variant "" is written
 * "alquerque", the default of PROTOCOL.md), then FEN, TimeControl,
 * Termination when set, PlyCount (= nmoves), the unknown tags in order;
 * a blank line; the moves numbered by pairs of plies from the start
 * ("1. b2-c3 d4xb2 2. ..."; Alquerkonane's Black first move is ply 0 and
 * so "1."), each clock as a " {[%clk h:mm:ss]}" comment after its move
 * (seconds rounded down); the result word; a blank line. Lines are at most
 * QK_PDN_WIDTH columns, broken only between moves. Tag values escape '"'
 * and '\' with '\'. On success *out is a malloc'd NUL-terminated string
 * the caller frees with free(), and *len (when not NULL) its length;
 * several records concatenate into one importable text. Returns
 * QK_PDN_OK, QK_PDN_EINVAL (NULL arguments), QK_PDN_ENOMEM (*out NULL). */
int qk_pdn_write(const qk_pdn_record *r, char **out, size_t *len);

/* Read every game of text[0..len) (PDN 3.0 as people paste it: tags in
 * any order, unknown tags, {...} comments over several lines, ';'
 * comments to the end of the line, (...) variations (skipped), $N
 * annotations and !? suffixes (ignored), LF or CRLF, move numbers "1."
 * or "1..." attached or not, results 1-0 0-1 1/2-1/2 * and 2-0 0-2 1-1,
 * several games one after another: a tag after movetext starts the next
 * game). Event, Site, Round, White, Black "?" and Date "????.??.??" mean
 * unknown, as the writer writes them: those fields stay NULL. Every game is then checked with
 * qk_pdn_validate(), so an accepted text is wholly valid. On success *recs is a malloc'd array of
 * *n >= 1 records, freed with qk_pdn_free_all(*recs, *n). On error *recs is NULL, *n 0, and *err
 * (when not NULL) says which record, line and ply: text over QK_PDN_MAX_TEXT (QK_PDN_ETOOBIG, line
 * 0), malformed tag or token, NUL byte or invalid UTF-8, unterminated comment, duplicate tag, bad
 * Date (YYYY.MM.DD, '?' for unknown digits) or PlyCount that is not the number of moves, no game at
 * all (QK_PDN_ESYNTAX); moves after the result (QK_PDN_EAFTER); Result tag and result token that
 * disagree, or a result contradicting the final position (QK_PDN_ERESULT); and the validator's
 * errors. Returns the code. Source: PDN 3.0 (pdn.fmjd.org), PROTOCOL.md
 * "Records". */
int qk_pdn_read(const char *text, size_t len, qk_pdn_record **recs, size_t *n, qk_pdn_error *err);

/* Free an array from qk_pdn_read(): each record, then the array. NULL is a
 * no-op. */
void qk_pdn_free_all(qk_pdn_record *recs, size_t n);

/* A record replayed to some ply: the variant, the position after `ply`
 * moves and the move that led to it. Plain value. */
typedef struct qk_pdn_state {
    qk_variant variant;
    qk_pos pos;
    size_t ply;    /* moves played */
    bool has_last; /* false at ply 0 */
    qk_move last;  /* moves[ply - 1] with its path and captured points */
} qk_pdn_state;

/* Replay the first `ply` moves of *r (0 <= ply <= nmoves) from its start:
 * the Variant tag through qk_variant_parse() ("" means "alquerque"), the
 * FEN tag through qk_pos_parse() (absent: qk_variant_start()), each move
 * through qk_move_parse() and qk_pos_make(). A move played after the
 * position is over (qk_pos_status()) is illegal. Fills *st and returns
 * QK_PDN_OK; or QK_PDN_EVARIANT, QK_PDN_EFEN (with qk_pos_parse()'s
 * reason), QK_PDN_EILLEGAL (err->ply = the move's 0-based ply, err->line
 * its line when read from text), QK_PDN_EINVAL (ply > nmoves, NULL). err
 * may be NULL; err->record is left 0 (the reader sets it). Source:
 * RULES.md sections 1-8. */
int qk_pdn_replay(const qk_pdn_record *r, size_t ply, qk_pdn_state *st, qk_pdn_error *err);

/* The outcome of a whole record, decided by the rules. */
typedef struct qk_pdn_outcome {
    qk_pdn_state end; /* after every move */
    bool over;        /* the game has ended (by the rules or the Result tag) */
    bool by_rules;    /* qk_pos_status() ended it */
    qk_result result; /* QK_RESULT_NONE while not over */
    qk_reason reason; /* QK_REASON_NONE while not over */
} qk_pdn_outcome;

/* Replay all of *r (qk_pdn_replay()) and decide its result. When the final
 * position is over by RULES.md section 8, the rules' result and reason
 * stand and the Result tag must be the same ("*" contradicts too), and a
 * Termination that is a rules reason word must be the rules' one. When it
 * is not over: Result "*" means an unfinished game (over false); a decided
 * Result is a game ended from outside the rules, its reason the
 * Termination word when that is resign, timeout, agreement or aborted,
 * else resign for a win and agreement for a draw; a Termination naming a
 * rules reason (no_moves ...) contradicts, and so does a draw in a variant
 * without draws (qk_variant_has_draws()). Contradictions are
 * QK_PDN_ERESULT with err->line the Result line. Returns QK_PDN_OK with
 * *out filled, or the error of qk_pdn_replay(). Source: RULES.md section
 * 8, PROTOCOL.md "The game object" (result and reason words). */
int qk_pdn_validate(const qk_pdn_record *r, qk_pdn_outcome *out, qk_pdn_error *err);

#endif
