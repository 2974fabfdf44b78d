// The segment grid: which cells a segment passes through, and the cell table's insert and remove.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "walls/walls_math.h"
#include "walls/walls_store.h"

enum { MIN_TABLE = 64, MIN_SEGS = 64 };

void cs_walls_init(cs_walls* g, float cell_size) {
    memset(g, 0, sizeof *g);
    g->cell_size = cell_size;
    g->inv_cell = 1.0f / cell_size;
}

static size_t occ_bytes(uint32_t cap) {
    return sizeof(uint64_t) * ((cap + 63) / 64);
}

static void free_table(crowd_world* w, uint32_t* caps, cs_wall_cell* cells, uint64_t* occ,
                       uint32_t cap) {
    cs_free(w, caps, sizeof(uint32_t) * cap);
    cs_free(w, cells, sizeof(cs_wall_cell) * cap);
    cs_free(w, occ, occ_bytes(cap));
}

void cs_walls_free(crowd_world* w, cs_walls* g) {
    for (int32_t i = 0; i < g->obs_used; ++i)
        cs_free(w, g->obs[i].points, sizeof(crowd_vec2) * (size_t)g->obs[i].count);
    cs_free(w, g->obs, sizeof(cs_obstacle) * (size_t)g->obs_cap);
    cs_free(w, g->free_list, sizeof(int32_t) * (size_t)g->obs_cap);
    free_table(w, g->caps, g->cells, g->occupied, g->table_cap);
    cs_free(w, g->segs, sizeof(cs_wall_seg) * g->segs_cap);
    cs_free(w, g->dir, sizeof(cs_wall_ref) * g->dir_cells);
    cs_free(w, g->dsum, sizeof(cs_wall_sum) * g->dir_cells);
    cs_free(w, g->dbox, sizeof(float) * g->dir_cells);
    const float cs = g->cell_size, probe = g->probe_time; // the behavior's, not the geometry's
    cs_walls_init(g, cs);
    g->probe_time = probe;
}

// ---- cells of a segment -------------------------------------------------------------------------

// Cell coordinate of a double, clamped like cs_cell_coord.
static int32_t cell_of(double v) {
    double c = floor(v);
    c = c >= -(double)CS_CELL_CLAMP ? c : -(double)CS_CELL_CLAMP;
    c = c <= (double)CS_CELL_CLAMP ? c : (double)CS_CELL_CLAMP;
    return (int32_t)c;
}

// Margin in cell units around a segment: the cells it passes through, widened so that a query's
// float-rounded box and the exact tests never disagree about a cell.
static double seg_margin(const cs_wall_seg* s, double inv) {
    const double m = fabs(s->ax) + fabs(s->ay) + fabs(s->bx) + fabs(s->by);
    return m * inv * 1e-6 + 1e-4;
}

// Row by row, the x range the segment spans within the row's y range; dilated, each such cell's
// 3 x 3 block (cells come out more than once then).
void cs_walls_segment_cells(const cs_wall_seg* s, float inv_cell, bool dilate, cs_cell_fn* visit,
                            void* ctx) {
    const int64_t d = dilate ? 1 : 0;
    const double inv = inv_cell;
    const double ax = s->ax * inv, ay = s->ay * inv, bx = s->bx * inv, by = s->by * inv;
    const double m = seg_margin(s, inv);
    const double y_lo = fmin(ay, by), y_hi = fmax(ay, by);
    const double x_lo = fmin(ax, bx), x_hi = fmax(ax, bx);
    const int32_t cy0 = cell_of(y_lo - m), cy1 = cell_of(y_hi + m);
    for (int64_t cy = cy0; cy <= cy1; ++cy) {
        // The part of the segment with y in [cy - m, cy + 1 + m], as an x range.
        double r0 = fmax((double)cy - m, y_lo), r1 = fmin((double)cy + 1.0 + m, y_hi);
        double xa = x_lo, xb = x_hi;
        if (by != ay) {
            const double t0 = (r0 - ay) / (by - ay), t1 = (r1 - ay) / (by - ay);
            const double u0 = ax + (bx - ax) * t0, u1 = ax + (bx - ax) * t1;
            xa = fmax(fmin(u0, u1), x_lo);
            xb = fmin(fmax(u0, u1), x_hi);
        }
        const int64_t cx0 = cell_of(xa - m), cx1 = cell_of(xb + m);
        for (int64_t y = cy - d; y <= cy + d; ++y)
            for (int64_t cx = cx0 - d; cx <= cx1 + d; ++cx) visit(ctx, (int32_t)cx, (int32_t)y);
    }
}

static cs_wall_seg obstacle_seg(const cs_obstacle* o, uint32_t oi, int k) {
    const crowd_vec2 a = o->points[k], b = o->points[k + 1 < o->count ? k + 1 : 0];
    return (cs_wall_seg){a.x, a.y, b.x, b.y, oi << 16 | (uint32_t)k};
}

// ---- table
// ---------------------------------------------------------------------------------------

static uint32_t find_slot(const cs_wall_cell* cells, uint32_t cap, uint64_t k) {
    uint32_t h = cs_wall_home(k, cap - 1);
    while (cells[h].key != k && cells[h].key != CS_WALL_EMPTY) h = (h + 1) & (cap - 1);
    return h;
}

static cs_wall_cell* find_cell(cs_walls* g, uint64_t k) {
    if (!g->table_cap) return NULL;
    const uint32_t h = find_slot(g->cells, g->table_cap, k);
    return g->cells[h].key == k ? &g->cells[h] : NULL;
}

// ---- direct index
// --------------------------------------------------------------------------------
//
// The direct index (cs_walls.dir) is built from the table, and the lists laid out in its order,
// whenever the table or the pool is reallocated (both grow by doubling), more than half the pool
// was appended since the last layout (so the builds cost amortized time per cell of an
// obstacle) or a new cell falls outside its box, which is the box of the cells with walls widened
// by a quarter on every side, so that a world that grows outward rebuilds it a logarithmic number
// of times. Between builds every change to a cell's list is copied into its entry. An index
// larger than twice the table's slots (walls spread far apart) is not built, until the table grows
// again; neither is one whose memory cannot be had: the table answers then, as it does without
// walls. So the index never makes a call fail.

// Whether a table key is a cell's rather than a coarse cell's: for obstacles within CROWD_MAX_COORD
// and cells of at least CROWD_MIN_CELL_SIZE a cell's row is within +-2^27 and a coarse row (moved
// by 2^31) within 2^31 +- 2^23; the test splits the rows halfway, at +-2^30.
static bool is_cell_key(uint64_t k) {
    return (uint32_t)k + 0x40000000u <= 0x80000000u;
}

static void dir_free(crowd_world* w, cs_walls* g) {
    cs_free(w, g->dir, sizeof(cs_wall_ref) * g->dir_cells);
    cs_free(w, g->dsum, sizeof(cs_wall_sum) * g->dir_cells);
    cs_free(w, g->dbox, sizeof(float) * g->dir_cells);
    g->dir = NULL, g->dsum = NULL, g->dbox = NULL, g->dir_cells = 0, g->dir_w = g->dir_h = 0;
}

// The distance from segment s to the box [x0, x1] x [y0, y1]: zero when the segment meets the box
// (clipped to it, something is left), else the least distance from an end point to the box or
// from a corner to the segment (two disjoint convex sets are nearest at a vertex of one of them).
static double box_seg_dist(const cs_wall_seg* s, double x0, double y0, double x1, double y1) {
    const double ax = s->ax, ay = s->ay, ex = (double)s->bx - ax, ey = (double)s->by - ay;
    double t0 = 0.0, t1 = 1.0;
    const double p[4] = {-ex, ex, -ey, ey}, q[4] = {ax - x0, x1 - ax, ay - y0, y1 - ay};
    for (int i = 0; i < 4 && t0 <= t1; ++i) {
        if (p[i] == 0.0) {
            if (q[i] < 0.0) t0 = 2.0; // parallel to this side and outside it
            continue;
        }
        const double t = q[i] / p[i];
        if (p[i] < 0.0)
            t0 = t > t0 ? t : t0;
        else
            t1 = t < t1 ? t : t1;
    }
    if (t0 <= t1) return 0.0;
    double best = INFINITY;
    for (int k = 0; k < 2; ++k) {
        const double px = k ? s->bx : s->ax, py = k ? s->by : s->ay;
        const double gx = px < x0 ? x0 - px : (px > x1 ? px - x1 : 0.0);
        const double gy = py < y0 ? y0 - py : (py > y1 ? py - y1 : 0.0);
        best = fmin(best, gx * gx + gy * gy);
    }
    for (int k = 0; k < 4; ++k) {
        double cx, cy;
        best = fmin(best, cs_seg_dist2(s, k & 1 ? x1 : x0, k & 2 ? y1 : y0, &cx, &cy));
    }
    return sqrt(best);
}

// Lists longer than this get a sight bound that ignores the convex polygons' nearest edges (their
// least box distance): the grouping by polygon below is quadratic in the list's length.
#define SUM_GROUP_MAX 64

// The summary (cs_wall_sum) of cell (cx, cy) from its list of n > 0 segments. Its box is widened
// for the rounding of an agent's cell coordinate (floor(p / cell_size) in float) and every bound
// is lowered for the rounding of its own arithmetic and of the float it is stored in.
//
// The sight clearance of a point is the least of its distances to the open walls and non-convex
// polygons' edges and, for each convex polygon, to the polygon's second nearest edge (see
// block_key in walls_clearance.c; every unlisted segment is beyond the list's reach, where the
// pass caps the bound). With d0, d1 the agent's distances to the keys and B the box distances of
// the other segments, a convex polygon's second nearest edge is at least: the second least of its
// B without a key; min(B) of its others with one key (its key may be the nearest); and
// min(max(d0, d1), min(B) of its others) with both. So the summary's sight is the least of the
// other open and non-convex segments' B and those per-polygon terms, and the pass adds d_i for an
// open key i and max(d0, d1) for a pair, which it drops for an agent outside both keys' lines
// (the pair's winding, stored in pair, says which side is outside). Cost: the list's length,
// squared up to SUM_GROUP_MAX.
cs_wall_sum cs_walls_sum_of(const cs_walls* g, int32_t cx, int32_t cy, const cs_wall_seg* list,
                            uint32_t n) {
    const double c = g->cell_size, ox = (double)cx * c, oy = (double)cy * c;
    const double m = 1e-4 + (fabs(ox) + fabs(oy) + 2.0 * c) * 4e-6;
    const double x0 = ox - m, y0 = oy - m, x1 = ox + c + m, y1 = oy + c + m;
    const double mx = ox + 0.5 * c, my = oy + 0.5 * c;
    double box[SUM_GROUP_MAX];
    const bool grouped = n <= SUM_GROUP_MAX;
    // The keys: least box distance, then least distance to the centre, then lowest id.
    uint32_t key[2] = {UINT32_MAX, UINT32_MAX};
    double kb[2] = {INFINITY, INFINITY}, kc[2] = {INFINITY, INFINITY};
    for (uint32_t i = 0; i < n; ++i) {
        const double b = box_seg_dist(&list[i], x0, y0, x1, y1);
        if (grouped) box[i] = b;
        double px, py;
        const double d = cs_seg_dist2(&list[i], mx, my, &px, &py);
        for (int q = 0; q < 2; ++q) {
            const bool before =
                b < kb[q] ||
                (b == kb[q] && (d < kc[q] || (d == kc[q] && list[i].id < list[key[q]].id)));
            if (!before) continue;
            if (q == 0) key[1] = key[0], kb[1] = kb[0], kc[1] = kc[0];
            key[q] = i, kb[q] = b, kc[q] = d;
            break;
        }
    }
    if (key[1] == UINT32_MAX) key[1] = key[0];
    const cs_obstacle* ko[2] = {&g->obs[list[key[0]].id >> 16], &g->obs[list[key[1]].id >> 16]};
    const bool paired = key[1] != key[0] && ko[0] == ko[1] && ko[0]->convex;
    double rest = INFINITY, sight = INFINITY;
    for (uint32_t i = 0; i < n; ++i) {
        if (i == key[0] || i == key[1]) continue;
        const double b = grouped ? box[i] : box_seg_dist(&list[i], x0, y0, x1, y1);
        rest = b < rest ? b : rest;
        const cs_obstacle* o = &g->obs[list[i].id >> 16];
        bool counts =
            !grouped || !o->convex || (o == ko[0] && o->convex) || (o == ko[1] && o->convex);
        // A convex polygon without a key: its edge counts when another is at least as near.
        for (uint32_t j = 0; j < n && !counts; ++j)
            counts = j != i && list[j].id >> 16 == list[i].id >> 16 &&
                     (box[j] < b || (box[j] == b && j < i));
        if (counts) sight = b < sight ? b : sight;
    }
    const double cap = 4.0 * c; // beyond every list's reach, and finite
    rest = rest < cap ? rest : cap;
    sight = sight < cap ? sight : cap;
    const double near = kb[0] < cap ? kb[0] : cap; // key 0 has the least box distance
    cs_wall_sum out = {.box = (float)(near * (1.0 - 1e-6)),
                       .rest = (float)(rest * (1.0 - 1e-6)),
                       .sight = (float)(sight * (1.0 - 1e-6)),
                       .pair = paired ? (float)ko[0]->turn : CS_WALL_NO_TERM};
    for (int q = 0; q < 2; ++q) {
        const cs_wall_seg* k = &list[key[q]];
        out.k[q][0] = k->ax, out.k[q][1] = k->ay, out.k[q][2] = k->bx, out.k[q][3] = k->by;
        out.open[q] = ko[q]->convex ? CS_WALL_NO_TERM : 0.0f;
    }
    return out;
}

// Points entry i of the direct index at segs[start, start + count): the entry and its summary's
// copy (cs_wall_sum.count, .start), which must always agree.
static void dir_put(cs_walls* g, size_t i, uint32_t start, uint32_t count) {
    g->dir[i] = (cs_wall_ref){start, count};
    g->dsum[i].start = start, g->dsum[i].count = count;
}

// Copies cell key k's list (table slot c) into its entry, with its summary (computed from the
// list); false when the index exists and k lies outside its box.
static bool dir_set(cs_walls* g, uint64_t k, const cs_wall_cell* c) {
    if (!g->dir) return true;
    const int32_t cx = (int32_t)(uint32_t)(k >> 32), cy = (int32_t)(uint32_t)k;
    const cs_wall_ref* r = cs_walls_dir_at(g, cx, cy);
    if (!r) return false;
    const size_t i = (size_t)(r - g->dir);
    if (c->count) g->dsum[i] = cs_walls_sum_of(g, cx, cy, g->segs + c->start, c->count);
    dir_put(g, i, c->start, c->count);
    g->dbox[i] = c->count ? g->dsum[i].box : CS_WALL_NO_TERM;
    return true;
}

// Lays the lists out in a new pool in the index's order, row by row (then the coarse cells'), so
// that agents sorted by cell read them in order; each list keeps its room. Without the memory
// for a second pool the lists stay where they are.
static void dir_layout(crowd_world* w, cs_walls* g) {
    cs_wall_seg* segs = cs_alloc(w, sizeof(cs_wall_seg) * g->segs_cap);
    if (!segs) return;
    // The index's entries hold their table slots for the while.
    for (uint32_t h = 0; h < g->table_cap; ++h) {
        const uint64_t k = g->cells[h].key;
        if (k == CS_WALL_EMPTY || g->cells[h].count == 0 || !is_cell_key(k)) continue;
        cs_wall_ref* r =
            (cs_wall_ref*)cs_walls_dir_at(g, (int32_t)(uint32_t)(k >> 32), (int32_t)(uint32_t)k);
        r->start = h;
    }
    uint32_t at = 0;
    const size_t cells = (size_t)g->dir_w * g->dir_h;
    for (size_t i = 0; i < cells; ++i) {
        if (g->dir[i].count == 0) continue;
        cs_wall_cell* c = &g->cells[g->dir[i].start];
        memcpy(segs + at, g->segs + c->start, sizeof(cs_wall_seg) * c->count);
        c->start = at;
        dir_put(g, i, at, c->count);
        at += g->caps[c - g->cells];
    }
    for (uint32_t h = 0; h < g->table_cap; ++h) {
        cs_wall_cell* c = &g->cells[h];
        if (c->key == CS_WALL_EMPTY || (is_cell_key(c->key) && c->count)) continue;
        if (c->count == 0) {
            g->caps[h] = 0; // an emptied cell's list moves to the end when it gets walls again
            continue;
        }
        memcpy(segs + at, g->segs + c->start, sizeof(cs_wall_seg) * c->count);
        c->start = at;
        at += g->caps[h];
    }
    cs_free(w, g->segs, sizeof(cs_wall_seg) * g->segs_cap);
    g->segs = segs, g->segs_used = g->segs_ordered = at;
}

static void dir_build(crowd_world* w, cs_walls* g) {
    int64_t x0 = INT64_MAX, y0 = INT64_MAX, x1 = INT64_MIN, y1 = INT64_MIN;
    for (uint32_t h = 0; h < g->table_cap; ++h) {
        const uint64_t k = g->cells[h].key;
        if (k == CS_WALL_EMPTY || g->cells[h].count == 0 || !is_cell_key(k)) continue;
        const int64_t cx = (int32_t)(uint32_t)(k >> 32), cy = (int32_t)(uint32_t)k;
        x0 = cx < x0 ? cx : x0, x1 = cx > x1 ? cx : x1;
        y0 = cy < y0 ? cy : y0, y1 = cy > y1 ? cy : y1;
    }
    if (x0 > x1) { // no walls
        dir_free(w, g);
        return;
    }
    const uint64_t limit = 2ull * g->table_cap + 4096;
    const int64_t wd = x1 - x0 + 1, ht = y1 - y0 + 1;
    int64_t sx = wd / 4 + 1, sy = ht / 4 + 1;
    if ((uint64_t)(wd + 2 * sx) > limit / (uint64_t)(ht + 2 * sy)) sx = sy = 0;
    if ((uint64_t)wd > limit / (uint64_t)ht) {
        dir_free(w, g);
        g->dir_off = true;
        return;
    }
    const uint64_t cells = (uint64_t)(wd + 2 * sx) * (uint64_t)(ht + 2 * sy);
    // New arrays, so that the summaries of the cells the old index held are copied rather than
    // computed again (a rebuild then costs its memory traffic, as the lists' layout does).
    cs_wall_ref* d = cs_alloc(w, sizeof(cs_wall_ref) * cells);
    cs_wall_sum* dk = cs_alloc(w, sizeof(cs_wall_sum) * cells);
    float* db = cs_alloc(w, sizeof(float) * cells);
    if (!d || !dk || !db) {
        cs_free(w, d, sizeof(cs_wall_ref) * cells);
        cs_free(w, dk, sizeof(cs_wall_sum) * cells);
        cs_free(w, db, sizeof(float) * cells);
        dir_free(w, g);
        g->dir_off = true;
        return;
    }
    const cs_walls old = *g;
    g->dir = d, g->dsum = dk, g->dbox = db, g->dir_cells = cells;
    g->dir_x0 = (int32_t)(x0 - sx), g->dir_y0 = (int32_t)(y0 - sy);
    g->dir_w = (uint32_t)(wd + 2 * sx), g->dir_h = (uint32_t)(ht + 2 * sy);
    memset(g->dir, 0, sizeof(cs_wall_ref) * cells);
    memset(g->dsum, 0, sizeof(cs_wall_sum) * cells);
    for (uint64_t i = 0; i < cells; ++i) g->dbox[i] = CS_WALL_NO_TERM;
    for (uint32_t h = 0; h < g->table_cap; ++h) {
        const uint64_t k = g->cells[h].key;
        const cs_wall_cell* c = &g->cells[h];
        if (k == CS_WALL_EMPTY || !c->count || !is_cell_key(k)) continue;
        const int32_t cx = (int32_t)(uint32_t)(k >> 32), cy = (int32_t)(uint32_t)k;
        const cs_wall_ref* r = cs_walls_dir_at(g, cx, cy);
        const cs_wall_ref* o = old.dir ? cs_walls_dir_at(&old, cx, cy) : NULL;
        const size_t i = (size_t)(r - g->dir);
        g->dsum[i] = o && o->count ? old.dsum[o - old.dir]
                                   : cs_walls_sum_of(g, cx, cy, g->segs + c->start, c->count);
        dir_put(g, i, c->start, c->count);
        g->dbox[i] = g->dsum[i].box;
    }
    cs_free(w, old.dir, sizeof(cs_wall_ref) * old.dir_cells);
    cs_free(w, old.dsum, sizeof(cs_wall_sum) * old.dir_cells);
    cs_free(w, old.dbox, sizeof(float) * old.dir_cells);
    dir_layout(w, g);
}

// ---- lists --------------------------------------------------------------------------------------

// A list of n entries gets room for this many: growth by half keeps moves amortized.
static uint32_t list_room(uint32_t n) {
    return n + n / 2 + 2;
}

typedef struct pair {
    uint64_t key;
    uint32_t seg; // segment number in the obstacle
} pair;

static int cmp_pair(const void* a, const void* b) {
    const pair *p = a, *q = b;
    if (p->key != q->key) return p->key < q->key ? -1 : 1;
    return (p->seg > q->seg) - (p->seg < q->seg);
}

typedef struct collect {
    pair* out;
    size_t n;
    uint32_t seg;
} collect;

static void count_cell(void* ctx, int32_t cx, int32_t cy) {
    (void)cx, (void)cy;
    ((collect*)ctx)->n++;
}

static void put_cell(void* ctx, int32_t cx, int32_t cy) {
    collect* c = ctx;
    c->out[c->n++] = (pair){cs_wall_key(cx, cy), c->seg};
}

// A polygon's entry in the coarse cells: its bounding box, for the containment test.
#define BOX_ENTRY UINT32_MAX

static cs_wall_seg entry_of(const cs_obstacle* o, uint32_t oi, uint32_t seg) {
    if (seg == BOX_ENTRY) return (cs_wall_seg){o->x0, o->y0, o->x1, o->y1, oi << 16 | 0xffffu};
    return obstacle_seg(o, oi, (int)seg);
}

// The coarse cells of a polygon's bounding box.
static void box_cells(const cs_walls* g, const cs_obstacle* o, cs_cell_fn* visit, void* ctx) {
    const cs_wall_box b = cs_walls_coarse_box(g, o->x0, o->y0, o->x1, o->y1);
    for (int64_t cy = b.cy0; cy <= b.cy1; ++cy)
        for (int64_t cx = b.cx0; cx <= b.cx1; ++cx) visit(ctx, (int32_t)cx, (int32_t)cy);
}

static void count_coarse(void* ctx, int32_t cx, int32_t cy) {
    (void)cx, (void)cy;
    ((collect*)ctx)->n++;
}

static void put_coarse(void* ctx, int32_t cx, int32_t cy) {
    collect* c = ctx;
    c->out[c->n++] = (pair){cs_walls_coarse_key(cx, cy), BOX_ENTRY};
}

crowd_status cs_walls_grid_insert(crowd_world* w, cs_walls* g, uint32_t oi) {
    const cs_obstacle* o = &g->obs[oi];
    const int nseg = cs_obstacle_segments(o);
    const bool poly = o->kind == CROWD_OBSTACLE_POLYGON;

    collect c = {0};
    for (int k = 0; k < nseg; ++k) {
        const cs_wall_seg s = obstacle_seg(o, oi, k);
        cs_walls_segment_cells(&s, g->inv_cell, true, count_cell, &c);
    }
    if (poly) box_cells(g, o, count_coarse, &c);
    const size_t npairs = c.n, pair_bytes = sizeof(pair) * (npairs ? npairs : 1);
    if (npairs > UINT32_MAX / 4) return CROWD_ERR_OUT_OF_MEMORY;
    pair* pairs = cs_alloc(w, pair_bytes);
    if (!pairs) return CROWD_ERR_OUT_OF_MEMORY;
    c = (collect){.out = pairs};
    for (int k = 0; k < nseg; ++k) {
        const cs_wall_seg s = obstacle_seg(o, oi, k);
        c.seg = (uint32_t)k;
        cs_walls_segment_cells(&s, g->inv_cell, true, put_cell, &c);
    }
    if (poly) box_cells(g, o, put_coarse, &c);
    qsort(pairs, npairs, sizeof *pairs, cmp_pair);
    // A dilated segment names some cells more than once.
    size_t unique = 0;
    for (size_t i = 0; i < npairs; ++i)
        if (unique == 0 || pairs[i].key != pairs[unique - 1].key ||
            pairs[i].seg != pairs[unique - 1].seg)
            pairs[unique++] = pairs[i];

    // What the insertion needs, counted pessimistically: a cell whose list is empty counts as
    // new (a growing table drops it) and every touched list as moving to the end of the pool.
    uint64_t new_keys = 0, pool_need = 0;
    for (size_t i = 0; i < unique;) {
        size_t j = i;
        while (j < unique && pairs[j].key == pairs[i].key) ++j;
        const cs_wall_cell* cell = find_cell(g, pairs[i].key);
        const uint32_t have = cell ? cell->count : 0;
        new_keys += have == 0;
        pool_need += list_room(have + (uint32_t)(j - i));
        i = j;
    }

    // Reserve: a new table when the load would pass one half, a new pool when the lists would
    // not fit. Both are allocated before anything changes.
    const uint64_t live_cells = (uint64_t)g->table_used - g->table_empty;
    uint32_t tcap = g->table_cap;
    const bool regrow = (live_cells + g->table_empty + new_keys) * 2 > tcap;
    if (regrow) {
        uint64_t want = MIN_TABLE;
        while (want < (live_cells + new_keys) * 4) want <<= 1;
        if (want > (1ull << 31)) {
            cs_free(w, pairs, pair_bytes);
            return CROWD_ERR_OUT_OF_MEMORY;
        }
        tcap = (uint32_t)want;
    }
    const bool repool = (uint64_t)g->segs_used + pool_need > g->segs_cap;
    uint64_t pcap = g->segs_cap;
    if (repool) {
        // After compaction the live lists take list_room(count) each, at most twice their
        // entries plus two per cell.
        const uint64_t compact = 2ull * g->segs_live + 2ull * live_cells;
        pcap = MIN_SEGS;
        while (pcap < 2 * (compact + pool_need)) pcap <<= 1;
        if (pcap > UINT32_MAX / 2) {
            cs_free(w, pairs, pair_bytes);
            return CROWD_ERR_OUT_OF_MEMORY;
        }
    }
    uint32_t* caps = NULL;
    cs_wall_cell* cells = NULL;
    uint64_t* occ = NULL;
    cs_wall_seg* segs = NULL;
    bool ok = true;
    if (regrow) {
        caps = cs_alloc(w, sizeof(uint32_t) * tcap);
        cells = cs_alloc(w, sizeof(cs_wall_cell) * tcap);
        occ = cs_alloc(w, occ_bytes(tcap));
        ok = caps && cells && occ;
    }
    if (ok && repool) {
        segs = cs_alloc(w, sizeof(cs_wall_seg) * (size_t)pcap);
        ok = segs != NULL;
    }
    if (!ok) {
        if (regrow) free_table(w, caps, cells, occ, tcap);
        cs_free(w, segs, sizeof(cs_wall_seg) * (size_t)pcap);
        cs_free(w, pairs, pair_bytes);
        return CROWD_ERR_OUT_OF_MEMORY;
    }

    // Commit. A new table keeps only the cells with walls; a new pool holds the lists compacted.
    if (regrow) {
        for (uint32_t h = 0; h < tcap; ++h) cells[h].key = CS_WALL_EMPTY;
        memset(occ, 0, occ_bytes(tcap));
        uint32_t used = 0;
        for (uint32_t h = 0; h < g->table_cap; ++h) {
            if (g->cells[h].key == CS_WALL_EMPTY || g->cells[h].count == 0) continue;
            const uint32_t s = find_slot(cells, tcap, g->cells[h].key);
            cells[s] = g->cells[h];
            caps[s] = g->caps[h];
            occ[s >> 6] |= 1ull << (s & 63);
            ++used;
        }
        free_table(w, g->caps, g->cells, g->occupied, g->table_cap);
        g->caps = caps, g->cells = cells, g->occupied = occ;
        g->table_cap = tcap, g->table_used = used, g->table_empty = 0;
        g->dir_off = false;
    }
    if (repool) {
        uint32_t at = 0;
        for (uint32_t h = 0; h < g->table_cap; ++h) {
            if (g->cells[h].key == CS_WALL_EMPTY) continue;
            cs_wall_cell* cell = &g->cells[h];
            const uint32_t room = cell->count ? list_room(cell->count) : 0;
            if (cell->count)
                memcpy(segs + at, g->segs + cell->start, sizeof(cs_wall_seg) * cell->count);
            cell->start = at, g->caps[h] = room;
            at += room;
        }
        cs_free(w, g->segs, sizeof(cs_wall_seg) * g->segs_cap);
        g->segs = segs, g->segs_cap = (uint32_t)pcap, g->segs_used = at;
    }
    // The direct index is built anew after a new table or pool, or for a cell outside its box;
    // otherwise each changed list is copied into it.
    bool rebuild = regrow || repool || !g->dir || g->segs_used - g->segs_ordered > g->segs_used / 2;
    for (size_t i = 0; i < unique;) {
        size_t j = i;
        while (j < unique && pairs[j].key == pairs[i].key) ++j;
        const uint64_t k = pairs[i].key;
        uint32_t h = find_slot(g->cells, g->table_cap, k);
        if (g->cells[h].key != k) {
            g->cells[h] = (cs_wall_cell){.key = k};
            g->caps[h] = 0;
            g->occupied[h >> 6] |= 1ull << (h & 63);
            g->table_used++;
        } else if (g->cells[h].count == 0) {
            g->table_empty--;
        }
        cs_wall_cell* cell = &g->cells[h];
        const uint32_t add = (uint32_t)(j - i);
        if (cell->count + add > g->caps[h]) {
            const uint32_t room = list_room(cell->count + add);
            memmove(g->segs + g->segs_used, g->segs + cell->start,
                    sizeof(cs_wall_seg) * cell->count);
            cell->start = g->segs_used, g->caps[h] = room;
            g->segs_used += room;
        }
        for (size_t q = i; q < j; ++q)
            g->segs[cell->start + cell->count++] = entry_of(o, oi, pairs[q].seg);
        g->segs_live += add;
        if (pairs[i].seg != BOX_ENTRY) {
            if (!dir_set(g, k, cell)) rebuild = true;
        }
        i = j;
    }
    cs_free(w, pairs, pair_bytes);
    if (rebuild && !g->dir_off) dir_build(w, g);
    return CROWD_OK;
}

typedef struct drop {
    cs_walls* g;
    uint32_t id;
} drop;

static cs_wall_cell* drop_key(drop* d, uint64_t key) {
    cs_walls* g = d->g;
    cs_wall_cell* cell = find_cell(g, key);
    if (!cell) return NULL;
    cs_wall_seg* list = g->segs + cell->start;
    for (uint32_t i = 0; i < cell->count; ++i) {
        if (list[i].id != d->id) continue;
        list[i] = list[--cell->count];
        g->segs_live--;
        if (cell->count == 0) g->table_empty++;
        break;
    }
    return cell;
}

// A cell with a list lies in the direct index's box, so its entry is there to update.
static void drop_cell(void* ctx, int32_t cx, int32_t cy) {
    drop* d = ctx;
    const uint64_t k = cs_wall_key(cx, cy);
    const cs_wall_cell* cell = drop_key(d, k);
    if (!cell) return;
    dir_set(d->g, k, cell);
}

static void drop_coarse(void* ctx, int32_t cx, int32_t cy) {
    drop* d = ctx;
    drop_key(d, cs_walls_coarse_key(cx, cy));
}

void cs_walls_grid_remove(cs_walls* g, uint32_t oi) {
    const cs_obstacle* o = &g->obs[oi];
    const int nseg = cs_obstacle_segments(o);
    for (int k = 0; k < nseg; ++k) {
        const cs_wall_seg s = obstacle_seg(o, oi, k);
        drop d = {g, s.id};
        cs_walls_segment_cells(&s, g->inv_cell, true, drop_cell, &d);
    }
    if (o->kind == CROWD_OBSTACLE_POLYGON) {
        drop d = {g, oi << 16 | 0xffffu};
        box_cells(g, o, drop_coarse, &d);
    }
}

cs_wall_box cs_walls_coarse_box(const cs_walls* g, float x0, float y0, float x1, float y1) {
    const double inv = g->inv_cell / CS_WALL_COARSE;
    return (cs_wall_box){cell_of(x0 * inv), cell_of(y0 * inv), cell_of(x1 * inv),
                         cell_of(y1 * inv)};
}

cs_wall_box cs_walls_box(const cs_walls* g, float x0, float y0, float x1, float y1) {
    const double inv = g->inv_cell;
    const double m = (fabs(x0) + fabs(y0) + fabs(x1) + fabs(y1)) * inv * 1e-6 + 1e-4;
    return (cs_wall_box){cell_of(x0 * inv - m), cell_of(y0 * inv - m), cell_of(x1 * inv + m),
                         cell_of(y1 * inv + m)};
}

static bool any_list(void* ctx, const cs_wall_seg* list, uint32_t count) {
    (void)ctx, (void)list, (void)count;
    return true;
}

bool cs_walls_any(const cs_walls* g, cs_wall_box b) {
    return cs_walls_visit(g, b, any_list, NULL);
}
