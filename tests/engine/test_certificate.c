/* Proof certificates (qk_solve_certificate, qk_cert.h), the bit-board move
 * generator against the rules module, the solver's threads and
 * checkpoints, the perfect level, and docs/solved.tsv. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "qk_cert.h"
#include "qk_solve_int.h"

static uint64_t bb_perft(const qk_bbgeo *g, const qk_bbpos *p, int d)
{
    qk_bbmove mv[QK_BB_MAXMOVES];
    int n = qk_bb_gen(g, p, mv);
    if (d <= 1)
        return d <= 0 ? 1 : (uint64_t)n;
    uint64_t s = 0;
    for (int i = 0; i < n; i++) {
        qk_bbpos c = *p;
        qk_bb_make(&c, mv[i]);
        s += bb_perft(g, &c, d - 1);
    }
    return s;
}

/* Every board 2..8 x 2..8, from the start and from random positions: the
 * bit boards count what qk_movegen() counts (RULES.md section 7). */
Test(certificate, bitboards_agree_with_the_rules)
{
    uint64_t seed = 7;
    for (int R = 2; R <= 8; R++)
        for (int C = 2; C <= 8; C++) {
            char name[48]; /* room for any two ints: no truncation warning at -O1 */
            snprintf(name, sizeof name, "alquerkonane-%dx%d", R, C);
            qk_variant v = tv(name);
            qk_bbgeo g;
            qk_bb_geo(&v, &g);
            for (int game = 0; game < 6; game++) {
                qk_pos p;
                qk_variant_start(&v, &p);
                int plies = game * 4;
                for (int i = 0; i < plies; i++) {
                    qk_move m[QK_BB_MAXMOVES];
                    int n = qk_movegen(&v, &p, m, QK_BB_MAXMOVES);
                    if (n <= 0)
                        break;
                    qk_undo u;
                    qk_pos_make(&v, &p, &m[trand(&seed) % (uint64_t)n], &u);
                }
                qk_bbpos b;
                qk_bb_from_pos(&g, &p, &b);
                int depth = R * C > 36 ? 3 : 4;
                uint64_t want = qk_perft(&v, &p, depth), got = bb_perft(&g, &b, depth);
                cr_assert_eq(got, want, "%s game %d: bit boards %llu, rules %llu", name, game,
                             (unsigned long long)got, (unsigned long long)want);
            }
        }
}

/* Solve, write the certificate into memory, verify it; returns the text
 * (free it) and fills the report. */
static char *certify(const char *name, const char *pos, qk_result *winner, qk_cert_report *rep)
{
    qk_variant v = tv(name);
    qk_pos p = tp(&v, pos);
    qk_solver s;
    cr_assert_eq(qk_solver_init(&s, 16u << 20), QK_OK);
    qk_solve_result r;
    cr_assert_eq(qk_solve(&s, &v, &p, NULL, &r), QK_OK);
    cr_assert(r.solved);
    *winner = r.winner;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    qk_cert_stats st;
    cr_assert_eq(qk_solve_certificate(&s, &v, &p, NULL, f, &st), QK_OK, "%s %s", name, pos);
    fclose(f);
    qk_solver_free(&s);
    cr_assert_eq(st.bytes, len);
    FILE *in = fmemopen(buf, len, "r");
    int rc = qk_cert_verify(in, rep);
    fclose(in);
    cr_assert_eq(rc, QK_OK, "%s %s: %s", name, pos, rep->error);
    cr_assert_eq(rep->winner, r.winner);
    cr_assert_eq(rep->lines, st.lines);
    cr_assert_eq(rep->unused, 0, "the certificate holds only what the proof needs");
    return buf;
}

/* Every board up to 5x5 and 6x4, each side first: the certificate holds
 * and names the solver's winner. */
Test(certificate, small_boards_verify)
{
    int n = 0;
    for (int R = 2; R <= 6; R++)
        for (int C = 2; C <= 5; C++) {
            if (R * C > 25 && !(R == 6 && C == 4))
                continue;
            char name[48]; /* room for any two ints: no truncation warning at -O1 */
            snprintf(name, sizeof name, "alquerkonane-%dx%d", R, C);
            qk_variant v = tv(name);
            for (int side = 0; side < 2; side++) {
                qk_pos p;
                qk_variant_start(&v, &p);
                p.side = (uint8_t)side;
                if (qk_pos_status(&v, &p, NULL, NULL))
                    continue; /* decided before a move: nothing to certify */
                char fen[QK_POS_STRLEN];
                qk_pos_format(&v, &p, fen, sizeof fen);
                qk_result w;
                qk_cert_report rep;
                free(certify(name, fen, &w, &rep));
                n++;
            }
        }
    cr_assert_geq(n, 20);
}

Test(certificate, values_of_solved_tsv_and_their_certificates)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/data/solved.tsv", tshared());
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open %s", path);
    char line[1024];
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        line[strcspn(line, "\r\n")] = '\0';
        char *name = strtok(line, "\t"), *pos = strtok(NULL, "\t"), *winner = strtok(NULL, "\t");
        qk_result w;
        qk_cert_report rep;
        free(certify(name, pos, &w, &rep));
        cr_assert_str_eq(qk_result_name(w), winner, "%s %s", name, pos);
        rows++;
    }
    fclose(f);
    cr_assert_geq(rows, 10);
}

static int verify_text(const char *text, qk_cert_report *rep)
{
    FILE *in = fmemopen((void *)text, strlen(text), "r");
    int rc = qk_cert_verify(in, rep);
    fclose(in);
    return rc;
}

/* A line removed, a move made illegal: refused, naming the position. */
Test(certificate, tampered_certificates_are_refused)
{
    qk_result w;
    qk_cert_report rep;
    char *cert = certify("alquerkonane-4x4", "w.w./.w.w/.b.b/b.b. b 0 -", &w, &rep);
    cr_assert_eq(w, QK_RESULT_BLACK);
    /* The first line after the header is the start: drop it. */
    char *l1 = strchr(cert, '\n') + 1, *l2 = strchr(l1, '\n') + 1;
    char *cut = malloc(strlen(cert) + 1);
    memcpy(cut, cert, (size_t)(l1 - cert));
    strcpy(cut + (l1 - cert), l2);
    cr_assert_eq(verify_text(cut, &rep), QK_EILLEGAL);
    cr_assert_str_eq(rep.error, "position \"w.w./.w.w/.b.b/b.b. b 0 -\" (Black to move) is not "
                                "in the certificate");
    /* The start's move b2xb4 replaced by a step that is not legal. */
    char *bad = strdup(cert);
    char *mv = strchr(bad + (l1 - cert), '\t') + 1;
    char *eol = strchr(mv, '\n');
    char *ill = malloc(strlen(cert) + 16);
    memcpy(ill, bad, (size_t)(mv - bad));
    strcpy(ill + (mv - bad), "a1-a2");
    strcat(ill, eol);
    cr_assert_eq(verify_text(ill, &rep), QK_EILLEGAL);
    cr_assert_str_eq(rep.error, "position \"w.w./.w.w/.b.b/b.b. b 0 -\": the certificate's move "
                                "a1-a2 is not legal there");
    /* The wrong winner: the loser's lines are not there. */
    char *swap = strdup(cert);
    memcpy(strstr(swap, " black "), " white ", 7);
    cr_assert_eq(verify_text(swap, &rep), QK_EINVAL); /* lines with Black to move */
    cr_assert_str_eq(rep.error, "line 2: position \"w.w./.w.w/.b.b/b.b. b 0 -\" has the loser to "
                                "move (lines are the winner's)");
    cr_assert_eq(verify_text("not a certificate\n", &rep), QK_EINVAL);
    free(cut);
    free(bad);
    free(ill);
    free(swap);
    free(cert);
}

/* A line that leaves the winner lost: the loser's line "ends" the wrong
 * way and is refused. 3x2: the side to move (Black) loses. */
Test(certificate, a_false_claim_is_refused)
{
    const char *text = "# qirkat-certificate 1 alquerkonane-3x3 white .w./wbw/b.b b 0 -\n";
    qk_cert_report rep;
    cr_assert_eq(verify_text(text, &rep), QK_EILLEGAL);
    cr_assert(strstr(rep.error, "is not in the certificate"), "%s", rep.error);
}

/* Two threads and a progress callback give the values of one thread. */
static void count_cb(const qk_solve_progress *pr, void *arg)
{
    (void)pr;
    (*(int *)arg)++;
}

Test(certificate, threads_and_checkpoints)
{
    qk_variant v = tv("alquerkonane-5x5");
    qk_pos p;
    qk_variant_start(&v, &p);
    qk_solver s;
    cr_assert_eq(qk_solver_init(&s, 16u << 20), QK_OK);
    int calls = 0;
    qk_solve_limits lim = {.threads = 2, .progress_ms = 1, .progress = count_cb,
                           .progress_arg = &calls};
    qk_solve_result r;
    cr_assert_eq(qk_solve(&s, &v, &p, &lim, &r), QK_OK);
    cr_assert(r.solved && r.exact);
    cr_assert_eq(r.winner, QK_RESULT_BLACK);
    cr_assert_eq(r.distance, 21);
    lim.winner_only = true;
    qk_solver_clear(&s);
    cr_assert_eq(qk_solve(&s, &v, &p, &lim, &r), QK_OK);
    cr_assert_eq(r.winner, QK_RESULT_BLACK);

    /* Save, load into an empty table: the root is answered at once. */
    char path[] = "/tmp/qk-ckpt-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    uint64_t saved = 0, loaded = 0;
    cr_assert_eq(qk_solver_save(&s, path, "5x5 test", 0, &saved), QK_OK);
    cr_assert_gt(saved, 100);
    qk_solver t;
    cr_assert_eq(qk_solver_init(&t, 16u << 20), QK_OK);
    cr_assert_eq(qk_solver_load(&t, path, "other", &loaded), QK_EILLEGAL);
    cr_assert_eq(qk_solver_load(&t, path, "5x5 test", &loaded), QK_OK);
    cr_assert_eq(loaded, saved);
    qk_solve_limits wo = {.winner_only = true};
    qk_solve_result again;
    cr_assert_eq(qk_solve(&t, &v, &p, &wo, &again), QK_OK);
    cr_assert(again.solved);
    cr_assert_eq(again.winner, QK_RESULT_BLACK);
    cr_assert_lt(again.expanded, 100, "resumed search redid %llu positions",
                 (unsigned long long)again.expanded);
    bool mw;
    int d;
    cr_assert_eq(qk_solve_lookup(&t, &v, &p, &mw, &d), QK_OK);
    cr_assert(mw);
    remove(path);
    qk_solver_free(&t);
    qk_solver_free(&s);
}

/* Level 4 (perfect) holding the won side never loses against level 3,
 * from every start up to 5x5 and 6x4 that the mover or the other side
 * wins; node budgets only, so the games are machine-independent. */
Test(certificate, perfect_level_keeps_the_win)
{
    const char *boards[] = {"alquerkonane-4x4", "alquerkonane-4x5", "alquerkonane-5x4",
                            "alquerkonane-5x5", "alquerkonane-6x4", "alquerkonane-3x5"};
    qk_solver s;
    cr_assert_eq(qk_solver_init(&s, 16u << 20), QK_OK);
    int games = 0;
    for (size_t k = 0; k < sizeof boards / sizeof boards[0]; k++) {
        qk_variant v = tv(boards[k]);
        for (int side = 0; side < 2; side++) {
            qk_pos p;
            qk_variant_start(&v, &p);
            p.side = (uint8_t)side;
            qk_solve_result r;
            cr_assert_eq(qk_solve(&s, &v, &p, NULL, &r), QK_OK);
            if (!r.has_move)
                continue;
            qk_engine ep, eo;
            cr_assert_eq(qk_engine_init(&ep, 1u << 20), QK_OK);
            cr_assert_eq(qk_engine_init(&eo, 1u << 20), QK_OK);
            qk_limits perfect, other;
            cr_assert_eq(qk_engine_level_limits(4, 1000, &perfect), QK_OK);
            cr_assert(perfect.perfect);
            perfect.time_ms = 0;
            cr_assert_eq(qk_engine_level_limits(3, 1000, &other), QK_OK);
            other.time_ms = 0;
            other.nodes = 20000;
            other.no_solver = true; /* the opponent is the plain search */
            bool white_perfect = r.winner == QK_RESULT_WHITE;
            int plies = 0;
            qk_result res =
                white_perfect ? tplay(&v, p, &ep, &perfect, &eo, &other, 400, &plies, NULL, 0)
                              : tplay(&v, p, &eo, &other, &ep, &perfect, 400, &plies, NULL, 0);
            cr_assert_eq(res, r.winner, "%s, %s first: the perfect side lost", boards[k],
                         side ? "Black" : "White");
            qk_engine_free(&ep);
            qk_engine_free(&eo);
            games++;
        }
    }
    cr_assert_geq(games, 10);
    qk_solver_free(&s);
}

/* ---- docs/solved.tsv (docs/solved.md, tools/solved-table.sh) ----------- */

/* Rows whose positions searched are at most this are solved again and
 * must give the row's figures exactly; up to TABLE_WINNER_MAX the winner
 * is searched again; larger rows are printed, not re-checked. */
#define TABLE_RESOLVE_MAX 1000000ull
#define TABLE_WINNER_MAX 8000000ull

typedef struct table_tally {
    int decided, undecided, resolved, rewon, unchecked, certs;
} table_tally;

/* Check one row of docs/solved.tsv (tab-separated: variant, position,
 * first, status, winner, distance, positions, certificate lines and bytes,
 * time ms, machine) against the solver and, when the row's certificate is
 * in cert_dir (V-b.cert / V-w.cert), against the rules alone (qk_cert).
 * Returns true when it holds; else false with why (n bytes) saying what
 * differs. *R, *C, *side get the board and side for the coverage check. */
static bool table_row_holds(const char *row, const char *cert_dir, int *R, int *C, int *side,
                            table_tally *t, char *why, size_t n)
{
    char line[2048];
    snprintf(line, sizeof line, "%s", row);
    line[strcspn(line, "\r\n")] = '\0';
    char *field[12] = {0};
    int nf = 0;
    for (char *tok = strtok(line, "\t"); tok && nf < 12; tok = strtok(NULL, "\t"))
        field[nf++] = tok;
    if (nf != 11) {
        snprintf(why, n, "%d fields, not 11", nf);
        return false;
    }
    qk_variant v;
    qk_pos p;
    const char *perr = NULL;
    if (qk_variant_parse(field[0], &v) != QK_OK || !qk_variant_is_konane(&v) ||
        qk_pos_parse(&v, field[1], &p, &perr) != QK_OK) {
        snprintf(why, n, "bad variant or position: %s %s", field[0], field[1]);
        return false;
    }
    *R = v.ranks, *C = v.files, *side = p.side;
    qk_pos start;
    qk_variant_start(&v, &start);
    start.side = p.side;
    char fen[QK_POS_STRLEN];
    qk_pos_format(&v, &start, fen, sizeof fen);
    if (strcmp(fen, field[1]) != 0) {
        snprintf(why, n, "%s: %s is not the start (%s)", field[0], field[1], fen);
        return false;
    }
    if (strcmp(field[2], p.side == QK_WHITE ? "white" : "black") != 0) {
        snprintf(why, n, "%s %s: first is %s", field[0], field[1], field[2]);
        return false;
    }
    char *end;
    unsigned long long positions = strtoull(field[6], &end, 10);
    if (*end || strtoull(field[9], &end, 10) > 100000000ull || *end) {
        snprintf(why, n, "%s %s: positions '%s' or time '%s' is not a number", field[0], field[1],
                 field[6], field[9]);
        return false;
    }
    if (strcmp(field[3], "undecided") == 0) {
        if (strcmp(field[4], "-") != 0) {
            snprintf(why, n, "%s %s: undecided with a winner", field[0], field[1]);
            return false;
        }
        t->undecided++;
        return true;
    }
    if (strcmp(field[3], "decided") != 0 ||
        (strcmp(field[4], "white") != 0 && strcmp(field[4], "black") != 0)) {
        snprintf(why, n, "%s %s: status %s, winner %s", field[0], field[1], field[3], field[4]);
        return false;
    }
    t->decided++;
    unsigned long long lines = strtoull(field[7], NULL, 10), bytes = strtoull(field[8], NULL, 10);

    /* The committed certificate, checked by the rules module alone. */
    char cpath[1100];
    snprintf(cpath, sizeof cpath, "%s/%s-%c.cert", cert_dir, field[0],
             p.side == QK_WHITE ? 'w' : 'b');
    FILE *cf = fopen(cpath, "r");
    if (!cf && bytes < 1000000) {
        snprintf(why, n, "%s is missing (the row's certificate is under 1 MB)", cpath);
        return false;
    }
    if (cf) {
        qk_cert_report rep;
        int rc = qk_cert_verify(cf, &rep);
        long size = ftell(cf);
        fclose(cf);
        if (rc != QK_OK) {
            snprintf(why, n, "%s does not hold: %s", cpath, rep.error);
            return false;
        }
        if (strcmp(qk_result_name(rep.winner), field[4]) != 0 || strcmp(rep.start, field[1]) != 0 ||
            strcmp(rep.variant, field[0]) != 0 || rep.lines != lines ||
            (unsigned long long)size != bytes) {
            snprintf(why, n,
                     "%s proves %s wins %s %s (%llu lines, %ld bytes); the row says %s "
                     "(%llu lines, %llu bytes)",
                     cpath, qk_result_name(rep.winner), rep.variant, rep.start,
                     (unsigned long long)rep.lines, size, field[4], lines, bytes);
            return false;
        }
        t->certs++;
    }

    if (positions > TABLE_WINNER_MAX) {
        printf("docs/solved.tsv: %s %s (%llu positions) not searched again\n", field[0], field[1],
               positions);
        t->unchecked++;
        return true;
    }
    /* As tools/solved-table.sh ran it: a fresh 256 MiB table, one thread,
     * exact when qk_solve_feasible(). */
    bool resolve = positions <= TABLE_RESOLVE_MAX;
    qk_solver s;
    if (qk_solver_init(&s, 256u << 20) != QK_OK) {
        snprintf(why, n, "no memory for the solver");
        return false;
    }
    qk_solve_result r;
    qk_solve_limits lim = {.winner_only = !resolve || !qk_solve_feasible(&v, &p)};
    bool ok = qk_solve(&s, &v, &p, &lim, &r) == QK_OK && r.solved;
    if (!ok)
        snprintf(why, n, "%s %s: the solver failed", field[0], field[1]);
    else if (strcmp(qk_result_name(r.winner), field[4]) != 0) {
        snprintf(why, n, "%s %s: the row says %s wins, the solver %s", field[0], field[1],
                 field[4], qk_result_name(r.winner));
        ok = false;
    } else if (resolve && r.exact && strcmp(field[5], "-") != 0 && r.distance != atoi(field[5])) {
        snprintf(why, n, "%s %s: distance %s in the row, %d solved", field[0], field[1], field[5],
                 r.distance);
        ok = false;
    } else if (resolve && r.expanded != positions) {
        snprintf(why, n, "%s %s: %s positions in the row, %llu solved", field[0], field[1],
                 field[6], (unsigned long long)r.expanded);
        ok = false;
    } else if (resolve && r.has_move) {
        FILE *out = fopen("/dev/null", "w");
        qk_cert_stats st;
        ok = out && qk_solve_certificate(&s, &v, &p, NULL, out, &st) == QK_OK && st.lines == lines &&
             st.bytes == bytes;
        if (out)
            fclose(out);
        if (!ok)
            snprintf(why, n, "%s %s: the certificate does not reproduce (%s lines, %s bytes)",
                     field[0], field[1], field[7], field[8]);
    }
    qk_solver_free(&s);
    if (ok)
        *(resolve ? &t->resolved : &t->rewon) += 1;
    return ok;
}

/* docs/solved.tsv has one row for every board R x C, 2 <= R, C <= 8, each
 * side first (98 rows, issue 25), and every row holds (table_row_holds):
 * rows of at most TABLE_RESOLVE_MAX positions solved again with the same
 * figures, every committed certificate verified by the rules alone, the
 * winner of rows up to TABLE_WINNER_MAX searched again, larger rows
 * printed. */
Test(certificate, the_published_table, .timeout = 600)
{
    FILE *f = fopen("docs/solved.tsv", "r");
    cr_assert_not_null(f, "docs/solved.tsv (run from the project root)");
    char line[2048], why[8192];
    bool seen[9][9][2] = {{{false}}};
    int rows = 0;
    table_tally t = {0};
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        int R = 0, C = 0, side = 0;
        bool ok = table_row_holds(line, "docs/certificates", &R, &C, &side, &t, why, sizeof why);
        cr_assert(ok, "row %d: %s", rows + 1, why);
        cr_assert(R >= 2 && R <= 8 && C >= 2 && C <= 8, "row %d: board %dx%d", rows + 1, R, C);
        cr_assert_not(seen[R][C][side], "row %d: %dx%d twice", rows + 1, R, C);
        seen[R][C][side] = true;
        rows++;
    }
    fclose(f);
    cr_assert_eq(rows, 98, "every board 2..8 x 2..8, both sides first");
    printf("docs/solved.tsv: %d decided (%d solved again, %d winners searched again, %d not), "
           "%d undecided, %d certificates verified\n",
           t.decided, t.resolved, t.rewon, t.unchecked, t.undecided, t.certs);
    /* As published (docs/solved.md): 82 decided, 71 of them solved again,
     * 59 certificates under 1 MB. */
    cr_assert_geq(t.decided, 82);
    cr_assert_geq(t.resolved, 71);
    cr_assert_geq(t.certs, 59);
}

/* The check can fail: a row with its winner flipped, its positions count
 * changed, or its certificate's size changed is refused. */
Test(certificate, the_table_check_refuses_a_wrong_row)
{
    const char *good = "alquerkonane-4x4\tw.w./.w.w/.b.b/b.b. b 0 -\tblack\tdecided\tblack\t11\t350\t"
                       "60\t1992\t24\tx\n";
    char why[8192], row[512];
    int R, C, side;
    table_tally t = {0};
    cr_assert(table_row_holds(good, "docs/certificates", &R, &C, &side, &t, why, sizeof why), "%s",
              why);
    cr_assert_eq(t.certs, 1);
    cr_assert_eq(t.resolved, 1);
    /* Winner flipped: the certificate proves Black, and so does the solver. */
    snprintf(row, sizeof row, "%s", good);
    memcpy(strstr(row, "\tblack\t11"), "\twhite", 6);
    cr_assert_not(table_row_holds(row, "docs/certificates", &R, &C, &side, &t, why, sizeof why));
    cr_assert(strstr(why, "white"), "%s", why);
    /* Same with no certificate to read: the solver alone refuses it. */
    cr_assert_not(table_row_holds(row, "/nonexistent", &R, &C, &side, &t, why, sizeof why));
    cr_assert(strstr(why, "missing"), "%s", why);
    const char *big = "alquerkonane-4x4\tw.w./.w.w/.b.b/b.b. b 0 -\tblack\tdecided\twhite\t11\t350\t"
                      "60\t1992000\t24\tx\n"; /* over 1 MB: no certificate expected */
    cr_assert_not(table_row_holds(big, "/nonexistent", &R, &C, &side, &t, why, sizeof why));
    cr_assert_str_eq(why, "alquerkonane-4x4 w.w./.w.w/.b.b/b.b. b 0 -: the row says white wins, "
                          "the solver black");
    /* Positions searched changed. */
    snprintf(row, sizeof row, "%s", good);
    memcpy(strstr(row, "\t350\t"), "\t351\t", 5);
    cr_assert_not(table_row_holds(row, "docs/certificates", &R, &C, &side, &t, why, sizeof why));
    cr_assert(strstr(why, "351 positions in the row, 350 solved"), "%s", why);
    /* Certificate bytes changed. */
    snprintf(row, sizeof row, "%s", good);
    memcpy(strstr(row, "\t1992\t"), "\t1993\t", 6);
    cr_assert_not(table_row_holds(row, "docs/certificates", &R, &C, &side, &t, why, sizeof why));
    cr_assert(strstr(why, "1993 bytes"), "%s", why);
}

/* ---- the perfect level in lost positions (issue 25) -------------------- */

/* The longest loss from p (lost for the mover) by exhaustive minimax
 * (plain_negamax on every child, no table, no pruning): returns the
 * distance D in plies and sets best[i] for the moves that reach it; -1
 * when p is not lost, has no move, or a child needs more than limit
 * nodes. */
static int longest_loss(const qk_variant *v, const qk_pos *p, qk_move *moves, int *n, bool *best,
                        uint64_t limit)
{
    qk_pos q = *p;
    *n = qk_movegen(v, &q, moves, 64);
    if (*n <= 0)
        return -1;
    int dist[64], D = -1;
    for (int i = 0; i < *n; i++) {
        qk_undo u;
        qk_pos_make(v, &q, &moves[i], &u);
        uint64_t nodes = 0;
        int c = plain_negamax(v, &q, &nodes, limit);
        qk_pos_unmake(v, &q, &moves[i], &u);
        if (c == QK_SCORE_INF || c < 0)
            return -1; /* too big, or this move wins: p is not lost */
        dist[i] = QK_SCORE_WIN - c + 1; /* the opponent wins in QK_SCORE_WIN - c */
        if (dist[i] > D)
            D = dist[i];
    }
    for (int i = 0; i < *n; i++)
        best[i] = dist[i] == D;
    return D;
}

/* Level 4 in a lost position plays a move that makes the opponent's win
 * longest, and reports the loss and its exact distance: every lost
 * position met in seeded random games on 4x4 and 5x4 (both sides first)
 * whose tree is small enough for plain minimax, against that minimax.
 * Exact expected values of two of them are written out. */
Test(certificate, perfect_level_makes_the_loss_longest, .timeout = 300)
{
    qk_move moves[64];
    bool best[64];
    int n, D;
    /* Two positions met in those games, written out: one move lasts
     * longest, the others lose sooner. */
    struct {
        const char *pos, *move;
        int d;
    } fixed[] = {{".bw./...w/...b/.wb. w 3 -", "c4xa4", 8}, {"..w./.w../..../b.bw b 0 -", "a1-b2", 6}};
    qk_variant v44 = tv("alquerkonane-4x4");
    for (int k = 0; k < 2; k++) {
        qk_pos p = tp(&v44, fixed[k].pos);
        D = longest_loss(&v44, &p, moves, &n, best, 300000);
        cr_assert_eq(D, fixed[k].d, "%s", fixed[k].pos);
        qk_engine e;
        cr_assert_eq(qk_engine_init(&e, 1u << 20), QK_OK);
        qk_limits lim;
        cr_assert_eq(qk_engine_level_limits(4, 1000, &lim), QK_OK);
        lim.time_ms = 0;
        qk_search_result r;
        cr_assert_eq(qk_engine_search(&e, &v44, &p, &lim, &r), QK_OK);
        qk_engine_free(&e);
        cr_assert(r.solved);
        cr_assert_eq(r.score, -(QK_SCORE_WIN - fixed[k].d));
        cr_assert_str_eq(tmove(&v44, &r.best), fixed[k].move);
        for (int j = 0; j < n; j++)
            cr_assert_eq(best[j], strcmp(tmove(&v44, &moves[j]), fixed[k].move) == 0, "%s %s",
                         fixed[k].pos, tmove(&v44, &moves[j]));
    }
    const char *boards[] = {"alquerkonane-4x4", "alquerkonane-5x4", "alquerkonane-4x5"};
    uint64_t seed = 25;
    int checked = 0, choices = 0;
    for (size_t k = 0; k < sizeof boards / sizeof boards[0]; k++) {
        qk_variant v = tv(boards[k]);
        for (int game = 0; game < 8; game++) {
            qk_pos g;
            qk_variant_start(&v, &g);
            g.side = (uint8_t)(game & 1);
            for (int ply = 0; ply < 40; ply++) {
                D = longest_loss(&v, &g, moves, &n, best, 300000);
                if (D > 0) {
                    qk_engine e;
                    cr_assert_eq(qk_engine_init(&e, 1u << 20), QK_OK);
                    qk_limits lim;
                    cr_assert_eq(qk_engine_level_limits(4, 1000, &lim), QK_OK);
                    lim.time_ms = 0; /* no clock: machine-independent */
                    qk_search_result r;
                    cr_assert_eq(qk_engine_search(&e, &v, &g, &lim, &r), QK_OK);
                    qk_engine_free(&e);
                    char fen[QK_POS_STRLEN];
                    qk_pos_format(&v, &g, fen, sizeof fen);
                    cr_assert(r.solved && r.has_move, "%s %s", v.name, fen);
                    cr_assert_eq(r.score, -(QK_SCORE_WIN - D), "%s %s: score %d, the loss lasts %d",
                                 v.name, fen, r.score, D);
                    int i = 0;
                    while (i < n && !tsame(&moves[i], &r.best))
                        i++;
                    cr_assert_lt(i, n, "%s %s: %s is not legal", v.name, fen, tmove(&v, &r.best));
                    cr_assert(best[i], "%s %s: %s does not last %d plies", v.name, fen,
                              tmove(&v, &r.best), D);
                    int nbest = 0;
                    for (int j = 0; j < n; j++)
                        nbest += best[j];
                    choices += nbest < n; /* some move loses sooner: the choice mattered */
                    if (checked < 6 && nbest < n) {
                        printf("%s %s: lost in %d, level 4 plays %s, minimax:", v.name, fen, D,
                               tmove(&v, &r.best));
                        for (int j = 0; j < n; j++)
                            printf(" %s%s", tmove(&v, &moves[j]), best[j] ? "*" : "");
                        printf("\n");
                    }
                    checked++;
                }
                qk_move m[64];
                int nm = qk_movegen(&v, &g, m, 64);
                if (nm <= 0)
                    break;
                qk_undo u;
                qk_pos_make(&v, &g, &m[trand(&seed) % (uint64_t)nm], &u);
            }
        }
    }
    printf("perfect level in lost positions: %d checked, %d where a move loses sooner\n", checked,
           choices);
    cr_assert_geq(checked, 50);
    cr_assert_geq(choices, 20);
}
