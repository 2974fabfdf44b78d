// The steering primitives of crowd/steer.h against their formulas: hand-computed cases with exact
// expected numbers, and random cases against an independent double-precision re-implementation.
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/crowd.h"
#include "scenes.h"

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
