// Queue internals: per-agent queue state and the arrival phase.
#ifndef CROWD_QUEUE_INTERNAL_H
#define CROWD_QUEUE_INTERNAL_H

#include <stdint.h>

#include "crowd/crowd.h"

// What the arrival test reads for every queueing agent, kept small because it is read per agent
// index in cell order (random access). The full def lives apart in w->queue_def.
typedef struct crowd_queue_agent {
    crowd_vec2 goal;
    float arrival_radius;
    uint8_t policy; // crowd_queue_policy
    uint8_t done;   // STOP: the arrival was reported; no more arrivals until set again
    uint8_t pad[2];
} crowd_queue_agent;

#endif
