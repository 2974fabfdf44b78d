// Stable parallel counting sort of agents into cell order.
#include "core/grid.h"

#include <string.h>

#include "core/team.h"

// Chunk [lo, hi) of n items for thread t of nt: contiguous, in thread order, so that scattering
// each chunk in order after the per-thread prefix keeps the sort stable.
static inline void chunk_of(int n, int t, int nt, int* lo, int* hi) {
    int64_t a = (int64_t)n * t / nt, b = (int64_t)n * (t + 1) / nt;
    *lo = (int)a;
    *hi = (int)b;
}

// Decides the key layout from the occupied cell bounding box.
static void choose_layout(cs_grid* g, int64_t min_cx, int64_t min_cy, int64_t max_cx,
                          int64_t max_cy, uint32_t bucket_capacity) {
    // Dense rows get an empty column on each side (see cs_grid_row_base).
    const int64_t w = max_cx - min_cx + 3, h = max_cy - min_cy + 1;
    g->min_cx = (int32_t)min_cx, g->min_cy = (int32_t)min_cy;
    g->max_cx = (int32_t)max_cx, g->max_cy = (int32_t)max_cy;
    if (w * h <= (int64_t)bucket_capacity) {
        g->dense = true;
        g->width = (uint32_t)w;
        g->buckets = (uint32_t)(w * h);
        g->mask = 0;
    } else {
        g->dense = false;
        g->width = 0;
        g->buckets = bucket_capacity; // a power of two
        g->mask = bucket_capacity - 1;
    }
}

// Keys in their own loop (the histogram's scattered increments would keep it scalar), one loop per
// layout so each is branch-free.
static void compute_keys(const cs_grid* g, const float* restrict x, const float* restrict y,
                         uint32_t* restrict keys, int lo, int hi) {
    const float inv = g->inv_cell;
    if (g->dense) {
        const uint32_t width = g->width;
        const int32_t min_cx = g->min_cx, min_cy = g->min_cy;
        for (int i = lo; i < hi; ++i)
            keys[i] = cs_grid_dense_key(x[i], y[i], inv, width, min_cx, min_cy);
    } else {
        const uint32_t mask = g->mask;
        for (int i = lo; i < hi; ++i)
            keys[i] = (cs_mix32((uint32_t)cs_cell_coord(y[i], inv)) +
                       (uint32_t)cs_cell_coord(x[i], inv)) &
                      mask;
    }
}

typedef struct sort_ctx {
    cs_grid* g;
    const float *x, *y;
    int n;
    uint32_t bucket_capacity;
    uint32_t *hist, *keys, *order, *sorted_keys, *cell_start;
    int32_t box[CS_MAX_THREADS][4]; // per-thread occupied cell bounds
    uint32_t block_sum[CS_MAX_THREADS];
    uint32_t block_max[CS_MAX_THREADS]; // the most agents of one bucket in the thread's buckets
} sort_ctx;

// The last thread counts in cell_start shifted by one: its counters, turned into its first sorted
// slot per bucket by the prefix and advanced past its agents by the scatter, end as the end of
// each bucket, cell_start[k + 1]. The other threads count in `hist`, so a team of one needs none.
static uint32_t* hist_of(const sort_ctx* c, int t, int nt) {
    return t == nt - 1 ? c->cell_start + 1 : c->hist + (size_t)t * c->bucket_capacity;
}

static void sort_team(void* arg, int t, int nt) {
    sort_ctx* c = arg;
    cs_grid* g = c->g;
    const float* x = c->x;
    const float* y = c->y;
    const float inv = g->inv_cell;
    int lo, hi;
    chunk_of(c->n, t, nt, &lo, &hi);

    // Bounding box of the occupied cells: exact integers, so the order of combining is moot.
    int32_t bx0 = INT32_MAX, by0 = INT32_MAX, bx1 = INT32_MIN, by1 = INT32_MIN;
    for (int i = lo; i < hi; ++i) {
        int32_t cx = cs_cell_coord(x[i], inv), cy = cs_cell_coord(y[i], inv);
        bx0 = cx < bx0 ? cx : bx0;
        by0 = cy < by0 ? cy : by0;
        bx1 = cx > bx1 ? cx : bx1;
        by1 = cy > by1 ? cy : by1;
    }
    c->box[t][0] = bx0, c->box[t][1] = by0, c->box[t][2] = bx1, c->box[t][3] = by1;
    cs_team_barrier(nt);
    if (t == 0) {
        for (int u = 1; u < nt; ++u) {
            bx0 = c->box[u][0] < bx0 ? c->box[u][0] : bx0;
            by0 = c->box[u][1] < by0 ? c->box[u][1] : by0;
            bx1 = c->box[u][2] > bx1 ? c->box[u][2] : bx1;
            by1 = c->box[u][3] > by1 ? c->box[u][3] : by1;
        }
        choose_layout(g, bx0, by0, bx1, by1, c->bucket_capacity);
    }
    cs_team_barrier(nt);

    const uint32_t buckets = g->buckets;
    uint32_t* keys = c->keys;
    uint32_t* h = hist_of(c, t, nt);
    memset(h, 0, sizeof(uint32_t) * buckets);
    compute_keys(g, x, y, keys, lo, hi);
    for (int i = lo; i < hi; ++i) h[keys[i]]++;
    cs_team_barrier(nt);
    // Exclusive prefix over (bucket, thread): bucket-major so that within a bucket thread t's
    // agents come after those of threads < t, i.e. in input order.
    int klo, khi;
    chunk_of((int)buckets, t, nt, &klo, &khi);
    uint32_t sum = 0, most = 0;
    for (int k = klo; k < khi; ++k) {
        uint32_t in = 0;
        for (int u = 0; u < nt; ++u) in += hist_of(c, u, nt)[k];
        sum += in;
        most = in > most ? in : most;
    }
    c->block_sum[t] = sum;
    c->block_max[t] = most;
    cs_team_barrier(nt);
    if (t == 0) {
        for (int u = 1; u < nt; ++u) most = c->block_max[u] > most ? c->block_max[u] : most;
        g->max_pop = most;
    }
    uint32_t run = 0;
    for (int u = 0; u < t; ++u) run += c->block_sum[u];
    for (int k = klo; k < khi; ++k) {
        for (int u = 0; u < nt; ++u) {
            uint32_t* cnt = &hist_of(c, u, nt)[k];
            uint32_t v = *cnt;
            *cnt = run;
            run += v;
        }
    }
    cs_team_barrier(nt);
    for (int i = lo; i < hi; ++i) {
        const uint32_t k = keys[i], pos = h[k]++;
        c->order[pos] = (uint32_t)i;
        c->sorted_keys[pos] = k;
    }
}

void cs_grid_sort(cs_grid* g, float cell_size, const float* x, const float* y, int n,
                  uint32_t bucket_capacity, uint32_t* hist, int threads, uint32_t* keys,
                  uint32_t* order, uint32_t* sorted_keys, uint32_t* cell_start) {
    g->inv_cell = 1.0f / cell_size;
    g->cell_start = cell_start;
    if (n == 0) {
        choose_layout(g, 0, 0, 0, 0, bucket_capacity);
        for (uint32_t k = 0; k <= g->buckets; ++k) cell_start[k] = 0;
        g->max_pop = 0;
        return;
    }
    sort_ctx c = {.g = g,
                  .x = x,
                  .y = y,
                  .n = n,
                  .bucket_capacity = bucket_capacity,
                  .hist = hist,
                  .keys = keys,
                  .order = order,
                  .sorted_keys = sorted_keys,
                  .cell_start = cell_start};
    cs_team_run(threads < CS_MAX_THREADS ? threads : CS_MAX_THREADS, sort_team, &c);
    cell_start[0] = 0;
}
