// Cell-sorted spatial hash on an unbounded plane.
//
// A cell (cx, cy) = floor(p / cell_size) gets a bucket key laid out row by row, so the cells
// cx0..cx1 of one row are the contiguous keys base(cy) + cx0 .. base(cy) + cx1 and, after the
// counting sort, one contiguous range of sorted agents. Two layouts:
//  - dense: when the agents' cell bounding box, widened by one empty column on each side, has at
//    most `bucket_capacity` cells, base(cy) = (cy - min_cy) * width - min_cx + 1 with width =
//    max_cx - min_cx + 3; keys are collision-free and rows never overlap. The empty columns keep
//    the 3x3 stencil of any occupied cell inside its three rows: its ranges hold exactly the agents
//    of those nine cells, whatever the bounding box is (see cs_grid_stencil);
//  - sparse: otherwise (agents far apart), base(cy) = mix(cy) and keys wrap modulo a power of two.
//    Rows may then share keys, so a query accepts a candidate only while visiting its own row:
//    every agent is visited at most once and the exact distance tests reject the rest.
#ifndef CS_GRID_H
#define CS_GRID_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

// Cell coordinates are clamped to +-2^30 so that far-away agents still get a (shared) cell; the
// mapping stays monotone, which is all the range queries need.
#define CS_CELL_CLAMP 1073741824.0f

typedef struct cs_grid {
    float inv_cell;
    bool dense;
    int32_t min_cx, min_cy, max_cx, max_cy; // occupied cell bounding box
    uint32_t width;                         // dense row stride
    uint32_t buckets;                       // keys in use: width * height (dense) or mask + 1
    uint32_t mask;                          // sparse: buckets - 1
    const uint32_t* cell_start;             // sorted slots of bucket k: [start[k], start[k + 1])
    // The most agents one bucket holds (a cell's, or in the sparse layout the cells' that share a
    // key): bounds what any query box of c cells can hold by c * max_pop, so the neighbor pass
    // counts a box's candidates only where that bound passes its budget.
    uint32_t max_pop;
} cs_grid;

// Written so that NaN (a position that overflowed) also lands on a clamped cell: converting an
// out-of-range float to an integer is undefined behavior.
static inline int32_t cs_cell_coord(float v, float inv_cell) {
    float c = floorf(v * inv_cell);
    c = c >= -CS_CELL_CLAMP ? c : -CS_CELL_CLAMP;
    c = c <= CS_CELL_CLAMP ? c : CS_CELL_CLAMP;
    return (int32_t)c;
}

// A 32-bit integer finalizer (lowbias32): spreads consecutive rows across the sparse table.
static inline uint32_t cs_mix32(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

static inline uint32_t cs_grid_row_base(const cs_grid* g, int32_t cy) {
    if (g->dense) return (uint32_t)(cy - g->min_cy) * g->width - (uint32_t)g->min_cx + 1u;
    return cs_mix32((uint32_t)cy);
}

static inline uint32_t cs_grid_key(const cs_grid* g, int32_t cx, int32_t cy) {
    uint32_t k = cs_grid_row_base(g, cy) + (uint32_t)cx;
    return g->dense ? k : (k & g->mask);
}

// The key of the point (x, y) in the dense layout, written out (no layout test) for vector loops:
// the sort's keys, and the neighbor pass's, which computes them again rather than keep them (a
// slot's key follows from its position between the sort and the integration).
static inline uint32_t cs_grid_dense_key(float x, float y, float inv_cell, uint32_t width,
                                         int32_t min_cx, int32_t min_cy) {
    return (uint32_t)(cs_cell_coord(y, inv_cell) - min_cy) * width +
           (uint32_t)(cs_cell_coord(x, inv_cell) - min_cx) + 1u;
}

// A box of cells, corners included.
typedef struct cs_cell_box {
    int32_t cx0, cy0, cx1, cy1;
} cs_cell_box;

// The cells that (x0, y0)-(x1, y1) touches: exactly the cells its corners fall in (a cone's box
// then walks about a third fewer candidates than one padded to a fixed span). A NaN corner clamps
// to the lowest cell, so a NaN query finds nothing, which its exact tests would have rejected
// anyway.
static inline cs_cell_box cs_grid_cells(const cs_grid* g, float x0, float y0, float x1, float y1) {
    return (cs_cell_box){cs_cell_coord(x0, g->inv_cell), cs_cell_coord(y0, g->inv_cell),
                         cs_cell_coord(x1, g->inv_cell), cs_cell_coord(y1, g->inv_cell)};
}

// Clips a box of cells to the occupied bounding box (which drops only empty cells); returns false
// when nothing is left.
static inline bool cs_grid_clip(const cs_grid* g, cs_cell_box* box) {
    if (box->cx0 < g->min_cx) box->cx0 = g->min_cx;
    if (box->cy0 < g->min_cy) box->cy0 = g->min_cy;
    if (box->cx1 > g->max_cx) box->cx1 = g->max_cx;
    if (box->cy1 > g->max_cy) box->cy1 = g->max_cy;
    return box->cx0 <= box->cx1 && box->cy0 <= box->cy1;
}

// cs_grid_cells, clipped; false when the box misses every occupied cell.
static inline bool cs_grid_box(const cs_grid* g, float x0, float y0, float x1, float y1,
                               cs_cell_box* box) {
    *box = cs_grid_cells(g, x0, y0, x1, y1);
    return cs_grid_clip(g, box);
}

// The sorted-slot ranges of row cy, columns box->cx0..cx1: one range, or two where a sparse row
// wraps around the end of the table. Returns the number of ranges written to begin/end.
static inline int cs_grid_row_ranges(const cs_grid* g, const cs_cell_box* box, int32_t cy,
                                     uint32_t begin[2], uint32_t end[2]) {
    const uint32_t* start = g->cell_start;
    if (g->dense) {
        uint32_t base = cs_grid_row_base(g, cy);
        begin[0] = start[base + (uint32_t)box->cx0];
        end[0] = start[base + (uint32_t)box->cx1 + 1];
        return 1;
    }
    uint64_t len = (uint64_t)((int64_t)box->cx1 - box->cx0 + 1);
    if (len >= g->buckets) {
        begin[0] = start[0];
        end[0] = start[g->buckets];
        return 1;
    }
    uint32_t k0 = cs_grid_key(g, box->cx0, cy);
    if (k0 + len <= g->buckets) {
        begin[0] = start[k0];
        end[0] = start[k0 + len];
        return 1;
    }
    begin[0] = start[k0];
    end[0] = start[g->buckets];
    begin[1] = start[0];
    end[1] = start[k0 + len - g->buckets];
    return 2;
}

// The 3x3 stencil around the occupied cell with dense key `key`: the sorted-slot ranges of its
// three rows (the row's own cell and its left and right neighbors; rows past the table's ends are
// empty). Covers every agent within one cell edge of any point of the cell. The empty columns at
// both ends of every row keep each range inside its row, so the ranges hold the agents of exactly
// these nine cells: the same candidates, in the same order, as the box walk over the same cells.
static inline void cs_grid_stencil(const cs_grid* g, uint32_t key, uint32_t begin[3],
                                   uint32_t end[3]) {
    const int64_t last = (int64_t)g->buckets - 1;
    for (int r = 0; r < 3; ++r) {
        int64_t k0 = (int64_t)key + (r - 1) * (int64_t)g->width - 1, k1 = k0 + 2;
        k0 = k0 < 0 ? 0 : k0;
        k1 = k1 > last ? last : k1;
        const bool empty = k0 > k1;
        begin[r] = empty ? 0 : g->cell_start[k0];
        end[r] = empty ? 0 : g->cell_start[k1 + 1];
    }
}

// Counting sort of n points into cell order (stable: equal keys keep their input order).
// Writes keys[n], order[n] (order[s] = input index of sorted slot s), sorted_keys[n] (the key of
// sorted slot s) and cell_start[buckets + 1],
// and sets every field of *g but cell_start's pointer, which the caller owns. `hist` holds
// (threads - 1) * bucket_capacity counters (cell_start serves as one thread's). Runs on up to
// `threads` OpenMP threads; the result does not depend on the thread count.
void cs_grid_sort(cs_grid* g, float cell_size, const float* x, const float* y, int n,
                  uint32_t bucket_capacity, uint32_t* hist, int threads, uint32_t* keys,
                  uint32_t* order, uint32_t* sorted_keys, uint32_t* cell_start);

#endif
