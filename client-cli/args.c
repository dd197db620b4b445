/*
 * args: see args.h. A linear scan of argv; option lookup is a linear scan
 * of a few specs, which is all a command line needs.
 */
#include "args.h"
#include "i18n.h"

#include <stdio.h>
#include <string.h>

#define MAX_UINT 9007199254740991ULL /* 2^53 - 1, PROTOCOL.md "Validation rules" */

int args_parse_uint(const char *s, uint64_t *out)
{
    if (!s || !*s)
        return -1;
    uint64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        v = v * 10 + (uint64_t)(*s - '0');
        if (v > MAX_UINT)
            return -1;
    }
    *out = v;
    return 0;
}

static const opt_spec *find(const opt_spec *const *lists, int nlists, const char *name, size_t len)
{
    for (int l = 0; l < nlists; l++)
        for (const opt_spec *o = lists[l]; o && o->kind != OPT_END; o++)
            if (strlen(o->name) == len && strncmp(o->name, name, len) == 0)
                return o;
    return NULL;
}

/* Record value for spec o, replacing an earlier occurrence. */
static int set_opt(cmd_args *out, const opt_spec *o, const char *value)
{
    for (int i = 0; i < out->nopts; i++)
        if (out->spec[i] == o) {
            out->val[i] = value;
            return 0;
        }
    if (out->nopts >= ARGS_MAX_OPTS)
        return -1;
    out->spec[out->nopts] = o;
    out->val[out->nopts++] = value;
    return 0;
}

int args_parse(const opt_spec *const *lists, int nlists, int argc, char **argv, cmd_args *out,
               char *err, size_t errn)
{
    memset(out, 0, sizeof *out);
    bool only_pos = false;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        bool is_opt = !only_pos && a[0] == '-' && a[1] != '\0';
        if (is_opt && strcmp(a, "--") == 0) {
            only_pos = true;
            continue;
        }
        if (!is_opt) {
            if (out->npos >= ARGS_MAX_POS) {
                snprintf(err, errn, _("too many arguments"));
                return -1;
            }
            out->pos[out->npos++] = a;
            continue;
        }
        /* "-h" and "-o" (export's --output) are the only short options:
         * everything else is spelled out. */
        bool short_ok = strcmp(a, "-h") == 0 || strcmp(a, "-o") == 0;
        const char *name = strcmp(a, "-h") == 0   ? "help"
                           : strcmp(a, "-o") == 0 ? "output"
                                                  : a + 2;
        if (a[1] != '-' && !short_ok) {
            snprintf(err, errn, _("unknown option %s"), a);
            return -1;
        }
        const char *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const opt_spec *o = find(lists, nlists, name, len);
        if (!o) {
            snprintf(err, errn, _("unknown option --%.*s"), (int)len, name);
            return -1;
        }
        const char *value;
        if (o->kind == OPT_FLAG) {
            if (eq) {
                snprintf(err, errn, _("option --%s takes no value"), o->name);
                return -1;
            }
            value = "";
        } else if (eq) {
            value = eq + 1;
        } else if (i + 1 < argc) {
            value = argv[++i];
        } else {
            snprintf(err, errn, _("option --%s needs a value (%s)"), o->name,
                     o->metavar ? o->metavar : _("VALUE"));
            return -1;
        }
        uint64_t dummy;
        if (o->kind == OPT_UINT && args_parse_uint(value, &dummy) < 0) {
            snprintf(err, errn, _("option --%s needs a whole number, not '%s'"), o->name, value);
            return -1;
        }
        if (o->kind == OPT_STR && !*value) {
            snprintf(err, errn, _("option --%s needs a non-empty value"), o->name);
            return -1;
        }
        if (set_opt(out, o, value) < 0) {
            snprintf(err, errn, _("too many options"));
            return -1;
        }
    }
    return 0;
}

const char *args_get(const cmd_args *a, const char *name)
{
    for (int i = 0; i < a->nopts; i++)
        if (strcmp(a->spec[i]->name, name) == 0)
            return a->val[i];
    return NULL;
}

bool args_has(const cmd_args *a, const char *name)
{
    return args_get(a, name) != NULL;
}

uint64_t args_uint(const cmd_args *a, const char *name, uint64_t dflt)
{
    uint64_t v;
    const char *s = args_get(a, name);
    if (!s || args_parse_uint(s, &v) < 0)
        return dflt;
    return v;
}
