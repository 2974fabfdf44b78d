// The seek, arrive and flee primitives as inline functions for the passes that run them per
// agent. crowd_steer_seek / _arrive / _flee (steer.c) are these same functions behind the public
// API, so a pass and the pure function agree bit for bit.
#ifndef CS_STEER_INLINE_H
#define CS_STEER_INLINE_H

#include <math.h>

#include "crowd/base.h"

static inline crowd_vec2 steer_v2(float x, float y) {
    return (crowd_vec2){x, y};
}

static inline crowd_vec2 steer_normalize(crowd_vec2 v) {
    float len = sqrtf(v.x * v.x + v.y * v.y);
    return len > 0.0f ? steer_v2(v.x / len, v.y / len) : steer_v2(0.0f, 0.0f);
}

// normalize(dir) * speed - vel: the desired velocity minus the current one.
static inline crowd_vec2 steer_toward(crowd_vec2 dir, float speed, crowd_vec2 vel) {
    crowd_vec2 n = steer_normalize(dir);
    return steer_v2(n.x * speed - vel.x, n.y * speed - vel.y);
}

static inline crowd_vec2 steer_seek(crowd_vec2 pos, crowd_vec2 vel, float max_speed,
                                    crowd_vec2 target) {
    return steer_toward(steer_v2(target.x - pos.x, target.y - pos.y), max_speed, vel);
}

static inline crowd_vec2 steer_arrive(crowd_vec2 pos, crowd_vec2 vel, float max_speed,
                                      crowd_vec2 target, float slow_radius) {
    crowd_vec2 to = steer_v2(target.x - pos.x, target.y - pos.y);
    float dist = sqrtf(to.x * to.x + to.y * to.y);
    float ramp = dist / slow_radius;
    float speed = max_speed * (ramp < 1.0f ? ramp : 1.0f);
    return steer_toward(to, speed, vel);
}

static inline crowd_vec2 steer_flee(crowd_vec2 pos, crowd_vec2 vel, float max_speed,
                                    crowd_vec2 threat) {
    return steer_toward(steer_v2(pos.x - threat.x, pos.y - threat.y), max_speed, vel);
}

#endif
