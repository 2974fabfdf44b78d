// crowdstep: navigation, the way to a goal around walls and solid obstacles.
//
// Routing is the default: a SEEK, ARRIVE or ARRIVE_LITERAL goal (crowd_goal.route) and each leg
// of a waypoint path (crowd_path_follow_def.route) are reached around the world's obstacles with
// no further call. Routing only chooses where an agent steers; separation, the queue cone,
// following, the wall force and the clamp act as before. CROWD_ROUTE_STRAIGHT keeps the straight
// line of the spec's seek and arrive.
//
// How it works. The world lays a grid of crowd_nav_def.cell_size cells over the obstacles' bounding
// box and a margin; a cell whose centre is within crowd_nav_def.clearance of a wall, or inside a
// solid, is blocked. Every destination in use (a goal point, quantized to the grid's cell, or an
// exit set) has one field, shared by every agent heading there: for each cell, its anchor, the
// point the cell sees on its shortest way to the destination: the destination itself where it is
// in sight, else the last corner of the way (4 bytes a cell). A field is built by a Dijkstra
// search over the walkable cells in which a cell takes over its neighbor's anchor when it sees
// that anchor (the cells its line enters first carry the same anchor, or else the whole line runs
// through walkable cells and keeps half the clearance from every wall), and otherwise takes the
// neighbor itself as its anchor (a "corner"); so ways are straight lines between corners, not the
// 45-degree staircases of a grid search. Corners are cell centres, so a way may stand off a
// corner by up to about a cell more than the exact shortest way. An agent reads its cell's anchor
// and steers at it: at its goal when the goal is in sight, else at the next corner, past which its
// next cell names the next anchor. Cells next to a wall (blocked, but an agent pushed by the crowd
// may stand there) point back to the nearest walkable cell on their side of the wall.
//
// Sharing and memory: fields are cached by destination. Goals and paths count their use of each
// destination when they are set; a step first builds the fields in use that are missing (after
// obstacles changed, again), in parallel, one field per thread at a time, then reads them. A
// field nobody uses stays cached until the budget (crowd_nav_def.budget) needs its memory, then
// the least recently used goes first.
//
// Spread destinations. While the fields of every destination in use fit the budget, each has its
// own (the above, exactly). Beyond it (destinations spread out: every agent with a goal of its
// own) the goals' destinations are ranked by their users, most first (then by position), and as
// many as fit beside the strategy's memory get fields; the others are spread
// (crowd_nav_stats.spread): routed over one graph shared by all of them. The graph cuts the grid
// into tiles of 16 x 16 cells, splits each tile's walkable cells into connected regions, joins
// regions of neighboring tiles by portals where they touch, and keeps the walking distances
// between the portals of each region. An agent with a spread goal plans its way when it enters
// another region: an A* search over the portals from its region to its goal's, which visits the
// tiles near its way rather than the grid; it steers at the farthest of its next four portals (or
// its goal) that its cell sees with the fields' sight rule, so its way is straight lines between
// corners, not a staircase (else along its region's cells toward the next portal). A plan depends
// only on the agent's region, its goal and the obstacles, and the ranking only on the counts of
// uses: spread routing is deterministic on any thread count, rank count and after a snapshot's
// load. The graph (about 2 bytes a cell), each thread's search scratch and a plan per agent (48
// bytes) count against the budget (crowd_nav_stats.spread_bytes). The planned way crosses each
// tile border at the middle of its opening, so its crowd_route_info.distance may exceed the
// shortest way (at most 1.4 times in tests/test_nav_spread.c's serpentine); agents shortcut it
// by sight and walked there within 1.13 times the shortest way. Exit sets and the points of
// waypoint paths are never spread: one that would not fit beside the spread graph is refused
// (CROWD_ERR_CAPACITY) by the call that sets it, as is a goal's new point when not even the
// graph fits; a step never builds without bound. Uses are counted while the world has
// obstacles; without any, nothing is
// routed and no memory is taken per destination. A grid that would exceed crowd_nav_def.max_cells
// (obstacles spread over a very large area), or whose fields in use would no longer fit the
// budget after obstacles grew it, is not laid: navigation is suspended and every agent heads
// straight (crowd_nav_stats.suspended).
//
// Unreachable goals: an agent whose goal lies in another walled-off region (or inside a solid)
// heads for the cell of its own region nearest the goal and stops there; crowd_agent_get_route
// says CROWD_ROUTE_STATE_UNREACHABLE.
//
// Change: adding or removing an obstacle marks the grid changed; the next step (or
// crowd_world_nav_update) lays the grid again where the change reaches and repairs every field in
// use: only the cells whose way the change touches are solved again (a way that a new wall closes,
// or that a removed one shortens), so an agent whose way a new wall closes turns round on that
// step. A change that moves the grid's box (an obstacle beyond it, or the outermost one removed)
// or more than 16 changes between two steps lay the grid whole and build every field whole; a
// field where a region gets walled off or joined, or whose destination the change comes close to,
// is built whole (the others are still repaired). A repaired field
// need not be exactly what a whole build gives (each cell's way is within about 1% of it); it is
// deterministic all the same (the same changes give the same field on any thread count or rank),
// and a snapshot saves the repaired fields, so a loaded world continues bit-identically.
// crowd_nav_stats counts the repairs.
//
// Determinism: a field depends only on the obstacles (and, repaired, on the field before and the
// changes), the nav def and its destination, never on the thread count or on which agents use it,
// so routed worlds stay bit-identical across thread counts, builds and ranks.
#ifndef CROWD_NAV_H
#define CROWD_NAV_H

#include "crowd/base.h"
#include "crowd/world.h"

#ifdef __cplusplus
extern "C" {
#endif

static inline bool crowd_exits_id_is_null(crowd_exits_id id) {
    return id.index1 == 0;
}

// Most points an exit set may have.
#define CROWD_EXITS_MAX_POINTS 256

// ---- exit sets ---------------------------------------------------------------------------------

// An exit set: `count` target points (doors, exits). A goal that names it (crowd_goal.exits)
// heads for the exit nearest by walking distance and arrives there. Rejected without creating
// anything: count outside [1, CROWD_EXITS_MAX_POINTS] (CROWD_ERR_BAD_COUNT), a NaN or infinite
// coordinate (CROWD_ERR_NOT_FINITE), a coordinate beyond CROWD_MAX_COORD (CROWD_ERR_OUT_OF_RANGE).
CROWD_API crowd_status crowd_exits_create(crowd_world* world, const crowd_vec2* points, int count,
                                          crowd_exits_id* out);
// Destroys an exit set; refused with CROWD_ERR_IN_USE while a goal names it.
CROWD_API crowd_status crowd_exits_destroy(crowd_world* world, crowd_exits_id id);
CROWD_API crowd_status crowd_exits_validate(const crowd_world* world, crowd_exits_id id);
// Copies the set's points, with crowd_obstacle_get_points' capacity rule.
CROWD_API crowd_status crowd_exits_get_points(const crowd_world* world, crowd_exits_id id,
                                              crowd_vec2* points, int capacity, int* count);

// ---- routes ------------------------------------------------------------------------------------

typedef enum crowd_route_state {
    CROWD_ROUTE_STATE_NONE,        // no routed goal or waypoint leg (or a FLEE goal)
    CROWD_ROUTE_STATE_STRAIGHT,    // heads straight: CROWD_ROUTE_STRAIGHT, a world without
                                   // obstacles, or an agent outside the grid (open ground)
    CROWD_ROUTE_STATE_PENDING,     // its field is not built yet: it will be by the next step
    CROWD_ROUTE_STATE_ROUTED,      // on its way round the walls
    CROWD_ROUTE_STATE_UNREACHABLE, // walled off from its goal: heads for the nearest point it can
                                   // reach and stays there
} crowd_route_state;

typedef struct crowd_route_info {
    crowd_route_state state;
    crowd_vec2 destination; // the goal point, the exit it heads for, or its waypoint
    crowd_vec2 aim;         // where it steers now: the next corner, or the destination in sight
    float distance;         // walking distance to the destination (ROUTED, UNREACHABLE: to the
                            // point it heads for; STRAIGHT: the straight distance; else 0)
} crowd_route_info;

// The route of the agent's goal, or else of its path's current waypoint leg, as the next step
// reads it. Errors: agent handle errors, CROWD_ERR_NULL_ARGUMENT.
CROWD_API crowd_status crowd_agent_get_route(const crowd_world* world, crowd_agent_id id,
                                             crowd_route_info* out);

// The route from any point to a goal (the goal's target or exit set and its route; its mode
// only matters for FLEE, which has none), read from the cached field when there is one (else
// state PENDING). For drawing a field or planning. Errors: CROWD_ERR_NULL_ARGUMENT, the goal's
// own checks (as crowd_agent_set_goal), exit set handle errors.
CROWD_API crowd_status crowd_nav_route_from(const crowd_world* world, const crowd_goal* goal,
                                            crowd_vec2 from, crowd_route_info* out);

// Builds now what the next step would build first: the grid after obstacle changes and the
// missing fields in use. Lets a caller pay for it outside the tick, or time it. Errors:
// CROWD_ERR_NULL_ARGUMENT, CROWD_ERR_OUT_OF_MEMORY (the world is then as it was).
CROWD_API crowd_status crowd_world_nav_update(crowd_world* world);

typedef struct crowd_nav_stats {
    int grid_w, grid_h;        // cells of the grid (0 without obstacles)
    crowd_vec2 grid_origin;    // its lower left corner
    float cell_size;           // its cell edge
    int64_t blocked_cells;     // cells not walked through
    int fields;                // fields cached (built or waiting for a build)
    int fields_in_use;         // of which goals or paths use
    size_t field_bytes;        // memory the fields take
    uint64_t builds;           // fields built since the world was created
    double last_build_ms;      // wall time of the last update that built or repaired anything
    double last_grid_ms;       // of which laying the grid
    bool suspended;            // no grid: too many cells or fields for the limits (crowd_nav_def)
    uint64_t repairs;          // fields repaired after obstacle changes rather than built whole
    int64_t last_repair_cells; // cells the last update's repairs solved again, over all fields
    int spread;                // destinations in use routed by the spread strategy (no field)
    size_t spread_bytes;       // memory the spread strategy takes (its graph, scratch and plans)
} crowd_nav_stats;

CROWD_API crowd_nav_stats crowd_world_nav_stats(const crowd_world* world);

#ifdef __cplusplus
}
#endif

#endif
