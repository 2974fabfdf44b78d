// Valid but extreme input: the largest separation radius over agents spread across the plane, and
// agents at the edges of the valid ranges (crowd/base.h). The fuzzer found both through the
// snapshot loader; the same values are reachable through the public API, which is what these
// tests use. Under the
// sanitizer build any undefined float-to-integer conversion in the grid fails them.
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>

#include "crowd/crowd.h"
#include "scenes.h"

// Agents scattered over a square of side `spread` (sparse spatial hash once spread is large),
// agent 0 at the origin with the given separation radius.
static crowd_world* scatter(int n, float spread, float radius0, crowd_vec2* pos, crowd_vec2* vel,
                            crowd_agent_id* ids) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = 1;
    wd.capacity = n;
    crowd_world* w;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    scene_rng rng = {99};
    for (int i = 0; i < n; ++i) {
        crowd_agent_def a = crowd_agent_def_default();
        a.position = i == 0 ? (crowd_vec2){0.0f, 0.0f}
                            : (crowd_vec2){scene_rng_float(&rng, -spread, spread),
                                           scene_rng_float(&rng, -spread, spread)};
        a.velocity = (crowd_vec2){scene_rng_float(&rng, -1, 1), scene_rng_float(&rng, -1, 1)};
        if (i == 0) a.separation_radius = radius0;
        pos[i] = a.position;
        vel[i] = a.velocity;
        cr_assert_eq(crowd_agent_add(w, &a, &ids[i]), CROWD_OK);
    }
    return w;
}

// A radius that covers everything: agent 0's separation sums every other agent, and agrees with
// the spec's formula summed directly (to rounding: the engine adds in a different order).
Test(extremes, radius_covering_a_sparse_world, .timeout = 20) {
    enum { N = 600 };
    static crowd_vec2 pos[N], vel[N];
    static crowd_agent_id ids[N];
    // 4 km square, 2.5 m cells: far more cells than buckets, so the hash is sparse; the radius
    // covers the square's diagonal.
    crowd_world* w = scatter(N, 4000.0f, CROWD_MAX_DISTANCE, pos, vel, ids);
    cr_assert_eq(crowd_world_step(w), CROWD_OK);

    const crowd_agent_def d = crowd_agent_def_default();
    crowd_vec2 f =
        crowd_steer_separation(pos[0], vel[0], d.max_speed, pos, N, CROWD_MAX_DISTANCE, 1.0f);
    crowd_vec2 p = pos[0], v = vel[0], h = {1.0f, 0.0f};
    crowd_steer_integrate(&p, &v, &h, f, d.max_speed, d.max_force, 0.1f);
    crowd_vec2 got;
    cr_assert_eq(crowd_agent_get_velocity(w, ids[0], &got), CROWD_OK);
    cr_assert_float_eq(got.x, v.x, 1e-4f, "%g vs %g", (double)got.x, (double)v.x);
    cr_assert_float_eq(got.y, v.y, 1e-4f, "%g vs %g", (double)got.y, (double)v.y);
    // The force is large: the limit to max_force applies, so the velocity changed by max_force dt.
    const float dvx = got.x - vel[0].x, dvy = got.y - vel[0].y;
    cr_assert_float_eq(sqrtf(dvx * dvx + dvy * dvy), d.max_force * 0.1f, 1e-4f);
    crowd_world_destroy(w);
}

// The same in a dense world: everyone within a radius spanning all cells.
Test(extremes, radius_covering_a_dense_world) {
    enum { N = 200 };
    static crowd_vec2 pos[N], vel[N];
    static crowd_agent_id ids[N];
    crowd_world* w = scatter(N, 10.0f, CROWD_MAX_DISTANCE, pos, vel, ids);
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    const crowd_agent_def d = crowd_agent_def_default();
    crowd_vec2 f =
        crowd_steer_separation(pos[0], vel[0], d.max_speed, pos, N, CROWD_MAX_DISTANCE, 1.0f);
    crowd_vec2 p = pos[0], v = vel[0], h = {1.0f, 0.0f};
    crowd_steer_integrate(&p, &v, &h, f, d.max_speed, d.max_force, 0.1f);
    crowd_vec2 got;
    cr_assert_eq(crowd_agent_get_velocity(w, ids[0], &got), CROWD_OK);
    cr_assert_float_eq(got.x, v.x, 1e-4f);
    cr_assert_float_eq(got.y, v.y, 1e-4f);
    crowd_world_destroy(w);
}

// Agents at the edges of the valid ranges stay finite and within the world bound; agents elsewhere
// must not notice, and nothing may be undefined on the way.
Test(extremes, agents_at_the_bounds_leave_the_others_alone) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = 1;
    crowd_world* w;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    crowd_agent_def a = crowd_agent_def_default();
    a.max_speed = CROWD_MAX_SPEED;
    a.max_force = CROWD_MAX_FORCE;
    a.separation_radius = CROWD_MAX_DISTANCE;
    a.goal.mode = CROWD_GOAL_SEEK;
    a.goal.target = (crowd_vec2){-CROWD_MAX_COORD, CROWD_MAX_COORD};
    crowd_agent_id wild[3];
    const float c = CROWD_MAX_COORD, v = CROWD_MAX_SPEED;
    const float edge[3][4] = {{c, c, v, v}, {-c, 0.0f, -v, 0.0f}, {0.0f, -c, 0.0f, -v}};
    for (int i = 0; i < 3; ++i) {
        a.position = (crowd_vec2){edge[i][0], edge[i][1]};
        a.velocity = (crowd_vec2){edge[i][2], edge[i][3]};
        cr_assert_eq(crowd_agent_add(w, &a, &wild[i]), CROWD_OK);
    }
    crowd_agent_def calm = crowd_agent_def_default();
    crowd_agent_id tame[2];
    calm.position = (crowd_vec2){0.0f, 0.0f};
    cr_assert_eq(crowd_agent_add(w, &calm, &tame[0]), CROWD_OK);
    calm.position = (crowd_vec2){0.5f, 0.0f};
    cr_assert_eq(crowd_agent_add(w, &calm, &tame[1]), CROWD_OK);
    for (int t = 0; t < 20; ++t) cr_assert_eq(crowd_world_step(w), CROWD_OK);
    crowd_vec2 p0, p1;
    cr_assert_eq(crowd_agent_get_position(w, tame[0], &p0), CROWD_OK);
    cr_assert_eq(crowd_agent_get_position(w, tame[1], &p1), CROWD_OK);
    cr_assert(isfinite(p0.x) && isfinite(p0.y) && isfinite(p1.x) && isfinite(p1.y));
    for (int i = 0; i < 3; ++i) {
        crowd_vec2 p, q;
        cr_assert_eq(crowd_agent_get_position(w, wild[i], &p), CROWD_OK);
        cr_assert_eq(crowd_agent_get_velocity(w, wild[i], &q), CROWD_OK);
        cr_assert(fabsf(p.x) <= c && fabsf(p.y) <= c && isfinite(q.x) && isfinite(q.y));
    }
    cr_assert_lt(p0.x, 0.0f, "the two tame agents still push apart");
    cr_assert_gt(p1.x, 0.5f);
    crowd_world_destroy(w);
}
