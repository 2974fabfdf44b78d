// Goals: the per-agent goal (part of the agent's def), its record and its table hooks.
#include <math.h>
#include <string.h>

#include "behaviors/goal/goal_internal.h"
#include "behaviors/separation.h"
#include "core/range.h"
#include "steer/steer_math.h"

crowd_goal crowd_goal_default(void) {
    return (crowd_goal){.mode = CROWD_GOAL_NONE, .slow_radius = 1.0f, .weight = 1.0f};
}

static crowd_status check_goal(const crowd_goal* g) {
    if ((unsigned)g->mode >= CROWD_GOAL_MODE_COUNT || (unsigned)g->route >= CROWD_ROUTE_COUNT ||
        (unsigned)g->form >= CROWD_GOAL_FORM_COUNT)
        return CROWD_ERR_INVALID_ENUM;
    if (g->exits.index1 && g->mode == CROWD_GOAL_FLEE) return CROWD_ERR_INVALID_ENUM;
    if (!isfinite(g->target.x) || !isfinite(g->target.y) || !isfinite(g->slow_radius) ||
        !isfinite(g->weight))
        return CROWD_ERR_NOT_FINITE;
    if (g->slow_radius <= 0.0f) return CROWD_ERR_BAD_RADIUS;
    if (g->weight < 0.0f) return CROWD_ERR_BAD_WEIGHT;
    if (g->slow_radius > CROWD_MAX_DISTANCE || g->weight > CROWD_MAX_WEIGHT)
        return CROWD_ERR_OUT_OF_RANGE;
    return cs_range_point(g->target);
}

// Agents keep a goal record only for a goal other than crowd_goal_default(), compared bit for bit
// so that every goal reads back exactly as it was set.
static bool default_goal(const crowd_goal* g) {
    const crowd_goal d = crowd_goal_default();
    return g->mode == d.mode && g->route == d.route && g->form == d.form && g->exits.index1 == 0 &&
           memcmp(&g->target, &d.target, sizeof d.target) == 0 &&
           memcmp(&g->slow_radius, &d.slow_radius, sizeof d.slow_radius) == 0 &&
           memcmp(&g->weight, &d.weight, sizeof d.weight) == 0;
}

static uint32_t flags_for(const crowd_goal* g, uint32_t old) {
    uint32_t f = old & ~(uint32_t)CS_FLAG_GOAL;
    if (g->mode != CROWD_GOAL_NONE) f |= CS_FLAG_GOAL;
    return f;
}

// Table hooks: a pedestrian goal separates without drag and brakes for the one ahead.
cs_sep_form cs_goal_sep_form(const crowd_world* w, uint32_t idx, uint32_t flags) {
    const crowd_goal g = cs_goal_of(w, idx);
    return cs_goal_pedestrian(&g, flags) ? CS_SEP_PUSH : CS_SEP_ANY;
}

bool cs_goal_headway(const crowd_world* w, uint32_t idx, uint32_t flags) {
    const crowd_goal g = cs_goal_of(w, idx);
    return cs_goal_pedestrian(&g, flags);
}

// ---- routes (crowd/nav.h) -----------------------------------------------------------------------

// Whether a goal heads for its point (or exit set) along the navigation fields.
static bool routed(const crowd_goal* g) {
    return g->route == CROWD_ROUTE_FIELD && g->mode != CROWD_GOAL_NONE &&
           g->mode != CROWD_GOAL_FLEE;
}

static cs_nav_key route_key(const crowd_world* w, const crowd_goal* g) {
    return g->exits.index1 ? cs_nav_exits_key(g->exits) : cs_nav_point_key(&w->nav, g->target);
}

// Counts the goal's use of its destination (+1) or its end (-1); a +1 is reserved first.
// Exit sets count their goals always (a set in use cannot be destroyed); destinations are counted
// while the world has obstacles (see cs_nav_start_counting).
void cs_goal_count_use(crowd_world* w, const crowd_goal* g, int delta) {
    if (g->exits.index1) w->nav.exits[g->exits.index1 - 1].users += delta;
    if (routed(g) && cs_nav_counting(w)) cs_nav_ref(w, route_key(w, g), delta);
}

static const int goal_cols[] = {CS_HOT_GOAL_X, CS_HOT_GOAL_Y, CS_HOT_GOAL_PROFILE,
                                CS_HOT_GOAL_AIM_X, CS_HOT_GOAL_AIM_Y};
enum { GOAL_COLS = sizeof goal_cols / sizeof goal_cols[0] };
static const int memo_cols[] = {CS_HOT_GOAL_MEMO_CELL, CS_HOT_GOAL_MEMO_ENTRY,
                                CS_HOT_GOAL_MEMO_EPOCH};

// The memo columns (zero: no memo), which then ride the sort: a world with routed goals that
// counts routes. A memo is a cache, which nothing shows: making the columns changes nothing the
// world shows, and a failure after it may leave them.
static crowd_status memo_use(crowd_world* w) {
    for (int k = 0; k < 3; ++k)
        if (cs_world_hot_column(w, memo_cols[k]) != CROWD_OK) return CROWD_ERR_OUT_OF_MEMORY;
    for (int k = 0; k < 3; ++k) cs_hot_use(w, memo_cols[k]);
    return CROWD_OK;
}

// Counting starts: every routed goal counts its destination, and their memos come.
crowd_status cs_goal_count_routes(crowd_world* w) {
    bool any = false;
    for (int s = 0; s < w->count; ++s) {
        const crowd_goal g = cs_goal_at(w, s);
        if (!routed(&g)) continue;
        any = true;
        const crowd_status st = cs_nav_reserve(w, route_key(w, &g));
        if (st != CROWD_OK) return st;
        cs_nav_ref(w, route_key(w, &g), +1);
    }
    return any ? memo_use(w) : CROWD_OK;
}

// The checks that need the world: a live exit set, and room for a new destination.
static crowd_status reserve_route(crowd_world* w, const crowd_goal* g) {
    if (g->exits.index1) {
        const cs_nav_exits* e;
        const crowd_status st = cs_nav_exits_lookup(&w->nav, w->tag, g->exits, &e);
        if (st != CROWD_OK) return st;
    }
    return routed(g) && cs_nav_counting(w) ? cs_nav_reserve(w, route_key(w, g)) : CROWD_OK;
}

// Room to store goal g: the hot columns and a profile for a goal other than the default, the memo
// columns for a routed one while the world counts routes.
static crowd_status reserve_storage(crowd_world* w, const crowd_goal* g) {
    if (default_goal(g)) return CROWD_OK;
    for (int k = 0; k < GOAL_COLS; ++k)
        if (cs_world_hot_column(w, goal_cols[k]) != CROWD_OK) return CROWD_ERR_OUT_OF_MEMORY;
    crowd_status st = cs_profiles_reserve(w, &w->profiles[CS_PROF_GOAL], 1);
    if (st == CROWD_OK && routed(g) && cs_nav_counting(w)) st = memo_use(w);
    return st;
}

crowd_status cs_goal_reserve(crowd_world* w, uint32_t idx, const crowd_goal* g) {
    (void)idx;
    const crowd_status st = reserve_route(w, g);
    return st == CROWD_OK ? reserve_storage(w, g) : st;
}

// The goal's uses end; its profile loses its user when the core takes the agent's hot columns out
// (core/dist_hooks.c).
void cs_goal_on_remove(crowd_world* w, uint32_t idx) {
    const crowd_goal g = cs_goal_of(w, idx);
    cs_goal_count_use(w, &g, -1);
}

void cs_goal_store(crowd_world* w, uint32_t idx, const crowd_goal* g) {
    const int s = w->slot_of[idx];
    const crowd_goal old = cs_goal_at(w, s);
    // The new goal's uses before the old one's end: the same destination stays in use.
    cs_goal_count_use(w, g, +1);
    cs_goal_count_use(w, &old, -1);
    uint32_t* prof = cs_hot_u32(w, CS_HOT_GOAL_PROFILE);
    if (prof && prof[s]) cs_profiles_release(&w->profiles[CS_PROF_GOAL], prof[s] - 1);
    // A new goal starts without a memo, and a pedestrian one aiming at its point (an exit set's
    // aim waits for the first step).
    if (cs_hot_u32(w, CS_HOT_GOAL_MEMO_EPOCH)) cs_goal_memo_set(w, s, (cs_nav_memo){0});
    const bool point = cs_goal_pedestrian(g, w->cur.flags[s]) && !g->exits.index1;
    const crowd_vec2 aim = point ? cs_steer_normalize((crowd_vec2){g->target.x - w->cur.px[s],
                                                                   g->target.y - w->cur.py[s]})
                                 : (crowd_vec2){0.0f, 0.0f};
    if (cs_hot_f32(w, CS_HOT_GOAL_AIM_X)) {
        cs_hot_f32(w, CS_HOT_GOAL_AIM_X)[s] = 0.0f;
        cs_hot_f32(w, CS_HOT_GOAL_AIM_Y)[s] = 0.0f;
    }
    if (default_goal(g)) {
        if (prof) prof[s] = 0;
        return;
    }
    const bool null_exits = g->exits.index1 == 0;
    const cs_goal_profile p = {
        .mode = (int32_t)g->mode,
        .route = (int32_t)g->route,
        .slow_radius = g->slow_radius,
        .weight = g->weight,
        .exits_index1 = g->exits.index1,
        .exits_generation = g->exits.generation,
        .exits_world = null_exits ? g->exits.world : 0,
        .form = (int32_t)g->form,
        .hw_len = CROWD_GOAL_HEADWAY_REACH,
        .hw_width2 = cs_steer_width2(CROWD_GOAL_HEADWAY_WIDTH),
    };
    for (int k = 0; k < GOAL_COLS; ++k) cs_hot_use(w, goal_cols[k]);
    prof[s] = cs_profiles_intern(&w->profiles[CS_PROF_GOAL], &p) + 1;
    cs_hot_f32(w, CS_HOT_GOAL_X)[s] = g->target.x;
    cs_hot_f32(w, CS_HOT_GOAL_Y)[s] = g->target.y;
    cs_hot_f32(w, CS_HOT_GOAL_AIM_X)[s] = aim.x;
    cs_hot_f32(w, CS_HOT_GOAL_AIM_Y)[s] = aim.y;
}

void cs_goal_def_default(crowd_agent_def* def) {
    def->goal = crowd_goal_default();
}

crowd_status cs_goal_check_def(const crowd_agent_def* def) {
    return check_goal(&def->goal);
}

crowd_status cs_goal_add_reserve(crowd_world* w, const crowd_agent_def* def) {
    const crowd_status st = reserve_route(w, &def->goal);
    return st == CROWD_OK ? reserve_storage(w, &def->goal) : st;
}

// An agent with no behavior but its goal (a new one, or one loaded so) takes its separation form
// and headway from the goal alone; a loaded agent with other behaviors has them in its flags.
void cs_goal_add(crowd_world* w, uint32_t idx, int slot, const crowd_agent_def* def) {
    cs_goal_store(w, idx, &def->goal);
    uint32_t f = flags_for(&def->goal, w->cur.flags[slot]);
    const uint32_t others = CS_FLAG_QUEUE | CS_FLAG_FOLLOW | CS_FLAG_PATH | CS_FLAG_LEADER;
    if (!(f & others)) {
        const bool ped = cs_goal_pedestrian(&def->goal, f);
        f &= ~(uint32_t)(CS_FLAG_SEP_PUSH | CS_FLAG_HEADWAY);
        if (ped) f |= CS_FLAG_SEP_PUSH | CS_FLAG_HEADWAY;
    }
    w->cur.flags[slot] = f;
}

void cs_goal_get_def(const crowd_world* w, uint32_t idx, crowd_agent_def* out) {
    out->goal = cs_goal_of(w, idx);
}

// A goal is part of an agent's def: room for one per agent, so adding and retargeting up to
// `agents` agents allocates nothing (with the memo columns while the world counts routes).
crowd_status cs_goal_world_reserve(crowd_world* w, int agents) {
    if (cs_nav_counting(w) && memo_use(w) != CROWD_OK) return CROWD_ERR_OUT_OF_MEMORY;
    for (int k = 0; k < GOAL_COLS; ++k)
        if (cs_world_hot_column(w, goal_cols[k]) != CROWD_OK) return CROWD_ERR_OUT_OF_MEMORY;
    return cs_profiles_reserve_users(w, &w->profiles[CS_PROF_GOAL], (uint32_t)agents);
}

uint64_t cs_goal_hash(const crowd_world* w, uint32_t idx, uint64_t h) {
    const uint32_t* prof = cs_hot_u32(w, CS_HOT_GOAL_PROFILE);
    if (!prof || !prof[w->slot_of[idx]]) return h; // the default goal adds nothing
    const crowd_goal goal = cs_goal_of(w, idx);
    const crowd_goal* g = &goal;
    h = cs_hash_word(h, (uint32_t)g->mode);
    h = cs_hash_float(h, g->target.x);
    h = cs_hash_float(h, g->target.y);
    h = cs_hash_float(h, g->slow_radius);
    h = cs_hash_float(h, g->weight);
    // The spec's form, and any form of a goal of mode NONE (which walks none), hash as every goal
    // did before the forms.
    if (g->form != CROWD_GOAL_FORM_LITERAL && g->mode != CROWD_GOAL_NONE) {
        const int s = w->slot_of[idx];
        h = cs_hash_word(h, 0x50454453u + (uint32_t)g->form);
        h = cs_hash_float(h, cs_hot_f32(w, CS_HOT_GOAL_AIM_X)[s]);
        h = cs_hash_float(h, cs_hot_f32(w, CS_HOT_GOAL_AIM_Y)[s]);
    }
    if (g->route == CROWD_ROUTE_FIELD && g->exits.index1 == 0) return h; // as before routing
    h = cs_hash_word(h, (uint32_t)g->route);
    h = cs_hash_word(h, g->exits.index1);
    return cs_hash_word(h, g->exits.generation);
}

// ---- a world split across processes ------------------------------------------------------------

// What a goal counts is the goal itself (all zero: a goal of mode NONE, which counts nothing).
void cs_goal_route_uses(const crowd_world* w, uint32_t idx, void* out) {
    const crowd_goal g = cs_goal_of(w, idx);
    memcpy(out, &g, sizeof g);
}

void cs_goal_route_uses_end(crowd_world* w, const void* in) {
    crowd_goal g;
    memcpy(&g, in, sizeof g);
    cs_goal_count_use(w, &g, -1);
}

// What cs_goal_count_routes counts for one agent (its exit set's users are counted when the goal
// is set, on every process).
crowd_status cs_goal_route_uses_begin(crowd_world* w, const void* in) {
    crowd_goal g;
    memcpy(&g, in, sizeof g);
    if (!routed(&g) || !cs_nav_counting(w)) return CROWD_OK;
    const crowd_status st = cs_nav_reserve(w, route_key(w, &g));
    if (st == CROWD_OK) cs_nav_ref(w, route_key(w, &g), +1);
    return st;
}

// The route of a goal with a point to head for, from pos.
static crowd_route_info route_of(const crowd_world* w, const crowd_goal* g, crowd_vec2 pos) {
    if (routed(g) && !g->exits.index1 && cs_nav_is_spread(&w->nav, g->target) && w->nav.blocked &&
        !w->nav.grid_changed)
        return cs_nav_spread_route(w, g->target, pos);
    return cs_nav_route_info(&w->nav, g->target, g->exits, pos, routed(g));
}

bool cs_goal_route(const crowd_world* w, uint32_t idx, int slot, crowd_route_info* out) {
    (void)idx;
    const crowd_goal g = cs_goal_at(w, slot);
    if (g.mode == CROWD_GOAL_NONE || g.mode == CROWD_GOAL_FLEE) return false;
    *out = route_of(w, &g, (crowd_vec2){w->cur.px[slot], w->cur.py[slot]});
    return true;
}

crowd_status crowd_nav_route_from(const crowd_world* w, const crowd_goal* goal, crowd_vec2 from,
                                  crowd_route_info* out) {
    if (!w || !goal || !out) return CROWD_ERR_NULL_ARGUMENT;
    crowd_status st = check_goal(goal);
    if (st == CROWD_OK) st = cs_range_point(from);
    if (st != CROWD_OK) return st;
    if (goal->exits.index1) {
        const cs_nav_exits* e;
        st = cs_nav_exits_lookup(&w->nav, w->tag, goal->exits, &e);
        if (st != CROWD_OK) return st;
    }
    if (goal->mode == CROWD_GOAL_FLEE || goal->mode == CROWD_GOAL_NONE) {
        *out = (crowd_route_info){CROWD_ROUTE_STATE_NONE, {0, 0}, {0, 0}, 0.0f};
        return CROWD_OK;
    }
    *out = route_of(w, goal, from);
    return CROWD_OK;
}

crowd_status crowd_agent_set_goal(crowd_world* w, crowd_agent_id id, const crowd_goal* goal) {
    int s;
    crowd_status st = cs_agent_slot(w, id, &s);
    if (st != CROWD_OK) return st;
    if (!goal) return CROWD_ERR_NULL_ARGUMENT;
    st = check_goal(goal);
    if (st != CROWD_OK) return st;
    const uint32_t idx = id.index1 - 1;
    st = cs_goal_reserve(w, idx, goal);
    if (st != CROWD_OK) return st;
    cs_goal_store(w, idx, goal);
    w->cur.flags[s] = flags_for(goal, w->cur.flags[s]);
    cs_sep_push_refresh(w, idx);
    return CROWD_OK;
}
