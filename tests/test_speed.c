// Desired walking speeds (crowd/speed.h): the distributions' shapes against their definitions,
// keyed draws that depend on (seed, key) alone, and the checks of a distribution.
#include <criterion/criterion.h>
#include <math.h>

#include "crowd/crowd.h"

enum { N = 40000 };

static float draw(const crowd_speed_dist* d, uint64_t seed, uint64_t key) {
    float v = -1.0f;
    cr_assert_eq(crowd_speed_draw(d, seed, key, &v), CROWD_OK);
    return v;
}

// Weidmann's default: mean 1.34 and standard deviation 0.26 within sampling error, every speed
// in [0.46, 2.22], and the normal shape: the Kolmogorov-Smirnov distance of N draws to the normal
// CDF (computed here with erf) within what N samples of a normal distribution give, plus the
// Irwin-Hall approximation's own error (under 0.005).
Test(speed, weidmann_draws_are_normal_with_its_mean_and_spread) {
    const crowd_speed_dist d = crowd_speed_dist_default();
    static float v[N];
    double sum = 0, sum2 = 0;
    for (int k = 0; k < N; ++k) {
        v[k] = draw(&d, 1, (uint64_t)k);
        cr_assert(v[k] >= 0.46f && v[k] <= 2.22f, "draw %d: %g", k, (double)v[k]);
        sum += v[k], sum2 += (double)v[k] * v[k];
    }
    const double mean = sum / N, sd = sqrt(sum2 / N - mean * mean);
    cr_assert(fabs(mean - 1.34) < 0.005, "mean %g", mean);
    cr_assert(fabs(sd - 0.26) < 0.005, "sd %g", sd);
    // The empirical CDF at 41 points across the range against the normal CDF.
    double worst = 0;
    for (int i = 0; i <= 40; ++i) {
        const double x = 0.6 + i * 0.03;
        int below = 0;
        for (int k = 0; k < N; ++k) below += v[k] <= x;
        const double want = 0.5 * (1.0 + erf((x - 1.34) / (0.26 * sqrt(2.0))));
        worst = fmax(worst, fabs((double)below / N - want));
    }
    cr_assert_lt(worst, 0.015, "largest CDF difference %g", worst);
}

// Each age group: uniform over RiMEA's range (mean at the middle, a quarter of the draws in each
// quarter of the range).
Test(speed, age_groups_are_uniform_over_their_ranges) {
    static const float range[CROWD_AGE_GROUP_COUNT][2] = {
        {0.58f, 1.61f}, {1.41f, 1.54f}, {0.68f, 1.41f}, {0.46f, 0.76f}};
    for (int g = 0; g < CROWD_AGE_GROUP_COUNT; ++g) {
        const crowd_speed_dist d = crowd_speed_dist_age((crowd_age_group)g);
        const float lo = range[g][0], hi = range[g][1];
        int quarter[4] = {0};
        for (int k = 0; k < N; ++k) {
            const float s = draw(&d, 7, (uint64_t)k);
            cr_assert(s >= lo && s <= hi, "group %d: %g", g, (double)s);
            int q = (int)((s - lo) / (hi - lo) * 4.0f);
            quarter[q > 3 ? 3 : q]++;
        }
        for (int q = 0; q < 4; ++q)
            cr_assert(fabs(quarter[q] / (double)N - 0.25) < 0.015, "group %d quarter %d: %d", g, q,
                      quarter[q]);
    }
    const crowd_speed_dist bad = crowd_speed_dist_age(CROWD_AGE_GROUP_COUNT);
    const crowd_speed_dist def = crowd_speed_dist_default();
    cr_assert(bad.kind == def.kind && bad.mean == def.mean && bad.lo == def.lo);
}

// A draw is a function of (seed, key): the same again in any order, another for another key or
// seed; FIXED gives its mean.
Test(speed, draws_depend_on_seed_and_key_alone) {
    const crowd_speed_dist d = crowd_speed_dist_default();
    float first[64];
    for (int k = 0; k < 64; ++k) first[k] = draw(&d, 99, (uint64_t)k);
    int same_key_other_seed = 0, neighbors_equal = 0;
    for (int k = 63; k >= 0; --k) {
        cr_assert_eq(draw(&d, 99, (uint64_t)k), first[k]);
        same_key_other_seed += draw(&d, 100, (uint64_t)k) == first[k];
        neighbors_equal += k > 0 && first[k] == first[k - 1];
    }
    cr_assert_lt(same_key_other_seed, 2);
    cr_assert_lt(neighbors_equal, 2);
    crowd_speed_dist f = {.kind = CROWD_SPEED_FIXED, .mean = 1.2f};
    cr_assert_eq(draw(&f, 5, 6), 1.2f);
    // A degenerate range and a zero spread give the one speed they allow.
    crowd_speed_dist u = {.kind = CROWD_SPEED_UNIFORM, .lo = 0.9f, .hi = 0.9f};
    cr_assert_eq(draw(&u, 5, 6), 0.9f);
    crowd_speed_dist n0 = crowd_speed_dist_default();
    n0.sd = 0.0f;
    cr_assert_eq(draw(&n0, 5, 6), 1.34f);
}

// Every bad distribution is refused with its status, and *out is left alone.
Test(speed, bad_distributions_are_refused) {
    const crowd_speed_dist good = crowd_speed_dist_default();
    float out = 7.0f;
    cr_assert_eq(crowd_speed_draw(NULL, 0, 0, &out), CROWD_ERR_NULL_ARGUMENT);
    cr_assert_eq(crowd_speed_draw(&good, 0, 0, NULL), CROWD_ERR_NULL_ARGUMENT);
    struct {
        crowd_speed_dist d;
        crowd_status want;
    } bad[] = {
        {{.kind = CROWD_SPEED_KIND_COUNT, .mean = 1, .lo = 1, .hi = 1}, CROWD_ERR_INVALID_ENUM},
        {{.kind = CROWD_SPEED_NORMAL, .mean = NAN, .sd = 0.1f, .lo = 1, .hi = 2},
         CROWD_ERR_NOT_FINITE},
        {{.kind = CROWD_SPEED_UNIFORM, .lo = 1, .hi = INFINITY}, CROWD_ERR_NOT_FINITE},
        {{.kind = CROWD_SPEED_UNIFORM, .lo = 0, .hi = 1}, CROWD_ERR_BAD_SPEED},
        {{.kind = CROWD_SPEED_FIXED, .mean = -1}, CROWD_ERR_BAD_SPEED},
        {{.kind = CROWD_SPEED_UNIFORM, .lo = 2, .hi = 1}, CROWD_ERR_OUT_OF_RANGE},
        {{.kind = CROWD_SPEED_NORMAL, .mean = 1, .sd = -0.1f, .lo = 0.5f, .hi = 2},
         CROWD_ERR_OUT_OF_RANGE},
        {{.kind = CROWD_SPEED_FIXED, .mean = 2 * CROWD_MAX_SPEED}, CROWD_ERR_OUT_OF_RANGE},
        {{.kind = CROWD_SPEED_UNIFORM, .lo = 1, .hi = 2 * CROWD_MAX_SPEED}, CROWD_ERR_OUT_OF_RANGE},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        cr_assert_eq(crowd_speed_draw(&bad[i].d, 0, 0, &out), bad[i].want, "case %zu", i);
        cr_assert_eq(out, 7.0f, "case %zu changed *out", i);
    }
}
