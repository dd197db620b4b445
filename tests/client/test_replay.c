/*
 * `qirkat replay FILE` offline (cmd_replay.c, replay.h): the PDN file is
 * made from recorded games of ../shared/data/games (via $QK_SHARED) with
 * qk_pdn_write(), then replayed in-process: exact --to-ply boards at
 * hand-picked plies (the start, a capture, a multi-capture at the end,
 * an Alquerkonane step), the command loop fed on a non-terminal stdin,
 * --json, and the errors (unreadable file 2, invalid record 1 naming the
 * game, line and ply, --game / --to-ply out of range 2).
 */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "qk_pdn.h"
#include "util.h"

static char cfg[64];
static char pdn_path[128];

static void setup(void)
{
    fresh_config(cfg);
    snprintf(pdn_path, sizeof pdn_path, "%s/games.pdn", cfg);
}

static void teardown(void)
{
    drop_config(cfg);
}

TestSuite(replay, .init = setup, .fini = teardown, .timeout = 60);

/* Game `index` of data/games/VARIANT.jsonl as a record. */
static void recorded(const char *variant, int index, qk_pdn_record *r)
{
    const char *root = getenv("QK_SHARED");
    char path[512];
    snprintf(path, sizeof path, "%s/data/games/%s.jsonl", root && *root ? root : "../shared",
             variant);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open %s (set QK_SHARED)", path);
    char *line = NULL;
    size_t cap = 0;
    for (int i = 0; i <= index; i++)
        cr_assert_gt(getline(&line, &cap, f), 0);
    fclose(f);
    cJSON *g = cJSON_Parse(line);
    free(line);
    cr_assert_not_null(g);
    qk_pdn_init(r);
    cr_assert_eq(qk_pdn_set(r, "Variant", variant), 0);
    cr_assert_eq(qk_pdn_set(r, "White", "alice"), 0);
    cr_assert_eq(qk_pdn_set(r, "Black", "bob"), 0);
    const char *res = cJSON_GetObjectItem(g, "result")->valuestring;
    cr_assert_eq(qk_pdn_set(r, "Result",
                            strcmp(res, "white") == 0   ? "1-0"
                            : strcmp(res, "black") == 0 ? "0-1"
                                                        : "1/2-1/2"),
                 0);
    const cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItem(g, "moves"))
    {
        cr_assert_eq(qk_pdn_add_move(r, m->valuestring, -1), 0);
    }
    cJSON_Delete(g);
}

/* Write the records to pdn_path, one after another. */
static void write_file(qk_pdn_record *recs, int n)
{
    FILE *f = fopen(pdn_path, "w");
    cr_assert_not_null(f);
    for (int i = 0; i < n; i++) {
        char *s;
        cr_assert_eq(qk_pdn_write(&recs[i], &s, NULL), 0);
        fputs(s, f);
        free(s);
        qk_pdn_free(&recs[i]);
    }
    fclose(f);
}

/* Kawu game 0 (35 plies, White wins by no_pieces) and Alquerkonane 6x4
 * game 0. */
static void two_games(void)
{
    qk_pdn_record r[2];
    recorded("alquerque", 0, &r[0]);
    recorded("alquerkonane-6x4", 0, &r[1]);
    write_file(r, 2);
}

static void expect_out(const char *ply, const char *want)
{
    crun r;
    crun_do(&r, NULL, "replay", pdn_path, "--to-ply", ply, NULL);
    cr_assert_eq(r.code, 0, "exit %d: %s%s", r.code, r.out, r.err);
    cr_assert_str_eq(r.out, want);
    cr_assert_str_eq(r.err, "");
    crun_free(&r);
}

Test(replay, to_ply_start_capture_and_end)
{
    two_games();
    expect_out("0", "Game 1 of 2  alquerque  ply 0 of 35\n"
                    "White: alice  Black: bob\n"
                    "5  b---b---b---b---b\n"
                    "   | \\ | / | \\ | / |\n"
                    "4  b---b---b---b---b\n"
                    "   | / | \\ | / | \\ |\n"
                    "3  w---w---.---b---b\n"
                    "   | \\ | / | \\ | / |\n"
                    "2  w---w---w---w---w\n"
                    "   | / | \\ | / | \\ |\n"
                    "1  w---w---w---w---w\n"
                    "   a   b   c   d   e\n"
                    "Start position\n"
                    "White to move\n");
    /* 1. d2-c3 b4xd2: Black's jump from b4 over c3 to d2. */
    expect_out("2", "Game 1 of 2  alquerque  ply 2 of 35\n"
                    "White: alice  Black: bob\n"
                    "5  b---b---b---b---b\n"
                    "   | \\ | / | \\ | / |\n"
                    "4  b--[.]--b---b---b\n"
                    "   | / | \\ | / | \\ |\n"
                    "3  w---w---x---b---b\n"
                    "   | \\ | / | \\ | / |\n"
                    "2  w---w---w--[b]--w\n"
                    "   | / | \\ | / | \\ |\n"
                    "1  w---w---w---w---w\n"
                    "   a   b   c   d   e\n"
                    "Last move: 1... b4xd2 (Black), captured c3\n"
                    "White to move\n");
    /* 7... c5xa3 (ply 13): a Black capture in mid-game. */
    expect_out("14", "Game 1 of 2  alquerque  ply 14 of 35\n"
                     "White: alice  Black: bob\n"
                     "5  .---.--[.]--b---b\n"
                     "   | \\ | / | \\ | / |\n"
                     "4  .---x---b---b---.\n"
                     "   | / | \\ | / | \\ |\n"
                     "3 [b]--.---.---b---.\n"
                     "   | \\ | / | \\ | / |\n"
                     "2  w---.---w---.---b\n"
                     "   | / | \\ | / | \\ |\n"
                     "1  w---w---w---w---b\n"
                     "   a   b   c   d   e\n"
                     "Last move: 7... c5xa3 (Black), captured b4\n"
                     "White to move\n");
    /* The last ply: a double capture ends the game by the rules. */
    expect_out("35", "Game 1 of 2  alquerque  ply 35 of 35\n"
                     "White: alice  Black: bob\n"
                     "5  w---.---.---.---.\n"
                     "   | \\ | / | \\ | / |\n"
                     "4  .---.---.---.---.\n"
                     "   | / | \\ | / | \\ |\n"
                     "3  .---.---.---.--[.]\n"
                     "   | \\ | / | \\ | / |\n"
                     "2  .---.---.---x---.\n"
                     "   | / | \\ | / | \\ |\n"
                     "1  .---.--[.]--x--[w]\n"
                     "   a   b   c   d   e\n"
                     "Last move: 18. e3xc1xe1 (White), captured d2 d1\n"
                     "White wins (no pieces left)\n");
}

Test(replay, second_game_alquerkonane)
{
    two_games();
    crun r;
    crun_do(&r, NULL, "replay", pdn_path, "--game", "2", "--to-ply", "1", NULL);
    cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
    /* Black moves first (RULES.md section 7): 1. b2-c3. */
    cr_assert_str_eq(r.out, "Game 2 of 2  alquerkonane-6x4  ply 1 of 23\n"
                            "White: alice  Black: bob\n"
                            "   +------------+\n"
                            "6  | w ::: w :::|\n"
                            "5  |::: w ::: w |\n"
                            "4  |   :::   :::|\n"
                            "3  |:::   [b]   |\n"
                            "2  |   [:]   :b:|\n"
                            "1  |:b:   :b:   |\n"
                            "   +------------+\n"
                            "     a  b  c  d\n"
                            "Last move: 1. b2-c3 (Black)\n"
                            "White to move\n");
    crun_free(&r);
}

Test(replay, commands_from_stdin)
{
    two_games();
    crun r;
    crun_do(&r, "n\n\ng 35\nn\np\nzz\ng 36\nf\np\nq\nn\n", "replay", pdn_path, NULL);
    cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
    /* Boards shown: 0, 1, 2, 35, 34, 0; nothing after q. */
    const char *heads[] = {"ply 0 of",  "ply 1 of",  "ply 2 of",
                           "ply 35 of", "ply 34 of", "ply 0 of"};
    const char *p = r.out;
    for (int i = 0; i < 6; i++) {
        p = strstr(p, heads[i]);
        cr_assert_not_null(p, "board %d (%s) missing in:\n%s", i, heads[i], r.out);
        p++;
    }
    int boards = 0;
    for (const char *q = r.out; (q = strstr(q, "Game 1 of 2")); q++)
        boards++;
    cr_assert_eq(boards, 6, "%s", r.out);
    cr_assert(strstr(r.out, "Last move: 17... e1-d2 (Black)\n"), "%s", r.out);
    /* No prompt on a non-terminal. */
    cr_assert_null(strstr(r.out, "replay>"));
    cr_assert_str_eq(r.err, "replay: already at the last ply (35)\n"
                            "replay: unknown command 'zz' (h for help)\n"
                            "replay: g N needs a ply 0..35, not '36'\n"
                            "replay: already at the start (ply 0)\n");
    crun_free(&r);
}

Test(replay, json_board)
{
    two_games();
    crun r;
    crun_do(&r, NULL, "--json", "replay", pdn_path, "--to-ply", "35", NULL);
    cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
    cr_assert_str_eq(r.out, "{\"game\":1,\"ply\":35,\"plies\":35,\"variant\":\"alquerque\","
                            "\"position\":\"w..../...../...../...../....w b 0 -\","
                            "\"last_move\":\"e3xc1xe1\",\"captured\":[\"d2\",\"d1\"],"
                            "\"turn\":\"black\",\"result\":\"white\",\"reason\":\"no_pieces\"}\n");
    crun_free(&r);
}

Test(replay, errors)
{
    crun r;
    crun_do(&r, NULL, "replay", "/nonexistent/x.pdn", NULL);
    cr_assert_eq(r.code, 2);
    cr_assert(strstr(r.err, "qirkat replay: cannot read '/nonexistent/x.pdn'\n"), "%s", r.err);
    crun_free(&r);

    two_games();
    crun_do(&r, NULL, "replay", pdn_path, "--game", "3", NULL);
    cr_assert_eq(r.code, 2);
    cr_assert(strstr(r.err, "--game 3: '"), "%s", r.err);
    cr_assert(strstr(r.err, "' has 2 games\n"), "%s", r.err);
    crun_free(&r);
    crun_do(&r, NULL, "replay", pdn_path, "--to-ply", "36", NULL);
    cr_assert_eq(r.code, 2);
    cr_assert(strstr(r.err, "--to-ply 36: game 1 has 35 plies\n"), "%s", r.err);
    crun_free(&r);
    crun_do(&r, NULL, "replay", pdn_path, "--game", "0", NULL);
    cr_assert_eq(r.code, 2);
    crun_free(&r);

    /* An illegal move in the second game: exit 1, game 2, its line and ply. */
    FILE *f = fopen(pdn_path, "w");
    fputs("[Variant \"alquerque\"]\n1. d2-c3 *\n\n[Variant \"alquerque\"]\n1. d2-c3 b4xd2\n"
          "2. e1-e2 *\n",
          f);
    fclose(f);
    crun_do(&r, NULL, "replay", pdn_path, "--to-ply", "0", NULL);
    cr_assert_eq(r.code, 1);
    char want[256];
    snprintf(want, sizeof want,
             "qirkat: %s: game 2 of the file: line 6: illegal move 'e1-e2' (move 2, White)\n", pdn_path);
    cr_assert_str_eq(r.err, want);
    cr_assert_str_eq(r.out, "");
    crun_free(&r);
}

/* On a terminal each key is a command, no Enter (term_read_key()): a
 * pseudo-terminal as stdin, keys typed ahead: n n p, g with "35" and
 * Enter, an unknown key, q. The terminal's modes are restored. */
Test(replay, keys_on_a_terminal)
{
    two_games();
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    cr_assert_geq(master, 0);
    cr_assert_eq(grantpt(master), 0);
    cr_assert_eq(unlockpt(master), 0);
    int slave = open(ptsname(master), O_RDWR | O_NOCTTY);
    cr_assert_geq(slave, 0);
    /* Raw from the start so the keys written below are readable one by
     * one (as typed-ahead keys are) and nothing is echoed back. */
    struct termios raw, before, after;
    cr_assert_eq(tcgetattr(slave, &raw), 0);
    raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
    raw.c_cc[VMIN] = 1;
    raw.c_cc[VTIME] = 0;
    cr_assert_eq(tcsetattr(slave, TCSANOW, &raw), 0);
    cr_assert_eq(tcgetattr(slave, &before), 0);
    const char keys[] = "nnpg35\nzq";
    cr_assert_eq(write(master, keys, sizeof keys - 1), (ssize_t)(sizeof keys - 1));
    FILE *in = fdopen(slave, "r");
    cr_assert_not_null(in);
    crun r;
    crun_in(&r, in, "replay", pdn_path, NULL);
    cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
    const char *heads[] = {"ply 0 of",  "replay> n\n", "ply 1 of",   "replay> n\n",
                           "ply 2 of",  "replay> p\n", "ply 1 of",   "replay> g: go to ply: ",
                           "ply 35 of", "replay> z\n", "replay> q\n"};
    const char *p = r.out;
    for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++) {
        const char *q = strstr(p, heads[i]);
        cr_assert_not_null(q, "'%s' (step %zu) missing after:\n%s", heads[i], i, p);
        p = q + 1;
    }
    cr_assert(strstr(r.out, "White wins (no pieces left)\n"), "%s", r.out);
    cr_assert_str_eq(r.err, "replay: unknown command 'z' (h for help)\n");
    cr_assert_eq(tcgetattr(slave, &after), 0);
    cr_assert_eq(after.c_lflag, before.c_lflag);
    fclose(in);
    close(master);
    crun_free(&r);
}
