// crowdstep: the world, its agents and the tick.
#ifndef CROWD_WORLD_H
#define CROWD_WORLD_H

#include <stddef.h>

#include "crowd/base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct crowd_world crowd_world;

// Allocator hooks. `alloc` returns memory aligned to `align` (a power of two, at most 64) or NULL;
// `free` receives the same size it was allocated with.
typedef void* crowd_alloc_fn(size_t size, size_t align, void* user);
typedef void crowd_free_fn(void* ptr, size_t size, void* user);

// Navigation (crowd/nav.h): the grid its fields are built on and the memory they may take.
typedef struct crowd_nav_def {
    // Routing on (the default). false: every goal and waypoint leg is straight, as
    // CROWD_ROUTE_STRAIGHT, and navigation takes no memory.
    bool enable;
    // Edge of a field cell in metres, in [CROWD_MIN_CELL_SIZE, CROWD_MAX_DISTANCE] (default 0.5).
    float cell_size;
    // Clearance routes keep from walls, in metres: cells whose centre is nearer a wall than this
    // are not walked through. In (cell_size / 2, CROWD_MAX_DISTANCE] (default 0.3, the default
    // agent radius): above half a cell, so that no wall can pass between two walkable cells.
    float clearance;
    // Bytes the fields may take together (default 1 GiB). A goal or path that would bring a new
    // destination into use beyond it is refused with CROWD_ERR_CAPACITY; obstacles that grow the
    // grid until the fields in use no longer fit suspend navigation (see max_cells).
    size_t budget;
    // Most cells of the grid, in [1, 2^30] (default 1 << 26: 4 x 4 km at 0.5 m). Obstacles spread
    // wider are never refused, but navigation is then suspended: no grid, every agent heads
    // straight (crowd_nav_stats.suspended) until obstacles are removed.
    int64_t max_cells;
} crowd_nav_def;

typedef struct crowd_world_def {
    float dt;        // tick length in seconds, in (0, CROWD_MAX_DT] (default 0.1)
    float cell_size; // spatial hash cell edge in metres, in [CROWD_MIN_CELL_SIZE,
                     // CROWD_MAX_DISTANCE] (default 2.5)
    int capacity;    // agents storage is sized for up front (default 1024): the sorted slots
                     // (which then grow with the agents held) and the agent indices (which grow
                     // with the indices issued)
    int max_agents;  // adding beyond this fails with CROWD_ERR_CAPACITY (default 1 << 24); an
                     // agent index retired after 65,536 uses (crowd_agent_remove) counts too
    int threads;     // OpenMP threads per step, at most CROWD_MAX_THREADS; 0 = all cores (capped at
                     // CROWD_MAX_THREADS), 1 = the calling thread only
    int max_neighbors;     // per-agent neighbor cap, 0 = none (default); see
                           // crowd_world_set_max_neighbors
    uint16_t world_tag;    // tag stamped on handles; 0 = derived from the world's address
    uint64_t seed;         // keys each random draw with handle and tick (respawns) (default 1)
    crowd_nav_def nav;     // default: crowd_nav_def_default()
    crowd_alloc_fn* alloc; // NULL = the C library's aligned_alloc
    crowd_free_fn* free;   // NULL = the C library's free
    void* alloc_user;
} crowd_world_def;

CROWD_API crowd_world_def crowd_world_def_default(void);
CROWD_API crowd_nav_def crowd_nav_def_default(void);

// Creates a world. On failure *out is set to NULL.
CROWD_API crowd_status crowd_world_create(const crowd_world_def* def, crowd_world** out);
CROWD_API void crowd_world_destroy(crowd_world* world);

// Advances the world by one tick of def.dt seconds. Performs no allocation, but for navigation
// (crowd/nav.h): its route phase allocates the fields of destinations that came into use and lays
// the grid again after obstacles changed; when that fails the step returns
// CROWD_ERR_OUT_OF_MEMORY having changed nothing. crowd_world_nav_update does that work outside a
// step.
CROWD_API crowd_status crowd_world_step(crowd_world* world);

// Sizes every buffer for `agents` agents so that adding up to that many (with their goals and wall
// defs) and stepping allocate nothing more: room for that many agents held and that many agent
// indices issued. Queues, paths and following get their storage from the calls that start them.
CROWD_API crowd_status crowd_world_reserve(crowd_world* world, int agents);

// Changes the number of OpenMP threads a step uses (0 = all cores, 1 = calling thread only).
CROWD_API crowd_status crowd_world_set_threads(crowd_world* world, int threads);
CROWD_API int crowd_world_get_threads(const crowd_world* world);

// Most neighbors crowd_world_set_max_neighbors allows, and the candidates an agent examines per
// allowed neighbor.
#define CROWD_MAX_NEIGHBORS 256
#define CROWD_NEIGHBOR_SCAN 4
// Candidates in an agent's query box past which the uncapped pass walks it capped (below).
#define CROWD_NEIGHBOR_BUDGET (CROWD_MAX_NEIGHBORS * CROWD_NEIGHBOR_SCAN)

// The per-agent neighbor cap, for worlds where agents may pile up (a server's clients can add
// any number of agents at one point: without a cap a step then costs n^2). 0 (the default) turns
// it off: every agent within the separation radius counts, up to the budget below. With a cap k in
// [1, CROWD_MAX_NEIGHBORS] each agent examines at most k * CROWD_NEIGHBOR_SCAN candidates of its
// query box, visiting its rows of grid cells from its own row outward (own, below, above, two
// below, ...) and each row's agents in their sorted order; of those it keeps the k nearest
// within its separation radius (equal distances: the lower handle index first) for separation
// and group separation, summed nearest first, and its queue cone takes the closest agent ahead
// among all it examined. The cost per agent is then at most k * CROWD_NEIGHBOR_SCAN candidates
// plus the rows of its query box, however many agents share a cell. Results stay deterministic
// and independent of the thread count; a capped world generally steps differently from an
// uncapped one, also where no agent has more than k neighbors (sums are taken in another order).
// Out of range: CROWD_ERR_BAD_COUNT.
//
// Without a cap (0), every agent whose query box (the cells its separation disc and its cone or
// headway reach) holds more than CROWD_NEIGHBOR_BUDGET agents is walked as with a cap of
// CROWD_MAX_NEIGHBORS, so no pile-up makes a step quadratic; the others are walked uncapped. A
// separation disc's 3 x 3 cells (at the default 2.5 m cell) hold that many only past 18 agents
// per m^2, far past what bodies reach, so a real crowd walks uncapped; the rule depends on the
// agents within the box alone (the same on any thread and rank count).
CROWD_API crowd_status crowd_world_set_max_neighbors(crowd_world* world, int max_neighbors);
CROWD_API int crowd_world_get_max_neighbors(const crowd_world* world);

CROWD_API int crowd_world_agent_count(const crowd_world* world);
CROWD_API float crowd_world_get_dt(const crowd_world* world);
CROWD_API uint64_t crowd_world_tick(const crowd_world* world);

// A 64-bit hash of every agent's state (handle, position, velocity, heading and behavior state)
// in handle order, and of the obstacles (handles and points). Equal hashes after equal inputs are
// the engine's determinism contract.
CROWD_API uint64_t crowd_world_state_hash(const crowd_world* world);

// Copies every live agent's handle, position and velocity, in handle order, into the caller's
// arrays (any of which may be NULL). `capacity` is the length of each array; when it is smaller
// than the agent count nothing is written, *count is set to the agent count and
// CROWD_ERR_BUFFER_TOO_SMALL is returned.
CROWD_API crowd_status crowd_world_get_agents(const crowd_world* world, crowd_agent_id* ids,
                                              crowd_vec2* positions, crowd_vec2* velocities,
                                              int capacity, int* count);

// Zero-copy access to the agents' current columns, for bindings and analysis (the Python package
// views them as numpy arrays). Row r of every column is one agent, in the engine's storage order
// (cell order after a step, not handle order); id[r] is that agent's index (its handle's index1 -
// 1; crowd_world_columns_handle gives the whole handle). The pointers are the engine's own
// buffers: they stay valid, and the rows keep their agents, until `epoch` changes. The epoch
// changes with every step (the step sorts the agents and rotates the column buffers), every add
// or remove and every growth of the storage (crowd_world_reserve, an add beyond the capacity).
// Calls that set an agent's state between steps (a position, a velocity) write into the same
// buffers and leave the epoch alone. Never write through the pointers.
typedef struct crowd_columns_view {
    int count;          // rows: the live agents
    const float* x;     // position x of row r
    const float* y;     // position y
    const float* vx;    // velocity x
    const float* vy;    // velocity y
    const float* hx;    // heading x (unit length)
    const float* hy;    // heading y
    const uint32_t* id; // agent index (handle index1 - 1) of row r
    uint64_t epoch;     // changes whenever the pointers or the rows' agents may change
} crowd_columns_view;

// Fills *out with the current columns. NULL world or out: CROWD_ERR_NULL_ARGUMENT.
CROWD_API crowd_status crowd_world_columns(const crowd_world* world, crowd_columns_view* out);
// The current epoch of crowd_world_columns alone (0 for NULL), to check a view cheaply.
CROWD_API uint64_t crowd_world_columns_epoch(const crowd_world* world);
// The live agent's handle of agent index `index` (a view's id[r]): *out is set to the null handle
// and CROWD_ERR_STALE_HANDLE returned when no live agent has that index, CROWD_ERR_FOREIGN_HANDLE
// when the world never issued it.
CROWD_API crowd_status crowd_world_columns_handle(const crowd_world* world, uint32_t index,
                                                  crowd_agent_id* out);

// Wall time of each phase of the last step.
typedef enum crowd_phase {
    CROWD_PHASE_SORT,      // cell keys, counting sort, gather into cell order (agents, records)
    CROWD_PHASE_ROUTE,     // navigation: the fields of the destinations in use, built or rebuilt
    CROWD_PHASE_NEIGHBOR,  // separation and queue-cone neighbor pass
    CROWD_PHASE_LEADER,    // follow-leader pass
    CROWD_PHASE_PATH,      // path-following pass
    CROWD_PHASE_GOAL,      // goal seek / arrive / flee and queue braking
    CROWD_PHASE_WALLS,     // wall avoidance force (nothing without obstacles)
    CROWD_PHASE_INTEGRATE, // controller limit and double-buffered integration
    CROWD_PHASE_CLAMP,     // moves cut and slid along the walls they meet (nothing without walls)
    CROWD_PHASE_ARRIVAL,   // queue arrivals: stop, remove or respawn
    CROWD_PHASE_COUNT
} crowd_phase;

CROWD_API const char* crowd_phase_name(crowd_phase phase);

typedef struct crowd_profile {
    double phase_ms[CROWD_PHASE_COUNT];
    double step_ms;      // the whole step
    uint64_t candidates; // neighbor candidates examined in the last step
    int agents;          // agents stepped
    int threads;         // threads the step ran on
} crowd_profile;

CROWD_API crowd_profile crowd_world_get_profile(const crowd_world* world);

// ---- agents ----------------------------------------------------------------------------------

typedef enum crowd_goal_mode {
    CROWD_GOAL_NONE = 0,
    CROWD_GOAL_SEEK, // crowd_steer_seek toward target
    // crowd_steer_arrive_stop toward target with slow_radius: stops on the target. The spec's
    // arrive with its slow radius of 1 m and the default max_force overshoots by 0.4 m (2 m at
    // 3 m/s) and comes back; this one brakes in time (see crowd/steer.h).
    CROWD_GOAL_ARRIVE,
    CROWD_GOAL_FLEE,           // crowd_steer_flee from target
    CROWD_GOAL_ARRIVE_LITERAL, // the spec's arrive: crowd_steer_arrive toward target, slow_radius
    CROWD_GOAL_MODE_COUNT
} crowd_goal_mode;

// How an agent heads for a point: around the walls (the default) or in a straight line.
typedef enum crowd_route {
    // Along the shortest way around walls and solid obstacles (crowd/nav.h): the agent steers at
    // the next corner of that way, and at its goal once the goal is in sight. With no obstacles in
    // the world, the same as STRAIGHT.
    CROWD_ROUTE_FIELD = 0,
    CROWD_ROUTE_STRAIGHT, // straight at the point, walls or not (the spec's seek and arrive)
    CROWD_ROUTE_COUNT
} crowd_route;

// Generational handle of an exit set (crowd/nav.h), the same scheme as crowd_agent_id. All-zero
// is the null handle: no exit set.
typedef struct crowd_exits_id {
    uint32_t index1;
    uint16_t generation;
    uint16_t world;
} crowd_exits_id;

// How a SEEK or ARRIVE goal walks among other agents.
//
// The spec's goal agent separates with crowd_steer_separation, which subtracts the agent's
// velocity once per neighbor within the separation radius: a drag that grows with the crowd. A
// corridor of goal agents at 0.5 persons/m^2 walks 0.53 m/s (pedestrians walk about 1.27 m/s,
// Weidmann 1993), at 1 person/m^2 0.31 m/s, two crossing streams 0.30 m/s, and a crowd at a door
// leaves at half the measured flow; yet nothing slows an agent for the people in front of it, so a
// crowd pressing for a door overlaps there. The default follows the purpose, a crowd that walks
// like pedestrians: the collision-free speed model (Tordeux, Chraibi and Seyfried 2016).
typedef enum crowd_goal_form {
    // The default. Four changes, the rest as the spec's:
    //  - separation pushes without the velocity term (crowd_steer_separation_push);
    //  - the desired speed is at most the headway speed of the one ahead:
    //    crowd_steer_headway_speed(s, max_speed, CROWD_GOAL_HEADWAY_GAP, CROWD_GOAL_HEADWAY_TIME).
    //    s is the distance along the agent's aim (the unit direction it steered along in the
    //    last step; none before its first step with an exit set) to the closest agent at most
    //    CROWD_GOAL_HEADWAY_WIDTH off that line and at most CROWD_GOAL_HEADWAY_REACH ahead whose
    //    own aim has a dot product above CROWD_GOAL_HEADWAY_ALIGN with the agent's, and which is
    //    ahead of the agent along the sum of the two aims (so of two agents converging side by
    //    side only the one behind gives way); +inf: none;
    //  - a SEEK closes the gap to its desired velocity in CROWD_GOAL_RESPONSE_TIME (the spec's
    //    seek: in 1 s);
    //  - a fluctuation, as in the social force model: an agent that walks slower than it wants
    //    (frustration f = 1 - |velocity| / desired speed) turns its way to the goal by the angle
    //    whose tangent is CROWD_GOAL_FLUCTUATION * f * r, r in [-1, 1) drawn from the agent's
    //    index and the whole seconds of simulated time. Without it, two agents that reach a
    //    narrow door side by side hold each other off it for good (separation against the
    //    goal's pull); with it, one goes first. The draws depend on nothing else, so results do
    //    not depend on the thread count.
    // A queueing agent steers by its queue's form (crowd/queue.h) whatever its goal's form, and a
    // FLEE or ARRIVE_LITERAL goal walks as the spec's.
    CROWD_GOAL_PEDESTRIAN = 0,
    CROWD_GOAL_FORM_LITERAL, // the spec's seek and arrive exactly, with the spec's separation
    CROWD_GOAL_FORM_COUNT
} crowd_goal_form;

// CROWD_GOAL_PEDESTRIAN's constants, fitted with the default agent (radius 0.3 m, separation
// radius 1.2 m, max force 3) to the validation suite (docs/validation.md): Weidmann's
// fundamental diagram from 0.5 to 5 persons/m^2, bottleneck flow through doors of 0.7 to 2.5 m,
// counterflow and crossing. GAP is below a body's diameter: Weidmann's densities of 4 to 5.4
// persons/m^2 pack people closer than discs of radius 0.3 m can stand apart (separation, not the
// headway, keeps bodies apart). WIDTH is about a body's width. ALIGN: the one ahead aims within
// 60 degrees of the agent's aim; someone walking toward it or across its way is left to
// separation, which steers the two apart (counted too, such people stop both streams of a
// counterflow dead).
#define CROWD_GOAL_HEADWAY_GAP 0.2f   // metres ahead at which the speed is 0
#define CROWD_GOAL_HEADWAY_TIME 0.6f  // seconds: the time gap kept behind the one ahead
#define CROWD_GOAL_HEADWAY_WIDTH 0.5f // metres off the aim's line
// metres ahead looked at: the headway speed of one farther ahead is above 2 m/s, a pedestrian's
// run (CROWD_GOAL_HEADWAY_GAP + CROWD_GOAL_HEADWAY_TIME * 2.17 m/s)
#define CROWD_GOAL_HEADWAY_REACH 1.5f
#define CROWD_GOAL_HEADWAY_ALIGN 0.5f // cosine of the largest angle between the two aims
#define CROWD_GOAL_RESPONSE_TIME 0.3f // seconds
// The largest tangent of a fully blocked agent's turn (the fluctuation, see above); a new draw
// every whole second of simulated time.
#define CROWD_GOAL_FLUCTUATION 0.3f

typedef struct crowd_goal {
    crowd_goal_mode mode;
    crowd_vec2 target;
    float slow_radius;    // > 0 (default 1)
    float weight;         // >= 0 (default 1)
    crowd_route route;    // default CROWD_ROUTE_FIELD; FLEE is never routed
    crowd_exits_id exits; // not null: the goal is the nearest exit of the set by walking
                          // distance and target is not used (SEEK, ARRIVE, ARRIVE_LITERAL)
    crowd_goal_form form; // default CROWD_GOAL_PEDESTRIAN (see above)
} crowd_goal;

// Steering away from walls before contact (Reynolds' containment), see crowd/obstacle.h. Every
// agent has one; a weight of 0 switches the force off, never the clamp that keeps agents out of
// walls.
typedef struct crowd_wall_def {
    float weight;     // in [0, CROWD_MAX_WEIGHT] (default 1)
    float look_ahead; // in [0, CROWD_MAX_TIME] seconds of velocity looked ahead (default 1)
} crowd_wall_def;

// Every float below also has its valid range (crowd/base.h): positions within CROWD_MAX_COORD,
// velocity components within CROWD_MAX_SPEED, radii within CROWD_MAX_DISTANCE, max_speed in
// [CROWD_MIN_SPEED, CROWD_MAX_SPEED], max_force up to CROWD_MAX_FORCE, weights up to
// CROWD_MAX_WEIGHT; beyond it a call fails with CROWD_ERR_OUT_OF_RANGE.
typedef struct crowd_agent_def {
    crowd_vec2 position;
    crowd_vec2 velocity;
    crowd_vec2 heading;      // initial last valid heading, unit length (default (1, 0))
    float radius;            // body radius, > 0 (default 0.3)
    float max_speed;         // > 0 (default 1.5)
    float max_force;         // > 0 (default 3)
    float separation_radius; // > 0 (default 1.2)
    float separation_weight; // >= 0, 0 turns separation off (default 1)
    crowd_goal goal;         // default: none
    crowd_wall_def walls;    // default: crowd_wall_def_default()
    uint64_t user_data;      // opaque to the engine
} crowd_agent_def;

CROWD_API crowd_agent_def crowd_agent_def_default(void);
CROWD_API crowd_goal crowd_goal_default(void);
CROWD_API crowd_wall_def crowd_wall_def_default(void);

// An agent whose disc would overlap a wall segment (centre closer than its radius) or whose centre
// is inside a solid obstacle is refused with CROWD_ERR_INSIDE_OBSTACLE.
CROWD_API crowd_status crowd_agent_add(crowd_world* world, const crowd_agent_def* def,
                                       crowd_agent_id* out);
// The checks crowd_agent_add makes before it changes anything: the def's values and ranges, the
// world's max_agents and the obstacles (CROWD_ERR_INSIDE_OBSTACLE). CROWD_OK says crowd_agent_add
// with this def would succeed but for memory, the navigation budget (CROWD_ERR_CAPACITY) and a
// stale or foreign exit set of its goal. `extra` agents counted as already added (>= 0, else
// CROWD_ERR_BAD_COUNT): a batch of n adds checks def k with k, and the batch fits when the last
// one does.
CROWD_API crowd_status crowd_agent_check(const crowd_world* world, const crowd_agent_def* def,
                                         int extra);

// Removes the agent; its handle (and every copy) is stale from now on. Its storage index is
// reused with a new generation, 65,536 times at most: then the index is retired, so that no
// stale handle can ever name another agent.
CROWD_API crowd_status crowd_agent_remove(crowd_world* world, crowd_agent_id id);

// CROWD_OK when the handle names a live agent of this world, else why not.
CROWD_API crowd_status crowd_agent_validate(const crowd_world* world, crowd_agent_id id);

// The agent's current parameters and state as a def (position, velocity and heading are live).
CROWD_API crowd_status crowd_agent_get_def(const crowd_world* world, crowd_agent_id id,
                                           crowd_agent_def* out);

CROWD_API crowd_status crowd_agent_get_position(const crowd_world* world, crowd_agent_id id,
                                                crowd_vec2* out);
CROWD_API crowd_status crowd_agent_get_velocity(const crowd_world* world, crowd_agent_id id,
                                                crowd_vec2* out);
CROWD_API crowd_status crowd_agent_get_heading(const crowd_world* world, crowd_agent_id id,
                                               crowd_vec2* out);

// Teleport / server correction; takes effect from the next step. A position where the agent's
// disc would overlap a wall or whose centre is inside a solid obstacle is refused with
// CROWD_ERR_INSIDE_OBSTACLE (the agent stays where it was); a teleport may jump across walls.
CROWD_API crowd_status crowd_agent_set_position(crowd_world* world, crowd_agent_id id,
                                                crowd_vec2 position);
CROWD_API crowd_status crowd_agent_set_velocity(crowd_world* world, crowd_agent_id id,
                                                crowd_vec2 velocity);
CROWD_API crowd_status crowd_agent_set_limits(crowd_world* world, crowd_agent_id id,
                                              float max_speed, float max_force);
// A radius that would make the disc overlap a wall is refused with CROWD_ERR_INSIDE_OBSTACLE.
CROWD_API crowd_status crowd_agent_set_radius(crowd_world* world, crowd_agent_id id, float radius);
CROWD_API crowd_status crowd_agent_set_separation(crowd_world* world, crowd_agent_id id,
                                                  float radius, float weight);
CROWD_API crowd_status crowd_agent_set_goal(crowd_world* world, crowd_agent_id id,
                                            const crowd_goal* goal);

#ifdef __cplusplus
}
#endif

#endif
