// The steering primitives of crowd/steer.h: the inline math of steer/steer_math.h, which the
// engine's passes call.
#include "crowd/steer.h"

#include <float.h>
#include <math.h>

#include "core/range.h"
#include "steer/steer_math.h"

static inline crowd_vec2 v2(float x, float y) {
    return cs_steer_v2(x, y);
}

crowd_vec2 crowd_steer_seek(crowd_vec2 pos, crowd_vec2 vel, float max_speed, crowd_vec2 target) {
    return cs_steer_seek(pos, vel, max_speed, target);
}

crowd_vec2 crowd_steer_arrive(crowd_vec2 pos, crowd_vec2 vel, float max_speed, crowd_vec2 target,
                              float slow_radius) {
    return cs_steer_arrive(pos, vel, max_speed, target, slow_radius);
}

crowd_vec2 crowd_steer_arrive_stop(crowd_vec2 pos, crowd_vec2 vel, float max_speed, float max_force,
                                   crowd_vec2 target, float slow_radius) {
    return cs_steer_arrive_stop(pos, vel, max_speed, max_force, target, slow_radius);
}

crowd_vec2 crowd_steer_flee(crowd_vec2 pos, crowd_vec2 vel, float max_speed, crowd_vec2 threat) {
    return cs_steer_flee(pos, vel, max_speed, threat);
}

float crowd_steer_predict_time(crowd_vec2 pos, float max_speed, crowd_vec2 other) {
    return cs_steer_predict_time(pos, max_speed, other);
}

crowd_vec2 crowd_steer_evade(crowd_vec2 pos, crowd_vec2 vel, float max_speed, crowd_vec2 threat_pos,
                             crowd_vec2 threat_vel) {
    return cs_steer_evade(pos, vel, max_speed, threat_pos, threat_vel);
}

crowd_vec2 crowd_steer_pursuit(crowd_vec2 pos, crowd_vec2 vel, float max_speed,
                               crowd_vec2 target_pos, crowd_vec2 target_vel) {
    return cs_steer_pursuit(pos, vel, max_speed, target_pos, target_vel);
}

// The spec's separation through the pass's one copy: each neighbor's term
// cs_steer_sep_term, summed in array order, then cs_steer_sep_force and the weight, the
// rearrangement steer/steer_math.h describes (the same formula, rounded in another order).
static crowd_vec2 separation(crowd_vec2 pos, crowd_vec2 vel, float max_speed,
                             const crowd_vec2* neighbors, int count, float sep_radius, float weight,
                             bool drag) {
    const float inv_r = 1.0f / sep_radius;
    float sx = 0.0f, sy = 0.0f, n = 0.0f;
    for (int i = 0; neighbors && i < count; ++i) {
        const cs_steer_sep t = cs_steer_sep_term(pos.x - neighbors[i].x, pos.y - neighbors[i].y,
                                                 true, sep_radius, inv_r);
        sx += t.ux, sy += t.uy, n += t.in ? 1.0f : 0.0f;
    }
    const crowd_vec2 f = cs_steer_sep_force(max_speed, drag, sx, sy, n, vel);
    return v2(f.x * weight, f.y * weight);
}

crowd_vec2 crowd_steer_separation(crowd_vec2 pos, crowd_vec2 vel, float max_speed,
                                  const crowd_vec2* neighbors, int count, float sep_radius,
                                  float weight) {
    return separation(pos, vel, max_speed, neighbors, count, sep_radius, weight, true);
}

crowd_vec2 crowd_steer_separation_push(crowd_vec2 pos, float max_speed, const crowd_vec2* neighbors,
                                       int count, float sep_radius, float weight) {
    return separation(pos, v2(0.0f, 0.0f), max_speed, neighbors, count, sep_radius, weight, false);
}

float crowd_steer_headway_speed(float s, float max_speed, float min_gap, float time_gap) {
    return cs_steer_headway_speed(s, max_speed, min_gap, time_gap);
}

// limit for a vector or a length whose square overflows float32 (beyond about 1.8e19): the same
// comparison on values multiplied by 2^-100 (exact: a power of two), whose squares are finite,
// and the result as the scaled vector's direction times max_len. Where a scaled square
// underflows the comparison still decides right: either |v| overflowed and max_len is far below
// it, or max_len overflowed and |v| is far below it. Never reached by the engine, whose values
// stay within the ranges of crowd/base.h.
static crowd_vec2 limit_huge(crowd_vec2 v, float max_len) {
    const float k = 0x1p-100f;
    const float x = v.x * k, y = v.y * k, m = max_len * k;
    const float len2 = x * x + y * y;
    if (len2 > m * m) {
        const float len = sqrtf(len2);
        return v2(x / len * max_len, y / len * max_len);
    }
    return v;
}

crowd_vec2 crowd_steer_limit(crowd_vec2 v, float max_len) {
    float len2 = v.x * v.x + v.y * v.y;
    if (!(len2 <= FLT_MAX) || !(max_len * max_len <= FLT_MAX)) return limit_huge(v, max_len);
    return cs_steer_limit(v, max_len);
}

void crowd_steer_integrate(crowd_vec2* pos, crowd_vec2* vel, crowd_vec2* heading, crowd_vec2 force,
                           float max_speed, float max_force, float dt) {
    if (!pos || !vel) return;
    crowd_vec2 f = crowd_steer_limit(force, max_force);
    crowd_vec2 v = crowd_steer_limit(v2(vel->x + f.x * dt, vel->y + f.y * dt), max_speed);
    *vel = v;
    *pos = v2(cs_clamp_coord(pos->x + v.x * dt), cs_clamp_coord(pos->y + v.y * dt));
    if (heading) *heading = cs_steer_heading(v, *heading);
}
