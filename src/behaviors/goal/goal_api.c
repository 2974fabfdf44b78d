// Goals: the per-agent goal (part of the agent's def), its record and its table hooks.
#include <math.h>
#include <string.h>

#include "behaviors/goal/goal_internal.h"
#include "core/range.h"

crowd_goal crowd_goal_default(void) {
    return (crowd_goal){.mode = CROWD_GOAL_NONE, .slow_radius = 1.0f, .weight = 1.0f};
}

static crowd_status check_goal(const crowd_goal* g) {
    if ((unsigned)g->mode >= CROWD_GOAL_MODE_COUNT || (unsigned)g->route >= CROWD_ROUTE_COUNT)
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
    return g->mode == d.mode && g->route == d.route && g->exits.index1 == 0 &&
           memcmp(&g->target, &d.target, sizeof d.target) == 0 &&
           memcmp(&g->slow_radius, &d.slow_radius, sizeof d.slow_radius) == 0 &&
           memcmp(&g->weight, &d.weight, sizeof d.weight) == 0;
}

static uint32_t flags_for(const crowd_goal* g, uint32_t old) {
    uint32_t f = old & ~(uint32_t)CS_FLAG_GOAL;
    if (g->mode != CROWD_GOAL_NONE) f |= CS_FLAG_GOAL;
    return f;
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

crowd_status cs_goal_count_routes(crowd_world* w) {
    for (int32_t idx = 0; idx < w->index_count; ++idx) {
        const crowd_goal* g = cs_goal_of(w, (uint32_t)idx);
        if (!g || !routed(g)) continue;
        const crowd_status st = cs_nav_reserve(w, route_key(w, g));
        if (st != CROWD_OK) return st;
        cs_nav_ref(w, route_key(w, g), +1);
    }
    return CROWD_OK;
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

crowd_status cs_goal_reserve(crowd_world* w, uint32_t idx, const crowd_goal* g) {
    crowd_status st = reserve_route(w, g);
    if (st != CROWD_OK) return st;
    if (cs_rec_num(w, CS_REC_GOAL, idx) >= 0 || default_goal(g)) return CROWD_OK;
    return cs_pool_reserve(w, &w->pools[CS_REC_GOAL], 1);
}

void cs_goal_on_remove(crowd_world* w, uint32_t idx) {
    if (cs_rec_num(w, CS_REC_GOAL, idx) < 0) return;
    cs_goal_count_use(w, cs_goal_of(w, idx), -1);
    int32_t* rec = &w->rec_of[CS_REC_GOAL][idx];
    cs_pool_release(&w->pools[CS_REC_GOAL], *rec);
    *rec = -1;
}

void cs_goal_store(crowd_world* w, uint32_t idx, const crowd_goal* g) {
    cs_goal_count_use(w, g,
                      +1); // before the old goal's use ends: the same destination stays in use
    if (default_goal(g)) {
        cs_goal_on_remove(w, idx);
        return;
    }
    int32_t* rec = &w->rec_of[CS_REC_GOAL][idx];
    if (*rec < 0)
        *rec = cs_pool_acquire(&w->pools[CS_REC_GOAL]);
    else
        cs_goal_count_use(w, cs_pool_at(&w->pools[CS_REC_GOAL], *rec), -1);
    *(cs_goal_rec*)cs_pool_at(&w->pools[CS_REC_GOAL], *rec) = (cs_goal_rec){.goal = *g};
}

void cs_goal_def_default(crowd_agent_def* def) {
    def->goal = crowd_goal_default();
}

crowd_status cs_goal_check_def(const crowd_agent_def* def) {
    return check_goal(&def->goal);
}

crowd_status cs_goal_add_reserve(crowd_world* w, const crowd_agent_def* def) {
    const crowd_status st = reserve_route(w, &def->goal);
    if (st != CROWD_OK) return st;
    return default_goal(&def->goal) ? CROWD_OK : cs_pool_reserve(w, &w->pools[CS_REC_GOAL], 1);
}

void cs_goal_add(crowd_world* w, uint32_t idx, int slot, const crowd_agent_def* def) {
    cs_goal_store(w, idx, &def->goal);
    w->cur.flags[slot] = flags_for(&def->goal, w->cur.flags[slot]);
}

void cs_goal_get_def(const crowd_world* w, uint32_t idx, crowd_agent_def* out) {
    const crowd_goal* g = cs_goal_of(w, idx);
    if (g) out->goal = *g;
}

// A goal is part of an agent's def: room for one per agent, so adding and retargeting up to
// `agents` agents allocates nothing. (The other behaviors' calls acquire their records
// themselves.)
crowd_status cs_goal_world_reserve(crowd_world* w, int agents) {
    cs_pool* p = &w->pools[CS_REC_GOAL];
    return agents > p->live ? cs_pool_reserve(w, p, agents - p->live) : CROWD_OK;
}

uint64_t cs_goal_hash(const crowd_world* w, uint32_t idx, uint64_t h) {
    const crowd_goal* g = cs_goal_of(w, idx);
    if (!g) return h;
    h = cs_hash_word(h, (uint32_t)g->mode);
    h = cs_hash_float(h, g->target.x);
    h = cs_hash_float(h, g->target.y);
    h = cs_hash_float(h, g->slow_radius);
    h = cs_hash_float(h, g->weight);
    if (g->route == CROWD_ROUTE_FIELD && g->exits.index1 == 0) return h; // as before routing
    h = cs_hash_word(h, (uint32_t)g->route);
    h = cs_hash_word(h, g->exits.index1);
    return cs_hash_word(h, g->exits.generation);
}

// ---- a world split across processes ------------------------------------------------------------

void cs_goal_retag(crowd_world* w, uint32_t idx, uint16_t tag) {
    crowd_goal* g = cs_goal_of(w, idx);
    if (g && g->exits.index1) g->exits.world = tag;
}

// What a goal counts is the goal itself (all zero: a goal of mode NONE, which counts nothing).
void cs_goal_route_uses(const crowd_world* w, uint32_t idx, void* out) {
    const crowd_goal* g = cs_goal_of(w, idx);
    const crowd_goal d = g ? *g : crowd_goal_default();
    memcpy(out, &d, sizeof d);
}

void cs_goal_route_uses_end(crowd_world* w, const void* in) {
    crowd_goal g;
    memcpy(&g, in, sizeof g);
    cs_goal_count_use(w, &g, -1);
}

// The route of a goal with a point to head for, from pos.
static crowd_route_info route_of(const crowd_world* w, const crowd_goal* g, crowd_vec2 pos) {
    return cs_nav_route_info(&w->nav, g->target, g->exits, pos, routed(g));
}

bool cs_goal_route(const crowd_world* w, uint32_t idx, int slot, crowd_route_info* out) {
    const crowd_goal* g = cs_goal_of(w, idx);
    if (!g || g->mode == CROWD_GOAL_NONE || g->mode == CROWD_GOAL_FLEE) return false;
    *out = route_of(w, g, (crowd_vec2){w->cur.px[slot], w->cur.py[slot]});
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
    return CROWD_OK;
}
