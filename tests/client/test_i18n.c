/*
 * The client in French (issue 24): the real binary ($QK_BIN/qirkat) run
 * with a French environment finds the catalogue of the build tree
 * ($QK_BIN/locale) and speaks French in offline commands, usage errors and
 * the error codes' sentences; --json stays English; the gettext rules of
 * the environment hold (LANGUAGE is ignored in the "C" locale; LANG=fr_FR
 * works even where that locale was never generated, i18n.h). The French
 * environment is LANGUAGE=fr over C.UTF-8, which every Debian 12 has, so
 * `make deps` generates no locale.
 */
#include <criterion/criterion.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "i18n.h"
#include "qk_pdn.h"
#include "render.h"

#define NBSP "\xc2\xa0"

typedef struct {
    int code;
    char out[16384], err[8192];
} prun;

static void slurp(int fd, char *buf, size_t n)
{
    size_t len = 0;
    ssize_t r;
    while (len + 1 < n && (r = read(fd, buf + len, n - 1 - len)) > 0)
        len += (size_t)r;
    buf[len] = '\0';
}

/* Run $QK_BIN/qirkat with the NULL-terminated args under an environment
 * of only env (NULL-terminated "NAME=VALUE"s) plus PATH and HOME. */
static void run_qirkat(prun *p, const char *const *env, const char *const *args)
{
    const char *bin = getenv("QK_BIN") ? getenv("QK_BIN") : "build";
    char path[4096];
    snprintf(path, sizeof path, "%s/qirkat", bin);
    int out[2], err[2];
    cr_assert(pipe(out) == 0 && pipe(err) == 0);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        dup2(out[1], 1);
        dup2(err[1], 2);
        close(out[0]);
        close(err[0]);
        const char *envp[16] = {"PATH=/usr/bin:/bin", "HOME=/nonexistent", "NO_COLOR=1"};
        int n = 3;
        for (int i = 0; env[i] && n < 15; i++)
            envp[n++] = env[i];
        envp[n] = NULL;
        const char *argv[16] = {"qirkat"};
        int k = 1;
        for (int i = 0; args[i] && k < 15; i++)
            argv[k++] = args[i];
        argv[k] = NULL;
        execve(path, (char *const *)argv, (char *const *)envp);
        _exit(127);
    }
    close(out[1]);
    close(err[1]);
    slurp(out[0], p->out, sizeof p->out);
    slurp(err[0], p->err, sizeof p->err);
    close(out[0]);
    close(err[0]);
    int st;
    cr_assert(waitpid(pid, &st, 0) == pid);
    p->code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static const char *const FR[] = {"LANGUAGE=fr", "LC_ALL=C.UTF-8", NULL};

Test(i18n, rules_in_french)
{
    prun p;
    run_qirkat(&p, FR, (const char *const[]){"rules", "alquerkonane-6x4", NULL});
    cr_assert_eq(p.code, 0, "%s", p.err);
    cr_assert(strstr(p.out, "Variante" NBSP ": alquerkonane-6x4 — Alquerkonane 6×4\n"), "%s", p.out);
    cr_assert(strstr(p.out, "Les Noirs jouent en premier."), "%s", p.out);
    cr_assert(strstr(p.out, "il n'y a pas de nulle"), "%s", p.out);
    cr_assert(strstr(p.out, "Position de départ" NBSP ": w.w./"), "%s", p.out);
    cr_assert_null(strstr(p.out, "Black moves first"), "%s", p.out);
}

Test(i18n, usage_error_in_french)
{
    prun p;
    run_qirkat(&p, FR, (const char *const[]){"frobnicate", NULL});
    cr_assert_eq(p.code, 2);
    cr_assert(strstr(p.err, "sous-commande inconnue «" NBSP "frobnicate" NBSP "»"), "%s", p.err);
    cr_assert(strstr(p.err, "utilisation" NBSP ": qirkat"), "%s", p.err);
    run_qirkat(&p, FR, (const char *const[]){"perft", "alquerque", "0", NULL});
    cr_assert_eq(p.code, 2);
    cr_assert(strstr(p.err, "DEPTH doit être un nombre de 1 à 64, pas «" NBSP "0" NBSP "»"), "%s",
              p.err);
}

Test(i18n, cannot_connect_in_french)
{
    prun p;
    run_qirkat(&p, FR, (const char *const[]){"--server", "127.0.0.1:1", "games", NULL});
    cr_assert_eq(p.code, 3);
    cr_assert(strstr(p.err, "impossible de se connecter à 127.0.0.1:1"), "%s", p.err);
}

Test(i18n, help_in_french)
{
    prun p;
    run_qirkat(&p, FR, (const char *const[]){"help", NULL});
    cr_assert_eq(p.code, 0);
    cr_assert(strstr(p.out, "sous-commandes" NBSP ":\n"), "%s", p.out);
    cr_assert(strstr(p.out, "abandonner une partie"), "%s", p.out);
}

Test(i18n, json_stays_english)
{
    prun p;
    run_qirkat(&p, FR, (const char *const[]){"--json", "rules", "alquerkonane-6x4", NULL});
    cr_assert_eq(p.code, 0);
    cr_assert(strstr(p.out, "Black moves first"), "%s", p.out);
    cr_assert_null(strstr(p.out, "Noirs"), "%s", p.out);
}

/* LANG alone names the language, also where fr_FR.UTF-8 is not installed
 * (i18n.h: C.UTF-8 and LANGUAGE=fr then). */
Test(i18n, lang_alone)
{
    prun p;
    run_qirkat(&p, (const char *const[]){"LANG=fr_FR.UTF-8", NULL},
               (const char *const[]){"frobnicate", NULL});
    cr_assert(strstr(p.err, "sous-commande inconnue"), "%s", p.err);
}

/* gettext's rule: in the "C" locale LANGUAGE does not count. */
Test(i18n, c_locale_is_english)
{
    prun p;
    run_qirkat(&p, (const char *const[]){"LANGUAGE=fr", "LC_ALL=C", NULL},
               (const char *const[]){"frobnicate", NULL});
    cr_assert(strstr(p.err, "unknown subcommand 'frobnicate'"), "%s", p.err);
    run_qirkat(&p, (const char *const[]){"LANGUAGE=en", "LANG=fr_FR.UTF-8", NULL},
               (const char *const[]){"frobnicate", NULL});
    cr_assert(strstr(p.err, "unknown subcommand 'frobnicate'"), "%s", p.err);
}

/* This process's environment in French, with the build's catalogues
 * (QK_BIN/locale); the caller's i18n_init() then reads it. */
static void french_in_process(void)
{
    const char *bin = getenv("QK_BIN") ? getenv("QK_BIN") : "build";
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/locale", bin);
    setenv("QIRKAT_LOCALEDIR", dir, 1);
    setenv("LANGUAGE", "fr", 1);
    setenv("LC_ALL", "C.UTF-8", 1);
}

/* Every error code's sentence has its French one, and the server's
 * message (English, for programs) only follows it. In-process: Criterion
 * runs each test in its own process, so i18n_init() touches no other. */
Test(i18n, error_sentences)
{
    french_in_process();
    static const char *const codes[] = {
        "bad_json",  "bad_request",  "unknown_op",      "line_too_long", "unauthenticated", "forbidden",
        "not_found", "conflict",     "not_your_turn",   "illegal_move",  "stale_ply",       "game_over",
        "rate_limited", "server_busy", "server_shutdown", "internal"};
    char english[sizeof codes / sizeof codes[0]][256];
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        snprintf(english[i], sizeof english[i], "%s", cli_error_sentence(codes[i]));
    i18n_init(NULL);
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        const char *fr = cli_error_sentence(codes[i]);
        cr_assert(fr && strcmp(fr, english[i]) != 0, "%s: no French sentence", codes[i]);
    }
    char buf[512];
    cli_error_text("not_found", "no such game", buf, sizeof buf);
    cr_assert_str_eq(buf, "Introuvable" NBSP ": no such game");
    cli_error_text("not_your_turn", NULL, buf, sizeof buf);
    cr_assert_str_eq(buf, "Ce n'est pas à vous de jouer");
    cr_assert_str_eq(P_("%lld game written to %s\n", "%lld games written to %s\n", 1),
                     "%lld partie écrite dans %s\n");
    cr_assert_str_eq(P_("%lld game written to %s\n", "%lld games written to %s\n", 3),
                     "%lld parties écrites dans %s\n");
    cr_assert(cli_is_yes("oui") && cli_is_yes("o") && cli_is_yes("y") && !cli_is_yes("non"));
}

/* Issue 24: the PDN reader's errors (common/qk_pdn*.c) come with a message
 * id and arguments; the client shows them in French, the reason words and
 * the rules' reasons among the arguments too. In-process, as above. */
Test(i18n, pdn_errors_in_french)
{
    french_in_process();
    i18n_init(NULL);
    /* Every message has its French text. */
    for (int m = QK_PDN_M_NONE + 1; m < QK_PDN_M_COUNT; m++) {
        const char *en = qk_pdn_msg_format(m);
        cr_assert(*en, "message %d has no format", m);
        cr_assert(strcmp(_(en), en) != 0, "message %d (%s) has no French text", m, en);
    }
    struct {
        const char *text, *want;
    } cases[] = {
        {"[Variant \"alquerque\"]\n\n1. d2-c3 b4-c3 *\n",
         "ligne 3" NBSP ": coup illégal «" NBSP "b4-c3" NBSP "» (coup 1, Noirs)"},
        {"[Event \"x\"]\n\n1. 32-28 19-23 *\n",
         "ligne 3" NBSP ": «" NBSP "32-28" NBSP "» est en notation par cases numérotées (d'autres "
         "programmes de dames)" NBSP "; un coup nomme les points de RULES.md, comme b2-c3 ou b4xd2 "
         "(README" NBSP ": «" NBSP "Game record files" NBSP "»)"},
        {"[FEN \"bbbbb/bbbbb/ww.bb/wwwww/wwwww x 0 -\"]\n*\n",
         "ligne 1" NBSP ": FEN n'est pas une position de alquerque" NBSP
         ": le camp au trait doit être w ou b"},
        {"[Result \"0-1\"]\n[Termination \"no_moves\"]\n1. d2-c3 0-1\n",
         "ligne 1" NBSP ": Termination no_moves contredit la position finale" NBSP
         ": la partie n'est pas finie"},
        {"1. d2-c3 {[%clk 1:2]} *\n",
         "ligne 1" NBSP ": commentaire d'horloge mal formé ([%clk h:mm:ss] attendu)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        qk_pdn_record *recs;
        size_t n;
        qk_pdn_error err;
        cr_assert_neq(qk_pdn_read(cases[i].text, strlen(cases[i].text), &recs, &n, &err), QK_PDN_OK);
        char buf[512];
        cr_assert_str_eq(render_pdn_error(&err, buf, sizeof buf), cases[i].want);
    }
    /* A reason word among the arguments: the game's end in words. */
    qk_pdn_error e = {.code = QK_PDN_EILLEGAL, .line = 4, .ply = 35, .msg = QK_PDN_M_OVER_BLACK,
                      .args = {"d4-d5", "18", "no_pieces"}};
    char buf[512];
    cr_assert_str_eq(render_pdn_error(&e, buf, sizeof buf),
                     "ligne 4" NBSP ": coup «" NBSP "d4-d5" NBSP
                     "» (coup 18, Noirs) après la fin de la partie (plus de pion)");
    /* An empty argument is not looked up (gettext("") is the header). */
    qk_pdn_error fen = {.code = QK_PDN_EFEN, .msg = QK_PDN_M_FEN, .args = {"alquerque", ""}};
    cr_assert_str_eq(render_pdn_error(&fen, buf, sizeof buf),
                     "FEN n'est pas une position de alquerque" NBSP ": ");
    /* No id: the message as it is (an error built by hand). */
    qk_pdn_error raw = {.code = QK_PDN_ESYNTAX, .message = "record 0: imported games only"};
    cr_assert_str_eq(render_pdn_error(&raw, buf, sizeof buf), "record 0: imported games only");
}

/* The same through the real binary: `qirkat replay` of a bad file. */
Test(i18n, replay_of_a_bad_record_in_french)
{
    char path[] = "/tmp/qk-i18n-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    const char *text = "[Variant \"alquerque\"]\n\n1. d2-c3 b4-c3 *\n";
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    prun p;
    run_qirkat(&p, FR, (const char *const[]){"replay", path, NULL});
    unlink(path);
    cr_assert_eq(p.code, 1, "%s", p.err);
    char want[512];
    snprintf(want, sizeof want,
             "%s" NBSP ": partie 1 du fichier" NBSP ": ligne 3" NBSP ": coup illégal «" NBSP
             "b4-c3" NBSP "» (coup 1, Noirs)\n",
             path);
    cr_assert(strstr(p.err, want), "%s", p.err);
}

/* Issue 24: the strings that were still English only (admin, bot,
 * redeem-reset, solve's and verify-certificate's help) are in the
 * catalogue. */
Test(i18n, admin_bot_and_solve_help_in_french)
{
    prun p;
    run_qirkat(&p, FR, (const char *const[]){"admin", "frob", NULL});
    cr_assert_eq(p.code, 2);
    cr_assert(strstr(p.err, "qirkat admin: admin ban|unban|reset-password|adjudicate|"
                            "abort-tournament|log, pas «" NBSP "frob" NBSP "»\n"),
              "%s", p.err);
    run_qirkat(&p, FR, (const char *const[]){"admin", "ban", "bob", NULL});
    cr_assert_eq(p.code, 2);
    cr_assert(strstr(p.err, "admin ban demande --reason TEXTE (il va dans le journal)\n"), "%s",
              p.err);
    run_qirkat(&p, FR, (const char *const[]){"bot", NULL});
    cr_assert_eq(p.code, 2);
    cr_assert(strstr(p.err, "qirkat bot: --level 1, 2, 3 ou 4 est obligatoire\n"), "%s", p.err);
    run_qirkat(&p, FR, (const char *const[]){"solve", "--help", NULL});
    cr_assert_eq(p.code, 0);
    cr_assert(strstr(p.out, "  --winner-only            seulement qui gagne (plus rapide)\n"), "%s",
              p.out);
    run_qirkat(&p, FR, (const char *const[]){"help", NULL});
    cr_assert(strstr(p.out, "vérifier un certificat de preuve avec les seules règles (hors ligne)"),
              "%s", p.out);
    cr_assert(strstr(p.out, "choisir un nouveau mot de passe avec un code de réinitialisation"), "%s",
              p.out);
    /* The audit's TIME is when, the games' TIME their time control. */
    french_in_process();
    i18n_init(NULL);
    cr_assert_str_eq(C_("audit", "TIME"), "HEURE");
    cr_assert_str_eq(_("TIME"), "CADENCE");
    cr_assert_str_eq(C_("no such context", "TIME"), "TIME");
    cr_assert_str_eq(P_("%.0f session ended", "%.0f sessions ended", 2), "%.0f sessions fermées");
    cr_assert_str_eq(render_word("running"), "en cours"); /* a tournament's status */
}
