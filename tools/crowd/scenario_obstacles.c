// The scenario's `obstacles`: walls (open polylines) and solid polygons.
//
// The parser checks what it can point at: the kind, the number of points, each point's
// coordinates and two consecutive equal points (a polygon's last and first points are consecutive
// too). What needs the whole shape or the agents (a polygon whose edges cross, an agent that would
// stand in an obstacle) is the library's to check when the world is built, and is reported there
// at the obstacle's position.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"
#include "scenario_fields.h"

static const char* const KIND_NAMES[] = {"wall", "polygon"};

const char* sc_obstacle_kind_name(crowd_obstacle_kind k) {
    return (unsigned)k < CROWD_OBSTACLE_KIND_COUNT ? KIND_NAMES[k] : "?";
}

static bool same(crowd_vec2 a, crowd_vec2 b) {
    return a.x == b.x && a.y == b.y;
}

// Fails at points[k] when it repeats the point before it.
static bool repeated_point(pctx* c, const sc_obstacle* o, int k, int prev) {
    pc_mark m = pc_push_key(c, "points");
    pc_mark mk = pc_push_index(c, k);
    const json_pos pos = pc_pos(c);
    pc_pop(c, mk);
    pc_pop(c, m);
    if (prev == o->count - 1)
        return pc_fail(c, pos,
                       "the polygon's last point [%g, %g] equals its first (a polygon closes "
                       "itself: leave the first point out at the end)",
                       (double)o->points[k].x, (double)o->points[k].y);
    return pc_fail(c, pos, "point %d [%g, %g] equals the point before it", k,
                   (double)o->points[k].x, (double)o->points[k].y);
}

static bool parse_obstacle(pctx* c, const cJSON* node, sc_obstacle* o) {
    static const char* const keys[] = {"name", "kind", "points", NULL};
    if (!pc_object(c, node, "an obstacle", keys)) return false;
    o->pos = pc_pos(c);
    if (!pc_require(c, node, "kind") || !pc_require(c, node, "points")) return false;
    int kind = 0;
    if (!pc_string(c, node, "name", &o->name) ||
        !pc_enum(c, node, "kind", KIND_NAMES, CROWD_OBSTACLE_KIND_COUNT, &kind))
        return false;
    o->kind = (crowd_obstacle_kind)kind;
    const int min = o->kind == CROWD_OBSTACLE_POLYGON ? 3 : 2;
    if (!pc_points(c, node, "points", min, &o->points, &o->count)) return false;
    if (o->count > CROWD_OBSTACLE_MAX_POINTS) {
        pc_mark m = pc_push_key(c, "points");
        const json_pos pos = pc_pos(c);
        pc_pop(c, m);
        return pc_fail(c, pos, "expected at most %d points, got %d", CROWD_OBSTACLE_MAX_POINTS,
                       o->count);
    }
    for (int k = 1; k < o->count; ++k)
        if (same(o->points[k], o->points[k - 1])) return repeated_point(c, o, k, k - 1);
    if (o->kind == CROWD_OBSTACLE_POLYGON && same(o->points[0], o->points[o->count - 1]))
        return repeated_point(c, o, o->count - 1, o->count - 1);
    return true;
}

bool sc_parse_obstacles(pctx* c, const cJSON* node, scenario* sc) {
    int n = 0;
    if (!pc_array(c, node, "obstacles", &n)) return false;
    sc->obstacles = calloc((size_t)(n ? n : 1), sizeof *sc->obstacles);
    if (!sc->obstacles) return pc_fail(c, pc_pos(c), "out of memory");
    int k = 0;
    for (const cJSON* e = node->child; e; e = e->next, ++k) {
        pc_mark m = pc_push_index(c, k);
        sc->obstacle_count = k + 1;
        bool ok = parse_obstacle(c, e, &sc->obstacles[k]);
        pc_pop(c, m);
        if (!ok) return false;
    }
    return true;
}
