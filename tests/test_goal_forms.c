// The goal's forms (crowd/world.h, crowd_goal_form): the spec's form steps exactly as every goal
// did before the forms, and the default pedestrian form keeps a time gap behind the one ahead.
#include <criterion/criterion.h>
#include <math.h>

#include "crowd/crowd.h"
#include "scenes.h"

// A built-in scene (as `crowd hash --scene NAME --agents 3000 --ticks 100 --threads T` makes it)
// with every goal turned to the spec's form, stepped 100 ticks.
static uint64_t literal_hash(scene_kind kind, int threads) {
    scene_def def = scene_def_default();
    def.kind = kind;
    def.agents = 3000;
    def.threads = threads;
    crowd_world* w = NULL;
    cr_assert_eq(scene_create(&def, &w), CROWD_OK);
    static crowd_agent_id ids[4096];
    int n = 0;
    cr_assert_eq(crowd_world_get_agents(w, ids, NULL, NULL, 4096, &n), CROWD_OK);
    int goals = 0;
    for (int i = 0; i < n; ++i) {
        crowd_agent_def d;
        cr_assert_eq(crowd_agent_get_def(w, ids[i], &d), CROWD_OK);
        if (d.goal.mode == CROWD_GOAL_NONE) continue;
        d.goal.form = CROWD_GOAL_FORM_LITERAL;
        cr_assert_eq(crowd_agent_set_goal(w, ids[i], &d.goal), CROWD_OK);
        goals++;
    }
    cr_assert_gt(goals, 100);
    for (int t = 0; t < 100; ++t) cr_assert_eq(crowd_world_step(w), CROWD_OK);
    const uint64_t h = crowd_world_state_hash(w);
    crowd_world_destroy(w);
    return h;
}

// The hashes `crowd hash` printed for these scenes at the commit before the forms (63a7e42, whose
// scene builders take sine and cosine from crowd/trig.h).
Test(goal_forms, literal_form_steps_as_before_the_forms) {
    for (int threads = 1; threads <= 2; ++threads) {
        cr_assert_eq(literal_hash(SCENE_CROSSING, threads), 0x8d5b1e9deecf2749ull);
        cr_assert_eq(literal_hash(SCENE_MIXED, threads), 0xd7a2286b2fcb29bcull);
    }
}

// A file of pedestrians behind a slower one in a corridor too narrow to overtake it (in the open
// they pass it): they take its speed and keep a gap of about the headway's (0.2 m + 0.6 s x
// 0.6 m/s = 0.56 m; measured 0.547 m, the push of the ones behind closing it a little). That is
// denser than people walk in single file (Seyfried et al. 2005: about 1 m at 0.6 m/s): the
// constants fit Weidmann's two-dimensional diagram.
static void file_behind_slow(crowd_goal_form form, float* speed_err, float* closest) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = 1;
    crowd_world* w = NULL;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    const crowd_vec2 north[2] = {{-20, 0.5f}, {600, 0.5f}}, south[2] = {{-20, -0.5f}, {600, -0.5f}};
    crowd_obstacle_id o;
    cr_assert_eq(crowd_obstacle_add(w, CROWD_OBSTACLE_WALL, north, 2, &o), CROWD_OK);
    cr_assert_eq(crowd_obstacle_add(w, CROWD_OBSTACLE_WALL, south, 2, &o), CROWD_OK);
    enum { N = 7 };
    crowd_agent_id ids[N];
    for (int i = 0; i < N; ++i) {
        crowd_agent_def a = crowd_agent_def_default();
        a.position = (crowd_vec2){-1.5f * (float)i, 0.0f};
        a.max_speed = i == 0 ? 0.6f : 1.34f;
        a.goal.mode = CROWD_GOAL_SEEK;
        a.goal.target = (crowd_vec2){1000.0f, 0.0f};
        a.goal.route = CROWD_ROUTE_STRAIGHT;
        a.goal.form = form;
        cr_assert_eq(crowd_agent_add(w, &a, &ids[i]), CROWD_OK);
    }
    for (int t = 0; t < 600; ++t) cr_assert_eq(crowd_world_step(w), CROWD_OK);
    *speed_err = 0.0f;
    *closest = INFINITY;
    crowd_vec2 prev = {0, 0};
    for (int i = 0; i < N; ++i) {
        crowd_vec2 p, v;
        cr_assert_eq(crowd_agent_get_position(w, ids[i], &p), CROWD_OK);
        cr_assert_eq(crowd_agent_get_velocity(w, ids[i], &v), CROWD_OK);
        *speed_err = fmaxf(*speed_err, fabsf(v.x - 0.6f));
        if (i) *closest = fminf(*closest, prev.x - p.x);
        prev = p;
    }
    crowd_world_destroy(w);
}

Test(goal_forms, pedestrians_keep_a_time_gap) {
    float err, gap;
    file_behind_slow(CROWD_GOAL_PEDESTRIAN, &err, &gap);
    cr_assert_lt(err, 0.02f, "a pedestrian's speed is %.3f m/s off the leader's", (double)err);
    cr_assert_geq(gap, 0.5f, "pedestrians %.3f m apart", (double)gap);
    cr_assert_lt(gap, 1.2f, "pedestrians %.3f m apart", (double)gap);
}

Test(goal_forms, form_is_checked_and_read_back) {
    crowd_world* w = NULL;
    crowd_world_def wd = crowd_world_def_default();
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    crowd_agent_def a = crowd_agent_def_default();
    cr_assert_eq(a.goal.form, CROWD_GOAL_PEDESTRIAN);
    a.goal.mode = CROWD_GOAL_SEEK;
    a.goal.form = CROWD_GOAL_FORM_COUNT;
    crowd_agent_id id;
    cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_ERR_INVALID_ENUM);
    a.goal.form = CROWD_GOAL_FORM_LITERAL;
    cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_OK);
    crowd_agent_def back;
    cr_assert_eq(crowd_agent_get_def(w, id, &back), CROWD_OK);
    cr_assert_eq(back.goal.form, CROWD_GOAL_FORM_LITERAL);
    crowd_goal g = back.goal;
    g.form = (crowd_goal_form)-1;
    cr_assert_eq(crowd_agent_set_goal(w, id, &g), CROWD_ERR_INVALID_ENUM);
    crowd_world_destroy(w);
}
