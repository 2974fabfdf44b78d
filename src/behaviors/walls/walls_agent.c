// Wall avoidance per agent: the crowd_wall_def records and their API. Only agents whose def
// differs from crowd_wall_def_default() hold a record.
#include <math.h>
#include <string.h>

#include "core/internal.h"

crowd_wall_def crowd_wall_def_default(void) {
    return (crowd_wall_def){.weight = 1.0f, .look_ahead = 1.0f};
}

crowd_status cs_wall_def_check(const crowd_wall_def* d) {
    if (!isfinite(d->weight) || !isfinite(d->look_ahead)) return CROWD_ERR_NOT_FINITE;
    if (d->weight < 0.0f) return CROWD_ERR_BAD_WEIGHT;
    if (d->look_ahead < 0.0f) return CROWD_ERR_OUT_OF_RANGE;
    return CROWD_OK;
}

// Compared bit for bit, so every def reads back exactly as it was set.
static bool is_default(const crowd_wall_def* d) {
    const crowd_wall_def z = crowd_wall_def_default();
    return memcmp(d, &z, sizeof z) == 0;
}

crowd_status cs_wall_def_reserve(crowd_world* w, uint32_t idx, const crowd_wall_def* d) {
    if (w->wall_rec[idx] >= 0 || is_default(d)) return CROWD_OK;
    return cs_pool_reserve(w, &w->wall_pool, 1);
}

void cs_wall_def_store(crowd_world* w, uint32_t idx, const crowd_wall_def* d) {
    if (d->look_ahead > w->look_ahead_max) w->look_ahead_max = d->look_ahead;
    if (is_default(d)) {
        cs_wall_def_release(w, idx);
        return;
    }
    int32_t* rec = &w->wall_rec[idx];
    if (*rec < 0) *rec = cs_pool_acquire(&w->wall_pool);
    *(crowd_wall_def*)cs_pool_at(&w->wall_pool, *rec) = *d;
}

void cs_wall_def_release(crowd_world* w, uint32_t idx) {
    int32_t* rec = &w->wall_rec[idx];
    if (*rec < 0) return;
    cs_pool_release(&w->wall_pool, *rec);
    *rec = -1;
}

crowd_wall_def cs_wall_def_get(const crowd_world* w, uint32_t idx) {
    const crowd_wall_def* d = cs_wall_def_of(w, idx);
    return d ? *d : crowd_wall_def_default();
}

crowd_status crowd_agent_set_walls(crowd_world* w, crowd_agent_id id, const crowd_wall_def* def) {
    int s;
    crowd_status st = cs_agent_slot(w, id, &s);
    if (st != CROWD_OK) return st;
    if (!def) return CROWD_ERR_NULL_ARGUMENT;
    st = cs_wall_def_check(def);
    const uint32_t idx = id.index1 - 1;
    if (st == CROWD_OK) st = cs_wall_def_reserve(w, idx, def);
    if (st != CROWD_OK) return st;
    cs_wall_def_store(w, idx, def);
    return CROWD_OK;
}

crowd_status crowd_agent_get_walls(const crowd_world* w, crowd_agent_id id, crowd_wall_def* def) {
    int s;
    crowd_status st = cs_agent_slot(w, id, &s);
    if (st != CROWD_OK) return st;
    if (!def) return CROWD_ERR_NULL_ARGUMENT;
    *def = cs_wall_def_get(w, id.index1 - 1);
    return CROWD_OK;
}
