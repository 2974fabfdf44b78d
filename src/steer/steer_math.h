// The scalar steering math, in one copy: the primitives of crowd/steer.h, the separation term
// and force, the forward cone and the file's sector, the queue brake, the speed and force limits,
// the heading, and the query box of the neighbor pass. The public pure functions (crowd/steer.h,
// leader.h, queue.h, path.h) and the engine's passes all call these inline functions, so a pass
// and the pure function it is tested against perform the same operations, bit for bit.
//
// Every function is written without branches on its data (a condition selects between two
// values that are both computed, and a division whose divisor could be zero divides by 1 in the
// lane that discards it), so a pass can call them inside `#pragma omp simd` loops and the
// vectorized code performs exactly the scalar operations (cs_steer_width2 alone loops: it is
// computed once per cone, never per candidate). steer/steer_lanes.h holds the loops that apply
// them across CS_LANES candidates at a time.
#ifndef CS_STEER_MATH_H
#define CS_STEER_MATH_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

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

// Where `other` will be after the predict time: what evade flees and pursuit seeks.
static inline crowd_vec2 cs_steer_predicted(crowd_vec2 pos, float max_speed, crowd_vec2 other_pos,
                                            crowd_vec2 other_vel) {
    const float t = cs_steer_predict_time(pos, max_speed, other_pos);
    return cs_steer_v2(other_pos.x + other_vel.x * t, other_pos.y + other_vel.y * t);
}

static inline crowd_vec2 cs_steer_evade(crowd_vec2 pos, crowd_vec2 vel, float max_speed,
                                        crowd_vec2 threat_pos, crowd_vec2 threat_vel) {
    return cs_steer_flee(pos, vel, max_speed,
                         cs_steer_predicted(pos, max_speed, threat_pos, threat_vel));
}

static inline crowd_vec2 cs_steer_pursuit(crowd_vec2 pos, crowd_vec2 vel, float max_speed,
                                          crowd_vec2 target_pos, crowd_vec2 target_vel) {
    return cs_steer_seek(pos, vel, max_speed,
                         cs_steer_predicted(pos, max_speed, target_pos, target_vel));
}

// v scaled down to length max_len when |v| > max_len, else v.
static inline crowd_vec2 cs_steer_limit(crowd_vec2 v, float max_len) {
    const float len2 = v.x * v.x + v.y * v.y;
    const bool over = len2 > max_len * max_len;
    const float s = max_len / sqrtf(over ? len2 : 1.0f);
    return cs_steer_v2(over ? v.x * s : v.x, over ? v.y * s : v.y);
}

// The heading kept by integration (and by the wall clamp, for the move it made): normalize(vel)
// while |vel|^2 > 0.01, else `last`.
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

// fminf / fmaxf are library calls without -ffinite-math-only; these compile to one instruction.
// Their operands below are finite for a valid agent (a NaN gives a NaN box either way, which the
// grid clamps).
static inline float cs_steer_minf(float a, float b) {
    return a < b ? a : b;
}
static inline float cs_steer_maxf(float a, float b) {
    return a > b ? a : b;
}

// ---- separation -------------------------------------------------------------------------------
//
// The spec's separation (crowd_steer_separation) adds, for every neighbor at offset o = pos -
// other with 0.01 < d = |o| < r, (o / d * max_speed * (1 - d / r) - vel) * weight. Its one copy
// is rearranged so that a neighbor's term does not depend on the agent's speed or velocity:
// term = o * (1 / d - 1 / r), and the force is (max_speed * sum(term) - n * vel) * weight over
// the n neighbors that count (without the velocity term for the push form).

// One candidate's separation term. `valid` masks a lane that holds no candidate (or one hidden
// by a wall); `in` says whether it counts, and (ux, uy) is its term, else zero. d is returned
// for the capped pass, which keeps the nearest.
typedef struct cs_steer_sep {
    float d, ux, uy;
    bool in;
} cs_steer_sep;

static inline cs_steer_sep cs_steer_sep_term(float dx, float dy, bool valid, float r, float inv_r) {
    const float d = sqrtf(dx * dx + dy * dy);
    const bool in = valid & (d > 0.01f) & (d < r);
    const float k = 1.0f / (in ? d : 1.0f) - inv_r;
    return (cs_steer_sep){d, in ? dx * k : 0.0f, in ? dy * k : 0.0f, in};
}

// The separation force of the terms' sum (sx, sy) over n neighbors, before the weight: with
// `drag` the spec's form, max_speed * sum - n * vel; without it (the push form of
// crowd_steer_separation_push, CS_FLAG_SEP_PUSH) max_speed * sum.
static inline crowd_vec2 cs_steer_sep_force(float max_speed, bool drag, float sx, float sy, float n,
                                            crowd_vec2 vel) {
    return cs_steer_v2(drag ? max_speed * sx - n * vel.x : max_speed * sx,
                       drag ? max_speed * sy - n * vel.y : max_speed * sy);
}

// ---- the forward cone and the file's sector ---------------------------------------------------

// The direction a cone looks along: normalize(dir) when |dir| >= min_len, else no cone (on =
// false, heading zero). The spec's cone looks along the velocity, with min_len
// CROWD_QUEUE_MIN_SPEED; the file's toward its target. len2 = |dir|^2, which the file keeps.
typedef struct cs_steer_look {
    float hx, hy, len2;
    bool on;
} cs_steer_look;

static inline cs_steer_look cs_steer_cone_look(float dx, float dy, float min_len) {
    const float len2 = dx * dx + dy * dy;
    const float len = sqrtf(len2);
    const bool on = len >= min_len;
    return (cs_steer_look){on ? dx / len : 0.0f, on ? dy / len : 0.0f, len2, on};
}

// Where offset o = other - agent lies relative to heading h: the distance along it and the
// squared distance off its line.
typedef struct cs_steer_cone_at {
    float along, lat2;
} cs_steer_cone_at;

static inline cs_steer_cone_at cs_steer_cone_offset(float ox, float oy, float hx, float hy) {
    const float along = ox * hx + oy * hy;
    const float qx = ox - hx * along, qy = oy - hy * along;
    return (cs_steer_cone_at){along, qx * qx + qy * qy};
}

// The spec's cone: 0 <= along <= len and |offset - h * along| <= width, that is lat2 <= width2
// with width2 = cs_steer_width2(width).
static inline bool cs_steer_in_cone(cs_steer_cone_at a, float len, float width2) {
    return (a.along >= 0.0f) & (a.along <= len) & (a.lat2 <= width2);
}

// The headway's test (CS_NB_HEADWAY): the cone's along the agent's aim (hx, hy), and the
// candidate aims the agent's way: the dot product of its aim (ox, oy) with the agent's, both of
// unit length (or the candidate's zero: it aims nowhere), above min_cos. Someone walking toward the
// agent or across its way is not the one it keeps a time gap behind: separation steers the two
// apart (crowd/world.h, CROWD_GOAL_PEDESTRIAN).
static inline bool cs_steer_in_headway(cs_steer_cone_at a, float len, float width2, float hx,
                                       float hy, float ox, float oy, float min_cos, float dx,
                                       float dy) {
    return cs_steer_in_cone(a, len, width2) & (hx * ox + hy * oy > min_cos) &
           (a.along + (ox * dx + oy * dy) > 0.0f);
}

// The largest float t with sqrtf(t) <= width (+inf for a NaN width, whose comparison never fails;
// -1 for a negative one, which no length satisfies). sqrtf is correctly rounded and monotone, so
// the spec's test sqrtf(lat2) <= width is exactly lat2 <= t: no square root per candidate, and
// the same answer for every input. Computed once per cone, not per candidate.
static inline float cs_steer_width2(float width) {
    if (isnan(width)) return INFINITY;
    if (width < 0.0f) return -1.0f;
    float t = width * width;
    while (t > 0.0f && sqrtf(t) > width) t = nextafterf(t, 0.0f);
    while (t < INFINITY && sqrtf(nextafterf(t, INFINITY)) <= width) t = nextafterf(t, INFINITY);
    return t;
}

// The file's sector toward its target: 0 < along <= len, at most `width` (width2 = width^2) or
// along / 2 off the line, and strictly closer to the target than the agent (e2, the candidate's
// squared distance to it, below the agent's, len2 of cs_steer_cone_look), so that "the one ahead"
// never forms a loop.
static inline bool cs_steer_in_sector(cs_steer_cone_at a, float len, float width2, float e2,
                                      float len2) {
    return (a.along > 0.0f) & (a.along <= len) &
           ((a.lat2 <= width2) | (4.0f * a.lat2 <= a.along * a.along)) & (e2 < len2);
}

// The sector's shape from its subscription's length and width: how far it reaches, the
// half-width of its box at the far end (the along / 2 bound there) and the squared-width bound.
typedef struct cs_steer_shape {
    float len, width, width2;
} cs_steer_shape;

static inline cs_steer_shape cs_steer_sector_shape(float len, float width) {
    return (cs_steer_shape){len, cs_steer_maxf(width, 0.5f * len), width * width};
}

// The headway's shape from its length and squared-width bound: the width of its box is the
// bound's square root, the largest distance off the line its test admits.
static inline cs_steer_shape cs_steer_headway_shape(float len, float width2) {
    return (cs_steer_shape){len, sqrtf(width2), width2};
}

// The file's choice among the candidates in its sector: the closest by (along, offset), in that
// lexicographic order, which does not depend on the order the candidates are seen in.
static inline bool cs_steer_file_before(float along, float ox, float oy, float best_along,
                                        float best_ox, float best_oy) {
    return (along < best_along) |
           ((along == best_along) & ((ox < best_ox) | ((ox == best_ox) & (oy < best_oy))));
}

// The spec's queueBrake: the closest agent ahead at `along` scales the desired speed by
// clamp(along / len, 0, 1); nobody ahead (along = +inf) means no braking (1).
static inline float cs_steer_brake(float along, float len) {
    const float b = along / len;
    const float clamped = b < 0.0f ? 0.0f : (b > 1.0f ? 1.0f : b);
    return along < INFINITY ? clamped : 1.0f;
}

// The headway speed (crowd_steer_headway_speed): min(max_speed, max(0, (s - min_gap) /
// time_gap)); s = +inf gives max_speed.
static inline float cs_steer_headway_speed(float s, float max_speed, float min_gap,
                                           float time_gap) {
    const float v = (s - min_gap) / time_gap;
    const float pos = v > 0.0f ? v : 0.0f;
    return pos < max_speed ? pos : max_speed;
}

// The pedestrian form's fluctuation (crowd/world.h, CROWD_GOAL_FLUCTUATION): a draw in [-1, 1)
// from the bits of the agent's position (splitmix64's mix). It depends on the agent's own state
// alone, so it is the same whatever the thread count, the agent's index, the tick count or the
// other agents of the world; it changes whenever the agent moves.
static inline float cs_steer_fluct_draw(crowd_vec2 pos) {
    uint32_t bx, by;
    memcpy(&bx, &pos.x, sizeof bx);
    memcpy(&by, &pos.y, sizeof by);
    uint64_t z = ((uint64_t)bx << 32 | by) + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (float)(z >> 40) * (2.0f / 16777216.0f) - 1.0f; // 24 bits: exact in a float
}

// The tangent of a pedestrian's turn: amplitude (CROWD_GOAL_FLUCTUATION) * draw times its
// frustration, 1 - |vel| / desired, when it walks slower than the speed it wants (0 when it wants
// none).
static inline float cs_steer_fluct_tangent(crowd_vec2 vel, float desired, float draw,
                                           float amplitude) {
    const float v = sqrtf(vel.x * vel.x + vel.y * vel.y);
    const bool slow = v < desired;
    const float fr = 1.0f - v / (slow ? desired : 1.0f);
    return slow ? amplitude * fr * draw : 0.0f;
}

// `to` turned by the angle whose tangent is t, and longer by sqrt(1 + t^2): (x - t y, y + t x).
static inline crowd_vec2 cs_steer_turn(crowd_vec2 to, float t) {
    return cs_steer_v2(to.x - t * to.y, to.y + t * to.x);
}

// ---- the query box ----------------------------------------------------------------------------

// A query box is widened by this relative margin so that a float-rounded box edge never drops a
// candidate that the exact tests would accept.
static inline float cs_steer_margin(float px, float py, float reach) {
    return (fabsf(px) + fabsf(py) + reach) * 1e-6f + 1e-6f;
}

// The box an agent at p queries: the disc of radius r, grown with `cone` to the bounding box of
// the cone along heading h (length len, half-width `width` at its far end), widened by the margin
// of its reach. reach is the distance from p the query covers, margin included (max(r, len +
// width) + margin with a cone, else r + margin).
typedef struct cs_steer_box {
    float x0, y0, x1, y1, reach;
} cs_steer_box;

static inline cs_steer_box cs_steer_query_box(float px, float py, float r, bool cone, float hx,
                                              float hy, float len, float width) {
    const float ex = fabsf(hy) * width, ey = fabsf(hx) * width;
    const float ux = hx * len, uy = hy * len;
    const float dx0 = px - r, dx1 = px + r, dy0 = py - r, dy1 = py + r;
    const float cx0 = cs_steer_minf(dx0, px + cs_steer_minf(0.0f, ux) - ex);
    const float cx1 = cs_steer_maxf(dx1, px + cs_steer_maxf(0.0f, ux) + ex);
    const float cy0 = cs_steer_minf(dy0, py + cs_steer_minf(0.0f, uy) - ey);
    const float cy1 = cs_steer_maxf(dy1, py + cs_steer_maxf(0.0f, uy) + ey);
    const float reach = cone ? cs_steer_maxf(r, len + width) : r;
    const float m = cs_steer_margin(px, py, reach);
    return (cs_steer_box){(cone ? cx0 : dx0) - m, (cone ? cy0 : dy0) - m, (cone ? cx1 : dx1) + m,
                          (cone ? cy1 : dy1) + m, reach + m};
}

#endif
