// crowdstep: walls and obstacles, static geometry the crowd cannot pass through.
//
// An obstacle is a polyline owned by the world and named by a generational handle, like a path:
// an open polyline is a wall (both sides walkable, its segments impassable), a closed polygon is
// a solid (its inside is not walkable). Obstacles change between steps only.
//
// The guarantee: no agent's disc overlaps or crosses a wall segment after any step, at any speed
// and any dt. The integration clamps each move against the segments it sweeps and slides along
// them in a fixed order, so separation and crowd pressure cannot push an agent into or through a
// wall. The steering force (Reynolds' containment) only keeps agents from reaching walls in the
// first place; the clamp is what makes the guarantee.
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

typedef enum crowd_obstacle_kind {
    CROWD_OBSTACLE_WALL,    // open polyline: points[0] .. points[count-1]
    CROWD_OBSTACLE_POLYGON, // closed polygon (the last point joins the first), solid inside
    CROWD_OBSTACLE_KIND_COUNT
} crowd_obstacle_kind;

#ifdef __cplusplus
}
#endif

#endif
