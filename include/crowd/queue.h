// crowdstep: queues. Agents heading for one goal form a single file with no coordinator.
//
// By default (CROWD_QUEUE_FILE, below) each agent walks to the point CROWD_QUEUE_GAP behind the
// agent of its queue ahead of it, or to the goal when there is none. The spec's queue
// (CROWD_QUEUE_LITERAL) steers with crowd_steer_arrive toward the goal, its desired speed scaled
// by the brake for the closest agent in a short forward cone (queueBrake), and separates sideways.
// After integration, every queueing agent within arrival_radius of its goal has arrived: the step
// reports it and applies the queue's on-arrival policy.
//
// In the literal form the brake only reaches zero when the agent ahead is touching, so behind a
// head that stands still (a STOP goal) followers keep pressing forward and a file longer than a
// few agents compacts into a cluster around the goal (25 agents: within 5 m of it); and nothing
// pulls agents walking side by side into a line (the spec's demo walks 2 to 4 abreast). The
// default form lines up behind a stopped head, 0.8 m apart.
#ifndef CROWD_QUEUE_H
#define CROWD_QUEUE_H

#include "crowd/base.h"
#include "crowd/world.h"

#ifdef __cplusplus
extern "C" {
#endif

// CROWD_QUEUE_FILE: the distance kept behind the agent ahead, in metres, and how many cone
// lengths ahead an agent looks for the one to queue behind.
#define CROWD_QUEUE_GAP 0.8f
#define CROWD_QUEUE_FILE_REACH 3.0f
// CROWD_QUEUE_FILE: response time of the arrive at the point behind the one ahead, in seconds.
#define CROWD_QUEUE_RESPONSE_TIME 0.2f

// Below this speed an agent has no heading and so no forward cone: its brake is 1.
#define CROWD_QUEUE_MIN_SPEED 1e-3f

// CROWD_QUEUE_RESPAWN: how many random points of the start area an arrival tries.
#define CROWD_QUEUE_RESPAWN_DRAWS 16

typedef enum crowd_queue_policy {
    CROWD_QUEUE_STOP,   // arrive and stay: reported once, then keeps arriving at the goal
    CROWD_QUEUE_REMOVE, // removed on arrival exactly as by crowd_agent_remove
    // Moved to a random point of the start area, velocity reset to zero. The point is one where
    // crowd_agent_add would accept the agent: a point whose disc overlaps a wall or whose centre
    // is inside a solid obstacle is drawn again, up to CROWD_QUEUE_RESPAWN_DRAWS points. If all
    // of them are blocked (an area mostly covered by obstacles) the agent is left as it is and is
    // reported and tried again on its next arrival, so it never appears inside an obstacle.
    CROWD_QUEUE_RESPAWN,
    CROWD_QUEUE_POLICY_COUNT
} crowd_queue_policy;

// How a queueing agent steers.
typedef enum crowd_queue_form {
    // The default. The spec's cone only brakes: nothing pulls agents into a line, so a crowd
    // walks to the goal several abreast, and behind a head that stands still (STOP) the followers
    // press on into a clump. FILE makes the agent ahead the one to queue behind:
    //  - the cone looks toward the goal (not along the velocity); an agent in it must be of the
    //    same queue (FILE, same goal) and strictly closer to the goal (so nobody queues behind
    //    someone queueing behind it), with 0 < along <= cone_length * CROWD_QUEUE_FILE_REACH and
    //    a distance from the line at most cone_width or along / 2: the closest by along is the
    //    one ahead (when the closest is of another queue, the agent has no one ahead). The longer
    //    reach lets agents that walk beside the file see its tail and join it;
    //  - with someone ahead, the agent arrives (crowd_steer_arrive_stop, with response time
    //    CROWD_QUEUE_RESPONSE_TIME) at the point CROWD_QUEUE_GAP short of it on its own way to the
    //    goal; with nobody ahead it arrives at
    //    the goal (crowd_steer_arrive_stop, a CROWD_GOAL_ARRIVE goal). No brake. Agents thus join
    //    the file at its tail and stand CROWD_QUEUE_GAP apart behind a head that stops;
    //  - its separation has no velocity term (crowd_steer_separation_push).
    CROWD_QUEUE_FILE = 0,
    // The spec's queue exactly: crowd_steer_arrive (a CROWD_GOAL_ARRIVE_LITERAL goal) with its
    // desired speed scaled by crowd_queue_brake.
    CROWD_QUEUE_LITERAL,
    CROWD_QUEUE_FORM_COUNT
} crowd_queue_form;

typedef struct crowd_queue_def {
    float cone_length;             // > 0 (default 2.5)
    float cone_width;              // >= 0, largest distance from the heading line (default 0.6)
    crowd_vec2 goal;               // the point the queue leads to (default (0, 0))
    float slow_radius;             // arrive slow radius, > 0 (default 1)
    float weight;                  // weight of the goal force, >= 0 (default 1)
    float arrival_radius;          // arrived when |position - goal| <= this, > 0 (default 0.5)
    crowd_queue_policy on_arrival; // default CROWD_QUEUE_STOP
    crowd_vec2 start_min;          // RESPAWN: the start area is the rectangle start_min..start_max,
    crowd_vec2 start_max;          // start_min <= start_max in x and y (default both (0, 0))
    crowd_queue_form form;         // default CROWD_QUEUE_FILE
} crowd_queue_def;

CROWD_API crowd_queue_def crowd_queue_def_default(void);

// Makes the agent queue: its goal becomes crowd_steer_arrive toward def->goal with slow_radius and
// weight (replacing any goal it had) and it brakes for its forward cone. Calling it again replaces
// the queue and re-arms a STOP arrival. A later crowd_agent_set_goal changes where the agent
// steers; arrivals are still tested at the queue's goal. Errors, checked in this order: the
// handle's; a NULL def (CROWD_ERR_NULL_ARGUMENT); an on_arrival out of range
// (CROWD_ERR_INVALID_ENUM); a NaN or infinity (CROWD_ERR_NOT_FINITE); cone_length <= 0 or
// cone_width < 0 (CROWD_ERR_BAD_CONE); slow_radius or arrival_radius <= 0 (CROWD_ERR_BAD_RADIUS);
// weight < 0 (CROWD_ERR_BAD_WEIGHT); start_min > start_max (CROWD_ERR_BAD_AREA); a length or
// radius beyond CROWD_MAX_DISTANCE, a weight beyond CROWD_MAX_WEIGHT or a point beyond
// CROWD_MAX_COORD (CROWD_ERR_OUT_OF_RANGE).
CROWD_API crowd_status crowd_agent_set_queue(crowd_world* world, crowd_agent_id id,
                                             const crowd_queue_def* def);

// Stops queueing: no more braking and no arrivals. The agent keeps its arrive goal (change it
// with crowd_agent_set_goal). Clearing an agent that does not queue is not an error.
CROWD_API crowd_status crowd_agent_clear_queue(crowd_world* world, crowd_agent_id id);

// The queue as set; CROWD_ERR_NOT_QUEUEING when the agent does not queue.
CROWD_API crowd_status crowd_agent_get_queue(const crowd_world* world, crowd_agent_id id,
                                             crowd_queue_def* out);

// One arrival of the last step.
typedef struct crowd_arrival {
    crowd_agent_id id;         // stale once a REMOVE arrival has been applied
    uint64_t user_data;        // the agent's user_data
    crowd_vec2 position;       // where it arrived (before a respawn moved it)
    crowd_queue_policy action; // the policy that was applied
} crowd_arrival;

// Number of arrivals in the last step.
CROWD_API int crowd_world_arrival_count(const crowd_world* world);

// Copies the last step's arrivals, in handle order, into `out`. The list lives in the world until
// the next step. When `capacity` is below the count nothing is written, *count is set to the
// count and CROWD_ERR_BUFFER_TOO_SMALL is returned.
CROWD_API crowd_status crowd_world_get_arrivals(const crowd_world* world, crowd_arrival* out,
                                                int capacity, int* count);

// The spec's cone search. `others` holds `count` positions; others[self] is the agent itself and
// is skipped (pass self = -1 when the agent is not in the array). With heading = vel / |vel|, an
// other at offset = other - pos is in the cone when 0 <= along <= cone_length, along =
// dot(offset, heading), and |offset - heading * along| <= cone_width. Returns the smallest such
// along, or +infinity when the cone is empty or |vel| < CROWD_QUEUE_MIN_SPEED.
CROWD_API float crowd_queue_closest_along(crowd_vec2 pos, crowd_vec2 vel, const crowd_vec2* others,
                                          int count, int self, float cone_length, float cone_width);

// The spec's queueBrake: 1 when crowd_queue_closest_along is +infinity, else
// clamp(closest_along / cone_length, 0, 1). The engine scales the desired speed by it.
CROWD_API float crowd_queue_brake(crowd_vec2 pos, crowd_vec2 vel, const crowd_vec2* others,
                                  int count, int self, float cone_length, float cone_width);

#ifdef __cplusplus
}
#endif

#endif
