// The churn's calls on a split world (churn_dist.h).
#include "churn_dist.h"

static const crowd_world* d_world(void* ctx) {
    return crowd_dist_world(ctx);
}
static int d_agent_count(void* ctx) {
    return crowd_dist_agent_count(ctx);
}
static crowd_status d_get_agents(void* ctx, crowd_agent_id* ids, int capacity, int* count) {
    return crowd_dist_get_agents(ctx, ids, capacity, count);
}
static crowd_status d_agent_add(void* ctx, const crowd_agent_def* def, crowd_agent_id* out) {
    return crowd_dist_agent_add(ctx, def, out);
}
static crowd_status d_agent_remove(void* ctx, crowd_agent_id id) {
    return crowd_dist_agent_remove(ctx, id);
}
static crowd_status d_agent_set_position(void* ctx, crowd_agent_id id, crowd_vec2 p) {
    return crowd_dist_agent_set_position(ctx, id, p);
}
static crowd_status d_obstacle_add(void* ctx, crowd_obstacle_kind kind, const crowd_vec2* points,
                                   int count, crowd_obstacle_id* out) {
    return crowd_dist_obstacle_add(ctx, kind, points, count, out);
}
static crowd_status d_obstacle_remove(void* ctx, crowd_obstacle_id id) {
    return crowd_dist_obstacle_remove(ctx, id);
}

scene_calls scene_calls_dist(crowd_dist* d) {
    return (scene_calls){d,
                         d_world,
                         d_agent_count,
                         d_get_agents,
                         d_agent_add,
                         d_agent_remove,
                         d_agent_set_position,
                         d_obstacle_add,
                         d_obstacle_remove};
}
