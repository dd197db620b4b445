/* The reader on what people paste and on bad input: each bad case gives
 * its exact error (code, 0-based record, 1-based line, ply, message);
 * CRLF, comments, unknown tags, several games, "..." numbers; clock
 * comments round trip; the writer's exact layout; results decided by the
 * rules (RULES.md section 8). PDN 3.0, PROTOCOL.md "Records". */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Kawu game 0 of data/games/alquerque.jsonl: 35 plies, White wins by
 * no_pieces. */
#define KAWU0                                                                                      \
    "1. d2-c3 b4xd2 2. e1xc3 e3xe1 3. c3xe3 e4xe2 4. b3-b4 a5xc3 5. a3xa5 c3-d3\n"                 \
    "6. a5-b4 b5xb3 7. b2xb4 c5xa3 8. a2xa4 d5-c5 9. d1-d2 d3xd1 10. c2-c3 c4xc2\n"                \
    "11. c1xc3 d4xb2 12. a1xc3 c5-d4 13. b1-a1 d4xb2 14. a1xc3 e5-d4 15. c3xe5 e2-e3\n"            \
    "16. a4-a5 e3-e4 17. e5xe3 e1-d2 18. e3xc1xe1"
#define KAWU0_FINAL "w..../...../...../...../....w b 0 -"

static void expect_err(const char *text, int code, size_t record, int line, long ply,
                       const char *message)
{
    qk_pdn_record *recs = (void *)1;
    size_t n = 99;
    qk_pdn_error err;
    int rc = read_text(text, &recs, &n, &err);
    cr_assert_eq(rc, code, "rc %d want %d: %s\n--\n%s", rc, code, err.message, text);
    cr_assert_null(recs);
    cr_assert_eq(n, 0);
    cr_assert_eq(err.code, code);
    cr_assert_eq(err.record, record, "record %zu want %zu (%s)", err.record, record, err.message);
    cr_assert_eq(err.line, line, "line %d want %d (%s)", err.line, line, err.message);
    cr_assert_eq(err.ply, ply, "ply %ld want %ld (%s)", err.ply, ply, err.message);
    cr_assert_str_eq(err.message, message);
}

static qk_pdn_record *expect_ok(const char *text, size_t want_n)
{
    qk_pdn_record *recs;
    size_t n;
    qk_pdn_error err;
    int rc = read_text(text, &recs, &n, &err);
    cr_assert_eq(rc, QK_PDN_OK, "%s\n--\n%s", err.message, text);
    cr_assert_eq(n, want_n);
    return recs;
}

Test(bad, malformed_tags)
{
    expect_err("[Event \"x\"]\n[Site \"y]\n1. d2-c3 *\n", QK_PDN_ESYNTAX, 0, 2, -1,
               "line 2: malformed tag Site: unterminated value");
    expect_err("[Event x]\n", QK_PDN_ESYNTAX, 0, 1, -1,
               "line 1: malformed tag Event: value must be in quotes");
    expect_err("\n\n[Event \"x\" junk]\n", QK_PDN_ESYNTAX, 0, 3, -1,
               "line 3: malformed tag Event: missing ']'");
    expect_err("[Event \"x\"\n]\n", QK_PDN_ESYNTAX, 0, 1, -1,
               "line 1: malformed tag Event: missing ']'");
    expect_err("[9lives \"x\"]\n", QK_PDN_ESYNTAX, 0, 1, -1,
               "line 1: malformed tag: bad tag name '9lives'");
    expect_err("[ \"x\"]\n", QK_PDN_ESYNTAX, 0, 1, -1, "line 1: malformed tag: bad tag name ''");
    expect_err("[White \"a\"]\n[White \"b\"]\n", QK_PDN_ESYNTAX, 0, 2, -1,
               "line 2: tag White given twice");
    expect_err("[Result \"*\"]\n[Result \"*\"]\n", QK_PDN_ESYNTAX, 0, 2, -1,
               "line 2: tag Result given twice");
    expect_err("[Result \"2-1\"]\n", QK_PDN_ESYNTAX, 0, 1, -1,
               "line 1: malformed tag: Result must be 1-0, 0-1, 1/2-1/2, 2-0, 0-2, 1-1 or *");
    expect_err("[Date \"2026-12-01\"]\n", QK_PDN_ESYNTAX, 0, 1, -1,
               "line 1: malformed tag Date: '2026-12-01' is not YYYY.MM.DD");
    expect_err("[PlyCount \"3a\"]\n", QK_PDN_ESYNTAX, 0, 1, -1,
               "line 1: malformed tag: PlyCount must be a number");
    expect_err("[Variant \"alquerque\"]\n[PlyCount \"3\"]\n\n1. d2-c3 b4xd2 *\n", QK_PDN_ESYNTAX, 0,
               2, -1, "line 2: PlyCount 3 but the game has 2 moves");
    expect_err("[Event \"tab\there\"]\n", QK_PDN_ESYNTAX, 0, 1, -1,
               "line 1: malformed tag: control character in the value");
}

Test(bad, unknown_variant)
{
    expect_err("[Event \"x\"]\n[Variant \"chess\"]\n\n1. d2-c3 *\n", QK_PDN_EVARIANT, 0, 2, -1,
               "line 2: unknown variant 'chess'");
    expect_err("[Variant \"alquerkonane-13x4\"]\n*\n", QK_PDN_EVARIANT, 0, 1, -1,
               "line 1: unknown variant 'alquerkonane-13x4'");
    /* The second game is the bad one: record 1. */
    expect_err("[Variant \"alquerque\"]\n1. d2-c3 *\n\n[Variant \"draughts\"]\n1. d2-c3 *\n",
               QK_PDN_EVARIANT, 1, 4, -1, "line 4: unknown variant 'draughts'");
}

Test(bad, text_over_one_mib)
{
    size_t len = QK_PDN_MAX_TEXT + 1;
    char *text = malloc(len + 1);
    memset(text, ' ', len);
    memcpy(text, "[Variant \"alquerque\"]\n", 22);
    text[len] = '\0';
    expect_err(text, QK_PDN_ETOOBIG, 0, 0, -1,
               "text of 1048577 bytes is over the limit of 1048576");
    /* Exactly the limit is read (blanks are nothing). */
    text[len - 1] = '\0';
    qk_pdn_record *recs = expect_ok(text, 1);
    qk_pdn_free_all(recs, 1);
    free(text);
}

Test(bad, moves_after_the_result)
{
    expect_err("[Variant \"alquerque\"]\n\n1. d2-c3 b4xd2 *\n2. e1xc3\n", QK_PDN_EAFTER, 0, 4, -1,
               "line 4: move 'e1xc3' after the result");
    expect_err("1. d2-c3 1-0 0-1\n", QK_PDN_EAFTER, 0, 1, -1,
               "line 1: result '0-1' after the result");
    /* After the first game's result, untagged moves are not a new game. */
    expect_err("1. d2-c3 *\n[Event \"b\"]\n1. d2-c3 * 1. b2-c3\n", QK_PDN_EAFTER, 1, 3, -1,
               "line 3: move 'b2-c3' after the result");
}

Test(bad, fen_that_does_not_parse)
{
    expect_err("[Variant \"alquerque\"]\n[FEN \"bbbbb/bbbbb/ww.bb/wwwww w 0 -\"]\n*\n", QK_PDN_EFEN,
               0, 2, -1,
               "line 2: FEN is not a position of alquerque: wrong board size: too few ranks");
    expect_err("[FEN \"bbbbb/bbbbb/ww.bb/wwwww/wwwww x 0 -\"]\n*\n", QK_PDN_EFEN, 0, 1, -1,
               "line 1: FEN is not a position of alquerque: side to move must be w or b");
}

Test(bad, result_contradicts_the_final_position)
{
    /* Finished by the rules (White wins, no_pieces): 0-1, 1/2-1/2 and *
     * all contradict. */
    expect_err("[Result \"0-1\"]\n" KAWU0 " 0-1\n", QK_PDN_ERESULT, 0, 1, -1,
               "line 1: Result 0-1 contradicts the final position: the rules give 1-0 "
               "(no_pieces)");
    expect_err("\n" KAWU0 " *\n", QK_PDN_ERESULT, 0, 5, -1,
               "line 5: Result * contradicts the final position: the rules give 1-0 (no_pieces)");
    /* No Result at all: "*", reported on the game's last line. */
    expect_err(KAWU0 "\n", QK_PDN_ERESULT, 0, 4, -1,
               "line 4: Result * contradicts the final position: the rules give 1-0 (no_pieces)");
    expect_err("[Result \"1-0\"]\n[Termination \"no_moves\"]\n" KAWU0 " 1-0\n", QK_PDN_ERESULT, 0,
               1, -1,
               "line 1: Termination no_moves contradicts the final position: the rules give "
               "no_pieces");
    /* Not over: a rules reason cannot be claimed, and Alquerkonane has no
     * draws. */
    expect_err("[Result \"1-0\"]\n[Termination \"no_moves\"]\n1. d2-c3 1-0\n", QK_PDN_ERESULT, 0, 1,
               -1,
               "line 1: Termination no_moves contradicts the final position: the game is "
               "not over");
    expect_err("[Variant \"alquerkonane-6x4\"]\n1. b2-c3 1/2-1/2\n", QK_PDN_ERESULT, 0, 2, -1,
               "line 2: Result 1/2-1/2: alquerkonane-6x4 has no draws");
    /* Tag and token disagree. */
    expect_err("[Result \"1-0\"]\n1. d2-c3 0-1\n", QK_PDN_ERESULT, 0, 2, -1,
               "line 2: Result tag 1-0 but the moves end with 0-1");
}

Test(bad, illegal_and_malformed_moves)
{
    expect_err("[Variant \"alquerque\"]\n\n1. d2-c3 b4-c3 *\n", QK_PDN_EILLEGAL, 0, 3, 1,
               "line 3: illegal move 'b4-c3' (move 1, Black)");
    /* Off the 5x5 board: the rules call it malformed, still a move at a ply. */
    expect_err("1. d2-c3\n b4xd2 2. f1-f2 *\n", QK_PDN_EILLEGAL, 0, 2, 2,
               "line 2: malformed move 'f1-f2' (move 2, White)");
    /* A move once the game is over. */
    expect_err(KAWU0 " d4-d5 1-0\n", QK_PDN_EILLEGAL, 0, 4, 35,
               "line 4: move 'd4-d5' (move 18, Black) after the game is over (no_pieces)");
    expect_err("1. d2-c3 hello *\n", QK_PDN_ESYNTAX, 0, 1, -1, "line 1: not a move: 'hello'");
    expect_err("1. d2-c3 b4xd2-c3 *\n", QK_PDN_ESYNTAX, 0, 1, -1, "line 1: not a move: 'b4xd2-c3'");
    expect_err("1. d2-c3 12a *\n", QK_PDN_ESYNTAX, 0, 1, -1,
               "line 1: not a move or move number: '12a'");
    expect_err("1. d2-c3 } *\n", QK_PDN_ESYNTAX, 0, 1, -1, "line 1: unexpected '}'");
}

/* Issue 24: a record in the numbered-square notation of other draughts
 * programs is refused with a message naming the notation to use and the
 * README's section; FMJD's result forms are read (2-0, 0-2, 1-1 as 1-0,
 * 0-1, 1/2-1/2), and 0-0 (both lose) is refused with its reason. */
#define NUMERIC(tok)                                                                               \
    "'" tok "' is numbered-square notation (other draughts programs); a move names RULES.md's "   \
    "points, like b2-c3 or b4xd2 (README: \"Game record files\")"
Test(bad, numbered_square_notation_and_fmjd_results)
{
    expect_err("[Event \"x\"]\n\n1. 32-28 19-23 *\n", QK_PDN_ESYNTAX, 0, 3, -1,
               "line 3: " NUMERIC("32-28"));
    expect_err("1. d2-c3 11x18 *\n", QK_PDN_ESYNTAX, 0, 1, -1, "line 1: " NUMERIC("11x18"));
    expect_err("1.32-28 *\n", QK_PDN_ESYNTAX, 0, 1, -1, "line 1: " NUMERIC("32-28"));
    expect_err("1. d2-c3\n11x18x27 *\n", QK_PDN_ESYNTAX, 0, 2, -1, "line 2: " NUMERIC("11x18x27"));
    expect_err("[Result \"0-0\"]\n*\n", QK_PDN_ERESULT, 0, 1, -1,
               "line 1: Result 0-0 (both sides lose) is not a result of these games; * is an "
               "unfinished game");
    expect_err("1. d2-c3 0-0\n", QK_PDN_ERESULT, 0, 1, -1,
               "line 1: Result 0-0 (both sides lose) is not a result of these games; * is an "
               "unfinished game");
    const char *forms[][2] = {{"2-0", "1-0"}, {"0-2", "0-1"}, {"1-1", "1/2-1/2"},
                              {"1-0", "1-0"}, {"0-1", "0-1"}, {"1/2-1/2", "1/2-1/2"}};
    qk_result want[] = {QK_RESULT_WHITE, QK_RESULT_BLACK, QK_RESULT_DRAW,
                        QK_RESULT_WHITE, QK_RESULT_BLACK, QK_RESULT_DRAW};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "[Result \"%s\"]\n1. d2-c3 %s\n", forms[i][0], forms[i][0]);
        qk_pdn_record *recs = expect_ok(text, 1);
        cr_assert_eq(recs[0].result, want[i], "%s", forms[i][0]);
        cr_assert_str_eq(qk_pdn_result_text(recs[0].result), forms[i][1]);
        qk_pdn_free_all(recs, 1);
    }
}

Test(bad, comments_bytes_and_empty_text)
{
    expect_err("1. d2-c3 {never closed\n b4xd2 *\n", QK_PDN_ESYNTAX, 0, 1, -1,
               "line 1: unterminated comment '{'");
    expect_err("1. d2-c3 (1... b4-c3\n", QK_PDN_ESYNTAX, 0, 1, -1,
               "line 1: unterminated variation '('");
    expect_err("1. d2-c3 {[%clk 1:2]} *\n", QK_PDN_ESYNTAX, 0, 1, -1,
               "line 1: malformed clock comment (expected [%clk h:mm:ss])");
    expect_err("", QK_PDN_ESYNTAX, 0, 1, -1, "line 1: no game in the text");
    expect_err("; nothing here\n{ nor here }\n", QK_PDN_ESYNTAX, 0, 1, -1,
               "line 1: no game in the text");
    expect_err("[Event \"caf\xC3\"]\n", QK_PDN_ESYNTAX, 0, 1, -1,
               "line 1: invalid UTF-8 in the text");
    expect_err("\n[Event \"\xED\xA0\x80\"]\n", QK_PDN_ESYNTAX, 0, 2, -1,
               "line 2: invalid UTF-8 in the text");
    /* A NUL inside the length. */
    qk_pdn_record *recs;
    size_t n;
    qk_pdn_error err;
    cr_assert_eq(qk_pdn_read("1. d2-c3\n\0 *", 12, &recs, &n, &err), QK_PDN_ESYNTAX);
    cr_assert_eq(err.line, 2);
    cr_assert_str_eq(err.message, "line 2: NUL byte in the text");
    /* Valid UTF-8 in a value is kept as is. */
    recs = expect_ok("[Event \"Caf\xC3\xA9 \xE2\x99\x9F\"]\n*\n", 1);
    cr_assert_str_eq(recs[0].event, "Caf\xC3\xA9 \xE2\x99\x9F");
    qk_pdn_free_all(recs, 1);
}

/* What people paste: CRLF, tags in any order, unknown tags, {...} over
 * lines, ';' comments, variations, NAGs, "1." glued to the move, "12...",
 * draughts results, several games. */
Test(read, pasted_text_with_several_games)
{
    const char *text = "; exported by hand\r\n"
                       "[Black \"bob\"]\r\n"
                       "[Opening \"centre \\\"fork\\\"\"]\r\n"
                       "[Variant \"alquerque\"]\r\n"
                       "[White \"alice\"]\r\n"
                       "[Result \"*\"]\r\n"
                       "[Event \"club night\"]\r\n"
                       "\r\n"
                       "1.d2-c3 {a quiet start,\r\n"
                       "  over two lines} 1... b4xd2 $1 2. e1xc3! (2. c1xe3 e4xe2) e3xe1?! ; so\r\n"
                       "3. c3xe3 *\r\n"
                       "\r\n"
                       "[Variant \"alquerkonane-6x4\"]\r\n"
                       "[Annotator \"carol\"]\r\n"
                       "1... b2-c3 2-0\r\n" /* a draughts result word, not over by rules */
                       "[Variant \"alquerque\"]\n" KAWU0 " 2-0\n";
    qk_pdn_record *recs = expect_ok(text, 3);
    const qk_pdn_record *a = &recs[0];
    cr_assert_str_eq(a->white, "alice");
    cr_assert_str_eq(a->black, "bob");
    cr_assert_str_eq(a->event, "club night");
    cr_assert_eq(a->result, QK_RESULT_NONE);
    cr_assert_eq(a->ntags, 1);
    cr_assert_str_eq(qk_pdn_get(a, "Opening"), "centre \"fork\"");
    cr_assert_eq(a->nmoves, 5);
    const char *want[] = {"d2-c3", "b4xd2", "e1xc3", "e3xe1", "c3xe3"};
    for (int i = 0; i < 5; i++)
        cr_assert_str_eq(a->moves[i], want[i]);
    cr_assert_eq(a->move_line[0], 9);
    cr_assert_eq(a->move_line[1], 10);
    cr_assert_eq(a->move_line[4], 11);
    qk_pdn_outcome out;
    cr_assert_eq(qk_pdn_validate(a, &out, NULL), QK_PDN_OK);
    cr_assert_not(out.over);
    cr_assert_eq(out.result, QK_RESULT_NONE);
    cr_assert_eq(out.reason, QK_REASON_NONE);
    cr_assert_eq(out.end.pos.side, QK_BLACK);

    const qk_pdn_record *b = &recs[1];
    cr_assert_str_eq(b->variant, "alquerkonane-6x4");
    cr_assert_str_eq(qk_pdn_get(b, "Annotator"), "carol");
    cr_assert_null(qk_pdn_get(b, "Opening"));
    cr_assert_eq(b->nmoves, 1);
    cr_assert_eq(b->result, QK_RESULT_WHITE);
    cr_assert_eq(qk_pdn_validate(b, &out, NULL), QK_PDN_OK);
    cr_assert(out.over);
    cr_assert_not(out.by_rules);
    cr_assert_eq(out.reason, QK_REASON_RESIGN, "a win outside the rules defaults to resign");

    const qk_pdn_record *c = &recs[2];
    cr_assert_eq(c->nmoves, 35);
    cr_assert_eq(qk_pdn_validate(c, &out, NULL), QK_PDN_OK);
    cr_assert(out.by_rules);
    cr_assert_eq(out.result, QK_RESULT_WHITE);
    cr_assert_eq(out.reason, QK_REASON_NO_PIECES);
    char fen[QK_POS_STRLEN];
    qk_pos_format(&out.end.variant, &out.end.pos, fen, sizeof fen);
    cr_assert_str_eq(fen, KAWU0_FINAL);
    qk_pdn_free_all(recs, 3);
}

Test(read, termination_words_outside_the_rules)
{
    qk_pdn_record *recs = expect_ok("[Result \"0-1\"]\n[Termination \"timeout\"]\n1. d2-c3 0-1\n"
                                    "[Result \"1/2-1/2\"]\n1. d2-c3 1/2-1/2\n"
                                    "[Result \"1-0\"]\n[Termination \"time forfeit\"]\n1-0\n",
                                    3);
    qk_pdn_outcome out;
    cr_assert_eq(qk_pdn_validate(&recs[0], &out, NULL), QK_PDN_OK);
    cr_assert_eq(out.result, QK_RESULT_BLACK);
    cr_assert_eq(out.reason, QK_REASON_TIMEOUT);
    cr_assert_eq(qk_pdn_validate(&recs[1], &out, NULL), QK_PDN_OK);
    cr_assert_eq(out.result, QK_RESULT_DRAW);
    cr_assert_eq(out.reason, QK_REASON_AGREEMENT);
    /* A Termination that is not a reason word is kept as text only. */
    cr_assert_eq(qk_pdn_validate(&recs[2], &out, NULL), QK_PDN_OK);
    cr_assert_eq(out.reason, QK_REASON_RESIGN);
    cr_assert_str_eq(recs[2].termination, "time forfeit");
    cr_assert_eq(recs[2].nmoves, 0);
    qk_pdn_free_all(recs, 3);
}

Test(write, exact_layout_and_clock_round_trip)
{
    qk_pdn_record r;
    qk_pdn_init(&r);
    cr_assert_eq(qk_pdn_set(&r, "Variant", "alquerque"), QK_PDN_OK);
    cr_assert_eq(qk_pdn_set(&r, "White", "al \"the\" ice"), QK_PDN_OK);
    cr_assert_eq(qk_pdn_set(&r, "Black", "b\\ob"), QK_PDN_OK);
    cr_assert_eq(qk_pdn_set(&r, "TimeControl", "300+5"), QK_PDN_OK);
    cr_assert_eq(qk_pdn_set(&r, "Rated", "no"), QK_PDN_OK);
    cr_assert_eq(qk_pdn_set(&r, "Rated", "yes"), QK_PDN_OK); /* replaces */
    cr_assert_eq(qk_pdn_set(&r, "Bad Name", "x"), QK_PDN_EINVAL);
    cr_assert_eq(qk_pdn_set(&r, "Event", "two\nlines"), QK_PDN_EINVAL);
    cr_assert_eq(qk_pdn_set(&r, "Result", "win"), QK_PDN_EINVAL);
    cr_assert_eq(qk_pdn_add_move(&r, "d2-c3", 295000), QK_PDN_OK);
    cr_assert_eq(qk_pdn_add_move(&r, "b4xd2", 3723999), QK_PDN_OK); /* 1:02:03, ms dropped */
    cr_assert_eq(qk_pdn_add_move(&r, "e1xc3", -1), QK_PDN_OK);
    cr_assert_eq(qk_pdn_add_move(&r, "e3 xe1", -1), QK_PDN_EINVAL);
    cr_assert_eq(qk_pdn_add_move(&r, "", -1), QK_PDN_EINVAL);
    char *s = write_rec(&r);
    cr_assert_str_eq(s, "[Event \"?\"]\n"
                        "[Site \"?\"]\n"
                        "[Date \"????.??.??\"]\n"
                        "[Round \"?\"]\n"
                        "[White \"al \\\"the\\\" ice\"]\n"
                        "[Black \"b\\\\ob\"]\n"
                        "[Result \"*\"]\n"
                        "[Variant \"alquerque\"]\n"
                        "[TimeControl \"300+5\"]\n"
                        "[PlyCount \"3\"]\n"
                        "[Rated \"yes\"]\n"
                        "\n"
                        "1. d2-c3 {[%clk 0:04:55]} b4xd2 {[%clk 1:02:03]} 2. e1xc3 *\n"
                        "\n");
    qk_pdn_record *recs = expect_ok(s, 1);
    const qk_pdn_record *b = &recs[0];
    cr_assert_str_eq(b->white, "al \"the\" ice");
    cr_assert_str_eq(b->black, "b\\ob");
    cr_assert_str_eq(b->time_control, "300+5");
    cr_assert_str_eq(qk_pdn_get(b, "Rated"), "yes");
    cr_assert_eq(b->nmoves, 3);
    cr_assert_eq(b->clk[0], 295000);
    cr_assert_eq(b->clk[1], 3723000);
    cr_assert_eq(b->clk[2], -1);
    /* Written again: the same text. */
    char *s2 = write_rec(b);
    cr_assert_str_eq(s2, s);
    free(s2);
    qk_pdn_free_all(recs, 1);
    free(s);
    /* Fractions of a second in a pasted clock. */
    recs = expect_ok("1. d2-c3 { [%clk 0:00:09.25] think } *", 1);
    cr_assert_eq(recs[0].clk[0], 9250);
    qk_pdn_free_all(recs, 1);
    qk_pdn_free(&r);
}

/* Lines wrap at 80 columns between moves, never inside one: a long game of
 * long captures, every line <= 80 and every token whole. */
Test(write, wraps_between_moves)
{
    qk_pdn_record r;
    qk_pdn_init(&r);
    for (int i = 0; i < 60; i++)
        cr_assert_eq(qk_pdn_add_move(&r, i % 3 ? "a1xc3xe5xc3xa1" : "b2-c3", i * 1000), 0);
    char *s = write_rec(&r);
    const char *body = strstr(s, "\n\n") + 2;
    int lines = 0;
    for (const char *p = body, *nl; *p && *p != '\n'; p = nl + 1, lines++) {
        nl = strchr(p, '\n');
        cr_assert_leq(nl - p, 80);
        /* A line never ends on a move number: "N." stays with its move. */
        cr_assert(nl[-1] != '.', "line ends '%.*s'", (int)(nl - p), p);
        cr_assert(nl - p > 60, "lines are filled: %.*s", (int)(nl - p), p);
    }
    cr_assert_geq(lines, 20);
    /* Every move and every comment whole (the reader would refuse these
     * moves: they are not a game). */
    int caps = 0, clocks = 0;
    for (const char *p = body; (p = strstr(p, "a1xc3xe5xc3xa1")); p++)
        caps++;
    for (const char *p = body; (p = strstr(p, "{[%clk 0:00:")); p++)
        clocks++;
    cr_assert_eq(caps, 40);
    cr_assert_eq(clocks, 60);
    cr_assert(strstr(body, "{[%clk 0:00:59]} *\n\n"), "%s", body);
    free(s);
    qk_pdn_free(&r);
}

/* A custom start (FEN): kawu game 0 from its position after 6 plies. */
Test(read, fen_custom_start_round_trip)
{
    qk_pdn_record full;
    qk_pdn_record *recs = expect_ok("[Result \"1-0\"]\n" KAWU0 " 1-0\n", 1);
    full = recs[0];
    qk_pdn_state st;
    cr_assert_eq(qk_pdn_replay(&full, 6, &st, NULL), QK_PDN_OK);
    char fen[QK_POS_STRLEN];
    qk_pos_format(&st.variant, &st.pos, fen, sizeof fen);
    qk_pdn_record r;
    qk_pdn_init(&r);
    cr_assert_eq(qk_pdn_set(&r, "FEN", fen), QK_PDN_OK);
    cr_assert_eq(qk_pdn_set(&r, "Result", "1-0"), QK_PDN_OK);
    for (size_t i = 6; i < full.nmoves; i++)
        cr_assert_eq(qk_pdn_add_move(&r, full.moves[i], -1), QK_PDN_OK);
    char *s = write_rec(&r);
    char tag[QK_POS_STRLEN + 16];
    snprintf(tag, sizeof tag, "\n[FEN \"%s\"]\n", fen);
    cr_assert(strstr(s, tag), "%s", s);
    qk_pdn_record *back = expect_ok(s, 1);
    cr_assert_str_eq(back[0].fen, fen);
    qk_pdn_outcome out;
    cr_assert_eq(qk_pdn_validate(&back[0], &out, NULL), QK_PDN_OK);
    qk_pos_format(&out.end.variant, &out.end.pos, fen, sizeof fen);
    cr_assert_str_eq(fen, KAWU0_FINAL);
    cr_assert_eq(out.reason, QK_REASON_NO_PIECES);
    qk_pdn_free_all(back, 1);
    qk_pdn_free_all(recs, 1);
    qk_pdn_free(&r);
    free(s);
}

/* Issue 24: the README's example record ("Game record files", the first
 * ```pdn block) is read and validated as it is written: it is importable. */
Test(read, the_readme_example_record)
{
    FILE *f = fopen("README.md", "r");
    cr_assert_not_null(f, "README.md (tests run from the project root)");
    char line[512], text[4096] = "";
    size_t len = 0;
    bool section = false, in = false, done = false;
    while (!done && fgets(line, sizeof line, f)) {
        if (strcmp(line, "## Game record files\n") == 0)
            section = true;
        else if (section && !in && strcmp(line, "```pdn\n") == 0)
            in = true;
        else if (in && strcmp(line, "```\n") == 0)
            done = true;
        else if (in) {
            cr_assert_lt(len + strlen(line), sizeof text);
            memcpy(text + len, line, strlen(line) + 1);
            len += strlen(line);
        }
    }
    fclose(f);
    cr_assert(done, "no ```pdn block in the README's \"Game record files\"");
    qk_pdn_record *recs = expect_ok(text, 1);
    cr_assert_str_eq(recs[0].event, "Club evening");
    cr_assert_str_eq(recs[0].white, "alice");
    cr_assert_str_eq(recs[0].black, "bob");
    cr_assert_str_eq(recs[0].date, "2026.11.28");
    cr_assert_eq(recs[0].result, QK_RESULT_WHITE);
    cr_assert_eq(recs[0].nmoves, 3);
    cr_assert_str_eq(recs[0].moves[2], "e1xc3");
    qk_pdn_outcome out;
    qk_pdn_error err;
    cr_assert_eq(qk_pdn_validate(&recs[0], &out, &err), QK_PDN_OK, "%s", err.message);
    cr_assert(out.over && !out.by_rules);
    cr_assert_eq(out.result, QK_RESULT_WHITE);
    cr_assert_eq(out.reason, QK_REASON_RESIGN);
    qk_pdn_free_all(recs, 1);
}

/* Issue 24: every error carries its message id and arguments, from which
 * a client rebuilds the message (qk_pdn_msg_render(), which also takes a
 * translation's "%N$s"); the English message is that rendering. */
Test(bad, errors_carry_a_message_id_and_arguments)
{
    qk_pdn_record *recs;
    size_t n;
    qk_pdn_error err;
    cr_assert_eq(read_text("[Variant \"alquerque\"]\n\n1. d2-c3 b4-c3 *\n", &recs, &n, &err),
                 QK_PDN_EILLEGAL);
    cr_assert_eq(err.msg, QK_PDN_M_ILLEGAL_BLACK);
    cr_assert_str_eq(err.args[0], "b4-c3");
    cr_assert_str_eq(err.args[1], "1");
    cr_assert_str_eq(err.args[2], "");
    cr_assert_str_eq(qk_pdn_msg_format(err.msg), "illegal move '%s' (move %s, Black)");
    const char *args[] = {err.args[0], err.args[1], err.args[2]};
    char buf[256], line[300];
    snprintf(line, sizeof line, "line %d: %s", err.line,
             qk_pdn_msg_render(qk_pdn_msg_format(err.msg), args, 3, buf, sizeof buf));
    cr_assert_str_eq(line, err.message);
    cr_assert_eq(read_text("[Result \"1-0\"]\n1. d2-c3 0-1\n", &recs, &n, &err), QK_PDN_ERESULT);
    cr_assert_eq(err.msg, QK_PDN_M_RESULT_TAG_MOVES);
    cr_assert_str_eq(err.args[0], "1-0");
    cr_assert_str_eq(err.args[1], "0-1");
    cr_assert_eq(read_text("\n" KAWU0 " *\n", &recs, &n, &err), QK_PDN_ERESULT);
    cr_assert_eq(err.msg, QK_PDN_M_RESULT_RULES);
    cr_assert_str_eq(err.args[2], "no_pieces");
    cr_assert_eq(qk_pdn_msg_arg_kind(err.msg, 2), QK_PDN_ARG_REASON);
    cr_assert_eq(qk_pdn_msg_arg_kind(err.msg, 0), QK_PDN_ARG_TEXT);
    cr_assert_eq(read_text("[FEN \"x\"]\n*\n", &recs, &n, &err), QK_PDN_EFEN);
    cr_assert_eq(err.msg, QK_PDN_M_FEN);
    cr_assert_eq(qk_pdn_msg_arg_kind(err.msg, 1), QK_PDN_ARG_RULES);
    cr_assert_eq(read_text("", &recs, &n, &err), QK_PDN_ESYNTAX);
    cr_assert_eq(err.msg, QK_PDN_M_NO_GAME);
    /* Rendering: positions, percent, missing arguments, truncation. */
    const char *ab[] = {"A", "B"};
    cr_assert_str_eq(qk_pdn_msg_render("%2$s then %1$s, 100%%", ab, 2, buf, sizeof buf),
                     "B then A, 100%");
    cr_assert_str_eq(qk_pdn_msg_render("%s %s %s!", ab, 2, buf, sizeof buf), "A B !");
    cr_assert_str_eq(qk_pdn_msg_render("%s-%s", ab, 2, buf, 3), "A-");
    cr_assert_str_eq(qk_pdn_msg_format(QK_PDN_M_NONE), "");
    cr_assert_str_eq(qk_pdn_msg_format(QK_PDN_M_COUNT), "");
    /* Every message has a format with at most QK_PDN_NARGS arguments. */
    for (int m = QK_PDN_M_NONE + 1; m < QK_PDN_M_COUNT; m++) {
        const char *f = qk_pdn_msg_format(m);
        cr_assert(*f, "message %d", m);
        int k = 0;
        for (const char *p = strstr(f, "%s"); p; p = strstr(p + 2, "%s"))
            k++;
        cr_assert_leq(k, QK_PDN_NARGS, "%s", f);
    }
}
