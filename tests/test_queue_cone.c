// The forward cone: the pure brake against the spec's queueBrake written out here, and the
// engine's cone search over the spatial hash against a brute-force search over every agent.
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "behaviors/queue/queue_internal.h"
#include "scenes.h"

// The spec's pseudocode, step by step. `others` excludes the agent itself.
static float spec_closest(crowd_vec2 pos, crowd_vec2 vel, const crowd_vec2* others, int n,
                          float cone_length, float cone_width) {
    const float len = sqrtf(vel.x * vel.x + vel.y * vel.y);
    if (len < 1e-3f) return INFINITY;
    const crowd_vec2 heading = {vel.x / len, vel.y / len};
    float closest = INFINITY;
    for (int i = 0; i < n; ++i) {
        const crowd_vec2 offset = {others[i].x - pos.x, others[i].y - pos.y};
        const float along = offset.x * heading.x + offset.y * heading.y;
        if (along < 0.0f || along > cone_length) continue;
        const crowd_vec2 d = {offset.x - heading.x * along, offset.y - heading.y * along};
        const float perp = sqrtf(d.x * d.x + d.y * d.y);
        if (perp > cone_width) continue;
        if (along < closest) closest = along;
    }
    return closest;
}

static float spec_brake(crowd_vec2 pos, crowd_vec2 vel, const crowd_vec2* others, int n,
                        float cone_length, float cone_width) {
    const float closest = spec_closest(pos, vel, others, n, cone_length, cone_width);
    if (closest == INFINITY) return 1.0f;
    const float b = closest / cone_length;
    return fminf(fmaxf(b, 0.0f), 1.0f);
}

Test(queue_cone, brake_equals_the_formula) {
    scene_rng rng = {42};
    enum { MAXN = 40 };
    int braked = 0, free_ = 0, stopped = 0;
    for (int trial = 0; trial < 20000; ++trial) {
        const int n = 1 + (int)(scene_rng_next(&rng) % MAXN);
        crowd_vec2 all[MAXN + 1], others[MAXN];
        const int self = (int)(scene_rng_next(&rng) % (uint64_t)(n + 1));
        for (int i = 0; i <= n; ++i)
            all[i] = (crowd_vec2){scene_rng_float(&rng, -4.0f, 4.0f),
                                  scene_rng_float(&rng, -4.0f, 4.0f)};
        // Some others exactly on the agent, on its heading line and on the cone's far edge.
        const crowd_vec2 pos = all[self];
        crowd_vec2 vel = {scene_rng_float(&rng, -2.0f, 2.0f), scene_rng_float(&rng, -2.0f, 2.0f)};
        const int kind = trial % 10;
        if (kind == 0) vel = (crowd_vec2){0.0f, 0.0f};
        if (kind == 1) vel = (crowd_vec2){scene_rng_float(&rng, -7e-4f, 7e-4f), 0.0f};
        const float cl = scene_rng_float(&rng, 0.1f, 6.0f);
        const float cw = kind == 2 ? 0.0f : scene_rng_float(&rng, 0.0f, 2.0f);
        const float speed = sqrtf(vel.x * vel.x + vel.y * vel.y);
        if (kind == 3 && speed > 0.0f && self != 0)
            all[0] = (crowd_vec2){pos.x + vel.x / speed * cl, pos.y + vel.y / speed * cl};
        if (kind == 4 && self != 1) all[1] = pos;
        int m = 0;
        for (int i = 0; i <= n; ++i)
            if (i != self) others[m++] = all[i];

        const float want = spec_brake(pos, vel, others, m, cl, cw);
        const float got = crowd_queue_brake(pos, vel, all, n + 1, self, cl, cw);
        cr_assert_eq(got, want, "trial %d: brake %.9g, formula %.9g", trial, (double)got,
                     (double)want);
        // Passing the others without self (self = -1) is the same thing.
        cr_assert_eq(crowd_queue_brake(pos, vel, others, m, -1, cl, cw), want);
        const float along = crowd_queue_closest_along(pos, vel, all, n + 1, self, cl, cw);
        cr_assert_eq(along, spec_closest(pos, vel, others, m, cl, cw));
        braked += want < 1.0f;
        free_ += want == 1.0f;
        stopped += want == 0.0f;
    }
    // The configurations cover braking, free agents and full stops.
    cr_assert_gt(braked, 2000);
    cr_assert_gt(free_, 2000);
    cr_assert_gt(stopped, 100);
}

// One random world: `n` agents in `clusters` clusters `spread` metres apart; every third agent
// does not queue; cones from short to several cells long.
static crowd_world* cone_world(int n, int clusters, float spread, int threads, uint64_t seed) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = threads;
    wd.capacity = n;
    crowd_world* w;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    scene_rng rng = {seed};
    for (int i = 0; i < n; ++i) {
        crowd_agent_def a = crowd_agent_def_default();
        const float cx = spread * (float)(i % clusters);
        a.position = (crowd_vec2){cx + scene_rng_float(&rng, -15.0f, 15.0f),
                                  scene_rng_float(&rng, -15.0f, 15.0f)};
        a.velocity =
            (crowd_vec2){scene_rng_float(&rng, -1.5f, 1.5f), scene_rng_float(&rng, -1.5f, 1.5f)};
        if (i % 17 == 0) a.velocity = (crowd_vec2){0.0f, 0.0f};
        if (i % 23 == 0) a.separation_weight = 0.0f; // a cone-only query box
        crowd_agent_id id;
        cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_OK);
        if (i % 3 == 2) continue;
        crowd_queue_def q = crowd_queue_def_default();
        q.form = CROWD_QUEUE_LITERAL;                      // the spec's cone
        q.cone_length = scene_rng_float(&rng, 0.2f, 8.0f); // up to three cells
        q.cone_width = scene_rng_float(&rng, 0.0f, 2.5f);
        q.goal = (crowd_vec2){cx, 0.0f};
        cr_assert_eq(crowd_agent_set_queue(w, id, &q), CROWD_OK);
    }
    return w;
}

// After the sort and the neighbor pass, each queueing slot's closest-along must equal a search
// over all agents (min is exact, so equality is exact). Only queueing agents have a cone, kept in
// their queue records.
static int check_cone_pass(crowd_world* w) {
    cs_pass_sort(w);
    cs_pass_neighbor(w);
    const int n = w->count;
    const cs_columns* c = &w->cur;
    int hits = 0;
    for (int s = 0; s < n; ++s) {
        const uint32_t idx = c->id[s];
        float want = INFINITY;
        if (!(c->flags[s] & CS_FLAG_QUEUE)) continue;
        const crowd_queue_def q = cs_queue_def_at(w, s);
        {
            const crowd_vec2 pos = {c->px[s], c->py[s]}, vel = {c->vx[s], c->vy[s]};
            const float len = sqrtf(vel.x * vel.x + vel.y * vel.y);
            if (len >= 1e-3f) {
                const float hx = vel.x / len, hy = vel.y / len;
                for (int o = 0; o < n; ++o) {
                    if (o == s) continue;
                    const float ox = c->px[o] - pos.x, oy = c->py[o] - pos.y;
                    const float along = ox * hx + oy * hy;
                    if (along < 0.0f || along > q.cone_length) continue;
                    const float dx = ox - hx * along, dy = oy - hy * along;
                    if (sqrtf(dx * dx + dy * dy) > q.cone_width) continue;
                    if (along < want) want = along;
                }
            }
        }
        // The neighbor pass's output: the distance over the cone's length.
        const float got = cs_nb_out(w, CS_NB_CONE, 0)[s], over = want / q.cone_length;
        cr_assert_eq(got, over, "slot %d (agent %u): engine %.9g, brute force %.9g", s, idx,
                     (double)got, (double)over);
        hits += want < INFINITY;
    }
    return hits;
}

static void engine_matches_brute_force(int n, int clusters, float spread, bool dense) {
    const int threads[] = {1, 3};
    for (int ti = 0; ti < 2; ++ti) {
        crowd_world* w = cone_world(n, clusters, spread, threads[ti], 7);
        int hits = 0;
        for (int round = 0; round < 4; ++round) {
            hits += check_cone_pass(w);
            cr_assert_eq(w->grid.dense, dense, "the grid layout under test");
            for (int t = 0; t < 5; ++t) crowd_world_step(w); // move them, then look again
        }
        cr_assert_gt(hits, n / 2, "cones that are not empty: %d", hits);
        crowd_world_destroy(w);
    }
}

Test(queue_cone, engine_matches_brute_force_dense) {
    engine_matches_brute_force(1500, 1, 0, true);
}

Test(queue_cone, engine_matches_brute_force_sparse) {
    engine_matches_brute_force(1500, 5, 20000.0f, false);
}

// The neighbor pass compares squared perpendicular distances against cs_queue_width2(width)
// instead of taking a square root per candidate: that must decide exactly as the spec's
// sqrtf(perp2) <= width, in particular for the squares next to the threshold.
Test(queue_cone, squared_width_decides_as_the_square_root) {
    scene_rng rng = {11};
    for (int i = 0; i < 20000; ++i) {
        float width;
        switch (i) {
        case 0:
            width = 0.0f;
            break;
        case 1:
            width = 0.6f;
            break;
        case 2:
            width = 1e-30f;
            break;
        case 3:
            width = 1e30f;
            break;
        default:
            width = scene_rng_float(&rng, 0.0f, 4.0f);
            break;
        }
        const float t = cs_queue_width2(width);
        float p2 = t;
        for (int k = 0; k < 64; ++k) p2 = nextafterf(p2, 0.0f);
        for (int k = 0; k < 128; ++k, p2 = nextafterf(p2, INFINITY))
            cr_assert_eq(p2 <= t, sqrtf(p2) <= width, "width %.9g: perp2 %.9g, threshold %.9g",
                         (double)width, (double)p2, (double)t);
    }
}
