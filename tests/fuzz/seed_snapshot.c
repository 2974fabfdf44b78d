// Writes the snapshot fuzz target's seed corpus: snapshots of real worlds of a few shapes (empty,
// one agent, removals and re-additions, every goal mode, reserved capacity, many agents, queues,
// paths and follow-leader groups, values at the valid ranges with a neighbor cap, a walled town,
// a routed room with exit sets and navigation on and off, its fields repaired after a wall was
// added and with a repair pending), and the same worlds in the older
// formats where they can hold them (versions 3, 4 and 5, through snapshot_downgrade.h).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/crowd.h"
#include "scenes.h"
#include "snapshot_downgrade.h"

static int write_file(const char* dir, const char* name, const void* buf, size_t n) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE* f = fopen(path, "wb");
    int bad = !f || fwrite(buf, 1, n, f) != n;
    if (f) bad |= fclose(f) != 0;
    return bad;
}

// The world's snapshot, and the version 5, 4 and 3 ones when those formats can hold the world.
static int write_seed(const char* dir, const char* name, const crowd_world* w) {
    size_t n = crowd_world_save_size(w);
    uint8_t* buf = malloc(n);
    if (!buf || crowd_world_save(w, buf, n, &n) != CROWD_OK) {
        free(buf);
        return 1;
    }
    int bad = write_file(dir, name, buf, n);
    for (uint32_t v = 3; v <= 5; ++v) {
        uint8_t* old;
        size_t m;
        if (!snapshot_downgrade(buf, n, v, &old, &m)) continue;
        char old_name[256];
        snprintf(old_name, sizeof old_name, "%s.v%u", name, (unsigned)v);
        bad |= write_file(dir, old_name, old, m);
        free(old);
    }
    free(buf);
    return bad;
}

static crowd_world* scene(scene_kind kind, int agents, int ticks) {
    scene_def def = scene_def_default();
    def.kind = kind;
    def.agents = agents;
    def.threads = 1;
    crowd_world* w;
    if (scene_create(&def, &w) != CROWD_OK) return NULL;
    for (int t = 0; t < ticks; ++t) crowd_world_step(w);
    return w;
}

// Waypoint and tube followers on a path table with a destroyed, a reused and a replaced slot, and
// groups: a custom formation, a chain, a leader removed onto its fallback, one removed without,
// and followers that joined after the last step (a reassignment pending).
static int paths_and_groups(const char* dir) {
    crowd_world* w = scene(SCENE_MIXED, 40, 5);
    if (!w) return 1;
    crowd_agent_id ids[40];
    int n, bad = crowd_world_get_agents(w, ids, NULL, NULL, 40, &n) != CROWD_OK || n < 40;
    const crowd_vec2 a[4] = {{-10, -10}, {10, -10}, {10, 10}, {-10, 10}};
    const crowd_vec2 b[3] = {{-20, 0}, {0, 5}, {20, 0}};
    crowd_path_id p[3];
    for (int k = 0; !bad && k < 3; ++k)
        bad |= crowd_path_create(w, k == 1 ? b : a, 3 + (k != 1), &p[k]) != CROWD_OK;
    for (int i = 0; !bad && i < 12; ++i) {
        crowd_path_follow_def d = crowd_path_follow_def_default();
        d.path = p[i % 3];
        d.kind = i % 2 ? CROWD_PATH_TUBE : CROWD_PATH_WAYPOINTS;
        d.mode = (crowd_path_mode)(i % CROWD_PATH_MODE_COUNT);
        bad |= crowd_agent_set_path(w, ids[i], &d) != CROWD_OK;
    }
    const crowd_vec2 offsets[3] = {{-2, 1}, {-2, -1}, {-4, 0}};
    crowd_formation_def f = crowd_formation_def_default();
    f.shape = CROWD_FORMATION_CUSTOM;
    f.offsets = offsets;
    f.offset_count = 3;
    bad |= bad || crowd_leader_set_formation(w, ids[12], &f) != CROWD_OK;
    crowd_follow_def slot = crowd_follow_def_default(), behind = slot;
    slot.target = CROWD_FOLLOW_SLOT;
    for (int i = 13; !bad && i < 18; ++i)
        bad |= crowd_agent_follow(w, ids[i], ids[12], &slot) != CROWD_OK;
    for (int i = 18; !bad && i < 22; ++i)
        bad |= crowd_agent_follow(w, ids[i], ids[i - 1 == 17 ? 12 : i - 1], &behind) != CROWD_OK;
    for (int i = 23; !bad && i < 28; ++i)
        bad |= crowd_agent_follow(w, ids[i], ids[22], &slot) != CROWD_OK;
    for (int i = 29; !bad && i < 32; ++i)
        bad |= crowd_agent_follow(w, ids[i], ids[28], &behind) != CROWD_OK;
    bad |= bad || crowd_leader_set_fallback(w, ids[22], ids[12]) != CROWD_OK;
    for (int t = 0; !bad && t < 10; ++t) crowd_world_step(w);
    bad |= bad || crowd_path_destroy(w, p[2]) != CROWD_OK;
    bad |= bad || crowd_path_replace(w, p[1], a, 4) != CROWD_OK;
    bad |= bad || crowd_agent_remove(w, ids[22]) != CROWD_OK;
    bad |= bad || crowd_agent_remove(w, ids[28]) != CROWD_OK;
    crowd_world_step(w);
    bad |= bad || crowd_path_create(w, b, 3, &p[2]) != CROWD_OK;
    for (int i = 32; !bad && i < 36; ++i)
        bad |= crowd_agent_follow(w, ids[i], ids[12], &slot) != CROWD_OK;
    bad |= bad || write_seed(dir, "paths_groups", w);
    crowd_world_destroy(w);
    return bad;
}

// A small town (solid blocks, agents on street loops) after some steps, with its oldest block
// removed (a free obstacle slot), a wall added at runtime and wall avoidance changed on a few
// agents.
static int walled(const char* dir) {
    crowd_world* w = scene(SCENE_TOWN, 300, 10);
    if (!w) return 1;
    const int obstacles = crowd_world_obstacle_count(w), agents = crowd_world_agent_count(w);
    crowd_obstacle_id* ids = malloc(sizeof *ids * (size_t)(obstacles ? obstacles : 1));
    crowd_agent_id* all = malloc(sizeof *all * (size_t)(agents ? agents : 1));
    int n = 0;
    int bad = !ids || !all || obstacles < 1 || agents < 5 ||
              crowd_world_get_obstacles(w, ids, obstacles, &n) != CROWD_OK;
    bad |= bad || crowd_obstacle_remove(w, ids[0]) != CROWD_OK;
    const crowd_vec2 wall[3] = {{-15, -15}, {-5, -15}, {-5, -12}};
    crowd_obstacle_id id;
    bad |= bad || crowd_obstacle_add(w, CROWD_OBSTACLE_WALL, wall, 3, &id) != CROWD_OK;
    bad |= bad || crowd_world_get_agents(w, all, NULL, NULL, agents, &n) != CROWD_OK;
    const crowd_wall_def wd = {2.0f, 0.4f};
    for (int i = 0; !bad && i < 5; ++i) bad |= crowd_agent_set_walls(w, all[i], &wd) != CROWD_OK;
    free(ids);
    free(all);
    for (int t = 0; !bad && t < 2; ++t) crowd_world_step(w);
    bad |= bad || write_seed(dir, "town", w);
    crowd_world_destroy(w);
    return bad;
}

// Values at the valid ranges (crowd/base.h) and a neighbor cap, so mutations explore the range
// checks of the loader on both sides of every bound.
static int bounds(const char* dir) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = 1;
    wd.dt = CROWD_MAX_DT;
    wd.cell_size = CROWD_MIN_CELL_SIZE;
    wd.max_neighbors = 3;
    // The navigation def at its bounds: the smallest cell, a clearance just above half of it,
    // every cell the grid may have, no budget at all.
    wd.nav.cell_size = CROWD_MIN_CELL_SIZE;
    wd.nav.clearance = nextafterf(0.5f * CROWD_MIN_CELL_SIZE, 1.0f);
    wd.nav.max_cells = (int64_t)1 << 30;
    wd.nav.budget = 0;
    crowd_world* w;
    if (crowd_world_create(&wd, &w) != CROWD_OK) return 1;
    int bad = 0;
    for (int i = 0; i < 6; ++i) {
        crowd_agent_def a = crowd_agent_def_default();
        const float s = i % 2 ? 1.0f : -1.0f;
        a.position = (crowd_vec2){s * CROWD_MAX_COORD, (float)i * 0.2f};
        a.velocity = (crowd_vec2){s * CROWD_MAX_SPEED, 0.0f};
        a.radius = CROWD_MAX_DISTANCE;
        a.max_speed = i < 3 ? CROWD_MAX_SPEED : CROWD_MIN_SPEED;
        a.max_force = CROWD_MAX_FORCE;
        a.separation_radius = CROWD_MAX_DISTANCE;
        a.separation_weight = CROWD_MAX_WEIGHT;
        a.goal = crowd_goal_default();
        a.goal.mode = CROWD_GOAL_ARRIVE;
        a.goal.target = (crowd_vec2){-s * CROWD_MAX_COORD, CROWD_MAX_COORD};
        a.goal.slow_radius = CROWD_MAX_DISTANCE;
        a.goal.weight = CROWD_MAX_WEIGHT;
        a.goal.route = i % 3 == 1 ? CROWD_ROUTE_STRAIGHT : CROWD_ROUTE_FIELD;
        crowd_agent_id id;
        bad |= crowd_agent_add(w, &a, &id) != CROWD_OK;
    }
    crowd_world_step(w);
    bad |= write_seed(dir, "bounds", w);
    crowd_world_destroy(w);
    return bad;
}

// A room split by a wall with a solid block, exit sets (one destroyed: a free slot), goals of every
// mode toward points and exits, routed and straight, and routed and straight waypoint followers;
// stepped so that its fields are built. Saved with navigation on, and the same world built with it
// off. Small enough for the fuzz target's navigation grid limit.
static int routed_room(const char* dir, const char* name, bool enable) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = 1;
    wd.nav.enable = enable;
    wd.nav.cell_size = 0.4f;
    wd.nav.clearance = 0.3f;
    wd.nav.budget = (size_t)16 << 20;
    wd.nav.max_cells = 1 << 16;
    crowd_world* w;
    if (crowd_world_create(&wd, &w) != CROWD_OK) return 1;
    int bad = 0;
    crowd_obstacle_id o;
    const crowd_vec2 room[5] = {{0, 0}, {16, 0}, {16, 12}, {0, 12}, {0, 0}};
    const crowd_vec2 across[2] = {{0, 6}, {12, 6}};
    const crowd_vec2 block[4] = {{6, 2}, {8, 2}, {8, 4}, {6, 4}};
    bad |= crowd_obstacle_add(w, CROWD_OBSTACLE_WALL, room, 5, &o) != CROWD_OK;
    bad |= crowd_obstacle_add(w, CROWD_OBSTACLE_WALL, across, 2, &o) != CROWD_OK;
    bad |= crowd_obstacle_add(w, CROWD_OBSTACLE_POLYGON, block, 4, &o) != CROWD_OK;
    const crowd_vec2 doors[3] = {{1, 11}, {8, 11.5f}, {15, 11}};
    const crowd_vec2 gone[1] = {{2, 2}};
    crowd_exits_id e[3];
    bad |= crowd_exits_create(w, gone, 1, &e[0]) != CROWD_OK;
    bad |= crowd_exits_create(w, doors, 3, &e[1]) != CROWD_OK;
    bad |= crowd_exits_create(w, doors + 2, 1, &e[2]) != CROWD_OK;
    bad |= bad || crowd_exits_destroy(w, e[0]) != CROWD_OK;
    for (int i = 0; !bad && i < 20; ++i) {
        crowd_agent_def a = crowd_agent_def_default();
        a.position = (crowd_vec2){1.2f + (float)(i % 10) * 1.4f, i < 10 ? 1.2f : 4.8f};
        if (a.position.x > 5.5f && a.position.x < 8.5f && a.position.y < 4.5f) a.position.y = 5.0f;
        a.goal.mode = (crowd_goal_mode)(i % CROWD_GOAL_MODE_COUNT);
        a.goal.target = (crowd_vec2){2.0f + (float)(i % 5) * 2.5f, 9.0f};
        a.goal.route = i % 4 == 3 ? CROWD_ROUTE_STRAIGHT : CROWD_ROUTE_FIELD;
        if (i % 3 == 1 && a.goal.mode != CROWD_GOAL_FLEE) a.goal.exits = e[1 + i % 2];
        crowd_agent_id id;
        bad |= crowd_agent_add(w, &a, &id) != CROWD_OK;
    }
    const crowd_vec2 loop[4] = {{2, 3}, {14, 3}, {14, 9}, {2, 9}};
    crowd_path_id p;
    bad |= bad || crowd_path_create(w, loop, 4, &p) != CROWD_OK;
    for (int i = 0; !bad && i < 4; ++i) {
        crowd_agent_def a = crowd_agent_def_default();
        a.position = (crowd_vec2){3.0f + (float)i * 3.0f, 7.5f};
        crowd_agent_id id;
        bad |= crowd_agent_add(w, &a, &id) != CROWD_OK;
        crowd_path_follow_def d = crowd_path_follow_def_default();
        d.path = p;
        d.kind = i == 3 ? CROWD_PATH_TUBE : CROWD_PATH_WAYPOINTS;
        d.route = i == 1 ? CROWD_ROUTE_STRAIGHT : CROWD_ROUTE_FIELD;
        bad |= bad || crowd_agent_set_path(w, id, &d) != CROWD_OK;
    }
    for (int t = 0; !bad && t < 8; ++t) bad |= crowd_world_step(w) != CROWD_OK;
    bad |= bad || write_seed(dir, name, w);
    if (enable && !bad) {
        // A wall inside the room, after which the fields in use are repaired (saved in 'NAVF'),
        // then another one with the repair pending (the fields and the grid before it saved).
        char more[256];
        const crowd_vec2 inner[2] = {{15, 5}, {15.6f, 5}}, post[2] = {{3, 10}, {3, 11}};
        bad |= crowd_obstacle_add(w, CROWD_OBSTACLE_WALL, inner, 2, &o) != CROWD_OK;
        bad |= bad || crowd_world_step(w) != CROWD_OK;
        snprintf(more, sizeof more, "%s_repaired", name);
        bad |= bad || write_seed(dir, more, w);
        bad |= bad || crowd_obstacle_add(w, CROWD_OBSTACLE_WALL, post, 2, &o) != CROWD_OK;
        snprintf(more, sizeof more, "%s_repair_pending", name);
        bad |= bad || write_seed(dir, more, w);
    }
    crowd_world_destroy(w);
    return bad;
}

int main(int argc, char** argv) {
    if (argc != 2) {
        fputs("usage: seed_snapshot DIR\n", stderr);
        return 2;
    }
    const char* dir = argv[1];
    int bad = 0;
    crowd_world* w = scene(SCENE_SEPARATION, 0, 0);
    bad |= !w || write_seed(dir, "empty", w);
    crowd_world_destroy(w);

    w = scene(SCENE_MIXED, 1, 3);
    bad |= !w || write_seed(dir, "one", w);
    crowd_world_destroy(w);

    w = scene(SCENE_MIXED, 24, 10);
    if (w) {
        crowd_agent_id ids[24];
        int n;
        bad |= crowd_world_get_agents(w, ids, NULL, NULL, 24, &n) != CROWD_OK;
        for (int i = 0; !bad && i < n; i += 3) bad |= crowd_agent_remove(w, ids[i]) != CROWD_OK;
        crowd_agent_def a = crowd_agent_def_default();
        a.goal.mode = CROWD_GOAL_FLEE;
        a.user_data = 77;
        bad |= crowd_agent_add(w, &a, &ids[0]) != CROWD_OK;
        crowd_world_step(w);
        bad |= write_seed(dir, "churned", w);
        bad |= crowd_world_reserve(w, 300) != CROWD_OK;
        bad |= write_seed(dir, "reserved", w);
    }
    crowd_world_destroy(w);

    w = scene(SCENE_CROSSING, 60, 20);
    bad |= !w || write_seed(dir, "crossing", w);
    crowd_world_destroy(w);

    w = scene(SCENE_MIXED, 200, 5);
    bad |= !w || write_seed(dir, "mixed", w);
    crowd_world_destroy(w);

    w = scene(SCENE_QUEUE, 80, 60); // queues (respawning) and the world's random stream
    bad |= !w || write_seed(dir, "queues", w);
    crowd_world_destroy(w);
    bad |= paths_and_groups(dir);
    bad |= walled(dir);
    bad |= bounds(dir);
    bad |= routed_room(dir, "routed_room", true);
    bad |= routed_room(dir, "routed_room_off", false);
    if (bad) fputs("seed_snapshot: failed\n", stderr);
    return bad;
}
