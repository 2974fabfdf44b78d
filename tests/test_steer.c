// The steering primitives of crowd/steer.h against their formulas: hand-computed cases with exact
// expected numbers, and random cases against an independent double-precision re-implementation.
// Then the one copy of the steering math the passes use (steer/steer_math.h): each function once
// against the formula it stands for, written out here, and the lane-wise separation
// (steer/steer_lanes.h) against the scalar term applied in the lanes' order.
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/crowd.h"
#include "scenes.h"
#include "steer/steer_lanes.h"
#include "steer/steer_math.h"

static crowd_vec2 v2(float x, float y) {
    return (crowd_vec2){x, y};
}

static bool small_scale(void) {
    const char* s = getenv("CROWD_TEST_SCALE");
    return s && strcmp(s, "small") == 0;
}

static int random_cases(void) {
    return small_scale() ? 5000 : 50000;
}

#define HAND_EPS 1e-6f

static void expect_vec(crowd_vec2 got, float x, float y, const char* what) {
    cr_assert(fabsf(got.x - x) <= HAND_EPS && fabsf(got.y - y) <= HAND_EPS,
              "%s: got (%.9g, %.9g), expected (%.9g, %.9g)", what, (double)got.x, (double)got.y,
              (double)x, (double)y);
}

static void expect_bits(crowd_vec2 got, crowd_vec2 want, const char* what) {
    cr_assert(memcmp(&got, &want, sizeof got) == 0, "%s: got (%.9g, %.9g), expected (%.9g, %.9g)",
              what, (double)got.x, (double)got.y, (double)want.x, (double)want.y);
}

// ---- hand-computed cases ------------------------------------------------------------------------

Test(steer_hand, seek) {
    // desired = (3,4)/5 * 2 = (1.2, 1.6); force = desired - (1, 0).
    expect_vec(crowd_steer_seek(v2(0, 0), v2(1, 0), 2.0f, v2(3, 4)), 0.2f, 1.6f, "seek");
    // From (1,2) to (-2,-2): direction (-0.6, -0.8), speed 5, velocity (0, -1).
    expect_vec(crowd_steer_seek(v2(1, 2), v2(0, -1), 5.0f, v2(-2, -2)), -3.0f, -3.0f, "seek 2");
    // On the target the direction is the zero vector: force = -velocity.
    expect_vec(crowd_steer_seek(v2(1, 1), v2(0.5f, -0.5f), 2.0f, v2(1, 1)), -0.5f, 0.5f,
               "seek on target");
}

Test(steer_hand, arrive) {
    // Outside the slow radius (dist 10 > 5): full speed 2, direction (0.6, 0.8).
    expect_vec(crowd_steer_arrive(v2(0, 0), v2(0, 0), 2.0f, v2(6, 8), 5.0f), 1.2f, 1.6f,
               "arrive outside");
    // Inside (dist 5, slow radius 10): speed 2 * 0.5 = 1; desired (0.6, 0.8) - (0.5, 0.5).
    expect_vec(crowd_steer_arrive(v2(0, 0), v2(0.5f, 0.5f), 2.0f, v2(3, 4), 10.0f), 0.1f, 0.3f,
               "arrive inside");
    // Exactly on the slow radius: min(1, 1) = 1, full speed.
    expect_vec(crowd_steer_arrive(v2(0, 0), v2(0, 0), 2.0f, v2(3, 4), 5.0f), 1.2f, 1.6f,
               "arrive on the slow radius");
    // Deep inside (dist 1, slow radius 4, max speed 2): speed 0.5 toward (-1, 0).
    expect_vec(crowd_steer_arrive(v2(2, 3), v2(0, 1), 2.0f, v2(1, 3), 4.0f), -0.5f, -1.0f,
               "arrive deep inside");
    // On the target: desired is zero, force = -velocity.
    expect_vec(crowd_steer_arrive(v2(3, 4), v2(1, -2), 2.0f, v2(3, 4), 1.0f), -1.0f, 2.0f,
               "arrive on target");
}

Test(steer_hand, flee) {
    // desired = -(3,4)/5 * 2 = (-1.2, -1.6); force = desired - (1, 0).
    expect_vec(crowd_steer_flee(v2(0, 0), v2(1, 0), 2.0f, v2(3, 4)), -2.2f, -1.6f, "flee");
    // Away from (1,2) while at (4,6): direction (0.6, 0.8), speed 1.
    expect_vec(crowd_steer_flee(v2(4, 6), v2(0, 0), 1.0f, v2(1, 2)), 0.6f, 0.8f, "flee 2");
    expect_vec(crowd_steer_flee(v2(1, 1), v2(2, 0), 1.0f, v2(1, 1)), -2.0f, 0.0f,
               "flee on the threat");
}

Test(steer_hand, predict_time) {
    cr_assert_float_eq(crowd_steer_predict_time(v2(0, 0), 2.0f, v2(3, 4)), 2.5f, HAND_EPS);
    cr_assert_float_eq(crowd_steer_predict_time(v2(1, 1), 0.5f, v2(-5, -7)), 20.0f, HAND_EPS);
    cr_assert_eq(crowd_steer_predict_time(v2(1, 1), 3.0f, v2(1, 1)), 0.0f);
}

Test(steer_hand, pursuit) {
    // T = 5 / 2 = 2.5; predicted = (3,4) + (0,-1.6) * 2.5 = (3, 0); desired (2, 0).
    expect_vec(crowd_steer_pursuit(v2(0, 0), v2(0, 0), 2.0f, v2(3, 4), v2(0, -1.6f)), 2.0f, 0.0f,
               "pursuit");
    // T = 5 / 1 = 5; predicted = (4,5) + (0.6,-0.8) * 5 = (7, 1); from (1,1): desired (1, 0),
    // which the velocity (1, 0) already is.
    expect_vec(crowd_steer_pursuit(v2(1, 1), v2(1, 0), 1.0f, v2(4, 5), v2(0.6f, -0.8f)), 0.0f, 0.0f,
               "pursuit already on course");
    // A target at rest is sought where it is.
    expect_vec(crowd_steer_pursuit(v2(0, 0), v2(1, 0), 2.0f, v2(3, 4), v2(0, 0)), 0.2f, 1.6f,
               "pursuit of a still target");
}

Test(steer_hand, evade) {
    // T = 4 / 2 = 2; predicted = (4,0) + (-0.5, 2) * 2 = (3, 4); flee: (-1.2, -1.6) - (0.2, 0).
    expect_vec(crowd_steer_evade(v2(0, 0), v2(0.2f, 0), 2.0f, v2(4, 0), v2(-0.5f, 2)), -1.4f, -1.6f,
               "evade");
    // T = 5 / 1 = 5; predicted = (0,5) + (3,-1) * 5 = (15, 0); flee: (-1, 0).
    expect_vec(crowd_steer_evade(v2(0, 0), v2(0, 0), 1.0f, v2(0, 5), v2(3, -1)), -1.0f, 0.0f,
               "evade 2");
}

Test(steer_hand, separation_range) {
    // pos (0,0), vel (0.5,0), max speed 2, radius 2, weight 3.
    // (1,0):    offset (-1,0), d 1,   push 2*(1-0.5)  = 1   -> (-1-0.5, 0)*3     = (-4.5, 0)
    // (0,-0.5): offset (0,0.5), d 0.5, push 2*(1-0.25) = 1.5 -> (0-0.5, 1.5-0)*3 = (-1.5, 4.5)
    // The rest contribute nothing: d = 0 (itself), d = 0.005, d = 0.01 exactly (not > 0.01),
    // d = 2 = R exactly, d = 3, d = 2.12.
    const crowd_vec2 pos = v2(0, 0), vel = v2(0.5f, 0);
    const crowd_vec2 in[2] = {v2(1, 0), v2(0, -0.5f)};
    const crowd_vec2 out[7] = {v2(0, 0),  v2(0.005f, 0), v2(-0.01f, 0), v2(2, 0),
                               v2(0, -2), v2(3, 0),      v2(1.5f, 1.5f)};
    crowd_vec2 all[9];
    memcpy(all, in, sizeof in);
    memcpy(all + 2, out, sizeof out);
    expect_vec(crowd_steer_separation(pos, vel, 2.0f, in, 2, 2.0f, 3.0f), -6.0f, 4.5f,
               "separation, two in range");
    expect_vec(crowd_steer_separation(pos, vel, 2.0f, all, 9, 2.0f, 3.0f), -6.0f, 4.5f,
               "separation, out-of-range neighbors add nothing");
    for (int i = 0; i < 7; ++i) {
        const crowd_vec2 f = crowd_steer_separation(pos, vel, 2.0f, &out[i], 1, 2.0f, 3.0f);
        cr_assert(f.x == 0.0f && f.y == 0.0f, "neighbor (%g, %g) contributed (%g, %g)",
                  (double)out[i].x, (double)out[i].y, (double)f.x, (double)f.y);
    }
    // Just inside both ends of the range.
    expect_vec(
        crowd_steer_separation(pos, v2(0, 0), 2.0f, &(crowd_vec2){0.0125f, 0}, 1, 2.0f, 1.0f),
        -2.0f * (1.0f - 0.0125f / 2.0f), 0.0f, "separation just above 0.01");
    expect_vec(crowd_steer_separation(pos, v2(0, 0), 2.0f, &(crowd_vec2){0, 1.999f}, 1, 2.0f, 1.0f),
               0.0f, -2.0f * (1.0f - 1.999f / 2.0f), "separation just below R");
    // Diagonal: offset (0.6, 0.8), d 1, radius 4, max speed 1: push 0.75 -> (0.45, 0.6).
    expect_vec(
        crowd_steer_separation(pos, v2(0, 0), 1.0f, &(crowd_vec2){-0.6f, -0.8f}, 1, 4.0f, 1.0f),
        0.45f, 0.6f, "separation diagonal");
    expect_vec(crowd_steer_separation(pos, vel, 2.0f, NULL, 0, 2.0f, 3.0f), 0.0f, 0.0f,
               "separation, no neighbors");
    expect_vec(crowd_steer_separation(pos, vel, 2.0f, in, 2, 2.0f, 0.0f), 0.0f, 0.0f,
               "separation, weight 0");
}

Test(steer_hand, limit) {
    expect_bits(crowd_steer_limit(v2(3, 4), 10.0f), v2(3, 4), "limit below");
    expect_bits(crowd_steer_limit(v2(3, 4), 5.0f), v2(3, 4), "limit exactly at length");
    expect_vec(crowd_steer_limit(v2(3, 4), 2.5f), 1.5f, 2.0f, "limit above");
    expect_vec(crowd_steer_limit(v2(-6, 8), 5.0f), -3.0f, 4.0f, "limit above 2");
    expect_bits(crowd_steer_limit(v2(0, 0), 1.0f), v2(0, 0), "limit zero");
}

Test(steer_hand, integrate) {
    // force (0,10) limited to 5; v = (1,0) + (0,5)*0.1 = (1, 0.5); x = (1,1) + v*0.1;
    // heading = (1, 0.5)/sqrt(1.25).
    crowd_vec2 p = v2(1, 1), v = v2(1, 0), h = v2(1, 0);
    crowd_steer_integrate(&p, &v, &h, v2(0, 10), 2.0f, 5.0f, 0.1f);
    expect_vec(v, 1.0f, 0.5f, "integrate velocity");
    expect_vec(p, 1.1f, 1.05f, "integrate position");
    expect_vec(h, 0.894427191f, 0.447213595f, "integrate heading");

    // v = (30,40)*0.1 = (3,4), limited to max speed 2.5: (1.5, 2); x += (0.15, 0.2).
    p = v2(0, 0), v = v2(0, 0), h = v2(0, 1);
    crowd_steer_integrate(&p, &v, &h, v2(30, 40), 2.5f, 50.0f, 0.1f);
    expect_vec(v, 1.5f, 2.0f, "integrate speed limit");
    expect_vec(p, 0.15f, 0.2f, "integrate speed limit position");
    expect_vec(h, 0.6f, 0.8f, "integrate speed limit heading");

    // force (0,-100) limited to 10: v = (0, -1); heading (0, -1).
    p = v2(0, 0), v = v2(0, 0), h = v2(1, 0);
    crowd_steer_integrate(&p, &v, &h, v2(0, -100), 5.0f, 10.0f, 0.1f);
    expect_vec(v, 0.0f, -1.0f, "integrate force limit");
    expect_vec(p, 0.0f, -0.1f, "integrate force limit position");
    expect_vec(h, 0.0f, -1.0f, "integrate force limit heading");

    // |v|^2 = 0.0025 <= 0.01: the heading is kept exactly.
    p = v2(2, 3), v = v2(0.05f, 0), h = v2(0.6f, -0.8f);
    crowd_steer_integrate(&p, &v, &h, v2(0, 0), 1.0f, 1.0f, 0.5f);
    expect_vec(p, 2.025f, 3.0f, "integrate slow position");
    expect_bits(h, v2(0.6f, -0.8f), "integrate slow keeps the heading");

    // Braking to a stop: v = (1,0) + (-10,0)*0.1 = (0,0); the heading is kept.
    p = v2(0, 0), v = v2(1, 0), h = v2(0.6f, -0.8f);
    crowd_steer_integrate(&p, &v, &h, v2(-10, 0), 2.0f, 10.0f, 0.1f);
    expect_bits(v, v2(0, 0), "integrate stop velocity");
    expect_bits(p, v2(0, 0), "integrate stop position");
    expect_bits(h, v2(0.6f, -0.8f), "integrate stop keeps the heading");

    // Either side of the 0.01 threshold on |v|^2.
    p = v2(0, 0), v = v2(0, -0.0999f), h = v2(1, 0);
    crowd_steer_integrate(&p, &v, &h, v2(0, 0), 1.0f, 1.0f, 0.1f);
    expect_bits(h, v2(1, 0), "integrate |v| = 0.0999 keeps the heading");
    p = v2(0, 0), v = v2(0, -0.1001f), h = v2(1, 0);
    crowd_steer_integrate(&p, &v, &h, v2(0, 0), 1.0f, 1.0f, 0.1f);
    expect_vec(h, 0.0f, -1.0f, "integrate |v| = 0.1001 turns the heading");
}

// ---- random cases against a double-precision re-implementation ----------------------------------

typedef struct dvec {
    double x, y;
} dvec;

static dvec dv(crowd_vec2 v) {
    return (dvec){v.x, v.y};
}
static double dlen(dvec v) {
    return sqrt(v.x * v.x + v.y * v.y);
}

// normalize(dir) * speed - vel, normalize(0) = 0.
static dvec ref_toward(dvec dir, double speed, dvec vel) {
    const double len = dlen(dir);
    if (len == 0.0) return (dvec){-vel.x, -vel.y};
    return (dvec){dir.x / len * speed - vel.x, dir.y / len * speed - vel.y};
}

static dvec ref_seek(dvec pos, dvec vel, double ms, dvec target) {
    return ref_toward((dvec){target.x - pos.x, target.y - pos.y}, ms, vel);
}

static dvec ref_arrive(dvec pos, dvec vel, double ms, dvec target, double slow) {
    const dvec to = {target.x - pos.x, target.y - pos.y};
    return ref_toward(to, ms * fmin(1.0, dlen(to) / slow), vel);
}

static dvec ref_flee(dvec pos, dvec vel, double ms, dvec threat) {
    return ref_toward((dvec){pos.x - threat.x, pos.y - threat.y}, ms, vel);
}

static double ref_time(dvec pos, double ms, dvec other) {
    return dlen((dvec){other.x - pos.x, other.y - pos.y}) / ms;
}

static dvec ref_predict(dvec pos, double ms, dvec other, dvec other_vel) {
    const double t = ref_time(pos, ms, other);
    return (dvec){other.x + other_vel.x * t, other.y + other_vel.y * t};
}

// Relative tolerance against the size of the terms that were added, plus a tiny absolute floor.
static void expect_near(crowd_vec2 got, dvec want, double scale, const char* what, int i) {
    const double tol = 1e-5 * scale + 1e-6;
    cr_assert(fabs(got.x - want.x) <= tol && fabs(got.y - want.y) <= tol,
              "%s case %d: got (%.9g, %.9g), reference (%.9g, %.9g), tolerance %.3g", what, i,
              (double)got.x, (double)got.y, want.x, want.y, tol);
}

static float rnd(scene_rng* r, float lo, float hi) {
    return scene_rng_float(r, lo, hi);
}
static crowd_vec2 rnd_vec(scene_rng* r, float lo, float hi) {
    return v2(rnd(r, lo, hi), rnd(r, lo, hi));
}

Test(steer_random, seek_arrive_flee) {
    scene_rng r = {101};
    int inside = 0, outside = 0;
    for (int i = 0; i < random_cases(); ++i) {
        const crowd_vec2 pos = rnd_vec(&r, -100, 100), vel = rnd_vec(&r, -3, 3);
        const crowd_vec2 target = (i % 50 == 0) ? pos : rnd_vec(&r, -100, 100);
        const float ms = rnd(&r, 0.05f, 5.0f), slow = rnd(&r, 0.1f, 150.0f);
        const double scale = ms + dlen(dv(vel));
        expect_near(crowd_steer_seek(pos, vel, ms, target),
                    ref_seek(dv(pos), dv(vel), ms, dv(target)), scale, "seek", i);
        expect_near(crowd_steer_flee(pos, vel, ms, target),
                    ref_flee(dv(pos), dv(vel), ms, dv(target)), scale, "flee", i);
        expect_near(crowd_steer_arrive(pos, vel, ms, target, slow),
                    ref_arrive(dv(pos), dv(vel), ms, dv(target), slow), scale, "arrive", i);
        const double dist = dlen((dvec){(double)target.x - pos.x, (double)target.y - pos.y});
        if (dist < slow)
            inside++;
        else
            outside++;
    }
    cr_assert(inside > random_cases() / 10 && outside > random_cases() / 10,
              "arrive cases inside %d, outside %d the slow radius", inside, outside);
}

Test(steer_random, predict_pursuit_evade) {
    scene_rng r = {202};
    int checked = 0;
    for (int i = 0; i < random_cases(); ++i) {
        const crowd_vec2 pos = rnd_vec(&r, -10, 10), vel = rnd_vec(&r, -3, 3);
        const crowd_vec2 other = v2(pos.x + rnd(&r, -20, 20), pos.y + rnd(&r, -20, 20));
        const crowd_vec2 other_vel = rnd_vec(&r, -3, 3);
        const float ms = rnd(&r, 0.2f, 5.0f);
        const double t = ref_time(dv(pos), ms, dv(other));
        const float got_t = crowd_steer_predict_time(pos, ms, other);
        cr_assert(fabs(got_t - t) <= 1e-6 * t + 1e-7, "T case %d: %.9g vs %.9g", i, (double)got_t,
                  t);
        // Skip predictions that land (nearly) on the agent: there the direction is ill-conditioned
        // in float and the comparison would measure rounding, not the formula.
        const dvec p = ref_predict(dv(pos), ms, dv(other), dv(other_vel));
        const dvec off = {p.x - pos.x, p.y - pos.y};
        const double mag = dlen(dv(pos)) + dlen(dv(other)) + dlen(dv(other_vel)) * t;
        if (dlen(off) < 0.05 * mag) continue;
        checked++;
        const double scale = ms + dlen(dv(vel));
        expect_near(crowd_steer_pursuit(pos, vel, ms, other, other_vel),
                    ref_toward(off, ms, dv(vel)), scale, "pursuit", i);
        expect_near(crowd_steer_evade(pos, vel, ms, other, other_vel),
                    ref_toward((dvec){-off.x, -off.y}, ms, dv(vel)), scale, "evade", i);
    }
    cr_assert_gt(checked, random_cases() / 2);
}

Test(steer_random, separation) {
    scene_rng r = {303};
    crowd_vec2 nb[48];
    long in_range = 0, out_of_range = 0;
    for (int i = 0; i < random_cases() / 4; ++i) {
        const crowd_vec2 pos = rnd_vec(&r, -10, 10), vel = rnd_vec(&r, -3, 3);
        const float ms = rnd(&r, 0.1f, 5.0f), rad = rnd(&r, 0.2f, 5.0f);
        const float weight = (i % 10 == 0) ? 0.0f : rnd(&r, 0.0f, 3.0f);
        const int count = (int)(scene_rng_next(&r) % 49);
        dvec want = {0, 0};
        double scale = 0.0;
        for (int k = 0; k < count; ++k) {
            for (;;) {
                const int kind = (int)(scene_rng_next(&r) % 8);
                if (kind == 0)
                    nb[k] = pos;    // itself or a duplicate: d = 0
                else if (kind == 1) // just inside or outside 0.01
                    nb[k] = v2(pos.x + rnd(&r, -0.012f, 0.012f), pos.y + rnd(&r, -0.012f, 0.012f));
                else
                    nb[k] =
                        v2(pos.x + rnd(&r, -1.3f, 1.3f) * rad, pos.y + rnd(&r, -1.3f, 1.3f) * rad);
                const double ox = (double)pos.x - nb[k].x, oy = (double)pos.y - nb[k].y;
                const double d = sqrt(ox * ox + oy * oy);
                // Keep clear of the range ends, where float and double may disagree on d.
                if (fabs(d - 0.01) < 1e-5 || fabs(d - rad) < 1e-5 * rad) continue;
                if (d > 0.01 && d < rad) {
                    const double push = ms * (1.0 - d / rad);
                    want.x += (ox / d * push - vel.x) * weight;
                    want.y += (oy / d * push - vel.y) * weight;
                    scale += (push + dlen(dv(vel))) * weight;
                    in_range++;
                } else {
                    out_of_range++;
                }
                break;
            }
        }
        expect_near(crowd_steer_separation(pos, vel, ms, nb, count, rad, weight), want, scale,
                    "separation", i);
    }
    cr_assert(in_range > 1000 && out_of_range > 1000, "in range %ld, out of range %ld", in_range,
              out_of_range);
}

Test(steer_random, limit) {
    scene_rng r = {404};
    for (int i = 0; i < random_cases(); ++i) {
        const crowd_vec2 v = rnd_vec(&r, -10, 10);
        const float max_len = rnd(&r, 0.01f, 12.0f);
        const double len = dlen(dv(v));
        const dvec want = len > max_len ? (dvec){v.x * max_len / len, v.y * max_len / len} : dv(v);
        const crowd_vec2 got = crowd_steer_limit(v, max_len);
        expect_near(got, want, len, "limit", i);
        cr_assert_leq(dlen(dv(got)), max_len * (1.0 + 1e-6), "limit case %d too long", i);
    }
}

Test(steer_random, integrate) {
    scene_rng r = {505};
    int kept = 0, turned = 0;
    for (int i = 0; i < random_cases(); ++i) {
        const crowd_vec2 pos = rnd_vec(&r, -100, 100);
        // Some agents start almost still so the kept-heading branch is exercised.
        const crowd_vec2 vel = (i % 4 == 0) ? rnd_vec(&r, -0.1f, 0.1f) : rnd_vec(&r, -3, 3);
        const float ang = rnd(&r, 0.0f, 6.2831853f);
        const crowd_vec2 heading = v2(cosf(ang), sinf(ang));
        const crowd_vec2 force = (i % 4 == 0) ? rnd_vec(&r, -0.5f, 0.5f) : rnd_vec(&r, -20, 20);
        const float ms = rnd(&r, 0.1f, 3.0f), mf = rnd(&r, 0.1f, 10.0f), dt = rnd(&r, 0.01f, 0.2f);

        // Reference, in double.
        dvec f = dv(force);
        const double fl = dlen(f);
        if (fl > mf) f = (dvec){f.x * mf / fl, f.y * mf / fl};
        dvec v = {vel.x + f.x * dt, vel.y + f.y * dt};
        const double vl = dlen(v);
        if (vl > ms) v = (dvec){v.x * ms / vl, v.y * ms / vl};
        const dvec p = {pos.x + v.x * dt, pos.y + v.y * dt};
        const double sp2 = v.x * v.x + v.y * v.y;
        if (fabs(sp2 - 0.01) < 1e-4) continue; // the heading switch is discontinuous there

        crowd_vec2 gp = pos, gv = vel, gh = heading;
        crowd_steer_integrate(&gp, &gv, &gh, force, ms, mf, dt);
        const double vscale = dlen(dv(vel)) + fl * dt;
        expect_near(gv, v, vscale, "integrate velocity", i);
        expect_near(gp, p, dlen(dv(pos)) * 0.2 + vscale * dt, "integrate position", i);
        if (sp2 > 0.01) {
            expect_near(gh, (dvec){v.x / sqrt(sp2), v.y / sqrt(sp2)}, 1.0, "integrate heading", i);
            turned++;
        } else {
            expect_bits(gh, heading, "integrate kept heading");
            kept++;
        }
    }
    cr_assert(kept > random_cases() / 50 && turned > random_cases() / 2, "kept %d, turned %d", kept,
              turned);
}

// ---- the one copy of the steering math (steer/steer_math.h) -------------------------------------

static bool same_bits(float a, float b) {
    return memcmp(&a, &b, sizeof a) == 0;
}

// The separation term and force against the spec's per-neighbor form, in double: the sum over the
// neighbors that count of (offset / d * max_speed * (1 - d / r) - vel) * weight, and the push
// form without the velocity term.
Test(steer_math, separation_term_and_force) {
    scene_rng r = {606};
    long counted = 0, skipped = 0;
    for (int i = 0; i < random_cases() / 4; ++i) {
        const crowd_vec2 pos = rnd_vec(&r, -50, 50), vel = rnd_vec(&r, -3, 3);
        const float ms = rnd(&r, 0.1f, 5.0f), rad = rnd(&r, 0.2f, 5.0f), inv_r = 1.0f / rad;
        const float weight = rnd(&r, 0.0f, 3.0f);
        const int count = (int)(scene_rng_next(&r) % 40);
        float sx = 0.0f, sy = 0.0f, n = 0.0f;
        dvec drag = {0, 0}, push = {0, 0};
        double scale = 0.0;
        for (int k = 0; k < count; ++k) {
            const crowd_vec2 o = (k % 7 == 0) ? pos
                                              : v2(pos.x + rnd(&r, -1.3f, 1.3f) * rad,
                                                   pos.y + rnd(&r, -1.3f, 1.3f) * rad);
            const float dx = pos.x - o.x, dy = pos.y - o.y;
            const bool valid = k % 11 != 5; // a masked lane counts for nothing
            const cs_steer_sep t = cs_steer_sep_term(dx, dy, valid, rad, inv_r);
            // The range test in float, as the spec states it.
            const float d = sqrtf(dx * dx + dy * dy);
            const bool in = valid && d > 0.01f && d < rad;
            cr_assert_eq(t.in, in, "case %d neighbor %d: counts %d, spec %d", i, k, t.in, in);
            cr_assert(same_bits(t.d, d), "case %d neighbor %d: d", i, k);
            if (!in) {
                cr_assert(t.ux == 0.0f && t.uy == 0.0f, "case %d: a neighbor out of range adds", i);
                skipped++;
                continue;
            }
            counted++;
            sx += t.ux, sy += t.uy, n += 1.0f;
            const double ddx = dx, ddy = dy, dd = sqrt(ddx * ddx + ddy * ddy);
            const double p = ms * (1.0 - dd / rad);
            drag.x += (ddx / dd * p - vel.x) * weight;
            drag.y += (ddy / dd * p - vel.y) * weight;
            push.x += ddx / dd * p * weight;
            push.y += ddy / dd * p * weight;
            scale += (p + dlen(dv(vel))) * weight;
        }
        const crowd_vec2 fd = cs_steer_sep_force(ms, true, sx, sy, n, vel);
        const crowd_vec2 fp = cs_steer_sep_force(ms, false, sx, sy, n, vel);
        expect_near(v2(fd.x * weight, fd.y * weight), drag, scale, "separation force", i);
        expect_near(v2(fp.x * weight, fp.y * weight), push, scale, "separation push", i);
    }
    cr_assert(counted > 1000 && skipped > 1000, "counted %ld, skipped %ld", counted, skipped);
}

// The lane-wise separation over a range of candidates: each lane's sums are the scalar terms of
// its candidates (k, k + CS_LANES, ...) added in that order, to the bit, whatever the range's start
// and length; reduced, they are crowd_steer_separation's sum (which adds in array order) within
// rounding, and for a single neighbor exactly crowd_steer_separation.
Test(steer_math, separation_lanes) {
    scene_rng r = {707};
    enum { MAX = 70 };
    float xs[MAX + CS_PAD], ys[MAX + CS_PAD];
    crowd_vec2 nb[MAX];
    for (int i = 0; i < random_cases() / 20; ++i) {
        const crowd_vec2 pos = rnd_vec(&r, -20, 20), vel = rnd_vec(&r, -3, 3);
        const float ms = rnd(&r, 0.1f, 5.0f), rad = rnd(&r, 0.3f, 4.0f), inv_r = 1.0f / rad;
        const uint32_t b = (uint32_t)(scene_rng_next(&r) % 8);
        const uint32_t e = b + (uint32_t)(scene_rng_next(&r) % (MAX - 8));
        for (uint32_t j = 0; j < MAX + CS_PAD; ++j) {
            // Beyond e (the padding) lie agents that would count: the lanes must mask them.
            const crowd_vec2 o =
                v2(pos.x + rnd(&r, -1.2f, 1.2f) * rad, pos.y + rnd(&r, -1.2f, 1.2f) * rad);
            xs[j] = o.x, ys[j] = o.y;
            if (j < MAX) nb[j] = o;
        }
        float ax[CS_LANES] = {0}, ay[CS_LANES] = {0}, an[CS_LANES] = {0};
        cs_steer_sep_lanes(xs, ys, b, e, pos.x, pos.y, rad, inv_r, ax, ay, an);
        float wx[CS_LANES] = {0}, wy[CS_LANES] = {0}, wn[CS_LANES] = {0};
        for (uint32_t j = b; j < e; ++j) {
            const int l = (int)((j - b) % CS_LANES);
            const cs_steer_sep t =
                cs_steer_sep_term(pos.x - xs[j], pos.y - ys[j], true, rad, inv_r);
            wx[l] += t.ux, wy[l] += t.uy, wn[l] += t.in ? 1.0f : 0.0f;
        }
        for (int l = 0; l < CS_LANES; ++l)
            cr_assert(same_bits(ax[l], wx[l]) && same_bits(ay[l], wy[l]) && an[l] == wn[l],
                      "case %d lane %d: lanes (%.9g, %.9g, %g), scalar (%.9g, %.9g, %g)", i, l,
                      (double)ax[l], (double)ay[l], (double)an[l], (double)wx[l], (double)wy[l],
                      (double)wn[l]);
        // The fixed-order reduction against the same order written out.
        float want = 0.0f;
        {
            float h[CS_LANES];
            memcpy(h, ax, sizeof h);
            for (int half = CS_LANES / 2; half >= 4; half /= 2)
                for (int l = 0; l < half; ++l) h[l] += h[l + half];
            want = (h[0] + h[2]) + (h[1] + h[3]);
        }
        cr_assert(same_bits(cs_lanes_sum(ax), want), "case %d: reduction order", i);
        float m = ax[0];
        for (int l = 1; l < CS_LANES; ++l) m = fminf(m, ax[l]);
        cr_assert(same_bits(cs_lanes_min(ax), m), "case %d: lane minimum", i);

        const crowd_vec2 f =
            cs_steer_sep_force(ms, true, cs_lanes_sum(ax), cs_lanes_sum(ay), cs_lanes_sum(an), vel);
        const int count = (int)(e - b);
        const crowd_vec2 ref = crowd_steer_separation(pos, vel, ms, nb + b, count, rad, 1.0f);
        double scale = 0.0;
        for (int l = 0; l < CS_LANES; ++l) scale += an[l];
        expect_near(f, (dvec){ref.x, ref.y}, scale * (ms + dlen(dv(vel))), "lanes vs scalar", i);
        if (count >= 1) {
            float one[CS_LANES] = {0}, onex[CS_LANES] = {0}, onen[CS_LANES] = {0};
            cs_steer_sep_lanes(xs, ys, b, b + 1, pos.x, pos.y, rad, inv_r, one, onex, onen);
            const crowd_vec2 g = cs_steer_sep_force(ms, true, cs_lanes_sum(one), cs_lanes_sum(onex),
                                                    cs_lanes_sum(onen), vel);
            expect_bits(g, crowd_steer_separation(pos, vel, ms, nb + b, 1, rad, 1.0f),
                        "one neighbor, lanes vs scalar");
        }
    }
}

// The cone's heading: normalize(dir) when |dir| >= min_len, else none.
Test(steer_math, cone_look) {
    scene_rng r = {808};
    int on = 0, off = 0;
    for (int i = 0; i < random_cases(); ++i) {
        const float k = (i % 3 == 0) ? 1e-3f : 3.0f;
        const crowd_vec2 d = rnd_vec(&r, -k, k);
        const float min_len = (i % 2) ? 1e-3f : rnd(&r, 0.0f, 2.0f);
        const cs_steer_look l = cs_steer_cone_look(d.x, d.y, min_len);
        const float len2 = d.x * d.x + d.y * d.y, len = sqrtf(len2);
        cr_assert(same_bits(l.len2, len2), "case %d: len2", i);
        cr_assert_eq(l.on, len >= min_len, "case %d: on", i);
        if (l.on) {
            expect_bits(v2(l.hx, l.hy), v2(d.x / len, d.y / len), "cone heading");
            on++;
        } else {
            expect_bits(v2(l.hx, l.hy), v2(0, 0), "no cone, no heading");
            off++;
        }
    }
    cr_assert(on > random_cases() / 10 && off > random_cases() / 10, "on %d, off %d", on, off);
}

// cs_steer_width2 is the largest t with sqrtf(t) <= width, so lat2 <= t decides as the spec's
// sqrtf(lat2) <= width for every lat2.
Test(steer_math, width2) {
    scene_rng r = {909};
    for (int i = 0; i < random_cases() / 10; ++i) {
        const float w = (i % 5 == 0) ? rnd(&r, 0.0f, 1e-3f) : rnd(&r, 0.0f, 100.0f);
        const float t = cs_steer_width2(w);
        cr_assert(sqrtf(t) <= w && sqrtf(nextafterf(t, INFINITY)) > w, "width %.9g: t %.9g",
                  (double)w, (double)t);
    }
    const float edge[] = {0.0f, -0.0f, 0.6f, 1.0f, 2.5f, 1e30f, INFINITY, -1.0f, NAN};
    for (size_t i = 0; i < sizeof edge / sizeof *edge; ++i) {
        const float w = edge[i], t = cs_steer_width2(w);
        const float lat[] = {0.0f, 1e-30f, 0.36f, 1.0f, 6.25f, 1e30f, INFINITY};
        for (size_t k = 0; k < sizeof lat / sizeof *lat; ++k)
            cr_assert_eq(lat[k] <= t, !(sqrtf(lat[k]) > w), "width %g, lat2 %g", (double)w,
                         (double)lat[k]);
    }
}

// The spec's cone (crowd/queue.h) and the file's sector (core/behavior.h) written out: along =
// dot(offset, h); in the cone when 0 <= along <= len and |offset - h * along| <= width; in the
// sector when 0 < along <= len, |offset - h * along| <= width or <= along / 2, and the candidate
// is strictly closer to the target.
Test(steer_math, cone_and_sector) {
    scene_rng r = {1010};
    int in_cone = 0, in_sector = 0;
    for (int i = 0; i < random_cases(); ++i) {
        const float ang = rnd(&r, 0.0f, 6.2831853f);
        const float hx = cosf(ang), hy = sinf(ang);
        const crowd_vec2 o = (i % 9 == 0) ? v2(hx * 1.5f, hy * 1.5f) : rnd_vec(&r, -4, 4);
        const float len = rnd(&r, 0.1f, 4.0f), width = rnd(&r, 0.0f, 1.5f);
        const cs_steer_cone_at a = cs_steer_cone_offset(o.x, o.y, hx, hy);
        const float along = o.x * hx + o.y * hy;
        const float qx = o.x - hx * along, qy = o.y - hy * along;
        cr_assert(same_bits(a.along, along) && same_bits(a.lat2, qx * qx + qy * qy),
                  "case %d: along and lat2", i);
        const bool cone = along >= 0.0f && along <= len && sqrtf(qx * qx + qy * qy) <= width;
        cr_assert_eq(cs_steer_in_cone(a, len, cs_steer_width2(width)), cone, "case %d: cone", i);
        in_cone += cone;
        const float e2 = rnd(&r, 0.0f, 30.0f), len2 = rnd(&r, 0.0f, 30.0f);
        const float lat = sqrtf(qx * qx + qy * qy);
        const bool sector = along > 0.0f && along <= len &&
                            (qx * qx + qy * qy <= width * width || 2.0f * lat <= along) &&
                            e2 < len2;
        const bool got = cs_steer_in_sector(a, len, width * width, e2, len2);
        // 4 lat2 <= along^2 and 2 lat <= along agree but where rounding separates them.
        if (got != sector) {
            const double dl = sqrt((double)qx * qx + (double)qy * qy);
            cr_assert(fabs(2.0 * dl - along) <= 1e-5 * along, "case %d: sector", i);
        }
        in_sector += got;
        const cs_steer_shape sh = cs_steer_sector_shape(len, width);
        cr_assert(sh.len == len && sh.width == fmaxf(width, 0.5f * len) &&
                      same_bits(sh.width2, width * width),
                  "case %d: sector shape", i);
    }
    cr_assert(in_cone > random_cases() / 50 && in_sector > random_cases() / 50,
              "in the cone %d, in the sector %d", in_cone, in_sector);
}

// The file's choice: the lexicographic minimum of (along, x, y), whatever the order seen.
Test(steer_math, file_before) {
    scene_rng r = {1111};
    const float vals[] = {-1.0f, 0.0f, 0.5f, 2.0f, INFINITY};
    for (int i = 0; i < random_cases() / 10; ++i) {
        float p[6];
        for (int k = 0; k < 6; ++k) p[k] = vals[scene_rng_next(&r) % 5];
        const bool want = p[0] != p[3] ? p[0] < p[3] : (p[1] != p[4] ? p[1] < p[4] : p[2] < p[5]);
        cr_assert_eq(cs_steer_file_before(p[0], p[1], p[2], p[3], p[4], p[5]), want, "case %d", i);
    }
}

// The spec's queueBrake: 1 with nobody ahead, else clamp(along / len, 0, 1).
Test(steer_math, brake) {
    cr_assert_eq(cs_steer_brake(INFINITY, 2.5f), 1.0f);
    cr_assert_eq(cs_steer_brake(0.0f, 2.5f), 0.0f);
    cr_assert_eq(cs_steer_brake(1.25f, 2.5f), 0.5f);
    cr_assert_eq(cs_steer_brake(2.5f, 2.5f), 1.0f);
    cr_assert_eq(cs_steer_brake(3.0f, 2.5f), 1.0f);
    scene_rng r = {1212};
    for (int i = 0; i < random_cases() / 10; ++i) {
        const float along = rnd(&r, 0.0f, 5.0f), len = rnd(&r, 0.1f, 4.0f);
        const float b = along / len;
        cr_assert(same_bits(cs_steer_brake(along, len), b > 1.0f ? 1.0f : b), "case %d", i);
    }
}

// The headway speed (crowd_steer_headway_speed, the collision-free speed model's): hand cases,
// then min(max_speed, max(0, (s - gap) / T)) written out, through the public function and the
// inline one the goal pass calls.
Test(steer_math, headway_speed) {
    cr_assert_eq(crowd_steer_headway_speed(INFINITY, 1.34f, 0.2f, 0.6f), 1.34f);
    cr_assert_eq(crowd_steer_headway_speed(0.2f, 1.34f, 0.2f, 0.6f), 0.0f);
    cr_assert_eq(crowd_steer_headway_speed(0.1f, 1.34f, 0.2f, 0.6f), 0.0f);
    cr_assert_eq(crowd_steer_headway_speed(0.0f, 1.34f, 0.2f, 0.5f), 0.0f);
    cr_assert_eq(crowd_steer_headway_speed(0.7f, 1.34f, 0.2f, 0.5f), 1.0f);
    cr_assert_eq(crowd_steer_headway_speed(5.0f, 1.34f, 0.2f, 0.5f), 1.34f);
    scene_rng r = {1414};
    for (int i = 0; i < random_cases() / 10; ++i) {
        const float s = rnd(&r, -1.0f, 4.0f), v = rnd(&r, 0.1f, 3.0f);
        const float gap = rnd(&r, 0.0f, 1.0f), t = rnd(&r, 0.1f, 2.0f);
        const float q = (s - gap) / t;
        const float want = q < 0.0f ? 0.0f : (q > v ? v : q);
        cr_assert(same_bits(crowd_steer_headway_speed(s, v, gap, t), want) &&
                      same_bits(cs_steer_headway_speed(s, v, gap, t), want),
                  "case %d", i);
    }
}

// The headway's test: the cone's, the candidate's aim within the angle (dot product above
// min_cos) and the candidate ahead along the sum of the two aims; of two agents side by side with
// converging aims exactly one has the other ahead. Its shape: the box's width is the bound's root.
Test(steer_math, headway_test_and_shape) {
    scene_rng r = {1515};
    int in = 0;
    for (int i = 0; i < random_cases(); ++i) {
        const float ang = rnd(&r, 0.0f, 6.2831853f), bng = ang + rnd(&r, -2.0f, 2.0f);
        const float hx = cosf(ang), hy = sinf(ang), ox = cosf(bng), oy = sinf(bng);
        const crowd_vec2 o = rnd_vec(&r, -3, 3);
        const float len = rnd(&r, 0.5f, 3.0f), width = rnd(&r, 0.2f, 1.0f);
        const float min_cos = rnd(&r, -0.5f, 0.9f);
        const cs_steer_cone_at a = cs_steer_cone_offset(o.x, o.y, hx, hy);
        const bool want = cs_steer_in_cone(a, len, cs_steer_width2(width)) &&
                          hx * ox + hy * oy > min_cos && a.along + (ox * o.x + oy * o.y) > 0.0f;
        const bool got =
            cs_steer_in_headway(a, len, cs_steer_width2(width), hx, hy, ox, oy, min_cos, o.x, o.y);
        cr_assert_eq(got, want, "case %d", i);
        in += got;
        const cs_steer_shape sh = cs_steer_headway_shape(len, cs_steer_width2(width));
        cr_assert(sh.len == len && sh.width <= width &&
                      sh.width * sh.width <= sh.width2 * 1.000001f,
                  "case %d: shape", i);
    }
    cr_assert_gt(in, random_cases() / 100);
    // Side by side 0.4 m apart, both aiming 20 degrees toward the other: one gives way.
    const float c = cosf(0.349f), sn = sinf(0.349f);
    const cs_steer_cone_at ab = cs_steer_cone_offset(0.0f, 0.4f, c, sn);
    const cs_steer_cone_at ba = cs_steer_cone_offset(0.0f, -0.4f, c, -sn);
    const float w2 = cs_steer_width2(0.5f);
    const bool a_sees_b = cs_steer_in_headway(ab, 2.0f, w2, c, sn, c, -sn, 0.5f, 0.0f, 0.4f);
    const bool b_sees_a = cs_steer_in_headway(ba, 2.0f, w2, c, -sn, c, sn, 0.5f, 0.0f, -0.4f);
    cr_assert_not(a_sees_b && b_sees_a, "both give way");
}

// The fluctuation: draws in [-1, 1) that depend on the position's bits alone and change with
// them; the tangent amplitude * draw * (1 - |v| / desired) below the desired speed, else 0; the
// turn (x - t y, y + t x).
Test(steer_math, fluctuation) {
    scene_rng r = {1616};
    double sum = 0.0;
    int changed = 0;
    const int n = random_cases() / 10;
    for (int i = 0; i < n; ++i) {
        const crowd_vec2 p = rnd_vec(&r, -100, 100);
        const float d = cs_steer_fluct_draw(p);
        cr_assert(d >= -1.0f && d < 1.0f && same_bits(d, cs_steer_fluct_draw(p)), "case %d", i);
        changed += !same_bits(d, cs_steer_fluct_draw(v2(nextafterf(p.x, INFINITY), p.y)));
        sum += d;
        const crowd_vec2 v = rnd_vec(&r, -2, 2);
        const float want = rnd(&r, 0.0f, 2.0f), amp = rnd(&r, 0.0f, 0.5f);
        const float speed = sqrtf(v.x * v.x + v.y * v.y);
        const float t = speed < want ? amp * (1.0f - speed / want) * d : 0.0f;
        cr_assert(same_bits(cs_steer_fluct_tangent(v, want, d, amp), t), "case %d: tangent", i);
        const crowd_vec2 to = rnd_vec(&r, -5, 5);
        expect_bits(cs_steer_turn(to, t), v2(to.x - t * to.y, to.y + t * to.x), "turn");
    }
    cr_assert_gt(changed, n * 99 / 100, "draws follow the position");
    cr_assert_lt(fabs(sum / n), 0.05, "draws centred on 0: mean %g", sum / n);
    cr_assert_eq(cs_steer_fluct_tangent(v2(0, 0), 0.0f, 0.9f, 0.3f), 0.0f, "wants nothing");
}

// The query box holds the separation disc and, with a cone, the rectangle swept along the heading
// (length len, half-width `width`): checked on points of their boundaries, and against the bounding
// box of both written out in double, which it may exceed by its margin and rounding only. reach
// is the farthest such point's distance, plus the margin.
Test(steer_math, query_box) {
    scene_rng r = {1313};
    for (int i = 0; i < random_cases() / 10; ++i) {
        const crowd_vec2 p = (i % 4 == 0) ? rnd_vec(&r, -1e5f, 1e5f) : rnd_vec(&r, -50, 50);
        const float rad = (i % 6 == 0) ? 0.0f : rnd(&r, 0.2f, 5.0f);
        const bool cone = i % 3 != 0;
        const float ang = rnd(&r, 0.0f, 6.2831853f);
        const float hx = cone ? cosf(ang) : 0.0f, hy = cone ? sinf(ang) : 0.0f;
        const float len = rnd(&r, 0.1f, 8.0f), width = rnd(&r, 0.0f, 4.0f);
        const cs_steer_box b = cs_steer_query_box(p.x, p.y, rad, cone, hx, hy, len, width);
        double x0 = (double)p.x - rad, x1 = (double)p.x + rad;
        double y0 = (double)p.y - rad, y1 = (double)p.y + rad, reach = rad;
        for (int k = 0; k < 4 && cone; ++k) {
            const double a = (k & 1) ? len : 0.0, s = (k & 2) ? width : -width;
            const double x = p.x + hx * a - hy * s, y = p.y + hy * a + hx * s;
            x0 = fmin(x0, x), x1 = fmax(x1, x), y0 = fmin(y0, y), y1 = fmax(y1, y);
            reach = fmax(reach, sqrt((x - p.x) * (x - p.x) + (y - p.y) * (y - p.y)));
        }
        const double m = cs_steer_margin(p.x, p.y, cone ? fmaxf(rad, len + width) : rad);
        const double slack = (fabs(p.x) + fabs(p.y) + len + width + rad) * 1e-6;
        cr_assert(b.x0 <= x0 && b.y0 <= y0 && b.x1 >= x1 && b.y1 >= y1,
                  "case %d: box (%g %g %g %g) misses (%g %g %g %g)", i, (double)b.x0, (double)b.y0,
                  (double)b.x1, (double)b.y1, x0, y0, x1, y1);
        // The cone's box is that of its two end segments, each grown by width: up to width more
        // than the rectangle's on each side.
        const double grow = cone ? width : 0.0;
        cr_assert(b.x0 >= x0 - m - grow - slack && b.x1 <= x1 + m + grow + slack &&
                      b.y0 >= y0 - m - grow - slack && b.y1 <= y1 + m + grow + slack,
                  "case %d: box too large", i);
        cr_assert(b.reach >= reach + m - slack, "case %d: reach %g below %g", i, (double)b.reach,
                  reach + m);
        // Every point of the disc's boundary is inside.
        for (int k = 0; k < 8; ++k) {
            const double t = k * 0.78539816;
            const double x = p.x + rad * cos(t), y = p.y + rad * sin(t);
            cr_assert(x >= b.x0 - slack && x <= b.x1 + slack && y >= b.y0 - slack &&
                          y <= b.y1 + slack,
                      "case %d: disc point outside", i);
        }
    }
}
