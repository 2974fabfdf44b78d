// Goal internals: where a goal lives (hot columns, a profile and, for a routed goal, a memo record)
// and the functions that reserve and store one.
#ifndef CS_GOAL_INTERNAL_H
#define CS_GOAL_INTERNAL_H

#include "core/internal.h"

// A goal lives in hot columns (behaviors/registry.h): its target (CS_HOT_GOAL_X, _Y) and the
// number + 1 of its profile (CS_HOT_GOAL_PROFILE, 0 for the default goal), the rest of it, which
// a crowd mostly shares. A live exit set is kept without its world tag, which is the world's own
// (so a split world's new tag needs no change here); a null one as it was given.
typedef struct cs_goal_profile {
    int32_t mode;  // crowd_goal_mode
    int32_t route; // crowd_route
    float slow_radius, weight;
    uint32_t exits_index1;
    uint16_t exits_generation;
    uint16_t exits_world; // 0 when exits_index1 is not
    int32_t form;         // crowd_goal_form
    // The headway query's inputs (CS_NB_HEADWAY): its length and squared-width bound
    // (cs_steer_width2), set for every goal (only CS_FLAG_HEADWAY agents read them).
    float hw_len, hw_width2;
} cs_goal_profile;

// A routed goal's memo (cs_nav_memo, in the hot columns CS_HOT_GOAL_MEMO_*, which exist and ride
// the sort once the world counts routes: cs_nav_counting, it has obstacles): what the goal pass
// last read of the navigation field for the agent (its field entry and the cell it read it for,
// valid while the fields are those of nav.epoch; epoch 0: none). An agent crosses a field cell
// every few ticks, so most ticks read no field at all.
static inline cs_nav_memo cs_goal_memo_at(const crowd_world* w, int s) {
    return (cs_nav_memo){cs_hot_u32(w, CS_HOT_GOAL_MEMO_CELL)[s],
                         cs_hot_u32(w, CS_HOT_GOAL_MEMO_ENTRY)[s],
                         cs_hot_u32(w, CS_HOT_GOAL_MEMO_EPOCH)[s]};
}

static inline void cs_goal_memo_set(const crowd_world* w, int s, cs_nav_memo m) {
    cs_hot_u32(w, CS_HOT_GOAL_MEMO_CELL)[s] = m.cell;
    cs_hot_u32(w, CS_HOT_GOAL_MEMO_ENTRY)[s] = m.entry;
    cs_hot_u32(w, CS_HOT_GOAL_MEMO_EPOCH)[s] = m.epoch;
}

// Whether the memo columns ride the sort.
static inline bool cs_goal_memo_live(const crowd_world* w) {
    return cs_hot_live(w, CS_HOT_GOAL_MEMO_EPOCH) != NULL;
}

// The goal of the agent in slot s.
static inline crowd_goal cs_goal_at(const crowd_world* w, int s) {
    const uint32_t* prof = cs_hot_u32(w, CS_HOT_GOAL_PROFILE);
    if (!prof || prof[s] == 0) return crowd_goal_default();
    const cs_goal_profile* p = cs_profiles_at(&w->profiles[CS_PROF_GOAL], prof[s] - 1);
    return (crowd_goal){
        .mode = (crowd_goal_mode)p->mode,
        .target = {cs_hot_f32(w, CS_HOT_GOAL_X)[s], cs_hot_f32(w, CS_HOT_GOAL_Y)[s]},
        .slow_radius = p->slow_radius,
        .weight = p->weight,
        .route = (crowd_route)p->route,
        .exits = {.index1 = p->exits_index1,
                  .generation = p->exits_generation,
                  .world = p->exits_index1 ? w->tag : p->exits_world},
        .form = (crowd_goal_form)p->form,
    };
}

// Whether goal g walks the pedestrian model (CROWD_GOAL_PEDESTRIAN) for an agent with `flags`:
// a SEEK or ARRIVE goal of an agent that does not queue (a queue steers by its own form).
static inline bool cs_goal_pedestrian(const crowd_goal* g, uint32_t flags) {
    return g->form == CROWD_GOAL_PEDESTRIAN &&
           (g->mode == CROWD_GOAL_SEEK || g->mode == CROWD_GOAL_ARRIVE) && !(flags & CS_FLAG_QUEUE);
}

// The goal of live agent idx.
static inline crowd_goal cs_goal_of(const crowd_world* w, uint32_t idx) {
    return cs_goal_at(w, w->slot_of[idx]);
}

// Reserve first: store then cannot fail. A default goal is stored as profile 0 (and none of the
// hot columns exist until some agent has another goal).
crowd_status cs_goal_reserve(crowd_world* w, uint32_t idx, const crowd_goal* g);
void cs_goal_store(crowd_world* w, uint32_t idx, const crowd_goal* g);

// The goal pass (goal.c), in CROWD_PHASE_GOAL.
void cs_pass_goal(crowd_world* w);

// Table hooks (goal_api.c).
void cs_goal_def_default(crowd_agent_def* def);
crowd_status cs_goal_check_def(const crowd_agent_def* def);
crowd_status cs_goal_add_reserve(crowd_world* w, const crowd_agent_def* def);
void cs_goal_add(crowd_world* w, uint32_t idx, int slot, const crowd_agent_def* def);
void cs_goal_get_def(const crowd_world* w, uint32_t idx, crowd_agent_def* out);
crowd_status cs_goal_world_reserve(crowd_world* w, int agents);
void cs_goal_on_remove(crowd_world* w, uint32_t idx);
uint64_t cs_goal_hash(const crowd_world* w, uint32_t idx, uint64_t h);
// The pedestrian model's say in the agent's separation form (push) and headway
// (behaviors/separation.h).
cs_sep_form cs_goal_sep_form(const crowd_world* w, uint32_t idx, uint32_t flags);
bool cs_goal_headway(const crowd_world* w, uint32_t idx, uint32_t flags);
crowd_status cs_goal_count_routes(crowd_world* w);
// Counts goal g's use of its exit set and (while the world counts them) its destination: +1 once
// reserved (cs_goal_reserve), -1 when it ends.
void cs_goal_count_use(crowd_world* w, const crowd_goal* g, int delta);
// Table hooks of a split world (core/behavior.h): the uses counted. (A goal keeps no handle with
// its world's tag: cs_goal_profile.)
void cs_goal_route_uses(const crowd_world* w, uint32_t idx, void* out);
void cs_goal_route_uses_end(crowd_world* w, const void* in);
crowd_status cs_goal_route_uses_begin(crowd_world* w, const void* in);
// The agent's route toward its goal (false: no goal with a point to head for).
bool cs_goal_route(const crowd_world* w, uint32_t idx, int slot, crowd_route_info* out);

#endif
