/*
 * Records (issue 11, docs/protocol.md `export`, `import`, `games`
 * search): every recorded game of ../shared/data/games played through the
 * server by two clients, exported and imported back (same moves, result
 * and final position); an illegal move at ply N and every kind of bad
 * record refused with its code, record, line or ply and nothing stored
 * (t_db_dump before and after); export paging with the cursor; the search
 * filters; live clocks as {[%clk h:mm:ss]} comments.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helper.h"

static tsrv S;

static void teardown(void)
{
    tsrv_stop(&S);
    tsrv_cleanup(&S);
}

static void setup(void)
{
    /* Hundreds of games from one account: no per-account challenge rate. */
    tsrv_start(&S, "QK_TEST_CLOCK=1764478800000 QK_RATE_LIMIT=off QK_CHALLENGE_RATE=off");
}

TestSuite(records, .init = setup, .fini = teardown, .timeout = 300);

/* Send req (owned, deleted here; "id" added) and return its answer. */
static cJSON *rpc_obj(tconn *c, cJSON *req)
{
    long long id = c->next_id++;
    cJSON_AddNumberToObject(req, "id", (double)id);
    char *s = cJSON_PrintUnformatted(req);
    cJSON_Delete(req);
    size_t n = strlen(s);
    s = realloc(s, n + 2);
    s[n] = '\n';
    cr_assert(tc_send(c, s, n + 1), "connection closed");
    free(s);
    cJSON *r = tc_reply(c, T_TIMEOUT_MS);
    cr_assert_not_null(r, "no answer");
    cr_assert_eq((long long)cJSON_GetObjectItem(r, "id")->valuedouble, id);
    return r;
}

static cJSON *import(tconn *c, const char *pdn)
{
    cJSON *q = cJSON_CreateObject();
    cJSON_AddStringToObject(q, "type", "import");
    cJSON_AddStringToObject(q, "pdn", pdn);
    return rpc_obj(c, q);
}

/* The PDN text of game gid (export with game), malloc'd. */
static char *export_pdn(tconn *c, long long gid)
{
    cJSON *r = tc_rpc(c, "{\"type\":\"export\",\"game\":%lld}", gid);
    t_ok(r, "export game");
    const cJSON *recs = t_obj(r, "records");
    cr_assert_eq(cJSON_GetArraySize(recs), 1);
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(r, "next")));
    char *s = strdup(cJSON_GetArrayItem(recs, 0)->valuestring);
    cJSON_Delete(r);
    return s;
}

static cJSON *get_game(tconn *c, long long gid)
{
    cJSON *r = tc_rpc(c, "{\"type\":\"game\",\"game\":%lld}", gid);
    t_ok(r, "game");
    cJSON *g = cJSON_DetachItemFromObject(r, "game");
    cJSON_Delete(r);
    return g;
}

static bool json_eq(const cJSON *a, const cJSON *b)
{
    return cJSON_Compare(a, b, true);
}

/* Send req (owned, deleted here) with the next id, without waiting. */
static void send_obj(tconn *c, cJSON *req)
{
    cJSON_AddNumberToObject(req, "id", (double)c->next_id++);
    char *s = cJSON_PrintUnformatted(req);
    cJSON_Delete(req);
    size_t n = strlen(s);
    s = realloc(s, n + 2);
    s[n] = '\n';
    cr_assert(tc_send(c, s, n + 1), "connection closed");
    free(s);
}

#define GAMES_PER_FILE 30

/* One variant's recorded games, all played at once: each round sends the
 * next move of every unfinished game, from the side to move's connection,
 * and then reads the answers, so the moves of a round share one commit
 * (the server's group commit) instead of one fsync per move. */
static void play_all(tconn *w, tconn *b, const char *variant, cJSON **recs, int n, long long *gids)
{
    bool white[GAMES_PER_FILE];
    for (int i = 0; i < n; i++) {
        cJSON *r = tc_rpc(w,
                          "{\"type\":\"challenge\",\"to\":\"bo\",\"variant\":\"%s\","
                          "\"color\":\"white\",\"position\":\"%s\"}",
                          variant, t_str(recs[i], "start"));
        t_ok(r, "challenge");
        long long cid = t_int(t_obj(r, "challenge"), "id");
        cJSON_Delete(r);
        r = tc_rpc(b, "{\"type\":\"accept\",\"challenge\":%lld}", cid);
        t_ok(r, "accept");
        gids[i] = t_int(t_obj(r, "game"), "id");
        white[i] = strcmp(t_str(t_obj(r, "game"), "turn"), "white") == 0;
        cJSON_Delete(r);
    }
    for (int ply = 0;; ply++) {
        int sent[GAMES_PER_FILE], ns = 0;
        for (int i = 0; i < n; i++) {
            const cJSON *moves = t_obj(recs[i], "moves");
            if (ply >= cJSON_GetArraySize(moves))
                continue;
            cJSON *q = cJSON_CreateObject();
            cJSON_AddStringToObject(q, "type", "move");
            cJSON_AddNumberToObject(q, "game", (double)gids[i]);
            cJSON_AddNumberToObject(q, "ply", ply);
            cJSON_AddStringToObject(q, "move", cJSON_GetArrayItem(moves, ply)->valuestring);
            send_obj(white[i] ? w : b, q);
            sent[ns++] = i;
        }
        if (ns == 0)
            break;
        /* Answers come in request order on each connection. */
        for (int k = 0; k < ns; k++) {
            int i = sent[k];
            cJSON *r = tc_reply(white[i] ? w : b, T_TIMEOUT_MS);
            cr_assert_not_null(r, "no answer to ply %d of game %lld", ply, gids[i]);
            t_ok(r, "move");
            cr_assert_eq(t_int(t_obj(r, "game"), "id"), gids[i], "answers in order");
            cJSON_Delete(r);
        }
        for (int k = 0; k < ns; k++)
            white[sent[k]] = !white[sent[k]];
        tc_drop_events(w);
        tc_drop_events(b);
    }
}

static const char *const variants[] = {
    "alquerque",
    "alquerque-traditional",
    "alquerque-brainking",
    "alquerque-stoep-short",
    "alquerque-stoep-long",
    "alquerkonane-8x8",
    "alquerkonane-6x4",
    "alquerkonane-5x5",
};

/* Concatenate the records of an export page, checking it holds gids. */
static char *export_page(tconn *c, const char *variant, long long after, int n,
                         const long long *gids)
{
    cJSON *r = tc_rpc(c, "{\"type\":\"export\",\"variant\":\"%s\",\"after\":%lld}", variant, after);
    t_ok(r, "export of a variant");
    const cJSON *recs = t_obj(r, "records"), *it;
    cr_assert_eq(cJSON_GetArraySize(recs), n);
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(r, "next")), "a page of 30 is not full");
    size_t len = 1, k = 0;
    cJSON_ArrayForEach(it, recs) len += strlen(it->valuestring);
    char *all = malloc(len);
    all[0] = '\0';
    cJSON_ArrayForEach(it, recs)
    {
        cr_assert(k < (size_t)n);
        strcat(all, it->valuestring);
        k++;
    }
    (void)gids;
    cJSON_Delete(r);
    return all;
}

Test(records, every_recorded_game_round_trips)
{
    tconn *w = tc_open(S.port), *b = tc_open(S.port);
    t_register(w, "al");
    t_register(b, "bo");
    static char line[1 << 20];
    int games = 0;
    long long last = 0;
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        char path[512];
        snprintf(path, sizeof path, "%s/data/games/%s.jsonl", t_shared(), variants[v]);
        FILE *f = fopen(path, "r");
        cr_assert_not_null(f, "cannot open %s", path);
        cJSON *recs[GAMES_PER_FILE];
        long long gids[GAMES_PER_FILE];
        int n = 0;
        while (n < GAMES_PER_FILE && fgets(line, sizeof line, f))
            cr_assert_not_null(recs[n++] = cJSON_Parse(line));
        fclose(f);
        cr_assert_eq(n, GAMES_PER_FILE);
        play_all(w, b, variants[v], recs, n, gids);
        for (int i = 0; i < n; i++) {
            cJSON *g = get_game(w, gids[i]);
            cr_assert_str_eq(t_str(g, "status"), "finished", "%s game %d", variants[v], i);
            cr_assert_str_eq(t_str(g, "result"), t_str(recs[i], "result"));
            cr_assert_str_eq(t_str(g, "position"), t_str(recs[i], "final"));
            cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(g, "imported")));
            cJSON_Delete(g);
        }
        /* The variant's 30 games are one export page, and one import. */
        char *pdn = export_page(w, variants[v], last, n, gids);
        last = gids[n - 1];
        cJSON *r = import(b, pdn);
        t_ok(r, variants[v]);
        const cJSON *ids = t_obj(r, "games");
        cr_assert_eq(cJSON_GetArraySize(ids), n);
        for (int i = 0; i < n; i++) {
            long long iid = (long long)cJSON_GetArrayItem(ids, i)->valuedouble;
            cJSON *ig = get_game(w, iid);
            cr_assert(json_eq(t_obj(ig, "moves"), t_obj(recs[i], "moves")), "moves of %s %d",
                      variants[v], i);
            cr_assert_str_eq(t_str(ig, "result"), t_str(recs[i], "result"));
            cr_assert_str_eq(t_str(ig, "reason"), t_str(recs[i], "reason"));
            cr_assert_str_eq(t_str(ig, "position"), t_str(recs[i], "final"));
            cr_assert_str_eq(t_str(ig, "start"), t_str(recs[i], "start"));
            cr_assert_str_eq(t_str(ig, "white"), "al");
            cr_assert_str_eq(t_str(ig, "black"), "bo");
            cr_assert_str_eq(t_str(ig, "status"), "finished");
            cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(ig, "imported")));
            /* The imported game exports the same movetext again. */
            char *one = export_pdn(w, gids[i]), *again = export_pdn(w, iid);
            const char *m1 = strstr(one, "\n\n"), *m2 = strstr(again, "\n\n");
            cr_assert(m1 && m2);
            cr_assert_str_eq(m2, m1, "movetext of the re-export");
            free(one);
            free(again);
            cJSON_Delete(ig);
            cJSON_Delete(recs[i]);
            games++;
        }
        cJSON_Delete(r);
        free(pdn);
    }
    cr_assert_eq(games, 240);
    tc_close(w);
    tc_close(b);
}

/* The first moves of data/games/alquerque.jsonl game 0, with ply 2 made
 * illegal: after d2-c3 b4xd2 White must capture (e1xc3), and b2-c3 is a
 * step. */
static const char ok_game[] = "[Event \"one\"]\n[White \"Ann\"]\n[Black \"Ben\"]\n"
                              "[Result \"*\"]\n\n1. d2-c3 b4xd2 2. e1xc3 *\n\n";
static const char bad_game[] = "[Event \"two\"]\n[White \"Ann\"]\n[Black \"Ben\"]\n"
                               "[Result \"*\"]\n\n1. d2-c3 b4xd2 2. b2-c3 *\n\n";

Test(records, illegal_move_rejects_the_whole_import)
{
    tconn *c = tc_open(S.port);
    t_register(c, "al");
    char *before = t_db_dump(S.db);
    char text[1024];
    snprintf(text, sizeof text, "%s%s", ok_game, bad_game);
    cJSON *r = import(c, text);
    t_err(r, "illegal_move", "ply 2 of record 1");
    cr_assert_eq(t_int(r, "record"), 1);
    cr_assert_eq(t_int(r, "ply"), 2);
    cJSON_Delete(r);
    r = import(c, bad_game);
    t_err(r, "illegal_move", "ply 2 of record 0");
    cr_assert_eq(t_int(r, "record"), 0);
    cr_assert_eq(t_int(r, "ply"), 2);
    cJSON_Delete(r);
    char *after = t_db_dump(S.db);
    cr_assert_str_eq(after, before, "nothing stored");
    free(before);
    free(after);
    /* The valid record alone is stored: an unfinished record is aborted,
     * never active, and never among the importer's active games. */
    r = import(c, ok_game);
    t_ok(r, "import");
    long long id = (long long)cJSON_GetArrayItem(t_obj(r, "games"), 0)->valuedouble;
    cJSON_Delete(r);
    cJSON *g = get_game(c, id);
    cr_assert_str_eq(t_str(g, "status"), "aborted");
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(g, "result")));
    cr_assert_str_eq(t_str(g, "white"), "Ann");
    cr_assert_str_eq(t_str(g, "black"), "Ben");
    cr_assert_eq(t_int(g, "ply"), 3);
    cJSON_Delete(g);
    r = tc_rpc(c, "{\"type\":\"move\",\"game\":%lld,\"move\":\"b4xd2\"}", id);
    t_err(r, "game_over", "an imported game is never played on");
    cJSON_Delete(r);
    r = tc_rpc(c, "{\"type\":\"games\",\"status\":\"active\"}");
    t_ok(r, "games");
    cr_assert_eq(cJSON_GetArraySize(t_obj(r, "games")), 0);
    cJSON_Delete(r);
    tc_close(c);
}

typedef struct bad_case {
    const char *what, *pdn;
    int line;
} bad_case;

Test(records, bad_records_are_bad_request_with_record_and_line)
{
    static const bad_case cases[] = {
        {"malformed tag", "[White \"Ann]\n\n1. d2-c3 *\n", 1},
        {"unknown variant", "[Event \"x\"]\n[Variant \"chess\"]\n\n1. e2-e4 *\n", 2},
        {"moves after the result", "[Result \"1-0\"]\n\n1. d2-c3 1-0 b4xd2\n", 3},
        {"FEN that does not parse", "[Variant \"alquerque\"]\n[FEN \"zzz\"]\n\n*\n", 2},
        {"result that contradicts the moves",
         "[Result \"0-1\"]\n[Termination \"no_moves\"]\n\n1. d2-c3 0-1\n", 1},
        {"name over 32 bytes", "[White \"Abcdefghijklmnopqrstuvwxyz Abcdefghijk\"]\n\n1. d2-c3 *\n",
         1},
    };
    tconn *c = tc_open(S.port);
    t_register(c, "al");
    char *before = t_db_dump(S.db);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[512];
        /* A valid record first: the bad one is record 1. */
        snprintf(text, sizeof text, "%s%s", ok_game, cases[i].pdn);
        int base = 7; /* lines of ok_game, blank ones included */
        cJSON *r = import(c, text);
        t_err(r, "bad_request", cases[i].what);
        cr_assert_eq(t_int(r, "record"), 1, "%s: record", cases[i].what);
        cr_assert_eq(t_int(r, "line"), base + cases[i].line, "%s: line (%s)", cases[i].what,
                     t_str(r, "message"));
        cJSON_Delete(r);
    }
    cJSON *r = import(c, "");
    t_err(r, "bad_request", "no game at all");
    cJSON_Delete(r);
    char *after = t_db_dump(S.db);
    cr_assert_str_eq(after, before, "nothing stored");
    free(before);
    free(after);
    tc_close(c);
}

Test(records, import_over_the_line_limit_is_refused_and_stores_nothing)
{
    /* Over TCP a request is one line of at most 64 KiB (docs/protocol.md
     * section 1), so a text over 1 MiB never reaches `import`: the line is
     * refused first, the connection closed, and nothing stored. */
    tconn *c = tc_open(S.port);
    t_register(c, "al");
    char *before = t_db_dump(S.db);
    size_t n = (1u << 20) + 2;
    char *big = malloc(n + 64);
    int off = sprintf(big, "{\"type\":\"import\",\"id\":1,\"pdn\":\"");
    memset(big + off, ' ', n);
    memcpy(big + off + n, "\"}\n", 3);
    tc_send(c, big, (size_t)off + n + 3);
    free(big);
    cJSON *r = tc_read(c, T_TIMEOUT_MS);
    cr_assert_not_null(r);
    cr_assert_str_eq(t_str(r, "code"), "line_too_long");
    cJSON_Delete(r);
    cr_assert(tc_wait_eof(c, T_TIMEOUT_MS));
    char *after = t_db_dump(S.db);
    cr_assert_str_eq(after, before, "nothing stored");
    free(before);
    free(after);
    tc_close(c);
}

/* n games between a and b, each resigned at once by the given side. */
static void resigned_games(tconn *a, tconn *b, int n, long long *ids)
{
    for (int i = 0; i < n; i++) {
        ids[i] = t_new_game(a, b, "bo", "alquerque");
        cJSON *r = tc_rpc(i % 2 ? b : a, "{\"type\":\"resign\",\"game\":%lld}", ids[i]);
        t_ok(r, "resign");
        cJSON_Delete(r);
    }
    tc_drop_events(a);
    tc_drop_events(b);
}

Test(records, export_pages_through_next)
{
    tconn *a = tc_open(S.port), *b = tc_open(S.port);
    t_register(a, "al");
    t_register(b, "bo");
    long long ids[5];
    resigned_games(a, b, 5, ids);
    long long after = 0, seen = 0;
    int pages = 0;
    for (;;) {
        cJSON *r = after ? tc_rpc(a,
                                  "{\"type\":\"export\",\"format\":\"json\",\"limit\":2,"
                                  "\"after\":%lld}",
                                  after)
                         : tc_rpc(a, "{\"type\":\"export\",\"format\":\"json\",\"limit\":2}");
        t_ok(r, "export page");
        const cJSON *recs = t_obj(r, "records"), *g;
        cJSON_ArrayForEach(g, recs)
        {
            cr_assert_eq(t_int(g, "id"), ids[seen], "oldest first");
            cr_assert_str_eq(t_str(g, "reason"), "resign");
            seen++;
        }
        pages++;
        const cJSON *next = cJSON_GetObjectItem(r, "next");
        if (cJSON_IsNull(next)) {
            cr_assert_eq(cJSON_GetArraySize(recs), 1, "the last page");
            cJSON_Delete(r);
            break;
        }
        cr_assert_eq(cJSON_GetArraySize(recs), 2);
        after = (long long)next->valuedouble;
        cr_assert_eq(after, ids[seen - 1]);
        cJSON_Delete(r);
    }
    cr_assert_eq(seen, 5);
    cr_assert_eq(pages, 3);
    /* PDN pages: the tags of the contract. */
    cJSON *r = tc_rpc(a, "{\"type\":\"export\",\"result\":\"black\"}");
    t_ok(r, "export black wins");
    const cJSON *recs = t_obj(r, "records");
    cr_assert_eq(cJSON_GetArraySize(recs), 3); /* games 0, 2, 4: White resigned */
    const char *pdn = cJSON_GetArrayItem(recs, 0)->valuestring;
    static const char *const tags[] = {"[Event \"Qirkat casual game\"]",
                                       "[Site \"Qirkat\"]",
                                       "[Date \"2025.11.30\"]",
                                       "[Round \"-\"]",
                                       "[White \"al\"]",
                                       "[Black \"bo\"]",
                                       "[Result \"0-1\"]",
                                       "[Variant \"alquerque\"]",
                                       "[TimeControl \"-\"]",
                                       "[Termination \"resign\"]",
                                       "[PlyCount \"0\"]"};
    for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++)
        cr_assert_not_null(strstr(pdn, tags[i]), "%s in %s", tags[i], pdn);
    cr_assert_null(strstr(pdn, "[FEN"), "no FEN for the variant's start");
    cJSON_Delete(r);
    r = tc_rpc(a, "{\"type\":\"export\",\"format\":\"xml\"}");
    t_err(r, "bad_request", "format");
    cJSON_Delete(r);
    r = tc_rpc(a, "{\"type\":\"export\",\"limit\":101}");
    t_err(r, "bad_request", "limit");
    cJSON_Delete(r);
    r = tc_rpc(a, "{\"type\":\"export\",\"game\":999}");
    t_err(r, "not_found", "no such game");
    cJSON_Delete(r);
    tc_close(a);
    tc_close(b);
}

Test(records, games_search_filters)
{
    tconn *a = tc_open(S.port), *b = tc_open(S.port);
    t_register(a, "al");
    t_register(b, "bo");
    long long ids[4];
    resigned_games(a, b, 4, ids);
    cJSON *r = import(a, ok_game);
    t_ok(r, "import");
    long long imp = (long long)cJSON_GetArrayItem(t_obj(r, "games"), 0)->valuedouble;
    cJSON_Delete(r);
    r = tc_rpc(a, "{\"type\":\"games\",\"result\":\"white\"}");
    t_ok(r, "result white");
    const cJSON *gs = t_obj(r, "games");
    cr_assert_eq(cJSON_GetArraySize(gs), 2);
    cr_assert_eq(t_int(cJSON_GetArrayItem(gs, 0), "id"), ids[3], "newest first");
    cr_assert_eq(t_int(cJSON_GetArrayItem(gs, 1), "id"), ids[1]);
    cJSON_Delete(r);
    r = tc_rpc(a, "{\"type\":\"games\",\"imported\":true}");
    t_ok(r, "imported");
    cr_assert_eq(cJSON_GetArraySize(t_obj(r, "games")), 1);
    cr_assert_eq(t_int(cJSON_GetArrayItem(t_obj(r, "games"), 0), "id"), imp);
    cJSON_Delete(r);
    r = tc_rpc(a, "{\"type\":\"games\",\"imported\":false,\"limit\":3}");
    t_ok(r, "played, first page");
    cr_assert_eq(cJSON_GetArraySize(t_obj(r, "games")), 3);
    long long next = t_int(r, "next");
    cr_assert_eq(next, ids[1]);
    cJSON_Delete(r);
    r = tc_rpc(a, "{\"type\":\"games\",\"imported\":false,\"limit\":3,\"after\":%lld}", next);
    t_ok(r, "played, second page");
    cr_assert_eq(cJSON_GetArraySize(t_obj(r, "games")), 1);
    cr_assert_eq(t_int(cJSON_GetArrayItem(t_obj(r, "games"), 0), "id"), ids[0]);
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(r, "next")));
    cJSON_Delete(r);
    /* The test clock stands at 1764478800000: every game was created then. */
    r = tc_rpc(a, "{\"type\":\"games\",\"since\":1764478800000,\"until\":1764478800000}");
    t_ok(r, "since until");
    cr_assert_eq(cJSON_GetArraySize(t_obj(r, "games")), 5);
    cJSON_Delete(r);
    r = tc_rpc(a, "{\"type\":\"games\",\"since\":1764478800001}");
    t_ok(r, "since later");
    cr_assert_eq(cJSON_GetArraySize(t_obj(r, "games")), 0);
    cJSON_Delete(r);
    r = tc_rpc(a, "{\"type\":\"games\",\"tournament\":1}");
    t_ok(r, "no tournaments yet");
    cr_assert_eq(cJSON_GetArraySize(t_obj(r, "games")), 0);
    cJSON_Delete(r);
    r = tc_rpc(a, "{\"type\":\"games\",\"result\":\"win\"}");
    t_err(r, "bad_request", "result word");
    cJSON_Delete(r);
    r = tc_rpc(a, "{\"type\":\"games\",\"since\":5,\"until\":4}");
    t_err(r, "bad_request", "until before since");
    cJSON_Delete(r);
    /* Imported games never count as played: bo's games hold none. */
    r = tc_rpc(b, "{\"type\":\"games\"}");
    t_ok(r, "bo's games");
    cr_assert_eq(cJSON_GetArraySize(t_obj(r, "games")), 4);
    cJSON_Delete(r);
    tc_close(a);
    tc_close(b);
}

Test(records, live_clocks_are_clock_comments)
{
    tconn *a = tc_open(S.port), *b = tc_open(S.port);
    t_register(a, "al");
    t_register(b, "bo");
    cJSON *r = tc_rpc(a, "{\"type\":\"challenge\",\"to\":\"bo\",\"color\":\"white\","
                         "\"time_control\":{\"kind\":\"live\",\"initial_s\":300,"
                         "\"increment_s\":5}}");
    t_ok(r, "challenge");
    long long cid = t_int(t_obj(r, "challenge"), "id");
    cJSON_Delete(r);
    r = tc_rpc(b, "{\"type\":\"accept\",\"challenge\":%lld}", cid);
    long long gid = t_int(t_obj(r, "game"), "id");
    cJSON_Delete(r);
    static const char *const mv[] = {"d2-c3", "b4xd2", "e1xc3"};
    for (int i = 0; i < 3; i++) {
        r = tc_rpc(i % 2 ? b : a, "{\"type\":\"move\",\"game\":%lld,\"move\":\"%s\"}", gid, mv[i]);
        t_ok(r, mv[i]);
        cJSON_Delete(r);
    }
    /* The test clock does not move: each move earns the increment only. */
    char *pdn = export_pdn(a, gid);
    cr_assert_not_null(strstr(pdn, "[TimeControl \"300+5\"]"), "%s", pdn);
    cr_assert_not_null(strstr(pdn, "1. d2-c3 {[%clk 0:05:05]} b4xd2 {[%clk 0:05:05]} 2. e1xc3 "
                                   "{[%clk 0:05:10]} *"),
                       "%s", pdn);
    cr_assert_not_null(strstr(pdn, "[Result \"*\"]"));
    free(pdn);
    tc_close(a);
    tc_close(b);
}
