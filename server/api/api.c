/*
 * api: see api.h.
 */
#include "api/api.h"

#include <string.h>

void api_reply(api *a, conn *c, const cJSON *id, const cJSON *msg)
{
    conn_send_json(c, msg,
                   CONN_MSG_REPLY | (batch_open(a->svc->batch) ? CONN_MSG_TXN : CONN_MSG_AFTER), id);
}

void api_reply_now(api *a, conn *c, const cJSON *id, const cJSON *msg)
{
    (void)a;
    conn_send_json(c, msg, CONN_MSG_REPLY, id);
}

void api_init(api *a, uv_loop_t *loop, net *n, gsvc *svc, rate_cfg rate, int max_per_account)
{
    memset(a, 0, sizeof *a);
    a->loop = loop;
    a->net = n;
    a->svc = svc;
    a->rate = rate;
    a->max_per_account = max_per_account > 0 ? max_per_account : API_MAX_CONNS_PER_ACCOUNT;
    a->challenge_rate = (rate_window){RATE_CHALLENGES_COUNT, RATE_CHALLENGES_SECONDS, false};
    if (!a->rate.off && a->rate.burst == 0) {
        a->rate.burst = RATE_DEFAULT_BURST;
        a->rate.per_s = RATE_DEFAULT_PER_S;
    }
    reg_init(&a->users);
    reg_init(&a->subs);
    a->held_tail = &a->held;
}

void api_stop(api *a)
{
    a->stopping = true;
}

void api_free(api *a)
{
    reg_free(&a->users);
    reg_free(&a->subs);
}
