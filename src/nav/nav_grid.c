// The navigation grid: which cells routes may pass through.
//
// A cell is NEAR when its centre lies within the clearance of a wall segment (an obstacle's edge)
// and SOLID when its centre is inside a polygon and not NEAR; the rest are FREE. Routes run
// through FREE cells only. Since the clearance exceeds half a cell, no wall passes between two
// FREE cells that are neighbors (a diagonal step also needs both cells beside it FREE), so a way
// from cell to cell never crosses a wall.
//
// The centre test alone closes doors that an agent fits through: a door of width w leaves a band
// w - 2 * clearance wide for the centres, narrower than a cell below 2 * clearance + cell size,
// and when no centre falls into it the door is closed. So a short straight run of NEAR cells
// (open_pinches) between two FREE cells, in a row or a column, whose centres' segment keeps
// clearance - cell size / 2 from every wall (the least a door of 2 * clearance leaves a row of
// centres, wherever the grid lies) and which has walls close on both sides (no FREE cell beside
// it: a gap, not the side of a wall) is made FREE. A corridor narrow enough that both rows of
// centres across it are NEAR is opened the same way, cell by cell (passages). Routes through
// such a pinch pass closer than the clearance; the agents' own wall avoidance keeps them off the
// jambs.
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
static void open_pinches(const crowd_world* w, cs_nav* nav);

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
    open_pinches(w, nav);
    cs_nav_grid_open(nav);
}

// Open cells: FREE, and so are their eight neighbors (the outside counts as FREE).
void cs_nav_grid_open(cs_nav* nav) {
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

// Marks of open_pinches while it runs, in nav->blocked: a NEAR cell of an accepted run, one of a
// corridor's cross-section (passages), and one of those found to be across a wall from a FREE or
// pinch neighbor (it stays NEAR).
#define NAV_PINCH 3
#define NAV_PINCH_NO 4
#define NAV_PASSAGE 5

static inline uint8_t grid_at(const cs_nav* nav, int32_t i, int32_t j) {
    if (i < 0 || j < 0 || i >= nav->gw || j >= nav->gh) return CS_NAV_FREE; // open ground
    return nav->blocked[(size_t)j * (size_t)nav->gw + (size_t)i];
}

// The NEAR state as laid by the walls: a pinch mark is still NEAR to the other passes, so that
// the order of rows and columns does not matter.
static inline bool near_at(const cs_nav* nav, int32_t i, int32_t j) {
    const uint8_t s = grid_at(nav, i, j);
    return s == CS_NAV_NEAR || s >= NAV_PINCH;
}

// To the pinch runs (laid after the passages), a corridor's cell is walkable ground a run may
// start or end at, and never part of one.
static inline bool run_at(const cs_nav* nav, int32_t i, int32_t j) {
    const uint8_t s = grid_at(nav, i, j);
    return s == CS_NAV_NEAR || s == NAV_PINCH;
}

static inline bool end_at(const cs_nav* nav, int32_t i, int32_t j) {
    const uint8_t s = grid_at(nav, i, j);
    return s == CS_NAV_FREE || s == NAV_PASSAGE;
}

// Runs of NEAR cells along (di, dj) from each cell (i, j) that starts one: see the top of the
// file. At most `most` cells long: a door through a wall up to about a metre thick.
static void pinch_runs(const crowd_world* w, cs_nav* nav, int32_t di, int32_t dj, int32_t most,
                       float keep) {
    for (int32_t j = 0; j < nav->gh; ++j)
        for (int32_t i = 0; i < nav->gw; ++i) {
            if (!run_at(nav, i, j) || !end_at(nav, i - di, j - dj) || i - di < 0 || j - dj < 0)
                continue;
            int32_t n = 0;
            bool gap = true;
            while (n <= most && run_at(nav, i + n * di, j + n * dj)) {
                const int32_t x = i + n * di, y = j + n * dj;
                // Beside the run on both sides: not FREE (walls close on either hand).
                gap = gap && x + dj < nav->gw && y + di < nav->gh && x - dj >= 0 && y - di >= 0 &&
                      grid_at(nav, x + dj, y + di) != CS_NAV_FREE &&
                      grid_at(nav, x - dj, y - di) != CS_NAV_FREE;
                ++n;
            }
            const int32_t ei = i + n * di, ej = j + n * dj;
            if (n > most || !gap || ei >= nav->gw || ej >= nav->gh || !end_at(nav, ei, ej))
                continue;
            const crowd_vec2 a =
                cs_nav_center(nav, (uint32_t)(j - dj) * (uint32_t)nav->gw + (uint32_t)(i - di));
            const crowd_vec2 b =
                cs_nav_center(nav, (uint32_t)ej * (uint32_t)nav->gw + (uint32_t)ei);
            if (cs_walls_near_line(&w->walls, a.x, a.y, b.x, b.y, keep)) continue;
            for (int32_t k = 0; k < n; ++k)
                nav->blocked[(size_t)(j + k * dj) * (size_t)nav->gw + (size_t)(i + k * di)] =
                    NAV_PINCH;
        }
}

// A cell beside a diagonal that stays blocked whatever the pinch passes decide (a pinch mark may
// still become FREE, so it does not count).
static inline bool side_blocks(const cs_nav* nav, int32_t i, int32_t j) {
    const uint8_t s = grid_at(nav, i, j);
    return s == CS_NAV_NEAR || s == CS_NAV_SOLID;
}

static crowd_vec2 center_at(const cs_nav* nav, int32_t i, int32_t j) {
    return cs_nav_center(nav, (uint32_t)j * (uint32_t)nav->gw + (uint32_t)i);
}

// Whether NEAR cell (i, j) and its neighbor a step (di, dj) further are a corridor's cross-section
// (see passages): both inside the grid with a cell beyond each, their segment keeps `keep` from
// every wall, and a wall lies between each of them and the cell beyond it.
static bool cross_section(const crowd_world* w, const cs_nav* nav, int32_t i, int32_t j, int32_t di,
                          int32_t dj, float keep) {
    const int32_t x = i + di, y = j + dj;
    if (i - di < 0 || j - dj < 0 || x + di >= nav->gw || y + dj >= nav->gh || !near_at(nav, x, y))
        return false;
    const crowd_vec2 a = center_at(nav, i, j), b = center_at(nav, x, y);
    const crowd_vec2 a0 = center_at(nav, i - di, j - dj), b1 = center_at(nav, x + di, y + dj);
    return !cs_walls_near_line(&w->walls, a.x, a.y, b.x, b.y, keep) &&
           cs_walls_crossed(&w->walls, a.x, a.y, a0.x, a0.y) &&
           cs_walls_crossed(&w->walls, b.x, b.y, b1.x, b1.y);
}

// Corridors: a passage between two walls along a row or a column, so narrow that both of the two
// rows of centres across it lie within the clearance of a wall (a 1 m corridor does, on a 0.5 m
// grid, when its walls lie a quarter of a cell from the centres), has no FREE cell, and its runs
// of NEAR cells along it are longer than a door's pinch. A NEAR cell that with a neighbor across
// the passage forms such a cross-section (both centres keep clearance - cell size / 2 from every
// wall, so the passage is at least 2 * clearance wide across; a wall beyond each of the two) is
// opened like a pinch cell, and a door's pinch run may start or end at it (where the corridor
// opens into a room its last cells, by the ends of its walls, have no wall beyond them). A room's
// corner or the side of a wall has open ground beyond one of the two, not a wall, and stays NEAR.
// Decided from the NEAR state as laid, cell by cell.
static void passages(const crowd_world* w, cs_nav* nav, float keep) {
    for (int32_t j = 0; j < nav->gh; ++j)
        for (int32_t i = 0; i < nav->gw; ++i) {
            uint8_t* s = &nav->blocked[(size_t)j * (size_t)nav->gw + (size_t)i];
            if (*s != CS_NAV_NEAR) continue;
            if (cross_section(w, nav, i, j, 1, 0, keep) ||
                cross_section(w, nav, i, j, -1, 0, keep) ||
                cross_section(w, nav, i, j, 0, 1, keep) || cross_section(w, nav, i, j, 0, -1, keep))
                *s = NAV_PASSAGE;
        }
}

static void open_pinches(const crowd_world* w, cs_nav* nav) {
    const float h = nav->def.cell_size, keep = nav->def.clearance - 0.5f * h;
    if (!(keep > 0.0f)) return;
    const int32_t most = (int32_t)ceilf(2.0f * nav->def.clearance / h) + 2;
    passages(w, nav, keep);
    pinch_runs(w, nav, 1, 0, most, keep);
    pinch_runs(w, nav, 0, 1, most, keep);
    // A pinch cell may lie close to a wall that runs beside its run: it must not become the
    // neighbor of a FREE or pinch cell across that wall (the grid's promise above). Only steps
    // count: a diagonal neighbor with a NEAR or SOLID cell beside the step is none (routes and
    // lines of sight take a diagonal only with both cells beside it FREE), and the line to it
    // often meets the end of a wall, as where a corridor's pinch meets a door's jamb, which would
    // cut the corridor off. Decided from the marks as they are, so the order of the cells does not
    // matter.
    for (int32_t j = 0; j < nav->gh; ++j)
        for (int32_t i = 0; i < nav->gw; ++i) {
            uint8_t* s = &nav->blocked[(size_t)j * (size_t)nav->gw + (size_t)i];
            if (*s < NAV_PINCH) continue;
            const crowd_vec2 p = cs_nav_center(nav, (uint32_t)j * (uint32_t)nav->gw + (uint32_t)i);
            bool crossed = false;
            for (int32_t dj = -1; dj <= 1 && !crossed; ++dj)
                for (int32_t di = -1; di <= 1 && !crossed; ++di) {
                    const int32_t x = i + di, y = j + dj;
                    if ((di | dj) == 0 || x < 0 || y < 0 || x >= nav->gw || y >= nav->gh) continue;
                    const uint8_t m = grid_at(nav, x, y);
                    if (m != CS_NAV_FREE && m < NAV_PINCH) continue;
                    if (di && dj && (side_blocks(nav, x, j) || side_blocks(nav, i, y))) continue;
                    const crowd_vec2 q =
                        cs_nav_center(nav, (uint32_t)y * (uint32_t)nav->gw + (uint32_t)x);
                    crossed = cs_walls_crossed(&w->walls, p.x, p.y, q.x, q.y);
                }
            if (crossed) *s = NAV_PINCH_NO;
        }
    for (size_t c = 0; c < nav->cells; ++c)
        if (nav->blocked[c] >= NAV_PINCH)
            nav->blocked[c] = nav->blocked[c] == NAV_PINCH_NO ? CS_NAV_NEAR : CS_NAV_FREE;
}

// ---- laying part of the grid again -------------------------------------------------------------

// The longest pinch run open_pinches accepts, in cells.
static int32_t pinch_most(const cs_nav* nav) {
    return (int32_t)ceilf(2.0f * nav->def.clearance / nav->def.cell_size) + 2;
}

static cs_nav_rect grow(const cs_nav* nav, cs_nav_rect r, int32_t by) {
    r.i0 = r.i0 - by < 0 ? 0 : r.i0 - by;
    r.j0 = r.j0 - by < 0 ? 0 : r.j0 - by;
    r.i1 = r.i1 + by >= nav->gw ? nav->gw - 1 : r.i1 + by;
    r.j1 = r.j1 + by >= nav->gh ? nav->gh - 1 : r.j1 + by;
    return r;
}

// What a change of an obstacle can reach: its own cells (NEAR within the clearance of its edges,
// SOLID inside), a cell more for the quantization; then the corridor cells whose cross-section
// reads those (two cells), the pinch runs through or beside those (at most pinch_most cells long,
// with a cell at either end and either side) and the pinch cells beside those (a cell, across a
// wall or not).
cs_nav_rect cs_nav_grid_reach(const cs_nav* nav, float x0, float y0, float x1, float y1) {
    const float r = nav->def.clearance;
    const int32_t pad = (int32_t)ceilf(r * nav->inv_cell) + 2 + pinch_most(nav) + 5;
    const int64_t i0 = (int64_t)cs_nav_quantize(x0, nav->inv_cell) - nav->gx0 - pad;
    const int64_t j0 = (int64_t)cs_nav_quantize(y0, nav->inv_cell) - nav->gy0 - pad;
    const int64_t i1 = (int64_t)cs_nav_quantize(x1, nav->inv_cell) - nav->gx0 + pad;
    const int64_t j1 = (int64_t)cs_nav_quantize(y1, nav->inv_cell) - nav->gy0 + pad;
    if (i1 < 0 || j1 < 0 || i0 >= nav->gw || j0 >= nav->gh) return (cs_nav_rect){0, 0, -1, -1};
    return (cs_nav_rect){i0 < 0 ? 0 : (int32_t)i0, j0 < 0 ? 0 : (int32_t)j0,
                         i1 >= nav->gw ? nav->gw - 1 : (int32_t)i1,
                         j1 >= nav->gh ? nav->gh - 1 : (int32_t)j1};
}

// The window laid to decide the cells of r: r and room for every pinch run (and the cells beside
// it, and the two cells a corridor cell at its end reads) that can make a cell of r or its
// neighbor a pinch cell. Where the window ends inside the grid
// its own edge (open ground to the pinch runs) lies further than any run that matters.
static cs_nav_rect window_of(const cs_nav* nav, cs_nav_rect r) {
    return grow(nav, r, 2 * pinch_most(nav) + 10);
}

size_t cs_nav_grid_window_cells(const cs_nav* nav, cs_nav_rect r) {
    if (r.i0 > r.i1) return 0;
    const cs_nav_rect w = window_of(nav, r);
    return (size_t)(w.i1 - w.i0 + 1) * (size_t)(w.j1 - w.j0 + 1);
}

// The open flag of cell (i, j) from nav->blocked (see cs_nav_grid_lay).
static uint8_t open_at(const cs_nav* nav, int32_t i, int32_t j) {
    for (int32_t dj = -1; dj <= 1; ++dj)
        for (int32_t di = -1; di <= 1; ++di) {
            const int32_t x = i + di, y = j + dj;
            if (x < 0 || y < 0 || x >= nav->gw || y >= nav->gh) continue;
            if (nav->blocked[(size_t)y * (size_t)nav->gw + (size_t)x] != CS_NAV_FREE) return 0;
        }
    return 1;
}

// The window is laid whole, by cs_nav_grid_lay itself on a grid that is the window (the same
// cells, the same obstacles), and the cells of r are copied back: so they are what a whole lay
// gives them.
void cs_nav_grid_lay_part(const crowd_world* w, cs_nav* nav, cs_nav_rect r, uint8_t* tmp,
                          cs_nav_rect* box, int64_t* freed) {
    if (r.i0 > r.i1) return;
    const cs_nav_rect wr = window_of(nav, r);
    cs_nav win = *nav;
    win.gx0 = nav->gx0 + wr.i0, win.gy0 = nav->gy0 + wr.j0;
    win.gw = wr.i1 - wr.i0 + 1, win.gh = wr.j1 - wr.j0 + 1;
    win.cells = (size_t)win.gw * (size_t)win.gh;
    win.blocked = tmp;
    win.open = tmp + win.cells;
    cs_nav_grid_lay(w, &win);
    for (int32_t j = r.j0; j <= r.j1; ++j)
        for (int32_t i = r.i0; i <= r.i1; ++i) {
            uint8_t* s = &nav->blocked[(size_t)j * (size_t)nav->gw + (size_t)i];
            const uint8_t v =
                win.blocked[(size_t)(j - wr.j0) * (size_t)win.gw + (size_t)(i - wr.i0)];
            if (*s != v) {
                box->i0 = i < box->i0 ? i : box->i0, box->j0 = j < box->j0 ? j : box->j0;
                box->i1 = i > box->i1 ? i : box->i1, box->j1 = j > box->j1 ? j : box->j1;
                *freed += v == CS_NAV_FREE;
            }
            *s = v;
        }
    const cs_nav_rect o = grow(nav, r, 1);
    for (int32_t j = o.j0; j <= o.j1; ++j)
        for (int32_t i = o.i0; i <= o.i1; ++i)
            nav->open[(size_t)j * (size_t)nav->gw + (size_t)i] = open_at(nav, i, j);
}
