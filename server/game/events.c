/*
 * events: see events.h. The only place that turns an event object into an
 * outbuf and walks the registries (srv_event_*).
 */
#include "game/events.h"

#include "net/conn.h"
#include "game/games.h"
#include "util/log.h"

void events_send(srv *s, const char *name, cJSON *ev, events_to to)
{
    outbuf *ob = ev ? outbuf_from_json(ev) : NULL;
    cJSON_Delete(ev);
    if (!ob) {
        log_error("out of memory: %s event dropped", name);
        return;
    }
    srv_event_begin(s);
    for (int i = 0; i < 2; i++)
        if (to.users[i])
            srv_event_user(s, ob, to.users[i]);
    if (to.game_id)
        srv_event_game(s, ob, to.game_id);
    if (to.all)
        srv_event_all(s, ob);
    outbuf_unref(ob);
}

void events_to_game(srv *s, const game *g, const char *name, cJSON *ev)
{
    events_send(s, name, ev,
                (events_to){{g->row.white_id, g->row.black_id}, g->row.id, false});
}

void events_to_players(srv *s, const game *g, const char *name, cJSON *ev)
{
    events_send(s, name, ev, (events_to){{g->row.white_id, g->row.black_id}, 0, false});
}

void events_to_user(srv *s, int64_t user_id, const char *name, cJSON *ev)
{
    events_send(s, name, ev, (events_to){{user_id, 0}, 0, false});
}
