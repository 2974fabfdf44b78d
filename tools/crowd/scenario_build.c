// Building a world from a scenario: world settings, obstacles, crowds placed in their areas with
// their agent parameters, separation, wall avoidance and goals; queue, path and leader sections go
// to build_behaviors.c.
//
// Obstacles are added first, so the library refuses any agent that would stand in one. An agent of
// a random area (uniform or circle) that lands in an obstacle is drawn again from the same stream,
// so a crowd may cover an area with buildings in it; a grid slot in an obstacle is an error.
//
// Everything random comes from one splitmix stream per crowd (and one per crowd's followers)
// seeded from world.seed and the crowd's index, drawn in a fixed order, so a scenario builds the
// same world on every run and scaling one crowd does not move the agents of another.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "scenes.h"

static const char* const KIND_NAMES[AGENT_KIND_COUNT] = {
    "plain", "seek", "arrive", "flee", "queue", "waypoints", "tube", "leader", "follower"};

const char* agent_kind_name(agent_kind k) {
    return (unsigned)k < AGENT_KIND_COUNT ? KIND_NAMES[k] : "?";
}

int scenario_scaled_count(int count, double agents_scale) {
    double n = floor((double)count * agents_scale + 0.5);
    if (n < 1.0) n = 1.0;
    if (n > (double)(1 << 30)) n = (double)(1 << 30);
    return (int)n;
}

int64_t scenario_agent_total(const scenario* sc, double agents_scale) {
    int64_t total = 0;
    for (int k = 0; k < sc->crowd_count; ++k) {
        const sc_crowd* c = &sc->crowds[k];
        const int64_t per = 1 + (c->has_followers ? c->followers.count : 0);
        total += (int64_t)scenario_scaled_count(c->count, agents_scale) * per;
    }
    return total;
}

bool built_world_set_kind(built_world* b, crowd_agent_id id, agent_kind kind) {
    const int idx = (int)id.index1 - 1;
    if (idx >= b->kind_cap) {
        int cap = b->kind_cap ? b->kind_cap : 1024;
        while (cap <= idx) cap *= 2;
        uint8_t* k = realloc(b->kind, (size_t)cap);
        if (!k) return false;
        memset(k + b->kind_cap, AGENT_PLAIN, (size_t)(cap - b->kind_cap));
        b->kind = k;
        b->kind_cap = cap;
    }
    b->kind[idx] = (uint8_t)kind;
    return true;
}

void built_world_free(built_world* b) {
    crowd_world_destroy(b->world);
    free(b->kind);
    free(b->paths);
    free(b->exits);
    *b = (built_world){0};
}

static float draw(scene_rng* rng, sc_range r) {
    return r.lo == r.hi ? r.lo : scene_rng_float(rng, r.lo, r.hi);
}

static crowd_vec2 unit(crowd_vec2 v) {
    const float len = sqrtf(v.x * v.x + v.y * v.y);
    return len > 0.0f ? (crowd_vec2){v.x / len, v.y / len} : (crowd_vec2){1.0f, 0.0f};
}

static bool crowd_target(const scenario* sc, const sc_crowd* c, crowd_vec2* out) {
    if (c->has_goal) *out = c->goal.target; // an exit set's goal: see exit_target
    if (c->has_queue) *out = c->queue.target;
    if (c->has_path) *out = sc->paths[c->path.path].points[0];
    return c->has_goal || c->has_queue || c->has_path;
}

// The point of exit set `x` nearest p in a straight line (the first among equals): where an agent
// heading for the set faces when it starts.
static crowd_vec2 exit_target(const sc_exits* x, crowd_vec2 p) {
    crowd_vec2 best = x->points[0];
    float bd = INFINITY;
    for (int k = 0; k < x->count; ++k) {
        const float dx = x->points[k].x - p.x, dy = x->points[k].y - p.y;
        if (dx * dx + dy * dy < bd) bd = dx * dx + dy * dy, best = x->points[k];
    }
    return best;
}

static bool same_walls(const sc_agent* t) {
    const crowd_wall_def d = crowd_wall_def_default();
    return t->wall_weight.lo == d.weight && t->wall_weight.hi == d.weight &&
           t->wall_look_ahead.lo == d.look_ahead && t->wall_look_ahead.hi == d.look_ahead;
}

// One agent from a template. The heading is the given one, else the velocity's direction, else
// toward the crowd's target (a fleeing agent faces away), else +x.
static crowd_agent_def make_agent(const sc_agent* t, scene_rng* rng, crowd_vec2 pos,
                                  const crowd_vec2* target, bool flee) {
    crowd_agent_def a = crowd_agent_def_default();
    a.position = pos;
    a.radius = draw(rng, t->radius);
    a.max_speed = draw(rng, t->max_speed);
    a.max_force = draw(rng, t->max_force);
    a.separation_radius = draw(rng, t->separation_radius);
    a.separation_weight = draw(rng, t->separation_weight);
    // Drawn only when the scenario changes the library's default, so scenarios without the keys
    // draw exactly what they drew before walls existed.
    if (!same_walls(t))
        a.walls = (crowd_wall_def){draw(rng, t->wall_weight), draw(rng, t->wall_look_ahead)};
    a.velocity = t->velocity;
    if (t->random_speed > 0.0f) {
        const float ang = scene_rng_float(rng, 0.0f, 6.2831853f);
        a.velocity =
            (crowd_vec2){crowd_cosf(ang) * t->random_speed, crowd_sinf(ang) * t->random_speed};
    }
    if (t->has_heading) {
        a.heading = t->heading;
    } else if (a.velocity.x != 0.0f || a.velocity.y != 0.0f) {
        a.heading = unit(a.velocity);
    } else if (target && (target->x != pos.x || target->y != pos.y)) {
        crowd_vec2 d = {target->x - pos.x, target->y - pos.y};
        a.heading = unit(flee ? (crowd_vec2){-d.x, -d.y} : d);
    }
    return a;
}

static agent_kind crowd_kind(const sc_crowd* c) {
    if (c->has_followers) return AGENT_LEADER;
    if (c->has_queue) return AGENT_QUEUE;
    if (c->has_path) return c->path.kind == SC_PATH_TUBE ? AGENT_TUBE : AGENT_WAYPOINTS;
    if (c->has_goal) {
        switch (c->goal.mode) {
        case CROWD_GOAL_SEEK:
            return AGENT_SEEK;
        case CROWD_GOAL_ARRIVE:
        case CROWD_GOAL_ARRIVE_LITERAL:
            return AGENT_ARRIVE;
        case CROWD_GOAL_FLEE:
            return AGENT_FLEE;
        default:
            break;
        }
    }
    return AGENT_PLAIN;
}

enum { PLACEMENT_DRAWS = 64 }; // draws of a random area before an agent is given up

static crowd_status try_add(built_world* b, const crowd_agent_def* a, agent_kind kind,
                            crowd_agent_id* out) {
    crowd_status st = crowd_agent_add(b->world, a, out);
    if (st == CROWD_OK && !built_world_set_kind(b, *out, kind)) {
        crowd_agent_remove(b->world, *out);
        st = CROWD_ERR_OUT_OF_MEMORY;
    }
    if (st == CROWD_OK) b->agents++;
    return st;
}

static bool add_failed(built_world* b, const crowd_agent_def* a, crowd_status st, const sc_crowd* c,
                       int index, char* err, size_t errlen) {
    snprintf(err, errlen, "%s:%d:%d: crowds[%d]: cannot add an agent at [%g, %g]: %s", b->sc->file,
             c->pos.line, c->pos.col, index, (double)a->position.x, (double)a->position.y,
             crowd_status_string(st));
    return false;
}

static bool add_agent(built_world* b, const crowd_agent_def* a, agent_kind kind,
                      crowd_agent_id* out, const sc_crowd* c, int index, char* err, size_t errlen) {
    const crowd_status st = try_add(b, a, kind, out);
    return st == CROWD_OK || add_failed(b, a, st, c, index, err, errlen);
}

static bool build_followers(built_world* b, const sc_crowd* c, int index,
                            const crowd_agent_id* leaders, int n, scene_rng* rng, char* err,
                            size_t errlen) {
    const sc_followers* f = &c->followers;
    crowd_agent_id* ids = malloc(sizeof *ids * (size_t)n * (size_t)f->count);
    if (!ids) {
        snprintf(err, errlen, "%s: out of memory", b->sc->file);
        return false;
    }
    bool ok = true;
    for (int k = 0; k < n && ok; ++k) {
        crowd_agent_def leader;
        crowd_agent_get_def(b->world, leaders[k], &leader);
        const crowd_vec2 fwd = leader.heading, left = {-fwd.y, fwd.x};
        for (int j = 0; j < f->count && ok; ++j) {
            const crowd_vec2 o = formation_offset(f, j, f->count);
            const crowd_vec2 p = {leader.position.x + fwd.x * o.x + left.x * o.y,
                                  leader.position.y + fwd.y * o.x + left.y * o.y};
            crowd_agent_def a = make_agent(&f->agent, rng, p, NULL, false);
            // Followers' keys follow the crowd's own agents' (bit 31 set).
            if (f->agent.has_speed_dist)
                crowd_speed_draw(&f->agent.speed_dist, b->sc->seed,
                                 (uint64_t)index << 32 | 1u << 31 | (uint64_t)(k * f->count + j),
                                 &a.max_speed);
            if (!f->agent.has_heading && a.velocity.x == 0.0f && a.velocity.y == 0.0f)
                a.heading = fwd;
            ok = add_agent(b, &a, AGENT_FOLLOWER, &ids[(size_t)k * (size_t)f->count + (size_t)j], c,
                           index, err, errlen);
        }
    }
    if (ok) ok = build_leader(b, c, leaders, n, ids, err, errlen);
    free(ids);
    return ok;
}

static bool build_obstacles(built_world* b, char* err, size_t errlen) {
    const scenario* sc = b->sc;
    for (int k = 0; k < sc->obstacle_count; ++k) {
        const sc_obstacle* o = &sc->obstacles[k];
        crowd_obstacle_id id;
        const crowd_status st = crowd_obstacle_add(b->world, o->kind, o->points, o->count, &id);
        if (st != CROWD_OK) {
            snprintf(err, errlen, "%s:%d:%d: obstacles[%d]: cannot add the %s: %s", sc->file,
                     o->pos.line, o->pos.col, k, sc_obstacle_kind_name(o->kind),
                     crowd_status_string(st));
            return false;
        }
    }
    return true;
}

static bool build_exits(built_world* b, char* err, size_t errlen) {
    const scenario* sc = b->sc;
    if (sc->exits_count == 0) return true;
    b->exits = calloc((size_t)sc->exits_count, sizeof *b->exits);
    if (!b->exits) {
        snprintf(err, errlen, "%s: out of memory", sc->file);
        return false;
    }
    for (int k = 0; k < sc->exits_count; ++k) {
        const sc_exits* x = &sc->exits[k];
        const crowd_status st = crowd_exits_create(b->world, x->points, x->count, &b->exits[k]);
        if (st != CROWD_OK) {
            snprintf(err, errlen, "%s:%d:%d: exits.%s: cannot create the exit set: %s", sc->file,
                     x->pos.line, x->pos.col, x->name, crowd_status_string(st));
            return false;
        }
    }
    return true;
}

static bool build_crowd(built_world* b, const sc_crowd* c, int index, double scale, char* err,
                        size_t errlen) {
    const scenario* sc = b->sc;
    const int n = scenario_scaled_count(c->count, scale);
    const uint64_t stream = sc->seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(index + 1));
    scene_rng rng = {stream};
    scene_rng follower_rng = {stream ^ 0xd1b54a32d192ed03ull};
    crowd_agent_id* ids = malloc(sizeof *ids * (size_t)n);
    if (!ids) {
        snprintf(err, errlen, "%s: out of memory", sc->file);
        return false;
    }
    crowd_vec2 target;
    const bool has_target = crowd_target(sc, c, &target);
    const bool flee = c->has_goal && c->goal.mode == CROWD_GOAL_FLEE;
    const agent_kind kind = crowd_kind(c);
    const bool redraw = c->area.kind == SC_AREA_UNIFORM || c->area.kind == SC_AREA_CIRCLE;
    bool ok = true;
    for (int k = 0; k < n && ok; ++k) {
        crowd_status st = CROWD_ERR_INSIDE_OBSTACLE;
        crowd_agent_def a;
        for (int d = 0; st == CROWD_ERR_INSIDE_OBSTACLE && d < (redraw ? PLACEMENT_DRAWS : 1);
             ++d) {
            const crowd_vec2 p = area_point(&c->area, k, n, &rng);
            if (c->has_goal && c->goal.exits >= 0)
                target = exit_target(&sc->exits[c->goal.exits], p);
            a = make_agent(&c->agent, &rng, p, has_target ? &target : NULL, flee);
            if (c->agent.has_speed_dist)
                crowd_speed_draw(&c->agent.speed_dist, sc->seed,
                                 (uint64_t)index << 32 | (uint64_t)k, &a.max_speed);
            if (c->has_goal) {
                a.goal = (crowd_goal){.mode = c->goal.mode,
                                      .target = c->goal.target,
                                      .slow_radius = c->goal.slow_radius,
                                      .weight = c->goal.weight,
                                      .route = c->goal.route,
                                      .form = c->goal.form};
                if (c->goal.exits >= 0) {
                    a.goal.target = (crowd_vec2){0.0f, 0.0f};
                    a.goal.exits = b->exits[c->goal.exits];
                }
            } else if (c->has_queue) {
                a.goal = (crowd_goal){.mode = c->queue.mode,
                                      .target = c->queue.target,
                                      .slow_radius = c->queue.slow_radius,
                                      .weight = c->queue.weight,
                                      .route = c->queue.route};
            }
            st = try_add(b, &a, kind, &ids[k]);
        }
        if (st == CROWD_ERR_INSIDE_OBSTACLE && redraw) {
            snprintf(err, errlen,
                     "%s:%d:%d: crowds[%d]: agent %d found no place free of obstacles in %d "
                     "draws of its area",
                     sc->file, c->pos.line, c->pos.col, index, k, PLACEMENT_DRAWS);
            ok = false;
        } else if (st != CROWD_OK) {
            ok = add_failed(b, &a, st, c, index, err, errlen);
        }
    }
    if (ok && c->has_queue) ok = build_queue(b, c, ids, n, err, errlen);
    if (ok && c->has_path) ok = build_path(b, c, ids, n, err, errlen);
    if (ok && c->has_followers)
        ok = build_followers(b, c, index, ids, n, &follower_rng, err, errlen);
    free(ids);
    return ok;
}

bool scenario_build(const scenario* sc, const build_options* opt, built_world* out, char* err,
                    size_t errlen) {
    *out = (built_world){.sc = sc};
    const double scale = opt->agents_scale > 0.0 ? opt->agents_scale : 1.0;
    const int64_t total = scenario_agent_total(sc, scale);
    if (total > (int64_t)1 << 24) {
        // Named at the crowd that takes the running total past the limit (at its followers
        // when it has them, which multiply its count).
        int64_t sum = 0;
        int k = 0;
        for (; k < sc->crowd_count - 1; ++k) {
            const sc_crowd* c = &sc->crowds[k];
            sum += (int64_t)scenario_scaled_count(c->count, scale) *
                   (1 + (c->has_followers ? c->followers.count : 0));
            if (sum > (int64_t)1 << 24) break;
        }
        const sc_crowd* c = &sc->crowds[k];
        const json_pos pos = c->has_followers ? c->followers_pos : c->pos;
        snprintf(err, errlen,
                 "%s:%d:%d: crowds[%d]: the scenario has %lld agents at this scale, "
                 "more than %d",
                 sc->file, pos.line, pos.col, k, (long long)total, 1 << 24);
        return false;
    }
    crowd_world_def wd = crowd_world_def_default();
    wd.nav = sc->nav;
    if (opt->nav_max_cells > 0 && opt->nav_max_cells < wd.nav.max_cells)
        wd.nav.max_cells = opt->nav_max_cells;
    if (opt->nav_budget > 0 && opt->nav_budget < wd.nav.budget) wd.nav.budget = opt->nav_budget;
    wd.dt = sc->dt;
    wd.cell_size = sc->cell_size;
    wd.capacity = (int)total;
    wd.threads = opt->threads;
    wd.world_tag = 1;
    wd.alloc = opt->alloc;
    wd.free = opt->free;
    wd.alloc_user = opt->alloc_user;
    crowd_status st = crowd_world_create(&wd, &out->world);
    if (st != CROWD_OK) {
        snprintf(err, errlen, "%s: cannot create the world: %s", sc->file, crowd_status_string(st));
        return false;
    }
    bool ok = build_obstacles(out, err, errlen) && build_exits(out, err, errlen);
    for (int k = 0; ok && k < sc->crowd_count; ++k)
        ok = build_crowd(out, &sc->crowds[k], k, scale, err, errlen);
    if (!ok) {
        built_world_free(out);
        out->sc = sc;
    }
    return ok;
}
