// The hard guarantee: after every step no agent's disc overlaps a wall and no agent has crossed
// one, however fast it moves, however long the step, however hard the crowd pushes. Every scene
// checks every step with the test's own distance computation (walls_helpers.h).
#include "walls_helpers.h"
#include "world_helpers.h"

// Agents at up to 100 m/s with a 1 s step inside a room of zero-thickness walls, seeking points
// far outside it, each in its own direction: every move is 30-40 times the agent's diameter.
Test(walls_guarantee, no_tunnelling_through_thin_walls_at_100_mps_and_dt_1s) {
    for (int threads = 1; threads <= 2; ++threads) {
        crowd_world* w = walls_world_straight(threads, 1.0f);
        const crowd_vec2 room[5] = {{-10, -10}, {10, -10}, {10, 10}, {-10, 10}, {-10, -10}};
        wall_add(w, CROWD_OBSTACLE_WALL, room, 5);
        // A thin solid sliver across the middle as well.
        const crowd_vec2 sliver[4] = {{-10, 0}, {10, 0}, {10, 0.001f}, {-10, 0.001f}};
        wall_add(w, CROWD_OBSTACLE_POLYGON, sliver, 4);
        uint64_t seed = 7;
        for (int i = 0; i < 120; ++i) {
            crowd_agent_def a = crowd_agent_def_default();
            a.position = (crowd_vec2){frand(&seed, -9.5f, 9.5f), frand(&seed, -9.5f, 9.5f)};
            if (fabsf(a.position.y) < 0.5f) a.position.y = 3.0f;
            a.max_speed = frand(&seed, 30.0f, 100.0f);
            a.max_force = 1000.0f;
            const float ang = frand(&seed, 0.0f, 6.2831853f);
            a.goal =
                (crowd_goal){.mode = CROWD_GOAL_SEEK, .target = {200.0f * cosf(ang), 200.0f * sinf(ang)}, .slow_radius = 1.0f, .weight = 1.0f};
            a.velocity = (crowd_vec2){a.max_speed * cosf(ang), a.max_speed * sinf(ang)};
            crowd_agent_id id;
            cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_OK);
        }
        crowd_vec2 start[120];
        int n;
        cr_assert_eq(crowd_world_get_agents(w, NULL, start, NULL, 120, &n), CROWD_OK);
        for (int t = 0; t < 60; ++t) {
            cr_assert_eq(crowd_world_step(w), CROWD_OK);
            cr_assert_geq(min_clearance(w), 0.0, "tick %d", t);
            crowd_vec2 p[120];
            cr_assert_eq(crowd_world_get_agents(w, NULL, p, NULL, 120, &n), CROWD_OK);
            for (int i = 0; i < n; ++i) {
                cr_assert(fabsf(p[i].x) < 10.0f && fabsf(p[i].y) < 10.0f, "agent %d left", i);
                cr_assert((p[i].y > 0.0f) == (start[i].y > 0.0f), "agent %d crossed", i);
            }
        }
        crowd_world_destroy(w);
    }
}

// Hundreds of agents seeking a point inside a solid block and behind a thin wall: separation and
// the crowd's pressure push them against the walls for 40 s, and none gets in.
Test(walls_guarantee, crowd_pressure_never_pushes_an_agent_into_a_wall) {
    crowd_world* w = walls_world_straight(2, 0.1f);
    const crowd_vec2 block[4] = {{-5, -5}, {5, -5}, {5, 5}, {-5, 5}};
    wall_add(w, CROWD_OBSTACLE_POLYGON, block, 4);
    const crowd_vec2 thin[2] = {{20, -15}, {20, 15}};
    wall_add(w, CROWD_OBSTACLE_WALL, thin, 2);
    uint64_t seed = 11;
    int added = 0;
    while (added < 400) {
        crowd_agent_def a = crowd_agent_def_default();
        const bool left = added < 250;
        a.position = left ? (crowd_vec2){frand(&seed, -25, 14), frand(&seed, -25, 25)}
                          : (crowd_vec2){frand(&seed, 8, 19), frand(&seed, -12, 12)};
        a.separation_weight = 3.0f;
        a.max_speed = 2.0f;
        a.goal = (crowd_goal){.mode = CROWD_GOAL_SEEK, .target = left ? (crowd_vec2){0, 0} : (crowd_vec2){30, 0}, .slow_radius = 1.0f, .weight = 1.0f};
        crowd_agent_id id;
        if (crowd_agent_add(w, &a, &id) == CROWD_OK) ++added;
    }
    for (int t = 0; t < 400; ++t) {
        cr_assert_eq(crowd_world_step(w), CROWD_OK);
        const double c = min_clearance(w);
        cr_assert_geq(c, 0.0, "tick %d: clearance %g", t, c);
    }
    crowd_vec2 p[400];
    int n;
    cr_assert_eq(crowd_world_get_agents(w, NULL, p, NULL, 400, &n), CROWD_OK);
    int pressed = 0;
    for (int i = 0; i < n; ++i) pressed += p[i].x < 20.0f && p[i].x > 19.0f;
    // The scene does press: many agents ended within a body length of the thin wall.
    cr_assert_gt(pressed, 30, "%d agents at the thin wall", pressed);
    crowd_world_destroy(w);
}

// The same far from the origin, where a float position is good to 6 cm, and with speeds from a
// walk to 60 m/s in one world: the clamp checks every agent against the step's longest move, so
// slow agents pressed against the walls must still be caught, and rounding the positions must not
// open a gap. A room and a thin sliver, agents seeking points outside with no wall force (only the
// clamp holds them); each step is checked.
Test(walls_guarantee, far_from_the_origin_with_mixed_speeds) {
    const float ox = 900000.0f, oy = -700000.0f;
    crowd_world* w = walls_world_straight(2, 0.1f);
    const crowd_vec2 room[5] = {{ox - 30, oy - 30},
                                {ox + 30, oy - 30},
                                {ox + 30, oy + 30},
                                {ox - 30, oy + 30},
                                {ox - 30, oy - 30}};
    wall_add(w, CROWD_OBSTACLE_WALL, room, 5);
    const crowd_vec2 sliver[4] = {
        {ox - 30, oy}, {ox + 30, oy}, {ox + 30, oy + 0.5f}, {ox - 30, oy + 0.5f}};
    wall_add(w, CROWD_OBSTACLE_POLYGON, sliver, 4);
    uint64_t seed = 5;
    enum { N = 150 };
    int added = 0;
    while (added < N) {
        crowd_agent_def a = crowd_agent_def_default();
        a.position = (crowd_vec2){ox + frand(&seed, -28, 28), oy + frand(&seed, -28, 28)};
        a.max_speed = added % 15 == 0 ? 60.0f : frand(&seed, 1.0f, 3.0f);
        a.max_force = 50.0f;
        a.walls.weight = 0.0f;
        const float ang = frand(&seed, 0.0f, 6.2831853f);
        a.goal = (crowd_goal){.mode = CROWD_GOAL_SEEK, .target = {ox + 100.0f * cosf(ang), oy + 100.0f * sinf(ang)}, .slow_radius = 1.0f, .weight = 1.0f};
        crowd_agent_id id;
        if (crowd_agent_add(w, &a, &id) == CROWD_OK) ++added;
    }
    crowd_vec2 start[N], p[N];
    int n;
    cr_assert_eq(crowd_world_get_agents(w, NULL, start, NULL, N, &n), CROWD_OK);
    for (int t = 0; t < 300; ++t) {
        cr_assert_eq(crowd_world_step(w), CROWD_OK);
        const double c = min_clearance(w);
        cr_assert_geq(c, 0.0, "tick %d: clearance %g", t, c);
    }
    cr_assert_eq(crowd_world_get_agents(w, NULL, p, NULL, N, &n), CROWD_OK);
    int pressed = 0;
    for (int i = 0; i < n; ++i) {
        cr_assert(fabsf(p[i].x - ox) < 30.0f && fabsf(p[i].y - oy) < 30.0f, "agent %d left", i);
        cr_assert((p[i].y > oy) == (start[i].y > oy), "agent %d crossed", i);
        const float dx = fabsf(p[i].x - ox), dy = p[i].y - oy;
        pressed += dx > 28.0f || fabsf(dy) > 28.0f || (dy > -2.5f && dy < 3.0f);
    }
    // The scene does press: most agents ended against a wall (more than a metre away here, where
    // the clamp's skin covers the positions' rounding).
    cr_assert_gt(pressed, N / 2, "%d agents at the walls", pressed);
    crowd_world_destroy(w);
}

// Obstacles added and removed between steps: a wall in the way stops the agents, removing it
// lets them through, adding one over an agent is refused.
Test(walls_guarantee, obstacles_added_and_removed_at_runtime) {
    crowd_world* w = walls_world_straight(2, 0.1f);
    crowd_agent_id ids[20];
    for (int i = 0; i < 20; ++i) {
        crowd_agent_def a = crowd_agent_def_default();
        a.position = (crowd_vec2){-3.0f, (float)i * 1.5f - 15.0f};
        a.goal = (crowd_goal){.mode = CROWD_GOAL_SEEK, .target = {10.0f, a.position.y}, .slow_radius = 1.0f, .weight = 1.0f};
        cr_assert_eq(crowd_agent_add(w, &a, &ids[i]), CROWD_OK);
    }
    const crowd_vec2 gate[2] = {{0, -20}, {0, 20}};
    crowd_obstacle_id g = wall_add(w, CROWD_OBSTACLE_WALL, gate, 2);
    for (int t = 0; t < 60; ++t) {
        cr_assert_eq(crowd_world_step(w), CROWD_OK);
        cr_assert_geq(min_clearance(w), 0.0);
    }
    crowd_vec2 p;
    for (int i = 0; i < 20; ++i) {
        cr_assert_eq(crowd_agent_get_position(w, ids[i], &p), CROWD_OK);
        cr_assert(p.x < 0.0f && p.x > -1.0f, "agent %d at x %g: stopped by the wall", i, p.x);
    }
    // The agents stand right at the wall: putting it back over them is refused.
    cr_assert_eq(crowd_obstacle_remove(w, g), CROWD_OK);
    crowd_obstacle_id again;
    const crowd_vec2 near[2] = {{-0.2f, -20}, {-0.2f, 20}};
    cr_assert_eq(crowd_obstacle_add(w, CROWD_OBSTACLE_WALL, near, 2, &again),
                 CROWD_ERR_INSIDE_OBSTACLE);
    for (int t = 0; t < 60; ++t) cr_assert_eq(crowd_world_step(w), CROWD_OK);
    for (int i = 0; i < 20; ++i) {
        cr_assert_eq(crowd_agent_get_position(w, ids[i], &p), CROWD_OK);
        cr_assert_gt(p.x, 3.0f, "agent %d passed once the wall was gone (%g %g)", i, p.x, p.y);
    }
    // A new wall ahead of them stops them again.
    const crowd_vec2 ahead[2] = {{12, -20}, {12, 20}};
    wall_add(w, CROWD_OBSTACLE_WALL, ahead, 2);
    for (int i = 0; i < 20; ++i)
        cr_assert_eq(crowd_agent_set_goal(
                         w, ids[i], &(crowd_goal){.mode = CROWD_GOAL_SEEK, .target = {30.0f, 0.0f}, .slow_radius = 1.0f, .weight = 1.0f}),
                     CROWD_OK);
    for (int t = 0; t < 150; ++t) {
        cr_assert_eq(crowd_world_step(w), CROWD_OK);
        cr_assert_geq(min_clearance(w), 0.0);
    }
    for (int i = 0; i < 20; ++i) {
        cr_assert_eq(crowd_agent_get_position(w, ids[i], &p), CROWD_OK);
        cr_assert(p.x < 12.0f && p.x > 10.0f, "agent %d at x %g", i, p.x);
    }
    crowd_world_destroy(w);
}

// A queue that respawns into a start area mostly covered by a solid block and crossed by a wall:
// no respawn puts a disc over a wall or inside the block, each arrived agent is either back in
// the area's free part or, when every draw was blocked, still where it arrived.
Test(walls_guarantee, respawn_never_places_an_agent_inside_an_obstacle) {
    crowd_world* w = walls_world_straight(2, 0.1f);
    const crowd_vec2 solid[4] = {{-1, 1.5f}, {11, 1.5f}, {11, 11}, {-1, 11}};
    wall_add(w, CROWD_OBSTACLE_POLYGON, solid, 4);
    const crowd_vec2 wall[2] = {{2, 0.75f}, {8, 0.75f}};
    wall_add(w, CROWD_OBSTACLE_WALL, wall, 2);
    crowd_queue_def q = crowd_queue_def_default();
    q.goal = (crowd_vec2){25.0f, 0.5f};
    q.arrival_radius = 1.0f;
    q.on_arrival = CROWD_QUEUE_RESPAWN;
    q.start_min = (crowd_vec2){0, 0};
    q.start_max = (crowd_vec2){10, 10};
    uint64_t seed = 5;
    int added = 0;
    while (added < 40) {
        crowd_agent_def a = crowd_agent_def_default();
        a.position = (crowd_vec2){frand(&seed, 0, 10), frand(&seed, 0, 1.2f)};
        a.max_speed = 2.0f;
        crowd_agent_id id;
        if (crowd_agent_add(w, &a, &id) != CROWD_OK) continue;
        cr_assert_eq(crowd_agent_set_queue(w, id, &q), CROWD_OK);
        ++added;
    }
    int moved = 0, stayed = 0;
    for (int t = 0; t < 500; ++t) {
        cr_assert_eq(crowd_world_step(w), CROWD_OK);
        const double c = min_clearance(w);
        cr_assert_geq(c, 0.0, "tick %d: clearance %g", t, c);
        crowd_arrival arr[40];
        int n;
        cr_assert_eq(crowd_world_get_arrivals(w, arr, 40, &n), CROWD_OK);
        for (int i = 0; i < n; ++i) {
            cr_assert_eq(arr[i].action, CROWD_QUEUE_RESPAWN);
            crowd_vec2 p;
            cr_assert_eq(crowd_agent_get_position(w, arr[i].id, &p), CROWD_OK);
            if (p.x == arr[i].position.x && p.y == arr[i].position.y) {
                ++stayed;
            } else {
                cr_assert(p.x >= 0 && p.x <= 10 && p.y >= 0 && p.y <= 1.2f,
                          "tick %d: respawned at (%g, %g), outside the area's free part", t, p.x,
                          p.y);
                ++moved;
            }
        }
    }
    // Both outcomes happened: most arrivals found a free point, some drew only blocked ones.
    cr_assert_gt(moved, 20, "%d respawns", moved);
    cr_assert_gt(stayed, 0, "%d arrivals with every draw blocked", stayed);
    crowd_world_destroy(w);
}

// A start area wholly inside a solid: the arrived agents stay at the goal, are reported again on
// every step they remain there, and never enter the solid.
Test(walls_guarantee, respawn_into_a_covered_area_keeps_the_agent_where_it_arrived) {
    crowd_world* w = walls_world_straight(1, 0.1f);
    const crowd_vec2 solid[4] = {{-10, -10}, {0, -10}, {0, 0}, {-10, 0}};
    wall_add(w, CROWD_OBSTACLE_POLYGON, solid, 4);
    crowd_agent_def a = crowd_agent_def_default();
    a.position = (crowd_vec2){5, 5};
    crowd_agent_id id;
    cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_OK);
    crowd_queue_def q = crowd_queue_def_default();
    q.goal = (crowd_vec2){8, 5};
    q.on_arrival = CROWD_QUEUE_RESPAWN;
    q.start_min = (crowd_vec2){-8, -8};
    q.start_max = (crowd_vec2){-2, -2};
    cr_assert_eq(crowd_agent_set_queue(w, id, &q), CROWD_OK);
    int reported = 0;
    for (int t = 0; t < 100; ++t) {
        cr_assert_eq(crowd_world_step(w), CROWD_OK);
        reported += crowd_world_arrival_count(w);
        crowd_vec2 p;
        cr_assert_eq(crowd_agent_get_position(w, id, &p), CROWD_OK);
        cr_assert(isfinite(p.x) && isfinite(p.y) && p.x > 0.0f, "tick %d: at (%g, %g)", t, p.x,
                  p.y);
    }
    // It arrived after about 2 s and was reported on most of the steps since.
    cr_assert_gt(reported, 50, "%d arrivals", reported);
    crowd_vec2 p;
    cr_assert_eq(crowd_agent_get_position(w, id, &p), CROWD_OK);
    cr_assert_lt(hypotf(p.x - 8.0f, p.y - 5.0f), 0.5f, "ended at (%g, %g)", p.x, p.y);
    crowd_world_destroy(w);
}
