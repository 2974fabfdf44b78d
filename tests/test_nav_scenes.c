// Routed crowds around walls, measured through the public API only: a detour round a long wall,
// a way out of a cup and round a block (to a goal on the grid and to one beyond its margin, where
// the field is seeded from the grid's border), a way closed mid-run (the crowd turns back), a goal
// walled off (agents stop at the nearest point they can reach, at rest), and a room emptied by an
// exit set through both of its doors. Every step of every scene checks each agent's distance to
// every wall segment (the test's own computation) and that every position and velocity is
// finite. An agent counts as arrived when it comes within ARRIVE_RADIUS of its goal (or of an exit
// of its set); it is then removed, so the ones behind are not held up by a crowd standing on the
// goal. In the detour and the cup, no agent that has not arrived may stay below SLOW_SPEED for
// more than MAX_STALL seconds.
#include <stdio.h>
#include <string.h>

#include "walls_helpers.h"
#include "world_helpers.h"

#define DT 0.1f
#define ARRIVE_RADIUS 1.0f
#define SLOW_SPEED 0.05f // below this, an agent that has not arrived counts as stalled
#define MAX_STALL 10.0f  // seconds

enum { MAXA = 64 };

typedef struct run {
    crowd_world* w;
    int n;
    crowd_agent_id id[MAXA];
    bool gone[MAXA];   // arrived and removed
    float at[MAXA];    // arrival time in s (-1: not yet)
    int exit_of[MAXA]; // the target it arrived at
    float slow[MAXA];  // seconds in a row below SLOW_SPEED, not arrived
    float worst_slow;  // the longest such stretch of any agent
    int worst_slow_agent;
    double min_clear; // the least distance minus radius of any agent to any wall segment
    float t;          // seconds stepped
    const crowd_vec2* targets;
    int ntargets;
    int left; // agents not yet arrived
} run;

static crowd_world* nav_world(int threads) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = threads;
    wd.dt = DT;
    crowd_world* w = NULL;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    return w;
}

static void run_init(run* r, crowd_world* w, const crowd_vec2* targets, int ntargets) {
    memset(r, 0, sizeof *r);
    r->w = w;
    r->targets = targets;
    r->ntargets = ntargets;
    r->min_clear = INFINITY;
    r->worst_slow_agent = -1;
}

static crowd_agent_id run_add(run* r, crowd_vec2 at, const crowd_goal* goal) {
    cr_assert_lt(r->n, MAXA);
    crowd_agent_def a = crowd_agent_def_default();
    a.position = at;
    a.goal = *goal;
    const int i = r->n++;
    cr_assert_eq(crowd_agent_add(r->w, &a, &r->id[i]), CROWD_OK, "agent %d at (%g, %g)", i,
                 (double)at.x, (double)at.y);
    r->at[i] = -1.0f;
    r->exit_of[i] = -1;
    r->left++;
    return r->id[i];
}

// One step, then the checks and the arrivals.
static void run_step(run* r) {
    cr_assert_eq(crowd_world_step(r->w), CROWD_OK);
    r->t += DT;
    const double c = min_clearance(r->w);
    if (c < r->min_clear) r->min_clear = c;
    cr_assert_geq(c, -1e-3, "an agent %.4f m into a wall at %.1f s", -c, (double)r->t);
    for (int i = 0; i < r->n; ++i) {
        if (r->gone[i]) continue;
        crowd_vec2 p, v;
        cr_assert_eq(crowd_agent_get_position(r->w, r->id[i], &p), CROWD_OK);
        cr_assert_eq(crowd_agent_get_velocity(r->w, r->id[i], &v), CROWD_OK);
        cr_assert(isfinite(p.x) && isfinite(p.y) && isfinite(v.x) && isfinite(v.y),
                  "agent %d not finite at %.1f s", i, (double)r->t);
        int k = 0;
        while (k < r->ntargets &&
               hypotf(p.x - r->targets[k].x, p.y - r->targets[k].y) >= ARRIVE_RADIUS)
            ++k;
        if (k < r->ntargets) {
            r->gone[i] = true;
            r->at[i] = r->t;
            r->exit_of[i] = k;
            r->left--;
            cr_assert_eq(crowd_agent_remove(r->w, r->id[i]), CROWD_OK);
            continue;
        }
        r->slow[i] = hypotf(v.x, v.y) < SLOW_SPEED ? r->slow[i] + DT : 0.0f;
        if (r->slow[i] > r->worst_slow) r->worst_slow = r->slow[i], r->worst_slow_agent = i;
    }
}

static crowd_goal arrive_at(crowd_vec2 p) {
    crowd_goal g = crowd_goal_default();
    g.mode = CROWD_GOAL_ARRIVE;
    g.target = p;
    return g;
}

static float hypot2(crowd_vec2 a, crowd_vec2 b) {
    return hypotf(a.x - b.x, a.y - b.y);
}

// The length of the polyline p, q[0], ..., q[n-1].
static float poly_len(crowd_vec2 p, const crowd_vec2* q, int n) {
    float l = 0.0f;
    for (int k = 0; k < n; ++k) l += hypot2(k ? q[k - 1] : p, q[k]);
    return l;
}

// The earliest arrivals: the `first` agents to arrive each within 1.5 times its way / max_speed
// plus `slack` seconds (ways given per agent), and everyone arrived.
static void check_arrivals(const run* r, const float* way, int first, float slack) {
    const float vmax = crowd_agent_def_default().max_speed;
    int order[MAXA], m = 0;
    for (int i = 0; i < r->n; ++i) {
        cr_assert(r->gone[i], "agent %d never arrived (%.0f s)", i, (double)r->t);
        order[m++] = i;
    }
    for (int a = 0; a < m; ++a) // by arrival time
        for (int b = a + 1; b < m; ++b)
            if (r->at[order[b]] < r->at[order[a]]) {
                const int t = order[a];
                order[a] = order[b], order[b] = t;
            }
    for (int k = 0; k < first && k < m; ++k) {
        const int i = order[k];
        const float bound = 1.5f * way[i] / vmax + slack;
        cr_assert_leq(r->at[i], bound, "arrival %d (agent %d): %.1f s, bound %.1f s (way %.1f m)",
                      k + 1, i, (double)r->at[i], (double)bound, (double)way[i]);
    }
}

static void add_walls(crowd_world* w, crowd_obstacle_kind kind, const crowd_vec2* p, int n) {
    wall_add(w, kind, p, n);
}

// ---- (a) detour ---------------------------------------------------------------------------------

// A 30 m wall from (-18, 0) to (12, 0); 20 agents 3.5 to 6.5 m south of it, the goal 5 m north:
// 10 m away in a straight line, about 27 m round the wall's east end.
Test(nav_scenes, a_crowd_detours_round_a_long_wall) {
    crowd_world* w = nav_world(2);
    const crowd_vec2 wall[2] = {{-18, 0}, {12, 0}};
    add_walls(w, CROWD_OBSTACLE_WALL, wall, 2);
    const crowd_vec2 goal = {0, 5};
    run r;
    run_init(&r, w, &goal, 1);
    const crowd_goal g = arrive_at(goal);
    float way[MAXA];
    const crowd_vec2 end = {12.3f, 0.0f}; // the east end, the clearance beyond it
    for (int i = 0; i < 20; ++i) {
        const crowd_vec2 p = {-2.0f + (float)(i % 5), -3.5f - (float)(i / 5)};
        run_add(&r, p, &g);
        const crowd_vec2 q[2] = {end, goal};
        way[i] = poly_len(p, q, 2);
    }
    // Before any step: every agent on the grid is routed round the east end (its aim is on the
    // end's side); the ones beyond the grid's margin head straight until they reach it.
    cr_assert_eq(crowd_world_nav_update(w), CROWD_OK);
    const crowd_nav_stats st = crowd_world_nav_stats(w);
    int routed = 0;
    for (int i = 0; i < 20; ++i) {
        crowd_route_info ri;
        crowd_vec2 p;
        cr_assert_eq(crowd_agent_get_route(w, r.id[i], &ri), CROWD_OK);
        cr_assert_eq(crowd_agent_get_position(w, r.id[i], &p), CROWD_OK);
        if (p.y < st.grid_origin.y) {
            cr_assert_eq(ri.state, CROWD_ROUTE_STATE_STRAIGHT, "agent %d off the grid", i);
            continue;
        }
        routed++;
        cr_assert_eq(ri.state, CROWD_ROUTE_STATE_ROUTED, "agent %d: state %d", i, ri.state);
        cr_assert(ri.destination.x == goal.x && ri.destination.y == goal.y);
        cr_assert_gt(ri.aim.x, 9.0f, "agent %d aims at (%.2f, %.2f)", i, (double)ri.aim.x,
                     (double)ri.aim.y);
        cr_assert(ri.distance > way[i] - 0.5f && ri.distance < way[i] * 1.1f + 1.0f,
                  "agent %d: route %.2f m, way round the end %.2f m", i, (double)ri.distance,
                  (double)way[i]);
    }
    cr_assert_geq(routed, 10);
    while (r.left > 0 && r.t < 120.0f) run_step(&r);
    float first = INFINITY, last = 0.0f;
    for (int i = 0; i < r.n; ++i) {
        if (r.at[i] >= 0.0f && r.at[i] < first) first = r.at[i];
        last = r.at[i] > last ? r.at[i] : last;
    }
    printf("detour: %d of 20 arrived, first at %.1f s, last at %.1f s (straight-line time %.1f s, "
           "way round %.1f s); closest to the wall %.4f m past the radius; longest stall %.1f s\n",
           20 - r.left, (double)first, (double)last, 10.0 / 1.5, (double)(way[2] / 1.5f),
           r.min_clear, (double)r.worst_slow);
    check_arrivals(&r, way, 5, 3.0f);
    cr_assert_leq(r.worst_slow, MAX_STALL, "agent %d below %.2f m/s for %.1f s", r.worst_slow_agent,
                  (double)SLOW_SPEED, (double)r.worst_slow);
    cr_assert_geq(r.min_clear, -1e-3);
    crowd_world_destroy(w);
}

// ---- (b) a cup and a block ----------------------------------------------------------------------

// Twelve agents inside a U-shaped cup (x in [2, 5], y in [-3, 3]) whose open side faces away from
// the goal (west), four more behind the cup, and a solid block (x in [8, 11], y in [-3, 3])
// between the cup and the goal: out of the cup westward, round its corner, past the block.
static void cup_and_block(const char* name, crowd_vec2 goal) {
    crowd_world* w = nav_world(2);
    const crowd_vec2 cup[4] = {{2, -3}, {5, -3}, {5, 3}, {2, 3}};
    const crowd_vec2 block[4] = {{8, -3}, {11, -3}, {11, 3}, {8, 3}};
    add_walls(w, CROWD_OBSTACLE_WALL, cup, 4);
    add_walls(w, CROWD_OBSTACLE_POLYGON, block, 4);
    run r;
    run_init(&r, w, &goal, 1);
    const crowd_goal g = arrive_at(goal);
    float way[MAXA];
    for (int i = 0; i < 16; ++i) {
        const crowd_vec2 p =
            i < 12 ? (crowd_vec2){2.8f + (float)(i % 3) * 0.9f, -2.2f + (float)(i / 3) * 1.45f}
                   : (crowd_vec2){-3.0f, -3.0f + 2.0f * (float)(i - 12)};
        run_add(&r, p, &g);
        const float s = p.y >= 0.0f ? 1.0f : -1.0f; // round the nearer corners
        const crowd_vec2 q[3] = {{1.7f, 3.3f * s}, {11.3f, 3.3f * s}, goal};
        way[i] = poly_len(p, q, 3);
    }
    cr_assert_eq(crowd_world_nav_update(w), CROWD_OK);
    for (int i = 0; i < 12; ++i) { // inside the cup: first out west
        crowd_route_info ri;
        cr_assert_eq(crowd_agent_get_route(w, r.id[i], &ri), CROWD_OK);
        cr_assert_eq(ri.state, CROWD_ROUTE_STATE_ROUTED, "%s", name);
        crowd_vec2 p;
        cr_assert_eq(crowd_agent_get_position(w, r.id[i], &p), CROWD_OK);
        cr_assert_lt(ri.aim.x, p.x, "%s: agent %d at (%.2f, %.2f) aims at (%.2f, %.2f)", name, i,
                     (double)p.x, (double)p.y, (double)ri.aim.x, (double)ri.aim.y);
    }
    while (r.left > 0 && r.t < 120.0f) run_step(&r);
    float first = INFINITY, last = 0.0f;
    for (int i = 0; i < r.n; ++i) {
        if (r.at[i] >= 0.0f && r.at[i] < first) first = r.at[i];
        last = r.at[i] > last ? r.at[i] : last;
    }
    printf("cup and block, %s: %d of %d arrived, first at %.1f s, last at %.1f s; closest to a "
           "wall %.4f m past the radius; longest stall %.1f s\n",
           name, r.n - r.left, r.n, (double)first, (double)last, r.min_clear, (double)r.worst_slow);
    for (int i = 0; i < r.n; ++i) {
        if (r.gone[i]) continue;
        crowd_vec2 p;
        crowd_route_info ri;
        cr_assert_eq(crowd_agent_get_position(w, r.id[i], &p), CROWD_OK);
        cr_assert_eq(crowd_agent_get_route(w, r.id[i], &ri), CROWD_OK);
        printf(
            "  not arrived: agent %d at (%.2f, %.2f), state %d, aim (%.2f, %.2f), route %.2f m\n",
            i, (double)p.x, (double)p.y, ri.state, (double)ri.aim.x, (double)ri.aim.y,
            (double)ri.distance);
    }
    check_arrivals(&r, way, 4, 3.0f);
    cr_assert_leq(r.worst_slow, MAX_STALL, "agent %d below %.2f m/s for %.1f s", r.worst_slow_agent,
                  (double)SLOW_SPEED, (double)r.worst_slow);
    crowd_world_destroy(w);
}

// The goal 3 m past the block, on the grid.
Test(nav_scenes, a_crowd_leaves_a_cup_and_passes_a_block) {
    cup_and_block("goal on the grid", (crowd_vec2){14, 0});
}

// The goal 9 m past the block: beyond the grid's margin round the obstacles.
Test(nav_scenes, a_crowd_leaves_a_cup_and_passes_a_block_to_a_goal_off_the_grid) {
    cup_and_block("goal off the grid", (crowd_vec2){20, 0});
}

// ---- (c) a way closed mid-run -------------------------------------------------------------------

// A 40 x 14 m hall round a solid block (x in [10, 30], y in [3, 10.5]): a northern way 3.5 m wide
// and a southern one 3 m wide. Agents start in the north-west, so the northern way is shorter
// (about 33 m against 37 m). Once they are in it, a wall closes it at x = 26: they turn back,
// round the block's west end, and arrive by the southern way.
Test(nav_scenes, a_crowd_turns_back_when_its_way_is_closed) {
    crowd_world* w = nav_world(2);
    const crowd_vec2 hall[5] = {{0, 0}, {40, 0}, {40, 14}, {0, 14}, {0, 0}};
    const crowd_vec2 block[4] = {{10, 3}, {30, 3}, {30, 10.5f}, {10, 10.5f}};
    add_walls(w, CROWD_OBSTACLE_WALL, hall, 5);
    add_walls(w, CROWD_OBSTACLE_POLYGON, block, 4);
    const crowd_vec2 goal = {36, 7};
    run r;
    run_init(&r, w, &goal, 1);
    const crowd_goal g = arrive_at(goal);
    const int n = 12;
    for (int i = 0; i < n; ++i)
        run_add(&r, (crowd_vec2){2.0f + (float)(i % 4) * 1.2f, 8.5f + (float)(i / 4) * 1.3f}, &g);
    // Until the first is 16 m along the northern way; nobody may take the southern one.
    bool south[MAXA] = {false}, back[MAXA] = {false};
    float lead = 0.0f;
    while (lead < 16.0f && r.t < 60.0f) {
        run_step(&r);
        lead = 0.0f;
        for (int i = 0; i < n; ++i) {
            crowd_vec2 p;
            cr_assert_eq(crowd_agent_get_position(w, r.id[i], &p), CROWD_OK);
            cr_assert(!(p.x > 10.0f && p.y < 3.0f), "agent %d took the southern way", i);
            if (p.x > lead && p.y > 10.5f) lead = p.x;
        }
    }
    cr_assert_geq(lead, 16.0f, "nobody got 16 m along the northern way in 60 s");
    cr_assert_eq(r.left, n);
    const float closed_at = r.t;
    int in_north = 0;
    bool was_north[MAXA] = {false};
    for (int i = 0; i < n; ++i) {
        crowd_vec2 p;
        cr_assert_eq(crowd_agent_get_position(w, r.id[i], &p), CROWD_OK);
        was_north[i] = p.x > 10.0f && p.y > 10.5f;
        in_north += was_north[i];
    }
    cr_assert_geq(in_north, n / 2, "only %d of %d in the northern way", in_north, n);
    const crowd_vec2 gate[2] = {{26, 10.5f}, {26, 14}};
    crowd_obstacle_id gid;
    cr_assert_eq(crowd_obstacle_add(w, CROWD_OBSTACLE_WALL, gate, 2, &gid), CROWD_OK);
    for (int i = 0; i < n; ++i) {
        crowd_route_info ri;
        cr_assert_eq(crowd_agent_get_route(w, r.id[i], &ri), CROWD_OK);
        cr_assert_eq(ri.state, CROWD_ROUTE_STATE_PENDING, "agent %d: state %d before the rebuild",
                     i, ri.state);
    }
    run_step(&r);
    // On that step the ones in the northern way turn back: their way is longer than the one
    // ahead was, and they aim back west, or at the centre of a field cell next to theirs: with
    // the default pedestrian goals (CROWD_GOAL_PEDESTRIAN) one of them stood at (13.51, 11.00),
    // on a cell's edge by the block's clearance band, and aimed first at (13.75, 11.25).
    for (int i = 0; i < n; ++i) {
        if (!was_north[i]) continue;
        crowd_route_info ri;
        crowd_vec2 p;
        cr_assert_eq(crowd_agent_get_route(w, r.id[i], &ri), CROWD_OK);
        cr_assert_eq(crowd_agent_get_position(w, r.id[i], &p), CROWD_OK);
        cr_assert_eq(ri.state, CROWD_ROUTE_STATE_ROUTED);
        cr_assert(ri.aim.x < p.x || hypot2(ri.aim, p) < 0.75f,
                  "agent %d at (%.2f, %.2f) still aims at (%.2f, %.2f)", i, (double)p.x,
                  (double)p.y, (double)ri.aim.x, (double)ri.aim.y);
        cr_assert_gt(ri.distance, hypot2(p, goal) + 5.0f);
    }
    while (r.left > 0 && r.t < closed_at + 120.0f) {
        run_step(&r);
        for (int i = 0; i < n; ++i) {
            if (r.gone[i]) continue;
            crowd_vec2 p, v;
            cr_assert_eq(crowd_agent_get_position(w, r.id[i], &p), CROWD_OK);
            cr_assert_eq(crowd_agent_get_velocity(w, r.id[i], &v), CROWD_OK);
            cr_assert(!(p.x > 26.0f && p.y > 10.5f), "agent %d got past the closed way", i);
            south[i] |= p.x > 12.0f && p.x < 28.0f && p.y < 3.0f;
            back[i] |= v.x < -0.3f;
        }
    }
    float last = 0.0f;
    for (int i = 0; i < n; ++i) last = r.at[i] > last ? r.at[i] : last;
    printf("closed way: %d in the northern way when it closed at %.1f s; %d of %d arrived, the "
           "last at %.1f s; longest stall %.1f s\n",
           in_north, (double)closed_at, n - r.left, n, (double)last, (double)r.worst_slow);
    for (int i = 0; i < n; ++i) {
        cr_assert(r.gone[i], "agent %d never arrived", i);
        cr_assert(south[i], "agent %d arrived without taking the southern way", i);
        if (was_north[i]) cr_assert(back[i], "agent %d never walked back west", i);
    }
    // Back out of the northern way (up to 16 m), round the block and along the southern way:
    // at most about 16 + 8 + 37 m, 41 s at 1.5 m/s.
    cr_assert_leq(last - closed_at, 1.5f * 61.0f / 1.5f + 10.0f);
    cr_assert_leq(r.worst_slow, MAX_STALL, "agent %d below %.2f m/s for %.1f s", r.worst_slow_agent,
                  (double)SLOW_SPEED, (double)r.worst_slow);
    crowd_world_destroy(w);
}

// ---- (d) a goal walled off ----------------------------------------------------------------------

// The goal (11.2, 0.1) inside a closed box of walls (x in [10, 13], y in [-3, 3]), nearest its
// west side; six agents start west of it. They go to the box's west side, the nearest they can
// get, and stay there at rest.
Test(nav_scenes, agents_with_a_walled_off_goal_stop_at_its_nearest_side) {
    crowd_world* w = nav_world(2);
    const crowd_vec2 box[5] = {{10, -3}, {13, -3}, {13, 3}, {10, 3}, {10, -3}};
    add_walls(w, CROWD_OBSTACLE_WALL, box, 5);
    const crowd_vec2 goal = {11.2f, 0.1f};
    run r;
    run_init(&r, w, NULL, 0); // nobody arrives
    const crowd_goal g = arrive_at(goal);
    const int n = 6;
    for (int i = 0; i < n; ++i)
        run_add(&r, (crowd_vec2){0.5f + (float)(i % 3) * 1.2f, -1.5f + (float)(i / 3) * 3.0f}, &g);
    const int steps = 600, last = 100; // 60 s; the last 10 s are checked for rest
    crowd_vec2 start[MAXA];
    float fastest = 0.0f;
    for (int t = 0; t < steps; ++t) {
        run_step(&r);
        if (t == steps - last)
            for (int i = 0; i < n; ++i)
                cr_assert_eq(crowd_agent_get_position(w, r.id[i], &start[i]), CROWD_OK);
        if (t < steps - last) continue;
        for (int i = 0; i < n; ++i) {
            crowd_vec2 v;
            crowd_route_info ri;
            cr_assert_eq(crowd_agent_get_velocity(w, r.id[i], &v), CROWD_OK);
            cr_assert_eq(crowd_agent_get_route(w, r.id[i], &ri), CROWD_OK);
            cr_assert_eq(ri.state, CROWD_ROUTE_STATE_UNREACHABLE, "agent %d: state %d", i,
                         ri.state);
            cr_assert(isfinite(ri.distance) && isfinite(ri.aim.x) && isfinite(ri.aim.y));
            const float s = hypotf(v.x, v.y);
            fastest = s > fastest ? s : fastest;
        }
    }
    float moved = 0.0f, far = 0.0f;
    for (int i = 0; i < n; ++i) {
        crowd_vec2 p;
        cr_assert_eq(crowd_agent_get_position(w, r.id[i], &p), CROWD_OK);
        const float m = hypot2(p, start[i]);
        moved = m > moved ? m : moved;
        const float d = hypot2(p, (crowd_vec2){10, 0}); // the west side's middle
        far = d > far ? d : far;
        cr_assert_lt(p.x, 10.0f, "agent %d at (%.2f, %.2f), not by the west side", i, (double)p.x,
                     (double)p.y);
    }
    printf("walled-off goal: after 60 s the farthest agent is %.2f m from the box's west side; "
           "in the last 10 s the fastest went %.4f m/s and the farthest moved %.4f m\n",
           (double)far, (double)fastest, (double)moved);
    crowd_world_destroy(w);
    cr_assert_lt(far, 2.5f, "an agent ended %.2f m from the box's west side", (double)far);
    cr_assert_lt(fastest, SLOW_SPEED, "an agent still moved at %.3f m/s", (double)fastest);
    cr_assert_lt(moved, 0.2f, "an agent moved %.3f m in the last 10 s", (double)moved);
}

// ---- (e) an exit set ----------------------------------------------------------------------------

// A 20 x 10 m room with a 2 m door in the middle of its west and of its east wall; an exit set
// with a point 3 m outside each door. Ten agents in the west third and ten in the east third all
// leave, each through the door on its side.
Test(nav_scenes, a_room_empties_through_the_nearer_of_two_doors) {
    crowd_world* w = nav_world(2);
    const crowd_vec2 north[4] = {{0, 6}, {0, 10}, {20, 10}, {20, 6}};
    const crowd_vec2 south[4] = {{0, 4}, {0, 0}, {20, 0}, {20, 4}};
    add_walls(w, CROWD_OBSTACLE_WALL, north, 4);
    add_walls(w, CROWD_OBSTACLE_WALL, south, 4);
    const crowd_vec2 exits[2] = {{-3, 5}, {23, 5}};
    crowd_exits_id set;
    cr_assert_eq(crowd_exits_create(w, exits, 2, &set), CROWD_OK);
    run r;
    run_init(&r, w, exits, 2);
    crowd_goal g = crowd_goal_default();
    g.mode = CROWD_GOAL_ARRIVE;
    g.exits = set;
    const int n = 20;
    for (int i = 0; i < n; ++i) {
        const float x = (i < 10 ? 1.5f : 13.5f) + (float)(i % 5) * 1.2f;
        run_add(&r, (crowd_vec2){x, 2.0f + (float)((i / 5) % 2) * 5.5f + (float)(i % 2) * 0.6f},
                &g);
    }
    cr_assert_eq(crowd_world_nav_update(w), CROWD_OK);
    for (int i = 0; i < n; ++i) {
        crowd_route_info ri;
        cr_assert_eq(crowd_agent_get_route(w, r.id[i], &ri), CROWD_OK);
        cr_assert_eq(ri.state, CROWD_ROUTE_STATE_ROUTED);
        const crowd_vec2 want = exits[i < 10 ? 0 : 1];
        cr_assert(ri.destination.x == want.x && ri.destination.y == want.y,
                  "agent %d heads for (%.1f, %.1f)", i, (double)ri.destination.x,
                  (double)ri.destination.y);
    }
    // Destroying the set is refused while the goals name it.
    cr_assert_eq(crowd_exits_destroy(w, set), CROWD_ERR_IN_USE);
    while (r.left > 0 && r.t < 60.0f) run_step(&r);
    int used[2] = {0, 0};
    float last = 0.0f;
    for (int i = 0; i < n; ++i) {
        cr_assert(r.gone[i], "agent %d never left", i);
        cr_assert_eq(r.exit_of[i], i < 10 ? 0 : 1, "agent %d left by the far door", i);
        used[r.exit_of[i]]++;
        last = r.at[i] > last ? r.at[i] : last;
    }
    printf("two doors: %d left west, %d east, the last after %.1f s; longest stall %.1f s\n",
           used[0], used[1], (double)last, (double)r.worst_slow);
    cr_assert(used[0] == 10 && used[1] == 10);
    cr_assert_leq(r.worst_slow, MAX_STALL);
    // Everyone gone: the set is free to destroy.
    cr_assert_eq(crowd_exits_destroy(w, set), CROWD_OK);
    crowd_world_destroy(w);
}

// Doors an agent fits through (0.7 m and 0.8 m, wider than the 0.6 m of an agent of the
// clearance's radius) are open to routes wherever they lie against the cells: the centre test
// alone closed them when no cell centre fell within their narrow walkable band.
Test(nav_scenes, routes_pass_narrow_doors_at_every_offset) {
    static const float widths[] = {0.7f, 0.8f};
    static const float offsets[] = {0.0f, 0.125f, 0.25f, 0.375f};
    for (int k = 0; k < 2; ++k)
        for (int o = 0; o < 4; ++o) {
            const float yc = offsets[o], hw = 0.5f * widths[k];
            crowd_world* w = walls_world(1, DT);
            const crowd_vec2 lo[2] = {{0.0f, -5.0f}, {0.0f, yc - hw}};
            const crowd_vec2 hi[2] = {{0.0f, yc + hw}, {0.0f, 5.0f}};
            wall_add(w, CROWD_OBSTACLE_WALL, lo, 2);
            wall_add(w, CROWD_OBSTACLE_WALL, hi, 2);
            crowd_agent_def d = crowd_agent_def_default();
            d.position = (crowd_vec2){-3.0f, 2.0f};
            d.goal = crowd_goal_default();
            d.goal.mode = CROWD_GOAL_SEEK;
            d.goal.target = (crowd_vec2){3.0f, yc};
            crowd_agent_id id;
            cr_assert_eq(crowd_agent_add(w, &d, &id), CROWD_OK);
            cr_assert_eq(crowd_world_nav_update(w), CROWD_OK);
            crowd_route_info ri = {0};
            cr_assert_eq(crowd_agent_get_route(w, id, &ri), CROWD_OK);
            cr_assert_eq(ri.state, CROWD_ROUTE_STATE_ROUTED, "door %.1f m at y %.3f: state %d",
                         (double)widths[k], (double)yc, (int)ri.state);
            crowd_vec2 p = d.position;
            for (int t = 0; t < 300 && p.x < 1.0f; ++t) {
                crowd_world_step(w);
                cr_assert_eq(crowd_agent_get_position(w, id, &p), CROWD_OK);
                cr_assert(isfinite(p.x) && isfinite(p.y) && fabsf(p.y) < 5.0f);
            }
            cr_assert(p.x >= 1.0f, "door %.1f m at y %.3f: agent stopped at (%.2f, %.2f)",
                      (double)widths[k], (double)yc, (double)p.x, (double)p.y);
            crowd_world_destroy(w);
        }
}

// A 1 m corridor with rooms on both sides, each opening onto it through a 0.9 m door, and short
// stubs of wall between the doors: the corridor is walkable from every door to its open end,
// wherever the floor lies against the cells. The centre test leaves no cell in such a corridor
// with its clearance (RiMEA test 10's floor, docs/validation.md), so the way runs through the
// pinches the grid opens; every step checks that no body reaches into a wall.
Test(nav_scenes, routes_run_along_a_corridor_with_doors_at_every_offset) {
    enum { ROOMS = 5 };
    const float room = 1.5f, door = 0.9f, depth = 2.0f, len = ROOMS * room;
    static const float offsets[] = {0.0f, 0.125f, 0.25f, 0.375f};
    for (int ox = 0; ox < 4; ++ox)
        for (int oy = 0; oy < 4; ++oy) {
            const float x0 = offsets[ox], y0 = offsets[oy]; // the corridor's south-west corner
            crowd_world* w = nav_world(1);
            for (int side = 0; side < 2; ++side) {
                const float y = y0 + (float)side, far = side ? y + depth : y - depth;
                float x = x0;
                for (int c = 0; c < ROOMS; ++c) {
                    const float mid = x0 + ((float)c + 0.5f) * room;
                    const crowd_vec2 stub[2] = {{x, y}, {mid - 0.5f * door, y}};
                    add_walls(w, CROWD_OBSTACLE_WALL, stub, 2);
                    x = mid + 0.5f * door;
                    const crowd_vec2 back[2] = {{x0 + (float)c * room, far},
                                                {x0 + (float)(c + 1) * room, far}};
                    const crowd_vec2 wall[2] = {{x0 + (float)(c + 1) * room, y},
                                                {x0 + (float)(c + 1) * room, far}};
                    add_walls(w, CROWD_OBSTACLE_WALL, back, 2);
                    add_walls(w, CROWD_OBSTACLE_WALL, wall, 2);
                }
                const crowd_vec2 stub[2] = {{x, y}, {x0 + len, y}};
                add_walls(w, CROWD_OBSTACLE_WALL, stub, 2);
            }
            const crowd_vec2 west[2] = {{x0, y0 - depth}, {x0, y0 + 1.0f + depth}};
            add_walls(w, CROWD_OBSTACLE_WALL, west, 2);
            const crowd_vec2 goal = {x0 + len + 2.0f, y0 + 0.5f};
            const crowd_goal g = arrive_at(goal);
            run r;
            run_init(&r, w, &goal, 1);
            for (int side = 0; side < 2; ++side)
                for (int c = 0; c < ROOMS; ++c)
                    run_add(&r,
                            (crowd_vec2){x0 + ((float)c + 0.5f) * room,
                                         side ? y0 + 1.0f + 0.5f * depth : y0 - 0.5f * depth},
                            &g);
            cr_assert_eq(crowd_world_nav_update(w), CROWD_OK);
            for (int i = 0; i < r.n; ++i) {
                crowd_route_info ri = {0};
                cr_assert_eq(crowd_agent_get_route(w, r.id[i], &ri), CROWD_OK);
                cr_assert_eq(ri.state, CROWD_ROUTE_STATE_ROUTED,
                             "offset (%.3f, %.3f), agent %d: state %d", (double)x0, (double)y0, i,
                             (int)ri.state);
            }
            while (r.left > 0 && r.t < 60.0f) run_step(&r);
            cr_assert_eq(r.left, 0, "offset (%.3f, %.3f): %d of %d never arrived", (double)x0,
                         (double)y0, r.left, r.n);
            crowd_world_destroy(w);
        }
}

// A room whose only way out is a plain corridor `width` m wide and 6 m long (no doors along it),
// its floor at offset (x0, y0) against the cells; ten agents in the room route to a goal past the
// corridor's far end. Returns how many of them the field routes; with `walk`, steps until they
// arrive (every step checks that no body reaches into a wall) and asserts that all did.
static int corridor_room(float width, float x0, float y0, bool walk) {
    crowd_world* w = nav_world(1);
    const float len = 6.0f, yc = y0 + 0.5f * width;
    // The room x in [x0 - 4, x0], y in [yc - 3, yc + 3], open east into the corridor.
    const crowd_vec2 room[6] = {
        {x0, y0},        {x0, yc - 3.0f}, {x0 - 4.0f, yc - 3.0f}, {x0 - 4.0f, yc + 3.0f},
        {x0, yc + 3.0f}, {x0, y0 + width}};
    add_walls(w, CROWD_OBSTACLE_WALL, room, 6);
    const crowd_vec2 south[2] = {{x0, y0}, {x0 + len, y0}};
    const crowd_vec2 north[2] = {{x0, y0 + width}, {x0 + len, y0 + width}};
    add_walls(w, CROWD_OBSTACLE_WALL, south, 2);
    add_walls(w, CROWD_OBSTACLE_WALL, north, 2);
    const crowd_vec2 goal = {x0 + len + 2.0f, yc};
    const crowd_goal g = arrive_at(goal);
    run r;
    run_init(&r, w, &goal, 1);
    for (int k = 0; k < 10; ++k)
        run_add(&r,
                (crowd_vec2){x0 - 3.2f + 0.6f * (float)(k % 5), yc - 1.5f + 3.0f * (float)(k / 5)},
                &g);
    cr_assert_eq(crowd_world_nav_update(w), CROWD_OK);
    int routed = 0;
    for (int i = 0; i < r.n; ++i) {
        crowd_route_info ri = {0};
        cr_assert_eq(crowd_agent_get_route(w, r.id[i], &ri), CROWD_OK);
        routed += ri.state == CROWD_ROUTE_STATE_ROUTED;
    }
    if (walk) {
        while (r.left > 0 && r.t < 90.0f) run_step(&r);
        cr_assert_eq(r.left, 0, "corridor %.2f m at (%.3f, %.3f): %d of %d never arrived",
                     (double)width, (double)x0, (double)y0, r.left, r.n);
    }
    crowd_world_destroy(w);
    return routed;
}

// A plain 1 m corridor is walkable wherever it lies against the cells: where both rows of centres
// across it fall within the clearance of a wall (a quarter of a cell from each) it had no
// walkable cell, and its runs of such cells are too long for a door's pinch. A 0.5 m one, which
// an agent of the clearance's radius does not fit, stays closed at every offset.
Test(nav_scenes, a_plain_corridor_is_walkable_at_every_offset_and_a_too_narrow_one_is_not) {
    static const float offsets[] = {0.0f, 0.125f, 0.25f, 0.375f};
    for (int ox = 0; ox < 4; ++ox)
        for (int oy = 0; oy < 4; ++oy) {
            const float x0 = offsets[ox], y0 = offsets[oy];
            cr_assert_eq(corridor_room(1.0f, x0, y0, true), 10, "1 m corridor at (%.3f, %.3f)",
                         (double)x0, (double)y0);
            cr_assert_eq(corridor_room(0.5f, x0, y0, false), 0,
                         "0.5 m corridor at (%.3f, %.3f) routed", (double)x0, (double)y0);
        }
}
