// The engine's passes against the definitions in crowd/steer.h.
//
// After the sort, neighbor and goal passes, every agent's summed force must equal
// crowd_steer_separation over the brute-force neighbor list (every other agent) plus its weighted
// goal primitive; the engine sums neighbors in CS_LANES lanes, so this is compared with a
// tolerance. One crowd_world_step must then equal crowd_steer_integrate applied to those forces
// bit for bit: the integration pass uses the same expressions in the same order.
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "behaviors/goal/goal_internal.h"
#include "scenes.h"

typedef enum placement {
    PLACE_UNIFORM,   // a square around the origin
    PLACE_CROWDED,   // many agents per cell: rows longer than CS_LANES
    PLACE_FAR_APART, // clusters 1e5 m apart: the sparse layout
    PLACE_SAME_SPOT, // duplicates at identical points
    PLACE_LATTICE,   // quarter-metre lattice and radii: neighbors exactly at d = R and 0.01
} placement;

typedef struct world_case {
    const char* name;
    placement place;
    int agents;
    float cell_size;
    float sep_min, sep_max; // separation radius range
    float extent;           // half side of the square (or of each cluster)
    int dense;              // the grid layout the case must get: 1 dense, 0 sparse
} world_case;

static const world_case cases[] = {
    {"uniform", PLACE_UNIFORM, 700, 2.5f, 0.5f, 4.0f, 20.0f, 1},
    {"small cells", PLACE_UNIFORM, 600, 0.7f, 0.5f, 3.0f, 15.0f, 0}, // 43^2 cells > 1024 buckets
    {"crowded", PLACE_CROWDED, 500, 2.5f, 0.8f, 2.5f, 4.0f, 1},
    {"far apart", PLACE_FAR_APART, 600, 2.5f, 0.5f, 3.0f, 8.0f, 0},
    {"same spot", PLACE_SAME_SPOT, 400, 1.0f, 0.5f, 2.0f, 6.0f, 1},
    {"lattice", PLACE_LATTICE, 500, 1.0f, 0.25f, 2.0f, 4.0f, 1},
};

static float rnd(scene_rng* r, float lo, float hi) {
    return scene_rng_float(r, lo, hi);
}
static int rndi(scene_rng* r, int n) {
    return (int)(scene_rng_next(r) % (uint64_t)n);
}

static crowd_vec2 place(const world_case* c, scene_rng* r, const crowd_vec2* spots) {
    const float e = c->extent;
    switch (c->place) {
    case PLACE_UNIFORM:
    case PLACE_CROWDED:
        return (crowd_vec2){rnd(r, -e, e), rnd(r, -e, e)};
    case PLACE_FAR_APART: {
        static const float cx[3] = {0.0f, 1e5f, -1e5f}, cy[3] = {0.0f, 1e5f, 2e5f};
        const int k = rndi(r, 3);
        return (crowd_vec2){cx[k] + rnd(r, -e, e), cy[k] + rnd(r, -e, e)};
    }
    case PLACE_SAME_SPOT:
        return spots[rndi(r, 32)];
    case PLACE_LATTICE: {
        const int cells = (int)(e * 4.0f) * 2 + 1;
        const float y = (float)(rndi(r, cells) - cells / 2) * 0.25f;
        // A quarter of the agents stand at x = -0.01, 0 or 0.01: pairs exactly 0.01 apart.
        if (rndi(r, 4) == 0) return (crowd_vec2){(float)(rndi(r, 3) - 1) * 0.01f, y};
        return (crowd_vec2){(float)(rndi(r, cells) - cells / 2) * 0.25f, y};
    }
    }
    return (crowd_vec2){0, 0};
}

static crowd_world* make_world(const world_case* c, uint64_t seed, crowd_agent_id* ids) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = 1;
    wd.cell_size = c->cell_size;
    wd.capacity = 64; // grows while agents are added
    crowd_world* w;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    scene_rng r = {seed};
    crowd_vec2 spots[32];
    for (int i = 0; i < 32; ++i)
        spots[i] = (crowd_vec2){rnd(&r, -c->extent, c->extent), rnd(&r, -c->extent, c->extent)};
    for (int i = 0; i < c->agents; ++i) {
        crowd_agent_def a = crowd_agent_def_default();
        a.position = place(c, &r, spots);
        a.velocity = (crowd_vec2){rnd(&r, -2, 2), rnd(&r, -2, 2)};
        const float ang = rnd(&r, 0.0f, 6.2831853f);
        a.heading = (crowd_vec2){cosf(ang), sinf(ang)};
        a.max_speed = rnd(&r, 0.5f, 2.5f);
        a.max_force = rnd(&r, 0.5f, 6.0f);
        a.separation_radius = rnd(&r, c->sep_min, c->sep_max);
        if (c->place == PLACE_LATTICE) // a lattice distance: exact ties with d
            a.separation_radius = (float)(1 + rndi(&r, (int)(c->sep_max * 4.0f))) * 0.25f;
        a.separation_weight = rndi(&r, 7) == 0 ? 0.0f : rnd(&r, 0.2f, 2.0f);
        a.goal.mode = (crowd_goal_mode)rndi(&r, CROWD_GOAL_MODE_COUNT);
        a.goal.target =
            (crowd_vec2){a.position.x + rnd(&r, -30, 30), a.position.y + rnd(&r, -30, 30)};
        a.goal.slow_radius = rnd(&r, 0.5f, 20.0f);
        a.goal.weight = rndi(&r, 8) == 0 ? 0.0f : rnd(&r, 0.1f, 2.0f);
        a.user_data = (uint64_t)i;
        cr_assert_eq(crowd_agent_add(w, &a, &ids[i]), CROWD_OK);
    }
    return w;
}

static crowd_vec2 goal_force(const crowd_agent_def* a) {
    const crowd_goal* g = &a->goal;
    switch (g->mode) {
    case CROWD_GOAL_SEEK:
        return crowd_steer_seek(a->position, a->velocity, a->max_speed, g->target);
    case CROWD_GOAL_ARRIVE:
        return crowd_steer_arrive_stop(a->position, a->velocity, a->max_speed, a->max_force,
                                       g->target, g->slow_radius);
    case CROWD_GOAL_ARRIVE_LITERAL:
        return crowd_steer_arrive(a->position, a->velocity, a->max_speed, g->target,
                                  g->slow_radius);
    case CROWD_GOAL_FLEE:
        return crowd_steer_flee(a->position, a->velocity, a->max_speed, g->target);
    case CROWD_GOAL_NONE:
    case CROWD_GOAL_MODE_COUNT:
        break;
    }
    return (crowd_vec2){0, 0};
}

// The size of the terms summed into an agent's separation force: the tolerance scales with it.
static double separation_scale(const crowd_agent_def* a, const crowd_vec2* all, int n,
                               int* neighbors, long* ties) {
    double s = 0.0;
    const double v = hypot(a->velocity.x, a->velocity.y);
    for (int j = 0; j < n; ++j) {
        const float ox = a->position.x - all[j].x, oy = a->position.y - all[j].y;
        const float d = sqrtf(ox * ox + oy * oy);
        *ties += d == a->separation_radius || d == 0.01f;
        if (!(d > 0.01f && d < a->separation_radius)) continue;
        s += (a->max_speed * (1.0 - d / a->separation_radius) + v) * a->separation_weight;
        ++*neighbors;
    }
    return s;
}

static uint32_t bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static void check_case(const world_case* c, uint64_t seed, int rounds) {
    crowd_agent_id* ids = calloc((size_t)c->agents, sizeof *ids);
    crowd_agent_def* defs = calloc((size_t)c->agents, sizeof *defs);
    crowd_vec2* all = calloc((size_t)c->agents, sizeof *all);
    crowd_vec2* force = calloc((size_t)c->agents, sizeof *force);
    cr_assert(ids && defs && all && force);
    crowd_world* w = make_world(c, seed, ids);
    const int n = c->agents;
    long neighbors = 0, with_goal = 0, ties = 0;

    for (int round = 0; round < rounds; ++round) {
        // The state the passes will see, by handle.
        for (int i = 0; i < n; ++i) {
            cr_assert_eq(crowd_agent_get_def(w, ids[i], &defs[i]), CROWD_OK);
            all[i] = defs[i].position;
        }

        cs_pass_sort(w);
        cr_assert_eq(w->grid.dense, c->dense == 1, "%s: unexpected grid layout", c->name);
        cs_pass_neighbor(w);
        cs_pass_goal(w);

        cr_assert_eq(w->count, n);
        for (int s = 0; s < n; ++s) {
            const uint32_t idx = w->cur.id[s];
            cr_assert_lt(idx, (uint32_t)n);
            cr_assert_eq(ids[idx].index1, idx + 1, "agents were added in index order");
            const crowd_agent_def* a = &defs[idx];
            cr_assert(bits(w->cur.px[s]) == bits(a->position.x) &&
                          bits(w->cur.py[s]) == bits(a->position.y),
                      "slot %d does not hold agent %u", s, idx);

            const crowd_vec2 sep =
                crowd_steer_separation(a->position, a->velocity, a->max_speed, all, n,
                                       a->separation_radius, a->separation_weight);
            const crowd_vec2 goal = goal_force(a);
            const float gw = a->goal.weight;
            const double want_x = (double)sep.x + (double)goal.x * gw;
            const double want_y = (double)sep.y + (double)goal.y * gw;
            int k = 0;
            double scale = separation_scale(a, all, n, &k, &ties);
            neighbors += k;
            if (a->goal.mode != CROWD_GOAL_NONE) {
                scale += (a->max_speed + hypot(a->velocity.x, a->velocity.y)) * gw;
                with_goal++;
            }
            const double tol = 1e-5 * scale + 1e-5;
            const float fx = w->force_x[s], fy = w->force_y[s];
            cr_assert(fabs(fx - want_x) <= tol && fabs(fy - want_y) <= tol,
                      "%s seed %llu round %d, agent %u (%d neighbors, goal %d): engine force "
                      "(%.9g, %.9g), definition (%.9g, %.9g), tolerance %.3g",
                      c->name, (unsigned long long)seed, round, idx, k, (int)a->goal.mode,
                      (double)fx, (double)fy, want_x, want_y, tol);
            force[idx] = (crowd_vec2){fx, fy};
        }

        // One step re-sorts (already in cell order: the identity), recomputes the same forces and
        // integrates them; the result must be crowd_steer_integrate's, bit for bit.
        cr_assert_eq(crowd_world_step(w), CROWD_OK);
        const float dt = crowd_world_get_dt(w);
        for (int i = 0; i < n; ++i) {
            const crowd_agent_def* a = &defs[i];
            crowd_vec2 p = a->position, v = a->velocity, h = a->heading;
            crowd_steer_integrate(&p, &v, &h, force[i], a->max_speed, a->max_force, dt);
            crowd_vec2 gp, gv, gh;
            cr_assert_eq(crowd_agent_get_position(w, ids[i], &gp), CROWD_OK);
            cr_assert_eq(crowd_agent_get_velocity(w, ids[i], &gv), CROWD_OK);
            cr_assert_eq(crowd_agent_get_heading(w, ids[i], &gh), CROWD_OK);
            cr_assert(bits(gp.x) == bits(p.x) && bits(gp.y) == bits(p.y) &&
                          bits(gv.x) == bits(v.x) && bits(gv.y) == bits(v.y) &&
                          bits(gh.x) == bits(h.x) && bits(gh.y) == bits(h.y),
                      "%s seed %llu round %d, agent %d: step gave p (%.9g, %.9g) v (%.9g, %.9g) "
                      "h (%.9g, %.9g); crowd_steer_integrate p (%.9g, %.9g) v (%.9g, %.9g) "
                      "h (%.9g, %.9g)",
                      c->name, (unsigned long long)seed, round, i, (double)gp.x, (double)gp.y,
                      (double)gv.x, (double)gv.y, (double)gh.x, (double)gh.y, (double)p.x,
                      (double)p.y, (double)v.x, (double)v.y, (double)h.x, (double)h.y);
        }
    }
    cr_assert_gt(neighbors, (long)n * rounds, "%s: too few neighbors to test anything", c->name);
    cr_assert_gt(with_goal, (long)n * rounds / 2);
    if (c->place == PLACE_LATTICE)
        cr_assert_gt(ties, 100, "only %ld neighbors at d = R or 0.01", ties);
    crowd_world_destroy(w);
    free(ids);
    free(defs);
    free(all);
    free(force);
}

static void check_all_seeds(int which) {
    const char* s = getenv("CROWD_TEST_SCALE");
    const int seeds = s && strcmp(s, "small") == 0 ? 2 : 5;
    for (int seed = 1; seed <= seeds; ++seed) check_case(&cases[which], (uint64_t)seed, 4);
}

Test(engine_forces, uniform) {
    check_all_seeds(0);
}
Test(engine_forces, cells_smaller_than_radius) {
    check_all_seeds(1);
}
Test(engine_forces, crowded) {
    check_all_seeds(2);
}
Test(engine_forces, far_apart_sparse) {
    check_all_seeds(3);
}
Test(engine_forces, duplicate_positions) {
    check_all_seeds(4);
}
Test(engine_forces, lattice_ties_at_radius) {
    check_all_seeds(5);
}

// The neighbor pass overwrites (does not accumulate into) the force of the previous tick, and the
// goal pass adds to it: running the passes twice gives the same forces.
Test(engine_forces, passes_are_repeatable) {
    crowd_agent_id ids[700];
    crowd_world* w = make_world(&cases[0], 9, ids);
    cs_pass_sort(w);
    cs_pass_neighbor(w);
    cs_pass_goal(w);
    const int n = w->count;
    float* fx = malloc(sizeof(float) * (size_t)n);
    float* fy = malloc(sizeof(float) * (size_t)n);
    cr_assert(fx && fy);
    memcpy(fx, w->force_x, sizeof(float) * (size_t)n);
    memcpy(fy, w->force_y, sizeof(float) * (size_t)n);
    cs_pass_sort(w);
    cs_pass_neighbor(w);
    cs_pass_goal(w);
    cr_assert_eq(memcmp(fx, w->force_x, sizeof(float) * (size_t)n), 0);
    cr_assert_eq(memcmp(fy, w->force_y, sizeof(float) * (size_t)n), 0);
    free(fx);
    free(fy);
    crowd_world_destroy(w);
}
