// Calls that edit a scenario's world as a whole for the demo pages: what the scenario built (its
// agents' kinds, its paths, its obstacles), an agent added like another, and one setting changed
// for every agent that shares a queue or a path.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "web.h"

static float buf[65536]; // the lists handed to JavaScript

static crowd_status live(int index, crowd_agent_id* id) {
    if (!web.world || index < 0) return CROWD_ERR_NULL_HANDLE;
    return crowd_world_columns_handle(web.world, (uint32_t)index, id);
}

// The kind (build.h's agent_kind) of agent index `index` in a scenario's world, -1 elsewhere.
WEB_EXPORT(cw_kind) int cw_kind(int index) {
    if (!web.has_built || index < 0 || index >= web.built.kind_cap) return -1;
    return web.built.kind[index];
}

// Every live agent index, in handle order: buf holds them as floats; the count.
WEB_EXPORT(cw_agents) int cw_agents(void) {
    if (!web.world) return 0;
    const int n = crowd_world_agent_count(web.world);
    crowd_agent_id* ids = malloc(sizeof *ids * (size_t)(n > 0 ? n : 1));
    int count = 0;
    if (!ids || crowd_world_get_agents(web.world, ids, NULL, NULL, n, &count) != CROWD_OK)
        count = 0;
    if (count > (int)(sizeof buf / sizeof buf[0])) count = (int)(sizeof buf / sizeof buf[0]);
    for (int k = 0; k < count; ++k) buf[k] = (float)(ids[k].index1 - 1);
    free(ids);
    return count;
}

WEB_EXPORT(cw_buf) float* cw_buf(void) {
    return buf;
}

// The obstacles: buf holds, for each, its kind, its point count n and n points; the count.
WEB_EXPORT(cw_obstacles) int cw_obstacles(void) {
    if (!web.world) return 0;
    crowd_obstacle_id ids[1024];
    int n = 0, used = 0, out = 0;
    if (crowd_world_get_obstacles(web.world, ids, 1024, &n) != CROWD_OK) return 0;
    for (int k = 0; k < n; ++k) {
        crowd_obstacle_kind kind;
        int count = 0;
        const int room = ((int)(sizeof buf / sizeof buf[0]) - used - 2) / 2;
        if (room <= 0 || crowd_obstacle_get_points(web.world, ids[k], &kind,
                                                   (crowd_vec2*)(void*)(buf + used + 2), room,
                                                   &count) != CROWD_OK)
            break;
        buf[used] = (float)kind;
        buf[used + 1] = (float)count;
        used += 2 + 2 * count;
        ++out;
    }
    return out;
}

// Path k of the scenario made a demo slot (web_demo.c); -1 when the scenario did not create it.
WEB_EXPORT(cw_scenario_path) int cw_scenario_path(int k) {
    if (!web.has_built || k < 0 || k >= web.sc.path_count || !web.built.paths) return -1;
    if (crowd_path_validate(web.world, web.built.paths[k]) != CROWD_OK) return -1;
    return web_demo_adopt_path(web.built.paths[k]);
}

WEB_EXPORT(cw_scenario_path_count) int cw_scenario_path_count(void) {
    return web.has_built ? web.sc.path_count : 0;
}

// The points of a path slot in buf; the count.
WEB_EXPORT(cw_path_points) int cw_path_points(int slot) {
    int count = 0;
    if (!web.world ||
        crowd_path_get_points(web.world, web_demo_path(slot), (crowd_vec2*)buf,
                              (int)(sizeof buf / sizeof buf[0]) / 2, &count) != CROWD_OK)
        return 0;
    return count;
}

// Every agent on path `slot`: kind (crowd_path_kind), mode, arrive radius and tube radius set
// (a value < 0 keeps the agent's own); the number of agents changed.
WEB_EXPORT(cw_path_edit)
int cw_path_edit(int slot, int kind, int mode, float arrive_radius, float tube_radius) {
    const crowd_path_id path = web_demo_path(slot);
    const int n = cw_agents();
    int changed = 0;
    for (int k = 0; k < n; ++k) {
        crowd_agent_id id;
        crowd_path_follow_def f;
        crowd_path_cursor c;
        if (live((int)buf[k], &id) != CROWD_OK || crowd_agent_get_path(web.world, id, &f, &c) ||
            memcmp(&f.path, &path, sizeof path) != 0)
            continue;
        if (kind >= 0) f.kind = (crowd_path_kind)kind;
        if (mode >= 0) f.mode = (crowd_path_mode)mode;
        if (arrive_radius > 0.0f) f.arrive_radius = arrive_radius;
        if (tube_radius > 0.0f) f.tube_radius = tube_radius;
        f.start_index = c.index < 0 ? 0 : c.index;
        f.reverse = c.direction < 0;
        if (crowd_agent_set_path(web.world, id, &f) == CROWD_OK) ++changed;
    }
    return changed;
}

// The distinct goals of the queues in the world in buf (x, y pairs); their count.
WEB_EXPORT(cw_queue_goals) int cw_queue_goals(void) {
    const int n = cw_agents();
    float* idx = malloc(sizeof *idx * (size_t)(n > 0 ? n : 1));
    if (!idx) return 0;
    memcpy(idx, buf, sizeof *idx * (size_t)n);
    int goals = 0;
    for (int k = 0; k < n && goals < 256; ++k) {
        crowd_agent_id id;
        crowd_queue_def q;
        if (live((int)idx[k], &id) != CROWD_OK || crowd_agent_get_queue(web.world, id, &q))
            continue;
        bool seen = false;
        for (int g = 0; g < goals && !seen; ++g)
            seen = buf[2 * g] == q.goal.x && buf[2 * g + 1] == q.goal.y;
        if (!seen) buf[2 * goals] = q.goal.x, buf[2 * goals + 1] = q.goal.y, ++goals;
    }
    free(idx);
    return goals;
}

// Every queue agent whose goal is (gx, gy): goal moved to (nx, ny), cone and arrival radius set
// (a value < 0 keeps the agent's own); the number of agents changed.
WEB_EXPORT(cw_queue_edit)
int cw_queue_edit(float gx, float gy, float nx, float ny, float cone_length, float cone_width,
                  float arrival_radius) {
    const int n = cw_agents();
    int changed = 0;
    for (int k = 0; k < n; ++k) {
        crowd_agent_id id;
        crowd_queue_def q;
        if (live((int)buf[k], &id) != CROWD_OK || crowd_agent_get_queue(web.world, id, &q) ||
            q.goal.x != gx || q.goal.y != gy)
            continue;
        q.goal = (crowd_vec2){nx, ny};
        if (cone_length > 0.0f) q.cone_length = cone_length;
        if (cone_width >= 0.0f) q.cone_width = cone_width;
        if (arrival_radius > 0.0f) q.arrival_radius = arrival_radius;
        if (crowd_agent_set_queue(web.world, id, &q) == CROWD_OK) ++changed;
    }
    return changed;
}

// Every agent: wall force weight and look-ahead (< 0 keeps), max speed (<= 0 keeps),
// separation weight (< 0 keeps); the number changed.
WEB_EXPORT(cw_edit_all)
int cw_edit_all(float wall_weight, float look_ahead, float max_speed, float separation_weight) {
    const int n = cw_agents();
    int changed = 0;
    for (int k = 0; k < n; ++k) {
        crowd_agent_id id;
        crowd_agent_def d;
        if (live((int)buf[k], &id) != CROWD_OK || crowd_agent_get_def(web.world, id, &d)) continue;
        crowd_status st = CROWD_OK;
        if (wall_weight >= 0.0f || look_ahead >= 0.0f) {
            if (wall_weight >= 0.0f) d.walls.weight = wall_weight;
            if (look_ahead >= 0.0f) d.walls.look_ahead = look_ahead;
            st = crowd_agent_set_walls(web.world, id, &d.walls);
        }
        if (st == CROWD_OK && max_speed > 0.0f)
            st = crowd_agent_set_limits(web.world, id, max_speed, d.max_force);
        if (st == CROWD_OK && separation_weight >= 0.0f)
            st = crowd_agent_set_separation(web.world, id, d.separation_radius, separation_weight);
        if (st == CROWD_OK) ++changed;
    }
    return changed;
}

// A new agent at (x, y) like agent `like`: its def, goal, queue, path and leader; the new index,
// or minus a status.
WEB_EXPORT(cw_add_like) int cw_add_like(int like, float x, float y) {
    crowd_agent_id src, id;
    crowd_agent_def d;
    crowd_status st = live(like, &src);
    if (st == CROWD_OK) st = crowd_agent_get_def(web.world, src, &d);
    if (st != CROWD_OK) return -(int)st;
    d.position = (crowd_vec2){x, y};
    d.velocity = (crowd_vec2){0.0f, 0.0f};
    st = crowd_agent_add(web.world, &d, &id);
    if (st != CROWD_OK) return -(int)st;
    crowd_queue_def q;
    crowd_path_follow_def f;
    crowd_path_cursor c;
    crowd_follow_info fi;
    if (crowd_agent_get_queue(web.world, src, &q) == CROWD_OK)
        st = crowd_agent_set_queue(web.world, id, &q);
    if (st == CROWD_OK && crowd_agent_get_path(web.world, src, &f, &c) == CROWD_OK &&
        c.state != CROWD_PATH_STATE_NONE && c.state != CROWD_PATH_STATE_DETACHED) {
        f.start_index = 0;
        st = crowd_agent_set_path(web.world, id, &f);
    }
    if (st == CROWD_OK && crowd_agent_get_follow(web.world, src, &fi) == CROWD_OK &&
        fi.state == CROWD_FOLLOW_ACTIVE)
        st = crowd_agent_follow(web.world, id, fi.leader, &fi.def);
    if (st != CROWD_OK) {
        crowd_agent_remove(web.world, id);
        return -(int)st;
    }
    if (web.has_built) built_world_set_kind(&web.built, id, (agent_kind)cw_kind(like));
    return (int)id.index1 - 1;
}

// Marks agent `index` as `kind` (build.h's agent_kind) for the pages' colors; a scenario's world
// only.
WEB_EXPORT(cw_set_kind) int cw_set_kind(int index, int kind) {
    crowd_agent_id id;
    if (!web.has_built || live(index, &id) != CROWD_OK || kind < 0 || kind >= AGENT_KIND_COUNT)
        return -1;
    return built_world_set_kind(&web.built, id, (agent_kind)kind) ? 0 : -1;
}
