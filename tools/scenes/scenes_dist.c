// A built-in scene split across MPI ranks (scenes_dist.h).
#include "scenes_dist.h"

crowd_status scene_dist_agent(int i, crowd_agent_def* def, void* user) {
    return scene_agent_def(user, i, def);
}

crowd_status scene_create_dist(MPI_Comm comm, const scene_def* def, int max_neighbors,
                               crowd_dist** out) {
    *out = NULL;
    crowd_world* w = NULL;
    const bool plain = scene_is_plain(def->kind);
    crowd_status st;
    if (plain) {
        // Storage grows with the agents a rank holds, not the scene's (scene_create reserves it).
        crowd_world_def wd = scene_world_def(def);
        wd.capacity = crowd_world_def_default().capacity;
        st = crowd_world_create(&wd, &w);
    } else {
        st = scene_create(def, &w);
    }
    if (st == CROWD_OK) st = crowd_world_set_max_neighbors(w, max_neighbors);
    if (st == CROWD_OK) st = crowd_dist_create(comm, w, out);
    if (st != CROWD_OK) {
        crowd_world_destroy(w);
        return st;
    }
    if (plain) {
        scene_def copy = *def;
        st = crowd_dist_add_agents(*out, def->agents, scene_dist_agent, &copy, NULL, NULL);
        if (st != CROWD_OK) {
            crowd_dist_destroy(*out);
            *out = NULL;
        }
    }
    return st;
}
