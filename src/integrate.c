// Steering controller and integration: limit the summed force to max_force, then one explicit
// Euler step from the front buffer into the back buffer.
//
// The expressions are crowd_steer_integrate's, in the same order, written branch-free (a limit
// that does not apply multiplies by exactly 1) so the loop vectorizes and stays bit-identical to
// the pure function.
#include <math.h>

#include "internal.h"

void crowd_pass_integrate(crowd_world* w) {
    const int n = w->count;
    const float dt = w->dt;
    const crowd_columns* restrict f = &w->cur;
    const crowd_columns* restrict b = &w->alt;
    const float* restrict px = f->px;
    const float* restrict py = f->py;
    const float* restrict vx = f->vx;
    const float* restrict vy = f->vy;
    const float* restrict hx = f->hx;
    const float* restrict hy = f->hy;
    const float* restrict ms = f->max_speed;
    const float* restrict mf = f->max_force;
    const float* restrict fx = w->force_x;
    const float* restrict fy = w->force_y;
    float* restrict opx = b->px;
    float* restrict opy = b->py;
    float* restrict ovx = b->vx;
    float* restrict ovy = b->vy;
    float* restrict ohx = b->hx;
    float* restrict ohy = b->hy;

#pragma omp parallel for simd num_threads(w->threads) if (w->threads > 1) schedule(simd : static)
    for (int s = 0; s < n; ++s) {
        float ax = fx[s], ay = fy[s];
        const float f2 = ax * ax + ay * ay;
        const float fs = f2 > mf[s] * mf[s] ? mf[s] / sqrtf(f2) : 1.0f;
        ax *= fs;
        ay *= fs;
        float nvx = vx[s] + ax * dt, nvy = vy[s] + ay * dt;
        const float v2 = nvx * nvx + nvy * nvy;
        const float vs = v2 > ms[s] * ms[s] ? ms[s] / sqrtf(v2) : 1.0f;
        nvx *= vs;
        nvy *= vs;
        ovx[s] = nvx;
        ovy[s] = nvy;
        opx[s] = px[s] + nvx * dt;
        opy[s] = py[s] + nvy * dt;
        const float sp2 = nvx * nvx + nvy * nvy;
        const bool moving = sp2 > 0.01f;
        const float len = sqrtf(moving ? sp2 : 1.0f);
        ohx[s] = moving ? nvx / len : hx[s];
        ohy[s] = moving ? nvy / len : hy[s];
    }

    for (int k = 0; k < CROWD_KIN_COUNT; ++k) {
        void* t = w->cur.col[k];
        w->cur.col[k] = w->alt.col[k];
        w->alt.col[k] = t;
    }
}
