// Hostile input: every value the API accepts keeps the world finite, values beyond the valid
// ranges of crowd/base.h are refused with the world unchanged, thread counts are capped, handles
// never alias and the pure functions survive NULL pointers. One test per case a sweep of the API
// found broken, then a property test that steps random worlds built from boundary values.
#include <criterion/criterion.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/crowd.h"
#include "scenes.h"

static crowd_world* world_with(int threads) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = threads;
    crowd_world* w;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    return w;
}

static crowd_agent_id add_at(crowd_world* w, float x, float y) {
    crowd_agent_def a = crowd_agent_def_default();
    a.position = (crowd_vec2){x, y};
    crowd_agent_id id;
    cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_OK);
    return id;
}

static bool all_finite(const crowd_world* w) {
    const int n = crowd_world_agent_count(w);
    crowd_vec2* p = malloc(sizeof *p * (size_t)(n + 1));
    crowd_vec2* v = malloc(sizeof *v * (size_t)(n + 1));
    int count = 0;
    cr_assert_eq(crowd_world_get_agents(w, NULL, p, v, n, &count), CROWD_OK);
    bool ok = true;
    for (int i = 0; i < count; ++i)
        ok &= isfinite(p[i].x) && isfinite(p[i].y) && isfinite(v[i].x) && isfinite(v[i].y) &&
              fabsf(p[i].x) <= CROWD_MAX_COORD && fabsf(p[i].y) <= CROWD_MAX_COORD;
    free(p);
    free(v);
    return ok;
}

// ---- one test per case ------------------------------------------------------------------------

// |v|^2 of (2e19, 0) overflows float32; the limit is still the vector scaled to length 3.
Test(hostile, limit_of_a_vector_whose_square_overflows) {
    crowd_vec2 r = crowd_steer_limit((crowd_vec2){2e19f, 0.0f}, 3.0f);
    cr_assert_eq(r.x, 3.0f, "%g", (double)r.x);
    cr_assert_eq(r.y, 0.0f);
    r = crowd_steer_limit((crowd_vec2){-FLT_MAX, FLT_MAX}, 1.0f);
    cr_assert_float_eq(r.x, -0.70710678f, 1e-6f);
    cr_assert_float_eq(r.y, 0.70710678f, 1e-6f);
    // A huge length limits nothing below it, and limits a larger vector to itself.
    r = crowd_steer_limit((crowd_vec2){3e38f, 3e38f}, 1e20f);
    cr_assert_float_eq(hypot(r.x, r.y), 1e20, 1e14);
    r = crowd_steer_limit((crowd_vec2){1e30f, 0.0f}, FLT_MAX);
    cr_assert_eq(r.x, 1e30f);
    // Below the overflow the result is the formula's, bit for bit.
    const crowd_vec2 v = {3.0f, 4.0f};
    r = crowd_steer_limit(v, 2.5f);
    const float s = 2.5f / sqrtf(25.0f);
    cr_assert_eq(r.x, v.x * s);
    cr_assert_eq(r.y, v.y * s);
}

Test(hostile, world_def_ranges) {
    crowd_world* w;
    crowd_world_def wd = crowd_world_def_default();
    wd.dt = FLT_MAX;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_ERR_OUT_OF_RANGE);
    wd.dt = nextafterf(CROWD_MAX_DT, INFINITY);
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_ERR_OUT_OF_RANGE);
    wd = crowd_world_def_default();
    wd.cell_size = nextafterf(CROWD_MIN_CELL_SIZE, 0.0f);
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_ERR_OUT_OF_RANGE);
    wd.cell_size = 1e30f;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_ERR_OUT_OF_RANGE);
    wd.cell_size = 0.0f; // its own status stays
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_ERR_BAD_CELL_SIZE);
    wd = crowd_world_def_default();
    wd.dt = CROWD_MAX_DT;
    wd.cell_size = CROWD_MAX_DISTANCE;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    crowd_world_destroy(w);
}

// 1 << 20 and INT_MAX threads were accepted and the first step did not return.
Test(hostile, thread_counts_above_the_cap_are_refused, .timeout = 30) {
    crowd_world* w;
    crowd_world_def wd = crowd_world_def_default();
    const int bad[] = {1 << 20, INT_MAX, CROWD_MAX_THREADS + 1};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        wd.threads = bad[i];
        w = (crowd_world*)&wd;
        cr_assert_eq(crowd_world_create(&wd, &w), CROWD_ERR_BAD_THREADS);
        cr_assert_null(w);
    }
    w = world_with(2);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        cr_assert_eq(crowd_world_set_threads(w, bad[i]), CROWD_ERR_BAD_THREADS);
        cr_assert_eq(crowd_world_get_threads(w), 2);
    }
    cr_assert_eq(crowd_world_set_threads(w, CROWD_MAX_THREADS), CROWD_OK);
    cr_assert_eq(crowd_world_get_threads(w), CROWD_MAX_THREADS);
    crowd_world_destroy(w);
}

// Each value the sweep found turning into NaN within two ticks, now refused with the world
// unchanged, and the same setter at the bound accepted and finite.
Test(hostile, agent_values_beyond_the_ranges_are_refused) {
    crowd_world* w = world_with(1);
    crowd_agent_id a = add_at(w, 0.0f, 0.0f);
    add_at(w, 0.5f, 0.0f);
    add_at(w, 0.0f, 0.5f);
    const uint64_t h = crowd_world_state_hash(w);

    crowd_agent_def d = crowd_agent_def_default();
    crowd_agent_id id;
    d.max_speed = FLT_MAX;
    cr_assert_eq(crowd_agent_add(w, &d, &id), CROWD_ERR_OUT_OF_RANGE);
    d = crowd_agent_def_default();
    d.velocity = (crowd_vec2){1e38f, 0.0f};
    cr_assert_eq(crowd_agent_add(w, &d, &id), CROWD_ERR_OUT_OF_RANGE);
    d = crowd_agent_def_default();
    d.position = (crowd_vec2){FLT_MAX, -FLT_MAX};
    cr_assert_eq(crowd_agent_add(w, &d, &id), CROWD_ERR_OUT_OF_RANGE);
    d = crowd_agent_def_default();
    d.goal.weight = FLT_MAX;
    cr_assert_eq(crowd_agent_add(w, &d, &id), CROWD_ERR_OUT_OF_RANGE);

    cr_assert_eq(crowd_agent_set_limits(w, a, FLT_MAX, 3.0f), CROWD_ERR_OUT_OF_RANGE);
    cr_assert_eq(crowd_agent_set_limits(w, a, 1e-6f, 3.0f), CROWD_ERR_OUT_OF_RANGE);
    cr_assert_eq(crowd_agent_set_limits(w, a, 1.5f, FLT_MAX), CROWD_ERR_OUT_OF_RANGE);
    cr_assert_eq(crowd_agent_set_limits(w, a, 0.0f, 3.0f), CROWD_ERR_BAD_SPEED);
    cr_assert_eq(crowd_agent_set_velocity(w, a, (crowd_vec2){1e38f, 0.0f}), CROWD_ERR_OUT_OF_RANGE);
    cr_assert_eq(crowd_agent_set_position(w, a, (crowd_vec2){0.0f, 3e38f}), CROWD_ERR_OUT_OF_RANGE);
    cr_assert_eq(crowd_agent_set_radius(w, a, 1e30f), CROWD_ERR_OUT_OF_RANGE);
    cr_assert_eq(crowd_agent_set_separation(w, a, 1e30f, 1.0f), CROWD_ERR_OUT_OF_RANGE);
    cr_assert_eq(crowd_agent_set_separation(w, a, 1.2f, FLT_MAX), CROWD_ERR_OUT_OF_RANGE);
    crowd_goal g = crowd_goal_default();
    g.mode = CROWD_GOAL_SEEK;
    g.weight = FLT_MAX;
    cr_assert_eq(crowd_agent_set_goal(w, a, &g), CROWD_ERR_OUT_OF_RANGE);
    g.weight = 1.0f;
    g.target = (crowd_vec2){-FLT_MAX, 0.0f};
    cr_assert_eq(crowd_agent_set_goal(w, a, &g), CROWD_ERR_OUT_OF_RANGE);
    cr_assert_eq(crowd_world_state_hash(w), h, "a refused call changed the world");

    // At the bounds everything is accepted and stays finite.
    cr_assert_eq(crowd_agent_set_limits(w, a, CROWD_MAX_SPEED, CROWD_MAX_FORCE), CROWD_OK);
    cr_assert_eq(crowd_agent_set_velocity(w, a, (crowd_vec2){CROWD_MAX_SPEED, -CROWD_MAX_SPEED}),
                 CROWD_OK);
    cr_assert_eq(crowd_agent_set_separation(w, a, CROWD_MAX_DISTANCE, CROWD_MAX_WEIGHT), CROWD_OK);
    g.target = (crowd_vec2){-CROWD_MAX_COORD, CROWD_MAX_COORD};
    g.weight = CROWD_MAX_WEIGHT;
    cr_assert_eq(crowd_agent_set_goal(w, a, &g), CROWD_OK);
    for (int t = 0; t < 50; ++t) {
        cr_assert_eq(crowd_world_step(w), CROWD_OK);
        cr_assert(all_finite(w), "tick %d", t);
    }
    crowd_world_destroy(w);
}

// An agent driven at the world bound stops there (the integration clamps), its velocity finite.
Test(hostile, positions_stop_at_the_world_bound) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = 1;
    wd.dt = CROWD_MAX_DT;
    crowd_world* w;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    crowd_agent_def d = crowd_agent_def_default();
    d.position = (crowd_vec2){CROWD_MAX_COORD - 1.0f, -CROWD_MAX_COORD};
    d.velocity = (crowd_vec2){CROWD_MAX_SPEED, -CROWD_MAX_SPEED};
    d.max_speed = CROWD_MAX_SPEED;
    crowd_agent_id id;
    cr_assert_eq(crowd_agent_add(w, &d, &id), CROWD_OK);
    for (int t = 0; t < 3; ++t) cr_assert_eq(crowd_world_step(w), CROWD_OK);
    crowd_vec2 p, v;
    cr_assert_eq(crowd_agent_get_position(w, id, &p), CROWD_OK);
    cr_assert_eq(crowd_agent_get_velocity(w, id, &v), CROWD_OK);
    cr_assert_eq(p.x, CROWD_MAX_COORD);
    cr_assert_eq(p.y, -CROWD_MAX_COORD);
    cr_assert(isfinite(v.x) && isfinite(v.y));
    // The pure integration has the same rule.
    crowd_vec2 pp = {CROWD_MAX_COORD, 0.0f}, vv = {CROWD_MAX_SPEED, 0.0f};
    crowd_steer_integrate(&pp, &vv, NULL, (crowd_vec2){0, 0}, CROWD_MAX_SPEED, 1.0f, 10.0f);
    cr_assert_eq(pp.x, CROWD_MAX_COORD);
    crowd_world_destroy(w);
}

Test(hostile, behavior_values_beyond_the_ranges_are_refused) {
    crowd_world* w = world_with(1);
    crowd_agent_id a = add_at(w, 0.0f, 0.0f), b = add_at(w, 3.0f, 0.0f);
    const uint64_t h = crowd_world_state_hash(w);

    crowd_queue_def q = crowd_queue_def_default();
    q.weight = FLT_MAX;
    cr_assert_eq(crowd_agent_set_queue(w, a, &q), CROWD_ERR_OUT_OF_RANGE);
    q = crowd_queue_def_default();
    q.on_arrival = CROWD_QUEUE_RESPAWN;
    q.start_min = (crowd_vec2){-FLT_MAX, -FLT_MAX};
    q.start_max = (crowd_vec2){FLT_MAX, FLT_MAX};
    cr_assert_eq(crowd_agent_set_queue(w, a, &q), CROWD_ERR_OUT_OF_RANGE);
    q = crowd_queue_def_default();
    q.cone_length = 1e30f;
    cr_assert_eq(crowd_agent_set_queue(w, a, &q), CROWD_ERR_OUT_OF_RANGE);

    crowd_follow_def f = crowd_follow_def_default();
    f.weight = FLT_MAX;
    cr_assert_eq(crowd_agent_follow(w, b, a, &f), CROWD_ERR_OUT_OF_RANGE);
    f = crowd_follow_def_default();
    f.behind_dist = 1e30f;
    f.predict = true;
    cr_assert_eq(crowd_agent_follow(w, b, a, &f), CROWD_ERR_OUT_OF_RANGE);
    crowd_formation_def fm = crowd_formation_def_default();
    fm.shape = CROWD_FORMATION_CIRCLE;
    fm.spacing = FLT_MAX;
    cr_assert_eq(crowd_leader_set_formation(w, a, &fm), CROWD_ERR_OUT_OF_RANGE);
    crowd_vec2 off[2] = {{-1.0f, 0.0f}, {1e30f, 0.0f}};
    fm = crowd_formation_def_default();
    fm.shape = CROWD_FORMATION_CUSTOM;
    fm.offsets = off;
    fm.offset_count = 2;
    cr_assert_eq(crowd_leader_set_formation(w, a, &fm), CROWD_ERR_OUT_OF_RANGE);

    crowd_vec2 pts[3] = {{0.0f, 0.0f}, {10.0f, 0.0f}, {3e38f, 0.0f}};
    crowd_path_id path;
    cr_assert_eq(crowd_path_create(w, pts, 3, &path), CROWD_ERR_OUT_OF_RANGE);
    pts[2] = (crowd_vec2){10.0f, 10.0f};
    cr_assert_eq(crowd_path_create(w, pts, 3, &path), CROWD_OK);
    const crowd_vec2 far_pts[2] = {{0.0f, 0.0f}, {0.0f, -2e6f}};
    cr_assert_eq(crowd_path_replace(w, path, far_pts, 2), CROWD_ERR_OUT_OF_RANGE);
    const uint64_t h_path = crowd_world_state_hash(w);
    cr_assert_eq(h_path, h, "a path alone is not agent state");
    crowd_path_follow_def pf = crowd_path_follow_def_default();
    pf.path = path;
    pf.weight = FLT_MAX;
    cr_assert_eq(crowd_agent_set_path(w, a, &pf), CROWD_ERR_OUT_OF_RANGE);
    pf.weight = 1.0f;
    pf.predict_ahead = 1e30f;
    cr_assert_eq(crowd_agent_set_path(w, a, &pf), CROWD_ERR_OUT_OF_RANGE);
    cr_assert_eq(crowd_world_state_hash(w), h, "a refused call changed the world");

    // The same calls at the bounds are accepted and the world stays finite.
    q = crowd_queue_def_default();
    q.on_arrival = CROWD_QUEUE_RESPAWN;
    q.weight = CROWD_MAX_WEIGHT;
    q.start_min = (crowd_vec2){-CROWD_MAX_COORD, -CROWD_MAX_COORD};
    q.start_max = (crowd_vec2){CROWD_MAX_COORD, CROWD_MAX_COORD};
    q.arrival_radius = CROWD_MAX_DISTANCE;
    cr_assert_eq(crowd_agent_set_queue(w, a, &q), CROWD_OK);
    f = crowd_follow_def_default();
    f.weight = CROWD_MAX_WEIGHT;
    f.behind_dist = CROWD_MAX_DISTANCE;
    f.predict = true;
    f.target = CROWD_FOLLOW_SLOT;
    cr_assert_eq(crowd_agent_follow(w, b, a, &f), CROWD_OK);
    fm = crowd_formation_def_default();
    fm.shape = CROWD_FORMATION_CIRCLE;
    fm.spacing = CROWD_MAX_DISTANCE;
    cr_assert_eq(crowd_leader_set_formation(w, a, &fm), CROWD_OK);
    crowd_agent_id c = add_at(w, -5.0f, 0.0f);
    pf.predict_ahead = CROWD_MAX_TIME;
    pf.weight = CROWD_MAX_WEIGHT;
    pf.kind = CROWD_PATH_TUBE;
    cr_assert_eq(crowd_agent_set_path(w, c, &pf), CROWD_OK);
    cr_assert_eq(crowd_agent_set_limits(w, c, CROWD_MAX_SPEED, CROWD_MAX_FORCE), CROWD_OK);
    for (int t = 0; t < 50; ++t) {
        cr_assert_eq(crowd_world_step(w), CROWD_OK);
        cr_assert(all_finite(w), "tick %d", t);
    }
    crowd_world_destroy(w);
}

// After 65,536 uses of one index its handles had cycled through every generation: the first
// handle validated again and named the newest agent. The index is retired instead.
Test(hostile, handles_never_alias_after_generation_wrap) {
    crowd_world* w = world_with(1);
    const crowd_agent_id first = add_at(w, 0.0f, 0.0f);
    cr_assert_eq(crowd_agent_remove(w, first), CROWD_OK);
    crowd_agent_id last = first;
    for (int k = 1; k < 70000; ++k) {
        last = add_at(w, (float)k, 0.0f);
        cr_assert_eq(crowd_agent_validate(w, first), CROWD_ERR_STALE_HANDLE, "use %d", k);
        cr_assert_eq(crowd_agent_remove(w, last), CROWD_OK);
    }
    cr_assert_eq(crowd_agent_validate(w, last), CROWD_ERR_STALE_HANDLE);
    // The retired index survives a snapshot: saved, loaded, still neither live nor reused.
    const crowd_agent_id live = add_at(w, 1.0f, 1.0f);
    const size_t size = crowd_world_save_size(w);
    void* buf = malloc(size);
    size_t written;
    cr_assert_eq(crowd_world_save(w, buf, size, &written), CROWD_OK);
    crowd_world* l;
    crowd_load_def ld = crowd_load_def_default();
    cr_assert_eq(crowd_world_load(buf, size, &ld, &l), CROWD_OK);
    cr_assert_eq(crowd_agent_validate(l, first), CROWD_ERR_STALE_HANDLE);
    cr_assert_eq(crowd_agent_validate(l, live), CROWD_OK);
    cr_assert_eq(crowd_world_state_hash(l), crowd_world_state_hash(w));
    free(buf);
    crowd_world_destroy(l);
    crowd_world_destroy(w);
}

Test(hostile, pure_functions_take_null_pointers) {
    crowd_path_cursor c = crowd_path_cursor_start(5, NULL);
    cr_assert_eq(c.state, CROWD_PATH_STATE_NONE);
    crowd_vec2 f =
        crowd_steer_separation((crowd_vec2){0, 0}, (crowd_vec2){1, 0}, 1.5f, NULL, 5, 1.2f, 1.0f);
    cr_assert(f.x == 0.0f && f.y == 0.0f);
    crowd_vec2 p = {0, 0}, v = {1, 0};
    crowd_steer_integrate(&p, &v, NULL, (crowd_vec2){1, 0}, 1.5f, 3.0f, 0.1f);
    cr_assert_float_eq(p.x, 0.11f, 1e-6f); // v = 1 + 1 * 0.1, x = v * 0.1
    crowd_steer_integrate(NULL, &v, NULL, (crowd_vec2){1, 0}, 1.5f, 3.0f, 0.1f);
    crowd_steer_integrate(&p, NULL, NULL, (crowd_vec2){1, 0}, 1.5f, 3.0f, 0.1f);
}

// A cursor FINISHED before the call never uses the segment: it gets the arrive force even when
// the segment passed is out of range (the header promised both that and a zero force).
Test(hostile, finished_tube_cursor_ignores_the_segment) {
    const crowd_vec2 pts[3] = {{0, 0}, {10, 0}, {10, 10}};
    crowd_path_follow_def d = crowd_path_follow_def_default();
    d.kind = CROWD_PATH_TUBE;
    d.mode = CROWD_PATH_ONE_SHOT;
    crowd_path_cursor c = crowd_path_cursor_start(3, &d);
    c.state = CROWD_PATH_STATE_FINISHED;
    c.index = 2;
    const crowd_vec2 pos = {9, 9}, vel = {0.5f, 0};
    // The default form's arrive at the end (CROWD_PATH_FLOW: crowd_steer_arrive_stop).
    const crowd_vec2 want = crowd_steer_arrive_stop(pos, vel, 1.5f, 3.0f, pts[2], d.slow_radius);
    const int segments[] = {-1, 0, 1, 2, 1000};
    for (size_t i = 0; i < sizeof segments / sizeof segments[0]; ++i) {
        crowd_path_cursor k = c;
        const crowd_vec2 got =
            crowd_path_tube_step(pts, 3, &d, &k, segments[i], pos, vel, 1.5f, 3.0f);
        cr_assert(got.x == want.x && got.y == want.y, "segment %d", segments[i]);
        cr_assert_eq(memcmp(&k, &c, sizeof k), 0, "the cursor changed");
    }
}

// Agents thousands of metres apart cost a few candidates each, wherever they are in the valid
// plane: 3,001 agents at 667 m spacing along the diagonal and scattered over the whole plane
// (8.4 s and 4.1 G candidates per step at 1e6 m spacing on a diagonal, on the development
// machine, before coordinates were bounded; such positions are now refused).
Test(hostile, sparse_worlds_cost_a_few_candidates_per_agent) {
    enum { N = 3001 };
    for (int layout = 0; layout < 2; ++layout) {
        crowd_world* w = world_with(1);
        const float step = 2.0f * CROWD_MAX_COORD / (float)(N - 1);
        for (int i = 0; i < N; ++i) {
            float x = -CROWD_MAX_COORD + (float)i * step, y = x;
            if (layout == 1) {
                x = -CROWD_MAX_COORD + (float)((i * 7919) % N) * step;
                y = -CROWD_MAX_COORD + (float)((i * 104729) % N) * step;
            }
            add_at(w, x, y);
        }
        crowd_agent_def beyond = crowd_agent_def_default();
        beyond.position = (crowd_vec2){2e6f, 0.0f};
        crowd_agent_id id;
        cr_assert_eq(crowd_agent_add(w, &beyond, &id), CROWD_ERR_OUT_OF_RANGE);
        for (int t = 0; t < 3; ++t) {
            cr_assert_eq(crowd_world_step(w), CROWD_OK);
            const crowd_profile p = crowd_world_get_profile(w);
            cr_assert_leq(p.candidates, 16u * N, "layout %d: %llu candidates", layout,
                          (unsigned long long)p.candidates);
        }
        crowd_world_destroy(w);
    }
}

// ---- property: random worlds from boundary values -------------------------------------------

// Values at and just inside each bound of [lo, hi], small ones and random ones; one draw in 16
// is just beyond a bound or wild, which a setter must refuse with the world unchanged.
static float pick(scene_rng* r, float lo, float hi) {
    const float bad[] = {nextafterf(hi, INFINITY),
                         lo > 0.0f ? nextafterf(lo, 0.0f) : nextafterf(lo, -INFINITY), FLT_MAX,
                         -FLT_MAX, NAN};
    const float good[] = {lo,
                          hi,
                          nextafterf(hi, 0.0f),
                          lo > 0.0f ? lo : 1e-30f,
                          scene_rng_float(r, lo, hi < 10.0f ? hi : 10.0f),
                          scene_rng_float(r, lo, hi < 10.0f ? hi : 10.0f),
                          scene_rng_float(r, lo, hi)};
    if (scene_rng_next(r) % 16 == 0) return bad[scene_rng_next(r) % (sizeof bad / sizeof bad[0])];
    return good[scene_rng_next(r) % (sizeof good / sizeof good[0])];
}

static crowd_vec2 pick_point(scene_rng* r, float bound) {
    if (scene_rng_next(r) % 2) // near the others, so that neighbors interact
        return (crowd_vec2){scene_rng_float(r, -5, 5), scene_rng_float(r, -5, 5)};
    return (crowd_vec2){pick(r, -bound, bound), pick(r, -bound, bound)};
}

static void random_behavior(crowd_world* w, scene_rng* r, crowd_agent_id id, crowd_agent_id other,
                            crowd_path_id path) {
    const uint64_t before = crowd_world_state_hash(w);
    crowd_status st = CROWD_OK;
    switch (scene_rng_next(r) % 9) {
    case 0: {
        crowd_queue_def q = crowd_queue_def_default();
        q.cone_length = pick(r, 0.0f, CROWD_MAX_DISTANCE);
        q.cone_width = pick(r, 0.0f, CROWD_MAX_DISTANCE);
        q.goal = pick_point(r, CROWD_MAX_COORD);
        q.weight = pick(r, 0.0f, CROWD_MAX_WEIGHT);
        q.arrival_radius = pick(r, 0.0f, CROWD_MAX_DISTANCE);
        q.on_arrival = (crowd_queue_policy)(scene_rng_next(r) % CROWD_QUEUE_POLICY_COUNT);
        q.start_min = pick_point(r, CROWD_MAX_COORD);
        q.start_max = (crowd_vec2){q.start_min.x + scene_rng_float(r, 0, 10),
                                   q.start_min.y + scene_rng_float(r, 0, 10)};
        st = crowd_agent_set_queue(w, id, &q);
        break;
    }
    case 1: {
        crowd_follow_def f = crowd_follow_def_default();
        f.behind_dist = pick(r, 0.0f, CROWD_MAX_DISTANCE);
        f.ahead_dist = pick(r, 0.0f, CROWD_MAX_DISTANCE);
        f.ahead_radius = pick(r, 0.0f, CROWD_MAX_DISTANCE);
        f.slow_radius = pick(r, 0.0f, CROWD_MAX_DISTANCE);
        f.evade_weight = pick(r, 0.0f, CROWD_MAX_WEIGHT);
        f.separation_weight = pick(r, 0.0f, CROWD_MAX_WEIGHT);
        f.weight = pick(r, 0.0f, CROWD_MAX_WEIGHT);
        f.predict = scene_rng_next(r) % 2;
        f.target = (crowd_follow_target)(scene_rng_next(r) % CROWD_FOLLOW_TARGET_COUNT);
        st = crowd_agent_follow(w, id, other, &f);
        break;
    }
    case 2: {
        crowd_formation_def fm = crowd_formation_def_default();
        fm.shape = (crowd_formation_shape)(scene_rng_next(r) % CROWD_FORMATION_CUSTOM);
        fm.spacing = pick(r, 0.0f, CROWD_MAX_DISTANCE);
        fm.distance = pick(r, 0.0f, CROWD_MAX_DISTANCE);
        st = crowd_leader_set_formation(w, id, &fm);
        break;
    }
    case 3: {
        crowd_path_follow_def pf = crowd_path_follow_def_default();
        pf.path = path;
        pf.kind = (crowd_path_kind)(scene_rng_next(r) % CROWD_PATH_KIND_COUNT);
        pf.mode = (crowd_path_mode)(scene_rng_next(r) % CROWD_PATH_MODE_COUNT);
        pf.arrive_radius = pick(r, 0.0f, CROWD_MAX_DISTANCE);
        pf.slow_radius = pick(r, 0.0f, CROWD_MAX_DISTANCE);
        pf.tube_radius = pick(r, 0.0f, CROWD_MAX_DISTANCE);
        pf.predict_ahead = pick(r, 0.0f, CROWD_MAX_TIME);
        pf.weight = pick(r, 0.0f, CROWD_MAX_WEIGHT);
        st = crowd_agent_set_path(w, id, &pf);
        break;
    }
    case 4:
        st = crowd_agent_set_limits(w, id, pick(r, CROWD_MIN_SPEED, CROWD_MAX_SPEED),
                                    pick(r, 0.0f, CROWD_MAX_FORCE));
        break;
    case 5:
        st = crowd_agent_set_velocity(w, id, pick_point(r, CROWD_MAX_SPEED));
        break;
    case 6:
        st = crowd_agent_set_position(w, id, pick_point(r, CROWD_MAX_COORD));
        break;
    case 7:
        st = crowd_agent_set_separation(w, id, pick(r, 0.0f, CROWD_MAX_DISTANCE),
                                        pick(r, 0.0f, CROWD_MAX_WEIGHT));
        break;
    default: {
        crowd_goal g = crowd_goal_default();
        g.mode = (crowd_goal_mode)(scene_rng_next(r) % CROWD_GOAL_MODE_COUNT);
        g.target = pick_point(r, CROWD_MAX_COORD);
        g.slow_radius = pick(r, 0.0f, CROWD_MAX_DISTANCE);
        g.weight = pick(r, 0.0f, CROWD_MAX_WEIGHT);
        st = crowd_agent_set_goal(w, id, &g);
        break;
    }
    }
    if (st != CROWD_OK && st != CROWD_ERR_FOLLOW_CYCLE)
        cr_assert_eq(crowd_world_state_hash(w), before, "refused with %s, world changed",
                     crowd_status_string(st));
}

static void random_world(uint64_t seed, int threads) {
    scene_rng r = {seed};
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = threads;
    wd.dt = pick(&r, 0.0f, CROWD_MAX_DT);
    wd.cell_size = pick(&r, CROWD_MIN_CELL_SIZE, CROWD_MAX_DISTANCE);
    wd.max_neighbors = seed % 3 == 0 ? 4 : 0; // the capped pass too
    crowd_world* w;
    if (crowd_world_create(&wd, &w) != CROWD_OK) {
        wd.dt = CROWD_MAX_DT;
        wd.cell_size = 2.5f;
        cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    }
    enum { N = 120 };
    crowd_agent_id ids[N];
    int n = 0;
    for (int tries = 0; n < N && tries < 4 * N; ++tries) {
        crowd_agent_def a = crowd_agent_def_default();
        a.position = pick_point(&r, CROWD_MAX_COORD);
        a.velocity = pick_point(&r, CROWD_MAX_SPEED);
        a.radius = pick(&r, 0.0f, CROWD_MAX_DISTANCE);
        a.max_speed = pick(&r, CROWD_MIN_SPEED, CROWD_MAX_SPEED);
        a.max_force = pick(&r, 0.0f, CROWD_MAX_FORCE);
        a.separation_radius = pick(&r, 0.0f, CROWD_MAX_DISTANCE);
        a.separation_weight = pick(&r, 0.0f, CROWD_MAX_WEIGHT);
        a.goal.mode = (crowd_goal_mode)(scene_rng_next(&r) % CROWD_GOAL_MODE_COUNT);
        a.goal.target = pick_point(&r, CROWD_MAX_COORD);
        a.goal.weight = pick(&r, 0.0f, CROWD_MAX_WEIGHT);
        if (crowd_agent_add(w, &a, &ids[n]) == CROWD_OK) ++n;
    }
    cr_assert_gt(n, 10);
    const crowd_vec2 pts[4] = {{-CROWD_MAX_COORD, -CROWD_MAX_COORD},
                               {CROWD_MAX_COORD, -CROWD_MAX_COORD},
                               {0.0f, 0.0f},
                               {CROWD_MAX_COORD, CROWD_MAX_COORD}};
    crowd_path_id path;
    cr_assert_eq(crowd_path_create(w, pts, 4, &path), CROWD_OK);
    for (int k = 0; k < n; ++k)
        random_behavior(w, &r, ids[k], ids[scene_rng_next(&r) % (uint64_t)n], path);
    for (int t = 0; t < 40; ++t) {
        cr_assert_eq(crowd_world_step(w), CROWD_OK);
        cr_assert(all_finite(w), "seed %llu tick %d: a position or velocity is not finite",
                  (unsigned long long)seed, t);
        for (int k = 0; k < 3; ++k) {
            const crowd_agent_id id = ids[scene_rng_next(&r) % (uint64_t)n];
            if (crowd_agent_validate(w, id) == CROWD_OK)
                random_behavior(w, &r, id, ids[scene_rng_next(&r) % (uint64_t)n], path);
        }
    }
    crowd_world_destroy(w);
}

Test(hostile, random_boundary_worlds_stay_finite, .timeout = 120) {
    for (uint64_t seed = 1; seed <= 24; ++seed) random_world(seed, 1 + (int)(seed % 2));
}
