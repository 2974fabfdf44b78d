// O(N^2) brute force: every agent tests every other agent, with the kernel's vectorized chunk,
// so the gap to the kernel is the spatial hash and nothing else.
#include <omp.h>
#include <string.h>

#include "kernel.h"
#include "lanes.h"

struct bench_brute {
    bench_crowd_def def;
    bk_params p;
    int n;
    float *px[2], *py[2], *vx[2], *vy[2]; // front = [cur], padded by BK_LANES
    float *gx, *gy;
    int cur;
    bench_profile prof;
};

static size_t col_bytes(int n) {
    return sizeof(float) * (size_t)(n + BK_LANES);
}

void bench_brute_destroy(bench_brute* b) {
    if (!b) return;
    const size_t bytes = col_bytes(b->n);
    float** cols[] = {&b->px[0], &b->px[1], &b->py[0], &b->py[1], &b->vx[0],
                      &b->vx[1], &b->vy[0], &b->vy[1], &b->gx,    &b->gy};
    for (size_t c = 0; c < sizeof cols / sizeof *cols; ++c)
        if (*cols[c]) b->def.free(*cols[c], bytes, b->def.alloc_user);
    b->def.free(b, sizeof *b, b->def.alloc_user);
}

bench_brute* bench_brute_create(const bench_crowd_def* def) {
    bench_brute* b = def->alloc(sizeof *b, 64, def->alloc_user);
    if (!b) return NULL;
    memset(b, 0, sizeof *b);
    b->def = *def;
    b->def.cone = def->cone && def->gx;
    b->n = def->n;
    b->p = bk_params_of(def->dt, def->max_speed, def->max_force, def->sep_radius, def->cone_length,
                        def->cone_width);
    const size_t bytes = col_bytes(b->n);
    float** cols[] = {&b->px[0], &b->px[1], &b->py[0], &b->py[1], &b->vx[0],
                      &b->vx[1], &b->vy[0], &b->vy[1], &b->gx,    &b->gy};
    const int ncols = def->gx ? 10 : 8;
    for (int c = 0; c < ncols; ++c) {
        *cols[c] = def->alloc(bytes, 64, def->alloc_user);
        if (!*cols[c]) {
            bench_brute_destroy(b);
            return NULL;
        }
        memset(*cols[c], 0, bytes);
    }
    const size_t n = sizeof(float) * (size_t)b->n;
    memcpy(b->px[0], def->px, n);
    memcpy(b->py[0], def->py, n);
    memcpy(b->vx[0], def->vx, n);
    memcpy(b->vy[0], def->vy, n);
    if (def->gx) {
        memcpy(b->gx, def->gx, n);
        memcpy(b->gy, def->gy, n);
    }
    return b;
}

static BK_ALWAYS_INLINE void one_agent(const bench_brute* b, int i, const bool seek,
                                       const bool cone) {
    const int n = b->n, f = b->cur, k = 1 - b->cur;
    const float* restrict xs = b->px[f];
    const float* restrict ys = b->py[f];
    bk_query q = {
        .px = xs[i], .py = ys[i], .vx = b->vx[f][i], .vy = b->vy[f][i], .self = (uint32_t)i};
    bk_heading(&q, cone);
    const bk_params p = b->p;
    bk_sums acc;
    bk_sums_clear(&acc);
    for (uint32_t j = 0; j < (uint32_t)n; j += BK_LANES)
        bk_chunk(xs, ys, j, (uint32_t)n, &q, &p, &acc, cone);
    bk_finish(&acc, &q, &p, seek, cone, seek ? b->gx[i] : 0.0f, seek ? b->gy[i] : 0.0f,
              &b->px[k][i], &b->py[k][i], &b->vx[k][i], &b->vy[k][i]);
}

// One parallel loop per specialization (see kernel.c).
static void pairs_separation(const bench_brute* b, int threads) {
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)
    for (int i = 0; i < b->n; ++i) one_agent(b, i, false, false);
}

static void pairs_seek(const bench_brute* b, int threads) {
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)
    for (int i = 0; i < b->n; ++i) one_agent(b, i, true, false);
}

static void pairs_seek_cone(const bench_brute* b, int threads) {
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)
    for (int i = 0; i < b->n; ++i) one_agent(b, i, true, true);
}

void bench_brute_step(bench_brute* b) {
    const double t0 = omp_get_wtime();
    const int threads = b->def.threads > 0 ? b->def.threads : 1;
    if (b->def.cone)
        pairs_seek_cone(b, threads);
    else if (b->def.gx)
        pairs_seek(b, threads);
    else
        pairs_separation(b, threads);
    b->cur = 1 - b->cur;
    const uint64_t n = (uint64_t)b->n;
    b->prof = (bench_profile){0.0, (omp_get_wtime() - t0) * 1e3, n * (n ? n - 1 : 0)};
}

bench_profile bench_brute_profile(const bench_brute* b) {
    return b->prof;
}

void bench_brute_positions(const bench_brute* b, float* x, float* y) {
    memcpy(x, b->px[b->cur], sizeof(float) * (size_t)b->n);
    memcpy(y, b->py[b->cur], sizeof(float) * (size_t)b->n);
}
