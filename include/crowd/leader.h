// crowdstep: follow leader, formations and dynamic formation slots.
//
// Any agent can lead: crowd_agent_follow makes one agent follow another with Reynolds' follow
// leader behavior as section 2 of the spec defines it (crowd_steer_follow_leader below). A leader
// can itself follow another leader (chains; loops are refused) or walk to its own goal or path.
//
// Targets. A follower either arrives at the leader's behind point (CROWD_FOLLOW_BEHIND) or holds a
// slot of its leader's formation (CROWD_FOLLOW_SLOT). Slots are offsets in the leader's frame: x
// along the leader's heading, y to its left. Whenever the set of slot followers of a leader or its
// formation changes, the leader's slot followers are reassigned to the formation's slots at the
// start of the next step's leader pass, from the positions of that moment:
//  - up to CROWD_FOLLOW_EXACT_MAX slot followers: the assignment of least total distance
//    (Hungarian method; paths to the slots never cross);
//  - larger groups: greedy by distance (ties to the lower agent index, then the lower slot),
//    improved by pairwise swaps that shorten the total (at most 8 rounds), which removes
//    crossings;
//  - when followers x slots exceeds CROWD_FOLLOW_GREEDY_PAIRS (either method): slots and
//    followers are both ordered front to back (then left to right within a row) in the leader's
//    frame and matched in that order.
// The result depends only on the world's state, never on the thread count. A slot follower that
// gets no slot (a CUSTOM formation with fewer offsets than followers) uses the behind point.
//
// Spacing. With the defaults (CROWD_FOLLOW_KEEP_UP, slow_radius 6) ten followers sharing the
// behind point of a stopped leader rest with their closest pair 0.64 to 0.82 m apart (bodies of
// radius 0.3 do not overlap). With the spec's formula (crowd_follow_def_literal()) the group
// settles where arrive (all to one point) balances separation: closest pair about 0.56 m (0.47
// sepRadius) for ten followers, 0.49 m for twenty. Groups that must keep a given spacing at rest
// hold formation slots.
//
// Leader removal. When a leader is removed, each of its followers, in the order they joined:
//  - follows the fallback leader named with crowd_leader_set_fallback, keeping its
//  crowd_follow_def,
//    when that handle is still valid, is not the follower itself and would not close a loop;
//  - otherwise stops (CROWD_FOLLOW_STOPPED): it arrives at the target it had at that moment (its
//    behind point or slot in world space, see crowd_follow_info.target) with its slow_radius,
//    limited to max_force and scaled by weight, and keeps doing so until it follows again or
//    crowd_agent_unfollow is called. A stopped follower has no follower-group separation; its own
//    separation (crowd_agent_def.separation_*) still applies.
// No follower ever refers to a removed agent. Removing a follower frees its slot.
// Removal never fails and allocates nothing, also inside a step (a queue's CROWD_QUEUE_REMOVE):
// while any leader has a fallback, the world keeps slot-assignment scratch for one group of all its
// followers with the most slots any formation offers (fallback chains can gather every follower
// into one group). The calls that raise that bound reserve it first and may therefore fail with
// CROWD_ERR_OUT_OF_MEMORY, changing nothing: crowd_agent_follow (a new follower),
// crowd_leader_set_formation (a larger CUSTOM formation) and crowd_leader_set_fallback.
#ifndef CROWD_LEADER_H
#define CROWD_LEADER_H

#include "crowd/base.h"
#include "crowd/world.h"

#ifdef __cplusplus
extern "C" {
#endif

// Largest group that gets the exact (least total distance) slot assignment.
#define CROWD_FOLLOW_EXACT_MAX 12
// Largest follower x slot product that gets the greedy assignment.
#define CROWD_FOLLOW_GREEDY_PAIRS 65536
// Most offsets a CUSTOM formation may have.
#define CROWD_FORMATION_MAX_OFFSETS 65535

typedef enum crowd_follow_target {
    CROWD_FOLLOW_BEHIND = 0, // the spec's behindPoint = leader.position - heading * behind_dist
    CROWD_FOLLOW_SLOT,       // a slot of the leader's formation
    CROWD_FOLLOW_TARGET_COUNT
} crowd_follow_target;

// How the follow force is computed.
typedef enum crowd_follow_form {
    // The default. The spec's formula defeats its own purpose in a group: its separation subtracts
    // the follower's velocity once per close neighbor (a drag that grows with the group: ten
    // followers behind a leader at 1.3 m/s fall back at about 0.5 m/s), and its arrive lags the
    // moving behind point. KEEP_UP changes two terms and keeps the rest (target, ahead zone and
    // evade, weights, limit):
    //  - separation (the group's and the follower's own, crowd_agent_def.separation_*) pushes
    //    without the velocity term: crowd_steer_separation_push;
    //  - arrive aims at the moving target: desired velocity = leader_velocity + an approach speed
    //    toward the target (max_speed * min(1, dist / slow_radius), at most sqrt(dist * max_force),
    //    the speed half of max_force can brake to zero on dist), limited to max_speed; force =
    //    (desired - velocity) / CROWD_FOLLOW_RESPONSE_TIME; `predict` is ignored. A stopped
    //    leader's group thus stops
    //    with it instead of overshooting its behind point. With the default slow_radius of 6 the
    //    pull toward a shared behind point is soft enough (0.5 / s per metre) that ten followers
    //    of a stopped leader rest with their bodies apart (closest pair about 0.8 m).
    CROWD_FOLLOW_KEEP_UP = 0,
    CROWD_FOLLOW_LITERAL, // the spec's followLeader exactly, as written below
    CROWD_FOLLOW_FORM_COUNT
} crowd_follow_form;

// Response time of the KEEP_UP arrive term, in seconds.
#define CROWD_FOLLOW_RESPONSE_TIME 0.5f

// The parameters of the spec's followLeader. The separation radius (the spec's sepRadius, 1.2) is
// the follower's own separation radius (crowd_agent_def.separation_radius, default 1.2): the
// neighbor pass measures the follower-group separation with it.
typedef struct crowd_follow_def {
    float behind_dist;       // >= 0 (default 2)
    float ahead_dist;        // >= 0 (default 1.5)
    float ahead_radius;      // >= 0, 0 turns the ahead zone off (default 1.5)
    float slow_radius;       // > 0, arrive's slowing radius (default 6; the spec's is 1)
    float evade_weight;      // >= 0 (default 2, the spec's constant)
    float separation_weight; // >= 0 (default 0.6, the spec's constant)
    float weight;            // >= 0, scales the limited follow force in the agent's sum (default 1)
    bool predict; // leader prediction: arrive at target + leader_velocity * T (default off); the
                  // LITERAL form only (KEEP_UP feeds the leader's velocity forward instead)
    crowd_follow_target target; // behind point or formation slot (default CROWD_FOLLOW_BEHIND)
    crowd_follow_form form;     // default CROWD_FOLLOW_KEEP_UP (see above)
} crowd_follow_def;

// The defaults: the spec's constants except slow_radius 6 and form CROWD_FOLLOW_KEEP_UP.
CROWD_API crowd_follow_def crowd_follow_def_default(void);
// The spec's followLeader exactly: its constants (slow_radius 1) and form CROWD_FOLLOW_LITERAL.
CROWD_API crowd_follow_def crowd_follow_def_literal(void);

// ---- the pure function ------------------------------------------------------------------------

typedef struct crowd_follow_input {
    crowd_vec2 position, velocity; // the follower
    float max_speed, max_force;    // the follower's, > 0
    crowd_vec2 leader_position, leader_velocity;
    crowd_vec2 leader_heading; // the leader's last valid heading, unit length
    // The unweighted separation against the other followers of the same leader:
    // crowd_steer_separation(position, velocity, max_speed, others, n, sep_radius, 1).
    crowd_vec2 separation;
    bool has_slot;   // true: the target is `slot`; false: the behind point
    crowd_vec2 slot; // offset in the leader's frame (x forward, y left)
} crowd_follow_input;

// The spec's followLeader:
//   heading     = normalize(leader_velocity) if |leader_velocity|^2 > 0.01 else leader_heading
//   target      = leader_position - heading * behind_dist                      (behind point)
//              or leader_position + heading * slot.x + left * slot.y, left = (-heading.y,
//              heading.x)
//   aheadPoint  = leader_position + heading * ahead_dist
//   force  = 0
//   if |position - aheadPoint| < ahead_radius:
//       force += crowd_steer_evade(position, velocity, max_speed, aheadPoint, leader_velocity)
//                * evade_weight
//   if predict: target += leader_velocity * crowd_steer_predict_time(position, max_speed, target)
//   force += crowd_steer_arrive(position, velocity, max_speed, target, slow_radius)
//   force += separation * separation_weight
//   return crowd_steer_limit(force, max_force)
// def->weight and def->target are not used here (the engine scales the result by weight; has_slot
// chooses the target). Returns the zero vector when a pointer is NULL.
CROWD_API crowd_vec2 crowd_steer_follow_leader(const crowd_follow_input* in,
                                               const crowd_follow_def* def);

// ---- following ----------------------------------------------------------------------------------

// Makes `follower` follow `leader` from the next step on. Following again replaces the leader and
// the def (a follower that stays with the same leader and target kind keeps its slot). Fails with
// CROWD_ERR_FOLLOW_CYCLE when the follower is the leader or leads it, directly or through a chain.
CROWD_API crowd_status crowd_agent_follow(crowd_world* world, crowd_agent_id follower,
                                          crowd_agent_id leader, const crowd_follow_def* def);

// Stops following (also ends the STOPPED state); frees the follower's slot. No-op for an agent
// that does not follow.
CROWD_API crowd_status crowd_agent_unfollow(crowd_world* world, crowd_agent_id follower);

typedef enum crowd_follow_state {
    CROWD_FOLLOW_NONE = 0, // not following
    CROWD_FOLLOW_ACTIVE,   // following `leader`
    CROWD_FOLLOW_STOPPED,  // its leader was removed: holds `target`
} crowd_follow_state;

typedef struct crowd_follow_info {
    crowd_follow_state state;
    crowd_agent_id leader; // the null handle unless ACTIVE
    crowd_follow_def def;
    int slot;               // slot index in the leader's formation, -1 when it holds none
    bool slot_pending;      // a slot follower waiting for the next step's slot assignment
    crowd_vec2 slot_offset; // the slot's offset in the leader's frame (when slot >= 0)
    crowd_vec2 target;      // ACTIVE: the current target point; STOPPED: the point it holds
} crowd_follow_info;

CROWD_API crowd_status crowd_agent_get_follow(const crowd_world* world, crowd_agent_id follower,
                                              crowd_follow_info* out);

// ---- leading ------------------------------------------------------------------------------------

typedef enum crowd_formation_shape {
    CROWD_FORMATION_COLUMN = 0, // single file: slot k at (-(distance + k * spacing), 0)
    CROWD_FORMATION_LINE,       // line abreast at -distance, centred, slot 0 leftmost
    CROWD_FORMATION_WEDGE,      // V with the leader at the tip: 45-degree arms, slots alternate
                                // left / right at distance + k/2 * spacing along the arm
    CROWD_FORMATION_BLOCK,      // rows of `columns` slots from -distance backwards, rows centred
    CROWD_FORMATION_CIRCLE,     // ring around the leader, radius max(distance, n*spacing/(2 pi)),
                                // evenly spaced, never a slot straight ahead (an even count turns
                                // by half a step). A slot inside a follower's ahead zone is
                                // contested by its evade term: keep distance > ahead_dist +
                                // ahead_radius (3 with the defaults) plus a margin.
    CROWD_FORMATION_CUSTOM,     // the caller's offsets (copied)
    CROWD_FORMATION_SHAPE_COUNT
} crowd_formation_shape;

typedef struct crowd_formation_def {
    crowd_formation_shape shape; // default CROWD_FORMATION_COLUMN
    float spacing;               // > 0, between neighboring slots (default 1.5)
    float distance;              // > 0, from the leader to the nearest slot (default 2)
    int columns;                 // BLOCK: slots per row, >= 1 (default 3)
    const crowd_vec2* offsets;   // CUSTOM: offset_count offsets in the leader's frame
    int offset_count;            // CUSTOM: 1 .. CROWD_FORMATION_MAX_OFFSETS
} crowd_formation_def;

CROWD_API crowd_formation_def crowd_formation_def_default(void);

// Sets the formation whose slots the leader's CROWD_FOLLOW_SLOT followers hold (a leader that
// never got one uses crowd_formation_def_default()). The parametric shapes have exactly as many
// slots as the leader has slot followers, so the formation stays compact as followers come and go.
CROWD_API crowd_status crowd_leader_set_formation(crowd_world* world, crowd_agent_id leader,
                                                  const crowd_formation_def* def);

// Names the agent whose follower the leader's followers become when the leader is removed; the
// null handle clears it. The handle is checked again at removal time (see the top of this file).
CROWD_API crowd_status crowd_leader_set_fallback(crowd_world* world, crowd_agent_id leader,
                                                 crowd_agent_id fallback);

typedef struct crowd_leader_info {
    int followers;               // all agents following it
    int slot_followers;          // those with target CROWD_FOLLOW_SLOT
    crowd_agent_id fallback;     // as set (may have gone stale since)
    crowd_formation_shape shape; // its formation's
    float spacing, distance;
    int columns;
    int offset_count; // CUSTOM: the number of offsets, else 0
} crowd_leader_info;

CROWD_API crowd_status crowd_leader_get_info(const crowd_world* world, crowd_agent_id leader,
                                             crowd_leader_info* out);

// Copies the leader's followers, in the order they joined, into ids. When capacity is smaller than
// their number nothing is written, *count is set and CROWD_ERR_BUFFER_TOO_SMALL is returned.
CROWD_API crowd_status crowd_leader_get_followers(const crowd_world* world, crowd_agent_id leader,
                                                  crowd_agent_id* ids, int capacity, int* count);

#ifdef __cplusplus
}
#endif

#endif
