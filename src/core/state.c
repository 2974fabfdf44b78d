// Reading the world's state out: bulk copies in handle order and the state hash.
#include "core/internal.h"

// Every agent in handle order: its index, generation, kinematic state and flags, then each
// behavior's state of it in table order; then, once the world has had obstacles, their slot count
// and every slot in index order: its generation, and for a live one its kind and points.
uint64_t crowd_world_state_hash(const crowd_world* w) {
    if (!w) return 0;
    uint64_t h = 0xcbf29ce484222325ull;
    h = cs_hash_word(h, (uint32_t)w->count);
    const cs_columns* c = &w->cur;
    for (int idx = 0; idx < w->index_count; ++idx) {
        const int32_t s = w->slot_of[idx];
        if (s < 0) continue;
        h = cs_hash_word(h, (uint32_t)idx);
        h = cs_hash_word(h, w->generation[idx]);
        h = cs_hash_float(h, c->px[s]);
        h = cs_hash_float(h, c->py[s]);
        h = cs_hash_float(h, c->vx[s]);
        h = cs_hash_float(h, c->vy[s]);
        h = cs_hash_float(h, c->hx[s]);
        h = cs_hash_float(h, c->hy[s]);
        h = cs_hash_word(h, c->flags[s]);
        for (int b = 0; b < CS_BEH_COUNT; ++b)
            if (cs_behaviors[b].hash) h = cs_behaviors[b].hash(w, (uint32_t)idx, h);
    }
    // A world that never had an obstacle hashes as it did before obstacles existed.
    const cs_walls* g = &w->walls;
    if (g->obs_used > 0) h = cs_hash_word(h, (uint32_t)g->obs_used);
    for (int32_t i = 0; i < g->obs_used; ++i) {
        const cs_obstacle* o = &g->obs[i];
        h = cs_hash_word(h, o->generation);
        if (!o->points) continue;
        h = cs_hash_word(h, o->kind);
        h = cs_hash_word(h, (uint32_t)o->count);
        for (int32_t k = 0; k < o->count; ++k) {
            h = cs_hash_float(h, o->points[k].x);
            h = cs_hash_float(h, o->points[k].y);
        }
    }
    return h;
}

crowd_status crowd_world_columns(const crowd_world* w, crowd_columns_view* out) {
    if (!w || !out) return CROWD_ERR_NULL_ARGUMENT;
    const cs_columns* c = &w->cur;
    *out = (crowd_columns_view){.count = w->count,
                                .x = c->px,
                                .y = c->py,
                                .vx = c->vx,
                                .vy = c->vy,
                                .hx = c->hx,
                                .hy = c->hy,
                                .id = c->id,
                                .epoch = w->columns_epoch};
    return CROWD_OK;
}

uint64_t crowd_world_columns_epoch(const crowd_world* w) {
    return w ? w->columns_epoch : 0;
}

crowd_status crowd_world_columns_handle(const crowd_world* w, uint32_t index, crowd_agent_id* out) {
    if (!w || !out) return CROWD_ERR_NULL_ARGUMENT;
    *out = (crowd_agent_id){0};
    if (index >= (uint32_t)w->index_count) return CROWD_ERR_FOREIGN_HANDLE;
    if (w->slot_of[index] < 0) return CROWD_ERR_STALE_HANDLE;
    *out = cs_agent_handle(w, index);
    return CROWD_OK;
}

crowd_status crowd_world_get_agents(const crowd_world* w, crowd_agent_id* ids,
                                    crowd_vec2* positions, crowd_vec2* velocities, int capacity,
                                    int* count) {
    if (!w || !count) return CROWD_ERR_NULL_ARGUMENT;
    if (capacity < w->count) {
        *count = w->count;
        return CROWD_ERR_BUFFER_TOO_SMALL;
    }
    const cs_columns* c = &w->cur;
    int k = 0;
    for (int idx = 0; idx < w->index_count; ++idx) {
        const int32_t s = w->slot_of[idx];
        if (s < 0) continue;
        if (ids) ids[k] = cs_agent_handle(w, (uint32_t)idx);
        if (positions) positions[k] = (crowd_vec2){c->px[s], c->py[s]};
        if (velocities) velocities[k] = (crowd_vec2){c->vx[s], c->vy[s]};
        ++k;
    }
    *count = k;
    return CROWD_OK;
}
