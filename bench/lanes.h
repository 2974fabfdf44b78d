// The arithmetic the C baselines share: one fixed-width chunk of neighbor candidates, and the
// per-agent finish (lane reduction, separation + seek with queue braking, integration).
//
// The formulas are the engine's (separation in the spec's form, crowd_steer_seek, the queue brake
// clamp(along / coneLength, 0, 1) and crowd_steer_integrate), written for speed rather than bit
// equality: push * (1 / d) in one division, the cone's perpendicular test on squares. The
// per-agent parts (bk_head, bk_step) are branch-free so the kernel runs them as vector loops
// across agents.
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
    // An agent without a heading has an empty cone: no along is at most -1.
    const float cl = q->cone ? p->cone_length : -1.0f, cw2 = p->cone_width2;
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
            const bool in =
                valid & (l != self) & (along >= 0.0f) & (along <= cl) & (qx * qx + qy * qy <= cw2);
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

static BK_ALWAYS_INLINE float bk_min_lanes(const float* a) {
    float m = a[0];
    for (int l = 1; l < BK_LANES; ++l) m = a[l] < m ? a[l] : m;
    return m;
}

// Heading of a queueing agent: its unit velocity, none below 1e-3 m/s (the engine's rule).
// Branch-free, so that a loop over agents vectorizes.
static BK_ALWAYS_INLINE void bk_head(float vx, float vy, float* hx, float* hy, bool* has) {
    const float speed = sqrtf(vx * vx + vy * vy);
    const bool c = speed >= 1e-3f;
    const float d = c ? speed : 1.0f;
    *hx = c ? vx / d : 0.0f;
    *hy = c ? vy / d : 0.0f;
    *has = c;
}

static BK_ALWAYS_INLINE void bk_heading(bk_query* q, const bool cone) {
    q->cone = false;
    q->hx = q->hy = 0.0f;
    if (cone) bk_head(q->vx, q->vy, &q->hx, &q->hy, &q->cone);
}

// One agent's reduced sums -> force -> new velocity and position. Branch-free (every division
// and square root is taken of a safe operand and its result selected), so that a loop over
// agents vectorizes; `along` is the closest in the cone (+inf: none).
static BK_ALWAYS_INLINE void bk_step(const bk_params* p, const bool seek, const bool cone, float sx,
                                     float sy, float sn, float along, float px, float py, float vx,
                                     float vy, float gx, float gy, float* opx, float* opy,
                                     float* ovx, float* ovy) {
    const float ms = p->max_speed;
    float fx = ms * sx - sn * vx, fy = ms * sy - sn * vy;
    if (seek) {
        float speed = ms;
        if (cone) {
            const float b = along / p->cone_length;
            const float brake = b < 0.0f ? 0.0f : (b > 1.0f ? 1.0f : b);
            speed = along < INFINITY ? speed * brake : speed;
        }
        const float tx = gx - px, ty = gy - py;
        const float len = sqrtf(tx * tx + ty * ty);
        const bool far = len > 0.0f;
        const float inv = speed / (far ? len : 1.0f);
        fx += (far ? tx * inv : 0.0f) - vx;
        fy += (far ? ty * inv : 0.0f) - vy;
    }
    const float mf = p->max_force, dt = p->dt;
    const float f2 = fx * fx + fy * fy;
    const bool fcap = f2 > mf * mf;
    const float fs = fcap ? mf / sqrtf(fcap ? f2 : 1.0f) : 1.0f;
    float nvx = vx + fx * fs * dt, nvy = vy + fy * fs * dt;
    const float v2 = nvx * nvx + nvy * nvy;
    const bool vcap = v2 > ms * ms;
    const float vs = vcap ? ms / sqrtf(vcap ? v2 : 1.0f) : 1.0f;
    nvx *= vs;
    nvy *= vs;
    *ovx = nvx;
    *ovy = nvy;
    *opx = px + nvx * dt;
    *opy = py + nvy * dt;
}

// Lane sums of one agent -> bk_step.
static BK_ALWAYS_INLINE void bk_finish(bk_sums* acc, const bk_query* q, const bk_params* p,
                                       const bool seek, const bool cone, float gx, float gy,
                                       float* opx, float* opy, float* ovx, float* ovy) {
    const float sx = bk_reduce(acc->sx), sy = bk_reduce(acc->sy), sn = bk_reduce(acc->sn);
    const float along = cone ? bk_min_lanes(acc->along) : INFINITY;
    bk_step(p, seek, cone, sx, sy, sn, along, q->px, q->py, q->vx, q->vy, gx, gy, opx, opy, ovx,
            ovy);
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
