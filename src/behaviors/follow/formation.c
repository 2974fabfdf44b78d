// Formation shapes: slot offsets in the leader frame (x forward, y left) for n slot followers.
#include <math.h>

#include "behaviors/follow/follow_internal.h"
#include "crowd/trig.h"

crowd_formation_def crowd_formation_def_default(void) {
    return (crowd_formation_def){
        .shape = CROWD_FORMATION_COLUMN,
        .spacing = 1.5f,
        .distance = 2.0f,
        .columns = 3,
    };
}

// The leader's formation, or the default one when it never got any.
static void formation_of(const cs_leader* l, crowd_formation_shape* shape, float* spacing,
                         float* distance, int* columns) {
    if (l->has_formation) {
        *shape = (crowd_formation_shape)l->shape;
        *spacing = l->spacing;
        *distance = l->distance;
        *columns = l->columns;
        return;
    }
    const crowd_formation_def d = crowd_formation_def_default();
    *shape = d.shape;
    *spacing = d.spacing;
    *distance = d.distance;
    *columns = d.columns;
}

int cs_formation_slot_count(const cs_leader* l, int n) {
    if (l->has_formation && l->shape == CROWD_FORMATION_CUSTOM) return l->custom_count;
    return n;
}

void cs_formation_slots(const cs_leader* l, int n, crowd_vec2* out) {
    crowd_formation_shape shape;
    float s, d;
    int columns;
    formation_of(l, &shape, &s, &d, &columns);
    switch (shape) {
    case CROWD_FORMATION_COLUMN:
        for (int k = 0; k < n; ++k) out[k] = (crowd_vec2){-(d + (float)k * s), 0.0f};
        return;
    case CROWD_FORMATION_LINE:
        for (int k = 0; k < n; ++k)
            out[k] = (crowd_vec2){-d, ((float)(n - 1) * 0.5f - (float)k) * s};
        return;
    case CROWD_FORMATION_WEDGE: {
        const float c = 0.70710678f; // cos 45 degrees
        for (int k = 0; k < n; ++k) {
            const float r = d + (float)(k / 2) * s;
            const float side = (k % 2 == 0) ? 1.0f : -1.0f;
            out[k] = (crowd_vec2){-r * c, side * r * c};
        }
        return;
    }
    case CROWD_FORMATION_BLOCK: {
        const int cols = columns;
        for (int k = 0; k < n; ++k) {
            const int row = k / cols, col = k % cols;
            const int left = n - row * cols;
            const int in_row = left < cols ? left : cols;
            out[k] =
                (crowd_vec2){-(d + (float)row * s), ((float)(in_row - 1) * 0.5f - (float)col) * s};
        }
        return;
    }
    case CROWD_FORMATION_CIRCLE: {
        const double two_pi = 6.283185307179586;
        double r = (double)n * (double)s / two_pi;
        if (r < (double)d) r = (double)d;
        // With an even count the ring turns by half a step so that no slot sits straight ahead,
        // inside the ahead zone every follower evades.
        const double shift = n % 2 == 0 ? 0.5 : 0.0;
        for (int k = 0; k < n; ++k) {
            const double a = two_pi * (0.5 + ((double)k + shift) / (double)n);
            out[k] = (crowd_vec2){(float)(r * crowd_cos(a)), (float)(r * crowd_sin(a))};
        }
        return;
    }
    case CROWD_FORMATION_CUSTOM:
        for (int k = 0; k < l->custom_count; ++k) out[k] = l->custom[k];
        return;
    case CROWD_FORMATION_SHAPE_COUNT:
        break;
    }
}
