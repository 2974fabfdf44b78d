// The wall geometry against brute force: the swept disc's first contact, the slide, the segment
// grid's queries after random adds and removes, line of sight and the blocked-disc test.
#include "walls_helpers.h"
#include "world_helpers.h"

#include "core/internal.h"
#include "walls/walls_math.h"

static double drand(uint64_t* s, double lo, double hi) {
    return lo + (hi - lo) * (double)(rng_next(s) >> 11) / 9007199254740992.0;
}

static cs_wall_seg rand_seg(uint64_t* s, double span, uint32_t id) {
    cs_wall_seg g;
    do {
        g = (cs_wall_seg){(float)drand(s, -span, span), (float)drand(s, -span, span),
                          (float)drand(s, -span, span), (float)drand(s, -span, span), id};
    } while (g.ax == g.bx && g.ay == g.by);
    return g;
}

static double dist_at(const cs_wall_seg* g, double px, double py, double dx, double dy, double t) {
    return ref_seg_dist(px + t * dx, py + t * dy, g->ax, g->ay, g->bx, g->by);
}

// First contact by brute force: the first of 4000 samples within R, refined by bisection.
static double brute_toi(const cs_wall_seg* g, double px, double py, double dx, double dy,
                        double R) {
    const int n = 4000;
    double prev = 0.0;
    for (int i = 1; i <= n; ++i) {
        const double t = (double)i / n;
        if (dist_at(g, px, py, dx, dy, t) <= R) {
            double lo = prev, hi = t;
            for (int k = 0; k < 60; ++k) {
                const double mid = 0.5 * (lo + hi);
                if (dist_at(g, px, py, dx, dy, mid) <= R)
                    hi = mid;
                else
                    lo = mid;
            }
            return hi;
        }
        prev = t;
    }
    return 2.0;
}

Test(walls_geometry, first_contact_matches_brute_force) {
    uint64_t seed = 3;
    int hits = 0;
    for (int trial = 0; trial < 3000; ++trial) {
        const cs_wall_seg g = rand_seg(&seed, 5.0, 1);
        const double R = drand(&seed, 0.05, 1.0);
        double px, py;
        do {
            px = drand(&seed, -7, 7), py = drand(&seed, -7, 7);
        } while (ref_seg_dist(px, py, g.ax, g.ay, g.bx, g.by) < R * 1.001);
        const double dx = drand(&seed, -12, 12), dy = drand(&seed, -12, 12);
        cs_hit h = {.t = 2.0, .id = UINT32_MAX};
        cs_sweep_seg(&g, px, py, dx, dy, R, &h);
        const double want = brute_toi(&g, px, py, dx, dy, R);
        if (want > 1.0) {
            // A contact shorter than one sample could be missed by the brute force; the
            // library's must then be a graze: the disc at its contact is R away.
            if (h.t <= 1.0)
                cr_assert_leq(fabs(dist_at(&g, px, py, dx, dy, h.t) - R), 1e-9 * (1 + R),
                              "trial %d", trial);
            continue;
        }
        ++hits;
        cr_assert_leq(fabs(h.t - want), 1e-3, "trial %d: %g vs %g", trial, h.t, want);
        cr_assert_leq(fabs(dist_at(&g, px, py, dx, dy, h.t) - R), 1e-9 * (1 + R));
        // The normal points from the wall to the disc.
        double cx, cy;
        cs_seg_dist2(&g, px + h.t * dx, py + h.t * dy, &cx, &cy);
        const double nx = px + h.t * dx - cx, ny = py + h.t * dy - cy;
        cr_assert_gt(nx * h.nx + ny * h.ny, 0.99 * R, "trial %d", trial);
    }
    cr_assert_gt(hits, 300, "%d hits", hits); // the random moves did hit walls
}

typedef struct flat {
    const cs_wall_seg* segs;
    int n;
    double path[CS_WALL_SLIDES + 2][2]; // every point the slide queried from
    int points;
} flat;

static void flat_sweep(void* ctx, double px, double py, double dx, double dy, double R,
                       cs_hit* best) {
    flat* f = ctx;
    f->path[f->points][0] = px, f->path[f->points][1] = py;
    f->points++;
    cs_sweep_list(f->segs, (uint32_t)f->n, px, py, dx, dy, R, best);
}

// Random segment soups and random moves: every straight piece of the slid path stays at least R
// from every segment (checked at 2000 points per piece), the path is no longer than the move, and
// the order the segments are offered in changes nothing.
Test(walls_geometry, slides_never_touch_a_wall_and_ignore_segment_order) {
    uint64_t seed = 5;
    int met = 0;
    for (int trial = 0; trial < 1500; ++trial) {
        cs_wall_seg segs[12], rev[12];
        const int n = 1 + (int)(rng_next(&seed) % 12);
        for (int i = 0; i < n; ++i) segs[i] = rand_seg(&seed, 6.0, (uint32_t)i);
        for (int i = 0; i < n; ++i) rev[i] = segs[n - 1 - i];
        const double R = drand(&seed, 0.1, 0.6);
        double px, py, clear;
        do {
            px = drand(&seed, -6, 6), py = drand(&seed, -6, 6);
            clear = INFINITY;
            for (int i = 0; i < n; ++i)
                clear = fmin(clear,
                             ref_seg_dist(px, py, segs[i].ax, segs[i].ay, segs[i].bx, segs[i].by));
        } while (clear < R);
        const double dx = drand(&seed, -8, 8), dy = drand(&seed, -8, 8);
        flat f = {segs, n, {{0}}, 0};
        double x = px, y = py;
        met += cs_wall_slide(flat_sweep, &f, &x, &y, dx, dy, R);
        flat g = {rev, n, {{0}}, 0};
        double x2 = px, y2 = py;
        cs_wall_slide(flat_sweep, &g, &x2, &y2, dx, dy, R);
        cr_assert(x == x2 && y == y2, "trial %d: order changed the result", trial);

        f.path[f.points][0] = x, f.path[f.points][1] = y;
        double length = 0.0;
        for (int k = 0; k < f.points; ++k) {
            const double ax = f.path[k][0], ay = f.path[k][1];
            const double bx = f.path[k + 1][0] - ax, by = f.path[k + 1][1] - ay;
            length += sqrt(bx * bx + by * by);
            for (int j = 0; j <= 2000; ++j) {
                const double t = j / 2000.0;
                for (int i = 0; i < n; ++i) {
                    const double d = ref_seg_dist(ax + t * bx, ay + t * by, segs[i].ax, segs[i].ay,
                                                  segs[i].bx, segs[i].by);
                    cr_assert_geq(d, R * (1 - 1e-9),
                                  "trial %d piece %d of %d seg %d: %.17g vs R %.17g t %g", trial, k,
                                  f.points, i, d, R, t);
                }
            }
        }
        cr_assert_leq(length, sqrt(dx * dx + dy * dy) * (1 + 1e-6));
    }
    cr_assert_gt(met, 300);
}

// ---- the grid
// ------------------------------------------------------------------------------------

typedef struct ref_world {
    crowd_obstacle_id id[80];
    crowd_vec2 pts[80][6];
    int n[80];
    crowd_obstacle_kind kind[80];
    bool live[80];
} ref_world;

static bool ref_blocked(const ref_world* r, double x, double y, double rad) {
    for (int o = 0; o < 80; ++o) {
        if (!r->live[o]) continue;
        const int n = r->n[o], segs = r->kind[o] == CROWD_OBSTACLE_POLYGON ? n : n - 1;
        for (int k = 0; k < segs; ++k) {
            const crowd_vec2 a = r->pts[o][k], b = r->pts[o][(k + 1) % n];
            if (ref_seg_dist(x, y, a.x, a.y, b.x, b.y) < rad) return true;
        }
        if (r->kind[o] == CROWD_OBSTACLE_POLYGON && ref_in_polygon(r->pts[o], n, x, y)) return true;
    }
    return false;
}

// Removes obstacle slot o (a random one of the 80) when it is live, else adds a random wall or a
// convex polygon (a triangle or a quad: points around a circle in order, so simple) centred within
// `span` of the origin and at most `size` from its centre, recording it in r.
static void ref_toggle(crowd_world* w, ref_world* r, uint64_t* seed, double span, double size) {
    const int o = (int)(rng_next(seed) % 80);
    if (r->live[o]) {
        cr_assert_eq(crowd_obstacle_remove(w, r->id[o]), CROWD_OK);
        r->live[o] = false;
        return;
    }
    const double cx = drand(seed, -span, span), cy = drand(seed, -span, span);
    const double radius = drand(seed, 0.3, size);
    const bool poly = rng_next(seed) % 2;
    const int n = poly ? 3 + (int)(rng_next(seed) % 2) : 2 + (int)(rng_next(seed) % 5);
    // Polygons in odd slots wind clockwise, the others counterclockwise.
    const double turn = o % 2 ? -1.0 : 1.0;
    for (int k = 0; k < n; ++k) {
        const double a =
            poly ? turn * 6.2831853 * (k + drand(seed, 0, 0.8)) / n : drand(seed, 0, 6.2831853);
        const double rad = poly ? radius : drand(seed, 0.1, radius);
        r->pts[o][k] = (crowd_vec2){(float)(cx + rad * cos(a)), (float)(cy + rad * sin(a))};
    }
    r->n[o] = n;
    r->kind[o] = poly ? CROWD_OBSTACLE_POLYGON : CROWD_OBSTACLE_WALL;
    const crowd_status st = crowd_obstacle_add(w, r->kind[o], r->pts[o], n, &r->id[o]);
    cr_assert(st == CROWD_OK || st == CROWD_ERR_OBSTACLE_REPEATED_POINT);
    r->live[o] = st == CROWD_OK;
}

static double cross2(double ax, double ay, double bx, double by) {
    return ax * by - ay * bx;
}

static bool ref_crossed(const ref_world* r, double x0, double y0, double x1, double y1) {
    for (int o = 0; o < 80; ++o) {
        if (!r->live[o]) continue;
        const int n = r->n[o], segs = r->kind[o] == CROWD_OBSTACLE_POLYGON ? n : n - 1;
        for (int k = 0; k < segs; ++k) {
            const crowd_vec2 a = r->pts[o][k], b = r->pts[o][(k + 1) % n];
            // Proper crossings only: the random lines never touch a segment exactly.
            const double d1 = cross2(x1 - x0, y1 - y0, a.x - x0, a.y - y0);
            const double d2 = cross2(x1 - x0, y1 - y0, b.x - x0, b.y - y0);
            const double d3 = cross2(b.x - a.x, b.y - a.y, x0 - a.x, y0 - a.y);
            const double d4 = cross2(b.x - a.x, b.y - a.y, x1 - a.x, y1 - a.y);
            if (d1 * d2 < 0 && d3 * d4 < 0) return true;
        }
    }
    return false;
}

// Random walls and polygons (triangles and quads that stay simple) added and removed at random;
// after every change the grid's answers equal brute force over the live obstacles, for random
// discs and random sight lines of every length (up to many cells).
Test(walls_geometry, grid_queries_match_brute_force_through_adds_and_removes) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = 1;
    wd.cell_size = 2.0f;
    crowd_world* w = NULL;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    static ref_world r;
    memset(&r, 0, sizeof r);
    uint64_t seed = 9;
    for (int round = 0; round < 300; ++round) {
        ref_toggle(w, &r, &seed, 30, 12.0);
        for (int q = 0; q < 200; ++q) {
            const double x = drand(&seed, -40, 40), y = drand(&seed, -40, 40);
            const double rad = drand(&seed, 0.05, 3.0);
            cr_assert_eq(cs_walls_blocked(w, (float)x, (float)y, (float)rad),
                         ref_blocked(&r, (float)x, (float)y, (float)rad), "round %d disc %d", round,
                         q);
            const double len = drand(&seed, 0.1, q % 10 == 0 ? 80.0 : 6.0);
            const double a = drand(&seed, 0, 6.2831853);
            const float x1 = (float)(x + len * cos(a)), y1 = (float)(y + len * sin(a));
            cr_assert_eq(cs_walls_crossed(&w->walls, (float)x, (float)y, x1, y1),
                         ref_crossed(&r, (float)x, (float)y, x1, y1), "round %d line %d", round, q);
        }
    }
    crowd_world_destroy(w);
}

// Whether the closed segments pq and ab share a point, in double (a rounding error here could only
// make the test stricter: it never misses a crossing that is not near-degenerate).
static bool ref_meet(double px, double py, double qx, double qy, double ax, double ay, double bx,
                     double by) {
    const double o1 = (bx - ax) * (py - ay) - (by - ay) * (px - ax);
    const double o2 = (bx - ax) * (qy - ay) - (by - ay) * (qx - ax);
    const double o3 = (qx - px) * (ay - py) - (qy - py) * (ax - px);
    const double o4 = (qx - px) * (by - py) - (qy - py) * (bx - px);
    if (((o1 > 0 && o2 < 0) || (o1 < 0 && o2 > 0)) && ((o3 > 0 && o4 < 0) || (o3 < 0 && o4 > 0)))
        return true;
    return ref_seg_dist(px, py, ax, ay, bx, by) == 0.0 ||
           ref_seg_dist(qx, qy, ax, ay, bx, by) == 0.0 ||
           ref_seg_dist(ax, ay, px, py, qx, qy) == 0.0 ||
           ref_seg_dist(bx, by, px, py, qx, qy) == 0.0;
}

// The obstacles of the clearance tests: a convex block, a triangle beside it, an L-shaped polygon
// and an open wall below the block (the last shape, the only wall).
static const crowd_vec2 SHAPE_BLOCK[4] = {{0, 0}, {10, 0}, {10, 10}, {0, 10}};
static const crowd_vec2 SHAPE_TRI[3] = {{11.5f, 2}, {14, 2}, {11.5f, 5}};
static const crowd_vec2 SHAPE_ELL[6] = {{-14, 0}, {-4, 0}, {-4, 3}, {-11, 3}, {-11, 10}, {-14, 10}};
static const crowd_vec2 SHAPE_WALL[3] = {{0, -4}, {10, -4}, {13, -7}};
static const crowd_vec2* const SHAPES[4] = {SHAPE_BLOCK, SHAPE_TRI, SHAPE_ELL, SHAPE_WALL};
static const int SHAPE_COUNTS[4] = {4, 3, 6, 3};

static void add_shapes(crowd_world* w) {
    for (int o = 0; o < 4; ++o) {
        const crowd_obstacle_kind kind = o == 3 ? CROWD_OBSTACLE_WALL : CROWD_OBSTACLE_POLYGON;
        crowd_obstacle_id oid;
        cr_assert_eq(crowd_obstacle_add(w, kind, SHAPES[o], SHAPE_COUNTS[o], &oid), CROWD_OK);
    }
}

// The sight clearance the clearance pass computes is a distance within which no sight line to
// another agent's centre meets a wall (checked by brute force over every pair of agents and every
// segment), never below the clearance, and above it beside one side of a convex block (where line
// of sight is then not tested) but not beside an open wall or a non-convex polygon.
Test(walls_geometry, sight_clearance_hides_no_crossing) {
    crowd_world* w = world_with(1);
    add_shapes(w);
    const crowd_vec2* const* shapes = SHAPES;
    const int* counts = SHAPE_COUNTS;
    // Two agents placed to check the bound's use: beside the block's middle, beside the open wall.
    crowd_agent_def a = crowd_agent_def_default();
    a.radius = 0.05f;
    crowd_agent_id id;
    a.position = (crowd_vec2){5.0f, 10.5f};
    cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_OK);
    a.position = (crowd_vec2){5.0f, -4.5f};
    cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_OK);
    a.position = (crowd_vec2){-7.0f, 3.5f}; // beside the L's inner side
    cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_OK);
    uint64_t rng = 77;
    for (int i = 0; i < 4000; ++i) {
        a.position = (crowd_vec2){frand(&rng, -16, 16), frand(&rng, -9, 13)};
        crowd_agent_add(w, &a, &id); // refused inside a solid or over a wall
    }
    cs_pass_clearance(w);
    const cs_columns c = w->cur;
    for (int s = 0; s < w->count; ++s) {
        const double px = c.px[s], py = c.py[s], sight = w->wall_sight[s];
        cr_assert_geq(w->wall_sight[s], w->wall_clear[s]);
        for (int t = 0; t < w->count; ++t) {
            const double qx = c.px[t], qy = c.py[t];
            if (t == s || hypot(qx - px, qy - py) > sight) continue;
            for (int o = 0; o < 4; ++o) {
                const int n = counts[o], segs = o == 3 ? n - 1 : n;
                for (int k = 0; k < segs; ++k) {
                    const crowd_vec2 e0 = shapes[o][k], e1 = shapes[o][(k + 1) % n];
                    cr_assert(!ref_meet(px, py, qx, qy, e0.x, e0.y, e1.x, e1.y),
                              "agent at (%g, %g), sight %g: the line to (%g, %g) meets a wall", px,
                              py, sight, qx, qy);
                }
            }
        }
    }
    // Slot order is the order of adds until a step sorts them.
    cr_assert_lt(w->wall_clear[0], 0.6f);
    cr_assert_gt(w->wall_sight[0], 1.5f); // the block's side alone: no line of sight to test
    cr_assert_lt(w->wall_sight[1], 0.6f); // an open wall
    cr_assert_lt(w->wall_sight[2], 0.6f); // a non-convex polygon
    crowd_world_destroy(w);
}

// An agent outside both edges at a convex polygon's corner, diagonal to it, tests no line of sight
// (a sight line that meets a convex polygon leaves it through an edge the agent is inside the line
// of, and both corner edges face the agent), whichever way the polygon winds; an agent beside one
// of the corner's edges, within its separation radius of the other edge's line, does.
Test(walls_geometry, no_line_of_sight_diagonal_to_a_corner) {
    for (int turn = 0; turn < 2; ++turn) {
        crowd_world* w = world_with(1);
        crowd_vec2 sq[4] = {{0, 0}, {10, 0}, {10, 10}, {0, 10}};
        if (turn) {
            const crowd_vec2 t = sq[1];
            sq[1] = sq[3], sq[3] = t;
        }
        crowd_obstacle_id oid;
        cr_assert_eq(crowd_obstacle_add(w, CROWD_OBSTACLE_POLYGON, sq, 4, &oid), CROWD_OK);
        crowd_agent_def a = crowd_agent_def_default();
        a.radius = 0.05f;
        const crowd_vec2 at[4] = {{10.6f, 10.6f}, {-0.7f, -0.5f}, {10.6f, 9.5f}, {-0.4f, 0.6f}};
        for (int i = 0; i < 4; ++i) {
            crowd_agent_id id;
            a.position = at[i];
            cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_OK);
        }
        cs_pass_clearance(w);
        const float sep = a.separation_radius;
        for (int i = 0; i < 4; ++i) {
            cr_assert_lt(w->wall_clear[i], 1.0f);
            if (i < 2)
                cr_assert_gt(w->wall_sight[i], sep * 1.01f, "winding %d, agent %d", turn, i);
            else
                cr_assert_lt(w->wall_sight[i], sep, "winding %d, agent %d", turn, i);
        }
        crowd_world_destroy(w);
    }
}

// Distance between segments pq and ab, in double.
static double ref_segseg_dist(double px, double py, double qx, double qy, double ax, double ay,
                              double bx, double by) {
    if (ref_meet(px, py, qx, qy, ax, ay, bx, by)) return 0.0;
    const double d0 =
        fmin(ref_seg_dist(px, py, ax, ay, bx, by), ref_seg_dist(qx, qy, ax, ay, bx, by));
    const double d1 =
        fmin(ref_seg_dist(ax, ay, px, py, qx, qy), ref_seg_dist(bx, by, px, py, qx, qy));
    return fmin(d0, d1);
}

// The probe clearance the clearance pass computes is a lower bound of the distance from every
// wall to the segment from the agent's centre along its velocity for the longest look-ahead any
// agent has (checked by brute force over every agent and segment, with velocities in every
// direction up to 8 m/s, so probes reach past their cell's list), and it is tighter than the
// clearance less the probe's length for an agent walking along a wall.
Test(walls_geometry, probe_clearance_bounds_the_probe) {
    crowd_world* w = world_with(1);
    add_shapes(w);
    const crowd_vec2* const* shapes = SHAPES;
    const int* counts = SHAPE_COUNTS;
    crowd_agent_def a = crowd_agent_def_default();
    a.radius = 0.05f;
    a.max_speed = 8.0f;
    crowd_agent_id id;
    // Beside the block's top side, 1 m from it, walking along it at 1.5 m/s.
    a.position = (crowd_vec2){3.0f, 11.0f};
    a.velocity = (crowd_vec2){1.5f, 0.0f};
    cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_OK);
    uint64_t rng = 91;
    for (int i = 0; i < 3000; ++i) {
        a.position = (crowd_vec2){frand(&rng, -16, 16), frand(&rng, -9, 13)};
        const float speed = i % 10 == 0 ? 0.0f : frand(&rng, 0.0f, 8.0f);
        const float dir = frand(&rng, 0.0f, 6.2831853f);
        a.velocity = (crowd_vec2){speed * cosf(dir), speed * sinf(dir)};
        crowd_agent_add(w, &a, &id); // refused inside a solid or over a wall
    }
    cs_pass_clearance(w);
    cr_assert_float_eq(w->walls.probe_time, 1.0f, 0.0f); // the default look-ahead
    // The bound along the block, then probes of 1.5 s for every agent.
    cr_assert_gt(w->wall_probe[0], 0.6f);
    cr_assert_lt(w->wall_clear[0] - 1.5f, 0.6f);
    crowd_wall_def longer = crowd_wall_def_default();
    longer.look_ahead = 1.5f;
    cr_assert_eq(crowd_agent_set_walls(w, id, &longer), CROWD_OK);
    cs_pass_clearance(w);
    const cs_columns c = w->cur;
    const double t = w->walls.probe_time;
    cr_assert_float_eq(t, 1.5, 0.0);
    int near = 0;
    for (int s = 0; s < w->count; ++s) {
        const double px = c.px[s], py = c.py[s], qx = px + c.vx[s] * t, qy = py + c.vy[s] * t;
        cr_assert_leq(w->wall_probe[s], w->wall_clear[s]);
        for (int o = 0; o < 4; ++o) {
            const int n = counts[o], segs = o == 3 ? n - 1 : n;
            for (int k = 0; k < segs; ++k) {
                const crowd_vec2 e0 = shapes[o][k], e1 = shapes[o][(k + 1) % n];
                const double d = ref_segseg_dist(px, py, qx, qy, e0.x, e0.y, e1.x, e1.y);
                cr_assert_leq(w->wall_probe[s], d,
                              "agent at (%g, %g) probing to (%g, %g): bound %g, a wall at %g", px,
                              py, qx, qy, w->wall_probe[s], d);
                near += d < 0.6;
            }
        }
    }
    cr_assert_gt(near, 100); // probes near and across walls were tried
    crowd_world_destroy(w);
}

// The three clearances of every agent of w against brute force over the live obstacles of r:
// the clearance is at most the distance to every segment, the probe clearance at most the
// distance from every segment to the probe (for probes of walls.probe_time), and no sight line to
// another agent within the sight clearance meets a segment. Returns how many agents have a
// clearance within 1 mm of the true distance (or at the list's reach, when that is less).
static int check_clearances(crowd_world* w, const ref_world* r, const char* when) {
    cs_pass_clearance(w);
    const cs_columns c = w->cur;
    const double t = w->walls.probe_time;
    int exact = 0;
    for (int s = 0; s < w->count; ++s) {
        const double px = c.px[s], py = c.py[s], qx = px + c.vx[s] * t, qy = py + c.vy[s] * t;
        cr_assert_leq(w->wall_probe[s], w->wall_clear[s]);
        cr_assert_geq(w->wall_sight[s], w->wall_clear[s]);
        double near = INFINITY;
        for (int o = 0; o < 80; ++o) {
            if (!r->live[o]) continue;
            const int n = r->n[o], segs = r->kind[o] == CROWD_OBSTACLE_POLYGON ? n : n - 1;
            for (int k = 0; k < segs; ++k) {
                const crowd_vec2 a = r->pts[o][k], b = r->pts[o][(k + 1) % n];
                const double d = ref_seg_dist(px, py, a.x, a.y, b.x, b.y);
                near = fmin(near, d);
                cr_assert_leq(w->wall_clear[s], d,
                              "%s: agent at (%g, %g): clearance %g, a wall at %g", when, px, py,
                              w->wall_clear[s], d);
                const double dp = ref_segseg_dist(px, py, qx, qy, a.x, a.y, b.x, b.y);
                cr_assert_leq(w->wall_probe[s], dp,
                              "%s: agent at (%g, %g) probing to (%g, %g): bound %g, a wall at %g",
                              when, px, py, qx, qy, w->wall_probe[s], dp);
            }
        }
        const double reach = cs_walls_reach(&w->walls, c.px[s], c.py[s]);
        exact += w->wall_clear[s] > fmin(near, reach) - 1e-3;
        for (int u = 0; u < w->count; ++u) {
            const double ux = c.px[u], uy = c.py[u];
            if (u == s || hypot(ux - px, uy - py) > w->wall_sight[s]) continue;
            for (int o = 0; o < 80; ++o) {
                if (!r->live[o]) continue;
                const int n = r->n[o], segs = r->kind[o] == CROWD_OBSTACLE_POLYGON ? n : n - 1;
                for (int k = 0; k < segs; ++k) {
                    const crowd_vec2 a = r->pts[o][k], b = r->pts[o][(k + 1) % n];
                    cr_assert(!ref_meet(px, py, ux, uy, a.x, a.y, b.x, b.y),
                              "%s: agent at (%g, %g), sight %g: the line to (%g, %g) meets a wall",
                              when, px, py, w->wall_sight[s], ux, uy);
                }
            }
        }
    }
    return exact;
}

// Adds agents at random points (refused inside a solid or over a wall), with random velocities up
// to 8 m/s, so that probes reach past their cell's list.
static void add_random_agents(crowd_world* w, uint64_t* rng, int n, float span) {
    crowd_agent_def a = crowd_agent_def_default();
    a.radius = 0.05f;
    a.max_speed = 8.0f;
    for (int i = 0; i < n; ++i) {
        crowd_agent_id id;
        a.position = (crowd_vec2){frand(rng, -span, span), frand(rng, -span, span)};
        const float speed = i % 10 == 0 ? 0.0f : frand(rng, 0.0f, 8.0f);
        const float dir = frand(rng, 0.0f, 6.2831853f);
        a.velocity = (crowd_vec2){speed * cosf(dir), speed * sinf(dir)};
        crowd_agent_add(w, &a, &id);
    }
}

// A world loaded from a snapshot bounds every probe as the saved world did, also when no agent has
// a wall def of its own (the load stores none): the same probe length and the same bounds, agent
// by agent.
Test(walls_geometry, a_loaded_world_bounds_probes_as_the_saved_one) {
    crowd_world* w = world_with(1);
    add_shapes(w);
    uint64_t rng = 17;
    add_random_agents(w, &rng, 2000, 15.0f);
    cr_assert_gt(w->count, 1000);
    cs_pass_clearance(w);
    cr_assert_float_eq(w->walls.probe_time, 1.0f, 0.0f);

    size_t size = crowd_world_save_size(w), written;
    void* buf = malloc(size);
    cr_assert_eq(crowd_world_save(w, buf, size, &written), CROWD_OK);
    crowd_world* l;
    cr_assert_eq(crowd_world_load(buf, written, NULL, &l), CROWD_OK);
    free(buf);
    cr_assert_eq(l->count, w->count);
    cs_pass_clearance(l);
    cr_assert_float_eq(l->walls.probe_time, w->walls.probe_time, 0.0f);
    for (int s = 0; s < w->count; ++s) {
        cr_assert_eq(l->cur.id[s], w->cur.id[s]);
        cr_assert_float_eq(l->wall_probe[s], w->wall_probe[s], 0.0f, "agent %d", s);
    }
    crowd_world_destroy(l);
    crowd_world_destroy(w);
}

// The clearance pass bounds every agent's clearances from its cell's summary (two key segments, a
// bound of the rest of the list, a static sight bound), which obstacles added and removed keep up
// to date: checked by brute force after random adds and removes of walls and convex polygons in a
// crowded area (where lists of many segments and crossings are common), on the direct index and
// on the table alone (a far wall makes the index's box too large to build), and the bound is
// exact for most agents beside one wall or a corner (the four test shapes).
Test(walls_geometry, cell_summaries_bound_the_clearances_through_adds_and_removes) {
    for (int far = 0; far < 2; ++far) {
        crowd_world* w = world_with(1);
        static ref_world r;
        memset(&r, 0, sizeof r);
        if (far) {
            const crowd_vec2 p[2] = {{9e5f, 9e5f}, {9e5f + 1.0f, 9e5f}};
            crowd_obstacle_id id;
            cr_assert_eq(crowd_obstacle_add(w, CROWD_OBSTACLE_WALL, p, 2, &id), CROWD_OK);
        }
        uint64_t seed = 31 + (uint64_t)far;
        for (int round = 0; round < 240; ++round) ref_toggle(w, &r, &seed, 14, 5.0);
        cr_assert_eq(w->walls.dir == NULL, far == 1);
        uint64_t rng = 57;
        add_random_agents(w, &rng, 1500, 17.0f);
        cr_assert_gt(w->count, 300);
        check_clearances(w, &r, "after the adds");
        // Half the obstacles go, some come back elsewhere (refused where they would cover an
        // agent): the summaries of the cells they touched change.
        for (int round = 0; round < 60; ++round) {
            const int o = (int)(rng_next(&seed) % 80);
            if (r.live[o]) {
                cr_assert_eq(crowd_obstacle_remove(w, r.id[o]), CROWD_OK);
                r.live[o] = false;
            } else if (r.n[o] > 0) {
                const crowd_status st =
                    crowd_obstacle_add(w, r.kind[o], r.pts[o], r.n[o], &r.id[o]);
                r.live[o] = st == CROWD_OK;
            }
        }
        check_clearances(w, &r, "after the removes");
        crowd_world_destroy(w);
    }
    // The four shapes: most agents' clearances are exact.
    crowd_world* w = world_with(1);
    add_shapes(w);
    static ref_world r;
    memset(&r, 0, sizeof r);
    for (int o = 0; o < 4; ++o) {
        r.live[o] = true, r.n[o] = SHAPE_COUNTS[o];
        r.kind[o] = o == 3 ? CROWD_OBSTACLE_WALL : CROWD_OBSTACLE_POLYGON;
        for (int k = 0; k < SHAPE_COUNTS[o]; ++k) r.pts[o][k] = SHAPES[o][k];
    }
    uint64_t rng = 93;
    add_random_agents(w, &rng, 1500, 16.0f);
    const int exact = check_clearances(w, &r, "the shapes");
    cr_assert_gt(exact, w->count * 9 / 10, "%d of %d exact", exact, w->count);
    crowd_world_destroy(w);
}

// Agents in the middle of a street walking along it get their bounds from their cells' box
// clearances alone (block_box in walls_clearance.c): still lower bounds, checked by brute force
// for every agent of a street between two long walls (some walking along it at a walk and faster,
// some across it, some at rest), and tight enough that the consumers pass them by: no line of
// sight to test within the separation radius, a probe farther than two radii from every wall.
Test(walls_geometry, box_bounds_of_a_street_are_bounds_and_let_its_middle_pass) {
    crowd_world* w = world_with(1);
    static ref_world r;
    memset(&r, 0, sizeof r);
    for (int o = 0; o < 2; ++o) {
        r.live[o] = true, r.n[o] = 2, r.kind[o] = CROWD_OBSTACLE_WALL;
        r.pts[o][0] = (crowd_vec2){-60.0f, o ? 4.2f : -4.2f};
        r.pts[o][1] = (crowd_vec2){60.0f, o ? 4.2f : -4.2f};
        cr_assert_eq(crowd_obstacle_add(w, CROWD_OBSTACLE_WALL, r.pts[o], 2, &r.id[o]), CROWD_OK);
    }
    uint64_t rng = 77;
    crowd_agent_def a = crowd_agent_def_default();
    const int n = 2000;
    for (int i = 0; i < n; ++i) {
        crowd_agent_id id;
        a.position = (crowd_vec2){frand(&rng, -55.0f, 55.0f), frand(&rng, -3.6f, 3.6f)};
        const float speed = i % 7 == 0 ? 0.0f : (i % 5 == 0 ? 3.0f : 1.4f);
        const float side = i % 2 ? 1.0f : -1.0f;
        a.velocity = i % 11 == 0 ? (crowd_vec2){0.0f, side * speed}
                                 : (crowd_vec2){side * speed, frand(&rng, -0.1f, 0.1f)};
        cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_OK);
    }
    check_clearances(w, &r, "the street");
    const cs_columns c = w->cur;
    const float band = 2.0f * w->radius_max;
    int middle = 0;
    for (int s = 0; s < w->count; ++s) {
        // A cell of the street's middle two rows (2.5 m cells: y in [-2.5, 2.5)), more than a
        // probe and two radii inside both walls, walking along the street at a walk.
        const bool along = fabsf(c.vx[s]) == 1.4f && fabsf(c.vy[s]) <= 0.1f;
        if (!along || fabsf(c.py[s]) > 1.25f) continue;
        ++middle;
        cr_assert_geq(w->wall_sight[s], c.sep_radius[s], "agent at (%g, %g)", c.px[s], c.py[s]);
        cr_assert_geq(w->wall_probe[s], band, "agent at (%g, %g)", c.px[s], c.py[s]);
    }
    cr_assert_gt(middle, n / 8);
    // Sorted by cell, as every step leaves them (so that the box lookups load their cells' box
    // clearances a window at a time and the queue for the full bounds fills with neighbors), the
    // agents get exactly the bounds they got in the order they were added; with some in the
    // direct index's first and last columns walking out of it (the next cell along the velocity
    // outside the index, past the walls' ends).
    const cs_walls* g = &w->walls;
    cr_assert_not_null(g->dir);
    const float cell = g->cell_size;
    const float first = (float)g->dir_x0 * cell,
                last = (float)(g->dir_x0 + (int32_t)g->dir_w) * cell;
    for (int i = 0; i < 64; ++i) {
        crowd_agent_id id;
        const bool east = i % 2;
        a.position = (crowd_vec2){east ? frand(&rng, last - cell + 0.1f, last - 0.1f)
                                       : frand(&rng, first + 0.1f, first + cell - 0.1f),
                                  frand(&rng, -3.6f, 3.6f)};
        a.velocity = (crowd_vec2){east ? 1.4f : -1.4f, 0.0f};
        cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_OK);
    }
    cs_pass_clearance(w);
    static float before[3][2100];
    static uint32_t added[2100];
    for (int s = 0; s < w->count; ++s) {
        const uint32_t i = added[s] = w->cur.id[s];
        before[0][i] = w->wall_clear[s], before[1][i] = w->wall_sight[s];
        before[2][i] = w->wall_probe[s];
    }
    cs_pass_sort(w);
    cs_pass_clearance(w);
    int moved = 0;
    for (int s = 0; s < w->count; ++s) {
        const uint32_t i = w->cur.id[s];
        moved += i != added[s];
        cr_assert_eq(w->wall_clear[s], before[0][i], "agent %u", i);
        cr_assert_eq(w->wall_sight[s], before[1][i], "agent %u", i);
        cr_assert_eq(w->wall_probe[s], before[2][i], "agent %u", i);
    }
    cr_assert_gt(moved, n / 2);
    crowd_world_destroy(w);
}
