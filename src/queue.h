// Queue internals: a queueing agent's record.
#ifndef CROWD_QUEUE_INTERNAL_H
#define CROWD_QUEUE_INTERNAL_H

#include <stdint.h>

#include "crowd/crowd.h"

// One per queueing agent, read by the neighbor pass (cone), the goal pass (brake) and the arrival
// phase (goal, arrival radius, policy) in cell order: one cache line, which also keeps the passes'
// writes of different agents off each other's lines.
typedef struct crowd_queue_rec {
    crowd_queue_def def; // as set
    float along;         // neighbor pass: closest agent ahead in the cone, +inf if none
    uint8_t done;        // STOP: the arrival was reported; no more arrivals until set again
    uint8_t pad[11];
} crowd_queue_rec;

_Static_assert(sizeof(crowd_queue_rec) == 64, "a queue record is one cache line");

// The checks crowd_agent_set_queue applies to a def, in its documented order.
crowd_status crowd_queue_check_def(const crowd_queue_def* d);

#endif
