// The core snapshot sections: world settings, handle index table, exit sets and agents.
//
//  'WRLD' (60 bytes): f32 dt, f32 cell_size, i32 threads (as requested, 0 = all cores),
//         i32 max_agents, i32 capacity, u16 world tag, u16 max_neighbors (0 = no cap; this
//         field was reserved as 0 before, so older snapshots load as uncapped), u64 tick, then
//         (since version 5) the navigation def: u32 enable (0 / 1), f32 cell_size, f32 clearance,
//         u64 budget, u64 max_cells. Version 3 and 4 files end after the tick (32 bytes) and load
//         with crowd_nav_def_default() with navigation off: their agents steered straight, and
//         keep doing so.
//         The capacity is the sorted slots' (the world had one capacity for slots and agent
//         indices before, at least index_count; it loads as the slot capacity all the same, and
//         the index arrays grow to index_count as the 'INDX' section loads). It is part of the
//         state: it sets the spatial hash's bucket count, which decides the order agents are
//         sorted into and so, in the layout's fallbacks (docs/distributed.md), the order
//         neighbor sums are added in.
//  'INDX': u32 index_count, u32 free_count, u16 generation[index_count],
//         u32 free_list[free_count] (bottom of the LIFO stack first).
//  'EXIT' (since version 5): u32 slots (exit set slots ever issued), then per slot u16 generation,
//         u16 live (0 / 1) and, when live, u32 count and count x (f32 x, f32 y). A free slot keeps
//         the generation its next set gets (UINT16_MAX: retired). The sets' users are not
//         stored: the goals that name them count them again as the agents load.
//  'AGNT': u32 count, then one 100-byte record per sorted slot (96 bytes in version 5, 84 before),
//         in slot
//         order (the stable sort of the next step starts from this order): u32 agent index, f32 px,
//         py, vx, vy, hx, hy, max_speed, max_force, separation radius, separation weight, u32
//         flags, u32 group, f32 radius, u32 goal mode, f32 goal x, goal y, slow radius, goal
//         weight, u64 user data, then (since version 5) u32 goal route, u32 exit set index1, u32
//         exit set generation (0 / 0 for none; the handle's world tag is the world's), then
//         (since version 7) u32 goal form. Older records load with CROWD_ROUTE_FIELD and no exit
//         set (the world has navigation off), and before version 7 with CROWD_GOAL_FORM_LITERAL.
#include <math.h>

#include "core/range.h"
#include "snapshot/snapshot_internal.h"

enum { AGENT_RECORD_SIZE = 100, AGENT_RECORD_SIZE_V5 = 96, AGENT_RECORD_SIZE_V3 = 84 };

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
    cs_snap_put_u32(out, (uint32_t)w->slot_capacity);
    cs_snap_put_u16(out, w->tag);
    cs_snap_put_u16(out, (uint16_t)w->max_neighbors);
    cs_snap_put_u64(out, w->tick);
    const crowd_nav_def* nav = &w->nav.def;
    cs_snap_put_u32(out, nav->enable ? 1u : 0u);
    cs_snap_put_f32(out, nav->cell_size);
    cs_snap_put_f32(out, nav->clearance);
    cs_snap_put_u64(out, (uint64_t)nav->budget);
    cs_snap_put_u64(out, (uint64_t)nav->max_cells);
}

// The navigation def of a version 5 world section (the world creation checks its ranges).
static crowd_status load_nav_def(cs_snap_reader* in, crowd_nav_def* nav) {
    if (in->version < 5) {
        // Saved before navigation: its agents steered straight, and go on doing so.
        *nav = crowd_nav_def_default();
        nav->enable = false;
        return CROWD_OK;
    }
    const uint32_t enable = cs_snap_get_u32(in);
    nav->enable = enable != 0;
    nav->cell_size = cs_snap_get_f32(in);
    nav->clearance = cs_snap_get_f32(in);
    const uint64_t budget = cs_snap_get_u64(in);
    nav->budget = (size_t)budget;
    nav->max_cells = (int64_t)cs_snap_get_u64(in);
    if (in->bad || enable > 1 || cs_nav_check_def(nav) != CROWD_OK)
        return CROWD_ERR_SNAPSHOT_CORRUPT;
    // A budget this build cannot hold (a 32-bit size_t) would not save back the same.
    return budget != (uint64_t)nav->budget ? CROWD_ERR_SNAPSHOT_TOO_LARGE : CROWD_OK;
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
    if (in->bad || wd.max_neighbors > CROWD_MAX_NEIGHBORS) return CROWD_ERR_SNAPSHOT_CORRUPT;
    crowd_status st = load_nav_def(in, &wd.nav);
    if (st != CROWD_OK) return st;
    if (in->left != 0) return CROWD_ERR_SNAPSHOT_CORRUPT;
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
    st = crowd_world_create(&wd, out);
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
    if (in->bad || index_count > (uint32_t)w->max_agents || free_count > index_count ||
        in->left != 2 * (size_t)index_count + 4 * (size_t)free_count)
        return CROWD_ERR_SNAPSHOT_CORRUPT;
    // The index arrays are storage too: more indices than the load allows is a file too large,
    // however small its slot capacity.
    if (in->max_capacity > 0 && index_count > (uint64_t)in->max_capacity)
        return CROWD_ERR_SNAPSHOT_TOO_LARGE;
    const crowd_status st = cs_world_grow(w, w->slot_capacity, (int)index_count, NULL, NULL);
    if (st != CROWD_OK) return st;
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

// ---- exit sets ----------------------------------------------------------------------------------

uint64_t cs_snap_exits_size(const crowd_world* w) {
    const cs_nav* nav = &w->nav;
    uint64_t n = 4;
    for (int32_t i = 0; i < nav->exits_used; ++i)
        n += 4 + (nav->exits[i].points ? 4 + 8 * (uint64_t)nav->exits[i].count : 0);
    return n;
}

void cs_snap_save_exits(const crowd_world* w, cs_snap_writer* out) {
    const cs_nav* nav = &w->nav;
    cs_snap_put_u32(out, (uint32_t)nav->exits_used);
    for (int32_t i = 0; i < nav->exits_used; ++i) {
        const cs_nav_exits* e = &nav->exits[i];
        cs_snap_put_u16(out, e->generation);
        cs_snap_put_u16(out, e->points != NULL);
        if (!e->points) continue;
        cs_snap_put_u32(out, (uint32_t)e->count);
        for (int32_t k = 0; k < e->count; ++k) {
            cs_snap_put_f32(out, e->points[k].x);
            cs_snap_put_f32(out, e->points[k].y);
        }
    }
}

// The checks of crowd_exits_create.
static bool valid_exit_point(crowd_vec2 p) {
    return isfinite(p.x) && isfinite(p.y) && cs_range_point(p) == CROWD_OK;
}

crowd_status cs_snap_load_exits(crowd_world* w, cs_snap_reader* in) {
    cs_nav* nav = &w->nav;
    const uint32_t slots = cs_snap_get_u32(in);
    // Every slot takes at least 4 bytes.
    if (in->bad || slots > in->left / 4) return CROWD_ERR_SNAPSHOT_CORRUPT;
    if (slots == 0) return CROWD_OK;
    nav->exits = cs_alloc(w, (size_t)slots * sizeof *nav->exits);
    if (!nav->exits) return CROWD_ERR_OUT_OF_MEMORY;
    memset(nav->exits, 0, (size_t)slots * sizeof *nav->exits);
    nav->exits_cap = (int32_t)slots;
    for (uint32_t i = 0; i < slots; ++i) {
        cs_nav_exits* e = &nav->exits[i];
        // Slots count as issued as they are read, so a failure leaves their points for destroy.
        nav->exits_used = (int32_t)i + 1;
        e->generation = cs_snap_get_u16(in);
        const uint16_t live = cs_snap_get_u16(in);
        if (in->bad || live > 1) return CROWD_ERR_SNAPSHOT_CORRUPT;
        if (!live) continue;
        // A retired slot (the last generation) never takes a set.
        const uint32_t count = cs_snap_get_u32(in);
        if (in->bad || e->generation == UINT16_MAX || count < 1 || count > CROWD_EXITS_MAX_POINTS ||
            count > in->left / 8)
            return CROWD_ERR_SNAPSHOT_CORRUPT;
        e->points = cs_alloc(w, (size_t)count * sizeof *e->points);
        if (!e->points) return CROWD_ERR_OUT_OF_MEMORY;
        e->count = (int32_t)count;
        for (uint32_t k = 0; k < count; ++k) {
            e->points[k].x = cs_snap_get_f32(in);
            e->points[k].y = cs_snap_get_f32(in);
            if (!valid_exit_point(e->points[k])) return CROWD_ERR_SNAPSHOT_CORRUPT;
        }
    }
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
        crowd_agent_def def;
        cs_agent_def_of(w, idx, s, &def); // the goal is the def's, read through its behavior
        const crowd_goal g = def.goal;
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
        cs_snap_put_u32(out, (uint32_t)g.route);
        cs_snap_put_u32(out, g.exits.index1);
        cs_snap_put_u32(out, g.exits.index1 ? g.exits.generation : 0u);
        cs_snap_put_u32(out, (uint32_t)g.form);
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
           (unsigned)g->mode < CROWD_GOAL_MODE_COUNT && (unsigned)g->route < CROWD_ROUTE_COUNT &&
           (unsigned)g->form < CROWD_GOAL_FORM_COUNT &&
           !(g->exits.index1 && g->mode == CROWD_GOAL_FLEE) &&
           within(g->target.x, CROWD_MAX_COORD) && within(g->target.y, CROWD_MAX_COORD) &&
           positive(g->slow_radius, CROWD_MAX_DISTANCE) &&
           non_negative(g->weight, CROWD_MAX_WEIGHT) && (f & ~known_flags()) == 0 &&
           has_goal == ((f & CS_FLAG_GOAL) != 0) && c->group[s] <= (uint32_t)w->index_count;
}

// The goal's route and exit set (version 5 on) and form (version 7 on); an older record's goal is
// routed (the world has navigation off) with no exit set, and walks the spec's form. False for a
// form save would not write back.
static bool load_route(const crowd_world* w, cs_snap_reader* in, crowd_goal* g) {
    g->route = CROWD_ROUTE_FIELD;
    g->exits = (crowd_exits_id){0, 0, 0};
    // Before version 7 every goal walked the spec's form; one of mode NONE walks no form at all
    // and keeps the default, so that a default goal stays the default (no profile, no hash).
    g->form = g->mode == CROWD_GOAL_NONE ? CROWD_GOAL_PEDESTRIAN : CROWD_GOAL_FORM_LITERAL;
    if (in->version < 5) return true;
    const uint32_t route = cs_snap_get_u32(in);
    g->route = route < CROWD_ROUTE_COUNT ? (crowd_route)route : CROWD_ROUTE_COUNT;
    const uint32_t index1 = cs_snap_get_u32(in), generation = cs_snap_get_u32(in);
    if (generation > UINT16_MAX || (index1 == 0 && generation != 0)) return false;
    if (index1) g->exits = (crowd_exits_id){index1, (uint16_t)generation, w->tag};
    if (in->version < 7) return true;
    const uint32_t form = cs_snap_get_u32(in);
    g->form = form < CROWD_GOAL_FORM_COUNT ? (crowd_goal_form)form : CROWD_GOAL_FORM_COUNT;
    return true;
}

crowd_status cs_snap_load_agents(crowd_world* w, cs_snap_reader* in) {
    const uint32_t count = cs_snap_get_u32(in);
    const size_t record = in->version < 5   ? AGENT_RECORD_SIZE_V3
                          : in->version < 7 ? AGENT_RECORD_SIZE_V5
                                            : AGENT_RECORD_SIZE;
    // Indices neither live nor free are retired (see crowd_agent_remove), checked below.
    // A saved world's slot capacity holds its agents.
    if (in->bad || count > (uint32_t)(w->index_count - w->free_count) ||
        count > (uint32_t)w->slot_capacity || in->left != (size_t)count * record)
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
        const bool route_ok = load_route(w, in, &g);
        if (in->bad || !route_ok || !valid_agent(w, s, idx, &g)) return CROWD_ERR_SNAPSHOT_CORRUPT;
        // The def's behavior fields go to their behaviors as crowd_agent_add gives them (the goal
        // counts its use of its exit set, which must be live: the exit sets came first, and of
        // its destination; every other field is its default, and the behaviors' own sections
        // load the rest).
        crowd_agent_def def = crowd_agent_def_default();
        def.goal = g;
        for (int b = 0; b < CS_BEH_COUNT; ++b) {
            if (!cs_behaviors[b].add_reserve) continue;
            const crowd_status st = cs_behaviors[b].add_reserve(w, &def);
            if (st == CROWD_ERR_OUT_OF_MEMORY) return st;
            if (st != CROWD_OK) return CROWD_ERR_SNAPSHOT_CORRUPT;
        }
        const uint32_t stored = c->flags[s];
        for (int b = 0; b < CS_BEH_COUNT; ++b)
            if (cs_behaviors[b].add) cs_behaviors[b].add(w, idx, s, &def);
        w->count = s + 1;
        // The flags an add derives from the def (a goal's own, and for an agent with no other
        // behavior its separation form and headway) are the ones saved, or the bytes are not a
        // world's: loaded, they would save back otherwise.
        if (c->flags[s] != stored) return CROWD_ERR_SNAPSHOT_CORRUPT;
    }
    // No index was seen twice, so every index is live, free or else retired, which only an index
    // at its last generation can be.
    for (int i = 0; i < w->index_count; ++i)
        if (w->slot_of[i] == -1 && w->generation[i] != CS_GENERATION_LAST)
            return CROWD_ERR_SNAPSHOT_CORRUPT;
    return CROWD_OK;
}

// ---- the loaded world ---------------------------------------------------------------------------

// What the passes take for granted of an agent's flags (core/behavior.h): a hot column the flag
// says it holds a value in has one, and so does the profile of a neighbor query it subscribes to.
static crowd_status check_flags(crowd_world* w) {
    uint32_t any = 0;
    for (int s = 0; s < w->count; ++s) any |= w->cur.flags[s];
    for (int b = 0; b < CS_BEH_COUNT; ++b) {
        const cs_behavior* e = &cs_behaviors[b];
        for (int k = 0; k < e->hot_count; ++k) {
            const cs_hot_def* h = &e->hot[k];
            if (!(any & h->flag)) continue;
            const uint32_t* col = cs_hot_live(w, h->col);
            for (int s = 0; s < w->count; ++s)
                if ((w->cur.flags[s] & h->flag) && (!col || !col[s]))
                    return CROWD_ERR_SNAPSHOT_CORRUPT;
        }
        for (int q = 0; q < CS_NB_COUNT; ++q) {
            const cs_neighbor_use* u = &e->neighbor[q];
            if (!(any & u->flag)) continue;
            const uint32_t* col = u->profile ? cs_hot_live(w, u->col) : NULL;
            for (int s = 0; u->profile && s < w->count; ++s)
                if ((w->cur.flags[s] & u->flag) && (!col || !col[s]))
                    return CROWD_ERR_SNAPSHOT_CORRUPT;
        }
    }
    return CROWD_OK;
}

// What the behaviors derive once every section is in (their `loaded` hooks, table order).
static crowd_status check_derived(crowd_world* w) {
    for (int b = 0; b < CS_BEH_COUNT; ++b)
        if (cs_behaviors[b].loaded && !cs_behaviors[b].loaded(w)) return CROWD_ERR_SNAPSHOT_CORRUPT;
    return CROWD_OK;
}

crowd_status cs_snap_check_loaded(crowd_world* w, const crowd_load_def* def) {
    crowd_status st = check_flags(w);
    if (st == CROWD_OK) st = check_derived(w);
    if (st != CROWD_OK) return st;
    cs_nav* nav = &w->nav;
    // The obstacles loaded are no change to repair after: the grid is laid whole, or installed.
    nav->nchanges = 0;
    nav->changes_lost = false;
    if (!cs_nav_counting(w))
        return nav->restore ? CROWD_ERR_SNAPSHOT_CORRUPT : CROWD_OK; // fields without walls
    // The grid its first step would lay (the obstacles' box, exact after a load, which only adds
    // them), unless too large to be laid at all, and the field it would build on it for every
    // destination in use.
    const cs_nav_box b =
        cs_nav_grid_box(nav, nav->pending_x0, nav->pending_y0, nav->pending_x1, nav->pending_y1);
    const int64_t cells = (int64_t)b.gw * b.gh;
    if (cells > nav->def.max_cells) return nav->restore ? CROWD_ERR_SNAPSHOT_CORRUPT : CROWD_OK;
    if (cells * (1 + (int64_t)nav->in_use) > def->max_nav_cells)
        return CROWD_ERR_SNAPSHOT_TOO_LARGE;
    return nav->restore ? cs_snap_install_navf(w) : CROWD_OK;
}
