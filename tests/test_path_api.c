// Paths as world data: creation checks, handles, and what happens to followers when their path
// is replaced or destroyed.
#include "path_helpers.h"

static const crowd_vec2 square[4] = {{0, 0}, {8, 0}, {8, 8}, {0, 8}};

static void assert_points(const crowd_world* w, crowd_path_id p, const crowd_vec2* pts, int n) {
    crowd_vec2 got[16];
    int count = -1;
    cr_assert_eq(crowd_path_get_points(w, p, got, 16, &count), CROWD_OK);
    cr_assert_eq(count, n);
    for (int i = 0; i < n; ++i) {
        cr_assert_eq(got[i].x, pts[i].x);
        cr_assert_eq(got[i].y, pts[i].y);
    }
}

Test(path_api, create_rejects_degenerate_input_and_creates_nothing) {
    crowd_world* w = make_world(1);
    add_agent(w, (crowd_vec2){1, 1});
    const uint64_t hash = crowd_world_state_hash(w);
    const crowd_path_id sentinel = {.index1 = 77, .generation = 5, .world = 9};
    const float nan = NAN, inf = INFINITY;
    struct {
        crowd_vec2 pts[4];
        int count;
        crowd_status want;
    } cases[] = {
        {{{0, 0}}, 0, CROWD_ERR_PATH_TOO_SHORT},
        {{{0, 0}}, 1, CROWD_ERR_PATH_TOO_SHORT},
        {{{0, 0}, {1, 0}}, -3, CROWD_ERR_PATH_TOO_SHORT},
        {{{0, 0}, {nan, 0}, {2, 0}}, 3, CROWD_ERR_NOT_FINITE},
        {{{0, 0}, {1, inf}, {2, 0}}, 3, CROWD_ERR_NOT_FINITE},
        {{{-inf, 0}, {1, 0}}, 2, CROWD_ERR_NOT_FINITE},
        {{{0, 0}, {1, 1}, {1, 1}, {2, 0}}, 4, CROWD_ERR_PATH_REPEATED_POINT},
        {{{3, 3}, {3, 3}}, 2, CROWD_ERR_PATH_REPEATED_POINT},
        {{{0, 0}, {-0.0f, 0}}, 2, CROWD_ERR_PATH_REPEATED_POINT},
        {{{0, 0}, {1, 0}}, CROWD_PATH_MAX_POINTS + 1, CROWD_ERR_PATH_TOO_LONG},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        crowd_path_id out = sentinel;
        cr_assert_eq(crowd_path_create(w, cases[i].pts, cases[i].count, &out), cases[i].want,
                     "case %zu", i);
        cr_assert(crowd_path_id_equal(out, sentinel), "case %zu wrote the handle", i);
        cr_assert_eq(crowd_world_path_count(w), 0);
    }
    crowd_path_id out = sentinel;
    cr_assert_eq(crowd_path_create(w, NULL, 3, &out), CROWD_ERR_NULL_ARGUMENT);
    cr_assert_eq(crowd_path_create(w, square, 4, NULL), CROWD_ERR_NULL_ARGUMENT);
    cr_assert_eq(crowd_path_create(NULL, square, 4, &out), CROWD_ERR_NULL_ARGUMENT);
    cr_assert_eq(crowd_world_path_count(w), 0);
    cr_assert_eq(crowd_world_state_hash(w), hash);

    // The first and last point may coincide (a closed polyline written out in full).
    const crowd_vec2 closed[4] = {{0, 0}, {4, 0}, {4, 4}, {0, 0}};
    crowd_path_id p = make_path(w, closed, 4);
    cr_assert_eq(crowd_world_path_count(w), 1);
    assert_points(w, p, closed, 4);
    crowd_world_destroy(w);
}

Test(path_api, statuses_have_distinct_descriptions) {
    for (int a = 0; a < CROWD_STATUS_COUNT; ++a) {
        cr_assert_str_neq(crowd_status_string((crowd_status)a), "unknown status");
        for (int b = a + 1; b < CROWD_STATUS_COUNT; ++b)
            cr_assert_str_neq(crowd_status_string((crowd_status)a),
                              crowd_status_string((crowd_status)b));
    }
}

Test(path_api, handles_null_foreign_stale_and_reuse) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = 1;
    wd.world_tag = 1;
    crowd_world *w, *other;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    wd.world_tag = 2;
    cr_assert_eq(crowd_world_create(&wd, &other), CROWD_OK);

    crowd_path_id p = make_path(w, square, 4);
    cr_assert_eq(crowd_path_validate(w, p), CROWD_OK);
    cr_assert_eq(crowd_path_validate(w, (crowd_path_id){0}), CROWD_ERR_NULL_PATH);
    cr_assert_eq(crowd_path_validate(other, p), CROWD_ERR_FOREIGN_PATH);
    crowd_path_id never = p;
    never.index1 = 50;
    cr_assert_eq(crowd_path_validate(w, never), CROWD_ERR_FOREIGN_PATH);

    cr_assert_eq(crowd_path_destroy(w, p), CROWD_OK);
    cr_assert_eq(crowd_world_path_count(w), 0);
    cr_assert_eq(crowd_path_validate(w, p), CROWD_ERR_STALE_PATH);
    cr_assert_eq(crowd_path_destroy(w, p), CROWD_ERR_STALE_PATH);
    cr_assert_eq(crowd_path_replace(w, p, square, 4), CROWD_ERR_STALE_PATH);
    int count;
    cr_assert_eq(crowd_path_get_points(w, p, NULL, 0, &count), CROWD_ERR_STALE_PATH);

    // The freed slot is reused under a new generation; the old handle stays stale.
    crowd_path_id q = make_path(w, square, 3);
    cr_assert_eq(q.index1, p.index1);
    cr_assert_neq(q.generation, p.generation);
    cr_assert_eq(crowd_path_validate(w, p), CROWD_ERR_STALE_PATH);
    cr_assert_eq(crowd_path_validate(w, q), CROWD_OK);

    cr_assert_eq(crowd_path_get_points(w, q, NULL, 0, &count), CROWD_ERR_BUFFER_TOO_SMALL);
    cr_assert_eq(count, 3);
    crowd_vec2 two[2] = {{-1, -1}, {-1, -1}};
    cr_assert_eq(crowd_path_get_points(w, q, two, 2, &count), CROWD_ERR_BUFFER_TOO_SMALL);
    cr_assert_eq(two[0].x, -1.0f);
    assert_points(w, q, square, 3);
    crowd_world_destroy(w);
    crowd_world_destroy(other);
}

Test(path_api, many_paths_grow_the_table) {
    crowd_world* w = make_world(1);
    enum { N = 300 };
    crowd_path_id ids[N];
    for (int i = 0; i < N; ++i) {
        const crowd_vec2 pts[3] = {{(float)i, 0}, {(float)i, 1}, {(float)i + 1, 2}};
        ids[i] = make_path(w, pts, 3);
    }
    for (int i = 0; i < N; i += 2) cr_assert_eq(crowd_path_destroy(w, ids[i]), CROWD_OK);
    cr_assert_eq(crowd_world_path_count(w), N / 2);
    for (int i = 1; i < N; i += 2) {
        const crowd_vec2 pts[3] = {{(float)i, 0}, {(float)i, 1}, {(float)i + 1, 2}};
        assert_points(w, ids[i], pts, 3);
    }
    crowd_world_destroy(w);
}

Test(path_api, replace_rejects_degenerate_input_and_keeps_the_path) {
    crowd_world* w = make_world(1);
    crowd_path_id p = make_path(w, square, 4);
    crowd_agent_id a = add_agent(w, (crowd_vec2){1, 1});
    follow(w, a, p, CROWD_PATH_TUBE, CROWD_PATH_LOOP);
    for (int t = 0; t < 30; ++t) crowd_world_step(w);
    const crowd_path_cursor before = cursor_of(w, a);
    const uint64_t hash = crowd_world_state_hash(w);
    const crowd_vec2 rep[3] = {{0, 0}, {0, 0}, {1, 1}};
    const crowd_vec2 bad[2] = {{0, 0}, {NAN, 1}};
    cr_assert_eq(crowd_path_replace(w, p, rep, 3), CROWD_ERR_PATH_REPEATED_POINT);
    cr_assert_eq(crowd_path_replace(w, p, bad, 2), CROWD_ERR_NOT_FINITE);
    cr_assert_eq(crowd_path_replace(w, p, square, 1), CROWD_ERR_PATH_TOO_SHORT);
    cr_assert_eq(crowd_path_replace(w, p, NULL, 4), CROWD_ERR_NULL_ARGUMENT);
    cr_assert_eq(crowd_path_replace(w, (crowd_path_id){0}, square, 4), CROWD_ERR_NULL_PATH);
    assert_points(w, p, square, 4);
    const crowd_path_cursor after = cursor_of(w, a);
    cr_assert_eq(after.segment, before.segment, "a rejected replace reset the cursor");
    cr_assert_eq(after.index, before.index);
    cr_assert_eq(crowd_world_state_hash(w), hash);
    crowd_world_destroy(w);
}

Test(path_api, set_path_rejects_bad_definitions_and_changes_nothing) {
    crowd_world* w = make_world(1);
    crowd_path_id p = make_path(w, square, 4);
    crowd_path_id q = make_path(w, square, 3);
    crowd_agent_id a = add_agent(w, (crowd_vec2){1, 1});
    follow(w, a, q, CROWD_PATH_WAYPOINTS, CROWD_PATH_PING_PONG);
    crowd_world_step(w);
    const uint64_t hash = crowd_world_state_hash(w);
    crowd_path_follow_def keep;
    crowd_path_cursor keep_c;
    cr_assert_eq(crowd_agent_get_path(w, a, &keep, &keep_c), CROWD_OK);

    const crowd_path_follow_def good = {.path = p,
                                        .kind = CROWD_PATH_TUBE,
                                        .mode = CROWD_PATH_LOOP,
                                        .arrive_radius = 0.8f,
                                        .slow_radius = 1.5f,
                                        .tube_radius = 1.0f,
                                        .predict_ahead = 0.5f,
                                        .weight = 1.0f};
    crowd_path_follow_def d[16];
    crowd_status want[16];
    int n = 0;
    d[n] = good, d[n].kind = CROWD_PATH_KIND_COUNT, want[n++] = CROWD_ERR_INVALID_ENUM;
    d[n] = good, d[n].mode = (crowd_path_mode)-1, want[n++] = CROWD_ERR_INVALID_ENUM;
    d[n] = good, d[n].arrive_radius = NAN, want[n++] = CROWD_ERR_NOT_FINITE;
    d[n] = good, d[n].weight = INFINITY, want[n++] = CROWD_ERR_NOT_FINITE;
    d[n] = good, d[n].arrive_radius = 0.0f, want[n++] = CROWD_ERR_BAD_RADIUS;
    d[n] = good, d[n].slow_radius = -1.0f, want[n++] = CROWD_ERR_BAD_RADIUS;
    d[n] = good, d[n].tube_radius = 0.0f, want[n++] = CROWD_ERR_BAD_RADIUS;
    d[n] = good, d[n].predict_ahead = -0.1f, want[n++] = CROWD_ERR_BAD_RADIUS;
    d[n] = good, d[n].weight = -1.0f, want[n++] = CROWD_ERR_BAD_WEIGHT;
    d[n] = good, d[n].path = (crowd_path_id){0}, want[n++] = CROWD_ERR_NULL_PATH;
    d[n] = good, d[n].path.world ^= 0x5a5a, want[n++] = CROWD_ERR_FOREIGN_PATH;
    d[n] = good, d[n].start_index = 4, want[n++] = CROWD_ERR_BAD_PATH_INDEX;
    d[n] = good, d[n].start_index = -1, want[n++] = CROWD_ERR_BAD_PATH_INDEX;
    for (int i = 0; i < n; ++i) {
        cr_assert_eq(crowd_agent_set_path(w, a, &d[i]), want[i], "case %d", i);
        crowd_path_follow_def now;
        crowd_path_cursor now_c;
        cr_assert_eq(crowd_agent_get_path(w, a, &now, &now_c), CROWD_OK);
        cr_assert(crowd_path_id_equal(now.path, q), "case %d", i);
        cr_assert_eq(now.mode, CROWD_PATH_PING_PONG);
        cr_assert_eq(now_c.index, keep_c.index);
        cr_assert_eq(now_c.state, CROWD_PATH_STATE_FOLLOWING);
    }
    cr_assert_eq(crowd_agent_set_path(w, a, NULL), CROWD_ERR_NULL_ARGUMENT);
    cr_assert_eq(crowd_agent_set_path(w, (crowd_agent_id){0}, &good), CROWD_ERR_NULL_HANDLE);
    cr_assert_eq(crowd_world_state_hash(w), hash);

    crowd_path_destroy(w, p);
    cr_assert_eq(crowd_agent_set_path(w, a, &good), CROWD_ERR_STALE_PATH);
    crowd_world_destroy(w);
}

Test(path_api, set_path_starts_the_cursor_and_clear_stops_it) {
    crowd_world* w = make_world(1);
    crowd_path_id p = make_path(w, square, 4);
    crowd_agent_id a = add_agent(w, (crowd_vec2){1, 1});
    crowd_path_cursor c = cursor_of(w, a);
    cr_assert_eq(c.state, CROWD_PATH_STATE_NONE);

    crowd_path_follow_def f = crowd_path_follow_def_default();
    cr_assert_eq(f.kind, CROWD_PATH_WAYPOINTS);
    cr_assert_eq(f.arrive_radius, 0.8f);
    cr_assert_eq(f.slow_radius, 1.5f);
    cr_assert_eq(f.tube_radius, 1.0f);
    cr_assert_eq(f.predict_ahead, 0.5f);
    cr_assert_eq(f.weight, 1.0f);
    f.path = p;
    f.start_index = 2;
    f.reverse = true;
    cr_assert_eq(crowd_agent_set_path(w, a, &f), CROWD_OK);
    c = cursor_of(w, a);
    cr_assert_eq(c.state, CROWD_PATH_STATE_FOLLOWING);
    cr_assert_eq(c.index, 2);
    cr_assert_eq(c.direction, -1);
    cr_assert_eq(c.segment, -1);

    // A cleared agent moves exactly like one that never had a path.
    crowd_agent_id b = add_agent(w, (crowd_vec2){20, 20});
    cr_assert_eq(crowd_agent_set_velocity(w, a, (crowd_vec2){0.5f, 0.25f}), CROWD_OK);
    cr_assert_eq(crowd_agent_set_velocity(w, b, (crowd_vec2){0.5f, 0.25f}), CROWD_OK);
    cr_assert_eq(crowd_agent_clear_path(w, a), CROWD_OK);
    cr_assert_eq(cursor_of(w, a).state, CROWD_PATH_STATE_NONE);
    crowd_path_follow_def got;
    cr_assert_eq(crowd_agent_get_path(w, a, &got, NULL), CROWD_OK);
    cr_assert(crowd_path_id_is_null(got.path));
    for (int t = 0; t < 20; ++t) {
        crowd_world_step(w);
        crowd_vec2 va, vb;
        crowd_agent_get_velocity(w, a, &va);
        crowd_agent_get_velocity(w, b, &vb);
        cr_assert_eq(va.x, vb.x, "tick %d: a cleared agent still steers", t);
        cr_assert_eq(va.y, vb.y);
    }
    crowd_world_destroy(w);
}

Test(path_api, removed_agent_index_reuse_starts_without_a_path) {
    crowd_world* w = make_world(1);
    crowd_path_id p = make_path(w, square, 4);
    crowd_agent_id a = add_agent(w, (crowd_vec2){1, 1});
    follow(w, a, p, CROWD_PATH_TUBE, CROWD_PATH_LOOP);
    crowd_world_step(w);
    cr_assert_eq(crowd_agent_remove(w, a), CROWD_OK);
    crowd_agent_id b = add_agent(w, (crowd_vec2){2, 2});
    cr_assert_eq(b.index1, a.index1);
    cr_assert_eq(cursor_of(w, b).state, CROWD_PATH_STATE_NONE);
    cr_assert_eq(crowd_agent_get_path(w, a, NULL, NULL), CROWD_ERR_STALE_HANDLE);
    crowd_world_destroy(w);
}

// Destroyed: the follower stops at once (state DETACHED, no force) and moves from then on exactly
// like an agent without a path; a new path in the same slot does not pick it up.
Test(path_api, destroyed_path_detaches_its_followers) {
    crowd_world* w = make_world(1);
    crowd_path_id p = make_path(w, square, 4);
    crowd_agent_id a = add_agent(w, (crowd_vec2){1, -1});
    crowd_agent_id ref = add_agent(w, (crowd_vec2){-30, -30});
    follow(w, a, p, CROWD_PATH_WAYPOINTS, CROWD_PATH_LOOP);
    for (int t = 0; t < 25; ++t) crowd_world_step(w);
    const crowd_path_cursor before = cursor_of(w, a);
    cr_assert_eq(before.state, CROWD_PATH_STATE_FOLLOWING);

    cr_assert_eq(crowd_path_destroy(w, p), CROWD_OK);
    crowd_path_cursor c = cursor_of(w, a);
    cr_assert_eq(c.state, CROWD_PATH_STATE_DETACHED);
    cr_assert_eq(c.index, before.index);
    crowd_path_follow_def d;
    cr_assert_eq(crowd_agent_get_path(w, a, &d, NULL), CROWD_OK);
    cr_assert(crowd_path_id_equal(d.path, p), "the def keeps naming the destroyed path");

    crowd_path_id q = make_path(w, square, 4);
    cr_assert_eq(q.index1, p.index1);
    crowd_vec2 va;
    crowd_agent_get_velocity(w, a, &va);
    crowd_agent_set_velocity(w, ref, va);
    for (int t = 0; t < 30; ++t) {
        crowd_world_step(w);
        cr_assert_eq(cursor_of(w, a).state, CROWD_PATH_STATE_DETACHED);
        crowd_vec2 vr;
        crowd_agent_get_velocity(w, a, &va);
        crowd_agent_get_velocity(w, ref, &vr);
        cr_assert_eq(va.x, vr.x, "tick %d: a detached agent still steers", t);
        cr_assert_eq(va.y, vr.y);
    }
    // Following again is an explicit choice.
    follow(w, a, q, CROWD_PATH_WAYPOINTS, CROWD_PATH_LOOP);
    cr_assert_eq(cursor_of(w, a).state, CROWD_PATH_STATE_FOLLOWING);
    crowd_world_destroy(w);
}

// Replaced: same handle; the cursor index is clamped to the new last point, the segment hint is
// dropped, a FINISHED one-shot follows again and the direction is kept.
Test(path_api, replaced_path_clamps_the_cursor) {
    crowd_world* w = make_world(1);
    const crowd_vec2 line[6] = {{0, 0}, {3, 0}, {6, 0}, {9, 0}, {12, 0}, {15, 0}};
    crowd_path_id p = make_path(w, line, 6);
    crowd_agent_id a = add_agent(w, (crowd_vec2){0, 0});
    crowd_agent_id t = add_agent(w, (crowd_vec2){0, 5});
    follow(w, a, p, CROWD_PATH_WAYPOINTS, CROWD_PATH_ONE_SHOT);
    crowd_path_follow_def f = crowd_path_follow_def_default();
    f.path = p;
    f.kind = CROWD_PATH_TUBE;
    f.mode = CROWD_PATH_PING_PONG;
    f.start_index = 5;
    f.reverse = true;
    cr_assert_eq(crowd_agent_set_path(w, t, &f), CROWD_OK);
    int ticks = 0;
    while (cursor_of(w, a).state != CROWD_PATH_STATE_FINISHED && ticks < 400) {
        crowd_world_step(w);
        ticks++;
    }
    cr_assert_eq(cursor_of(w, a).state, CROWD_PATH_STATE_FINISHED);
    cr_assert_eq(cursor_of(w, a).index, 5);
    const crowd_path_cursor tb = cursor_of(w, t);
    cr_assert_geq(tb.segment, 0);

    const crowd_vec2 shorter[3] = {{15, 0}, {15, 6}, {10, 6}};
    cr_assert_eq(crowd_path_replace(w, p, shorter, 3), CROWD_OK);
    cr_assert_eq(crowd_path_validate(w, p), CROWD_OK);
    crowd_path_cursor c = cursor_of(w, a);
    cr_assert_eq(c.state, CROWD_PATH_STATE_FOLLOWING);
    cr_assert_eq(c.index, 2);
    cr_assert_eq(c.direction, 1);
    crowd_path_cursor tc = cursor_of(w, t);
    cr_assert_eq(tc.segment, -1);
    cr_assert_eq(tc.direction, tb.direction);
    cr_assert_eq(tc.index, tb.index > 2 ? 2 : tb.index);

    // The one-shot follower now walks to the new final point and finishes there.
    for (int k = 0; k < 300; ++k) crowd_world_step(w);
    c = cursor_of(w, a);
    cr_assert_eq(c.state, CROWD_PATH_STATE_FINISHED);
    const crowd_vec2 pa = position_of(w, a);
    cr_assert_lt(hypot(pa.x - 10.0, pa.y - 6.0), 0.8);
    cr_assert_geq(cursor_of(w, t).segment, 0);
    crowd_world_destroy(w);
}
