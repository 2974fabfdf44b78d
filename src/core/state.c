// Reading the world's state out: bulk copies in handle order and the state hash.
#include <string.h>

#include "core/internal.h"

static inline uint64_t hash_word(uint64_t h, uint32_t v) {
    h ^= v;
    h *= 0x100000001b3ull; // FNV-1a prime, applied per 32-bit word
    h ^= h >> 29;
    return h;
}

static inline uint32_t float_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

uint64_t crowd_world_state_hash(const crowd_world* w) {
    if (!w) return 0;
    uint64_t h = 0xcbf29ce484222325ull;
    h = hash_word(h, (uint32_t)w->count);
    const cs_columns* c = &w->cur;
    for (int idx = 0; idx < w->index_count; ++idx) {
        const int32_t s = w->slot_of[idx];
        if (s < 0) continue;
        h = hash_word(h, (uint32_t)idx);
        h = hash_word(h, w->generation[idx]);
        h = hash_word(h, float_bits(c->px[s]));
        h = hash_word(h, float_bits(c->py[s]));
        h = hash_word(h, float_bits(c->vx[s]));
        h = hash_word(h, float_bits(c->vy[s]));
        h = hash_word(h, float_bits(c->hx[s]));
        h = hash_word(h, float_bits(c->hy[s]));
        h = hash_word(h, c->flags[s]);
        if (c->flags[s] & CS_FLAG_PATH) {
            const cs_path_agent* a = &cs_path_of(w, (uint32_t)idx)->agent;
            h = hash_word(h, (uint32_t)a->cursor.state);
            h = hash_word(h, (uint32_t)a->cursor.index);
            h = hash_word(h, (uint32_t)a->cursor.direction);
            h = hash_word(h, (uint32_t)a->cursor.segment);
            h = hash_word(h, float_bits(a->lost_dist));
        }
    }
    return h;
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
