// The arithmetic the C baselines share: one fixed-width chunk of neighbor candidates, and the
// per-agent finish (lane reduction, separation + seek with queue braking, integration).
//
// The formulas are the engine's (separation in the spec's form, crowd_steer_seek, the queue brake
// clamp(along / coneLength, 0, 1) and crowd_steer_integrate), written for speed rather than bit
// equality: push * (1 / d) in one division, the cone's perpendicular test on squares.
#ifndef BENCH_LANES_H
#define BENCH_LANES_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

// Lanes per chunk. A stencil row here holds about 3-5 candidates, so 8 lanes waste less than 16:
// on the AVX-512 machine of the suite 8 measured 20-25% faster than 16 in every scenario.
// Build with -DBK_LANES=16 to compare.
#ifndef BK_LANES
#define BK_LANES 8
#endif
#define BK_ALWAYS_INLINE inline __attribute__((always_inline))

typedef struct bk_params {
    float dt, max_speed, max_force, sep_radius, inv_sep_radius, cone_length, cone_width2;
} bk_params;

typedef struct bk_query {
    float px, py, vx, vy;
    float hx, hy; // heading for the cone (unit velocity)
    bool cone;    // this agent looks ahead (moving and queueing)
    uint32_t self;
} bk_query;

typedef struct bk_sums {
    float sx[BK_LANES], sy[BK_LANES], sn[BK_LANES], along[BK_LANES];
} bk_sums;

static BK_ALWAYS_INLINE void bk_sums_clear(bk_sums* a) {
    for (int l = 0; l < BK_LANES; ++l) {
        a->sx[l] = a->sy[l] = a->sn[l] = 0.0f;
        a->along[l] = INFINITY;
    }
}

// Candidates j .. j + 15 of the range ending at `end`; lanes at or past `end` are masked out.
static BK_ALWAYS_INLINE void bk_chunk(const float* restrict xs, const float* restrict ys,
                                      uint32_t j, uint32_t end, const bk_query* q,
                                      const bk_params* p, bk_sums* acc, const bool cone) {
    const float r = p->sep_radius, inv_r = p->inv_sep_radius;
    const float px = q->px, py = q->py, hx = q->hx, hy = q->hy;
    const float cl = p->cone_length, cw2 = p->cone_width2;
    const bool qcone = q->cone;
    // Lane l holds candidate j + l: indexing from the chunk's base keeps the loads affine.
    const float* restrict xj = xs + j;
    const float* restrict yj = ys + j;
    const int live = (int)(end - j), self = (int)(q->self - j);
#pragma omp simd
    for (int l = 0; l < BK_LANES; ++l) {
        const float dx = px - xj[l], dy = py - yj[l];
        const float d = sqrtf(dx * dx + dy * dy);
        const bool valid = l < live;
        const bool near = valid & (d > 0.01f) & (d < r);
        // Masks as 0/1 factors rather than selects around arithmetic: the compiler then has no
        // branch to sink the division into, and every lane stays straight-line code.
        const float m = near ? 1.0f : 0.0f;
        const float k = m * ((1.0f - d * inv_r) / (near ? d : 1.0f));
        acc->sx[l] += dx * k;
        acc->sy[l] += dy * k;
        acc->sn[l] += m;
        if (cone) {
            // offset = other - agent = -(dx, dy)
            const float along = -(dx * hx + dy * hy);
            const float qx = -dx - hx * along, qy = -dy - hy * along;
            const bool in = valid & qcone & (l != self) & (along >= 0.0f) & (along <= cl) &
                            (qx * qx + qy * qy <= cw2);
            const float a = in ? along : INFINITY;
            acc->along[l] = a < acc->along[l] ? a : acc->along[l];
        }
    }
}

static BK_ALWAYS_INLINE float bk_reduce(float* a) {
    for (int width = BK_LANES / 2; width >= 1; width /= 2)
        for (int l = 0; l < width; ++l) a[l] += a[l + width];
    return a[0];
}

// Heading of a queueing agent: its unit velocity, none below 1e-3 m/s (the engine's rule).
static BK_ALWAYS_INLINE void bk_heading(bk_query* q, const bool cone) {
    q->cone = false;
    q->hx = q->hy = 0.0f;
    if (!cone) return;
    const float speed = sqrtf(q->vx * q->vx + q->vy * q->vy);
    q->cone = speed >= 1e-3f;
    q->hx = q->cone ? q->vx / speed : 0.0f;
    q->hy = q->cone ? q->vy / speed : 0.0f;
}

// Sums -> force -> new velocity and position.
static BK_ALWAYS_INLINE void bk_finish(bk_sums* acc, const bk_query* q, const bk_params* p,
                                       const bool seek, const bool cone, float gx, float gy,
                                       float* opx, float* opy, float* ovx, float* ovy) {
    const float ms = p->max_speed;
    const float sx = bk_reduce(acc->sx), sy = bk_reduce(acc->sy), sn = bk_reduce(acc->sn);
    float fx = ms * sx - sn * q->vx, fy = ms * sy - sn * q->vy;
    if (seek) {
        float speed = ms;
        if (cone) {
            float along = acc->along[0];
            for (int l = 1; l < BK_LANES; ++l)
                along = acc->along[l] < along ? acc->along[l] : along;
            if (along < INFINITY) {
                const float b = along / p->cone_length;
                speed *= b < 0.0f ? 0.0f : (b > 1.0f ? 1.0f : b);
            }
        }
        const float tx = gx - q->px, ty = gy - q->py;
        const float len = sqrtf(tx * tx + ty * ty);
        const float inv = len > 0.0f ? speed / len : 0.0f;
        fx += tx * inv - q->vx;
        fy += ty * inv - q->vy;
    }
    const float mf = p->max_force, dt = p->dt;
    const float f2 = fx * fx + fy * fy;
    const float fs = f2 > mf * mf ? mf / sqrtf(f2) : 1.0f;
    float nvx = q->vx + fx * fs * dt, nvy = q->vy + fy * fs * dt;
    const float v2 = nvx * nvx + nvy * nvy;
    const float vs = v2 > ms * ms ? ms / sqrtf(v2) : 1.0f;
    nvx *= vs;
    nvy *= vs;
    *ovx = nvx;
    *ovy = nvy;
    *opx = q->px + nvx * dt;
    *opy = q->py + nvy * dt;
}

static inline bk_params bk_params_of(float dt, float max_speed, float max_force, float sep_radius,
                                     float cone_length, float cone_width) {
    return (bk_params){dt,
                       max_speed,
                       max_force,
                       sep_radius,
                       1.0f / sep_radius,
                       cone_length,
                       cone_width * cone_width};
}

#endif
