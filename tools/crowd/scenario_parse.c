// The scenario schema (tools/scenarios/README.md): one function per object kind.
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"
#include "scenario_fields.h"

enum { MAX_AGENTS = 1 << 24, MAX_FOLLOWERS = 4096, MAX_TICKS = 100000000 };

static const char* const AREA_NAMES[] = {"uniform", "grid", "jittered_grid", "circle"};
static const char* const GOAL_NAMES[] = {NULL, "seek", "arrive", "flee", "arrive_literal"};
static const char* const QUEUE_MODE_NAMES[] = {NULL, "seek", "arrive", NULL, NULL};
static const char* const ARRIVAL_NAMES[] = {"stop", "remove", "respawn"};
static const char* const PATH_KIND_NAMES[] = {"waypoints", "tube"};
static const char* const PATH_MODE_NAMES[] = {"one_shot", "loop", "ping_pong"};
static const char* const ROUTE_NAMES[] = {"field", "straight"};
static const char* const FORM_NAMES[] = {"pedestrian", "literal"};
static const char* const FORMATION_NAMES[] = {"none",  "column", "line",  "wedge",
                                              "block", "circle", "custom"};

const char* sc_area_kind_name(sc_area_kind k) {
    return (unsigned)k < SC_AREA_KIND_COUNT ? AREA_NAMES[k] : "?";
}
const char* sc_formation_name(sc_formation f) {
    return (unsigned)f < SC_FORMATION_COUNT ? FORMATION_NAMES[f] : "?";
}
const char* sc_path_kind_name(sc_path_kind k) {
    return (unsigned)k < SC_PATH_KIND_COUNT ? PATH_KIND_NAMES[k] : "?";
}
const char* sc_path_mode_name(sc_path_mode m) {
    return (unsigned)m < SC_PATH_MODE_COUNT ? PATH_MODE_NAMES[m] : "?";
}
const char* sc_arrival_name(sc_arrival a) {
    return (unsigned)a < SC_ARRIVAL_COUNT ? ARRIVAL_NAMES[a] : "?";
}

// Runs `expr` on member `key` of `obj` with the context moved onto it, when the member exists.
#define WITH_MEMBER(c, obj, key, node, expr)                                                       \
    do {                                                                                           \
        const cJSON* node = cJSON_GetObjectItemCaseSensitive((obj), (key));                        \
        if (node) {                                                                                \
            pc_mark mark_ = pc_push_key((c), (key));                                               \
            bool ok_ = (expr);                                                                     \
            pc_pop((c), mark_);                                                                    \
            if (!ok_) return false;                                                                \
        }                                                                                          \
    } while (0)

static bool kind_of(pctx* c, const cJSON* node, const char* what, const char* const* names,
                    int count, int* kind) {
    static const char* const only_kind[] = {"kind", NULL};
    if (!cJSON_IsObject(node)) return pc_object(c, node, what, only_kind);
    if (!pc_require(c, node, "kind")) return false;
    return pc_enum(c, node, "kind", names, count, kind);
}

// ---- area -------------------------------------------------------------------------------------

static bool parse_area(pctx* c, const cJSON* node, sc_area* a, bool start_area) {
    static const char* const uniform_keys[] = {"kind", "min", "max", NULL};
    static const char* const grid_keys[] = {"kind", "center", "spacing", "columns", NULL};
    static const char* const jittered_keys[] = {"kind",    "center", "spacing",
                                                "columns", "jitter", NULL};
    static const char* const circle_keys[] = {"kind", "center", "radius", NULL};
    static const char* const* const keys[] = {uniform_keys, grid_keys, jittered_keys, circle_keys};
    static const char* const what[] = {"a uniform area", "a grid area", "a jittered_grid area",
                                       "a circle area"};
    int kind = 0;
    if (!kind_of(c, node, "an area", AREA_NAMES, SC_AREA_KIND_COUNT, &kind)) return false;
    if (start_area && kind != SC_AREA_UNIFORM && kind != SC_AREA_CIRCLE) {
        pc_mark m = pc_push_key(c, "kind");
        json_pos pos = pc_pos(c);
        pc_pop(c, m);
        return pc_fail(c, pos,
                       "expected a start area of kind \"uniform\" or \"circle\", got \"%s\"",
                       AREA_NAMES[kind]);
    }
    if (!pc_object(c, node, what[kind], keys[kind])) return false;
    *a = (sc_area){.kind = (sc_area_kind)kind, .spacing = 1.0f, .jitter = 0.25f};
    switch (a->kind) {
    case SC_AREA_UNIFORM:
        if (!pc_require(c, node, "min") || !pc_require(c, node, "max")) return false;
        if (!pc_vec2(c, node, "min", false, &a->min) || !pc_vec2(c, node, "max", false, &a->max))
            return false;
        if (a->min.x > a->max.x || a->min.y > a->max.y) {
            pc_mark m = pc_push_key(c, "max");
            json_pos pos = pc_pos(c);
            pc_pop(c, m);
            return pc_fail(c, pos,
                           "expected max >= min on both axes, got min [%g, %g], max [%g, %g]",
                           (double)a->min.x, (double)a->min.y, (double)a->max.x, (double)a->max.y);
        }
        return true;
    case SC_AREA_GRID:
    case SC_AREA_JITTERED_GRID:
        if (!pc_require(c, node, "center")) return false;
        return pc_vec2(c, node, "center", false, &a->center) &&
               pc_float(c, node, "spacing", PC_POSITIVE, &a->spacing) &&
               pc_int(c, node, "columns", 1, MAX_AGENTS, &a->columns) &&
               pc_float(c, node, "jitter", (pc_rule){0.0, 0.5, false}, &a->jitter);
    case SC_AREA_CIRCLE:
        if (!pc_require(c, node, "center") || !pc_require(c, node, "radius")) return false;
        return pc_vec2(c, node, "center", false, &a->center) &&
               pc_float(c, node, "radius", PC_POSITIVE, &a->radius);
    default:
        return false;
    }
}

// ---- agent ------------------------------------------------------------------------------------

static void agent_defaults(sc_agent* a) {
    crowd_agent_def d = crowd_agent_def_default();
    crowd_wall_def w = crowd_wall_def_default();
    *a = (sc_agent){
        .radius = {d.radius, d.radius},
        .max_speed = {d.max_speed, d.max_speed},
        .max_force = {d.max_force, d.max_force},
        .separation_radius = {d.separation_radius, d.separation_radius},
        .separation_weight = {d.separation_weight, d.separation_weight},
        .wall_weight = {w.weight, w.weight},
        .wall_look_ahead = {w.look_ahead, w.look_ahead},
        .heading = d.heading,
    };
}

// max_speed as a distribution: {"kind": "weidmann"}, {"kind": "normal", "mean", "sd", "min",
// "max"}, {"kind": "uniform", "min", "max"} or {"kind": "age", "group"} (crowd/speed.h).
static bool parse_speed_dist(pctx* c, const cJSON* node, crowd_speed_dist* d) {
    static const char* const kinds[] = {"weidmann", "normal", "uniform", "age"};
    static const char* const groups[] = {"under_30", "30_to_50", "over_50", "limited_mobility"};
    static const char* const weidmann_keys[] = {"kind", NULL};
    static const char* const normal_keys[] = {"kind", "mean", "sd", "min", "max", NULL};
    static const char* const uniform_keys[] = {"kind", "min", "max", NULL};
    static const char* const age_keys[] = {"kind", "group", NULL};
    static const char* const* const keys[] = {weidmann_keys, normal_keys, uniform_keys, age_keys};
    static const char* const what[] = {
        "a weidmann speed distribution", "a normal speed distribution",
        "a uniform speed distribution", "an age group's speed distribution"};
    int kind = 0, group = 0;
    if (!kind_of(c, node, "a speed distribution", kinds, 4, &kind) ||
        !pc_object(c, node, what[kind], keys[kind]))
        return false;
    *d = crowd_speed_dist_default();
    if (kind == 1 || kind == 2) {
        d->kind = kind == 1 ? CROWD_SPEED_NORMAL : CROWD_SPEED_UNIFORM;
        if (!pc_require(c, node, "min") || !pc_require(c, node, "max") ||
            (kind == 1 && (!pc_require(c, node, "mean") || !pc_require(c, node, "sd"))) ||
            !pc_float(c, node, "mean", PC_POSITIVE, &d->mean) ||
            !pc_float(c, node, "sd", PC_NON_NEGATIVE, &d->sd) ||
            !pc_float(c, node, "min", PC_POSITIVE, &d->lo) ||
            !pc_float(c, node, "max", PC_POSITIVE, &d->hi))
            return false;
        if (d->lo > d->hi)
            return pc_fail(c, pc_pos(c), "expected min <= max, got min %g and max %g",
                           (double)d->lo, (double)d->hi);
    } else if (kind == 3) {
        if (!pc_require(c, node, "group") || !pc_enum(c, node, "group", groups, 4, &group))
            return false;
        *d = crowd_speed_dist_age((crowd_age_group)group);
    }
    float probe;
    const crowd_status st = crowd_speed_draw(d, 0, 0, &probe);
    return st == CROWD_OK ||
           pc_fail(c, pc_pos(c), "not a valid speed distribution: %s", crowd_status_string(st));
}

static bool parse_agent(pctx* c, const cJSON* node, sc_agent* a) {
    static const char* const keys[] = {
        "radius",      "max_speed",       "max_force", "separation_radius", "separation_weight",
        "wall_weight", "wall_look_ahead", "heading",   "velocity",          "random_speed",
        NULL};
    if (!pc_object(c, node, "agent parameters", keys)) return false;
    const cJSON* speed = cJSON_GetObjectItemCaseSensitive(node, "max_speed");
    if (cJSON_IsObject(speed)) {
        a->has_speed_dist = true;
        WITH_MEMBER(c, node, "max_speed", v, parse_speed_dist(c, v, &a->speed_dist));
    } else if (!pc_range(c, node, "max_speed", PC_POSITIVE, &a->max_speed)) {
        return false;
    }
    if (!pc_range(c, node, "radius", PC_POSITIVE, &a->radius) ||
        !pc_range(c, node, "max_force", PC_POSITIVE, &a->max_force) ||
        !pc_range(c, node, "separation_radius", PC_POSITIVE, &a->separation_radius) ||
        !pc_range(c, node, "separation_weight", PC_NON_NEGATIVE, &a->separation_weight) ||
        !pc_range(c, node, "wall_weight", PC_NON_NEGATIVE, &a->wall_weight) ||
        !pc_range(c, node, "wall_look_ahead", PC_NON_NEGATIVE, &a->wall_look_ahead) ||
        !pc_vec2(c, node, "heading", true, &a->heading) ||
        !pc_vec2(c, node, "velocity", false, &a->velocity) ||
        !pc_float(c, node, "random_speed", PC_POSITIVE, &a->random_speed))
        return false;
    if (pc_has(node, "heading")) {
        const float len = sqrtf(a->heading.x * a->heading.x + a->heading.y * a->heading.y);
        a->heading = (crowd_vec2){a->heading.x / len, a->heading.y / len};
        a->has_heading = true;
    }
    if (pc_has(node, "velocity") && pc_has(node, "random_speed")) {
        pc_mark m = pc_push_key(c, "random_speed");
        json_pos pos = pc_key_pos(c);
        pc_pop(c, m);
        return pc_fail(c, pos, "random_speed and velocity exclude each other");
    }
    return true;
}

// ---- behaviors --------------------------------------------------------------------------------

// Fails at the current node (a reference by name) when `name` is none of names[0, count): lists the
// names defined, or says there are none.
static bool unknown_name(pctx* c, const char* what, const char* plural, const char* name,
                         const char* const* names, int count) {
    char list[256] = "";
    size_t len = 0;
    for (int k = 0; k < count; ++k) {
        int n = snprintf(list + len, sizeof list - len, "%s%s", k ? ", " : "", names[k]);
        if (n < 0 || (size_t)n >= sizeof list - len) break;
        len += (size_t)n;
    }
    if (count == 0)
        return pc_fail(c, pc_pos(c), "unknown %s \"%s\" (the scenario defines no %s)", what, name,
                       plural);
    return pc_fail(c, pc_pos(c), "unknown %s \"%s\" (defined: %s)", what, name, list);
}

// Where key `key` of the current object starts, for errors about the member as a whole.
static json_pos key_pos(pctx* c, const char* key) {
    pc_mark m = pc_push_key(c, key);
    const json_pos pos = pc_key_pos(c);
    pc_pop(c, m);
    return pos;
}

// The exit set a goal names: a string naming a member of the document's `exits`.
static bool parse_exits_ref(pctx* c, const cJSON* node, const scenario* sc, int* out) {
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(node, "exits");
    pc_mark m = pc_push_key(c, "exits");
    bool ok = cJSON_IsString(v);
    if (!ok) {
        pc_fail(c, pc_pos(c), "expected the name of an exit set (a string)");
    } else {
        *out = -1;
        for (int k = 0; k < sc->exits_count && *out < 0; ++k)
            if (strcmp(sc->exits[k].name, v->valuestring) == 0) *out = k;
        if (*out < 0) {
            const char* names[64];
            int n = 0;
            for (int k = 0; k < sc->exits_count && n < 64; ++k) names[n++] = sc->exits[k].name;
            ok = unknown_name(c, "exit set", "exit sets", v->valuestring, names, n);
        }
    }
    pc_pop(c, m);
    return ok;
}

static bool parse_goal(pctx* c, const cJSON* node, const scenario* sc, sc_goal* g) {
    static const char* const keys[] = {"mode",        "target", "exits", "route",
                                       "slow_radius", "weight", "form",  NULL};
    if (!pc_object(c, node, "a goal", keys)) return false;
    if (!pc_require(c, node, "mode")) return false;
    const bool target = pc_has(node, "target"), exits = pc_has(node, "exits");
    if (!target && !exits)
        return pc_fail(c, pc_pos(c), "missing key \"target\" (or \"exits\", an exit set's name)");
    if (target && exits)
        return pc_fail(c, key_pos(c, "exits"),
                       "target and exits exclude each other (a goal is a point or an exit set)");
    crowd_goal d = crowd_goal_default();
    int mode = 0, route = CROWD_ROUTE_FIELD, form = CROWD_GOAL_PEDESTRIAN;
    g->slow_radius = d.slow_radius;
    g->weight = d.weight;
    g->exits = -1;
    if (!pc_enum(c, node, "mode", GOAL_NAMES, CROWD_GOAL_MODE_COUNT, &mode) ||
        !pc_vec2(c, node, "target", false, &g->target) ||
        !pc_enum(c, node, "route", ROUTE_NAMES, CROWD_ROUTE_COUNT, &route) ||
        !pc_float(c, node, "slow_radius", PC_POSITIVE, &g->slow_radius) ||
        !pc_float(c, node, "weight", PC_NON_NEGATIVE, &g->weight) ||
        !pc_enum(c, node, "form", FORM_NAMES, CROWD_GOAL_FORM_COUNT, &form))
        return false;
    g->mode = (crowd_goal_mode)mode;
    g->route = (crowd_route)route;
    g->form = (crowd_goal_form)form;
    if (g->mode == CROWD_GOAL_FLEE && exits)
        return pc_fail(c, key_pos(c, "exits"),
                       "a flee goal flees a point (exits are for seek, arrive and arrive_literal)");
    if (g->mode == CROWD_GOAL_FLEE && pc_has(node, "route"))
        return pc_fail(c, key_pos(c, "route"),
                       "route is not used by a flee goal (it is never routed)");
    return !exits || parse_exits_ref(c, node, sc, &g->exits);
}

static bool parse_queue(pctx* c, const cJSON* node, sc_queue* q) {
    static const char* const keys[] = {"target",     "mode",        "route",      "slow_radius",
                                       "weight",     "cone_length", "cone_width", "arrive_radius",
                                       "on_arrival", "start_area",  NULL};
    if (!pc_object(c, node, "a queue", keys)) return false;
    if (!pc_require(c, node, "target")) return false;
    const crowd_queue_def qd = crowd_queue_def_default(); // the library's defaults
    *q = (sc_queue){.mode = CROWD_GOAL_ARRIVE,
                    .slow_radius = qd.slow_radius,
                    .weight = qd.weight,
                    .cone_length = qd.cone_length,
                    .cone_width = qd.cone_width,
                    .arrive_radius = qd.arrival_radius,
                    .on_arrival = SC_ARRIVAL_STOP};
    int mode = q->mode, arrival = q->on_arrival, route = CROWD_ROUTE_FIELD;
    if (!pc_vec2(c, node, "target", false, &q->target) ||
        !pc_enum(c, node, "mode", QUEUE_MODE_NAMES, CROWD_GOAL_MODE_COUNT, &mode) ||
        !pc_enum(c, node, "route", ROUTE_NAMES, CROWD_ROUTE_COUNT, &route) ||
        !pc_float(c, node, "slow_radius", PC_POSITIVE, &q->slow_radius) ||
        !pc_float(c, node, "weight", PC_NON_NEGATIVE, &q->weight) ||
        !pc_float(c, node, "cone_length", PC_POSITIVE, &q->cone_length) ||
        !pc_float(c, node, "cone_width", PC_POSITIVE, &q->cone_width) ||
        !pc_float(c, node, "arrive_radius", PC_POSITIVE, &q->arrive_radius) ||
        !pc_enum(c, node, "on_arrival", ARRIVAL_NAMES, SC_ARRIVAL_COUNT, &arrival))
        return false;
    q->mode = (crowd_goal_mode)mode;
    q->route = (crowd_route)route;
    q->on_arrival = (sc_arrival)arrival;
    if (q->on_arrival == SC_ARRIVAL_RESPAWN && !pc_has(node, "start_area"))
        return pc_fail(c, pc_pos(c),
                       "missing key \"start_area\" (on_arrival \"respawn\" needs it)");
    if (q->on_arrival != SC_ARRIVAL_RESPAWN && pc_has(node, "start_area")) {
        pc_mark m = pc_push_key(c, "start_area");
        json_pos pos = pc_key_pos(c);
        pc_pop(c, m);
        return pc_fail(c, pos, "start_area is only used with on_arrival \"respawn\"");
    }
    q->has_start_area = pc_has(node, "start_area");
    WITH_MEMBER(c, node, "start_area", n, parse_area(c, n, &q->start_area, true));
    return true;
}

static bool parse_path_follow(pctx* c, const cJSON* node, const scenario* sc, sc_path_follow* p) {
    static const char* const waypoint_keys[] = {"name",          "kind",        "mode",   "route",
                                                "arrive_radius", "slow_radius", "weight", NULL};
    static const char* const tube_keys[] = {"name",          "kind",   "mode", "tube_radius",
                                            "predict_ahead", "weight", NULL};
    static const char* const what[] = {"a waypoints path", "a tube path"};
    *p = (sc_path_follow){.kind = SC_PATH_WAYPOINTS,
                          .mode = SC_PATH_LOOP,
                          .arrive_radius = 0.8f,
                          .slow_radius = 1.5f,
                          .tube_radius = 1.0f,
                          .predict_ahead = 0.5f,
                          .weight = 1.0f};
    int kind = p->kind, mode = p->mode, route = CROWD_ROUTE_FIELD;
    if (cJSON_IsObject(node) &&
        !pc_enum(c, node, "kind", PATH_KIND_NAMES, SC_PATH_KIND_COUNT, &kind))
        return false;
    if (!pc_object(c, node, what[kind], kind == SC_PATH_TUBE ? tube_keys : waypoint_keys))
        return false;
    p->kind = (sc_path_kind)kind;
    if (!pc_require(c, node, "name")) return false;
    if (!pc_enum(c, node, "mode", PATH_MODE_NAMES, SC_PATH_MODE_COUNT, &mode) ||
        !pc_enum(c, node, "route", ROUTE_NAMES, CROWD_ROUTE_COUNT, &route) ||
        !pc_float(c, node, "arrive_radius", PC_POSITIVE, &p->arrive_radius) ||
        !pc_float(c, node, "slow_radius", PC_POSITIVE, &p->slow_radius) ||
        !pc_float(c, node, "tube_radius", PC_POSITIVE, &p->tube_radius) ||
        !pc_float(c, node, "predict_ahead", PC_NON_NEGATIVE, &p->predict_ahead) ||
        !pc_float(c, node, "weight", PC_NON_NEGATIVE, &p->weight))
        return false;
    p->mode = (sc_path_mode)mode;
    p->route = (crowd_route)route;
    pc_mark m = pc_push_key(c, "name");
    const cJSON* name = cJSON_GetObjectItemCaseSensitive(node, "name");
    bool ok = cJSON_IsString(name);
    if (!ok) {
        pc_fail(c, pc_pos(c), "expected the name of a path (a string)");
    } else {
        p->path = -1;
        for (int k = 0; k < sc->path_count && p->path < 0; ++k)
            if (strcmp(sc->paths[k].name, name->valuestring) == 0) p->path = k;
        if (p->path < 0) {
            const char* names[64];
            int n = 0;
            for (int k = 0; k < sc->path_count && n < 64; ++k) names[n++] = sc->paths[k].name;
            ok = unknown_name(c, "path", "paths", name->valuestring, names, n);
        }
    }
    pc_pop(c, m);
    return ok;
}

static bool parse_formation(pctx* c, const cJSON* node, sc_followers* f) {
    static const char* const keys[] = {"shape", "spacing", NULL};
    static const char* const custom_keys[] = {"shape", "offsets", NULL};
    int shape = SC_FORMATION_NONE;
    if (cJSON_IsObject(node)) {
        if (!pc_require(c, node, "shape")) return false;
        if (!pc_enum(c, node, "shape", FORMATION_NAMES, SC_FORMATION_COUNT, &shape)) return false;
    }
    const bool custom = shape == SC_FORMATION_CUSTOM;
    if (!pc_object(c, node, custom ? "a custom formation" : "a formation",
                   custom ? custom_keys : keys))
        return false;
    f->formation = (sc_formation)shape;
    if (custom) {
        if (!pc_require(c, node, "offsets")) return false;
        return pc_points(c, node, "offsets", 1, &f->offsets, &f->offset_count);
    }
    if (shape == SC_FORMATION_NONE && pc_has(node, "spacing")) {
        pc_mark m = pc_push_key(c, "spacing");
        json_pos pos = pc_key_pos(c);
        pc_pop(c, m);
        return pc_fail(c, pos, "spacing is not used by the formation \"none\"");
    }
    return pc_float(c, node, "spacing", PC_POSITIVE, &f->spacing);
}

static bool parse_followers(pctx* c, const cJSON* node, sc_followers* f) {
    static const char* const keys[] = {"count",
                                       "agent",
                                       "formation",
                                       "behind_distance",
                                       "ahead_distance",
                                       "ahead_radius",
                                       "slow_radius",
                                       "evade_weight",
                                       "separation_weight",
                                       "weight",
                                       NULL};
    if (!pc_object(c, node, "followers", keys)) return false;
    if (!pc_require(c, node, "count")) return false;
    const crowd_follow_def fd = crowd_follow_def_default(); // the library's defaults
    *f = (sc_followers){.formation = SC_FORMATION_NONE,
                        .spacing = 1.0f,
                        .behind_distance = fd.behind_dist,
                        .ahead_distance = fd.ahead_dist,
                        .ahead_radius = fd.ahead_radius,
                        .slow_radius = fd.slow_radius,
                        .evade_weight = fd.evade_weight,
                        .separation_weight = fd.separation_weight,
                        .weight = fd.weight};
    agent_defaults(&f->agent);
    if (!pc_int(c, node, "count", 1, MAX_FOLLOWERS, &f->count) ||
        !pc_float(c, node, "behind_distance", PC_NON_NEGATIVE, &f->behind_distance) ||
        !pc_float(c, node, "ahead_distance", PC_NON_NEGATIVE, &f->ahead_distance) ||
        !pc_float(c, node, "ahead_radius", PC_POSITIVE, &f->ahead_radius) ||
        !pc_float(c, node, "slow_radius", PC_POSITIVE, &f->slow_radius) ||
        !pc_float(c, node, "evade_weight", PC_NON_NEGATIVE, &f->evade_weight) ||
        !pc_float(c, node, "separation_weight", PC_NON_NEGATIVE, &f->separation_weight) ||
        !pc_float(c, node, "weight", PC_NON_NEGATIVE, &f->weight))
        return false;
    WITH_MEMBER(c, node, "agent", n, parse_agent(c, n, &f->agent));
    WITH_MEMBER(c, node, "formation", n, parse_formation(c, n, f));
    if (f->formation == SC_FORMATION_CUSTOM && f->count > f->offset_count) {
        pc_mark m = pc_push_key(c, "count");
        json_pos pos = pc_pos(c);
        pc_pop(c, m);
        return pc_fail(c, pos,
                       "expected at most %d followers (the custom formation has %d offsets), "
                       "got %d",
                       f->offset_count, f->offset_count, f->count);
    }
    return true;
}

// ---- crowds, paths, world ----------------------------------------------------------------------

static bool parse_crowd(pctx* c, const cJSON* node, const scenario* sc, sc_crowd* cr) {
    static const char* const keys[] = {"name",  "count", "area",      "agent", "goal",
                                       "queue", "path",  "followers", NULL};
    if (!pc_object(c, node, "a crowd", keys)) return false;
    cr->pos = pc_pos(c);
    if (!pc_require(c, node, "count") || !pc_require(c, node, "area")) return false;
    agent_defaults(&cr->agent);
    if (!pc_string(c, node, "name", &cr->name) ||
        !pc_int(c, node, "count", 1, MAX_AGENTS, &cr->count))
        return false;
    // A crowd steers toward one thing at a time: a goal, a queue's target or a path.
    const char* steering[] = {"goal", "queue", "path"};
    const char* first = NULL;
    for (int k = 0; k < 3; ++k) {
        if (!pc_has(node, steering[k])) continue;
        if (first) {
            pc_mark m = pc_push_key(c, steering[k]);
            json_pos pos = pc_key_pos(c);
            pc_pop(c, m);
            return pc_fail(c, pos, "a crowd has at most one of goal, queue and path (it has %s)",
                           first);
        }
        first = steering[k];
    }
    WITH_MEMBER(c, node, "area", n, parse_area(c, n, &cr->area, false));
    WITH_MEMBER(c, node, "agent", n, parse_agent(c, n, &cr->agent));
    WITH_MEMBER(c, node, "goal", n, (cr->has_goal = true, parse_goal(c, n, sc, &cr->goal)));
    WITH_MEMBER(
        c, node, "queue", n,
        (cr->has_queue = true, cr->queue_pos = pc_key_pos(c), parse_queue(c, n, &cr->queue)));
    WITH_MEMBER(c, node, "path", n,
                (cr->has_path = true, cr->path_pos = pc_key_pos(c),
                 parse_path_follow(c, n, sc, &cr->path)));
    WITH_MEMBER(c, node, "followers", n,
                (cr->has_followers = true, cr->followers_pos = pc_key_pos(c),
                 parse_followers(c, n, &cr->followers)));
    return true;
}

static bool parse_path(pctx* c, const cJSON* node, const scenario* sc, int index, sc_path* p) {
    static const char* const keys[] = {"name", "points", NULL};
    if (!pc_object(c, node, "a path", keys)) return false;
    p->pos = pc_pos(c);
    if (!pc_require(c, node, "name") || !pc_require(c, node, "points")) return false;
    if (!pc_string(c, node, "name", &p->name)) return false;
    for (int k = 0; k < index; ++k) {
        if (strcmp(sc->paths[k].name, p->name) != 0) continue;
        pc_push_key(c, "name");
        return pc_fail(c, pc_pos(c), "duplicate path name \"%s\" (paths[%d] has it)", p->name, k);
    }
    return pc_points(c, node, "points", 2, &p->points, &p->count);
}

// world.nav: the navigation grid's cell size and clearance and the fields' memory budget. The
// clearance must exceed half a cell (crowd_nav_def), checked once both are known: at the
// clearance when it is written, else at the cell size that the default clearance no longer fits.
static bool parse_nav(pctx* c, const cJSON* node, crowd_nav_def* nav) {
    static const char* const keys[] = {"cell_size", "clearance", "budget_mb", NULL};
    if (!pc_object(c, node, "navigation settings", keys)) return false;
    static const pc_rule cell_rule = {CROWD_MIN_CELL_SIZE, CROWD_MAX_DISTANCE, false};
    static const pc_rule clearance_rule = {0.0, CROWD_MAX_DISTANCE, true};
    static const pc_rule budget_rule = {0.0, 1e6, true}; // MiB: up to about a terabyte
    float budget_mb = (float)((double)nav->budget / 1048576.0);
    if (!pc_float(c, node, "cell_size", cell_rule, &nav->cell_size) ||
        !pc_float(c, node, "clearance", clearance_rule, &nav->clearance) ||
        !pc_float(c, node, "budget_mb", budget_rule, &budget_mb))
        return false;
    if (pc_has(node, "budget_mb")) nav->budget = (size_t)((double)budget_mb * 1048576.0);
    if (nav->budget == 0) nav->budget = 1;
    if (nav->clearance > 0.5f * nav->cell_size) return true;
    if (pc_has(node, "clearance")) {
        pc_mark m = pc_push_key(c, "clearance");
        const json_pos pos = pc_pos(c);
        pc_pop(c, m);
        return pc_fail(c, pos,
                       "expected a clearance above half the cell size (%g), got %g (no wall may "
                       "pass between two walkable cells)",
                       (double)(0.5f * nav->cell_size), (double)nav->clearance);
    }
    pc_mark m = pc_push_key(c, "cell_size");
    const json_pos pos = pc_pos(c);
    pc_pop(c, m);
    return pc_fail(c, pos,
                   "expected a cell size below twice the clearance (%g), got %g (set a larger "
                   "clearance too)",
                   2.0 * (double)nav->clearance, (double)nav->cell_size);
}

static bool parse_world(pctx* c, const cJSON* node, scenario* sc) {
    static const char* const keys[] = {"dt",           "cell_size", "seed", "ticks",
                                       "record_every", "nav",       NULL};
    if (!pc_object(c, node, "world settings", keys)) return false;
    // The library's ranges (crowd/base.h), so that a bad value is reported where it is written.
    static const pc_rule dt_rule = {0.0, CROWD_MAX_DT, true};
    static const pc_rule cell_rule = {CROWD_MIN_CELL_SIZE, CROWD_MAX_DISTANCE, false};
    if (!pc_float(c, node, "dt", dt_rule, &sc->dt) ||
        !pc_float(c, node, "cell_size", cell_rule, &sc->cell_size) ||
        !pc_u64(c, node, "seed", &sc->seed) ||
        !pc_int(c, node, "ticks", 1, MAX_TICKS, &sc->ticks) ||
        !pc_int(c, node, "record_every", 1, MAX_TICKS, &sc->record_every))
        return false;
    WITH_MEMBER(c, node, "nav", n, parse_nav(c, n, &sc->nav));
    return true;
}

// The document's `exits`: an object whose members name exit sets, each an array of points.
static bool parse_exits(pctx* c, const cJSON* node, scenario* sc) {
    if (!cJSON_IsObject(node)) {
        static const char* const none[] = {NULL};
        return pc_object(c, node, "exit sets by name", none);
    }
    const int n = cJSON_GetArraySize(node);
    sc->exits = calloc((size_t)(n ? n : 1), sizeof *sc->exits);
    if (!sc->exits) return pc_fail(c, pc_pos(c), "out of memory");
    int k = 0;
    for (const cJSON* e = node->child; e; e = e->next, ++k) {
        sc_exits* x = &sc->exits[k];
        sc->exits_count = k + 1;
        x->name = strdup(e->string);
        if (!x->name) return pc_fail(c, pc_pos(c), "out of memory");
        if (!pc_points(c, node, e->string, 1, &x->points, &x->count)) return false;
        pc_mark m = pc_push_key(c, e->string);
        x->pos = pc_key_pos(c);
        const json_pos at = pc_pos(c);
        pc_pop(c, m);
        if (x->count > CROWD_EXITS_MAX_POINTS) {
            m = pc_push_key(c, e->string);
            pc_fail(c, at, "expected at most %d points, got %d", CROWD_EXITS_MAX_POINTS, x->count);
            pc_pop(c, m);
            return false;
        }
    }
    return true;
}

static bool parse_paths(pctx* c, const cJSON* node, scenario* sc) {
    int n = 0;
    if (!pc_array(c, node, "paths", &n)) return false;
    sc->paths = calloc((size_t)(n ? n : 1), sizeof *sc->paths);
    if (!sc->paths) return pc_fail(c, pc_pos(c), "out of memory");
    int k = 0;
    for (const cJSON* e = node->child; e; e = e->next, ++k) {
        pc_mark m = pc_push_index(c, k);
        sc->path_count = k + 1;
        bool ok = parse_path(c, e, sc, k, &sc->paths[k]);
        pc_pop(c, m);
        if (!ok) return false;
    }
    return true;
}

static bool parse_crowds(pctx* c, const cJSON* node, scenario* sc) {
    int n = 0;
    if (!pc_array(c, node, "crowds", &n)) return false;
    if (n == 0) return pc_fail(c, pc_pos(c), "expected at least one crowd, got an empty array");
    sc->crowds = calloc((size_t)n, sizeof *sc->crowds);
    if (!sc->crowds) return pc_fail(c, pc_pos(c), "out of memory");
    int k = 0;
    for (const cJSON* e = node->child; e; e = e->next, ++k) {
        pc_mark m = pc_push_index(c, k);
        sc->crowd_count = k + 1;
        bool ok = parse_crowd(c, e, sc, &sc->crowds[k]);
        pc_pop(c, m);
        if (!ok) return false;
    }
    return true;
}

static char* file_stem(const char* file) {
    const char* base = strrchr(file, '/');
    base = base ? base + 1 : file;
    const char* dot = strrchr(base, '.');
    size_t len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    char* s = malloc(len + 1);
    if (s) {
        memcpy(s, base, len);
        s[len] = '\0';
    }
    return s;
}

static bool parse_document(pctx* c, const cJSON* root, scenario* sc) {
    static const char* const keys[] = {"name",  "description", "world",  "obstacles",
                                       "paths", "exits",       "crowds", NULL};
    if (!pc_object(c, root, "a scenario", keys)) return false;
    if (!pc_require(c, root, "crowds")) return false;
    if (!pc_string(c, root, "name", &sc->name) ||
        !pc_string(c, root, "description", &sc->description))
        return false;
    WITH_MEMBER(c, root, "world", n, parse_world(c, n, sc));
    WITH_MEMBER(c, root, "obstacles", n, sc_parse_obstacles(c, n, sc));
    WITH_MEMBER(c, root, "paths", n, parse_paths(c, n, sc));
    WITH_MEMBER(c, root, "exits", n, parse_exits(c, n, sc));
    WITH_MEMBER(c, root, "crowds", n, parse_crowds(c, n, sc));
    return true;
}

// Offset of the first byte that does not start a well-formed UTF-8 sequence (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF), or len when the text is valid.
static size_t utf8_invalid_at(const char* text, size_t len) {
    const unsigned char* s = (const unsigned char*)text;
    size_t i = 0;
    while (i < len) {
        const unsigned char b = s[i];
        size_t n;
        unsigned char lo = 0x80, hi = 0xbf; // allowed range of the second byte
        if (b < 0x80) {
            ++i;
            continue;
        } else if (b >= 0xc2 && b <= 0xdf) {
            n = 2;
        } else if (b >= 0xe0 && b <= 0xef) {
            n = 3;
            if (b == 0xe0) lo = 0xa0; // overlong
            if (b == 0xed) hi = 0x9f; // surrogates
        } else if (b >= 0xf0 && b <= 0xf4) {
            n = 4;
            if (b == 0xf0) lo = 0x90; // overlong
            if (b == 0xf4) hi = 0x8f; // above U+10FFFF
        } else {
            return i;
        }
        if (len - i < n || s[i + 1] < lo || s[i + 1] > hi) return i;
        for (size_t k = 2; k < n; ++k)
            if (s[i + k] < 0x80 || s[i + k] > 0xbf) return i;
        i += n;
    }
    return len;
}

bool scenario_parse(const char* file, const char* text, size_t len, scenario* out, char* err,
                    size_t errlen) {
    crowd_world_def wd = crowd_world_def_default();
    *out = (scenario){.dt = wd.dt,
                      .cell_size = wd.cell_size,
                      .seed = 1,
                      .ticks = 300,
                      .record_every = 5,
                      .nav = wd.nav};
    out->file = strdup(file);
    if (!out->file) {
        snprintf(err, errlen, "%s: out of memory", file);
        return false;
    }
    // Strings end up in messages, recordings and replay pages: the document must be UTF-8.
    const size_t bad = utf8_invalid_at(text, len);
    if (bad < len) {
        const json_pos p = json_offset_pos(text, len, bad);
        snprintf(err, errlen, "%s:%d:%d: invalid UTF-8 (byte 0x%02x)", file, p.line, p.col,
                 (unsigned)(unsigned char)text[bad]);
        scenario_free(out);
        return false;
    }
    json_index idx;
    json_pos pos;
    char msg[256];
    if (!json_index_build(&idx, text, len, &pos, msg, sizeof msg)) {
        snprintf(err, errlen, "%s:%d:%d: %s", file, pos.line, pos.col, msg);
        pc_one_line(err, errlen);
        json_index_free(&idx);
        scenario_free(out);
        return false;
    }
    const char* end = NULL;
    cJSON* root = cJSON_ParseWithLengthOpts(text, len, &end, false);
    bool ok = root != NULL;
    if (!ok) {
        // The index accepted the text, so this is a limit of cJSON's (such as its nesting depth).
        size_t off = end ? (size_t)(end - text) : 0;
        json_pos p = json_offset_pos(text, len, off);
        snprintf(err, errlen, "%s:%d:%d: the JSON parser rejected the document here", file, p.line,
                 p.col);
    } else {
        pctx c = {.file = file, .idx = &idx, .err = err, .errlen = errlen};
        ok = parse_document(&c, root, out);
    }
    if (ok && !out->name) out->name = file_stem(file);
    if (ok && !out->name) {
        snprintf(err, errlen, "%s: out of memory", file);
        ok = false;
    }
    cJSON_Delete(root);
    json_index_free(&idx);
    if (!ok) scenario_free(out);
    return ok;
}

bool scenario_load(const char* file, scenario* out, char* err, size_t errlen) {
    *out = (scenario){0};
    FILE* f = fopen(file, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", file, strerror(errno));
        return false;
    }
    size_t cap = 1 << 16, len = 0;
    char* text = malloc(cap);
    bool ok = text != NULL;
    while (ok) {
        if (len == cap) {
            char* t = realloc(text, cap * 2);
            if (!t) {
                ok = false;
                break;
            }
            text = t;
            cap *= 2;
        }
        size_t n = fread(text + len, 1, cap - len, f);
        len += n;
        if (n == 0) break;
    }
    if (ok && ferror(f)) {
        snprintf(err, errlen, "%s: %s", file, strerror(errno ? errno : EIO));
        ok = false;
    } else if (!ok) {
        snprintf(err, errlen, "%s: out of memory", file);
    }
    fclose(f);
    if (ok) ok = scenario_parse(file, text, len, out, err, errlen);
    free(text);
    return ok;
}

void scenario_free(scenario* sc) {
    for (int k = 0; k < sc->path_count; ++k) {
        free(sc->paths[k].name);
        free(sc->paths[k].points);
    }
    for (int k = 0; k < sc->exits_count; ++k) {
        free(sc->exits[k].name);
        free(sc->exits[k].points);
    }
    for (int k = 0; k < sc->obstacle_count; ++k) {
        free(sc->obstacles[k].name);
        free(sc->obstacles[k].points);
    }
    for (int k = 0; k < sc->crowd_count; ++k) {
        free(sc->crowds[k].name);
        free(sc->crowds[k].followers.offsets);
    }
    free(sc->paths);
    free(sc->exits);
    free(sc->obstacles);
    free(sc->crowds);
    free(sc->file);
    free(sc->name);
    free(sc->description);
    *sc = (scenario){0};
}
