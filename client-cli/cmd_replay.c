/*
 * cmd_replay: `qirkat replay FILE [--game K] [--to-ply N]` offline, and the
 * record viewer of replay.h. The file is read whole (at most the 1 MiB of
 * PROTOCOL.md `import`, one byte more so the reader can say it is too big)
 * and handed to qk_pdn_read(), which validates every game with the rules;
 * the viewer then only replays records known to be legal.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "render.h"
#include "replay.h"
#include "term.h"
#include "i18n.h"

static const char *side_name(int side)
{
    return side == QK_WHITE ? _("White") : _("Black");
}

/* "N." for a ply of the first mover of a pair, "N..." for the second
 * (qk_pdn_write() numbers pairs of plies from the start). */
static void move_number(size_t ply, char *buf, size_t n)
{
    snprintf(buf, n, "%zu%s", ply / 2 + 1, ply % 2 ? "..." : ".");
}

/* The captured points of m as "b3 c4" into buf ("" for none). */
static void captured_text(const qk_variant *v, const qk_move *m, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < m->ncap && len + 5 < n; i++) {
        char pt[8];
        if (qk_point_format(v, m->cap[i], pt, sizeof pt) < 0)
            continue;
        len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? " " : "", pt);
    }
}

static int show_json(cli *c, const replay_src *src, const qk_pdn_state *st, bool over,
                     qk_result res, qk_reason why)
{
    const qk_variant *v = &st->variant;
    char fen[QK_POS_STRLEN], mv[QK_MOVE_STRLEN];
    cJSON *o = cJSON_CreateObject(), *caps = NULL;
    bool ok = o && qk_pos_format(v, &st->pos, fen, sizeof fen) >= 0 &&
              cJSON_AddNumberToObject(o, "game", (double)(src->index + 1)) &&
              cJSON_AddNumberToObject(o, "ply", (double)st->ply) &&
              cJSON_AddNumberToObject(o, "plies", (double)src->rec->nmoves) &&
              cJSON_AddStringToObject(o, "variant", v->name) &&
              cJSON_AddStringToObject(o, "position", fen);
    if (ok && st->has_last && qk_move_format(v, &st->last, mv, sizeof mv) > 0)
        ok = cJSON_AddStringToObject(o, "last_move", mv) != NULL;
    else if (ok)
        ok = cJSON_AddNullToObject(o, "last_move") != NULL;
    ok = ok && (caps = cJSON_AddArrayToObject(o, "captured"));
    for (int i = 0; ok && st->has_last && i < st->last.ncap; i++) {
        char pt[8];
        ok = qk_point_format(v, st->last.cap[i], pt, sizeof pt) > 0 &&
             cJSON_AddItemToArray(caps, cJSON_CreateString(pt));
    }
    ok = ok && cJSON_AddStringToObject(o, "turn", st->pos.side == QK_WHITE ? "white" : "black");
    if (ok && over)
        ok = cJSON_AddStringToObject(o, "result", qk_result_name(res)) &&
             cJSON_AddStringToObject(o, "reason", qk_reason_name(why));
    else if (ok)
        ok = cJSON_AddNullToObject(o, "result") && cJSON_AddNullToObject(o, "reason");
    char *s = ok ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    if (!s)
        return cli_fail(c, CLI_EXIT_SERVER, _("out of memory"));
    fprintf(c->out, "%s\n", s);
    free(s);
    return CLI_EXIT_OK;
}

int replay_show(cli *c, const replay_src *src, size_t ply)
{
    const qk_pdn_record *r = src->rec;
    qk_pdn_state st;
    qk_pdn_error err;
    char ebuf[QK_PDN_MSGLEN * 2];
    if (qk_pdn_replay(r, ply, &st, &err) != QK_PDN_OK)
        return cli_fail(c, CLI_EXIT_SERVER, _("game %zu: %s"), src->index + 1,
                        render_pdn_error(&err, ebuf, sizeof ebuf));
    const qk_variant *v = &st.variant;
    /* The end of the record: the rules' verdict, or the Result's for a
     * game ended from outside them (resignation...). Before the end, the
     * rules alone (a position inside a record is never over). */
    bool over = false;
    qk_result res = QK_RESULT_NONE;
    qk_reason why = QK_REASON_NONE;
    if (ply == r->nmoves) {
        qk_pdn_outcome out;
        if (qk_pdn_validate(r, &out, &err) != QK_PDN_OK)
            return cli_fail(c, CLI_EXIT_SERVER, _("game %zu: %s"), src->index + 1,
                            render_pdn_error(&err, ebuf, sizeof ebuf));
        over = out.over;
        res = out.result;
        why = out.reason;
    }
    if (c->json)
        return show_json(c, src, &st, over, res, why);

    FILE *out = c->out;
    fprintf(out, _("Game %zu of %zu  %s  ply %zu of %zu\n"), src->index + 1, src->count, v->name, ply,
            r->nmoves);
    fprintf(out, _("White: %s  Black: %s"), r->white ? r->white : "?", r->black ? r->black : "?");
    if (r->event)
        fprintf(out, "  (%s%s%s)", r->event, r->date ? ", " : "", r->date ? r->date : "");
    fputc('\n', out);
    render_board(out, v, &st.pos, st.has_last ? &st.last : NULL, c->render_flags);
    if (st.has_last) {
        char num[32], mv[QK_MOVE_STRLEN], caps[QK_MAX_PATH * 5];
        move_number(ply - 1, num, sizeof num);
        if (qk_move_format(v, &st.last, mv, sizeof mv) < 0)
            snprintf(mv, sizeof mv, "%s", r->moves[ply - 1]);
        captured_text(v, &st.last, caps, sizeof caps);
        /* The mover is the side not to move now. */
        fprintf(out, _("Last move: %s %s (%s)"), num, mv, side_name(!st.pos.side));
        if (*caps)
            fprintf(out, _(", captured %s"), caps);
        fputc('\n', out);
    } else {
        fputs(_("Start position\n"), out);
    }
    if (over)
        fprintf(out, "%s (%s)\n", render_result_text(qk_result_name(res)),
                render_reason_text(qk_reason_name(why)));
    else if (ply == r->nmoves)
        fprintf(out, _("%s to move; the record ends here (%s)\n"), side_name(st.pos.side),
                qk_pdn_result_text(r->result));
    else
        fprintf(out, _("%s to move\n"), side_name(st.pos.side));
    return CLI_EXIT_OK;
}

static const char loop_help[] =
    N_("n or Enter: next ply  p: previous  f: first  l: last  g N: go to ply N  q: quit\n");

/* The next command as text ("n", "g 12", ...) into buf (size n). On a
 * terminal one key is a command, and g asks for its ply on a line; else
 * a line is a command. Returns TERM_OK, TERM_EOF or TERM_ETOOLONG. */
static int next_command(cli *c, bool tty, char *buf, size_t n)
{
    if (!tty)
        return term_read_line(c->in, buf, n);
    fputs(_("replay> "), c->out);
    fflush(c->out);
    int key = term_read_key(c->in);
    if (key < 0) {
        fputc('\n', c->out);
        /* No terminal after all (or it failed): read lines instead. */
        return key == TERM_EOF ? TERM_EOF : term_read_line(c->in, buf, n);
    }
    if (key == '\n' || key == '\r' || key == ' ')
        key = 'n';
    if (key == 'g') {
        fputs(_("g: go to ply: "), c->out);
        fflush(c->out);
        char ply[32];
        int rc = term_read_line(c->in, ply, sizeof ply);
        if (rc != TERM_OK)
            return rc;
        snprintf(buf, n, "g %s", ply);
        return TERM_OK;
    }
    if (key >= 0x20 && key < 0x7F) {
        fprintf(c->out, "%c\n", key);
        snprintf(buf, n, "%c", key);
    } else {
        fputc('\n', c->out);
        snprintf(buf, n, "\\x%02x", (unsigned)key);
    }
    return TERM_OK;
}

int replay_loop(cli *c, const replay_src *src, size_t start)
{
    size_t ply = start, last = src->rec->nmoves;
    int fd = fileno(c->in);
    bool tty = fd >= 0 && isatty(fd);
    int rc = replay_show(c, src, ply);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (tty)
        fputs(_(loop_help), c->out);
    for (;;) {
        char line[128];
        int t = next_command(c, tty, line, sizeof line);
        if (t == TERM_EOF)
            break;
        char *cmd = line;
        while (*cmd == ' ' || *cmd == '\t')
            cmd++;
        size_t len = strlen(cmd);
        while (len > 0 && (cmd[len - 1] == ' ' || cmd[len - 1] == '\t'))
            cmd[--len] = '\0';
        size_t want = ply;
        if (t == TERM_ETOOLONG) {
            fputs(_("replay: line too long\n"), c->err);
            continue;
        } else if (strcmp(cmd, "q") == 0 || strcmp(cmd, "quit") == 0) {
            break;
        } else if (*cmd == '\0' || strcmp(cmd, "n") == 0 || strcmp(cmd, "next") == 0) {
            if (ply == last) {
                fprintf(c->err, _("replay: already at the last ply (%zu)\n"), last);
                continue;
            }
            want = ply + 1;
        } else if (strcmp(cmd, "p") == 0 || strcmp(cmd, "prev") == 0) {
            if (ply == 0) {
                fputs(_("replay: already at the start (ply 0)\n"), c->err);
                continue;
            }
            want = ply - 1;
        } else if (strcmp(cmd, "f") == 0 || strcmp(cmd, "first") == 0) {
            want = 0;
        } else if (strcmp(cmd, "l") == 0 || strcmp(cmd, "last") == 0) {
            want = last;
        } else if (cmd[0] == 'g' && (cmd[1] == ' ' || cmd[1] == '\0')) {
            const char *arg = cmd + 1;
            while (*arg == ' ')
                arg++;
            uint64_t n;
            if (args_parse_uint(arg, &n) < 0 || n > last) {
                fprintf(c->err, _("replay: g N needs a ply 0..%zu, not '%s'\n"), last, arg);
                continue;
            }
            want = (size_t)n;
        } else if (strcmp(cmd, "h") == 0 || strcmp(cmd, "help") == 0 || strcmp(cmd, "?") == 0) {
            fputs(_(loop_help), c->out);
            continue;
        } else {
            fprintf(c->err, _("replay: unknown command '%s' (h for help)\n"), cmd);
            continue;
        }
        ply = want;
        fputc('\n', c->out);
        if ((rc = replay_show(c, src, ply)) != CLI_EXIT_OK)
            return rc;
        fflush(c->out);
    }
    return CLI_EXIT_OK;
}

/* The file, whole, into a malloc'd buffer (*len bytes, NUL added); at
 * most QK_PDN_MAX_TEXT + 1 bytes are read, enough for the reader to
 * refuse an over-long file. NULL when it cannot be read. */
char *records_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = QK_PDN_MAX_TEXT + 2;
    char *buf = malloc(cap);
    if (!buf) {
        fclose(f);
        return NULL;
    }
    size_t n = fread(buf, 1, cap - 1, f);
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

int cmd_replay(cli *c, const cmd_args *a)
{
    const char *path = a->pos[0];
    uint64_t game = args_uint(a, "game", 1);
    if (game < 1)
        return cli_usage_error(c, _("--game counts from 1"));
    size_t len = 0;
    char *text = records_read_file(path, &len);
    /* A number that is not a file is a game id: its record comes from the
     * server (`export`), finished or active. */
    char *end;
    unsigned long long id = strtoull(path, &end, 10);
    if (!text && *path >= '0' && *path <= '9' && !*end && id > 0) {
        int frc = records_fetch(c, id, &text, &len);
        if (frc != CLI_EXIT_OK)
            return frc;
    }
    if (!text)
        return cli_usage_error(c, _("cannot read '%s'"), path);
    qk_pdn_record *recs;
    size_t n;
    qk_pdn_error err;
    char ebuf[QK_PDN_MSGLEN * 2];
    int prc = qk_pdn_read(text, len, &recs, &n, &err);
    free(text);
    if (prc != QK_PDN_OK) {
        if (prc == QK_PDN_ETOOBIG)
            return cli_fail(c, CLI_EXIT_SERVER, "%s: %s", path,
                            render_pdn_error(&err, ebuf, sizeof ebuf));
        return cli_fail(c, CLI_EXIT_SERVER, _("%s: game %zu of the file: %s"), path, err.record + 1,
                        render_pdn_error(&err, ebuf, sizeof ebuf));
    }
    int rc;
    if (game > n) {
        rc = cli_usage_error(c, P_("--game %llu: '%s' has %zu game", "--game %llu: '%s' has %zu games", n),
                             (unsigned long long)game, path, n);
        goto done;
    }
    replay_src src = {&recs[game - 1], (size_t)game - 1, n};
    if (args_has(a, "to-ply")) {
        uint64_t ply = args_uint(a, "to-ply", 0);
        if (ply > src.rec->nmoves) {
            rc =
                cli_usage_error(c, P_("--to-ply %llu: game %llu has %zu ply", "--to-ply %llu: game %llu has %zu plies",
                                   src.rec->nmoves),
                                (unsigned long long)ply, (unsigned long long)game, src.rec->nmoves);
            goto done;
        }
        rc = replay_show(c, &src, (size_t)ply);
    } else {
        rc = replay_loop(c, &src, 0);
    }
done:
    qk_pdn_free_all(recs, n);
    return rc;
}
