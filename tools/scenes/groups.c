#include "groups.h"

#include <math.h>

scene_groups_def scene_groups_def_default(void) {
    return (scene_groups_def){
        .agents = 10000, .groups = 200, .density = 0.25f, .seed = 1, .formations = true};
}

static float side_of(const scene_groups_def* def) {
    return sqrtf((float)def->agents / def->density);
}

crowd_status scene_groups_retarget(crowd_world* w, const scene_groups_def* def, scene_rng* rng,
                                   crowd_agent_id leader) {
    const float half = side_of(def) * 0.5f;
    crowd_goal g = crowd_goal_default();
    g.mode = CROWD_GOAL_ARRIVE;
    g.slow_radius = 2.0f;
    g.target = (crowd_vec2){scene_rng_float(rng, -half, half), scene_rng_float(rng, -half, half)};
    return crowd_agent_set_goal(w, leader, &g);
}

crowd_status scene_groups_create(const scene_groups_def* def, crowd_world** out,
                                 crowd_agent_id* leaders) {
    if (def->groups < 1 || def->agents < def->groups) return CROWD_ERR_BAD_COUNT;
    crowd_world_def wd = crowd_world_def_default();
    wd.capacity = def->agents;
    wd.threads = def->threads;
    wd.world_tag = 1;
    crowd_status st = crowd_world_create(&wd, out);
    if (st != CROWD_OK) return st;
    crowd_world* w = *out;
    scene_rng rng = {def->seed};
    const float half = side_of(def) * 0.5f;
    const int followers = def->agents - def->groups;
    const crowd_formation_shape shapes[] = {CROWD_FORMATION_COLUMN, CROWD_FORMATION_LINE,
                                            CROWD_FORMATION_WEDGE, CROWD_FORMATION_BLOCK,
                                            CROWD_FORMATION_CIRCLE};
    crowd_agent_id prev = {0};
    for (int g = 0; g < def->groups && st == CROWD_OK; ++g) {
        crowd_agent_def a = crowd_agent_def_default();
        a.position =
            (crowd_vec2){scene_rng_float(&rng, -half, half), scene_rng_float(&rng, -half, half)};
        a.max_speed = 0.7f;
        crowd_agent_id leader;
        st = crowd_agent_add(w, &a, &leader);
        if (st != CROWD_OK) break;
        if (leaders) leaders[g] = leader;
        const bool chained = def->chain_every > 0 && g % def->chain_every == def->chain_every - 1;
        crowd_follow_def lead_follow = crowd_follow_def_default();
        lead_follow.behind_dist = 6.0f;
        if (chained)
            st = crowd_agent_follow(w, leader, prev, &lead_follow);
        else
            st = scene_groups_retarget(w, def, &rng, leader);
        // Slot kinds cycle: behind point, then each shape.
        const int kind = def->formations ? g % 6 : 0;
        if (st == CROWD_OK && kind > 0) {
            crowd_formation_def f = crowd_formation_def_default();
            f.shape = shapes[kind - 1];
            if (f.shape == CROWD_FORMATION_CIRCLE) f.distance = 4.0f;
            st = crowd_leader_set_formation(w, leader, &f);
        }
        crowd_follow_def fd = crowd_follow_def_default();
        fd.predict = def->predict;
        fd.target = kind > 0 ? CROWD_FOLLOW_SLOT : CROWD_FOLLOW_BEHIND;
        const int size = followers / def->groups + (g < followers % def->groups ? 1 : 0);
        for (int k = 0; k < size && st == CROWD_OK; ++k) {
            crowd_agent_def b = crowd_agent_def_default();
            b.position = (crowd_vec2){a.position.x + scene_rng_float(&rng, -4.0f, 4.0f),
                                      a.position.y + scene_rng_float(&rng, -4.0f, 4.0f)};
            crowd_agent_id f;
            st = crowd_agent_add(w, &b, &f);
            if (st == CROWD_OK) st = crowd_agent_follow(w, f, leader, &fd);
        }
        prev = leader;
    }
    if (st != CROWD_OK) {
        crowd_world_destroy(w);
        *out = NULL;
    }
    return st;
}
