// crowdstep internals shared by the library's translation units. Not installed.
#ifndef CS_INTERNAL_H
#define CS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "behaviors/follow/follow_internal.h"
#include "behaviors/queue/queue_internal.h"
#include "core/grid.h"
#include "core/pool.h"
#include "core/team.h"
#include "crowd/crowd.h"
#include "walls/walls_store.h"

// Fixed lane count of every neighbor accumulation. The sums are always carried in this many
// lanes and reduced in one fixed order, whatever vector width the compiler picks, so a build for
// AVX-512 and a portable SSE2 build give bit-identical results.
#define CS_LANES 8

// Sorted arrays are over-allocated by this many elements so a CS_LANES-wide chunk that starts
// at the last agent may read past it without leaving the allocation.
#define CS_PAD CS_LANES

// Per-agent behavior bits, kept in the sorted `flags` column so passes can skip agents cheaply.
enum {
    CS_FLAG_GOAL = 1u << 0,   // has a seek / arrive / flee goal
    CS_FLAG_QUEUE = 1u << 1,  // brakes for agents in its forward cone
    CS_FLAG_FOLLOW = 1u << 2, // follows a leader (group separation in the neighbor pass)
    CS_FLAG_PATH = 1u << 3,   // follows a path
    CS_FLAG_LEADER = 1u << 4, // has followers (the leader pass caches its state per step)
};

// Columns that the sort gathers into cell order every tick. All are 4 bytes wide so one gather
// loop serves them all. The first CS_KIN_COUNT are the kinematic state that the integration
// double-buffers; the rest change only between steps.
enum {
    CS_COL_PX,
    CS_COL_PY,
    CS_COL_VX,
    CS_COL_VY,
    CS_COL_HX,
    CS_COL_HY,
    CS_KIN_COUNT,
    CS_COL_ID = CS_KIN_COUNT, // agent index (handle index1 - 1)
    CS_COL_MAX_SPEED,
    CS_COL_MAX_FORCE,
    CS_COL_SEP_RADIUS,
    CS_COL_SEP_WEIGHT,
    CS_COL_FLAGS,
    CS_COL_GROUP, // follow group (leader agent index + 1), 0 = none
    CS_COL_COUNT
};

typedef union cs_columns {
    struct {
        float *px, *py, *vx, *vy, *hx, *hy;
        uint32_t* id;
        float *max_speed, *max_force, *sep_radius, *sep_weight;
        uint32_t *flags, *group;
    };
    void* col[CS_COL_COUNT];
} cs_columns;

_Static_assert(sizeof(cs_columns) == CS_COL_COUNT * sizeof(void*), "column view mismatch");

// A path follower's cursor, the revision of its path the cursor was last synced to (a replaced
// path is noticed by the agent itself, see path_internal.h) and, while it is lost, the distance
// at which it last searched the whole path.
typedef struct cs_path_agent {
    crowd_path_cursor cursor;
    uint32_t revision;
    float lost_dist;
} cs_path_agent;

// A path follower's record, from crowd_agent_set_path to crowd_agent_clear_path or removal (it
// outlives CS_FLAG_PATH when the path is destroyed: the agent reports DETACHED).
typedef struct cs_path_rec {
    crowd_path_follow_def def;
    cs_path_agent agent;
} cs_path_rec;

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
    // cur holds every column; alt only the kinematic ones, the back buffer of the integration.
    // The other columns change only between steps and are gathered one at a time through a
    // single spare column, so they cost one buffer each plus one, not two each.
    cs_columns cur, alt;
    void* spare;

    // Per-slot scratch written by the passes of one step (not gathered). What only a behavior's
    // agents need between passes lives in their records instead.
    float *force_x, *force_y; // weighted behavior forces, summed in pass order
    uint32_t* skey;           // cell key of each sorted slot

    // Spatial hash built by the last sort.
    cs_grid grid;
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
    float radius_max; // the largest radius any agent has had: bounds the walls' queries
    uint64_t* user_data;

    // Behavior state: per agent index only a record number (-1 = none), records in pools.
    int32_t* goal_rec;  // goal record; none means crowd_goal_default()
    cs_pool goal_pool;  // crowd_goal
    int32_t* queue_rec; // queue record, present exactly while CS_FLAG_QUEUE
    cs_pool queue_pool; // cs_queue_rec; aux: the last step's arrivals in handle order
    int arrival_count;
    uint64_t rng;      // splitmix64 state: respawn points, drawn in handle order
    int32_t* path_rec; // path record (see cs_path_rec)
    cs_pool path_pool; // cs_path_rec

    struct cs_path_table* paths; // shared polylines; NULL until the first path is created
    cs_follow_store follow;      // follow leader: records, groups, slot scratch
    int32_t* wall_rec;           // wall-avoidance record; none means crowd_wall_def_default()
    cs_pool wall_pool;           // crowd_wall_def
    float look_ahead_max;        // the largest wall look-ahead any agent has had

    cs_walls walls; // static obstacles and their segment grid

    crowd_profile profile;
};

// ---- behavior records --------------------------------------------------------------------------

static inline crowd_goal* cs_goal_of(const crowd_world* w, uint32_t idx) {
    return cs_pool_find(&w->goal_pool, w->goal_rec, idx);
}
static inline cs_queue_rec* cs_queue_of(const crowd_world* w, uint32_t idx) {
    return cs_pool_find(&w->queue_pool, w->queue_rec, idx);
}
static inline cs_path_rec* cs_path_of(const crowd_world* w, uint32_t idx) {
    return cs_pool_find(&w->path_pool, w->path_rec, idx);
}
static inline crowd_wall_def* cs_wall_def_of(const crowd_world* w, uint32_t idx) {
    return cs_pool_find(&w->wall_pool, w->wall_rec, idx);
}
static inline cs_follower* cs_follower_of(const crowd_world* w, uint32_t idx) {
    return cs_pool_find(&w->follow.follower_pool, w->follow.follower_rec, idx);
}
static inline cs_leader* cs_leader_of(const crowd_world* w, uint32_t idx) {
    return cs_pool_find(&w->follow.leader_pool, w->follow.leader_rec, idx);
}

// The sort phase lays the behavior records out in slot order on ticks that are multiples of this.
// Every tick costs more than it saves (at 50k-100k agents with every behavior, 2 threads, every
// 4th tick was 15-25% faster than every tick; every 8th no faster than every 4th).
#define CS_RECORD_PERIOD 4

// Records themselves are laid out in (nearly) slot order by the sort phase, but a record number is
// found through the per-agent-index table, which a loop over slots reads at random. Called by an
// agent the loop works on, this fetches, for agents with `flag`, that entry CS_PREFETCH slots
// ahead. Reads flags only below `end`.
#define CS_PREFETCH 32

static inline void cs_prefetch_rec(const cs_columns* c, const int32_t* rec_of, uint32_t flag, int s,
                                   int end) {
    const int far = s + CS_PREFETCH;
    if (far < end && (c->flags[far] & flag)) __builtin_prefetch(&rec_of[c->id[far]]);
}

// ---- storage (world.c) --------------------------------------------------------------------------
void* cs_alloc(crowd_world* w, size_t bytes);
void cs_free(crowd_world* w, void* p, size_t bytes);
crowd_status cs_world_grow(crowd_world* w, int capacity);

// Slot of a valid handle, or the error that makes it invalid.
crowd_status cs_agent_slot(const crowd_world* w, crowd_agent_id id, int* slot);

// Marks an agent index as holding no behavior record (agent.c). New indices come zero-filled, and
// 0 is a record number: an index gets this before it is used.
void cs_records_reset(crowd_world* w, uint32_t idx);

// Goal records (agent.c). Reserve first: store then cannot fail. A default goal is stored as no
// record.
crowd_status cs_goal_reserve(crowd_world* w, uint32_t idx, const crowd_goal* g);
void cs_goal_store(crowd_world* w, uint32_t idx, const crowd_goal* g);
void cs_goal_release(crowd_world* w, uint32_t idx);

// Removal hooks: crowd_agent_remove releases the agent's records (after cs_follow_on_remove,
// the one that can fail).
void cs_queue_on_remove(crowd_world* w, uint32_t idx);
void cs_path_on_remove(crowd_world* w, uint32_t idx);

// Wall-avoidance records (behaviors/walls/walls_agent.c), kept like goals: reserve, then store;
// a default def is stored as no record.
crowd_status cs_wall_def_check(const crowd_wall_def* d);
crowd_status cs_wall_def_reserve(crowd_world* w, uint32_t idx, const crowd_wall_def* d);
void cs_wall_def_store(crowd_world* w, uint32_t idx, const crowd_wall_def* d);
void cs_wall_def_release(crowd_world* w, uint32_t idx);
crowd_wall_def cs_wall_def_get(const crowd_world* w, uint32_t idx);

// Frees every path (path_store.c); crowd_world_destroy calls it.
void cs_paths_free(crowd_world* w);

// ---- passes, in tick order (step.c calls them) ----------------------------------------------
void cs_pass_sort(crowd_world* w);
uint64_t cs_pass_neighbor(crowd_world* w);
void cs_pass_path(crowd_world* w);
void cs_pass_goal(crowd_world* w);
void cs_pass_walls(crowd_world* w);
void cs_pass_integrate(crowd_world* w);
void cs_pass_clamp(crowd_world* w);
void cs_pass_arrival(crowd_world* w);

#endif
