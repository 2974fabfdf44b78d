// Desired walking speeds (crowd/speed.h): the distributions and their keyed draws.
#include "crowd/speed.h"

#include <math.h>

#include "core/keyed.h"

crowd_speed_dist crowd_speed_dist_default(void) {
    return (crowd_speed_dist){
        .kind = CROWD_SPEED_NORMAL, .mean = 1.34f, .sd = 0.26f, .lo = 0.46f, .hi = 2.22f};
}

crowd_speed_dist crowd_speed_dist_age(crowd_age_group group) {
    static const float range[CROWD_AGE_GROUP_COUNT][2] = {
        {0.58f, 1.61f}, {1.41f, 1.54f}, {0.68f, 1.41f}, {0.46f, 0.76f}};
    if ((unsigned)group >= CROWD_AGE_GROUP_COUNT) return crowd_speed_dist_default();
    const float lo = range[group][0], hi = range[group][1];
    return (crowd_speed_dist){
        .kind = CROWD_SPEED_UNIFORM, .mean = 0.5f * (lo + hi), .sd = 0.0f, .lo = lo, .hi = hi};
}

static crowd_status check(const crowd_speed_dist* d) {
    if ((unsigned)d->kind >= CROWD_SPEED_KIND_COUNT) return CROWD_ERR_INVALID_ENUM;
    if (!isfinite(d->mean) || !isfinite(d->sd) || !isfinite(d->lo) || !isfinite(d->hi))
        return CROWD_ERR_NOT_FINITE;
    if (d->kind == CROWD_SPEED_FIXED) {
        if (!(d->mean >= CROWD_MIN_SPEED)) return CROWD_ERR_BAD_SPEED;
        return d->mean > CROWD_MAX_SPEED ? CROWD_ERR_OUT_OF_RANGE : CROWD_OK;
    }
    if (!(d->lo >= CROWD_MIN_SPEED)) return CROWD_ERR_BAD_SPEED;
    if (d->lo > d->hi || d->hi > CROWD_MAX_SPEED || d->sd < 0.0f) return CROWD_ERR_OUT_OF_RANGE;
    return CROWD_OK;
}

// Uniform draw k of (seed, key) in [0, 1), from 53 bits.
static double uniform(uint64_t seed, uint64_t key, uint32_t k) {
    return (double)(cs_keyed_bits(seed, key, k) >> 11) * 0x1.0p-53;
}

crowd_status crowd_speed_draw(const crowd_speed_dist* d, uint64_t seed, uint64_t key, float* out) {
    if (!d || !out) return CROWD_ERR_NULL_ARGUMENT;
    const crowd_status st = check(d);
    if (st != CROWD_OK) return st;
    double v = d->mean;
    if (d->kind == CROWD_SPEED_UNIFORM) {
        v = d->lo + (d->hi - (double)d->lo) * uniform(seed, key, 0);
    } else if (d->kind == CROWD_SPEED_NORMAL) {
        // Irwin-Hall: the sum of twelve uniform draws less 6 has mean 0 and variance 1.
        double z = -6.0;
        for (uint32_t k = 0; k < 12; ++k) z += uniform(seed, key, k);
        v = d->mean + d->sd * z;
    }
    if (d->kind != CROWD_SPEED_FIXED) v = v < d->lo ? d->lo : (v > d->hi ? d->hi : v);
    // Rounding to float may step outside [lo, hi] by no more than the bounds' own rounding.
    float f = (float)v;
    if (d->kind != CROWD_SPEED_FIXED) f = f < d->lo ? d->lo : (f > d->hi ? d->hi : f);
    *out = f;
    return CROWD_OK;
}
