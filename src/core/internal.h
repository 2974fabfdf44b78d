// crowdstep internals shared by the library's translation units. Not installed.
#ifndef CS_INTERNAL_H
#define CS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "behaviors/registry.h"
#include "core/behavior.h"
#include "core/fetch.h"
#include "core/grid.h"
#include "core/pool.h"
#include "core/profile.h"
#include "core/team.h"
#include "crowd/crowd.h"
#include "nav/nav.h"
#include "walls/walls_store.h"

// Fixed lane count of every neighbor accumulation. The sums are always carried in this many
// lanes and reduced in one fixed order, whatever vector width the compiler picks, so a build for
// AVX-512 and a portable SSE2 build give bit-identical results.
#define CS_LANES 8

// Sorted arrays are over-allocated by this many elements so a CS_LANES-wide chunk that starts
// at the last agent may read past it without leaving the allocation.
#define CS_PAD CS_LANES

// The last generation of an agent index: removing an agent that has it retires the index (never
// reused, neither live nor free), so generations never wrap and handles never alias.
#define CS_GENERATION_LAST UINT16_MAX

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

// Every column: the core's, then the behaviors' hot columns (behaviors/registry.h), NULL until
// allocated (cs_world_hot_column).
#define CS_COL_ALL (CS_COL_COUNT + CS_HOT_COUNT)

typedef union cs_columns {
    struct {
        float *px, *py, *vx, *vy, *hx, *hy;
        uint32_t* id;
        float *max_speed, *max_force, *sep_radius, *sep_weight;
        uint32_t *flags, *group;
        void* hot[CS_HOT_COUNT];
    };
    void* col[CS_COL_ALL];
} cs_columns;

_Static_assert(CS_HOT_COUNT <= 32, "hot_used has a bit per hot column");
_Static_assert(sizeof(cs_columns) == CS_COL_ALL * sizeof(void*), "column view mismatch");

// Column buffers that hold no column: the integration's back buffers. The integration writes the
// position and the heading out of place (the walls' clamp reads their values from before it
// through alt) and the velocity in place, which nothing reads the old value of. The sort gathers
// every column out of place through these buffers and its own key array (sort.c).
#define CS_FREE_COLS 4

// The kinematic column whose back buffer free buffer k is during the integration.
static inline int cs_back_col(int k) {
    return k < 2 ? CS_COL_PX + k : CS_COL_HX + (k - 2);
}

// One pass of the tick (step.c): the resolved, ordered list every step runs.
typedef struct cs_tick_pass {
    crowd_phase phase;
    void (*run)(crowd_world* w);
} cs_tick_pass;

// Room for the core's four passes and every behavior's.
#define CS_TICK_MAX (4 + CS_BEH_COUNT * CS_BEHAVIOR_MAX_PASSES)

struct crowd_world {
    crowd_alloc_fn* alloc;
    crowd_free_fn* free;
    void* alloc_user;

    float dt;
    float cell_size;
    int threads_requested;
    int threads;       // resolved, >= 1
    int max_neighbors; // 0 = no cap (neighbor.c), else the capped pass (neighbor_cap.c)
    int max_agents;
    uint16_t tag;
    uint64_t tick;
    // The passes of a step in order (cs_tick_build), and the failure of the step's pass that
    // failed (only the route pass can: it allocates fields).
    cs_tick_pass tick_passes[CS_TICK_MAX];
    int tick_len;
    crowd_status step_status;

    // Sorted storage: slot s in [0, count) holds one live agent; cur is the front buffer.
    int count;
    // Sorted slots allocated: the per-slot arrays (columns, free buffers, forces, clearances) are
    // this long (plus CS_PAD), and the cell table and histograms are sized from it. It follows the
    // agents the world stores (count; in a split world also the copies it holds for a step), not
    // the indices: a process that stores a quarter of a split world's agents has a quarter of the
    // slots (index_capacity sizes the per-index arrays).
    int slot_capacity;
    // cur holds every column. free_col are buffers of column size that hold no column between
    // passes: the sort gathers into them, from the neighbor pass to the integration they hold the
    // neighbor queries' outputs (cs_nb_out), and the integration writes its back buffers there, so
    // the columns cost CS_FREE_COLS buffers more than one each, not two each.
    // alt: the position and heading columns as they were before this step's integration (only
    // those, and only from the integration to the end of the step: the buffers are free_col
    // again); alt's other columns are NULL.
    cs_columns cur, alt;
    void* free_col[CS_FREE_COLS];
    // Changes whenever cur's pointers or the agent of a slot may change: every step, add, remove
    // and storage growth (crowd_world_columns).
    uint64_t columns_epoch;
    // Hot columns some agent has held a value other than 0 in (bit k: cur.hot[k]), which the sort
    // gathers; an allocated column outside it is 0 in every slot, wherever its agents went.
    uint32_t hot_used;

    // Per-slot scratch written by the passes of one step (not gathered).
    float *force_x, *force_y; // weighted behavior forces: set by the neighbor pass, summed after
    // With obstacles, each agent's clearance and sight clearance, written by the clearance pass
    // (src/walls/walls_clearance.c) and read by the neighbor pass (the sight clearance) and the
    // walls behavior's passes of the same step; an agent they leave with work reads its cell's
    // list (cs_walls_list_at). NULL until the world's first obstacle (cs_world_wall_arrays): every
    // reader runs only while the world has obstacles.
    float* wall_clear;
    float* wall_sight;
    // With obstacles, each agent's probe clearance: a lower bound of the distance from the walls
    // to the segment from its centre to centre + velocity * walls.probe_time, also from the
    // clearance pass, read by the wall force.
    float* wall_probe;

    // Spatial hash built by the last sort.
    cs_grid grid;
    uint32_t* cell_start; // grid.buckets + 1 entries
    uint32_t* hist;       // (threads - 1) x bucket_capacity histograms (grid.h); NULL for one
    uint32_t bucket_capacity;
    int hist_threads;
    // What the last sort's grid still tells about where the agents are now, for the obstacle add's
    // search for agents the obstacle would cover (walls_api.c), which then visits the cells around
    // the obstacle rather than every agent. While `intact`, slots [0, sorted) hold the agents the
    // sort put there, each at most `moved` metres (the bits of a float: the largest move of the
    // step, integration and clamp, see cs_grid_since_moved) from where the sort found it in its
    // cell, and slots from `sorted` on hold agents added since. Anything else that moves an agent
    // or its slot (a removal, which fills the hole from the end; a position set; a queue respawn;
    // a new grid allocation) ends that until the next sort (cs_grid_since_break).
    struct {
        bool intact;
        int32_t sorted;
        uint32_t moved;
    } since_sort;

    // Per-agent-index storage (stable while the agent lives).
    int index_count;      // indices ever issued (high-water mark)
    int index_capacity;   // length of the per-index arrays below, >= index_count
    uint16_t* generation; // current generation of each index
    // Sorted slot of each live index; below 0 otherwise: -1 for an index neither live nor free
    // (retired), and a link of the free stack for a free one (cs_free_push).
    int32_t* slot_of;
    int32_t free_top; // the free stack's top index, -1 when empty
    int free_count;
    float* radius;
    float radius_max; // the largest radius any agent has had: bounds the walls' queries
    // Each index's user_data; NULL until an agent gets a value other than 0 (cs_user_data reads 0
    // for every index then): most worlds never set one.
    uint64_t* user_data;

    // Behavior state (see core/behavior.h): per agent index only a record number per record kind
    // (-1 = none), the records in one pool per kind, and each behavior's world-level state. A
    // kind's record numbers are NULL, read as -1 for every index (cs_rec_num), until its pool's
    // first reservation (cs_pool_reserve): most worlds use only some of the kinds.
    int32_t* rec_of[CS_REC_COUNT];
    cs_pool pools[CS_REC_COUNT];
    // Where the sort lays out one pool's records before copying them back (core/pool.h), after
    // the free per-slot buffers (cs_scratch_free_records): what the largest pool needs beyond
    // them, grown by cs_pool_reserve.
    unsigned char* rec_spare;
    size_t rec_spare_bytes;
    void* state[CS_BEH_COUNT];
    cs_profiles profiles[CS_PROF_COUNT]; // the behaviors' parameter profiles (core/profile.h)
    uint64_t seed; // keys the random draws (queue respawn points) with the handle and the tick
    // A world split across processes (src/dist/) stores only some of the live agents; this says,
    // per agent index, whether its handle is live on any process. NULL in one process.
    const uint8_t* split_live;

    cs_walls walls; // static obstacles and their segment grid (src/walls/)
    cs_nav nav;     // the navigation grid, the fields and exit sets (src/nav/)

    crowd_profile profile;
};

// ---- behavior records --------------------------------------------------------------------------

// The per-slot buffers that hold nothing while the sort lays records out, after its gather: the
// free column buffers and the force arrays (the sort's own key and order arrays, done with by
// then; the neighbor pass writes them next). Each is 4-byte elements, CS_PAD past capacity. The
// grid sort's histograms (none with one thread) follow them: nothing reads those after the grid
// sort either.
#define CS_SCRATCH_BUFS (CS_FREE_COLS + 2)
_Static_assert(CS_SCRATCH_BUFS + 2 <= CS_SCRATCH_MAX, "the histograms, then the spare array");

static inline size_t cs_scratch_buf_bytes(int capacity) {
    return 4 * ((size_t)capacity + CS_PAD);
}

// The grid sort's histograms: one per thread but the last, which counts in the cell table.
static inline size_t cs_hist_bytes(uint32_t buckets, int threads) {
    return threads > 1 ? sizeof(uint32_t) * buckets * (size_t)(threads - 1) : 0;
}

// Records of `size` bytes that the free per-slot buffers and histograms hold in a world of
// `capacity` agents whose histograms are `hist_bytes` long.
static inline int64_t cs_scratch_records(int capacity, size_t hist_bytes, size_t size) {
    return (int64_t)CS_SCRATCH_BUFS * (int64_t)(cs_scratch_buf_bytes(capacity) / size) +
           (int64_t)(hist_bytes / size);
}

static inline int64_t cs_scratch_free_records(const crowd_world* w, size_t size) {
    return cs_scratch_records(w->slot_capacity, cs_hist_bytes(w->bucket_capacity, w->hist_threads),
                              size);
}

// The record number of kind `kind` of agent index idx, -1 for none.
static inline int32_t cs_rec_num(const crowd_world* w, int kind, uint32_t idx) {
    return w->rec_of[kind] ? w->rec_of[kind][idx] : -1;
}

// The record of kind `kind` of agent index idx, or NULL.
static inline void* cs_record_of(const crowd_world* w, int kind, uint32_t idx) {
    return cs_pool_find(&w->pools[kind], w->rec_of[kind], idx); // NULL numbers: no record
}

// ---- the state hash (state.c; behaviors add theirs through their table entries) ----------------

static inline uint64_t cs_hash_word(uint64_t h, uint32_t v) {
    h ^= v;
    h *= 0x100000001b3ull; // FNV-1a prime, applied per 32-bit word
    h ^= h >> 29;
    return h;
}

static inline uint64_t cs_hash_float(uint64_t h, float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return cs_hash_word(h, u);
}

// The sort phase lays the records of each pool a pass reads every tick (cs_record_def.slot_order)
// out in slot order every CS_RECORD_PERIOD ticks,
// the pool of kind k on the ticks where tick % CS_RECORD_PERIOD == k % CS_RECORD_PERIOD, so the
// work is spread over the period instead of falling on one tick. Every tick costs more than it
// saves (at 50k-100k agents with every behavior, 2 threads, every 4th tick was 15-25% faster than
// every tick; every 8th no faster than every 4th).
#define CS_RECORD_PERIOD 4

// Records themselves are laid out in (nearly) slot order by the sort phase, but a record number is
// found through the per-agent-index table, which a loop over slots reads at random. Called by an
// agent the loop works on, this fetches, for agents with `flag`, that entry CS_PREFETCH slots
// ahead. Reads flags only below `end`.
#define CS_PREFETCH 32

CS_FETCH_HELPER void cs_prefetch_rec(const cs_columns* c, const int32_t* rec_of, uint32_t flag,
                                     int s, int end) {
    const int far = s + CS_PREFETCH;
    if (far < end && (c->flags[far] & flag) && rec_of) __builtin_prefetch(&rec_of[c->id[far]]);
}

// ---- storage (world.c) --------------------------------------------------------------------------
void* cs_alloc(crowd_world* w, size_t bytes);
void cs_free(crowd_world* w, void* p, size_t bytes);
// Grows the storage to at least `slots` sorted slots and `indices` agent indices (each no less
// than it is), then calls `then` (when not NULL) with the grown storage in place: the reservations
// that go with the growth. All or nothing: when either fails the storage is as it was, capacities
// included (what `then` itself grew before failing is its own to leave unobservable, as the
// behaviors' reserve hooks do).
typedef crowd_status cs_grow_then(crowd_world* w, void* ctx);
crowd_status cs_world_grow(crowd_world* w, int slots, int indices, cs_grow_then* then, void* ctx);
// As cs_world_grow for room for `slots` slots and `indices` indices, each capacity that lacks room
// doubled until it has it (capped by max_agents): growth one agent at a time costs amortized O(1).
crowd_status cs_world_grow_for(crowd_world* w, int64_t slots, int64_t indices, cs_grow_then* then,
                               void* ctx);
// Shrinks the slot capacity back to `slots` (never below the agents stored; nothing when it is
// not larger): a split world's rank 0 after holding the whole world for a gather. On failure the
// storage is as it was.
crowd_status cs_world_fit_slots(crowd_world* w, int slots);
// Allocates the clearance arrays (wall_clear, wall_sight, wall_probe) if the world has
// none yet; they grow with the storage from then on. Called before the world gets an obstacle. On
// failure (CROWD_ERR_OUT_OF_MEMORY) the world is unchanged.
crowd_status cs_world_wall_arrays(crowd_world* w);

// See crowd_world.since_sort.
static inline void cs_grid_since_break(crowd_world* w) {
    w->since_sort.intact = false;
}

// Raises since_sort.moved to m (>= 0) from any thread of a pass: the largest is the same whatever
// order the threads come in. Non-negative floats order as their bits do.
static inline void cs_grid_since_moved(crowd_world* w, float m) {
    uint32_t want, have = __atomic_load_n(&w->since_sort.moved, __ATOMIC_RELAXED);
    memcpy(&want, &m, sizeof want);
    while (want > have && !__atomic_compare_exchange_n(&w->since_sort.moved, &have, want, true,
                                                       __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}

// Allocates hot column `col` (cs_hot_col, zero-filled) if the world has none yet; it grows with
// the storage and rides the sort from then on. On failure (CROWD_ERR_OUT_OF_MEMORY) the world is
// unchanged.
crowd_status cs_world_hot_column(crowd_world* w, int col);

// A behavior is about to store a value other than 0 in hot column `col` (allocated).
static inline void cs_hot_use(crowd_world* w, int col) {
    w->hot_used |= 1u << col;
}

// The column when some agent holds a value in it, else NULL (every agent 0).
static inline const void* cs_hot_live(const crowd_world* w, int col) {
    return w->hot_used & (1u << col) ? w->cur.hot[col] : NULL;
}

static inline float* cs_hot_f32(const crowd_world* w, int col) {
    return w->cur.hot[col];
}
static inline uint32_t* cs_hot_u32(const crowd_world* w, int col) {
    return w->cur.hot[col];
}

// Allocates user_data (zero-filled) if the world has none yet; it grows with the storage from then
// on. Called before an agent gets a user_data other than 0. On failure (CROWD_ERR_OUT_OF_MEMORY)
// the world is unchanged.
crowd_status cs_world_user_data(crowd_world* w);

static inline uint64_t cs_user_data(const crowd_world* w, uint32_t idx) {
    return w->user_data ? w->user_data[idx] : 0;
}

// Stores an index's user_data; a value other than 0 needs cs_world_user_data first.
static inline void cs_set_user_data(crowd_world* w, uint32_t idx, uint64_t v) {
    if (w->user_data) w->user_data[idx] = v;
}

// The handle of a live agent index: the one place a handle is built from storage.
static inline crowd_agent_id cs_agent_handle(const crowd_world* w, uint32_t idx) {
    return (crowd_agent_id){.index1 = idx + 1, .generation = w->generation[idx], .world = w->tag};
}

// Slot of a valid handle, or the error that makes it invalid.
crowd_status cs_agent_slot(const crowd_world* w, crowd_agent_id id, int* slot);

// True when the handle names a live agent, stored here or (in a split world) on another process.
static inline bool cs_agent_live(const crowd_world* w, crowd_agent_id id) {
    int s;
    if (cs_agent_slot(w, id, &s) == CROWD_OK) return true;
    const uint32_t idx = id.index1 - 1;
    return w->split_live && id.index1 != 0 && id.world == w->tag &&
           idx < (uint32_t)w->index_count && w->split_live[idx] &&
           w->generation[idx] == id.generation;
}

// ---- free agent indices: a LIFO stack threaded through slot_of
// ------------------------------------ A free index's slot_of is cs_free_link(the index below it in
// the stack, or -1 at the bottom): -2 and less, so every "slot_of < 0" test still reads "not live",
// and no array of its own.

static inline int32_t cs_free_link(int32_t below) {
    return -3 - below;
}

static inline int32_t cs_free_below(int32_t link) {
    return -3 - link;
}

static inline bool cs_index_free(const crowd_world* w, uint32_t idx) {
    return w->slot_of[idx] <= -2;
}

static inline void cs_free_push(crowd_world* w, uint32_t idx) {
    w->slot_of[idx] = cs_free_link(w->free_top);
    w->free_top = (int32_t)idx;
    w->free_count++;
}

// The top free index, taken off the stack (its slot_of is -1 until the caller places it).
static inline uint32_t cs_free_pop(crowd_world* w) {
    const uint32_t idx = (uint32_t)w->free_top;
    w->free_top = cs_free_below(w->slot_of[idx]);
    w->slot_of[idx] = -1;
    w->free_count--;
    return idx;
}

// Marks an agent index as holding no behavior record (agent.c). New indices come zero-filled, and
// 0 is a record number: an index gets this before it is used. (A kind's array allocated later
// starts at -1 for every index.)
void cs_records_reset(crowd_world* w, uint32_t idx);

// The def of agent idx in slot s as crowd_agent_get_def reads it back (the behaviors' fields
// through their get_def hooks).
void cs_agent_def_of(const crowd_world* w, uint32_t idx, int s, crowd_agent_def* out);

// Removes a live agent: every behavior's on_remove hook, then storage. Cannot fail and allocates
// nothing (the arrival phase removes agents inside a step through it); crowd_agent_remove is this
// after the handle check.
void cs_agent_remove_now(crowd_world* w, uint32_t idx);

// ---- passes of the core, in tick order (step.c runs them and the behaviors' between) ------------
// Lays out w->tick_passes from the core's passes and the behavior table, and checks that every
// behavior pass has a phase after the neighbor pass (which sets the forces the others add to).
// CROWD_ERR_INVALID_ENUM: the library's own tables disagree (a build defect every test catches).
crowd_status cs_tick_build(crowd_world* w);
void cs_pass_sort(crowd_world* w);
void cs_pass_neighbor(crowd_world* w);  // sets profile.candidates
void cs_pass_clearance(crowd_world* w); // with obstacles: the wall clearances of every agent
// The same for the agents of [lo, hi), lo a multiple of 32: the uncapped neighbor pass calls it
// for each of its chunks.
void cs_walls_clearance_range(crowd_world* w, int lo, int hi);
void cs_pass_neighbor_capped(crowd_world* w); // with a neighbor cap; sets profile.candidates
void cs_pass_integrate(crowd_world* w);

// A neighbor query's subscribers (core/behavior.h), resolved for one pass: agents with `flag`
// (0: nobody) read their inputs from their profiles (or hot columns: cs_nb_in) and write their
// outputs per slot (cs_nb_out). The neighbor pass and its capped form both resolve through this.
typedef struct cs_nb_use {
    uint32_t flag;
    bool live; // some agent holds the subscription's record kind (cs_neighbor_use.kind)
    const unsigned char* prof; // the subscriber's profiles (NULL without inputs)
    uint32_t prof_size;
    const uint32_t* prof_of; // per slot: profile number + 1
    uint16_t in[4];
    const float* in_col[4];            // per slot, for the inputs from hot columns (else NULL)
    float* out[2];                     // per slot (cs_nb_out)
    float min_len, reach_scale, align; // as the subscription (cs_neighbor_use) gives them
} cs_nb_use;

// The neighbor queries' outputs (cs_neighbor_query: one or two each, CS_NB_OUTPUTS) per slot,
// written by the neighbor pass for each query's subscribers and read by their passes later in the
// same step, live in the free column buffers: those hold nothing from the sort to the integration,
// which writes its back buffers there (core/step.c). Output k of query q; NULL past its outputs.
static inline float* cs_nb_out(const crowd_world* w, int q, int k) {
    return k < cs_nb_outputs[q] ? w->free_col[cs_nb_first[q] + k] : NULL;
}

static inline cs_nb_use cs_nb_resolve(const crowd_world* w, cs_neighbor_query query) {
    for (int b = 0; b < CS_BEH_COUNT; ++b) {
        const cs_neighbor_use* u = &cs_behaviors[b].neighbor[query];
        if (!u->flag) continue;
        const cs_profiles* p = u->profile ? &w->profiles[u->profile - 1] : NULL;
        return (cs_nb_use){u->flag,
                           u->kind >= 0 ? w->pools[u->kind].live > 0
                                        : cs_hot_live(w, u->col) != NULL,
                           p ? p->data : NULL,
                           p ? p->size : 0,
                           p ? w->cur.hot[u->col] : NULL,
                           {u->in[0], u->in[1], u->in[2], u->in[3]},
                           {u->in_col[0] ? w->cur.hot[u->in_col[0] - 1] : NULL,
                            u->in_col[1] ? w->cur.hot[u->in_col[1] - 1] : NULL,
                            u->in_col[2] ? w->cur.hot[u->in_col[2] - 1] : NULL,
                            u->in_col[3] ? w->cur.hot[u->in_col[3] - 1] : NULL},
                           {cs_nb_out(w, query, 0), cs_nb_out(w, query, 1)},
                           u->min_len,
                           u->reach_scale,
                           u->align};
    }
    return (cs_nb_use){0};
}

// The four queries' subscribers, resolved for one pass.
typedef struct cs_nb_uses {
    cs_nb_use cone, group, file, headway;
} cs_nb_uses;

// Agent s walked by the capped pass's rule (src/core/neighbor_cap.c): at most `scan` candidates of
// its query box, its own row outward, the k <= CROWD_MAX_NEIGHBORS nearest kept. It sets the
// agent's force and its queries' outputs and returns the candidates examined. The capped pass runs
// it for every agent, the uncapped one for an agent whose box holds more than
// CROWD_NEIGHBOR_BUDGET candidates.
uint64_t cs_nb_capped_agent(crowd_world* w, const cs_nb_uses* uses, int s, int k, int scan);

// Input field `k` of the subscriber in slot s (it has a profile: it has the subscription's flag).
static inline float cs_nb_in(const cs_nb_use* u, int s, int k) {
    if (u->in_col[k]) return u->in_col[k][s];
    float v;
    memcpy(&v, u->prof + (size_t)(u->prof_of[s] - 1) * u->prof_size + u->in[k], sizeof v);
    return v;
}

#endif
