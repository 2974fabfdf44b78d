// The churn of the determinism checks: between steps, the mutations a server makes (agents removed,
// added and teleported; in a world with obstacles, walls removed and added), driven through a
// small table of world calls so that the same churn runs on a world in one process
// (scene_calls_world) and on one split across MPI ranks (scene_calls_dist, churn_dist.h).
#ifndef CROWD_SCENES_CHURN_H
#define CROWD_SCENES_CHURN_H

#include "crowd/crowd.h"
#include "scenes.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct scene_calls {
    void* ctx;
    const crowd_world* (*world)(void* ctx); // the world whose obstacles are listed
    int (*agent_count)(void* ctx);
    // Every live handle in handle order.
    crowd_status (*get_agents)(void* ctx, crowd_agent_id* ids, int capacity, int* count);
    crowd_status (*agent_add)(void* ctx, const crowd_agent_def* def, crowd_agent_id* out);
    crowd_status (*agent_remove)(void* ctx, crowd_agent_id id);
    crowd_status (*agent_set_position)(void* ctx, crowd_agent_id id, crowd_vec2 p);
    crowd_status (*obstacle_add)(void* ctx, crowd_obstacle_kind kind, const crowd_vec2* points,
                                 int count, crowd_obstacle_id* out);
    crowd_status (*obstacle_remove)(void* ctx, crowd_obstacle_id id);
} scene_calls;

// The calls on a world in one process.
scene_calls scene_calls_world(crowd_world* w);

// One round of churn in a square of half-side `half`: 64 agents picked in handle order (a pick can
// repeat), every third removed, teleported or joined by a new agent arriving at the centre; then,
// when the world has obstacles, the first two in handle order removed and two 3 m walls added at
// random places. Placements a wall refuses (CROWD_ERR_INSIDE_OBSTACLE) are skipped, as is a handle
// picked twice; any other failure is returned.
crowd_status scene_churn(const scene_calls* calls, scene_rng* rng, float half);

#ifdef __cplusplus
}
#endif

#endif
