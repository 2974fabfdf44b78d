// The churn's calls on a world split across MPI ranks (crowd/dist.h): every rank makes the same
// calls in the same order. Built with CROWD_MPI only (library crowd_scenes_dist).
#ifndef CROWD_SCENES_CHURN_DIST_H
#define CROWD_SCENES_CHURN_DIST_H

#include "churn.h"
#include "crowd/dist.h"

#ifdef __cplusplus
extern "C" {
#endif

scene_calls scene_calls_dist(crowd_dist* d);

#ifdef __cplusplus
}
#endif

#endif
