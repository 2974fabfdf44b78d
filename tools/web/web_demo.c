// Calls with plain arguments for the demo pages (tools/web/pages/): agents are named by their
// agent index (the columns' id), paths, obstacles and exit sets by a small slot number. Each
// returns a crowd_status (0 = CROWD_OK) or, for the adds, the new index or slot (>= 0) or minus a
// status.
#include <string.h>

#include "web.h"

enum { MAX_SLOTS = 4096 };
static crowd_path_id paths[MAX_SLOTS];
static crowd_obstacle_id obstacles[MAX_SLOTS];
static crowd_exits_id exits[MAX_SLOTS];

static crowd_status agent(int index, crowd_agent_id* id) {
    if (!web.world || index < 0) return CROWD_ERR_NULL_HANDLE;
    return crowd_world_columns_handle(web.world, (uint32_t)index, id);
}

// Points handed over as x0, y0, x1, y1, ... floats in the instance's memory.
static const crowd_vec2* points(const float* xy) {
    return (const crowd_vec2*)(const void*)xy;
}

static int free_slot(const void* table, size_t size) {
    static const char zero[16] = {0};
    for (int k = 0; k < MAX_SLOTS; ++k)
        if (!memcmp((const char*)table + (size_t)k * size, zero, size)) return k;
    return -1;
}

WEB_EXPORT(cw_add_agent)
int cw_add_agent(float x, float y, float radius, float max_speed, float hx, float hy) {
    if (!web.world) return -(int)CROWD_ERR_NULL_ARGUMENT;
    crowd_agent_def d = crowd_agent_def_default();
    d.position = (crowd_vec2){x, y};
    if (radius > 0.0f) d.radius = radius, d.separation_radius = radius * 4.0f;
    if (max_speed > 0.0f) d.max_speed = max_speed;
    if (hx != 0.0f || hy != 0.0f) d.heading = (crowd_vec2){hx, hy};
    crowd_agent_id id;
    const crowd_status st = crowd_agent_add(web.world, &d, &id);
    return st == CROWD_OK ? (int)id.index1 - 1 : -(int)st;
}

WEB_EXPORT(cw_remove_agent) int cw_remove_agent(int index) {
    crowd_agent_id id;
    crowd_status st = agent(index, &id);
    return (int)(st == CROWD_OK ? crowd_agent_remove(web.world, id) : st);
}

WEB_EXPORT(cw_set_position) int cw_set_position(int index, float x, float y) {
    crowd_agent_id id;
    crowd_status st = agent(index, &id);
    return (int)(st == CROWD_OK ? crowd_agent_set_position(web.world, id, (crowd_vec2){x, y}) : st);
}

WEB_EXPORT(cw_set_speed) int cw_set_speed(int index, float max_speed, float max_force) {
    crowd_agent_id id;
    crowd_status st = agent(index, &id);
    return (int)(st == CROWD_OK ? crowd_agent_set_limits(web.world, id, max_speed, max_force) : st);
}

WEB_EXPORT(cw_set_separation) int cw_set_separation(int index, float radius, float weight) {
    crowd_agent_id id;
    crowd_status st = agent(index, &id);
    return (int)(st == CROWD_OK ? crowd_agent_set_separation(web.world, id, radius, weight) : st);
}

// mode: crowd_goal_mode; exits_slot >= 0: the nearest exit of that set instead of (x, y).
WEB_EXPORT(cw_set_goal)
int cw_set_goal(int index, int mode, float x, float y, int straight, int exits_slot) {
    crowd_agent_id id;
    crowd_status st = agent(index, &id);
    if (st != CROWD_OK) return (int)st;
    crowd_goal g = crowd_goal_default();
    g.mode = (crowd_goal_mode)mode;
    g.target = (crowd_vec2){x, y};
    g.route = straight ? CROWD_ROUTE_STRAIGHT : CROWD_ROUTE_FIELD;
    if (exits_slot >= 0 && exits_slot < MAX_SLOTS) g.exits = exits[exits_slot];
    return (int)crowd_agent_set_goal(web.world, id, &g);
}

// slot: follow a formation slot (else the point behind_dist behind the leader).
WEB_EXPORT(cw_follow) int cw_follow(int follower, int leader, int slot, float behind_dist) {
    crowd_agent_id f, l;
    crowd_status st = agent(follower, &f);
    if (st == CROWD_OK) st = agent(leader, &l);
    if (st != CROWD_OK) return (int)st;
    crowd_follow_def d = crowd_follow_def_default();
    d.target = slot ? CROWD_FOLLOW_SLOT : CROWD_FOLLOW_BEHIND;
    if (behind_dist >= 0.0f) d.behind_dist = behind_dist;
    return (int)crowd_agent_follow(web.world, f, l, &d);
}

WEB_EXPORT(cw_set_formation)
int cw_set_formation(int leader, int shape, float spacing, float distance, int columns) {
    crowd_agent_id l;
    crowd_status st = agent(leader, &l);
    if (st != CROWD_OK) return (int)st;
    crowd_formation_def d = crowd_formation_def_default();
    d.shape = (crowd_formation_shape)shape;
    if (spacing > 0.0f) d.spacing = spacing;
    if (distance > 0.0f) d.distance = distance;
    if (columns > 0) d.columns = columns;
    return (int)crowd_leader_set_formation(web.world, l, &d);
}

// on_arrival: crowd_queue_policy; RESPAWN in the rectangle (x0, y0)..(x1, y1).
WEB_EXPORT(cw_set_queue)
int cw_set_queue(int index, float gx, float gy, float cone_length, float cone_width,
                 float arrival_radius, int on_arrival, float x0, float y0, float x1, float y1) {
    crowd_agent_id id;
    crowd_status st = agent(index, &id);
    if (st != CROWD_OK) return (int)st;
    crowd_queue_def q = crowd_queue_def_default();
    q.goal = (crowd_vec2){gx, gy};
    if (cone_length > 0.0f) q.cone_length = cone_length;
    if (cone_width >= 0.0f) q.cone_width = cone_width;
    if (arrival_radius > 0.0f) q.arrival_radius = arrival_radius;
    q.on_arrival = (crowd_queue_policy)on_arrival;
    q.start_min = (crowd_vec2){x0, y0};
    q.start_max = (crowd_vec2){x1, y1};
    return (int)crowd_agent_set_queue(web.world, id, &q);
}

WEB_EXPORT(cw_arrival_count) int cw_arrival_count(void) {
    return web.world ? crowd_world_arrival_count(web.world) : 0;
}

WEB_EXPORT(cw_path_create) int cw_path_create(const float* xy, int count) {
    const int k = free_slot(paths, sizeof paths[0]);
    if (!web.world || k < 0) return -(int)CROWD_ERR_CAPACITY;
    const crowd_status st = crowd_path_create(web.world, points(xy), count, &paths[k]);
    return st == CROWD_OK ? k : -(int)st;
}

int web_demo_adopt_path(crowd_path_id id) {
    for (int k = 0; k < MAX_SLOTS; ++k)
        if (!memcmp(&paths[k], &id, sizeof id)) return k;
    const int k = free_slot(paths, sizeof paths[0]);
    if (k >= 0) paths[k] = id;
    return k;
}

crowd_path_id web_demo_path(int slot) {
    return slot >= 0 && slot < MAX_SLOTS ? paths[slot] : (crowd_path_id){0};
}

WEB_EXPORT(cw_path_replace) int cw_path_replace(int slot, const float* xy, int count) {
    if (!web.world || slot < 0 || slot >= MAX_SLOTS) return (int)CROWD_ERR_NULL_PATH;
    return (int)crowd_path_replace(web.world, paths[slot], points(xy), count);
}

// kind: crowd_path_kind, mode: crowd_path_mode.
WEB_EXPORT(cw_set_path)
int cw_set_path(int index, int slot, int kind, int mode, float arrive_radius, float tube_radius,
                int start_index) {
    crowd_agent_id id;
    crowd_status st = agent(index, &id);
    if (st != CROWD_OK) return (int)st;
    if (slot < 0 || slot >= MAX_SLOTS) return (int)CROWD_ERR_NULL_PATH;
    crowd_path_follow_def f = crowd_path_follow_def_default();
    f.path = paths[slot];
    f.kind = (crowd_path_kind)kind;
    f.mode = (crowd_path_mode)mode;
    if (arrive_radius > 0.0f) f.arrive_radius = arrive_radius;
    if (tube_radius > 0.0f) f.tube_radius = tube_radius;
    f.start_index = start_index;
    return (int)crowd_agent_set_path(web.world, id, &f);
}

// kind: crowd_obstacle_kind (0 wall, 1 polygon).
WEB_EXPORT(cw_obstacle_add) int cw_obstacle_add(int kind, const float* xy, int count) {
    const int k = free_slot(obstacles, sizeof obstacles[0]);
    if (!web.world || k < 0) return -(int)CROWD_ERR_CAPACITY;
    const crowd_status st =
        crowd_obstacle_add(web.world, (crowd_obstacle_kind)kind, points(xy), count, &obstacles[k]);
    return st == CROWD_OK ? k : -(int)st;
}

WEB_EXPORT(cw_obstacle_remove) int cw_obstacle_remove(int slot) {
    if (!web.world || slot < 0 || slot >= MAX_SLOTS) return (int)CROWD_ERR_NULL_OBSTACLE;
    const crowd_status st = crowd_obstacle_remove(web.world, obstacles[slot]);
    if (st == CROWD_OK) obstacles[slot] = (crowd_obstacle_id){0};
    return (int)st;
}

WEB_EXPORT(cw_exits_create) int cw_exits_create(const float* xy, int count) {
    const int k = free_slot(exits, sizeof exits[0]);
    if (!web.world || k < 0) return -(int)CROWD_ERR_CAPACITY;
    const crowd_status st = crowd_exits_create(web.world, points(xy), count, &exits[k]);
    return st == CROWD_OK ? k : -(int)st;
}

// Forgets the slots of the world that was replaced (web_world.c calls it).
void web_demo_reset(void) {
    memset(paths, 0, sizeof paths);
    memset(obstacles, 0, sizeof obstacles);
    memset(exits, 0, sizeof exits);
}
