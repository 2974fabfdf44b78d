// Navigation fields against brute force. A world of walls and solids holds a destination (one
// agent has it as its goal, then crowd_world_nav_update builds its field); from every cell centre
// of the grid the test compares crowd_nav_route_from with references it computes itself:
//  - the shortest way that keeps the clearance from every wall: a visibility graph over points
//    around every obstacle corner (16 per corner, on the 16-gon circumscribed about the circle of
//    the clearance, so its edges keep the clearance and its detours round a corner are at most
//    1% longer than the arc), searched by Dijkstra; the field is never more than 12% + 2 cells
//    longer, and most of it (95% of the reachable cells on 0.5 m and 0.25 m grids) within
//    3% + 0.5 m;
//  - the shortest way with no clearance (the same graph on points 1 mm off the corners, no edge
//    touching a wall): the field is never shorter (less 1 cm), and never shorter than the straight
//    line;
//  - an 8-neighbour grid Dijkstra over the walkable cells (the test's own mask: centre at least
//    the clearance from every wall, not inside a solid; no diagonal step past a blocked cell): an
//    any-angle field is never longer than that staircase.
// Each route is also walked corner by corner through the API: no leg touches a wall and the legs
// add up to the distance reported. Cells inside solids and in regions walled off from the goal
// say UNREACHABLE; cells by a wall point to a walkable cell. The same checks run for a goal beyond
// the grid's margin; an exit set's field is checked against its exits' own fields; open ground
// gives straight lines exactly; and routed crowds step bit-identically on 1, 2 and 3 threads.
#include <stdio.h>
#include <string.h>

#include "walls_helpers.h"
#include "world_helpers.h"

#define PI_D 3.14159265358979323846
#define SQRT2_D 1.41421356237309504880

static bool small(void) {
    const char* s = getenv("CROWD_TEST_SCALE");
    return s && strcmp(s, "small") == 0;
}

// ---- the test's own geometry (double) -----------------------------------------------------------

typedef struct obst {
    crowd_obstacle_kind kind;
    int n;
    crowd_vec2 p[8];
} obst;

typedef struct seg {
    double ax, ay, bx, by;
} seg;

typedef struct geo {
    seg s[128];
    int ns;
    const obst* poly[16];
    int npoly;
} geo;

static void geo_init(geo* g, const obst* o, int n) {
    g->ns = g->npoly = 0;
    for (int k = 0; k < n; ++k) {
        const int segs = o[k].kind == CROWD_OBSTACLE_POLYGON ? o[k].n : o[k].n - 1;
        for (int i = 0; i < segs; ++i) {
            const crowd_vec2 a = o[k].p[i], b = o[k].p[(i + 1) % o[k].n];
            g->s[g->ns++] = (seg){a.x, a.y, b.x, b.y};
        }
        if (o[k].kind == CROWD_OBSTACLE_POLYGON) g->poly[g->npoly++] = &o[k];
    }
}

static bool in_solid(const geo* g, double x, double y) {
    for (int k = 0; k < g->npoly; ++k)
        if (ref_in_polygon(g->poly[k]->p, g->poly[k]->n, x, y)) return true;
    return false;
}

static double orient(double ax, double ay, double bx, double by, double cx, double cy) {
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
}

// Whether closed segments pq and s meet (touching counts).
static bool seg_meet(double px, double py, double qx, double qy, const seg* s) {
    const double d1 = orient(px, py, qx, qy, s->ax, s->ay);
    const double d2 = orient(px, py, qx, qy, s->bx, s->by);
    const double d3 = orient(s->ax, s->ay, s->bx, s->by, px, py);
    const double d4 = orient(s->ax, s->ay, s->bx, s->by, qx, qy);
    if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)))
        return true;
    // Touching or collinear: an endpoint on the other segment.
    return ref_seg_dist(s->ax, s->ay, px, py, qx, qy) == 0.0 ||
           ref_seg_dist(s->bx, s->by, px, py, qx, qy) == 0.0 ||
           ref_seg_dist(px, py, s->ax, s->ay, s->bx, s->by) == 0.0 ||
           ref_seg_dist(qx, qy, s->ax, s->ay, s->bx, s->by) == 0.0;
}

static double seg_seg_dist(double px, double py, double qx, double qy, const seg* s) {
    if (seg_meet(px, py, qx, qy, s)) return 0.0;
    double d = ref_seg_dist(s->ax, s->ay, px, py, qx, qy);
    d = fmin(d, ref_seg_dist(s->bx, s->by, px, py, qx, qy));
    d = fmin(d, ref_seg_dist(px, py, s->ax, s->ay, s->bx, s->by));
    return fmin(d, ref_seg_dist(qx, qy, s->ax, s->ay, s->bx, s->by));
}

// Smallest distance of segment pq to any wall.
static double line_clearance(const geo* g, double px, double py, double qx, double qy) {
    double d = INFINITY;
    for (int k = 0; k < g->ns; ++k) d = fmin(d, seg_seg_dist(px, py, qx, qy, &g->s[k]));
    return d;
}

// Whether the straight line pq is a way: `need` 0, it touches no wall and does not run through a
// solid; else it keeps `need` from every wall (less a relative 1e-4 for the tangent edges).
static bool clear_line(const geo* g, double need, double px, double py, double qx, double qy) {
    if (need == 0.0) {
        for (int k = 0; k < g->ns; ++k)
            if (seg_meet(px, py, qx, qy, &g->s[k])) return false;
    } else {
        const double lim = need * (1.0 - 1e-4);
        for (int k = 0; k < g->ns; ++k)
            if (seg_seg_dist(px, py, qx, qy, &g->s[k]) < lim) return false;
    }
    return !in_solid(g, 0.5 * (px + qx), 0.5 * (py + qy));
}

// ---- the visibility-graph reference -------------------------------------------------------------

enum { VIS_MAX = 2048, VIS_DIRS = 16 };

typedef struct vis {
    const geo* g;
    double need, gx, gy;
    int n;
    double x[VIS_MAX], y[VIS_MAX], d[VIS_MAX]; // d: shortest way from the node to the goal
} vis;

// Nodes around every corner of the obstacles, `off` from the corner on the circumscribed 16-gon
// (so consecutive nodes are joined by edges tangent to the circle of radius `off`), kept when they
// keep `need` from every wall and lie outside the solids; then Dijkstra from the goal.
static void vis_build(vis* v, const geo* g, const obst* o, int no, double off, double need,
                      double gx, double gy) {
    v->g = g, v->need = need, v->gx = gx, v->gy = gy, v->n = 0;
    const double rad = off / cos(PI_D / VIS_DIRS);
    for (int k = 0; k < no; ++k)
        for (int i = 0; i < o[k].n; ++i)
            for (int a = 0; a < VIS_DIRS; ++a) {
                const double x = o[k].p[i].x + rad * cos(2 * PI_D * a / VIS_DIRS);
                const double y = o[k].p[i].y + rad * sin(2 * PI_D * a / VIS_DIRS);
                double c = INFINITY;
                for (int s = 0; s < g->ns; ++s)
                    c = fmin(c, ref_seg_dist(x, y, g->s[s].ax, g->s[s].ay, g->s[s].bx, g->s[s].by));
                if (c < fmax(need * (1.0 - 1e-4), 1e-9) || in_solid(g, x, y)) continue;
                cr_assert_lt(v->n, VIS_MAX);
                v->x[v->n] = x, v->y[v->n] = y, v->n++;
            }
    bool done[VIS_MAX] = {false};
    for (int i = 0; i < v->n; ++i)
        v->d[i] = clear_line(g, need, v->x[i], v->y[i], gx, gy) ? hypot(v->x[i] - gx, v->y[i] - gy)
                                                                : INFINITY;
    for (;;) {
        int u = -1;
        for (int i = 0; i < v->n; ++i)
            if (!done[i] && v->d[i] < INFINITY && (u < 0 || v->d[i] < v->d[u])) u = i;
        if (u < 0) break;
        done[u] = true;
        for (int i = 0; i < v->n; ++i) {
            if (done[i]) continue;
            const double c = v->d[u] + hypot(v->x[i] - v->x[u], v->y[i] - v->y[u]);
            if (c < v->d[i] && clear_line(g, need, v->x[i], v->y[i], v->x[u], v->y[u])) v->d[i] = c;
        }
    }
}

// The shortest way from (px, py) to the goal: straight, or to the node that gives the least total,
// tried in order of that total (the first one in sight is the answer). INFINITY: none.
static double vis_query(const vis* v, double px, double py) {
    if (clear_line(v->g, v->need, px, py, v->gx, v->gy)) return hypot(px - v->gx, py - v->gy);
    static double cand[VIS_MAX];
    for (int i = 0; i < v->n; ++i) cand[i] = v->d[i] + hypot(px - v->x[i], py - v->y[i]);
    for (;;) {
        int u = -1;
        for (int i = 0; i < v->n; ++i)
            if (cand[i] < INFINITY && (u < 0 || cand[i] < cand[u])) u = i;
        if (u < 0) return INFINITY;
        if (clear_line(v->g, v->need, px, py, v->x[u], v->y[u])) return cand[u];
        cand[u] = INFINITY;
    }
}

// ---- the grid: the test's own walkable mask and 8-neighbour Dijkstra ----------------------------

enum { C_FREE, C_NEAR, C_SOLID };

typedef struct grid {
    int w, h;
    double ox, oy, cell;
    uint8_t* state;
    double* d8; // 8-neighbour grid distance to the goal's cell
} grid;

static void grid_centre(const grid* gr, int c, double* x, double* y) {
    // The engine's centres, in float: ((gx0 + i) + 0.5) * cell.
    const float cell = (float)gr->cell;
    const int gx0 = (int)lround(gr->ox / gr->cell), gy0 = (int)lround(gr->oy / gr->cell);
    *x = ((float)(gx0 + c % gr->w) + 0.5f) * cell;
    *y = ((float)(gy0 + c / gr->w) + 0.5f) * cell;
}

static void grid_mask(grid* gr, const geo* g, float clearance) {
    const float r2f = clearance * clearance;
    for (int c = 0; c < gr->w * gr->h; ++c) {
        double x, y;
        grid_centre(gr, c, &x, &y);
        double d = INFINITY;
        for (int s = 0; s < g->ns; ++s)
            d = fmin(d, ref_seg_dist(x, y, g->s[s].ax, g->s[s].ay, g->s[s].bx, g->s[s].by));
        gr->state[c] = d * d < (double)r2f ? C_NEAR : in_solid(g, x, y) ? C_SOLID : C_FREE;
    }
}

static bool grid_free(const grid* gr, int i, int j) {
    return i >= 0 && j >= 0 && i < gr->w && j < gr->h && gr->state[j * gr->w + i] == C_FREE;
}

// Dijkstra over FREE cells from cell `start` (distance 0), 8 neighbours, a diagonal step only
// with both cells beside it FREE. O(n^2 / 8) with a plain binary heap of (distance, cell).
typedef struct hent {
    double d;
    int c;
} hent;

static void grid_dijkstra(grid* gr, int start) {
    const int n = gr->w * gr->h;
    hent* heap = malloc(sizeof *heap * (size_t)(8 * n + 8));
    int hn = 0;
    for (int c = 0; c < n; ++c) gr->d8[c] = INFINITY;
    gr->d8[start] = 0.0;
    heap[hn++] = (hent){0.0, start};
    while (hn > 0) {
        const hent top = heap[0];
        heap[0] = heap[--hn];
        for (int k = 0;;) { // sift down
            int l = 2 * k + 1;
            if (l >= hn) break;
            if (l + 1 < hn && heap[l + 1].d < heap[l].d) ++l;
            if (heap[k].d <= heap[l].d) break;
            const hent t = heap[k];
            heap[k] = heap[l], heap[l] = t, k = l;
        }
        if (top.d > gr->d8[top.c]) continue;
        const int i = top.c % gr->w, j = top.c / gr->w;
        for (int dj = -1; dj <= 1; ++dj)
            for (int di = -1; di <= 1; ++di) {
                if ((di | dj) == 0 || !grid_free(gr, i + di, j + dj)) continue;
                if (di && dj && !(grid_free(gr, i + di, j) && grid_free(gr, i, j + dj))) continue;
                const int m = (j + dj) * gr->w + i + di;
                const double nd = top.d + gr->cell * (di && dj ? SQRT2_D : 1.0);
                if (nd >= gr->d8[m]) continue;
                gr->d8[m] = nd;
                int k = hn++;
                heap[k] = (hent){nd, m};
                while (k > 0 && heap[(k - 1) / 2].d > heap[k].d) { // sift up
                    const hent t = heap[k];
                    heap[k] = heap[(k - 1) / 2], heap[(k - 1) / 2] = t, k = (k - 1) / 2;
                }
            }
    }
    free(heap);
}

// ---- the comparison -----------------------------------------------------------------------------

static crowd_world* nav_world(int threads, crowd_nav_def nav) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = threads;
    wd.nav = nav;
    crowd_world* w = NULL;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    return w;
}

static crowd_goal arrive_at(crowd_vec2 p) {
    crowd_goal g = crowd_goal_default();
    g.mode = CROWD_GOAL_ARRIVE;
    g.target = p;
    return g;
}

// Failures by kind (the message format): how many, and the first of each.
enum { KINDS = 16 };

typedef struct tally {
    int checked, fails, nk;
    const char* kind[KINDS];
    int count[KINDS];
    char first[KINDS][200];
    double worst_over, worst_under, worst_leg_clear; // vs the clearance reference, leg clearance
    double over_at[4];                               // x, y, distance, reference of worst_over
    char report[KINDS * 220];
} tally;

static void fail(tally* t, const char* fmt, double a, double b, double c, double d, double e) {
    t->fails++;
    int k = 0;
    while (k < t->nk && t->kind[k] != fmt) ++k;
    if (k == KINDS) return;
    if (k == t->nk) {
        t->kind[t->nk++] = fmt;
        snprintf(t->first[k], sizeof t->first[k], fmt, a, b, c, d, e);
    }
    t->count[k]++;
}

// "n failures: count x first message; ..." for the assertion.
static const char* report(tally* t) {
    int at = snprintf(t->report, sizeof t->report, "%d failures", t->fails);
    for (int k = 0; k < t->nk; ++k)
        at += snprintf(t->report + at, sizeof t->report - (size_t)at, "\n  %d like: %s",
                       t->count[k], t->first[k]);
    return t->report;
}

// Walks the route from p corner by corner through crowd_nav_route_from: every leg clear of every
// wall (touching none), the distances adding up. Returns the number of legs.
static int walk_route(const crowd_world* w, const crowd_goal* goal, const geo* g, crowd_vec2 p,
                      crowd_route_info r, tally* t) {
    int legs = 0;
    for (;; ++legs) {
        const double c = line_clearance(g, p.x, p.y, r.aim.x, r.aim.y);
        if (c < t->worst_leg_clear) t->worst_leg_clear = c;
        if (c == 0.0)
            fail(t, "leg (%.3f, %.3f) -> (%.3f, %.3f) touches a wall (%g)", p.x, p.y, r.aim.x,
                 r.aim.y, c);
        const bool at_end = (r.aim.x == r.destination.x && r.aim.y == r.destination.y);
        if (at_end || legs > 1000) break;
        crowd_route_info next;
        cr_assert_eq(crowd_nav_route_from(w, goal, r.aim, &next), CROWD_OK);
        const double leg = hypot((double)r.aim.x - p.x, (double)r.aim.y - p.y);
        if (fabs(r.distance - (leg + next.distance)) > 1e-3 + 1e-5 * r.distance)
            fail(t, "from (%.3f, %.3f): distance %.4f, but leg %.4f + rest %.4f", p.x, p.y,
                 r.distance, leg, next.distance);
        if (next.state != r.state)
            fail(t, "corner (%.3f, %.3f) has state %g, the cell before it %g", r.aim.x, r.aim.y,
                 next.state, r.state, 0);
        p = r.aim;
        r = next;
    }
    if (legs > 1000) fail(t, "route from (%.3f, %.3f) has no end", p.x, p.y, 0, 0, 0);
    return legs;
}

// One world, one destination: every cell of the grid.
// min_share: the least share of the reachable cells whose way is within 3% + 0.5 m of the exact
// one.
static void check_field(const char* name, crowd_nav_def nd, const obst* o, int no, crowd_vec2 goal,
                        crowd_vec2 holder_at, double min_share) {
    crowd_world* w = nav_world(1, nd);
    for (int k = 0; k < no; ++k) wall_add(w, o[k].kind, o[k].p, o[k].n);
    crowd_agent_def a = crowd_agent_def_default();
    a.position = holder_at;
    a.goal = arrive_at(goal);
    crowd_agent_id holder;
    cr_assert_eq(crowd_agent_add(w, &a, &holder), CROWD_OK);
    cr_assert_eq(crowd_world_nav_update(w), CROWD_OK);
    const crowd_nav_stats st = crowd_world_nav_stats(w);
    cr_assert(st.grid_w > 0 && st.grid_h > 0);
    cr_assert_eq(st.fields_in_use, 1);

    static geo g;
    geo_init(&g, o, no);
    grid gr = {.w = st.grid_w,
               .h = st.grid_h,
               .ox = st.grid_origin.x,
               .oy = st.grid_origin.y,
               .cell = st.cell_size};
    const int n = gr.w * gr.h;
    gr.state = malloc((size_t)n);
    gr.d8 = malloc(sizeof *gr.d8 * (size_t)n);
    grid_mask(&gr, &g, nd.clearance);
    int64_t blocked = 0;
    for (int c = 0; c < n; ++c) blocked += gr.state[c] != C_FREE;
    cr_assert_eq(st.blocked_cells, blocked, "%s: engine blocks %lld cells, the test's mask %lld",
                 name, (long long)st.blocked_cells, (long long)blocked);
    const int gi = (int)floor((goal.x - gr.ox) / gr.cell),
              gj = (int)floor((goal.y - gr.oy) / gr.cell);
    // A goal off the grid (open ground all round the obstacles) has no grid reference.
    const bool on_grid = gi >= 0 && gj >= 0 && gi < gr.w && gj < gr.h;
    cr_assert(!on_grid || grid_free(&gr, gi, gj), "%s: the goal's cell is not walkable", name);
    if (on_grid)
        grid_dijkstra(&gr, gj * gr.w + gi);
    else
        for (int c = 0; c < n; ++c) gr.d8[c] = INFINITY;

    static vis clear, raw;
    vis_build(&clear, &g, o, no, nd.clearance, nd.clearance, goal.x, goal.y);
    vis_build(&raw, &g, o, no, 1e-3, 0.0, goal.x, goal.y);

    const crowd_goal goal_def = arrive_at(goal);
    tally t = {.worst_leg_clear = INFINITY};
    int unreachable = 0, legs_max = 0, near_checked = 0, near_hops = 0, within3 = 0;
    for (int c = 0; c < n; ++c) {
        double x, y;
        grid_centre(&gr, c, &x, &y);
        const crowd_vec2 p = {(float)x, (float)y};
        crowd_route_info r;
        cr_assert_eq(crowd_nav_route_from(w, &goal_def, p, &r), CROWD_OK);
        if (!isfinite(r.distance) || !isfinite(r.aim.x) || !isfinite(r.aim.y))
            fail(&t, "(%.3f, %.3f): not finite", x, y, 0, 0, 0);
        if (gr.state[c] == C_SOLID) {
            if (r.state != CROWD_ROUTE_STATE_UNREACHABLE)
                fail(&t, "(%.3f, %.3f) inside a solid: state %g, want UNREACHABLE", x, y, r.state,
                     0, 0);
            continue;
        }
        const double ref = vis_query(&clear, x, y);
        if (gr.state[c] == C_NEAR) {
            // By a wall: inside a solid, no way; else pointed back to a walkable cell on its own
            // side (the room walled off from the goal has its own test below).
            if (in_solid(&g, x, y)) {
                if (r.state != CROWD_ROUTE_STATE_UNREACHABLE)
                    fail(&t, "(%.3f, %.3f) by a wall inside a solid: state %g, want UNREACHABLE", x,
                         y, r.state, 0, 0);
                continue;
            }
            if (!(vis_query(&raw, x, y) < INFINITY)) continue;
            near_checked++;
            // Its aim is a neighbour (a step along the cells by the wall, from the walkable cells
            // beside them), and a few such steps lead to a walkable cell.
            crowd_vec2 q = p;
            crowd_route_info s = r;
            int hops = 0;
            for (; hops < 8; ++hops) {
                const int ai = (int)floor((s.aim.x - gr.ox) / gr.cell);
                const int aj = (int)floor((s.aim.y - gr.oy) / gr.cell);
                const double step = hypot((double)s.aim.x - q.x, (double)s.aim.y - q.y);
                if (s.state != CROWD_ROUTE_STATE_ROUTED || step > gr.cell * 1.001) {
                    fail(&t, "(%.3f, %.3f) by a wall: state %g, aim (%.3f, %.3f) not a neighbour",
                         q.x, q.y, s.state, s.aim.x, s.aim.y);
                    break;
                }
                if (grid_free(&gr, ai, aj)) break;
                q = s.aim;
                cr_assert_eq(crowd_nav_route_from(w, &goal_def, q, &s), CROWD_OK);
            }
            if (hops == 8)
                fail(&t, "(%.3f, %.3f) by a wall: no walkable cell within 8 steps", x, y, 0, 0, 0);
            near_hops = hops + 1 > near_hops ? hops + 1 : near_hops;
            walk_route(w, &goal_def, &g, p, r, &t);
            continue;
        }
        t.checked++;
        if (!(ref < INFINITY)) {
            unreachable++;
            if (r.state != CROWD_ROUTE_STATE_UNREACHABLE || (on_grid && gr.d8[c] < INFINITY))
                fail(&t, "(%.3f, %.3f) is walled off from the goal: state %g, grid distance %g", x,
                     y, r.state, gr.d8[c], 0);
            continue;
        }
        if (r.state != CROWD_ROUTE_STATE_ROUTED || r.destination.x != goal.x ||
            r.destination.y != goal.y)
            fail(&t, "(%.3f, %.3f): state %g, destination (%.3f, %.3f), want ROUTED to the goal", x,
                 y, r.state, r.destination.x, r.destination.y);
        const double d = r.distance, e = hypot(x - goal.x, y - goal.y);
        const double lo = vis_query(&raw, x, y);
        if (d < e * (1.0 - 1e-6) - 1e-4)
            fail(&t, "(%.3f, %.3f): distance %.4f below the straight line %.4f", x, y, d, e, 0);
        if (d < lo - 0.01)
            fail(&t, "(%.3f, %.3f): distance %.4f below the shortest way without clearance %.4f", x,
                 y, d, lo, 0);
        // Ways are lines between cell centres that keep the clearance: round a corner a way
        // stands off by up to about a cell more than the exact one, and where two anchors'
        // regions meet a cell may take a corner the exact way does not. The hard bound is
        // 12% + 2 cells; the share within 3% + 0.5 m is checked below.
        if (d - ref > 0.12 * ref + 2.0 * nd.cell_size)
            fail(&t, "(%.3f, %.3f): distance %.4f, the shortest way with clearance %.4f (%g)", x, y,
                 d, ref, 0);
        within3 += d - ref <= 0.03 * ref + 0.5;
        if (on_grid && d > gr.d8[c] + 1e-3 + 1e-6 * d)
            fail(&t, "(%.3f, %.3f): distance %.4f longer than the 8-neighbour grid's %.4f", x, y, d,
                 gr.d8[c], 0);
        if (d - ref > t.worst_over) {
            t.worst_over = d - ref;
            t.over_at[0] = x, t.over_at[1] = y, t.over_at[2] = d, t.over_at[3] = ref;
        }
        if (ref - d > t.worst_under) t.worst_under = ref - d;
        const int legs = walk_route(w, &goal_def, &g, p, r, &t);
        legs_max = legs > legs_max ? legs : legs_max;
    }
    // Far outside the grid: straight at the goal.
    const crowd_vec2 far = {(float)(gr.ox - 50.0), (float)(gr.oy + 3.0)};
    crowd_route_info r;
    cr_assert_eq(crowd_nav_route_from(w, &goal_def, far, &r), CROWD_OK);
    cr_assert_eq(r.state, CROWD_ROUTE_STATE_STRAIGHT);
    cr_assert(r.aim.x == goal.x && r.aim.y == goal.y);
    cr_assert_float_eq(r.distance, hypot(far.x - goal.x, far.y - goal.y), 1e-3);

    printf("%s: %dx%d cells, %d walkable checked (%d walled off), %d by walls; vs the way with "
           "clearance %+.3f / -%.3f m (the longest from (%.3f, %.3f): %.3f against %.3f), %.1f%% "
           "within 3%% + 0.5 m, legs <= %d, closest leg to a wall %.3f m, steps to a walkable "
           "cell from by a wall <= %d\n",
           name, gr.w, gr.h, t.checked, unreachable, near_checked, t.worst_over, t.worst_under,
           t.over_at[0], t.over_at[1], t.over_at[2], t.over_at[3],
           100.0 * within3 / (t.checked - unreachable > 0 ? t.checked - unreachable : 1), legs_max,
           t.worst_leg_clear, near_hops);
    free(gr.state);
    free(gr.d8);
    crowd_world_destroy(w);
    cr_assert_eq(t.fails, 0, "%s: %s", name, report(&t));
    cr_assert_gt(t.checked, n / 3, "%s: too few walkable cells checked", name);
    const double share = (double)within3 / (t.checked - unreachable);
    cr_assert_geq(share, min_share, "%s: %.1f%% of the ways within 3%% + 0.5 m of the exact one",
                  name, 100.0 * share);
}

// A long wall, an L wall, a square block, a triangle, and a closed room of walls split by an
// inner wall (walled off from everything outside; the inner wall hides part of it from the rest).
static const obst scene_obstacles[] = {
    {CROWD_OBSTACLE_WALL, 2, {{2, 8}, {14, 8}}},
    {CROWD_OBSTACLE_WALL, 3, {{16, 2}, {16, 12}, {20, 12}}},
    {CROWD_OBSTACLE_POLYGON, 4, {{6, 11}, {9, 11}, {9, 14}, {6, 14}}},
    {CROWD_OBSTACLE_POLYGON, 3, {{9, 2}, {13, 4}, {9, 5}}},
    {CROWD_OBSTACLE_WALL, 5, {{20, 16}, {26, 16}, {26, 22}, {20, 22}, {20, 16}}},
    {CROWD_OBSTACLE_WALL, 2, {{23, 16}, {23, 20}}},
};
enum { SCENE_N = sizeof scene_obstacles / sizeof scene_obstacles[0] };

// Default grid (0.5 m cells, 0.3 m clearance): a goal south of the long wall, which the cells
// north of it reach round either end, and one inside the L.
Test(nav_field, default_grid_goal_south_of_the_long_wall) {
    check_field("default grid, south of the long wall", crowd_nav_def_default(), scene_obstacles,
                SCENE_N, (crowd_vec2){8.25f, 6.25f}, (crowd_vec2){4, 4}, 0.95);
}

Test(nav_field, default_grid_goal_inside_the_l) {
    check_field("default grid, inside the L", crowd_nav_def_default(), scene_obstacles, SCENE_N,
                (crowd_vec2){18.25f, 9.75f}, (crowd_vec2){4, 4}, 0.95);
}

Test(nav_field, fine_grid_goal_north_of_the_long_wall) {
    crowd_nav_def nd = crowd_nav_def_default();
    nd.cell_size = 0.25f;
    nd.clearance = 0.2f;
    check_field("fine grid, north of the long wall", nd, scene_obstacles, SCENE_N,
                (crowd_vec2){10.125f, 9.875f}, (crowd_vec2){4, 4}, 0.95);
}

Test(nav_field, coarse_grid_goal_south_of_the_long_wall) {
    crowd_nav_def nd = crowd_nav_def_default();
    nd.cell_size = 1.0f;
    nd.clearance = 0.6f;
    check_field("coarse grid, south of the long wall", nd, scene_obstacles, SCENE_N,
                (crowd_vec2){7.5f, 6.5f}, (crowd_vec2){4, 4}, 0.4);
}

// A goal beyond the grid's margin (its field is seeded from the grid's border): a U-shaped cup
// open away from the goal and a solid block, the goal 9 m past the block. Every way from the
// grid, including its last leg off the grid to the goal, goes round the obstacles.
static const obst cup_block[] = {
    {CROWD_OBSTACLE_WALL, 4, {{2, -3}, {5, -3}, {5, 3}, {2, 3}}},
    {CROWD_OBSTACLE_POLYGON, 4, {{8, -3}, {11, -3}, {11, 3}, {8, 3}}},
};

Test(nav_field, goal_off_the_grid) {
    check_field("goal off the grid", crowd_nav_def_default(), cup_block, 2,
                (crowd_vec2){20.25f, 0.25f}, (crowd_vec2){14, 5}, 0.95);
}

// A closed room of walls whose inner wall hides part of it from the rest (scene_obstacles): the
// goal outside, every walkable cell of the room is walled off from it and says UNREACHABLE, the
// hidden part too (there the way to the room's stand-in goes round the inner wall's end).
Test(nav_field, every_cell_of_a_walled_off_room_is_unreachable) {
    crowd_world* w = nav_world(1, crowd_nav_def_default());
    for (int k = 0; k < SCENE_N; ++k)
        wall_add(w, scene_obstacles[k].kind, scene_obstacles[k].p, scene_obstacles[k].n);
    const crowd_goal goal = arrive_at((crowd_vec2){8.25f, 6.25f});
    crowd_agent_def a = crowd_agent_def_default();
    a.goal = goal;
    a.position = (crowd_vec2){4, 4};
    crowd_agent_id outside, west, east;
    cr_assert_eq(crowd_agent_add(w, &a, &outside), CROWD_OK);
    a.position = (crowd_vec2){21.5f, 17.5f}; // in the room, west of the inner wall
    cr_assert_eq(crowd_agent_add(w, &a, &west), CROWD_OK);
    a.position = (crowd_vec2){24.5f, 17.0f}; // east of it, hidden from the west part's south
    cr_assert_eq(crowd_agent_add(w, &a, &east), CROWD_OK);
    cr_assert_eq(crowd_world_nav_update(w), CROWD_OK);
    crowd_route_info r;
    cr_assert_eq(crowd_agent_get_route(w, outside, &r), CROWD_OK);
    cr_assert_eq(r.state, CROWD_ROUTE_STATE_ROUTED);
    int in_room = 0, wrong = 0;
    char first[200] = "";
    static geo g;
    geo_init(&g, scene_obstacles, SCENE_N);
    for (float y = 16.25f; y < 22.0f; y += 0.5f)
        for (float x = 20.25f; x < 26.0f; x += 0.5f) {
            double d = INFINITY;
            for (int s = 0; s < g.ns; ++s)
                d = fmin(d, ref_seg_dist(x, y, g.s[s].ax, g.s[s].ay, g.s[s].bx, g.s[s].by));
            if (d < 0.3) continue; // by a wall
            in_room++;
            cr_assert_eq(crowd_nav_route_from(w, &goal, (crowd_vec2){x, y}, &r), CROWD_OK);
            if (r.state != CROWD_ROUTE_STATE_UNREACHABLE && wrong++ == 0)
                snprintf(first, sizeof first, "(%.2f, %.2f): state %d, aim (%.2f, %.2f)", (double)x,
                         (double)y, r.state, (double)r.aim.x, (double)r.aim.y);
        }
    const crowd_agent_id in[2] = {west, east};
    for (int k = 0; k < 2; ++k) {
        cr_assert_eq(crowd_agent_get_route(w, in[k], &r), CROWD_OK);
        if (r.state != CROWD_ROUTE_STATE_UNREACHABLE && wrong++ == 0)
            snprintf(first, sizeof first, "agent %d in the room: state %d, aim (%.2f, %.2f)", k,
                     r.state, (double)r.aim.x, (double)r.aim.y);
    }
    printf("walled-off room: %d walkable cells, %d not UNREACHABLE\n", in_room, wrong);
    crowd_world_destroy(w);
    cr_assert_gt(in_room, 60);
    cr_assert_eq(wrong, 0, "%d cells or agents of the room not UNREACHABLE, the first: %s", wrong,
                 first);
}

// An exit set's field is the least of its exits' ways: from every walkable cell its distance is
// the lesser of the two point fields' distances (the same world holds a field for each exit point
// too, within 2% + 0.1 m), and the exit it names is the nearer one by walking wherever the two ways
// differ, by the fields and by the test's reference ways (the clearance graph, with a margin of
// 6% + 1 m).
Test(nav_field, an_exit_set_routes_to_the_nearer_exit_by_walking) {
    const crowd_nav_def nd = crowd_nav_def_default();
    crowd_world* w = nav_world(1, nd);
    for (int k = 0; k < SCENE_N; ++k)
        wall_add(w, scene_obstacles[k].kind, scene_obstacles[k].p, scene_obstacles[k].n);
    const crowd_vec2 ex[2] = {{8.25f, 6.25f}, {18.25f, 9.75f}};
    crowd_exits_id set;
    cr_assert_eq(crowd_exits_create(w, ex, 2, &set), CROWD_OK);
    crowd_goal goal = crowd_goal_default();
    goal.mode = CROWD_GOAL_ARRIVE;
    goal.exits = set;
    crowd_agent_def a = crowd_agent_def_default();
    a.position = (crowd_vec2){4, 4};
    a.goal = goal;
    crowd_agent_id holder;
    cr_assert_eq(crowd_agent_add(w, &a, &holder), CROWD_OK);
    const crowd_goal one[2] = {arrive_at(ex[0]), arrive_at(ex[1])};
    for (int k = 0; k < 2; ++k) {
        a.goal = one[k];
        cr_assert_eq(crowd_agent_add(w, &a, &holder), CROWD_OK);
    }
    cr_assert_eq(crowd_world_nav_update(w), CROWD_OK);
    const crowd_nav_stats st = crowd_world_nav_stats(w);
    cr_assert_eq(st.fields_in_use, 3);
    static geo g;
    geo_init(&g, scene_obstacles, SCENE_N);
    static vis v0, v1;
    vis_build(&v0, &g, scene_obstacles, SCENE_N, nd.clearance, nd.clearance, ex[0].x, ex[0].y);
    vis_build(&v1, &g, scene_obstacles, SCENE_N, nd.clearance, nd.clearance, ex[1].x, ex[1].y);
    grid gr = {.w = st.grid_w,
               .h = st.grid_h,
               .ox = st.grid_origin.x,
               .oy = st.grid_origin.y,
               .cell = st.cell_size};
    const int n = gr.w * gr.h;
    gr.state = malloc((size_t)n);
    grid_mask(&gr, &g, nd.clearance);
    tally t = {.worst_leg_clear = INFINITY};
    int to[2] = {0, 0}, checked = 0;
    double worst_gap = 0.0;
    for (int c = 0; c < n; ++c) {
        if (gr.state[c] != C_FREE) continue;
        double x, y;
        grid_centre(&gr, c, &x, &y);
        const double d0 = vis_query(&v0, x, y), d1 = vis_query(&v1, x, y);
        if (!(fmin(d0, d1) < INFINITY)) continue;
        crowd_route_info r;
        cr_assert_eq(crowd_nav_route_from(w, &goal, (crowd_vec2){(float)x, (float)y}, &r),
                     CROWD_OK);
        crowd_route_info f[2];
        for (int k = 0; k < 2; ++k)
            cr_assert_eq(crowd_nav_route_from(w, &one[k], (crowd_vec2){(float)x, (float)y}, &f[k]),
                         CROWD_OK);
        checked++;
        if (r.state != CROWD_ROUTE_STATE_ROUTED)
            fail(&t, "(%.3f, %.3f): state %g", x, y, r.state, 0, 0);
        const double lesser = fmin(f[0].distance, f[1].distance);
        if (fabs(r.distance - lesser) > worst_gap) worst_gap = fabs(r.distance - lesser);
        // Not to the bit: the search from two targets settles cells in another order, and where
        // the anchors of two ways meet a cell may take a slightly longer one (up to 4.4 cm in
        // 20 of 3947 cells when this was written).
        const double tol = 0.1 + 0.02 * lesser;
        if (fabs(r.distance - lesser) > tol)
            fail(&t, "(%.3f, %.3f): distance %.4f, the exits' own fields %.4f and %.4f", x, y,
                 r.distance, f[0].distance, f[1].distance);
        const int named = r.destination.x == ex[0].x && r.destination.y == ex[0].y   ? 0
                          : r.destination.x == ex[1].x && r.destination.y == ex[1].y ? 1
                                                                                     : -1;
        if (named < 0)
            fail(&t, "(%.3f, %.3f): destination (%.3f, %.3f) is no exit", x, y, r.destination.x,
                 r.destination.y, 0);
        else
            to[named]++;
        const double margin = 0.06 * fmax(d0, d1) + 1.0;
        if ((d0 + margin < d1 && named != 0) || (d1 + margin < d0 && named != 1))
            fail(&t, "(%.3f, %.3f): ways %.3f and %.3f, but it heads for exit %g", x, y, d0, d1,
                 named);
        const double fd0 = f[0].distance, fd1 = f[1].distance;
        if ((fd0 + tol < fd1 && named != 0) || (fd1 + tol < fd0 && named != 1))
            fail(&t, "(%.3f, %.3f): the exits' fields say %.3f and %.3f, but it heads for exit %g",
                 x, y, fd0, fd1, named);
    }
    printf("exit set: %d cells checked, %d to the first exit, %d to the second; largest gap to the "
           "lesser of the exits' own fields %.5f m\n",
           checked, to[0], to[1], worst_gap);
    free(gr.state);
    crowd_world_destroy(w);
    cr_assert_eq(t.fails, 0, "%s", report(&t));
    cr_assert(to[0] > checked / 10 && to[1] > checked / 10);
}

// Open ground: every walkable cell whose line to the goal keeps 1.5 m from every wall sees the
// goal: it steers exactly at the goal point (not at its cell's centre) and its distance is the
// straight line. Points outside the grid head straight for it too (state STRAIGHT).
static void open_ground(const char* name, const obst* o, int no, crowd_vec2 goal) {
    crowd_world* w = nav_world(2, crowd_nav_def_default());
    for (int k = 0; k < no; ++k) wall_add(w, o[k].kind, o[k].p, o[k].n);
    crowd_agent_def a = crowd_agent_def_default();
    a.position = (crowd_vec2){10, 10};
    a.goal = arrive_at(goal);
    crowd_agent_id holder;
    cr_assert_eq(crowd_agent_add(w, &a, &holder), CROWD_OK);
    cr_assert_eq(crowd_world_nav_update(w), CROWD_OK);
    const crowd_nav_stats st = crowd_world_nav_stats(w);
    static geo g;
    geo_init(&g, o, no);
    grid gr = {.w = st.grid_w,
               .h = st.grid_h,
               .ox = st.grid_origin.x,
               .oy = st.grid_origin.y,
               .cell = st.cell_size};
    const int n = gr.w * gr.h;
    const crowd_goal goal_def = arrive_at(goal);
    tally t = {0};
    int checked = 0, hidden = 0;
    for (int c = 0; c < n; ++c) {
        double x, y;
        grid_centre(&gr, c, &x, &y);
        if (line_clearance(&g, x, y, goal.x, goal.y) < 1.5) {
            hidden++;
            continue;
        }
        crowd_route_info r;
        cr_assert_eq(crowd_nav_route_from(w, &goal_def, (crowd_vec2){(float)x, (float)y}, &r),
                     CROWD_OK);
        checked++;
        const double e = hypot(x - goal.x, y - goal.y);
        if (r.state != CROWD_ROUTE_STATE_ROUTED || r.aim.x != goal.x || r.aim.y != goal.y)
            fail(&t, "(%.3f, %.3f): state %g, aim (%.4f, %.4f), want the goal itself", x, y,
                 r.state, r.aim.x, r.aim.y);
        if (fabs(r.distance - e) > 1e-3)
            fail(&t, "(%.3f, %.3f): distance %.5f, straight line %.5f", x, y, r.distance, e, 0);
    }
    const crowd_vec2 out[3] = {{(float)gr.ox - 30.0f, (float)gr.oy + 5.0f},
                               {(float)gr.ox + (float)(gr.w * gr.cell) + 20.0f, 70.0f},
                               {20.0f, (float)gr.oy - 40.0f}};
    for (int k = 0; k < 3; ++k) {
        crowd_route_info r;
        cr_assert_eq(crowd_nav_route_from(w, &goal_def, out[k], &r), CROWD_OK);
        cr_assert_eq(r.state, CROWD_ROUTE_STATE_STRAIGHT, "%s", name);
        cr_assert(r.aim.x == goal.x && r.aim.y == goal.y, "%s", name);
        cr_assert_float_eq(r.distance, hypot(out[k].x - goal.x, out[k].y - goal.y), 1e-3);
    }
    printf("open ground, %s: %d of %d cells checked (%d near the walls' shadows)\n", name, checked,
           n, hidden);
    crowd_world_destroy(w);
    cr_assert_eq(t.fails, 0, "%s: %s", name, report(&t));
    cr_assert_gt(checked, n * 2 / 3, "%s", name);
}

// A grid laid for two short walls 40 m apart, the goal in the open between them.
Test(nav_field, open_ground_routes_are_straight_lines) {
    const obst o[2] = {{CROWD_OBSTACLE_WALL, 2, {{0, 0}, {1, 0}}},
                       {CROWD_OBSTACLE_WALL, 2, {{40, 40}, {41, 40}}}};
    open_ground("two walls 40 m apart", o, 2, (crowd_vec2){20.1f, 19.9f}); // off its cell's centre
}

// One wall far from the goal: the grid covers the wall and its margin only, the goal lies outside
// it (its field is seeded from the grid's border).
Test(nav_field, open_ground_around_one_far_wall_is_straight) {
    const obst o[1] = {{CROWD_OBSTACLE_WALL, 2, {{30, 30}, {32, 31}}}};
    open_ground("one wall 40 m off", o, 1, (crowd_vec2){0.3f, 0.2f});
}

// ---- determinism --------------------------------------------------------------------------------

enum { DET_AGENTS = 300 };

// A walled world with routed agents: six point destinations (some behind walls, one inside a
// closed room: unreachable), an exit set, straight goals and flee goals mixed in. Mid-run a wall
// is added across the main gap (every field is rebuilt), goals change, and the wall goes again.
static void det_run(int threads, int ticks, uint64_t* hashes, int every, int* gate_tick,
                    uint64_t* route_hash) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = threads;
    crowd_world* w = NULL;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    for (int k = 0; k < SCENE_N; ++k)
        wall_add(w, scene_obstacles[k].kind, scene_obstacles[k].p, scene_obstacles[k].n);
    const crowd_vec2 ex[3] = {{-3, 10}, {30, 5}, {12, 20}};
    crowd_exits_id set;
    cr_assert_eq(crowd_exits_create(w, ex, 3, &set), CROWD_OK);
    const crowd_vec2 dest[6] = {{8, 6}, {18, 9}, {10, 10}, {4, 18}, {28, 14}, {24, 18}};
    crowd_agent_id ids[DET_AGENTS];
    uint64_t seed = 77;
    for (int i = 0; i < DET_AGENTS;) {
        crowd_agent_def a = crowd_agent_def_default();
        a.position = (crowd_vec2){frand(&seed, -2, 28), frand(&seed, -2, 24)};
        a.max_speed = frand(&seed, 1.0f, 2.0f);
        a.goal.mode = i % 5 == 4 ? CROWD_GOAL_SEEK : CROWD_GOAL_ARRIVE;
        a.goal.target = dest[i % 6];
        if (i % 7 == 3) a.goal.exits = set;
        if (i % 11 == 5) a.goal.route = CROWD_ROUTE_STRAIGHT;
        if (i % 13 == 6) a.goal.mode = CROWD_GOAL_FLEE, a.goal.exits = (crowd_exits_id){0};
        if (crowd_agent_add(w, &a, &ids[i]) != CROWD_OK) continue; // in a wall: draw again
        ++i;
    }
    crowd_obstacle_id gate = {0};
    for (int t = 0; t < ticks; ++t) {
        if (t >= ticks / 3 && t < 2 * ticks / 3 && crowd_obstacle_id_is_null(gate)) {
            // Closes the gap beside the L; refused while an agent stands there (the same tick on
            // every thread count, or the hashes differ), so tried again each tick.
            const crowd_vec2 gp[2] = {{14.5f, 8}, {15.6f, 8}};
            const crowd_status st = crowd_obstacle_add(w, CROWD_OBSTACLE_WALL, gp, 2, &gate);
            cr_assert(st == CROWD_OK || st == CROWD_ERR_INSIDE_OBSTACLE);
            if (st == CROWD_OK) *gate_tick = t;
        }
        if (t == ticks / 2)
            for (int i = 0; i < DET_AGENTS; i += 9) {
                crowd_goal g = crowd_goal_default();
                g.mode = CROWD_GOAL_ARRIVE;
                g.target = dest[(i / 9) % 6];
                g.target.x += 0.3f;
                cr_assert_eq(crowd_agent_set_goal(w, ids[i], &g), CROWD_OK);
            }
        if (t == 2 * ticks / 3 && !crowd_obstacle_id_is_null(gate))
            cr_assert_eq(crowd_obstacle_remove(w, gate), CROWD_OK);
        cr_assert_eq(crowd_world_step(w), CROWD_OK);
        if (t % every == every - 1) hashes[t / every] = crowd_world_state_hash(w);
    }
    const crowd_nav_stats st = crowd_world_nav_stats(w);
    cr_assert_geq(st.fields_in_use, 7, "fields in use %d", st.fields_in_use);
    // The routes as the API reports them, bit for bit, into one more hash.
    int routed = 0;
    uint64_t rh = 1469598103934665603ull;
    for (int i = 0; i < DET_AGENTS; ++i) {
        crowd_route_info r;
        cr_assert_eq(crowd_agent_get_route(w, ids[i], &r), CROWD_OK);
        routed += r.state == CROWD_ROUTE_STATE_ROUTED;
        uint32_t bits[6] = {(uint32_t)r.state};
        memcpy(&bits[1], &r.aim, 8);
        memcpy(&bits[3], &r.destination, 8);
        memcpy(&bits[5], &r.distance, 4);
        for (int k = 0; k < 6; ++k) rh = (rh ^ bits[k]) * 1099511628211ull;
    }
    *route_hash = rh;
    cr_assert_gt(routed, DET_AGENTS / 3);
    cr_assert_geq(min_clearance(w), -1e-3);
    crowd_world_destroy(w);
}

Test(nav_field, routed_worlds_are_identical_on_1_2_and_3_threads) {
    const int ticks = small() ? 120 : 450, every = 15;
    uint64_t h[3][30];
    const int threads[3] = {1, 2, 3};
    int gate[3] = {-1, -1, -1};
    uint64_t routes[3];
    for (int k = 0; k < 3; ++k) det_run(threads[k], ticks, h[k], every, &gate[k], &routes[k]);
    cr_assert(routes[1] == routes[0] && routes[2] == routes[0], "the routes differ");
    printf("determinism: the gate wall went in at tick %d\n", gate[0]);
    cr_assert(gate[0] >= 0 && gate[0] < 2 * ticks / 3, "the gate wall never went in");
    cr_assert(gate[1] == gate[0] && gate[2] == gate[0]);
    for (int k = 1; k < 3; ++k)
        for (int i = 0; i < ticks / every; ++i)
            cr_assert_eq(h[k][i], h[0][i], "%d threads differ from 1 at tick %d", threads[k],
                         (i + 1) * every);
    // and the run changes the state at all
    cr_assert_neq(h[0][0], h[0][ticks / every - 1]);
}
