// crowdstep: path following, waypoints and Reynolds' path tube.
//
// A path is a polyline owned by the world and shared by handle: any number of agents may follow
// one path, and a world may hold thousands. An agent follows at most one path, in one of two
// ways (crowd_path_kind) and one of three modes (crowd_path_mode), and keeps its own cursor.
//
// Lifetime rules:
//  - crowd_path_replace swaps the geometry behind a handle; the handle stays valid. Every agent
//    on it, from then on (its next step, and crowd_agent_get_path at once), has its cursor
//    index clamped to the new last point, its segment hint dropped (the next step searches the
//    whole path for the nearest segment) and a FINISHED state turned back into FOLLOWING (a
//    one-shot agent whose clamped index is its final point finishes again on arrival). The
//    direction is kept.
//  - crowd_path_destroy makes the handle stale. Every agent on it stops following: it gets no
//    path force from the next step on and crowd_agent_get_path reports CROWD_PATH_STATE_DETACHED
//    (with the cursor it had) until the agent is given a new path or its path is cleared. A
//    new path never inherits agents of a destroyed one, even when it reuses its storage.
// Paths and agents are changed between steps only, like every other world data.
//
// How the engine picks a tube follower's segment: not by searching the whole path every step
// (the spec's findClosestSegment) but in a window of CROWD_PATH_WINDOW segments around its
// segment hint, one behind and the rest ahead in its direction of travel, sliding ahead while
// the nearest is the window's front edge. So a follower keeps to its own part of a path that
// comes back near itself (a U, a crossing) and a step costs the same on a path of any length.
// A follower without a hint (on its first step after a replace) or whose predicted
// position is more than 4 tube radii from every segment of its window (lost: pushed or
// teleported away) searches the whole path through a grid of its segments, which gives the
// same segment as the brute force; a lost follower searches again only after drifting another
// 4 tube radii away. Where the window's best segment is the path's overall nearest, the engine
// equals crowd_path_tube_step on crowd_path_closest_segment.
#ifndef CROWD_PATH_H
#define CROWD_PATH_H

#include "crowd/base.h"
#include "crowd/world.h"

#ifdef __cplusplus
extern "C" {
#endif

// Generational path handle, the same scheme as crowd_agent_id. All-zero is the null handle.
typedef struct crowd_path_id {
    uint32_t index1;
    uint16_t generation;
    uint16_t world;
} crowd_path_id;

static inline bool crowd_path_id_is_null(crowd_path_id id) {
    return id.index1 == 0;
}
static inline bool crowd_path_id_equal(crowd_path_id a, crowd_path_id b) {
    return a.index1 == b.index1 && a.generation == b.generation && a.world == b.world;
}

// Most points one path may have.
#define CROWD_PATH_MAX_POINTS (1 << 24)

// Segments in a tube follower's search window.
#define CROWD_PATH_WINDOW 8

// ---- paths -------------------------------------------------------------------------------------

// Copies `count` points into a new path. Rejected without creating anything: fewer than 2
// points (CROWD_ERR_PATH_TOO_SHORT), more than CROWD_PATH_MAX_POINTS (CROWD_ERR_PATH_TOO_LONG),
// a NaN or infinite coordinate (CROWD_ERR_NOT_FINITE), a coordinate beyond CROWD_MAX_COORD
// (CROWD_ERR_OUT_OF_RANGE), two consecutive equal points (CROWD_ERR_PATH_REPEATED_POINT). The first
// and last point may be equal.
CROWD_API crowd_status crowd_path_create(crowd_world* world, const crowd_vec2* points, int count,
                                         crowd_path_id* out);

// Replaces the points of a live path (same checks as crowd_path_create; on failure the path is
// unchanged). See the lifetime rules above for the agents on it.
CROWD_API crowd_status crowd_path_replace(crowd_world* world, crowd_path_id id,
                                          const crowd_vec2* points, int count);

// Destroys a path. See the lifetime rules above for the agents on it.
CROWD_API crowd_status crowd_path_destroy(crowd_world* world, crowd_path_id id);

// CROWD_OK when the handle names a live path of this world, else why not (CROWD_ERR_NULL_PATH,
// CROWD_ERR_STALE_PATH, CROWD_ERR_FOREIGN_PATH).
CROWD_API crowd_status crowd_path_validate(const crowd_world* world, crowd_path_id id);

// Copies the path's points. When `capacity` is smaller than the point count nothing is
// written, *count is set to the point count and CROWD_ERR_BUFFER_TOO_SMALL is returned.
// `points` may be NULL with capacity 0 to ask for the count.
CROWD_API crowd_status crowd_path_get_points(const crowd_world* world, crowd_path_id id,
                                             crowd_vec2* points, int capacity, int* count);

// Live paths in the world.
CROWD_API int crowd_world_path_count(const crowd_world* world);

// ---- following -------------------------------------------------------------------------------

typedef enum crowd_path_kind {
    CROWD_PATH_WAYPOINTS, // seek the current waypoint, advance inside arrive_radius
    CROWD_PATH_TUBE,      // Reynolds: correct only when the predicted position leaves the tube
    CROWD_PATH_KIND_COUNT
} crowd_path_kind;

typedef enum crowd_path_mode {
    CROWD_PATH_ONE_SHOT,  // first to last point, then arrive at the last and stay there
    CROWD_PATH_LOOP,      // after the last point back to the first (a tube has the closing
                          // segment; a path need not repeat its first point to loop)
    CROWD_PATH_PING_PONG, // reverse the direction at either end
    CROWD_PATH_MODE_COUNT
} crowd_path_mode;

// How a follower steers along its path.
typedef enum crowd_path_form {
    // The default. Two of the spec's choices defeat its purpose: inside the tube it seeks the
    // segment's next point, so every agent of a flow funnels into each vertex and the flow jams
    // at the corners; and its arrive at a one-shot end overshoots the final point. FLOW:
    //  - tube, inside: seek the point CROWD_PATH_LOOK_AHEAD_TIME * max_speed further along the
    //    path from proj (crossing into the following segments, stopping at a non-loop path's end),
    //    shifted sideways by the predicted position's offset from the path, clamped to a band
    //    0.25 to 0.75 tube radii to the right of the direction of travel, so agents keep their
    //    lane through corners and opposite flows (ping-pong) pass each other instead of meeting
    //    head on; outside: seek that point on the path itself (back into the tube while moving
    //    on, where the spec seeks proj);
    //  - a one-shot end (both kinds) arrives with crowd_steer_arrive_stop, which stops on it.
    CROWD_PATH_FLOW = 0,
    CROWD_PATH_LITERAL, // the spec's pathFollowWaypoints / pathFollowTube exactly
    CROWD_PATH_FORM_COUNT
} crowd_path_form;

// Seconds of travel at max_speed between a FLOW tube follower's projection and its aim point.
#define CROWD_PATH_LOOK_AHEAD_TIME 1.5f

typedef enum crowd_path_state {
    CROWD_PATH_STATE_NONE,      // follows no path
    CROWD_PATH_STATE_FOLLOWING, // follows its path
    CROWD_PATH_STATE_FINISHED,  // one-shot: reached its final point; keeps arriving there
    CROWD_PATH_STATE_DETACHED,  // its path was destroyed; no path force
} crowd_path_state;

typedef struct crowd_path_follow_def {
    crowd_path_id path;
    crowd_path_kind kind; // default CROWD_PATH_WAYPOINTS
    crowd_path_mode mode; // default CROWD_PATH_LOOP
    float arrive_radius;  // > 0: a waypoint closer than this is reached (default 0.8)
    float slow_radius;    // > 0: arrive's slowing radius at a one-shot end (default 1.5)
    float tube_radius;    // > 0: tube half-width (default 1)
    float predict_ahead;  // >= 0: seconds of velocity to predict the position (default 0.5)
    float weight;         // >= 0: scales the force (default 1)
    int start_index;      // in [0, count) (default 0): waypoints: the first target point; tube:
                          // the point whose outgoing segment is the first hint (cursor_start)
    bool reverse;         // travel from high to low indices (default false)
    crowd_path_form form; // default CROWD_PATH_FLOW
    // WAYPOINTS: each leg to the next waypoint goes around walls (crowd/nav.h), the default, or
    // straight (CROWD_ROUTE_STRAIGHT). A waypoint counts as reached within arrive_radius as
    // before; the one it routes to must then be reachable. TUBE: not used (a tube is its own way).
    crowd_route route;
} crowd_path_follow_def;

// A follower's progress.
typedef struct crowd_path_cursor {
    crowd_path_state state;
    int index;     // waypoints: the target point; tube: the next point of its segment
    int direction; // +1 toward higher indices, -1 toward lower
    int segment;   // tube: segment hint (segment k runs from point k to point k + 1, the last
                   // of a loop from the last point to the first); -1 = unknown; waypoints: -1
} crowd_path_cursor;

CROWD_API crowd_path_follow_def crowd_path_follow_def_default(void);

// Starts the agent on a path with a fresh cursor (crowd_path_cursor_start). Errors: agent
// handle errors; CROWD_ERR_NULL_ARGUMENT; CROWD_ERR_INVALID_ENUM (kind, mode);
// CROWD_ERR_NOT_FINITE; CROWD_ERR_BAD_RADIUS (arrive, slow or tube radius <= 0, predict_ahead
// < 0); CROWD_ERR_BAD_WEIGHT; CROWD_ERR_OUT_OF_RANGE (radii beyond CROWD_MAX_DISTANCE,
// predict_ahead beyond CROWD_MAX_TIME, weight beyond CROWD_MAX_WEIGHT); path handle errors;
// CROWD_ERR_BAD_PATH_INDEX (start_index).
CROWD_API crowd_status crowd_agent_set_path(crowd_world* world, crowd_agent_id id,
                                            const crowd_path_follow_def* def);

// Stops following (state NONE).
CROWD_API crowd_status crowd_agent_clear_path(crowd_world* world, crowd_agent_id id);

// The agent's path parameters and cursor; either pointer may be NULL. An agent that follows no
// path reports state NONE and the default def.
CROWD_API crowd_status crowd_agent_get_path(const crowd_world* world, crowd_agent_id id,
                                            crowd_path_follow_def* def, crowd_path_cursor* cursor);

// ---- the behaviors as pure functions -----------------------------------------------------------
//
// The engine's path pass calls these. `points` holds `count` >= 2 points; on anything else the
// functions return a zero force and leave the cursor alone.

// The spec's ProjectOnSegment: ab = b - a, t = clamp(dot(p - a, ab) / max(|ab|^2, 1e-4), 0, 1),
// proj = a + ab * t; *dist = |p - proj| (dist may be NULL).
CROWD_API crowd_vec2 crowd_path_project(crowd_vec2 p, crowd_vec2 a, crowd_vec2 b, float* dist);

// Segments of a path in a mode: count for LOOP (the closing segment last), else count - 1.
CROWD_API int crowd_path_segment_count(int count, crowd_path_mode mode);

// The spec's findClosestSegment by brute force: the lowest-indexed segment whose projection of
// p is nearest. *dist (may be NULL) gets that distance. Returns -1 when count < 2.
CROWD_API int crowd_path_closest_segment(const crowd_vec2* points, int count, crowd_path_mode mode,
                                         crowd_vec2 p, float* dist);

// A fresh cursor: state FOLLOWING, index start_index, direction -1 when reverse else +1,
// segment -1 for waypoints; for a tube the segment leaving start_index in the direction of
// travel (clamped to the path's ends, wrapping on a loop), which the engine uses as its first
// segment hint. A NULL def gives a cursor in state NONE (index 0, direction 0, segment -1).
CROWD_API crowd_path_cursor crowd_path_cursor_start(int count, const crowd_path_follow_def* def);

// Waypoints (pathFollowWaypoints). target = points[index]; when |target - pos| < arrive_radius
// the cursor advances once: LOOP index = (index + direction) mod count; PING_PONG flips the
// direction when index + direction leaves [0, count) and then steps; ONE_SHOT steps unless index
// is the final point (count - 1, or 0 in reverse), where the state becomes FINISHED. Then with
// target = points[index]: arrive(pos, vel, max_speed, target, slow_radius) for a one-shot at its
// final point (FLOW: crowd_steer_arrive_stop with max_force), else seek(pos, vel, max_speed,
// target). Returns that force (unweighted).
CROWD_API crowd_vec2 crowd_path_waypoint_step(const crowd_vec2* points, int count,
                                              const crowd_path_follow_def* def,
                                              crowd_path_cursor* cursor, crowd_vec2 pos,
                                              crowd_vec2 vel, float max_speed, float max_force);

// Tube (pathFollowTube) on a chosen segment, normally the one nearest to the predicted position
// (crowd_path_closest_segment, or the engine's hint-window search). predicted = pos + vel *
// predict_ahead; proj, dist = crowd_path_project(predicted, segment's ends). The segment's next
// point `next` is its end in the direction of travel; cursor->segment = segment. Then:
//  - PING_PONG: when next is the path's end in the direction of travel and |next - pos| <
//    arrive_radius, the direction flips and next becomes the segment's other end;
//  - ONE_SHOT: when next is the final point and |next - pos| < arrive_radius the state becomes
//    FINISHED. A FINISHED cursor gets arrive(final point, slow_radius); one that was FINISHED
//    before the call is returned unchanged and `segment` is not used;
//  - dist > tube_radius: seek(proj); else seek(points[next]), or arrive(points[next],
//    slow_radius) when a one-shot's next is its final point.
// That is the LITERAL form; FLOW (the default) aims as described at crowd_path_form and arrives
// with crowd_steer_arrive_stop (max_force) wherever LITERAL arrives.
// cursor->index = next. Returns the force (unweighted). A segment outside [0,
// crowd_path_segment_count) gives a zero force, except with a cursor FINISHED before the call:
// that one never uses `segment` and always gets the arrive force above.
CROWD_API crowd_vec2 crowd_path_tube_step(const crowd_vec2* points, int count,
                                          const crowd_path_follow_def* def,
                                          crowd_path_cursor* cursor, int segment, crowd_vec2 pos,
                                          crowd_vec2 vel, float max_speed, float max_force);

#ifdef __cplusplus
}
#endif

#endif
