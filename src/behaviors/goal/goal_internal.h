// Goal internals: the goal record (a crowd_goal, kept only for a goal other than the default) and
// the functions the queue behavior and the snapshot share to set one.
#ifndef CS_GOAL_INTERNAL_H
#define CS_GOAL_INTERNAL_H

#include "core/internal.h"

// The goal record: the goal, and what the goal pass last read of the navigation field for the
// agent (its field entry and the cell it read it for, valid while the fields are those of
// nav.epoch): an agent crosses a field cell every few ticks, so most ticks read no field at all.
typedef struct cs_goal_rec {
    crowd_goal goal; // first: a record is read as its goal
    cs_nav_memo nav;
} cs_goal_rec;

static inline crowd_goal* cs_goal_of(const crowd_world* w, uint32_t idx) {
    return cs_record_of(w, CS_REC_GOAL, idx);
}

// Reserve first: store then cannot fail. A default goal is stored as no record.
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
crowd_status cs_goal_count_routes(crowd_world* w);
// Counts goal g's use of its exit set and (while the world counts them) its destination: +1 once
// reserved (cs_goal_reserve), -1 when it ends.
void cs_goal_count_use(crowd_world* w, const crowd_goal* g, int delta);
// Table hooks of a split world (core/behavior.h): the exit set's handle, the uses counted.
void cs_goal_retag(crowd_world* w, uint32_t idx, uint16_t tag);
void cs_goal_route_uses(const crowd_world* w, uint32_t idx, void* out);
void cs_goal_route_uses_end(crowd_world* w, const void* in);
// The agent's route toward its goal (false: no goal with a point to head for).
bool cs_goal_route(const crowd_world* w, uint32_t idx, int slot, crowd_route_info* out);

#endif
