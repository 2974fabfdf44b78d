// Queue internals: a queueing agent's record.
#ifndef CS_QUEUE_INTERNAL_H
#define CS_QUEUE_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/internal.h"

// A queue's settings as the passes read them, shared by the agents queueing alike (a parameter
// profile, core/profile.h; its number + 1 in hot column CS_HOT_QUEUE_PROFILE): the def as set but
// its goal point, which is each agent's own (hot columns CS_HOT_QUEUE_X, _Y; zero here), and
// width2 = cs_queue_width2(def.cone_width), the cone's test bound. The neighbor pass reads the
// cone's or the file's inputs here and writes what it finds to its per-slot outputs (the closest
// along the cone; the offset to the one ahead in the file), which the goal pass reads.
typedef struct cs_queue_profile {
    crowd_queue_def def;
    float width2;
} cs_queue_profile;

// One per queueing agent, read on events only (an arrival, the API, a snapshot): whether its STOP
// arrival was reported. Its def is its profile's with its goal point from the hot columns
// (cs_queue_def_at).
typedef struct cs_queue_rec {
    uint32_t done; // STOP: the arrival was reported; no more arrivals until set again
} cs_queue_rec;

// The largest float t with sqrtf(t) <= width (cs_steer_width2): the cone's test without a root.
float cs_queue_width2(float width);

// The goal point of the queue of the agent in slot s (it queues).
static inline crowd_vec2 cs_queue_goal_at(const crowd_world* w, int s) {
    return (crowd_vec2){cs_hot_f32(w, CS_HOT_QUEUE_X)[s], cs_hot_f32(w, CS_HOT_QUEUE_Y)[s]};
}

// The queue profile of the agent in slot s (it queues).
static inline const cs_queue_profile* cs_queue_profile_at(const crowd_world* w, int s) {
    return cs_profiles_at(&w->profiles[CS_PROF_QUEUE], cs_hot_u32(w, CS_HOT_QUEUE_PROFILE)[s] - 1);
}

// The def of the queueing agent in slot s, as it was set: its profile's with its goal point.
static inline crowd_queue_def cs_queue_def_at(const crowd_world* w, int s) {
    crowd_queue_def d = cs_queue_profile_at(w, s)->def;
    d.goal = cs_queue_goal_at(w, s);
    return d;
}

// Gives agent idx in slot s the queue `def` (its record exists; room for the profile and the
// column was reserved: cs_queue_reserve_hot), its STOP arrival reported or not.
void cs_queue_store(crowd_world* w, uint32_t idx, int s, const crowd_queue_def* def, bool done);
crowd_status cs_queue_reserve_hot(crowd_world* w, uint32_t n);

static inline cs_queue_rec* cs_queue_of(const crowd_world* w, uint32_t idx) {
    return cs_record_of(w, CS_REC_QUEUE, idx);
}

// One arrival as the step keeps it until the next (crowd_world_get_arrivals builds the public
// crowd_arrival from it): the list has room for every queueing agent, so its 24 bytes rather than
// crowd_arrival's 32 are paid per queueing agent.
typedef struct cs_arrival {
    uint32_t index1;
    uint16_t generation;
    uint8_t action; // crowd_queue_policy
    uint8_t pad;
    float x, y;
    uint64_t user_data;
} cs_arrival;

_Static_assert(sizeof(cs_arrival) == 24, "an arrival is kept in 24 bytes");

// The queue behavior's world state: the last step's arrivals (the list itself is the queue
// pool's aux elements, cs_arrival each: room for every queueing agent).
typedef struct cs_queue_world {
    int arrival_count;
} cs_queue_world;

static inline cs_queue_world* cs_queue_world_of(const crowd_world* w) {
    return w->state[CS_BEH_QUEUE];
}

// The checks crowd_agent_set_queue applies to a def, in its documented order.
crowd_status cs_queue_check_def(const crowd_queue_def* d);

// The arrival phase (queue.c), in CROWD_PHASE_ARRIVAL.
void cs_pass_arrival(crowd_world* w);

// Table hooks (queue.c).
void cs_queue_on_remove(crowd_world* w, uint32_t idx);
uint64_t cs_queue_hash(const crowd_world* w, uint32_t idx, uint64_t h);
bool cs_queue_removes_in_step(const crowd_world* w, uint32_t idx);
cs_sep_form cs_queue_sep_form(const crowd_world* w, uint32_t idx, uint32_t flags);

#endif
