// crowdstep: shared types of the public API.
#ifndef CROWD_BASE_H
#define CROWD_BASE_H

#include <stdbool.h>
#include <stdint.h>

#if defined(CROWD_SHARED_BUILD)
#define CROWD_API __attribute__((visibility("default")))
#else
#define CROWD_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define CROWD_VERSION_MAJOR 0
#define CROWD_VERSION_MINOR 1
#define CROWD_VERSION_PATCH 0

// Every fallible call returns one of these. A call that returns anything but CROWD_OK has left
// the world exactly as it was.
typedef enum crowd_status {
    CROWD_OK = 0,
    CROWD_ERR_NULL_ARGUMENT,       // a required pointer argument was NULL
    CROWD_ERR_INVALID_ENUM,        // an enumeration value out of range
    CROWD_ERR_NOT_FINITE,          // a NaN or infinite float in the input
    CROWD_ERR_BAD_RADIUS,          // a radius or distance that must be > 0 (or >= 0) was not
    CROWD_ERR_BAD_SPEED,           // max speed or max force <= 0
    CROWD_ERR_BAD_WEIGHT,          // a behavior weight < 0
    CROWD_ERR_BAD_HEADING,         // a heading or direction of zero length
    CROWD_ERR_BAD_DT,              // time step <= 0
    CROWD_ERR_BAD_CELL_SIZE,       // spatial hash cell size <= 0
    CROWD_ERR_BAD_THREADS,         // thread count < 0 or above CROWD_MAX_THREADS
    CROWD_ERR_BAD_CAPACITY,        // capacity < 0 or above the handle range
    CROWD_ERR_CAPACITY,            // the world holds max_agents agents already
    CROWD_ERR_OUT_OF_MEMORY,       // the allocator returned NULL
    CROWD_ERR_NULL_HANDLE,         // the zero (null) handle was passed
    CROWD_ERR_STALE_HANDLE,        // the agent behind the handle was removed
    CROWD_ERR_FOREIGN_HANDLE,      // the handle belongs to another world or was never issued
    CROWD_ERR_BUFFER_TOO_SMALL,    // the caller's buffer cannot hold the result
    CROWD_ERR_BAD_CONE,            // queue cone length <= 0 or cone width < 0
    CROWD_ERR_BAD_AREA,            // a rectangle with min > max
    CROWD_ERR_NOT_QUEUEING,        // the agent has no queue
    CROWD_ERR_PATH_TOO_SHORT,      // a path needs at least 2 points
    CROWD_ERR_PATH_TOO_LONG,       // a path of more than CROWD_PATH_MAX_POINTS points
    CROWD_ERR_PATH_REPEATED_POINT, // two consecutive path points are equal
    CROWD_ERR_NULL_PATH,           // the zero (null) path handle was passed
    CROWD_ERR_STALE_PATH,          // the path behind the handle was destroyed
    CROWD_ERR_FOREIGN_PATH,        // the path handle belongs to another world or was never issued
    CROWD_ERR_BAD_PATH_INDEX,      // a path point index out of range
    CROWD_ERR_FOLLOW_CYCLE,   // following would make an agent lead itself (directly or via a chain)
    CROWD_ERR_BAD_COUNT,      // a count or size argument out of its documented range
    CROWD_ERR_WRITE_FAILED,   // the caller's write callback reported a failure
    CROWD_ERR_SNAPSHOT_MAGIC, // the input does not start with the snapshot magic number
    CROWD_ERR_SNAPSHOT_VERSION,   // a snapshot format version this build does not read
    CROWD_ERR_SNAPSHOT_TRUNCATED, // the input is shorter than the snapshot it holds
    CROWD_ERR_SNAPSHOT_OVERSIZED, // the input is longer than the snapshot it holds
    CROWD_ERR_SNAPSHOT_CHECKSUM,  // the snapshot's checksum does not match its bytes
    CROWD_ERR_SNAPSHOT_SECTION,   // a section is unknown, missing, repeated or out of place
    CROWD_ERR_SNAPSHOT_CORRUPT,   // a section's content is malformed or inconsistent
    CROWD_ERR_SNAPSHOT_TOO_LARGE, // the saved world is larger than the load def allows
    CROWD_ERR_OUT_OF_RANGE,       // a finite value outside its documented valid range
    CROWD_ERR_NULL_OBSTACLE,      // the zero (null) obstacle handle was passed
    CROWD_ERR_STALE_OBSTACLE,     // the obstacle behind the handle was removed
    CROWD_ERR_FOREIGN_OBSTACLE, // the obstacle handle belongs to another world or was never issued
    CROWD_ERR_OBSTACLE_TOO_SHORT,      // a wall needs at least 2 points, a polygon at least 3
    CROWD_ERR_OBSTACLE_TOO_LONG,       // an obstacle of more than CROWD_OBSTACLE_MAX_POINTS points
    CROWD_ERR_OBSTACLE_REPEATED_POINT, // two consecutive obstacle points are equal (or ~equal)
    CROWD_ERR_OBSTACLE_SELF_INTERSECTING, // a polygon whose edges cross each other
    CROWD_ERR_INSIDE_OBSTACLE,   // an agent would overlap a wall or stand inside a solid obstacle
    CROWD_ERR_NOT_DISTRIBUTABLE, // a world split across processes cannot do it (crowd/dist.h)
    CROWD_ERR_RANK_FAILED, // another rank of a split world failed in the same call (crowd/dist.h)
    CROWD_ERR_NULL_EXITS,    // the zero (null) exit set handle was passed
    CROWD_ERR_STALE_EXITS,   // the exit set behind the handle was destroyed
    CROWD_ERR_FOREIGN_EXITS, // the exit set handle belongs to another world or was never issued
    CROWD_ERR_IN_USE,        // the object is still used by agents (an exit set some goal names)
    CROWD_STATUS_COUNT
} crowd_status;

// ---- valid ranges -------------------------------------------------------------------------------
//
// Every float the API accepts must be finite (else CROWD_ERR_NOT_FINITE), obey its own sign rule
// (a radius > 0, a weight >= 0, ...: the status named for it) and lie within these bounds (else
// CROWD_ERR_OUT_OF_RANGE). A refused call changes nothing. Within the bounds no computation of a
// step can overflow float32, so every accepted input gives finite state forever:
//  - a position stays within CROWD_MAX_COORD: the integration clamps each coordinate to
//    [-CROWD_MAX_COORD, CROWD_MAX_COORD] (an agent that reaches the bound stops there along that
//    axis; its velocity is kept), so a difference of two positions is at most 2.9e6 m and its
//    squared length at most 8e12;
//  - a velocity is at most CROWD_MAX_SPEED per axis when set and at most its max_speed after a
//    tick; a speed is at least CROWD_MIN_SPEED, so a look-ahead time distance / max_speed is at
//    most 3e9 s and a predicted offset velocity * time at most 3e13 m;
//  - a summed force is at most (2 * CROWD_MAX_SPEED * max_agents) * CROWD_MAX_WEIGHT per behavior
//    (each separation neighbor contributes at most max_speed + |velocity|), below 2.2e16 with the
//    1 << 30 agents a world may hold, and its squared length below 1e34 < FLT_MAX = 3.4e38;
//  - a formation slot lies at most spacing * followers (1e4 m * 2^30) from its leader.
#define CROWD_MAX_COORD 1.0e6f    // |x|, |y| of positions, goals, path points and respawn areas, m
#define CROWD_MAX_DISTANCE 1.0e4f // radii, distances, cone sizes, spacings, offsets, cell size, m
#define CROWD_MIN_CELL_SIZE 1.0e-2f // cell size lower bound, m (finer cells only cost time)
#define CROWD_MIN_SPEED 1.0e-3f     // max_speed lower bound, m/s
#define CROWD_MAX_SPEED 1.0e4f      // max_speed, and |vx|, |vy| of a velocity, m/s
#define CROWD_MAX_FORCE 1.0e6f      // max_force, m/s^2 (unit mass)
#define CROWD_MAX_WEIGHT 1.0e3f     // every behavior weight
#define CROWD_MAX_DT 10.0f          // tick length, s
#define CROWD_MAX_TIME 1.0e4f       // look-ahead times (a path's predict_ahead), s
#define CROWD_MAX_THREADS 256       // threads of a world; more are refused (CROWD_ERR_BAD_THREADS)

// A short, constant, English description of a status ("stale agent handle"). Never NULL.
CROWD_API const char* crowd_status_string(crowd_status status);

typedef struct crowd_vec2 {
    float x, y;
} crowd_vec2;

// Generational agent handle. All-zero is the null handle. `index1` is the storage index plus one,
// `generation` changes every time the index is reused and `world` tags the issuing world, so
// stale and foreign handles are detected instead of silently aliasing another agent.
typedef struct crowd_agent_id {
    uint32_t index1;
    uint16_t generation;
    uint16_t world;
} crowd_agent_id;

static inline bool crowd_agent_id_is_null(crowd_agent_id id) {
    return id.index1 == 0;
}
static inline bool crowd_agent_id_equal(crowd_agent_id a, crowd_agent_id b) {
    return a.index1 == b.index1 && a.generation == b.generation && a.world == b.world;
}

#ifdef __cplusplus
}
#endif

#endif
