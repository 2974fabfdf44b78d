// Steering controller and integration: limit the summed force to max_force, then one explicit
// Euler step: the velocity in place, the position and heading into free buffers, which then
// become cur (the old columns alt, crowd_world). Positions are clamped to the world bound,
// +-CROWD_MAX_COORD (crowd/base.h), so that every later difference of positions is finite.
//
// The limits and the heading are steer/steer_math.h's cs_steer_limit and cs_steer_heading, the
// clamp core/range.h's cs_clamp_coord, in crowd_steer_integrate's order (its crowd_steer_limit is
// cs_steer_limit for every value within the ranges of crowd/base.h): branch-free, so the loop
// vectorizes and stays bit-identical to the pure function.
#include <math.h>

#include "core/internal.h"
#include "core/range.h"
#include "steer/steer_math.h"

// A plain function with restrict parameters: inside an OpenMP outlined body gcc loses the
// no-alias facts and falls back to scalar code.
// The velocity is updated in place, the position and heading into the free buffers. Returns the
// largest squared speed, whose move bounds every agent's (crowd_world.since_sort), as its bits: a
// non-negative float orders as its bits do, and an integer maximum vectorizes where a float one
// (which must mind NaN and signed zeros) does not.
static uint32_t integrate_range(const float* restrict px, const float* restrict py,
                                float* restrict vx, float* restrict vy, const float* restrict hx,
                                const float* restrict hy, const float* restrict ms,
                                const float* restrict mf, const float* restrict fx,
                                const float* restrict fy, float* restrict opx, float* restrict opy,
                                float* restrict ohx, float* restrict ohy, float dt, int lo,
                                int hi) {
    uint32_t top = 0;
    for (int s = lo; s < hi; ++s) {
        // Every load is unconditional: a load under a condition keeps the loop scalar.
        const crowd_vec2 last = {hx[s], hy[s]};
        const crowd_vec2 f = cs_steer_limit((crowd_vec2){fx[s], fy[s]}, mf[s]);
        const crowd_vec2 v =
            cs_steer_limit((crowd_vec2){vx[s] + f.x * dt, vy[s] + f.y * dt}, ms[s]);
        vx[s] = v.x;
        vy[s] = v.y;
        opx[s] = cs_clamp_coord(px[s] + v.x * dt);
        opy[s] = cs_clamp_coord(py[s] + v.y * dt);
        const float sp2 = v.x * v.x + v.y * v.y; // as cs_steer_heading computes it
        uint32_t bits;
        memcpy(&bits, &sp2, sizeof bits);
        top = bits > top ? bits : top;
        const crowd_vec2 h = cs_steer_heading(v, last);
        ohx[s] = h.x;
        ohy[s] = h.y;
    }
    return top;
}

static void integrate_team(void* arg, int t, int nt) {
    crowd_world* w = arg;
    const cs_columns f = w->cur;
    float* const* b = (float* const*)w->free_col;
    _Static_assert(CS_FREE_COLS == 4, "back buffers: px, py, hx, hy");
    int lo, hi;
    cs_team_range(w->count, CS_LANES, t, nt, &lo, &hi);
    const uint32_t top =
        integrate_range(f.px, f.py, f.vx, f.vy, f.hx, f.hy, f.max_speed, f.max_force, w->force_x,
                        w->force_y, b[0], b[1], b[2], b[3], w->dt, lo, hi);
    // The move is the velocity times dt, its position then clamped to the world's bound (which
    // only shortens it).
    float sp2;
    memcpy(&sp2, &top, sizeof sp2);
    cs_grid_since_moved(w, sqrtf(sp2) * w->dt);
}

void cs_pass_integrate(crowd_world* w) {
    cs_team_run(w->threads, integrate_team, w);

    // The old position and heading columns stay readable as alt for the rest of the step (the
    // clamp).
    w->alt = (cs_columns){0};
    for (int k = 0; k < CS_FREE_COLS; ++k) {
        const int c = cs_back_col(k);
        w->alt.col[c] = w->cur.col[c];
        w->cur.col[c] = w->free_col[k];
        w->free_col[k] = w->alt.col[c];
    }
}
