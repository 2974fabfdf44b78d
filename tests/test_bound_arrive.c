// Issue bound 5: arrive stops without overshoot. An agent walking at its top speed onto an ARRIVE
// goal, and one riding a one-shot path (waypoints and tube) to its end, pass the target by at most
// 0.1 m, with the defaults (max speed 1.5) and at 3 m/s, from several approach angles. The
// overshoot is the largest distance past the target along the approach direction. The spec's
// literal forms are measured alongside for the record.
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#include "crowd/crowd.h"

static crowd_world* world(void) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = 1;
    crowd_world* w;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    return w;
}

// Steps until the agent rests (or 60 s) and returns how far it got past `target` along `dir`.
static float overshoot(crowd_world* w, crowd_agent_id id, crowd_vec2 target, crowd_vec2 dir) {
    float past = -INFINITY;
    for (int t = 0; t < 600; ++t) {
        cr_assert_eq(crowd_world_step(w), CROWD_OK);
        crowd_vec2 p;
        crowd_agent_get_position(w, id, &p);
        past = fmaxf(past, (p.x - target.x) * dir.x + (p.y - target.y) * dir.y);
    }
    return past;
}

static float goal_overshoot(float max_speed, float angle, crowd_goal_mode mode) {
    crowd_world* w = world();
    const crowd_vec2 dir = {cosf(angle), sinf(angle)}, target = {3.0f, -2.0f};
    crowd_agent_def a = crowd_agent_def_default();
    a.max_speed = max_speed;
    a.position = (crowd_vec2){target.x - dir.x * 30.0f, target.y - dir.y * 30.0f};
    a.velocity = (crowd_vec2){dir.x * max_speed, dir.y * max_speed}; // already at top speed
    a.goal.mode = mode;
    a.goal.target = target;
    crowd_agent_id id;
    cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_OK);
    const float o = overshoot(w, id, target, dir);
    crowd_world_destroy(w);
    return o;
}

static float path_overshoot(float max_speed, float angle, crowd_path_kind kind,
                            crowd_path_form form) {
    crowd_world* w = world();
    const crowd_vec2 dir = {cosf(angle), sinf(angle)}, side = {-dir.y, dir.x};
    // An L: 20 m sideways, then 25 m along dir to the end.
    const crowd_vec2 pts[3] = {{-side.x * 20.0f - dir.x * 25.0f, -side.y * 20.0f - dir.y * 25.0f},
                               {-dir.x * 25.0f, -dir.y * 25.0f},
                               {0.0f, 0.0f}};
    crowd_path_id p;
    cr_assert_eq(crowd_path_create(w, pts, 3, &p), CROWD_OK);
    crowd_agent_def a = crowd_agent_def_default();
    a.max_speed = max_speed;
    a.position = pts[0];
    crowd_agent_id id;
    cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_OK);
    crowd_path_follow_def f = crowd_path_follow_def_default();
    f.path = p;
    f.kind = kind;
    f.mode = CROWD_PATH_ONE_SHOT;
    f.form = form;
    cr_assert_eq(crowd_agent_set_path(w, id, &f), CROWD_OK);
    const float o = overshoot(w, id, pts[2], dir);
    crowd_world_destroy(w);
    return o;
}

static void check(const char* what, float speed, float got, float literal) {
    fprintf(stderr, "arrive %s at %.1f m/s: overshoot %.3f m (bound 0.1); literal form %.3f m\n",
            what, (double)speed, (double)got, (double)literal);
    cr_expect_leq(got, 0.1f, "%s at %.1f m/s: %.3f m past", what, (double)speed, (double)got);
}

Test(bound_arrive, arrive_goal_stops_on_the_target) {
    const float speeds[2] = {1.5f, 3.0f};
    for (int s = 0; s < 2; ++s)
        for (int k = 0; k < 3; ++k) {
            const float ang = 0.4f + 2.1f * (float)k;
            check("ARRIVE goal", speeds[s], goal_overshoot(speeds[s], ang, CROWD_GOAL_ARRIVE),
                  goal_overshoot(speeds[s], ang, CROWD_GOAL_ARRIVE_LITERAL));
        }
}

Test(bound_arrive, one_shot_path_ends_stop_on_the_last_point) {
    const float speeds[2] = {1.5f, 3.0f};
    for (int s = 0; s < 2; ++s)
        for (int k = 0; k < 3; ++k) {
            const float ang = 0.4f + 2.1f * (float)k;
            check("one-shot waypoints end", speeds[s],
                  path_overshoot(speeds[s], ang, CROWD_PATH_WAYPOINTS, CROWD_PATH_FLOW),
                  path_overshoot(speeds[s], ang, CROWD_PATH_WAYPOINTS, CROWD_PATH_LITERAL));
            check("one-shot tube end", speeds[s],
                  path_overshoot(speeds[s], ang, CROWD_PATH_TUBE, CROWD_PATH_FLOW),
                  path_overshoot(speeds[s], ang, CROWD_PATH_TUBE, CROWD_PATH_LITERAL));
        }
}
