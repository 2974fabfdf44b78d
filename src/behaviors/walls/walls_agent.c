// Wall avoidance per agent: the crowd_wall_def records, their API and table hooks. Only agents
// whose def differs from crowd_wall_def_default() hold a record.
#include <math.h>
#include <string.h>

#include "behaviors/walls/walls_internal.h"

crowd_wall_def crowd_wall_def_default(void) {
    return (crowd_wall_def){.weight = 1.0f, .look_ahead = 1.0f};
}

crowd_status cs_wall_def_check(const crowd_wall_def* d) {
    if (!isfinite(d->weight) || !isfinite(d->look_ahead)) return CROWD_ERR_NOT_FINITE;
    if (d->weight < 0.0f) return CROWD_ERR_BAD_WEIGHT;
    if (d->look_ahead < 0.0f || d->weight > CROWD_MAX_WEIGHT || d->look_ahead > CROWD_MAX_TIME)
        return CROWD_ERR_OUT_OF_RANGE;
    return CROWD_OK;
}

// Compared bit for bit, so every def reads back exactly as it was set.
static bool is_default(const crowd_wall_def* d) {
    const crowd_wall_def z = crowd_wall_def_default();
    return memcmp(d, &z, sizeof z) == 0;
}

crowd_status cs_wall_def_reserve(crowd_world* w, uint32_t idx, const crowd_wall_def* d) {
    if (cs_rec_num(w, CS_REC_WALL, idx) >= 0 || is_default(d)) return CROWD_OK;
    return cs_pool_reserve(w, &w->pools[CS_REC_WALL], 1);
}

void cs_walls_on_remove(crowd_world* w, uint32_t idx) {
    if (cs_rec_num(w, CS_REC_WALL, idx) < 0) return;
    int32_t* rec = &w->rec_of[CS_REC_WALL][idx];
    cs_pool_release(&w->pools[CS_REC_WALL], *rec);
    *rec = -1;
}

void cs_walls_probe_time_update(crowd_world* w) {
    w->walls.probe_time =
        fmaxf(cs_walls_world_of(w)->look_ahead_max, crowd_wall_def_default().look_ahead);
}

void cs_wall_def_store(crowd_world* w, uint32_t idx, const crowd_wall_def* d) {
    cs_walls_world* ww = cs_walls_world_of(w);
    if (d->look_ahead > ww->look_ahead_max) ww->look_ahead_max = d->look_ahead;
    cs_walls_probe_time_update(w);
    if (is_default(d)) {
        cs_walls_on_remove(w, idx);
        return;
    }
    int32_t* rec = &w->rec_of[CS_REC_WALL][idx];
    if (*rec < 0) *rec = cs_pool_acquire(&w->pools[CS_REC_WALL]);
    *(crowd_wall_def*)cs_pool_at(&w->pools[CS_REC_WALL], *rec) = *d;
}

void cs_walls_def_default(crowd_agent_def* def) {
    def->walls = crowd_wall_def_default();
}

crowd_status cs_walls_check_def(const crowd_agent_def* def) {
    return cs_wall_def_check(&def->walls);
}

crowd_status cs_walls_add_reserve(crowd_world* w, const crowd_agent_def* def) {
    return is_default(&def->walls) ? CROWD_OK : cs_pool_reserve(w, &w->pools[CS_REC_WALL], 1);
}

void cs_walls_add(crowd_world* w, uint32_t idx, int slot, const crowd_agent_def* def) {
    (void)slot;
    cs_wall_def_store(w, idx, &def->walls);
}

// A wall def is part of an agent's def, like a goal: room for one per agent, so adding up to
// `agents` agents allocates nothing.
crowd_status cs_walls_world_reserve(crowd_world* w, int agents) {
    cs_pool* p = &w->pools[CS_REC_WALL];
    return agents > p->live ? cs_pool_reserve(w, p, agents - p->live) : CROWD_OK;
}

void cs_walls_get_def(const crowd_world* w, uint32_t idx, crowd_agent_def* out) {
    const crowd_wall_def* d = cs_wall_def_of(w, idx);
    out->walls = d ? *d : crowd_wall_def_default();
}

uint64_t cs_walls_hash(const crowd_world* w, uint32_t idx, uint64_t h) {
    const crowd_wall_def* d = cs_wall_def_of(w, idx);
    if (!d) return h;
    h = cs_hash_float(h, d->weight);
    return cs_hash_float(h, d->look_ahead);
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
    crowd_agent_def tmp;
    cs_walls_get_def(w, id.index1 - 1, &tmp);
    *def = tmp.walls;
    return CROWD_OK;
}
