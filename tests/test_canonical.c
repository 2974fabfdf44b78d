// One result per world, whatever the history of its storage and whatever else it holds far away:
//  - the sort phase leaves every cell's agents in agent-index order;
//  - a world whose slots were left in another order by an earlier sort steps bit-identically;
//  - a crowd steps bit-identically whether the world also holds agents out of its reach, near
//    enough to keep the dense layout but with another bounding box, or far enough to make the
//    layout sparse (where rows share keys), with and without a neighbor cap. This is what a world
//    split across processes needs: each process holds the agents near its own, and the neighbor
//    sums of an agent must not depend on which others are there;
//  - a respawn point does not depend on whether another agent respawns in the same tick.
#include <criterion/criterion.h>
#include <string.h>

#include "core/internal.h"
#include "scenes.h"

enum { CROWD_N = 3000, FAR_N = 400, TICKS = 60 };

static crowd_world* make_world(int capacity) {
    crowd_world_def d = crowd_world_def_default();
    d.capacity = capacity;
    d.threads = 2;
    crowd_world* w = NULL;
    cr_assert_eq(crowd_world_create(&d, &w), CROWD_OK);
    return w;
}

// The crowd: CROWD_N agents in a 70 m square, half crossing left to right and half bottom to top
// (goals), every fifth in a forward-cone queue, so separation, the cone and the goal pass all run.
// Same draws, same indices 0 .. CROWD_N - 1, in every world.
static crowd_goal crowd_goal_of(int i, crowd_vec2 p) {
    crowd_goal g = crowd_agent_def_default().goal;
    g.mode = CROWD_GOAL_ARRIVE;
    g.target = i % 2 ? (crowd_vec2){60.0f, p.y} : (crowd_vec2){p.x, 60.0f};
    return g;
}

static void set_queue(crowd_world* w, crowd_agent_id id, int i, crowd_vec2 p) {
    if (i % 5) return;
    crowd_queue_def q = crowd_queue_def_default();
    q.goal = crowd_goal_of(i, p).target;
    cr_assert_eq(crowd_agent_set_queue(w, id, &q), CROWD_OK);
}

static void add_crowd(crowd_world* w, crowd_agent_id* ids, bool queues) {
    scene_rng r = {7};
    for (int i = 0; i < CROWD_N; ++i) {
        crowd_agent_def a = crowd_agent_def_default();
        a.position =
            (crowd_vec2){scene_rng_float(&r, -35.0f, 35.0f), scene_rng_float(&r, -35.0f, 35.0f)};
        a.goal = crowd_goal_of(i, a.position);
        cr_assert_eq(crowd_agent_add(w, &a, &ids[i]), CROWD_OK);
        if (queues) set_queue(w, ids[i], i, a.position);
    }
}

// FAR_N standing agents around (cx, cy), 2 m apart: out of the crowd's reach for TICKS ticks.
static void add_far(crowd_world* w, float cx, float cy) {
    for (int i = 0; i < FAR_N; ++i) {
        crowd_agent_def a = crowd_agent_def_default();
        a.position = (crowd_vec2){cx + 2.0f * (float)(i % 20), cy + 2.0f * (float)(i / 20)};
        crowd_agent_id id;
        cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_OK);
    }
}

typedef struct kin {
    crowd_vec2 p, v;
} kin;

static void read_crowd(const crowd_world* w, const crowd_agent_id* ids, kin* out) {
    for (int i = 0; i < CROWD_N; ++i) {
        cr_assert_eq(crowd_agent_get_position(w, ids[i], &out[i].p), CROWD_OK);
        cr_assert_eq(crowd_agent_get_velocity(w, ids[i], &out[i].v), CROWD_OK);
    }
}

static void assert_same_crowd(const kin* a, const kin* b, const char* what) {
    for (int i = 0; i < CROWD_N; ++i)
        cr_assert(memcmp(&a[i], &b[i], sizeof a[i]) == 0,
                  "%s: agent %d at (%.9g, %.9g) v (%.9g, %.9g), alone (%.9g, %.9g) v (%.9g, %.9g)",
                  what, i, (double)b[i].p.x, (double)b[i].p.y, (double)b[i].v.x, (double)b[i].v.y,
                  (double)a[i].p.x, (double)a[i].p.y, (double)a[i].v.x, (double)a[i].v.y);
}

Test(canonical, cells_in_index_order) {
    crowd_world* w = make_world(CROWD_N);
    crowd_agent_id ids[CROWD_N];
    add_crowd(w, ids, true);
    int runs = 0;
    for (int t = 0; t < 20; ++t) {
        cr_assert_eq(crowd_world_step(w), CROWD_OK);
        for (uint32_t k = 0; k < w->grid.buckets; ++k)
            for (uint32_t s = w->cell_start[k] + 1; s < w->cell_start[k + 1]; ++s) {
                runs++;
                cr_assert_lt(w->cur.id[s - 1], w->cur.id[s], "tick %d: slots %u, %u of cell %u", t,
                             s - 1, s, k);
            }
    }
    cr_assert_gt(runs, 1000, "cells held one agent each: nothing was checked");
    crowd_world_destroy(w);
}

Test(canonical, slot_history_does_not_matter) {
    // b first steps once with every agent standing still at a shuffled position (no goal, no queue,
    // separation off: no force), which leaves its slots in that arrangement's cell order; then
    // every agent is put back and given its behaviors.
    crowd_world *a = make_world(CROWD_N), *b = make_world(CROWD_N);
    crowd_agent_id ia[CROWD_N], ib[CROWD_N];
    add_crowd(a, ia, true);
    add_crowd(b, ib, false);
    kin start[CROWD_N];
    read_crowd(b, ib, start);
    crowd_goal none = crowd_agent_def_default().goal;
    none.mode = CROWD_GOAL_NONE;
    for (int i = 0; i < CROWD_N; ++i) {
        const kin* other = &start[(i * 7919) % CROWD_N];
        cr_assert_eq(crowd_agent_set_position(b, ib[i], (crowd_vec2){other->p.y, other->p.x}),
                     CROWD_OK);
        cr_assert_eq(crowd_agent_set_separation(b, ib[i], 1.2f, 0.0f), CROWD_OK);
        cr_assert_eq(crowd_agent_set_goal(b, ib[i], &none), CROWD_OK);
    }
    cr_assert_eq(crowd_world_step(b), CROWD_OK);
    for (int i = 0; i < CROWD_N; ++i) {
        cr_assert_eq(crowd_agent_set_position(b, ib[i], start[i].p), CROWD_OK);
        cr_assert_eq(crowd_agent_set_separation(b, ib[i], 1.2f, 1.0f), CROWD_OK);
        const crowd_goal g = crowd_goal_of(i, start[i].p);
        cr_assert_eq(crowd_agent_set_goal(b, ib[i], &g), CROWD_OK);
        set_queue(b, ib[i], i, start[i].p);
    }
    for (int t = 0; t < TICKS; ++t) {
        cr_assert_eq(crowd_world_step(a), CROWD_OK);
        cr_assert_eq(crowd_world_step(b), CROWD_OK);
    }
    kin ka[CROWD_N], kb[CROWD_N];
    read_crowd(a, ia, ka);
    read_crowd(b, ib, kb);
    assert_same_crowd(ka, kb, "after another slot order");
    crowd_world_destroy(a);
    crowd_world_destroy(b);
}

// With `cap` (crowd_world_set_max_neighbors, 0 for none).
static void out_of_reach(int cap) {
    crowd_world* alone = make_world(CROWD_N);
    cr_assert_eq(crowd_world_set_max_neighbors(alone, cap), CROWD_OK);
    crowd_agent_id ids[CROWD_N];
    add_crowd(alone, ids, true);
    kin ref[CROWD_N], got[CROWD_N];
    for (int t = 0; t < TICKS; ++t) cr_assert_eq(crowd_world_step(alone), CROWD_OK);
    read_crowd(alone, ids, ref);
    cr_assert(alone->grid.dense);
    crowd_world_destroy(alone);

    // Below and to the left (another bounding box, still dense), then 900 km away
    // (sparse).
    const struct {
        float x, y;
        bool dense;
        const char* what;
    } far[] = {{-90.0f, -90.0f, true, "dense, wider box"}, {9e5f, 9e5f, false, "sparse"}};
    for (size_t k = 0; k < sizeof far / sizeof far[0]; ++k) {
        crowd_world* w = make_world(CROWD_N + FAR_N);
        cr_assert_eq(crowd_world_set_max_neighbors(w, cap), CROWD_OK);
        crowd_agent_id wid[CROWD_N];
        add_crowd(w, wid, true);
        add_far(w, far[k].x, far[k].y);
        for (int t = 0; t < TICKS; ++t) cr_assert_eq(crowd_world_step(w), CROWD_OK);
        cr_assert_eq(w->grid.dense, far[k].dense, "%s: layout", far[k].what);
        read_crowd(w, wid, got);
        assert_same_crowd(ref, got, far[k].what);
        crowd_world_destroy(w);
    }
}

Test(canonical, agents_out_of_reach_do_not_matter) {
    out_of_reach(0);
}

// The capped pass examines a budget of candidates: the same ones, cell by cell, in either layout
// (a query box's cells hold about 30 of the crowd's agents, against a budget of 16).
Test(canonical, agents_out_of_reach_do_not_matter_capped) {
    out_of_reach(4);
}

// Every agent put down in one cell at once, from all over: the cell's agents arrive in the order of
// their old cells, far from index order, and the sort phase heap-sorts the cell instead of
// inserting each one (which would cost the square of the cell's size).
Test(canonical, one_crowded_cell) {
    crowd_world* w = make_world(CROWD_N);
    crowd_agent_id ids[CROWD_N];
    add_crowd(w, ids, false);
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    scene_rng r = {11};
    for (int i = 0; i < CROWD_N; ++i) {
        const crowd_vec2 p = {scene_rng_float(&r, 0.1f, 2.4f), scene_rng_float(&r, 0.1f, 2.4f)};
        cr_assert_eq(crowd_agent_set_position(w, ids[i], p), CROWD_OK);
    }
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    int shared = 0;
    for (uint32_t k = 0; k < w->grid.buckets; ++k)
        for (uint32_t s = w->cell_start[k] + 1; s < w->cell_start[k + 1]; ++s) {
            shared++;
            cr_assert_lt(w->cur.id[s - 1], w->cur.id[s], "slots %u, %u of cell %u", s - 1, s, k);
        }
    cr_assert_gt(shared, CROWD_N / 2, "the agents did not share a cell");
    crowd_world_destroy(w);
}

// A respawn point is drawn from the seed, the agent's handle and the tick alone: whether another
// agent (here one with a lower index, which respawns first) respawns in the same tick changes
// nothing. Both worlds hold the same handles; in `b` the first agent does not queue.
Test(canonical, respawn_draws_keyed_by_handle) {
    crowd_world *a = make_world(16), *b = make_world(16);
    crowd_vec2 at[2];
    for (int k = 0; k < 2; ++k) {
        crowd_world* w = k ? b : a;
        crowd_agent_id first, second;
        crowd_agent_def d = crowd_agent_def_default();
        d.position = (crowd_vec2){10.0f, 0.0f};
        cr_assert_eq(crowd_agent_add(w, &d, &first), CROWD_OK);
        d.position = (crowd_vec2){-10.0f, 0.0f};
        cr_assert_eq(crowd_agent_add(w, &d, &second), CROWD_OK);
        crowd_queue_def q = crowd_queue_def_default();
        q.on_arrival = CROWD_QUEUE_RESPAWN;
        q.arrival_radius = 1.0f;
        q.start_min = (crowd_vec2){-50.0f, -50.0f};
        q.start_max = (crowd_vec2){50.0f, 50.0f};
        q.goal = (crowd_vec2){-10.0f, 0.0f};
        cr_assert_eq(crowd_agent_set_queue(w, second, &q), CROWD_OK);
        if (w == a) {
            q.goal = (crowd_vec2){10.0f, 0.0f};
            cr_assert_eq(crowd_agent_set_queue(w, first, &q), CROWD_OK);
        }
        cr_assert_eq(crowd_world_step(w), CROWD_OK);
        cr_assert_eq(crowd_world_arrival_count(w), w == a ? 2 : 1);
        cr_assert_eq(crowd_agent_get_position(w, second, &at[k]), CROWD_OK);
    }
    cr_assert(at[0].x != -10.0f || at[0].y != 0.0f, "the agent did not respawn");
    cr_assert(memcmp(&at[0], &at[1], sizeof at[0]) == 0,
              "respawned at (%.9g, %.9g) beside another respawn, (%.9g, %.9g) alone",
              (double)at[0].x, (double)at[0].y, (double)at[1].x, (double)at[1].y);
    crowd_world_destroy(a);
    crowd_world_destroy(b);
}
