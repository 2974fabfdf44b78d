// crowdstep internals shared by the library's translation units. Not installed.
#ifndef CROWD_INTERNAL_H
#define CROWD_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "crowd/crowd.h"
#include "follow.h"
#include "grid.h"
#include "queue.h"
#include "team.h"

// Fixed lane count of every neighbor accumulation. The sums are always carried in this many
// lanes and reduced in one fixed order, whatever vector width the compiler picks, so a build for
// AVX-512 and a portable SSE2 build give bit-identical results.
#define CROWD_LANES 8

// Sorted arrays are over-allocated by this many elements so a CROWD_LANES-wide chunk that starts
// at the last agent may read past it without leaving the allocation.
#define CROWD_PAD CROWD_LANES

// Per-agent behavior bits, kept in the sorted `flags` column so passes can skip agents cheaply.
enum {
    CROWD_FLAG_GOAL = 1u << 0,   // has a seek / arrive / flee goal
    CROWD_FLAG_QUEUE = 1u << 1,  // brakes for agents in its forward cone
    CROWD_FLAG_FOLLOW = 1u << 2, // follows a leader (group separation in the neighbor pass)
    CROWD_FLAG_PATH = 1u << 3,   // follows a path
    CROWD_FLAG_LEADER = 1u << 4, // has followers (the leader pass caches its state per step)
};

// Columns that the sort gathers into cell order every tick. All are 4 bytes wide so one gather
// loop serves them all. The first CROWD_KIN_COUNT are the kinematic state that the integration
// double-buffers; the rest change only between steps.
enum {
    CROWD_COL_PX,
    CROWD_COL_PY,
    CROWD_COL_VX,
    CROWD_COL_VY,
    CROWD_COL_HX,
    CROWD_COL_HY,
    CROWD_KIN_COUNT,
    CROWD_COL_ID = CROWD_KIN_COUNT, // agent index (handle index1 - 1)
    CROWD_COL_MAX_SPEED,
    CROWD_COL_MAX_FORCE,
    CROWD_COL_SEP_RADIUS,
    CROWD_COL_SEP_WEIGHT,
    CROWD_COL_FLAGS,
    CROWD_COL_GROUP, // follow group (leader agent index + 1), 0 = none
    CROWD_COL_COUNT
};

typedef union crowd_columns {
    struct {
        float *px, *py, *vx, *vy, *hx, *hy;
        uint32_t* id;
        float *max_speed, *max_force, *sep_radius, *sep_weight;
        uint32_t *flags, *group;
    };
    void* col[CROWD_COL_COUNT];
} crowd_columns;

_Static_assert(sizeof(crowd_columns) == CROWD_COL_COUNT * sizeof(void*), "column view mismatch");

// A path follower's cursor, the revision of its path the cursor was last synced to (a replaced
// path is noticed by the agent itself, see path_internal.h) and, while it is lost, the distance
// at which it last searched the whole path.
typedef struct crowd_path_agent {
    crowd_path_cursor cursor;
    uint32_t revision;
    float lost_dist;
} crowd_path_agent;

struct crowd_world {
    crowd_alloc_fn* alloc;
    crowd_free_fn* free;
    void* alloc_user;

    float dt;
    float cell_size;
    int threads_requested;
    int threads; // resolved, >= 1
    int max_agents;
    uint16_t tag;
    uint64_t tick;

    // Sorted storage: slot s in [0, count) holds one live agent; cur is the front buffer.
    int count;
    int capacity; // sorted slots and agent indices allocated
    crowd_columns cur, alt;

    // Per-slot scratch written by the passes of one step (not gathered).
    float *force_x, *force_y; // weighted behavior forces, summed in pass order
    float *gsep_x, *gsep_y;   // separation among followers of the same group (unweighted)
    float* cone_along;        // queue: closest agent ahead along the heading, +inf if none
    uint32_t *key, *order;    // sort keys (input order) and the gather permutation
    uint32_t* skey;           // cell key of each sorted slot

    // Spatial hash built by the last sort.
    crowd_grid grid;
    uint32_t* cell_start; // grid.buckets + 1 entries
    uint32_t* hist;       // threads x bucket_capacity per-thread histograms
    uint32_t bucket_capacity;
    int hist_threads;

    // Per-agent-index storage (stable while the agent lives).
    int index_count;      // indices ever issued (high-water mark)
    uint16_t* generation; // current generation of each index
    int32_t* slot_of;     // sorted slot of each live index, -1 when free
    int32_t* free_list;   // LIFO stack of free indices
    int free_count;
    float* radius;
    crowd_goal* goal;
    uint64_t* user_data;
    float *cone_length, *cone_width; // queue cone per agent index
    crowd_queue_agent* queue;        // queue goal and arrival policy per agent index
    crowd_queue_def* queue_def;      // the queue as set, per agent index

    // Queue arrivals (queue.c).
    uint8_t* arrived;        // per slot: the arrival test's result
    crowd_arrival* arrivals; // the last step's arrivals in handle order (capacity entries)
    int arrival_count;
    uint64_t rng;                    // splitmix64 state: respawn points, drawn in handle order
    crowd_path_follow_def* path_def; // path parameters per agent index (CROWD_FLAG_PATH)
    crowd_path_agent* path_state;    // path cursor per agent index

    struct crowd_path_table* paths; // shared polylines; NULL until the first path is created
    crowd_follow_store follow;      // follow leader: per-index records, groups, slot scratch

    crowd_profile profile;
};

// ---- storage (world.c) --------------------------------------------------------------------------
void* crowd_alloc(crowd_world* w, size_t bytes);
void crowd_free(crowd_world* w, void* p, size_t bytes);
crowd_status crowd_world_grow(crowd_world* w, int capacity);

// Slot of a valid handle, or the error that makes it invalid.
crowd_status crowd_agent_slot(const crowd_world* w, crowd_agent_id id, int* slot);

// Frees every path (path_store.c); crowd_world_destroy calls it.
void crowd_paths_free(crowd_world* w);

// ---- passes, in tick order (step.c calls them) ----------------------------------------------
void crowd_pass_sort(crowd_world* w);
uint64_t crowd_pass_neighbor(crowd_world* w);
void crowd_pass_path(crowd_world* w);
void crowd_pass_goal(crowd_world* w);
void crowd_pass_integrate(crowd_world* w);
void crowd_pass_arrival(crowd_world* w);

#endif
