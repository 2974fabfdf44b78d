// Hot columns gated on a flag (core/behavior.h, cs_hot_def.gate): the goal's aim is 0 for every
// agent without CS_FLAG_HEADWAY, whatever the calls, and the sort leaves the aim columns where
// they are while no agent has the flag. Leaving them changes no result: a crowd whose pedestrians
// all queue for a while (the columns idle) and then stop queueing steps bit-identically to the
// same crowd beside a far pedestrian that keeps the columns gathered throughout.
#include <criterion/criterion.h>
#include <math.h>

#include "behaviors/goal/goal_internal.h"
#include "crowd/crowd.h"

enum { N = 300 };

static crowd_world* make(int threads) {
    crowd_world_def d = crowd_world_def_default();
    d.threads = threads;
    crowd_world* w = NULL;
    cr_assert_eq(crowd_world_create(&d, &w), CROWD_OK);
    return w;
}

// N pedestrians on a jittered grid, each heading across the crowd, two streams that meet.
static void add_crowd(crowd_world* w, crowd_agent_id* ids) {
    for (int i = 0; i < N; ++i) {
        crowd_agent_def a = crowd_agent_def_default();
        const float x = (float)(i % 20) * 0.9f + (float)(i % 7) * 0.05f;
        const float y = (float)(i / 20) * 0.9f + (float)(i % 5) * 0.04f;
        a.position = (crowd_vec2){x, y};
        a.goal.mode = i % 3 ? CROWD_GOAL_SEEK : CROWD_GOAL_ARRIVE;
        a.goal.target = (crowd_vec2){i % 2 ? 40.0f : -25.0f, y + (i % 2 ? 3.0f : -3.0f)};
        cr_assert_eq(crowd_agent_add(w, &a, &ids[i]), CROWD_OK);
    }
}

static void queue_all(crowd_world* w, const crowd_agent_id* ids) {
    for (int i = 0; i < N; ++i) {
        crowd_queue_def q = crowd_queue_def_default();
        q.goal = (crowd_vec2){i % 2 ? 40.0f : -25.0f, 0.0f};
        q.on_arrival = CROWD_QUEUE_STOP;
        cr_assert_eq(crowd_agent_set_queue(w, ids[i], &q), CROWD_OK);
    }
}

static void clear_all(crowd_world* w, const crowd_agent_id* ids) {
    for (int i = 0; i < N; ++i) cr_assert_eq(crowd_agent_clear_queue(w, ids[i]), CROWD_OK);
}

// Every agent without CS_FLAG_HEADWAY has the aim (0, 0).
static void check_gate(const crowd_world* w) {
    const float* ax = cs_hot_f32(w, CS_HOT_GOAL_AIM_X);
    const float* ay = cs_hot_f32(w, CS_HOT_GOAL_AIM_Y);
    if (!ax) return;
    for (int s = 0; s < w->count; ++s) {
        if (w->cur.flags[s] & CS_FLAG_HEADWAY) continue;
        cr_assert(ax[s] == 0.0f && ay[s] == 0.0f, "slot %d: aim (%g, %g) without the headway", s,
                  (double)ax[s], (double)ay[s]);
    }
}

Test(hot_gate, aim_is_zero_without_the_headway) {
    crowd_world* w = make(2);
    static crowd_agent_id ids[N];
    add_crowd(w, ids);
    for (int t = 0; t < 5; ++t) cr_assert_eq(crowd_world_step(w), CROWD_OK);
    // Calls that end the headway of some agents, between steps, with removals that move slots.
    for (int round = 0; round < 12; ++round) {
        for (int i = round % 4; i < N; i += 4) {
            crowd_queue_def q = crowd_queue_def_default();
            q.goal = (crowd_vec2){0.0f, 30.0f};
            if (round % 3 == 0) cr_assert_eq(crowd_agent_set_queue(w, ids[i], &q), CROWD_OK);
            if (round % 3 == 1) crowd_agent_clear_queue(w, ids[i]); // NOT_QUEUEING is fine
            if (round % 3 == 2) {
                crowd_agent_def d;
                cr_assert_eq(crowd_agent_get_def(w, ids[i], &d), CROWD_OK);
                d.goal.mode = i % 8 == 0 ? CROWD_GOAL_FLEE : CROWD_GOAL_NONE;
                cr_assert_eq(crowd_agent_set_goal(w, ids[i], &d.goal), CROWD_OK);
            }
            check_gate(w);
        }
        cr_assert_eq(crowd_agent_remove(w, ids[(round * 37) % N]), CROWD_OK);
        ids[(round * 37) % N] = ids[(round * 37 + 1) % N]; // a live handle stands in
        check_gate(w);
        cr_assert_eq(crowd_world_step(w), CROWD_OK);
        check_gate(w);
    }
    crowd_world_destroy(w);
}

// The crowd's state (positions, velocities, headings, in handle order) after: 10 ticks walking,
// 30 queueing, 40 walking again; with or without a pedestrian 5 km away that never queues.
static void run(bool far, int threads, float* out) {
    crowd_world* w = make(threads);
    static crowd_agent_id ids[N];
    add_crowd(w, ids);
    if (far) {
        crowd_agent_def a = crowd_agent_def_default();
        a.position = (crowd_vec2){5000.0f, 5000.0f};
        a.goal.mode = CROWD_GOAL_SEEK;
        a.goal.target = (crowd_vec2){5100.0f, 5000.0f};
        crowd_agent_id far_id;
        cr_assert_eq(crowd_agent_add(w, &a, &far_id), CROWD_OK);
    }
    for (int t = 0; t < 10; ++t) cr_assert_eq(crowd_world_step(w), CROWD_OK);
    queue_all(w, ids);
    for (int t = 0; t < 30; ++t) cr_assert_eq(crowd_world_step(w), CROWD_OK);
    clear_all(w, ids);
    for (int t = 0; t < 40; ++t) cr_assert_eq(crowd_world_step(w), CROWD_OK);
    crowd_vec2 pos[N + 1], vel[N + 1];
    crowd_agent_id got[N + 1];
    int n = 0;
    cr_assert_eq(crowd_world_get_agents(w, got, pos, vel, N + 1, &n), CROWD_OK);
    cr_assert_eq(n, N + (far ? 1 : 0));
    for (int i = 0; i < N; ++i) { // the crowd's agents come first in handle order
        cr_assert_eq(got[i].index1, ids[i].index1);
        out[4 * i] = pos[i].x, out[4 * i + 1] = pos[i].y;
        out[4 * i + 2] = vel[i].x, out[4 * i + 3] = vel[i].y;
    }
    crowd_world_destroy(w);
}

Test(hot_gate, idle_aims_change_nothing) {
    static float alone[4 * N], beside[4 * N];
    for (int threads = 1; threads <= 2; ++threads) {
        run(false, threads, alone);
        run(true, threads, beside);
        for (int k = 0; k < 4 * N; ++k)
            cr_assert(alone[k] == beside[k], "threads %d, agent %d: %.9g against %.9g", threads,
                      k / 4, (double)alone[k], (double)beside[k]);
    }
    // The crowd moved: the queueing and the walking after it did something.
    float moved = 0.0f;
    for (int i = 0; i < N; ++i) moved += fabsf(alone[4 * i + 2]) + fabsf(alone[4 * i + 3]);
    cr_assert_gt(moved, (float)N * 0.3f);
}
