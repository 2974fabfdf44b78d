// A built-in scene split across MPI ranks (crowd/dist.h). Built with CROWD_MPI only (library
// crowd_scenes_dist).
#ifndef CROWD_SCENES_SCENES_DIST_H
#define CROWD_SCENES_SCENES_DIST_H

#include "crowd/dist.h"
#include "scenes.h"

#ifdef __cplusplus
extern "C" {
#endif

// crowd_dist_agent_fn of a plain scene (scene_is_plain): `user` is its const scene_def*.
crowd_status scene_dist_agent(int i, crowd_agent_def* def, void* user);

// The scene's world split across the ranks of `comm` (collective), with the neighbor cap
// `max_neighbors`. A plain scene starts as an empty split world and gets its agents from
// crowd_dist_add_agents, so no rank ever holds more than its share; any other scene (paths,
// queues, groups, walls) is built whole on every rank and handed to crowd_dist_create. Either way
// the world and its handles are those of scene_create.
crowd_status scene_create_dist(MPI_Comm comm, const scene_def* def, int max_neighbors,
                               crowd_dist** out);

#ifdef __cplusplus
}
#endif

#endif
