/*
 * cmd_solve: `qirkat solve` and `qirkat verify-certificate` (offline; the
 * solver and the checker are linked in, common/qk_solve.h, common/qk_cert.h).
 *
 * solve decides an Alquerkonane position: exact distances when
 * qk_solve_feasible() says the board is small enough (or --exact), else
 * the winner only (--winner-only forces it), within --ms (0: no limit).
 * The table takes --hash-mb (default 256 MB for a board qk_solve_feasible()
 * accepts, else a quarter of the machine's memory, at most 4 GiB), the
 * search --threads (default 1 there, else the online processors). A
 * run over 10 s prints a progress line on stderr every --progress seconds.
 * --checkpoint FILE loads FILE when it exists and was written for the same
 * problem, saves the table there every 5 minutes and when the run ends
 * unsolved (a limit, or Ctrl-C or SIGTERM, which stops the search cleanly), so a long
 * run resumes where it stopped. --dfpn decides the winner by proof-number
 * search (qk_solve_dfpn) instead, on one thread. --certificate FILE writes a proof
 * certificate of a decided position (docs/solved.md).
 *
 * verify-certificate checks one with the rules module alone and exits 1
 * naming the position when the proof does not hold.
 *
 * User-visible strings go through _() and P_() (client-cli/i18n.h; the
 * French is in po/fr.po); --json output is not translated. The variant and position parsing repeats cmd_engine.c's
 * (kept static there).
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "qk_cert.h"
#include "qk_solve.h"
#include "i18n.h"
#include "render.h"

#define SOLVE_DEFAULT_MS 60000
#define SOLVE_MAX_HASH_MB 4096
#define CHECKPOINT_EVERY_MS (5 * 60 * 1000)

static atomic_int solve_stop;

static void solve_sigint_cb(int sig)
{
    (void)sig;
    atomic_store(&solve_stop, 1);
}

static int solve_variant_pos(cli *c, const cmd_args *a, qk_variant *v, qk_pos *p)
{
    if (qk_variant_parse(a->pos[0], v) != QK_OK)
        return cli_usage_error(c, _("unknown variant '%s'"), a->pos[0]);
    char text[QK_POS_STRLEN] = "";
    size_t len = 0;
    for (int i = 1; i < a->npos; i++) {
        size_t n = strlen(a->pos[i]);
        if (len + n + 2 > sizeof text)
            return cli_usage_error(c, _("POSITION too long"));
        if (i > 1)
            text[len++] = ' ';
        memcpy(text + len, a->pos[i], n + 1);
        len += n;
    }
    if (len == 0) {
        qk_variant_start(v, p);
        return CLI_EXIT_OK;
    }
    const char *why = NULL;
    if (qk_pos_parse(v, text, p, &why) != QK_OK)
        return cli_usage_error(c, _("bad POSITION for %s: %s"), v->name, why ? why : _("malformed"));
    return CLI_EXIT_OK;
}

/* Default table: a quarter of physical memory, at most 4 GiB, at least 16 MiB. */
static uint64_t default_hash_mb(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    uint64_t mb = pages > 0 && psize > 0 ? (uint64_t)pages * (uint64_t)psize / 4 / (1u << 20) : 256;
    if (mb > SOLVE_MAX_HASH_MB)
        mb = SOLVE_MAX_HASH_MB;
    return mb < 16 ? 16 : mb;
}

typedef struct progress_ctx {
    cli *c;
    qk_solver *s;
    const char *checkpoint, *tag;
    uint64_t every_ms, next_print, next_save;
    uint64_t loaded; /* entries a checkpoint put in the table before the search */
} progress_ctx;

static void progress_cb(const qk_solve_progress *pr, void *arg)
{
    progress_ctx *x = arg;
    if (x->every_ms && pr->elapsed_ms >= x->next_print) {
        x->next_print += x->every_ms;
        uint64_t s = pr->elapsed_ms / 1000;
        double rate = pr->elapsed_ms ? (double)pr->nodes / (double)pr->elapsed_ms / 1000.0 : 0;
        /* The search counts the slots it fills; a resumed table held more. */
        uint64_t filled = pr->filled + x->loaded;
        if (filled > pr->capacity)
            filled = pr->capacity;
        fprintf(x->c->err,
                _("solve: %llu positions visited, %llu searched, %.2f M/s, table %.1f%% of %llu "
                "entries, %llu:%02llu:%02llu elapsed\n"),
                (unsigned long long)pr->nodes, (unsigned long long)pr->expanded, rate,
                pr->capacity ? 100.0 * (double)filled / (double)pr->capacity : 0.0,
                (unsigned long long)pr->capacity, (unsigned long long)(s / 3600),
                (unsigned long long)(s / 60 % 60), (unsigned long long)(s % 60));
        fflush(x->c->err);
    }
    if (x->checkpoint && pr->elapsed_ms >= x->next_save) {
        x->next_save += CHECKPOINT_EVERY_MS;
        uint64_t n = 0;
        if (qk_solver_save(x->s, x->checkpoint, x->tag, 2, &n) == QK_OK)
            fprintf(x->c->err, _("solve: checkpoint %s: %llu entries\n"), x->checkpoint,
                    (unsigned long long)n);
        else
            fprintf(x->c->err, _("solve: cannot write checkpoint %s\n"), x->checkpoint);
    }
}

int cmd_solve(cli *c, const cmd_args *a)
{
    qk_variant v;
    qk_pos p;
    int rc = solve_variant_pos(c, a, &v, &p);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (!qk_variant_is_konane(&v))
        return cli_usage_error(c, _("the solver decides Alquerkonane boards only, not %s"), v.name);
    uint64_t ms = args_uint(a, "ms", SOLVE_DEFAULT_MS);
    if (ms > 864000000)
        return cli_usage_error(c, _("--ms must be 0..864000000"));
    if (args_has(a, "exact") && args_has(a, "winner-only"))
        return cli_usage_error(c, _("give --exact or --winner-only, not both"));
    bool dfpn = args_has(a, "dfpn");
    if (dfpn && (args_has(a, "exact") || args_has(a, "certificate") || args_has(a, "checkpoint") ||
                 args_has(a, "threads")))
        return cli_usage_error(c, _("--dfpn decides the winner on one thread: no --exact, "
                                    "--threads, --certificate or --checkpoint"));
    if (dfpn && (v.ranks > 8 || v.files > 8))
        return cli_usage_error(c, _("--dfpn is for boards of at most 8 ranks and 8 files"));
    bool feasible = qk_solve_feasible(&v, &p);
    bool exact = !dfpn && (args_has(a, "exact") || (!args_has(a, "winner-only") && feasible));
    /* Small problems: a 256 MB table and one thread, so the counts are
     * reproducible (docs/solved.tsv); large ones get the machine. */
    uint64_t hash_mb = args_uint(a, "hash-mb", feasible ? 256 : default_hash_mb());
    if (hash_mb < 1 || hash_mb > (1u << 20))
        return cli_usage_error(c, _("--hash-mb must be 1..1048576"));
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    uint64_t threads = args_uint(a, "threads", feasible || dfpn || ncpu < 1 ? 1 : (uint64_t)ncpu);
    if (threads < 1 || threads > QK_SOLVE_MAX_THREADS)
        return cli_usage_error(c, _("--threads must be 1..%d"), QK_SOLVE_MAX_THREADS);
    uint64_t every = args_uint(a, "progress", 10);
    const char *cert = args_get(a, "certificate"), *ckpt = args_get(a, "checkpoint");

    qk_solver s;
    memset(&s, 0, sizeof s);
    if (qk_solver_init(&s, (size_t)hash_mb << 20) != QK_OK)
        return cli_fail(c, CLI_EXIT_SERVER, _("out of memory for a %llu MB table"),
                        (unsigned long long)hash_mb);
    char fen[QK_POS_STRLEN], tag[QK_POS_STRLEN + 64];
    qk_pos_format(&v, &p, fen, sizeof fen);
    snprintf(tag, sizeof tag, "%s %s %s", v.name, fen, exact ? "exact" : "winner");
    uint64_t loaded = 0;
    if (ckpt && access(ckpt, F_OK) == 0) {
        uint64_t n = 0;
        if (qk_solver_load(&s, ckpt, tag, &n) != QK_OK) {
            qk_solver_free(&s);
            return cli_fail(c, CLI_EXIT_SERVER, _("%s is not a checkpoint of this problem (%s)"),
                            ckpt, tag);
        }
        fprintf(c->err, _("solve: resumed from %s: %llu entries\n"), ckpt, (unsigned long long)n);
        loaded = n;
    }
    progress_ctx px = {.c = c, .s = &s, .checkpoint = ckpt, .tag = tag, .every_ms = every * 1000,
                       .next_print = every ? (every < 10 ? every : 10) * 1000 : 0,
                       .next_save = CHECKPOINT_EVERY_MS, .loaded = loaded};
    atomic_store(&solve_stop, 0);
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = solve_sigint_cb;
    struct sigaction oldterm;
    sigaction(SIGINT, &sa, &old);
    sigaction(SIGTERM, &sa, &oldterm);
    qk_solve_limits lim = {.winner_only = !exact, .time_ms = (uint32_t)ms, .stop = &solve_stop,
                           .threads = (int)threads, .progress_ms = 1000,
                           .progress = progress_cb, .progress_arg = &px};
    if (exact && !args_has(a, "ms"))
        lim.time_ms = 0;
    if (!exact && lim.time_ms) { /* may take the whole --ms: say so, so it does not look hung */
        fprintf(c->err, _("searching for the winner only (at most %llu s)...\n"),
                (unsigned long long)((ms + 999) / 1000));
        fflush(c->err);
    }
    qk_solve_result res;
    int64_t t0 = net_now_ms();
    if (dfpn) { /* the calling thread, no progress lines (qk_solve_dfpn) */
        lim.progress = NULL;
        lim.progress_ms = 0;
        rc = qk_solve_dfpn(&s, &v, &p, &lim, &res);
    } else
        rc = qk_solve(&s, &v, &p, &lim, &res);
    int64_t took = net_now_ms() - t0;
    sigaction(SIGINT, &old, NULL);
    sigaction(SIGTERM, &oldterm, NULL);
    if (rc != QK_OK) {
        qk_solver_free(&s);
        return cli_fail(c, CLI_EXIT_SERVER, _("the solver failed (%d)"), rc);
    }
    if (ckpt && !res.solved) {
        uint64_t n = 0;
        if (qk_solver_save(&s, ckpt, tag, 0, &n) == QK_OK)
            fprintf(c->err, _("solve: checkpoint %s: %llu entries\n"), ckpt, (unsigned long long)n);
    }
    qk_cert_stats cs = {0};
    int64_t cert_ms = 0;
    if (cert && (v.ranks > 8 || v.files > 8)) {
        qk_solver_free(&s);
        return cli_fail(c, CLI_EXIT_SERVER, _("certificates are for boards of at most 8 ranks and 8 files"));
    }
    if (res.solved && cert) {
        FILE *f = fopen(cert, "w");
        if (!f) {
            qk_solver_free(&s);
            return cli_fail(c, CLI_EXIT_SERVER, _("cannot write %s"), cert);
        }
        int64_t c0 = net_now_ms();
        int crc = qk_solve_certificate(&s, &v, &p, NULL, f, &cs);
        cert_ms = net_now_ms() - c0;
        if (fclose(f) != 0 || crc != QK_OK) {
            qk_solver_free(&s);
            return cli_fail(c, CLI_EXIT_SERVER, _("cannot write the certificate %s (%d)"), cert, crc);
        }
    }
    qk_move pv[128];
    int npv = res.solved && res.exact ? qk_solve_pv(&s, &v, &p, pv, 128) : 0;
    uint64_t used = 0, capacity = 0;
    qk_solver_fill(&s, &used, &capacity);
    qk_solver_free(&s);
    char best[QK_MOVE_STRLEN] = "";
    if (res.solved && res.has_move)
        qk_move_format(&v, &res.best, best, sizeof best);
    const char *winner = !res.solved ? NULL : res.winner == QK_RESULT_WHITE ? "white" : "black";
    cJSON *words = cJSON_CreateArray();
    {
        qk_pos q = p;
        for (int i = 0; i < npv && words; i++) {
            char m[QK_MOVE_STRLEN];
            qk_undo u;
            qk_move_format(&v, &pv[i], m, sizeof m);
            cJSON_AddItemToArray(words, cJSON_CreateString(m));
            qk_pos_make(&v, &q, &pv[i], &u);
        }
    }
    if (c->json) {
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddStringToObject(o, "variant", v.name) ||
            !cJSON_AddStringToObject(o, "position", fen) ||
            !cJSON_AddBoolToObject(o, "solved", res.solved) ||
            !(winner ? cJSON_AddStringToObject(o, "winner", winner)
                     : cJSON_AddNullToObject(o, "winner")) ||
            !cJSON_AddBoolToObject(o, "exact", res.solved && res.exact) ||
            !cJSON_AddNumberToObject(o, "distance", res.solved ? res.distance : -1) ||
            !(best[0] ? cJSON_AddStringToObject(o, "best", best)
                      : cJSON_AddNullToObject(o, "best")) ||
            !cJSON_AddNumberToObject(o, "positions", (double)res.expanded) ||
            !cJSON_AddNumberToObject(o, "visited", (double)res.nodes) ||
            !cJSON_AddNumberToObject(o, "time_ms", (double)took) ||
            !cJSON_AddNumberToObject(o, "threads", (double)threads) ||
            !cJSON_AddNumberToObject(o, "hash_mb", (double)hash_mb) ||
            !cJSON_AddNumberToObject(o, "table_used", (double)used) ||
            !cJSON_AddNumberToObject(o, "certificate_lines", (double)cs.lines) ||
            !cJSON_AddNumberToObject(o, "certificate_bytes", (double)cs.bytes) ||
            !cJSON_AddNumberToObject(o, "certificate_ms", (double)cert_ms)) {
            cJSON_Delete(o);
            cJSON_Delete(words);
            return cli_fail(c, CLI_EXIT_SERVER, _("out of memory"));
        }
        char *txt = cJSON_PrintUnformatted(o);
        cJSON_Delete(o);
        cJSON_Delete(words);
        if (!txt)
            return cli_fail(c, CLI_EXIT_SERVER, _("out of memory"));
        fprintf(c->out, "%s\n", txt);
        free(txt);
        return res.solved ? CLI_EXIT_OK : CLI_EXIT_SERVER;
    }
    const char *mover = p.side == QK_WHITE ? _("White") : _("Black");
    fprintf(c->out, _("variant:  %s\nposition: %s (%s to move)\n"), v.name, fen, mover);
    if (!res.solved) {
        cJSON_Delete(words);
        fprintf(c->out, _("unsolved: stopped after %lld ms with %llu positions searched\n"),
                (long long)took, (unsigned long long)res.expanded);
        return CLI_EXIT_SERVER;
    }
    const char *wname = winner[0] == 'w' ? _("White") : _("Black");
    if (res.exact && res.mover_wins)
        fprintf(c->out,
                P_("result:   %s wins with perfect play (%s to move wins in %d ply)\n",
                   "result:   %s wins with perfect play (%s to move wins in %d plies)\n",
                   res.distance),
                wname, mover, res.distance);
    else if (res.exact)
        fprintf(c->out,
                P_("result:   %s wins with perfect play (%s to move loses in %d ply)\n",
                   "result:   %s wins with perfect play (%s to move loses in %d plies)\n",
                   res.distance),
                wname, mover, res.distance);
    else
        fprintf(c->out, _("result:   %s wins with perfect play (winner only, distance unknown)\n"),
                wname);
    if (best[0])
        fprintf(c->out, _("best:     %s\n"), best);
    if (npv)
        render_wrapped(c->out, _("line:    "), words, 10);
    cJSON_Delete(words);
    fprintf(c->out, _("searched: %llu positions (%llu visited with table hits) in %lld ms\n"),
            (unsigned long long)res.expanded, (unsigned long long)res.nodes, (long long)took);
    if (cert)
        fprintf(c->out, _("certificate: %s, %llu positions, %llu bytes, %lld ms\n"), cert,
                (unsigned long long)cs.lines, (unsigned long long)cs.bytes, (long long)cert_ms);
    return CLI_EXIT_OK;
}

int cmd_verify_certificate(cli *c, const cmd_args *a)
{
    FILE *f = strcmp(a->pos[0], "-") == 0 ? stdin : fopen(a->pos[0], "r");
    if (!f)
        return cli_fail(c, CLI_EXIT_SERVER, _("cannot open %s"), a->pos[0]);
    qk_cert_report *r = malloc(sizeof *r);
    if (!r) {
        if (f != stdin)
            fclose(f);
        return cli_fail(c, CLI_EXIT_SERVER, _("out of memory"));
    }
    int rc = qk_cert_verify(f, r);
    if (f != stdin)
        fclose(f);
    if (rc != QK_OK) {
        rc = cli_fail(c, CLI_EXIT_SERVER, _("certificate refused: %s"), r->error);
        free(r);
        return rc;
    }
    const char *w = r->winner == QK_RESULT_WHITE ? _("White") : _("Black");
    fprintf(c->out,
            _("certificate holds: %s, %s wins from %s\n"
            "visited: %llu positions with %s to move, %llu with the loser to move (%llu with no "
            "legal move); %llu lines, %llu unused\n"),
            r->variant, w, r->start, (unsigned long long)r->winner_positions, w,
            (unsigned long long)r->loser_positions, (unsigned long long)r->loser_ends,
            (unsigned long long)r->lines, (unsigned long long)r->unused);
    free(r);
    return CLI_EXIT_OK;
}
