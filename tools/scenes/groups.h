// A world of follow-leader groups for the tests and the benchmarks: leaders walking to far points,
// followers in formations or behind their leader, optional chains of leaders.
#ifndef CROWD_SCENES_GROUPS_H
#define CROWD_SCENES_GROUPS_H

#include "scenes.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct scene_groups_def {
    int agents;    // total, leaders included
    int groups;    // one leader each; followers are spread evenly over the groups
    float density; // agents per square metre over the whole square (default 0.25)
    uint64_t seed;
    int threads;
    bool formations; // groups cycle through behind point, column, line, wedge, block, circle
    bool predict;    // followers use leader prediction
    int chain_every; // every k-th leader follows the previous leader instead of walking; 0 = none
} scene_groups_def;

scene_groups_def scene_groups_def_default(void);

// Creates the world. leaders (may be NULL) receives the def->groups leader handles in order.
crowd_status scene_groups_create(const scene_groups_def* def, crowd_world** out,
                                 crowd_agent_id* leaders);

// Gives a walking leader a new far target inside the square (used to keep groups moving).
crowd_status scene_groups_retarget(crowd_world* w, const scene_groups_def* def, scene_rng* rng,
                                   crowd_agent_id leader);

#ifdef __cplusplus
}
#endif

#endif
