// Desired walking speeds for a population: a distribution and a keyed draw from it, so that each
// agent's max_speed can follow measured pedestrians (Weidmann 1993's free walking speeds, or
// RiMEA's age groups) with the same draws on every machine, build and thread count.
//
// A draw is a function of (seed, key) alone: give each agent its own key (its number in the
// crowd, for instance) and the crowd's speeds do not depend on the order agents are made in.
// The draws use integer mixing and float arithmetic only (the normal distribution is the sum of
// twelve uniform draws, Irwin and Hall's approximation, which needs no logarithm or cosine whose
// last bit could differ between C libraries).
#ifndef CROWD_SPEED_H
#define CROWD_SPEED_H

#include <stdint.h>

#include "crowd/base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum crowd_speed_kind {
    CROWD_SPEED_NORMAL,  // mean and standard deviation sd, clipped to [lo, hi]
    CROWD_SPEED_UNIFORM, // uniform over [lo, hi]
    CROWD_SPEED_FIXED,   // mean, always
    CROWD_SPEED_KIND_COUNT
} crowd_speed_kind;

typedef struct crowd_speed_dist {
    crowd_speed_kind kind; // default CROWD_SPEED_NORMAL
    float mean, sd;        // m/s (default 1.34 and 0.26: Weidmann 1993's free walking speed)
    float lo, hi;          // m/s: NORMAL's clip, UNIFORM's range (default 0.46 and 2.22)
} crowd_speed_dist;

// Weidmann (1993): free walking speeds on the flat, normal with mean 1.34 m/s and standard
// deviation 0.26 m/s, clipped to [0.46, 2.22] (the slowest walkers of RiMEA's table, and the
// mean plus 3.4 standard deviations).
CROWD_API crowd_speed_dist crowd_speed_dist_default(void);

// RiMEA 3.0.0's table of walking speeds on the flat by age (after Weidmann 1993), as uniform
// ranges: under 30 0.58-1.61, 30 to 50 1.41-1.54, over 50 0.68-1.41 and persons with limited
// mobility 0.46-0.76 m/s.
typedef enum crowd_age_group {
    CROWD_AGE_UNDER_30,
    CROWD_AGE_30_TO_50,
    CROWD_AGE_OVER_50,
    CROWD_AGE_LIMITED_MOBILITY,
    CROWD_AGE_GROUP_COUNT
} crowd_age_group;

// The distribution of one age group (a group out of range gives the default distribution).
CROWD_API crowd_speed_dist crowd_speed_dist_age(crowd_age_group group);

// Draws a speed from d for (seed, key) into *out. Errors (*out unchanged): CROWD_ERR_NULL_ARGUMENT;
// CROWD_ERR_INVALID_ENUM (kind); CROWD_ERR_NOT_FINITE; CROWD_ERR_BAD_SPEED (the speeds it can
// give: mean for FIXED, lo for the others, below CROWD_MIN_SPEED); CROWD_ERR_OUT_OF_RANGE (lo > hi,
// a speed above CROWD_MAX_SPEED, sd < 0). Every speed it gives is a valid max_speed.
CROWD_API crowd_status crowd_speed_draw(const crowd_speed_dist* d, uint64_t seed, uint64_t key,
                                        float* out);

#ifdef __cplusplus
}
#endif

#endif
