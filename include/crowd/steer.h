// crowdstep: the steering primitives as pure functions.
//
// These are the definitions the engine's vectorized passes are tested against. All of them are
// float32, use no fused multiply-add and no approximate reciprocals, and are deterministic.
// normalize(v) is v / |v|, or the zero vector when |v| == 0.
//
// For arguments within the valid ranges of crowd/base.h every result is finite. crowd_steer_limit
// and crowd_steer_integrate are also exact for any finite vector and length (their squared
// lengths are taken on scaled values where they would overflow).
#ifndef CROWD_STEER_H
#define CROWD_STEER_H

#include "crowd/base.h"

#ifdef __cplusplus
extern "C" {
#endif

// seek: desired = normalize(target - pos) * max_speed; force = desired - vel.
CROWD_API crowd_vec2 crowd_steer_seek(crowd_vec2 pos, crowd_vec2 vel, float max_speed,
                                      crowd_vec2 target);

// arrive: dist = |target - pos|; speed = max_speed * min(1, dist / slow_radius);
// desired = normalize(target - pos) * speed; force = desired - vel. slow_radius > 0.
CROWD_API crowd_vec2 crowd_steer_arrive(crowd_vec2 pos, crowd_vec2 vel, float max_speed,
                                        crowd_vec2 target, float slow_radius);

// arrive_stop: the arrive the engine uses for ARRIVE goals, queue goals and path ends. The spec's
// arrive (above) steers toward a desired velocity with no regard to how fast the agent can brake:
// with slow_radius 1 and max_force 3 it overshoots its target by about 0.45 m at 1.5 m/s and
// 1 m at 3 m/s, then comes back. This one caps the approach speed at what half of max_force can
// brake to zero on the remaining distance and closes the velocity gap in a short response time:
//   dist = |target - pos|; speed = min(max_speed * min(1, dist / slow_radius),
//                                      sqrt(dist * max_force))
//   desired = limit(normalize(target - pos) * speed, max_speed)
//   force = (desired - vel) / CROWD_STEER_RESPONSE_TIME
// max_force > 0, slow_radius > 0.
#define CROWD_STEER_RESPONSE_TIME 0.2f
CROWD_API crowd_vec2 crowd_steer_arrive_stop(crowd_vec2 pos, crowd_vec2 vel, float max_speed,
                                             float max_force, crowd_vec2 target, float slow_radius);

// flee: desired = normalize(pos - threat) * max_speed; force = desired - vel.
CROWD_API crowd_vec2 crowd_steer_flee(crowd_vec2 pos, crowd_vec2 vel, float max_speed,
                                      crowd_vec2 threat);

// Reynolds' look-ahead time used by pursuit and evade: T = |other - pos| / max_speed.
CROWD_API float crowd_steer_predict_time(crowd_vec2 pos, float max_speed, crowd_vec2 other);

// evade: flee(threat_pos + threat_vel * T), T = crowd_steer_predict_time(pos, max_speed,
// threat_pos).
CROWD_API crowd_vec2 crowd_steer_evade(crowd_vec2 pos, crowd_vec2 vel, float max_speed,
                                       crowd_vec2 threat_pos, crowd_vec2 threat_vel);

// pursuit: seek(target_pos + target_vel * T), T = crowd_steer_predict_time(pos, max_speed,
// target_pos).
CROWD_API crowd_vec2 crowd_steer_pursuit(crowd_vec2 pos, crowd_vec2 vel, float max_speed,
                                         crowd_vec2 target_pos, crowd_vec2 target_vel);

// separation, the spec's form. For every neighbor n with offset = pos - n, d = |offset| and
// 0.01 < d < sep_radius, add (normalize(offset) * max_speed * (1 - d / sep_radius) - vel) * weight.
// Neighbors outside that range (including the agent itself, at d = 0) contribute nothing.
// `neighbors` may be NULL, which counts as no neighbors, as does a count <= 0.
CROWD_API crowd_vec2 crowd_steer_separation(crowd_vec2 pos, crowd_vec2 vel, float max_speed,
                                            const crowd_vec2* neighbors, int count,
                                            float sep_radius, float weight);

// separation without the velocity term: for the same neighbors as crowd_steer_separation, add
// normalize(offset) * max_speed * (1 - d / sep_radius) * weight. The spec's form subtracts the
// agent's velocity once per neighbor, a drag that grows with the number of neighbors; followers
// in the KEEP_UP form (crowd/leader.h) separate this way.
CROWD_API crowd_vec2 crowd_steer_separation_push(crowd_vec2 pos, float max_speed,
                                                 const crowd_vec2* neighbors, int count,
                                                 float sep_radius, float weight);

// headway speed, the collision-free speed model's (Tordeux, Chraibi and Seyfried 2016): the speed
// that keeps the time gap time_gap behind the closest agent ahead at distance s, zero at min_gap
// or closer: min(max_speed, max(0, (s - min_gap) / time_gap)). s = +infinity (nobody ahead) gives
// max_speed. time_gap > 0. CROWD_GOAL_PEDESTRIAN goals (crowd/world.h) walk at most this fast.
CROWD_API float crowd_steer_headway_speed(float s, float max_speed, float min_gap, float time_gap);

// limit: v scaled down to length max_len when |v| > max_len, else v.
CROWD_API crowd_vec2 crowd_steer_limit(crowd_vec2 v, float max_len);

// One explicit Euler step with the engine's rules (unit mass):
// f = limit(force, max_force); v += f * dt; v = limit(v, max_speed); x += v * dt;
// x = clamp(x, -CROWD_MAX_COORD, CROWD_MAX_COORD) per coordinate (the engine's world bound);
// heading = normalize(v) when |v|^2 > 0.01, else heading is kept (the last valid heading).
// `pos` and `vel` are required: with either NULL the call does nothing. `heading` may be NULL when
// the caller does not track it.
CROWD_API void crowd_steer_integrate(crowd_vec2* pos, crowd_vec2* vel, crowd_vec2* heading,
                                     crowd_vec2 force, float max_speed, float max_force, float dt);

#ifdef __cplusplus
}
#endif

#endif
