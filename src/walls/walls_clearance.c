// The clearance pass, in the neighbor phase before the neighbor pass (step.c): every agent's wall
// clearance, sight clearance and probe clearance into w->wall_clear / w->wall_sight /
// w->wall_probe, read by the neighbor pass (which agents test line of sight) and by the walls
// behavior's passes of the same step (the force and the clamp skip agents whose clearance exceeds
// their reach). Every consumer uses the bounds only to skip work that would find nothing, so a
// lower bound changes no result, only the work done; two kinds are computed. The box bounds
// (block_box) come from the box clearances of the agent's cell and the next one along its
// velocity, 4 bytes a cell: an agent in the middle of a street, walking along it, is done with
// them. The others get the full bounds (block_keys, block_key) from their cell's summary, 64 bytes
// a cell: tight beside one wall or at a corner. An agent the bounds leave with work reads its
// cell's list itself (cs_walls_list_at, or from the summary for line of sight: cs_sight_cell). The
// pass reads the agents' sorted positions and velocities and the static segment grid, and writes
// only its own agents' slots, so the result does not depend on the thread count.
#include "core/internal.h"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

// Agents whose bounds are worked out together (see cs_walls_clearance_range).
#define CS_WALL_BLOCK 32

// The agents' cells.
static void block_cells(const cs_walls* g, const float* px, const float* py, int n, int32_t* cx,
                        int32_t* cy) {
    for (int k = 0; k < n; ++k) {
        cx[k] = cs_cell_coord(px[k], g->inv_cell);
        cy[k] = cs_cell_coord(py[k], g->inv_cell);
    }
}

// The summary's fields as block_key reads them, one column each (see block_keys).
enum { SUM_FIELDS = 13 };
_Static_assert(offsetof(cs_wall_sum, rest) == 8 * sizeof(float) &&
                   offsetof(cs_wall_sum, pair) == 12 * sizeof(float),
               "block_key's fields are the summary's first 13");

// A summary for agents without a list (its values are not used; they only keep the lanes finite).
static const cs_wall_sum NO_SUM = {.k = {{0.0f, 0.0f, 1.0f, 0.0f}, {0.0f, 0.0f, 1.0f, 0.0f}},
                                   .pair = CS_WALL_NO_TERM};

// A summary as 16 lanes of 4 bytes (cs_wall_sum is one 64-byte line).
typedef float cs_sum_row __attribute__((vector_size(64)));
_Static_assert(sizeof(cs_wall_sum) == sizeof(cs_sum_row), "a summary is one row");

// Transposes 16 rows of 16 lanes in place: after four rounds that interleave row i with row i + 8
// (into rows 2i and 2i + 1), lane q of row k has moved to lane k of row q. Whole rows move with
// vector shuffles, where a column gathered lane by lane costs a load and an insert per lane.
static inline void transpose16(cs_sum_row* r) {
    for (int round = 0; round < 4; ++round) {
        cs_sum_row t[16];
        for (int i = 0; i < 8; ++i) {
            t[2 * i] = __builtin_shufflevector(r[i], r[i + 8], 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5,
                                               21, 6, 22, 7, 23);
            t[2 * i + 1] = __builtin_shufflevector(r[i], r[i + 8], 8, 24, 9, 25, 10, 26, 11, 27, 12,
                                                   28, 13, 29, 14, 30, 15, 31);
        }
        for (int i = 0; i < 16; ++i) r[i] = t[i];
    }
}

// The full bounds' lookups: each agent's list (start and length) and its cell's summary
// (cs_wall_sum) as columns for block_key's lanes, from the direct index when there is one, else
// from the table, where the summary is computed from the list, the same as the index would hold
// it; so the bounds do not depend on which one answers. From the index, each agent's summary
// (NO_SUM for a cell without a list: count and start 0) is read as one row, and 16 rows are
// transposed at a time into the summaries' fields (its lines were fetched as the agents joined
// the queue).
static void block_keys_dir(const cs_walls* g, uint32_t* restrict cnt, uint32_t* restrict start,
                           float (*restrict key)[CS_WALL_BLOCK], int n, const int32_t* restrict cx,
                           const int32_t* restrict cy) {
    enum {
        COUNT = offsetof(cs_wall_sum, count) / sizeof(float),
        START = offsetof(cs_wall_sum, start) / sizeof(float)
    };
    const uint32_t dw = g->dir_w, dh = g->dir_h, x0 = (uint32_t)g->dir_x0, y0 = (uint32_t)g->dir_y0;
    for (int k0 = 0; k0 < n; k0 += 16) {
        cs_sum_row r[16];
        for (int j = 0; j < 16; ++j) {
            const int k = k0 + j;
            // Cell coordinates less the box's corner in unsigned arithmetic: one test per axis
            // (the coordinates are clamped to +-2^30, so a cell left of the box never wraps
            // into it).
            const uint32_t x = k < n ? (uint32_t)cx[k] - x0 : dw,
                           y = k < n ? (uint32_t)cy[k] - y0 : dh;
            const cs_wall_sum* e = x < dw && y < dh ? &g->dsum[y * dw + x] : &NO_SUM;
            memcpy(&r[j], e->count ? e : &NO_SUM, sizeof r[j]);
        }
        transpose16(r);
        const int m = n - k0 < 16 ? n - k0 : 16;
        for (int q = 0; q < SUM_FIELDS; ++q) memcpy(&key[q][k0], &r[q], sizeof(float) * m);
        memcpy(&cnt[k0], &r[COUNT], sizeof(uint32_t) * m);
        memcpy(&start[k0], &r[START], sizeof(uint32_t) * m);
    }
}

static void block_keys(const cs_walls* g, uint32_t* cnt, uint32_t* start,
                       float (*key)[CS_WALL_BLOCK], int n, const int32_t* cx, const int32_t* cy) {
    if (g->dir) {
        block_keys_dir(g, cnt, start, key, n, cx, cy);
        return;
    }
    // The current cell's list and fields, kept in registers across its run of agents.
    cs_wall_ref ref = {0, 0};
    cs_wall_sum sum;
    float f[SUM_FIELDS];
    for (int k = 0; k < n; ++k) {
        if (k == 0 || cx[k] != cx[k - 1] || cy[k] != cy[k - 1]) {
            const cs_wall_sum* e = &NO_SUM;
            ref = g->table_cap ? cs_walls_ref(g, cs_walls_slot(g, cx[k], cy[k]))
                               : (cs_wall_ref){0, 0};
            if (ref.count) {
                sum = cs_walls_sum_of(g, cx[k], cy[k], g->segs + ref.start, ref.count);
                e = &sum;
            }
            for (int q = 0; q < 8; ++q) f[q] = e->k[q >> 2][q & 3];
            f[8] = e->rest, f[9] = e->sight;
            f[10] = e->open[0], f[11] = e->open[1], f[12] = e->pair;
        }
        cnt[k] = ref.count, start[k] = ref.start;
        for (int q = 0; q < SUM_FIELDS; ++q) key[q][k] = f[q];
    }
}

// The squared distance from (x, y) to the segment from (ax, ay) along (ex, ey), inv = 1 / |e|^2.
// A closest point off by a rounding of u is still on the segment, so the distance only grows by
// its square; the passes' margins cover that.
static inline __attribute__((always_inline)) float
seg_d2_inv(float ax, float ay, float ex, float ey, float inv, float x, float y) {
    float u = ((x - ax) * ex + (y - ay) * ey) * inv;
    u = u < 0.0f ? 0.0f : (u > 1.0f ? 1.0f : u);
    const float dx = x - (ax + u * ex), dy = y - (ay + u * ey);
    return dx * dx + dy * dy;
}

// The probe's distance bound to one key (from (ax, ay) along (ex, ey), inv = 1 / |e|^2): the
// segment-segment distance, the least of the four end points' distances to the other segment,
// unless the two may cross (neither lies on one side of the other's line by more than the
// margin m), when it is 0. dp2 is the agent's own squared distance to the key.
static inline __attribute__((always_inline)) float probe_key(float x, float y, float lx, float ly,
                                                             float linv, float ax, float ay,
                                                             float ex, float ey, float inv,
                                                             float dp2, float m) {
    const float qx = x + lx, qy = y + ly, bx = ax + ex, by = ay + ey;
    const float dq2 = seg_d2_inv(ax, ay, ex, ey, inv, qx, qy);
    const float da2 = seg_d2_inv(x, y, lx, ly, linv, ax, ay);
    const float db2 = seg_d2_inv(x, y, lx, ly, linv, bx, by);
    float d2 = dp2 < dq2 ? dp2 : dq2;
    d2 = da2 < d2 ? da2 : d2;
    d2 = db2 < d2 ? db2 : d2;
    // Sides of the agent's centre and the probe's end from the key's line, and of the key's end
    // points from the probe's line (cross products: distances times the lines' lengths).
    const float o3 = ex * (y - ay) - ey * (x - ax), o4 = ex * (qy - ay) - ey * (qx - ax);
    const float o1 = lx * (ay - y) - ly * (ax - x), o2 = lx * (by - y) - ly * (bx - x);
    const float e2 = (ex * ex + ey * ey) * m * m, l2 = (lx * lx + ly * ly) * m * m;
    const bool apart = (o3 * o4 > 0.0f && o3 * o3 > e2 && o4 * o4 > e2) ||
                       (o1 * o2 > 0.0f && o1 * o1 > l2 && o2 * o2 > l2);
    return apart ? sqrtf(d2) : 0.0f;
}

// Stage three: every bound from the agent's cell summary (see cs_wall_sum), a few operations per
// agent whatever the list's length. Every consumer uses these bounds only to skip work that would
// find nothing, so a bound below the true value changes no result, only the work done. With d0,
// d1 the distances to the two keys and r the summary's rest (all capped at the list's reach: a
// segment not in the list is at least that far):
//   - clearance: min(d0, d1, r), exact when r is not the least (an agent beside a block's side or
//     at its corner).
//   - sight clearance (w->wall_sight): a lower bound of the distance to the walls that could hide
//     a neighbor, so that a sight line no longer than it meets no wall. A sight line joins two
//     agents' centres, and no centre is ever inside a solid, so a line that meets a convex polygon
//     enters and leaves it through two of its edges, and one of them is not the polygon's nearest:
//     the line is at least as long as the distance to the polygon's second nearest edge. It also
//     leaves through an edge whose line the agent is not outside of (entering, it crossed the
//     line of an edge facing it), so when the agent is outside both keys' lines, diagonal to a
//     block's corner, the line leaves through another edge. The bound is the least of the
//     summary's sight (the other segments' share), d_i for an open key i and, for two keys of one
//     convex polygon (see sum_of in walls_grid.c), max(d0, d1) unless the agent is outside both
//     their lines, raised to the clearance when that is larger. An agent walking along a block
//     or diagonal to its corner tests no line of sight (0.97% of the town's agents test it, 1.7%
//     with max(d0, d1) at every corner).
//   - probe clearance (w->wall_probe): a lower bound of the distance from the walls to the probe,
//     the segment from the agent's centre P to P + velocity * walls.probe_time, of length l: the
//     least of the probe's distances to the two keys (probe_key) and r - l (the other segments
//     are at least r from P, and no point of the probe is more than l from P). An agent walking
//     along a wall has its probe exactly as far from the wall as the nearer of its ends, so the
//     wall force looks at 2.1% of the town's agents, of whom 2% have a wall within two radii of
//     their probe.
static void block_key(const cs_walls* g, const float* restrict px, const float* restrict py,
                      const float* restrict vx, const float* restrict vy, float probe_time,
                      const uint32_t* restrict cnt, float (*restrict key)[CS_WALL_BLOCK],
                      float* restrict out, float* restrict sight, float* restrict probe, int n) {
#pragma omp simd
    for (int k = 0; k < n; ++k) {
        const float x = px[k], y = py[k];
        const bool some = cnt[k] != 0;
        const float reach = cs_walls_reach(g, x, y), margin = (fabsf(x) + fabsf(y)) * 1e-6f;
        const float a0x = key[0][k], a0y = key[1][k], e0x = key[2][k] - a0x, e0y = key[3][k] - a0y;
        const float a1x = key[4][k], a1y = key[5][k], e1x = key[6][k] - a1x, e1y = key[7][k] - a1y;
        const float inv0 = 1.0f / (e0x * e0x + e0y * e0y), inv1 = 1.0f / (e1x * e1x + e1y * e1y);
        const float d02 = seg_d2_inv(a0x, a0y, e0x, e0y, inv0, x, y);
        const float d12 = seg_d2_inv(a1x, a1y, e1x, e1y, inv1, x, y);
        const float d0 = sqrtf(d02), d1 = sqrtf(d12);
        const float rest = key[8][k] < reach ? key[8][k] : reach;
        float near = d0 < d1 ? d0 : d1;
        near = near < rest ? near : rest;
        const float clear = near - margin - 1e-4f;
        out[k] = some ? clear : reach;
        float sg = key[9][k] < reach ? key[9][k] : reach;
        const float lx = vx[k] * probe_time, ly = vy[k] * probe_time;
        const float l2 = lx * lx + ly * ly;
        float len = sqrtf(l2);
        len += len * 1e-5f;
        const float linv = l2 > 1e-30f ? 1.0f / l2 : 0.0f;
        const float m = (fabsf(x) + fabsf(y) + fabsf(lx) + fabsf(ly)) * 1e-6f + 1e-4f;
        const float m0 = m + (fabsf(e0x) + fabsf(e0y)) * 1e-6f,
                    m1 = m + (fabsf(e1x) + fabsf(e1y)) * 1e-6f;
        // The keys' terms come with 0 (they count) or a huge number (they do not) added, which
        // keeps the loop free of branches. A pair's term is max(d0, d1), or none when the agent is
        // outside both keys' lines by more than the margin (see the sight clearance above): the
        // pair's polygon winds as key[12] says (the inside on the left of each edge for +1).
        const float t0 = d0 + key[10][k], t1 = d1 + key[11][k];
        const float turn = key[12][k];
        const float c0 = e0x * (y - a0y) - e0y * (x - a0x), c1 = e1x * (y - a1y) - e1y * (x - a1x);
        const bool out0 = (c0 * turn < 0.0f) & (c0 * c0 > (e0x * e0x + e0y * e0y) * m0 * m0);
        const bool out1 = (c1 * turn < 0.0f) & (c1 * c1 > (e1x * e1x + e1y * e1y) * m1 * m1);
        const bool paired = fabsf(turn) < 2.0f;
        // (& rather than &&: a branch here keeps gcc from vectorizing the loop)
        const float t2 = (paired & !(out0 & out1)) ? (d0 > d1 ? d0 : d1) : CS_WALL_NO_TERM;
        sg = t0 < sg ? t0 : sg;
        sg = t1 < sg ? t1 : sg;
        sg = t2 < sg ? t2 : sg;
        sg -= margin + 1e-4f;
        sg = sg > clear ? sg : clear;
        sight[k] = some ? sg : reach;
        const float p0 = probe_key(x, y, lx, ly, linv, a0x, a0y, e0x, e0y, inv0, d02, m0) - m0;
        const float p1 = probe_key(x, y, lx, ly, linv, a1x, a1y, e1x, e1y, inv1, d12, m1) - m1;
        float b = (some ? rest : reach) - len - m;
        b = some && p0 < b ? p0 : b;
        b = some && p1 < b ? p1 : b;
        b = b < out[k] ? b : out[k];
        probe[k] = b - 1e-4f;
    }
}

// The box clearances b0 = box[i0[k]], b1 = box[i1[k]] (CS_WALL_NO_TERM where the index is -1)
// of agents [k0, k1), one by one.
static inline void box_lookup(const float* restrict box, int k0, int k1, const int32_t* restrict i0,
                              const int32_t* restrict i1, float* restrict b0, float* restrict b1) {
#pragma omp simd
    for (int k = k0; k < k1; ++k) {
        const int32_t a = i0[k] < 0 ? 0 : i0[k], b = i1[k] < 0 ? 0 : i1[k];
        const float e0 = box[a], e1 = box[b];
        b0[k] = i0[k] < 0 ? CS_WALL_NO_TERM : e0;
        b1[k] = i1[k] < 0 ? CS_WALL_NO_TERM : e1;
    }
}

// The same for the agents of a block (box_lookup), 16 at a time, where i1[k] is -1 or the entry
// beside i0[k] in its row (i0[k] +- 1) or in the rows above and below (i0[k] +- dw). Agents
// sorted by cell mostly have the cells of 16 within a few dozen entries of one row: with AVX-512
// such a group's lookups are three windows of 32 entries (the run of the row, the row above, the
// row below) loaded whole and permuted, where a lookup lane by lane costs a load and an insert
// per lane. The other groups (four in ten in the town) are looked up lane by lane. The values are
// the same either way: only the loads differ.
static void box_lookups(const float* restrict box, uint32_t dw, uint64_t cells, int n,
                        const int32_t* restrict i0, const int32_t* restrict i1, float* restrict b0,
                        float* restrict b1) {
    int k = 0;
#if defined(__AVX512F__)
    const __m512i one = _mm512_set1_epi32(1), row = _mm512_set1_epi32((int32_t)dw);
    const __m512i zero = _mm512_setzero_si512(), minus_row = _mm512_sub_epi32(zero, row);
    const __m512 none = _mm512_set1_ps(CS_WALL_NO_TERM);
    for (; k + 16 <= n; k += 16) {
        const __m512i a = _mm512_loadu_si512(i0 + k), b = _mm512_loadu_si512(i1 + k);
        const int32_t lo = _mm512_reduce_min_epi32(a), hi = _mm512_reduce_max_epi32(a);
        // Every agent in the index, their cells within 30 entries, and the three windows (from
        // lo - 1, lo - dw and lo + dw, 32 entries each) inside the index.
        if (lo < 0 || hi - lo > 29 || (uint64_t)lo < (uint64_t)dw + 1 ||
            (uint64_t)lo + dw + 32 > cells) {
            box_lookup(box, k, k + 16, i0, i1, b0, b1);
            continue;
        }
        const float* mid = box + (lo - 1);
        const float* up = box + (lo - (int32_t)dw);
        const float* down = box + (lo + (int32_t)dw);
        const __m512i at = _mm512_sub_epi32(a, _mm512_set1_epi32(lo)); // 0..29
        const __m512i d = _mm512_sub_epi32(b, a); // +-1 or +-dw where i1 is an entry
        const __m512 m0 = _mm512_loadu_ps(mid), m1 = _mm512_loadu_ps(mid + 16);
        const __m512 e0 = _mm512_permutex2var_ps(m0, _mm512_add_epi32(at, one), m1);
        // The row's neighbors from the middle window at i1 - (lo - 1); those above and below
        // from theirs, at i0 - lo.
        const __m512i at1 = _mm512_add_epi32(_mm512_add_epi32(at, d), one);
        __m512 e1 = _mm512_permutex2var_ps(m0, at1, m1);
        const __m512 above =
            _mm512_permutex2var_ps(_mm512_loadu_ps(up), at, _mm512_loadu_ps(up + 16));
        const __m512 below =
            _mm512_permutex2var_ps(_mm512_loadu_ps(down), at, _mm512_loadu_ps(down + 16));
        e1 = _mm512_mask_mov_ps(e1, _mm512_cmpeq_epi32_mask(d, minus_row), above);
        e1 = _mm512_mask_mov_ps(e1, _mm512_cmpeq_epi32_mask(d, row), below);
        e1 = _mm512_mask_mov_ps(e1, _mm512_cmplt_epi32_mask(b, zero), none);
        _mm512_storeu_ps(b0 + k, e0);
        _mm512_storeu_ps(b1 + k, e1);
    }
#else
    (void)dw, (void)cells;
#endif
    box_lookup(box, k, n, i0, i1, b0, b1);
}

// The box bounds of a block of agents, from the direct index: bounds from its cell's box clearance
// (cs_walls.dbox: a lower bound of the distance from every point of the cell to every wall) with no
// segment read:
//   - clearance and sight clearance: the cell's box clearance b0 (the sight clearance is never
//     below the clearance);
//   - probe clearance: the probe runs along the velocity's larger component for at most its
//     length, so when that is at most a cell edge, the probe lies in the cell and the next one
//     that way, widened across by the smaller component's length; the walls are then at least
//     min(b0, b1) away, less that width (b1 the next cell's box clearance). A longer probe gets
//     b0 less its length.
// Each is capped at the list's reach like the full bounds, and lowered for rounding. Agents in
// the middle of a street, walking along it, are done with these: they let every consumer skip
// (clearance and sight clearance above the separation radius, probe clearance above the wall
// force's band). The others are listed in `full` (returns how many) with their cells' entries
// (`entry`, -1 for none), for the full bounds.
static int block_box(crowd_world* w, int s, int n, const int32_t* restrict cx,
                     const int32_t* restrict cy, int* restrict full, int32_t* restrict entry) {
    const cs_walls* g = &w->walls;
    const float* restrict px = w->cur.px + s;
    const float* restrict py = w->cur.py + s;
    const float* restrict vx = w->cur.vx + s;
    const float* restrict vy = w->cur.vy + s;
    const float* restrict sep = w->cur.sep_radius + s;
    float* restrict clear = w->wall_clear + s;
    float* restrict sight = w->wall_sight + s;
    float* restrict probe = w->wall_probe + s;
    const uint32_t dw = g->dir_w, dh = g->dir_h, x0 = (uint32_t)g->dir_x0, y0 = (uint32_t)g->dir_y0;
    const float* restrict box = g->dbox;
    const float t = w->walls.probe_time, band = 2.0f * w->radius_max;
    const float edge = g->cell_size * 0.999f; // the cell edge of cs_walls_reach
    int32_t i0[CS_WALL_BLOCK], i1[CS_WALL_BLOCK], more[CS_WALL_BLOCK];
    float b0[CS_WALL_BLOCK], b1[CS_WALL_BLOCK];
    // The entries of the agent's cell and of the next one along its velocity's larger component
    // (-1 for none), then their values (box_lookups), then the bounds: each a vector loop.
#pragma omp simd
    for (int k = 0; k < n; ++k) {
        // See block_keys_dir for the unsigned box test.
        const uint32_t x = (uint32_t)cx[k] - x0, y = (uint32_t)cy[k] - y0;
        const bool along_x = fabsf(vx[k]) >= fabsf(vy[k]);
        const uint32_t sx = vx[k] < 0.0f ? UINT32_MAX : 1u, sy = vy[k] < 0.0f ? UINT32_MAX : 1u;
        const uint32_t x1 = x + (along_x ? sx : 0u), y1 = y + (along_x ? 0u : sy);
        i0[k] = x < dw && y < dh ? (int32_t)(y * dw + x) : -1;
        i1[k] = x1 < dw && y1 < dh ? (int32_t)(y1 * dw + x1) : -1;
    }
    box_lookups(box, dw, (uint64_t)dw * dh, n, i0, i1, b0, b1);
#pragma omp simd
    for (int k = 0; k < n; ++k) {
        const float ax = fabsf(vx[k]), ay = fabsf(vy[k]);
        const bool along_x = ax >= ay;
        // cs_walls_reach, with its cell edge read before the loop (the call inside keeps gcc
        // from vectorizing it).
        const float reach = edge - (fabsf(px[k]) + fabsf(py[k])) * 1e-6f;
        const float margin = (fabsf(px[k]) + fabsf(py[k])) * 1e-6f + 1e-4f;
        const float c = (b0[k] < reach ? b0[k] : reach) - margin;
        float along = (along_x ? ax : ay) * t, across = (along_x ? ay : ax) * t;
        along += along * 1e-5f, across += across * 1e-5f;
        float b = b0[k] < b1[k] ? b0[k] : b1[k];
        b = b < reach ? b : reach;
        float p = along <= edge ? b - across - margin : c - along - across;
        p = p < c ? p : c;
        clear[k] = c;
        sight[k] = c;
        probe[k] = p;
        more[k] = !((c >= sep[k] * 1.001f + 1e-3f) & (p >= band));
    }
    // The few left with work, from a mask built in a vector loop: a scalar loop over every agent
    // that stored each one and counted the set flags took a quarter of block_box's time.
    _Static_assert(CS_WALL_BLOCK <= 32, "one mask bit an agent");
    uint32_t mask = 0;
    for (int k = 0; k < n; ++k) mask |= (uint32_t)more[k] << k;
    int m = 0;
    for (; mask; mask &= mask - 1, ++m) {
        const int k = __builtin_ctz(mask);
        full[m] = k, entry[m] = i0[k];
    }
    return m;
}

// The agents waiting for their full bounds (see cs_walls_clearance_range): their slots and cells.
typedef struct full_queue {
    int n;
    int slot[2 * CS_WALL_BLOCK];
    int32_t cx[2 * CS_WALL_BLOCK], cy[2 * CS_WALL_BLOCK];
} full_queue;

// The full bounds of the first n agents of the queue (block_keys, block_key), written to their
// slots; the rest move to the front.
static void full_bounds(crowd_world* w, full_queue* q, int n) {
    const cs_walls* g = &w->walls;
    float px[CS_WALL_BLOCK], py[CS_WALL_BLOCK], vx[CS_WALL_BLOCK], vy[CS_WALL_BLOCK];
    float clear[CS_WALL_BLOCK], sight[CS_WALL_BLOCK], probe[CS_WALL_BLOCK];
    uint32_t cnt[CS_WALL_BLOCK], start[CS_WALL_BLOCK]; // the lists
    float key[SUM_FIELDS][CS_WALL_BLOCK]; // the summaries' fields as columns (see block_keys)
    for (int i = 0; i < n; ++i) {
        const int at = q->slot[i];
        px[i] = w->cur.px[at], py[i] = w->cur.py[at];
        vx[i] = w->cur.vx[at], vy[i] = w->cur.vy[at];
    }
    block_keys(g, cnt, start, key, n, q->cx, q->cy);
    block_key(g, px, py, vx, vy, w->walls.probe_time, cnt, key, clear, sight, probe, n);
    const float band = 2.0f * w->radius_max;
    for (int i = 0; i < n; ++i) {
        const int at = q->slot[i];
        w->wall_clear[at] = clear[i];
        w->wall_sight[at] = sight[i];
        w->wall_probe[at] = probe[i];
        // An agent that will test line of sight (the neighbor loop runs on the chunk next) or look
        // for the wall force reads its cell's list: its first three lines (three segments and a
        // bit a line) fetched now.
        if (cnt[i] && (sight[i] < w->cur.sep_radius[at] * 1.001f + 1e-3f || probe[i] < band))
            for (uint32_t k = 0; k < cnt[i] && k < 9; k += 3)
                __builtin_prefetch(g->segs + start[i] + k);
    }
    q->n -= n;
    for (int i = 0; i < q->n; ++i)
        q->slot[i] = q->slot[n + i], q->cx[i] = q->cx[n + i], q->cy[i] = q->cy[n + i];
}

// The pass runs on blocks of agents: their cells and box bounds (block_box, with the direct
// index); those the box bounds leave with work to do wait in a queue for their full bounds
// (full_bounds), a block of them at a time, so that its vector loops run full; their cells'
// summaries are fetched as they join it, well before they are read. Without the index every
// agent gets the full bounds. Each agent's bounds depend only on its own position and velocity
// and the walls, never on its block or its place in the queue.
void cs_walls_clearance_range(crowd_world* w, int lo, int hi) {
    const cs_walls* g = &w->walls;
    int32_t cx[CS_WALL_BLOCK], cy[CS_WALL_BLOCK], entry[CS_WALL_BLOCK];
    int full[CS_WALL_BLOCK];
    full_queue q = {.n = 0};
    for (int s = lo; s < hi; s += CS_WALL_BLOCK) {
        const int n = s + CS_WALL_BLOCK < hi ? CS_WALL_BLOCK : hi - s;
        block_cells(g, w->cur.px + s, w->cur.py + s, n, cx, cy);
        int m = n;
        if (g->dir)
            m = block_box(w, s, n, cx, cy, full, entry);
        else
            for (int k = 0; k < n; ++k) full[k] = k, entry[k] = -1;
        for (int i = 0; i < m; ++i) {
            const int k = full[i];
            if (entry[i] >= 0) __builtin_prefetch(&g->dsum[entry[i]]); // its summary
            q.slot[q.n] = s + k, q.cx[q.n] = cx[k], q.cy[q.n] = cy[k];
            ++q.n;
        }
        if (q.n >= CS_WALL_BLOCK) full_bounds(w, &q, CS_WALL_BLOCK);
    }
    if (q.n) full_bounds(w, &q, q.n);
}

static uint64_t clearance_chunk(void* arg, int lo, int hi) {
    cs_walls_clearance_range(arg, lo, hi);
    return 0;
}

// Agents beside walls cost more than those in open cells, so a thread done with its share helps
// with the others' (cs_team_run_chunks). Chunks hold whole blocks.
void cs_pass_clearance(crowd_world* w) {
    cs_team_run_chunks(w->threads, w->count, CS_WALL_BLOCK, clearance_chunk, w);
}
