// crowdstep: walls and obstacles, static geometry the crowd cannot pass through.
//
// An obstacle is a polyline owned by the world and named by a generational handle, like a path:
// an open polyline is a wall (both sides walkable, its segments impassable), a closed polygon is
// a solid (its inside is not walkable). Obstacles change between steps only.
//
// The guarantee: no agent's disc overlaps or crosses a wall segment after any step, at any speed
// and any dt (an agent's centre stays at least its radius from every segment, so it never gets
// inside a solid either). After the integration every move is swept against the segments it
// could reach (CROWD_PHASE_CLAMP): it stops at the first contact, keeping a skin of 0.1 mm (more
// far from the origin, where float positions are coarser) and slides along the wall with what is
// left, at most 4 times; a move still blocked then ends at its last contact. Ties between walls
// go to the lowest (obstacle index, segment) pair, so the result depends on no order and no
// thread count. An agent that met a wall gets the velocity of the move it made and a heading from
// it. So separation and crowd pressure cannot push an agent into or through a wall. The steering
// force (Reynolds' containment) only keeps agents from reaching walls in the first place; the
// clamp is what makes the guarantee.
//
// What would break it is refused: crowd_agent_add, crowd_agent_set_position (a teleport; it may
// jump across walls, but not land in one) and crowd_agent_set_radius refuse a disc that overlaps a
// wall or a centre inside a solid with CROWD_ERR_INSIDE_OBSTACLE, crowd_obstacle_add refuses an
// obstacle over an agent the same way, and a snapshot that holds one does not load.
//
// Line of sight: separation (also among a follower group) and the queue's cone ignore an agent
// when the segment between the two centres touches a wall. Agents whose neighborhood holds no
// wall take the usual path at the cost of one comparison. A world with a neighbor cap
// (crowd_world_set_max_neighbors) runs the capped neighbor pass, which applies no line of sight;
// the clamp and the wall force work the same there.
#ifndef CROWD_OBSTACLE_H
#define CROWD_OBSTACLE_H

#include "crowd/base.h"
#include "crowd/world.h"

#ifdef __cplusplus
extern "C" {
#endif

// Generational obstacle handle, the same scheme as crowd_agent_id. All-zero is the null handle.
typedef struct crowd_obstacle_id {
    uint32_t index1;
    uint16_t generation;
    uint16_t world;
} crowd_obstacle_id;

static inline bool crowd_obstacle_id_is_null(crowd_obstacle_id id) {
    return id.index1 == 0;
}
static inline bool crowd_obstacle_id_equal(crowd_obstacle_id a, crowd_obstacle_id b) {
    return a.index1 == b.index1 && a.generation == b.generation && a.world == b.world;
}

// Most points one obstacle may have.
#define CROWD_OBSTACLE_MAX_POINTS (1 << 16)

// Most obstacles one world holds at a time; one more is refused with CROWD_ERR_CAPACITY.
#define CROWD_OBSTACLE_MAX_COUNT 65535

typedef enum crowd_obstacle_kind {
    CROWD_OBSTACLE_WALL,    // open polyline: points[0] .. points[count-1]
    CROWD_OBSTACLE_POLYGON, // closed polygon (the last point joins the first), solid inside
    CROWD_OBSTACLE_KIND_COUNT
} crowd_obstacle_kind;

// ---- obstacles ---------------------------------------------------------------------------------

// Copies `count` points into a new obstacle. Rejected without changing anything: fewer than 2
// points for a wall or 3 for a polygon (CROWD_ERR_OBSTACLE_TOO_SHORT), more than
// CROWD_OBSTACLE_MAX_POINTS (CROWD_ERR_OBSTACLE_TOO_LONG), a NaN or infinite coordinate
// (CROWD_ERR_NOT_FINITE), a coordinate beyond CROWD_MAX_COORD (CROWD_ERR_OUT_OF_RANGE), two
// consecutive points that are equal or closer than about 1e-19 m, where the squared length of
// their segment is not a normal float (CROWD_ERR_OBSTACLE_REPEATED_POINT), a
// polygon whose edges cross (CROWD_ERR_OBSTACLE_SELF_INTERSECTING), an obstacle that a live agent
// would overlap or stand inside (CROWD_ERR_INSIDE_OBSTACLE), more than CROWD_OBSTACLE_MAX_COUNT
// obstacles (CROWD_ERR_CAPACITY). Open walls may cross themselves and each other; obstacles may
// overlap. Cost: the cells the obstacle's segments pass through (amortized: the segment grid
// grows by doubling), its point count squared within each cell for a polygon's crossing test,
// and, for the overlap test, the agents in the cells around the obstacle's bounding box (widened
// by the last step's longest move) and those added since that step. Until the world steps again
// after an agent is removed or moved by hand (or when it has never stepped), or when the box holds
// more cells than there are agents, the overlap test is one pass over every agent's position
// instead (about 0.15 ns an agent).
CROWD_API crowd_status crowd_obstacle_add(crowd_world* world, crowd_obstacle_kind kind,
                                          const crowd_vec2* points, int count,
                                          crowd_obstacle_id* out);

// Removes an obstacle; its handle becomes stale. Cost: the cells its segments pass through.
CROWD_API crowd_status crowd_obstacle_remove(crowd_world* world, crowd_obstacle_id id);

// CROWD_OK when the handle names a live obstacle of this world, else why not
// (CROWD_ERR_NULL_OBSTACLE, CROWD_ERR_STALE_OBSTACLE, CROWD_ERR_FOREIGN_OBSTACLE).
CROWD_API crowd_status crowd_obstacle_validate(const crowd_world* world, crowd_obstacle_id id);

// Copies the obstacle's kind and points. When `capacity` is smaller than the point count no point
// is written, *count is set to the point count and CROWD_ERR_BUFFER_TOO_SMALL is returned.
// `points` may be NULL with capacity 0 to ask for the count; `kind` may be NULL.
CROWD_API crowd_status crowd_obstacle_get_points(const crowd_world* world, crowd_obstacle_id id,
                                                 crowd_obstacle_kind* kind, crowd_vec2* points,
                                                 int capacity, int* count);

// Live obstacles in the world.
CROWD_API int crowd_world_obstacle_count(const crowd_world* world);

// The handles of the live obstacles, in handle-index order, with the same capacity rule as
// crowd_obstacle_get_points.
CROWD_API crowd_status crowd_world_get_obstacles(const crowd_world* world, crowd_obstacle_id* ids,
                                                 int capacity, int* count);

// ---- wall avoidance ----------------------------------------------------------------------------

// Each agent's steering away from walls before contact (Reynolds' containment). crowd_wall_def is
// declared in crowd/world.h because crowd_agent_def holds one (.walls): the agent probes
// `look_ahead` seconds along its velocity and, when that probe (a segment from its centre) comes
// within one body radius of clearance of a wall it is heading toward, it is pushed away from the
// nearest such wall with up to max_force * weight, more as the clearance shrinks and the more
// squarely it heads into the wall: it sheds its speed into the wall and keeps its speed along it.
// A weight of 0 switches the force off, never the clamp.
// crowd_wall_def_default() is declared in crowd/world.h with the def.

CROWD_API crowd_status crowd_agent_set_walls(crowd_world* world, crowd_agent_id id,
                                             const crowd_wall_def* def);
CROWD_API crowd_status crowd_agent_get_walls(const crowd_world* world, crowd_agent_id id,
                                             crowd_wall_def* def);

#ifdef __cplusplus
}
#endif

#endif
