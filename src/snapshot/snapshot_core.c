// The core snapshot sections: world settings, handle index table and agents.
//
//  'WRLD' (32 bytes): f32 dt, f32 cell_size, i32 threads (as requested, 0 = all cores),
//         i32 max_agents, i32 capacity, u16 world tag, u16 max_neighbors (0 = no cap; this
//         field was reserved as 0 before, so older snapshots load as uncapped), u64 tick.
//         The capacity is part of the state: it sets the spatial hash's bucket count, which
//         decides the order agents are sorted into and so the order neighbor sums are added in.
//  'INDX': u32 index_count, u32 free_count, u16 generation[index_count],
//         u32 free_list[free_count] (bottom of the LIFO stack first).
//  'AGNT': u32 count, then one 84-byte record per sorted slot, in slot order (the stable sort of
//         the next step starts from this order): u32 agent index, f32 px, py, vx, vy, hx, hy,
//         max_speed, max_force, separation radius, separation weight, u32 flags, u32 group,
//         f32 radius, u32 goal mode, f32 goal x, goal y, slow radius, goal weight, u64 user data.
#include <math.h>

#include "behaviors/goal/goal_internal.h"
#include "snapshot/snapshot_internal.h"

enum { AGENT_RECORD_SIZE = 84 };

// Flags a loaded agent may carry: those of the behaviors in the table, whose state their
// sections restore.
static uint32_t known_flags(void) {
    uint32_t f = 0;
    for (int b = 0; b < CS_BEH_COUNT; ++b) f |= cs_behaviors[b].flags;
    return f;
}

// ---- world settings -----------------------------------------------------------------------------

void cs_snap_save_world(const crowd_world* w, cs_snap_writer* out) {
    cs_snap_put_f32(out, w->dt);
    cs_snap_put_f32(out, w->cell_size);
    cs_snap_put_u32(out, (uint32_t)w->threads_requested);
    cs_snap_put_u32(out, (uint32_t)w->max_agents);
    cs_snap_put_u32(out, (uint32_t)w->capacity);
    cs_snap_put_u16(out, w->tag);
    cs_snap_put_u16(out, (uint16_t)w->max_neighbors);
    cs_snap_put_u64(out, w->tick);
}

crowd_status cs_snap_load_world(cs_snap_reader* in, const crowd_load_def* def, crowd_world** out) {
    crowd_world_def wd = crowd_world_def_default();
    wd.dt = cs_snap_get_f32(in);
    wd.cell_size = cs_snap_get_f32(in);
    const int32_t threads = (int32_t)cs_snap_get_u32(in);
    wd.max_agents = (int32_t)cs_snap_get_u32(in);
    wd.capacity = (int32_t)cs_snap_get_u32(in);
    wd.world_tag = cs_snap_get_u16(in);
    wd.max_neighbors = cs_snap_get_u16(in);
    const uint64_t tick = cs_snap_get_u64(in);
    if (in->bad || in->left != 0 || wd.max_neighbors > CROWD_MAX_NEIGHBORS)
        return CROWD_ERR_SNAPSHOT_CORRUPT;
    // A world tag of 0 is never stored: a created world always has its tag resolved.
    if (!(wd.dt > 0.0f && wd.dt <= CROWD_MAX_DT) ||
        !(wd.cell_size >= CROWD_MIN_CELL_SIZE && wd.cell_size <= CROWD_MAX_DISTANCE) ||
        threads < 0 || threads > CROWD_MAX_THREADS || wd.max_agents < 1 ||
        wd.max_agents > (1 << 30) || wd.capacity < 1 || wd.capacity > wd.max_agents ||
        wd.world_tag == 0)
        return CROWD_ERR_SNAPSHOT_CORRUPT;
    if (wd.capacity > def->max_capacity) return CROWD_ERR_SNAPSHOT_TOO_LARGE;
    wd.threads = def->threads < 0 ? threads : def->threads;
    wd.alloc = def->alloc;
    wd.free = def->free;
    wd.alloc_user = def->alloc_user;
    crowd_status st = crowd_world_create(&wd, out);
    if (st != CROWD_OK) return st == CROWD_ERR_OUT_OF_MEMORY ? st : CROWD_ERR_SNAPSHOT_CORRUPT;
    (*out)->tick = tick;
    return CROWD_OK;
}

// ---- handle index table -------------------------------------------------------------------------

uint64_t cs_snap_index_size(const crowd_world* w) {
    return 8 + 2 * (uint64_t)w->index_count + 4 * (uint64_t)w->free_count;
}

// Writes the n free indices from `top` down the stack in the opposite order, the bottom one first.
// The stack is linked from the top down only: the lower half of the span goes first, then the
// upper one, down to spans short enough to reverse in a local array (n log n steps, no memory).
static void put_free_reversed(const crowd_world* w, cs_snap_writer* out, int32_t top, int n) {
    enum { SHORT = 64 };
    if (n <= SHORT) {
        int32_t idx[SHORT];
        for (int i = 0; i < n; ++i, top = cs_free_below(w->slot_of[top])) idx[i] = top;
        for (int i = n - 1; i >= 0; --i) cs_snap_put_u32(out, (uint32_t)idx[i]);
        return;
    }
    const int upper = n / 2;
    int32_t lower = top;
    for (int i = 0; i < upper; ++i) lower = cs_free_below(w->slot_of[lower]);
    put_free_reversed(w, out, lower, n - upper);
    put_free_reversed(w, out, top, upper);
}

void cs_snap_save_index(const crowd_world* w, cs_snap_writer* out) {
    cs_snap_put_u32(out, (uint32_t)w->index_count);
    cs_snap_put_u32(out, (uint32_t)w->free_count);
    for (int i = 0; i < w->index_count; ++i) cs_snap_put_u16(out, w->generation[i]);
    put_free_reversed(w, out, w->free_top, w->free_count);
}

crowd_status cs_snap_load_index(crowd_world* w, cs_snap_reader* in) {
    const uint32_t index_count = cs_snap_get_u32(in), free_count = cs_snap_get_u32(in);
    if (in->bad || index_count > (uint32_t)w->capacity || free_count > index_count ||
        in->left != 2 * (size_t)index_count + 4 * (size_t)free_count)
        return CROWD_ERR_SNAPSHOT_CORRUPT;
    for (uint32_t i = 0; i < index_count; ++i) {
        w->generation[i] = cs_snap_get_u16(in);
        cs_records_reset(w, i);
    }
    for (uint32_t i = 0; i < free_count; ++i) {
        const uint32_t idx = cs_snap_get_u32(in);
        if (idx >= index_count || cs_index_free(w, idx)) return CROWD_ERR_SNAPSHOT_CORRUPT;
        cs_free_push(w, idx);
    }
    w->index_count = (int)index_count;
    return CROWD_OK;
}

// ---- agents -------------------------------------------------------------------------------------

uint64_t cs_snap_agents_size(const crowd_world* w) {
    return 4 + (uint64_t)AGENT_RECORD_SIZE * (uint64_t)w->count;
}

void cs_snap_save_agents(const crowd_world* w, cs_snap_writer* out) {
    const cs_columns* c = &w->cur;
    cs_snap_put_u32(out, (uint32_t)w->count);
    for (int s = 0; s < w->count; ++s) {
        const uint32_t idx = c->id[s];
        const crowd_goal* rec = cs_goal_of(w, idx);
        const crowd_goal g = rec ? *rec : crowd_goal_default();
        cs_snap_put_u32(out, idx);
        cs_snap_put_f32(out, c->px[s]);
        cs_snap_put_f32(out, c->py[s]);
        cs_snap_put_f32(out, c->vx[s]);
        cs_snap_put_f32(out, c->vy[s]);
        cs_snap_put_f32(out, c->hx[s]);
        cs_snap_put_f32(out, c->hy[s]);
        cs_snap_put_f32(out, c->max_speed[s]);
        cs_snap_put_f32(out, c->max_force[s]);
        cs_snap_put_f32(out, c->sep_radius[s]);
        cs_snap_put_f32(out, c->sep_weight[s]);
        cs_snap_put_u32(out, c->flags[s]);
        cs_snap_put_u32(out, c->group[s]);
        cs_snap_put_f32(out, w->radius[idx]);
        cs_snap_put_u32(out, (uint32_t)g.mode);
        cs_snap_put_f32(out, g.target.x);
        cs_snap_put_f32(out, g.target.y);
        cs_snap_put_f32(out, g.slow_radius);
        cs_snap_put_f32(out, g.weight);
        cs_snap_put_u64(out, cs_user_data(w, idx));
    }
}

// Within (0, hi] and [0, hi]: the valid ranges of crowd/base.h (NaN fails every comparison).
static bool positive(float v, float hi) {
    return v > 0.0f && v <= hi;
}
static bool non_negative(float v, float hi) {
    return v >= 0.0f && v <= hi;
}
static bool within(float v, float bound) {
    return v >= -bound && v <= bound;
}

// The same rules crowd_agent_add and the setters apply, plus the flag invariant the passes rely
// on (the goal bit mirrors the goal mode; the queue section checks the queue bit).
static bool valid_agent(const crowd_world* w, int s, uint32_t idx, const crowd_goal* g) {
    const cs_columns* c = &w->cur;
    for (int k = 0; k < CS_KIN_COUNT; ++k) {
        const float* col = c->col[k];
        if (!isfinite(col[s])) return false;
    }
    const uint32_t f = c->flags[s];
    const bool has_goal = g->mode != CROWD_GOAL_NONE;
    return within(c->px[s], CROWD_MAX_COORD) && within(c->py[s], CROWD_MAX_COORD) &&
           within(c->vx[s], CROWD_MAX_SPEED) && within(c->vy[s], CROWD_MAX_SPEED) &&
           c->max_speed[s] >= CROWD_MIN_SPEED && c->max_speed[s] <= CROWD_MAX_SPEED &&
           positive(c->max_force[s], CROWD_MAX_FORCE) &&
           positive(c->sep_radius[s], CROWD_MAX_DISTANCE) &&
           non_negative(c->sep_weight[s], CROWD_MAX_WEIGHT) &&
           positive(w->radius[idx], CROWD_MAX_DISTANCE) &&
           (unsigned)g->mode < CROWD_GOAL_MODE_COUNT && within(g->target.x, CROWD_MAX_COORD) &&
           within(g->target.y, CROWD_MAX_COORD) && positive(g->slow_radius, CROWD_MAX_DISTANCE) &&
           non_negative(g->weight, CROWD_MAX_WEIGHT) && (f & ~known_flags()) == 0 &&
           has_goal == ((f & CS_FLAG_GOAL) != 0) && c->group[s] <= (uint32_t)w->index_count;
}

crowd_status cs_snap_load_agents(crowd_world* w, cs_snap_reader* in) {
    const uint32_t count = cs_snap_get_u32(in);
    // Indices neither live nor free are retired (see crowd_agent_remove), checked below.
    if (in->bad || count > (uint32_t)(w->index_count - w->free_count) ||
        in->left != (size_t)count * AGENT_RECORD_SIZE)
        return CROWD_ERR_SNAPSHOT_CORRUPT;
    cs_columns* c = &w->cur;
    for (uint32_t k = 0; k < count; ++k) {
        const int s = (int)k;
        const uint32_t idx = cs_snap_get_u32(in);
        // Free indices carry a free stack link, indices already placed their slot: both are
        // corrupt.
        if (idx >= (uint32_t)w->index_count || w->slot_of[idx] != -1)
            return CROWD_ERR_SNAPSHOT_CORRUPT;
        w->slot_of[idx] = s;
        c->id[s] = idx;
        c->px[s] = cs_snap_get_f32(in);
        c->py[s] = cs_snap_get_f32(in);
        c->vx[s] = cs_snap_get_f32(in);
        c->vy[s] = cs_snap_get_f32(in);
        c->hx[s] = cs_snap_get_f32(in);
        c->hy[s] = cs_snap_get_f32(in);
        c->max_speed[s] = cs_snap_get_f32(in);
        c->max_force[s] = cs_snap_get_f32(in);
        c->sep_radius[s] = cs_snap_get_f32(in);
        c->sep_weight[s] = cs_snap_get_f32(in);
        c->flags[s] = cs_snap_get_u32(in);
        c->group[s] = cs_snap_get_u32(in);
        w->radius[idx] = cs_snap_get_f32(in);
        if (w->radius[idx] > w->radius_max) w->radius_max = w->radius[idx];
        crowd_goal g;
        const uint32_t mode = cs_snap_get_u32(in);
        g.mode = mode < CROWD_GOAL_MODE_COUNT ? (crowd_goal_mode)mode : CROWD_GOAL_MODE_COUNT;
        g.target.x = cs_snap_get_f32(in);
        g.target.y = cs_snap_get_f32(in);
        g.slow_radius = cs_snap_get_f32(in);
        g.weight = cs_snap_get_f32(in);
        const uint64_t user = cs_snap_get_u64(in);
        if (user && cs_world_user_data(w) != CROWD_OK) return CROWD_ERR_OUT_OF_MEMORY;
        cs_set_user_data(w, idx, user);
        if (in->bad || !valid_agent(w, s, idx, &g)) return CROWD_ERR_SNAPSHOT_CORRUPT;
        // A default goal is stored as no record and saved back as the same default.
        const crowd_status st = cs_goal_reserve(w, idx, &g);
        if (st != CROWD_OK) return st;
        cs_goal_store(w, idx, &g);
        w->count = s + 1;
    }
    // No index was seen twice, so every index is live, free or else retired, which only an index
    // at its last generation can be.
    for (int i = 0; i < w->index_count; ++i)
        if (w->slot_of[i] == -1 && w->generation[i] != CS_GENERATION_LAST)
            return CROWD_ERR_SNAPSHOT_CORRUPT;
    return CROWD_OK;
}
