// The minimal kernel: what a tick of this work costs when written as tightly as we can, with
// nothing else in it.
//
//   sort:  bounding box -> cell key -> stable counting sort (per-thread histograms) that scatters
//          the state straight into cell order; cells row-major so the cells of a stencil row are
//          one contiguous range
//   fused: in blocks of BK_BLOCK agents: their headings, query boxes and row ranges (vector
//          loops), then per agent the <= 3 rows of its box in fixed BK_LANES-wide chunks
//          (separation and the forward cone in one pass), then seek, braking and integration
//          (a vector loop), written into the input buffer, which the next sort reads
#include <math.h>
#include <omp.h>
#include <string.h>

#include "kernel.h"
#include "lanes.h"

enum { PX, PY, VX, VY, GX, GY, NCOL };
enum { MAX_THREADS = 256 }; // the prefix sum keeps one partial sum per thread on the stack

struct bench_kernel {
    bench_crowd_def def;
    bk_params p;
    int n, cols, threads;
    float* in[NCOL];     // previous tick's slot order; the fused pass writes here
    float* sorted[NCOL]; // cell order, padded by BK_LANES for the chunk over-read
    uint32_t* key;
    uint32_t* hist;  // threads x cell_cap
    uint32_t* start; // cell_cap + 1
    uint32_t cell_cap;
    int32_t cx0, cy0, width, height; // grid of the last sort
    float inv_cell;
    bench_profile prof;
};

static size_t col_bytes(const bench_kernel* k) {
    return sizeof(float) * (size_t)(k->n + BK_LANES);
}

static void* grab(const bench_kernel* k, size_t bytes) {
    void* p = k->def.alloc(bytes, 64, k->def.alloc_user);
    if (p) memset(p, 0, bytes);
    return p;
}

static void drop(const bench_kernel* k, void* p, size_t bytes) {
    if (p) k->def.free(p, bytes, k->def.alloc_user);
}

static void release_grid(bench_kernel* k) {
    drop(k, k->hist, sizeof(uint32_t) * k->cell_cap * (size_t)k->threads);
    drop(k, k->start, sizeof(uint32_t) * ((size_t)k->cell_cap + 1));
    k->hist = k->start = NULL;
    k->cell_cap = 0;
}

static bool reserve_cells(bench_kernel* k, uint32_t cells) {
    if (cells <= k->cell_cap) return true;
    release_grid(k);
    const uint32_t cap = cells + cells / 4;
    k->hist = grab(k, sizeof(uint32_t) * cap * (size_t)k->threads);
    k->start = grab(k, sizeof(uint32_t) * ((size_t)cap + 1));
    k->cell_cap = cap;
    return k->hist && k->start;
}

void bench_kernel_destroy(bench_kernel* k) {
    if (!k) return;
    for (int c = 0; c < NCOL; ++c) {
        drop(k, k->in[c], col_bytes(k));
        drop(k, k->sorted[c], col_bytes(k));
    }
    drop(k, k->key, sizeof(uint32_t) * (size_t)k->n);
    release_grid(k);
    k->def.free(k, sizeof *k, k->def.alloc_user);
}

bench_kernel* bench_kernel_create(const bench_crowd_def* def) {
    bench_kernel* k = def->alloc(sizeof *k, 64, def->alloc_user);
    if (!k) return NULL;
    memset(k, 0, sizeof *k);
    k->def = *def;
    k->def.cone = def->cone && def->gx; // the cone brakes the seek: no seek, no cone
    k->n = def->n;
    k->threads = def->threads > 0 ? (def->threads < MAX_THREADS ? def->threads : MAX_THREADS) : 1;
    k->cols = def->gx ? NCOL : VY + 1;
    k->inv_cell = 1.0f / def->cell;
    // The fused pass walks at most three rows of cells per agent: the query box (the separation
    // disc, or the disc and the cone's box) must be less than two cells tall.
    const float reach =
        def->cone ? def->sep_radius + def->cone_length + def->cone_width : 2.0f * def->sep_radius;
    if (!(reach + 1e-3f < 2.0f * def->cell)) {
        k->def.free(k, sizeof *k, k->def.alloc_user);
        return NULL;
    }
    k->p = bk_params_of(def->dt, def->max_speed, def->max_force, def->sep_radius, def->cone_length,
                        def->cone_width);
    bool ok = (k->key = grab(k, sizeof(uint32_t) * (size_t)k->n)) != NULL;
    for (int c = 0; ok && c < k->cols; ++c)
        ok = (k->in[c] = grab(k, col_bytes(k))) && (k->sorted[c] = grab(k, col_bytes(k)));
    if (!ok) {
        bench_kernel_destroy(k);
        return NULL;
    }
    const float* src[NCOL] = {def->px, def->py, def->vx, def->vy, def->gx, def->gy};
    for (int c = 0; c < k->cols; ++c) memcpy(k->in[c], src[c], sizeof(float) * (size_t)k->n);
    return k;
}

static inline void chunk_of(int n, int t, int nt, int* lo, int* hi) {
    *lo = (int)((int64_t)n * t / nt);
    *hi = (int)((int64_t)n * (t + 1) / nt);
}

static bool sort(bench_kernel* k) {
    const int n = k->n, threads = k->threads, cols = k->cols;
    const float inv = k->inv_cell;
    const float* restrict xs = k->in[PX];
    const float* restrict ys = k->in[PY];
    float x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)                    \
    reduction(min                                                                                  \
              : x0, y0) reduction(max                                                              \
                                  : x1, y1)
    for (int i = 0; i < n; ++i) {
        x0 = xs[i] < x0 ? xs[i] : x0;
        y0 = ys[i] < y0 ? ys[i] : y0;
        x1 = xs[i] > x1 ? xs[i] : x1;
        y1 = ys[i] > y1 ? ys[i] : y1;
    }
    const int32_t cx0 = (int32_t)floorf(x0 * inv), cy0 = (int32_t)floorf(y0 * inv);
    const int32_t width = (int32_t)floorf(x1 * inv) - cx0 + 1;
    const int32_t height = (int32_t)floorf(y1 * inv) - cy0 + 1;
    const uint32_t cells = (uint32_t)width * (uint32_t)height;
    if (!reserve_cells(k, cells)) return false;
    k->cx0 = cx0, k->cy0 = cy0, k->width = width, k->height = height;

    uint32_t* restrict key = k->key;
    uint32_t* restrict start = k->start;
    uint32_t* restrict hist = k->hist;
    const size_t stride = k->cell_cap;
    uint32_t block_sum[MAX_THREADS];
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        int lo, hi;
        chunk_of(n, t, nt, &lo, &hi);
        uint32_t* restrict h = hist + (size_t)t * stride;
        memset(h, 0, sizeof(uint32_t) * cells);
        for (int i = lo; i < hi; ++i) {
            const int32_t cx = (int32_t)floorf(xs[i] * inv) - cx0;
            const int32_t cy = (int32_t)floorf(ys[i] * inv) - cy0;
            const uint32_t kk = (uint32_t)cy * (uint32_t)width + (uint32_t)cx;
            key[i] = kk;
            h[kk]++;
        }
#pragma omp barrier
        // Exclusive prefix over (cell, thread), cell-major: within a cell, thread t's agents
        // follow those of lower threads, so the sort is stable for any thread count.
        int klo, khi;
        chunk_of((int)cells, t, nt, &klo, &khi);
        uint32_t sum = 0;
        for (int c = klo; c < khi; ++c)
            for (int u = 0; u < nt; ++u) sum += hist[(size_t)u * stride + (size_t)c];
        block_sum[t] = sum;
#pragma omp barrier
        uint32_t run = 0;
        for (int u = 0; u < t; ++u) run += block_sum[u];
        for (int c = klo; c < khi; ++c) {
            start[c] = run;
            for (int u = 0; u < nt; ++u) {
                uint32_t* slot = &hist[(size_t)u * stride + (size_t)c];
                const uint32_t v = *slot;
                *slot = run;
                run += v;
            }
        }
#pragma omp barrier
        float* restrict spx = k->sorted[PX];
        float* restrict spy = k->sorted[PY];
        float* restrict svx = k->sorted[VX];
        float* restrict svy = k->sorted[VY];
        const float* restrict ivx = k->in[VX];
        const float* restrict ivy = k->in[VY];
        if (cols == NCOL) {
            float* restrict sgx = k->sorted[GX];
            float* restrict sgy = k->sorted[GY];
            const float* restrict igx = k->in[GX];
            const float* restrict igy = k->in[GY];
            for (int i = lo; i < hi; ++i) {
                const uint32_t s = h[key[i]]++;
                spx[s] = xs[i], spy[s] = ys[i], svx[s] = ivx[i], svy[s] = ivy[i];
                sgx[s] = igx[i], sgy[s] = igy[i];
            }
        } else {
            for (int i = lo; i < hi; ++i) {
                const uint32_t s = h[key[i]]++;
                spx[s] = xs[i], spy[s] = ys[i], svx[s] = ivx[i], svy[s] = ivy[i];
            }
        }
    }
    start[cells] = (uint32_t)n;
    // The goals move with their agents and are only read from now on: the sorted copy becomes
    // the input of the next sort.
    for (int c = GX; c < cols; ++c) {
        float* tmp = k->in[c];
        k->in[c] = k->sorted[c];
        k->sorted[c] = tmp;
    }
    return true;
}

// fminf / fmaxf are library calls without -ffinite-math-only; the operands here are finite.
static inline float minf(float a, float b) {
    return a < b ? a : b;
}
static inline float maxf(float a, float b) {
    return a > b ? a : b;
}

static inline int32_t clampi(int32_t v, int32_t lo, int32_t hi) {
    return v < lo ? lo : (v > hi ? hi : v);
}

// Everything the fused pass reads, gathered once per step.
typedef struct view {
    const float* restrict xs;
    const float* restrict ys;
    const float* restrict vxs;
    const float* restrict vys;
    const float* restrict gxs;
    const float* restrict gys;
    float* restrict opx;
    float* restrict opy;
    float* restrict ovx;
    float* restrict ovy;
    const uint32_t* restrict start;
    bk_params p;
    float inv_cell, cone_length, cone_width;
    int32_t cx0, cy0, width, height;
} view;

// Agents are stepped in blocks of this many: first their headings, query boxes and row ranges
// (vector loops but for the range lookups), then each agent's neighbor walk, then the forces and
// the integration (one vector loop). One agent at a time, the scalar square roots, divisions and
// floors around each walk were more instructions than the walk itself; across a block they are
// vector instructions (the fused pass took half the time at 100k agents with the cone).
#define BK_BLOCK 64

typedef struct block {
    float hx[BK_BLOCK], hy[BK_BLOCK], cone[BK_BLOCK];
    int32_t ix0[BK_BLOCK], ix1[BK_BLOCK], iy0[BK_BLOCK], iy1[BK_BLOCK];
    uint32_t b[BK_BLOCK][3], e[BK_BLOCK][3];
    float sx[BK_BLOCK], sy[BK_BLOCK], sn[BK_BLOCK], along[BK_BLOCK];
} block;

// The neighbor sums of agent s (block entry i) over the row ranges found for it; returns the
// candidates it examined.
static BK_ALWAYS_INLINE uint64_t agent_sums(const view* v, block* bl, int i, int s,
                                            const bool cone) {
    const bk_query q = {.px = v->xs[s],
                        .py = v->ys[s],
                        .hx = bl->hx[i],
                        .hy = bl->hy[i],
                        .cone = bl->cone[i] != 0.0f,
                        .self = (uint32_t)s};
    bk_sums acc;
    bk_sums_clear(&acc);
    uint64_t candidates = 0;
    for (int r = 0; r < 3; ++r) {
        const uint32_t b = bl->b[i][r], e = bl->e[i][r];
        candidates += e - b;
        for (uint32_t j = b; j < e; j += BK_LANES)
            bk_chunk(v->xs, v->ys, j, e, &q, &v->p, &acc, cone);
    }
    bl->sx[i] = bk_reduce(acc.sx);
    bl->sy[i] = bk_reduce(acc.sy);
    bl->sn[i] = bk_reduce(acc.sn);
    if (cone) bl->along[i] = bk_min_lanes(acc.along);
    return candidates;
}

// Agents [s0, s0 + n) of the fused pass, n <= BK_BLOCK; returns the candidates examined.
static BK_ALWAYS_INLINE uint64_t fused_block(const view* v, int s0, int n, const bool seek,
                                             const bool cone) {
    block bl;
    const float* restrict vxs = v->vxs + s0;
    const float* restrict vys = v->vys + s0;
    if (cone) {
#pragma omp simd
        for (int i = 0; i < n; ++i) {
            bool has;
            bk_head(vxs[i], vys[i], &bl.hx[i], &bl.hy[i], &has);
            bl.cone[i] = has ? 1.0f : 0.0f;
        }
    } else {
        for (int i = 0; i < n; ++i) bl.hx[i] = bl.hy[i] = bl.cone[i] = 0.0f;
    }
    // Query boxes: the separation disc, grown to the cone's bounding box; at cell 2.5 and these
    // radii one spans at most 3 x 3 cells.
    const float r = v->p.sep_radius, inv = v->inv_cell, cw = v->cone_width, cl = v->cone_length;
    const int32_t w = v->width, h = v->height, cx0 = v->cx0, cy0 = v->cy0;
    const float* restrict pxs0 = v->xs + s0;
    const float* restrict pys0 = v->ys + s0;
#pragma omp simd
    for (int i = 0; i < n; ++i) {
        const float px = pxs0[i], py = pys0[i];
        float bx0 = px - r, bx1 = px + r, by0 = py - r, by1 = py + r;
        if (cone) {
            const float hx = bl.hx[i], hy = bl.hy[i];
            const float ex = fabsf(hy) * cw, ey = fabsf(hx) * cw;
            const float tx = hx * cl, ty = hy * cl;
            bx0 = minf(bx0, px + minf(0.0f, tx) - ex);
            bx1 = maxf(bx1, px + maxf(0.0f, tx) + ex);
            by0 = minf(by0, py + minf(0.0f, ty) - ey);
            by1 = maxf(by1, py + maxf(0.0f, ty) + ey);
        }
        bl.ix0[i] = clampi((int32_t)floorf((bx0 - 1e-4f) * inv) - cx0, 0, w - 1);
        bl.ix1[i] = clampi((int32_t)floorf((bx1 + 1e-4f) * inv) - cx0, 0, w - 1);
        bl.iy0[i] = clampi((int32_t)floorf((by0 - 1e-4f) * inv) - cy0, 0, h - 1);
        bl.iy1[i] = clampi((int32_t)floorf((by1 + 1e-4f) * inv) - cy0, 0, h - 1);
    }
    // Their rows' ranges, three per agent (an empty one past the box's last row).
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) {
            const int32_t row = bl.iy0[i] + k;
            const bool live = row <= bl.iy1[i];
            const uint32_t base = (uint32_t)(live ? row : bl.iy0[i]) * (uint32_t)w;
            const uint32_t b = v->start[base + (uint32_t)bl.ix0[i]];
            bl.b[i][k] = b;
            bl.e[i][k] = live ? v->start[base + (uint32_t)bl.ix1[i] + 1] : b;
        }
    uint64_t candidates = 0;
    for (int i = 0; i < n; ++i) candidates += agent_sums(v, &bl, i, s0 + i, cone);
    const float* restrict pxs = v->xs + s0;
    const float* restrict pys = v->ys + s0;
    const float* restrict gxs = seek ? v->gxs + s0 : pxs;
    const float* restrict gys = seek ? v->gys + s0 : pys;
    float* restrict opx = v->opx + s0;
    float* restrict opy = v->opy + s0;
    float* restrict ovx = v->ovx + s0;
    float* restrict ovy = v->ovy + s0;
#pragma omp simd
    for (int i = 0; i < n; ++i)
        bk_step(&v->p, seek, cone, bl.sx[i], bl.sy[i], bl.sn[i], cone ? bl.along[i] : INFINITY,
                pxs[i], pys[i], vxs[i], vys[i], gxs[i], gys[i], &opx[i], &opy[i], &ovx[i], &ovy[i]);
    return candidates;
}

static BK_ALWAYS_INLINE uint64_t fused_blocks(const view* v, int b, int n, const bool seek,
                                              const bool cone) {
    const int s0 = b * BK_BLOCK;
    return fused_block(v, s0, n - s0 < BK_BLOCK ? n - s0 : BK_BLOCK, seek, cone);
}

// One parallel loop per specialization: OpenMP outlines a loop body before inlining, so the
// constant flags must be visible inside each loop for the chunk to compile branch-free.
static uint64_t fused_separation(const view* v, int n, int threads) {
    uint64_t candidates = 0;
    const int blocks = (n + BK_BLOCK - 1) / BK_BLOCK;
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)                   \
    reduction(+ : candidates)
    for (int b = 0; b < blocks; ++b) candidates += fused_blocks(v, b, n, false, false);
    return candidates;
}

static uint64_t fused_seek(const view* v, int n, int threads) {
    uint64_t candidates = 0;
    const int blocks = (n + BK_BLOCK - 1) / BK_BLOCK;
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)                   \
    reduction(+ : candidates)
    for (int b = 0; b < blocks; ++b) candidates += fused_blocks(v, b, n, true, false);
    return candidates;
}

static uint64_t fused_seek_cone(const view* v, int n, int threads) {
    uint64_t candidates = 0;
    const int blocks = (n + BK_BLOCK - 1) / BK_BLOCK;
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)                   \
    reduction(+ : candidates)
    for (int b = 0; b < blocks; ++b) candidates += fused_blocks(v, b, n, true, true);
    return candidates;
}

void bench_kernel_step(bench_kernel* k) {
    const double t0 = omp_get_wtime();
    if (!sort(k)) return; // out of memory growing the grid: the crowd stands still
    const double t1 = omp_get_wtime();
    const view v = {
        .xs = k->sorted[PX],
        .ys = k->sorted[PY],
        .vxs = k->sorted[VX],
        .vys = k->sorted[VY],
        .gxs = k->in[GX],
        .gys = k->in[GY],
        .opx = k->in[PX],
        .opy = k->in[PY],
        .ovx = k->in[VX],
        .ovy = k->in[VY],
        .start = k->start,
        .p = k->p,
        .inv_cell = k->inv_cell,
        .cone_length = k->def.cone_length,
        .cone_width = k->def.cone_width,
        .cx0 = k->cx0,
        .cy0 = k->cy0,
        .width = k->width,
        .height = k->height,
    };
    const uint64_t candidates = k->def.cone ? fused_seek_cone(&v, k->n, k->threads)
                                : k->def.gx ? fused_seek(&v, k->n, k->threads)
                                            : fused_separation(&v, k->n, k->threads);
    const double t2 = omp_get_wtime();
    k->prof = (bench_profile){(t1 - t0) * 1e3, (t2 - t1) * 1e3, candidates};
}

bench_profile bench_kernel_profile(const bench_kernel* k) {
    return k->prof;
}

void bench_kernel_positions(const bench_kernel* k, float* x, float* y) {
    memcpy(x, k->in[PX], sizeof(float) * (size_t)k->n);
    memcpy(y, k->in[PY], sizeof(float) * (size_t)k->n);
}
