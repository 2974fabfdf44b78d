// crowd-server: how a game server embeds the crowd step.
//
// A fixed-rate loop steps one world and, between ticks, applies the commands that arrived as JSON
// lines on stdin. After every tick it writes one JSON line of state deltas to stdout: the agents
// added since the last tick (with the caller's reference), those removed, and every agent whose
// position or velocity changed. A client that applies the deltas in order holds the world's exact
// positions and velocities (floats are printed with 9 significant digits, which round-trips).
//
// Commands (one JSON object per line; agent ids are the numbers the server reported):
//   {"cmd":"add","ref":7,"x":0,"y":0,"vx":0,"vy":0,"max_speed":1.5,"max_force":3,"radius":0.3,
//    "separation_radius":1.2,"separation_weight":1,"user_data":0,
//    "goal":{"mode":"arrive","x":5,"y":5,"slow_radius":1,"weight":1,"route":"field"}}
//                                                                           (all fields optional)
//   {"cmd":"remove","id":4294967297}
//   {"cmd":"set_goal","id":4294967297,"mode":"seek","x":3,"y":4,"slow_radius":1,"weight":1}
//     A goal's "route" is "field" (the default: around the walls, crowd/nav.h) or "straight";
//     "exits":ID (an exit set's id) heads for the set's exit nearest by walking distance instead
//     of x, y ("exits":0 goes back to the point; x or y without exits does too). Its "form" is
//     "pedestrian" (the default: crowd_goal_form) or "literal" (the spec's seek and arrive).
//   {"cmd":"add_exits","ref":5,"points":[[20,0],[-20,0]]}  (an exit set, 1 to 256 points)
//   {"cmd":"remove_exits","id":4294967297}     (refused while a goal names it)
//   {"cmd":"teleport","id":4294967297,"x":1,"y":2}                  (optional "vx", "vy")
//   {"cmd":"add_wall","ref":3,"kind":"wall","points":[[0,0],[10,0]]}
//                             (kind "wall", an open polyline, the default, or "polygon", solid)
//   {"cmd":"remove_wall","id":4294967297}
//   {"cmd":"step","n":10}     (--lockstep only: run n ticks now)
//   {"cmd":"dump"}            (write the full state: {"dump":{"tick","hash","agents"}})
//   {"cmd":"quit"}
// The world has a per-agent neighbor cap (--max-neighbors, default 64; see
// crowd_world_set_max_neighbors), so no client can make a step cost more than that many
// neighbors per agent by piling agents up.
// Output lines:
//   {"tick":T,"added":[[ref,id],...],"removed":[id,...],"changed":[[id,x,y,vx,vy],...]}
//     plus "walls_added":[[ref,id],...] and "walls_removed":[id,...] on the ticks that have some,
//     and "exits_added":[[ref,id],...], "exits_removed":[id,...] likewise
//   {"error":"<status>","line":N}   for a command that failed (the world is unchanged), among
//                                   them a command with a key it does not know
//                                   ("add: unknown key \"z\""), as in scenario files
//   {"final":{"tick":T,"hash":"<16 hex digits>","agents":[[id,x,y,vx,vy],...],
//             "walls":[[id,"wall"|"polygon",[[x,y],...]],...],"exits":[[id,[[x,y],...]],...]}}
//     at the end
// An agent, wall or exit set id is generation * 2^32 + index + 1 (the handle without its world
// tag).
// Agents are never inside a wall: a wall that an agent would overlap is refused, and so is an
// agent added or teleported into one (error "inside_obstacle" or the like, from the library).
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "crowd/crowd.h"

#define MAX_LINE (1 << 20)

typedef struct options {
    double rate;
    bool lockstep;
    long max_ticks; // realtime: stop after this many ticks (-1 = when stdin closes)
    int threads;
    float dt;
    int capacity;
    int max_neighbors;
} options;

typedef struct sent { // what the clients were last told about an agent index
    uint64_t id;      // 0 = nothing live sent
    uint32_t bits[4]; // x, y, vx, vy
} sent;

typedef struct server {
    options opt;
    crowd_world* world;
    FILE* out;
    // Events since the last tick line.
    int64_t* added; // pairs ref, id
    size_t added_n, added_cap;
    uint64_t* removed;
    size_t removed_n, removed_cap;
    int64_t* walls_added; // pairs ref, id
    size_t walls_added_n, walls_added_cap;
    uint64_t* walls_removed;
    size_t walls_removed_n, walls_removed_cap;
    int64_t* exits_added; // pairs ref, id
    size_t exits_added_n, exits_added_cap;
    uint64_t* exits_removed;
    size_t exits_removed_n, exits_removed_cap;
    crowd_exits_id* exits; // live exit sets, for the dumps
    size_t exits_n, exits_cap;
    crowd_vec2* points; // scratch for a wall's points
    size_t points_cap;
    // Snapshot of the world after a step.
    crowd_agent_id* ids;
    crowd_vec2 *pos, *vel;
    int agents_cap;
    sent* last;
    size_t last_cap;
    // Input.
    char* buf;
    size_t buf_n;
    long line_no;
    bool discarding; // inside an over-long line
    bool eof, quit;
    long ticks;
} server;

static bool grow(void** p, size_t* cap, size_t need, size_t elem) {
    if (need <= *cap) return true;
    size_t n = *cap ? *cap : 64;
    while (n < need) n *= 2;
    void* q = realloc(*p, n * elem);
    if (!q) return false;
    memset((char*)q + *cap * elem, 0, (n - *cap) * elem);
    *p = q;
    *cap = n;
    return true;
}

static uint64_t id_number(crowd_agent_id id) {
    return (uint64_t)id.generation << 32 | id.index1;
}

static uint64_t wall_number(crowd_obstacle_id id) {
    return (uint64_t)id.generation << 32 | id.index1;
}

static uint64_t exits_number(crowd_exits_id id) {
    return (uint64_t)id.generation << 32 | id.index1;
}

static void put_float(FILE* f, float v) {
    if (isfinite(v))
        fprintf(f, "%.9g", (double)v);
    else
        fputs("null", f);
}

static void put_agent(FILE* f, crowd_agent_id id, crowd_vec2 p, crowd_vec2 v) {
    fprintf(f, "[%" PRIu64 ",", id_number(id));
    put_float(f, p.x);
    fputc(',', f);
    put_float(f, p.y);
    fputc(',', f);
    put_float(f, v.x);
    fputc(',', f);
    put_float(f, v.y);
    fputc(']', f);
}

// `what` says which command failed; a library status, when there is one, says why.
static void report_error(server* s, crowd_status st, const char* what) {
    fprintf(s->out, "{\"error\":\"%s%s%s\",\"line\":%ld}\n", what, st ? ": " : "",
            st ? crowd_status_string(st) : "", s->line_no);
    fflush(s->out);
}

// Reads every live agent (handle order) into the server's arrays.
static bool read_agents(server* s, int* count) {
    const int n = crowd_world_agent_count(s->world);
    if (n > s->agents_cap) {
        const int cap = n * 2;
        crowd_agent_id* ids = realloc(s->ids, sizeof *ids * (size_t)cap);
        if (ids) s->ids = ids;
        crowd_vec2* pos = realloc(s->pos, sizeof *pos * (size_t)cap);
        if (pos) s->pos = pos;
        crowd_vec2* vel = realloc(s->vel, sizeof *vel * (size_t)cap);
        if (vel) s->vel = vel;
        if (!ids || !pos || !vel) return false;
        s->agents_cap = cap;
    }
    return crowd_world_get_agents(s->world, s->ids, s->pos, s->vel, s->agents_cap, count) ==
           CROWD_OK;
}
// A key of the step's answer with its list of [index, generation] pairs (none: no key).
static void put_pairs(FILE* f, const char* key, const int64_t* pairs, size_t n) {
    if (!n) return;
    fprintf(f, ",\"%s\":[", key);
    for (size_t i = 0; i < n; ++i)
        fprintf(f, "%s[%" PRId64 ",%" PRId64 "]", i ? "," : "", pairs[2 * i], pairs[2 * i + 1]);
    fputs("]", f);
}

// A key of the step's answer with its list of ids (none: no key).
static void put_ids(FILE* f, const char* key, const uint64_t* ids, size_t n) {
    if (!n) return;
    fprintf(f, ",\"%s\":[", key);
    for (size_t i = 0; i < n; ++i) fprintf(f, "%s%" PRIu64, i ? "," : "", ids[i]);
    fputs("]", f);
}

static bool emit_tick(server* s) {
    int n;
    if (!read_agents(s, &n)) return false;
    FILE* f = s->out;
    fprintf(f, "{\"tick\":%" PRIu64 ",\"added\":[", crowd_world_tick(s->world));
    for (size_t i = 0; i < s->added_n; ++i)
        fprintf(f, "%s[%" PRId64 ",%" PRId64 "]", i ? "," : "", s->added[2 * i],
                s->added[2 * i + 1]);
    fputs("],\"removed\":[", f);
    for (size_t i = 0; i < s->removed_n; ++i) fprintf(f, "%s%" PRIu64, i ? "," : "", s->removed[i]);
    fputs("]", f);
    put_pairs(f, "walls_added", s->walls_added, s->walls_added_n);
    put_ids(f, "walls_removed", s->walls_removed, s->walls_removed_n);
    put_pairs(f, "exits_added", s->exits_added, s->exits_added_n);
    put_ids(f, "exits_removed", s->exits_removed, s->exits_removed_n);
    fputs(",\"changed\":[", f);
    bool first = true;
    for (int k = 0; k < n; ++k) {
        const size_t idx = s->ids[k].index1 - 1;
        if (!grow((void**)&s->last, &s->last_cap, idx + 1, sizeof *s->last)) return false;
        sent now = {.id = id_number(s->ids[k])};
        memcpy(&now.bits[0], &s->pos[k].x, 4);
        memcpy(&now.bits[1], &s->pos[k].y, 4);
        memcpy(&now.bits[2], &s->vel[k].x, 4);
        memcpy(&now.bits[3], &s->vel[k].y, 4);
        if (memcmp(&now, &s->last[idx], sizeof now) == 0) continue;
        s->last[idx] = now;
        if (!first) fputc(',', f);
        first = false;
        put_agent(f, s->ids[k], s->pos[k], s->vel[k]);
    }
    fputs("]}\n", f);
    fflush(f);
    s->added_n = s->removed_n = s->walls_added_n = s->walls_removed_n = 0;
    s->exits_added_n = s->exits_removed_n = 0;
    return true;
}
// Points as [x,y],[x,y],...
static void put_points(FILE* f, const crowd_vec2* p, int n) {
    for (int i = 0; i < n; ++i) {
        fputs(i ? ",[" : "[", f);
        put_float(f, p[i].x);
        fputc(',', f);
        put_float(f, p[i].y);
        fputc(']', f);
    }
}

// Every live wall, in handle order: [id,"wall"|"polygon",[[x,y],...]].
static void put_walls(server* s) {
    const int n = crowd_world_obstacle_count(s->world);
    crowd_obstacle_id* ids = malloc(sizeof *ids * (size_t)(n ? n : 1));
    int count = 0;
    if (!ids || crowd_world_get_obstacles(s->world, ids, n, &count) != CROWD_OK) count = 0;
    for (int k = 0; k < count; ++k) {
        crowd_obstacle_kind kind;
        int np = 0;
        crowd_obstacle_get_points(s->world, ids[k], &kind, NULL, 0, &np);
        if (!grow((void**)&s->points, &s->points_cap, (size_t)np, sizeof *s->points) ||
            crowd_obstacle_get_points(s->world, ids[k], &kind, s->points, np, &np) != CROWD_OK)
            continue;
        fprintf(s->out, "%s[%" PRIu64 ",\"%s\",[", k ? "," : "", wall_number(ids[k]),
                kind == CROWD_OBSTACLE_POLYGON ? "polygon" : "wall");
        put_points(s->out, s->points, np);
        fputs("]]", s->out);
    }
    free(ids);
}

// Every live exit set, in the order they were added: [id,[[x,y],...]].
static void put_exits(server* s) {
    for (size_t k = 0; k < s->exits_n; ++k) {
        int np = 0;
        crowd_exits_get_points(s->world, s->exits[k], NULL, 0, &np);
        if (!grow((void**)&s->points, &s->points_cap, (size_t)(np ? np : 1), sizeof *s->points) ||
            crowd_exits_get_points(s->world, s->exits[k], s->points, np, &np) != CROWD_OK)
            continue;
        fprintf(s->out, "%s[%" PRIu64 ",[", k ? "," : "", exits_number(s->exits[k]));
        put_points(s->out, s->points, np);
        fputs("]]", s->out);
    }
}

static void emit_state(server* s, const char* key) {
    int n;
    if (!read_agents(s, &n)) n = 0;
    FILE* f = s->out;
    fprintf(f, "{\"%s\":{\"tick\":%" PRIu64 ",\"hash\":\"%016" PRIx64 "\",\"agents\":[", key,
            crowd_world_tick(s->world), crowd_world_state_hash(s->world));
    for (int k = 0; k < n; ++k) {
        if (k) fputc(',', f);
        put_agent(f, s->ids[k], s->pos[k], s->vel[k]);
    }
    fputs("],\"walls\":[", f);
    put_walls(s);
    fputs("],\"exits\":[", f);
    put_exits(s);
    fputs("]}}\n", f);
    fflush(f);
}

static bool tick(server* s) {
    crowd_status st = crowd_world_step(s->world);
    if (st != CROWD_OK) {
        report_error(s, st, "step");
        return false;
    }
    s->ticks++;
    return emit_tick(s);
}

// ---- commands -----------------------------------------------------------------------------------

// A number field: absent leaves *out as it is; present but not a number is an error.
static bool num(const cJSON* o, const char* key, double* out) {
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v) return true;
    if (!cJSON_IsNumber(v)) return false;
    *out = v->valuedouble;
    return true;
}

// Doubles beyond the float range become infinities, which the library then refuses.
static bool numf(const cJSON* o, const char* key, float* out) {
    double d = *out;
    if (!num(o, key, &d)) return false;
    *out = fabs(d) <= FLT_MAX ? (float)d : (d > 0 ? INFINITY : -INFINITY);
    return true;
}

// Integers a JSON number holds exactly.
static bool exact_int(double d) {
    return fabs(d) <= 9007199254740992.0 && d == floor(d);
}

// The server's world has tag 1, so clients never need to know about tags.
static bool parse_id(const cJSON* o, crowd_agent_id* id) {
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(o, "id");
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || v->valuedouble >= 281474976710656.0)
        return false;
    const uint64_t n = (uint64_t)v->valuedouble;
    if ((double)n != v->valuedouble) return false;
    *id = (crowd_agent_id){.index1 = (uint32_t)n, .generation = (uint16_t)(n >> 32), .world = 1};
    return true;
}

// The first key of object `o` that is not in the NULL-terminated `known`, or NULL.
static const char* unknown_key(const cJSON* o, const char* const* known) {
    for (const cJSON* k = o->child; k; k = k->next) {
        const char* const* n = known;
        while (*n && strcmp(*n, k->string) != 0) ++n;
        if (!*n) return k->string;
    }
    return NULL;
}

// An exit set id as the library's handle (0: none).
static bool parse_exits_id(const cJSON* v, crowd_exits_id* id) {
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || v->valuedouble >= 281474976710656.0)
        return false;
    const uint64_t n = (uint64_t)v->valuedouble;
    if ((double)n != v->valuedouble) return false;
    *id = n ? (crowd_exits_id){.index1 = (uint32_t)n, .generation = (uint16_t)(n >> 32), .world = 1}
            : (crowd_exits_id){0};
    return true;
}

static bool parse_goal(const cJSON* o, crowd_goal* g) {
    const cJSON* m = cJSON_GetObjectItemCaseSensitive(o, "mode");
    if (m) {
        if (!cJSON_IsString(m)) return false;
        static const char* names[CROWD_GOAL_MODE_COUNT] = {"none", "seek", "arrive", "flee",
                                                           "arrive_literal"};
        int k = 0;
        while (k < CROWD_GOAL_MODE_COUNT && strcmp(names[k], m->valuestring) != 0) ++k;
        if (k == CROWD_GOAL_MODE_COUNT) return false;
        g->mode = (crowd_goal_mode)k;
    }
    const cJSON* r = cJSON_GetObjectItemCaseSensitive(o, "route");
    if (r) {
        if (!cJSON_IsString(r)) return false;
        if (!strcmp(r->valuestring, "field"))
            g->route = CROWD_ROUTE_FIELD;
        else if (!strcmp(r->valuestring, "straight"))
            g->route = CROWD_ROUTE_STRAIGHT;
        else
            return false;
    }
    const cJSON* f = cJSON_GetObjectItemCaseSensitive(o, "form");
    if (f) {
        if (!cJSON_IsString(f)) return false;
        if (!strcmp(f->valuestring, "pedestrian"))
            g->form = CROWD_GOAL_PEDESTRIAN;
        else if (!strcmp(f->valuestring, "literal"))
            g->form = CROWD_GOAL_FORM_LITERAL;
        else
            return false;
    }
    const cJSON* e = cJSON_GetObjectItemCaseSensitive(o, "exits");
    if (e && !parse_exits_id(e, &g->exits)) return false;
    // A point given without an exit set is the goal from now on.
    if (!e &&
        (cJSON_GetObjectItemCaseSensitive(o, "x") || cJSON_GetObjectItemCaseSensitive(o, "y")))
        g->exits = (crowd_exits_id){0};
    return numf(o, "x", &g->target.x) && numf(o, "y", &g->target.y) &&
           numf(o, "slow_radius", &g->slow_radius) && numf(o, "weight", &g->weight);
}

static void cmd_add(server* s, const cJSON* o) {
    crowd_agent_def a = crowd_agent_def_default();
    double ref = 0, user = 0;
    const cJSON* goal = cJSON_GetObjectItemCaseSensitive(o, "goal");
    bool ok = num(o, "ref", &ref) && numf(o, "x", &a.position.x) && numf(o, "y", &a.position.y) &&
              numf(o, "vx", &a.velocity.x) && numf(o, "vy", &a.velocity.y) &&
              numf(o, "max_speed", &a.max_speed) && numf(o, "max_force", &a.max_force) &&
              numf(o, "radius", &a.radius) && numf(o, "separation_radius", &a.separation_radius) &&
              numf(o, "separation_weight", &a.separation_weight) && num(o, "user_data", &user) &&
              (!goal || (cJSON_IsObject(goal) && parse_goal(goal, &a.goal)));
    if (!ok || !exact_int(ref) || !exact_int(user) || user < 0) {
        report_error(s, CROWD_OK, "add: bad or missing field");
        return;
    }
    a.user_data = (uint64_t)user;
    crowd_agent_id id;
    crowd_status st = crowd_agent_add(s->world, &a, &id);
    if (st != CROWD_OK) {
        report_error(s, st, "add");
        return;
    }
    if (!grow((void**)&s->added, &s->added_cap, 2 * (s->added_n + 1), sizeof *s->added)) {
        report_error(s, CROWD_ERR_OUT_OF_MEMORY, "add");
        crowd_agent_remove(s->world, id);
        return;
    }
    s->added[2 * s->added_n] = (int64_t)ref;
    s->added[2 * s->added_n + 1] = (int64_t)id_number(id);
    s->added_n++;
}

static void cmd_remove(server* s, const cJSON* o) {
    crowd_agent_id id;
    if (!parse_id(o, &id)) {
        report_error(s, CROWD_OK, "remove: bad or missing field");
        return;
    }
    if (!grow((void**)&s->removed, &s->removed_cap, s->removed_n + 1, sizeof *s->removed)) {
        report_error(s, CROWD_ERR_OUT_OF_MEMORY, "remove");
        return;
    }
    crowd_status st = crowd_agent_remove(s->world, id);
    if (st != CROWD_OK) {
        report_error(s, st, "remove");
        return;
    }
    s->removed[s->removed_n++] = id_number(id);
}

static void cmd_set_goal(server* s, const cJSON* o) {
    crowd_agent_id id;
    crowd_agent_def cur;
    if (!parse_id(o, &id)) {
        report_error(s, CROWD_OK, "set_goal: bad or missing field");
        return;
    }
    crowd_status st = crowd_agent_get_def(s->world, id, &cur);
    if (st != CROWD_OK) {
        report_error(s, st, "set_goal");
        return;
    }
    crowd_goal g = cur.goal;
    if (!parse_goal(o, &g)) {
        report_error(s, CROWD_OK, "set_goal: bad or missing field");
        return;
    }
    st = crowd_agent_set_goal(s->world, id, &g);
    if (st != CROWD_OK) report_error(s, st, "set_goal");
}

static void cmd_teleport(server* s, const cJSON* o) {
    crowd_agent_id id;
    crowd_agent_def cur;
    if (!parse_id(o, &id)) {
        report_error(s, CROWD_OK, "teleport: bad or missing field");
        return;
    }
    crowd_status st = crowd_agent_get_def(s->world, id, &cur);
    if (st != CROWD_OK) {
        report_error(s, st, "teleport");
        return;
    }
    crowd_vec2 p = cur.position, v = cur.velocity;
    if (!numf(o, "x", &p.x) || !numf(o, "y", &p.y) || !numf(o, "vx", &v.x) ||
        !numf(o, "vy", &v.y)) {
        report_error(s, CROWD_OK, "teleport: bad or missing field");
        return;
    }
    // Both values are checked before either is set, so a rejected teleport changes nothing.
    if (!isfinite(p.x) || !isfinite(p.y) || !isfinite(v.x) || !isfinite(v.y)) {
        report_error(s, CROWD_ERR_NOT_FINITE, "teleport");
        return;
    }
    if (fabsf(p.x) > CROWD_MAX_COORD || fabsf(p.y) > CROWD_MAX_COORD ||
        fabsf(v.x) > CROWD_MAX_SPEED || fabsf(v.y) > CROWD_MAX_SPEED) {
        report_error(s, CROWD_ERR_OUT_OF_RANGE, "teleport");
        return;
    }
    st = crowd_agent_set_position(s->world, id, p);
    if (st == CROWD_OK) st = crowd_agent_set_velocity(s->world, id, v);
    if (st != CROWD_OK) report_error(s, st, "teleport");
}

// [[x,y],...] into s->points; false when it is not an array of pairs of numbers.
static bool parse_points(server* s, const cJSON* v, int* count) {
    if (!cJSON_IsArray(v)) return false;
    const int n = cJSON_GetArraySize(v);
    if (!grow((void**)&s->points, &s->points_cap, (size_t)(n ? n : 1), sizeof *s->points))
        return false;
    int k = 0;
    for (const cJSON* e = v->child; e; e = e->next, ++k) {
        const cJSON* x = cJSON_GetArrayItem(e, 0);
        const cJSON* y = cJSON_GetArrayItem(e, 1);
        if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) != 2 || !cJSON_IsNumber(x) ||
            !cJSON_IsNumber(y))
            return false;
        const double xy[2] = {x->valuedouble, y->valuedouble};
        for (int a = 0; a < 2; ++a) {
            float f = fabs(xy[a]) <= FLT_MAX ? (float)xy[a] : (xy[a] > 0 ? INFINITY : -INFINITY);
            if (a == 0)
                s->points[k].x = f;
            else
                s->points[k].y = f;
        }
    }
    *count = n;
    return true;
}

static void cmd_add_wall(server* s, const cJSON* o) {
    double ref = 0;
    int count = 0;
    crowd_obstacle_kind kind = CROWD_OBSTACLE_WALL;
    const cJSON* k = cJSON_GetObjectItemCaseSensitive(o, "kind");
    bool ok = num(o, "ref", &ref) && exact_int(ref) &&
              parse_points(s, cJSON_GetObjectItemCaseSensitive(o, "points"), &count);
    if (ok && k) {
        ok = cJSON_IsString(k) &&
             (!strcmp(k->valuestring, "wall") || !strcmp(k->valuestring, "polygon"));
        if (ok && !strcmp(k->valuestring, "polygon")) kind = CROWD_OBSTACLE_POLYGON;
    }
    if (!ok) {
        report_error(s, CROWD_OK, "add_wall: bad or missing field");
        return;
    }
    if (!grow((void**)&s->walls_added, &s->walls_added_cap, 2 * (s->walls_added_n + 1),
              sizeof *s->walls_added)) {
        report_error(s, CROWD_ERR_OUT_OF_MEMORY, "add_wall");
        return;
    }
    crowd_obstacle_id id;
    crowd_status st = crowd_obstacle_add(s->world, kind, s->points, count, &id);
    if (st != CROWD_OK) {
        report_error(s, st, "add_wall");
        return;
    }
    s->walls_added[2 * s->walls_added_n] = (int64_t)ref;
    s->walls_added[2 * s->walls_added_n + 1] = (int64_t)wall_number(id);
    s->walls_added_n++;
}

static void cmd_remove_wall(server* s, const cJSON* o) {
    crowd_agent_id a;
    if (!parse_id(o, &a)) {
        report_error(s, CROWD_OK, "remove_wall: bad or missing field");
        return;
    }
    if (!grow((void**)&s->walls_removed, &s->walls_removed_cap, s->walls_removed_n + 1,
              sizeof *s->walls_removed)) {
        report_error(s, CROWD_ERR_OUT_OF_MEMORY, "remove_wall");
        return;
    }
    const crowd_obstacle_id id = {.index1 = a.index1, .generation = a.generation, .world = 1};
    crowd_status st = crowd_obstacle_remove(s->world, id);
    if (st != CROWD_OK) {
        report_error(s, st, "remove_wall");
        return;
    }
    s->walls_removed[s->walls_removed_n++] = wall_number(id);
}

static void cmd_add_exits(server* s, const cJSON* o) {
    double ref = 0;
    int count = 0;
    if (!num(o, "ref", &ref) || !exact_int(ref) ||
        !parse_points(s, cJSON_GetObjectItemCaseSensitive(o, "points"), &count)) {
        report_error(s, CROWD_OK, "add_exits: bad or missing field");
        return;
    }
    if (!grow((void**)&s->exits_added, &s->exits_added_cap, 2 * (s->exits_added_n + 1),
              sizeof *s->exits_added) ||
        !grow((void**)&s->exits, &s->exits_cap, s->exits_n + 1, sizeof *s->exits)) {
        report_error(s, CROWD_ERR_OUT_OF_MEMORY, "add_exits");
        return;
    }
    crowd_exits_id id;
    crowd_status st = crowd_exits_create(s->world, s->points, count, &id);
    if (st != CROWD_OK) {
        report_error(s, st, "add_exits");
        return;
    }
    s->exits[s->exits_n++] = id;
    s->exits_added[2 * s->exits_added_n] = (int64_t)ref;
    s->exits_added[2 * s->exits_added_n + 1] = (int64_t)exits_number(id);
    s->exits_added_n++;
}

static void cmd_remove_exits(server* s, const cJSON* o) {
    crowd_exits_id id;
    if (!parse_exits_id(cJSON_GetObjectItemCaseSensitive(o, "id"), &id)) {
        report_error(s, CROWD_OK, "remove_exits: bad or missing field");
        return;
    }
    if (!grow((void**)&s->exits_removed, &s->exits_removed_cap, s->exits_removed_n + 1,
              sizeof *s->exits_removed)) {
        report_error(s, CROWD_ERR_OUT_OF_MEMORY, "remove_exits");
        return;
    }
    crowd_status st = crowd_exits_destroy(s->world, id);
    if (st != CROWD_OK) {
        report_error(s, st, "remove_exits");
        return;
    }
    for (size_t k = 0; k < s->exits_n; ++k) {
        if (s->exits[k].index1 != id.index1) continue;
        memmove(&s->exits[k], &s->exits[k + 1], (s->exits_n - k - 1) * sizeof *s->exits);
        s->exits_n--;
        break;
    }
    s->exits_removed[s->exits_removed_n++] = exits_number(id);
}

static void cmd_step(server* s, const cJSON* o) {
    double n = 1;
    if (!s->opt.lockstep || !num(o, "n", &n) || !exact_int(n) || n < 0 || n > 1e6) {
        report_error(s, CROWD_OK, "step: bad or missing field");
        return;
    }
    for (long k = 0; k < (long)n && !s->quit; ++k)
        if (!tick(s)) s->quit = true;
}

// The keys each command takes ("cmd" included); a goal object inside "add" takes goal_keys.
typedef struct command_keys {
    const char* name;
    const char* keys[16];
} command_keys;

static const command_keys known_keys[] = {
    {"add",
     {"cmd", "ref", "x", "y", "vx", "vy", "max_speed", "max_force", "radius", "separation_radius",
      "separation_weight", "user_data", "goal", NULL}},
    {"remove", {"cmd", "id", NULL}},
    {"set_goal",
     {"cmd", "id", "mode", "x", "y", "slow_radius", "weight", "route", "exits", "form", NULL}},
    {"teleport", {"cmd", "id", "x", "y", "vx", "vy", NULL}},
    {"add_wall", {"cmd", "ref", "kind", "points", NULL}},
    {"remove_wall", {"cmd", "id", NULL}},
    {"add_exits", {"cmd", "ref", "points", NULL}},
    {"remove_exits", {"cmd", "id", NULL}},
    {"step", {"cmd", "n", NULL}},
    {"dump", {"cmd", NULL}},
    {"quit", {"cmd", NULL}},
};
static const char* const goal_keys[] = {"mode",  "x",     "y",    "slow_radius", "weight",
                                        "route", "exits", "form", NULL};

// Reports the first key the command does not take (also inside an add's goal); true when all
// are known or the command itself is unknown.
static bool keys_known(server* s, const cJSON* o, const char* name) {
    for (size_t i = 0; i < sizeof known_keys / sizeof known_keys[0]; ++i) {
        if (strcmp(known_keys[i].name, name) != 0) continue;
        const char* bad = unknown_key(o, known_keys[i].keys);
        const cJSON* goal = cJSON_GetObjectItemCaseSensitive(o, "goal");
        if (!bad && !strcmp(name, "add") && cJSON_IsObject(goal))
            bad = unknown_key(goal, goal_keys);
        if (!bad) return true;
        char what[96];
        // The key is the client's text: only a short printable-ASCII prefix is echoed, other
        // bytes (quotes, backslashes, controls, UTF-8) as '?'.
        int n = 0;
        char shown[33];
        for (const unsigned char* c = (const unsigned char*)bad; *c && n < 32; ++c)
            shown[n++] = (*c == '"' || *c == '\\' || *c < 0x20 || *c > 0x7e) ? '?' : (char)*c;
        shown[n] = '\0';
        snprintf(what, sizeof what, "%s: unknown key \\\"%s\\\"", name, shown);
        report_error(s, CROWD_OK, what);
        return false;
    }
    return true;
}

static void dispatch(server* s, const cJSON* o, const char* name) {
    if (!strcmp(name, "add"))
        cmd_add(s, o);
    else if (!strcmp(name, "remove"))
        cmd_remove(s, o);
    else if (!strcmp(name, "set_goal"))
        cmd_set_goal(s, o);
    else if (!strcmp(name, "teleport"))
        cmd_teleport(s, o);
    else if (!strcmp(name, "add_wall"))
        cmd_add_wall(s, o);
    else if (!strcmp(name, "remove_wall"))
        cmd_remove_wall(s, o);
    else if (!strcmp(name, "add_exits"))
        cmd_add_exits(s, o);
    else if (!strcmp(name, "remove_exits"))
        cmd_remove_exits(s, o);
    else if (!strcmp(name, "step"))
        cmd_step(s, o);
    else if (!strcmp(name, "dump"))
        emit_state(s, "dump");
    else if (!strcmp(name, "quit"))
        s->quit = true;
    else
        report_error(s, CROWD_OK, "unknown command");
}

static void command(server* s, const char* line, size_t len) {
    s->line_no++;
    while (len > 0 && (line[len - 1] == '\r' || line[len - 1] == ' ')) --len;
    if (len == 0) return;
    cJSON* o = cJSON_ParseWithLength(line, len);
    const cJSON* c = cJSON_GetObjectItemCaseSensitive(o, "cmd");
    const char* name = cJSON_IsString(c) ? c->valuestring : "";
    if (!cJSON_IsObject(o) || !cJSON_IsString(c))
        report_error(s, CROWD_OK, "not a JSON command object");
    else if (keys_known(s, o, name))
        dispatch(s, o, name);
    cJSON_Delete(o);
}

// Reads what stdin has (blocking up to timeout_ms; -1 = until something comes) and runs every
// complete line.
static void pump_input(server* s, int timeout_ms) {
    struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
    int r = poll(&p, 1, timeout_ms);
    if (r < 0 && errno == EINTR) return;
    if (r <= 0) return;
    char chunk[65536];
    ssize_t got = read(STDIN_FILENO, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) return;
    if (got <= 0) {
        s->eof = true;
        if (s->buf_n > 0 && !s->discarding) command(s, s->buf, s->buf_n);
        s->buf_n = 0;
        return;
    }
    for (ssize_t i = 0; i < got && !s->quit; ++i) {
        const char ch = chunk[i];
        if (ch == '\n') {
            if (s->discarding) {
                s->line_no++;
                report_error(s, CROWD_OK, "line too long");
            } else {
                command(s, s->buf, s->buf_n);
            }
            s->buf_n = 0;
            s->discarding = false;
        } else if (!s->discarding) {
            if (s->buf_n == MAX_LINE) {
                s->discarding = true;
                continue;
            }
            s->buf[s->buf_n++] = ch;
        }
    }
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void run(server* s) {
    if (s->opt.lockstep) {
        while (!s->quit && !s->eof) pump_input(s, -1);
        return;
    }
    const double period = 1.0 / s->opt.rate;
    double next = now_s() + period;
    while (!s->quit) {
        if (s->opt.max_ticks >= 0 && s->ticks >= s->opt.max_ticks) break;
        if (s->eof && s->opt.max_ticks < 0) break;
        const double wait = next - now_s();
        if (wait > 0) {
            if (!s->eof) {
                pump_input(s, (int)ceil(wait * 1e3));
            } else {
                struct timespec ts = {(time_t)wait, (long)((wait - floor(wait)) * 1e9)};
                nanosleep(&ts, NULL);
            }
            continue;
        }
        if (!tick(s)) break;
        // Fixed rate without catch-up bursts: after a long stall the schedule restarts from now.
        next += period;
        if (now_s() - next > period) next = now_s() + period;
    }
}

// ---- main ---------------------------------------------------------------------------------------

static void usage(FILE* f) {
    fputs("usage: crowd-server [options]  (JSON-line commands on stdin, deltas on stdout)\n"
          "  --rate HZ       ticks per second (default 20)\n"
          "  --lockstep      tick only on {\"cmd\":\"step\",\"n\":N}, as fast as possible\n"
          "  --ticks N       stop after N ticks (default: when stdin closes)\n"
          "  --threads T     OpenMP threads of the step; 1 = the server's thread (default 1)\n"
          "  --dt S          tick length in seconds (default 0.1)\n"
          "  --capacity N    agents to reserve storage for (default 1024)\n"
          "  --max-neighbors K  per-agent neighbor cap, 0 = none (default 64): bounds the cost\n"
          "                  of a step however densely clients pile agents up\n",
          f);
}

static bool parse_args(int argc, char** argv, options* o) {
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        if (!strcmp(a, "--lockstep")) {
            o->lockstep = true;
            continue;
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(0);
        }
        if (i + 1 >= argc) return false;
        char* end;
        const double v = strtod(argv[++i], &end);
        if (*end != '\0' || !isfinite(v)) return false;
        if (!strcmp(a, "--rate") && v > 0 && v <= 100000)
            o->rate = v;
        else if (!strcmp(a, "--ticks") && v >= 0 && v <= 1e12)
            o->max_ticks = (long)v;
        else if (!strcmp(a, "--threads") && v >= 0 && v <= 256)
            o->threads = (int)v;
        else if (!strcmp(a, "--dt") && v > 0)
            o->dt = (float)v;
        else if (!strcmp(a, "--capacity") && v >= 0 && v <= 1 << 24)
            o->capacity = (int)v;
        else if (!strcmp(a, "--max-neighbors") && v >= 0 && v <= CROWD_MAX_NEIGHBORS &&
                 v == floor(v))
            o->max_neighbors = (int)v;
        else
            return false;
    }
    return true;
}

int main(int argc, char** argv) {
    // Clients may add any number of agents anywhere: the server caps neighbors by default.
    server s = {.opt = {.rate = 20,
                        .max_ticks = -1,
                        .threads = 1,
                        .dt = 0.1f,
                        .capacity = 1024,
                        .max_neighbors = 64},
                .out = stdout};
    if (!parse_args(argc, argv, &s.opt)) {
        usage(stderr);
        return 2;
    }
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = s.opt.threads;
    wd.dt = s.opt.dt;
    wd.capacity = s.opt.capacity;
    wd.max_neighbors = s.opt.max_neighbors;
    wd.world_tag = 1;
    crowd_status st = crowd_world_create(&wd, &s.world);
    s.buf = malloc(MAX_LINE);
    if (st != CROWD_OK || !s.buf) {
        fprintf(stderr, "crowd-server: %s\n",
                crowd_status_string(st != CROWD_OK ? st : CROWD_ERR_OUT_OF_MEMORY));
        return 1;
    }
    run(&s);
    emit_state(&s, "final");
    crowd_world_destroy(s.world);
    free(s.buf);
    free(s.added);
    free(s.removed);
    free(s.walls_added);
    free(s.walls_removed);
    free(s.exits_added);
    free(s.exits_removed);
    free(s.exits);
    free(s.points);
    free(s.ids);
    free(s.pos);
    free(s.vel);
    free(s.last);
    return 0;
}
