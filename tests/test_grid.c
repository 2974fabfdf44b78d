// The cell-sorted spatial hash against brute force.
//
// The query helper below enumerates candidates exactly as the neighbor kernel (src/core/neighbor.c)
// does: the same query box with the same relative margin, cs_grid_row_ranges() per row, and in
// the sparse layout the row filter cs_cell_coord(y) == cy. Every agent that the kernel's exact
// tests would accept (separation disc, forward cone) must be enumerated exactly once, and no
// candidate may be enumerated twice. The counting sort must be a stable permutation with a
// consistent cell table, identical for every thread count.
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/grid.h"
#include "scenes.h"

static const int thread_counts[] = {1, 2, 3, 8};
enum { THREAD_CASES = sizeof thread_counts / sizeof thread_counts[0] };

static bool small_scale(void) {
    const char* s = getenv("CROWD_TEST_SCALE");
    return s && strcmp(s, "small") == 0;
}

static void* xmalloc(size_t bytes) {
    void* p = malloc(bytes ? bytes : 1);
    cr_assert_not_null(p);
    return p;
}

// ---- a sorted point set -------------------------------------------------------------------------

typedef struct hashed {
    int n;
    uint32_t bucket_capacity;
    cs_grid g;
    uint32_t *keys, *order, *sorted_keys, *cell_start, *hist;
    float *sx, *sy; // positions in sorted order, as the kernel reads them
} hashed;

static void hashed_build(hashed* h, const float* x, const float* y, int n, float cell,
                         uint32_t bucket_capacity, int threads) {
    memset(h, 0, sizeof *h);
    h->n = n;
    h->bucket_capacity = bucket_capacity;
    h->keys = xmalloc(sizeof(uint32_t) * (size_t)n);
    h->order = xmalloc(sizeof(uint32_t) * (size_t)n);
    h->sorted_keys = xmalloc(sizeof(uint32_t) * (size_t)n);
    h->cell_start = xmalloc(sizeof(uint32_t) * ((size_t)bucket_capacity + 1));
    h->hist = xmalloc(sizeof(uint32_t) * bucket_capacity * (size_t)(threads - 1));
    h->sx = xmalloc(sizeof(float) * (size_t)n);
    h->sy = xmalloc(sizeof(float) * (size_t)n);
    cs_grid_sort(&h->g, cell, x, y, n, bucket_capacity, h->hist, threads, h->keys, h->order,
                 h->sorted_keys, h->cell_start);
    for (int s = 0; s < n; ++s) {
        cr_assert_lt(h->order[s], (uint32_t)n, "order[%d] = %u out of range", s, h->order[s]);
        cr_assert_eq(h->sorted_keys[s], h->keys[h->order[s]], "sorted key of slot %d", s);
        h->sx[s] = x[h->order[s]];
        h->sy[s] = y[h->order[s]];
    }
}

static void hashed_free(hashed* h) {
    free(h->keys);
    free(h->order);
    free(h->sorted_keys);
    free(h->cell_start);
    free(h->hist);
    free(h->sx);
    free(h->sy);
}

// (c): the sort is a stable permutation into key order, the keys are the cells' keys, the layout
// follows from the occupied bounding box, and cell_start[k] counts the agents with smaller keys.
static void check_sort(const hashed* h, const float* x, const float* y, float cell) {
    const cs_grid* g = &h->g;
    const int n = h->n;
    cr_assert_eq(g->inv_cell, 1.0f / cell);
    cr_assert_eq(g->cell_start, h->cell_start);
    if (n == 0) {
        cr_assert(g->buckets >= 1);
        cr_assert_eq(h->cell_start[0], 0u);
        cr_assert_eq(h->cell_start[g->buckets], 0u);
        return;
    }

    int32_t bx0 = INT32_MAX, by0 = INT32_MAX, bx1 = INT32_MIN, by1 = INT32_MIN;
    for (int i = 0; i < n; ++i) {
        int32_t cx = cs_cell_coord(x[i], g->inv_cell), cy = cs_cell_coord(y[i], g->inv_cell);
        bx0 = cx < bx0 ? cx : bx0;
        by0 = cy < by0 ? cy : by0;
        bx1 = cx > bx1 ? cx : bx1;
        by1 = cy > by1 ? cy : by1;
    }
    cr_assert(g->min_cx == bx0 && g->min_cy == by0 && g->max_cx == bx1 && g->max_cy == by1,
              "bounding box (%d,%d)-(%d,%d), brute force (%d,%d)-(%d,%d)", g->min_cx, g->min_cy,
              g->max_cx, g->max_cy, bx0, by0, bx1, by1);
    // Dense rows have an empty column on each side, so a 3x3 stencil stays inside its rows.
    const int64_t wide = (int64_t)bx1 - bx0 + 3;
    const int64_t high = (int64_t)by1 - by0 + 1;
    const bool dense = wide * high <= (int64_t)h->bucket_capacity;
    cr_assert_eq(g->dense, dense, "layout for %lld x %lld cells, capacity %u", (long long)wide,
                 (long long)high, h->bucket_capacity);
    if (dense) {
        cr_assert_eq(g->width, (uint32_t)wide);
        cr_assert_eq(g->buckets, (uint32_t)(wide * high));
    } else {
        cr_assert_eq(g->buckets, h->bucket_capacity);
        cr_assert_eq(g->mask, h->bucket_capacity - 1);
    }

    for (int i = 0; i < n; ++i) {
        const uint32_t k =
            cs_grid_key(g, cs_cell_coord(x[i], g->inv_cell), cs_cell_coord(y[i], g->inv_cell));
        cr_assert_eq(h->keys[i], k, "key of input %d: %u, expected %u", i, h->keys[i], k);
        cr_assert_lt(k, g->buckets);
    }

    unsigned char* seen = calloc((size_t)n, 1);
    cr_assert_not_null(seen);
    for (int s = 0; s < n; ++s) {
        cr_assert_not(seen[h->order[s]], "input %u appears twice in the order", h->order[s]);
        seen[h->order[s]] = 1;
    }
    free(seen);
    for (int s = 1; s < n; ++s) {
        const uint32_t a = h->order[s - 1], b = h->order[s];
        cr_assert(h->keys[a] < h->keys[b] || (h->keys[a] == h->keys[b] && a < b),
                  "slots %d,%d: inputs %u (key %u) then %u (key %u) break the stable order", s - 1,
                  s, a, h->keys[a], b, h->keys[b]);
    }

    uint32_t* below = calloc((size_t)g->buckets + 1, sizeof(uint32_t));
    cr_assert_not_null(below);
    for (int i = 0; i < n; ++i) below[h->keys[i] + 1]++;
    for (uint32_t k = 0; k < g->buckets; ++k) below[k + 1] += below[k];
    for (uint32_t k = 0; k <= g->buckets; ++k)
        cr_assert_eq(h->cell_start[k], below[k], "cell_start[%u] = %u, expected %u", k,
                     h->cell_start[k], below[k]);
    free(below);
}

// (d): the same input sorted on several thread counts gives the same grid, keys, order and table.
static void check_same_sort(const hashed* a, const hashed* b, int threads) {
    const cs_grid *ga = &a->g, *gb = &b->g;
    cr_assert(ga->dense == gb->dense && ga->min_cx == gb->min_cx && ga->min_cy == gb->min_cy &&
                  ga->max_cx == gb->max_cx && ga->max_cy == gb->max_cy && ga->width == gb->width &&
                  ga->buckets == gb->buckets && ga->mask == gb->mask &&
                  ga->inv_cell == gb->inv_cell,
              "grid layout differs with %d threads", threads);
    const size_t n = (size_t)a->n;
    cr_assert_eq(memcmp(a->keys, b->keys, n * sizeof(uint32_t)), 0, "keys differ, %d threads",
                 threads);
    cr_assert_eq(memcmp(a->order, b->order, n * sizeof(uint32_t)), 0, "order differs, %d threads",
                 threads);
    cr_assert_eq(memcmp(a->cell_start, b->cell_start, ((size_t)ga->buckets + 1) * sizeof(uint32_t)),
                 0, "cell_start differs, %d threads", threads);
}

// ---- the kernel's query, re-enacted -------------------------------------------------------------

typedef struct stats {
    uint64_t queries, found, candidates;
    int dense_cases, sparse_cases;
    uint64_t wrapped_rows, full_table_rows;
    uint64_t stencil_queries;
} stats;

typedef struct visitor {
    uint32_t* visits;  // per sorted slot
    uint32_t* touched; // slots with visits > 0, to reset them
    int ntouched;
} visitor;

// Enumerates the candidates of a query box as the neighbor kernel does (b).
static void query_box(const hashed* h, float x0, float y0, float x1, float y1, visitor* v,
                      stats* st) {
    const cs_grid* g = &h->g;
    cs_cell_box box;
    st->queries++;
    if (!cs_grid_box(g, x0, y0, x1, y1, &box)) return;
    for (int32_t cy = box.cy0; cy <= box.cy1; ++cy) {
        uint32_t b[2], e[2];
        const int ranges = cs_grid_row_ranges(g, &box, cy, b, e);
        cr_assert(ranges == 1 || ranges == 2, "%d ranges", ranges);
        if (!g->dense) {
            if ((int64_t)box.cx1 - box.cx0 + 1 >= (int64_t)g->buckets)
                st->full_table_rows++;
            else if (ranges == 2)
                st->wrapped_rows++;
        }
        for (int k = 0; k < ranges; ++k) {
            cr_assert(b[k] <= e[k] && e[k] <= (uint32_t)h->n, "range [%u, %u) of %d agents", b[k],
                      e[k], h->n);
            for (uint32_t j = b[k]; j < e[k]; ++j) {
                if (!g->dense && cs_cell_coord(h->sy[j], g->inv_cell) != cy) continue;
                st->candidates++;
                if (v->visits[j]++ == 0) v->touched[v->ntouched++] = j;
                cr_assert_eq(v->visits[j], 1u, "slot %u enumerated twice (row %d)", j, cy);
            }
        }
    }
}

static void visitor_reset(visitor* v) {
    for (int i = 0; i < v->ntouched; ++i) v->visits[v->touched[i]] = 0;
    v->ntouched = 0;
}

// The kernel's margin: a float-rounded box edge never drops a candidate the exact tests accept.
static float kernel_margin(float px, float py, float reach) {
    return (fabsf(px) + fabsf(py) + reach) * 1e-6f + 1e-6f;
}

// (a) for the separation disc: every agent at d < r (the kernel's d) is enumerated exactly once.
static void check_disc(const hashed* h, float px, float py, float r, visitor* v, stats* st) {
    const float m = kernel_margin(px, py, r);
    const float x0 = px - r, x1 = px + r, y0 = py - r, y1 = py + r;
    query_box(h, x0 - m, y0 - m, x1 + m, y1 + m, v, st);
    for (int j = 0; j < h->n; ++j) {
        const float dx = px - h->sx[j], dy = py - h->sy[j];
        const float d = sqrtf(dx * dx + dy * dy);
        if (!(d < r)) continue;
        st->found++;
        cr_assert_eq(v->visits[j], 1u,
                     "agent at (%.9g, %.9g), d = %.9g < r = %.9g from (%.9g, %.9g), visited %u "
                     "times",
                     (double)h->sx[j], (double)h->sy[j], (double)d, (double)r, (double)px,
                     (double)py, v->visits[j]);
    }
    visitor_reset(v);
}

// (a) for the dense layout's 3x3 stencil, which the kernel uses for a separation disc that fits in
// a cell (r + margin <= cell): queried from sorted slot s with its sorted key, every agent at
// d < r is enumerated exactly once.
static void check_stencil(const hashed* h, int s, float r, visitor* v, stats* st) {
    const cs_grid* g = &h->g;
    const float px = h->sx[s], py = h->sy[s];
    const float m = kernel_margin(px, py, r);
    if (!g->dense || !((r + m) * g->inv_cell <= 1.0f)) return;
    uint32_t b[3], e[3];
    cs_grid_stencil(g, h->sorted_keys[s], b, e);
    st->stencil_queries++;
    const int32_t cx = cs_cell_coord(px, g->inv_cell), cy = cs_cell_coord(py, g->inv_cell);
    for (int k = 0; k < 3; ++k) {
        cr_assert(b[k] <= e[k] && e[k] <= (uint32_t)h->n, "stencil range [%u, %u)", b[k], e[k]);
        for (uint32_t j = b[k]; j < e[k]; ++j) {
            if (v->visits[j]++ == 0) v->touched[v->ntouched++] = j;
            cr_assert_eq(v->visits[j], 1u, "slot %u enumerated twice by the stencil", j);
            // Nothing but the nine cells: row k is cy - 1 + k, columns cx - 1 .. cx + 1.
            const int32_t jx = cs_cell_coord(h->sx[j], g->inv_cell);
            const int32_t jy = cs_cell_coord(h->sy[j], g->inv_cell);
            cr_assert(jy == cy - 1 + k && jx >= cx - 1 && jx <= cx + 1,
                      "stencil row %d of cell (%d, %d) holds an agent of cell (%d, %d)", k, cx, cy,
                      jx, jy);
        }
    }
    for (int j = 0; j < h->n; ++j) {
        const float dx = px - h->sx[j], dy = py - h->sy[j];
        const float d = sqrtf(dx * dx + dy * dy);
        if (!(d < r)) continue;
        cr_assert_eq(v->visits[j], 1u, "stencil of slot %d misses slot %d at d = %.9g < r = %.9g",
                     s, j, (double)d, (double)r);
    }
    visitor_reset(v);
}

// (a) for the queue's forward cone (optionally with the separation disc), with the kernel's box
// and its exact cone test.
static void check_cone(const hashed* h, float px, float py, float vx, float vy, float r,
                       float cone_l, float cone_w, visitor* v, stats* st) {
    const float speed = sqrtf(vx * vx + vy * vy);
    const float hx = vx / speed, hy = vy / speed;
    float x0 = px - r, x1 = px + r, y0 = py - r, y1 = py + r, reach = r;
    const float ex = fabsf(hy) * cone_w, ey = fabsf(hx) * cone_w;
    const float tx = hx * cone_l, ty = hy * cone_l;
    x0 = fminf(x0, px + fminf(0.0f, tx) - ex);
    x1 = fmaxf(x1, px + fmaxf(0.0f, tx) + ex);
    y0 = fminf(y0, py + fminf(0.0f, ty) - ey);
    y1 = fmaxf(y1, py + fmaxf(0.0f, ty) + ey);
    reach = fmaxf(reach, cone_l + cone_w);
    const float m = kernel_margin(px, py, reach);
    query_box(h, x0 - m, y0 - m, x1 + m, y1 + m, v, st);
    for (int j = 0; j < h->n; ++j) {
        const float dx = px - h->sx[j], dy = py - h->sy[j];
        const float d = sqrtf(dx * dx + dy * dy);
        const float along = -dx * hx + -dy * hy;
        const float qx = -dx - hx * along, qy = -dy - hy * along;
        const float perp = sqrtf(qx * qx + qy * qy);
        const bool in_cone = along >= 0.0f && along <= cone_l && perp <= cone_w;
        if (!in_cone && !(d < r)) continue;
        st->found++;
        cr_assert_eq(v->visits[j], 1u,
                     "agent at (%.9g, %.9g) in the cone from (%.9g, %.9g) heading (%.9g, %.9g) "
                     "length %.9g width %.9g (along %.9g, perp %.9g), visited %u times",
                     (double)h->sx[j], (double)h->sy[j], (double)px, (double)py, (double)hx,
                     (double)hy, (double)cone_l, (double)cone_w, (double)along, (double)perp,
                     v->visits[j]);
    }
    visitor_reset(v);
}

// ---- worlds -------------------------------------------------------------------------------------

typedef enum layout {
    LAYOUT_UNIFORM,    // a square around the origin, random extent (dense or sparse)
    LAYOUT_CLUSTERED,  // tight blobs scattered over a few hundred metres
    LAYOUT_NEGATIVE,   // every coordinate negative, far from the origin
    LAYOUT_FAR_APART,  // clusters 1e6 m apart: forces the sparse hashed layout
    LAYOUT_CLAMPED,    // clusters beyond the cell clamp (+-2^30 cells)
    LAYOUT_ONE_CELL,   // every agent in one cell
    LAYOUT_SMALL_CELL, // cells much smaller than the query radius
    LAYOUT_LATTICE,    // points and radii on a quarter-cell lattice: ties on every boundary
    LAYOUT_DUPLICATES, // many agents at exactly the same points
    LAYOUT_COUNT
} layout;

static const char* const layout_names[LAYOUT_COUNT] = {"uniform",    "clustered", "negative",
                                                       "far apart",  "clamped",   "one cell",
                                                       "small cell", "lattice",   "duplicates"};

typedef struct world {
    int n;
    float cell, rmin, rmax;
    float* x;
    float* y;
} world;

static float rnd(scene_rng* r, float lo, float hi) {
    return scene_rng_float(r, lo, hi);
}
static int rndi(scene_rng* r, int n) {
    return (int)(scene_rng_next(r) % (uint64_t)n);
}

// Roughly normal (sum of four uniforms), for clustered crowds.
static float rnd_blob(scene_rng* r, float sigma) {
    float s = 0.0f;
    for (int i = 0; i < 4; ++i) s += rnd(r, -1.0f, 1.0f);
    return s * sigma * 0.866f;
}

// `variant` picks fixed settings some layouts need at least once (seed 1 gets them).
static void world_make(world* w, layout kind, int n, int variant, scene_rng* r) {
    w->n = n;
    w->x = xmalloc(sizeof(float) * (size_t)n);
    w->y = xmalloc(sizeof(float) * (size_t)n);
    w->cell = 2.5f;
    w->rmin = 0.5f;
    w->rmax = 3.0f;
    switch (kind) {
    case LAYOUT_UNIFORM: {
        const float half = rnd(r, 5.0f, 60.0f);
        for (int i = 0; i < n; ++i) w->x[i] = rnd(r, -half, half), w->y[i] = rnd(r, -half, half);
        break;
    }
    case LAYOUT_CLUSTERED: {
        float cx[6], cy[6];
        for (int c = 0; c < 6; ++c)
            cx[c] = rnd(r, -200.0f, 200.0f), cy[c] = rnd(r, -200.0f, 200.0f);
        for (int i = 0; i < n; ++i) {
            const int c = rndi(r, 6);
            w->x[i] = cx[c] + rnd_blob(r, 2.0f);
            w->y[i] = cy[c] + rnd_blob(r, 2.0f);
        }
        break;
    }
    case LAYOUT_NEGATIVE: {
        const float x0 = rnd(r, -5000.0f, -100.0f), y0 = rnd(r, -5000.0f, -100.0f);
        for (int i = 0; i < n; ++i)
            w->x[i] = x0 + rnd(r, -40.0f, 0.0f), w->y[i] = y0 + rnd(r, -40.0f, 0.0f);
        break;
    }
    case LAYOUT_FAR_APART: {
        static const float cx[4] = {0.0f, 1e6f, -1e6f, 3e6f}, cy[4] = {0.0f, -1e6f, 2e6f, 1e6f};
        for (int i = 0; i < n; ++i) {
            const int c = rndi(r, 4);
            w->x[i] = cx[c] + rnd(r, -12.0f, 12.0f);
            w->y[i] = cy[c] + rnd(r, -12.0f, 12.0f);
        }
        break;
    }
    case LAYOUT_CLAMPED: {
        static const float cx[4] = {0.0f, 3e9f, -3e9f, 3e9f}, cy[4] = {0.0f, 3e9f, 1e6f, -3e9f};
        for (int i = 0; i < n; ++i) {
            const int c = rndi(r, 4);
            const float spread = c == 0 ? 10.0f : 2000.0f; // a few float steps at 3e9
            w->x[i] = cx[c] + rnd(r, -spread, spread);
            w->y[i] = cy[c] + rnd(r, -spread, spread);
        }
        break;
    }
    case LAYOUT_ONE_CELL: {
        const float ox = (float)(rndi(r, 40) - 20) * w->cell,
                    oy = (float)(rndi(r, 40) - 20) * w->cell;
        for (int i = 0; i < n; ++i) {
            w->x[i] = ox + rnd(r, 0.0f, w->cell * 0.999f);
            w->y[i] = oy + rnd(r, 0.0f, w->cell * 0.999f);
        }
        break;
    }
    case LAYOUT_SMALL_CELL: {
        // Cells of 0.04 m make a query row wider than a 64-bucket sparse table.
        w->cell = variant == 1 ? 0.04f : rnd(r, 0.04f, 0.5f);
        w->rmin = 0.6f;
        w->rmax = 2.5f;
        const float half = rnd(r, 3.0f, 12.0f);
        for (int i = 0; i < n; ++i) w->x[i] = rnd(r, -half, half), w->y[i] = rnd(r, -half, half);
        break;
    }
    case LAYOUT_LATTICE: {
        w->cell = 1.0f;
        for (int i = 0; i < n; ++i) {
            w->x[i] = (float)(rndi(r, 41) - 20) * 0.25f;
            w->y[i] = (float)(rndi(r, 41) - 20) * 0.25f;
        }
        break;
    }
    case LAYOUT_DUPLICATES: {
        float px[40], py[40];
        for (int c = 0; c < 40; ++c) px[c] = rnd(r, -15.0f, 15.0f), py[c] = rnd(r, -15.0f, 15.0f);
        for (int i = 0; i < n; ++i) {
            const int c = rndi(r, 40);
            w->x[i] = px[c];
            w->y[i] = py[c];
        }
        break;
    }
    case LAYOUT_COUNT:
        break;
    }
}

static void world_free(world* w) {
    free(w->x);
    free(w->y);
}

static uint32_t pow2_at_least(uint32_t v) {
    uint32_t p = 64; // the world's smallest table
    while (p < v) p <<= 1;
    return p;
}

// Sorts one world with each thread count, checks the sort, then checks disc and cone queries
// from every agent and from points between agents.
static void check_world(const world* w, layout kind, uint32_t cap, bool all_threads, scene_rng* r,
                        stats* st) {
    hashed h[THREAD_CASES];
    const int thread_cases = all_threads ? THREAD_CASES : 1;
    for (int t = 0; t < thread_cases; ++t)
        hashed_build(&h[t], w->x, w->y, w->n, w->cell, cap, thread_counts[t]);
    check_sort(&h[0], w->x, w->y, w->cell);
    for (int t = 1; t < thread_cases; ++t) check_same_sort(&h[0], &h[t], thread_counts[t]);
    if (h[0].g.dense)
        st->dense_cases++;
    else
        st->sparse_cases++;

    visitor v = {.visits = calloc((size_t)w->n, sizeof(uint32_t)),
                 .touched = xmalloc(sizeof(uint32_t) * (size_t)w->n)};
    cr_assert_not_null(v.visits);
    const bool lattice = kind == LAYOUT_LATTICE;
    for (int q = 0; q < w->n + 32; ++q) {
        float px, py;
        if (q < w->n) {
            px = w->x[q], py = w->y[q];
        } else { // a point near an agent but not on one
            const int a = rndi(r, w->n);
            px = w->x[a] + rnd(r, -w->cell, w->cell);
            py = w->y[a] + rnd(r, -w->cell, w->cell);
        }
        float rad = rnd(r, w->rmin, w->rmax);
        if (lattice) rad = (float)(1 + rndi(r, 10)) * 0.25f; // exactly on lattice distances
        check_disc(&h[0], px, py, rad, &v, st);
        if (q < w->n) check_stencil(&h[0], q, fminf(rad, w->cell * 0.999f), &v, st);

        float vx = rnd(r, -2.0f, 2.0f), vy = rnd(r, -2.0f, 2.0f);
        if (lattice) vx = (float)(rndi(r, 3) - 1), vy = vx == 0.0f ? 1.0f : (float)(rndi(r, 3) - 1);
        if (vx * vx + vy * vy < 1e-2f) vx = 1.0f;
        const float cone_l = w->cell * rnd(r, 1.2f, 4.0f); // longer than a cell
        const float cone_w = lattice ? 0.5f : w->cell * rnd(r, 0.1f, 1.2f);
        check_cone(&h[0], px, py, vx, vy, (q & 1) ? rad : 0.0f, cone_l, cone_w, &v, st);
    }
    free(v.visits);
    free(v.touched);
    for (int t = 0; t < thread_cases; ++t) hashed_free(&h[t]);
}

static void check_layout(layout kind, int seeds, int n) {
    stats st = {0};
    for (int seed = 1; seed <= seeds; ++seed) {
        scene_rng r = {(uint64_t)seed * 7919u + (uint64_t)kind};
        world w;
        world_make(&w, kind, n, seed, &r);
        // The world's own table size, the smallest (frequent wrap-around) and a large one.
        const uint32_t caps[3] = {pow2_at_least((uint32_t)n), 64u, 1u << 16};
        // Thread counts are compared on the world's own table size (oversubscribed OpenMP teams
        // are slow on small machines; the sort test below covers the rest).
        for (int c = 0; c < 3; ++c) check_world(&w, kind, caps[c], c == 0, &r, &st);
        world_free(&w);
    }
    cr_assert_gt(st.found, st.queries, "%s: the queries found almost nothing (%llu in %llu)",
                 layout_names[kind], (unsigned long long)st.found, (unsigned long long)st.queries);
    cr_assert_geq(st.candidates, st.found);
    if (kind == LAYOUT_FAR_APART || kind == LAYOUT_CLAMPED)
        cr_assert_eq(st.dense_cases, 0, "%s must use the sparse layout", layout_names[kind]);
    if (kind == LAYOUT_ONE_CELL || kind == LAYOUT_LATTICE)
        cr_assert_gt(st.dense_cases, 0, "%s never used the dense layout", layout_names[kind]);
    if (kind == LAYOUT_UNIFORM || kind == LAYOUT_ONE_CELL || kind == LAYOUT_LATTICE)
        cr_assert_gt(st.stencil_queries, 0u, "%s never used the stencil", layout_names[kind]);
    if (kind == LAYOUT_UNIFORM || kind == LAYOUT_SMALL_CELL) {
        cr_assert_gt(st.dense_cases, 0, "%s never used the dense layout", layout_names[kind]);
        cr_assert_gt(st.sparse_cases, 0, "%s never used the sparse layout", layout_names[kind]);
        cr_assert_gt(st.wrapped_rows, 0u, "%s never wrapped a sparse row", layout_names[kind]);
    }
    if (kind == LAYOUT_SMALL_CELL)
        cr_assert_gt(st.full_table_rows, 0u, "a query row never spanned the whole sparse table");
}

static int seeds(void) {
    return small_scale() ? 3 : 10;
}

Test(grid, uniform) {
    check_layout(LAYOUT_UNIFORM, seeds(), 400);
}
Test(grid, clustered) {
    check_layout(LAYOUT_CLUSTERED, seeds(), 400);
}
Test(grid, negative_coordinates) {
    check_layout(LAYOUT_NEGATIVE, seeds(), 400);
}
Test(grid, far_apart_sparse) {
    check_layout(LAYOUT_FAR_APART, seeds(), 400);
}
Test(grid, beyond_cell_clamp) {
    check_layout(LAYOUT_CLAMPED, seeds(), 300);
}
Test(grid, all_in_one_cell) {
    check_layout(LAYOUT_ONE_CELL, seeds(), 300);
}
Test(grid, cell_smaller_than_radius) {
    check_layout(LAYOUT_SMALL_CELL, seeds(), 400);
}
Test(grid, lattice_ties) {
    check_layout(LAYOUT_LATTICE, seeds(), 400);
}
Test(grid, duplicate_points) {
    check_layout(LAYOUT_DUPLICATES, seeds(), 300);
}

// Sort validity and thread-count independence on sizes the chunking can get wrong: empty, fewer
// agents than threads, and large worlds where every thread has a real chunk.
Test(grid, sort_any_size_any_threads) {
    const int sizes[] = {0, 1, 3, 9, 1000, small_scale() ? 5000 : 20000};
    scene_rng r = {42};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
        for (int kind = 0; kind < LAYOUT_COUNT; ++kind) {
            world w;
            world_make(&w, (layout)kind, sizes[i], 0, &r);
            const uint32_t cap = pow2_at_least((uint32_t)sizes[i]);
            hashed h[THREAD_CASES];
            for (int t = 0; t < THREAD_CASES; ++t)
                hashed_build(&h[t], w.x, w.y, w.n, w.cell, cap, thread_counts[t]);
            check_sort(&h[0], w.x, w.y, w.cell);
            for (int t = 1; t < THREAD_CASES; ++t) check_same_sort(&h[0], &h[t], thread_counts[t]);
            for (int t = 0; t < THREAD_CASES; ++t) hashed_free(&h[t]);
            world_free(&w);
        }
    }
}

// An empty grid answers every query with nothing.
Test(grid, empty_world_has_no_candidates) {
    hashed h;
    hashed_build(&h, NULL, NULL, 0, 2.5f, 64, 1);
    check_sort(&h, NULL, NULL, 2.5f);
    cs_cell_box box;
    if (cs_grid_box(&h.g, -10.0f, -10.0f, 10.0f, 10.0f, &box)) {
        for (int32_t cy = box.cy0; cy <= box.cy1; ++cy) {
            uint32_t b[2], e[2];
            const int ranges = cs_grid_row_ranges(&h.g, &box, cy, b, e);
            for (int k = 0; k < ranges; ++k) cr_assert_eq(b[k], e[k]);
        }
    }
    hashed_free(&h);
}
