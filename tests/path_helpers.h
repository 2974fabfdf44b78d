// Fixtures shared by the path tests: worlds, single agents, paths and the test's own geometry.
#ifndef CROWD_TEST_PATH_HELPERS_H
#define CROWD_TEST_PATH_HELPERS_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/crowd.h"

static inline bool small_scale(void) {
    const char* s = getenv("CROWD_TEST_SCALE");
    return s && strcmp(s, "small") == 0;
}

static inline crowd_world* make_world(int threads) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = threads;
    crowd_world* w = NULL;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    return w;
}

static inline crowd_agent_id add_agent(crowd_world* w, crowd_vec2 pos) {
    crowd_agent_def a = crowd_agent_def_default();
    a.position = pos;
    crowd_agent_id id;
    cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_OK);
    return id;
}

static inline crowd_path_id make_path(crowd_world* w, const crowd_vec2* pts, int n) {
    crowd_path_id id;
    cr_assert_eq(crowd_path_create(w, pts, n, &id), CROWD_OK);
    return id;
}

static inline void follow_form(crowd_world* w, crowd_agent_id a, crowd_path_id p,
                               crowd_path_kind kind, crowd_path_mode mode, crowd_path_form form) {
    crowd_path_follow_def f = crowd_path_follow_def_default();
    f.path = p;
    f.kind = kind;
    f.mode = mode;
    f.form = form;
    cr_assert_eq(crowd_agent_set_path(w, a, &f), CROWD_OK);
}

static inline void follow(crowd_world* w, crowd_agent_id a, crowd_path_id p, crowd_path_kind kind,
                          crowd_path_mode mode) {
    follow_form(w, a, p, kind, mode, CROWD_PATH_FLOW);
}

static inline crowd_path_cursor cursor_of(const crowd_world* w, crowd_agent_id a) {
    crowd_path_cursor c;
    cr_assert_eq(crowd_agent_get_path(w, a, NULL, &c), CROWD_OK);
    return c;
}

static inline crowd_vec2 position_of(const crowd_world* w, crowd_agent_id a) {
    crowd_vec2 p;
    cr_assert_eq(crowd_agent_get_position(w, a, &p), CROWD_OK);
    return p;
}

// The test's own segment projection, in double: nearest point of a-b to p.
static inline double seg_dist(crowd_vec2 p, crowd_vec2 a, crowd_vec2 b, double* t_out) {
    const double abx = (double)b.x - a.x, aby = (double)b.y - a.y;
    const double apx = (double)p.x - a.x, apy = (double)p.y - a.y;
    double t = (apx * abx + apy * aby) / (abx * abx + aby * aby);
    t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
    if (t_out) *t_out = t;
    return hypot(apx - abx * t, apy - aby * t);
}

// Distance from p to the polyline (closed: with the segment back to the first point) and the
// arc length of the nearest point, searching segments lo..hi only (all when lo > hi).
static inline double path_locate(const crowd_vec2* pts, int n, bool closed, crowd_vec2 p, int lo,
                                 int hi, double* arc) {
    const int segs = closed ? n : n - 1;
    if (lo > hi) lo = 0, hi = segs - 1;
    double best = INFINITY, acc = 0.0;
    for (int k = 0; k < segs; ++k) {
        const crowd_vec2 a = pts[k], b = pts[(k + 1) % n];
        const double len = hypot((double)b.x - a.x, (double)b.y - a.y);
        if (k >= lo && k <= hi) {
            double t;
            const double d = seg_dist(p, a, b, &t);
            if (d < best) {
                best = d;
                if (arc) *arc = acc + t * len;
            }
        }
        acc += len;
    }
    return best;
}

static inline double polyline_length(const crowd_vec2* pts, int n, bool closed) {
    double acc = 0.0;
    for (int k = 0; k < (closed ? n : n - 1); ++k)
        acc += hypot((double)pts[(k + 1) % n].x - pts[k].x, (double)pts[(k + 1) % n].y - pts[k].y);
    return acc;
}

#endif
