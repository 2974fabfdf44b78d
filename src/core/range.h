// Checks of the valid ranges (crowd/base.h) shared by every setter: each returns CROWD_OK, or
// CROWD_ERR_NOT_FINITE for NaN or an infinity, or CROWD_ERR_OUT_OF_RANGE for a finite value
// beyond its bound. Sign rules (a radius > 0, a weight >= 0) stay with the callers, which report
// their own statuses for them.
#ifndef CS_RANGE_H
#define CS_RANGE_H

#include <math.h>
#include <stdbool.h>

#include "crowd/base.h"

static inline crowd_status cs_range_check(float v, float lo, float hi) {
    if (!isfinite(v)) return CROWD_ERR_NOT_FINITE;
    return v >= lo && v <= hi ? CROWD_OK : CROWD_ERR_OUT_OF_RANGE;
}

// A point of the plane: both coordinates within +-CROWD_MAX_COORD.
static inline crowd_status cs_range_point(crowd_vec2 p) {
    crowd_status st = cs_range_check(p.x, -CROWD_MAX_COORD, CROWD_MAX_COORD);
    return st != CROWD_OK ? st : cs_range_check(p.y, -CROWD_MAX_COORD, CROWD_MAX_COORD);
}

// A velocity: both components within +-CROWD_MAX_SPEED.
static inline crowd_status cs_range_velocity(crowd_vec2 v) {
    crowd_status st = cs_range_check(v.x, -CROWD_MAX_SPEED, CROWD_MAX_SPEED);
    return st != CROWD_OK ? st : cs_range_check(v.y, -CROWD_MAX_SPEED, CROWD_MAX_SPEED);
}

// An offset from a point (formation offsets): both components within +-CROWD_MAX_DISTANCE.
static inline crowd_status cs_range_offset(crowd_vec2 v) {
    crowd_status st = cs_range_check(v.x, -CROWD_MAX_DISTANCE, CROWD_MAX_DISTANCE);
    return st != CROWD_OK ? st : cs_range_check(v.y, -CROWD_MAX_DISTANCE, CROWD_MAX_DISTANCE);
}

// The first status other than CROWD_OK of `n` values each checked against [lo, hi] after their
// sign rule passed: a radius, distance, weight or force whose magnitude is bounded above.
static inline crowd_status cs_range_upper(const float* v, int n, float hi) {
    for (int i = 0; i < n; ++i)
        if (!(v[i] <= hi)) return CROWD_ERR_OUT_OF_RANGE;
    return CROWD_OK;
}

// A coordinate clamped to [-CROWD_MAX_COORD, CROWD_MAX_COORD], branch-free (it vectorizes), for
// the integration of the engine and of crowd_steer_integrate alike.
static inline float cs_clamp_coord(float v) {
    v = v < CROWD_MAX_COORD ? v : CROWD_MAX_COORD;
    return v > -CROWD_MAX_COORD ? v : -CROWD_MAX_COORD;
}

#endif
