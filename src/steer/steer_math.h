// The scalar steering math, in one copy. The public pure functions (crowd/steer.h, leader.h,
// queue.h, path.h) and the engine's passes all call these inline functions, so a pass and the
// pure function it is tested against agree bit for bit.
//
// Every function is written without branches on its data (a condition selects between two
// values that are both computed, and a division whose divisor could be zero divides by 1 in the
// lane that discards it), so a pass can call them inside `#pragma omp simd` loops and the
// vectorized code performs exactly the scalar operations.
#ifndef CS_STEER_MATH_H
#define CS_STEER_MATH_H

#include <math.h>
#include <stdbool.h>

#include "crowd/base.h"
#include "crowd/steer.h"

static inline crowd_vec2 cs_steer_v2(float x, float y) {
    return (crowd_vec2){x, y};
}

// v / |v|, or the zero vector when |v| == 0.
static inline crowd_vec2 cs_steer_normalize(crowd_vec2 v) {
    const float len = sqrtf(v.x * v.x + v.y * v.y);
    const float div = len > 0.0f ? len : 1.0f;
    return cs_steer_v2(len > 0.0f ? v.x / div : 0.0f, len > 0.0f ? v.y / div : 0.0f);
}

// normalize(dir) * speed - vel: the desired velocity minus the current one.
static inline crowd_vec2 cs_steer_toward(crowd_vec2 dir, float speed, crowd_vec2 vel) {
    const crowd_vec2 n = cs_steer_normalize(dir);
    return cs_steer_v2(n.x * speed - vel.x, n.y * speed - vel.y);
}

static inline crowd_vec2 cs_steer_seek(crowd_vec2 pos, crowd_vec2 vel, float max_speed,
                                       crowd_vec2 target) {
    return cs_steer_toward(cs_steer_v2(target.x - pos.x, target.y - pos.y), max_speed, vel);
}

static inline crowd_vec2 cs_steer_arrive(crowd_vec2 pos, crowd_vec2 vel, float max_speed,
                                         crowd_vec2 target, float slow_radius) {
    const crowd_vec2 to = cs_steer_v2(target.x - pos.x, target.y - pos.y);
    const float dist = sqrtf(to.x * to.x + to.y * to.y);
    const float ramp = dist / slow_radius;
    const float speed = max_speed * (ramp < 1.0f ? ramp : 1.0f);
    return cs_steer_toward(to, speed, vel);
}

static inline crowd_vec2 cs_steer_flee(crowd_vec2 pos, crowd_vec2 vel, float max_speed,
                                       crowd_vec2 threat) {
    return cs_steer_toward(cs_steer_v2(pos.x - threat.x, pos.y - threat.y), max_speed, vel);
}

// Reynolds' look-ahead time: |other - pos| / max_speed.
static inline float cs_steer_predict_time(crowd_vec2 pos, float max_speed, crowd_vec2 other) {
    const float dx = other.x - pos.x, dy = other.y - pos.y;
    return sqrtf(dx * dx + dy * dy) / max_speed;
}

static inline crowd_vec2 cs_steer_evade(crowd_vec2 pos, crowd_vec2 vel, float max_speed,
                                        crowd_vec2 threat_pos, crowd_vec2 threat_vel) {
    const float t = cs_steer_predict_time(pos, max_speed, threat_pos);
    return cs_steer_flee(
        pos, vel, max_speed,
        cs_steer_v2(threat_pos.x + threat_vel.x * t, threat_pos.y + threat_vel.y * t));
}

static inline crowd_vec2 cs_steer_pursuit(crowd_vec2 pos, crowd_vec2 vel, float max_speed,
                                          crowd_vec2 target_pos, crowd_vec2 target_vel) {
    const float t = cs_steer_predict_time(pos, max_speed, target_pos);
    return cs_steer_seek(
        pos, vel, max_speed,
        cs_steer_v2(target_pos.x + target_vel.x * t, target_pos.y + target_vel.y * t));
}

// v scaled down to length max_len when |v| > max_len, else v.
static inline crowd_vec2 cs_steer_limit(crowd_vec2 v, float max_len) {
    const float len2 = v.x * v.x + v.y * v.y;
    const bool over = len2 > max_len * max_len;
    const float s = max_len / sqrtf(over ? len2 : 1.0f);
    return cs_steer_v2(over ? v.x * s : v.x, over ? v.y * s : v.y);
}

// The heading kept by integration: normalize(vel) while |vel|^2 > 0.01, else `last`.
static inline crowd_vec2 cs_steer_heading(crowd_vec2 vel, crowd_vec2 last) {
    const float sp2 = vel.x * vel.x + vel.y * vel.y;
    const bool moving = sp2 > 0.01f;
    const float len = sqrtf(moving ? sp2 : 1.0f);
    return cs_steer_v2(moving ? vel.x / len : last.x, moving ? vel.y / len : last.y);
}

// The arrive that stops on its target (crowd_steer_arrive_stop), toward a target moving at
// target_vel: the desired velocity is target_vel plus an approach speed that never exceeds what
// max_force / 2 can brake to zero on the remaining distance, limited to max_speed; the force
// closes the gap to it in CROWD_STEER_RESPONSE_TIME.
static inline crowd_vec2 cs_steer_arrive_to(crowd_vec2 pos, crowd_vec2 vel, float max_speed,
                                            float max_force, crowd_vec2 target,
                                            crowd_vec2 target_vel, float slow_radius,
                                            float response_time) {
    const crowd_vec2 to = cs_steer_v2(target.x - pos.x, target.y - pos.y);
    const float dist = sqrtf(to.x * to.x + to.y * to.y);
    const float ramp = dist / slow_radius;
    const float linear = max_speed * (ramp < 1.0f ? ramp : 1.0f);
    const float brake = sqrtf(dist * max_force);
    const float speed = linear < brake ? linear : brake;
    const crowd_vec2 n = cs_steer_normalize(to);
    const crowd_vec2 desired = cs_steer_limit(
        cs_steer_v2(n.x * speed + target_vel.x, n.y * speed + target_vel.y), max_speed);
    return cs_steer_v2((desired.x - vel.x) / response_time, (desired.y - vel.y) / response_time);
}

static inline crowd_vec2 cs_steer_arrive_stop(crowd_vec2 pos, crowd_vec2 vel, float max_speed,
                                              float max_force, crowd_vec2 target,
                                              float slow_radius) {
    return cs_steer_arrive_to(pos, vel, max_speed, max_force, target, cs_steer_v2(0.0f, 0.0f),
                              slow_radius, CROWD_STEER_RESPONSE_TIME);
}

#endif
