// The lane-wise forms of the separation math of steer/steer_math.h, for the neighbor pass: sums
// carried in CS_LANES lanes (candidate k of a chunk goes to lane k) and reduced in one fixed
// order, so that the results do not depend on the ISA, the vector width or the thread count.
// Each lane performs the scalar operations of cs_steer_sep_term on its own candidates, in their
// order; tests/test_steer.c checks them against the scalar functions applied in that order.
#ifndef CS_STEER_LANES_H
#define CS_STEER_LANES_H

#include <stdint.h>
#include <string.h>

#include "core/internal.h"
#include "steer/steer_math.h"

// The sum of CS_LANES lanes by pairwise halving, always in this order: lane l + 8 onto l, then
// + 4, + 2, + 1. Written with vector types because gcc reduces a plain array one scalar at a time
// through the stack.
static inline float cs_lanes_sum(const float* a) {
    typedef float f8 __attribute__((vector_size(32)));
    typedef float f4 __attribute__((vector_size(16)));
#if CS_LANES == 16
    typedef float f16 __attribute__((vector_size(64)));
    f16 v;
    memcpy(&v, a, sizeof v);
    f8 h8 = __builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7) +
            __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15);
#elif CS_LANES == 8
    f8 h8;
    memcpy(&h8, a, sizeof h8);
#else
#error "reduction written for 8 or 16 lanes"
#endif
    f4 h4 =
        __builtin_shufflevector(h8, h8, 0, 1, 2, 3) + __builtin_shufflevector(h8, h8, 4, 5, 6, 7);
    return (h4[0] + h4[2]) + (h4[1] + h4[3]);
}

// The smallest of CS_LANES lanes (the cone's closest along), in lane order.
static inline float cs_lanes_min(const float* a) {
    float m = a[0];
    for (int l = 1; l < CS_LANES; ++l) m = a[l] < m ? a[l] : m;
    return m;
}

// Separation over candidates [b, end) of xs / ys for the agent at (px, py): each candidate's term
// (cs_steer_sep_term) and count added to its lane's sums ax, ay, an. The chunks are CS_LANES wide
// from b; lanes past `end` (read from the arrays' padding) count for nothing.
static inline __attribute__((always_inline)) void
cs_steer_sep_lanes(const float* restrict xs, const float* restrict ys, uint32_t b, uint32_t end,
                   float px, float py, float r, float inv_r, float* restrict ax, float* restrict ay,
                   float* restrict an) {
    for (uint32_t j = b; j < end; j += CS_LANES) {
        // Chunk-relative indexing: with j + l in 32-bit arithmetic gcc cannot prove the lanes
        // contiguous and loads them one by one.
        const float* restrict xc = xs + j;
        const float* restrict yc = ys + j;
        const int live = (int)(end - j);
        for (int l = 0; l < CS_LANES; ++l) {
            const cs_steer_sep t = cs_steer_sep_term(px - xc[l], py - yc[l], l < live, r, inv_r);
            ax[l] += t.ux;
            ay[l] += t.uy;
            an[l] += t.in ? 1.0f : 0.0f;
        }
    }
}

#endif
