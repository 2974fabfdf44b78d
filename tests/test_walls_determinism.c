// Determinism with walls: the same walled world (rooms, solids, a door, queues, path followers and
// followers, an obstacle added and one removed mid-run, a teleport) stepped on 1, 2, 3 and 8
// threads stays bit-identical, and no agent ever overlaps a wall. The same world with one more
// wall far away, which no agent ever comes near, moves every agent exactly the same: its walls
// are then found through the hashed table alone, as the direct index over so large a box is not
// built, so the two ways of finding a cell's walls agree.
#include "walls_helpers.h"
#include "world_helpers.h"

static const int thread_counts[] = {1, 2, 3, 8};
enum { WORLDS = sizeof thread_counts / sizeof thread_counts[0], AGENTS = 240 };

typedef struct scene {
    crowd_world* w;
    crowd_agent_id ids[AGENTS];
    crowd_obstacle_id gate;
} scene;

// straight: agents head straight at their goals (no navigation).
static void build(scene* sc, int threads, bool far_wall, bool straight) {
    sc->w = straight ? walls_world_straight(threads, 0.1f) : walls_world(threads, 0.1f);
    crowd_world* w = sc->w;
    if (far_wall) {
        const crowd_vec2 far[2] = {{9e5f, 9e5f}, {9e5f + 1.0f, 9e5f}};
        wall_add(w, CROWD_OBSTACLE_WALL, far, 2);
    }
    // A 30 x 20 room with a 1.5 m door east, two pillars inside, a gate wall across the west part.
    const crowd_vec2 room[6] = {{30, 9.25f}, {30, 0}, {0, 0}, {0, 20}, {30, 20}, {30, 10.75f}};
    wall_add(w, CROWD_OBSTACLE_WALL, room, 6);
    const crowd_vec2 p1[4] = {{10, 8}, {12, 8}, {12, 10}, {10, 10}};
    const crowd_vec2 p2[5] = {{18, 12}, {21, 12}, {21, 15}, {19.5f, 13.5f}, {18, 15}};
    wall_add(w, CROWD_OBSTACLE_POLYGON, p1, 4);
    wall_add(w, CROWD_OBSTACLE_POLYGON, p2, 5);
    const crowd_vec2 gate[2] = {{6, 2}, {6, 12}};
    sc->gate = wall_add(w, CROWD_OBSTACLE_WALL, gate, 2);
    const crowd_vec2 route[4] = {{3, 3}, {25, 3}, {25, 17}, {3, 17}};
    crowd_path_id path;
    cr_assert_eq(crowd_path_create(w, route, 4, &path), CROWD_OK);
    uint64_t seed = 21;
    for (int i = 0; i < AGENTS;) {
        crowd_agent_def a = crowd_agent_def_default();
        a.position = (crowd_vec2){frand(&seed, 0.5f, 29.5f), frand(&seed, 0.5f, 19.5f)};
        a.max_speed = frand(&seed, 1.0f, 2.5f);
        if (i % 7 == 0) a.walls = (crowd_wall_def){frand(&seed, 0.0f, 2.0f), 0.5f};
        if (crowd_agent_add(w, &a, &sc->ids[i]) != CROWD_OK) continue; // in a wall: draw again
        const int kind = i % 4;
        if (kind == 0) {
            crowd_queue_def q = crowd_queue_def_default();
            q.goal = (crowd_vec2){40.0f, 10.0f};
            q.on_arrival = CROWD_QUEUE_RESPAWN;
            q.start_min = (crowd_vec2){1.0f, 1.0f};
            q.start_max = (crowd_vec2){5.0f, 5.0f};
            cr_assert_eq(crowd_agent_set_queue(w, sc->ids[i], &q), CROWD_OK);
        } else if (kind == 1) {
            crowd_path_follow_def f = crowd_path_follow_def_default();
            f.path = path;
            cr_assert_eq(crowd_agent_set_path(w, sc->ids[i], &f), CROWD_OK);
        } else if (kind == 2) {
            crowd_follow_def f = crowd_follow_def_default();
            cr_assert_eq(crowd_agent_follow(w, sc->ids[i], sc->ids[i - 1], &f), CROWD_OK);
        } else {
            crowd_goal g = {.mode = CROWD_GOAL_ARRIVE,
                            .target = {frand(&seed, 1, 29), frand(&seed, 1, 19)},
                            .slow_radius = 1,
                            .weight = 1};
            cr_assert_eq(crowd_agent_set_goal(w, sc->ids[i], &g), CROWD_OK);
        }
        ++i;
    }
}

// The events of tick t: the gate removed, a bar added, a teleport.
static void events(scene* sc, int t) {
    crowd_world* w = sc->w;
    if (t == 150) cr_assert_eq(crowd_obstacle_remove(w, sc->gate), CROWD_OK);
    if (t == 180) {
        const crowd_vec2 bar[2] = {{28, 1}, {28, 6}};
        crowd_obstacle_id id;
        const crowd_status st = crowd_obstacle_add(w, CROWD_OBSTACLE_WALL, bar, 2, &id);
        cr_assert(st == CROWD_OK || st == CROWD_ERR_INSIDE_OBSTACLE);
    }
    if (t == 200) crowd_agent_set_position(w, sc->ids[3], (crowd_vec2){15, 5});
}

Test(walls_determinism, walled_world_is_bit_identical_on_1_2_3_8_threads) {
    scene sc[WORLDS];
    for (int k = 0; k < WORLDS; ++k) build(&sc[k], thread_counts[k], false, false);
    const char* s = getenv("CROWD_TEST_SCALE");
    const int ticks = s && strcmp(s, "small") == 0 ? 200 : 600;
    for (int t = 0; t < ticks; ++t) {
        for (int k = 0; k < WORLDS; ++k) {
            events(&sc[k], t);
            cr_assert_eq(crowd_world_step(sc[k].w), CROWD_OK);
        }
        const uint64_t h = crowd_world_state_hash(sc[0].w);
        for (int k = 1; k < WORLDS; ++k)
            cr_assert_eq(crowd_world_state_hash(sc[k].w), h, "tick %d, %d threads", t,
                         thread_counts[k]);
        if (t % 20 == 0) cr_assert_geq(min_clearance(sc[0].w), 0.0, "tick %d", t);
    }
    for (int k = 0; k < WORLDS; ++k) crowd_world_destroy(sc[k].w);
}

Test(walls_determinism, a_far_wall_changes_no_move) {
    scene near, far;
    // A far wall makes the navigation grid too large to lay (crowd/nav.h: navigation suspended):
    // this comparison is about the walls alone, so both worlds head straight.
    build(&near, 1, false, true);
    build(&far, 1, true, true);
    crowd_vec2 pa[AGENTS], pb[AGENTS], va[AGENTS], vb[AGENTS];
    crowd_agent_id ia[AGENTS], ib[AGENTS];
    for (int t = 0; t < 240; ++t) {
        events(&near, t);
        events(&far, t);
        cr_assert_eq(crowd_world_step(near.w), CROWD_OK);
        cr_assert_eq(crowd_world_step(far.w), CROWD_OK);
        int na, nb;
        cr_assert_eq(crowd_world_get_agents(near.w, ia, pa, va, AGENTS, &na), CROWD_OK);
        cr_assert_eq(crowd_world_get_agents(far.w, ib, pb, vb, AGENTS, &nb), CROWD_OK);
        cr_assert_eq(na, nb);
        for (int i = 0; i < na; ++i)
            cr_assert(pa[i].x == pb[i].x && pa[i].y == pb[i].y && va[i].x == vb[i].x &&
                          va[i].y == vb[i].y,
                      "tick %d, agent %d", t, i);
    }
    crowd_world_destroy(near.w);
    crowd_world_destroy(far.w);
}
