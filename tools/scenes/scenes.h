// Reproducible test and benchmark worlds, shared by the crowd command, the tests and the
// benchmarks.
#ifndef CROWD_SCENES_H
#define CROWD_SCENES_H

#include <stdbool.h>
#include <stdint.h>

#include "crowd/crowd.h"

#ifdef __cplusplus
extern "C" {
#endif

// splitmix64: small, seedable, the same sequence everywhere.
typedef struct scene_rng {
    uint64_t state;
} scene_rng;

uint64_t scene_rng_next(scene_rng* r);
float scene_rng_float(scene_rng* r, float lo, float hi);

typedef enum scene_kind {
    SCENE_SEPARATION, // uniform crowd drifting with random velocities, separation only
    SCENE_CROSSING,   // every agent seeks the point mirrored across the centre
    SCENE_MIXED,      // separation with seek, arrive and flee goals
    SCENE_QUEUE,      // one tile of the square per queue: queue for the tile's goal (right end),
                      // respawn in its start strip (left end)
    SCENE_WAYPOINTS,  // one looping 50-segment random-walk path per 100 agents, waypoint following
    SCENE_TUBE,       // the same paths, Reynolds' path tube
    SCENE_GROUPS,     // groups of 50: a leader walking a path, 49 followers in formations
    SCENE_PLAZA,      // every behavior at once, in blocks of 10 agents
    SCENE_TOWN,       // walls: a town of solid blocks covering a third of the square, agents on
                      // looping waypoint paths along the streets between them (town.c)
    SCENE_KIND_COUNT
} scene_kind;

// The scene's name ("separation", "plaza", ...), and the kind of a name (-1 when unknown).
const char* scene_kind_name(scene_kind kind);
int scene_kind_of(const char* name);

typedef struct scene_def {
    scene_kind kind;
    int agents;
    float density; // agents per square metre (default 0.25)
    uint64_t seed;
    int threads;
    int queues;     // SCENE_QUEUE: number of queues, 0 = one per 200 agents
    bool open_town; // SCENE_TOWN: the same agents and paths without the blocks
    // Allocator hooks handed to the world (NULL = the library's default), so a caller can count
    // the bytes a scene's world uses.
    crowd_alloc_fn* alloc;
    crowd_free_fn* free;
    void* alloc_user;
} scene_def;

scene_def scene_def_default(void);

// Side of the square that holds def->agents at def->density.
float scene_side(const scene_def* def);

// Creates a world and fills it. Agent parameters follow the benchmark family: radius 0.3,
// max speed 1.5, separation radius 1.2, dt 0.1, cell 2.5.
crowd_status scene_create(const scene_def* def, crowd_world** out);

// The world def scene_create makes the scene's world with (capacity: the scene's agents).
crowd_world_def scene_world_def(const scene_def* def);

// The scenes whose agents are set up by their defs alone (separation, crossing, mixed): agent i's
// def is scene_agent_def's, a function of the scene and i (its random draws are read at agent i's
// place in the scene's stream), the one scene_create adds as agent i. CROWD_ERR_OUT_OF_RANGE for
// another scene, CROWD_ERR_BAD_COUNT for i outside [0, agents).
bool scene_is_plain(scene_kind kind);
crowd_status scene_agent_def(const scene_def* def, int i, crowd_agent_def* out);

// SCENE_TOWN: edge of a block (the street grid's pitch is 20 m).
float scene_town_block(void);

#ifdef __cplusplus
}
#endif

#endif
