// Snapshots of routed worlds (crowd/nav.h): the navigation def, the exit sets and every goal's and
// path follower's route are saved, the fields are not; a loaded world counts the destinations in
// use again, rebuilds its fields in its first step and continues bit-identically. Older formats
// (without navigation) load with navigation off and continue as they were. Damaged navigation
// content is refused, creating nothing.
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "counting_alloc.h"
#include "crowd/crowd.h"
#include "fuzz/snapshot_downgrade.h"
#include "snapshot/snapshot_internal.h"

// ---- helpers ------------------------------------------------------------------------------------

typedef struct bytes {
    uint8_t* p;
    size_t n;
} bytes;

static bytes save(const crowd_world* w) {
    size_t n = 0;
    cr_assert_eq(crowd_world_save(w, NULL, 0, &n), CROWD_ERR_BUFFER_TOO_SMALL);
    bytes b = {malloc(n), n};
    size_t wrote = 0;
    cr_assert_eq(crowd_world_save(w, b.p, n, &wrote), CROWD_OK);
    cr_assert_eq(wrote, n);
    return b;
}

static uint64_t rd(const uint8_t* p, int n) {
    return snapshot_downgrade_rd(p, n);
}
static void wr(uint8_t* p, int n, uint64_t v) {
    snapshot_downgrade_wr(p, n, v);
}
static void wr_f32(uint8_t* p, float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    wr(p, 4, u);
}

static void reseal(bytes* b) {
    wr(b->p + 16, 8, b->n);
    wr(b->p + b->n - 8, 8, cs_crc64(b->p, b->n - 8));
}

// Payload offset of the section with this id (0 when there is none).
static size_t section_of(const bytes* b, const char id[4], size_t* len) {
    const uint32_t sections = (uint32_t)rd(b->p + 12, 4);
    for (uint32_t k = 0; k < sections; ++k)
        if (memcmp(b->p + 24 + 24 * (size_t)k, id, 4) == 0) {
            if (len) *len = (size_t)rd(b->p + 24 + 24 * (size_t)k + 16, 8);
            return (size_t)rd(b->p + 24 + 24 * (size_t)k + 8, 8);
        }
    return 0;
}

static crowd_status try_load_with(const bytes* b, crowd_load_def d) {
    counter c = {0};
    d.alloc = count_alloc;
    d.free = count_free;
    d.alloc_user = &c;
    crowd_world* w = (crowd_world*)&c;
    const crowd_status st = crowd_world_load(b->p, b->n, &d, &w);
    if (st != CROWD_OK) {
        cr_assert_null(w);
    } else {
        crowd_world_destroy(w);
    }
    cr_assert_eq(c.allocs, c.frees);
    cr_assert_eq(c.live, 0);
    return st;
}

static crowd_status try_load(const bytes* b) {
    return try_load_with(b, crowd_load_def_default());
}

static crowd_world* load(const bytes* b, int threads) {
    crowd_load_def d = crowd_load_def_default();
    d.threads = threads;
    crowd_world* w = NULL;
    cr_assert_eq(crowd_world_load(b->p, b->n, &d, &w), CROWD_OK);
    return w;
}

static void add_obstacle(crowd_world* w, crowd_obstacle_kind kind, const crowd_vec2* p, int n) {
    crowd_obstacle_id id;
    cr_assert_eq(crowd_obstacle_add(w, kind, p, n, &id), CROWD_OK);
}

static crowd_agent_id add_agent(crowd_world* w, float x, float y, const crowd_goal* g) {
    crowd_agent_def a = crowd_agent_def_default();
    a.position = (crowd_vec2){x, y};
    a.max_speed = 1.5f;
    if (g) a.goal = *g;
    crowd_agent_id id;
    cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_OK, "agent at (%g, %g)", x, y);
    return id;
}

static crowd_goal goal_at(crowd_goal_mode mode, float x, float y, crowd_route route) {
    crowd_goal g = crowd_goal_default();
    g.mode = mode;
    g.target = (crowd_vec2){x, y};
    g.route = route;
    return g;
}

// A room of 20 x 14 m with a wall across its middle open at one end, a solid block, two exit sets
// (and a third destroyed: a free slot), routed and straight goals toward points and exits, a
// fleeing agent, and routed and straight waypoint followers and a tube follower; stepped a few
// ticks so that fields are built and agents are on their way.
typedef struct nav_scene {
    crowd_world* w;
    crowd_exits_id exits[2], gone;
    crowd_agent_id ids[64];
    int n;
    crowd_path_id path;
} nav_scene;

static nav_scene nav_world(int threads, bool enable) {
    nav_scene s = {0};
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = threads;
    wd.world_tag = 91;
    wd.nav.enable = enable;
    wd.nav.cell_size = 0.4f;
    wd.nav.clearance = 0.35f;
    wd.nav.budget = (size_t)64 << 20;
    wd.nav.max_cells = 1 << 20;
    cr_assert_eq(crowd_world_create(&wd, &s.w), CROWD_OK);
    crowd_world* w = s.w;
    const crowd_vec2 room[5] = {{0, 0}, {20, 0}, {20, 14}, {0, 14}, {0, 0}};
    add_obstacle(w, CROWD_OBSTACLE_WALL, room, 5);
    const crowd_vec2 across[2] = {{0, 7}, {16, 7}};
    add_obstacle(w, CROWD_OBSTACLE_WALL, across, 2);
    const crowd_vec2 block[4] = {{8, 2}, {10, 2}, {10, 4}, {8, 4}};
    add_obstacle(w, CROWD_OBSTACLE_POLYGON, block, 4);

    const crowd_vec2 doors[2] = {{1.0f, 12.5f}, {10.0f, 13.0f}};
    const crowd_vec2 corner[1] = {{18.5f, 1.0f}};
    const crowd_vec2 old[3] = {{2, 2}, {3, 3}, {4, 4}};
    cr_assert_eq(crowd_exits_create(w, old, 3, &s.gone), CROWD_OK);
    cr_assert_eq(crowd_exits_create(w, doors, 2, &s.exits[0]), CROWD_OK);
    cr_assert_eq(crowd_exits_create(w, corner, 1, &s.exits[1]), CROWD_OK);
    cr_assert_eq(crowd_exits_destroy(w, s.gone), CROWD_OK);

    const crowd_goal_mode modes[3] = {CROWD_GOAL_SEEK, CROWD_GOAL_ARRIVE,
                                      CROWD_GOAL_ARRIVE_LITERAL};
    for (int i = 0; i < 24; ++i) {
        const float x = 1.5f + (float)(i % 8) * 1.6f, y = 1.2f + (float)(i / 8) * 1.5f;
        crowd_goal g = goal_at(modes[i % 3], 3.0f + (float)(i % 4), 11.0f, CROWD_ROUTE_FIELD);
        if (i % 4 == 1) g.exits = s.exits[0];
        if (i % 4 == 2) g.route = CROWD_ROUTE_STRAIGHT;
        if (i % 8 == 3) g.exits = s.exits[1];
        if (x > 7.5f && x < 10.5f && y < 4.5f) continue; // the block
        s.ids[s.n++] = add_agent(w, x, y, &g);
    }
    // Above the wall: one flees, one has exits and a straight route, one no goal at all.
    crowd_goal flee = goal_at(CROWD_GOAL_FLEE, 10, 10, CROWD_ROUTE_FIELD);
    s.ids[s.n++] = add_agent(w, 12.0f, 10.0f, &flee);
    crowd_goal straight_exit = goal_at(CROWD_GOAL_ARRIVE, 0, 0, CROWD_ROUTE_STRAIGHT);
    straight_exit.exits = s.exits[1];
    s.ids[s.n++] = add_agent(w, 6.0f, 12.0f, &straight_exit);
    s.ids[s.n++] = add_agent(w, 14.0f, 12.0f, NULL);

    // Waypoints on both sides of the wall: legs routed, or straight (they push along the wall).
    const crowd_vec2 loop[4] = {{3, 3}, {17, 4}, {17, 11}, {3, 11}};
    cr_assert_eq(crowd_path_create(w, loop, 4, &s.path), CROWD_OK);
    for (int i = 0; i < 6; ++i) {
        const crowd_agent_id id = add_agent(w, 4.0f + (float)i * 2.0f, 5.5f, NULL);
        crowd_path_follow_def d = crowd_path_follow_def_default();
        d.path = s.path;
        d.kind = i == 5 ? CROWD_PATH_TUBE : CROWD_PATH_WAYPOINTS;
        d.mode = i % 2 ? CROWD_PATH_LOOP : CROWD_PATH_PING_PONG;
        d.route = i % 3 == 2 ? CROWD_ROUTE_STRAIGHT : CROWD_ROUTE_FIELD;
        d.start_index = i % 4;
        cr_assert_eq(crowd_agent_set_path(w, id, &d), CROWD_OK);
        s.ids[s.n++] = id;
    }
    for (int t = 0; t < 15; ++t) cr_assert_eq(crowd_world_step(w), CROWD_OK);
    return s;
}

// Every agent's route is the same in both worlds; some go round the walls.
static void expect_same_routes(const crowd_world* a, const crowd_world* b, const nav_scene* s) {
    int routed = 0;
    for (int i = 0; i < s->n; ++i) {
        crowd_route_info x, y;
        cr_assert_eq(crowd_agent_get_route(a, s->ids[i], &x), CROWD_OK);
        cr_assert_eq(crowd_agent_get_route(b, s->ids[i], &y), CROWD_OK);
        cr_assert(memcmp(&x, &y, sizeof x) == 0, "agent %d: route state %d / %d", i, x.state,
                  y.state);
        routed += x.state == CROWD_ROUTE_STATE_ROUTED;
    }
    cr_assert_gt(routed, 5);
}

static void step_both(crowd_world* a, crowd_world* b, int ticks) {
    for (int t = 0; t < ticks; ++t) {
        cr_assert_eq(crowd_world_step(a), CROWD_OK);
        cr_assert_eq(crowd_world_step(b), CROWD_OK);
        cr_assert_eq(crowd_world_state_hash(a), crowd_world_state_hash(b), "tick %d", t);
    }
}

// ---- round trips --------------------------------------------------------------------------------

Test(nav_snapshot, routed_world_continues_bit_identically) {
    nav_scene s = nav_world(2, true);
    bytes b = save(s.w);
    crowd_world* l = load(&b, -1);
    cr_assert_eq(crowd_world_state_hash(l), crowd_world_state_hash(s.w));
    // The loaded world saves the same bytes, before and after its fields are built.
    bytes again = save(l);
    cr_assert(again.n == b.n && memcmp(again.p, b.p, b.n) == 0);
    free(again.p);
    // Its destinations in use are those of the original (the counts, not the fields).
    cr_assert_eq(crowd_world_nav_update(l), CROWD_OK);
    const crowd_nav_stats x = crowd_world_nav_stats(s.w), y = crowd_world_nav_stats(l);
    cr_assert_eq(y.fields_in_use, x.fields_in_use);
    cr_assert_gt(y.fields_in_use, 2);
    cr_assert_eq(y.grid_w, x.grid_w);
    cr_assert_eq(y.grid_h, x.grid_h);
    expect_same_routes(s.w, l, &s);
    step_both(s.w, l, 150);
    expect_same_routes(s.w, l, &s);
    again = save(l);
    bytes orig = save(s.w);
    cr_assert(again.n == orig.n && memcmp(again.p, orig.p, orig.n) == 0);
    free(again.p), free(orig.p), free(b.p);
    crowd_world_destroy(l);
    crowd_world_destroy(s.w);
}

// Loaded on another thread count, and through the stream writer: the same world.
Test(nav_snapshot, thread_counts_and_stream) {
    nav_scene s = nav_world(1, true);
    bytes b = save(s.w);
    crowd_world* l = load(&b, 3);
    step_both(s.w, l, 60);
    crowd_world_destroy(l);
    free(b.p);
    crowd_world_destroy(s.w);
}

// Exit sets come back with their handles: live ones valid, in use by the goals that name them
// (destroying one is refused), the destroyed one stale, and the next set made in the free slot the
// same in both worlds.
Test(nav_snapshot, exit_sets_and_their_handles) {
    nav_scene s = nav_world(1, true);
    bytes b = save(s.w);
    crowd_world* l = load(&b, -1);
    crowd_vec2 p[4];
    int n;
    for (int k = 0; k < 2; ++k) {
        cr_assert_eq(crowd_exits_validate(l, s.exits[k]), CROWD_OK);
        cr_assert_eq(crowd_exits_destroy(l, s.exits[k]), CROWD_ERR_IN_USE);
    }
    cr_assert_eq(crowd_exits_get_points(l, s.exits[0], p, 4, &n), CROWD_OK);
    cr_assert(n == 2 && p[0].x == 1.0f && p[0].y == 12.5f && p[1].x == 10.0f);
    cr_assert_eq(crowd_exits_validate(l, s.gone), CROWD_ERR_STALE_EXITS);
    const crowd_vec2 more[2] = {{15, 12}, {16, 12}};
    crowd_exits_id x, y;
    cr_assert_eq(crowd_exits_create(s.w, more, 2, &x), CROWD_OK);
    cr_assert_eq(crowd_exits_create(l, more, 2, &y), CROWD_OK);
    cr_assert(x.index1 == y.index1 && x.generation == y.generation && x.world == y.world);
    cr_assert_eq(x.index1, s.gone.index1);
    // Once no goal names a set, it can go, in both worlds alike.
    for (int i = 0; i < s.n; ++i) {
        crowd_agent_def d;
        cr_assert_eq(crowd_agent_get_def(s.w, s.ids[i], &d), CROWD_OK);
        if (d.goal.exits.index1 != s.exits[1].index1) continue;
        const crowd_goal g = goal_at(CROWD_GOAL_SEEK, 18, 12, CROWD_ROUTE_FIELD);
        cr_assert_eq(crowd_agent_set_goal(s.w, s.ids[i], &g), CROWD_OK);
        cr_assert_eq(crowd_agent_set_goal(l, s.ids[i], &g), CROWD_OK);
    }
    cr_assert_eq(crowd_exits_destroy(s.w, s.exits[1]), CROWD_OK);
    cr_assert_eq(crowd_exits_destroy(l, s.exits[1]), CROWD_OK);
    step_both(s.w, l, 40);
    free(b.p);
    crowd_world_destroy(l);
    crowd_world_destroy(s.w);
}

// Saved before its first step (no field built, destinations counted) and after its obstacles
// changed (the grid to be laid again): both continue the same.
Test(nav_snapshot, saved_with_fields_pending) {
    nav_scene s = nav_world(2, true);
    const crowd_vec2 extra[2] = {{12, 9}, {12, 13}};
    add_obstacle(s.w, CROWD_OBSTACLE_WALL, extra, 2);
    const crowd_goal g = goal_at(CROWD_GOAL_ARRIVE, 18, 12, CROWD_ROUTE_FIELD);
    cr_assert_eq(crowd_agent_set_goal(s.w, s.ids[0], &g), CROWD_OK);
    bytes b = save(s.w);
    crowd_world* l = load(&b, -1);
    step_both(s.w, l, 80);
    free(b.p);
    crowd_world_destroy(l);
    crowd_world_destroy(s.w);
}

// A world with navigation off keeps it off.
Test(nav_snapshot, navigation_off_round_trips) {
    nav_scene s = nav_world(1, false);
    bytes b = save(s.w);
    crowd_world* l = load(&b, -1);
    bytes again = save(l);
    cr_assert(again.n == b.n && memcmp(again.p, b.p, b.n) == 0);
    step_both(s.w, l, 40);
    cr_assert_eq(crowd_world_nav_stats(l).fields_in_use, 0);
    free(b.p), free(again.p);
    crowd_world_destroy(l);
    crowd_world_destroy(s.w);
}

// ---- older formats ------------------------------------------------------------------------------

// What a version 4 file could hold: obstacles, goals and waypoint followers, all with the default
// route (the only one there was), no exit set, goals of the spec's form (the only one there was).
static crowd_world* old_world(bool walls) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = 1;
    wd.world_tag = 33;
    crowd_world* w;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    if (walls) {
        const crowd_vec2 across[2] = {{-10, 0}, {6, 0}};
        add_obstacle(w, CROWD_OBSTACLE_WALL, across, 2);
    }
    for (int i = 0; i < 12; ++i) {
        crowd_goal g = goal_at(i % 2 ? CROWD_GOAL_ARRIVE : CROWD_GOAL_SEEK, -4.0f + (float)i, 8.0f,
                               CROWD_ROUTE_FIELD);
        g.form = CROWD_GOAL_FORM_LITERAL;
        add_agent(w, -8.0f + (float)i * 1.3f, -4.0f, &g);
    }
    const crowd_vec2 pts[3] = {{-8, -8}, {8, -8}, {8, 8}};
    crowd_path_id p;
    cr_assert_eq(crowd_path_create(w, pts, 3, &p), CROWD_OK);
    crowd_path_follow_def d = crowd_path_follow_def_default();
    d.path = p;
    const crowd_agent_id f = add_agent(w, 0.0f, -7.0f, NULL);
    cr_assert_eq(crowd_agent_set_path(w, f, &d), CROWD_OK);
    for (int t = 0; t < 5; ++t) cr_assert_eq(crowd_world_step(w), CROWD_OK);
    return w;
}

// The world saved, cut down to `version` and loaded, is the same world with navigation off (the
// way an older build stepped it): the same state, saved back in the current format with
// navigation off, and stepping as that world does.
static void expect_old_version_loads(uint32_t version, bool walls) {
    crowd_world* w = old_world(walls);
    bytes b = save(w);
    bytes old = {0};
    cr_assert(snapshot_downgrade(b.p, b.n, version, &old.p, &old.n));
    cr_assert_eq(rd(old.p + 8, 4), version);
    cr_assert_lt(old.n, b.n);
    crowd_world* l = NULL;
    cr_assert_eq(crowd_world_load(old.p, old.n, NULL, &l), CROWD_OK);
    // The default route hashes as before routing.
    cr_assert_eq(crowd_world_state_hash(l), crowd_world_state_hash(w));
    wr(b.p + section_of(&b, "WRLD", NULL) + 32, 4, 0); // navigation off
    reseal(&b);
    crowd_world* off = load(&b, -1);
    bytes again = save(l);
    cr_assert(again.n == b.n && memcmp(again.p, b.p, b.n) == 0);
    step_both(off, l, 60);
    // Its agents head straight at their goals, walls or not.
    crowd_agent_id ids[16];
    int n;
    cr_assert_eq(crowd_world_get_agents(l, ids, NULL, NULL, 16, &n), CROWD_OK);
    crowd_route_info r;
    cr_assert_eq(crowd_agent_get_route(l, ids[0], &r), CROWD_OK);
    cr_assert_eq(r.state, CROWD_ROUTE_STATE_STRAIGHT);
    free(b.p), free(old.p), free(again.p);
    crowd_world_destroy(l), crowd_world_destroy(w), crowd_world_destroy(off);
}

Test(nav_snapshot, version_4_loads_with_navigation_off) {
    expect_old_version_loads(4, true);
}

Test(nav_snapshot, version_3_loads_with_navigation_off) {
    expect_old_version_loads(3, false);
}

// What an older format cannot hold is not written in it (a check of the test's own converter).
Test(nav_snapshot, downgrade_refuses_navigation_state) {
    nav_scene s = nav_world(1, true);
    bytes b = save(s.w);
    bytes old = {0};
    cr_assert_not(snapshot_downgrade(b.p, b.n, 4, &old.p, &old.n));
    free(b.p);
    crowd_world_destroy(s.w);
}

// ---- damaged navigation content -----------------------------------------------------------------

typedef void edit_fn(bytes* b);

// The first agent record whose goal names an exit set, and its offset.
static size_t agent_with_exits(const bytes* b) {
    const size_t s = section_of(b, "AGNT", NULL);
    const uint32_t count = (uint32_t)rd(b->p + s, 4);
    for (uint32_t k = 0; k < count; ++k) {
        const size_t r = s + 4 + 100 * (size_t)k;
        if (rd(b->p + r + 88, 4) != 0 && rd(b->p + r + 56, 4) != CROWD_GOAL_NONE) return r;
    }
    cr_assert_fail("no agent with an exit set");
    return 0;
}
static size_t agent_without_exits(const bytes* b) {
    const size_t s = section_of(b, "AGNT", NULL);
    const uint32_t count = (uint32_t)rd(b->p + s, 4);
    for (uint32_t k = 0; k < count; ++k) {
        const size_t r = s + 4 + 100 * (size_t)k;
        if (rd(b->p + r + 88, 4) == 0) return r;
    }
    cr_assert_fail("no agent without an exit set");
    return 0;
}
// The EXIT section: slot 0 is the destroyed set (free), slot 1 has two points, slot 2 one.
static size_t exit_slot(const bytes* b, int k) {
    size_t at = section_of(b, "EXIT", NULL) + 4;
    for (int i = 0; i < k; ++i) at += 4 + (rd(b->p + at + 2, 2) ? 4 + 8 * rd(b->p + at + 4, 4) : 0);
    return at;
}

static void goal_names_missing_set(bytes* b) {
    wr(b->p + agent_with_exits(b) + 88, 4, 9);
}
static void goal_names_free_slot(bytes* b) {
    const size_t r = agent_with_exits(b);
    wr(b->p + r + 88, 4, 1); // slot 0: destroyed
    wr(b->p + r + 92, 4, 1); // its generation now
}
static void goal_names_old_generation(bytes* b) {
    const size_t r = agent_with_exits(b);
    wr(b->p + r + 92, 4, rd(b->p + r + 92, 4) + 1);
}
static void null_exits_with_generation(bytes* b) {
    wr(b->p + agent_without_exits(b) + 92, 4, 1);
}
static void exits_generation_too_large(bytes* b) {
    const size_t r = agent_with_exits(b);
    wr(b->p + r + 92, 4, rd(b->p + r + 92, 4) | 1u << 16);
}
static void route_out_of_range(bytes* b) {
    wr(b->p + agent_without_exits(b) + 84, 4, CROWD_ROUTE_COUNT);
}
static void flee_with_exits(bytes* b) {
    wr(b->p + agent_with_exits(b) + 56, 4, CROWD_GOAL_FLEE);
}
static void exit_set_empty(bytes* b) {
    wr(b->p + exit_slot(b, 2) + 4, 4, 0);
}
static void exit_set_too_many(bytes* b) {
    wr(b->p + exit_slot(b, 2) + 4, 4, CROWD_EXITS_MAX_POINTS + 1);
}
static void exit_point_nan(bytes* b) {
    wr(b->p + exit_slot(b, 1) + 8 + 4, 4, 0x7fc00000u);
}
static void exit_point_out_of_range(bytes* b) {
    wr_f32(b->p + exit_slot(b, 1) + 8 + 8, 2.0f * CROWD_MAX_COORD);
}
static void exit_live_two(bytes* b) {
    wr(b->p + exit_slot(b, 1) + 2, 2, 2);
}
static void exit_live_retired(bytes* b) {
    wr(b->p + exit_slot(b, 2), 2, UINT16_MAX);
}
static void exit_slots_beyond_payload(bytes* b) {
    wr(b->p + section_of(b, "EXIT", NULL), 4, 1u << 30);
}
static void exit_free_slot_made_live(bytes* b) {
    wr(b->p + exit_slot(b, 0) + 2, 2, 1); // then reads a count from the next slot's bytes
}
// The world section's navigation def: u32 enable at 32, f32 cell 36, clearance 40, u64 budget 44,
// u64 max_cells 52.
static void nav_enable_two(bytes* b) {
    wr(b->p + section_of(b, "WRLD", NULL) + 32, 4, 2);
}
static void nav_clearance_below_half_cell(bytes* b) {
    wr_f32(b->p + section_of(b, "WRLD", NULL) + 40, 0.1f);
}
static void nav_cell_nan(bytes* b) {
    wr(b->p + section_of(b, "WRLD", NULL) + 36, 4, 0x7fc00000u);
}
static void nav_max_cells_zero(bytes* b) {
    wr(b->p + section_of(b, "WRLD", NULL) + 52, 8, 0);
}
static void nav_max_cells_too_many(bytes* b) {
    wr(b->p + section_of(b, "WRLD", NULL) + 52, 8, ((uint64_t)1 << 30) + 1);
}
// The PATH section's follower records end with the route.
static void path_route_out_of_range(bytes* b) {
    const size_t s = section_of(b, "PATH", NULL);
    const uint8_t* p = b->p + s;
    size_t at = 8 + 4 * rd(p + 4, 4);
    for (uint32_t i = 0; i < (uint32_t)rd(p, 4); ++i) at += 12 + 8 * rd(p + at + 8, 4);
    wr(b->p + s + at + 4 + 72, 4, CROWD_ROUTE_COUNT);
}
static void section_without_exits(bytes* b) {
    // The EXIT entry named as the next section: the table is out of order.
    const uint32_t sections = (uint32_t)rd(b->p + 12, 4);
    for (uint32_t k = 0; k < sections; ++k)
        if (memcmp(b->p + 24 + 24 * (size_t)k, "EXIT", 4) == 0)
            memcpy(b->p + 24 + 24 * k, "AGNT", 4);
}

typedef struct corruption {
    const char* name;
    edit_fn* edit;
    crowd_status want;
} corruption;

Test(nav_snapshot, damaged_navigation_content_is_refused) {
    nav_scene s = nav_world(1, true);
    bytes b = save(s.w);
    const crowd_status corrupt = CROWD_ERR_SNAPSHOT_CORRUPT;
    const corruption cases[] = {
        {"goal names a missing exit set", goal_names_missing_set, corrupt},
        {"goal names a destroyed exit set", goal_names_free_slot, corrupt},
        {"goal names an old generation", goal_names_old_generation, corrupt},
        {"null exit set with a generation", null_exits_with_generation, corrupt},
        {"exit set generation beyond 16 bits", exits_generation_too_large, corrupt},
        {"route out of range", route_out_of_range, corrupt},
        {"a fleeing goal with an exit set", flee_with_exits, corrupt},
        {"exit set without points", exit_set_empty, corrupt},
        {"exit set with too many points", exit_set_too_many, corrupt},
        {"exit point NaN", exit_point_nan, corrupt},
        {"exit point beyond the coordinate range", exit_point_out_of_range, corrupt},
        {"exit slot live flag 2", exit_live_two, corrupt},
        {"live exit set at the retired generation", exit_live_retired, corrupt},
        {"exit slots beyond the payload", exit_slots_beyond_payload, corrupt},
        {"free exit slot made live", exit_free_slot_made_live, corrupt},
        {"navigation enable 2", nav_enable_two, corrupt},
        {"clearance below half a cell", nav_clearance_below_half_cell, corrupt},
        {"navigation cell size NaN", nav_cell_nan, corrupt},
        {"navigation max cells 0", nav_max_cells_zero, corrupt},
        {"navigation max cells beyond 2^30", nav_max_cells_too_many, corrupt},
        {"path route out of range", path_route_out_of_range, corrupt},
        {"exit section missing from the table", section_without_exits, CROWD_ERR_SNAPSHOT_SECTION},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        bytes c = {malloc(b.n), b.n};
        memcpy(c.p, b.p, b.n);
        cases[i].edit(&c);
        cr_assert_neq(memcmp(c.p, b.p, b.n), 0, "%s: the edit changed nothing", cases[i].name);
        reseal(&c);
        const crowd_status st = try_load(&c);
        cr_assert_eq(st, cases[i].want, "%s: got '%s'", cases[i].name, crowd_status_string(st));
        free(c.p);
    }
    free(b.p);
    crowd_world_destroy(s.w);
}

// Cut anywhere in the navigation content, or with any bit of it flipped, the snapshot is refused
// without leaving anything allocated.
Test(nav_snapshot, every_bit_flip_in_navigation_content_is_refused) {
    nav_scene s = nav_world(1, true);
    bytes b = save(s.w);
    size_t len = 0;
    const size_t at = section_of(&b, "EXIT", &len);
    for (size_t i = at; i < at + len; ++i)
        for (int bit = 0; bit < 8; ++bit) {
            b.p[i] ^= (uint8_t)(1u << bit);
            cr_assert_eq(try_load(&b), CROWD_ERR_SNAPSHOT_CHECKSUM);
            b.p[i] ^= (uint8_t)(1u << bit);
        }
    for (size_t cut = at; cut < at + len; cut += 3) {
        bytes c = {b.p, cut};
        cr_assert_neq(try_load(&c), CROWD_OK);
    }
    cr_assert_eq(try_load(&b), CROWD_OK);
    free(b.p);
    crowd_world_destroy(s.w);
}

// The load def's limit on navigation: a world whose grid and fields in use take more cells than
// it allows is refused before any step could lay and build them.
Test(nav_snapshot, navigation_beyond_the_load_limit) {
    nav_scene s = nav_world(1, true);
    cr_assert_eq(crowd_world_nav_update(s.w), CROWD_OK);
    const crowd_nav_stats st = crowd_world_nav_stats(s.w);
    const int64_t cells = (int64_t)st.grid_w * st.grid_h * (1 + st.fields_in_use);
    cr_assert_gt(st.grid_w, 0);
    bytes b = save(s.w);
    crowd_load_def d = crowd_load_def_default();
    d.max_nav_cells = cells;
    cr_assert_eq(try_load_with(&b, d), CROWD_OK);
    d.max_nav_cells = cells - 1;
    cr_assert_eq(try_load_with(&b, d), CROWD_ERR_SNAPSHOT_TOO_LARGE);
    d.max_nav_cells = -1;
    cr_assert_eq(try_load_with(&b, d), CROWD_ERR_BAD_COUNT);
    free(b.p);
    crowd_world_destroy(s.w);
    // Navigation off: no grid is ever laid, nothing to refuse.
    s = nav_world(1, false);
    b = save(s.w);
    d.max_nav_cells = 0;
    cr_assert_eq(try_load_with(&b, d), CROWD_OK);
    free(b.p);
    crowd_world_destroy(s.w);
}
