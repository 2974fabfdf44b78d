// Fixtures of the wall tests: the independent overlap check every scene runs after every step.
#ifndef CROWD_TEST_WALLS_HELPERS_H
#define CROWD_TEST_WALLS_HELPERS_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "crowd/crowd.h"

// Distance from p to segment ab, in double, written out here rather than taken from the library.
static inline double ref_seg_dist(double px, double py, double ax, double ay, double bx,
                                  double by) {
    const double ex = bx - ax, ey = by - ay, l2 = ex * ex + ey * ey;
    double u = ((px - ax) * ex + (py - ay) * ey) / l2;
    u = u < 0 ? 0 : (u > 1 ? 1 : u);
    const double dx = px - (ax + u * ex), dy = py - (ay + u * ey);
    return sqrt(dx * dx + dy * dy);
}

static inline bool ref_in_polygon(const crowd_vec2* p, int n, double x, double y) {
    bool in = false;
    for (int i = 0, j = n - 1; i < n; j = i++)
        if ((p[i].y > y) != (p[j].y > y) &&
            x < p[i].x + (y - p[i].y) * (p[j].x - p[i].x) / ((double)p[j].y - p[i].y))
            in = !in;
    return in;
}

// The smallest clearance (distance minus radius) of any agent to any obstacle of the world, read
// through the public API; -1 when an agent's centre is inside a polygon.
static inline double min_clearance(const crowd_world* w) {
    int na = crowd_world_agent_count(w), no = crowd_world_obstacle_count(w);
    crowd_agent_id* ids = malloc(sizeof *ids * (size_t)(na + 1));
    crowd_vec2* pos = malloc(sizeof *pos * (size_t)(na + 1));
    crowd_obstacle_id* obs = malloc(sizeof *obs * (size_t)(no + 1));
    float* rad = malloc(sizeof *rad * (size_t)(na + 1));
    int n;
    cr_assert_eq(crowd_world_get_agents(w, ids, pos, NULL, na, &n), CROWD_OK);
    cr_assert_eq(crowd_world_get_obstacles(w, obs, no, &n), CROWD_OK);
    for (int i = 0; i < na; ++i) {
        crowd_agent_def d;
        cr_assert_eq(crowd_agent_get_def(w, ids[i], &d), CROWD_OK);
        rad[i] = d.radius;
    }
    double worst = INFINITY;
    for (int o = 0; o < no; ++o) {
        crowd_vec2 pts[256];
        crowd_obstacle_kind kind;
        cr_assert_eq(crowd_obstacle_get_points(w, obs[o], &kind, pts, 256, &n), CROWD_OK);
        const int segs = kind == CROWD_OBSTACLE_POLYGON ? n : n - 1;
        for (int i = 0; i < na; ++i) {
            if (kind == CROWD_OBSTACLE_POLYGON && ref_in_polygon(pts, n, pos[i].x, pos[i].y))
                worst = -1.0;
            for (int k = 0; k < segs; ++k) {
                const crowd_vec2 a = pts[k], b = pts[(k + 1) % n];
                const double c = ref_seg_dist(pos[i].x, pos[i].y, a.x, a.y, b.x, b.y) - rad[i];
                worst = c < worst ? c : worst;
            }
        }
    }
    free(ids), free(pos), free(obs), free(rad);
    return worst;
}

static inline crowd_world* walls_world_nav(int threads, float dt, bool nav) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = threads;
    wd.dt = dt;
    wd.nav.enable = nav;
    crowd_world* w = NULL;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    return w;
}

static inline crowd_world* walls_world(int threads, float dt) {
    return walls_world_nav(threads, dt, true);
}

// A walled world whose agents head straight at their goals (no navigation, crowd/nav.h): for the
// tests that drive agents into walls on purpose, to test what keeps them out.
static inline crowd_world* walls_world_straight(int threads, float dt) {
    return walls_world_nav(threads, dt, false);
}

static inline crowd_obstacle_id wall_add(crowd_world* w, crowd_obstacle_kind kind,
                                         const crowd_vec2* pts, int n) {
    crowd_obstacle_id id;
    cr_assert_eq(crowd_obstacle_add(w, kind, pts, n, &id), CROWD_OK);
    return id;
}

#endif
