/*
 * events: see events.h. The game layer's one way out to the sink.
 */
#include "game/events.h"

#include "game/games.h"
#include "util/log.h"

void events_send(gsvc *s, const char *name, cJSON *ev, events_to to)
{
    if (!ev) {
        log_error("out of memory: %s event dropped", name);
        return;
    }
    if (s->sink.deliver)
        s->sink.deliver(s->sink.ctx, name, ev, &to);
    cJSON_Delete(ev);
}

void events_to_game(gsvc *s, const game *g, const char *name, cJSON *ev)
{
    events_send(s, name, ev,
                (events_to){{g->white.id, g->black.id}, g->id, false, g->priv});
}

void events_to_players(gsvc *s, const game *g, const char *name, cJSON *ev)
{
    events_send(s, name, ev, (events_to){{g->white.id, g->black.id}, 0, false, false});
}

void events_to_user(gsvc *s, int64_t user_id, const char *name, cJSON *ev)
{
    events_send(s, name, ev, (events_to){{user_id, 0}, 0, false, false});
}
