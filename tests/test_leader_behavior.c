// Follow leader on real scenarios: a group behind a walking, turning and stopping leader, and a
// follower caught in the leader's path.
//
// Parameters: the library's follow defaults (crowd_follow_def_default, form KEEP_UP) and the
// engine's default agents, whose own separation (weight 1, radius 1.2) adds to the follow force.
// The leader walks at 0.6 m/s (the spec's form, whose separation drag caps a follower with k close
// neighbors near 1.5 / (1 + 1.6 k) m/s, keeps up with so slow a leader only; see
// tests/test_bound_follow.c for groups at 1.3 m/s).
#include <criterion/criterion.h>
#include <math.h>

#include "crowd/crowd.h"

enum { NF = 10 };

static float dot(crowd_vec2 a, crowd_vec2 b) {
    return a.x * b.x + a.y * b.y;
}
static crowd_vec2 sub(crowd_vec2 a, crowd_vec2 b) {
    return (crowd_vec2){a.x - b.x, a.y - b.y};
}
static float len(crowd_vec2 a) {
    return sqrtf(a.x * a.x + a.y * a.y);
}

typedef struct group {
    crowd_world* w;
    crowd_agent_id leader, f[NF];
    crowd_follow_def def;
} group;

static void group_create(group* g, bool predict) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = 1;
    cr_assert_eq(crowd_world_create(&wd, &g->w), CROWD_OK);
    crowd_agent_def a = crowd_agent_def_default();
    a.max_speed = 0.6f;
    cr_assert_eq(crowd_agent_add(g->w, &a, &g->leader), CROWD_OK);
    g->def = crowd_follow_def_default();
    g->def.predict = predict;
    for (int i = 0; i < NF; ++i) {
        crowd_agent_def b = crowd_agent_def_default();
        b.position = (crowd_vec2){-3.0f - (float)(i % 4) * 1.1f, (float)(i / 4) * 1.1f - 1.1f};
        cr_assert_eq(crowd_agent_add(g->w, &b, &g->f[i]), CROWD_OK);
        cr_assert_eq(crowd_agent_follow(g->w, g->f[i], g->leader, &g->def), CROWD_OK);
    }
}

static void leader_goal(group* g, crowd_goal_mode mode, crowd_vec2 target) {
    crowd_goal goal = crowd_goal_default();
    goal.mode = mode;
    goal.target = target;
    goal.slow_radius = 2.0f;
    cr_assert_eq(crowd_agent_set_goal(g->w, g->leader, &goal), CROWD_OK);
}

typedef struct frame {
    crowd_vec2 lp, lh, p[NF], v[NF];
} frame;

static frame observe(const group* g) {
    frame f;
    crowd_agent_get_position(g->w, g->leader, &f.lp);
    crowd_agent_get_heading(g->w, g->leader, &f.lh);
    for (int i = 0; i < NF; ++i) {
        crowd_agent_get_position(g->w, g->f[i], &f.p[i]);
        crowd_agent_get_velocity(g->w, g->f[i], &f.v[i]);
    }
    return f;
}

// Every follower behind the leader, none in the ahead zone, no two closer than 0.5 sepRadius.
static void assert_settled_group(const group* g, const frame* f, bool spacing, const char* when) {
    const crowd_vec2 ahead = {f->lp.x + f->lh.x * g->def.ahead_dist,
                              f->lp.y + f->lh.y * g->def.ahead_dist};
    for (int i = 0; i < NF; ++i) {
        cr_assert_lt(dot(sub(f->p[i], f->lp), f->lh), 0.0f, "%s: follower %d is not behind", when,
                     i);
        cr_assert_geq(len(sub(f->p[i], ahead)), g->def.ahead_radius,
                      "%s: follower %d in the ahead zone", when, i);
        for (int j = i + 1; spacing && j < NF; ++j)
            cr_assert_geq(len(sub(f->p[i], f->p[j])), 0.5f * 1.2f,
                          "%s: followers %d and %d %.3f m apart", when, i, j,
                          (double)len(sub(f->p[i], f->p[j])));
    }
}

static void walk_turn_stop(bool predict) {
    group g;
    group_create(&g, predict);
    const float leg = 24.0f;
    leader_goal(&g, CROWD_GOAL_SEEK, (crowd_vec2){leg, 0.0f});
    int t = 0, settled_frames = 0;
    // Leg 1, east. The group has settled once the leader is 10 m down the road.
    for (;; ++t) {
        cr_assert_lt(t, 2000);
        cr_assert_eq(crowd_world_step(g.w), CROWD_OK);
        frame f = observe(&g);
        if (f.lp.x > leg - 1.0f) break;
        if (f.lp.x > 10.0f) {
            assert_settled_group(&g, &f, true, "leg 1");
            ++settled_frames;
        }
    }
    // A 90-degree turn to the north, then the leader arrives and stops.
    const crowd_vec2 stop = {leg, leg};
    leader_goal(&g, CROWD_GOAL_ARRIVE, stop);
    for (;; ++t) {
        cr_assert_lt(t, 4000);
        cr_assert_eq(crowd_world_step(g.w), CROWD_OK);
        frame f = observe(&g);
        crowd_vec2 lv;
        crowd_agent_get_velocity(g.w, g.leader, &lv);
        if (len(sub(f.lp, stop)) < 0.5f && len(lv) < 0.05f) break;
        if (f.lp.y > 10.0f && f.lp.y < leg - 4.0f) {
            cr_assert_gt(f.lh.y, 0.99f, "the leader heads north");
            assert_settled_group(&g, &f, true, "leg 2");
            ++settled_frames;
        }
    }
    cr_assert_gt(settled_frames, 200);

    // The leader has stopped: the followers come to rest without oscillating. Each follower's
    // position along the leader's heading, measured from the behind point, never passes
    // slow_radius and never turns back by more than 0.1 m; the fastest follower's speed decays.
    enum { WINDOW = 50, WINDOWS = 12 };
    float peak[WINDOWS] = {0}, lo[NF], hi[NF];
    int dir[NF] = {0};
    for (int k = 0; k < WINDOWS * WINDOW; ++k) {
        cr_assert_eq(crowd_world_step(g.w), CROWD_OK);
        frame f = observe(&g);
        const crowd_vec2 behind = {f.lp.x - f.lh.x * g.def.behind_dist,
                                   f.lp.y - f.lh.y * g.def.behind_dist};
        for (int i = 0; i < NF; ++i) {
            const float a = dot(sub(f.p[i], behind), f.lh);
            cr_assert_leq(a, g.def.slow_radius, "follower %d overshoots the behind point by %.3f",
                          i, (double)a);
            if (k == 0) lo[i] = hi[i] = a;
            hi[i] = fmaxf(hi[i], a);
            lo[i] = fminf(lo[i], a);
            // A reversal: moving one way by more than 0.1 m after having moved the other way.
            if (a > lo[i] + 0.1f) {
                cr_assert_neq(dir[i], -1, "follower %d reverses (backward, then forward)", i);
                dir[i] = 1;
                lo[i] = a;
            }
            if (a < hi[i] - 0.1f) {
                cr_assert_neq(dir[i], 1, "follower %d reverses (forward, then backward)", i);
                dir[i] = -1;
                hi[i] = a;
            }
            peak[k / WINDOW] = fmaxf(peak[k / WINDOW], len(f.v[i]));
        }
    }
    for (int k = 4; k < WINDOWS; ++k)
        cr_assert_leq(peak[k], peak[k - 1] * 1.02f + 0.002f, "speed grows again in window %d", k);
    cr_assert_lt(peak[WINDOWS - 1], 0.02f, "at rest");
    frame f = observe(&g);
    assert_settled_group(&g, &f, false, "at rest");
    // At rest what holds the ten followers is a balance of position terms alone: arrive pulling
    // all of them to one behind point, the follow separation (0.6) plus their own (1) pushing them
    // apart. With the spec's slow radius of 1 that balance packs the closest pair to about 0.56 m
    // (0.47 sepRadius); the default slow radius of 6 pulls six times softer and the group rests
    // wider (tests/test_bound_follow.c: 0.79 to 0.82 m). The bound here is the spec's.
    for (int i = 0; i < NF; ++i)
        for (int j = i + 1; j < NF; ++j)
            cr_assert_geq(len(sub(f.p[i], f.p[j])), 0.45f * 1.2f, "at rest: %d and %d %.3f m apart",
                          i, j, (double)len(sub(f.p[i], f.p[j])));
    crowd_world_destroy(g.w);
}

Test(leader_behavior, walk_turn_stop_with_10_followers) {
    walk_turn_stop(false);
}
Test(leader_behavior, walk_turn_stop_with_10_followers_and_prediction) {
    walk_turn_stop(true);
}

// A follower standing in the leader's path (0.3 m off its line, one body radius) leaves the ahead
// zone sideways, to its own side, passes beside the leader instead of through it and stays out.
static void in_the_path(float side) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = 1;
    crowd_world* w;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    crowd_agent_def a = crowd_agent_def_default();
    a.max_speed = 0.6f;
    a.velocity = (crowd_vec2){0.6f, 0.0f};
    a.goal.mode = CROWD_GOAL_SEEK;
    a.goal.target = (crowd_vec2){1000.0f, 0.0f};
    crowd_agent_id leader, f;
    cr_assert_eq(crowd_agent_add(w, &a, &leader), CROWD_OK);
    crowd_agent_def b = crowd_agent_def_default();
    b.position = (crowd_vec2){2.0f, 0.3f * side};
    cr_assert_eq(crowd_agent_add(w, &b, &f), CROWD_OK);
    const crowd_follow_def def = crowd_follow_def_default();
    cr_assert_eq(crowd_agent_follow(w, f, leader, &def), CROWD_OK);

    int exit_tick = -1;
    for (int t = 0; t < 150; ++t) {
        cr_assert_eq(crowd_world_step(w), CROWD_OK);
        crowd_vec2 lp, lh, p;
        crowd_agent_get_position(w, leader, &lp);
        crowd_agent_get_heading(w, leader, &lh);
        crowd_agent_get_position(w, f, &p);
        const crowd_vec2 off = sub(p, lp);
        const float along = dot(off, lh), lateral = (-lh.y * off.x + lh.x * off.y) * side;
        const crowd_vec2 ahead = {lp.x + lh.x * def.ahead_dist, lp.y + lh.y * def.ahead_dist};
        const bool inside = len(sub(p, ahead)) < def.ahead_radius;
        if (exit_tick < 0 && !inside) {
            exit_tick = t;
            cr_assert_geq(lateral, 0.5f, "left the zone %.2f m to its side", (double)lateral);
        }
        if (exit_tick >= 0) cr_assert(!inside, "tick %d: back in the ahead zone", t);
        if (fabsf(along) < 0.5f)
            cr_assert_geq(lateral, 0.6f, "passes beside the leader (%.2f m)", (double)lateral);
    }
    cr_assert_geq(exit_tick, 0);
    cr_assert_leq(exit_tick, 20, "left the ahead zone after %d ticks", exit_tick);
    crowd_world_destroy(w);
}

Test(leader_behavior, follower_in_the_path_leaves_sideways_left) {
    in_the_path(1.0f);
}
Test(leader_behavior, follower_in_the_path_leaves_sideways_right) {
    in_the_path(-1.0f);
}
