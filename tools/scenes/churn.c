// The churn of the determinism checks (churn.h).
#include "churn.h"

#include <math.h>
#include <stdlib.h>

// A mutation a walled world may refuse and leave unchanged, or one on a handle picked twice.
static crowd_status skipped_ok(crowd_status st) {
    return st == CROWD_ERR_INSIDE_OBSTACLE || st == CROWD_ERR_STALE_HANDLE ? CROWD_OK : st;
}

static crowd_status churn_walls(const scene_calls* c, scene_rng* rng, float half) {
    const crowd_world* w = c->world(c->ctx);
    const int n = crowd_world_obstacle_count(w);
    if (n == 0) return CROWD_OK;
    crowd_obstacle_id* all = malloc(sizeof *all * (size_t)n);
    if (!all) return CROWD_ERR_OUT_OF_MEMORY;
    int count = 0;
    crowd_status st = crowd_world_get_obstacles(w, all, n, &count);
    for (int k = 0; st == CROWD_OK && k < 2 && k < count; ++k)
        st = c->obstacle_remove(c->ctx, all[k]);
    free(all);
    for (int k = 0; st == CROWD_OK && k < 2; ++k) {
        const crowd_vec2 a = {scene_rng_float(rng, -half, half), scene_rng_float(rng, -half, half)};
        const float ang = scene_rng_float(rng, 0.0f, 6.2831853f);
        const crowd_vec2 pts[2] = {a, {a.x + 3.0f * crowd_cosf(ang), a.y + 3.0f * crowd_sinf(ang)}};
        crowd_obstacle_id id;
        st = skipped_ok(c->obstacle_add(c->ctx, CROWD_OBSTACLE_WALL, pts, 2, &id));
    }
    return st;
}

crowd_status scene_churn(const scene_calls* c, scene_rng* rng, float half) {
    enum { PICKS = 64 };
    const int n = c->agent_count(c->ctx);
    crowd_agent_id* all = malloc(sizeof *all * (size_t)(n > 0 ? n : 1));
    if (!all) return CROWD_ERR_OUT_OF_MEMORY;
    int count = 0;
    crowd_status st = c->get_agents(c->ctx, all, n, &count);
    crowd_agent_id ids[PICKS];
    int picked = 0;
    for (int k = 0; st == CROWD_OK && k < PICKS && count > 0; ++k)
        ids[picked++] = all[scene_rng_next(rng) % (uint64_t)count];
    free(all);
    for (int k = 0; st == CROWD_OK && k < picked; ++k) {
        if (k % 3 == 0) {
            st = skipped_ok(c->agent_remove(c->ctx, ids[k]));
        } else if (k % 3 == 1) {
            const crowd_vec2 p = {scene_rng_float(rng, -half, half),
                                  scene_rng_float(rng, -half, half)};
            st = skipped_ok(c->agent_set_position(c->ctx, ids[k], p));
        } else {
            crowd_agent_def a = crowd_agent_def_default();
            a.position =
                (crowd_vec2){scene_rng_float(rng, -half, half), scene_rng_float(rng, -half, half)};
            a.goal.mode = CROWD_GOAL_ARRIVE;
            a.goal.target = (crowd_vec2){0.0f, 0.0f};
            crowd_agent_id id;
            st = skipped_ok(c->agent_add(c->ctx, &a, &id));
        }
    }
    return st == CROWD_OK ? churn_walls(c, rng, half) : st;
}

// The calls on a world in one process.

static const crowd_world* w_world(void* ctx) {
    return ctx;
}
static int w_agent_count(void* ctx) {
    return crowd_world_agent_count(ctx);
}

static int cmp_handle(const void* a, const void* b) {
    const uint32_t x = ((const crowd_agent_id*)a)->index1, y = ((const crowd_agent_id*)b)->index1;
    return (x > y) - (x < y);
}

static crowd_status w_get_agents(void* ctx, crowd_agent_id* ids, int capacity, int* count) {
    const crowd_status st = crowd_world_get_agents(ctx, ids, NULL, NULL, capacity, count);
    if (st == CROWD_OK) qsort(ids, (size_t)*count, sizeof *ids, cmp_handle);
    return st;
}

static crowd_status w_agent_add(void* ctx, const crowd_agent_def* def, crowd_agent_id* out) {
    return crowd_agent_add(ctx, def, out);
}
static crowd_status w_agent_remove(void* ctx, crowd_agent_id id) {
    return crowd_agent_remove(ctx, id);
}
static crowd_status w_agent_set_position(void* ctx, crowd_agent_id id, crowd_vec2 p) {
    return crowd_agent_set_position(ctx, id, p);
}
static crowd_status w_obstacle_add(void* ctx, crowd_obstacle_kind kind, const crowd_vec2* points,
                                   int count, crowd_obstacle_id* out) {
    return crowd_obstacle_add(ctx, kind, points, count, out);
}
static crowd_status w_obstacle_remove(void* ctx, crowd_obstacle_id id) {
    return crowd_obstacle_remove(ctx, id);
}

scene_calls scene_calls_world(crowd_world* w) {
    return (scene_calls){w,
                         w_world,
                         w_agent_count,
                         w_get_agents,
                         w_agent_add,
                         w_agent_remove,
                         w_agent_set_position,
                         w_obstacle_add,
                         w_obstacle_remove};
}
