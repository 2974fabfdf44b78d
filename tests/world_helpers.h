// Fixtures shared by the engine tests: a world, an agent at a point, and the tests' own
// deterministic random numbers (splitmix64, independent of the library's generator).
#ifndef CROWD_TEST_WORLD_HELPERS_H
#define CROWD_TEST_WORLD_HELPERS_H

#include <criterion/criterion.h>
#include <stdint.h>

#include "crowd/crowd.h"

// A world with the default def on `threads` threads.
static inline crowd_world* world_with(int threads) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = threads;
    crowd_world* w;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    return w;
}

// An agent with the default def at (x, y).
static inline crowd_agent_id add_at(crowd_world* w, float x, float y) {
    crowd_agent_def a = crowd_agent_def_default();
    a.position = (crowd_vec2){x, y};
    crowd_agent_id id;
    cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_OK);
    return id;
}

static inline uint64_t rng_next(uint64_t* s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// A point of [lo, hi) from 24 random bits.
static inline float frand(uint64_t* s, float lo, float hi) {
    return lo + (hi - lo) * (float)(rng_next(s) >> 40) * (1.0f / 16777216.0f);
}

#endif
