// Queue internals: a queueing agent's record.
#ifndef CS_QUEUE_INTERNAL_H
#define CS_QUEUE_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/internal.h"

// One per queueing agent, read by the neighbor pass (cone), the goal pass (brake) and the arrival
// phase (goal, arrival radius, policy) in cell order: one cache line, which also keeps the passes'
// writes of different agents off each other's lines.
typedef struct cs_queue_rec {
    crowd_queue_def def; // as set
    // Written by the neighbor pass. LITERAL: along, the closest agent ahead in the cone (+inf if
    // none), and width2 = cs_queue_width2(def.cone_width), which the pass reads. FILE: the offset
    // (ahead_x, ahead_y) from the agent to the one it queues behind; ahead_x = +inf if none.
    union {
        float along;
        float ahead_x;
    };
    union {
        float width2;
        float ahead_y;
    };
    uint8_t done; // STOP: the arrival was reported; no more arrivals until set again
    uint8_t pad[3];
} cs_queue_rec;

_Static_assert(sizeof(cs_queue_rec) == 64, "a queue record is one cache line");

// The largest float t with sqrtf(t) <= width. sqrtf is correctly rounded and monotone, so the
// cone's test sqrtf(perp2) <= width is exactly perp2 <= t: no square root per candidate, and the
// same answer as the spec's length comparison for every input.
float cs_queue_width2(float width);

// A fresh record for an agent that starts (or resumes) queueing with `def`.
static inline cs_queue_rec cs_queue_rec_make(const crowd_queue_def* def, bool done) {
    if (def->form == CROWD_QUEUE_FILE)
        return (cs_queue_rec){
            .def = *def, .ahead_x = INFINITY, .ahead_y = 0.0f, .done = (uint8_t)done};
    return (cs_queue_rec){.def = *def,
                          .along = INFINITY,
                          .width2 = cs_queue_width2(def->cone_width),
                          .done = (uint8_t)done};
}

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
// pool's aux array of cs_arrival, as long as the pool).
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
