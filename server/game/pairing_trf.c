/*
 * pairing_trf: the TRF-16 writer, the parser of bbpPairings' output and the
 * optional external-pairer runner (see pairing.h). The writer lays every
 * line out in a space-filled buffer at the 1-based columns of the format
 * and trims trailing spaces, so column positions never depend on printf
 * widths lining up.
 */
#include "game/pairing.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int pairing_trf_points2(char result)
{
    switch (result) {
    case '1':
    case 'W':
    case '+':
    case 'U':
    case 'F':
        return 2;
    case '=':
    case 'D':
    case 'H':
        return 1;
    default:
        return 0;
    }
}

static bool valid_game(const pairing_trf_game *g)
{
    if (g->opponent < 0 || g->opponent > 9999)
        return false;
    if (g->opponent == 0)
        return g->colour == '-' && strchr("UFHZ", g->result) && g->result;
    if (g->colour != 'w' && g->colour != 'b' && g->colour != '-')
        return false;
    if (g->result == '+' || g->result == '-')
        return true;
    return g->colour != '-' && g->result && strchr("1=0WDL", g->result);
}

/* Copy text into line at 1-based column col, at most width bytes. */
static void put(char *line, int col, const char *text, int width)
{
    for (int i = 0; i < width && text[i]; i++)
        line[col - 1 + i] = text[i];
}

/* Right-aligned decimal in width columns. */
static void put_num(char *line, int col, int value, int width)
{
    char tmp[16];
    snprintf(tmp, sizeof tmp, "%*d", width, value);
    put(line, col, tmp, width);
}

typedef struct outbuf {
    char *buf;
    size_t size, len;
    bool full;
} outbuf;

static void emit(outbuf *o, const char *line, size_t n)
{
    while (n > 0 && line[n - 1] == ' ')
        n--;
    if (o->full || o->len + n + 2 > o->size) {
        o->full = true;
        return;
    }
    memcpy(o->buf + o->len, line, n);
    o->len += n;
    o->buf[o->len++] = '\n';
    o->buf[o->len] = '\0';
}

/* The name field (columns 15-47) is 33 characters, not bytes: readers such
 * as bbpPairings decode UTF-8 and count code points. Copies at most 33 code
 * points of name (control bytes become spaces) into dst and pads with
 * spaces to 33 characters. Returns the bytes written (at most 33 * 4). */
static size_t name_field(char *dst, const char *name)
{
    size_t n = 0;
    int chars = 0;
    for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
        bool lead = (*c & 0xC0) != 0x80;
        if (lead && chars == 33)
            break;
        chars += lead;
        dst[n++] = *c < 0x20 || *c == 0x7F ? ' ' : (char)*c;
    }
    for (; chars < 33; chars++)
        dst[n++] = ' ';
    return n;
}

int pairing_trf_write(const pairing_trf *t, char *buf, size_t size, size_t *len)
{
    if (!t || !buf || size == 0 || t->n < 0 || t->n_forbidden < 0 || (t->n > 0 && !t->players) ||
        (t->n_forbidden > 0 && !t->forbidden) || t->total_rounds < 0)
        return PAIRING_ERR_INVAL;
    if (t->n > PAIRING_MAX_PLAYERS || t->total_rounds > PAIRING_MAX_ROUNDS)
        return PAIRING_ERR_RANGE;
    outbuf o = {buf, size, 0, false};
    buf[0] = '\0';
    char line[100 + 10 * (PAIRING_MAX_ROUNDS + 1)];
    if (t->name) {
        memset(line, ' ', sizeof line);
        put(line, 1, "012", 3);
        put(line, 5, t->name, 80);
        emit(&o, line, 4 + strnlen(t->name, 80));
    }
    for (int i = 0; i < t->n; i++) {
        const pairing_trf_player *p = &t->players[i];
        if (p->number < 1 || p->number > 9999 || p->rating < 0 || p->rating > 9999 || p->rank < 0 ||
            p->rank > 9999 || p->rounds < 0)
            return PAIRING_ERR_INVAL;
        if (p->rounds > PAIRING_MAX_ROUNDS)
            return PAIRING_ERR_RANGE;
        int pts = 0;
        for (int r = 0; r < p->rounds; r++) {
            if (!valid_game(&p->games[r]))
                return PAIRING_ERR_INVAL;
            pts += pairing_trf_points2(p->games[r].result);
        }
        if (pts > 199)
            return PAIRING_ERR_RANGE; /* "99.9" is the widest the column holds */
        memset(line, ' ', sizeof line);
        put(line, 1, "001", 3);
        put_num(line, 5, p->number, 4);
        if (p->rating > 0)
            put_num(line, 49, p->rating, 4);
        char tmp[16];
        snprintf(tmp, sizeof tmp, "%4d.%d", pts / 2, (pts & 1) * 5);
        put(line, 81, tmp + strlen(tmp) - 4, 4);
        if (p->rank > 0)
            put_num(line, 86, p->rank, 4);
        int col = 92, r = 0;
        for (; r < p->rounds; r++, col += 10) {
            const pairing_trf_game *g = &p->games[r];
            if (g->opponent > 0)
                put_num(line, col, g->opponent, 4);
            else
                put(line, col, "0000", 4);
            line[col + 4] = g->colour;
            line[col + 6] = g->result;
        }
        if (p->withdrawn) {
            put(line, col, "0000 - Z", 8); /* not paired in the next round */
            col += 10;
        }
        /* splice the name, whose byte length may exceed its 33 columns */
        char out[sizeof line + 33 * 3];
        memcpy(out, line, 14);
        size_t k = 14 + name_field(out + 14, p->name ? p->name : "");
        memcpy(out + k, line + 47, (size_t)(col - 3 - 47));
        emit(&o, out, k + (size_t)(col - 3 - 47));
    }
    if (t->total_rounds > 0) {
        snprintf(line, sizeof line, "XXR %d", t->total_rounds);
        emit(&o, line, strlen(line));
    }
    /* bbpPairings cannot draw the first colour by lot: the top seed is
     * White in round 1, as in the built-in pairer. */
    emit(&o, "XXC white1", 10);
    for (int k = 0; k < t->n_forbidden; k++) {
        if (t->forbidden[k].a < 1 || t->forbidden[k].b < 1)
            return PAIRING_ERR_INVAL;
        snprintf(line, sizeof line, "XXP %d %d", t->forbidden[k].a, t->forbidden[k].b);
        emit(&o, line, strlen(line));
    }
    if (o.full)
        return PAIRING_ERR_NOSPACE;
    if (len)
        *len = o.len;
    return 0;
}

/* A decimal >= 0 at *p after blanks (not newlines); -1 if none. */
static long read_num(const char **p)
{
    const char *s = *p;
    while (*s == ' ' || *s == '\t' || *s == '\r')
        s++;
    if (*s < '0' || *s > '9')
        return -1;
    long v = 0;
    while (*s >= '0' && *s <= '9') {
        v = v * 10 + (*s++ - '0');
        if (v > 1000000)
            return -1;
    }
    *p = s;
    return v;
}

/* Skip blanks and one end of line; false if something else is there. */
static bool end_line(const char **p)
{
    const char *s = *p;
    while (*s == ' ' || *s == '\t' || *s == '\r')
        s++;
    if (*s == '\n')
        s++;
    else if (*s != '\0')
        return false;
    *p = s;
    return true;
}

int pairing_parse_output(const char *text, pairing_result *out)
{
    if (!text || !out)
        return PAIRING_ERR_INVAL;
    memset(out, 0, sizeof *out);
    const char *p = text;
    long count = read_num(&p);
    if (count < 0 || !end_line(&p))
        return PAIRING_ERR_PARSE;
    if (count > PAIRING_MAX_PLAYERS / 2 + 1)
        return PAIRING_ERR_RANGE;
    int seen[PAIRING_MAX_PLAYERS * 2], nseen = 0;
    for (long i = 0; i < count; i++) {
        long w = read_num(&p), b = read_num(&p);
        if (w < 1 || b < 0 || w > 9999 || b > 9999 || w == b || !end_line(&p))
            return PAIRING_ERR_PARSE;
        for (int k = 0; k < nseen; k++)
            if (seen[k] == w || seen[k] == b)
                return PAIRING_ERR_PARSE;
        seen[nseen++] = (int)w;
        if (b == 0) {
            if (out->bye)
                return PAIRING_ERR_PARSE;
            out->bye = (int)w;
            continue;
        }
        seen[nseen++] = (int)b;
        if (out->n_pairs >= PAIRING_MAX_PLAYERS / 2)
            return PAIRING_ERR_RANGE;
        out->pairs[out->n_pairs].white = (int)w;
        out->pairs[out->n_pairs].black = (int)b;
        out->n_pairs++;
    }
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
        p++;
    return *p ? PAIRING_ERR_PARSE : 0;
}

/* ---- OPTIONAL EXTERNAL PATH -------------------------------------------- */

static int write_all(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

/* waitpid with a deadline; kills the child after it. Exit status or -1. */
static int wait_child(pid_t pid, int timeout_ms)
{
    struct timespec tick = {0, 5 * 1000 * 1000};
    long waited = 0;
    for (;;) {
        int st;
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        if (r < 0 && errno != EINTR)
            return -1;
        if (waited >= timeout_ms) {
            kill(pid, SIGKILL);
            while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
                ;
            return -1;
        }
        nanosleep(&tick, NULL);
        waited += 5;
    }
}

int pairing_external(const char *program, const pairing_trf *t, const char *tmpdir, int timeout_ms,
                     pairing_result *out)
{
    if (!program || !t || !out || timeout_ms <= 0)
        return PAIRING_ERR_INVAL;
    static const size_t cap = 256 * 1024;
    char *text = malloc(cap);
    if (!text)
        return PAIRING_ERR_IO;
    size_t len;
    int rc = pairing_trf_write(t, text, cap, &len);
    if (rc)
        goto free_text;
    if (!tmpdir || !*tmpdir)
        tmpdir = getenv("TMPDIR");
    if (!tmpdir || !*tmpdir)
        tmpdir = "/tmp";
    char in[512], outp[512];
    if (snprintf(in, sizeof in, "%s/qk-trf-XXXXXX", tmpdir) >= (int)sizeof in ||
        snprintf(outp, sizeof outp, "%s/qk-pairs-XXXXXX", tmpdir) >= (int)sizeof outp) {
        rc = PAIRING_ERR_IO;
        goto free_text;
    }
    int fin = mkstemp(in);
    if (fin < 0) {
        rc = PAIRING_ERR_IO;
        goto free_text;
    }
    int wr = write_all(fin, text, len);
    if (close(fin) != 0 || wr != 0) {
        rc = PAIRING_ERR_IO;
        goto unlink_in;
    }
    int fout = mkstemp(outp);
    if (fout < 0) {
        rc = PAIRING_ERR_IO;
        goto unlink_in;
    }
    close(fout);

    pid_t pid = fork();
    if (pid < 0) {
        rc = PAIRING_ERR_EXEC;
        goto unlink_out;
    }
    if (pid == 0) {
        int dn = open("/dev/null", O_RDWR);
        if (dn >= 0) {
            dup2(dn, 0);
            dup2(dn, 1);
            dup2(dn, 2);
        }
        char *argv[] = {(char *)program, "--dutch", in, "-p", outp, NULL};
        execv(program, argv);
        _exit(127);
    }
    int status = wait_child(pid, timeout_ms);
    if (status == 1) {
        rc = PAIRING_ERR_NO_PAIRING;
        goto unlink_out;
    }
    if (status != 0) {
        rc = PAIRING_ERR_EXEC;
        goto unlink_out;
    }
    FILE *f = fopen(outp, "r");
    if (!f) {
        rc = PAIRING_ERR_IO;
        goto unlink_out;
    }
    size_t got = fread(text, 1, cap - 1, f);
    bool err = ferror(f) || !feof(f);
    fclose(f);
    if (err) {
        rc = PAIRING_ERR_PARSE;
        goto unlink_out;
    }
    text[got] = '\0';
    rc = pairing_parse_output(text, out);
unlink_out:
    unlink(outp);
unlink_in:
    unlink(in);
free_text:
    free(text);
    return rc;
}
