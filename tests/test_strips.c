// A world split into strips of cells, the way processes would split it, steps bit-identically to
// one world. Each tick every strip is rebuilt as a world of its own from the whole state: the
// agents whose cell lies in the strip (owned) and copies of those within GHOST_CELLS cells of its
// border (ghosts), added in increasing index of the whole world so that their indices keep the same
// order. Each strip world steps once; its owned agents' new state is the split's result for them
// (the ghosts' is dropped). The whole world, stepped on another thread count, must agree on every
// agent after every tick. The crowd has separation, goals and forward-cone queues; an extra cluster
// 900 km away makes the whole world's layout sparse while most strips are dense.
//
// This is the single-process engine's side of a split across processes (docs/distributed.md): an
// agent's step reads only the agents of the cells within its reach, in an order that does not
// depend on which other agents a world holds.
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "scenes.h"

enum { CROWD_N = 2000, FAR_N = 200, TOTAL = CROWD_N + FAR_N, STRIPS = 4 };

// Fewer ticks under the sanitizers (CROWD_TEST_SCALE=small).
static int ticks(void) {
    const char* s = getenv("CROWD_TEST_SCALE");
    return s && strcmp(s, "small") == 0 ? 15 : 40;
}

// The forward cone reaches 2.5 + 0.6 m past an agent (cell 2.5 m): two cells, plus one of slack.
#define GHOST_CELLS 3
#define CELL 2.5f

// Strip k holds cells cx in [edge[k], edge[k + 1]).
static const int32_t edge[STRIPS + 1] = {INT32_MIN, -6, 0, 5, INT32_MAX};

static int32_t cell_x(float x) {
    return cs_cell_coord(x, 1.0f / CELL);
}

static crowd_world* make_world(int capacity, int threads) {
    crowd_world_def d = crowd_world_def_default();
    d.capacity = capacity;
    d.cell_size = CELL;
    d.threads = threads;
    crowd_world* w = NULL;
    cr_assert_eq(crowd_world_create(&d, &w), CROWD_OK);
    return w;
}

// The whole state, by index of the whole world: the def, the queue and a pedestrian goal's aim
// (crowd/world.h, CROWD_GOAL_PEDESTRIAN: the direction it steered along in the last step, which
// the next step's headway looks along; a def does not carry it).
typedef struct agent {
    crowd_agent_def def;
    bool queue;
    crowd_queue_def q;
    crowd_vec2 aim;
} agent;

static crowd_vec2 aim_of(const crowd_world* w, crowd_agent_id id) {
    int s;
    cr_assert_eq(cs_agent_slot(w, id, &s), CROWD_OK);
    const float* ax = cs_hot_f32(w, CS_HOT_GOAL_AIM_X);
    return ax ? (crowd_vec2){ax[s], cs_hot_f32(w, CS_HOT_GOAL_AIM_Y)[s]} : (crowd_vec2){0, 0};
}

// Adds a copy of an agent. crowd_agent_add normalizes the heading it is given (an ulp may move);
// the copy takes the stored heading as it is, as a process receiving the agent's raw state would.
static void add(crowd_world* w, const agent* a, crowd_agent_id* id) {
    cr_assert_eq(crowd_agent_add(w, &a->def, id), CROWD_OK);
    if (a->queue) cr_assert_eq(crowd_agent_set_queue(w, *id, &a->q), CROWD_OK);
    int s;
    cr_assert_eq(cs_agent_slot(w, *id, &s), CROWD_OK);
    w->cur.hx[s] = a->def.heading.x;
    w->cur.hy[s] = a->def.heading.y;
    if (cs_hot_f32(w, CS_HOT_GOAL_AIM_X)) {
        cs_hot_f32(w, CS_HOT_GOAL_AIM_X)[s] = a->aim.x;
        cs_hot_f32(w, CS_HOT_GOAL_AIM_Y)[s] = a->aim.y;
    }
}

static void make_agents(agent* all) {
    scene_rng r = {23};
    for (int i = 0; i < TOTAL; ++i) {
        agent* a = &all[i];
        memset(a, 0, sizeof *a);
        a->def = crowd_agent_def_default();
        if (i >= CROWD_N) { // the far cluster, standing
            const int k = i - CROWD_N;
            a->def.position = (crowd_vec2){9e5f + 2.0f * (float)(k % 15), 2.0f * (float)(k / 15)};
            continue;
        }
        a->def.position =
            (crowd_vec2){scene_rng_float(&r, -25.0f, 25.0f), scene_rng_float(&r, -25.0f, 25.0f)};
        a->def.goal.mode = CROWD_GOAL_ARRIVE;
        // Half cross left to right and half right to left, through every strip border.
        a->def.goal.target = (crowd_vec2){i % 2 ? 200.0f : -200.0f, a->def.position.y};
        if (i % 4 == 0) {
            a->queue = true;
            a->q = crowd_queue_def_default();
            a->q.goal = a->def.goal.target;
        }
    }
}

// One tick of strip k from the whole state `all` into `next` (its owned agents only); returns how
// many agents it owns.
static int step_strip(int k, const agent* all, agent* next) {
    crowd_world* w = make_world(TOTAL, 1);
    static crowd_agent_id local[TOTAL];
    for (int i = 0; i < TOTAL; ++i) {
        const int64_t cx = cell_x(all[i].def.position.x);
        if (cx >= (int64_t)edge[k] - GHOST_CELLS && cx < (int64_t)edge[k + 1] + GHOST_CELLS)
            add(w, &all[i], &local[i]);
    }
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    int owned = 0;
    for (int i = 0; i < TOTAL; ++i) {
        const int32_t cx = cell_x(all[i].def.position.x);
        if (cx < edge[k] || cx >= edge[k + 1]) continue;
        next[i] = all[i];
        cr_assert_eq(crowd_agent_get_def(w, local[i], &next[i].def), CROWD_OK);
        next[i].aim = aim_of(w, local[i]);
        owned++;
    }
    crowd_world_destroy(w);
    return owned;
}

Test(strips, split_world_steps_like_one_world) {
    static agent all[TOTAL], next[TOTAL];
    make_agents(all);
    crowd_world* whole = make_world(TOTAL, 2);
    crowd_agent_id ids[TOTAL];
    for (int i = 0; i < TOTAL; ++i) {
        add(whole, &all[i], &ids[i]);
        all[i].aim = aim_of(whole, ids[i]); // as the goal set it
    }
    int crossings = 0;
    const int n_ticks = ticks();
    for (int t = 0; t < n_ticks; ++t) {
        int owned = 0;
        for (int k = 0; k < STRIPS; ++k) owned += step_strip(k, all, next);
        cr_assert_eq(owned, TOTAL, "tick %d: every agent is owned by one strip", t);
        cr_assert_eq(crowd_world_step(whole), CROWD_OK);
        if (t == 0) cr_assert(!whole->grid.dense, "the whole world's layout is sparse");
        for (int i = 0; i < TOTAL; ++i) {
            crowd_agent_def d;
            cr_assert_eq(crowd_agent_get_def(whole, ids[i], &d), CROWD_OK);
            const crowd_agent_def* s = &next[i].def;
            cr_assert(memcmp(&d.position, &s->position, sizeof d.position) == 0 &&
                          memcmp(&d.velocity, &s->velocity, sizeof d.velocity) == 0 &&
                          memcmp(&d.heading, &s->heading, sizeof d.heading) == 0,
                      "tick %d, agent %d: split (%.9g, %.9g) v (%.9g, %.9g), whole (%.9g, %.9g) "
                      "v (%.9g, %.9g)",
                      t, i, (double)s->position.x, (double)s->position.y, (double)s->velocity.x,
                      (double)s->velocity.y, (double)d.position.x, (double)d.position.y,
                      (double)d.velocity.x, (double)d.velocity.y);
            for (int k = 1; k < STRIPS; ++k)
                crossings +=
                    (cell_x(all[i].def.position.x) < edge[k]) != (cell_x(d.position.x) < edge[k]);
        }
        memcpy(all, next, sizeof all);
    }
    cr_assert_gt(crossings, 5, "agents crossed strip borders only %d times", crossings);
    crowd_world_destroy(whole);
}
