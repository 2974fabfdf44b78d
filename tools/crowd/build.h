// Building a crowd_world from a validated scenario.
#ifndef CROWD_CLI_BUILD_H
#define CROWD_CLI_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crowd/crowd.h"
#include "scenario.h"

// What an agent does, for the recording and the viewer's colors.
typedef enum agent_kind {
    AGENT_PLAIN,     // separation only
    AGENT_SEEK,      // goal: seek
    AGENT_ARRIVE,    // goal: arrive
    AGENT_FLEE,      // goal: flee
    AGENT_QUEUE,     // queue
    AGENT_WAYPOINTS, // path following, waypoints
    AGENT_TUBE,      // path following, tube
    AGENT_LEADER,    // has followers
    AGENT_FOLLOWER,  // follows a leader
    AGENT_KIND_COUNT
} agent_kind;

const char* agent_kind_name(agent_kind k);

typedef struct build_options {
    int threads;         // OpenMP threads per step, 0 = all cores
    double agents_scale; // every crowd's count times this (followers per leader stay), > 0
    // When > 0, caps the navigation grid's cells and the fields' bytes below the scenario's own
    // (crowd_nav_def.max_cells, .budget): the fuzz target bounds the work of an input with them.
    int64_t nav_max_cells;
    size_t nav_budget;
    // The world's allocator hooks (crowd_world_def.alloc, .free, .alloc_user); NULL: the C
    // library's. The Python module keeps freed column buffers alive while numpy views them.
    crowd_alloc_fn* alloc;
    crowd_free_fn* free;
    void* alloc_user;
} build_options;

typedef struct built_world {
    const scenario* sc;
    crowd_world* world;
    uint8_t* kind; // agent_kind by handle index (index1 - 1)
    int kind_cap;
    int agents;            // agents the scenario added
    crowd_path_id* paths;  // the scenario's paths, created in the world on first use (or NULL)
    crowd_exits_id* exits; // the scenario's exit sets, created with the obstacles (or NULL)
} built_world;

// Agents the scenario adds at this scale: every crowd's scaled count times (1 + followers).
int64_t scenario_agent_total(const scenario* sc, double agents_scale);
int scenario_scaled_count(int count, double agents_scale);

// Builds the world. On failure returns false with a one-line message in err and *out empty.
bool scenario_build(const scenario* sc, const build_options* opt, built_world* out, char* err,
                    size_t errlen);
void built_world_free(built_world* b);

// Marks agent `id` as `kind` for the recording; false when out of memory.
bool built_world_set_kind(built_world* b, crowd_agent_id id, agent_kind kind);

// ---- build_behaviors.c: the queue, path-following and follow-leader sections ----------------
// Each is called once per crowd that has the section, after the crowd's agents were added with
// their separation, limits and (for queues) their goal set to the queue's target. Each returns
// false with "file:line:col: message" in err when the section cannot be built.

bool build_queue(built_world* b, const sc_crowd* crowd, const crowd_agent_id* ids, int count,
                 char* err, size_t errlen);
bool build_path(built_world* b, const sc_crowd* crowd, const crowd_agent_id* ids, int count,
                char* err, size_t errlen);
// followers[k * crowd->followers.count + j] is follower j of leaders[k], already placed in its
// formation slot.
bool build_leader(built_world* b, const sc_crowd* crowd, const crowd_agent_id* leaders,
                  int leader_count, const crowd_agent_id* followers, char* err, size_t errlen);

// ---- placement.c -------------------------------------------------------------------------------
typedef struct scene_rng scene_rng;

// Position of agent k of n in `area`; draws from rng only for the random kinds.
crowd_vec2 area_point(const sc_area* area, int k, int n, scene_rng* rng);
// Offset of slot k of n in the leader's frame (x forward, y to the left).
crowd_vec2 formation_offset(const sc_followers* f, int k, int n);

#endif
