// The walls section ('WALL', since format version 4): the obstacles with their handle generations
// and free list, and the agents' wall defs.
//
//   u32 slots                      obstacle slots ever issued
//   per slot: u16 generation, u16 state (0 free, else 0x100 | kind); when live: u32 count,
//             count x (f32 x, f32 y)
//   u32 free count, then the free list bottom to top (u32 each)
//   u32 K, then K x (u32 agent index, f32 weight, f32 look_ahead), agents with a def other than
//   crowd_wall_def_default(), by increasing index
//
// Canonical: the free list holds exactly the free slots. Loading checks
// every obstacle as crowd_obstacle_add does and refuses a snapshot with an agent overlapping a
// wall or inside a solid, which no live world holds.
#include "behaviors/walls/walls_internal.h"
#include "snapshot/snapshot_internal.h"

// Agents with a def other than the default.
static int wall_records(const crowd_world* w) {
    const uint32_t* prof = cs_hot_u32(w, CS_HOT_WALL_PROFILE);
    int n = 0;
    for (int s = 0; prof && s < w->count; ++s) n += prof[s] != 0;
    return n;
}

uint64_t cs_snap_walls_size(const crowd_world* w) {
    const cs_walls* g = &w->walls;
    uint64_t n = 4 + 4 + 4ull * (uint64_t)g->free_count + 4 + 12ull * (uint64_t)wall_records(w);
    for (int32_t i = 0; i < g->obs_used; ++i)
        n += 4 + (g->obs[i].points ? 4 + 8ull * (uint64_t)g->obs[i].count : 0);
    return n;
}

void cs_snap_save_walls(const crowd_world* w, cs_snap_writer* out) {
    const cs_walls* g = &w->walls;
    cs_snap_put_u32(out, (uint32_t)g->obs_used);
    for (int32_t i = 0; i < g->obs_used; ++i) {
        const cs_obstacle* o = &g->obs[i];
        cs_snap_put_u16(out, o->generation);
        cs_snap_put_u16(out, o->points ? (uint16_t)(0x100u | o->kind) : 0);
        if (!o->points) continue;
        cs_snap_put_u32(out, (uint32_t)o->count);
        for (int32_t k = 0; k < o->count; ++k) {
            cs_snap_put_f32(out, o->points[k].x);
            cs_snap_put_f32(out, o->points[k].y);
        }
    }
    cs_snap_put_u32(out, (uint32_t)g->free_count);
    for (int32_t i = 0; i < g->free_count; ++i) cs_snap_put_u32(out, (uint32_t)g->free_list[i]);
    cs_snap_put_u32(out, (uint32_t)wall_records(w));
    for (int idx = 0; idx < w->index_count; ++idx) {
        if (w->slot_of[idx] < 0) continue;
        const crowd_wall_def* d = cs_wall_def_at(w, w->slot_of[idx]);
        if (!d) continue;
        cs_snap_put_u32(out, (uint32_t)idx);
        cs_snap_put_f32(out, d->weight);
        cs_snap_put_f32(out, d->look_ahead);
    }
}

static crowd_status load_obstacle(crowd_world* w, cs_snap_reader* in, uint32_t oi, uint16_t gen,
                                  crowd_obstacle_kind kind) {
    const uint32_t n = cs_snap_get_u32(in);
    if (in->bad || n > CROWD_OBSTACLE_MAX_POINTS || (uint64_t)n * 8 > in->left)
        return CROWD_ERR_SNAPSHOT_CORRUPT;
    const size_t bytes = sizeof(crowd_vec2) * (n ? n : 1);
    crowd_vec2* pts = cs_alloc(w, bytes);
    if (!pts) return CROWD_ERR_OUT_OF_MEMORY;
    for (uint32_t k = 0; k < n; ++k) {
        pts[k].x = cs_snap_get_f32(in);
        pts[k].y = cs_snap_get_f32(in);
    }
    crowd_status st = cs_obstacle_check(w, kind, pts, (int)n);
    if (st == CROWD_ERR_OUT_OF_MEMORY) {
        cs_free(w, pts, bytes);
        return st;
    }
    if (st == CROWD_OK)
        st = cs_obstacle_insert(w, oi, gen, kind, pts, (int)n);
    else
        st = CROWD_ERR_SNAPSHOT_CORRUPT;
    cs_free(w, pts, bytes);
    return st;
}

crowd_status cs_snap_load_walls(crowd_world* w, cs_snap_reader* in) {
    cs_walls* g = &w->walls;
    const uint32_t slots = cs_snap_get_u32(in);
    if (in->bad || slots > CS_OBSTACLE_MAX_COUNT || (uint64_t)slots * 4 > in->left)
        return CROWD_ERR_SNAPSHOT_CORRUPT;
    crowd_status st = cs_walls_reserve_slots(w, g, (int32_t)slots);
    if (st != CROWD_OK) return st;
    uint32_t dead = 0;
    for (uint32_t i = 0; i < slots; ++i) {
        const uint16_t gen = cs_snap_get_u16(in), state = cs_snap_get_u16(in);
        if (in->bad) return CROWD_ERR_SNAPSHOT_CORRUPT;
        // Slots count as issued as they are read, so a failure leaves them for destroy to free.
        g->obs_used = (int32_t)i + 1;
        g->obs[i] = (cs_obstacle){.generation = gen};
        if (state == 0) {
            ++dead;
            continue;
        }
        const uint32_t kind = state & 0xffu;
        if (state >> 8 != 1 || kind >= CROWD_OBSTACLE_KIND_COUNT) return CROWD_ERR_SNAPSHOT_CORRUPT;
        st = load_obstacle(w, in, i, gen, (crowd_obstacle_kind)kind);
        if (st != CROWD_OK) return st;
    }
    const uint32_t free_count = cs_snap_get_u32(in);
    if (in->bad || free_count != dead) return CROWD_ERR_SNAPSHOT_CORRUPT;
    // A free slot's kind (0) marks it listed while the list is read.
    for (uint32_t i = 0; i < free_count; ++i) {
        const uint32_t oi = cs_snap_get_u32(in);
        if (in->bad || oi >= slots || g->obs[oi].points || g->obs[oi].kind)
            return CROWD_ERR_SNAPSHOT_CORRUPT;
        g->obs[oi].kind = 1;
        g->free_list[i] = (int32_t)oi;
    }
    for (uint32_t i = 0; i < free_count; ++i) g->obs[g->free_list[i]].kind = 0;
    g->free_count = (int32_t)free_count;

    // No agent may stand in a wall.
    for (int s = 0; s < w->count; ++s)
        if (cs_walls_blocked(w, w->cur.px[s], w->cur.py[s], w->radius[w->cur.id[s]]))
            return CROWD_ERR_SNAPSHOT_CORRUPT;

    const uint32_t k = cs_snap_get_u32(in);
    if (in->bad || (uint64_t)k * 12 != in->left) return CROWD_ERR_SNAPSHOT_CORRUPT;
    int64_t last = -1;
    for (uint32_t i = 0; i < k; ++i) {
        const uint32_t idx = cs_snap_get_u32(in);
        crowd_wall_def d;
        d.weight = cs_snap_get_f32(in);
        d.look_ahead = cs_snap_get_f32(in);
        if ((int64_t)idx <= last || idx >= (uint32_t)w->index_count || w->slot_of[idx] < 0)
            return CROWD_ERR_SNAPSHOT_CORRUPT;
        last = idx;
        const crowd_wall_def z = crowd_wall_def_default();
        if (cs_wall_def_check(&d) != CROWD_OK || memcmp(&d, &z, sizeof z) == 0)
            return CROWD_ERR_SNAPSHOT_CORRUPT;
        st = cs_wall_def_reserve(w, idx, &d);
        if (st != CROWD_OK) return st;
        cs_wall_def_store(w, idx, &d);
    }
    cs_walls_probe_time_update(w);
    return CROWD_OK;
}
