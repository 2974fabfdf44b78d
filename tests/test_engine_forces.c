// The engine's passes against the definitions in crowd/steer.h.
//
// After the sort, neighbor and goal passes, every agent's summed force must equal
// crowd_steer_separation over the brute-force neighbor list (every other agent) plus its weighted
// goal primitive; the engine sums neighbors in CS_LANES lanes, so this is compared with a
// tolerance. Agents walking a CROWD_GOAL_PEDESTRIAN goal (SEEK or ARRIVE) are held to its
// definition in crowd/world.h instead: crowd_steer_separation_push, and the goal primitive at the
// headway speed of the closest agent ahead found by brute force (a SEEK's closing its gap in
// CROWD_GOAL_RESPONSE_TIME). One crowd_world_step must then equal crowd_steer_integrate applied to
// those forces bit for bit: the integration pass uses the same expressions in the same order.
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "behaviors/goal/goal_internal.h"
#include "scenes.h"
#include "steer/steer_math.h"

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
        // Half of the targets far east, so that pedestrian goals walk one way and find each
        // other ahead (crowd/world.h: the one ahead aims the agent's way).
        const bool east = rndi(&r, 2) == 0;
        a.goal.target = (crowd_vec2){a.position.x + (east ? rnd(&r, 25, 30) : rnd(&r, -30, 30)),
                                     a.position.y + (east ? rnd(&r, -3, 3) : rnd(&r, -30, 30))};
        a.goal.slow_radius = rnd(&r, 0.5f, 20.0f);
        a.goal.weight = rndi(&r, 8) == 0 ? 0.0f : rnd(&r, 0.1f, 2.0f);
        a.goal.form = (crowd_goal_form)rndi(&r, CROWD_GOAL_FORM_COUNT);
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

// Pedestrian goals slowed by someone ahead, so far (the test must see some).
static long headway_braked;

// Whether agent a walks the pedestrian model (crowd/world.h).
static bool pedestrian(const crowd_agent_def* a) {
    return a->goal.form == CROWD_GOAL_PEDESTRIAN &&
           (a->goal.mode == CROWD_GOAL_SEEK || a->goal.mode == CROWD_GOAL_ARRIVE);
}

// CROWD_GOAL_PEDESTRIAN's goal force by its definition (crowd/world.h). The agent's aim (the unit
// direction it steered along in the last step, the goal's state) and every other agent's are in
// aims[], by index. s is the distance along the aim to the closest other agent at most
// CROWD_GOAL_HEADWAY_WIDTH off its line, within CROWD_GOAL_HEADWAY_REACH ahead, whose own aim has
// a dot product above CROWD_GOAL_HEADWAY_ALIGN with the agent's and which is ahead along the sum
// of the two aims (found among all agents; +inf without an aim); the goal primitive heads at
// crowd_steer_headway_speed(s) for the target turned by the fluctuation.
static crowd_vec2 pedestrian_force(const crowd_agent_def* a, int self, const crowd_agent_def* all,
                                   const crowd_vec2* aims, int n) {
    const crowd_goal* g = &a->goal;
    const crowd_vec2 m = aims[self];
    const float ml = sqrtf(m.x * m.x + m.y * m.y);
    float s = INFINITY;
    if (ml >= 0.5f) {
        const crowd_vec2 h = {m.x / ml, m.y / ml};
        for (int j = 0; j < n; ++j) {
            if (j == self) continue;
            const float ox = all[j].position.x - a->position.x;
            const float oy = all[j].position.y - a->position.y;
            const float along = ox * h.x + oy * h.y;
            const float qx = ox - h.x * along, qy = oy - h.y * along;
            const bool in = along >= 0.0f && along <= CROWD_GOAL_HEADWAY_REACH &&
                            sqrtf(qx * qx + qy * qy) <= CROWD_GOAL_HEADWAY_WIDTH &&
                            h.x * aims[j].x + h.y * aims[j].y > CROWD_GOAL_HEADWAY_ALIGN &&
                            along + (aims[j].x * ox + aims[j].y * oy) > 0.0f;
            if (in && along < s) s = along;
        }
    }
    const float speed =
        crowd_steer_headway_speed(s, a->max_speed, CROWD_GOAL_HEADWAY_GAP, CROWD_GOAL_HEADWAY_TIME);
    headway_braked += speed < a->max_speed;
    // The fluctuation: the speed the agent wants (an ARRIVE none within its slow radius, at most
    // what it can brake from), the draw of its position, the target turned about it.
    const crowd_vec2 to = {g->target.x - a->position.x, g->target.y - a->position.y};
    const float dist = sqrtf(to.x * to.x + to.y * to.y);
    const float brakes = sqrtf(dist * a->max_force);
    const float want = g->mode == CROWD_GOAL_SEEK ? speed
                       : dist < g->slow_radius    ? 0.0f
                       : speed < brakes           ? speed
                                                  : brakes;
    const float t = cs_steer_fluct_tangent(a->velocity, want, cs_steer_fluct_draw(a->position),
                                           CROWD_GOAL_FLUCTUATION);
    const crowd_vec2 turned = cs_steer_turn(to, t);
    const crowd_vec2 target = {a->position.x + turned.x, a->position.y + turned.y};
    if (g->mode == CROWD_GOAL_ARRIVE)
        return crowd_steer_arrive_stop(a->position, a->velocity, speed, a->max_force, target,
                                       g->slow_radius);
    const crowd_vec2 f = crowd_steer_seek(a->position, a->velocity, speed, target);
    return (crowd_vec2){f.x / CROWD_GOAL_RESPONSE_TIME, f.y / CROWD_GOAL_RESPONSE_TIME};
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

// Puts the aims of agents 0 .. n - 1 (by index) back into the goal's aim columns.
static void put_aims(crowd_world* w, const crowd_vec2* aims, int n) {
    for (int i = 0; i < n; ++i) {
        const int slot = w->slot_of[i];
        cs_hot_f32(w, CS_HOT_GOAL_AIM_X)[slot] = aims[i].x;
        cs_hot_f32(w, CS_HOT_GOAL_AIM_Y)[slot] = aims[i].y;
    }
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
    crowd_vec2* aims = calloc((size_t)c->agents, sizeof *aims);
    crowd_vec2* force = calloc((size_t)c->agents, sizeof *force);
    cr_assert(ids && defs && all && aims && force);
    crowd_world* w = make_world(c, seed, ids);
    const int n = c->agents;
    long neighbors = 0, with_goal = 0, ties = 0, peds = 0;
    headway_braked = 0;

    for (int round = 0; round < rounds; ++round) {
        // The state the passes will see, by handle.
        for (int i = 0; i < n; ++i) {
            cr_assert_eq(crowd_agent_get_def(w, ids[i], &defs[i]), CROWD_OK);
            all[i] = defs[i].position;
            const int slot = w->slot_of[i];
            aims[i] = (crowd_vec2){cs_hot_f32(w, CS_HOT_GOAL_AIM_X)[slot],
                                   cs_hot_f32(w, CS_HOT_GOAL_AIM_Y)[slot]};
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

            const bool ped = pedestrian(a);
            const crowd_vec2 sep =
                ped ? crowd_steer_separation_push(a->position, a->max_speed, all, n,
                                                  a->separation_radius, a->separation_weight)
                    : crowd_steer_separation(a->position, a->velocity, a->max_speed, all, n,
                                             a->separation_radius, a->separation_weight);
            const crowd_vec2 goal =
                ped ? pedestrian_force(a, (int)idx, defs, aims, n) : goal_force(a);
            peds += ped;
            const float gw = a->goal.weight;
            const double want_x = (double)sep.x + (double)goal.x * gw;
            const double want_y = (double)sep.y + (double)goal.y * gw;
            int k = 0;
            double scale = separation_scale(a, all, n, &k, &ties);
            neighbors += k;
            if (a->goal.mode != CROWD_GOAL_NONE) {
                scale += (a->max_speed + hypot(a->velocity.x, a->velocity.y)) * gw /
                         (ped ? CROWD_GOAL_RESPONSE_TIME : 1.0f);
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

        // The goal pass recorded each pedestrian's aim for the next step: the step below must
        // see the aims the passes above saw.
        put_aims(w, aims, n);
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
    cr_assert_gt(peds, (long)n * rounds / 8, "%s: too few pedestrian goals", c->name);
    cr_assert_gt(headway_braked, 10, "%s: only %ld pedestrian goals slowed by someone ahead",
                 c->name, headway_braked);
    if (c->place == PLACE_LATTICE)
        cr_assert_gt(ties, 100, "only %ld neighbors at d = R or 0.01", ties);
    crowd_world_destroy(w);
    free(ids);
    free(defs);
    free(all);
    free(aims);
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
// goal pass adds to it: running the passes twice from the same state (the pedestrian goals' aims,
// which the goal pass records for the next step, put back) gives the same forces.
Test(engine_forces, passes_are_repeatable) {
    crowd_agent_id ids[700];
    crowd_world* w = make_world(&cases[0], 9, ids);
    crowd_vec2 aims[700];
    for (int i = 0; i < 700; ++i) {
        const int slot = w->slot_of[i];
        aims[i] = (crowd_vec2){cs_hot_f32(w, CS_HOT_GOAL_AIM_X)[slot],
                               cs_hot_f32(w, CS_HOT_GOAL_AIM_Y)[slot]};
    }
    cs_pass_sort(w);
    cs_pass_neighbor(w);
    cs_pass_goal(w);
    const int n = w->count;
    float* fx = malloc(sizeof(float) * (size_t)n);
    float* fy = malloc(sizeof(float) * (size_t)n);
    cr_assert(fx && fy);
    memcpy(fx, w->force_x, sizeof(float) * (size_t)n);
    memcpy(fy, w->force_y, sizeof(float) * (size_t)n);
    put_aims(w, aims, 700);
    cs_pass_sort(w);
    cs_pass_neighbor(w);
    cs_pass_goal(w);
    cr_assert_eq(memcmp(fx, w->force_x, sizeof(float) * (size_t)n), 0);
    cr_assert_eq(memcmp(fy, w->force_y, sizeof(float) * (size_t)n), 0);
    free(fx);
    free(fy);
    crowd_world_destroy(w);
}
