// The uncapped pass's neighbor budget (CROWD_NEIGHBOR_BUDGET, crowd/world.h): an agent whose query
// box holds more candidates than the budget is walked as with the largest cap, so a pile-up costs
// a bounded number of candidates per agent (counted, not timed); the agents of the pile step
// exactly as in a capped world; agents away from a pile step exactly as without it; and the state
// is the same on any thread count.
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/crowd.h"
#include "scenes.h"

static bool small_scale(void) {
    const char* s = getenv("CROWD_TEST_SCALE");
    return s && strcmp(s, "small") == 0;
}

static crowd_world* make(int threads, int cap, int capacity) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = threads;
    wd.max_neighbors = cap;
    wd.capacity = capacity;
    crowd_world* w;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    return w;
}

// n agents in a square of half-side `jitter` round (cx, cy), with goals, so they move.
static void add_pile(crowd_world* w, int n, float cx, float cy, float jitter, uint64_t seed) {
    scene_rng r = {seed};
    for (int i = 0; i < n; ++i) {
        crowd_agent_def a = crowd_agent_def_default();
        a.position = (crowd_vec2){cx + scene_rng_float(&r, -jitter, jitter),
                                  cy + scene_rng_float(&r, -jitter, jitter)};
        a.goal.mode = CROWD_GOAL_SEEK;
        a.goal.target = (crowd_vec2){cx + 30.0f, cy};
        crowd_agent_id id;
        cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_OK);
    }
}

// The attack on a world without a cap: a million agents added at one point made one step
// quadratic (more than a minute). Each agent now examines at most CROWD_NEIGHBOR_BUDGET
// candidates in the walk, plus the cells' populations the budget check reads (rows of its box).
static void pile_up(int n, float jitter) {
    crowd_world* w = make(2, 0, n);
    add_pile(w, n, 0, 0, jitter, 5);
    for (int t = 0; t < 2; ++t) {
        cr_assert_eq(crowd_world_step(w), CROWD_OK);
        const crowd_profile p = crowd_world_get_profile(w);
        cr_assert_leq(p.candidates, (uint64_t)n * CROWD_NEIGHBOR_BUDGET, "%llu candidates",
                      (unsigned long long)p.candidates);
        cr_assert_geq(p.candidates, (uint64_t)n * CROWD_MAX_NEIGHBORS, "the walk stopped early");
    }
    crowd_world_destroy(w);
}

Test(neighbor_budget, a_million_agents_at_one_point_step_in_bounded_work, .timeout = 300) {
    const int n = small_scale() ? 100000 : 1000000;
    pile_up(n, 0.0f);     // exactly one point
    pile_up(n / 4, 0.5f); // a jittered pile: every candidate is within the separation radius
}

// The first n agents of two worlds, in handle order (both added them in the same order): the
// first that differs in position or velocity, bit for bit, or -1.
static int first_difference(const crowd_world* a, const crowd_world* b, int n) {
    const int na = crowd_world_agent_count(a), nb = crowd_world_agent_count(b);
    crowd_vec2* p = malloc(sizeof *p * (size_t)(na + nb));
    crowd_vec2* v = malloc(sizeof *v * (size_t)(na + nb));
    int count;
    cr_assert_eq(crowd_world_get_agents(a, NULL, p, v, na, &count), CROWD_OK);
    cr_assert_eq(crowd_world_get_agents(b, NULL, p + na, v + na, nb, &count), CROWD_OK);
    int diff = -1;
    for (int i = 0; i < n && diff < 0; ++i)
        if (memcmp(&p[i], &p[na + i], sizeof *p) != 0 || memcmp(&v[i], &v[na + i], sizeof *v) != 0)
            diff = i;
    free(p);
    free(v);
    return diff;
}

// Every agent of a pile of 3000 in one square metre has all of them in its box (past the budget):
// without a cap it steps exactly as in a world capped at CROWD_MAX_NEIGHBORS.
Test(neighbor_budget, a_pile_steps_as_with_the_largest_cap) {
    enum { N = 3000 };
    crowd_world* open = make(2, 0, N);
    crowd_world* capped = make(2, CROWD_MAX_NEIGHBORS, N);
    add_pile(open, N, 4, 4, 0.5f, 11);
    add_pile(capped, N, 4, 4, 0.5f, 11);
    for (int t = 0; t < 3; ++t) {
        cr_assert_eq(crowd_world_step(open), CROWD_OK);
        cr_assert_eq(crowd_world_step(capped), CROWD_OK);
        const int d = first_difference(open, capped, N);
        cr_assert_eq(d, -1, "agent %d differs at tick %d", d, t);
    }
    crowd_world_destroy(open);
    crowd_world_destroy(capped);
}

// A crowd of ordinary density 100 m from a pile: its agents are under the budget and step exactly
// as in a world without the pile (the pile added last, so the crowd's handles are the same).
Test(neighbor_budget, agents_away_from_a_pile_are_unaffected) {
    enum { CROWD = 2000, PILE = 3000 };
    crowd_world* with = make(2, 0, CROWD + PILE);
    crowd_world* without = make(2, 0, CROWD);
    add_pile(with, CROWD, 100, 0, 20.0f, 21); // 1.25 agents/m^2
    add_pile(without, CROWD, 100, 0, 20.0f, 21);
    add_pile(with, PILE, 0, 0, 0.5f, 22);
    for (int t = 0; t < 5; ++t) {
        cr_assert_eq(crowd_world_step(with), CROWD_OK);
        cr_assert_eq(crowd_world_step(without), CROWD_OK);
    }
    const int d = first_difference(with, without, CROWD);
    cr_assert_eq(d, -1, "crowd agent %d differs", d);
    crowd_world_destroy(with);
    crowd_world_destroy(without);
}

// A pile inside an ordinary crowd (agents at the pile's edge are walked one way or the other by
// their own box): 1, 2 and 3 threads agree bit for bit.
static uint64_t pile_in_crowd_hash(int threads) {
    crowd_world* w = make(threads, 0, 64);
    add_pile(w, 2000, 0, 0, 15.0f, 31);
    add_pile(w, 2500, 0, 0, 0.7f, 32);
    for (int t = 0; t < 10; ++t) cr_assert_eq(crowd_world_step(w), CROWD_OK);
    const uint64_t h = crowd_world_state_hash(w);
    crowd_world_destroy(w);
    return h;
}

Test(neighbor_budget, same_state_on_any_thread_count) {
    const uint64_t h1 = pile_in_crowd_hash(1);
    cr_assert_eq(pile_in_crowd_hash(2), h1);
    cr_assert_eq(pile_in_crowd_hash(3), h1);
}
