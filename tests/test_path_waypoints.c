// Waypoint following (pathFollowWaypoints): the cursor per mode over many laps, the one-shot
// stop, and the pure function against the spec's formulas written out here.
#include "path_helpers.h"

static const crowd_vec2 square[4] = {{0, 0}, {8, 0}, {8, 8}, {0, 8}};

// The index a cursor should move to from `i` (with direction *dir) by the spec's mode rules.
static int expected_next(crowd_path_mode mode, int n, int i, int* dir) {
    switch (mode) {
    case CROWD_PATH_LOOP:
        return ((i + *dir) % n + n) % n;
    case CROWD_PATH_PING_PONG:
        if (i + *dir < 0 || i + *dir >= n) *dir = -*dir;
        return i + *dir;
    default:
        return i + *dir;
    }
}

// Runs one agent on the square and checks every index change against the rules, and that it
// happened on a step that started inside arrive_radius of the old target.
static void run_sequence(crowd_path_mode mode, bool reverse, int start, int ticks,
                         int min_changes) {
    crowd_world* w = make_world(1);
    crowd_path_id p = make_path(w, square, 4);
    crowd_agent_id a = add_agent(w, (crowd_vec2){-1, -1});
    crowd_path_follow_def f = crowd_path_follow_def_default();
    f.path = p;
    f.mode = mode;
    f.reverse = reverse;
    f.start_index = start;
    cr_assert_eq(crowd_agent_set_path(w, a, &f), CROWD_OK);
    int idx = start, dir = reverse ? -1 : 1, changes = 0;
    crowd_vec2 prev = position_of(w, a);
    for (int t = 0; t < ticks; ++t) {
        crowd_world_step(w);
        const crowd_path_cursor c = cursor_of(w, a);
        if (c.index != idx) {
            const int want = expected_next(mode, 4, idx, &dir);
            cr_assert_eq(c.index, want, "tick %d: %d -> %d, expected %d", t, idx, c.index, want);
            cr_assert_eq(c.direction, dir);
            const double d = hypot((double)prev.x - square[idx].x, (double)prev.y - square[idx].y);
            cr_assert_lt(d, f.arrive_radius, "tick %d advanced from %f away", t, d);
            idx = c.index;
            changes++;
        }
        cr_assert_eq(c.state, CROWD_PATH_STATE_FOLLOWING);
        prev = position_of(w, a);
    }
    cr_assert_geq(changes, min_changes, "only %d waypoint changes", changes);
    crowd_world_destroy(w);
}

// A lap of the 32 m square at 1.5 m/s is about 215 ticks; 10 laps give 40 changes.
Test(path_waypoints, loop_sequence_over_many_laps) {
    run_sequence(CROWD_PATH_LOOP, false, 0, 2300, 40);
}

Test(path_waypoints, reverse_loop_sequence_over_many_laps) {
    run_sequence(CROWD_PATH_LOOP, true, 2, 2500, 40);
}

Test(path_waypoints, ping_pong_sequence_over_many_laps) {
    run_sequence(CROWD_PATH_PING_PONG, false, 0, 2300, 40);
}

Test(path_waypoints, reverse_ping_pong_sequence) {
    run_sequence(CROWD_PATH_PING_PONG, true, 3, 1200, 20);
}

// One-shot: 0, 1, 2, 3, then FINISHED at the last point. The spec's arrive is underdamped
// (max_speed / slow_radius = 1 / s against a unit velocity gain), so the agent may overshoot once;
// what must hold is that it never leaves slow_radius again, that each swing is smaller than the
// one before (no sustained oscillation) and that it comes to rest on the point.
Test(path_waypoints, one_shot_comes_to_rest_at_the_last_point) {
    crowd_world* w = make_world(1);
    crowd_path_id p = make_path(w, square, 4);
    crowd_agent_id a = add_agent(w, (crowd_vec2){-1, -1});
    follow(w, a, p, CROWD_PATH_WAYPOINTS, CROWD_PATH_ONE_SHOT);
    int seq[8], n = 1, entered = -1;
    seq[0] = 0;
    double last_d = 0.0, peak = INFINITY;
    bool rising = false;
    int swings = 0;
    for (int t = 0; t < 700; ++t) {
        crowd_world_step(w);
        const crowd_path_cursor c = cursor_of(w, a);
        if (c.index != seq[n - 1]) {
            cr_assert_lt(n, 8);
            seq[n++] = c.index;
        }
        const crowd_vec2 pos = position_of(w, a);
        const double d = hypot(pos.x - 0.0, pos.y - 8.0);
        if (c.index == 3 && entered < 0 && d < 1.5) entered = t;
        if (entered >= 0) {
            cr_assert_lt(d, 1.5, "tick %d: left slow_radius again (%f)", t, d);
            if (d > last_d) rising = true;
            if (d < last_d && rising) { // a local maximum of the distance: one swing
                cr_assert_lt(last_d, peak, "tick %d: swing %f not smaller than %f", t, last_d,
                             peak);
                peak = last_d;
                rising = false;
                if (last_d > 1e-3) swings++;
            }
        }
        last_d = d;
    }
    cr_assert_eq(n, 4);
    for (int i = 0; i < 4; ++i) cr_assert_eq(seq[i], i);
    cr_assert_eq(cursor_of(w, a).state, CROWD_PATH_STATE_FINISHED);
    cr_assert_lt(swings, 5, "%d swings larger than 1 mm", swings);
    crowd_vec2 v;
    crowd_agent_get_velocity(w, a, &v);
    cr_assert_lt(hypot(v.x, v.y), 1e-3);
    cr_assert_lt(last_d, 1e-2);
    crowd_world_destroy(w);
}

// ---- the pure function against the spec, computed independently -------------------------------

static float frand(unsigned* s, float lo, float hi) {
    *s = *s * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(*s >> 8) / 16777216.0f;
}

// desired = normalize(target - pos) * speed; force = desired - vel (spec seek / arrive).
static crowd_vec2 spec_steer(crowd_vec2 pos, crowd_vec2 vel, crowd_vec2 target, float speed) {
    const double dx = (double)target.x - pos.x, dy = (double)target.y - pos.y;
    const double len = hypot(dx, dy);
    if (len == 0.0) return (crowd_vec2){-vel.x, -vel.y};
    return (crowd_vec2){(float)(dx / len * speed - vel.x), (float)(dy / len * speed - vel.y)};
}

Test(path_waypoints, pure_step_equals_the_spec) {
    unsigned seed = 12345u;
    crowd_vec2 pts[7];
    for (int trial = 0; trial < 20000; ++trial) {
        const int n = 2 + trial % 6;
        for (int i = 0; i < n; ++i) pts[i] = (crowd_vec2){frand(&seed, -5, 5), frand(&seed, -5, 5)};
        crowd_path_follow_def f = crowd_path_follow_def_default();
        f.form = CROWD_PATH_LITERAL;
        f.mode = (crowd_path_mode)(trial % 3);
        f.arrive_radius = frand(&seed, 0.2f, 3.0f);
        f.slow_radius = frand(&seed, 0.5f, 3.0f);
        const int i0 = (int)frand(&seed, 0, (float)n - 0.01f);
        const int d0 = trial % 5 == 0 ? -1 : 1;
        // Positions near the target half of the time so that advances happen.
        crowd_vec2 pos = {frand(&seed, -6, 6), frand(&seed, -6, 6)};
        if (trial % 2) pos = (crowd_vec2){pts[i0].x + frand(&seed, -1, 1), pts[i0].y};
        const crowd_vec2 vel = {frand(&seed, -2, 2), frand(&seed, -2, 2)};
        const float ms = frand(&seed, 0.5f, 3.0f);

        crowd_path_cursor c = {CROWD_PATH_STATE_FOLLOWING, i0, d0, -1};
        const crowd_vec2 got = crowd_path_waypoint_step(pts, n, &f, &c, pos, vel, ms, 3.0f);

        // The spec, written out: advance once inside arrive_radius, then seek, or arrive at a
        // one-shot's final point.
        int idx = i0, dir = d0;
        crowd_path_state state = CROWD_PATH_STATE_FOLLOWING;
        const int final_pt = dir > 0 ? n - 1 : 0;
        if (hypot((double)pos.x - pts[idx].x, (double)pos.y - pts[idx].y) < f.arrive_radius) {
            if (f.mode == CROWD_PATH_ONE_SHOT && idx == final_pt)
                state = CROWD_PATH_STATE_FINISHED;
            else
                idx = expected_next(f.mode, n, idx, &dir);
        }
        const crowd_vec2 target = pts[idx];
        float speed = ms;
        if (f.mode == CROWD_PATH_ONE_SHOT && idx == final_pt) {
            const double dist = hypot((double)target.x - pos.x, (double)target.y - pos.y);
            speed = (float)(ms * fmin(1.0, dist / f.slow_radius));
        }
        const crowd_vec2 want = spec_steer(pos, vel, target, speed);
        cr_assert_eq(c.index, idx, "trial %d", trial);
        cr_assert_eq(c.direction, dir, "trial %d", trial);
        cr_assert_eq(c.state, state, "trial %d", trial);
        cr_assert_eq(c.segment, -1);
        cr_assert_float_eq(got.x, want.x, 1e-5f * (1.0f + fabsf(want.x)), "trial %d", trial);
        cr_assert_float_eq(got.y, want.y, 1e-5f * (1.0f + fabsf(want.y)), "trial %d", trial);
    }
}

Test(path_waypoints, pure_step_rejects_unusable_input) {
    crowd_path_follow_def f = crowd_path_follow_def_default();
    const crowd_path_cursor start = {CROWD_PATH_STATE_FOLLOWING, 5, 1, -1};
    crowd_path_cursor c = start;
    crowd_vec2 r = crowd_path_waypoint_step(square, 4, &f, &c, (crowd_vec2){0, 0},
                                            (crowd_vec2){1, 1}, 1.5f, 3.0f);
    cr_assert(r.x == 0.0f && r.y == 0.0f && c.index == 5);
    r = crowd_path_waypoint_step(square, 1, &f, &c, (crowd_vec2){0, 0}, (crowd_vec2){1, 1}, 1.5f,
                                 3.0f);
    cr_assert(r.x == 0.0f && r.y == 0.0f);
    c.index = 1;
    c.direction = 0;
    r = crowd_path_waypoint_step(square, 4, &f, &c, (crowd_vec2){0, 0}, (crowd_vec2){1, 1}, 1.5f,
                                 3.0f);
    cr_assert(r.x == 0.0f && r.y == 0.0f && c.index == 1);
}
