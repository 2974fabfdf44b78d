// The FELD chunk: one navigation field sampled on a coarse grid, for the replay to draw under the
// agents (crowd run --record OUT --field SPEC).
//
// The field is read in a probe world of its own: the run's obstacles and nav settings, its exit
// sets, and one agent far outside the obstacles whose goal is the destination, so that the
// field is in use and crowd_world_nav_update builds it. A field depends only on the obstacles, the
// nav settings and the destination (crowd/nav.h), so the probe's field is the run's; and the
// run's world is only read, so recording a field changes nothing in the run.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"

enum { FIELD_MAX_SIDE = 240 }; // samples on the long side with the default step

static bool failed(char* err, size_t errlen, const char* what, crowd_status st) {
    snprintf(err, errlen, "--field: %s: %s", what, crowd_status_string(st));
    return false;
}

bool rec_field_auto(const scenario* sc, rec_field_spec* out) {
    // A crowd's routed goal first (a point or an exit set), then a routed queue's target, then
    // the first waypoint of a routed waypoint path.
    for (int pass = 0; pass < 3; ++pass) {
        for (int k = 0; k < sc->crowd_count; ++k) {
            const sc_crowd* c = &sc->crowds[k];
            if (pass == 0 && c->has_goal && c->goal.mode != CROWD_GOAL_FLEE &&
                c->goal.route == CROWD_ROUTE_FIELD) {
                if (c->goal.exits >= 0) {
                    *out = (rec_field_spec){.exits = c->goal.exits};
                    snprintf(out->label, sizeof out->label, "exits %s",
                             sc->exits[c->goal.exits].name);
                } else {
                    *out = (rec_field_spec){.exits = -1, .point = c->goal.target};
                    snprintf(out->label, sizeof out->label, "goal [%g, %g]",
                             (double)c->goal.target.x, (double)c->goal.target.y);
                }
                return true;
            }
            if (pass == 1 && c->has_queue && c->queue.route == CROWD_ROUTE_FIELD) {
                *out = (rec_field_spec){.exits = -1, .point = c->queue.target};
                snprintf(out->label, sizeof out->label, "queue [%g, %g]", (double)c->queue.target.x,
                         (double)c->queue.target.y);
                return true;
            }
            if (pass == 2 && c->has_path && c->path.kind == SC_PATH_WAYPOINTS &&
                c->path.route == CROWD_ROUTE_FIELD) {
                const crowd_vec2 p = sc->paths[c->path.path].points[0];
                *out = (rec_field_spec){.exits = -1, .point = p};
                snprintf(out->label, sizeof out->label, "waypoint %s[0] [%g, %g]",
                         sc->paths[c->path.path].name, (double)p.x, (double)p.y);
                return true;
            }
        }
    }
    return false;
}

typedef struct box {
    float x0, y0, x1, y1;
} box;

static void grow(box* b, crowd_vec2 p) {
    b->x0 = fminf(b->x0, p.x), b->y0 = fminf(b->y0, p.y);
    b->x1 = fmaxf(b->x1, p.x), b->y1 = fmaxf(b->y1, p.y);
}

// Copies the run's obstacles into the probe and grows `bounds` by their points.
static bool copy_obstacles(const crowd_world* from, crowd_world* to, box* bounds, char* err,
                           size_t errlen) {
    int n = crowd_world_obstacle_count(from);
    crowd_obstacle_id* ids = malloc(sizeof *ids * (size_t)(n ? n : 1));
    crowd_vec2* pts = NULL;
    int cap = 0;
    crowd_status st = ids ? CROWD_OK : CROWD_ERR_OUT_OF_MEMORY;
    if (st == CROWD_OK && n) st = crowd_world_get_obstacles(from, ids, n, &n);
    for (int k = 0; k < n && st == CROWD_OK; ++k) {
        crowd_obstacle_kind kind;
        int count = 0;
        st = crowd_obstacle_get_points(from, ids[k], &kind, pts, cap, &count);
        if (st == CROWD_ERR_BUFFER_TOO_SMALL) {
            crowd_vec2* p = realloc(pts, sizeof *p * (size_t)count);
            if (!p) {
                st = CROWD_ERR_OUT_OF_MEMORY;
                break;
            }
            pts = p;
            cap = count;
            st = crowd_obstacle_get_points(from, ids[k], &kind, pts, cap, &count);
        }
        crowd_obstacle_id id;
        if (st == CROWD_OK) st = crowd_obstacle_add(to, kind, pts, count, &id);
        for (int i = 0; st == CROWD_OK && i < count; ++i) grow(bounds, pts[i]);
    }
    free(pts);
    free(ids);
    return st == CROWD_OK || failed(err, errlen, "copying the obstacles", st);
}

static uint8_t angle_u8(crowd_vec2 d) {
    const double a = atan2((double)d.y, (double)d.x) * (256.0 / 6.283185307179586);
    return (uint8_t)((int)floor(a + 0.5) & 255);
}

bool rec_field(rec_writer* w, const built_world* b, const rec_field_spec* spec, char* err,
               size_t errlen) {
    const scenario* sc = b->sc;
    if (errlen) err[0] = '\0';
    crowd_world_def wd = crowd_world_def_default();
    wd.nav = sc->nav;
    wd.cell_size = sc->cell_size; // the walls' index too: what the run's sight tests walk
    wd.dt = sc->dt;
    wd.threads = 1;
    wd.capacity = 1;
    crowd_world* probe = NULL;
    crowd_status st = crowd_world_create(&wd, &probe);
    if (st != CROWD_OK) return failed(err, errlen, "cannot create the probe world", st);
    box bounds = {INFINITY, INFINITY, -INFINITY, -INFINITY};
    bool ok = copy_obstacles(b->world, probe, &bounds, err, errlen);
    crowd_goal goal = crowd_goal_default();
    goal.mode = CROWD_GOAL_ARRIVE;
    goal.route = CROWD_ROUTE_FIELD;
    if (ok && spec->exits >= 0) {
        const sc_exits* x = &sc->exits[spec->exits];
        st = crowd_exits_create(probe, x->points, x->count, &goal.exits);
        if (st != CROWD_OK) ok = failed(err, errlen, "cannot create the exit set", st);
        for (int i = 0; ok && i < x->count; ++i) grow(&bounds, x->points[i]);
    } else {
        goal.target = spec->point;
        grow(&bounds, spec->point);
    }
    // Where the agents start, and every goal and path of the scenario, belong in the picture.
    const int n = crowd_world_agent_count(b->world);
    crowd_vec2* pos = ok ? malloc(sizeof *pos * (size_t)(n ? n : 1)) : NULL;
    int count = 0;
    if (ok && (!pos || crowd_world_get_agents(b->world, NULL, pos, NULL, n, &count) != CROWD_OK))
        ok = failed(err, errlen, "reading the agents", CROWD_ERR_OUT_OF_MEMORY);
    for (int i = 0; ok && i < count; ++i) grow(&bounds, pos[i]);
    for (int p = 0; ok && p < sc->path_count; ++p)
        for (int i = 0; i < sc->paths[p].count; ++i) grow(&bounds, sc->paths[p].points[i]);
    // One agent puts the field in use: well outside everything, or where the run's first agent
    // stands when everything spans the library's range.
    if (ok) {
        const float far = 50.0f;
        const crowd_vec2 places[3] = {{bounds.x1 + far, bounds.y1 + far},
                                      {bounds.x0 - far, bounds.y0 - far},
                                      count ? pos[0] : (crowd_vec2){bounds.x1 + far, 0.0f}};
        crowd_agent_def a = crowd_agent_def_default();
        a.goal = goal;
        crowd_agent_id id;
        st = CROWD_ERR_OUT_OF_RANGE;
        for (int k = 0; k < 3 && st != CROWD_OK; ++k) {
            a.position = places[k];
            st = crowd_agent_add(probe, &a, &id);
        }
        if (st == CROWD_OK) st = crowd_world_nav_update(probe);
        if (st != CROWD_OK) ok = failed(err, errlen, "building the field", st);
    }
    free(pos);
    const float margin = 2.0f, lim = CROWD_MAX_COORD;
    bounds.x0 = fmaxf(bounds.x0 - margin, -lim), bounds.y0 = fmaxf(bounds.y0 - margin, -lim);
    bounds.x1 = fminf(bounds.x1 + margin, lim), bounds.y1 = fminf(bounds.y1 + margin, lim);
    const float ex = bounds.x1 - bounds.x0, ey = bounds.y1 - bounds.y0;
    // The default step is a whole number of nav cells; a step that is one samples at the cells'
    // centres, which is where the field is defined (a point on a cell's edge may read either).
    const float cell = sc->nav.cell_size;
    float step = spec->step;
    if (!(step > 0.0f))
        step = cell * fmaxf(1.0f, ceilf(fmaxf(ex, ey) / (float)FIELD_MAX_SIDE / cell));
    float x0 = bounds.x0, y0 = bounds.y0;
    const float k = step / cell;
    if (fabsf(k - roundf(k)) < 1e-4f * k) {
        x0 = (floorf(x0 / cell) + 0.5f) * cell;
        y0 = (floorf(y0 / cell) + 0.5f) * cell;
    }
    if (x0 < -lim) x0 += cell;
    if (y0 < -lim) y0 += cell;
    // Every sample within the library's range.
    const long cols =
        ok ? (long)fminf(ceilf((bounds.x1 - x0) / step), floorf((lim - x0) / step)) + 1 : 0;
    const long rows =
        ok ? (long)fminf(ceilf((bounds.y1 - y0) / step), floorf((lim - y0) / step)) + 1 : 0;
    if (ok && (cols * rows > REC_FIELD_MAX_SAMPLES || !isfinite(ex) || !isfinite(ey))) {
        snprintf(err, errlen,
                 "--field: %ld x %ld samples at a step of %g m, more than %d: give a larger "
                 "--field-step",
                 cols, rows, (double)step, REC_FIELD_MAX_SAMPLES);
        ok = false;
    }
    const size_t cells = ok ? (size_t)cols * (size_t)rows : 0;
    float* dist = ok ? malloc(sizeof *dist * cells) : NULL;
    uint8_t* state = ok ? malloc(cells) : NULL;
    uint8_t* angle = ok ? malloc(cells) : NULL;
    if (ok && (!dist || !state || !angle))
        ok = failed(err, errlen, "sampling", CROWD_ERR_OUT_OF_MEMORY);
    for (long j = 0; ok && j < rows; ++j) {
        for (long i = 0; ok && i < cols; ++i) {
            const size_t c = (size_t)j * (size_t)cols + (size_t)i;
            const crowd_vec2 p = {x0 + (float)i * step, y0 + (float)j * step};
            crowd_route_info r;
            st = crowd_nav_route_from(probe, &goal, p, &r);
            if (st != CROWD_OK) {
                ok = failed(err, errlen, "sampling", st);
                break;
            }
            const bool has = r.state == CROWD_ROUTE_STATE_ROUTED ||
                             r.state == CROWD_ROUTE_STATE_STRAIGHT ||
                             r.state == CROWD_ROUTE_STATE_UNREACHABLE;
            dist[c] = has ? r.distance : -1.0f;
            state[c] = (uint8_t)r.state;
            angle[c] = angle_u8((crowd_vec2){r.aim.x - p.x, r.aim.y - p.y});
        }
    }
    if (ok)
        ok = rec_put_field(w, x0, y0, step, (int)cols, (int)rows, spec->label, dist, state, angle);
    if (!ok && !err[0]) snprintf(err, errlen, "--field: out of memory");
    free(dist);
    free(state);
    free(angle);
    crowd_world_destroy(probe);
    return ok;
}
