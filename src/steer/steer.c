// The steering primitives: the inline math of steer/steer_math.h, which the engine's passes call.
#include "crowd/steer.h"

#include <math.h>

#include "steer/steer_math.h"

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

crowd_vec2 crowd_steer_separation(crowd_vec2 pos, crowd_vec2 vel, float max_speed,
                                  const crowd_vec2* neighbors, int count, float sep_radius,
                                  float weight) {
    crowd_vec2 f = cs_steer_v2(0.0f, 0.0f);
    for (int i = 0; i < count; ++i) {
        float ox = pos.x - neighbors[i].x, oy = pos.y - neighbors[i].y;
        float d = sqrtf(ox * ox + oy * oy);
        if (!(d > 0.01f && d < sep_radius)) continue;
        float push = max_speed * (1.0f - d / sep_radius);
        f.x += (ox / d * push - vel.x) * weight;
        f.y += (oy / d * push - vel.y) * weight;
    }
    return f;
}

crowd_vec2 crowd_steer_separation_push(crowd_vec2 pos, float max_speed, const crowd_vec2* neighbors,
                                       int count, float sep_radius, float weight) {
    crowd_vec2 f = cs_steer_v2(0.0f, 0.0f);
    for (int i = 0; i < count; ++i) {
        float ox = pos.x - neighbors[i].x, oy = pos.y - neighbors[i].y;
        float d = sqrtf(ox * ox + oy * oy);
        if (!(d > 0.01f && d < sep_radius)) continue;
        float push = max_speed * (1.0f - d / sep_radius);
        f.x += ox / d * push * weight;
        f.y += oy / d * push * weight;
    }
    return f;
}

crowd_vec2 crowd_steer_limit(crowd_vec2 v, float max_len) {
    return cs_steer_limit(v, max_len);
}

void crowd_steer_integrate(crowd_vec2* pos, crowd_vec2* vel, crowd_vec2* heading, crowd_vec2 force,
                           float max_speed, float max_force, float dt) {
    crowd_vec2 f = crowd_steer_limit(force, max_force);
    crowd_vec2 v = crowd_steer_limit(cs_steer_v2(vel->x + f.x * dt, vel->y + f.y * dt), max_speed);
    *vel = v;
    *pos = cs_steer_v2(pos->x + v.x * dt, pos->y + v.y * dt);
    *heading = cs_steer_heading(v, *heading);
}
