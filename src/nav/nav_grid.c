// The navigation grid: which cells routes may pass through.
//
// A cell is NEAR when its centre lies within the clearance of a wall segment (an obstacle's edge)
// and SOLID when its centre is inside a polygon and not NEAR; the rest are FREE. Routes run
// through FREE cells only. Since the clearance exceeds half a cell, no wall passes between two
// FREE cells that are neighbors (a diagonal step also needs both cells beside it FREE), so a way
// from cell to cell never crosses a wall.
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "nav/nav.h"

// Open ground the grid keeps around the obstacles beyond the clearance: NAV_MARGIN metres and a
// quarter of the obstacles' extent, at most NAV_MARGIN_MAX more. Outside the grid agents head
// straight for their goals; the wider the margin, the sooner one whose straight line meets a wall
// turns toward the way round it rather than toward the wall.
#define NAV_MARGIN 4.0f
#define NAV_MARGIN_MAX 16.0f

cs_nav_box cs_nav_grid_box(const cs_nav* nav, float x0, float y0, float x1, float y1) {
    const float extent = fmaxf(x1 - x0, y1 - y0);
    const float m = nav->def.clearance + NAV_MARGIN + fminf(0.25f * extent, NAV_MARGIN_MAX) +
                    2.0f * nav->def.cell_size;
    const int64_t i0 = cs_nav_quantize(x0 - m, nav->inv_cell);
    const int64_t j0 = cs_nav_quantize(y0 - m, nav->inv_cell);
    const int64_t i1 = cs_nav_quantize(x1 + m, nav->inv_cell);
    const int64_t j1 = cs_nav_quantize(y1 + m, nav->inv_cell);
    return (cs_nav_box){(int32_t)i0, (int32_t)j0, (int32_t)(i1 - i0 + 1), (int32_t)(j1 - j0 + 1)};
}

// Cells whose centre lies within the clearance of segment a-b: NEAR.
static void mark_segment(cs_nav* nav, crowd_vec2 a, crowd_vec2 b) {
    const float r = nav->def.clearance, h = nav->def.cell_size;
    const float r2 = r * r;
    int64_t i0 = (int64_t)cs_nav_quantize(fminf(a.x, b.x) - r, nav->inv_cell) - nav->gx0 - 1;
    int64_t i1 = (int64_t)cs_nav_quantize(fmaxf(a.x, b.x) + r, nav->inv_cell) - nav->gx0 + 1;
    int64_t j0 = (int64_t)cs_nav_quantize(fminf(a.y, b.y) - r, nav->inv_cell) - nav->gy0 - 1;
    int64_t j1 = (int64_t)cs_nav_quantize(fmaxf(a.y, b.y) + r, nav->inv_cell) - nav->gy0 + 1;
    i0 = i0 < 0 ? 0 : i0;
    j0 = j0 < 0 ? 0 : j0;
    i1 = i1 >= nav->gw ? nav->gw - 1 : i1;
    j1 = j1 >= nav->gh ? nav->gh - 1 : j1;
    // Distances in double: a segment far from the origin keeps its sub-millimetre offsets.
    const double abx = (double)b.x - a.x, aby = (double)b.y - a.y;
    const double len2 = abx * abx + aby * aby;
    for (int64_t j = j0; j <= j1; ++j) {
        const double cy = ((double)(nav->gy0 + j) + 0.5) * h;
        uint8_t* row = nav->blocked + (size_t)j * (size_t)nav->gw;
        for (int64_t i = i0; i <= i1; ++i) {
            const double cx = ((double)(nav->gx0 + i) + 0.5) * h;
            double t = len2 > 0.0 ? ((cx - a.x) * abx + (cy - a.y) * aby) / len2 : 0.0;
            t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
            const double dx = a.x + abx * t - cx, dy = a.y + aby * t - cy;
            if (dx * dx + dy * dy < (double)r2) row[i] = CS_NAV_NEAR;
        }
    }
}

static int cmp_double(const void* a, const void* b) {
    const double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

// Cells whose centre is inside polygon pts[0..n) and not NEAR: SOLID. One scan line per row of
// cell centres: the crossings of the edges (each edge half-open in y, so a vertex on the line
// counts once), sorted, fill between pairs. `xs` holds n doubles.
static void fill_polygon(cs_nav* nav, const cs_obstacle* o, double* xs) {
    const float h = nav->def.cell_size;
    int64_t j0 = (int64_t)cs_nav_quantize(o->y0, nav->inv_cell) - nav->gy0 - 1;
    int64_t j1 = (int64_t)cs_nav_quantize(o->y1, nav->inv_cell) - nav->gy0 + 1;
    j0 = j0 < 0 ? 0 : j0;
    j1 = j1 >= nav->gh ? nav->gh - 1 : j1;
    const int n = o->count;
    for (int64_t j = j0; j <= j1; ++j) {
        const double cy = ((double)(nav->gy0 + j) + 0.5) * h;
        int m = 0;
        for (int k = 0; k < n; ++k) {
            const crowd_vec2 a = o->points[k], b = o->points[k + 1 == n ? 0 : k + 1];
            if ((a.y <= cy) == (b.y <= cy)) continue;
            xs[m++] = a.x + (cy - a.y) * ((double)b.x - a.x) / ((double)b.y - a.y);
        }
        qsort(xs, (size_t)m, sizeof *xs, cmp_double);
        uint8_t* row = nav->blocked + (size_t)j * (size_t)nav->gw;
        for (int p = 0; p + 1 < m; p += 2) {
            // Centres x with xs[p] < x < xs[p + 1]: i from ceil(xs[p] / h - 0.5 - gx0).
            int64_t i0 = (int64_t)ceil(xs[p] / h - 0.5) - nav->gx0;
            int64_t i1 = (int64_t)floor(xs[p + 1] / h - 0.5) - nav->gx0;
            i0 = i0 < 0 ? 0 : i0;
            i1 = i1 >= nav->gw ? nav->gw - 1 : i1;
            for (int64_t i = i0; i <= i1; ++i)
                if (row[i] == CS_NAV_FREE) row[i] = CS_NAV_SOLID;
        }
    }
}

static void fill_polygons(const crowd_world* w, cs_nav* nav, int32_t most);

void cs_nav_grid_lay(const crowd_world* w, cs_nav* nav) {
    memset(nav->blocked, CS_NAV_FREE, nav->cells);
    const cs_walls* g = &w->walls;
    int32_t most = 0;
    for (int32_t oi = 0; oi < g->obs_used; ++oi) {
        const cs_obstacle* o = &g->obs[oi];
        if (!o->points) continue;
        const int segs = cs_obstacle_segments(o);
        for (int k = 0; k < segs; ++k)
            mark_segment(nav, o->points[k], o->points[k + 1 == o->count ? 0 : k + 1]);
        if (o->kind == CROWD_OBSTACLE_POLYGON && o->count > most) most = o->count;
    }
    if (most > 0) fill_polygons(w, nav, most);
    // Open cells: FREE, and so are their eight neighbors (the outside counts as FREE).
    for (int32_t j = 0; j < nav->gh; ++j)
        for (int32_t i = 0; i < nav->gw; ++i) {
            bool open = true;
            for (int32_t dj = -1; dj <= 1 && open; ++dj)
                for (int32_t di = -1; di <= 1 && open; ++di) {
                    const int32_t x = i + di, y = j + dj;
                    if (x < 0 || y < 0 || x >= nav->gw || y >= nav->gh) continue;
                    open = nav->blocked[(size_t)y * (size_t)nav->gw + (size_t)x] == CS_NAV_FREE;
                }
            nav->open[(size_t)j * (size_t)nav->gw + (size_t)i] = open;
        }
}

static void fill_polygons(const crowd_world* w, cs_nav* nav, int32_t most) {
    const cs_walls* g = &w->walls;
    // The scan lines' crossings: on the stack for the usual polygon, else from the heap. Laying
    // the grid is the one place that needs it; a failed allocation is caught before (the route
    // phase reserves it with the grid, see nav_cache.c).
    double local[256];
    double* xs = most <= 256 ? local : nav->poly_xs;
    for (int32_t oi = 0; oi < g->obs_used; ++oi) {
        const cs_obstacle* o = &g->obs[oi];
        if (o->points && o->kind == CROWD_OBSTACLE_POLYGON) fill_polygon(nav, o, xs);
    }
}
