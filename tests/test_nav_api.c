// The navigation API's contract: exit sets and their handles, the checks of goals that route and
// of crowd_nav_def, the route states an agent reports, the field budget, and the stats. Every
// refused call is checked to change nothing (the state hash, the agent's goal, the fields in use).
#include <stdio.h>
#include <string.h>

#include "walls_helpers.h"
#include "world_helpers.h"

static crowd_world* tagged_world(uint16_t tag, crowd_nav_def nav) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = 2;
    wd.world_tag = tag;
    wd.nav = nav;
    crowd_world* w = NULL;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    return w;
}

static crowd_goal goal_at(crowd_goal_mode mode, float x, float y) {
    crowd_goal g = crowd_goal_default();
    g.mode = mode;
    g.target = (crowd_vec2){x, y};
    return g;
}

static crowd_goal goal_exits(crowd_exits_id set) {
    crowd_goal g = crowd_goal_default();
    g.mode = CROWD_GOAL_ARRIVE;
    g.exits = set;
    return g;
}

static crowd_agent_id agent_with(crowd_world* w, float x, float y, crowd_goal g) {
    crowd_agent_def a = crowd_agent_def_default();
    a.position = (crowd_vec2){x, y};
    a.goal = g;
    crowd_agent_id id;
    cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_OK);
    return id;
}

static crowd_route_info route_of(const crowd_world* w, crowd_agent_id id) {
    crowd_route_info r;
    memset(&r, 0xab, sizeof r);
    cr_assert_eq(crowd_agent_get_route(w, id, &r), CROWD_OK);
    return r;
}

static bool goals_equal(crowd_goal a, crowd_goal b) {
    return a.mode == b.mode && a.route == b.route && a.exits.index1 == b.exits.index1 &&
           a.exits.generation == b.exits.generation && a.exits.world == b.exits.world &&
           memcmp(&a.target, &b.target, sizeof a.target) == 0 && a.slow_radius == b.slow_radius &&
           a.weight == b.weight;
}

static crowd_goal goal_of(const crowd_world* w, crowd_agent_id id) {
    crowd_agent_def d;
    cr_assert_eq(crowd_agent_get_def(w, id, &d), CROWD_OK);
    return d.goal;
}

// A wall from (0, 0) to (10, 0): the grid it lays covers about [-5.3, 15.3] x [-5.3, 5.3].
static const crowd_vec2 wall10[2] = {{0, 0}, {10, 0}};

// ---- exit sets ----------------------------------------------------------------------------------

Test(nav_api, exit_sets_create_read_destroy_and_their_handles) {
    crowd_world* w = tagged_world(1, crowd_nav_def_default());
    crowd_world* other = tagged_world(2, crowd_nav_def_default());
    const crowd_vec2 pts[3] = {{1, 2}, {-3.5f, 4}, {1e6f, -1e6f}};
    crowd_exits_id a, b, foreign;
    cr_assert_eq(crowd_exits_create(w, pts, 3, &a), CROWD_OK);
    cr_assert_not(crowd_exits_id_is_null(a));
    cr_assert_eq(crowd_exits_create(w, pts, 1, &b), CROWD_OK);
    cr_assert_eq(crowd_exits_create(other, pts, 2, &foreign), CROWD_OK);
    cr_assert_eq(crowd_exits_validate(w, a), CROWD_OK);
    cr_assert_eq(crowd_exits_validate(w, b), CROWD_OK);

    // Reading back, with the capacity rule of crowd_obstacle_get_points.
    crowd_vec2 got[4];
    int n = -1;
    cr_assert_eq(crowd_exits_get_points(w, a, got, 4, &n), CROWD_OK);
    cr_assert_eq(n, 3);
    for (int i = 0; i < 3; ++i) cr_assert(got[i].x == pts[i].x && got[i].y == pts[i].y);
    n = -1;
    cr_assert_eq(crowd_exits_get_points(w, a, got, 2, &n), CROWD_ERR_BUFFER_TOO_SMALL);
    cr_assert_eq(n, 3);
    n = -1;
    cr_assert_eq(crowd_exits_get_points(w, a, NULL, 0, &n), CROWD_ERR_BUFFER_TOO_SMALL);
    cr_assert_eq(n, 3);
    cr_assert_eq(crowd_exits_get_points(w, a, got, 4, NULL), CROWD_ERR_NULL_ARGUMENT);
    cr_assert_eq(crowd_exits_get_points(NULL, a, got, 4, &n), CROWD_ERR_NULL_ARGUMENT);
    cr_assert_eq(crowd_exits_get_points(w, b, got, 1, &n), CROWD_OK);
    cr_assert(n == 1 && got[0].x == 1.0f && got[0].y == 2.0f);

    // Null, foreign and never issued handles.
    const crowd_exits_id null = {0};
    cr_assert(crowd_exits_id_is_null(null));
    cr_assert_eq(crowd_exits_validate(w, null), CROWD_ERR_NULL_EXITS);
    cr_assert_eq(crowd_exits_destroy(w, null), CROWD_ERR_NULL_EXITS);
    cr_assert_eq(crowd_exits_get_points(w, null, got, 4, &n), CROWD_ERR_NULL_EXITS);
    cr_assert_eq(crowd_exits_validate(w, foreign), CROWD_ERR_FOREIGN_EXITS);
    cr_assert_eq(crowd_exits_destroy(w, foreign), CROWD_ERR_FOREIGN_EXITS);
    cr_assert_eq(crowd_exits_get_points(w, foreign, got, 4, &n), CROWD_ERR_FOREIGN_EXITS);
    cr_assert_eq(crowd_exits_validate(other, foreign), CROWD_OK);
    const crowd_exits_id never = {.index1 = 99, .generation = 0, .world = a.world};
    cr_assert_eq(crowd_exits_validate(w, never), CROWD_ERR_FOREIGN_EXITS);
    cr_assert_eq(crowd_exits_validate(NULL, a), CROWD_ERR_NULL_ARGUMENT);
    cr_assert_eq(crowd_exits_destroy(NULL, a), CROWD_ERR_NULL_ARGUMENT);

    // Destroyed: stale everywhere; the slot comes back with another generation.
    cr_assert_eq(crowd_exits_destroy(w, a), CROWD_OK);
    cr_assert_eq(crowd_exits_destroy(w, a), CROWD_ERR_STALE_EXITS);
    cr_assert_eq(crowd_exits_validate(w, a), CROWD_ERR_STALE_EXITS);
    cr_assert_eq(crowd_exits_get_points(w, a, got, 4, &n), CROWD_ERR_STALE_EXITS);
    crowd_exits_id c;
    cr_assert_eq(crowd_exits_create(w, pts + 1, 2, &c), CROWD_OK);
    cr_assert_eq(c.index1, a.index1);
    cr_assert_neq(c.generation, a.generation);
    cr_assert_eq(crowd_exits_validate(w, a), CROWD_ERR_STALE_EXITS);
    cr_assert_eq(crowd_exits_get_points(w, c, got, 4, &n), CROWD_OK);
    cr_assert(n == 2 && got[0].x == -3.5f && got[1].y == -1e6f);
    // A goal naming the stale set is refused with the handle's status.
    crowd_agent_id ag = agent_with(w, 5, 5, crowd_goal_default());
    crowd_goal g = goal_exits(a);
    cr_assert_eq(crowd_agent_set_goal(w, ag, &g), CROWD_ERR_STALE_EXITS);
    g.exits = foreign;
    cr_assert_eq(crowd_agent_set_goal(w, ag, &g), CROWD_ERR_FOREIGN_EXITS);
    crowd_route_info r;
    cr_assert_eq(crowd_nav_route_from(w, &g, (crowd_vec2){0, 0}, &r), CROWD_ERR_FOREIGN_EXITS);
    g.exits = a;
    cr_assert_eq(crowd_nav_route_from(w, &g, (crowd_vec2){0, 0}, &r), CROWD_ERR_STALE_EXITS);
    cr_assert(goals_equal(goal_of(w, ag), crowd_goal_default()));
    crowd_world_destroy(w);
    crowd_world_destroy(other);
}

Test(nav_api, exit_set_input_is_checked_and_a_refusal_creates_nothing) {
    crowd_world* w = tagged_world(3, crowd_nav_def_default());
    crowd_vec2 pts[CROWD_EXITS_MAX_POINTS + 1];
    for (int i = 0; i <= CROWD_EXITS_MAX_POINTS; ++i) pts[i] = (crowd_vec2){(float)i, 1.0f};
    crowd_exits_id id = {.index1 = 77, .generation = 5, .world = 9};
    cr_assert_eq(crowd_exits_create(NULL, pts, 1, &id), CROWD_ERR_NULL_ARGUMENT);
    cr_assert_eq(crowd_exits_create(w, NULL, 1, &id), CROWD_ERR_NULL_ARGUMENT);
    cr_assert_eq(crowd_exits_create(w, pts, 1, NULL), CROWD_ERR_NULL_ARGUMENT);
    cr_assert_eq(crowd_exits_create(w, pts, 0, &id), CROWD_ERR_BAD_COUNT);
    cr_assert_eq(crowd_exits_create(w, pts, -1, &id), CROWD_ERR_BAD_COUNT);
    cr_assert_eq(crowd_exits_create(w, pts, CROWD_EXITS_MAX_POINTS + 1, &id), CROWD_ERR_BAD_COUNT);
    const float bad[4] = {NAN, INFINITY, -INFINITY, NAN};
    for (int k = 0; k < 4; ++k) {
        crowd_vec2 q[3] = {{0, 0}, {1, 1}, {2, 2}};
        if (k % 2)
            q[2].x = bad[k];
        else
            q[1].y = bad[k];
        cr_assert_eq(crowd_exits_create(w, q, 3, &id), CROWD_ERR_NOT_FINITE, "case %d", k);
    }
    const crowd_vec2 far[2] = {{0, 0}, {0, 1.5e6f}}, far2[1] = {{-1.0001e6f, 0}};
    cr_assert_eq(crowd_exits_create(w, far, 2, &id), CROWD_ERR_OUT_OF_RANGE);
    cr_assert_eq(crowd_exits_create(w, far2, 1, &id), CROWD_ERR_OUT_OF_RANGE);
    // Nothing was created: the first handle index is still never issued.
    const crowd_exits_id first = {.index1 = 1, .generation = 0, .world = 3};
    cr_assert_eq(crowd_exits_validate(w, first), CROWD_ERR_FOREIGN_EXITS);
    // The most points a set may have.
    crowd_exits_id big;
    cr_assert_eq(crowd_exits_create(w, pts, CROWD_EXITS_MAX_POINTS, &big), CROWD_OK);
    cr_assert_eq(big.index1, 1u);
    int n = 0;
    cr_assert_eq(crowd_exits_get_points(w, big, NULL, 0, &n), CROWD_ERR_BUFFER_TOO_SMALL);
    cr_assert_eq(n, CROWD_EXITS_MAX_POINTS);
    crowd_world_destroy(w);
}

// An exit set stays while any goal names it, routed or straight, with obstacles or without, set
// by crowd_agent_set_goal or in the def of crowd_agent_add; removal of the agent or a new goal
// ends the use.
static void in_use_case(bool obstacles) {
    crowd_world* w = tagged_world(4, crowd_nav_def_default());
    if (obstacles) wall_add(w, CROWD_OBSTACLE_WALL, wall10, 2);
    const crowd_vec2 ex[2] = {{-8, 0}, {18, 0}};
    crowd_exits_id set;
    cr_assert_eq(crowd_exits_create(w, ex, 2, &set), CROWD_OK);
    crowd_agent_id a = agent_with(w, 5, 3, crowd_goal_default());
    crowd_goal g = goal_exits(set);
    cr_assert_eq(crowd_agent_set_goal(w, a, &g), CROWD_OK);
    cr_assert_eq(crowd_exits_destroy(w, set), CROWD_ERR_IN_USE);
    cr_assert_eq(crowd_exits_validate(w, set), CROWD_OK);
    g.route = CROWD_ROUTE_STRAIGHT;
    crowd_agent_id b = agent_with(w, 5, -3, g); // in its def
    crowd_goal point = goal_at(CROWD_GOAL_SEEK, 3, 3);
    cr_assert_eq(crowd_agent_set_goal(w, a, &point), CROWD_OK);
    cr_assert_eq(crowd_exits_destroy(w, set), CROWD_ERR_IN_USE, "b still names it");
    // A refused goal change of b leaves its use counted: still in use.
    crowd_goal bad = point;
    bad.route = CROWD_ROUTE_COUNT;
    cr_assert_eq(crowd_agent_set_goal(w, b, &bad), CROWD_ERR_INVALID_ENUM);
    cr_assert_eq(crowd_exits_destroy(w, set), CROWD_ERR_IN_USE);
    // Naming it twice from one agent (the same goal set again) counts once.
    cr_assert_eq(crowd_agent_set_goal(w, b, &g), CROWD_OK);
    cr_assert_eq(crowd_agent_remove(w, b), CROWD_OK);
    cr_assert_eq(crowd_exits_destroy(w, set), CROWD_OK);
    cr_assert_eq(crowd_exits_validate(w, set), CROWD_ERR_STALE_EXITS);
    // A refused goal naming a set does not count a use either.
    cr_assert_eq(crowd_exits_create(w, ex, 2, &set), CROWD_OK);
    crowd_goal flee = goal_exits(set);
    flee.mode = CROWD_GOAL_FLEE;
    cr_assert_eq(crowd_agent_set_goal(w, a, &flee), CROWD_ERR_INVALID_ENUM);
    crowd_agent_def d = crowd_agent_def_default();
    d.position = (crowd_vec2){1, 4};
    d.goal = goal_exits(set);
    d.goal.weight = -1.0f;
    crowd_agent_id c;
    cr_assert_eq(crowd_agent_add(w, &d, &c), CROWD_ERR_BAD_WEIGHT);
    cr_assert_eq(crowd_exits_destroy(w, set), CROWD_OK);
    crowd_world_destroy(w);
}

Test(nav_api, an_exit_set_named_by_a_goal_cannot_be_destroyed) {
    in_use_case(false);
    in_use_case(true);
}

// ---- goals that route ---------------------------------------------------------------------------

Test(nav_api, refused_goals_change_nothing) {
    crowd_world* w = tagged_world(5, crowd_nav_def_default());
    wall_add(w, CROWD_OBSTACLE_WALL, wall10, 2);
    const crowd_vec2 ex[1] = {{5, -4}};
    crowd_exits_id set;
    cr_assert_eq(crowd_exits_create(w, ex, 1, &set), CROWD_OK);
    const crowd_goal keep = goal_at(CROWD_GOAL_ARRIVE, 5, 4);
    crowd_agent_id a = agent_with(w, 5, -3, keep);
    for (int t = 0; t < 5; ++t) cr_assert_eq(crowd_world_step(w), CROWD_OK);
    const uint64_t hash = crowd_world_state_hash(w);
    const crowd_nav_stats st0 = crowd_world_nav_stats(w);
    const crowd_route_info r0 = route_of(w, a);
    cr_assert_eq(r0.state, CROWD_ROUTE_STATE_ROUTED);
    cr_assert_eq(st0.fields_in_use, 1);

    crowd_goal bad[8];
    crowd_status want[8];
    int nb = 0;
    bad[nb] = goal_at(CROWD_GOAL_SEEK, 1, 1), bad[nb].route = CROWD_ROUTE_COUNT;
    want[nb++] = CROWD_ERR_INVALID_ENUM;
    bad[nb] = goal_at(CROWD_GOAL_SEEK, 1, 1), bad[nb].route = (crowd_route)-1;
    want[nb++] = CROWD_ERR_INVALID_ENUM;
    bad[nb] = goal_exits(set), bad[nb].mode = CROWD_GOAL_FLEE;
    want[nb++] = CROWD_ERR_INVALID_ENUM;
    bad[nb] = goal_at(CROWD_GOAL_MODE_COUNT, 1, 1);
    want[nb++] = CROWD_ERR_INVALID_ENUM;
    bad[nb] = goal_at(CROWD_GOAL_ARRIVE, NAN, 1);
    want[nb++] = CROWD_ERR_NOT_FINITE;
    bad[nb] = goal_at(CROWD_GOAL_ARRIVE, 2e6f, 1);
    want[nb++] = CROWD_ERR_OUT_OF_RANGE;
    bad[nb] = goal_exits((crowd_exits_id){.index1 = 9, .world = 5});
    want[nb++] = CROWD_ERR_FOREIGN_EXITS;
    for (int k = 0; k < nb; ++k) {
        cr_assert_eq(crowd_agent_set_goal(w, a, &bad[k]), want[k], "case %d", k);
        cr_assert_eq(crowd_world_state_hash(w), hash, "case %d", k);
        cr_assert(goals_equal(goal_of(w, a), keep), "case %d", k);
        const crowd_nav_stats st = crowd_world_nav_stats(w);
        cr_assert_eq(st.fields_in_use, st0.fields_in_use, "case %d", k);
        cr_assert_eq(st.fields, st0.fields, "case %d", k);
        const crowd_route_info r = route_of(w, a);
        cr_assert(r.state == r0.state && r.aim.x == r0.aim.x && r.aim.y == r0.aim.y &&
                      r.distance == r0.distance,
                  "case %d", k);
        // The same goal in a def: the agent is not added.
        crowd_agent_def d = crowd_agent_def_default();
        d.position = (crowd_vec2){-3, 3};
        d.goal = bad[k];
        crowd_agent_id id;
        cr_assert_eq(crowd_agent_add(w, &d, &id), want[k], "case %d", k);
        cr_assert_eq(crowd_world_agent_count(w), 1);
        // And as a question to crowd_nav_route_from.
        crowd_route_info r2;
        cr_assert_eq(crowd_nav_route_from(w, &bad[k], (crowd_vec2){0, 3}, &r2), want[k], "case %d",
                     k);
    }
    crowd_route_info r;
    cr_assert_eq(crowd_agent_get_route(w, a, NULL), CROWD_ERR_NULL_ARGUMENT);
    cr_assert_eq(crowd_agent_get_route(w, (crowd_agent_id){0}, &r), CROWD_ERR_NULL_HANDLE);
    cr_assert_eq(crowd_nav_route_from(NULL, &keep, (crowd_vec2){0, 3}, &r),
                 CROWD_ERR_NULL_ARGUMENT);
    cr_assert_eq(crowd_nav_route_from(w, NULL, (crowd_vec2){0, 3}, &r), CROWD_ERR_NULL_ARGUMENT);
    cr_assert_eq(crowd_nav_route_from(w, &keep, (crowd_vec2){0, 3}, NULL), CROWD_ERR_NULL_ARGUMENT);
    cr_assert_eq(crowd_nav_route_from(w, &keep, (crowd_vec2){NAN, 3}, &r), CROWD_ERR_NOT_FINITE);
    cr_assert_eq(crowd_nav_route_from(w, &keep, (crowd_vec2){0, -3e6f}, &r),
                 CROWD_ERR_OUT_OF_RANGE);
    cr_assert_eq(crowd_world_nav_update(NULL), CROWD_ERR_NULL_ARGUMENT);
    cr_assert_eq(crowd_world_state_hash(w), hash);
    crowd_agent_id gone = agent_with(w, -3, -3, crowd_goal_default());
    cr_assert_eq(crowd_agent_remove(w, gone), CROWD_OK);
    cr_assert_eq(crowd_agent_get_route(w, gone, &r), CROWD_ERR_STALE_HANDLE);
    crowd_world_destroy(w);
}

// ---- crowd_nav_def ------------------------------------------------------------------------------

Test(nav_api, world_create_checks_the_nav_def) {
    struct {
        float cell, clearance;
        int64_t max_cells;
        crowd_status want;
    } cases[] = {
        {0.5f, 0.25f, 1 << 20, CROWD_ERR_OUT_OF_RANGE}, // clearance == cell / 2
        {0.5f, 0.2f, 1 << 20, CROWD_ERR_OUT_OF_RANGE},  // below half a cell
        {1.0f, 0.3f, 1 << 20, CROWD_ERR_OUT_OF_RANGE},
        {0.5f, 0.2501f, 1 << 20, CROWD_OK}, // just above half a cell
        {NAN, 0.3f, 1 << 20, CROWD_ERR_NOT_FINITE},
        {0.5f, NAN, 1 << 20, CROWD_ERR_NOT_FINITE},
        {INFINITY, 0.3f, 1 << 20, CROWD_ERR_NOT_FINITE},
        {0.5f, INFINITY, 1 << 20, CROWD_ERR_NOT_FINITE},
        {0.0f, 0.3f, 1 << 20, CROWD_ERR_BAD_CELL_SIZE},
        {-0.5f, 0.3f, 1 << 20, CROWD_ERR_BAD_CELL_SIZE},
        {0.5f, 0.0f, 1 << 20, CROWD_ERR_BAD_RADIUS},
        {0.5f, -0.3f, 1 << 20, CROWD_ERR_BAD_RADIUS},
        {0.005f, 0.004f, 1 << 20, CROWD_ERR_OUT_OF_RANGE}, // cell below CROWD_MIN_CELL_SIZE
        {2e4f, 1.5e4f, 1 << 20, CROWD_ERR_OUT_OF_RANGE},   // cell above CROWD_MAX_DISTANCE
        {0.5f, 2e4f, 1 << 20, CROWD_ERR_OUT_OF_RANGE},     // clearance above it
        {0.01f, 0.006f, 1 << 20, CROWD_OK},                // the smallest cell
        {0.5f, 0.3f, 0, CROWD_ERR_BAD_COUNT},
        {0.5f, 0.3f, -1, CROWD_ERR_BAD_COUNT},
        {0.5f, 0.3f, ((int64_t)1 << 30) + 1, CROWD_ERR_BAD_COUNT},
        {0.5f, 0.3f, (int64_t)1 << 30, CROWD_OK},
        {0.5f, 0.3f, 1, CROWD_OK},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        crowd_world_def wd = crowd_world_def_default();
        wd.nav.cell_size = cases[k].cell;
        wd.nav.clearance = cases[k].clearance;
        wd.nav.max_cells = cases[k].max_cells;
        crowd_world* w = (crowd_world*)&wd; // must be set to NULL on failure
        cr_assert_eq(crowd_world_create(&wd, &w), cases[k].want, "case %zu", k);
        if (cases[k].want != CROWD_OK) {
            cr_assert_null(w, "case %zu", k);
            continue;
        }
        cr_assert_not_null(w);
        cr_assert_float_eq(crowd_world_nav_stats(w).cell_size, cases[k].cell, 0.0);
        crowd_world_destroy(w);
    }
    // The default is valid and what the header says.
    const crowd_nav_def d = crowd_nav_def_default();
    cr_assert(d.enable);
    cr_assert_eq(d.cell_size, 0.5f);
    cr_assert_eq(d.clearance, 0.3f);
    cr_assert_eq(d.budget, (size_t)1 << 30);
    cr_assert_eq(d.max_cells, (int64_t)1 << 26);
    const crowd_world_def wd = crowd_world_def_default();
    cr_assert(wd.nav.enable && wd.nav.cell_size == d.cell_size && wd.nav.clearance == d.clearance &&
              wd.nav.budget == d.budget && wd.nav.max_cells == d.max_cells);
}

// ---- route states -------------------------------------------------------------------------------

Test(nav_api, route_states_follow_the_world) {
    crowd_world* w = tagged_world(6, crowd_nav_def_default());
    const crowd_goal to = goal_at(CROWD_GOAL_ARRIVE, 5, 4);
    crowd_agent_id a = agent_with(w, 5, -3, to);
    crowd_agent_id none = agent_with(w, 2, -3, crowd_goal_default());
    crowd_agent_id flee = agent_with(w, 3, -3, goal_at(CROWD_GOAL_FLEE, 5, 4));
    crowd_goal st_goal = to;
    st_goal.route = CROWD_ROUTE_STRAIGHT;
    crowd_agent_id straight = agent_with(w, 8, -3, st_goal);
    crowd_agent_id far = agent_with(w, 5, -30, to); // off the grid the wall will lay

    // No obstacles: straight at the goal, no grid, nothing counted.
    crowd_route_info r = route_of(w, a);
    cr_assert_eq(r.state, CROWD_ROUTE_STATE_STRAIGHT);
    cr_assert(r.aim.x == 5.0f && r.aim.y == 4.0f && r.destination.x == 5.0f &&
              r.destination.y == 4.0f);
    cr_assert_float_eq(r.distance, 7.0f, 1e-5);
    r = route_of(w, none);
    cr_assert_eq(r.state, CROWD_ROUTE_STATE_NONE);
    cr_assert_eq(r.distance, 0.0f);
    cr_assert_eq(route_of(w, flee).state, CROWD_ROUTE_STATE_NONE);
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    crowd_nav_stats st = crowd_world_nav_stats(w);
    cr_assert(st.grid_w == 0 && st.grid_h == 0 && st.fields == 0 && st.fields_in_use == 0 &&
              st.field_bytes == 0 && !st.suspended);

    // A wall between the agent and its goal: pending until the next step or update.
    crowd_obstacle_id wall = wall_add(w, CROWD_OBSTACLE_WALL, wall10, 2);
    crowd_vec2 p;
    cr_assert_eq(crowd_agent_get_position(w, a, &p), CROWD_OK);
    r = route_of(w, a);
    cr_assert_eq(r.state, CROWD_ROUTE_STATE_PENDING);
    cr_assert_eq(r.distance, 0.0f);
    cr_assert_eq(crowd_world_nav_update(w), CROWD_OK);
    r = route_of(w, a);
    cr_assert_eq(r.state, CROWD_ROUTE_STATE_ROUTED);
    cr_assert(r.destination.x == 5.0f && r.destination.y == 4.0f);
    cr_assert(r.aim.x < -0.2f || r.aim.x > 10.2f, "aim (%g, %g) is not round an end",
              (double)r.aim.x, (double)r.aim.y);
    // Round the nearer end: at least the way through (0, 0) or (10, 0).
    const float round = hypotf(p.x, p.y) + hypotf(5.0f, 4.0f);
    cr_assert(r.distance >= round - 1e-3f && r.distance < round + 1.5f, "distance %g, round %g",
              (double)r.distance, (double)round);
    r = route_of(w, straight);
    cr_assert_eq(r.state, CROWD_ROUTE_STATE_STRAIGHT);
    cr_assert(r.aim.x == 5.0f && r.aim.y == 4.0f);
    r = route_of(w, far);
    cr_assert_eq(r.state, CROWD_ROUTE_STATE_STRAIGHT, "off the grid: %d", r.state);
    cr_assert_eq(route_of(w, none).state, CROWD_ROUTE_STATE_NONE);
    cr_assert_eq(route_of(w, flee).state, CROWD_ROUTE_STATE_NONE);

    // A new destination: pending until a step builds it.
    const crowd_goal other = goal_at(CROWD_GOAL_SEEK, 2, 4);
    cr_assert_eq(crowd_agent_set_goal(w, a, &other), CROWD_OK);
    cr_assert_eq(route_of(w, a).state, CROWD_ROUTE_STATE_PENDING);
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    r = route_of(w, a);
    cr_assert_eq(r.state, CROWD_ROUTE_STATE_ROUTED);
    cr_assert(r.destination.x == 2.0f && r.destination.y == 4.0f);

    // crowd_nav_route_from: a destination nobody uses has no field (pending, after an update
    // too); the one in use answers as the agent's own route does.
    crowd_route_info q;
    const crowd_goal unused = goal_at(CROWD_GOAL_ARRIVE, 7, 3);
    cr_assert_eq(crowd_world_nav_update(w), CROWD_OK);
    cr_assert_eq(crowd_nav_route_from(w, &unused, (crowd_vec2){5, -3}, &q), CROWD_OK);
    cr_assert_eq(q.state, CROWD_ROUTE_STATE_PENDING);
    cr_assert_eq(crowd_agent_get_position(w, a, &p), CROWD_OK);
    r = route_of(w, a);
    cr_assert_eq(crowd_nav_route_from(w, &other, p, &q), CROWD_OK);
    cr_assert(q.state == r.state && q.aim.x == r.aim.x && q.aim.y == r.aim.y &&
              q.distance == r.distance);
    cr_assert_eq(crowd_nav_route_from(w, &st_goal, p, &q), CROWD_OK);
    cr_assert_eq(q.state, CROWD_ROUTE_STATE_STRAIGHT);
    cr_assert_eq(
        crowd_nav_route_from(
            w, &(crowd_goal){.mode = CROWD_GOAL_FLEE, .slow_radius = 1, .weight = 1}, p, &q),
        CROWD_OK);
    cr_assert_eq(q.state, CROWD_ROUTE_STATE_NONE);

    // The last obstacle removed: straight again, and nothing counted.
    cr_assert_eq(crowd_obstacle_remove(w, wall), CROWD_OK);
    cr_assert_eq(crowd_world_nav_update(w), CROWD_OK);
    cr_assert_eq(route_of(w, a).state, CROWD_ROUTE_STATE_STRAIGHT);
    st = crowd_world_nav_stats(w);
    cr_assert(st.grid_w == 0 && st.fields_in_use == 0 && st.field_bytes == 0);
    crowd_world_destroy(w);
}

// With navigation off (crowd_nav_def.enable false), goals head straight past walls and no grid is
// laid.
Test(nav_api, navigation_off_keeps_every_goal_straight) {
    crowd_nav_def nd = crowd_nav_def_default();
    nd.enable = false;
    crowd_world* w = tagged_world(7, nd);
    wall_add(w, CROWD_OBSTACLE_WALL, wall10, 2);
    crowd_agent_id a = agent_with(w, 5, -3, goal_at(CROWD_GOAL_ARRIVE, 5, 4));
    cr_assert_eq(crowd_world_nav_update(w), CROWD_OK);
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    const crowd_route_info r = route_of(w, a);
    cr_assert_eq(r.state, CROWD_ROUTE_STATE_STRAIGHT);
    cr_assert(r.aim.x == 5.0f && r.aim.y == 4.0f);
    const crowd_nav_stats st = crowd_world_nav_stats(w);
    cr_assert(st.grid_w == 0 && st.fields == 0 && st.fields_in_use == 0 && st.field_bytes == 0);
    crowd_world_destroy(w);
}

// ---- the budget ---------------------------------------------------------------------------------

// The cells of the grid the wall lays with the default nav def.
static int64_t wall10_cells(void) {
    crowd_world* w = tagged_world(8, crowd_nav_def_default());
    wall_add(w, CROWD_OBSTACLE_WALL, wall10, 2);
    agent_with(w, 5, 3, goal_at(CROWD_GOAL_ARRIVE, 5, -3));
    cr_assert_eq(crowd_world_nav_update(w), CROWD_OK);
    const crowd_nav_stats st = crowd_world_nav_stats(w);
    crowd_world_destroy(w);
    return (int64_t)st.grid_w * st.grid_h;
}

Test(nav_api, the_budget_spreads_a_goal_beyond_it_and_refuses_an_exit_set) {
    const int64_t cells = wall10_cells();
    cr_assert_gt(cells, 500);
    crowd_nav_def nd = crowd_nav_def_default();
    nd.budget = (size_t)cells * 4 * 3 / 2; // one field and a half
    crowd_world* w = tagged_world(9, nd);
    wall_add(w, CROWD_OBSTACLE_WALL, wall10, 2);
    const crowd_goal g1 = goal_at(CROWD_GOAL_ARRIVE, 5.1f, 4.1f);
    const crowd_goal g1b = goal_at(CROWD_GOAL_SEEK, 5.2f, 4.2f); // the same 0.5 m cell
    const crowd_goal g2 = goal_at(CROWD_GOAL_ARRIVE, 5.1f, -4.1f);
    crowd_agent_id a = agent_with(w, 5, -3, g1);
    crowd_agent_id b = agent_with(w, 2, -3, crowd_goal_default());
    for (int t = 0; t < 3; ++t) cr_assert_eq(crowd_world_step(w), CROWD_OK);
    const uint64_t hash = crowd_world_state_hash(w);
    crowd_nav_stats st = crowd_world_nav_stats(w);
    cr_assert_eq(st.fields_in_use, 1);
    cr_assert_eq(st.field_bytes, (size_t)cells * 4);

    // A goal's new destination beyond the budget is spread (nav_spread.c) rather than refused
    // (here the spread graph leaves no room for a field: both are).
    cr_assert_eq(crowd_agent_set_goal(w, b, &g2), CROWD_OK);
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    st = crowd_world_nav_stats(w);
    cr_assert_eq(st.fields_in_use, 2);
    cr_assert_geq(st.spread, 1);
    cr_assert_eq(st.field_bytes, (size_t)(2 - st.spread) * (size_t)cells * 4);
    cr_assert_leq(st.field_bytes + st.spread_bytes, nd.budget);
    cr_assert_eq(route_of(w, a).state, CROWD_ROUTE_STATE_ROUTED);
    cr_assert_eq(route_of(w, b).state, CROWD_ROUTE_STATE_ROUTED);
    const crowd_goal none0 = crowd_goal_default();
    cr_assert_eq(crowd_agent_set_goal(w, b, &none0), CROWD_OK);
    cr_assert_eq(crowd_world_nav_update(w), CROWD_OK);
    st = crowd_world_nav_stats(w);
    cr_assert_eq(st.spread, 0, "all fit again: nothing spread");
    cr_assert_eq(st.spread_bytes, 0);
    const uint64_t hash2 = crowd_world_state_hash(w);
    // A destination that cannot be spread (an exit set's, a waypoint path's) beyond the budget
    // is refused and changes nothing.
    const crowd_vec2 ex[1] = {{2, 0}}; // on the grid: it lays the grid again otherwise
    crowd_exits_id set;
    cr_assert_eq(crowd_exits_create(w, ex, 1, &set), CROWD_OK);
    crowd_goal ge = goal_exits(set);
    cr_assert_eq(crowd_agent_set_goal(w, b, &ge), CROWD_ERR_CAPACITY);
    cr_assert_eq(crowd_exits_destroy(w, set), CROWD_OK, "the refused goal counted a use");
    st = crowd_world_nav_stats(w);
    cr_assert_eq(st.fields_in_use, 1);
    cr_assert_eq(crowd_world_state_hash(w), hash2);
    (void)hash;
    // Straight goals and the destination in use need no room.
    crowd_goal g2s = g2;
    g2s.route = CROWD_ROUTE_STRAIGHT;
    cr_assert_eq(crowd_agent_set_goal(w, b, &g2s), CROWD_OK);
    cr_assert_eq(crowd_agent_set_goal(w, b, &g1b), CROWD_OK);
    cr_assert_eq(crowd_world_nav_stats(w).fields_in_use, 1);
    // Once nobody uses the first destination the second fits; the first's cached field makes
    // room for it.
    const crowd_goal none = crowd_goal_default();
    cr_assert_eq(crowd_agent_set_goal(w, b, &none), CROWD_OK);
    cr_assert_eq(crowd_agent_set_goal(w, a, &none), CROWD_OK);
    st = crowd_world_nav_stats(w);
    cr_assert_eq(st.fields_in_use, 0);
    cr_assert_eq(st.fields, 1, "the unused field stays cached");
    crowd_route_info q;
    cr_assert_eq(crowd_nav_route_from(w, &g1, (crowd_vec2){5, -3}, &q), CROWD_OK);
    cr_assert_eq(q.state, CROWD_ROUTE_STATE_ROUTED, "read from the cached field");
    cr_assert_eq(crowd_agent_set_goal(w, a, &g2), CROWD_OK);
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    st = crowd_world_nav_stats(w);
    cr_assert_eq(st.fields_in_use, 1);
    cr_assert_eq(st.fields, 1, "the unused field was dropped for the new one");
    cr_assert_eq(st.field_bytes, (size_t)cells * 4);
    cr_assert_leq(st.field_bytes, nd.budget);
    cr_assert_eq(route_of(w, a).state, CROWD_ROUTE_STATE_ROUTED);
    cr_assert_eq(crowd_nav_route_from(w, &g1, (crowd_vec2){5, -3}, &q), CROWD_OK);
    cr_assert_eq(q.state, CROWD_ROUTE_STATE_PENDING, "the dropped field answers pending");
    crowd_world_destroy(w);
}

// Obstacles are never refused for the budget or the cell limit: a grid too large for them is not
// laid, navigation is suspended (every agent heads straight) until the obstacles shrink again.
Test(nav_api, a_grid_beyond_the_limits_suspends_navigation) {
    const int64_t cells = wall10_cells();
    crowd_nav_def nd = crowd_nav_def_default();
    nd.budget = (size_t)cells * 4 * 3 / 2;
    crowd_world* w = tagged_world(10, nd);
    wall_add(w, CROWD_OBSTACLE_WALL, wall10, 2);
    crowd_agent_id a = agent_with(w, 5, -3, goal_at(CROWD_GOAL_ARRIVE, 5, 4));
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    cr_assert_eq(route_of(w, a).state, CROWD_ROUTE_STATE_ROUTED);
    const crowd_vec2 far[2] = {{60, 0}, {61, 0}}; // a grid four times as wide: one field too many
    crowd_obstacle_id o;
    cr_assert_eq(crowd_obstacle_add(w, CROWD_OBSTACLE_WALL, far, 2, &o), CROWD_OK);
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    crowd_nav_stats st = crowd_world_nav_stats(w);
    cr_assert(st.suspended);
    cr_assert(st.grid_w == 0 && st.field_bytes == 0);
    cr_assert_eq(route_of(w, a).state, CROWD_ROUTE_STATE_STRAIGHT);
    cr_assert_eq(crowd_obstacle_remove(w, o), CROWD_OK);
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    st = crowd_world_nav_stats(w);
    cr_assert_not(st.suspended);
    cr_assert_eq((int64_t)st.grid_w * st.grid_h, cells);
    cr_assert_eq(route_of(w, a).state, CROWD_ROUTE_STATE_ROUTED);
    crowd_world_destroy(w);

    nd = crowd_nav_def_default();
    nd.max_cells = cells - 1;
    w = tagged_world(11, nd);
    wall_add(w, CROWD_OBSTACLE_WALL, wall10, 2);
    a = agent_with(w, 5, -3, goal_at(CROWD_GOAL_ARRIVE, 5, 4));
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    st = crowd_world_nav_stats(w);
    cr_assert(st.suspended && st.grid_w == 0);
    cr_assert_eq(route_of(w, a).state, CROWD_ROUTE_STATE_STRAIGHT);
    crowd_world_destroy(w);
}

// ---- stats --------------------------------------------------------------------------------------

Test(nav_api, stats_count_the_grid_and_the_fields) {
    crowd_world* w = tagged_world(12, crowd_nav_def_default());
    // Goals before any obstacle: nothing counted yet.
    const crowd_goal g1 = goal_at(CROWD_GOAL_ARRIVE, 3.1f, 4.1f);
    const crowd_goal g1b = goal_at(CROWD_GOAL_SEEK, 3.3f, 4.3f); // the same cell
    const crowd_goal g2 = goal_at(CROWD_GOAL_ARRIVE_LITERAL, 8, -4);
    crowd_agent_id ids[6];
    ids[0] = agent_with(w, -3, -3, g1);
    ids[1] = agent_with(w, -2, -3, g1);
    ids[2] = agent_with(w, -1, -3, g1b);
    ids[3] = agent_with(w, 0, -3, g2);
    crowd_goal gs = g2;
    gs.route = CROWD_ROUTE_STRAIGHT;
    ids[4] = agent_with(w, 1, -3, gs);
    ids[5] = agent_with(w, 2, -3, goal_at(CROWD_GOAL_FLEE, 0, 0));
    crowd_nav_stats st = crowd_world_nav_stats(w);
    cr_assert(st.fields_in_use == 0 && st.grid_w == 0);
    cr_assert_float_eq(st.cell_size, 0.5f, 0.0);

    // A block and a wall: the grid covers both with at least the clearance round them.
    const crowd_vec2 block[4] = {{4, 1}, {7, 1}, {7, 3}, {4, 3}};
    wall_add(w, CROWD_OBSTACLE_POLYGON, block, 4);
    wall_add(w, CROWD_OBSTACLE_WALL, wall10, 2);
    st = crowd_world_nav_stats(w);
    cr_assert_eq(st.fields_in_use, 2, "g1 (three agents, two goals in one cell) and g2");
    cr_assert_eq(crowd_world_nav_update(w), CROWD_OK);
    st = crowd_world_nav_stats(w);
    const float x1 = st.grid_origin.x + (float)st.grid_w * st.cell_size;
    const float y1 = st.grid_origin.y + (float)st.grid_h * st.cell_size;
    cr_assert(st.grid_origin.x <= -0.3f && st.grid_origin.y <= -0.3f && x1 >= 10.3f && y1 >= 3.3f,
              "grid [%g, %g] x [%g, %g]", (double)st.grid_origin.x, (double)x1,
              (double)st.grid_origin.y, (double)y1);
    cr_assert(st.grid_origin.x > -20.0f && x1 < 30.0f, "a grid far larger than the obstacles");
    const int64_t cells = (int64_t)st.grid_w * st.grid_h;
    // Blocked: at least the block's inside (6 m^2: 24 cells) and the wall's strip (10 m x 0.6 m:
    // 40 cells at least), at most the block and the wall widened by a cell all round.
    cr_assert_geq(st.blocked_cells, 24 + 40);
    cr_assert_leq(st.blocked_cells, (int64_t)((5.0 * 4.0 + 12.0 * 2.0) / 0.25));
    cr_assert_eq(st.fields, 2);
    cr_assert_eq(st.fields_in_use, 2);
    cr_assert_eq(st.builds, 2u);
    cr_assert_eq(st.field_bytes, (size_t)(2 * cells * 4));
    cr_assert_geq(st.last_build_ms, 0.0);
    cr_assert_geq(st.last_build_ms, st.last_grid_ms);
    cr_assert_not(st.suspended);
    // Nothing to build: the update does nothing.
    cr_assert_eq(crowd_world_nav_update(w), CROWD_OK);
    cr_assert_eq(crowd_world_nav_stats(w).builds, 2u);

    // An exit set is one more destination.
    const crowd_vec2 ex[2] = {{-4, 0}, {14, 0}};
    crowd_exits_id set;
    cr_assert_eq(crowd_exits_create(w, ex, 2, &set), CROWD_OK);
    crowd_goal ge = goal_exits(set);
    cr_assert_eq(crowd_agent_set_goal(w, ids[5], &ge), CROWD_OK);
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    st = crowd_world_nav_stats(w);
    cr_assert_eq(st.fields_in_use, 3);
    cr_assert_eq(st.builds, 3u);

    // Uses end; the fields stay cached.
    cr_assert_eq(crowd_agent_remove(w, ids[0]), CROWD_OK);
    cr_assert_eq(crowd_agent_remove(w, ids[1]), CROWD_OK);
    cr_assert_eq(crowd_world_nav_stats(w).fields_in_use, 3, "ids[2] still heads for g1's cell");
    cr_assert_eq(crowd_agent_remove(w, ids[2]), CROWD_OK);
    st = crowd_world_nav_stats(w);
    cr_assert_eq(st.fields_in_use, 2);
    cr_assert_eq(st.fields, 3);
    cr_assert_eq(st.field_bytes, (size_t)(3 * cells * 4));

    // An obstacle changes: the fields in use are built again, the unused one is dropped.
    const crowd_vec2 post[2] = {{2, -2}, {2, -1}};
    wall_add(w, CROWD_OBSTACLE_WALL, post, 2);
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    st = crowd_world_nav_stats(w);
    cr_assert_eq(st.builds, 5u);
    cr_assert_eq(st.fields_in_use, 2);
    cr_assert_eq(st.fields, 2);
    cr_assert_eq(st.field_bytes, (size_t)2 * (size_t)st.grid_w * (size_t)st.grid_h * 4);

    const crowd_nav_stats zero = crowd_world_nav_stats(NULL);
    cr_assert(zero.grid_w == 0 && zero.fields == 0 && zero.builds == 0 && zero.field_bytes == 0);
    crowd_world_destroy(w);
}

// The route phase is timed as a phase of the step.
Test(nav_api, the_route_phase_has_a_name_and_a_time) {
    cr_assert_str_eq(crowd_phase_name(CROWD_PHASE_ROUTE), "route");
    crowd_world* w = tagged_world(13, crowd_nav_def_default());
    wall_add(w, CROWD_OBSTACLE_WALL, wall10, 2);
    agent_with(w, 5, -3, goal_at(CROWD_GOAL_ARRIVE, 5, 4));
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    const crowd_profile p = crowd_world_get_profile(w);
    cr_assert_geq(p.phase_ms[CROWD_PHASE_ROUTE], 0.0);
    cr_assert_leq(p.phase_ms[CROWD_PHASE_ROUTE], p.step_ms);
    cr_assert_eq(crowd_world_nav_stats(w).builds, 1u);
    crowd_world_destroy(w);
}
