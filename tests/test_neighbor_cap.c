// The per-agent neighbor cap (crowd_world_set_max_neighbors): the k nearest neighbors against a
// brute-force reference, bounded work for agents piled up at one point (counted, not timed),
// determinism across thread counts and snapshots. And the uncapped pass's budget
// (CROWD_NEIGHBOR_BUDGET): an agent whose query box holds more candidates is walked as with the
// largest cap, so a pile-up costs bounded work without a cap too; the pile's agents step exactly
// as in a capped world, agents away from a pile exactly as without it.
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/crowd.h"
#include "scenes.h"

static bool small_scale(void) {
    const char* s = getenv("CROWD_TEST_SCALE");
    return s && strcmp(s, "small") == 0;
}

static crowd_world* make_cells(int threads, int cap, int capacity, float cell) {
    crowd_world_def wd = crowd_world_def_default();
    wd.cell_size = cell;
    wd.threads = threads;
    wd.max_neighbors = cap;
    wd.capacity = capacity;
    crowd_world* w;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    return w;
}

static crowd_world* make(int threads, int cap, int capacity) {
    return make_cells(threads, cap, capacity, 2.5f);
}

Test(neighbor_cap, settings_and_ranges) {
    crowd_world* w = make(1, 0, 16);
    cr_assert_eq(crowd_world_get_max_neighbors(w), 0);
    cr_assert_eq(crowd_world_set_max_neighbors(w, -1), CROWD_ERR_BAD_COUNT);
    cr_assert_eq(crowd_world_set_max_neighbors(w, CROWD_MAX_NEIGHBORS + 1), CROWD_ERR_BAD_COUNT);
    cr_assert_eq(crowd_world_get_max_neighbors(w), 0);
    cr_assert_eq(crowd_world_set_max_neighbors(w, CROWD_MAX_NEIGHBORS), CROWD_OK);
    cr_assert_eq(crowd_world_get_max_neighbors(w), CROWD_MAX_NEIGHBORS);
    crowd_world_destroy(w);
    crowd_world_def wd = crowd_world_def_default();
    wd.max_neighbors = -3;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_ERR_BAD_COUNT);
}

typedef struct near {
    float d;
    uint32_t idx;
    float ux, uy;
} near;

static int by_distance(const void* a, const void* b) {
    const near *x = a, *y = b;
    if (x->d != y->d) return x->d < y->d ? -1 : 1;
    return x->idx < y->idx ? -1 : (x->idx > y->idx);
}

// Separation-only agents, no goals: after one step each agent's velocity is the integration of
// the separation over its k nearest neighbors within the radius, nearest first (ties: lower
// index), computed here from all agents by brute force. Cells of 0.1 m make a query box hardly
// larger than the separation disc (at most 2.9 m square against 4.5 m^2): at the densities used
// the cap applies to most agents while no box holds more than k * CROWD_NEIGHBOR_SCAN
// candidates, so the cap's walk sees every candidate and the reference is exact, bit for bit.
static void check_against_brute_force(int n, float half, int k, uint64_t seed) {
    // Room for 2^15 buckets: the occupied cells fit, so the hash is dense and a row's range
    // holds that row's agents only.
    crowd_world* w = make_cells(2, k, 1 << 15, 0.1f);
    scene_rng r = {seed};
    crowd_agent_id* ids = malloc(sizeof *ids * (size_t)n);
    crowd_vec2* p = malloc(sizeof *p * (size_t)n);
    crowd_vec2* v = malloc(sizeof *v * (size_t)n);
    near* list = malloc(sizeof *list * (size_t)n);
    for (int i = 0; i < n; ++i) {
        crowd_agent_def a = crowd_agent_def_default();
        a.position =
            (crowd_vec2){scene_rng_float(&r, -half, half), scene_rng_float(&r, -half, half)};
        a.velocity = (crowd_vec2){scene_rng_float(&r, -1, 1), scene_rng_float(&r, -1, 1)};
        a.separation_radius = 1.2f;
        cr_assert_eq(crowd_agent_add(w, &a, &ids[i]), CROWD_OK);
        p[i] = a.position;
        v[i] = a.velocity;
    }
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    const crowd_profile prof = crowd_world_get_profile(w);
    cr_assert_lt(prof.candidates, (uint64_t)n * (uint64_t)k * CROWD_NEIGHBOR_SCAN);
    const crowd_agent_def d = crowd_agent_def_default();
    int capped = 0;
    for (int i = 0; i < n; ++i) {
        int m = 0;
        for (int j = 0; j < n; ++j) {
            const float dx = p[i].x - p[j].x, dy = p[i].y - p[j].y;
            const float dist = sqrtf(dx * dx + dy * dy);
            if (!(dist > 0.01f && dist < 1.2f)) continue;
            const float q = 1.0f / dist - 1.0f / 1.2f;
            list[m++] = (near){dist, ids[j].index1 - 1, dx * q, dy * q};
        }
        qsort(list, (size_t)m, sizeof *list, by_distance);
        if (m > k) ++capped, m = k;
        float sx = 0.0f, sy = 0.0f;
        for (int t = 0; t < m; ++t) sx += list[t].ux, sy += list[t].uy;
        const crowd_vec2 f = {(d.max_speed * sx - (float)m * v[i].x) * d.separation_weight,
                              (d.max_speed * sy - (float)m * v[i].y) * d.separation_weight};
        crowd_vec2 pos = p[i], vel = v[i], h = {1.0f, 0.0f};
        crowd_steer_integrate(&pos, &vel, &h, f, d.max_speed, d.max_force, 0.1f);
        crowd_vec2 got;
        cr_assert_eq(crowd_agent_get_velocity(w, ids[i], &got), CROWD_OK);
        cr_assert(got.x == vel.x && got.y == vel.y,
                  "agent %d (%d near): (%.9g, %.9g) vs (%.9g, %.9g)", i, m, (double)got.x,
                  (double)got.y, (double)vel.x, (double)vel.y);
    }
    cr_assert_gt(capped, n / 20, "the cap applied to %d agents only", capped);
    free(ids), free(p), free(v), free(list);
    crowd_world_destroy(w);
}

Test(neighbor_cap, keeps_the_k_nearest_like_brute_force) {
    check_against_brute_force(1500, 8.4f, 16, 1); // 5.3 agents/m^2: 24 within the radius
    check_against_brute_force(800, 8.6f, 8, 2);   // 2.7 agents/m^2: 12 within the radius
}

// A million agents added at one point (the attack: quadratic without a bound, a minute
// and more per step). With a cap of k every agent examines at most k * CROWD_NEIGHBOR_SCAN
// candidates; without one (k = 0) at most CROWD_NEIGHBOR_BUDGET, walked as with the largest cap.
// The step's candidate count is bounded by that, whatever the density. Counted, not timed.
static void pile_up(int n, float jitter, int cap) {
    crowd_world* w = make(2, cap, n);
    crowd_agent_def a = crowd_agent_def_default();
    scene_rng r = {5};
    for (int i = 0; i < n; ++i) {
        a.position = (crowd_vec2){scene_rng_float(&r, -jitter, jitter),
                                  scene_rng_float(&r, -jitter, jitter)};
        crowd_agent_id id;
        cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_OK);
    }
    const uint64_t most = cap ? (uint64_t)cap * CROWD_NEIGHBOR_SCAN : CROWD_NEIGHBOR_BUDGET;
    const uint64_t kept = cap ? (uint64_t)cap : CROWD_MAX_NEIGHBORS;
    for (int t = 0; t < 2; ++t) {
        cr_assert_eq(crowd_world_step(w), CROWD_OK);
        const crowd_profile p = crowd_world_get_profile(w);
        cr_assert_leq(p.candidates, (uint64_t)n * most, "%llu candidates",
                      (unsigned long long)p.candidates);
        cr_assert_geq(p.candidates, (uint64_t)n * kept, "the walk stopped early");
    }
    crowd_world_destroy(w);
}

Test(neighbor_cap, a_million_agents_at_one_point_step_in_bounded_work, .timeout = 300) {
    const int n = small_scale() ? 100000 : 1000000;
    pile_up(n, 0.0f, 16);     // exactly one point: nobody is within (0.01, radius), nothing moves
    pile_up(n / 4, 0.5f, 16); // a jittered pile: every candidate is a neighbor and the cap selects
}

Test(neighbor_budget, a_million_agents_at_one_point_step_in_bounded_work, .timeout = 300) {
    const int n = small_scale() ? 100000 : 1000000;
    pile_up(n, 0.0f, 0);
    pile_up(n / 4, 0.5f, 0);
}

// The state hash of w after `ticks` steps; w is destroyed.
static uint64_t stepped_hash(crowd_world* w, int ticks) {
    for (int t = 0; t < ticks; ++t) cr_assert_eq(crowd_world_step(w), CROWD_OK);
    const uint64_t h = crowd_world_state_hash(w);
    crowd_world_destroy(w);
    return h;
}

static void same_on_one_two_three_threads(uint64_t (*hash)(int threads)) {
    const uint64_t h1 = hash(1);
    cr_assert_eq(hash(2), h1);
    cr_assert_eq(hash(3), h1);
}

// The capped pass is per agent in a fixed order: 1, 2 and 3 threads agree bit for bit, with
// queues and follower groups in the pile.
static uint64_t mixed_hash(int threads) {
    crowd_world* w = make(threads, 6, 64);
    scene_rng r = {9};
    enum { N = 3000 };
    static crowd_agent_id ids[N];
    for (int i = 0; i < N; ++i) {
        crowd_agent_def a = crowd_agent_def_default();
        a.position = (crowd_vec2){scene_rng_float(&r, -6, 6), scene_rng_float(&r, -6, 6)};
        a.goal.mode = CROWD_GOAL_SEEK;
        a.goal.target = (crowd_vec2){scene_rng_float(&r, -20, 20), scene_rng_float(&r, -20, 20)};
        cr_assert_eq(crowd_agent_add(w, &a, &ids[i]), CROWD_OK);
        if (i % 3 == 1) {
            crowd_queue_def q = crowd_queue_def_default();
            q.goal = a.goal.target;
            cr_assert_eq(crowd_agent_set_queue(w, ids[i], &q), CROWD_OK);
        } else if (i % 3 == 2) {
            crowd_follow_def f = crowd_follow_def_default();
            cr_assert_eq(crowd_agent_follow(w, ids[i], ids[i - 2], &f), CROWD_OK);
        }
    }
    return stepped_hash(w, 30);
}

Test(neighbor_cap, same_state_on_any_thread_count) {
    same_on_one_two_three_threads(mixed_hash);
}

// The cap is part of the saved world: a loaded copy keeps it and continues bit-identically.
Test(neighbor_cap, snapshot_keeps_the_cap) {
    crowd_world* w = make(1, 5, 64);
    scene_rng r = {3};
    for (int i = 0; i < 500; ++i) {
        crowd_agent_def a = crowd_agent_def_default();
        a.position = (crowd_vec2){scene_rng_float(&r, -4, 4), scene_rng_float(&r, -4, 4)};
        crowd_agent_id id;
        cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_OK);
    }
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    size_t size = crowd_world_save_size(w), written;
    void* buf = malloc(size);
    cr_assert_eq(crowd_world_save(w, buf, size, &written), CROWD_OK);
    crowd_world* l;
    cr_assert_eq(crowd_world_load(buf, size, NULL, &l), CROWD_OK);
    cr_assert_eq(crowd_world_get_max_neighbors(l), 5);
    for (int t = 0; t < 10; ++t) {
        cr_assert_eq(crowd_world_step(w), CROWD_OK);
        cr_assert_eq(crowd_world_step(l), CROWD_OK);
    }
    cr_assert_eq(crowd_world_state_hash(l), crowd_world_state_hash(w));
    free(buf);
    crowd_world_destroy(l);
    crowd_world_destroy(w);
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
    return stepped_hash(w, 10);
}

Test(neighbor_budget, same_state_on_any_thread_count) {
    same_on_one_two_three_threads(pile_in_crowd_hash);
}
