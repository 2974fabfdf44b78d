// Wall avoidance per agent: the crowd_wall_def profiles, their API and table hooks. Only agents
// whose def differs from crowd_wall_def_default() hold a profile (crowds mostly share a few).
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

// Room for a def other than the default: the column (which changes nothing the world shows) and
// a profile.
static crowd_status reserve(crowd_world* w, const crowd_wall_def* d) {
    if (is_default(d)) return CROWD_OK;
    if (cs_world_hot_column(w, CS_HOT_WALL_PROFILE) != CROWD_OK) return CROWD_ERR_OUT_OF_MEMORY;
    return cs_profiles_reserve(w, &w->profiles[CS_PROF_WALL], 1);
}

crowd_status cs_wall_def_reserve(crowd_world* w, uint32_t idx, const crowd_wall_def* d) {
    (void)idx;
    return reserve(w, d);
}

void cs_walls_probe_time_update(crowd_world* w) {
    w->walls.probe_time =
        fmaxf(cs_walls_world_of(w)->look_ahead_max, crowd_wall_def_default().look_ahead);
}

void cs_wall_def_store(crowd_world* w, uint32_t idx, const crowd_wall_def* d) {
    cs_walls_world* ww = cs_walls_world_of(w);
    if (d->look_ahead > ww->look_ahead_max) ww->look_ahead_max = d->look_ahead;
    cs_walls_probe_time_update(w);
    const int s = w->slot_of[idx];
    uint32_t* prof = cs_hot_u32(w, CS_HOT_WALL_PROFILE);
    if (prof && prof[s]) cs_profiles_release(&w->profiles[CS_PROF_WALL], prof[s] - 1);
    if (is_default(d)) {
        if (prof) prof[s] = 0;
        return;
    }
    cs_hot_use(w, CS_HOT_WALL_PROFILE);
    prof[s] = cs_profiles_intern(&w->profiles[CS_PROF_WALL], d) + 1;
}

void cs_walls_def_default(crowd_agent_def* def) {
    def->walls = crowd_wall_def_default();
}

crowd_status cs_walls_check_def(const crowd_agent_def* def) {
    return cs_wall_def_check(&def->walls);
}

crowd_status cs_walls_add_reserve(crowd_world* w, const crowd_agent_def* def) {
    return reserve(w, &def->walls);
}

void cs_walls_add(crowd_world* w, uint32_t idx, int slot, const crowd_agent_def* def) {
    (void)slot;
    cs_wall_def_store(w, idx, &def->walls);
}

// A wall def is part of an agent's def, like a goal: room for one per agent, so adding up to
// `agents` agents allocates nothing.
crowd_status cs_walls_world_reserve(crowd_world* w, int agents) {
    if (cs_world_hot_column(w, CS_HOT_WALL_PROFILE) != CROWD_OK) return CROWD_ERR_OUT_OF_MEMORY;
    return cs_profiles_reserve_users(w, &w->profiles[CS_PROF_WALL], (uint32_t)agents);
}

void cs_walls_get_def(const crowd_world* w, uint32_t idx, crowd_agent_def* out) {
    const crowd_wall_def* d = cs_wall_def_at(w, w->slot_of[idx]);
    out->walls = d ? *d : crowd_wall_def_default();
}

uint64_t cs_walls_hash(const crowd_world* w, uint32_t idx, uint64_t h) {
    const crowd_wall_def* d = cs_wall_def_at(w, w->slot_of[idx]);
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
