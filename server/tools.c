/*
 * tools: see tools.h.
 */
#include "tools.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "qk_rules.h"
#include "store/migrate.h"
#include "store/offline.h"
#include "store/pg.h"

static int usage(void)
{
    fprintf(stderr, "usage: qirkatd backup --db FILE OUT\n"
                    "       qirkatd check --db FILE\n"
                    "       qirkatd admin grant|revoke NAME --db FILE\n"
                    "       qirkatd admin log [--limit N] --db FILE\n"
                    "       qirkatd migrate --from FILE.db --db postgresql://...\n");
    return 2;
}

/* "--db FILE" and then want positional arguments into pos. */
static int args(int argc, char **argv, const char **db, const char **pos, int want)
{
    int got = 0;
    *db = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--db") == 0 && i + 1 < argc)
            *db = argv[++i];
        else if (argv[i][0] == '-' || got == want)
            return -1;
        else
            pos[got++] = argv[i];
    }
    return *db && got == want ? 0 : -1;
}

static int cmd_backup(int argc, char **argv)
{
    const char *db, *out;
    if (args(argc, argv, &db, &out, 1) != 0)
        return usage();
    if (store_pg_is_url(db)) {
        /* PostgreSQL has its own online tools (docs/scale.md "Backups"). */
        fprintf(stderr, "qirkatd backup: %s is PostgreSQL: use pg_dump -Fc (or pg_basebackup with "
                        "WAL archiving for point-in-time recovery)\n",
                db);
        return 2;
    }
    char err[512];
    int64_t pages = 0, ms = 0;
    if (offline_backup(db, out, &pages, &ms, err, sizeof err) != 0) {
        fprintf(stderr, "qirkatd backup: %s\n", err);
        return 1;
    }
    struct stat st;
    long long bytes = stat(out, &st) == 0 ? (long long)st.st_size : -1;
    printf("backup of %s written to %s: %lld pages, %lld bytes, snapshot held %lld ms\n", db, out,
           (long long)pages, bytes, (long long)ms);
    return 0;
}

typedef struct checker {
    int64_t games, moves, bad;
} checker;

static int replay_game(void *arg, const offline_game *g)
{
    checker *ck = arg;
    ck->games++;
    ck->moves += g->nmoves;
    qk_variant v;
    qk_pos p;
    const char *why = NULL;
    if (qk_variant_parse(g->variant, &v) != QK_OK) {
        printf("game %lld: unknown variant \"%s\"\n", (long long)g->id, g->variant);
        ck->bad++;
        return 0;
    }
    if (qk_pos_parse(&v, g->start, &p, &why) != QK_OK) {
        printf("game %lld: start \"%s\" is not a position: %s\n", (long long)g->id, g->start,
               why ? why : "");
        ck->bad++;
        return 0;
    }
    for (int64_t i = 0; i < g->nmoves; i++) {
        qk_move m;
        qk_undo u;
        if (g->plies[i] != i) {
            printf("game %lld: move %lld is stored at ply %lld\n", (long long)g->id,
                   (long long)i, (long long)g->plies[i]);
            ck->bad++;
            return 0;
        }
        if (qk_move_parse(&v, &p, g->moves[i], &m) != QK_OK) {
            printf("game %lld: ply %lld: \"%s\" is not a legal move\n", (long long)g->id,
                   (long long)i, g->moves[i]);
            ck->bad++;
            return 0;
        }
        qk_pos_make(&v, &p, &m, &u);
    }
    char now[512];
    if (qk_pos_format(&v, &p, now, sizeof now) < 0 || strcmp(now, g->position) != 0 ||
        g->ply != g->nmoves) {
        printf("game %lld: stored ply %lld and position \"%s\", the replay gives %lld and \"%s\"\n",
               (long long)g->id, (long long)g->ply, g->position, (long long)g->nmoves, now);
        ck->bad++;
        return 0;
    }
    qk_result res;
    qk_reason reason;
    bool over = qk_pos_status(&v, &p, &res, &reason);
    bool by_rules = strcmp(g->reason, "no_moves") == 0 || strcmp(g->reason, "no_pieces") == 0 ||
                    strcmp(g->reason, "move_limit") == 0 ||
                    strcmp(g->reason, "sultan_majority") == 0;
    if (strcmp(g->status, "finished") == 0 && by_rules &&
        (!over || strcmp(qk_reason_name(reason), g->reason) != 0 ||
         strcmp(qk_result_name(res) ? qk_result_name(res) : "", g->result) != 0)) {
        printf("game %lld: stored %s by %s, the rules %s\n", (long long)g->id, g->result,
               g->reason, over ? "end it otherwise" : "do not end it");
        ck->bad++;
    } else if (strcmp(g->status, "active") == 0 && over) {
        printf("game %lld: active, but the rules ended it (%s, %s)\n", (long long)g->id,
               qk_result_name(res) ? qk_result_name(res) : "?", qk_reason_name(reason));
        ck->bad++;
    }
    return 0;
}

static int cmd_check(int argc, char **argv)
{
    const char *db;
    if (args(argc, argv, &db, NULL, 0) != 0)
        return usage();
    char err[512] = "";
    int64_t problems = 0;
    checker ck = {0};
    /* On PostgreSQL the database checks itself (amcheck for its indexes);
     * what only qirkatd can check is that every game replays. */
    int rc = store_pg_is_url(db) ? migrate_pg_games(db, replay_game, &ck, err, sizeof err)
                                 : offline_check(db, stdout, &problems, replay_game, &ck, err,
                                                 sizeof err);
    if (rc != 0) {
        fprintf(stderr, "qirkatd check: %s\n", err);
        return 1;
    }
    printf("%s: %s; %lld games (%lld moves) replayed, %lld do not\n", db,
           problems ? "integrity or foreign-key problems above" : "integrity ok, foreign keys ok",
           (long long)ck.games, (long long)ck.moves, (long long)ck.bad);
    return problems || ck.bad ? 1 : 0;
}

/* ---- migrate ---------------------------------------------------------- */

static void print_table(void *arg, const char *table, int64_t sqlite_rows, int64_t pg_rows)
{
    (void)arg;
    printf("  %-22s %10lld rows in SQLite, %10lld in PostgreSQL%s\n", table, (long long)sqlite_rows,
           (long long)pg_rows, sqlite_rows == pg_rows ? "" : "  DIFFER");
}

static int cmd_migrate(int argc, char **argv)
{
    const char *from = NULL, *db = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--from") == 0 && i + 1 < argc)
            from = argv[++i];
        else if (strcmp(argv[i], "--db") == 0 && i + 1 < argc)
            db = argv[++i];
        else
            return usage();
    }
    if (!from || !db)
        return usage();
    /* As the server reads it (config.c, environment only): a target
     * created by an older release and left empty migrates on open too. */
    const char *past = getenv("QK_PG_MIGRATE_PAST_SESSIONS");
    store_pg_migrate_past_sessions(past && strcmp(past, "1") == 0);
    char err[1024] = "";
    migrate_stats st = {0};
    if (migrate_copy(from, db, print_table, NULL, &st, err, sizeof err) != 0) {
        fprintf(stderr, "qirkatd migrate: %s\n", err);
        return 1;
    }
    printf("copied %lld rows of %d tables from %s in %.1f s (the copy's transaction %.1f s, "
           "%.0f rows/s); every table's row count is the same on both sides\n",
           (long long)st.rows, st.tables, from, (double)st.total_ms / 1000,
           (double)st.copy_ms / 1000,
           st.copy_ms > 0 ? (double)st.rows * 1000 / (double)st.copy_ms : (double)st.rows);
    /* The rules read the copy, not the file: what the new server will
     * load is what is checked. */
    checker ck = {0};
    if (migrate_pg_games(db, replay_game, &ck, err, sizeof err) != 0) {
        fprintf(stderr, "qirkatd migrate: the replay: %s\n", err);
        return 1;
    }
    printf("%lld games (%lld moves) replayed from PostgreSQL, %lld do not%s\n", (long long)ck.games,
           (long long)ck.moves, (long long)ck.bad, ck.bad ? ": see above" : "");
    return ck.bad ? 1 : 0;
}

/* ---- admin ------------------------------------------------------------ */

static void print_entry(void *arg, const offline_admin_entry *e)
{
    (void)arg;
    time_t t = (time_t)(e->at / 1000);
    struct tm tm;
    char when[32] = "?";
    if (gmtime_r(&t, &tm))
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
    printf("%lld  %s UTC  %s  %s  %s%s%s\n", (long long)e->id, when, e->admin, e->action,
           e->target, e->reason[0] ? "  reason: " : "", e->reason);
}

static int cmd_admin(int argc, char **argv)
{
    if (argc < 2)
        return usage();
    const char *sub = argv[1];
    char err[512] = "";
    if (strcmp(sub, "grant") == 0 || strcmp(sub, "revoke") == 0) {
        const char *db, *name;
        if (args(argc - 1, argv + 1, &db, &name, 1) != 0)
            return usage();
        bool grant = strcmp(sub, "grant") == 0, changed = false;
        char user[OFFLINE_NAME_MAX + 1];
        int rc = store_pg_is_url(db)
                     ? pg_offline_admin_set(db, name, grant, &changed, user, err, sizeof err)
                     : offline_admin_set(db, name, grant, &changed, user, err, sizeof err);
        if (rc != 0) {
            fprintf(stderr, "qirkatd admin %s: %s\n", sub, err);
            return 1;
        }
        if (!changed)
            printf("%s %s an administrator: nothing changed\n", user,
                   grant ? "is already" : "is not");
        else
            printf("%s %s an administrator (logged as operator)\n", user,
                   grant ? "is now" : "is no longer");
        return 0;
    }
    if (strcmp(sub, "log") == 0) {
        long long limit = 50;
        char *rest[8];
        int nrest = 0;
        rest[nrest++] = argv[1];
        for (int i = 2; i < argc; i++) {
            if (strcmp(argv[i], "--limit") == 0 && i + 1 < argc) {
                char *end;
                limit = strtoll(argv[++i], &end, 10);
                if (*end || limit <= 0)
                    return usage();
            } else if (nrest < 8) {
                rest[nrest++] = argv[i];
            } else {
                return usage();
            }
        }
        const char *db;
        if (args(nrest, rest, &db, NULL, 0) != 0)
            return usage();
        int rc = store_pg_is_url(db)
                     ? pg_offline_admin_log(db, limit, print_entry, NULL, err, sizeof err)
                     : offline_admin_log(db, limit, print_entry, NULL, err, sizeof err);
        if (rc != 0) {
            fprintf(stderr, "qirkatd admin log: %s\n", err);
            return 1;
        }
        return 0;
    }
    return usage();
}

bool tools_is_command(const char *name)
{
    return strcmp(name, "backup") == 0 || strcmp(name, "check") == 0 ||
           strcmp(name, "admin") == 0 || strcmp(name, "migrate") == 0;
}

int tools_main(int argc, char **argv)
{
    if (strcmp(argv[0], "backup") == 0)
        return cmd_backup(argc, argv);
    if (strcmp(argv[0], "check") == 0)
        return cmd_check(argc, argv);
    if (strcmp(argv[0], "admin") == 0)
        return cmd_admin(argc, argv);
    if (strcmp(argv[0], "migrate") == 0)
        return cmd_migrate(argc, argv);
    return usage();
}
