// Building the queue, path-following and follow-leader sections of a scenario: the only places
// where the command touches the behavior APIs.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "build.h"

static bool failed(const built_world* b, json_pos pos, const char* what, crowd_status st, char* err,
                   size_t errlen) {
    snprintf(err, errlen, "%s:%d:%d: %s: %s", b->sc->file, pos.line, pos.col, what,
             crowd_status_string(st));
    return false;
}

static bool refused(const built_world* b, json_pos pos, const char* why, char* err, size_t errlen) {
    snprintf(err, errlen, "%s:%d:%d: %s", b->sc->file, pos.line, pos.col, why);
    return false;
}

bool build_queue(built_world* b, const sc_crowd* crowd, const crowd_agent_id* ids, int count,
                 char* err, size_t errlen) {
    const sc_queue* q = &crowd->queue;
    crowd_queue_def def = crowd_queue_def_default();
    def.cone_length = q->cone_length;
    def.cone_width = q->cone_width;
    def.goal = q->target;
    def.slow_radius = q->slow_radius;
    def.weight = q->weight;
    def.arrival_radius = q->arrive_radius;
    def.on_arrival = q->on_arrival == SC_ARRIVAL_REMOVE    ? CROWD_QUEUE_REMOVE
                     : q->on_arrival == SC_ARRIVAL_RESPAWN ? CROWD_QUEUE_RESPAWN
                                                           : CROWD_QUEUE_STOP;
    if (q->has_start_area) {
        if (q->start_area.kind != SC_AREA_UNIFORM)
            return refused(b, crowd->queue_pos,
                           "queue.start_area: respawn areas are rectangles (kind \"uniform\")", err,
                           errlen);
        def.start_min = q->start_area.min;
        def.start_max = q->start_area.max;
    }
    // The queue arrives at its goal; a seeking queue keeps the cone braking and the arrival test
    // and replaces arrive by seek. crowd_agent_set_queue sets a routed goal: a straight one is set
    // after it.
    const crowd_goal goal = {.mode = q->mode,
                             .target = q->target,
                             .slow_radius = q->slow_radius,
                             .weight = q->weight,
                             .route = q->route};
    const bool set_goal = q->mode == CROWD_GOAL_SEEK || q->route != CROWD_ROUTE_FIELD;
    for (int k = 0; k < count; ++k) {
        crowd_status st = crowd_agent_set_queue(b->world, ids[k], &def);
        if (st == CROWD_OK && set_goal) st = crowd_agent_set_goal(b->world, ids[k], &goal);
        if (st != CROWD_OK) return failed(b, crowd->queue_pos, "queue", st, err, errlen);
    }
    return true;
}

static bool create_paths(built_world* b, char* err, size_t errlen) {
    if (b->paths) return true;
    const scenario* sc = b->sc;
    b->paths = calloc((size_t)sc->path_count, sizeof *b->paths);
    if (!b->paths) return refused(b, (json_pos){0, 0}, "out of memory", err, errlen);
    for (int p = 0; p < sc->path_count; ++p) {
        crowd_status st =
            crowd_path_create(b->world, sc->paths[p].points, sc->paths[p].count, &b->paths[p]);
        if (st != CROWD_OK) return failed(b, sc->paths[p].pos, "path", st, err, errlen);
    }
    return true;
}

// Index of the path point nearest to p: where an agent dropped anywhere starts its walk.
static int nearest_point(const sc_path* path, crowd_vec2 p) {
    int best = 0;
    float best_d2 = INFINITY;
    for (int i = 0; i < path->count; ++i) {
        const float dx = path->points[i].x - p.x, dy = path->points[i].y - p.y;
        const float d2 = dx * dx + dy * dy;
        if (d2 < best_d2) best = i, best_d2 = d2;
    }
    return best;
}

bool build_path(built_world* b, const sc_crowd* crowd, const crowd_agent_id* ids, int count,
                char* err, size_t errlen) {
    if (!create_paths(b, err, errlen)) return false;
    const sc_path_follow* f = &crowd->path;
    const sc_path* path = &b->sc->paths[f->path];
    crowd_path_follow_def def = crowd_path_follow_def_default();
    def.path = b->paths[f->path];
    def.kind = f->kind == SC_PATH_TUBE ? CROWD_PATH_TUBE : CROWD_PATH_WAYPOINTS;
    def.mode = f->mode == SC_PATH_ONE_SHOT    ? CROWD_PATH_ONE_SHOT
               : f->mode == SC_PATH_PING_PONG ? CROWD_PATH_PING_PONG
                                              : CROWD_PATH_LOOP;
    def.weight = f->weight;
    if (def.kind == CROWD_PATH_WAYPOINTS) def.route = f->route;
    if (def.kind == CROWD_PATH_TUBE) {
        def.tube_radius = f->tube_radius;
        def.predict_ahead = f->predict_ahead;
    } else {
        def.arrive_radius = f->arrive_radius;
        def.slow_radius = f->slow_radius;
    }
    for (int k = 0; k < count; ++k) {
        crowd_vec2 pos;
        crowd_status st = crowd_agent_get_position(b->world, ids[k], &pos);
        def.start_index = nearest_point(path, pos);
        if (def.kind == CROWD_PATH_TUBE && def.start_index == path->count - 1 &&
            def.mode != CROWD_PATH_LOOP)
            def.start_index = path->count - 2; // a tube's hint names a segment's first point
        if (st == CROWD_OK) st = crowd_agent_set_path(b->world, ids[k], &def);
        if (st != CROWD_OK) return failed(b, crowd->path_pos, "path", st, err, errlen);
    }
    return true;
}

static const crowd_formation_shape shapes[SC_FORMATION_COUNT] = {
    [SC_FORMATION_COLUMN] = CROWD_FORMATION_COLUMN, [SC_FORMATION_LINE] = CROWD_FORMATION_LINE,
    [SC_FORMATION_WEDGE] = CROWD_FORMATION_WEDGE,   [SC_FORMATION_BLOCK] = CROWD_FORMATION_BLOCK,
    [SC_FORMATION_CIRCLE] = CROWD_FORMATION_CIRCLE, [SC_FORMATION_CUSTOM] = CROWD_FORMATION_CUSTOM,
};

bool build_leader(built_world* b, const sc_crowd* crowd, const crowd_agent_id* leaders,
                  int leader_count, const crowd_agent_id* followers, char* err, size_t errlen) {
    const sc_followers* f = &crowd->followers;
    const bool slots = f->formation != SC_FORMATION_NONE;
    crowd_follow_def def = crowd_follow_def_default();
    def.behind_dist = f->behind_distance;
    def.ahead_dist = f->ahead_distance;
    def.ahead_radius = f->ahead_radius;
    def.slow_radius = f->slow_radius;
    def.evade_weight = f->evade_weight;
    def.separation_weight = f->separation_weight;
    def.weight = f->weight;
    def.target = slots ? CROWD_FOLLOW_SLOT : CROWD_FOLLOW_BEHIND;
    crowd_formation_def fd = crowd_formation_def_default();
    if (slots) {
        fd.shape = shapes[f->formation];
        fd.spacing = f->spacing;
        fd.distance = f->behind_distance > 0.0f ? f->behind_distance : fd.distance;
        fd.offsets = f->offsets;
        fd.offset_count = f->offset_count;
        if (fd.shape == CROWD_FORMATION_CIRCLE && fd.distance < 4.0f)
            fd.distance = 4.0f; // a smaller ring puts its front slots in the leader's ahead zone
    }
    for (int k = 0; k < leader_count; ++k) {
        crowd_status st = CROWD_OK;
        if (slots) st = crowd_leader_set_formation(b->world, leaders[k], &fd);
        for (int j = 0; st == CROWD_OK && j < f->count; ++j)
            st = crowd_agent_follow(b->world, followers[(size_t)k * (size_t)f->count + (size_t)j],
                                    leaders[k], &def);
        if (st != CROWD_OK) return failed(b, crowd->followers_pos, "followers", st, err, errlen);
    }
    return true;
}
