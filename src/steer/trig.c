// Deterministic sine and cosine (crowd/trig.h): fdlibm's method, double precision throughout.
#include "crowd/trig.h"

// pi/2 in three parts of 33, 33 and 53 bits: k * part is exact for |k| < 2^20.
static const double pio2_1 = 1.57079632673412561417e+00, pio2_2 = 6.07710050630396597660e-11,
                    pio2_3 = 2.02226624871116645580e-21, invpio2 = 6.36619772367581382433e-01;

// sin(r) and cos(r) on [-pi/4, pi/4] (fdlibm's __kernel_sin and __kernel_cos).
static double kernel_sin(double x) {
    const double S1 = -1.66666666666666324348e-01, S2 = 8.33333333332248946124e-03,
                 S3 = -1.98412698298579493134e-04, S4 = 2.75573137070700676789e-06,
                 S5 = -2.50507602534068634195e-08, S6 = 1.58969099521155010221e-10;
    const double z = x * x, v = z * x;
    const double r = S2 + z * (S3 + z * (S4 + z * (S5 + z * S6)));
    return x + v * (S1 + z * r);
}

static double kernel_cos(double x) {
    const double C1 = 4.16666666666666019037e-02, C2 = -1.38888888888741095749e-03,
                 C3 = 2.48015872894767294178e-05, C4 = -2.75573143513906633035e-07,
                 C5 = 2.08757232129817482790e-09, C6 = -1.13596475577881948265e-11;
    const double z = x * x;
    const double r = z * (C1 + z * (C2 + z * (C3 + z * (C4 + z * (C5 + z * C6)))));
    const double hz = 0.5 * z, w = 1.0 - hz;
    return w + (((1.0 - w) - hz) + z * r);
}

// x = k * pi/2 + r with |r| <= pi/4 (about); returns k mod 4.
static int reduce(double x, double* r) {
    // Round to nearest by the 1.5 * 2^52 shift: exact and the same on every IEEE target.
    const double shift = 6755399441055744.0;
    double k = x * invpio2 + shift;
    k -= shift;
    *r = ((x - k * pio2_1) - k * pio2_2) - k * pio2_3;
    // k's low two bits, from a value that may exceed int's range.
    const double q = k - 4.0 * (double)(long long)(k * 0.25);
    return ((int)q % 4 + 4) % 4;
}

double crowd_sin(double x) {
    if (!(x - x == 0.0)) return x - x; // NaN for NaN and infinities
    double r;
    switch (reduce(x, &r)) {
    case 0:
        return kernel_sin(r);
    case 1:
        return kernel_cos(r);
    case 2:
        return -kernel_sin(r);
    default:
        return -kernel_cos(r);
    }
}

double crowd_cos(double x) {
    if (!(x - x == 0.0)) return x - x;
    double r;
    switch (reduce(x, &r)) {
    case 0:
        return kernel_cos(r);
    case 1:
        return -kernel_sin(r);
    case 2:
        return -kernel_cos(r);
    default:
        return kernel_sin(r);
    }
}

float crowd_sinf(float x) {
    return (float)crowd_sin((double)x);
}

float crowd_cosf(float x) {
    return (float)crowd_cos((double)x);
}
