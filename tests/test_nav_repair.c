// Repairs of navigation fields after obstacle changes (src/nav/nav_repair.c), against whole
// builds. Random walled scenes hold a few destinations; walls are added at several places (and
// removed again), and after each route phase every field in use is checked cell by cell:
//  - the grid laid in part is the grid a whole lay gives;
//  - each walkable cell's line to its anchor keeps half the clearance from every wall (the sight
//    rule of the build) as often as a whole build's lines do (the build's local test lets a few
//    pass the tip of a wall closer, see check_fields), and a walkable cell anchors at a walkable
//    cell or a target; a cell by a wall points to a neighbor; a cell inside a solid has no way;
//  - its distance along the anchors is within 1% + 2 cells of a whole build's (the build itself
//    stands off a corner by up to about a cell, and a repaired region meets the old one where
//    other corners may be taken), and never shorter than an 8-neighbour grid Dijkstra over the
//    walkable cells allows (the staircase is at most 8.3% longer than a straight line, plus a
//    cell at each end);
//  - a cell reachable in the whole build is reachable in the repaired field, and the other way.
// Then: a wall added and removed again leaves ways no longer than before by more than that bound;
// repaired fields are identical on 1 and 2 threads; a repair really repairs (the stats count it)
// and falls back to a whole build where a region gets walled off.
#include <float.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "fuzz/snapshot_downgrade.h"
#include "nav/nav.h"
#include "scenes.h"
#include "walls_helpers.h"
#include "world_helpers.h"

#define SQRT2_D 1.41421356237309504880

enum { MAX_SEGS = 2048, MAX_DESTS = 4 };

typedef struct scene {
    crowd_world* w;
    crowd_vec2 dest[MAX_DESTS];
    int ndest;
    uint64_t rng;
} scene;

static crowd_goal arrive_at(crowd_vec2 p) {
    crowd_goal g = crowd_goal_default();
    g.mode = CROWD_GOAL_ARRIVE;
    g.target = p;
    return g;
}

// ---- the test's own view of the walls -----------------------------------------------------------

typedef struct segs {
    double ax[MAX_SEGS], ay[MAX_SEGS], bx[MAX_SEGS], by[MAX_SEGS];
    int n;
} segs;

static void segs_of(const crowd_world* w, segs* s) {
    s->n = 0;
    const cs_walls* g = &w->walls;
    for (int32_t oi = 0; oi < g->obs_used; ++oi) {
        const cs_obstacle* o = &g->obs[oi];
        if (!o->points) continue;
        const int n = o->kind == CROWD_OBSTACLE_POLYGON ? o->count : o->count - 1;
        for (int k = 0; k < n; ++k) {
            cr_assert_lt(s->n, MAX_SEGS);
            const crowd_vec2 a = o->points[k], b = o->points[(k + 1) % o->count];
            s->ax[s->n] = a.x, s->ay[s->n] = a.y, s->bx[s->n] = b.x, s->by[s->n] = b.y, s->n++;
        }
    }
}

static double orient(double ax, double ay, double bx, double by, double cx, double cy) {
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
}

// Distance between segments pq and ab.
static double seg_seg(double px, double py, double qx, double qy, double ax, double ay, double bx,
                      double by) {
    const double d1 = orient(px, py, qx, qy, ax, ay), d2 = orient(px, py, qx, qy, bx, by);
    const double d3 = orient(ax, ay, bx, by, px, py), d4 = orient(ax, ay, bx, by, qx, qy);
    if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)))
        return 0.0;
    double d = ref_seg_dist(ax, ay, px, py, qx, qy);
    d = fmin(d, ref_seg_dist(bx, by, px, py, qx, qy));
    d = fmin(d, ref_seg_dist(px, py, ax, ay, bx, by));
    return fmin(d, ref_seg_dist(qx, qy, ax, ay, bx, by));
}

static double clearance_of(const segs* s, double px, double py, double qx, double qy) {
    double d = INFINITY;
    for (int k = 0; k < s->n; ++k)
        d = fmin(d, seg_seg(px, py, qx, qy, s->ax[k], s->ay[k], s->bx[k], s->by[k]));
    return d;
}

// ---- fields as the test reads them --------------------------------------------------------------

static crowd_vec2 centre(const cs_nav* nav, uint32_t c) {
    return cs_nav_center(nav, c);
}

// Each cell's walking distance along its anchors (double), INFINITY without a way.
static void distances(const cs_nav* nav, cs_nav_key key, const uint32_t* anchor, double* d) {
    const cs_nav_targets t = cs_nav_targets_of(nav, key);
    const uint32_t n = (uint32_t)nav->cells;
    for (uint32_t c = 0; c < n; ++c) d[c] = NAN;
    uint32_t* stack = malloc(sizeof *stack * n);
    for (uint32_t c0 = 0; c0 < n; ++c0) {
        uint32_t sn = 0, x = c0;
        double base;
        for (;;) {
            if (!isnan(d[x])) {
                base = d[x];
                break;
            }
            const uint32_t a = anchor[x];
            if (a == CS_NAV_NONE) {
                d[x] = base = INFINITY;
                break;
            }
            if (a >= CS_NAV_TARGET) {
                const crowd_vec2 p = centre(nav, x),
                                 q = cs_nav_target(&t, (int)(a - CS_NAV_TARGET));
                d[x] = base = hypot((double)p.x - q.x, (double)p.y - q.y);
                break;
            }
            const uint32_t y = a & ~CS_NAV_STAND_IN;
            if (y == x) {
                d[x] = base = 0.0;
                break;
            }
            cr_assert_lt(sn, n, "a cycle of anchors");
            stack[sn++] = x;
            x = y;
        }
        while (sn > 0) {
            const uint32_t y = stack[--sn];
            const crowd_vec2 p = centre(nav, y), q = centre(nav, anchor[y] & ~CS_NAV_STAND_IN);
            base += hypot((double)p.x - q.x, (double)p.y - q.y);
            d[y] = base;
        }
    }
    free(stack);
}

// 8-neighbour Dijkstra over the FREE cells of the engine's grid from the FREE cells within a cell
// of each target (a simple O(n^2)-free bucket-less version: a binary heap).
typedef struct hent {
    double d;
    uint32_t c;
} hent;

static void grid_d8(const cs_nav* nav, cs_nav_key key, double* d8) {
    const int32_t gw = nav->gw, gh = nav->gh;
    const uint32_t n = (uint32_t)nav->cells;
    const double h = nav->def.cell_size;
    hent* heap = malloc(sizeof *heap * (size_t)(8 * n + 64));
    size_t hn = 0;
    for (uint32_t c = 0; c < n; ++c) d8[c] = INFINITY;
    const cs_nav_targets t = cs_nav_targets_of(nav, key);
    for (int k = 0; k < t.count; ++k) {
        const crowd_vec2 p = cs_nav_target(&t, k);
        const uint32_t c = cs_nav_cell(nav, p);
        if (c == CS_NAV_NONE) continue;
        // The target's own cell and its neighbors, at the straight distance (the build may seed
        // round a target by a wall).
        const int32_t ti = (int32_t)(c % (uint32_t)gw), tj = (int32_t)(c / (uint32_t)gw);
        for (int32_t j = tj - 3; j <= tj + 3; ++j)
            for (int32_t i = ti - 3; i <= ti + 3; ++i) {
                if (i < 0 || j < 0 || i >= gw || j >= gh) continue;
                const uint32_t m = (uint32_t)j * (uint32_t)gw + (uint32_t)i;
                if (nav->blocked[m] != CS_NAV_FREE) continue;
                const crowd_vec2 q = centre(nav, m);
                const double dd = hypot((double)q.x - p.x, (double)q.y - p.y);
                if (dd < d8[m]) d8[m] = dd, heap[hn++] = (hent){dd, m};
            }
    }
    // Heapify by pushing again (simple sift-up).
    for (size_t k = 1; k < hn; ++k)
        for (size_t x = k; x > 0 && heap[(x - 1) / 2].d > heap[x].d; x = (x - 1) / 2) {
            const hent tmp = heap[x];
            heap[x] = heap[(x - 1) / 2], heap[(x - 1) / 2] = tmp;
        }
    while (hn > 0) {
        const hent top = heap[0];
        heap[0] = heap[--hn];
        for (size_t k = 0;;) {
            size_t l = 2 * k + 1;
            if (l >= hn) break;
            if (l + 1 < hn && heap[l + 1].d < heap[l].d) ++l;
            if (heap[k].d <= heap[l].d) break;
            const hent tmp = heap[k];
            heap[k] = heap[l], heap[l] = tmp, k = l;
        }
        if (top.d > d8[top.c]) continue;
        const int32_t i = (int32_t)(top.c % (uint32_t)gw), j = (int32_t)(top.c / (uint32_t)gw);
        for (int32_t dj = -1; dj <= 1; ++dj)
            for (int32_t di = -1; di <= 1; ++di) {
                const int32_t x = i + di, y = j + dj;
                if ((di | dj) == 0 || x < 0 || y < 0 || x >= gw || y >= gh) continue;
                const uint32_t m = (uint32_t)y * (uint32_t)gw + (uint32_t)x;
                if (nav->blocked[m] != CS_NAV_FREE) continue;
                if (di && dj &&
                    (nav->blocked[(uint32_t)j * (uint32_t)gw + (uint32_t)x] != CS_NAV_FREE ||
                     nav->blocked[(uint32_t)y * (uint32_t)gw + (uint32_t)i] != CS_NAV_FREE))
                    continue;
                const double nd = top.d + h * (di && dj ? SQRT2_D : 1.0);
                if (nd >= d8[m]) continue;
                d8[m] = nd;
                size_t k = hn++;
                heap[k] = (hent){nd, m};
                while (k > 0 && heap[(k - 1) / 2].d > heap[k].d) {
                    const hent tmp = heap[k];
                    heap[k] = heap[(k - 1) / 2], heap[(k - 1) / 2] = tmp, k = (k - 1) / 2;
                }
            }
    }
    free(heap);
}

// ---- the checks ---------------------------------------------------------------------------------

typedef struct totals {
    int64_t cells, checked, resolved, repairs, builds;
    double worst_rel;         // largest (repaired - whole) / whole
    int64_t near_r, near_w;   // lines closer than half the clearance: repaired, whole
    int64_t touch_r, touch_w; // lines touching a wall: repaired, whole
    int64_t stand_in_cells;   // cells of repaired fields headed for a stand-in
} totals;

// The grid as a whole lay gives it: blocked and open.
static void check_grid(crowd_world* w) {
    cs_nav* nav = &w->nav;
    uint8_t* whole = malloc(2 * nav->cells);
    cs_nav tmp = *nav;
    tmp.blocked = whole;
    tmp.open = whole + nav->cells;
    cs_nav_grid_lay(w, &tmp);
    for (size_t c = 0; c < nav->cells; ++c) {
        cr_assert_eq(nav->blocked[c], whole[c], "cell %zu: %d laid in part, %d whole", c,
                     nav->blocked[c], whole[c]);
        cr_assert_eq(nav->open[c], whole[nav->cells + c], "cell %zu: open differs", c);
    }
    free(whole);
}

// Every field in use of w against a whole build of it; `before` (when not NULL): the distances
// of each field before a change that was undone, which the field may exceed by the bound only.
static void check_fields(crowd_world* w, const char* what, totals* tot, double** before) {
    cs_nav* nav = &w->nav;
    cr_assert(nav->blocked && !nav->grid_changed, "%s: no grid", what);
    check_grid(w);
    segs s;
    segs_of(w, &s);
    const uint32_t n = (uint32_t)nav->cells;
    const double h = nav->def.cell_size, half = 0.5 * nav->def.clearance;
    uint32_t* whole = malloc(sizeof *whole * n);
    double* dr = malloc(sizeof *dr * n);
    double* dw = malloc(sizeof *dw * n);
    double* d8 = malloc(sizeof *d8 * n);
    int fi = 0;
    for (uint32_t i = 0; i < nav->nfields; ++i) {
        cs_nav_field* f = &nav->fields[i];
        if (f->users == 0) continue;
        cr_assert(f->built && f->anchor, "%s: field %u not built", what, i);
        tot->repairs += f->repaired;
        tot->resolved += f->repaired ? f->resolved : 0;
        cs_nav_build(w, nav, f->key, whole, &nav->scratch[0]);
        distances(nav, f->key, f->anchor, dr);
        distances(nav, f->key, whole, dw);
        grid_d8(nav, f->key, d8);
        const cs_nav_targets t = cs_nav_targets_of(nav, f->key);
        int64_t near_r = 0, near_w = 0, touch_r = 0, touch_w = 0; // lines too near a wall
        int64_t stand_in_cells = 0;
        for (uint32_t c = 0; c < n; ++c) {
            const uint32_t a = f->anchor[c];
            const uint8_t st = nav->blocked[c];
            const crowd_vec2 p = centre(nav, c);
            tot->cells++;
            if (st == CS_NAV_SOLID) {
                cr_assert_eq(a, CS_NAV_NONE, "%s: solid cell %u has anchor %u", what, c, a);
                continue;
            }
            cr_assert_eq(isinf(dr[c]), isinf(dw[c]),
                         "%s: cell %u (%.2f, %.2f, state %d): way %g repaired, %g whole", what, c,
                         (double)p.x, (double)p.y, st, dr[c], dw[c]);
            if (a == CS_NAV_NONE) continue;
            if (a < CS_NAV_TARGET) { // marked a stand-in exactly when its anchor is one
                const uint32_t x = a & ~CS_NAV_STAND_IN;
                cr_assert_eq(
                    a & CS_NAV_STAND_IN ? 1 : 0, f->anchor[x] == (x | CS_NAV_STAND_IN) ? 1 : 0,
                    "%s: cell %u: anchor %x, the anchor's own %x", what, c, a, f->anchor[x]);
                stand_in_cells += (a & CS_NAV_STAND_IN) != 0;
            }
            if (st == CS_NAV_NEAR) {
                cr_assert_lt(a, CS_NAV_TARGET);
                const crowd_vec2 q = centre(nav, a & ~CS_NAV_STAND_IN);
                cr_assert_leq(hypot((double)p.x - q.x, (double)p.y - q.y), h * 1.001,
                              "%s: near cell %u points to %u, not a neighbor", what, c, a);
                cr_assert_neq(nav->blocked[a & ~CS_NAV_STAND_IN], CS_NAV_SOLID);
                continue;
            }
            tot->checked++;
            const uint32_t ac = a & ~CS_NAV_STAND_IN;
            const crowd_vec2 q =
                a >= CS_NAV_TARGET ? cs_nav_target(&t, (int)(a - CS_NAV_TARGET)) : centre(nav, ac);
            if (a < CS_NAV_TARGET)
                cr_assert_eq(nav->blocked[ac], CS_NAV_FREE,
                             "%s: cell %u (%.2f, %.2f) anchors at cell %u of state %d", what, c,
                             (double)p.x, (double)p.y, ac, nav->blocked[ac]);
            const double cl = clearance_of(&s, p.x, p.y, q.x, q.y);
            touch_r += !(cl > 0.0);
            near_r += cl < half * (1.0 - 1e-4);
            const uint32_t b = whole[c];
            if (b != CS_NAV_NONE) {
                const crowd_vec2 qw = b >= CS_NAV_TARGET
                                          ? cs_nav_target(&t, (int)(b - CS_NAV_TARGET))
                                          : centre(nav, b & ~CS_NAV_STAND_IN);
                const double cw = clearance_of(&s, p.x, p.y, qw.x, qw.y);
                near_w += cw < half * (1.0 - 1e-4);
                touch_w += !(cw > 0.0);
            }
            cr_assert_leq(dr[c], dw[c] * 1.01 + 2.0 * h,
                          "%s: cell %u (%.2f, %.2f): %.3f repaired, %.3f whole", what, c,
                          (double)p.x, (double)p.y, dr[c], dw[c]);
            cr_assert_geq(dr[c], dw[c] * 0.99 - 2.0 * h,
                          "%s: cell %u (%.2f, %.2f): %.3f repaired, %.3f whole", what, c,
                          (double)p.x, (double)p.y, dr[c], dw[c]);
            if (isfinite(d8[c]))
                cr_assert_geq(dr[c], d8[c] / 1.0824 - 2.0 * h,
                              "%s: cell %u: %.3f shorter than the grid's %.3f allows", what, c,
                              dr[c], d8[c]);
            if (before && before[fi] && isfinite(before[fi][c]))
                cr_assert_leq(dr[c], before[fi][c] * 1.01 + 2.0 * h,
                              "%s: cell %u: %.3f after the wall came and went, %.3f before", what,
                              c, dr[c], before[fi][c]);
            if (dw[c] > 1.0) {
                const double rel = (dr[c] - dw[c]) / dw[c];
                tot->worst_rel = rel > tot->worst_rel ? rel : tot->worst_rel;
            }
        }
        // The build's local sight test (a line whose first cells carry its anchor) lets a few
        // lines pass the end of a wall closer than half the clearance, some even across its tip:
        // a whole build has them too, and the repair, which solves cells with the same test, may
        // not have more than a few more.
        cr_assert_leq(near_r, near_w + near_w / 10 + 4,
                      "%s: %lld lines pass closer than half the clearance, a whole build's %lld",
                      what, (long long)near_r, (long long)near_w);
        cr_assert_leq(touch_r, touch_w + touch_w / 10 + 2,
                      "%s: %lld lines touch a wall, a whole build's %lld", what, (long long)touch_r,
                      (long long)touch_w);
        tot->near_r += near_r, tot->near_w += near_w;
        tot->stand_in_cells += f->repaired ? stand_in_cells : 0;
        tot->touch_r += touch_r, tot->touch_w += touch_w;
        ++fi;
    }
    free(whole), free(dr), free(dw), free(d8);
}

// The distances of each field in use, in field order (for check_fields' `before`).
static int snapshot_distances(crowd_world* w, double** out) {
    cs_nav* nav = &w->nav;
    int k = 0;
    for (uint32_t i = 0; i < nav->nfields; ++i) {
        cs_nav_field* f = &nav->fields[i];
        if (f->users == 0) continue;
        out[k] = malloc(sizeof(double) * nav->cells);
        distances(nav, f->key, f->anchor, out[k]);
        ++k;
    }
    return k;
}

// ---- scenes -------------------------------------------------------------------------------------

static crowd_vec2 rpoint(scene* sc, float lo, float hi) {
    return (crowd_vec2){frand(&sc->rng, lo, hi), frand(&sc->rng, lo, hi)};
}

// A 40 m square with posts at its corners (so walls added inside keep the grid's box), random
// walls and blocks, and `ndest` destinations with an agent each.
static void scene_make(scene* sc, uint64_t seed, int threads, int ndest) {
    *sc = (scene){.rng = seed};
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = threads;
    cr_assert_eq(crowd_world_create(&wd, &sc->w), CROWD_OK);
    if (seed % 2 == 0) {
        // A closed frame round everything: the open ground outside is walled off from every
        // destination (a stand-in region in every field).
        const crowd_vec2 frame[5] = {{1, 1}, {39, 1}, {39, 39}, {1, 39}, {1, 1}};
        wall_add(sc->w, CROWD_OBSTACLE_WALL, frame, 5);
    }
    const float post = 0.4f;
    for (int k = 0; k < 4; ++k) {
        const float x = k & 1 ? 40.0f : 0.0f, y = k & 2 ? 40.0f : 0.0f;
        const crowd_vec2 p[4] = {{x, y}, {x + post, y}, {x + post, y + post}, {x, y + post}};
        wall_add(sc->w, CROWD_OBSTACLE_POLYGON, p, 4);
    }
    for (int k = 0; k < 7; ++k) {
        const crowd_vec2 a = rpoint(sc, 3.0f, 37.0f);
        const float ang = frand(&sc->rng, 0.0f, 6.2831853f), len = frand(&sc->rng, 3.0f, 12.0f);
        crowd_vec2 p[2] = {a, {a.x + len * cosf(ang), a.y + len * sinf(ang)}};
        p[1].x = fminf(fmaxf(p[1].x, 2.0f), 38.0f), p[1].y = fminf(fmaxf(p[1].y, 2.0f), 38.0f);
        wall_add(sc->w, CROWD_OBSTACLE_WALL, p, 2);
    }
    for (int k = 0; k < 2; ++k) {
        const crowd_vec2 c = rpoint(sc, 6.0f, 34.0f);
        const float hx = frand(&sc->rng, 0.8f, 3.0f), hy = frand(&sc->rng, 0.8f, 3.0f);
        const crowd_vec2 p[4] = {
            {c.x - hx, c.y - hy}, {c.x + hx, c.y - hy}, {c.x + hx, c.y + hy}, {c.x - hx, c.y + hy}};
        wall_add(sc->w, CROWD_OBSTACLE_POLYGON, p, 4);
    }
    sc->ndest = ndest;
    for (int d = 0; d < ndest; ++d) {
        sc->dest[d] = rpoint(sc, 2.0f, 38.0f);
        crowd_agent_def a = crowd_agent_def_default();
        a.goal = arrive_at(sc->dest[d]);
        crowd_agent_id id;
        crowd_status st;
        int tries = 0;
        do { // somewhere no wall covers
            a.position = rpoint(sc, 2.0f, 38.0f);
            st = crowd_agent_add(sc->w, &a, &id);
        } while (st != CROWD_OK && ++tries < 100);
        cr_assert_eq(st, CROWD_OK);
    }
    cr_assert_eq(crowd_world_nav_update(sc->w), CROWD_OK);
}

// A random wall of 2 to 9 m inside the square (where no agent stands in its way).
static crowd_obstacle_id random_wall(scene* sc) {
    for (int tries = 0; tries < 200; ++tries) {
        const crowd_vec2 a = rpoint(sc, 4.0f, 36.0f);
        const float ang = frand(&sc->rng, 0.0f, 6.2831853f), len = frand(&sc->rng, 2.0f, 9.0f);
        crowd_vec2 p[2] = {a, {a.x + len * cosf(ang), a.y + len * sinf(ang)}};
        p[1].x = fminf(fmaxf(p[1].x, 3.0f), 37.0f), p[1].y = fminf(fmaxf(p[1].y, 3.0f), 37.0f);
        crowd_obstacle_id id;
        if (crowd_obstacle_add(sc->w, CROWD_OBSTACLE_WALL, p, 2, &id) == CROWD_OK) return id;
    }
    cr_assert_fail("no room for a wall");
    return (crowd_obstacle_id){0};
}

static void update(crowd_world* w) {
    cr_assert_eq(crowd_world_nav_update(w), CROWD_OK);
}

Test(nav_repair, random_scenes_repair_within_the_bound_of_a_whole_build) {
    totals tot = {0};
    int64_t updates = 0;
    for (uint64_t seed = 1; seed <= 10; ++seed) {
        scene sc;
        scene_make(&sc, seed * 7919, 1, 3);
        char what[96];
        for (int round = 0; round < 4; ++round) {
            double* before[MAX_DESTS] = {NULL};
            snapshot_distances(sc.w, before);
            const crowd_obstacle_id id = random_wall(&sc);
            update(sc.w);
            snprintf(what, sizeof what, "seed %llu round %d, wall added", (unsigned long long)seed,
                     round);
            check_fields(sc.w, what, &tot, NULL);
            if (round % 2 == 0) { // two changes in one route phase
                const crowd_obstacle_id id2 = random_wall(&sc);
                cr_assert_eq(crowd_obstacle_remove(sc.w, id2), CROWD_OK);
            }
            cr_assert_eq(crowd_obstacle_remove(sc.w, id), CROWD_OK);
            update(sc.w);
            snprintf(what, sizeof what, "seed %llu round %d, wall removed",
                     (unsigned long long)seed, round);
            check_fields(sc.w, what, &tot, before);
            for (int k = 0; k < MAX_DESTS; ++k) free(before[k]);
            random_wall(&sc); // one that stays
            update(sc.w);
            snprintf(what, sizeof what, "seed %llu round %d, wall kept", (unsigned long long)seed,
                     round);
            check_fields(sc.w, what, &tot, NULL);
            updates += 3;
        }
        crowd_world_destroy(sc.w);
    }
    printf("repairs: %lld fields repaired over %lld updates, %lld cells solved again of %lld "
           "(%.2f%%), worst distance against a whole build %+.2f%%, lines within half the "
           "clearance %lld (whole builds %lld), touching a wall %lld (%lld)\n",
           (long long)tot.repairs, (long long)updates, (long long)tot.resolved,
           (long long)tot.cells, 100.0 * (double)tot.resolved / (double)tot.cells,
           100.0 * tot.worst_rel, (long long)tot.near_r, (long long)tot.near_w,
           (long long)tot.touch_r, (long long)tot.touch_w);
    cr_assert_gt(tot.repairs, updates, "the fields were built whole, not repaired");
    cr_assert_gt(tot.stand_in_cells, 0, "no field with stand-ins was repaired");
}

// The anchors of every field in use, in field order, one after the other.
static uint32_t* all_anchors(const crowd_world* w, size_t* count) {
    const cs_nav* nav = &w->nav;
    size_t n = 0;
    for (uint32_t i = 0; i < nav->nfields; ++i) n += nav->fields[i].users > 0 ? nav->cells : 0;
    uint32_t* out = malloc(sizeof *out * (n ? n : 1));
    size_t at = 0;
    for (uint32_t i = 0; i < nav->nfields; ++i) {
        if (nav->fields[i].users == 0) continue;
        memcpy(out + at, nav->fields[i].anchor, sizeof *out * nav->cells);
        at += nav->cells;
    }
    *count = n;
    return out;
}

Test(nav_repair, repaired_fields_are_identical_on_1_and_2_threads) {
    for (uint64_t seed = 1; seed <= 4; ++seed) {
        scene a, b;
        scene_make(&a, seed * 104729, 1, 4);
        scene_make(&b, seed * 104729, 2, 4);
        for (int round = 0; round < 4; ++round) {
            const crowd_obstacle_id ia = random_wall(&a), ib = random_wall(&b);
            if (round % 2) {
                cr_assert_eq(crowd_obstacle_remove(a.w, ia), CROWD_OK);
                cr_assert_eq(crowd_obstacle_remove(b.w, ib), CROWD_OK);
            }
            update(a.w);
            update(b.w);
            size_t na, nb;
            uint32_t* fa = all_anchors(a.w, &na);
            uint32_t* fb = all_anchors(b.w, &nb);
            cr_assert_eq(na, nb);
            cr_assert(memcmp(fa, fb, sizeof *fa * na) == 0, "seed %llu round %d: the fields differ",
                      (unsigned long long)seed, round);
            free(fa), free(fb);
        }
        cr_assert_gt(a.w->nav.repairs, 0u, "seed %llu: nothing was repaired",
                     (unsigned long long)seed);
        crowd_world_destroy(a.w);
        crowd_world_destroy(b.w);
    }
}

// A room whose door a wall closes: its cells are walled off from the goal outside, which a repair
// does not vouch for; the field is built whole (with a stand-in inside) and matches a build.
Test(nav_repair, a_door_closed_builds_the_field_whole) {
    crowd_world* w = world_with(1);
    const crowd_vec2 room[6] = {{10, 14}, {10, 10}, {20, 10}, {20, 20}, {10, 20}, {10, 16}};
    wall_add(w, CROWD_OBSTACLE_WALL, room, 6); // a door from (10, 14) to (10, 16)
    crowd_agent_def a = crowd_agent_def_default();
    a.position = (crowd_vec2){15, 15};
    a.goal = arrive_at((crowd_vec2){2, 15});
    crowd_agent_id id;
    cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_OK);
    update(w);
    const uint64_t builds = w->nav.builds;
    const crowd_vec2 door[2] = {{10, 13.5f}, {10, 16.5f}};
    const crowd_obstacle_id d = wall_add(w, CROWD_OBSTACLE_WALL, door, 2);
    update(w);
    cr_assert_eq(w->nav.builds, builds + 1, "the field was not built whole");
    totals tot = {0};
    check_fields(w, "door closed", &tot, NULL);
    crowd_route_info r;
    cr_assert_eq(crowd_agent_get_route(w, id, &r), CROWD_OK);
    cr_assert_eq(r.state, CROWD_ROUTE_STATE_UNREACHABLE);
    // Open again: the stand-in goes, again by a whole build.
    cr_assert_eq(crowd_obstacle_remove(w, d), CROWD_OK);
    update(w);
    cr_assert_eq(w->nav.builds, builds + 2);
    check_fields(w, "door opened", &tot, NULL);
    cr_assert_eq(crowd_agent_get_route(w, id, &r), CROWD_OK);
    cr_assert_eq(r.state, CROWD_ROUTE_STATE_ROUTED);
    // A wall inside the room, away from everything: a repair.
    const crowd_vec2 inner[2] = {{13, 18}, {17, 18}};
    wall_add(w, CROWD_OBSTACLE_WALL, inner, 2);
    update(w);
    cr_assert_eq(w->nav.builds, builds + 2, "the inner wall was not repaired");
    cr_assert_eq(w->nav.repairs, 1u);
    check_fields(w, "inner wall", &tot, NULL);
    crowd_world_destroy(w);
}

// The benchmark's case at a smaller scale (bench/bench_nav.cc, BM_NavRepair): a town of solid
// blocks on a 20 m street grid, destinations on its crossings, and a 10 m wall that closes a
// street by the middle, added and removed again; each repair is checked, and so is each later
// one (the repairs start from repaired fields).
Test(nav_repair, a_street_closed_and_opened_in_a_town) {
    crowd_world* w = world_with(2);
    const int blocks = 8;
    const float pitch = 20.0f, origin = -(float)blocks * pitch * 0.5f;
    const float half = scene_town_block() * 0.5f;
    for (int i = 0; i < blocks; ++i)
        for (int j = 0; j < blocks; ++j) {
            const float cx = origin + ((float)i + 0.5f) * pitch,
                        cy = origin + ((float)j + 0.5f) * pitch;
            const crowd_vec2 p[4] = {{cx - half, cy - half},
                                     {cx + half, cy - half},
                                     {cx + half, cy + half},
                                     {cx - half, cy + half}};
            wall_add(w, CROWD_OBSTACLE_POLYGON, p, 4);
        }
    const int dests[4][2] = {{1, 1}, {7, 2}, {2, 6}, {6, 7}};
    for (int d = 0; d < 4; ++d) {
        crowd_agent_def a = crowd_agent_def_default();
        a.position = (crowd_vec2){origin + (float)d * pitch, origin};
        a.goal = arrive_at(
            (crowd_vec2){origin + (float)dests[d][0] * pitch, origin + (float)dests[d][1] * pitch});
        crowd_agent_id id;
        cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_OK);
    }
    update(w);
    const float street = -pitch * 0.5f;
    const crowd_vec2 wall[2] = {{street - 5.0f, 0.0f}, {street + 5.0f, 0.0f}};
    totals tot = {0};
    const uint64_t builds = w->nav.builds;
    for (int round = 0; round < 3; ++round) {
        double* before[MAX_DESTS] = {NULL};
        snapshot_distances(w, before);
        const crowd_obstacle_id id = wall_add(w, CROWD_OBSTACLE_WALL, wall, 2);
        update(w);
        check_fields(w, "street closed", &tot, NULL);
        cr_assert_gt(w->nav.last_repair_cells, 0);
        cr_assert_eq(crowd_obstacle_remove(w, id), CROWD_OK);
        update(w);
        check_fields(w, "street opened", &tot, before);
        for (int k = 0; k < MAX_DESTS; ++k) free(before[k]);
    }
    cr_assert_eq(w->nav.builds, builds, "a field was built whole");
    printf("town: %lld cells solved again over %lld field repairs (%.2f%% of the grid each), worst "
           "%+.2f%% against a whole build\n",
           (long long)tot.resolved, (long long)tot.repairs,
           100.0 * (double)tot.resolved / (double)tot.repairs / (double)w->nav.cells,
           100.0 * tot.worst_rel);
    crowd_world_destroy(w);
}

// ---- snapshots of repaired fields
// -----------------------------------------------------------------

typedef struct blob {
    uint8_t* p;
    size_t n;
} blob;

static blob save_world(const crowd_world* w) {
    blob b = {NULL, crowd_world_save_size(w)};
    b.p = malloc(b.n);
    size_t n = 0;
    cr_assert_eq(crowd_world_save(w, b.p, b.n, &n), CROWD_OK);
    cr_assert_eq(n, b.n);
    return b;
}

static crowd_world* load_world(const blob* b) {
    crowd_world* w = NULL;
    cr_assert_eq(crowd_world_load(b->p, b->n, NULL, &w), CROWD_OK);
    return w;
}

static uint64_t rd_le(const uint8_t* p, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

// The payload offset and length of section `id`.
static size_t section_in(const blob* b, const char id[4], size_t* len) {
    const uint32_t sections = (uint32_t)rd_le(b->p + 12, 4);
    for (uint32_t k = 0; k < sections; ++k)
        if (memcmp(b->p + 24 + 24 * (size_t)k, id, 4) == 0) {
            *len = (size_t)rd_le(b->p + 24 + 24 * (size_t)k + 16, 8);
            return (size_t)rd_le(b->p + 24 + 24 * (size_t)k + 8, 8);
        }
    cr_assert_fail("no section %.4s", id);
    return 0;
}

static void same_bytes(const blob* a, const blob* b, const char* what) {
    cr_assert(a->n == b->n && memcmp(a->p, b->p, a->n) == 0, "%s: the snapshots differ", what);
}

static void step_both(crowd_world* a, crowd_world* b, int ticks, const char* what) {
    for (int t = 0; t < ticks; ++t) {
        cr_assert_eq(crowd_world_step(a), CROWD_OK);
        cr_assert_eq(crowd_world_step(b), CROWD_OK);
        cr_assert_eq(crowd_world_state_hash(a), crowd_world_state_hash(b), "%s: tick %d", what, t);
    }
}

// A scene with a crowd heading for its destinations, stepped a little.
static void crowd_scene(scene* sc, uint64_t seed) {
    scene_make(sc, seed, 2, 3);
    for (int i = 0; i < 30; ++i) {
        crowd_agent_def a = crowd_agent_def_default();
        a.goal = arrive_at(sc->dest[i % sc->ndest]);
        crowd_agent_id id;
        for (int tries = 0; tries < 100; ++tries) {
            a.position = rpoint(sc, 2.0f, 38.0f);
            if (crowd_agent_add(sc->w, &a, &id) == CROWD_OK) break;
        }
    }
    for (int t = 0; t < 10; ++t) cr_assert_eq(crowd_world_step(sc->w), CROWD_OK);
}

// Saved after repairs (the repaired fields in 'NAVF'), and saved with a repair pending (the grid
// before the change, the change and every field): the loaded world saves the same bytes and
// continues bit-identically, through further changes.
Test(nav_repair, snapshots_continue_bit_identically_after_a_repair) {
    int saved_fields = 0;
    for (uint64_t seed = 3; seed <= 6; ++seed) {
        scene sc;
        crowd_scene(&sc, seed * 31337);
        for (int phase = 0; phase < 2; ++phase) {
            const crowd_obstacle_id id = random_wall(&sc);
            if (phase == 0) { // repaired in the step, then saved
                for (int t = 0; t < 3; ++t) cr_assert_eq(crowd_world_step(sc.w), CROWD_OK);
            }
            // phase 1: saved with the repair pending
            blob b = save_world(sc.w);
            size_t len;
            section_in(&b, "NAVF", &len);
            saved_fields += len > 4;
            crowd_world* l = load_world(&b);
            blob again = save_world(l);
            same_bytes(&b, &again, phase ? "pending, loaded" : "repaired, loaded");
            free(again.p);
            step_both(sc.w, l, 40, phase ? "repair pending" : "repaired");
            // A change after the load, to both: repaired alike.
            crowd_obstacle_id lid;
            crowd_obstacle_id oid = random_wall(&sc);
            crowd_obstacle_kind kind;
            crowd_vec2 pts[2];
            int count;
            cr_assert_eq(crowd_obstacle_get_points(sc.w, oid, &kind, pts, 2, &count), CROWD_OK);
            cr_assert_eq(crowd_obstacle_add(l, kind, pts, count, &lid), CROWD_OK);
            cr_assert_eq(crowd_obstacle_remove(sc.w, id), CROWD_OK);
            cr_assert_eq(crowd_obstacle_remove(l, id), CROWD_OK);
            step_both(sc.w, l, 40, "changed after the load");
            blob x = save_world(sc.w), y = save_world(l);
            same_bytes(&x, &y, "after the change");
            free(x.p), free(y.p), free(b.p);
            crowd_world_destroy(l);
        }
        crowd_world_destroy(sc.w);
    }
    cr_assert_geq(saved_fields, 4, "too few snapshots held fields");
}

// Every goal of the world in the spec's form, the only one a version 5 snapshot holds.
static void literal_goals(crowd_world* w) {
    static crowd_agent_id ids[4096];
    int n = 0;
    cr_assert_eq(crowd_world_get_agents(w, ids, NULL, NULL, 4096, &n), CROWD_OK);
    for (int i = 0; i < n; ++i) {
        crowd_agent_def d;
        cr_assert_eq(crowd_agent_get_def(w, ids[i], &d), CROWD_OK);
        if (d.goal.mode == CROWD_GOAL_NONE) continue;
        d.goal.form = CROWD_GOAL_FORM_LITERAL;
        cr_assert_eq(crowd_agent_set_goal(w, ids[i], &d.goal), CROWD_OK);
    }
}

// A version 5 snapshot (no 'NAVF') of a world without repaired fields loads and continues as the
// world does; a world with repaired fields has no version 5 form.
Test(nav_repair, version_5_snapshots_load_without_fields) {
    scene sc;
    crowd_scene(&sc, 4242);
    literal_goals(sc.w);
    blob b = save_world(sc.w);
    uint8_t* old;
    size_t n;
    cr_assert(snapshot_downgrade(b.p, b.n, 5, &old, &n));
    blob v5 = {old, n};
    cr_assert_eq(rd_le(v5.p + 8, 4), 5);
    crowd_world* l = load_world(&v5);
    step_both(sc.w, l, 30, "version 5");
    crowd_world_destroy(l);
    free(b.p), free(v5.p);
    random_wall(&sc);
    cr_assert_eq(crowd_world_step(sc.w), CROWD_OK);
    b = save_world(sc.w);
    size_t len;
    section_in(&b, "NAVF", &len);
    cr_assert_gt(len, 4, "no field was repaired");
    cr_assert_not(snapshot_downgrade(b.p, b.n, 5, &old, &n));
    free(b.p);
    crowd_world_destroy(sc.w);
}

// Damaged 'NAVF' content is refused, creating nothing.
static void reseal_blob(blob* b) {
    for (int i = 0; i < 8; ++i) b->p[16 + i] = (uint8_t)((uint64_t)b->n >> (8 * i));
    const uint64_t crc = cs_crc64(b->p, b->n - 8);
    for (int i = 0; i < 8; ++i) b->p[b->n - 8 + i] = (uint8_t)(crc >> (8 * i));
}

static void put_le(uint8_t* p, int n, uint64_t v) {
    for (int i = 0; i < n; ++i) p[i] = (uint8_t)(v >> (8 * i));
}

Test(nav_repair, damaged_field_content_is_refused) {
    scene sc;
    crowd_scene(&sc, 777);
    random_wall(&sc);
    cr_assert_eq(crowd_world_step(sc.w), CROWD_OK);
    blob b = save_world(sc.w);
    size_t len;
    const size_t at = section_in(&b, "NAVF", &len);
    cr_assert_gt(len, 4);
    // form, gx0, gy0, gw, gh, grid runs count, first run length, first run value
    const size_t edits[][2] = {
        {0, 2},  // form 2
        {4, 1},  // gx0 moved: not the obstacles' box
        {12, 0}, // gw 0
        {20, 0}, // no grid runs
        {24, 0}, // a run of length 0
        {28, 3}, // a cell state beyond SOLID
        {20, 1}, // one run for the whole grid: the lengths no longer add up
    };
    for (size_t k = 0; k < sizeof edits / sizeof edits[0]; ++k) {
        blob c = {malloc(b.n), b.n};
        memcpy(c.p, b.p, b.n);
        put_le(c.p + at + edits[k][0], 4, edits[k][1]);
        cr_assert_neq(memcmp(c.p, b.p, b.n), 0, "edit %zu changed nothing", k);
        reseal_blob(&c);
        crowd_world* w = NULL;
        const crowd_status st = crowd_world_load(c.p, c.n, NULL, &w);
        cr_assert_neq(st, CROWD_OK, "edit %zu was loaded", k);
        cr_assert_null(w);
        free(c.p);
    }
    // The fields' part: the last run of the last field names a cell beyond the grid.
    {
        blob c = {malloc(b.n), b.n};
        memcpy(c.p, b.p, b.n);
        put_le(c.p + at + len - 4, 4, 0x3fffffffu);
        reseal_blob(&c);
        crowd_world* w = NULL;
        cr_assert_eq(crowd_world_load(c.p, c.n, NULL, &w), CROWD_ERR_SNAPSHOT_CORRUPT);
        free(c.p);
    }
    // The first two runs of the first field made to anchor at each other: a loop of anchors.
    {
        blob c = {malloc(b.n), b.n};
        memcpy(c.p, b.p, b.n);
        size_t q = at + 4 + 16;
        q += 4 + 8 * rd_le(c.p + q, 4);  // the grid's runs
        q += 4 + 20 * rd_le(c.p + q, 4); // the changes
        q += 4 + 8 + 4;                  // the field count, the first key and flags
        cr_assert_geq(rd_le(c.p + q, 4), 3, "the first field has too few runs");
        const uint32_t l1 = (uint32_t)rd_le(c.p + q + 4, 4);
        cr_assert_neq(rd_le(c.p + q + 4 + 16 + 4, 4), 0, "the third run would repeat the second");
        put_le(c.p + q + 4 + 4, 4, l1); // cells [0, l1) anchor at cell l1
        put_le(c.p + q + 4 + 12, 4, 0); // and the next run's at cell 0
        reseal_blob(&c);
        crowd_world* w = NULL;
        cr_assert_eq(crowd_world_load(c.p, c.n, NULL, &w), CROWD_ERR_SNAPSHOT_CORRUPT);
        free(c.p);
    }
    // Cut anywhere in the section: refused.
    for (size_t cut = at; cut < at + len; cut += len / 7 + 1) {
        crowd_world* w = NULL;
        cr_assert_neq(crowd_world_load(b.p, cut, NULL, &w), CROWD_OK);
    }
    free(b.p);
    crowd_world_destroy(sc.w);
}
