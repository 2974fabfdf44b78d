// Where a scenario puts its agents: points of an area and formation slots around a leader.
#include <math.h>

#include "build.h"
#include "scenes.h"

static const float TWO_PI = 6.2831853f;

static int grid_columns(const sc_area* a, int n) {
    if (a->columns > 0) return a->columns;
    int c = (int)ceil(sqrt((double)n));
    return c > 0 ? c : 1;
}

crowd_vec2 area_point(const sc_area* a, int k, int n, scene_rng* rng) {
    switch (a->kind) {
    case SC_AREA_UNIFORM: {
        float x = scene_rng_float(rng, a->min.x, a->max.x);
        float y = scene_rng_float(rng, a->min.y, a->max.y);
        return (crowd_vec2){x, y};
    }
    case SC_AREA_GRID:
    case SC_AREA_JITTERED_GRID: {
        const int cols = grid_columns(a, n), rows = (n + cols - 1) / cols;
        const int col = k % cols, row = k / cols;
        crowd_vec2 p = {a->center.x + ((float)col - (float)(cols - 1) * 0.5f) * a->spacing,
                        a->center.y + ((float)row - (float)(rows - 1) * 0.5f) * a->spacing};
        if (a->kind == SC_AREA_JITTERED_GRID) {
            const float j = a->jitter * a->spacing;
            p.x += scene_rng_float(rng, -j, j);
            p.y += scene_rng_float(rng, -j, j);
        }
        return p;
    }
    case SC_AREA_CIRCLE: {
        // sqrt of a uniform draw makes the density uniform over the disc, not the radius.
        const float r = a->radius * sqrtf(scene_rng_float(rng, 0.0f, 1.0f));
        const float t = scene_rng_float(rng, 0.0f, TWO_PI);
        return (crowd_vec2){a->center.x + r * crowd_cosf(t), a->center.y + r * crowd_sinf(t)};
    }
    default:
        return a->center;
    }
}

crowd_vec2 formation_offset(const sc_followers* f, int k, int n) {
    const float b = f->behind_distance, s = f->spacing;
    switch (f->formation) {
    case SC_FORMATION_COLUMN:
        return (crowd_vec2){-(b + (float)k * s), 0.0f};
    case SC_FORMATION_LINE:
        return (crowd_vec2){-b, ((float)k - (float)(n - 1) * 0.5f) * s};
    case SC_FORMATION_WEDGE: {
        const float rank = (float)(k / 2 + 1), side = (k % 2) ? -1.0f : 1.0f;
        return (crowd_vec2){-(b + (rank - 1.0f) * s) - s * 0.5f, side * rank * s};
    }
    case SC_FORMATION_BLOCK: {
        int cols = (int)ceil(sqrt((double)n));
        if (cols < 1) cols = 1;
        const int row = k / cols, col = k % cols;
        return (crowd_vec2){-(b + (float)row * s), ((float)col - (float)(cols - 1) * 0.5f) * s};
    }
    case SC_FORMATION_CIRCLE: {
        float r = (float)n * s / TWO_PI;
        if (r < b) r = b;
        const float t = TWO_PI * (float)k / (float)n;
        return (crowd_vec2){r * crowd_cosf(t), r * crowd_sinf(t)};
    }
    case SC_FORMATION_CUSTOM:
        return f->offsets[k];
    case SC_FORMATION_NONE:
    default: {
        // One shared target behind the leader: start the followers three abreast around it so
        // that they do not begin on top of each other.
        const float gap = 0.8f;
        return (crowd_vec2){-(b + (float)(k / 3) * gap), ((float)(k % 3) - 1.0f) * gap};
    }
    }
}
